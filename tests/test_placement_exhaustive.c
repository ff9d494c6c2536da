/* The Eq. 2 metric on hand-made maps and the exhaustive solver, the exact reference the
 * MIP is tested against: equal to a naive K^(R*C) brute force (value and the very map, the
 * first optimum in row-major/domain-index order), hand-worked optima of Arnold-like
 * settings, its limits and errors, determinism, and the worst case (4x4 cells, 4 domains)
 * finishing. Exported: placement_exhaustive_tcase(). */
#include <math.h>
#include <stdint.h>

#include "common/rng.h"
#include "placement/solver.h"
#include "test_util.h"

TCase *placement_exhaustive_tcase(void);

#define EPS 1e-9

static ts_pproblem problem(uint32_t rows, uint32_t cols, const uint32_t *cap, uint32_t ndom, double alpha)
{
    ts_pproblem p = {.rows = rows,
                     .cols = cols,
                     .ndom = ndom,
                     .cap = cap,
                     .alpha = alpha,
                     .unit = TSCHED_UNIT_PP,
                     .time_limit_ms = 10000,
                     .seed = 1,
                     .w_dp = 1.0,
                     .w_pp = 1.0};
    return p;
}

static ts_metric metric(const uint32_t *dom, uint32_t rows, uint32_t cols, uint32_t ndom, double alpha)
{
    ts_metric m;
    ck_assert_ok(ts_metric_eval(&m, dom, rows, cols, ndom, alpha));
    return m;
}

static void check_metric(const uint32_t *dom, uint32_t rows, uint32_t cols, uint32_t ndom, double alpha,
                         uint32_t dp, uint32_t pp, uint32_t used, double weighted)
{
    ts_metric m = metric(dom, rows, cols, ndom, alpha);
    ck_assert_uint_eq(m.dp_max, dp);
    ck_assert_uint_eq(m.pp_max, pp);
    ck_assert_uint_eq(m.used, used);
    ck_assert_double_eq_tol(m.weighted, weighted, EPS);
}

/* Every cell in a real domain, no domain over its capacity. */
static void check_valid(const uint32_t *dom, const ts_pproblem *p)
{
    uint32_t used[TS_EXHAUSTIVE_MAX_DOMAINS] = {0};
    for (uint32_t i = 0; i < p->rows * p->cols; i++) {
        ck_assert_msg(dom[i] < p->ndom, "cell %u in domain %u of %u", i, dom[i], p->ndom);
        used[dom[i]]++;
    }
    for (uint32_t k = 0; k < p->ndom; k++)
        ck_assert_msg(used[k] <= p->cap[k], "domain %u holds %u cells, capacity %u", k, used[k], p->cap[k]);
}

static ts_metric solve(uint32_t *dom, const ts_pproblem *p)
{
    int optimal = -1;
    ck_assert_ok(ts_solve_exhaustive(dom, &optimal, p));
    ck_assert_int_eq(optimal, 1);
    check_valid(dom, p);
    return metric(dom, p->rows, p->cols, p->ndom, p->alpha);
}

START_TEST(metric_hand_made_maps)
{
    /* 2x2, four distinct domains:
     *   0 1     rows {0,1} {2,3} -> pp 2; columns {0,2} {1,3} -> dp 2; 4 domains used;
     *   2 3     weighted = 0.3*2 + 0.7*2 = 2. */
    const uint32_t four[] = {0, 1, 2, 3};
    check_metric(four, 2, 2, 4, 0.3, 2, 2, 4, 2.0);

    /* Arnold Fig. 12 shape: DP 6, TP 4, PP 2 -> 3 rows x 2 columns, two pods.
     * PP-aligned: whole rows in a pod (rows 0,1 in pod 0, row 2 in pod 1):
     *   0 0     every row one pod -> pp 1; each column sees {0,0,1} -> dp 2; used 2.
     *   0 0     alpha 0: 1; alpha 1: 2; alpha 0.3: 0.3*2 + 0.7*1 = 1.3.
     *   1 1 */
    const uint32_t pp_aligned[] = {0, 0, 0, 0, 1, 1};
    check_metric(pp_aligned, 3, 2, 2, 0.0, 2, 1, 2, 1.0);
    check_metric(pp_aligned, 3, 2, 2, 1.0, 2, 1, 2, 2.0);
    check_metric(pp_aligned, 3, 2, 2, 0.3, 2, 1, 2, 1.3);
    /* DP-aligned: whole columns in a pod:
     *   0 1     every column one pod -> dp 1; every row {0,1} -> pp 2; used 2.
     *   0 1     alpha 0: 2; alpha 1: 1; alpha 0.3: 0.3*1 + 0.7*2 = 1.7.
     *   0 1 */
    const uint32_t dp_aligned[] = {0, 1, 0, 1, 0, 1};
    check_metric(dp_aligned, 3, 2, 2, 0.0, 1, 2, 2, 2.0);
    check_metric(dp_aligned, 3, 2, 2, 1.0, 1, 2, 2, 1.0);
    check_metric(dp_aligned, 3, 2, 2, 0.3, 1, 2, 2, 1.7);

    /* Split units: 2x3 where row 0 is split and the second row is whole:
     *   0 0 1   rows {0,1} {1} -> pp 2; columns {0,1} {0,1} {1} -> dp 2; used 2.
     *   1 1 1   alpha 0.3: 0.6 + 1.4 = 2. */
    const uint32_t split[] = {0, 0, 1, 1, 1, 1};
    check_metric(split, 2, 3, 3, 0.3, 2, 2, 2, 2.0);

    /* 3x3 with three domains, only row 0 split:
     *   0 1 2   rows {0,1,2} {0} {0} -> pp 3;
     *   0 0 0   columns {0} {1,0} {2,0} -> dp 2; used 3.
     *   0 0 0   alpha 0.5: 0.5*2 + 0.5*3 = 2.5. */
    const uint32_t star[] = {0, 1, 2, 0, 0, 0, 0, 0, 0};
    check_metric(star, 3, 3, 3, 0.5, 2, 3, 3, 2.5);

    /* Everything in the last of four domains: all spreads 1, one domain used, and the
     * weighted value is 1 for any alpha. */
    const uint32_t one[] = {3, 3, 3, 3, 3, 3};
    check_metric(one, 2, 3, 4, 0.0, 1, 1, 1, 1.0);
    check_metric(one, 2, 3, 4, 0.7, 1, 1, 1, 1.0);

    /* A single row: the DP groups are single cells (dp 1), the row spans 3 domains. */
    const uint32_t row[] = {2, 0, 1, 0};
    check_metric(row, 1, 4, 3, 0.3, 1, 3, 3, 0.3 + 0.7 * 3);
}
END_TEST

/* Naive reference: every one of the K^(R*C) maps in lexicographic order (cell 0 most
 * significant), capacity checked, spreads counted directly, the first strictly better
 * (by more than EPS) map kept. No pruning, no symmetry. */
typedef struct naive_result {
    double value;
    uint32_t map[9];
} naive_result;

static double naive_value(const uint32_t *dom, uint32_t rows, uint32_t cols, double alpha)
{
    uint32_t dp = 0, pp = 0;
    for (uint32_t r = 0; r < rows; r++) {
        int seen[3] = {0, 0, 0};
        uint32_t n = 0;
        for (uint32_t c = 0; c < cols; c++)
            if (!seen[dom[r * cols + c]]++)
                n++;
        pp = n > pp ? n : pp;
    }
    for (uint32_t c = 0; c < cols; c++) {
        int seen[3] = {0, 0, 0};
        uint32_t n = 0;
        for (uint32_t r = 0; r < rows; r++)
            if (!seen[dom[r * cols + c]]++)
                n++;
        dp = n > dp ? n : dp;
    }
    return alpha * dp + (1.0 - alpha) * pp;
}

static naive_result naive_optimum(const ts_pproblem *p)
{
    uint32_t n = p->rows * p->cols, dom[9] = {0};
    naive_result best = {.value = INFINITY};
    for (;;) {
        uint32_t used[3] = {0, 0, 0};
        int ok = 1;
        for (uint32_t i = 0; i < n; i++)
            used[dom[i]]++;
        for (uint32_t k = 0; k < p->ndom; k++)
            ok &= used[k] <= p->cap[k];
        if (ok) {
            double v = naive_value(dom, p->rows, p->cols, p->alpha);
            if (v < best.value - EPS) {
                best.value = v;
                memcpy(best.map, dom, n * sizeof dom[0]);
            }
        }
        /* next map: odometer with the last cell fastest */
        uint32_t i = n;
        while (i > 0 && dom[i - 1] == p->ndom - 1)
            dom[--i] = 0;
        if (i == 0)
            break;
        dom[i - 1]++;
    }
    return best;
}

START_TEST(exhaustive_equals_naive_brute_force)
{
    static const double alphas[] = {0.0, 0.3, 0.5, 0.7, 1.0};
    ts_rng rng;
    ts_rng_seed(&rng, 20260101);
    uint32_t tested = 0;
    while (tested < 320) {
        uint32_t rows = 1 + (uint32_t)ts_rng_below(&rng, 9);
        uint32_t cols = 1 + (uint32_t)ts_rng_below(&rng, 9 / rows);
        uint32_t ndom = 1 + (uint32_t)ts_rng_below(&rng, 3), n = rows * cols;
        uint32_t cap[3] = {0, 0, 0}, total = 0;
        /* capacities from 0 (a full domain) to a little over the job (never binding) */
        for (uint32_t k = 0; k < ndom; k++) {
            cap[k] = (uint32_t)ts_rng_below(&rng, n + 3);
            total += cap[k];
        }
        if (total < n)
            continue;
        double alpha = alphas[tested % 5];
        ts_pproblem p = problem(rows, cols, cap, ndom, alpha);
        naive_result want = naive_optimum(&p);
        uint32_t dom[TS_EXHAUSTIVE_MAX_CELLS];
        ts_metric got = solve(dom, &p);
        ck_assert_msg(fabs(got.weighted - want.value) < EPS,
                      "%ux%u caps %u %u %u (K %u) alpha %.1f: exhaustive %.3f, brute force %.3f", rows, cols, cap[0],
                      cap[1], cap[2], ndom, alpha, got.weighted, want.value);
        /* The documented tie-breaking: the first optimum in row-major, domain-index order. */
        for (uint32_t i = 0; i < n; i++)
            ck_assert_msg(dom[i] == want.map[i], "%ux%u caps %u %u %u alpha %.1f: cell %u is %u, first optimum has %u",
                          rows, cols, cap[0], cap[1], cap[2], alpha, i, dom[i], want.map[i]);
        tested++;
    }
}
END_TEST

START_TEST(exhaustive_known_optima)
{
    uint32_t dom[TS_EXHAUSTIVE_MAX_CELLS];
    ts_metric m;

    /* Arnold setting (i): 3 pods of 6 free nodes; DP 12, TP 4, PP 2 -> 6 rows x 2 columns
     * = 12 nodes. Rows are 2 cells, columns 6 cells.
     * - pp 1 (whole rows): a pod holds 3 rows, so each column meets >= 2 pods: (dp 2, pp 1),
     *   reached by rows 0-2 in pod 0, rows 3-5 in pod 1.
     * - dp 1 (whole columns): each column fills a pod, so each row meets 2 pods: (1, 2).
     * - (1, 1) would need all 12 cells in one pod of 6: impossible.
     * So alpha < 0.5 -> (2,1), weighted alpha*2 + (1-alpha); alpha > 0.5 -> (1,2),
     * weighted alpha + 2(1-alpha); alpha 0.5 -> both 1.5. The map "cells 0-5 in pod 0,
     * 6-11 in pod 1" is the lexicographically first feasible map at all, and it is
     * (2,1), so it is the answer for every alpha <= 0.5 (ties broken by search order). */
    const uint32_t pods3[] = {6, 6, 6};
    const uint32_t rows_first[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    const double low[] = {0.0, 0.3, 0.5};
    for (int a = 0; a < 3; a++) {
        ts_pproblem p = problem(6, 2, pods3, 3, low[a]);
        m = solve(dom, &p);
        ck_assert_uint_eq(m.dp_max, 2);
        ck_assert_uint_eq(m.pp_max, 1);
        ck_assert_double_eq_tol(m.weighted, low[a] * 2 + (1 - low[a]), EPS);
        ck_assert_mem_eq(dom, rows_first, sizeof rows_first);
    }
    const double high[] = {0.7, 1.0};
    for (int a = 0; a < 2; a++) {
        ts_pproblem p = problem(6, 2, pods3, 3, high[a]);
        m = solve(dom, &p);
        ck_assert_uint_eq(m.dp_max, 1);
        ck_assert_uint_eq(m.pp_max, 2);
        ck_assert_double_eq_tol(m.weighted, high[a] + 2 * (1 - high[a]), EPS);
        /* first such map: column 0 in pod 0, column 1 in pod 1 */
        for (uint32_t i = 0; i < 12; i++)
            ck_assert_uint_eq(dom[i], i % 2);
    }

    /* 4x4 on 4 pods of 4. dp 1 puts each column (4 cells) alone in a pod, so rows meet
     * all 4 pods: (1,4). Symmetrically pp 1 gives (4,1). With dp, pp >= 2, 2x2 blocks give
     * (2,2). alpha 0.5: 2.5, 2.5, 2 -> optimum 2 at (2,2). alpha 0.3: (4,1) = 1.2 + 0.7
     * = 1.9 beats (2,2) = 2 and (1,4) = 3.1; alpha 0.7: (1,4) = 1.9 by symmetry. */
    const uint32_t four4[] = {4, 4, 4, 4};
    ts_pproblem p = problem(4, 4, four4, 4, 0.5);
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 2);
    ck_assert_uint_eq(m.pp_max, 2);
    ck_assert_double_eq_tol(m.weighted, 2.0, EPS);
    p.alpha = 0.3;
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 4);
    ck_assert_uint_eq(m.pp_max, 1);
    ck_assert_double_eq_tol(m.weighted, 1.9, EPS);
    p.alpha = 0.7;
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 1);
    ck_assert_uint_eq(m.pp_max, 4);
    ck_assert_double_eq_tol(m.weighted, 1.9, EPS);

    /* Capacity forces split rows: 2x3 on 3 pods of 2. No row of 3 fits a pod, so pp >= 2;
     * the map 0 0 1 / 1 2 2 gives pp 2 and columns {0,1} {0,2} {1,2} -> dp 2. Can dp be 1?
     * Each column (2 cells) whole in a pod fills it, so rows meet 3 pods: (1,3).
     * alpha 0 -> pp 2, weighted 2. alpha 1 -> dp 1, weighted 1. alpha 0.5: (2,2) = 2 and
     * (1,3) = 2 tie. */
    const uint32_t pods2[] = {2, 2, 2};
    p = problem(2, 3, pods2, 3, 0.0);
    m = solve(dom, &p);
    ck_assert_uint_eq(m.pp_max, 2);
    ck_assert_double_eq_tol(m.weighted, 2.0, EPS);
    p.alpha = 1.0;
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 1);
    ck_assert_double_eq_tol(m.weighted, 1.0, EPS);
    p.alpha = 0.5;
    m = solve(dom, &p);
    ck_assert_double_eq_tol(m.weighted, 2.0, EPS);

    /* One row of 16 cells (dp always 1) on pods of 4, 4, 5, 6: any three hold at most 15,
     * so the row needs all four pods: pp 4, weighted 0.3 + 0.7 * 4 = 3.1. Capacities
     * 4, 12, 5, 6: pod 1 + pod 3 hold 18, so pp 2 (no pod holds 16). */
    const uint32_t caps_a[] = {4, 4, 5, 6}, caps_b[] = {4, 12, 5, 6};
    p = problem(1, 16, caps_a, 4, 0.3);
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 1);
    ck_assert_uint_eq(m.pp_max, 4);
    ck_assert_double_eq_tol(m.weighted, 3.1, EPS);
    p.cap = caps_b;
    m = solve(dom, &p);
    ck_assert_uint_eq(m.pp_max, 2);
    /* the same as one column: dp 2, pp 1 */
    p = problem(16, 1, caps_b, 4, 0.3);
    m = solve(dom, &p);
    ck_assert_uint_eq(m.dp_max, 2);
    ck_assert_uint_eq(m.pp_max, 1);

    /* A domain that holds the whole job: everything in it, spreads 1. Equal huge
     * capacities are interchangeable, so the first (pod 0) is taken. */
    const uint32_t big[] = {100, 100, 3};
    p = problem(3, 3, big, 3, 0.3);
    m = solve(dom, &p);
    ck_assert_double_eq_tol(m.weighted, 1.0, EPS);
    for (uint32_t i = 0; i < 9; i++)
        ck_assert_uint_eq(dom[i], 0);
    /* ...and a domain with no free node is never used */
    const uint32_t zero_first[] = {0, 9, 9};
    p = problem(3, 3, zero_first, 3, 0.3);
    m = solve(dom, &p);
    ck_assert_double_eq_tol(m.weighted, 1.0, EPS);
    for (uint32_t i = 0; i < 9; i++)
        ck_assert_uint_eq(dom[i], 1);
}
END_TEST

START_TEST(exhaustive_limits_and_errors)
{
    uint32_t dom[32];
    int optimal = -1;
    const uint32_t cap4[] = {8, 8, 8, 8}, cap5[] = {4, 4, 4, 4, 4};

    /* 17 cells */
    ts_pproblem p = problem(1, 17, cap4, 4, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INVALID);
    ck_assert_errmsg_has("17 cells");
    ck_assert_errmsg_has("16 cells");
    ck_assert_int_eq(optimal, 0);
    p = problem(3, 6, cap4, 4, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INVALID);
    ck_assert_errmsg_has("3 x 6 = 18 cells");
    /* 5 domains */
    p = problem(2, 2, cap5, 5, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INVALID);
    ck_assert_errmsg_has("5 domains");
    ck_assert_errmsg_has("4 domains");
    /* exactly at the limits is fine */
    p = problem(4, 4, cap4, 4, 0.3);
    ck_assert_ok(ts_solve_exhaustive(dom, &optimal, &p));
    ck_assert_int_eq(optimal, 1);
    /* not enough free nodes: 3 + 2 + 4 = 9 < 10 */
    const uint32_t small[] = {3, 2, 4};
    optimal = -1;
    p = problem(2, 5, small, 3, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INFEASIBLE);
    ck_assert_errmsg_has("10 cells");
    ck_assert_errmsg_has("9 free");
    ck_assert_int_eq(optimal, 0);
    /* no domains at all */
    p = problem(1, 1, NULL, 0, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INFEASIBLE);
    /* an empty matrix, NULL arguments, alpha out of [0, 1] */
    p = problem(0, 3, cap4, 4, 0.3);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_INVALID);
    p = problem(2, 2, cap4, 4, 0.3);
    ck_assert_status(ts_solve_exhaustive(NULL, &optimal, &p), TSCHED_E_INVALID);
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, NULL), TSCHED_E_INVALID);
    p.alpha = 1.5;
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_RANGE);
    p.alpha = NAN;
    ck_assert_status(ts_solve_exhaustive(dom, &optimal, &p), TSCHED_E_RANGE);
    /* optimal may be NULL */
    p.alpha = 0.3;
    ck_assert_ok(ts_solve_exhaustive(dom, NULL, &p));
}
END_TEST

START_TEST(exhaustive_deterministic)
{
    ts_rng rng;
    ts_rng_seed(&rng, 7);
    for (int t = 0; t < 40; t++) {
        uint32_t cap[4];
        for (int k = 0; k < 4; k++)
            cap[k] = 4 + (uint32_t)ts_rng_below(&rng, 3);
        ts_pproblem p = problem(4, 4, cap, 4, ts_rng_double(&rng));
        uint32_t a[16], b[16];
        int oa = 0, ob = 0;
        ck_assert_ok(ts_solve_exhaustive(a, &oa, &p));
        ck_assert_ok(ts_solve_exhaustive(b, &ob, &p));
        ck_assert_mem_eq(a, b, sizeof a);
        ck_assert_int_eq(oa, ob);
    }
}
END_TEST

/* The largest instances allowed: 4x4 (and the other 16-cell shapes) on 4 domains of 4-6
 * free nodes, every capacity combination, several alphas. Each must finish (timing is
 * measured outside the test suite) with a valid, proven-optimal map no worse than the
 * aligned fills and no better than the trivial bound. */
START_TEST(exhaustive_worst_case_finishes)
{
    static const double alphas[] = {0.0, 0.3, 0.5, 0.7, 1.0};
    static const uint32_t shapes[][2] = {{4, 4}, {2, 8}, {8, 2}};
    for (int s = 0; s < 3; s++)
        for (uint32_t code = 0; code < 81; code++) {
            uint32_t cap[4] = {4 + code % 3, 4 + code / 3 % 3, 4 + code / 9 % 3, 4 + code / 27 % 3};
            for (int a = 0; a < 5; a++) {
                ts_pproblem p = problem(shapes[s][0], shapes[s][1], cap, 4, alphas[a]);
                uint32_t dom[16];
                ts_metric m = solve(dom, &p);
                ck_assert_uint_ge(m.dp_max, 1);
                ck_assert_uint_ge(m.pp_max, 1);
                /* one domain never holds 16 cells here, so (1,1) is out of reach */
                ck_assert(m.dp_max + m.pp_max >= 3);
            }
        }
}
END_TEST

TCase *placement_exhaustive_tcase(void)
{
    TCase *tc = tcase_create("exhaustive");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, metric_hand_made_maps);
    tcase_add_test(tc, exhaustive_equals_naive_brute_force);
    tcase_add_test(tc, exhaustive_known_optima);
    tcase_add_test(tc, exhaustive_limits_and_errors);
    tcase_add_test(tc, exhaustive_deterministic);
    tcase_add_test(tc, exhaustive_worst_case_finishes);
    return tc;
}
