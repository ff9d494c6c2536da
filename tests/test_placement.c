/* Placement suite: the MIP against the exhaustive optimum and the baselines on random
 * instances, the public tsched_place() end to end (nodes, ranks, host file, JSON, errors,
 * determinism, time limit), the metric of hand-made placements, and the reservation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/rng.h"
#include "placement/solver.h"
#include "test_util.h"

TCase *placement_baselines_tcase(void);
TCase *placement_exhaustive_tcase(void);

static double value_of(const uint32_t *dom, const ts_pproblem *p)
{
    ts_metric m;
    ck_assert_ok(ts_metric_eval(&m, dom, p->rows, p->cols, p->ndom, p->alpha));
    return m.weighted;
}

static void check_valid(const uint32_t *dom, const ts_pproblem *p, const char *who)
{
    uint32_t used[64] = {0};
    ck_assert_uint_le(p->ndom, 64);
    for (uint32_t i = 0; i < p->rows * p->cols; i++) {
        ck_assert_msg(dom[i] < p->ndom, "%s: cell %u in domain %u", who, i, dom[i]);
        used[dom[i]]++;
    }
    for (uint32_t k = 0; k < p->ndom; k++)
        ck_assert_msg(used[k] <= p->cap[k], "%s: domain %u holds %u > %u", who, k, used[k], p->cap[k]);
}

/* The property the issue asks for: on >= 300 random small instances (2-4 domains of
 * uneven free capacity, alpha in {0, .3, .5, .7, 1}, unit pp and dp) mip equals the
 * exhaustive optimum and is never worse than any baseline. */
START_TEST(mip_equals_exhaustive_and_beats_baselines)
{
    static const double alphas[] = {0, 0.3, 0.5, 0.7, 1};
    ts_rng rng;
    ts_rng_seed(&rng, 2026);
    int instances = 0, interior = 0;
    for (int it = 0; it < 520; it++) {
        uint32_t rows = 1 + (uint32_t)ts_rng_below(&rng, 6), cols = 1 + (uint32_t)ts_rng_below(&rng, 6);
        if (rows * cols > TS_EXHAUSTIVE_MAX_CELLS)
            continue;
        uint32_t K = 2 + (uint32_t)ts_rng_below(&rng, 3), cap[4], total = 0;
        for (uint32_t k = 0; k < K; k++) {
            cap[k] = (uint32_t)ts_rng_below(&rng, rows * cols + 1);
            total += cap[k];
        }
        if (total < rows * cols)
            cap[ts_rng_below(&rng, K)] += rows * cols - total; /* make it feasible, unevenly */
        ts_pproblem p = {rows, cols, K, cap, alphas[it % 5], (it / 5) % 2 ? TSCHED_UNIT_DP : TSCHED_UNIT_PP,
                         10000, (uint64_t)it, 1.0, 1.0};
        uint32_t ex[16], mip[16], other[16];
        int opt_ex, opt_mip;
        ck_assert_ok(ts_solve_exhaustive(ex, &opt_ex, &p));
        ck_assert_ok(ts_solve_mip(mip, &opt_mip, &p));
        check_valid(mip, &p, "mip");
        double vex = value_of(ex, &p), vmip = value_of(mip, &p);
        ck_assert_int_eq(opt_ex, 1);
        ck_assert_msg(fabs(vmip - vex) < 1e-9, "instance %d (%ux%u, K=%u, caps %u %u %u %u, alpha %.1f, unit %d): mip %g, "
                      "exhaustive %g", it, rows, cols, K, cap[0], cap[1], K > 2 ? cap[2] : 0, K > 3 ? cap[3] : 0,
                      p.alpha, p.unit, vmip, vex);
        ck_assert_int_eq(opt_mip, 1);
        interior += vex >= 2 - 1e-9;
        tsched_status (*const base[])(uint32_t *, const ts_pproblem *) = {ts_solve_best_fit, ts_solve_random_fit,
                                                                          ts_solve_gpu_pack, ts_solve_topo_aware};
        for (size_t b = 0; b < 4; b++) {
            ck_assert_ok(base[b](other, &p));
            check_valid(other, &p, "baseline");
            ck_assert_msg(vmip <= value_of(other, &p) + 1e-9, "instance %d: baseline %zu beats mip", it, b);
        }
        instances++;
    }
    ck_assert_int_ge(instances, 300);
    ck_assert_int_gt(interior, 0); /* some optima need rows and columns split */
}
END_TEST

/* Cases where splitting both dimensions is the only optimum: a 2 x 2 grid of four
 * domains, each holding exactly one quarter. */
START_TEST(mip_finds_grid_optimum)
{
    /* 4 rows x 4 cols, four domains of 4: rows whole would need 4 domains (D = 4), columns
     * whole likewise (P = 4); the 2 x 2 grid gives D = P = 2. */
    uint32_t cap[4] = {4, 4, 4, 4}, dom[16];
    ts_pproblem p = {4, 4, 4, cap, 0.5, TSCHED_UNIT_PP, 10000, 1, 1, 1};
    int opt;
    ck_assert_ok(ts_solve_mip(dom, &opt, &p));
    ts_metric m;
    ck_assert_ok(ts_metric_eval(&m, dom, 4, 4, 4, 0.5));
    ck_assert_uint_eq(m.dp_max, 2);
    ck_assert_uint_eq(m.pp_max, 2);
    ck_assert_int_eq(opt, 1);
    /* infeasible: not enough nodes */
    cap[0] = 1;
    ck_assert_status(ts_solve_mip(dom, &opt, &p), TSCHED_E_INFEASIBLE);
    ck_assert_errmsg_has("16 nodes needed");
}
END_TEST

/* 150 x 8 cells on 16 domains of 128: a balanced 5 x 2 grid (blocks of 30 rows x 4
 * columns = 120 cells each, in 10 domains) has D = 5, P = 2: 0.3 * 5 + 0.7 * 2 = 2.9 at
 * alpha 0.3, where rows whole would need 10 domains (0.3 * 10 + 0.7 = 3.7). mip must find
 * at least as good and prove it, quickly (it once lost the grid and ran to the limit). */
START_TEST(mip_large_grid_regression)
{
    static uint32_t dom[1200];
    uint32_t cap[16];
    for (int k = 0; k < 16; k++)
        cap[k] = 128;
    ts_pproblem p = {150, 8, 16, cap, 0.3, TSCHED_UNIT_PP, 5000, 1, 1, 1};
    int opt;
    ck_assert_ok(ts_solve_mip(dom, &opt, &p));
    check_valid(dom, &p, "mip 150x8");
    ck_assert_double_le(value_of(dom, &p), 2.9 + 1e-9);
    ck_assert_int_eq(opt, 1);
}
END_TEST

/* ---- end to end ---- */

static tsched_job *job(uint32_t dp, uint32_t tp, uint32_t pp, double alpha)
{
    tsched_job *j = tu_job("test-job", dp * tp * pp, tp, pp);
    ck_assert_ok(tsched_job_set_alpha(j, alpha));
    return j;
}

START_TEST(place_end_to_end)
{
    /* 3 pods x 2 leaves x 4 nodes; some nodes busy so pods are uneven */
    tsched_topology *t = tu_gen_clos3(3, 2, 2, 2, 4, 0, 0, 0, 0);
    ck_assert_ok(tsched_topology_set_free_gpus(t, 0, 7));
    ck_assert_ok(tsched_topology_set_free_gpus(t, 1, 0));
    ck_assert_ok(tsched_topology_set_up(t, "node9", 0));
    tsched_job *j = job(12, 4, 2, 0.3); /* Arnold setting (i) job: 6 x 2 */
    static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE, TSCHED_PLACE_EXHAUSTIVE};
    double best = 1e9, mipv = -1;
    for (size_t a = 0; a < 6; a++) {
        tsched_place_options o;
        tsched_place_options_init(&o);
        o.algo = algos[a];
        tsched_placement *p;
        if (algos[a] == TSCHED_PLACE_EXHAUSTIVE) {
            /* 12 nodes over 3 pods is within exhaustive's limits */
        }
        /* alpha NaN is neither a weight nor "< 0: the job's": refused, naming it */
        o.alpha = NAN;
        tsched_placement *bad = (tsched_placement *)&o;
        ck_assert_status(tsched_place(&bad, t, j, &o), TSCHED_E_RANGE);
        ck_assert_errmsg_has("alpha: NaN");
        ck_assert_ptr_null(bad);
        o.alpha = -1;
        ck_assert_ok(tsched_place(&p, t, j, &o));
        ck_assert_uint_eq(tsched_placement_rows(p), 6);
        ck_assert_uint_eq(tsched_placement_cols(p), 2);
        /* every node eligible, used once; ranks col * rows + row */
        uint32_t nodes[12];
        uint8_t seen[24] = {0};
        for (uint32_t r = 0; r < 6; r++)
            for (uint32_t c = 0; c < 2; c++) {
                uint32_t n = tsched_placement_node(p, r, c);
                ck_assert_uint_lt(n, 24);
                ck_assert_int_eq(tsched_topology_node_is_free(t, n), 1);
                ck_assert_int_eq(seen[n]++, 0);
                ck_assert_uint_eq(tsched_placement_rank(p, r, c), c * 6 + r);
                nodes[r * 2 + c] = n;
            }
        /* the reported metric is the metric of the chosen nodes */
        tsched_spread s = {.size = sizeof s};
        ck_assert_ok(tsched_spread_eval(&s, t, nodes, 6, 2, 0.3, TSCHED_DOMAIN_POD));
        ck_assert_uint_eq(s.dp_max, tsched_placement_dp_max(p));
        ck_assert_uint_eq(s.pp_max, tsched_placement_pp_max(p));
        ck_assert_uint_eq(s.domains_used, tsched_placement_domains_used(p));
        ck_assert_double_eq_tol(s.weighted, tsched_placement_weighted(p), 1e-12);
        if (algos[a] == TSCHED_PLACE_MIP)
            mipv = s.weighted;
        if (s.weighted < best)
            best = s.weighted;
        if (algos[a] == TSCHED_PLACE_MIP || algos[a] == TSCHED_PLACE_EXHAUSTIVE)
            ck_assert_int_eq(tsched_placement_status(p), TSCHED_PLACE_OPTIMAL);
        else
            ck_assert_int_eq(tsched_placement_status(p), TSCHED_PLACE_FEASIBLE);
        /* host file: rank order */
        char *hf;
        ck_assert_ok(tsched_placement_hostfile(&hf, p, t));
        char *line = hf;
        for (uint32_t rank = 0; rank < 12; rank++) {
            const char *want = tsched_topology_node_name(t, tsched_placement_node(p, rank % 6, rank / 6));
            ck_assert_int_eq(strncmp(line, want, strlen(want)), 0);
            line = strchr(line, '\n');
            ck_assert_ptr_nonnull(line);
            line++;
        }
        ck_assert_int_eq(*line, '\0');
        tsched_free(hf);
        tsched_placement_free(p);
    }
    ck_assert_double_eq_tol(mipv, best, 1e-12);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(place_json_deterministic)
{
    tsched_topology *t = tu_gen_clos3(4, 2, 2, 2, 8, 0, 0, 0, 0);
    for (uint32_t n = 0; n < 64; n += 3)
        ck_assert_ok(tsched_topology_set_free_gpus(t, n, 0));
    tsched_job *j = job(24, 4, 8, 0.3); /* 12 x 8 = 96 nodes: too many */
    tsched_placement *p;
    ck_assert_status(tsched_place(&p, t, j, NULL), TSCHED_E_INFEASIBLE);
    ck_assert_ptr_null(p);
    ck_assert_errmsg_has("96 nodes");
    tsched_job_free(j);
    j = job(8, 4, 4, 0.3); /* 4 x 4 */
    char *a, *b;
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    ck_assert_ok(tsched_placement_to_json(&a, p, t, tsched_job_name(j), 0));
    tsched_placement_free(p);
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    ck_assert_ok(tsched_placement_to_json(&b, p, t, tsched_job_name(j), 0));
    ck_assert_str_eq(a, b);
    const char *want[] = {"\"format\": \"tsched.placement.v1\"", "\"job\": \"test-job\"", "\"algorithm\": \"mip\"",
                          "\"status\": \"optimal\"", "\"rows\": 4", "\"cols\": 4", "\"dp_max\"", "\"pods_used\"",
                          "\"rank\": 15"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(a, want[i]), "placement JSON lacks %s", want[i]);
    ck_assert_ptr_null(strstr(a, "solve_ms"));
    tsched_free(a);
    tsched_free(b);
    ck_assert_ok(tsched_placement_to_json(&a, p, t, NULL, 1));
    ck_assert_ptr_nonnull(strstr(a, "solve_ms"));
    tsched_free(a);
    tsched_placement_free(p);
    /* random-fit: same seed same answer, another seed usually another answer */
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = TSCHED_PLACE_RANDOM_FIT;
    o.seed = 7;
    ck_assert_ok(tsched_place(&p, t, j, &o));
    ck_assert_ok(tsched_placement_to_json(&a, p, t, NULL, 0));
    tsched_placement_free(p);
    ck_assert_ok(tsched_place(&p, t, j, &o));
    ck_assert_ok(tsched_placement_to_json(&b, p, t, NULL, 0));
    tsched_placement_free(p);
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    /* exhaustive refuses big instances */
    o.algo = TSCHED_PLACE_EXHAUSTIVE;
    tsched_job_free(j);
    j = job(16, 4, 4, 0.3); /* 8 x 4 = 32 nodes */
    ck_assert_status(tsched_place(&p, t, j, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("exhaustive");
    /* a pod domain on a fabric without pods */
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    tsched_topology *ls;
    ck_assert_ok(tsched_topology_generate(&ls, &g));
    tsched_place_options_init(&o);
    o.domain = TSCHED_DOMAIN_POD;
    ck_assert_status(tsched_place(&p, ls, j, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("no pods");
    o.domain = -1; /* auto: leaves */
    ck_assert_ok(tsched_place(&p, ls, j, &o));
    ck_assert_uint_eq(tsched_placement_pp_max(p), 1); /* 16 nodes per leaf: rows of 4 stay whole */
    tsched_placement_free(p);
    tsched_topology_free(ls);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

/* A limit hit after an answer was found: status feasible, still a valid placement. */
START_TEST(place_time_limit_gives_feasible)
{
    /* 5 x 7 over small uneven domains, alpha 0.5: the best layouts split both rows and
     * columns and the bound cannot close the gap, so the cell MIP runs; with 1 ms it cannot
     * finish. The answer is still valid and says it is not proven. */
    uint32_t cap[8] = {7, 1, 2, 9, 9, 2, 3, 2}, dom[35];
    ts_pproblem p = {5, 7, 8, cap, 0.5, TSCHED_UNIT_DP, 1, 1, 1, 1};
    int opt;
    ck_assert_ok(ts_solve_mip(dom, &opt, &p));
    check_valid(dom, &p, "mip with 1 ms");
    ck_assert_int_eq(opt, 0);
    /* The limit covers the whole call (model building included): within 20 ms or 10 %.
     * Sanitizers and valgrind slow the model building itself, so only plain builds time it. */
    if (!getenv("TSCHED_SLOW_BUILD")) {
        for (uint32_t lim = 1; lim <= 64; lim *= 8) {
            p.time_limit_ms = lim;
            double w0, c0, w1, c1;
            tu_clock_ms(&w0, &c0);
            ck_assert_ok(ts_solve_mip(dom, &opt, &p));
            tu_clock_ms(&w1, &c1);
            double slack = lim * 0.1 > 20 ? lim * 0.1 : 20;
            /* over the bound in wall time AND over twice it in CPU time: the limit was not
             * honoured (a call that only waited for a busy machine used little CPU; shared
             * caches slow even CPU time somewhat, hence the factor) */
            ck_assert_msg(w1 - w0 <= lim + slack || c1 - c0 <= 2 * (lim + slack),
                          "time limit %u ms: the call took %.1f ms (%.1f ms of CPU)", lim, w1 - w0, c1 - c0);
        }
    }
}
END_TEST

START_TEST(spread_eval_errors)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 2, 0, 0, 0, 0);
    uint32_t nodes[4] = {0, 1, 4, 5};
    tsched_spread s = {.size = sizeof s};
    /* rows {0,1} (pod0) and {4,5} (pod1): pp 1, columns {0,4},{1,5}: dp 2 */
    ck_assert_ok(tsched_spread_eval(&s, t, nodes, 2, 2, 0.25, TSCHED_DOMAIN_POD));
    ck_assert_uint_eq(s.pp_max, 1);
    ck_assert_uint_eq(s.dp_max, 2);
    ck_assert_double_eq_tol(s.weighted, 0.25 * 2 + 0.75 * 1, 1e-12);
    ck_assert_ok(tsched_spread_eval(&s, t, nodes, 2, 2, 0.25, TSCHED_DOMAIN_LEAF));
    ck_assert_uint_eq(s.pp_max, 1); /* node0, node1 share leaf0 */
    nodes[3] = 0;
    ck_assert_status(tsched_spread_eval(&s, t, nodes, 2, 2, 0.5, TSCHED_DOMAIN_POD), TSCHED_E_INVALID);
    ck_assert_errmsg_has("twice");
    nodes[3] = 99;
    ck_assert_status(tsched_spread_eval(&s, t, nodes, 2, 2, 0.5, TSCHED_DOMAIN_POD), TSCHED_E_INVALID);
    ck_assert_errmsg_has("nodes[3]");
    nodes[3] = 5;
    ck_assert_status(tsched_spread_eval(&s, t, nodes, 2, 2, 1.5, TSCHED_DOMAIN_POD), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

START_TEST(reservation_algorithm_1)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 2, 0, 0, 0, 0); /* 8 nodes x 8 GPUs */
    tsched_job *j = job(4, 8, 1, 0.5);   /* 4 nodes */
    tsched_placement *p;
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    tsched_reservation *r;
    ck_assert_ok(tsched_reservation_new(&r, p, 100.0));
    uint32_t held = 0;
    for (uint32_t n = 0; n < 8; n++)
        held += (uint32_t)tsched_reservation_holds(r, n);
    ck_assert_uint_eq(held, 4);
    ck_assert_uint_eq(tsched_reservation_free_outside(r, t), 32);
    tsched_admit a;
    ck_assert_ok(tsched_reservation_admit(&a, r, t, 32, 0, 500, 0)); /* fits outside */
    ck_assert_int_eq(a, TSCHED_ADMIT_NOW);
    ck_assert_ok(tsched_reservation_admit(&a, r, t, 40, 0, 50, 0)); /* done before arrival */
    ck_assert_int_eq(a, TSCHED_ADMIT_RESERVED);
    ck_assert_ok(tsched_reservation_admit(&a, r, t, 40, 0, 150, 0));
    ck_assert_int_eq(a, TSCHED_ADMIT_DELAY);
    ck_assert_ok(tsched_reservation_admit(&a, r, t, 40, 0, 150, 1)); /* preemptable */
    ck_assert_int_eq(a, TSCHED_ADMIT_NOW);
    ck_assert_status(tsched_reservation_admit(&a, r, t, 1, 10, 5, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_reservation_admit(&a, r, t, 1, NAN, 5, 0), TSCHED_E_INVALID);
    tsched_placement_free(p);
    tsched_reservation_free(r);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

/* DESIGN 3: a result used with another fabric is TSCHED_E_MISMATCH, never a crash or
 * wrong names (a smaller fabric made hostfile read past its node names). */
START_TEST(results_know_their_fabric)
{
    tsched_topology *t = tu_gen_clos3(3, 2, 2, 2, 4, 0, 0, 0, 0), *small = tu_gen_clos3(1, 1, 2, 2, 2, 0, 0, 0, 0),
                    *twin = tu_gen_clos3(3, 2, 2, 2, 4, 0, 0, 0, 0);
    tsched_job *j = job(12, 4, 2, 0.3);
    tsched_placement *p;
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    char *s = NULL;
    ck_assert_status(tsched_placement_hostfile(&s, p, small), TSCHED_E_MISMATCH);
    ck_assert_ptr_null(s);
    ck_assert_errmsg_has("tsched_placement_hostfile");
    ck_assert_status(tsched_placement_hostfile(&s, p, twin), TSCHED_E_MISMATCH); /* same shape, other fabric */
    ck_assert_status(tsched_placement_to_json(&s, p, small, "j", 0), TSCHED_E_MISMATCH);
    ck_assert_ptr_null(s);
    ck_assert_ok(tsched_placement_hostfile(&s, p, t));
    tsched_free(s);
    /* a loaded placement belongs to the fabric it was loaded against */
    ck_assert_ok(tsched_placement_to_json(&s, p, t, "j", 0));
    tsched_placement *q;
    ck_assert_ok(tsched_placement_load_string(&q, twin, s, strlen(s)));
    tsched_free(s);
    ck_assert_status(tsched_placement_hostfile(&s, q, t), TSCHED_E_MISMATCH);
    ck_assert_ok(tsched_placement_hostfile(&s, q, twin));
    tsched_free(s);
    /* reservations too */
    tsched_reservation *r;
    ck_assert_ok(tsched_reservation_new(&r, p, 100.0));
    tsched_admit a;
    ck_assert_status(tsched_reservation_admit(&a, r, small, 8, 0, 1, 0), TSCHED_E_MISMATCH);
    ck_assert_uint_eq(tsched_reservation_free_outside(r, small), 0);
    ck_assert_ok(tsched_reservation_admit(&a, r, t, 8, 0, 1, 0));
    ck_assert_uint_gt(tsched_reservation_free_outside(r, t), 0);
    /* identities: unique, never 0 */
    ck_assert_uint_ne(tsched_topology_id(t), tsched_topology_id(twin));
    ck_assert_uint_ne(tsched_topology_id(t), 0);
    ck_assert_uint_eq(tsched_topology_id(NULL), 0);
    tsched_reservation_free(r);
    tsched_placement_free(q);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
    tsched_topology_free(small);
    tsched_topology_free(twin);
}
END_TEST

START_TEST(algo_names)
{
    tsched_place_algo a;
    for (int i = 0; i <= 5; i++) {
        ck_assert_ok(tsched_place_algo_from_name(&a, tsched_place_algo_name((tsched_place_algo)i)));
        ck_assert_int_eq(a, i);
    }
    ck_assert_status(tsched_place_algo_from_name(&a, "simulated-annealing"), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("simulated-annealing");
    ck_assert_status(tsched_place_algo_from_name(NULL, "mip"), TSCHED_E_INVALID);
    ck_assert_status(tsched_place_algo_from_name(&a, NULL), TSCHED_E_INVALID); /* DESIGN 3 */
    ck_assert_errmsg_has("name is NULL");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mip_equals_exhaustive_and_beats_baselines);
    tcase_add_test(tc, mip_finds_grid_optimum);
    tcase_add_test(tc, mip_large_grid_regression);
    tcase_add_test(tc, place_end_to_end);
    tcase_add_test(tc, place_json_deterministic);
    tcase_add_test(tc, place_time_limit_gives_feasible);
    tcase_add_test(tc, spread_eval_errors);
    tcase_add_test(tc, reservation_algorithm_1);
    tcase_add_test(tc, results_know_their_fabric);
    tcase_add_test(tc, algo_names);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, placement_exhaustive_tcase());
    suite_add_tcase(s, placement_baselines_tcase());
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
