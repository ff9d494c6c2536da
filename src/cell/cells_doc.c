/* tsched.cells.v1: a job's candidate Cells on every pool of a fabric (doc/cell.md §8), the
 * document `topo-sched cells` prints and the service's "cells" answers. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/json.h"
#include "common/output_opts.h"
#include "topo-sched/cell.h"

static const char *const space_names[] = {"assembled", "tuned", "exhaustive"};

/* GPU type of pool "TYPE/G" into `buf` (the part before the last '/'). */
static void pool_type(const char *pool, char *buf, size_t cap)
{
    const char *slash = strrchr(pool, '/');
    size_t n = slash ? (size_t)(slash - pool) : strlen(pool);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, pool, n);
    buf[n] = '\0';
}

static tsched_status add_cell(json_t *cells, const tsched_cell *c)
{
    char *text = NULL;
    tsched_status st = tsched_cell_to_json(&text, c);
    if (st != TSCHED_OK)
        return st;
    json_t *el = NULL;
    st = ts_json_parse(&el, text, strlen(text));
    tsched_free(text);
    if (st != TSCHED_OK)
        return ts_error(TSCHED_E_INTERNAL, "cells: a Cell element did not parse");
    return ts_json_push(cells, el);
}

/* A string array without `s` gets it. */
static tsched_status add_unique(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (strcmp(json_string_value(v), s) == 0)
            return TSCHED_OK;
    }
    return ts_json_push(arr, json_string(s));
}

/* Every Cell of one pool: N in ns[], S = 1, 2, 4, ... up to min(N, layers) (or `stages`). */
static tsched_status pool_cells(json_t *cells, const tsched_topology *topo, const char *pool,
                                const tsched_gpu_catalog *cat, const tsched_job *job, const tsched_op_profile *use,
                                const uint32_t *ns, uint32_t nn, uint32_t layers, uint32_t only_n, uint32_t only_s,
                                tsched_plan_space space)
{
    tsched_status st = TSCHED_OK;
    for (uint32_t a = 0; a < nn && st == TSCHED_OK; a++) {
        uint32_t n = ns[a], smax = n < layers ? n : layers;
        for (uint32_t s = only_s ? only_s : 1; st == TSCHED_OK && (only_s ? s == only_s : s <= smax);
             s = only_s ? s + 1 : 2 * s) {
            tsched_cell *c = NULL;
            if ((st = tsched_cell_estimate(&c, topo, pool, cat, job, use, n, s, space)) != TSCHED_OK) {
                /* name the input the estimate refused */
                if (st == TSCHED_E_TOO_LARGE) /* N above the library's Cell size limit */
                    return ts_error_prefix(st, only_n ? "gpus" : "job");
                if (st == TSCHED_E_RANGE || st == TSCHED_E_NOT_FOUND)
                    return ts_error_prefix(st, use ? "profile" : "job");
                return st;
            }
            st = add_cell(cells, c);
            tsched_cell_free(c);
            if (!only_s && s > UINT32_MAX / 2)
                break;
        }
    }
    return st;
}

/* Both entry points; `fn` names the one called in argument errors. */
static tsched_status list_doc(char **out, const tsched_topology *topo, const tsched_job *job,
                              const tsched_gpu_catalog *cat, const tsched_op_profile *profile, const char *type,
                              uint32_t gpus, uint32_t stages, tsched_plan_space plans,
                              const tsched_output_opts *opts, const char *fn)
{
    if (out)
        *out = NULL;
    if (!out || !topo || !job || !cat)
        return ts_error(TSCHED_E_INVALID, "%s: %s is NULL", fn, !out ? "out" : !topo ? "topo" : !job ? "job" : "cat");
    tsched_output_opts o;
    tsched_status st0 = ts_output_opts_in(&o, opts, fn);
    if (st0 != TSCHED_OK)
        return st0;
    if ((unsigned)plans > TSCHED_PLANS_EXHAUSTIVE)
        return ts_error(TSCHED_E_INVALID, "%s: plans: %d is not a plan space", fn, (int)plans);
    tsched_model model;
    tsched_model_init(&model);
    tsched_status st = tsched_job_model(&model, job);
    if (st == TSCHED_E_NOT_FOUND)
        return ts_error(st, "job: model: missing; a Cell estimate needs the model");
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "job");
    if (profile && tsched_op_profile_layers(profile) != model.layers)
        return ts_error(TSCHED_E_RANGE, "profile: layers: %u entries, model has %u", tsched_op_profile_layers(profile),
                        model.layers);
    char **pools = NULL;
    uint32_t npools = 0;
    if ((st = tsched_cell_pools(&pools, &npools, topo)) != TSCHED_OK)
        return ts_error_prefix(st, "topology");
    char ptype[256];
    if (type) {
        int found = 0;
        for (uint32_t p = 0; p < npools && !found; p++) {
            pool_type(pools[p], ptype, sizeof ptype);
            found = strcmp(ptype, type) == 0;
        }
        if (!found) {
            tsched_free(pools);
            return ts_error(TSCHED_E_NOT_FOUND, "type: no pool of gpu type \"%s\" in fabric \"%s\"", type,
                            tsched_topology_name(topo));
        }
    }
    double t0 = ts_now_ms();
    json_t *doc = json_object(), *cells = json_array(), *unknown = json_array();
    if (!doc || !cells || !unknown)
        st = ts_error(TSCHED_E_NOMEM, "%s: out of memory", fn);
    else if (!(st = ts_json_set(doc, "format", json_string("tsched.cells.v1"))) &&
             !(st = ts_json_set(doc, "job", json_string(tsched_job_name(job)))))
        st = ts_json_set(doc, "plans", json_string(space_names[plans]));
    /* N: N_G/2 (N_G even), N_G, 2 N_G; or `gpus` */
    uint32_t ng = tsched_job_gpus(job), ns[3], nn = 0;
    if (gpus)
        ns[nn++] = gpus;
    else {
        if (ng % 2 == 0)
            ns[nn++] = ng / 2;
        ns[nn++] = ng;
        if (ng <= UINT32_MAX / 2)
            ns[nn++] = 2 * ng;
    }
    for (uint32_t p = 0; p < npools && st == TSCHED_OK; p++) {
        pool_type(pools[p], ptype, sizeof ptype);
        if (type && strcmp(ptype, type) != 0)
            continue;
        tsched_gpu_info info = {.size = sizeof info};
        if (tsched_gpu_catalog_find(&info, cat, ptype) != TSCHED_OK) {
            st = add_unique(unknown, ptype);
            continue;
        }
        const tsched_op_profile *use =
            profile && strcmp(tsched_op_profile_gpu_type(profile), ptype) == 0 ? profile : NULL;
        if (model.moe_experts > 0 && profile && !use) {
            st = ts_error(TSCHED_E_RANGE,
                          "job: model.moe_experts: MoE is not in the cell cost model; supply an op profile "
                          "(--profile covers gpu type \"%s\" only: add --type %s)",
                          tsched_op_profile_gpu_type(profile), tsched_op_profile_gpu_type(profile));
            break;
        }
        st = pool_cells(cells, topo, pools[p], cat, job, use, ns, nn, model.layers, gpus, stages, plans);
    }
    if (st == TSCHED_OK && json_array_size(unknown))
        st = ts_json_set(doc, "unknown_gpu_types", json_incref(unknown));
    if (st == TSCHED_OK)
        st = ts_json_set(doc, "cells", json_incref(cells));
    if (st == TSCHED_OK && o.timing)
        st = ts_json_set(doc, "solve_ms", json_real(ts_now_ms() - t0));
    if (st == TSCHED_OK)
        st = ts_json_dump_opts(out, doc, &o);
    json_decref(unknown);
    json_decref(cells);
    json_decref(doc);
    tsched_free(pools);
    return st;
}

tsched_status tsched_cell_list_to_json(char **out, const tsched_topology *topo, const tsched_job *job,
                                       const tsched_gpu_catalog *cat, const tsched_op_profile *profile,
                                       const char *type, uint32_t gpus, uint32_t stages, tsched_plan_space plans,
                                       int timing)
{
    tsched_output_opts o;
    tsched_output_opts_init(&o);
    o.timing = timing;
    return list_doc(out, topo, job, cat, profile, type, gpus, stages, plans, &o, "tsched_cell_list_to_json");
}

tsched_status tsched_cell_list_to_json_opts(char **out, const tsched_topology *topo, const tsched_job *job,
                                            const tsched_gpu_catalog *cat, const tsched_op_profile *profile,
                                            const char *type, uint32_t gpus, uint32_t stages,
                                            tsched_plan_space plans, const tsched_output_opts *opts)
{
    return list_doc(out, topo, job, cat, profile, type, gpus, stages, plans, opts, "tsched_cell_list_to_json_opts");
}
