/* tsched_route() and tsched_reroute(): resolve flows to leaf pairs, run one algorithm,
 * then the max-min fair rates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/structsize.h"
#include "routing_internal.h"

/* TSCHED_E_INVALID naming a NULL argument of `fn`. */
#define NONNULL(fn, arg)                                                                                              \
    do {                                                                                                              \
        if (!(arg))                                                                                                   \
            return ts_error(TSCHED_E_INVALID, fn ": " #arg " is NULL");                                                \
    } while (0)

static const char *const algo_names[] = {"greedy", "ecmp", "balanced-ecmp", "ilp"};

const char *tsched_route_algo_name(tsched_route_algo a)
{
    return (unsigned)a < sizeof algo_names / sizeof algo_names[0] ? algo_names[a] : "?";
}

tsched_status tsched_route_algo_from_name(tsched_route_algo *algo, const char *name)
{
    NONNULL("tsched_route_algo_from_name", algo);
    NONNULL("tsched_route_algo_from_name", name);
    for (unsigned i = 0; i < sizeof algo_names / sizeof algo_names[0]; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *algo = (tsched_route_algo)i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "algo: unknown routing algorithm \"%s\"; expected greedy, ecmp, balanced-ecmp or ilp",
                    name);
}

void tsched_route_options_init(tsched_route_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->algo = TSCHED_ROUTE_GREEDY;
    o->seed = 1;
    o->threads = 1;
}


tsched_status ts_deadline_check(const ts_deadline *d, const char *what)
{
    if (!d || ts_now_ms() < d->at)
        return TSCHED_OK;
    return ts_error(TSCHED_E_TIMEOUT, "%s: time limit of %u ms reached before any answer", what, d->ms);
}

/* TSCHED_E_TOO_LARGE for a flow set above the thread's limit, before anything is allocated. */
static tsched_status check_flows(const tsched_flows *f)
{
    return ts_limit_check("flows", tsched_flows_count(f), "flows", ts_limits()->flows);
}

void tsched_routes_free(tsched_routes *r)
{
    if (!r)
        return;
    free(r->pidx);
    free(r->hops);
    free(r->plinks);
    free(r->psw);
    free(r->load);
    free(r->used);
    free(r->used_load);
    free(r->rate);
    free(r);
}

tsched_status tsched_router_new(tsched_router **out, const tsched_topology *topo)
{
    NONNULL("tsched_router_new", out);
    *out = NULL;
    NONNULL("tsched_router_new", topo);
    const tsched_topology *t = topo;
    tsched_status st = ts_check_built(t, "tsched_router_new");
    if (st != TSCHED_OK)
        return st;
    tsched_router *rt = ts_calloc(1, sizeof *rt);
    if (!rt)
        return TSCHED_E_NOMEM;
    rt->t = t;
    rt->topo_id = tsched_topology_id(t);
    rt->topo_gen = tsched_topology_generation(t);
    rt->version = ts_topology_version(t);
    ts_pathcache_init(&rt->cache);
    *out = rt;
    return TSCHED_OK;
}

void tsched_router_free(tsched_router *rt)
{
    if (!rt)
        return;
    ts_pathcache_free(&rt->cache);
    free(rt);
}

/* A routing result with its flows resolved to leaf pairs of the router's cache; path indices
 * (pidx) only for the algorithms that choose before placing (`need_pidx`). */
static tsched_status prepare(tsched_routes **out, tsched_router *rt, const ts_flows_view *f, const ts_deadline *d,
                             int need_pidx)
{
    *out = NULL;
    if (rt->version != ts_topology_version(rt->t)) {
        /* paths may have changed: forget them */
        ts_pathcache_free(&rt->cache);
        ts_pathcache_init(&rt->cache);
        rt->version = ts_topology_version(rt->t);
    }
    tsched_routes *r = ts_calloc(1, sizeof *r);
    if (!r)
        return TSCHED_E_NOMEM;
    r->cache = &rt->cache;
    r->n = f->n;
    r->topo_id = rt->topo_id;
    r->topo_gen = rt->topo_gen;
    ts_topo_paths tv;
    ts_topology_paths(&tv, rt->t);
    r->ls = tv.max_hops;
    size_t n = f->n ? f->n : 1;
    tsched_status st = TSCHED_E_NOMEM;
    if ((!need_pidx || (r->pidx = ts_calloc(n, sizeof *r->pidx))) &&
        (r->hops = ts_malloc(n, 1)) &&
        (r->plinks = ts_malloc((size_t)r->ls * n, sizeof *r->plinks)) &&
        (r->psw = ts_malloc((size_t)(r->ls + 1) * n, sizeof *r->psw)))
        st = ts_flows_pairs(r->psw + r->ls, r->ls + 1, r->cache, rt->t, f, d);
    /* every pair is listed now: the cache's links are all the links this call can load */
    if (st == TSCHED_OK) {
        r->nlinks = (uint32_t)r->cache->ngl;
        if (!(r->load = ts_calloc(r->nlinks ? r->nlinks : 1, sizeof *r->load)))
            st = TSCHED_E_NOMEM;
    }
    if (st != TSCHED_OK) {
        tsched_routes_free(r);
        return st;
    }
    *out = r;
    return TSCHED_OK;
}

/* Copy every flow's chosen path out of the cache (unless the algorithm did): the result
 * no longer needs it. */
static void materialize(tsched_routes *r)
{
    for (uint32_t i = 0; i < r->n && !r->placed; i++)
        ts_route_put(r, &r->cache->pairs[ts_route_pair(r, i)], i, r->pidx[i]);
    free(r->pidx);
    r->pidx = NULL;
    r->cache = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The loaded links by fabric id, for tsched_routes_link_flows() without a fabric-sized
 * array, and the largest load. */
static tsched_status keep_loads(tsched_routes *r)
{
    uint32_t n = 0, mx = 0;
    for (uint32_t l = 0; l < r->nlinks; l++) {
        n += r->load[l] > 0;
        mx = r->load[l] > mx ? r->load[l] : mx;
    }
    r->max_load = mx;
    r->used = ts_malloc((size_t)n + 1, sizeof *r->used);
    r->used_load = ts_malloc((size_t)n + 1, sizeof *r->used_load);
    if (!r->used || !r->used_load)
        return TSCHED_E_NOMEM;
    const uint32_t *dir = r->cache->ldir;
    if (dir) {
        /* the cache numbers the fabric's links directly (it is small next to the work):
         * walking it gives them in order, no sort; every link is written at k, and k moves
         * on for a loaded one (no branch on the loads; the arrays have one spare entry) */
        uint32_t k = 0, nfab = 2 * r->cache->tv.ntrunks;
        for (uint32_t g = 0; g < nfab && k < n; g++) {
            uint32_t id = dir[g] - 1, v = id < r->nlinks ? r->load[id] : 0; /* id UINT32_MAX: none */
            r->used[k] = g;
            r->used_load[k] = v;
            k += v > 0;
        }
    } else {
        uint64_t *key = ts_malloc(n ? n : 1, sizeof *key);
        if (!key)
            return TSCHED_E_NOMEM;
        uint32_t k = 0;
        for (uint32_t l = 0; l < r->nlinks; l++)
            if (r->load[l] > 0)
                key[k++] = (uint64_t)r->cache->gl[l] << 32 | r->load[l];
        qsort(key, n, sizeof *key, cmp_u64);
        for (k = 0; k < n; k++) {
            r->used[k] = (uint32_t)(key[k] >> 32);
            r->used_load[k] = (uint32_t)key[k];
        }
        free(key);
    }
    r->nused = n;
    free(r->load);
    r->load = NULL;
    return TSCHED_OK;
}

/* Loads are final: the largest, then the rates and the smallest rate. */
static tsched_status finish(tsched_routes *r, const tsched_topology *t, const ts_flows_view *f, int rates)
{
    tsched_status st0 = keep_loads(r);
    if (st0 != TSCHED_OK)
        return st0;
    materialize(r);
    r->has_rates = rates;
    if (!rates) { /* no rate array: tsched_routes_rate() answers 0 */
        r->min_rate = 0;
        return TSCHED_OK;
    }
    if (!(r->rate = ts_calloc(r->n ? r->n : 1, sizeof *r->rate)))
        return TSCHED_E_NOMEM;
    tsched_status st = ts_route_rates(r, t, f);
    if (st != TSCHED_OK)
        return st;
    r->min_rate = 0;
    for (uint32_t i = 0; i < r->n; i++)
        if (i == 0 || r->rate[i] < r->min_rate)
            r->min_rate = r->rate[i];
    return TSCHED_OK;
}

/* The caller's background load on the links this call can use, preloaded into r->load
 * (which the algorithms then extend) and returned in *base so it can be taken out again.
 * Capped so that adding this call's flows cannot wrap. */
static tsched_status load_base(uint32_t **base, tsched_routes *r, const uint32_t *bl)
{
    uint32_t cap = UINT32_MAX - r->n;
    if (!(*base = ts_malloc(r->nlinks ? r->nlinks : 1, sizeof **base)))
        return TSCHED_E_NOMEM;
    for (uint32_t l = 0; l < r->nlinks; l++) {
        uint32_t v = bl[r->cache->gl[l]];
        (*base)[l] = v < cap ? v : cap;
        r->load[l] = (*base)[l];
    }
    return TSCHED_OK;
}

/* tsched_router_route() with `fn` naming the entry point in errors. */
static tsched_status router_route(tsched_routes **out, tsched_router *rt, const tsched_flows *flows,
                                  const tsched_route_options *opts, const char *fn)
{
    double t0 = ts_now_ms();
    *out = NULL;
    static const ts_span spans[] = {
        TS_SPAN(tsched_route_options, size),          TS_SPAN(tsched_route_options, algo),
        TS_SPAN(tsched_route_options, seed),          TS_SPAN(tsched_route_options, threads),
        TS_SPAN(tsched_route_options, time_limit_ms), TS_SPAN(tsched_route_options, flags),
        TS_SPAN(tsched_route_options, base_link_flows),
    };
    tsched_route_options merged;
    tsched_route_options_init(&merged);
    tsched_status st;
    if (opts && (st = ts_struct_in(&merged, opts, spans, TS_NSPANS(spans), sizeof merged, "tsched_route_options")))
        return st;
    const tsched_route_options *o = &merged;
    if ((unsigned)o->algo > TSCHED_ROUTE_ILP)
        return ts_error(TSCHED_E_INVALID, "tsched_route_options.algo: unknown routing algorithm %d", (int)o->algo);
    if ((st = check_flows(flows)) != TSCHED_OK ||
        (st = tsched_topology_check_identity(rt->t, rt->topo_id, rt->topo_gen, fn)) != TSCHED_OK)
        return st;
    ts_flows_view fv;
    ts_flows_view_get(&fv, flows);
    const ts_flows_view *f = &fv;
    /* the ILP's time limit runs from the call's entry: listing and building count */
    ts_deadline dl = {0, o->time_limit_ms ? o->time_limit_ms : 10000};
    dl.at = t0 + dl.ms;
    const ts_deadline *d = o->algo == TSCHED_ROUTE_ILP ? &dl : NULL;
    tsched_routes *r;
    /* greedy places every path as it goes: no path indices */
    if ((st = prepare(&r, rt, f, d, o->algo != TSCHED_ROUTE_GREEDY)) != TSCHED_OK)
        return st;
    r->algo = o->algo;
    r->status = "ok";
    int optimal = 0;
    uint32_t *base = NULL;
    if (o->base_link_flows && (o->algo == TSCHED_ROUTE_GREEDY || o->algo == TSCHED_ROUTE_BALANCED_ECMP)) {
        if ((st = load_base(&base, r, o->base_link_flows)) != TSCHED_OK) {
            tsched_routes_free(r);
            return st;
        }
    }
    switch (o->algo) {
    case TSCHED_ROUTE_GREEDY: st = ts_route_greedy(r, f, o->threads); break;
    case TSCHED_ROUTE_ECMP: st = ts_route_ecmp(r, f, o->seed); break;
    case TSCHED_ROUTE_BALANCED_ECMP: st = ts_route_balanced_ecmp(r, f, o->seed); break;
    case TSCHED_ROUTE_ILP:
        st = ts_route_ilp(r, f, d, &optimal);
        r->status = optimal ? "optimal" : "feasible";
        break;
    }
    /* the result counts this call's flows only */
    if (base) {
        for (uint32_t l = 0; l < r->nlinks; l++)
            r->load[l] -= base[l];
        free(base);
    }
    /* solve_ms covers choosing the paths, listing them included, not the rates */
    r->solve_ms = ts_now_ms() - t0;
    if (st == TSCHED_OK)
        st = finish(r, rt->t, f, !(o->flags & TSCHED_ROUTE_NO_RATES));
    if (st != TSCHED_OK) {
        tsched_routes_free(r);
        return st;
    }
    *out = r;
    return TSCHED_OK;
}

tsched_status tsched_router_route(tsched_routes **out, tsched_router *router, const tsched_flows *flows,
                                  const tsched_route_options *opts)
{
    NONNULL("tsched_router_route", out);
    *out = NULL;
    NONNULL("tsched_router_route", router);
    NONNULL("tsched_router_route", flows);
    return router_route(out, router, flows, opts, "tsched_router_route: router");
}

tsched_status tsched_route(tsched_routes **out, const tsched_topology *topo, const tsched_flows *flows,
                           const tsched_route_options *opts)
{
    NONNULL("tsched_route", out);
    *out = NULL;
    NONNULL("tsched_route", topo);
    NONNULL("tsched_route", flows);
    tsched_status st = ts_check_built(topo, "tsched_route");
    if (st != TSCHED_OK || (st = check_flows(flows)) != TSCHED_OK)
        return st;
    tsched_router *rt;
    if ((st = tsched_router_new(&rt, topo)) != TSCHED_OK)
        return st;
    st = router_route(out, rt, flows, opts, "tsched_route");
    tsched_router_free(rt);
    return st;
}

/* Does flow i's path in prev survive in t? Its switches and trunks are up. */
static int survives(const tsched_routes *prev, uint32_t i, const tsched_topology *t)
{
    uint32_t hops;
    const uint32_t *l = ts_route_links(prev, i, &hops);
    for (uint32_t h = 0; h < hops; h++)
        if (!tsched_topology_trunk_is_up(t, l[h] / 2))
            return 0;
    for (uint32_t h = 0; h <= hops; h++)
        if (!tsched_topology_switch_is_up(t, prev->psw[(size_t)(prev->ls + 1) * i + h]))
            return 0;
    return 1;
}

tsched_status tsched_reroute(tsched_routes **out, const tsched_routes *prev, const tsched_topology *topo,
                             const tsched_flows *flows)
{
    NONNULL("tsched_reroute", out);
    *out = NULL;
    NONNULL("tsched_reroute", prev);
    NONNULL("tsched_reroute", topo);
    NONNULL("tsched_reroute", flows);
    const tsched_topology *t = topo;
    tsched_status st;
    if ((st = tsched_topology_check_identity(t, prev->topo_id, prev->topo_gen, "tsched_reroute: prev")) != TSCHED_OK ||
        (st = ts_check_built(t, "tsched_reroute")) != TSCHED_OK || (st = check_flows(flows)) != TSCHED_OK)
        return st;
    ts_flows_view fv;
    ts_flows_view_get(&fv, flows);
    const ts_flows_view *f = &fv;
    if (prev->n != f->n)
        return ts_error(TSCHED_E_INVALID, "tsched_reroute: prev routed %u flows, the flow set has %u", prev->n, f->n);
    tsched_router *rt;
    tsched_routes *r = NULL;
    if ((st = tsched_router_new(&rt, t)) != TSCHED_OK)
        return st;
    double t0 = ts_now_ms();
    uint8_t *keep = NULL;
    if ((st = prepare(&r, rt, f, NULL, 1)) != TSCHED_OK)
        goto out;
    r->algo = TSCHED_ROUTE_GREEDY;
    r->status = "ok";
    if (!(keep = ts_calloc(f->n ? f->n : 1, 1))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* kept flows first: their loads are what the moved flows must live with */
    for (uint32_t i = 0; i < f->n; i++) {
        if (!survives(prev, i, t))
            continue;
        uint32_t hops;
        const uint32_t *pl = ts_route_links(prev, i, &hops);
        const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
        /* the same path among the pair's surviving candidates */
        for (uint32_t k = 0; k < p->npaths && !keep[i] && hops == p->hops; k++) {
            uint32_t h = 0;
            while (h < hops && r->cache->gl[ts_pair_link(r->cache, p, k, h)] == pl[h])
                h++;
            if (h == hops) {
                r->pidx[i] = k;
                keep[i] = 1;
                ts_pair_load(r->load, r->cache, p, k);
            }
        }
    }
    for (uint32_t i = 0; i < f->n; i++) {
        if (keep[i])
            continue;
        const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
        uint32_t k = ts_least_loaded(r->cache, p, r->load, NULL);
        r->pidx[i] = k;
        ts_pair_load(r->load, r->cache, p, k);
        r->moved++;
    }
    r->solve_ms = ts_now_ms() - t0;
    st = finish(r, t, f, 1);
out:
    free(keep);
    tsched_router_free(rt);
    if (st != TSCHED_OK) {
        tsched_routes_free(r);
        return st;
    }
    *out = r;
    return TSCHED_OK;
}

uint32_t tsched_routes_count(const tsched_routes *r) { return r ? r->n : 0; }

tsched_status tsched_routes_path(tsched_path *path, const tsched_routes *routes, uint32_t i)
{
    NONNULL("tsched_routes_path", path);
    NONNULL("tsched_routes_path", routes);
    const tsched_routes *r = routes;
    if (i >= r->n)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_path: flow %u does not exist (%u flows)", i, r->n);
    uint32_t hops;
    const uint32_t *l = ts_route_links(r, i, &hops);
    const uint32_t *sw = r->psw + (size_t)(r->ls + 1) * i;
    ts_path p;
    memset(&p, 0xff, sizeof p);
    p.nswitches = hops + 1;
    for (uint32_t h = 0; h <= hops; h++)
        p.switches[h] = sw[h];
    for (uint32_t h = 0; h < hops; h++)
        p.links[h] = l[h];
    return ts_paths_out(path, &p, 1, "tsched_routes_path");
}

double tsched_routes_rate(const tsched_routes *r, uint32_t i) { return r && r->rate && i < r->n ? r->rate[i] : 0; }
uint32_t tsched_routes_max_link_flows(const tsched_routes *r) { return r ? r->max_load : 0; }
uint32_t tsched_routes_link_flows(const tsched_routes *r, uint32_t l)
{
    if (!r)
        return 0;
    uint32_t lo = 0, hi = r->nused; /* binary search among the loaded links */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->used[mid] < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nused && r->used[lo] == l ? r->used_load[lo] : 0;
}
double tsched_routes_min_rate(const tsched_routes *r) { return r ? r->min_rate : 0; }
uint32_t tsched_routes_moved(const tsched_routes *r) { return r ? r->moved : 0; }
const char *tsched_routes_status(const tsched_routes *r) { return r ? r->status : ""; }
tsched_route_algo tsched_routes_algo(const tsched_routes *r) { return r ? r->algo : TSCHED_ROUTE_GREEDY; }
double tsched_routes_solve_ms(const tsched_routes *r) { return r ? r->solve_ms : 0; }
