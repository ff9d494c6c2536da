/* sim with the vclos module's placements (doc/sim.md §3.2, §3.3 `vclos`, §3.5): two multi-leaf
 * jobs whose rings share a member link under ECMP and never under vClos (phase times and busy
 * links against hand computation), wait causes network vs gpu, a spine down repairs or
 * requeues, a node down evicts, determinism, and the error rows of §8.
 *
 * The fabric: 2 leaves x S spines, one 100 Gbit/s member per pair, 4 nodes of 1 GPU and 1 NIC
 * of 100 Gbit/s per leaf (node0-3 on leaf0, node4-7 on leaf1). Blockers b0..b4 (1 GPU) take
 * node0..node4 at t = 0; b1..b3 end at 1 s, b0 and b4 at 100 s. A (4 GPUs) arrives at 0.5 s
 * and waits (3 idle nodes: gpu), B (2 GPUs) at 0.6 s behind it. At 1 s leaf0 has node1-3 idle
 * and leaf1 node5-7: A gets vClos shape (2 leaves, 2 nodes each) = node1, node2, node5,
 * node6 and B (2 leaves, 1 node each) = node3, node7. Both iterate 10 times: compute 100 ms,
 * then a ring of explicit flows (rank r -> r + 1) of 10 Gbit each: alone, a phase takes
 * 10 / 100 = 0.1 s, an iteration 0.2 s; when a cross-leaf flow of A shares a directed member
 * link with one of B, both run at 50 Gbit/s and both phases take 0.2 s (iteration 0.3 s). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define MS 1000000LL
#define SEC 1000000000LL

static void add_job(tsched_sim *s, const char *name, int64_t arrival, uint32_t gpus, int64_t compute,
                    uint64_t iters, uint32_t ring)
{
    uint32_t ji, ph;
    tsched_sim_job j = {sizeof j, name, arrival, gpus, 0, 0, compute, 0, iters, 0, 0, 0, NULL, NULL, 0};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    if (!ring)
        return;
    tsched_sim_phase p = {sizeof p, -1, 0, 1};
    ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    for (uint32_t r = 0; r < ring; r++)
        ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, r, 0, (r + 1) % ring, 0, 10.0, NULL, 0));
}

/* The scenario of the file comment on `t`; failures added by the caller. */
static tsched_sim *scenario(tsched_topology *t, const char *placement, const char *routing, uint64_t seed)
{
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, 1));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)seed));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, placement));
    if (routing)
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, routing));
    static const char *const b[5] = {"b0", "b1", "b2", "b3", "b4"};
    for (int i = 0; i < 5; i++)
        add_job(s, b[i], 0, 1, (i == 0 || i == 4) ? 100 * SEC : 1 * SEC, 1, 0);
    add_job(s, "A", 500 * MS, 4, 100 * MS, 10, 4);
    add_job(s, "B", 600 * MS, 2, 100 * MS, 10, 2);
    return s;
}

enum { JA = 5, JB = 6 };

/* Directed fabric links that carried any flow (the links report). */
static uint32_t busy_links(const tsched_sim_result *r)
{
    char *js = NULL;
    ck_assert_ok(tsched_sim_result_to_json(&js, r, TSCHED_SIM_JSON_LINKS | TSCHED_SIM_JSON_NO_TIMING));
    json_error_t e;
    json_t *doc = json_loads(js, 0, &e);
    ck_assert_ptr_nonnull(doc);
    json_t *links = json_object_get(doc, "links"), *l;
    ck_assert_ptr_nonnull(links);
    size_t i;
    uint32_t n = 0;
    json_array_foreach(links, i, l)
    {
        ck_assert(json_is_integer(json_object_get(l, "member"))); /* member links */
        n += json_real_value(json_object_get(l, "busy_frac")) > 0 ||
             json_integer_value(json_object_get(l, "busy_frac")) > 0;
    }
    json_decref(doc);
    tsched_free(js);
    return n;
}

/* Under vclos every cross-leaf flow has its own up and down member: 4 cross flows (A: 1 -> 2
 * and 3 -> 0; B: both) on 8 distinct directed links, every phase at NIC rate: both finish
 * at 1 + 10 x 0.2 = 3 s. Under vclos-free + ecmp the same placement hashes flows onto spines:
 * either no flow shares (3 s, 8 busy links) or some pair shares a member (both jobs' phases
 * at 50 Gbit/s: 1 + 10 x 0.3 = 4 s, fewer busy links); some seed must collide. */
START_TEST(ecmp_shares_vclos_does_not)
{
    tsched_topology *t = tu_leaf_spine(2, 3, 1, 4, 1, 1);
    int collided = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        tsched_sim *s = scenario(t, "vclos", NULL, seed);
        tsched_sim_result *r = tu_sim_run(s);
        ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
        ck_assert_int_eq(tu_sim_job(r, JA).start_ns, 1 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JB).start_ns, 1 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 3 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 3 * SEC);
        ck_assert_double_eq_tol(tu_sim_job(r, JA).iter_mean_s, 0.2, 1e-12);
        ck_assert_double_eq_tol(tu_sim_job(r, JA).iter_alone_s, 0.2, 1e-12);
        ck_assert_uint_eq(busy_links(r), 8);
        tsched_sim_result_free(r);
        tsched_sim_free(s);

        s = scenario(t, "vclos-free", "ecmp", seed);
        r = tu_sim_run(s);
        ck_assert_int_eq(tu_sim_job(r, JA).start_ns, 1 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JB).start_ns, 1 * SEC);
        int64_t fa = tu_sim_job(r, JA).finish_ns, fb = tu_sim_job(r, JB).finish_ns;
        uint32_t busy = busy_links(r);
        ck_assert_int_eq(fa, fb);
        if (fa == 4 * SEC) {
            ck_assert_uint_lt(busy, 8);
            ck_assert_double_eq_tol(tu_sim_job(r, JA).iter_mean_s, 0.3, 1e-12);
            collided++;
        } else {
            ck_assert_int_eq(fa, 3 * SEC);
            ck_assert_uint_eq(busy, 8);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
    }
    ck_assert_int_gt(collided, 0);
    tsched_topology_free(t);
}
END_TEST

/* Routing `vclos` is implied; `ideal` with vclos-free is the same placement without links. */
START_TEST(vclos_free_ideal_and_source)
{
    tsched_topology *t = tu_leaf_spine(2, 3, 1, 4, 1, 1);
    static const char *const rt[] = {"ideal", "source", "balanced-ecmp", "greedy"};
    for (size_t k = 0; k < sizeof rt / sizeof rt[0]; k++) {
        tsched_sim *s = scenario(t, "vclos-free", rt[k], 1);
        tsched_sim_result *r = tu_sim_run(s);
        ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
        ck_assert_int_eq(tu_sim_job(r, JA).start_ns, 1 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JB).start_ns, 1 * SEC);
        /* SR: node2 (k = 2) and node3 (k = 3) go up on spines 2 and 0, node6 and node7 on
         * spines 2 and 0 too: no two flows share a directed link; balanced and greedy spread */
        ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 3 * SEC);
        ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 3 * SEC);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
    }
    tsched_topology_free(t);
}
END_TEST

/* With 2 spines A's vClos takes both (s = 2 virtual spines, one member each per leaf): B has
 * idle nodes (node3, node7) but no spine with a free member on both leaves: it waits with
 * cause network until A ends at 3 s, then runs 10 x 0.2 s. A waited for GPUs (3 idle nodes
 * at 0.5 s). vclos-free reserves nothing: B starts at 1 s behind nothing but the queue. */
START_TEST(wait_causes)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 1, 1);
    tsched_sim *s = scenario(t, "vclos", NULL, 1);
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, JA).start_ns, 1 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 3 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JA).wait_cause, TSCHED_SIM_WAIT_GPU);
    ck_assert_int_eq(tu_sim_job(r, JB).start_ns, 3 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 5 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JB).wait_cause, TSCHED_SIM_WAIT_NETWORK);
    tsched_sim_summary sm = tu_sim_summary(r);
    ck_assert_uint_eq(sm.waits_gpu, 1);
    ck_assert_uint_eq(sm.waits_network, 1);
    ck_assert_uint_eq(sm.waits_queue, 0);
    tsched_sim_result_free(r);
    tsched_sim_free(s);

    s = scenario(t, "vclos-free", "ideal", 1);
    r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_job(r, JB).start_ns, 1 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JB).wait_cause, TSCHED_SIM_WAIT_QUEUE);
    sm = tu_sim_summary(r);
    ck_assert_uint_eq(sm.waits_gpu, 1);
    ck_assert_uint_eq(sm.waits_network, 0);
    ck_assert_uint_eq(sm.waits_queue, 1);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* The spine B's vClos uses, from a handle of our own driven through the same allocations as
 * the simulator's (stage 0 for b0..b4, b1..b3 released, then A and B). */
static void b_spine(char *out, size_t cap, const tsched_topology *t)
{
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_vclos_outcome oc;
    static const char *const b[5] = {"b0", "b1", "b2", "b3", "b4"};
    for (int i = 0; i < 5; i++) {
        ck_assert_ok(tsched_vclos_allocate(v, b[i], 1, &oc));
        ck_assert_int_eq(oc, TSCHED_VCLOS_ALLOCATED);
    }
    for (int i = 1; i <= 3; i++)
        ck_assert_ok(tsched_vclos_release(v, b[i]));
    ck_assert_ok(tsched_vclos_allocate(v, "A", 4, &oc));
    ck_assert_int_eq(oc, TSCHED_VCLOS_ALLOCATED);
    ck_assert_ok(tsched_vclos_allocate(v, "B", 2, &oc));
    ck_assert_int_eq(oc, TSCHED_VCLOS_ALLOCATED);
    uint32_t nodes[2], links[2];
    size_t n;
    ck_assert_ok(tsched_vclos_job_nodes(nodes, 2, &n, v, "B"));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(nodes[0], tu_node(t, "node3"));
    ck_assert_uint_eq(nodes[1], tu_node(t, "node7"));
    ck_assert_ok(tsched_vclos_job_links(links, 2, &n, v, "B"));
    ck_assert_uint_eq(n, 2);
    char *name = NULL;
    ck_assert_ok(tsched_vclos_link_name(&name, v, links[0])); /* leaf0~spineX#0 */
    const char *a = strchr(name, '~'), *h = strchr(name, '#');
    ck_assert(a && h && (size_t)(h - a - 1) < cap);
    memcpy(out, a + 1, (size_t)(h - a - 1));
    out[h - a - 1] = '\0';
    tsched_free(name);
    tsched_vclos_free(v);
}

/* A spine down in the middle of B's first phase (1.15 s). With a spare spine (S = 4) B is
 * repaired onto it: its flows move with their remaining bits at the same rate, nothing
 * changes (both end at 3 s, no restart). Without one (S = 3) B is degraded: released and
 * requeued at the head (restart 1, its first iteration lost); at A's end (3 s) it gets one
 * leaf (node1, node2: stage 1, spineX still down) and runs its 10 iterations: 5 s. */
START_TEST(spine_down_repairs_or_requeues)
{
    for (uint32_t S = 3; S <= 4; S++) {
        tsched_topology *t = tu_leaf_spine(2, S, 1, 4, 1, 1);
        char spine[64];
        b_spine(spine, sizeof spine, t);
        tsched_sim *s = scenario(t, "vclos", NULL, 1);
        ck_assert_ok(tsched_sim_add_failure(s, 1150 * MS, spine, 0));
        tsched_sim_result *r = tu_sim_run(s);
        ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
        ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 3 * SEC);
        ck_assert_uint_eq(tu_sim_job(r, JA).restarts, 0);
        ck_assert_uint_eq(tu_sim_job(r, JB).iterations_done, 10);
        if (S == 4) {
            ck_assert_uint_eq(tu_sim_job(r, JB).restarts, 0);
            ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 3 * SEC);
        } else {
            ck_assert_uint_eq(tu_sim_job(r, JB).restarts, 1);
            ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 5 * SEC);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* A node of A down at 1.15 s: the handle evicts A, the simulator requeues it (restart 1).
 * At B's end (3 s) A gets node1, node2, node6, node7 (node5 is down) and runs 10 x 0.2 s. */
START_TEST(node_down_evicts)
{
    tsched_topology *t = tu_leaf_spine(2, 3, 1, 4, 1, 1);
    tsched_sim *s = scenario(t, "vclos", NULL, 1);
    ck_assert_ok(tsched_sim_add_failure(s, 1150 * MS, "node5", 0));
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
    ck_assert_uint_eq(tu_sim_job(r, JA).restarts, 1);
    ck_assert_uint_eq(tu_sim_job(r, JA).iterations_done, 10);
    ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 5 * SEC);
    ck_assert_uint_eq(tu_sim_job(r, JB).restarts, 0);
    ck_assert_int_eq(tu_sim_job(r, JB).finish_ns, 3 * SEC);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ocs-vclos on the same fabric (2 spines: 2 OCSes): every job finishes and A's phases run at
 * NIC rate (its circuits are its own). */
START_TEST(ocs_vclos_runs)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 1, 1);
    tsched_sim *s = scenario(t, "ocs-vclos", NULL, 1);
    tsched_sim_result *r = tu_sim_run(s);
    ck_assert_int_eq(tu_sim_summary(r).status, TSCHED_SIM_DONE);
    ck_assert_int_eq(tu_sim_job(r, JA).start_ns, 1 * SEC);
    ck_assert_int_eq(tu_sim_job(r, JA).finish_ns, 3 * SEC);
    ck_assert_double_eq_tol(tu_sim_job(r, JA).iter_mean_s, 0.2, 1e-12);
    ck_assert_double_eq_tol(tu_sim_job(r, JB).iter_mean_s, 0.2, 1e-12);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* On a fresh fabric each time: the run's failure stays in the topology (sim.h). */
static char *run_json(const char *placement, const char *routing, uint64_t seed)
{
    tsched_topology *t = tu_leaf_spine(2, 4, 1, 4, 1, 1);
    tsched_sim *s = scenario(t, placement, routing, seed);
    ck_assert_ok(tsched_sim_add_failure(s, 2 * SEC, "spine1", 0));
    tsched_sim_result *r = tu_sim_run(s);
    char *js = NULL;
    ck_assert_ok(tsched_sim_result_to_json(&js, r, TSCHED_SIM_JSON_LINKS | TSCHED_SIM_JSON_NO_TIMING));
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return js;
}

START_TEST(deterministic)
{
    static const char *const cases[][2] = {{"vclos", NULL}, {"vclos-free", "ecmp"}, {"vclos-free", "balanced-ecmp"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *a = run_json(cases[k][0], cases[k][1], 7), *b = run_json(cases[k][0], cases[k][1], 7);
        size_t d = 0;
        while (a[d] && a[d] == b[d])
            d++;
        ck_assert_msg(a[d] == b[d], "%s: runs differ at byte %zu: ...%.80s... vs ...%.80s...", cases[k][0], d,
                      a + (d > 40 ? d - 40 : 0), b + (d > 40 ? d - 40 : 0));
        tsched_free(a);
        tsched_free(b);
    }
}
END_TEST

/* §8: routing and placement must agree; fixed nodes; trunk links with a reserving placement;
 * crius is still missing; a clos3 is no vClos fabric. */
START_TEST(error_rows)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 1, 1);
    static const struct {
        const char *placement, *routing, *links, *want[3];
    } rows[] = {
        {"vclos", "ecmp", NULL, {"routing", "\"ecmp\"", "\"vclos\""}},
        {"ocs-vclos", "ideal", NULL, {"routing", "\"ideal\"", "\"ocs-vclos\""}},
        {"best-fit", "vclos", NULL, {"routing", "\"vclos\"", "\"best-fit\""}},
        {"vclos-free", "vclos", NULL, {"routing", "\"vclos\"", "\"vclos-free\""}},
        {"vclos", NULL, "trunk", {"links", "\"trunk\"", "\"vclos\""}},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        tsched_sim *s = scenario(t, rows[k].placement, rows[k].routing, 1);
        if (rows[k].links)
            ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, rows[k].links));
        ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_INVALID);
        for (int w = 0; w < 3; w++)
            ck_assert_errmsg_has(rows[k].want[w]);
        tsched_sim_free(s);
    }
    /* vclos-free accepts trunk links (it only places) and `vclos` routing is implied */
    tsched_sim *s = scenario(t, "vclos-free", "ecmp", 1);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, "trunk"));
    ck_assert_ok(tsched_sim_run_until(s, INT64_MAX));
    tsched_sim_free(s);
    /* a job with fixed nodes */
    static const char *const pl[] = {"vclos", "ocs-vclos", "vclos-free"};
    for (size_t k = 0; k < 3; k++) {
        ck_assert_ok(tsched_sim_new(&s, t));
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, pl[k]));
        add_job(s, "free", 0, 1, MS, 1, 0);
        uint32_t nodes[1] = {0};
        tsched_sim_job j = {sizeof j, "pinned", 0, 0, 0, 0, MS, 0, 1, 0, 0, 0, NULL, nodes, 1};
        ck_assert_ok(tsched_sim_add_job(NULL, s, &j));
        ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_INVALID);
        ck_assert_errmsg_has("jobs[1].nodes");
        ck_assert_errmsg_has(pl[k]);
        tsched_sim_free(s);
    }
    /* crius is accepted (tests/test_sim_crius.c runs it) and can be replaced */
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "crius"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "ocs-vclos"));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "vclos"));
    tsched_sim_free(s);
    tsched_topology_free(t);
    /* a three-tier fabric */
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
    ck_assert_ok(tsched_topology_generate(&t, &g));
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "vclos"));
    add_job(s, "x", 0, 1, MS, 1, 0);
    ck_assert_status(tsched_sim_run_until(s, INT64_MAX), TSCHED_E_INVALID);
    ck_assert_errmsg_has("placement");
    ck_assert_errmsg_has("two-tier");
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *su = suite_create("sim-vclos");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ecmp_shares_vclos_does_not);
    tcase_add_test(tc, vclos_free_ideal_and_source);
    tcase_add_test(tc, wait_causes);
    tcase_add_test(tc, spine_down_repairs_or_requeues);
    tcase_add_test(tc, node_down_evicts);
    tcase_add_test(tc, ocs_vclos_runs);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, error_rows);
    suite_add_tcase(su, tc);
    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
