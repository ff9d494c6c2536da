/* The fabric's default behaviour (ECMP: a hash picks one of the equal-cost paths) and
 * balanced ECMP (a random path among those least loaded so far). Both seeded. */
#include "../common/rng.h"
#include "routing_internal.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 27);
}

tsched_status ts_route_ecmp(tsched_routes *r, const ts_flows_view *f, uint64_t seed)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
        /* the hash of (src, dst, src_nic, dst_nic, index) a switch would compute from the
         * packet header, keyed by the seed */
        uint64_t h = mix(mix(mix(mix(mix(seed, f->src[i]), f->dst[i]), f->src_nic[i]), f->dst_nic[i]), i);
        uint32_t k = (uint32_t)(h % p->npaths);
        r->pidx[i] = k;
        ts_pair_load(r->load, r->cache, p, k);
    }
    return TSCHED_OK;
}

/* The busiest link of path k of pair p. */
static uint32_t path_load(const tsched_routes *r, const ts_pair *p, uint32_t k)
{
    uint32_t v = 0;
    for (uint32_t h = 0; h < p->hops; h++) {
        uint32_t x = r->load[ts_pair_link(r->cache, p, k, h)];
        v = x > v ? x : v;
    }
    return v;
}

tsched_status ts_route_balanced_ecmp(tsched_routes *r, const ts_flows_view *f, uint64_t seed)
{
    (void)f;
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
        uint32_t best;
        ts_least_loaded(r->cache, p, r->load, &best);
        /* count the paths at the minimum, then pick the j-th of them */
        uint32_t ties = 0;
        for (uint32_t k = 0; k < p->npaths; k++)
            ties += path_load(r, p, k) == best;
        uint32_t pick = (uint32_t)ts_rng_below(&rng, ties), k = 0;
        for (;; k++)
            if (path_load(r, p, k) == best && pick-- == 0)
                break;
        r->pidx[i] = k;
        ts_pair_load(r->load, r->cache, p, k);
    }
    return TSCHED_OK;
}
