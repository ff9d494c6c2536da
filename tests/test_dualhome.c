/* Multi-homed nodes (issue 23 item 3): a node's NICs on two or more leaves in any grouping.
 * The generator's `homes`, the JSON round trip, paths per NIC pair against a brute-force
 * enumeration on seeded random fabrics, free counters and placement domains (the node's
 * leaf is NIC 0's), the simulator on two dual-homed hosts against the hand answer, exports
 * refusing a multi-homed node by name, the Slurm and Kubernetes imports staying single-homed,
 * and the double-sided Lingjun fixture. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static char *to_json(const tsched_topology *t)
{
    char *s = NULL;
    ck_assert_ok(tsched_topology_to_json(&s, t));
    return s;
}

/* Save, load back, save again: the same bytes and the same leaf for every NIC. */
static void check_round_trip(const tsched_topology *t)
{
    char *a = to_json(t);
    tsched_topology *u = NULL;
    ck_assert_ok(tsched_topology_load_string(&u, a, strlen(a)));
    char *b = to_json(u);
    ck_assert_str_eq(a, b);
    ck_assert_uint_eq(tsched_topology_num_nodes(u), tsched_topology_num_nodes(t));
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++) {
        ck_assert_uint_eq(tsched_topology_node_leaf(u, n), tsched_topology_node_leaf(t, n));
        for (uint32_t k = 0; k < tsched_topology_node_nics(t, n); k++)
            ck_assert_uint_eq(tsched_topology_node_nic_leaf(u, n, k), tsched_topology_node_nic_leaf(t, n, k));
    }
    tsched_free(a);
    tsched_free(b);
    tsched_topology_free(u);
}

static tsched_topology *gen(tsched_gen_kind kind, uint32_t homes, uint32_t nics)
{
    tsched_gen_params p;
    tsched_topology_params_init(&p, kind);
    if (kind == TSCHED_GEN_LEAF_SPINE) {
        p.leaves = 4;
        p.spines = 2;
    } else {
        p.pods = 2;
        p.leaves_per_pod = 4;
        p.spines_per_pod = 2;
        p.cores = 4;
    }
    p.nodes_per_leaf = 3;
    p.gpus_per_node = 8;
    p.nics_per_node = nics;
    p.nic_gbps = 200;
    p.homes = homes;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_generate(&t, &p));
    return t;
}

/* ---- generator ---------------------------------------------------------------------------- */

/* homes h: node i's NIC k is on leaf h * floor(i / (h * nodes_per_leaf)) + floor(k / (nics
 * / h)); every trunk keeps the capacity of the single-homed fabric (each leaf still has
 * nodes_per_leaf * nics NICs), and the fabric round-trips through JSON. */
START_TEST(generator_homes_wiring_and_round_trip)
{
    for (int kind = 0; kind < 2; kind++)
        for (uint32_t homes = 1; homes <= 4; homes *= 2) {
            tsched_topology *t = gen((tsched_gen_kind)kind, homes, 8);
            tsched_topology *one = gen((tsched_gen_kind)kind, 1, 8);
            uint32_t nn = tsched_topology_num_nodes(t);
            ck_assert_uint_eq(nn, tsched_topology_num_nodes(one));
            uint32_t *nics_on = calloc(tsched_topology_num_switches(t), sizeof *nics_on);
            for (uint32_t n = 0; n < nn; n++) {
                uint32_t first = homes * (n / (homes * 3));
                char want[32];
                snprintf(want, sizeof want, "leaf%u", first);
                ck_assert_uint_eq(tsched_topology_node_leaf(t, n), tu_sw(t, want));
                for (uint32_t k = 0; k < 8; k++) {
                    snprintf(want, sizeof want, "leaf%u", first + k / (8 / homes));
                    uint32_t l = tsched_topology_node_nic_leaf(t, n, k);
                    ck_assert_uint_eq(l, tu_sw(t, want));
                    nics_on[l]++;
                }
            }
            for (uint32_t i = 0; i < tsched_topology_num_tier(t, 0); i++)
                ck_assert_uint_eq(nics_on[tsched_topology_tier_switch(t, 0, i)], 3 * 8);
            ck_assert_uint_eq(tsched_topology_num_trunks(t), tsched_topology_num_trunks(one));
            for (uint32_t r = 0; r < tsched_topology_num_trunks(t); r++)
                ck_assert(tsched_topology_trunk_gbps(t, r) == tsched_topology_trunk_gbps(one, r));
            check_round_trip(t);
            free(nics_on);
            tsched_topology_free(t);
            tsched_topology_free(one);
        }
}
END_TEST

/* The JSON "generate" object takes homes; a homes that splits no NIC group or leaf group
 * evenly is refused naming generate.homes. */
START_TEST(generator_homes_json_and_errors)
{
    const char *doc = "{\"format\":\"tsched.topology.v1\",\"generate\":{\"kind\":\"clos3\",\"pods\":2,"
                      "\"leaves_per_pod\":2,\"spines_per_pod\":2,\"cores\":2,\"nodes_per_leaf\":2,"
                      "\"gpus_per_node\":8,\"nic_gbps\":100,\"homes\":2}}";
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_string(&t, doc, strlen(doc)));
    /* node 4 is in pod 1's group: leaves 2 and 3 */
    ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, 4, 0), tu_sw(t, "leaf2"));
    ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, 4, 7), tu_sw(t, "leaf3"));
    ck_assert_uint_eq(tsched_topology_node_pod(t, 4), tsched_topology_switch_pod(t, tu_sw(t, "leaf2")));
    check_round_trip(t);
    tsched_topology_free(t);

    tsched_gen_params p;
    tsched_topology_params_init(&p, TSCHED_GEN_LEAF_SPINE);
    p.leaves = 4;
    p.homes = 3; /* 8 NICs */
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.homes: 3 does not divide the 8 NICs");
    p.homes = 2;
    p.leaves = 3;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.homes: 2 does not divide the 3 leaves");
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.leaves_per_pod = 6;
    p.homes = 4;
    ck_assert_status(tsched_topology_generate(&t, &p), TSCHED_E_RANGE);
    ck_assert_errmsg_has("6 leaves of a pod");
    const char *bad = "{\"format\":\"tsched.topology.v1\",\"generate\":{\"kind\":\"leaf_spine\",\"leaves\":2,"
                      "\"spines\":1,\"nodes_per_leaf\":1,\"gpus_per_node\":8,\"nic_gbps\":100,\"homes\":0}}";
    ck_assert_status(tsched_topology_load_string(&t, bad, strlen(bad)), TSCHED_E_RANGE);
    ck_assert_errmsg_has("generate.homes");
}
END_TEST

/* ---- random fabrics with arbitrary groupings ------------------------------------------------ */

#define RL 6 /* most leaves */
#define RS 4 /* most spines */
#define RC 3 /* most cores */
#define RN 6 /* most nodes */

typedef struct rfab {
    uint32_t L, S, C, N;
    uint8_t ls[RL][RS], sc[RS][RC]; /* links */
    uint32_t nics[RN];
    uint32_t leaf[RN][8];           /* the leaf (switch index) of each NIC, as drawn */
    uint8_t sw_up[RL + RS + RC], node_up[RN];
    tsched_topology *t;
} rfab;

/* Switch indices: leaves 0..L-1, spines L.., cores L+S.. (the order they are added). */
static void rfab_make(rfab *f, ts_rng *r)
{
    memset(f, 0, sizeof *f);
    f->L = 2 + (uint32_t)ts_rng_below(r, RL - 1);
    f->S = 1 + (uint32_t)ts_rng_below(r, RS);
    f->C = (uint32_t)ts_rng_below(r, RC + 1);
    f->N = 2 + (uint32_t)ts_rng_below(r, RN - 1);
    ck_assert_ok(tsched_topology_new(&f->t, "rand"));
    char a[16], b[16];
    for (uint32_t i = 0; i < f->L; i++) {
        snprintf(a, sizeof a, "L%u", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, f->t, a, 0, NULL));
    }
    for (uint32_t i = 0; i < f->S; i++) {
        snprintf(a, sizeof a, "S%u", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, f->t, a, 1, NULL));
    }
    for (uint32_t i = 0; i < f->C; i++) {
        snprintf(a, sizeof a, "C%u", i);
        ck_assert_ok(tsched_topology_add_switch(NULL, f->t, a, 2, NULL));
    }
    for (uint32_t i = 0; i < f->L; i++)
        for (uint32_t s = 0; s < f->S; s++)
            if (ts_rng_below(r, 3) != 0) {
                f->ls[i][s] = 1;
                snprintf(a, sizeof a, "L%u", i);
                snprintf(b, sizeof b, "S%u", s);
                ck_assert_ok(tsched_topology_add_link(f->t, a, b, 100, 1 + (uint32_t)ts_rng_below(r, 3)));
            }
    for (uint32_t s = 0; s < f->S; s++)
        for (uint32_t c = 0; c < f->C; c++)
            if (ts_rng_below(r, 2) != 0) {
                f->sc[s][c] = 1;
                snprintf(a, sizeof a, "S%u", s);
                snprintf(b, sizeof b, "C%u", c);
                ck_assert_ok(tsched_topology_add_link(f->t, a, b, 100, 1));
            }
    static const uint32_t nic_choices[] = {1, 2, 4, 8};
    for (uint32_t n = 0; n < f->N; n++) {
        f->nics[n] = nic_choices[ts_rng_below(r, 4)];
        /* 1..3 homes drawn among the leaves, in any order; NICs split into contiguous groups,
         * or (one case in four) every NIC on a leaf of its own draw */
        uint32_t homes = 1 + (uint32_t)ts_rng_below(r, 3), home[3];
        for (uint32_t h = 0; h < homes; h++)
            home[h] = (uint32_t)ts_rng_below(r, f->L);
        int scatter = ts_rng_below(r, 4) == 0;
        const char *names[8];
        char buf[8][16];
        for (uint32_t k = 0; k < f->nics[n]; k++) {
            f->leaf[n][k] = scatter ? (uint32_t)ts_rng_below(r, f->L) : home[k * homes / f->nics[n]];
            snprintf(buf[k], sizeof buf[k], "L%u", f->leaf[n][k]);
            names[k] = buf[k];
        }
        snprintf(a, sizeof a, "n%u", n);
        uint32_t idx;
        ck_assert_ok(tsched_topology_add_node(&idx, f->t, a, names[0], 8, f->nics[n], NULL, 100));
        ck_assert_uint_eq(idx, n);
        ck_assert_ok(tsched_topology_set_rails(f->t, n, names, f->nics[n]));
    }
    ck_assert_ok(tsched_topology_build(f->t));
    for (uint32_t s = 0; s < f->L + f->S + f->C; s++)
        f->sw_up[s] = 1;
    for (uint32_t n = 0; n < f->N; n++)
        f->node_up[n] = 1;
}

/* Some switches and nodes down, drawn. */
static void rfab_downs(rfab *f, ts_rng *r)
{
    for (uint32_t s = 0; s < f->L + f->S + f->C; s++)
        if (ts_rng_below(r, 6) == 0) {
            f->sw_up[s] = 0;
            ck_assert_ok(tsched_topology_set_switch_up(f->t, s, 0));
        }
    for (uint32_t n = 0; n < f->N; n++)
        if (ts_rng_below(r, 8) == 0) {
            f->node_up[n] = 0;
            ck_assert_ok(tsched_topology_set_node_up(f->t, n, 0));
        }
}

/* Brute force: every valley-free path from leaf a to leaf b through up switches, climbing
 * to tier 0, 1 or 2, keeping only the shortest; switch sequences in lexicographic order. */
typedef struct bpaths {
    uint32_t n, len;
    uint32_t sw[64][5];
} bpaths;

static void brute(bpaths *out, const rfab *f, uint32_t a, uint32_t b)
{
    out->n = 0;
    out->len = 0;
    if (!f->sw_up[a] || !f->sw_up[b])
        return;
    if (a == b) {
        out->n = 1;
        out->len = 1;
        out->sw[0][0] = a;
        return;
    }
    for (uint32_t s = 0; s < f->S; s++) /* via one spine */
        if (f->ls[a][s] && f->ls[b][s] && f->sw_up[f->L + s]) {
            uint32_t *p = out->sw[out->n++];
            p[0] = a, p[1] = f->L + s, p[2] = b;
            out->len = 3;
        }
    if (out->n)
        return;
    for (uint32_t s1 = 0; s1 < f->S; s1++)
        for (uint32_t c = 0; c < f->C; c++)
            for (uint32_t s2 = 0; s2 < f->S; s2++)
                if (f->ls[a][s1] && f->sc[s1][c] && f->sc[s2][c] && f->ls[b][s2] && f->sw_up[f->L + s1] &&
                    f->sw_up[f->L + f->S + c] && f->sw_up[f->L + s2]) {
                    ck_assert_uint_lt(out->n, 64);
                    uint32_t *p = out->sw[out->n++];
                    p[0] = a, p[1] = f->L + s1, p[2] = f->L + f->S + c, p[3] = f->L + s2, p[4] = b;
                    out->len = 5;
                }
}

/* Paths between NIC pairs of multi-homed nodes (any grouping, including NICs of one node on
 * leaves shared with other nodes in other groupings) equal the brute-force enumeration on
 * each NIC's own leaf, in order, with the right directed links; down switches and nodes
 * included. */
START_TEST(paths_match_brute_force_on_random_fabrics)
{
    ts_rng r;
    ts_rng_seed(&r, 2303);
    tsched_path paths[64];
    uint64_t checked_multi = 0;
    for (unsigned rep = 0; rep < tu_n(60); rep++) {
        rfab f;
        rfab_make(&f, &r);
        if (rep % 2)
            rfab_downs(&f, &r);
        for (uint32_t u = 0; u < f.N; u++)
            for (uint32_t v = 0; v < f.N; v++)
                for (uint32_t i = 0; i < f.nics[u]; i++)
                    for (uint32_t j = 0; j < f.nics[v]; j++) {
                        ck_assert_uint_eq(tsched_topology_node_nic_leaf(f.t, u, i), f.leaf[u][i]);
                        bpaths want;
                        if (f.node_up[u] && f.node_up[v])
                            brute(&want, &f, f.leaf[u][i], f.leaf[v][j]);
                        else
                            want.n = 0;
                        uint64_t c;
                        ck_assert_ok(tsched_topology_path_count(&c, f.t, u, i, v, j));
                        ck_assert_msg(c == want.n, "rep %u: n%u NIC %u -> n%u NIC %u: %llu paths, brute %u", rep, u,
                                      i, v, j, (unsigned long long)c, want.n);
                        paths[0].size = sizeof paths[0];
                        size_t got;
                        ck_assert_ok(tsched_topology_paths(paths, 64, &got, f.t, u, i, v, j));
                        ck_assert_uint_eq(got, want.n);
                        for (size_t p = 0; p < got; p++) {
                            ck_assert_uint_eq(paths[p].nswitches, want.len);
                            for (uint32_t h = 0; h < want.len; h++)
                                ck_assert_uint_eq(paths[p].switches[h], want.sw[p][h]);
                            for (uint32_t h = 0; h + 1 < want.len; h++) {
                                int upward = h + 1 <= want.len / 2;
                                uint32_t lo = upward ? want.sw[p][h] : want.sw[p][h + 1];
                                uint32_t hi = upward ? want.sw[p][h + 1] : want.sw[p][h];
                                uint32_t tr = tsched_topology_find_trunk(f.t, lo, hi);
                                ck_assert_uint_ne(tr, TSCHED_NONE);
                                ck_assert_uint_eq(paths[p].links[h], 2 * tr + (upward ? 0u : 1u));
                            }
                        }
                        if (f.leaf[u][i] != f.leaf[u][0])
                            checked_multi++;
                    }
        check_round_trip(f.t); /* any grouping, with its down elements */
        tsched_topology_free(f.t);
    }
    ck_assert_uint_gt(checked_multi, tu_min(500)); /* the cases are really multi-homed */
}
END_TEST

/* Free counters and placement domains: a node is usable when it and the leaves of all its
 * NICs are up; it counts in exactly one leaf domain, its NIC 0 leaf's, so the leaves' free
 * counts add up to the cluster's and free_nodes lists each node once; a placement gives no
 * node twice and the number of leaf domains it reports is that of its nodes' NIC 0 leaves. */
START_TEST(free_counts_and_placement_domains)
{
    ts_rng r;
    ts_rng_seed(&r, 2304);
    for (unsigned rep = 0; rep < tu_n(40); rep++) {
        rfab f;
        rfab_make(&f, &r);
        rfab_downs(&f, &r);
        uint32_t usable = 0, per_leaf[RL] = {0};
        uint8_t use[RN];
        for (uint32_t n = 0; n < f.N; n++) {
            use[n] = f.node_up[n];
            for (uint32_t k = 0; k < f.nics[n]; k++)
                use[n] &= f.sw_up[f.leaf[n][k]];
            if (ts_rng_below(&r, 5) == 0) { /* a busy GPU: not free */
                ck_assert_ok(tsched_topology_set_free_gpus(f.t, n, 7));
                ck_assert_uint_eq(tsched_topology_node_is_free(f.t, n), 0);
                use[n] = 0;
            }
            ck_assert_uint_eq(tsched_topology_node_is_free(f.t, n), use[n]);
            usable += use[n];
            per_leaf[f.leaf[n][0]] += use[n];
        }
        ck_assert_uint_eq(tsched_topology_free_node_count(f.t, TSCHED_LEVEL_CLUSTER, 0), usable);
        uint32_t sum = 0;
        for (uint32_t l = 0; l < f.L; l++) {
            ck_assert_uint_eq(tsched_topology_free_node_count(f.t, TSCHED_LEVEL_LEAF, l), per_leaf[l]);
            uint32_t list[RN];
            size_t cnt;
            ck_assert_ok(tsched_topology_free_nodes(list, RN, &cnt, f.t, TSCHED_LEVEL_LEAF, l));
            ck_assert_uint_eq(cnt, per_leaf[l]);
            for (size_t i = 0; i < cnt; i++)
                ck_assert_uint_eq(f.leaf[list[i]][0], l);
            sum += per_leaf[l];
        }
        ck_assert_uint_eq(sum, usable);
        /* placement of 1..usable nodes with every algorithm but mip (slow to start) */
        static const tsched_place_algo algos[] = {TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                                  TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE,
                                                  TSCHED_PLACE_EXHAUSTIVE};
        for (uint32_t want = 1; want <= usable; want++) {
            tsched_job *j = tu_job("j", 8 * want, 8, 1);
            for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
                tsched_place_options o;
                tsched_place_options_init(&o);
                o.algo = algos[a];
                o.domain = TSCHED_DOMAIN_LEAF;
                o.seed = rep + 1;
                tsched_placement *pl = NULL;
                ck_assert_ok(tsched_place(&pl, f.t, j, &o));
                uint8_t seen[RN] = {0}, dom[RL] = {0};
                uint32_t ndom = 0;
                for (uint32_t row = 0; row < tsched_placement_rows(pl); row++) {
                    uint32_t n = tsched_placement_node(pl, row, 0);
                    ck_assert_uint_lt(n, f.N);
                    ck_assert_msg(!seen[n], "node %u placed twice", n);
                    ck_assert(use[n]);
                    seen[n] = 1;
                    ndom += !dom[f.leaf[n][0]];
                    dom[f.leaf[n][0]] = 1;
                }
                ck_assert_uint_eq(tsched_placement_rows(pl), want);
                ck_assert_uint_eq(tsched_placement_domains_used(pl), ndom);
                tsched_placement_free(pl);
            }
            tsched_job_free(j);
        }
        /* every switch back up: the incremental counts of the nodes a leaf carries (home or
         * not) come back to those of the nodes' own state */
        uint32_t back = 0;
        for (uint32_t sw = 0; sw < f.L + f.S + f.C; sw++)
            ck_assert_ok(tsched_topology_set_switch_up(f.t, sw, 1));
        for (uint32_t n = 0; n < f.N; n++)
            back += f.node_up[n] && tsched_topology_node_free_gpus(f.t, n) == 8;
        ck_assert_uint_eq(tsched_topology_free_node_count(f.t, TSCHED_LEVEL_CLUSTER, 0), back);
        tsched_topology_free(f.t);
    }
}
END_TEST

/* ---- simulator ---------------------------------------------------------------------------- */

/* Two hosts of 8 NICs at 100 Gbit/s, each with NICs 0-3 on L0 and 4-7 on L1 (`swap`: host
 * h1 the other way round), and one 100 Gbit/s link from each leaf to the only spine. */
static tsched_topology *two_dual_homed(int swap)
{
    char doc[1024];
    snprintf(doc, sizeof doc,
             "{\"format\":\"tsched.topology.v1\",\"switches\":[{\"name\":\"L0\",\"tier\":0},{\"name\":\"L1\",\"tier\":0},"
             "{\"name\":\"S\",\"tier\":1}],\"links\":[{\"a\":\"L0\",\"b\":\"S\",\"gbps\":100},{\"a\":\"L1\",\"b\":\"S\","
             "\"gbps\":100}],\"nodes\":[{\"name\":\"h0\",\"gpus\":8,\"nic_gbps\":100,\"rails\":[\"L0\",\"L0\",\"L0\","
             "\"L0\",\"L1\",\"L1\",\"L1\",\"L1\"]},{\"name\":\"h1\",\"gpus\":8,\"nic_gbps\":100,\"rails\":%s}]}",
             swap ? "[\"L1\",\"L1\",\"L1\",\"L1\",\"L0\",\"L0\",\"L0\",\"L0\"]"
                  : "[\"L0\",\"L0\",\"L0\",\"L0\",\"L1\",\"L1\",\"L1\",\"L1\"]");
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_load_string(&t, doc, strlen(doc)));
    return t;
}

/* One 16-GPU dp-ring job of 10 Gbit per flow on the two hosts: one flow per NIC each way.
 * Aligned homes: every flow stays on its ToR, each at the NIC's 100 Gbit/s, so a host moves
 * 8 x 100 Gbit/s and an iteration takes compute + 10 / 100 s; the 100 Gbit/s trunks would
 * make any crossing flow at least 8 times slower. Swapped homes: every flow crosses the
 * spine, 8 flows share each leaf's up link (100 / 8 each): compute + 10 / 12.5 s. */
START_TEST(sim_dual_homed_ring_rates)
{
    const char *trace = "{\"format\":\"tsched.trace.v1\",\"jobs\":[{\"name\":\"j\",\"arrival_s\":0,\"gpus\":16,"
                        "\"compute_ms\":100,\"iterations\":3,\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":10}]}]}";
    for (int swap = 0; swap < 2; swap++) {
        tsched_topology *t = two_dual_homed(swap);
        tsched_sim *s = tu_sim_new(t);
        ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
        tsched_sim_result *r = tu_sim_run(s);
        tsched_sim_job_stats js = tu_sim_job(r, 0);
        double want = 0.1 + (swap ? 10.0 / 12.5 : 10.0 / 100);
        ck_assert_msg(fabs(js.iter_mean_s - want) <= 1e-9 * want, "swap %d: iteration %.17g s, want %.17g", swap,
                      js.iter_mean_s, want);
        ck_assert_msg(fabs(js.gbits_delivered - 3 * 16 * 10.0) <= 1e-9, "delivered %.17g", js.gbits_delivered);
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- exports and imports ------------------------------------------------------------------- */

/* Every format refuses a multi-homed node by name (TSCHED_E_FORMAT), writes nothing, and
 * still exports the same fabric single-homed. */
START_TEST(exports_refuse_multi_homed_nodes)
{
    static const tsched_export_format fmts[] = {TSCHED_EXPORT_SLURM_CONF, TSCHED_EXPORT_SLURM_YAML,
                                                TSCHED_EXPORT_KUEUE, TSCHED_EXPORT_KAI, TSCHED_EXPORT_VOLCANO};
    tsched_topology *dual = gen(TSCHED_GEN_CLOS3, 2, 8), *one = gen(TSCHED_GEN_CLOS3, 1, 8);
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        for (int physical = 0; physical < 2; physical++) {
            if (physical && fmts[i] != TSCHED_EXPORT_SLURM_CONF && fmts[i] != TSCHED_EXPORT_SLURM_YAML)
                continue;
            tsched_export_options o;
            tsched_export_options_init(&o);
            o.to = fmts[i];
            o.physical = physical;
            char *out = (char *)1;
            ck_assert_status(tsched_topology_export(&out, dual, &o), TSCHED_E_FORMAT);
            ck_assert_ptr_null(out);
            ck_assert_errmsg_has("node \"node0\": NIC 0 is on leaf \"leaf0\" and NIC 4 on leaf \"leaf1\"");
            ck_assert_ok(tsched_topology_export(&out, one, &o));
            tsched_free(out);
        }
    tsched_topology_free(dual);
    tsched_topology_free(one);
}
END_TEST

static void assert_single_homed(const tsched_topology *t)
{
    ck_assert_uint_gt(tsched_topology_num_nodes(t), 0);
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++)
        for (uint32_t k = 0; k < tsched_topology_node_nics(t, n); k++)
            ck_assert_uint_eq(tsched_topology_node_nic_leaf(t, n, k), tsched_topology_node_leaf(t, n));
}

/* Slurm (topology.conf, both forms, and topology.yaml) and Kubernetes imports give every
 * node one leaf for all its NICs: nothing in those inputs says a node has two. */
START_TEST(imports_stay_single_homed)
{
    static const char *const conf[] = {"tree.conf", "block.conf", "deep5.conf"};
    char path[1024];
    tsched_topology *t = NULL;
    for (size_t i = 0; i < sizeof conf / sizeof conf[0]; i++) {
        snprintf(path, sizeof path, "%s/import/%s", TSCHED_TEST_DATA, conf[i]);
        ck_assert_ok(tsched_topology_import_slurm_file(&t, path, NULL));
        assert_single_homed(t);
        tsched_topology_free(t);
    }
    snprintf(path, sizeof path, "%s/import/topology.yaml", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_import_slurm_yaml_file(&t, path, NULL));
    assert_single_homed(t);
    tsched_topology_free(t);
    static const char *const levels[] = {"example.com/block", "example.com/rack"};
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = levels;
    o.nlevels = 2;
    snprintf(path, sizeof path, "%s/import/nodes.json", TSCHED_TEST_DATA);
    ck_assert_ok(tsched_topology_import_k8s_nodes_file(&t, path, &o));
    assert_single_homed(t);
    tsched_topology_free(t);
}
END_TEST

/* ---- the double-sided Lingjun fixture -------------------------------------------------------- */

/* tests/data/lingjun-847-ds.json (tests/convert_lingjun.py --double-sided): the 847 hosts of
 * lingjun-847.json, each with NICs 0-3 on the first leaf of its ToR pair and 4-7 on the
 * second, pairs within a pod; the same switches; every leaf-PSW trunk has one 200 Gbit/s
 * link per NIC on the leaf (non-blocking); NIC k to NIC k inside a pair is one switch. */
START_TEST(lingjun_double_sided_fixture)
{
    tsched_topology *ds = NULL, *one = NULL;
    ck_assert_ok(tsched_topology_load_file(&ds, TSCHED_TEST_DATA "/lingjun-847-ds.json"));
    ck_assert_ok(tsched_topology_load_file(&one, TSCHED_TEST_DATA "/lingjun-847.json"));
    uint32_t nn = tsched_topology_num_nodes(ds);
    ck_assert_uint_eq(nn, 847);
    ck_assert_uint_eq(tsched_topology_num_nodes(one), nn);
    ck_assert_uint_eq(tsched_topology_num_switches(ds), tsched_topology_num_switches(one));
    uint32_t ns = tsched_topology_num_switches(ds);
    uint32_t *nics_on = calloc(ns, sizeof *nics_on);
    uint32_t dual = 0;
    for (uint32_t n = 0; n < nn; n++) {
        ck_assert_str_eq(tsched_topology_node_name(ds, n), tsched_topology_node_name(one, n));
        ck_assert_uint_eq(tsched_topology_node_nics(ds, n), 8);
        uint32_t a = tsched_topology_node_nic_leaf(ds, n, 0), b = tsched_topology_node_nic_leaf(ds, n, 4);
        for (uint32_t k = 0; k < 8; k++) {
            ck_assert_uint_eq(tsched_topology_node_nic_leaf(ds, n, k), k < 4 ? a : b);
            nics_on[tsched_topology_node_nic_leaf(ds, n, k)]++;
        }
        /* the host's own ToR of the single-homed data is one of its pair; both in its pod */
        uint32_t own = tsched_topology_find_switch(ds, tsched_topology_switch_name(one, tsched_topology_node_leaf(one, n)));
        ck_assert(own == a || own == b);
        ck_assert_uint_eq(tsched_topology_switch_pod(ds, a), tsched_topology_switch_pod(ds, b));
        dual += a != b;
    }
    ck_assert_uint_eq(dual, nn); /* every pod has two leaves or more */
    for (uint32_t r = 0; r < tsched_topology_num_trunks(ds); r++) {
        uint32_t lo = tsched_topology_trunk_lower(ds, r);
        if (tsched_topology_switch_tier(ds, lo) == 0)
            ck_assert_uint_eq(tsched_topology_trunk_links(ds, r), nics_on[lo]);
    }
    /* two hosts sharing the pair: NIC k to NIC k is the ToR alone, NIC 0 to NIC 4 goes via the PSW */
    uint32_t u = 0, v = 1;
    while (v < nn && tsched_topology_node_leaf(ds, v) != tsched_topology_node_leaf(ds, u))
        v++;
    ck_assert_uint_lt(v, nn);
    uint64_t c;
    ck_assert_ok(tsched_topology_path_count(&c, ds, u, 5, v, 5));
    ck_assert_uint_eq(c, 1);
    tsched_path p = {.size = sizeof p};
    size_t got;
    ck_assert_ok(tsched_topology_paths(&p, 1, &got, ds, u, 0, v, 4));
    ck_assert_uint_eq(got, 1);
    ck_assert_uint_eq(p.nswitches, 3);
    free(nics_on);
    tsched_topology_free(ds);
    tsched_topology_free(one);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dualhome");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, generator_homes_wiring_and_round_trip);
    tcase_add_test(tc, generator_homes_json_and_errors);
    tcase_add_test(tc, paths_match_brute_force_on_random_fabrics);
    tcase_add_test(tc, free_counts_and_placement_domains);
    tcase_add_test(tc, sim_dual_homed_ring_rates);
    tcase_add_test(tc, exports_refuse_multi_homed_nodes);
    tcase_add_test(tc, imports_stay_single_homed);
    tcase_add_test(tc, lingjun_double_sided_fixture);
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
