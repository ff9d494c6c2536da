/* The Lingjun fixture (tests/data/lingjun-847.json) against the CSV it was converted from,
 * ../shared/data/alibaba-lingjun-dataset-2023/topo.csv, parsed here independently of
 * tests/convert_lingjun.py so a converter bug and a loader bug cannot cancel out.
 * ../shared sits beside the project's own checkout only: without it this program skips
 * (exit 77). With ../shared present a missing or unreadable CSV is a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

#ifndef TSCHED_SHARED_DATA
#define TSCHED_SHARED_DATA TSCHED_TEST_DATA "/../../../shared/data"
#endif
#define LINGJUN_JSON TSCHED_TEST_DATA "/lingjun-847.json"
#define LINGJUN_CSV TSCHED_SHARED_DATA "/alibaba-lingjun-dataset-2023/topo.csv"

#define LJ_MAX_ROWS 4096
#define LJ_NAME 96

typedef struct lj_row {
    char ip[LJ_NAME], dsw[LJ_NAME], psw[LJ_NAME], asw[LJ_NAME];
} lj_row;

typedef struct lj_csv {
    lj_row *rows;
    size_t n;
} lj_csv;

static tsched_topology *load_fixture(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, LINGJUN_JSON));
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Copies field `*s` up to the next comma or end of line into `dst`; fails on overlong
 * fields rather than truncating, which could make two hosts look alike. */
static int take_field(char *dst, const char **s)
{
    size_t n = strcspn(*s, ",\r\n");
    if (n == 0 || n >= LJ_NAME)
        return 0;
    memcpy(dst, *s, n);
    dst[n] = '\0';
    *s += n;
    if (**s == ',')
        (*s)++;
    return 1;
}

static void read_csv(lj_csv *csv)
{
    FILE *f = fopen(LINGJUN_CSV, "r");
    ck_assert_msg(f != NULL, "cannot open %s: the Lingjun data must sit in ../shared beside the clone", LINGJUN_CSV);
    csv->rows = calloc(LJ_MAX_ROWS, sizeof *csv->rows);
    ck_assert_ptr_nonnull(csv->rows);
    csv->n = 0;
    char line[512];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_msg(strncmp(line, "ip,DSW,PSW,ASW", 14) == 0, "unexpected CSV header: %s", line);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0')
            continue;
        ck_assert_msg(csv->n < LJ_MAX_ROWS, "more than %d rows in %s", LJ_MAX_ROWS, LINGJUN_CSV);
        lj_row *r = &csv->rows[csv->n];
        const char *s = line;
        ck_assert_msg(take_field(r->ip, &s) && take_field(r->dsw, &s) && take_field(r->psw, &s) &&
                          take_field(r->asw, &s),
                      "malformed CSV row %zu: %s", csv->n + 2, line);
        csv->n++;
    }
    fclose(f);
}

/* The converter names a host by the first 12 characters of its hash (or the whole hash
 * if those collide); accept either, so this check does not depend on that choice. */
static uint32_t find_host(const tsched_topology *t, const char *ip)
{
    char shortname[13];
    snprintf(shortname, sizeof shortname, "%.12s", ip);
    uint32_t n = tsched_topology_find_node(t, shortname);
    return n != TSCHED_NONE ? n : tsched_topology_find_node(t, ip);
}

/* Nodes of one pod, counted through its leaves. */
static uint32_t pod_node_count(const tsched_topology *t, uint32_t pod)
{
    uint32_t nleaves = 0, total = 0;
    const uint32_t *leaves = tsched_topology_pod_leaves(t, pod, &nleaves);
    for (uint32_t i = 0; i < nleaves; i++) {
        uint32_t c = 0;
        ck_assert_ptr_nonnull(tsched_topology_leaf_nodes(t, leaves[i], &c));
        total += c;
    }
    return total;
}

/* Every CSV row against the model: the host exists once, on leaf "<PSW>-<ASW>", in pod
 * PSW, under core DSW; per-leaf and per-pod counts match the CSV's; capacities follow
 * the converter's non-blocking rule (8 NICs x 200 Gbit/s per host). */
START_TEST(matches_csv)
{
    lj_csv csv;
    read_csv(&csv);
    tsched_topology *t = load_fixture();
    ck_assert_uint_eq(csv.n, tsched_topology_num_nodes(t));

    uint32_t nsw = tsched_topology_num_switches(t), npods = tsched_topology_num_pods(t);
    uint32_t *leaf_hosts = calloc(nsw, sizeof *leaf_hosts), *pod_hosts = calloc(npods, sizeof *pod_hosts);
    unsigned char *node_seen = calloc(csv.n, 1);
    ck_assert(leaf_hosts && pod_hosts && node_seen);

    for (size_t i = 0; i < csv.n; i++) {
        const lj_row *r = &csv.rows[i];
        uint32_t n = find_host(t, r->ip);
        ck_assert_msg(n != TSCHED_NONE, "CSV row %zu: host %s is not in the fixture", i + 2, r->ip);
        ck_assert_msg(!node_seen[n], "CSV row %zu: node %s matched twice", i + 2, tsched_topology_node_name(t, n));
        node_seen[n] = 1;

        char leafname[2 * LJ_NAME + 2];
        snprintf(leafname, sizeof leafname, "%s-%s", r->psw, r->asw);
        uint32_t leaf = tsched_topology_node_leaf(t, n);
        ck_assert_msg(leaf != TSCHED_NONE && strcmp(tsched_topology_switch_name(t, leaf), leafname) == 0,
                      "CSV row %zu: host %s should sit on %s, model says %s", i + 2, r->ip, leafname,
                      leaf == TSCHED_NONE ? "(none)" : tsched_topology_switch_name(t, leaf));
        uint32_t pod = tsched_topology_node_pod(t, n);
        ck_assert_msg(pod != TSCHED_NONE && strcmp(tsched_topology_pod_name(t, pod), r->psw) == 0,
                      "CSV row %zu: host %s should be in pod %s", i + 2, r->ip, r->psw);
        uint32_t psw = tsched_topology_find_switch(t, r->psw), dsw = tsched_topology_find_switch(t, r->dsw);
        ck_assert_msg(psw != TSCHED_NONE && dsw != TSCHED_NONE, "CSV row %zu: switch %s or %s missing", i + 2,
                      r->psw, r->dsw);
        ck_assert_uint_ne(tsched_topology_find_trunk(t, leaf, psw), TSCHED_NONE);
        ck_assert_uint_ne(tsched_topology_find_trunk(t, psw, dsw), TSCHED_NONE);
        ck_assert_uint_eq(tsched_topology_node_gpus(t, n), 8);
        ck_assert_uint_eq(tsched_topology_node_nics(t, n), 8);
        ck_assert(tsched_topology_node_nic_gbps(t, n) == 200.0);
        for (uint32_t k = 0; k < 8; k++)
            ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, n, k), leaf);
        leaf_hosts[leaf]++;
        pod_hosts[pod]++;
    }

    /* Nothing in the model beyond the CSV: per-leaf and per-pod counts agree exactly,
     * and every leaf trunk carries its hosts' NICs (non-blocking). */
    uint32_t leaves_used = 0;
    for (uint32_t i = 0; i < tsched_topology_num_tier(t, TSCHED_TIER_LEAF); i++) {
        uint32_t leaf = tsched_topology_tier_switch(t, TSCHED_TIER_LEAF, i), c = 0;
        tsched_topology_leaf_nodes(t, leaf, &c);
        ck_assert_msg(c == leaf_hosts[leaf], "leaf %s: model %u nodes, CSV %u", tsched_topology_switch_name(t, leaf),
                      c, leaf_hosts[leaf]);
        leaves_used += c > 0;
        uint32_t psw = tsched_topology_find_switch(t, tsched_topology_pod_name(t, tsched_topology_switch_pod(t, leaf)));
        uint32_t tr = tsched_topology_find_trunk(t, leaf, psw);
        ck_assert_uint_ne(tr, TSCHED_NONE);
        ck_assert_uint_eq(tsched_topology_trunk_links(t, tr), c * 8);
        ck_assert(tsched_topology_trunk_gbps(t, tr) == c * 8 * 200.0);
    }
    ck_assert_uint_eq(leaves_used, tsched_topology_num_tier(t, TSCHED_TIER_LEAF));
    uint32_t g6 = tsched_topology_find_switch(t, "G6");
    for (uint32_t p = 0; p < npods; p++) {
        ck_assert_uint_eq(pod_hosts[p], pod_node_count(t, p));
        uint32_t psw = tsched_topology_find_switch(t, tsched_topology_pod_name(t, p));
        uint32_t tr = tsched_topology_find_trunk(t, psw, g6);
        ck_assert_uint_ne(tr, TSCHED_NONE);
        ck_assert(tsched_topology_trunk_gbps(t, tr) == pod_hosts[p] * 8 * 200.0);
    }

    free(node_seen);
    free(pod_hosts);
    free(leaf_hosts);
    free(csv.rows);
    tsched_topology_free(t);
}
END_TEST

int main(void)
{
    struct stat st;
    if (stat(TSCHED_SHARED_DATA, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skip: %s not found (only in the project's own checkout)\n", TSCHED_SHARED_DATA);
        return 77;
    }
    Suite *s = suite_create("topology-lingjun-csv");
    TCase *tc = tcase_create("csv");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, matches_csv);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
