/* Priority compression as a DAG max K-cut (CRUX §4.3, Algorithm 1), the Sincronia and
 * Varys baselines and an exhaustive reference. doc/priority.md, "Compression", has the
 * argument for the divide-and-conquer DP. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * same order, so every value, and with it every tie, is the same. A move finds the running
 * sum it needs by a binary search in one position's list: the lists a sequence of moves
 * visits are all different (one per position), so no pointer carries over from one move to
 * the next. Keeping, for every position, a pointer that follows J or I (one increment per
 * list entry of the position that enters or leaves) reads the same sums without searching,
 * but it writes deg(t) scattered counters per move and measured 55 % slower on the bench's
 * DAGs (doc/PERFORMANCE.md, K-cut). */
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

/* Move the window to (j, i), j <= i, keeping J <= I at every step. I grows: position t
 * enters with its in-edges from p <= J. J falls: position t leaves the prefix, its in-edges
 * (all from p < t) count again, its out-edges into the window stop. J grows: the reverse.
 * I falls: t leaves with its in-edges from p <= J. */
static void seek(kc *s, uint32_t j, uint32_t i)
{
    const uint32_t *in_off = s->in_off, *in_p = s->in_p, *out_off = s->out_off, *out_q = s->out_q;
    const double *in_c = s->in_c, *out_c = s->out_c, *in_tot = s->in_tot;
    uint32_t J = s->J, I = s->I;
    double c = s->c;
    while (I < i) {
        uint32_t t = ++I;
        c += sum_le(in_p, in_c, in_off[t], in_off[t + 1], J);
    }
    while (J > j) {
        uint32_t t = J--;
        c += in_tot[t] - sum_le(out_q, out_c, out_off[t], out_off[t + 1], I);
    }
    while (J < j) {
        uint32_t t = ++J;
        c += sum_le(out_q, out_c, out_off[t], out_off[t + 1], I) - in_tot[t];
    }
    while (I > i) {
        uint32_t t = I--;
        c -= sum_le(in_p, in_c, in_off[t], in_off[t + 1], J);
    }
    s->J = J;
    s->I = I;
    s->c = c;
}

/* f(i) for i in [lo, hi], knowing the smallest argmax lies in [jlo, jhi]. The smallest
 * argmax is monotone in i because C satisfies the quadrangle inequality. */
static void solve(kc *s, uint32_t lo, uint32_t hi, uint32_t jlo, uint32_t jhi)
{
    const uint32_t *out_off = s->out_off, *out_q = s->out_q;
    const double *out_c = s->out_c, *in_tot = s->in_tot, *g = s->g;
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2, jmax = mid < jhi ? mid : jhi;
        seek(s, jlo, mid);
        /* J walks jlo .. jmax with I = mid: the window's prefix grows one position a step. */
        uint32_t J = jlo;
        double c = s->c, best = g[jlo] + c;
        uint32_t bj = jlo;
        while (J < jmax) {
            uint32_t t = ++J;
            c += sum_le(out_q, out_c, out_off[t], out_off[t + 1], mid) - in_tot[t];
            double v = g[J] + c;
            if (v > best) {
                best = v;
                bj = J;
            }
        }
        s->J = J;
        s->c = c;
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

/* ---- crux: the orders on several threads ------------------------------------------- */

/* One worker's share: the orders r = w, w + T, w + 2T, ... of each batch, in increasing r.
 * It keeps its own best (strictly better only, so the first of its maximal cuts); nothing
 * it writes is read by another thread until it has been joined. */
typedef struct kc_worker {
    const tsched_dag *dag;
    const uint32_t *order; /* this batch's order for the worker, n entries */
    uint32_t K, r;         /* r: the order's index, -1 when the batch has none for it */
    tsched_limits limits;  /* the caller's: limits are per thread */
    uint32_t *trial, *best_levels;
    double best;
    uint32_t best_r;
    tsched_status st;
    uint32_t err_r;
    char msg[1024];
} kc_worker;

static void kc_worker_step(kc_worker *w)
{
    if (w->st != TSCHED_OK || w->r == UINT32_MAX)
        return;
    double cw;
    tsched_status st = ts_kcut_order(w->trial, &cw, w->dag, w->order, w->K);
    if (st != TSCHED_OK) {
        w->st = st;
        w->err_r = w->r;
        snprintf(w->msg, sizeof w->msg, "%s", tsched_last_error());
        return;
    }
    if (cw > w->best) { /* ties: the first order */
        uint32_t *t = w->best_levels;
        w->best_levels = w->trial;
        w->trial = t;
        w->best = cw;
        w->best_r = w->r;
    }
}

static void *kc_worker_main(void *arg)
{
    kc_worker *w = arg;
    tsched_limits_set(&w->limits);
    kc_worker_step(w);
    return NULL;
}

/* Worker threads for `orders` orders of an n-node DAG with K levels: the option (0 = the
 * online CPUs), at most one per order, and at most as many as DP tables fit in the table
 * budget together. */
static uint32_t kc_threads(uint32_t opt, uint32_t orders, uint32_t n, uint32_t K)
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
    return t ? (uint32_t)t : 1;
}

/* Algorithm 1: the best max K-cut over `R` random topological orders drawn one after the
 * other from `seed`. The orders are drawn on the calling thread in batches of T (the
 * threads), so the draws and every order are those of a single thread; order b*T + w is cut
 * by worker w (worker 0 is the caller). The answer: the largest cut, ties to the smallest
 * order index, as the sequential loop picks it. */
static tsched_status kc_crux(uint32_t *levels, const tsched_dag *dag, const ts_dag_csr *csr,
                             const tsched_kcut_options *o, const char *fn)
{
    const uint32_t n = dag->n, R = o->orders, K = o->levels;
    const uint32_t T = kc_threads(o->threads, R, n, K);
    const size_t nn = n ? n : 1;
    tsched_status st = TSCHED_OK;
    kc_worker *ws = ts_calloc(T, sizeof *ws);
    pthread_t *th = ts_calloc(T, sizeof *th);
    uint8_t *started = ts_calloc(T, 1);
    uint32_t *orders = ts_malloc((size_t)T * nn, sizeof *orders);
    if (!ws || !th || !started || !orders) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t w = 0; w < T; w++) {
        ws[w].dag = dag;
        ws[w].order = orders + (size_t)w * nn;
        ws[w].K = K;
        ws[w].limits.size = sizeof ws[w].limits;
        tsched_limits_get(&ws[w].limits);
        ws[w].best = -1;
        ws[w].trial = ts_malloc(nn, sizeof *ws[w].trial);
        ws[w].best_levels = ts_malloc(nn, sizeof *ws[w].best_levels);
        if (!ws[w].trial || !ws[w].best_levels) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
    }
    ts_rng rng;
    ts_rng_seed(&rng, o->seed);
    for (uint32_t base = 0; base < R; base += T) {
        uint32_t cnt = R - base < T ? R - base : T;
        for (uint32_t w = 0; w < T; w++) {
            ws[w].r = w < cnt ? base + w : UINT32_MAX;
            if (w < cnt && (st = ts_dag_topo_order(orders + (size_t)w * nn, dag, csr, &rng, fn)) != TSCHED_OK)
                goto out; /* a cycle: the first draw finds it, before any worker runs */
        }
        for (uint32_t w = 1; w < cnt; w++)
            started[w] = pthread_create(&th[w], NULL, kc_worker_main, &ws[w]) == 0;
        kc_worker_step(&ws[0]);
        for (uint32_t w = 1; w < cnt; w++) {
            if (started[w])
                pthread_join(th[w], NULL);
            else
                kc_worker_step(&ws[w]); /* no thread could be made: the same work here */
            started[w] = 0;
        }
        /* The first failing order's error, as the sequential loop would report it. */
        uint32_t bad = UINT32_MAX;
        for (uint32_t w = 0; w < cnt; w++)
            if (ws[w].st != TSCHED_OK && (bad == UINT32_MAX || ws[w].err_r < ws[bad].err_r))
                bad = w;
        if (bad != UINT32_MAX) {
            st = ts_error(ws[bad].st, "%s", ws[bad].msg);
            goto out;
        }
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
            free(ws[w].trial);
            free(ws[w].best_levels);
        }
    free(ws);
    free(th);
    free(started);
    free(orders);
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
        if ((st = kc_crux(levels, dag, &csr, o, fn)) != TSCHED_OK)
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
