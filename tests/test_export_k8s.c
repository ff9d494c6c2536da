/* Kubernetes exports in C (doc/export.md, issue 25): the name limits (TSCHED_E_RANGE naming
 * the object, the name and the limit; `sanitize` shortening to exactly the limit with the
 * FNV-1a suffix, unique), no_hostname_level, no_nodes, TSCHED_KUEUE_V1ALPHA1 and its 8-level
 * limit, an older caller's options size, and the node hostname of the pod order (set, get,
 * clear, JSON round trip, the selector, the 63-character error). The CLI and the upstream
 * CRD schemas are checked by tests/crd_validate.py. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Two leaves under one spine; leaf names given. */
static tsched_topology *two_leaves(const char *l1, const char *l2, const char *node1)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"format\":\"tsched.topology.v1\",\"name\":\"fabric\",\"switches\":[{\"name\":\"%s\",\"tier\":0},"
             "{\"name\":\"%s\",\"tier\":0},{\"name\":\"b1\",\"tier\":1}],\"links\":[{\"a\":\"%s\",\"b\":\"b1\","
             "\"gbps\":400},{\"a\":\"%s\",\"b\":\"b1\",\"gbps\":400}],\"nodes\":[{\"name\":\"%s\",\"leaf\":\"%s\","
             "\"gpus\":8},{\"name\":\"gpu02\",\"leaf\":\"%s\",\"gpus\":8}]}",
             l1, l2, l1, l2, node1, l1, l2);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_string(&t, doc, strlen(doc)));
    return t;
}

START_TEST(name_limits)
{
    char l1[80], l2[80];
    memset(l1, 'a', 70);
    l1[70] = '\0';
    memcpy(l2, l1, 71);
    l2[69] = 'b'; /* same first 54 characters: only the hash tells them apart */
    tsched_topology *t = two_leaves(l1, l2, "gpu01");
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_VOLCANO;
    char *s = NULL;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("HyperNode name");
    ck_assert_errmsg_has("70 characters");
    ck_assert_errmsg_has("limit of 63");
    o.sanitize = 1;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    /* name: the first 54 characters, '-', 8 hex digits: 63 in all, two different ones */
    const char *a = strstr(s, "name: aaaa"), *b = a ? strstr(a + 1, "name: aaaa") : NULL;
    ck_assert(a && b);
    ck_assert(a[6 + 54] == '-' && a[6 + 63] == '\n' && b[6 + 63] == '\n');
    ck_assert(strncmp(a, b, 6 + 63) != 0);
    tsched_free(s);
    /* Kueue: a label value over 63 is shortened the same way; the Topology name over 253 not */
    o.to = TSCHED_EXPORT_KUEUE;
    o.sanitize = 0;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("label value");
    o.sanitize = 1;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert(strstr(s, "tsched.topology/leaf: aaaa") != NULL);
    tsched_free(s);
    char big[300];
    memset(big, 'n', 254);
    big[254] = '\0';
    o.name = big;
    o.sanitize = 0;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("254 characters");
    o.sanitize = 1;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert(strstr(s, "  name: nnnn") != NULL);
    tsched_free(s);
    tsched_topology_free(t);
}
END_TEST

START_TEST(kueue_options)
{
    tsched_topology *t = two_leaves("r1", "r2", "gpu01");
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_KUEUE;
    o.kueue_api = TSCHED_KUEUE_V1ALPHA1;
    o.no_hostname_level = 1;
    o.no_nodes = 1;
    o.name = "default";
    char *s = NULL;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(s, "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\nmetadata:\n  name: default\nspec:\n"
                        "  levels:\n  - nodeLabel: tsched.topology/spine\n  - nodeLabel: tsched.topology/leaf\n");
    tsched_free(s);
    /* an older caller: its size ends before the new fields, which keep their defaults */
    o.size = offsetof(tsched_export_options, no_hostname_level);
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert(strstr(s, "nodeLabel: kubernetes.io/hostname\n---\napiVersion: v1\nkind: Node\n") != NULL);
    tsched_free(s);
    /* options that do not apply */
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_VOLCANO;
    o.no_hostname_level = 1;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("no_hostname_level");
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_SLURM_CONF;
    o.no_nodes = 1;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("no_nodes");
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_KUEUE;
    o.kueue_api = (tsched_kueue_api)3;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

START_TEST(pod_order_hostname)
{
    tsched_topology *t = two_leaves("r1", "r2", "gpu01.cluster-a.example.com");
    ck_assert_ptr_null(tsched_topology_node_hostname(t, 0));
    ck_assert_ok(tsched_topology_set_node_hostname(t, 0, "gpu01"));
    ck_assert_str_eq(tsched_topology_node_hostname(t, 0), "gpu01");
    ck_assert_status(tsched_topology_set_node_hostname(t, 9, "x"), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_set_node_hostname(t, 0, "a\nb"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[0].hostname_label");
    /* the JSON round trip keeps it */
    char *json = NULL;
    ck_assert_ok(tsched_topology_to_json(&json, t));
    ck_assert(strstr(json, "\"hostname_label\": \"gpu01\"") != NULL);
    tsched_topology *u = NULL;
    ck_assert_ok(tsched_topology_load_string(&u, json, strlen(json)));
    ck_assert_str_eq(tsched_topology_node_hostname(u, 0), "gpu01");
    ck_assert_ptr_null(tsched_topology_node_hostname(u, 1));
    tsched_free(json);
    /* the pod order selects the label value, names the node */
    tsched_job *j = NULL;
    const char *jd = "{\"format\":\"tsched.job.v1\",\"name\":\"j\",\"gpus\":16,\"tp\":8,\"pp\":1}";
    ck_assert_ok(tsched_job_load_string(&j, jd, strlen(jd)));
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, u, j, NULL));
    char *po = NULL;
    ck_assert_ok(tsched_placement_pod_order(&po, p, u, "j", NULL, 0));
    ck_assert(strstr(po, "\"node\": \"gpu01.cluster-a.example.com\"") != NULL);
    ck_assert(strstr(po, "\"kubernetes.io/hostname\": \"gpu01\"") != NULL);
    ck_assert(strstr(po, "\"kubernetes.io/hostname\": \"gpu02\"") != NULL);
    ck_assert(strstr(po, "\"kubernetes.io/hostname\": \"gpu01.cluster") == NULL);
    tsched_free(po);
    tsched_placement_free(p);
    /* cleared, the 28-character name is the value; a 70-character one is refused */
    ck_assert_ok(tsched_topology_set_node_hostname(u, 0, NULL));
    ck_assert_ptr_null(tsched_topology_node_hostname(u, 0));
    ck_assert_ok(tsched_place(&p, u, j, NULL));
    ck_assert_ok(tsched_placement_pod_order(&po, p, u, "j", NULL, 0));
    ck_assert(strstr(po, "\"kubernetes.io/hostname\": \"gpu01.cluster-a.example.com\"") != NULL);
    tsched_free(po);
    tsched_placement_free(p);
    char longname[80];
    memset(longname, 'h', 70);
    longname[70] = '\0';
    ck_assert_ok(tsched_topology_set_node_hostname(u, 0, longname));
    ck_assert_ok(tsched_place(&p, u, j, NULL));
    ck_assert_status(tsched_placement_pod_order(&po, p, u, "j", NULL, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("node \"gpu01.cluster-a.example.com\"");
    ck_assert_errmsg_has("70 characters");
    ck_assert_ok(tsched_topology_set_node_hostname(u, 0, "Bad Value"));
    ck_assert_status(tsched_placement_pod_order(&po, p, u, "j", NULL, 0), TSCHED_E_FORMAT);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(u);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export-k8s");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, name_limits);
    tcase_add_test(tc, kueue_options);
    tcase_add_test(tc, pod_order_hostname);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
