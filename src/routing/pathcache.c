/* Candidate paths per distinct leaf pair, from the topology's path listing. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../topology/topology_internal.h"
#include "../workload/flows_internal.h"
#include "routing_internal.h"

void ts_pathcache_init(ts_pathcache *c) { memset(c, 0, sizeof *c); }

void ts_pathcache_free(ts_pathcache *c)
{
    free(c->pairs);
    free(c->links);
    free(c->sw);
    free(c->slots);
    free(c->scratch);
    free(c->gl);
    free(c->lslots);
    memset(c, 0, sizeof *c);
}

static size_t link_hash(uint32_t g, size_t mask)
{
    uint64_t x = (uint64_t)g * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 32) & mask;
}

/* Room for `extra` more compact links: the table stays at most half full. */
static tsched_status links_reserve(ts_pathcache *c, size_t extra)
{
    tsched_status st;
    if ((st = TS_GROW(c->gl, c->gl_cap, c->ngl + extra + 1)) != TSCHED_OK)
        return st;
    size_t n = c->nlslots ? c->nlslots : 256;
    while ((c->ngl + extra) * 2 > n)
        n *= 2;
    if (n == c->nlslots)
        return TSCHED_OK;
    uint32_t *slots = ts_calloc(n, sizeof *slots);
    if (!slots)
        return TSCHED_E_NOMEM;
    for (size_t id = 0; id < c->ngl; id++) {
        size_t i = link_hash(c->gl[id], n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(c->lslots);
    c->lslots = slots;
    c->nlslots = n;
    return TSCHED_OK;
}

/* Compact id of fabric link g, numbering it on first sight (room reserved). */
static uint32_t link_id(ts_pathcache *c, uint32_t g)
{
    size_t i = link_hash(g, c->nlslots - 1);
    while (c->lslots[i]) {
        if (c->gl[c->lslots[i] - 1] == g)
            return c->lslots[i] - 1;
        i = (i + 1) & (c->nlslots - 1);
    }
    c->gl[c->ngl] = g;
    c->lslots[i] = (uint32_t)++c->ngl;
    return (uint32_t)c->ngl - 1;
}

static uint64_t pair_hash(uint32_t a, uint32_t b)
{
    uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 29);
}

static tsched_status rehash(ts_pathcache *c, size_t nslots)
{
    uint32_t *slots = ts_calloc(nslots, sizeof *slots);
    if (!slots)
        return TSCHED_E_NOMEM;
    for (uint32_t id = 0; id < c->npairs; id++) {
        size_t i = pair_hash(c->pairs[id].a, c->pairs[id].b) & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = nslots;
    return TSCHED_OK;
}

tsched_status ts_pathcache_get(uint32_t *id, ts_pathcache *c, const tsched_topology *t, uint32_t a, uint32_t b)
{
    tsched_status st;
    if ((c->npairs + 1) * 2 > c->nslots && (st = rehash(c, c->nslots ? c->nslots * 2 : 1024)) != TSCHED_OK)
        return st;
    size_t i = pair_hash(a, b) & (c->nslots - 1);
    while (c->slots[i]) {
        const ts_pair *p = &c->pairs[c->slots[i] - 1];
        if (p->a == a && p->b == b) {
            *id = c->slots[i] - 1;
            return TSCHED_OK;
        }
        i = (i + 1) & (c->nslots - 1);
    }
    /* first use: list the paths into the reusable buffer (the count is O(1)) */
    uint64_t cnt = ts_leaf_count(t, a, b);
    if (cnt > UINT32_MAX / 8)
        return ts_error(TSCHED_E_TOO_LARGE, "leaves \"%s\" and \"%s\": %llu paths", tsched_topology_switch_name(t, a),
                        tsched_topology_switch_name(t, b), (unsigned long long)cnt);
    if ((st = TS_GROW(c->scratch, c->scratch_cap, (size_t)cnt + 1)) != TSCHED_OK)
        return st;
    ts_path *paths = c->scratch;
    size_t n = ts_list_leaf_paths(paths, (size_t)cnt, t, a, b);
    uint32_t hops = n ? paths[0].nswitches - 1 : 0;
    if ((st = TS_GROW(c->pairs, c->pairs_cap, (size_t)c->npairs + 1)) != TSCHED_OK ||
        (st = TS_GROW(c->links, c->links_cap, c->nlinks + n * hops + 1)) != TSCHED_OK ||
        (st = TS_GROW(c->sw, c->sw_cap, c->nsw + n * (hops + 1) + 1)) != TSCHED_OK ||
        (st = links_reserve(c, n * hops)) != TSCHED_OK)
        return st;
    ts_pair *p = &c->pairs[c->npairs];
    p->a = a;
    p->b = b;
    p->off = (uint32_t)c->nlinks;
    p->npaths = (uint32_t)n;
    p->hops = hops;
    p->soff = (uint32_t)c->nsw;
    for (size_t k = 0; k < n; k++) {
        for (uint32_t h = 0; h < hops; h++)
            c->links[c->nlinks++] = link_id(c, paths[k].links[h]);
        for (uint32_t h = 0; h <= hops; h++)
            c->sw[c->nsw++] = paths[k].switches[h];
    }
    c->slots[i] = c->npairs + 1;
    *id = c->npairs++;
    return TSCHED_OK;
}

tsched_status ts_flows_pairs(uint32_t *pair_of, ts_pathcache *c, const tsched_topology *t, const tsched_flows *f,
                             const ts_deadline *d)
{
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t pairs0 = c->npairs;
    for (uint32_t i = 0; i < f->n; i++) {
        /* listing is what may take long: look at the clock after every 64 new pairs */
        if (d && c->npairs - pairs0 >= 64) {
            pairs0 = c->npairs;
            tsched_status st = ts_deadline_check(d, "routing: listing the candidate paths");
            if (st != TSCHED_OK)
                return st;
        }
        uint32_t s = f->src[i], d = f->dst[i];
        if (s >= nn || d >= nn)
            return ts_error(TSCHED_E_INVALID, "flows[%u]: node %u does not exist in fabric \"%s\" (%u nodes)", i,
                            s >= nn ? s : d, tsched_topology_name(t), nn);
        uint32_t a = tsched_topology_node_nic_leaf(t, s, f->src_nic[i]);
        uint32_t b = tsched_topology_node_nic_leaf(t, d, f->dst_nic[i]);
        if (a == TSCHED_NONE || b == TSCHED_NONE)
            return ts_error(TSCHED_E_INVALID, "flows[%u]: NIC %u of node \"%s\" does not exist", i,
                            a == TSCHED_NONE ? f->src_nic[i] : f->dst_nic[i],
                            tsched_topology_node_name(t, a == TSCHED_NONE ? s : d));
        tsched_status st = ts_pathcache_get(&pair_of[i], c, t, a, b);
        if (st != TSCHED_OK)
            return st;
        const ts_pair *p = &c->pairs[pair_of[i]];
        /* the node itself must be up; its NIC's leaf is covered by the pair's paths (a down
         * leaf has none), so a rail node keeps its live rails when another rail fails */
        if (p->npaths == 0 || !t->node_up[s] || !t->node_up[d])
            return ts_error(TSCHED_E_NO_PATH, "flows[%u]: no surviving path from \"%s\" NIC %u to \"%s\" NIC %u", i,
                            tsched_topology_node_name(t, s), f->src_nic[i], tsched_topology_node_name(t, d),
                            f->dst_nic[i]);
    }
    return TSCHED_OK;
}
