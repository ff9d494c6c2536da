/* The service (doc/serve.md): every op, error answers naming the field, attach/detach, state
 * updates seen by the next place, ids echoed as given, bad requests. */
#include <jansson.h>

#include "test_util.h"

/* A document of tests/data, parsed. */
static json_t *doc(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", TSCHED_TEST_DATA, rel);
    json_error_t e;
    json_t *d = json_load_file(p, 0, &e);
    ck_assert_msg(d != NULL, "%s: %s", p, e.text);
    return d;
}

/* Answer `req` (a JSON object, taken); the answer, parsed, checked for shape. */
static json_t *ask_json(tsched_service *svc, json_t *req, int *stop)
{
    char *text = json_dumps(req, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(req);
    ck_assert(text != NULL);
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, stop, svc, text, strlen(text)));
    free(text);
    ck_assert(answer != NULL);
    ck_assert_msg(strchr(answer, '\n') == NULL, "answer on one line: %s", answer);
    json_error_t e;
    json_t *a = json_loads(answer, 0, &e);
    ck_assert_msg(a != NULL, "answer is JSON: %s: %s", answer, e.text);
    ck_assert_msg(json_is_object(a) && json_object_get(a, "id") && json_is_boolean(json_object_get(a, "ok")),
                  "answer shape: %s", answer);
    if (json_is_true(json_object_get(a, "ok")))
        ck_assert_msg(json_object_size(a) == 3 && json_object_get(a, "result"), "ok answer: %s", answer);
    else
        ck_assert_msg(json_object_size(a) == 5 && json_is_integer(json_object_get(a, "exit")) &&
                          json_is_string(json_object_get(a, "status")) && json_is_string(json_object_get(a, "error")),
                      "error answer: %s", answer);
    tsched_free(answer);
    return a;
}

/* Answer a request written as text. */
static json_t *ask_text(tsched_service *svc, const char *text)
{
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, text, strlen(text)));
    json_t *a = json_loads(answer, 0, NULL);
    ck_assert_msg(a != NULL, "answer is JSON: %s", answer);
    tsched_free(answer);
    return a;
}

static int is_ok(const json_t *a) { return json_is_true(json_object_get(a, "ok")); }

static const json_t *result(const json_t *a)
{
    ck_assert_msg(is_ok(a), "expected ok, got %s", json_string_value(json_object_get(a, "error")));
    return json_object_get(a, "result");
}

/* The answer is an error with this status and exit, its message containing `needle`. */
static void expect_error(json_t *a, const char *status, int exit_code, const char *needle)
{
    const char *err = json_string_value(json_object_get(a, "error"));
    ck_assert_msg(!is_ok(a), "expected an error naming \"%s\", got ok", needle);
    ck_assert_msg(!strcmp(json_string_value(json_object_get(a, "status")), status), "status %s, want %s (%s)",
                  json_string_value(json_object_get(a, "status")), status, err);
    ck_assert_int_eq(json_integer_value(json_object_get(a, "exit")), exit_code);
    ck_assert_msg(strstr(err, needle) != NULL, "error \"%s\" lacks \"%s\"", err, needle);
    ck_assert_msg(strchr(err, '\n') == NULL, "one-line error");
    json_decref(a);
}

static const char *fmt_of(const json_t *a)
{
    const char *f = json_string_value(json_object_get(result(a), "format"));
    return f ? f : "";
}

static void load(tsched_service *svc, const char *name, const char *rel)
{
    json_t *a = ask_json(svc, json_pack("{ss ss so}", "op", "load-topology", "name", name, "topology", doc(rel)), NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.topology-summary.v1");
    json_decref(a);
}

/* The node names of a placement result. */
static size_t placed_nodes(const json_t *pl, const char **names, size_t cap)
{
    size_t i, n = 0;
    json_t *cell;
    json_array_foreach(json_object_get(pl, "assignment"), i, cell)
    {
        ck_assert(n < cap);
        names[n++] = json_string_value(json_object_get(cell, "node"));
    }
    return n;
}

START_TEST(ids_echoed)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    const char *ids[] = {"null", "\"x\"", "0", "-12", "0.5", "1e300", "true", "false", "[1,[2,{}]]",
                         "{\"a\":{\"b\":[null]}}", "\"\\u00e9\\n\""};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char req[256];
        snprintf(req, sizeof req, "{\"op\": \"version\", \"id\": %s}", ids[i]);
        json_t *a = ask_text(svc, req), *want = json_loads(ids[i], JSON_DECODE_ANY, NULL);
        ck_assert_msg(json_equal(json_object_get(a, "id"), want), "id %s echoed", ids[i]);
        ck_assert_str_eq(json_string_value(json_object_get(result(a), "version")), tsched_version());
        json_decref(want);
        json_decref(a);
        /* and in error answers */
        snprintf(req, sizeof req, "{\"id\": %s, \"op\": \"nope\"}", ids[i]);
        a = ask_text(svc, req);
        want = json_loads(ids[i], JSON_DECODE_ANY, NULL);
        ck_assert_msg(!is_ok(a) && json_equal(json_object_get(a, "id"), want), "id %s echoed in an error", ids[i]);
        json_decref(want);
        json_decref(a);
    }
    json_t *a = ask_text(svc, "{\"op\": \"version\"}");
    ck_assert(json_is_null(json_object_get(a, "id")));
    json_decref(a);
    tsched_service_free(svc);
}
END_TEST

START_TEST(bad_requests)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    expect_error(ask_text(svc, "not json"), "TSCHED_E_PARSE", 2, "request: line 1");
    expect_error(ask_text(svc, "{\"id\": 1, \"op\": \"version\""), "TSCHED_E_PARSE", 2, "request");
    expect_error(ask_text(svc, "{\"op\": \"version\", \"op\": \"version\"}"), "TSCHED_E_PARSE", 2, "duplicate");
    expect_error(ask_text(svc, "[1]"), "TSCHED_E_TYPE", 2, "request: expected an object");
    expect_error(ask_text(svc, "{\"id\": 2}"), "TSCHED_E_NOT_FOUND", 2, "op: missing");
    expect_error(ask_text(svc, "{\"op\": 7}"), "TSCHED_E_TYPE", 2, "op: expected a string");
    expect_error(ask_text(svc, "{\"op\": \"frobnicate\"}"), "TSCHED_E_FORMAT", 2, "op: unknown operation \"frobnicate\"");
    /* names from the request never break the one-line message */
    expect_error(ask_text(svc, "{\"op\": \"a\\nb\\u0001\"}"), "TSCHED_E_FORMAT", 2, "\"a\\nb\\x01\"");
    expect_error(ask_text(svc, "{\"op\": \"version\", \"topology\": 1}"), "TSCHED_E_FORMAT", 2,
                 "topology: unknown field for op \"version\"");
    expect_error(ask_text(svc, "{\"op\": \"version\", \"options\": {}}"), "TSCHED_E_FORMAT", 2, "options: unknown field");
    expect_error(ask_text(svc, "{\"op\": \"kcut\", \"dag\": {}, \"options\": []}"), "TSCHED_E_TYPE", 2,
                 "options: expected an object");
    /* NUL bytes inside the line are not JSON */
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, "{\"op\":\0\"version\"}", 18));
    ck_assert_ptr_nonnull(strstr(answer, "\"ok\":false"));
    tsched_free(answer);
    /* no answer possible */
    int stop = 5;
    ck_assert_status(tsched_service_handle(NULL, &stop, svc, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_service_handle(&answer, &stop, NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_ptr_null(answer);
    ck_assert_status(tsched_service_handle(&answer, &stop, svc, NULL, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("request");
    ck_assert_status(tsched_service_new(NULL), TSCHED_E_INVALID);
    tsched_service_free(NULL);
    tsched_service_free(svc);
}
END_TEST

START_TEST(errors_name_the_field)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    static const struct {
        const char *req, *status, *needle;
        int exit;
    } cases[] = {
        {"{\"op\":\"load-topology\",\"topology\":{}}", "TSCHED_E_NOT_FOUND", "name: missing", 2},
        {"{\"op\":\"load-topology\",\"name\":\"x\"}", "TSCHED_E_NOT_FOUND", "topology: missing", 2},
        {"{\"op\":\"load-topology\",\"name\":\"x\",\"topology\":[1]}", "TSCHED_E_TYPE", "topology: expected a document", 2},
        {"{\"op\":\"load-topology\",\"name\":\"x\",\"topology\":{\"format\":\"tsched.topology.v9\"}}", "TSCHED_E_FORMAT",
         "topology: ", 2},
        {"{\"op\":\"load-topology\",\"name\":\"\",\"topology\":{}}", "TSCHED_E_FORMAT", "name: expected a non-empty", 2},
        {"{\"op\":\"place\",\"topology\":\"c\"}", "TSCHED_E_NOT_FOUND", "job: missing required field", 2},
        {"{\"op\":\"place\",\"topology\":\"zz\",\"job\":{}}", "TSCHED_E_NOT_FOUND", "topology: no fabric named \"zz\"", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{\"format\":\"tsched.job.v1\"}}", "TSCHED_E_NOT_FOUND", "job: ", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":\"{\\\"format\\\": 1\"}", "TSCHED_E_PARSE", "job: line 1", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"seed\":-1}}", "TSCHED_E_RANGE",
         "options.seed: -1 is negative", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"seed\":\"x1\"}}", "TSCHED_E_RANGE",
         "options.seed: \"x1\" is not a whole number", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"alpha\":2}}", "TSCHED_E_RANGE", "options.alpha", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"algo\":\"fast\"}}", "TSCHED_E_FORMAT",
         "options.algo: unknown placement algorithm", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"no-timing\":1}}", "TSCHED_E_TYPE",
         "options.no-timing: expected true or false", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"hostfile\":\"h\"}}", "TSCHED_E_FORMAT",
         "options.hostfile: unknown option for op \"place\"", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{\"format\":\"tsched.job.v1\",\"name\":\"h\",\"gpus\":4096,"
         "\"tp\":8,\"pp\":8}}",
         "TSCHED_E_INFEASIBLE", "", 1},
        {"{\"op\":\"update\",\"name\":\"c\"}", "TSCHED_E_NOT_FOUND", "state: missing", 2},
        {"{\"op\":\"update\",\"name\":\"zz\",\"state\":{}}", "TSCHED_E_NOT_FOUND", "name: no fabric named \"zz\"", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"free\":{}}}", "TSCHED_E_FORMAT", "state.free: unknown field", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"free_gpus\":{\"node2\":9}}}", "TSCHED_E_RANGE",
         "state.free_gpus.node2", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"free_gpus\":{\"node99\":1}}}", "TSCHED_E_NOT_FOUND",
         "state.free_gpus.node99: no node named", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":[\"node1\",3]}}", "TSCHED_E_TYPE",
         "state.down[1]: expected a name", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":[\"node1\"],\"up\":[\"leaf0\",\"nope\"]}}",
         "TSCHED_E_NOT_FOUND", "state.up[1]", 2},
        {"{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":\"node1\"}}", "TSCHED_E_TYPE", "state.down", 2},
        {"{\"op\":\"unload\",\"name\":\"zz\"}", "TSCHED_E_NOT_FOUND", "name: no fabric named \"zz\"", 2},
        {"{\"op\":\"flows\",\"topology\":\"c\",\"placement\":{}}", "TSCHED_E_NOT_FOUND", "options.pattern: missing", 2},
        {"{\"op\":\"flows\",\"topology\":\"c\",\"placement\":{},\"options\":{\"pattern\":\"ring\",\"gbits\":1}}",
         "TSCHED_E_FORMAT", "options.pattern", 2},
        {"{\"op\":\"flows\",\"topology\":\"c\",\"placement\":{},\"options\":{\"pattern\":\"pp\"}}", "TSCHED_E_NOT_FOUND",
         "options.gbits", 2},
        {"{\"op\":\"route\",\"topology\":\"c\",\"flows\":{},\"options\":{\"threads\":65}}", "TSCHED_E_RANGE",
         "options.threads: 65 is out of range", 2},
        {"{\"op\":\"route\",\"topology\":\"c\",\"flows\":{\"format\":\"tsched.flows.v1\",\"flows\":[{\"src\":\"node0\","
         "\"dst\":\"nodeX\",\"gbits\":1}]}}",
         "TSCHED_E_NOT_FOUND", "flows: flows[0].dst", 2},
        {"{\"op\":\"kcut\",\"dag\":{}}", "TSCHED_E_NOT_FOUND", "options.levels: missing required option", 2},
        {"{\"op\":\"kcut\",\"dag\":{},\"options\":{\"levels\":2.5}}", "TSCHED_E_RANGE", "options.levels", 2},
        {"{\"op\":\"prioritize\",\"topology\":\"c\",\"options\":{\"levels\":2}}", "TSCHED_E_NOT_FOUND", "jobset: missing",
         2},
        {"{\"op\":\"vclos\",\"topology\":\"c\",\"requests\":{},\"options\":{\"step\":1}}", "TSCHED_E_NOT_FOUND",
         "options.step: needs options.pattern", 2},
        {"{\"op\":\"vclos\",\"topology\":\"c\",\"requests\":{},\"options\":{\"mode\":\"x\"}}", "TSCHED_E_FORMAT",
         "options.mode: \"x\" unknown", 2},
        {"{\"op\":\"crius-schedule\",\"topology\":\"c\",\"queue\":{},\"options\":{\"depth\":17}}", "TSCHED_E_RANGE",
         "options.depth", 2},
        {"{\"op\":\"cells\",\"topology\":\"c\",\"job\":{},\"options\":{\"gpus\":0}}", "TSCHED_E_RANGE", "options.gpus", 2},
        {"{\"op\":\"simulate\",\"topology\":\"c\",\"trace\":{},\"options\":{\"until\":-1}}", "TSCHED_E_RANGE",
         "options.until", 2},
        {"{\"op\":\"simulate\",\"topology\":\"c\"}", "TSCHED_E_NOT_FOUND", "trace: missing", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(ask_text(svc, cases[i].req), cases[i].status, cases[i].exit, cases[i].needle);
    /* cells: the library names the option */
    json_t *r = json_pack("{ss ss so s{ss}}", "op", "cells", "topology", "c", "job", doc("cell/cli/job-small.json"),
                          "options", "type", "X9");
    expect_error(ask_json(svc, r, NULL), "TSCHED_E_NOT_FOUND", 2, "options.type: no pool of gpu type \"X9\"");
    r = json_pack("{ss ss so}", "op", "cells", "topology", "c", "job", doc("cell/cli/job-nomodel.json"));
    expect_error(ask_json(svc, r, NULL), "TSCHED_E_NOT_FOUND", 2, "job: model: missing");
    tsched_service_free(svc);
}
END_TEST

/* Every op answers the document its CLI command prints: the format, and for place and route
 * the same document as the library's own calls. */
START_TEST(every_op)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    json_t *job = doc("cli/job.json");
    json_t *a = ask_json(svc,
                         json_pack("{si ss ss sO s{ss sb}}", "id", 1, "op", "place", "topology", "c", "job", job,
                                   "options", "algo", "best-fit", "no-timing", 1),
                         NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.placement.v1");
    /* the library's own answer */
    {
        char p[512], *text = NULL;
        tsched_topology *t = NULL;
        tsched_job *j = NULL;
        tsched_placement *pl = NULL;
        tsched_place_options o;
        tsched_place_options_init(&o);
        o.algo = TSCHED_PLACE_BEST_FIT;
        snprintf(p, sizeof p, "%s/cli/cluster.json", TSCHED_TEST_DATA);
        ck_assert_ok(tsched_topology_load_file(&t, p));
        snprintf(p, sizeof p, "%s/cli/job.json", TSCHED_TEST_DATA);
        ck_assert_ok(tsched_job_load_file(&j, p));
        ck_assert_ok(tsched_place(&pl, t, j, &o));
        ck_assert_ok(tsched_placement_to_json(&text, pl, t, tsched_job_name(j), 0));
        json_t *want = json_loads(text, 0, NULL);
        ck_assert(json_equal(want, result(a)));
        json_decref(want);
        tsched_free(text);
        tsched_placement_free(pl);
        tsched_job_free(j);
        tsched_topology_free(t);
    }
    /* flows on that placement, then route them */
    json_t *f = ask_json(svc,
                         json_pack("{ss ss sO s{ss sf}}", "op", "flows", "topology", "c", "placement", result(a),
                                   "options", "pattern", "alltoall", "gbits", 4.0),
                         NULL);
    ck_assert_str_eq(fmt_of(f), "tsched.flows.v1");
    ck_assert_int_gt(json_array_size(json_object_get(result(f), "flows")), 0);
    json_t *r = ask_json(svc,
                         json_pack("{ss ss sO s{ss}}", "op", "route", "topology", "c", "flows", result(f), "options",
                                   "algo", "ecmp"),
                         NULL);
    ck_assert_str_eq(fmt_of(r), "tsched.routes.v1");
    ck_assert_msg(json_object_get(result(r), "solve_ms") != NULL, "solve_ms without no-timing");
    json_decref(r);
    /* with the job (it has no model: gbits is needed), the placement as a string of JSON text */
    char *pltext = json_dumps(result(a), JSON_COMPACT);
    r = ask_json(svc,
                 json_pack("{ss ss ss sO s{ss}}", "op", "flows", "topology", "c", "placement", pltext, "job", job,
                           "options", "pattern", "dp-ring"),
                 NULL);
    const char *err = json_string_value(json_object_get(r, "error"));
    ck_assert_msg(!is_ok(r) && strstr(err, "gbits"), "%s", err);
    json_decref(r);
    r = ask_json(svc,
                 json_pack("{ss ss ss sO s{ss ss}}", "op", "flows", "topology", "c", "placement", pltext, "job", job,
                           "options", "pattern", "dp-ring", "gbits", "2.5"),
                 NULL);
    ck_assert_str_eq(fmt_of(r), "tsched.flows.v1");
    free(pltext);
    json_decref(r);
    json_decref(f);
    json_decref(a);
    json_decref(job);

    load(svc, "p", "priority/crux-topo.json");
    a = ask_json(svc,
                 json_pack("{ss ss so s{si}}", "op", "prioritize", "topology", "p", "jobset",
                           doc("priority/crux-jobset.json"), "options", "levels", 4),
                 NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.priorities.v1");
    json_decref(a);
    a = ask_json(svc, json_pack("{ss so s{ss}}", "op", "kcut", "dag", doc("priority/dag-small.json"), "options", "levels", "2"),
                 NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.levels.v1");
    json_decref(a);
    load(svc, "v", "vclos-leaf-spine.json");
    a = ask_json(svc,
                 json_pack("{ss ss so s{sb}}", "op", "vclos", "topology", "v", "requests", doc("vclos-requests.json"),
                           "options", "no-timing", 1),
                 NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.vclos.v1");
    json_decref(a);
    load(svc, "h", "cell/cli/hetero.json");
    a = ask_json(svc,
                 json_pack("{ss ss so so s{sb}}", "op", "cells", "topology", "h", "job", doc("cell/cli/job-small.json"),
                           "catalog", doc("cell/cli/gpus.json"), "options", "no-timing", 1),
                 NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.cells.v1");
    ck_assert_int_gt(json_array_size(json_object_get(result(a), "cells")), 0);
    json_decref(a);
    a = ask_json(svc,
                 json_pack("{ss ss so s{sb}}", "op", "crius-schedule", "topology", "h", "queue", doc("cell/cli/queue.json"),
                           "options", "no-timing", 1),
                 NULL);
    ck_assert_str_eq(fmt_of(a), "tsched.crius-schedule.v1");
    json_decref(a);
    load(svc, "s", "sim/fabric.json");
    for (int i = 0; i < 2; i++) { /* the run leaves the loaded fabric as it was: same answer twice */
        a = ask_json(svc,
                     json_pack("{ss ss so so s{sb}}", "op", "simulate", "topology", "s", "trace", doc("sim/trace.json"),
                               "scenario", doc("sim/scenario.json"), "options", "no-timing", 1),
                     NULL);
        ck_assert_str_eq(fmt_of(a), "tsched.simresult.v1");
        static json_t *first;
        if (i == 0)
            first = json_incref((json_t *)result(a));
        else {
            ck_assert(json_equal(first, result(a)));
            json_decref(first);
        }
        json_decref(a);
    }
    int stop = 0;
    a = ask_json(svc, json_pack("{ss si}", "op", "unload", "id", 3), &stop);
    expect_error(a, "TSCHED_E_NOT_FOUND", 2, "name: missing");
    a = ask_json(svc, json_pack("{ss ss}", "op", "unload", "name", "s"), &stop);
    ck_assert(is_ok(a) && json_is_null(json_object_get(a, "result")) && stop == 0);
    json_decref(a);
    a = ask_json(svc, json_pack("{ss}", "op", "shutdown"), &stop);
    ck_assert(is_ok(a) && json_is_null(json_object_get(a, "result")) && stop == 1);
    json_decref(a);
    a = ask_json(svc, json_pack("{ss}", "op", "version"), &stop);
    ck_assert_int_eq(stop, 0);
    json_decref(a);
    tsched_service_free(svc);
}
END_TEST

/* A placement never uses nodes an earlier update took away (free_gpus 0, or down), and nodes
 * put back (up, free_gpus) are usable again. */
START_TEST(updates_seen_by_place)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    json_t *job = json_pack("{ss ss si si si}", "format", "tsched.job.v1", "name", "j", "gpus", 16, "tp", 8, "pp", 1);
    const char *taken[64];
    size_t ntaken = 0;
    int rounds = 0;
    for (;; rounds++) {
        json_t *a = ask_json(svc,
                             json_pack("{ss ss sO s{ss}}", "op", "place", "topology", "c", "job", job, "options", "algo",
                                       rounds % 2 ? "best-fit" : "mip"),
                             NULL);
        if (!is_ok(a)) {
            ck_assert_int_eq(json_integer_value(json_object_get(a, "exit")), 1);
            json_decref(a);
            break;
        }
        const char *nodes[8];
        size_t n = placed_nodes(result(a), nodes, 8);
        ck_assert_int_eq(n, 2);
        json_t *free_gpus = json_object(), *down = json_array();
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < ntaken; k++)
                ck_assert_msg(strcmp(nodes[i], taken[k]) != 0, "round %d placed %s, taken away before", rounds, nodes[i]);
            /* alternately busy and down */
            if (i % 2)
                json_array_append_new(down, json_string(nodes[i]));
            else
                json_object_set_new(free_gpus, nodes[i], json_integer(0));
            ck_assert(ntaken < 64);
            taken[ntaken++] = strdup(nodes[i]);
        }
        json_decref(a);
        a = ask_json(svc,
                     json_pack("{ss ss s{so so s[]}}", "op", "update", "name", "c", "state", "free_gpus", free_gpus,
                               "down", down, "up"),
                     NULL);
        ck_assert_str_eq(fmt_of(a), "tsched.topology-summary.v1");
        json_decref(a);
    }
    ck_assert_int_ge(rounds, 4);
    /* put one back: placement succeeds again, on nodes that were freed */
    json_t *up = json_array(), *fg = json_object();
    for (size_t k = 0; k < ntaken; k++) {
        json_array_append_new(up, json_string(taken[k]));
        json_object_set_new(fg, taken[k], json_integer(8));
    }
    json_t *a = ask_json(svc, json_pack("{ss ss s{so so}}", "op", "update", "name", "c", "state", "up", up, "free_gpus", fg),
                         NULL);
    json_decref(a);
    a = ask_json(svc, json_pack("{ss ss sO}", "op", "place", "topology", "c", "job", job), NULL);
    ck_assert(is_ok(a));
    json_decref(a);
    for (size_t k = 0; k < ntaken; k++)
        free((char *)taken[k]);
    json_decref(job);
    tsched_service_free(svc);
}
END_TEST

/* A rejected update changes nothing; the summary answers the state. */
START_TEST(update_all_or_nothing)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    json_t *before = ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{}}");
    expect_error(ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{\"free_gpus\":{\"node2\":0},"
                               "\"down\":[\"node3\",\"leaf0~spine0\",\"bogus\"]}}"),
                 "TSCHED_E_NOT_FOUND", 2, "state.down[2]");
    json_t *after = ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{}}");
    ck_assert(json_equal(result(before), result(after)));
    json_decref(after);
    /* down then up of the same name in one update: it ends up */
    after = ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":[\"node3\"],\"up\":[\"node3\"]}}");
    ck_assert(json_equal(result(before), result(after)));
    json_decref(after);
    after = ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":[\"node3\",\"leaf0~spine0#0\"]}}");
    const json_t *d = json_object_get(result(after), "down");
    ck_assert_int_eq(json_array_size(json_object_get(d, "nodes")), json_array_size(json_object_get(
        json_object_get(result(before), "down"), "nodes")) + 1);
    ck_assert_int_eq(json_array_size(json_object_get(d, "members")), 1);
    json_decref(after);
    json_decref(before);
    /* load under the same name replaces the fabric (state from the document again) */
    load(svc, "c", "cli/cluster.json");
    after = ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{}}");
    ck_assert_ptr_null(json_object_get(json_object_get(result(after), "down"), "members"));
    json_decref(after);
    tsched_service_free(svc);
}
END_TEST

START_TEST(attach_detach)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 4, 8, 1);
    ck_assert_ok(tsched_service_attach(svc, "g", t));
    const char *req = "{\"op\":\"place\",\"topology\":\"g\",\"job\":{\"format\":\"tsched.job.v1\",\"name\":\"j\","
                      "\"gpus\":8,\"tp\":8,\"pp\":1},\"options\":{\"algo\":\"best-fit\"}}";
    json_t *a = ask_text(svc, req);
    const char *nodes[2];
    ck_assert_int_eq(placed_nodes(result(a), nodes, 2), 1);
    uint32_t first = tu_node(t, nodes[0]);
    json_decref(a);
    /* the caller's state change is seen by the next request */
    ck_assert_ok(tsched_topology_set_free_gpus(t, first, 0));
    a = ask_text(svc, req);
    ck_assert_int_eq(placed_nodes(result(a), nodes, 2), 1);
    ck_assert_uint_ne(tu_node(t, nodes[0]), first);
    json_decref(a);
    /* an update request changes the caller's fabric */
    json_decref(ask_text(svc, "{\"op\":\"update\",\"name\":\"g\",\"state\":{\"down\":[\"node7\"]}}"));
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "node7")), 0);
    /* detach: the name is gone, the fabric is still the caller's */
    ck_assert_ok(tsched_service_detach(svc, "g"));
    expect_error(ask_text(svc, req), "TSCHED_E_NOT_FOUND", 2, "topology: no fabric named \"g\"");
    ck_assert_status(tsched_service_detach(svc, "g"), TSCHED_E_NOT_FOUND);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8);
    /* unload of an attached fabric forgets it without freeing it */
    ck_assert_ok(tsched_service_attach(svc, "g", t));
    ck_assert_ok(tsched_service_attach(svc, "g2", t));
    json_decref(ask_text(svc, "{\"op\":\"unload\",\"name\":\"g\"}"));
    a = ask_text(svc, req);
    expect_error(a, "TSCHED_E_NOT_FOUND", 2, "no fabric named \"g\"");
    ck_assert_status(tsched_service_attach(svc, "", t), TSCHED_E_INVALID);
    ck_assert_status(tsched_service_attach(svc, NULL, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_service_attach(svc, "x", NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_service_detach(NULL, "x"), TSCHED_E_INVALID);
    /* a loaded fabric replaced by an attached one of the same name is freed (no leak under ASan) */
    load(svc, "h", "cli/cluster.json");
    ck_assert_ok(tsched_service_attach(svc, "h", t));
    tsched_service_free(svc); /* g2 and h still attached: t stays valid */
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8);
    tsched_topology_free(t);
}
END_TEST

/* Many requests: nothing accumulates (the sanitizer build checks the frees). */
START_TEST(many_requests)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    json_t *topo = doc("cli/cluster.json");
    char *load_req = NULL;
    {
        json_t *r = json_pack("{ss ss sO}", "op", "load-topology", "name", "c", "topology", topo);
        load_req = json_dumps(r, JSON_COMPACT);
        json_decref(r);
    }
    for (int i = 0; i < 50; i++) {
        json_decref(ask_text(svc, load_req));
        json_decref(ask_text(svc, "{\"op\":\"update\",\"name\":\"c\",\"state\":{\"down\":[\"node1\"]}}"));
        json_decref(ask_text(svc, "{\"op\":\"place\",\"topology\":\"c\",\"job\":{}}"));
        json_decref(ask_text(svc, "garbage"));
        json_decref(ask_text(svc, "{\"op\":\"unload\",\"name\":\"c\"}"));
    }
    free(load_req);
    json_decref(topo);
    tsched_service_free(svc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("service");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ids_echoed);
    tcase_add_test(tc, bad_requests);
    tcase_add_test(tc, errors_name_the_field);
    tcase_add_test(tc, every_op);
    tcase_add_test(tc, updates_seen_by_place);
    tcase_add_test(tc, update_all_or_nothing);
    tcase_add_test(tc, attach_detach);
    tcase_add_test(tc, many_requests);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
