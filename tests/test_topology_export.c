/* Exports (doc/export.md): every export's grouping of nodes against domain-tree partitions
 * computed here from the fabric alone (union-find over the trunks, not the library's
 * domain_tree.c), the Slurm conf round trip on random trees, hostlist compression round
 * trips, per-task host files and pod orders against the placement's ranks, and the errors. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "topology/import/hostlist.h"
#include "topology/export/hostlist_compress.h"

#define NONE TSCHED_NONE
#define MAXLEV (TSCHED_MAX_TIERS + 1)

/* 32-bit FNV-1a, written here from its definition (offset basis 2166136261, prime 16777619)
 * as the reference for ts_name_shorten's suffix. */
static uint32_t tsched_test_fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* ---- the seeded generator, shared by random_fabric and its callers --------------------- */

static tu_rng rng;

/* ---- the reference: written-level partitions from the fabric ------------------------- */

/* A partition of the nodes: rep[n] = the smallest node index of n's group. */
typedef struct part {
    uint32_t *rep;
} part;

typedef struct ref {
    uint32_t nn, nlev;
    part lev[MAXLEV];  /* written levels from the bottom */
    int lev_nvl[MAXLEV];
    int nvl_left_out;  /* the fabric has NVLink domains that nest nowhere */
} ref;

static uint32_t find(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* rep from any per-node key (equal keys = one group); keys compared as 64-bit values. */
static void canon_u64(uint32_t *rep, const uint64_t *key, uint32_t nn)
{
    for (uint32_t n = 0; n < nn; n++) {
        rep[n] = n;
        for (uint32_t m = 0; m < n; m++)
            if (key[m] == key[n]) {
                rep[n] = rep[m];
                break;
            }
    }
}

/* Every group of a lies inside one group of b. */
static int part_nests(const uint32_t *a, const uint32_t *b, uint32_t nn)
{
    for (uint32_t n = 0; n < nn; n++)
        if (b[n] != b[a[n]])
            return 0;
    return 1;
}

static void ref_build(ref *r, const tsched_topology *t)
{
    memset(r, 0, sizeof *r);
    uint32_t nn = tsched_topology_num_nodes(t), ns = tsched_topology_num_switches(t);
    r->nn = nn;
    int top = -1;
    for (uint32_t s = 0; s < ns; s++)
        if (tsched_topology_switch_tier(t, s) > top)
            top = tsched_topology_switch_tier(t, s);
    uint32_t *p = malloc((ns + 1) * sizeof *p);
    uint64_t *key = malloc((nn + 1) * sizeof *key);
    uint32_t *tiers[MAXLEV];
    for (uint32_t s = 0; s < ns; s++)
        p[s] = s;
    for (int k = 0; k <= top; k++) {
        for (uint32_t tr = 0; tr < tsched_topology_num_trunks(t); tr++) {
            uint32_t a = tsched_topology_trunk_lower(t, tr), b = tsched_topology_trunk_upper(t, tr);
            if (tsched_topology_switch_tier(t, b) <= k) {
                uint32_t ra = find(p, a), rb = find(p, b);
                p[ra] = rb;
            }
        }
        for (uint32_t n = 0; n < nn; n++)
            key[n] = find(p, tsched_topology_node_leaf(t, n));
        tiers[k] = malloc((nn + 1) * sizeof *tiers[k]);
        canon_u64(tiers[k], key, nn);
    }
    uint32_t *nvl = NULL;
    if (tsched_topology_num_nvl_domains(t) > 0) {
        nvl = malloc((nn + 1) * sizeof *nvl);
        for (uint32_t n = 0; n < nn; n++) {
            uint32_t d = tsched_topology_node_nvl(t, n);
            key[n] = d == NONE ? (1ull << 40) + n : d;
        }
        canon_u64(nvl, key, nn);
    }
    int pos = -1;
    if (nvl && top >= 0) {
        if (part_nests(nvl, tiers[0], nn))
            pos = 0;
        for (int k = 0; pos < 0 && k <= top; k++)
            if (part_nests(tiers[k], nvl, nn) && (k == top || part_nests(nvl, tiers[k + 1], nn)))
                pos = k + 1;
    }
    r->nvl_left_out = nvl && pos < 0;
    for (int k = 0; k <= top; k++) {
        if (k == pos) {
            r->lev_nvl[r->nlev] = 1;
            r->lev[r->nlev++].rep = nvl;
            nvl = NULL;
        }
        r->lev[r->nlev++].rep = tiers[k];
    }
    if (nvl && pos == top + 1) {
        r->lev_nvl[r->nlev] = 1;
        r->lev[r->nlev++].rep = nvl;
        nvl = NULL;
    }
    free(nvl);
    free(p);
    free(key);
}

static void ref_free(ref *r)
{
    for (uint32_t i = 0; i < r->nlev; i++)
        free(r->lev[i].rep);
}

/* ---- random fabrics --------------------------------------------------------------------- */

typedef struct fab_opts {
    int tiers;       /* highest tier + 1 */
    int extra_links; /* add links that make it a non-tree */
    int nvl;         /* 0 none, 1 inside leaves, 2 whole leaves pairs, 3 random */
    int uneven;      /* some roots at lower tiers */
} fab_opts;

static const double speeds[] = {100, 200, 400, 800, 12.5};

static tsched_topology *random_fabric(const fab_opts *fo)
{
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "rnd"));
    char name[64];
    /* switches tier by tier from the top: sw[k] lists tier-k switch numbers */
    uint32_t cnt[TSCHED_MAX_TIERS] = {0};
    uint32_t parent_of[TSCHED_MAX_TIERS][64];
    int top = fo->tiers - 1;
    cnt[top] = 1 + tu_rng_below(&rng, 2);
    for (uint32_t i = 0; i < cnt[top]; i++) {
        snprintf(name, sizeof name, "t%ds%u", top, i);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, name, top, NULL));
    }
    for (int k = top - 1; k >= 0; k--) {
        for (uint32_t i = 0; i < cnt[k + 1]; i++) {
            uint32_t children = 1 + tu_rng_below(&rng, 3);
            double sp = speeds[tu_rng_below(&rng, 5)];
            int uniform = tu_rng_below(&rng, 3) != 0;
            for (uint32_t c = 0; c < children && cnt[k] < 60; c++) {
                uint32_t j = cnt[k]++;
                parent_of[k][j] = i;
                snprintf(name, sizeof name, "t%ds%u", k, j);
                ck_assert_ok(tsched_topology_add_switch(NULL, t, name, k, NULL));
                char up[64];
                snprintf(up, sizeof up, "t%ds%u", k + 1, i);
                ck_assert_ok(tsched_topology_add_link(t, name, up, uniform ? sp : speeds[tu_rng_below(&rng, 5)], 1));
            }
        }
        if (fo->uneven && k > 0 && tu_rng_below(&rng, 2)) { /* a root at a lower tier */
            uint32_t j = cnt[k]++;
            parent_of[k][j] = NONE;
            snprintf(name, sizeof name, "t%ds%u", k, j);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, name, k, NULL));
        }
    }
    if (fo->extra_links)
        for (int k = 0; k < top; k++)
            for (uint32_t e = 0, ne = 1 + tu_rng_below(&rng, 3); e < ne; e++) {
                char a[64], b[64];
                uint32_t i = tu_rng_below(&rng, cnt[k]), j = tu_rng_below(&rng, cnt[k + 1]);
                if (parent_of[k][i] == j)
                    continue;
                snprintf(a, sizeof a, "t%ds%u", k, i);
                snprintf(b, sizeof b, "t%ds%u", k + 1, j);
                ck_assert_ok(tsched_topology_add_link(t, a, b, 100, 1));
            }
    /* nodes: numbers in a shuffled order, some leaves empty, prefixes vary */
    uint32_t total = 0, per[64];
    for (uint32_t l = 0; l < cnt[0]; l++)
        total += per[l] = tu_rng_below(&rng, 5) == 0 ? 0 : 1 + tu_rng_below(&rng, 4);
    if (total == 0)
        total = per[0] = 1;
    uint32_t *num = malloc((total + 1) * sizeof *num);
    for (uint32_t i = 0; i < total; i++)
        num[i] = i;
    for (uint32_t i = 0; i < total; i++) { /* mostly sorted: swap a few */
        if (tu_rng_below(&rng, 4) == 0) {
            uint32_t j = tu_rng_below(&rng, total), x = num[i];
            num[i] = num[j];
            num[j] = x;
        }
    }
    static const char *const fmts[] = {"gpu%03u", "n%u", "r1n%02u", "node-%u-ib"};
    const char *fmt = fmts[tu_rng_below(&rng, 4)];
    uint32_t node = 0;
    for (uint32_t l = 0; l < cnt[0]; l++) {
        char leaf[64];
        snprintf(leaf, sizeof leaf, "t0s%u", l);
        for (uint32_t i = 0; i < per[l]; i++, node++) {
            snprintf(name, sizeof name, fmt, num[node]);
            uint32_t idx;
            ck_assert_ok(tsched_topology_add_node(&idx, t, name, leaf, 8, 8, NULL, 400));
            if (fo->nvl == 1 && tu_rng_below(&rng, 4) != 0) {
                char d[64];
                snprintf(d, sizeof d, "nv%u-%u", l, i / 2);
                ck_assert_ok(tsched_topology_set_nvl_domain(t, idx, d));
            } else if (fo->nvl == 2 && fo->tiers > 1 && parent_of[0][l] != NONE) {
                char d[64];
                snprintf(d, sizeof d, "nvp%u", parent_of[0][l]);
                ck_assert_ok(tsched_topology_set_nvl_domain(t, idx, d));
            } else if (fo->nvl == 3 && tu_rng_below(&rng, 3) != 0) {
                char d[64];
                snprintf(d, sizeof d, "nvr%u", tu_rng_below(&rng, 3));
                ck_assert_ok(tsched_topology_set_nvl_domain(t, idx, d));
            }
        }
    }
    free(num);
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* ---- readers of the exports --------------------------------------------------------------- */

static uint64_t hash_str(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

/* Compare a written level's grouping (per-node keys) with the reference partition. */
static void check_level(const ref *r, uint32_t lev, const uint64_t *key, const char *what)
{
    uint32_t *rep = malloc((r->nn + 1) * sizeof *rep);
    canon_u64(rep, key, r->nn);
    for (uint32_t n = 0; n < r->nn; n++)
        ck_assert_msg(rep[n] == r->lev[lev].rep[n], "%s: level %u: node %u is grouped with %u, expected %u", what, lev,
                      n, rep[n], r->lev[lev].rep[n]);
    free(rep);
}

static char *export_text(const tsched_topology *t, tsched_export_format to, int json, int physical)
{
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = to;
    o.json = json;
    o.physical = physical;
    o.sanitize = to >= TSCHED_EXPORT_KUEUE; /* names as in the fabric; partitions do not change */
    char *s = NULL;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    return s;
}

/* Slurm tree conf: node -> leaf, switch -> parent; level k = ancestor of height k. */
typedef struct conf {
    uint32_t nsw;
    char *name[4096];
    uint32_t parent[4096];
    int height[4096];
    double speed[4096];
    uint32_t *node_leaf; /* fabric node index -> conf switch */
} conf;

static uint32_t conf_switch(conf *c, const char *name)
{
    for (uint32_t i = 0; i < c->nsw; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    ck_assert_uint_lt(c->nsw, 4096);
    c->name[c->nsw] = strdup(name);
    c->parent[c->nsw] = NONE;
    c->height[c->nsw] = -1;
    c->speed[c->nsw] = 0;
    return c->nsw++;
}

static void conf_parse(conf *c, const char *text, const tsched_topology *t)
{
    memset(c, 0, sizeof *c);
    uint32_t nn = tsched_topology_num_nodes(t);
    c->node_leaf = malloc((nn + 1) * sizeof *c->node_leaf);
    for (uint32_t n = 0; n < nn; n++)
        c->node_leaf[n] = NONE;
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sw = NULL, *nodes = NULL, *kids = NULL, *speed = NULL, *s2 = NULL;
        for (char *tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
            if (strncmp(tok, "SwitchName=", 11) == 0)
                sw = tok + 11;
            else if (strncmp(tok, "Nodes=", 6) == 0)
                nodes = tok + 6;
            else if (strncmp(tok, "Switches=", 9) == 0)
                kids = tok + 9;
            else if (strncmp(tok, "LinkSpeed=", 10) == 0)
                speed = tok + 10;
            else
                ck_abort_msg("unexpected token %s", tok);
        }
        ck_assert_ptr_nonnull(sw);
        uint32_t me = conf_switch(c, sw);
        if (speed)
            c->speed[me] = strtod(speed, NULL);
        ts_hostlist h;
        ts_hostlist_init(&h);
        if (nodes) {
            c->height[me] = 0;
            ck_assert_ok(ts_hostlist_expand(&h, nodes, strlen(nodes), 1u << 20));
            for (size_t i = 0; i < ts_hostlist_count(&h); i++) {
                uint32_t n = tsched_topology_find_node(t, ts_hostlist_name(&h, i));
                ck_assert_msg(n != NONE, "conf names an unknown node %s", ts_hostlist_name(&h, i));
                ck_assert_msg(c->node_leaf[n] == NONE, "node %s twice", ts_hostlist_name(&h, i));
                c->node_leaf[n] = me;
            }
        }
        if (kids) {
            ck_assert_ok(ts_hostlist_expand(&h, kids, strlen(kids), 1u << 20));
            for (size_t i = 0; i < ts_hostlist_count(&h); i++) {
                uint32_t k = conf_switch(c, ts_hostlist_name(&h, i));
                ck_assert_msg(c->parent[k] == NONE, "switch %s has two parents", ts_hostlist_name(&h, i));
                c->parent[k] = me;
            }
        }
        ts_hostlist_free(&h);
    }
    free(copy);
    for (uint32_t n = 0; n < nn; n++)
        ck_assert_msg(c->node_leaf[n] != NONE, "node %s is under no leaf", tsched_topology_node_name(t, n));
    /* heights: a parent is one above its children */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 0; i < c->nsw; i++)
            if (c->height[i] >= 0 && c->parent[i] != NONE && c->height[c->parent[i]] < c->height[i] + 1) {
                ck_assert_msg(c->height[c->parent[i]] < 0, "switch %s has children of two heights",
                              c->name[c->parent[i]]);
                c->height[c->parent[i]] = c->height[i] + 1;
                changed = 1;
            }
    }
}

static void conf_free(conf *c)
{
    for (uint32_t i = 0; i < c->nsw; i++)
        free(c->name[i]);
    free(c->node_leaf);
}

static void check_conf_tree(const ref *r, const tsched_topology *t, const char *text)
{
    conf c;
    conf_parse(&c, text, t);
    uint64_t *key = malloc((r->nn + 1) * sizeof *key);
    uint32_t lev = 0;
    for (int k = 0;; k++) {
        while (lev < r->nlev && r->lev_nvl[lev])
            lev++; /* the tree form carries no NVLink level */
        if (lev >= r->nlev)
            break;
        for (uint32_t n = 0; n < r->nn; n++) {
            uint32_t s = c.node_leaf[n];
            while (s != NONE && c.height[s] < k)
                s = c.parent[s];
            ck_assert_msg(s != NONE && c.height[s] == k, "node %u has no tier-%d switch in the conf", n, k);
            key[n] = s;
        }
        check_level(r, lev, key, "slurm-conf");
        lev++;
    }
    free(key);
    conf_free(&c);
}

/* Kueue / KAI in JSON: group by the path of label values, coarsest first. */
static void check_labels(const ref *r, const tsched_topology *t, const char *text, const char *api)
{
    json_error_t e;
    json_t *root = json_loads(text, 0, &e);
    ck_assert_msg(root != NULL, "export is not JSON: %s", e.text);
    ck_assert_str_eq(json_string_value(json_object_get(root, "kind")), "List");
    json_t *items = json_object_get(root, "items");
    ck_assert_uint_eq(json_array_size(items), r->nn + 1);
    json_t *topo = json_array_get(items, 0);
    ck_assert_str_eq(json_string_value(json_object_get(topo, "apiVersion")), api);
    json_t *levels = json_object_get(json_object_get(topo, "spec"), "levels");
    ck_assert_uint_eq(json_array_size(levels), r->nlev + 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(levels, r->nlev), "nodeLabel")),
                     "kubernetes.io/hostname");
    uint64_t *key = calloc(r->nn + 1, sizeof *key);
    for (uint32_t j = 0; j < r->nlev; j++) { /* coarsest first: written level nlev-1-j */
        const char *k = json_string_value(json_object_get(json_array_get(levels, j), "nodeLabel"));
        for (uint32_t i = 1; i <= r->nn; i++) {
            json_t *md = json_object_get(json_array_get(items, i), "metadata");
            uint32_t n = tsched_topology_find_node(t, json_string_value(json_object_get(md, "name")));
            ck_assert_uint_ne(n, NONE);
            const char *v = json_string_value(json_object_get(json_object_get(md, "labels"), k));
            ck_assert_msg(v != NULL, "node %u lacks label %s", n, k);
            key[n] = hash_str(v, key[n] ? key[n] : 1469598103934665603ull);
        }
        check_level(r, r->nlev - 1 - j, key, api);
    }
    free(key);
    json_decref(root);
}

/* Volcano in JSON: node -> its tier-1 HyperNode -> ... by membership. */
static void check_volcano(const ref *r, const tsched_topology *t, const char *text)
{
    json_error_t e;
    json_t *root = json_loads(text, 0, &e);
    ck_assert_msg(root != NULL, "export is not JSON: %s", e.text);
    json_t *items = json_object_get(root, "items");
    size_t nh = json_array_size(items);
    uint32_t *node_hn = malloc((r->nn + 1) * sizeof *node_hn), *parent = malloc((nh + 1) * sizeof *parent);
    int *tier = malloc((nh + 1) * sizeof *tier);
    for (uint32_t n = 0; n < r->nn; n++)
        node_hn[n] = NONE;
    for (size_t i = 0; i < nh; i++)
        parent[i] = NONE;
    for (size_t i = 0; i < nh; i++) {
        json_t *h = json_array_get(items, i), *spec = json_object_get(h, "spec");
        ck_assert_str_eq(json_string_value(json_object_get(h, "kind")), "HyperNode");
        tier[i] = (int)json_integer_value(json_object_get(spec, "tier"));
        json_t *m;
        size_t k;
        json_array_foreach(json_object_get(spec, "members"), k, m)
        {
            const char *type = json_string_value(json_object_get(m, "type"));
            const char *name =
                json_string_value(json_object_get(json_object_get(json_object_get(m, "selector"), "exactMatch"), "name"));
            if (strcmp(type, "Node") == 0) {
                ck_assert_int_eq(tier[i], 1);
                uint32_t n = tsched_topology_find_node(t, name);
                ck_assert_uint_ne(n, NONE);
                ck_assert_uint_eq(node_hn[n], NONE);
                node_hn[n] = (uint32_t)i;
            } else {
                size_t c;
                for (c = 0; c < nh; c++)
                    if (strcmp(json_string_value(json_object_get(json_object_get(json_array_get(items, c), "metadata"),
                                                                 "name")),
                               name) == 0)
                        break;
                ck_assert_msg(c < nh, "member HyperNode %s does not exist", name);
                ck_assert_uint_eq(parent[c], NONE);
                ck_assert_int_eq(tier[c], tier[i] - 1);
                parent[c] = (uint32_t)i;
            }
        }
    }
    uint64_t *key = malloc((r->nn + 1) * sizeof *key);
    for (uint32_t lev = 0; lev < r->nlev; lev++) {
        for (uint32_t n = 0; n < r->nn; n++) {
            uint32_t h = node_hn[n];
            for (uint32_t k = 0; k < lev && h != NONE; k++)
                h = parent[h];
            ck_assert_msg(h != NONE && tier[h] == (int)lev + 1, "node %u has no tier-%u HyperNode", n, lev + 1);
            key[n] = h;
        }
        check_level(r, lev, key, "volcano");
    }
    free(key);
    free(node_hn);
    free(parent);
    free(tier);
    json_decref(root);
}

/* What the random fabrics covered: NVLink left out, inserted, and tiers seen. */
static unsigned seen_nvl_out, seen_nvl_in, seen_deep;

static void check_all_exports(const tsched_topology *t)
{
    ref r;
    ref_build(&r, t);
    seen_nvl_out += (unsigned)r.nvl_left_out;
    for (uint32_t l = 0; l < r.nlev; l++)
        seen_nvl_in += (unsigned)r.lev_nvl[l];
    seen_deep += r.nlev >= 4;
    char *s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
    check_conf_tree(&r, t, s);
    tsched_free(s);
    s = export_text(t, TSCHED_EXPORT_KUEUE, 1, 0);
    ck_assert_msg((*tsched_topology_export_warning() != '\0') == r.nvl_left_out, "warning \"%s\", expected %s",
                  tsched_topology_export_warning(), r.nvl_left_out ? "one" : "none");
    check_labels(&r, t, s, "kueue.x-k8s.io/v1beta2");
    tsched_free(s);
    s = export_text(t, TSCHED_EXPORT_KAI, 1, 0);
    check_labels(&r, t, s, "kai.scheduler/v1alpha1");
    tsched_free(s);
    s = export_text(t, TSCHED_EXPORT_VOLCANO, 1, 0);
    check_volcano(&r, t, s);
    tsched_free(s);
    ref_free(&r);
}

START_TEST(partitions_random)
{
    for (unsigned seed = 1; seed <= tu_n(120); seed++) {
        rng = tu_rng_new(seed);
        fab_opts fo = {.tiers = 1 + (int)tu_rng_below(&rng, 5),
                       .extra_links = (int)tu_rng_below(&rng, 2),
                       .nvl = (int)tu_rng_below(&rng, 4),
                       .uneven = (int)tu_rng_below(&rng, 2)};
        tsched_topology *t = random_fabric(&fo);
        check_all_exports(t);
        tsched_topology_free(t);
    }
    ck_assert_msg(seen_nvl_out > 3 && seen_nvl_in > 3 && seen_deep > 3, "coverage: %u left out, %u inserted, %u deep",
                  seen_nvl_out, seen_nvl_in, seen_deep);
}
END_TEST

START_TEST(partitions_clos)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 2, 3, 8, 0, 0, 0, 0);
    check_all_exports(t);
    char *s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
    ck_assert_str_eq(s, "SwitchName=leaf0 Nodes=node[0-2]\n"
                        "SwitchName=leaf1 Nodes=node[3-5]\n"
                        "SwitchName=leaf2 Nodes=node[6-8]\n"
                        "SwitchName=leaf3 Nodes=node[9-11]\n"
                        "SwitchName=spine-0 Switches=leaf[0-3] LinkSpeed=9600\n");
    tsched_free(s);
    tsched_topology_free(t);

    t = tu_gen_clos3(3, 2, 2, 4, 2, 8, 0, 0, 0);
    check_all_exports(t);
    s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
    ck_assert_str_eq(s, "SwitchName=leaf0 Nodes=node[0-1]\n"
                        "SwitchName=leaf1 Nodes=node[2-3]\n"
                        "SwitchName=leaf2 Nodes=node[4-5]\n"
                        "SwitchName=leaf3 Nodes=node[6-7]\n"
                        "SwitchName=leaf4 Nodes=node[8-9]\n"
                        "SwitchName=leaf5 Nodes=node[10-11]\n"
                        "SwitchName=pod0 Switches=leaf[0-1] LinkSpeed=6400\n"
                        "SwitchName=pod1 Switches=leaf[2-3] LinkSpeed=6400\n"
                        "SwitchName=pod2 Switches=leaf[4-5] LinkSpeed=6400\n"
                        "SwitchName=core-0 Switches=pod[0-2] LinkSpeed=12800\n");
    tsched_free(s);
    /* physical: every switch and link */
    s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 1);
    ck_assert_ptr_nonnull(strstr(s, "SwitchName=spine0 Switches=leaf[0-1] LinkSpeed=3200\n"));
    ck_assert_ptr_nonnull(strstr(s, "SwitchName=core0 Switches=spine[0,2,4] LinkSpeed=3200\n"));
    tsched_free(s);
    /* Volcano names: pods and the generated core domain */
    s = export_text(t, TSCHED_EXPORT_VOLCANO, 0, 0);
    ck_assert_ptr_nonnull(strstr(s, "metadata:\n  name: pod1\nspec:\n  tier: 2\n"));
    ck_assert_ptr_nonnull(strstr(s, "metadata:\n  name: core-0\nspec:\n  tier: 3\n"));
    tsched_free(s);
    tsched_topology_free(t);

    /* one core: the top domain takes its name */
    t = tu_gen_clos3(3, 2, 1, 1, 2, 8, 0, 0, 0);
    check_all_exports(t);
    s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
    ck_assert_ptr_nonnull(strstr(s, "SwitchName=core0 Switches=spine[0-2]"));
    tsched_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- Slurm round trip ---------------------------------------------------------------------- */

START_TEST(slurm_round_trip)
{
    for (unsigned seed = 1; seed <= tu_n(150); seed++) {
        rng = tu_rng_new(1000 + seed);
        fab_opts fo = {.tiers = 1 + (int)tu_rng_below(&rng, 6), .uneven = (int)tu_rng_below(&rng, 2)};
        tsched_topology *t = random_fabric(&fo), *u;
        char *s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
        ck_assert_msg(tsched_topology_import_slurm_string(&u, s, strlen(s), NULL) == TSCHED_OK, "seed %u: %s\n%s", seed,
                      tsched_last_error(), s);
        /* nodes and leaves */
        ck_assert_uint_eq(tsched_topology_num_nodes(u), tsched_topology_num_nodes(t));
        for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++) {
            uint32_t m = tu_node(u, tsched_topology_node_name(t, n));
            ck_assert_str_eq(tsched_topology_switch_name(u, tsched_topology_node_leaf(u, m)),
                             tsched_topology_switch_name(t, tsched_topology_node_leaf(t, n)));
        }
        /* the same domain tree: partitions and the export text itself */
        ref a, b;
        ref_build(&a, t);
        ref_build(&b, u);
        ck_assert_uint_eq(a.nlev, b.nlev);
        for (uint32_t l = 0; l < a.nlev; l++)
            for (uint32_t n = 0; n < a.nn; n++) {
                uint32_t m = tu_node(u, tsched_topology_node_name(t, n));
                ck_assert_str_eq(tsched_topology_node_name(u, b.lev[l].rep[m]),
                                 tsched_topology_node_name(t, a.lev[l].rep[n]));
            }
        ref_free(&a);
        ref_free(&b);
        char *s2 = export_text(u, TSCHED_EXPORT_SLURM_CONF, 0, 0);
        /* LinkSpeed: the imported trunks carry it, and it is the original's rounded to the
         * nearest integer, at least 1 (Slurm reads an unsigned integer) */
        conf c;
        conf_parse(&c, s, t);
        for (uint32_t i = 0; i < c.nsw; i++) {
            uint32_t p = c.parent[i];
            if (p == NONE || c.speed[p] == 0)
                continue;
            uint32_t r = tu_trunk(u, c.name[i], c.name[p]);
            ck_assert_double_eq(tsched_topology_trunk_gbps(u, r), c.speed[p]);
            uint32_t ci = tsched_topology_find_switch(t, c.name[i]), pi = tsched_topology_find_switch(t, c.name[p]);
            if (ci != NONE && pi != NONE)
                ck_assert_double_eq(fmax(1, floor(tsched_topology_trunk_gbps(t, tsched_topology_find_trunk(t, ci, pi)) + 0.5)),
                                    c.speed[p]);
        }
        conf_free(&c);
        /* the re-export lists the same switches with the same members (names are the same) */
        conf c1, c2;
        conf_parse(&c1, s, t);
        conf_parse(&c2, s2, u);
        ck_assert_uint_eq(c1.nsw, c2.nsw);
        for (uint32_t i = 0; i < c1.nsw; i++) {
            ck_assert_str_eq(c1.name[i], c2.name[i]);
            ck_assert_uint_eq(c1.parent[i], c2.parent[i]);
        }
        conf_free(&c1);
        conf_free(&c2);
        tsched_free(s);
        tsched_free(s2);
        tsched_topology_free(u);
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- hostlist compression ------------------------------------------------------------------ */

static void hostlist_rt(const char *const *names, size_t n, const char *want)
{
    ts_sbuf b;
    ts_sbuf_init(&b);
    ck_assert_ok(ts_hostlist_compress(&b, names, n, "test"));
    char *s;
    ck_assert_ok(ts_sbuf_take(&s, &b));
    if (want)
        ck_assert_str_eq(s, want);
    ts_hostlist h;
    ts_hostlist_init(&h);
    ck_assert_ok(ts_hostlist_expand(&h, s, strlen(s), 1u << 20));
    ck_assert_msg(ts_hostlist_count(&h) == n, "%s expands to %zu names, not %zu", s, ts_hostlist_count(&h), n);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(ts_hostlist_name(&h, i), names[i]);
    ts_hostlist_free(&h);
    free(s);
}

START_TEST(hostlist_compress)
{
    const char *a[] = {"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"};
    hostlist_rt(a, 5, "gpu[01-04,07]");
    const char *b[] = {"n9", "n10", "n11", "x", "n12"};
    hostlist_rt(b, 5, "n[9-11],x,n12");
    const char *b2[] = {"n09", "n10", "n8", "n9", "n10x", "n010", "n011"};
    hostlist_rt(b2, 7, "n[09-10,8-9],n10x,n[010-011]");
    const char *c[] = {"r1n05", "r1n04", "r2n01", "42", "a-b", "tux1-ib", "tux2-ib"};
    hostlist_rt(c, 7, "r1n[05,04],r2n01,42,a-b,tux1-ib,tux2-ib");
    const char *d[] = {"n007"};
    hostlist_rt(d, 1, "n007");
    hostlist_rt(NULL, 0, "");
    const char *bad[] = {"a,b"};
    ts_sbuf s;
    ts_sbuf_init(&s);
    ck_assert_status(ts_hostlist_compress(&s, bad, 1, "nodes of \"x\""), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("nodes of \"x\"");
    ts_sbuf_free(&s);

    /* random lists: prefixes, widths, orders; expand(compress(list)) == list */
    static const char *const pre[] = {"gpu", "n", "r1n", "a.b-", "Z", ""};
    for (unsigned seed = 1; seed <= tu_n(2000); seed++) {
        rng = tu_rng_new(77 + seed);
        size_t n = tu_rng_below(&rng, 40);
        char **names = malloc((n + 1) * sizeof *names);
        for (size_t i = 0; i < n; i++) {
            char buf[64];
            for (;;) {
                const char *p = pre[tu_rng_below(&rng, 6)];
                unsigned w = tu_rng_below(&rng, 4),
                         v = tu_rng_below(&rng, 3) ? (unsigned)(i + tu_rng_below(&rng, 3)) : tu_rng_below(&rng, 1000);
                if (tu_rng_below(&rng, 10) == 0)
                    snprintf(buf, sizeof buf, "%s%u-x", p, v);
                else
                    snprintf(buf, sizeof buf, "%s%0*u", p, (int)w, v);
                size_t j;
                for (j = 0; j < i && strcmp(names[j], buf) != 0; j++)
                    ;
                if (j == i && buf[0])
                    break;
            }
            names[i] = strdup(buf);
        }
        hostlist_rt((const char *const *)names, n, NULL);
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
    }
}
END_TEST

/* ---- launch files -------------------------------------------------------------------------- */

START_TEST(launch_files)
{
    tsched_topology *t = tu_leaf_spine(4, 2, 1, 4, 8, 8);
    tsched_job *j;
    const char *job = "{\"format\":\"tsched.job.v1\",\"name\":\"jx\",\"gpus\":64,\"tp\":8,\"pp\":2,\"alpha\":0.5}";
    ck_assert_ok(tsched_job_load_string(&j, job, strlen(job)));
    tsched_place_options po;
    tsched_place_options_init(&po);
    po.algo = TSCHED_PLACE_RANDOM_FIT;
    po.seed = 5;
    tsched_placement *p;
    ck_assert_ok(tsched_place(&p, t, j, &po));
    uint32_t rows = tsched_placement_rows(p), cols = tsched_placement_cols(p), cells = rows * cols;
    const char *rank_node[64];
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            rank_node[tsched_placement_rank(p, r, c)] = tsched_topology_node_name(t, tsched_placement_node(p, r, c));
    for (uint32_t T = 0; T <= 3; T++) {
        char *s;
        ck_assert_ok(tsched_placement_hostfile_per_task(&s, p, t, T));
        uint32_t per = T ? T : 8, line = 0;
        for (char *q = s, *nl; (nl = strchr(q, '\n')); q = nl + 1, line++) {
            ck_assert_uint_lt(line, cells * per);
            ck_assert_int_eq((int)(nl - q), (int)strlen(rank_node[line / per]));
            ck_assert(strncmp(q, rank_node[line / per], (size_t)(nl - q)) == 0);
        }
        ck_assert_uint_eq(line, cells * per);
        tsched_free(s);
        /* pod order: pod i on line i of the per-task file with T lines per node (T = 0: one) */
        ck_assert_ok(tsched_placement_pod_order(&s, p, t, "jx", T == 2 ? "example.com/idx" : NULL, T));
        json_t *root = json_loads(s, 0, NULL);
        ck_assert_ptr_nonnull(root);
        ck_assert_str_eq(json_string_value(json_object_get(root, "format")), "tsched.pod-order.v1");
        ck_assert_str_eq(json_string_value(json_object_get(root, "job")), "jx");
        ck_assert_str_eq(json_string_value(json_object_get(root, "index_label")),
                         T == 2 ? "example.com/idx" : "batch.kubernetes.io/job-completion-index");
        json_t *pods = json_object_get(root, "pods");
        uint32_t pp = T ? T : 1;
        ck_assert_uint_eq(json_array_size(pods), cells * pp);
        for (size_t i = 0; i < json_array_size(pods); i++) {
            json_t *pod = json_array_get(pods, i);
            ck_assert_int_eq(json_integer_value(json_object_get(pod, "index")), (json_int_t)i);
            ck_assert_str_eq(json_string_value(json_object_get(pod, "node")), rank_node[i / pp]);
            ck_assert_str_eq(
                json_string_value(json_object_get(json_object_get(pod, "nodeSelector"), "kubernetes.io/hostname")),
                rank_node[i / pp]);
        }
        json_decref(root);
        tsched_free(s);
    }
    /* issue 21 item 14: each launch file is refused above output_bytes (its size decided
     * before it is written, nothing returned) and is the same text at exactly the limit */
    for (int which = 0; which < 3; which++) {
        char *full = NULL, *at = NULL, *over = (char *)"untouched";
#define LAUNCH(out) (which == 0   ? tsched_placement_hostfile(out, p, t)                  \
                     : which == 1 ? tsched_placement_hostfile_per_task(out, p, t, 4096) \
                                  : tsched_placement_pod_order(out, p, t, "jx", NULL, 4096))
        ck_assert_ok(LAUNCH(&full));
        size_t len = strlen(full);
        tsched_limits l = {.size = sizeof l}, saved = {.size = sizeof saved};
        ck_assert_ok(tsched_limits_get(&saved));
        l = saved;
        l.output_bytes = len - 1;
        ck_assert_ok(tsched_limits_set(&l));
        ck_assert_status(LAUNCH(&over), TSCHED_E_TOO_LARGE);
        ck_assert_ptr_null(over);
        ck_assert_errmsg_has("output_bytes");
        char want[64];
        snprintf(want, sizeof want, "bytes: %zu exceeds", len);
        ck_assert_errmsg_has(want);
        l.output_bytes = len;
        ck_assert_ok(tsched_limits_set(&l));
        ck_assert_ok(LAUNCH(&at));
        ck_assert_str_eq(at, full);
#undef LAUNCH
        ck_assert_ok(tsched_limits_set(&saved));
        tsched_free(full);
        tsched_free(at);
    }
    char *s = NULL;
    ck_assert_status(tsched_placement_pod_order(&s, p, t, "jx", "bad key!", 0), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("index_label");
    ck_assert_status(tsched_placement_hostfile_per_task(&s, p, t, 5000), TSCHED_E_RANGE);
    ck_assert_errmsg_has("tasks_per_node");
    ck_assert_ptr_null(s);
    tsched_topology *other = tu_leaf_spine(4, 2, 1, 4, 8, 8);
    ck_assert_status(tsched_placement_hostfile_per_task(&s, p, other, 0), TSCHED_E_MISMATCH);
    tsched_topology_free(other);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

/* ---- names, values, levels, NVLink ------------------------------------------------------- */

static tsched_topology *two_racks(const char *r1, const char *r2, const char *block)
{
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "fabric"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, r1, 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, r2, 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, block, 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, r1, block, 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, r2, block, 400, 1));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "gpu01", r1, 8, 8, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "gpu02", r2, 8, 8, NULL, 400));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* --physical cannot write an upper-tier switch with nothing below it (a bare SwitchName=
 * line reads back as a leaf): an error naming it, in both Slurm formats, instead of a file
 * its own importer refuses or misreads. */
START_TEST(physical_childless_switch)
{
    static const char doc[] =
        "{\"format\":\"tsched.topology.v1\",\"name\":\"f\",\"switches\":[{\"name\":\"l1\",\"tier\":0},"
        "{\"name\":\"s1\",\"tier\":1},{\"name\":\"s2\",\"tier\":1},{\"name\":\"c1\",\"tier\":2}],"
        "\"nodes\":[{\"name\":\"n1\",\"leaf\":\"l1\",\"gpus\":1,\"nics\":1,\"nic_gbps\":400}],"
        "\"links\":[{\"a\":\"l1\",\"b\":\"s1\",\"gbps\":400},{\"a\":\"s1\",\"b\":\"c1\",\"gbps\":400},"
        "{\"a\":\"s2\",\"b\":\"c1\",\"gbps\":400}]}";
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_string(&t, doc, strlen(doc)));
    static const tsched_export_format to[] = {TSCHED_EXPORT_SLURM_CONF, TSCHED_EXPORT_SLURM_YAML};
    for (int i = 0; i < 2; i++) {
        tsched_export_options o;
        tsched_export_options_init(&o);
        o.to = to[i];
        o.physical = 1;
        char *s = (char *)&o;
        ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_FORMAT);
        ck_assert_errmsg_has("switch \"s2\"");
        ck_assert_errmsg_has("tier-1");
        ck_assert_ptr_null(s);
        o.physical = 0; /* the domain tree has no such switch: it exports */
        ck_assert_ok(tsched_topology_export(&s, t, &o));
        tsched_free(s);
    }
    tsched_topology_free(t);
}
END_TEST

START_TEST(names_and_levels)
{
    tsched_export_options o;
    tsched_export_options_init(&o);
    char *s = NULL;
    /* a label value with a space: an error naming the switch, unless sanitized */
    tsched_topology *t = two_racks("Rack 1", "r2", "b1");
    o.to = TSCHED_EXPORT_KUEUE;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("switch \"Rack 1\"");
    ck_assert_ptr_null(s);
    o.sanitize = 1;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_ptr_nonnull(strstr(s, "tsched.topology/leaf: rack-1\n"));
    tsched_free(s);
    o.to = TSCHED_EXPORT_VOLCANO;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_ptr_nonnull(strstr(s, "  name: rack-1\n"));
    tsched_free(s);
    o.sanitize = 0;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("switch \"Rack 1\"");
    tsched_topology_free(t);

    /* a collision after sanitizing */
    t = two_racks("Rack A", "rack-a", "b1");
    o.to = TSCHED_EXPORT_KUEUE;
    o.sanitize = 1;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("\"Rack A\"");
    ck_assert_errmsg_has("\"rack-a\"");
    o.to = TSCHED_EXPORT_VOLCANO;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("\"rack-a\"");
    tsched_topology_free(t);

    /* --levels: count, keys, hostname dropped */
    t = two_racks("r1", "r2", "b1");
    o.to = TSCHED_EXPORT_KUEUE;
    o.sanitize = 0;
    const char *one[] = {"example.com/rack"};
    o.levels = one;
    o.num_levels = 1;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("levels");
    const char *three[] = {"example.com/block", "example.com/rack", "kubernetes.io/hostname"};
    o.levels = three;
    o.num_levels = 3;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(s, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: fabric\nspec:\n"
                        "  levels:\n  - nodeLabel: example.com/block\n  - nodeLabel: example.com/rack\n"
                        "  - nodeLabel: kubernetes.io/hostname\n---\napiVersion: v1\nkind: Node\nmetadata:\n"
                        "  name: gpu01\n  labels:\n    example.com/block: b1\n    example.com/rack: r1\n---\n"
                        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu02\n  labels:\n"
                        "    example.com/block: b1\n    example.com/rack: r2\n");
    tsched_free(s);
    const char *badkey[] = {"example.com/block", "bad key"};
    o.levels = badkey;
    o.num_levels = 2;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("levels[1]");
    o.levels = NULL;
    o.num_levels = 0;
    o.kueue_api = TSCHED_KUEUE_V1BETA1;
    o.name = "my-topo";
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert(strncmp(s, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\nmetadata:\n  name: my-topo\n", 73) == 0);
    tsched_free(s);
    /* options that do not apply */
    o.to = TSCHED_EXPORT_KAI;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("kueue_api");
    tsched_export_options_init(&o);
    o.block = 1;
    o.to = TSCHED_EXPORT_VOLCANO;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("block");
    /* an older caller's size: the fields it covers, the rest defaults */
    tsched_export_options_init(&o);
    o.size = offsetof(tsched_export_options, levels);
    o.to = TSCHED_EXPORT_SLURM_YAML;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(s, "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n"
                        "      - switch: r1\n        nodes: gpu01\n      - switch: r2\n        nodes: gpu02\n"
                        "      - switch: b1\n        children: r[1-2]\n");
    tsched_free(s);
    o.size = offsetof(tsched_export_options, levels) + 1; /* inside a field */
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_export_options");
    o.size = sizeof o + 8;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

START_TEST(nvl_levels)
{
    /* leaves r1, r2 under b1; NVLink domain nvA = both nodes of r1, gpu03 alone, nvB = r2's */
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, "fabric"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r1", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r2", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "b1", 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, "r1", "b1", 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, "r2", "b1", 400, 1));
    const char *nodes[] = {"gpu01", "gpu02", "gpu03", "gpu04", "gpu05"};
    const char *leaf[] = {"r1", "r1", "r1", "r2", "r2"};
    const char *nv[] = {"nvA", "nvA", NULL, "nvB", "nvB"};
    for (uint32_t i = 0; i < 5; i++) {
        ck_assert_ok(tsched_topology_add_node(NULL, t, nodes[i], leaf[i], 8, 8, NULL, 400));
        ck_assert_ok(tsched_topology_set_nvl_domain(t, i, nv[i]));
    }
    ck_assert_ok(tsched_topology_build(t));
    check_all_exports(t);
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_VOLCANO;
    o.tier_names = 1;
    o.sanitize = 1;
    char *s;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(tsched_topology_export_warning(), "");
    /* below the leaves: tier 1 is nvl (gpu03 alone), tier 2 leaf, tier 3 spine */
    ck_assert_ptr_nonnull(strstr(s, "  name: nva\n"));
    tsched_free(s);
    o.sanitize = 0;
    ck_assert_status(tsched_topology_export(&s, t, &o), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("NVLink domain \"nvA\"");
    o.to = TSCHED_EXPORT_KUEUE;
    o.tier_names = 0;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_ptr_nonnull(strstr(s, "  - nodeLabel: tsched.topology/leaf\n  - nodeLabel: tsched.topology/nvl\n"));
    ck_assert_ptr_nonnull(strstr(s, "  name: gpu03\n  labels:\n    tsched.topology/spine: b1\n"
                                    "    tsched.topology/leaf: r1\n    tsched.topology/nvl: gpu03\n"));
    tsched_free(s);
    /* Slurm block form and topology.yaml's block entry */
    tsched_export_options_init(&o);
    o.block = 1;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(s, "BlockName=nvA Nodes=gpu[01-02]\nBlockName=r1 Nodes=gpu03\nBlockName=nvB Nodes=gpu[04-05]\n"
                        "BlockSizes=1\n");
    tsched_free(s);
    o.block = 0;
    o.to = TSCHED_EXPORT_SLURM_YAML;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_ptr_nonnull(strstr(s, "- topology: fabric-nvl\n  cluster_default: false\n  block:\n    block_sizes: [1]\n"
                                    "    blocks:\n      - block: nvA\n        nodes: gpu[01-02]\n"));
    tsched_free(s);
    tsched_topology_free(t);

    /* NVLink domains across leaves that also split a leaf: nests nowhere, left out */
    ck_assert_ok(tsched_topology_new(&t, "fabric"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r1", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "r2", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "b1", 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, "r1", "b1", 400, 1));
    ck_assert_ok(tsched_topology_add_link(t, "r2", "b1", 400, 1));
    const char *nv2[] = {"x", "y", "x", "y"};
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert_ok(tsched_topology_add_node(NULL, t, nodes[i], i < 2 ? "r1" : "r2", 8, 8, NULL, 400));
        ck_assert_ok(tsched_topology_set_nvl_domain(t, i, nv2[i]));
    }
    ck_assert_ok(tsched_topology_build(t));
    check_all_exports(t);
    o.to = TSCHED_EXPORT_KUEUE;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_ptr_nonnull(strstr(tsched_topology_export_warning(), "NVLink domain \"x\""));
    ck_assert_ptr_null(strstr(s, "tsched.topology/nvl"));
    tsched_free(s);
    o.to = TSCHED_EXPORT_SLURM_CONF;
    ck_assert_ok(tsched_topology_export(&s, t, &o));
    ck_assert_str_eq(tsched_topology_export_warning(), "");
    tsched_free(s);
    tsched_topology_free(t);
}
END_TEST


/* LinkSpeed is an unsigned integer (slurmctld 22.05 dies with `fatal` on "12.5"): the
 * capacity in Gbit/s rounded to the nearest integer, halves up, at least 1; what the
 * import reads back is that integer. Above 1e9 (more than the import reads) none. */
START_TEST(linkspeed_text)
{
    static const double v[] = {6400, 12.5, 0.1, 1e-5, 2.5e-6, 1234567.125, 1e9, 3.0000000000000004, 1.0 / 3, 400,
                               12800.0 / 3, 0.5, 1.5, 2.4999, 99.5};
    static const char *const want[] = {"6400", "13", "1", "1", "1", "1234567", "1000000000", "3", "1", "400",
                                       "4267", "1", "2", "2", "100"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        tsched_topology *t;
        ck_assert_ok(tsched_topology_new(&t, "f"));
        ck_assert_ok(tsched_topology_add_switch(NULL, t, "l", 0, NULL));
        ck_assert_ok(tsched_topology_add_switch(NULL, t, "s", 1, NULL));
        ck_assert_ok(tsched_topology_add_link(t, "l", "s", v[i], 1));
        ck_assert_ok(tsched_topology_add_node(NULL, t, "n1", "l", 8, 8, NULL, 400));
        ck_assert_ok(tsched_topology_build(t));
        for (int physical = 0; physical < 2; physical++) {
            char *s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, physical), want_line[128];
            if (want[i])
                snprintf(want_line, sizeof want_line, "SwitchName=l Nodes=n1\nSwitchName=%s Switches=l LinkSpeed=%s\n",
                         "s", want[i]);
            else
                snprintf(want_line, sizeof want_line, "SwitchName=l Nodes=n1\nSwitchName=s Switches=l\n");
            ck_assert_str_eq(s, want_line);
            tsched_topology *u;
            ck_assert_ok(tsched_topology_import_slurm_string(&u, s, strlen(s), NULL));
            if (want[i])
                ck_assert_double_eq(tsched_topology_trunk_gbps(u, tu_trunk(u, "l", "s")), strtod(want[i], NULL));
            tsched_free(s);
            tsched_topology_free(u);
        }
        tsched_topology_free(t);
    }
}
END_TEST

/* The repro: three spines over two leaves of four 8-GPU nodes; --physical wrote
 * LinkSpeed=4266.666666666667 (12800 / 3 per spine). Every LinkSpeed of every conf form of
 * it, and of random fabrics with uneven capacities, is a plain unsigned integer. */
static void assert_integer_speeds(const char *text)
{
    for (const char *p = text; (p = strstr(p, "LinkSpeed=")) != NULL;) {
        p += strlen("LinkSpeed=");
        size_t n = strspn(p, "0123456789");
        ck_assert_msg(n > 0 && (p[n] == '\n' || p[n] == ' ') && p[0] != '0', "LinkSpeed=%.20s in\n%s", p, text);
    }
}

START_TEST(linkspeed_integer_forms)
{
    static const char repro[] = "SwitchName=s0 Switches=l[0-1]\nSwitchName=s1 Switches=l[0-1]\n"
                                "SwitchName=s2 Switches=l[0-1]\nSwitchName=l0 Nodes=n[0-3]\nSwitchName=l1 Nodes=n[4-7]\n";
    tsched_topology *t;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, repro, strlen(repro), NULL));
    char *s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 1);
    ck_assert_str_eq(s, "SwitchName=l0 Nodes=n[0-3]\nSwitchName=l1 Nodes=n[4-7]\n"
                        "SwitchName=s0 Switches=l[0-1] LinkSpeed=4267\nSwitchName=s1 Switches=l[0-1] LinkSpeed=4267\n"
                        "SwitchName=s2 Switches=l[0-1] LinkSpeed=4267\n");
    tsched_free(s);
    tsched_topology_free(t);
    /* a leaf with one 12.5 Gbit/s NIC under a spine: the tree form wrote LinkSpeed=12.5 */
    ck_assert_ok(tsched_topology_new(&t, "f"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "l", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "s", 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, "l", "s", 12.5, 1));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "n1", "l", 1, 1, NULL, 12.5));
    ck_assert_ok(tsched_topology_build(t));
    s = export_text(t, TSCHED_EXPORT_SLURM_CONF, 0, 0);
    ck_assert_str_eq(s, "SwitchName=l Nodes=n1\nSwitchName=s Switches=l LinkSpeed=13\n");
    tsched_free(s);
    tsched_topology_free(t);
    for (unsigned seed = 1; seed <= tu_n(60); seed++) {
        rng = tu_rng_new(7000 + seed);
        fab_opts fo = {.tiers = 1 + (int)tu_rng_below(&rng, 5), .uneven = 1};
        t = random_fabric(&fo);
        for (int physical = 0; physical < 2; physical++) {
            tsched_export_options o;
            tsched_export_options_init(&o);
            o.to = TSCHED_EXPORT_SLURM_CONF;
            o.physical = physical;
            char *x = NULL;
            if (tsched_topology_export(&x, t, &o) == TSCHED_OK) /* --physical refuses some fabrics */
                assert_integer_speeds(x);
            tsched_free(x);
        }
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- issue 25: block sizes kept, Slurm name limits -------------------------------------- */

/* A block conf: nb blocks of sizes 32 + (i % 3) nodes (so none is a multiple of the sizes)
 * and `sizes` ("" for no BlockSizes line). */
static char *block_conf(uint32_t nb, const char *sizes)
{
    size_t cap = 64 * (size_t)nb + 64;
    char *b = malloc(cap);
    size_t w = 0;
    for (uint32_t i = 0; i < nb; i++)
        w += (size_t)snprintf(b + w, cap - w, "BlockName=nvl%u Nodes=b%ux[0-%u]\n", i, i, 31 + i % 3);
    if (*sizes)
        snprintf(b + w, cap - w, "BlockSizes=%s\n", sizes);
    return b;
}

static char *export_opts_text(const tsched_topology *t, tsched_export_format to, int block, int sanitize)
{
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = to;
    o.block = block;
    o.sanitize = sanitize;
    char *x = NULL;
    ck_assert_msg(tsched_topology_export(&x, t, &o) == TSCHED_OK, "%s", tsched_last_error());
    return x;
}

/* The last line of a text (without its newline), into buf. */
static const char *last_line(char *buf, size_t cap, const char *text)
{
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '\n')
        n--;
    size_t a = n;
    while (a > 0 && text[a - 1] != '\n')
        a--;
    snprintf(buf, cap, "%.*s", (int)(n - a), text + a);
    return buf;
}

/* Every BlockSizes form comes back as it was read: conf -> JSON -> conf, conf -> yaml ->
 * (topology.yaml import of the block entry, and as --nvl-topology overlay) -> conf. It came
 * back as "BlockSizes=32" (the smallest block) whatever was read. */
START_TEST(block_sizes_round_trip)
{
    static const char *const forms[] = {"30,120", "4,8", "30", "1,2,4,8,16", "32,64", ""};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        for (uint32_t nb = 1; nb <= 9; nb += 4) {
            char *conf = block_conf(nb, forms[f]), want[64], got[64];
            snprintf(want, sizeof want, "BlockSizes=%s", *forms[f] ? forms[f] : "32");
            tsched_topology *t, *u, *v, *w;
            ck_assert_msg(tsched_topology_import_slurm_string(&t, conf, strlen(conf), NULL) == TSCHED_OK, "%s\n%s",
                          tsched_last_error(), conf);
            char *x = export_opts_text(t, TSCHED_EXPORT_SLURM_CONF, 1, 0);
            ck_assert_str_eq(last_line(got, sizeof got, x), want);
            /* through the topology JSON: "block_sizes" only when read */
            char *js;
            ck_assert_ok(tsched_topology_to_json(&js, t));
            ck_assert_int_eq(strstr(js, "\"block_sizes\"") != NULL, *forms[f] != 0);
            ck_assert_ok(tsched_topology_load_string(&u, js, strlen(js)));
            char *x2 = export_opts_text(u, TSCHED_EXPORT_SLURM_CONF, 1, 0);
            ck_assert_str_eq(x2, x);
            char *js2;
            ck_assert_ok(tsched_topology_to_json(&js2, u));
            ck_assert_str_eq(js2, js);
            /* the conf export imports back to the same sizes */
            ck_assert_ok(tsched_topology_import_slurm_string(&v, x, strlen(x), NULL));
            char *x3 = export_opts_text(v, TSCHED_EXPORT_SLURM_CONF, 1, 0);
            ck_assert_str_eq(x3, x);
            /* topology.yaml: block_sizes of the nvl entry, read back as the structure or as
             * the NVLink overlay */
            char *y = export_opts_text(t, TSCHED_EXPORT_SLURM_YAML, 0, 0), line[80];
            snprintf(line, sizeof line, "block_sizes: [%s]", *forms[f] ? forms[f] : "32");
            for (char *c = line; (c = strchr(c, ',')) != NULL; c++) { /* the emitter writes ", " */
                memmove(c + 2, c + 1, strlen(c + 1) + 1);
                c[1] = ' ';
            }
            ck_assert_msg(strstr(y, line) != NULL, "%s not in\n%s", line, y);
            tsched_slurm_options so;
            tsched_slurm_options_init(&so);
            so.topology = "slurm-nvl";
            ck_assert_msg(tsched_topology_import_slurm_yaml_string(&w, y, strlen(y), &so) == TSCHED_OK, "%s",
                          tsched_last_error());
            char *x4 = export_opts_text(w, TSCHED_EXPORT_SLURM_CONF, 1, 0);
            ck_assert_str_eq(x4, x);
            tsched_topology_free(w);
            tsched_slurm_options_init(&so);
            so.nvl_topology = "slurm-nvl";
            ck_assert_ok(tsched_topology_import_slurm_yaml_string(&w, y, strlen(y), &so));
            char *x5 = export_opts_text(w, TSCHED_EXPORT_SLURM_CONF, 1, 0);
            ck_assert_str_eq(last_line(got, sizeof got, x5), want);
            tsched_free(x5);
            tsched_free(x4);
            tsched_free(y);
            tsched_topology_free(w);
            tsched_free(x3);
            tsched_free(js2);
            tsched_free(x2);
            tsched_free(js);
            tsched_free(x);
            tsched_topology_free(v);
            tsched_topology_free(u);
            tsched_topology_free(t);
            free(conf);
        }
    }
}
END_TEST

/* Recorded sizes that no longer fit the blocks (a JSON document says 64, the blocks hold 32
 * to 34 nodes) fall back to the smallest block with a warning; bad sizes in the JSON are
 * errors naming block_sizes[i]. */
START_TEST(block_sizes_checked)
{
    char *conf = block_conf(3, "32");
    tsched_topology *t, *u;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, conf, strlen(conf), NULL));
    char *js;
    ck_assert_ok(tsched_topology_to_json(&js, t));
    json_error_t je;
    json_t *doc = json_loads(js, 0, &je);
    ck_assert_ptr_nonnull(doc);
    json_object_set_new(doc, "block_sizes", json_pack("[i,i]", 64, 128));
    char *bad = json_dumps(doc, 0);
    ck_assert_ok(tsched_topology_load_string(&u, bad, strlen(bad)));
    char *x = export_opts_text(u, TSCHED_EXPORT_SLURM_CONF, 1, 0), got[64];
    ck_assert_str_eq(last_line(got, sizeof got, x), "BlockSizes=32");
    ck_assert_ptr_nonnull(strstr(tsched_topology_export_warning(), "block_sizes"));
    ck_assert_ptr_nonnull(strstr(tsched_topology_export_warning(), "64"));
    tsched_free(x);
    tsched_topology_free(u);
    free(bad);
    static const struct {
        const char *sizes, *status_text;
        tsched_status st;
    } cases[] = {
        {"[4,12]", "block_sizes[1]", TSCHED_E_RANGE}, {"[0]", "block_sizes[0]", TSCHED_E_RANGE},
        {"[8,4]", "block_sizes[1]", TSCHED_E_RANGE},  {"[\"4\"]", "block_sizes[0]", TSCHED_E_TYPE},
        {"4", "block_sizes", TSCHED_E_TYPE},          {"[1,2,4,8,16,32,64,128,256]", "block_sizes", TSCHED_E_RANGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object_set_new(doc, "block_sizes", json_loads(cases[i].sizes, JSON_DECODE_ANY, &je));
        bad = json_dumps(doc, 0);
        ck_assert_int_eq(tsched_topology_load_string(&u, bad, strlen(bad)), cases[i].st);
        ck_assert_msg(strstr(tsched_last_error(), cases[i].status_text) != NULL, "%s", tsched_last_error());
        free(bad);
    }
    json_decref(doc);
    tsched_free(js);
    tsched_topology_free(t);
    free(conf);
}
END_TEST

/* Kubernetes nodes whose racks repeat a 63-character label value under two blocks: the
 * import names them "<block>/<value>", 73 characters. */
static tsched_topology *long_rack_names(void)
{
    char v[64];
    memset(v, 'r', 63);
    v[63] = '\0';
    char doc[4096];
    size_t w = (size_t)snprintf(doc, sizeof doc, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int i = 0; i < 4; i++)
        w += (size_t)snprintf(doc + w, sizeof doc - w,
                              "%s{\"metadata\":{\"name\":\"gpu%d\",\"labels\":{\"ex.com/block\":\"block-00%d\","
                              "\"ex.com/rack\":\"%s\"}},\"spec\":{},\"status\":{\"allocatable\":"
                              "{\"nvidia.com/gpu\":\"8\"}}}",
                              i ? "," : "", i, i / 2, v);
    snprintf(doc + w, sizeof doc - w, "]}");
    static const char *const levels[] = {"ex.com/block", "ex.com/rack"};
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = levels;
    o.nlevels = 2;
    tsched_topology *t;
    ck_assert_msg(tsched_topology_import_k8s_nodes_string(&t, doc, strlen(doc), &o) == TSCHED_OK, "%s",
                  tsched_last_error());
    return t;
}

/* Slurm >= 24.11 refuses switch names over 64 characters: TSCHED_E_RANGE naming the switch,
 * its name and the limit, in every Slurm form, unless sanitize shortens them (first 55
 * bytes, '-', 8 hex digits of the whole name's FNV-1a), consistently where a switch is
 * defined and where it is a child; characters Slurm cannot take become '-'. */
START_TEST(slurm_name_limits)
{
    tsched_topology *t = long_rack_names();
    uint32_t longest = 0;
    for (uint32_t s = 0; s < tsched_topology_num_switches(t); s++)
        if (strlen(tsched_topology_switch_name(t, s)) > longest)
            longest = (uint32_t)strlen(tsched_topology_switch_name(t, s));
    ck_assert_uint_eq(longest, 73);
    static const struct {
        tsched_export_format to;
        int block, physical;
    } forms[] = {{TSCHED_EXPORT_SLURM_CONF, 0, 0}, {TSCHED_EXPORT_SLURM_CONF, 0, 1}, {TSCHED_EXPORT_SLURM_CONF, 1, 0},
                 {TSCHED_EXPORT_SLURM_YAML, 0, 0}, {TSCHED_EXPORT_SLURM_YAML, 0, 1}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        tsched_export_options o;
        tsched_export_options_init(&o);
        o.to = forms[f].to;
        o.block = forms[f].block;
        o.physical = forms[f].physical;
        char *x = NULL;
        ck_assert_int_eq(tsched_topology_export(&x, t, &o), TSCHED_E_RANGE);
        const char *e = tsched_last_error();
        ck_assert_msg(strstr(e, forms[f].block ? "block \"block-000/rrr" : "switch \"block-000/rrr") &&
                          strstr(e, "73 bytes") && strstr(e, "64") && strstr(e, "sanitize"),
                      "%s", e);
        o.sanitize = 1;
        ck_assert_msg(tsched_topology_export(&x, t, &o) == TSCHED_OK, "%s", tsched_last_error());
        /* every name token is at most 64 bytes; both racks are there, distinct */
        char want0[80], want1[80];
        char full0[80], full1[80];
        snprintf(full0, sizeof full0, "block-000/%063d", 0);
        memset(full0 + 10, 'r', 63);
        snprintf(full1, sizeof full1, "%s", full0);
        full1[8] = '1';
        snprintf(want0, sizeof want0, "%.55s-%08x", full0, tsched_test_fnv1a(full0));
        snprintf(want1, sizeof want1, "%.55s-%08x", full1, tsched_test_fnv1a(full1));
        ck_assert_msg(strstr(x, want0) && strstr(x, want1), "%s / %s not in\n%s", want0, want1, x);
        tsched_topology *u;
        if (o.to == TSCHED_EXPORT_SLURM_CONF)
            ck_assert_msg(tsched_topology_import_slurm_string(&u, x, strlen(x), NULL) == TSCHED_OK, "%s",
                          tsched_last_error());
        else
            ck_assert_ok(tsched_topology_import_slurm_yaml_string(&u, x, strlen(x), NULL));
        ck_assert_uint_eq(tsched_topology_num_nodes(u), 4);
        for (uint32_t s = 0; s < tsched_topology_num_switches(u); s++)
            ck_assert_uint_le(strlen(tsched_topology_switch_name(u, s)), 64);
        /* the same grouping: gpu0/gpu1 and gpu2/gpu3 share a leaf, the two leaves differ */
        uint32_t l[4];
        for (int n = 0; n < 4; n++) {
            char nn[8];
            snprintf(nn, sizeof nn, "gpu%d", n);
            l[n] = tsched_topology_node_leaf(u, tu_node(u, nn));
        }
        ck_assert(l[0] == l[1] && l[2] == l[3] && l[0] != l[2]);
        tsched_topology_free(u);
        tsched_free(x);
    }
    tsched_topology_free(t);
    /* characters: refused without sanitize (TSCHED_E_FORMAT), '-' with it; two names that
     * sanitize to one are TSCHED_E_DUPLICATE naming both */
    t = two_racks("Rack=1", "r2", "b 1");
    tsched_export_options o;
    tsched_export_options_init(&o);
    o.to = TSCHED_EXPORT_SLURM_CONF;
    char *x = NULL;
    ck_assert_int_eq(tsched_topology_export(&x, t, &o), TSCHED_E_FORMAT);
    ck_assert_ptr_nonnull(strstr(tsched_last_error(), "switch \"Rack=1\""));
    o.sanitize = 1;
    ck_assert_ok(tsched_topology_export(&x, t, &o));
    ck_assert_str_eq(x, "SwitchName=Rack-1 Nodes=gpu01\nSwitchName=r2 Nodes=gpu02\n"
                        "SwitchName=b-1 Switches=Rack-1,r2 LinkSpeed=400\n");
    tsched_free(x);
    tsched_topology_free(t);
    t = two_racks("r[1]", "r,1]", "b1");
    ck_assert_int_eq(tsched_topology_export(&x, t, &o), TSCHED_E_DUPLICATE);
    ck_assert_msg(strstr(tsched_last_error(), "\"r[1]\"") && strstr(tsched_last_error(), "\"r,1]\"") &&
                      strstr(tsched_last_error(), "\"r-1-\""),
                  "%s", tsched_last_error());
    tsched_topology_free(t);
}
END_TEST

Suite *export_suite(void);
Suite *export_suite(void)
{
    Suite *s = suite_create("topology-export");
    TCase *tc = tcase_create("export");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, hostlist_compress);
    tcase_add_test(tc, partitions_clos);
    tcase_add_test(tc, partitions_random);
    tcase_add_test(tc, slurm_round_trip);
    tcase_add_test(tc, launch_files);
    tcase_add_test(tc, names_and_levels);
    tcase_add_test(tc, physical_childless_switch);
    tcase_add_test(tc, nvl_levels);
    tcase_add_test(tc, linkspeed_text);
    tcase_add_test(tc, linkspeed_integer_forms);
    tcase_add_test(tc, block_sizes_round_trip);
    tcase_add_test(tc, block_sizes_checked);
    tcase_add_test(tc, slurm_name_limits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(export_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
