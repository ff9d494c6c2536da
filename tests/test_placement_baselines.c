/* placement baselines of Arnold 7.1 (best-fit, random-fit, gpu-pack, topo-aware) on the
 * abstract problem of solver.h: validity, capacities and determinism on seeded random
 * instances, and each algorithm's own rule against an independent reference or a brute
 * force. Exported: placement_baselines_tcase(). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "common/rng.h"
#include "placement/baseline_util.h"
#include "placement/solver.h"
#include "test_util.h"

TCase *placement_baselines_tcase(void);

typedef tsched_status (*solver_fn)(uint32_t *dom, const ts_pproblem *p);

static const struct {
    const char *name;
    solver_fn fn;
} algos[] = {
    {"best-fit", ts_solve_best_fit},
    {"random-fit", ts_solve_random_fit},
    {"gpu-pack", ts_solve_gpu_pack},
    {"topo-aware", ts_solve_topo_aware},
};
#define NALGOS (sizeof algos / sizeof algos[0])

#define MAXK 8
#define MAXN 144 /* 12 x 12 */

typedef struct inst {
    ts_pproblem p;
    uint32_t cap[MAXK];
} inst;

static ts_pproblem base_problem(uint32_t rows, uint32_t cols, const uint32_t *cap, uint32_t ndom)
{
    ts_pproblem p = {.rows = rows,
                     .cols = cols,
                     .ndom = ndom,
                     .cap = cap,
                     .alpha = 0.5,
                     .unit = TSCHED_UNIT_PP,
                     .time_limit_ms = 1000,
                     .seed = 1,
                     .w_dp = 1.0,
                     .w_pp = 1.0};
    return p;
}

/* R, C in 1..12, K in 1..8, capacities with sum >= R*C; a third of the time one domain
 * can hold the whole job. */
static void random_inst(inst *in, ts_rng *rng)
{
    uint32_t rows = 1 + (uint32_t)ts_rng_below(rng, 12), cols = 1 + (uint32_t)ts_rng_below(rng, 12);
    uint32_t k = 1 + (uint32_t)ts_rng_below(rng, MAXK), n = rows * cols;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < k; i++) {
        in->cap[i] = (uint32_t)ts_rng_below(rng, n + 1);
        sum += in->cap[i];
    }
    while (sum < n) {
        uint32_t i = (uint32_t)ts_rng_below(rng, k), add = 1 + (uint32_t)ts_rng_below(rng, n);
        in->cap[i] += add;
        sum += add;
    }
    if (ts_rng_below(rng, 3) == 0)
        in->cap[ts_rng_below(rng, k)] = n + (uint32_t)ts_rng_below(rng, 4);
    in->p = base_problem(rows, cols, in->cap, k);
    in->p.alpha = ts_rng_double(rng);
    in->p.unit = ts_rng_below(rng, 2) ? TSCHED_UNIT_DP : TSCHED_UNIT_PP;
    in->p.seed = ts_rng_next(rng);
    in->p.w_dp = 0.1 + 10 * ts_rng_double(rng);
    in->p.w_pp = 0.1 + 10 * ts_rng_double(rng);
}

/* The i-th cell in matrix order, written out again rather than taken from the library. */
static uint32_t order_cell(const ts_pproblem *p, uint32_t i)
{
    return p->unit == TSCHED_UNIT_PP ? i : (i % p->rows) * p->cols + i / p->rows;
}

/* Every cell has a domain, no domain holds more than its capacity; counts in cnt. */
static void check_valid(const char *algo, const uint32_t *dom, const ts_pproblem *p, uint32_t *cnt)
{
    for (uint32_t k = 0; k < p->ndom; k++)
        cnt[k] = 0;
    for (uint32_t i = 0; i < p->rows * p->cols; i++) {
        ck_assert_msg(dom[i] < p->ndom, "%s: cell %u got domain %u of %u", algo, i, dom[i], p->ndom);
        cnt[dom[i]]++;
    }
    for (uint32_t k = 0; k < p->ndom; k++)
        ck_assert_msg(cnt[k] <= p->cap[k], "%s: domain %u holds %u > capacity %u", algo, k, cnt[k], p->cap[k]);
}

static uint32_t domains_used(const uint32_t *cnt, uint32_t ndom)
{
    uint32_t u = 0;
    for (uint32_t k = 0; k < ndom; k++)
        u += cnt[k] > 0;
    return u;
}

START_TEST(baselines_valid_and_deterministic)
{
    ts_rng rng;
    ts_rng_seed(&rng, 20260101);
    uint32_t a[MAXN], b[MAXN], cnt[MAXK];
    for (int t = 0; t < 400; t++) {
        inst in;
        random_inst(&in, &rng);
        for (size_t g = 0; g < NALGOS; g++) {
            memset(a, 0xff, sizeof a);
            memset(b, 0xee, sizeof b);
            ck_assert_ok(algos[g].fn(a, &in.p));
            ck_assert_ok(algos[g].fn(b, &in.p));
            check_valid(algos[g].name, a, &in.p, cnt);
            ck_assert_msg(memcmp(a, b, in.p.rows * in.p.cols * sizeof *a) == 0, "%s is not deterministic",
                          algos[g].name);
            ts_metric m;
            ck_assert_ok(ts_metric_eval(&m, a, in.p.rows, in.p.cols, in.p.ndom, in.p.alpha));
            ck_assert_uint_eq(m.used, domains_used(cnt, in.p.ndom));
        }
    }
}
END_TEST

START_TEST(baselines_reject_bad_input)
{
    uint32_t cap[3] = {2, 3, 4}, dom[12];
    ts_pproblem p = base_problem(3, 4, cap, 3); /* 12 cells > 9 free */
    for (size_t g = 0; g < NALGOS; g++) {
        ck_assert_status(algos[g].fn(dom, &p), TSCHED_E_INFEASIBLE);
        ck_assert_errmsg_has(algos[g].name);
        ck_assert_errmsg_has("needs 12 nodes");
        ts_pproblem none = base_problem(1, 1, NULL, 0);
        ck_assert_status(algos[g].fn(dom, &none), TSCHED_E_INFEASIBLE);
        ck_assert_status(algos[g].fn(NULL, &p), TSCHED_E_INVALID);
        ck_assert_status(algos[g].fn(dom, NULL), TSCHED_E_INVALID);
        ts_pproblem empty = base_problem(0, 4, cap, 3);
        ck_assert_ok(algos[g].fn(dom, &empty));
    }
    ts_pproblem neg = base_problem(1, 2, cap, 3);
    neg.w_dp = -1;
    ck_assert_status(ts_solve_topo_aware(dom, &neg), TSCHED_E_RANGE);
}
END_TEST

/* best-fit, the rule of best_fit.c written naively (O(K) scans). */
static void ref_best_fit(uint32_t *dom, const ts_pproblem *p)
{
    uint32_t rem[MAXK], n = p->rows * p->cols, m = n, pos = 0;
    uint32_t u = p->unit == TSCHED_UNIT_PP ? p->cols : p->rows;
    memcpy(rem, p->cap, p->ndom * sizeof *rem);
    while (m > 0) {
        uint32_t best = UINT32_MAX, take = 0;
        for (uint32_t k = 0; k < p->ndom; k++)
            if (rem[k] >= m && (best == UINT32_MAX || rem[k] < rem[best]))
                best = k;
        if (best != UINT32_MAX) {
            take = m;
        } else {
            for (uint32_t k = 0; k < p->ndom; k++)
                if (rem[k] >= u && (best == UINT32_MAX || rem[k] < rem[best]))
                    best = k;
            if (best != UINT32_MAX) {
                take = rem[best] / u * u;
            } else {
                for (uint32_t k = 0; k < p->ndom; k++)
                    if (rem[k] > 0 && (best == UINT32_MAX || rem[k] > rem[best]))
                        best = k;
                take = rem[best];
            }
        }
        for (uint32_t i = 0; i < take; i++)
            dom[order_cell(p, pos + i)] = best;
        pos += take;
        m -= take;
        rem[best] -= take;
    }
}

START_TEST(best_fit_follows_its_rule)
{
    ts_rng rng;
    ts_rng_seed(&rng, 7);
    uint32_t a[MAXN], want[MAXN];
    for (int t = 0; t < 500; t++) {
        inst in;
        random_inst(&in, &rng);
        ck_assert_ok(ts_solve_best_fit(a, &in.p));
        ref_best_fit(want, &in.p);
        ck_assert_msg(memcmp(a, want, in.p.rows * in.p.cols * sizeof *a) == 0, "best-fit differs on instance %d",
                      t);
    }
}
END_TEST

START_TEST(best_fit_picks_smallest_domain_that_fits)
{
    uint32_t cap[5] = {10, 6, 8, 6, 20}, dom[6];
    ts_pproblem p = base_problem(2, 3, cap, 5);
    ck_assert_ok(ts_solve_best_fit(dom, &p));
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(dom[i], 1); /* 6 free, lowest index of the two */
    /* on random instances: whenever some domain fits, the whole job is in the tightest */
    ts_rng rng;
    ts_rng_seed(&rng, 99);
    uint32_t a[MAXN], cnt[MAXK];
    for (int t = 0; t < 500; t++) {
        inst in;
        random_inst(&in, &rng);
        uint32_t n = in.p.rows * in.p.cols, best = UINT32_MAX;
        for (uint32_t k = 0; k < in.p.ndom; k++)
            if (in.cap[k] >= n && (best == UINT32_MAX || in.cap[k] < in.cap[best]))
                best = k;
        if (best == UINT32_MAX)
            continue;
        ck_assert_ok(ts_solve_best_fit(a, &in.p));
        check_valid("best-fit", a, &in.p, cnt);
        ck_assert_uint_eq(cnt[best], n);
    }
    /* too big for any domain: cut at unit boundaries, tightest domain that takes a unit
     * first. 3 rows of 4, unit PP: row 0 -> domain 2 (5 free), rows 1-2 -> domain 1. */
    uint32_t cap2[3] = {7, 9, 5}, d2[12];
    ts_pproblem q = base_problem(3, 4, cap2, 3);
    ck_assert_ok(ts_solve_best_fit(d2, &q));
    for (int i = 0; i < 12; i++)
        ck_assert_uint_eq(d2[i], i < 4 ? 2 : 1);
    /* unit DP: columns of 3; 5 free holds one column (col 0), then 9 holds the other 9 */
    q.unit = TSCHED_UNIT_DP;
    ck_assert_ok(ts_solve_best_fit(d2, &q));
    for (int i = 0; i < 12; i++)
        ck_assert_uint_eq(d2[i], i % 4 == 0 ? 2 : 1);
    /* no domain takes a whole unit: largest leftovers first */
    uint32_t cap3[3] = {2, 3, 3}, d3[8];
    ts_pproblem s = base_problem(2, 4, cap3, 3);
    ck_assert_ok(ts_solve_best_fit(d3, &s));
    const uint32_t want3[8] = {1, 1, 1, 2, 2, 2, 0, 0};
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(d3[i], want3[i]);
}
END_TEST

/* Smallest number of domains whose capacities add up to n (brute force over subsets). */
static uint32_t min_domains(const uint32_t *cap, uint32_t ndom, uint32_t n)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t mask = 1; mask < (1u << ndom); mask++) {
        uint64_t s = 0;
        uint32_t c = 0;
        for (uint32_t k = 0; k < ndom; k++)
            if (mask & (1u << k)) {
                s += cap[k];
                c++;
            }
        if (s >= n && c < best)
            best = c;
    }
    return best;
}

START_TEST(gpu_pack_uses_fewest_domains_largest_first)
{
    ts_rng rng;
    ts_rng_seed(&rng, 31337);
    uint32_t a[MAXN], cnt[MAXK];
    for (int t = 0; t < 500; t++) {
        inst in;
        random_inst(&in, &rng);
        uint32_t n = in.p.rows * in.p.cols;
        ck_assert_ok(ts_solve_gpu_pack(a, &in.p));
        check_valid("gpu-pack", a, &in.p, cnt);
        ck_assert_uint_eq(domains_used(cnt, in.p.ndom), min_domains(in.cap, in.p.ndom, n));
        /* largest first (ties: lowest index), each full before the next, in matrix order */
        uint32_t rem[MAXK], pos = 0;
        memcpy(rem, in.cap, sizeof rem);
        while (pos < n) {
            uint32_t big = 0;
            for (uint32_t k = 1; k < in.p.ndom; k++)
                if (rem[k] > rem[big])
                    big = k;
            uint32_t take = n - pos < rem[big] ? n - pos : rem[big];
            for (uint32_t i = 0; i < take; i++)
                ck_assert_uint_eq(a[order_cell(&in.p, pos + i)], big);
            pos += take;
            rem[big] = 0;
        }
    }
    uint32_t cap[4] = {3, 5, 5, 4}, dom[8];
    ts_pproblem p = base_problem(2, 4, cap, 4);
    ck_assert_ok(ts_solve_gpu_pack(dom, &p));
    const uint32_t want[8] = {1, 1, 1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(dom[i], want[i]);
}
END_TEST

START_TEST(random_fit_is_balanced)
{
    ts_rng rng;
    ts_rng_seed(&rng, 4242);
    uint32_t a[MAXN], cnt[MAXK];
    for (int t = 0; t < 500; t++) {
        inst in;
        random_inst(&in, &rng);
        ck_assert_ok(ts_solve_random_fit(a, &in.p));
        check_valid("random-fit", a, &in.p, cnt);
        for (uint32_t x = 0; x < in.p.ndom; x++)
            for (uint32_t y = 0; y < in.p.ndom; y++)
                if (cnt[x] > cnt[y] + 1)
                    ck_assert_msg(cnt[y] == in.cap[y], "domain %u holds %u, domain %u only %u of %u free", x,
                                  cnt[x], y, cnt[y], in.cap[y]);
        /* balanced in time too: after the first i cells in matrix order the same holds */
        uint32_t part[MAXK] = {0};
        for (uint32_t i = 0; i < in.p.rows * in.p.cols; i++) {
            uint32_t k = a[order_cell(&in.p, i)];
            for (uint32_t y = 0; y < in.p.ndom; y++)
                if (part[k] > part[y] && part[y] < in.cap[y])
                    ck_abort_msg("cell %u went to domain %u (%u cells) while domain %u had %u and room", i, k,
                                 part[k], y, part[y]);
            part[k]++;
        }
    }
    /* plenty of room: counts differ by at most one */
    uint32_t cap[5] = {100, 100, 100, 100, 100}, dom[7 * 9];
    ts_pproblem p = base_problem(7, 9, cap, 5);
    ck_assert_ok(ts_solve_random_fit(dom, &p));
    check_valid("random-fit", dom, &p, cnt);
    for (uint32_t k = 0; k < 5; k++)
        ck_assert(cnt[k] == 12 || cnt[k] == 13);
}
END_TEST

START_TEST(random_fit_depends_on_seed)
{
    uint32_t cap[4] = {16, 16, 16, 16}, first[16], a[16], b[16];
    ts_pproblem p = base_problem(4, 4, cap, 4);
    ck_assert_ok(ts_solve_random_fit(first, &p));
    int differ = 0;
    for (uint64_t seed = 2; seed < 22; seed++) {
        p.seed = seed;
        ck_assert_ok(ts_solve_random_fit(a, &p));
        ck_assert_ok(ts_solve_random_fit(b, &p));
        ck_assert(memcmp(a, b, sizeof a) == 0);
        differ += memcmp(a, first, sizeof a) != 0;
    }
    ck_assert_int_ge(differ, 19); /* 4^16 / 4!-ish answers: a repeat is unlikely */
    p.seed = 1;
    ck_assert_ok(ts_solve_random_fit(a, &p));
    ck_assert(memcmp(a, first, sizeof a) == 0);
}
END_TEST

START_TEST(topo_aware_one_domain_when_it_fits)
{
    ts_rng rng;
    ts_rng_seed(&rng, 555);
    uint32_t a[MAXN], cnt[MAXK];
    int seen = 0;
    for (int t = 0; t < 600; t++) {
        inst in;
        random_inst(&in, &rng);
        uint32_t n = in.p.rows * in.p.cols, best = UINT32_MAX;
        for (uint32_t k = 0; k < in.p.ndom; k++)
            if (in.cap[k] >= n && (best == UINT32_MAX || in.cap[k] < in.cap[best]))
                best = k;
        if (best == UINT32_MAX)
            continue;
        seen++;
        ck_assert_ok(ts_solve_topo_aware(a, &in.p));
        check_valid("topo-aware", a, &in.p, cnt);
        ck_assert_uint_eq(domains_used(cnt, in.p.ndom), 1);
        ck_assert_uint_eq(cnt[best], n);
    }
    ck_assert_int_ge(seen, 100);
}
END_TEST

/* Cut weight of a cell -> side map over the whole matrix, computed here from scratch. */
static double grid_cut(const uint32_t *side, uint32_t rows, uint32_t cols, double w_dp, double w_pp)
{
    double cut = 0;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            if (r + 1 < rows && side[r * cols + c] != side[(r + 1) * cols + c])
                cut += w_dp;
            if (c + 1 < cols && side[r * cols + c] != side[r * cols + c + 1])
                cut += w_pp;
        }
    return cut;
}

/* Smallest cut over all splits of the matrix into two halves (rows * cols <= 16). */
static double brute_min_cut(uint32_t rows, uint32_t cols, double w_dp, double w_pp)
{
    uint32_t n = rows * cols, side[16];
    double best = 1e300;
    for (uint32_t mask = 0; mask < (1u << n); mask++) {
        if ((uint32_t)__builtin_popcount(mask) != n / 2)
            continue;
        for (uint32_t i = 0; i < n; i++)
            side[i] = (mask >> i) & 1;
        double c = grid_cut(side, rows, cols, w_dp, w_pp);
        if (c < best)
            best = c;
    }
    return best;
}

START_TEST(topo_aware_keeps_heavy_groups_whole)
{
    uint32_t dom[36], cnt[2];
    for (uint32_t rows = 1; rows <= 6; rows++)
        for (uint32_t cols = 2; cols <= 6; cols += 2)
            for (int unit = 0; unit < 2; unit++) {
                uint32_t n = rows * cols, cap[2] = {n / 2, n / 2};
                ts_pproblem p = base_problem(rows, cols, cap, 2);
                p.unit = unit ? TSCHED_UNIT_DP : TSCHED_UNIT_PP;
                ts_metric m;
                /* PP edges heavy: whole rows on each side when the row count allows, else one
                 * row is cut once (rows odd: n / 2 is no multiple of cols) */
                p.w_pp = 1000;
                p.w_dp = 1;
                ck_assert_ok(ts_solve_topo_aware(dom, &p));
                check_valid("topo-aware", dom, &p, cnt);
                ck_assert_ok(ts_metric_eval(&m, dom, rows, cols, 2, 0.5));
                ck_assert_msg(m.pp_max == (rows % 2 == 0 ? 1u : 2u), "%ux%u unit %d: pp_max %u", rows, cols, unit,
                              m.pp_max);
                double cut = grid_cut(dom, rows, cols, p.w_dp, p.w_pp);
                if (rows % 2 == 0)
                    ck_assert_double_eq_tol(cut, cols * p.w_dp, 1e-9);
                if (n <= 16)
                    ck_assert_double_eq_tol(cut, brute_min_cut(rows, cols, p.w_dp, p.w_pp), 1e-9);
                /* DP edges heavy: whole columns (cols is even) */
                p.w_pp = 1;
                p.w_dp = 1000;
                ck_assert_ok(ts_solve_topo_aware(dom, &p));
                check_valid("topo-aware", dom, &p, cnt);
                ck_assert_ok(ts_metric_eval(&m, dom, rows, cols, 2, 0.5));
                ck_assert_msg(m.dp_max == 1, "%ux%u unit %d: dp_max %u", rows, cols, unit, m.dp_max);
                cut = grid_cut(dom, rows, cols, p.w_dp, p.w_pp);
                ck_assert_double_eq_tol(cut, rows * p.w_pp, 1e-9);
                if (n <= 16)
                    ck_assert_double_eq_tol(cut, brute_min_cut(rows, cols, p.w_dp, p.w_pp), 1e-9);
            }
}
END_TEST

START_TEST(topo_aware_splits_into_four_quadrants)
{
    /* 4 domains of 9 around a 6 x 6 job, equal weights: DRB cuts in halves, then halves
     * again; every group then spans exactly two domains. */
    uint32_t cap[4] = {9, 9, 9, 9}, dom[36], cnt[4];
    ts_pproblem p = base_problem(6, 6, cap, 4);
    ck_assert_ok(ts_solve_topo_aware(dom, &p));
    check_valid("topo-aware", dom, &p, cnt);
    ts_metric m;
    ck_assert_ok(ts_metric_eval(&m, dom, 6, 6, 4, 0.5));
    ck_assert_uint_eq(m.dp_max, 2);
    ck_assert_uint_eq(m.pp_max, 2);
    ck_assert_double_eq_tol(grid_cut(dom, 6, 6, 1, 1), 12, 1e-9);
}
END_TEST

START_TEST(fm_never_worsens_the_cut)
{
    ts_rng rng;
    ts_rng_seed(&rng, 8080);
    uint32_t cells[MAXN], side[MAXN];
    uint8_t part[MAXN];
    for (int t = 0; t < 400; t++) {
        uint32_t rows = 1 + (uint32_t)ts_rng_below(&rng, 12), cols = 1 + (uint32_t)ts_rng_below(&rng, 12);
        ts_pproblem p = base_problem(rows, cols, NULL, 0);
        p.w_dp = ts_rng_below(&rng, 4) == 0 ? 1.0 : 0.1 + 5 * ts_rng_double(&rng);
        p.w_pp = ts_rng_below(&rng, 4) == 0 ? 1.0 : 0.1 + 5 * ts_rng_double(&rng);
        /* a random subset of the cells in random order, randomly split */
        uint32_t all = rows * cols, n = 0;
        for (uint32_t i = 0; i < all; i++)
            cells[i] = i;
        ts_rng_shuffle_u32(&rng, cells, all);
        n = 1 + (uint32_t)ts_rng_below(&rng, all);
        uint32_t zeros = 0;
        for (uint32_t i = 0; i < n; i++) {
            part[i] = (uint8_t)ts_rng_below(&rng, 2);
            zeros += part[i] == 0;
        }
        /* the cut as the test sees it: cells outside the subset on a third side, whose edges
         * are left out */
        for (uint32_t i = 0; i < all; i++)
            side[i] = 2;
        for (uint32_t i = 0; i < n; i++)
            side[cells[i]] = part[i];
        double mine = 0;
        for (uint32_t r = 0; r < rows; r++)
            for (uint32_t c = 0; c < cols; c++) {
                uint32_t g = r * cols + c;
                if (side[g] == 2)
                    continue;
                if (r + 1 < rows && side[g + cols] != 2 && side[g + cols] != side[g])
                    mine += p.w_dp;
                if (c + 1 < cols && side[g + 1] != 2 && side[g + 1] != side[g])
                    mine += p.w_pp;
            }
        double lib, before, after;
        ck_assert_ok(ts_cut_weight(&lib, part, cells, n, &p));
        ck_assert_double_eq_tol(lib, mine, 1e-9);
        ck_assert_ok(ts_fm_refine(part, cells, n, &p, &before, &after));
        ck_assert_double_eq_tol(before, mine, 1e-9);
        ck_assert_msg(after <= before + 1e-9, "FM raised the cut from %g to %g", before, after);
        uint32_t zeros_after = 0;
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_le(part[i], 1);
            zeros_after += part[i] == 0;
        }
        ck_assert_uint_eq(zeros_after, zeros);
        ck_assert_ok(ts_cut_weight(&lib, part, cells, n, &p));
        ck_assert_double_eq_tol(lib, after, 1e-9);
    }
    /* a row split down the middle is already optimal; a checkerboard is not */
    uint32_t cells8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint8_t board[8] = {0, 1, 0, 1, 1, 0, 1, 0};
    ts_pproblem p = base_problem(2, 4, NULL, 0);
    double before, after;
    ck_assert_ok(ts_fm_refine(board, cells8, 8, &p, &before, &after));
    ck_assert_double_eq_tol(before, 10, 1e-9);
    ck_assert_double_eq_tol(after, 2, 1e-9); /* two columns each side */
    /* bad input */
    uint8_t bad[2] = {0, 2};
    ck_assert_status(ts_fm_refine(bad, cells8, 2, &p, NULL, NULL), TSCHED_E_INVALID);
    uint32_t dup[2] = {3, 3}, out[2] = {3, 8};
    uint8_t ok[2] = {0, 1};
    ck_assert_status(ts_fm_refine(ok, dup, 2, &p, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("twice");
    ck_assert_status(ts_fm_refine(ok, out, 2, &p, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("outside");
}
END_TEST

START_TEST(baselines_scale)
{
    /* 2,000 cells on 2,048 domains (each too small for a row), and 1,200 cells on 16
     * domains for topo-aware; the bound is loose so valgrind and sanitizers pass too. */
    uint32_t rows = 50, cols = 40, n = rows * cols, ndom = 2048;
    uint32_t *cap = malloc(ndom * sizeof *cap), *dom = malloc(n * sizeof *dom), *cnt = malloc(ndom * sizeof *cnt);
    ck_assert_ptr_nonnull(cap);
    ck_assert_ptr_nonnull(dom);
    ck_assert_ptr_nonnull(cnt);
    ts_rng rng;
    ts_rng_seed(&rng, 2048);
    for (uint32_t k = 0; k < ndom; k++)
        cap[k] = (uint32_t)ts_rng_below(&rng, 4);
    ts_pproblem p = base_problem(rows, cols, cap, ndom);
    for (size_t g = 0; g < NALGOS; g++) {
        ck_assert_ok(algos[g].fn(dom, &p));
        check_valid(algos[g].name, dom, &p, cnt);
    }
    p = base_problem(40, 30, cap, 16);
    for (uint32_t k = 0; k < 16; k++)
        cap[k] = 75 + 5 * (k % 3); /* 1,275 free */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_ok(ts_solve_topo_aware(dom, &p));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    check_valid("topo-aware", dom, &p, cnt);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ck_assert_msg(s < 20.0, "topo-aware took %.3f s on 1200 cells / 16 domains", s);
    free(cap);
    free(dom);
    free(cnt);
}
END_TEST

TCase *placement_baselines_tcase(void)
{
    TCase *tc = tcase_create("baselines");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, baselines_valid_and_deterministic);
    tcase_add_test(tc, baselines_reject_bad_input);
    tcase_add_test(tc, best_fit_follows_its_rule);
    tcase_add_test(tc, best_fit_picks_smallest_domain_that_fits);
    tcase_add_test(tc, gpu_pack_uses_fewest_domains_largest_first);
    tcase_add_test(tc, random_fit_is_balanced);
    tcase_add_test(tc, random_fit_depends_on_seed);
    tcase_add_test(tc, topo_aware_one_domain_when_it_fits);
    tcase_add_test(tc, topo_aware_keeps_heavy_groups_whole);
    tcase_add_test(tc, topo_aware_splits_into_four_quadrants);
    tcase_add_test(tc, fm_never_worsens_the_cut);
    tcase_add_test(tc, baselines_scale);
    return tc;
}
