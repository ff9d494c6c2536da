/* Stage determination (doc/cell.md §2): GPUs per stage, then the cuts minimising (a) the
 * bottleneck max_s Phi_s / g_s, (b) the bytes crossing the cuts, (c) the cut vector
 * lexicographically.
 *
 * Analytic weights: phi_i = 6 seq h (12 h + 2 seq) (+ 6 seq h V on the last layer), so the
 * common factor 6 seq h drops out and (a) compares w_i = 12 h + 2 seq (+ V) exactly:
 * a stage sum is below 2^68 and g below 2^32, so cross-multiplied fractions fit in
 * unsigned __int128. Every boundary carries 2 seq h bytes, so (b) is a constant there.
 * With an op profile the weights are the layers' time_s (doubles, relative tolerance 1e-12)
 * and the cut bytes the out_bytes of the layer before each cut.
 *
 * (a) is a DP over (stages, layers) whose inner minimum is found by binary search: the
 * best bottleneck of a prefix is nondecreasing in its length when g is nondecreasing along
 * the pipeline (which §2.1 guarantees; removing a layer and shifting single-layer stages
 * forward never raises a stage's load per GPU), and a stage's load falls as its start moves
 * right. Then a suffix DP gives, for every (stage, first layer), the least bytes of a
 * completion whose stages all stay within beta* (infinite if none), via sliding-window
 * minima; (c) takes, stage by stage, the smallest end reaching that optimum. O(S l log l). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "estimate_internal.h"
#include "topo-sched/workload.h"

#define REL_TOL 1e-12

__extension__ typedef unsigned __int128 u128;

void ts_stages_gpus(uint32_t *g, uint32_t n_gpus, uint32_t stages)
{
    uint32_t q = n_gpus / stages, r = n_gpus % stages;
    for (uint32_t s = 0; s < stages; s++)
        g[s] = q + (s >= stages - r ? 1 : 0);
}

/* A stage load per GPU: exact n / d (analytic) or v (profile). */
typedef struct frac {
    u128 n;
    uint32_t d;
    double v;
} frac;

typedef struct wts {
    int exact;
    uint32_t l;
    uint64_t wb, wl; /* analytic: every layer's weight, the last layer's extra */
    const double *P; /* profile: prefix sums of time_s, l + 1 */
} wts;

static u128 w_exact(const wts *w, uint32_t i, uint32_t j)
{
    return (u128)(j - i) * w->wb + (j == w->l ? w->wl : 0);
}

static frac load(const wts *w, uint32_t i, uint32_t j, uint32_t g)
{
    frac f = {0, 1, 0};
    if (w->exact) {
        f.n = w_exact(w, i, j);
        f.d = g;
    } else {
        f.v = (w->P[j] - w->P[i]) / g;
    }
    return f;
}

static int frac_lt(const wts *w, frac a, frac b)
{
    if (w->exact)
        return a.n * b.d < b.n * a.d;
    return a.v < b.v;
}

/* Does stage (i..j-1) on g GPUs stay within beta (tolerance under a profile)? */
static int fits(const wts *w, uint32_t i, uint32_t j, uint32_t g, frac beta)
{
    if (w->exact)
        return w_exact(w, i, j) * beta.d <= beta.n * g;
    return (w->P[j] - w->P[i]) / g <= beta.v * (1 + REL_TOL);
}

tsched_status ts_stages_cut_dp(uint32_t *first, uint32_t hidden, uint32_t layers, uint32_t vocab, uint32_t seq,
                               const tsched_op_profile *prof, const uint32_t *g, uint32_t S)
{
    uint32_t l = layers;
    size_t L = (size_t)l + 1;
    /* scratch: two DP rows, prefix sums, bytes per boundary, suffix table, deque */
    if ((size_t)S + 4 > SIZE_MAX / 64 / L)
        return ts_error(TSCHED_E_NOMEM, "stages: %u stages of %u layers need too much memory", S, l);
    size_t need = 2 * L * sizeof(frac) + 2 * L * sizeof(double) + ((size_t)S + 1) * L * sizeof(double) +
                  L * sizeof(uint32_t);
    _Alignas(16) char stackbuf[8192];
    char *buf = need <= sizeof stackbuf ? stackbuf : ts_malloc(need, 1);
    if (!buf)
        return TSCHED_E_NOMEM;
    frac *fa = (frac *)buf, *fb = fa + L;
    double *P = (double *)(fb + L), *ob = P + L, *suf = ob + L;
    uint32_t *dq = (uint32_t *)(suf + (size_t)(S + 1) * L);

    wts w = {prof == NULL, l, 12ull * hidden + 2ull * seq, vocab, P};
    if (prof) {
        P[0] = 0;
        for (uint32_t i = 0; i < l; i++) {
            P[i + 1] = P[i] + prof->layers[i].time_s;
            ob[i] = prof->layers[i].out_bytes;
        }
    } else {
        for (uint32_t i = 0; i < l; i++)
            ob[i] = 0; /* 2 seq h at every boundary: a constant, so (b) never decides */
    }

    /* (a): f[s][j] = best bottleneck of layers 0..j-1 in stages 0..s-1 */
    frac *prev = fa, *cur = fb;
    for (uint32_t j = 1; j + S - 1 <= l; j++)
        prev[j] = load(&w, 0, j, g[0]);
    for (uint32_t s = 2; s <= S; s++) {
        uint32_t gs = g[s - 1];
        for (uint32_t j = s; j + (S - s) <= l; j++) {
            /* i in [s-1, j-1]: smallest i with f(i) >= load(i, j) */
            uint32_t lo = s - 1, hi = j; /* answer in [lo, hi]; hi = none */
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (!frac_lt(&w, prev[mid], load(&w, mid, j, gs)))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            int have = 0;
            frac best = {0, 1, 0};
            if (lo <= j - 1) {
                best = prev[lo];
                have = 1;
            }
            if (lo > s - 1) {
                frac c = load(&w, lo - 1, j, gs);
                if (!have || frac_lt(&w, c, best))
                    best = c;
            }
            cur[j] = best;
        }
        frac *t = prev;
        prev = cur;
        cur = t;
    }
    frac beta = prev[l];

    /* (b): suf[s][i] = least cut bytes of layers i..l-1 in stages s..S-1 within beta */
    double *row = suf + (size_t)S * L;
    for (uint32_t i = 0; i <= l; i++)
        row[i] = i == l ? 0 : INFINITY;
    for (uint32_t s = S; s-- > 0;) {
        double *nx = suf + (size_t)(s + 1) * L, *me = suf + (size_t)s * L;
        int last = s == S - 1;
        uint32_t head = 0, tail = 0, jn = 1; /* deque over j of val(j) = ob[j-1] + nx[j] */
        for (uint32_t i = 0; i <= l; i++) {
            me[i] = INFINITY;
            if (i == l)
                break;
            if (jn < i + 1)
                jn = i + 1;
            while (jn <= l && fits(&w, i, jn, g[s], beta)) {
                double v = (last ? 0 : ob[jn - 1]) + nx[jn];
                while (tail > head) {
                    uint32_t b = dq[tail - 1];
                    double vb = (last ? 0 : ob[b - 1]) + nx[b];
                    if (vb >= v)
                        tail--;
                    else
                        break;
                }
                dq[tail++] = jn++;
            }
            while (tail > head && dq[head] < i + 1)
                head++;
            if (tail > head)
                me[i] = (last ? 0 : ob[dq[head] - 1]) + nx[dq[head]];
        }
    }

    /* (c): smallest next cut reaching the optimum */
    uint32_t i = 0;
    first[0] = 0;
    for (uint32_t s = 0; s < S; s++) {
        const double *nx = suf + (size_t)(s + 1) * L;
        double target = suf[(size_t)s * L + i];
        int last = s == S - 1;
        uint32_t j = i + 1, pick = l;
        for (; j <= l && fits(&w, i, j, g[s], beta); j++) {
            double v = (last ? 0 : ob[j - 1]) + nx[j];
            if (v <= target * (1 + REL_TOL)) {
                pick = j;
                break;
            }
        }
        first[s + 1] = pick;
        i = pick;
    }
    first[S] = l;
    if (buf != stackbuf)
        free(buf);
    return TSCHED_OK;
}

/* ---- the analytic model in closed form ----
 * Every layer weighs a = 12 h + 2 seq except the last (a + V), and g takes two values, so
 * for a bound beta each stage s holds at most c_s(beta) layers: floor(beta g_s / a), the
 * last floor((beta g_last - V) / a). beta is feasible iff every c_s >= 1 and their sum
 * reaches l. beta* is the load of its bottleneck stage, k a / g for a stage before the last
 * (g = q or q + 1) or (k a + V) / g_last: per family, a binary search over k finds the least
 * feasible value, and beta* is the least of those. (c): stage s ends at the smallest j that
 * leaves the later stages no more than their capacities. O(S + log l), exact (the same
 * fractions as the DP). */

typedef struct cform {
    uint64_t a, V;  /* weights: a per layer, V more on the last */
    uint32_t l;
    uint32_t g0, gl; /* GPUs of stage 0 (= q) and of the last stage */
    uint32_t n0, n1; /* stages before the last with q and with q + 1 GPUs */
} cform;

/* c for beta = num / den on g GPUs with `add` extra weight, at most l (no stage holds more). */
static uint64_t cap_of(const cform *cf, u128 num, u128 den, uint32_t g, u128 add)
{
    u128 ng = num * g;
    if (ng < add * den)
        return 0;
    u128 c = (ng - add * den) / (den * cf->a);
    return c > cf->l ? cf->l : (uint64_t)c;
}

/* Capacities at beta = num / den: before the last with q (c[0]) and q + 1 (c[1]) GPUs, last (c[2]). */
static void caps_at(uint64_t *c, const cform *cf, u128 num, u128 den)
{
    c[0] = cap_of(cf, num, den, cf->g0, 0);
    c[1] = cap_of(cf, num, den, cf->g0 + 1, 0);
    c[2] = cap_of(cf, num, den, cf->gl, cf->V);
}

static int cf_feasible(const cform *cf, u128 num, u128 den)
{
    uint64_t c[3];
    caps_at(c, cf, num, den);
    if (c[2] == 0 || (cf->n0 && c[0] == 0) || (cf->n1 && c[1] == 0))
        return 0;
    return (u128)cf->n0 * c[0] + (u128)cf->n1 * c[1] + c[2] >= cf->l;
}

static void cut_closed(uint32_t *first, uint32_t hidden, uint32_t l, uint32_t vocab, uint32_t seq, const uint32_t *g,
                       uint32_t S)
{
    cform cf = {12ull * hidden + 2ull * seq, vocab, l, g[0], g[S - 1], 0, 0};
    for (uint32_t s = 0; s + 1 < S; s++) /* O(S), once */
        g[s] == g[0] ? cf.n0++ : cf.n1++;
    /* families of the bottleneck: before the last with q or q + 1 GPUs, the last (with V) */
    struct {
        int present;
        uint32_t g;
        u128 add;
    } fam[3] = {{cf.n0 > 0, g[0], 0}, {cf.n1 > 0, g[0] + 1, 0}, {1, g[S - 1], vocab}};
    u128 bn = 0, bd = 1;
    int have = 0;
    for (uint32_t f = 0; f < 3; f++) {
        if (!fam[f].present)
            continue;
        /* smallest k in [1, l] with beta_k = (k a + add) / g feasible */
        uint32_t lo = 1, hi = l + 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (cf_feasible(&cf, (u128)mid * cf.a + fam[f].add, fam[f].g))
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo > l)
            continue;
        u128 n = (u128)lo * cf.a + fam[f].add, d = fam[f].g;
        if (!have || n * bd < bn * d) {
            bn = n;
            bd = d;
            have = 1;
        }
    }
    /* (the last family is feasible at k = l, so `have` holds) */
    uint64_t c[3];
    caps_at(c, &cf, bn, bd);
    /* capacity of the stages after s; each cap <= l, so the sum fits */
    u128 after = (u128)cf.n0 * c[0] + (u128)cf.n1 * c[1] + c[2] - (cf.n0 ? c[0] : c[2]);
    uint32_t i = 0;
    first[0] = 0;
    for (uint32_t s = 0; s + 1 < S; s++) {
        /* the smallest end leaving the later stages at most their capacity */
        uint64_t j = i + 1;
        if (l > after && l - after > j)
            j = l - (uint64_t)after;
        first[s + 1] = (uint32_t)j;
        i = (uint32_t)j;
        after -= s + 2 < S ? c[g[s + 1] != g[0]] : 0;
    }
    first[S] = l;
}

tsched_status ts_stages_cut(uint32_t *first, uint32_t hidden, uint32_t layers, uint32_t vocab, uint32_t seq,
                            const tsched_op_profile *prof, const uint32_t *g, uint32_t S)
{
    if (prof)
        return ts_stages_cut_dp(first, hidden, layers, vocab, seq, prof, g, S);
    cut_closed(first, hidden, layers, vocab, seq, g, S);
    return TSCHED_OK;
}

tsched_status tsched_cell_stages(uint32_t *first_layer, uint32_t *gpus, const tsched_job *job,
                                 const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages)
{
    if (!first_layer)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_stages: first_layer is NULL");
    if (!gpus)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_stages: gpus is NULL");
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_stages: job is NULL");
    tsched_model m;
    m.size = sizeof m;
    if (tsched_job_model(&m, job) != TSCHED_OK)
        return ts_error(TSCHED_E_NOT_FOUND, "model: missing; a Cell estimate needs the model");
    if (n_gpus == 0)
        return ts_error(TSCHED_E_RANGE, "n_gpus: 0 is out of range (>= 1)");
    if (stages == 0)
        return ts_error(TSCHED_E_RANGE, "stages: 0 is out of range (>= 1)");
    if (m.layers == 0 || m.hidden == 0 || m.seq == 0)
        return ts_error(TSCHED_E_RANGE, "model.layers: %u with hidden %u and seq %u; all must be >= 1", m.layers,
                        m.hidden, m.seq);
    if (profile && profile->nlayers != m.layers)
        return ts_error(TSCHED_E_RANGE, "layers: %u entries, model has %u", profile->nlayers, m.layers);
    if (stages > m.layers)
        return ts_error(TSCHED_E_RANGE, "stages: %u is more stages than layers (%u)", stages, m.layers);
    if (stages > n_gpus)
        return ts_error(TSCHED_E_RANGE, "stages: %u is more stages than gpus (%u)", stages, n_gpus);
    ts_stages_gpus(gpus, n_gpus, stages);
    return ts_stages_cut(first_layer, m.hidden, m.layers, m.vocab, m.seq, profile, gpus, stages);
}
