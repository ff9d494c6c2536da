/* The fluid-sharing kernel (fluid.h): progressive filling with an indexed heap of links.
 *
 * Why a heap is exact: when the link with the smallest share freezes its flows, every other
 * link's share stays the same or grows, so bottlenecks come off in increasing order of
 * share and each link moves in the heap only when one of its flows freezes.
 *
 * Layout for locality: each link keeps its flows as records stored one after another, a
 * record being the flow's position followed by the flow's other links (the last one marked
 * by the top bit), so freezing a flow reads the words right after the one that named it
 * instead of two dependent random loads (offset, then link list); frozen flows are a
 * bitset. Flows of more than REC_INLINE links (O(h^2) words inline) get a two-word record
 * that sends the reader to their link list instead. Flows are positioned by (level, index),
 * so a link's records are in level order and a per-link cursor walks each record once over
 * all levels.
 *
 * Arithmetic, in the same order on every value: a link's remaining capacity loses the
 * bottleneck's share once per flow (and per crossing) frozen on it, bottlenecks come off in
 * the same order (smallest share, ties to the lower link), a link's key is its remaining
 * capacity over its unfrozen flows of the level. Keys are only read when a link reaches the
 * top, so a link touched several times while one bottleneck's flows freeze moves in the
 * heap once, with its last key. */
#include "fluid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

#define REC_LAST UINT32_C(0x80000000)
#define REC_NONE UINT32_C(0x7fffffff) /* the only other word of a flow with one link */
#define REC_FAR UINT32_C(0x7ffffffe)  /* a long flow: read its link list */
#define REC_INLINE 32
/* Lists of flows (the simulator's entry points): a component there settles in a round or
 * two, so the O(h^2) inline records cost more to build than they save; every flow gets a
 * two-word record that sends the reader to its link list (O(h) words per flow). */
#define REC_INLINE_LISTS 0
/* Ties with the bottleneck: see tied() */
#define TIE_ULPS 4

struct ts_fluid {
    /* per link of a solve (capacity lcap) */
    size_t lcap;
    size_t *roff, *cur;        /* records of link l: rec[roff[l] .. roff[l+1]), cursor */
    uint32_t *active, *seen, *touched, *ha, *hpos, *took; /* took: flows frozen on the link */
    double *rem, *hkey, *cap;  /* remaining, heap key, capacity (lists and touched solves) */
    /* per flow of a solve (capacity fcap; the lists: lfcap) */
    size_t fcap, lfcap;
    uint64_t *frozen;          /* by position */
    uint32_t *ord, *grp;       /* position -> flow (NULL: identity); end position of each level */
    uint32_t *foff, *flev, *fn;
    const uint32_t **fl;
    double *rate;              /* ts_fluid_solve_touched's answer */
    uint32_t *lvl_cnt;         /* counting sort of levels */
    size_t lvl_cap;
    uint64_t *lvl_key;         /* sort of (level, flow) when levels are spread out */
    size_t key_cap;
    uint32_t *rec, *flink;
    size_t rec_cap, flink_cap;
    /* per link and flow id of a network (ts_fluid_net) */
    uint32_t *gmark, *gmap, *fmark;
    size_t gcap, gfcap;
    uint32_t epoch;
    uint32_t *gl, *cf, *stack; /* a solve's distinct network links, flows, search stack */
    size_t gl_cap, cf_cap, stack_cap;
    uint32_t nres;             /* links of the last solve (ts_fluid_residue) */
};

tsched_status ts_fluid_new(ts_fluid **out)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "ts_fluid_new: out is NULL");
    *out = ts_calloc(1, sizeof **out);
    return *out ? TSCHED_OK : TSCHED_E_NOMEM;
}

void ts_fluid_free(ts_fluid *w)
{
    if (!w)
        return;
    void *p[] = {w->roff, w->cur,  w->active, w->seen,    w->touched, w->ha,   w->hpos, w->took, w->rem,   w->hkey,
                 w->cap,  w->frozen, w->ord,  w->grp,     w->foff,    w->flev, w->fn,    (void *)w->fl,
                 w->rate, w->lvl_cnt, w->lvl_key, w->rec, w->flink,   w->gmark, w->gmap, w->fmark, w->gl,
                 w->cf,   w->stack};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    free(w);
}

/* ---- workspace sizes ------------------------------------------------------------------- */

/* realloc *p to n elements of size bytes; the old block stays on failure. */
static int resize(void *p, size_t n, size_t size)
{
    void *q = ts_realloc(*(void **)p, n ? n : 1, size);
    if (!q)
        return 0;
    *(void **)p = q;
    return 1;
}

static size_t next_cap(size_t have, size_t need)
{
    size_t c = have ? have : 16;
    while (c < need)
        c *= 2;
    return c;
}

static tsched_status need_links(ts_fluid *w, size_t nl)
{
    if (nl + 1 <= w->lcap)
        return TSCHED_OK;
    size_t c = next_cap(w->lcap, nl + 1);
    if (!resize(&w->roff, c, sizeof(size_t)) || !resize(&w->cur, c, sizeof(size_t)) ||
        !resize(&w->active, c, sizeof(uint32_t)) || !resize(&w->seen, c, sizeof(uint32_t)) ||
        !resize(&w->touched, c, sizeof(uint32_t)) || !resize(&w->ha, c, sizeof(uint32_t)) ||
        !resize(&w->hpos, c, sizeof(uint32_t)) || !resize(&w->took, c, sizeof(uint32_t)) ||
        !resize(&w->rem, c, sizeof(double)) ||
        !resize(&w->hkey, c, sizeof(double)) || !resize(&w->cap, c, sizeof(double)))
        return TSCHED_E_NOMEM;
    w->lcap = c;
    return TSCHED_OK;
}

static tsched_status need_flows(ts_fluid *w, size_t nf)
{
    if (nf + 1 <= w->fcap)
        return TSCHED_OK;
    size_t c = next_cap(w->fcap, nf + 1);
    if (!resize(&w->frozen, c / 64 + 1, sizeof(uint64_t)) || !resize(&w->ord, c, sizeof(uint32_t)) ||
        !resize(&w->grp, c, sizeof(uint32_t)))
        return TSCHED_E_NOMEM;
    w->fcap = c;
    return TSCHED_OK;
}

/* Flows given as lists (the two entry points over a network). */
static tsched_status need_lists(ts_fluid *w, size_t nf)
{
    tsched_status st = need_flows(w, nf);
    if (st != TSCHED_OK || nf + 1 <= w->lfcap)
        return st;
    size_t c = next_cap(w->lfcap, nf + 1);
    if (!resize(&w->foff, c, sizeof(uint32_t)) || !resize(&w->flev, c, sizeof(uint32_t)) ||
        !resize(&w->fn, c, sizeof(uint32_t)) || !resize((void *)&w->fl, c, sizeof(uint32_t *)) ||
        !resize(&w->rate, c, sizeof(double)))
        return TSCHED_E_NOMEM;
    w->lfcap = c;
    return TSCHED_OK;
}

static tsched_status need_words(uint32_t **a, size_t *have, size_t n)
{
    if (n <= *have)
        return TSCHED_OK;
    size_t c = next_cap(*have, n);
    if (!resize(a, c, sizeof(uint32_t)))
        return TSCHED_E_NOMEM;
    *have = c;
    return TSCHED_OK;
}

/* Marks of a network's links and flows: epochs, so a search costs its component only. */
static tsched_status need_net(ts_fluid *w, const ts_fluid_net *net)
{
    if (net->nlinks > TS_FLUID_MAX_LINKS)
        return ts_error(TSCHED_E_TOO_LARGE, "fluid: net.nlinks %u, at most %u", net->nlinks, TS_FLUID_MAX_LINKS);
    if (net->nlinks > w->gcap) {
        size_t c = next_cap(w->gcap, net->nlinks);
        if (!resize(&w->gmark, c, sizeof(uint32_t)) || !resize(&w->gmap, c, sizeof(uint32_t)))
            return TSCHED_E_NOMEM;
        memset(w->gmark + w->gcap, 0, (c - w->gcap) * sizeof(uint32_t));
        w->gcap = c;
    }
    if (net->nflows > w->gfcap) {
        size_t c = next_cap(w->gfcap, net->nflows);
        if (!resize(&w->fmark, c, sizeof(uint32_t)))
            return TSCHED_E_NOMEM;
        memset(w->fmark + w->gfcap, 0, (c - w->gfcap) * sizeof(uint32_t));
        w->gfcap = c;
    }
    if (++w->epoch == 0) { /* wrapped: old marks could equal the new epoch */
        memset(w->gmark, 0, w->gcap * sizeof(uint32_t));
        memset(w->fmark, 0, w->gfcap * sizeof(uint32_t));
        w->epoch = 1;
    }
    return TSCHED_OK;
}

/* ---- the indexed heap of links, keyed by share (ties to the lower link) ------------------ */

typedef struct heap {
    uint32_t *a, *pos;
    const double *key;
    uint32_t n;
} heap;

static inline int hless(const heap *h, uint32_t x, uint32_t y)
{
    return h->key[x] < h->key[y] || (h->key[x] == h->key[y] && x < y);
}

static inline void hswap(heap *h, uint32_t i, uint32_t j)
{
    uint32_t t = h->a[i];
    h->a[i] = h->a[j];
    h->a[j] = t;
    h->pos[h->a[i]] = i;
    h->pos[h->a[j]] = j;
}

/* Four children per node: half the depth of a binary heap, and the children of a node share
 * a cache line or two; the order of pops is (key, link id) whatever the arity. */
#define HEAP_D 4

static void sift_up(heap *h, uint32_t i)
{
    while (i > 0 && hless(h, h->a[i], h->a[(i - 1) / HEAP_D])) {
        hswap(h, i, (i - 1) / HEAP_D);
        i = (i - 1) / HEAP_D;
    }
}

static void sift_down(heap *h, uint32_t i)
{
    for (;;) {
        uint32_t c = HEAP_D * i + 1, m = i;
        if (c >= h->n)
            return;
        uint32_t e = h->n - c < HEAP_D ? h->n : c + HEAP_D;
        for (; c < e; c++)
            if (hless(h, h->a[c], h->a[m]))
                m = c;
        if (m == i)
            return;
        hswap(h, i, m);
        i = m;
    }
}

static void hremove(heap *h, uint32_t x)
{
    uint32_t i = h->pos[x];
    h->pos[x] = UINT32_MAX;
    if (--h->n == i)
        return;
    h->a[i] = h->a[h->n];
    h->pos[h->a[i]] = i;
    sift_down(h, i);
    sift_up(h, i);
}

/* ---- the solver -------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Flows in (level, index) order: w->ord (left NULL-equivalent when there is one level, the
 * common case) and the end position of each level in w->grp. Returns the number of levels,
 * 0 when out of memory. */
static uint32_t level_order(ts_fluid *w, int *identity, uint32_t nf, const uint32_t *lev)
{
    *identity = 1;
    w->grp[0] = nf;
    if (!lev || nf == 0)
        return 1;
    uint32_t lo = lev[0], hi = lev[0];
    for (uint32_t i = 1; i < nf; i++) {
        lo = lev[i] < lo ? lev[i] : lo;
        hi = lev[i] > hi ? lev[i] : hi;
    }
    if (lo == hi)
        return 1;
    *identity = 0;
    uint32_t ng = 0;
    if ((uint64_t)hi - lo < (uint64_t)nf + 64) { /* counting sort */
        size_t range = (size_t)(hi - lo) + 1;
        if (need_words(&w->lvl_cnt, &w->lvl_cap, range + 1) != TSCHED_OK)
            return 0;
        memset(w->lvl_cnt, 0, (range + 1) * sizeof *w->lvl_cnt);
        for (uint32_t i = 0; i < nf; i++)
            w->lvl_cnt[lev[i] - lo + 1]++;
        for (size_t v = 0; v < range; v++) {
            if (w->lvl_cnt[v + 1])
                w->grp[ng++] = w->lvl_cnt[v] + w->lvl_cnt[v + 1];
            w->lvl_cnt[v + 1] += w->lvl_cnt[v];
        }
        for (uint32_t i = 0; i < nf; i++)
            w->ord[w->lvl_cnt[lev[i] - lo]++] = i;
        return ng;
    }
    if (nf > w->key_cap) {
        size_t c = next_cap(w->key_cap, nf);
        if (!resize(&w->lvl_key, c, sizeof(uint64_t)))
            return 0;
        w->key_cap = c;
    }
    for (uint32_t i = 0; i < nf; i++)
        w->lvl_key[i] = (uint64_t)lev[i] << 32 | i;
    qsort(w->lvl_key, nf, sizeof *w->lvl_key, cmp_u64);
    for (uint32_t p = 0; p < nf; p++) {
        w->ord[p] = (uint32_t)w->lvl_key[p];
        if (p > 0 && w->lvl_key[p] >> 32 != w->lvl_key[p - 1] >> 32)
            w->grp[ng++] = p;
    }
    w->grp[ng++] = nf;
    return ng;
}

static tsched_status check_caps(const double *cap, uint32_t nl, const uint32_t *ids)
{
    for (uint32_t l = 0; l < nl; l++)
        if (isnan(cap[l]) || isinf(cap[l]))
            return ts_error(TSCHED_E_INVALID, "fluid: cap[%u] = %g, not a finite number", ids ? ids[l] : l, cap[l]);
    return TSCHED_OK;
}

/* One frozen flow's share off link x (arrays passed in: they stay in registers). */
static inline void take(double *rem, uint32_t *active, uint32_t *seen, uint32_t *touched, uint32_t *took, uint32_t x,
                        double share, uint32_t round, uint32_t *nt)
{
    rem[x] -= share;
    if (rem[x] < 0)
        rem[x] = 0; /* rounding */
    active[x]--;
    took[x]++;
    if (seen[x] != round) {
        seen[x] = round;
        touched[(*nt)++] = x;
    }
}

/* A link's new key after flows froze on it at the bottleneck's share s: rem / active, but
 * taken as s exactly when it is within TIE_ULPS ulp of s per flow frozen on the link (at least
 * 1). Such a link is tied with the bottleneck: in exact arithmetic (rem0 - k s) / (n - k) = s
 * when rem0 / n = s, and only the k subtractions' rounding tells them apart. Taking s keeps
 * symmetric links' flows at exactly equal rates, as a solver that freezes every link of the
 * minimal share at once gives them (the simulator's solver before the kernel). */
static inline double tied(double key, double s, uint32_t took)
{
    double tol = TIE_ULPS * DBL_EPSILON * s * (took > 1 ? took : 1);
    return fabs(key - s) <= tol ? s : key;
}

/* The fraction of its capacity a link whose last flows froze elsewhere may keep and still
 * count as saturated: TS_FLUID_SNAP, or TIE_ULPS ulp per flow frozen on it when more, since
 * each of those subtractions may round by up to half an ulp of the capacity; so a link
 * crossed by thousands of flows gives the levels below it exactly 0 too. */
static inline double snap(uint32_t took)
{
    double r = TIE_ULPS * DBL_EPSILON * (double)took;
    return r > TS_FLUID_SNAP ? r : TS_FLUID_SNAP;
}

/* The solve proper (w sized for nl links and nf flows), flows taken in the order `ord`
 * (position -> flow) with ngrp levels ending at w->grp[]. Inlined twice, so the common case
 * (one level, ord NULL) pays no indirection. */
static inline __attribute__((always_inline)) tsched_status
solve_in(ts_fluid *w, double *rate, uint32_t nf, const uint32_t *foff, const uint32_t *flink, const uint32_t *ord,
         uint32_t ngrp, uint32_t nl, const double *cap, uint32_t inl)
{
#define FLOW(p) (ord ? ord[p] : (p))
    size_t *roff = w->roff, *cur = w->cur;
    double *rem = w->rem;
    uint32_t *active = w->active, *seen = w->seen, *touched = w->touched, *took = w->took, hi0 = w->grp[0];
    memset(roff, 0, ((size_t)nl + 1) * sizeof *roff);
    memset(took, 0, (size_t)nl * sizeof *took);
    memset(active, 0, (size_t)nl * sizeof *active);
    memset(seen, 0, (size_t)nl * sizeof *seen);
    w->nres = 0;
    /* record sizes per link, the first level's flows per link, and the input's check */
    for (uint32_t p = 0; p < nf; p++) {
        uint32_t i = FLOW(p), len = foff[i + 1] - foff[i], first = p < hi0;
        if (foff[i + 1] < foff[i])
            return ts_error(TSCHED_E_INVALID, "fluid: foff[%u] = %u below foff[%u] = %u", i + 1, foff[i + 1], i,
                            foff[i]);
        size_t size = len > inl ? 2 : len > 1 ? len : 2;
        for (uint32_t k = foff[i]; k < foff[i + 1]; k++) {
            if (flink[k] >= nl)
                return ts_error(TSCHED_E_INVALID, "fluid: flink[%u] = %u, not below nlinks %u", k, flink[k], nl);
            roff[flink[k] + 1] += size;
            active[flink[k]] += first;
        }
    }
    for (uint32_t l = 0; l < nl; l++)
        roff[l + 1] += roff[l];
    tsched_status st = need_words(&w->rec, &w->rec_cap, roff[nl] ? roff[nl] : 1);
    if (st != TSCHED_OK)
        return st;
    uint32_t *rec = w->rec;
    uint64_t *frozen = w->frozen;
    memset(frozen, 0, ((size_t)nf / 64 + 1) * sizeof *frozen);
    memcpy(cur, roff, (size_t)nl * sizeof *cur);
    for (uint32_t p = 0; p < nf; p++) {
        uint32_t i = FLOW(p), b = foff[i], e = foff[i + 1];
        if (e - b > inl) {
            for (uint32_t k = b; k < e; k++) {
                uint32_t *r = rec + cur[flink[k]];
                r[0] = p;
                r[1] = REC_FAR | REC_LAST;
                cur[flink[k]] += 2;
            }
            continue;
        }
        if (b == e) {
            rate[i] = INFINITY; /* no link: nothing limits it */
            frozen[p / 64] |= UINT64_C(1) << (p % 64);
        }
        for (uint32_t k = b; k < e; k++) {
            uint32_t *r = rec + cur[flink[k]], m = 0;
            r[m++] = p;
            for (uint32_t j = b; j < e; j++)
                if (j != k)
                    r[m++] = flink[j];
            if (m == 1)
                r[m++] = REC_NONE;
            r[m - 1] |= REC_LAST;
            cur[flink[k]] += m;
        }
    }
    memcpy(cur, roff, (size_t)nl * sizeof *cur);
    heap h = {w->ha, w->hpos, w->hkey, 0};
    uint32_t n0 = 0;
    for (uint32_t l = 0; l < nl; l++) {
        rem[l] = cap[l] > 0 ? cap[l] : 0;
        h.pos[l] = UINT32_MAX;
        if (active[l])
            h.a[n0++] = l;
    }
    uint32_t round = 0, lo = 0;
    for (uint32_t g = 0; g < ngrp; lo = w->grp[g++]) {
        uint32_t hi = w->grp[g], n = g ? 0 : n0;
        for (uint32_t p = lo; g > 0 && p < hi; p++) { /* the first level was counted above */
            uint32_t i = FLOW(p);
            for (uint32_t k = foff[i]; k < foff[i + 1]; k++)
                if (active[flink[k]]++ == 0)
                    h.a[n++] = flink[k];
        }
        for (uint32_t j = 0; j < n; j++) {
            uint32_t x = h.a[j];
            w->hkey[x] = rem[x] / active[x];
            h.pos[x] = j;
        }
        h.n = n;
        for (uint32_t j = n / HEAP_D + 1; j-- > 0;)
            sift_down(&h, j);
        while (h.n > 0) {
            uint32_t l = h.a[0], nt = 0;
            double share = w->hkey[l];
            hremove(&h, l);
            round++;
            const uint32_t *r = rec + cur[l], *end = rec + roff[l + 1];
            while (r < end && *r < hi) {
                uint32_t p = *r++;
                uint64_t bit = UINT64_C(1) << (p % 64);
                if (frozen[p / 64] & bit) { /* frozen by another link, or a level above */
                    while (!(*r++ & REC_LAST))
                        ;
                    continue;
                }
                frozen[p / 64] |= bit;
                rate[FLOW(p)] = share;
                uint32_t word;
                do {
                    word = *r++;
                    uint32_t x = word & ~REC_LAST;
                    if (x == l)
                        continue;
                    if (x >= REC_FAR) {
                        uint32_t i = FLOW(p);
                        if (x == REC_FAR)
                            for (uint32_t k = foff[i]; k < foff[i + 1]; k++)
                                if (flink[k] != l)
                                    take(rem, active, seen, touched, took, flink[k], share, round, &nt);
                        continue;
                    }
                    take(rem, active, seen, touched, took, x, share, round, &nt);
                } while (!(word & REC_LAST));
            }
            cur[l] = (size_t)(r - rec);
            rem[l] = 0; /* the bottleneck is full: exactly, whatever k * share rounds to */
            for (uint32_t j = 0; j < nt; j++) {
                uint32_t x = touched[j];
                if (active[x] > 0) {
                    w->hkey[x] = tied(rem[x] / active[x], share, took[x]);
                    sift_down(&h, h.pos[x]);
                    sift_up(&h, h.pos[x]);
                } else {
                    if (h.pos[x] != UINT32_MAX)
                        hremove(&h, x);
                    if (rem[x] <= cap[x] * snap(took[x])) /* tied with the bottleneck */
                        rem[x] = 0;
                }
            }
            active[l] = 0;
        }
    }
#undef FLOW
    w->nres = nl;
    return TSCHED_OK;
}

static tsched_status solve(ts_fluid *w, double *rate, uint32_t nf, const uint32_t *foff, const uint32_t *flink,
                           const uint32_t *lev, uint32_t nl, const double *cap, uint32_t inl)
{
    int identity;
    uint32_t ngrp = level_order(w, &identity, nf, lev);
    if (!ngrp)
        return TSCHED_E_NOMEM;
    return identity ? solve_in(w, rate, nf, foff, flink, NULL, ngrp, nl, cap, inl)
                    : solve_in(w, rate, nf, foff, flink, w->ord, ngrp, nl, cap, inl);
}

tsched_status ts_fluid_solve(ts_fluid *w, double *rate, uint32_t nflows, const uint32_t *foff, const uint32_t *flink,
                             const uint32_t *level, uint32_t nlinks, const double *cap)
{
    if (!w || (!rate && nflows) || !foff || (!flink && foff[nflows]) || (!cap && nlinks))
        return ts_error(TSCHED_E_INVALID, "ts_fluid_solve: %s is NULL",
                        !w ? "w" : !foff ? "foff" : !rate ? "rate" : !flink ? "flink" : "cap");
    if (nlinks > TS_FLUID_MAX_LINKS)
        return ts_error(TSCHED_E_TOO_LARGE, "fluid: nlinks %u, at most %u", nlinks, TS_FLUID_MAX_LINKS);
    tsched_status st = check_caps(cap, nlinks, NULL);
    if (st == TSCHED_OK && (st = need_links(w, nlinks)) == TSCHED_OK && (st = need_flows(w, nflows)) == TSCHED_OK)
        st = solve(w, rate, nflows, foff, flink, level, nlinks, cap, REC_INLINE);
    return st;
}

/* ---- network links and flows ------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Components are mostly a handful of flows: insertion sort beats qsort's set-up there. */
static void sort_u32(uint32_t *a, size_t n)
{
    if (n > 32) {
        qsort(a, n, sizeof *a, cmp_u32);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint32_t v = a[i];
        size_t k = i;
        for (; k > 0 && a[k - 1] > v; k--)
            a[k] = a[k - 1];
        a[k] = v;
    }
}

/* Sort the n ids of a component, marked `e` among the network's `all`: a big component (a
 * large job's ring holds most of the network) is listed in order by a scan of the marks,
 * cheaper than qsort from a 64th of the network up (a scan costs a load per id, qsort some
 * 2 log2(n) compares through a pointer per id); a small one is sorted. */
static void sort_marked(uint32_t *a, size_t n, const uint32_t *mark, uint32_t all, uint32_t e)
{
    if (n <= 32 || n < all / 64) {
        sort_u32(a, n);
        return;
    }
    size_t k = 0;
    for (uint32_t x = 0; x < all && k < n; x++)
        if (mark[x] == e)
            a[k++] = x;
}

/* Solve flows w->fl/fn/flev[0 .. nf) over the distinct network links w->gl[0 .. ngl)
 * (sorted): local link ids are ranks, so ties fall by network id. */
static tsched_status solve_ranked(ts_fluid *w, double *rate, uint32_t nf, const uint32_t *lev, uint32_t ngl,
                                  const ts_fluid_net *net)
{
    tsched_status st = need_links(w, ngl);
    if (st != TSCHED_OK)
        return st;
    for (uint32_t j = 0; j < ngl; j++) {
        w->gmap[w->gl[j]] = j;
        w->cap[j] = net->cap(net->ctx, w->gl[j]);
    }
    if ((st = check_caps(w->cap, ngl, w->gl)) != TSCHED_OK)
        return st;
    uint64_t m = 0;
    for (uint32_t i = 0; i < nf; i++)
        m += w->fn[i];
    if (m >= UINT32_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "fluid: %llu flow-link crossings, at most %u", (unsigned long long)m,
                        UINT32_MAX - 1);
    if ((st = need_words(&w->flink, &w->flink_cap, (size_t)m + 1)) != TSCHED_OK)
        return st;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nf; i++) {
        w->foff[i] = k;
        for (uint32_t j = 0; j < w->fn[i]; j++)
            w->flink[k++] = w->gmap[w->fl[i][j]];
    }
    w->foff[nf] = k;
    return solve(w, rate, nf, w->foff, w->flink, lev, ngl, w->cap, REC_INLINE_LISTS);
}

tsched_status ts_fluid_solve_lists(ts_fluid *w, double *rate, uint32_t nflows, const uint32_t *const *fl,
                                   const uint32_t *fn, const uint32_t *lev, const ts_fluid_net *net)
{
    if (!w || (!rate && nflows) || (!fl && nflows) || (!fn && nflows) || !net || !net->cap)
        return ts_error(TSCHED_E_INVALID, "ts_fluid_solve_lists: %s is NULL",
                        !w ? "w" : !rate ? "rate" : !fl ? "fl" : !fn ? "fn" : !net ? "net" : "net.cap");
    tsched_status st = need_net(w, net);
    if (st != TSCHED_OK || (st = need_lists(w, nflows)) != TSCHED_OK)
        return st;
    size_t ngl = 0;
    for (uint32_t i = 0; i < nflows; i++) {
        w->fl[i] = fl[i];
        w->fn[i] = fn[i];
        for (uint32_t k = 0; k < fn[i]; k++) {
            uint32_t x = fl[i][k];
            if (x >= net->nlinks)
                return ts_error(TSCHED_E_INVALID, "fluid: fl[%u][%u] = %u, not below net.nlinks %u", i, k, x,
                                net->nlinks);
            if (w->gmark[x] == w->epoch)
                continue;
            w->gmark[x] = w->epoch;
            if ((st = TS_GROW(w->gl, w->gl_cap, ngl + 1)) != TSCHED_OK)
                return st;
            w->gl[ngl++] = x;
        }
    }
    sort_u32(w->gl, ngl);
    return solve_ranked(w, rate, nflows, lev, (uint32_t)ngl, net);
}

/* Push onto a workspace array, growing it only when full (the common case is one compare). */
#define PUSH(arr, cap, n, v)                                                                                         \
    do {                                                                                                             \
        if ((n) >= (cap) && TS_GROW(arr, cap, (n) + 1) != TSCHED_OK)                                                  \
            return TSCHED_E_NOMEM;                                                                                   \
        (arr)[(n)++] = (v);                                                                                          \
    } while (0)

tsched_status ts_fluid_solve_touched(ts_fluid *w, const ts_fluid_net *net, const uint32_t *seeds, size_t nseeds,
                                     const uint32_t **flows, const double **rates, size_t *n)
{
    if (!w || !net || (!seeds && nseeds) || !flows || !rates || !n || !net->link_flows || !net->flow_links ||
        !net->cap)
        return ts_error(TSCHED_E_INVALID, "ts_fluid_solve_touched: an argument or callback is NULL");
    *n = 0;
    tsched_status st = need_net(w, net);
    if (st != TSCHED_OK)
        return st;
    uint32_t e = w->epoch;
    size_t nl = 0, nf = 0, sp = 0;
    for (size_t i = 0; i < nseeds; i++) {
        if (seeds[i] >= net->nlinks)
            return ts_error(TSCHED_E_INVALID, "fluid: seeds[%zu] = %u, not below net.nlinks %u", i, seeds[i],
                            net->nlinks);
        if (w->gmark[seeds[i]] == e)
            continue;
        w->gmark[seeds[i]] = e;
        PUSH(w->stack, w->stack_cap, sp, seeds[i]);
    }
    while (sp) {
        uint32_t l = w->stack[--sp], cnt, nk, lv;
        PUSH(w->gl, w->gl_cap, nl, l);
        const uint32_t *fs = net->link_flows(net->ctx, l, &cnt);
        for (uint32_t j = 0; j < cnt; j++) {
            uint32_t f = fs[j];
            if (f >= net->nflows)
                return ts_error(TSCHED_E_INVALID, "fluid: link %u lists flow %u, not below net.nflows %u", l, f,
                                net->nflows);
            if (w->fmark[f] == e)
                continue;
            w->fmark[f] = e;
            PUSH(w->cf, w->cf_cap, nf, f);
            const uint32_t *ls = net->flow_links(net->ctx, f, &nk, &lv);
            for (uint32_t k = 0; k < nk; k++) {
                uint32_t x = ls[k];
                if (x >= net->nlinks)
                    return ts_error(TSCHED_E_INVALID, "fluid: flow %u crosses link %u, not below net.nlinks %u", f, x,
                                    net->nlinks);
                if (w->gmark[x] == e)
                    continue;
                w->gmark[x] = e;
                PUSH(w->stack, w->stack_cap, sp, x);
            }
        }
    }
    if (nf >= UINT32_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "fluid: a component of %zu flows", nf);
    /* one canonical order whatever the event: flows by id (the answer's order), links by id */
    sort_marked(w->cf, nf, w->fmark, net->nflows, e);
    sort_marked(w->gl, nl, w->gmark, net->nlinks, e);
    if ((st = need_lists(w, nf)) != TSCHED_OK)
        return st;
    for (size_t i = 0; i < nf; i++)
        w->fl[i] = net->flow_links(net->ctx, w->cf[i], &w->fn[i], &w->flev[i]);
    if ((st = solve_ranked(w, w->rate, (uint32_t)nf, w->flev, (uint32_t)nl, net)) != TSCHED_OK)
        return st;
    *flows = w->cf;
    *rates = w->rate;
    *n = nf;
    return TSCHED_OK;
}

const double *ts_fluid_residue(const ts_fluid *w, uint32_t *n)
{
    if (n)
        *n = w ? w->nres : 0;
    return w ? w->rem : NULL;
}
