#!/usr/bin/env python3
"""Generate the table of NULL-argument calls of test_abi_null.c.

usage: gen_null_calls.py OUTPUT.c HEADER.h...

Parses every `TSCHED_API` declaration of the public headers and writes, for every pointer
parameter of every function, a thunk that calls the function with NULL in that parameter and
valid values (from the fixture of test_abi_null.c, see null_calls.h) in all the others.
Functions without pointer parameters get a table entry without a thunk, so that the test can
check that the table covers every exported function.

A parameter whose type this script does not know is an error: a new public type needs a line
in TYPES below (and a valid value in the fixture) before the build passes again.
"""
import re
import sys

# Valid value of a parameter, by canonical type ("const tsched_topology *"). `c` is the
# struct nt_ctx * of null_calls.h; the nt_* helpers give fresh objects freed after the call.
TYPES = {
    # handles the function only reads: the fixture's
    'const tsched_topology *': 'c->topo',
    'const tsched_job *': 'c->job',
    'const tsched_placement *': 'c->placement',
    'const tsched_flows *': 'c->flows',
    'const tsched_routes *': 'c->routes',
    'const tsched_jobset *': 'c->jobset',
    'const tsched_priorities *': 'c->prio',
    'const tsched_dag *': 'c->dag',
    'const tsched_affinity *': 'c->aff',
    'const tsched_reservation *': 'c->resv',
    'const tsched_sim *': 'c->sim',
    'const tsched_sim_result *': 'c->sim_result',
    'const tsched_vclos *': 'c->vclos',
    'const tsched_gpu_catalog *': 'c->cat',
    'const tsched_op_profile *': 'c->profile',
    'const tsched_cell *': 'c->cell',
    'const tsched_crius *': 'c->crius',
    # handles the function may change or free: a fresh copy for this call
    'tsched_topology *': 'nt_fresh_topo(c)',
    'tsched_job *': 'nt_fresh_job(c)',
    'tsched_flows *': 'nt_fresh_flows(c)',
    'tsched_dag *': 'nt_fresh_dag(c)',
    'tsched_router *': 'nt_fresh_router(c)',
    'tsched_placement *': 'nt_fresh_placement(c)',
    'tsched_routes *': 'nt_fresh_routes(c)',
    'tsched_jobset *': 'nt_fresh_jobset(c)',
    'tsched_priorities *': 'nt_fresh_prio(c)',
    'tsched_affinity *': 'nt_fresh_aff(c)',
    'tsched_reservation *': 'nt_fresh_resv(c)',
    'tsched_sim *': 'nt_fresh_sim(c)',
    'tsched_vclos *': 'nt_fresh_vclos(c)',
    'tsched_gpu_catalog *': 'nt_fresh_cat(c)',
    'tsched_op_profile *': 'nt_fresh_profile(c)',
    'tsched_cell *': 'nt_fresh_cell(c)',
    'tsched_crius *': 'nt_fresh_crius(c)',
    'tsched_service *': 'nt_fresh_service(c)',
    'void *': 'nt_fresh_mem(c)',
    # handle out-parameters: slots freed after the call when set
    'tsched_topology * *': '&c->o_topo',
    'tsched_job * *': '&c->o_job',
    'tsched_placement * *': '&c->o_placement',
    'tsched_flows * *': '&c->o_flows',
    'tsched_routes * *': '&c->o_routes',
    'tsched_router * *': '&c->o_router',
    'tsched_jobset * *': '&c->o_jobset',
    'tsched_priorities * *': '&c->o_prio',
    'tsched_dag * *': '&c->o_dag',
    'tsched_affinity * *': '&c->o_aff',
    'tsched_reservation * *': '&c->o_resv',
    'tsched_sim * *': '&c->o_sim',
    'tsched_sim_result * *': '&c->o_sim_result',
    'tsched_vclos * *': '&c->o_vclos',
    'tsched_gpu_catalog * *': '&c->o_cat',
    'tsched_op_profile * *': '&c->o_profile',
    'tsched_cell * *': '&c->o_cell',
    'tsched_crius * *': '&c->o_crius',
    'tsched_service * *': '&c->o_service',
    'const tsched_cell * *': '&c->o_ccell',
    'char * * *': '&c->o_strs',
    'char * *': '&c->o_str',
    # strings
    'const char *': '"x"',
    'const char * const *': 'c->leaves',
    # scalar out-parameters and buffers (NT_BUF elements each)
    'uint32_t *': 'nt_u32(c)',
    'uint64_t *': 'nt_u64(c)',
    'size_t *': 'nt_size(c)',
    'int *': '&c->o_int',
    'double *': 'nt_dbl(c)',
    'FILE *': 'nt_file(c)',
    'const uint32_t *': 'c->zeros',
    'const int *': '(const int[]){1, 1, 1, 1}',
    'tsched_admit *': '&c->o_admit',
    'tsched_pattern *': '&c->o_pattern',
    'tsched_place_algo *': '&c->o_place_algo',
    'tsched_export_format *': '&c->o_export_format',
    'tsched_route_algo *': '&c->o_route_algo',
    'tsched_kcut_algo *': '&c->o_kcut_algo',
    'tsched_prio_order *': '&c->o_prio_order',
    'tsched_vclos_outcome *': '&c->o_vclos_outcome',
    'tsched_vclos_change *': 'c->o_vclos_change',
    'const char * *': 'c->o_cstrs',
    # output structs, `size` set
    'tsched_path *': 'nt_paths(c)',
    'tsched_volumes *': 'nt_volumes(c)',
    'tsched_spread *': 'nt_spread(c)',
    'tsched_model *': 'nt_model_out(c)',
    'tsched_limits *': 'nt_limits_out(c)',
    'tsched_gen_params *': '&c->o_gen_params',
    'tsched_slurm_options *': '&c->o_slurm_opts',
    'tsched_export_options *': '&c->o_export_opts',
    'tsched_k8s_options *': '&c->o_k8s_opts',
    'tsched_place_options *': '&c->o_place_opts',
    'tsched_route_options *': '&c->o_route_opts',
    'tsched_kcut_options *': '&c->o_kcut_opts',
    'tsched_prio_options *': '&c->o_prio_opts',
    'tsched_trace_options *': '&c->o_trace_opts',
    'tsched_output_opts *': '&(tsched_output_opts){0}',
    'tsched_sim_job_stats *': 'nt_sim_job_stats(c)',
    'tsched_sim_summary *': 'nt_sim_summary(c)',
    'tsched_vclos_jobinfo *': 'nt_vclos_jobinfo(c)',
    'tsched_gpu_info *': 'nt_gpu_info(c)',
    'tsched_plan_space *': '&c->o_plan_space',
    # input structs, initialised
    'const tsched_path *': 'c->route_paths',
    'const tsched_model *': '&c->model',
    'const tsched_limits *': '&c->limits',
    'const tsched_gen_params *': '&c->gen_params',
    'const tsched_slurm_options *': '&c->slurm_opts',
    'const tsched_export_options *': '&c->export_opts',
    'const tsched_k8s_options *': '&c->k8s_opts',
    'const tsched_place_options *': '&c->place_opts',
    'const tsched_route_options *': '&c->route_opts',
    'const tsched_kcut_options *': '&c->kcut_opts',
    'const tsched_prio_options *': '&c->prio_opts',
    'const tsched_trace_options *': '&c->trace_opts',
    'const size_t *': 'NULL',
    'const tsched_output_opts *': 'NULL',  # NULL = the defaults; non-NULL sizes: test_output_opts.c
    'const tsched_twojob *': '&c->twojob',
    'const tsched_sim_job *': '&c->sim_job',
    'const tsched_sim_phase *': '&c->sim_phase',
    # callbacks (function pointers: also called with NULL)
    'tsched_sim_callback': 'c->sim_cb',
    # scalars
    'uint32_t': '0',
    'uint64_t': '0',
    'int64_t': '0',
    'size_t': '0',
    'int': '0',
    'double': '0.0',
    'tsched_status': 'TSCHED_OK',
    'tsched_gen_kind': 'TSCHED_GEN_LEAF_SPINE',
    'tsched_domain': 'TSCHED_DOMAIN_LEAF',
    'tsched_unit': 'TSCHED_UNIT_PP',
    'tsched_level': 'TSCHED_LEVEL_CLUSTER',
    'tsched_pattern': 'TSCHED_PATTERN_DP_RING',
    'tsched_place_algo': 'TSCHED_PLACE_BEST_FIT',
    'tsched_export_format': 'TSCHED_EXPORT_SLURM_CONF',
    'tsched_route_algo': 'TSCHED_ROUTE_GREEDY',
    'tsched_kcut_algo': 'TSCHED_KCUT_CRUX',
    'tsched_prio_order': 'TSCHED_PRIO_ORDER_CRUX',
    'tsched_sim_policy': 'TSCHED_SIM_QUEUE',
    'tsched_sim_option': 'TSCHED_SIM_SEED',
    'tsched_vclos_mode': 'TSCHED_VCLOS_MODE_VCLOS',
    'tsched_vclos_shapes': 'TSCHED_VCLOS_SHAPES_ALL',
    'tsched_vclos_routing': 'TSCHED_VCLOS_ROUTING_SOURCE',
    'tsched_vclos_pattern': 'TSCHED_VCLOS_RING',
    'tsched_plan_space': 'TSCHED_PLANS_ASSEMBLED',
    'tsched_crius_objective': 'TSCHED_CRIUS_NORMALIZED',
    'tsched_crius_event': 'TSCHED_CRIUS_ARRIVAL',
}

# Pointer types without a `*` in their spelling (function-pointer typedefs): each also gets a
# call with NULL in it.
POINTER_TYPEDEFS = ('tsched_sim_callback',)

# Valid value by parameter name, for any function (before TYPES).
NAMES = {
    'gpus': '8', 'tp': '8', 'pp': '1', 'nics': '1', 'count': '1', 'free_gpus': '8',
    'gbits': '1.0', 'gbps': '100.0', 'nic_gbps': '100.0', 'alpha': '0.5', 'w': '1.0',
    'arrival': '100.0', 'now': '0.0', 'predicted_end': '1.0', 'r1': '1.0', 'r2': '1.0',
    'up': '1', 'a_first': '1', 'src': '0', 'dst': '2', 'v': '1', 'dst_leaf': '1',
    'cap': 'NT_BUF', 'rows': 'c->rows', 'cols': 'c->cols', 'gpus_per_node': '8',
    'id': 'c->topo_id', 'generation': 'c->topo_gen', 'gpu_type': 'c->gpu_type',
    'n': 'NT_LEVELS', 'nodes': 'NT_LEVELS',
}

# Valid value of (function, parameter), before NAMES and TYPES.
FUNCS = {
    # vclos: the fixture's handle runs job "x" (stage 1, 2 nodes under leaf0 of c->vc_topo)
    'tsched_vclos_new': {'topo': 'c->vc_topo'},
    'tsched_vclos_allocate': {'job': '"nx"'},
    'tsched_vclos_set_up': {'name': '"leaf3"'},
    'tsched_vclos_set_routing': {'v': 'nt_fresh_vclos_free(c)'},
    'tsched_vclos_load_state': {'v': 'nt_fresh_vclos_empty(c)', 'json': 'c->vclos_json'},
    'tsched_vclos_apply_requests': {'v': 'nt_fresh_vclos_empty(c)', 'json': 'c->vclos_req_json'},
    'tsched_topology_load_file': {'path': 'c->topo_path'},
    'tsched_topology_load_string': {'json': 'c->topo_json'},
    'tsched_topology_import_slurm_file': {'path': 'c->slurm_path'},
    'tsched_topology_import_slurm_string': {'text': 'c->slurm_text'},
    'tsched_export_format_from_name': {'name': '"kueue"'},
    'tsched_topology_import_slurm_yaml_file': {'path': 'c->slurm_yaml_path'},
    'tsched_topology_import_slurm_yaml_string': {'text': 'c->slurm_yaml_text'},
    'tsched_topology_apply_slurm_nodes': {'nodes_json': '"{\\"nodes\\": []}"'},
    'tsched_topology_import_k8s_nodes_file': {'path': 'c->k8s_path'},
    'tsched_topology_import_k8s_nodes_string': {'json': 'c->k8s_text'},
    'tsched_topology_save_file': {'path': 'c->save_path'},
    'tsched_job_load_file': {'path': 'c->job_path'},
    'tsched_job_load_string': {'json': 'c->job_json'},
    'tsched_affinity_load_file': {'path': 'c->aff_path'},
    'tsched_affinity_load_string': {'json': 'c->aff_json'},
    'tsched_flows_load_file': {'path': 'c->flows_path'},
    'tsched_flows_load_string': {'json': 'c->flows_json'},
    'tsched_placement_load_file': {'path': 'c->placement_path'},
    'tsched_placement_load_string': {'json': 'c->placement_json'},
    'tsched_dag_load_file': {'path': 'c->dag_path'},
    'tsched_dag_load_string': {'json': 'c->dag_json'},
    'tsched_jobset_load_file': {'path': 'c->jobset_path'},
    'tsched_jobset_load_string': {'json': 'c->jobset_json'},
    # fabric construction: an unbuilt fabric with leaf0, spine0 and node n0 (one NIC)
    'tsched_topology_add_switch': {'topo': 'nt_fresh_unbuilt(c)', 'name': '"sw9"'},
    'tsched_topology_add_node': {'topo': 'nt_fresh_unbuilt(c)', 'name': '"n9"', 'leaf': '"leaf0"',
                                 'gpu_type': '"H100"'},
    'tsched_topology_set_rails': {'topo': 'nt_fresh_unbuilt(c)', 'node': '0'},
    'tsched_topology_add_link': {'topo': 'nt_fresh_unbuilt(c)', 'a': '"leaf0"', 'b': '"spine0"'},
    'tsched_topology_build': {'topo': 'nt_fresh_unbuilt(c)'},
    'tsched_topology_set_nvl_domain': {'topo': 'nt_fresh_unbuilt(c)', 'node': '0'},
    # one tier key (c->leaves[0]), so that a NULL tier_keys is an error
    'tsched_topology_set_labels': {'ntiers': '1'},
    'tsched_topology_set_up': {'name': '"node0"'},
    'tsched_topology_find_node': {'name': '"node0"'},
    'tsched_topology_find_switch': {'name': '"leaf0"'},
    'tsched_topology_find_pod': {'name': '"pod0"'},
    'tsched_topology_find_member': {'name': '"leaf0~spine0#0"'},
    'tsched_pattern_from_name': {'name': '"dp-ring"'},
    'tsched_place_algo_from_name': {'name': '"best-fit"'},
    'tsched_route_algo_from_name': {'name': '"greedy"'},
    'tsched_kcut_algo_from_name': {'name': '"crux"'},
    'tsched_prio_order_from_name': {'name': '"crux"'},
    'tsched_job_new': {'name': '"j"'},
    'tsched_flows_add': {'job': '"j"'},
    'tsched_flows_collective': {'nodes': 'c->placement_nodes'},
    'tsched_spread_eval': {'nodes': 'c->placement_nodes'},
    'tsched_job_resolve_alpha': {'job': 'c->job_auto'},
    'tsched_placement_to_json': {'job_name': '"j"'},
    'tsched_topology_check_identity': {'what': '"x"'},
    'tsched_dag_new': {'nodes': 'NT_LEVELS'},
    # sim: the fixture's sim has job 0 ("j", 16 GPUs = 2 nodes) with phase 0 (explicit flows)
    'tsched_sim_set_policy': {'name': '"fifo"'},  # with TSCHED_SIM_QUEUE
    'tsched_sim_phase_add_flow': {'dst_rank': '1'},
    'tsched_sim_add_failure': {'name': '"node1"'},
    'tsched_sim_set_callback': {'event_mask': 'NT_SIM_EVENTS', 'user': 'c'},
    'tsched_sim_run_until': {'t_ns': 'INT64_MAX'},
    'tsched_sim_load_scenario_file': {'path': 'c->scenario_path'},
    'tsched_sim_load_scenario_string': {'json': 'c->scenario_json'},
    'tsched_sim_load_trace_file': {'path': 'c->trace_path'},
    'tsched_sim_load_trace_string': {'json': 'c->trace_json'},
    'tsched_sim_result_to_json': {'flags': 'TSCHED_SIM_JSON_NO_TIMING | TSCHED_SIM_JSON_LINKS'},
    'tsched_levels_to_json': {'n': 'NT_LEVELS'},
    # the fixture's job set has jobs 0 and 1; route_paths[0] joins node0 NIC 0 to node2 NIC 0
    'tsched_jobset_add_job': {'work_tflop': '1.0', 'compute_ms': '1.0'},
    'tsched_jobset_add_flow': {'src_node': '0', 'dst_node': '2', 'path': 'c->route_paths'},
    'tsched_jobset_add_nic_flow': {'src_node': '0', 'dst_node': '2'},
    'tsched_jobset_add_member_flow': {'src_node': '0', 'dst_node': '1', 'hops': '0'},
    # cell: the fixture's own fabric (pools A100/4, T4/2, G2/8), job "cj" (4 GPUs, 4 layers)
    'tsched_gpu_catalog_load_file': {'path': 'c->cat_path'},
    'tsched_gpu_catalog_load_string': {'json': 'c->cat_json'},
    'tsched_gpu_catalog_find': {'name': '"A100"'},
    'tsched_op_profile_load_file': {'path': 'c->profile_path'},
    'tsched_op_profile_load_string': {'json': 'c->profile_json'},
    'tsched_cell_pools': {'topo': 'c->cell_topo'},
    'tsched_cell_stages': {'job': 'c->cell_job', 'n_gpus': '4', 'stages': '2'},
    'tsched_cell_estimate': {'topo': 'c->cell_topo', 'pool': '"A100/4"', 'job': 'c->cell_job', 'n_gpus': '4',
                             'stages': '2'},
    'tsched_crius_new': {'topo': 'c->cell_topo'},
    'tsched_crius_add_job': {'job': 'c->cell_job', 'submit': '1.0'},
    # a fresh scheduler's job 0 "r" set running on a1's 4 busy GPUs
    'tsched_crius_set_running': {'job': '0', 'pool': '"A100/4"', 'n_gpus': '4', 'stages': '1',
                                 'nodes': 'c->cell_busy', 'node_gpus': 'c->cell_busy_gpus', 'count': '1'},
    'tsched_crius_load_queue': {'path': 'c->queue_path'},
    'tsched_crius_load_queue_string': {'json': 'c->queue_json'},
    'tsched_cell_list_to_json': {'topo': 'c->cell_topo', 'job': 'c->cell_job', 'type': '"A100"', 'gpus': '4',
                                 'stages': '2'},
    'tsched_cell_list_to_json_opts': {'topo': 'c->cell_topo', 'job': 'c->cell_job', 'type': '"A100"', 'gpus': '4',
                                      'stages': '2'},
    'tsched_vclos_apply_requests_opts': {'v': 'nt_fresh_vclos_empty(c)', 'json': 'c->vclos_req_json'},
    'tsched_placement_to_json_opts': {'job_name': '"j"'},
    'tsched_levels_to_json_opts': {'n': 'NT_LEVELS'},
    # the fixture's routes of c->flows on c->topo, as text and as a file
    'tsched_routes_load_string': {'json': 'c->routes_json'},
    'tsched_routes_load_file': {'path': 'c->routes_path'},
    # service: a fresh service holds fabric "x" (loaded from c->topo_json)
    # traces: the fixture's poisson options, pod CSV and dcn job file
    'tsched_trace_options_set': {'opts': '&c->trace_set_opts', 'name': '"seed"', 'value': '"7"'},
    'tsched_trace_mix_check': {'text': 'c->trace_mix'},
    'tsched_trace_convert_alibaba': {'csv': 'c->trace_csv'},
    'tsched_trace_convert_alibaba_file': {'path': 'c->trace_csv_path'},
    'tsched_trace_convert_dcn': {'dir': '"nt/ring_size_2"', 'names': 'c->dcn_names', 'texts': 'c->dcn_texts',
                                 'n': '1'},
    'tsched_trace_convert_dcn_dir': {'dir': 'c->dcn_dir'},
    'tsched_service_handle': {'request': '"{\\"id\\": 1, \\"op\\": \\"version\\"}"'},
}

# `len` is the length of the text parameter of the same call (even when that one is NULL).
LEN_OF = ('json', 'text', 'request', 'csv')

# Return kinds of null_calls.h, by canonical return type.
RETURNS = {
    'tsched_status': 'NT_STATUS',
    'void': 'NT_VOID',
    'const char *': 'NT_STR',
    'const uint32_t *': 'NT_PTR',
    'uint32_t': 'NT_NUM',
    'uint64_t': 'NT_NUM',
    'int': 'NT_NUM',
    'double': 'NT_NUM',
    'tsched_unit': 'NT_NUM',
    'tsched_domain': 'NT_NUM',
    'tsched_place_status': 'NT_NUM',
    'tsched_place_algo': 'NT_NUM',
    'tsched_route_algo': 'NT_NUM',
    'int64_t': 'NT_NUM',
}


def canon(t):
    return ' '.join(t.replace('*', ' * ').split())


def parse(paths):
    text = ''
    for p in paths:
        with open(p, encoding='utf-8') as f:
            text += f.read() + '\n'
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'^\s*#[^\n]*', ' ', text, flags=re.M)
    funcs = []
    for m in re.finditer(r'TSCHED_API\s+([^;(){}]*?)\b(tsched_\w+)\s*\(([^()]*)\)\s*;', text):
        ret, name, plist = canon(m.group(1)), m.group(2), ' '.join(m.group(3).split())
        params = []
        if plist not in ('', 'void'):
            for p in plist.split(','):
                pm = re.match(r'^(.*?)\s*\b(\w+)$', p.strip())
                if not pm or not pm.group(1):
                    sys.exit('gen_null_calls: cannot parse parameter "%s" of %s' % (p, name))
                params.append((canon(pm.group(1)), pm.group(2)))
        funcs.append((ret, name, params))
    if not funcs:
        sys.exit('gen_null_calls: no TSCHED_API declaration found')
    return funcs


def value(func, ptype, pname, params):
    if pname in FUNCS.get(func, {}):
        return FUNCS[func][pname]
    if pname == 'len':
        for t, n in params:
            if n in LEN_OF:
                return 'strlen(%s)' % value(func, t, n, params)
    if pname in NAMES and ('*' not in ptype or ptype == 'const char *'):
        return NAMES[pname]
    if ptype not in TYPES:
        sys.exit('gen_null_calls: %s: no valid value for parameter "%s %s": add its type to TYPES'
                 % (func, ptype, pname))
    return TYPES[ptype]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    funcs = parse(sys.argv[2:])
    out = ['/* Generated by tests/gen_null_calls.py from the public headers: do not edit. */',
           '#include <string.h>', '', '#include "null_calls.h"', '']
    table = []
    for ret, name, params in funcs:
        if ret not in RETURNS:
            sys.exit('gen_null_calls: %s returns "%s": add it to RETURNS' % (name, ret))
        kind = RETURNS[ret]
        ptrs = [i for i, (t, _) in enumerate(params) if '*' in t or t in POINTER_TYPEDEFS]
        if not ptrs:
            table.append('    {"%s", NULL, %d, %s, NULL},' % (name, len(params), kind))
            continue
        # A status function is also called once without any NULL (index -1): the test
        # checks that this succeeds, so the values the NULL calls rely on are valid.
        for i in ([-1] if kind == 'NT_STATUS' else []) + ptrs:
            args = ['NULL' if j == i else value(name, t, n, params) for j, (t, n) in enumerate(params)]
            pname = params[i][1] if i >= 0 else ''
            thunk = 'nt_%s__%s' % (name[len('tsched_'):], pname or 'valid')
            call = '%s(%s)' % (name, ', '.join(args))
            out.append('static void %s(struct nt_ctx *c, struct nt_result *r)' % thunk)
            out.append('{')
            if kind == 'NT_STATUS':
                out.append('    r->status = %s;' % call)
            elif kind == 'NT_VOID':
                out.append('    %s;' % call)
            elif kind == 'NT_STR':
                out.append('    r->str = %s;' % call)
            elif kind == 'NT_PTR':
                out.append('    r->ptr = %s;' % call)
            else:
                out.append('    r->num = (double)%s;' % call)
            out.append('    (void)c;')
            out.append('    (void)r;')
            out.append('}')
            out.append('')
            table.append('    {"%s", "%s", %d, %s, %s},' % (name, pname, len(params), kind, thunk))
    out.append('const struct nt_entry nt_entries[] = {')
    out.extend(table)
    out.append('};')
    out.append('const size_t nt_nentries = sizeof nt_entries / sizeof nt_entries[0];')
    with open(sys.argv[1], 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
