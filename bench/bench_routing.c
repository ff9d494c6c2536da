/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Benchmark of the routing module through the public API only ("Routing for Large ML
 * Models", seed 004, §5):
 *
 *  1. The paper's flow sets (dcn-simulators traffic_pairs, converted by
 *     bench/convert_dcn.py into DIR/dcn-fabric.json and DIR/dcn-*.flows.json) on its
 *     64-ToR x 32-spine fat tree: greedy, ecmp (seed 1), balanced-ecmp (seed 1) and ilp,
 *     max_link_flows and min_rate_gbps per folder, ILP status and time.
 *  2. The fault experiment (§5.4) on the two largest flow sets: 1, 4 and 8 spines down
 *     (seeded), tsched_reroute from the intact greedy answer vs fresh greedy, ecmp and ilp.
 *  3. Speed on the same fabric shape (leaf_spine 64 x 32, 32 one-NIC nodes per leaf,
 *     100 Gbit/s, one link per trunk): greedy on 1,500 random flows (target < 0.2 ms) and
 *     on 1,000,000 (target < 200 ms, one thread), 10k and 100k for the scaling, ecmp and
 *     balanced-ecmp alike, the share of the max-min rates, threads 1/2/4 on a traffic with
 *     64 independent components and on random traffic, the ILP on 1,500 flows (intact, and
 *     with one trunk down so that it goes to GLPK), and memory. Only tsched_route / tsched_reroute / tsched_rates_maxmin are timed; flow
 *     sets are built before. The cold 1,500-flow call is set against the plain reference
 *     (bench/ref_greedy.c) in the same run, and against the first call of fresh processes
 *     (this program re-run with --first-call or --first-call-indexed [--seed N], which print
 *     that call's ms and nothing else).
 *
 * Every answer is checked (outside the timing) against the fabric: each path joins its
 * flow's NIC leaves over up switches and trunks, the per-link flow counts and the largest
 * equal a recount, the rates are feasible and max-min fair (every flow has a saturated
 * resource on which no flow gets more), the smallest rate is reported right, the ILP is
 * never worse than greedy, a threaded greedy gives the sequential answer, and a reroute
 * keeps every surviving path. A failed check prints a PROBLEM line and makes the exit
 * status 1. Not a test: meson registers it with benchmark(), and `meson test` never runs
 * it. See doc/PERFORMANCE.md for the method and the latest numbers.
 *
 *  4. One flow on leaf_spine fabrics of 65,536 and 262,144 nodes x 256 NICs: wall time and
 *     the peak resident set the call adds (routing memory follows the flows, not the fabric).
 *
 * --greedy-ratio runs only issue 10's targets 1 and 2: greedy paths only, a cold
 * tsched_route per run, against bench/ref_greedy.c on the same flows, runs alternating, from
 * 1,000 to 10,000,000 flows (every library path checked against the reference's spine),
 * then the first call of fresh processes at 1,500 flows. It starts with a self-check on
 * seeded random small fabrics (issue 26 item 5: the library's paths are the reference's).
 *
 * Usage: bench_routing [--quick] [--huge-only | --greedy-ratio] [--json] [--strict] [--dcn DIR] [--runs N]
 *                      [--time-limit-ms N] [--fault-seeds N] [--seed N] [--flows N]
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "topo-sched/topo-sched.h"

#define BENCH_NAME "bench_routing"
#include "bench_util.h"
#include "ref_greedy.h"

#ifndef BENCH_DCN_DEFAULT
#define BENCH_DCN_DEFAULT ""
#endif

/* Targets (doc/PERFORMANCE.md): wall time of tsched_route, greedy, one thread. */
#define TARGET_SMALL_MS 0.2     /* 1,500 flows */
#define TARGET_LARGE_MS 200.0   /* 1,000,000 flows */

#define LEAVES 64
#define SPINES 32
#define NODES_PER_LEAF 32
#define NIC_GBPS 100.0
#define MAX_FILES 64
#define MAX_FAULT_SEEDS 16
#define REL_EPS 1e-9

static const uint32_t FAULT_SPINES[] = {1, 4, 8};
#define NFAULT (sizeof FAULT_SPINES / sizeof FAULT_SPINES[0])

static const tsched_route_algo ALGOS[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP, TSCHED_ROUTE_BALANCED_ECMP,
                                          TSCHED_ROUTE_ILP};
#define NALGO (sizeof ALGOS / sizeof ALGOS[0])

typedef struct options {
    int quick, json, strict, huge_only, greedy_ratio;
    const char *dcn;
    int dcn_given;
    unsigned runs;          /* timed runs of the 1M cases; 0 = mode default */
    uint32_t time_limit_ms; /* ilp */
    unsigned fault_seeds;
    uint64_t seed;
    uint32_t flows;         /* --greedy-ratio at this one size only (no first calls); 0 = all */
} options;

static int g_problems, g_misses;
static const char *g_argv0; /* to time a first call in a fresh process */

/* ---- small helpers (as in bench_topology.c) ------------------------------------------- */

/* Resident set now (Linux /proc/self/statm), MiB; -1 if unknown. */
static double current_rss_mb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    int ok = f && fscanf(f, "%lu %lu", &size, &resident) == 2;
    if (f)
        fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? (double)resident * (double)page / (1024.0 * 1024.0) : -1;
}

static void problem(const char *fmt, ...)
{
    va_list ap;
    g_problems++;
    printf("PROBLEM ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* JSON lines are collected and printed after the tables. */
static char *g_json;
static size_t g_json_len, g_json_cap;

static void jsonf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (g_json_len + (size_t)n + 2 > g_json_cap) {
        size_t cap = g_json_cap ? g_json_cap : 4096;
        while (cap < g_json_len + (size_t)n + 2)
            cap *= 2;
        char *p = realloc(g_json, cap);
        if (!p) {
            fprintf(stderr, "bench_routing: out of memory\n");
            exit(1);
        }
        g_json = p;
        g_json_cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(g_json + g_json_len, g_json_cap - g_json_len, fmt, ap);
    va_end(ap);
    g_json_len += (size_t)n;
    g_json[g_json_len++] = '\n';
    g_json[g_json_len] = 0;
}

/* ---- fabric ------------------------------------------------------------------------------ */

static tsched_topology *make_fabric(void)
{
    return bench_leaf_spine("bench-leaf-spine-64x32", LEAVES, SPINES, NODES_PER_LEAF, NIC_GBPS);
}

/* The loaded dcn fabric must be the paper's: 64 leaves x 32 spines, every leaf on every
 * spine by one 100 Gbit/s link, node i (server i) one 100 Gbit/s NIC under leaf i / 32. */
static int check_dcn_fabric(const tsched_topology *t)
{
    int ok = tsched_topology_num_tier(t, 0) == LEAVES && tsched_topology_num_tier(t, 1) == SPINES &&
             tsched_topology_num_tier(t, 2) == 0 && tsched_topology_num_nodes(t) == LEAVES * NODES_PER_LEAF &&
             tsched_topology_num_trunks(t) == LEAVES * SPINES;
    for (uint32_t l = 0; ok && l < LEAVES; l++)
        for (uint32_t s = 0; ok && s < SPINES; s++) {
            uint32_t tr = tsched_topology_find_trunk(t, tsched_topology_tier_switch(t, 0, l),
                                                     tsched_topology_tier_switch(t, 1, s));
            ok = tr != TSCHED_NONE && tsched_topology_trunk_links(t, tr) == 1 &&
                 tsched_topology_trunk_gbps(t, tr) == NIC_GBPS;
        }
    for (uint32_t i = 0; ok && i < tsched_topology_num_nodes(t); i++) {
        char name[32];
        snprintf(name, sizeof name, "node%u", i);
        ok = tsched_topology_find_node(t, name) == i && tsched_topology_node_nics(t, i) == 1 &&
             tsched_topology_node_nic_gbps(t, i) == NIC_GBPS &&
             tsched_topology_node_leaf(t, i) == tsched_topology_tier_switch(t, 0, i / NODES_PER_LEAF);
    }
    return ok;
}

/* ---- flow sets ------------------------------------------------------------------------- */

enum { TRAFFIC_RANDOM = 0, TRAFFIC_LEAFPERM = 1 };

/* n flows on the generated fabric: random = source and destination nodes uniform (distinct);
 * leafperm = source uniform, destination uniform under the next leaf (leaf a -> a + 1 mod
 * 64): 64 leaf pairs that share no link, i.e. 64 independent components for greedy. */
static tsched_flows *make_flows(const tsched_topology *t, uint32_t n, int traffic, uint64_t seed)
{
    tsched_flows *f = NULL;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        die("tsched_flows_new", st);
    uint32_t nodes = tsched_topology_num_nodes(t);
    uint64_t s = rng_stream(traffic + 1, seed);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t src = rng_below(&s, nodes), dst;
        if (traffic == TRAFFIC_RANDOM) {
            dst = rng_below(&s, nodes - 1);
            dst += dst >= src;
        } else {
            uint32_t leaf = (src / NODES_PER_LEAF + 1) % LEAVES;
            dst = leaf * NODES_PER_LEAF + rng_below(&s, NODES_PER_LEAF);
        }
        if ((st = tsched_flows_add(NULL, f, NULL, src, 0, dst, 0, 1.0)) != TSCHED_OK)
            die("tsched_flows_add", st);
    }
    return f;
}

/* ---- checks ---------------------------------------------------------------------------- */

/* Resource ids of the rate check: directed links 0..L-1, then NIC i's uplink L + i and its
 * downlink L + N + i (NIC i = node * max_nics + nic; here one NIC per node). */
typedef struct checker {
    uint32_t nlinks, nnics, max_nics;
    double *cap, *sum, *maxrate;
    uint32_t *count;
} checker;

static void checker_init(checker *c, const tsched_topology *t)
{
    c->nlinks = 2 * tsched_topology_num_trunks(t);
    c->max_nics = 1;
    uint32_t nodes = tsched_topology_num_nodes(t);
    for (uint32_t i = 0; i < nodes; i++)
        if (tsched_topology_node_nics(t, i) > c->max_nics)
            c->max_nics = tsched_topology_node_nics(t, i);
    c->nnics = nodes * c->max_nics;
    size_t nr = (size_t)c->nlinks + 2 * (size_t)c->nnics;
    c->cap = xcalloc(nr, sizeof *c->cap);
    c->sum = xcalloc(nr, sizeof *c->sum);
    c->maxrate = xcalloc(nr, sizeof *c->maxrate);
    c->count = xcalloc(nr, sizeof *c->count);
    for (uint32_t l = 0; l < c->nlinks; l++)
        c->cap[l] = tsched_topology_trunk_gbps(t, l / 2);
    for (uint32_t i = 0; i < nodes; i++)
        for (uint32_t k = 0; k < c->max_nics; k++) {
            c->cap[c->nlinks + i * c->max_nics + k] = tsched_topology_node_nic_gbps(t, i);
            c->cap[c->nlinks + c->nnics + i * c->max_nics + k] = tsched_topology_node_nic_gbps(t, i);
        }
}

static void checker_free(checker *c)
{
    free(c->cap);
    free(c->sum);
    free(c->maxrate);
    free(c->count);
}

/* Resources of flow i: its NIC uplink, its path's directed links, its NIC downlink. */
static uint32_t flow_resources(uint32_t *res, const checker *c, const tsched_flows *f, uint32_t i,
                               const tsched_path *p)
{
    uint32_t n = 0;
    res[n++] = c->nlinks + tsched_flows_src(f, i) * c->max_nics + tsched_flows_src_nic(f, i);
    for (uint32_t h = 0; h + 1 < p->nswitches; h++)
        res[n++] = p->links[h];
    res[n++] = c->nlinks + c->nnics + tsched_flows_dst(f, i) * c->max_nics + tsched_flows_dst_nic(f, i);
    return n;
}

/*
 * Check one answer against the fabric's current state. Paths are copied into `paths` (one
 * per flow; may be NULL). Returns the number of failed checks (each printed once).
 */
static int check_routes(const char *label, const tsched_topology *t, const tsched_flows *f, const tsched_routes *r,
                        checker *c, tsched_path *paths)
{
    int bad = 0;
    uint32_t n = tsched_flows_count(f);
    if (tsched_routes_count(r) != n) {
        problem("%s: %u routes for %u flows", label, tsched_routes_count(r), n);
        return 1;
    }
    size_t nr = (size_t)c->nlinks + 2 * (size_t)c->nnics;
    memset(c->sum, 0, nr * sizeof *c->sum);
    memset(c->maxrate, 0, nr * sizeof *c->maxrate);
    memset(c->count, 0, nr * sizeof *c->count);
    double min_rate = INFINITY;
    uint32_t res[8];
    for (uint32_t i = 0; i < n; i++) {
        tsched_path p = {.size = sizeof(tsched_path)};
        tsched_status st = tsched_routes_path(&p, r, i);
        if (st != TSCHED_OK) {
            problem("%s: tsched_routes_path(%u): %s", label, i, tsched_status_str(st));
            return bad + 1;
        }
        if (paths)
            paths[i] = p;
        uint32_t a = tsched_topology_node_nic_leaf(t, tsched_flows_src(f, i), tsched_flows_src_nic(f, i));
        uint32_t b = tsched_topology_node_nic_leaf(t, tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i));
        int ok = (p.nswitches == 1 || p.nswitches == 3) && p.switches[0] == a && p.switches[p.nswitches - 1] == b &&
                 (p.nswitches == 3 || a == b);
        for (uint32_t h = 0; ok && h < p.nswitches; h++)
            ok = tsched_topology_switch_is_up(t, p.switches[h]);
        for (uint32_t h = 0; ok && h + 1 < p.nswitches; h++) {
            uint32_t tr = p.links[h] / 2, d = p.links[h] % 2;
            uint32_t lo = d == 0 ? p.switches[h] : p.switches[h + 1], up = d == 0 ? p.switches[h + 1] : p.switches[h];
            ok = tr < tsched_topology_num_trunks(t) && tsched_topology_trunk_is_up(t, tr) &&
                 tsched_topology_trunk_lower(t, tr) == lo && tsched_topology_trunk_upper(t, tr) == up;
        }
        if (!ok) {
            if (!bad++)
                problem("%s: flow %u: path (%u switches, %u -> %u) does not join leaves %u -> %u over up elements",
                        label, i, p.nswitches, p.switches[0], p.switches[p.nswitches - 1], a, b);
            continue;
        }
        double rate = tsched_routes_rate(r, i);
        if (!(rate > 0) || !isfinite(rate)) {
            if (!bad++)
                problem("%s: flow %u: rate %g", label, i, rate);
            continue;
        }
        min_rate = rate < min_rate ? rate : min_rate;
        uint32_t k = flow_resources(res, c, f, i, &p);
        for (uint32_t j = 0; j < k; j++) {
            c->sum[res[j]] += rate;
            c->count[res[j]]++;
            if (rate > c->maxrate[res[j]])
                c->maxrate[res[j]] = rate;
        }
    }
    if (bad)
        return bad;
    uint32_t maxl = 0;
    for (uint32_t l = 0; l < c->nlinks; l++) {
        maxl = c->count[l] > maxl ? c->count[l] : maxl;
        if (c->count[l] != tsched_routes_link_flows(r, l) && !bad++)
            problem("%s: link %u carries %u flows, tsched_routes_link_flows says %u", label, l, c->count[l],
                    tsched_routes_link_flows(r, l));
    }
    if (maxl != tsched_routes_max_link_flows(r))
        problem("%s: largest link load %u, tsched_routes_max_link_flows says %u", label, maxl,
                tsched_routes_max_link_flows(r)),
            bad++;
    for (size_t x = 0; x < nr; x++)
        if (c->sum[x] > c->cap[x] * (1 + REL_EPS)) {
            if (!bad++)
                problem("%s: resource %zu: rates add up to %.9g > capacity %g", label, x, c->sum[x], c->cap[x]);
        }
    /* max-min certificate: every flow has a saturated resource where it gets the most */
    uint32_t unfair = 0, first = 0;
    for (uint32_t i = 0; i < n; i++) {
        tsched_path p = {.size = sizeof(tsched_path)};
        tsched_routes_path(&p, r, i);
        double rate = tsched_routes_rate(r, i);
        uint32_t k = flow_resources(res, c, f, i, &p), j;
        for (j = 0; j < k; j++)
            if (c->sum[res[j]] >= c->cap[res[j]] * (1 - REL_EPS) && rate >= c->maxrate[res[j]] * (1 - REL_EPS))
                break;
        if (j == k && !unfair++)
            first = i;
    }
    if (unfair)
        problem("%s: %u flows without a bottleneck (not max-min fair), first flow %u rate %g", label, unfair, first,
                tsched_routes_rate(r, first)),
            bad++;
    double got = tsched_routes_min_rate(r);
    if (n && fabs(got - min_rate) > REL_EPS * min_rate)
        problem("%s: smallest rate %.9g, tsched_routes_min_rate says %.9g", label, min_rate, got), bad++;
    return bad;
}

/* Lower bound on max_link_flows on a leaf-spine fabric: a leaf's flows to other leaves all
 * leave it over its up spines (and arrive over them), so some uplink carries at least
 * ceil(out / up spines). */
static uint32_t leaf_bound(const tsched_topology *t, const tsched_flows *f)
{
    uint32_t nl = tsched_topology_num_tier(t, 0), up = 0, best = 0;
    for (uint32_t s = 0; s < tsched_topology_num_tier(t, 1); s++)
        up += tsched_topology_switch_is_up(t, tsched_topology_tier_switch(t, 1, s));
    if (!up)
        return 0;
    uint32_t *out = xcalloc(nl, sizeof *out), *in = xcalloc(nl, sizeof *in);
    uint32_t first = tsched_topology_tier_switch(t, 0, 0);
    for (uint32_t i = 0; i < tsched_flows_count(f); i++) {
        uint32_t a = tsched_topology_node_nic_leaf(t, tsched_flows_src(f, i), tsched_flows_src_nic(f, i)) - first;
        uint32_t b = tsched_topology_node_nic_leaf(t, tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i)) - first;
        if (a != b && a < nl && b < nl) {
            out[a]++;
            in[b]++;
        }
    }
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t v = (out[l] > in[l] ? out[l] : in[l]);
        v = (v + up - 1) / up;
        best = v > best ? v : best;
    }
    free(out);
    free(in);
    return best;
}

/* ---- one routing call ------------------------------------------------------------------ */

typedef struct run {
    int ok;
    tsched_status err;
    uint32_t max_link_flows, moved;
    double min_rate, wall_ms, solve_ms;
    const char *status;
} run;

static tsched_routes *route_with(run *out, tsched_router *rtr, const tsched_topology *t, const tsched_flows *f,
                                 tsched_route_algo algo, uint32_t threads, uint32_t time_limit_ms)
{
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.algo = algo;
    ro.seed = 1;
    ro.threads = threads;
    ro.time_limit_ms = time_limit_ms;
    tsched_routes *r = NULL;
    double t0 = now_ms();
    tsched_status st = rtr ? tsched_router_route(&r, rtr, f, &ro) : tsched_route(&r, t, f, &ro);
    double wall = now_ms() - t0;
    memset(out, 0, sizeof *out);
    out->wall_ms = wall;
    if (st != TSCHED_OK) {
        out->err = st;
        out->status = "error";
        return NULL;
    }
    out->ok = 1;
    out->max_link_flows = tsched_routes_max_link_flows(r);
    out->min_rate = tsched_routes_min_rate(r);
    out->solve_ms = tsched_routes_solve_ms(r);
    out->status = tsched_routes_status(r);
    return r;
}

static tsched_routes *route_once(run *out, const tsched_topology *t, const tsched_flows *f, tsched_route_algo algo,
                                 uint32_t threads, uint32_t time_limit_ms)
{
    return route_with(out, NULL, t, f, algo, threads, time_limit_ms);
}

/* ---- part 1: the dcn instances --------------------------------------------------------- */

typedef struct instance {
    char name[64]; /* "jobs5-ring4" */
    char path[1024];
    tsched_flows *flows;
    uint32_t n, lb;
    run res[NALGO];
} instance;

static int natural_cmp(const void *a, const void *b)
{
    const char *x = ((const instance *)a)->name, *y = ((const instance *)b)->name;
    while (*x && *y) {
        if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
            char *ex, *ey;
            unsigned long vx = strtoul(x, &ex, 10), vy = strtoul(y, &ey, 10);
            if (vx != vy)
                return vx < vy ? -1 : 1;
            x = ex;
            y = ey;
        } else {
            if (*x != *y)
                return (unsigned char)*x - (unsigned char)*y;
            x++;
            y++;
        }
    }
    return (unsigned char)*x - (unsigned char)*y;
}

static size_t list_instances(instance *inst, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    const char *pre = "dcn-", *suf = ".flows.json";
    while ((e = readdir(d)) != NULL && n < MAX_FILES) {
        size_t len = strlen(e->d_name), lp = strlen(pre), ls = strlen(suf);
        if (len <= lp + ls || strncmp(e->d_name, pre, lp) != 0 || strcmp(e->d_name + len - ls, suf) != 0 ||
            len - lp - ls >= sizeof inst[n].name)
            continue;
        memset(&inst[n], 0, sizeof inst[n]);
        memcpy(inst[n].name, e->d_name + lp, len - lp - ls);
        snprintf(inst[n].path, sizeof inst[n].path, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(inst, n, sizeof *inst, natural_cmp);
    return n;
}

static void part_dcn(const options *o, tsched_topology *t, instance *inst, size_t ninst, checker *c)
{
    printf("\n1. dcn-simulators flow sets on the 64 x 32 fat tree (all flows of a folder at once; ecmp and "
           "balanced-ecmp seed 1; ilp limit %u ms)\n",
           o->time_limit_ms);
    printf("   mlf = max_link_flows, rate = min_rate_gbps, lb = max over leaves of ceil(inter-leaf flows / 32)\n");
    printf("%-12s %6s %3s | %-13s | %-13s | %-13s | %-13s %-9s %9s | %9s\n", "instance", "flows", "lb",
           "greedy mlf/rate", "ecmp", "bal-ecmp", "ilp", "status", "ilp ms", "greedy ms");
    for (size_t k = 0; k < ninst; k++) {
        instance *in = &inst[k];
        tsched_status st = tsched_flows_load_file(&in->flows, t, in->path);
        if (st != TSCHED_OK)
            die(in->path, st);
        in->n = tsched_flows_count(in->flows);
        in->lb = leaf_bound(t, in->flows);
        for (unsigned a = 0; a < NALGO; a++) {
            tsched_routes *r = route_once(&in->res[a], t, in->flows, ALGOS[a], 1, o->time_limit_ms);
            char label[128];
            snprintf(label, sizeof label, "%s %s", in->name, tsched_route_algo_name(ALGOS[a]));
            if (!r) {
                problem("%s: tsched_route failed: %s: %s", label, tsched_status_str(in->res[a].err),
                        tsched_last_error());
                continue;
            }
            check_routes(label, t, in->flows, r, c, NULL);
            if (in->res[a].max_link_flows < in->lb)
                problem("%s: max_link_flows %u below the leaf bound %u", label, in->res[a].max_link_flows, in->lb);
            tsched_routes_free(r);
        }
        const run *g = &in->res[0], *ilp = &in->res[3];
        if (g->ok && ilp->ok && ilp->max_link_flows > g->max_link_flows)
            problem("%s: ilp max_link_flows %u worse than greedy %u", in->name, ilp->max_link_flows,
                    g->max_link_flows);
        char cell[NALGO][32];
        for (unsigned a = 0; a < NALGO; a++)
            if (in->res[a].ok)
                snprintf(cell[a], sizeof cell[a], "%u / %.1f", in->res[a].max_link_flows, in->res[a].min_rate);
            else
                snprintf(cell[a], sizeof cell[a], "error");
        printf("%-12s %6u %3u | %-15s | %-13s | %-13s | %-13s %-9s %9.2f | %9.3f\n", in->name, in->n, in->lb, cell[0],
               cell[1], cell[2], cell[3], ilp->status, ilp->wall_ms, g->wall_ms);
        for (unsigned a = 0; a < NALGO; a++) {
            const run *r = &in->res[a];
            jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"dcn\", \"instance\": \"%s\", \"flows\": %u, "
                  "\"leaf_bound\": %u, \"algo\": \"%s\", \"status\": \"%s\", \"max_link_flows\": %u, "
                  "\"min_rate_gbps\": %.6g, \"wall_ms\": %.4f, \"solve_ms\": %.4f}",
                  o->quick ? "true" : "false", in->name, in->n, in->lb, tsched_route_algo_name(ALGOS[a]), r->status,
                  r->max_link_flows, r->min_rate, r->wall_ms, r->solve_ms);
        }
    }
}

/* ---- part 2: faults ---------------------------------------------------------------------- */

typedef struct fault_row {
    run reroute, greedy, ecmp, ilp;
    uint32_t lb, expected_moved;
} fault_row;

/* Choose k distinct spines (indices among the spines) for (k, seed). */
static void pick_spines(uint32_t *out, uint32_t k, uint64_t seed)
{
    uint32_t v[SPINES];
    for (uint32_t i = 0; i < SPINES; i++)
        v[i] = i;
    uint64_t s = rng_stream(1000 + k, seed);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t j = i + rng_below(&s, SPINES - i);
        uint32_t x = v[i];
        v[i] = v[j];
        v[j] = x;
        out[i] = v[i];
    }
}

static void set_spines(tsched_topology *t, const uint32_t *sp, uint32_t k, int up)
{
    for (uint32_t i = 0; i < k; i++) {
        tsched_status st = tsched_topology_set_switch_up(t, tsched_topology_tier_switch(t, 1, sp[i]), up);
        if (st != TSCHED_OK)
            die("tsched_topology_set_switch_up", st);
    }
}

static void fault_one(const options *o, tsched_topology *t, const instance *in, const tsched_routes *prev,
                      const tsched_path *prev_paths, uint32_t k, uint64_t seed, checker *c, tsched_path *paths)
{
    uint32_t sp[SPINES];
    pick_spines(sp, k, seed);
    set_spines(t, sp, k, 0);
    fault_row row;
    memset(&row, 0, sizeof row);
    row.lb = leaf_bound(t, in->flows);
    /* flows whose intact greedy path crosses a down spine must move; no other may */
    for (uint32_t i = 0; i < in->n; i++)
        if (prev_paths[i].nswitches == 3 && !tsched_topology_switch_is_up(t, prev_paths[i].switches[1]))
            row.expected_moved++;
    char label[160];
    snprintf(label, sizeof label, "fault %s spines %u seed %llu reroute", in->name, k, (unsigned long long)seed);
    tsched_routes *r = NULL;
    double t0 = now_ms();
    tsched_status st = tsched_reroute(&r, prev, t, in->flows);
    row.reroute.wall_ms = now_ms() - t0;
    if (st != TSCHED_OK) {
        problem("%s: tsched_reroute failed: %s: %s", label, tsched_status_str(st), tsched_last_error());
        row.reroute.status = "error";
    } else {
        row.reroute.ok = 1;
        row.reroute.max_link_flows = tsched_routes_max_link_flows(r);
        row.reroute.min_rate = tsched_routes_min_rate(r);
        row.reroute.solve_ms = tsched_routes_solve_ms(r);
        row.reroute.moved = tsched_routes_moved(r);
        row.reroute.status = tsched_routes_status(r);
        if (check_routes(label, t, in->flows, r, c, paths) == 0) {
            uint32_t changed = 0;
            for (uint32_t i = 0; i < in->n; i++)
                changed += memcmp(&paths[i], &prev_paths[i], sizeof paths[i]) != 0;
            if (row.reroute.moved != row.expected_moved || changed > row.expected_moved)
                problem("%s: moved %u flows (%u paths differ), %u paths crossed a down spine", label,
                        row.reroute.moved, changed, row.expected_moved);
        }
        if (row.reroute.max_link_flows < row.lb)
            problem("%s: max_link_flows %u below the leaf bound %u", label, row.reroute.max_link_flows, row.lb);
        tsched_routes_free(r);
    }
    struct {
        run *res;
        tsched_route_algo algo;
    } fresh[] = {{&row.greedy, TSCHED_ROUTE_GREEDY}, {&row.ecmp, TSCHED_ROUTE_ECMP}, {&row.ilp, TSCHED_ROUTE_ILP}};
    for (unsigned a = 0; a < sizeof fresh / sizeof fresh[0]; a++) {
        snprintf(label, sizeof label, "fault %s spines %u seed %llu %s", in->name, k, (unsigned long long)seed,
                 tsched_route_algo_name(fresh[a].algo));
        r = route_once(fresh[a].res, t, in->flows, fresh[a].algo, 1, o->time_limit_ms);
        if (!r) {
            problem("%s: tsched_route failed: %s: %s", label, tsched_status_str(fresh[a].res->err),
                    tsched_last_error());
            continue;
        }
        check_routes(label, t, in->flows, r, c, NULL);
        if (fresh[a].res->max_link_flows < row.lb)
            problem("%s: max_link_flows %u below the leaf bound %u", label, fresh[a].res->max_link_flows, row.lb);
        tsched_routes_free(r);
    }
    if (row.ilp.ok && row.greedy.ok && row.ilp.max_link_flows > row.greedy.max_link_flows)
        problem("fault %s spines %u seed %llu: ilp %u worse than greedy %u", in->name, k, (unsigned long long)seed,
                row.ilp.max_link_flows, row.greedy.max_link_flows);
    set_spines(t, sp, k, 1);

    char down[160] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < k && len + 8 < sizeof down; i++)
        len += (size_t)snprintf(down + len, sizeof down - len, "%s%u", i ? "," : "", sp[i]);
    printf("%-12s %6u %4llu %-22s %3u | %3u / %5.1f %5u %7.3f | %3u / %5.1f | %3u / %5.1f | %3u / %5.1f %-8s %8.1f\n",
           in->name, k, (unsigned long long)seed, down, row.lb, row.reroute.max_link_flows, row.reroute.min_rate,
           row.reroute.moved, row.reroute.wall_ms, row.greedy.max_link_flows, row.greedy.min_rate,
           row.ecmp.max_link_flows, row.ecmp.min_rate, row.ilp.max_link_flows, row.ilp.min_rate, row.ilp.status,
           row.ilp.wall_ms);
    const struct {
        const char *name;
        const run *r;
    } all[] = {{"reroute", &row.reroute}, {"greedy", &row.greedy}, {"ecmp", &row.ecmp}, {"ilp", &row.ilp}};
    for (unsigned a = 0; a < 4; a++)
        jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"fault\", \"instance\": \"%s\", \"flows\": %u, "
              "\"spines_down\": %u, \"seed\": %llu, \"down\": \"%s\", \"leaf_bound\": %u, \"algo\": \"%s\", "
              "\"status\": \"%s\", \"max_link_flows\": %u, \"min_rate_gbps\": %.6g, \"moved\": %u, \"wall_ms\": %.4f}",
              o->quick ? "true" : "false", in->name, in->n, k, (unsigned long long)seed, down, row.lb, all[a].name,
              all[a].r->status ? all[a].r->status : "error", all[a].r->max_link_flows, all[a].r->min_rate,
              all[a].r->moved, all[a].r->wall_ms);
}

static void part_faults(const options *o, tsched_topology *t, instance *inst, size_t ninst, checker *c)
{
    /* the two flow sets with the most flows */
    size_t pick[2] = {SIZE_MAX, SIZE_MAX};
    for (size_t k = 0; k < ninst; k++) {
        if (pick[0] == SIZE_MAX || inst[k].n > inst[pick[0]].n) {
            pick[1] = pick[0];
            pick[0] = k;
        } else if (pick[1] == SIZE_MAX || inst[k].n > inst[pick[1]].n) {
            pick[1] = k;
        }
    }
    printf("\n2. Spine failures (§5.4): k random spines down (seeded), on the two largest flow sets. reroute = "
           "tsched_reroute from the intact greedy answer;\n   greedy, ecmp (seed 1), ilp (limit %u ms) from scratch on "
           "the faulty fabric. mlf / min rate (Gbit/s); lb = leaf bound with the surviving spines\n",
           o->time_limit_ms);
    printf("%-12s %6s %4s %-22s %3s | %-12s %5s %7s | %-11s | %-11s | %-11s %-8s %8s\n", "instance", "down", "seed",
           "spines down", "lb", "reroute", "moved", "ms", "greedy", "ecmp", "ilp", "status", "ilp ms");
    for (unsigned q = 0; q < 2; q++) {
        if (pick[q] == SIZE_MAX)
            continue;
        const instance *in = &inst[pick[q]];
        run base;
        tsched_routes *prev = route_once(&base, t, in->flows, TSCHED_ROUTE_GREEDY, 1, 0);
        if (!prev) {
            problem("fault %s: intact greedy failed: %s", in->name, tsched_status_str(base.err));
            continue;
        }
        tsched_path *prev_paths = xcalloc(in->n, sizeof *prev_paths), *paths = xcalloc(in->n, sizeof *paths);
        char label[96];
        snprintf(label, sizeof label, "fault %s intact greedy", in->name);
        check_routes(label, t, in->flows, prev, c, prev_paths);
        printf("%-12s %6u %4s %-22s %3u | %3u / %5.1f (intact greedy)\n", in->name, 0u, "-", "-",
               leaf_bound(t, in->flows), base.max_link_flows, base.min_rate);
        for (unsigned f = 0; f < NFAULT; f++)
            for (unsigned s = 1; s <= o->fault_seeds; s++)
                fault_one(o, t, in, prev, prev_paths, FAULT_SPINES[f], s, c, paths);
        free(prev_paths);
        free(paths);
        tsched_routes_free(prev);
    }
}

/* ---- part 3: speed --------------------------------------------------------------------- */

typedef struct timing {
    double wall, solve, rates; /* medians, ms */
    double outside;            /* median over the runs of wall - solve */
    double wall_min, wall_max;
    unsigned runs;
    uint32_t max_link_flows;
    double min_rate;
} timing;

/* Time tsched_route `runs` times (median), then tsched_rates_maxmin `rruns` times on the
 * answer's paths. The first answer is checked; later ones must agree with it. */
/* Median wall time of greedy path assignment alone (TSCHED_ROUTE_NO_RATES), through a
 * fresh call (cold: leaf-pair paths listed inside) or a router whose cache is warm. */
static double time_paths_only(tsched_router *rtr, const tsched_topology *t, const tsched_flows *f, unsigned runs)
{
    double *w = malloc(runs * sizeof *w);
    if (!w)
        die("malloc", TSCHED_E_NOMEM);
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    for (unsigned i = 0; i < runs; i++) {
        tsched_routes *r = NULL;
        double t0 = now_ms();
        tsched_status st = rtr ? tsched_router_route(&r, rtr, f, &ro) : tsched_route(&r, t, f, &ro);
        w[i] = now_ms() - t0;
        if (st != TSCHED_OK)
            die("tsched_route (paths only)", st);
        tsched_routes_free(r);
    }
    double m = median(w, runs);
    free(w);
    return m;
}

static timing time_route(const char *label, tsched_router *rtr, const tsched_topology *t, const tsched_flows *f,
                         tsched_route_algo algo, uint32_t threads, unsigned runs, unsigned rruns, checker *c,
                         tsched_path *paths, double *rates_buf, tsched_path *ref_paths)
{
    timing tm;
    memset(&tm, 0, sizeof tm);
    double *w = xcalloc(runs, sizeof *w), *s = xcalloc(runs, sizeof *s), *out = xcalloc(runs, sizeof *out);
    uint32_t n = tsched_flows_count(f);
    if (rtr) { /* warm the router's path cache: what a scheduler routing again and again sees */
        run r;
        tsched_routes *rt = route_with(&r, rtr, t, f, algo, threads, 0);
        if (!rt)
            die(label, r.err);
        tsched_routes_free(rt);
    }
    for (unsigned i = 0; i < runs; i++) {
        run r;
        tsched_routes *rt = route_with(&r, rtr, t, f, algo, threads, 0);
        if (!rt)
            die(label, r.err);
        w[i] = r.wall_ms;
        s[i] = r.solve_ms;
        out[i] = r.wall_ms - r.solve_ms;
        if (i == 0) {
            tm.max_link_flows = r.max_link_flows;
            tm.min_rate = r.min_rate;
            if (check_routes(label, t, f, rt, c, paths) == 0 && ref_paths) {
                uint32_t diff = 0;
                for (uint32_t j = 0; j < n; j++)
                    diff += memcmp(&paths[j], &ref_paths[j], sizeof paths[j]) != 0;
                if (diff)
                    problem("%s: %u of %u paths differ from the one-thread answer", label, diff, n);
            }
            for (uint32_t j = 0; rruns && j < n; j++)
                rates_buf[j] = tsched_routes_rate(rt, j);
        } else if (r.max_link_flows != tm.max_link_flows || r.min_rate != tm.min_rate) {
            problem("%s: run %u gave max_link_flows %u min rate %g, run 0 %u %g", label, i, r.max_link_flows,
                    r.min_rate, tm.max_link_flows, tm.min_rate);
        }
        tsched_routes_free(rt);
    }
    tm.runs = runs;
    tm.wall_min = w[0];
    tm.wall_max = w[0];
    for (unsigned i = 1; i < runs; i++) {
        tm.wall_min = w[i] < tm.wall_min ? w[i] : tm.wall_min;
        tm.wall_max = w[i] > tm.wall_max ? w[i] : tm.wall_max;
    }
    tm.wall = median(w, runs);
    tm.solve = median(s, runs);
    tm.outside = median(out, runs);
    if (rruns) {
        double *rr = xcalloc(rruns, sizeof *rr), *got = xcalloc(n, sizeof *got);
        for (unsigned i = 0; i < rruns; i++) {
            double t0 = now_ms();
            tsched_status st = tsched_rates_maxmin(got, t, f, paths);
            rr[i] = now_ms() - t0;
            if (st != TSCHED_OK)
                die("tsched_rates_maxmin", st);
        }
        uint32_t diff = 0;
        for (uint32_t j = 0; j < n; j++)
            diff += fabs(got[j] - rates_buf[j]) > REL_EPS * rates_buf[j];
        if (diff)
            problem("%s: tsched_rates_maxmin differs from the routes' rates on %u flows", label, diff);
        tm.rates = median(rr, rruns);
        free(rr);
        free(got);
    }
    free(w);
    free(s);
    free(out);
    return tm;
}

static unsigned runs_for(const options *o, uint32_t n)
{
    if (n <= 2000)
        return o->quick ? 51 : 301;
    if (n <= 20000)
        return o->quick ? 11 : 51;
    if (n <= 200000)
        return o->quick ? 3 : 11;
    return o->runs;
}

static void target(const options *o, const char *name, double value, double limit, const char *note)
{
    int pass = value < limit;
    const char *verdict = o->quick ? "n/a (quick)" : pass ? "PASS" : "MISS";
    g_misses += !o->quick && !pass;
    printf("%-52s %10.4f ms  < %-8g %-11s %s\n", name, value, limit, verdict, note);
    jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"target\", \"metric\": \"%s\", \"value\": %.6g, "
          "\"unit\": \"ms\", \"target\": \"< %g\", \"result\": \"%s\"}",
          o->quick ? "true" : "false", name, value, limit, o->quick ? "n/a" : pass ? "PASS" : "MISS");
}

/* Flows whose library path is not the reference's: another spine (UINT32_MAX: none), or
 * another source or destination leaf than sl/dl (leaf numbers of tier 0). */
static uint32_t paths_unlike_reference(const tsched_topology *t, const tsched_routes *r, const uint32_t *sp,
                                       const uint32_t *sl, const uint32_t *dl, uint32_t n)
{
    uint32_t diff = 0;
    for (uint32_t i = 0; i < n; i++) {
        tsched_path p;
        p.size = sizeof p;
        tsched_status st = tsched_routes_path(&p, r, i);
        if (st != TSCHED_OK)
            die("tsched_routes_path", st);
        uint32_t want = sp[i] == UINT32_MAX ? TSCHED_NONE : tsched_topology_tier_switch(t, 1, sp[i]);
        uint32_t got = p.nswitches == 3 ? p.switches[1] : TSCHED_NONE;
        diff += got != want || p.switches[0] != tsched_topology_tier_switch(t, 0, sl[i]) ||
                p.switches[p.nswitches - 1] != tsched_topology_tier_switch(t, 0, dl[i]);
    }
    return diff;
}

/* The plain reference on the same flows (bench/ref_greedy.c), cold: its load arrays are
 * allocated and zeroed inside each run, as a new router lists its pairs inside. Its spines
 * must be the library's (checked once, outside the timing). Median ms. */
static double time_reference(const tsched_topology *t, const tsched_flows *f, unsigned runs)
{
    uint32_t n = tsched_flows_count(f);
    uint32_t *sl = xcalloc(n, sizeof *sl), *dl = xcalloc(n, sizeof *dl), *sp = xcalloc(n, sizeof *sp);
    for (uint32_t i = 0; i < n; i++) {
        sl[i] = tsched_flows_src(f, i) / NODES_PER_LEAF;
        dl[i] = tsched_flows_dst(f, i) / NODES_PER_LEAF;
    }
    double *w = xcalloc(runs, sizeof *w);
    for (unsigned k = 0; k < runs; k++) {
        double t0 = now_ms();
        if (ref_greedy_leaf_spine(sp, sl, dl, n, LEAVES, SPINES) != 0)
            die("ref_greedy_leaf_spine", TSCHED_E_NOMEM);
        w[k] = now_ms() - t0;
    }
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    tsched_routes *r = NULL;
    tsched_status st = tsched_route(&r, t, f, &ro);
    if (st != TSCHED_OK)
        die("tsched_route (reference check)", st);
    uint32_t diff = paths_unlike_reference(t, r, sp, sl, dl, n);
    if (diff)
        problem("reference greedy: %u of %u flows took another spine than tsched_route", diff, n);
    tsched_routes_free(r);
    double m = median(w, runs);
    free(w);
    free(sl);
    free(dl);
    free(sp);
    return m;
}

/* --first-call: the fabric and the flows of the speed part, then one timed cold
 * tsched_route (paths only), its ms on stdout. With `index` the fabric's path index is
 * built before (a path count), as a scheduler that has queried the fabric sees it. */
static int first_call_main(uint64_t seed, int index)
{
    tsched_topology *t = make_fabric();
    tsched_flows *f = make_flows(t, 1500, TRAFFIC_RANDOM, seed);
    if (index) {
        uint64_t cnt;
        tsched_topology_leaf_path_count(&cnt, t, tsched_topology_tier_switch(t, 0, 0),
                                        tsched_topology_tier_switch(t, 0, 1));
    }
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    tsched_routes *r = NULL;
    double t0 = now_ms();
    tsched_status st = tsched_route(&r, t, f, &ro);
    double ms = now_ms() - t0;
    if (st != TSCHED_OK)
        die("tsched_route (first call)", st);
    printf("%.6f\n", ms);
    tsched_routes_free(r);
    tsched_flows_free(f);
    tsched_topology_free(t);
    return 0;
}

/* Median over `procs` fresh processes of their first call (-1 if they cannot be run). */
static double time_first_call(uint64_t seed, int index, unsigned procs)
{
    double *w = xcalloc(procs, sizeof *w);
    unsigned got = 0;
    for (unsigned k = 0; k < procs && g_argv0; k++) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "'%s' --first-call%s --seed %llu", g_argv0, index ? "-indexed" : "",
                 (unsigned long long)seed);
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        if (fscanf(p, "%lf", &w[got]) == 1)
            got++;
        pclose(p);
    }
    double m = got ? median(w, got) : -1;
    free(w);
    return m;
}

/* CPU time of this thread, ms (page faults count: the kernel works for the thread). */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Self-check of the plain reference (issue 26 item 5): seeded random small leaf-spine fabrics
 * (2-16 leaves, 1-40 spines, 1-4 nodes a leaf) with 1-2,000 random flows; every flow's
 * library path (greedy, paths only) must go through the reference's spine. Prints one line;
 * a difference is a PROBLEM. */
static void self_check_greedy(uint64_t seed, unsigned cases)
{
    uint64_t s = rng_stream(53, seed);
    uint32_t flows = 0, diff = 0;
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    for (unsigned c = 0; c < cases; c++) {
        uint32_t leaves = 2 + rng_below(&s, 15), spines = 1 + rng_below(&s, 40), npl = 1 + rng_below(&s, 4);
        tsched_topology *t = bench_leaf_spine("self-check", leaves, spines, npl, NIC_GBPS);
        uint32_t nf = 1 + rng_below(&s, 2000);
        tsched_flows *f = make_flows(t, nf, TRAFFIC_RANDOM, rng_next(&s));
        uint32_t n = tsched_flows_count(f);
        uint32_t *sl = xcalloc(n, sizeof *sl), *dl = xcalloc(n, sizeof *dl), *sp = xcalloc(n, sizeof *sp);
        for (uint32_t i = 0; i < n; i++) {
            sl[i] = tsched_flows_src(f, i) / npl;
            dl[i] = tsched_flows_dst(f, i) / npl;
        }
        if (ref_greedy_leaf_spine(sp, sl, dl, n, leaves, spines) != 0)
            die("ref_greedy_leaf_spine", TSCHED_E_NOMEM);
        tsched_routes *r = NULL;
        tsched_status st = tsched_route(&r, t, f, &ro);
        if (st != TSCHED_OK)
            die("tsched_route (self-check)", st);
        uint32_t d = paths_unlike_reference(t, r, sp, sl, dl, n);
        if (d)
            problem("greedy self-check case %u (%u x %u, %u flows): %u flows took another path than the reference",
                    c, leaves, spines, n, d);
        diff += d;
        flows += n;
        tsched_routes_free(r);
        free(sl);
        free(dl);
        free(sp);
        tsched_flows_free(f);
        tsched_topology_free(t);
    }
    printf("greedy self-check: %u seeded random leaf-spine cases, %u flows, %u paths differ from the reference\n",
           cases, flows, diff);
}

/* --greedy-ratio (issue 10, targets 1 and 2): greedy paths only (TSCHED_ROUTE_NO_RATES), a cold
 * tsched_route per run (new router inside, setup included), against the plain reference on
 * the same flows in the same run, runs alternating so that the load of the machine hits both
 * alike; 1k to 10M flows for the flat per-flow cost, then the first call of fresh processes
 * at 1,500 flows. The library's spines are checked against the reference's at every size. */
static void part_greedy_ratio(const options *o)
{
    self_check_greedy(o->seed, o->quick ? 50 : 200);
    tsched_topology *t = make_fabric();
    uint32_t sizes[] = {1000, 1500, 10000, 100000, 1000000, 10000000};
    size_t nsizes = o->quick ? 4 : sizeof sizes / sizeof sizes[0];
    if (o->flows) {
        sizes[0] = o->flows;
        nsizes = 1;
    }
    printf("\ngreedy paths only vs plain reference (bench/ref_greedy.c), leaf_spine 64 x 32, random flows "
           "(seed %llu);\n"
           "   medians of alternating cold runs; ratio = library / reference (wall time); cpu = the same with the\n"
           "   thread's CPU time (ns/flow, page faults included), which the other jobs of a shared machine "
           "disturb less\n",
           (unsigned long long)o->seed);
    printf("%9s %5s %12s %12s %10s %10s %8s %10s %10s %8s\n", "flows", "runs", "library ms", "ref ms", "lib ns/f",
           "ref ns/f", "ratio", "lib cpu", "ref cpu", "cpu rat.");
    tsched_route_options ro;
    tsched_route_options_init(&ro);
    ro.flags = TSCHED_ROUTE_NO_RATES;
    double cold1500 = -1;
    for (size_t z = 0; z < nsizes; z++) {
        uint32_t n = sizes[z];
        tsched_flows *f = make_flows(t, n, TRAFFIC_RANDOM, o->seed);
        unsigned runs = o->flows       ? o->runs
                        : n <= 2000    ? 301
                        : n <= 20000   ? 51
                        : n <= 200000  ? 11
                        : n <= 2000000 ? o->runs
                                       : 3;
        uint32_t *sl = xcalloc(n, sizeof *sl), *dl = xcalloc(n, sizeof *dl), *sp = xcalloc(n, sizeof *sp);
        for (uint32_t i = 0; i < n; i++) {
            sl[i] = tsched_flows_src(f, i) / NODES_PER_LEAF;
            dl[i] = tsched_flows_dst(f, i) / NODES_PER_LEAF;
        }
        double *wl = xcalloc(runs, sizeof *wl), *wr = xcalloc(runs, sizeof *wr);
        double *cl = xcalloc(runs, sizeof *cl), *cr = xcalloc(runs, sizeof *cr);
        for (unsigned k = 0; k < runs; k++) {
            tsched_routes *r = NULL;
            double c0 = cpu_ms(), t0 = now_ms();
            tsched_status st = tsched_route(&r, t, f, &ro);
            wl[k] = now_ms() - t0;
            cl[k] = cpu_ms() - c0;
            if (st != TSCHED_OK)
                die("tsched_route (paths only)", st);
            if (k == 0) {
                uint32_t diff = 0;
                if (ref_greedy_leaf_spine(sp, sl, dl, n, LEAVES, SPINES) != 0)
                    die("ref_greedy_leaf_spine", TSCHED_E_NOMEM);
                for (uint32_t i = 0; i < n; i++) {
                    tsched_path p;
                    p.size = sizeof p;
                    if ((st = tsched_routes_path(&p, r, i)) != TSCHED_OK)
                        die("tsched_routes_path", st);
                    uint32_t want = sp[i] == UINT32_MAX ? TSCHED_NONE : tsched_topology_tier_switch(t, 1, sp[i]);
                    uint32_t got = p.nswitches == 3 ? p.switches[1] : TSCHED_NONE;
                    diff += got != want || p.switches[0] != tsched_topology_tier_switch(t, 0, sl[i]) ||
                            p.switches[p.nswitches - 1] != tsched_topology_tier_switch(t, 0, dl[i]);
                }
                if (diff)
                    problem("greedy ratio %u: %u flows took another path than the reference", n, diff);
            }
            tsched_routes_free(r);
            c0 = cpu_ms();
            t0 = now_ms();
            if (ref_greedy_leaf_spine(sp, sl, dl, n, LEAVES, SPINES) != 0)
                die("ref_greedy_leaf_spine", TSCHED_E_NOMEM);
            wr[k] = now_ms() - t0;
            cr[k] = cpu_ms() - c0;
        }
        double ml = median(wl, runs), mr = median(wr, runs), mcl = median(cl, runs), mcr = median(cr, runs);
        printf("%9u %5u %12.4f %12.4f %10.1f %10.1f %8.2f %10.1f %10.1f %8.2f\n", n, runs, ml, mr, ml * 1e6 / n,
               mr * 1e6 / n, ml / mr, mcl * 1e6 / n, mcr * 1e6 / n, mcr > 0 ? mcl / mcr : -1);
        jsonf("{\"bench\": \"routing\", \"type\": \"greedy-ratio\", \"flows\": %u, \"runs\": %u, \"library_ms\": %.6g, "
              "\"reference_ms\": %.6g, \"ratio\": %.4g, \"library_cpu_ms\": %.6g, \"reference_cpu_ms\": %.6g}",
              n, runs, ml, mr, ml / mr, mcl, mcr);
        if (n == 1500)
            cold1500 = ml;
        free(wl);
        free(wr);
        free(cl);
        free(cr);
        free(sl);
        free(dl);
        free(sp);
        tsched_flows_free(f);
    }
    unsigned procs = o->quick ? 11 : 31;
    if (o->flows) {
        tsched_topology_free(t);
        return;
    }
    double first = time_first_call(o->seed, 0, procs), firsti = time_first_call(o->seed, 1, procs);
    printf("first call of a fresh process, 1,500 flows (median of %u processes): %.4f ms = %.2fx a later one "
           "(fabric's path index built before: %.4f ms, %.2fx)\n",
           procs, first, first / cold1500, firsti, firsti / cold1500);
    jsonf("{\"bench\": \"routing\", \"type\": \"first-call\", \"flows\": 1500, \"first_ms\": %.6g, \"later_ms\": %.6g, "
          "\"ratio\": %.4g, \"indexed_ratio\": %.4g}",
          first, cold1500, first / cold1500, firsti / cold1500);
    tsched_topology_free(t);
}

static void part_speed(const options *o, checker *c)
{
    tsched_topology *t = make_fabric();
    checker_init(c, t);
    const uint32_t sizes_full[] = {1500, 10000, 100000, 1000000}, sizes_quick[] = {1500, 10000, 100000};
    const uint32_t *sizes = o->quick ? sizes_quick : sizes_full;
    size_t nsizes = o->quick ? 3 : 4;
    uint32_t nmax = sizes[nsizes - 1];
    tsched_path *paths = xcalloc(nmax, sizeof *paths), *ref = xcalloc(nmax, sizeof *ref);
    double *rates = xcalloc(nmax, sizeof *rates);
    tsched_router *rtr = NULL;
    tsched_status rst = tsched_router_new(&rtr, t);
    if (rst != TSCHED_OK)
        die("tsched_router_new", rst);

    printf("\n3. Speed: leaf_spine 64 x 32, 32 nodes per leaf, 1 NIC of 100 Gbit/s, uplinks 1; random flows "
           "(seed %llu), one thread.\n   wall = tsched_route (median of the runs); solve = tsched_routes_solve_ms "
           "(the assignment alone); outside = median of (wall - solve);\n   rates = tsched_rates_maxmin on the same "
           "paths (separate runs); rest = outside - rates (flows -> leaf pairs, path listing, copies, allocation).\n"
           "   \"+router\": the same call through a tsched_router whose path cache is warm.\n",
           (unsigned long long)o->seed);
    printf("%-20s %9s %5s %10s %10s %10s %10s %10s %9s %6s %7s\n", "algo", "flows", "runs", "wall ms", "solve ms",
           "outside ms", "rates ms", "rest ms", "ns/flow", "mlf", "rate");
    tsched_flows *f1500 = NULL;
    timing g1m = {0}, g1500 = {0};
    double p1500 = -1, p1500w = -1, p1m = -1, p1mw = -1; /* paths only: cold, warm router */
    double mem_flows = -1, mem_route_peak = -1, mem_routes_held = -1;
    uint32_t mem_n = 0;
    for (size_t z = 0; z < nsizes; z++) {
        uint32_t n = sizes[z];
        double rss_flows0 = current_rss_mb();
        tsched_flows *f = make_flows(t, n, TRAFFIC_RANDOM, o->seed);
        if (z == nsizes - 1) {
            /* Memory of the largest case, before anything else touches it: the flow set, then
             * the high-water mark of one tsched_route call above the resident set before it. */
            double rss_flows1 = current_rss_mb(), max0 = peak_rss_mb();
            run r;
            tsched_routes *rt = route_once(&r, t, f, TSCHED_ROUTE_GREEDY, 1, 0);
            if (!rt)
                die("tsched_route (memory)", r.err);
            double max1 = peak_rss_mb(), held = current_rss_mb();
            tsched_routes_free(rt);
            mem_flows = rss_flows1 - rss_flows0;
            mem_route_peak = max1 > max0 ? max1 - rss_flows1 : -1;
            mem_routes_held = held - rss_flows1;
            mem_n = n;
        }
        for (unsigned a = 0; a < 4; a++) {
            tsched_route_algo algo = a < 3 ? ALGOS[a] : TSCHED_ROUTE_GREEDY;
            int via = a == 3;
            char label[96], name[40];
            snprintf(name, sizeof name, "%s%s", tsched_route_algo_name(algo), via ? " +router" : "");
            snprintf(label, sizeof label, "speed %s %u random", name, n);
            unsigned runs = runs_for(o, n);
            timing tm = time_route(label, via ? rtr : NULL, t, f, algo, 1, runs, runs > 5 ? 5 : runs, c, paths,
                                   rates, NULL);
            double rest = tm.outside - tm.rates;
            printf("%-20s %9u %5u %10.4f %10.4f %10.4f %10.4f %10.4f %9.1f %6u %7.3f\n", name, n, runs, tm.wall,
                   tm.solve, tm.outside, tm.rates, rest, tm.wall * 1e6 / n, tm.max_link_flows, tm.min_rate);
            jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"speed\", \"traffic\": \"random\", \"algo\": "
                  "\"%s\", \"router\": %s, \"flows\": %u, \"threads\": 1, \"runs\": %u, \"wall_ms\": %.6g, "
                  "\"wall_min_ms\": %.6g, \"wall_max_ms\": %.6g, \"solve_ms\": %.6g, \"outside_ms\": %.6g, "
                  "\"rates_ms\": %.6g, \"ns_per_flow\": %.4g, \"max_link_flows\": %u, \"min_rate_gbps\": %.6g}",
                  o->quick ? "true" : "false", tsched_route_algo_name(algo), via ? "true" : "false", n, runs, tm.wall,
                  tm.wall_min, tm.wall_max, tm.solve, tm.outside, tm.rates, tm.wall * 1e6 / n, tm.max_link_flows,
                  tm.min_rate);
            if (a == 0 && n == 1500)
                g1500 = tm;
            if (a == 0 && n == 1000000)
                g1m = tm;
        }
        if (n == 1500 || n == 1000000) {
            tsched_router *warm;
            tsched_status rst = tsched_router_new(&warm, t);
            if (rst != TSCHED_OK)
                die("tsched_router_new", rst);
            unsigned runs = runs_for(o, n);
            double cold = time_paths_only(NULL, t, f, runs);
            time_paths_only(warm, t, f, 1); /* fill the cache */
            double hot = time_paths_only(warm, t, f, runs);
            tsched_router_free(warm);
            printf("%-20s %9u %5u %10.4f  paths only (TSCHED_ROUTE_NO_RATES); warm router %.4f ms\n", "greedy", n, runs,
                   cold, hot);
            jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"paths-only\", \"flows\": %u, \"runs\": %u, "
                  "\"wall_ms\": %.6g, \"warm_router_ms\": %.6g}",
                  o->quick ? "true" : "false", n, runs, cold, hot);
            if (n == 1500) {
                /* the same flows as a plain loop, and the first call of fresh processes */
                double ref = time_reference(t, f, runs);
                unsigned procs = o->quick ? 11 : 31;
                double first = time_first_call(o->seed, 0, procs), firsti = time_first_call(o->seed, 1, procs);
                printf("%-20s %9u %5u %10.4f  plain reference (bench/ref_greedy.c, cold): library / reference = %.1fx\n",
                       "reference", n, runs, ref, cold / ref);
                printf("%-20s %9u %5u %10.4f  first call of a fresh process = %.2fx a later one (fabric's path index "
                       "built before: %.4f ms, %.2fx)\n",
                       "greedy first call", n, procs, first, first / cold, firsti, firsti / cold);
                jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"cold-1500\", \"flows\": %u, "
                      "\"wall_ms\": %.6g, \"reference_ms\": %.6g, \"ratio\": %.4g, \"first_call_ms\": %.6g, "
                      "\"first_call_indexed_ms\": %.6g, \"first_ratio\": %.4g, \"first_indexed_ratio\": %.4g}",
                      o->quick ? "true" : "false", n, cold, ref, cold / ref, first, firsti, first / cold,
                      firsti / cold);
                p1500 = cold;
                p1500w = hot;
            } else {
                p1m = cold;
                p1mw = hot;
            }
        }
        if (n == 1500)
            f1500 = f;
        else
            tsched_flows_free(f);
    }
    tsched_router_free(rtr);

    /* ILP on the 1,500 random flows (one run: it is slow). */
    run ilp, gr;
    tsched_routes *r = route_once(&ilp, t, f1500, TSCHED_ROUTE_ILP, 1, o->time_limit_ms);
    tsched_routes *rg = route_once(&gr, t, f1500, TSCHED_ROUTE_GREEDY, 1, 0);
    if (!r || !rg)
        die("tsched_route (1,500 flows, ilp / greedy)", r ? gr.err : ilp.err);
    check_routes("speed ilp 1500 random", t, f1500, r, c, NULL);
    if (ilp.max_link_flows > gr.max_link_flows)
        problem("speed ilp 1500: max_link_flows %u worse than greedy %u", ilp.max_link_flows, gr.max_link_flows);
    printf("%-20s %9u %5u %10.4f %10.4f %10.4f %10s %10s %9.1f %6u %7.3f  status %s (limit %u ms), greedy mlf %u, "
           "lb %u\n",
           "ilp", 1500u, 1u, ilp.wall_ms, ilp.solve_ms, ilp.wall_ms - ilp.solve_ms, "", "", ilp.wall_ms * 1e6 / 1500,
           ilp.max_link_flows, ilp.min_rate, ilp.status, o->time_limit_ms, gr.max_link_flows, leaf_bound(t, f1500));
    jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"speed\", \"traffic\": \"random\", \"algo\": \"ilp\", "
          "\"flows\": 1500, \"threads\": 1, \"runs\": 1, \"wall_ms\": %.6g, \"solve_ms\": %.6g, \"status\": \"%s\", "
          "\"max_link_flows\": %u, \"min_rate_gbps\": %.6g, \"greedy_max_link_flows\": %u}",
          o->quick ? "true" : "false", ilp.wall_ms, ilp.solve_ms, ilp.status, ilp.max_link_flows, ilp.min_rate,
          gr.max_link_flows);
    tsched_routes_free(r);
    tsched_routes_free(rg);

    /* The same with one leaf-spine trunk down: the leaf pairs no longer share one set of
     * spines, so the exact two-tier colouring does not apply and the ILP goes to GLPK. */
    tsched_status tst = tsched_topology_set_trunk_up(t, 0, 0);
    if (tst != TSCHED_OK)
        die("tsched_topology_set_trunk_up", tst);
    r = route_once(&ilp, t, f1500, TSCHED_ROUTE_ILP, 1, o->time_limit_ms);
    rg = route_once(&gr, t, f1500, TSCHED_ROUTE_GREEDY, 1, 0);
    if (!r || !rg)
        die("tsched_route (1,500 flows, one trunk down, ilp / greedy)", r ? gr.err : ilp.err);
    check_routes("speed ilp 1500 random, trunk 0 down", t, f1500, r, c, NULL);
    if (ilp.max_link_flows > gr.max_link_flows)
        problem("speed ilp 1500 trunk down: max_link_flows %u worse than greedy %u", ilp.max_link_flows,
                gr.max_link_flows);
    printf("%-20s %9u %5u %10.4f %10.4f %10.4f %10s %10s %9.1f %6u %7.3f  status %s, greedy mlf %u, lb %u "
           "(trunk %s~%s down)\n",
           "ilp, 1 trunk down", 1500u, 1u, ilp.wall_ms, ilp.solve_ms, ilp.wall_ms - ilp.solve_ms, "", "",
           ilp.wall_ms * 1e6 / 1500, ilp.max_link_flows, ilp.min_rate, ilp.status, gr.max_link_flows,
           leaf_bound(t, f1500), tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, 0)),
           tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, 0)));
    jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"speed\", \"traffic\": \"random, trunk 0 down\", "
          "\"algo\": \"ilp\", \"flows\": 1500, \"threads\": 1, \"runs\": 1, \"wall_ms\": %.6g, \"solve_ms\": %.6g, "
          "\"status\": \"%s\", \"max_link_flows\": %u, \"min_rate_gbps\": %.6g, \"greedy_max_link_flows\": %u}",
          o->quick ? "true" : "false", ilp.wall_ms, ilp.solve_ms, ilp.status, ilp.max_link_flows, ilp.min_rate,
          gr.max_link_flows);
    tsched_routes_free(r);
    tsched_routes_free(rg);
    if ((tst = tsched_topology_set_trunk_up(t, 0, 1)) != TSCHED_OK)
        die("tsched_topology_set_trunk_up", tst);
    tsched_flows_free(f1500);

    /* Threads: many components (leaf a -> leaf a + 1) and random traffic (one component). The
     * thread counts take turns run by run, so that a slow spell of the machine hits all alike. */
    uint32_t nt = nmax;
    unsigned truns = o->quick ? 3 : 7;
    long cpus = -1;
#ifdef _SC_NPROCESSORS_ONLN
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    printf("\n   threads (greedy, %u flows, %u runs each, thread counts interleaved, %ld CPUs online): speed-up = "
           "one-thread median / this median;\n   every threaded answer is compared with the one-thread answer\n",
           nt, truns, cpus);
    printf("%-16s %7s %10s %10s %10s %10s %9s %9s %8s\n", "traffic", "threads", "wall ms", "solve ms", "solve min",
           "solve max", "x wall", "x solve", "mlf");
    const int traffics[] = {TRAFFIC_LEAFPERM, TRAFFIC_RANDOM};
    const char *tnames[] = {"leaf-perm (64c)", "random (1c)"};
    const uint32_t threads[] = {1, 2, 4};
    double *tw[3], *ts[3];
    for (unsigned k = 0; k < 3; k++) {
        tw[k] = xcalloc(truns, sizeof *tw[k]);
        ts[k] = xcalloc(truns, sizeof *ts[k]);
    }
    for (unsigned q = 0; q < 2; q++) {
        tsched_flows *f = make_flows(t, nt, traffics[q], o->seed);
        uint32_t mlf[3] = {0, 0, 0};
        for (unsigned i = 0; i < truns; i++)
            for (unsigned k = 0; k < 3; k++) {
                char label[96];
                snprintf(label, sizeof label, "threads %u %s", threads[k], tnames[q]);
                run r;
                tsched_routes *rt = route_once(&r, t, f, TSCHED_ROUTE_GREEDY, threads[k], 0);
                if (!rt)
                    die(label, r.err);
                tw[k][i] = r.wall_ms;
                ts[k][i] = r.solve_ms;
                if (i == 0) {
                    mlf[k] = r.max_link_flows;
                    if (check_routes(label, t, f, rt, c, k ? paths : ref) == 0 && k) {
                        uint32_t diff = 0;
                        for (uint32_t j = 0; j < nt; j++)
                            diff += memcmp(&paths[j], &ref[j], sizeof paths[j]) != 0;
                        if (diff)
                            problem("%s: %u of %u paths differ from the one-thread answer", label, diff, nt);
                    }
                } else if (r.max_link_flows != mlf[k]) {
                    problem("%s: run %u gave max_link_flows %u, run 0 %u", label, i, r.max_link_flows, mlf[k]);
                }
                tsched_routes_free(rt);
            }
        double w1 = 0, s1 = 0;
        for (unsigned k = 0; k < 3; k++) {
            double smin = ts[k][0], smax = ts[k][0];
            for (unsigned i = 1; i < truns; i++) {
                smin = ts[k][i] < smin ? ts[k][i] : smin;
                smax = ts[k][i] > smax ? ts[k][i] : smax;
            }
            double wm = median(tw[k], truns), sm = median(ts[k], truns);
            if (k == 0) {
                w1 = wm;
                s1 = sm;
            }
            printf("%-16s %7u %10.3f %10.3f %10.3f %10.3f %9.2f %9.2f %8u\n", tnames[q], threads[k], wm, sm, smin, smax,
                   w1 / wm, s1 / sm, mlf[k]);
            jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"threads\", \"traffic\": \"%s\", \"flows\": %u, "
                  "\"threads\": %u, \"runs\": %u, \"wall_ms\": %.6g, \"solve_ms\": %.6g, \"solve_min_ms\": %.6g, "
                  "\"solve_max_ms\": %.6g, \"speedup_wall\": %.4g, \"speedup_solve\": %.4g, \"max_link_flows\": %u}",
                  o->quick ? "true" : "false", q ? "random" : "leaf-perm", nt, threads[k], truns, wm, sm, smin, smax,
                  w1 / wm, s1 / sm, mlf[k]);
        }
        tsched_flows_free(f);
    }
    for (unsigned k = 0; k < 3; k++) {
        free(tw[k]);
        free(ts[k]);
    }

    printf("\n   memory, %u random flows (resident set, MiB): flow set %.1f; one greedy tsched_route: peak %.1f above "
           "the resident set before the call, result kept %.1f\n",
           mem_n, mem_flows, mem_route_peak, mem_routes_held);
    jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"memory\", \"flows\": %u, \"flow_set_mib\": %.4g, "
          "\"route_peak_mib\": %.4g, \"routes_kept_mib\": %.4g}",
          o->quick ? "true" : "false", mem_n, mem_flows, mem_route_peak, mem_routes_held);

    printf("\n   targets (greedy path assignment, one thread, median wall time of tsched_route with "
           "TSCHED_ROUTE_NO_RATES; the max-min rates are reported apart)\n");
    char note[200];
    snprintf(note, sizeof note, "(warm router %.3f ms; with rates %.3f ms, of which rates %.3f ms)", p1500w, g1500.wall,
             g1500.rates);
    target(o, "greedy 1,500 random flows", p1500, TARGET_SMALL_MS, note);
    if (!o->quick) {
        snprintf(note, sizeof note, "(warm router %.1f ms; with rates %.1f ms, of which rates %.1f ms)", p1mw, g1m.wall,
                 g1m.rates);
        target(o, "greedy 1,000,000 random flows", p1m, TARGET_LARGE_MS, note);
    } else {
        printf("%-52s (not run with --quick)\n", "greedy 1,000,000 random flows");
    }
    free(paths);
    free(ref);
    free(rates);
    checker_free(c);
    tsched_topology_free(t);
}

/* ---- 4. one flow on a huge fabric ------------------------------------------------------ */

/* A field of /proc/self/status in MiB (-1 if unknown). */
static double status_mib(const char *field)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    size_t n = strlen(field);
    if (!fp)
        return -1;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            v = atof(line + n + 1) / 1024.0;
    fclose(fp);
    return v;
}

/* Reset VmHWM to the current resident set (Linux clear_refs 5); 0 if not possible. */
static int reset_peak(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (!fp)
        return 0;
    int ok = fputs("5", fp) >= 0;
    return fclose(fp) == 0 && ok;
}

/* Routing state must grow with the flows, not the fabric (DESIGN 3): one flow between the
 * first and last node of leaf_spine fabrics of 65,536 and 262,144 nodes with 256 NICs each
 * (16.7 M and 67 M NIC links). Reports the wall time of tsched_route and the peak resident
 * set above the one before the call (VmHWM after clear_refs). */
static void part_huge(const options *o)
{
    (void)o;
    const uint32_t leaves[] = {1024, 4096};
    printf("\n4. One flow on a huge fabric: leaf_spine L x 64 spines, 64 nodes per leaf, 256 NICs per node.\n");
    printf("%-10s %9s %10s %10s %12s %12s %10s\n", "nodes", "trunks", "gen ms", "fabric MiB", "route ms",
           "peak +MiB", "rate");
    tsched_limits lim = {.size = sizeof lim};
    tsched_status st = tsched_limits_get(&lim);
    if (st != TSCHED_OK)
        die("tsched_limits_get", st);
    lim.nics_per_node = 256;
    if ((st = tsched_limits_set(&lim)) != TSCHED_OK)
        die("tsched_limits_set", st);
    for (unsigned k = 0; k < 2; k++) {
        double rss_before_gen = current_rss_mb(), t0 = now_ms();
        tsched_gen_params p;
        tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
        p.leaves = leaves[k];
        p.spines = 64;
        p.nodes_per_leaf = 64;
        p.gpus_per_node = 8;
        p.nics_per_node = 256;
        tsched_topology *t = NULL;
        if ((st = tsched_topology_generate(&t, &p)) != TSCHED_OK)
            die("tsched_topology_generate", st);
        double gen_ms = now_ms() - t0, fabric = current_rss_mb() - rss_before_gen;
        uint32_t last = tsched_topology_num_nodes(t) - 1;
        tsched_flows *f = NULL;
        if ((st = tsched_flows_new(&f)) != TSCHED_OK || (st = tsched_flows_add(NULL, f, "job", 0, 7, last, 255, 1.0)))
            die("tsched_flows_add", st);
        int peak_ok = reset_peak();
        double rss0 = status_mib("VmRSS");
        t0 = now_ms();
        tsched_routes *r = NULL;
        if ((st = tsched_route(&r, t, f, NULL)) != TSCHED_OK)
            die("tsched_route", st);
        double ms = now_ms() - t0, peak = peak_ok ? status_mib("VmHWM") - rss0 : -1;
        tsched_path path = {.size = sizeof path};
        if (tsched_routes_path(&path, r, 0) != TSCHED_OK || path.nswitches != 3 ||
            path.switches[0] != tsched_topology_node_nic_leaf(t, 0, 7) ||
            path.switches[2] != tsched_topology_node_nic_leaf(t, last, 255))
            problem("huge %u nodes: the path does not join the flow's NIC leaves", last + 1);
        if (tsched_routes_rate(r, 0) != tsched_topology_node_nic_gbps(t, 0))
            problem("huge %u nodes: rate %g, expected the NIC speed %g", last + 1, tsched_routes_rate(r, 0),
                    tsched_topology_node_nic_gbps(t, 0));
        printf("%-10u %9u %10.1f %10.1f %12.3f %12.2f %10.1f\n", last + 1, tsched_topology_num_trunks(t), gen_ms,
               fabric, ms, peak, tsched_routes_rate(r, 0));
        jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"huge\", \"nodes\": %u, \"nics_per_node\": 256, "
              "\"trunks\": %u, \"route_ms\": %.6g, \"route_peak_mib\": %.6g}",
              o->quick ? "true" : "false", last + 1, tsched_topology_num_trunks(t), ms, peak);
        if (peak > 64)
            problem("huge %u nodes: routing one flow raised the peak resident set by %.1f MiB (limit 64)", last + 1,
                    peak);
        tsched_routes_free(r);
        tsched_flows_free(f);
        tsched_topology_free(t);
    }
    tsched_limits_reset();
}

/* ---- main ------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_routing [--quick] [--huge-only | --greedy-ratio] [--json] [--strict] [--dcn DIR] [--runs N]\n"
            "                     [--time-limit-ms N] [--fault-seeds N] [--seed N] [--flows N]\n"
            "  --quick            up to 100,000 flows, fewer runs, 1 fault seed, ilp limit 1 s (targets not judged)\n"
            "  --huge-only        only part 4: one flow on fabrics of 65,536 and 262,144 nodes x 256 NICs\n"
            "  --greedy-ratio     only greedy paths only against bench/ref_greedy.c, 1k to 10M flows (quick: to\n"
            "                     100k), and the first call of fresh processes (issue 10, targets 1 and 2)\n"
            "  --flows N          with --greedy-ratio: only N flows, --runs runs, no first calls (for callgrind)\n"
            "  --json             also print one JSON object per result\n"
            "  --strict           exit 1 if a target is missed (failed checks always give exit 1)\n"
            "  --dcn DIR          converted dcn-simulators instances: DIR/dcn-fabric.json, DIR/dcn-*.flows.json\n"
            "                     (bench/convert_dcn.py; default %s)\n"
            "  --runs N           timed runs of the 1,000,000-flow cases (default 5)\n"
            "  --time-limit-ms N  ilp time limit (default 10000, quick 1000)\n"
            "  --fault-seeds N    seeds 1..N of the spine failures (default 3, max %d)\n"
            "  --seed N           seed of the random flow sets (default 1)\n",
            *BENCH_DCN_DEFAULT ? BENCH_DCN_DEFAULT : "none", MAX_FAULT_SEEDS);
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
    o->dcn = BENCH_DCN_DEFAULT;
    for (int i = 1; i < argc; i++) {
        unsigned long v = 0;
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--huge-only") == 0) {
            o->huge_only = 1;
        } else if (strcmp(a, "--greedy-ratio") == 0) {
            o->greedy_ratio = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (i + 1 < argc && strcmp(a, "--dcn") == 0) {
            o->dcn = argv[++i];
            o->dcn_given = 1;
        } else if (i + 1 < argc && strcmp(a, "--runs") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 && v <= 1000) {
            o->runs = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--time-limit-ms") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= 3600000ul) {
            o->time_limit_ms = (uint32_t)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--fault-seeds") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= MAX_FAULT_SEEDS) {
            o->fault_seeds = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--flows") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= 100000000ul) {
            o->flows = (uint32_t)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--seed") == 0 && parse_ulong(argv[i + 1], &v)) {
            o->seed = v;
            i++;
        } else {
            fprintf(stderr, "bench_routing: bad argument \"%s\"\n", a);
            usage(stderr);
            exit(2);
        }
    }
    if (!o->runs)
        o->runs = 5;
    if (!o->time_limit_ms)
        o->time_limit_ms = o->quick ? 1000 : 10000;
    if (!o->fault_seeds)
        o->fault_seeds = o->quick ? 1 : 3;
}

int main(int argc, char **argv)
{
    g_argv0 = argv[0];
    if (argc >= 2 && (strcmp(argv[1], "--first-call") == 0 || strcmp(argv[1], "--first-call-indexed") == 0)) {
        unsigned long v = 1;
        if (argc == 4 && strcmp(argv[2], "--seed") == 0 && !parse_ulong(argv[3], &v))
            return 2;
        return first_call_main(v, strcmp(argv[1], "--first-call-indexed") == 0);
    }
    options o;
    parse_args(&o, argc, argv);
    printf("bench_routing %s: ilp limit %u ms, fault seeds 1..%u, flow seed %llu%s\n", tsched_version(),
           o.time_limit_ms, o.fault_seeds, (unsigned long long)o.seed, o.quick ? " (quick)" : "");
    double t0 = now_ms();
    checker c;
    if (o.huge_only || o.greedy_ratio) {
        if (o.greedy_ratio)
            part_greedy_ratio(&o);
        else
            part_huge(&o);
        printf("problems (library answers failing a check): %d\ntotal bench time %.1f s\n", g_problems,
               (now_ms() - t0) / 1e3);
        if (o.json && g_json)
            fputs(g_json, stdout);
        free(g_json);
        return g_problems ? 1 : 0;
    }

    /* 1 + 2: the dcn instances, when converted */
    char fabric[1200];
    snprintf(fabric, sizeof fabric, "%s/dcn-fabric.json", o.dcn);
    FILE *probe = *o.dcn ? fopen(fabric, "r") : NULL;
    if (probe) {
        fclose(probe);
        tsched_topology *t = NULL;
        tsched_status st = tsched_topology_load_file(&t, fabric);
        if (st != TSCHED_OK)
            die(fabric, st);
        if (!check_dcn_fabric(t)) {
            fprintf(stderr, "bench_routing: %s is not the 64 x 32 fat tree of the paper\n", fabric);
            return 1;
        }
        instance *inst = xcalloc(MAX_FILES, sizeof *inst);
        size_t ninst = list_instances(inst, o.dcn);
        if (!ninst) {
            fprintf(stderr, "bench_routing: no dcn-*.flows.json in %s\n", o.dcn);
            return 1;
        }
        printf("dcn instances: %zu flow sets in %s\n", ninst, o.dcn);
        checker_init(&c, t);
        part_dcn(&o, t, inst, ninst, &c);
        part_faults(&o, t, inst, ninst, &c);
        checker_free(&c);
        for (size_t k = 0; k < ninst; k++)
            tsched_flows_free(inst[k].flows);
        free(inst);
        tsched_topology_free(t);
    } else if (o.dcn_given) {
        fprintf(stderr, "bench_routing: %s: %s (convert with bench/convert_dcn.py)\n", fabric, strerror(errno));
        return 2;
    } else {
        printf("\n1-2. dcn instances: skipped (no converted instances%s%s; run bench/convert_dcn.py DCN_DIR OUT_DIR "
               "and pass --dcn OUT_DIR)\n",
               *o.dcn ? " in " : "", o.dcn);
    }

    /* 3: speed, 4: one flow on a huge fabric */
    part_speed(&o, &c);
    part_huge(&o);

    double rss = peak_rss_mb();
    printf("\npeak memory (ru_maxrss, whole run): %.1f MiB\n", rss);
    jsonf("{\"bench\": \"routing\", \"quick\": %s, \"type\": \"memory\", \"metric\": \"peak memory (ru_maxrss)\", "
          "\"value\": %.4g, \"unit\": \"MiB\"}",
          o.quick ? "true" : "false", rss);
    printf("problems (library answers failing a check): %d\n", g_problems);
    if (!o.quick)
        printf("targets: %s\n", g_misses ? "MISSED (see the table)" : "all PASS");
    printf("total bench time %.1f s\n", (now_ms() - t0) / 1e3);
    if (o.json && g_json)
        fputs(g_json, stdout);
    free(g_json);
    return g_problems || (o.strict && g_misses) ? 1 : 0;
}
