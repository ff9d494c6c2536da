/* tsched.jobset.v1: the jobs CRUX prioritises, each with its per-iteration work, compute
 * time, overlap and the flows of one iteration (DESIGN 5.6). */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../topology/topology_internal.h"
#include "../common/strtab.h"
#include "crux_internal.h"

#define JOBSET_FORMAT "tsched.jobset.v1"
/* Flow and job indices stay well inside 32 bits (twice a count still fits). */
#define JOBSET_MAX ((UINT32_C(1) << 31) - 1)

/* Accepted ranges (doc/priority.md, "Accepted ranges"): wide enough for any real job, narrow
 * enough that intensities (work over seconds of transfer) and the two-job model's inputs
 * stay far from overflow and underflow. */
#define WORK_MIN 1e-6 /* TFLOP per iteration */
#define WORK_MAX 1e12
#define COMPUTE_MIN 1e-6 /* ms per iteration: 1 ns */
#define COMPUTE_MAX 1e9  /* about 11.6 days */
#define GBITS_MIN 1e-6   /* gigabits of one flow per iteration: 1 kbit */
#define GBITS_MAX 1e12

void tsched_jobset_free(tsched_jobset *js)
{
    if (!js)
        return;
    if (js->name)
        for (uint32_t i = 0; i < js->n; i++)
            free(js->name[i]);
    free(js->name);
    free(js->gpus);
    free(js->work_tflop);
    free(js->compute_ms);
    free(js->overlap);
    free(js->flow_off);
    free(js->src);
    free(js->dst);
    free(js->src_nic);
    free(js->dst_nic);
    free(js->gbits);
    free(js);
}

uint32_t tsched_jobset_count(const tsched_jobset *js) { return js ? js->n : 0; }

const char *tsched_jobset_name(const tsched_jobset *js, uint32_t i) { return js && i < js->n ? js->name[i] : NULL; }

static tsched_status alloc_set(tsched_jobset *js, size_t n, size_t nflows)
{
    size_t nj = n ? n : 1, nf = nflows ? nflows : 1;
    if (!(js->name = ts_calloc(nj, sizeof *js->name)) || !(js->gpus = ts_malloc(nj, sizeof *js->gpus)) ||
        !(js->work_tflop = ts_malloc(nj, sizeof *js->work_tflop)) ||
        !(js->compute_ms = ts_malloc(nj, sizeof *js->compute_ms)) ||
        !(js->overlap = ts_malloc(nj, sizeof *js->overlap)) ||
        !(js->flow_off = ts_calloc(nj + 1, sizeof *js->flow_off)) || !(js->src = ts_malloc(nf, sizeof *js->src)) ||
        !(js->dst = ts_malloc(nf, sizeof *js->dst)) || !(js->src_nic = ts_malloc(nf, sizeof *js->src_nic)) ||
        !(js->dst_nic = ts_malloc(nf, sizeof *js->dst_nic)) || !(js->gbits = ts_malloc(nf, sizeof *js->gbits)))
        return TSCHED_E_NOMEM;
    return TSCHED_OK;
}

static tsched_status read_flows(tsched_jobset *js, const json_t *arr, const char *jwhere, const tsched_topology *t)
{
    char where[96];
    tsched_status st;
    for (size_t k = 0; k < json_array_size(arr); k++) {
        const json_t *o = json_array_get(arr, k);
        snprintf(where, sizeof where, "%s.flows[%zu]", jwhere, k);
        if (!json_is_object(o))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
        uint32_t src, dst, src_nic, dst_nic;
        double gbits = 0;
        if ((st = ts_json_node_nic(&src, &src_nic, o, where, "src", "src_nic", t)) ||
            (st = ts_json_node_nic(&dst, &dst_nic, o, where, "dst", "dst_nic", t)) ||
            (st = ts_json_num(&gbits, o, where, "gbits", 1, GBITS_MIN, 0, GBITS_MAX)))
            return st;
        if (src == dst && src_nic == dst_nic)
            return ts_error(TSCHED_E_INVALID, "%s.dst: same node and NIC as src (node \"%s\" NIC %u)", where,
                            tsched_topology_node_name(t, src), src_nic);
        uint32_t f = js->nflows++;
        js->src[f] = src;
        js->dst[f] = dst;
        js->src_nic[f] = src_nic;
        js->dst_nic[f] = dst_nic;
        js->gbits[f] = gbits;
    }
    return TSCHED_OK;
}

static tsched_status read_doc(tsched_jobset *js, const tsched_topology *t, const json_t *root)
{
    tsched_status st;
    const json_t *jobs;
    if ((st = ts_json_check_format(root, JOBSET_FORMAT)) || (st = ts_json_arr(&jobs, root, "", "jobs", 1)))
        return st;
    size_t n = json_array_size(jobs), nflows = 0;
    if (n > JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "jobs: %zu jobs, at most %u", n, (unsigned)JOBSET_MAX);
    /* the jobs are the contention DAG's nodes */
    if ((st = ts_limit_check("jobs: job count", n, "dag_nodes", ts_limits()->dag_nodes)) != TSCHED_OK)
        return st;
    /* size the arrays first; malformed entries are reported in the main pass */
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_object_get(json_array_get(jobs, i), "flows");
        nflows += json_is_array(f) ? json_array_size(f) : 0;
    }
    if (nflows > JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "jobs: %zu flows in all, at most %u", nflows, (unsigned)JOBSET_MAX);
    if ((st = ts_limit_check("jobs: flows in all", nflows, "flows", ts_limits()->flows)) != TSCHED_OK)
        return st;
    if ((st = alloc_set(js, n, nflows)) != TSCHED_OK)
        return st;
    ts_strtab names;
    ts_strtab_init(&names);
    char where[40];
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        const json_t *o = json_array_get(jobs, i);
        snprintf(where, sizeof where, "jobs[%zu]", i);
        if (!json_is_object(o)) {
            st = ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
            break;
        }
        const char *name;
        const json_t *flows;
        uint32_t id;
        int added;
        double overlap = 0;
        if ((st = ts_json_str(&name, o, where, "name", 1)) != TSCHED_OK)
            break;
        {
            char nwhere[48];
            snprintf(nwhere, sizeof nwhere, "%s.name", where);
            if ((st = ts_name_check(name, nwhere)) != TSCHED_OK)
                break;
        }
        if ((st = ts_strtab_intern(&names, name, &id, &added)) != TSCHED_OK)
            break;
        if (!added) {
            st = ts_error(TSCHED_E_DUPLICATE, "%s.name: duplicate job name \"%s\" (also jobs[%u])", where, name, id);
            break;
        }
        if ((st = ts_json_u32(&js->gpus[i], o, where, "gpus", 1, 1, UINT32_MAX)) ||
            (st = ts_json_num(&js->work_tflop[i], o, where, "work_tflop", 1, WORK_MIN, 0, WORK_MAX)) ||
            (st = ts_json_num(&js->compute_ms[i], o, where, "compute_ms", 1, COMPUTE_MIN, 0, COMPUTE_MAX)) ||
            (st = ts_json_num(&overlap, o, where, "overlap", 0, 0, 0, 1)) ||
            (st = ts_json_arr(&flows, o, where, "flows", 0)))
            break;
        js->overlap[i] = overlap;
        if (!flows || json_array_size(flows) == 0) {
            st = ts_error(TSCHED_E_INVALID, "%s.flows: job \"%s\" has no flows (a job without traffic cannot be "
                                            "prioritised)", where, name);
            break;
        }
        if (!(js->name[i] = ts_strdup(name))) {
            st = TSCHED_E_NOMEM;
            break;
        }
        js->n = (uint32_t)i + 1;
        if ((st = read_flows(js, flows, where, t)) != TSCHED_OK)
            break;
        js->flow_off[i + 1] = js->nflows;
    }
    ts_strtab_free(&names);
    if (st == TSCHED_OK) {
        js->topo_id = tsched_topology_id(t);
        js->topo_gen = tsched_topology_generation(t);
    }
    return st;
}

/* The loaders' reader: the object is made here so a failed read frees it. */
static tsched_status read_into(void *slot, const void *ctx, const json_t *root)
{
    const tsched_topology *topo = ctx;
    tsched_jobset *obj = ts_calloc(1, sizeof *obj);
    if (!obj)
        return TSCHED_E_NOMEM;
    tsched_status st = read_doc(obj, topo, root);
    if (st != TSCHED_OK) {
        tsched_jobset_free(obj);
        return st;
    }
    *(tsched_jobset **)slot = obj;
    return TSCHED_OK;
}

tsched_status tsched_jobset_load_string(tsched_jobset **out, const tsched_topology *topo, const char *json, size_t len)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_load_string: topology is NULL");
    return ts_json_load_string(out, read_into, topo, json, len, "tsched_jobset_load_string");
}

tsched_status tsched_jobset_load_file(tsched_jobset **out, const tsched_topology *topo, const char *path)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_load_file: topology is NULL");
    return ts_json_load_file(out, read_into, topo, path, "tsched_jobset_load_file");
}
