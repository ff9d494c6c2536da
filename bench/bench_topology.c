/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Benchmark of the topology module at production scale, through the public API only:
 * generating and indexing a 16,384-node clos3 fabric, saving and loading it as JSON,
 * path counting and path listing between random NIC pairs, peak memory, and state changes
 * (2,304 switch and trunk downs on a 65,536-node clos3, one call each and as one batch,
 * against one full index rebuild). Not a test:
 * meson registers it with benchmark(), and `meson test` never runs it. See
 * doc/PERFORMANCE.md for the method and the latest numbers.
 *
 * Usage: bench_topology [--quick] [--json] [--strict] [--state] [--runs N] [--queries N] [--seed N]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "topo-sched/topo-sched.h"

#define BENCH_NAME "bench_topology"
#include "bench_util.h"

/* Targets of the full-size run (doc/PERFORMANCE.md). */
#define TARGET_GENERATE_MS 50.0
#define TARGET_LOAD_MS 300.0
#define TARGET_COUNT_QPS 10e6
#define TARGET_PEAK_MB 256.0
#define TARGET_STATE_MS 300.0 /* 2,304 downs on the 65,536-node fabric, one call each or one batch */
#define STATE_CHANGES 2304u

#define PATH_BUF 64

typedef struct options {
    int quick, json, strict, state_only;
    unsigned runs;      /* repetitions of each timed phase; 0 = mode default */
    unsigned long queries;
    uint64_t seed;
} options;

typedef struct queries {
    size_t n;
    uint32_t *src, *src_nic, *dst, *dst_nic;
} queries;

static int g_misses;

static double min_of(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* Results are kept so that the JSON lines can follow the table instead of breaking it. */
#define MAX_RESULTS 32
typedef struct result {
    const char *metric, *unit, *verdict;
    double value, target;
    int higher_better;
} result;
static result g_results[MAX_RESULTS];
static size_t g_nresults;

/* One row of the table. `target` <= 0 means no target; `higher_better` says which side
 * of the target passes. Quick runs use smaller sizes, so their numbers are not held
 * against the full-size targets. */
static void report(const options *o, const char *metric, double value, const char *unit, double target,
                   int higher_better)
{
    const char *verdict = "";
    if (target > 0 && !o->quick) {
        int pass = higher_better ? value > target : value < target;
        verdict = pass ? "PASS" : "MISS";
        g_misses += !pass;
    } else if (target > 0) {
        verdict = "n/a (quick)";
    }
    char tgt[48] = "";
    if (target > 0)
        snprintf(tgt, sizeof tgt, "%s %g", higher_better ? ">" : "<", target);
    printf("%-32s %12.2f  %-8s %-10s %s\n", metric, value, unit, tgt, verdict);
    if (g_nresults < MAX_RESULTS)
        g_results[g_nresults++] = (result){metric, unit, verdict, value, target, higher_better};
}

static void print_json(const options *o)
{
    for (size_t i = 0; i < g_nresults; i++) {
        const result *r = &g_results[i];
        printf("{\"bench\": \"topology\", \"quick\": %s, \"metric\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"",
               o->quick ? "true" : "false", r->metric, r->value, r->unit);
        if (r->target > 0)
            printf(", \"target\": \"%s %g\", \"result\": \"%s\"", r->higher_better ? ">" : "<", r->target,
                   o->quick ? "n/a" : r->verdict);
        printf("}\n");
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_topology [--quick] [--json] [--strict] [--state] [--runs N] [--queries N] [--seed N]\n"
               "  --quick      small fabric and few queries (a smoke run well under a second)\n"
               "  --json       also print one JSON object per metric\n"
               "  --strict     exit 1 if a full-size target is missed\n"
               "  --state      only the state changes (2,304 downs on a 65,536-node clos3)\n"
               "  --runs N     repetitions of each timed phase (default 5, quick 3)\n"
               "  --queries N  random NIC pairs (default 1000000, quick 100000)\n"
               "  --seed N     seed of the query generator (default 1)\n");
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
    for (int i = 1; i < argc; i++) {
        unsigned long v = 0;
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = 1;
        } else if (strcmp(a, "--state") == 0) {
            o->state_only = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (i + 1 < argc && strcmp(a, "--runs") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 && v <= 1000) {
            o->runs = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--queries") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= 100000000ul) {
            o->queries = v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--seed") == 0 && parse_ulong(argv[i + 1], &v)) {
            o->seed = v;
            i++;
        } else {
            fprintf(stderr, "bench_topology: bad argument \"%s\"\n", a);
            usage(stderr);
            exit(2);
        }
    }
    if (!o->runs)
        o->runs = o->quick ? 3 : 5;
    if (!o->queries)
        o->queries = o->quick ? 100000ul : 1000000ul;
}

static void fabric_params(tsched_gen_params *p, int quick)
{
    tsched_topology_params_init(p, TSCHED_GEN_CLOS3);
    p->name = "bench-clos3";
    p->pods = quick ? 4 : 16;
    p->leaves_per_pod = quick ? 8 : 64;
    p->spines_per_pod = quick ? 4 : 16;
    p->cores = quick ? 8 : 64;
    p->nodes_per_leaf = quick ? 8 : 16;
    p->gpus_per_node = 8;
    p->nic_gbps = 400;
}

static void make_queries(queries *q, size_t n, const tsched_topology *t, uint64_t seed)
{
    q->n = n;
    q->src = malloc(n * sizeof *q->src);
    q->src_nic = malloc(n * sizeof *q->src_nic);
    q->dst = malloc(n * sizeof *q->dst);
    q->dst_nic = malloc(n * sizeof *q->dst_nic);
    if (!q->src || !q->src_nic || !q->dst || !q->dst_nic) {
        fprintf(stderr, "bench_topology: out of memory for %zu queries\n", n);
        exit(1);
    }
    uint32_t nodes = tsched_topology_num_nodes(t);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        q->src[i] = rng_below(&s, nodes);
        q->src_nic[i] = rng_below(&s, tsched_topology_node_nics(t, q->src[i]));
        q->dst[i] = rng_below(&s, nodes);
        q->dst_nic[i] = rng_below(&s, tsched_topology_node_nics(t, q->dst[i]));
    }
}

static void free_queries(queries *q)
{
    free(q->src);
    free(q->src_nic);
    free(q->dst);
    free(q->dst_nic);
}

/* Writes `text` to a fresh temporary file and returns its path (caller unlinks). */
static char *write_temp(const char *text, size_t len)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *path = malloc(n);
    if (!path)
        exit(1);
    snprintf(path, n, "%s/bench_topology_XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "bench_topology: cannot create a file in %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    FILE *f = fdopen(fd, "w");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "bench_topology: cannot write %s: %s\n", path, strerror(errno));
        unlink(path);
        exit(1);
    }
    return path;
}

/* ---- state changes ---- */

static void state_params(tsched_gen_params *p, int quick)
{
    tsched_topology_params_init(p, TSCHED_GEN_CLOS3);
    p->name = "bench-state";
    p->pods = quick ? 8 : 64; /* full: 65,536 nodes, 4,096 leaves, 1,024 spines, 64 cores */
    p->leaves_per_pod = quick ? 8 : 64;
    p->spines_per_pod = quick ? 4 : 16;
    p->cores = quick ? 8 : 64;
    p->nodes_per_leaf = quick ? 4 : 16;
    p->gpus_per_node = 8;
    p->nic_gbps = 400;
}

/* The changes of one failure event: `n` distinct switches (spines, cores) and trunks drawn
 * with the seed, one in eight a switch, as names (`spine3`, `leaf9~spine2`). */
static char **state_names(const tsched_topology *t, size_t n, uint64_t seed)
{
    uint32_t ns = tsched_topology_num_switches(t), nt = tsched_topology_num_trunks(t);
    uint32_t first = tsched_topology_num_tier(t, 0); /* leaves come first: spines and cores follow */
    uint8_t *used_sw = xcalloc(ns, 1), *used_tr = xcalloc(nt, 1);
    char **names = xcalloc(n, sizeof *names);
    uint64_t s = rng_stream(7, seed);
    for (size_t i = 0; i < n;) {
        char buf[128];
        if (i % 8 == 0) {
            uint32_t sw = first + rng_below(&s, ns - first);
            if (used_sw[sw])
                continue;
            used_sw[sw] = 1;
            snprintf(buf, sizeof buf, "%s", tsched_topology_switch_name(t, sw));
        } else {
            uint32_t r = rng_below(&s, nt);
            if (used_tr[r])
                continue;
            used_tr[r] = 1;
            snprintf(buf, sizeof buf, "%s~%s", tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, r)),
                     tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, r)));
        }
        names[i] = strdup(buf);
        if (!names[i])
            die("strdup", TSCHED_E_NOMEM);
        i++;
    }
    free(used_sw);
    free(used_tr);
    return names;
}

/* The first count after a burst of changes pays for the one rebuild of the index. */
static uint64_t first_count(const tsched_topology *t)
{
    uint64_t c = 0;
    tsched_status st = tsched_topology_leaf_path_count(&c, t, tsched_topology_tier_switch(t, 0, 0),
                                                       tsched_topology_tier_switch(t, 0, tsched_topology_num_tier(t, 0) - 1));
    if (st != TSCHED_OK)
        die("tsched_topology_leaf_path_count", st);
    return c;
}

static void bench_state(const options *o, double *samples)
{
    tsched_gen_params p;
    state_params(&p, o->quick);
    tsched_topology *t = NULL, *f = NULL;
    tsched_status st;
    if ((st = tsched_topology_generate(&t, &p)) != TSCHED_OK)
        die("tsched_topology_generate", st);
    size_t n = o->quick ? 64 : STATE_CHANGES;
    char **names = state_names(t, n, o->seed);
    int *downs = xcalloc(n, sizeof *downs), *ups = xcalloc(n, sizeof *ups);
    for (size_t i = 0; i < n; i++)
        ups[i] = 1;
    printf("state: clos3 pods=%u leaves_per_pod=%u spines_per_pod=%u cores=%u nodes_per_leaf=%u -> %u nodes, "
           "%u switches, %u trunks; %zu switch and trunk downs\n",
           p.pods, p.leaves_per_pod, p.spines_per_pod, p.cores, p.nodes_per_leaf, tsched_topology_num_nodes(t),
           tsched_topology_num_switches(t), tsched_topology_num_trunks(t), n);
    first_count(t);

    /* Reference: one full rebuild of the path index (what every call cost before), timed as
     * one trunk down and the count that follows. */
    for (unsigned r = 0; r < o->runs; r++) {
        double t0 = now_ms();
        if ((st = tsched_topology_set_trunk_up(t, r % 2, 0)) != TSCHED_OK)
            die("tsched_topology_set_trunk_up", st);
        first_count(t);
        samples[r] = now_ms() - t0;
        if ((st = tsched_topology_set_trunk_up(t, r % 2, 1)) != TSCHED_OK)
            die("tsched_topology_set_trunk_up", st);
        first_count(t);
    }
    double rebuild_ms = median(samples, o->runs);
    report(o, "state: one index rebuild", rebuild_ms, "ms", 0, 0);

    /* Reference: the name lookups alone, in a tight loop over the same names. */
    for (unsigned r = 0; r < o->runs; r++) {
        uint64_t sink = 0;
        double t0 = now_ms();
        for (size_t i = 0; i < n; i++) {
            const char *tilde = strchr(names[i], '~');
            if (!tilde) {
                sink += tsched_topology_find_switch(t, names[i]);
            } else {
                char a[128];
                snprintf(a, sizeof a, "%.*s", (int)(tilde - names[i]), names[i]);
                sink += tsched_topology_find_trunk(t, tsched_topology_find_switch(t, a),
                                                   tsched_topology_find_switch(t, tilde + 1));
            }
        }
        samples[r] = now_ms() - t0;
        if (sink == 0)
            printf("(no lookups)\n");
    }
    report(o, "state: name lookups only", median(samples, o->runs), "ms", 0, 0);

    /* One call each, no query between; then the first count. */
    double first_ms[1000];
    uint64_t down_count = 0;
    for (unsigned r = 0; r < o->runs; r++) {
        double t0 = now_ms();
        for (size_t i = 0; i < n; i++)
            if ((st = tsched_topology_set_up(t, names[i], 0)) != TSCHED_OK)
                die("tsched_topology_set_up", st);
        double t1 = now_ms();
        down_count = first_count(t);
        first_ms[r] = now_ms() - t1;
        samples[r] = t1 - t0;
        if ((st = tsched_topology_set_up_batch(t, (const char *const *)names, ups, n)) != TSCHED_OK)
            die("tsched_topology_set_up_batch", st);
        first_count(t);
    }
    double one_ms = median(samples, o->runs), one_first = median(first_ms, o->runs);
    report(o, "state: downs, one call each", one_ms, "ms", 0, 0);
    report(o, "state: one call each + 1st count", one_ms + one_first, "ms", TARGET_STATE_MS, 0);

    /* The same event as one batch. */
    for (unsigned r = 0; r < o->runs; r++) {
        double t0 = now_ms();
        if ((st = tsched_topology_set_up_batch(t, (const char *const *)names, downs, n)) != TSCHED_OK)
            die("tsched_topology_set_up_batch", st);
        double t1 = now_ms();
        if (first_count(t) != down_count) {
            fprintf(stderr, "bench_topology: the batch and the single calls disagree\n");
            exit(1);
        }
        first_ms[r] = now_ms() - t1;
        samples[r] = t1 - t0;
        if (r + 1 < o->runs) {
            if ((st = tsched_topology_set_up_batch(t, (const char *const *)names, ups, n)) != TSCHED_OK)
                die("tsched_topology_set_up_batch", st);
            first_count(t);
        }
    }
    double batch_ms = median(samples, o->runs), batch_first = median(first_ms, o->runs);
    report(o, "state: downs, one batch", batch_ms, "ms", 0, 0);
    report(o, "state: one batch + 1st count", batch_ms + batch_first, "ms", TARGET_STATE_MS, 0);
    report(o, "state: before, one call each (est)", rebuild_ms * (double)n, "ms", 0, 0);

    /* The answers after the event equal a fresh fabric given the same downs (not timed). */
    if ((st = tsched_topology_generate(&f, &p)) != TSCHED_OK)
        die("tsched_topology_generate", st);
    for (size_t i = n; i-- > 0;)
        if ((st = tsched_topology_set_up(f, names[i], 0)) != TSCHED_OK)
            die("tsched_topology_set_up", st);
    uint32_t nl = tsched_topology_num_tier(t, 0);
    uint64_t s = rng_stream(8, o->seed);
    for (unsigned k = 0; k < 20000; k++) {
        uint32_t a = tsched_topology_tier_switch(t, 0, rng_below(&s, nl)), b = tsched_topology_tier_switch(t, 0, rng_below(&s, nl));
        uint64_t ct = 0, cf = 0;
        if ((st = tsched_topology_leaf_path_count(&ct, t, a, b)) != TSCHED_OK ||
            (st = tsched_topology_leaf_path_count(&cf, f, a, b)) != TSCHED_OK)
            die("tsched_topology_leaf_path_count", st);
        if (ct != cf) {
            fprintf(stderr, "bench_topology: after the event, leaves %u and %u: %llu paths, a fresh fabric %llu\n", a,
                    b, (unsigned long long)ct, (unsigned long long)cf);
            exit(1);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(downs);
    free(ups);
    tsched_topology_free(f);
    tsched_topology_free(t);
}

int main(int argc, char **argv)
{
    options o;
    parse_args(&o, argc, argv);
    double *samples = calloc(o.runs, sizeof *samples);
    if (!samples)
        return 1;
    tsched_status st;

    tsched_gen_params p;
    fabric_params(&p, o.quick);
    uint64_t nodes = (uint64_t)p.pods * p.leaves_per_pod * p.nodes_per_leaf;
    printf("bench_topology %s: clos3 pods=%u leaves_per_pod=%u spines_per_pod=%u cores=%u nodes_per_leaf=%u "
           "gpus=%u nic=%g -> %llu nodes, %llu GPUs; %u runs, %lu queries, seed %llu%s\n",
           tsched_version(), p.pods, p.leaves_per_pod, p.spines_per_pod, p.cores, p.nodes_per_leaf, p.gpus_per_node,
           p.nic_gbps, (unsigned long long)nodes, (unsigned long long)nodes * p.gpus_per_node, o.runs, o.queries,
           (unsigned long long)o.seed, o.quick ? " (quick)" : "");
    printf("%-32s %12s  %-8s %-10s %s\n", "metric", "value", "unit", "target", "result");
    if (o.state_only) {
        bench_state(&o, samples);
        if (!o.quick)
            printf("targets: %s\n", g_misses ? "MISSED (see the table)" : "all PASS");
        if (o.json)
            print_json(&o);
        free(samples);
        return o.strict && g_misses ? 1 : 0;
    }

    /* 1. Generate and index: each run builds a fresh handle; the last one is kept. */
    tsched_topology *t = NULL;
    for (unsigned r = 0; r < o.runs; r++) {
        tsched_topology_free(t);
        t = NULL;
        double t0 = now_ms();
        if ((st = tsched_topology_generate(&t, &p)) != TSCHED_OK)
            die("tsched_topology_generate", st);
        samples[r] = now_ms() - t0;
    }
    report(&o, "generate+index (min)", min_of(samples, o.runs), "ms", 0, 0);
    report(&o, "generate+index (median)", median(samples, o.runs), "ms", TARGET_GENERATE_MS, 0);

    /* 2. Save to JSON (in memory), write a file, load it back. */
    char *json = NULL;
    for (unsigned r = 0; r < o.runs; r++) {
        tsched_free(json);
        json = NULL;
        double t0 = now_ms();
        if ((st = tsched_topology_to_json(&json, t)) != TSCHED_OK)
            die("tsched_topology_to_json", st);
        samples[r] = now_ms() - t0;
    }
    size_t json_len = strlen(json);
    report(&o, "to_json (median)", median(samples, o.runs), "ms", 0, 0);
    report(&o, "to_json size", (double)json_len / (1024.0 * 1024.0), "MiB", 0, 0);
    char *path = write_temp(json, json_len);
    tsched_free(json);
    json = NULL;
    for (unsigned r = 0; r < o.runs; r++) {
        tsched_topology *u = NULL;
        double t0 = now_ms();
        if ((st = tsched_topology_load_file(&u, path)) != TSCHED_OK) {
            unlink(path);
            die("tsched_topology_load_file", st);
        }
        samples[r] = now_ms() - t0;
        /* A load that lost elements would be fast for the wrong reason. */
        if (tsched_topology_num_nodes(u) != tsched_topology_num_nodes(t) ||
            tsched_topology_num_trunks(u) != tsched_topology_num_trunks(t) ||
            tsched_topology_num_switches(u) != tsched_topology_num_switches(t)) {
            fprintf(stderr, "bench_topology: the loaded fabric differs from the saved one\n");
            unlink(path);
            return 1;
        }
        tsched_topology_free(u);
    }
    unlink(path);
    free(path);
    report(&o, "load_file (median)", median(samples, o.runs), "ms", TARGET_LOAD_MS, 0);

    /* 3. Random NIC pairs, generated before any timing so only the library is measured. */
    queries q;
    make_queries(&q, o.queries, t, o.seed);
    uint64_t count_sum = 0;
    for (unsigned r = 0; r < o.runs; r++) {
        uint64_t sum = 0;
        double t0 = now_ms();
        for (size_t i = 0; i < q.n; i++) {
            uint64_t c;
            st = tsched_topology_path_count(&c, t, q.src[i], q.src_nic[i], q.dst[i], q.dst_nic[i]);
            if (st != TSCHED_OK)
                die("tsched_topology_path_count", st);
            sum += c;
        }
        samples[r] = now_ms() - t0;
        if (r > 0 && sum != count_sum) {
            fprintf(stderr, "bench_topology: path counts changed between runs\n");
            return 1;
        }
        count_sum = sum;
    }
    double count_ms = median(samples, o.runs);
    report(&o, "path_count", (double)q.n / (count_ms / 1e3) / 1e6, "M q/s", TARGET_COUNT_QPS / 1e6, 1);
    report(&o, "path_count per query", count_ms * 1e6 / (double)q.n, "ns", 0, 0);

    tsched_path *buf = malloc(PATH_BUF * sizeof *buf);
    if (!buf)
        return 1;
    buf[0].size = sizeof buf[0];
    uint64_t list_sum = 0, list_check = 0;
    for (unsigned r = 0; r < o.runs; r++) {
        uint64_t sum = 0, check = 0;
        double t0 = now_ms();
        for (size_t i = 0; i < q.n; i++) {
            size_t n;
            st = tsched_topology_paths(buf, PATH_BUF, &n, t, q.src[i], q.src_nic[i], q.dst[i], q.dst_nic[i]);
            if (st != TSCHED_OK)
                die("tsched_topology_paths", st);
            sum += n;
            /* Touch the output so the listing cannot be skipped. */
            if (n)
                check += buf[n - 1].switches[buf[n - 1].nswitches / 2];
        }
        samples[r] = now_ms() - t0;
        list_sum = sum;
        list_check = check;
    }
    double list_ms = median(samples, o.runs);
    report(&o, "paths (buffer of 64)", (double)q.n / (list_ms / 1e3) / 1e3, "k q/s", 0, 0);
    report(&o, "paths (buffer of 64) listed", (double)list_sum / (list_ms / 1e3) / 1e6, "M path/s", 0, 0);
    report(&o, "paths per query (mean)", (double)list_sum / (double)q.n, "paths", 0, 0);
    report(&o, "paths per query (time)", list_ms * 1e3 / (double)q.n, "us", 0, 0);
    if (list_sum != count_sum) {
        fprintf(stderr, "bench_topology: paths listed %llu != paths counted %llu\n", (unsigned long long)list_sum,
                (unsigned long long)count_sum);
        return 1;
    }
    free(buf);
    free_queries(&q);

    /* 4. Peak memory of the whole run: generated and loaded fabrics, JSON text, queries. */
    report(&o, "peak memory (ru_maxrss)", peak_rss_mb(), "MiB", TARGET_PEAK_MB, 0);
    tsched_topology_free(t);
    t = NULL;

    /* 5. State changes on a larger fabric. */
    bench_state(&o, samples);
    printf("checksum paths=%llu switches=%llu\n", (unsigned long long)count_sum, (unsigned long long)list_check);
    if (!o.quick)
        printf("targets: %s\n", g_misses ? "MISSED (see the table)" : "all PASS");
    if (o.json)
        print_json(&o);

    free(samples);
    return o.strict && g_misses ? 1 : 0;
}
