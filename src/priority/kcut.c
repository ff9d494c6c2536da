/* Priority compression as a DAG max K-cut (CRUX §4.3, Algorithm 1), the Sincronia and
 * Varys baselines and an exhaustive reference. doc/priority.md, "Compression", has the
 * argument for the divide-and-conquer DP. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* The AVX-512 DP: GCC or Clang on x86-64, chosen at run time (kc_isa). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_HAVE_AVX512 1
#include <immintrin.h>
#else
#define KC_HAVE_AVX512 0
#endif

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../common/structsize.h"
#include "dag_internal.h"

static const char *const algo_names[] = {"crux", "sincronia", "varys", "exhaustive"};
#define NALGO (sizeof algo_names / sizeof algo_names[0])

const char *tsched_kcut_algo_name(tsched_kcut_algo algo) { return ts_enum_name(algo_names, NALGO, (int)algo); }

tsched_status tsched_kcut_algo_from_name(tsched_kcut_algo *algo, const char *name)
{
    if (!algo || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_kcut_algo_from_name: %s is NULL", !algo ? "algo" : "name");
    int v = ts_enum_find(algo_names, NALGO, name);
    if (v < 0)
        return ts_error(TSCHED_E_FORMAT, "algo: unknown compression algorithm \"%s\"; expected crux, sincronia, varys "
                        "or exhaustive", name);
    *algo = (tsched_kcut_algo)v;
    return TSCHED_OK;
}

tsched_status ts_kcut_options_read(tsched_kcut_options *out, const tsched_kcut_options *opts)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_kcut_options, size),   TS_SPAN(tsched_kcut_options, algo), TS_SPAN(tsched_kcut_options, levels),
        TS_SPAN(tsched_kcut_options, orders), TS_SPAN(tsched_kcut_options, seed),
        TS_SPAN(tsched_kcut_options, threads),
    };
    tsched_kcut_options_init(out);
    if (!opts)
        return TSCHED_OK;
    return ts_struct_in(out, opts, spans, TS_NSPANS(spans), sizeof *out, "tsched_kcut_options");
}

tsched_status ts_kcut_check(tsched_kcut_algo algo, uint32_t K, uint32_t orders, uint32_t n)
{
    tsched_status st;
    if (K < 1)
        return ts_error(TSCHED_E_RANGE, "levels: must be at least 1, got %u", K);
    if ((st = ts_limit_check("levels", K, "kcut_levels", ts_limits()->kcut_levels)) != TSCHED_OK)
        return st;
    if ((unsigned)algo >= NALGO)
        return ts_error(TSCHED_E_INVALID, "algo: unknown compression algorithm %d", (int)algo);
    if (algo == TSCHED_KCUT_CRUX) {
        if (orders < 1)
            return ts_error(TSCHED_E_RANGE, "orders: must be at least 1, got %u", orders);
        if ((st = ts_limit_check("orders", orders, "kcut_orders", ts_limits()->kcut_orders)) != TSCHED_OK)
            return st;
        /* the DP's argument table: one uint32_t per (block boundary, position) */
        uint64_t keff = K < n ? K : n;
        uint64_t bytes = keff > 1 ? (keff - 1) * ((uint64_t)n + 1) * sizeof(uint32_t) : 0;
        if (bytes > TS_KCUT_TABLE_BYTES)
            return ts_error(TSCHED_E_TOO_LARGE,
                            "levels x nodes: the K-cut table of %u levels over %u nodes needs %llu bytes, more than "
                            "the budget of %llu (fewer levels or a smaller DAG)",
                            K, n, (unsigned long long)bytes, (unsigned long long)TS_KCUT_TABLE_BYTES);
    }
    if (algo == TSCHED_KCUT_EXHAUSTIVE && n > TS_KCUT_EXHAUSTIVE_MAX)
        return ts_error(TSCHED_E_INVALID, "nodes: exhaustive compression takes at most %d nodes, got %u",
                        TS_KCUT_EXHAUSTIVE_MAX, n);
    return TSCHED_OK;
}

void tsched_kcut_options_init(tsched_kcut_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->algo = TSCHED_KCUT_CRUX;
    opts->levels = 8;
    opts->orders = 10;
    opts->seed = 1;
    opts->threads = 0;
}

/* ---- baselines ----------------------------------------------------------------------- */

void ts_kcut_sincronia(uint32_t *levels, const uint32_t *order, uint32_t n, uint32_t K)
{
    for (uint32_t p = 0; p < n; p++)
        levels[order[p]] = p < K - 1 ? p : K - 1;
}

void ts_kcut_varys(uint32_t *levels, const uint32_t *order, uint32_t n, uint32_t K)
{
    /* r groups of q + 1 nodes, then K - r groups of q. */
    uint32_t q = n / K, r = n % K;
    uint64_t big = (uint64_t)r * (q + 1);
    for (uint32_t p = 0; p < n; p++)
        levels[order[p]] = p < big ? p / (q + 1) : r + (uint32_t)((p - big) / q);
}

/* ---- the max K-cut of one order ------------------------------------------------------ */

/* Positions are 1..n. For position t, in-list: the source positions p < t of its edges of
 * positive weight, ascending, with running sums of their weights; out-list: the target
 * positions q > t, ascending, with running sums. The window (J, I), J <= I, holds
 * c = C(J, I) = weight of edges with p <= J < q <= I.
 *
 * The window's moves are the hot loop; they keep J, I and c in locals (registers) rather
 * than in the struct, which the compiler must otherwise store and reload on every move
 * because of the stores to f and arg. The floating-point steps on c are the same in the
 * same order, so every value, and with it every tie, is the same (the window's value
 * carries across all moves of all layers, so no move may be skipped or reordered). A move
 * finds the running sum it needs by counting the list's positions <= the other end
 * (kcut_dp.h: without a branch for lists of up to 16 entries, else a binary search), or
 * reads it back: the walk of J at fixed I keeps its sums in `walk`, and the next left half
 * moves J back over the same positions at the same I first; a growth of I keeps its sums in
 * `grow` for the fall back at the same J. Per-position pointers that follow J or I write
 * deg(t) scattered counters per move and measured 55 % slower (doc/PERFORMANCE.md, K-cut). */
typedef struct kc {
    uint32_t n;
    uint32_t *in_off, *in_p, *out_off, *out_q; /* off: n + 2 entries, indexed by position */
    double *in_c, *out_c;                      /* running sums within each list */
    double *in_tot;                            /* total in-weight of each position */
    uint32_t J, I;
    double c;
    const double *g; /* f(., k - 1) */
    double *f;       /* f(., k) */
    uint32_t *arg;   /* argmax j of f(i, k) */
    double *walk;    /* walk[t] = sum_le(out-list of t, wI) for t in (wlo, whi]: the last walk's sums */
    uint32_t wI, wlo, whi;
    double *grow; /* grow[t] = sum_le(in-list of t, gJ) for t in (glo, ghi]: the last growth of I */
    uint32_t gJ, glo, ghi;
} kc;

/* Lists are padded: KC_PAD readable entries after the last position, one readable slot
 * before the first running sum. */
#define KC_PAD 16

/* The DP, once per way of counting (kcut_dp.h): a binary search everywhere (any build),
 * SSE2 (the x86-64 baseline) and AVX-512 (chosen at run time where the CPU has it). */
#define KC_SFX scalar
#define KC_ATTR
#include "kcut_dp.h"

#if defined(__SSE2__)
/* positions are < 2^31 - 1 (the DP's table bounds n), so signed lanes compare them */
static inline uint32_t kc_le16_sse2(const uint32_t *p, uint32_t x)
{
    const __m128i x1 = _mm_set1_epi32((int32_t)x + 1);
    const __m128i *q = (const __m128i *)(const void *)p;
    __m128i c0 = _mm_cmpgt_epi32(x1, _mm_loadu_si128(q)), c1 = _mm_cmpgt_epi32(x1, _mm_loadu_si128(q + 1));
    __m128i c2 = _mm_cmpgt_epi32(x1, _mm_loadu_si128(q + 2)), c3 = _mm_cmpgt_epi32(x1, _mm_loadu_si128(q + 3));
    uint32_t le = (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(c0, c1), _mm_packs_epi32(c2, c3)));
    return (uint32_t)__builtin_ctz(~le); /* le < 2^16: ~le is not 0 */
}
#define KC_SFX sse2
#define KC_ATTR
#define KC_COUNT16 kc_le16_sse2
#include "kcut_dp.h"
#endif

#if KC_HAVE_AVX512
#define KC_AVX512_ATTR __attribute__((target("avx512f")))
KC_AVX512_ATTR static inline uint32_t kc_le16_avx512(const uint32_t *p, uint32_t x)
{
    __mmask16 le = _mm512_cmple_epu32_mask(_mm512_loadu_si512((const void *)p), _mm512_set1_epi32((int)x));
    return (uint32_t)__builtin_ctz(~(uint32_t)le);
}
#define KC_SFX avx512
#define KC_ATTR KC_AVX512_ATTR
#define KC_COUNT16 kc_le16_avx512
#include "kcut_dp.h"
#endif

static int kc_isa_cap = 2;
static pthread_once_t kc_isa_once = PTHREAD_ONCE_INIT;
static int kc_isa_cpu;

static void kc_isa_probe(void)
{
    kc_isa_cpu = 0;
#if defined(__SSE2__)
    kc_isa_cpu = 1;
#endif
#if KC_HAVE_AVX512
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        kc_isa_cpu = 2;
#endif
}

int ts_kcut_set_isa(int cap)
{
    int old = kc_isa_cap;
    kc_isa_cap = cap;
    return old;
}

/* The widest way of counting this CPU has, within the tests' cap. */
static int kc_isa(void)
{
    pthread_once(&kc_isa_once, kc_isa_probe);
    return kc_isa_cpu < kc_isa_cap ? kc_isa_cpu : kc_isa_cap;
}

static void kc_solve(int isa, kc *s, uint32_t n)
{
#if KC_HAVE_AVX512
    if (isa >= 2) {
        solve_avx512(s, 0, n, 0, n);
        return;
    }
#endif
#if defined(__SSE2__)
    if (isa >= 1) {
        solve_sse2(s, 0, n, 0, n);
        return;
    }
#endif
    (void)isa;
    solve_scalar(s, 0, n, 0, n);
}

/* What the orders of one DAG share: each node's count of in- and out-edges of positive
 * weight and the weight of all edges (summed in edge order, as each order's build did). */
typedef struct kc_dagc {
    uint32_t *indeg, *outdeg;
    double total;
} kc_dagc;

static void kc_dagc_free(kc_dagc *d)
{
    free(d->indeg);
    free(d->outdeg);
    d->indeg = d->outdeg = NULL;
}

static tsched_status kc_dagc_init(kc_dagc *d, const tsched_dag *dag)
{
    d->indeg = ts_calloc((size_t)dag->n + 1, sizeof *d->indeg);
    d->outdeg = ts_calloc((size_t)dag->n + 1, sizeof *d->outdeg);
    d->total = 0;
    if (!d->indeg || !d->outdeg) {
        kc_dagc_free(d);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t k = 0; k < dag->m; k++)
        if (dag->e[k].w > 0) {
            d->indeg[dag->e[k].v]++;
            d->outdeg[dag->e[k].u]++;
            d->total += dag->e[k].w;
        }
    return TSCHED_OK;
}

/* One thread's working memory for cutting orders of one DAG, sized once and reused for
 * every order it cuts (the lists, the DP's rows and its argument table). */
typedef struct kc_ws {
    kc s;
    uint32_t n, m, keff;
    int isa; /* the DP instance: 0 search, 1 SSE2, 2 AVX-512 */
    double *f, *g;
    uint32_t *arg; /* (keff - 1) rows of n + 1 */
} kc_ws;

static void kc_ws_free(kc_ws *w)
{
    free(w->s.in_off);
    free(w->s.in_p);
    free(w->s.out_off);
    free(w->s.out_q);
    free(w->s.in_c ? w->s.in_c - 1 : NULL);
    free(w->s.out_c ? w->s.out_c - 1 : NULL);
    free(w->s.in_tot);
    free(w->s.walk);
    free(w->s.grow);
    free(w->f);
    free(w->g);
    free(w->arg);
    memset(w, 0, sizeof *w);
}

static tsched_status kc_ws_init(kc_ws *w, const tsched_dag *dag, uint32_t K)
{
    const size_t n = dag->n, m = dag->m; /* m: at least the edges of positive weight */
    memset(w, 0, sizeof *w);
    w->n = dag->n;
    w->m = dag->m;
    w->keff = K < dag->n ? K : dag->n;
    w->isa = kc_isa();
    kc *s = &w->s;
    s->in_off = ts_calloc(n + 2, sizeof *s->in_off);
    s->out_off = ts_calloc(n + 2, sizeof *s->out_off);
    s->in_tot = ts_calloc(n + 2, sizeof *s->in_tot);
    s->walk = ts_calloc(n + 2, sizeof *s->walk);
    s->grow = ts_calloc(n + 2, sizeof *s->grow);
    /* positions padded with KC_PAD readable entries, sums with one readable slot before */
    s->in_p = ts_calloc(m + KC_PAD, sizeof *s->in_p);
    s->out_q = ts_calloc(m + KC_PAD, sizeof *s->out_q);
    double *ic = ts_calloc(m + 1, sizeof *ic), *oc = ts_calloc(m + 1, sizeof *oc);
    s->in_c = ic ? ic + 1 : NULL;
    s->out_c = oc ? oc + 1 : NULL;
    w->f = ts_malloc(n + 1, sizeof *w->f);
    w->g = ts_malloc(n + 1, sizeof *w->g);
    w->arg = w->keff >= 2 ? ts_malloc((size_t)(w->keff - 1) * (n + 1), sizeof *w->arg) : NULL;
    if (!s->in_off || !s->out_off || !s->in_tot || !s->walk || !s->grow || !s->in_p || !s->out_q || !ic || !oc ||
        !w->f || !w->g || (w->keff >= 2 && !w->arg)) {
        kc_ws_free(w);
        return TSCHED_E_NOMEM;
    }
    return TSCHED_OK;
}

/* The position lists of `order` into w's lists; *total = weight of all edges. The build's
 * scratch (positions of nodes, bucket cursors) lives in the DP's walk and grow rows, which
 * the DP overwrites before it reads them. */
static tsched_status kc_build(kc_ws *w, const tsched_dag *dag, const kc_dagc *dc, const uint32_t *order,
                              double *total)
{
    const uint32_t n = dag->n;
    kc *s = &w->s;
    uint32_t *pos = (uint32_t *)(void *)s->grow, *cur = (uint32_t *)(void *)s->walk;
    uint32_t *in_off = s->in_off, *out_off = s->out_off, *in_p = s->in_p, *out_q = s->out_q;
    double *in_c = s->in_c, *out_c = s->out_c, *in_tot = s->in_tot;
    memset(pos, 0, ((size_t)n + 1) * sizeof *pos);
    in_off[0] = in_off[1] = out_off[0] = out_off[1] = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t x = order[k];
        if (x >= n || pos[x])
            return ts_error(TSCHED_E_INVALID, "order[%u]: node %u out of range or repeated", k, x);
        pos[x] = k + 1;
        in_off[k + 2] = in_off[k + 1] + dc->indeg[x];
        out_off[k + 2] = out_off[k + 1] + dc->outdeg[x];
    }
    *total = dc->total;
    /* Bucket by target (sources unordered; every edge checked, in edge order), then by
     * source walking targets in order (out-lists ascending), then by target walking
     * sources in order (in-lists ascending). */
    memcpy(cur, in_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t k = 0; k < dag->m; k++) {
        const ts_dag_edge *e = &dag->e[k];
        uint32_t pu = pos[e->u], pv = pos[e->v];
        if (pu >= pv)
            return ts_error(TSCHED_E_INVALID, "order: edge %u -> %u goes backwards (positions %u, %u)", e->u, e->v,
                            pu - 1, pv - 1);
        if (e->w > 0) {
            uint32_t slot = cur[pv]++;
            in_p[slot] = pu;
            in_c[slot] = e->w;
        }
    }
    memcpy(cur, out_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t q = 1; q <= n; q++)
        for (uint32_t a = in_off[q]; a < in_off[q + 1]; a++) {
            uint32_t slot = cur[in_p[a]]++;
            out_q[slot] = q;
            out_c[slot] = in_c[a];
        }
    memcpy(cur, in_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t p = 1; p <= n; p++)
        for (uint32_t a = out_off[p]; a < out_off[p + 1]; a++) {
            uint32_t slot = cur[out_q[a]]++;
            in_p[slot] = p;
            in_c[slot] = out_c[a];
        }
    for (uint32_t t = 1; t <= n; t++) {
        for (uint32_t a = in_off[t] + 1; a < in_off[t + 1]; a++)
            in_c[a] += in_c[a - 1];
        for (uint32_t a = out_off[t] + 1; a < out_off[t + 1]; a++)
            out_c[a] += out_c[a - 1];
        in_tot[t] = in_off[t + 1] > in_off[t] ? in_c[in_off[t + 1] - 1] : 0;
    }
    return TSCHED_OK;
}

/* The max K-cut of one order with w's memory (w sized for this DAG and K). */
static tsched_status kc_cut(kc_ws *w, uint32_t *levels, double *cut_weight, const tsched_dag *dag,
                            const kc_dagc *dc, const uint32_t *order)
{
    const uint32_t n = dag->n, keff = w->keff;
    double total = 0;
    tsched_status st = kc_build(w, dag, dc, order, &total);
    if (st != TSCHED_OK)
        return st;
    kc *s = &w->s;
    uint32_t *arg = w->arg;
    uint32_t kdone = 1; /* layers computed; one block: f(., 1) = 0 */
    if (keff >= 2 && total > 0) {
        double *f = w->f, *g = w->g;
        memset(g, 0, ((size_t)n + 1) * sizeof *g);
        s->n = n;
        s->J = s->I = 0;
        s->c = 0;
        s->wI = s->wlo = s->whi = 0; /* the caches: empty */
        s->gJ = s->glo = s->ghi = 0;
        for (uint32_t k = 2; k <= keff; k++) {
            s->g = g;
            s->f = f;
            s->arg = arg + (size_t)(k - 2) * ((size_t)n + 1);
            kc_solve(w->isa, s, n);
            kdone = k;
            double *t = g;
            g = f;
            f = t;
            /* Every edge is cut: more blocks cannot add anything. */
            if (g[n] >= total)
                break;
        }
    }
    /* Block k - 1 holds positions arg_k(i) + 1 .. i. */
    uint32_t i = n;
    for (uint32_t k = kdone; k >= 2; k--) {
        uint32_t j = arg[(size_t)(k - 2) * ((size_t)n + 1) + i];
        for (uint32_t p = j + 1; p <= i; p++)
            levels[order[p - 1]] = k - 1;
        i = j;
    }
    for (uint32_t p = 1; p <= i; p++)
        levels[order[p - 1]] = 0;
    ts_levels_compact(levels, n);
    if (cut_weight)
        *cut_weight = ts_dag_cut_weight(dag, levels);
    return TSCHED_OK;
}

tsched_status ts_kcut_order(uint32_t *levels, double *cut_weight, const tsched_dag *dag, const uint32_t *order,
                            uint32_t K)
{
    if (K < 1)
        return ts_error(TSCHED_E_RANGE, "levels: must be at least 1, got %u", K);
    kc_ws w;
    kc_dagc dc;
    tsched_status st = kc_dagc_init(&dc, dag);
    if (st != TSCHED_OK)
        return st;
    if ((st = kc_ws_init(&w, dag, K)) == TSCHED_OK) {
        st = kc_cut(&w, levels, cut_weight, dag, &dc, order);
        kc_ws_free(&w);
    }
    kc_dagc_free(&dc);
    return st;
}

/* ---- exhaustive ---------------------------------------------------------------------- */

tsched_status ts_kcut_exhaustive(uint32_t *levels, double *cut_weight, const tsched_dag *dag, uint32_t K)
{
    if (K < 1)
        return ts_error(TSCHED_E_RANGE, "levels: must be at least 1, got %u", K);
    const uint32_t n = dag->n;
    if (n > TS_KCUT_EXHAUSTIVE_MAX)
        return ts_error(TSCHED_E_INVALID, "nodes: exhaustive compression takes at most %d nodes, got %u",
                        TS_KCUT_EXHAUSTIVE_MAX, n);
    const uint32_t N = UINT32_C(1) << n, keff = K < n ? K : (n ? n : 1);
    double w[TS_KCUT_EXHAUSTIVE_MAX][TS_KCUT_EXHAUSTIVE_MAX] = {{0}};
    uint32_t pred[TS_KCUT_EXHAUSTIVE_MAX] = {0};
    for (uint32_t k = 0; k < dag->m; k++) {
        w[dag->e[k].u][dag->e[k].v] += dag->e[k].w;
        pred[dag->e[k].v] |= UINT32_C(1) << dag->e[k].u;
    }
    /* Down-closed sets (every predecessor of a member is a member) and the weight of the
     * edges inside each set. A valid compression is a chain of down-closed sets
     * L_0 <= L_1 <= ... <= L_{K-1} = V (L_t = nodes at level <= t), and the edges cut going
     * from T to S (T <= S both down-closed) weigh inner(S) - inner(T) - inner(S \ T). */
    uint8_t *ideal = ts_malloc(N, 1);
    double *inner = ts_malloc(N, sizeof *inner);
    double *F = ts_malloc((size_t)keff * N, sizeof *F);
    uint16_t *arg = ts_malloc((size_t)keff * N, sizeof *arg);
    tsched_status st = TSCHED_OK;
    if (!ideal || !inner || !F || !arg) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    inner[0] = 0;
    ideal[0] = 1;
    for (uint32_t S = 1; S < N; S++) {
        uint32_t v = 0, rest = S & (S - 1);
        while (!(S >> v & 1))
            v++;
        double x = inner[rest];
        for (uint32_t y = 0; y < n; y++)
            if (rest >> y & 1)
                x += w[y][v] + w[v][y];
        inner[S] = x;
        ideal[S] = 1;
        for (uint32_t y = 0; y < n && ideal[S]; y++)
            if ((S >> y & 1) && (pred[y] & ~S))
                ideal[S] = 0;
    }
    for (uint32_t S = 0; S < N; S++)
        F[S] = 0;
    for (uint32_t t = 1; t < keff; t++) {
        double *Ft = F + (size_t)t * N, *Fp = F + (size_t)(t - 1) * N;
        uint16_t *at = arg + (size_t)t * N;
        for (uint32_t S = 0; S < N; S++) {
            if (!ideal[S])
                continue;
            double best = -1;
            uint32_t bt = S;
            for (uint32_t T = S;; T = (T - 1) & S) {
                if (ideal[T]) {
                    double v = Fp[T] + (inner[S] - inner[T] - inner[S ^ T]);
                    if (v > best) {
                        best = v;
                        bt = T;
                    }
                }
                if (T == 0)
                    break;
            }
            Ft[S] = best;
            at[S] = (uint16_t)bt;
        }
    }
    uint32_t S = N - 1;
    for (uint32_t t = keff - 1; t >= 1; t--) {
        uint32_t T = arg[(size_t)t * N + S];
        for (uint32_t y = 0; y < n; y++)
            if ((S ^ T) >> y & 1)
                levels[y] = t;
        S = T;
    }
    for (uint32_t y = 0; y < n; y++)
        if (S >> y & 1)
            levels[y] = 0;
    ts_levels_compact(levels, n);
    if (cut_weight)
        *cut_weight = ts_dag_cut_weight(dag, levels);
out:
    free(ideal);
    free(inner);
    free(F);
    free(arg);
    return st;
}

/* ---- crux: the orders on several threads ------------------------------------------- */

/* Algorithm 1 draws order r from the generator's state after orders 0 .. r - 1 and keeps
 * the first of the largest cuts. The workers take the orders in turn: each draws the next
 * order under the lock (so the draws are those of one thread, in order, and a worker's
 * draw overlaps the others' cutting), cuts it in its own working memory, and keeps its own
 * best (strictly better only: its orders come in increasing r, so the first of its maximal
 * cuts). The answer: the largest cut, ties to the smallest order index. */
typedef struct kc_pool {
    pthread_mutex_t mu;
    const tsched_dag *dag;
    const ts_dag_csr *csr;
    kc_dagc dc;
    const char *fn;
    ts_rng rng;
    uint32_t next, R, K;
    int stop; /* an error: no more orders are taken */
} kc_pool;

typedef struct kc_worker {
    kc_pool *pool;
    tsched_limits limits; /* the caller's: limits are per thread */
    kc_ws ws;
    uint32_t *order, *trial, *best_levels;
    double best;
    uint32_t best_r;
    tsched_status st;
    uint32_t err_r;
    char msg[1024];
} kc_worker;

static void kc_worker_fail(kc_worker *w, tsched_status st, uint32_t r)
{
    w->st = st;
    w->err_r = r;
    snprintf(w->msg, sizeof w->msg, "%s", tsched_last_error());
}

static void kc_worker_run(kc_worker *w)
{
    kc_pool *p = w->pool;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->stop || p->next >= p->R) {
            pthread_mutex_unlock(&p->mu);
            return;
        }
        uint32_t r = p->next++;
        tsched_status st = ts_dag_topo_order(w->order, p->dag, p->csr, &p->rng, p->fn);
        if (st != TSCHED_OK) {
            kc_worker_fail(w, st, r); /* a cycle: the first draw finds it */
            p->stop = 1;
            pthread_mutex_unlock(&p->mu);
            return;
        }
        pthread_mutex_unlock(&p->mu);
        double cw;
        if ((st = kc_cut(&w->ws, w->trial, &cw, p->dag, &p->dc, w->order)) != TSCHED_OK) {
            kc_worker_fail(w, st, r);
            pthread_mutex_lock(&p->mu);
            p->stop = 1;
            pthread_mutex_unlock(&p->mu);
            return;
        }
        if (cw > w->best) { /* ties: the first order */
            uint32_t *t = w->best_levels;
            w->best_levels = w->trial;
            w->trial = t;
            w->best = cw;
            w->best_r = r;
        }
    }
}

static void *kc_worker_main(void *arg)
{
    kc_worker *w = arg;
    tsched_limits_set(&w->limits);
    kc_worker_run(w);
    return NULL;
}

/* Bytes of one worker's memory for an n-node, m-edge DAG cut into keff levels: what
 * kc_ws_init and kc_crux allocate for it. */
static uint64_t kc_worker_bytes(uint64_t n, uint64_t m, uint64_t keff)
{
    uint64_t b = 2 * (n + 2) * sizeof(uint32_t) + 3 * (n + 2) * sizeof(double); /* offsets, in_tot, walk, grow */
    b += 2 * (m + KC_PAD) * sizeof(uint32_t) + 2 * (m + 1) * sizeof(double);   /* the lists */
    b += 2 * (n + 1) * sizeof(double) + 3 * (n ? n : 1) * sizeof(uint32_t);    /* f, g, order, trial, best */
    if (keff >= 2)
        b += (keff - 1) * (n + 1) * sizeof(uint32_t); /* the argument table */
    return b;
}

tsched_status ts_kcut_threads(uint32_t *out, uint32_t opt, uint32_t orders, uint32_t n, uint32_t m, uint32_t K)
{
    uint64_t t = opt;
    if (t == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        t = c > 0 ? (uint64_t)c : 1;
    }
    if (t > orders)
        t = orders;
    uint64_t keff = K < n ? K : n;
    uint64_t bytes = keff > 1 ? (keff - 1) * ((uint64_t)n + 1) * sizeof(uint32_t) : 0;
    if (bytes && t > TS_KCUT_TABLE_BYTES / bytes)
        t = TS_KCUT_TABLE_BYTES / bytes;
    uint64_t per = kc_worker_bytes(n, m, keff), budget = ts_limits()->kcut_memory;
    if (per > budget)
        return ts_error(TSCHED_E_TOO_LARGE,
                        "dag: one K-cut worker over %u nodes and %u edges needs %llu bytes, more than the limit "
                        "kcut_memory = %llu (raise it with tsched_limits_set or topo-sched --limit)",
                        n, m, (unsigned long long)per, (unsigned long long)budget);
    if (t > budget / per)
        t = budget / per;
    *out = t ? (uint32_t)t : 1;
    return TSCHED_OK;
}

/* Algorithm 1 over `R` random topological orders drawn one after the other from `seed`, on
 * T workers (worker 0 is the caller; if a thread cannot be made, the others take its
 * share). */
static tsched_status kc_crux(uint32_t *levels, const tsched_dag *dag, const ts_dag_csr *csr,
                             const tsched_kcut_options *o, uint32_t T, const char *fn)
{
    const uint32_t n = dag->n, R = o->orders, K = o->levels;
    const size_t nn = n ? n : 1;
    tsched_status st = TSCHED_OK;
    kc_pool pool;
    memset(&pool, 0, sizeof pool);
    pool.dag = dag;
    pool.csr = csr;
    pool.fn = fn;
    pool.R = R;
    pool.K = K;
    ts_rng_seed(&pool.rng, o->seed);
    int mu_ok = pthread_mutex_init(&pool.mu, NULL) == 0;
    kc_worker *ws = ts_calloc(T, sizeof *ws);
    pthread_t *th = ts_calloc(T, sizeof *th);
    uint8_t *started = ts_calloc(T, 1);
    if (!mu_ok || !ws || !th || !started || kc_dagc_init(&pool.dc, dag) != TSCHED_OK) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t w = 0; w < T; w++) {
        ws[w].pool = &pool;
        ws[w].limits.size = sizeof ws[w].limits;
        tsched_limits_get(&ws[w].limits);
        ws[w].best = -1;
        ws[w].order = ts_malloc(nn, sizeof *ws[w].order);
        ws[w].trial = ts_malloc(nn, sizeof *ws[w].trial);
        ws[w].best_levels = ts_malloc(nn, sizeof *ws[w].best_levels);
        if (!ws[w].order || !ws[w].trial || !ws[w].best_levels ||
            (st = kc_ws_init(&ws[w].ws, dag, K)) != TSCHED_OK) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
    }
    for (uint32_t w = 1; w < T; w++)
        started[w] = pthread_create(&th[w], NULL, kc_worker_main, &ws[w]) == 0;
    kc_worker_run(&ws[0]);
    for (uint32_t w = 1; w < T; w++)
        if (started[w])
            pthread_join(th[w], NULL);
    /* The first failing order's error, as the sequential loop would report it. */
    uint32_t bad = UINT32_MAX;
    for (uint32_t w = 0; w < T; w++)
        if (ws[w].st != TSCHED_OK && (bad == UINT32_MAX || ws[w].err_r < ws[bad].err_r))
            bad = w;
    if (bad != UINT32_MAX) {
        st = ts_error(ws[bad].st, "%s", ws[bad].msg);
        goto out;
    }
    uint32_t win = 0;
    for (uint32_t w = 1; w < T; w++)
        if (ws[w].best > ws[win].best || (ws[w].best == ws[win].best && ws[w].best_r < ws[win].best_r))
            win = w;
    if (n)
        memcpy(levels, ws[win].best_levels, (size_t)n * sizeof *levels);
out:
    if (ws)
        for (uint32_t w = 0; w < T; w++) {
            kc_ws_free(&ws[w].ws);
            free(ws[w].order);
            free(ws[w].trial);
            free(ws[w].best_levels);
        }
    if (mu_ok)
        pthread_mutex_destroy(&pool.mu);
    kc_dagc_free(&pool.dc);
    free(ws);
    free(th);
    free(started);
    return st;
}

/* ---- the public entry ---------------------------------------------------------------- */

tsched_status tsched_dag_compress(uint32_t *levels, double *cut_weight, const tsched_dag *dag,
                                  const tsched_kcut_options *opts)
{
    static const char fn[] = "tsched_dag_compress";
    if (!dag)
        return ts_error(TSCHED_E_INVALID, "%s: dag is NULL", fn);
    if (!levels && dag->n > 0)
        return ts_error(TSCHED_E_INVALID, "%s: levels is NULL", fn);
    tsched_kcut_options merged;
    tsched_status st0 = ts_kcut_options_read(&merged, opts);
    if (st0 != TSCHED_OK)
        return st0;
    const tsched_kcut_options *o = &merged;
    const uint32_t n = dag->n, K = o->levels;
    /* every bound (levels, orders, memory) before any allocation */
    if ((st0 = ts_kcut_check(o->algo, K, o->orders, n)) != TSCHED_OK)
        return st0;
    uint32_t T = 1;
    if (o->algo == TSCHED_KCUT_CRUX && (st0 = ts_kcut_threads(&T, o->threads, o->orders, n, dag->m, K)) != TSCHED_OK)
        return st0;
    /* every cut weighs at most the sum of the weights: finite, or no answer is (each weight is
     * finite, but 1e308 + 1e308 is not) */
    double total = 0;
    for (uint32_t k = 0; k < dag->m; k++)
        total += dag->e[k].w;
    if (!isfinite(total))
        return ts_error(TSCHED_E_RANGE, "edges: the weights sum past the largest double (%g); scale them down",
                        1.7976931348623157e308);

    ts_dag_csr csr = {NULL, NULL, NULL};
    uint32_t *order = ts_malloc(n ? n : 1, sizeof *order);
    tsched_status st = order ? ts_dag_csr_build(&csr, dag) : TSCHED_E_NOMEM;
    if (st != TSCHED_OK)
        goto out;
    switch (o->algo) {
    case TSCHED_KCUT_SINCRONIA:
    case TSCHED_KCUT_VARYS:
    case TSCHED_KCUT_EXHAUSTIVE:
        /* The canonical order: also the cycle check. */
        if ((st = ts_dag_topo_order(order, dag, &csr, NULL, fn)) != TSCHED_OK)
            goto out;
        if (o->algo == TSCHED_KCUT_SINCRONIA)
            ts_kcut_sincronia(levels, order, n, K);
        else if (o->algo == TSCHED_KCUT_VARYS)
            ts_kcut_varys(levels, order, n, K);
        else if ((st = ts_kcut_exhaustive(levels, NULL, dag, K)) != TSCHED_OK)
            goto out;
        break;
    case TSCHED_KCUT_CRUX:
        if ((st = kc_crux(levels, dag, &csr, o, T, fn)) != TSCHED_OK)
            goto out;
        break;
    }
    if (cut_weight)
        *cut_weight = ts_dag_cut_weight(dag, levels);
out:
    ts_dag_csr_free(&csr);
    free(order);
    return st;
}
