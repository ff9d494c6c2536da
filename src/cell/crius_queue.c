/* The tsched.crius-queue.v1 reader (doc/cell.md §7.4). Jobs are added one by one through the
 * same checks as tsched_crius_add_job / _set_running; on any error the jobs added so far are
 * dropped again, so a failed load adds nothing. Errors name the field
 * (`jobs[3].running.nodes[0].node: no node "x9"`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/names.h"
#include "crius_internal.h"

#define QUEUE_FORMAT "tsched.crius-queue.v1"

/* Re-issue the last error as "<where>.<message>" (the internal messages start with the field). */
static tsched_status field_prefix(tsched_status st, const char *where)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", tsched_last_error());
    return ts_error(st, "%s.%s", where, msg);
}

typedef struct queue_slot {
    void *unused; /* ts_json_load_string() stores NULL here */
    tsched_crius *cr;
} queue_slot;

static tsched_status read_model(tsched_model *m, const json_t *job, const char *where)
{
    char w[64];
    const json_t *mo;
    tsched_status st = ts_json_obj(&mo, job, where, "model", 1);
    if (st != TSCHED_OK)
        return st;
    snprintf(w, sizeof w, "%s.model", where);
    tsched_model_init(m);
    m->micro_batch = 1;
    m->vpp = 1;
    m->moe_experts = 0;
    if ((st = ts_json_u32(&m->hidden, mo, w, "hidden", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&m->layers, mo, w, "layers", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&m->vocab, mo, w, "vocab", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&m->seq, mo, w, "seq", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&m->global_batch, mo, w, "global_batch", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&m->moe_experts, mo, w, "moe_experts", 0, 0, UINT32_MAX)))
        return st;
    if (m->moe_experts > 0)
        return ts_error(TSCHED_E_RANGE, "%s.moe_experts: MoE is not in the cell cost model; supply an op profile", w);
    return TSCHED_OK;
}

static tsched_status read_running(tsched_crius *cr, uint32_t index, const json_t *run, const char *where)
{
    const char *pool;
    uint32_t gpus = 0, stages = 0;
    const json_t *arr;
    tsched_status st;
    if ((st = ts_json_str(&pool, run, where, "pool", 1)) || (st = ts_json_u32(&gpus, run, where, "gpus", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&stages, run, where, "stages", 1, 1, UINT32_MAX)) ||
        (st = ts_json_arr(&arr, run, where, "nodes", 1)))
        return st;
    size_t n = json_array_size(arr);
    if (n == 0)
        return ts_error(TSCHED_E_RANGE, "%s.nodes: empty", where);
    if (n > cr->nnodes)
        return ts_error(TSCHED_E_RANGE, "%s.nodes: %zu entries, the fabric has %u nodes", where, n, cr->nnodes);
    uint32_t *nodes = ts_malloc(n, sizeof *nodes), *ng = ts_malloc(n, sizeof *ng);
    if (!nodes || !ng) {
        free(nodes);
        free(ng);
        return TSCHED_E_NOMEM;
    }
    char w[96];
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        const json_t *e = json_array_get(arr, i);
        snprintf(w, sizeof w, "%s.nodes[%zu]", where, i);
        if (!json_is_object(e)) {
            st = ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", w, ts_json_type_name(e));
            break;
        }
        const char *name;
        if ((st = ts_json_str(&name, e, w, "node", 1)) || (st = ts_json_u32(&ng[i], e, w, "gpus", 1, 1, UINT32_MAX)))
            break;
        nodes[i] = ts_strtab_find(&cr->node_tab, name);
        if (nodes[i] == UINT32_MAX)
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.node: no node \"%s\"", w, name);
    }
    if (st == TSCHED_OK) {
        st = cr_set_running(cr, index, pool, gpus, stages, nodes, ng, (uint32_t)n);
        if (st != TSCHED_OK)
            st = field_prefix(st, where);
    }
    free(nodes);
    free(ng);
    return st;
}

static tsched_status read_jobs(tsched_crius *cr, const json_t *root)
{
    tsched_status st = ts_json_check_format(root, QUEUE_FORMAT);
    const json_t *jobs;
    if (st != TSCHED_OK || (st = ts_json_arr(&jobs, root, "", "jobs", 1)) != TSCHED_OK)
        return st;
    char where[48];
    for (size_t i = 0; i < json_array_size(jobs); i++) {
        const json_t *job = json_array_get(jobs, i);
        snprintf(where, sizeof where, "jobs[%zu]", i);
        if (!json_is_object(job))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(job));
        const char *name;
        uint32_t gpus = 0;
        double submit = 0;
        tsched_model m;
        char w[64];
        snprintf(w, sizeof w, "%s.name", where);
        if ((st = ts_json_str(&name, job, where, "name", 1)) || (st = ts_name_check(name, w)) ||
            (st = ts_json_u32(&gpus, job, where, "gpus", 1, 1, UINT32_MAX)) ||
            (st = ts_json_num(&submit, job, where, "submit", 0, 0, 0, 1e300)) ||
            (st = read_model(&m, job, where)))
            return st;
        uint32_t index;
        if ((st = cr_add(&index, cr, name, gpus, &m, submit)) != TSCHED_OK)
            return field_prefix(st, where);
        const json_t *run;
        if ((st = ts_json_obj(&run, job, where, "running", 0)) != TSCHED_OK)
            return st;
        if (run) {
            snprintf(w, sizeof w, "%s.running", where);
            if ((st = read_running(cr, index, run, w)) != TSCHED_OK)
                return st;
        }
    }
    return TSCHED_OK;
}

static tsched_status read_queue(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    tsched_crius *cr = ((queue_slot *)slot)->cr;
    uint32_t n0 = cr->njobs;
    tsched_status st = read_jobs(cr, root);
    if (st != TSCHED_OK)
        cr_truncate(cr, n0);
    return st;
}

tsched_status tsched_crius_load_queue_string(tsched_crius *cr, const char *json, size_t len)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_load_queue_string: cr is NULL");
    queue_slot slot = {NULL, cr};
    return ts_json_load_string(&slot, read_queue, NULL, json, len, "tsched_crius_load_queue_string");
}

tsched_status tsched_crius_load_queue(tsched_crius *cr, const char *path)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_load_queue: cr is NULL");
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_load_queue: path is NULL");
    queue_slot slot = {NULL, cr};
    return ts_json_load_file(&slot, read_queue, NULL, path, "tsched_crius_load_queue");
}
