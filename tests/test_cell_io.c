/* Cell I/O suite (doc/cell.md §1, §3.4, §7.1, §8): the built-in GPU catalogue against the
 * design's table, lookups, clone and merge; the tsched.gpus.v1 reader (every field rule and
 * bad input) and writer (round trip); the tsched.op-profile.v1 reader, clone and the
 * collective interpolation against hand-computed values on seeded random point sets; pools
 * of hand-built heterogeneous fabrics against a brute-force recount. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cell/cell_internal.h"
#include "common/rng.h"
#include "test_util.h"

#define IO_DATA TSCHED_TEST_DATA "/cell/io"

/* ---- the built-in catalogue ---- */

/* §7.1's table, typed in from the design note (not from catalog.c). */
static const struct {
    const char *name;
    double tflops, mem_gib, intra_gbps;
} table71[] = {
    {"H100", 989, 80, 3600},   {"H800", 989, 80, 1600},  {"A100", 312, 80, 2400},   {"A100-40G", 312, 40, 2400},
    {"A40", 149.7, 48, 256},   {"A10", 125, 24, 256},    {"L20", 119.5, 48, 256},   {"V100", 125, 32, 1200},
    {"V100M16", 125, 16, 1200}, {"V100M32", 125, 32, 1200}, {"T4", 65, 16, 128}, {"P100", 18.7, 16, 128},
};
#define N71 (sizeof table71 / sizeof table71[0])

static tsched_gpu_catalog *default_cat(void)
{
    tsched_gpu_catalog *c = NULL;
    ck_assert_ok(tsched_gpu_catalog_default(&c));
    ck_assert_ptr_nonnull(c);
    return c;
}

START_TEST(test_builtin_table)
{
    tsched_gpu_catalog *c = default_cat();
    ck_assert_uint_eq(tsched_gpu_catalog_count(c), N71);
    for (size_t i = 0; i < N71; i++) {
        tsched_gpu_info info = {.size = sizeof info};
        ck_assert_ok(tsched_gpu_catalog_find(&info, c, table71[i].name));
        ck_assert_str_eq(info.name, table71[i].name);
        ck_assert(info.tflops == table71[i].tflops);
        ck_assert(info.mem_gib == table71[i].mem_gib);
        ck_assert(info.intra_gbps == table71[i].intra_gbps);
        ck_assert(info.efficiency == 0.5);
        const ts_gpu *g = ts_catalog_find(c, table71[i].name);
        ck_assert_ptr_nonnull(g);
        ck_assert_ptr_nonnull(g->note); /* every figure cites its source */
        ck_assert_uint_gt(strlen(g->note), 20);
    }
    /* Name order (strcmp), and get() agrees with find(). */
    for (uint32_t i = 0; i < c->n; i++) {
        if (i)
            ck_assert_int_lt(strcmp(c->gpus[i - 1].name, c->gpus[i].name), 0);
        tsched_gpu_info a = {.size = sizeof a}, b = {.size = sizeof b};
        ck_assert_ok(tsched_gpu_catalog_get(&a, c, i));
        ck_assert_ok(tsched_gpu_catalog_find(&b, c, a.name));
        ck_assert_ptr_eq(a.name, b.name);
    }
    ck_assert_str_eq(c->gpus[0].name, "A10");
    ck_assert_str_eq(c->gpus[1].name, "A100");
    ck_assert_str_eq(c->gpus[2].name, "A100-40G");
    tsched_gpu_catalog_free(c);
}
END_TEST

START_TEST(test_catalog_lookups)
{
    tsched_gpu_catalog *c = default_cat();
    tsched_gpu_info info = {.size = sizeof info};
    ck_assert_status(tsched_gpu_catalog_find(&info, c, "G2"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("\"G2\"");
    ck_assert_status(tsched_gpu_catalog_get(&info, c, c->n), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_get(NULL, c, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_get(&info, NULL, 0), TSCHED_E_INVALID);
    ck_assert_uint_eq(tsched_gpu_catalog_count(NULL), 0);
    ck_assert_ptr_null(ts_catalog_find(c, "A1"));
    ck_assert_ptr_null(ts_catalog_find(c, "Z"));
    ck_assert_ptr_null(ts_catalog_find(c, ""));
    ck_assert_ptr_null(ts_catalog_find(NULL, "A100"));
    /* Every entry is found by the binary search. */
    for (uint32_t i = 0; i < c->n; i++)
        ck_assert_ptr_eq(ts_catalog_find(c, c->gpus[i].name), &c->gpus[i]);
    /* Bad sizes: not on a field boundary, too large. An older, shorter struct gets its prefix. */
    info.size = sizeof info + 8;
    ck_assert_status(tsched_gpu_catalog_get(&info, c, 0), TSCHED_E_INVALID);
    info.size = sizeof(size_t) + 1;
    ck_assert_status(tsched_gpu_catalog_get(&info, c, 0), TSCHED_E_INVALID);
    tsched_gpu_info old;
    memset(&old, 0, sizeof old);
    old.size = offsetof(tsched_gpu_info, mem_gib);
    ck_assert_ok(tsched_gpu_catalog_get(&old, c, 1));
    ck_assert_str_eq(old.name, "A100");
    ck_assert(old.tflops == 312);
    ck_assert(old.mem_gib == 0); /* not covered: untouched */
    tsched_gpu_catalog_free(c);
    tsched_gpu_catalog_free(NULL);
}
END_TEST

/* Field-by-field equality of two catalogues. */
static void assert_cat_eq(const tsched_gpu_catalog *a, const tsched_gpu_catalog *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        const ts_gpu *x = &a->gpus[i], *y = &b->gpus[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert(x->tflops == y->tflops);
        ck_assert(x->mem_gib == y->mem_gib);
        ck_assert(x->intra_gbps == y->intra_gbps);
        ck_assert(x->efficiency == y->efficiency);
        ck_assert_int_eq(!x->note, !y->note);
        if (x->note)
            ck_assert_str_eq(x->note, y->note);
    }
}

START_TEST(test_catalog_clone)
{
    tsched_gpu_catalog *c = default_cat(), *d = NULL;
    ck_assert_ok(ts_catalog_clone(&d, c));
    assert_cat_eq(c, d);
    for (uint32_t i = 0; i < c->n; i++)
        ck_assert_ptr_ne(c->gpus[i].name, d->gpus[i].name); /* deep */
    tsched_gpu_catalog_free(c);
    tsched_gpu_catalog_free(d);
    ck_assert_status(ts_catalog_clone(&d, NULL), TSCHED_E_INVALID);
}
END_TEST

/* A catalogue of the given names; entry i has tflops = base + i. */
static tsched_gpu_catalog *cat_of(const char *const *names, uint32_t n, double base)
{
    tsched_gpu_catalog *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->gpus = calloc(n ? n : 1, sizeof *c->gpus);
    ck_assert_ptr_nonnull(c->gpus);
    for (uint32_t i = 0; i < n; i++) {
        c->gpus[i].name = strdup(names[i]);
        c->gpus[i].tflops = base + i;
        c->gpus[i].mem_gib = 16;
        c->gpus[i].intra_gbps = 100;
        c->gpus[i].efficiency = 0.5;
    }
    c->n = n;
    ts_catalog_sort(c);
    return c;
}

START_TEST(test_catalog_merge)
{
    tsched_gpu_catalog *dst = default_cat(), *ref = default_cat();
    const char *names[] = {"G2", "A100", "ZZ", "0first", "V100M16"};
    tsched_gpu_catalog *src = cat_of(names, 5, 1000);
    ck_assert_ok(tsched_gpu_catalog_merge(dst, src));
    ck_assert_uint_eq(dst->n, ref->n + 3);
    for (uint32_t i = 1; i < dst->n; i++)
        ck_assert_int_lt(strcmp(dst->gpus[i - 1].name, dst->gpus[i].name), 0);
    /* src's entries win; the others are the built-in ones. */
    for (uint32_t i = 0; i < dst->n; i++) {
        const ts_gpu *g = &dst->gpus[i], *s = ts_catalog_find(src, g->name), *r = ts_catalog_find(ref, g->name);
        ck_assert(s || r);
        const ts_gpu *want = s ? s : r;
        ck_assert(g->tflops == want->tflops);
        ck_assert(g->mem_gib == want->mem_gib);
        ck_assert_int_eq(!g->note, !want->note);
    }
    ck_assert(ts_catalog_find(dst, "A100")->tflops == 1001);
    /* Merging an empty catalogue or itself changes nothing. */
    tsched_gpu_catalog *empty = cat_of(NULL, 0, 0), *before = NULL;
    ck_assert_ok(ts_catalog_clone(&before, dst));
    ck_assert_ok(tsched_gpu_catalog_merge(dst, empty));
    ck_assert_ok(tsched_gpu_catalog_merge(dst, dst));
    assert_cat_eq(dst, before);
    /* Into an empty one: a copy. */
    ck_assert_ok(tsched_gpu_catalog_merge(empty, ref));
    assert_cat_eq(empty, ref);
    ck_assert_status(tsched_gpu_catalog_merge(NULL, ref), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_merge(dst, NULL), TSCHED_E_INVALID);
    tsched_gpu_catalog_free(dst);
    tsched_gpu_catalog_free(ref);
    tsched_gpu_catalog_free(src);
    tsched_gpu_catalog_free(empty);
    tsched_gpu_catalog_free(before);
}
END_TEST

/* Seeded random merges against a brute-force reference (name -> tflops table). */
START_TEST(test_catalog_merge_random)
{
    ts_rng r;
    ts_rng_seed(&r, 12);
    for (int iter = 0; iter < 200; iter++) {
        char nb[2][12][8];
        const char *na[2][12];
        uint32_t cnt[2];
        tsched_gpu_catalog *c[2];
        for (int k = 0; k < 2; k++) {
            cnt[k] = (uint32_t)ts_rng_below(&r, 8);
            uint32_t n = 0;
            for (uint32_t i = 0; i < cnt[k]; i++) {
                snprintf(nb[k][n], sizeof nb[k][n], "T%u", (unsigned)ts_rng_below(&r, 10));
                int dup = 0;
                for (uint32_t j = 0; j < n; j++)
                    dup |= strcmp(nb[k][j], nb[k][n]) == 0;
                if (!dup) {
                    na[k][n] = nb[k][n];
                    n++;
                }
            }
            cnt[k] = n;
            c[k] = cat_of(na[k], n, k ? 100 : 0);
        }
        ck_assert_ok(tsched_gpu_catalog_merge(c[0], c[1]));
        /* Brute force: names of both, each from src if there, else from dst. */
        uint32_t want = 0;
        for (int d = 0; d < 10; d++) {
            char nm[8];
            snprintf(nm, sizeof nm, "T%d", d);
            int in0 = 0, in1 = 0;
            for (uint32_t i = 0; i < cnt[0]; i++)
                in0 |= strcmp(na[0][i], nm) == 0;
            for (uint32_t i = 0; i < cnt[1]; i++)
                in1 |= strcmp(na[1][i], nm) == 0;
            const ts_gpu *g = ts_catalog_find(c[0], nm);
            ck_assert_int_eq(g != NULL, in0 || in1);
            if (in1)
                ck_assert(g->tflops >= 100);
            else if (in0)
                ck_assert(g->tflops < 100);
            want += in0 || in1;
        }
        ck_assert_uint_eq(c[0]->n, want);
        for (uint32_t i = 1; i < c[0]->n; i++)
            ck_assert_int_lt(strcmp(c[0]->gpus[i - 1].name, c[0]->gpus[i].name), 0);
        tsched_gpu_catalog_free(c[0]);
        tsched_gpu_catalog_free(c[1]);
    }
}
END_TEST

/* ---- pools ---- */

/* A hand-built heterogeneous fabric: two leaves under one spine.
 *   a0 A100 x8, 4 NICs of 200  (U 100)    a1 A100 x8, 2 NICs of 200 (U 50)
 *   a2 A100 x4, 1 x 100 (U 25)
 *   t0 T4 x2, 1 x 25 (12.5)   t1 T4 x2, 2 x 25 (25)   v0 V100M16 x16, 8 x 100 (50)
 *   a3 A100 x16, 2 x 400 (50)  g0 G2 x8, 1 x 100 (12.5) */
static tsched_topology *hetero_fabric(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "hetero"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf1", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine0", 400, 2));
    ck_assert_ok(tsched_topology_add_link(t, "leaf1", "spine0", 400, 2));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a0", "leaf0", 8, 4, "A100", 200));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "t0", "leaf0", 2, 1, "T4", 25));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a1", "leaf1", 8, 2, "A100", 200));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "v0", "leaf1", 16, 8, "V100M16", 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a2", "leaf0", 4, 1, "A100", 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "t1", "leaf1", 2, 2, "T4", 25));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a3", "leaf0", 16, 2, "A100", 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "g0", "leaf1", 8, 1, "G2", 100));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

START_TEST(test_pools_hand)
{
    tsched_topology *t = hetero_fabric();
    ts_pools p;
    ck_assert_ok(ts_pools_build(&p, t));
    static const struct {
        const char *name, *type;
        uint32_t G;
        double U;
        const char *nodes[3];
    } want[] = {
        {"A100/16", "A100", 16, 50, {"a3"}},  {"A100/4", "A100", 4, 25, {"a2"}},
        {"A100/8", "A100", 8, 50, {"a0", "a1"}}, {"G2/8", "G2", 8, 12.5, {"g0"}},
        {"T4/2", "T4", 2, 12.5, {"t0", "t1"}}, {"V100M16/16", "V100M16", 16, 50, {"v0"}},
    };
    ck_assert_uint_eq(p.n, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < p.n; i++) {
        ck_assert_str_eq(p.p[i].name, want[i].name);
        ck_assert_str_eq(p.p[i].gpu_type, want[i].type);
        ck_assert_uint_eq(p.p[i].G, want[i].G);
        ck_assert(p.p[i].U_gbps == want[i].U);
        uint32_t k = 0;
        while (k < 3 && want[i].nodes[k])
            k++;
        ck_assert_uint_eq(p.p[i].nnodes, k);
        for (uint32_t j = 0; j < k; j++)
            ck_assert_uint_eq(p.p[i].nodes[j], tu_node(t, want[i].nodes[j]));
        ck_assert_uint_eq(ts_pools_find(&p, want[i].name), i);
    }
    ck_assert_uint_eq(ts_pools_find(&p, "A100/2"), UINT32_MAX);
    ck_assert_uint_eq(ts_pools_find(&p, "CPU/0"), UINT32_MAX);
    ck_assert_uint_eq(ts_pools_find(&p, "Z"), UINT32_MAX);
    ts_pools_free(&p);

    char **names = NULL;
    uint32_t n = 99;
    ck_assert_ok(tsched_cell_pools(&names, &n, t));
    ck_assert_uint_eq(n, 6);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_str_eq(names[i], want[i].name);
    tsched_free(names); /* one allocation */
    /* Down and busy nodes still belong to their pools. */
    ck_assert_ok(tsched_topology_set_node_up(t, tu_node(t, "a0"), 0));
    ck_assert_ok(ts_pools_build(&p, t));
    ck_assert_uint_eq(p.p[ts_pools_find(&p, "A100/8")].nnodes, 2);
    ts_pools_free(&p);
    tsched_topology_free(t);
}
END_TEST

START_TEST(test_pools_empty_and_errors)
{
    tsched_topology *t = NULL;
    /* The fabric rejects nodes without GPUs, so "no pool" means "no node". */
    ck_assert_ok(tsched_topology_new(&t, "empty"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
    ts_pools p;
    /* Not built yet. */
    ck_assert_status(ts_pools_build(&p, t), TSCHED_E_INVALID);
    char **names = (char **)&p;
    uint32_t n = 5;
    ck_assert_status(tsched_cell_pools(&names, &n, t), TSCHED_E_INVALID);
    ck_assert_ok(tsched_topology_build(t));
    ck_assert_ok(tsched_cell_pools(&names, &n, t));
    ck_assert_ptr_null(names);
    ck_assert_uint_eq(n, 0);
    ck_assert_ok(ts_pools_build(&p, t));
    ck_assert_uint_eq(p.n, 0);
    ts_pools_free(&p);
    ck_assert_status(tsched_cell_pools(NULL, &n, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_cell_pools(&names, NULL, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_cell_pools(&names, &n, NULL), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

/* Random heterogeneous fabrics: pools against a recount by (type, G) over every node pair. */
START_TEST(test_pools_random)
{
    static const char *const types[] = {"A100", "T4", "V100M16", "G2", "A10", "A100-40G"};
    static const uint32_t gpus[] = {1, 2, 4, 8, 16, 3};
    static const double gbps[] = {25, 100, 200, 400};
    ts_rng r;
    ts_rng_seed(&r, 2026);
    for (unsigned iter = 0; iter < tu_n(60); iter++) {
        tsched_topology *t = NULL;
        ck_assert_ok(tsched_topology_new(&t, "rnd"));
        uint32_t leaves = 1 + (uint32_t)ts_rng_below(&r, 3), nn = 1 + (uint32_t)ts_rng_below(&r, 40);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine", 1, NULL));
        for (uint32_t l = 0; l < leaves; l++) {
            char nm[16];
            snprintf(nm, sizeof nm, "leaf%u", l);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, nm, 0, NULL));
            ck_assert_ok(tsched_topology_add_link(t, nm, "spine", 400, 1));
        }
        for (uint32_t v = 0; v < nn; v++) {
            char nm[16], lf[16];
            snprintf(nm, sizeof nm, "n%u", v);
            snprintf(lf, sizeof lf, "leaf%u", (unsigned)ts_rng_below(&r, leaves));
            ck_assert_ok(tsched_topology_add_node(NULL, t, nm, lf, gpus[ts_rng_below(&r, 6)],
                                                  1 + (uint32_t)ts_rng_below(&r, 8), types[ts_rng_below(&r, 6)],
                                                  gbps[ts_rng_below(&r, 4)]));
        }
        ck_assert_ok(tsched_topology_build(t));
        ts_pools p;
        ck_assert_ok(ts_pools_build(&p, t));
        /* Every node with GPUs is in exactly the pool of its (type, G); U is the min. */
        uint32_t total = 0;
        for (uint32_t i = 0; i < p.n; i++) {
            if (i)
                ck_assert_int_lt(strcmp(p.p[i - 1].name, p.p[i].name), 0);
            char want[64];
            snprintf(want, sizeof want, "%s/%u", p.p[i].gpu_type, p.p[i].G);
            ck_assert_str_eq(p.p[i].name, want);
            double u = INFINITY;
            uint32_t cnt = 0;
            for (uint32_t v = 0; v < nn; v++) {
                if (tsched_topology_node_gpus(t, v) != p.p[i].G ||
                    strcmp(tsched_topology_node_gpu_type(t, v), p.p[i].gpu_type) != 0)
                    continue;
                ck_assert_uint_lt(cnt, p.p[i].nnodes);
                ck_assert_uint_eq(p.p[i].nodes[cnt], v); /* ascending, complete */
                cnt++;
                u = fmin(u, tsched_topology_node_nics(t, v) * tsched_topology_node_nic_gbps(t, v) / p.p[i].G);
            }
            ck_assert_uint_eq(cnt, p.p[i].nnodes);
            ck_assert_uint_gt(p.p[i].G, 0);
            ck_assert(p.p[i].U_gbps == u);
            total += cnt;
        }
        ck_assert_uint_eq(total, nn);
        char **names;
        uint32_t n;
        ck_assert_ok(tsched_cell_pools(&names, &n, t));
        ck_assert_uint_eq(n, p.n);
        for (uint32_t i = 0; i < n; i++)
            ck_assert_str_eq(names[i], p.p[i].name);
        tsched_free(names);
        ts_pools_free(&p);
        tsched_topology_free(t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cell-io");
    TCase *tc = tcase_create("catalogue");
    tcase_add_test(tc, test_builtin_table);
    tcase_add_test(tc, test_catalog_lookups);
    tcase_add_test(tc, test_catalog_clone);
    tcase_add_test(tc, test_catalog_merge);
    tcase_add_test(tc, test_catalog_merge_random);
    suite_add_tcase(s, tc);
    tc = tcase_create("pools");
    tcase_add_test(tc, test_pools_hand);
    tcase_add_test(tc, test_pools_empty_and_errors);
    tcase_add_test(tc, test_pools_random);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
