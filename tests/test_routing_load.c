/* tsched_routes_load_string / _file (src/routing/routes_load.c): seeded random flow sets routed
 * by every algorithm, written, read back and compared with the computed result field by field
 * (paths, rates to the bit, link counts recounted here from the paths, the smallest rate),
 * written again to the same bytes; re-routing from a loaded result answers as from the computed
 * one; and every field of the document made wrong in turn gives a status and a one-line message
 * naming that field. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/rng.h"
#include "test_util.h"

static tsched_topology *fabric(int kind)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, kind ? TSCHED_GEN_CLOS3 : TSCHED_GEN_LEAF_SPINE);
    if (kind) {
        g.pods = 2;
        g.leaves_per_pod = 3;
        g.spines_per_pod = 2;
        g.cores = 4;
    } else {
        g.leaves = 4;
        g.spines = 3;
    }
    g.nodes_per_leaf = 3;
    g.gpus_per_node = 2;
    g.nics_per_node = 2;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    return t;
}

/* `n` random flows (some within one leaf), seeded. */
static tsched_flows *random_flows(const tsched_topology *t, uint32_t n, uint64_t seed)
{
    ts_rng r;
    ts_rng_seed(&r, seed);
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    uint32_t nn = tsched_topology_num_nodes(t);
    while (tsched_flows_count(f) < n) {
        uint32_t a = (uint32_t)ts_rng_below(&r, nn), b = (uint32_t)ts_rng_below(&r, nn);
        uint32_t an = (uint32_t)ts_rng_below(&r, 2), bn = (uint32_t)ts_rng_below(&r, 2);
        if (a == b && an == bn)
            continue;
        ck_assert_ok(tsched_flows_add(NULL, f, "j", a, an, b, bn, 1.0 + (double)ts_rng_below(&r, 7)));
    }
    return f;
}

/* Flows on directed link `l`, counted from the paths. */
static uint32_t recount(const tsched_routes *r, uint32_t l)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < tsched_routes_count(r); i++) {
        tsched_path p = {.size = sizeof p};
        ck_assert_ok(tsched_routes_path(&p, r, i));
        for (uint32_t h = 0; h + 1 < p.nswitches; h++)
            n += p.links[h] == l;
    }
    return n;
}

/* `b` (loaded) answers as `a` (computed); `with_flows`: the same-leaf paths name their leaf. */
static void same_routes(const tsched_routes *a, const tsched_routes *b, const tsched_topology *t, int with_flows)
{
    ck_assert_uint_eq(tsched_routes_count(a), tsched_routes_count(b));
    ck_assert_int_eq(tsched_routes_algo(a), tsched_routes_algo(b));
    ck_assert_str_eq(tsched_routes_status(a), tsched_routes_status(b));
    ck_assert_uint_eq(tsched_routes_moved(a), tsched_routes_moved(b));
    ck_assert_int_eq(tsched_routes_has_rates(a), tsched_routes_has_rates(b));
    ck_assert_uint_eq(tsched_routes_max_link_flows(a), tsched_routes_max_link_flows(b));
    ck_assert(tsched_routes_min_rate(a) == tsched_routes_min_rate(b));
    double min = INFINITY;
    for (uint32_t i = 0; i < tsched_routes_count(a); i++) {
        tsched_path p = {.size = sizeof p}, q = {.size = sizeof q};
        ck_assert_ok(tsched_routes_path(&p, a, i));
        ck_assert_ok(tsched_routes_path(&q, b, i));
        ck_assert_uint_eq(p.nswitches, q.nswitches);
        for (uint32_t h = 0; h < p.nswitches; h++)
            ck_assert_uint_eq(q.switches[h], p.nswitches == 1 && !with_flows ? TSCHED_NONE : p.switches[h]);
        for (uint32_t h = 0; h + 1 < p.nswitches; h++)
            ck_assert_uint_eq(p.links[h], q.links[h]);
        ck_assert(tsched_routes_rate(a, i) == tsched_routes_rate(b, i)); /* to the bit */
        min = fmin(min, tsched_routes_rate(b, i));
    }
    if (tsched_routes_has_rates(b) && tsched_routes_count(b))
        ck_assert(tsched_routes_min_rate(b) == min);
    uint32_t most = 0;
    for (uint32_t l = 0; l < 2 * tsched_topology_num_trunks(t) + 2; l++) {
        uint32_t want = recount(b, l);
        ck_assert_uint_eq(tsched_routes_link_flows(b, l), want);
        ck_assert_uint_eq(tsched_routes_link_flows(a, l), want);
        most = want > most ? want : most;
    }
    ck_assert_uint_eq(tsched_routes_max_link_flows(b), most);
}

START_TEST(round_trip_every_algorithm)
{
    static const tsched_route_algo algos[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP, TSCHED_ROUTE_BALANCED_ECMP,
                                              TSCHED_ROUTE_ILP};
    for (int kind = 0; kind < 2; kind++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            tsched_topology *t = fabric(kind);
            if (seed == 3) /* routes that avoid a failed spine */
                ck_assert_ok(tsched_topology_set_up(t, "spine1", 0));
            tsched_flows *f = random_flows(t, 10 + 17 * (uint32_t)seed, seed * 77);
            for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
                for (int rates = 0; rates < 2; rates++) {
                    tsched_route_options o;
                    tsched_route_options_init(&o);
                    o.algo = algos[a];
                    o.seed = seed;
                    o.flags = rates ? 0 : TSCHED_ROUTE_NO_RATES;
                    tsched_routes *r = NULL, *back = NULL, *back2 = NULL;
                    ck_assert_ok(tsched_route(&r, t, f, &o));
                    char *text = NULL, *again = NULL, *timed = NULL;
                    ck_assert_ok(tsched_routes_to_json(&text, r, t, 0));
                    ck_assert_ok(tsched_routes_load_string(&back, t, f, text, strlen(text)));
                    same_routes(r, back, t, 1);
                    ck_assert_ok(tsched_routes_load_string(&back2, t, NULL, text, strlen(text)));
                    same_routes(r, back2, t, 0);
                    ck_assert_ok(tsched_routes_to_json(&again, back2, t, 0));
                    ck_assert_str_eq(again, text);
                    tsched_free(again);
                    /* solve_ms too reads back to the same double */
                    ck_assert_ok(tsched_routes_to_json(&timed, r, t, 1));
                    tsched_routes_free(back2);
                    ck_assert_ok(tsched_routes_load_string(&back2, t, NULL, timed, strlen(timed)));
                    ck_assert(tsched_routes_solve_ms(back2) == tsched_routes_solve_ms(r));
                    ck_assert_ok(tsched_routes_to_json(&again, back2, t, 1));
                    ck_assert_str_eq(again, timed);
                    tsched_free(again);
                    tsched_free(timed);
                    tsched_free(text);
                    tsched_routes_free(back2);
                    tsched_routes_free(back);
                    tsched_routes_free(r);
                }
            tsched_flows_free(f);
            tsched_topology_free(t);
        }
}
END_TEST

/* After a failure, re-routing from the loaded routes gives the bytes re-routing from the
 * computed ones gives; the loaded routes remember their fabric (identity and shape). */
START_TEST(reroute_from_loaded_routes)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tsched_topology *t = fabric(1), *other = fabric(1);
        tsched_flows *f = random_flows(t, 60, seed);
        tsched_routes *r = NULL, *back = NULL, *ra = NULL, *rb = NULL;
        ck_assert_ok(tsched_route(&r, t, f, NULL));
        char *text = NULL, *ja = NULL, *jb = NULL;
        ck_assert_ok(tsched_routes_to_json(&text, r, t, 0));
        ck_assert_ok(tsched_routes_load_string(&back, t, f, text, strlen(text)));
        ck_assert_status(tsched_routes_to_json(&ja, back, other, 0), TSCHED_E_MISMATCH);
        ck_assert_ok(tsched_topology_set_up(t, seed == 1 ? "spine0" : seed == 2 ? "core1" : "leaf0~spine0", 0));
        ck_assert_ok(tsched_reroute(&ra, r, t, f));
        ck_assert_ok(tsched_reroute(&rb, back, t, f));
        ck_assert_ok(tsched_routes_to_json(&ja, ra, t, 0));
        ck_assert_ok(tsched_routes_to_json(&jb, rb, t, 0));
        ck_assert_str_eq(ja, jb);
        ck_assert_uint_gt(tsched_routes_moved(rb), 0);
        tsched_free(ja);
        tsched_free(jb);
        tsched_free(text);
        tsched_routes_free(ra);
        tsched_routes_free(rb);
        tsched_routes_free(back);
        tsched_routes_free(r);
        tsched_flows_free(f);
        tsched_topology_free(other);
        tsched_topology_free(t);
    }
}
END_TEST

/* The file loader: the same result, errors prefixed by the file name. */
START_TEST(load_file)
{
    tsched_topology *t = fabric(0);
    tsched_flows *f = random_flows(t, 12, 5);
    tsched_routes *r = NULL, *back = NULL;
    ck_assert_ok(tsched_route(&r, t, f, NULL));
    char *text = NULL, *again = NULL, path[64];
    ck_assert_ok(tsched_routes_to_json(&text, r, t, 0));
    snprintf(path, sizeof path, "routes-load-%ld.json", (long)getpid());
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    ck_assert_ok(tsched_routes_load_file(&back, t, NULL, path));
    ck_assert_ok(tsched_routes_to_json(&again, back, t, 0));
    ck_assert_str_eq(again, text);
    tsched_routes_free(back);
    fp = fopen(path, "w");
    fputs("{\"format\": \"tsched.routes.v1\", \"flows\": [{\"hops\": [\"leaf0\", \"nosuch\"]}]}", fp);
    fclose(fp);
    ck_assert_status(tsched_routes_load_file(&back, t, NULL, path), TSCHED_E_NOT_FOUND);
    ck_assert_ptr_null(back);
    ck_assert_msg(strncmp(tsched_last_error(), path, strlen(path)) == 0, "%s", tsched_last_error());
    ck_assert_errmsg_has("flows[0].hops[1]");
    remove(path);
    ck_assert_status(tsched_routes_load_file(&back, t, NULL, path), TSCHED_E_IO);
    ck_assert_errmsg_has(path);
    tsched_free(again);
    tsched_free(text);
    tsched_routes_free(r);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

/* A document made by hand for draw: only format and hops, no rates. */
START_TEST(minimal_document)
{
    tsched_topology *t = fabric(0);
    const char *doc = "{\"format\": \"tsched.routes.v1\", \"flows\": [{\"hops\": [\"leaf0\", \"spine2\", \"leaf3\"]},"
                      " {\"hops\": [\"leaf3\", \"spine2\", \"leaf0\"]}, {\"hops\": [\"leaf1\"]}, {\"hops\": []},"
                      " {\"hops\": [\"leaf0\", \"spine2\", \"leaf1\"]}]}";
    tsched_routes *r = NULL;
    ck_assert_ok(tsched_routes_load_string(&r, t, NULL, doc, strlen(doc)));
    ck_assert_uint_eq(tsched_routes_count(r), 5);
    ck_assert_int_eq(tsched_routes_algo(r), TSCHED_ROUTE_GREEDY);
    ck_assert_str_eq(tsched_routes_status(r), "ok");
    ck_assert_int_eq(tsched_routes_has_rates(r), 0);
    ck_assert(tsched_routes_rate(r, 0) == 0 && tsched_routes_min_rate(r) == 0);
    uint32_t up = 2 * tu_trunk(t, "leaf0", "spine2"), down = up + 1;
    ck_assert_uint_eq(tsched_routes_link_flows(r, up), 2);   /* flows 0 and 4 climb it */
    ck_assert_uint_eq(tsched_routes_link_flows(r, down), 1); /* flow 1 comes down it */
    ck_assert_uint_eq(tsched_routes_max_link_flows(r), 2);
    tsched_path p = {.size = sizeof p};
    ck_assert_ok(tsched_routes_path(&p, r, 2));
    ck_assert_uint_eq(p.nswitches, 1);
    ck_assert_uint_eq(p.switches[0], tu_sw(t, "leaf1"));
    tsched_routes_free(r);
    tsched_topology_free(t);
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------------- */

/* The document every case changes: 2 flows on the leaf-spine fabric (4 leaves, 3 spines);
 * flow 0 node0 -> node3 (leaf0 -> leaf1), flow 1 node0 NIC 0 -> node1 (both on leaf0). */
static const char base_doc[] =
    "{\"format\": \"tsched.routes.v1\", \"algorithm\": \"greedy\", \"status\": \"ok\", \"max_link_flows\": 1,"
    " \"min_rate_gbps\": 50.0, \"moved\": 0, \"flows\": [{\"index\": 0, \"hops\": [\"leaf0\", \"spine0\", \"leaf1\"],"
    " \"rate_gbps\": 100.0}, {\"index\": 1, \"hops\": [], \"rate_gbps\": 50.0}], \"solve_ms\": 0.25}";

/* Set (value != NULL) or delete the element at `path` ("flows/0/hops/1") of `root`. */
static void edit(json_t *root, const char *path, const char *value)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *at = root;
    char *save = NULL, *tok = strtok_r(buf, "/", &save), *next;
    while ((next = strtok_r(NULL, "/", &save))) {
        at = json_is_array(at) ? json_array_get(at, strtoul(tok, NULL, 10)) : json_object_get(at, tok);
        ck_assert_ptr_nonnull(at);
        tok = next;
    }
    json_t *v = NULL;
    if (value) {
        json_error_t err;
        v = json_loads(value, JSON_DECODE_ANY, &err);
        ck_assert_msg(v != NULL, "%s: %s", value, err.text);
    }
    if (json_is_array(at)) {
        size_t k = strtoul(tok, NULL, 10);
        if (!v)
            json_array_remove(at, k);
        else if (k < json_array_size(at))
            json_array_set_new(at, k, v);
        else
            json_array_append_new(at, v);
    } else if (!v)
        json_object_del(at, tok);
    else
        json_object_set_new(at, tok, v);
}

typedef struct bad_case {
    const char *path, *value; /* value NULL: deleted */
    tsched_status want;
    const char *needle;
} bad_case;

START_TEST(every_field_wrong)
{
    static const bad_case cases[] = {
        {"format", NULL, TSCHED_E_FORMAT, "format: missing"},
        {"format", "\"tsched.routes.v2\"", TSCHED_E_FORMAT, "format: unknown format"},
        {"format", "1", TSCHED_E_TYPE, "format: expected a string"},
        {"algorithm", "\"fastest\"", TSCHED_E_FORMAT, "algorithm: unknown routing algorithm \"fastest\""},
        {"algorithm", "[]", TSCHED_E_TYPE, "algorithm: expected a string"},
        {"status", "\"optimal\"", TSCHED_E_FORMAT, "status: \"optimal\" is not a status of algorithm greedy"},
        {"status", "\"done\"", TSCHED_E_FORMAT, "status: \"done\""},
        {"status", "2", TSCHED_E_TYPE, "status: expected a string"},
        {"max_link_flows", "-1", TSCHED_E_RANGE, "max_link_flows: must not be negative"},
        {"max_link_flows", "\"1\"", TSCHED_E_TYPE, "max_link_flows: expected a whole number"},
        {"min_rate_gbps", "-0.5", TSCHED_E_RANGE, "min_rate_gbps: must not be negative"},
        {"min_rate_gbps", "true", TSCHED_E_TYPE, "min_rate_gbps: expected a number"},
        {"moved", "1.5", TSCHED_E_RANGE, "moved: expected a whole number"},
        {"moved", "{}", TSCHED_E_TYPE, "moved"},
        {"solve_ms", "-3", TSCHED_E_RANGE, "solve_ms: must not be negative"},
        {"solve_ms", "\"fast\"", TSCHED_E_TYPE, "solve_ms: expected a number"},
        {"flows", NULL, TSCHED_E_NOT_FOUND, "flows: missing required field"},
        {"flows", "{}", TSCHED_E_TYPE, "flows: expected an array"},
        {"flows/1", "7", TSCHED_E_TYPE, "flows[1]: expected an object"},
        {"flows/1/index", "0", TSCHED_E_RANGE, "flows[1].index: 0, expected 1"},
        {"flows/1/index", "\"1\"", TSCHED_E_TYPE, "flows[1].index: expected a whole number"},
        {"flows/0/hops", NULL, TSCHED_E_NOT_FOUND, "flows[0].hops: missing required field"},
        {"flows/0/hops", "\"leaf0\"", TSCHED_E_TYPE, "flows[0].hops: expected an array"},
        {"flows/0/hops/1", "3", TSCHED_E_TYPE, "flows[0].hops[1]: expected a switch name, got integer"},
        {"flows/0/hops/1", "\"spine-zz\"", TSCHED_E_NOT_FOUND, "flows[0].hops[1]: no switch \"spine-zz\""},
        {"flows/0/hops/1", "\"leaf2\"", TSCHED_E_INVALID, "flows[0].hops[1]: no trunk joins \"leaf0\" and \"leaf2\""},
        {"flows/0/hops/0", "\"spine1\"", TSCHED_E_INVALID, "flows[0].hops[0]: \"spine1\" is tier 1"},
        {"flows/0/hops/2", "\"leaf0\"", TSCHED_E_INVALID, "flows[0].hops: starts and ends at \"leaf0\""},
        {"flows/0/hops/3", "\"spine1\"", TSCHED_E_INVALID, "flows[0].hops: 4 switches; a path of fabric"},
        {"flows/0/rate_gbps", "-1", TSCHED_E_RANGE, "flows[0].rate_gbps: must not be negative"},
        {"flows/0/rate_gbps", "\"x\"", TSCHED_E_TYPE, "flows[0].rate_gbps: expected a number"},
        {"flows/1/rate_gbps", NULL, TSCHED_E_NOT_FOUND, "flows[1].rate_gbps: missing, but flows[0] has one"},
        {"flows/0/rate_gbps", NULL, TSCHED_E_INVALID, "flows[1].rate_gbps: present, but flows[0] has none"},
    };
    tsched_topology *t = fabric(0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_error_t err;
        json_t *root = json_loads(base_doc, 0, &err);
        ck_assert_ptr_nonnull(root);
        edit(root, cases[k].path, cases[k].value);
        char *text = json_dumps(root, 0);
        json_decref(root);
        tsched_routes *r = (tsched_routes *)1;
        tsched_status st = tsched_routes_load_string(&r, t, NULL, text, strlen(text));
        ck_assert_msg(st == cases[k].want, "case %zu (%s = %s): %s, expected %s: %s", k, cases[k].path,
                      cases[k].value ? cases[k].value : "deleted", tsched_status_str(st),
                      tsched_status_str(cases[k].want), tsched_last_error());
        ck_assert_ptr_null(r);
        ck_assert_msg(strstr(tsched_last_error(), cases[k].needle) != NULL, "case %zu: \"%s\" lacks \"%s\"", k,
                      tsched_last_error(), cases[k].needle);
        ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
        free(text);
    }
    /* the untouched document loads */
    tsched_routes *r = NULL;
    ck_assert_ok(tsched_routes_load_string(&r, t, NULL, base_doc, strlen(base_doc)));
    tsched_routes_free(r);
    tsched_topology_free(t);
}
END_TEST

/* A valley (down, then up again) on a three-tier fabric; ILP statuses. */
START_TEST(not_up_down_and_ilp_status)
{
    tsched_topology *t = fabric(1);
    const char *valley = "{\"format\": \"tsched.routes.v1\", \"flows\": [{\"hops\": [\"leaf0\", \"spine0\", \"leaf1\", "
                         "\"spine1\", \"leaf2\"]}]}";
    tsched_routes *r = NULL;
    ck_assert_status(tsched_routes_load_string(&r, t, NULL, valley, strlen(valley)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows[0].hops[3]: \"spine1\" climbs again");
    const char *ilp = "{\"format\": \"tsched.routes.v1\", \"algorithm\": \"ilp\", \"flows\": []}";
    ck_assert_ok(tsched_routes_load_string(&r, t, NULL, ilp, strlen(ilp)));
    ck_assert_str_eq(tsched_routes_status(r), "feasible");
    tsched_routes_free(r);
    const char *ilp_ok = "{\"format\": \"tsched.routes.v1\", \"algorithm\": \"ilp\", \"status\": \"ok\", \"flows\": []}";
    ck_assert_status(tsched_routes_load_string(&r, t, NULL, ilp_ok, strlen(ilp_ok)), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("status");
    tsched_topology_free(t);
}
END_TEST

/* With the flow set: its count, and each path's ends at the flow's NIC leaves. */
START_TEST(flow_set_checks)
{
    tsched_topology *t = fabric(0);
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    ck_assert_ok(tsched_flows_add(NULL, f, "j", tu_node(t, "node0"), 0, tu_node(t, "node3"), 0, 1.0));
    ck_assert_ok(tsched_flows_add(NULL, f, "j", tu_node(t, "node0"), 0, tu_node(t, "node1"), 0, 1.0));
    tsched_routes *r = NULL;
    ck_assert_ok(tsched_routes_load_string(&r, t, f, base_doc, strlen(base_doc)));
    tsched_path p = {.size = sizeof p};
    ck_assert_ok(tsched_routes_path(&p, r, 1));
    ck_assert_uint_eq(p.switches[0], tu_sw(t, "leaf0"));
    tsched_routes_free(r);
    /* flow 0 now ends under leaf2: the document's path does not join its NICs */
    tsched_flows *g = NULL;
    ck_assert_ok(tsched_flows_new(&g));
    ck_assert_ok(tsched_flows_add(NULL, g, "j", tu_node(t, "node0"), 0, tu_node(t, "node6"), 0, 1.0));
    ck_assert_ok(tsched_flows_add(NULL, g, "j", tu_node(t, "node3"), 0, tu_node(t, "node1"), 0, 1.0));
    ck_assert_status(tsched_routes_load_string(&r, t, g, base_doc, strlen(base_doc)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows[0].hops: joins \"leaf0\" and \"leaf1\", but the flow's NICs are on leaves \"leaf0\" and "
                         "\"leaf2\"");
    tsched_flows_free(g);
    ck_assert_ok(tsched_flows_new(&g));
    ck_assert_ok(tsched_flows_add(NULL, g, "j", tu_node(t, "node0"), 0, tu_node(t, "node3"), 0, 1.0));
    ck_assert_ok(tsched_flows_add(NULL, g, "j", tu_node(t, "node3"), 0, tu_node(t, "node1"), 0, 1.0));
    ck_assert_status(tsched_routes_load_string(&r, t, g, base_doc, strlen(base_doc)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows[1].hops: empty, but the flow's NICs are on leaves \"leaf1\" and \"leaf0\"");
    ck_assert_ok(tsched_flows_add(NULL, g, "j", tu_node(t, "node3"), 0, tu_node(t, "node1"), 0, 1.0));
    ck_assert_status(tsched_routes_load_string(&r, t, g, base_doc, strlen(base_doc)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows: 2 flows, but the flow set has 3");
    tsched_flows_free(g);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(arguments_and_limits)
{
    tsched_topology *t = fabric(0);
    tsched_routes *r = NULL;
    ck_assert_status(tsched_routes_load_string(NULL, t, NULL, base_doc, strlen(base_doc)), TSCHED_E_INVALID);
    ck_assert_status(tsched_routes_load_string(&r, NULL, NULL, base_doc, strlen(base_doc)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topo");
    ck_assert_status(tsched_routes_load_string(&r, t, NULL, NULL, 3), TSCHED_E_INVALID);
    ck_assert_errmsg_has("json");
    ck_assert_status(tsched_routes_load_string(&r, t, NULL, "{\"format\"", 9), TSCHED_E_PARSE);
    ck_assert_status(tsched_routes_load_file(&r, t, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_int_eq(tsched_routes_has_rates(NULL), 0);
    tsched_limits l = {.size = sizeof l};
    ck_assert_ok(tsched_limits_get(&l));
    l.flows = 1;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_status(tsched_routes_load_string(&r, t, NULL, base_doc, strlen(base_doc)), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("flows");
    tsched_limits_reset();
    ck_assert_ptr_null(r);
    tsched_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("routing-load");
    TCase *tc = tcase_create("load");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, round_trip_every_algorithm);
    tcase_add_test(tc, reroute_from_loaded_routes);
    tcase_add_test(tc, load_file);
    tcase_add_test(tc, minimal_document);
    tcase_add_test(tc, every_field_wrong);
    tcase_add_test(tc, not_up_down_and_ilp_status);
    tcase_add_test(tc, flow_set_checks);
    tcase_add_test(tc, arguments_and_limits);
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
