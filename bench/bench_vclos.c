/* vClos allocation speed (doc/vclos.md §3 "Measured", §9 targets), through the public API:
 * per instance, random earlier jobs (single-leaf jobs and vClos jobs of random shapes on
 * random leaves and spines, written into the fabric's state) until a node utilisation
 * drawn uniformly in 30-90 %, then jobs of 2^k
 * nodes (k = 1..6, at most half the nodes), each timed (tsched_vclos_allocate: every stage
 * and shape, model building and the wait-reason probe included) and released again.
 * Fabrics: 512 GPUs (16 leaves x 32 spines x 1 member), 2,048 GPUs (64 x 32 x 1), and
 * 512 GPUs as 16 x 8 x 4; 4 nodes x 8 GPUs (8 NICs) per leaf. Reference in the same run: a
 * one-leaf (stage-1) allocation and its release on the same fabric, which runs no ILP.
 * usage: bench_vclos [--quick] [--seed N] [--instances N] [--mode vclos|ocs] */
#define BENCH_NAME "bench_vclos"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

#include "bench_util.h"

static uint64_t seed = 1;
static uint32_t instances = 200;
static tsched_vclos_mode mode = TSCHED_VCLOS_MODE_VCLOS;

static void report(const char *what, double value, const char *unit, const char *target, int pass)
{
    printf("%-64s %12.3f %-6s %-10s %s\n", what, value, unit, target, target[0] ? (pass ? "PASS" : "MISS") : "");
}

static tsched_topology *gen(uint32_t L, uint32_t S, uint32_t K)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = L;
    g.spines = S;
    g.uplinks = K;
    g.nodes_per_leaf = 4;
    g.gpus_per_node = 8;
    g.nics_per_node = 8;
    g.nic_gbps = 100;
    tsched_topology *t;
    tsched_status st = tsched_topology_generate(&t, &g);
    if (st != TSCHED_OK)
        die("tsched_topology_generate", st);
    return t;
}

/* The occupancy of §3 "Measured", written into the topology's state before the handle is
 * made (a busy node has no free GPU, a reserved member is down: to stage 2 both are simply
 * not free): earlier jobs, each either a single-leaf job (random idle nodes of a random
 * leaf) or a vClos job of a random shape (l, q) on random leaves with q idle nodes each and
 * s = q * E random common free spine slots, until the share of busy nodes reaches `util`. */
typedef struct occ {
    uint32_t L, S, K, P, E;
    uint32_t *leaf_node;  /* L * P: node of (leaf, i) */
    uint8_t *busy;        /* L * P */
    uint8_t *taken;       /* L * S * K */
    uint32_t *pick;       /* scratch */
} occ;

static uint32_t idle_of(const occ *o, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < o->P; i++)
        c += !o->busy[n * o->P + i];
    return c;
}

static void take_nodes(occ *o, uint32_t n, uint32_t q, uint64_t *rng)
{
    while (q) {
        uint32_t i = rng_below(rng, o->P);
        if (!o->busy[n * o->P + i]) {
            o->busy[n * o->P + i] = 1;
            q--;
        }
    }
}

static void make_occupancy(occ *o, double util, uint64_t *rng)
{
    uint32_t total = o->L * o->P, busy = 0, guard = 0;
    uint32_t *leaves = o->pick, *slots = o->pick + o->L;
    while (busy < util * total && guard++ < 100 * total) {
        uint32_t n = rng_below(rng, o->L);
        if (rng_below(rng, 2) == 0) { /* single-leaf job */
            uint32_t idle = idle_of(o, n);
            if (!idle)
                continue;
            uint32_t q = 1 + rng_below(rng, idle);
            take_nodes(o, n, q, rng);
            busy += q;
            continue;
        }
        uint32_t l = 2 + rng_below(rng, o->L - 1 < 7 ? o->L - 1 : 7), q = 1 + rng_below(rng, o->P);
        uint32_t s = q * o->E, nl = 0;
        /* l random leaves with q idle nodes */
        for (uint32_t i = 0; i < o->L; i++)
            if (idle_of(o, i) >= q)
                leaves[nl++] = i;
        if (nl < l)
            continue;
        for (uint32_t i = 0; i < l; i++) { /* partial shuffle */
            uint32_t j = i + rng_below(rng, nl - i), x = leaves[i];
            leaves[i] = leaves[j];
            leaves[j] = x;
        }
        /* common free slots (spine m, the c-th free member on every chosen leaf) */
        uint32_t ns = 0;
        for (uint32_t m = 0; m < o->S; m++) {
            uint32_t common = o->K;
            for (uint32_t i = 0; i < l; i++) {
                uint32_t f = 0;
                for (uint32_t k = 0; k < o->K; k++)
                    f += !o->taken[((size_t)leaves[i] * o->S + m) * o->K + k];
                if (f < common)
                    common = f;
            }
            for (uint32_t c = 0; c < common; c++)
                slots[ns++] = m;
        }
        if (ns < s)
            continue;
        for (uint32_t i = 0; i < s; i++) {
            uint32_t j = i + rng_below(rng, ns - i), x = slots[i];
            slots[i] = slots[j];
            slots[j] = x;
        }
        for (uint32_t i = 0; i < l; i++) {
            take_nodes(o, leaves[i], q, rng);
            busy += q;
            for (uint32_t v = 0; v < s; v++) {
                uint8_t *t = o->taken + ((size_t)leaves[i] * o->S + slots[v]) * o->K;
                uint32_t k = 0;
                while (t[k])
                    k++;
                t[k] = 1;
            }
        }
    }
}

/* A fresh fabric carrying a random occupancy. */
static tsched_topology *occupied(uint32_t L, uint32_t S, uint32_t K, uint64_t *rng, double *util_out)
{
    tsched_topology *t = gen(L, S, K);
    occ o = {L, S, K, 4, 8, NULL, NULL, NULL, NULL};
    o.leaf_node = xcalloc((size_t)L * o.P, sizeof *o.leaf_node);
    o.busy = xcalloc((size_t)L * o.P, 1);
    o.taken = xcalloc((size_t)L * S * K, 1);
    o.pick = xcalloc((size_t)L + (size_t)S * K + 1, sizeof *o.pick);
    uint32_t *fill = xcalloc(L, sizeof *fill);
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++) {
        uint32_t sw = tsched_topology_node_leaf(t, n), leaf = 0;
        while (tsched_topology_tier_switch(t, 0, leaf) != sw)
            leaf++;
        o.leaf_node[leaf * o.P + fill[leaf]++] = n;
    }
    free(fill);
    double util = 0.30 + 0.60 * (double)rng_below(rng, 1u << 20) / (double)(1u << 20);
    make_occupancy(&o, util, rng);
    tsched_status st;
    uint32_t busy = 0;
    for (uint32_t i = 0; i < L * o.P; i++)
        if (o.busy[i]) {
            busy++;
            if ((st = tsched_topology_set_free_gpus(t, o.leaf_node[i], 0)) != TSCHED_OK)
                die("tsched_topology_set_free_gpus", st);
        }
    for (uint32_t a = 0; a < L; a++)
        for (uint32_t b = 0; b < S; b++) {
            uint32_t r = tsched_topology_find_trunk(t, tsched_topology_tier_switch(t, 0, a),
                                                    tsched_topology_tier_switch(t, 1, b));
            for (uint32_t k = 0; k < K; k++)
                if (o.taken[((size_t)a * S + b) * K + k] &&
                    (st = tsched_topology_set_member_up(t, tsched_topology_trunk_first_member(t, r) + k, 0)) !=
                        TSCHED_OK)
                    die("tsched_topology_set_member_up", st);
        }
    *util_out = (double)busy / (L * o.P);
    free(o.leaf_node);
    free(o.busy);
    free(o.taken);
    free(o.pick);
    return t;
}

/* OCS mode: earlier jobs allocated through the handle (single-leaf jobs of 1-4 nodes and
 * multi-leaf jobs of 2-16 nodes, in random order) until a node utilisation drawn uniformly in
 * 30-90 % is reached or 50 requests in a row wait; they reserve ports and re-point
 * circuits as real jobs do. Returns the utilisation reached. */
static double occupy_by_allocation(tsched_vclos *v, uint32_t nodes, uint64_t *rng)
{
    double want = 0.30 + 0.60 * (double)rng_below(rng, 1u << 20) / (double)(1u << 20);
    uint32_t used = 0, fails = 0, id = 0;
    while ((double)used / nodes < want && fails < 50) {
        uint32_t q = rng_below(rng, 2) ? 1 + (uint32_t)rng_below(rng, 4) : 2u << rng_below(rng, 4);
        char name[32];
        snprintf(name, sizeof name, "o%u", id++);
        tsched_vclos_outcome out;
        tsched_status st = tsched_vclos_allocate(v, name, 8 * q, &out);
        if (st != TSCHED_OK)
            die("tsched_vclos_allocate", st);
        if (out == TSCHED_VCLOS_ALLOCATED) {
            used += q;
            fails = 0;
        } else
            fails++;
    }
    return (double)used / nodes;
}

typedef struct acc {
    uint32_t n, stage2, optimal, outcome[4];
    double sum, worst, sum2, worst2;
} acc;

static void one_fabric(const char *label, uint32_t L, uint32_t S, uint32_t K, double target_ms)
{
    tsched_topology *t = gen(L, S, K);
    uint32_t nodes = tsched_topology_num_nodes(t);
    tsched_vclos *v;
    tsched_status st = tsched_vclos_new(&v, t, mode);
    if (st != TSCHED_OK) {
        printf("%s: skipped: %s\n", label, tsched_last_error());
        tsched_topology_free(t);
        return;
    }
    /* reference: a one-leaf job (stage 1, no ILP), allocated and released */
    double r0 = now_ms();
    uint32_t reps = 2000;
    for (uint32_t i = 0; i < reps; i++) {
        tsched_vclos_outcome out;
        if ((st = tsched_vclos_allocate(v, "ref", 32, &out)) != TSCHED_OK)
            die("tsched_vclos_allocate", st);
        if ((st = tsched_vclos_release(v, "ref")) != TSCHED_OK)
            die("tsched_vclos_release", st);
    }
    double ref_ms = (now_ms() - r0) / reps;
    tsched_vclos_free(v);

    acc a;
    memset(&a, 0, sizeof a);
    uint64_t rng = rng_stream(L * 1000 + S * 10 + K, seed);
    double util_sum = 0;
    for (uint32_t inst = 0; inst < instances; inst++) {
        double util;
        tsched_topology *ti;
        if (mode == TSCHED_VCLOS_MODE_OCS) {
            /* OCS ports are not topology members: the earlier jobs are real allocations */
            ti = gen(L, S, K);
            if ((st = tsched_vclos_new(&v, ti, mode)) != TSCHED_OK)
                die("tsched_vclos_new", st);
            util = occupy_by_allocation(v, nodes, &rng);
        } else {
            ti = occupied(L, S, K, &rng, &util);
            if ((st = tsched_vclos_new(&v, ti, mode)) != TSCHED_OK)
                die("tsched_vclos_new", st);
        }
        util_sum += util;
        for (uint32_t k = 1; k <= 6 && (1u << k) <= nodes / 2; k++) {
            tsched_vclos_outcome out;
            double t0 = now_ms();
            if ((st = tsched_vclos_allocate(v, "probe", 8u << k, &out)) != TSCHED_OK)
                die("tsched_vclos_allocate", st);
            double ms = now_ms() - t0;
            a.n++;
            a.sum += ms;
            if (ms > a.worst)
                a.worst = ms;
            a.outcome[out]++;
            int s2 = out == TSCHED_VCLOS_WAIT_NETWORK || out == TSCHED_VCLOS_WAIT_TIMEOUT;
            if (out == TSCHED_VCLOS_ALLOCATED) {
                tsched_vclos_jobinfo info = {.size = sizeof info};
                if ((st = tsched_vclos_job_info(&info, v, "probe")) != TSCHED_OK)
                    die("tsched_vclos_job_info", st);
                if (info.stage == 2) {
                    s2 = 1;
                    a.optimal += info.optimal != 0;
                }
                if ((st = tsched_vclos_release(v, "probe")) != TSCHED_OK)
                    die("tsched_vclos_release", st);
            }
            if (s2) {
                a.stage2++;
                a.sum2 += ms;
                if (ms > a.worst2)
                    a.worst2 = ms;
            }
        }
        tsched_vclos_free(v);
        tsched_topology_free(ti);
    }
    tsched_topology_free(t);
    char what[160];
    printf("%s (%s mode), %u instances, %u allocations: %u allocated (%u in stage 2, %u proven optimal), "
           "waits gpu %u network %u timeout %u; mean node utilisation %.0f %%\n",
           label, mode == TSCHED_VCLOS_MODE_OCS ? "ocs" : "vclos", instances, a.n, a.outcome[0], a.stage2 - a.outcome[2] - a.outcome[3],
           a.optimal, a.outcome[1], a.outcome[2], a.outcome[3], instances ? 100 * util_sum / instances : 0);
    char target[32];
    snprintf(target, sizeof target, "< %g ms", target_ms);
    snprintf(what, sizeof what, "%s: mean per allocation", label);
    report(what, a.n ? a.sum / a.n : 0, "ms", target_ms > 0 ? target : "", a.n && a.sum / a.n < target_ms);
    snprintf(what, sizeof what, "%s: worst allocation", label);
    report(what, a.worst, "ms", "", 0);
    snprintf(what, sizeof what, "%s: mean / worst of the %u that reached stage 2", label, a.stage2);
    report(what, a.stage2 ? a.sum2 / a.stage2 : 0, "ms", "", 0);
    report("", a.worst2, "ms", "", 0);
    snprintf(what, sizeof what, "%s: stage-2 allocations proven optimal", label);
    uint32_t alloc2 = a.stage2 - a.outcome[2] - a.outcome[3];
    report(what, alloc2 ? 100.0 * a.optimal / alloc2 : 100, "%", "100 %", a.optimal == alloc2);
    snprintf(what, sizeof what, "%s: reference, one-leaf allocate + release", label);
    report(what, ref_ms, "ms", "", 0);
}

int main(int argc, char **argv)
{
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--instances") && i + 1 < argc)
            instances = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "vclos"))
                mode = TSCHED_VCLOS_MODE_VCLOS;
            else if (!strcmp(m, "ocs"))
                mode = TSCHED_VCLOS_MODE_OCS;
            else {
                fprintf(stderr, BENCH_NAME ": --mode: \"%s\" is not vclos or ocs\n", m);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bench_vclos [--quick] [--seed N] [--instances N] [--mode vclos|ocs]\n");
            return 2;
        }
    }
    if (quick)
        instances = 20;
    printf("bench_vclos: seed %llu, %u instances per fabric, time limit 1000 ms (default)\n",
           (unsigned long long)seed, instances);
    one_fabric("512 GPUs, 16 x 32 x 1", 16, 32, 1, 5);
    /* targets (issue 11): vClos 5 ms at 512 GPUs and 50 ms at 2,048; OCS-vClos 100 ms at 2,048 */
    one_fabric("2,048 GPUs, 64 x 32 x 1", 64, 32, 1, mode == TSCHED_VCLOS_MODE_OCS ? 100 : 50);
    one_fabric("512 GPUs, 16 x 8 x 4", 16, 8, 4, 0);
    printf("peak RSS %.1f MiB\n", peak_rss_mb());
    return 0;
}
