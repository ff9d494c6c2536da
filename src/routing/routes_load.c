/* tsched.routes.v1 read back (DESIGN 5.5): the reader of the document tsched_routes_to_json()
 * writes, so that a scheduler can keep routes across a restart and the command line (draw)
 * need not parse routes itself. The result is an ordinary tsched_routes: the same arrays a
 * computed one holds once final (paths, loaded links, rates), so every getter, the writers
 * and tsched_reroute() read it unchanged. Loads and the smallest rate are recomputed from
 * the hops, never taken from the document, so a result cannot disagree with its paths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/limits.h"
#include "routing_internal.h"

#define ROUTES_FORMAT "tsched.routes.v1"

typedef struct load_ctx {
    const tsched_topology *t;
    const tsched_flows *f; /* may be NULL */
} load_ctx;

/* `algorithm` and `status`: optional, but a status must be one the algorithm gives. */
static tsched_status read_head(tsched_routes *r, const json_t *root)
{
    const char *name = NULL, *status = NULL;
    tsched_status st;
    if ((st = ts_json_str(&name, root, "", "algorithm", 0)) || (st = ts_json_str(&status, root, "", "status", 0)))
        return st;
    r->algo = TSCHED_ROUTE_GREEDY;
    if (name && tsched_route_algo_from_name(&r->algo, name) != TSCHED_OK)
        return ts_error(TSCHED_E_FORMAT,
                        "algorithm: unknown routing algorithm \"%s\"; expected greedy, ecmp, balanced-ecmp or ilp", name);
    int ilp = r->algo == TSCHED_ROUTE_ILP;
    r->status = ilp ? "feasible" : "ok";
    if (status) {
        if (ilp && strcmp(status, "optimal") == 0)
            r->status = "optimal";
        else if (strcmp(status, r->status) != 0)
            return ts_error(TSCHED_E_FORMAT, "status: \"%s\" is not a status of algorithm %s; expected %s", status,
                            tsched_route_algo_name(r->algo), ilp ? "optimal or feasible" : "ok");
    }
    uint32_t ignored = 0;
    double x = 0;
    /* derived from the flows below: only their type and sign are checked */
    if ((st = ts_json_u32(&ignored, root, "", "max_link_flows", 0, 0, UINT32_MAX)) ||
        (st = ts_json_num(&x, root, "", "min_rate_gbps", 0, 0, 0, INFINITY)) ||
        (st = ts_json_u32(&r->moved, root, "", "moved", 0, 0, UINT32_MAX)) ||
        (st = ts_json_num(&r->solve_ms, root, "", "solve_ms", 0, 0, 0, INFINITY)))
        return st;
    return TSCHED_OK;
}

/* Switch h of `hops` (where = "flows[i].hops"). */
static tsched_status hop_switch(uint32_t *sw, const json_t *hops, size_t h, const char *where, const tsched_topology *t)
{
    const json_t *v = json_array_get(hops, h);
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, "%s[%zu]: expected a switch name, got %s", where, h, ts_json_type_name(v));
    const char *name = json_string_value(v);
    *sw = strlen(name) == json_string_length(v) ? tsched_topology_find_switch(t, name) : TSCHED_NONE;
    if (*sw == TSCHED_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "%s[%zu]: no switch \"%s\" in fabric \"%s\"", where, h, name,
                        tsched_topology_name(t));
    return TSCHED_OK;
}

/* Flow i's hops into psw / plinks (hops of them, in *nh): leaves at both ends, consecutive
 * switches joined by a trunk, up then down; with a flow set, from its source NIC's leaf to
 * its destination NIC's. */
static tsched_status read_path(uint32_t *psw, uint32_t *plinks, uint32_t *nh, const json_t *hops, const char *where,
                               const load_ctx *c, uint32_t ls, uint32_t i)
{
    const tsched_topology *t = c->t;
    size_t n = json_array_size(hops);
    tsched_status st;
    if (n > (size_t)ls + 1)
        return ts_error(TSCHED_E_INVALID, "%s: %zu switches; a path of fabric \"%s\" has at most %u", where, n,
                        tsched_topology_name(t), ls + 1);
    int down = 0;
    for (size_t h = 0; h < n; h++) {
        if ((st = hop_switch(&psw[h], hops, h, where, t)) != TSCHED_OK)
            return st;
        if ((h == 0 || h + 1 == n) && tsched_topology_switch_tier(t, psw[h]) != 0)
            return ts_error(TSCHED_E_INVALID, "%s[%zu]: \"%s\" is tier %d; a path starts and ends at a leaf (tier 0)",
                            where, h, tsched_topology_switch_name(t, psw[h]), tsched_topology_switch_tier(t, psw[h]));
        if (h == 0)
            continue;
        uint32_t a = psw[h - 1], b = psw[h], tr = tsched_topology_find_trunk(t, a, b);
        if (tr == TSCHED_NONE)
            return ts_error(TSCHED_E_INVALID, "%s[%zu]: no trunk joins \"%s\" and \"%s\"", where, h,
                            tsched_topology_switch_name(t, a), tsched_topology_switch_name(t, b));
        uint32_t d = tsched_topology_trunk_lower(t, tr) == a ? 0 : 1;
        if (down && !d)
            return ts_error(TSCHED_E_INVALID, "%s[%zu]: \"%s\" climbs again after the path went down (not an "
                            "up-down path)", where, h, tsched_topology_switch_name(t, b));
        down |= (int)d;
        plinks[h - 1] = 2 * tr + d;
    }
    if (n > 1 && psw[0] == psw[n - 1])
        return ts_error(TSCHED_E_INVALID, "%s: starts and ends at \"%s\"; a flow within one leaf has no hops", where,
                        tsched_topology_switch_name(t, psw[0]));
    *nh = n ? (uint32_t)n - 1 : 0;
    if (n == 0)
        psw[0] = TSCHED_NONE; /* one leaf, not named in the document */
    if (!c->f)
        return TSCHED_OK;
    uint32_t a = tsched_topology_node_nic_leaf(t, tsched_flows_src(c->f, i), tsched_flows_src_nic(c->f, i));
    uint32_t b = tsched_topology_node_nic_leaf(t, tsched_flows_dst(c->f, i), tsched_flows_dst_nic(c->f, i));
    if (a == TSCHED_NONE || b == TSCHED_NONE)
        return ts_error(TSCHED_E_INVALID, "%s: flow %u of the flow set names a node or NIC fabric \"%s\" lacks", where, i,
                        tsched_topology_name(t));
    if (n == 0 && a != b)
        return ts_error(TSCHED_E_INVALID, "%s: empty, but the flow's NICs are on leaves \"%s\" and \"%s\"", where,
                        tsched_topology_switch_name(t, a), tsched_topology_switch_name(t, b));
    if (n == 0)
        psw[0] = a;
    else if (psw[0] != a || psw[n - 1] != b)
        return ts_error(TSCHED_E_INVALID, "%s: joins \"%s\" and \"%s\", but the flow's NICs are on leaves \"%s\" and "
                        "\"%s\"", where, tsched_topology_switch_name(t, psw[0]),
                        tsched_topology_switch_name(t, psw[n - 1]), tsched_topology_switch_name(t, a),
                        tsched_topology_switch_name(t, b));
    return TSCHED_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The loaded links, increasing, with their flow counts (as keep_loads() leaves a computed
 * result), and the largest count. */
static tsched_status count_links(tsched_routes *r)
{
    size_t total = 0;
    for (uint32_t i = 0; i < r->n; i++)
        total += r->hops[i];
    uint32_t *all = ts_malloc(total ? total : 1, sizeof *all);
    r->used = ts_malloc(total + 1, sizeof *r->used);
    r->used_load = ts_malloc(total + 1, sizeof *r->used_load);
    if (!all || !r->used || !r->used_load) {
        free(all);
        return TSCHED_E_NOMEM;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < r->n; i++)
        for (uint32_t h = 0; h < r->hops[i]; h++)
            all[k++] = r->plinks[(size_t)r->ls * i + h];
    qsort(all, total, sizeof *all, cmp_u32);
    uint32_t m = 0;
    for (size_t j = 0; j < total; j++) {
        if (m == 0 || r->used[m - 1] != all[j]) {
            r->used[m] = all[j];
            r->used_load[m++] = 0;
        }
        if (++r->used_load[m - 1] > r->max_load)
            r->max_load = r->used_load[m - 1];
    }
    r->nused = m;
    free(all);
    return TSCHED_OK;
}

static tsched_status read_flows(tsched_routes *r, const json_t *arr, const load_ctx *c)
{
    size_t n = json_array_size(arr);
    tsched_status st = ts_limit_check("flows", n, "flows", ts_limits()->flows);
    if (st != TSCHED_OK)
        return st;
    if (c->f && tsched_flows_count(c->f) != n)
        return ts_error(TSCHED_E_INVALID, "flows: %zu flows, but the flow set has %u", n, tsched_flows_count(c->f));
    r->n = (uint32_t)n;
    ts_topo_paths tv;
    ts_topology_paths(&tv, c->t);
    r->ls = tv.max_hops;
    size_t cnt = n ? n : 1;
    if (!(r->hops = ts_malloc(cnt, 1)) || !(r->plinks = ts_malloc((size_t)r->ls * cnt, sizeof *r->plinks)) ||
        !(r->psw = ts_malloc((size_t)(r->ls + 1) * cnt, sizeof *r->psw)))
        return TSCHED_E_NOMEM;
    char where[48];
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_array_get(arr, i), *hops = NULL, *rate;
        snprintf(where, sizeof where, "flows[%zu]", i);
        if (!json_is_object(f))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(f));
        uint32_t index = (uint32_t)i, nh = 0;
        if ((st = ts_json_u32(&index, f, where, "index", 0, 0, UINT32_MAX)))
            return st;
        if (index != i)
            return ts_error(TSCHED_E_RANGE, "%s.index: %u, expected %zu (flows are listed in index order)", where,
                            index, i);
        if ((st = ts_json_arr(&hops, f, where, "hops", 1)))
            return st;
        /* rates on every flow or on none: flows[0] decides */
        rate = json_object_get(f, "rate_gbps");
        int has = rate && !json_is_null(rate);
        if (i == 0 && has && !(r->rate = ts_malloc(cnt, sizeof *r->rate)))
            return TSCHED_E_NOMEM;
        r->has_rates = i == 0 ? has : r->has_rates;
        if (has != r->has_rates)
            return ts_error(has ? TSCHED_E_INVALID : TSCHED_E_NOT_FOUND, "%s.rate_gbps: %s", where,
                            has ? "present, but flows[0] has none" : "missing, but flows[0] has one");
        if (has && (st = ts_json_num(&r->rate[i], f, where, "rate_gbps", 1, 0, 0, INFINITY)))
            return st;
        uint32_t *psw = r->psw + (size_t)(r->ls + 1) * i, *pl = r->plinks + (size_t)r->ls * i;
        char hwhere[64];
        snprintf(hwhere, sizeof hwhere, "%s.hops", where);
        if ((st = read_path(psw, pl, &nh, hops, hwhere, c, r->ls, (uint32_t)i)))
            return st;
        r->hops[i] = (uint8_t)nh;
        for (uint32_t h = nh; h < r->ls; h++) {
            pl[h] = TSCHED_NONE;
            psw[h + 1] = TSCHED_NONE;
        }
        if (has && (i == 0 || r->rate[i] < r->min_rate))
            r->min_rate = r->rate[i];
    }
    return count_links(r);
}

/* ts_doc_reader: the object is made here so that a failed read frees it. */
static tsched_status read_into(void *slot, const void *ctx, const json_t *root)
{
    const load_ctx *c = ctx;
    const json_t *flows = NULL;
    tsched_status st;
    if ((st = ts_json_check_format(root, ROUTES_FORMAT)) || (st = ts_json_arr(&flows, root, "", "flows", 1)))
        return st;
    tsched_routes *r = ts_calloc(1, sizeof *r);
    if (!r)
        return TSCHED_E_NOMEM;
    r->placed = 1;
    if ((st = read_head(r, root)) || (st = read_flows(r, flows, c))) {
        tsched_routes_free(r);
        return st;
    }
    r->topo_id = tsched_topology_id(c->t);
    r->topo_gen = tsched_topology_generation(c->t);
    *(tsched_routes **)slot = r;
    return TSCHED_OK;
}

/* Arguments the JSON loader does not check itself; `out` stays for it to report. */
static tsched_status check_ctx(tsched_routes **out, const tsched_topology *topo, const char *fn)
{
    if (out)
        *out = NULL;
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "%s: topo is NULL", fn);
    return out ? ts_check_built(topo, fn) : TSCHED_OK;
}

tsched_status tsched_routes_load_string(tsched_routes **out, const tsched_topology *topo, const tsched_flows *flows,
                                        const char *json, size_t len)
{
    static const char fn[] = "tsched_routes_load_string";
    tsched_status st = check_ctx(out, topo, fn);
    load_ctx c = {topo, flows};
    return st != TSCHED_OK ? st : ts_json_load_string(out, read_into, &c, json, len, fn);
}

tsched_status tsched_routes_load_file(tsched_routes **out, const tsched_topology *topo, const tsched_flows *flows,
                                      const char *path)
{
    static const char fn[] = "tsched_routes_load_file";
    tsched_status st = check_ctx(out, topo, fn);
    load_ctx c = {topo, flows};
    return st != TSCHED_OK ? st : ts_json_load_file(out, read_into, &c, path, fn);
}

int tsched_routes_has_rates(const tsched_routes *routes) { return routes ? routes->has_rates : 0; }
