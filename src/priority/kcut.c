/* Priority compression as a DAG max K-cut (CRUX §4.3, Algorithm 1), the Sincronia and
 * Varys baselines and an exhaustive reference. doc/priority.md, "Compression", has the
 * argument for the divide-and-conquer DP. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/structsize.h"
#include "dag_internal.h"

static const char *const algo_names[] = {"crux", "sincronia", "varys", "exhaustive"};
#define NALGO (sizeof algo_names / sizeof algo_names[0])

const char *tsched_kcut_algo_name(tsched_kcut_algo algo)
{
    return (unsigned)algo < NALGO ? algo_names[algo] : "?";
}

tsched_status tsched_kcut_algo_from_name(tsched_kcut_algo *algo, const char *name)
{
    if (!algo || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_kcut_algo_from_name: %s is NULL", !algo ? "algo" : "name");
    for (unsigned i = 0; i < NALGO; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *algo = (tsched_kcut_algo)i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "algo: unknown compression algorithm \"%s\"; expected crux, sincronia, varys or "
                    "exhaustive", name);
}

tsched_status ts_kcut_options_read(tsched_kcut_options *out, const tsched_kcut_options *opts)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_kcut_options, size),   TS_SPAN(tsched_kcut_options, algo), TS_SPAN(tsched_kcut_options, levels),
        TS_SPAN(tsched_kcut_options, orders), TS_SPAN(tsched_kcut_options, seed),
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
 * c = C(J, I) = weight of edges with p <= J < q <= I. */
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
} kc;

/* Sum of the weights of list entries a..b-1 whose position is <= x. */
static inline double sum_le(const uint32_t *P, const double *C, uint32_t a, uint32_t b, uint32_t x)
{
    if (a == b || P[a] > x)
        return 0;
    if (P[b - 1] <= x)
        return C[b - 1];
    uint32_t lo = a, hi = b - 1; /* P[lo] <= x < P[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (P[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return C[lo];
}

static inline void inc_i(kc *s)
{
    uint32_t t = ++s->I;
    s->c += sum_le(s->in_p, s->in_c, s->in_off[t], s->in_off[t + 1], s->J);
}

static inline void dec_i(kc *s)
{
    uint32_t t = s->I--;
    s->c -= sum_le(s->in_p, s->in_c, s->in_off[t], s->in_off[t + 1], s->J);
}

/* Position J + 1 leaves the window for the prefix: its in-edges (all from p <= J) stop
 * counting, its out-edges into the window start. */
static inline void inc_j(kc *s)
{
    uint32_t t = ++s->J;
    s->c += sum_le(s->out_q, s->out_c, s->out_off[t], s->out_off[t + 1], s->I) - s->in_tot[t];
}

static inline void dec_j(kc *s)
{
    uint32_t t = s->J--;
    s->c += s->in_tot[t] - sum_le(s->out_q, s->out_c, s->out_off[t], s->out_off[t + 1], s->I);
}

/* Move the window to (j, i), j <= i, keeping J <= I at every step. */
static void seek(kc *s, uint32_t j, uint32_t i)
{
    while (s->I < i)
        inc_i(s);
    while (s->J > j)
        dec_j(s);
    while (s->J < j)
        inc_j(s);
    while (s->I > i)
        dec_i(s);
}

/* f(i) for i in [lo, hi], knowing the smallest argmax lies in [jlo, jhi]. The smallest
 * argmax is monotone in i because C satisfies the quadrangle inequality. */
static void solve(kc *s, uint32_t lo, uint32_t hi, uint32_t jlo, uint32_t jhi)
{
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2, jmax = mid < jhi ? mid : jhi;
        seek(s, jlo, mid);
        double best = s->g[jlo] + s->c;
        uint32_t bj = jlo;
        for (uint32_t j = jlo + 1; j <= jmax; j++) {
            inc_j(s);
            double v = s->g[j] + s->c;
            if (v > best) {
                best = v;
                bj = j;
            }
        }
        s->f[mid] = best;
        s->arg[mid] = bj;
        if (mid > lo)
            solve(s, lo, mid - 1, jlo, bj);
        /* The right half as a loop: recursion depth stays log2(n). */
        lo = mid + 1;
        jlo = bj;
    }
}

static void kc_free(kc *s)
{
    free(s->in_off);
    free(s->in_p);
    free(s->out_off);
    free(s->out_q);
    free(s->in_c);
    free(s->out_c);
    free(s->in_tot);
}

/* The position lists of `order`; *total = weight of all edges. */
static tsched_status kc_build(kc *s, const tsched_dag *dag, const uint32_t *order, double *total)
{
    const uint32_t n = dag->n;
    uint32_t *pos = ts_calloc((size_t)n + 1, sizeof *pos);
    s->in_off = ts_calloc((size_t)n + 2, sizeof *s->in_off);
    s->out_off = ts_calloc((size_t)n + 2, sizeof *s->out_off);
    s->in_tot = ts_calloc((size_t)n + 2, sizeof *s->in_tot);
    if (!pos || !s->in_off || !s->out_off || !s->in_tot) {
        free(pos);
        return TSCHED_E_NOMEM;
    }
    tsched_status st = TSCHED_OK;
    for (uint32_t k = 0; k < n; k++) {
        if (order[k] >= n || pos[order[k]]) {
            st = ts_error(TSCHED_E_INVALID, "order[%u]: node %u out of range or repeated", k, order[k]);
            goto out;
        }
        pos[order[k]] = k + 1;
    }
    uint32_t m = 0;
    double tot = 0;
    for (uint32_t k = 0; k < dag->m; k++) {
        const ts_dag_edge *e = &dag->e[k];
        if (pos[e->u] >= pos[e->v]) {
            st = ts_error(TSCHED_E_INVALID, "order: edge %u -> %u goes backwards (positions %u, %u)", e->u, e->v,
                          pos[e->u] - 1, pos[e->v] - 1);
            goto out;
        }
        if (e->w > 0) {
            s->in_off[pos[e->v] + 1]++;
            s->out_off[pos[e->u] + 1]++;
            m++;
            tot += e->w;
        }
    }
    *total = tot;
    for (uint32_t t = 1; t <= n; t++) {
        s->in_off[t + 1] += s->in_off[t];
        s->out_off[t + 1] += s->out_off[t];
    }
    s->in_p = ts_malloc(m, sizeof *s->in_p);
    s->out_q = ts_malloc(m, sizeof *s->out_q);
    s->in_c = ts_malloc(m, sizeof *s->in_c);
    s->out_c = ts_malloc(m, sizeof *s->out_c);
    uint32_t *cur = ts_malloc((size_t)n + 2, sizeof *cur);
    if (!s->in_p || !s->out_q || !s->in_c || !s->out_c || !cur) {
        free(cur);
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* Bucket by target (sources unordered), then by source walking targets in order (out-
     * lists ascending), then by target walking sources in order (in-lists ascending). */
    memcpy(cur, s->in_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t k = 0; k < dag->m; k++) {
        const ts_dag_edge *e = &dag->e[k];
        if (e->w > 0) {
            uint32_t slot = cur[pos[e->v]]++;
            s->in_p[slot] = pos[e->u];
            s->in_c[slot] = e->w;
        }
    }
    memcpy(cur, s->out_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t q = 1; q <= n; q++)
        for (uint32_t a = s->in_off[q]; a < s->in_off[q + 1]; a++) {
            uint32_t slot = cur[s->in_p[a]]++;
            s->out_q[slot] = q;
            s->out_c[slot] = s->in_c[a];
        }
    memcpy(cur, s->in_off, ((size_t)n + 2) * sizeof *cur);
    for (uint32_t p = 1; p <= n; p++)
        for (uint32_t a = s->out_off[p]; a < s->out_off[p + 1]; a++) {
            uint32_t slot = cur[s->out_q[a]]++;
            s->in_p[slot] = p;
            s->in_c[slot] = s->out_c[a];
        }
    free(cur);
    for (uint32_t t = 1; t <= n; t++) {
        for (uint32_t a = s->in_off[t] + 1; a < s->in_off[t + 1]; a++)
            s->in_c[a] += s->in_c[a - 1];
        for (uint32_t a = s->out_off[t] + 1; a < s->out_off[t + 1]; a++)
            s->out_c[a] += s->out_c[a - 1];
        s->in_tot[t] = s->in_off[t + 1] > s->in_off[t] ? s->in_c[s->in_off[t + 1] - 1] : 0;
    }
out:
    free(pos);
    return st;
}

tsched_status ts_kcut_order(uint32_t *levels, double *cut_weight, const tsched_dag *dag, const uint32_t *order,
                            uint32_t K)
{
    if (K < 1)
        return ts_error(TSCHED_E_RANGE, "levels: must be at least 1, got %u", K);
    const uint32_t n = dag->n;
    kc s;
    memset(&s, 0, sizeof s);
    s.n = n;
    double total = 0;
    tsched_status st = kc_build(&s, dag, order, &total);
    double *f = NULL, *g = NULL;
    uint32_t *arg = NULL;
    if (st != TSCHED_OK)
        goto out;
    const uint32_t keff = K < n ? K : n;
    uint32_t kdone = 1; /* layers computed; one block: f(., 1) = 0 */
    if (keff >= 2 && total > 0) {
        f = ts_malloc((size_t)n + 1, sizeof *f);
        g = ts_calloc((size_t)n + 1, sizeof *g);
        arg = ts_malloc((size_t)(keff - 1) * ((size_t)n + 1), sizeof *arg);
        if (!f || !g || !arg) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
        s.J = s.I = 0;
        s.c = 0;
        for (uint32_t k = 2; k <= keff; k++) {
            s.g = g;
            s.f = f;
            s.arg = arg + (size_t)(k - 2) * ((size_t)n + 1);
            solve(&s, 0, n, 0, n);
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
out:
    kc_free(&s);
    free(f);
    free(g);
    free(arg);
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

    ts_dag_csr csr = {NULL, NULL};
    uint32_t *order = ts_malloc(n ? n : 1, sizeof *order);
    uint32_t *trial = NULL;
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
    case TSCHED_KCUT_CRUX: {
        trial = ts_malloc(n ? n : 1, sizeof *trial);
        if (!trial) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
        ts_rng rng;
        ts_rng_seed(&rng, o->seed);
        double best = -1;
        for (uint32_t r = 0; r < o->orders; r++) {
            double cw;
            if ((st = ts_dag_topo_order(order, dag, &csr, &rng, fn)) != TSCHED_OK ||
                (st = ts_kcut_order(trial, &cw, dag, order, K)) != TSCHED_OK)
                goto out;
            if (cw > best) { /* ties: the first order */
                best = cw;
                if (n)
                    memcpy(levels, trial, (size_t)n * sizeof *levels);
            }
        }
        break;
    }
    }
    if (cut_weight)
        *cut_weight = ts_dag_cut_weight(dag, levels);
out:
    ts_dag_csr_free(&csr);
    free(order);
    free(trial);
    return st;
}
