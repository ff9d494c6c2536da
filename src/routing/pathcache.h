/* The routing module's path cache, its interface to the priority module (CRUX lists its
 * candidate paths here) beside the public routing.h. Candidate paths are kept once per
 * distinct (source leaf, destination leaf) pair as directed link ids; links are numbered
 * compactly, in the order the cache first meets them, so that every per-link array
 * (loads, ILP rows, components) grows with the links the routed pairs can use, never with
 * the fabric: one flow on a fabric of millions of NICs costs a few kilobytes (DESIGN 3).
 * Other modules include this header, never routing_internal.h (tests/check_seams.sh);
 * they call ts_pathcache_init/get/free and read through the ts_pathcache_* accessors. */
#ifndef TS_ROUTING_PATHCACHE_H
#define TS_ROUTING_PATHCACHE_H

#include "topo-sched/topology.h"

#include "../topology/topology_paths.h"

/* Candidate paths of one leaf pair: npaths paths of `hops` directed links each. Two
 * layouts, read through ts_pair_link() / ts_pair_load() / ts_least_loaded():
 *  - listed (dn == TS_PAIR_LISTED): path k's links are links[off + k * hops ..], hops
 *    of them (0 for a pair of equal leaves: one path, no fabric link);
 *  - rows (two-hop pairs whose leaves have the same usable spines, in the same order:
 *    every pair of an intact two-tier fabric): path k climbs compact link off + k and
 *    comes down compact link dn + k. The ids of a leaf's up-links (and of its down-links)
 *    are numbered as one block in spine order, shared by every pair of that leaf, so
 *    nothing is listed per pair and the loads of a pair's paths are two contiguous rows.
 * Both give the same paths in the same order as the topology's listing. */
#define TS_PAIR_LISTED UINT32_MAX
typedef struct ts_pair {
    uint32_t a, b;      /* leaf switch indices */
    uint32_t off;       /* listed: into cache->links; rows: compact id of path 0's up-link */
    uint32_t npaths;
    uint32_t hops;
    uint32_t dn;        /* rows: compact id of path 0's down-link; TS_PAIR_LISTED */
} ts_pair;

/* Per leaf row of the row layout: defined in routing_internal.h (routing's own). */
typedef struct ts_leafrow ts_leafrow;

typedef struct ts_pathcache {
    ts_pair *pairs;
    uint32_t npairs;
    size_t pairs_cap;
    uint32_t *links;    /* listed pairs: npaths * hops each, compact link ids */
    size_t nlinks, links_cap;
    uint32_t *slots;    /* open addressing on (a, b): pair id + 1 */
    size_t nslots;
    uint32_t *pdir;     /* or, when the leaves are few next to the work: pair id + 1 by
                         * (ordinal of a) * nleaves + ordinal of b */
    uint32_t *gl;       /* compact link id -> directed link id of the fabric */
    size_t ngl, gl_cap;
    uint32_t *lslots;   /* open addressing on the fabric's link id: compact id + 1 */
    size_t nlslots;
    uint32_t *ldir;     /* or, on a fabric small next to the work, by fabric link id */
    /* the row layout, when the leaves are few next to the work (else every pair is listed) */
    ts_leafrow *leaf;   /* nleaves, or NULL */
    uint32_t nleaves;
    uint32_t *rtr;      /* rows: the trunk of each usable up-link, sized once */
    size_t nrow;
    uint32_t *cslots;   /* classes: open addressing on the row's hash, ordinal + 1 */
    size_t ncslots;
    ts_topo_paths tv;   /* the fabric listed from (a path's switches are its links' ends):
                         * set by ts_flows_pairs() at every call, by ts_pathcache_get() on
                         * first use; its arrays follow the fabric's state */
} ts_pathcache;

/* Compact link id of hop h of path k of pair p. */
static inline uint32_t ts_pair_link(const ts_pathcache *c, const ts_pair *p, uint32_t k, uint32_t h)
{
    if (p->dn != TS_PAIR_LISTED)
        return (h ? p->dn : p->off) + k;
    return c->links[p->off + (size_t)k * p->hops + h];
}

/* Budget of one router's listed path links: 2^28 entries (1 GiB of uint32_t). Listing more
 * is TSCHED_E_TOO_LARGE naming the largest pair; rows (two-tier pairs) take none. */
#define TS_PATH_LINKS_MAX ((size_t)1 << 28)

void ts_pathcache_init(ts_pathcache *c);
void ts_pathcache_free(ts_pathcache *c);
/* Id of the pair (a, b) of leaves of the built fabric `t`, listing its surviving paths on
 * first use. Pairs found here are always listed (dn == TS_PAIR_LISTED), so a caller that
 * only uses this (CRUX) reads them through ts_pathcache_path(). A cache serves one fabric
 * in one state: free and init it again after a state change (ts_topology_version()). On
 * failure the cache is emptied. */
tsched_status ts_pathcache_get(uint32_t *id, ts_pathcache *c, const tsched_topology *t, uint32_t a, uint32_t b);

/* Pair `id` (from ts_pathcache_get()): its npaths, hops (0 for equal leaves). */
static inline const ts_pair *ts_pathcache_pair(const ts_pathcache *c, uint32_t id) { return &c->pairs[id]; }

/* Path k of a listed pair: p->hops compact link ids (paths follow each other, so path
 * k + 1 starts p->hops entries later). */
static inline const uint32_t *ts_pathcache_path(const ts_pathcache *c, const ts_pair *p, uint32_t k)
{
    return c->links + p->off + (size_t)k * p->hops;
}

/* Compact link id -> directed link id of the fabric (as in tsched_path), by index. */
static inline const uint32_t *ts_pathcache_fabric_links(const ts_pathcache *c) { return c->gl; }

#endif
