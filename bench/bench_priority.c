/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Benchmark of the priority module (CRUX, SIGCOMM'24, seed 001) through the public API only:
 *
 *  1. The paper's effectiveness set-up (§4.4, Figure 16 (c)): 1,500 seeded random cases,
 *     each a two-layer Clos (leaf_spine, 2-4 leaves, 2 spines, at most 20 hosts of 8 GPUs and
 *     8 NICs) with 5 jobs of random size on random distinct hosts (ring per NIC rail or
 *     random pairs), compressed to 3 levels. tsched_prioritize runs with kcut crux (m = 10),
 *     sincronia, varys, exhaustive and crux with one order; each cut weight is reported as
 *     a share of exhaustive's (the optimum of the compression problem), and how often crux
 *     beats each baseline. Cases whose contention DAG has no edge are counted apart.
 *  2. Speed and memory of the compressor alone (tsched_dag_compress, K = 8, m = 10) on
 *     random contention DAGs of n = 500, 5,000 and 50,000 jobs, each size in a forked child
 *     for its own peak memory (from the former bench_priority_kcut.c). Target: n = 5,000 in
 *     < 1 s and < 256 MB.
 *  3. tsched_prioritize (crux, K = 8) on larger job sets: 200 and 1,000 jobs on a 512-node
 *     clos3 fabric, each in a forked child; load and prioritize times, DAG size, peak memory.
 *
 * Every answer is checked outside the clock: the five runs see the same DAG and the
 * same priorities; levels are valid on every DAG edge (read back from
 * tsched_priorities_to_json) and the reported cut equals a recount; exhaustive equals a
 * brute force over all 3^5 level assignments; sincronia and varys cut the priority order
 * as documented; the compressor's answers are valid and their cut recounted. A failed check
 * prints a PROBLEM line and makes the exit status 1; --strict makes a MISS do so too. Not a
 * test: meson registers it with benchmark(), and `meson test` never runs it. See
 * doc/PERFORMANCE.md for the method and the latest numbers.
 *
 * Usage: bench_priority [--quick] [--json] [--strict] [--cases N] [--runs N] [--seed N]
 *                       [--n N]... [--jobs N]...
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "topo-sched/topo-sched.h"

#define BENCH_NAME "bench_priority"
#include "bench_util.h"

/* Compressor target (doc/priority.md). */
#define TARGET_N 5000
#define TARGET_S 1.0
#define TARGET_MB 256.0
#define KCUT_LEVELS 8
#define KCUT_ORDERS 10

/* §4.4 set-up. */
#define VAL_JOBS 5
#define VAL_LEVELS 3
#define VAL_MAX_HOSTS 20
#define NIC_GBPS 200.0 /* the paper's testbed NICs */

#define MAX_SIZES 16
#define MAX_RUNS 15
#define MAX_HOSTS_PER_JOB 16
#define REL_EPS 1e-9

/* Runs of part 1: crux (m = 10), the baselines, the optimum, and crux with one order. */
static const tsched_kcut_algo VAL_ALGOS[] = {TSCHED_KCUT_CRUX, TSCHED_KCUT_SINCRONIA, TSCHED_KCUT_VARYS,
                                             TSCHED_KCUT_EXHAUSTIVE, TSCHED_KCUT_CRUX};
static const uint32_t VAL_ORDERS[] = {KCUT_ORDERS, 1, 1, 1, 1};
static const char *const VAL_NAMES[] = {"crux", "sincronia", "varys", "exhaustive", "crux m=1"};
#define NVAL_ALGO 5
#define EXH 3
#define CRUX1 4

typedef struct options {
    int quick, json, strict;
    unsigned cases, runs;
    uint64_t seed;
    uint32_t sizes[MAX_SIZES];
    unsigned nsizes;
    uint32_t jobs[MAX_SIZES];
    unsigned njobs;
} options;

static int g_problems, g_misses, g_target_runs;

/* ---- small tools ------------------------------------------------------------------------ */

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * rng_unit(s);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Quantile q of sorted values (nearest rank). */
static double quantile(const double *sorted, size_t n, double q)
{
    if (!n)
        return NAN;
    size_t k = (size_t)ceil(q * (double)n);
    return sorted[k ? k - 1 : 0];
}

static void problem(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("PROBLEM ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    g_problems++;
}

/* Growable text: the job sets and the JSON lines. */
typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        va_end(aq);
        return;
    }
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + (size_t)k + 1 > cap)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            fprintf(stderr, "bench_priority: out of memory\n");
            exit(1);
        }
        b->s = p;
        b->cap = cap;
    }
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, aq);
    va_end(aq);
    b->n += (size_t)k;
}

/* JSON lines are kept and printed after the tables. */
static sbuf g_json;
static int g_quick;

static void json_metric(const char *part, const char *metric, double value, const char *unit_name,
                        const char *target, const char *verdict)
{
    sb_printf(&g_json, "{\"bench\": \"priority\", \"quick\": %s, \"part\": \"%s\", \"metric\": \"%s\", ",
              g_quick ? "true" : "false", part, metric);
    if (isfinite(value))
        sb_printf(&g_json, "\"value\": %.6g", value);
    else
        sb_printf(&g_json, "\"value\": null");
    sb_printf(&g_json, ", \"unit\": \"%s\"", unit_name);
    if (target)
        sb_printf(&g_json, ", \"target\": \"%s\", \"result\": \"%s\"", target, verdict);
    sb_printf(&g_json, "}\n");
}

/* Runs fn(res, arg) in a forked child so that its peak memory (ru_maxrss) is its own; the
 * child sends back `size` bytes of result and its problem count. */
typedef void (*child_fn)(void *res, const void *arg);

static int run_isolated(void *res, size_t size, child_fn fn, const void *arg)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        g_problems = 0;
        fn(res, arg);
        fflush(stdout);
        int ok = write(fd[1], res, size) == (ssize_t)size &&
                 write(fd[1], &g_problems, sizeof g_problems) == (ssize_t)sizeof g_problems;
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    int child_problems = 0;
    ssize_t got = read(fd[0], res, size);
    ssize_t got2 = got == (ssize_t)size ? read(fd[0], &child_problems, sizeof child_problems) : 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    g_problems += child_problems;
    return got == (ssize_t)size && got2 == (ssize_t)sizeof child_problems && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : -1;
}

/* ---- job sets ---------------------------------------------------------------------------- */

/* Where a job runs: h distinct hosts, g GPUs (and their NICs, one per GPU) on each. */
typedef struct placed_job {
    uint32_t h, g;
    uint32_t host[MAX_HOSTS_PER_JOB];
    uint32_t gpu[MAX_HOSTS_PER_JOB][8];
} placed_job;

/* Free GPUs of every host, as counts and bit masks (8 GPUs a host). */
typedef struct cluster_state {
    uint32_t hosts;
    uint8_t *freec, *used;
    uint32_t *cand;
} cluster_state;

/* Can `rem` more jobs of at least 2 GPUs on 2 distinct hosts still be placed? (Each takes
 * one GPU of the two hosts with the most free; this holds iff sum min(free, rem) >= 2 rem.) */
static int room_for(const cluster_state *c, uint32_t rem)
{
    uint64_t sum = 0;
    for (uint32_t h = 0; h < c->hosts; h++)
        sum += c->freec[h] < rem ? c->freec[h] : rem;
    return sum >= 2ull * rem;
}

static void take(cluster_state *c, placed_job *j, uint32_t slot, uint32_t host)
{
    j->host[slot] = host;
    uint32_t k = 0;
    for (uint32_t gpu = 0; gpu < 8 && k < j->g; gpu++)
        if (!(c->used[host] & (1u << gpu))) {
            c->used[host] |= (uint8_t)(1u << gpu);
            j->gpu[slot][k++] = gpu;
        }
    c->freec[host] = (uint8_t)(c->freec[host] - j->g);
}

/* A job of h in 2..max_h hosts and g in gs GPUs per host on random distinct hosts with g
 * free GPUs each (the lowest free GPU indices), leaving room for `rem` more jobs; after 64
 * failed draws, 1 GPU on each of the two hosts with the most free. 0 on success. */
static int place_job(cluster_state *c, placed_job *j, uint64_t *s, uint32_t rem, uint32_t max_h, const uint32_t *gs,
                     uint32_t ngs)
{
    uint32_t hmax = c->hosts < max_h ? c->hosts : max_h;
    for (int attempt = 0; attempt < 64 && hmax >= 2; attempt++) {
        uint32_t g = gs[rng_below(s, ngs)], h = 2 + rng_below(s, hmax - 1), nc = 0;
        for (uint32_t x = 0; x < c->hosts; x++)
            if (c->freec[x] >= g)
                c->cand[nc++] = x;
        if (nc < h)
            continue;
        for (uint32_t i = 0; i < h; i++) { /* partial Fisher-Yates */
            uint32_t k = i + rng_below(s, nc - i), t = c->cand[i];
            c->cand[i] = c->cand[k];
            c->cand[k] = t;
        }
        for (uint32_t i = 0; i < h; i++)
            c->freec[c->cand[i]] = (uint8_t)(c->freec[c->cand[i]] - g);
        int ok = room_for(c, rem);
        for (uint32_t i = 0; i < h; i++)
            c->freec[c->cand[i]] = (uint8_t)(c->freec[c->cand[i]] + g);
        if (!ok)
            continue;
        j->h = h;
        j->g = g;
        for (uint32_t i = 0; i < h; i++)
            take(c, j, i, c->cand[i]);
        return 0;
    }
    uint32_t a = UINT32_MAX, b = UINT32_MAX;
    for (uint32_t x = 0; x < c->hosts; x++) {
        if (a == UINT32_MAX || c->freec[x] > c->freec[a]) {
            b = a;
            a = x;
        } else if (b == UINT32_MAX || c->freec[x] > c->freec[b]) {
            b = x;
        }
    }
    if (a == UINT32_MAX || b == UINT32_MAX || !c->freec[a] || !c->freec[b])
        return -1;
    j->h = 2;
    j->g = 1;
    take(c, j, 0, a);
    take(c, j, 1, b);
    return 0;
}

/* Appends one job of the tsched.jobset.v1 document. Traffic per iteration: with
 * probability 3/4 a ring over the job's hosts on each NIC rail (local GPU r of host i sends
 * to local GPU r of host i+1, h*g flows of equal size), else h*g flows between random NICs
 * of two distinct hosts of the job (sizes within +-50 %). Flow size log-uniform in 1..100
 * Gbit; 50..500 ms of computation at 50..300 effective TFLOP/s a GPU; overlap 0..0.9. */
static void append_job(sbuf *doc, const tsched_topology *t, const placed_job *j, uint32_t index, uint64_t *s,
                       int *ring_out)
{
    uint32_t gpus = j->h * j->g;
    double compute_ms = uniform(s, 50, 500), tflops = uniform(s, 50, 300), overlap = uniform(s, 0, 0.9);
    double vol = exp(uniform(s, 0, log(100.0)));
    int ring = rng_below(s, 4) != 0;
    *ring_out = ring;
    sb_printf(doc,
              "%s{\"name\": \"job%u\", \"gpus\": %u, \"work_tflop\": %.6g, \"compute_ms\": %.6g, \"overlap\": %.4f, "
              "\"flows\": [",
              index ? ", " : "", index, gpus, gpus * tflops * compute_ms / 1000.0, compute_ms, overlap);
    uint32_t nf = 0;
    if (ring) {
        for (uint32_t r = 0; r < j->g; r++)
            for (uint32_t i = 0; i < j->h; i++) {
                uint32_t k = (i + 1) % j->h;
                sb_printf(doc, "%s{\"src\": \"%s\", \"dst\": \"%s\", \"src_nic\": %u, \"dst_nic\": %u, \"gbits\": %.6g}",
                          nf++ ? ", " : "", tsched_topology_node_name(t, j->host[i]),
                          tsched_topology_node_name(t, j->host[k]), j->gpu[i][r], j->gpu[k][r], vol);
            }
    } else {
        for (uint32_t f = 0; f < j->h * j->g; f++) {
            uint32_t i = rng_below(s, j->h), k = (i + 1 + rng_below(s, j->h - 1)) % j->h;
            uint32_t ri = rng_below(s, j->g), rk = rng_below(s, j->g);
            sb_printf(doc, "%s{\"src\": \"%s\", \"dst\": \"%s\", \"src_nic\": %u, \"dst_nic\": %u, \"gbits\": %.6g}",
                      nf++ ? ", " : "", tsched_topology_node_name(t, j->host[i]),
                      tsched_topology_node_name(t, j->host[k]), j->gpu[i][ri], j->gpu[k][rk],
                      vol * uniform(s, 0.5, 1.5));
        }
    }
    sb_printf(doc, "]}");
}

/* A tsched.jobset.v1 document of `njobs` jobs on the hosts of `t` (8 GPUs, 8 NICs each). */
static int make_jobset(sbuf *doc, const tsched_topology *t, uint32_t njobs, uint32_t max_h, const uint32_t *gs,
                       uint32_t ngs, uint64_t *s, uint32_t *rings)
{
    cluster_state c;
    c.hosts = tsched_topology_num_nodes(t);
    c.freec = malloc(c.hosts);
    c.used = calloc(c.hosts, 1);
    c.cand = malloc(c.hosts * sizeof *c.cand);
    if (!c.freec || !c.used || !c.cand) {
        fprintf(stderr, "bench_priority: out of memory\n");
        exit(1);
    }
    memset(c.freec, 8, c.hosts);
    doc->n = 0;
    sb_printf(doc, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [");
    int rc = 0;
    *rings = 0;
    for (uint32_t i = 0; i < njobs && !rc; i++) {
        placed_job j;
        rc = place_job(&c, &j, s, njobs - i - 1, max_h, gs, ngs);
        if (!rc) {
            int ring;
            append_job(doc, t, &j, i, s, &ring);
            *rings += (uint32_t)ring;
        }
    }
    sb_printf(doc, "]}");
    free(c.freec);
    free(c.used);
    free(c.cand);
    return rc;
}

/* ---- part 1: the §4.4 effectiveness set-up ---------------------------------------------- */

typedef struct dag_edge {
    uint32_t u, v;
    double w;
} dag_edge;

/* The contention DAG's edges from a tsched.priorities.v1 text: "dag": {..., "edges":
 * [[u, v, w], ...]}. Returns the count, or -1 if the text is not as documented. */
static int parse_dag_edges(const char *json, dag_edge *e, int cap)
{
    const char *p = strstr(json, "\"dag\"");
    if (!p || !(p = strstr(p, "\"edges\"")) || !(p = strchr(p, '[')))
        return -1;
    p++;
    int n = 0;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',')
            p++;
        if (*p == ']')
            return n;
        if (*p != '[' || n >= cap)
            return -1;
        char *end;
        unsigned long u = strtoul(p + 1, &end, 10);
        end += strspn(end, " \n\r\t");
        if (*end != ',')
            return -1;
        unsigned long v = strtoul(end + 1, &end, 10);
        end += strspn(end, " \n\r\t");
        if (*end != ',')
            return -1;
        double w = strtod(end + 1, &end);
        end += strspn(end, " \n\r\t");
        if (*end != ']')
            return -1;
        e[n++] = (dag_edge){(uint32_t)u, (uint32_t)v, w};
        p = end + 1;
    }
}

/* The optimum over all valid K-level assignments of n nodes (K^n of them, n <= 5 here). */
static double brute_force_cut(const dag_edge *e, int ne, uint32_t n, uint32_t k)
{
    uint32_t lv[VAL_JOBS], total = 1;
    for (uint32_t i = 0; i < n; i++)
        total *= k;
    double best = 0;
    for (uint32_t code = 0; code < total; code++) {
        uint32_t x = code;
        for (uint32_t i = 0; i < n; i++) {
            lv[i] = x % k;
            x /= k;
        }
        double cut = 0;
        int ok = 1;
        for (int i = 0; i < ne && ok; i++) {
            ok = lv[e[i].u] <= lv[e[i].v];
            if (lv[e[i].u] < lv[e[i].v])
                cut += e[i].w;
        }
        if (ok && cut > best)
            best = cut;
    }
    return best;
}

/* Topological orders of a DAG of n <= 5 nodes (its linear extensions), by enumeration. */
static unsigned count_orders(const dag_edge *e, int ne, uint32_t n, uint32_t placed, uint32_t depth)
{
    if (depth == n)
        return 1;
    unsigned count = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (placed & (1u << x))
            continue;
        int ready = 1;
        for (int i = 0; i < ne && ready; i++)
            ready = e[i].v != x || (placed & (1u << e[i].u));
        if (ready)
            count += count_orders(e, ne, n, placed | (1u << x), depth + 1);
    }
    return count;
}

/* Shares are kept per compared case (a case whose DAG has edges): cut / optimum for crux,
 * sincronia, varys and crux m=1 (slots 0, 1, 2, 3), and the DAG's number of orders. */
#define NSHARE 4
static const int SHARE_ALGO[NSHARE] = {0, 1, 2, CRUX1};

typedef struct val_stats {
    unsigned cases, no_edges, rings, hosts_sum, edges_hist[11];
    double *share[NSHARE];
    unsigned *orders;
    unsigned wins[2], ties[2], losses[2]; /* crux vs sincronia, varys */
    double prio_s, load_s;                /* summed over cases: crux call, load */
    unsigned ncuts;
} val_stats;

/* One case: fabric, job set, the four algorithms, checks. */
static void run_case(val_stats *vs, uint64_t seed, unsigned c)
{
    uint64_t s = seed * 0x100000001b3ull + c;
    rng_next(&s);
    tsched_gen_params gp;
    tsched_topology_params_init(&gp, TSCHED_GEN_LEAF_SPINE);
    gp.name = "clos2";
    gp.leaves = 2 + rng_below(&s, 3);
    gp.spines = 2;
    gp.nodes_per_leaf = 2 + rng_below(&s, VAL_MAX_HOSTS / gp.leaves - 1);
    gp.gpus_per_node = 8;
    gp.nics_per_node = 8;
    gp.nic_gbps = NIC_GBPS;
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_generate(&t, &gp);
    if (st != TSCHED_OK) {
        problem("case %u: tsched_topology_generate: %s: %s", c, tsched_status_str(st), tsched_last_error());
        return;
    }
    vs->hosts_sum += tsched_topology_num_nodes(t);
    static const uint32_t gs[] = {1, 2, 4, 8};
    sbuf doc = {0};
    uint32_t rings = 0;
    if (make_jobset(&doc, t, VAL_JOBS, 8, gs, 4, &s, &rings) != 0) {
        problem("case %u: cannot place %d jobs", c, VAL_JOBS);
        free(doc.s);
        tsched_topology_free(t);
        return;
    }
    vs->rings += rings;
    tsched_jobset *js = NULL;
    double t0 = now_s();
    st = tsched_jobset_load_string(&js, t, doc.s, doc.n);
    vs->load_s += now_s() - t0;
    if (st != TSCHED_OK) {
        problem("case %u: tsched_jobset_load_string: %s: %s", c, tsched_status_str(st), tsched_last_error());
        free(doc.s);
        tsched_topology_free(t);
        return;
    }
    vs->cases++;

    double cut[NVAL_ALGO], total[NVAL_ALGO];
    uint32_t edges[NVAL_ALGO], order[NVAL_ALGO][VAL_JOBS], level[NVAL_ALGO][VAL_JOBS];
    double prio[NVAL_ALGO][VAL_JOBS];
    dag_edge e[VAL_JOBS * VAL_JOBS];
    int ne = -1, failed = 0;
    for (int a = 0; a < NVAL_ALGO && !failed; a++) {
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.algo = VAL_ALGOS[a];
        o.levels = VAL_LEVELS;
        o.orders = VAL_ORDERS[a];
        tsched_priorities *p = NULL;
        t0 = now_s();
        st = tsched_prioritize(&p, t, js, &o);
        if (a == 0)
            vs->prio_s += now_s() - t0;
        if (st != TSCHED_OK) {
            problem("case %u %s: tsched_prioritize: %s: %s", c, VAL_NAMES[a],
                    tsched_status_str(st), tsched_last_error());
            failed = 1;
            break;
        }
        cut[a] = tsched_priorities_cut_weight(p);
        total[a] = tsched_priorities_total_weight(p);
        edges[a] = tsched_priorities_dag_edges(p);
        for (uint32_t i = 0; i < VAL_JOBS; i++) {
            order[a][i] = tsched_priorities_order(p, i);
            level[a][i] = tsched_priorities_level(p, i);
            prio[a][i] = tsched_priorities_priority(p, i);
        }
        if (a == 0) {
            char *json = NULL;
            if (tsched_priorities_to_json(&json, p, js) != TSCHED_OK ||
                (ne = parse_dag_edges(json, e, VAL_JOBS * VAL_JOBS)) < 0 || (uint32_t)ne != edges[0]) {
                problem("case %u: cannot read the DAG edges back from tsched.priorities.v1", c);
                failed = 1;
            }
            tsched_free(json);
        }
        tsched_priorities_free(p);
    }
    tsched_jobset_free(js);
    free(doc.s);
    tsched_topology_free(t);
    if (failed)
        return;

    /* Same DAG and priorities for every algorithm; valid levels; cut recounted. */
    for (int a = 0; a < NVAL_ALGO; a++) {
        const char *name = VAL_NAMES[a];
        if (edges[a] != edges[0] || total[a] != total[0] || memcmp(order[a], order[0], sizeof order[0]) ||
            memcmp(prio[a], prio[0], sizeof prio[0]))
            problem("case %u %s: the DAG or the priorities differ from crux's", c, name);
        double recount = 0;
        int bad = 0;
        for (uint32_t i = 0; i < VAL_JOBS; i++)
            bad |= level[a][i] >= VAL_LEVELS;
        for (int i = 0; i < ne; i++) {
            bad |= e[i].u >= VAL_JOBS || e[i].v >= VAL_JOBS || level[a][e[i].u] > level[a][e[i].v];
            if (!bad && level[a][e[i].u] < level[a][e[i].v])
                recount += e[i].w;
        }
        if (bad)
            problem("case %u %s: levels invalid on the DAG", c, name);
        else if (fabs(recount - cut[a]) > REL_EPS * (1 + recount))
            problem("case %u %s: cut_weight %.17g, recount %.17g", c, name, cut[a], recount);
    }
    /* Sincronia: ranks 0, 1 -> levels 0, 1, the rest 2; Varys: groups of 2, 2, 1. */
    for (uint32_t i = 0; i < VAL_JOBS; i++) {
        uint32_t r = order[0][i];
        uint32_t sinc = r < VAL_LEVELS - 1 ? r : VAL_LEVELS - 1, varys = r / 2;
        if (level[1][i] != sinc || level[2][i] != varys) {
            problem("case %u: sincronia/varys levels do not follow the priority order (job %u rank %u: %u, %u)", c, i,
                    r, level[1][i], level[2][i]);
            break;
        }
    }
    double opt = brute_force_cut(e, ne, VAL_JOBS, VAL_LEVELS);
    if (fabs(opt - cut[EXH]) > REL_EPS * (1 + opt))
        problem("case %u: exhaustive %.17g, brute force %.17g", c, cut[EXH], opt);
    for (int a = 0; a < NVAL_ALGO; a++)
        if (cut[a] > opt * (1 + REL_EPS) + 1e-300)
            problem("case %u %s: cut %.17g above the optimum %.17g", c, VAL_NAMES[a], cut[a], opt);
    if (cut[CRUX1] > cut[0] * (1 + REL_EPS) + 1e-300)
        problem("case %u: crux with %d orders (%.17g) below its first order alone (%.17g)", c, KCUT_ORDERS, cut[0],
                cut[CRUX1]);

    vs->edges_hist[ne <= 10 ? ne : 10]++;
    if (ne == 0) {
        vs->no_edges++;
        return;
    }
    for (int k = 0; k < NSHARE; k++)
        vs->share[k][vs->ncuts] = cut[SHARE_ALGO[k]] / cut[EXH];
    vs->orders[vs->ncuts] = count_orders(e, ne, VAL_JOBS, 0, 0);
    for (int b = 1; b < EXH; b++) {
        double tol = REL_EPS * cut[EXH];
        if (cut[0] > cut[b] + tol)
            vs->wins[b - 1]++;
        else if (cut[0] < cut[b] - tol)
            vs->losses[b - 1]++;
        else
            vs->ties[b - 1]++;
    }
    vs->ncuts++;
}

/* One row of the share table over the compared cases with orders >= min_orders. */
static void share_row(const val_stats *vs, int k, unsigned min_orders, const char *subset)
{
    double *v = malloc((vs->ncuts ? vs->ncuts : 1) * sizeof *v), sum = 0;
    unsigned n = 0, at = 0;
    if (!v)
        exit(1);
    for (unsigned i = 0; i < vs->ncuts; i++)
        if (vs->orders[i] >= min_orders) {
            v[n++] = vs->share[k][i];
            sum += vs->share[k][i];
            at += vs->share[k][i] >= 1 - REL_EPS;
        }
    qsort(v, n, sizeof *v, cmp_double);
    double mean = n ? sum / n : NAN, mn = n ? v[0] : NAN, p5 = quantile(v, n, 0.05), p10 = quantile(v, n, 0.10),
           med = quantile(v, n, 0.5), share_at = n ? 100.0 * at / n : NAN;
    const char *name = VAL_NAMES[SHARE_ALGO[k]];
    printf("%-10s %-12s %6u %8.2f%% %8.2f%% %8.2f%% %8.2f%% %8.2f%% %11.1f%%\n", name, subset, n, 100 * mean, 100 * p5,
           100 * p10, 100 * med, 100 * mn, share_at);
    char metric[128];
    static const char *const what[] = {"mean", "p5", "min", "at optimum"};
    double val[] = {100 * mean, 100 * p5, 100 * mn, share_at};
    for (int m = 0; m < 4; m++) {
        snprintf(metric, sizeof metric, "%s cut / optimum %s, %s", name, subset, what[m]);
        json_metric("validation", metric, val[m], m == 3 ? "% of cases" : "%", NULL, NULL);
    }
    free(v);
}

static void part_validation(const options *o)
{
    val_stats vs;
    memset(&vs, 0, sizeof vs);
    size_t cap = o->cases ? o->cases : 1;
    for (int k = 0; k < NSHARE; k++)
        vs.share[k] = malloc(cap * sizeof(double));
    vs.orders = malloc(cap * sizeof(unsigned));
    if (!vs.share[0] || !vs.share[1] || !vs.share[2] || !vs.share[3] || !vs.orders) {
        fprintf(stderr, "bench_priority: out of memory\n");
        exit(1);
    }
    printf("\n== 1. CRUX §4.4 set-up: %u cases, leaf_spine 2-4 leaves x 2 spines, <= %d hosts of 8 GPUs / 8 NICs "
           "(%g Gbit/s), %d jobs, K = %d, seed %llu ==\n",
           o->cases, VAL_MAX_HOSTS, NIC_GBPS, VAL_JOBS, VAL_LEVELS, (unsigned long long)o->seed);
    double t0 = now_s();
    for (unsigned c = 0; c < o->cases; c++)
        run_case(&vs, o->seed, c);
    double wall = now_s() - t0;
    unsigned jobs = vs.cases * VAL_JOBS, single = 0;
    double orders_sum = 0;
    for (unsigned i = 0; i < vs.ncuts; i++) {
        single += vs.orders[i] == 1;
        orders_sum += vs.orders[i];
    }
    printf("cases run %u (mean %.1f hosts; %u of %u jobs ring per rail, the rest random pairs)\n", vs.cases,
           vs.cases ? (double)vs.hosts_sum / vs.cases : 0.0, vs.rings, jobs);
    printf("DAG edges 0..10 (cases): ");
    for (int k = 0; k <= 10; k++)
        printf("%u%s", vs.edges_hist[k], k < 10 ? " " : "\n");
    printf("without DAG edges (excluded from the shares): %u; compared: %u, of which %u have a single topological "
           "order (mean %.1f orders of 120)\n",
           vs.no_edges, vs.ncuts, single, vs.ncuts ? orders_sum / vs.ncuts : 0.0);
    printf("cut weight as a share of the optimum (exhaustive):\n");
    printf("%-10s %-12s %6s %9s %9s %9s %9s %9s %12s\n", "algo", "cases", "n", "mean", "p5", "p10", "median", "min",
           "at optimum");
    for (int k = 0; k < NSHARE; k++)
        share_row(&vs, k, 1, "all");
    for (int k = 0; k < NSHARE; k++)
        share_row(&vs, k, 2, "orders>1");
    char metric[96];
    for (int b = 0; b < 2; b++) {
        const char *name = VAL_NAMES[b + 1];
        double n = vs.ncuts ? vs.ncuts : 1;
        printf("crux vs %-9s: better in %u (%.1f%%), equal in %u (%.1f%%), worse in %u (%.1f%%)\n", name, vs.wins[b],
               100.0 * vs.wins[b] / n, vs.ties[b], 100.0 * vs.ties[b] / n, vs.losses[b], 100.0 * vs.losses[b] / n);
        snprintf(metric, sizeof metric, "crux beats %s", name);
        json_metric("validation", metric, 100.0 * vs.wins[b] / n, "% of cases", NULL, NULL);
        snprintf(metric, sizeof metric, "crux loses to %s", name);
        json_metric("validation", metric, 100.0 * vs.losses[b] / n, "% of cases", NULL, NULL);
    }
    double per_case = vs.cases ? vs.prio_s / vs.cases * 1e3 : NAN;
    printf("time: tsched_prioritize (crux) %.3f ms per case, load %.3f ms; whole part %.1f s (5 runs a case, checks)\n",
           per_case, vs.cases ? vs.load_s / vs.cases * 1e3 : NAN, wall);
    json_metric("validation", "cases", vs.cases, "cases", NULL, NULL);
    json_metric("validation", "cases without DAG edges", vs.no_edges, "cases", NULL, NULL);
    json_metric("validation", "cases with a single topological order", single, "cases", NULL, NULL);
    json_metric("validation", "prioritize per case (crux)", per_case, "ms", NULL, NULL);
    for (int k = 0; k < NSHARE; k++)
        free(vs.share[k]);
    free(vs.orders);
}

/* ---- part 2: the compressor alone (from bench_priority_kcut.c) -------------------------- */

typedef struct kcut_result {
    double crux_s, sinc_s, varys_s; /* median seconds */
    double crux_cpu_s;              /* median CPU seconds of crux */
    double crux_cut, sinc_cut, varys_cut, total, one_order_cut;
    double maxrss_mb;
    uint32_t edges;
} kcut_result;

typedef struct kcut_arg {
    uint32_t n;
    uint64_t seed;
    unsigned runs;
} kcut_arg;

/* Random contention DAG: a hidden random priority order; every job gets 5..10 out-edges
 * (7.5 on average) to later jobs, three in four among its next 64 and one in four anywhere
 * later; an edge weighs its source's intensity (uniform in [1, 100)). When `lv` is given,
 * nothing is built: the same edges are regenerated to check levels `lv` and cut `cut`
 * (the public API has no edge getter); returns 1 if they are wrong. */
static int kcut_dag(tsched_dag **out, double *total, uint32_t n, uint64_t seed, const uint32_t *lv, double cut,
                    const char *what)
{
    uint64_t s = seed;
    tsched_dag *d = NULL;
    if (!lv && tsched_dag_new(&d, n) != TSCHED_OK)
        return 1;
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    if (!perm) {
        tsched_dag_free(d);
        return 1;
    }
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(rng_next(&s) % i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    int bad = 0;
    double sum = 0, c = 0;
    if (lv)
        for (uint32_t x = 0; x < n; x++)
            bad |= lv[x] >= KCUT_LEVELS;
    for (uint32_t i = 0; i + 1 < n; i++) {
        double w = 1 + 99 * rng_unit(&s);
        uint32_t deg = 5 + (uint32_t)(rng_next(&s) % 6), later = n - i - 1;
        for (uint32_t k = 0; k < deg; k++) {
            uint32_t span = rng_next(&s) % 4 ? (later < 64 ? later : 64) : later;
            uint32_t j = i + 1 + (uint32_t)(rng_next(&s) % span);
            uint32_t u = perm[i], v = perm[j];
            sum += w;
            if (lv) {
                bad |= lv[u] > lv[v];
                if (lv[u] < lv[v])
                    c += w;
            } else if (tsched_dag_add_edge(d, u, v, w) != TSCHED_OK) {
                free(perm);
                tsched_dag_free(d);
                return 1;
            }
        }
    }
    free(perm);
    if (!lv) {
        *out = d;
        *total = sum;
        return 0;
    }
    if (bad)
        problem("kcut n=%u %s: invalid levels", n, what);
    else if (fabs(c - cut) > REL_EPS * (1 + c)) {
        problem("kcut n=%u %s: cut_weight %.17g, recount %.17g", n, what, cut, c);
        bad = 1;
    }
    return bad;
}

static double kcut_timed(tsched_dag *d, uint32_t *lv, double *cut, tsched_kcut_algo algo, uint32_t orders,
                         unsigned runs, double *cpu)
{
    double c[MAX_RUNS];
    tsched_kcut_options o;
    tsched_kcut_options_init(&o);
    o.algo = algo;
    o.levels = KCUT_LEVELS;
    o.orders = orders;
    o.seed = 1;
    double t[MAX_RUNS];
    for (unsigned r = 0; r < runs; r++) {
        double c0 = cpu_s(), t0 = now_s();
        tsched_status st = tsched_dag_compress(lv, cut, d, &o);
        t[r] = now_s() - t0;
        c[r] = cpu_s() - c0;
        if (st != TSCHED_OK) {
            problem("kcut %s: %s: %s", tsched_kcut_algo_name(algo), tsched_status_str(st), tsched_last_error());
            return NAN;
        }
    }
    if (cpu)
        *cpu = median(c, runs);
    return median(t, runs);
}

static void kcut_child(void *out, const void *argp)
{
    kcut_result *res = out;
    const kcut_arg *arg = argp;
    uint32_t n = arg->n;
    memset(res, 0, sizeof *res);
    tsched_dag *d = NULL;
    uint32_t *lv = malloc((n ? n : 1) * sizeof *lv);
    if (kcut_dag(&d, &res->total, n, arg->seed, NULL, 0, NULL) != 0 || !lv) {
        problem("kcut n=%u: cannot build the DAG", n);
        free(lv);
        tsched_dag_free(d);
        return;
    }
    res->edges = tsched_dag_edges(d);
    res->crux_s = kcut_timed(d, lv, &res->crux_cut, TSCHED_KCUT_CRUX, KCUT_ORDERS, arg->runs, &res->crux_cpu_s);
    kcut_dag(NULL, NULL, n, arg->seed, lv, res->crux_cut, "crux");
    (void)kcut_timed(d, lv, &res->one_order_cut, TSCHED_KCUT_CRUX, 1, 1, NULL);
    if (res->one_order_cut > res->crux_cut)
        problem("kcut n=%u: crux with %d orders (%g) below its first order alone (%g)", n, KCUT_ORDERS, res->crux_cut,
                res->one_order_cut);
    res->sinc_s = kcut_timed(d, lv, &res->sinc_cut, TSCHED_KCUT_SINCRONIA, 1, arg->runs, NULL);
    kcut_dag(NULL, NULL, n, arg->seed, lv, res->sinc_cut, "sincronia");
    res->varys_s = kcut_timed(d, lv, &res->varys_cut, TSCHED_KCUT_VARYS, 1, arg->runs, NULL);
    kcut_dag(NULL, NULL, n, arg->seed, lv, res->varys_cut, "varys");
    free(lv);
    tsched_dag_free(d);
    res->maxrss_mb = peak_rss_mb();
}

static void part_kcut(const options *o)
{
    printf("\n== 2. compressor alone: tsched_dag_compress, K = %d levels, m = %d orders, median of %u run(s), "
           "each size in its own process ==\n",
           KCUT_LEVELS, KCUT_ORDERS, o->runs);
    printf("%8s %9s %10s %10s %10s %10s %9s | %7s %7s %7s %7s (cut / total weight)\n", "n", "edges", "crux_s",
           "crux_cpu", "sinc_s", "varys_s", "peak_MB", "crux", "1order", "sinc", "varys");
    for (unsigned k = 0; k < o->nsizes; k++) {
        kcut_result r;
        kcut_arg arg = {o->sizes[k], o->seed + o->sizes[k], o->runs};
        if (run_isolated(&r, sizeof r, kcut_child, &arg) != 0) {
            problem("kcut n=%u: the child failed", o->sizes[k]);
            continue;
        }
        double t = r.total > 0 ? r.total : 1;
        printf("%8u %9u %10.4f %10.4f %10.4f %10.4f %9.1f | %7.4f %7.4f %7.4f %7.4f\n", o->sizes[k], r.edges,
               r.crux_s, r.crux_cpu_s, r.sinc_s, r.varys_s, r.maxrss_mb, r.crux_cut / t, r.one_order_cut / t, r.sinc_cut / t,
               r.varys_cut / t);
        char metric[96];
        int target = o->sizes[k] == TARGET_N;
        int pass_t = r.crux_s < TARGET_S, pass_m = r.maxrss_mb < TARGET_MB;
        snprintf(metric, sizeof metric, "kcut n=%u crux", o->sizes[k]);
        json_metric("kcut", metric, r.crux_s * 1e3, "ms", target ? "< 1000" : NULL, pass_t ? "PASS" : "MISS");
        snprintf(metric, sizeof metric, "kcut n=%u crux cpu", o->sizes[k]);
        json_metric("kcut", metric, r.crux_cpu_s * 1e3, "ms", NULL, NULL);
        snprintf(metric, sizeof metric, "kcut n=%u sincronia", o->sizes[k]);
        json_metric("kcut", metric, r.sinc_s * 1e3, "ms", NULL, NULL);
        snprintf(metric, sizeof metric, "kcut n=%u varys", o->sizes[k]);
        json_metric("kcut", metric, r.varys_s * 1e3, "ms", NULL, NULL);
        snprintf(metric, sizeof metric, "kcut n=%u peak memory", o->sizes[k]);
        json_metric("kcut", metric, r.maxrss_mb, "MiB", target ? "< 256" : NULL, pass_m ? "PASS" : "MISS");
        snprintf(metric, sizeof metric, "kcut n=%u crux cut / total", o->sizes[k]);
        json_metric("kcut", metric, 100 * r.crux_cut / t, "%", NULL, NULL);
        if (target) {
            int pass = pass_t && pass_m;
            g_target_runs++;
            g_misses += !pass;
            printf("target n=%d K=%d m=%d: %.3f s (< %.0f s), %.1f MB (< %.0f MB): %s\n", TARGET_N, KCUT_LEVELS,
                   KCUT_ORDERS, r.crux_s, TARGET_S, r.maxrss_mb, TARGET_MB, pass ? "PASS" : "MISS");
        }
    }
}

/* ---- part 3: tsched_prioritize on larger job sets ---------------------------------------- */

typedef struct scale_arg {
    uint32_t jobs;
    uint64_t seed;
    unsigned runs;
    int quick;
} scale_arg;

typedef struct scale_result {
    uint32_t nodes, jobs, flows, edges, used_levels, gpus;
    double gen_ms, load_ms, prio_ms, prio_min_ms, json_kb, maxrss_mb, cut_share;
} scale_result;

static void scale_fabric(tsched_gen_params *gp, int quick)
{
    tsched_topology_params_init(gp, TSCHED_GEN_CLOS3);
    gp->name = "clos3-512";
    gp->pods = quick ? 2 : 4;
    gp->leaves_per_pod = 8;
    gp->spines_per_pod = 8;
    gp->cores = 16;
    gp->nodes_per_leaf = quick ? 8 : 16;
    gp->gpus_per_node = 8;
    gp->nics_per_node = 8;
    gp->nic_gbps = 400;
}

static void scale_child(void *out, const void *argp)
{
    scale_result *res = out;
    const scale_arg *arg = argp;
    memset(res, 0, sizeof *res);
    tsched_gen_params gp;
    scale_fabric(&gp, arg->quick);
    tsched_topology *t = NULL;
    double t0 = now_s();
    tsched_status st = tsched_topology_generate(&t, &gp);
    res->gen_ms = (now_s() - t0) * 1e3;
    if (st != TSCHED_OK) {
        problem("scale: tsched_topology_generate: %s: %s", tsched_status_str(st), tsched_last_error());
        return;
    }
    res->nodes = tsched_topology_num_nodes(t);
    uint64_t s = arg->seed * 0x9e3779b97f4a7c15ull + arg->jobs;
    static const uint32_t gs[] = {1, 2, 4, 8};
    sbuf doc = {0};
    uint32_t rings;
    if (make_jobset(&doc, t, arg->jobs, MAX_HOSTS_PER_JOB, gs, 4, &s, &rings) != 0) {
        problem("scale: cannot place %u jobs on %u nodes", arg->jobs, res->nodes);
        free(doc.s);
        tsched_topology_free(t);
        return;
    }
    res->json_kb = (double)doc.n / 1024.0;
    for (const char *p = doc.s; (p = strstr(p, "\"gpus\": ")) != NULL; p++)
        res->gpus += (uint32_t)strtoul(p + 8, NULL, 10);
    /* flows: count the "src" keys */
    for (const char *p = doc.s; (p = strstr(p, "\"src\"")) != NULL; p++)
        res->flows++;
    tsched_jobset *js = NULL;
    t0 = now_s();
    st = tsched_jobset_load_string(&js, t, doc.s, doc.n);
    res->load_ms = (now_s() - t0) * 1e3;
    free(doc.s);
    if (st != TSCHED_OK) {
        problem("scale: tsched_jobset_load_string: %s: %s", tsched_status_str(st), tsched_last_error());
        tsched_topology_free(t);
        return;
    }
    res->jobs = tsched_jobset_count(js);
    double samples[MAX_RUNS];
    double cut0 = -1;
    unsigned runs = 0;
    for (unsigned r = 0; r < arg->runs; r++) {
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.algo = TSCHED_KCUT_CRUX;
        o.levels = KCUT_LEVELS;
        tsched_priorities *p = NULL;
        t0 = now_s();
        st = tsched_prioritize(&p, t, js, &o);
        samples[r] = (now_s() - t0) * 1e3;
        if (st != TSCHED_OK) {
            problem("scale: tsched_prioritize: %s: %s", tsched_status_str(st), tsched_last_error());
            break;
        }
        runs++;
        res->edges = tsched_priorities_dag_edges(p);
        double total = tsched_priorities_total_weight(p), cut = tsched_priorities_cut_weight(p);
        res->cut_share = total > 0 ? cut / total : NAN;
        if (r > 0 && cut != cut0)
            problem("scale: cut weight changed between runs (%.17g, %.17g)", cut0, cut);
        cut0 = cut;
        uint32_t used = 0, seen = 0;
        for (uint32_t i = 0; i < res->jobs; i++) {
            uint32_t lv = tsched_priorities_level(p, i);
            if (lv >= KCUT_LEVELS || !(tsched_priorities_priority(p, i) > 0))
                problem("scale: job %u: level %u, priority %g", i, lv, tsched_priorities_priority(p, i));
            else
                seen |= 1u << lv;
        }
        for (int k = 0; k < KCUT_LEVELS; k++)
            used += (seen >> k) & 1;
        res->used_levels = used;
        tsched_priorities_free(p);
        if (samples[r] > 5000) /* one run is enough for a slow case */
            break;
    }
    res->prio_ms = res->prio_min_ms = NAN;
    if (runs) {
        double mn = samples[0];
        for (unsigned r = 1; r < runs; r++)
            mn = samples[r] < mn ? samples[r] : mn;
        res->prio_min_ms = mn;
        res->prio_ms = median(samples, runs);
    }
    tsched_jobset_free(js);
    tsched_topology_free(t);
    res->maxrss_mb = peak_rss_mb();
}

static void part_scale(const options *o)
{
    tsched_gen_params gp;
    scale_fabric(&gp, o->quick);
    printf("\n== 3. tsched_prioritize (crux, K = %d, m = %d) on clos3 %u pods x %u leaves x %u nodes (8 GPUs, "
           "8 NICs of %g Gbit/s), median of %u run(s), each size in its own process ==\n",
           KCUT_LEVELS, KCUT_ORDERS, gp.pods, gp.leaves_per_pod, gp.nodes_per_leaf, gp.nic_gbps, o->runs);
    printf("%6s %6s %6s %7s %9s %9s %11s %11s %9s %7s %6s %9s\n", "jobs", "nodes", "gpus", "flows", "json_KiB", "load_ms",
           "prio_ms", "prio_min", "edges", "cut/tot", "levels", "peak_MB");
    for (unsigned k = 0; k < o->njobs; k++) {
        scale_result r;
        scale_arg arg = {o->jobs[k], o->seed, o->runs, o->quick};
        if (run_isolated(&r, sizeof r, scale_child, &arg) != 0) {
            problem("scale jobs=%u: the child failed", o->jobs[k]);
            continue;
        }
        printf("%6u %6u %6u %7u %9.0f %9.2f %11.2f %11.2f %9u %6.1f%% %6u %9.1f\n", r.jobs, r.nodes, r.gpus, r.flows,
               r.json_kb, r.load_ms, r.prio_ms, r.prio_min_ms, r.edges, 100 * r.cut_share, r.used_levels, r.maxrss_mb);
        char metric[96];
        snprintf(metric, sizeof metric, "prioritize %u jobs", r.jobs);
        json_metric("scale", metric, r.prio_ms, "ms", NULL, NULL);
        snprintf(metric, sizeof metric, "load %u jobs", r.jobs);
        json_metric("scale", metric, r.load_ms, "ms", NULL, NULL);
        snprintf(metric, sizeof metric, "DAG edges %u jobs", r.jobs);
        json_metric("scale", metric, r.edges, "edges", NULL, NULL);
        snprintf(metric, sizeof metric, "peak memory %u jobs", r.jobs);
        json_metric("scale", metric, r.maxrss_mb, "MiB", NULL, NULL);
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_priority [--quick] [--json] [--strict] [--cases N] [--runs N] [--seed N] [--n N]... "
               "[--jobs N]...\n"
               "  --quick    100 cases, n = 500 and 5,000, 50 jobs on a 128-node clos3, one run each\n"
               "  --json     also print one JSON object per metric\n"
               "  --strict   exit 1 if the compressor target is missed\n"
               "  --cases N  random cases of the §4.4 set-up (default 1500)\n"
               "  --runs N   timed runs of parts 2 and 3 (default 3, quick 1; max 15)\n"
               "  --seed N   seed of every generator (default 1)\n"
               "  --n N      a compressor size to run (repeatable; replaces 500, 5000, 50000; 0 = none)\n"
               "  --jobs N   a job-set size for part 3 (repeatable; replaces 200, 1000; 0 = none)\n");
}

static int parse_ulong(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return 0;
    *out = v;
    return 1;
}

static void parse_args(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    int cases_given = 0, sizes_given = 0, jobs_given = 0;
    for (int i = 1; i < argc; i++) {
        unsigned long v = 0;
        const char *a = argv[i];
        int has = i + 1 < argc && parse_ulong(argv[i + 1], &v);
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--cases") == 0 && has && v <= 10000000ul) {
            o->cases = (unsigned)v;
            cases_given = 1;
            i++;
        } else if (strcmp(a, "--runs") == 0 && has && v >= 1 && v <= MAX_RUNS) {
            o->runs = (unsigned)v;
            i++;
        } else if (strcmp(a, "--seed") == 0 && has) {
            o->seed = v;
            i++;
        } else if (strcmp(a, "--n") == 0 && has && v <= (1ul << 26) && o->nsizes < MAX_SIZES) {
            sizes_given = 1;
            if (v)
                o->sizes[o->nsizes++] = (uint32_t)v;
            i++;
        } else if (strcmp(a, "--jobs") == 0 && has && v <= 100000ul && o->njobs < MAX_SIZES) {
            jobs_given = 1;
            if (v)
                o->jobs[o->njobs++] = (uint32_t)v;
            i++;
        } else {
            fprintf(stderr, "bench_priority: bad argument \"%s\"\n", a);
            usage(stderr);
            exit(2);
        }
    }
    if (!cases_given)
        o->cases = o->quick ? 100 : 1500;
    if (!o->runs)
        o->runs = o->quick ? 1 : 3;
    if (!sizes_given) {
        o->sizes[o->nsizes++] = 500;
        o->sizes[o->nsizes++] = 5000;
        if (!o->quick)
            o->sizes[o->nsizes++] = 50000;
    }
    if (!jobs_given) {
        o->jobs[o->njobs++] = o->quick ? 50 : 200;
        if (!o->quick)
            o->jobs[o->njobs++] = 1000;
    }
}

int main(int argc, char **argv)
{
    options o;
    parse_args(&o, argc, argv);
    g_quick = o.quick;
    printf("bench_priority %s: seed %llu%s\n", tsched_version(), (unsigned long long)o.seed,
           o.quick ? " (quick)" : "");
    if (o.cases)
        part_validation(&o);
    part_kcut(&o);
    part_scale(&o);
    printf("\ntarget (n = %d): %s; %d problem(s)\n", TARGET_N,
           !g_target_runs ? "not measured" : g_misses ? "MISSED" : "PASS", g_problems);
    if (o.json && g_json.s)
        fputs(g_json.s, stdout);
    free(g_json.s);
    return g_problems || (o.strict && g_misses) ? 1 : 0;
}
