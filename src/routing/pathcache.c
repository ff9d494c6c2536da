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
    free(c->slots);
    free(c->gl);
    free(c->lslots);
    free(c->ldir);
    memset(c, 0, sizeof *c);
}

/* Room for `need` ids: exactly that on first use (a fresh cache is sized once from the
 * counts), doubling after, so a router that meets new pairs call after call stays linear. */
static tsched_status reserve(uint32_t **arr, size_t *cap, size_t need)
{
    if (need <= *cap)
        return TSCHED_OK;
    size_t ncap = *cap && *cap * 2 > need ? *cap * 2 : need;
    uint32_t *p = ts_realloc(*arr, ncap, sizeof *p);
    if (!p)
        return TSCHED_E_NOMEM;
    *arr = p;
    *cap = ncap;
    return TSCHED_OK;
}

static size_t link_hash(uint32_t g, size_t mask)
{
    uint64_t x = (uint64_t)g * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 32) & mask;
}

/* Room for `extra` more compact links. When the fabric's directed links are few next to
 * the links the pairs may bring (at most 8 per slot they fill), a table indexed by the
 * fabric's link id numbers them with one load each; otherwise open addressing, at most
 * half full, keeps memory to the work. */
static tsched_status links_reserve(ts_pathcache *c, const tsched_topology *t, size_t extra)
{
    tsched_status st;
    size_t nfab = 2 * (size_t)t->ntrunks, fresh = extra < nfab - c->ngl ? extra : nfab - c->ngl;
    if ((st = reserve(&c->gl, &c->gl_cap, c->ngl + fresh + 1)) != TSCHED_OK)
        return st;
    if (c->ldir)
        return TSCHED_OK;
    if (nfab <= 8 * (c->ngl + extra)) {
        uint32_t *dir = ts_calloc(nfab ? nfab : 1, sizeof *dir);
        if (!dir)
            return TSCHED_E_NOMEM;
        for (size_t id = 0; id < c->ngl; id++)
            dir[c->gl[id]] = (uint32_t)id + 1;
        free(c->lslots);
        c->lslots = NULL;
        c->nlslots = 0;
        c->ldir = dir;
        return TSCHED_OK;
    }
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
static inline uint32_t link_id(ts_pathcache *c, uint32_t g)
{
    if (c->ldir) {
        uint32_t v = c->ldir[g];
        if (v)
            return v - 1;
        c->gl[c->ngl] = g;
        c->ldir[g] = (uint32_t)++c->ngl;
        return (uint32_t)c->ngl - 1;
    }
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

/* Id of the pair (a, b); a new pair is only recorded, with its path count in npaths (O(1))
 * and no paths yet: fill_pairs() lists it. */
static tsched_status pair_find(uint32_t *id, ts_pathcache *c, const tsched_topology *t, uint32_t a, uint32_t b)
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
    uint64_t cnt = ts_leaf_count(t, a, b);
    if (cnt > UINT32_MAX / 8)
        return ts_error(TSCHED_E_TOO_LARGE, "leaves \"%s\" and \"%s\": %llu paths", tsched_topology_switch_name(t, a),
                        tsched_topology_switch_name(t, b), (unsigned long long)cnt);
    if ((st = TS_GROW(c->pairs, c->pairs_cap, (size_t)c->npairs + 1)) != TSCHED_OK)
        return st;
    ts_pair *p = &c->pairs[c->npairs];
    p->a = a;
    p->b = b;
    p->off = 0;
    p->npaths = (uint32_t)cnt;
    p->hops = 0;
    c->slots[i] = c->npairs + 1;
    *id = c->npairs++;
    return TSCHED_OK;
}

/* List the paths of pairs [from, npairs) (recorded by pair_find) into memory sized once
 * from their counts: a path has at most twice the fabric's highest tier links. */
static tsched_status fill_pairs(ts_pathcache *c, const tsched_topology *t, uint32_t from, const ts_deadline *d)
{
    size_t maxh = ts_max_hops(t), bound = 0;
    for (uint32_t q = from; q < c->npairs; q++) {
        const ts_pair *p = &c->pairs[q];
        bound += p->a == p->b ? 0 : (size_t)p->npaths * maxh;
    }
    tsched_status st;
    if ((st = reserve(&c->links, &c->links_cap, c->nlinks + bound + 1)) != TSCHED_OK ||
        (st = links_reserve(c, t, bound)) != TSCHED_OK)
        return st;
    c->t = t;
    for (uint32_t q = from; q < c->npairs; q++) {
        /* listing is what may take long: look at the clock after every 64 pairs */
        if (d && q > from && (q - from) % 64 == 0 &&
            (st = ts_deadline_check(d, "routing: listing the candidate paths")) != TSCHED_OK)
            return st;
        ts_pair *p = &c->pairs[q];
        uint32_t *out = c->links + c->nlinks, hops;
        size_t n = ts_list_leaf_links(out, &hops, p->npaths, t, p->a, p->b);
        if (n > p->npaths)
            n = p->npaths;
        hops = n ? hops : 0;
        p->off = (uint32_t)c->nlinks;
        p->npaths = (uint32_t)n;
        p->hops = hops;
        for (size_t k = 0; k < n * hops; k++)
            out[k] = link_id(c, out[k]);
        c->nlinks += n * hops;
    }
    return TSCHED_OK;
}

/* A failed fill leaves pairs without paths behind: forget everything (it is a cache). */
static tsched_status drop(ts_pathcache *c, tsched_status st)
{
    ts_pathcache_free(c);
    return st;
}

tsched_status ts_pathcache_get(uint32_t *id, ts_pathcache *c, const tsched_topology *t, uint32_t a, uint32_t b)
{
    uint32_t from = c->npairs;
    tsched_status st = pair_find(id, c, t, a, b);
    if (st == TSCHED_OK && c->npairs > from)
        st = fill_pairs(c, t, from, NULL);
    return st == TSCHED_OK ? st : drop(c, st);
}

/* Two passes: the flows' pairs are found and counted first (the counts are O(1)), then
 * the new ones are listed into memory sized once. */
tsched_status ts_flows_pairs(uint32_t *pair_of, ts_pathcache *c, const tsched_topology *t, const tsched_flows *f,
                             const ts_deadline *d)
{
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t from = c->npairs;
    tsched_status st = TSCHED_OK;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t s = f->src[i], dn = f->dst[i];
        if (s >= nn || dn >= nn)
            return drop(c, ts_error(TSCHED_E_INVALID, "flows[%u]: node %u does not exist in fabric \"%s\" (%u nodes)",
                                    i, s >= nn ? s : dn, tsched_topology_name(t), nn));
        uint32_t a = tsched_topology_node_nic_leaf(t, s, f->src_nic[i]);
        uint32_t b = tsched_topology_node_nic_leaf(t, dn, f->dst_nic[i]);
        if (a == TSCHED_NONE || b == TSCHED_NONE)
            return drop(c, ts_error(TSCHED_E_INVALID, "flows[%u]: NIC %u of node \"%s\" does not exist", i,
                                    a == TSCHED_NONE ? f->src_nic[i] : f->dst_nic[i],
                                    tsched_topology_node_name(t, a == TSCHED_NONE ? s : dn)));
        if ((st = pair_find(&pair_of[i], c, t, a, b)) != TSCHED_OK)
            return drop(c, st);
        /* the node itself must be up; its NIC's leaf is covered by the pair's paths (a down
         * leaf has none), so a rail node keeps its live rails when another rail fails */
        if (c->pairs[pair_of[i]].npaths == 0 || !t->node_up[s] || !t->node_up[dn])
            return drop(c, ts_error(TSCHED_E_NO_PATH,
                                    "flows[%u]: no surviving path from \"%s\" NIC %u to \"%s\" NIC %u", i,
                                    tsched_topology_node_name(t, s), f->src_nic[i], tsched_topology_node_name(t, dn),
                                    f->dst_nic[i]));
    }
    if (c->npairs > from && (st = fill_pairs(c, t, from, d)) != TSCHED_OK)
        return drop(c, st);
    return TSCHED_OK;
}
