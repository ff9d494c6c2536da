/* sim: analytic cases of doc/sim.md §9 (one flow, fair sharing, strict priority, work
 * conservation across levels, CRUX Examples 1 and 2, conservation of bits), incremental =
 * full recomputation on seeded random runs, duration mode, failures, determinism, errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "sim/sim_internal.h"
#include "test_util.h"

#define MS 1000000LL
#define S 1000000000LL

/* A job on nodes a, b with one explicit flow rank 0 -> 1 of `gbits` per iteration. */
static uint32_t flow_job(tsched_sim *s, const char *name, uint32_t a, uint32_t b, int64_t compute, double overlap,
                         uint64_t iters, double gbits, int64_t arrival, uint32_t level)
{
    uint32_t nodes[2] = {a, b}, ji, ph;
    tsched_sim_job j = {sizeof j, name, arrival, 0, 0, 0, compute, overlap, iters, 0, level, 0, NULL, nodes, 2};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase p = {sizeof p, -1, 0, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, gbits, NULL, 0));
    return ji;
}

/* One job, one flow: iteration = max(C, (1 - o) C + V / B), JCT = N times it, with the
 * phase latency added per phase. */
START_TEST(one_flow_analytic)
{
    static const struct {
        double c_ms, o, v, lat_us;
    } cases[] = {{100, 0.25, 20, 0}, {100, 1, 5, 0}, {300, 0, 10, 0}, {100, 0.5, 20, 250}, {10, 0.3, 0.001, 7}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tsched_topology *t = tu_two_leaves(100, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_PHASE_LATENCY_US, cases[k].lat_us));
        int64_t c = (int64_t)(cases[k].c_ms * MS);
        flow_job(s, "a", 0, 2, c, cases[k].o, 7, cases[k].v, 0, 0);
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_job_stats js = tu_sim_job(r, 0);
        int64_t rel = (int64_t)nearbyint((1 - cases[k].o) * (double)c);
        int64_t comm = (int64_t)ceil(1e9 * cases[k].v / 100.0) + (int64_t)(cases[k].lat_us * 1000);
        int64_t it = rel + comm > c ? rel + comm : c;
        ck_assert_int_eq(js.finish_ns, 7 * it);
        ck_assert_double_eq_tol(js.iter_mean_s, (double)it * 1e-9, 1e-12);
        ck_assert_double_eq_tol(js.iter_alone_s, (double)it * 1e-9, 1e-12);
        ck_assert_double_eq_tol(js.gbits_delivered, 7 * cases[k].v, 1e-9 * 7 * cases[k].v);
        ck_assert_double_eq_tol(js.gbits_demanded, 7 * cases[k].v, 1e-12);
        ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* Two jobs on one link: fair sharing, then strict priority (§9). */
START_TEST(two_jobs_fair_and_priority)
{
    for (int prio = 0; prio < 2; prio++) {
        tsched_topology *t = tu_two_leaves(100, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        if (prio)
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, "fixed"));
        /* compute 1 us, full overlap: the flows start together at 0 */
        flow_job(s, "v1", 0, 2, 1000, 1, 1, 10, 0, 0);
        flow_job(s, "v2", 1, 3, 1000, 1, 1, 30, 0, 1);
        tsched_sim_result *r = tu_sim_run(s);
        /* fair: the first ends at 2 V1 / B, the second at (V1 + V2) / B; strict: V1 / B */
        ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, prio ? 100 * MS : 200 * MS);
        ck_assert_int_eq(tu_sim_job(r, 1).finish_ns, 400 * MS);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
    /* equal volumes: both phases take 2 V / B */
    tsched_topology *t = tu_two_leaves(100, 400, 1);
    tsched_sim *s = tu_sim_new(t);
    flow_job(s, "a", 0, 2, 1000, 1, 1, 25, 0, 0);
    flow_job(s, "b", 1, 3, 1000, 1, 1, 25, 0, 0);
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 500 * MS);
    ck_assert_int_eq(tu_sim_job(r, 1).finish_ns, 500 * MS);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* A high-level flow bottlenecked on its slow NIC leaves the rest of the shared trunk to a
 * low-level flow: the low one gets trunk - nic, not nothing. */
START_TEST(work_conserving_across_levels)
{
    tsched_topology *t = tu_two_leaves_start("wc", 100, 1);
    ck_assert_ok(tsched_topology_add_node(NULL, t, "slow", "leaf0", 1, 1, NULL, 30)); /* 30 Gbit/s NIC */
    ck_assert_ok(tsched_topology_add_node(NULL, t, "fast", "leaf0", 1, 1, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "d0", "leaf1", 1, 1, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "d1", "leaf1", 1, 1, NULL, 400));
    ck_assert_ok(tsched_topology_build(t));
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, "fixed"));
    flow_job(s, "high", 0, 2, 1000, 1, 1, 3, 0, 0);  /* 3 Gbit at 30 Gbit/s: 100 ms */
    flow_job(s, "low", 1, 3, 1000, 1, 1, 7, 0, 1);   /* 70 Gbit/s while high runs: 7 Gbit in 100 ms */
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 100 * MS);
    ck_assert_int_eq(tu_sim_job(r, 1).finish_ns, 100 * MS);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* CRUX Example 1 (seed 001 §4.2): 2 x 10 GPUs, job 1 computes 2 s and sends 2 s, job 2
 * 1 s and 1 s, no overlap, one link. Over whole steady-state periods: 37.5 % with job 1
 * first, 41.7 % with job 2 first. */
START_TEST(crux_example_1)
{
    /* first = 3: no fixed order, priority "crux" decides (and picks job 2: 41.7 %) */
    for (int first = 1; first <= 3; first++) {
        tsched_topology *t = tu_two_leaves(100, 400, 5);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, first == 3 ? "crux" : "fixed"));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MEASURE_FROM_S, 120));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MEASURE_TO_S, 144)); /* 6 periods of 4 s */
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_UNTIL_S, 150));
        flow_job(s, "job1", 0, 2, 2 * S, 0, 1000, 200, 0, first == 1 ? 0 : 1);
        flow_job(s, "job2", 1, 3, 1 * S, 0, 1000, 100, 0, first == 2 ? 0 : 1);
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_summary sm = tu_sim_summary(r);
        ck_assert_int_eq(sm.status, TSCHED_SIM_UNTIL);
        ck_assert_double_eq_tol(sm.gpu_util, first == 1 ? 0.375 : 5.0 / 12.0, 1e-12);
        if (first == 3) {
            ck_assert_uint_lt(tu_sim_job(r, 1).level, tu_sim_job(r, 0).level);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* CRUX Example 2 (doc/priority.md, Figure 12): job 1 computes 4 s and sends 1 s, job 2
 * computes 2 s and sends 3 s, both release halfway. Job 2's idle time over the first 13 s is
 * 7 s with job 1 first and 6 s with job 2 first (its GPUs compute 13 - idle seconds). */
START_TEST(crux_example_2)
{
    for (int first = 1; first <= 2; first++) {
        tsched_topology *t = tu_two_leaves(100, 400, 5);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, "fixed"));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_UNTIL_S, 13));
        flow_job(s, "job1", 0, 2, 4 * S, 0.5, 1000, 100, 0, first == 1 ? 0 : 1);
        flow_job(s, "job2", 1, 3, 2 * S, 0.5, 1000, 300, 0, first == 2 ? 0 : 1);
        tsched_sim_result *r = tu_sim_run(s);
        double idle = 13.0 - tu_sim_job(r, 1).compute_s;
        ck_assert_double_eq_tol(idle, first == 1 ? 7.0 : 6.0, 1e-9);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* Seeded random runs on a leaf_spine fabric: patterns and explicit flows, random arrivals
 * and priorities; every event batch is checked against a full recomputation (the run fails
 * otherwise), bits are conserved, and two runs give the same results. */
static void random_run(uint64_t seed, double *jct_out, int member, uint32_t uplinks)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 2, 4, 4, 0, 100, uplinks, 0);
    tsched_sim *s = tu_sim_new(t);
    if (member)
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, "member"));
    /* every fifth seed: CRUX priorities with path refresh at every start and finish */
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, seed % 5 ? "fixed" : "crux"));
    if (seed % 5 == 0)
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_REROUTE, "refresh"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, seed % 2 ? "ecmp" : "greedy"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_QUEUE, seed % 3 ? "fifo" : "ff"));
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    uint32_t njobs = 6 + (uint32_t)ts_rng_below(&rng, 6);
    for (uint32_t i = 0; i < njobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        uint32_t nodes = 1u << ts_rng_below(&rng, 3); /* 1, 2 or 4 nodes */
        tsched_sim_job j = {sizeof j, name, (int64_t)ts_rng_below(&rng, 50) * MS, nodes * 4, 4, 1,
                            (int64_t)(1 + ts_rng_below(&rng, 40)) * MS, (double)ts_rng_below(&rng, 5) / 4,
                            1 + ts_rng_below(&rng, 4), 0, (uint32_t)ts_rng_below(&rng, 3), 0, NULL, NULL, 0};
        uint32_t ji, ph;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        tsched_sim_phase p = {sizeof p, ts_rng_below(&rng, 2) ? TSCHED_PATTERN_DP_RING : TSCHED_PATTERN_ALLTOALL,
                              0.5 + (double)ts_rng_below(&rng, 20), 1 + (uint32_t)ts_rng_below(&rng, 2)};
        ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    }
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_int_eq(sm.status, TSCHED_SIM_DONE);
    ck_assert_uint_eq(sm.jobs_done, njobs);
    ck_assert_double_eq_tol(sm.gbits_delivered, sm.gbits_demanded, 1e-9 * sm.gbits_demanded + 1e-12);
    for (uint32_t i = 0; i < njobs; i++) {
        tsched_sim_job_stats js = tu_sim_job(r, i);
        ck_assert_double_eq_tol(js.gbits_delivered, js.gbits_demanded, 1e-9 * js.gbits_demanded + 1e-12);
        ck_assert_uint_eq(js.iterations_done, js.iterations);
        ck_assert_int_ge(js.start_ns, js.arrival_ns);
        /* contention only slows a job down */
        ck_assert(js.iter_mean_s >= js.iter_alone_s * (1 - 1e-12));
    }
    *jct_out = sm.avg_jct_s;
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}

START_TEST(random_runs_incremental_equals_full)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        double a, b, m;
        random_run(seed, &a, 0, 0);
        random_run(seed, &b, 0, 0);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "seed %llu: two runs differ", (unsigned long long)seed);
        /* member links on a fabric of 3 members per trunk: still exact and conserving */
        random_run(seed, &m, 1, 3);
        /* one member per trunk: member mode is trunk mode */
        random_run(seed, &a, 0, 1);
        random_run(seed, &b, 1, 1);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "seed %llu: member mode differs from trunk mode with count 1",
                      (unsigned long long)seed);
    }
}
END_TEST

/* A job given by duration runs its traced duration alone, to one iteration. */
START_TEST(duration_mode)
{
    tsched_topology *t = tu_two_leaves(100, 400, 1);
    tsched_sim *s = tu_sim_new(t);
    uint32_t nodes[2] = {0, 2}, ji, ph;
    tsched_sim_job j = {sizeof j, "d", 0, 0, 0, 0, 100 * MS, 0.5, 0, 60 * S, 0, 0, NULL, nodes, 2};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase p = {sizeof p, -1, 0, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, 7, NULL, 0));
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_job_stats js = tu_sim_job(r, 0);
    double it = 0.05 + 0.07; /* release after 50 ms, 7 Gbit at 100 Gbit/s */
    ck_assert_double_eq_tol(js.iter_alone_s, it, 1e-12);
    ck_assert_uint_eq(js.iterations, (uint64_t)nearbyint(60 / it));
    ck_assert(fabs((double)js.finish_ns * 1e-9 - 60) <= it);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* Failures: a node down mid-run requeues its job (restarts = 1), which then resumes. */
START_TEST(node_failure_requeues)
{
    tsched_topology *t = tu_two_leaves(100, 400, 1);
    tsched_sim *s = tu_sim_new(t);
    flow_job(s, "a", 0, 2, 100 * MS, 0, 10, 10, 0, 0); /* 200 ms iterations */
    ck_assert_ok(tsched_sim_add_failure(s, 550 * MS, "n2", 0));
    ck_assert_ok(tsched_sim_add_failure(s, 1000 * MS, "n2", 1));
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_job_stats js = tu_sim_job(r, 0);
    ck_assert_uint_eq(js.restarts, 1);
    ck_assert_uint_eq(js.iterations_done, 10);
    /* 2 iterations done by 400 ms, the third lost at 550; resumed at 1000 ms with 8 left */
    ck_assert_int_eq(js.finish_ns, 1000 * MS + 8 * 200 * MS);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* A trunk failure mid-phase moves the flow to the other spine at the same rate. */
START_TEST(trunk_failure_reroutes)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 1, 1, 0, 100, 0, 0);
    tsched_sim *s = tu_sim_new(t);
    flow_job(s, "a", 0, 1, 1000, 1, 1, 100, 0, 0); /* 1 s at 100 Gbit/s via spine0 (greedy: first) */
    ck_assert_ok(tsched_sim_add_failure(s, 300 * MS, "leaf0~spine0", 0));
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 1 * S);
    ck_assert_uint_eq(tu_sim_job(r, 0).restarts, 0);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* Member links show what pooled trunks hide: two flows ECMP-hashed onto one 100 G member
 * of a 2 x 100 G trunk share it; greedy spreads them over both members. */
START_TEST(member_links_collide_under_ecmp)
{
    int collided = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        for (int greedy = 0; greedy < 2; greedy++) {
            tsched_topology *t = tu_two_leaves_members(100, 2, 400, 1);
            tsched_sim *s = tu_sim_new(t);
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, "member"));
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, greedy ? "greedy" : "ecmp"));
            ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)seed));
            uint32_t nodes[4] = {0, 1, 2, 3}, ji, ph;
            tsched_sim_job j = {sizeof j, "j", 0, 0, 0, 0, 1000, 1, 1, 0, 0, 0, NULL, nodes, 4};
            ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
            tsched_sim_phase p = {sizeof p, -1, 0, 1};
            ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
            ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 2, 0, 10, NULL, 0));
            ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 1, 0, 3, 0, 10, NULL, 0));
            tsched_sim_result *r = tu_sim_run(s);
            int64_t fin = tu_sim_job(r, 0).finish_ns;
            /* 10 Gbit at 100 G each on their own members: 100 ms; sharing one member: 200 ms */
            if (greedy)
                ck_assert_int_eq(fin, 100 * MS);
            else {
                ck_assert(fin == 100 * MS || fin == 200 * MS);
                collided += fin == 200 * MS;
            }
            tsched_sim_result_free(r);
            tsched_sim_free(s);
            tsched_topology_free(t);
        }
    }
    ck_assert_int_gt(collided, 0); /* ECMP collides for some seeds */
    ck_assert_int_lt(collided, 20); /* and not for all */
}
END_TEST

/* A single member link down: in member mode only the flow on it moves (to the trunk's other
 * member, which it then shares); in trunk mode the trunk loses half its capacity. */
START_TEST(member_link_failure)
{
    for (int member = 0; member < 2; member++) {
        tsched_topology *t = tu_two_leaves_members(100, 2, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        if (member)
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, "member"));
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "greedy"));
        uint32_t nodes[4] = {0, 1, 2, 3}, ji, ph;
        tsched_sim_job j = {sizeof j, "j", 0, 0, 0, 0, 1000, 1, 1, 0, 0, 0, NULL, nodes, 4};
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        tsched_sim_phase p = {sizeof p, -1, 0, 1};
        ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
        ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 2, 0, 10, NULL, 0));
        ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 1, 0, 3, 0, 10, NULL, 0));
        ck_assert_ok(tsched_sim_add_failure(s, 50 * MS, "spine0~leaf0#1", 0));
        tsched_sim_result *r = tu_sim_run(s);
        /* 5 Gbit each by 50 ms at 100 G; then the two flows share 100 G (one member, or the
         * trunk's remaining 100 G): 5 Gbit more each at 50 G takes 100 ms */
        ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 150 * MS);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* No surviving path: the job's flows stall (rate 0) until a repair brings a path back;
 * without a repair the run ends "stalled". */
START_TEST(no_path_stalls_until_repair)
{
    for (int repair = 0; repair < 2; repair++) {
        tsched_topology *t = tu_two_leaves(100, 400, 1);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_add_failure(s, 0, "spine0", 0));
        if (repair)
            ck_assert_ok(tsched_sim_add_failure(s, 2 * S, "spine0", 1));
        flow_job(s, "a", 0, 2, 1000, 1, 1, 10, MS, 0);
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_summary sm = tu_sim_summary(r);
        if (repair) {
            ck_assert_int_eq(sm.status, TSCHED_SIM_DONE);
            ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 2 * S + 100 * MS);
        } else {
            ck_assert_int_eq(sm.status, TSCHED_SIM_STALLED);
            ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, -1);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* dp-hd over 4 nodes is 2 log2(4) = 4 consecutive phases: the reduce-scatter pairs nodes
 * at distance 1, then 2, the all-gather at 2, then 1; every flow crosses the one spine. */
START_TEST(multi_step_patterns_are_phases)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 1, 1, 1, 0, 100, 1, 0);
    tsched_sim *s = tu_sim_new(t);
    uint32_t nodes[4] = {0, 1, 2, 3}, ji, ph;
    tsched_sim_job j = {sizeof j, "hd", 0, 0, 1, 1, 1000, 1, 1, 0, 0, 0, NULL, nodes, 4};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase p = {sizeof p, TSCHED_PATTERN_DP_HD, 10, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    tsched_sim_result *r = tu_sim_run(s);
    /* gbits 10 is each node's data: the steps send 5, 2.5, 2.5 and 5 Gbit per node, each
     * node on its own 100 G links: 50 + 25 + 25 + 50 ms in sequence (one phase of all steps
     * at once would share links); 4 nodes x 15 Gbit = 2 (4 - 1) / 4 x 10 each */
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 150 * MS);
    ck_assert_double_eq_tol(tu_sim_job(r, 0).gbits_delivered, 4 * 15, 1e-9);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* vClos's source routing: the k-th NIC under a leaf goes up spine k mod S, so the two
 * nodes of a leaf never share an uplink; it needs a two-tier fabric. */
START_TEST(source_routing)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 2, 1, 0, 100, 1, 0);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "source"));
    uint32_t nodes[4] = {0, 1, 2, 3}, ji, ph;
    tsched_sim_job j = {sizeof j, "sr", 0, 0, 0, 0, 1000, 1, 1, 0, 0, 0, NULL, nodes, 4};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_phase p = {sizeof p, -1, 0, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 2, 0, 10, NULL, 0));
    ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 1, 0, 3, 0, 10, NULL, 0));
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 100 * MS); /* spine0 and spine1: no sharing */
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
    /* a three-tier fabric: source routing is an input error at the start of the run */
    t = tu_gen_clos3(2, 1, 1, 1, 1, 0, 0, 0, 0);
    s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "source"));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_INVALID);
    ck_assert_errmsg_has("routing");
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* The time series covers the whole run, the last interval included (shorter), and its busy
 * GPUs integrate to the jobs' computing GPU-time. */
START_TEST(timeseries_integrates_the_run)
{
    tsched_topology *t = tu_two_leaves(100, 400, 2);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 70));
    flow_job(s, "a", 0, 2, 100 * MS, 0.5, 9, 12, 0, 0);
    flow_job(s, "b", 1, 3, 30 * MS, 0, 11, 5, 20 * MS, 0);
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(r);
    char *csv;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    int64_t end = sm.end_ns, sample = 70 * MS;
    uint32_t rows = 0;
    double busy_ns = 0;
    const char *line = strchr(csv, '\n') + 1; /* past the header */
    while (*line) {
        double t0, util, busy;
        unsigned alloc;
        ck_assert_int_eq(sscanf(line, "%lf,%lf,%u,%lf", &t0, &util, &alloc, &busy), 4);
        int64_t from = (int64_t)rows * sample, to = from + sample < end ? from + sample : end;
        busy_ns += busy * (double)(to - from);
        rows++;
        line = strchr(line, '\n') + 1;
    }
    ck_assert_uint_eq(rows, (uint32_t)((end + sample - 1) / sample));
    double compute = 0;
    for (uint32_t i = 0; i < 2; i++)
        compute += tu_sim_job(r, i).compute_s * 1e9 * tu_sim_job(r, i).gpus;
    ck_assert_double_eq_tol(busy_ns, compute, 1e-9 * compute);
    tsched_free(csv);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* The time series of a run longer than its sample cap (TS_SIM_MAX_SAMPLES, lowered here to
 * 2,048 to keep the run short) stays bounded: its interval doubles as it fills. The coarsened series keeps the run's busy GPU-time exactly
 * (the sum of the jobs' compute, as timeseries_integrates_the_run checks), has one row per
 * doubled interval, and matches the same run sampled at the doubled interval from the start
 * (the boundaries settle flows, so event times differ by nanoseconds: a close match). A
 * flow whose end would fall past the clock is an error naming its job, not a completion at
 * 292 years. */
static char *series(tsched_topology *t, double sample_ms, int64_t *end, double *compute)
{
    tsched_sim *s = tu_sim_new(t);
    s->max_samples = 2048;
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, 0));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, sample_ms));
    flow_job(s, "a", 0, 2, 40 * MS, 0.5, 120, 12, 0, 0);
    flow_job(s, "b", 1, 3, 30 * MS, 0, 80, 5, 20 * MS, 0);
    tsched_sim_result *r = tu_sim_run(s);
    *end = tu_sim_summary(r).end_ns;
    *compute = 0;
    for (uint32_t i = 0; i < 2; i++)
        *compute += tu_sim_job(r, i).compute_s * 1e9 * tu_sim_job(r, i).gpus;
    char *csv;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    return csv;
}

static uint32_t csv_rows(const char *csv, double (*v)[9], uint32_t max)
{
    uint32_t n = 0;
    for (const char *l = strchr(csv, '\n') + 1; *l && n < max; l = strchr(l, '\n') + 1, n++)
        ck_assert_int_eq(sscanf(l, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[n][0], &v[n][1], &v[n][2], &v[n][3],
                                &v[n][4], &v[n][5], &v[n][6], &v[n][7], &v[n][8]), 9);
    return n;
}

START_TEST(long_series_coarsen)
{
    tsched_topology *t = tu_two_leaves(100, 400, 2);
    int64_t end_f, end_c;
    double comp_f, comp_c;
    /* 1 ms over ~20 s: ~20,000 intervals, more than 8 x 2,048: four doublings, to 16 ms */
    char *fine = series(t, 1, &end_f, &comp_f), *coarse = series(t, 16, &end_c, &comp_c);
    ck_assert_msg(end_f / MS > 8 * 2048 && end_f / MS < 16 * 2048, "the run lasts %lld ms", (long long)(end_f / MS));
    enum { MAXR = 20000 };
    double(*a)[9] = malloc(MAXR * sizeof *a), (*b)[9] = malloc(MAXR * sizeof *b);
    ck_assert(a && b);
    uint32_t na = csv_rows(fine, a, MAXR), nb = csv_rows(coarse, b, MAXR);
    const int64_t step = 16 * MS;
    ck_assert_uint_eq(na, (uint32_t)((end_f + step - 1) / step));
    double busy_ns = 0;
    for (uint32_t r = 0; r < na; r++) {
        ck_assert_double_eq(a[r][0], (double)((int64_t)r * step) / 1e9);
        int64_t from = (int64_t)r * step, to = from + step < end_f ? from + step : end_f;
        busy_ns += a[r][3] * (double)(to - from);
    }
    ck_assert_double_eq_tol(busy_ns, comp_f, 1e-9 * comp_f);
    /* against the run sampled at 16 ms from the start */
    ck_assert_msg(llabs(end_f - end_c) < 10000 && (na == nb || na == nb + 1 || nb == na + 1), "ends %lld, %lld",
                  (long long)end_f, (long long)end_c);
    uint32_t n = na < nb ? na : nb, counts_differ = 0;
    for (uint32_t r = 0; r + 1 < n; r++) {
        for (int k = 1; k < 9; k++)
            if (k == 2 || k == 4 || k == 5 || k == 6)
                counts_differ += a[r][k] != b[r][k];
            else
                ck_assert_msg(fabs(a[r][k] - b[r][k]) <= 1e-2, "row %u column %d: %.17g coarsened, %.17g sampled so",
                              r, k, a[r][k], b[r][k]);
    }
    ck_assert_msg(counts_differ * 100 < n, "%u counts differ in %u rows", counts_differ, n);
    free(a);
    free(b);
    tsched_free(fine);
    tsched_free(coarse);
    /* past the clock: 1e300 Gbit over a 100 Gbit/s trunk */
    tsched_sim *s = tu_sim_new(t);
    flow_job(s, "huge", 0, 2, MS, 0, 1, 1e300, 0, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("job \"huge\"");
    ck_assert_errmsg_has("clock");
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

START_TEST(bad_inputs)
{
    tsched_topology *t = tu_two_leaves(100, 400, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_status(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "magic"), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("routing");
    ck_assert_errmsg_has("balanced-ecmp");
    ck_assert_status(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "cruise"), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("crius"); /* among the accepted names (tests/test_sim_crius.c runs it) */
    ck_assert_status(tsched_sim_set_option(s, TSCHED_SIM_LEVELS, 0), TSCHED_E_RANGE);
    ck_assert_status(tsched_sim_set_option(s, TSCHED_SIM_SEED, 1.5), TSCHED_E_RANGE);
    uint32_t nodes[2] = {0, 2}, same[2] = {0, 0};
    tsched_sim_job j = {sizeof j, "a", 0, 0, 0, 0, MS, 0.5, 1, 0, 0, 0, NULL, nodes, 2};
    j.overlap = 1.5;
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[0].overlap");
    j.overlap = 0.5;
    j.compute_ns = -1; /* 0 = not given: checked when the run starts (tests/test_sim_crius.c) */
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("compute_ms");
    j.compute_ns = MS;
    j.duration_ns = S;
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_INVALID);
    ck_assert_errmsg_has("exactly one of iterations and duration_s");
    j.duration_ns = 0;
    j.nodes = same;
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_DUPLICATE);
    j.nodes = nodes;
    j.gpus = 3;
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[0].gpus");
    j.gpus = 0;
    j.name = "bad\nname";
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_RANGE);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    j.name = "a";
    uint32_t ji, ph;
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_DUPLICATE);
    tsched_sim_phase p = {sizeof p, -1, 0, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    ck_assert_status(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 5, 0, 1, NULL, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("rank 5 out of range [0, 2)");
    ck_assert_status(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 3, 1, NULL, 0), TSCHED_E_RANGE);
    ck_assert_status(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, -1, NULL, 0), TSCHED_E_RANGE);
    uint32_t bad_hops[3] = {0, 2, 0}; /* leaf0 spine0 leaf0: does not reach n2's leaf */
    ck_assert_status(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, 1, bad_hops, 3), TSCHED_E_NOT_FOUND);
    ck_assert_status(tsched_sim_add_failure(s, S, "spine9", 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("spine9");
    /* a job larger than the fabric is an input error, not an eternal wait */
    tsched_sim_job big = {sizeof big, "big", 0, 64, 1, 1, MS, 0, 1, 0, 0, 0, NULL, NULL, 0};
    ck_assert_status(tsched_sim_add_job(NULL, s, &big), TSCHED_E_RANGE);
    /* policy-dependent rules at the start of the run */
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, "fixed"));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_LEVELS, 2));
    tsched_sim_job hi = {sizeof hi, "hi", 0, 0, 0, 0, MS, 0, 1, 0, 5, 0, NULL, nodes, 2};
    ck_assert_ok(tsched_sim_add_job(NULL, s, &hi));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[1].level");
    ck_assert_status(tsched_sim_new(NULL, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_sim_add_job(NULL, NULL, &j), TSCHED_E_INVALID);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* Old callers: a tsched_sim_job that ends before `work_tflop` gets the defaults after it. */
START_TEST(old_struct_sizes)
{
    tsched_topology *t = tu_two_leaves(100, 400, 1);
    tsched_sim *s = tu_sim_new(t);
    tsched_sim_job j = {offsetof(tsched_sim_job, level), "a", 0, 2, 1, 1, MS, 0, 3, 0, 99, 99, NULL, NULL, 0};
    uint32_t ji;
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_job_stats js = {.size = offsetof(tsched_sim_job_stats, iterations)};
    js.iterations = 12345;
    ck_assert_ok(tsched_sim_result_job(&js, r, 0));
    ck_assert_uint_eq(js.iterations, 12345); /* beyond the caller's size: untouched */
    ck_assert_int_eq(js.finish_ns, 3 * MS);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim");
    TCase *tc = tcase_create("sim");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, one_flow_analytic);
    tcase_add_test(tc, two_jobs_fair_and_priority);
    tcase_add_test(tc, work_conserving_across_levels);
    tcase_add_test(tc, crux_example_1);
    tcase_add_test(tc, crux_example_2);
    tcase_add_test(tc, random_runs_incremental_equals_full);
    tcase_add_test(tc, duration_mode);
    tcase_add_test(tc, node_failure_requeues);
    tcase_add_test(tc, trunk_failure_reroutes);
    tcase_add_test(tc, member_links_collide_under_ecmp);
    tcase_add_test(tc, member_link_failure);
    tcase_add_test(tc, no_path_stalls_until_repair);
    tcase_add_test(tc, multi_step_patterns_are_phases);
    tcase_add_test(tc, source_routing);
    tcase_add_test(tc, timeseries_integrates_the_run);
    tcase_add_test(tc, long_series_coarsen);
    tcase_add_test(tc, bad_inputs);
    tcase_add_test(tc, old_struct_sizes);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
