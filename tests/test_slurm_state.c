/* Slurm node state in the Slurm imports (tsched_slurm_options.nodes_json, doc/slurm-import.md
 * "Node state"). The fixtures were recorded from real 22.05 daemons; the expected free GPUs
 * and down nodes are what the daemons said (tests/data/slurm/README.md), written out by hand.
 * Random node lists are checked against a small model of the rules that works from the facts
 * the lists were generated from, never by parsing the strings. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define SLURM_DATA TSCHED_TEST_DATA "/slurm"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* ---- the recorded cluster -------------------------------------------------------------- */

/* tests/data/slurm/README.md: free GPUs and down, node by node, as the daemons said. */
static const struct {
    const char *name;
    uint32_t free_gpus;
    int down;
} recorded[16] = {
    {"n0", 0, 0}, {"n1", 0, 0},  {"n2", 7, 0},  {"n3", 8, 1},  {"n4", 8, 1},  {"n5", 8, 0},
    {"n6", 8, 0}, {"n7", 8, 0},  {"n8", 0, 1},  {"n9", 5, 0},  {"n10", 8, 0}, {"n11", 8, 0},
    {"n12", 8, 0}, {"n13", 8, 1}, {"n14", 8, 1}, {"n15", 8, 0},
};

/* topology-16.conf as topology.yaml (tree form). */
static const char yaml16[] = "- topology: tree16\n"
                             "  cluster_default: true\n"
                             "  tree:\n"
                             "    switches:\n"
                             "      - switch: leaf0\n"
                             "        nodes: n[0-7]\n"
                             "      - switch: leaf1\n"
                             "        nodes: n[8-15]\n"
                             "      - switch: spine0\n"
                             "        children: leaf0\n"
                             "      - switch: spine1\n"
                             "        children: leaf1\n"
                             "      - switch: root\n"
                             "        children: spine[0-1]\n";

static void check_recorded(const tsched_topology *t)
{
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 16);
    uint64_t free_up = 0;
    for (int i = 0; i < 16; i++) {
        uint32_t v = tu_node(t, recorded[i].name);
        ck_assert_uint_eq(tsched_topology_node_gpus(t, v), 8); /* gres "gpu:8" */
        ck_assert_msg(tsched_topology_node_free_gpus(t, v) == recorded[i].free_gpus, "%s: free %u, recorded %u",
                      recorded[i].name, tsched_topology_node_free_gpus(t, v), recorded[i].free_gpus);
        ck_assert_msg(tsched_topology_node_is_up(t, v) == !recorded[i].down, "%s: up %d, recorded down %d",
                      recorded[i].name, tsched_topology_node_is_up(t, v), recorded[i].down);
        ck_assert_int_eq(tsched_topology_node_is_free(t, v), !recorded[i].down && recorded[i].free_gpus == 8);
        free_up += recorded[i].down ? 0 : recorded[i].free_gpus;
    }
    ck_assert_uint_eq(tsched_topology_num_gpus(t), 128);
    ck_assert_uint_eq(free_up, 7 + 8 * 3 + 5 + 8 * 4); /* n2, n5-n7, n9, n10-n12 n15 */
    ck_assert_uint_eq(tsched_topology_num_free_gpus(t), free_up);
    /* whole free nodes per leaf: n5 n6 n7 | n10 n11 n12 n15 */
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, tu_sw(t, "leaf0")), 3);
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, tu_sw(t, "leaf1")), 4);
}

static const char *const fixtures[] = {SLURM_DATA "/nodes-22.05.json", SLURM_DATA "/sinfo-22.05.json"};

START_TEST(recorded_fixtures_every_import)
{
    char *json = slurp(fixtures[_i]), *conf = slurp(SLURM_DATA "/topology-16.conf");
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = json;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/topology-16.conf", &o));
    check_recorded(t);
    tsched_topology_free(t);
    ck_assert_ok(tsched_topology_import_slurm_string(&t, conf, strlen(conf), &o));
    check_recorded(t);
    tsched_topology_free(t);
    ck_assert_ok(tsched_topology_import_slurm_yaml_string(&t, yaml16, strlen(yaml16), &o));
    check_recorded(t);
    tsched_topology_free(t);
    char path[] = "/tmp/tsched-slurm-state-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(yaml16, f);
    fclose(f);
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, path, &o));
    remove(path);
    check_recorded(t);
    tsched_topology_free(t);
    free(json);
    free(conf);
}
END_TEST

/* The same rules on a fabric built without the state (tsched_topology_apply_slurm_nodes): the
 * recorded free GPUs and down nodes; a text that does not read changes nothing. */
START_TEST(apply_to_a_built_fabric)
{
    char *json = slurp(fixtures[_i]);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/topology-16.conf", NULL));
    char *before = NULL, *after = NULL;
    ck_assert_ok(tsched_topology_to_json(&before, t));
    ck_assert_int_eq(tsched_topology_apply_slurm_nodes(t, "{\"nodes\": [{\"name\": \"n0\", \"state\": 7}]}"),
                     TSCHED_E_PARSE);
    ck_assert_ptr_nonnull(strstr(tsched_last_error(), "state"));
    ck_assert_ok(tsched_topology_to_json(&after, t));
    ck_assert_str_eq(before, after); /* nothing applied */
    ck_assert_int_eq(tsched_topology_apply_slurm_nodes(NULL, json), TSCHED_E_INVALID);
    ck_assert_int_eq(tsched_topology_apply_slurm_nodes(t, NULL), TSCHED_E_INVALID);
    ck_assert_ok(tsched_topology_apply_slurm_nodes(t, json));
    check_recorded(t);
    tsched_free(before);
    tsched_free(after);
    tsched_topology_free(t);
    free(json);
}
END_TEST

/* Placement sees the state: a 4-node job goes on whole free nodes, never on n0-n4, n8, n9,
 * n13, n14; an 8-node job does not fit (7 whole free nodes). */
START_TEST(recorded_state_reaches_placement)
{
    char *json = slurp(SLURM_DATA "/sinfo-22.05.json");
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = json;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/topology-16.conf", &o));
    tsched_place_options po;
    tsched_place_options_init(&po);
    po.algo = TSCHED_PLACE_BEST_FIT;
    tsched_job *j = tu_job("j", 32, 8, 4);
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, t, j, &po));
    const uint32_t *nodes = tsched_placement_nodes(p);
    ck_assert_uint_eq(tsched_placement_rows(p) * tsched_placement_cols(p), 4);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t v = nodes[k];
        ck_assert_msg(tsched_topology_node_is_free(t, v), "placed on %s", tsched_topology_node_name(t, v));
    }
    tsched_placement_free(p);
    tsched_job_free(j);
    j = tu_job("big", 64, 8, 8);
    p = NULL;
    ck_assert_status(tsched_place(&p, t, j, &po), TSCHED_E_INFEASIBLE);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
    free(json);
}
END_TEST

/* ---- hand cases ------------------------------------------------------------------------ */

static const char conf4[] = "SwitchName=leaf0 Nodes=a[0-3]\n";

static tsched_topology *import4(const char *json)
{
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = json;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, conf4, strlen(conf4), &o));
    return t;
}

static void expect(const tsched_topology *t, const char *n, uint32_t gpus, uint32_t free_gpus, int up)
{
    uint32_t v = tu_node(t, n);
    ck_assert_msg(tsched_topology_node_gpus(t, v) == gpus, "%s: gpus %u, want %u", n, tsched_topology_node_gpus(t, v),
                  gpus);
    ck_assert_msg(tsched_topology_node_free_gpus(t, v) == free_gpus, "%s: free %u, want %u", n,
                  tsched_topology_node_free_gpus(t, v), free_gpus);
    ck_assert_msg(tsched_topology_node_is_up(t, v) == up, "%s: up %d, want %d", n, tsched_topology_node_is_up(t, v),
                  up);
}

/* Later Slurm: "state" an array, gres_used with indexes, typed and several entries. */
START_TEST(gres_forms_and_state_arrays)
{
    tsched_topology *t = import4(
        "{\"nodes\":["
        "{\"name\":\"a0\",\"state\":[\"MIXED\"],\"gres\":\"gpu:a100:4(S:0),gpu:v100:2(S:1),mps:400\","
        "\"gres_used\":\"gpu:a100:1(IDX:0),gpu:v100:2(IDX:4,5),mps:0\"},"
        "{\"name\":\"a1\",\"state\":[\"IDLE\",\"DRAIN\"],\"gres\":\"gpu:8(S:0-1)\",\"gres_used\":\"gpu:0(IDX:N/A)\"},"
        "{\"name\":\"a2\",\"state\":\"IDLE+MAINT\",\"gres\":\"gpu\",\"gres_used\":\"gpu:0\"},"
        "{\"name\":\"zz\",\"state\":\"down\",\"gres\":\"gpu:2\"}"
        "]}");
    expect(t, "a0", 6, 3, 1);
    expect(t, "a1", 8, 8, 0);
    expect(t, "a2", 1, 1, 0);
    expect(t, "a3", 8, 0, 0); /* absent from the live state: down */
    ck_assert_uint_eq(tsched_topology_node_nics(t, tu_node(t, "a0")), 8); /* NICs stay as the options say */
    ck_assert_uint_eq(tsched_topology_find_node(t, "zz"), TSCHED_NONE);   /* not in the topology: ignored */
    tsched_topology_free(t);
}
END_TEST

/* The conservative rules: busy without a readable gres_used, COMPLETING, ALLOCATED, no GPU,
 * no base state, unknown flags. */
START_TEST(conservative_rules)
{
    tsched_topology *t = import4("{\"nodes\":["
                                 "{\"name\":\"a0\",\"state\":\"mixed\",\"gres\":\"gpu:8\",\"gres_used\":\"gpu:?\"},"
                                 "{\"name\":\"a1\",\"state\":\"idle\",\"state_flags\":[\"COMPLETING\",\"RESERVED\"],"
                                 "\"gres\":\"gpu:8\",\"gres_used\":\"gpu:0\"},"
                                 "{\"name\":\"a2\",\"state\":\"allocated\",\"gres\":\"gpu:8\",\"gres_used\":\"gpu:2\"},"
                                 "{\"name\":\"a3\",\"state\":\"idle\",\"gres\":\"(null)\"}"
                                 "]}");
    expect(t, "a0", 8, 0, 1);
    expect(t, "a1", 8, 0, 1);
    expect(t, "a2", 8, 0, 1);
    expect(t, "a3", 8, 0, 0);
    tsched_topology_free(t);
    t = import4("{\"nodes\":["
                "{\"name\":\"a0\",\"state_flags\":[\"RESERVED\"],\"gres\":\"gpu:8\"},"
                "{\"name\":\"a1\",\"state\":\"idle\",\"gres\":\"gpu:8\",\"gres_used\":\"gpu:9\"},"
                "{\"name\":\"a2\",\"state\":\"Idle\",\"state_flags\":[\"not_responding\"],\"gres\":\"gpu:8\"},"
                "{\"name\":\"a3\",\"state\":\"mixed\",\"gres\":\"gpu:8\"}"
                "]}");
    expect(t, "a0", 8, 8, 0); /* no base state: unknown */
    expect(t, "a1", 8, 0, 1); /* more used than it has */
    expect(t, "a2", 8, 8, 0);
    expect(t, "a3", 8, 0, 1); /* mixed, no gres_used */
    tsched_topology_free(t);
    t = import4("{\"nodes\":[{\"name\":\"a0\",\"state\":\"COMPLETING\",\"gres\":\"gpu:8\"},"
                "{\"name\":\"a1\",\"state\":\"DRAINED\",\"gres\":\"gpu:8\"},"
                "{\"name\":\"a2\",\"state\":\"\",\"gres\":\"gpu:8\"},"
                "{\"name\":\"a3\",\"state\":\"ERROR\",\"gres\":\"gpu:8\"}]}");
    expect(t, "a0", 8, 0, 1); /* node_state_string() of idle+completing: busy, not down */
    expect(t, "a1", 8, 8, 0);
    expect(t, "a2", 8, 8, 0);
    expect(t, "a3", 8, 8, 0);
    tsched_topology_free(t);
}
END_TEST

/* The field is appended: a caller built against the older struct (no nodes_json) gets what it
 * got before, whatever lies past its size. */
START_TEST(old_struct_size)
{
    const char *conf = "SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[4-7]\nSwitchName=top Switches=s[0-1]\n";
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.gpus_per_node = 4;
    tsched_topology *t0 = NULL, *t1 = NULL;
    ck_assert_ok(tsched_topology_import_slurm_string(&t0, conf, strlen(conf), &o));
    o.size = offsetof(tsched_slurm_options, nodes_json);
    o.nodes_json = "not JSON at all"; /* past the size: never read */
    ck_assert_ok(tsched_topology_import_slurm_string(&t1, conf, strlen(conf), &o));
    char *a = NULL, *b = NULL;
    ck_assert_ok(tsched_topology_to_json(&a, t0));
    ck_assert_ok(tsched_topology_to_json(&b, t1));
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "\"free_gpus\": {},\n    \"down\": []")); /* all up and free */
    tsched_free(a);
    tsched_free(b);
    /* and every node idle with its GPUs gives the same document */
    o.size = sizeof o;
    o.nodes_json = "{\"nodes\":[{\"name\":\"n0\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n1\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n2\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n3\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n4\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n5\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n6\",\"state\":\"idle\",\"gres\":\"gpu:4\"},"
                   "{\"name\":\"n7\",\"state\":\"idle\",\"gres\":\"gpu:4\"}]}";
    tsched_topology *t2 = NULL;
    ck_assert_ok(tsched_topology_import_slurm_string(&t2, conf, strlen(conf), &o));
    ck_assert_ok(tsched_topology_to_json(&a, t0));
    ck_assert_ok(tsched_topology_to_json(&b, t2));
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    tsched_topology_free(t0);
    tsched_topology_free(t1);
    tsched_topology_free(t2);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------ */

static const struct {
    const char *json;
    const char *n1, *n2;
} bad[] = {
    {"[1", "nodes_json: line 1", NULL},
    {"[]", "nodes_json: expected the object", "got array"},
    {"{}", "nodes_json: nodes: missing", NULL},
    {"{\"sinfo\":[]}", "nodes_json: nodes: missing", "23.02"},
    {"{\"nodes\":3}", "nodes_json: nodes: expected an array", "got integer"},
    {"{\"nodes\":[1]}", "nodes_json: nodes[0]: expected an object", "got integer"},
    {"{\"nodes\":[{}]}", "nodes_json: nodes[0].name: missing", NULL},
    {"{\"nodes\":[{\"name\":7}]}", "nodes_json: nodes[0].name: expected a string", "got integer"},
    {"{\"nodes\":[{\"name\":\"a\"},{\"name\":\"a\"}]}", "nodes_json: nodes[1].name", "\"a\" is listed twice"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":8}]}", "nodes_json: nodes[0].gres: expected a string", "got integer"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":[\"gpu:8\"]}]}", "nodes[0].gres: expected a string", "got array"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:a:b\"}]}", "nodes_json: nodes[0].gres: \"gpu:a:b\"", "not a gres"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:8(S:0\"}]}", "nodes[0].gres: \"gpu:8(S:0\"", "not a gres"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:1x\"}]}", "nodes[0].gres: \"gpu:1x\"", "not a gres"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:,\"}]}", "nodes[0].gres: \"gpu:,\"", "not a gres"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:99999999999999999999999999\"}]}",
     "nodes[0].gres: \"gpu:99999999999999999999999999\"", "more than 1024 GPUs"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:1000,gpu:1000\"}]}", "nodes[0].gres: \"gpu:1000,gpu:1000\"",
     "more than 1024"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres_used\":{}}]}", "nodes_json: nodes[0].gres_used: expected a string",
     "got object"},
    {"{\"nodes\":[{\"name\":\"a\",\"state\":1}]}", "nodes[0].state: expected a string or an array of strings",
     "got integer"},
    {"{\"nodes\":[{\"name\":\"a\",\"state\":[\"IDLE\",null]}]}", "nodes[0].state[1]: expected a string", "got null"},
    {"{\"nodes\":[{\"name\":\"a\",\"state_flags\":\"DRAIN\"}]}", "nodes[0].state_flags: expected an array of strings",
     "got string"},
    {"{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:\\u0001\\n\"}]}", "nodes[0].gres: \"gpu:\\x01\\n\"", NULL},
};

START_TEST(errors_name_field_and_value)
{
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = bad[_i].json;
    for (int yaml = 0; yaml < 2; yaml++) {
        tsched_topology *t = (tsched_topology *)&t;
        tsched_clear_error();
        tsched_status st = yaml ? tsched_topology_import_slurm_yaml_string(&t, yaml16, strlen(yaml16), &o)
                                : tsched_topology_import_slurm_string(&t, conf4, strlen(conf4), &o);
        ck_assert_msg(st == TSCHED_E_PARSE, "%s: %s (%s)", bad[_i].json, tsched_status_str(st), tsched_last_error());
        ck_assert_ptr_null(t);
        ck_assert_errmsg_has(bad[_i].n1);
        if (bad[_i].n2)
            ck_assert_errmsg_has(bad[_i].n2);
        ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    }
}
END_TEST

/* A file import names the file only when the error is in it. */
START_TEST(file_errors_name_the_right_input)
{
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = "{\"nodes\":5}";
    tsched_topology *t = NULL;
    ck_assert_status(tsched_topology_import_slurm_file(&t, SLURM_DATA "/topology-16.conf", &o), TSCHED_E_PARSE);
    ck_assert_int_eq(strncmp(tsched_last_error(), "nodes_json: nodes:", 18), 0);
    o.nodes_json = "{\"nodes\":[]}";
    ck_assert_status(tsched_topology_import_slurm_file(&t, SLURM_DATA "/bad_cycle.conf", &o), TSCHED_E_CYCLE);
    ck_assert_errmsg_has("bad_cycle.conf");
}
END_TEST

/* Deep nesting, a long document of huge numbers, an input past the limit: a status at once. */
START_TEST(bounded_inputs)
{
    size_t depth = 100000;
    char *deep = malloc(depth + 64);
    ck_assert_ptr_nonnull(deep);
    strcpy(deep, "{\"nodes\":[{\"name\":\"a0\",\"x\":");
    size_t n = strlen(deep);
    memset(deep + n, '[', depth);
    deep[n + depth] = '\0';
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = deep;
    tsched_topology *t = NULL;
    ck_assert_status(tsched_topology_import_slurm_string(&t, conf4, strlen(conf4), &o), TSCHED_E_PARSE);
    ck_assert_errmsg_has("nodes_json");
    free(deep);
    /* 20,000 nodes whose gres is a long list of huge counts: refused at the first */
    char nines[121];
    memset(nines, '9', 120);
    nines[120] = '\0';
    size_t cap = 20000 * 200 + 64;
    char *big = malloc(cap), *p = big;
    ck_assert_ptr_nonnull(big);
    p += sprintf(p, "{\"nodes\":[");
    for (int i = 0; i < 20000; i++)
        p += sprintf(p, "%s{\"name\":\"x%d\",\"gres\":\"gpu:1,gpu:%s\"}", i ? "," : "", i, nines);
    strcpy(p, "]}");
    o.nodes_json = big;
    ck_assert_status(tsched_topology_import_slurm_string(&t, conf4, strlen(conf4), &o), TSCHED_E_PARSE);
    ck_assert_errmsg_has("nodes[0].gres");
    /* past input_bytes */
    tsched_limits lim = {.size = sizeof lim}, old;
    ck_assert_ok(tsched_limits_get(&lim));
    old = lim;
    lim.input_bytes = 1000;
    ck_assert_ok(tsched_limits_set(&lim));
    ck_assert_status(tsched_topology_import_slurm_string(&t, conf4, strlen(conf4), &o), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("nodes_json");
    ck_assert_ok(tsched_limits_set(&old));
    free(big);
}
END_TEST

/* ---- random node lists against the model of the rules --------------------------------------- */

static const char *const bases_up[] = {"idle", "mixed", "allocated"};
static const char *const bases_down[] = {"down", "future", "unknown"};
static const char *const flags_down[] = {"DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "NOT_RESPONDING",
                                         "NO_RESPOND", "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN", "MAINTENANCE",
                                         "MAINT", "REBOOT_REQUESTED", "REBOOT_ISSUED", "INVALID", "INVALID_REG"};
static const char *const flags_other[] = {"RESERVED", "CLOUD", "PLANNED", "POWER_UP", "DYNAMIC_NORM"};

/* "Drain" / "DRAIN" / "drain" */
static void put_case(char **p, tu_rng *r, const char *w)
{
    int mode = (int)tu_rng_below(r, 3);
    for (; *w; w++) {
        char c = *w;
        if (mode == 0 && c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        else if (mode == 1 && c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        *(*p)++ = c;
    }
}

/* A gres list naming `count` GPUs in `k` entries (k >= 1), with other resources mixed in. */
static void put_gres(char **p, tu_rng *r, uint32_t count, int used)
{
    uint32_t k = 1 + tu_rng_below(r, 3), left = count;
    for (uint32_t e = 0; e < k; e++) {
        uint32_t c = e + 1 == k ? left : tu_rng_below(r, left + 1);
        left -= c;
        if (e)
            *(*p)++ = ',';
        if (tu_rng_below(r, 3) == 0)
            *p += sprintf(*p, "mps:%u,", tu_rng_below(r, 500));
        int form = (int)tu_rng_below(r, 3);
        if (form == 0)
            *p += sprintf(*p, "gpu:%u", c);
        else
            *p += sprintf(*p, "gpu:%s:%u", form == 1 ? "a100" : "h100_80gb", c);
        if (used && tu_rng_below(r, 2))
            *p += c ? sprintf(*p, "(IDX:0-%u,%u)", c, c + 2) : sprintf(*p, "(IDX:N/A)");
        else if (!used && tu_rng_below(r, 2))
            *p += sprintf(*p, "(S:0-1)");
    }
}

typedef struct model_node {
    int listed;
    uint32_t gpus; /* 0: none named */
    int used_kind; /* 0 absent, 1 given, 2 garbage */
    uint32_t used;
    int base;      /* index in bases_up, or -1 a down base, -2 none */
    int flag_down, completing;
} model_node;

/* The rules of doc/slurm-import.md, from the facts. */
static void model_expect(const model_node *m, uint32_t dflt, uint32_t *gpus, uint32_t *free_gpus, int *up)
{
    *gpus = m->listed && m->gpus ? m->gpus : dflt;
    if (!m->listed) {
        *free_gpus = 0;
        *up = 0;
        return;
    }
    *up = m->gpus > 0 && (m->base >= 0 || (m->base == -2 && m->completing)) && !m->flag_down;
    int busy = m->base == 1 || m->base == 2 || m->completing, full = m->base == 2 || m->completing;
    if (m->gpus == 0 || full || (busy && m->used_kind != 1))
        *free_gpus = 0;
    else if (m->used_kind == 1)
        *free_gpus = m->used < m->gpus ? m->gpus - m->used : 0;
    else
        *free_gpus = m->gpus;
}

START_TEST(random_lists_against_the_model)
{
    enum { LEAVES = 6, PER = 5, N = LEAVES * PER };
    char conf[1024], *c = conf;
    for (int l = 0; l < LEAVES; l++)
        c += sprintf(c, "SwitchName=l%d Nodes=h[%d-%d]\n", l, l * PER, l * PER + PER - 1);
    c += sprintf(c, "SwitchName=top Switches=l[0-%d]\n", LEAVES - 1);
    char *json = malloc(1 << 20);
    ck_assert_ptr_nonnull(json);
    unsigned cases = tu_n(300);
    for (unsigned s = 0; s < cases; s++) {
        tu_rng r = tu_rng_new(0x51a7e000u + s);
        model_node m[N];
        memset(m, 0, sizeof m);
        uint32_t order[N + 4];
        for (uint32_t i = 0; i < N + 4; i++) /* 4 nodes the topology does not have */
            order[i] = i;
        tu_rng_shuffle(&r, order, N + 4);
        char *p = json;
        p += sprintf(p, "{\"meta\":{\"x\":[1,{}]},\"nodes\":[");
        int first = 1;
        for (uint32_t k = 0; k < N + 4; k++) {
            uint32_t i = order[k];
            if (tu_rng_below(&r, 10) == 0)
                continue; /* not listed */
            model_node tmp, *mn = i < N ? &m[i] : &tmp;
            memset(mn, 0, sizeof *mn);
            mn->listed = 1;
            p += sprintf(p, "%s{\"name\":\"h%u\",\"cpus\":8", first ? "" : ",", i);
            first = 0;
            /* gres */
            uint32_t g = tu_rng_below(&r, 8);
            if (g == 0) {
                static const char *const none[] = {"", "(null)", "craynetwork:4", "gpu:0"};
                p += sprintf(p, ",\"gres\":\"%s\"", none[tu_rng_below(&r, 4)]);
            } else if (g == 1) {
                p += sprintf(p, tu_rng_below(&r, 2) ? ",\"gres\":null" : "");
            } else {
                mn->gpus = 1 + tu_rng_below(&r, 16);
                p += sprintf(p, ",\"gres\":\"");
                put_gres(&p, &r, mn->gpus, 0);
                *p++ = '"';
            }
            /* gres_used */
            uint32_t u = tu_rng_below(&r, 6);
            if (u == 0) {
                mn->used_kind = 0;
            } else if (u == 1) {
                mn->used_kind = 2;
                static const char *const junk[] = {"gpu:?", "gpu:2(IDX:0", "gpu:1:2:3", ":3"};
                p += sprintf(p, ",\"gres_used\":\"%s\"", junk[tu_rng_below(&r, 4)]);
            } else {
                mn->used_kind = 1;
                mn->used = tu_rng_below(&r, (mn->gpus ? mn->gpus : 8) + 2);
                p += sprintf(p, ",\"gres_used\":\"");
                put_gres(&p, &r, mn->used, 1);
                *p++ = '"';
            }
            /* state: a word, "base+flag" or an array; flags in state_flags or not */
            uint32_t b = tu_rng_below(&r, 10);
            const char *base = NULL;
            if (b < 7) {
                mn->base = (int)(b % 3);
                base = bases_up[mn->base];
            } else if (b < 9) {
                mn->base = -1;
                base = bases_down[tu_rng_below(&r, 3)];
            } else {
                mn->base = -2;
            }
            const char *flags[3];
            uint32_t nf = tu_rng_below(&r, 3);
            for (uint32_t f = 0; f < nf; f++) {
                uint32_t w = tu_rng_below(&r, 8);
                if (w < 3) {
                    flags[f] = flags_down[tu_rng_below(&r, 16)];
                    mn->flag_down = 1;
                } else if (w == 3) {
                    flags[f] = "COMPLETING";
                    mn->completing = 1;
                } else {
                    flags[f] = flags_other[tu_rng_below(&r, 5)];
                }
            }
            int form = (int)tu_rng_below(&r, 3), in_state = form != 0;
            if (form == 0) { /* 22.05: one word and state_flags */
                if (base) {
                    p += sprintf(p, ",\"state\":\"");
                    put_case(&p, &r, base);
                    *p++ = '"';
                }
            } else if (form == 1) { /* "IDLE+DRAIN" */
                p += sprintf(p, ",\"state\":\"");
                if (base)
                    put_case(&p, &r, base);
                for (uint32_t f = 0; f < nf; f++) {
                    if (base || f)
                        *p++ = '+';
                    put_case(&p, &r, flags[f]);
                }
                *p++ = '"';
            } else { /* ["IDLE", "DRAIN"] */
                p += sprintf(p, ",\"state\":[");
                int any = 0;
                if (base) {
                    *p++ = '"';
                    put_case(&p, &r, base);
                    *p++ = '"';
                    any = 1;
                }
                for (uint32_t f = 0; f < nf; f++) {
                    p += sprintf(p, "%s\"", any ? "," : "");
                    put_case(&p, &r, flags[f]);
                    *p++ = '"';
                    any = 1;
                }
                *p++ = ']';
            }
            if (!in_state) {
                p += sprintf(p, ",\"state_flags\":[");
                for (uint32_t f = 0; f < nf; f++) {
                    p += sprintf(p, "%s\"", f ? "," : "");
                    put_case(&p, &r, flags[f]);
                    *p++ = '"';
                }
                *p++ = ']';
            }
            *p++ = '}';
        }
        strcpy(p, "]}");
        tsched_slurm_options o;
        tsched_slurm_options_init(&o);
        o.gpus_per_node = 1 + tu_rng_below(&r, 8);
        o.nodes_json = json;
        tsched_topology *t = NULL;
        tsched_status st = tsched_topology_import_slurm_string(&t, conf, strlen(conf), &o);
        ck_assert_msg(st == TSCHED_OK, "case %u: %s\n%s", s, tsched_last_error(), json);
        uint64_t free_up = 0;
        for (uint32_t i = 0; i < N; i++) {
            char name[16];
            snprintf(name, sizeof name, "h%u", i);
            uint32_t v = tu_node(t, name), gpus, free_gpus;
            int up;
            model_expect(&m[i], o.gpus_per_node, &gpus, &free_gpus, &up);
            ck_assert_msg(tsched_topology_node_gpus(t, v) == gpus && tsched_topology_node_free_gpus(t, v) == free_gpus &&
                              tsched_topology_node_is_up(t, v) == up,
                          "case %u node %s: gpus %u free %u up %d, model %u %u %d\n%s", s, name,
                          tsched_topology_node_gpus(t, v), tsched_topology_node_free_gpus(t, v),
                          tsched_topology_node_is_up(t, v), gpus, free_gpus, up, json);
            free_up += up ? free_gpus : 0;
        }
        ck_assert_uint_eq(tsched_topology_num_free_gpus(t), free_up);
        tsched_topology_free(t);
    }
    free(json);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("slurm-state");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, recorded_fixtures_every_import, 0, 2);
    tcase_add_loop_test(tc, apply_to_a_built_fabric, 0, 2);
    tcase_add_test(tc, recorded_state_reaches_placement);
    tcase_add_test(tc, gres_forms_and_state_arrays);
    tcase_add_test(tc, conservative_rules);
    tcase_add_test(tc, old_struct_size);
    tcase_add_loop_test(tc, errors_name_field_and_value, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, file_errors_name_the_right_input);
    tcase_add_test(tc, bounded_inputs);
    tcase_add_test(tc, random_lists_against_the_model);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
