/* Reading `tsched.placement.v1` back (DESIGN 5.3), as output.c writes it, so a placement
 * made earlier (by `topo-sched place` or another scheduler) can drive the flows of its
 * job. The spread fields of the document are not trusted: the metric is recomputed from
 * the assignment on the fabric given, so a stale or hand-edited document cannot lie. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "placement_internal.h"
#include "solver.h"

#define PLACEMENT_FORMAT "tsched.placement.v1"

/* A required string field that must be one of `names`; its index in `*out`. */
static tsched_status read_choice(int *out, const json_t *root, const char *key, const char *const *names, size_t n,
                                 const char *expected, int required)
{
    const char *s;
    tsched_status st = ts_json_str(&s, root, "", key, required);
    if (st != TSCHED_OK)
        return st;
    if (!json_object_get(root, key) || json_is_null(json_object_get(root, key)))
        return TSCHED_OK;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (int)i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "%s: unknown value \"%s\"; expected %s", key, s, expected);
}

static tsched_status read_algo(tsched_place_algo *algo, const json_t *root)
{
    const char *s;
    tsched_status st = ts_json_str(&s, root, "", "algorithm", 1);
    if (st != TSCHED_OK)
        return st;
    for (int a = 0; a <= (int)TSCHED_PLACE_EXHAUSTIVE; a++)
        if (strcmp(s, tsched_place_algo_name((tsched_place_algo)a)) == 0) {
            *algo = (tsched_place_algo)a;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT,
                    "algorithm: unknown placement algorithm \"%s\"; expected mip, best-fit, random-fit, gpu-pack, "
                    "topo-aware or exhaustive",
                    s);
}

/* The assignment: every cell exactly once, every node once, ranks as DESIGN 5.3 defines. */
static tsched_status read_assignment(tsched_placement *p, const json_t *root, const tsched_topology *t)
{
    const json_t *arr;
    tsched_status st;
    if ((st = ts_json_arr(&arr, root, "", "assignment", 1)) != TSCHED_OK)
        return st;
    size_t cells = (size_t)p->rows * p->cols;
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t *cell_of = ts_malloc(nn ? nn : 1, sizeof *cell_of); /* node -> the assignment entry using it */
    uint32_t *entry = ts_malloc(cells, sizeof *entry);           /* cell -> the entry assigning it */
    if (!cell_of || !entry) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < nn; i++)
        cell_of[i] = UINT32_MAX;
    for (size_t i = 0; i < cells; i++)
        entry[i] = UINT32_MAX;
    size_t count = json_array_size(arr);
    for (size_t i = 0; i < count; i++) {
        const json_t *a = json_array_get(arr, i);
        char where[40];
        snprintf(where, sizeof where, "assignment[%zu]", i);
        if (!json_is_object(a)) {
            st = ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(a));
            goto out;
        }
        uint32_t row, col, rank = UINT32_MAX;
        const char *name;
        if ((st = ts_json_u32(&row, a, where, "row", 1, 0, p->rows - 1)) ||
            (st = ts_json_u32(&col, a, where, "col", 1, 0, p->cols - 1)) ||
            (st = ts_json_str(&name, a, where, "node", 1)) ||
            (st = ts_json_u32(&rank, a, where, "rank", 0, 0, UINT32_MAX)))
            goto out;
        size_t cell = (size_t)row * p->cols + col;
        if (entry[cell] != UINT32_MAX) {
            st = ts_error(TSCHED_E_DUPLICATE, "%s: cell (row %u, col %u) is already assigned by assignment[%u]",
                          where, row, col, entry[cell]);
            goto out;
        }
        uint32_t want = col * p->rows + row;
        if (rank != UINT32_MAX && rank != want) {
            st = ts_error(TSCHED_E_RANGE, "%s.rank: %u, but cell (row %u, col %u) has rank col * rows + row = %u",
                          where, rank, row, col, want);
            goto out;
        }
        uint32_t n = tsched_topology_find_node(t, name);
        if (n == TSCHED_NONE) {
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.node: unknown node \"%s\" (not in fabric \"%s\")", where, name,
                          tsched_topology_name(t));
            goto out;
        }
        if (cell_of[n] != UINT32_MAX) {
            st = ts_error(TSCHED_E_DUPLICATE, "%s.node: node \"%s\" is already used by assignment[%u]", where, name,
                          cell_of[n]);
            goto out;
        }
        cell_of[n] = (uint32_t)i;
        entry[cell] = (uint32_t)i;
        p->nodes[cell] = n;
    }
    /* every entry was distinct, so fewer entries than cells leaves a hole: name the first */
    for (size_t c = 0; c < cells; c++)
        if (entry[c] == UINT32_MAX) {
            st = ts_error(TSCHED_E_NOT_FOUND, "assignment: no entry for cell (row %zu, col %zu)", c / p->cols,
                          c % p->cols);
            goto out;
        }
out:
    free(cell_of);
    free(entry);
    return st;
}

/* The Eq. 2 metric of the loaded assignment over the document's domain level. */
static tsched_status recompute(tsched_placement *p, const tsched_topology *t)
{
    size_t cells = (size_t)p->rows * p->cols;
    uint32_t ndom = ts_domain_count(t, p->domain);
    uint32_t *dom = ts_malloc(cells, sizeof *dom);
    if (!dom)
        return TSCHED_E_NOMEM;
    tsched_status st = TSCHED_OK;
    for (size_t i = 0; i < cells; i++) {
        dom[i] = ts_node_domain(t, p->nodes[i], p->domain);
        if (dom[i] == TSCHED_NONE || dom[i] >= ndom) {
            st = ts_error(TSCHED_E_INVALID, "domain: \"pod\", but node \"%s\" (row %zu, col %zu) is in no pod",
                          tsched_topology_node_name(t, p->nodes[i]), i / p->cols, i % p->cols);
            goto out;
        }
    }
    ts_metric m;
    if ((st = ts_metric_eval(&m, dom, p->rows, p->cols, ndom, p->alpha)) != TSCHED_OK)
        goto out;
    p->dp_max = m.dp_max;
    p->pp_max = m.pp_max;
    p->domains_used = m.used;
    p->weighted = m.weighted;
out:
    free(dom);
    return st;
}

static tsched_status read_doc(tsched_placement *p, const json_t *root, const tsched_topology *t)
{
    static const char *const status_names[] = {"optimal", "feasible"};
    static const char *const domain_names[] = {"pod", "leaf", "nvl"};
    static const tsched_domain domain_values[] = {TSCHED_DOMAIN_POD, TSCHED_DOMAIN_LEAF, TSCHED_DOMAIN_NVL};
    tsched_status st;
    if ((st = ts_json_check_format(root, PLACEMENT_FORMAT)) != TSCHED_OK)
        return st;
    /* "job" is informational and may be "" (a placement made without a job name) */
    const json_t *job = json_object_get(root, "job");
    if (job && !json_is_null(job) && !json_is_string(job))
        return ts_error(TSCHED_E_TYPE, "job: expected a string, got %s", ts_json_type_name(job));
    int status = 0, domain = -1;
    uint32_t nn = tsched_topology_num_nodes(t);
    if ((st = read_algo(&p->algo, root)) ||
        (st = read_choice(&status, root, "status", status_names, 2, "\"optimal\" or \"feasible\"", 1)) ||
        (st = ts_json_u32(&p->rows, root, "", "rows", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&p->cols, root, "", "cols", 1, 1, UINT32_MAX)) ||
        (st = ts_json_num(&p->alpha, root, "", "alpha", 1, 0, 0, 1)) ||
        (st = read_choice(&domain, root, "domain", domain_names, 3, "\"pod\", \"leaf\" or \"nvl\"", 0)) ||
        (st = ts_json_num(&p->solve_ms, root, "", "solve_ms", 0, 0, 0, DBL_MAX)))
        return st;
    p->status = status == 0 ? TSCHED_PLACE_OPTIMAL : TSCHED_PLACE_FEASIBLE;
    if (domain < 0)
        p->domain = tsched_topology_num_pods(t) > 0 ? TSCHED_DOMAIN_POD : TSCHED_DOMAIN_LEAF;
    else
        p->domain = domain_values[domain];
    if ((uint64_t)p->rows * p->cols > nn)
        return ts_error(TSCHED_E_RANGE, "rows, cols: a %u x %u matrix needs %llu nodes; fabric \"%s\" has %u",
                        p->rows, p->cols, (unsigned long long)p->rows * p->cols, tsched_topology_name(t), nn);
    if (!(p->nodes = ts_malloc((size_t)p->rows * p->cols, sizeof *p->nodes)))
        return TSCHED_E_NOMEM;
    if ((st = read_assignment(p, root, t)) != TSCHED_OK)
        return st;
    return recompute(p, t);
}

/* The loaders' reader: the object is made here so a failed read frees it. */
static tsched_status read_into(void *slot, const void *ctx, const json_t *root)
{
    const tsched_topology *topo = ctx;
    tsched_placement *obj = ts_calloc(1, sizeof *obj);
    if (!obj)
        return TSCHED_E_NOMEM;
    tsched_status st = read_doc(obj, root, topo);
    if (st != TSCHED_OK) {
        tsched_placement_free(obj);
        return st;
    }
    obj->fabric_id = tsched_topology_id(topo);
    obj->fabric_gen = tsched_topology_generation(topo);
    *(tsched_placement **)slot = obj;
    return TSCHED_OK;
}

tsched_status tsched_placement_load_string(tsched_placement **out, const tsched_topology *topo, const char *json, size_t len)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_load_string: topology is NULL");
    return ts_json_load_string(out, read_into, topo, json, len, "tsched_placement_load_string");
}

tsched_status tsched_placement_load_file(tsched_placement **out, const tsched_topology *topo, const char *path)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_load_file: topology is NULL");
    return ts_json_load_file(out, read_into, topo, path, "tsched_placement_load_file");
}

const uint32_t *tsched_placement_nodes(const tsched_placement *p) { return p ? p->nodes : NULL; }
