/* The model additions of issue 14: tiers up to 7, NVLink domains, label provenance and
 * left-out nodes (doc/topology.md). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "topology/topology_internal.h"

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

/* ---- deep fabrics against a brute-force enumeration ---- */

/* A random fabric of `tiers` tiers (4..8): tier k has n[k] switches; every switch below the
 * top links to one parent (tree) or to 1..3 parents (Clos-like); a few switches stay
 * without parents, a few links come in pairs. One node per leaf. */
static tsched_topology *random_deep(uint64_t seed, int tiers, int clos)
{
    tu_rng r = {seed};
    uint32_t n[TSCHED_MAX_TIERS];
    for (int k = 0; k < tiers; k++)
        /* at least two switches below the top, so that leaves under different tier-k
         * switches must climb: most fabrics then have paths through their upper tiers */
        n[k] = k == 0 ? 3 + tu_rng_below(&r, 8) : k == tiers - 1 ? 1 + tu_rng_below(&r, 2) : 2 + tu_rng_below(&r, 3);
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "deep"));
    char name[32], up[32];
    for (int k = 0; k < tiers; k++)
        for (uint32_t i = 0; i < n[k]; i++) {
            snprintf(name, sizeof name, "t%ds%u", k, i);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, name, k, NULL));
        }
    for (int k = 0; k + 1 < tiers; k++)
        for (uint32_t i = 0; i < n[k]; i++) {
            if (tu_rng_below(&r, 12) == 0)
                continue; /* an orphan: its subtree reaches nothing above */
            uint32_t np = clos ? 1 + tu_rng_below(&r, n[k + 1] < 3 ? n[k + 1] : 3) : 1;
            uint32_t first = tu_rng_below(&r, n[k + 1]);
            for (uint32_t q = 0; q < np; q++) {
                snprintf(name, sizeof name, "t%ds%u", k, i);
                snprintf(up, sizeof up, "t%ds%u", k + 1, (first + q * (1 + tu_rng_below(&r, 2))) % n[k + 1]);
                ck_assert_ok(tsched_topology_add_link(t, name, up, 100, 1 + (tu_rng_below(&r, 5) == 0)));
            }
        }
    for (uint32_t i = 0; i < n[0]; i++) {
        snprintf(name, sizeof name, "n%u", i);
        snprintf(up, sizeof up, "t0s%u", i);
        ck_assert_ok(tsched_topology_add_node(NULL, t, name, up, 8, 1, NULL, 100));
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* Every valley-free path from leaf a to leaf b (up, then down, simple), from the trunks
 * alone: the shortest ones, sorted lexicographically by switch sequence. */
typedef struct bf_path {
    uint32_t n;
    uint32_t sw[TSCHED_PATH_MAX_SWITCHES];
    uint32_t lk[TSCHED_PATH_MAX_LINKS];
} bf_path;

typedef struct bf {
    const tsched_topology *t;
    uint32_t b;
    bf_path cur;
    bf_path *out;
    size_t n, cap;
} bf;

static int bf_on_path(const bf *x, uint32_t s)
{
    for (uint32_t i = 0; i < x->cur.n; i++)
        if (x->cur.sw[i] == s)
            return 1;
    return 0;
}

static void bf_walk(bf *x, uint32_t s, int going_down)
{
    const tsched_topology *t = x->t;
    if (s == x->b) {
        if (x->n == x->cap) {
            x->cap = x->cap ? 2 * x->cap : 64;
            x->out = realloc(x->out, x->cap * sizeof *x->out);
            ck_assert_ptr_nonnull(x->out);
        }
        x->out[x->n++] = x->cur;
        return;
    }
    if (x->cur.n >= TSCHED_PATH_MAX_SWITCHES)
        return;
    for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++) {
        if (!tsched_topology_trunk_is_up(t, r))
            continue;
        uint32_t lo = tsched_topology_trunk_lower(t, r), hi = tsched_topology_trunk_upper(t, r), next, dir;
        if (lo == s && !going_down) {
            next = hi;
            dir = 0;
        } else if (hi == s) {
            next = lo;
            dir = 1;
        } else {
            continue;
        }
        if (!tsched_topology_switch_is_up(t, next) || bf_on_path(x, next))
            continue;
        x->cur.sw[x->cur.n] = next;
        x->cur.lk[x->cur.n - 1] = 2 * r + dir;
        x->cur.n++;
        bf_walk(x, next, dir == 1);
        x->cur.n--;
    }
}

static int bf_cmp(const void *p, const void *q)
{
    const bf_path *a = p, *b = q;
    for (uint32_t i = 0; i < a->n && i < b->n; i++)
        if (a->sw[i] != b->sw[i])
            return a->sw[i] < b->sw[i] ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
}

/* The shortest paths, sorted; returns their number (0 when an end is down). */
static size_t brute(bf_path **out, const tsched_topology *t, uint32_t a, uint32_t b)
{
    bf x = {.t = t, .b = b};
    *out = NULL;
    if (!tsched_topology_switch_is_up(t, a) || !tsched_topology_switch_is_up(t, b))
        return 0;
    x.cur.sw[0] = a;
    x.cur.n = 1;
    bf_walk(&x, a, 0);
    uint32_t best = UINT32_MAX;
    for (size_t i = 0; i < x.n; i++)
        if (x.out[i].n < best)
            best = x.out[i].n;
    size_t m = 0;
    for (size_t i = 0; i < x.n; i++)
        if (x.out[i].n == best)
            x.out[m++] = x.out[i];
    if (m > 1)
        qsort(x.out, m, sizeof *x.out, bf_cmp);
    *out = x.out;
    return m;
}

static void check_pair(const tsched_topology *t, uint32_t a, uint32_t b, const char *what)
{
    bf_path *want;
    size_t nw = brute(&want, t, a, b);
    uint64_t c = 0;
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, a, b));
    ck_assert_msg(c == nw, "[%s] %s -> %s: count %llu, brute force %zu", what, tsched_topology_switch_name(t, a),
                  tsched_topology_switch_name(t, b), (unsigned long long)c, nw);
    size_t cap = nw ? nw : 1, n = 0;
    tsched_path *got = calloc(cap, sizeof *got);
    ck_assert_ptr_nonnull(got);
    got[0].size = sizeof *got;
    ck_assert_ok(tsched_topology_leaf_paths(got, cap, &n, t, a, b));
    ck_assert_uint_eq(n, nw);
    ts_path *alt = calloc(cap, sizeof *alt);
    ck_assert_ptr_nonnull(alt);
    size_t na = ts_list_leaf_paths_nomem(alt, cap, t, a, b);
    ck_assert_msg(na == nw, "[%s] fallback listing: %zu paths, brute force %zu", what, na, nw);
    if (a != b && nw)
        ck_assert_uint_eq(ts_deep_count(t, a, b), nw);
    for (size_t i = 0; i < nw; i++) {
        ck_assert_msg(got[i].nswitches == want[i].n, "[%s] path %zu: %u switches, want %u", what, i,
                      got[i].nswitches, want[i].n);
        ck_assert_uint_eq(alt[i].nswitches, want[i].n);
        for (uint32_t k = 0; k < want[i].n; k++) {
            ck_assert_msg(got[i].switches[k] == want[i].sw[k], "[%s] path %zu switch %u", what, i, k);
            ck_assert_uint_eq(alt[i].switches[k], want[i].sw[k]);
        }
        for (uint32_t k = 0; k + 1 < want[i].n; k++) {
            ck_assert_msg(got[i].links[k] == want[i].lk[k], "[%s] path %zu link %u", what, i, k);
            ck_assert_uint_eq(alt[i].links[k], want[i].lk[k]);
        }
        for (uint32_t k = want[i].n; k < TSCHED_PATH_MAX_SWITCHES; k++)
            ck_assert_uint_eq(got[i].switches[k], TSCHED_NONE);
    }
    free(got);
    free(alt);
    free(want);
}

static void check_all_pairs(const tsched_topology *t, const char *what)
{
    uint32_t nl = tsched_topology_num_tier(t, 0);
    for (uint32_t i = 0; i < nl; i++)
        for (uint32_t j = 0; j < nl; j++)
            check_pair(t, tsched_topology_tier_switch(t, 0, i), tsched_topology_tier_switch(t, 0, j), what);
}

/* Seeded random trees and Clos-like fabrics of 4..8 tiers, all up, then with random
 * switches and trunks down. */
START_TEST(deep_paths_match_brute_force)
{
    uint64_t deepest = 0;
    /* the sanitizer and valgrind builds take every third case of the 60, so that they still
     * see every tier count and both shapes */
    for (unsigned k = 0; k < tu_n(60); k++) {
        unsigned i = tu_slow() ? 3 * k : k;
        int tiers = 4 + (int)(i % 5), clos = (i / 5) % 2;
        tsched_topology *t = random_deep(0x5eed0000u + i, tiers, clos);
        char what[64];
        snprintf(what, sizeof what, "seed %u, %d tiers, %s", i, tiers, clos ? "clos" : "tree");
        check_all_pairs(t, what);
        /* how deep the paths went: the test must reach the upper tiers */
        uint32_t nl = tsched_topology_num_tier(t, 0);
        for (uint32_t x = 0; x < nl; x++)
            for (uint32_t y = 0; y < nl; y++) {
                tsched_path p = {.size = sizeof p};
                size_t n = 0;
                tsched_status st = tsched_topology_leaf_paths(&p, 1, &n, t, tsched_topology_tier_switch(t, 0, x),
                                                              tsched_topology_tier_switch(t, 0, y));
                if ((st == TSCHED_OK || st == TSCHED_E_BUFFER) && n && p.nswitches > deepest)
                    deepest = p.nswitches;
            }
        tu_rng r = {0xd0d0u + i};
        for (int round = 0; round < 3; round++) {
            uint32_t ns = tsched_topology_num_switches(t), nt = tsched_topology_num_trunks(t);
            if (tu_rng_below(&r, 2))
                ck_assert_ok(tsched_topology_set_switch_up(t, nl + tu_rng_below(&r, ns - nl), 0));
            if (nt)
                ck_assert_ok(tsched_topology_set_trunk_up(t, tu_rng_below(&r, nt), 0));
            snprintf(what, sizeof what, "seed %u, %d tiers, %s, round %d", i, tiers, clos ? "clos" : "tree", round);
            check_all_pairs(t, what);
        }
        tsched_topology_free(t);
    }
    ck_assert_msg(deepest >= 11, "the random fabrics never made a path above tier 4 (longest %llu switches)",
                  (unsigned long long)deepest);
}
END_TEST

/* The deep search, run from tier 1 without the ancestor sets, gives the 2- and 3-tier
 * answers of the walk exactly (same paths, same order). */
START_TEST(deep_search_agrees_on_clos3)
{
    tsched_topology *t = tu_gen_clos3(3, 3, 2, 4, 1, 8, 0, 100, 0);
    ck_assert_ok(tsched_topology_set_up(t, "core1", 0));
    ck_assert_ok(tsched_topology_set_up(t, "leaf4~spine3", 0));
    check_all_pairs(t, "clos3");
    tsched_topology_free(t);
}
END_TEST

/* A fabric whose two halves meet only at tier 7: 15-switch paths, through the public
 * API with the caller's stride. */
static tsched_topology *chain8(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "chain"));
    char a[16], b[16];
    for (int k = 0; k < 7; k++)
        for (int side = 0; side < 2; side++) {
            snprintf(a, sizeof a, "s%d%c", k, 'L' + side);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, a, k, NULL));
        }
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "top", 7, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "top2", 7, NULL));
    for (int k = 0; k < 7; k++)
        for (int side = 0; side < 2; side++) {
            snprintf(a, sizeof a, "s%d%c", k, 'L' + side);
            if (k == 6) {
                ck_assert_ok(tsched_topology_add_link(t, a, "top", 400, 1));
                ck_assert_ok(tsched_topology_add_link(t, a, "top2", 400, 1));
            } else {
                snprintf(b, sizeof b, "s%d%c", k + 1, 'L' + side);
                ck_assert_ok(tsched_topology_add_link(t, a, b, 400, 1));
            }
        }
    ck_assert_ok(tsched_topology_add_node(NULL, t, "x", "s0L", 8, 8, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "y", "s0M", 8, 8, NULL, 400));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

START_TEST(deep_eight_tiers_chain)
{
    tsched_topology *t = chain8();
    uint64_t c = 0;
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 3, 1, 5));
    ck_assert_uint_eq(c, 2);
    tsched_path p[2];
    p[0].size = sizeof p[0];
    size_t n = 0;
    ck_assert_ok(tsched_topology_paths(p, 2, &n, t, 0, 0, 1, 0));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(p[0].nswitches, 15);
    ck_assert_uint_eq(p[0].switches[7], tu_sw(t, "top"));
    ck_assert_uint_eq(p[1].switches[7], tu_sw(t, "top2"));
    ck_assert_uint_eq(p[1].switches[14], tu_sw(t, "s0M"));
    ck_assert_uint_eq(p[1].links[13], 2 * tu_trunk(t, "s0M", "s1M") + 1);
    check_all_pairs(t, "chain");
    ck_assert_ok(tsched_topology_set_up(t, "top", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 1, 0));
    ck_assert_uint_eq(c, 1);
    ck_assert_ok(tsched_topology_set_up(t, "s6M~top2", 0));
    ck_assert_ok(tsched_topology_path_count(&c, t, 0, 0, 1, 0));
    ck_assert_uint_eq(c, 0);
    check_all_pairs(t, "chain, cut");
    tsched_topology_free(t);
}
END_TEST

/* Two leaves under 7 more tiers of W full-mesh switches each side, joined by W tops:
 * W^13 equal-cost paths of 14 links between them. */
static tsched_topology *mesh8(int w)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "mesh"));
    char a[32], b[32];
    for (int g = 0; g < 2; g++) {
        snprintf(a, sizeof a, "g%dleaf", g);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 0, NULL));
        for (int k = 1; k < 7; k++)
            for (int i = 0; i < w; i++) {
                snprintf(a, sizeof a, "g%dt%ds%d", g, k, i);
                ck_assert_ok(tsched_topology_add_switch(NULL, t, a, k, NULL));
                for (int c = 0; c < (k == 1 ? 1 : w); c++) {
                    if (k == 1)
                        snprintf(b, sizeof b, "g%dleaf", g);
                    else
                        snprintf(b, sizeof b, "g%dt%ds%d", g, k - 1, c);
                    ck_assert_ok(tsched_topology_add_link(t, b, a, 100, 1));
                }
            }
        snprintf(a, sizeof a, "n%d", g);
        snprintf(b, sizeof b, "g%dleaf", g);
        ck_assert_ok(tsched_topology_add_node(NULL, t, a, b, 8, 1, NULL, 100));
    }
    for (int i = 0; i < w; i++) {
        snprintf(a, sizeof a, "top%d", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 7, NULL));
        for (int g = 0; g < 2; g++)
            for (int c = 0; c < w; c++) {
                snprintf(b, sizeof b, "g%dt6s%d", g, c);
                ck_assert_ok(tsched_topology_add_link(t, b, a, 100, 1));
            }
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* Listing the candidate paths has a memory budget: 4^13 paths of 14 links (3.7 GB to list)
 * are refused at once, naming the budget and the pair, by every routing algorithm and by
 * prioritize's router; 2^13 paths are listed and routed. */
START_TEST(deep_path_listing_budget)
{
    for (int w = 2; w <= 4; w += 2) {
        tsched_topology *t = mesh8(w);
        uint64_t cnt = 0;
        ck_assert_ok(tsched_topology_path_count(&cnt, t, 0, 0, 1, 0));
        uint64_t want = 1;
        for (int k = 0; k < 13; k++)
            want *= (uint64_t)w;
        ck_assert_uint_eq(cnt, want);
        tsched_flows *f = NULL;
        ck_assert_ok(tsched_flows_new(&f));
        ck_assert_ok(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, 1.0));
        static const tsched_route_algo algos[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP, TSCHED_ROUTE_ILP};
        for (int k = 0; k < 3; k++) {
            tsched_route_options o;
            tsched_route_options_init(&o);
            o.algo = algos[k];
            o.time_limit_ms = 1000;
            tsched_routes *r = NULL;
            tsched_status st = tsched_route(&r, t, f, &o);
            if (w == 2) {
                ck_assert_msg(st == TSCHED_OK, "w 2, algo %d: %s", k, tsched_last_error());
                ck_assert_uint_eq(tsched_routes_count(r), 1);
            } else {
                ck_assert_status(st, TSCHED_E_TOO_LARGE);
                ck_assert_errmsg_has("budget");
                ck_assert_errmsg_has("\"g0leaf\" and \"g1leaf\"");
                ck_assert_ptr_null(r);
            }
            tsched_routes_free(r);
        }
        tsched_flows_free(f);
        tsched_topology_free(t);
    }
}
END_TEST

/* Routing on deep fabrics: every algorithm picks one of the listed paths for each flow,
 * the link counts add up, the ILP is no worse than greedy, and a reroute after a failure
 * keeps to surviving paths. */
static int path_listed(const tsched_topology *t, const tsched_path *p, uint32_t a, uint32_t b)
{
    uint64_t c = 0;
    ck_assert_ok(tsched_topology_leaf_path_count(&c, t, a, b));
    size_t n = (size_t)c;
    tsched_path *all = calloc(n ? n : 1, sizeof *all);
    ck_assert_ptr_nonnull(all);
    all[0].size = sizeof *all;
    ck_assert_ok(tsched_topology_leaf_paths(all, n, &n, t, a, b));
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        found = all[i].nswitches == p->nswitches &&
                memcmp(all[i].switches, p->switches, p->nswitches * sizeof p->switches[0]) == 0 &&
                memcmp(all[i].links, p->links, (p->nswitches - 1) * sizeof p->links[0]) == 0;
    free(all);
    return found;
}

static void check_routes(const tsched_topology *t, const tsched_flows *f, const tsched_routes *r, const char *what)
{
    uint32_t nt = tsched_topology_num_trunks(t), nf = tsched_flows_count(f);
    uint32_t *load = calloc(2 * (size_t)nt + 1, sizeof *load), max = 0;
    ck_assert_ptr_nonnull(load);
    ck_assert_uint_eq(tsched_routes_count(r), nf);
    for (uint32_t i = 0; i < nf; i++) {
        tsched_path p = {.size = sizeof p};
        ck_assert_ok(tsched_routes_path(&p, r, i));
        uint32_t a = tsched_topology_node_leaf(t, tsched_flows_src(f, i));
        uint32_t b = tsched_topology_node_leaf(t, tsched_flows_dst(f, i));
        ck_assert_msg(path_listed(t, &p, a, b), "[%s] flow %u: path not among the listed paths", what, i);
        for (uint32_t h = 0; h + 1 < p.nswitches; h++)
            if (++load[p.links[h]] > max)
                max = load[p.links[h]];
    }
    for (uint32_t l = 0; l < 2 * nt; l++)
        ck_assert_msg(tsched_routes_link_flows(r, l) == load[l], "[%s] link %u: %u flows, recount %u", what, l,
                      tsched_routes_link_flows(r, l), load[l]);
    ck_assert_uint_eq(tsched_routes_max_link_flows(r), max);
    free(load);
}

START_TEST(deep_routing_all_algorithms)
{
    static const tsched_route_algo algos[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP, TSCHED_ROUTE_BALANCED_ECMP,
                                              TSCHED_ROUTE_ILP};
    for (unsigned i = 0; i < tu_n(12); i++) {
        tsched_topology *t = random_deep(0xab0000u + i, 4 + (int)(i % 5), 1);
        uint32_t nn = tsched_topology_num_nodes(t);
        tsched_flows *f = NULL;
        ck_assert_ok(tsched_flows_new(&f));
        tu_rng r = {77 + i};
        for (uint32_t k = 0; k < 3 * nn; k++) {
            uint32_t x = tu_rng_below(&r, nn), y = tu_rng_below(&r, nn);
            uint64_t c = 0;
            ck_assert_ok(tsched_topology_path_count(&c, t, x, 0, y, 0));
            if (x != y && c)
                ck_assert_ok(tsched_flows_add(NULL, f, "j", x, 0, y, 0, 1.0));
        }
        uint32_t greedy_max = 0;
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            tsched_route_options o;
            tsched_route_options_init(&o);
            o.algo = algos[a];
            o.seed = 5 + i;
            tsched_routes *rt = NULL;
            ck_assert_ok(tsched_route(&rt, t, f, &o));
            char what[64];
            snprintf(what, sizeof what, "fabric %u, %s", i, tsched_route_algo_name(algos[a]));
            check_routes(t, f, rt, what);
            if (algos[a] == TSCHED_ROUTE_GREEDY)
                greedy_max = tsched_routes_max_link_flows(rt);
            if (algos[a] == TSCHED_ROUTE_ILP && strcmp(tsched_routes_status(rt), "optimal") == 0)
                ck_assert_uint_le(tsched_routes_max_link_flows(rt), greedy_max);
            if (a == 0 && tsched_flows_count(f)) {
                /* cut the first flow's top switch; the reroute keeps to surviving paths */
                tsched_path p = {.size = sizeof p};
                ck_assert_ok(tsched_routes_path(&p, rt, 0));
                if (p.nswitches > 1) {
                    ck_assert_ok(tsched_topology_set_switch_up(t, p.switches[p.nswitches / 2], 0));
                    tsched_routes *r2 = NULL;
                    tsched_status st = tsched_reroute(&r2, rt, t, f);
                    ck_assert_msg(st == TSCHED_OK || st == TSCHED_E_NO_PATH, "reroute: %s", tsched_last_error());
                    if (st == TSCHED_OK) {
                        snprintf(what, sizeof what, "fabric %u, reroute", i);
                        check_routes(t, f, r2, what);
                    }
                    tsched_routes_free(r2);
                    ck_assert_ok(tsched_topology_set_switch_up(t, p.switches[p.nswitches / 2], 1));
                }
            }
            tsched_routes_free(rt);
        }
        tsched_flows_free(f);
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- NVLink domains in placement and the free-capacity queries ---- */

/* 4 leaves of 6 nodes (8 GPUs each); nodes get random NVLink domains among `ndom` names,
 * about one in five none. */
static tsched_topology *random_nvl(uint64_t seed, uint32_t ndom, int allow_none)
{
    tu_rng r = {seed};
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "nvl"));
    char name[32], leaf[32];
    for (int s = 0; s < 2; s++) {
        snprintf(name, sizeof name, "spine%d", s);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, name, 1, NULL));
    }
    for (uint32_t l = 0; l < 4; l++) {
        snprintf(leaf, sizeof leaf, "leaf%u", l);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, leaf, 0, NULL));
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine0", 400, 1));
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine1", 400, 1));
        for (uint32_t k = 0; k < 6; k++) {
            uint32_t n;
            snprintf(name, sizeof name, "n%u", l * 6 + k);
            ck_assert_ok(tsched_topology_add_node(&n, t, name, leaf, 8, 8, NULL, 400));
            if (!allow_none || tu_rng_below(&r, 5)) {
                snprintf(name, sizeof name, "rack%u", tu_rng_below(&r, ndom));
                ck_assert_ok(tsched_topology_set_nvl_domain(t, n, name));
            }
        }
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* A node's NVLink domain as the user sees it: its domain's name, or its own name. */
static const char *nvl_key(const tsched_topology *t, uint32_t n)
{
    const char *d = tsched_topology_node_nvl_domain(t, n);
    return d ? d : tsched_topology_node_name(t, n);
}

static uint32_t distinct_keys(const tsched_topology *t, const uint32_t *nodes, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) {
        int dup = 0;
        for (uint32_t j = 0; j < i && !dup; j++)
            dup = strcmp(nvl_key(t, nodes[i]), nvl_key(t, nodes[j])) == 0;
        c += !dup;
    }
    return c;
}

static void check_nvl_free(const tsched_topology *t)
{
    uint32_t nn = tsched_topology_num_nodes(t), nd = tsched_topology_num_nvl_domains(t);
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t want[64], nw = 0, got[64];
        for (uint32_t n = 0; n < nn; n++)
            if (tsched_topology_node_nvl(t, n) == d && tsched_topology_node_is_free(t, n))
                want[nw++] = n;
        ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_NVL, d), nw);
        size_t ng = 0;
        ck_assert_ok(tsched_topology_free_nodes(got, 64, &ng, t, TSCHED_LEVEL_NVL, d));
        ck_assert_uint_eq(ng, nw);
        for (uint32_t i = 0; i < nw; i++)
            ck_assert_uint_eq(got[i], want[i]);
    }
    ck_assert_uint_eq(tsched_topology_free_node_count(t, TSCHED_LEVEL_NVL, nd), 0);
    size_t ng = 0;
    ck_assert_status(tsched_topology_free_nodes(NULL, 0, &ng, t, TSCHED_LEVEL_NVL, nd), TSCHED_E_INVALID);
}

START_TEST(nvl_free_capacity)
{
    for (unsigned i = 0; i < 10; i++) {
        tsched_topology *t = random_nvl(100 + i, 2 + i % 5, 1);
        check_nvl_free(t);
        tu_rng r = {9 + i};
        for (int k = 0; k < 8; k++) {
            uint32_t n = tu_rng_below(&r, tsched_topology_num_nodes(t));
            if (k % 3 == 0)
                ck_assert_ok(tsched_topology_set_node_up(t, n, tu_rng_below(&r, 2)));
            else if (k % 3 == 1)
                ck_assert_ok(tsched_topology_set_free_gpus(t, n, tu_rng_below(&r, 9)));
            else
                ck_assert_ok(tsched_topology_set_up(t, tu_rng_below(&r, 2) ? "leaf1" : "leaf2", tu_rng_below(&r, 2)));
            check_nvl_free(t);
        }
        tsched_topology_free(t);
    }
}
END_TEST

/* Every algorithm with "domain": "nvl": the spread it reports equals a count of distinct
 * NVLink domains (names, a node without one counted alone) over its rows and columns;
 * mip and exhaustive agree on the optimum; the placement document says "nvl" and reads
 * back to the same metric. */
START_TEST(nvl_placement_spread)
{
    static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE,
                                              TSCHED_PLACE_EXHAUSTIVE};
    for (unsigned i = 0; i < tu_n(12); i++) {
        tsched_topology *t = random_nvl(500 + i, 3 + i % 2, i % 2);
        tsched_job *job = NULL;
        /* 4 x 2 or 3 x 4 nodes of 8 GPUs */
        uint32_t pp = 2 + 2 * (i % 2), rows = pp == 2 ? 4 : 3;
        ck_assert_ok(tsched_job_new(&job, "j", rows * 8 * pp, 8, pp));
        ck_assert_ok(tsched_job_set_domain(job, TSCHED_DOMAIN_NVL));
        ck_assert_ok(tsched_job_set_alpha(job, 0.25 + 0.25 * (i % 3)));
        double opt[2] = {-1, -1};
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            tsched_place_options o;
            tsched_place_options_init(&o);
            o.algo = algos[a];
            o.seed = 3 + i;
            tsched_placement *p = NULL;
            tsched_status st = tsched_place(&p, t, job, &o);
            if (algos[a] == TSCHED_PLACE_EXHAUSTIVE && st == TSCHED_E_INVALID)
                continue; /* more domains than exhaustive takes */
            ck_assert_msg(st == TSCHED_OK, "%s: %s", tsched_place_algo_name(algos[a]), tsched_last_error());
            uint32_t R = tsched_placement_rows(p), C = tsched_placement_cols(p), all[64], grp[16];
            uint32_t dp = 0, ppm = 0;
            for (uint32_t c = 0; c < C; c++) {
                for (uint32_t rr = 0; rr < R; rr++)
                    grp[rr] = tsched_placement_node(p, rr, c);
                uint32_t k = distinct_keys(t, grp, R);
                dp = k > dp ? k : dp;
            }
            for (uint32_t rr = 0; rr < R; rr++) {
                for (uint32_t c = 0; c < C; c++)
                    all[rr * C + c] = grp[c] = tsched_placement_node(p, rr, c);
                uint32_t k = distinct_keys(t, grp, C);
                ppm = k > ppm ? k : ppm;
            }
            ck_assert_uint_eq(tsched_placement_dp_max(p), dp);
            ck_assert_uint_eq(tsched_placement_pp_max(p), ppm);
            ck_assert_uint_eq(tsched_placement_domains_used(p), distinct_keys(t, all, R * C));
            double alpha = tsched_placement_alpha(p);
            ck_assert(fabs(tsched_placement_weighted(p) - (alpha * dp + (1 - alpha) * ppm)) < 1e-9);
            if (tsched_placement_status(p) == TSCHED_PLACE_OPTIMAL && (algos[a] == TSCHED_PLACE_MIP ||
                                                                      algos[a] == TSCHED_PLACE_EXHAUSTIVE))
                opt[algos[a] == TSCHED_PLACE_MIP ? 0 : 1] = tsched_placement_weighted(p);
            char *js = NULL;
            ck_assert_ok(tsched_placement_to_json(&js, p, t, "j", 0));
            ck_assert_ptr_nonnull(strstr(js, "\"domain\": \"nvl\""));
            char want[48];
            snprintf(want, sizeof want, "\"domains_used\": %u", distinct_keys(t, all, R * C));
            ck_assert_ptr_nonnull(strstr(js, want));
            /* pods_used counts pods, not NVLink domains (issue 25); 0 without pods */
            uint32_t pods = 0, np = tsched_topology_num_pods(t);
            for (uint32_t k = 0; k < R * C; k++) {
                uint32_t pk = tsched_topology_node_pod(t, all[k]), j = 0;
                while (j < k && tsched_topology_node_pod(t, all[j]) != pk)
                    j++;
                pods += j == k && pk < np;
            }
            snprintf(want, sizeof want, "\"pods_used\": %u,", pods);
            ck_assert_ptr_nonnull(strstr(js, want));
            tsched_placement *q = NULL;
            ck_assert_ok(tsched_placement_load_string(&q, t, js, strlen(js)));
            ck_assert_uint_eq(tsched_placement_dp_max(q), dp);
            ck_assert_uint_eq(tsched_placement_domains_used(q), tsched_placement_domains_used(p));
            tsched_placement_free(q);
            tsched_free(js);
            tsched_spread sp = {.size = sizeof sp};
            ck_assert_ok(tsched_spread_eval(&sp, t, all, R, C, alpha, TSCHED_DOMAIN_NVL));
            ck_assert_uint_eq(sp.pp_max, ppm);
            tsched_placement_free(p);
        }
        if (i % 2 == 0) /* four domains at most: exhaustive ran */
            ck_assert_msg(opt[1] >= 0, "exhaustive did not run on fabric %u", i);
        if (opt[0] >= 0 && opt[1] >= 0)
            ck_assert_msg(fabs(opt[0] - opt[1]) < 1e-9, "mip %g, exhaustive %g", opt[0], opt[1]);
        /* the job document keeps the domain */
        char *js = NULL;
        ck_assert_ok(tsched_job_to_json(&js, job));
        ck_assert_ptr_nonnull(strstr(js, "\"domain\": \"nvl\""));
        tsched_job *j2 = NULL;
        ck_assert_ok(tsched_job_load_string(&j2, js, strlen(js)));
        ck_assert_int_eq(tsched_job_domain(j2), TSCHED_DOMAIN_NVL);
        tsched_job_free(j2);
        tsched_free(js);
        tsched_job_free(job);
        tsched_topology_free(t);
    }
}
END_TEST

/* Without any NVLink domain every node is its own: nvl spread = number of nodes per group. */
START_TEST(nvl_placement_without_domains)
{
    tsched_topology *t = tu_leaf_spine(4, 2, 1, 4, 8, 8);
    tsched_job *job = tu_job("j", 64, 8, 2);
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.domain = TSCHED_DOMAIN_NVL;
    o.algo = TSCHED_PLACE_BEST_FIT;
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, t, job, &o));
    ck_assert_uint_eq(tsched_placement_pp_max(p), 2);
    ck_assert_uint_eq(tsched_placement_dp_max(p), 4);
    ck_assert_uint_eq(tsched_placement_domains_used(p), 8);
    tsched_placement_free(p);
    tsched_job_free(job);
    tsched_topology_free(t);
}
END_TEST

/* The simulator on the 8-tier chain: one flow across tier 7, at NIC speed (every link is
 * 400 Gbit/s), finishes when the analytic model says, under each routing policy that
 * takes a fabric with cores. */
START_TEST(deep_sim_one_flow)
{
    static const char *const routings[] = {"greedy", "ecmp", "balanced-ecmp", "ilp"};
    for (size_t k = 0; k < sizeof routings / sizeof routings[0]; k++) {
        tsched_topology *t = chain8();
        tsched_sim *s = NULL;
        ck_assert_ok(tsched_sim_new(&s, t));
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, routings[k]));
        uint32_t nodes[2] = {0, 1}, ji, ph;
        const int64_t ms = 1000000;
        tsched_sim_job j = {sizeof j, "a", 0, 0, 0, 0, 100 * ms, 0.25, 7, 0, 0, 0, NULL, nodes, 2};
        ck_assert_ok(tsched_sim_add_job(&ji, s, &j));
        tsched_sim_phase p = {sizeof p, -1, 0, 1};
        ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
        ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, 0, 0, 1, 0, 20.0, NULL, 0));
        ck_assert_ok(tsched_sim_run_until(s, INT64_MAX));
        tsched_sim_result *r = NULL;
        ck_assert_ok(tsched_sim_result_new(&r, s));
        tsched_sim_job_stats js = {.size = sizeof js};
        ck_assert_ok(tsched_sim_result_job(&js, r, 0));
        /* 75 ms of compute not overlapped + 20 Gbit at 400 Gbit/s = 50 ms, seven times */
        ck_assert_msg(js.finish_ns == 7 * 125 * ms, "%s: finish %lld", routings[k], (long long)js.finish_ns);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* CRUX priorities route through the path cache: a job set on the deep chain works. */
START_TEST(deep_prioritize)
{
    tsched_topology *t = chain8();
    tsched_jobset *js = NULL;
    ck_assert_ok(tsched_jobset_new(&js, t));
    uint32_t a, b;
    ck_assert_ok(tsched_jobset_add_job(&a, js, "a", 8, 1.0, 1.0, 0.0));
    ck_assert_ok(tsched_jobset_add_job(&b, js, "b", 8, 2.0, 1.0, 0.0));
    ck_assert_ok(tsched_jobset_add_flow(js, a, 0, 0, 1, 0, 10.0, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, b, 0, 1, 1, 1, 10.0, NULL));
    tsched_priorities *pr = NULL;
    ck_assert_ok(tsched_prioritize(&pr, t, js, NULL));
    ck_assert(tsched_priorities_intensity(pr, 0) > 0);
    /* both cross the chains below the tops: they contend */
    ck_assert_uint_eq(tsched_priorities_dag_edges(pr), 1);
    tsched_priorities_free(pr);
    tsched_jobset_free(js);
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
    tcase_add_test(tc, deep_paths_match_brute_force);
    tcase_add_test(tc, deep_search_agrees_on_clos3);
    tcase_add_test(tc, deep_eight_tiers_chain);
    tcase_add_test(tc, deep_routing_all_algorithms);
    tcase_add_test(tc, deep_path_listing_budget);
    tcase_add_test(tc, deep_sim_one_flow);
    tcase_add_test(tc, deep_prioritize);
    tcase_add_test(tc, nvl_free_capacity);
    tcase_add_test(tc, nvl_placement_spread);
    tcase_add_test(tc, nvl_placement_without_domains);
    return tc;
}
