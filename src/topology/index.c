/* Derived state: free capacity per domain and the path-count index. Free counts are kept
 * exact by every state change (state.c, O(nodes touched)); the path index is rebuilt
 * lazily, once per burst of state changes, by the first count that needs it (see ts_index
 * in topology_internal.h). */
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

void ts_topology_recount_free(tsched_topology *t)
{
    uint32_t np = ts_strtab_count(&t->pod_names);
    memset(t->leaf_free, 0, t->nswitches * sizeof(uint32_t));
    if (np)
        memset(t->pod_free, 0, np * sizeof(uint32_t));
    if (t->nnvl)
        memset(t->nvl_free, 0, t->nnvl * sizeof(uint32_t));
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
        if (t->node_nvl[n] != UINT32_MAX)
            t->nvl_free[t->node_nvl[n]]++;
        t->cluster_free++;
    }
}

/* Nodes whose usability depends on each leaf: a single-leaf node on its leaf, a rail node
 * on each distinct leaf of its NICs. */
static tsched_status make_attachments(tsched_topology *t)
{
    uint32_t ns = t->nswitches;
    uint32_t *stamp = ts_malloc(ns, sizeof *stamp), *pos = NULL;
    if (!stamp || !(t->leaf_att_off = ts_calloc((size_t)ns + 1, sizeof(uint32_t))))
        goto nomem;
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t s = 0; s < ns; s++)
            stamp[s] = UINT32_MAX;
        for (uint32_t n = 0; n < t->nnodes; n++) {
            uint32_t k_end = t->node_rail[n] == UINT32_MAX ? 1 : t->node_nics[n];
            for (uint32_t k = 0; k < k_end; k++) {
                uint32_t leaf = t->node_rail[n] == UINT32_MAX ? t->node_leaf[n] : t->rail[t->node_rail[n] + k];
                if (stamp[leaf] == n)
                    continue;
                stamp[leaf] = n;
                if (pass == 0) {
                    t->leaf_att_off[leaf + 1]++;
                    total++;
                } else {
                    t->leaf_att_list[pos[leaf]++] = n;
                }
            }
        }
        if (pass == 0) {
            if (total > UINT32_MAX)
                return ts_error(TSCHED_E_TOO_LARGE, "nodes: %zu node-leaf attachments exceed %u", total, UINT32_MAX);
            for (uint32_t s = 0; s < ns; s++)
                t->leaf_att_off[s + 1] += t->leaf_att_off[s];
            if (!(t->leaf_att_list = ts_malloc(total, sizeof(uint32_t))) ||
                !(pos = ts_malloc((size_t)ns + 1, sizeof *pos)))
                goto nomem;
            memcpy(pos, t->leaf_att_off, ((size_t)ns + 1) * sizeof *pos);
        }
    }
    free(stamp);
    free(pos);
    return TSCHED_OK;
nomem:
    free(stamp);
    free(pos);
    return TSCHED_E_NOMEM;
}

/* ---- profiles: leaves with identical usable spine sets / core multisets share one ---- */

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

/* Grow a buffer of the lazy rebuild. Plain realloc, not ts_realloc: a query that runs out
 * of memory here still answers (see ts_index), so it must not leave an error behind. */
static int grow(void **ptr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / size)
        return 0;
    void *q = realloc(*ptr, n * size);
    if (!q)
        return 0;
    *ptr = q;
    *cap = n;
    return 1;
}

static void profiles_reset(ts_profiles *p)
{
    p->n = 0;
    p->items_len = 0;
    p->off[0] = 0;
    p->matrix = NULL;
    memset(p->slots, 0, p->nslots * sizeof *p->slots);
}

/* Find or add the profile holding items[0..n); its id goes to *id. The slot table and the
 * offsets are sized for one profile per leaf at build, so only the items may need memory:
 * 0 when they cannot get it. */
static int prof_add(ts_profiles *p, const uint32_t *items, uint32_t n, uint32_t *id)
{
    uint32_t h = hash_items(items, n);
    size_t i = h & (p->nslots - 1);
    while (p->slots[i]) {
        uint32_t q = p->slots[i] - 1;
        uint32_t qn = p->off[q + 1] - p->off[q];
        if (p->hashes[q] == h && qn == n && memcmp(p->items + p->off[q], items, n * sizeof *items) == 0) {
            *id = q;
            return 1;
        }
        i = (i + 1) & (p->nslots - 1);
    }
    if (!grow((void **)&p->items, &p->items_cap, p->items_len + n + 1, sizeof *p->items))
        return 0;
    if (n)
        memcpy(p->items + p->items_len, items, n * sizeof *items);
    p->items_len += n;
    p->off[p->n + 1] = (uint32_t)p->items_len;
    p->hashes[p->n] = h;
    p->slots[i] = p->n + 1;
    *id = p->n++;
    return 1;
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

/* The count table is an acceleration only: without memory for it, counts are merged on
 * the fly from the profiles (the same numbers). */
static void tabulate(ts_profiles *p, int cores)
{
    p->matrix = NULL;
    if (p->n > TS_MAX_PROFILE_MATRIX || !grow((void **)&p->mat_buf, &p->mat_cap, (size_t)p->n * p->n, sizeof(uint64_t)))
        return;
    uint64_t *m = p->mat_buf;
    for (uint32_t a = 0; a < p->n; a++)
        for (uint32_t b = a; b < p->n; b++)
            m[(size_t)a * p->n + b] = m[(size_t)b * p->n + a] = cores ? count_cores(p, a, b) : count_spines(p, a, b);
    p->matrix = m;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Rebuild every leaf's profiles from the current state, in the index's own buffers.
 * Returns 0 when the items could not grow (the index is then unusable). */
static int rebuild(const tsched_topology *t, ts_index *ix)
{
    uint32_t nleaves = t->tier_count[TSCHED_TIER_LEAF];
    profiles_reset(&ix->sprof);
    profiles_reset(&ix->cprof);
    uint32_t *buf = ix->buf, *pairs = ix->pairs, *mult = ix->mult, *touched = ix->touched;
    size_t raw_s = 0, raw_c = 0;
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
        raw_s += nsp;
        raw_c += 2 * (size_t)ntouched;
        if (!prof_add(&ix->sprof, buf, nsp, &ix->leaf_sprof[i]) ||
            !prof_add(&ix->cprof, pairs, 2 * ntouched, &ix->leaf_cprof[i]))
            return 0;
    }
    tabulate(&ix->sprof, 0);
    tabulate(&ix->cprof, 1);
    ix->raw_items[0] = raw_s;
    ix->raw_items[1] = raw_c;
    ix->rebuilds++;
    return 1;
}

void ts_index_refresh(const tsched_topology *t)
{
    ts_index *ix = t->ix;
    pthread_mutex_lock(&ix->lock);
    if (atomic_load_explicit(&ix->stale, memory_order_relaxed)) {
        ix->usable = rebuild(t, ix);
        atomic_store_explicit(&ix->stale, 0, memory_order_release);
    }
    pthread_mutex_unlock(&ix->lock);
}

void ts_index_drop(const tsched_topology *t)
{
    ts_index *ix = t->ix;
    pthread_mutex_lock(&ix->lock);
    ix->usable = 0;
    atomic_store_explicit(&ix->stale, 0, memory_order_release);
    pthread_mutex_unlock(&ix->lock);
}

static tsched_status profiles_init(ts_profiles *p, uint32_t nleaves)
{
    size_t nslots = 64;
    while (nslots < 2 * ((size_t)nleaves + 1))
        nslots *= 2;
    p->nslots = nslots;
    if (!(p->slots = ts_calloc(nslots, sizeof *p->slots)) || !(p->hashes = ts_malloc(nleaves, sizeof *p->hashes)) ||
        !(p->off = ts_malloc((size_t)nleaves + 1, sizeof *p->off)))
        return TSCHED_E_NOMEM;
    return TSCHED_OK;
}

static void profiles_free(ts_profiles *p)
{
    free(p->off);
    free(p->items);
    free(p->mat_buf);
    free(p->slots);
    free(p->hashes);
}

void ts_topology_index_free(tsched_topology *t)
{
    ts_index *ix = t->ix;
    if (!ix)
        return;
    pthread_mutex_destroy(&ix->lock);
    free(ix->leaf_sprof);
    free(ix->leaf_cprof);
    profiles_free(&ix->sprof);
    profiles_free(&ix->cprof);
    free(ix->buf);
    free(ix->pairs);
    free(ix->mult);
    free(ix->touched);
    free(ix);
    t->ix = NULL;
}

tsched_status ts_topology_index_init(tsched_topology *t)
{
    tsched_status st;
    uint32_t nleaves = t->tier_count[TSCHED_TIER_LEAF], ns = t->nswitches;
    if ((st = make_attachments(t)) != TSCHED_OK)
        return st;
    ts_topology_recount_free(t);
    ts_index *ix = ts_calloc(1, sizeof *ix);
    if (!ix)
        return TSCHED_E_NOMEM;
    if (pthread_mutex_init(&ix->lock, NULL) != 0) {
        free(ix);
        return ts_error(TSCHED_E_NOMEM, "tsched_topology_build: cannot create the path index lock");
    }
    atomic_init(&ix->stale, 0);
    t->ix = ix;
    if (!(ix->leaf_sprof = ts_malloc(nleaves, sizeof(uint32_t))) ||
        !(ix->leaf_cprof = ts_malloc(nleaves, sizeof(uint32_t))) || !(ix->buf = ts_malloc(ns, sizeof(uint32_t))) ||
        !(ix->pairs = ts_malloc((size_t)ns * 2, sizeof(uint32_t))) || !(ix->mult = ts_calloc(ns, sizeof(uint32_t))) ||
        !(ix->touched = ts_malloc(ns, sizeof(uint32_t))) || (st = profiles_init(&ix->sprof, nleaves)) != TSCHED_OK ||
        (st = profiles_init(&ix->cprof, nleaves)) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    if (!rebuild(t, ix))
        return ts_error(TSCHED_E_NOMEM, "tsched_topology_build: out of memory for the path index");
    /* Reserve now what any later state can need, so that a lazy rebuild does not allocate:
     * a state change only removes spines and cores from a leaf's reach, so the all-up
     * items without sharing bound every later profile set, and the table never exceeds
     * TS_MAX_PROFILE_MATRIX squared. Past TS_INDEX_RESERVE items (pathological fabrics) the
     * buffers grow on demand, with the adjacency walk as the fallback. */
    size_t tab = nleaves < TS_MAX_PROFILE_MATRIX ? nleaves : TS_MAX_PROFILE_MATRIX;
    for (int k = 0; k < 2; k++) {
        ts_profiles *p = k ? &ix->cprof : &ix->sprof;
        size_t need = ix->raw_items[k] + 1;
        if (need <= TS_INDEX_RESERVE && !grow((void **)&p->items, &p->items_cap, need, sizeof *p->items))
            return ts_error(TSCHED_E_NOMEM, "tsched_topology_build: out of memory for the path index");
        if (!grow((void **)&p->mat_buf, &p->mat_cap, tab * tab, sizeof *p->mat_buf))
            return ts_error(TSCHED_E_NOMEM, "tsched_topology_build: out of memory for the path index");
        tabulate(p, k); /* the table may have moved */
    }
    ix->usable = 1;
    return TSCHED_OK;
}
