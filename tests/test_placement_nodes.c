/* Placement with a candidate node set (tsched_place_options.nodes / num_nodes, doc/cell.md
 * §5): every algorithm's answer uses only candidates (seeded random candidate sets), a set
 * of exactly the needed size is used entirely, listed nodes that are down, busy or of
 * another size are not candidates, bad lists are rejected naming `nodes[i]`, an older
 * (shorter) options struct ignores the new fields, and a Cell's nodes of a minority pool
 * (a job tsched_job_new(name, N, G, S)) are placed on exactly those nodes, and so are the
 * nodes the Crius scheduler gives its running jobs. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cell/cell_internal.h"
#include "common/rng.h"
#include "test_util.h"

static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP,      TSCHED_PLACE_BEST_FIT,   TSCHED_PLACE_RANDOM_FIT,
                                          TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE, TSCHED_PLACE_EXHAUSTIVE};
#define NALGOS (sizeof algos / sizeof algos[0])

/* Every node of the placement is a distinct member of cand[0..nc). Returns the cell count. */
static uint32_t assert_within(const tsched_placement *pl, const uint32_t *cand, uint32_t nc, uint32_t nn)
{
    uint32_t cells = tsched_placement_rows(pl) * tsched_placement_cols(pl);
    const uint32_t *nodes = tsched_placement_nodes(pl);
    uint8_t *seen = calloc(nn, 1);
    ck_assert_ptr_nonnull(seen);
    for (uint32_t i = 0; i < cells; i++) {
        uint32_t v = nodes[i], k = 0;
        ck_assert_uint_lt(v, nn);
        ck_assert_msg(!seen[v], "node %u used twice", v);
        seen[v] = 1;
        while (k < nc && cand[k] != v)
            k++;
        ck_assert_msg(k < nc, "node %u is not a candidate", v);
    }
    free(seen);
    return cells;
}

START_TEST(test_candidates_every_algo)
{
    /* 4 leaves x 4 nodes of 8 GPUs. */
    tsched_topology *t = tu_leaf_spine(4, 2, 1, 4, 8, 1);
    uint32_t nn = tsched_topology_num_nodes(t);
    ts_rng r;
    ts_rng_seed(&r, 99);
    uint32_t *perm = malloc(nn * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    for (unsigned iter = 0; iter < tu_n(12); iter++) {
        /* A job of 2..8 nodes: tp 8, pp in {1, 2}. */
        uint32_t pp = 1 + (uint32_t)ts_rng_below(&r, 2), nodes = pp * (1 + (uint32_t)ts_rng_below(&r, 8 / pp));
        tsched_job *j = tu_job("j", 8 * nodes, 8, pp);
        for (uint32_t i = 0; i < nn; i++)
            perm[i] = i;
        ts_rng_shuffle_u32(&r, perm, nn);
        uint32_t nc = nodes + (uint32_t)ts_rng_below(&r, nn - nodes + 1);
        for (size_t a = 0; a < NALGOS; a++) {
            tsched_place_options o;
            tsched_place_options_init(&o);
            o.algo = algos[a];
            o.seed = iter + 1;
            o.nodes = perm;
            o.num_nodes = nc;
            tsched_placement *pl = NULL;
            ck_assert_ok(tsched_place(&pl, t, j, &o));
            ck_assert_uint_eq(assert_within(pl, perm, nc, nn), nodes);
            tsched_placement_free(pl);
            /* Exactly as many candidates as needed: all of them are used. */
            o.num_nodes = nodes;
            ck_assert_ok(tsched_place(&pl, t, j, &o));
            ck_assert_uint_eq(assert_within(pl, perm, nodes, nn), nodes);
            tsched_placement_free(pl);
            /* One fewer: infeasible, saying so. */
            if (nodes > 1) {
                o.num_nodes = nodes - 1;
                ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_INFEASIBLE);
                ck_assert_ptr_null(pl);
                ck_assert_errmsg_has("candidate nodes");
            }
        }
        tsched_job_free(j);
    }
    free(perm);
    tsched_topology_free(t);
}
END_TEST

/* NULL / 0 is the old behaviour: the same answer as without the fields. */
START_TEST(test_candidates_default)
{
    tsched_topology *t = tu_leaf_spine(4, 2, 1, 4, 8, 1);
    tsched_job *j = tu_job("j", 48, 8, 2);
    for (size_t a = 0; a < NALGOS; a++) {
        tsched_place_options o;
        tsched_place_options_init(&o);
        o.algo = algos[a];
        ck_assert_ptr_null(o.nodes);
        ck_assert_uint_eq(o.num_nodes, 0);
        tsched_placement *p1 = NULL, *p2 = NULL;
        ck_assert_ok(tsched_place(&p1, t, j, &o));
        uint32_t dummy = 12345;
        o.nodes = &dummy; /* a list with count 0 is no restriction */
        ck_assert_ok(tsched_place(&p2, t, j, &o));
        ck_assert_mem_eq(tsched_placement_nodes(p1), tsched_placement_nodes(p2), 6 * sizeof(uint32_t));
        tsched_placement_free(p1);
        tsched_placement_free(p2);
    }
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(test_candidates_state)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 8, 1);
    tsched_job *j = tu_job("j", 16, 8, 1); /* 2 nodes */
    uint32_t cand[] = {0, 1, 5, 6};
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = TSCHED_PLACE_BEST_FIT;
    o.nodes = cand;
    o.num_nodes = 4;
    /* Node 1 down and node 5 with a busy GPU: only 0 and 6 remain. */
    ck_assert_ok(tsched_topology_set_node_up(t, 1, 0));
    ck_assert_ok(tsched_topology_set_free_gpus(t, 5, 7));
    for (size_t a = 0; a < NALGOS; a++) {
        o.algo = algos[a];
        tsched_placement *pl = NULL;
        ck_assert_ok(tsched_place(&pl, t, j, &o));
        const uint32_t ok[] = {0, 6};
        ck_assert_uint_eq(assert_within(pl, ok, 2, tsched_topology_num_nodes(t)), 2);
        tsched_placement_free(pl);
    }
    /* Node 6 busy too: one usable candidate for two cells. */
    ck_assert_ok(tsched_topology_set_free_gpus(t, 6, 0));
    tsched_placement *pl = NULL;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_INFEASIBLE);
    ck_assert_errmsg_has("only 1 of the 4 candidate nodes");
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(test_candidates_bad)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 8, 1);
    tsched_job *j = tu_job("j", 16, 8, 1);
    tsched_place_options o;
    tsched_place_options_init(&o);
    tsched_placement *pl = NULL;
    uint32_t bad[] = {0, 1, 8, 2};
    o.nodes = bad;
    o.num_nodes = 4;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[2]: 8 is not a node of fabric");
    uint32_t dup[] = {0, 3, 1, 3};
    o.nodes = dup;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("nodes[3]: node 3");
    uint32_t big[] = {TSCHED_NONE};
    o.nodes = big;
    o.num_nodes = 1;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[0]:");
    o.nodes = NULL;
    o.num_nodes = 2;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("nodes: NULL with num_nodes = 2");
    ck_assert_ptr_null(pl);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

/* A caller built against the header before `nodes` passes a shorter size: the fields past
 * it are not read, whatever the memory holds. */
START_TEST(test_candidates_old_size)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 8, 1);
    tsched_job *j = tu_job("j", 16, 8, 1);
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = TSCHED_PLACE_BEST_FIT;
    o.size = offsetof(tsched_place_options, nodes);
    o.nodes = NULL;
    o.num_nodes = 99; /* garbage past the old struct: would be TSCHED_E_INVALID if read */
    tsched_placement *pl = NULL;
    ck_assert_ok(tsched_place(&pl, t, j, &o));
    tsched_placement_free(pl);
    /* A size ending inside `nodes` is refused. */
    o.size = offsetof(tsched_place_options, nodes) + 4;
    ck_assert_status(tsched_place(&pl, t, j, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_place_options");
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

/* A fabric dominated by 8-GPU A100 nodes with minority T4/2 and V100/4 pools: 4 leaves,
 * each with 6 A100 x8 (4 NICs of 200), 3 T4 x2 (one NIC of 25), 2 V100 x4 (2 x 100). */
static tsched_topology *cells_fabric(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "cells"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
    for (uint32_t l = 0; l < 4; l++) {
        char leaf[16];
        snprintf(leaf, sizeof leaf, "leaf%u", l);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, leaf, 0, NULL));
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine0", 400, 4));
        for (uint32_t k = 0; k < 6; k++) {
            char name[32];
            snprintf(name, sizeof name, "a%u-%u", l, k);
            ck_assert_ok(tsched_topology_add_node(NULL, t, name, leaf, 8, 4, "A100", 200));
            snprintf(name, sizeof name, "t%u-%u", l, k);
            if (k < 3)
                ck_assert_ok(tsched_topology_add_node(NULL, t, name, leaf, 2, 1, "T4", 25));
            snprintf(name, sizeof name, "v%u-%u", l, k);
            if (k < 2)
                ck_assert_ok(tsched_topology_add_node(NULL, t, name, leaf, 4, 2, "V100", 100));
        }
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* The Cell's nodes: for each pool of cells_fabric() and Cell (N, S) with N a multiple of
 * G * S, the pool's first N / G nodes as candidates and a job tsched_job_new(name, N, G, S):
 * placement succeeds on exactly those nodes (gpus_per_node left 0: the candidates' size). */
START_TEST(test_cell_nodes)
{
    tsched_topology *t = cells_fabric();
    ts_pools pools;
    ck_assert_ok(ts_pools_build(&pools, t));
    ck_assert_uint_eq(pools.n, 3);
    uint32_t nn = tsched_topology_num_nodes(t), tried = 0;
    for (uint32_t pi = 0; pi < pools.n; pi++) {
        const ts_pool *pool = &pools.p[pi];
        for (uint32_t N = pool->G; N <= pool->G * pool->nnodes; N *= 2)
            for (uint32_t S = 1; S <= 4; S *= 2) {
                if (N % (pool->G * S) != 0)
                    continue;
                uint32_t need = N / pool->G;
                /* Take every other node of the pool first, so the candidates span leaves. */
                uint32_t *cand = malloc(need * sizeof *cand), k = 0;
                ck_assert_ptr_nonnull(cand);
                for (uint32_t i = 0; i < pool->nnodes && k < need; i += 2)
                    cand[k++] = pool->nodes[i];
                for (uint32_t i = 1; i < pool->nnodes && k < need; i += 2)
                    cand[k++] = pool->nodes[i];
                tsched_job *j = tu_job("cell", N, pool->G, S);
                for (size_t a = 0; a < NALGOS; a++) {
                    if (algos[a] == TSCHED_PLACE_EXHAUSTIVE && need > 16)
                        continue;
                    tsched_place_options o;
                    tsched_place_options_init(&o);
                    o.algo = algos[a];
                    o.nodes = cand;
                    o.num_nodes = need;
                    tsched_placement *pl = NULL;
                    tsched_status st = tsched_place(&pl, t, j, &o);
                    if (st == TSCHED_E_INVALID && algos[a] == TSCHED_PLACE_EXHAUSTIVE)
                        continue; /* beyond exhaustive's 4 domains */
                    ck_assert_msg(st == TSCHED_OK, "%s N %u S %u %s: %s", pool->name, N, S,
                                  tsched_place_algo_name(algos[a]), tsched_last_error());
                    ck_assert_uint_eq(assert_within(pl, cand, need, nn), need);
                    ck_assert_uint_eq(tsched_placement_cols(pl), S);
                    tsched_placement_free(pl);
                    tried++;
                }
                tsched_job_free(j);
                free(cand);
            }
    }
    ck_assert_uint_gt(tried, 40);
    ts_pools_free(&pools);
    tsched_topology_free(t);
}
END_TEST

/* The scheduler's Cells: a seeded queue on cells_fabric(), one arrival event;
 * every running job whose Cell spans whole nodes with N a multiple of G * S is placed with
 * tsched_job_new(name, N, G, S) and its nodes as candidates: exactly those nodes. */
START_TEST(test_crius_cell_nodes)
{
    tsched_topology *t = cells_fabric();
    tsched_gpu_catalog *cat = NULL;
    ck_assert_ok(tsched_gpu_catalog_default(&cat));
    ts_pools pools;
    ck_assert_ok(ts_pools_build(&pools, t));
    uint32_t nn = tsched_topology_num_nodes(t), placed = 0;
    ts_rng r;
    ts_rng_seed(&r, 5);
    for (unsigned iter = 0; iter < tu_n(6); iter++) {
        tsched_crius *cr = NULL;
        ck_assert_ok(tsched_crius_new(&cr, t, cat));
        static const uint32_t sizes[] = {2, 4, 8, 16, 32};
        for (uint32_t k = 0; k < 8; k++) {
            char name[16];
            snprintf(name, sizeof name, "j%u", k);
            tsched_job *j = tu_job(name, sizes[ts_rng_below(&r, 5)], 1, 1);
            tsched_model m;
            tsched_model_init(&m);
            m.hidden = 512 + 512 * (uint32_t)ts_rng_below(&r, 3);
            m.layers = 4 + (uint32_t)ts_rng_below(&r, 20);
            m.vocab = 32000;
            m.seq = 512;
            m.global_batch = 64;
            ck_assert_ok(tsched_job_set_model(j, &m));
            ck_assert_ok(tsched_crius_add_job(NULL, cr, j, k));
            tsched_job_free(j);
        }
        ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
        for (uint32_t k = 0; k < tsched_crius_num_jobs(cr); k++) {
            if (!tsched_crius_job_running(cr, k))
                continue;
            const tsched_cell *cell = NULL;
            ck_assert_ok(tsched_crius_job_cell(&cell, cr, k));
            uint32_t N = tsched_cell_gpus(cell), S = tsched_cell_num_stages(cell);
            uint32_t pi = ts_pools_find(&pools, tsched_cell_pool(cell));
            ck_assert_uint_ne(pi, UINT32_MAX);
            uint32_t G = pools.p[pi].G;
            uint32_t nodes[64], gpus[64];
            size_t cnt = 0;
            ck_assert_ok(tsched_crius_job_nodes(nodes, gpus, 64, &cnt, cr, k));
            if (N < G || N % (G * S) != 0)
                continue; /* not one matrix cell per node: the section 1 order */
            ck_assert_uint_eq(cnt, N / G);
            tsched_job *j = tu_job(tsched_crius_job_name(cr, k), N, G, S);
            for (size_t a = 0; a < NALGOS; a++) {
                tsched_place_options o;
                tsched_place_options_init(&o);
                o.algo = algos[a];
                o.nodes = nodes;
                o.num_nodes = (uint32_t)cnt;
                tsched_placement *pl = NULL;
                tsched_status st = tsched_place(&pl, t, j, &o);
                if (st == TSCHED_E_INVALID && algos[a] == TSCHED_PLACE_EXHAUSTIVE)
                    continue;
                ck_assert_msg(st == TSCHED_OK, "%s: %s", tsched_crius_job_name(cr, k), tsched_last_error());
                ck_assert_uint_eq(assert_within(pl, nodes, (uint32_t)cnt, nn), cnt);
                tsched_placement_free(pl);
                placed++;
            }
            tsched_job_free(j);
        }
        tsched_crius_free(cr);
    }
    ck_assert_uint_gt(placed, 30);
    ts_pools_free(&pools);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement-nodes");
    TCase *tc = tcase_create("candidates");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_candidates_every_algo);
    tcase_add_test(tc, test_candidates_default);
    tcase_add_test(tc, test_candidates_state);
    tcase_add_test(tc, test_candidates_bad);
    tcase_add_test(tc, test_candidates_old_size);
    tcase_add_test(tc, test_cell_nodes);
    tcase_add_test(tc, test_crius_cell_nodes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
