/* The fabric's default behaviour (ECMP: a hash picks one of the equal-cost paths) and
 * balanced ECMP (a random path among those least loaded so far). Both seeded. */
#include "../common/rng.h"
#include "../workload/flows_internal.h"
#include "routing_internal.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 27);
}

tsched_status ts_route_ecmp(tsched_routes *r, const tsched_flows *f, uint64_t seed)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &r->cache->pairs[r->pair[i]];
        /* the hash of (src, dst, src_nic, dst_nic, index) a switch would compute from the
         * packet header, keyed by the seed */
        uint64_t h = mix(mix(mix(mix(mix(seed, f->src[i]), f->dst[i]), f->src_nic[i]), f->dst_nic[i]), i);
        uint32_t k = (uint32_t)(h % p->npaths);
        r->pidx[i] = k;
        const uint32_t *l = r->cache->links + p->off + (size_t)k * p->hops;
        for (uint32_t x = 0; x < p->hops; x++)
            r->load[l[x]]++;
    }
    return TSCHED_OK;
}

tsched_status ts_route_balanced_ecmp(tsched_routes *r, const tsched_flows *f, uint64_t seed)
{
    (void)f;
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &r->cache->pairs[r->pair[i]];
        uint32_t best;
        ts_least_loaded(r->cache, p, r->load, &best);
        /* count the paths at the minimum, then pick the j-th of them */
        const uint32_t *l = r->cache->links + p->off;
        uint32_t ties = 0;
        for (uint32_t k = 0; k < p->npaths; k++) {
            uint32_t v = 0;
            for (uint32_t h = 0; h < p->hops; h++)
                if (r->load[l[(size_t)k * p->hops + h]] > v)
                    v = r->load[l[(size_t)k * p->hops + h]];
            ties += v == best;
        }
        uint32_t pick = (uint32_t)ts_rng_below(&rng, ties), k = 0;
        for (;; k++) {
            uint32_t v = 0;
            for (uint32_t h = 0; h < p->hops; h++)
                if (r->load[l[(size_t)k * p->hops + h]] > v)
                    v = r->load[l[(size_t)k * p->hops + h]];
            if (v == best && pick-- == 0)
                break;
        }
        r->pidx[i] = k;
        for (uint32_t h = 0; h < p->hops; h++)
            r->load[l[(size_t)k * p->hops + h]]++;
    }
    return TSCHED_OK;
}
