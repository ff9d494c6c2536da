/* tsched_vclos_source_route (doc/vclos.md §5): vClos source routing in one place, used by
 * the vclos handle's free mode and the simulator's routing `source`. Checked on seeded
 * random two-tier fabrics (missing trunks, uneven member counts, uneven NIC counts, rail
 * NICs) against a brute force that reads the fabric another way (every node, every trunk,
 * every member scanned), against the handle's free-mode routes with members down, and on
 * bad input. */
#include <stdio.h>

#include "common/rng.h"
#include "test_util.h"

/* ---- brute force ---------------------------------------------------------------------- */

/* The trunk between leaf a and spine m by a scan of all trunks, or TSCHED_NONE. */
static uint32_t bf_trunk(const tsched_topology *t, uint32_t a, uint32_t m)
{
    for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++)
        if (tsched_topology_trunk_lower(t, r) == a && tsched_topology_trunk_upper(t, r) == m)
            return r;
    return TSCHED_NONE;
}

/* The i-th member (ascending id) of trunk r, by a scan of all members. */
static uint32_t bf_member(const tsched_topology *t, uint32_t r, uint64_t i)
{
    uint32_t count = 0;
    for (uint32_t x = 0; x < tsched_topology_num_members(t); x++)
        count += tsched_topology_member_trunk(t, x) == r;
    ck_assert_uint_gt(count, 0);
    i %= count;
    for (uint32_t x = 0; x < tsched_topology_num_members(t); x++)
        if (tsched_topology_member_trunk(t, x) == r && i-- == 0)
            return x;
    ck_abort_msg("member not found");
    return TSCHED_NONE;
}

/* The expected answer: status, up member, down member. */
static tsched_status bf_route(uint32_t *up, uint32_t *down, const tsched_topology *t, uint32_t src, uint32_t src_nic,
                              uint32_t dst, uint32_t dst_nic)
{
    *up = *down = TSCHED_NONE;
    uint32_t a = tsched_topology_node_nic_leaf(t, src, src_nic), b = tsched_topology_node_nic_leaf(t, dst, dst_nic);
    if (a == b)
        return TSCHED_OK;
    /* k: the NICs of leaf a's nodes (a node belongs to the leaf of its NIC 0) of lower index,
     * all of them when the source node belongs to another leaf (a rail NIC), plus src_nic */
    int listed = tsched_topology_node_leaf(t, src) == a;
    uint64_t k = src_nic;
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++)
        if (tsched_topology_node_leaf(t, n) == a && (!listed || n < src))
            k += tsched_topology_node_nics(t, n);
    uint32_t spines[64], S = 0;
    for (uint32_t sw = 0; sw < tsched_topology_num_switches(t); sw++)
        if (tsched_topology_switch_tier(t, sw) == 1 && bf_trunk(t, a, sw) != TSCHED_NONE)
            spines[S++] = sw;
    if (!S)
        return TSCHED_E_NO_PATH;
    uint32_t m = spines[k % S], tu = bf_trunk(t, a, m), td = bf_trunk(t, b, m);
    if (td == TSCHED_NONE)
        return TSCHED_E_NO_PATH;
    *up = bf_member(t, tu, k / S);
    *down = bf_member(t, td, k / S);
    return TSCHED_OK;
}

/* ---- random fabrics -------------------------------------------------------------------- */

/* L leaves, S spines; each leaf-spine trunk present with probability 3/4 and of 1-3 members;
 * 1-3 nodes per leaf of 1-3 NICs, added in a shuffled order (node index is not leaf order);
 * with `rails`, some nodes put NICs on other leaves. */
static tsched_topology *random_fabric(ts_rng *rng, int rails)
{
    uint32_t L = 1 + (uint32_t)ts_rng_below(rng, 5), S = 1 + (uint32_t)ts_rng_below(rng, 4);
    tsched_topology *t;
    char name[32], other[32];
    ck_assert_ok(tsched_topology_new(&t, "sr"));
    for (uint32_t i = 0; i < L; i++) {
        snprintf(name, sizeof name, "leaf%u", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, name, 0, NULL));
    }
    for (uint32_t i = 0; i < S; i++) {
        snprintf(name, sizeof name, "spine%u", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, name, 1, NULL));
    }
    for (uint32_t i = 0; i < L; i++)
        for (uint32_t m = 0; m < S; m++) {
            if (ts_rng_below(rng, 4) == 0)
                continue;
            snprintf(name, sizeof name, "leaf%u", i);
            snprintf(other, sizeof other, "spine%u", m);
            ck_assert_ok(tsched_topology_add_link(t, name, other, 100, 1 + (uint32_t)ts_rng_below(rng, 3)));
        }
    uint32_t leaf_of[64], n = 0;
    for (uint32_t i = 0; i < L; i++)
        for (uint32_t c = 1 + (uint32_t)ts_rng_below(rng, 3); c > 0; c--)
            leaf_of[n++] = i;
    ts_rng_shuffle_u32(rng, leaf_of, n);
    for (uint32_t x = 0; x < n; x++) {
        uint32_t nics = 1 + (uint32_t)ts_rng_below(rng, 3), idx;
        snprintf(name, sizeof name, "node%u", x);
        snprintf(other, sizeof other, "leaf%u", leaf_of[x]);
        ck_assert_ok(tsched_topology_add_node(&idx, t, name, other, 8, nics, NULL, 100));
        if (rails && nics > 1 && ts_rng_below(rng, 2)) {
            char names[3][32];
            const char *lv[3];
            for (uint32_t e = 0; e < nics; e++) {
                snprintf(names[e], sizeof names[e], "leaf%u", e == 0 ? leaf_of[x] : (uint32_t)ts_rng_below(rng, L));
                lv[e] = names[e];
            }
            ck_assert_ok(tsched_topology_set_rails(t, idx, lv, nics));
        }
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

START_TEST(sr_matches_brute_force)
{
    ts_rng rng;
    ts_rng_seed(&rng, 22);
    unsigned checked = 0, same_leaf = 0, no_path = 0;
    for (unsigned it = 0; it < tu_n(300); it++) {
        tsched_topology *t = random_fabric(&rng, (int)(it % 3 == 2));
        uint32_t nn = tsched_topology_num_nodes(t);
        for (uint32_t src = 0; src < nn; src++)
            for (uint32_t dst = 0; dst < nn; dst++)
                for (uint32_t e = 0; e < tsched_topology_node_nics(t, src); e++)
                    for (uint32_t f = 0; f < tsched_topology_node_nics(t, dst); f++) {
                        uint32_t up = 7, down = 7, wu, wd;
                        tsched_status want = bf_route(&wu, &wd, t, src, e, dst, f);
                        tsched_status got = tsched_vclos_source_route(&up, &down, t, src, e, dst, f);
                        ck_assert_msg(got == want, "fabric %u, %u.%u -> %u.%u: %s, expected %s (%s)", it, src, e, dst,
                                      f, tsched_status_str(got), tsched_status_str(want), tsched_last_error());
                        ck_assert_uint_eq(up, wu);
                        ck_assert_uint_eq(down, wd);
                        checked++;
                        same_leaf += got == TSCHED_OK && up == TSCHED_NONE;
                        no_path += got == TSCHED_E_NO_PATH;
                    }
        tsched_topology_free(t);
    }
    /* the random fabrics reach every kind of answer */
    ck_assert_uint_gt(same_leaf, 10);
    ck_assert_uint_gt(no_path, 10);
    ck_assert_uint_gt(checked - same_leaf - no_path, 100);
}
END_TEST

/* Free mode with routing `source`: each cross-leaf flow takes the source route's members,
 * or none when one of them is down in the handle's state. */
START_TEST(sr_is_the_free_mode_route)
{
    ts_rng rng;
    ts_rng_seed(&rng, 5);
    unsigned allocated = 0;
    for (unsigned it = 0; it < tu_n(20); it++) {
        uint32_t L = 2 + (uint32_t)ts_rng_below(&rng, 3), S = 1 + (uint32_t)ts_rng_below(&rng, 3);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 2), P = 2 + (uint32_t)ts_rng_below(&rng, 2);
        uint32_t E = 1 + (uint32_t)ts_rng_below(&rng, 2);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, 8, E);
        tsched_vclos *v;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
        ck_assert_ok(tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_SOURCE, 1));
        tsched_vclos_outcome oc;
        /* the most leaves with a stage-2 shape on this fabric */
        oc = TSCHED_VCLOS_WAIT_NETWORK;
        for (uint32_t l = L; l >= 2 && oc != TSCHED_VCLOS_ALLOCATED; l--)
            ck_assert_ok(tsched_vclos_allocate(v, "big", 8 * P * l, &oc));
        if (oc != TSCHED_VCLOS_ALLOCATED) {
            tsched_vclos_free(v);
            tsched_topology_free(t);
            continue;
        }
        allocated++;
        /* a random member down (the handle's state only: the topology keeps it up) */
        uint32_t downm = (uint32_t)ts_rng_below(&rng, tsched_topology_num_members(t));
        char *mname = NULL;
        ck_assert_ok(tsched_vclos_link_name(&mname, v, downm));
        ck_assert_ok(tsched_vclos_set_up(v, mname, 0));
        tsched_free(mname);
        size_t nr = 0;
        ck_assert_status(tsched_vclos_job_ranks(NULL, NULL, NULL, 0, &nr, v, "big"), TSCHED_E_BUFFER);
        uint32_t *node = calloc(nr, sizeof *node), *nic = calloc(nr, sizeof *nic);
        ck_assert_ok(tsched_vclos_job_ranks(node, nic, NULL, nr, &nr, v, "big"));
        unsigned lost = 0, routed = 0;
        for (uint32_t a = 0; a < nr; a++)
            for (uint32_t b = 0; b < nr; b++) {
                if (node[a] == node[b])
                    continue;
                uint32_t up, down, su, sd;
                ck_assert_ok(tsched_vclos_route(&up, &down, v, "big", a, b));
                ck_assert_ok(tsched_vclos_source_route(&su, &sd, t, node[a], nic[a], node[b], nic[b]));
                if (su != TSCHED_NONE && (su == downm || sd == downm)) {
                    su = sd = TSCHED_NONE;
                    lost++;
                } else {
                    routed += su != TSCHED_NONE;
                }
                ck_assert_uint_eq(up, su);
                ck_assert_uint_eq(down, sd);
            }
        ck_assert_uint_gt(routed, 0);
        (void)lost;
        free(node);
        free(nic);
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(allocated, tu_n(20) / 2);
}
END_TEST

START_TEST(sr_bad_input)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 2, 8, 2);
    uint32_t up = 1, down = 1;
    ck_assert_status(tsched_vclos_source_route(NULL, &down, t, 0, 0, 2, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("up_member");
    ck_assert_status(tsched_vclos_source_route(&up, NULL, t, 0, 0, 2, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("down_member");
    ck_assert_status(tsched_vclos_source_route(&up, &down, NULL, 0, 0, 2, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topo");
    ck_assert_status(tsched_vclos_source_route(&up, &down, t, 4, 0, 2, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("src_node 4");
    ck_assert_uint_eq(up, TSCHED_NONE);
    ck_assert_status(tsched_vclos_source_route(&up, &down, t, 0, 0, 9, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("dst_node 9");
    ck_assert_status(tsched_vclos_source_route(&up, &down, t, 0, 2, 2, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("src_nic 2");
    ck_assert_status(tsched_vclos_source_route(&up, &down, t, 0, 0, 2, 5), TSCHED_E_RANGE);
    ck_assert_errmsg_has("dst_nic 5");
    /* same leaf: no fabric link; two leaves: the route */
    ck_assert_ok(tsched_vclos_source_route(&up, &down, t, 0, 1, 1, 0));
    ck_assert_uint_eq(up, TSCHED_NONE);
    ck_assert_uint_eq(down, TSCHED_NONE);
    ck_assert_ok(tsched_vclos_source_route(&up, &down, t, 0, 1, 2, 0));
    ck_assert_uint_ne(up, TSCHED_NONE);
    ck_assert_uint_ne(down, TSCHED_NONE);
    tsched_topology_free(t);
    /* an unbuilt fabric has no nodes */
    ck_assert_ok(tsched_topology_new(&t, NULL));
    ck_assert_status(tsched_vclos_source_route(&up, &down, t, 0, 0, 0, 0), TSCHED_E_RANGE);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vclos_sr");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sr_matches_brute_force);
    tcase_add_test(tc, sr_is_the_free_mode_route);
    tcase_add_test(tc, sr_bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
