/* tsched.crius-schedule.v1 (doc/cell.md §7.4): the last event's outcome. Jobs in queue order
 * (removed jobs left out); a running job's nodes by name in ascending node index; `solve_ms`
 * only with `with_time`, so the bytes are otherwise a function of the input. */
#include <stdlib.h>

#include "../common/json.h"
#include "../common/output_opts.h"
#include "crius_internal.h"

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

static tsched_status job_json(json_t **out, const tsched_crius *cr, uint32_t j)
{
    const cr_job *jb = &cr->jobs[j];
    json_t *o = json_object();
    tsched_status st = o ? TSCHED_OK : ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    if (st == TSCHED_OK)
        st = ts_json_set(o, "name", jstr(jb->name));
    if (st == TSCHED_OK && !jb->running) {
        if ((st = ts_json_set(o, "status", json_string("pending"))) == TSCHED_OK)
            st = ts_json_set(o, "reason", jstr(jb->reason));
    } else if (st == TSCHED_OK) {
        const tsched_cell *c = cr_job_cell(cr, j);
        const cr_opt *op = jb->opt != CR_NONE ? &jb->opts[jb->opt] : NULL;
        uint32_t pool = op ? op->pool : jb->g_pool;
        json_t *plan = NULL, *nodes = NULL;
        if ((st = ts_json_set(o, "status", json_string("running"))) ||
            (st = ts_json_set(o, "changed", json_boolean(jb->changed))) ||
            (st = ts_json_set(o, "pool", jstr(cr->pools.p[pool].name))) ||
            (st = ts_json_set(o, "gpu_type", jstr(cr->pools.p[pool].gpu_type))) ||
            (st = ts_json_set(o, "gpus", json_integer(tsched_cell_gpus(c)))) ||
            (st = ts_json_set(o, "stages", json_integer(tsched_cell_num_stages(c)))) ||
            (st = ts_json_set(o, "iteration_s", json_real(tsched_cell_iteration_s(c)))) ||
            (st = ts_json_set(o, "throughput", json_real(tsched_cell_throughput(c)))) ||
            (st = ts_json_set(o, "reference_throughput", json_real(jb->ref))))
            goto done;
        if ((st = ts_cell_stage_plan_json(&plan, c)) != TSCHED_OK || (st = ts_json_set(o, "stage_plan", plan)))
            goto done;
        if (!(nodes = json_array())) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
            goto done;
        }
        if ((st = ts_json_set(o, "nodes", nodes)) != TSCHED_OK)
            goto done;
        for (uint32_t i = 0; i < jb->nnodes && st == TSCHED_OK; i++) {
            json_t *e = json_object();
            if (!e) {
                st = ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
                break;
            }
            if ((st = ts_json_push(nodes, e)) == TSCHED_OK &&
                (st = ts_json_set(e, "node", jstr(ts_strtab_str(&cr->node_tab, jb->nodes[i])))) == TSCHED_OK)
                st = ts_json_set(e, "gpus", json_integer(jb->node_gpus[i]));
        }
    }
done:
    if (st != TSCHED_OK) {
        json_decref(o);
        return st;
    }
    *out = o;
    return TSCHED_OK;
}

/* Both entry points; `fn` names the one called in errors. */
static tsched_status schedule_doc(char **out, const tsched_crius *cr, const tsched_output_opts *opts, const char *fn)
{
    if (!out || !cr)
        return ts_error(TSCHED_E_INVALID, "%s: %s is NULL", fn, !out ? "out" : "cr");
    *out = NULL;
    tsched_output_opts o;
    tsched_status st0 = ts_output_opts_in(&o, opts, fn);
    if (st0 != TSCHED_OK)
        return st0;
    if (!cr->has_event)
        return ts_error(TSCHED_E_STATE, "%s: no event has been scheduled yet", fn);
    json_t *root = json_object(), *unk = json_array(), *jobs = json_array();
    tsched_status st = root && unk && jobs ? TSCHED_OK : ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    if (st != TSCHED_OK) {
        json_decref(root);
        json_decref(unk);
        json_decref(jobs);
        return st;
    }
    json_t *u = unk, *jj = jobs;
    int u_in = 0, j_in = 0;
    if ((st = ts_json_set(root, "format", json_string("tsched.crius-schedule.v1"))) ||
        (st = ts_json_set(root, "event",
                          json_string(cr->event == TSCHED_CRIUS_DEPARTURE ? "departure" : "arrival"))) ||
        (st = ts_json_set(root, "objective",
                          json_string(cr->objective == TSCHED_CRIUS_THROUGHPUT ? "throughput" : "normalized"))) ||
        (st = ts_json_set(root, "depth", json_integer(cr->depth))) ||
        (st = ts_json_set(root, "value", json_real(cr->value))))
        goto done;
    u_in = 1; /* jansson takes the value even when setting fails */
    if ((st = ts_json_set(root, "unknown_gpu_types", u)) != TSCHED_OK)
        goto done;
    for (uint32_t i = 0; i < cr->nunknown && st == TSCHED_OK; i++)
        st = ts_json_push(u, jstr(cr->unknown[i]));
    if (st || (st = ts_json_set(root, "cells_estimated", json_integer(cr->cells_estimated))))
        goto done;
    j_in = 1;
    if ((st = ts_json_set(root, "jobs", jj)) != TSCHED_OK)
        goto done;
    for (uint32_t j = 0; j < cr->njobs && st == TSCHED_OK; j++) {
        if (cr->jobs[j].removed)
            continue;
        json_t *e;
        if ((st = job_json(&e, cr, j)) == TSCHED_OK)
            st = ts_json_push(jj, e);
    }
    if (st == TSCHED_OK && o.timing)
        st = ts_json_set(root, "solve_ms", json_real(cr->solve_ms));
    if (st == TSCHED_OK)
        st = ts_json_dump_opts(out, root, &o);
done:
    if (!u_in)
        json_decref(u);
    if (!j_in)
        json_decref(jj);
    json_decref(root);
    return st;
}

tsched_status tsched_crius_to_json(char **out, const tsched_crius *cr, int with_time)
{
    tsched_output_opts o;
    tsched_output_opts_init(&o);
    o.timing = with_time;
    return schedule_doc(out, cr, &o, "tsched_crius_to_json");
}

tsched_status tsched_crius_to_json_opts(char **out, const tsched_crius *cr, const tsched_output_opts *opts)
{
    return schedule_doc(out, cr, opts, "tsched_crius_to_json_opts");
}
