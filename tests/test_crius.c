/* The Cell-based scheduler (doc/cell.md §5-§8): schedules on heterogeneous fabrics checked
 * against the rules (GPUs, pools, N, value), an independent reference for depth 0 on one pool,
 * running jobs, departures, the queue reader and its bad inputs, deterministic bytes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "test_util.h"

#ifndef TSCHED_SHARED_DATA
#define TSCHED_SHARED_DATA "../shared/data"
#endif

#define DATA TSCHED_TEST_DATA "/cell/crius"

static tsched_gpu_catalog *catalog(void)
{
    tsched_gpu_catalog *c = NULL;
    ck_assert_ok(tsched_gpu_catalog_default(&c));
    return c;
}

static tsched_job *model_job(const char *name, uint32_t gpus, uint32_t hidden, uint32_t layers, uint32_t gb)
{
    tsched_job *j = tu_job(name, gpus, 1, 1);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = hidden;
    m.layers = layers;
    m.vocab = 32000;
    m.seq = 512;
    m.global_batch = gb;
    m.micro_batch = 1;
    ck_assert_ok(tsched_job_set_model(j, &m));
    return j;
}

static uint32_t add(tsched_crius *cr, const char *name, uint32_t gpus, uint32_t hidden, uint32_t layers, uint32_t gb,
                    double submit)
{
    tsched_job *j = model_job(name, gpus, hidden, layers, gb);
    uint32_t idx = UINT32_MAX;
    ck_assert_ok(tsched_crius_add_job(&idx, cr, j, submit));
    tsched_job_free(j);
    return idx;
}

/* A seeded random queue of n jobs of BERT-like models; GPU counts from `sizes`, N_G into ngs[]. */
static void random_queue(tsched_crius *cr, ts_rng *rng, uint32_t n, const uint32_t *sizes, uint32_t nsizes,
                         uint32_t *ngs)
{
    static const uint32_t hid[] = {512, 1024, 1536, 2048};
    static const uint32_t gbs[] = {32, 64, 128, 256};
    char name[32];
    uint32_t base = tsched_crius_num_jobs(cr);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "j%u", base + i);
        uint32_t g = sizes[ts_rng_below(rng, nsizes)];
        ngs[base + i] = g;
        add(cr, name, g, hid[ts_rng_below(rng, 4)], (uint32_t)(2 + ts_rng_below(rng, 23)), gbs[ts_rng_below(rng, 4)],
            (double)ts_rng_below(rng, 5));
    }
}

/* Pool name "TYPE/G" of a node. */
static void node_pool(char *buf, size_t len, const tsched_topology *t, uint32_t n)
{
    snprintf(buf, len, "%s/%u", tsched_topology_node_gpu_type(t, n), tsched_topology_node_gpus(t, n));
}

/* Every rule of §8 "Schedules" on the committed state. `cap[n]` is what the scheduler may use
 * on node n (free in the fabric plus what running jobs held at the start); NULL = the
 * fabric's free GPUs. `given[j]` (may be NULL) marks jobs whose Cell was set, exempt from
 * the N rule while unchanged. Returns the number of running jobs. */
static uint32_t check_schedule(const tsched_crius *cr, const tsched_topology *t, const uint32_t *cap,
                               const uint8_t *given)
{
    uint32_t nn = tsched_topology_num_nodes(t), nj = tsched_crius_num_jobs(cr), running = 0;
    uint32_t *use = calloc(nn, sizeof *use), *nodes = malloc(nn * sizeof *nodes), *ng = malloc(nn * sizeof *ng);
    ck_assert_ptr_nonnull(use);
    ck_assert_ptr_nonnull(nodes);
    ck_assert_ptr_nonnull(ng);
    double value = 0, tput = 0;
    char pool[96];
    for (uint32_t j = 0; j < nj; j++) {
        if (!tsched_crius_job_running(cr, j)) {
            const char *r = tsched_crius_job_reason(cr, j);
            ck_assert_ptr_nonnull(r);
            ck_assert_str_ne(r, "");
            continue;
        }
        running++;
        ck_assert_str_eq(tsched_crius_job_reason(cr, j), "");
        const tsched_cell *c = NULL;
        ck_assert_ok(tsched_crius_job_cell(&c, cr, j));
        ck_assert_ptr_nonnull(c);
        uint32_t N = tsched_cell_gpus(c);
        const char *cp = tsched_cell_pool(c);
        size_t cnt = 0;
        ck_assert_ok(tsched_crius_job_nodes(nodes, ng, nn, &cnt, cr, j));
        ck_assert_uint_ge(cnt, 1);
        uint64_t sum = 0;
        for (size_t i = 0; i < cnt; i++) {
            ck_assert_uint_lt(nodes[i], nn);
            if (i)
                ck_assert_uint_gt(nodes[i], nodes[i - 1]);
            node_pool(pool, sizeof pool, t, nodes[i]);
            ck_assert_str_eq(pool, cp);
            ck_assert_uint_ge(ng[i], 1);
            use[nodes[i]] += ng[i];
            sum += ng[i];
        }
        ck_assert_uint_eq(sum, N);
        if (!given || !given[j] || tsched_crius_job_changed(cr, j)) {
            /* a placed Cell follows the rule: whole nodes, or one node */
            uint32_t G = tsched_topology_node_gpus(t, nodes[0]);
            if (N >= G)
                for (size_t i = 0; i < cnt; i++)
                    ck_assert_uint_eq(ng[i], G);
            else
                ck_assert_uint_eq(cnt, 1);
            ck_assert(tsched_cell_feasible(c));
        }
        double thr = tsched_cell_throughput(c), ref = tsched_crius_job_reference(cr, j);
        ck_assert(ref > 0);
        value += thr / ref;
        tput += thr;
    }
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t lim = cap ? cap[n] : tsched_topology_node_free_gpus(t, n);
        ck_assert_msg(use[n] <= lim, "node %s: %u GPUs used, %u usable", tsched_topology_node_name(t, n), use[n], lim);
        if (use[n] && !cap)
            ck_assert(tsched_topology_node_is_up(t, n));
    }
    double v = tsched_crius_value(cr);
    char *js = NULL;
    ck_assert_ok(tsched_crius_to_json(&js, cr, 0));
    int thr_obj = strstr(js, "\"objective\": \"throughput\"") != NULL;
    tsched_free(js);
    double want = thr_obj ? tput : value;
    ck_assert_msg(fabs(v - want) <= 1e-9 * fmax(1, fabs(want)), "value %.17g, recomputed %.17g", v, want);
    free(use);
    free(nodes);
    free(ng);
    return running;
}

/* N of every running job is one of N_G/2, N_G, 2 N_G (jobs added with the N_G in ng[]). */
static void check_sizes(const tsched_crius *cr, const uint32_t *ngs)
{
    for (uint32_t j = 0; j < tsched_crius_num_jobs(cr); j++) {
        if (!tsched_crius_job_running(cr, j))
            continue;
        const tsched_cell *c = NULL;
        ck_assert_ok(tsched_crius_job_cell(&c, cr, j));
        uint32_t N = tsched_cell_gpus(c), g = ngs[j];
        ck_assert_msg(N == g || N == 2 * g || (g % 2 == 0 && N == g / 2), "job %u: N %u, N_G %u", j, N, g);
    }
}

/* ---- schedules on Table 1 shapes ---------------------------------------------------------------- */

START_TEST(test_table1_invariants)
{
    tsched_gpu_catalog *cat = catalog();
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    for (unsigned seed = 1; seed <= tu_n(6); seed++) {
        tsched_topology *t = tu_table1(8, 4);
        ts_rng rng;
        ts_rng_seed(&rng, seed);
        /* some nodes partly busy, one down */
        uint32_t nn = tsched_topology_num_nodes(t);
        for (uint32_t n = 0; n < nn; n++)
            if (ts_rng_below(&rng, 4) == 0)
                ck_assert_ok(tsched_topology_set_free_gpus(t, n, (uint32_t)ts_rng_below(&rng, tsched_topology_node_gpus(t, n) + 1)));
        ck_assert_ok(tsched_topology_set_node_up(t, (uint32_t)ts_rng_below(&rng, nn), 0));
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ck_assert_ok(tsched_crius_set_depth(cr, (uint32_t)(seed % 4)));
        if (seed % 3 == 0)
            ck_assert_ok(tsched_crius_set_objective(cr, TSCHED_CRIUS_THROUGHPUT));
        uint32_t nj = 12 + (uint32_t)ts_rng_below(&rng, 20), ngs[64];
        random_queue(cr, &rng, nj, sizes, 5, ngs);
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        check_sizes(cr, ngs);
        check_schedule(cr, t, NULL, NULL);
        /* departures: remove running jobs one by one, schedule, check again */
        for (uint32_t k = 0; k < 3; k++) {
            for (uint32_t j = 0; j < nj; j++)
                if (tsched_crius_job_running(cr, j)) {
                    ck_assert_ok(tsched_crius_remove_job(cr, j));
                    ck_assert_int_eq(tsched_crius_job_running(cr, j), 0);
                    break;
                }
            ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_DEPARTURE));
            check_schedule(cr, t, NULL, NULL);
            check_sizes(cr, ngs);
        }
        tsched_crius_free(cr);
        tsched_topology_free(t);
    }
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* A queue that fits at N_G in every pool at once leaves nobody pending. */
START_TEST(test_fits_everywhere)
{
    tsched_gpu_catalog *cat = catalog();
    tsched_topology *t = tu_table1(4, 8);
    for (uint32_t depth = 0; depth <= 3; depth += 3) {
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ck_assert_ok(tsched_crius_set_depth(cr, depth));
        ts_rng rng;
        ts_rng_seed(&rng, 7 + depth);
        static const uint32_t sizes[] = {1, 2, 4};
        uint32_t ngs[16];
        random_queue(cr, &rng, 8, sizes, 3, ngs);
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        ck_assert_uint_eq(check_schedule(cr, t, NULL, NULL), 8);
        check_sizes(cr, ngs);
        for (uint32_t j = 0; j < 8; j++)
            ck_assert_int_eq(tsched_crius_job_changed(cr, j), 1);
        tsched_crius_free(cr);
    }
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* Fabric with two running jobs' GPUs busy: r0 on a100-0 + a100-1 (8 GPUs), r1 on 8 of v100-0. */
static tsched_topology *busy_fabric(uint32_t *cap)
{
    tsched_topology *t = tu_table1(8, 4);
    uint32_t a0 = tu_node(t, "a100-0"), a1 = tu_node(t, "a100-1"), v0 = tu_node(t, "v100-0");
    ck_assert_ok(tsched_topology_set_free_gpus(t, a0, 0));
    ck_assert_ok(tsched_topology_set_free_gpus(t, a1, 0));
    ck_assert_ok(tsched_topology_set_free_gpus(t, v0, 8));
    for (uint32_t n = 0; cap && n < tsched_topology_num_nodes(t); n++)
        cap[n] = tsched_topology_node_free_gpus(t, n);
    if (cap) {
        cap[a0] = cap[a1] = 4;
        cap[v0] = 16;
    }
    return t;
}

static void set_two_running(tsched_crius *cr, const tsched_topology *t)
{
    uint32_t r0 = add(cr, "r0", 8, 1024, 8, 128, 0), r1 = add(cr, "r1", 8, 2048, 12, 256, 0);
    uint32_t n0[2] = {tu_node(t, "a100-1"), tu_node(t, "a100-0")}, g0[2] = {4, 4};
    ck_assert_ok(tsched_crius_set_running(cr, r0, "A100-40G/4", 8, 2, n0, g0, 2));
    uint32_t n1[1] = {tu_node(t, "v100-0")}, g1[1] = {8};
    ck_assert_ok(tsched_crius_set_running(cr, r1, "V100/16", 8, 1, n1, g1, 1));
    ck_assert_int_eq(tsched_crius_job_running(cr, r0), 1);
    const tsched_cell *c = NULL;
    ck_assert_ok(tsched_crius_job_cell(&c, cr, r0));
    ck_assert_uint_eq(tsched_cell_gpus(c), 8);
    ck_assert_uint_eq(tsched_cell_num_stages(c), 2);
}

/* Depth 0 never changes a running job, arrival or departure. */
START_TEST(test_depth0_running_alone)
{
    tsched_gpu_catalog *cat = catalog();
    uint32_t cap[512];
    tsched_topology *t = busy_fabric(cap);
    ck_assert_uint_le(tsched_topology_num_nodes(t), 512);
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    ck_assert_ok(tsched_crius_set_depth(cr, 0));
    set_two_running(cr, t);
    ts_rng rng;
    ts_rng_seed(&rng, 11);
    static const uint32_t sizes[] = {2, 4, 8, 16};
    uint32_t ngs[64];
    random_queue(cr, &rng, 30, sizes, 4, ngs);
    uint8_t given[64] = {1, 1};
    for (int ev = 0; ev < 3; ev++) {
        if (ev == 2)
            for (uint32_t j = 2; j < tsched_crius_num_jobs(cr); j++)
                if (tsched_crius_job_running(cr, j)) {
                    ck_assert_ok(tsched_crius_remove_job(cr, j));
                    break;
                }
        ck_assert_ok(tsched_crius_schedule(cr, ev == 0 ? TSCHED_CRIUS_ARRIVAL : TSCHED_CRIUS_DEPARTURE));
        check_schedule(cr, t, cap, given);
        for (uint32_t j = 0; j < 2; j++) {
            ck_assert_int_eq(tsched_crius_job_running(cr, j), 1);
            ck_assert_int_eq(tsched_crius_job_changed(cr, j), 0);
            const tsched_cell *c = NULL;
            ck_assert_ok(tsched_crius_job_cell(&c, cr, j));
            ck_assert_uint_eq(tsched_cell_gpus(c), 8);
            ck_assert_uint_eq(tsched_cell_num_stages(c), j == 0 ? 2 : 1);
            ck_assert_str_eq(tsched_cell_pool(c), j == 0 ? "A100-40G/4" : "V100/16");
            uint32_t nodes[4], ng[4];
            size_t cnt = 0;
            ck_assert_ok(tsched_crius_job_nodes(nodes, ng, 4, &cnt, cr, j));
            if (j == 0) {
                ck_assert_uint_eq(cnt, 2);
                ck_assert_uint_eq(nodes[0], tu_node(t, "a100-0"));
                ck_assert_uint_eq(nodes[1], tu_node(t, "a100-1"));
            } else {
                ck_assert_uint_eq(cnt, 1);
                ck_assert_uint_eq(ng[0], 8);
            }
        }
    }
    /* with depth 3 the running jobs may move, every rule still holds */
    ck_assert_ok(tsched_crius_set_depth(cr, 3));
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_DEPARTURE));
    check_schedule(cr, t, cap, given);
    tsched_crius_free(cr);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* ---- an independent reference: depth 0 on one pool ---------------------------------------------- */

typedef struct ref_job {
    uint32_t ng, hidden, layers, gb;
    double submit;
} ref_job;

static int ref_fits(const uint32_t *fr, const tsched_topology *t, uint32_t G, uint32_t N)
{
    uint32_t nn = tsched_topology_num_nodes(t), whole = 0;
    for (uint32_t n = 0; n < nn; n++) {
        if (!tsched_topology_node_is_up(t, n))
            continue;
        if (N < G && fr[n] >= N)
            return 1;
        whole += fr[n] == G;
    }
    return N >= G && N % G == 0 && whole >= N / G;
}

/* The placement rule of §5 step 6, written from the text. */
static uint32_t ref_place(uint32_t *nodes, uint32_t *fr, const tsched_topology *t, uint32_t G, uint32_t N)
{
    uint32_t nn = tsched_topology_num_nodes(t);
    if (N < G) {
        uint32_t best = UINT32_MAX;
        for (uint32_t n = 0; n < nn; n++)
            if (tsched_topology_node_is_up(t, n) && fr[n] >= N && (best == UINT32_MAX || fr[n] < fr[best]))
                best = n;
        fr[best] -= N;
        nodes[0] = best;
        return 1;
    }
    uint32_t k = N / G, taken = 0;
    uint8_t *done = calloc(nn, 1);
    while (taken < k) {
        uint32_t bl = UINT32_MAX, bc = 0;
        for (uint32_t n = 0; n < nn; n++) {
            uint32_t l = tsched_topology_node_leaf(t, n), c = 0;
            if (done[n] || !tsched_topology_node_is_up(t, n) || fr[n] != G)
                continue;
            for (uint32_t m = 0; m < nn; m++)
                c += !done[m] && tsched_topology_node_leaf(t, m) == l && tsched_topology_node_is_up(t, m) && fr[m] == G;
            if (c > bc || (c == bc && l < bl)) {
                bc = c;
                bl = l;
            }
        }
        for (uint32_t n = 0; n < nn && taken < k; n++)
            if (!done[n] && tsched_topology_node_leaf(t, n) == bl && tsched_topology_node_is_up(t, n) && fr[n] == G) {
                done[n] = 1;
                fr[n] = 0;
                nodes[taken++] = n;
            }
    }
    free(done);
    /* ascending, as the scheduler reports them */
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t q = i; q > 0 && nodes[q - 1] > nodes[q]; q--) {
            uint32_t x = nodes[q];
            nodes[q] = nodes[q - 1];
            nodes[q - 1] = x;
        }
    return k;
}

START_TEST(test_reference_depth0_one_pool)
{
    tsched_gpu_catalog *cat = catalog();
    for (unsigned seed = 1; seed <= tu_n(8); seed++) {
        ts_rng rng;
        ts_rng_seed(&rng, 100 + seed);
        tsched_gen_params g;
        tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
        g.leaves = 3;
        g.spines = 2;
        g.nodes_per_leaf = 2 + (uint32_t)ts_rng_below(&rng, 4);
        g.gpus_per_node = seed % 2 ? 4 : 8;
        g.nics_per_node = 1;
        g.nic_gbps = 100;
        g.gpu_type = "A100";
        tsched_topology *t = NULL;
        ck_assert_ok(tsched_topology_generate(&t, &g));
        uint32_t nn = tsched_topology_num_nodes(t), G = g.gpus_per_node;
        for (uint32_t n = 0; n < nn; n++)
            if (ts_rng_below(&rng, 3) == 0)
                ck_assert_ok(tsched_topology_set_free_gpus(t, n, (uint32_t)ts_rng_below(&rng, G + 1)));
        if (seed % 3 == 0)
            ck_assert_ok(tsched_topology_set_node_up(t, (uint32_t)ts_rng_below(&rng, nn), 0));
        char pool[32];
        snprintf(pool, sizeof pool, "A100/%u", G);
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ck_assert_ok(tsched_crius_set_depth(cr, 0));
        ref_job jobs[12];
        uint32_t nj = 6 + (uint32_t)ts_rng_below(&rng, 7);
        static const uint32_t sizes[] = {1, 2, 3, 4, 6, 8, 16};
        char name[16];
        for (uint32_t j = 0; j < nj; j++) {
            jobs[j] = (ref_job){sizes[ts_rng_below(&rng, 7)], 256u << ts_rng_below(&rng, 3),
                                (uint32_t)(1 + ts_rng_below(&rng, 12)), 16u << ts_rng_below(&rng, 4),
                                (double)ts_rng_below(&rng, 3)};
            snprintf(name, sizeof name, "q%u", j);
            add(cr, name, jobs[j].ng, jobs[j].hidden, jobs[j].layers, jobs[j].gb, jobs[j].submit);
        }
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        check_schedule(cr, t, NULL, NULL);
        /* the reference, job by job in (submit, index) order */
        uint32_t *fr = malloc(nn * sizeof *fr), order[12];
        for (uint32_t n = 0; n < nn; n++)
            fr[n] = tsched_topology_node_free_gpus(t, n);
        for (uint32_t j = 0; j < nj; j++) {
            uint32_t k = j;
            while (k > 0 && jobs[order[k - 1]].submit > jobs[j].submit) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = j;
        }
        for (uint32_t q = 0; q < nj; q++) {
            uint32_t j = order[q];
            tsched_job *job = model_job("x", jobs[j].ng, jobs[j].hidden, jobs[j].layers, jobs[j].gb);
            uint32_t Ns[3], nN = 0, bestS[3] = {0, 0, 0};
            double thr[3] = {0, 0, 0};
            if (jobs[j].ng % 2 == 0)
                Ns[nN++] = jobs[j].ng / 2;
            Ns[nN++] = jobs[j].ng;
            Ns[nN++] = 2 * jobs[j].ng;
            double ref = 0, all = 0;
            for (uint32_t i = 0; i < nN; i++) {
                for (uint32_t S = 1; S <= Ns[i] && S <= jobs[j].layers; S *= 2) {
                    tsched_cell *c = NULL;
                    ck_assert_ok(tsched_cell_estimate(&c, t, pool, cat, job, NULL, Ns[i], S, TSCHED_PLANS_ASSEMBLED));
                    if (tsched_cell_feasible(c) && tsched_cell_throughput(c) > thr[i]) {
                        thr[i] = tsched_cell_throughput(c);
                        bestS[i] = S;
                    }
                    tsched_cell_free(c);
                }
                if (Ns[i] == jobs[j].ng && thr[i] > ref)
                    ref = thr[i];
                if (thr[i] > all)
                    all = thr[i];
            }
            tsched_job_free(job);
            if (ref == 0)
                ref = all;
            int pick = -1;
            for (uint32_t i = 0; i < nN; i++)
                if (thr[i] > 0 && ref_fits(fr, t, G, Ns[i]) && (pick < 0 || thr[i] / ref > thr[pick] / ref))
                    pick = (int)i;
            if (pick < 0) {
                ck_assert_int_eq(tsched_crius_job_running(cr, j), 0);
                ck_assert_str_eq(tsched_crius_job_reason(cr, j), all > 0 ? "insufficient gpus" : "no feasible cell");
                continue;
            }
            ck_assert_msg(tsched_crius_job_running(cr, j), "seed %u job %u pending: %s", seed, j,
                          tsched_crius_job_reason(cr, j));
            const tsched_cell *c = NULL;
            ck_assert_ok(tsched_crius_job_cell(&c, cr, j));
            ck_assert_uint_eq(tsched_cell_gpus(c), Ns[pick]);
            ck_assert_uint_eq(tsched_cell_num_stages(c), bestS[pick]);
            ck_assert(tsched_crius_job_reference(cr, j) == ref);
            uint32_t want[64], got[64], gg[64];
            uint32_t k = ref_place(want, fr, t, G, Ns[pick]);
            size_t cnt = 0;
            ck_assert_ok(tsched_crius_job_nodes(got, gg, 64, &cnt, cr, j));
            ck_assert_uint_eq(cnt, k);
            for (uint32_t i = 0; i < k; i++)
                ck_assert_uint_eq(got[i], want[i]);
        }
        free(fr);
        tsched_crius_free(cr);
        tsched_topology_free(t);
    }
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* One pool of two 4-GPU nodes. A arrives alone; then B. Depth 0 cannot make room; depth 1
 * may shrink or move A (the paper's adaptivity scaling) and must then run both. */
static tsched_topology *one_pool(uint32_t leaves, uint32_t per_leaf, uint32_t G)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = leaves;
    g.spines = 1;
    g.nodes_per_leaf = per_leaf;
    g.gpus_per_node = G;
    g.nics_per_node = 1;
    g.nic_gbps = 100;
    g.gpu_type = "A100";
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    return t;
}

START_TEST(test_scaling_makes_room)
{
    tsched_gpu_catalog *cat = catalog();
    tsched_topology *t = one_pool(1, 2, 4);
    double value[2];
    for (uint32_t depth = 0; depth <= 1; depth++) {
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ck_assert_ok(tsched_crius_set_depth(cr, depth));
        uint32_t a = add(cr, "A", 4, 2048, 24, 512, 0);
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        ck_assert_int_eq(tsched_crius_job_running(cr, a), 1);
        const tsched_cell *c = NULL;
        ck_assert_ok(tsched_crius_job_cell(&c, cr, a));
        uint32_t na = tsched_cell_gpus(c);
        ck_assert_uint_eq(na, 8); /* 2 N_G: this model runs faster on 8 GPUs than on 4 */
        /* a second event with nothing new changes nothing */
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        ck_assert_int_eq(tsched_crius_job_changed(cr, a), 0);
        uint32_t b = add(cr, "B", 4, 2048, 24, 512, 1);
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        check_schedule(cr, t, NULL, NULL);
        if (depth == 0) {
            ck_assert_int_eq(tsched_crius_job_changed(cr, a), 0);
            if (na == 8) {
                ck_assert_int_eq(tsched_crius_job_running(cr, b), 0);
                ck_assert_str_eq(tsched_crius_job_reason(cr, b), "insufficient gpus");
            }
        } else {
            ck_assert_int_eq(tsched_crius_job_running(cr, b), 1);
            ck_assert_int_eq(tsched_crius_job_changed(cr, a), na == 8);
        }
        value[depth] = tsched_crius_value(cr);
        tsched_crius_free(cr);
    }
    ck_assert(value[1] >= value[0] - 1e-12);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* Departure with nobody pending: the extra pass only takes gains, so the value does not fall
 * below what the remaining jobs had. */
START_TEST(test_departure_pass)
{
    tsched_gpu_catalog *cat = catalog();
    for (unsigned seed = 1; seed <= tu_n(6); seed++) {
        tsched_topology *t = one_pool(2, 4, seed % 2 ? 4 : 8);
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ts_rng rng;
        ts_rng_seed(&rng, 300 + seed);
        static const uint32_t sizes[] = {1, 2, 4, 8};
        uint32_t ngs[16];
        random_queue(cr, &rng, 5, sizes, 4, ngs);
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        check_schedule(cr, t, NULL, NULL);
        uint32_t pending = 0, victim = UINT32_MAX;
        for (uint32_t j = 0; j < 5; j++) {
            pending += !tsched_crius_job_running(cr, j);
            if (tsched_crius_job_running(cr, j) && victim == UINT32_MAX)
                victim = j;
        }
        if (pending == 0 && victim != UINT32_MAX) {
            const tsched_cell *c = NULL;
            ck_assert_ok(tsched_crius_job_cell(&c, cr, victim));
            double before = tsched_crius_value(cr) - tsched_cell_throughput(c) / tsched_crius_job_reference(cr, victim);
            ck_assert_ok(tsched_crius_remove_job(cr, victim));
            ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_DEPARTURE));
            check_schedule(cr, t, NULL, NULL);
            ck_assert(tsched_crius_value(cr) >= before - 1e-9);
        }
        tsched_crius_free(cr);
        tsched_topology_free(t);
    }
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* ---- an independent reference of the whole search (§5 steps 3-6) on tiny instances ------------------
 * Node-level state copied whole at every trial (the library uses counters and an undo log),
 * objective summed afresh, options rebuilt through the public estimator. */

#define RS_MAXJ 12
#define RS_MAXO 40
#define RS_MAXN 64

typedef struct rs_opt {
    uint32_t pool, N, S;
    double thr, term;
} rs_opt;

typedef struct rs_state {
    int opt[RS_MAXJ]; /* -1 = not running */
    uint32_t nn[RS_MAXJ], node[RS_MAXJ][RS_MAXN], gpus[RS_MAXJ][RS_MAXN];
    uint32_t fr[RS_MAXN * 4];
} rs_state;

typedef struct rs_ctx {
    const tsched_topology *t;
    uint32_t npools, G[16], nodes;
    char pools[16][64];
    uint32_t node_pool[RS_MAXN * 4];
    uint32_t nj;
    ref_job jobs[RS_MAXJ];
    int removed[RS_MAXJ];
    uint32_t nopt[RS_MAXJ];
    rs_opt opt[RS_MAXJ][RS_MAXO];
    int throughput_obj;
} rs_ctx;

static int rs_better(double a, double b) { return a > b + 1e-12 * fmax(1.0, fabs(b)); }

static double rs_obj(const rs_ctx *x, const rs_state *st)
{
    double v = 0;
    for (uint32_t j = 0; j < x->nj; j++)
        if (st->opt[j] >= 0)
            v += x->opt[j][st->opt[j]].term;
    return v;
}

static int rs_fits(const rs_ctx *x, const rs_state *st, uint32_t p, uint32_t N)
{
    uint32_t G = x->G[p], whole = 0;
    for (uint32_t n = 0; n < x->nodes; n++) {
        if (x->node_pool[n] != p || !tsched_topology_node_is_up(x->t, n))
            continue;
        if (N < G && st->fr[n] >= N)
            return 1;
        whole += st->fr[n] == G;
    }
    return N >= G && N % G == 0 && whole >= N / G;
}

static void rs_release(rs_state *st, uint32_t j)
{
    for (uint32_t i = 0; i < st->nn[j]; i++)
        st->fr[st->node[j][i]] += st->gpus[j][i];
    st->nn[j] = 0;
    st->opt[j] = -1;
}

/* The placement rule of §5 step 6 on pool p. */
static void rs_place(const rs_ctx *x, rs_state *st, uint32_t j, int o)
{
    uint32_t p = x->opt[j][o].pool, N = x->opt[j][o].N, G = x->G[p], k = 0;
    if (N < G) {
        uint32_t best = UINT32_MAX;
        for (uint32_t n = 0; n < x->nodes; n++)
            if (x->node_pool[n] == p && tsched_topology_node_is_up(x->t, n) && st->fr[n] >= N &&
                (best == UINT32_MAX || st->fr[n] < st->fr[best]))
                best = n;
        ck_assert_uint_ne(best, UINT32_MAX);
        st->fr[best] -= N;
        st->node[j][0] = best;
        st->gpus[j][0] = N;
        k = 1;
    } else {
        uint32_t want = N / G;
        while (k < want) {
            uint32_t bl = UINT32_MAX, bc = 0;
            for (uint32_t n = 0; n < x->nodes; n++) {
                if (x->node_pool[n] != p || !tsched_topology_node_is_up(x->t, n) || st->fr[n] != G)
                    continue;
                uint32_t l = tsched_topology_node_leaf(x->t, n), c = 0;
                for (uint32_t m = 0; m < x->nodes; m++)
                    c += x->node_pool[m] == p && tsched_topology_node_leaf(x->t, m) == l &&
                         tsched_topology_node_is_up(x->t, m) && st->fr[m] == G;
                if (c > bc || (c == bc && l < bl)) {
                    bc = c;
                    bl = l;
                }
            }
            ck_assert_uint_ne(bl, UINT32_MAX);
            for (uint32_t n = 0; n < x->nodes && k < want; n++)
                if (x->node_pool[n] == p && tsched_topology_node_leaf(x->t, n) == bl &&
                    tsched_topology_node_is_up(x->t, n) && st->fr[n] == G) {
                    st->fr[n] = 0;
                    st->node[j][k] = n;
                    st->gpus[j][k++] = G;
                }
        }
    }
    st->nn[j] = k;
    st->opt[j] = o;
}

static int rs_best_fit(const rs_ctx *x, const rs_state *st, uint32_t j)
{
    int best = -1;
    for (uint32_t o = 0; o < x->nopt[j]; o++)
        if (x->opt[j][o].thr > 0 && (best < 0 || x->opt[j][o].term > x->opt[j][best].term) &&
            rs_fits(x, st, x->opt[j][o].pool, x->opt[j][o].N))
            best = (int)o;
    return best;
}

/* One scaling step for job j (j < 0: the departure pass). Returns 0 when there is none. */
static int rs_step(const rs_ctx *x, rs_state *st, int j)
{
    int found = 0;
    double best = 0;
    rs_state *tmp = malloc(sizeof *tmp), *bst = malloc(sizeof *bst);
    double base = rs_obj(x, st);
    for (uint32_t r = 0; r < x->nj; r++) {
        if ((int)r == j || st->opt[r] < 0)
            continue;
        for (uint32_t o = 0; o < x->nopt[r]; o++) {
            if ((int)o == st->opt[r] || x->opt[r][o].thr <= 0)
                continue;
            *tmp = *st;
            rs_release(tmp, r);
            if (!rs_fits(x, tmp, x->opt[r][o].pool, x->opt[r][o].N))
                continue;
            rs_place(x, tmp, r, (int)o);
            double score = rs_obj(x, tmp);
            if (j < 0) {
                if (!rs_better(score, base))
                    continue;
                score -= base;
            } else {
                int b = rs_best_fit(x, tmp, (uint32_t)j);
                score += b < 0 ? 0 : x->opt[j][b].term;
            }
            if (!found || rs_better(score, best)) {
                found = 1;
                best = score;
                *bst = *tmp;
            }
        }
    }
    if (found)
        *st = *bst;
    free(tmp);
    free(bst);
    return found;
}

static void rs_event(const rs_ctx *x, rs_state *st, uint32_t depth, int departure, const char **reason)
{
    uint32_t order[RS_MAXJ], nq = 0;
    for (uint32_t j = 0; j < x->nj; j++) {
        if (x->removed[j] || st->opt[j] >= 0)
            continue;
        uint32_t k = nq++;
        while (k > 0 && x->jobs[order[k - 1]].submit > x->jobs[j].submit) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = j;
    }
    rs_state *cur = malloc(sizeof *cur), *best = malloc(sizeof *best);
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t j = order[q];
        uint32_t feas = 0;
        for (uint32_t o = 0; o < x->nopt[j]; o++)
            feas += x->opt[j][o].thr > 0;
        if (!feas) {
            reason[j] = "no feasible cell";
            continue;
        }
        *cur = *st;
        int bo = -1;
        double bv = 0;
        for (uint32_t k = 0;; k++) {
            int o = rs_best_fit(x, cur, j);
            if (o >= 0) {
                double v = rs_obj(x, cur) + x->opt[j][o].term;
                if (bo < 0 || rs_better(v, bv)) {
                    bo = o;
                    bv = v;
                    *best = *cur;
                }
            }
            if (k == depth || !rs_step(x, cur, (int)j))
                break;
        }
        if (bo < 0) {
            reason[j] = "insufficient gpus";
            continue;
        }
        *st = *best;
        rs_place(x, st, j, bo);
    }
    for (uint32_t k = 0; departure && k < depth; k++)
        if (!rs_step(x, st, -1))
            break;
    free(cur);
    free(best);
}

/* Options of job j; `given` (may be NULL) is its current Cell (pool, N, S), always an option. */
static void rs_options(rs_ctx *x, const tsched_gpu_catalog *cat, uint32_t j, const rs_opt *given)
{
    const ref_job *rj = &x->jobs[j];
    tsched_job *job = model_job("x", rj->ng, rj->hidden, rj->layers, rj->gb);
    uint32_t Ns[3], nN = 0;
    if (rj->ng % 2 == 0)
        Ns[nN++] = rj->ng / 2;
    Ns[nN++] = rj->ng;
    Ns[nN++] = 2 * rj->ng;
    double ref = 0, all = 0;
    x->nopt[j] = 0;
    for (uint32_t p = 0; p < x->npools; p++)
        for (uint32_t i = 0; i < nN; i++) {
            rs_opt b = {p, Ns[i], 0, 0, 0};
            for (uint32_t S = 1; S <= Ns[i] && S <= rj->layers; S *= 2) {
                tsched_cell *c = NULL;
                ck_assert_ok(tsched_cell_estimate(&c, x->t, x->pools[p], cat, job, NULL, Ns[i], S, TSCHED_PLANS_ASSEMBLED));
                if (tsched_cell_feasible(c) && tsched_cell_throughput(c) > b.thr) {
                    b.thr = tsched_cell_throughput(c);
                    b.S = S;
                }
                tsched_cell_free(c);
            }
            if (b.thr > 0) {
                ck_assert_uint_lt(x->nopt[j], RS_MAXO);
                x->opt[j][x->nopt[j]++] = b;
                if (Ns[i] == rj->ng && b.thr > ref)
                    ref = b.thr;
                if (b.thr > all)
                    all = b.thr;
            }
        }
    if (given) {
        uint32_t at = 0;
        int dup = 0;
        for (uint32_t o = 0; o < x->nopt[j]; o++) {
            const rs_opt *op = &x->opt[j][o];
            if (op->pool < given->pool || (op->pool == given->pool && op->N <= given->N))
                at = o + 1;
            dup |= op->pool == given->pool && op->N == given->N && op->S == given->S;
        }
        if (!dup) {
            rs_opt gv = *given;
            tsched_cell *c = NULL;
            ck_assert_ok(tsched_cell_estimate(&c, x->t, x->pools[gv.pool], cat, job, NULL, gv.N, gv.S,
                                              TSCHED_PLANS_ASSEMBLED));
            gv.thr = tsched_cell_feasible(c) ? tsched_cell_throughput(c) : 0;
            tsched_cell_free(c);
            memmove(&x->opt[j][at + 1], &x->opt[j][at], (x->nopt[j] - at) * sizeof x->opt[j][0]);
            x->opt[j][at] = gv;
            x->nopt[j]++;
            if (gv.N == rj->ng && gv.thr > ref)
                ref = gv.thr;
            if (gv.thr > all)
                all = gv.thr;
        }
    }
    tsched_job_free(job);
    if (ref == 0)
        ref = all;
    for (uint32_t o = 0; o < x->nopt[j]; o++)
        x->opt[j][o].term = x->throughput_obj ? x->opt[j][o].thr : x->opt[j][o].thr / ref;
}

static void rs_compare(const rs_ctx *x, const rs_state *st, const tsched_crius *cr, const char **reason,
                       unsigned seed)
{
    for (uint32_t j = 0; j < x->nj; j++) {
        if (x->removed[j])
            continue;
        ck_assert_msg(tsched_crius_job_running(cr, j) == (st->opt[j] >= 0), "seed %u job %u: running %d, reference %d",
                      seed, j, tsched_crius_job_running(cr, j), st->opt[j] >= 0);
        if (st->opt[j] < 0) {
            ck_assert_str_eq(tsched_crius_job_reason(cr, j), reason[j]);
            continue;
        }
        const rs_opt *o = &x->opt[j][st->opt[j]];
        const tsched_cell *c = NULL;
        ck_assert_ok(tsched_crius_job_cell(&c, cr, j));
        ck_assert_str_eq(tsched_cell_pool(c), x->pools[o->pool]);
        ck_assert_uint_eq(tsched_cell_gpus(c), o->N);
        ck_assert_uint_eq(tsched_cell_num_stages(c), o->S);
        uint32_t nodes[RS_MAXN], g[RS_MAXN], want[RS_MAXN];
        size_t cnt = 0;
        ck_assert_ok(tsched_crius_job_nodes(nodes, g, RS_MAXN, &cnt, cr, j));
        ck_assert_uint_eq(cnt, st->nn[j]);
        memcpy(want, st->node[j], st->nn[j] * sizeof *want);
        for (uint32_t i = 1; i < st->nn[j]; i++)
            for (uint32_t q = i; q > 0 && want[q - 1] > want[q]; q--) {
                uint32_t y = want[q];
                want[q] = want[q - 1];
                want[q - 1] = y;
            }
        for (uint32_t i = 0; i < cnt; i++)
            ck_assert_uint_eq(nodes[i], want[i]);
    }
    double v = rs_obj(x, st);
    ck_assert(fabs(tsched_crius_value(cr) - v) <= 1e-9 * fmax(1, fabs(v)));
}

START_TEST(test_reference_search)
{
    tsched_gpu_catalog *cat = catalog();
    for (unsigned seed = 1; seed <= tu_n(30); seed++) {
        ts_rng rng;
        ts_rng_seed(&rng, 500 + seed);
        tsched_topology *t = tu_table1(32, 2); /* 2 A100-40G/4, 5 A40/2, 5 A10/2, 1 V100/16 */
        rs_ctx *x = calloc(1, sizeof *x);
        rs_state *st = calloc(1, sizeof *st);
        x->t = t;
        x->nodes = tsched_topology_num_nodes(t);
        ck_assert_uint_le(x->nodes, RS_MAXN);
        for (uint32_t n = 0; n < x->nodes; n++) {
            uint32_t G = tsched_topology_node_gpus(t, n);
            if (ts_rng_below(&rng, 4) == 0)
                ck_assert_ok(tsched_topology_set_free_gpus(t, n, (uint32_t)ts_rng_below(&rng, G + 1)));
            st->fr[n] = tsched_topology_node_free_gpus(t, n);
        }
        char **names = NULL;
        uint32_t np = 0;
        ck_assert_ok(tsched_cell_pools(&names, &np, t));
        for (uint32_t p = 0; p < np; p++) {
            snprintf(x->pools[x->npools], sizeof x->pools[0], "%s", names[p]);
            x->G[x->npools++] = (uint32_t)atoi(strchr(names[p], '/') + 1);
        }
        tsched_free(names);
        char pool[96];
        for (uint32_t n = 0; n < x->nodes; n++) {
            node_pool(pool, sizeof pool, t, n);
            for (uint32_t p = 0; p < x->npools; p++)
                if (strcmp(pool, x->pools[p]) == 0)
                    x->node_pool[n] = p;
        }
        /* job 0 may run already: 2 GPUs of a busy A40 node, S 1 or 2 */
        int given = ts_rng_below(&rng, 2) == 0;
        uint32_t gnode = tu_node(t, "a40-1"), gS = 1 + (uint32_t)ts_rng_below(&rng, 2), gpool = UINT32_MAX;
        if (given) {
            ck_assert_ok(tsched_topology_set_free_gpus(t, gnode, 0));
            st->fr[gnode] = 0;
            gpool = x->node_pool[gnode];
        }
        uint32_t depth = (uint32_t)ts_rng_below(&rng, 4);
        x->throughput_obj = ts_rng_below(&rng, 4) == 0;
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        ck_assert_ok(tsched_crius_set_depth(cr, depth));
        if (x->throughput_obj)
            ck_assert_ok(tsched_crius_set_objective(cr, TSCHED_CRIUS_THROUGHPUT));
        static const uint32_t sizes[] = {1, 2, 4, 8, 16};
        char name[16];
        x->nj = 5 + (uint32_t)ts_rng_below(&rng, 6);
        for (uint32_t j = 0; j < x->nj; j++) {
            x->jobs[j] = (ref_job){sizes[ts_rng_below(&rng, 5)], 512u << ts_rng_below(&rng, 3),
                                   (uint32_t)(2 + ts_rng_below(&rng, 20)), 32u << ts_rng_below(&rng, 4),
                                   (double)ts_rng_below(&rng, 3)};
            st->opt[j] = -1;
            if (j == 0 && given) {
                x->jobs[0].ng = 2;
                rs_opt gv = {gpool, 2, gS, 0, 0};
                snprintf(name, sizeof name, "s0");
                add(cr, name, 2, x->jobs[0].hidden, x->jobs[0].layers, x->jobs[0].gb, x->jobs[0].submit);
                uint32_t g2 = 2;
                ck_assert_ok(tsched_crius_set_running(cr, 0, "A40/2", 2, gS, &gnode, &g2, 1));
                rs_options(x, cat, 0, &gv);
                for (uint32_t o = 0; o < x->nopt[0]; o++)
                    if (x->opt[0][o].pool == gpool && x->opt[0][o].N == 2 && x->opt[0][o].S == gS)
                        st->opt[0] = (int)o;
                ck_assert_int_ge(st->opt[0], 0);
                st->nn[0] = 1;
                st->node[0][0] = gnode;
                st->gpus[0][0] = 2;
                continue;
            }
            snprintf(name, sizeof name, "s%u", j);
            add(cr, name, x->jobs[j].ng, x->jobs[j].hidden, x->jobs[j].layers, x->jobs[j].gb, x->jobs[j].submit);
            rs_options(x, cat, j, NULL);
        }
        const char *reason[RS_MAXJ] = {0};
        for (int ev = 0; ev < 3; ev++) {
            if (ev > 0) {
                /* a departure: the first running job leaves */
                for (uint32_t j = 0; j < x->nj; j++)
                    if (!x->removed[j] && st->opt[j] >= 0) {
                        ck_assert_ok(tsched_crius_remove_job(cr, j));
                        rs_release(st, j);
                        x->removed[j] = 1;
                        break;
                    }
            }
            ck_assert_ok(tsched_crius_schedule(cr, ev ? TSCHED_CRIUS_DEPARTURE : TSCHED_CRIUS_ARRIVAL));
            rs_event(x, st, depth, ev > 0, reason);
            rs_compare(x, st, cr, reason, seed);
            uint32_t cap[RS_MAXN];
            for (uint32_t n = 0; n < x->nodes; n++)
                cap[n] = tsched_topology_node_free_gpus(t, n) + (given && n == gnode ? 2 : 0);
            uint8_t gv[RS_MAXJ] = {(uint8_t)given};
            check_schedule(cr, t, cap, gv);
        }
        tsched_crius_free(cr);
        tsched_topology_free(t);
        free(x);
        free(st);
    }
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* ---- determinism, JSON ------------------------------------------------------------------------------ */

static char *schedule_bytes(const tsched_topology *t, const tsched_gpu_catalog *cat, unsigned seed, int with_time)
{
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    static const uint32_t sizes[] = {1, 2, 4, 8, 16, 32};
    uint32_t ngs[64];
    random_queue(cr, &rng, 40, sizes, 6, ngs);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    char *js = NULL;
    ck_assert_ok(tsched_crius_to_json(&js, cr, with_time));
    tsched_crius_free(cr);
    return js;
}

START_TEST(test_same_bytes)
{
    tsched_gpu_catalog *cat = catalog();
    tsched_topology *t = tu_table1(8, 4);
    char *a = schedule_bytes(t, cat, 5, 0), *b = schedule_bytes(t, cat, 5, 0), *c = schedule_bytes(t, cat, 5, 1);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_null(strstr(a, "solve_ms"));
    ck_assert_ptr_nonnull(strstr(c, "\"solve_ms\""));
    ck_assert_ptr_nonnull(strstr(a, "\"format\": \"tsched.crius-schedule.v1\""));
    ck_assert_ptr_nonnull(strstr(a, "\"unknown_gpu_types\": []"));
    /* field order of §7.4 */
    const char *keys[] = {"\"format\"", "\"event\"", "\"objective\"", "\"depth\"", "\"value\"",
                          "\"unknown_gpu_types\"", "\"cells_estimated\"", "\"jobs\""};
    for (unsigned i = 1; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert(strstr(a, keys[i - 1]) && strstr(a, keys[i - 1]) < strstr(a, keys[i]));
    const char *jkeys[] = {"\"name\"", "\"status\"", "\"changed\"", "\"pool\"", "\"gpu_type\"", "\"gpus\"",
                           "\"stages\"", "\"iteration_s\"", "\"throughput\"", "\"reference_throughput\"",
                           "\"stage_plan\"", "\"nodes\""};
    const char *run = strstr(a, "\"status\": \"running\"");
    ck_assert_ptr_nonnull(run);
    while (run > a && strncmp(run, "\"name\"", 6) != 0)
        run--;
    for (unsigned i = 1; i < sizeof jkeys / sizeof jkeys[0]; i++)
        ck_assert(strstr(run, jkeys[i - 1]) && strstr(run, jkeys[i - 1]) < strstr(run, jkeys[i]));
    tsched_free(a);
    tsched_free(b);
    tsched_free(c);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* ---- the queue reader and bad inputs ------------------------------------------------------------------ */

#define MODEL "\"model\": {\"hidden\": 1024, \"layers\": 8, \"vocab\": 32000, \"seq\": 512, \"global_batch\": 64}"

static tsched_status load(tsched_crius *cr, const char *jobs)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "{\"format\": \"tsched.crius-queue.v1\", \"jobs\": [%s]}", jobs);
    return tsched_crius_load_queue_string(cr, buf, strlen(buf));
}

START_TEST(test_queue_reader)
{
    tsched_gpu_catalog *cat = catalog();
    uint32_t cap[512];
    tsched_topology *t = busy_fabric(cap);
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    ck_assert_ok(tsched_crius_load_queue(cr, DATA "/queue_table1_8.json"));
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 4);
    ck_assert_str_eq(tsched_crius_job_name(cr, 0), "bert-a");
    ck_assert_int_eq(tsched_crius_job_running(cr, 0), 1);
    ck_assert_int_eq(tsched_crius_job_running(cr, 1), 1);
    ck_assert_int_eq(tsched_crius_job_running(cr, 2), 0);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    uint8_t given[8] = {1, 1};
    check_schedule(cr, t, cap, given);
    ck_assert_int_eq(tsched_crius_job_running(cr, 2), 1);
    /* the same fabric from its file (what the CLI reads) gives the same bytes */
    char *js = NULL, *js2 = NULL;
    ck_assert_ok(tsched_crius_to_json(&js, cr, 0));
    tsched_topology *tf = NULL;
    ck_assert_ok(tsched_topology_load_file(&tf, DATA "/table1_8_busy.topo.json"));
    tsched_crius *cr2 = NULL;
    ck_assert_ok(tsched_crius_new(&cr2, tf, cat));
    tsched_topology_free(tf); /* the scheduler keeps no pointer into the fabric */
    ck_assert_ok(tsched_crius_load_queue(cr2, DATA "/queue_table1_8.json"));
    ck_assert_ok(tsched_crius_schedule(cr2, TSCHED_CRIUS_ARRIVAL));
    ck_assert_ok(tsched_crius_to_json(&js2, cr2, 0));
    ck_assert_str_eq(js, js2);
    tsched_free(js);
    tsched_free(js2);
    tsched_crius_free(cr2);
    /* a second load appends; a name already queued is refused and nothing is added */
    ck_assert_status(load(cr, "{\"name\": \"new1\", \"gpus\": 2, " MODEL "}, {\"name\": \"bert-a\", \"gpus\": 2, " MODEL "}"),
                     TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("jobs[1].name");
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 4);
    ck_assert_ok(load(cr, "{\"name\": \"new1\", \"gpus\": 2, \"submit\": 3.5, " MODEL "}"));
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 5);
    tsched_crius_free(cr);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

START_TEST(test_bad_inputs)
{
    tsched_gpu_catalog *cat = catalog();
    tsched_topology *t = busy_fabric(NULL);
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    ck_assert_status(tsched_crius_set_depth(cr, 17), TSCHED_E_RANGE);
    ck_assert_errmsg_has("depth");
    ck_assert_status(tsched_crius_set_objective(cr, (tsched_crius_objective)7), TSCHED_E_INVALID);
    /* an absurd job size (2 N_G would not be a valid Cell) */
    ck_assert_status(load(cr, "{\"name\": \"huge\", \"gpus\": 4000000000, " MODEL "}"), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("gpus: 4000000000 is above");
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 0);
    /* duplicate name in one queue */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 2, " MODEL "}, {\"name\": \"a\", \"gpus\": 4, " MODEL "}"),
                     TSCHED_E_DUPLICATE);
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 0);
    /* running on an unknown node */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 4, " MODEL ", \"running\": {\"pool\": \"A100-40G/4\", "
                              "\"gpus\": 4, \"stages\": 1, \"nodes\": [{\"node\": \"x9\", \"gpus\": 4}]}}"),
                     TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("jobs[0].running.nodes[0].node: no node \"x9\"");
    /* on a node of another type */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 2, " MODEL ", \"running\": {\"pool\": \"A100-40G/4\", "
                              "\"gpus\": 2, \"stages\": 1, \"nodes\": [{\"node\": \"a40-0\", \"gpus\": 2}]}}"),
                     TSCHED_E_INVALID);
    ck_assert_errmsg_has("a40-0");
    /* on GPUs the fabric says are free (a100-2 is idle) */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 4, " MODEL ", \"running\": {\"pool\": \"A100-40G/4\", "
                              "\"gpus\": 4, \"stages\": 1, \"nodes\": [{\"node\": \"a100-2\", \"gpus\": 4}]}}"),
                     TSCHED_E_STATE);
    ck_assert_errmsg_has("a100-2");
    /* v100-0 has 8 busy GPUs: 12 is more than that */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 12, " MODEL ", \"running\": {\"pool\": \"V100/16\", "
                              "\"gpus\": 12, \"stages\": 1, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 12}]}}"),
                     TSCHED_E_STATE);
    /* a Cell the model cannot run (more stages than the model's layers): refused at load,
     * whatever the depth of the search that would otherwise move the job */
    for (uint32_t depth = 0; depth <= 3; depth += 3) {
        ck_assert_ok(tsched_crius_set_depth(cr, depth));
        ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, " MODEL ", \"running\": {\"pool\": \"V100/16\", "
                                  "\"gpus\": 8, \"stages\": 100, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 8}]}}"),
                         TSCHED_E_INVALID);
        ck_assert_errmsg_has("jobs[0].running.stages");
        ck_assert_errmsg_has("infeasible (more stages than layers)");
        ck_assert_uint_eq(tsched_crius_num_jobs(cr), 0);
    }
    /* the same busy GPUs claimed twice */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, " MODEL ", \"running\": {\"pool\": \"V100/16\", "
                              "\"gpus\": 8, \"stages\": 1, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 8}]}}, "
                              "{\"name\": \"b\", \"gpus\": 4, " MODEL ", \"running\": {\"pool\": \"V100/16\", "
                              "\"gpus\": 4, \"stages\": 1, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 4}]}}"),
                     TSCHED_E_STATE);
    ck_assert_errmsg_has("jobs[1].running");
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 0);
    /* GPUs that do not sum to gpus, unknown pool, missing model field, MoE, bad gpus, bad submit */
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, " MODEL ", \"running\": {\"pool\": \"V100/16\", "
                              "\"gpus\": 6, \"stages\": 1, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 8}]}}"),
                     TSCHED_E_INVALID);
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, " MODEL ", \"running\": {\"pool\": \"H100/8\", "
                              "\"gpus\": 8, \"stages\": 1, \"nodes\": [{\"node\": \"v100-0\", \"gpus\": 8}]}}"),
                     TSCHED_E_NOT_FOUND);
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, \"model\": {\"hidden\": 1024, \"layers\": 8, "
                              "\"vocab\": 32000, \"seq\": 512}}"),
                     TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("jobs[0].model.global_batch");
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 8, \"model\": {\"hidden\": 1024, \"layers\": 8, "
                              "\"vocab\": 32000, \"seq\": 512, \"global_batch\": 64, \"moe_experts\": 8}}"),
                     TSCHED_E_RANGE);
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 0, " MODEL "}"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[0].gpus");
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 2, \"submit\": -1, " MODEL "}"), TSCHED_E_RANGE);
    ck_assert_status(load(cr, "{\"name\": \"a\", \"gpus\": 2}"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("jobs[0].model");
    ck_assert_uint_eq(tsched_crius_num_jobs(cr), 0);
    const char *wrong = "{\"format\": \"tsched.gpus.v1\", \"jobs\": []}";
    ck_assert_int_ne(tsched_crius_load_queue_string(cr, wrong, strlen(wrong)), TSCHED_OK);
    /* the API: no model, MoE, duplicate, set_running checks */
    tsched_job *nm = tu_job("nomodel", 4, 1, 1);
    ck_assert_status(tsched_crius_add_job(NULL, cr, nm, 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("model: missing; a Cell estimate needs the model");
    tsched_job_free(nm);
    tsched_job *moe = model_job("moe", 4, 1024, 8, 64);
    tsched_model m;
    tsched_model_init(&m);
    ck_assert_ok(tsched_job_model(&m, moe));
    m.moe_experts = 8;
    ck_assert_ok(tsched_job_set_model(moe, &m));
    ck_assert_status(tsched_crius_add_job(NULL, cr, moe, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.moe_experts");
    tsched_job_free(moe);
    uint32_t a = add(cr, "a", 4, 1024, 8, 64, 0);
    tsched_job *dup = model_job("a", 2, 1024, 8, 64);
    ck_assert_status(tsched_crius_add_job(NULL, cr, dup, 0), TSCHED_E_DUPLICATE);
    ck_assert_status(tsched_crius_add_job(NULL, cr, dup, -1), TSCHED_E_RANGE);
    tsched_job_free(dup);
    uint32_t n2[2] = {tu_node(t, "a100-0"), tu_node(t, "a100-0")}, g2[2] = {2, 2};
    ck_assert_status(tsched_crius_set_running(cr, a, "A100-40G/4", 4, 1, n2, g2, 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_crius_set_running(cr, 99, "A100-40G/4", 4, 1, n2, g2, 1), TSCHED_E_NOT_FOUND);
    ck_assert_status(tsched_crius_set_running(cr, a, "A100-40G/4", 4, 1, n2, g2, 1), TSCHED_E_INVALID);
    ck_assert_int_eq(tsched_crius_job_running(cr, a), 0);
    /* nothing scheduled yet */
    char *js = NULL;
    ck_assert_status(tsched_crius_to_json(&js, cr, 0), TSCHED_E_STATE);
    ck_assert_status(tsched_crius_schedule(cr, (tsched_crius_event)5), TSCHED_E_INVALID);
    tsched_crius_free(cr);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

START_TEST(test_remove_job)
{
    tsched_gpu_catalog *cat = catalog();
    tsched_topology *t = tu_table1(16, 4);
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    uint32_t a = add(cr, "a", 16, 2048, 16, 256, 0), b = add(cr, "b", 16, 2048, 16, 256, 1),
             c = add(cr, "c", 64, 2048, 16, 256, 2);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    check_schedule(cr, t, NULL, NULL);
    ck_assert_int_eq(tsched_crius_job_running(cr, a), 1);
    ck_assert_ok(tsched_crius_remove_job(cr, a));
    ck_assert_status(tsched_crius_remove_job(cr, a), TSCHED_E_NOT_FOUND);
    ck_assert_status(tsched_crius_remove_job(cr, 7), TSCHED_E_NOT_FOUND);
    ck_assert_int_eq(tsched_crius_job_running(cr, a), 0);
    ck_assert_str_eq(tsched_crius_job_name(cr, a), "a");
    const tsched_cell *cell = NULL;
    ck_assert_status(tsched_crius_job_cell(&cell, cr, a), TSCHED_E_STATE);
    size_t cnt;
    ck_assert_status(tsched_crius_job_nodes(NULL, NULL, 0, &cnt, cr, a), TSCHED_E_STATE);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_DEPARTURE));
    check_schedule(cr, t, NULL, NULL);
    char *js = NULL;
    ck_assert_ok(tsched_crius_to_json(&js, cr, 0));
    ck_assert_ptr_null(strstr(js, "\"name\": \"a\""));
    ck_assert_ptr_nonnull(strstr(js, "\"name\": \"b\""));
    ck_assert_ptr_nonnull(strstr(js, "\"event\": \"departure\""));
    tsched_free(js);
    /* the name is free again */
    uint32_t a2 = add(cr, "a", 2, 512, 4, 32, 3);
    ck_assert_uint_eq(a2, 3);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    check_schedule(cr, t, NULL, NULL);
    /* job_nodes' buffer contract */
    for (uint32_t j = b; j <= a2; j++) {
        if (!tsched_crius_job_running(cr, j))
            continue;
        ck_assert_status(tsched_crius_job_nodes(NULL, NULL, 0, &cnt, cr, j), TSCHED_E_BUFFER);
        ck_assert_uint_ge(cnt, 1);
    }
    (void)c;
    tsched_crius_free(cr);
    tsched_topology_free(t);
    tsched_gpu_catalog_free(cat);
}
END_TEST

/* ---- the Alibaba v2023 inventory ------------------------------------------------------------------- */

static tsched_topology *alibaba_fabric(void)
{
    FILE *f = fopen(TSCHED_SHARED_DATA "/alibaba-cluster-trace-gpu-v2023/openb_node_list_gpu_node.csv", "r");
    if (!f)
        return NULL;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "alibaba"));
    char line[256], leaf[32];
    uint32_t n = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char sn[64], model[32];
        unsigned cpu, mem, gpus;
        if (sscanf(line, "%63[^,],%u,%u,%u,%31s", sn, &cpu, &mem, &gpus, model) != 5 || gpus == 0)
            continue;
        snprintf(leaf, sizeof leaf, "leaf%u", n / 32);
        if (n % 32 == 0)
            ck_assert_ok(tsched_topology_add_switch(NULL, t, leaf, 0, NULL));
        ck_assert_ok(tsched_topology_add_node(NULL, t, sn, leaf, gpus, 1, model, 100));
        n++;
    }
    fclose(f);
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
    for (uint32_t l = 0; l * 32 < n; l++) {
        snprintf(leaf, sizeof leaf, "leaf%u", l);
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine0", 400, 1));
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

START_TEST(test_alibaba_pools)
{
    tsched_topology *t = alibaba_fabric();
    if (!t) {
        fprintf(stderr, "test_alibaba_pools: skipped, the Alibaba v2023 node list is not in ../shared\n");
        return;
    }
    tsched_gpu_catalog *cat = catalog();
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    ts_rng rng;
    ts_rng_seed(&rng, 2023);
    static const uint32_t sizes[] = {1, 2, 4, 8};
    uint32_t ngs[64];
    random_queue(cr, &rng, 40, sizes, 4, ngs);
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    check_schedule(cr, t, NULL, NULL);
    check_sizes(cr, ngs);
    char *js = NULL;
    ck_assert_ok(tsched_crius_to_json(&js, cr, 0));
    ck_assert_ptr_nonnull(strstr(js, "\"unknown_gpu_types\": [\n    \"G2\",\n    \"G3\"\n  ]"));
    ck_assert_ptr_null(strstr(js, "\"gpu_type\": \"G2\""));
    tsched_free(js);
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crius");
    TCase *tc = tcase_create("crius");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_bad_inputs);
    tcase_add_test(tc, test_queue_reader);
    tcase_add_test(tc, test_remove_job);
    tcase_add_test(tc, test_fits_everywhere);
    tcase_add_test(tc, test_depth0_running_alone);
    tcase_add_test(tc, test_reference_depth0_one_pool);
    tcase_add_test(tc, test_scaling_makes_room);
    tcase_add_test(tc, test_departure_pass);
    tcase_add_test(tc, test_reference_search);
    tcase_add_test(tc, test_same_bytes);
    tcase_add_test(tc, test_table1_invariants);
    tcase_add_test(tc, test_alibaba_pools);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
