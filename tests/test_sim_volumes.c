/* sim: the volumes of the multi-step collectives (issue 23 item 6, doc/sim.md "Collective
 * volumes with explicit gbits"). A dp-hd phase with gbits G over n ranks is Rabenseifner's
 * all-reduce: reduce-scatter steps of G/2, G/4, ..., G/n per flow, then the all-gather on
 * the same pairs in reverse (G/n, ..., G/2), 2 G (n - 1) / n per rank and rail; an alltoall
 * phase sends G / n to each of the n - 1 peers. The expectations are written by hand (halve
 * what is left, mirror it), not with the library's formula, and observed through phase
 * callbacks on a fabric where every flow runs alone on its two NIC links (routing ideal): a
 * step of v Gbit then takes exactly ceil(1e9 v / nic) ns. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define NIC 100.0 /* Gbit/s of every NIC */
#define MAXPH 64
#define MS 1000000LL

/* Phase starts and ends of the first iteration, by phase index. */
typedef struct {
    int64_t start[MAXPH], end[MAXPH];
    uint32_t nphases;
} phase_log;

static int on_phase(const tsched_sim_event *e, void *user)
{
    phase_log *l = user;
    if (e->iteration != 0 || e->phase >= MAXPH)
        return 0;
    if (e->kind == TSCHED_SIM_EV_PHASE_START)
        l->start[e->phase] = e->t_ns;
    else {
        l->end[e->phase] = e->t_ns;
        if (e->phase + 1 > l->nphases)
            l->nphases = e->phase + 1;
    }
    return 0;
}

/* The per-flow volumes of every step, by hand: dp-hd halves what each rank still holds at
 * every reduce-scatter step and sends it back in reverse; alltoall sends G / n per step. */
static uint32_t hand_volumes(double *v, tsched_pattern p, uint32_t n, double g)
{
    uint32_t k = 0;
    if (p == TSCHED_PATTERN_ALLTOALL) {
        for (uint32_t s = 0; s + 1 < n; s++)
            v[k++] = g / n;
        return k;
    }
    double held = g;
    while (held * n > g * 1.0000001) { /* until each rank holds its 1 / n share */
        held /= 2;
        v[k++] = held;
    }
    for (uint32_t s = 0, rs = k; s < rs; s++)
        v[k++] = v[rs - 1 - s];
    return k;
}

/* A fabric of 32 nodes (8 leaves x 4) with `nics` NICs of NIC Gbit/s and `gpus` GPUs. */
static tsched_topology *fabric(uint32_t nics, uint32_t gpus) { return tu_gen_leaf_spine(8, 2, 4, gpus, nics, NIC, 0, 0); }

/* One job of n x pp nodes (a seeded shuffle of the fabric's nodes), one phase, one
 * iteration, routing ideal; returns its stats and logs its phases. */
static tsched_sim_job_stats run_one(phase_log *log, tsched_topology *t, tu_rng *rng, uint32_t n, uint32_t pp,
                                    tsched_pattern p, double g, const tsched_model *model, uint32_t tp)
{
    uint32_t all[32], nn = n * pp, gpn = tsched_topology_node_gpus(t, 0);
    for (uint32_t i = 0; i < 32; i++)
        all[i] = i;
    tu_rng_shuffle(rng, all, 32);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ideal"));
    memset(log, 0, sizeof *log);
    ck_assert_ok(tsched_sim_set_callback(s, TSCHED_SIM_EV_PHASE_START | TSCHED_SIM_EV_PHASE_END, on_phase, log));
    tsched_sim_job j = {sizeof j, "j", 0, nn * gpn, tp, pp, MS, 0, 1, 0, 0, 0, model, all, nn};
    uint32_t ji, ph;
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase ps = {sizeof ps, p, g, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &ps));
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_job_stats js = tu_sim_job(r, 0);
    ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    return js;
}

/* Every step of dp-hd (n = 2, 4, 8, 16) and alltoall (n = 2..16, powers of two or not), with
 * one and two DP columns (pp) and one to four NIC rails: the step count, each step's time
 * (hence its volume) and the job's total against the hand volumes, and the total against
 * the closed forms 2 G (n - 1) / n and G (n - 1) / n per rank and rail. */
START_TEST(step_volumes_by_hand)
{
    static const uint32_t hd_n[] = {2, 4, 8, 16}, a2a_n[] = {2, 3, 4, 5, 6, 7, 8, 16};
    tu_rng rng = tu_rng_new(23);
    for (uint32_t nics = 1; nics <= 4; nics *= 2) {
        tsched_topology *t = fabric(nics, 8);
        for (int pat = 0; pat < 2; pat++) {
            tsched_pattern p = pat ? TSCHED_PATTERN_ALLTOALL : TSCHED_PATTERN_DP_HD;
            const uint32_t *ns = pat ? a2a_n : hd_n;
            uint32_t cnt = pat ? 8 : 4;
            for (uint32_t c = 0; c < cnt; c++)
                for (uint32_t pp = 1; pp <= 2; pp++) {
                    uint32_t n = ns[c];
                    if (n * pp > 32)
                        continue;
                    double g = 0.5 + 20 * tu_rng_unit(&rng), v[MAXPH];
                    uint32_t steps = hand_volumes(v, p, n, g);
                    phase_log log;
                    tsched_sim_job_stats js = run_one(&log, t, &rng, n, pp, p, g, NULL, 0);
                    ck_assert_uint_eq(log.nphases, steps);
                    double total = 0, per_rank = 0;
                    int64_t at = MS; /* overlap 0: communication after the 1 ms computation */
                    for (uint32_t k = 0; k < steps; k++) {
                        int64_t want = (int64_t)ceil(1e9 * v[k] / NIC);
                        ck_assert_msg(log.start[k] == at && log.end[k] - log.start[k] == want,
                                      "%s n %u pp %u nics %u step %u: [%lld, %lld], want %lld ns from %lld",
                                      tsched_pattern_name(p), n, pp, nics, k, (long long)log.start[k],
                                      (long long)log.end[k], (long long)want, (long long)at);
                        at += want;
                        per_rank += v[k];
                    }
                    total = per_rank * n * pp * nics;
                    double closed = (pat ? 1.0 : 2.0) * g * (n - 1) / n;
                    ck_assert_double_eq_tol(per_rank, closed, 1e-12 * g);
                    ck_assert_double_eq_tol(js.gbits_demanded, total, 1e-9 * total);
                    ck_assert_double_eq_tol(js.gbits_delivered, total, 1e-9 * total);
                    ck_assert_int_eq(js.finish_ns, at);
                }
        }
        tsched_topology_free(t);
    }
}
END_TEST

/* The App. C volumes (no gbits) follow the same steps: a job with the worked example's
 * model (doc/workload.md: D = 70 elements of 4 bytes per rail on a 4 x 2 matrix) runs
 * exactly as the same job with gbits = D in Gbit, step for step. */
START_TEST(model_volumes_follow_the_same_steps)
{
    tsched_model m = tu_small_model();
    tsched_topology *t = fabric(4, 8);
    const double d = 70 * 4 * 8 / 1e9, a = 12 * 2 * 8 / 1e9; /* D and the activation a, in Gbit */
    for (int pat = 0; pat < 2; pat++) {
        tsched_pattern p = pat ? TSCHED_PATTERN_ALLTOALL : TSCHED_PATTERN_DP_HD;
        tu_rng r1 = tu_rng_new(5), r2 = tu_rng_new(5);
        phase_log lm, lg;
        tsched_sim_job_stats jm = run_one(&lm, t, &r1, 4, 2, p, 0, &m, 4);
        tsched_sim_job_stats jg = run_one(&lg, t, &r2, 4, 2, p, pat ? a : d, &m, 4);
        ck_assert_uint_eq(lm.nphases, pat ? 3 : 4);
        ck_assert_uint_eq(lm.nphases, lg.nphases);
        for (uint32_t k = 0; k < lm.nphases; k++) {
            ck_assert_int_eq(lm.start[k], lg.start[k]);
            ck_assert_int_eq(lm.end[k], lg.end[k]);
        }
        double want = (pat ? 1.0 : 2.0) * (pat ? a : d) * 3 / 4 * 8 * 4; /* per rank x 8 nodes x 4 rails */
        ck_assert_double_eq_tol(jm.gbits_demanded, want, 1e-12);
        ck_assert_double_eq_tol(jg.gbits_demanded, want, 1e-12);
    }
    tsched_topology_free(t);
}
END_TEST

/* A whole run: three iterations of compute then dp-hd over 8 ranks then alltoall over the
 * same 8 repeated twice, on 2 rails; every iteration takes the computation plus the sum of
 * the hand step times, and the run ends at three of them. */
START_TEST(iteration_is_the_sum_of_step_times)
{
    tsched_topology *t = fabric(2, 8);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ideal"));
    uint32_t nodes[8] = {3, 17, 8, 30, 1, 22, 12, 5}, ji, ph;
    tsched_sim_job j = {sizeof j, "it", 0, 64, 0, 1, 5 * MS, 0, 3, 0, 0, 0, NULL, nodes, 8};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    const double g_hd = 12.8, g_a2a = 3.2;
    tsched_sim_phase hd = {sizeof hd, TSCHED_PATTERN_DP_HD, g_hd, 1};
    tsched_sim_phase a2a = {sizeof a2a, TSCHED_PATTERN_ALLTOALL, g_a2a, 2};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &hd));
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &a2a));
    tsched_sim_result *r = tu_sim_run(s);
    double v[MAXPH];
    int64_t iter = 5 * MS;
    uint32_t n = hand_volumes(v, TSCHED_PATTERN_DP_HD, 8, g_hd);
    ck_assert_uint_eq(n, 6);
    for (uint32_t k = 0; k < n; k++)
        iter += (int64_t)ceil(1e9 * v[k] / NIC);
    n = hand_volumes(v, TSCHED_PATTERN_ALLTOALL, 8, g_a2a);
    for (uint32_t k = 0; k < n; k++)
        iter += 2 * (int64_t)ceil(1e9 * v[k] / NIC);
    /* 5 ms + (64 + 32 + 16 + 16 + 32 + 64) ms + 2 x 7 x 4 ms */
    ck_assert_int_eq(iter, (5 + 224 + 56) * MS);
    tsched_sim_job_stats js = tu_sim_job(r, 0);
    ck_assert_int_eq(js.finish_ns, 3 * iter);
    ck_assert_double_eq_tol(js.iter_mean_s, (double)iter * 1e-9, 1e-12);
    ck_assert_double_eq_tol(js.iter_min_s, (double)iter * 1e-9, 1e-12);
    ck_assert_double_eq_tol(js.iter_max_s, (double)iter * 1e-9, 1e-12);
    ck_assert_double_eq_tol(js.iter_alone_s, (double)iter * 1e-9, 1e-12);
    /* per iteration and rail: 2 G 7/8 (hd) + 2 x G 7/8 (alltoall) per rank, 8 ranks */
    ck_assert_double_eq_tol(js.gbits_demanded, 3 * 2 * 8 * (2 * g_hd * 7 / 8 + 2 * g_a2a * 7 / 8), 1e-9);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* dp-hd needs a power-of-two row count (6 rows refused when the run starts, naming rows);
 * a DP group of one has no steps to split, and a gbits too small to halve is refused
 * naming the phase, never a flow of 0 Gbit mid-run. */
START_TEST(uneven_rows_and_tiny_volumes)
{
    tsched_topology *t = fabric(1, 8);
    uint32_t nodes[6] = {0, 4, 8, 12, 16, 20}, ji, ph;
    tsched_sim *s = tu_sim_new(t);
    tsched_sim_job j = {sizeof j, "six", 0, 48, 0, 1, MS, 0, 1, 0, 0, 0, NULL, nodes, 6};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase hd = {sizeof hd, TSCHED_PATTERN_DP_HD, 1, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &hd));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_msg(strstr(tsched_last_error(), "rows"), "%s", tsched_last_error());
    tsched_sim_free(s);

    s = tu_sim_new(t);
    tsched_sim_job one = {sizeof one, "one", 0, 16, 0, 2, MS, 0, 1, 0, 0, 0, NULL, nodes, 2};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &one)); /* pp 2: one row, no DP flows */
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &hd));
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, MS);
    ck_assert_double_eq(tu_sim_job(r, 0).gbits_demanded, 0);
    tsched_sim_result_free(r);
    tsched_sim_free(s);

    s = tu_sim_new(t);
    tsched_sim_job four = {sizeof four, "tiny", 0, 32, 0, 1, MS, 0, 1, 0, 0, 0, NULL, nodes, 4};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &four));
    tsched_sim_phase tiny = {sizeof tiny, TSCHED_PATTERN_DP_HD, 4.9e-324, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &tiny));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_msg(strstr(tsched_last_error(), "phases[0].gbits") && strstr(tsched_last_error(), "tiny"), "%s",
                  tsched_last_error());
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim-volumes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, step_volumes_by_hand);
    tcase_add_test(tc, model_volumes_follow_the_same_steps);
    tcase_add_test(tc, iteration_is_the_sum_of_step_times);
    tcase_add_test(tc, uneven_rows_and_tiny_volumes);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
