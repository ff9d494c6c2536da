/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Max-min rates (issue 10, target 3): tsched_rates_maxmin against the plain reference of
 * bench/ref_rates.c (batched progressive filling over flat arrays) in the same run, on
 * leaf_spine 64 x 32 (32 one-NIC nodes per leaf, 100 Gbit/s, one link per trunk) with
 * random flows (source and destination nodes uniform, distinct) routed by greedy. Reports
 * ns/flow of each (median of the runs), their ratio, and checks that every rate double is
 * bit-identical. Only the two rate calls are timed: the reference gets its flat arrays
 * (flow-major link lists, capacities) built before, the library gets the paths.
 *
 * Targets: library <= 1.5x the reference at 1M flows; library ns/flow from 100k to 3M
 * within 1.3x. A miss prints a MISS line; a rate that differs prints a PROBLEM line and
 * makes the exit status 1 (--strict: misses too).
 *
 * --cpu times the process's CPU time instead of the wall clock: on a shared machine, where
 * other processes take the cores, it compares two builds (doc/PERFORMANCE.md) more steadily.
 *
 * Before the timings, a self-check: seeded random small leaf-spine cases (--self-check CASES,
 * default 300) compared with the reference within 1e-9 relative (a miss is a PROBLEM).
 * --flows N times that one size only (no target lines).
 *
 * Usage: bench_rates [--quick] [--strict] [--cpu] [--runs N] [--seed N] [--flows N] [--self-check CASES]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo-sched/topo-sched.h"

#define BENCH_NAME "bench_rates"
#include "bench_util.h"
#include "ref_rates.h"

#define LEAVES 64
#define SPINES 32
#define NODES_PER_LEAF 32
#define NIC_GBPS 100.0
#define TARGET_RATIO 1.5
#define TARGET_FLAT 1.3

static int problems, misses, use_cpu;

/* The clock of the timings: wall (default) or, with --cpu, the process's CPU time. */
static double clock_ms(void)
{
    if (!use_cpu)
        return now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static tsched_topology *make_fabric(void)
{
    return bench_leaf_spine("bench-leaf-spine-64x32", LEAVES, SPINES, NODES_PER_LEAF, NIC_GBPS);
}

static tsched_flows *make_flows(const tsched_topology *t, uint32_t n, uint64_t seed)
{
    tsched_flows *f = NULL;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        die("tsched_flows_new", st);
    uint32_t nodes = tsched_topology_num_nodes(t);
    uint64_t s = rng_stream(31, seed);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t src = rng_below(&s, nodes), dst = rng_below(&s, nodes - 1);
        dst += dst >= src;
        if ((st = tsched_flows_add(NULL, f, NULL, src, 0, dst, 0, 1.0)) != TSCHED_OK)
            die("tsched_flows_add", st);
    }
    return f;
}

/* The reference's flat arrays of flows f on paths: directed trunk links by id, then node v's
 * NIC link up (2 L + 2 v) and down (2 L + 2 v + 1): the library's tie order. */
static void flat_arrays(uint32_t **off_out, uint32_t **fl_out, double **cap_out, uint32_t *nlinks_out,
                        const tsched_topology *t, const tsched_flows *f, const tsched_path *paths)
{
    uint32_t n = tsched_flows_count(f);
    uint32_t nt = tsched_topology_num_trunks(t), nn = tsched_topology_num_nodes(t), nlinks = 2 * nt + 2 * nn;
    uint32_t *off = xcalloc((size_t)n + 1, sizeof *off), *fl = xcalloc((size_t)n * (TSCHED_PATH_MAX_LINKS + 2), sizeof *fl);
    double *cap = xcalloc(nlinks, sizeof *cap);
    for (uint32_t x = 0; x < 2 * nt; x++)
        cap[x] = tsched_topology_trunk_gbps(t, x / 2);
    for (uint32_t v = 0; v < nn; v++)
        cap[2 * nt + 2 * v] = cap[2 * nt + 2 * v + 1] = tsched_topology_node_nic_gbps(t, v);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        off[i] = k;
        fl[k++] = 2 * nt + 2 * tsched_flows_src(f, i);
        for (uint32_t h = 0; h + 1 < paths[i].nswitches; h++)
            fl[k++] = paths[i].links[h];
        fl[k++] = 2 * nt + 2 * tsched_flows_dst(f, i) + 1;
    }
    off[n] = k;
    *off_out = off;
    *fl_out = fl;
    *cap_out = cap;
    *nlinks_out = nlinks;
}

/* Greedy paths of all flows of f (paths only). Caller frees. */
static tsched_path *greedy_paths(const tsched_topology *t, const tsched_flows *f)
{
    uint32_t n = tsched_flows_count(f);
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    tsched_routes *r = NULL;
    tsched_status st = tsched_route(&r, t, f, &ro);
    if (st != TSCHED_OK)
        die("tsched_route", st);
    tsched_path *paths = xcalloc(n, sizeof *paths);
    for (uint32_t i = 0; i < n; i++) {
        paths[i].size = sizeof paths[i];
        if ((st = tsched_routes_path(&paths[i], r, i)) != TSCHED_OK)
            die("tsched_routes_path", st);
    }
    tsched_routes_free(r);
    return paths;
}

/* Rates a and b of n flows: how many differ in bits, how many by more than 1e-9 relative. */
static void compare_rates(uint32_t *bits, uint32_t *far, uint32_t *first, const double *a, const double *b,
                          uint32_t n)
{
    *bits = *far = 0;
    *first = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (memcmp(&a[i], &b[i], sizeof a[i]) == 0)
            continue;
        ++*bits;
        double d = fabs(a[i] - b[i]), m = fmax(fabs(a[i]), fabs(b[i]));
        if (!(d <= 1e-9 * m) && !(*far)++)
            *first = i;
    }
}

/* Self-check: small seeded random cases (leaf-spine fabrics of 2-8 leaves, 1-6 spines, 1-4
 * nodes a leaf, NIC speeds 10-400 Gbit/s, 1-300 random flows routed by greedy): the
 * library's rates against the reference's; a rate further than 1e-9 relative is a
 * PROBLEM, a last-bit difference is counted and printed. */
static void self_check(unsigned cases, uint64_t seed)
{
    uint64_t s = rng_stream(47, seed);
    uint32_t bitdiff = 0, fardiff = 0, flows = 0;
    for (unsigned c = 0; c < cases; c++) {
        uint32_t leaves = 2 + rng_below(&s, 7), spines = 1 + rng_below(&s, 6), npl = 1 + rng_below(&s, 4);
        double gbps = 10.0 * (1 + rng_below(&s, 40));
        tsched_topology *t = bench_leaf_spine("self-check", leaves, spines, npl, gbps);
        uint32_t nf = 1 + rng_below(&s, 300);
        tsched_flows *f = make_flows(t, nf, rng_next(&s));
        uint32_t n = tsched_flows_count(f), nlinks, *off, *fl, bits, far, first;
        tsched_path *paths = greedy_paths(t, f);
        double *cap, *lib = xcalloc(n, sizeof *lib), *ref = xcalloc(n, sizeof *ref);
        flat_arrays(&off, &fl, &cap, &nlinks, t, f, paths);
        tsched_status st = tsched_rates_maxmin(lib, t, f, paths);
        if (st != TSCHED_OK)
            die("tsched_rates_maxmin (self-check)", st);
        if (ref_rates_maxmin(ref, n, off, fl, nlinks, cap) != 0)
            die("ref_rates_maxmin (self-check)", TSCHED_E_NOMEM);
        compare_rates(&bits, &far, &first, lib, ref, n);
        if (far) {
            printf("PROBLEM: self-check case %u (%u x %u, %u flows): %u rates differ by more than 1e-9, first flow "
                   "%u: %.17g vs %.17g\n",
                   c, leaves, spines, n, far, first, lib[first], ref[first]);
            problems++;
        }
        bitdiff += bits;
        fardiff += far;
        flows += n;
        free(off);
        free(fl);
        free(cap);
        free(lib);
        free(ref);
        free(paths);
        tsched_flows_free(f);
        tsched_topology_free(t);
    }
    printf("self-check: %u seeded random cases, %u flows: %u rates differ by more than 1e-9 relative, %u in the "
           "last bits\n",
           cases, flows, fardiff, bitdiff);
}

typedef struct {
    double lib_ns, ref_ns;
} result;

static result run_size(const tsched_topology *t, uint32_t n, unsigned runs, uint64_t seed)
{
    tsched_flows *f = make_flows(t, n, seed);
    tsched_status st;
    tsched_path *paths = greedy_paths(t, f);
    uint32_t nlinks, *off, *fl;
    double *cap;
    flat_arrays(&off, &fl, &cap, &nlinks, t, f, paths);

    double *lib = xcalloc(n, sizeof *lib), *ref = xcalloc(n, sizeof *ref);
    double *wl = xcalloc(runs, sizeof *wl), *wr = xcalloc(runs, sizeof *wr);
    for (unsigned i = 0; i < runs; i++) { /* alternate, so both see the same machine */
        double t0 = clock_ms();
        if ((st = tsched_rates_maxmin(lib, t, f, paths)) != TSCHED_OK)
            die("tsched_rates_maxmin", st);
        wl[i] = clock_ms() - t0;
        t0 = clock_ms();
        if (ref_rates_maxmin(ref, n, off, fl, nlinks, cap) != 0)
            die("ref_rates_maxmin", TSCHED_E_NOMEM);
        wr[i] = clock_ms() - t0;
    }
    uint32_t diff, far, first;
    compare_rates(&diff, &far, &first, lib, ref, n);
    if (far) {
        printf("PROBLEM: %u flows: %u rates differ from the reference by more than 1e-9 relative, first flow %u: "
               "%.17g vs %.17g\n",
               n, far, first, lib[first], ref[first]);
        problems++;
    }
    result res = {median(wl, runs) * 1e6 / n, median(wr, runs) * 1e6 / n};
    printf("%10u %6u %12.1f %12.1f %8.2f  %s\n", n, runs, res.lib_ns, res.ref_ns, res.lib_ns / res.ref_ns,
           far ? "DIFFER" : diff ? "within 1e-9" : "bit-identical");
    fflush(stdout);
    free(off);
    free(fl);
    free(cap);
    free(lib);
    free(ref);
    free(wl);
    free(wr);
    free(paths);
    tsched_flows_free(f);
    return res;
}

int main(int argc, char **argv)
{
    int quick = 0, strict = 0;
    unsigned runs = 0, cases = 300;
    uint32_t only = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--strict"))
            strict = 1;
        else if (!strcmp(argv[i], "--cpu"))
            use_cpu = 1;
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--flows") && i + 1 < argc)
            only = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--self-check") && i + 1 < argc)
            cases = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_rates [--quick] [--strict] [--cpu] [--runs N] [--seed N] [--flows N]\n"
                            "                   [--self-check CASES]\n");
            return 2;
        }
    }
    tsched_topology *t = make_fabric();
    self_check(cases, seed);
    static const uint32_t full[] = {100000, 1000000, 3000000}, small[] = {10000, 100000};
    const uint32_t *sizes = only ? &only : quick ? small : full;
    size_t ns = only ? 1 : quick ? 2 : 3;
    printf("Max-min rates: tsched_rates_maxmin vs the batched reference (bench/ref_rates.c), leaf_spine 64 x 32,\n"
           "random flows, greedy paths; ns/flow = median %s time / flows\n",
           use_cpu ? "CPU" : "wall");
    printf("%10s %6s %12s %12s %8s  %s\n", "flows", "runs", "library", "reference", "ratio", "rates");
    result res[3];
    for (size_t s = 0; s < ns; s++)
        res[s] = run_size(t, sizes[s], runs ? runs : sizes[s] >= 3000000 ? 3 : sizes[s] >= 1000000 ? 5 : 11, seed);
    if (!quick && !only) {
        double ratio = res[1].lib_ns / res[1].ref_ns, lo = res[0].lib_ns, hi = res[0].lib_ns;
        for (size_t s = 1; s < ns; s++) {
            lo = res[s].lib_ns < lo ? res[s].lib_ns : lo;
            hi = res[s].lib_ns > hi ? res[s].lib_ns : hi;
        }
        printf("1M flows: library / reference %.2fx (target <= %.1fx)%s\n", ratio, TARGET_RATIO,
               ratio <= TARGET_RATIO ? "" : "  MISS");
        printf("100k..3M: library ns/flow max / min %.2fx (target <= %.1fx)%s\n", hi / lo, TARGET_FLAT,
               hi / lo <= TARGET_FLAT ? "" : "  MISS");
        misses += (ratio > TARGET_RATIO) + (hi / lo > TARGET_FLAT);
    }
    printf("peak resident set %.0f MiB\n", peak_rss_mb());
    tsched_topology_free(t);
    return problems || (strict && misses) ? 1 : 0;
}
