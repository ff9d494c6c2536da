/* The flow-level simulator's speed (doc/sim.md §10), through the public API only:
 *   1. rate updates on 10,000 independent small components (events per second, one core);
 *   2. one iteration of a 9,600-GPU job on an Arnold-scale clos3, alone and with 30
 *      background jobs;
 *   3. a 512-GPU run of a few hundred Poisson jobs, ECMP, exact mode;
 *   4. 5,000 Poisson jobs on 512 GPUs coarsened to 200 simulated iterations per job;
 *   5. 55 sparse jobs over about 149 days on an 847-host two-layer Clos (the E2 shape),
 *      with and without the time series (option timeseries, doc/sim.md);
 *   and the cost of the full-recomputation check against the incremental run (ratio).
 * --cpu times the process's CPU time instead of the wall clock (a steadier comparison of two
 * builds on a shared machine, doc/PERFORMANCE.md).
 * usage: bench_sim [--quick] [--cpu] [--seed N] */
#define BENCH_NAME "bench_sim"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

#include "bench_util.h"

#define MS 1000000LL
#define S 1000000000LL

static int quick, use_cpu;

/* The clock of the timings: wall (default) or, with --cpu, the process's CPU time. */
static double clock_ms(void)
{
    if (!use_cpu)
        return now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
static uint64_t seed = 1;

static void report(const char *what, double value, const char *unit, const char *target, int pass)
{
    printf("%-58s %14.3f %-10s %-14s %s\n", what, value, unit, target, target[0] ? (pass ? "PASS" : "MISS") : "");
}

static tsched_topology *gen(tsched_gen_kind kind, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t npl,
                            uint32_t gpn, double gbps)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, kind);
    if (kind == TSCHED_GEN_LEAF_SPINE) {
        g.leaves = a;
        g.spines = b;
    } else {
        g.pods = a;
        g.leaves_per_pod = b;
        g.spines_per_pod = c;
        g.cores = d;
    }
    g.nodes_per_leaf = npl;
    g.gpus_per_node = gpn;
    g.nic_gbps = gbps;
    tsched_topology *t;
    tsched_status st = tsched_topology_generate(&t, &g);
    if (st != TSCHED_OK)
        die("tsched_topology_generate", st);
    return t;
}

static tsched_sim_summary run_summary(tsched_sim *s, double *wall)
{
    double t0 = clock_ms();
    tsched_status st = tsched_sim_run_until(s, INT64_MAX);
    if (st != TSCHED_OK)
        die("tsched_sim_run_until", st);
    *wall = clock_ms() - t0;
    tsched_sim_result *r;
    if ((st = tsched_sim_result_new(&r, s)) != TSCHED_OK)
        die("tsched_sim_result_new", st);
    tsched_sim_summary sm = {.size = sizeof sm};
    tsched_sim_result_summary(&sm, r);
    tsched_sim_result_free(r);
    return sm;
}

/* 1. Independent components: jobs of two nodes under one leaf, 2-4 flows on distinct rails. */
static void part_rate_updates(int check_full, double *events_per_s)
{
    /* the full-recomputation check visits every component at every event: compare on 1,000 */
    int small = quick || check_full != 0, print = check_full == 0;
    uint32_t comps = small ? 1000 : 10000;
    if (check_full == 2)
        check_full = 0;
    tsched_topology *t = gen(TSCHED_GEN_CLOS3, 8, 32, 8, 16, 80, 8, 400); /* 20,480 nodes */
    tsched_sim *s;
    tsched_status st = tsched_sim_new(&s, t);
    if (st != TSCHED_OK)
        die("tsched_sim_new", st);
    tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, check_full);
    uint64_t r = rng_stream(1, seed);
    for (uint32_t i = 0; i < comps; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", i);
        uint32_t nodes[2] = {2 * i, 2 * i + 1}, ji, ph; /* neighbours share a leaf */
        /* nanosecond-random times: each event batch touches one component */
        tsched_sim_job j = {sizeof j, name, (int64_t)rng_below(&r, 1000000000), 0, 0, 0,
                            MS + (int64_t)rng_below(&r, 19000000), 1, 20, 0, 0, 0, NULL, nodes, 2};
        if ((st = tsched_sim_add_job(&ji, s, &j)) != TSCHED_OK)
            die("tsched_sim_add_job", st);
        tsched_sim_phase p = {sizeof p, -1, 0, 1};
        tsched_sim_job_add_phase(&ph, s, ji, &p);
        uint32_t nf = 2 + rng_below(&r, 3);
        for (uint32_t k = 0; k < nf; k++)
            if ((st = tsched_sim_phase_add_flow(s, ji, ph, 0, k, 1, k, 1 + rng_below(&r, 50) + rng_below(&r, 1000) * 1e-3,
                                                NULL, 0)) != TSCHED_OK)
                die("tsched_sim_phase_add_flow", st);
    }
    double wall;
    tsched_sim_summary sm = run_summary(s, &wall);
    *events_per_s = (double)sm.events / (wall / 1e3);
    if (print) {
        report("rate updates: events (batches) per second", *events_per_s, "ev/s", ">= 1,000,000",
               *events_per_s >= 1e6);
        report("  events", (double)sm.events, "", "", 0);
        report("  flows whose rate was recomputed", (double)sm.rate_updates, "", "", 0);
        report("  component size, mean (flows)", sm.component_flows_mean, "", "", 0);
        report("  component size, largest (flows)", (double)sm.component_flows_max, "", "", 0);
        report("  wall", wall, "ms", "", 0);
    }
    tsched_sim_free(s);
    tsched_topology_free(t);
}

/* 2. A 9,600-GPU job (1,200 nodes, tp 8, pp 8): dp-ring then pp phases, one iteration. */
static void part_big_job(int background)
{
    /* Arnold-scale clos3: 16 pods x 32 leaves x 16 spines, 64 cores, 4 nodes per leaf: 2,048 nodes */
    tsched_topology *t = gen(TSCHED_GEN_CLOS3, 16, 32, 16, 64, 4, 8, 400);
    tsched_sim *s;
    tsched_status st = tsched_sim_new(&s, t);
    if (st != TSCHED_OK)
        die("tsched_sim_new", st);
    tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "first-fit");
    uint64_t r = rng_stream(2, seed);
    for (int b = 0; b < (background ? 30 : 0); b++) {
        char name[32];
        snprintf(name, sizeof name, "bg%d", b);
        uint32_t ji, ph;
        tsched_sim_job j = {sizeof j, name, 0, 8 * (4 + rng_below(&r, 20)), 8, 1, 200 * MS, 0.5, 1000, 0, 0, 0,
                            NULL, NULL, 0};
        if ((st = tsched_sim_add_job(&ji, s, &j)) != TSCHED_OK)
            die("tsched_sim_add_job", st);
        tsched_sim_phase p = {sizeof p, TSCHED_PATTERN_DP_RING, 20, 1};
        tsched_sim_job_add_phase(&ph, s, ji, &p);
    }
    uint32_t ji, ph;
    tsched_sim_job j = {sizeof j, "big", 0, 9600, 8, 8, 500 * MS, 0.3, 1, 0, 0, 0, NULL, NULL, 0};
    if ((st = tsched_sim_add_job(&ji, s, &j)) != TSCHED_OK)
        die("tsched_sim_add_job", st);
    tsched_sim_phase p1 = {sizeof p1, TSCHED_PATTERN_DP_RING, 40, 1}, p2 = {sizeof p2, TSCHED_PATTERN_PP, 2, 4};
    tsched_sim_job_add_phase(&ph, s, ji, &p1);
    tsched_sim_job_add_phase(&ph, s, ji, &p2);
    /* run until the big job's one iteration is done */
    double t0 = clock_ms();
    tsched_sim_result *res = NULL;
    for (;;) {
        if ((st = tsched_sim_run_until(s, tsched_sim_now(s) + 100 * MS)) != TSCHED_OK)
            die("tsched_sim_run_until", st);
        tsched_sim_result_free(res);
        if ((st = tsched_sim_result_new(&res, s)) != TSCHED_OK)
            die("tsched_sim_result_new", st);
        tsched_sim_job_stats js = {.size = sizeof js};
        tsched_sim_result_job(&js, res, ji);
        if (js.finish_ns >= 0 || tsched_sim_now(s) > 3600 * S)
            break;
    }
    double wall = clock_ms() - t0;
    tsched_sim_result_free(res);
    report(background ? "one iteration of a 9,600-GPU job, with 30 background jobs" : "one iteration of a 9,600-GPU job, alone",
           wall, "ms", "< 100 ms", wall < 100);
    tsched_sim_free(s);
    tsched_topology_free(t);
}

/* A simulation on t with every default. */
static tsched_sim *sim_on(tsched_topology *t)
{
    tsched_sim *s;
    tsched_status st = tsched_sim_new(&s, t);
    if (st != TSCHED_OK)
        die("tsched_sim_new", st);
    return s;
}

/* A job of `g` GPUs arriving at `at` s for `dur` s (duration mode), 400 ms of computation
 * 40 % overlapped, one 10 Gbit ring per iteration. */
static void ring_job(tsched_sim *s, const char *name, double at, uint32_t g, uint32_t tp, double dur)
{
    uint32_t ji, ph;
    tsched_sim_job j = {sizeof j, name, (int64_t)(at * 1e9), g, tp, 1, 400 * MS, 0.4, 0, (int64_t)(dur * 1e9),
                        0, 0, NULL, NULL, 0};
    tsched_status st = tsched_sim_add_job(&ji, s, &j);
    if (st != TSCHED_OK)
        die("tsched_sim_add_job", st);
    tsched_sim_phase p = {sizeof p, TSCHED_PATTERN_DP_RING, 10, 1};
    tsched_sim_job_add_phase(&ph, s, ji, &p);
}

/* Run s to the end, free it and its fabric; the run's time. */
static double run_free(tsched_sim *s, tsched_topology *t, tsched_sim_summary *out)
{
    double wall;
    *out = run_summary(s, &wall);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return wall;
}

/* 3 and 4: Poisson jobs on 512 GPUs (16 leaves x 4 nodes x 8 GPUs, 32 spines, 100 G). */
static double poisson(uint32_t njobs, uint64_t max_iters, const char *routing, tsched_sim_summary *out)
{
    tsched_topology *t = gen(TSCHED_GEN_LEAF_SPINE, 16, 32, 0, 0, 4, 8, 100);
    tsched_sim *s = sim_on(t);
    tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, routing);
    tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, (double)max_iters);
    uint64_t r = rng_stream(3, seed);
    static const uint32_t sizes[] = {1, 2, 4, 8, 8, 16, 16, 32, 64, 128};
    double at = 0;
    for (uint32_t i = 0; i < njobs; i++) {
        at += -120.0 * log(1.0 - (double)(rng_next(&r) >> 11) * 0x1p-53); /* mean 120 s */
        char name[32];
        snprintf(name, sizeof name, "p%u", i);
        uint32_t g = sizes[rng_below(&r, 10)];
        double dur = exp(6.5 + 1.0 * sqrt(-2 * log(1 - (double)(rng_next(&r) >> 11) * 0x1p-53)) *
                                   cos(6.283185307179586 * (double)(rng_next(&r) >> 11) * 0x1p-53));
        ring_job(s, name, at, g, g < 8 ? g : 8, dur);
    }
    return run_free(s, t, out);
}

/* 5. E2's shape without its data files: 847 hosts of 8 GPUs and 8 x 200 G NICs under 121
 * leaves x 16 spines; 55 jobs arriving over 116 days, most on one node (no network), every
 * tenth on 8 nodes with a 10 Gbit ring, days long, coarsened to 200 iterations, ECMP. */
static double sparse_span(int series, tsched_sim_summary *out)
{
    tsched_topology *t = gen(TSCHED_GEN_LEAF_SPINE, 121, 16, 0, 0, 7, 8, 200);
    tsched_sim *s = sim_on(t);
    tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ecmp");
    tsched_sim_set_option(s, TSCHED_SIM_MAX_SIM_ITERATIONS, 200);
    tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, series);
    uint64_t r = rng_stream(5, seed);
    for (uint32_t i = 0; i < 55; i++) {
        char name[32];
        snprintf(name, sizeof name, "a%u", i);
        double at = 116 * 86400.0 * (double)(rng_next(&r) >> 11) * 0x1p-53;
        double dur = 86400.0 * (1 + 60 * (double)(rng_next(&r) >> 11) * 0x1p-53);
        ring_job(s, name, at, i % 10 == 9 ? 64 : 8, 8, dur);
    }
    return run_free(s, t, out);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--cpu"))
            use_cpu = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_sim [--quick] [--cpu] [--seed N]\n");
            return 2;
        }
    }
    printf("bench_sim (libtopo-sched %s), seed %llu%s%s\n", tsched_version(), (unsigned long long)seed,
           quick ? ", quick" : "", use_cpu ? ", CPU time" : "");
    double big, inc, full;
    part_rate_updates(0, &big);
    part_rate_updates(2, &inc); /* 1,000 components, incremental only */
    part_rate_updates(1, &full);
    report("  1,000 components: incremental vs with the full check (speed ratio)", inc / full, "x", "", 0);
    part_big_job(0);
    part_big_job(1);
    tsched_sim_summary sm;
    double w = poisson(quick ? 60 : 300, 0, "ecmp", &sm);
    report("512 GPUs, Poisson jobs, ECMP, exact mode: wall", w, "ms", "< 10,000 ms", w < 10000);
    report("  jobs done", sm.jobs_done, "", "", 0);
    report("  events", (double)sm.events, "", "", 0);
    report("  component size, mean / largest (flows)", sm.component_flows_mean, "", "", 0);
    report("  ", (double)sm.component_flows_max, "", "", 0);
    report("  avg JCT", sm.avg_jct_s, "s", "", 0);
    if (!quick) {
        w = poisson(5000, 200, "ecmp", &sm);
        report("5,000 Poisson jobs on 512 GPUs, max_sim_iterations 200: wall", w, "ms", "< 60,000 ms", w < 60000);
        report("  jobs done", sm.jobs_done, "", "", 0);
        report("  avg JCT", sm.avg_jct_s, "s", "", 0);
    }
    tsched_sim_summary on, off;
    double w_on = quick ? 0 : sparse_span(1, &on), w_off = sparse_span(0, &off);
    report("55 jobs, 847-host Clos, ~149 days, no time series", w_off, "ms", "< 500 ms", w_off < 500);
    report("  makespan", off.makespan_s / 86400, "days", "", 0);
    if (!quick) {
        report("  the same with the time series", w_on, "ms", "", 0);
        report("  results equal without it (1 = yes)", memcmp(&on.avg_jct_s, &off.avg_jct_s, 4 * sizeof(double)) == 0,
               "", "", 0);
    }
    report("peak RSS", peak_rss_mb(), "MiB", "", 0);
    return 0;
}
