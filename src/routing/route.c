/* tsched_route() and tsched_reroute(): resolve flows to leaf pairs, run one algorithm,
 * then the max-min fair rates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/alloc.h"
#include "../topology/topology_internal.h"
#include "../workload/flows_internal.h"
#include "../common/structsize.h"
#include "routing_internal.h"

static const char *const algo_names[] = {"greedy", "ecmp", "balanced-ecmp", "ilp"};

const char *tsched_route_algo_name(tsched_route_algo a)
{
    return (unsigned)a < sizeof algo_names / sizeof algo_names[0] ? algo_names[a] : "?";
}

tsched_status tsched_route_algo_from_name(tsched_route_algo *a, const char *name)
{
    if (!a || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_route_algo_from_name: %s is NULL", !a ? "algo" : "name");
    for (unsigned i = 0; i < sizeof algo_names / sizeof algo_names[0]; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *a = (tsched_route_algo)i;
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

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

void tsched_routes_free(tsched_routes *r)
{
    if (!r)
        return;
    free(r->pair);
    free(r->pidx);
    free(r->hops);
    free(r->plinks);
    free(r->psw);
    free(r->load);
    free(r->rate);
    free(r);
}

tsched_status tsched_router_new(tsched_router **out, const tsched_topology *t)
{
    if (!out || !t)
        return ts_error(TSCHED_E_INVALID, "tsched_router_new: %s is NULL", !out ? "out" : "topo");
    *out = NULL;
    tsched_router *rt = ts_calloc(1, sizeof *rt);
    if (!rt)
        return TSCHED_E_NOMEM;
    rt->t = t;
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

/* A routing result with its flows resolved to leaf pairs of the router's cache. */
static tsched_status prepare(tsched_routes **out, tsched_router *rt, const tsched_flows *f)
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
    r->nlinks = 2 * tsched_topology_num_trunks(rt->t);
    size_t n = f->n ? f->n : 1;
    tsched_status st = TSCHED_E_NOMEM;
    if ((r->pair = ts_malloc(n, sizeof *r->pair)) && (r->pidx = ts_calloc(n, sizeof *r->pidx)) &&
        (r->rate = ts_calloc(n, sizeof *r->rate)) && (r->hops = ts_malloc(n, 1)) &&
        (r->plinks = ts_malloc(4 * n, sizeof *r->plinks)) && (r->psw = ts_malloc(5 * n, sizeof *r->psw)) &&
        (r->load = ts_calloc(r->nlinks ? r->nlinks : 1, sizeof *r->load)))
        st = ts_flows_pairs(r->pair, r->cache, rt->t, f);
    if (st != TSCHED_OK) {
        tsched_routes_free(r);
        return st;
    }
    *out = r;
    return TSCHED_OK;
}

/* Copy every flow's chosen path out of the cache: the result no longer needs it. */
static void materialize(tsched_routes *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &r->cache->pairs[r->pair[i]];
        const uint32_t *l = r->cache->links + p->off + (size_t)r->pidx[i] * p->hops;
        const uint32_t *sw = r->cache->sw + p->soff + (size_t)r->pidx[i] * (p->hops + 1);
        r->hops[i] = (uint8_t)p->hops;
        for (uint32_t h = 0; h < 4; h++)
            r->plinks[4 * (size_t)i + h] = h < p->hops ? l[h] : TSCHED_NONE;
        for (uint32_t h = 0; h < 5; h++)
            r->psw[5 * (size_t)i + h] = h <= p->hops ? sw[h] : TSCHED_NONE;
    }
    free(r->pair);
    free(r->pidx);
    r->pair = r->pidx = NULL;
    r->cache = NULL;
}

/* Loads are final: the largest, then the rates and the smallest rate. */
static tsched_status finish(tsched_routes *r, const tsched_topology *t, const tsched_flows *f, int rates)
{
    materialize(r);
    r->max_load = 0;
    for (uint32_t l = 0; l < r->nlinks; l++)
        if (r->load[l] > r->max_load)
            r->max_load = r->load[l];
    r->has_rates = rates;
    if (!rates) {
        r->min_rate = 0;
        return TSCHED_OK;
    }
    tsched_status st = ts_route_rates(r, t, f);
    if (st != TSCHED_OK)
        return st;
    r->min_rate = 0;
    for (uint32_t i = 0; i < r->n; i++)
        if (i == 0 || r->rate[i] < r->min_rate)
            r->min_rate = r->rate[i];
    return TSCHED_OK;
}

tsched_status tsched_router_route(tsched_routes **out, tsched_router *rt, const tsched_flows *f,
                                  const tsched_route_options *opts)
{
    if (!out || !rt || !f)
        return ts_error(TSCHED_E_INVALID, "tsched_router_route: %s is NULL", !out ? "out" : !rt ? "router" : "flows");
    *out = NULL;
    static const ts_span spans[] = {
        TS_SPAN(tsched_route_options, size),          TS_SPAN(tsched_route_options, algo),
        TS_SPAN(tsched_route_options, seed),          TS_SPAN(tsched_route_options, threads),
        TS_SPAN(tsched_route_options, time_limit_ms), TS_SPAN(tsched_route_options, flags),
    };
    tsched_route_options merged;
    tsched_route_options_init(&merged);
    tsched_status st;
    if (opts && (st = ts_struct_in(&merged, opts, spans, TS_NSPANS(spans), sizeof merged, "tsched_route_options")))
        return st;
    const tsched_route_options *o = &merged;
    if ((unsigned)o->algo > TSCHED_ROUTE_ILP)
        return ts_error(TSCHED_E_INVALID, "algo: unknown routing algorithm %d", (int)o->algo);
    tsched_routes *r;
    double t0 = now_ms();
    if ((st = prepare(&r, rt, f)) != TSCHED_OK)
        return st;
    r->algo = o->algo;
    r->status = "ok";
    int optimal = 0;
    switch (o->algo) {
    case TSCHED_ROUTE_GREEDY: st = ts_route_greedy(r, f, o->threads); break;
    case TSCHED_ROUTE_ECMP: st = ts_route_ecmp(r, f, o->seed); break;
    case TSCHED_ROUTE_BALANCED_ECMP: st = ts_route_balanced_ecmp(r, f, o->seed); break;
    case TSCHED_ROUTE_ILP:
        st = ts_route_ilp(r, f, o->time_limit_ms ? o->time_limit_ms : 10000, &optimal);
        r->status = optimal ? "optimal" : "feasible";
        break;
    }
    /* solve_ms covers choosing the paths, listing them included, not the rates */
    r->solve_ms = now_ms() - t0;
    if (st == TSCHED_OK)
        st = finish(r, rt->t, f, !(o->flags & TSCHED_ROUTE_NO_RATES));
    if (st != TSCHED_OK) {
        tsched_routes_free(r);
        return st;
    }
    *out = r;
    return TSCHED_OK;
}

tsched_status tsched_route(tsched_routes **out, const tsched_topology *t, const tsched_flows *f,
                           const tsched_route_options *opts)
{
    if (!out || !t || !f)
        return ts_error(TSCHED_E_INVALID, "tsched_route: %s is NULL", !out ? "out" : !t ? "topo" : "flows");
    *out = NULL;
    tsched_router *rt;
    tsched_status st = tsched_router_new(&rt, t);
    if (st != TSCHED_OK)
        return st;
    st = tsched_router_route(out, rt, f, opts);
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
        if (!tsched_topology_switch_is_up(t, prev->psw[5 * (size_t)i + h]))
            return 0;
    return 1;
}

tsched_status tsched_reroute(tsched_routes **out, const tsched_routes *prev, const tsched_topology *t,
                             const tsched_flows *f)
{
    if (!out || !t || !f || !prev)
        return ts_error(TSCHED_E_INVALID, "tsched_reroute: %s is NULL", !out ? "out" : !t ? "topo" : !f ? "flows" : "prev");
    *out = NULL;
    if (prev->n != f->n)
        return ts_error(TSCHED_E_INVALID, "tsched_reroute: prev routed %u flows, the flow set has %u", prev->n, f->n);
    if (prev->nlinks != 2 * tsched_topology_num_trunks(t))
        return ts_error(TSCHED_E_INVALID, "tsched_reroute: prev was computed on another fabric");
    tsched_router *rt;
    tsched_routes *r = NULL;
    tsched_status st = tsched_router_new(&rt, t);
    if (st != TSCHED_OK)
        return st;
    double t0 = now_ms();
    uint8_t *keep = NULL;
    if ((st = prepare(&r, rt, f)) != TSCHED_OK)
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
        const ts_pair *p = &r->cache->pairs[r->pair[i]];
        /* the same path among the pair's surviving candidates */
        for (uint32_t k = 0; k < p->npaths && !keep[i]; k++)
            if (hops == p->hops && memcmp(r->cache->links + p->off + (size_t)k * hops, pl, hops * sizeof *pl) == 0) {
                r->pidx[i] = k;
                keep[i] = 1;
            }
        if (keep[i])
            for (uint32_t h = 0; h < hops; h++)
                r->load[pl[h]]++;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        if (keep[i])
            continue;
        const ts_pair *p = &r->cache->pairs[r->pair[i]];
        uint32_t k = ts_least_loaded(r->cache, p, r->load, NULL);
        r->pidx[i] = k;
        const uint32_t *l = r->cache->links + p->off + (size_t)k * p->hops;
        for (uint32_t h = 0; h < p->hops; h++)
            r->load[l[h]]++;
        r->moved++;
    }
    r->solve_ms = now_ms() - t0;
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

tsched_status tsched_routes_path(tsched_path *path, const tsched_routes *r, uint32_t i)
{
    if (!path || !r)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_path: %s is NULL", !path ? "path" : "routes");
    if (i >= r->n)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_path: flow %u does not exist", i);
    uint32_t hops;
    const uint32_t *l = ts_route_links(r, i, &hops);
    const uint32_t *sw = r->psw + 5 * (size_t)i;
    ts_path p;
    memset(&p, 0xff, sizeof p);
    p.nswitches = hops + 1;
    for (uint32_t h = 0; h <= hops; h++)
        p.switches[h] = sw[h];
    for (uint32_t h = 0; h < hops; h++)
        p.links[h] = l[h];
    return ts_paths_out(path, &p, 1, "tsched_routes_path");
}

double tsched_routes_rate(const tsched_routes *r, uint32_t i) { return r && i < r->n ? r->rate[i] : 0; }
uint32_t tsched_routes_max_link_flows(const tsched_routes *r) { return r ? r->max_load : 0; }
uint32_t tsched_routes_link_flows(const tsched_routes *r, uint32_t l) { return r && l < r->nlinks ? r->load[l] : 0; }
double tsched_routes_min_rate(const tsched_routes *r) { return r ? r->min_rate : 0; }
uint32_t tsched_routes_moved(const tsched_routes *r) { return r ? r->moved : 0; }
const char *tsched_routes_status(const tsched_routes *r) { return r ? r->status : "?"; }
tsched_route_algo tsched_routes_algo(const tsched_routes *r) { return r ? r->algo : TSCHED_ROUTE_GREEDY; }
double tsched_routes_solve_ms(const tsched_routes *r) { return r ? r->solve_ms : 0; }
