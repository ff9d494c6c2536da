/* sim: the time series only on request (issue 23 item 8, doc/sim.md "Time series on
 * request"). With option `timeseries` 0 the run keeps no samples and skips the per-link
 * pass of every interval, but settles its flows at the same boundaries, so every other
 * result is the same, byte for byte: seeded random runs with short sampling intervals
 * (many boundaries fall inside flows) compare the two result documents. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define MS 1000000LL

/* A seeded run on a 2:1 leaf-spine (4 leaves x 2 spines, 4 nodes of 4 GPUs, 2 NICs) with
 * ring, halving-doubling, all-to-all and pp jobs arriving over 50 ms; the result document
 * (with links, no wall time) and, when kept, the CSV time series. */
static char *random_run(uint64_t seed, int series, char **csv)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 2, 4, 4, 2, 100, 0, 2);
    tsched_sim *s = tu_sim_new(t);
    static const char *const routing[] = {"greedy", "ecmp", "balanced-ecmp", "ideal"};
    static const char *const prio[] = {"none", "fixed", "crux"};
    tu_rng rng = tu_rng_new(seed);
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, routing[tu_rng_below(&rng, 4)]));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio[tu_rng_below(&rng, 2)]));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SAMPLE_MS, 0.1 + 3 * tu_rng_unit(&rng)));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_MEASURE_FROM_S, 0.01 * tu_rng_unit(&rng)));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, series));
    uint32_t njobs = 4 + tu_rng_below(&rng, 6);
    for (uint32_t i = 0; i < njobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        uint32_t nodes = 1u << tu_rng_below(&rng, 3), pp = nodes > 1 && tu_rng_below(&rng, 3) == 0 ? 2 : 1;
        tsched_sim_job j = {sizeof j, name, (int64_t)tu_rng_below(&rng, 50) * MS, nodes * 4, 4, pp,
                            (int64_t)(1 + tu_rng_below(&rng, 20)) * MS, (double)tu_rng_below(&rng, 5) / 4,
                            1 + tu_rng_below(&rng, 4), 0, tu_rng_below(&rng, 3), 0, NULL, NULL, 0};
        uint32_t ji, ph;
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        tsched_sim_phase p = {sizeof p, (int)tu_rng_below(&rng, 4), 0.1 + 7 * tu_rng_unit(&rng),
                              1 + tu_rng_below(&rng, 2)};
        ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
    }
    tsched_sim_result *r = tu_sim_run(s);
    char *json = NULL;
    ck_assert_ok(tsched_sim_result_to_json(&json, r, TSCHED_SIM_JSON_NO_TIMING | TSCHED_SIM_JSON_LINKS));
    *csv = NULL;
    if (series) {
        ck_assert_ok(tsched_sim_result_timeseries_csv(csv, r, 0));
    } else {
        ck_assert_status(tsched_sim_result_timeseries_csv(csv, r, 0), TSCHED_E_INVALID);
        ck_assert_msg(strstr(tsched_last_error(), "timeseries"), "%s", tsched_last_error());
    }
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return json;
}

START_TEST(off_changes_nothing_else)
{
    unsigned rows = 0;
    for (uint64_t seed = 1; seed <= tu_n(60); seed++) {
        char *on_csv, *off_csv;
        char *on = random_run(seed, 1, &on_csv), *off = random_run(seed, 0, &off_csv);
        ck_assert_msg(strcmp(on, off) == 0, "seed %llu: the result differs without the time series",
                      (unsigned long long)seed);
        ck_assert_ptr_null(off_csv);
        for (const char *c = on_csv; (c = strchr(c, '\n')); c++)
            rows++;
        tsched_free(on);
        tsched_free(off);
        tsched_free(on_csv);
    }
    ck_assert_uint_gt(rows, 1000); /* the runs did cross many interval boundaries */
}
END_TEST

/* The default keeps the time series (library callers read it as before); the scenario
 * field `timeseries` takes 0 or 1 and nothing else; the option refuses other values. */
START_TEST(default_and_fields)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 4, 1, 100, 0, 0);
    tsched_sim *s = tu_sim_new(t);
    uint32_t ji;
    tsched_sim_job j = {sizeof j, "a", 0, 4, 0, 1, 2500 * MS, 0, 1, 0, 0, 0, NULL, NULL, 0};
    ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
    tsched_sim_result *r = tu_sim_run(s);
    char *csv = NULL;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    unsigned lines = 0;
    for (const char *c = csv; (c = strchr(c, '\n')); c++)
        lines++;
    ck_assert_uint_eq(lines, 1 + 3); /* header, [0, 1), [1, 2), [2, 2.5) */
    tsched_free(csv);
    tsched_sim_result_free(r);
    tsched_sim_free(s);

    static const char *const ok[] = {"0", "1"}, *const bad[] = {"2", "0.5", "-1", "true", "\"yes\""};
    for (size_t k = 0; k < 2; k++) {
        char text[256];
        snprintf(text, sizeof text, "{\"format\": \"tsched.scenario.v1\", \"name\": \"x\", \"timeseries\": %s}", ok[k]);
        s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_load_scenario_string(s, text, strlen(text)));
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        r = tu_sim_run(s);
        ck_assert_status(tsched_sim_result_timeseries_csv(&csv, r, 0), k ? TSCHED_OK : TSCHED_E_INVALID);
        tsched_free(csv);
        csv = NULL;
        tsched_sim_result_free(r);
        tsched_sim_free(s);
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "{\"format\": \"tsched.scenario.v1\", \"name\": \"x\", \"timeseries\": %s}",
                 bad[k]);
        s = tu_sim_new(t);
        tsched_status st = tsched_sim_load_scenario_string(s, text, strlen(text));
        ck_assert_msg(st != TSCHED_OK && strstr(tsched_last_error(), "timeseries"), "%s: %s", bad[k],
                      tsched_last_error());
        tsched_sim_free(s);
    }
    s = tu_sim_new(t);
    ck_assert_status(tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, 2), TSCHED_E_RANGE);
    ck_assert_status(tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, 0.5), TSCHED_E_RANGE);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim-timeseries");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, off_changes_nothing_else);
    tcase_add_test(tc, default_and_fields);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
