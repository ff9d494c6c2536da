/* sim against hostile input (issue 21, the simulator core): the clock's range (checked
 * arithmetic, refusals naming the job and the field), superseded events that must not move
 * the clock, iter_mean_s within [min, max], the measurement window's order, the sim_events
 * bound, a heap that keeps only live events, job names found in O(1), and "simulate never
 * lies": seeded random scenarios over every placement x routing x priority, each either
 * refused when the run starts or run to the end with times, utilisation and series that
 * agree with the events the callback saw. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim_internal.h"
#include "test_util.h"

#define MS 1000000LL
#define S 1000000000LL

/* A job on nodes a, b (or placed by the policy when a == b) with one explicit flow rank 0 ->
 * 1 of `gbits` per iteration (none when gbits is 0). */
static uint32_t flow_job(tsched_sim *s, const char *name, uint32_t a, uint32_t b, int64_t compute, double overlap,
                         uint64_t iters, double gbits, int64_t arrival)
{
    uint32_t nodes[2] = {a, b}, ji, ph;
    tsched_sim_job j = {sizeof j, name, arrival, 0, 0, 0, compute, overlap, iters, 0, 0, 0, NULL, nodes, 2};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    if (gbits > 0) {
        tsched_sim_phase p = {sizeof p, -1, 0, 1};
        ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
        ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, gbits, NULL, 0));
    }
    return ji;
}

/* Rows of the time series at its own interval. */
static uint32_t csv_rows(const tsched_sim_result *r)
{
    char *csv = NULL;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    uint32_t n = 0;
    for (const char *p = csv; *p; p++)
        n += *p == '\n';
    free(csv);
    return n - 1; /* the header */
}

/* CPU seconds of this process: the bounds below hold on a loaded machine too. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- 1. the clock's range ------------------------------------------------------------------ */

/* Jobs whose computation alone ends past the clock are refused when the run starts, naming
 * the job and the field; the run never reports a negative or wrapped time. */
START_TEST(clock_range_refused_at_start)
{
    static const struct {
        double compute_ms, latency_us;
        uint64_t iters;
        double max_sim;
        const char *field;
    } cases[] = {
        {9.2e12, 0, 2, 0, "compute_ms"},                       /* 2 x 9.2e9 s */
        {1, 0, 9007199254740992ull, 1, "compute_ms"},          /* 2^53 x 1 ms, coarsened to one */
        {1, 4e15, 1, 0, "phase_latency_us"},                   /* 3 phases of 4e9 s latency each */
        {2e-3, 0, 9007199254740992ull, 1, "compute_ms"},       /* 2^53 x 2 us = 1.8e10 s */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tsched_topology *t = tu_two_leaves(100, 100, 1);
        tsched_sim *s;
        ck_assert_ok(tsched_sim_new(&s, t));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_PHASE_LATENCY_US, cases[k].latency_us));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, cases[k].max_sim));
        uint32_t ji = flow_job(s, "big", 0, 2, (int64_t)llround(cases[k].compute_ms * 1e6), 0, cases[k].iters, 0, 0);
        tsched_sim_phase p = {sizeof p, TSCHED_PATTERN_DP_RING, 1, 3};
        if (cases[k].latency_us > 0)
            ck_assert_ok(tsched_sim_job_add_phase(NULL, s, ji, &p));
        double w0 = now_s();
        ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
        ck_assert_double_lt(now_s() - w0, 5.0);
        ck_assert_errmsg_has("\"big\"");
        ck_assert_errmsg_has(cases[k].field);
        ck_assert_int_eq(s->started, 0);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* Close to the clock's end, but inside it: 2^53 iterations of 1 us coarsened to one
 * simulated iteration end at exactly 2^53 us, all of them counted. */
START_TEST(clock_near_its_end)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, 1));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 1e12)); /* 1e9 s: a few samples */
    flow_job(s, "long", 0, 2, 1000, 0, 9007199254740992ull, 0, 0);
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_job_stats js = tu_sim_job(r, 0);
    ck_assert_int_eq(js.finish_ns, 9007199254740992ll * 1000);
    ck_assert_uint_eq(js.iterations_done, 9007199254740992ull);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_int_eq(sm.status, TSCHED_SIM_DONE);
    ck_assert_int_eq(sm.end_ns, js.finish_ns);
    ck_assert_double_eq_tol(sm.gpu_util, 0.5, 1e-12); /* 2 of 4 GPUs the whole run */
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* What only the run can tell: a communication that pushes the second iteration past the
 * clock, a waiting job whose next scheduling instant is past it, and a sampling interval
 * whose next boundary is past it (which must simply never come). */
START_TEST(clock_range_stops_the_run)
{
    /* 1: 2 x 4.6e9 s of computation fit (9.2e9 s), the 1e8 s flow between them does not */
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 1e12));
    flow_job(s, "a", 0, 2, 4600000000LL * S, 0, 2, 1e10, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("\"a\"");
    ck_assert_errmsg_has("compute_ms");
    ck_assert_int_ge(s->now, 0);
    tsched_sim_free(s);

    /* 2: schedule_interval_s 5e9: "b" waits for "a" (same nodes) past the instant at 5e9 s */
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 1e12));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SCHEDULE_INTERVAL_S, 5e9));
    flow_job(s, "a", 0, 2, 1 * S, 0, 1, 0, 1 * S);
    flow_job(s, "b", 0, 2, 1 * S, 0, 1, 0, 2 * S);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("\"b\"");
    ck_assert_errmsg_has("schedule_interval_s");
    ck_assert_int_ge(s->now, 5000000000LL * S);
    tsched_sim_free(s);

    /* 3: the same interval with nothing waiting after the instant: no error, no wrap */
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 1e12));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SCHEDULE_INTERVAL_S, 5e9));
    flow_job(s, "a", 0, 2, 1 * S, 0, 1, 0, 1 * S);
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_summary(r).end_ns, 5000000001LL * S);
    ck_assert_double_eq_tol(tu_sim_summary(r).makespan_s, 5000000001.0, 1e-3);
    tsched_sim_result_free(r);
    tsched_sim_free(s);

    /* 4: samples of 5e9 s over a 6e9 s run: the boundary at 1e10 s is past the clock */
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 5e12));
    flow_job(s, "a", 0, 2, 6000000000LL * S, 0, 1, 0, 0);
    r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_summary(r).end_ns, 6000000000LL * S);
    ck_assert_uint_eq(r->nsamples, 2); /* one whole interval and the partial one */
    ck_assert_double_eq_tol(r->samples[0].gpu_util, 0.5, 1e-12);
    ck_assert_double_eq_tol(r->samples[1].gpu_util, 0.5, 1e-12);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- 2. superseded events do not move the clock ----------------------------------------- */

/* Two flows share a 1 Gbit/s trunk: a (1 Gbit) ends at 2 s, b (2 Gbit) then speeds up and
 * ends at 3 s; its first completion (4 s, at the shared rate) is superseded. */
START_TEST(superseded_flow_completion)
{
    tsched_topology *t = tu_two_leaves(1, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 1000));
    flow_job(s, "a", 0, 2, 1, 1, 1, 1, 0);
    flow_job(s, "b", 1, 3, 1, 1, 1, 2, 0);
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_int_eq(tu_sim_job(r, 0).finish_ns, 2 * S);
    ck_assert_int_eq(tu_sim_job(r, 1).finish_ns, 3 * S);
    ck_assert_int_eq(sm.end_ns, 3 * S);
    ck_assert_int_eq(sm.to_ns, 3 * S);
    ck_assert_uint_eq(csv_rows(r), 3);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* A failure and repair after the last job finished change nothing the run reports: end_s is
 * the last finish and gpu_util is over that span. */
START_TEST(failures_after_the_last_job)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    flow_job(s, "a", 0, 2, 500 * MS, 0, 5, 1, 0); /* 510 ms iterations: 2.55 s */
    ck_assert_ok(tsched_sim_add_failure(s, 100 * S, "n0", 0));
    ck_assert_ok(tsched_sim_add_failure(s, 100 * S + 10 * MS, "n0", 1));
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_int_eq(sm.status, TSCHED_SIM_DONE);
    ck_assert_int_eq(sm.end_ns, 2550 * MS);
    ck_assert_double_eq_tol(sm.makespan_s, 2.55, 1e-12);
    /* 2 of 4 GPUs compute 2.5 s of the 2.55 s */
    ck_assert_double_eq_tol(sm.gpu_util, 0.5 * 2.5 / 2.55, 1e-12);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* A scheduling instant that starts nothing does not move the clock: the job that needs a node
 * down for good arrives at 0.5 s and the run, stalled, ends there, not at the attempt at 1 s. */
START_TEST(idle_scheduling_instant)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SCHEDULE_INTERVAL_S, 1));
    ck_assert_ok(tsched_sim_add_failure(s, 0, "n2", 0));
    flow_job(s, "a", 0, 2, 10 * MS, 0, 1, 0, 500 * MS);
    tsched_sim_result *r = tu_sim_run(s);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_int_eq(sm.status, TSCHED_SIM_STALLED);
    ck_assert_int_eq(sm.end_ns, 500 * MS);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- 3. iter_mean_s and the window ------------------------------------------------------- */

/* 850 ms iterations: the sum of 7 (or 30) of them divided by 7 rounds below (above) 0.85. */
START_TEST(iter_mean_within_min_max)
{
    static const uint64_t iters[] = {5, 7, 10, 30};
    for (size_t k = 0; k < sizeof iters / sizeof iters[0]; k++)
        for (double m = 0; m <= 3; m += 3) {
            tsched_topology *t = tu_two_leaves(100, 100, 1);
            tsched_sim *s;
            ck_assert_ok(tsched_sim_new(&s, t));
            ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, m));
            flow_job(s, "a", 0, 2, 850 * MS, 0, iters[k], 0, 0);
            tsched_sim_result *r = tu_sim_run(s);
            tsched_sim_job_stats js = tu_sim_job(r, 0);
            ck_assert_uint_eq(js.iterations_done, iters[k]);
            ck_assert_msg(js.iter_min_s <= js.iter_mean_s && js.iter_mean_s <= js.iter_max_s,
                          "%llu iterations: min %.17g mean %.17g max %.17g", (unsigned long long)iters[k],
                          js.iter_min_s, js.iter_mean_s, js.iter_max_s);
            ck_assert_double_eq_tol(js.iter_mean_s, 0.85, 1e-12);
            tsched_sim_result_free(r);
            tsched_sim_free(s);
            tsched_topology_free(t);
        }
}
END_TEST

START_TEST(window_in_order)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    /* through the setters, in either order: refused when the run starts */
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MEASURE_FROM_S, 3));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MEASURE_TO_S, 1));
    flow_job(s, "a", 0, 2, 10 * MS, 0, 1, 0, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("measure.to_s");
    tsched_sim_free(s);
    /* through the scenario: refused when it is read */
    ck_assert_ok(tsched_sim_new(&s, t));
    const char *doc = "{\"format\": \"tsched.scenario.v1\", \"measure\": {\"from_s\": 3, \"to_s\": 1}}";
    ck_assert_status(tsched_sim_load_scenario_string(s, doc, strlen(doc)), TSCHED_E_RANGE);
    ck_assert_errmsg_has("measure.to_s");
    /* an empty window is a window */
    const char *ok = "{\"format\": \"tsched.scenario.v1\", \"measure\": {\"from_s\": 1, \"to_s\": 1}}";
    ck_assert_ok(tsched_sim_load_scenario_string(s, ok, strlen(ok)));
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- 11. the bound on simulated work (sim_events) --------------------------------------- */

static void set_sim_events(uint64_t n)
{
    tsched_limits l = {.size = sizeof l};
    ck_assert_ok(tsched_limits_get(&l));
    l.sim_events = n;
    ck_assert_ok(tsched_limits_set(&l));
}

START_TEST(sim_events_bound)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    /* 2^53 iterations of 1 ns: refused at once, naming the job and the limit */
    ck_assert_ok(tsched_sim_new(&s, t));
    flow_job(s, "tiny", 0, 2, 1, 0, 9007199254740992ull, 0, 0);
    double w0 = now_s();
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_double_lt(now_s() - w0, 5.0);
    ck_assert_errmsg_has("\"tiny\"");
    ck_assert_errmsg_has("sim_events");
    tsched_sim_free(s);

    /* the jobs together: 3 x 100 iterations need 600 events, the limit is 500 */
    set_sim_events(500);
    ck_assert_ok(tsched_sim_new(&s, t));
    flow_job(s, "a", 0, 2, MS, 0, 100, 0, 0);
    flow_job(s, "b", 0, 2, MS, 0, 100, 0, 0);
    flow_job(s, "c", 0, 2, MS, 0, 100, 0, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("\"c\"");
    ck_assert_errmsg_has("sim_events = 500");
    tsched_sim_free(s);

    /* a job added after the start counts too */
    ck_assert_ok(tsched_sim_new(&s, t));
    flow_job(s, "a", 0, 2, MS, 0, 200, 0, 0);
    ck_assert_ok(tsched_sim_run_until(s, 0));
    uint32_t nodes[2] = {1, 3};
    tsched_sim_job j = {sizeof j, "late", 10 * S, 0, 0, 0, MS, 0, 100, 0, 0, 0, NULL, nodes, 2};
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("\"late\"");
    j.iterations = 10;
    ck_assert_ok(tsched_sim_add_job(NULL, s, &j)); /* its refusal left no trace */
    tsched_sim_free(s);

    /* a run that needs more than its iterations: each iteration's flow adds events */
    ck_assert_ok(tsched_sim_new(&s, t));
    flow_job(s, "a", 0, 2, MS, 0, 200, 1, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("sim_events = 500");
    ck_assert_uint_le(s->handled, 500 + 16);
    tsched_sim_free(s);

    /* duration mode: the iterations resolved at the start count */
    ck_assert_ok(tsched_sim_new(&s, t));
    uint32_t n02[2] = {0, 2};
    tsched_sim_job d = {sizeof d, "dur", 0, 0, 0, 0, MS, 0, 0, 10 * S, 0, 0, NULL, n02, 2};
    ck_assert_ok(tsched_sim_add_job(NULL, s, &d));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("\"dur\"");
    tsched_sim_free(s);
    set_sim_events(0); /* the default */

    /* duration mode past 2^53 iterations: refused, not capped */
    ck_assert_ok(tsched_sim_new(&s, t));
    d.compute_ns = 1;
    d.duration_ns = 9000000000LL * S;
    ck_assert_ok(tsched_sim_add_job(NULL, s, &d));
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_RANGE);
    ck_assert_errmsg_has("\"dur\"");
    ck_assert_errmsg_has("duration_s");
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- 15. superseded events leave the heap ------------------------------------------------- */

typedef struct heap_watch {
    tsched_sim *s;
    size_t max_heap;
    uint64_t iterations;
} heap_watch;

static int watch_heap(const tsched_sim_event *e, void *user)
{
    heap_watch *w = user;
    (void)e;
    if (w->s->nheap > w->max_heap)
        w->max_heap = w->s->nheap;
    w->iterations++;
    return 0;
}

/* A long flow shares the trunk with a job of many short phases: each phase start and end
 * changes the long flow's rate, superseding its completion event; the heap stays small. */
START_TEST(heap_stays_bounded)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    uint64_t n = tu_n(20000);
    flow_job(s, "long", 0, 2, 1, 1, 1, 1e6, 0);
    flow_job(s, "short", 1, 3, MS, 0, n, 0.01, 0);
    heap_watch w = {s, 0, 0};
    ck_assert_ok(tsched_sim_set_callback(s, TSCHED_SIM_EV_ITERATION, watch_heap, &w));
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
    ck_assert_uint_eq(w.iterations, n + 1);
    ck_assert_uint_ge(tu_sim_summary(r).rate_updates, 2 * n); /* so many completions were superseded */
    ck_assert_uint_le(w.max_heap, TS_SIM_COMPACT_MIN + 16);
    ck_assert_uint_le(s->heap_cap, 2 * (TS_SIM_COMPACT_MIN + 16));
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- 16. job names ------------------------------------------------------------------------ */

START_TEST(many_jobs_load_fast)
{
    tsched_topology *t = tu_two_leaves(100, 100, 1);
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    uint32_t n = 100000;
    char name[32];
    double w0 = now_s();
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "job-%u", i);
        tsched_sim_job j = {sizeof j, name, i, 1, 0, 0, MS, 0, 1, 0, 0, 0, NULL, NULL, 0};
        ck_assert_ok(tsched_sim_add_job(NULL, s, &j));
    }
    double took = now_s() - w0;
    /* about 0.2 s of CPU on an idle machine (40 s when names were compared pairwise) */
    ck_assert_msg(took < (tu_slow() ? 30.0 : 3.0), "100,000 jobs took %.2f s of CPU", took);
    tsched_sim_job j = {sizeof j, "job-77777", 0, 1, 0, 0, MS, 0, 1, 0, 0, 0, NULL, NULL, 0};
    ck_assert_status(tsched_sim_add_job(NULL, s, &j), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("jobs[100000].name");
    tsched_sim_free(s);

    /* a trace refused half-way takes its names with it; the names before stay */
    ck_assert_ok(tsched_sim_new(&s, t));
    const char *one = "{\"format\": \"tsched.trace.v1\", \"jobs\": [{\"name\": \"a\", \"gpus\": 1, \"compute_ms\": 1, "
                      "\"iterations\": 1}]}";
    const char *bad = "{\"format\": \"tsched.trace.v1\", \"jobs\": [{\"name\": \"b\", \"gpus\": 1, \"compute_ms\": 1, "
                      "\"iterations\": 1}, {\"name\": \"c\", \"gpus\": 99, \"compute_ms\": 1, \"iterations\": 1}]}";
    ck_assert_ok(tsched_sim_load_trace_string(s, one, strlen(one)));
    ck_assert_status(tsched_sim_load_trace_string(s, bad, strlen(bad)), TSCHED_E_RANGE);
    tsched_sim_job b = {sizeof b, "b", 0, 1, 0, 0, MS, 0, 1, 0, 0, 0, NULL, NULL, 0};
    ck_assert_ok(tsched_sim_add_job(NULL, s, &b));
    b.name = "a";
    ck_assert_status(tsched_sim_add_job(NULL, s, &b), TSCHED_E_DUPLICATE);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- simulate never lies ----------------------------------------------------------------- */

/* What the callback saw. */
typedef struct seen {
    int64_t last;      /* the latest event time */
    int ordered;       /* times never went back */
    uint32_t events;
} seen;

static int record(const tsched_sim_event *e, void *user)
{
    seen *w = user;
    if (e->t_ns < w->last)
        w->ordered = 0;
    if (e->t_ns > w->last)
        w->last = e->t_ns;
    w->events++;
    return 0;
}

static const char *const placements[] = {"first-fit",  "best-fit", "random-fit", "gpu-pack",   "topo-aware", "exhaustive",
                                         "mip",        "vclos",    "ocs-vclos",  "vclos-free", "crius"};
static const char *const routings[] = {"greedy", "ecmp", "balanced-ecmp", "ilp", "source", "ideal", "vclos"};
static const char *const priorities[] = {"none", "fixed", "crux", "sincronia", "varys", "taccl", "cassini"};
static const char *const patterns[] = {"dp-ring", "dp-hd", "pp", "alltoall"};
#define NPL (sizeof placements / sizeof placements[0])
#define NRT (sizeof routings / sizeof routings[0])
#define NPR (sizeof priorities / sizeof priorities[0])

/* One random scenario of combination `combo` (placement x routing x priority), from `seed`:
 * returns 1 when it ran, 0 when it was refused at the start. */
static int never_lies_case(uint32_t combo, uint64_t seed)
{
    tu_rng r = {seed};
    const char *pl = placements[combo % NPL], *rt = routings[(combo / NPL) % NRT], *pr = priorities[combo / NPL / NRT];
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = tu_rng_below(&r, 2) ? 2 : 4; /* ocs-vclos needs the spines to divide the leaves */
    g.spines = 1 + tu_rng_below(&r, 2);
    g.nodes_per_leaf = 2 + tu_rng_below(&r, 2);
    g.gpus_per_node = tu_rng_below(&r, 2) ? 4 : 2;
    g.nics_per_node = 1 + tu_rng_below(&r, 2);
    g.uplinks = 1 + tu_rng_below(&r, 2);
    g.nic_gbps = 100;
    g.gpu_type = "A100-40G";
    tsched_topology *t;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    /* crius takes no failures and no duration; vclos and ocs-vclos reserve member links */
    int crius = combo % NPL == 10, reserving = combo % NPL == 7 || combo % NPL == 8;
    char scen[1024];
    uint32_t maxsim = tu_rng_below(&r, 2) ? 0 : 1 + tu_rng_below(&r, 4);
    snprintf(scen, sizeof scen,
             "{\"format\": \"tsched.scenario.v1\", \"seed\": %u, \"placement\": \"%s\", \"routing\": \"%s\", "
             "\"priority\": \"%s\", \"queue\": \"%s\", \"reroute\": \"%s\", \"links\": \"%s\", "
             "\"max_sim_iterations\": %u, \"phase_latency_us\": %u, \"sample_ms\": %u, \"schedule_interval_s\": %s, "
             "\"place_time_limit_ms\": 200, \"levels\": %u}",
             1 + tu_rng_below(&r, 1000), pl, rt, pr, tu_rng_below(&r, 2) ? "fifo" : "ff",
             tu_rng_below(&r, 4) ? "none" : "refresh", !reserving && tu_rng_below(&r, 2) ? "trunk" : "member", maxsim,
             tu_rng_below(&r, 3) ? 0 : 10, 50 + tu_rng_below(&r, 1000), tu_rng_below(&r, 4) ? "0" : "0.25",
             2 + tu_rng_below(&r, 6));
    tsched_status st = tsched_sim_load_scenario_string(s, scen, strlen(scen));
    ck_assert_msg(st == TSCHED_OK, "%s: %s", scen, tsched_last_error());
    /* jobs */
    uint32_t gpn = g.gpus_per_node, nodes = g.leaves * g.nodes_per_leaf, njobs = 1 + tu_rng_below(&r, 5);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 1024;
    m.layers = 4 + 4 * tu_rng_below(&r, 2);
    m.vocab = 32000;
    m.seq = 512;
    m.global_batch = 32;
    m.micro_batch = 1;
    for (uint32_t i = 0; i < njobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        uint32_t nn = 1 + tu_rng_below(&r, nodes / 2), gpus = nn == 1 ? 1 + tu_rng_below(&r, gpn) : nn * gpn;
        uint32_t pp = nn % 2 == 0 && tu_rng_below(&r, 2) ? 2 : 1;
        int dur = tu_rng_below(&r, 5) == 0 && !crius;
        tsched_sim_job j = {sizeof j, name, (int64_t)tu_rng_below(&r, 2000) * MS, gpus, 0, pp,
                            (int64_t)(1 + tu_rng_below(&r, 50)) * MS, tu_rng_unit(&r),
                            dur ? 0 : 1 + tu_rng_below(&r, 20), dur ? (int64_t)(100 + tu_rng_below(&r, 1000)) * MS : 0,
                            tu_rng_below(&r, 2), 0, &m, NULL, 0};
        uint32_t ji;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        for (uint32_t p = tu_rng_below(&r, 3); p > 0; p--) {
            tsched_pattern pat;
            uint32_t rows = nn / pp, pi = tu_rng_below(&r, 4);
            if (pi == 1 && (rows & (rows - 1)) != 0)
                pi = 0; /* dp-hd needs a power of two of rows */
            ck_assert_ok(tsched_pattern_from_name(&pat, patterns[pi]));
            tsched_sim_phase ph = {sizeof ph, (int)pat, 0.05 + 2 * tu_rng_unit(&r), 1 + tu_rng_below(&r, 2)};
            ck_assert_ok(tsched_sim_job_add_phase(NULL, s, ji, &ph));
        }
    }
    /* failures, each repaired */
    for (uint32_t f = crius ? 0 : tu_rng_below(&r, 3); f > 0; f--) {
        char el[64];
        uint32_t kind = tu_rng_below(&r, 3);
        if (kind == 0)
            snprintf(el, sizeof el, "%s", tsched_topology_node_name(t, tu_rng_below(&r, nodes)));
        else if (kind == 1)
            snprintf(el, sizeof el, "spine%u", tu_rng_below(&r, g.spines));
        else
            snprintf(el, sizeof el, "leaf%u~spine%u", tu_rng_below(&r, g.leaves), tu_rng_below(&r, g.spines));
        int64_t at = (int64_t)tu_rng_below(&r, 3000) * MS, back = at + (int64_t)(1 + tu_rng_below(&r, 2000)) * MS;
        ck_assert_ok(tsched_sim_add_failure(s, at, el, 0));
        ck_assert_ok(tsched_sim_add_failure(s, back, el, 1));
    }
    seen w = {0, 1, 0};
    ck_assert_ok(tsched_sim_set_callback(s, 0x7f, record, &w));
    st = tsched_sim_run_until(s, INT64_MAX);
    if (st != TSCHED_OK) {
        /* refused when the run starts, with a message, or a lie */
        ck_assert_msg(!s->started, "seed %llu, %s/%s/%s: failed during the run: %s: %s", (unsigned long long)seed, pl,
                      rt, pr, tsched_status_str(st), tsched_last_error());
        ck_assert_str_ne(tsched_last_error(), "");
        if (getenv("SIM_ROBUST_VERBOSE"))
            fprintf(stderr, "refused %s/%s/%s: %s\n", pl, rt, pr, tsched_last_error());
        tsched_sim_free(s);
        tsched_topology_free(t);
        return 0;
    }
    tsched_sim_result *res;
    ck_assert_ok(tsched_sim_result_new(&res, s));
    tsched_sim_summary sm = tu_sim_summary(res);
    ck_assert_msg(w.ordered, "seed %llu: callback times went back", (unsigned long long)seed);
    ck_assert_msg(sm.status == TSCHED_SIM_DONE || sm.status == TSCHED_SIM_STALLED, "seed %llu: status %d",
                  (unsigned long long)seed, sm.status);
    /* end_s is the last event that changed something */
    int64_t makespan = 0;
    for (uint32_t i = 0; i < res->njobs; i++) {
        tsched_sim_job_stats js = tu_sim_job(res, i);
        ck_assert_int_ge(js.arrival_ns, 0);
        if (js.start_ns >= 0)
            ck_assert_int_ge(js.start_ns, js.arrival_ns);
        if (js.finish_ns >= 0) {
            ck_assert_int_ge(js.start_ns, 0);
            ck_assert_int_ge(js.finish_ns, js.start_ns);
            ck_assert_uint_eq(js.iterations_done, js.iterations);
            if (js.finish_ns > makespan)
                makespan = js.finish_ns;
        }
        ck_assert_int_le(js.finish_ns, sm.end_ns);
        if (js.iterations_done) {
            ck_assert(isfinite(js.iter_mean_s) && js.iter_min_s > 0);
            ck_assert_msg(js.iter_min_s <= js.iter_mean_s && js.iter_mean_s <= js.iter_max_s,
                          "seed %llu job %u: min %.17g mean %.17g max %.17g", (unsigned long long)seed, i,
                          js.iter_min_s, js.iter_mean_s, js.iter_max_s);
        }
        ck_assert(isfinite(js.gbits_delivered) && js.gbits_delivered <= js.gbits_demanded * (1 + 1e-9) + 1e-9);
        ck_assert(isfinite(js.compute_s) && js.compute_s >= 0);
    }
    if (sm.status == TSCHED_SIM_DONE) {
        ck_assert_msg(sm.end_ns == w.last && sm.end_ns == makespan,
                      "seed %llu, %s/%s/%s: end %lld, last event %lld, makespan %lld", (unsigned long long)seed, pl, rt,
                      pr, (long long)sm.end_ns, (long long)w.last, (long long)makespan);
    } else {
        /* stalled: no later than the last event but a computation's end */
        ck_assert_int_ge(sm.end_ns, w.last);
    }
    ck_assert_int_le(sm.to_ns, sm.end_ns);
    ck_assert_msg(sm.gpu_util >= 0 && sm.gpu_util <= 1 + 1e-12, "seed %llu: gpu_util %.17g", (unsigned long long)seed,
                  sm.gpu_util);
    ck_assert(sm.gpu_util_alloc >= 0 && sm.gpu_util_alloc <= 1 + 1e-12);
    /* the series covers [0, end] and integrates to the summary */
    int64_t covered = 0;
    double busy = 0;
    for (uint32_t k = 0; k < res->nsamples; k++) {
        int64_t len = k + 1 < res->nsamples ? res->sample_ns : sm.end_ns - covered;
        ck_assert_int_gt(len, 0);
        ck_assert(res->samples[k].gpu_util >= 0 && res->samples[k].gpu_util <= 1 + 1e-9);
        ck_assert(res->samples[k].link_util_mean >= 0 && res->samples[k].link_util_max <= 1 + 1e-6);
        ck_assert(res->samples[k].link_util_mean <= res->samples[k].link_util_max + 1e-12);
        busy += res->samples[k].gpu_util * (double)len;
        covered += len;
    }
    ck_assert_int_eq(covered, sm.end_ns);
    if (sm.end_ns > 0)
        ck_assert_msg(fabs(busy / (double)sm.end_ns - sm.gpu_util) <= 1e-9, "seed %llu: series %.17g, summary %.17g",
                      (unsigned long long)seed, busy / (double)sm.end_ns, sm.gpu_util);
    tsched_sim_result_free(res);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return 1;
}

START_TEST(simulate_never_lies)
{
    uint32_t combos = NPL * NRT * NPR, ran = 0, n = tu_n(combos);
    for (uint32_t k = 0; k < n; k++) {
        /* every combination in the plain build; a spread third under the slow setups */
        uint32_t combo = tu_slow() ? (k * 3 + (uint32_t)_i) % combos : k;
        ran += (uint32_t)never_lies_case(combo, 1000 * (uint64_t)_i + k + 1);
    }
    ck_assert_uint_gt(ran, n / 4); /* most combinations run */
}
END_TEST

static Suite *suite(void)
{
    Suite *su = suite_create("sim-robust");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, clock_range_refused_at_start);
    tcase_add_test(tc, clock_near_its_end);
    tcase_add_test(tc, clock_range_stops_the_run);
    tcase_add_test(tc, superseded_flow_completion);
    tcase_add_test(tc, failures_after_the_last_job);
    tcase_add_test(tc, idle_scheduling_instant);
    tcase_add_test(tc, iter_mean_within_min_max);
    tcase_add_test(tc, window_in_order);
    tcase_add_test(tc, sim_events_bound);
    tcase_add_test(tc, heap_stays_bounded);
    tcase_add_test(tc, many_jobs_load_fast);
    /* SIM_ROBUST_ROUNDS=n runs n rounds of every combination (more seeds), for a longer hunt */
    const char *rounds = getenv("SIM_ROBUST_ROUNDS");
    tcase_add_loop_test(tc, simulate_never_lies, 0, rounds && atoi(rounds) > 0 ? atoi(rounds) : 2);
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
