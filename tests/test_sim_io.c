/* The sim module's readers and writers (doc/sim.md §4, §5, §8).
 *
 * The "writers" case builds tsched_sim_result structs by hand and needs nothing from the
 * engine; the "readers" case loads documents into a tsched_sim on tests/data/sim/fabric.json
 * (leaf_spine: node0, node1 on leaf0, node2, node3 on leaf1, 8 GPUs and 8 NICs each, spine0
 * and spine1) and checks one case per row of doc/sim.md §8 with its status and message. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim_api.h"
#include "sim/sim_result.h"
#include "test_util.h"
#include "topo-sched/sim.h"

#define SIM_DATA TSCHED_TEST_DATA "/sim"

/* ---- hand-built results ------------------------------------------------------------- */

static const char *job_nodes[] = {"node0", "node1", "node2"};

/* Three jobs: "done" finished (arrived 12 s, started at its arrival, finished 20.5 s),
 * "waiting" never started (queue), "running" started (gpu wait) but did not finish; two
 * links; `nsamples` samples of 1 s whose fields are easy to average. */
static tsched_sim_result *build_result(uint32_t nsamples)
{
    tsched_sim_result *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->scenario = strdup("demo");
    tsched_sim_summary *s = &r->summary;
    s->size = sizeof *s;
    s->status = TSCHED_SIM_UNTIL;
    s->end_ns = 30000000000;
    s->from_ns = 0;
    s->to_ns = 30000000000;
    s->jobs = 3;
    s->jobs_done = 1;
    s->avg_jct_s = 8.5;
    s->avg_wait_s = 0;
    s->avg_run_s = 8.5;
    s->makespan_s = 20.5;
    s->gpu_util = 0.25;
    s->gpu_util_alloc = 0.5;
    s->gbits_demanded = 120;
    s->gbits_delivered = 100.5;
    s->events = 1234;
    s->rate_updates = 5678;
    s->waits_gpu = 1;
    s->waits_queue = 1;
    s->wall_ms = 3.25;

    r->njobs = 3;
    r->jobs = calloc(3, sizeof *r->jobs);
    ck_assert_ptr_nonnull(r->jobs);
    const char *names[] = {"done", "waiting", "running"};
    for (uint32_t i = 0; i < 3; i++) {
        tsched_sim_job_stats *j = &r->jobs[i];
        j->size = sizeof *j;
        j->name = names[i];
        j->start_ns = -1;
        j->finish_ns = -1;
    }
    tsched_sim_job_stats *j = &r->jobs[0];
    j->gpus = 16;
    j->level = 2;
    j->arrival_ns = 12000000000;
    j->start_ns = 12000000000;
    j->finish_ns = 20500000000;
    j->iterations = 10;
    j->iterations_done = 10;
    j->iter_mean_s = 0.85;
    j->iter_min_s = 0.8;
    j->iter_max_s = 0.9;
    j->iter_alone_s = 0.8;
    j->compute_s = 5;
    j->wait_cause = TSCHED_SIM_WAIT_NONE;
    j->gbits_demanded = 100;
    j->gbits_delivered = 100;
    j = &r->jobs[1];
    j->gpus = 8;
    j->arrival_ns = 1000000000;
    j->iterations = 3;
    j->wait_cause = TSCHED_SIM_WAIT_QUEUE;
    j = &r->jobs[2];
    j->gpus = 8;
    j->arrival_ns = 2000000000;
    j->start_ns = 4500000000;
    j->iterations = 7;
    j->iterations_done = 1;
    j->restarts = 1;
    j->wait_cause = TSCHED_SIM_WAIT_GPU;
    j->gbits_demanded = 20;
    j->gbits_delivered = 0.5;

    /* done: node0, node1; waiting: none; running: node2 */
    r->node_off = calloc(4, sizeof *r->node_off);
    r->node_names = calloc(3, sizeof *r->node_names);
    ck_assert_ptr_nonnull(r->node_off);
    ck_assert_ptr_nonnull(r->node_names);
    r->node_off[0] = 0;
    r->node_off[1] = 2;
    r->node_off[2] = 2;
    r->node_off[3] = 3;
    for (int k = 0; k < 3; k++)
        r->node_names[k] = job_nodes[k];

    r->nlinks = 2;
    r->links = calloc(2, sizeof *r->links);
    ck_assert_ptr_nonnull(r->links);
    r->links[0] = (ts_sim_link_stats){"leaf0", "spine1", -1, 400, 0.25, 0.5};
    r->links[1] = (ts_sim_link_stats){"spine1", "leaf0", 3, 100, 0, 0};

    r->sample_ns = 1000000000;
    r->nsamples = nsamples;
    r->samples = calloc(nsamples ? nsamples : 1, sizeof *r->samples);
    ck_assert_ptr_nonnull(r->samples);
    for (uint32_t i = 0; i < nsamples; i++) {
        ts_sim_sample *x = &r->samples[i];
        x->gpu_util = 0.25 * i;         /* 0, 0.25, 0.5, ... */
        x->busy_gpus_avg = 2.0 * i;
        x->alloc_gpus = 8 * (i + 1);
        x->running_jobs = i + 1;
        x->queued_jobs = 10 + i;
        x->active_flows = 100 + i;
        x->link_util_mean = 0.125 * i;
        x->link_util_max = 0.5 + 0.125 * i;
    }
    return r;
}

static void free_result(tsched_sim_result *r)
{
    free(r->scenario);
    free(r->jobs);
    free(r->node_off);
    free(r->node_names);
    free(r->links);
    free(r->samples);
    free(r);
}

static json_t *to_json(const tsched_sim_result *r, int flags, char **text)
{
    ck_assert_ok(tsched_sim_result_to_json(text, r, flags));
    json_error_t err;
    json_t *root = json_loads(*text, 0, &err);
    ck_assert_msg(root != NULL, "output is not JSON: %s", err.text);
    return root;
}

/* `a` appears before `b` in `text` (field order of §5.1). */
static void ck_order(const char *text, const char *a, const char *b)
{
    const char *pa = strstr(text, a), *pb = strstr(text, b);
    ck_assert_msg(pa && pb && pa < pb, "\"%s\" should come before \"%s\"", a, b);
}

START_TEST(sim_ns_rounds_to_nearest_and_saturates)
{
    ck_assert_int_eq(ts_sim_ns(0), 0);
    ck_assert_int_eq(ts_sim_ns(0.85), 850000000);
    ck_assert_int_eq(ts_sim_ns(12.5), 12500000000);
    ck_assert_int_eq(ts_sim_ns(1.4e-9), 1);
    ck_assert_int_eq(ts_sim_ns(1.6e-9), 2);
    ck_assert_int_eq(ts_sim_ns(-1.6e-9), -2);
    ck_assert_int_eq(ts_sim_ns(850 / 1e3), 850000000); /* compute_ms the way the reader converts it */
    ck_assert_int_eq(ts_sim_ns(TS_SIM_MAX_S), 9200000000000000000LL);
    ck_assert_int_eq(ts_sim_ns(1e300), INT64_MAX);
    ck_assert_int_eq(ts_sim_ns(-1e300), INT64_MIN);
    ck_assert_int_eq(ts_sim_ns(INFINITY), INT64_MAX);
    ck_assert_int_eq(ts_sim_ns(NAN), 0);
}
END_TEST

START_TEST(names_of_enums)
{
    ck_assert_str_eq(ts_sim_status_name(TSCHED_SIM_DONE), "done");
    ck_assert_str_eq(ts_sim_status_name(TSCHED_SIM_UNTIL), "until");
    ck_assert_str_eq(ts_sim_status_name(TSCHED_SIM_STALLED), "stalled");
    ck_assert_ptr_null(ts_sim_status_name(7));
    ck_assert_ptr_null(ts_sim_wait_cause_name(TSCHED_SIM_WAIT_NONE));
    ck_assert_str_eq(ts_sim_wait_cause_name(TSCHED_SIM_WAIT_GPU), "gpu");
    ck_assert_str_eq(ts_sim_wait_cause_name(TSCHED_SIM_WAIT_NETWORK), "network");
    ck_assert_str_eq(ts_sim_wait_cause_name(TSCHED_SIM_WAIT_TIMEOUT), "timeout");
    ck_assert_str_eq(ts_sim_wait_cause_name(TSCHED_SIM_WAIT_QUEUE), "queue");
    ck_assert_ptr_null(ts_sim_wait_cause_name(-1));
}
END_TEST

START_TEST(json_fields_and_order)
{
    tsched_sim_result *r = build_result(3);
    char *text;
    json_t *root = to_json(r, TSCHED_SIM_JSON_NO_TIMING, &text);
    ck_assert_str_eq(json_string_value(json_object_get(root, "format")), "tsched.simresult.v1");
    ck_assert_str_eq(json_string_value(json_object_get(root, "scenario")), "demo");
    ck_assert_str_eq(json_string_value(json_object_get(root, "status")), "until");
    json_t *end = json_object_get(root, "end_s");
    ck_assert(json_is_real(end)); /* seconds are reals, even when whole */
    ck_assert_double_eq(json_real_value(end), 30.0);
    json_t *w = json_object_get(root, "window");
    ck_assert_double_eq(json_real_value(json_object_get(w, "from_s")), 0.0);
    ck_assert_double_eq(json_real_value(json_object_get(w, "to_s")), 30.0);

    json_t *s = json_object_get(root, "summary");
    ck_assert(json_is_integer(json_object_get(s, "jobs")));
    ck_assert_int_eq(json_integer_value(json_object_get(s, "jobs")), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "jobs_done")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "events")), 1234);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "rate_updates")), 5678);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "waits_gpu")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "waits_network")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "waits_timeout")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "waits_queue")), 1);
    ck_assert(json_is_real(json_object_get(s, "avg_wait_s")));
    ck_assert_double_eq(json_real_value(json_object_get(s, "avg_jct_s")), 8.5);
    ck_assert_double_eq(json_real_value(json_object_get(s, "gpu_util")), 0.25);
    ck_assert_double_eq(json_real_value(json_object_get(s, "gpu_util_alloc")), 0.5);
    ck_assert_double_eq(json_real_value(json_object_get(s, "gbits_delivered")), 100.5);

    json_t *jobs = json_object_get(root, "jobs");
    ck_assert_uint_eq(json_array_size(jobs), 3);
    json_t *d = json_array_get(jobs, 0);
    ck_assert_str_eq(json_string_value(json_object_get(d, "name")), "done");
    ck_assert_int_eq(json_integer_value(json_object_get(d, "gpus")), 16);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "level")), 2);
    json_t *nodes = json_object_get(d, "nodes");
    ck_assert_uint_eq(json_array_size(nodes), 2);
    ck_assert_str_eq(json_string_value(json_array_get(nodes, 1)), "node1");
    ck_assert_double_eq(json_real_value(json_object_get(d, "arrival_s")), 12.0);
    ck_assert_double_eq(json_real_value(json_object_get(d, "start_s")), 12.0);
    ck_assert_double_eq(json_real_value(json_object_get(d, "finish_s")), 20.5);
    ck_assert_double_eq(json_real_value(json_object_get(d, "wait_s")), 0.0);
    ck_assert_double_eq(json_real_value(json_object_get(d, "run_s")), 8.5);
    ck_assert_double_eq(json_real_value(json_object_get(d, "jct_s")), 8.5);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "iterations")), 10);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "iterations_done")), 10);
    ck_assert_double_eq(json_real_value(json_object_get(d, "iter_mean_s")), 0.85);
    ck_assert(json_is_real(json_object_get(d, "compute_s")));
    ck_assert_int_eq(json_integer_value(json_object_get(d, "restarts")), 0);
    ck_assert(json_is_null(json_object_get(d, "wait_cause")));

    /* never started: every time after arrival is null */
    json_t *q = json_array_get(jobs, 1);
    ck_assert_uint_eq(json_array_size(json_object_get(q, "nodes")), 0);
    ck_assert_double_eq(json_real_value(json_object_get(q, "arrival_s")), 1.0);
    const char *nulls[] = {"start_s", "finish_s", "wait_s", "run_s", "jct_s"};
    for (int k = 0; k < 5; k++) {
        json_t *v = json_object_get(q, nulls[k]);
        ck_assert_msg(v && json_is_null(v), "waiting job: %s should be null", nulls[k]);
    }
    ck_assert_str_eq(json_string_value(json_object_get(q, "wait_cause")), "queue");

    /* started, unfinished: start and wait known, finish, run and jct null */
    json_t *u = json_array_get(jobs, 2);
    ck_assert_double_eq(json_real_value(json_object_get(u, "start_s")), 4.5);
    ck_assert_double_eq(json_real_value(json_object_get(u, "wait_s")), 2.5);
    for (int k = 1; k < 5; k++)
        if (k != 2)
            ck_assert_msg(json_is_null(json_object_get(u, nulls[k])), "running job: %s should be null", nulls[k]);
    ck_assert_int_eq(json_integer_value(json_object_get(u, "restarts")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(u, "wait_cause")), "gpu");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(u, "nodes"), 0)), "node2");

    ck_assert_ptr_null(json_object_get(root, "links"));
    ck_assert_ptr_null(json_object_get(root, "wall_ms"));

    /* field order as §5.1 shows it */
    const char *top[] = {"\"format\"", "\"scenario\"", "\"status\"", "\"end_s\"", "\"window\"", "\"summary\"",
                         "\"jobs\": ["};
    for (int k = 0; k + 1 < 7; k++)
        ck_order(text, top[k], top[k + 1]);
    const char *sum[] = {"\"jobs_done\"", "\"avg_jct_s\"", "\"avg_wait_s\"", "\"avg_run_s\"", "\"makespan_s\"",
                         "\"gpu_util\"", "\"gpu_util_alloc\"", "\"gbits_demanded\"", "\"gbits_delivered\"",
                         "\"events\"", "\"rate_updates\"", "\"waits_gpu\"", "\"waits_network\"",
                         "\"waits_timeout\"", "\"waits_queue\""};
    for (int k = 0; k + 1 < 15; k++)
        ck_order(text, sum[k], sum[k + 1]);
    const char *job[] = {"\"name\"", "\"gpus\"", "\"level\"", "\"nodes\"", "\"arrival_s\"", "\"start_s\"",
                         "\"finish_s\"", "\"wait_s\"", "\"run_s\"", "\"jct_s\"", "\"iterations\"",
                         "\"iterations_done\"", "\"iter_mean_s\"", "\"iter_min_s\"", "\"iter_max_s\"",
                         "\"iter_alone_s\"", "\"compute_s\"", "\"restarts\"", "\"gbits_demanded\": 100.0",
                         "\"gbits_delivered\": 100.0", "\"wait_cause\""};
    const char *first_job = strstr(text, "\"jobs\": [");
    for (int k = 0; k + 1 < 21; k++)
        ck_order(first_job, job[k], job[k + 1]);
    /* indentation by two spaces */
    ck_assert_ptr_nonnull(strstr(text, "{\n  \"format\": \"tsched.simresult.v1\""));

    json_decref(root);
    tsched_free(text);
    free_result(r);
}
END_TEST

START_TEST(json_flags)
{
    tsched_sim_result *r = build_result(0);
    char *text, *again;
    json_t *root = to_json(r, 0, &text);
    ck_assert_double_eq(json_real_value(json_object_get(root, "wall_ms")), 3.25);
    ck_assert_ptr_null(json_object_get(root, "links"));
    json_decref(root);
    tsched_free(text);

    root = to_json(r, TSCHED_SIM_JSON_LINKS | TSCHED_SIM_JSON_NO_TIMING, &text);
    ck_assert_ptr_null(json_object_get(root, "wall_ms"));
    json_t *links = json_object_get(root, "links");
    ck_assert_uint_eq(json_array_size(links), 2);
    json_t *l0 = json_array_get(links, 0), *l1 = json_array_get(links, 1);
    ck_assert_str_eq(json_string_value(json_object_get(l0, "a")), "leaf0");
    ck_assert_str_eq(json_string_value(json_object_get(l0, "b")), "spine1");
    ck_assert(json_is_null(json_object_get(l0, "member")));
    ck_assert_double_eq(json_number_value(json_object_get(l0, "gbps")), 400);
    ck_assert_double_eq(json_real_value(json_object_get(l0, "mean_util")), 0.25);
    ck_assert_double_eq(json_real_value(json_object_get(l0, "busy_frac")), 0.5);
    ck_assert(json_is_integer(json_object_get(l1, "member")));
    ck_assert_int_eq(json_integer_value(json_object_get(l1, "member")), 3);
    ck_order(text, "\"jobs\"", "\"links\"");
    ck_order(text, "\"a\"", "\"b\"");
    ck_order(text, "\"member\"", "\"gbps\"");
    ck_order(text, "\"mean_util\"", "\"busy_frac\"");
    json_decref(root);

    /* byte-identical output for the same result */
    ck_assert_ok(tsched_sim_result_to_json(&again, r, TSCHED_SIM_JSON_LINKS | TSCHED_SIM_JSON_NO_TIMING));
    ck_assert_str_eq(text, again);
    tsched_free(again);
    tsched_free(text);

    /* compact: one line, same document */
    root = to_json(r, TSCHED_SIM_JSON_COMPACT | TSCHED_SIM_JSON_LINKS, &text);
    ck_assert_ptr_null(strchr(text, '\n'));
    ck_assert_ptr_nonnull(json_object_get(root, "wall_ms"));
    ck_assert_uint_eq(json_array_size(json_object_get(root, "links")), 2);
    json_decref(root);
    tsched_free(text);

    /* arguments */
    ck_assert_status(tsched_sim_result_to_json(&text, r, 8), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flags");
    ck_assert_status(tsched_sim_result_to_json(NULL, r, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out");
    ck_assert_status(tsched_sim_result_to_json(&text, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("result");
    ck_assert_ptr_null(text);
    r->summary.status = 9;
    ck_assert_status(tsched_sim_result_to_json(&text, r, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("status");
    free_result(r);
}
END_TEST

START_TEST(json_unfinished_averages_are_null)
{
    /* no finished job: the engine leaves the averages as NaN; the writer says null */
    tsched_sim_result *r = build_result(0);
    r->summary.jobs_done = 0;
    r->summary.avg_jct_s = NAN;
    r->summary.status = TSCHED_SIM_STALLED;
    char *text;
    json_t *root = to_json(r, TSCHED_SIM_JSON_NO_TIMING, &text);
    ck_assert_str_eq(json_string_value(json_object_get(root, "status")), "stalled");
    ck_assert(json_is_null(json_object_get(json_object_get(root, "summary"), "avg_jct_s")));
    json_decref(root);
    tsched_free(text);
    free_result(r);
}
END_TEST

#define HEADER "time_s,gpu_util,alloc_gpus,busy_gpus_avg,running_jobs,queued_jobs,active_flows,link_util_mean,link_util_max\n"

START_TEST(csv_rows)
{
    tsched_sim_result *r = build_result(3);
    char *csv, *again;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    /* reals in the shortest text that reads back, as in JSON: "%.{p}g" plus ".0" */
    ck_assert_str_eq(csv, HEADER "0.0,0.0,8,0.0,1,10,100,0.0,0.5\n"
                              "1.0,0.25,16,2.0,2,11,101,0.125,0.625\n"
                              "2.0,0.5,24,4.0,3,12,102,0.25,0.75\n");
    /* the result's own interval given explicitly is the same */
    ck_assert_ok(tsched_sim_result_timeseries_csv(&again, r, 1000000000));
    ck_assert_str_eq(csv, again);
    tsched_free(again);
    tsched_free(csv);
    free_result(r);

    /* no samples: the header alone */
    r = build_result(0);
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 0));
    ck_assert_str_eq(csv, HEADER);
    tsched_free(csv);
    free_result(r);
}
END_TEST

START_TEST(csv_aggregates_by_two)
{
    /* 5 samples by 2: [0, 1], [2, 3], [4]; averages of the averages, counts of the first */
    tsched_sim_result *r = build_result(5);
    char *csv;
    ck_assert_ok(tsched_sim_result_timeseries_csv(&csv, r, 2000000000));
    ck_assert_str_eq(csv, HEADER "0.0,0.125,8,1.0,1,10,100,0.0625,0.5625\n"
                              "2.0,0.625,24,5.0,3,12,102,0.3125,0.8125\n"
                              "4.0,1.0,40,8.0,5,14,104,0.5,1.0\n");
    tsched_free(csv);
    free_result(r);
}
END_TEST

START_TEST(csv_bad_sample_ns)
{
    tsched_sim_result *r = build_result(4);
    char *csv = (char *)"x";
    ck_assert_status(tsched_sim_result_timeseries_csv(&csv, r, 1500000000), TSCHED_E_RANGE);
    ck_assert_errmsg_has("sample_ns");
    ck_assert_errmsg_has("1500000000");
    ck_assert_ptr_null(csv);
    ck_assert_status(tsched_sim_result_timeseries_csv(&csv, r, 500000000), TSCHED_E_RANGE);
    ck_assert_errmsg_has("sample_ns");
    ck_assert_status(tsched_sim_result_timeseries_csv(&csv, r, -1000000000), TSCHED_E_RANGE);
    ck_assert_errmsg_has("sample_ns");
    ck_assert_status(tsched_sim_result_timeseries_csv(NULL, r, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out");
    ck_assert_status(tsched_sim_result_timeseries_csv(&csv, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("result");
    free_result(r);
}
END_TEST

/* ---- readers (need the engine) -------------------------------------------------------- */

static tsched_topology *fabric;
static tsched_sim *sim;

static void sim_setup(void)
{
    ck_assert_ok(tsched_topology_load_file(&fabric, SIM_DATA "/fabric.json"));
    ck_assert_ok(tsched_sim_new(&sim, fabric));
}

static void sim_teardown(void)
{
    tsched_sim_free(sim);
    tsched_topology_free(fabric);
    sim = NULL;
    fabric = NULL;
}

static tsched_status load_trace(const char *doc) { return tsched_sim_load_trace_string(sim, doc, strlen(doc)); }
static tsched_status load_scenario(const char *doc)
{
    return tsched_sim_load_scenario_string(sim, doc, strlen(doc));
}

/* The snapshot call of sim.h, in one place. */
static tsched_sim_result *snapshot(void)
{
    tsched_sim_result *r = NULL;
    ck_assert_ok(tsched_sim_result_new(&r, sim));
    return r;
}

#define T_HEAD "{\"format\": \"tsched.trace.v1\", \"jobs\": ["
#define T_TAIL "]}"
/* A job that is valid on its own, with `extra` fields spliced in. */
#define T_JOB(extra) "{\"name\": \"j\", \"gpus\": 16, \"compute_ms\": 100, " extra "}"
#define T_PINNED(flow)                                                                                             \
    "{\"name\": \"p\", \"nodes\": [\"node1\", \"node2\"], \"compute_ms\": 100, \"iterations\": 2, "               \
    "\"phases\": [{\"flows\": [" flow "]}]}"

typedef struct bad_case {
    const char *doc;
    tsched_status status;
    const char *fragment;
} bad_case;

/* One per row of §8 a trace can trigger before the run (and the field rules of §4.1). */
static const bad_case bad_traces[] = {
    {"{\"format\": \"tsched.trace.v2\", \"jobs\": []}", TSCHED_E_FORMAT, "tsched.trace.v2"},
    {"{\"jobs\": []}", TSCHED_E_FORMAT, "format"},
    {T_HEAD "{\"name\": \"j\", \"gpus\": 16, \"compute_ms\": 0, \"iterations\": 1}" T_TAIL, TSCHED_E_RANGE,
     "jobs[0].compute_ms"},
    {T_HEAD "{\"name\": \"j\", \"gpus\": 16, \"compute_ms\": -5, \"iterations\": 1}" T_TAIL, TSCHED_E_RANGE,
     "jobs[0].compute_ms"},
    {T_HEAD T_JOB("\"iterations\": 1, \"overlap\": 1.5") T_TAIL, TSCHED_E_RANGE, "jobs[0].overlap"},
    {T_HEAD T_JOB("\"iterations\": 1, \"arrival_s\": -1") T_TAIL, TSCHED_E_RANGE, "jobs[0].arrival_s"},
    {T_HEAD T_JOB("\"iterations\": 1, \"arrival_s\": 1e300") T_TAIL, TSCHED_E_RANGE, "jobs[0].arrival_s"},
    {T_HEAD T_JOB("\"iterations\": 0") T_TAIL, TSCHED_E_RANGE, "jobs[0].iterations"},
    {T_HEAD T_JOB("\"iterations\": 1.5") T_TAIL, TSCHED_E_RANGE, "jobs[0].iterations"},
    {T_HEAD T_JOB("\"duration_s\": 0") T_TAIL, TSCHED_E_RANGE, "jobs[0].duration_s"},
    {T_HEAD T_JOB("\"iterations\": 1, \"work_tflop\": 0") T_TAIL, TSCHED_E_RANGE, "jobs[0].work_tflop"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"pattern\": \"dp-ring\", \"gbits\": 0}]") T_TAIL,
     TSCHED_E_RANGE, "jobs[0].phases[0].gbits"},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"gbits\": -2}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].gbits"},
    {T_HEAD T_JOB("\"iterations\": 1, \"duration_s\": 5") T_TAIL, TSCHED_E_INVALID, "jobs[0]: both"},
    {T_HEAD T_JOB("\"level\": 1") T_TAIL, TSCHED_E_INVALID, "jobs[0]: neither"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"pattern\": \"pp\", \"gbits\": 1, \"flows\": []}]") T_TAIL,
     TSCHED_E_INVALID, "jobs[0].phases[0]: both"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"repeat\": 2}]") T_TAIL, TSCHED_E_INVALID,
     "jobs[0].phases[0]: neither"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"pattern\": \"ring\", \"gbits\": 1}]") T_TAIL,
     TSCHED_E_FORMAT, "jobs[0].phases[0].pattern"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"pattern\": \"pp\"}]") T_TAIL, TSCHED_E_NOT_FOUND,
     "jobs[0].phases[0].gbits"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"pattern\": \"pp\", \"gbits\": 1, \"repeat\": 0}]") T_TAIL,
     TSCHED_E_RANGE, "jobs[0].phases[0].repeat"},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 2, \"gbits\": 1}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].dst: rank 2 out of range [0, 2)"},
    {T_HEAD T_PINNED("{\"src\": 5, \"dst\": 1, \"gbits\": 1}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].src: rank 5"},
    {T_HEAD T_PINNED("{\"src\": 1, \"dst\": 1, \"gbits\": 1}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].dst"},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"src_nic\": 8, \"gbits\": 1}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].src_nic: NIC 8"},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"dst_nic\": 9, \"gbits\": 1}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].phases[0].flows[0].dst_nic"},
    {T_HEAD T_JOB("\"iterations\": 1, \"phases\": [{\"flows\": [{\"src\": 0, \"dst\": 0, \"gbits\": 1}]}]")
         T_TAIL,
     TSCHED_E_RANGE, "jobs[0].phases[0].flows[0].dst"},
    {T_HEAD "{\"name\": \"p\", \"nodes\": [\"node1\", \"nodeX\"], \"compute_ms\": 1, \"iterations\": 1}" T_TAIL,
     TSCHED_E_NOT_FOUND, "jobs[0].nodes[1]: unknown node \"nodeX\""},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"gbits\": 1, \"hops\": [\"leaf0\", \"spineX\", \"leaf1\"]}")
         T_TAIL,
     TSCHED_E_NOT_FOUND, "jobs[0].phases[0].flows[0].hops[1]: unknown switch \"spineX\""},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"gbits\": 1, \"hops\": [\"leaf0\", \"leaf1\"]}") T_TAIL,
     TSCHED_E_NOT_FOUND, "hops[1]"},
    {T_HEAD T_PINNED("{\"src\": 0, \"dst\": 1, \"gbits\": 1, \"hops\": [\"leaf1\", \"spine0\", \"leaf0\"]}")
         T_TAIL,
     TSCHED_E_NOT_FOUND, "hops[0]"},
    {T_HEAD T_JOB("\"iterations\": 1") ", " T_JOB("\"iterations\": 2") T_TAIL, TSCHED_E_DUPLICATE,
     "jobs[1].name: duplicate job name \"j\""},
    {T_HEAD "{\"name\": \"p\", \"nodes\": [\"node1\", \"node1\"], \"compute_ms\": 1, \"iterations\": 1}" T_TAIL,
     TSCHED_E_DUPLICATE, "jobs[0].nodes[1]: node \"node1\" repeated"},
    {T_HEAD "{\"name\": \"p\", \"nodes\": [\"node1\", \"node2\"], \"gpus\": 8, \"compute_ms\": 1, "
            "\"iterations\": 1}" T_TAIL,
     TSCHED_E_RANGE, "jobs[0].gpus"},
    {T_HEAD "{\"name\": \"j\", \"gpus\": 64, \"compute_ms\": 1, \"iterations\": 1}" T_TAIL, TSCHED_E_RANGE,
     "jobs[0].gpus"},
    {T_HEAD "{\"name\": \"bad~name\", \"gpus\": 8, \"compute_ms\": 1, \"iterations\": 1}" T_TAIL,
     TSCHED_E_RANGE, "jobs[0].name"},
    {T_HEAD "{\"name\": \"j\", \"compute_ms\": 1, \"iterations\": 1}" T_TAIL, TSCHED_E_NOT_FOUND,
     "jobs[0].gpus"},
    {T_HEAD T_JOB("\"iterations\": 1, \"model\": {\"hidden\": 0}") T_TAIL, TSCHED_E_RANGE,
     "jobs[0].model.hidden"},
    {T_HEAD T_JOB("\"iterations\": 1, \"model\": {\"hidden\": 64}") T_TAIL, TSCHED_E_NOT_FOUND,
     "jobs[0].model.layers"},
    {T_HEAD T_JOB("\"iterations\": \"many\"") T_TAIL, TSCHED_E_TYPE, "jobs[0].iterations"},
    {T_HEAD "3" T_TAIL, TSCHED_E_TYPE, "jobs[0]"},
};

START_TEST(trace_bad_inputs)
{
    const bad_case *c = &bad_traces[_i];
    tsched_status st = load_trace(c->doc);
    ck_assert_msg(st == c->status, "case %d: %s, expected %s: %s", _i, tsched_status_str(st),
                  tsched_status_str(c->status), tsched_last_error());
    ck_assert_errmsg_has(c->fragment);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    /* nothing of a failed document stays: the same names load afterwards */
    ck_assert_ok(load_trace(T_HEAD T_JOB("\"iterations\": 1") ", " T_PINNED("{\"src\": 0, \"dst\": 1, \"gbits\": 1}")
                                T_TAIL));
}
END_TEST

START_TEST(trace_valid_documents)
{
    ck_assert_ok(tsched_sim_load_trace_file(sim, SIM_DATA "/trace.json"));
    tsched_sim_result *r = snapshot();
    ck_assert_uint_eq(tsched_sim_result_job_count(r), 3);
    tsched_sim_job_stats js;
    memset(&js, 0, sizeof js);
    js.size = sizeof js;
    ck_assert_ok(tsched_sim_result_job(&js, r, 0));
    ck_assert_str_eq(js.name, "gpt-a");
    ck_assert_int_eq(js.arrival_ns, 12500000000);
    ck_assert_uint_eq(js.gpus, 16);
    ck_assert_uint_eq(js.iterations, 300);
    ck_assert_ok(tsched_sim_result_job(&js, r, 1));
    ck_assert_str_eq(js.name, "pinned");
    ck_assert_uint_eq(js.gpus, 16); /* the sum of its nodes' GPUs */
    ck_assert_ok(tsched_sim_result_job(&js, r, 2));
    ck_assert_str_eq(js.name, "small");
    tsched_sim_result_free(r);

    /* the same names again: duplicates of jobs already in the simulation, named by path */
    ck_assert_status(tsched_sim_load_trace_file(sim, SIM_DATA "/trace.json"), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("jobs[0]");
    /* and the failed load added nothing */
    r = snapshot();
    ck_assert_uint_eq(tsched_sim_result_job_count(r), 3);
    tsched_sim_result_free(r);

    /* an empty trace is fine */
    ck_assert_ok(load_trace(T_HEAD T_TAIL));
}
END_TEST

START_TEST(trace_partial_document_is_dropped)
{
    /* job 0 is added, job 1 fails: job 0 must go too */
    ck_assert_status(load_trace(T_HEAD "{\"name\": \"a\", \"gpus\": 8, \"compute_ms\": 1, \"iterations\": 1}, "
                                       "{\"name\": \"b\", \"gpus\": 8, \"compute_ms\": 1}" T_TAIL),
                     TSCHED_E_INVALID);
    ck_assert_errmsg_has("jobs[1]");
    tsched_sim_result *r = snapshot();
    ck_assert_uint_eq(tsched_sim_result_job_count(r), 0);
    tsched_sim_result_free(r);
    ck_assert_ok(load_trace(T_HEAD "{\"name\": \"a\", \"gpus\": 8, \"compute_ms\": 1, \"iterations\": 1}" T_TAIL));
}
END_TEST

/* 100,000 jobs load in linear time (names are hashed, issue 21): about half a second of CPU
 * on an idle machine (it was 40 s when each name was compared with all earlier ones); the
 * bound leaves room for a loaded one. A repeated name is still found, at the end. */
START_TEST(trace_many_jobs)
{
    /* 30,000 under valgrind: the quadratic load (40 s natively at 100,000, 3.6 s at 30,000)
     * would still break the bound there */
    uint32_t n = tu_valgrind() ? 30000 : 100000;
    size_t cap = (size_t)n * 96 + 256, len = 0;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    len += (size_t)snprintf(doc + len, cap - len, T_HEAD);
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"name\": \"job-%u\", \"arrival_s\": %u, \"gpus\": 8, \"compute_ms\": 1, "
                                "\"iterations\": 1}", i ? ", " : "", i, i);
    len += (size_t)snprintf(doc + len, cap - len, T_TAIL);
    ck_assert_uint_lt(len, cap);
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    ck_assert_ok(load_trace(doc));
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    ck_assert_msg(took < (tu_slow() ? 60.0 : 3.0), "%u jobs took %.2f s of CPU", n, took);
    tsched_sim_result *r = snapshot();
    ck_assert_uint_eq(tsched_sim_result_job_count(r), n);
    tsched_sim_result_free(r);
    char last[192], lastname[32];
    snprintf(lastname, sizeof lastname, "job-%u", n - 1);
    snprintf(last, sizeof last, T_HEAD "{\"name\": \"%s\", \"gpus\": 8, \"compute_ms\": 1, \"iterations\": 1}" T_TAIL,
             lastname);
    ck_assert_status(load_trace(last), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("jobs[0]");
    ck_assert_errmsg_has(lastname);
    free(doc);
}
END_TEST

START_TEST(trace_engine_rules)
{
    /* rules the engine judges (sizes against the fabric's nodes, levels under "fixed"):
     * whichever call reports them, the status is §8's and the job is named */
    tsched_status st = load_trace(T_HEAD "{\"name\": \"odd\", \"gpus\": 12, \"compute_ms\": 1, \"iterations\": 1}"
                                  T_TAIL);
    if (st == TSCHED_OK)
        st = tsched_sim_run_until(sim, INT64_MAX);
    ck_assert_int_eq(st, TSCHED_E_RANGE);
    ck_assert_msg(strstr(tsched_last_error(), "odd") || strstr(tsched_last_error(), "jobs[0]"),
                  "message names the job: %s", tsched_last_error());
}
END_TEST

START_TEST(trace_level_under_fixed)
{
    ck_assert_ok(load_scenario("{\"format\": \"tsched.scenario.v1\", \"priority\": \"fixed\", \"levels\": 2}"));
    tsched_status st = load_trace(T_HEAD "{\"name\": \"hi\", \"gpus\": 8, \"compute_ms\": 1, \"iterations\": 1, "
                                         "\"level\": 5}" T_TAIL);
    if (st == TSCHED_OK)
        st = tsched_sim_run_until(sim, INT64_MAX);
    ck_assert_int_eq(st, TSCHED_E_RANGE);
    ck_assert_errmsg_has("5");
    ck_assert_errmsg_has("2");
}
END_TEST

START_TEST(trace_arguments_and_files)
{
    ck_assert_status(tsched_sim_load_trace_string(NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_errmsg_has("sim");
    ck_assert_status(tsched_sim_load_trace_string(sim, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("json");
    ck_assert_status(tsched_sim_load_trace_file(sim, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("path");
    ck_assert_status(tsched_sim_load_trace_file(NULL, "x"), TSCHED_E_INVALID);
    ck_assert_errmsg_has("sim");
    ck_assert_status(tsched_sim_load_trace_file(sim, SIM_DATA "/no-such-trace.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("no-such-trace.json");
    ck_assert_status(load_trace("{\"format\": \"tsched.trace.v1\", \"jobs\": [}"), TSCHED_E_PARSE);
    ck_assert_status(load_trace("{\"format\": \"tsched.trace.v1\"}"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("jobs");
}
END_TEST

#define S_HEAD "{\"format\": \"tsched.scenario.v1\", "

static const bad_case bad_scenarios[] = {
    {"{\"format\": \"tsched.scenario.v2\"}", TSCHED_E_FORMAT, "tsched.scenario.v2"},
    {S_HEAD "\"queue\": \"lifo\"}", TSCHED_E_FORMAT, "queue"},
    {S_HEAD "\"queue\": \"lifo\"}", TSCHED_E_FORMAT, "fifo"},
    {S_HEAD "\"links\": \"bundle\"}", TSCHED_E_FORMAT, "links"},
    {S_HEAD "\"placement\": \"worst-fit\"}", TSCHED_E_FORMAT, "placement"},
    {S_HEAD "\"routing\": \"magic\"}", TSCHED_E_FORMAT, "routing"},
    {S_HEAD "\"reroute\": \"always\"}", TSCHED_E_FORMAT, "reroute"},
    {S_HEAD "\"priority\": \"vip\"}", TSCHED_E_FORMAT, "priority"},
    {S_HEAD "\"placement\": \"cruis\"}", TSCHED_E_FORMAT, "crius"}, /* among the accepted names */
    {S_HEAD "\"queue\": 3}", TSCHED_E_TYPE, "queue"},
    {S_HEAD "\"seed\": 1.5}", TSCHED_E_RANGE, "seed"},
    {S_HEAD "\"seed\": -1}", TSCHED_E_RANGE, "seed"},
    {S_HEAD "\"levels\": 2.5}", TSCHED_E_RANGE, "levels"},
    {S_HEAD "\"until_s\": -3}", TSCHED_E_RANGE, "until_s"},
    {S_HEAD "\"until_s\": 1e300}", TSCHED_E_RANGE, "until_s"},
    {S_HEAD "\"measure\": {\"from_s\": -1}}", TSCHED_E_RANGE, "measure.from_s"},
    {S_HEAD "\"measure\": 5}", TSCHED_E_TYPE, "measure"},
    {S_HEAD "\"sample_ms\": null}", TSCHED_E_TYPE, "sample_ms"},
    {S_HEAD "\"max_sim_iterations\": 0.5}", TSCHED_E_RANGE, "max_sim_iterations"},
    {S_HEAD "\"phase_latency_us\": -1}", TSCHED_E_RANGE, "phase_latency_us"},
    {S_HEAD "\"measure\": {\"from_s\": 3, \"to_s\": 1}}", TSCHED_E_RANGE, "measure.to_s"},
    {S_HEAD "\"failures\": [{\"at_s\": -1, \"down\": [\"spine0\"]}]}", TSCHED_E_RANGE, "failures[0].at_s"},
    {S_HEAD "\"failures\": [{\"down\": [\"spine0\"]}]}", TSCHED_E_NOT_FOUND, "failures[0].at_s"},
    {S_HEAD "\"failures\": [{\"at_s\": 1, \"down\": [3]}]}", TSCHED_E_TYPE, "failures[0].down[0]"},
    {S_HEAD "\"failures\": [{\"at_s\": 1, \"down\": [\"spine0\"]}, {\"at_s\": 2, \"up\": [\"spineX\"]}]}",
     TSCHED_E_NOT_FOUND, "spineX"},
    {S_HEAD "\"failures\": [{\"at_s\": 1, \"down\": [\"spine0\"]}, {\"at_s\": 2, \"up\": [\"spineX\"]}]}",
     TSCHED_E_NOT_FOUND, "failures[1].up[0]"},
    {S_HEAD "\"name\": \"bad\\u0001name\"}", TSCHED_E_RANGE, "name"},
    {"[1]", TSCHED_E_TYPE, "document"},
};

START_TEST(scenario_bad_inputs)
{
    const bad_case *c = &bad_scenarios[_i];
    tsched_status st = load_scenario(c->doc);
    ck_assert_msg(st == c->status, "case %d: %s, expected %s: %s", _i, tsched_status_str(st),
                  tsched_status_str(c->status), tsched_last_error());
    ck_assert_errmsg_has(c->fragment);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
}
END_TEST

START_TEST(scenario_valid_documents)
{
    ck_assert_ok(tsched_sim_load_scenario_file(sim, SIM_DATA "/scenario.json"));
    ck_assert_ok(load_scenario("{\"format\": \"tsched.scenario.v1\"}"));
    ck_assert_ok(load_scenario(S_HEAD "\"until_s\": 100, \"measure\": {\"from_s\": 10, \"to_s\": 90}, "
                                      "\"links\": \"member\", \"queue\": \"ff\", \"reroute\": \"refresh\", "
                                      "\"priority\": \"crux\", \"seed\": 9007199254740992, \"extra\": [1]}"));
    ck_assert_ok(load_scenario(S_HEAD "\"measure\": null, \"until_s\": null}"));
    /* the name reaches the result */
    ck_assert_ok(load_scenario(S_HEAD "\"name\": \"my-run\"}"));
    tsched_sim_result *r = snapshot();
    char *text;
    ck_assert_ok(tsched_sim_result_to_json(&text, r, TSCHED_SIM_JSON_NO_TIMING));
    ck_assert_ptr_nonnull(strstr(text, "\"scenario\": \"my-run\""));
    tsched_free(text);
    tsched_sim_result_free(r);

    ck_assert_status(tsched_sim_load_scenario_string(NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_errmsg_has("sim");
    ck_assert_status(tsched_sim_load_scenario_file(sim, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("path");
    ck_assert_status(tsched_sim_load_scenario_file(sim, SIM_DATA "/no-such-scenario.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("no-such-scenario.json");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim-io");
    TCase *w = tcase_create("writers");
    tcase_add_test(w, sim_ns_rounds_to_nearest_and_saturates);
    tcase_add_test(w, names_of_enums);
    tcase_add_test(w, json_fields_and_order);
    tcase_add_test(w, json_flags);
    tcase_add_test(w, json_unfinished_averages_are_null);
    tcase_add_test(w, csv_rows);
    tcase_add_test(w, csv_aggregates_by_two);
    tcase_add_test(w, csv_bad_sample_ns);
    suite_add_tcase(s, w);

    TCase *rd = tcase_create("readers");
    tcase_add_checked_fixture(rd, sim_setup, sim_teardown);
    tcase_add_loop_test(rd, trace_bad_inputs, 0, (int)(sizeof bad_traces / sizeof bad_traces[0]));
    tcase_add_test(rd, trace_valid_documents);
    tcase_add_test(rd, trace_partial_document_is_dropped);
    tcase_add_test(rd, trace_engine_rules);
    tcase_add_test(rd, trace_level_under_fixed);
    tcase_add_test(rd, trace_arguments_and_files);
    tcase_add_loop_test(rd, scenario_bad_inputs, 0, (int)(sizeof bad_scenarios / sizeof bad_scenarios[0]));
    tcase_add_test(rd, scenario_valid_documents);
    TCase *big = tcase_create("big");
    tcase_add_checked_fixture(big, sim_setup, sim_teardown);
    tcase_set_timeout(big, 120);
    tcase_add_test(big, trace_many_jobs);
    suite_add_tcase(s, rd);
    suite_add_tcase(s, big);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
