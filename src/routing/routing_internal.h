/* Internal, private to src/routing: routing state. A flow's route is a leaf pair of the
 * path cache (pathcache.h) plus a path index, so a million flows cost a few bytes each.
 * The fabric and the flows are read through their modules' interfaces (topology_paths.h,
 * workload_view.h), never their internal headers. */
#ifndef TS_ROUTING_INTERNAL_H
#define TS_ROUTING_INTERNAL_H

#include "topo-sched/routing.h"

#include "../common/clock.h"
#include "../topology/topology_paths.h"
#include "../workload/workload_view.h"
#include "pathcache.h"

/* Per leaf (by ordinal in tier 0), for the row layout. */
struct ts_leafrow {
    uint32_t row;       /* its usable up-links' trunks start at rtr[row - 1]; 0: not read yet */
    uint32_t len;       /* how many */
    uint32_t cls;       /* leaves with equal spine sequences share it; TS_NO_CLASS: none */
    uint32_t up, dn;    /* first compact id of its up / down block, or TS_BLOCK_* */
};
#define TS_NO_CLASS UINT32_MAX
#define TS_BLOCK_NONE UINT32_MAX         /* not numbered yet */
#define TS_BLOCK_BAD (UINT32_MAX - 1)    /* some link already had an id: list its pairs */

/* Adds one flow on path k of pair p to the loads. */
static inline void ts_pair_load(uint32_t *load, const ts_pathcache *c, const ts_pair *p, uint32_t k)
{
    if (p->dn != TS_PAIR_LISTED) {
        load[p->off + k]++;
        load[p->dn + k]++;
        return;
    }
    const uint32_t *l = c->links + p->off + (size_t)k * p->hops;
    for (uint32_t h = 0; h < p->hops; h++)
        load[l[h]]++;
}

/* A time limit taken at a call's entry: `at` on the ts_now_ms() clock, `ms` the limit. */
typedef struct ts_deadline {
    double at;
    uint32_t ms;
} ts_deadline;

/* Milliseconds on the monotonic clock. */
/* TSCHED_E_TIMEOUT naming `what` and the limit once the deadline has passed (NULL: never). */
tsched_status ts_deadline_check(const ts_deadline *d, const char *what);

/* The NIC leaves of every flow resolved into pair ids (flow i's at pair_of[i * stride]);
 * errors name the flow. Listing stops
 * with TSCHED_E_TIMEOUT once the deadline (NULL: none) passes. On failure the cache is
 * emptied. */
tsched_status ts_flows_pairs(uint32_t *pair_of, size_t stride, ts_pathcache *c, const tsched_topology *t,
                             const ts_flows_view *f, const ts_deadline *d);

struct tsched_router {
    const tsched_topology *t;
    uint64_t topo_id, topo_gen; /* identity and shape generation of t at creation */
    uint64_t version;    /* of t when the cache was filled */
    ts_pathcache cache;
};

struct tsched_routes {
    uint32_t n;          /* flows */
    /* while computing: candidates in the router's cache; each flow's pair id waits in the
     * last slot of its psw row (ts_route_pair), overwritten when its path is written */
    ts_pathcache *cache; /* borrowed; NULL once the result is final */
    uint32_t *pidx;      /* per flow: path index within the pair (not for greedy) */
    uint32_t nlinks;     /* compact links of the cache (load has one entry each) */
    uint32_t *load;      /* flows per compact link */
    /* the result, per flow, independent of the cache */
    uint8_t *hops;       /* trunk hops of the chosen path (0: same leaf) */
    uint32_t ls;         /* links per flow in plinks: the fabric's longest path (ts_max_hops) */
    uint32_t *plinks;    /* ls per flow: directed link ids */
    uint32_t *psw;       /* ls + 1 per flow: switches */
    uint32_t nused;      /* directed links carrying flows */
    uint32_t *used;      /* their fabric ids, increasing */
    uint32_t *used_load; /* and their flow counts */
    double *rate;        /* per flow, Gbit/s */
    uint32_t max_load;
    double min_rate;
    int has_rates;       /* 0 with TSCHED_ROUTE_NO_RATES */
    int placed;          /* the algorithm wrote hops/plinks/psw itself (ts_route_put) */
    uint32_t moved;
    tsched_route_algo algo;
    const char *status;
    double solve_ms;
    uint64_t topo_id, topo_gen; /* the fabric it was computed on (DESIGN 3) */
};

/* Links of flow i's final path (count in *hops). */
static inline const uint32_t *ts_route_links(const tsched_routes *r, uint32_t i, uint32_t *hops)
{
    *hops = r->hops[i];
    return r->plinks + (size_t)r->ls * i;
}

/* The first k < n (n >= 1) with the smallest max(up[k], down[k]), that value in *value
 * (if not NULL): the least loaded path of a row pair. Vectorised where the CPU allows. */
uint32_t ts_rows_least_loaded(const uint32_t *up, const uint32_t *down, uint32_t n, uint32_t *value);

/* Flow i's pair id while computing (before its path is written). */
static inline uint32_t ts_route_pair(const tsched_routes *r, uint32_t i)
{
    return r->psw[(size_t)(r->ls + 1) * i + r->ls];
}

/* Write flow i's path (path k of pair p) into the result arrays hops, plinks, psw. */
static inline void ts_route_put(tsched_routes *r, const ts_pair *p, uint32_t i, uint32_t k)
{
    const ts_pathcache *c = r->cache;
    const ts_topo_paths *t = &c->tv;
    uint32_t *pl = r->plinks + (size_t)r->ls * i, *ps = r->psw + (size_t)(r->ls + 1) * i, h = 0;
    r->hops[i] = (uint8_t)p->hops;
    ps[0] = p->a;
    if (p->dn != TS_PAIR_LISTED) {
        pl[0] = c->gl[p->off + k];
        pl[1] = c->gl[p->dn + k];
        ps[1] = t->tr_upper[pl[0] / 2];
        ps[2] = p->b;
        h = 2;
    } else {
        const uint32_t *l = c->links + p->off + (size_t)k * p->hops;
        for (; h < p->hops; h++) {
            pl[h] = c->gl[l[h]];
            ps[h + 1] = ts_link_head(t, pl[h]);
        }
    }
    for (; h < r->ls; h++) {
        pl[h] = TSCHED_NONE;
        ps[h + 1] = TSCHED_NONE;
    }
}

/* Index of the least loaded path of pair p (busiest link first, ties to the first). */
static inline uint32_t ts_least_loaded(const ts_pathcache *c, const ts_pair *p, const uint32_t *load, uint32_t *value)
{
    uint32_t best = 0, bestv = UINT32_MAX;
    if (p->dn != TS_PAIR_LISTED)
        return ts_rows_least_loaded(load + p->off, load + p->dn, p->npaths, value);
    const uint32_t *l = c->links + p->off;
    if (p->hops == 2) { /* via a spine, listed */
        for (uint32_t k = 0; k < p->npaths; k++, l += 2) {
            uint32_t u = load[l[0]], d = load[l[1]], v = u > d ? u : d;
            if (v < bestv) {
                bestv = v;
                best = k;
            }
        }
        if (value)
            *value = bestv;
        return best;
    }
    for (uint32_t k = 0; k < p->npaths; k++, l += p->hops) {
        uint32_t v = 0;
        for (uint32_t h = 0; h < p->hops; h++)
            if (load[l[h]] > v)
                v = load[l[h]];
        if (v < bestv) {
            bestv = v;
            best = k;
        }
    }
    if (value)
        *value = bestv;
    return best;
}

/* Algorithms: fill r->pidx (pair ids, cache ready; r->load zeroed, or holding the caller's
 * background load for greedy and balanced-ecmp, which they extend). */
tsched_status ts_route_greedy(tsched_routes *r, const ts_flows_view *f, uint32_t threads);
tsched_status ts_route_ecmp(tsched_routes *r, const ts_flows_view *f, uint64_t seed);
tsched_status ts_route_balanced_ecmp(tsched_routes *r, const ts_flows_view *f, uint64_t seed);
/* *optimal = 1 when the largest trunk load is proven minimal. */
/* The deadline, taken at the call's entry, bounds it all: TSCHED_E_TIMEOUT when it passes
 * before any answer (greedy's start included), the best answer so far after. */
tsched_status ts_route_ilp(tsched_routes *r, const ts_flows_view *f, const ts_deadline *d, int *optimal);
/* Greedy in flow order, one thread, looking at the deadline every few thousand flows. */
tsched_status ts_route_greedy_until(tsched_routes *r, const ts_deadline *d);

/* Max-min fair rates for routes already chosen. */
tsched_status ts_route_rates(tsched_routes *r, const tsched_topology *t, const ts_flows_view *f);

#endif
