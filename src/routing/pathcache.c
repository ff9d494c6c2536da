/* Candidate paths per distinct leaf pair, from the topology's path listing. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
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
    free(c->pdir);
    free(c->leaf);
    free(c->rtr);
    free(c->cslots);
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
static tsched_status links_reserve(ts_pathcache *c, const ts_topo_paths *t, size_t extra)
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

/* Compact id of fabric link g, or UINT32_MAX when it has none yet. */
static inline uint32_t link_lookup(const ts_pathcache *c, uint32_t g)
{
    if (c->ldir)
        return c->ldir[g] - 1;
    if (!c->nlslots)
        return UINT32_MAX;
    size_t i = link_hash(g, c->nlslots - 1);
    while (c->lslots[i]) {
        if (c->gl[c->lslots[i] - 1] == g)
            return c->lslots[i] - 1;
        i = (i + 1) & (c->nlslots - 1);
    }
    return UINT32_MAX;
}

/* ---- the row layout ----
 * Used when the leaves are few next to the work (memory follows the work, DESIGN 3): a
 * leaf's usable up-links in spine order (its row) are read once, leaves with equal spine
 * sequences get one class, and a pair of distinct leaves of one class has exactly the
 * two-hop paths through the spines of that row, in that order (the listing's order: up_adj
 * is sorted by spine, and the listing keeps the spines both leaves reach over up trunks
 * and up spines). */

static int rows_fit(const ts_topo_paths *t, size_t work, size_t *nup)
{
    uint32_t nl = t->nleaves;
    size_t budget = 8 * work + 65536, s = nl;
    if (nl == 0 || nl > budget)
        return 0;
    for (uint32_t o = 0; o < nl && s <= budget; o++) {
        uint32_t x = t->leaves[o];
        s += t->up_off[x + 1] - t->up_off[x];
    }
    *nup = s - nl;
    return s <= budget;
}

/* Set up the per-leaf tables (once per cache) when they fit the work; without them every
 * pair is listed. Only memory can fail. */
static tsched_status rows_init(ts_pathcache *c, const ts_topo_paths *t, size_t work)
{
    size_t nup = 0;
    if (c->leaf || !rows_fit(t, work, &nup))
        return TSCHED_OK;
    uint32_t nl = t->nleaves;
    size_t ncs = 16;
    while (ncs < 2 * (size_t)nl)
        ncs *= 2;
    ts_leafrow *leaf = ts_malloc(nl, sizeof *leaf);
    uint32_t *rtr = ts_malloc(nup ? nup : 1, sizeof *rtr);
    uint32_t *cs = ts_calloc(ncs, sizeof *cs);
    if (!leaf || !rtr || !cs) {
        free(leaf);
        free(rtr);
        free(cs);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t o = 0; o < nl; o++)
        leaf[o] = (ts_leafrow){0, 0, TS_NO_CLASS, TS_BLOCK_NONE, TS_BLOCK_NONE};
    c->leaf = leaf;
    c->nleaves = nl;
    c->rtr = rtr;
    c->nrow = 0;
    c->cslots = cs;
    c->ncslots = ncs;
    return links_reserve(c, t, 2 * nup); /* every block, sized once */
}

/* Read leaf x's row and class (L = its entry, not read yet). */
static void leaf_row(ts_pathcache *c, const ts_topo_paths *t, uint32_t x, ts_leafrow *L)
{
    uint32_t n = 0, *tr = c->rtr + c->nrow, prev = 0;
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    int sorted = 1;
    if (t->sw_up[x])
        for (const ts_adj *u = t->up_adj + t->up_off[x], *ue = t->up_adj + t->up_off[x + 1]; u < ue; u++) {
            if (!t->tr_up[u->trunk] || !t->sw_up[u->sw])
                continue;
            sorted &= n == 0 || prev < u->sw; /* one trunk per spine, in spine order */
            prev = u->sw;
            h = (h ^ u->sw) * 0xbf58476d1ce4e5b9ULL;
            tr[n++] = u->trunk;
        }
    L->row = (uint32_t)c->nrow + 1;
    L->len = n;
    c->nrow += n;
    if (!n || !sorted)
        return; /* no class: its pairs are listed */
    size_t mask = c->ncslots - 1, i = (size_t)(h >> 32) & mask;
    for (; c->cslots[i]; i = (i + 1) & mask) {
        const ts_leafrow *R = &c->leaf[c->cslots[i] - 1];
        const uint32_t *rt = c->rtr + R->row - 1;
        uint32_t k = 0;
        if (R->len == n)
            while (k < n && t->tr_upper[rt[k]] == t->tr_upper[tr[k]])
                k++;
        if (R->len == n && k == n) {
            L->cls = R->cls;
            return;
        }
    }
    L->cls = t->sw_ord[x];
    c->cslots[i] = L->cls + 1;
}

/* Number leaf L's up (or down) block: its row's links get consecutive compact ids, unless
 * one of them already has an id (met by a listed pair earlier), in which case the leaf's
 * pairs are listed (TS_BLOCK_BAD). Only memory can fail. */
static tsched_status number_block(ts_pathcache *c, const ts_topo_paths *t, ts_leafrow *L, int down)
{
    const uint32_t *tr = c->rtr + L->row - 1;
    uint32_t *blk = down ? &L->dn : &L->up, base = (uint32_t)c->ngl, n = L->len;
    tsched_status st;
    if (c->ngl + n + 1 > c->gl_cap && (st = links_reserve(c, t, n)) != TSCHED_OK)
        return st;
    if (c->ldir) { /* the common case, without the generic lookups */
        uint32_t *dir = c->ldir, hit = 0;
        for (uint32_t k = 0; k < n; k++)
            hit |= dir[2 * tr[k] + (uint32_t)down];
        if (hit) {
            *blk = TS_BLOCK_BAD;
            return TSCHED_OK;
        }
        for (uint32_t k = 0; k < n; k++) {
            uint32_t g = 2 * tr[k] + (uint32_t)down;
            c->gl[base + k] = g;
            dir[g] = base + k + 1;
        }
        c->ngl += n;
        *blk = base;
        return TSCHED_OK;
    }
    if ((st = links_reserve(c, t, n)) != TSCHED_OK) /* the hash: at most half full */
        return st;
    for (uint32_t k = 0; k < n; k++)
        if (link_lookup(c, 2 * tr[k] + (uint32_t)down) != UINT32_MAX) {
            *blk = TS_BLOCK_BAD;
            return TSCHED_OK;
        }
    *blk = base;
    for (uint32_t k = 0; k < n; k++)
        link_id(c, 2 * tr[k] + (uint32_t)down);
    return TSCHED_OK;
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

/* The direct pair table, when the leaves are few next to the work (it replaces the hash
 * for good). */
static tsched_status pairs_dir(ts_pathcache *c, const ts_topo_paths *t, size_t work)
{
    uint64_t nl = t->nleaves;
    if (c->pdir || nl == 0 || nl * nl > 4 * (uint64_t)work + 65536)
        return TSCHED_OK;
    uint32_t *dir = ts_calloc((size_t)(nl * nl), sizeof *dir);
    if (!dir)
        return TSCHED_E_NOMEM;
    for (uint32_t id = 0; id < c->npairs; id++)
        dir[(size_t)t->sw_ord[c->pairs[id].a] * nl + t->sw_ord[c->pairs[id].b]] = id + 1;
    free(c->slots);
    c->slots = NULL;
    c->nslots = 0;
    c->pdir = dir;
    c->nleaves = (uint32_t)nl;
    return TSCHED_OK;
}

/* Record the new pair (a, b) in slot *slot: a row pair complete (its leaves' blocks
 * numbered on first use), another with its path count in npaths (O(1)) and no paths yet:
 * fill_pairs() lists it. */
static tsched_status pair_new(uint32_t *id, uint32_t *slot, ts_pathcache *c, const ts_topo_paths *t, uint32_t a,
                              uint32_t b, int rows)
{
    tsched_status st;
    uint64_t cnt = UINT64_MAX;
    uint32_t off = 0, dn = TS_PAIR_LISTED, hops = 0;
    if (rows && c->leaf && a != b && t->sw_tier[a] == TSCHED_TIER_LEAF && t->sw_tier[b] == TSCHED_TIER_LEAF) {
        ts_leafrow *la = &c->leaf[t->sw_ord[a]], *lb = &c->leaf[t->sw_ord[b]];
        if (!la->row)
            leaf_row(c, t, a, la);
        if (!lb->row)
            leaf_row(c, t, b, lb);
        if (la->cls != TS_NO_CLASS && la->cls == lb->cls) {
            /* the same spines in the same order: the paths are the two blocks */
            if ((la->up == TS_BLOCK_NONE && (st = number_block(c, t, la, 0)) != TSCHED_OK) ||
                (lb->dn == TS_BLOCK_NONE && (st = number_block(c, t, lb, 1)) != TSCHED_OK))
                return st;
            cnt = la->len;
            if (la->up != TS_BLOCK_BAD && lb->dn != TS_BLOCK_BAD) {
                off = la->up;
                dn = lb->dn;
                hops = 2;
            }
        }
    }
    if (cnt == UINT64_MAX)
        cnt = ts_leaf_count(t->topo, a, b);
    if (cnt > UINT32_MAX / 8)
        return ts_error(TSCHED_E_TOO_LARGE, "leaves \"%s\" and \"%s\": %llu equal-cost paths, more than the %u a pair "
                        "may have", tsched_topology_switch_name(t->topo, a), tsched_topology_switch_name(t->topo, b),
                        (unsigned long long)cnt, UINT32_MAX / 8);
    if (c->npairs + 1 > c->pairs_cap && (st = TS_GROW(c->pairs, c->pairs_cap, (size_t)c->npairs + 1)) != TSCHED_OK)
        return st;
    ts_pair *p = &c->pairs[c->npairs];
    p->a = a;
    p->b = b;
    p->off = off;
    p->npaths = (uint32_t)cnt;
    p->hops = hops;
    p->dn = dn;
    *slot = c->npairs + 1;
    *id = c->npairs++;
    return TSCHED_OK;
}

/* Id of the pair (a, b); a new pair is only recorded (pair_new). */
static inline tsched_status pair_find(uint32_t *id, ts_pathcache *c, const ts_topo_paths *t, uint32_t a, uint32_t b,
                               int rows)
{
    tsched_status st;
    if (c->pdir) {
        uint32_t *slot = &c->pdir[(size_t)t->sw_ord[a] * c->nleaves + t->sw_ord[b]];
        if (*slot) {
            *id = *slot - 1;
            return TSCHED_OK;
        }
        return pair_new(id, slot, c, t, a, b, rows);
    }
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
    return pair_new(id, &c->slots[i], c, t, a, b, rows);
}

/* List the new pairs [from, npairs) that are not row pairs (recorded by pair_new) into
 * memory sized once from their counts: a path has at most twice the fabric's highest tier
 * links. */
static tsched_status fill_pairs(ts_pathcache *c, const ts_topo_paths *t, uint32_t from, const ts_deadline *d)
{
    tsched_status st;
    size_t maxh = t->max_hops, bound = 0, most = 0;
    uint32_t big = from;
    for (uint32_t q = from; q < c->npairs; q++) {
        const ts_pair *p = &c->pairs[q];
        if (p->dn == TS_PAIR_LISTED && p->a != p->b) {
            bound += (size_t)p->npaths * maxh;
            if (p->npaths > most) {
                most = p->npaths;
                big = q;
            }
        }
    }
    /* memory (and the time to fill it) stays bounded, and the uint32_t offsets never wrap */
    if (c->nlinks + bound > TS_PATH_LINKS_MAX) {
        const ts_pair *p = &c->pairs[big];
        return ts_error(TSCHED_E_TOO_LARGE,
                        "paths: the candidate paths of these flows' leaf pairs need %llu link entries (%llu bytes), "
                        "more than the budget of %llu bytes; the largest pair, leaves \"%s\" and \"%s\", has %u "
                        "equal-cost paths of up to %zu links",
                        (unsigned long long)(c->nlinks + bound), (unsigned long long)(c->nlinks + bound) * 4,
                        (unsigned long long)TS_PATH_LINKS_MAX * 4, tsched_topology_switch_name(t->topo, p->a),
                        tsched_topology_switch_name(t->topo, p->b), p->npaths, maxh);
    }
    if ((st = reserve(&c->links, &c->links_cap, c->nlinks + bound + 1)) != TSCHED_OK ||
        (st = links_reserve(c, t, bound)) != TSCHED_OK)
        return st;
    uint32_t listed = 0;
    for (uint32_t q = from; q < c->npairs; q++) {
        ts_pair *p = &c->pairs[q];
        if (p->dn != TS_PAIR_LISTED)
            continue;
        /* listing is what may take long: look at the clock after every 64 pairs */
        if (d && listed > 0 && listed % 64 == 0 &&
            (st = ts_deadline_check(d, "routing: listing the candidate paths")) != TSCHED_OK)
            return st;
        listed++;
        uint32_t *out = c->links + c->nlinks, hops;
        size_t n = ts_list_leaf_links(out, &hops, p->npaths, t->topo, p->a, p->b);
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

tsched_status ts_pathcache_get(uint32_t *id, ts_pathcache *c, const tsched_topology *topo, uint32_t a, uint32_t b)
{
    if (c->tv.topo != topo) /* first use: CRUX calls this per flow, so the view is kept */
        ts_topology_paths(&c->tv, topo);
    const ts_topo_paths *t = &c->tv;
    uint32_t from = c->npairs;
    tsched_status st = pair_find(id, c, t, a, b, 0);
    if (st == TSCHED_OK && c->npairs > from)
        st = fill_pairs(c, t, from, NULL);
    return st == TSCHED_OK ? st : drop(c, st);
}

/* Two passes: the flows' pairs are found first (a row pair is complete then; another gets
 * its O(1) count), then the new listed ones are listed into memory sized once. */
tsched_status ts_flows_pairs(uint32_t *pair_of, size_t stride, ts_pathcache *c, const tsched_topology *topo,
                             const ts_flows_view *f, const ts_deadline *d)
{
    ts_topology_paths(&c->tv, topo);
    const ts_topo_paths *t = &c->tv;
    uint32_t nn = t->nnodes;
    uint32_t from = c->npairs;
    size_t work = (size_t)f->n + c->npairs, nl = t->nleaves;
    tsched_status st = rows_init(c, t, work);
    if (st == TSCHED_OK && (st = pairs_dir(c, t, work)) == TSCHED_OK) {
        /* room for the new pairs: at most one per flow, and per leaf pair with the table */
        size_t more = f->n < 4096 ? f->n : 4096;
        if (c->pdir && nl * nl - c->npairs < more)
            more = nl * nl - c->npairs;
        if (c->npairs + more > c->pairs_cap)
            st = TS_GROW(c->pairs, c->pairs_cap, c->npairs + more);
    }
    if (st != TSCHED_OK)
        return drop(c, st);
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t s = f->src[i], dn = f->dst[i];
        if (s >= nn || dn >= nn)
            return drop(c, ts_error(TSCHED_E_INVALID, "flows[%u]: node %u does not exist in fabric \"%s\" (%u nodes)",
                                    i, s >= nn ? s : dn, tsched_topology_name(t->topo), nn));
        uint32_t a = f->src_nic[i] < t->node_nics[s] ? ts_nic_leaf(t, s, f->src_nic[i]) : TSCHED_NONE;
        uint32_t b = f->dst_nic[i] < t->node_nics[dn] ? ts_nic_leaf(t, dn, f->dst_nic[i]) : TSCHED_NONE;
        if (a == TSCHED_NONE || b == TSCHED_NONE)
            return drop(c, ts_error(TSCHED_E_INVALID, "flows[%u]: NIC %u of node \"%s\" does not exist", i,
                                    a == TSCHED_NONE ? f->src_nic[i] : f->dst_nic[i],
                                    tsched_topology_node_name(t->topo, a == TSCHED_NONE ? s : dn)));
        uint32_t *id = &pair_of[i * stride];
        if ((st = pair_find(id, c, t, a, b, 1)) != TSCHED_OK)
            return drop(c, st);
        /* the node itself must be up; its NIC's leaf is covered by the pair's paths (a down
         * leaf has none), so a rail node keeps its live rails when another rail fails */
        if (c->pairs[*id].npaths == 0 || !t->node_up[s] || !t->node_up[dn])
            return drop(c, ts_error(TSCHED_E_NO_PATH,
                                    "flows[%u]: no surviving path from \"%s\" NIC %u to \"%s\" NIC %u", i,
                                    tsched_topology_node_name(t->topo, s), f->src_nic[i], tsched_topology_node_name(t->topo, dn),
                                    f->dst_nic[i]));
    }
    if (c->npairs > from && (st = fill_pairs(c, t, from, d)) != TSCHED_OK)
        return drop(c, st);
    return TSCHED_OK;
}
