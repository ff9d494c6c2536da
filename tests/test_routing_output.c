/* tsched.routes.v1 streamed (src/routing/output.c) against the jansson tree the writer used
 * to build, written by ts_json_write: byte for byte, indented and compact, with and without
 * rates and solve_ms, to a string and to a FILE. */
#define _GNU_SOURCE /* open_memstream */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/rng.h"
#include "test_util.h"

/* The document as output.c built it before streaming (a tree, then ts_json_write). */
static char *tree_text(const tsched_routes *r, const tsched_topology *t, int has_rates, int with_time, int compact)
{
    json_t *root = json_object(), *flows = json_array();
    json_object_set_new(root, "format", json_string("tsched.routes.v1"));
    json_object_set_new(root, "algorithm", json_string(tsched_route_algo_name(tsched_routes_algo(r))));
    json_object_set_new(root, "status", json_string(tsched_routes_status(r)));
    json_object_set_new(root, "max_link_flows", json_integer(tsched_routes_max_link_flows(r)));
    if (has_rates)
        json_object_set_new(root, "min_rate_gbps", json_real(tsched_routes_min_rate(r)));
    json_object_set_new(root, "moved", json_integer(tsched_routes_moved(r)));
    json_object_set_new(root, "flows", flows);
    for (uint32_t i = 0; i < tsched_routes_count(r); i++) {
        tsched_path p = {.size = sizeof(tsched_path)};
        ck_assert_ok(tsched_routes_path(&p, r, i));
        json_t *o = json_object(), *hops = json_array();
        json_array_append_new(flows, o);
        json_object_set_new(o, "index", json_integer(i));
        json_object_set_new(o, "hops", hops);
        for (uint32_t h = 0; p.nswitches > 1 && h < p.nswitches; h++)
            json_array_append_new(hops, json_string(tsched_topology_switch_name(t, p.switches[h])));
        if (has_rates)
            json_object_set_new(o, "rate_gbps", json_real(tsched_routes_rate(r, i)));
    }
    if (with_time)
        json_object_set_new(root, "solve_ms", json_real(tsched_routes_solve_ms(r)));
    char *text = ts_json_write(root, compact, NULL);
    json_decref(root);
    ck_assert_ptr_nonnull(text);
    return text;
}

static char *streamed(const tsched_routes *r, const tsched_topology *t, int flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_ok(tsched_routes_write_json(f, r, t, flags));
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_uint_eq(strlen(buf), len);
    return buf;
}

/* A 6 x 4 leaf-spine (kind 0) or a 3-pod Clos (kind 1) of 4 nodes per leaf, 2 GPUs, 2 NICs. */
static tsched_topology *fabric(int kind)
{
    return kind ? tu_gen_clos3(3, 2, 2, 2, 4, 2, 2, 0, 0) : tu_gen_leaf_spine(6, 4, 4, 2, 2, 0, 0, 0);
}

START_TEST(routes_stream_is_the_tree_text)
{
    ts_rng rng;
    ts_rng_seed(&rng, 2);
    static const uint32_t sizes[] = {0, 1, 7, 60, 5000}; /* 5000: the rate memo's path */
    for (int kind = 0; kind < 2; kind++) {
        tsched_topology *t = fabric(kind);
        uint32_t nn = tsched_topology_num_nodes(t);
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            tsched_flows *f = NULL;
            ck_assert_ok(tsched_flows_new(&f));
            for (uint32_t i = 0; i < sizes[z]; i++) {
                uint32_t s = (uint32_t)ts_rng_below(&rng, nn), d = (uint32_t)ts_rng_below(&rng, nn);
                uint32_t sn = (uint32_t)ts_rng_below(&rng, 2), dn = s == d ? 1 - sn : (uint32_t)ts_rng_below(&rng, 2);
                ck_assert_ok(tsched_flows_add(NULL, f, NULL, s, sn, d, dn, 0.5 + (double)ts_rng_below(&rng, 40)));
            }
            /* the largest size with greedy only under the sanitizer and valgrind setups */
            for (int algo = 0; algo < (tu_slow() && sizes[z] > 1000 ? 1 : 3); algo++) {
                for (int rates = 0; rates < 2; rates++) {
                    tsched_route_options o;
                    tsched_route_options_init(&o);
                    o.algo = (tsched_route_algo)algo;
                    o.seed = 5;
                    o.flags = rates ? 0 : TSCHED_ROUTE_NO_RATES;
                    tsched_routes *r = NULL;
                    ck_assert_ok(tsched_route(&r, t, f, &o));
                    for (int with_time = 0; with_time < 2; with_time++) {
                        char *json = NULL;
                        ck_assert_ok(tsched_routes_to_json(&json, r, t, with_time));
                        for (int compact = 0; compact < 2; compact++) {
                            char *want = tree_text(r, t, rates, with_time, compact);
                            char *got = streamed(r, t, (with_time ? 0 : TSCHED_ROUTES_JSON_NO_TIMING) |
                                                           (compact ? TSCHED_ROUTES_JSON_COMPACT : 0));
                            ck_assert_msg(strcmp(got, want) == 0, "fabric %d, %u flows, algo %d, rates %d, time %d, "
                                          "compact %d", kind, sizes[z], algo, rates, with_time, compact);
                            if (!compact)
                                ck_assert_str_eq(json, want);
                            free(want);
                            free(got);
                        }
                        tsched_free(json);
                    }
                    tsched_routes_free(r);
                }
            }
            tsched_flows_free(f);
        }
        tsched_topology_free(t);
    }
}
END_TEST

START_TEST(routes_stream_errors)
{
    tsched_topology *t = fabric(0), *u = fabric(0);
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    for (uint32_t i = 0; i < 3000; i++)
        ck_assert_ok(tsched_flows_add(NULL, f, "j", i % 24, 0, (i * 7 + 5) % 24, 1, 1.0));
    tsched_routes *r = NULL;
    ck_assert_ok(tsched_route(&r, t, f, NULL));
    FILE *null = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(null);
    ck_assert_status(tsched_routes_write_json(NULL, r, t, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out is NULL");
    ck_assert_status(tsched_routes_write_json(null, NULL, t, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("routes is NULL");
    ck_assert_status(tsched_routes_write_json(null, r, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topo is NULL");
    ck_assert_status(tsched_routes_write_json(null, r, t, 2), TSCHED_E_INVALID);
    ck_assert_errmsg_has("unknown flags");
    ck_assert_status(tsched_routes_write_json(null, r, u, 0), TSCHED_E_MISMATCH);
    ck_assert_errmsg_has("tsched_routes_write_json: routes");
    ck_assert_ok(tsched_routes_write_json(null, r, t, TSCHED_ROUTES_JSON_COMPACT));
    fclose(null);
    /* a full disk: the 64 KiB pieces fail to write */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        ck_assert_status(tsched_routes_write_json(full, r, t, 0), TSCHED_E_IO);
        ck_assert_errmsg_has("write failed");
        fclose(full);
    }
    tsched_routes_free(r);
    tsched_flows_free(f);
    tsched_topology_free(t);
    tsched_topology_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("routing-output");
    TCase *tc = tcase_create("routing-output");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, routes_stream_is_the_tree_text);
    tcase_add_test(tc, routes_stream_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
