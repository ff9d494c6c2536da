/* sim, the network side (issue 21 items 12, 13, 19, 20): the `flows` limit over all of a
 * job's phases, the `members` limit of a fabric, routing `ideal` under the priority policies
 * and path refresh, and the priority policies on every trace value the simulator accepts. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "sim/sim_internal.h"
#include "test_util.h"

#define MS 1000000LL

static const char *const prio_names[] = {"crux", "sincronia", "varys"};

/* Run to the end and check what every finished run must satisfy: status done, every job
 * done, times ordered and finite, every demanded bit delivered. */
static void run_done(tsched_sim *s, const char *what)
{
    tsched_status st = tsched_sim_run_until(s, INT64_MAX);
    ck_assert_msg(st == TSCHED_OK, "%s: %s: %s", what, tsched_status_str(st), tsched_last_error());
    tsched_sim_result *r;
    ck_assert_ok(tsched_sim_result_new(&r, s));
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_msg(sm.status == TSCHED_SIM_DONE, "%s: status %d", what, sm.status);
    ck_assert_uint_eq(sm.jobs_done, sm.jobs);
    for (uint32_t i = 0; i < sm.jobs; i++) {
        tsched_sim_job_stats js = tu_sim_job(r, i);
        ck_assert_msg(js.start_ns >= js.arrival_ns && js.finish_ns >= js.start_ns, "%s: job %u times", what, i);
        ck_assert_msg(isfinite(js.iter_mean_s) && js.iter_mean_s > 0, "%s: job %u iter_mean_s", what, i);
        ck_assert_msg(fabs(js.gbits_delivered - js.gbits_demanded) <= 1e-9 * js.gbits_demanded,
                      "%s: job %u delivered %.17g of %.17g", what, i, js.gbits_delivered, js.gbits_demanded);
    }
    tsched_sim_result_free(r);
}

/* ---- item 19: routing ideal under crux, sincronia, varys and refresh ------------------------ */

/* Every documented combination of routing `ideal` with a computed priority and with path
 * refresh runs on multi-leaf jobs (each job's flows cross leaves); under `ideal` the only
 * links are NICs, so jobs on distinct nodes never slow each other: every iteration takes
 * its time alone. Seeded random job mixes. */
START_TEST(ideal_runs_under_every_priority_and_refresh)
{
    static const char *const prios[] = {"none", "fixed", "crux", "sincronia", "varys"};
    static const char *const patterns[] = {"dp-ring", "alltoall", "dp-hd", "pp"};
    ts_rng rng;
    ts_rng_seed(&rng, 19);
    for (unsigned rep = 0; rep < tu_n(6); rep++) {
        /* 4 leaves x 2 nodes of 4 GPUs: an 8-GPU job spans 2 nodes, placed on different
         * leaves by first-fit half the time (nodes 1 and 2) */
        char trace[2048];
        int off = snprintf(trace, sizeof trace, "{\"format\":\"tsched.trace.v1\",\"jobs\":[");
        uint32_t njobs = 2 + (uint32_t)ts_rng_below(&rng, 2);
        for (uint32_t k = 0; k < njobs; k++) {
            static const uint32_t sizes[] = {8, 16};
            /* one draw per statement: argument evaluation order is unspecified */
            uint32_t gpus = sizes[ts_rng_below(&rng, 2)];
            const char *pat = patterns[ts_rng_below(&rng, 4)];
            double arrival = ts_rng_double(&rng) * 0.05;
            unsigned compute = 1 + (unsigned)ts_rng_below(&rng, 50);
            unsigned iters = 1 + (unsigned)ts_rng_below(&rng, 4);
            double gbits = 0.1 + 10 * ts_rng_double(&rng);
            unsigned repeat = 1 + (unsigned)ts_rng_below(&rng, 3);
            off += snprintf(trace + off, sizeof trace - (size_t)off,
                            "%s{\"name\":\"j%u\",\"arrival_s\":%.3f,\"gpus\":%u,\"pp\":%u,\"compute_ms\":%u,"
                            "\"iterations\":%u,\"phases\":[{\"pattern\":\"%s\",\"gbits\":%.3f,\"repeat\":%u}]}",
                            k ? "," : "", k, arrival, gpus, strcmp(pat, "pp") ? 1 : 2, compute, iters, pat, gbits,
                            repeat);
        }
        snprintf(trace + off, sizeof trace - (size_t)off, "]}");
        for (size_t p = 0; p < sizeof prios / sizeof prios[0]; p++)
            for (int refresh = 0; refresh < 2; refresh++) {
                tsched_topology *t = tu_gen_leaf_spine(4, 2, 2, 4, 2, 100, 1, 0);
                tsched_sim *s = tu_sim_new(t);
                ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ideal"));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, rep % 2 ? "first-fit" : "random-fit"));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prios[p]));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_REROUTE, refresh ? "refresh" : "none"));
                char what[96];
                snprintf(what, sizeof what, "rep %u, priority %s, reroute %s", rep, prios[p],
                         refresh ? "refresh" : "none");
                run_done(s, what);
                tsched_sim_result *r;
                ck_assert_ok(tsched_sim_result_new(&r, s));
                for (uint32_t k = 0; k < njobs; k++) {
                    tsched_sim_job_stats js = tu_sim_job(r, k);
                    ck_assert_msg(fabs(js.iter_mean_s - js.iter_alone_s) <= 1e-9 * js.iter_alone_s,
                                  "%s: job %u iter_mean_s %.17g, alone %.17g", what, k, js.iter_mean_s,
                                  js.iter_alone_s);
                }
                tsched_sim_result_free(r);
                tsched_sim_free(s);
                tsched_topology_free(t);
            }
    }
}
END_TEST

/* The representation the simulator gives the priority module for an `ideal` flow between
 * leaves: it loads its two NIC links and no trunk. On a fabric whose trunks are 10x slower
 * than the NICs, the job's bottleneck is the NIC: intensity = W / (gbits / nic_gbps); a
 * flow left to CRUX's path selection (or pinned to a trunk path) would give the trunk's. */
START_TEST(ideal_flows_load_only_their_nics)
{
    tsched_topology *t = tu_two_leaves_start("slow-trunks", 10, 1);
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n0", "leaf0", 1, 1, NULL, 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n1", "leaf1", 1, 1, NULL, 100));
    ck_assert_ok(tsched_topology_build(t));
    for (int nic_only = 0; nic_only < 2; nic_only++) {
        tsched_jobset *js;
        ck_assert_ok(tsched_jobset_new(&js, t));
        uint32_t j;
        ck_assert_ok(tsched_jobset_add_job(&j, js, "a", 1, 2.0, 10, 0));
        if (nic_only)
            ck_assert_ok(tsched_jobset_add_nic_flow(js, j, 0, 0, 1, 0, 50));
        else
            ck_assert_ok(tsched_jobset_add_flow(js, j, 0, 0, 1, 0, 50, NULL));
        /* the builder's checks still apply */
        ck_assert_status(tsched_jobset_add_nic_flow(js, j, 0, 0, 0, 0, 50), TSCHED_E_INVALID);
        ck_assert_status(tsched_jobset_add_nic_flow(js, j, 0, 0, 1, 0, 1e-9), TSCHED_E_RANGE);
        tsched_priorities *pr;
        ck_assert_ok(tsched_prioritize(&pr, t, js, NULL));
        double tsec = 50.0 / (nic_only ? 100.0 : 10.0);
        ck_assert_double_eq_tol(tsched_priorities_intensity(pr, 0), 2.0 / tsec, 1e-12);
        tsched_priorities_free(pr);
        tsched_jobset_free(js);
    }
    tsched_topology_free(t);
}
END_TEST

/* ---- item 20: the priority policies accept every value a trace accepts -------------------- */

/* Each trigger of issue 21 item 20 (and a few more), under crux, sincronia and varys, with
 * and without refresh, with a second ordinary job so that the job set has two entries: the
 * run completes; nothing fails in the middle. */
START_TEST(priorities_take_every_trace_value)
{
    static const struct {
        const char *what;
        double compute_ms, gbits;
        unsigned repeat, iterations;
        uint64_t max_iters;
        double work; /* 0: not given */
    } cases[] = {
        {"gbits 1e-9", 10, 1e-9, 1, 2, 0, 0},
        {"compute_ms 1e-6 (1 ns)", 1e-6, 1, 1, 2, 0, 0},
        {"compute_ms 1e-6 and gbits 1e-9", 1e-6, 1e-9, 1, 2, 0, 0},
        {"compute_ms 1e12", 1e12, 1, 1, 2, 0, 0},
        {"gbits x repeat 2e12", 10, 1e9, 2000, 1, 0, 0},
        {"gbits 1e9 coarsened x 2000", 10, 1e9, 1, 4000, 2, 0},
        {"compute_ms 1e12, gbits 1e-9", 1e12, 1e-9, 1, 1, 0, 0},
        {"work_tflop 1e-300", 10, 1, 1, 2, 0, 1e-300},
        {"work_tflop 1e300", 10, 1, 1, 2, 0, 1e300},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t p = 0; p < 3; p++)
            for (int refresh = 0; refresh < 2; refresh++) {
                /* valgrind: two of the six (priority, refresh) pairs per value, both refresh
                 * modes and, over the values, every priority */
                if (tu_valgrind() && (c + p + (size_t)refresh) % 3 != 0)
                    continue;
                /* NICs and trunks of 1 Pbit/s / 10: 2e12 Gbit crosses in 2e7 s */
                tsched_topology *t = tu_gen_leaf_spine(2, 2, 2, 4, 1, 1e5, 1, 0);
                tsched_sim *s = tu_sim_new(t);
                char trace[1024], work[64] = "";
                if (cases[c].work > 0)
                    snprintf(work, sizeof work, "\"work_tflop\":%.17g,", cases[c].work);
                snprintf(trace, sizeof trace,
                         "{\"format\":\"tsched.trace.v1\",\"jobs\":["
                         "{\"name\":\"x\",\"gpus\":8,\"compute_ms\":%.17g,\"iterations\":%u,%s"
                         "\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":%.17g,\"repeat\":%u}]},"
                         "{\"name\":\"y\",\"gpus\":8,\"compute_ms\":5,\"iterations\":3,"
                         "\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":2}]}]}",
                         cases[c].compute_ms, cases[c].iterations, work, cases[c].gbits, cases[c].repeat);
                ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "first-fit"));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio_names[p]));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_REROUTE, refresh ? "refresh" : "none"));
                if (cases[c].max_iters)
                    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, (double)cases[c].max_iters));
                char what[128];
                snprintf(what, sizeof what, "%s, %s%s", cases[c].what, prio_names[p], refresh ? ", refresh" : "");
                run_done(s, what);
                tsched_sim_free(s);
                tsched_topology_free(t);
            }
}
END_TEST

/* Levels recorded at each job's first phase. */
typedef struct level_log {
    tsched_sim *s;
    uint32_t level[4];
    int seen[4];
} level_log;

static int record_level(const tsched_sim_event *e, void *user)
{
    level_log *lg = user;
    if (e->kind == TSCHED_SIM_EV_PHASE_START && e->job < 4 && !lg->seen[e->job]) {
        lg->seen[e->job] = 1;
        lg->level[e->job] = lg->s->jobs[e->job].level;
    }
    return 0;
}

/* The priority module's answers depend only on ratios of times and of works: a job set
 * whose times are all 2^k times another's gets the same levels, whether or not the scaled
 * one fits the module's ranges (compute_ms beyond 1e9 here). Two jobs share the trunk of a
 * two-leaf fabric; seeded random compute times and volumes. */
START_TEST(scaled_times_give_the_same_levels)
{
    ts_rng rng;
    ts_rng_seed(&rng, 20);
    unsigned distinct = 0;
    for (unsigned rep = 0; rep < tu_n(12); rep++) {
        double ca = 1 + (double)ts_rng_below(&rng, 200);
        double cb = 1 + (double)ts_rng_below(&rng, 200);
        double ga = ldexp(1 + (double)ts_rng_below(&rng, 64), -2);
        double gb = ldexp(1 + (double)ts_rng_below(&rng, 64), -2);
        size_t p = rep % 3;
        uint32_t lev[2][2];
        for (int scaled = 0; scaled < 2; scaled++) {
            tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 1, 1, 400, 1, 0);
            tsched_sim *s = tu_sim_new(t);
            double f = scaled ? ldexp(1, 30) : 1; /* 200 ms x 2^30 = 2.1e11 ms > 1e9 */
            char trace[1024];
            snprintf(trace, sizeof trace,
                     "{\"format\":\"tsched.trace.v1\",\"jobs\":["
                     "{\"name\":\"a\",\"nodes\":[\"node0\",\"node2\"],\"compute_ms\":%.17g,\"iterations\":1,"
                     "\"phases\":[{\"flows\":[{\"src\":0,\"dst\":1,\"gbits\":%.17g}]}]},"
                     "{\"name\":\"b\",\"nodes\":[\"node1\",\"node3\"],\"compute_ms\":%.17g,\"iterations\":1,"
                     "\"phases\":[{\"flows\":[{\"src\":0,\"dst\":1,\"gbits\":%.17g}]}]}]}",
                     ca * f, ga * f, cb * f, gb * f);
            ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio_names[p]));
            level_log lg = {.s = s};
            ck_assert_ok(tsched_sim_set_callback(s, TSCHED_SIM_EV_PHASE_START, record_level, &lg));
            run_done(s, prio_names[p]);
            ck_assert(lg.seen[0] && lg.seen[1]);
            lev[scaled][0] = lg.level[0];
            lev[scaled][1] = lg.level[1];
            tsched_sim_free(s);
            tsched_topology_free(t);
        }
        ck_assert_msg(lev[0][0] == lev[1][0] && lev[0][1] == lev[1][1],
                      "%s, a %g ms %g Gbit, b %g ms %g Gbit: levels %u, %u unscaled but %u, %u scaled by 2^30",
                      prio_names[p], ca, ga, cb, gb, lev[0][0], lev[0][1], lev[1][0], lev[1][1]);
        distinct += lev[0][0] != lev[0][1];
    }
    /* the comparison means something: most pairs get different levels */
    ck_assert_uint_ge(distinct, tu_n(12) / 2);
}
END_TEST

/* ---- item 12: the flows limit bounds all of a job's phases together ----------------------- */

/* Flows of one phase of a job on `nodes` nodes of `nics` NICs with pp `pp`. */
static uint64_t pattern_flows(const char *pat, uint64_t nodes, uint64_t pp, uint64_t nics, uint64_t *steps)
{
    uint64_t rows = nodes / pp, cols = pp;
    *steps = 1;
    if (!strcmp(pat, "pp"))
        return cols > 1 ? rows * (cols - 1) * nics : 0;
    if (rows < 2)
        return 0;
    if (!strcmp(pat, "alltoall"))
        *steps = rows - 1;
    if (!strcmp(pat, "dp-hd")) { /* reduce-scatter and all-gather: 2 log2 rows steps */
        for (*steps = 0; (1ull << *steps) < rows; (*steps)++)
            ;
        *steps *= 2;
    }
    return rows * cols * nics;
}

/* A job's expanded phases (every step of dp-hd and alltoall kept) are counted from the
 * shape before anything is made: with the limit at exactly that count the job runs, one
 * below it is refused when the job starts, naming the job, the count and the limit. Every
 * single step stays far below the limit, so a per-step check would pass. Seeded shapes. */
START_TEST(flows_limit_covers_all_steps)
{
    static const char *const pats[] = {"dp-ring", "dp-hd", "alltoall", "pp"};
    ts_rng rng;
    ts_rng_seed(&rng, 12);
    unsigned ran = 0;
    for (unsigned rep = 0; rep < tu_n(16); rep++) {
        uint32_t nics = 1 + (uint32_t)ts_rng_below(&rng, 2);
        uint32_t nodes = 1u << (1 + ts_rng_below(&rng, 3)); /* 2, 4, 8: dp-hd needs a power of two */
        uint32_t pp = ts_rng_below(&rng, 3) == 0 ? 2 : 1;
        uint32_t nph = 1 + (uint32_t)ts_rng_below(&rng, 3);
        char trace[2048];
        int off = snprintf(trace, sizeof trace,
                           "{\"format\":\"tsched.trace.v1\",\"jobs\":[{\"name\":\"job-%u\",\"gpus\":%u,\"pp\":%u,"
                           "\"compute_ms\":1,\"iterations\":1,\"phases\":[",
                           rep, nodes * 2, pp);
        uint64_t want = 0, biggest = 0;
        for (uint32_t k = 0; k < nph; k++) {
            const char *pat = pats[ts_rng_below(&rng, 4)];
            uint64_t steps, per = pattern_flows(pat, nodes, pp, nics, &steps);
            want += per * steps;
            biggest = per > biggest ? per : biggest;
            off += snprintf(trace + off, sizeof trace - (size_t)off, "%s{\"pattern\":\"%s\",\"gbits\":1}",
                            k ? "," : "", pat);
        }
        /* two explicit flows: the limit below stays >= 1 (0 would mean the default) */
        off += snprintf(trace + off, sizeof trace - (size_t)off,
                        ",{\"flows\":[{\"src\":0,\"dst\":1,\"gbits\":1},{\"src\":1,\"dst\":0,\"gbits\":1}]}");
        if (want == 0)
            continue; /* no pattern gives a flow on this shape */
        ran++;
        want += 2;
        snprintf(trace + off, sizeof trace - (size_t)off, "]}]}");
        for (int below = 0; below < 2; below++) {
            tsched_limits lim = {.size = sizeof lim};
            ck_assert_ok(tsched_limits_get(&lim));
            lim.flows = (uint32_t)(want - (uint64_t)below);
            ck_assert_ok(tsched_limits_set(&lim));
            tsched_topology *t = tu_gen_leaf_spine(4, 2, 2, 2, nics, 100, 1, 0);
            tsched_sim *s = tu_sim_new(t);
            ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "first-fit"));
            if (!below) {
                run_done(s, trace);
            } else {
                ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
                char num[64];
                snprintf(num, sizeof num, ": %llu exceeds the limit flows = %llu", (unsigned long long)want,
                         (unsigned long long)(want - 1));
                ck_assert_errmsg_has(num);
                snprintf(num, sizeof num, "jobs[0] (job \"job-%u\")", rep);
                ck_assert_errmsg_has(num);
                ck_assert_msg(biggest <= want - 1, "a single step alone exceeds the limit");
            }
            tsched_sim_free(s);
            tsched_topology_free(t);
            tsched_limits_reset();
        }
    }
    ck_assert_uint_ge(ran, tu_n(16) / 2);
}
END_TEST

/* The report's case: one 4,096-node all-to-all job (4,095 steps of 32,768 flows: 134M) under
 * the default limit is refused at its start from the arithmetic, without building a flow. */
START_TEST(big_alltoall_is_refused_before_any_flow)
{
    tsched_topology *t = tu_gen_leaf_spine(64, 8, 64, 8, 8, 400, 0, 0);
    tsched_sim *s = tu_sim_new(t);
    static const char trace[] = "{\"format\":\"tsched.trace.v1\",\"jobs\":[{\"name\":\"big\",\"gpus\":32768,"
                                "\"compute_ms\":10,\"iterations\":1,\"phases\":[{\"pattern\":\"alltoall\",\"gbits\":1}]}]}";
    ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "first-fit"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ecmp"));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("jobs[0] (job \"big\"): flows of its phases together: 134184960 exceeds the limit flows = "
                         "67108864");
    ck_assert_ptr_null(s->jobs[0].rflows);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- item 13: the members limit ------------------------------------------------------------ */

static void set_members(uint32_t m)
{
    tsched_limits lim = {.size = sizeof lim};
    ck_assert_ok(tsched_limits_get(&lim));
    lim.members = m;
    ck_assert_ok(tsched_limits_set(&lim));
}

/* A fabric's member links are bounded by `members` however it is made (generated, loaded
 * from JSON with `count`, built link by link), exactly at the limit: the limit passes, one
 * more is TSCHED_E_TOO_LARGE naming `members` and the count. The 157-byte document of the
 * report (2 x 10^6 members) is refused under the default limit. A fabric at the limit runs
 * in member mode. */
START_TEST(members_limit_everywhere)
{
    ts_rng rng;
    ts_rng_seed(&rng, 13);
    /* the report's document, default limits */
    static const char doc[] = "{\"format\":\"tsched.topology.v1\",\"generate\":{\"kind\":\"leaf_spine\",\"leaves\":2,"
                              "\"spines\":1,\"nodes_per_leaf\":2,\"gpus_per_node\":8,\"nic_gbps\":100,"
                              "\"uplinks\":1000000}}";
    tsched_topology *t = NULL;
    ck_assert_status(tsched_topology_load_string(&t, doc, strlen(doc)), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("2000000 exceeds the limit members = 1048576");
    ck_assert_ptr_null(t);
    for (unsigned rep = 0; rep < 8; rep++) {
        uint32_t a = 1 + (uint32_t)ts_rng_below(&rng, 50), b = 1 + (uint32_t)ts_rng_below(&rng, 50);
        uint32_t total = 2 * a + 2 * b; /* leaf-spine trunks a, b (twice: two spines or entries) */
        for (int over = 0; over < 2; over++) {
            set_members(total - (uint32_t)over);
            /* built link by link: two entries for one trunk add up */
            ck_assert_ok(tsched_topology_new(&t, "members"));
            ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
            ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf1", 0, NULL));
            ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
            ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine0", 100, a));
            ck_assert_ok(tsched_topology_add_link(t, "spine0", "leaf0", 100, a));
            ck_assert_ok(tsched_topology_add_link(t, "leaf1", "spine0", 100, b));
            ck_assert_ok(tsched_topology_add_link(t, "leaf1", "spine0", 50, b));
            ck_assert_ok(tsched_topology_add_node(NULL, t, "n0", "leaf0", 1, 1, NULL, 100));
            ck_assert_ok(tsched_topology_add_node(NULL, t, "n1", "leaf1", 1, 1, NULL, 100));
            char msg[96];
            snprintf(msg, sizeof msg, "links: member links of all trunks: %u exceeds the limit members = %u", total,
                     total - 1);
            if (over) {
                ck_assert_status(tsched_topology_build(t), TSCHED_E_TOO_LARGE);
                ck_assert_errmsg_has(msg);
            } else {
                ck_assert_ok(tsched_topology_build(t));
                ck_assert_uint_eq(tsched_topology_num_members(t), total);
            }
            tsched_topology_free(t);
            /* JSON with count */
            char js[512];
            snprintf(js, sizeof js,
                     "{\"format\":\"tsched.topology.v1\",\"switches\":[{\"name\":\"l0\",\"tier\":0},"
                     "{\"name\":\"l1\",\"tier\":0},{\"name\":\"s0\",\"tier\":1},{\"name\":\"s1\",\"tier\":1}],"
                     "\"nodes\":[{\"name\":\"n0\",\"leaf\":\"l0\",\"gpus\":1}],\"links\":["
                     "{\"a\":\"l0\",\"b\":\"s0\",\"gbps\":100,\"count\":%u},{\"a\":\"l0\",\"b\":\"s1\",\"gbps\":100,"
                     "\"count\":%u},{\"a\":\"l1\",\"b\":\"s0\",\"gbps\":100,\"count\":%u},{\"a\":\"l1\",\"b\":\"s1\","
                     "\"gbps\":100,\"count\":%u}]}",
                     a, a, b, b);
            t = NULL;
            if (over) {
                ck_assert_status(tsched_topology_load_string(&t, js, strlen(js)), TSCHED_E_TOO_LARGE);
                ck_assert_errmsg_has("limit members");
            } else {
                ck_assert_ok(tsched_topology_load_string(&t, js, strlen(js)));
            }
            tsched_topology_free(t);
            /* generated: 2 leaves x 2 spines x uplinks, refused before building */
            tsched_gen_params g;
            tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
            g.leaves = 2;
            g.spines = 2;
            g.nodes_per_leaf = 1;
            g.gpus_per_node = 1;
            g.nic_gbps = 100;
            g.uplinks = a;
            set_members(4 * a - (uint32_t)over);
            t = NULL;
            if (over) {
                ck_assert_status(tsched_topology_generate(&t, &g), TSCHED_E_TOO_LARGE);
                snprintf(msg, sizeof msg, "generate: members: %u exceeds the limit members = %u", 4 * a, 4 * a - 1);
                ck_assert_errmsg_has(msg);
            } else {
                ck_assert_ok(tsched_topology_generate(&t, &g));
                ck_assert_uint_eq(tsched_topology_num_members(t), 4 * a);
            }
            tsched_topology_free(t);
            tsched_limits_reset();
        }
    }
    /* clos3: the spine-core members count too */
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
    g.pods = 2;
    g.leaves_per_pod = 2;
    g.spines_per_pod = 2;
    g.cores = 2;
    g.nodes_per_leaf = 2;
    g.gpus_per_node = 2;
    g.nic_gbps = 100;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    uint32_t m = tsched_topology_num_members(t), leaf_members = 0;
    for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++)
        if (tsched_topology_switch_tier(t, tsched_topology_trunk_lower(t, r)) == TSCHED_TIER_LEAF)
            leaf_members += tsched_topology_trunk_links(t, r);
    ck_assert_uint_gt(m, leaf_members);
    tsched_topology_free(t);
    set_members(m - 1);
    ck_assert_status(tsched_topology_generate(&t, &g), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("generate: members");
    set_members(m);
    ck_assert_ok(tsched_topology_generate(&t, &g));
    tsched_topology_free(t);
    tsched_limits_reset();

    /* at the limit, member mode runs: 2 leaves x 1 spine x 64 members */
    set_members(128);
    t = tu_gen_leaf_spine(2, 1, 2, 4, 1, 100, 64, 0);
    tsched_limits_reset();
    tsched_sim *s = tu_sim_new(t);
    static const char tr[] = "{\"format\":\"tsched.trace.v1\",\"jobs\":[{\"name\":\"a\",\"gpus\":16,\"compute_ms\":1,"
                             "\"iterations\":2,\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":1}]}]}";
    ck_assert_ok(tsched_sim_load_trace_string(s, tr, strlen(tr)));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, "member"));
    run_done(s, "member mode");
    ck_assert_uint_eq(s->nfab, 2 * 128);
    ck_assert_uint_eq(s->ntouched, 0);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim-net");
    TCase *tc = tcase_create("sim-net");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ideal_runs_under_every_priority_and_refresh);
    tcase_add_test(tc, ideal_flows_load_only_their_nics);
    tcase_add_test(tc, priorities_take_every_trace_value);
    tcase_add_test(tc, scaled_times_give_the_same_levels);
    tcase_add_test(tc, flows_limit_covers_all_steps);
    tcase_add_test(tc, big_alltoall_is_refused_before_any_flow);
    tcase_add_test(tc, members_limit_everywhere);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
