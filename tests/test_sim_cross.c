/* sim: runs that must not fail in the middle.
 * - many priority levels (issue 23 item 4): seeded 2:1 leaf-spines with jobs on 3-8 levels,
 *   priority `fixed` and `crux`, every rate checked against a full recomputation, no flow
 *   left with a rate in (0, 1e-9 of its link) on a link the levels above saturate;
 * - the policy cross product: every placement x routing x reroute x priority x links the
 *   simulator lists (ts_sim_policy_name, so a new row is covered without editing this file)
 *   on one small scenario either refuses before the first event, with a message naming the
 *   combination, or completes with a consistent result. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"
#include "sim/sim_policy.h"
#include "test_util.h"

#define MS 1000000LL

/* ---- many priority levels ------------------------------------------------------------------ */

/* Smallest positive rate of a flow over a link at or under the bottleneck of the levels above:
 * checked after each event batch through the callback. */
typedef struct tiny_watch {
    tsched_sim *s;
    double worst;   /* smallest rate / link capacity seen among positive rates */
    uint32_t batches;
} tiny_watch;

static int watch_rates(const tsched_sim_event *e, void *user)
{
    (void)e;
    tiny_watch *w = user;
    const tsched_sim *s = w->s;
    w->batches++;
    for (uint32_t fi = 0; fi < s->nflow; fi++) {
        const ts_sim_flow *f = &s->flow[fi];
        if (!f->active || f->rate <= 0 || !isfinite(f->rate))
            continue;
        double cmin = INFINITY;
        for (uint32_t k = 0; k < f->nlinks; k++)
            cmin = fmin(cmin, s->link[f->links[k]].cap);
        if (cmin > 0 && f->rate / cmin < w->worst)
            w->worst = f->rate / cmin;
    }
    return 0;
}

/* One seeded run: a 2:1 leaf-spine, 3-8 jobs on `levels` levels (3..8), rings, HD and
 * all-to-all with random volumes; priority fixed (random levels) or crux. */
static void multilevel_case(uint64_t seed, const char *prio)
{
    tu_rng r = tu_rng_new(seed);
    uint32_t leaves = 2 + tu_rng_below(&r, 3), npl = 2 + tu_rng_below(&r, 3);
    tsched_topology *t = tu_gen_leaf_spine(leaves, 1 + tu_rng_below(&r, 2), npl, 8, 1 + tu_rng_below(&r, 2),
                                           100 + 100 * tu_rng_below(&r, 2), 0, 2);
    tsched_sim *s = tu_sim_new(t);
    uint32_t levels = 3 + tu_rng_below(&r, 6);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "random-fit"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, tu_rng_below(&r, 2) ? "ecmp" : "greedy"));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_LEVELS, levels));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)(1 + seed % 1000)));
    uint32_t nodes = leaves * npl, njobs = 3 + tu_rng_below(&r, 6);
    for (uint32_t i = 0; i < njobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        uint32_t nn = 2 + tu_rng_below(&r, nodes / 2 > 2 ? nodes / 2 - 1 : 1);
        if (tu_rng_below(&r, 2))
            nn = nn >= 4 ? 4 : 2; /* powers of two: halving-doubling */
        tsched_sim_job j = {sizeof j, name, (int64_t)tu_rng_below(&r, 50) * MS, nn * 8, 0, 1,
                            (int64_t)(1 + tu_rng_below(&r, 40)) * MS, tu_rng_unit(&r), 2 + tu_rng_below(&r, 6), 0,
                            tu_rng_below(&r, levels), 0, NULL, NULL, 0};
        uint32_t ji;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        for (uint32_t p = 1 + tu_rng_below(&r, 2); p > 0; p--) {
            int pat = (nn & (nn - 1)) == 0 ? (int)tu_rng_below(&r, 4) : tu_rng_below(&r, 2) ? 0 : 3;
            if (pat == TSCHED_PATTERN_PP)
                pat = TSCHED_PATTERN_DP_RING;
            /* volumes of no simple ratio to the capacities: the rounding the kernel must absorb */
            tsched_sim_phase ph = {sizeof ph, pat, 0.1 + 7.3 * tu_rng_unit(&r), 1 + tu_rng_below(&r, 2)};
            ck_assert_ok(tsched_sim_job_add_phase(NULL, s, ji, &ph));
        }
    }
    tiny_watch w = {s, INFINITY, 0};
    ck_assert_ok(tsched_sim_set_callback(s, 0x7f, watch_rates, &w));
    tsched_status st = tsched_sim_run_until(s, INT64_MAX);
    ck_assert_msg(st == TSCHED_OK, "seed %llu, %s, %u levels: %s: %s", (unsigned long long)seed, prio, levels,
                  tsched_status_str(st), tsched_last_error());
    /* a rate below 1e-9 of its narrowest link is a rounding residue, not a share */
    ck_assert_msg(w.worst >= 1e-9, "seed %llu, %s: a flow at %.3g of its link's capacity", (unsigned long long)seed,
                  prio, w.worst);
    tsched_sim_result *res;
    ck_assert_ok(tsched_sim_result_new(&res, s));
    ck_assert_int_eq(tu_sim_summary(res).status, TSCHED_SIM_DONE);
    tsched_sim_result_free(res);
    tsched_sim_free(s);
    tsched_topology_free(t);
}

START_TEST(many_levels_run)
{
    for (uint64_t k = 0; k < tu_n(60); k++)
        multilevel_case(100 * (uint64_t)_i + k + 1, k % 2 ? "crux" : "fixed");
}
END_TEST

/* ---- the policy cross product ------------------------------------------------------------------ */

/* What the callback saw. */
typedef struct seen {
    int64_t last;
    int ordered;
} seen;

static int record(const tsched_sim_event *e, void *user)
{
    seen *w = user;
    if (e->t_ns < w->last)
        w->ordered = 0;
    if (e->t_ns > w->last)
        w->last = e->t_ns;
    return 0;
}

static uint32_t npolicies(int which)
{
    uint32_t n = 0;
    while (ts_sim_policy_name(which, (int)n))
        n++;
    return n;
}

/* One small scenario under placement x routing x reroute x priority x links = names[]:
 * 1 ran, 0 refused before the first event. A 4-leaf, 2-spine leaf-spine with two-member
 * trunks (links `member`, vclos), jobs with dp-ring, dp-hd, alltoall and pp phases, one
 * inside a node; `until` cuts one run in four. */
static int cross_case(const char *const *names, uint64_t seed, char *why, size_t why_len)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = 4;
    g.spines = 2;
    g.nodes_per_leaf = 2;
    g.gpus_per_node = 4;
    g.nics_per_node = 1;
    g.uplinks = 2;
    g.nic_gbps = 100;
    g.oversubscription = 1;
    g.gpu_type = "A100-40G";
    tsched_topology *t;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, 1));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_PLACE_TIME_LIMIT_MS, 200));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_LEVELS, 3));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)(seed % 97 + 1)));
    int until = seed % 4 == 0;
    if (until)
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_UNTIL_S, 0.15));
    static const int which[5] = {TSCHED_SIM_PLACEMENT, TSCHED_SIM_ROUTING, TSCHED_SIM_REROUTE, TSCHED_SIM_PRIORITY,
                                 TSCHED_SIM_LINKS};
    tsched_status st = TSCHED_OK;
    for (int k = 0; k < 5 && st == TSCHED_OK; k++)
        st = tsched_sim_set_policy(s, (tsched_sim_policy)which[k], names[k]);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 1024;
    m.layers = 4;
    m.vocab = 32000;
    m.seq = 512;
    m.global_batch = 32;
    m.micro_batch = 1;
    /* name, GPUs, pp, compute ms, overlap, iterations, level, phases (pattern, Gbit) */
    static const struct {
        uint32_t gpus, pp, ms;
        double overlap;
        uint32_t iters, level;
        int pat[2];
        double gbits[2];
    } jobs[] = {
        {16, 1, 20, 0.0, 4, 0, {TSCHED_PATTERN_DP_RING, -1}, {2.0, 0}},
        {8, 1, 10, 0.5, 5, 1, {TSCHED_PATTERN_DP_HD, TSCHED_PATTERN_ALLTOALL}, {1.5, 0.7}},
        {16, 2, 15, 0.25, 3, 2, {TSCHED_PATTERN_PP, TSCHED_PATTERN_DP_RING}, {0.9, 1.3}},
        {8, 1, 12, 1.0, 4, 1, {TSCHED_PATTERN_ALLTOALL, -1}, {1.1, 0}},
        {2, 1, 8, 0.0, 6, 0, {TSCHED_PATTERN_DP_RING, -1}, {0.5, 0}},
    };
    for (uint32_t i = 0; i < sizeof jobs / sizeof jobs[0] && st == TSCHED_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        tsched_sim_job j = {sizeof j, name, (int64_t)(i * 7 % 3) * 10 * MS, jobs[i].gpus, 0, jobs[i].pp,
                            (int64_t)jobs[i].ms * MS, jobs[i].overlap, jobs[i].iters, 0, jobs[i].level, 0, &m,
                            NULL, 0};
        uint32_t ji;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        for (int p = 0; p < 2 && jobs[i].pat[p] >= 0; p++) {
            tsched_sim_phase ph = {sizeof ph, jobs[i].pat[p], jobs[i].gbits[p], 1 + (uint32_t)p};
            ck_assert_ok(tsched_sim_job_add_phase(NULL, s, ji, &ph));
        }
    }
    seen w = {0, 1};
    if (st == TSCHED_OK)
        st = tsched_sim_set_callback(s, 0x7f, record, &w);
    if (st == TSCHED_OK)
        st = tsched_sim_run_until(s, INT64_MAX);
    if (st != TSCHED_OK) {
        snprintf(why, why_len, "%s/%s/%s/%s/%s: %s: %s", names[0], names[1], names[2], names[3], names[4],
                 tsched_status_str(st), tsched_last_error());
        ck_assert_msg(s->handled == 0 && s->events == 0, "failed during the run: %s", why);
        ck_assert_msg(tsched_last_error()[0] && !strchr(tsched_last_error(), '\n'), "no one-line message: %s", why);
        tsched_sim_free(s);
        tsched_topology_free(t);
        return 0;
    }
    tsched_sim_result *res;
    ck_assert_ok(tsched_sim_result_new(&res, s));
    tsched_sim_summary sm = tu_sim_summary(res);
    const char *c = names[0];
    ck_assert_msg(w.ordered, "%s...: callback times went back", c);
    ck_assert_msg(sm.status == TSCHED_SIM_DONE || (until && sm.status == TSCHED_SIM_UNTIL), "%s/%s/%s/%s/%s: status %d",
                  names[0], names[1], names[2], names[3], names[4], sm.status);
    int64_t makespan = 0;
    for (uint32_t i = 0; i < res->njobs; i++) {
        tsched_sim_job_stats js = tu_sim_job(res, i);
        ck_assert_int_ge(js.arrival_ns, 0);
        if (js.start_ns >= 0)
            ck_assert_int_ge(js.start_ns, js.arrival_ns);
        if (js.finish_ns >= 0) {
            ck_assert_int_ge(js.finish_ns, js.start_ns);
            ck_assert_uint_eq(js.iterations_done, js.iterations);
            makespan = js.finish_ns > makespan ? js.finish_ns : makespan;
        } else {
            /* explicitly unfinished: only when the run stopped at until */
            ck_assert_msg(sm.status == TSCHED_SIM_UNTIL, "%s/%s/%s/%s/%s: job %u unfinished, status %d", names[0],
                          names[1], names[2], names[3], names[4], i, sm.status);
            ck_assert_uint_lt(js.iterations_done, js.iterations ? js.iterations : 1);
        }
        ck_assert_int_le(js.finish_ns, sm.end_ns);
        if (js.iterations_done)
            ck_assert(isfinite(js.iter_mean_s) && js.iter_min_s > 0 && js.iter_min_s <= js.iter_mean_s * (1 + 1e-12) &&
                      js.iter_mean_s <= js.iter_max_s * (1 + 1e-12));
        ck_assert(isfinite(js.gbits_delivered) && js.gbits_delivered <= js.gbits_demanded * (1 + 1e-9) + 1e-9);
    }
    if (sm.status == TSCHED_SIM_DONE)
        ck_assert_msg(sm.end_ns == w.last && sm.end_ns == makespan,
                      "%s/%s/%s/%s/%s: end %lld, last %lld, makespan %lld", names[0], names[1], names[2], names[3],
                      names[4], (long long)sm.end_ns, (long long)w.last,
                      (long long)makespan);
    else
        ck_assert_int_eq(sm.end_ns, (int64_t)(0.15 * 1e9));
    ck_assert(sm.gpu_util >= 0 && sm.gpu_util <= 1 + 1e-12);
    ck_assert(sm.gpu_util_alloc >= 0 && sm.gpu_util_alloc <= 1 + 1e-12);
    tsched_sim_result_free(res);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return 1;
}

START_TEST(policy_cross_product)
{
    static const int which[5] = {TSCHED_SIM_PLACEMENT, TSCHED_SIM_ROUTING, TSCHED_SIM_REROUTE, TSCHED_SIM_PRIORITY,
                                 TSCHED_SIM_LINKS};
    uint32_t n[5], total = 1;
    for (int k = 0; k < 5; k++)
        total *= n[k] = npolicies(which[k]);
    uint32_t ran = 0, refused = 0, step = tu_slow() ? 7 : 1;
    char why[1024];
    for (uint32_t combo = (uint32_t)_i % step; combo < total; combo += step) {
        const char *names[5];
        uint32_t x = combo;
        for (int k = 0; k < 5; k++) {
            names[k] = ts_sim_policy_name(which[k], (int)(x % n[k]));
            x /= n[k];
        }
        if (cross_case(names, combo, why, sizeof why))
            ran++;
        else {
            refused++;
            if (getenv("SIM_CROSS_VERBOSE"))
                fprintf(stderr, "refused %s\n", why);
        }
    }
    ck_assert_uint_gt(ran, refused); /* most combinations run */
}
END_TEST

/* ---- cassini ----------------------------------------------------------------------------------- */

/* Two identical jobs on one shared trunk, each communicating half of its iteration alone:
 * compute 100 ms (overlap 0), then 10 Gbit over the 100 Gbit/s trunk (100 ms alone), so
 * t_alone = 200 ms. Without shifts their phases collide every iteration: both flows at 50
 * Gbit/s, 300 ms per iteration, both end at N x 300 ms. CASSINI shifts the second job by
 * half a circle (100 ms) before its first iteration: the windows interleave, the first job
 * runs at t_alone (N x 200 ms), the second too after its shift (100 + N x 200 ms). */
START_TEST(cassini_interleaves_two_jobs)
{
    const uint64_t N = 10;
    for (int cas = 0; cas < 2; cas++) {
        tsched_topology *t = tu_two_leaves(100, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, cas ? "cassini" : "none"));
        for (int k = 0; k < 2; k++) {
            uint32_t nodes[2] = {(uint32_t)k, (uint32_t)k + 2}, ji, ph;
            tsched_sim_job j = {sizeof j, k ? "b" : "a", 0, 0, 0, 0, 100 * MS, 0, N, 0, 0, 0, NULL, nodes, 2};
            ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
            tsched_sim_phase p = {sizeof p, -1, 0, 1};
            ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
            ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, 10, NULL, 0));
        }
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_job_stats a = tu_sim_job(r, 0), b = tu_sim_job(r, 1);
        ck_assert_double_eq_tol(a.iter_alone_s, 0.2, 1e-12);
        if (!cas) {
            ck_assert_int_eq(a.finish_ns, (int64_t)N * 300 * MS);
            ck_assert_int_eq(b.finish_ns, (int64_t)N * 300 * MS);
        } else {
            ck_assert_int_eq(a.finish_ns, (int64_t)N * 200 * MS);
            ck_assert_int_eq(b.finish_ns, 100 * MS + (int64_t)N * 200 * MS);
            ck_assert_double_eq_tol(a.iter_max_s, 0.2, 1e-12);
            ck_assert_double_eq_tol(b.iter_min_s, 0.2, 1e-12); /* at t_alone after the shift */
            ck_assert_double_eq_tol(b.iter_max_s, 0.3, 1e-12); /* the first: 100 ms shift */
            ck_assert_uint_eq(a.level, 0);
            ck_assert_uint_eq(b.level, 0);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* The same two jobs with b 100 times as GPU-intense (work_tflop): CRUX puts b at the higher
 * level, so in the first iteration's collision a waits for b's flow and falls behind by one
 * window (a: 100 + N x 200 ms, b: N x 200 ms). CASSINI knows nothing of intensity: both
 * shifts that interleave the windows cost no overlap, and of equal shifts it moves the later
 * job, b (a: N x 200 ms, b: 100 + N x 200 ms), with both jobs at level 0. */
START_TEST(cassini_differs_from_crux)
{
    const uint64_t N = 10;
    for (int cas = 0; cas < 2; cas++) {
        tsched_topology *t = tu_two_leaves(100, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, cas ? "cassini" : "crux"));
        for (int k = 0; k < 2; k++) {
            uint32_t nodes[2] = {(uint32_t)k, (uint32_t)k + 2}, ji, ph;
            tsched_sim_job j = {sizeof j, k ? "b" : "a", 0, 0, 0, 0, 100 * MS, 0, N, 0, 0, k ? 10.0 : 0.1, NULL,
                                nodes, 2};
            ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
            tsched_sim_phase p = {sizeof p, -1, 0, 1};
            ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
            ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, 10, NULL, 0));
        }
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_job_stats a = tu_sim_job(r, 0), b = tu_sim_job(r, 1);
        int64_t first = (int64_t)N * 200 * MS, second = 100 * MS + (int64_t)N * 200 * MS;
        ck_assert_int_eq(a.finish_ns, cas ? first : second);
        ck_assert_int_eq(b.finish_ns, cas ? second : first);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- coarsening with priorities on (doc/sim.md "Coarsening rule") ------------------------------ */

/* One seeded run: jobs of 40-120 iterations sharing a 2:1 leaf-spine, priority `prio`,
 * max_sim_iterations `m` (0: exact). The summary. */
static tsched_sim_summary coarse_run(uint64_t seed, const char *prio, uint64_t m)
{
    tu_rng r = tu_rng_new(seed);
    tsched_topology *t = tu_gen_leaf_spine(3, 1, 2, 8, 1, 100, 0, 2);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "random-fit"));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)seed));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, (double)m));
    for (uint32_t i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        tsched_sim_job j = {sizeof j, name, (int64_t)tu_rng_below(&r, 500) * MS, 16, 0, 1,
                            (int64_t)(5 + tu_rng_below(&r, 20)) * MS, tu_rng_unit(&r) / 2, 40 + tu_rng_below(&r, 80),
                            0, 0, 0.1 + tu_rng_unit(&r), NULL, NULL, 0};
        uint32_t ji;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        tsched_sim_phase ph = {sizeof ph, TSCHED_PATTERN_DP_RING, 0.5 + 2 * tu_rng_unit(&r), 1};
        ck_assert_ok(tsched_sim_job_add_phase(NULL, s, ji, &ph));
    }
    tsched_sim_result *res = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(res);
    tsched_sim_result_free(res);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return sm;
}

/* Under every priority that recomputes at starts and finishes, a coarsened run agrees with the
 * exact one within 1 % on GPU utilisation (the rule turns coarsening off there, so they are
 * the same run); under `none` coarsening still applies (fewer event batches). */
START_TEST(coarsening_keeps_priorities)
{
    uint32_t checked = 0;
    for (int i = 0;; i++) {
        const char *p = ts_sim_policy_name(TSCHED_SIM_PRIORITY, i);
        if (!p)
            break;
        int dynamic = ts_sim_priorities[i].prioritize != NULL;
        for (uint64_t seed = 1; seed <= 4; seed++) {
            tsched_sim_summary exact = coarse_run(seed, p, 0), coarse = coarse_run(seed, p, 5);
            if (dynamic) {
                ck_assert_msg(fabs(coarse.gpu_util - exact.gpu_util) <= 0.01 * exact.gpu_util,
                              "%s seed %llu: coarsened %.6f, exact %.6f", p, (unsigned long long)seed, coarse.gpu_util,
                              exact.gpu_util);
                ck_assert_int_eq(coarse.end_ns, exact.end_ns);
                checked++;
            } else if (strcmp(p, "none") == 0)
                ck_assert_uint_lt(coarse.events, exact.events);
        }
    }
    ck_assert_uint_ge(checked, 12); /* crux, sincronia, varys, cassini at least */
}
END_TEST

static Suite *suite(void)
{
    Suite *su = suite_create("sim-cross");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, many_levels_run, 0, 2);
    tcase_add_test(tc, cassini_interleaves_two_jobs);
    tcase_add_test(tc, cassini_differs_from_crux);
    tcase_add_test(tc, policy_cross_product);
    tcase_add_test(tc, coarsening_keeps_priorities);
    suite_add_tcase(su, tc);
    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
