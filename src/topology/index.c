/* Derived state: free capacity per domain and the path-count index. Recomputed whole on
 * every up/down change (O(nodes + trunks)), so queries stay lock-free and O(1). */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "topology_internal.h"

int ts_switch_usable(const tsched_topology *t, uint32_t sw) { return t->sw_up[sw]; }

int ts_node_usable(const tsched_topology *t, uint32_t n)
{
    if (!t->node_up[n])
        return 0;
    if (t->node_rail[n] == UINT32_MAX)
        return t->sw_up[t->node_leaf[n]];
    for (uint32_t k = 0; k < t->node_nics[n]; k++)
        if (!t->sw_up[t->rail[t->node_rail[n] + k]])
            return 0;
    return 1;
}

uint32_t ts_trunk_between(const tsched_topology *t, uint32_t lower, uint32_t upper)
{
    uint32_t lo = t->up_off[lower], hi = t->up_off[lower + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t s = t->up_adj[mid].sw;
        if (s == upper)
            return t->up_adj[mid].trunk;
        if (s < upper)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

tsched_status ts_topology_recount_free(tsched_topology *t)
{
    uint32_t np = ts_strtab_count(&t->pod_names);
    memset(t->leaf_free, 0, t->nswitches * sizeof(uint32_t));
    memset(t->pod_free, 0, np * sizeof(uint32_t));
    t->cluster_free = 0;
    t->free_gpus = 0;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        if (!ts_node_usable(t, n))
            continue;
        t->free_gpus += t->node_free[n];
        if (t->node_free[n] != t->node_gpus[n])
            continue;
        uint32_t leaf = t->node_leaf[n];
        t->leaf_free[leaf]++;
        if (t->sw_pod[leaf] != UINT32_MAX)
            t->pod_free[t->sw_pod[leaf]]++;
        t->cluster_free++;
    }
    return TSCHED_OK;
}

/* ---- profiles: leaves with identical usable spine sets / core multisets share one ---- */

typedef struct prof_builder {
    ts_profiles *p;
    size_t items_len, items_cap, off_cap;
    uint32_t *slots; /* open addressing: profile id + 1 */
    uint32_t *hashes;
    size_t nslots, hashes_cap;
} prof_builder;

static uint32_t hash_items(const uint32_t *a, uint32_t n)
{
    uint32_t h = 2166136261u ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= a[i];
        h *= 16777619u;
        h ^= h >> 15;
    }
    return h;
}

static tsched_status pb_rehash(prof_builder *b, size_t nslots)
{
    uint32_t *slots = ts_calloc(nslots, sizeof *slots);
    if (!slots)
        return TSCHED_E_NOMEM;
    for (uint32_t id = 0; id < b->p->n; id++) {
        size_t i = b->hashes[id] & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(b->slots);
    b->slots = slots;
    b->nslots = nslots;
    return TSCHED_OK;
}

/* Find or add the profile holding items[0..n); its id goes to *id. */
static tsched_status pb_add(prof_builder *b, const uint32_t *items, uint32_t n, uint32_t *id)
{
    tsched_status st;
    ts_profiles *p = b->p;
    if ((p->n + 1) * 2 > b->nslots && (st = pb_rehash(b, b->nslots ? b->nslots * 2 : 64)) != TSCHED_OK)
        return st;
    uint32_t h = hash_items(items, n);
    size_t i = h & (b->nslots - 1);
    while (b->slots[i]) {
        uint32_t q = b->slots[i] - 1;
        uint32_t qn = p->off[q + 1] - p->off[q];
        if (b->hashes[q] == h && qn == n && memcmp(p->items + p->off[q], items, n * sizeof *items) == 0) {
            *id = q;
            return TSCHED_OK;
        }
        i = (i + 1) & (b->nslots - 1);
    }
    if ((st = TS_GROW(p->items, b->items_cap, b->items_len + n + 1)) != TSCHED_OK ||
        (st = TS_GROW(p->off, b->off_cap, (size_t)p->n + 2)) != TSCHED_OK ||
        (st = TS_GROW(b->hashes, b->hashes_cap, (size_t)p->n + 1)) != TSCHED_OK)
        return st;
    if (p->n == 0)
        p->off[0] = 0;
    if (n)
        memcpy(p->items + b->items_len, items, n * sizeof *items);
    b->items_len += n;
    p->off[p->n + 1] = (uint32_t)b->items_len;
    b->hashes[p->n] = h;
    b->slots[i] = p->n + 1;
    *id = p->n++;
    return TSCHED_OK;
}

static void pb_done(prof_builder *b)
{
    free(b->slots);
    free(b->hashes);
}

/* |A n B| of two sorted spine lists. */
static uint64_t count_spines(const ts_profiles *p, uint32_t a, uint32_t b)
{
    const uint32_t *x = p->items + p->off[a], *xe = p->items + p->off[a + 1];
    const uint32_t *y = p->items + p->off[b], *ye = p->items + p->off[b + 1];
    uint64_t c = 0;
    while (x < xe && y < ye) {
        if (*x == *y) {
            c++;
            x++;
            y++;
        } else if (*x < *y) {
            x++;
        } else {
            y++;
        }
    }
    return c;
}

/* Sum over common cores of mult_a * mult_b, lists of (core, mult) pairs sorted by core. */
static uint64_t count_cores(const ts_profiles *p, uint32_t a, uint32_t b)
{
    const uint32_t *x = p->items + p->off[a], *xe = p->items + p->off[a + 1];
    const uint32_t *y = p->items + p->off[b], *ye = p->items + p->off[b + 1];
    uint64_t c = 0;
    while (x < xe && y < ye) {
        if (x[0] == y[0]) {
            c += (uint64_t)x[1] * y[1];
            x += 2;
            y += 2;
        } else if (x[0] < y[0]) {
            x += 2;
        } else {
            y += 2;
        }
    }
    return c;
}

uint64_t ts_profile_count(const ts_profiles *p, int cores, uint32_t a, uint32_t b)
{
    if (p->matrix)
        return p->matrix[(size_t)a * p->n + b];
    return cores ? count_cores(p, a, b) : count_spines(p, a, b);
}

static tsched_status tabulate(ts_profiles *p, int cores)
{
    free(p->matrix);
    p->matrix = NULL;
    if (p->n > TS_MAX_PROFILE_MATRIX)
        return TSCHED_OK; /* counts are then merged on the fly */
    uint64_t *m = ts_malloc((size_t)p->n * p->n, sizeof *m);
    if (!m)
        return TSCHED_E_NOMEM;
    for (uint32_t a = 0; a < p->n; a++)
        for (uint32_t b = a; b < p->n; b++)
            m[(size_t)a * p->n + b] = m[(size_t)b * p->n + a] = cores ? count_cores(p, a, b) : count_spines(p, a, b);
    p->matrix = m;
    return TSCHED_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

tsched_status ts_topology_reindex(tsched_topology *t)
{
    tsched_status st = TSCHED_OK;
    t->version++;
    uint32_t nleaves = t->tier_count[TSCHED_TIER_LEAF], ns = t->nswitches;
    ts_profiles sp = {0}, cp = {0};
    prof_builder sb = {.p = &sp}, cb = {.p = &cp};
    uint32_t *lsp = ts_malloc(nleaves, sizeof *lsp), *lcp = ts_malloc(nleaves, sizeof *lcp);
    uint32_t *buf = ts_malloc(ns, sizeof *buf), *pairs = ts_malloc((size_t)ns * 2, sizeof *pairs);
    uint32_t *mult = ts_calloc(ns, sizeof *mult), *touched = ts_malloc(ns, sizeof *touched);
    if (!lsp || !lcp || !buf || !pairs || !mult || !touched) {
        st = TSCHED_E_NOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < nleaves; i++) {
        uint32_t leaf = t->tier_list[TSCHED_TIER_LEAF][i];
        uint32_t nsp = 0, ntouched = 0;
        if (t->sw_up[leaf]) {
            for (uint32_t a = t->up_off[leaf]; a < t->up_off[leaf + 1]; a++) {
                uint32_t s = t->up_adj[a].sw;
                if (!t->tr_up[t->up_adj[a].trunk] || !t->sw_up[s])
                    continue;
                buf[nsp++] = s;
                for (uint32_t c = t->up_off[s]; c < t->up_off[s + 1]; c++) {
                    uint32_t core = t->up_adj[c].sw;
                    if (!t->tr_up[t->up_adj[c].trunk] || !t->sw_up[core])
                        continue;
                    if (mult[core]++ == 0)
                        touched[ntouched++] = core;
                }
            }
        }
        qsort(touched, ntouched, sizeof *touched, cmp_u32);
        for (uint32_t k = 0; k < ntouched; k++) {
            pairs[2 * k] = touched[k];
            pairs[2 * k + 1] = mult[touched[k]];
            mult[touched[k]] = 0;
        }
        if ((st = pb_add(&sb, buf, nsp, &lsp[i])) != TSCHED_OK || (st = pb_add(&cb, pairs, 2 * ntouched, &lcp[i])) != TSCHED_OK)
            goto fail;
    }
    if ((st = tabulate(&sp, 0)) != TSCHED_OK || (st = tabulate(&cp, 1)) != TSCHED_OK)
        goto fail;
    free(t->leaf_sprof);
    free(t->leaf_cprof);
    free(t->sprof.off);
    free(t->sprof.items);
    free(t->sprof.matrix);
    free(t->cprof.off);
    free(t->cprof.items);
    free(t->cprof.matrix);
    t->leaf_sprof = lsp;
    t->leaf_cprof = lcp;
    t->sprof = sp;
    t->cprof = cp;
    pb_done(&sb);
    pb_done(&cb);
    free(buf);
    free(pairs);
    free(mult);
    free(touched);
    return ts_topology_recount_free(t);
fail:
    pb_done(&sb);
    pb_done(&cb);
    free(sp.off);
    free(sp.items);
    free(sp.matrix);
    free(cp.off);
    free(cp.items);
    free(cp.matrix);
    free(lsp);
    free(lcp);
    free(buf);
    free(pairs);
    free(mult);
    free(touched);
    return st;
}
