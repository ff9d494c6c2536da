/* One Cell as an element of tsched.cells.v1 `cells` (doc/cell.md §7.3), fields in the
 * contract's order; infeasible Cells carry `reason` and no plan fields. */
#include <jansson.h>

#include "../common/json.h"
#include "estimate_internal.h"

static tsched_status stage_json(json_t **out, const tsched_cell *c, uint32_t s)
{
    const ts_cell_stage *st = &c->st[s];
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    tsched_status r = TSCHED_OK;
    if ((r = ts_json_set(o, "first_layer", json_integer(st->first_layer))) ||
        (r = ts_json_set(o, "layers", json_integer(st->layers))) ||
        (r = ts_json_set(o, "gpus", json_integer(st->gpus))) || (r = ts_json_set(o, "dp", json_integer(st->dp))) ||
        (r = ts_json_set(o, "tp", json_integer(st->tp))) ||
        (r = ts_json_set(o, "favor", json_string(st->favor_tp ? "tp" : "dp"))) ||
        (r = ts_json_set(o, "time_s", json_real(st->time_s))) ||
        (r = ts_json_set(o, "mem_bytes", json_real(st->mem_bytes)))) {
        json_decref(o);
        return r;
    }
    *out = o;
    return TSCHED_OK;
}

tsched_status ts_cell_stage_plan_json(json_t **out, const tsched_cell *c)
{
    if (!out || !c)
        return ts_error(TSCHED_E_INVALID, "ts_cell_stage_plan_json: NULL argument");
    if (!c->feasible)
        return ts_error(TSCHED_E_STATE, "cell %s/%u/%u: infeasible (%s); no stage plan", c->pool, c->N, c->S,
                        c->reason);
    json_t *a = json_array();
    if (!a)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    for (uint32_t s = 0; s < c->S; s++) {
        json_t *o = NULL;
        tsched_status r = stage_json(&o, c, s);
        if (r == TSCHED_OK)
            r = ts_json_push(a, o);
        if (r != TSCHED_OK) {
            json_decref(a);
            return r;
        }
    }
    *out = a;
    return TSCHED_OK;
}

tsched_status ts_cell_json(json_t **out, const tsched_cell *c)
{
    if (!out || !c)
        return ts_error(TSCHED_E_INVALID, "ts_cell_json: NULL argument");
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    tsched_status r = TSCHED_OK;
    if ((r = ts_json_set(o, "pool", json_string(c->pool))) ||
        (r = ts_json_set(o, "gpu_type", json_string(c->gpu_type))) ||
        (r = ts_json_set(o, "gpus", json_integer(c->N))) || (r = ts_json_set(o, "stages", json_integer(c->S))) ||
        (r = ts_json_set(o, "feasible", json_boolean(c->feasible))))
        goto fail;
    if (!c->feasible) {
        if ((r = ts_json_set(o, "reason", json_string(c->reason))))
            goto fail;
        *out = o;
        return TSCHED_OK;
    }
    json_t *plan = NULL;
    if ((r = ts_json_set(o, "microbatches", json_integer(c->B))) ||
        (r = ts_json_set(o, "iteration_s", json_real(c->T))) ||
        (r = ts_json_set(o, "throughput", json_real(c->throughput))) ||
        (r = ts_json_set(o, "plans_evaluated", json_integer((json_int_t)c->plans))) ||
        (c->plans_saturated && (r = ts_json_set(o, "plans_evaluated_saturated", json_true()))) ||
        (r = ts_cell_stage_plan_json(&plan, c)) || (r = ts_json_set(o, "stage_plan", plan)))
        goto fail;
    *out = o;
    return TSCHED_OK;
fail:
    json_decref(o);
    return r;
}

tsched_status tsched_cell_to_json(char **out, const tsched_cell *c)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_to_json: out is NULL");
    *out = NULL;
    if (!c)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_to_json: c (the cell) is NULL");
    json_t *o = NULL;
    tsched_status r = ts_cell_json(&o, c);
    if (r != TSCHED_OK)
        return r;
    r = ts_json_dump(out, o);
    json_decref(o);
    return r;
}
