/* K-cut speed (issue 10, target 4): tsched_dag_compress with crux, K = 8, m = 10, against
 * the plain single-threaded reference of ref_kcut.c in the same run, on the random
 * contention DAGs of bench_priority.c (part 2). For each n: the reference, the library on one
 * thread and on all online CPUs (threads = 0); the levels and the cut must be identical
 * byte for byte in all three (exit 1 otherwise). Reports the library's time as a ratio of
 * the reference's.
 *
 *   bench_kcut [--n N]... [--runs R] [--seed S] [--threads T] [--write-dag FILE]
 *
 * Defaults: n = 50,000 and 500,000, R = 3 (median), S = 1. --write-dag writes the DAG of the
 * first n as tsched.dag.v1 to FILE and exits (for timing the CLI: topo-sched kcut -d FILE
 * --levels 8). */
#define BENCH_NAME "bench_kcut"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/priority.h>

#include "bench_util.h"
#include "ref_kcut.h"

#define LEVELS 8
#define ORDERS 10

typedef struct edges {
    uint32_t n, m, cap;
    uint32_t *u, *v;
    double *w;
} edges;

static void push(edges *e, uint32_t u, uint32_t v, double w)
{
    if (e->m == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->u = realloc(e->u, e->cap * sizeof *e->u);
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        e->w = realloc(e->w, e->cap * sizeof *e->w);
        if (!e->u || !e->v || !e->w) {
            fprintf(stderr, BENCH_NAME ": out of memory\n");
            exit(1);
        }
    }
    e->u[e->m] = u;
    e->v[e->m] = v;
    e->w[e->m++] = w;
}

/* bench_priority.c's contention DAG: a hidden random priority order; every job gets 5..10
 * out-edges to later jobs, three in four among its next 64, one in four anywhere later; an
 * edge weighs its source's intensity (uniform in [1, 100)). */
static void gen(edges *e, uint32_t n, uint64_t seed)
{
    uint64_t s = rng_stream(10, seed);
    memset(e, 0, sizeof *e);
    e->n = n;
    uint32_t *perm = xcalloc(n, sizeof *perm);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(rng_next(&s) % i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i + 1 < n; i++) {
        double w = 1 + 99 * (double)(rng_next(&s) >> 11) / 9007199254740992.0;
        uint32_t deg = 5 + (uint32_t)(rng_next(&s) % 6), later = n - i - 1;
        for (uint32_t k = 0; k < deg; k++) {
            uint32_t span = rng_next(&s) % 4 ? (later < 64 ? later : 64) : later;
            push(e, perm[i], perm[i + 1 + (uint32_t)(rng_next(&s) % span)], w);
        }
    }
    free(perm);
}

static void range_add(double *r, double x)
{
    if (x < r[0])
        r[0] = x;
    if (x > r[1])
        r[1] = x;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double lib_run(uint32_t *lv, double *cut, const tsched_dag *d, uint32_t threads, uint64_t seed)
{
    tsched_kcut_options o;
    tsched_kcut_options_init(&o);
    o.levels = LEVELS;
    o.orders = ORDERS;
    o.seed = seed;
    o.threads = threads;
    double t0 = now_ms();
    tsched_status st = tsched_dag_compress(lv, cut, d, &o);
    if (st != TSCHED_OK)
        die("tsched_dag_compress", st);
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    uint32_t ns[16], nn = 0, runs = 3, threads = 0;
    uint64_t seed = 1;
    const char *write = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc && nn < 16)
            ns[nn++] = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--write-dag") && i + 1 < argc)
            write = argv[++i];
        else {
            fprintf(stderr, "usage: bench_kcut [--n N]... [--runs R] [--seed S] [--threads T] [--write-dag FILE]\n");
            return 2;
        }
    }
    if (!nn) {
        ns[nn++] = 50000;
        ns[nn++] = 500000;
    }
    if (runs < 1)
        runs = 1;
    if (write) {
        edges e;
        gen(&e, ns[0], seed);
        FILE *f = fopen(write, "w");
        if (!f)
            return 1;
        fprintf(f, "{\"format\": \"tsched.dag.v1\", \"nodes\": %" PRIu32 ", \"edges\": [", e.n);
        for (uint32_t k = 0; k < e.m; k++)
            fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", %.17g]", k ? ", " : "", e.u[k], e.v[k], e.w[k]);
        fprintf(f, "]}\n");
        return fclose(f) != 0;
    }
    int bad = 0;
    printf("K-cut crux, K = %d, m = %d, seed %" PRIu64 ", median of %u; threads = %u (0: online CPUs)\n", LEVELS,
           ORDERS, seed, runs, threads);
    printf("%9s %10s %10s %10s %10s %8s %8s %s\n", "n", "edges", "ref ms", "lib1 ms", "libT ms", "lib1/ref", "libT/ref",
           "identical");
    for (uint32_t t = 0; t < nn; t++) {
        uint32_t n = ns[t];
        edges e;
        gen(&e, n, seed);
        tsched_dag *d = NULL;
        tsched_status st = tsched_dag_new(&d, n);
        for (uint32_t k = 0; st == TSCHED_OK && k < e.m; k++)
            st = tsched_dag_add_edge(d, e.u[k], e.v[k], e.w[k]);
        if (st != TSCHED_OK)
            die("building the DAG", st);
        ref_dag rd = {n, e.m, e.u, e.v, e.w};
        uint32_t *lr = xcalloc(n, sizeof *lr), *l1 = xcalloc(n, sizeof *l1), *lt = xcalloc(n, sizeof *lt);
        double cpu_r = 0, cpu_1 = 0, cpu_t = 0;
        /* per-run ratios to the reference of the same run: wall and CPU, one and T threads */
        double rw1[2] = {1e300, 0}, rwt[2] = {1e300, 0}, rc1[2] = {1e300, 0}, rct[2] = {1e300, 0};
        double cr = 0, c1 = 0, ct = 0, *tr = xcalloc(runs, sizeof *tr), *t1 = xcalloc(runs, sizeof *t1),
               *tt = xcalloc(runs, sizeof *tt);
        for (uint32_t r = 0; r < runs; r++) {
            double t0 = now_ms(), p0 = cpu_ms();
            if (ref_kcut(lr, &cr, &rd, LEVELS, ORDERS, seed) != 0) {
                fprintf(stderr, BENCH_NAME ": the reference failed\n");
                return 1;
            }
            tr[r] = now_ms() - t0;
            double p1 = cpu_ms();
            t1[r] = lib_run(l1, &c1, d, 1, seed);
            double p2 = cpu_ms();
            tt[r] = lib_run(lt, &ct, d, threads, seed);
            double p3 = cpu_ms();
            cpu_r += (p1 - p0) / runs, cpu_1 += (p2 - p1) / runs, cpu_t += (p3 - p2) / runs;
            range_add(rw1, t1[r] / tr[r]);
            range_add(rwt, tt[r] / tr[r]);
            range_add(rc1, (p2 - p1) / (p1 - p0));
            range_add(rct, (p3 - p2) / (p1 - p0));
        }
        int same = !memcmp(lr, l1, n * sizeof *lr) && !memcmp(lr, lt, n * sizeof *lr) &&
                   !memcmp(&cr, &c1, sizeof cr) && !memcmp(&cr, &ct, sizeof cr);
        bad |= !same;
        double mr = median(tr, runs), m1 = median(t1, runs), mt = median(tt, runs);
        printf("%9" PRIu32 " %10" PRIu32 " %10.1f %10.1f %10.1f %8.2f %8.2f %s (cut %.17g)\n", n, e.m, mr, m1, mt,
               m1 / mr, mt / mr, same ? "yes" : "NO", cr);
        printf("%9s CPU ms (mean): ref %.1f, lib1 %.1f, libT %.1f (all threads)\n", "", cpu_r, cpu_1, cpu_t);
        printf("%9s ratio ranges over the %u runs: wall lib1/ref %.2f-%.2f, libT/ref %.2f-%.2f; CPU lib1/ref "
               "%.2f-%.2f, libT/ref %.2f-%.2f\n",
               "", runs, rw1[0], rw1[1], rwt[0], rwt[1], rc1[0], rc1[1], rct[0], rct[1]);
        fflush(stdout);
        tsched_dag_free(d);
        free(lr), free(l1), free(lt), free(tr), free(t1), free(tt), free(e.u), free(e.v), free(e.w);
    }
    printf("peak RSS %.1f MiB\n", peak_rss_mb());
    return bad;
}
