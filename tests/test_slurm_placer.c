/* topo-sched-slurm's parts that need no Slurm (contrib/slurm/tag.c, text.c, reserve.c), against
 * references written here independently:
 *   - the opt-in tag parser against a hand table and against random tags whose validity the
 *     generator knows;
 *   - hostlist ranging: the ranged text, read back by the library's own hostlist reader
 *     (a topology.conf import), names the same set, and contiguous runs become one range;
 *   - the topology.conf and node-state JSON texts built from random switches and nodes: the
 *     library's import gives every node the leaf it was generated under, and the GPUs, free
 *     GPUs and up/down that the rules of spec A (doc/slurm-import.md, "Node state": ALLOCATED
 *     and COMPLETING nodes have no free GPU), applied directly here, give;
 *   - the reservation rule's pure parts (which job is imminent, the earliest of them, the
 *     predicted end of a time limit, the delayed reason) against hand tables.
 * Public libtopo-sched API only. */
#include <check.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <topo-sched/topo-sched.h>

#include "placer.h"
#include "test_util.h"

/* the tests' one seeded generator (test_util.h) */
static tu_rng rng;
static void rng_seed(uint64_t seed) { rng = tu_rng_new(seed); }
static unsigned rnd(unsigned n) { return tu_rng_below(&rng, n); }

/* ---- the tag -------------------------------------------------------------------------- */

typedef struct tag_case {
    const char *comment;
    int rc; /* 1 valid, 0 no tag, -1 bad */
    uint32_t tp, pp, gpus;
    int alpha_set;
    double alpha;
    int unit;
} tag_case;

static const tag_case tag_table[] = {
    {NULL, 0, 0, 0, 0, 0, 0, -1},
    {"", 0, 0, 0, 0, 0, 0, -1},
    {"hello world", 0, 0, 0, 0, 0, 0, -1},
    {"xtopo-sched:tp=8", 0, 0, 0, 0, 0, 0, -1},
    {"topo-sched", 0, 0, 0, 0, 0, 0, -1},
    {"topo-sched:", 1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8,pp=4", 1, 8, 4, 0, 0, 0, -1},
    {"run 7 topo-sched:tp=4 after", 1, 4, 0, 0, 0, 0, -1},
    {"a\ttopo-sched:pp=2,gpus=64,alpha=0.25,unit=dp\tb", 1, 0, 2, 64, 1, 0.25, TSCHED_UNIT_DP},
    {"topo-sched:alpha=auto,unit=pp", -1, 0, 0, 0, 0, 0, -1}, /* auto needs a model */
    {"topo-sched:alpha=0.3,unit=pp", 1, 0, 0, 0, 1, 0.3, TSCHED_UNIT_PP},
    {"topo-sched:alpha=1", 1, 0, 0, 0, 1, 1.0, -1},
    {"topo-sched:alpha=0", 1, 0, 0, 0, 1, 0.0, -1},
    {"topo-sched:alpha=.5", 1, 0, 0, 0, 1, 0.5, -1},
    {"topo-sched:alpha=1.", 1, 0, 0, 0, 1, 1.0, -1},
    {"topo-sched:tp=1048576", 1, 1048576, 0, 0, 0, 0, -1},
    {"topo-sched:tp=1048577", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=0", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=-1", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=+8", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8x", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:=8", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8,", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:,tp=8", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8,,pp=2", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8,tp=4", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:TP=8", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:dp=8", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:alpha=1.5", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:alpha=1e-1", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:alpha=-0", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:alpha=.", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:alpha=AUTO", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:unit=PP", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:unit=tp", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8 topo-sched:pp=2", -1, 0, 0, 0, 0, 0, -1},
    {"topo-sched:tp=8 xtopo-sched:pp=2", 1, 8, 0, 0, 0, 0, -1},
};

static void check_tag(const char *comment, int rc, const ps_tag *want)
{
    ps_tag t;
    char err[256] = "";
    int got = ps_tag_parse(&t, comment, err, sizeof err);
    ck_assert_msg(got == rc, "comment '%s': got %d, want %d (%s)", comment ? comment : "(null)", got, rc, err);
    if (rc == -1)
        ck_assert_msg(strncmp(err, "bad tag: ", 9) == 0 && !strchr(err, '\n'), "comment '%s': message '%s'", comment, err);
    if (rc != 1)
        return;
    ck_assert_uint_eq(t.tp, want->tp);
    ck_assert_uint_eq(t.pp, want->pp);
    ck_assert_uint_eq(t.gpus, want->gpus);
    ck_assert_int_eq(t.alpha_set, want->alpha_set);
    if (want->alpha_set == 1)
        ck_assert_double_eq_tol(t.alpha, want->alpha, 1e-12);
    ck_assert_int_eq(t.unit, want->unit);
}

START_TEST(tag_table_cases)
{
    for (size_t i = 0; i < sizeof tag_table / sizeof tag_table[0]; i++) {
        const tag_case *c = &tag_table[i];
        ps_tag want = {c->tp, c->pp, c->gpus, c->alpha_set, c->alpha, c->unit};
        check_tag(c->comment, c->rc, &want);
    }
}
END_TEST

/* Random tags built from items whose meaning the generator knows. */
START_TEST(tag_random_cases)
{
    static const char *const bad_items[] = {"tp=0",      "tp=-1",  "pp=+2",    "gpus=",     "tp=8x",    "pp=2.0",
                                            "alpha=1.5", "alpha=-0.1", "alpha=1e-1", "alpha=.", "unit=PP", "unit=xx",
                                            "foo=1",     "tp",     "=3",       "",          "gpus=99999999", "alpha=auto2", "alpha=auto"};
    rng_seed(24);
    for (int iter = 0; iter < 20000; iter++) {
        ps_tag want = {0, 0, 0, 0, 0, -1};
        char tag[512] = "", item[64];
        int valid = 1, used[5] = {0}, nitems = (int)rnd(6);
        for (int k = 0; k < nitems; k++) {
            unsigned kind = rnd(12);
            if (kind == 0) { /* a bad item */
                snprintf(item, sizeof item, "%s", bad_items[rnd(sizeof bad_items / sizeof bad_items[0])]);
                valid = 0;
            } else {
                unsigned key = rnd(5);
                if (used[key]++)
                    valid = 0; /* a key given twice */
                switch (key) {
                case 0: want.tp = 1 + rnd(64); snprintf(item, sizeof item, "tp=%u", want.tp); break;
                case 1: want.pp = 1 + rnd(16); snprintf(item, sizeof item, "pp=%u", want.pp); break;
                case 2: want.gpus = 1 + rnd(4096); snprintf(item, sizeof item, "gpus=%u", want.gpus); break;
                case 3: {
                    unsigned q = rnd(101);
                    want.alpha_set = 1;
                    want.alpha = q / 100.0;
                    if (q == 100)
                        snprintf(item, sizeof item, rnd(2) ? "alpha=1" : "alpha=1.00");
                    else
                        snprintf(item, sizeof item, rnd(2) ? "alpha=0.%02u" : "alpha=.%02u", q);
                    break;
                }
                default:
                    want.unit = rnd(2) ? TSCHED_UNIT_DP : TSCHED_UNIT_PP;
                    snprintf(item, sizeof item, "unit=%s", want.unit == TSCHED_UNIT_DP ? "dp" : "pp");
                }
            }
            if (k)
                strcat(tag, ",");
            strcat(tag, item);
        }
        if (nitems == 1 && tag[0] == '\0')
            valid = 1; /* the one item was the empty "bad" one: "topo-sched:" alone is a valid tag */
        char comment[768];
        unsigned where = rnd(4);
        int expect = valid ? 1 : -1;
        if (where == 0)
            snprintf(comment, sizeof comment, "topo-sched:%s", tag);
        else if (where == 1)
            snprintf(comment, sizeof comment, "job %d topo-sched:%s", iter, tag);
        else if (where == 2)
            snprintf(comment, sizeof comment, "topo-sched:%s\tnote", tag);
        else {
            snprintf(comment, sizeof comment, "no%stopo-sched:%s", rnd(2) ? "-" : "", tag); /* glued: not a tag */
            expect = 0;
        }
        check_tag(comment, expect, &want);
    }
}
END_TEST

/* ---- hostlist ranging -------------------------------------------------------------------- */

/* The names of the nodes a one-leaf topology.conf with Nodes=`list` imports, in order. */
static char **expand(size_t *n, const char *list)
{
    char conf[8192];
    snprintf(conf, sizeof conf, "SwitchName=s Nodes=%s\n", list);
    tsched_topology *t = NULL;
    ck_assert_msg(tsched_topology_import_slurm_string(&t, conf, strlen(conf), NULL) == TSCHED_OK, "%s: %s", conf,
                  tsched_last_error());
    *n = tsched_topology_num_nodes(t);
    char **names = calloc(*n ? *n : 1, sizeof *names);
    for (size_t i = 0; i < *n; i++)
        names[i] = strdup(tsched_topology_node_name(t, (uint32_t)i));
    tsched_topology_free(t);
    return names;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

START_TEST(hostlist_ranged_reads_back)
{
    static const char *const prefixes[] = {"n", "gpu", "r1n", "node-", "a.b"};
    rng_seed(7);
    for (int iter = 0; iter < 400; iter++) {
        size_t n = 1 + rnd(60);
        char **names = calloc(n, sizeof *names);
        for (size_t i = 0; i < n; i++) {
            char buf[64];
            unsigned kind = rnd(10);
            if (kind == 0)
                snprintf(buf, sizeof buf, "login%s", rnd(2) ? "" : "x"); /* no number: kept as is */
            else if (i > 0 && kind == 1)
                snprintf(buf, sizeof buf, "%s", names[rnd((unsigned)i)]); /* a duplicate */
            else {
                const char *p = prefixes[rnd(sizeof prefixes / sizeof prefixes[0])];
                unsigned num = rnd(40), pad = rnd(3); /* pad 0: unpadded, else 2 or 3 digits */
                if (pad)
                    snprintf(buf, sizeof buf, "%s%0*u", p, (int)pad + 1, num);
                else
                    snprintf(buf, sizeof buf, "%s%u", p, num);
            }
            names[i] = strdup(buf);
        }
        char *ranged = NULL;
        ck_assert_int_eq(ps_hostlist_ranged(&ranged, (const char *const *)names, n), 0);
        /* the distinct input names, sorted, against the names read back, sorted */
        qsort(names, n, sizeof *names, cmp_str);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (u == 0 || strcmp(names[i], names[u - 1]) != 0)
                names[u++] = names[i];
            else
                free(names[i]);
        size_t m;
        char **back = expand(&m, ranged);
        qsort(back, m, sizeof *back, cmp_str);
        ck_assert_msg(m == u, "'%s': %zu names back, %zu distinct given", ranged, m, u);
        for (size_t i = 0; i < u; i++)
            ck_assert_str_eq(back[i], names[i]);
        for (size_t i = 0; i < u; i++)
            free(names[i]), free(back[i]);
        free(names);
        free(back);
        free(ranged);
    }
}
END_TEST

START_TEST(hostlist_ranged_exact)
{
    static const struct {
        const char *names[8];
        const char *want;
    } cases[] = {
        {{"n3", "n1", "n2", "n0"}, "n[0-3]"},
        {{"n8"}, "n8"},
        {{"n0", "n2", "n3", "n7", "n5"}, "n[0,2-3,5,7]"},
        {{"gpu01", "gpu02", "gpu10", "n1"}, "gpu[01-02,10],n1"},
        {{"n9", "n10", "n11"}, "n[9-11]"},
        {{"login", "n1", "login", "n1"}, "login,n1"},
        {{"n01", "n1"}, "n01,n1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        while (n < 8 && cases[i].names[n])
            n++;
        char *r = NULL;
        ck_assert_int_eq(ps_hostlist_ranged(&r, cases[i].names, n), 0);
        ck_assert_str_eq(r, cases[i].want);
        free(r);
    }
}
END_TEST

/* ---- the texts the library imports ---------------------------------------------------------- */

static const char *const base_states[] = {"idle", "allocated", "mixed", "down", "future", "unknown"};
/* flags: the first 8 make a node down (spec A), the others do not */
static const char *const flag_words[] = {"DRAIN",      "NOT_RESPONDING", "POWERED_DOWN", "MAINTENANCE",
                                         "INVALID_REG", "FAIL",          "REBOOT_REQUESTED", "POWER_DOWN",
                                         "COMPLETING", "CLOUD",          "RESERVED",      "PLANNED"};
#define DOWN_FLAGS 8

typedef struct gres_case {
    const char *text;
    int gpus; /* -1: names no GPU */
} gres_case;
static const gres_case gres_cases[] = {
    {"gpu:8", 8}, {"gpu:a100:4", 4}, {"gpu:a100:4(S:0-1)", 4}, {"gpu:2,gpu:a100:2", 4}, {"gpu:h100:8(S:0),tmpdisk:100", 8},
    {"tmpdisk:100", -1}, {"", -1},
};
typedef struct used_case {
    const char *text;
    int used; /* -1: absent */
} used_case;
static const used_case used_cases[] = {
    {"gpu:0", 0}, {"gpu:3(IDX:0-2)", 3}, {"gpu:a100:0(IDX:N/A)", 0}, {"gpu:1(IDX:5)", 1}, {NULL, -1},
};

START_TEST(texts_import_as_spec_a_says)
{
    rng_seed(2405);
    for (int iter = 0; iter < 150; iter++) {
        unsigned leaves = 1 + rnd(8), spines = rnd(4), gpn = 1 + rnd(8);
        if (spines > leaves) /* a spine without leaves would import as an empty leaf */
            spines = leaves;
        int root = spines > 1 && rnd(2);
        ps_switch sw[16];
        char sname[16][32], snodes[16][256], schild[16][256];
        char nname[200][32];
        const char *leaf_of[200];
        size_t nn = 0, ns = 0;
        for (unsigned l = 0; l < leaves; l++) {
            unsigned k = rnd(6);
            snprintf(sname[ns], 32, "leaf%u", l);
            const char *names[8];
            for (unsigned i = 0; i < k; i++) {
                snprintf(nname[nn], 32, "%s%u", rnd(3) ? "n" : "gpu", (unsigned)nn);
                names[i] = nname[nn];
                leaf_of[nn++] = sname[ns];
            }
            char *r = NULL;
            ck_assert_int_eq(ps_hostlist_ranged(&r, names, k), 0);
            snprintf(snodes[ns], 256, "%s", r);
            free(r);
            sw[ns] = (ps_switch){sname[ns], 0, snodes[ns], NULL};
            ns++;
        }
        for (unsigned s = 0; s < spines; s++) { /* spine s: leaves s, s + spines, ... */
            snprintf(sname[ns], 32, "spine%u", s);
            schild[ns][0] = '\0';
            for (unsigned l = s; l < leaves; l += spines)
                snprintf(schild[ns] + strlen(schild[ns]), 256 - strlen(schild[ns]), "%sleaf%u", l == s ? "" : ",", l);
            sw[ns] = (ps_switch){sname[ns], 1, "ignored-by-the-writer", schild[ns][0] ? schild[ns] : NULL};
            if (!schild[ns][0])
                sw[ns].nodes = NULL;
            ns++;
        }
        if (root) {
            snprintf(sname[ns], 32, "root");
            snprintf(schild[ns], 256, "spine[0-%u]", spines - 1);
            sw[ns] = (ps_switch){sname[ns], 2, NULL, schild[ns]};
            ns++;
        }
        if (nn == 0)
            continue;
        /* node state, with the expected GPUs / free / up of spec A */
        ps_node js[220];
        int want_gpus[200], want_free[200], want_up[200];
        size_t nj = 0;
        for (size_t i = 0; i < nn; i++) {
            want_gpus[i] = (int)gpn, want_free[i] = (int)gpn, want_up[i] = 0; /* absent: down */
            if (rnd(10) == 0)
                continue;
            ps_node *x = &js[nj++];
            memset(x, 0, sizeof *x);
            x->name = nname[i];
            const gres_case *g = &gres_cases[rnd(sizeof gres_cases / sizeof gres_cases[0])];
            x->gres = rnd(8) ? g->text : NULL;
            int gpus = x->gres && g->gpus >= 0 ? g->gpus : -1;
            unsigned b = rnd(10) < 5 ? 0 : rnd(6);
            x->state = base_states[b];
            int up = b <= 2;
            int completing = 0;
            unsigned nf = rnd(4) ? 0 : 1 + rnd(2);
            for (unsigned f = 0; f < nf; f++) {
                unsigned w = rnd(sizeof flag_words / sizeof flag_words[0]);
                x->flags[x->nflags++] = flag_words[w];
                if (w < DOWN_FLAGS)
                    up = 0;
                if (!strcmp(flag_words[w], "COMPLETING"))
                    completing = 1;
            }
            const used_case *u = &used_cases[rnd(sizeof used_cases / sizeof used_cases[0])];
            int used = u->used;
            if (gpus >= 0 && used > gpus)
                u = &used_cases[0], used = 0;
            x->gres_used = u->text;
            if (gpus < 0) { /* no GPU in gres: gpus_per_node GPUs, down */
                want_gpus[i] = (int)gpn;
                want_up[i] = 0;
                continue;
            }
            want_gpus[i] = gpus;
            want_up[i] = up;
            if (completing || b == 1) /* COMPLETING, ALLOCATED: 0 free whatever gres_used says */
                want_free[i] = 0;
            else if (used < 0) /* no gres_used: MIXED 0, IDLE all */
                want_free[i] = b == 2 ? 0 : gpus;
            else
                want_free[i] = gpus - used;
        }
        /* nodes the topology does not have are ignored */
        for (unsigned e = rnd(3); e > 0; e--) {
            ps_node *x = &js[nj++];
            memset(x, 0, sizeof *x);
            x->name = e == 1 ? "stranger1" : "stranger2";
            x->gres = "gpu:8";
            x->state = "idle";
        }
        for (size_t i = nj; i > 1; i--) { /* any order */
            size_t k = rnd((unsigned)i);
            ps_node t = js[i - 1];
            js[i - 1] = js[k];
            js[k] = t;
        }
        char *conf = NULL, *json = NULL;
        ck_assert_int_eq(ps_topology_conf(&conf, sw, ns), 0);
        ck_assert_int_eq(ps_nodes_json(&json, js, nj), 0);
        tsched_slurm_options so;
        tsched_slurm_options_init(&so);
        so.gpus_per_node = gpn;
        so.nodes_json = json;
        tsched_topology *t = NULL;
        ck_assert_msg(tsched_topology_import_slurm_string(&t, conf, strlen(conf), &so) == TSCHED_OK, "%s\n%s: %s", conf,
                      json, tsched_last_error());
        ck_assert_uint_eq(tsched_topology_num_nodes(t), nn);
        ck_assert_uint_eq(tsched_topology_num_switches(t), ns);
        ck_assert_uint_eq(tsched_topology_num_tier(t, 0), leaves);
        for (size_t i = 0; i < nn; i++) {
            uint32_t k = tsched_topology_find_node(t, nname[i]);
            ck_assert_uint_ne(k, TSCHED_NONE);
            ck_assert_str_eq(tsched_topology_switch_name(t, tsched_topology_node_leaf(t, k)), leaf_of[i]);
            ck_assert_msg(tsched_topology_node_is_up(t, k) == want_up[i], "iter %d node %s: up %d, want %d\n%s", iter,
                          nname[i], tsched_topology_node_is_up(t, k), want_up[i], json);
            ck_assert_msg((int)tsched_topology_node_gpus(t, k) == want_gpus[i], "iter %d node %s: %u GPUs, want %d\n%s",
                          iter, nname[i], tsched_topology_node_gpus(t, k), want_gpus[i], json);
            if (want_up[i]) /* spec A says nothing of the free GPUs of a node that is down */
                ck_assert_msg((int)tsched_topology_node_free_gpus(t, k) == want_free[i],
                              "iter %d node %s: %u free, want %d\n%s", iter, nname[i],
                              tsched_topology_node_free_gpus(t, k), want_free[i], json);
        }
        tsched_topology_free(t);
        free(conf);
        free(json);
    }
}
END_TEST

/* The JSON text escapes what it must and is valid for the library's reader. */
START_TEST(nodes_json_escapes)
{
    ps_node x;
    memset(&x, 0, sizeof x);
    x.name = "we\"ird\\na\tme";
    x.gres = "gpu:8";
    x.gres_used = "gpu:0";
    x.state = "idle";
    x.flags[x.nflags++] = "DRAIN";
    char *json = NULL;
    ck_assert_int_eq(ps_nodes_json(&json, &x, 1), 0);
    ck_assert_str_eq(json, "{\"nodes\":[{\"name\":\"we\\\"ird\\\\na\\u0009me\",\"gres\":\"gpu:8\",\"gres_used\":\"gpu:0\","
                           "\"state\":\"idle\",\"state_flags\":[\"DRAIN\"]}]}\n");
    free(json);
    ps_switch sw[2] = {{"leaf0", 0, "n[0-3]", NULL}, {"spine0", 1, "n[0-3]", "leaf0"}};
    char *conf = NULL;
    ck_assert_int_eq(ps_topology_conf(&conf, sw, 2), 0);
    ck_assert_str_eq(conf, "SwitchName=leaf0 Level=0 Nodes=n[0-3]\nSwitchName=spine0 Level=1 Switches=leaf0\n");
    free(conf);
}
END_TEST

/* ---- the reservation rule's pure parts (reserve.c), against a hand table -------------- */

typedef struct imminent_case {
    int64_t begin, now;
    unsigned horizon;
    int want;
} imminent_case;

static const imminent_case imminent_table[] = {
    {1000, 1000, 3600, 0}, /* begins now: an ordinary job */
    {999, 1000, 3600, 0},  /* began in the past */
    {0, 1000, 3600, 0},    /* no begin time (Slurm's "Unknown") */
    {1001, 1000, 3600, 1}, {4600, 1000, 3600, 1}, /* the horizon's edge is in */
    {4601, 1000, 3600, 0},                       /* one second beyond */
    {1600, 1000, 0, 0},                          /* horizon 0: the rule is off */
    {1600, 1000, 1, 0},  {1001, 1000, 1, 1},
};

START_TEST(reserve_imminent_table)
{
    for (size_t i = 0; i < sizeof imminent_table / sizeof imminent_table[0]; i++) {
        const imminent_case *k = &imminent_table[i];
        ck_assert_msg(ps_reserve_imminent(k->begin, k->now, k->horizon) == k->want, "case %zu", i);
    }
}
END_TEST

typedef struct pick_case {
    int64_t begins[5];
    size_t n;
    unsigned horizon;
    size_t want; /* index; n = none */
} pick_case;

START_TEST(reserve_pick_table)
{
    const int64_t now = 10000;
    const pick_case table[] = {
        {{0}, 0, 600, 0},
        {{9000, 10000, 0}, 3, 600, 3},                        /* none in the future */
        {{10700, 10500, 10300}, 3, 600, 2},                   /* the earliest, not the first */
        {{10700, 10500, 10300}, 3, 200, 3},                   /* all beyond the horizon */
        {{10500, 10300, 10300, 10100}, 4, 150, 3},            /* only one within */
        {{10300, 10500, 10300}, 3, 600, 0},                   /* a tie: the first (lower id) */
        {{20000, 10600, 9999, 10599, 10601}, 5, 600, 3},
        {{10100, 10200}, 2, 0, 2},                            /* off */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        ck_assert_msg(ps_reserve_pick(table[i].begins, table[i].n, now, table[i].horizon) == table[i].want,
                      "case %zu: got %zu", i, ps_reserve_pick(table[i].begins, table[i].n, now, table[i].horizon));
}
END_TEST

START_TEST(reserve_predicted_end_and_reason)
{
    ck_assert(ps_reserve_predicted_end(1000, 1) == 1060.0);
    ck_assert(ps_reserve_predicted_end(1000, 0) == 1000.0);
    ck_assert(ps_reserve_predicted_end(1000, 60) == 4600.0);
    ck_assert(ps_reserve_predicted_end(0, 0xfffffffdu) == 60.0 * 4294967293.0);
    ck_assert(ps_reserve_predicted_end(1000, 0xfffffffeu) == DBL_MAX); /* NO_VAL */
    ck_assert(ps_reserve_predicted_end(1000, 0xffffffffu) == DBL_MAX); /* INFINITE */
    char buf[200];
    ps_reserve_delay_reason(buf, sizeof buf, 42, 1795970865); /* 2026-11-29 16:47:45 UTC */
    ck_assert_str_eq(buf, "delayed: nodes reserved for job 42 arriving at 2026-11-29T16:47:45Z");
    ps_reserve_delay_reason(buf, sizeof buf, 7, 0);
    ck_assert_str_eq(buf, "delayed: nodes reserved for job 7 arriving at 1970-01-01T00:00:00Z");
    ps_reserve_delay_reason(buf, 12, 7, 0);
    ck_assert_str_eq(buf, "delayed: no");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("slurm-placer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tag_table_cases);
    tcase_add_test(tc, tag_random_cases);
    tcase_add_test(tc, hostlist_ranged_exact);
    tcase_add_test(tc, hostlist_ranged_reads_back);
    tcase_add_test(tc, nodes_json_escapes);
    tcase_add_test(tc, texts_import_as_spec_a_says);
    tcase_add_test(tc, reserve_imminent_table);
    tcase_add_test(tc, reserve_pick_table);
    tcase_add_test(tc, reserve_predicted_end_and_reason);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
