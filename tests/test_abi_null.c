/*
 * DESIGN 3: NULL in any pointer argument never crashes. Every exported function is called
 * with NULL in each of its pointer parameters in turn, the others valid (the table of
 * null_calls.c, generated from the public headers by gen_null_calls.py):
 *   - a status-returning function must return TSCHED_E_INVALID with a one-line message that
 *     names the parameter, unless the parameter is documented as optional (`optional` below),
 *     in which case the call must succeed;
 *   - a getter must return its empty value (0, TSCHED_NONE, NULL, ...; `empty_num` and
 *     `empty_str` below);
 *   - init and free functions must simply not crash.
 * Every status function is also called once with valid values only, and must succeed: so
 * the fixture values are known good, and a NULL call fails because of the NULL.
 * The table must cover exactly the functions of the version script (argv[1]), so a new
 * export is tested as soon as it is declared. The fixture must come out of the calls intact.
 *
 * usage: test_abi_null MAP_FILE [--fork] [FUNCTION...]
 *   --fork    run every call in a child process (reports every crash, not just the first)
 *   FUNCTION  only the calls of these functions (the coverage check is still made)
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "null_calls.h"

static int failures, passes;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static void die(const char *what, tsched_status st)
{
    printf("fixture: %s failed: %s: %s\n", what, tsched_status_str(st), tsched_last_error());
    exit(1);
}

#define FIX(expr)                                                                                                    \
    do {                                                                                                             \
        tsched_status fix_st_ = (expr);                                                                              \
        if (fix_st_ != TSCHED_OK)                                                                                    \
            die(#expr, fix_st_);                                                                                     \
    } while (0)

/* ---- expectations ------------------------------------------------------------------------ */

/* Parameters the headers document as optional: with NULL there (and the other arguments
 * valid) the call must succeed. */
static const struct {
    const char *func, *param;
} optional[] = {
    {"tsched_topology_new", "name"},               /* NULL = "cluster" */
    {"tsched_topology_add_switch", "index"},       /* "`*index` (may be NULL)" */
    {"tsched_topology_add_switch", "pod"},         /* "`pod` may be NULL (cores, two-tier fabrics)" */
    {"tsched_topology_add_node", "index"},         /* as add_switch */
    {"tsched_topology_add_node", "gpu_type"},      /* "`gpu_type` may be NULL ("GPU")" */
    {"tsched_topology_import_slurm_file", "opts"}, /* "`opts` may be NULL for the defaults" */
    {"tsched_topology_set_nvl_domain", "domain"},  /* "NULL or "" clears it" */
    {"tsched_topology_set_switch_value", "value"}, /* "NULL or "" clears it" */
    {"tsched_topology_set_node_hostname", "value"}, /* "NULL or "" clears it" */
    {"tsched_topology_set_labels", "nvl_key"},     /* "`nvl_key` may be NULL" */
    {"tsched_topology_import_slurm_string", "opts"},
    {"tsched_topology_import_slurm_yaml_file", "opts"},
    {"tsched_topology_import_slurm_yaml_string", "opts"},
    {"tsched_topology_check_identity", "what"},    /* "prefixed by `what` (may be NULL)" */
    {"tsched_topology_export", "opts"},            /* "`opts` may be NULL (slurm-conf)" */
    {"tsched_placement_pod_order", "job_name"},    /* "`job_name` may be NULL" */
    {"tsched_placement_pod_order", "index_label"}, /* "NULL for batch.kubernetes.io/..." */
    {"tsched_affinity_record", "gpu_type"},        /* "any out-parameter may be NULL" */
    {"tsched_affinity_record", "r1"},
    {"tsched_affinity_record", "r2"},
    {"tsched_affinity_record", "j_dp"},
    {"tsched_affinity_record", "j_pp"},
    {"tsched_affinity_lookup", "record"},          /* "`*record` (may be NULL)" */
    {"tsched_job_resolve_alpha", "db"},            /* "NULL = the built-in database" */
    {"tsched_flows_add", "index"},                 /* "`*index` (may be NULL)" */
    {"tsched_flows_add", "job"},                   /* "`job` may be NULL" */
    {"tsched_placement_to_json", "job_name"},      /* "`job_name` may be NULL" */
    {"tsched_place", "opts"},                      /* options: NULL = the defaults */
    {"tsched_route", "opts"},
    {"tsched_router_route", "opts"},
    {"tsched_dag_compress", "opts"},
    {"tsched_prioritize", "opts"},
    {"tsched_job_new", "name"},                    /* "`name` may be NULL or "" ("job")" */
    {"tsched_flows_collective", "job"},            /* "`job` may be NULL when `gbits` > 0" (gbits is 1 here) */
    {"tsched_dag_compress", "cut_weight"},         /* "`cut_weight` may be NULL" */
    {"tsched_jobset_add_job", "index"},            /* "`*index` (may be NULL)" */
    {"tsched_jobset_add_flow", "path"},            /* "`path` NULL lets tsched_prioritize() choose" */
    {"tsched_twojob_steady", "link_share_a"},      /* "any out-parameter may be NULL" */
    {"tsched_twojob_steady", "link_share_b"},
    {"tsched_twojob_steady", "utilization"},
    {"tsched_sim_add_job", "index"},               /* "`*index` (may be NULL) receives its index" */
    {"tsched_sim_job_add_phase", "index"},         /* "`*index` (may be NULL) receives the phase's index" */
    {"tsched_sim_phase_add_flow", "hops"},         /* "NULL/0 = routed by the policy" (nhops is 0 here) */
    {"tsched_jobset_add_member_flow", "members"},  /* "may be NULL when `hops` is 0" (it is 0 here) */
    {"tsched_sim_set_callback", "cb"},             /* "NULL cb = none" */
    {"tsched_sim_set_callback", "user"},           /* opaque: only passed back to `cb` ("void *user") */
    {"tsched_vclos_job_ranks", "node"},            /* "Any array may be NULL." */
    {"tsched_vclos_job_ranks", "nic"},
    {"tsched_vclos_job_ranks", "uplink"},
    {"tsched_cell_stages", "profile"},             /* "`profile` may be NULL (the analytic model)" */
    {"tsched_cell_estimate", "profile"},           /* "`profile` may be NULL" */
    {"tsched_cell_stage", "first_layer"},          /* "any out may be NULL" */
    {"tsched_cell_stage", "layers"},
    {"tsched_cell_stage", "gpus"},
    {"tsched_cell_stage", "dp"},
    {"tsched_cell_stage", "tp"},
    {"tsched_cell_stage", "time_s"},
    {"tsched_cell_stage", "mem_bytes"},
    {"tsched_crius_add_job", "index"},             /* "`*index` (may be NULL)" */
    {"tsched_service_handle", "stop"},
    {"tsched_cell_list_to_json", "profile"},      /* "`profile` (may be NULL)" */
    {"tsched_cell_list_to_json", "type"},         /* "`type` (may be NULL)" */
    {"tsched_trace_mix_check", "name"},           /* "NULL = "model-mix"" */
    {"tsched_trace_convert_alibaba", "name"},     /* "NULL = "-"" */
    {"tsched_trace_convert_alibaba", "opts"},     /* "`opts` NULL = the defaults" */
    {"tsched_trace_convert_alibaba_file", "opts"},
    {"tsched_trace_convert_dcn", "lens"},         /* "`lens` NULL = each up to its NUL" */
    {"tsched_trace_convert_dcn", "opts"},
    {"tsched_trace_convert_dcn_dir", "opts"},
    {"tsched_cell_list_to_json_opts", "profile"}, /* as tsched_cell_list_to_json */
    {"tsched_cell_list_to_json_opts", "type"},
    {"tsched_cell_list_to_json_opts", "opts"},    /* "NULL: indented, with `solve_ms`" */
    {"tsched_crius_to_json_opts", "opts"},
    {"tsched_routes_to_json_opts", "opts"},
    {"tsched_placement_to_json_opts", "opts"},
    {"tsched_levels_to_json_opts", "opts"},
    {"tsched_priorities_to_json_opts", "opts"},
    {"tsched_flows_to_json_opts", "opts"},
    {"tsched_topology_to_json_opts", "opts"},
    {"tsched_topology_summary_json_opts", "opts"},
    {"tsched_vclos_apply_requests_opts", "opts"},
    {"tsched_placement_to_json_opts", "job_name"}, /* as tsched_placement_to_json */
    {"tsched_routes_load_string", "flows"},       /* "`flows` may be NULL" */
    {"tsched_routes_load_file", "flows"},
};

/* Words that name a parameter in an error message besides its own name. */
static const struct {
    const char *param, *word;
} aliases[] = {
    {"topo", "topology"},
    {"p", "placement"},
    {"p", "result"}, /* tsched_priorities_* */
    {"jobs", "job set"},
    {"c", "cell"}, /* tsched_cell_* */
};

/* Getters whose empty value is not 0. */
static const struct {
    const char *func;
    double value;
} empty_num[] = {
    /* "Index of ..., or TSCHED_NONE"; "an out-of-range index or a NULL handle gives ... TSCHED_NONE" */
    {"tsched_topology_find_node", TSCHED_NONE},
    {"tsched_topology_find_switch", TSCHED_NONE},
    {"tsched_topology_find_pod", TSCHED_NONE},
    {"tsched_topology_find_trunk", TSCHED_NONE},
    {"tsched_topology_node_leaf", TSCHED_NONE},
    {"tsched_topology_node_nic_leaf", TSCHED_NONE},
    {"tsched_topology_node_pod", TSCHED_NONE},
    {"tsched_topology_switch_pod", TSCHED_NONE},
    {"tsched_topology_tier_switch", TSCHED_NONE},
    {"tsched_topology_trunk_lower", TSCHED_NONE},
    {"tsched_topology_trunk_upper", TSCHED_NONE},
    {"tsched_topology_trunk_first_member", TSCHED_NONE},
    {"tsched_topology_member_trunk", TSCHED_NONE},
    {"tsched_topology_member_index", TSCHED_NONE},
    {"tsched_topology_node_nvl", TSCHED_NONE},
    {"tsched_topology_find_member", TSCHED_NONE},
    {"tsched_placement_node", TSCHED_NONE}, /* "or TSCHED_NONE for a bad cell" */
    {"tsched_placement_rank", TSCHED_NONE},
    {"tsched_topology_switch_tier", -1}, /* "or -1 for a bad index" */
    {"tsched_job_alpha", NAN},           /* "NaN for NULL": neither an alpha nor "auto" (negative) */
    {"tsched_job_domain", TSCHED_DOMAIN_AUTO},          /* "TSCHED_DOMAIN_AUTO for NULL" */
    {"tsched_placement_status", TSCHED_PLACE_FEASIBLE}, /* "TSCHED_PLACE_FEASIBLE for NULL" */
    {"tsched_vclos_mode_of", -1},                       /* "(-1 for NULL)" */
};

/* Getters returning a string whose empty value is not NULL. */
static const struct {
    const char *func, *value;
} empty_str[] = {
    {"tsched_routes_status", ""}, /* "\"\" for NULL" */
    {"tsched_cell_reason", ""},   /* "(\"\" when feasible or NULL)" */
};

/* Whether `msg` holds `word` as a whole identifier ("algo" is not in "tsched_route_algo_from_name"). */
static int names(const char *msg, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = msg; (p = strstr(p, word)) != NULL; p++) {
        int before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

static int names_param(const char *msg, const char *param)
{
    if (names(msg, param))
        return 1;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(aliases[i].param, param) && names(msg, aliases[i].word))
            return 1;
    return 0;
}

static int is_optional(const struct nt_entry *e)
{
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (!strcmp(optional[i].func, e->func) && !strcmp(optional[i].param, e->param))
            return 1;
    return 0;
}

/* ---- fixture ------------------------------------------------------------------------------- */

static const char topo_doc[] =
    "{\"format\": \"tsched.topology.v1\", \"name\": \"nt\", \"generate\": {\"kind\": \"clos3\", \"pods\": 2,"
    " \"leaves_per_pod\": 2, \"spines_per_pod\": 1, \"cores\": 1, \"nodes_per_leaf\": 2, \"gpus_per_node\": 8,"
    " \"nics_per_node\": 1, \"nic_gbps\": 100}}";
static const char jobset_doc[] =
    "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
    "{\"name\": \"a\", \"gpus\": 16, \"work_tflop\": 100.0, \"compute_ms\": 100.0, \"overlap\": 0.5,"
    " \"flows\": [{\"src\": \"node0\", \"dst\": \"node2\", \"gbits\": 10.0}]},"
    "{\"name\": \"b\", \"gpus\": 16, \"work_tflop\": 50.0, \"compute_ms\": 100.0, \"overlap\": 0.5,"
    " \"flows\": [{\"src\": \"node1\", \"dst\": \"node3\", \"gbits\": 10.0}]}]}";
static const char dag_doc[] = "{\"format\": \"tsched.dag.v1\", \"nodes\": 3, \"edges\": [[0, 1, 1.0], [1, 2, 2.0]]}";
static const char slurm_doc[] = "SwitchName=s1 Nodes=tux[0-1]\nSwitchName=s2 Switches=s1\n";
static const char slurm_yaml_doc[] = "- topology: t\n  tree:\n    switches:\n      - switch: s1\n"
                                     "        nodes: tux[0-1]\n";
static const char k8s_doc[] = "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"g1\", \"labels\": "
                              "{\"rack\": \"r1\"}}, \"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\"}}}]}";
static const char *const k8s_levels[] = {"rack"};
/* A job "t" (2 nodes) whose one phase has one explicit flow; no name shared with the fixture's sim. */
static const char trace_doc[] =
    "{\"format\": \"tsched.trace.v1\", \"name\": \"nt\", \"jobs\": [{\"name\": \"t\", \"arrival_s\": 0.5,"
    " \"gpus\": 16, \"compute_ms\": 1, \"iterations\": 2, \"phases\": [{\"flows\": [{\"src\": 0, \"dst\": 1,"
    " \"gbits\": 1.0}]}, {\"pattern\": \"dp-ring\", \"gbits\": 0.5}]}]}";
static const char scenario_doc[] =
    "{\"format\": \"tsched.scenario.v1\", \"name\": \"nt\", \"queue\": \"fifo\", \"placement\": \"best-fit\","
    " \"routing\": \"greedy\", \"seed\": 7, \"until_s\": null, \"sample_ms\": 10,"
    " \"failures\": [{\"at_s\": 1, \"down\": [\"node7\"]}, {\"at_s\": 2, \"up\": [\"node7\"]}]}";

static const char vc_topo_doc[] =
    "{\"format\": \"tsched.topology.v1\", \"name\": \"ntv\", \"generate\": {\"kind\": \"leaf_spine\", \"leaves\": 4,"
    " \"spines\": 4, \"nodes_per_leaf\": 2, \"gpus_per_node\": 8, \"nics_per_node\": 1, \"uplinks\": 1,"
    " \"nic_gbps\": 100}}";
static const char vc_req_doc[] =
    "{\"format\": \"tsched.vclos-requests.v1\", \"requests\": [{\"op\": \"alloc\", \"job\": \"r\", \"gpus\": 8},"
    " {\"op\": \"release\", \"job\": \"r\"}]}";

/* A vclos handle over the fixture's leaf-spine running job "x" (stage 1, 16 GPUs). */
static tsched_vclos *vclos_build(struct nt_ctx *c, tsched_vclos_mode mode, int with_job)
{
    tsched_vclos *v = NULL;
    FIX(tsched_vclos_new(&v, c->vc_topo, mode));
    if (with_job) {
        tsched_vclos_outcome o = TSCHED_VCLOS_WAIT_GPU;
        FIX(tsched_vclos_allocate(v, "x", 16, &o));
        if (o != TSCHED_VCLOS_ALLOCATED) {
            printf("fixture: vclos job x waits (outcome %d)\n", (int)o);
            exit(1);
        }
    }
    return v;
}

/* The callback of the fixture's sim: counts the events (`user` is the context). */
static int nt_sim_cb(const tsched_sim_event *ev, void *user)
{
    struct nt_ctx *c = user;
    if (c && ev && ev->size >= sizeof *ev && (ev->kind & NT_SIM_EVENTS))
        c->sim_cb_calls++;
    return 0;
}

/* A sim on a fresh copy of the fixture fabric (*topo), with job 0 "j" (16 GPUs: 2 nodes, one
 * iteration) whose phase 0 has one explicit flow from rank 0 to rank 1. */
static void sim_build(tsched_sim **sim, tsched_topology **topo, struct nt_ctx *c)
{
    FIX(tsched_topology_load_string(topo, c->topo_json, strlen(c->topo_json)));
    FIX(tsched_sim_new(sim, *topo));
    tsched_sim_job j = {.size = sizeof j, .name = "j", .gpus = 16, .compute_ns = 1000000, .iterations = 1};
    uint32_t job = TSCHED_NONE, phase = TSCHED_NONE;
    FIX(tsched_sim_add_job(&job, *sim, &j));
    tsched_sim_phase p = {.size = sizeof p, .pattern = -1};
    FIX(tsched_sim_job_add_phase(&phase, *sim, job, &p));
    FIX(tsched_sim_phase_add_flow(*sim, job, phase, 0, 0, 1, 0, 2.0, NULL, 0));
    if (job != 0 || phase != 0) {
        printf("fixture: sim job %u, phase %u (expected 0 and 0)\n", job, phase);
        exit(1);
    }
}

static void write_file(char *path, size_t size, const char *what, const char *text)
{
    snprintf(path, size, "nt-%ld-%s", (long)getpid(), what);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("fixture: cannot write %s\n", path);
        exit(1);
    }
}

static const char trace_mix_doc[] = "{\"format\": \"tsched.model-mix.v1\", \"models\": [{\"compute_ms\": 10,"
                                    " \"phases\": [{\"pattern\": \"dp-ring\", \"gbits\": 1}]}]}";
static const char trace_csv_doc[] = "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                    "p1,8,1000,Succeeded,0,100,10\n";
static const char dcn_job_doc[] = "#src dst src_tor dst_tor start_time flow_size compute_time stage_index\n"
                                  "96 97 0 0 0 2000000000 1000 0\n";

static char *xstrdup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (!d)
        exit(1);
    return strcpy(d, s);
}

/* ---- the cell fixture ---- */

/* An A100 op profile of the cell job's 4-layer model (time_s, params, act_bytes, out_bytes). */
static const char cell_profile_doc[] =
    "{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"A100\", \"layers\": ["
    "{\"time_s\": 0.001, \"params\": 1000000, \"act_bytes\": 1000000, \"out_bytes\": 65536},"
    "{\"time_s\": 0.001, \"params\": 800000, \"act_bytes\": 1000000, \"out_bytes\": 65536},"
    "{\"time_s\": 0.001, \"params\": 800000, \"act_bytes\": 1000000, \"out_bytes\": 65536},"
    "{\"time_s\": 0.002, \"params\": 1200000, \"act_bytes\": 1000000, \"out_bytes\": 65536}],"
    " \"collectives\": [{\"op\": \"sendrecv\", \"scope\": \"intra\", \"points\": [[65536, 0.00001]]},"
    " {\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1048576, 0.0001], [8388608, 0.0005]]}]}";
/* A queue of one new job "q" (no name shared with the fresh scheduler's "r"). */
static const char cell_queue_doc[] =
    "{\"format\": \"tsched.crius-queue.v1\", \"jobs\": [{\"name\": \"q\", \"gpus\": 2, \"submit\": 5,"
    " \"model\": {\"hidden\": 128, \"layers\": 2, \"vocab\": 500, \"seq\": 64, \"global_batch\": 8}}]}";

/* The cell fabric: leaf0 a0, a1 (A100 x4, 4 NICs of 100), leaf1 t0, t1 (T4 x2, one NIC of
 * 25) and g0 (G2 x8: not in the catalogue); a1's GPUs are busy. */
static void cell_topo_build(tsched_topology **out)
{
    tsched_topology *t = NULL;
    FIX(tsched_topology_new(&t, "ntc"));
    FIX(tsched_topology_add_switch(NULL, t, "leaf0", TSCHED_TIER_LEAF, NULL));
    FIX(tsched_topology_add_switch(NULL, t, "leaf1", TSCHED_TIER_LEAF, NULL));
    FIX(tsched_topology_add_switch(NULL, t, "spine0", TSCHED_TIER_SPINE, NULL));
    FIX(tsched_topology_add_link(t, "leaf0", "spine0", 400.0, 2));
    FIX(tsched_topology_add_link(t, "leaf1", "spine0", 400.0, 2));
    FIX(tsched_topology_add_node(NULL, t, "a0", "leaf0", 4, 4, "A100", 100.0));
    FIX(tsched_topology_add_node(NULL, t, "a1", "leaf0", 4, 4, "A100", 100.0));
    FIX(tsched_topology_add_node(NULL, t, "t0", "leaf1", 2, 1, "T4", 25.0));
    FIX(tsched_topology_add_node(NULL, t, "t1", "leaf1", 2, 1, "T4", 25.0));
    FIX(tsched_topology_add_node(NULL, t, "g0", "leaf1", 8, 1, "G2", 100.0));
    FIX(tsched_topology_build(t));
    FIX(tsched_topology_set_free_gpus(t, tsched_topology_find_node(t, "a1"), 0));
    *out = t;
}

/* A scheduler over the cell fabric with job 0 "r" (4 GPUs, the cell job's model) queued. */
static tsched_crius *cell_crius_build(struct nt_ctx *c)
{
    tsched_crius *cr = NULL;
    tsched_job *r = NULL;
    FIX(tsched_crius_new(&cr, c->cell_topo, c->cat));
    FIX(tsched_job_new(&r, "r", 4, 1, 1));
    tsched_model m;
    tsched_model_init(&m);
    FIX(tsched_job_model(&m, c->cell_job));
    FIX(tsched_job_set_model(r, &m));
    uint32_t index = TSCHED_NONE;
    FIX(tsched_crius_add_job(&index, cr, r, 0.0));
    tsched_job_free(r);
    if (index != 0) {
        printf("fixture: scheduler job r has index %u\n", index);
        exit(1);
    }
    return cr;
}

static void cell_fixture(struct nt_ctx *c)
{
    cell_topo_build(&c->cell_topo);
    FIX(tsched_topology_to_json(&c->cell_topo_json, c->cell_topo));
    c->cell_busy[0] = tsched_topology_find_node(c->cell_topo, "a1");
    c->cell_busy_gpus[0] = 4;
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 256;
    m.layers = 4;
    m.vocab = 1000;
    m.seq = 128;
    m.global_batch = 16;
    FIX(tsched_job_new(&c->cell_job, "cj", 4, 1, 1));
    FIX(tsched_job_set_model(c->cell_job, &m));
    FIX(tsched_job_to_json(&c->cell_job_json, c->cell_job));

    FIX(tsched_gpu_catalog_default(&c->cat));
    FIX(tsched_gpu_catalog_to_json(&c->cat_json, c->cat));
    c->profile_json = xstrdup(cell_profile_doc);
    FIX(tsched_op_profile_load_string(&c->profile, c->profile_json, strlen(c->profile_json)));
    c->queue_json = xstrdup(cell_queue_doc);
    write_file(c->cat_path, sizeof c->cat_path, "gpus.json", c->cat_json);
    write_file(c->profile_path, sizeof c->profile_path, "profile.json", c->profile_json);
    write_file(c->queue_path, sizeof c->queue_path, "queue.json", c->queue_json);

    FIX(tsched_cell_estimate(&c->cell, c->cell_topo, "A100/4", c->cat, c->cell_job, c->profile, 4, 2,
                             TSCHED_PLANS_ASSEMBLED));
    if (!tsched_cell_feasible(c->cell)) {
        printf("fixture: the Cell A100/4 x 4 GPUs x 2 stages is infeasible: %s\n", tsched_cell_reason(c->cell));
        exit(1);
    }
    FIX(tsched_cell_to_json(&c->cell_json, c->cell));

    /* The fixture's scheduler: the cell job arrives and runs (job 0). */
    FIX(tsched_crius_new(&c->crius, c->cell_topo, c->cat));
    uint32_t index = TSCHED_NONE;
    FIX(tsched_crius_add_job(&index, c->crius, c->cell_job, 0.0));
    FIX(tsched_crius_schedule(c->crius, TSCHED_CRIUS_ARRIVAL));
    if (index != 0 || !tsched_crius_job_running(c->crius, 0)) {
        printf("fixture: the scheduler's job cj (index %u) is not running: %s\n", index,
               tsched_crius_job_reason(c->crius, 0) ? tsched_crius_job_reason(c->crius, 0) : "(null)");
        exit(1);
    }
    FIX(tsched_crius_to_json(&c->crius_json, c->crius, 0));

    /* The documents the load calls get are valid, and a fresh scheduler takes its job 0 on
     * a1 and the queue file, so the NULL calls fail because of the NULL. */
    tsched_crius *cr = cell_crius_build(c);
    FIX(tsched_crius_set_running(cr, 0, "A100/4", 4, 1, c->cell_busy, c->cell_busy_gpus, 1));
    FIX(tsched_crius_load_queue(cr, c->queue_path));
    tsched_crius_free(cr);
}

/* Whether the cell fixture is unchanged: every object written out again, and the profile
 * through a fresh estimate of the same Cell. */
static void cell_fixture_check(struct nt_ctx *c)
{
    struct {
        const char *what;
        char *now;
        const char *then;
    } docs[] = {{"cell fabric", NULL, c->cell_topo_json}, {"cell job", NULL, c->cell_job_json},
                {"GPU catalogue", NULL, c->cat_json},     {"Cell", NULL, c->cell_json},
                {"scheduler", NULL, c->crius_json},       {"op profile (through its Cell)", NULL, c->cell_json}};
    FIX(tsched_topology_to_json(&docs[0].now, c->cell_topo));
    FIX(tsched_job_to_json(&docs[1].now, c->cell_job));
    FIX(tsched_gpu_catalog_to_json(&docs[2].now, c->cat));
    FIX(tsched_cell_to_json(&docs[3].now, c->cell));
    FIX(tsched_crius_to_json(&docs[4].now, c->crius, 0));
    tsched_cell *again = NULL;
    FIX(tsched_cell_estimate(&again, c->cell_topo, "A100/4", c->cat, c->cell_job, c->profile, 4, 2,
                             TSCHED_PLANS_ASSEMBLED));
    FIX(tsched_cell_to_json(&docs[5].now, again));
    tsched_cell_free(again);
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (strcmp(docs[i].now, docs[i].then))
            fail("the fixture %s was changed by a call", docs[i].what);
        tsched_free(docs[i].now);
    }
    if (strcmp(tsched_op_profile_gpu_type(c->profile), "A100") || tsched_op_profile_layers(c->profile) != 4)
        fail("the fixture op profile was changed by a call");
}

static void fixture_new(struct nt_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->topo_json = xstrdup(topo_doc);
    FIX(tsched_topology_load_string(&c->topo, c->topo_json, strlen(c->topo_json)));
    if (tsched_topology_find_switch(c->topo, "leaf0") == TSCHED_NONE ||
        tsched_topology_find_node(c->topo, "node7") == TSCHED_NONE ||
        tsched_topology_find_pod(c->topo, "pod0") == TSCHED_NONE) {
        printf("fixture: the fabric lacks leaf0, node7 or pod0\n");
        exit(1);
    }
    c->topo_id = tsched_topology_id(c->topo);
    c->topo_gen = tsched_topology_generation(c->topo);

    tsched_model_init(&c->model);
    FIX(tsched_job_new(&c->job, "j", 16, 8, 1));
    FIX(tsched_job_set_model(c->job, &c->model));
    FIX(tsched_job_to_json(&c->job_json, c->job));
    FIX(tsched_job_new(&c->job_auto, "ja", 16, 8, 1));
    FIX(tsched_job_set_model(c->job_auto, &c->model));
    FIX(tsched_job_set_alpha_auto(c->job_auto));

    FIX(tsched_affinity_default(&c->aff));
    FIX(tsched_affinity_to_json(&c->aff_json, c->aff));
    FIX(tsched_affinity_record(&c->gpu_type, NULL, NULL, NULL, NULL, c->aff, 0));

    tsched_place_options_init(&c->place_opts);
    c->place_opts.algo = TSCHED_PLACE_BEST_FIT;
    FIX(tsched_place(&c->placement, c->topo, c->job, &c->place_opts));
    FIX(tsched_placement_to_json(&c->placement_json, c->placement, c->topo, "j", 0));
    c->rows = tsched_placement_rows(c->placement);
    c->cols = tsched_placement_cols(c->placement);
    c->placement_nodes = tsched_placement_nodes(c->placement);
    FIX(tsched_reservation_new(&c->resv, c->placement, 100.0));

    FIX(tsched_flows_new(&c->flows));
    FIX(tsched_flows_add(NULL, c->flows, "j", 0, 0, 2, 0, 10.0));
    FIX(tsched_flows_add(NULL, c->flows, "j", 1, 0, 7, 0, 10.0));
    FIX(tsched_flows_to_json(&c->flows_json, c->flows, c->topo));
    tsched_route_options_init(&c->route_opts);
    FIX(tsched_route(&c->routes, c->topo, c->flows, &c->route_opts));
    FIX(tsched_routes_to_json(&c->routes_json, c->routes, c->topo, 0));
    for (uint32_t i = 0; i < tsched_routes_count(c->routes); i++) {
        c->route_paths[i].size = sizeof c->route_paths[i];
        FIX(tsched_routes_path(&c->route_paths[i], c->routes, i));
    }

    c->jobset_json = xstrdup(jobset_doc);
    FIX(tsched_jobset_load_string(&c->jobset, c->topo, c->jobset_json, strlen(c->jobset_json)));
    tsched_prio_options_init(&c->prio_opts);
    FIX(tsched_prioritize(&c->prio, c->topo, c->jobset, &c->prio_opts));
    c->dag_json = xstrdup(dag_doc);
    FIX(tsched_dag_load_string(&c->dag, c->dag_json, strlen(c->dag_json)));
    c->slurm_text = xstrdup(slurm_doc);
    c->slurm_yaml_text = xstrdup(slurm_yaml_doc);
    c->k8s_text = xstrdup(k8s_doc);

    c->leaves[0] = "leaf0";
    c->limits.size = sizeof c->limits;
    FIX(tsched_limits_get(&c->limits));
    tsched_topology_params_init(&c->gen_params, TSCHED_GEN_LEAF_SPINE);
    c->gen_params.leaves = 2;
    c->gen_params.spines = 1;
    c->gen_params.nodes_per_leaf = 1;
    c->gen_params.gpus_per_node = 8;
    c->gen_params.nic_gbps = 100.0;
    tsched_slurm_options_init(&c->slurm_opts);
    tsched_export_options_init(&c->export_opts);
    tsched_k8s_options_init(&c->k8s_opts);
    c->k8s_opts.levels = k8s_levels;
    c->k8s_opts.nlevels = 1;
    tsched_kcut_options_init(&c->kcut_opts);
    c->twojob = (tsched_twojob){.size = sizeof(tsched_twojob), .compute_ms = 100.0, .comm_ms = 50.0, .overlap = 0.5, .gpus = 8};

    write_file(c->topo_path, sizeof c->topo_path, "topo.json", c->topo_json);
    write_file(c->job_path, sizeof c->job_path, "job.json", c->job_json);
    write_file(c->aff_path, sizeof c->aff_path, "affinity.json", c->aff_json);
    write_file(c->flows_path, sizeof c->flows_path, "flows.json", c->flows_json);
    write_file(c->routes_path, sizeof c->routes_path, "routes.json", c->routes_json);
    write_file(c->placement_path, sizeof c->placement_path, "placement.json", c->placement_json);
    write_file(c->dag_path, sizeof c->dag_path, "dag.json", c->dag_json);
    write_file(c->jobset_path, sizeof c->jobset_path, "jobset.json", c->jobset_json);
    write_file(c->slurm_path, sizeof c->slurm_path, "topology.conf", c->slurm_text);
    write_file(c->slurm_yaml_path, sizeof c->slurm_yaml_path, "topology.yaml", c->slurm_yaml_text);
    write_file(c->k8s_path, sizeof c->k8s_path, "nodes.json", c->k8s_text);
    snprintf(c->save_path, sizeof c->save_path, "nt-%ld-saved.json", (long)getpid());
    tsched_trace_options_init(&c->trace_opts);
    c->trace_opts.jobs = 2;
    c->trace_opts.mean_interarrival_s = 1;
    c->trace_opts.sizes = "8:1";
    c->trace_opts.duration_dist = "fixed:1";
    tsched_trace_options_init(&c->trace_set_opts);
    c->trace_mix = trace_mix_doc;
    c->trace_csv = trace_csv_doc;
    c->dcn_names[0] = "job_0-A.txt";
    c->dcn_texts[0] = dcn_job_doc;
    write_file(c->trace_csv_path, sizeof c->trace_csv_path, "pods.csv", trace_csv_doc);
    snprintf(c->dcn_dir, sizeof c->dcn_dir, "nt-%ld-dcn", (long)getpid());
    snprintf(c->dcn_file, sizeof c->dcn_file, "%s/job_0-A.txt", c->dcn_dir);
    FILE *df = mkdir(c->dcn_dir, 0700) == 0 ? fopen(c->dcn_file, "w") : NULL;
    if (!df || fputs(dcn_job_doc, df) < 0 || fclose(df) != 0) {
        printf("fixture: cannot write %s\n", c->dcn_file);
        exit(1);
    }

    /* vclos */
    FIX(tsched_topology_load_string(&c->vc_topo, vc_topo_doc, strlen(vc_topo_doc)));
    c->vclos = vclos_build(c, TSCHED_VCLOS_MODE_VCLOS, 1);
    FIX(tsched_vclos_to_json(&c->vclos_json, c->vclos, -1, 0));
    FIX(tsched_vclos_to_json(&c->vclos_fixture_json, c->vclos, TSCHED_VCLOS_ALLTOALL, 0));
    c->vclos_req_json = xstrdup(vc_req_doc);

    /* simulation: the fixture's sim runs to the end, reporting to nt_sim_cb */
    c->sim_cb = nt_sim_cb;
    c->sim_job = (tsched_sim_job){.size = sizeof(tsched_sim_job), .name = "nj", .gpus = 8, .compute_ns = 1000000,
                                  .iterations = 1};
    c->sim_phase = (tsched_sim_phase){.size = sizeof(tsched_sim_phase), .pattern = -1};
    sim_build(&c->sim, &c->sim_topo, c);
    FIX(tsched_sim_set_callback(c->sim, NT_SIM_EVENTS, c->sim_cb, c));
    FIX(tsched_sim_run_until(c->sim, INT64_MAX));
    FIX(tsched_sim_result_new(&c->sim_result, c->sim));
    tsched_sim_summary sum = {.size = sizeof sum};
    tsched_sim_job_stats js = {.size = sizeof js};
    FIX(tsched_sim_result_summary(&sum, c->sim_result));
    FIX(tsched_sim_result_job(&js, c->sim_result, 0));
    /* arrive, start, the phase's end, finish */
    if (sum.status != TSCHED_SIM_DONE || sum.jobs_done != 1 || tsched_sim_result_job_count(c->sim_result) != 1 ||
        js.iterations_done != 1 || js.finish_ns <= 0 || strcmp(js.name, "j") || c->sim_cb_calls != 4 ||
        tsched_sim_now(c->sim) != sum.end_ns || sum.end_ns <= 0 || !(js.gbits_delivered > 1.99)) {
        printf("fixture: the sim did not run its job to the end (status %d, %u done, %u events, now %lld)\n",
               sum.status, sum.jobs_done, c->sim_cb_calls, (long long)tsched_sim_now(c->sim));
        exit(1);
    }
    c->sim_end = sum.end_ns;
    FIX(tsched_sim_result_to_json(&c->sim_result_json, c->sim_result, TSCHED_SIM_JSON_NO_TIMING));
    c->trace_json = xstrdup(trace_doc);
    c->scenario_json = xstrdup(scenario_doc);
    write_file(c->trace_path, sizeof c->trace_path, "trace.json", c->trace_json);
    write_file(c->scenario_path, sizeof c->scenario_path, "scenario.json", c->scenario_json);
    /* the documents are valid and run: a fresh sim with both runs its two jobs to the end */
    {
        tsched_topology *t = NULL;
        tsched_sim *s = NULL;
        tsched_sim_result *r = NULL;
        sim_build(&s, &t, c);
        FIX(tsched_sim_load_scenario_file(s, c->scenario_path));
        FIX(tsched_sim_load_trace_file(s, c->trace_path));
        FIX(tsched_sim_run_until(s, INT64_MAX));
        FIX(tsched_sim_result_new(&r, s));
        sum = (tsched_sim_summary){.size = sizeof sum};
        FIX(tsched_sim_result_summary(&sum, r));
        if (sum.status != TSCHED_SIM_DONE || sum.jobs != 2 || sum.jobs_done != 2) {
            printf("fixture: the trace and scenario documents do not run (status %d, %u of %u jobs done)\n",
                   sum.status, sum.jobs_done, sum.jobs);
            exit(1);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }

    cell_fixture(c);

    /* Every call with NULL in an optional parameter must succeed with the other arguments:
     * check once that the documents load, so a failure there points at the fixture. */
    tsched_topology *t;
    FIX(tsched_topology_load_file(&t, c->topo_path));
    tsched_topology_free(t);
}

/* Whether the fixture is still what fixture_new() made: no call may change it. */
static void fixture_check(struct nt_ctx *c)
{
    char *s = NULL;
    FIX(tsched_topology_to_json(&s, c->topo));
    tsched_topology *t = NULL;
    FIX(tsched_topology_load_string(&t, c->topo_json, strlen(c->topo_json)));
    char *want = NULL;
    FIX(tsched_topology_to_json(&want, t));
    if (strcmp(s, want))
        fail("the fixture fabric was changed by a call");
    tsched_free(s);
    tsched_free(want);
    tsched_topology_free(t);
    struct {
        const char *what;
        char *now;
        const char *then;
    } docs[] = {{"job", NULL, c->job_json}, {"flows", NULL, c->flows_json}, {"placement", NULL, c->placement_json},
                {"affinity database", NULL, c->aff_json}};
    FIX(tsched_job_to_json(&docs[0].now, c->job));
    FIX(tsched_flows_to_json(&docs[1].now, c->flows, c->topo));
    FIX(tsched_placement_to_json(&docs[2].now, c->placement, c->topo, "j", 0));
    FIX(tsched_affinity_to_json(&docs[3].now, c->aff));
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (strcmp(docs[i].now, docs[i].then))
            fail("the fixture %s was changed by a call", docs[i].what);
        tsched_free(docs[i].now);
    }
    if (tsched_dag_edges(c->dag) != 2 || tsched_jobset_count(c->jobset) != 2 ||
        tsched_routes_count(c->routes) != 2)
        fail("the fixture DAG, job set or routes were changed by a call");
    char *vclos_json = NULL;
    FIX(tsched_vclos_to_json(&vclos_json, c->vclos, TSCHED_VCLOS_ALLTOALL, 0));
    if (strcmp(vclos_json, c->vclos_fixture_json))
        fail("the fixture vclos handle was changed by a call");
    tsched_free(vclos_json);
    char *sim_json = NULL;
    FIX(tsched_sim_result_to_json(&sim_json, c->sim_result, TSCHED_SIM_JSON_NO_TIMING));
    if (strcmp(sim_json, c->sim_result_json))
        fail("the fixture sim result was changed by a call");
    tsched_free(sim_json);
    tsched_sim_result *now = NULL;
    FIX(tsched_sim_result_new(&now, c->sim));
    FIX(tsched_sim_result_to_json(&sim_json, now, TSCHED_SIM_JSON_NO_TIMING));
    if (strcmp(sim_json, c->sim_result_json) || tsched_sim_now(c->sim) != c->sim_end || c->sim_cb_calls != 4)
        fail("the fixture sim was changed by a call");
    tsched_free(sim_json);
    tsched_sim_result_free(now);
    cell_fixture_check(c);
}

static void fixture_free(struct nt_ctx *c)
{
    tsched_topology_free(c->topo);
    tsched_job_free(c->job);
    tsched_job_free(c->job_auto);
    tsched_placement_free(c->placement);
    tsched_flows_free(c->flows);
    tsched_routes_free(c->routes);
    tsched_jobset_free(c->jobset);
    tsched_priorities_free(c->prio);
    tsched_dag_free(c->dag);
    tsched_affinity_free(c->aff);
    tsched_reservation_free(c->resv);
    tsched_sim_result_free(c->sim_result);
    tsched_sim_free(c->sim);
    tsched_topology_free(c->sim_topo);
    tsched_free(c->sim_result_json);
    tsched_vclos_free(c->vclos);
    tsched_crius_free(c->crius);
    tsched_cell_free(c->cell);
    tsched_op_profile_free(c->profile);
    tsched_gpu_catalog_free(c->cat);
    tsched_topology_free(c->cell_topo);
    tsched_job_free(c->cell_job);
    tsched_free(c->cat_json);
    free(c->profile_json);
    free(c->queue_json);
    tsched_free(c->cell_json);
    tsched_free(c->crius_json);
    tsched_free(c->cell_topo_json);
    tsched_free(c->cell_job_json);
    tsched_topology_free(c->vc_topo);
    tsched_free(c->vclos_json);
    tsched_free(c->vclos_fixture_json);
    free(c->vclos_req_json);
    free(c->trace_json);
    free(c->scenario_json);
    tsched_free(c->job_json);
    tsched_free(c->aff_json);
    tsched_free(c->flows_json);
    tsched_free(c->routes_json);
    tsched_free(c->placement_json);
    free(c->topo_json);
    free(c->dag_json);
    free(c->jobset_json);
    free(c->slurm_text);
    free(c->slurm_yaml_text);
    free(c->k8s_text);
    const char *paths[] = {c->topo_path,  c->job_path,    c->aff_path,   c->flows_path, c->placement_path,
                           c->dag_path,   c->jobset_path, c->slurm_path, c->slurm_yaml_path, c->k8s_path, c->save_path, c->trace_path,
                           c->scenario_path, c->cat_path, c->profile_path, c->queue_path, c->routes_path};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        remove(paths[i]);
    remove(c->trace_csv_path);
    remove(c->dcn_file);
    remove(c->dcn_dir);
}

/* ---- fresh objects of one call -------------------------------------------------------------- */

static void scratch_free(struct nt_ctx *c)
{
    /* sims before the fabrics they run on (o_sim is on s_topo) */
    tsched_sim_free(c->s_sim);
    tsched_sim_free(c->o_sim);
    tsched_topology_free(c->s_sim_topo);
    tsched_sim_result_free(c->o_sim_result);
    tsched_topology_free(c->s_topo);
    tsched_job_free(c->s_job);
    tsched_flows_free(c->s_flows);
    tsched_dag_free(c->s_dag);
    tsched_router_free(c->s_router);
    tsched_placement_free(c->s_placement);
    tsched_routes_free(c->s_routes);
    tsched_jobset_free(c->s_jobset);
    tsched_priorities_free(c->s_prio);
    tsched_affinity_free(c->s_aff);
    tsched_reservation_free(c->s_resv);
    tsched_free(c->s_mem);
    tsched_topology_free(c->o_topo);
    tsched_job_free(c->o_job);
    tsched_placement_free(c->o_placement);
    tsched_flows_free(c->o_flows);
    tsched_routes_free(c->o_routes);
    tsched_router_free(c->o_router);
    tsched_jobset_free(c->o_jobset);
    tsched_priorities_free(c->o_prio);
    tsched_dag_free(c->o_dag);
    tsched_affinity_free(c->o_aff);
    tsched_reservation_free(c->o_resv);
    tsched_vclos_free(c->s_vclos);
    tsched_vclos_free(c->o_vclos);
    tsched_crius_free(c->s_crius);
    tsched_crius_free(c->o_crius);
    tsched_service_free(c->s_service);
    tsched_service_free(c->o_service);
    tsched_cell_free(c->s_cell);
    tsched_cell_free(c->o_cell);
    tsched_op_profile_free(c->s_profile);
    tsched_op_profile_free(c->o_profile);
    tsched_gpu_catalog_free(c->s_cat);
    tsched_gpu_catalog_free(c->o_cat);
    tsched_free(c->o_strs);
    tsched_free(c->o_str);
    /* everything from s_topo on is per call */
    memset(&c->s_topo, 0, sizeof *c - offsetof(struct nt_ctx, s_topo));
}

tsched_topology *nt_fresh_topo(struct nt_ctx *c)
{
    tsched_topology_free(c->s_topo);
    FIX(tsched_topology_load_string(&c->s_topo, c->topo_json, strlen(c->topo_json)));
    return c->s_topo;
}

tsched_topology *nt_fresh_unbuilt(struct nt_ctx *c)
{
    tsched_topology_free(c->s_topo);
    FIX(tsched_topology_new(&c->s_topo, "u"));
    FIX(tsched_topology_add_switch(NULL, c->s_topo, "leaf0", TSCHED_TIER_LEAF, NULL));
    FIX(tsched_topology_add_switch(NULL, c->s_topo, "spine0", TSCHED_TIER_SPINE, NULL));
    FIX(tsched_topology_add_node(NULL, c->s_topo, "n0", "leaf0", 8, 1, NULL, 100.0));
    FIX(tsched_topology_add_link(c->s_topo, "leaf0", "spine0", 100.0, 1));
    return c->s_topo;
}

tsched_job *nt_fresh_job(struct nt_ctx *c)
{
    tsched_job_free(c->s_job);
    FIX(tsched_job_load_string(&c->s_job, c->job_json, strlen(c->job_json)));
    return c->s_job;
}

tsched_flows *nt_fresh_flows(struct nt_ctx *c)
{
    tsched_flows_free(c->s_flows);
    FIX(tsched_flows_load_string(&c->s_flows, c->topo, c->flows_json, strlen(c->flows_json)));
    return c->s_flows;
}

tsched_dag *nt_fresh_dag(struct nt_ctx *c)
{
    tsched_dag_free(c->s_dag);
    FIX(tsched_dag_load_string(&c->s_dag, c->dag_json, strlen(c->dag_json)));
    return c->s_dag;
}

tsched_router *nt_fresh_router(struct nt_ctx *c)
{
    tsched_router_free(c->s_router);
    FIX(tsched_router_new(&c->s_router, c->topo));
    return c->s_router;
}

tsched_placement *nt_fresh_placement(struct nt_ctx *c)
{
    tsched_placement_free(c->s_placement);
    FIX(tsched_placement_load_string(&c->s_placement, c->topo, c->placement_json, strlen(c->placement_json)));
    return c->s_placement;
}

tsched_routes *nt_fresh_routes(struct nt_ctx *c)
{
    tsched_routes_free(c->s_routes);
    FIX(tsched_route(&c->s_routes, c->topo, c->flows, &c->route_opts));
    return c->s_routes;
}

tsched_jobset *nt_fresh_jobset(struct nt_ctx *c)
{
    tsched_jobset_free(c->s_jobset);
    FIX(tsched_jobset_load_string(&c->s_jobset, c->topo, c->jobset_json, strlen(c->jobset_json)));
    return c->s_jobset;
}

tsched_priorities *nt_fresh_prio(struct nt_ctx *c)
{
    tsched_priorities_free(c->s_prio);
    FIX(tsched_prioritize(&c->s_prio, c->topo, c->jobset, &c->prio_opts));
    return c->s_prio;
}

tsched_affinity *nt_fresh_aff(struct nt_ctx *c)
{
    tsched_affinity_free(c->s_aff);
    FIX(tsched_affinity_default(&c->s_aff));
    return c->s_aff;
}

tsched_reservation *nt_fresh_resv(struct nt_ctx *c)
{
    tsched_reservation_free(c->s_resv);
    FIX(tsched_reservation_new(&c->s_resv, c->placement, 100.0));
    return c->s_resv;
}

void *nt_fresh_mem(struct nt_ctx *c)
{
    tsched_free(c->s_mem);
    char *s = NULL;
    FIX(tsched_job_to_json(&s, c->job));
    c->s_mem = s;
    return c->s_mem;
}

tsched_vclos *nt_fresh_vclos(struct nt_ctx *c)
{
    tsched_vclos_free(c->s_vclos);
    return c->s_vclos = vclos_build(c, TSCHED_VCLOS_MODE_VCLOS, 1);
}

tsched_vclos *nt_fresh_vclos_free(struct nt_ctx *c)
{
    tsched_vclos_free(c->s_vclos);
    return c->s_vclos = vclos_build(c, TSCHED_VCLOS_MODE_FREE, 1);
}

tsched_vclos *nt_fresh_vclos_empty(struct nt_ctx *c)
{
    tsched_vclos_free(c->s_vclos);
    return c->s_vclos = vclos_build(c, TSCHED_VCLOS_MODE_VCLOS, 0);
}

/* ---- cell: fresh copies of the fixture's objects ---- */
tsched_gpu_catalog *nt_fresh_cat(struct nt_ctx *c)
{
    tsched_gpu_catalog_free(c->s_cat);
    c->s_cat = NULL;
    FIX(tsched_gpu_catalog_load_string(&c->s_cat, c->cat_json, strlen(c->cat_json)));
    return c->s_cat;
}

tsched_op_profile *nt_fresh_profile(struct nt_ctx *c)
{
    tsched_op_profile_free(c->s_profile);
    c->s_profile = NULL;
    FIX(tsched_op_profile_load_string(&c->s_profile, c->profile_json, strlen(c->profile_json)));
    return c->s_profile;
}

tsched_cell *nt_fresh_cell(struct nt_ctx *c)
{
    tsched_cell_free(c->s_cell);
    c->s_cell = NULL;
    FIX(tsched_cell_estimate(&c->s_cell, c->cell_topo, "A100/4", c->cat, c->cell_job, c->profile, 4, 2,
                             TSCHED_PLANS_ASSEMBLED));
    return c->s_cell;
}

tsched_crius *nt_fresh_crius(struct nt_ctx *c)
{
    tsched_crius_free(c->s_crius);
    return c->s_crius = cell_crius_build(c);
}

tsched_service *nt_fresh_service(struct nt_ctx *c)
{
    static const char head[] = "{\"op\": \"load-topology\", \"name\": \"x\", \"topology\": ";
    tsched_service_free(c->s_service);
    c->s_service = NULL;
    FIX(tsched_service_new(&c->s_service));
    size_t n = strlen(c->topo_json);
    char *text = malloc(sizeof head + n + 1), *answer = NULL;
    if (!text)
        FIX(TSCHED_E_NOMEM);
    memcpy(text, head, sizeof head - 1);
    memcpy(text + sizeof head - 1, c->topo_json, n);
    memcpy(text + sizeof head - 1 + n, "}", 2);
    FIX(tsched_service_handle(&answer, NULL, c->s_service, text, strlen(text)));
    if (!strstr(answer, "\"ok\":true")) {
        fprintf(stderr, "service fixture: %s\n", answer);
        abort();
    }
    free(text);
    tsched_free(answer);
    return c->s_service;
}

tsched_gpu_info *nt_gpu_info(struct nt_ctx *c)
{
    c->o_gpu_info.size = sizeof c->o_gpu_info;
    return &c->o_gpu_info;
}

tsched_vclos_jobinfo *nt_vclos_jobinfo(struct nt_ctx *c)
{
    memset(&c->o_vclos_jobinfo, 0, sizeof c->o_vclos_jobinfo);
    c->o_vclos_jobinfo.size = sizeof c->o_vclos_jobinfo;
    return &c->o_vclos_jobinfo;
}

tsched_sim *nt_fresh_sim(struct nt_ctx *c)
{
    tsched_sim_free(c->s_sim);
    tsched_topology_free(c->s_sim_topo);
    c->s_sim = NULL;
    c->s_sim_topo = NULL;
    sim_build(&c->s_sim, &c->s_sim_topo, c);
    return c->s_sim;
}

uint32_t *nt_u32(struct nt_ctx *c) { return c->o_u32; }
uint64_t *nt_u64(struct nt_ctx *c) { return c->o_u64; }
size_t *nt_size(struct nt_ctx *c) { return c->o_size; }
double *nt_dbl(struct nt_ctx *c) { return c->o_dbl; }

FILE *nt_file(struct nt_ctx *c)
{
    static FILE *f; /* opened once, still reachable at exit */
    (void)c;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

tsched_path *nt_paths(struct nt_ctx *c)
{
    for (size_t i = 0; i < NT_BUF; i++)
        c->o_paths[i].size = sizeof c->o_paths[i];
    return c->o_paths;
}

tsched_volumes *nt_volumes(struct nt_ctx *c)
{
    c->o_volumes.size = sizeof c->o_volumes;
    return &c->o_volumes;
}

tsched_spread *nt_spread(struct nt_ctx *c)
{
    c->o_spread.size = sizeof c->o_spread;
    return &c->o_spread;
}

tsched_model *nt_model_out(struct nt_ctx *c)
{
    c->o_model.size = sizeof c->o_model;
    return &c->o_model;
}

tsched_limits *nt_limits_out(struct nt_ctx *c)
{
    c->o_limits.size = sizeof c->o_limits;
    return &c->o_limits;
}

tsched_sim_job_stats *nt_sim_job_stats(struct nt_ctx *c)
{
    c->o_sim_job_stats.size = sizeof c->o_sim_job_stats;
    return &c->o_sim_job_stats;
}

tsched_sim_summary *nt_sim_summary(struct nt_ctx *c)
{
    c->o_sim_summary.size = sizeof c->o_sim_summary;
    return &c->o_sim_summary;
}

/* ---- one call ---------------------------------------------------------------------------------- */

static void check_getter(const struct nt_entry *e, const struct nt_result *r)
{
    if (e->kind == NT_NUM) {
        double want = 0;
        for (size_t i = 0; i < sizeof empty_num / sizeof empty_num[0]; i++)
            if (!strcmp(empty_num[i].func, e->func))
                want = empty_num[i].value;
        if (isnan(want) ? !isnan(r->num) : r->num != want)
            fail("%s(%s = NULL) returned %g, expected its empty value %g", e->func, e->param, r->num, want);
    } else if (e->kind == NT_STR) {
        const char *want = NULL;
        for (size_t i = 0; i < sizeof empty_str / sizeof empty_str[0]; i++)
            if (!strcmp(empty_str[i].func, e->func))
                want = empty_str[i].value;
        if (want ? !r->str || strcmp(r->str, want) : r->str != NULL)
            fail("%s(%s = NULL) returned \"%s\", expected %s%s%s", e->func, e->param, r->str ? r->str : "(null)",
                 want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
    } else if (e->kind == NT_PTR && r->ptr != NULL) {
        fail("%s(%s = NULL) returned a pointer, expected NULL", e->func, e->param);
    }
}

static void check_status(const struct nt_entry *e, const struct nt_result *r)
{
    const char *msg = tsched_last_error();
    if (!*e->param) {
        if (r->status != TSCHED_OK)
            fail("%s with valid arguments returned %s: %s", e->func, tsched_status_str(r->status), msg);
        return;
    }
    if (is_optional(e)) {
        if (r->status != TSCHED_OK)
            fail("%s(%s = NULL): the parameter is optional, but the call returned %s: %s", e->func, e->param,
                 tsched_status_str(r->status), msg);
        return;
    }
    if (r->status != TSCHED_E_INVALID) {
        fail("%s(%s = NULL) returned %s, expected TSCHED_E_INVALID: %s", e->func, e->param,
             tsched_status_str(r->status), msg);
        return;
    }
    if (tsched_last_status() != TSCHED_E_INVALID)
        fail("%s(%s = NULL): tsched_last_status() is %s", e->func, e->param, tsched_status_str(tsched_last_status()));
    if (!msg || !*msg)
        fail("%s(%s = NULL): empty error message", e->func, e->param);
    else if (strchr(msg, '\n'))
        fail("%s(%s = NULL): the error message has a newline: %s", e->func, e->param, msg);
    else if (!names_param(msg, e->param))
        fail("%s(%s = NULL): the error message does not name the parameter: %s", e->func, e->param, msg);
}

static void run_one(struct nt_ctx *c, const struct nt_entry *e)
{
    struct nt_result r = {.status = TSCHED_OK, .str = NULL, .ptr = NULL, .num = -12345.0};
    int before = failures;
    tsched_clear_error();
    e->call(c, &r);
    if (e->kind == NT_STATUS)
        check_status(e, &r);
    else if (e->kind != NT_VOID)
        check_getter(e, &r);
    scratch_free(c);
    if (failures == before)
        passes++;
}

/* Run one call in a child process, so that a crash is reported and the others still run. */
static void run_forked(struct nt_ctx *c, const struct nt_entry *e)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("fork failed\n");
        exit(1);
    }
    if (pid == 0) {
        failures = 0;
        run_one(c, e);
        fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int ws;
    if (waitpid(pid, &ws, 0) != pid)
        exit(1);
    if (WIFSIGNALED(ws))
        fail("%s(%s = NULL) crashed with signal %d", e->func, e->param, WTERMSIG(ws));
    else if (WEXITSTATUS(ws) != 0)
        failures++;
    else
        passes++;
}

/* ---- NULL where the documentation allows it for some other argument -------------------------- */

#define EXPECT(cond, ...)                                                                                            \
    do {                                                                                                             \
        if (cond)                                                                                                    \
            passes++;                                                                                                \
        else                                                                                                         \
            fail(__VA_ARGS__);                                                                                       \
    } while (0)

static void check_conditional(struct nt_ctx *c)
{
    /* "`paths` may be NULL when `cap` is 0": the count is still reported. */
    uint64_t want = 0;
    FIX(tsched_topology_path_count(&want, c->topo, 0, 0, 2, 0));
    size_t count = 0;
    tsched_status st = tsched_topology_paths(NULL, 0, &count, c->topo, 0, 0, 2, 0);
    EXPECT((st == TSCHED_E_BUFFER || st == TSCHED_OK) && count == want && want > 0,
           "tsched_topology_paths(NULL, 0, ...) returned %s with count %zu (%llu paths)", tsched_status_str(st), count,
           (unsigned long long)want);
    count = 0;
    st = tsched_topology_leaf_paths(NULL, 0, &count, c->topo, 0, 1);
    EXPECT((st == TSCHED_E_BUFFER || st == TSCHED_OK) && count > 0,
           "tsched_topology_leaf_paths(NULL, 0, ...) returned %s with count %zu", tsched_status_str(st), count);
    /* "with n = 0 `levels` may be NULL" (doc/priority.md) */
    tsched_dag *empty = NULL;
    FIX(tsched_dag_new(&empty, 0));
    st = tsched_dag_compress(NULL, NULL, empty, NULL);
    EXPECT(st == TSCHED_OK, "tsched_dag_compress(NULL, NULL, <0 nodes>, NULL) returned %s: %s", tsched_status_str(st),
           tsched_last_error());
    tsched_dag_free(empty);
    /* tsched_rates_maxmin: `paths` is one per flow, so none for no flows */
    tsched_flows *none = NULL;
    FIX(tsched_flows_new(&none));
    double rate;
    st = tsched_rates_maxmin(&rate, c->topo, none, NULL);
    EXPECT(st == TSCHED_OK, "tsched_rates_maxmin(<no flows>, paths = NULL) returned %s: %s", tsched_status_str(st),
           tsched_last_error());
    tsched_flows_free(none);
}

/* ---- coverage of the version script -------------------------------------------------------------- */

static int in_table(const char *func)
{
    for (size_t i = 0; i < nt_nentries; i++)
        if (!strcmp(nt_entries[i].func, func))
            return 1;
    return 0;
}

/* Every exported function of the map has a row, and every row's function is exported. */
static void check_coverage(const char *map_path)
{
    FILE *f = fopen(map_path, "r");
    if (!f) {
        fail("cannot open the version script %s", map_path);
        return;
    }
    static char names[1024][96];
    size_t n = 0;
    char line[512];
    int global = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (!strncmp(p, "global:", 7)) {
            global = 1;
            continue;
        }
        if (!strncmp(p, "local:", 6)) {
            global = 0;
            continue;
        }
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (!global || len == 0 || p[len] != ';' || strncmp(p, "tsched_", 7))
            continue;
        if (n == sizeof names / sizeof names[0] || len >= sizeof names[0]) {
            fail("version script too large for the test");
            break;
        }
        memcpy(names[n], p, len);
        names[n][len] = '\0';
        n++;
    }
    fclose(f);
    if (n < 100)
        fail("only %zu exported functions read from %s", n, map_path);
    for (size_t i = 0; i < n; i++) {
        if (!in_table(names[i]))
            fail("%s is exported by the version script but has no row in the NULL-argument table", names[i]);
        else
            passes++;
    }
    for (size_t i = 0; i < nt_nentries; i++) {
        size_t j = 0;
        while (j < n && strcmp(names[j], nt_entries[i].func))
            j++;
        if (j == n)
            fail("%s has a row in the NULL-argument table but is not in the version script", nt_entries[i].func);
    }
    printf("%zu exported functions, %zu table rows\n", n, nt_nentries);
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAP_FILE [--fork] [FUNCTION...]\n", argv[0]);
        return 2;
    }
    int forked = 0, nonly = 0;
    char **only = calloc((size_t)argc, sizeof *only);
    if (!only)
        return 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--fork"))
            forked = 1;
        else
            only[nonly++] = argv[i];
    }
    check_coverage(argv[1]);

    static struct nt_ctx ctx;
    fixture_new(&ctx);
    size_t calls = 0, valid = 0;
    for (size_t i = 0; i < nt_nentries; i++) {
        const struct nt_entry *e = &nt_entries[i];
        if (!e->call)
            continue;
        int k = nonly == 0;
        for (int j = 0; j < nonly && !k; j++)
            k = !strcmp(only[j], e->func);
        if (!k)
            continue;
        if (*e->param)
            calls++;
        else
            valid++;
        if (forked)
            run_forked(&ctx, e);
        else
            run_one(&ctx, e);
    }
    if (nonly == 0)
        check_conditional(&ctx);
    fixture_check(&ctx);
    fixture_free(&ctx);
    free(only);
    printf("%zu calls with a NULL argument, %zu with valid arguments only\n", calls, valid);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
