/* The service (doc/serve.md): every op, error answers naming the field, attach/detach, state
 * updates seen by the next place, ids echoed as given, bad requests; the imports, the export
 * and the launch files of place against the library's own calls on the same files. */
#include <jansson.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

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
    size_t files = (size_t)!!json_object_get(a, "hostfile") + (size_t)!!json_object_get(a, "pod_order");
    if (json_is_true(json_object_get(a, "ok"))) /* the launch files of place may follow the result */
        ck_assert_msg(json_object_size(a) == 3 + files && json_object_get(a, "result"), "ok answer: %s", answer);
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

/* The result equals the JSON text `want` (the library's document, as the CLI prints it). */
static void result_is(const json_t *a, const char *want, const char *what)
{
    json_t *w = json_loads(want, 0, NULL);
    ck_assert_msg(w != NULL && json_equal(w, result(a)), "%s: result differs from the library's document", what);
    json_decref(w);
}

/* The library's own best-fit placement of cli/job.json on cli/cluster.json, which the
 * service's place answers must reproduce: the handles and the document without timing. */
typedef struct direct_pl {
    tsched_topology *t;
    tsched_job *j;
    tsched_placement *pl;
    char *text;
} direct_pl;

static direct_pl direct_best_fit(void)
{
    direct_pl d = {0};
    char p[512];
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = TSCHED_PLACE_BEST_FIT;
    snprintf(p, sizeof p, "%s/cli/cluster.json", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_load_file(&d.t, p));
    snprintf(p, sizeof p, "%s/cli/job.json", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_job_load_file(&d.j, p));
    ck_assert_ok(tsched_place(&d.pl, d.t, d.j, &o));
    ck_assert_ok(tsched_placement_to_json(&d.text, d.pl, d.t, tsched_job_name(d.j), 0));
    return d;
}

static void direct_free(direct_pl *d)
{
    tsched_free(d->text);
    tsched_placement_free(d->pl);
    tsched_job_free(d->j);
    tsched_topology_free(d->t);
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
    /* a real id comes back as its shortest text, as a client wrote it, not with 17 digits */
    static const char *const reals[] = {"0.1", "-2.5", "1e+300", "0.3"};
    for (size_t i = 0; i < 4; i++)
        for (int err = 0; err < 2; err++) {
            char req[128], want[64], *ans = NULL;
            snprintf(req, sizeof req, "{\"id\": %s, \"op\": \"%s\"}", reals[i], err ? "nope" : "version");
            snprintf(want, sizeof want, "{\"id\":%s,", reals[i]);
            ck_assert_ok(tsched_service_handle(&ans, NULL, svc, req, strlen(req)));
            ck_assert_msg(strncmp(ans, want, strlen(want)) == 0, "answer %s, want it to start %s", ans, want);
            tsched_free(ans);
        }
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
         "options.hostfile: the service writes no files", 2},
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
    /* options the library itself refuses, after the documents loaded, named as options */
    static const char dag[] = "{\"format\":\"tsched.dag.v1\",\"nodes\":2,\"edges\":[[0,1,1]]}";
    static const struct {
        const char *op, *opts, *status, *needle;
    } late[] = {
        {"kcut", "{\"levels\":65}", "TSCHED_E_TOO_LARGE", "options.levels: 65 exceeds the limit kcut_levels"},
        {"kcut", "{\"levels\":2,\"orders\":100000}", "TSCHED_E_TOO_LARGE", "options.orders: 100000 exceeds"},
        {"simulate", "{\"queue\":\"nope\"}", "", "options.queue: "},
        {"simulate", "{\"sample-ms\":0}", "", "options.sample-ms: "},
        {"simulate", "{\"levels\":0}", "", "options.levels: "},
    };
    load(svc, "s", "sim/fabric.json");
    for (size_t i = 0; i < sizeof late / sizeof late[0]; i++) {
        json_error_t e;
        json_t *o = json_loads(late[i].opts, 0, &e);
        ck_assert(o != NULL);
        if (!strcmp(late[i].op, "kcut"))
            r = json_pack("{ss so so}", "op", "kcut", "dag", json_loads(dag, 0, &e), "options", o);
        else
            r = json_pack("{ss ss so so}", "op", "simulate", "topology", "s", "trace", doc("sim/trace.json"), "options",
                          o);
        json_t *a = ask_json(svc, r, NULL);
        ck_assert_msg(!is_ok(a), "%s %s: accepted", late[i].op, late[i].opts);
        const char *err = json_string_value(json_object_get(a, "error"));
        ck_assert_msg(strncmp(err, late[i].needle, strlen(late[i].needle)) == 0, "%s %s: %s", late[i].op, late[i].opts,
                      err);
        if (*late[i].status)
            ck_assert_str_eq(json_string_value(json_object_get(a, "status")), late[i].status);
        json_decref(a);
    }
    /* a document inside a request is one input: at most input_bytes, for every import */
    tsched_limits lim = {.size = sizeof lim};
    ck_assert_ok(tsched_limits_get(&lim));
    lim.input_bytes = 100;
    ck_assert_ok(tsched_limits_set(&lim));
    static const char *const imports[] = {"import-slurm", "import-slurm-yaml"};
    for (size_t i = 0; i < 2; i++) {
        char text[300];
        memset(text, '#', sizeof text - 2);
        text[sizeof text - 2] = '\n';
        text[sizeof text - 1] = '\0';
        json_t *a = ask_json(svc, json_pack("{ss ss}", "op", imports[i], "text", text), NULL);
        expect_error(a, "TSCHED_E_TOO_LARGE", 2, "text: ");
    }
    tsched_limits_reset();
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
    direct_pl d = direct_best_fit();
    result_is(a, d.text, "place");
    direct_free(&d);
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

/* ---- foreign formats: imports, export, launch files ---- */

static char *read_text(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", TSCHED_TEST_DATA, rel);
    FILE *f = fopen(p, "rb");
    ck_assert_msg(f != NULL, "%s", p);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    ck_assert(t != NULL && fread(t, 1, (size_t)n, f) == (size_t)n);
    t[n] = '\0';
    fclose(f);
    return t;
}

/* The answer of an import request `req` (taken) equals `t`'s topology.v1 (t freed). */
static void import_is(tsched_service *svc, json_t *req, tsched_topology *t, const char *what)
{
    char *want = NULL;
    ck_assert_ok(tsched_topology_to_json(&want, t));
    json_t *a = ask_json(svc, req, NULL);
    result_is(a, want, what);
    json_decref(a);
    tsched_free(want);
    tsched_topology_free(t);
}

static const char *const k8s_levels[] = {"example.com/block", "example.com/rack", "kubernetes.io/hostname"};

START_TEST(imports)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    char p[512];
    tsched_topology *t;
    tsched_slurm_options so;
    /* import-slurm: tree, block with node options, scontrol text */
    const char *confs[] = {"import/tree.conf", "import/block.conf", "import/scontrol-tree.txt", "import/deep8.conf"};
    for (size_t i = 0; i < sizeof confs / sizeof confs[0]; i++) {
        tsched_slurm_options_init(&so);
        so.gpus_per_node = 4;
        so.nic_gbps = 200;
        so.name = "x";
        so.block_nvl = i != 1;
        snprintf(p, sizeof p, "%s/%s", TSCHED_TEST_DATA, confs[i]);
        ck_assert_ok(tsched_topology_import_slurm_file(&t, p, &so));
        char *text = read_text(confs[i]);
        import_is(svc,
                  json_pack("{ss ss s{ss ss sf sb}}", "op", "import-slurm", "text", text, "options", "gpus-per-node",
                            "4", "name", "x", "nic-gbps", 200.0, "no-nvl", i == 1),
                  t, confs[i]);
        free(text);
    }
    /* import-slurm-yaml with an NVLink entry; `name` loads the fabric */
    tsched_slurm_options_init(&so);
    so.nvl_topology = "nvlink";
    snprintf(p, sizeof p, "%s/import/topology.yaml", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, p, &so));
    char *yaml = read_text("import/topology.yaml");
    import_is(svc,
              json_pack("{ss ss ss s{ss}}", "op", "import-slurm-yaml", "name", "y", "text", yaml, "options",
                        "nvl-topology", "nvlink"),
              t, "topology.yaml");
    free(yaml);
    json_t *a = ask_json(svc, json_pack("{ss ss}", "op", "load-topology", "name", "y"), NULL);
    expect_error(a, "TSCHED_E_NOT_FOUND", 2, "topology: missing");
    a = ask_json(svc, json_pack("{ss ss s{ss}}", "op", "export", "topology", "y", "options", "to", "slurm-yaml"), NULL);
    ck_assert_msg(strstr(json_string_value(json_object_get(result(a), "text")), "block: nvl1") ||
                      strstr(json_string_value(json_object_get(result(a), "text")), "nvl1"),
                  "the loaded fabric has the NVLink blocks");
    json_decref(a);
    /* import-k8s-nodes: text with levels "a,b,c", the object with an array of levels, the Kueue Topology */
    tsched_k8s_options ko;
    tsched_k8s_options_init(&ko);
    ko.levels = k8s_levels;
    ko.nlevels = 3;
    snprintf(p, sizeof p, "%s/import/nodes.json", TSCHED_TEST_DATA);
    char *nodes_text = read_text("import/nodes.json");
    for (int form = 0; form < 4; form++) {
        ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, p, &ko));
        json_t *req;
        if (form == 0)
            req = json_pack("{ss ss s{ss}}", "op", "import-k8s-nodes", "text", nodes_text, "options", "levels",
                            "example.com/block,example.com/rack,kubernetes.io/hostname");
        else if (form == 1)
            req = json_pack("{ss so s{s[sss]}}", "op", "import-k8s-nodes", "nodes", doc("import/nodes.json"), "options",
                            "levels", k8s_levels[0], k8s_levels[1], k8s_levels[2]);
        else if (form == 2) {
            char *kq = read_text("import/kueue-topology.yaml");
            req = json_pack("{ss ss s{ss}}", "op", "import-k8s-nodes", "text", nodes_text, "options", "kueue-topology",
                            kq);
            free(kq);
        } else {
            json_t *all = doc("import/nodes.json");
            req = json_pack("{ss sO s{so}}", "op", "import-k8s-nodes", "nodes", json_object_get(all, "items"),
                            "options", "kueue-topology", doc("import/kueue-topology.json"));
            json_decref(all);
        }
        import_is(svc, req, t, "nodes.json");
    }
    /* node options */
    tsched_k8s_options_init(&ko);
    const char *rack[] = {"example.com/rack"};
    ko.levels = rack;
    ko.nlevels = 1;
    ko.nvl_label = "";
    ko.gpu_type = "X";
    ko.nics_per_node = 2;
    ko.nic_gbps = 100;
    ko.name = "prod";
    snprintf(p, sizeof p, "%s/import/node-single.json", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, p, &ko));
    import_is(svc,
              json_pack("{ss so s{ss ss ss si ss ss}}", "op", "import-k8s-nodes", "nodes",
                        doc("import/node-single.json"), "options", "levels", "example.com/rack", "nvl-label", "",
                        "gpu-type", "X", "nics-per-node", 2, "nic-gbps", "100", "name", "prod"),
              t, "node-single.json");
    free(nodes_text);
    tsched_service_free(svc);
}
END_TEST

/* Every export of a loaded and of an inline fabric: exactly tsched_topology_export's text and warning. */
START_TEST(exports)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    /* NVLink domains that nest nowhere: the warning */
    const char *nowhere =
        "{\"format\":\"tsched.topology.v1\",\"name\":\"w\",\"switches\":[{\"name\":\"r1\",\"tier\":0},"
        "{\"name\":\"r2\",\"tier\":0},{\"name\":\"b\",\"tier\":1}],\"links\":[{\"a\":\"r1\",\"b\":\"b\","
        "\"gbps\":400},{\"a\":\"r2\",\"b\":\"b\",\"gbps\":400}],\"nodes\":["
        "{\"name\":\"g0\",\"leaf\":\"r1\",\"gpus\":8,\"nvl_domain\":\"x\"},"
        "{\"name\":\"g1\",\"leaf\":\"r1\",\"gpus\":8,\"nvl_domain\":\"y\"},"
        "{\"name\":\"g2\",\"leaf\":\"r2\",\"gpus\":8,\"nvl_domain\":\"x\"},"
        "{\"name\":\"g3\",\"leaf\":\"r2\",\"gpus\":8,\"nvl_domain\":\"y\"}]}";
    tsched_topology *cluster = NULL, *w = NULL;
    char p[512];
    snprintf(p, sizeof p, "%s/cli/cluster.json", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_load_file(&cluster, p));
    ck_assert_ok(tsched_topology_load_string(&w, nowhere, strlen(nowhere)));
    static const char *const lv[] = {"a.io/top", "a.io/rack"};
    struct {
        const char *to, *opts; /* options as JSON */
        int block, physical, v1beta1, tier_names, sanitize, json, nlevels;
        const char *name;
    } cases[] = {
        {"slurm-conf", "{}", 0, 0, 0, 0, 0, 0, 0, NULL},
        {"slurm-conf", "{\"block\":true}", 1, 0, 0, 0, 0, 0, 0, NULL},
        {"slurm-yaml", "{\"physical\":true,\"name\":\"n\"}", 0, 1, 0, 0, 0, 0, 0, "n"},
        {"kueue", "{}", 0, 0, 0, 0, 0, 0, 0, NULL},
        {"kueue", "{\"kueue-api\":\"v1beta1\",\"format\":\"json\",\"sanitize\":true}", 0, 0, 1, 0, 1, 1, 0, NULL},
        {"kai", "{\"levels\":\"a.io/top,a.io/rack\"}", 0, 0, 0, 0, 0, 0, 2, NULL},
        {"volcano", "{\"tier-names\":true,\"levels\":[\"a.io/top\",\"a.io/rack\"]}", 0, 0, 0, 1, 0, 0, 2, NULL},
    };
    for (int fabric = 0; fabric < 2; fabric++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            tsched_export_options o;
            tsched_export_options_init(&o);
            ck_assert_ok(tsched_export_format_from_name(&o.to, cases[i].to));
            o.block = cases[i].block;
            o.physical = cases[i].physical;
            o.kueue_api = cases[i].v1beta1 ? TSCHED_KUEUE_V1BETA1 : TSCHED_KUEUE_V1BETA2;
            o.tier_names = cases[i].tier_names;
            o.sanitize = cases[i].sanitize;
            o.json = cases[i].json;
            o.name = cases[i].name;
            o.levels = cases[i].nlevels ? lv : NULL;
            o.num_levels = (uint32_t)cases[i].nlevels;
            char *want = NULL;
            tsched_status st = tsched_topology_export(&want, fabric ? w : cluster, &o);
            char *warning = strdup(tsched_topology_export_warning());
            json_t *opts = json_loads(cases[i].opts, 0, NULL);
            ck_assert(opts != NULL);
            json_object_set_new(opts, "to", json_string(cases[i].to));
            json_t *req = fabric ? json_pack("{ss so so}", "op", "export", "topology", json_loads(nowhere, 0, NULL), "options", opts)
                                 : json_pack("{ss ss so}", "op", "export", "topology", "c", "options", opts);
            json_t *a = ask_json(svc, req, NULL);
            if (st != TSCHED_OK) { /* cluster.json has three tiers: two level keys are an error */
                ck_assert_msg(!is_ok(a), "%s %s: error as the library", cases[i].to, cases[i].opts);
                ck_assert_msg(!strncmp(json_string_value(json_object_get(a, "error")), "options.levels", 14), "%s",
                              json_string_value(json_object_get(a, "error")));
            } else {
                const json_t *r = result(a);
                ck_assert_int_eq(json_object_size(r), 2);
                ck_assert_str_eq(json_string_value(json_object_get(r, "text")), want);
                if (*warning)
                    ck_assert_str_eq(json_string_value(json_object_get(r, "warning")), warning);
                else
                    ck_assert(json_is_null(json_object_get(r, "warning")));
                if (fabric && !strcmp(cases[i].to, "kueue"))
                    ck_assert_msg(*warning, "the NVLink warning");
            }
            json_decref(a);
            free(warning);
            tsched_free(want);
        }
    tsched_topology_free(w);
    tsched_topology_free(cluster);
    tsched_service_free(svc);
}
END_TEST

/* place with launch files: the result unchanged, the host file and pod order beside it. */
START_TEST(launch_files)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    direct_pl d = direct_best_fit();
    tsched_topology *t = d.t;
    tsched_job *j = d.j;
    tsched_placement *pl = d.pl;
    for (int k = 0; k < 4; k++) {
        char *hosts = NULL, *pods = NULL;
        json_t *opts = json_pack("{ss sb}", "algo", "best-fit", "no-timing", 1);
        if (k == 0 || k == 2) {
            ck_assert_ok(tsched_placement_hostfile(&hosts, pl, t));
            json_object_set_new(opts, "hostfile", json_true());
        }
        if (k == 3) {
            ck_assert_ok(tsched_placement_hostfile_per_task(&hosts, pl, t, 3));
            json_object_set_new(opts, "hostfile", json_true());
            json_object_set_new(opts, "hostfile-per-task", json_true());
        }
        if (k >= 1) {
            ck_assert_ok(tsched_placement_pod_order(&pods, pl, t, tsched_job_name(j), k == 3 ? "a.io/i" : NULL,
                                                    k == 3 ? 3 : 0));
            json_object_set_new(opts, "pod-order", json_true());
        }
        if (k == 3) {
            json_object_set_new(opts, "tasks-per-node", json_integer(3));
            json_object_set_new(opts, "index-label", json_string("a.io/i"));
        }
        json_t *a = ask_json(svc, json_pack("{ss ss so so}", "op", "place", "topology", "c", "job", doc("cli/job.json"),
                                            "options", opts),
                             NULL);
        result_is(a, d.text, "placement with launch files");
        if (hosts)
            ck_assert_str_eq(json_string_value(json_object_get(a, "hostfile")), hosts);
        else
            ck_assert(!json_object_get(a, "hostfile"));
        if (pods) {
            json_t *want = json_loads(pods, 0, NULL);
            ck_assert(want && json_equal(want, json_object_get(a, "pod_order")));
            json_decref(want);
        } else
            ck_assert(!json_object_get(a, "pod_order"));
        json_decref(a);
        tsched_free(hosts);
        tsched_free(pods);
    }
    direct_free(&d);
    tsched_service_free(svc);
}
END_TEST

/* Request errors of the new ops name the field. */
START_TEST(interop_errors)
{
    tsched_service *svc = NULL;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    struct {
        const char *req, *status, *needle;
        int exit;
    } cases[] = {
        {"{\"op\":\"import-slurm\"}", "TSCHED_E_NOT_FOUND", "text: missing", 2},
        {"{\"op\":\"import-slurm\",\"text\":[]}", "TSCHED_E_TYPE", "text: expected a string", 2},
        {"{\"op\":\"import-slurm\",\"text\":\"junk\"}", "TSCHED_E_PARSE", "text: line 1", 2},
        {"{\"op\":\"import-slurm\",\"text\":\"SwitchName=s Nodes=n1\",\"options\":{\"gpus-per-node\":0}}",
         "TSCHED_E_RANGE", "options.gpus-per-node: 0", 2},
        {"{\"op\":\"import-slurm\",\"text\":\"SwitchName=s Nodes=n1\",\"options\":{\"gpus-per-node\":100000}}",
         "TSCHED_E_INVALID", "options.gpus-per-node: 100000", 2},
        {"{\"op\":\"import-slurm\",\"text\":\"SwitchName=s Nodes=n1\",\"options\":{\"topology\":\"x\"}}",
         "TSCHED_E_FORMAT", "options.topology: unknown option", 2},
        {"{\"op\":\"import-slurm\",\"text\":\"SwitchName=s Nodes=n1\",\"name\":\"\"}", "TSCHED_E_FORMAT",
         "name: expected a non-empty name", 2},
        {"{\"op\":\"import-k8s-nodes\",\"text\":\"{}\"}", "TSCHED_E_INVALID", "options: give exactly one", 2},
        {"{\"op\":\"import-k8s-nodes\",\"options\":{\"levels\":\"a\"}}", "TSCHED_E_NOT_FOUND",
         "text: give exactly one", 2},
        {"{\"op\":\"import-k8s-nodes\",\"text\":\"{}\",\"nodes\":{},\"options\":{\"levels\":\"a\"}}",
         "TSCHED_E_INVALID", "nodes: give exactly one", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"levels\":\"a\"}}", "TSCHED_E_FORMAT",
         "nodes: ", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":true,\"options\":{\"levels\":\"a\"}}", "TSCHED_E_TYPE",
         "nodes: expected", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"levels\":\"a,\"}}", "TSCHED_E_FORMAT",
         "options.levels: key 2", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"levels\":[\"a\",1]}}", "TSCHED_E_TYPE",
         "options.levels[1]", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"levels\":\"a b\"}}", "TSCHED_E_INVALID",
         "options.levels[0]", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"kueue-topology\":\"kind: X\"}}",
         "TSCHED_E_FORMAT", "options.kueue-topology", 2},
        {"{\"op\":\"import-k8s-nodes\",\"nodes\":{},\"options\":{\"kueue-topology\":5}}", "TSCHED_E_TYPE",
         "options.kueue-topology", 2},
        {"{\"op\":\"export\",\"topology\":\"c\"}", "TSCHED_E_NOT_FOUND", "options.to: missing", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"lsf\"}}", "TSCHED_E_FORMAT",
         "options.to: export format", 2},
        {"{\"op\":\"export\",\"options\":{\"to\":\"kai\"}}", "TSCHED_E_NOT_FOUND", "topology: missing", 2},
        {"{\"op\":\"export\",\"topology\":\"d\",\"options\":{\"to\":\"kai\"}}", "TSCHED_E_NOT_FOUND",
         "topology: no fabric", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"block\":true}}",
         "TSCHED_E_INVALID", "options.block: applies to slurm-conf only", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"physical\":true}}",
         "TSCHED_E_INVALID", "options.physical", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"kueue-api\":\"v1beta1\"}}",
         "TSCHED_E_INVALID", "options.kueue-api", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kueue\",\"kueue-api\":\"v9\"}}",
         "TSCHED_E_FORMAT", "options.kueue-api", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"tier-names\":true}}",
         "TSCHED_E_INVALID", "options.tier-names", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"slurm-yaml\",\"sanitize\":\"yes\"}}",
         "TSCHED_E_TYPE", "options.sanitize", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"slurm-yaml\",\"no-nodes\":true}}",
         "TSCHED_E_INVALID", "options.no-nodes", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"volcano\",\"no-hostname-level\":true}}",
         "TSCHED_E_INVALID", "options.no-hostname-level", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"slurm-yaml\",\"format\":\"json\"}}",
         "TSCHED_E_INVALID", "options.format", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"format\":\"toml\"}}",
         "TSCHED_E_FORMAT", "options.format", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"slurm-conf\",\"block\":true,"
         "\"physical\":true}}",
         "TSCHED_E_INVALID", "options: block and physical", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"levels\":\"a\"}}",
         "TSCHED_E_RANGE", "options.levels: 1 key", 2},
        {"{\"op\":\"export\",\"topology\":\"c\",\"options\":{\"to\":\"kai\",\"compact\":true}}",
         "TSCHED_E_FORMAT", "options.compact: unknown option", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"hostfile\":\"h\"}}",
         "TSCHED_E_FORMAT", "options.hostfile: the service writes no files", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"pod-order\":\"p\"}}",
         "TSCHED_E_FORMAT", "options.pod-order: the service writes no files", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"hostfile-per-task\":true}}",
         "TSCHED_E_INVALID", "options.hostfile-per-task: needs", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"tasks-per-node\":2}}",
         "TSCHED_E_INVALID", "options.tasks-per-node: needs", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"index-label\":\"x\"}}",
         "TSCHED_E_INVALID", "options.index-label: needs", 2},
        {"{\"op\":\"place\",\"topology\":\"c\",\"job\":{},\"options\":{\"o\":\"x\"}}", "TSCHED_E_FORMAT",
         "options.o: unknown option", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(ask_text(svc, cases[i].req), cases[i].status, cases[i].exit, cases[i].needle);
    /* errors found after the placement: the library's, named by the option */
    json_t *job = doc("cli/job.json");
    json_t *a = ask_json(svc,
                         json_pack("{ss ss sO s{sb ss}}", "op", "place", "topology", "c", "job", job, "options",
                                   "pod-order", 1, "index-label", "not a key"),
                         NULL);
    expect_error(a, "TSCHED_E_FORMAT", 2, "options.index-label: ");
    a = ask_json(svc,
                 json_pack("{ss ss sO s{sb si}}", "op", "place", "topology", "c", "job", job, "options", "pod-order", 1,
                           "tasks-per-node", 5000),
                 NULL);
    expect_error(a, "TSCHED_E_RANGE", 2, "options.tasks-per-node: ");
    json_decref(job);
    tsched_service_free(svc);
}
END_TEST


/* ---- the service reads no files (issue 21 item 7) ---- */

/* Opens of watched files, seen with inotify (Linux); elsewhere the refusal alone is checked. */
static int watch_new(void)
{
#ifdef __linux__
    int fd = inotify_init1(IN_NONBLOCK);
    ck_assert(fd >= 0);
    return fd;
#else
    return -1;
#endif
}

static void watch_add(int w, const char *path)
{
#ifdef __linux__
    ck_assert_msg(inotify_add_watch(w, path, IN_OPEN | IN_ACCESS) >= 0, "watch %s", path);
#else
    (void)w, (void)path;
#endif
}

/* Were any watched files opened since the last call? */
static int watch_opened(int w)
{
    int any = 0;
#ifdef __linux__
    char buf[4096];
    while (read(w, buf, sizeof buf) > 0)
        any = 1;
#else
    (void)w;
#endif
    return any;
}

/* `req` (taken) names a readable file of valid content in one of its fields: it is refused
 * with a message that begins with `field`, and no watched file is opened. */
static void refused_unopened(tsched_service *svc, int w, json_t *req, const char *field, const char *what)
{
    watch_opened(w); /* what the test itself read */
    json_t *a = ask_json(svc, req, NULL);
    const char *err = json_string_value(json_object_get(a, "error"));
    ck_assert_msg(!is_ok(a), "%s: a file name was accepted", what);
    ck_assert_msg(!strncmp(err, field, strlen(field)), "%s: error \"%s\" does not begin with \"%s\"", what, err, field);
    ck_assert_msg(!watch_opened(w), "%s: the service opened a file", what);
    json_decref(a);
}

static char *data_path(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", TSCHED_TEST_DATA, rel);
    char *r = strdup(p);
    ck_assert(r != NULL);
    return r;
}

START_TEST(no_file_is_read)
{
    static const char *const files[] = {
        "cli/cluster.json", "cli/job.json", "routing/flows.json", "priority/crux-jobset.json", "priority/dag-small.json",
        "vclos-requests.json", "cell/cli/gpus.json", "cell/cli/profile-a100.json", "cell/cli/queue.json",
        "sim/trace.json", "sim/scenario.json", "import/tree.conf", "import/topology.yaml", "import/nodes.json",
        "import/kueue-topology.yaml", "flows/placement-2x2.json"};
    enum { NF = sizeof files / sizeof files[0] };
    char *p[NF];
    int w = watch_new();
    for (size_t i = 0; i < NF; i++) {
        p[i] = data_path(files[i]);
        watch_add(w, p[i]);
    }
    const char *cluster = p[0], *job = p[1], *flows = p[2], *jobset = p[3], *dag = p[4], *vreq = p[5], *gpus = p[6],
               *profile = p[7], *queue = p[8], *trace = p[9], *scen = p[10], *conf = p[11], *yaml = p[12],
               *nodes = p[13], *kueue = p[14];
    /* a temporary catalogue and a FIFO: a FIFO opened for reading would block the service */
    char dir[] = "/tmp/tsched-nofiles.XXXXXX", tmpgpus[600], fifo[600];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(tmpgpus, sizeof tmpgpus, "%s/gpus.json", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    FILE *f = fopen(tmpgpus, "w");
    ck_assert(f != NULL);
    fputs("{\"format\": \"tsched.gpus.v1\", \"gpus\": []}\n", f);
    fclose(f);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    watch_add(w, tmpgpus);
    watch_add(w, fifo);

    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    load(svc, "pri", "priority/crux-topo.json");
    load(svc, "vc", "vclos-leaf-spine.json");
    load(svc, "het", "cell/cli/hetero.json");
    load(svc, "sim", "sim/fabric.json");
    json_t *pl = ask_json(svc, json_pack("{ss ss so s{sb}}", "op", "place", "topology", "c", "job", doc("cli/job.json"),
                                         "options", "no-timing", 1), NULL);
    json_t *placement = json_incref(json_object_get(pl, "result"));
    json_decref(pl);

    /* every document field of every op, given a file name instead of the document */
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "load-topology", "name", "x", "topology", cluster),
                     "topology: ", "load-topology.topology");
    refused_unopened(svc, w, json_pack("{ss ss so}", "op", "place", "topology", cluster, "job", doc("cli/job.json")),
                     "topology: no fabric named", "place.topology");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "place", "topology", "c", "job", job), "job: ",
                     "place.job");
    refused_unopened(svc, w, json_pack("{ss ss ss s{ss si}}", "op", "flows", "topology", "c", "placement", flows,
                                       "options", "pattern", "pp", "gbits", 1),
                     "placement: ", "flows.placement");
    refused_unopened(svc, w, json_pack("{ss ss sO ss s{ss}}", "op", "flows", "topology", "c", "placement", placement,
                                       "job", job, "options", "pattern", "dp-hd"),
                     "job: ", "flows.job");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "route", "topology", "c", "flows", flows), "flows: ",
                     "route.flows");
    refused_unopened(svc, w, json_pack("{ss ss ss s{si}}", "op", "prioritize", "topology", "pri", "jobset", jobset,
                                       "options", "levels", 2),
                     "jobset: ", "prioritize.jobset");
    refused_unopened(svc, w, json_pack("{ss ss s{si}}", "op", "kcut", "dag", dag, "options", "levels", 2), "dag: ",
                     "kcut.dag");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "vclos", "topology", "vc", "requests", vreq), "requests: ",
                     "vclos.requests");
    refused_unopened(svc, w, json_pack("{ss ss so ss}", "op", "vclos", "topology", "vc", "requests",
                                       doc("vclos-requests.json"), "state", vreq),
                     "state: ", "vclos.state");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "cells", "topology", "het", "job", job), "job: ",
                     "cells.job");
    refused_unopened(svc, w, json_pack("{ss ss so ss}", "op", "cells", "topology", "het", "job",
                                       doc("cell/cli/job-small.json"), "catalog", gpus),
                     "catalog: ", "cells.catalog");
    refused_unopened(svc, w, json_pack("{ss ss so ss}", "op", "cells", "topology", "het", "job",
                                       doc("cell/cli/job-small.json"), "profile", profile),
                     "profile: ", "cells.profile");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "crius-schedule", "topology", "het", "queue", queue),
                     "queue: ", "crius-schedule.queue");
    refused_unopened(svc, w, json_pack("{ss ss so ss}", "op", "crius-schedule", "topology", "het", "queue",
                                       doc("cell/cli/queue.json"), "catalog", gpus),
                     "catalog: ", "crius-schedule.catalog");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "simulate", "topology", "sim", "trace", trace), "trace: ",
                     "simulate.trace");
    refused_unopened(svc, w, json_pack("{ss ss so ss}", "op", "simulate", "topology", "sim", "trace",
                                       doc("sim/trace.json"), "scenario", scen),
                     "scenario: ", "simulate.scenario");
    /* the one path-valued member of a document: a scenario's "gpus" (a file name in the CLI) */
    const char *gpaths[] = {tmpgpus, gpus, "-", "/dev/stdin", fifo, "/etc/shadow"};
    for (size_t i = 0; i < sizeof gpaths / sizeof gpaths[0]; i++) {
        json_t *sc = doc("sim/scenario.json");
        json_object_set_new(sc, "placement", json_string("crius"));
        json_object_set_new(sc, "gpus", json_string(gpaths[i]));
        char what[700];
        snprintf(what, sizeof what, "simulate.scenario.gpus %s", gpaths[i]);
        refused_unopened(svc, w, json_pack("{ss ss so so}", "op", "simulate", "topology", "sim", "trace",
                                           doc("sim/trace.json"), "scenario", sc),
                         "scenario: gpus: ", what);
    }
    /* the same scenario with the catalogue inline runs (the refusal is about the name only) */
    {
        json_t *sc = doc("sim/scenario.json");
        json_object_set_new(sc, "gpus", doc("cell/cli/gpus.json"));
        json_t *a = ask_json(svc, json_pack("{ss ss so so s{sb}}", "op", "simulate", "topology", "sim", "trace",
                                            doc("sim/trace.json"), "scenario", sc, "options", "no-timing", 1), NULL);
        ck_assert_msg(is_ok(a), "inline gpus: %s", json_string_value(json_object_get(a, "error")));
        json_decref(a);
    }
    /* the imports take the file's text: a file name is text that does not parse */
    refused_unopened(svc, w, json_pack("{ss ss}", "op", "import-slurm", "text", conf), "text: ", "import-slurm.text");
    refused_unopened(svc, w, json_pack("{ss ss}", "op", "import-slurm-yaml", "text", yaml), "text: ",
                     "import-slurm-yaml.text");
    refused_unopened(svc, w, json_pack("{ss ss s{ss}}", "op", "import-k8s-nodes", "text", nodes, "options", "levels",
                                       "example.com/rack"),
                     "text: ", "import-k8s-nodes.text");
    refused_unopened(svc, w, json_pack("{ss ss s{ss}}", "op", "import-k8s-nodes", "nodes", nodes, "options", "levels",
                                       "example.com/rack"),
                     "nodes: ", "import-k8s-nodes.nodes");
    refused_unopened(svc, w, json_pack("{ss so s{ss}}", "op", "import-k8s-nodes", "nodes", doc("import/nodes.json"),
                                       "options", "kueue-topology", kueue),
                     "options.kueue-topology: ", "import-k8s-nodes.options.kueue-topology");
    refused_unopened(svc, w, json_pack("{ss ss s{ss}}", "op", "export", "topology", cluster, "options", "to", "kueue"),
                     "topology: no fabric named", "export.topology");
    refused_unopened(svc, w, json_pack("{ss ss ss}", "op", "update", "name", "c", "state", cluster), "state: ",
                     "update.state");
    refused_unopened(svc, w, json_pack("{ss ss so s{ss}}", "op", "place", "topology", "c", "job", doc("cli/job.json"),
                                       "options", "hostfile", tmpgpus),
                     "options.hostfile: ", "place.options.hostfile");
    refused_unopened(svc, w, json_pack("{ss ss so s{ss}}", "op", "place", "topology", "c", "job", doc("cli/job.json"),
                                       "options", "pod-order", tmpgpus),
                     "options.pod-order: ", "place.options.pod-order");
    /* the file is still as it was (nothing was written either) */
    struct stat sb;
    ck_assert_int_eq(stat(tmpgpus, &sb), 0);
    ck_assert_int_eq((int)sb.st_size, (int)strlen("{\"format\": \"tsched.gpus.v1\", \"gpus\": []}\n"));
    /* outside the service the library still reads the files it is given */
    tsched_sim *sim = NULL;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, cluster));
    ck_assert_ok(tsched_sim_new(&sim, t));
    char scen_text[1024];
    snprintf(scen_text, sizeof scen_text, "{\"format\": \"tsched.scenario.v1\", \"gpus\": \"%s\"}", tmpgpus);
    ck_assert_ok(tsched_sim_load_scenario_string(sim, scen_text, strlen(scen_text)));
    tsched_sim_free(sim);
    tsched_topology_free(t);

    json_decref(placement);
    tsched_service_free(svc);
    unlink(tmpgpus);
    unlink(fifo);
    rmdir(dir);
    for (size_t i = 0; i < NF; i++)
        free(p[i]);
#ifdef __linux__
    close(w);
#endif
}
END_TEST

/* ---- a NUL byte in a request line (issue 21 item 9) ---- */

static json_t *ask_bytes(tsched_service *svc, const char *bytes, size_t n)
{
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, bytes, n));
    ck_assert(strchr(answer, '\n') == NULL);
    json_t *a = json_loads(answer, 0, NULL);
    ck_assert_msg(a != NULL, "answer is JSON: %s", answer);
    tsched_free(answer);
    return a;
}

START_TEST(nul_bytes_are_named)
{
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    static const char after[] = "{\"op\":\"version\"}\0junk"; /* the NUL is byte 16 */
    expect_error(ask_bytes(svc, after, sizeof after - 1), "TSCHED_E_PARSE", 2,
                 "request: line 1, column 17: byte 16 is a NUL byte");
    static const char inside[] = "{\"op\":\"ver\0sion\"}";
    expect_error(ask_bytes(svc, inside, sizeof inside - 1), "TSCHED_E_PARSE", 2, "request: line 1, column 11: byte 10 is a NUL byte");
    static const char first[] = "\0{\"op\":\"version\"}";
    expect_error(ask_bytes(svc, first, sizeof first - 1), "TSCHED_E_PARSE", 2, "request: line 1, column 1: byte 0 is a NUL");
    /* a syntax error before the NUL is the one reported */
    static const char before[] = "{\"op\" 1}\0";
    expect_error(ask_bytes(svc, before, sizeof before - 1), "TSCHED_E_PARSE", 2, "':' expected");
    /* a raw NUL inside a document's string, and far into a line after newlines in strings */
    static const char doc_nul[] = "{\"op\":\"kcut\",\"dag\":\"{\\\"format\\\":\\\"tsched.dag.v1\\\"}\0x\"}";
    expect_error(ask_bytes(svc, doc_nul, sizeof doc_nul - 1), "TSCHED_E_PARSE", 2,
                 "request: line 1, column 51: byte 50 is a NUL byte");
    /* the version answers after all that */
    json_t *a = ask_text(svc, "{\"op\":\"version\"}");
    ck_assert(is_ok(a));
    json_decref(a);
    tsched_service_free(svc);
}
END_TEST

/* ---- numbers whatever the host's locale (issue 21 item 10) ---- */

/* What depends on the locale if anything does: service answers with string numbers, a
 * message with a real number, JSON writers, a routing and a simulation result. */
typedef struct loc_texts {
    char *place, *sim_svc, *topo, *routes, *sim, *csv, *msg_alpha, *msg_until;
} loc_texts;

static char *answer_text(tsched_service *svc, const char *req)
{
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, req, strlen(req)));
    char *r = strdup(answer);
    tsched_free(answer);
    return r;
}

static loc_texts locale_texts(void)
{
    loc_texts x;
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    load(svc, "sim", "sim/fabric.json");
    char *job = data_path("cli/job.json");
    json_t *jd = doc("cli/job.json");
    char *jt = json_dumps(jd, JSON_COMPACT);
    json_decref(jd);
    char req[8192];
    snprintf(req, sizeof req,
             "{\"op\":\"place\",\"topology\":\"c\",\"job\":%s,\"options\":{\"algo\":\"best-fit\",\"alpha\":\"0.3\","
             "\"no-timing\":true}}",
             jt);
    x.place = answer_text(svc, req);
    free(jt);
    json_t *sreq = json_pack("{ss ss so so s{sb ss ss}}", "op", "simulate", "topology", "sim", "trace",
                             doc("sim/trace.json"), "scenario", doc("sim/scenario.json"), "options", "no-timing", 1,
                             "until", "7200.5", "sample-ms", "1500.25");
    char *st = json_dumps(sreq, JSON_COMPACT);
    json_decref(sreq);
    x.sim_svc = answer_text(svc, st);
    free(st);
    tsched_service_free(svc);
    free(job);

    /* a fabric with a fractional NIC speed, written back */
    char *p = data_path("cli/cluster.json");
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, p));
    free(p);
    ck_assert_ok(tsched_topology_to_json(&x.topo, t));
    tsched_topology_free(t);

    /* routes */
    tsched_flows *fl = NULL;
    tsched_routes *r = NULL;
    p = data_path("routing/fabric.json");
    ck_assert_ok(tsched_topology_load_file(&t, p));
    free(p);
    p = data_path("routing/flows.json");
    ck_assert_ok(tsched_flows_load_file(&fl, t, p));
    free(p);
    ck_assert_ok(tsched_route(&r, t, fl, NULL));
    ck_assert_ok(tsched_routes_to_json(&x.routes, r, t, 0));
    tsched_routes_free(r);
    tsched_flows_free(fl);
    tsched_topology_free(t);

    /* a simulation through the library's own calls, its JSON and its time series */
    tsched_sim *s = NULL;
    tsched_sim_result *res = NULL;
    p = data_path("sim/fabric.json");
    ck_assert_ok(tsched_topology_load_file(&t, p));
    free(p);
    ck_assert_ok(tsched_sim_new(&s, t));
    p = data_path("sim/scenario.json");
    ck_assert_ok(tsched_sim_load_scenario_file(s, p));
    free(p);
    p = data_path("sim/trace.json");
    ck_assert_ok(tsched_sim_load_trace_file(s, p));
    free(p);
    ck_assert_ok(tsched_sim_run_until(s, INT64_MAX));
    ck_assert_ok(tsched_sim_result_new(&res, s));
    ck_assert_ok(tsched_sim_result_to_json(&x.sim, res, TSCHED_SIM_JSON_NO_TIMING));
    ck_assert_ok(tsched_sim_result_timeseries_csv(&x.csv, res, 2000000000));
    /* messages with real numbers */
    tsched_sim_result_free(res);
    tsched_sim_free(s);
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_status(tsched_sim_set_option(s, TSCHED_SIM_UNTIL_S, 1e12), TSCHED_E_RANGE);
    x.msg_until = strdup(tsched_last_error());
    tsched_sim_free(s);
    tsched_topology_free(t);
    tsched_job *j = NULL;
    p = data_path("cli/job.json");
    ck_assert_ok(tsched_job_load_file(&j, p));
    free(p);
    p = data_path("cli/cluster.json");
    ck_assert_ok(tsched_topology_load_file(&t, p));
    free(p);
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.alpha = 1.5;
    tsched_placement *pl = NULL;
    ck_assert(tsched_place(&pl, t, j, &o) != TSCHED_OK);
    x.msg_alpha = strdup(tsched_last_error());
    tsched_job_free(j);
    tsched_topology_free(t);
    return x;
}

static void loc_free(loc_texts *x)
{
    free(x->place);
    free(x->sim_svc);
    tsched_free(x->topo);
    tsched_free(x->routes);
    tsched_free(x->sim);
    tsched_free(x->csv);
    free(x->msg_alpha);
    free(x->msg_until);
}

START_TEST(numbers_in_any_locale)
{
    loc_texts c = locale_texts();
    ck_assert_msg(strstr(c.msg_alpha, "1.5"), "%s", c.msg_alpha);
    ck_assert_msg(strstr(c.msg_until, "9.2e+09"), "%s", c.msg_until);
    ck_assert_msg(strstr(c.place, "\"ok\":true"), "%s", c.place);
    ck_assert_msg(strstr(c.sim_svc, "\"ok\":true"), "%s", c.sim_svc);
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *used = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !used; i++)
        if (setlocale(LC_ALL, names[i]))
            used = names[i];
    if (!used) { /* skipped, not failed: the host has no such locale (Debian: localedef -i de_DE -f UTF-8) */
        printf("numbers_in_any_locale: no de_DE or fr_FR locale installed: skipped\n");
        loc_free(&c);
        return;
    }
    char probe[32];
    snprintf(probe, sizeof probe, "%g", 0.5);
    ck_assert_msg(!strcmp(probe, "0,5"), "%s: the locale's decimal point is ',' (%s)", used, probe);
    loc_texts l = locale_texts();
    setlocale(LC_ALL, "C");
    ck_assert_msg(!strcmp(c.place, l.place), "%s: place answer\n  C: %s\n  %s", used, c.place, l.place);
    ck_assert_msg(!strcmp(c.sim_svc, l.sim_svc), "%s: simulate answer differs", used);
    ck_assert_msg(!strcmp(c.topo, l.topo), "%s: topology JSON differs", used);
    ck_assert_msg(!strcmp(c.routes, l.routes), "%s: routes JSON differs", used);
    ck_assert_msg(!strcmp(c.sim, l.sim), "%s: simulation result differs", used);
    ck_assert_msg(!strcmp(c.csv, l.csv), "%s: time series CSV differs", used);
    ck_assert_msg(!strcmp(c.msg_alpha, l.msg_alpha), "%s: message \"%s\", in C \"%s\"", used, l.msg_alpha,
                  c.msg_alpha);
    ck_assert_msg(!strcmp(c.msg_until, l.msg_until), "%s: message \"%s\", in C \"%s\"", used, l.msg_until,
                  c.msg_until);
    /* the host's spelling is not the documents': "0,3" is not a number */
    ck_assert(setlocale(LC_ALL, used));
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    load(svc, "c", "cli/cluster.json");
    json_t *a = ask_json(svc, json_pack("{ss ss so s{ss}}", "op", "place", "topology", "c", "job", doc("cli/job.json"),
                                        "options", "alpha", "0,3"), NULL);
    setlocale(LC_ALL, "C");
    expect_error(a, "TSCHED_E_RANGE", 2, "options.alpha: \"0,3\" is not a number");
    tsched_service_free(svc);
    loc_free(&c);
    loc_free(&l);
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
    tcase_add_test(tc, imports);
    tcase_add_test(tc, exports);
    tcase_add_test(tc, launch_files);
    tcase_add_test(tc, interop_errors);
    tcase_add_test(tc, no_file_is_read);
    tcase_add_test(tc, nul_bytes_are_named);
    tcase_add_test(tc, numbers_in_any_locale);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
