/* Topology suite: generators, paths against a brute-force reference, failures, free
 * capacity, the builder API. The JSON, Slurm and real-data cases live in their own files
 * and are collected here. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"
#include "topology/topology_internal.h"

TCase *topology_json_tcase(void);
TCase *topology_slurm_tcase(void);
TCase *topology_real_tcase(void);
TCase *topology_deep_tcase(void);

/* ---- generators ---- */

START_TEST(leaf_spine_counts_names_wiring)
{
    static const uint32_t shapes[][4] = {{2, 2, 1, 8}, {4, 3, 5, 4}, {64, 32, 32, 1}, {16, 8, 16, 8}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint32_t L = shapes[k][0], S = shapes[k][1], npl = shapes[k][2], g = shapes[k][3];
        tsched_topology *t = tu_gen_leaf_spine(L, S, npl, g, 0, 0, 0, 1.0);
        ck_assert_uint_eq(tsched_topology_num_nodes(t), L * npl);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 0), L);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 1), S);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 2), 0);
        ck_assert_uint_eq(tsched_topology_num_pods(t), 0);
        ck_assert_uint_eq(tsched_topology_num_trunks(t), L * S);
        ck_assert_uint_eq(tsched_topology_num_gpus(t), (uint64_t)L * npl * g);
        ck_assert_uint_eq(tsched_topology_num_free_gpus(t), (uint64_t)L * npl * g);
        /* uplinks = ceil(nics per leaf / spines) links of nic_gbps each */
        uint32_t up = (npl * g + S - 1) / S;
        for (uint32_t n = 0; n < L * npl; n++) {
            char name[32], leaf[32];
            snprintf(name, sizeof name, "node%u", n);
            snprintf(leaf, sizeof leaf, "leaf%u", n / npl);
            ck_assert_uint_eq(tsched_topology_find_node(t, name), n);
            ck_assert_str_eq(tsched_topology_node_name(t, n), name);
            ck_assert_uint_eq(tsched_topology_node_leaf(t, n), tu_sw(t, leaf));
            ck_assert_uint_eq(tsched_topology_node_nics(t, n), g);
            ck_assert_uint_eq(tsched_topology_node_pod(t, n), TSCHED_NONE);
        }
        for (uint32_t l = 0; l < L; l++)
            for (uint32_t s = 0; s < S; s++) {
                char a[32], b[32];
                snprintf(a, sizeof a, "leaf%u", l);
                snprintf(b, sizeof b, "spine%u", s);
                uint32_t tr = tsched_topology_find_trunk(t, tu_sw(t, b), tu_sw(t, a));
                ck_assert_uint_ne(tr, TSCHED_NONE);
                ck_assert_uint_eq(tsched_topology_trunk_lower(t, tr), tu_sw(t, a));
                ck_assert_uint_eq(tsched_topology_trunk_upper(t, tr), tu_sw(t, b));
                ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), up);
                ck_assert_double_eq(tsched_topology_trunk_gbps(t, tr), up * 400.0);
            }
        tsched_topology_free(t);
    }
}
END_TEST

START_TEST(leaf_spine_oversubscribed)
{
    /* 16 nodes x 8 NICs = 128 NICs per leaf, 8 spines, 2:1 -> 8 links per trunk */
    tsched_topology *t = tu_gen_leaf_spine(4, 8, 16, 8, 0, 0, 0, 2.0);
    uint32_t tr = tsched_topology_find_trunk(t, tu_sw(t, "leaf3"), tu_sw(t, "spine7"));
    ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), 8);
    ck_assert_double_eq(tsched_topology_trunk_gbps(t, tr), 3200.0);
    tsched_topology_free(t);
}

START_TEST(clos3_counts_names_wiring)
{
    static const uint32_t shapes[][5] = {{2, 2, 2, 2, 2}, {3, 4, 2, 6, 3}, {4, 8, 8, 16, 16}, {16, 64, 16, 64, 16}};
    /* the 16,384-node shape is most of this test's time under valgrind, which checks the three
     * others (the plain and ASan builds check all four) */
    size_t nshapes = sizeof shapes / sizeof shapes[0] - (tu_valgrind() ? 1 : 0);
    for (size_t k = 0; k < nshapes; k++) {
        uint32_t P = shapes[k][0], lpp = shapes[k][1], spp = shapes[k][2], C = shapes[k][3], npl = shapes[k][4];
        tsched_topology *t = tu_gen_clos3(P, lpp, spp, C, npl, 0, 0, 0, 0);
        ck_assert_uint_eq(tsched_topology_num_nodes(t), P * lpp * npl);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 0), P * lpp);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 1), P * spp);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 2), C);
        ck_assert_uint_eq(tsched_topology_num_pods(t), P);
        ck_assert_uint_eq(tsched_topology_num_trunks(t), P * lpp * spp + P * C);
        for (uint32_t p = 0; p < P; p++) {
            char pod[32];
            snprintf(pod, sizeof pod, "pod%u", p);
            ck_assert_uint_eq(tsched_topology_find_pod(t, pod), p);
            uint32_t nl;
            const uint32_t *leaves = tsched_topology_pod_leaves(t, p, &nl);
            ck_assert_uint_eq(nl, lpp);
            for (uint32_t i = 0; i < nl; i++) {
                char leaf[32];
                snprintf(leaf, sizeof leaf, "leaf%u", p * lpp + i);
                ck_assert_uint_eq(leaves[i], tu_sw(t, leaf));
                ck_assert_uint_eq(tsched_topology_switch_pod(t, leaves[i]), p);
            }
        }
        uint32_t nics_leaf = npl * 8, ls_links = (nics_leaf + spp - 1) / spp;
        for (uint32_t l = 0; l < P * lpp; l++) {
            char leaf[32];
            snprintf(leaf, sizeof leaf, "leaf%u", l);
            for (uint32_t s = 0; s < P * spp; s++) {
                char spine[32];
                snprintf(spine, sizeof spine, "spine%u", s);
                uint32_t tr = tsched_topology_find_trunk(t, tu_sw(t, leaf), tu_sw(t, spine));
                int same_pod = s / spp == l / lpp;
                ck_assert_int_eq(tr != TSCHED_NONE, same_pod);
                if (same_pod) {
                    ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), ls_links);
                    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, spine)), l / lpp);
                }
            }
        }
        for (uint32_t s = 0; s < P * spp; s++) {
            char spine[32];
            snprintf(spine, sizeof spine, "spine%u", s);
            uint32_t plane = s % spp, in_plane = 0;
            for (uint32_t c = 0; c < C; c++)
                in_plane += c % spp == plane;
            for (uint32_t c = 0; c < C; c++) {
                char core[32];
                snprintf(core, sizeof core, "core%u", c);
                uint32_t tr = tsched_topology_find_trunk(t, tu_sw(t, spine), tu_sw(t, core));
                ck_assert_int_eq(tr != TSCHED_NONE, c % spp == plane);
                if (tr != TSCHED_NONE) {
                    /* the spine's downlinks spread over the cores of its plane, 1:1 */
                    uint32_t down = lpp * ls_links, per = (down + in_plane - 1) / in_plane;
                    ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), per);
                    ck_assert_double_eq(tsched_topology_trunk_gbps(t, tr), per * 400.0);
                }
            }
        }
        tsched_topology_free(t);
    }
}
END_TEST

START_TEST(generator_rejects_bad_params)
{
    tsched_gen_params p;
    tsched_topology *t = (tsched_topology *)&p; /* must be reset to NULL on failure */
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.pods = 0;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has("generate.pods");
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.cores = 3;
    p.spines_per_pod = 4;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.cores");
    tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
    p.nic_gbps = NAN;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.nic_gbps");
    tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
    p.oversubscription = 0.5;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.oversubscription");
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.pods = 60000;
    p.leaves_per_pod = 60000;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("generate");
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.size = 9; /* ends inside the `kind` field */
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_gen_params.size");
    p.size = sizeof p + 8; /* larger than this library knows */
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_generate(&t, NULL), TSCHED_E_INVALID);
}
END_TEST

/* ---- paths: brute-force reference over the public getters ---- */

typedef struct ref_path {
    uint32_t n, sw[5];
} ref_path;

static int trunk_ok(const tsched_topology *t, uint32_t a, uint32_t b, uint32_t *tr)
{
    *tr = tsched_topology_find_trunk(t, a, b);
    return *tr != TSCHED_NONE && tsched_topology_trunk_is_up(t, *tr) && tsched_topology_switch_is_up(t, a) &&
           tsched_topology_switch_is_up(t, b);
}

/* Every valley-free path between two leaves, by trying every spine / (spine, core, spine):
 * shortest ones only, in (spine, core, spine) index order. */
static size_t ref_paths(const tsched_topology *t, uint32_t a, uint32_t b, ref_path *out, size_t cap)
{
    size_t n = 0;
    uint32_t tr;
    if (!tsched_topology_switch_is_up(t, a) || !tsched_topology_switch_is_up(t, b))
        return 0;
    if (a == b) {
        out[0] = (ref_path){1, {a}};
        return 1;
    }
    uint32_t ns = tsched_topology_num_tier(t, 1), nc = tsched_topology_num_tier(t, 2);
    uint32_t spines[256], cores[256];
    ck_assert_uint_le(ns, 256);
    for (uint32_t i = 0; i < ns; i++)
        spines[i] = tsched_topology_tier_switch(t, 1, i);
    for (uint32_t i = 0; i < nc; i++)
        cores[i] = tsched_topology_tier_switch(t, 2, i);
    for (uint32_t i = 0; i < ns; i++)
        if (trunk_ok(t, a, spines[i], &tr) && trunk_ok(t, b, spines[i], &tr)) {
            ck_assert_uint_lt(n, cap);
            out[n++] = (ref_path){3, {a, spines[i], b}};
        }
    if (n)
        return n;
    for (uint32_t i = 0; i < ns; i++) {
        if (!trunk_ok(t, a, spines[i], &tr))
            continue;
        for (uint32_t c = 0; c < nc; c++) {
            if (!trunk_ok(t, spines[i], cores[c], &tr))
                continue;
            for (uint32_t j = 0; j < ns; j++)
                if (j != i && trunk_ok(t, cores[c], spines[j], &tr) && trunk_ok(t, b, spines[j], &tr)) {
                    ck_assert_uint_lt(n, cap);
                    out[n++] = (ref_path){5, {a, spines[i], cores[c], spines[j], b}};
                }
        }
    }
    return n;
}

/* Library paths between two leaves equal the reference, in order, with correct links. */
static void check_leaf_pair(const tsched_topology *t, uint32_t a, uint32_t b)
{
    static ref_path ref[4096];
    static tsched_path got[4096] = {{.size = sizeof(tsched_path)}};
    size_t nref = ref_paths(t, a, b, ref, 4096), n;
    uint64_t count;
    ck_assert_ok(tsched_topology_leaf_path_count(&count, t, a, b));
    ck_assert_uint_eq(count, nref);
    ck_assert_ok(tsched_topology_leaf_paths(got, 4096, &n, t, a, b));
    ck_assert_uint_eq(n, nref);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(got[i].nswitches, ref[i].n);
        for (uint32_t k = 0; k < ref[i].n; k++)
            ck_assert_uint_eq(got[i].switches[k], ref[i].sw[k]);
        for (uint32_t k = 0; k + 1 < ref[i].n; k++) {
            uint32_t tr = tsched_topology_find_trunk(t, ref[i].sw[k], ref[i].sw[k + 1]);
            uint32_t up = tsched_topology_switch_tier(t, ref[i].sw[k + 1]) > tsched_topology_switch_tier(t, ref[i].sw[k]);
            ck_assert_uint_eq(got[i].links[k], 2 * tr + (up ? 0 : 1));
        }
    }
}

static void check_all_leaf_pairs(const tsched_topology *t)
{
    uint32_t nl = tsched_topology_num_tier(t, 0);
    for (uint32_t i = 0; i < nl; i++)
        for (uint32_t j = 0; j < nl; j++)
            check_leaf_pair(t, tsched_topology_tier_switch(t, 0, i), tsched_topology_tier_switch(t, 0, j));
}

START_TEST(paths_generated_match_reference)
{
    tsched_topology *t = tu_gen_leaf_spine(6, 5, 2, 8, 0, 0, 0, 1.0);
    check_all_leaf_pairs(t);
    uint64_t c;
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf0"), tu_sw(t, "leaf5")));
    ck_assert_uint_eq(c, 5); /* leaf_spine: every spine */
    tsched_topology_free(t);

    t = tu_gen_clos3(3, 3, 4, 8, 2, 0, 0, 0, 0);
    check_all_leaf_pairs(t);
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf0"), tu_sw(t, "leaf2")));
    ck_assert_uint_eq(c, 4); /* same pod: every pod spine */
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf0"), tu_sw(t, "leaf8")));
    ck_assert_uint_eq(c, 8); /* across pods: every (spine, core) pair of the planes */
    tsched_topology_free(t);
}
END_TEST

START_TEST(paths_nic_level_and_order)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 4, 2, 0, 0, 0, 0);
    tsched_path p[16] = {{.size = sizeof(tsched_path)}};
    size_t n;
    /* node0 (leaf0, pod0) to node4 (leaf2, pod1): spine0 with core0/core2, spine1 with core1/core3 */
    ck_assert_ok(tsched_topology_paths(p, 16, &n, t, 0, 3, 4, 5));
    ck_assert_uint_eq(n, 4);
    const char *expect[4][5] = {{"leaf0", "spine0", "core0", "spine2", "leaf2"},
                                {"leaf0", "spine0", "core2", "spine2", "leaf2"},
                                {"leaf0", "spine1", "core1", "spine3", "leaf2"},
                                {"leaf0", "spine1", "core3", "spine3", "leaf2"}};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(p[i].nswitches, 5);
        for (int k = 0; k < 5; k++)
            ck_assert_str_eq(tsched_topology_switch_name(t, p[i].switches[k]), expect[i][k]);
    }
    /* A too-small buffer says how many are needed and fills what fits. */
    ck_assert_status(tsched_topology_paths(p, 3, &n, t, 0, 0, 4, 0), TSCHED_E_BUFFER);
    ck_assert_uint_eq(n, 4);
    ck_assert_status(tsched_topology_paths(NULL, 0, &n, t, 0, 0, 4, 0), TSCHED_E_BUFFER);
    ck_assert_uint_eq(n, 4);
    /* same leaf: one path, the leaf alone */
    ck_assert_ok(tsched_topology_paths(p, 16, &n, t, 0, 0, 1, 7));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(p[0].nswitches, 1);
    /* bad indices */
    uint64_t c;
    ck_assert_status(tsched_topology_path_count(&c, t, 0, 8, 1, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("NIC 8");
    ck_assert_status(tsched_topology_path_count(&c, t, 0, 0, 99, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "spine0"), tu_sw(t, "leaf0")), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

/* A random explicit 3-tier fabric: irregular wiring, so the path index cannot rely on
 * generator symmetry. */
static tsched_topology *random_fabric(tu_rng *r, int *nleaves_out)
{
    int pods = 1 + (int)tu_rng_below(r, 3), spp = 1 + (int)tu_rng_below(r, 4), cores = (int)tu_rng_below(r, 5),
        lpp = 1 + (int)tu_rng_below(r, 4);
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "random"));
    char a[32], b[32], pod[32];
    for (int p = 0; p < pods; p++) {
        snprintf(pod, sizeof pod, "p%d", p);
        for (int l = 0; l < lpp; l++) {
            snprintf(a, sizeof a, "L%d_%d", p, l);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 0, pod));
            snprintf(b, sizeof b, "n%d_%d", p, l);
            ck_assert_ok(tsched_topology_add_node(NULL, t, b, a, 8, 2, "X", 100));
        }
        for (int s = 0; s < spp; s++) {
            snprintf(a, sizeof a, "S%d_%d", p, s);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 1, pod));
        }
    }
    for (int c = 0; c < cores; c++) {
        snprintf(a, sizeof a, "C%d", c);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 2, NULL));
    }
    for (int p = 0; p < pods; p++) {
        for (int l = 0; l < lpp; l++)
            for (int s = 0; s < spp; s++)
                if (tu_rng_below(r, 3)) {
                    snprintf(a, sizeof a, "L%d_%d", p, l);
                    snprintf(b, sizeof b, "S%d_%d", p, s);
                    ck_assert_ok(tsched_topology_add_link(t, a, b, 100, 1 + (int)tu_rng_below(r, 3)));
                }
        for (int s = 0; s < spp; s++)
            for (int c = 0; c < cores; c++)
                if (tu_rng_below(r, 2)) {
                    snprintf(a, sizeof a, "S%d_%d", p, s);
                    snprintf(b, sizeof b, "C%d", c);
                    ck_assert_ok(tsched_topology_add_link(t, b, a, 400, 1));
                }
    }
    ck_assert_ok(tsched_topology_build(t));
    *nleaves_out = pods * lpp;
    return t;
}

START_TEST(paths_random_fabrics_with_failures)
{
    for (unsigned seed = 1; seed <= (tu_valgrind() ? 34u : 300u); seed++) { /* a ninth under valgrind */
        int nl;
        tu_rng r = {seed};
        tsched_topology *t = random_fabric(&r, &nl);
        check_all_leaf_pairs(t);
        /* fail a few random switches and trunks, check, then restore and check again */
        uint32_t ns = tsched_topology_num_switches(t), nt = tsched_topology_num_trunks(t);
        for (int k = 0; k < 3; k++) {
            if (tu_rng_below(&r, 2) && ns)
                ck_assert_ok(tsched_topology_set_switch_up(t, tu_rng_below(&r, ns), 0));
            else if (nt)
                ck_assert_ok(tsched_topology_set_trunk_up(t, tu_rng_below(&r, nt), 0));
            check_all_leaf_pairs(t);
        }
        for (uint32_t s = 0; s < ns; s++)
            ck_assert_ok(tsched_topology_set_switch_up(t, s, 1));
        for (uint32_t r = 0; r < nt; r++)
            ck_assert_ok(tsched_topology_set_trunk_up(t, r, 1));
        check_all_leaf_pairs(t);
        tsched_topology_free(t);
    }
}
END_TEST

START_TEST(failures_remove_paths)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 4, 8, 2, 0, 0, 0, 0);
    uint64_t c;
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 2, 0)); /* leaf0 -> leaf1, same pod */
    ck_assert_uint_eq(c, 4);
    ck_assert_ok(tsched_topology_set_up(t, "spine1", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 2, 0));
    ck_assert_uint_eq(c, 3);
    ck_assert_ok(tsched_topology_set_up(t, "leaf1~spine2", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 2, 0));
    ck_assert_uint_eq(c, 2);
    /* across pods: 4 planes x 2 cores = 8, minus plane 1 (spine1 down): 6, and core0 */
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 4, 0));
    ck_assert_uint_eq(c, 6);
    ck_assert_ok(tsched_topology_set_up(t, "core0", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 4, 0));
    ck_assert_uint_eq(c, 5);
    /* all spines of pod0 down except those whose leaf trunk failed: same-pod pairs now 0 */
    ck_assert_ok(tsched_topology_set_up(t, "spine0", 0));
    ck_assert_ok(tsched_topology_set_up(t, "spine3", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 2, 0));
    ck_assert_uint_eq(c, 0);
    /* down node / leaf: no path, and no longer free */
    ck_assert_ok(tsched_topology_set_up(t, "node5", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 4, 0, 5, 0));
    ck_assert_uint_eq(c, 0);
    ck_assert_int_eq(tsched_topology_node_is_free(t, 5), 0);
    ck_assert_ok(tsched_topology_set_up(t, "leaf3", 0));
    ck_assert_int_eq(tsched_topology_node_is_up(t, 6), 0);
    /* restore everything: original counts */
    const char *names[] = {"spine1", "leaf1~spine2", "core0", "spine0", "spine3", "node5", "leaf3"};
    for (size_t i = 0; i < 7; i++)
        ck_assert_ok(tsched_topology_set_up(t, names[i], 1));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 2, 0));
    ck_assert_uint_eq(c, 4);
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 4, 0));
    ck_assert_uint_eq(c, 8);
    ck_assert_int_eq(tsched_topology_node_is_free(t, 5), 1);
    /* unknown names */
    ck_assert_status(tsched_topology_set_up(t, "spine99", 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("spine99");
    ck_assert_status(tsched_topology_set_up(t, "leaf0~leaf1", 0), TSCHED_E_NOT_FOUND);
    ck_assert_status(tsched_topology_set_up(t, "leaf0~nope", 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("nope");
    tsched_topology_free(t);
}
END_TEST

START_TEST(rails_paths)
{
    /* Two rails: NIC k of every node on leaf "r<k>"; both rails under two spines. */
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "rails"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r0", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r1", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "s0", 1, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "s1", 1, NULL));
    const char *rails[2] = {"r0", "r1"};
    uint32_t n;
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "h%d", i);
        ck_assert_ok(tsched_topology_add_node(&n, t, name, "r0", 2, 2, "A100", 200));
        ck_assert_ok(tsched_topology_set_rails(t, n, rails, 2));
    }
    ck_assert_status(tsched_topology_set_rails(t, n, rails, 1), TSCHED_E_INVALID);
    ck_assert_ok(tsched_topology_add_link(t, "r0", "s0", 200, 2));
    ck_assert_ok(tsched_topology_add_link(t, "r1", "s0", 200, 2));
    ck_assert_ok(tsched_topology_add_link(t, "r1", "s1", 200, 2));
    ck_assert_ok(tsched_topology_build(t));
    ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, 1, 1), tu_sw(t, "r1"));
    ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, 1, 2), TSCHED_NONE);
    uint64_t c;
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 1, 0)); /* same rail */
    ck_assert_uint_eq(c, 1);
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 1, 1)); /* r0 -> r1 via s0 only */
    ck_assert_uint_eq(c, 1);
    ck_assert_ok(tsched_topology_set_up(t, "r1", 0));
    ck_assert_int_eq(tsched_topology_node_is_up(t, 0), 0); /* a NIC's leaf is down */
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0), 0);
    tsched_topology_free(t);
}
END_TEST

/* ---- free capacity ---- */

START_TEST(free_capacity_matches_brute_force)
{
    tsched_topology *t = tu_gen_clos3(3, 4, 2, 2, 5, 0, 0, 0, 0);
    uint32_t nn = tsched_topology_num_nodes(t);
    tu_rng r = {7};
    for (int round = 0; round < 200; round++) {
        uint32_t n = tu_rng_below(&r, nn);
        int op = (int)tu_rng_below(&r, 10);
        if (op < 7)
            ck_assert_ok(tsched_topology_set_free_gpus(t, n, tu_rng_below(&r, 9)));
        else if (op < 9)
            ck_assert_ok(tsched_topology_set_node_up(t, n, (int)tu_rng_below(&r, 2)));
        else
            ck_assert_ok(tsched_topology_set_switch_up(t, tsched_topology_tier_switch(t, 0, tu_rng_below(&r, 12)),
                                                       (int)tu_rng_below(&r, 2)));
        /* reference from per-node getters */
        uint32_t per_leaf[12] = {0}, per_pod[3] = {0}, all = 0;
        uint64_t free_gpus = 0;
        for (uint32_t v = 0; v < nn; v++) {
            int up = tsched_topology_node_is_up(t, v);
            if (up)
                free_gpus += tsched_topology_node_free_gpus(t, v);
            if (up && tsched_topology_node_free_gpus(t, v) == tsched_topology_node_gpus(t, v)) {
                ck_assert_int_eq(tsched_topology_node_is_free(t, v), 1);
                per_leaf[v / 5]++;
                per_pod[tsched_topology_node_pod(t, v)]++;
                all++;
            } else {
                ck_assert_int_eq(tsched_topology_node_is_free(t, v), 0);
            }
        }
        ck_assert_uint_eq(tsched_topology_num_free_gpus(t), free_gpus);
        ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0), all);
        for (uint32_t l = 0; l < 12; l++) {
            uint32_t leaf = tsched_topology_tier_switch(t, 0, l);
            ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, leaf), per_leaf[l]);
            uint32_t list[8];
            size_t cnt;
            ck_assert_ok(tsched_topology_free_nodes(list, 8, &cnt, t, TSCHED_LEVEL_LEAF, leaf));
            ck_assert_uint_eq(cnt, per_leaf[l]);
            for (size_t i = 0; i < cnt; i++) {
                ck_assert_int_eq(tsched_topology_node_is_free(t, list[i]), 1);
                ck_assert_uint_eq(tsched_topology_node_leaf(t, list[i]), leaf);
                if (i)
                    ck_assert_uint_lt(list[i - 1], list[i]);
            }
        }
        for (uint32_t p = 0; p < 3; p++)
            ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p), per_pod[p]);
    }
    uint32_t small[1];
    size_t cnt;
    ck_assert_status(tsched_topology_free_nodes(small, 0, &cnt, t, TSCHED_LEVEL_CLUSTER, 0),
                     cnt ? TSCHED_E_BUFFER : TSCHED_OK);
    ck_assert_status(tsched_topology_set_free_gpus(t, 0, 9), TSCHED_E_RANGE);
    ck_assert_errmsg_has("node0");
    ck_assert_status(tsched_topology_free_nodes(small, 1, &cnt, t, TSCHED_LEVEL_POD, 3), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_free_nodes(small, 1, &cnt, t, TSCHED_LEVEL_LEAF, tu_sw(t, "spine0")),
                     TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

/* ---- builder API ---- */

START_TEST(builder_states_and_errors)
{
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, NULL));
    ck_assert_str_eq(tsched_topology_name(t), "cluster");
    uint64_t c;
    ck_assert_status(tsched_topology_path_count(&c, t, 0, 0, 0, 0), TSCHED_E_STATE);
    ck_assert_status(tsched_topology_set_up(t, "x", 0), TSCHED_E_STATE);
    ck_assert_status(tsched_topology_add_switch(NULL, t, "a~b", 0, NULL), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_switch(NULL, t, "a#1", 0, NULL), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_switch(NULL, t, "", 0, NULL), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_switch(NULL, t, NULL, 0, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_add_switch(NULL, t, "s", TSCHED_MAX_TIERS, NULL), TSCHED_E_RANGE);
    ck_assert_errmsg_has("switches[0].tier");
    ck_assert_errmsg_has("\"s\"");
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "l0", 0, NULL));
    ck_assert_status(tsched_topology_add_switch(NULL, t, "l0", 0, NULL), TSCHED_E_DUPLICATE);
    ck_assert_status(tsched_topology_add_node(NULL, t, "l0", "l0", 8, 8, NULL, 100), TSCHED_E_DUPLICATE);
    ck_assert_status(tsched_topology_add_node(NULL, t, "n0", "l0", 0, 8, NULL, 100), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[0].gpus");
    ck_assert_status(tsched_topology_add_node(NULL, t, "n0", "l0", 8, 0, NULL, 100), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_node(NULL, t, "n0", "l0", 8, 8, NULL, -1), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_node(NULL, t, "n0", NULL, 8, 8, NULL, 100), TSCHED_E_INVALID); /* DESIGN 3 */
    ck_assert_status(tsched_topology_add_node(NULL, t, "n0", "", 8, 8, NULL, 100), TSCHED_E_NOT_FOUND);
    ck_assert_status(tsched_topology_add_link(t, "l0", "s0", 100, 0), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_link(t, "l0", "s0", INFINITY, 1), TSCHED_E_RANGE);
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n0", "nowhere", 8, 8, NULL, 100));
    /* a failed build leaves the handle unbuilt and unchanged */
    ck_assert_status(tsched_topology_build(t), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("nodes[0].leaf");
    ck_assert_errmsg_has("nowhere");
    ck_assert_status(tsched_topology_path_count(&c, t, 0, 0, 0, 0), TSCHED_E_STATE);
    tsched_topology_free(t);

    ck_assert_ok(tsched_topology_new(&t, "ok"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "l0", 0, NULL));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n0", "l0", 8, 8, "H100", 400));
    ck_assert_ok(tsched_topology_build(t));
    ck_assert_status(tsched_topology_build(t), TSCHED_E_STATE);
    ck_assert_status(tsched_topology_add_switch(NULL, t, "l1", 0, NULL), TSCHED_E_STATE);
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, 0), "H100");
    /* getters are safe on bad indices and NULL */
    ck_assert_ptr_null(tsched_topology_node_name(t, 5));
    ck_assert_uint_eq(tsched_topology_node_leaf(t, 5), TSCHED_NONE);
    ck_assert_int_eq(tsched_topology_switch_tier(t, 5), -1);
    ck_assert_uint_eq(tsched_topology_num_nodes(NULL), 0);
    ck_assert_uint_eq(tsched_topology_find_node(t, "zz"), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_find_node(t, NULL), TSCHED_NONE);
    ck_assert_ptr_null(tsched_topology_pod_leaves(t, 0, NULL));
    tsched_topology_free(t);
    tsched_topology_free(NULL);
}
END_TEST

START_TEST(summary_json)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 2, 0, 0, 0, 0);
    ck_assert_ok(tsched_topology_set_free_gpus(t, 0, 3));
    ck_assert_ok(tsched_topology_set_up(t, "node7", 0));
    ck_assert_ok(tsched_topology_set_up(t, "spine1", 0));
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0", 0));
    char *s;
    ck_assert_ok(tsched_topology_summary_json(&s, t));
    const char *want[] = {"\"format\": \"tsched.topology-summary.v1\"", "\"nodes\": 8", "\"gpus\": 64",
                          "\"free_gpus\": 51", "\"leaf\": 4", "\"spine\": 4", "\"core\": 2", "\"pods\": 2",
                          "\"trunks\": 12", "\"node7\"", "\"spine1\"", "\"leaf0~spine0\""};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(s, want[i]) != NULL, "summary lacks %s:\n%s", want[i], s);
    tsched_free(s);
    tsched_topology_free(t);
}
END_TEST

/* Read-only queries from several threads on one handle give the same answers. */
typedef struct thr_arg {
    const tsched_topology *t;
    uint64_t sum;
} thr_arg;

static void *count_all(void *p)
{
    thr_arg *a = p;
    uint32_t n = tsched_topology_num_nodes(a->t);
    a->sum = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j += 3) {
            uint64_t c = 0;
            if (tsched_topology_path_count(&c, a->t, i, i % 8, j, j % 8) != TSCHED_OK)
                return NULL;
            a->sum += c * (i + 1) + j;
        }
    return NULL;
}

START_TEST(concurrent_readers)
{
    tsched_topology *t = tu_gen_clos3(4, 4, 4, 8, 4, 0, 0, 0, 0);
    thr_arg a[3] = {{t, 0}, {t, 0}, {t, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, count_all, &a[i]), 0);
    count_all(&a[2]);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_uint_ne(a[2].sum, 0);
    ck_assert_uint_eq(a[0].sum, a[2].sum);
    ck_assert_uint_eq(a[1].sum, a[2].sum);
    tsched_topology_free(t);
}
END_TEST

/* ---- state changes: one at a time, lazily indexed, and in batches ---- */

/* The fabrics of the random state test, made the same way twice so that a fresh copy can
 * take the state reached by the changes. Kind 2 is a rail fabric: odd nodes put their two
 * NICs on two leaves. */
static tsched_topology *state_fabric(int kind)
{
    if (kind == 0)
        return tu_gen_leaf_spine(5, 4, 2, 4, 0, 0, 0, 1.0);
    if (kind == 1)
        return tu_gen_clos3(3, 3, 3, 6, 2, 0, 0, 0, 0);
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "rails"));
    const char *leaves[] = {"r0", "r1", "r2", "r3"}, *spines[] = {"s0", "s1", "s2"};
    for (int i = 0; i < 4; i++)
        ck_assert_ok(tsched_topology_add_switch(NULL, t, leaves[i], 0, NULL));
    for (int i = 0; i < 3; i++)
        ck_assert_ok(tsched_topology_add_switch(NULL, t, spines[i], 1, NULL));
    for (int i = 0; i < 10; i++) {
        char name[8];
        uint32_t n;
        snprintf(name, sizeof name, "h%d", i);
        ck_assert_ok(tsched_topology_add_node(&n, t, name, leaves[i % 4], 4, 2, NULL, 100));
        if (i % 2) {
            const char *rails[2] = {leaves[i % 4], leaves[(i + 1) % 4]};
            ck_assert_ok(tsched_topology_set_rails(t, n, rails, 2));
        }
    }
    for (int l = 0; l < 4; l++)
        for (int s = 0; s < 3; s++)
            if ((l + s) % 4 != 3)
                ck_assert_ok(tsched_topology_add_link(t, leaves[l], spines[s], 100, 1 + (uint32_t)(l + s) % 2));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

typedef struct want_state {
    uint8_t node[64], sw[64], tr[64];
    uint32_t free[64];
} want_state;

/* Everything a query can see equals the fresh fabric `f`, and the paths equal the
 * brute-force reference. */
static void state_compare(const tsched_topology *t, const tsched_topology *f)
{
    uint32_t nl = tsched_topology_num_tier(t, 0), nn = tsched_topology_num_nodes(t);
    static tsched_path pt[512] = {{.size = sizeof(tsched_path)}}, pf[512] = {{.size = sizeof(tsched_path)}};
    for (uint32_t i = 0; i < nl; i++)
        for (uint32_t j = 0; j < nl; j++) {
            uint32_t a = tsched_topology_tier_switch(t, 0, i), b = tsched_topology_tier_switch(t, 0, j);
            uint64_t ct, cf;
            size_t nt, nf;
            ck_assert_ok(tsched_topology_leaf_path_count(&ct, t, a, b));
            ck_assert_ok(tsched_topology_leaf_path_count(&cf, f, a, b));
            ck_assert_uint_eq(ct, cf);
            ck_assert_ok(tsched_topology_leaf_paths(pt, 512, &nt, t, a, b));
            ck_assert_ok(tsched_topology_leaf_paths(pf, 512, &nf, f, a, b));
            ck_assert_uint_eq(nt, nf);
            ck_assert_uint_eq(nt, ct);
            ck_assert(memcmp(pt, pf, nt * sizeof *pt) == 0);
            check_leaf_pair(t, a, b);
        }
    for (uint32_t u = 0; u < nn; u++) {
        ck_assert_int_eq(tsched_topology_node_is_up(t, u), tsched_topology_node_is_up(f, u));
        ck_assert_int_eq(tsched_topology_node_is_free(t, u), tsched_topology_node_is_free(f, u));
        for (uint32_t v = 0; v < nn; v++) {
            uint32_t un = tsched_topology_node_nics(t, u) - 1, vn = tsched_topology_node_nics(t, v) - 1;
            uint64_t ct, cf;
            ck_assert_ok(tsched_topology_path_count(&ct, t, u, un, v, vn));
            ck_assert_ok(tsched_topology_path_count(&cf, f, u, un, v, vn));
            ck_assert_uint_eq(ct, cf);
        }
    }
    /* free capacity: the fresh fabric and a count from the per-node getters */
    uint64_t gpus = 0;
    uint32_t all = 0;
    for (uint32_t u = 0; u < nn; u++) {
        if (tsched_topology_node_is_up(t, u))
            gpus += tsched_topology_node_free_gpus(t, u);
        all += (uint32_t)tsched_topology_node_is_free(t, u);
    }
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), gpus);
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), tsched_topology_num_free_gpus(f));
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0), all);
    ck_assert_uint_eq(tsched_topology_free_node_count(f, TSCHED_LEVEL_CLUSTER, 0), all);
    for (uint32_t s = 0; s < tsched_topology_num_switches(t); s++) {
        uint32_t want = 0;
        for (uint32_t u = 0; u < nn; u++)
            want += tsched_topology_node_leaf(t, u) == s && tsched_topology_node_is_free(t, u);
        ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, s), want);
        ck_assert_uint_eq(tsched_topology_free_node_count(f, TSCHED_LEVEL_LEAF, s), want);
    }
    for (uint32_t p = 0; p < tsched_topology_num_pods(t); p++) {
        uint32_t want = 0;
        for (uint32_t u = 0; u < nn; u++)
            want += tsched_topology_node_pod(t, u) == p && tsched_topology_node_is_free(t, u);
        ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p), want);
        ck_assert_uint_eq(tsched_topology_free_node_count(f, TSCHED_LEVEL_POD, p), want);
    }
}

/* A fresh copy of fabric `kind` put into state `w` (downs applied to an all-up fabric). */
static tsched_topology *state_fresh(int kind, const want_state *w)
{
    tsched_topology *f = state_fabric(kind);
    for (uint32_t n = 0; n < tsched_topology_num_nodes(f); n++) {
        ck_assert_ok(tsched_topology_set_free_gpus(f, n, w->free[n]));
        if (!w->node[n])
            ck_assert_ok(tsched_topology_set_node_up(f, n, 0));
    }
    for (uint32_t s = 0; s < tsched_topology_num_switches(f); s++)
        if (!w->sw[s])
            ck_assert_ok(tsched_topology_set_switch_up(f, s, 0));
    for (uint32_t r = 0; r < tsched_topology_num_trunks(f); r++)
        if (!w->tr[r])
            ck_assert_ok(tsched_topology_set_trunk_up(f, r, 0));
    return f;
}

/* Hundreds of random up/down changes (nodes, switches of every tier, trunks) and free GPU
 * changes, on a leaf_spine, a clos3 and a rail fabric: queried after every change (mode
 * 0), after bursts of changes one call each (mode 1), or after bursts applied as one batch
 * by name (mode 2); every answer equals a fresh fabric in the same state. */
START_TEST(state_random_changes_match_fresh_fabric)
{
    for (int kind = 0; kind < 3; kind++)
        for (int mode = 0; mode < 3; mode++) {
            tu_rng rng = {0x5eed0000u + (uint64_t)(kind * 3 + mode)};
            tsched_topology *t = state_fabric(kind);
            uint32_t nn = tsched_topology_num_nodes(t), ns = tsched_topology_num_switches(t),
                     nt = tsched_topology_num_trunks(t);
            ck_assert(nn <= 64 && ns <= 64 && nt <= 64);
            want_state w;
            memset(&w, 1, sizeof w);
            for (uint32_t n = 0; n < nn; n++)
                w.free[n] = tsched_topology_node_gpus(t, n);
            int steps = 0, nsteps = tu_valgrind() ? 100 : 300; /* a third under valgrind */
            while (steps < nsteps) {
                int burst = mode == 0 ? 1 : 1 + (int)tu_rng_below(&rng, 20);
                const char *names[20];
                char namebuf[20][64];
                int ups[20];
                for (int k = 0; k < burst; k++, steps++) {
                    uint32_t what = tu_rng_below(&rng, 10), up = (uint32_t)(tu_rng_below(&rng, 3) == 0);
                    uint64_t v0 = ts_topology_version(t);
                    int changed = 0;
                    if (what < 2) {
                        uint32_t n = tu_rng_below(&rng, nn), g = tu_rng_below(&rng, 5);
                        if (g > tsched_topology_node_gpus(t, n))
                            g = tsched_topology_node_gpus(t, n);
                        ck_assert_ok(tsched_topology_set_free_gpus(t, n, g));
                        w.free[n] = g;
                        snprintf(namebuf[k], sizeof namebuf[k], "%s", tsched_topology_node_name(t, n));
                        up = w.node[n]; /* in a batch: a no-op entry */
                    } else if (what < 4) {
                        uint32_t n = tu_rng_below(&rng, nn);
                        changed = w.node[n] != up;
                        w.node[n] = (uint8_t)up;
                        snprintf(namebuf[k], sizeof namebuf[k], "%s", tsched_topology_node_name(t, n));
                    } else if (what < 7) {
                        uint32_t s = tu_rng_below(&rng, ns);
                        changed = w.sw[s] != up;
                        w.sw[s] = (uint8_t)up;
                        snprintf(namebuf[k], sizeof namebuf[k], "%s", tsched_topology_switch_name(t, s));
                    } else {
                        uint32_t r = tu_rng_below(&rng, nt);
                        changed = w.tr[r] != up;
                        w.tr[r] = (uint8_t)up;
                        /* either order of the ends */
                        uint32_t a = tsched_topology_trunk_lower(t, r), b = tsched_topology_trunk_upper(t, r);
                        if (tu_rng_below(&rng, 2)) {
                            uint32_t x = a;
                            a = b;
                            b = x;
                        }
                        snprintf(namebuf[k], sizeof namebuf[k], "%s~%s", tsched_topology_switch_name(t, a),
                                 tsched_topology_switch_name(t, b));
                    }
                    names[k] = namebuf[k];
                    ups[k] = (int)up;
                    if (mode != 2) {
                        if (what >= 2)
                            ck_assert_ok(tsched_topology_set_up(t, names[k], ups[k]));
                        /* the version routing caches compare moves with every change */
                        if (changed)
                            ck_assert_uint_gt(ts_topology_version(t), v0);
                        else
                            ck_assert_uint_eq(ts_topology_version(t), v0);
                    }
                }
                if (mode == 2) {
                    uint64_t v0 = ts_topology_version(t);
                    ck_assert_ok(tsched_topology_set_up_batch(t, names, ups, (size_t)burst));
                    ck_assert_uint_ge(ts_topology_version(t), v0);
                }
                for (uint32_t n = 0; n < nn; n++)
                    ck_assert_int_eq(tsched_topology_node_free_gpus(t, n), w.free[n]);
                for (uint32_t s = 0; s < ns; s++)
                    ck_assert_int_eq(tsched_topology_switch_is_up(t, s), w.sw[s]);
                for (uint32_t r = 0; r < nt; r++)
                    ck_assert_int_eq(tsched_topology_trunk_is_up(t, r), w.tr[r]);
                tsched_topology *f = state_fresh(kind, &w);
                state_compare(t, f);
                tsched_topology_free(f);
            }
            tsched_topology_free(t);
        }
}
END_TEST

/* Many changes without a query rebuild the index once, at the next count; a handle whose
 * index is unusable (a rebuild out of memory) still counts right, by walking. */
START_TEST(state_index_lazy_and_fallback)
{
    tsched_topology *t = tu_gen_clos3(4, 4, 4, 8, 2, 0, 0, 0, 0);
    uint64_t r0 = t->ix->rebuilds, c;
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert_ok(tsched_topology_set_switch_up(t, tsched_topology_tier_switch(t, 1, i * 5 % 16), 0));
        ck_assert_ok(tsched_topology_set_trunk_up(t, i * 7, 0));
    }
    ck_assert_uint_eq(t->ix->rebuilds, r0);
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf0"), tu_sw(t, "leaf15")));
    ck_assert_uint_eq(t->ix->rebuilds, r0 + 1);
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf1"), tu_sw(t, "leaf9")));
    ck_assert_uint_eq(t->ix->rebuilds, r0 + 1);
    /* node changes and free GPUs do not touch the index */
    ck_assert_ok(tsched_topology_set_node_up(t, 3, 0));
    ck_assert_ok(tsched_topology_set_free_gpus(t, 4, 1));
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, tu_sw(t, "leaf0"), tu_sw(t, "leaf15")));
    ck_assert_uint_eq(t->ix->rebuilds, r0 + 1);
    /* a no-op change leaves index and version alone */
    uint64_t v = ts_topology_version(t);
    ck_assert_ok(tsched_topology_set_up(t, "spine1", 1));
    ck_assert_uint_eq(ts_topology_version(t), v);

    want_state w;
    memset(&w, 1, sizeof w);
    tsched_topology *f = tu_gen_clos3(4, 4, 4, 8, 2, 0, 0, 0, 0);
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert_ok(tsched_topology_set_switch_up(f, tsched_topology_tier_switch(f, 1, i * 5 % 16), 0));
        ck_assert_ok(tsched_topology_set_trunk_up(f, i * 7, 0));
    }
    ck_assert_ok(tsched_topology_set_node_up(f, 3, 0));
    ck_assert_ok(tsched_topology_set_free_gpus(f, 4, 1));
    ts_index_drop(t);
    ck_assert_int_eq(t->ix->usable, 0);
    state_compare(t, f);
    /* the next state change rebuilds a usable index */
    ck_assert_ok(tsched_topology_set_trunk_up(t, 40, 0));
    ck_assert_ok(tsched_topology_set_trunk_up(f, 40, 0));
    state_compare(t, f);
    ck_assert_int_eq(t->ix->usable, 1);
    tsched_topology_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(state_batch_all_or_nothing)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 2, 0, 0, 0, 0);
    uint64_t v = ts_topology_version(t), c0, c;
    uint32_t free0 = tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0);
    ck_assert_ok(tsched_topology_path_count(&c0, t, 0, 0, 4, 0));
    const char *names[] = {"spine0", "node1", "leaf0~spine1", "core1", "nope", "spine1~leaf1"};
    const int up[] = {0, 0, 0, 0, 0, 0};
    ck_assert_status(tsched_topology_set_up_batch(t, names, up, 6), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("names[4]");
    ck_assert_errmsg_has("\"nope\"");
    ck_assert_uint_eq(ts_topology_version(t), v);
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tu_sw(t, "spine0")), 1);
    ck_assert_int_eq(tsched_topology_node_is_up(t, 1), 1);
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0), free0);
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 4, 0));
    ck_assert_uint_eq(c, c0);
    const char *bad_link[] = {"spine0", "leaf0~core0"}, *member[] = {"leaf0~spine0#4000000000"}, *null_entry[] = {"spine0", NULL};
    ck_assert_status(tsched_topology_set_up_batch(t, bad_link, up, 2), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("names[1]");
    ck_assert_errmsg_has("leaf0~core0");
    ck_assert_status(tsched_topology_set_up_batch(t, member, up, 1), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("names[0]");
    ck_assert_status(tsched_topology_set_up_batch(t, null_entry, up, 2), TSCHED_E_INVALID);
    ck_assert_errmsg_has("names[1]");
    ck_assert_status(tsched_topology_set_up_batch(t, NULL, up, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("names");
    ck_assert_status(tsched_topology_set_up_batch(t, names, NULL, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("up");
    ck_assert_status(tsched_topology_set_up_batch(NULL, names, up, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topology");
    ck_assert_ok(tsched_topology_set_up_batch(t, NULL, NULL, 0));
    ck_assert_uint_eq(ts_topology_version(t), v);
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tu_sw(t, "spine0")), 1);
    /* the good part of the event, then with a repeated name: the last entry wins */
    ck_assert_ok(tsched_topology_set_up_batch(t, names, up, 4));
    ck_assert_uint_gt(ts_topology_version(t), v);
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tu_sw(t, "spine0")), 0);
    ck_assert_int_eq(tsched_topology_node_is_up(t, 1), 0);
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tu_trunk(t, "leaf0", "spine1")), 0);
    const char *again[] = {"core1", "spine0", "core1"};
    const int again_up[] = {1, 1, 0};
    ck_assert_ok(tsched_topology_set_up_batch(t, again, again_up, 3));
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tu_sw(t, "core1")), 0);
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tu_sw(t, "spine0")), 1);
    /* NULL and unbuilt handles on the single calls */
    ck_assert_status(tsched_topology_set_up(t, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("name");
    ck_assert_status(tsched_topology_set_up(NULL, "spine0", 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_switch_up(NULL, 0, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_trunk_up(NULL, 0, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_node_up(NULL, 0, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_free_gpus(NULL, 0, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_trunk_up(t, 999, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("999");
    tsched_topology *u;
    ck_assert_ok(tsched_topology_new(&u, NULL));
    ck_assert_status(tsched_topology_set_up_batch(u, names, up, 1), TSCHED_E_STATE);
    tsched_topology_free(u);
    tsched_topology_free(t);
}
END_TEST

/* The first queries after a state change come from two threads at once: one rebuilds the
 * index, the other waits for it; both see the fresh fabric's answers. */
typedef struct lazy_arg {
    const tsched_topology *t;
    uint64_t *counts;
} lazy_arg;

static void *lazy_counts(void *p)
{
    lazy_arg *a = p;
    uint32_t nl = tsched_topology_num_tier(a->t, 0);
    for (uint32_t i = 0; i < nl; i++)
        for (uint32_t j = 0; j < nl; j++)
            if (tsched_topology_leaf_path_count(&a->counts[i * nl + j], a->t, tsched_topology_tier_switch(a->t, 0, i),
                                                tsched_topology_tier_switch(a->t, 0, j)) != TSCHED_OK)
                a->counts[i * nl + j] = UINT64_MAX;
    return NULL;
}

START_TEST(state_concurrent_first_queries)
{
    tsched_topology *t = tu_gen_clos3(3, 4, 4, 8, 1, 0, 0, 0, 0), *f = tu_gen_clos3(3, 4, 4, 8, 1, 0, 0, 0, 0);
    uint32_t nl = tsched_topology_num_tier(t, 0), nt = tsched_topology_num_trunks(t);
    uint64_t *c[3];
    for (int k = 0; k < 3; k++)
        ck_assert_ptr_nonnull(c[k] = calloc((size_t)nl * nl, sizeof(uint64_t)));
    tu_rng rng = {99};
    for (int round = 0; round < 40; round++) {
        uint32_t r = tu_rng_below(&rng, nt);
        int up = (int)tu_rng_below(&rng, 2);
        ck_assert_ok(tsched_topology_set_trunk_up(t, r, up));
        ck_assert_ok(tsched_topology_set_trunk_up(f, r, up));
        lazy_arg a[2] = {{t, c[0]}, {t, c[1]}}, b = {f, c[2]};
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, lazy_counts, &a[0]), 0);
        lazy_counts(&a[1]);
        ck_assert_int_eq(pthread_join(th, NULL), 0);
        lazy_counts(&b);
        ck_assert(memcmp(c[0], c[2], (size_t)nl * nl * sizeof(uint64_t)) == 0);
        ck_assert(memcmp(c[1], c[2], (size_t)nl * nl * sizeof(uint64_t)) == 0);
    }
    for (int k = 0; k < 3; k++)
        free(c[k]);
    tsched_topology_free(f);
    tsched_topology_free(t);
}
END_TEST

/* ---- member links ---- */

/* leaf0, leaf1 under spine0, spine1; n0 on leaf0, n1 on leaf1. leaf0~spine0 comes from
 * three entries (one written spine0 first): members 100, 100 | 400 | 100 Gbit/s. */
static tsched_topology *member_fabric(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "m"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", TSCHED_TIER_LEAF, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf1", TSCHED_TIER_LEAF, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", TSCHED_TIER_SPINE, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine1", TSCHED_TIER_SPINE, NULL));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n0", "leaf0", 8, 1, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n1", "leaf1", 8, 1, NULL, 400));
    ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine1", 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine0", 100, 2));
    ck_assert_ok(tsched_topology_add_link(t, "spine0", "leaf0", 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine0", 100, 1));
    ck_assert_ok(tsched_topology_add_link(t, "leaf1", "spine0", 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, "spine1", "leaf1", 400, 1));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

static uint64_t n0_n1_paths(const tsched_topology *t)
{
    uint64_t c = 0;
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 1, 0));
    return c;
}

START_TEST(members_numbering_and_capacity)
{
    tsched_topology *t = member_fabric();
    uint32_t tr = tu_trunk(t, "leaf0", "spine0"), first = tsched_topology_trunk_first_member(t, tr);
    ck_assert_uint_eq(tsched_topology_num_members(t), 4 + 1 + 1 + 1);
    ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), 4);
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 700);
    /* dense ids: trunk by trunk, then k */
    uint32_t id = 0;
    for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++)
        for (uint32_t k = 0; k < tsched_topology_trunk_links(t, r); k++, id++) {
            ck_assert_uint_eq(tsched_topology_trunk_first_member(t, r) + k, id);
            ck_assert_uint_eq(tsched_topology_member_trunk(t, id), r);
            ck_assert_uint_eq(tsched_topology_member_index(t, id), k);
            ck_assert_int_eq(tsched_topology_member_is_up(t, id), 1);
        }
    ck_assert_uint_eq(id, tsched_topology_num_members(t));
    const double want[] = {100, 100, 400, 100};
    for (uint32_t k = 0; k < 4; k++)
        ck_assert(tsched_topology_member_gbps(t, first + k) == want[k]);
    /* both orders name the same member */
    ck_assert_uint_eq(tsched_topology_find_member(t, "leaf0~spine0#2"), first + 2);
    ck_assert_uint_eq(tsched_topology_find_member(t, "spine0~leaf0#2"), first + 2);
    ck_assert_uint_eq(tsched_topology_find_member(t, "leaf0~spine0"), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_find_member(t, "leaf0~spine0#4"), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_find_member(t, "leaf1~leaf0#0"), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_member_trunk(t, 7), TSCHED_NONE);
    ck_assert(tsched_topology_member_gbps(t, 7) == 0);

    /* capacity = sum of up members; a state change, not a shape change */
    uint64_t gen = tsched_topology_generation(t), v = ts_topology_version(t);
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    ck_assert_ok(tsched_topology_set_up(t, "spine0~leaf0#2", 0));
    ck_assert_int_eq(tsched_topology_member_is_up(t, first + 2), 0);
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 300);
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tr), 1);
    ck_assert_uint_eq(tsched_topology_generation(t), gen);
    ck_assert_uint_ne(ts_topology_version(t), v);
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    /* the same state again changes nothing */
    v = ts_topology_version(t);
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0#2", 0));
    ck_assert_uint_eq(ts_topology_version(t), v);
    /* all members down: the trunk is down and leaves the paths */
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0#0", 0));
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0#1", 0));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 100);
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    ck_assert_ok(tsched_topology_set_member_up(t, first + 3, 0));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 0);
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tr), 0);
    ck_assert_uint_eq(n0_n1_paths(t), 1);
    tsched_path p[2] = {{.size = sizeof(tsched_path)}};
    size_t n = 0;
    ck_assert_ok(tsched_topology_paths(p, 2, &n, t, 0, 0, 1, 0));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(p[0].switches[1], tu_sw(t, "spine1"));
    /* one member back: the trunk and its path return */
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0#2", 1));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 400);
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tr), 1);
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    /* the trunk's own state and its members' are separate */
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0", 0));
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tr), 0);
    ck_assert_ok(tsched_topology_set_up(t, "leaf0~spine0#0", 1));
    ck_assert_int_eq(tsched_topology_trunk_is_up(t, tr), 0);
    ck_assert_uint_eq(n0_n1_paths(t), 1);
    ck_assert_ok(tsched_topology_set_trunk_up(t, tr, 1));
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 500);
    /* all up again: the exact capacity of the start */
    for (uint32_t k = 0; k < 4; k++)
        ck_assert_ok(tsched_topology_set_member_up(t, first + k, 1));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 700);
    ck_assert_uint_eq(tsched_topology_generation(t), gen);
    tsched_topology_free(t);
}
END_TEST

START_TEST(members_bad_names)
{
    tsched_topology *t = member_fabric();
    uint64_t v = ts_topology_version(t);
    ck_assert_status(tsched_topology_set_up(t, "leaf0~spine0#4", 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("\"leaf0~spine0#4\"");
    ck_assert_errmsg_has("4 member links");
    ck_assert_status(tsched_topology_set_up(t, "spine1~leaf0#1", 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("leaf0~spine1 has 1 member link ");
    const char *bad[] = {"leaf0~spine0#", "leaf0~spine0#x", "leaf0~spine0#-1", "leaf0~spine0#+1",
                         "leaf0~spine0#99999999999", "leaf0~leaf1#0", "leaf0~spine9#0", "leaf9~spine0#0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_status(tsched_topology_set_up(t, bad[i], 0), TSCHED_E_NOT_FOUND);
        ck_assert_errmsg_has(bad[i]);
        ck_assert_uint_eq(tsched_topology_find_member(t, bad[i]), TSCHED_NONE);
    }
    ck_assert_status(tsched_topology_set_member_up(t, 7, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_member_up(NULL, 0, 0), TSCHED_E_INVALID);
    ck_assert_uint_eq(ts_topology_version(t), v);
    tsched_topology_free(t);
}
END_TEST

START_TEST(members_batch)
{
    tsched_topology *t = member_fabric();
    uint32_t tr = tu_trunk(t, "leaf0", "spine0");
    const char *names[] = {"leaf0~spine0#0", "spine0~leaf0#1", "leaf0~spine0#3", "leaf0~spine0#2", "n1"};
    const int up[] = {0, 0, 0, 0, 1};
    /* one bad member rejects the whole event */
    const char *bad[] = {"leaf0~spine0#0", "leaf0~spine0#9"};
    uint64_t v = ts_topology_version(t);
    ck_assert_status(tsched_topology_set_up_batch(t, bad, up, 2), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("names[1]");
    ck_assert_uint_eq(ts_topology_version(t), v);
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 700);
    ck_assert_ok(tsched_topology_set_up_batch(t, names, up, 5));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 0);
    ck_assert_uint_eq(n0_n1_paths(t), 1);
    const int back[] = {1, 1, 1, 1, 1};
    ck_assert_ok(tsched_topology_set_up_batch(t, names, back, 5));
    ck_assert(tsched_topology_trunk_gbps(t, tr) == 700);
    ck_assert_uint_eq(n0_n1_paths(t), 2);
    tsched_topology_free(t);
}
END_TEST

/* Member links change nothing while none is down: a trunk from several entries routes as
 * one entry of the same capacity, and a member down then up gives the same routes. */
static tsched_routes *route_all(const tsched_topology *t)
{
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    uint32_t n = tsched_topology_num_nodes(t);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_ok(tsched_flows_add(NULL, f, "job", i, 0, (i + 3) % n, 0, 1.0));
    tsched_routes *r = NULL;
    tsched_route_options o;
    tsched_route_options_init(&o);
    ck_assert_ok(tsched_route(&r, t, f, &o));
    tsched_flows_free(f);
    return r;
}

static void same_routes(const tsched_routes *a, const tsched_routes *b)
{
    ck_assert_uint_eq(tsched_routes_count(a), tsched_routes_count(b));
    for (uint32_t i = 0; i < tsched_routes_count(a); i++) {
        tsched_path pa = {.size = sizeof pa}, pb = {.size = sizeof pb};
        ck_assert_ok(tsched_routes_path(&pa, a, i));
        ck_assert_ok(tsched_routes_path(&pb, b, i));
        ck_assert_uint_eq(pa.nswitches, pb.nswitches);
        for (uint32_t k = 0; k < pa.nswitches; k++)
            ck_assert_uint_eq(pa.switches[k], pb.switches[k]);
        ck_assert(tsched_routes_rate(a, i) == tsched_routes_rate(b, i));
    }
}

START_TEST(members_unchanged_when_all_up)
{
    tsched_gen_params p;
    tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
    p.leaves = 4;
    p.spines = 2;
    p.nodes_per_leaf = 2;
    p.gpus_per_node = 8;
    p.uplinks = 2;
    p.oversubscription = 2;
    tsched_topology *g = NULL;
    ck_assert_ok(tsched_topology_generate(&g, &p));
    /* the same fabric with every trunk given as two entries of one link */
    tsched_topology *e = NULL;
    ck_assert_ok(tsched_topology_new(&e, "e"));
    for (uint32_t s = 0; s < tsched_topology_num_switches(g); s++)
        ck_assert_ok(tsched_topology_add_switch(NULL, e, tsched_topology_switch_name(g, s),
                                                tsched_topology_switch_tier(g, s), NULL));
    for (uint32_t n = 0; n < tsched_topology_num_nodes(g); n++)
        ck_assert_ok(tsched_topology_add_node(NULL, e, tsched_topology_node_name(g, n),
                                              tsched_topology_switch_name(g, tsched_topology_node_leaf(g, n)),
                                              tsched_topology_node_gpus(g, n), tsched_topology_node_nics(g, n), NULL,
                                              tsched_topology_node_nic_gbps(g, n)));
    for (uint32_t r = 0; r < tsched_topology_num_trunks(g); r++) {
        const char *a = tsched_topology_switch_name(g, tsched_topology_trunk_lower(g, r)),
                   *b = tsched_topology_switch_name(g, tsched_topology_trunk_upper(g, r));
        uint32_t links = tsched_topology_trunk_links(g, r);
        double per = tsched_topology_trunk_gbps(g, r) / links;
        for (uint32_t k = 0; k < links; k++)
            ck_assert_ok(tsched_topology_add_link(e, k % 2 ? b : a, k % 2 ? a : b, per, 1));
    }
    ck_assert_ok(tsched_topology_build(e));
    ck_assert_uint_eq(tsched_topology_num_members(e), tsched_topology_num_members(g));
    for (uint32_t r = 0; r < tsched_topology_num_trunks(g); r++)
        ck_assert(tsched_topology_trunk_gbps(e, r) == tsched_topology_trunk_gbps(g, r));
    tsched_routes *rg = route_all(g), *re = route_all(e);
    same_routes(rg, re);
    /* a member down and up again: the same routes as before */
    ck_assert_ok(tsched_topology_set_member_up(g, 1, 0));
    tsched_routes *rd = route_all(g);
    ck_assert_ok(tsched_topology_set_member_up(g, 1, 1));
    tsched_routes *ru = route_all(g);
    same_routes(rg, ru);
    tsched_routes_free(rg);
    tsched_routes_free(re);
    tsched_routes_free(rd);
    tsched_routes_free(ru);
    tsched_topology_free(g);
    tsched_topology_free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, leaf_spine_counts_names_wiring);
    tcase_add_test(tc, leaf_spine_oversubscribed);
    tcase_add_test(tc, clos3_counts_names_wiring);
    tcase_add_test(tc, generator_rejects_bad_params);
    tcase_add_test(tc, paths_generated_match_reference);
    tcase_add_test(tc, paths_nic_level_and_order);
    tcase_add_test(tc, paths_random_fabrics_with_failures);
    tcase_add_test(tc, failures_remove_paths);
    tcase_add_test(tc, rails_paths);
    tcase_add_test(tc, free_capacity_matches_brute_force);
    tcase_add_test(tc, builder_states_and_errors);
    tcase_add_test(tc, summary_json);
    tcase_add_test(tc, concurrent_readers);
    tcase_add_test(tc, state_random_changes_match_fresh_fabric);
    tcase_add_test(tc, state_index_lazy_and_fallback);
    tcase_add_test(tc, state_batch_all_or_nothing);
    tcase_add_test(tc, state_concurrent_first_queries);
    tcase_add_test(tc, members_numbering_and_capacity);
    tcase_add_test(tc, members_bad_names);
    tcase_add_test(tc, members_batch);
    tcase_add_test(tc, members_unchanged_when_all_up);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, topology_json_tcase());
    suite_add_tcase(s, topology_slurm_tcase());
    suite_add_tcase(s, topology_real_tcase());
    suite_add_tcase(s, topology_deep_tcase());
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
