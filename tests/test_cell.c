/* The Cell estimator (doc/cell.md §2-§4): stage determination against enumeration of all
 * cut vectors, every plan space against a brute force over an independent transcription of
 * the §3.2 formulas written here, the worked example by hand, monotonicity, op profiles,
 * tuning and bad inputs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/estimate_internal.h"
#include "common/rng.h"
#include "test_util.h"

__extension__ typedef unsigned __int128 u128;

/* ------------------------------------------------------------------------------------------
 * Reference model: the §3.2 formulas transcribed again, without model.c / plans.c / stages.c
 * ------------------------------------------------------------------------------------------ */

typedef struct rcell {
    uint32_t h, l, V, seq, gb;
    double tflops, mem_gib, intra, eff;
    uint32_t G;
    double U;
    const tsched_op_profile *prof;
    uint32_t N, S;
} rcell;

static double r_phi(const rcell *c, uint32_t i)
{
    double h = c->h, sq = c->seq;
    double v = 72 * sq * h * h + 12 * sq * sq * h;
    if (i == c->l - 1)
        v += 6 * sq * h * c->V;
    return v;
}

static double r_p(const rcell *c, uint32_t i)
{
    double h = c->h;
    double v = 12 * h * h + 9 * h;
    if (i == 0)
        v += h * ((double)c->V + c->seq);
    if (i == c->l - 1)
        v += h * c->V;
    return v;
}

static void r_gpus(uint32_t *g, uint32_t N, uint32_t S)
{
    for (uint32_t s = 0; s < S; s++)
        g[s] = N / S + (s + N % S >= S ? 1 : 0);
}

/* One option's terms by the note's formulas (layout of §1). */
typedef struct rterm {
    double C, X, K, A, M;
} rterm;

static int same_node(uint32_t a, uint32_t b, uint32_t G) { return a / G == b / G; }

static rterm r_term(const rcell *c, const uint32_t *cut, const uint32_t *g, uint32_t s, uint32_t t)
{
    double F = c->tflops * 1e12 * c->eff, W = c->intra * 1e9 / 8, U = c->U * 1e9 / 8;
    uint32_t B = 4 * c->S, o = 0, op = 0;
    for (uint32_t k = 0; k < s; k++) {
        op = o;
        o += g[k];
    }
    double m = (double)c->gb / B;
    uint32_t d = g[s] / t, n = cut[s + 1] - cut[s];
    int tp_in = 1;
    for (uint32_t j = 0; j < d; j++)
        if (!same_node(o + j * t, o + (j + 1) * t - 1, c->G))
            tp_in = 0;
    double bwtp = tp_in ? W : U;
    double bwdp = same_node(o, o + g[s] - 1, c->G) ? W : U;
    double bwb = s > 0 && same_node(op, o + g[s] - 1, c->G) ? W : U;
    double Phi = 0, Pi = 0, act = 0;
    rterm r = {0, 0, 0, 0, 0};
    if (!c->prof) {
        for (uint32_t i = cut[s]; i < cut[s + 1]; i++) {
            Phi += r_phi(c, i);
            Pi += r_p(c, i);
        }
        double a = 2 * m * c->seq * c->h;
        r.C = m * Phi / (g[s] * F);
        if (t > 1)
            r.X = n * 4.0 * 2 * (t - 1) / t * (a / d) / bwtp;
        if (s > 0)
            r.K = 2 * ((a / g[s]) / bwb + (t > 1 ? (t - 1.0) / t * (a / d) / bwtp : 0));
        if (d > 1)
            r.A = 2.0 * (d - 1) / d * 4 * Pi / t / bwdp;
        r.M = 16 * Pi / t + (double)(c->S - s) * n * (m / d) * 34 * c->seq * c->h / t;
    } else {
        const ts_prof_layer *L = c->prof->layers;
        for (uint32_t i = cut[s]; i < cut[s + 1]; i++) {
            Phi += L[i].time_s;
            Pi += L[i].params;
            act += L[i].act_bytes;
        }
        r.C = m * Phi / g[s];
        if (t > 1)
            for (uint32_t i = cut[s]; i < cut[s + 1]; i++)
                r.X += 4 * (2.0 * (t - 1) / t * (m * L[i].out_bytes / d) / bwtp);
        if (s > 0) {
            double a = m * L[cut[s] - 1].out_bytes;
            r.K = 2 * ((a / g[s]) / bwb + (t > 1 ? (t - 1.0) / t * (a / d) / bwtp : 0));
        }
        if (d > 1)
            r.A = 2.0 * (d - 1) / d * 4 * Pi / t / bwdp;
        r.M = 16 * Pi / t + (double)(c->S - s) * (m / d) * act / t;
    }
    return r;
}

static double r_T(const rcell *c, const uint32_t *cut, const uint32_t *g, const uint32_t *t, double *tau)
{
    double sum = 0, mcx = 0, ma = 0;
    for (uint32_t s = 0; s < c->S; s++) {
        rterm r = r_term(c, cut, g, s, t[s]);
        double ta = r.C + r.X + r.K;
        if (tau)
            tau[s] = ta;
        sum += ta;
        if (r.C + r.X > mcx)
            mcx = r.C + r.X;
        if (r.A > ma)
            ma = r.A;
    }
    return sum + (4 * c->S - 1) * mcx + ma;
}

static int r_fits(const rcell *c, const uint32_t *cut, const uint32_t *g, uint32_t s, uint32_t t)
{
    return r_term(c, cut, g, s, t).M <= 0.9 * c->mem_gib * 1073741824.0;
}

/* Options of one stage in a space (favour: 1 = tp). */
static uint32_t r_options(uint32_t *opt, uint32_t g, uint32_t G, int space, int favor_tp)
{
    uint32_t n = 0, tmax = 1;
    for (uint32_t t = 1; t <= g && t <= G; t++)
        if (g % t == 0)
            tmax = t;
    for (uint32_t t = 1; t <= g && t <= G; t++) {
        if (g % t)
            continue;
        int in = space == 2 || (space == 0 && (t == 1 || t == tmax)) ||
                 (space == 1 && (favor_tp ? (t * t >= g || t == tmax) : t * t <= g));
        if (in)
            opt[n++] = t;
    }
    return n;
}

/* Brute force over the product of the options. Returns T (or -1: no plan), best t vector,
 * and whether the runner-up lies within 1e-9 (a near tie: plans may legitimately differ). */
static double r_best(uint32_t *best_t, int *near_tie, uint64_t *plans, const rcell *c, const uint32_t *cut,
                     const uint32_t *g, int space, const int *favor)
{
    uint32_t S = c->S, opt[5][64], cnt[5], idx[5] = {0};
    uint64_t prod = 1;
    for (uint32_t s = 0; s < S; s++) {
        cnt[s] = r_options(opt[s], g[s], c->G, space, favor ? favor[s] : 0);
        prod *= cnt[s];
    }
    *plans = prod;
    double bestT = -1, second = INFINITY;
    uint32_t t[5];
    for (;;) {
        int ok = 1;
        for (uint32_t s = 0; s < S; s++) {
            t[s] = opt[s][idx[s]];
            if (!r_fits(c, cut, g, s, t[s]))
                ok = 0;
        }
        if (ok) {
            double T = r_T(c, cut, g, t, NULL);
            int better = bestT < 0 || T < bestT;
            if (!better && T == bestT) {
                uint32_t na = 0, nb = 0;
                for (uint32_t s = 0; s < S; s++) {
                    na += t[s] > 1;
                    nb += best_t[s] > 1;
                }
                if (na != nb)
                    better = na < nb;
                else
                    for (uint32_t s = 0; s < S; s++)
                        if (t[s] != best_t[s]) {
                            better = t[s] < best_t[s];
                            break;
                        }
            }
            if (better) {
                if (bestT >= 0 && bestT < second)
                    second = bestT;
                bestT = T;
                memcpy(best_t, t, S * sizeof *t);
            } else if (T < second) {
                second = T;
            }
        }
        uint32_t s = 0;
        while (s < S && ++idx[s] == cnt[s])
            idx[s++] = 0;
        if (s == S)
            break;
    }
    *near_tie = bestT >= 0 && second <= bestT * (1 + 1e-9);
    return bestT;
}

/* Cut vectors by enumeration: (a) exact on phi (u128 cross-multiplication) or, under a
 * profile, doubles with 1e-12; (b) bytes crossing; (c) lexicographic. */
static int r_cut_better(const rcell *c, const uint32_t *g, const uint32_t *a, const uint32_t *b)
{
    uint32_t S = c->S;
    if (!c->prof) {
        /* bottleneck as a fraction num / den */
        u128 an = 0, bn = 0;
        uint32_t ad = 1, bd = 1;
        for (uint32_t s = 0; s < S; s++) {
            u128 wa = 0, wb = 0;
            for (uint32_t i = a[s]; i < a[s + 1]; i++)
                wa += (u128)(72ull * c->seq * c->h * c->h + 12ull * c->seq * c->seq * c->h) +
                      (i == c->l - 1 ? (u128)6 * c->seq * c->h * c->V : 0);
            for (uint32_t i = b[s]; i < b[s + 1]; i++)
                wb += (u128)(72ull * c->seq * c->h * c->h + 12ull * c->seq * c->seq * c->h) +
                      (i == c->l - 1 ? (u128)6 * c->seq * c->h * c->V : 0);
            if (wa * ad > an * g[s]) {
                an = wa;
                ad = g[s];
            }
            if (wb * bd > bn * g[s]) {
                bn = wb;
                bd = g[s];
            }
        }
        if (an * bd != bn * ad)
            return an * bd < bn * ad;
    } else {
        const ts_prof_layer *L = c->prof->layers;
        double ba = 0, bb = 0, ya = 0, yb = 0;
        for (uint32_t s = 0; s < S; s++) {
            double wa = 0, wb = 0;
            for (uint32_t i = a[s]; i < a[s + 1]; i++)
                wa += L[i].time_s;
            for (uint32_t i = b[s]; i < b[s + 1]; i++)
                wb += L[i].time_s;
            if (wa / g[s] > ba)
                ba = wa / g[s];
            if (wb / g[s] > bb)
                bb = wb / g[s];
            if (s + 1 < S) {
                ya += L[a[s + 1] - 1].out_bytes;
                yb += L[b[s + 1] - 1].out_bytes;
            }
        }
        if (ba > bb * (1 + 1e-12))
            return 0;
        if (bb > ba * (1 + 1e-12))
            return 1;
        if (ya > yb * (1 + 1e-12))
            return 0;
        if (yb > ya * (1 + 1e-12))
            return 1;
    }
    for (uint32_t s = 1; s < S; s++)
        if (a[s] != b[s])
            return a[s] < b[s];
    return 0;
}

static void r_cuts(uint32_t *best, const rcell *c, const uint32_t *g)
{
    uint32_t S = c->S, l = c->l, cur[8];
    cur[0] = 0;
    cur[S] = l;
    for (uint32_t s = 1; s < S; s++)
        cur[s] = s;
    int have = 0;
    for (;;) {
        if (!have || r_cut_better(c, g, cur, best)) {
            memcpy(best, cur, (S + 1) * sizeof *cur);
            have = 1;
        }
        /* next combination of S-1 cuts from 1..l-1 */
        int s = (int)S - 1;
        while (s >= 1 && cur[s] == l - (S - s))
            s--;
        if (s < 1)
            break;
        cur[s]++;
        for (uint32_t k = (uint32_t)s + 1; k < S; k++)
            cur[k] = cur[k - 1] + 1;
    }
}

/* ------------------------------------------------------------------------------------------
 * Library side helpers
 * ------------------------------------------------------------------------------------------ */

static ts_cell_in mk_in(const rcell *c, ts_gpu *gpu)
{
    gpu->name = (char *)"X1";
    gpu->tflops = c->tflops;
    gpu->mem_gib = c->mem_gib;
    gpu->intra_gbps = c->intra;
    gpu->efficiency = c->eff;
    gpu->note = NULL;
    ts_cell_in in = {.pool = "X1/8",
                     .gpu = gpu,
                     .G = c->G,
                     .U_gbps = c->U,
                     .hidden = c->h,
                     .layers = c->l,
                     .vocab = c->V,
                     .seq = c->seq,
                     .global_batch = c->gb,
                     .moe_experts = 0,
                     .profile = c->prof};
    return in;
}

static tsched_cell *est(const rcell *c, tsched_plan_space space)
{
    ts_gpu gpu;
    ts_cell_in in = mk_in(c, &gpu);
    tsched_cell *cell = NULL;
    ck_assert_ok(ts_cell_estimate_in(&cell, &in, c->N, c->S, space));
    ck_assert_ptr_nonnull(cell);
    return cell;
}

static rcell worked(uint32_t N, uint32_t S)
{
    rcell c = {1024, 4, 32000, 512, 64, 312, 80, 2400, 0.5, 4, 100, NULL, N, S};
    return c;
}

static int rel_eq(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

/* ------------------------------------------------------------------------------------------
 * (c) the worked example of §3.2
 * ------------------------------------------------------------------------------------------ */

START_TEST(worked_example_terms)
{
    rcell c = worked(4, 4);
    ts_gpu gpu;
    ts_cell_in in = mk_in(&c, &gpu);
    /* one layer per stage: Phi_s = phi_s, Pi_s = p_s */
    uint32_t first[5] = {0, 1, 2, 3, 4}, g[4] = {1, 1, 1, 1};
    ts_cm_stage cst[4];
    ts_cm cm;
    cm.st = cst;
    ts_cm_init(&cm, &in, 4, 4, first, g);
    const double phi[4] = {41875931136.0, 41875931136.0, 41875931136.0, 142539227136.0};
    const double p[4] = {45884416, 12592128, 12592128, 45360128};
    for (int s = 0; s < 4; s++) {
        ck_assert_double_eq(cst[s].Phi, phi[s]);
        ck_assert_double_eq(cst[s].Pi, p[s]);
    }

    /* N 4, S 2 on one node of 4: g = (2, 2), b_1 = 3, B = 8, m = 8 */
    c = worked(4, 2);
    in = mk_in(&c, &gpu);
    uint32_t f2[3], g2[2];
    ts_stages_gpus(g2, 4, 2);
    ck_assert_uint_eq(g2[0], 2);
    ck_assert_uint_eq(g2[1], 2);
    ck_assert_ok(ts_stages_cut(f2, 1024, 4, 32000, 512, NULL, g2, 2));
    ck_assert_uint_eq(f2[1], 3);
    ts_cm_stage cst2[2];
    cm.st = cst2;
    ts_cm_init(&cm, &in, 4, 2, f2, g2);
    ck_assert_uint_eq(cm.B, 8);
    ck_assert_double_eq(cm.m, 8);
    ts_opt o[2][3]; /* [stage][t] */
    for (uint32_t s = 0; s < 2; s++)
        for (uint32_t t = 1; t <= 2; t++)
            ts_cm_option(&o[s][t], &cm, s, t);
    /* by hand: F = 156e12, W = 300e9, U = 12.5e9, a = 2 * 8 * 512 * 1024 = 8388608 bytes */
    double F = 156e12, W = 300e9, a = 8388608.0;
    double C0 = 8 * (3 * 41875931136.0) / (2 * F), C1 = 8 * 142539227136.0 / (2 * F);
    ck_assert(rel_eq(o[0][1].C, C0, 1e-15) && rel_eq(o[0][1].C, 0.003221225472, 1e-12));
    ck_assert(rel_eq(o[1][1].C, C1, 1e-15) && rel_eq(o[1][1].C, 0.0036548519778461536, 1e-12));
    ck_assert_double_eq(o[0][1].X, 0);
    ck_assert(rel_eq(o[0][2].X, 3 * 4 * (2 * 1.0 / 2) * (a / 1) / W, 1e-15)); /* 0.00033554432 */
    ck_assert(rel_eq(o[0][2].X, 0.00033554432, 1e-12));
    ck_assert(rel_eq(o[1][2].X, 1 * 4 * (2 * 1.0 / 2) * (a / 1) / W, 1e-15)); /* 0.000111848106... */
    ck_assert_double_eq(o[0][1].K, 0);
    ck_assert_double_eq(o[0][2].K, 0);
    ck_assert(rel_eq(o[1][1].K, 2 * ((a / 2) / W), 1e-15)); /* 2.7962026666e-05 */
    ck_assert(rel_eq(o[1][2].K, 2 * ((a / 2) / W + 0.5 * a / W), 1e-15));
    ck_assert(rel_eq(o[0][1].A, 2 * 0.5 * 4 * (45884416.0 + 2 * 12592128.0) / W, 1e-15));
    ck_assert(rel_eq(o[0][1].A, 0.0009475822933333333, 1e-12));
    ck_assert(rel_eq(o[1][1].A, 2 * 0.5 * 4 * 45360128.0 / W, 1e-15)); /* 0.0006048017066... */
    ck_assert_double_eq(o[0][2].A, 0);
    ck_assert_double_eq(o[1][2].A, 0);
    ck_assert_double_eq(o[0][1].M, 1564917760.0);
    ck_assert_double_eq(o[0][1].M, 16 * 71068672.0 + 2 * 3 * (8 / 2.0) * 34 * 512 * 1024);
    ck_assert_double_eq(o[1][1].M, 16 * 45360128.0 + 1 * 1 * (8 / 2.0) * 34 * 512 * 1024);
    ck_assert_double_eq(o[0][2].M, 16 * 71068672.0 / 2 + 2 * 3 * 8.0 * 34 * 512 * 1024 / 2);
    ck_assert_double_eq(o[1][2].M, 16 * 45360128.0 / 2 + 1 * 1 * 8.0 * 34 * 512 * 1024 / 2);

    /* T for the four t vectors */
    const double want[2][2] = {{0.033435586, 0.034358332}, {0.033428349, 0.033746295}};
    for (uint32_t t0 = 1; t0 <= 2; t0++)
        for (uint32_t t1 = 1; t1 <= 2; t1++) {
            const ts_opt *ch[2] = {&o[0][t0], &o[1][t1]};
            double T = ts_cm_iteration(&cm, ch);
            ck_assert_msg(fabs(T - want[t0 - 1][t1 - 1]) <= 5e-10, "T(%u,%u) = %.12g", t0, t1, T);
            uint32_t tv[2] = {t0, t1};
            ck_assert(rel_eq(T, r_T(&c, f2, g2, tv, NULL), 1e-14));
        }
}
END_TEST

START_TEST(worked_example_cells)
{
    rcell c = worked(4, 2);
    for (int sp = 0; sp < 3; sp++) {
        tsched_cell *cell = est(&c, (tsched_plan_space)sp);
        ck_assert_int_eq(tsched_cell_feasible(cell), 1);
        ck_assert_str_eq(tsched_cell_reason(cell), "");
        ck_assert(fabs(tsched_cell_iteration_s(cell) - 0.033428349) <= 5e-10);
        ck_assert(rel_eq(tsched_cell_throughput(cell), 64 / tsched_cell_iteration_s(cell), 1e-15));
        uint32_t fl, nl, g, dp, tp;
        double ts, mb;
        ck_assert_ok(tsched_cell_stage(&fl, &nl, &g, &dp, &tp, &ts, &mb, cell, 0));
        ck_assert_uint_eq(fl, 0);
        ck_assert_uint_eq(nl, 3);
        ck_assert_uint_eq(g, 2);
        ck_assert_uint_eq(tp, 2);
        ck_assert_uint_eq(dp, 1);
        ck_assert_double_eq(mb, 996368384.0);
        ck_assert_ok(tsched_cell_stage(&fl, &nl, &g, &dp, &tp, NULL, NULL, cell, 1));
        ck_assert_uint_eq(fl, 3);
        ck_assert_uint_eq(nl, 1);
        ck_assert_uint_eq(tp, 1);
        ck_assert_uint_eq(dp, 2);
        tsched_plan_space space;
        uint64_t plans;
        ck_assert_ok(tsched_cell_space(&space, &plans, cell));
        ck_assert_int_eq(space, sp);
        ck_assert_uint_eq(plans, sp == 1 ? 1 : 4); /* tuned: stage 0 tp {2}, stage 1 dp {1} */
        tsched_cell_free(cell);
    }

    /* N 8, S 2 on two nodes: assembled (1,1), exhaustive (2,1): a hybrid beats assembly */
    c = worked(8, 2);
    const double want[3] = {0.017986938, 0.017640540, 0.017640540};
    const uint32_t want_t0[3] = {1, 2, 2};
    for (int sp = 0; sp < 3; sp++) {
        tsched_cell *cell = est(&c, (tsched_plan_space)sp);
        ck_assert_int_eq(tsched_cell_feasible(cell), 1);
        ck_assert_msg(fabs(tsched_cell_iteration_s(cell) - want[sp]) <= 5e-10, "space %d T %.12g", sp,
                      tsched_cell_iteration_s(cell));
        uint32_t tp0, tp1, g0, nl0;
        ck_assert_ok(tsched_cell_stage(NULL, &nl0, &g0, NULL, &tp0, NULL, NULL, cell, 0));
        ck_assert_ok(tsched_cell_stage(NULL, NULL, NULL, NULL, &tp1, NULL, NULL, cell, 1));
        ck_assert_uint_eq(g0, 4);
        ck_assert_uint_eq(nl0, 3);
        ck_assert_uint_eq(tp0, want_t0[sp]);
        ck_assert_uint_eq(tp1, 1);
        tsched_cell_free(cell);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * (a) stage determination
 * ------------------------------------------------------------------------------------------ */

static void check_cuts(const rcell *c)
{
    uint32_t g[8], want[8], got[8];
    ts_stages_gpus(g, c->N, c->S);
    uint32_t rg[8], sum = 0;
    r_gpus(rg, c->N, c->S);
    for (uint32_t s = 0; s < c->S; s++) {
        ck_assert_uint_eq(g[s], rg[s]);
        sum += g[s];
    }
    ck_assert_uint_eq(sum, c->N);
    r_cuts(want, c, g);
    ck_assert_ok(ts_stages_cut(got, c->h, c->l, c->V, c->seq, c->prof, g, c->S));
    for (uint32_t s = 0; s <= c->S; s++)
        ck_assert_msg(got[s] == want[s], "l %u S %u N %u prof %d: cut %u is %u, enumeration %u", c->l, c->S, c->N,
                      c->prof != NULL, s, got[s], want[s]);
    uint32_t dp[8];
    ck_assert_ok(ts_stages_cut_dp(dp, c->h, c->l, c->V, c->seq, c->prof, g, c->S));
    for (uint32_t s = 0; s <= c->S; s++)
        ck_assert_msg(dp[s] == want[s], "DP: l %u S %u N %u prof %d: cut %u is %u, enumeration %u", c->l, c->S, c->N,
                      c->prof != NULL, s, dp[s], want[s]);
    for (uint32_t s = 0; s < c->S; s++)
        ck_assert_uint_gt(got[s + 1], got[s]);
}

static tsched_op_profile *rand_profile(ts_rng *r, uint32_t l, int integral_time)
{
    tsched_op_profile *p = calloc(1, sizeof *p);
    ck_assert_ptr_nonnull(p);
    p->gpu_type = strdup("X1");
    p->nlayers = l;
    p->layers = calloc(l, sizeof *p->layers);
    for (uint32_t i = 0; i < l; i++) {
        p->layers[i].time_s = integral_time ? (double)(1 + ts_rng_below(r, 4)) * 0.001
                                            : 0.0005 + ts_rng_double(r) * 0.004;
        p->layers[i].params = (double)(1000000 + ts_rng_below(r, 50000000));
        p->layers[i].act_bytes = (double)(1000000 + ts_rng_below(r, 100000000));
        p->layers[i].out_bytes = (double)(1 + ts_rng_below(r, 4)) * 1048576;
    }
    return p;
}

static void free_profile(tsched_op_profile *p)
{
    if (!p)
        return;
    for (uint32_t k = 0; k < p->ncoll; k++) {
        free(p->coll[k].bytes);
        free(p->coll[k].secs);
    }
    free(p->coll);
    free(p->layers);
    free(p->gpu_type);
    free(p);
}

START_TEST(stages_vs_enumeration)
{
    ts_rng r;
    ts_rng_seed(&r, 1234);
    unsigned cases = tu_n(3000);
    for (unsigned k = 0; k < cases; k++) {
        rcell c = worked(1, 1);
        c.l = 1 + (uint32_t)ts_rng_below(&r, 14);
        c.N = 1 + (uint32_t)ts_rng_below(&r, 16);
        uint32_t smax = c.l < c.N ? c.l : c.N;
        if (smax > 5)
            smax = 5;
        c.S = 1 + (uint32_t)ts_rng_below(&r, smax);
        c.h = 64u << ts_rng_below(&r, 6);
        c.seq = 128u << ts_rng_below(&r, 5);
        c.V = (uint32_t)ts_rng_below(&r, 3) * 25000;
        tsched_op_profile *p = NULL;
        int mode = (int)ts_rng_below(&r, 3); /* analytic, profile with ties, profile random */
        if (mode) {
            p = rand_profile(&r, c.l, mode == 1);
            c.prof = p;
        }
        check_cuts(&c);
        free_profile(p);
    }
}
END_TEST

/* Larger than enumeration reaches: the closed form equals the exact DP. */
START_TEST(stages_closed_vs_dp)
{
    ts_rng r;
    ts_rng_seed(&r, 77);
    unsigned cases = tu_n(3000);
    uint32_t a[130], b[130], g[129];
    for (unsigned k = 0; k < cases; k++) {
        uint32_t l = 1 + (uint32_t)ts_rng_below(&r, 128), N = 1 + (uint32_t)ts_rng_below(&r, 300);
        uint32_t smax = l < N ? l : N;
        uint32_t S = 1 + (uint32_t)ts_rng_below(&r, smax < 128 ? smax : 128);
        uint32_t h = 1 + (uint32_t)ts_rng_below(&r, 20000), seq = 1 + (uint32_t)ts_rng_below(&r, 9000);
        uint32_t V = ts_rng_below(&r, 4) ? (uint32_t)ts_rng_below(&r, 300000) : (uint32_t)ts_rng_below(&r, 60000000);
        ts_stages_gpus(g, N, S);
        ck_assert_ok(ts_stages_cut(a, h, l, V, seq, NULL, g, S));
        ck_assert_ok(ts_stages_cut_dp(b, h, l, V, seq, NULL, g, S));
        for (uint32_t s = 0; s <= S; s++)
            ck_assert_msg(a[s] == b[s], "l %u N %u S %u h %u seq %u V %u: cut %u closed %u DP %u", l, N, S, h, seq, V,
                          s, a[s], b[s]);
    }
}
END_TEST

START_TEST(stages_uniform)
{
    /* V = 0 makes every layer alike: l = k S on equal g gives k layers per stage */
    for (uint32_t S = 1; S <= 8; S++)
        for (uint32_t k = 1; k <= 6; k++)
            for (uint32_t q = 1; q <= 3; q++) {
                uint32_t first[9], g[8];
                ts_stages_gpus(g, S * q, S);
                ck_assert_ok(ts_stages_cut(first, 1024, k * S, 0, 512, NULL, g, S));
                for (uint32_t s = 0; s < S; s++)
                    ck_assert_uint_eq(first[s + 1] - first[s], k);
                /* with the head, the last stage carries it: at most k layers there */
                ck_assert_ok(ts_stages_cut(first, 1024, k * S, 32000, 512, NULL, g, S));
                ck_assert_uint_le(first[S] - first[S - 1], k);
                ck_assert_uint_eq(first[S], k * S);
            }
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * (b) plan spaces against brute force over the independent model
 * ------------------------------------------------------------------------------------------ */

static rcell rand_cell(ts_rng *r)
{
    static const double mems[] = {0.25, 0.5, 1, 2, 4, 8};
    rcell c;
    c.h = 128u << ts_rng_below(r, 5);
    c.l = 1 + (uint32_t)ts_rng_below(r, 12);
    c.V = ts_rng_below(r, 2) ? 32000 : 1000;
    c.seq = 128u << ts_rng_below(r, 4);
    c.gb = 1 + (uint32_t)ts_rng_below(r, 512);
    c.tflops = 10 + (double)ts_rng_below(r, 1000);
    c.eff = 0.2 + 0.8 * ts_rng_double(r);
    c.intra = 64 + (double)ts_rng_below(r, 3600);
    c.U = 10 + (double)ts_rng_below(r, 400);
    c.mem_gib = mems[ts_rng_below(r, 6)];
    c.G = 1u << ts_rng_below(r, 4);
    c.prof = NULL;
    uint32_t k = (uint32_t)ts_rng_below(r, 8);
    if (k < 3)
        c.N = 1 + (uint32_t)ts_rng_below(r, c.G); /* inside one node */
    else if (k < 7)
        c.N = c.G * (1 + (uint32_t)ts_rng_below(r, 32 / c.G)); /* whole nodes */
    else
        c.N = 1 + (uint32_t)ts_rng_below(r, 32);
    c.S = 1 + (uint32_t)ts_rng_below(r, 4);
    return c;
}

/* Check one Cell in all three spaces against the reference; returns 1 if feasible. */
static int check_cell(const rcell *c)
{
    tsched_cell *cell[3];
    for (int sp = 0; sp < 3; sp++)
        cell[sp] = est(c, (tsched_plan_space)sp);
    const char *why = c->S > c->l ? "more stages than layers"
                      : c->S > c->N ? "more stages than gpus"
                      : c->N > c->G && c->N % c->G ? "gpus not a multiple of the node size" : NULL;
    if (why) {
        for (int sp = 0; sp < 3; sp++) {
            ck_assert_int_eq(tsched_cell_feasible(cell[sp]), 0);
            ck_assert_str_eq(tsched_cell_reason(cell[sp]), why);
            ck_assert_double_eq(tsched_cell_iteration_s(cell[sp]), 0);
            tsched_cell_free(cell[sp]);
        }
        return 0;
    }
    uint32_t g[8], cut[8];
    r_gpus(g, c->N, c->S);
    r_cuts(cut, c, g);
    for (uint32_t s = 0; s < c->S; s++) {
        uint32_t fl, nl, gg;
        ck_assert_ok(tsched_cell_stage(&fl, &nl, &gg, NULL, NULL, NULL, NULL, cell[0], s));
        ck_assert_uint_eq(fl, cut[s]);
        ck_assert_uint_eq(nl, cut[s + 1] - cut[s]);
        ck_assert_uint_eq(gg, g[s]);
    }
    uint32_t ta[8], tt[8], te[8];
    int tie_a, tie_t, tie_e;
    uint64_t pa, pt, pe;
    double Ta = r_best(ta, &tie_a, &pa, c, cut, g, 0, NULL);
    if (Ta < 0) {
        for (int sp = 0; sp < 3; sp++) {
            ck_assert_int_eq(tsched_cell_feasible(cell[sp]), 0);
            ck_assert_str_eq(tsched_cell_reason(cell[sp]), "out of memory in every plan");
            tsched_cell_free(cell[sp]);
        }
        /* and the exhaustive space has no plan either */
        ck_assert(r_best(te, &tie_e, &pe, c, cut, g, 2, NULL) < 0);
        return 0;
    }
    int favor[8];
    for (uint32_t s = 0; s < c->S; s++) {
        favor[s] = ta[s] > 1;
        if (tie_a) { /* near tie: take the library's favours as the seeds */
            uint32_t tp;
            ck_assert_ok(tsched_cell_stage(NULL, NULL, NULL, NULL, &tp, NULL, NULL, cell[0], s));
            favor[s] = tp > 1;
        }
    }
    double Tt = r_best(tt, &tie_t, &pt, c, cut, g, 1, favor);
    double Te = r_best(te, &tie_e, &pe, c, cut, g, 2, NULL);
    ck_assert(Tt >= 0 && Te >= 0);
    const double Tref[3] = {Ta, Tt, Te};
    const uint32_t *tref[3] = {ta, tt, te};
    const int tie[3] = {tie_a, tie_t, tie_e};
    const uint64_t pref[3] = {pa, pt, pe};
    double T[3];
    for (int sp = 0; sp < 3; sp++) {
        tsched_cell *x = cell[sp];
        ck_assert_int_eq(tsched_cell_feasible(x), 1);
        T[sp] = tsched_cell_iteration_s(x);
        uint32_t t[8];
        double tau[8];
        for (uint32_t s = 0; s < c->S; s++) {
            uint32_t dp, tp, gg, fav;
            double ts, mb;
            ck_assert_ok(tsched_cell_stage(NULL, NULL, &gg, &dp, &tp, &ts, &mb, x, s));
            ck_assert_uint_eq(dp * tp, gg);
            t[s] = tp;
            tau[s] = ts;
            ck_assert(rel_eq(mb, r_term(c, cut, g, s, tp).M, 1e-12));
            ck_assert(mb <= 0.9 * c->mem_gib * 1073741824.0);
            fav = x->st[s].favor_tp;
            ck_assert_int_eq((int)fav, favor[s]);
        }
        double tau_ref[8];
        double Tre = r_T(c, cut, g, t, tau_ref);
        ck_assert_msg(rel_eq(T[sp], Tre, 1e-9), "space %d: T %.17g, recomputed %.17g", sp, T[sp], Tre);
        for (uint32_t s = 0; s < c->S; s++)
            ck_assert(rel_eq(tau[s], tau_ref[s], 1e-9));
        ck_assert_msg(rel_eq(T[sp], Tref[sp], 1e-9), "space %d: T %.17g, brute force %.17g", sp, T[sp], Tref[sp]);
        if (!tie[sp])
            for (uint32_t s = 0; s < c->S; s++)
                ck_assert_msg(t[s] == tref[sp][s], "space %d stage %u: t %u, brute force %u", sp, s, t[s],
                              tref[sp][s]);
        ck_assert(rel_eq(tsched_cell_throughput(x), c->gb / T[sp], 1e-15));
        tsched_plan_space space;
        uint64_t plans;
        ck_assert_ok(tsched_cell_space(&space, &plans, x));
        ck_assert_int_eq(space, sp);
        ck_assert_uint_eq(plans, pref[sp]);
    }
    ck_assert(T[2] <= T[1] * (1 + 1e-12));
    ck_assert(T[1] <= T[0] * (1 + 1e-12));
    for (int sp = 0; sp < 3; sp++)
        tsched_cell_free(cell[sp]);
    return 1;
}

START_TEST(plans_vs_brute_force)
{
    ts_rng r;
    ts_rng_seed(&r, 2026);
    unsigned feasible = 0, cases = tu_n(600), oom = 0;
    for (unsigned k = 0; k < cases; k++) {
        rcell c = rand_cell(&r);
        int f = check_cell(&c);
        feasible += f;
        oom += !f && c.S <= c.l && c.S <= c.N && !(c.N > c.G && c.N % c.G);
    }
    /* the generator must exercise both sides */
    ck_assert_uint_ge(feasible, cases / 5);
    ck_assert_uint_ge(oom, cases / 20);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */

static Suite *cell_suite(void)
{
    Suite *s = suite_create("cell");
    TCase *tc = tcase_create("estimate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, worked_example_terms);
    tcase_add_test(tc, worked_example_cells);
    tcase_add_test(tc, stages_vs_enumeration);
    tcase_add_test(tc, stages_uniform);
    tcase_add_test(tc, stages_closed_vs_dp);
    tcase_add_test(tc, plans_vs_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cell_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
