/* The Alibaba Lingjun production Clos (tests/data/lingjun-847.json, made from
 * ../shared/data/alibaba-lingjun-dataset-2023/topo.csv by tests/convert_lingjun.py): a
 * real, uneven three-tier fabric. The expectations come from two independent places: the
 * numbers published with the data set (its README) and the CSV itself, parsed here, so a
 * converter bug and a loader bug cannot cancel out. The check against the CSV itself, which
 * only the project's own checkout has, is test_topology_lingjun_csv.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

TCase *topology_real_tcase(void);

#define LINGJUN_JSON TSCHED_TEST_DATA "/lingjun-847.json"
static tsched_topology *load_fixture(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, LINGJUN_JSON));
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Nodes of one pod, counted through its leaves. */
static uint32_t pod_node_count(const tsched_topology *t, uint32_t pod)
{
    uint32_t nleaves = 0, total = 0;
    const uint32_t *leaves = tsched_topology_pod_leaves(t, pod, &nleaves);
    for (uint32_t i = 0; i < nleaves; i++) {
        uint32_t c = 0;
        ck_assert_ptr_nonnull(tsched_topology_leaf_nodes(t, leaves[i], &c));
        total += c;
    }
    return total;
}

/* The k-th node on `leaf`, failing the test if the leaf has fewer. */
static uint32_t leaf_node(const tsched_topology *t, uint32_t leaf, uint32_t k)
{
    uint32_t c = 0;
    const uint32_t *nodes = tsched_topology_leaf_nodes(t, leaf, &c);
    ck_assert_msg(nodes && k < c, "leaf %s has %u nodes, wanted #%u", tsched_topology_switch_name(t, leaf), c, k);
    return nodes[k];
}

static uint32_t first_leaf_of_pod(const tsched_topology *t, const char *pod, uint32_t k)
{
    uint32_t p = tsched_topology_find_pod(t, pod), c = 0;
    ck_assert_msg(p != TSCHED_NONE, "no pod %s", pod);
    const uint32_t *leaves = tsched_topology_pod_leaves(t, p, &c);
    ck_assert_msg(leaves && k < c, "pod %s has %u leaves, wanted #%u", pod, c, k);
    return leaves[k];
}

static uint64_t count_paths(const tsched_topology *t, uint32_t a, uint32_t anic, uint32_t b, uint32_t bnic)
{
    uint64_t n = 99;
    ck_assert_ok(tsched_topology_path_count(&n, t, a, anic, b, bnic));
    return n;
}

/* The numbers published with the data set (data/README.md, SOURCE.md). */
START_TEST(published_shape)
{
    tsched_topology *t = load_fixture();
    ck_assert_str_eq(tsched_topology_name(t), "alibaba-lingjun-2023");
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 847);
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_LEAF), 119);
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_SPINE), 3);
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_CORE), 1);
    ck_assert_uint_eq(tsched_topology_num_switches(t), 123);
    ck_assert_uint_eq(tsched_topology_num_pods(t), 3);
    /* Trunks: one per leaf up to its PSW, one per PSW up to G6. */
    ck_assert_uint_eq(tsched_topology_num_trunks(t), 122);
    ck_assert_uint_eq(tsched_topology_num_gpus(t), 847 * 8);
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), 847 * 8);

    /* Pod sizes as a multiset: 179, 306, 362, both per node and through the leaves. */
    uint32_t want[3] = {179, 306, 362}, seen = 0;
    for (uint32_t p = 0; p < 3; p++) {
        uint32_t by_node = 0;
        for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++)
            by_node += tsched_topology_node_pod(t, n) == p;
        ck_assert_uint_eq(by_node, pod_node_count(t, p));
        ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p), by_node);
        int hit = 0;
        for (int k = 0; k < 3; k++)
            if (want[k] == by_node && !(seen & (1u << k))) {
                seen |= 1u << k;
                hit = 1;
                break;
            }
        ck_assert_msg(hit, "pod %s has %u nodes, not one of 179, 306, 362", tsched_topology_pod_name(t, p), by_node);
    }

    /* Leaves hold 2..8 nodes; 68 are full. */
    uint32_t full = 0;
    for (uint32_t i = 0; i < 119; i++) {
        uint32_t leaf = tsched_topology_tier_switch(t, TSCHED_TIER_LEAF, i), c = 0;
        tsched_topology_leaf_nodes(t, leaf, &c);
        ck_assert_msg(c >= 2 && c <= 8, "leaf %s holds %u nodes", tsched_topology_switch_name(t, leaf), c);
        full += c == 8;
    }
    ck_assert_uint_eq(full, 68);

    /* The one core and the PSWs are where the converter put them. */
    uint32_t g6 = tsched_topology_find_switch(t, "G6");
    ck_assert_uint_ne(g6, TSCHED_NONE);
    ck_assert_int_eq(tsched_topology_switch_tier(t, g6), TSCHED_TIER_CORE);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, g6), TSCHED_NONE);
    const char *psw[3] = {"P8", "P10", "P12"};
    for (int k = 0; k < 3; k++) {
        uint32_t s = tsched_topology_find_switch(t, psw[k]);
        ck_assert_msg(s != TSCHED_NONE, "no switch %s", psw[k]);
        ck_assert_int_eq(tsched_topology_switch_tier(t, s), TSCHED_TIER_SPINE);
        ck_assert_uint_eq(tsched_topology_switch_pod(t, s), tsched_topology_find_pod(t, psw[k]));
    }
    tsched_topology_free(t);
}
END_TEST

/* One PSW per pod and one core: every pair of hosts has exactly one up-down path. */
START_TEST(paths_single_spine)
{
    tsched_topology *t = load_fixture();
    tsched_path paths[4] = {{.size = sizeof(tsched_path)}};
    size_t n = 0;

    /* Same ToR: the ToR alone, whichever NICs. */
    uint32_t l0 = first_leaf_of_pod(t, "P8", 0);
    uint32_t a = leaf_node(t, l0, 0), b = leaf_node(t, l0, 1);
    ck_assert_uint_eq(count_paths(t, a, 0, b, 0), 1);
    ck_assert_uint_eq(count_paths(t, a, 3, b, 7), 1);
    ck_assert_ok(tsched_topology_paths(paths, 4, &n, t, a, 2, b, 5));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(paths[0].nswitches, 1);
    ck_assert_uint_eq(paths[0].switches[0], l0);

    /* Two ToRs under one PSW: one path, through that PSW. */
    uint32_t l1 = first_leaf_of_pod(t, "P8", 1), p8 = tsched_topology_find_switch(t, "P8");
    uint32_t c = leaf_node(t, l1, 0);
    ck_assert_uint_eq(count_paths(t, a, 0, c, 0), 1);
    ck_assert_ok(tsched_topology_paths(paths, 4, &n, t, a, 1, c, 6));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(paths[0].nswitches, 3);
    ck_assert_uint_eq(paths[0].switches[0], l0);
    ck_assert_uint_eq(paths[0].switches[1], p8);
    ck_assert_uint_eq(paths[0].switches[2], l1);
    ck_assert_uint_eq(paths[0].links[0], 2 * tsched_topology_find_trunk(t, l0, p8));
    ck_assert_uint_eq(paths[0].links[1], 2 * tsched_topology_find_trunk(t, l1, p8) + 1);

    /* ToRs in different pods: one path, P8 -> G6 -> P12. */
    uint32_t l2 = first_leaf_of_pod(t, "P12", 0), p12 = tsched_topology_find_switch(t, "P12");
    uint32_t g6 = tsched_topology_find_switch(t, "G6");
    uint32_t d = leaf_node(t, l2, 0);
    ck_assert_uint_eq(count_paths(t, a, 0, d, 0), 1);
    ck_assert_ok(tsched_topology_paths(paths, 4, &n, t, a, 0, d, 4));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(paths[0].nswitches, 5);
    uint32_t want[5] = {l0, p8, g6, p12, l2};
    for (int k = 0; k < 5; k++)
        ck_assert_uint_eq(paths[0].switches[k], want[k]);
    uint64_t lc = 0;
    ck_assert_ok(tsched_topology_leaf_path_count(&lc, t, l0, l2));
    ck_assert_uint_eq(lc, 1);

    /* Every host pair, sampled by leaf: exactly one path. */
    uint32_t nleaves = tsched_topology_num_tier(t, TSCHED_TIER_LEAF);
    for (uint32_t i = 0; i < nleaves; i++)
        for (uint32_t j = 0; j < nleaves; j++) {
            ck_assert_ok(tsched_topology_leaf_path_count(&lc, t, tsched_topology_tier_switch(t, 0, i),
                                                         tsched_topology_tier_switch(t, 0, j)));
            ck_assert_msg(lc == 1, "leaves %u and %u: %llu paths", i, j, (unsigned long long)lc);
        }
    tsched_topology_free(t);
}
END_TEST

/* Losing a pod's only PSW cuts that pod off from every other leaf, its own included;
 * hosts sharing a ToR still reach each other, and the other pods are untouched. */
START_TEST(paths_psw_down)
{
    tsched_topology *t = load_fixture();
    uint32_t l0 = first_leaf_of_pod(t, "P8", 0), l1 = first_leaf_of_pod(t, "P8", 1);
    uint32_t a = leaf_node(t, l0, 0), b = leaf_node(t, l0, 1), c = leaf_node(t, l1, 0);
    uint32_t d = leaf_node(t, first_leaf_of_pod(t, "P10", 0), 0);
    uint32_t e = leaf_node(t, first_leaf_of_pod(t, "P12", 0), 0);

    ck_assert_ok(tsched_topology_set_up(t, "P8", 0));
    ck_assert_int_eq(tsched_topology_switch_is_up(t, tsched_topology_find_switch(t, "P8")), 0);
    ck_assert_uint_eq(count_paths(t, a, 0, c, 0), 0);
    ck_assert_uint_eq(count_paths(t, a, 0, d, 0), 0);
    ck_assert_uint_eq(count_paths(t, d, 0, a, 0), 0);
    ck_assert_uint_eq(count_paths(t, c, 5, e, 2), 0);
    ck_assert_uint_eq(count_paths(t, a, 0, b, 0), 1);
    ck_assert_uint_eq(count_paths(t, d, 0, e, 0), 1);
    tsched_path paths[2] = {{.size = sizeof(tsched_path)}};
    size_t n = 7;
    ck_assert_ok(tsched_topology_paths(paths, 2, &n, t, a, 0, e, 0));
    ck_assert_uint_eq(n, 0);

    /* Every P8 host against every host of another leaf: no path. */
    uint32_t p8 = tsched_topology_find_pod(t, "P8");
    for (uint32_t x = 0; x < tsched_topology_num_nodes(t); x++) {
        if (tsched_topology_node_pod(t, x) != p8)
            continue;
        for (uint32_t y = 0; y < tsched_topology_num_nodes(t); y += 7)
            if (tsched_topology_node_leaf(t, y) != tsched_topology_node_leaf(t, x))
                ck_assert_uint_eq(count_paths(t, x, 0, y, 0), 0);
    }

    /* Back up: the single paths return. */
    ck_assert_ok(tsched_topology_set_up(t, "P8", 1));
    ck_assert_uint_eq(count_paths(t, a, 0, c, 0), 1);
    ck_assert_uint_eq(count_paths(t, a, 0, d, 0), 1);
    tsched_topology_free(t);
}
END_TEST

/* Saving and loading gives the same model and state back: counts, names per index,
 * free GPUs, what is down. */
START_TEST(round_trip)
{
    tsched_topology *t = load_fixture();
    /* A state worth keeping: partly used nodes, a down node, a down trunk. */
    ck_assert_ok(tsched_topology_set_free_gpus(t, 0, 3));
    ck_assert_ok(tsched_topology_set_free_gpus(t, 100, 0));
    ck_assert_ok(tsched_topology_set_node_up(t, 200, 0));
    char trunk[256];
    uint32_t leaf = first_leaf_of_pod(t, "P10", 2);
    snprintf(trunk, sizeof trunk, "%s~P10", tsched_topology_switch_name(t, leaf));
    ck_assert_ok(tsched_topology_set_up(t, trunk, 0));

    char *json = NULL;
    ck_assert_ok(tsched_topology_to_json(&json, t));
    ck_assert_ptr_nonnull(json);
    tsched_topology *u = NULL;
    ck_assert_ok(tsched_topology_load_string(&u, json, strlen(json)));
    tsched_free(json);

    ck_assert_str_eq(tsched_topology_name(u), tsched_topology_name(t));
    ck_assert_uint_eq(tsched_topology_num_nodes(u), tsched_topology_num_nodes(t));
    ck_assert_uint_eq(tsched_topology_num_switches(u), tsched_topology_num_switches(t));
    for (int tier = 0; tier < TSCHED_TIERS; tier++)
        ck_assert_uint_eq(tsched_topology_num_tier(u, tier), tsched_topology_num_tier(t, tier));
    ck_assert_uint_eq(tsched_topology_num_pods(u), tsched_topology_num_pods(t));
    ck_assert_uint_eq(tsched_topology_num_trunks(u), tsched_topology_num_trunks(t));
    ck_assert_uint_eq(tsched_topology_num_gpus(u), tsched_topology_num_gpus(t));
    ck_assert_uint_eq(tsched_topology_num_free_gpus(u), tsched_topology_num_free_gpus(t));
    ck_assert_uint_eq(tsched_topology_num_free_gpus(u), 847 * 8 - 5 - 8 - 8);

    /* Nodes are matched by name: the saver may reorder, the model may not change. */
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++) {
        const char *name = tsched_topology_node_name(t, n);
        uint32_t m = tsched_topology_find_node(u, name);
        ck_assert_msg(m != TSCHED_NONE, "node %s lost in the round trip", name);
        ck_assert_str_eq(tsched_topology_switch_name(u, tsched_topology_node_leaf(u, m)),
                         tsched_topology_switch_name(t, tsched_topology_node_leaf(t, n)));
        ck_assert_uint_eq(tsched_topology_node_free_gpus(u, m), tsched_topology_node_free_gpus(t, n));
        ck_assert_int_eq(tsched_topology_node_is_up(u, m), tsched_topology_node_is_up(t, n));
        ck_assert_int_eq(tsched_topology_node_is_free(u, m), tsched_topology_node_is_free(t, n));
    }
    ck_assert_uint_eq(tsched_topology_free_node_count(u, TSCHED_LEVEL_CLUSTER, 0),
                      tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0));
    ck_assert_uint_eq(tsched_topology_free_node_count(u, TSCHED_LEVEL_CLUSTER, 0), 847 - 3);
    for (uint32_t p = 0; p < tsched_topology_num_pods(t); p++) {
        uint32_t q = tsched_topology_find_pod(u, tsched_topology_pod_name(t, p));
        ck_assert_uint_ne(q, TSCHED_NONE);
        ck_assert_uint_eq(tsched_topology_free_node_count(u, TSCHED_LEVEL_POD, q),
                          tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p));
        ck_assert_uint_eq(pod_node_count(u, q), pod_node_count(t, p));
    }
    for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++) {
        uint32_t lo = tsched_topology_find_switch(u, tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, r)));
        uint32_t hi = tsched_topology_find_switch(u, tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, r)));
        uint32_t s = tsched_topology_find_trunk(u, lo, hi);
        ck_assert_uint_ne(s, TSCHED_NONE);
        ck_assert(tsched_topology_trunk_gbps(u, s) == tsched_topology_trunk_gbps(t, r));
        ck_assert_uint_eq(tsched_topology_trunk_links(u, s), tsched_topology_trunk_links(t, r));
        ck_assert_int_eq(tsched_topology_trunk_is_up(u, s), tsched_topology_trunk_is_up(t, r));
    }
    /* The down trunk still cuts its leaf off after the round trip. */
    uint32_t cut = leaf_node(u, tsched_topology_find_switch(u, tsched_topology_switch_name(t, leaf)), 0);
    uint32_t other = leaf_node(u, first_leaf_of_pod(u, "P10", 0), 0);
    ck_assert_uint_eq(count_paths(u, cut, 0, other, 0), 0);

    tsched_topology_free(u);
    tsched_topology_free(t);
}
END_TEST

TCase *topology_real_tcase(void)
{
    TCase *tc = tcase_create("real");
    /* The all-pairs loops are quick natively but slow under valgrind. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, published_shape);
    tcase_add_test(tc, paths_single_spine);
    tcase_add_test(tc, paths_psw_down);
    tcase_add_test(tc, round_trip);
    return tc;
}
