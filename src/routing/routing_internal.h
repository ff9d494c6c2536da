/* Internal: routing state. Candidate paths are kept once per distinct (source leaf,
 * destination leaf) pair as directed link ids; a flow's route is the pair plus a path
 * index, so a million flows cost a few bytes each. Links are numbered compactly, in the
 * order the cache first meets them, so that every per-link array (loads, ILP rows,
 * components) grows with the links the routed pairs can use, never with the fabric: one
 * flow on a fabric of millions of NICs costs a few kilobytes (DESIGN 3). */
#ifndef TS_ROUTING_INTERNAL_H
#define TS_ROUTING_INTERNAL_H

#include "topo-sched/routing.h"

#include "../common/clock.h"
#include "../topology/topology_internal.h"

/* Candidate paths of one leaf pair: npaths paths of `hops` directed links each, stored
 * from links[off]. hops is 0 for a pair of equal leaves (one path, no fabric link). */
typedef struct ts_pair {
    uint32_t a, b;      /* leaf switch indices */
    uint32_t off;       /* into cache->links */
    uint32_t npaths;
    uint32_t hops;
} ts_pair;

typedef struct ts_pathcache {
    ts_pair *pairs;
    uint32_t npairs;
    size_t pairs_cap;
    uint32_t *links;    /* npaths * hops per pair: compact link ids */
    size_t nlinks, links_cap;
    uint32_t *slots;    /* open addressing on (a, b): pair id + 1 */
    size_t nslots;
    uint32_t *gl;       /* compact link id -> directed link id of the fabric */
    size_t ngl, gl_cap;
    uint32_t *lslots;   /* open addressing on the fabric's link id: compact id + 1 */
    size_t nlslots;
    uint32_t *ldir;     /* or, on a fabric small next to the work, by fabric link id */
    const tsched_topology *t; /* the fabric listed from: a path's switches are its links' ends */
} ts_pathcache;

void ts_pathcache_init(ts_pathcache *c);
void ts_pathcache_free(ts_pathcache *c);
/* Id of the pair (a, b), listing its surviving paths from `t` on first use. On failure the
 * cache is emptied. */
tsched_status ts_pathcache_get(uint32_t *id, ts_pathcache *c, const tsched_topology *t, uint32_t a, uint32_t b);

/* A time limit taken at a call's entry: `at` on the ts_now_ms() clock, `ms` the limit. */
typedef struct ts_deadline {
    double at;
    uint32_t ms;
} ts_deadline;

/* Milliseconds on the monotonic clock. */
/* TSCHED_E_TIMEOUT naming `what` and the limit once the deadline has passed (NULL: never). */
tsched_status ts_deadline_check(const ts_deadline *d, const char *what);

/* The NIC leaves of every flow resolved into pair ids; errors name the flow. Listing stops
 * with TSCHED_E_TIMEOUT once the deadline (NULL: none) passes. On failure the cache is
 * emptied. */
tsched_status ts_flows_pairs(uint32_t *pair_of, ts_pathcache *c, const tsched_topology *t, const tsched_flows *f,
                             const ts_deadline *d);

struct tsched_router {
    const tsched_topology *t;
    uint64_t topo_id, topo_gen; /* identity and shape generation of t at creation */
    uint64_t version;    /* of t when the cache was filled */
    ts_pathcache cache;
};

struct tsched_routes {
    uint32_t n;          /* flows */
    /* while computing: candidates in the router's cache */
    ts_pathcache *cache; /* borrowed; NULL once the result is final */
    uint32_t *pair;      /* per flow: pair id */
    uint32_t *pidx;      /* per flow: path index within the pair */
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
    uint32_t moved;
    tsched_route_algo algo;
    const char *status;
    double solve_ms;
    uint64_t topo_id, topo_gen; /* the fabric it was computed on (DESIGN 3) */
};

/* The switch a directed fabric link leads to: link 2r climbs trunk r, 2r + 1 descends it. */
static inline uint32_t ts_link_head(const tsched_topology *t, uint32_t l)
{
    return l & 1 ? t->tr_lower[l / 2] : t->tr_upper[l / 2];
}

/* Links of flow i's final path (count in *hops). */
static inline const uint32_t *ts_route_links(const tsched_routes *r, uint32_t i, uint32_t *hops)
{
    *hops = r->hops[i];
    return r->plinks + (size_t)r->ls * i;
}

/* Index of the least loaded path of pair p (busiest link first, ties to the first). */
static inline uint32_t ts_least_loaded(const ts_pathcache *c, const ts_pair *p, const uint32_t *load, uint32_t *value)
{
    const uint32_t *l = c->links + p->off;
    uint32_t best = 0, bestv = UINT32_MAX;
    if (p->hops == 2) { /* via a spine: the common case, without the inner loop */
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

/* Algorithms: fill r->pidx (r->pair, cache ready; r->load zeroed, or holding the caller's
 * background load for greedy and balanced-ecmp, which they extend). */
tsched_status ts_route_greedy(tsched_routes *r, const tsched_flows *f, uint32_t threads);
tsched_status ts_route_ecmp(tsched_routes *r, const tsched_flows *f, uint64_t seed);
tsched_status ts_route_balanced_ecmp(tsched_routes *r, const tsched_flows *f, uint64_t seed);
/* *optimal = 1 when the largest trunk load is proven minimal. */
/* The deadline, taken at the call's entry, bounds it all: TSCHED_E_TIMEOUT when it passes
 * before any answer (greedy's start included), the best answer so far after. */
tsched_status ts_route_ilp(tsched_routes *r, const tsched_flows *f, const ts_deadline *d, int *optimal);
/* Greedy in flow order, one thread, looking at the deadline every few thousand flows. */
tsched_status ts_route_greedy_until(tsched_routes *r, const ts_deadline *d);

/* Max-min fair rates for routes already chosen. */
tsched_status ts_route_rates(tsched_routes *r, const tsched_topology *t, const tsched_flows *f);

#endif
