/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Crius Cells (doc/cell.md, design note §8 "Benchmarks"), four modes, each run in its own
 * process so that the peak memory (ru_maxrss) printed at its end is the mode's own:
 *
 *   schedule  Table 1 cluster of the paper (1,280 GPUs: 80 x 4 A100-40G on NVLink, 160 x 2
 *             A40, 160 x 2 A10, 20 x 16 V100; one NIC a node, ConnectX-5 100 Gbit/s, the A10
 *             nodes ConnectX-6 200 Gbit/s; leaf-spine, 20 nodes of one type a leaf, 8
 *             spines) with a seeded queue of 100 BERT jobs of Table 2; one arrival event
 *             (tsched_crius_new + 100 x tsched_crius_add_job + tsched_crius_schedule) timed
 *             whole, Cell estimation included, at depth 0..5. Target < 50 ms. Then, untimed
 *             for the target, a late job's arrival and a departure on the same scheduler.
 *   scaled    The same mix scaled x 7.8125 (625 / 1,250 / 1,250 / 157 nodes: 10,012 GPUs),
 *             the same 100 jobs. Target < 1 s.
 *   estimate  Cells per second for S = 1, 2, 4, ..., 64 in the three plan spaces through
 *             tsched_cell_estimate (public: pool lookup in the fabric included) and
 *             ts_cell_estimate_in (internal: no lookups), against the plain reference of
 *             bench/ref_cell.c in the same run (the §3.2 formulas for the same plan options
 *             and the §3.3 optimum, stage cuts given); every T is checked against it.
 *   tuning    Tuned vs exhaustive (and assembled vs exhaustive) over the Table 2 BERT models
 *             on the Table 1 pools: share equal, mean ratio, plans evaluated; and how often
 *             the per-Cell form "best plan on 2N GPUs never slower than on N" fails.
 *
 * The program links the internal archive (for ts_cell_estimate_in); every other call is
 * the public API. Without --mode it runs the four modes one after the other as child
 * processes of itself.
 *
 * Usage: bench_cell [--mode schedule|scaled|estimate|tuning] [--quick] [--strict] [--runs N]
 *                   [--seed N] [--jobs N] [--max-depth D]
 * (--jobs: queue length of the schedule modes, default 100; the targets are for 100)
 * Exit status 1 when a check fails (a T that disagrees with the reference, an order
 * exhaustive <= tuned <= assembled broken, a GPU used twice), with --strict also when a
 * target is missed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo-sched/topo-sched.h"
#include "cell/cell_internal.h"

#define BENCH_NAME "bench_cell"
#include "bench_util.h"
#include "ref_cell.h"

#define NODES_PER_LEAF 20
#define SPINES 8
#define SPINE_GBPS 400.0
#define QUEUE_JOBS 100 /* default of --jobs */
#define TARGET_TABLE1_MS 50.0
#define TARGET_SCALED_MS 1000.0
#define DEFAULT_DEPTH 3

static int problems, misses, quick, strict;
static uint64_t seed = 1;
static uint32_t runs_opt, max_depth = 5, njobs = QUEUE_JOBS;

/* ---- the fabric of Table 1 ------------------------------------------------------------- */

typedef struct pool_spec {
    const char *type, *prefix;
    uint32_t nodes, gpus;
    double nic_gbps;
} pool_spec;

static const pool_spec TABLE1[4] = {
    {"A100-40G", "a100", 80, 4, 100}, /* NVLink, ConnectX-5 */
    {"A40", "a40", 160, 2, 100},      /* PCIe, ConnectX-5 */
    {"A10", "a10", 160, 2, 200},      /* PCIe, ConnectX-6 */
    {"V100", "v100", 20, 16, 100},    /* NVLink, ConnectX-5 */
};

/* Table 1 with every node count multiplied by `scale` (rounded up): leaves of 20 nodes of
 * one type (the last leaf of a type may be partial), 8 spines, one 400 Gbit/s link per
 * leaf-spine pair, one NIC per node. */
static tsched_topology *make_cluster(const char *name, double scale, uint64_t *gpus_out)
{
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_new(&t, name);
    if (st != TSCHED_OK)
        die("tsched_topology_new", st);
    char a[64], b[64];
    for (uint32_t s = 0; s < SPINES; s++) {
        snprintf(a, sizeof a, "spine%u", s);
        if ((st = tsched_topology_add_switch(NULL, t, a, 1, NULL)) != TSCHED_OK)
            die("tsched_topology_add_switch", st);
    }
    uint32_t leaf = 0;
    uint64_t gpus = 0;
    for (int p = 0; p < 4; p++) {
        uint32_t n = (uint32_t)ceil(TABLE1[p].nodes * scale - 1e-9);
        for (uint32_t i = 0; i < n; i++) {
            if (i % NODES_PER_LEAF == 0) {
                snprintf(a, sizeof a, "leaf%u", ++leaf);
                if ((st = tsched_topology_add_switch(NULL, t, a, 0, NULL)) != TSCHED_OK)
                    die("tsched_topology_add_switch", st);
                for (uint32_t s = 0; s < SPINES; s++) {
                    snprintf(b, sizeof b, "spine%u", s);
                    if ((st = tsched_topology_add_link(t, a, b, SPINE_GBPS, 1)) != TSCHED_OK)
                        die("tsched_topology_add_link", st);
                }
            }
            snprintf(b, sizeof b, "%s-%04u", TABLE1[p].prefix, i);
            if ((st = tsched_topology_add_node(NULL, t, b, a, TABLE1[p].gpus, 1, TABLE1[p].type,
                                               TABLE1[p].nic_gbps)) != TSCHED_OK)
                die("tsched_topology_add_node", st);
            gpus += TABLE1[p].gpus;
        }
    }
    if ((st = tsched_topology_build(t)) != TSCHED_OK)
        die("tsched_topology_build", st);
    if (gpus_out)
        *gpus_out = gpus;
    return t;
}

/* ---- the BERT models of Table 2 ----------------------------------------------------------- */

/* Table 2 gives parameter counts only. Crius takes its models from Alpa, whose GPT-style
 * specs of these sizes are (hidden, layers): 0.76 B (1536, 24), 1.3 B (2048, 24), 2.6 B
 * (2560, 32), 6.7 B (4096, 32); BERT's vocabulary (30,522) and sequence (512). With §3.2's
 * p_i these are 0.77, 1.33, 2.68 and 6.70 billion parameters. */
typedef struct bert_spec {
    const char *name;
    uint32_t hidden, layers;
} bert_spec;

static const bert_spec BERT[4] = {
    {"bert-0.76b", 1536, 24}, {"bert-1.3b", 2048, 24}, {"bert-2.6b", 2560, 32}, {"bert-6.7b", 4096, 32}};
static const uint32_t BATCH[3] = {128, 256, 512};
#define VOCAB 30522
#define SEQ 512

static double params_of(uint32_t h, uint32_t l)
{
    return (double)l * (12.0 * h * h + 9.0 * h) + (double)h * (VOCAB + SEQ) + (double)h * VOCAB;
}

static tsched_job *make_job(const char *name, uint32_t gpus, uint32_t h, uint32_t l, uint32_t gb)
{
    tsched_job *j = NULL;
    tsched_status st = tsched_job_new(&j, name, gpus, 1, 1);
    if (st != TSCHED_OK)
        die("tsched_job_new", st);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = h;
    m.layers = l;
    m.vocab = VOCAB;
    m.seq = SEQ;
    m.global_batch = gb;
    m.micro_batch = 1;
    m.vpp = 1;
    m.moe_experts = 0;
    if ((st = tsched_job_set_model(j, &m)) != TSCHED_OK)
        die("tsched_job_set_model", st);
    return j;
}

/* The queue: 100 jobs, model and global batch uniform over Table 2's BERT rows, N_G uniform
 * over {1, 2, 4, 8, 16, 32} but redrawn while the parameter state (16 bytes a parameter)
 * would exceed 32 GiB per GPU (nobody asks 1 GPU for 6.7 B parameters), submit times uniform
 * in [0, 3600) s. */
typedef struct queue {
    uint32_t n;
    tsched_job **job;
    double *submit;
    uint32_t *model, gpus_requested;
} queue;

static void make_queue(queue *q, uint64_t sd)
{
    uint64_t r = rng_stream(12, sd);
    q->gpus_requested = 0;
    q->n = njobs;
    q->job = xcalloc(q->n, sizeof *q->job);
    q->submit = xcalloc(q->n, sizeof *q->submit);
    q->model = xcalloc(q->n, sizeof *q->model);
    for (uint32_t i = 0; i < q->n; i++) {
        uint32_t mi = rng_below(&r, 4), gb = BATCH[rng_below(&r, 3)], ng;
        double p = params_of(BERT[mi].hidden, BERT[mi].layers);
        do
            ng = 1u << rng_below(&r, 6);
        while (16.0 * p / ng > 32.0 * 1073741824.0);
        char name[64];
        snprintf(name, sizeof name, "%s-gb%u-n%u-%03u", BERT[mi].name, gb, ng, i);
        q->job[i] = make_job(name, ng, BERT[mi].hidden, BERT[mi].layers, gb);
        q->submit[i] = (double)rng_below(&r, 3600000) / 1000.0;
        q->model[i] = mi;
        q->gpus_requested += ng;
    }
}

static void free_queue(queue *q)
{
    for (uint32_t i = 0; i < q->n; i++)
        tsched_job_free(q->job[i]);
    free(q->job);
    free(q->submit);
    free(q->model);
}

/* A stub of the groundwork (TSCHED_E_INTERNAL "not implemented yet") makes a mode skip. */
static int is_stub(tsched_status st)
{
    return st == TSCHED_E_INTERNAL && strstr(tsched_last_error(), "not implemented") != NULL;
}

static tsched_gpu_catalog *catalog_or_skip(const char *mode)
{
    tsched_gpu_catalog *cat = NULL;
    tsched_status st = tsched_gpu_catalog_default(&cat);
    if (st != TSCHED_OK) {
        if (is_stub(st)) {
            printf("%s: SKIPPED: the GPU catalogue is not implemented on this revision (%s)\n", mode,
                   tsched_last_error());
            return NULL;
        }
        die("tsched_gpu_catalog_default", st);
    }
    return cat;
}

static void print_peak(const char *mode)
{
    printf("%s: peak RSS (ru_maxrss) of this process: %.1f MiB\n", mode, peak_rss_mb());
}

/* ---- schedule / scaled ---------------------------------------------------------------------- */

static double json_number(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

typedef struct event_stats {
    uint32_t running, pending, no_cell, insufficient, gpus_used;
    double value, cells_estimated;
} event_stats;

/* Check the committed schedule (no node over its GPUs, each running job's nodes sum to its
 * Cell's N, N in {N_G/2, N_G, 2 N_G}) and count what it did. */
static void inspect(event_stats *es, const tsched_crius *cr, const tsched_topology *topo, const queue *q, int list)
{
    uint32_t nn = tsched_topology_num_nodes(topo);
    uint32_t *used = xcalloc(nn, sizeof *used), *nodes = xcalloc(nn, sizeof *nodes),
             *ng = xcalloc(nn, sizeof *ng);
    memset(es, 0, sizeof *es);
    for (uint32_t j = 0; j < q->n; j++) {
        if (!tsched_crius_job_running(cr, j)) {
            es->pending++;
            const char *why = tsched_crius_job_reason(cr, j);
            if (why && strcmp(why, "no feasible cell") == 0) {
                if (list && es->no_cell < 10)
                    printf("%s %s", es->no_cell ? "," : "  no feasible Cell:", tsched_crius_job_name(cr, j));
                else if (list && es->no_cell == 10)
                    printf(", ...");
                es->no_cell++;
            }
            else
                es->insufficient++;
            continue;
        }
        es->running++;
        const tsched_cell *c = NULL;
        size_t cnt = 0;
        tsched_status st = tsched_crius_job_cell(&c, cr, j);
        if (st != TSCHED_OK)
            die("tsched_crius_job_cell", st);
        if ((st = tsched_crius_job_nodes(nodes, ng, nn, &cnt, cr, j)) != TSCHED_OK)
            die("tsched_crius_job_nodes", st);
        uint32_t sum = 0, N = tsched_cell_gpus(c), NG = tsched_job_gpus(q->job[j]);
        for (size_t i = 0; i < cnt; i++) {
            used[nodes[i]] += ng[i];
            sum += ng[i];
        }
        if (sum != N || !(N == NG || N == 2 * NG || (NG % 2 == 0 && N == NG / 2))) {
            printf("PROBLEM: job %u: %u GPUs on its nodes, Cell N %u, N_G %u\n", j, sum, N, NG);
            problems++;
        }
        es->gpus_used += sum;
    }
    for (uint32_t n = 0; n < nn; n++)
        if (used[n] > tsched_topology_node_gpus(topo, n)) {
            printf("PROBLEM: node %u holds %u GPUs of jobs, has %u\n", n, used[n], tsched_topology_node_gpus(topo, n));
            problems++;
        }
    if (list && es->no_cell)
        printf("\n");
    es->value = tsched_crius_value(cr);
    free(used);
    free(nodes);
    free(ng);
}

static int run_schedule(const char *mode, double scale, double target_ms)
{
    uint64_t gpus = 0;
    tsched_topology *topo = make_cluster(scale == 1 ? "crius-table1" : "crius-table1-scaled", scale, &gpus);
    queue q;
    make_queue(&q, seed);
    char **pools = NULL;
    uint32_t npools = 0;
    tsched_status st = tsched_cell_pools(&pools, &npools, topo);
    if (st != TSCHED_OK) {
        if (!is_stub(st))
            die("tsched_cell_pools", st);
        npools = 0;
    }
    printf("%s: fabric %u nodes, %llu GPUs, %u leaves of <= %u nodes, %u spines; pools:", mode,
           tsched_topology_num_nodes(topo), (unsigned long long)gpus, tsched_topology_num_tier(topo, 0),
           NODES_PER_LEAF, SPINES);
    for (uint32_t i = 0; i < npools; i++)
        printf(" %s", pools[i]);
    tsched_free(pools);
    uint32_t per_model[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < q.n; i++)
        per_model[q.model[i]]++;
    printf("\n%s: queue of %u jobs (seed %llu), %u GPUs requested at N_G; %u / %u / %u / %u jobs of 0.76 / 1.3 / 2.6 / 6.7 B\n",
           mode, q.n, (unsigned long long)seed, q.gpus_requested, per_model[0], per_model[1], per_model[2],
           per_model[3]);
    tsched_gpu_catalog *cat = catalog_or_skip(mode);
    if (!cat) {
        free_queue(&q);
        tsched_topology_free(topo);
        return 0;
    }
    uint32_t runs = runs_opt ? runs_opt : (quick ? 1 : scale == 1 ? 10 : 3);
    printf("%s: %u repetitions per depth; times in ms: whole event (new + add_job x %u + schedule), then schedule alone\n",
           mode, runs, q.n);
    printf("%s: then, on the same scheduler (estimates cached), median ms of: one late job's arrival event (+1 job), "
           "and the first running job's departure event (departure)\n", mode);
    printf("%-6s %9s %9s %9s %11s %8s %8s %10s %10s %9s %9s %9s %9s %9s\n", "depth", "mean", "median", "max",
           "sched med", "running", "pending", "(no cell", "/ no gpus)", "GPUs used", "value", "cells", "+1 job",
           "departure");
    double *tot = xcalloc(runs, sizeof *tot), *sch = xcalloc(runs, sizeof *sch), *arr2 = xcalloc(runs, sizeof *arr2),
           *dep = xcalloc(runs, sizeof *dep);
    tsched_job *late = make_job("late-bert-1.3b-gb256-n8", 8, BERT[1].hidden, BERT[1].layers, 256);
    double default_median = NAN, worst_all = 0;
    int skipped = 0;
    for (uint32_t depth = 0; depth <= max_depth && !skipped; depth++) {
        char *first = NULL;
        event_stats es = {0};
        for (uint32_t r = 0; r < runs; r++) {
            tsched_crius *cr = NULL;
            double t0 = now_ms();
            if ((st = tsched_crius_new(&cr, topo, cat)) != TSCHED_OK) {
                if (is_stub(st)) {
                    skipped = 1;
                    break;
                }
                die("tsched_crius_new", st);
            }
            if ((st = tsched_crius_set_depth(cr, depth)) != TSCHED_OK)
                die("tsched_crius_set_depth", st);
            for (uint32_t i = 0; i < q.n; i++)
                if ((st = tsched_crius_add_job(NULL, cr, q.job[i], q.submit[i])) != TSCHED_OK)
                    die("tsched_crius_add_job", st);
            double t1 = now_ms();
            st = tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL);
            double t2 = now_ms();
            if (st != TSCHED_OK) {
                if (is_stub(st)) {
                    skipped = 1;
                    tsched_crius_free(cr);
                    break;
                }
                die("tsched_crius_schedule", st);
            }
            tot[r] = t2 - t0;
            sch[r] = t2 - t1;
            char *js = NULL;
            if ((st = tsched_crius_to_json(&js, cr, 0)) != TSCHED_OK)
                die("tsched_crius_to_json", st);
            if (r == 0) {
                inspect(&es, cr, topo, &q, depth == 0);
                es.cells_estimated = json_number(js, "cells_estimated");
                first = js;
            } else {
                if (strcmp(js, first) != 0) {
                    printf("PROBLEM: depth %u: repetition %u gave another schedule than the first\n", depth, r);
                    problems++;
                }
                tsched_free(js);
            }
            /* Two more events on the same scheduler (its Cell estimates cached): one late
             * job arrives, then the first running job leaves. */
            double t3 = now_ms();
            if ((st = tsched_crius_add_job(NULL, cr, late, 3600.0)) != TSCHED_OK)
                die("tsched_crius_add_job", st);
            if ((st = tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL)) != TSCHED_OK)
                die("tsched_crius_schedule", st);
            double t4 = now_ms();
            uint32_t leaver = 0;
            while (leaver < q.n && !tsched_crius_job_running(cr, leaver))
                leaver++;
            double t5 = now_ms(), t6 = t5;
            if (leaver < q.n) {
                if ((st = tsched_crius_remove_job(cr, leaver)) != TSCHED_OK)
                    die("tsched_crius_remove_job", st);
                if ((st = tsched_crius_schedule(cr, TSCHED_CRIUS_DEPARTURE)) != TSCHED_OK)
                    die("tsched_crius_schedule", st);
                t6 = now_ms();
            }
            arr2[r] = t4 - t3;
            dep[r] = t6 - t5;
            tsched_crius_free(cr);
        }
        tsched_free(first);
        if (skipped)
            break;
        double mean = 0, mx = 0;
        for (uint32_t r = 0; r < runs; r++) {
            mean += tot[r] / runs;
            if (tot[r] > mx)
                mx = tot[r];
        }
        double med = median(tot, runs), smed = median(sch, runs), amed = median(arr2, runs), dmed = median(dep, runs);
        if (mx > worst_all)
            worst_all = mx;
        if (depth == DEFAULT_DEPTH)
            default_median = med;
        printf("%-6u %9.2f %9.2f %9.2f %11.2f %8u %8u %10u %10u %9u %9.4f %9.0f %9.3f %9.3f\n", depth, mean, med, mx, smed,
               es.running, es.pending, es.no_cell, es.insufficient, es.gpus_used, es.value, es.cells_estimated, amed,
               dmed);
    }
    if (skipped) {
        printf("%s: SKIPPED: the Crius scheduler is not implemented on this revision (%s)\n", mode, tsched_last_error());
    } else if (max_depth >= DEFAULT_DEPTH && q.n != QUEUE_JOBS) {
        printf("%s: default depth %u: median %.2f ms for %u jobs (the target is for %u jobs)\n", mode, DEFAULT_DEPTH,
               default_median, q.n, QUEUE_JOBS);
    } else if (max_depth >= DEFAULT_DEPTH) {
        int pass = default_median < target_ms;
        misses += !pass;
        printf("%s: one arrival event of %u jobs at the default depth %u: median %.2f ms (target < %.0f ms): %s; "
               "worst repetition over depths 0..%u: %.2f ms\n",
               mode, q.n, DEFAULT_DEPTH, default_median, target_ms, pass ? "PASS" : "MISS", max_depth, worst_all);
    }
    free(tot);
    free(sch);
    free(arr2);
    free(dep);
    tsched_job_free(late);
    free_queue(&q);
    tsched_topology_free(topo);
    tsched_gpu_catalog_free(cat);
    print_peak(mode);
    return 0;
}

/* ---- estimate ------------------------------------------------------------------------------- */

static const char *SPACE_NAME[3] = {"assembled", "tuned", "exhaustive"};

static tsched_cell *estimate(const tsched_topology *topo, const char *pool, const tsched_gpu_catalog *cat,
                             const tsched_job *job, uint32_t N, uint32_t S, tsched_plan_space space)
{
    tsched_cell *c = NULL;
    tsched_status st = tsched_cell_estimate(&c, topo, pool, cat, job, NULL, N, S, space);
    if (st != TSCHED_OK && is_stub(st)) {
        printf("SKIPPED: the Cell estimator is not implemented on this revision (%s)\n", tsched_last_error());
        exit(0);
    }
    if (st != TSCHED_OK)
        die("tsched_cell_estimate", st);
    return c;
}

/* The reference's input for Cell c: the model, the GPU, the pool, and c's stage cuts. */
static void ref_input(ref_cell_in *in, const tsched_cell *c, const tsched_gpu_info *gi, uint32_t G, double U,
                      uint32_t h, uint32_t l, uint32_t gb)
{
    memset(in, 0, sizeof *in);
    in->hidden = h;
    in->layers = l;
    in->vocab = VOCAB;
    in->seq = SEQ;
    in->gb = gb;
    in->tflops = gi->tflops;
    in->efficiency = gi->efficiency;
    in->mem_gib = gi->mem_gib;
    in->intra_gbps = gi->intra_gbps;
    in->G = G;
    in->U_gbps = U;
    in->N = tsched_cell_gpus(c);
    in->S = tsched_cell_num_stages(c);
    for (uint32_t s = 0; s < in->S; s++) {
        uint32_t fl = 0, nl = 0, g = 0;
        tsched_status st = tsched_cell_stage(&fl, &nl, &g, NULL, NULL, NULL, NULL, c, s);
        if (st != TSCHED_OK)
            die("tsched_cell_stage", st);
        in->first_layer[s] = fl;
        in->first_layer[s + 1] = fl + nl;
        in->gpus[s] = g;
    }
}

/* Favours of the assembled Cell's stages (tp if its t > 1). */
static void favours(uint8_t *fav, const tsched_cell *assembled)
{
    for (uint32_t s = 0; s < tsched_cell_num_stages(assembled); s++) {
        uint32_t tp = 0;
        tsched_status st = tsched_cell_stage(NULL, NULL, NULL, NULL, &tp, NULL, NULL, assembled, s);
        if (st != TSCHED_OK)
            die("tsched_cell_stage", st);
        fav[s] = tp > 1;
    }
}

static double rel(double a, double b)
{
    return a == b ? 0 : fabs(a - b) / fmax(fabs(a), fabs(b));
}

/* Calls per second of `what` over rounds of at least `min_ms`; median of 3 rounds. */
#define RATE(out, min_ms, body)                                                                                         \
    do {                                                                                                                \
        double rates_[3];                                                                                               \
        for (int r_ = 0; r_ < 3; r_++) {                                                                                \
            uint64_t n_ = 0;                                                                                            \
            double t0_ = now_ms(), t1_;                                                                                 \
            do {                                                                                                        \
                for (int k_ = 0; k_ < 4; k_++) {                                                                        \
                    body;                                                                                               \
                }                                                                                                       \
                n_ += 4;                                                                                                \
            } while ((t1_ = now_ms()) - t0_ < (min_ms));                                                                \
            rates_[r_] = n_ / ((t1_ - t0_) / 1e3);                                                                      \
        }                                                                                                               \
        (out) = median(rates_, 3);                                                                                      \
    } while (0)

static volatile double sink;

static int run_estimate(void)
{
    const char *mode = "estimate";
    tsched_gpu_catalog *cat = catalog_or_skip(mode);
    if (!cat)
        return 0;
    double self = ref_cell_selftest();
    printf("%s: reference self-test on the worked example of doc/cell.md §3.2: largest relative error %.2g (%s)\n",
           mode, self, self < 1e-7 ? "ok" : "PROBLEM");
    if (!(self < 1e-7))
        problems++;
    uint64_t gpus = 0;
    tsched_topology *topo = make_cluster("crius-table1-scaled", 7.8125, &gpus);
    ts_pools pools;
    tsched_status st = ts_pools_build(&pools, topo);
    if (st != TSCHED_OK) {
        if (is_stub(st)) {
            printf("%s: SKIPPED: pools are not implemented on this revision\n", mode);
            tsched_topology_free(topo);
            tsched_gpu_catalog_free(cat);
            return 0;
        }
        die("ts_pools_build", st);
    }
    /* A deep model so that S reaches 64: 128 layers of h 2048 (6.5 B parameters), gb 512. */
    const uint32_t H = 2048, L = 128, GB = 512;
    tsched_job *job = make_job("deep-128", 8, H, L, GB);
    const struct {
        const char *pool, *type;
        uint32_t per_stage;
    } cfg[2] = {{"V100/16", "V100", 16}, {"A100-40G/4", "A100-40G", 8}};
    const double min_ms = quick ? 5 : 100;
    const uint32_t max_s = quick ? 16 : 64;
    printf("%s: model h %u, l %u, seq %u, V %u, gb %u on the %llu-GPU fabric; Cells/s = median of 3 rounds of >= %.0f ms\n",
           mode, H, L, SEQ, VOCAB, GB, (unsigned long long)gpus, min_ms);
    printf("%-11s %3s %5s %-10s %4s %7s %10s %11s %10s %11s %8s %8s %9s\n", "pool", "S", "N", "space", "feas",
           "options", "public/s", "internal/s", "stages/s", "reference/s", "int/ref", "pub/ref", "rel dT");
    double worst_rel = 0;
    for (int ci = 0; ci < 2; ci++) {
        uint32_t pi = ts_pools_find(&pools, cfg[ci].pool);
        if (pi == UINT32_MAX) {
            printf("PROBLEM: pool %s not found\n", cfg[ci].pool);
            problems++;
            continue;
        }
        tsched_gpu_info gi;
        gi.size = sizeof gi;
        if ((st = tsched_gpu_catalog_find(&gi, cat, cfg[ci].type)) != TSCHED_OK)
            die("tsched_gpu_catalog_find", st);
        ts_cell_in in;
        memset(&in, 0, sizeof in);
        in.pool = cfg[ci].pool;
        in.gpu = ts_catalog_find(cat, cfg[ci].type);
        in.G = pools.p[pi].G;
        in.U_gbps = pools.p[pi].U_gbps;
        in.hidden = H;
        in.layers = L;
        in.vocab = VOCAB;
        in.seq = SEQ;
        in.global_batch = GB;
        in.moe_experts = 0;
        in.profile = NULL;
        for (uint32_t S = 1; S <= max_s; S *= 2) {
            const uint32_t N = cfg[ci].per_stage * S;
            tsched_cell *asm_cell = estimate(topo, cfg[ci].pool, cat, job, N, S, TSCHED_PLANS_ASSEMBLED);
            uint8_t fav[REF_CELL_MAX_STAGES] = {0};
            int feas = tsched_cell_feasible(asm_cell);
            if (feas)
                favours(fav, asm_cell);
            uint32_t fl[REF_CELL_MAX_STAGES + 1], gg[REF_CELL_MAX_STAGES];
            double stages_rate = 0;
            RATE(stages_rate, min_ms, {
                st = tsched_cell_stages(fl, gg, job, NULL, N, S);
                if (st != TSCHED_OK)
                    die("tsched_cell_stages", st);
            });
            for (int sp = 0; sp < 3; sp++) {
                tsched_cell *c = estimate(topo, cfg[ci].pool, cat, job, N, S, (tsched_plan_space)sp);
                ref_cell_in rin;
                ref_input(&rin, c, &gi, in.G, in.U_gbps, H, L, GB);
                ref_cell_out ro;
                if (ref_cell_eval(&ro, &rin, sp, fav) != 0)
                    die("ref_cell_eval", TSCHED_E_INVALID);
                double d = 0;
                if (ro.feasible != tsched_cell_feasible(c)) {
                    printf("PROBLEM: %s S %u %s: feasible %d, reference %d\n", cfg[ci].pool, S, SPACE_NAME[sp],
                           tsched_cell_feasible(c), ro.feasible);
                    problems++;
                } else if (ro.feasible) {
                    d = rel(tsched_cell_iteration_s(c), ro.T);
                    if (d > 1e-9) {
                        printf("PROBLEM: %s S %u %s: T %.17g, reference %.17g\n", cfg[ci].pool, S, SPACE_NAME[sp],
                               tsched_cell_iteration_s(c), ro.T);
                        problems++;
                    }
                }
                if (d > worst_rel)
                    worst_rel = d;
                tsched_cell_free(c);
                double pub = 0, intl = 0, ref = 0;
                RATE(pub, min_ms, {
                    tsched_cell *x = estimate(topo, cfg[ci].pool, cat, job, N, S, (tsched_plan_space)sp);
                    sink = tsched_cell_iteration_s(x);
                    tsched_cell_free(x);
                });
                RATE(intl, min_ms, {
                    tsched_cell *x = NULL;
                    st = ts_cell_estimate_in(&x, &in, N, S, (tsched_plan_space)sp);
                    if (st != TSCHED_OK)
                        die("ts_cell_estimate_in", st);
                    sink = tsched_cell_iteration_s(x);
                    tsched_cell_free(x);
                });
                RATE(ref, min_ms, {
                    ref_cell_eval(&ro, &rin, sp, fav);
                    sink = ro.T;
                });
                printf("%-11s %3u %5u %-10s %4s %7u %10.0f %11.0f %10.0f %11.0f %8.2f %8.1f %9.1e\n", cfg[ci].pool, S,
                       N, SPACE_NAME[sp], ro.feasible ? "yes" : "no", ro.options, pub, intl, stages_rate, ref,
                       ref / intl, ref / pub, d);
            }
            tsched_cell_free(asm_cell);
        }
    }
    printf("%s: every T equals the reference's to %.1e relative (limit 1e-9); int/ref and pub/ref = time per Cell "
           "over the reference's\n", mode, worst_rel);
    /* The public call resolves the pool in the fabric on every call: the same Cell on the
     * 1,280-GPU fabric shows how that part grows with the fabric. */
    {
        tsched_topology *small = make_cluster("crius-table1", 1, NULL);
        double big_rate = 0, small_rate = 0;
        RATE(big_rate, min_ms, {
            tsched_cell *x = estimate(topo, "V100/16", cat, job, 64, 4, TSCHED_PLANS_ASSEMBLED);
            tsched_cell_free(x);
        });
        RATE(small_rate, min_ms, {
            tsched_cell *x = estimate(small, "V100/16", cat, job, 64, 4, TSCHED_PLANS_ASSEMBLED);
            tsched_cell_free(x);
        });
        printf("%s: public tsched_cell_estimate, V100/16 N 64 S 4 assembled: %.0f Cells/s on %u nodes, %.0f Cells/s on "
               "%u nodes\n", mode, small_rate, tsched_topology_num_nodes(small), big_rate, tsched_topology_num_nodes(topo));
        tsched_topology_free(small);
    }
    tsched_job_free(job);
    ts_pools_free(&pools);
    tsched_topology_free(topo);
    tsched_gpu_catalog_free(cat);
    print_peak(mode);
    return 0;
}

/* ---- tuning --------------------------------------------------------------------------------- */

#define NS 7 /* N = 1, 2, 4, ..., 64 */
#define SS 6 /* S = 1, 2, 4, ..., 32 */
#define MAX_CELLS 4096

/* One space against the exhaustive optimum over a set of Cells. Plans are counted by the
 * reference (log10 of the product of per-stage option counts, and the sum of the option
 * counts: the cost model's evaluations), times are sums of wall times. */
typedef struct cmp_stats {
    uint64_t cells, equal;
    double ratio_sum, ratio_max;
    double lp[MAX_CELLS]; /* log10(exhaustive plans / plans of the space), per Cell */
    double opts_a, opts_x, ms_a, ms_x;
} cmp_stats;

static void cmp_add(cmp_stats *c, double T, double Tx, const ref_cell_out *ra, const ref_cell_out *rx, double ms_a,
                    double ms_x)
{
    double r = T / Tx;
    if (c->cells < MAX_CELLS)
        c->lp[c->cells] = rx->log10_plans - ra->log10_plans;
    c->cells++;
    c->equal += rel(T, Tx) <= 1e-12;
    c->ratio_sum += r;
    if (r > c->ratio_max)
        c->ratio_max = r;
    c->opts_a += ra->options;
    c->opts_x += rx->options;
    c->ms_a += ms_a;
    c->ms_x += ms_x;
}

static void cmp_merge(cmp_stats *all, const cmp_stats *c)
{
    for (uint64_t i = 0; i < c->cells && all->cells + i < MAX_CELLS; i++)
        all->lp[all->cells + i] = c->lp[i];
    all->cells += c->cells;
    all->equal += c->equal;
    all->ratio_sum += c->ratio_sum;
    all->ratio_max = fmax(all->ratio_max, c->ratio_max);
    all->opts_a += c->opts_a;
    all->opts_x += c->opts_x;
    all->ms_a += c->ms_a;
    all->ms_x += c->ms_x;
}

static void cmp_print(const char *label, const char *a, cmp_stats *c)
{
    if (!c->cells) {
        printf("%-11s %-9s no feasible Cell\n", label, a);
        return;
    }
    double n = (double)c->cells, gm = 0, mx = 0;
    uint64_t k = c->cells < MAX_CELLS ? c->cells : MAX_CELLS;
    for (uint64_t i = 0; i < k; i++) {
        gm += c->lp[i] / (double)k;
        mx = fmax(mx, c->lp[i]);
    }
    double med = median(c->lp, (size_t)k);
    char tm[32] = "-";
    if (c->ms_a > 0)
        snprintf(tm, sizeof tm, "%.2f", c->ms_x / c->ms_a);
    printf("%-11s %-9s %6llu %7.1f %% %9.5f %9.5f %8.3f %% %9.2f %9.2f %9.3g %9.2f %9s\n", label, a,
           (unsigned long long)c->cells, 100.0 * c->equal / n, c->ratio_sum / n, c->ratio_max,
           100.0 * (2.0 - c->ratio_sum / n), pow(10, gm), pow(10, med), pow(10, mx), c->opts_x / c->opts_a, tm);
}

typedef struct mono_stats {
    uint64_t pairs, fails;
    double worst, sum;
    char where[128];
} mono_stats;

/* The reference's evaluation of Cell c in `space`, checked against c's T. */
static void ref_check(ref_cell_out *ro, const tsched_cell *c, int space, const uint8_t *fav, const tsched_gpu_info *gi,
                      uint32_t G, double U, uint32_t h, uint32_t l, uint32_t gb)
{
    ref_cell_in rin;
    ref_input(&rin, c, gi, G, U, h, l, gb);
    if (ref_cell_eval(ro, &rin, space, fav) != 0)
        die("ref_cell_eval", TSCHED_E_INVALID);
    if (ro->feasible != tsched_cell_feasible(c) ||
        (ro->feasible && rel(ro->T, tsched_cell_iteration_s(c)) > 1e-9)) {
        printf("PROBLEM: %s N %u S %u %s: T %.17g (feasible %d), reference %.17g (feasible %d)\n", tsched_cell_pool(c),
               tsched_cell_gpus(c), tsched_cell_num_stages(c), SPACE_NAME[space], tsched_cell_iteration_s(c),
               tsched_cell_feasible(c), ro->T, ro->feasible);
        problems++;
    }
}

static int run_tuning(void)
{
    const char *mode = "tuning";
    tsched_gpu_catalog *cat = catalog_or_skip(mode);
    if (!cat)
        return 0;
    uint64_t gpus = 0;
    tsched_topology *topo = make_cluster("crius-table1", 1, &gpus);
    char **pools = NULL;
    uint32_t npools = 0;
    tsched_status st = tsched_cell_pools(&pools, &npools, topo);
    if (st != TSCHED_OK)
        die("tsched_cell_pools", st);
    ts_pools ip;
    if ((st = ts_pools_build(&ip, topo)) != TSCHED_OK)
        die("ts_pools_build", st);
    printf("%s: Table 2 BERT (4 sizes x global batch 128/256/512) on the Table 1 pools; N = 1..64 (powers of 2), "
           "S = 1..min(N, layers) (powers of 2)\n", mode);
    printf("%-11s %-9s %6s %9s %9s %9s %10s %9s %9s %9s %9s %9s\n", "pool", "space", "cells", "equal", "mean T/Tx",
           "max T/Tx", "accuracy", "plans gm", "median", "max", "options", "time");
    /* T of each (model, batch, pool, N, S) in the assembled and exhaustive spaces, 0 if infeasible */
    double (*Ta)[3][4][NS][SS] = xcalloc(4, sizeof *Ta), (*Tx)[3][4][NS][SS] = xcalloc(4, sizeof *Tx);
    static cmp_stats all_t, all_a, pt, pa;
    uint64_t infeasible = 0, considered = 0;
    double ms_tuned_space = 0, ms_exh_space = 0;
    for (uint32_t p = 0; p < npools && p < 4; p++) {
        memset(&pt, 0, sizeof pt);
        memset(&pa, 0, sizeof pa);
        uint32_t pi = ts_pools_find(&ip, pools[p]);
        tsched_gpu_info gi;
        gi.size = sizeof gi;
        const char *type = ip.p[pi].gpu_type;
        if ((st = tsched_gpu_catalog_find(&gi, cat, type)) != TSCHED_OK)
            die("tsched_gpu_catalog_find", st);
        for (uint32_t mi = 0; mi < 4; mi++)
            for (uint32_t bi = 0; bi < 3; bi++) {
                const uint32_t h = BERT[mi].hidden, l = BERT[mi].layers, gb = BATCH[bi];
                tsched_job *job = make_job(BERT[mi].name, 8, h, l, gb);
                ts_cell_in in;
                memset(&in, 0, sizeof in);
                in.pool = pools[p];
                in.gpu = ts_catalog_find(cat, type);
                in.G = ip.p[pi].G;
                in.U_gbps = ip.p[pi].U_gbps;
                in.hidden = h;
                in.layers = l;
                in.vocab = VOCAB;
                in.seq = SEQ;
                in.global_batch = gb;
                for (uint32_t ni = 0; ni < NS; ni++)
                    for (uint32_t si = 0; si < SS; si++) {
                        uint32_t N = 1u << ni, S = 1u << si;
                        if (S > N || S > l)
                            continue;
                        considered++;
                        tsched_cell *a = estimate(topo, pools[p], cat, job, N, S, TSCHED_PLANS_ASSEMBLED);
                        if (!tsched_cell_feasible(a)) {
                            infeasible++;
                            tsched_cell_free(a);
                            continue;
                        }
                        tsched_cell *t = NULL;
                        if ((st = tsched_cell_tune(&t, a)) != TSCHED_OK)
                            die("tsched_cell_tune", st);
                        tsched_cell *x = estimate(topo, pools[p], cat, job, N, S, TSCHED_PLANS_EXHAUSTIVE);
                        tsched_cell *ts = estimate(topo, pools[p], cat, job, N, S, TSCHED_PLANS_TUNED);
                        /* Times without the fabric lookup of the public call: tune, and the
                         * internal estimate in the tuned and the exhaustive space, REP calls each. */
                        enum { REP = 8 };
                        double ms[3];
                        for (int k = 0; k < 3; k++) {
                            double t0 = now_ms();
                            for (int r = 0; r < REP; r++) {
                                tsched_cell *y = NULL;
                                st = k == 0 ? tsched_cell_tune(&y, a)
                                            : ts_cell_estimate_in(&y, &in, N, S,
                                                                  k == 1 ? TSCHED_PLANS_TUNED : TSCHED_PLANS_EXHAUSTIVE);
                                if (st != TSCHED_OK)
                                    die("tune / ts_cell_estimate_in", st);
                                sink = tsched_cell_iteration_s(y);
                                tsched_cell_free(y);
                            }
                            ms[k] = (now_ms() - t0) / REP;
                        }
                        ms_tuned_space += ms[1];
                        ms_exh_space += ms[2];
                        double TA = tsched_cell_iteration_s(a), TT = tsched_cell_iteration_s(t),
                               TX = tsched_cell_iteration_s(x);
                        if (!tsched_cell_feasible(t) || !tsched_cell_feasible(x) || TX > TT * (1 + 1e-12) ||
                            TT > TA * (1 + 1e-12) || rel(TT, tsched_cell_iteration_s(ts)) > 1e-12) {
                            printf("PROBLEM: %s %s gb %u N %u S %u: T assembled %.17g tuned %.17g (space %.17g) "
                                   "exhaustive %.17g\n", pools[p], BERT[mi].name, gb, N, S, TA, TT,
                                   tsched_cell_iteration_s(ts), TX);
                            problems++;
                        }
                        uint8_t fav[REF_CELL_MAX_STAGES];
                        favours(fav, a);
                        ref_cell_out ra, rt, rx;
                        ref_check(&ra, a, 0, NULL, &gi, ip.p[pi].G, ip.p[pi].U_gbps, h, l, gb);
                        ref_check(&rt, t, 1, fav, &gi, ip.p[pi].G, ip.p[pi].U_gbps, h, l, gb);
                        ref_check(&rx, x, 2, NULL, &gi, ip.p[pi].G, ip.p[pi].U_gbps, h, l, gb);
                        cmp_add(&pt, TT, TX, &rt, &rx, ms[0], ms[2]);
                        cmp_add(&pa, TA, TX, &ra, &rx, 0, 0);
                        Ta[mi][bi][p][ni][si] = TA;
                        Tx[mi][bi][p][ni][si] = TX;
                        tsched_cell_free(a);
                        tsched_cell_free(t);
                        tsched_cell_free(x);
                        tsched_cell_free(ts);
                    }
                tsched_job_free(job);
            }
        cmp_merge(&all_t, &pt);
        cmp_merge(&all_a, &pa);
        cmp_print(pools[p], "tuned", &pt);
        cmp_print(pools[p], "assembled", &pa);
    }
    cmp_print("all pools", "tuned", &all_t);
    cmp_print("all pools", "assembled", &all_a);
    printf("%s: %llu Cells considered, %llu infeasible (out of memory in every plan, or N not a multiple of the node "
           "size); every T of the three spaces equals the reference's (1e-9) unless a PROBLEM line says otherwise\n",
           mode, (unsigned long long)considered, (unsigned long long)infeasible);
    printf("%s: equal = share of Cells whose T equals the exhaustive optimum (1e-12); accuracy = the paper's "
           "1 - (T - Tx) / Tx, mean; plans = exhaustive plans / plans of the space per Cell (geometric mean, median, "
           "max); options = per-stage options evaluated, exhaustive / space (ratio of the sums); time = exhaustive "
           "estimate (ts_cell_estimate_in) / tsched_cell_tune, sums of the per-Cell wall times\n", mode);
    printf("%s: ts_cell_estimate_in summed over the feasible Cells: tuned space %.2f ms, exhaustive space %.2f ms "
           "(ratio %.2f); tsched_cell_tune %.2f ms\n", mode, ms_tuned_space, ms_exh_space,
           ms_exh_space / ms_tuned_space, all_t.ms_a);

    /* Per-Cell monotonicity in N: same job, pool and S, N and 2N both feasible. */
    mono_stats ms[2];
    memset(ms, 0, sizeof ms);
    for (int k = 0; k < 2; k++)
        for (uint32_t mi = 0; mi < 4; mi++)
            for (uint32_t bi = 0; bi < 3; bi++)
                for (uint32_t p = 0; p < npools && p < 4; p++)
                    for (uint32_t si = 0; si < SS; si++)
                        for (uint32_t ni = 0; ni + 1 < NS; ni++) {
                            double T1 = (k ? Tx : Ta)[mi][bi][p][ni][si], T2 = (k ? Tx : Ta)[mi][bi][p][ni + 1][si];
                            if (T1 <= 0 || T2 <= 0)
                                continue;
                            ms[k].pairs++;
                            if (T2 > T1 * (1 + 1e-12)) {
                                double slow = T2 / T1 - 1;
                                ms[k].fails++;
                                ms[k].sum += slow;
                                if (slow > ms[k].worst) {
                                    ms[k].worst = slow;
                                    snprintf(ms[k].where, sizeof ms[k].where, "%s gb %u on %s, S %u, N %u -> %u",
                                             BERT[mi].name, BATCH[bi], pools[p], 1u << si, 1u << ni, 2u << ni);
                                }
                            }
                        }
    for (int k = 0; k < 2; k++)
        printf("%s: per-Cell monotonicity (%s): %llu pairs (N, 2N) feasible at the same S; 2N slower in %llu "
               "(%.1f %%), by %.2f %% on average and %.2f %% at most (%s)\n",
               mode, k ? "exhaustive" : "assembled", (unsigned long long)ms[k].pairs, (unsigned long long)ms[k].fails,
               ms[k].pairs ? 100.0 * ms[k].fails / ms[k].pairs : 0.0, ms[k].fails ? 100 * ms[k].sum / ms[k].fails : 0.0,
               100 * ms[k].worst, ms[k].fails ? ms[k].where : "-");
    free(Ta);
    free(Tx);
    ts_pools_free(&ip);
    tsched_free(pools);
    tsched_topology_free(topo);
    tsched_gpu_catalog_free(cat);
    print_peak(mode);
    return 0;
}

/* ---- driver ----------------------------------------------------------------------------------- */

static const char *MODES[4] = {"schedule", "scaled", "estimate", "tuning"};

static int run_mode(const char *m)
{
    if (strcmp(m, "schedule") == 0)
        return run_schedule("schedule", 1, TARGET_TABLE1_MS);
    if (strcmp(m, "scaled") == 0)
        return run_schedule("scaled", 7.8125, TARGET_SCALED_MS);
    if (strcmp(m, "estimate") == 0)
        return run_estimate();
    if (strcmp(m, "tuning") == 0)
        return run_tuning();
    fprintf(stderr, BENCH_NAME ": unknown mode \"%s\" (schedule, scaled, estimate, tuning)\n", m);
    return 2;
}

int main(int argc, char **argv)
{
    const char *mode = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--strict") == 0)
            strict = 1;
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs_opt = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            njobs = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--max-depth") == 0 && i + 1 < argc)
            max_depth = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--mode schedule|scaled|estimate|tuning] [--quick] [--strict] [--runs N] "
                            "[--seed N] [--jobs N] [--max-depth D]\n", argv[0]);
            return 2;
        }
    }
    if (max_depth > 16)
        max_depth = 16;
    if (njobs == 0)
        njobs = 1;
    if (mode) {
        int rc = run_mode(mode);
        if (rc)
            return rc;
        if (problems)
            printf("%s: %d PROBLEM(s)\n", mode, problems);
        return problems || (strict && misses) ? 1 : 0;
    }
    /* Every mode in a process of its own: peak memory per mode. */
    int status = 0;
    for (int k = 0; k < 4; k++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror(BENCH_NAME ": fork");
            return 1;
        }
        if (pid == 0) {
            char **av = xcalloc((size_t)argc + 3, sizeof *av);
            av[0] = argv[0];
            av[1] = "--mode";
            av[2] = (char *)MODES[k];
            for (int i = 1; i < argc; i++)
                av[i + 2] = argv[i];
            execv("/proc/self/exe", av);
            perror(BENCH_NAME ": execv");
            _exit(127);
        }
        int ws = 0;
        if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            printf("mode %s FAILED\n", MODES[k]);
            status = 1;
        }
    }
    return status;
}
