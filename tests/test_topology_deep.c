/* The model additions of issue 14: tiers up to 7, NVLink domains, label provenance and
 * left-out nodes (doc/topology.md). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Inline documents use ' for ". */
static tsched_status load_q(tsched_topology **out, const char *doc)
{
    char *d = strdup(doc);
    ck_assert_ptr_nonnull(d);
    for (char *p = d; *p; p++)
        if (*p == '\'')
            *p = '"';
    tsched_status st = tsched_topology_load_string(out, d, strlen(d));
    free(d);
    return st;
}

#define F "{'format':'tsched.topology.v1',"

/* Four tiers, two NVLink domains, a value per switch, labels and left-out nodes. */
static const char *ATTR_DOC =
    F "'name':'deep','labels':{'tiers':['rack','block','zone','region'],'nvl':'nvidia.com/gpu.clique'},"
      "'switches':[{'name':'r1','tier':0,'value':'r1'},{'name':'b1/r1','tier':0,'value':'r1'},"
      "{'name':'b0','tier':1},{'name':'b1','tier':1},{'name':'z0','tier':2,'value':'zone-a'},"
      "{'name':'top','tier':3,'value':'x#y~z'}],"
      "'nodes':[{'name':'n0','leaf':'r1','gpus':8,'nvl_domain':'c1.0'},"
      "{'name':'n1','leaf':'r1','gpus':8,'nvl_domain':'c1.1'},"
      "{'name':'n2','leaf':'b1/r1','gpus':8},"
      "{'name':'n3','leaf':'b1/r1','gpus':8,'nvl_domain':'c1.0'}],"
      "'links':[{'a':'r1','b':'b0','gbps':400},{'a':'b1/r1','b':'b1','gbps':400},"
      "{'a':'b0','b':'z0','gbps':400},{'a':'b1','b':'z0','gbps':400},{'a':'z0','b':'top','gbps':400}],"
      "'excluded':{'cpu1':'no nvidia.com/gpu','gpu9':'missing label block'}}";

static void check_attrs(const tsched_topology *t)
{
    ck_assert_uint_eq(tsched_topology_num_tier(t, 3), 1);
    ck_assert_uint_eq(tsched_topology_tier_switch(t, 3, 0), tu_sw(t, "top"));
    ck_assert_int_eq(tsched_topology_switch_tier(t, tu_sw(t, "top")), 3);
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 2);
    ck_assert_str_eq(tsched_topology_nvl_name(t, 0), "c1.0");
    ck_assert_str_eq(tsched_topology_nvl_name(t, 1), "c1.1");
    ck_assert_ptr_null(tsched_topology_nvl_name(t, 2));
    ck_assert_uint_eq(tsched_topology_node_nvl(t, tu_node(t, "n0")), 0);
    ck_assert_uint_eq(tsched_topology_node_nvl(t, tu_node(t, "n1")), 1);
    ck_assert_uint_eq(tsched_topology_node_nvl(t, tu_node(t, "n2")), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_node_nvl(t, tu_node(t, "n3")), 0);
    ck_assert_str_eq(tsched_topology_node_nvl_domain(t, tu_node(t, "n3")), "c1.0");
    ck_assert_ptr_null(tsched_topology_node_nvl_domain(t, tu_node(t, "n2")));
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "b1/r1")), "r1");
    ck_assert_str_eq(tsched_topology_switch_value(t, tu_sw(t, "top")), "x#y~z");
    ck_assert_ptr_null(tsched_topology_switch_value(t, tu_sw(t, "b0")));
    ck_assert_uint_eq(tsched_topology_label_tiers(t), 4);
    ck_assert_str_eq(tsched_topology_label_tier(t, 0), "rack");
    ck_assert_str_eq(tsched_topology_label_tier(t, 3), "region");
    ck_assert_ptr_null(tsched_topology_label_tier(t, 4));
    ck_assert_str_eq(tsched_topology_label_nvl(t), "nvidia.com/gpu.clique");
    ck_assert_uint_eq(tsched_topology_num_excluded(t), 2);
    ck_assert_str_eq(tsched_topology_excluded_node(t, 0), "cpu1");
    ck_assert_str_eq(tsched_topology_excluded_reason(t, 0), "no nvidia.com/gpu");
    ck_assert_str_eq(tsched_topology_excluded_node(t, 1), "gpu9");
    ck_assert_str_eq(tsched_topology_excluded_reason(t, 1), "missing label block");
    ck_assert_ptr_null(tsched_topology_excluded_node(t, 2));
}

START_TEST(attrs_json_round_trip)
{
    tsched_topology *a = NULL, *b = NULL;
    ck_assert_ok(load_q(&a, ATTR_DOC));
    check_attrs(a);
    char *s1 = NULL, *s2 = NULL;
    ck_assert_ok(tsched_topology_to_json(&s1, a));
    ck_assert_ok(tsched_topology_load_string(&b, s1, strlen(s1)));
    check_attrs(b);
    ck_assert_ok(tsched_topology_to_json(&s2, b));
    ck_assert_str_eq(s1, s2);
    ck_assert_ptr_nonnull(strstr(s1, "\"nvl_domain\": \"c1.1\""));
    ck_assert_ptr_nonnull(strstr(s1, "\"value\": \"zone-a\""));
    tsched_free(s1);
    tsched_free(s2);
    tsched_topology_free(a);
    tsched_topology_free(b);
}
END_TEST

/* Writers emit the additions only when set. */
START_TEST(attrs_absent_not_written)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 2, 8, 8);
    char *s = NULL;
    ck_assert_ok(tsched_topology_to_json(&s, t));
    ck_assert_ptr_null(strstr(s, "nvl_domain"));
    ck_assert_ptr_null(strstr(s, "\"value\""));
    ck_assert_ptr_null(strstr(s, "labels"));
    ck_assert_ptr_null(strstr(s, "excluded"));
    tsched_free(s);
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 0);
    ck_assert_uint_eq(tsched_topology_label_tiers(t), 0);
    ck_assert_ptr_null(tsched_topology_label_nvl(t));
    ck_assert_uint_eq(tsched_topology_num_excluded(t), 0);
    /* set any time: labels, values, excluded; then written */
    const char *keys[] = {"rack", "spine"};
    ck_assert_ok(tsched_topology_set_labels(t, keys, 2, NULL));
    ck_assert_ok(tsched_topology_set_switch_value(t, 0, "raw"));
    ck_assert_ok(tsched_topology_add_excluded(t, "gone", ""));
    ck_assert_status(tsched_topology_add_excluded(t, "gone", "again"), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("excluded.gone");
    ck_assert_ok(tsched_topology_to_json(&s, t));
    ck_assert_ptr_nonnull(strstr(s, "\"labels\""));
    ck_assert_ptr_null(strstr(s, "\"nvl\""));
    ck_assert_ptr_nonnull(strstr(s, "\"gone\": \"\""));
    ck_assert_ptr_nonnull(strstr(s, "\"value\": \"raw\""));
    tsched_free(s);
    /* clearing */
    ck_assert_ok(tsched_topology_set_labels(t, NULL, 0, NULL));
    ck_assert_ok(tsched_topology_set_switch_value(t, 0, ""));
    ck_assert_ptr_null(tsched_topology_switch_value(t, 0));
    ck_assert_ok(tsched_topology_to_json(&s, t));
    ck_assert_ptr_null(strstr(s, "labels"));
    ck_assert_ptr_null(strstr(s, "\"value\""));
    tsched_free(s);
    /* NVLink domains only before build */
    ck_assert_status(tsched_topology_set_nvl_domain(t, 0, "d"), TSCHED_E_STATE);
    tsched_topology_free(t);
}
END_TEST

START_TEST(attrs_builder)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "b"));
    for (int k = 0; k < TSCHED_MAX_TIERS; k++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", k);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, name, k, NULL));
        if (k)
            ck_assert_ok(tsched_topology_add_link(t, name, (char[16]){'s', (char)('0' + k - 1), 0}, 100, 1));
    }
    ck_assert_status(tsched_topology_add_switch(NULL, t, "s8", 8, NULL), TSCHED_E_RANGE);
    ck_assert_errmsg_has("\"s8\"");
    ck_assert_ok(tsched_topology_add_node(NULL, t, "x", "s0", 8, 8, NULL, 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "y", "s0", 8, 8, NULL, 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "z", "s0", 8, 8, NULL, 100));
    /* set, clear, reset: numbering follows the first node of each domain */
    ck_assert_ok(tsched_topology_set_nvl_domain(t, 2, "late"));
    ck_assert_ok(tsched_topology_set_nvl_domain(t, 1, "early"));
    ck_assert_ok(tsched_topology_set_nvl_domain(t, 0, "gone"));
    ck_assert_ok(tsched_topology_set_nvl_domain(t, 0, NULL));
    ck_assert_str_eq(tsched_topology_node_nvl_domain(t, 2), "late");
    ck_assert_status(tsched_topology_set_nvl_domain(t, 1, "a~b"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[1].nvl_domain");
    ck_assert_status(tsched_topology_set_nvl_domain(t, 3, "a"), TSCHED_E_INVALID);
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 0); /* unbuilt */
    ck_assert_ok(tsched_topology_build(t));
    ck_assert_uint_eq(tsched_topology_num_nvl_domains(t), 2);
    ck_assert_str_eq(tsched_topology_nvl_name(t, 0), "early");
    ck_assert_str_eq(tsched_topology_nvl_name(t, 1), "late");
    ck_assert_uint_eq(tsched_topology_node_nvl(t, 0), TSCHED_NONE);
    for (int k = 0; k < TSCHED_MAX_TIERS; k++)
        ck_assert_uint_eq(tsched_topology_num_tier(t, k), 1);
    ck_assert_uint_eq(tsched_topology_num_tier(t, 8), 0);
    ck_assert_uint_eq(tsched_topology_tier_switch(t, 7, 0), 7);
    /* labels: at most 8 tiers, keys checked */
    const char *keys[9] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    ck_assert_status(tsched_topology_set_labels(t, keys, 9, NULL), TSCHED_E_RANGE);
    ck_assert_errmsg_has("labels.tiers");
    ck_assert_ok(tsched_topology_set_labels(t, keys, 8, "nv"));
    const char *bad[] = {"ok", ""};
    ck_assert_status(tsched_topology_set_labels(t, bad, 2, NULL), TSCHED_E_RANGE);
    ck_assert_errmsg_has("labels.tiers[1]");
    ck_assert_status(tsched_topology_set_labels(t, keys, 1, "a\nb"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("labels.nvl");
    ck_assert_uint_eq(tsched_topology_label_tiers(t), 8); /* a failed call changes nothing */
    ck_assert_str_eq(tsched_topology_label_nvl(t), "nv");
    ck_assert_status(tsched_topology_set_switch_value(t, 1, "\x01"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("switches[1].value");
    ck_assert_status(tsched_topology_set_switch_value(t, 99, "v"), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_add_excluded(t, "a#b", "r"), TSCHED_E_RANGE);
    ck_assert_status(tsched_topology_add_excluded(t, "ab", "r\tx"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("excluded.ab");
    tsched_topology_free(t);
}
END_TEST

typedef struct bad_doc {
    const char *doc;
    tsched_status want;
    const char *field;
} bad_doc;

static const bad_doc bad_docs[] = {
    {F "'switches':[{'name':'l','tier':8}]}", TSCHED_E_RANGE, "switches[0].tier"},
    {F "'switches':[{'name':'l','tier':0,'value':7}]}", TSCHED_E_TYPE, "switches[0].value"},
    {F "'switches':[{'name':'l','tier':0,'value':''}]}", TSCHED_E_RANGE, "switches[0].value"},
    {F "'switches':[{'name':'l','tier':0}],'nodes':[{'name':'n','leaf':'l','gpus':8,'nvl_domain':3}]}",
     TSCHED_E_TYPE, "nodes[0].nvl_domain"},
    {F "'switches':[{'name':'l','tier':0}],'nodes':[{'name':'n','leaf':'l','gpus':8,'nvl_domain':''}]}",
     TSCHED_E_RANGE, "nodes[0].nvl_domain"},
    {F "'switches':[{'name':'l','tier':0}],'nodes':[{'name':'n','leaf':'l','gpus':8,'nvl_domain':'a~b'}]}",
     TSCHED_E_RANGE, "nodes[0].nvl_domain"},
    {F "'switches':[{'name':'l','tier':0}],'labels':[]}", TSCHED_E_TYPE, "labels"},
    {F "'switches':[{'name':'l','tier':0}],'labels':{'tiers':'rack'}}", TSCHED_E_TYPE, "labels.tiers"},
    {F "'switches':[{'name':'l','tier':0}],'labels':{'tiers':['a',1]}}", TSCHED_E_TYPE, "labels.tiers[1]"},
    {F "'switches':[{'name':'l','tier':0}],'labels':{'tiers':['a','']}}", TSCHED_E_RANGE, "labels.tiers[1]"},
    {F "'switches':[{'name':'l','tier':0}],'labels':{'tiers':['1','2','3','4','5','6','7','8','9']}}",
     TSCHED_E_RANGE, "labels.tiers"},
    {F "'switches':[{'name':'l','tier':0}],'labels':{'nvl':false}}", TSCHED_E_TYPE, "labels.nvl"},
    {F "'switches':[{'name':'l','tier':0}],'excluded':['a']}", TSCHED_E_TYPE, "excluded"},
    {F "'switches':[{'name':'l','tier':0}],'excluded':{'a':1}}", TSCHED_E_TYPE, "excluded.a"},
    {F "'switches':[{'name':'l','tier':0}],'excluded':{'a~b':'x'}}", TSCHED_E_RANGE, "excluded"},
};

START_TEST(attrs_bad_docs)
{
    const bad_doc *c = &bad_docs[_i];
    tsched_topology *t = NULL;
    tsched_status st = load_q(&t, c->doc);
    ck_assert_msg(st == c->want, "[%s] returned %s, expected %s: %s", c->doc, tsched_status_str(st),
                  tsched_status_str(c->want), tsched_last_error());
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(tsched_last_error(), c->field), "[%s] message \"%s\" lacks %s", c->doc, tsched_last_error(),
                  c->field);
}
END_TEST

START_TEST(summary_tiers_and_nvl)
{
    tsched_topology *t = NULL;
    ck_assert_ok(load_q(&t, ATTR_DOC));
    char *s = NULL;
    ck_assert_ok(tsched_topology_summary_json(&s, t));
    ck_assert_ptr_nonnull(strstr(s, "\"tier3\": 1"));
    ck_assert_ptr_null(strstr(s, "\"tier4\""));
    ck_assert_ptr_nonnull(strstr(s, "\"nvl_domains\": 2"));
    const char *tiers = strstr(s, "\"tiers\": [");
    ck_assert_ptr_nonnull(tiers);
    char buf[64];
    size_t n = 0;
    for (const char *p = tiers + 10; *p && *p != ']' && n + 1 < sizeof buf; p++)
        if (*p != ' ' && *p != '\n')
            buf[n++] = *p;
    buf[n] = 0;
    ck_assert_str_eq(buf, "2,2,1,1");
    tsched_free(s);
    tsched_topology_free(t);

    t = tu_leaf_spine(2, 2, 1, 2, 8, 8);
    ck_assert_ok(tsched_topology_summary_json(&s, t));
    ck_assert_ptr_null(strstr(s, "\"tier3\""));
    ck_assert_ptr_nonnull(strstr(s, "\"nvl_domains\": 0"));
    tsched_free(s);
    tsched_topology_free(t);
}
END_TEST

TCase *topology_deep_tcase(void)
{
    TCase *tc = tcase_create("deep");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, attrs_json_round_trip);
    tcase_add_test(tc, attrs_absent_not_written);
    tcase_add_test(tc, attrs_builder);
    tcase_add_loop_test(tc, attrs_bad_docs, 0, (int)(sizeof bad_docs / sizeof bad_docs[0]));
    tcase_add_test(tc, summary_tiers_and_nvl);
    return tc;
}
