/* `pods_used` of tsched.placement.v1 (issue 25, item 6): the pods holding the job's nodes,
 * whatever the spread domain, and 0 on a fabric without pods (it used to be the spread
 * domains' count: 4 "pods" for 4 leaves of a leaf-spine); `domains_used`, written when the
 * domain is not the pod, is that count. Checked against counts made here from the nodes on
 * seeded random fabrics, jobs, busy nodes and algorithms. */
#include <jansson.h>
#include <stdlib.h>

#include "test_util.h"

/* Distinct values of key(node) among the placement's nodes, NONE not counted. */
static uint32_t distinct(const tsched_placement *p, const tsched_topology *t, int by_pod)
{
    uint32_t rows = tsched_placement_rows(p), cols = tsched_placement_cols(p), n = 0;
    uint32_t *seen = calloc((size_t)rows * cols, sizeof *seen);
    ck_assert_ptr_nonnull(seen);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t node = tsched_placement_node(p, r, c);
            uint32_t k = by_pod ? tsched_topology_node_pod(t, node) : tsched_topology_node_leaf(t, node);
            if (k == TSCHED_NONE)
                continue;
            uint32_t i = 0;
            while (i < n && seen[i] != k)
                i++;
            if (i == n)
                seen[n++] = k;
        }
    free(seen);
    return n;
}

/* Place, write, and check pods_used / domains_used against the counts above. */
static void check_one(const tsched_topology *t, const tsched_job *j, tsched_place_algo algo, int domain)
{
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = algo;
    o.domain = domain;
    o.time_limit_ms = 2000;
    tsched_placement *p = NULL;
    tsched_status st = tsched_place(&p, t, j, &o);
    if (st == TSCHED_E_INFEASIBLE)
        return;
    ck_assert_ok(st);
    char *js = NULL;
    ck_assert_ok(tsched_placement_to_json(&js, p, t, "j", 0));
    json_error_t err;
    json_t *doc = json_loads(js, 0, &err);
    ck_assert_ptr_nonnull(doc);
    uint32_t pods = distinct(p, t, 1);
    if (tsched_topology_num_pods(t) == 0)
        ck_assert_uint_eq(pods, 0);
    ck_assert_msg(json_integer_value(json_object_get(doc, "pods_used")) == (json_int_t)pods,
                  "pods_used %lld, the nodes are in %u pods: %s",
                  (long long)json_integer_value(json_object_get(doc, "pods_used")), pods, js);
    const char *dom = json_string_value(json_object_get(doc, "domain"));
    json_t *du = json_object_get(doc, "domains_used");
    if (strcmp(dom, "pod") == 0) {
        ck_assert_ptr_null(du); /* the same number as pods_used: not repeated */
    } else {
        ck_assert_ptr_nonnull(du);
        ck_assert_int_eq(json_integer_value(du), tsched_placement_domains_used(p));
        if (strcmp(dom, "leaf") == 0)
            ck_assert_uint_eq(tsched_placement_domains_used(p), distinct(p, t, 0));
    }
    /* the document still loads, with the spread domains' count */
    tsched_placement *q = NULL;
    ck_assert_ok(tsched_placement_load_string(&q, t, js, strlen(js)));
    ck_assert_uint_eq(tsched_placement_domains_used(q), tsched_placement_domains_used(p));
    tsched_placement_free(q);
    json_decref(doc);
    tsched_free(js);
    tsched_placement_free(p);
}

/* The case: four leaves of a two-tier fabric are no pods. */
START_TEST(leaf_spine_has_no_pods)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 2, 2, 8, 0, 0, 0, 0);
    tsched_job *j = tu_job("j", 64, 8, 1); /* 8 nodes: all four leaves */
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    char *js = NULL;
    ck_assert_ok(tsched_placement_to_json(&js, p, t, "j", 0));
    ck_assert_msg(strstr(js, "\"pods_used\": 0,\n  \"domains_used\": 4,") != NULL, "%s", js);
    tsched_free(js);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(pods_used_counts_pods)
{
    static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE};
    tu_rng rng = tu_rng_new(25);
    for (unsigned round = 0; round < tu_n(60); round++) {
        int clos = round % 3 != 0;
        uint32_t npl = 1 + tu_rng_below(&rng, 4);
        tsched_topology *t = clos ? tu_gen_clos3(2 + tu_rng_below(&rng, 3), 1 + tu_rng_below(&rng, 3), 2, 2, npl, 8,
                                                 0, 0, 0)
                                  : tu_gen_leaf_spine(2 + tu_rng_below(&rng, 5), 2, npl, 8, 0, 0, 0, 0);
        uint32_t nodes = tsched_topology_num_nodes(t);
        /* some nodes busy, so jobs spread unevenly */
        for (uint32_t n = 0; n < nodes; n++)
            if (tu_rng_below(&rng, 4) == 0)
                ck_assert_ok(tsched_topology_set_free_gpus(t, n, 0));
        uint32_t want = 1 + tu_rng_below(&rng, nodes);
        uint32_t pp = want % 2 == 0 && tu_rng_below(&rng, 2) ? 2 : 1;
        tsched_job *j = tu_job("j", want * 8, 8, pp);
        tsched_place_algo algo = algos[tu_rng_below(&rng, sizeof algos / sizeof *algos)];
        check_one(t, j, algo, -1);
        if (clos) {
            check_one(t, j, algo, TSCHED_DOMAIN_LEAF);
            check_one(t, j, algo, TSCHED_DOMAIN_POD);
        }
        tsched_job_free(j);
        tsched_topology_free(t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pods-used");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, leaf_spine_has_no_pods);
    tcase_add_test(tc, pods_used_counts_pods);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
