/* Helpers shared by the benchmark programs: wall clock, medians, the seeded generator
 * (splitmix64, the library's own step from common/rng.h: the same numbers on every machine,
 * and the same as the tests' tu_rng), and peak memory. */
#ifndef TSCHED_BENCH_UTIL_H
#define TSCHED_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <topo-sched/common.h>

/* Header-only (static inline): the benches link the public library alone. */
#include "../src/common/rng.h"

/* Each program defines BENCH_NAME ("bench_routing", ...) before including this file. */
#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_util.h"
#endif
#include <sys/resource.h>
#include <time.h>

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n samples (sorts them in place); with an even count, the mean of the middle two. */
static inline double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline uint64_t rng_next(uint64_t *s) { return ts_splitmix64(s); }

/* Uniform in [0, n) by multiply-shift (bias below 2^-32: fine for benchmarks). */
static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, 1) with 53 bits. */
static inline double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

/* The stream of one (scenario, seed): scenario tags keep the streams apart. */
static inline uint64_t rng_stream(uint64_t tag, uint64_t seed)
{
    uint64_t s = tag * 0x100000001b3ull ^ seed;
    rng_next(&s);
    return s;
}

/* A failed library call ends the benchmark: its numbers would mean nothing. */
static inline void die(const char *what, tsched_status st)
{
    fprintf(stderr, BENCH_NAME ": %s failed: %s: %s\n", what, tsched_status_str(st), tsched_last_error());
    exit(1);
}

/* A leaf-spine of one-GPU, one-NIC nodes and one link per leaf-spine pair (the routing
 * benches' fabric). */
static inline tsched_topology *bench_leaf_spine(const char *name, uint32_t leaves, uint32_t spines,
                                                uint32_t nodes_per_leaf, double gbps)
{
    tsched_gen_params p;
    tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
    p.name = name;
    p.leaves = leaves;
    p.spines = spines;
    p.nodes_per_leaf = nodes_per_leaf;
    p.gpus_per_node = 1;
    p.nics_per_node = 1;
    p.nic_gbps = gbps;
    p.uplinks = 1;
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_generate(&t, &p);
    if (st != TSCHED_OK)
        die("tsched_topology_generate", st);
    return t;
}

static inline void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, BENCH_NAME ": out of memory\n");
        exit(1);
    }
    return p;
}

/* Peak resident set of this process, MiB; -1 if unknown. */
static inline double peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return (double)ru.ru_maxrss / 1024.0; /* Linux reports kilobytes */
}

#endif
