/* The baselines' orders of the priority module (doc/priority.md, "Orders"): Sincronia's
 * BSSI, Varys's SEBF and CRUX's TACCL*, each on a hand case where it differs from CRUX and
 * against a direct re-implementation on seeded random job sets; member-link flows (the
 * contention DAG per member link); the simulator's rows sincronia, varys and taccl; routing
 * `ideal` under every computed priority. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priority/crux_internal.h"
#include "test_util.h"

static tsched_priorities *prio(const tsched_topology *t, const tsched_jobset *js, tsched_prio_order order,
                               tsched_kcut_algo algo, uint32_t levels)
{
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    o.order = order;
    o.algo = algo;
    o.levels = levels;
    tsched_priorities *p = NULL;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    return p;
}

/* ---- the hand cases ---------------------------------------------------------------------- */

/* Two jobs share the trunk leaf0 -> spine0 -> leaf1 (100 Gbit/s, NICs 100): `big` sends
 * 100 Gbit n0 -> n2 per iteration (t = 1 s) and computes 1000 TFLOP (I = 1000 TFLOP/s);
 * `small` sends 10 Gbit n1 -> n3 (t = 0.1 s) and computes 10 TFLOP (I = 100). CRUX puts the
 * GPU-intensive `big` first. Varys's effective bottleneck is 1 s for `big`, 0.1 s for
 * `small`: smallest first puts `small` first. Sincronia's bottleneck is the shared trunk
 * (1.1 s of both jobs' traffic, more than any NIC link), and the job put last there is the
 * one with the most time on it, `big`: `small` first again. With two levels, each
 * baseline's compression gives its first job level 0. */
START_TEST(small_job_first_under_sincronia_and_varys)
{
    tsched_topology *t = tu_two_leaves(100, 100, 8);
    tsched_jobset *js;
    ck_assert_ok(tsched_jobset_new(&js, t));
    uint32_t big, small;
    ck_assert_ok(tsched_jobset_add_job(&big, js, "big", 16, 1000, 500, 0));
    ck_assert_ok(tsched_jobset_add_job(&small, js, "small", 16, 10, 500, 0));
    ck_assert_ok(tsched_jobset_add_flow(js, big, 0, 0, 2, 0, 100, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, small, 1, 0, 3, 0, 10, NULL));
    static const struct {
        tsched_prio_order order;
        tsched_kcut_algo algo;
        uint32_t first;
    } cases[] = {{TSCHED_PRIO_ORDER_CRUX, TSCHED_KCUT_CRUX, 0},
                 {TSCHED_PRIO_ORDER_SINCRONIA, TSCHED_KCUT_SINCRONIA, 1},
                 {TSCHED_PRIO_ORDER_VARYS, TSCHED_KCUT_VARYS, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tsched_priorities *p = prio(t, js, cases[c].order, cases[c].algo, 2);
        uint32_t first = cases[c].first, other = 1 - first;
        ck_assert_msg(tsched_priorities_order(p, first) == 0 && tsched_priorities_order(p, other) == 1,
                      "order %s: job %u should come first", tsched_prio_order_name(cases[c].order), first);
        ck_assert_uint_eq(tsched_priorities_level(p, first), 0);
        ck_assert_uint_eq(tsched_priorities_level(p, other), 1);
        /* the intensities are reported whatever the order */
        ck_assert_double_eq_tol(tsched_priorities_intensity(p, big), 1000.0, 1e-9);
        ck_assert_double_eq_tol(tsched_priorities_intensity(p, small), 100.0, 1e-9);
        ck_assert_uint_eq(tsched_priorities_dag_edges(p), 1);
        char *json;
        ck_assert_ok(tsched_priorities_to_json(&json, p, js));
        /* a baseline names itself; CRUX's document keeps its fields */
        ck_assert_int_eq(strstr(json, "\"ordering\"") != NULL, cases[c].order != TSCHED_PRIO_ORDER_CRUX);
        tsched_free(json);
        tsched_priorities_free(p);
    }
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* A three-tier fabric: 2 pods of 2 leaves, one spine per pod, one core, 2 nodes per leaf
 * (node0, node1 on leaf0; node2, node3 on leaf1; node4.. in pod 1). */
static tsched_topology *two_pods(void) { return tu_gen_clos3(2, 2, 1, 1, 2, 8, 1, 100, 1); }

/* TACCL* (CRUX footnote 3) prioritises the traffic with the longer transmission distance.
 * `near` sends node0 -> node2 inside pod 0 (leaf0, spine0, leaf1: 2 fabric links) and is
 * GPU-intensive (1000 TFLOP); `far` sends node1 -> node4 across pods (leaf0, spine0, core0,
 * spine1, leaf2: 4 links) with 10 TFLOP. Both cross leaf0 -> spine0 with 100 Gbit each.
 * CRUX: `near` first (I = 1000 vs 10); TACCL*: `far` first (distance 4 vs 2). */
START_TEST(far_job_first_under_taccl)
{
    tsched_topology *t = two_pods();
    tsched_jobset *js;
    ck_assert_ok(tsched_jobset_new(&js, t));
    uint32_t near, far;
    ck_assert_ok(tsched_jobset_add_job(&near, js, "near", 16, 1000, 500, 0));
    ck_assert_ok(tsched_jobset_add_job(&far, js, "far", 16, 10, 500, 0));
    ck_assert_ok(tsched_jobset_add_flow(js, near, tu_node(t, "node0"), 0, tu_node(t, "node2"), 0, 100, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, far, tu_node(t, "node1"), 0, tu_node(t, "node4"), 0, 100, NULL));
    tsched_priorities *c = prio(t, js, TSCHED_PRIO_ORDER_CRUX, TSCHED_KCUT_CRUX, 2);
    tsched_priorities *x = prio(t, js, TSCHED_PRIO_ORDER_TACCL, TSCHED_KCUT_SINCRONIA, 2);
    ck_assert_uint_eq(tsched_priorities_order(c, near), 0);
    ck_assert_uint_eq(tsched_priorities_level(c, near), 0);
    ck_assert_uint_eq(tsched_priorities_level(c, far), 1);
    ck_assert_uint_eq(tsched_priorities_order(x, far), 0);
    ck_assert_uint_eq(tsched_priorities_level(x, far), 0);
    ck_assert_uint_eq(tsched_priorities_level(x, near), 1);
    tsched_priorities_free(c);
    tsched_priorities_free(x);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* ---- brute-force references on random job sets --------------------------------------------- */

/* A two-tier fabric of L leaves and S spines, one link per trunk of a random capacity, `npl`
 * nodes per leaf with one NIC each of a random capacity (so that loads rarely tie). */
typedef struct rfab {
    tsched_topology *t;
    uint32_t L, S, N, npl;
    double nic[16], trunk[8][4]; /* per node; per (leaf, spine) */
} rfab;

static void rfab_make(rfab *f, tu_rng *r)
{
    f->L = 2 + tu_rng_below(r, 3);
    f->S = 1 + tu_rng_below(r, 3);
    f->npl = 1 + tu_rng_below(r, 3);
    f->N = f->L * f->npl;
    char a[16], b[16];
    ck_assert_ok(tsched_topology_new(&f->t, "rand"));
    for (uint32_t s = 0; s < f->S; s++) {
        snprintf(a, sizeof a, "S%u", s);
        ck_assert_ok(tsched_topology_add_switch(NULL, f->t, a, 1, NULL));
    }
    for (uint32_t l = 0; l < f->L; l++) {
        snprintf(a, sizeof a, "L%u", l);
        ck_assert_ok(tsched_topology_add_switch(NULL, f->t, a, 0, NULL));
        for (uint32_t s = 0; s < f->S; s++) {
            snprintf(b, sizeof b, "S%u", s);
            f->trunk[l][s] = 50 + 200 * tu_rng_unit(r);
            ck_assert_ok(tsched_topology_add_link(f->t, a, b, f->trunk[l][s], 1));
        }
        for (uint32_t k = 0; k < f->npl; k++) {
            uint32_t n = l * f->npl + k;
            snprintf(b, sizeof b, "n%u", n);
            f->nic[n] = 50 + 200 * tu_rng_unit(r);
            ck_assert_ok(tsched_topology_add_node(NULL, f->t, b, a, 8, 1, NULL, f->nic[n]));
        }
    }
    ck_assert_ok(tsched_topology_build(f->t));
}

/* The test's own link numbering: NIC up of node n, NIC down of node n, leaf l up to spine s,
 * spine s down to leaf l. */
#define NL_MAX (2 * 16 + 2 * 8 * 4)
static uint32_t l_up(const rfab *f, uint32_t n)
{
    (void)f;
    return n;
}
static uint32_t l_down(const rfab *f, uint32_t n) { return f->N + n; }
static uint32_t l_tup(const rfab *f, uint32_t l, uint32_t s) { return 2 * f->N + l * f->S + s; }
static uint32_t l_tdown(const rfab *f, uint32_t l, uint32_t s) { return 2 * f->N + f->L * f->S + l * f->S + s; }

/* Random jobs (2 to 7, 1 to 4 flows each between random NICs), every cross-leaf flow pinned
 * to a random spine. T[j][e] receives each job's seconds on each link (volumes summed in
 * flow order, as the module does), dist[j] its gigabit-weighted fabric hops. */
static uint32_t random_set(tsched_jobset **out, double T[8][NL_MAX], double *dist, const rfab *f, tu_rng *r)
{
    uint32_t n = 2 + tu_rng_below(r, 6);
    tsched_jobset *js;
    ck_assert_ok(tsched_jobset_new(&js, f->t));
    double M[8][NL_MAX];
    memset(M, 0, sizeof M);
    for (uint32_t j = 0; j < n; j++) {
        char name[16];
        snprintf(name, sizeof name, "j%u", j);
        ck_assert_ok(tsched_jobset_add_job(NULL, js, name, 8, 1 + 100 * tu_rng_unit(r), 1 + 100 * tu_rng_unit(r),
                                           tu_rng_unit(r)));
        uint32_t nf = 1 + tu_rng_below(r, 4);
        double hops = 0, vol = 0;
        for (uint32_t k = 0; k < nf; k++) {
            uint32_t a = tu_rng_below(r, f->N), b = tu_rng_below(r, f->N - 1);
            b += b >= a;
            double g = 1 + 99 * tu_rng_unit(r);
            uint32_t la = a / f->npl, lb = b / f->npl;
            tsched_path p;
            memset(&p, 0, sizeof p);
            p.size = sizeof p;
            p.nswitches = 1;
            char an[16];
            snprintf(an, sizeof an, "L%u", la);
            p.switches[0] = tu_sw(f->t, an);
            M[j][l_up(f, a)] += g;
            uint32_t h = 0;
            if (la != lb) {
                uint32_t s = tu_rng_below(r, f->S);
                char ln[16], sn[16], bn[16];
                snprintf(ln, sizeof ln, "L%u", la);
                snprintf(sn, sizeof sn, "S%u", s);
                snprintf(bn, sizeof bn, "L%u", lb);
                uint32_t tr0 = tu_trunk(f->t, ln, sn), tr1 = tu_trunk(f->t, bn, sn);
                p.nswitches = 3;
                p.switches[1] = tu_sw(f->t, sn);
                p.switches[2] = tu_sw(f->t, bn);
                p.links[0] = 2 * tr0 + (tsched_topology_trunk_lower(f->t, tr0) == p.switches[0] ? 0 : 1);
                p.links[1] = 2 * tr1 + (tsched_topology_trunk_lower(f->t, tr1) == p.switches[2] ? 1 : 0);
                M[j][l_tup(f, la, s)] += g;
                M[j][l_tdown(f, lb, s)] += g;
                h = 2;
            }
            M[j][l_down(f, b)] += g;
            hops += g * h;
            vol += g;
            ck_assert_ok(tsched_jobset_add_flow(js, j, a, 0, b, 0, g, &p));
        }
        dist[j] = hops / vol;
        for (uint32_t e = 0; e < NL_MAX; e++) {
            double cap = e < f->N ? f->nic[e] : e < 2 * f->N ? f->nic[e - f->N] : 0;
            if (e >= 2 * f->N) {
                uint32_t x = e - 2 * f->N, half = f->L * f->S;
                cap = x < 2 * half ? f->trunk[(x % half) / f->S][(x % half) % f->S] : 0;
            }
            T[j][e] = M[j][e] > 0 ? M[j][e] / cap : 0;
        }
    }
    *out = js;
    return n;
}

/* Sincronia's BSSI written out directly: O(n^2 m). Weights 1; the bottleneck is the link
 * with the largest total time of the jobs left (sums in job order), the job put last the one
 * on it with the largest t / w (w = 0: infinite; ties: the higher index); the others on it
 * lose w_last * t_j / t_last of their weight. */
static void bssi_ref(uint32_t *order, double T[8][NL_MAX], uint32_t n)
{
    double w[8];
    int alive[8];
    for (uint32_t j = 0; j < n; j++) {
        w[j] = 1;
        alive[j] = 1;
    }
    for (uint32_t pos = n; pos-- > 0;) {
        uint32_t b = 0;
        double best = -1;
        for (uint32_t e = 0; e < NL_MAX; e++) {
            double s = 0;
            for (uint32_t j = 0; j < n; j++)
                if (alive[j] && T[j][e] > 0)
                    s += T[j][e];
            if (s > best) {
                best = s;
                b = e;
            }
        }
        uint32_t last = n;
        double lr = -1;
        for (uint32_t j = 0; j < n; j++) {
            if (!alive[j] || !(T[j][b] > 0))
                continue;
            double rr = w[j] > 0 ? T[j][b] / w[j] : INFINITY;
            if (rr >= lr) {
                lr = rr;
                last = j;
            }
        }
        ck_assert_uint_lt(last, n);
        order[pos] = last;
        alive[last] = 0;
        for (uint32_t j = 0; j < n; j++)
            if (alive[j] && T[j][b] > 0) {
                w[j] -= w[last] * T[j][b] / T[last][b];
                if (w[j] < 0)
                    w[j] = 0;
            }
    }
}

/* Sort jobs by key (increasing; ties to the lower index): the SEBF and TACCL* references. */
static void sort_ref(uint32_t *order, const double *key, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        order[j] = j;
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t k = i; k > 0 && key[order[k]] < key[order[k - 1]]; k--) {
            uint32_t x = order[k];
            order[k] = order[k - 1];
            order[k - 1] = x;
        }
}

START_TEST(orders_match_direct_references)
{
    tu_rng r = tu_rng_new(23);
    unsigned differ[4] = {0, 0, 0, 0};
    for (unsigned rep = 0; rep < tu_n(300); rep++) {
        rfab f;
        rfab_make(&f, &r);
        static double T[8][NL_MAX];
        double dist[8], gamma[8], negd[8];
        tsched_jobset *js;
        uint32_t n = random_set(&js, T, dist, &f, &r);
        uint32_t want[3][8];
        bssi_ref(want[0], T, n);
        for (uint32_t j = 0; j < n; j++) {
            gamma[j] = 0;
            for (uint32_t e = 0; e < NL_MAX; e++)
                gamma[j] = T[j][e] > gamma[j] ? T[j][e] : gamma[j];
            negd[j] = -dist[j];
        }
        sort_ref(want[1], gamma, n);
        sort_ref(want[2], negd, n);
        tsched_priorities *crux = prio(f.t, js, TSCHED_PRIO_ORDER_CRUX, TSCHED_KCUT_CRUX, 3);
        static const tsched_prio_order ords[3] = {TSCHED_PRIO_ORDER_SINCRONIA, TSCHED_PRIO_ORDER_VARYS,
                                                  TSCHED_PRIO_ORDER_TACCL};
        for (int o = 0; o < 3; o++) {
            tsched_priorities *p = prio(f.t, js, ords[o], TSCHED_KCUT_SINCRONIA, 3);
            int same = 1;
            for (uint32_t k = 0; k < n; k++) {
                ck_assert_msg(tsched_priorities_order(p, want[o][k]) == k, "rep %u order %s: position %u is job %u",
                              rep, tsched_prio_order_name(ords[o]), k, want[o][k]);
                same &= tsched_priorities_order(p, k) == tsched_priorities_order(crux, k);
                /* the order feeds Sincronia's compression: the first K-1 jobs a level each */
                uint32_t pos = tsched_priorities_order(p, k);
                ck_assert_uint_eq(tsched_priorities_level(p, k), pos < 2 ? pos : 2);
            }
            differ[o] += !same;
            tsched_priorities_free(p);
        }
        tsched_priorities_free(crux);
        tsched_jobset_free(js);
        tsched_topology_free(f.t);
    }
    /* the references are not CRUX's order in disguise */
    for (int o = 0; o < 3; o++)
        ck_assert_msg(differ[o] > tu_n(300) / 4, "order %d differs from crux in %u sets only", o, differ[o]);
}
END_TEST

/* ---- options, names, member links ------------------------------------------------------------ */

START_TEST(order_names_and_options)
{
    static const char *const names[] = {"crux", "sincronia", "varys", "taccl"};
    for (int i = 0; i < 4; i++) {
        tsched_prio_order o;
        ck_assert_ok(tsched_prio_order_from_name(&o, names[i]));
        ck_assert_int_eq(o, i);
        ck_assert_str_eq(tsched_prio_order_name(o), names[i]);
    }
    tsched_prio_order o;
    ck_assert_status(tsched_prio_order_from_name(&o, "cassini?"), TSCHED_E_FORMAT);
    ck_assert_str_eq(tsched_prio_order_name((tsched_prio_order)9), "?");
    /* an options struct that ends before `order` gets crux; a bad order is refused */
    tsched_topology *t = tu_two_leaves(100, 100, 8);
    tsched_jobset *js;
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "big", 16, 1000, 500, 0));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "small", 16, 10, 500, 0));
    ck_assert_ok(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 100, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, 1, 1, 0, 3, 0, 10, NULL));
    tsched_prio_options op;
    tsched_prio_options_init(&op);
    ck_assert_int_eq(op.order, TSCHED_PRIO_ORDER_CRUX);
    op.order = TSCHED_PRIO_ORDER_VARYS;
    op.size = offsetof(tsched_prio_options, order);
    tsched_priorities *p;
    ck_assert_ok(tsched_prioritize(&p, t, js, &op));
    ck_assert_uint_eq(tsched_priorities_order(p, 0), 0); /* crux: big first */
    tsched_priorities_free(p);
    op.size = sizeof op;
    ck_assert_ok(tsched_prioritize(&p, t, js, &op));
    ck_assert_uint_eq(tsched_priorities_order(p, 1), 0); /* varys: small first */
    tsched_priorities_free(p);
    op.order = (tsched_prio_order)7;
    ck_assert_status(tsched_prioritize(&p, t, js, &op), TSCHED_E_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(tsched_last_error(), "order"));
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* Directed member link k of the trunk between switches a and b, going up (d 0) or down. */
static uint32_t dmember(const tsched_topology *t, const char *a, const char *b, uint32_t k, uint32_t d)
{
    return 2 * (tsched_topology_trunk_first_member(t, tu_trunk(t, a, b)) + k) + d;
}

/* Two trunks of 2 members of 100 Gbit/s (200 a trunk), NICs 400: job a sends n0 -> n2, job b
 * n1 -> n3, 50 Gbit each. On trunk paths they share leaf0 -> spine0 -> leaf1: one contention
 * edge, t = 50 / 200. Pinned to different members they share no link: no edge, and each
 * job's bottleneck is its member, t = 50 / 100. On the same members: the edge again. */
START_TEST(member_flows_contend_per_member)
{
    tsched_topology *t = tu_two_leaves_members(100, 2, 400, 8);
    for (int mode = 0; mode < 3; mode++) { /* 0 trunk, 1 different members, 2 same members */
        tsched_jobset *js;
        ck_assert_ok(tsched_jobset_new(&js, t));
        ck_assert_ok(tsched_jobset_add_job(NULL, js, "a", 16, 100, 500, 0));
        ck_assert_ok(tsched_jobset_add_job(NULL, js, "b", 16, 10, 500, 0));
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t k = mode == 1 ? j : 0;
            uint32_t m[2] = {dmember(t, "leaf0", "spine0", k, 0), dmember(t, "leaf1", "spine0", k, 1)};
            if (mode == 0)
                ck_assert_ok(tsched_jobset_add_flow(js, j, j, 0, 2 + j, 0, 50, NULL));
            else
                ck_assert_ok(tsched_jobset_add_member_flow(js, j, j, 0, 2 + j, 0, 50, m, 2));
        }
        tsched_priorities *p = prio(t, js, TSCHED_PRIO_ORDER_CRUX, TSCHED_KCUT_CRUX, 2);
        ck_assert_uint_eq(tsched_priorities_dag_edges(p), mode == 1 ? 0 : 1);
        ck_assert_double_eq_tol(tsched_priorities_intensity(p, 0), 100.0 / (mode == 0 ? 0.25 : 0.5), 1e-9);
        tsched_priorities_free(p);
        tsched_jobset_free(js);
    }
    /* errors: not a member, a chain that does not continue the path; nothing is added */
    tsched_jobset *js;
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "a", 16, 100, 500, 0));
    uint32_t bad[2] = {2 * tsched_topology_num_members(t), dmember(t, "leaf1", "spine0", 0, 1)};
    ck_assert_status(tsched_jobset_add_member_flow(js, 0, 0, 0, 2, 0, 50, bad, 2), TSCHED_E_INVALID);
    ck_assert_ptr_nonnull(strstr(tsched_last_error(), "members[0]"));
    uint32_t wrong[2] = {dmember(t, "leaf1", "spine0", 0, 0), dmember(t, "leaf0", "spine0", 0, 1)};
    ck_assert_status(tsched_jobset_add_member_flow(js, 0, 0, 0, 2, 0, 50, wrong, 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_add_member_flow(js, 0, 0, 0, 2, 0, 50, NULL, 2), TSCHED_E_INVALID);
    ck_assert_uint_eq(js->nflows, 0);
    ck_assert_uint_eq(js->member_flows, 0);
    /* both NICs on one leaf: no hop, members may be NULL */
    ck_assert_ok(tsched_jobset_add_member_flow(js, 0, 0, 0, 1, 0, 50, NULL, 0));
    ck_assert_uint_eq(js->nflows, 1);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* ---- the simulator's rows ----------------------------------------------------------------------- */

/* Two jobs on fixed nodes with one explicit flow each, running together: the levels of the
 * priority row after the first batch (the jobs iterate for far longer). */
static void sim_levels(uint32_t *lev, tsched_topology *t, const char *prio_row, const char *links, const char *ja,
                       const char *jb)
{
    char trace[2048];
    snprintf(trace, sizeof trace, "{\"format\":\"tsched.trace.v1\",\"jobs\":[%s,%s]}", ja, jb);
    tsched_sim *s = tu_sim_new(t);
    ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, prio_row));
    ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, links));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_LEVELS, 2));
    ck_assert_ok(tsched_sim_run_until(s, 1000000)); /* 1 ms */
    tsched_sim_result *r;
    ck_assert_ok(tsched_sim_result_new(&r, s));
    lev[0] = tu_sim_job(r, 0).level;
    lev[1] = tu_sim_job(r, 1).level;
    tsched_sim_result_free(r);
    tsched_sim_free(s);
}

#define SIM_JOB(name, n0, n1, work, gbits)                                                                         \
    "{\"name\":\"" name "\",\"nodes\":[\"" n0 "\",\"" n1 "\"],\"compute_ms\":500,\"work_tflop\":" work             \
    ",\"iterations\":50,\"phases\":[{\"flows\":[{\"src\":0,\"dst\":1,\"gbits\":" gbits "}]}]}"

/* The hand cases of the module run through the simulator: `crux` puts the GPU-intensive job
 * at level 0, `sincronia` and `varys` the small one, `taccl` the far one. */
START_TEST(sim_rows_differ_from_crux)
{
    tsched_topology *t = tu_two_leaves(100, 100, 8);
    static const char *const rows[] = {"crux", "sincronia", "varys"};
    for (int l = 0; l < 2; l++)
        for (int k = 0; k < 3; k++) {
            uint32_t lev[2];
            sim_levels(lev, t, rows[k], l ? "member" : "trunk", SIM_JOB("big", "n0", "n2", "1000", "100"),
                       SIM_JOB("small", "n1", "n3", "10", "10"));
            uint32_t first = k == 0 ? 0 : 1;
            ck_assert_msg(lev[first] == 0 && lev[1 - first] == 1, "row %s: levels %u %u", rows[k], lev[0], lev[1]);
        }
    tsched_topology_free(t);
    t = two_pods();
    for (int k = 0; k < 2; k++) {
        uint32_t lev[2];
        sim_levels(lev, t, k ? "taccl" : "crux", "trunk", SIM_JOB("near", "node0", "node2", "1000", "100"),
                   SIM_JOB("far", "node1", "node4", "10", "100"));
        ck_assert_msg(lev[k] == 0 && lev[1 - k] == 1, "row %s: levels %u %u", k ? "taccl" : "crux", lev[0], lev[1]);
    }
    tsched_topology_free(t);
}
END_TEST

/* Member mode gives the priority module the member links the flows use: two jobs on one
 * trunk of 2 members (ECMP-free: `greedy` picks the least-loaded member, so the second job
 * takes the other member) do not contend, and CRUX leaves both at level 0; in trunk mode
 * they share the trunk and get two levels. */
START_TEST(sim_member_mode_uses_members)
{
    tsched_topology *t = tu_two_leaves_members(100, 2, 100, 8);
    for (int l = 0; l < 2; l++) {
        uint32_t lev[2];
        sim_levels(lev, t, "crux", l ? "member" : "trunk", SIM_JOB("big", "n0", "n2", "1000", "100"),
                   SIM_JOB("small", "n1", "n3", "10", "10"));
        if (l)
            ck_assert_msg(lev[0] == 0 && lev[1] == 0, "member mode: levels %u %u", lev[0], lev[1]);
        else
            ck_assert_msg(lev[0] == 0 && lev[1] == 1, "trunk mode: levels %u %u", lev[0], lev[1]);
    }
    tsched_topology_free(t);
}
END_TEST

/* Issue 23: routing `ideal` under crux, sincronia, varys and taccl, in trunk and member mode,
 * on a leaf-spine with 2 members a trunk, a three-tier Clos and rail-free multi-NIC nodes:
 * every run ends with every job done. */
START_TEST(ideal_runs_under_every_computed_priority)
{
    static const char *const rows[] = {"crux", "sincronia", "varys", "taccl"};
    static const char trace[] =
        "{\"format\":\"tsched.trace.v1\",\"jobs\":["
        "{\"name\":\"a\",\"gpus\":16,\"compute_ms\":10,\"iterations\":3,\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":4}]},"
        "{\"name\":\"b\",\"gpus\":32,\"compute_ms\":20,\"iterations\":2,\"phases\":[{\"pattern\":\"alltoall\",\"gbits\":2}]},"
        "{\"name\":\"c\",\"gpus\":16,\"pp\":2,\"compute_ms\":5,\"iterations\":4,\"phases\":[{\"pattern\":\"pp\",\"gbits\":1}]}]}";
    for (int f = 0; f < 3; f++)
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < 4; k++) {
                tsched_topology *t = f == 0   ? tu_gen_leaf_spine(4, 2, 2, 8, 1, 100, 2, 0)
                                     : f == 1 ? tu_gen_clos3(2, 2, 2, 2, 2, 8, 1, 100, 1)
                                              : tu_gen_leaf_spine(4, 2, 2, 8, 4, 100, 0, 2);
                tsched_sim *s = tu_sim_new(t);
                ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, "ideal"));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, "random-fit"));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, rows[k]));
                ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_LINKS, l ? "member" : "trunk"));
                tsched_sim_result *r = tu_sim_run(s);
                tsched_sim_summary sm = tu_sim_summary(r);
                ck_assert_msg(sm.status == TSCHED_SIM_DONE, "fabric %d links %d row %s: status %d", f, l, rows[k],
                              (int)sm.status);
                tsched_sim_result_free(r);
                tsched_sim_free(s);
                tsched_topology_free(t);
            }
}
END_TEST

int main(void)
{
    Suite *su = suite_create("prio-baselines");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, small_job_first_under_sincronia_and_varys);
    tcase_add_test(tc, far_job_first_under_taccl);
    tcase_add_test(tc, orders_match_direct_references);
    tcase_add_test(tc, order_names_and_options);
    tcase_add_test(tc, member_flows_contend_per_member);
    tcase_add_test(tc, sim_rows_differ_from_crux);
    tcase_add_test(tc, sim_member_mode_uses_members);
    tcase_add_test(tc, ideal_runs_under_every_computed_priority);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
