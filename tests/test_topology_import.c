/* Imports of foreign topologies: the YAML subset reader, topology.conf's block form and deep
 * trees, topology.yaml and Kubernetes nodes (doc/slurm-import.md, doc/k8s-import.md).
 * Expected values are worked out by hand from the fixtures (tests/data/import/) and the
 * rules in the docs, never read back from the code under test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/yaml.h"
#include "test_util.h"

#define IMPORT_DATA TSCHED_TEST_DATA "/import"

/* ---- helpers ------------------------------------------------------------------------------ */

static const char *sw_name(const tsched_topology *t, uint32_t s) { return tsched_topology_switch_name(t, s); }

static const char *leaf_of(const tsched_topology *t, const char *node)
{
    return sw_name(t, tsched_topology_node_leaf(t, tu_node(t, node)));
}

static double trunk_gbps(const tsched_topology *t, const char *a, const char *b)
{
    return tsched_topology_trunk_gbps(t, tu_trunk(t, a, b));
}

/* The switches of tier `tier`, in index order, joined by spaces. */
static const char *tier_names(const tsched_topology *t, int tier)
{
    static char buf[4096];
    buf[0] = '\0';
    for (uint32_t i = 0; i < tsched_topology_num_tier(t, tier); i++) {
        if (i)
            strcat(buf, " ");
        strcat(buf, sw_name(t, tsched_topology_tier_switch(t, tier, i)));
    }
    return buf;
}

static int linked(const tsched_topology *t, const char *a, const char *b)
{
    return tsched_topology_find_trunk(t, tu_sw(t, a), tu_sw(t, b)) != TSCHED_NONE;
}

static const char *nvl_of(const tsched_topology *t, const char *node)
{
    return tsched_topology_node_nvl_domain(t, tu_node(t, node));
}

static tsched_topology *conf_ok(const char *text, const tsched_slurm_options *o)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, text, strlen(text), o));
    return t;
}

static void conf_fails(const char *text, tsched_status want, const char *n1, const char *n2)
{
    tsched_topology *t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), NULL), want);
    ck_assert_ptr_null(t);
    if (n1)
        ck_assert_errmsg_has(n1);
    if (n2)
        ck_assert_errmsg_has(n2);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
}

static tsched_topology *yaml_ok(const char *text, const tsched_slurm_options *o)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_yaml_string(&t, text, strlen(text), o));
    return t;
}

static void yaml_fails(const char *text, const tsched_slurm_options *o, tsched_status want, const char *n1,
                       const char *n2)
{
    tsched_topology *t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_slurm_yaml_string(&t, text, strlen(text), o), want);
    ck_assert_ptr_null(t);
    if (n1)
        ck_assert_errmsg_has(n1);
    if (n2)
        ck_assert_errmsg_has(n2);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
}

/* ---- the YAML subset reader ------------------------------------------------------------------ */

/* Accepted snippets and the JSON they must give (keys sorted, compact). */
static const struct {
    const char *yaml, *json;
} yaml_accepted[] = {
    {"a: 1\n", "{\"a\":1}"},
    {"", "null"},
    {"# nothing\n\n", "null"},
    {"---\n- x\n...\n", "[\"x\"]"},
    {"a:\n- 1\n- b\nc: d\n", "{\"a\":[1,\"b\"],\"c\":\"d\"}"},
    {"- a: 1\n  b: [4, 16]\n- c:\n", "[{\"a\":1,\"b\":[4,16]},{\"c\":null}]"},
    {"- - 1\n  - 2\n", "[[1,2]]"},
    {"k: 'it''s' # c\nq: \"a\\\"b\\u00e9\"\n", "{\"k\":\"it's\",\"q\":\"a\\\"b\\u00E9\"}"},
    {"t: TRUE\nf: false\nn: ~\nr: -2.5\ns: 1e3\nz: 007\n",
     "{\"f\":false,\"n\":null,\"r\":-2.5,\"s\":\"1e3\",\"t\":true,\"z\":7}"},
    {"example.com/rack: r1\nurl: a:b#c\n", "{\"example.com/rack\":\"r1\",\"url\":\"a:b#c\"}"},
    {"a:\r\n  b: c\r\n", "{\"a\":{\"b\":\"c\"}}"},
    {"big: 123456789012345678901234567890\n", "{\"big\":\"123456789012345678901234567890\"}"},
};

/* Rejected snippets: the line and a word of the message. */
static const struct {
    const char *yaml;
    int line;
    const char *needle;
} yaml_rejected[] = {
    {"a: &x 1\n", 1, "anchors"},
    {"a: *x\n", 1, "aliases"},
    {"a: !!int 1\n", 1, "tags"},
    {"a: {b: 1}\n", 1, "flow mappings"},
    {"a: |\n  x\n", 1, "block scalars"},
    {"a: b\n  c\n", 2, "multi-line"},
    {"a: \"b\n c\"\n", 1, "double-quoted"},
    {"x: 1\n\ty: 2\n", 2, "tab"},
    {"a: 1\n---\nb: 2\n", 2, "second document"},
    {"a: 1\n...\nb: 1\n", 3, "after the end"},
    {"a: 1\nb: 2\na: 3\n", 3, "twice"},
    {"a: [1, [2]]\n", 1, "nested flow"},
    {"a: [1, 2\n", 1, "end with ']'"},
    {"- a\n- b: c\n  d\n", 3, "a misindented line"},
    {"%YAML 1.2\n", 1, "directives"},
    {"a: \"\\q\"\n", 1, "escape"},
};

START_TEST(yaml_table)
{
    for (size_t i = 0; i < sizeof yaml_accepted / sizeof *yaml_accepted; i++) {
        json_t *root = NULL;
        const char *y = yaml_accepted[i].yaml;
        ck_assert_msg(ts_yaml_parse(&root, NULL, y, strlen(y)) == TSCHED_OK, "rejected %s: %s", y,
                      tsched_last_error());
        char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
        ck_assert_msg(strcmp(s, yaml_accepted[i].json) == 0, "%s gave %s, expected %s", y, s, yaml_accepted[i].json);
        free(s);
        json_decref(root);
    }
    for (size_t i = 0; i < sizeof yaml_rejected / sizeof *yaml_rejected; i++) {
        json_t *root = (json_t *)&root;
        ts_yaml_info *info = (ts_yaml_info *)&info;
        const char *y = yaml_rejected[i].yaml;
        ck_assert_msg(ts_yaml_parse(&root, &info, y, strlen(y)) == TSCHED_E_PARSE, "accepted %s", y);
        ck_assert_ptr_null(root);
        ck_assert_ptr_null(info);
        char line[32];
        snprintf(line, sizeof line, "line %d:", yaml_rejected[i].line);
        ck_assert_errmsg_has(line);
        ck_assert_errmsg_has(yaml_rejected[i].needle);
    }
}
END_TEST

START_TEST(yaml_paths_lines_and_text)
{
    const char *y = "- topology: a\n"
                    "  tree:\n"
                    "    switches:\n"
                    "      - switch: 100\n"
                    "        nodes: n[1-2]\n"
                    "      - switch: s2\n"
                    "        nodes: &bad x\n";
    json_t *root = NULL;
    ck_assert_status(ts_yaml_parse(&root, NULL, y, strlen(y)), TSCHED_E_PARSE);
    ck_assert_errmsg_has("line 7: [0].tree.switches[1].nodes: anchors");
    y = "- topology: a\n"
        "  tree:\n"
        "    switches:\n"
        "      - switch: 100\n"
        "        nodes: n[1-2]\n";
    ts_yaml_info *info = NULL;
    ck_assert_ok(ts_yaml_parse(&root, &info, y, strlen(y)));
    const json_t *sw = json_array_get(json_object_get(json_object_get(json_array_get(root, 0), "tree"), "switches"), 0);
    ck_assert_uint_eq(ts_yaml_line(info, sw), 4);
    ck_assert_uint_eq(ts_yaml_line(info, json_object_get(sw, "nodes")), 5);
    ck_assert(json_is_integer(json_object_get(sw, "switch")));
    ck_assert_str_eq(ts_yaml_scalar_text(info, json_object_get(sw, "switch")), "100");
    ck_assert_ptr_null(ts_yaml_scalar_text(info, json_object_get(sw, "nodes")));
    ck_assert_uint_eq(ts_yaml_line(info, root), 1);
    ts_yaml_info_free(info);
    json_decref(root);
    /* keys that are not identifiers are quoted in paths */
    char path[64] = "items[3].metadata.labels";
    ts_path_key(path, sizeof path, "example.com/rack");
    ck_assert_str_eq(path, "items[3].metadata.labels[\"example.com/rack\"]");
}
END_TEST

START_TEST(yaml_bounds)
{
    /* nesting: 64 collections pass, 65 do not */
    char *y = malloc(200 * 70);
    size_t n = 0;
    for (int d = 0; d < 65; d++)
        n += (size_t)sprintf(y + n, "%*s- \n", 2 * d, "");
    n += (size_t)sprintf(y + n, "%*sx\n", 2 * 65, "");
    json_t *root = NULL;
    ck_assert_status(ts_yaml_parse(&root, NULL, y, n), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("deeper than 64");
    n = 0;
    for (int d = 0; d < 64; d++)
        n += (size_t)sprintf(y + n, "%*s- \n", 2 * d, "");
    n += (size_t)sprintf(y + n, "%*sx\n", 2 * 64, "");
    ck_assert_ok(ts_yaml_parse(&root, NULL, y, n));
    json_decref(root);
    free(y);
    /* the input_bytes limit */
    tsched_limits lim = {.size = sizeof lim};
    tsched_limits_get(&lim);
    lim.input_bytes = 8;
    tsched_limits_set(&lim);
    ck_assert_status(ts_yaml_parse(&root, NULL, "a: 123456789\n", 13), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("input_bytes");
    tsched_limits_reset();
    /* a NUL byte and bytes that are not UTF-8 */
    ck_assert_status(ts_yaml_parse(&root, NULL, "a: 1\nb\0: 2\n", 11), TSCHED_E_PARSE);
    ck_assert_errmsg_has("line 2");
    ck_assert_status(ts_yaml_parse(&root, NULL, "a: \xc3\n", 5), TSCHED_E_PARSE);
    ck_assert_errmsg_has("line 1");
}
END_TEST

/* ---- topology.conf: block form ------------------------------------------------------------------ */

START_TEST(block_contract_example)
{
    tsched_topology *t = conf_ok("# two NVL domains of four nodes, grouped in pairs\n"
                                 "BlockName=nvl1 Nodes=gpu[01-04]\n"
                                 "BlockName=nvl2 Nodes=gpu[05-08]\n"
                                 "BlockSizes=4,8\n",
                                 NULL);
    ck_assert_str_eq(tier_names(t, 0), "nvl1 nvl2");
    ck_assert_str_eq(tier_names(t, 1), "blocks1-0");
    ck_assert_uint_eq(tsched_topology_num_switches(t), 3);
    ck_assert_str_eq(leaf_of(t, "gpu03"), "nvl1");
    ck_assert_str_eq(leaf_of(t, "gpu05"), "nvl2");
    ck_assert_str_eq(nvl_of(t, "gpu01"), "nvl1");
    ck_assert_str_eq(nvl_of(t, "gpu08"), "nvl2");
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 2);
    ck_assert_uint_eq(tsched_topology_num_pods(t), 0);
    /* non-blocking: 4 nodes x 8 NICs x 400 */
    ck_assert_double_eq(trunk_gbps(t, "nvl1", "blocks1-0"), 12800);
    tsched_topology_free(t);

    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    ck_assert_int_eq(o.block_nvl, 1);
    o.block_nvl = 0;
    t = conf_ok("BlockName=nvl1 Nodes=gpu[01-04]\nBlockName=nvl2 Nodes=gpu[05-08]\nBlockSizes=4,8\n", &o);
    ck_assert_ptr_null(nvl_of(t, "gpu01"));
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 0);
    tsched_topology_free(t);
}
END_TEST

START_TEST(block_fixture_levels)
{
    /* six blocks, 4,8,16: pairs -> blocks1-0..2; fours -> blocks2-0 (over 1-0, 1-1) and
     * blocks2-1 (over 1-2, a short group); two on top -> blocks-root */
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/block.conf", NULL));
    ck_assert_str_eq(tier_names(t, 0), "nvl1 nvl2 nvl3 nvl4 nvl5 nvl6");
    ck_assert_str_eq(tier_names(t, 1), "blocks1-0 blocks1-1 blocks1-2");
    ck_assert_str_eq(tier_names(t, 2), "blocks2-0 blocks2-1");
    ck_assert_str_eq(tier_names(t, 3), "blocks-root");
    ck_assert_uint_eq(tsched_topology_num_tier(t, 4), 0);
    ck_assert(linked(t, "nvl1", "blocks1-0") && linked(t, "nvl2", "blocks1-0") && linked(t, "nvl3", "blocks1-1"));
    ck_assert(linked(t, "nvl6", "blocks1-2") && !linked(t, "nvl3", "blocks1-0"));
    ck_assert(linked(t, "blocks1-0", "blocks2-0") && linked(t, "blocks1-1", "blocks2-0"));
    ck_assert(linked(t, "blocks1-2", "blocks2-1") && !linked(t, "blocks1-2", "blocks2-0"));
    ck_assert(linked(t, "blocks2-0", "blocks-root") && linked(t, "blocks2-1", "blocks-root"));
    ck_assert_uint_eq(tsched_topology_num_trunks(t), 6 + 3 + 2);
    /* a tier-2 switch exists: pods are the pairs */
    ck_assert_uint_eq(tsched_topology_num_pods(t), 3);
    ck_assert_uint_eq(tsched_topology_node_pod(t, tu_node(t, "gpu01")), tsched_topology_node_pod(t, tu_node(t, "gpu08")));
    ck_assert_uint_ne(tsched_topology_node_pod(t, tu_node(t, "gpu01")), tsched_topology_node_pod(t, tu_node(t, "gpu09")));
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 6);
    ck_assert_str_eq(nvl_of(t, "gpu24"), "nvl6");
    /* capacities add up: a pair carries 2 x 12800, the short four 25600, the full 51200 */
    ck_assert_double_eq(trunk_gbps(t, "blocks1-1", "blocks2-0"), 25600);
    ck_assert_double_eq(trunk_gbps(t, "blocks2-0", "blocks-root"), 51200);
    ck_assert_double_eq(trunk_gbps(t, "blocks2-1", "blocks-root"), 25600);
    uint64_t paths = 0;
    ck_assert_ok(tsched_topology_path_count(&paths, t, tu_node(t, "gpu01"), 0, tu_node(t, "gpu24"), 0));
    ck_assert_uint_eq(paths, 1);
    tsched_topology_free(t);
}
END_TEST

START_TEST(block_without_sizes)
{
    tsched_topology *t = conf_ok("BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-5]\nBlockName=c Nodes=n6\n", NULL);
    ck_assert_str_eq(tier_names(t, 0), "a b c");
    ck_assert_str_eq(tier_names(t, 1), "blocks-root");
    ck_assert(linked(t, "c", "blocks-root"));
    tsched_topology_free(t);
    t = conf_ok("blockname=only nodes=n[1-3]\n", NULL); /* keys are case-insensitive */
    ck_assert_uint_eq(tsched_topology_num_switches(t), 1);
    ck_assert_str_eq(nvl_of(t, "n2"), "only");
    tsched_topology_free(t);
    /* one block of the BlockSizes levels gets a chain of single-child switches */
    t = conf_ok("BlockName=a Nodes=n[1-4]\nBlockSizes=4,8,16\n", NULL);
    ck_assert_str_eq(tier_names(t, 1), "blocks1-0");
    ck_assert_str_eq(tier_names(t, 2), "blocks2-0");
    ck_assert_uint_eq(tsched_topology_num_tier(t, 3), 0);
    tsched_topology_free(t);
}
END_TEST

START_TEST(block_errors)
{
    conf_fails("SwitchName=s Nodes=n1\nBlockName=b Nodes=n2\n", TSCHED_E_PARSE, "line 2", "tree form");
    conf_fails("BlockName=b Nodes=n2\nSwitchName=s Nodes=n1\n", TSCHED_E_PARSE, "line 2", "block form");
    conf_fails("BlockSizes=4\nSwitchName=s Nodes=n1\n", TSCHED_E_PARSE, "line 2", "BlockSizes= on line 1");
    conf_fails("BlockName=b Nodes=n[1-4] Switches=x\n", TSCHED_E_PARSE, "line 1", "Switches= does not belong");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=4\nBlockSizes=4\n", TSCHED_E_PARSE, "line 3", "second BlockSizes");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=4,12\n", TSCHED_E_RANGE, "line 2", "12");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=4,4\n", TSCHED_E_RANGE, "line 2", "power-of-two");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=0\n", TSCHED_E_RANGE, "line 2", "size 0");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=4,x\n", TSCHED_E_PARSE, "line 2", "BlockSizes=");
    conf_fails("BlockName=b Nodes=n[1-4]\nBlockSizes=1,2,4,8,16,32,64,128,256\n", TSCHED_E_RANGE, "9 sizes", NULL);
    /* a block smaller than the first size, named */
    conf_fails("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-7]\nBlockSizes=4,8\n", TSCHED_E_RANGE, "line 2",
               "\"b2\" has 3 nodes");
    /* a node in two blocks, naming the node and both blocks */
    conf_fails("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[4-7]\n", TSCHED_E_DUPLICATE, "\"n4\"", "\"b1\"");
    ck_assert_errmsg_has("\"b2\"");
    /* a block named like a switch the import generates */
    conf_fails("BlockName=blocks-root Nodes=n1\nBlockName=b Nodes=n2\n", TSCHED_E_DUPLICATE, "blocks-root", "line 1");
    /* 129 blocks under seven levels of groups: the root over the two top groups would be tier 8 */
    char *text = malloc(129 * 40 + 64);
    size_t n = 0;
    for (int i = 0; i < 129; i++)
        n += (size_t)sprintf(text + n, "BlockName=b%d Nodes=n%d\n", i, i);
    sprintf(text + n, "BlockSizes=1,2,4,8,16,32,64,128\n");
    conf_fails(text, TSCHED_E_RANGE, "\"blocks-root\"", "tier 8");
    ck_assert_errmsg_has("line 130"); /* the BlockSizes line made it */
    sprintf(text + n, "BlockSizes=1,2,4,8,16,32,64,256\n");
    tsched_topology *t = conf_ok(text, NULL);
    ck_assert_str_eq(tier_names(t, 7), "blocks7-0");
    ck_assert_uint_eq(tsched_topology_num_tier(t, 6), 3);
    tsched_topology_free(t);
    free(text);
}
END_TEST

START_TEST(scontrol_output)
{
    /* scontrol show topology: Level= marks it; LinkSpeed=1 is a placeholder, the upper
     * switch lists its nodes too */
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/scontrol-tree.txt", NULL));
    ck_assert_str_eq(tier_names(t, 0), "s0 s1");
    ck_assert_str_eq(tier_names(t, 1), "s2");
    ck_assert_double_eq(tsched_topology_node_nic_gbps(t, tu_node(t, "tux0")), 400);
    ck_assert_double_eq(trunk_gbps(t, "s0", "s2"), 4 * 8 * 400);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8);
    tsched_topology_free(t);
    ck_assert_ok(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/scontrol-block.txt", NULL));
    ck_assert_str_eq(tier_names(t, 0), "b1 b2");
    ck_assert_str_eq(tier_names(t, 1), "blocks-root");
    ck_assert_str_eq(nvl_of(t, "tux5"), "b2");
    tsched_topology_free(t);
    /* without Level=, Nodes= with Switches= is still an error, and LinkSpeed counts */
    conf_fails("SwitchName=s0 Nodes=a\nSwitchName=s2 Nodes=a Switches=s0\n", TSCHED_E_PARSE, "line 2", "both");
    t = conf_ok("SwitchName=s0 Nodes=a\nSwitchName=s2 Switches=s0 LinkSpeed=100\n", NULL);
    ck_assert_double_eq(trunk_gbps(t, "s0", "s2"), 100);
    tsched_topology_free(t);
    /* Level= anywhere: every LinkSpeed is the placeholder */
    t = conf_ok("SwitchName=s0 Nodes=a LinkSpeed=5\nSwitchName=s2 Level=1 Switches=s0 LinkSpeed=100\n", NULL);
    ck_assert_double_eq(trunk_gbps(t, "s0", "s2"), 8 * 400);
    ck_assert_double_eq(tsched_topology_node_nic_gbps(t, tu_node(t, "a")), 400);
    tsched_topology_free(t);
}
END_TEST

/* LinkSpeed is read correctly rounded: on seeded random values, printed with up to 25
 * fractional digits (many more than a double holds, so the text is not the double's own),
 * with leading zeros and as integers, the trunk's capacity is strtod's reading of the same
 * text (the C locale's, the exact reference); an export's shortest text reads back to
 * the same double. */
START_TEST(link_speed_correctly_rounded)
{
    tu_rng r = {0x9e3779b97f4a7c15ULL};
    for (int c = 0; c < (int)tu_n(600); c++) {
        double v = tu_rng_unit(&r) * (c % 3 == 0 ? 1e4 : c % 3 == 1 ? 1 : 1e-3);
        char num[64], text[160];
        if (c % 5 == 0)
            snprintf(num, sizeof num, "%.0f", v * 1e3);
        else if (c % 5 == 1)
            snprintf(num, sizeof num, "000%.*f", 3 + c % 23, v);
        else
            snprintf(num, sizeof num, "%.*f", 3 + c % 23, v);
        if (strspn(num, "0.") == strlen(num))
            continue; /* zero: refused as a speed, not read */
        snprintf(text, sizeof text, "SwitchName=l Nodes=a\nSwitchName=s Switches=l LinkSpeed=%s\n", num);
        tsched_topology *t = conf_ok(text, NULL);
        double got = trunk_gbps(t, "l", "s"), want = strtod(num, NULL);
        ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "LinkSpeed=%s read as %.17g, strtod %.17g", num, got,
                      want);
        tsched_topology_free(t);
    }
    /* significant digits after many leading zeros count */
    tsched_topology *t = conf_ok("SwitchName=l Nodes=a\nSwitchName=s Switches=l LinkSpeed=0.001234567890123456789\n",
                                 NULL);
    double got = trunk_gbps(t, "l", "s"), want = 0.001234567890123456789;
    ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "read as %.17g", got);
    tsched_topology_free(t);
}
END_TEST

/* ---- deep trees -------------------------------------------------------------------------------- */

START_TEST(deep_trees)
{
    static const struct {
        const char *file;
        int levels;
    } deep[] = {{"/deep5.conf", 5}, {"/deep8.conf", 8}};
    for (size_t k = 0; k < 2; k++) {
        tsched_topology *t = NULL;
        char path[256];
        snprintf(path, sizeof path, "%s%s", IMPORT_DATA, deep[k].file);
        ck_assert_ok(tsched_topology_import_slurm_file(&t, path, NULL));
        int L = deep[k].levels;
        for (int tier = 0; tier < L; tier++)
            ck_assert_uint_eq(tsched_topology_num_tier(t, tier), 1u << (L - 1 - tier));
        ck_assert_uint_eq(tsched_topology_num_tier(t, L), 0);
        ck_assert_uint_eq(tsched_topology_num_nodes(t), 2u << (L - 1));
        char top[16];
        snprintf(top, sizeof top, "s%d-0", L - 1);
        ck_assert_int_eq(tsched_topology_switch_tier(t, tu_sw(t, top)), L - 1);
        /* first and last node meet only at the top: one path through 2L - 1 switches */
        char a[16], b[16];
        snprintf(a, sizeof a, "n0-0");
        snprintf(b, sizeof b, "n%u-1", (1u << (L - 1)) - 1);
        tsched_path p[2];
        p[0].size = sizeof p[0];
        size_t count = 0;
        ck_assert_ok(tsched_topology_paths(p, 2, &count, t, tu_node(t, a), 0, tu_node(t, b), 0));
        ck_assert_uint_eq(count, 1);
        ck_assert_uint_eq(p[0].nswitches, (uint32_t)(2 * L - 1));
        ck_assert_str_eq(sw_name(t, p[0].switches[L - 1]), top);
        /* the core capacity is non-blocking: half the nodes x 8 NICs x 400 on each side */
        char s1[16], s0[16];
        snprintf(s1, sizeof s1, "s%d-0", L - 2);
        snprintf(s0, sizeof s0, "s%d-0", L - 1);
        ck_assert_double_eq(trunk_gbps(t, s1, s0), (double)(1u << (L - 1)) * 8 * 400);
        tsched_topology_free(t);
    }
    tsched_topology *t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/deep9.conf", NULL), TSCHED_E_RANGE);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has("deep9.conf");
    ck_assert_errmsg_has("\"s8-0\"");
    ck_assert_errmsg_has("tier 8");
}
END_TEST

/* ---- topology.yaml ------------------------------------------------------------------------------ */

START_TEST(yaml_fixture_selection)
{
    tsched_topology *t = NULL;
    tsched_slurm_options o;
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", NULL));
    ck_assert_str_eq(tier_names(t, 0), "rk1 rk2");
    ck_assert_str_eq(tier_names(t, 1), "spine");
    ck_assert_str_eq(leaf_of(t, "gpu06"), "rk2");
    ck_assert_ptr_null(nvl_of(t, "gpu01"));
    ck_assert_double_eq(trunk_gbps(t, "rk1", "spine"), 4 * 8 * 400);
    tsched_topology_free(t);

    tsched_slurm_options_init(&o);
    o.nvl_topology = "nvlink";
    o.gpus_per_node = 4;
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o));
    ck_assert_str_eq(tier_names(t, 0), "rk1 rk2");
    ck_assert_str_eq(nvl_of(t, "gpu04"), "nvl1");
    ck_assert_str_eq(nvl_of(t, "gpu05"), "nvl2");
    ck_assert_uint_eq(tsched_topology_node_gpus(t, tu_node(t, "gpu05")), 4);
    tsched_topology_free(t);

    tsched_slurm_options_init(&o);
    o.topology = "nvlink";
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o));
    ck_assert_str_eq(tier_names(t, 0), "nvl1 nvl2");
    ck_assert_str_eq(tier_names(t, 1), "blocks1-0");
    ck_assert_str_eq(nvl_of(t, "gpu07"), "nvl2");
    tsched_topology_free(t);

    o.topology = "everything";
    t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o), TSCHED_E_FORMAT);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has("topology.yaml: line 23: [2]");
    ck_assert_errmsg_has("flat");
    o.topology = "nope";
    ck_assert_status(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o),
                     TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("\"nope\"");
    tsched_slurm_options_init(&o);
    o.nvl_topology = "missing";
    ck_assert_status(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o),
                     TSCHED_E_NOT_FOUND);
    o.nvl_topology = "fabric";
    ck_assert_status(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("not a block topology");
}
END_TEST

START_TEST(yaml_default_rules)
{
    /* no cluster_default: the first tree or block entry, skipping flat */
    tsched_topology *t = yaml_ok("- topology: f\n  flat: true\n"
                                 "- topology: b\n  block:\n    blocks:\n      - block: x\n        nodes: n[1-2]\n"
                                 "- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: m1\n",
                                 NULL);
    ck_assert_str_eq(tier_names(t, 0), "x");
    tsched_topology_free(t);
    /* cluster_default on a later entry wins */
    t = yaml_ok("- topology: b\n  block:\n    blocks:\n      - block: x\n        nodes: n[1-2]\n"
                "- topology: t\n  cluster_default: True\n  tree:\n    switches:\n      - switch: s\n"
                "        nodes: m1\n",
                NULL);
    ck_assert_str_eq(tier_names(t, 0), "s");
    tsched_topology_free(t);
    /* a default that is flat has nothing to import */
    yaml_fails("- topology: f\n  cluster_default: true\n  flat: true\n"
               "- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: m1\n",
               NULL, TSCHED_E_FORMAT, "line 1", "\"f\" is flat");
    yaml_fails("- topology: f\n  flat: true\n", NULL, TSCHED_E_FORMAT, "no tree or block", NULL);
    yaml_fails("- topology: r\n  ring:\n    rings: []\n", NULL, TSCHED_E_FORMAT, "no tree or block", NULL);
    /* a switch name the reader took for a number is its text */
    t = yaml_ok("- topology: t\n  tree:\n    switches:\n      - switch: 007\n        nodes: n1\n", NULL);
    ck_assert_str_eq(tier_names(t, 0), "007");
    tsched_topology_free(t);
}
END_TEST

START_TEST(yaml_errors)
{
    static const char head[] = "- topology: t\n  tree:\n    switches:\n";
    char text[1024];
    /* a cycle through children, naming the switches */
    snprintf(text, sizeof text, "%s      - switch: a\n        children: b\n      - switch: b\n        children: a\n",
             head);
    yaml_fails(text, NULL, TSCHED_E_CYCLE, "line 7: [0].tree.switches[1].children", "a -> b -> a");
    /* a node under two leaves */
    snprintf(text, sizeof text, "%s      - switch: a\n        nodes: n[1-2]\n      - switch: b\n        nodes: n2\n",
             head);
    yaml_fails(text, NULL, TSCHED_E_DUPLICATE, "line 7: [0].tree.switches[1].nodes", "\"n2\"");
    /* both nodes and children */
    snprintf(text, sizeof text, "%s      - switch: a\n        nodes: n1\n        children: b\n", head);
    yaml_fails(text, NULL, TSCHED_E_PARSE, "line 4: [0].tree.switches[0]", "both");
    /* a missing name, an unknown child */
    snprintf(text, sizeof text, "%s      - nodes: n1\n", head);
    yaml_fails(text, NULL, TSCHED_E_PARSE, "[0].tree.switches[0].switch: missing", NULL);
    snprintf(text, sizeof text, "%s      - switch: a\n        children: zz\n", head);
    yaml_fails(text, NULL, TSCHED_E_NOT_FOUND, "line 5: [0].tree.switches[0].children", "\"zz\"");
    /* entry shapes */
    yaml_fails("- topology: t\n  tree:\n    switches: []\n  flat: true\n", NULL, TSCHED_E_PARSE, "exactly one", NULL);
    yaml_fails("- topology: t\n", NULL, TSCHED_E_PARSE, "none of tree", NULL);
    yaml_fails("- flat: true\n", NULL, TSCHED_E_PARSE, "[0].topology: missing", NULL);
    yaml_fails("topology: t\n", NULL, TSCHED_E_PARSE, "sequence of topologies", NULL);
    yaml_fails("- topology: t\n  flat: true\n- topology: t\n  flat: true\n", NULL, TSCHED_E_DUPLICATE, "line 3",
               "\"t\"");
    yaml_fails("- topology: t\n  cluster_default: yes\n  flat: true\n", NULL, TSCHED_E_PARSE, "cluster_default",
               NULL);
    /* a block smaller than block_sizes[0]; sizes that are no power-of-two multiple */
    yaml_fails("- topology: b\n  block:\n    block_sizes: [4]\n    blocks:\n      - block: x\n        nodes: n[1-3]\n",
               NULL, TSCHED_E_RANGE, "line 5: [0].block.blocks[0].block", "fewer than");
    yaml_fails("- topology: b\n  block:\n    block_sizes: [4, 24]\n    blocks:\n      - block: x\n"
               "        nodes: n[1-4]\n",
               NULL, TSCHED_E_RANGE, "line 3: [0].block.block_sizes", "24");
    yaml_fails("- topology: b\n  block:\n    block_sizes: [4, \"8\"]\n    blocks: []\n", NULL, TSCHED_E_PARSE,
               "block_sizes", "whole number");
    /* YAML outside the subset, with the path */
    yaml_fails("- topology: b\n  block: {blocks: []}\n", NULL, TSCHED_E_PARSE, "line 2: [0].block: flow mappings",
               NULL);
    /* --nvl-topology: a node the structure lacks; a node in two overlay blocks */
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nvl_topology = "nv";
    yaml_fails("- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: n[1-2]\n"
               "- topology: nv\n  block:\n    blocks:\n      - block: x\n        nodes: n[2-3]\n",
               &o, TSCHED_E_NOT_FOUND, "line 10: [1].block.blocks[0].nodes", "\"n3\"");
    yaml_fails("- topology: t\n  tree:\n    switches:\n      - switch: s\n        nodes: n[1-2]\n"
               "- topology: nv\n  block:\n    blocks:\n      - block: x\n        nodes: n[1-2]\n"
               "      - block: y\n        nodes: n2\n",
               &o, TSCHED_E_DUPLICATE, "\"n2\" is in block \"x\" and in block \"y\"", NULL);
}
END_TEST

START_TEST(slurm_options_sizes)
{
    /* a caller built before block_nvl, topology and nvl_topology: their defaults apply */
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.size = offsetof(tsched_slurm_options, block_nvl);
    o.block_nvl = 0;           /* not covered: ignored */
    o.topology = "everything"; /* not covered: ignored */
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/block.conf", &o));
    ck_assert_str_eq(nvl_of(t, "gpu01"), "nvl1");
    tsched_topology_free(t);
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, IMPORT_DATA "/topology.yaml", &o));
    ck_assert_str_eq(tier_names(t, 1), "spine");
    tsched_topology_free(t);
    o.size = offsetof(tsched_slurm_options, block_nvl) + 1;
    ck_assert_status(tsched_topology_import_slurm_file(&t, IMPORT_DATA "/block.conf", &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_slurm_options");
}
END_TEST

/* ---- Kubernetes nodes ------------------------------------------------------------------------- */

static const char *const levels3[] = {"example.com/block", "example.com/rack", "kubernetes.io/hostname"};

static tsched_k8s_options k8s_opts(const char *const *levels, uint32_t n)
{
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = levels;
    o.nlevels = n;
    return o;
}

static void check_nodes_fixture(const tsched_topology *t)
{
    /* rack r1 is in b1 and in b2: both named by path; r2 and r3 by value */
    ck_assert_str_eq(tier_names(t, 0), "b1/r1 r2 b2/r1 r3");
    ck_assert_str_eq(tier_names(t, 1), "b1 b2");
    ck_assert_uint_eq(tsched_topology_num_tier(t, 2), 0);
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "b1/r1")), "r1");
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "b2/r1")), "r1");
    ck_assert_ptr_null(tsched_topology_switch_value(t, tu_sw(t, "r2")));
    ck_assert(linked(t, "b1/r1", "b1") && linked(t, "r2", "b1") && linked(t, "b2/r1", "b2") && linked(t, "r3", "b2"));
    ck_assert(!linked(t, "b2/r1", "b1"));
    /* kept nodes in input order */
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 5);
    static const char *const kept[] = {"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"};
    for (uint32_t i = 0; i < 5; i++)
        ck_assert_str_eq(tsched_topology_node_name(t, i), kept[i]);
    ck_assert_str_eq(leaf_of(t, "gpu04"), "b2/r1");
    ck_assert_uint_eq(tsched_topology_node_gpus(t, tu_node(t, "gpu04")), 4);
    ck_assert_uint_eq(tsched_topology_node_nics(t, tu_node(t, "gpu04")), 4);
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, tu_node(t, "gpu01")), "NVIDIA-H100-80GB-HBM3");
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, tu_node(t, "gpu04")), "GPU");
    ck_assert_str_eq(nvl_of(t, "gpu02"), "7c1f0d2e.1");
    ck_assert_str_eq(nvl_of(t, "gpu07"), "7c1f0d2e.3");
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 3);
    /* NotReady and cordoned are down; the others up */
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "gpu01")), 1);
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "gpu02")), 0);
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "gpu03")), 0);
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "gpu07")), 1);
    /* excluded with their reasons, in input order */
    ck_assert_uint_eq(tsched_topology_num_excluded(t), 3);
    ck_assert_str_eq(tsched_topology_excluded_node(t, 0), "gpu05");
    ck_assert_str_eq(tsched_topology_excluded_reason(t, 0), "no nvidia.com/gpu");
    ck_assert_str_eq(tsched_topology_excluded_node(t, 1), "gpu06");
    ck_assert_str_eq(tsched_topology_excluded_reason(t, 1), "missing label example.com/rack");
    ck_assert_str_eq(tsched_topology_excluded_node(t, 2), "cpu01");
    /* labels: tier 0 is the finest key */
    ck_assert_uint_eq(tsched_topology_label_tiers(t), 2);
    ck_assert_str_eq(tsched_topology_label_tier(t, 0), "example.com/rack");
    ck_assert_str_eq(tsched_topology_label_tier(t, 1), "example.com/block");
    ck_assert_str_eq(tsched_topology_label_nvl(t), "nvidia.com/gpu.clique");
    /* non-blocking: b1/r1 holds two nodes of 8 NICs x 400 */
    ck_assert_double_eq(trunk_gbps(t, "b1/r1", "b1"), 2 * 8 * 400);
    ck_assert_double_eq(trunk_gbps(t, "b2/r1", "b2"), 4 * 400);
    ck_assert_uint_eq(tsched_topology_num_pods(t), 0);
}

START_TEST(k8s_fixture)
{
    tsched_k8s_options o = k8s_opts(levels3, 3);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
    check_nodes_fixture(t);
    ck_assert_str_eq(tsched_topology_name(t), "k8s");
    tsched_topology_free(t);
    /* the same levels from a Kueue Topology, YAML and JSON */
    static const char *const kfiles[] = {IMPORT_DATA "/kueue-topology.yaml", IMPORT_DATA "/kueue-topology.json"};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(kfiles[k], "rb");
        ck_assert_ptr_nonnull(f);
        static char text[4096];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        tsched_k8s_options_init(&o);
        o.kueue_topology = text;
        ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
        check_nodes_fixture(t);
        tsched_topology_free(t);
    }
    /* the JSON round trip keeps every added fact */
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o));
    char *json = NULL;
    ck_assert_ok(tsched_topology_to_json(&json, t));
    tsched_topology *u = NULL;
    ck_assert_ok(tsched_topology_load_string(&u, json, strlen(json)));
    check_nodes_fixture(u);
    tsched_free(json);
    tsched_topology_free(u);
    tsched_topology_free(t);
}
END_TEST

START_TEST(k8s_options_and_single_node)
{
    static const char *const rack[] = {"example.com/rack"};
    tsched_k8s_options o = k8s_opts(rack, 1);
    o.nics_per_node = 2;
    o.nic_gbps = 200;
    o.gpu_type = "H";
    o.name = "prod";
    o.nvl_label = "";
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/node-single.json", &o));
    ck_assert_str_eq(tsched_topology_name(t), "prod");
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 1);
    ck_assert_str_eq(leaf_of(t, "gpu01"), "r1");
    ck_assert_uint_eq(tsched_topology_node_nics(t, 0), 2);
    ck_assert_double_eq(tsched_topology_node_nic_gbps(t, 0), 200);
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, 0), "NVIDIA-H100-80GB-HBM3"); /* the label wins */
    ck_assert_ptr_null(nvl_of(t, "gpu01"));
    ck_assert_ptr_null(tsched_topology_label_nvl(t));
    ck_assert_uint_eq(tsched_topology_label_tiers(t), 1);
    tsched_topology_free(t);
    /* another GPU resource: no node has it, all left out */
    o = k8s_opts(rack, 1);
    o.gpu_resource = "amd.com/gpu";
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("no amd.com/gpu");
    /* a caller that knows only the first fields */
    o = k8s_opts(rack, 1);
    o.size = offsetof(tsched_k8s_options, kueue_topology);
    o.nvl_label = "";
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/node-single.json", &o));
    ck_assert_str_eq(nvl_of(t, "gpu01"), "7c1f0d2e.1");
    tsched_topology_free(t);
}
END_TEST

static void k8s_fails(const char *json, const char *const *levels, uint32_t n, tsched_status want, const char *n1,
                      const char *n2)
{
    tsched_k8s_options o = k8s_opts(levels, n);
    tsched_topology *t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_k8s_nodes_string(&t, json, strlen(json), &o), want);
    ck_assert_ptr_null(t);
    if (n1)
        ck_assert_errmsg_has(n1);
    if (n2)
        ck_assert_errmsg_has(n2);
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
}

START_TEST(k8s_errors)
{
    tsched_k8s_options o = k8s_opts(levels3, 2);
    tsched_topology *t = NULL;
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/bad-label-value.json", &o),
                     TSCHED_E_FORMAT);
    ck_assert_errmsg_has("bad-label-value.json: items[3].metadata.labels[\"example.com/rack\"]");
    ck_assert_errmsg_has("\"r 1\"");
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/bad-duplicate-node.json", &o),
                     TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("items[8].metadata.name");
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/bad-gpu-count.json", &o),
                     TSCHED_E_FORMAT);
    ck_assert_errmsg_has("items[2].status.allocatable[\"nvidia.com/gpu\"]");
    static const char *const zone[] = {"example.com/zone", "example.com/rack"};
    o = k8s_opts(zone, 2);
    ck_assert_status(tsched_topology_import_k8s_nodes_file(&t, IMPORT_DATA "/nodes.json", &o), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("nodes.json");
    ck_assert_errmsg_has("\"example.com/zone\" (levels[0])");

    static const char *const host[] = {"kubernetes.io/hostname"};
    static const char *const host_first[] = {"kubernetes.io/hostname", "rack"};
    static const char *const twice[] = {"rack", "rack"};
    static const char *const nvl[] = {"rack", "nvidia.com/gpu.clique"};
    static const char *const badkey[] = {"Example.com/rack"};
    static const char *const rack[] = {"rack"};
    const char *doc = "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"g\", \"labels\": {\"rack\": \"r\"}}, "
                      "\"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\"}}}]}";
    k8s_fails(doc, host, 1, TSCHED_E_INVALID, "levels", "no label key besides");
    k8s_fails(doc, host_first, 2, TSCHED_E_INVALID, "levels[0]", "last level");
    k8s_fails(doc, twice, 2, TSCHED_E_INVALID, "levels[1]", "twice");
    /* a node named like a level's value: the node and the label named, not the model's field */
    static const char *const block_rack[] = {"block", "rack"};
    k8s_fails("{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"r1\", \"labels\": {\"block\": \"b1\", "
              "\"rack\": \"r1\"}}, \"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\"}}}]}",
              block_rack, 2, TSCHED_E_DUPLICATE, "node \"r1\"", "label \"rack\"");
    k8s_fails(doc, nvl, 2, TSCHED_E_INVALID, "levels[1]", "NVLink label");
    k8s_fails(doc, badkey, 1, TSCHED_E_INVALID, "levels[0]", "label key");
    k8s_fails(doc, rack, 0, TSCHED_E_INVALID, "levels", NULL);
    k8s_fails("[]", rack, 1, TSCHED_E_FORMAT, "List", NULL);
    k8s_fails("{\"kind\": \"Pod\"}", rack, 1, TSCHED_E_FORMAT, "kind", NULL);
    k8s_fails("{\"kind\": \"List\"}", rack, 1, TSCHED_E_FORMAT, "items", NULL);
    k8s_fails("{\"items\": [{\"metadata\": {}}]}", rack, 1, TSCHED_E_NOT_FOUND, "items[0].metadata.name", NULL);
    k8s_fails("{\"items\": [{\"metadata\": {\"name\": \"a~b\"}}]}", rack, 1, TSCHED_E_RANGE, "items[0].metadata.name",
              NULL);
    k8s_fails("{\"items\": [{\"metadata\": {\"name\": \"g\", \"labels\": {\"rack\": 5}}}]}", rack, 1, TSCHED_E_FORMAT,
              "items[0].metadata.labels.rack", NULL);
    k8s_fails("{\"items\": [", rack, 1, TSCHED_E_PARSE, "line 1", NULL);
    /* a Kueue Topology that is not one */
    o = k8s_opts(NULL, 0);
    o.kueue_topology = "kind: Queue\nspec:\n  levels: []\n";
    o.kueue_topology_name = "kq.yaml";
    ck_assert_status(tsched_topology_import_k8s_nodes_string(&t, doc, strlen(doc), &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("kq.yaml: kind");
    o.kueue_topology = "kind: Topology\nspec:\n  levels:\n  - nodeLabel: rack\n  - name: x\n";
    ck_assert_status(tsched_topology_import_k8s_nodes_string(&t, doc, strlen(doc), &o), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("kq.yaml: line 5: spec.levels[1].nodeLabel");
    o.levels = rack;
    o.nlevels = 1;
    ck_assert_status(tsched_topology_import_k8s_nodes_string(&t, doc, strlen(doc), &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("not both");
}
END_TEST

START_TEST(k8s_deep_paths_and_names)
{
    /* three levels: zone > block > rack; values repeat under different parents at two levels;
     * a rack whose value is a block's name is named by its path; pods are the blocks */
    const char *doc =
        "{\"kind\": \"List\", \"items\": ["
        "{\"metadata\": {\"name\": \"n1\", \"labels\": {\"z\": \"z1\", \"b\": \"b1\", \"r\": \"r1\"}}, "
        "\"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"2\"}}},"
        "{\"metadata\": {\"name\": \"n2\", \"labels\": {\"z\": \"z2\", \"b\": \"b1\", \"r\": \"r1\"}}, "
        "\"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"2\"}}},"
        "{\"metadata\": {\"name\": \"n3\", \"labels\": {\"z\": \"z2\", \"b\": \"b2\", \"r\": \"b2\"}}, "
        "\"status\": {\"allocatable\": {\"nvidia.com/gpu\": 2}}, \"spec\": {\"unschedulable\": false}}]}";
    static const char *const lv[] = {"z", "b", "r"};
    tsched_k8s_options o = k8s_opts(lv, 3);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_k8s_nodes_string(&t, doc, strlen(doc), &o));
    ck_assert_str_eq(tier_names(t, 2), "z1 z2");
    ck_assert_str_eq(tier_names(t, 1), "z1/b1 z2/b1 b2");
    ck_assert_str_eq(tier_names(t, 0), "z1/b1/r1 z2/b1/r1 b2/b2");
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "b2/b2")), "b2");
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "z2/b1/r1")), "r1");
    ck_assert_uint_eq(tsched_topology_num_pods(t), 3);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "b2/b2")), tsched_topology_switch_pod(t, tu_sw(t, "b2")));
    ck_assert_int_eq(tsched_topology_node_is_up(t, tu_node(t, "n3")), 1);
    ck_assert_str_eq(tsched_topology_label_tier(t, 2), "z");
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology-import");
    TCase *tc = tcase_create("import");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, yaml_table);
    tcase_add_test(tc, yaml_paths_lines_and_text);
    tcase_add_test(tc, yaml_bounds);
    tcase_add_test(tc, block_contract_example);
    tcase_add_test(tc, block_fixture_levels);
    tcase_add_test(tc, block_without_sizes);
    tcase_add_test(tc, block_errors);
    tcase_add_test(tc, scontrol_output);
    tcase_add_test(tc, link_speed_correctly_rounded);
    tcase_add_test(tc, deep_trees);
    tcase_add_test(tc, yaml_fixture_selection);
    tcase_add_test(tc, yaml_default_rules);
    tcase_add_test(tc, yaml_errors);
    tcase_add_test(tc, slurm_options_sizes);
    tcase_add_test(tc, k8s_fixture);
    tcase_add_test(tc, k8s_options_and_single_node);
    tcase_add_test(tc, k8s_errors);
    tcase_add_test(tc, k8s_deep_paths_and_names);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
