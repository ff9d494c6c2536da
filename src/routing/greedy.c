/* Algorithm 1 (greedy least-congested path assignment) and its component-parallel run
 * (§3.4.3). Flows that can never share a link form independent components: routing each
 * component's flows in their original order gives exactly the sequential answer, so the
 * components can go to different threads. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "routing_internal.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TS_ROWS_AVX2 1

/* ts_rows_least_loaded() on 8 paths at a time: the smallest busiest link in one pass, then
 * the first path that has it (the same answer as the plain loop). */
__attribute__((target("avx2"))) static uint32_t rows_avx2(const uint32_t *up, const uint32_t *down, uint32_t n,
                                                         uint32_t *value)
{
    uint32_t k = 0, m;
    __m256i vm = _mm256_set1_epi32(-1);
    for (; k + 8 <= n; k += 8)
        vm = _mm256_min_epu32(vm, _mm256_max_epu32(_mm256_loadu_si256((const __m256i *)(const void *)(up + k)),
                                                   _mm256_loadu_si256((const __m256i *)(const void *)(down + k))));
    __m128i x = _mm_min_epu32(_mm256_castsi256_si128(vm), _mm256_extracti128_si256(vm, 1));
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0x4e));
    x = _mm_min_epu32(x, _mm_shuffle_epi32(x, 0xb1));
    m = (uint32_t)_mm_cvtsi128_si32(x);
    for (uint32_t j = k; j < n; j++) {
        uint32_t v = up[j] > down[j] ? up[j] : down[j];
        m = v < m ? v : m;
    }
    if (value)
        *value = m;
    /* the paths at the minimum as bits, 64 paths at a time: no branch on the data inside */
    __m256i vb = _mm256_set1_epi32((int)m);
    for (k = 0; k + 8 <= n;) {
        uint64_t bits = 0;
        uint32_t base = k;
        for (; k + 8 <= n && k - base < 64; k += 8) {
            __m256i v = _mm256_max_epu32(_mm256_loadu_si256((const __m256i *)(const void *)(up + k)),
                                         _mm256_loadu_si256((const __m256i *)(const void *)(down + k)));
            bits |= (uint64_t)(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, vb)))
                    << (k - base);
        }
        if (bits)
            return base + (uint32_t)__builtin_ctzll(bits);
    }
    while ((up[k] > down[k] ? up[k] : down[k]) != m)
        k++;
    return k;
}
#endif

uint32_t ts_rows_least_loaded(const uint32_t *up, const uint32_t *down, uint32_t n, uint32_t *value)
{
#ifdef TS_ROWS_AVX2
    if (n >= 8 && __builtin_cpu_supports("avx2"))
        return rows_avx2(up, down, n, value);
#endif
    uint32_t best = 0, m = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t v = up[k] > down[k] ? up[k] : down[k];
        m = v < m ? v : m;
    }
    while ((up[best] > down[best] ? up[best] : down[best]) != m)
        best++;
    if (value)
        *value = m;
    return best;
}

static void route_flow(tsched_routes *r, uint32_t i)
{
    const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
    uint32_t k = ts_least_loaded(r->cache, p, r->load, NULL);
    r->pidx[i] = k;
    ts_pair_load(r->load, r->cache, p, k);
}

/* route_flow() writing the path into the result at once (greedy's own runs: nothing
 * changes a choice afterwards), so that pidx is never written or read again. */
static void route_put(tsched_routes *r, uint32_t i)
{
    const ts_pair *p = &r->cache->pairs[ts_route_pair(r, i)];
    uint32_t k = ts_least_loaded(r->cache, p, r->load, NULL);
    ts_pair_load(r->load, r->cache, p, k);
    ts_route_put(r, p, i, k);
}

/* ---- components ---- */

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a != b) {
        if (a < b)
            parent[b] = a;
        else
            parent[a] = b;
    }
}

/* Pairs that can share a link are joined: every candidate link of a pair is a key, so
 * two pairs in different components have no link in common. Union-find runs over pairs
 * and links, not flows, so it costs O(distinct pairs x paths). */
static tsched_status pair_components(uint32_t *comp_of_pair, const tsched_routes *r)
{
    uint32_t np = r->cache->npairs, nl = r->nlinks;
    uint32_t *parent = ts_malloc((size_t)np + nl, sizeof *parent);
    if (!parent)
        return TSCHED_E_NOMEM;
    for (uint32_t x = 0; x < np + nl; x++)
        parent[x] = x;
    const ts_pathcache *c = r->cache;
    for (uint32_t q = 0; q < np; q++) {
        const ts_pair *p = &c->pairs[q];
        if (p->dn != TS_PAIR_LISTED) { /* a row pair: its two blocks, joined below */
            uf_union(parent, q, np + p->off);
            uf_union(parent, q, np + p->dn);
            continue;
        }
        for (uint32_t k = 0; k < p->npaths; k++)
            for (uint32_t h = 0; h < p->hops; h++)
                uf_union(parent, q, np + ts_pair_link(c, p, k, h));
    }
    /* every link of a block joined to its first: the sets of joining each row pair to every
     * link of its blocks (a block is numbered for a row pair; when that pair's other block
     * could not be, the sets are coarser, which changes no answer) */
    for (uint32_t o = 0; c->leaf && o < c->nleaves; o++) {
        const ts_leafrow *L = &c->leaf[o];
        for (int d = 0; d < 2; d++) {
            uint32_t b = d ? L->dn : L->up;
            for (uint32_t k = 1; b < TS_BLOCK_BAD && k < L->len; k++)
                uf_union(parent, np + b, np + b + k);
        }
    }
    for (uint32_t q = 0; q < np; q++)
        comp_of_pair[q] = uf_find(parent, q);
    free(parent);
    return TSCHED_OK;
}

typedef struct worker {
    tsched_routes *r;
    const uint32_t *order;  /* flow indices grouped by component, original order inside */
    const uint32_t *cstart; /* component c's flows: order[cstart[c] .. cstart[c + 1]) */
    const uint32_t *comps;  /* the components this worker routes */
    uint32_t ncomps;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (uint32_t i = 0; i < w->ncomps; i++) {
        uint32_t c = w->comps[i];
        for (uint32_t j = w->cstart[c]; j < w->cstart[c + 1]; j++)
            route_put(w->r, w->order[j]);
    }
    return NULL;
}

typedef struct comp_size {
    uint32_t comp, size;
} comp_size;

static int cmp_comp_size(const void *a, const void *b)
{
    const comp_size *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->comp < y->comp ? -1 : x->comp > y->comp;
}

static tsched_status route_parallel(tsched_routes *r, uint32_t threads)
{
    tsched_status st = TSCHED_OK;
    uint32_t np = r->cache->npairs, n = r->n, ncomp = 0;
    uint32_t *comp_of_pair = ts_malloc(np, sizeof *comp_of_pair), *id = ts_malloc((size_t)np + r->nlinks, sizeof *id);
    uint32_t *cstart = NULL, *order = NULL, *owner_comps = NULL, *owner_count = NULL, *owner_off = NULL;
    comp_size *sizes = NULL;
    worker *ws = NULL;
    pthread_t *th = NULL;
    if (!comp_of_pair || !id || (st = pair_components(comp_of_pair, r)) != TSCHED_OK) {
        st = st ? st : TSCHED_E_NOMEM;
        goto out;
    }
    /* dense component ids in order of first pair */
    for (uint32_t x = 0; x < np + r->nlinks; x++)
        id[x] = UINT32_MAX;
    for (uint32_t q = 0; q < np; q++) {
        if (id[comp_of_pair[q]] == UINT32_MAX)
            id[comp_of_pair[q]] = ncomp++;
        comp_of_pair[q] = id[comp_of_pair[q]];
    }
    if (ncomp < 2 || threads < 2) {
        for (uint32_t i = 0; i < n; i++)
            route_put(r, i);
        r->placed = 1;
        goto out;
    }
    /* counting sort of flows by component, keeping the original order inside each */
    if (!(cstart = ts_calloc((size_t)ncomp + 1, sizeof *cstart)) || !(order = ts_malloc(n, sizeof *order)) ||
        !(sizes = ts_malloc(ncomp, sizeof *sizes)) || !(owner_comps = ts_malloc(ncomp, sizeof *owner_comps)) ||
        !(owner_count = ts_calloc(threads, sizeof *owner_count)) ||
        !(owner_off = ts_calloc((size_t)threads + 1, sizeof *owner_off)) || !(ws = ts_calloc(threads, sizeof *ws)) ||
        !(th = ts_malloc(threads, sizeof *th))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        cstart[comp_of_pair[ts_route_pair(r, i)] + 1]++;
    for (uint32_t c = 0; c < ncomp; c++) {
        sizes[c] = (comp_size){c, cstart[c + 1]};
        cstart[c + 1] += cstart[c];
    }
    {
        uint32_t *pos = id; /* reuse: ncomp <= np + nlinks */
        memcpy(pos, cstart, ncomp * sizeof *pos);
        for (uint32_t i = 0; i < n; i++)
            order[pos[comp_of_pair[ts_route_pair(r, i)]]++] = i;
    }
    /* largest components first, each to the least loaded thread (LPT); which thread routes a
     * component does not change any answer */
    qsort(sizes, ncomp, sizeof *sizes, cmp_comp_size);
    uint64_t *tload = ts_calloc(threads, sizeof *tload);
    uint32_t *owner = ts_malloc(ncomp, sizeof *owner);
    if (!tload || !owner) {
        free(tload);
        free(owner);
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t k = 0; k < ncomp; k++) {
        uint32_t best = 0;
        for (uint32_t w = 1; w < threads; w++)
            if (tload[w] < tload[best])
                best = w;
        tload[best] += sizes[k].size;
        owner[k] = best;
        owner_count[best]++;
    }
    for (uint32_t w = 0; w < threads; w++)
        owner_off[w + 1] = owner_off[w] + owner_count[w];
    memset(owner_count, 0, threads * sizeof *owner_count);
    for (uint32_t k = 0; k < ncomp; k++)
        owner_comps[owner_off[owner[k]] + owner_count[owner[k]]++] = sizes[k].comp;
    free(tload);
    free(owner);
    uint8_t started[64] = {0};
    for (uint32_t w = 1; w < threads; w++) {
        ws[w] = (worker){r, order, cstart, owner_comps + owner_off[w], owner_off[w + 1] - owner_off[w]};
        started[w] = pthread_create(&th[w], NULL, work, &ws[w]) == 0;
    }
    ws[0] = (worker){r, order, cstart, owner_comps, owner_off[1]};
    work(&ws[0]);
    for (uint32_t w = 1; w < threads; w++) {
        if (started[w])
            pthread_join(th[w], NULL);
        else
            work(&ws[w]); /* no thread could be made: route it here, the answer is the same */
    }
    r->placed = 1;
out:
    free(comp_of_pair);
    free(id);
    free(cstart);
    free(order);
    free(sizes);
    free(owner_comps);
    free(owner_count);
    free(owner_off);
    free(ws);
    free(th);
    return st;
}

tsched_status ts_route_greedy_until(tsched_routes *r, const ts_deadline *d)
{
    for (uint32_t i = 0; i < r->n; i++) {
        if ((i & 1023) == 1023) {
            tsched_status st = ts_deadline_check(d, "routing ILP: greedy start");
            if (st != TSCHED_OK)
                return st;
        }
        route_flow(r, i);
    }
    return TSCHED_OK;
}

tsched_status ts_route_greedy(tsched_routes *r, const ts_flows_view *f, uint32_t threads)
{
    (void)f;
    if (threads > 64)
        threads = 64;
    if (threads < 2) {
        for (uint32_t i = 0; i < r->n; i++)
            route_put(r, i);
        r->placed = 1;
        return TSCHED_OK;
    }
    return route_parallel(r, threads);
}
