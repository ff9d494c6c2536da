/* tsched_output_opts (common.h) and the `*_opts` writers: the DESIGN 3 size rule (sizes that
 * end one and two fields early keep the defaults of the fields left out; others are refused
 * naming the struct), and for every writer that compact and indented text are the same
 * document, the indented text is the old writer's, and the compact text is byte for byte
 * what the command line made before (the indented text parsed and written on one line); the
 * lexical compaction the text-built writers use against the tree writer's compact layout. */
#include <check.h>
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/json_compact.h"
#include "test_util.h"

#define CELL_DATA TSCHED_TEST_DATA "/cell/cli/"

/* What `--compact` printed before the library laid documents out: the indented text
 * parsed and written again on one line. */
static char *reparsed(const char *indented)
{
    json_error_t err;
    json_t *doc = json_loads(indented, 0, &err);
    ck_assert_msg(doc != NULL, "%s", err.text);
    char *text = ts_json_write(doc, TS_JSON_COMPACT, NULL);
    json_decref(doc);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* `compact` and `indented` are one document; `old` (the writer without opts) is `indented`. */
static void same_document(const char *compact, const char *indented, const char *old)
{
    ck_assert_str_eq(indented, old);
    ck_assert_ptr_null(strchr(compact, '\n'));
    ck_assert_ptr_nonnull(strchr(indented, '\n'));
    json_error_t err;
    json_t *a = json_loads(compact, 0, &err), *b = json_loads(indented, 0, &err);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    char *again = reparsed(indented);
    ck_assert_str_eq(compact, again);
    free(again);
}

static tsched_output_opts opts(int compact, int timing)
{
    tsched_output_opts o;
    tsched_output_opts_init(&o);
    o.compact = compact;
    o.timing = timing;
    return o;
}

static tsched_topology *routed(tsched_routes **r)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
    g.pods = 2;
    g.leaves_per_pod = 2;
    g.spines_per_pod = 2;
    g.cores = 2;
    g.nodes_per_leaf = 2;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    uint32_t n = tsched_topology_num_nodes(t);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_ok(tsched_flows_add(NULL, f, "j", i, 0, (i * 5 + 3) % n, 1, 3.0));
    ck_assert_ok(tsched_route(r, t, f, NULL));
    tsched_flows_free(f);
    return t;
}

START_TEST(init_and_sizes)
{
    tsched_output_opts o;
    memset(&o, 0x5a, sizeof o);
    tsched_output_opts_init(&o);
    ck_assert_uint_eq(o.size, sizeof o);
    ck_assert_int_eq(o.compact, 0);
    ck_assert_int_eq(o.timing, 1);
    tsched_output_opts_init(NULL);

    tsched_routes *r = NULL;
    tsched_topology *t = routed(&r);
    char *text = NULL;
    /* size only: both defaults (indented, with solve_ms), whatever the other fields hold */
    o = opts(1, 0);
    o.size = sizeof(size_t);
    ck_assert_ok(tsched_routes_to_json_opts(&text, r, t, &o));
    ck_assert_ptr_nonnull(strchr(text, '\n'));
    ck_assert_ptr_nonnull(strstr(text, "\"solve_ms\""));
    tsched_free(text);
    /* ending after compact: compact read, timing its default */
    o.size = offsetof(tsched_output_opts, timing);
    ck_assert_ok(tsched_routes_to_json_opts(&text, r, t, &o));
    ck_assert_ptr_null(strchr(text, '\n'));
    ck_assert_ptr_nonnull(strstr(text, "\"solve_ms\""));
    tsched_free(text);
    /* the whole struct */
    o.size = sizeof o;
    ck_assert_ok(tsched_routes_to_json_opts(&text, r, t, &o));
    ck_assert_ptr_null(strchr(text, '\n'));
    ck_assert_ptr_null(strstr(text, "solve_ms"));
    tsched_free(text);
    /* inside a field, or beyond the library's struct */
    size_t bad[] = {0, 3, sizeof(size_t) + 1, sizeof o + sizeof(int)};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        o.size = bad[k];
        ck_assert_status(tsched_routes_to_json_opts(&text, r, t, &o), TSCHED_E_INVALID);
        ck_assert_ptr_null(text);
        ck_assert_errmsg_has("tsched_routes_to_json_opts");
        ck_assert_errmsg_has("tsched_output_opts");
    }
    tsched_routes_free(r);
    tsched_topology_free(t);
}
END_TEST

START_TEST(routes_compact_is_the_same_document)
{
    tsched_routes *r = NULL;
    tsched_topology *t = routed(&r);
    for (int timing = 0; timing < 2; timing++) {
        tsched_output_opts c = opts(1, timing), i = opts(0, timing);
        char *compact = NULL, *indented = NULL, *old = NULL;
        ck_assert_ok(tsched_routes_to_json_opts(&compact, r, t, &c));
        ck_assert_ok(tsched_routes_to_json_opts(&indented, r, t, &i));
        ck_assert_ok(tsched_routes_to_json(&old, r, t, timing));
        same_document(compact, indented, old);
        ck_assert_int_eq(strstr(compact, "solve_ms") != NULL, timing);
        tsched_free(compact);
        tsched_free(indented);
        tsched_free(old);
    }
    char *dflt = NULL, *old = NULL;
    ck_assert_ok(tsched_routes_to_json_opts(&dflt, r, t, NULL));
    ck_assert_ok(tsched_routes_to_json(&old, r, t, 1));
    ck_assert_uint_eq(strlen(dflt), strlen(old)); /* solve_ms is the same double: same text */
    ck_assert_str_eq(dflt, old);
    tsched_free(dflt);
    tsched_free(old);
    tsched_routes_free(r);
    tsched_topology_free(t);
}
END_TEST

START_TEST(cells_compact_is_the_same_document)
{
    tsched_topology *t = NULL;
    tsched_job *job = NULL;
    tsched_gpu_catalog *cat = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, CELL_DATA "hetero.json"));
    ck_assert_ok(tsched_job_load_file(&job, CELL_DATA "job-small.json"));
    ck_assert_ok(tsched_gpu_catalog_default(&cat));
    for (int plans = 0; plans < 2; plans++) {
        tsched_output_opts c = opts(1, 0), i = opts(0, 0);
        char *compact = NULL, *indented = NULL, *old = NULL;
        ck_assert_ok(tsched_cell_list_to_json_opts(&compact, t, job, cat, NULL, NULL, 0, 0, (tsched_plan_space)plans, &c));
        ck_assert_ok(tsched_cell_list_to_json_opts(&indented, t, job, cat, NULL, NULL, 0, 0, (tsched_plan_space)plans, &i));
        ck_assert_ok(tsched_cell_list_to_json(&old, t, job, cat, NULL, NULL, 0, 0, (tsched_plan_space)plans, 0));
        same_document(compact, indented, old);
        ck_assert_ptr_null(strstr(compact, "solve_ms"));
        tsched_free(compact);
        tsched_free(indented);
        tsched_free(old);
    }
    char *text = NULL;
    tsched_output_opts t1 = opts(1, 1);
    ck_assert_ok(tsched_cell_list_to_json_opts(&text, t, job, cat, NULL, NULL, 0, 0, TSCHED_PLANS_ASSEMBLED, &t1));
    ck_assert_ptr_nonnull(strstr(text, "\"solve_ms\":"));
    tsched_free(text);
    t1.size = 5;
    ck_assert_status(tsched_cell_list_to_json_opts(&text, t, job, cat, NULL, NULL, 0, 0, TSCHED_PLANS_ASSEMBLED, &t1),
                     TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_cell_list_to_json_opts");
    tsched_gpu_catalog_free(cat);
    tsched_job_free(job);
    tsched_topology_free(t);
}
END_TEST

START_TEST(crius_compact_is_the_same_document)
{
    tsched_topology *t = NULL;
    tsched_gpu_catalog *cat = NULL, *file = NULL;
    tsched_crius *cr = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, CELL_DATA "hetero.json"));
    ck_assert_ok(tsched_gpu_catalog_default(&cat));
    ck_assert_ok(tsched_gpu_catalog_load_file(&file, CELL_DATA "gpus.json"));
    ck_assert_ok(tsched_gpu_catalog_merge(cat, file));
    ck_assert_ok(tsched_crius_new(&cr, t, cat));
    char *text = NULL;
    ck_assert_status(tsched_crius_to_json_opts(&text, cr, NULL), TSCHED_E_STATE); /* no event yet */
    ck_assert_errmsg_has("tsched_crius_to_json_opts");
    ck_assert_ok(tsched_crius_load_queue(cr, CELL_DATA "queue.json"));
    ck_assert_ok(tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL));
    tsched_output_opts c = opts(1, 0), i = opts(0, 0);
    char *compact = NULL, *indented = NULL, *old = NULL;
    ck_assert_ok(tsched_crius_to_json_opts(&compact, cr, &c));
    ck_assert_ok(tsched_crius_to_json_opts(&indented, cr, &i));
    ck_assert_ok(tsched_crius_to_json(&old, cr, 0));
    same_document(compact, indented, old);
    ck_assert_ptr_nonnull(strstr(compact, "\"jobs\":[{"));
    tsched_free(compact);
    tsched_free(indented);
    tsched_free(old);
    ck_assert_ok(tsched_crius_to_json_opts(&text, cr, NULL));
    ck_assert_ptr_nonnull(strstr(text, "\"solve_ms\": "));
    tsched_free(text);
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(file);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
}
END_TEST


/* The lexical compaction against the tree writer's compact layout, strings with blanks,
 * escaped quotes and backslashes included. */
START_TEST(lexical_compaction_is_the_tree_layout)
{
    static const char *const docs[] = {
        "{\"a b\": \"x \\\" y\", \"c\": [1, 2.5, -3e-05, true, null, {}], \"d\": {\"e\\\\\": [ ], \"f\": \"\\\\\"}}",
        "[\n  \"\\t tab\",\n  \"\\u00e9 \\n\",\n  [\n    []\n  ]\n]",
        "{}",
    };
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        json_error_t err;
        json_t *doc = json_loads(docs[k], 0, &err);
        ck_assert_msg(doc != NULL, "%s", err.text);
        char *indented = ts_json_write(doc, TS_JSON_INDENT, NULL), *want = ts_json_write(doc, TS_JSON_COMPACT, NULL);
        ck_assert_uint_eq(ts_json_compact_text(indented), strlen(want));
        ck_assert_str_eq(indented, want);
        free(indented);
        free(want);
        json_decref(doc);
    }
}
END_TEST

/* Every other `*_opts` writer: indented = the old writer, compact = its text on one line. */
#define CHECK_WRITER(opts_call, old_call)                                                                              \
    do {                                                                                                               \
        tsched_output_opts oc_ = opts(1, 0), oi_ = opts(0, 0);                                                         \
        const tsched_output_opts *o_ = &oc_;                                                                           \
        char *out_ = NULL, *compact_, *old = NULL;                                                                     \
        ck_assert_ok(opts_call);                                                                                       \
        compact_ = out_;                                                                                               \
        o_ = &oi_;                                                                                                     \
        ck_assert_ok(opts_call);                                                                                       \
        ck_assert_ok(old_call);                                                                                        \
        same_document(compact_, out_, old);                                                                            \
        tsched_free(compact_);                                                                                         \
        tsched_free(out_);                                                                                             \
        tsched_free(old);                                                                                              \
    } while (0)

START_TEST(every_writer_compact_is_the_same_document)
{
    tsched_topology *t = NULL;
    tsched_job *j = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, TSCHED_TEST_DATA "/draw/fabric.json"));
    ck_assert_ok(tsched_job_load_file(&j, TSCHED_TEST_DATA "/draw/job.json"));
    CHECK_WRITER(tsched_topology_to_json_opts(&out_, t, o_), tsched_topology_to_json(&old, t));
    CHECK_WRITER(tsched_topology_summary_json_opts(&out_, t, o_), tsched_topology_summary_json(&old, t));
    tsched_place_options po;
    tsched_place_options_init(&po);
    po.algo = TSCHED_PLACE_BEST_FIT;
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, t, j, &po));
    CHECK_WRITER(tsched_placement_to_json_opts(&out_, p, t, "job \"a\"", o_),
                 tsched_placement_to_json(&old, p, t, "job \"a\"", 0));
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    ck_assert_ok(tsched_flows_collective(f, t, j, tsched_placement_nodes(p), tsched_placement_rows(p),
                                         tsched_placement_cols(p), TSCHED_PATTERN_DP_RING, 0, 2.5));
    CHECK_WRITER(tsched_flows_to_json_opts(&out_, f, t, o_), tsched_flows_to_json(&old, f, t));
    static const uint32_t levels[] = {0, 2, 1, 1};
    CHECK_WRITER(tsched_levels_to_json_opts(&out_, levels, 4, 0.1 + 0.2, o_),
                 tsched_levels_to_json(&old, levels, 4, 0.1 + 0.2));
    tsched_topology *ct = NULL;
    tsched_jobset *js = NULL;
    tsched_priorities *pr = NULL;
    ck_assert_ok(tsched_topology_load_file(&ct, TSCHED_TEST_DATA "/priority/crux-topo.json"));
    ck_assert_ok(tsched_jobset_load_file(&js, ct, TSCHED_TEST_DATA "/priority/crux-jobset.json"));
    ck_assert_ok(tsched_prioritize(&pr, ct, js, NULL));
    CHECK_WRITER(tsched_priorities_to_json_opts(&out_, pr, js, o_), tsched_priorities_to_json(&old, pr, js));
    /* vclos: the same requests applied to two fresh handles */
    tsched_topology *vt = NULL;
    ck_assert_ok(tsched_topology_load_file(&vt, TSCHED_TEST_DATA "/vclos-leaf-spine.json"));
    FILE *rf = fopen(TSCHED_TEST_DATA "/vclos-requests.json", "rb");
    ck_assert_ptr_nonnull(rf);
    static char req[1 << 16];
    size_t rlen = fread(req, 1, sizeof req - 1, rf);
    fclose(rf);
    for (int compact = 0; compact < 2; compact++) {
        tsched_vclos *v1 = NULL, *v2 = NULL;
        ck_assert_ok(tsched_vclos_new(&v1, vt, TSCHED_VCLOS_MODE_VCLOS));
        ck_assert_ok(tsched_vclos_new(&v2, vt, TSCHED_VCLOS_MODE_VCLOS));
        tsched_output_opts o = opts(compact, 0);
        char *a = NULL, *b = NULL;
        ck_assert_ok(tsched_vclos_apply_requests_opts(&a, v1, req, rlen, TSCHED_VCLOS_RING, 0, &o));
        ck_assert_ok(tsched_vclos_apply_requests(&b, v2, req, rlen, TSCHED_VCLOS_RING, 0, 0));
        if (compact) {
            char *again = reparsed(b);
            ck_assert_str_eq(a, again);
            free(again);
        } else
            ck_assert_str_eq(a, b);
        tsched_free(a);
        tsched_free(b);
        tsched_vclos_free(v1);
        tsched_vclos_free(v2);
    }
    tsched_topology_free(vt);
    tsched_priorities_free(pr);
    tsched_jobset_free(js);
    tsched_topology_free(ct);
    tsched_flows_free(f);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("output-opts");
    TCase *tc = tcase_create("opts");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, init_and_sizes);
    tcase_add_test(tc, routes_compact_is_the_same_document);
    tcase_add_test(tc, cells_compact_is_the_same_document);
    tcase_add_test(tc, crius_compact_is_the_same_document);
    tcase_add_test(tc, lexical_compaction_is_the_tree_layout);
    tcase_add_test(tc, every_writer_compact_is_the_same_document);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
