/* Live state of the Kubernetes import (tsched_k8s_options.pods_json, issue 25 item 3): the
 * fixtures of tests/data/k8s against free GPUs counted by hand, each rule of the scheduler's
 * effective request on a small pod, malformed lists naming the field, the older struct size,
 * the service's options (pods-json, nodes-json), and placements on live-imported fabrics of
 * seeded random pods that never use a busy GPU or a down node. The random pod lists against
 * an independent reference are in tests/test_live_k8s.py. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "../src/common/json.h"

#define IMPORT_DATA TSCHED_TEST_DATA "/import"
#define K8S_DATA TSCHED_TEST_DATA "/k8s"

static const char *const levels2[] = {"example.com/block", "example.com/rack"};

static tsched_k8s_options opts_with(const char *pods)
{
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = levels2;
    o.nlevels = 2;
    o.pods_json = pods;
    return o;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;
    ck_assert_ok(ts_read_file(&text, &len, path));
    return text;
}

/* Free GPUs of node `name` (the test fails when it is not imported). */
static uint32_t free_of(const tsched_topology *t, const char *name) { return tsched_topology_node_free_gpus(t, tu_node(t, name)); }
static int up_of(const tsched_topology *t, const char *name) { return tsched_topology_node_is_up(t, tu_node(t, name)); }

/* The nodes of tests/data/import/nodes.json with `pods` (a file of tests/data/k8s). */
static tsched_topology *import_fixture(const char *pods_file)
{
    char path[512];
    snprintf(path, sizeof path, K8S_DATA "/%s", pods_file);
    char *pods = slurp(path);
    tsched_k8s_options o = opts_with(pods);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
    /* the string form gives the same */
    char *nodes = slurp(IMPORT_DATA "/nodes.json");
    tsched_topology *u = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_string(&u, nodes, strlen(nodes), &o));
    for (uint32_t v = 0; v < tsched_topology_num_nodes(t); v++)
        ck_assert_uint_eq(tsched_topology_node_free_gpus(u, v), tsched_topology_node_free_gpus(t, v));
    tsched_topology_free(u);
    free(nodes);
    free(pods);
    return t;
}

START_TEST(fixture_small_by_hand)
{
    tsched_topology *t = import_fixture("pods-small.json");
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 5);
    /* tests/data/k8s/README.md: each count worked out from the pods */
    ck_assert_uint_eq(free_of(t, "gpu01"), 2); /* 8 - 4 - (1 + 1); a Succeeded job holds nothing */
    ck_assert_uint_eq(free_of(t, "gpu02"), 5); /* 8 - 2 - 1 (phase Unknown still holds) */
    ck_assert_uint_eq(free_of(t, "gpu03"), 0); /* 8 - 8 */
    ck_assert_uint_eq(free_of(t, "gpu04"), 0); /* 4 - 2 (limits only) - max(1, 3): 5 > 4, none */
    ck_assert_uint_eq(free_of(t, "gpu07"), 3); /* 8 - max(1 + 1, 3 + 1) - 1 (terminating) */
    ck_assert(up_of(t, "gpu01") && up_of(t, "gpu04") && up_of(t, "gpu07"));
    ck_assert(!up_of(t, "gpu02")); /* Ready Unknown */
    ck_assert(!up_of(t, "gpu03")); /* spec.unschedulable */
    /* counted over the usable nodes only */
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), 2 + 0 + 3);
    /* the fabric's JSON keeps the live state */
    char *json;
    ck_assert_ok(tsched_topology_to_json(&json, t));
    tsched_topology *back;
    ck_assert_ok(tsched_topology_load_string(&back, json, strlen(json)));
    ck_assert_uint_eq(free_of(back, "gpu07"), 3);
    ck_assert(!up_of(back, "gpu02"));
    tsched_topology_free(back);
    tsched_free(json);
    tsched_topology_free(t);
}
END_TEST

START_TEST(fixture_empty_and_none)
{
    tsched_topology *t = import_fixture("pods-empty.json");
    ck_assert_uint_eq(free_of(t, "gpu01"), 8);
    ck_assert_uint_eq(free_of(t, "gpu04"), 4);
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), 8 + 4 + 8);
    tsched_topology_free(t);
    tsched_k8s_options o = opts_with(NULL);
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
    ck_assert_uint_eq(free_of(t, "gpu02"), 8);
    ck_assert(!up_of(t, "gpu02"));
    tsched_topology_free(t);
}
END_TEST

/* ---- one pod at a time ---- */

static const char one_node[] =
    "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"r\":\"a\"}},"
    "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"8\",\"amd.com/gpu\":\"8\"}}}]}";

/* Free GPUs of n1 (8 GPUs) under the pods `items` (the JSON of the items array). */
static uint32_t free_under(const char *items, const char *resource)
{
    static const char *const r[] = {"r"};
    char pods[4096];
    snprintf(pods, sizeof pods, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[%s]}", items);
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = r;
    o.nlevels = 1;
    o.pods_json = pods;
    o.gpu_resource = resource;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_string(&t, one_node, strlen(one_node), &o));
    uint32_t f = tsched_topology_node_free_gpus(t, 0);
    tsched_topology_free(t);
    return f;
}

#define POD(phase, spec) "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{" spec "},\"status\":{\"phase\":\"" phase "\"}}"
#define C(req, lim) "{\"name\":\"c\",\"resources\":{\"requests\":{" req "},\"limits\":{" lim "}}}"
#define G(n) "\"nvidia.com/gpu\":\"" #n "\""
#define ON "\"nodeName\":\"n1\","

START_TEST(effective_request_rules)
{
    /* containers summed */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C(G(2), G(2)) "," C(G(3), G(3)) "]"), NULL), 3);
    /* the limit stands for an absent request; a request wins over its limit */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C("", G(2)) "," C(G(1), G(4)) "]"), NULL), 5);
    /* an integer quantity as well as the API's string */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C("\"nvidia.com/gpu\":3", "") "]"), NULL), 5);
    /* init containers: the larger of their maximum and the sum */
    ck_assert_uint_eq(free_under(POD("Pending", ON "\"initContainers\":[" C(G(5), "") "," C(G(2), "") "],"
                                     "\"containers\":[" C(G(1), "") "," C(G(1), "") "]"), NULL), 3);
    ck_assert_uint_eq(free_under(POD("Running", ON "\"initContainers\":[" C(G(1), "") "],"
                                     "\"containers\":[" C(G(3), "") "]"), NULL), 5);
    /* a sidecar before an init container: max(1 + 1, 4 + 1) = 5; after it: max(1 + 1, 4) = 4 */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\","
                                     "\"resources\":{\"requests\":{" G(1) "}}}," C(G(4), "") "],"
                                     "\"containers\":[" C(G(1), "") "]"), NULL), 3);
    ck_assert_uint_eq(free_under(POD("Running", ON "\"initContainers\":[" C(G(4), "") ",{\"name\":\"s\","
                                     "\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{" G(1) "}}}],"
                                     "\"containers\":[" C(G(1), "") "]"), NULL), 4);
    /* overhead is added */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"overhead\":{" G(1) ",\"cpu\":\"250m\"},"
                                     "\"containers\":[" C(G(2), "") "]"), NULL), 5);
    /* phases: Succeeded and Failed hold nothing; Unknown, Pending and none do */
    ck_assert_uint_eq(free_under(POD("Succeeded", ON "\"containers\":[" C(G(8), "") "]"), NULL), 8);
    ck_assert_uint_eq(free_under(POD("Failed", ON "\"containers\":[" C(G(8), "") "]"), NULL), 8);
    ck_assert_uint_eq(free_under(POD("Unknown", ON "\"containers\":[" C(G(6), "") "]"), NULL), 2);
    ck_assert_uint_eq(free_under("{\"spec\":{" ON "\"containers\":[" C(G(6), "") "]}}", NULL), 2);
    /* not bound, bound to an empty name or to a node the fabric lacks: nothing */
    ck_assert_uint_eq(free_under(POD("Pending", "\"containers\":[" C(G(8), "") "]"), NULL), 8);
    ck_assert_uint_eq(free_under(POD("Pending", "\"nodeName\":\"\",\"containers\":[" C(G(8), "") "]"), NULL), 8);
    ck_assert_uint_eq(free_under(POD("Running", "\"nodeName\":\"gone\",\"containers\":[" C(G(8), "") "]"), NULL), 8);
    /* two pods add up; more than the node has: none free */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C(G(5), "") "]") ","
                                 POD("Running", ON "\"containers\":[" C(G(2), "") "]"), NULL), 1);
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C(G(5), "") "]") ","
                                 POD("Running", ON "\"containers\":[" C(G(5), "") "]"), NULL), 0);
    /* only the GPU resource counts */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C(G(5), "") "]"), "amd.com/gpu"), 8);
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[" C("\"amd.com/gpu\":\"2\"", "") "]"),
                                 "amd.com/gpu"), 6);
    /* no resources at all, an empty list */
    ck_assert_uint_eq(free_under(POD("Running", ON "\"containers\":[{\"name\":\"c\"}]"), NULL), 8);
    ck_assert_uint_eq(free_under("", NULL), 8);
}
END_TEST

/* ---- malformed lists ---- */

static void pods_fail(const char *pods, tsched_status want, const char *msg1, const char *msg2)
{
    tsched_k8s_options o = opts_with(pods);
    tsched_topology *t = (tsched_topology *)&o; /* must come back NULL */
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o), want);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has(msg1);
    if (msg2)
        ck_assert_errmsg_has(msg2);
    /* the pod list is not in the node file: its name is not in front */
    ck_assert_msg(strncmp(tsched_last_error(), "pods_json:", 10) == 0, "message \"%s\"", tsched_last_error());
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
}

#define ITEM(x) "{\"kind\":\"List\",\"items\":[" x "]}"

START_TEST(malformed_pods)
{
    pods_fail("{\"items\": [", TSCHED_E_PARSE, "pods_json", "line 1");
    pods_fail("[]", TSCHED_E_PARSE, "expected a List of Pods", "got array");
    pods_fail("{\"kind\":\"NodeList\",\"items\":[]}", TSCHED_E_PARSE, "kind: expected \"List\" or \"PodList\"",
              "NodeList");
    pods_fail("{\"kind\":\"List\"}", TSCHED_E_PARSE, "items: missing", NULL);
    pods_fail("{\"kind\":\"List\",\"items\":{}}", TSCHED_E_PARSE, "items: not an array", NULL);
    pods_fail(ITEM("1"), TSCHED_E_PARSE, "items[0]: expected a Pod object, got integer", NULL);
    pods_fail(ITEM("{\"kind\":\"Node\",\"spec\":{}}"), TSCHED_E_PARSE, "items[0].kind: expected \"Pod\", got \"Node\"",
              NULL);
    pods_fail(ITEM("{\"kind\":\"Pod\"}"), TSCHED_E_PARSE, "items[0].spec: missing", NULL);
    pods_fail(ITEM("{\"spec\":[]}"), TSCHED_E_PARSE, "items[0].spec: expected an object, got array", NULL);
    pods_fail(ITEM("{\"spec\":{\"nodeName\":7}}"), TSCHED_E_PARSE, "items[0].spec.nodeName: expected a string", NULL);
    pods_fail(ITEM("{\"spec\":{},\"status\":{\"phase\":\"running\"}}"), TSCHED_E_PARSE,
              "items[0].status.phase: \"running\" is not a pod phase", NULL);
    pods_fail(ITEM("{\"spec\":{},\"status\":{\"phase\":1}}"), TSCHED_E_PARSE,
              "items[0].status.phase: expected a string, got integer", NULL);
    pods_fail(ITEM("{\"spec\":{},\"status\":[]}"), TSCHED_E_PARSE, "items[0].status: expected an object", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":{}}}"), TSCHED_E_PARSE,
              "items[0].spec.containers: expected an array of containers, got object", NULL);
    pods_fail(ITEM("{\"spec\":{\"initContainers\":[1]}}"), TSCHED_E_PARSE,
              "items[0].spec.initContainers[0]: expected a container object, got integer", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":[]}]}}"), TSCHED_E_PARSE,
              "items[0].spec.containers[0].resources: expected an object", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":\"1\"}}]}}"), TSCHED_E_PARSE,
              "items[0].spec.containers[0].resources.requests: expected an object, got string", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"restartPolicy\":true}]}}"), TSCHED_E_PARSE,
              "items[0].spec.containers[0].restartPolicy: expected a string", NULL);
    pods_fail(ITEM("{\"spec\":{},\"metadata\":{}},{\"spec\":{\"containers\":[{},{\"resources\":{\"limits\":"
                   "{\"nvidia.com/gpu\":\"1.5\"}}}]}}"),
              TSCHED_E_PARSE, "items[1].spec.containers[1].resources.limits[\"nvidia.com/gpu\"]: \"1.5\" is not a whole "
              "number of GPUs", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"2k\"}}}]}}"),
              TSCHED_E_PARSE, "requests[\"nvidia.com/gpu\"]: \"2k\" is not a whole number", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"nvidia.com/gpu\":-1}}}]}}"),
              TSCHED_E_PARSE, "requests[\"nvidia.com/gpu\"]: -1 is not a whole number", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"nvidia.com/gpu\":true}}}]}}"),
              TSCHED_E_PARSE, "requests[\"nvidia.com/gpu\"]: expected a decimal string, got true", NULL);
    pods_fail(ITEM("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"999999999999\"}}}]}}"),
              TSCHED_E_PARSE, "\"999999999999\" GPUs are more than the limit gpus_per_node", NULL);
    pods_fail(ITEM("{\"spec\":{\"overhead\":{\"nvidia.com/gpu\":\"x\"}}}"), TSCHED_E_PARSE,
              "items[0].spec.overhead[\"nvidia.com/gpu\"]: \"x\" is not a whole number", NULL);
    /* a pod on a node the import left out, or not bound, is still checked */
    pods_fail(ITEM("{\"spec\":{\"nodeName\":\"cpu01\",\"containers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":"
                   "\"one\"}}}]}}"),
              TSCHED_E_PARSE, "\"one\" is not a whole number", NULL);
}
END_TEST

/* A caller built before pods_json: the field is not read, whatever lies beyond its size. */
START_TEST(older_struct_size)
{
    tsched_k8s_options o = opts_with("not JSON at all");
    o.size = offsetof(tsched_k8s_options, pods_json);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
    ck_assert_uint_eq(free_of(t, "gpu01"), 8);
    tsched_topology_free(t);
    o.size = sizeof o;
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o), TSCHED_E_PARSE);
}
END_TEST

/* ---- the service ---- */

/* The answer to `req` (taken); its "result" or "error" checked by the caller. */
static json_t *ask(tsched_service *svc, json_t *req)
{
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, text, strlen(text)));
    free(text);
    json_t *a = json_loads(answer, 0, NULL);
    tsched_free(answer);
    ck_assert_ptr_nonnull(a);
    return a;
}

/* state.free_gpus[node] of an import's answer (-1 when absent: every GPU free). */
static json_int_t answered_free(const json_t *a, const char *node)
{
    const json_t *r = json_object_get(a, "result");
    ck_assert_msg(r != NULL, "no result: %s", json_string_value(json_object_get(a, "error")));
    const json_t *topo = json_object_get(r, "topology");
    if (!topo)
        topo = r;
    const json_t *f = json_object_get(json_object_get(json_object_get(topo, "state"), "free_gpus"), node);
    return f ? json_integer_value(f) : -1;
}

START_TEST(service_options)
{
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    char *nodes = slurp(IMPORT_DATA "/nodes.json"), *pods = slurp(K8S_DATA "/pods-small.json");
    json_t *pobj = json_loads(pods, 0, NULL);
    for (int form = 0; form < 2; form++) {
        json_t *a = ask(svc, json_pack("{ss ss s{ss so}}", "op", "import-k8s-nodes", "text", nodes, "options", "levels",
                                       "example.com/block,example.com/rack", "pods-json",
                                       form ? json_incref(pobj) : json_string(pods)));
        ck_assert_int_eq(answered_free(a, "gpu01"), 2);
        ck_assert_int_eq(answered_free(a, "gpu07"), 3);
        json_decref(a);
    }
    json_t *a = ask(svc, json_pack("{ss ss s{ss ss}}", "op", "import-k8s-nodes", "text", nodes, "options", "levels",
                                   "example.com/block,example.com/rack", "pods-json", "{\"kind\":\"List\"}"));
    const char *e = json_string_value(json_object_get(a, "error"));
    ck_assert_msg(e && strstr(e, "options.pods-json: items: missing"), "error %s", e ? e : "(none)");
    json_decref(a);
    a = ask(svc, json_pack("{ss ss s{ss si}}", "op", "import-k8s-nodes", "text", nodes, "options", "levels",
                           "example.com/block,example.com/rack", "pods-json", 3));
    e = json_string_value(json_object_get(a, "error"));
    ck_assert_msg(e && strstr(e, "options.pods-json: expected the text"), "error %s", e ? e : "(none)");
    json_decref(a);
    /* import-slurm's nodes-json: the same free GPUs as the library call */
    char *conf = slurp(TSCHED_TEST_DATA "/slurm/topology-16.conf"), *sinfo = slurp(TSCHED_TEST_DATA "/slurm/sinfo-22.05.json");
    tsched_slurm_options so;
    tsched_slurm_options_init(&so);
    so.nodes_json = sinfo;
    tsched_topology *t;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, conf, strlen(conf), &so));
    a = ask(svc, json_pack("{ss ss s{ss}}", "op", "import-slurm", "text", conf, "options", "nodes-json", sinfo));
    int differ = 0;
    for (uint32_t v = 0; v < tsched_topology_num_nodes(t); v++) {
        json_int_t f = answered_free(a, tsched_topology_node_name(t, v));
        uint32_t want = tsched_topology_node_free_gpus(t, v);
        differ |= want != tsched_topology_node_gpus(t, v);
        ck_assert_int_eq(f < 0 ? (json_int_t)tsched_topology_node_gpus(t, v) : f, want);
    }
    ck_assert_msg(differ, "the recorded sinfo has busy nodes");
    json_decref(a);
    tsched_topology_free(t);
    a = ask(svc, json_pack("{ss ss s{ss}}", "op", "import-slurm", "text", conf, "options", "nodes-json", "{\"nodes\":1}"));
    e = json_string_value(json_object_get(a, "error"));
    ck_assert_msg(e && strstr(e, "options.nodes-json: nodes: expected an array"), "error %s", e ? e : "(none)");
    json_decref(a);
    free(conf);
    free(sinfo);
    json_decref(pobj);
    free(nodes);
    free(pods);
    tsched_service_free(svc);
}
END_TEST

/* ---- placement on the live state ---- */

/* A random cluster: 4 racks of 4 nodes of 8 GPUs (some NotReady or cordoned) and random pods
 * of one container. `busy[v]` gets the GPUs they hold (a reference of the rules kept to this
 * shape), `down[v]` the state. Returns the two texts (malloc). */
static void random_cluster(char **nodes, char **pods, uint32_t *busy, int *down, ts_rng *rng)
{
    json_t *items = json_array(), *pitems = json_array();
    for (int v = 0; v < 16; v++) {
        char name[16], rack[8];
        snprintf(name, sizeof name, "n%02d", v);
        snprintf(rack, sizeof rack, "r%d", v / 4);
        down[v] = ts_rng_below(rng, 6) == 0;
        int cordon = down[v] && ts_rng_below(rng, 2);
        json_t *node = json_pack("{ss s{ss s{ss ss}} s{sb} s{s{ss} s[{ss ss}]}}", "kind", "Node", "metadata", "name", name,
                                 "labels", "example.com/rack", rack, "example.com/block", v < 8 ? "b0" : "b1", "spec",
                                 "unschedulable", cordon, "status", "allocatable", "nvidia.com/gpu", "8", "conditions",
                                 "type", "Ready", "status", down[v] && !cordon ? "False" : "True");
        json_array_append_new(items, node);
        busy[v] = 0;
    }
    static const char *const phases[] = {"Running", "Pending", "Succeeded", "Failed", "Unknown"};
    uint32_t np = ts_rng_below(rng, 24);
    for (uint32_t i = 0; i < np; i++) {
        int v = (int)ts_rng_below(rng, 17); /* 16: not bound */
        uint32_t g = 1 + ts_rng_below(rng, 8);
        int ph = (int)ts_rng_below(rng, 5);
        char name[16], gs[8];
        snprintf(name, sizeof name, "n%02d", v);
        snprintf(gs, sizeof gs, "%u", g);
        json_t *p = json_pack("{ss s{s[{s{s{ss}}}]} s{ss}}", "kind", "Pod", "spec", "containers", "resources", "limits",
                              "nvidia.com/gpu", gs, "status", "phase", phases[ph]);
        if (v < 16)
            json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string(name));
        json_array_append_new(pitems, p);
        if (v < 16 && ph != 2 && ph != 3)
            busy[v] += g;
    }
    json_t *nl = json_pack("{ss so}", "kind", "List", "items", items), *pl = json_pack("{ss so}", "kind", "List", "items", pitems);
    *nodes = json_dumps(nl, JSON_COMPACT);
    *pods = json_dumps(pl, JSON_COMPACT);
    json_decref(nl);
    json_decref(pl);
}

START_TEST(placement_respects_live_state)
{
    ts_rng rng;
    ts_rng_seed(&rng, 2025);
    static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE};
    int placed = 0;
    for (int round = 0; round < 40; round++) {
        char *nodes, *pods;
        uint32_t busy[16];
        int down[16];
        random_cluster(&nodes, &pods, busy, down, &rng);
        tsched_k8s_options o = opts_with(pods);
        tsched_topology *t;
        ck_assert_ok(tsched_topology_import_k8s_nodes_string(&t, nodes, strlen(nodes), &o));
        uint32_t whole = 0;
        for (uint32_t v = 0; v < 16; v++) {
            uint32_t n = tu_node(t, tsched_topology_node_name(t, v)), idx = (uint32_t)atoi(tsched_topology_node_name(t, v) + 1);
            ck_assert_uint_eq(tsched_topology_node_free_gpus(t, n), busy[idx] < 8 ? 8 - busy[idx] : 0);
            ck_assert_int_eq(tsched_topology_node_is_up(t, n), !down[idx]);
            whole += !down[idx] && busy[idx] == 0;
        }
        tsched_place_algo algo = algos[round % 5];
        tsched_place_options po;
        tsched_place_options_init(&po);
        po.algo = algo;
        po.time_limit_ms = 2000;
        for (uint32_t k = 1; k <= whole + 1; k += (whole > 4 ? 2 : 1)) {
            tsched_job *job;
            ck_assert_ok(tsched_job_new(&job, "j", 8 * k, 8, 1));
            tsched_placement *p = NULL;
            tsched_status st = tsched_place(&p, t, job, &po);
            if (k > whole) {
                ck_assert_msg(st == TSCHED_E_INFEASIBLE, "%s: %u nodes of %u whole ones: %s", tsched_place_algo_name(algo),
                              k, whole, tsched_status_str(st));
            } else {
                ck_assert_msg(st == TSCHED_OK, "%s: %u of %u: %s", tsched_place_algo_name(algo), k, whole,
                              tsched_last_error());
                for (uint32_t r = 0; r < tsched_placement_rows(p); r++)
                    for (uint32_t c = 0; c < tsched_placement_cols(p); c++) {
                        uint32_t n = tsched_placement_node(p, r, c);
                        ck_assert_msg(tsched_topology_node_is_up(t, n), "%s placed on down node %s",
                                      tsched_place_algo_name(algo), tsched_topology_node_name(t, n));
                        ck_assert_msg(tsched_topology_node_free_gpus(t, n) == 8, "%s placed on busy node %s",
                                      tsched_place_algo_name(algo), tsched_topology_node_name(t, n));
                    }
                placed++;
            }
            tsched_placement_free(p);
            tsched_job_free(job);
        }
        tsched_topology_free(t);
        free(nodes);
        free(pods);
    }
    ck_assert_int_gt(placed, 40);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("topology_live");
    TCase *tc = tcase_create("k8s_pods");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fixture_small_by_hand);
    tcase_add_test(tc, fixture_empty_and_none);
    tcase_add_test(tc, effective_request_rules);
    tcase_add_test(tc, malformed_pods);
    tcase_add_test(tc, older_struct_size);
    tcase_add_test(tc, service_options);
    tcase_add_test(tc, placement_respects_live_state);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
