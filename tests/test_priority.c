/* CRUX on job sets (seed 001, §3-§4.3): the two-job iteration model against the paper's
 * Examples 1 and 2, GPU intensity (Def. 2) on hand-built fabrics, intensity-ordered path
 * selection replayed by hand, correction factors and priorities, the contention DAG,
 * tsched.jobset.v1 errors and tsched.priorities.v1. The compressor's own tests
 * (tests/test_priority_kcut.c) run in the same suite. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priority/crux_internal.h"
#include "test_util.h"

#define TJS sizeof(tsched_twojob)

TCase *priority_kcut_tcase(void);

/* ---- helpers ------------------------------------------------------------------------- */

/* A two-tier fabric built by hand: leaves L0.., spines S0.., `npl` nodes n0.. per leaf
 * (8 GPUs, one NIC of `nic` Gbit/s); every leaf links to spine s with one link of
 * gbps[s]. */
static tsched_topology *fabric(uint32_t nl, uint32_t ns, uint32_t npl, double nic, const double *gbps)
{
    tsched_topology *t;
    char a[16], b[16];
    ck_assert_ok(tsched_topology_new(&t, "hand"));
    for (uint32_t s = 0; s < ns; s++) {
        snprintf(a, sizeof a, "S%u", s);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 1, NULL));
    }
    for (uint32_t l = 0; l < nl; l++) {
        snprintf(a, sizeof a, "L%u", l);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, a, 0, NULL));
        for (uint32_t s = 0; s < ns; s++) {
            snprintf(b, sizeof b, "S%u", s);
            ck_assert_ok(tsched_topology_add_link(t, a, b, gbps[s], 1));
        }
        for (uint32_t k = 0; k < npl; k++) {
            snprintf(b, sizeof b, "n%u", l * npl + k);
            ck_assert_ok(tsched_topology_add_node(NULL, t, b, a, 8, 1, NULL, nic));
        }
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

static tsched_jobset *load_set(const tsched_topology *t, const char *json)
{
    tsched_jobset *js = NULL;
    ck_assert_ok(tsched_jobset_load_string(&js, t, json, strlen(json)));
    ck_assert_ptr_nonnull(js);
    return js;
}

static tsched_priorities *run(const tsched_topology *t, const tsched_jobset *js, uint32_t levels)
{
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    o.levels = levels;
    tsched_priorities *p = NULL;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    ck_assert_ptr_nonnull(p);
    return p;
}

static json_t *to_json(const tsched_priorities *p, const tsched_jobset *js)
{
    char *s = NULL;
    ck_assert_ok(tsched_priorities_to_json(&s, p, js));
    json_error_t err;
    json_t *root = json_loads(s, 0, &err);
    ck_assert_msg(root != NULL, "bad JSON: %s", err.text);
    tsched_free(s);
    return root;
}

#define ck_near(x, want, tol)                                                                                      \
    do {                                                                                                           \
        double ck_x_ = (x), ck_w_ = (want);                                                                        \
        ck_assert_msg(fabs(ck_x_ - ck_w_) <= (tol), "%s = %.17g, expected %.17g", #x, ck_x_, ck_w_);               \
    } while (0)

/* ---- the two-job model ------------------------------------------------------------- */

/* Example 1 (Figure 11): job 1 computes 2 s then sends 2 s, job 2 computes 1 s then sends
 * 1 s, no overlap, 10 GPUs each. Job 1 first: per 12 s the link carries 6 s of job 1 and
 * 3 s of job 2, GPUs compute 6 s and 3 s: (10*6 + 10*3) / (20*12) = 37.5%. Job 2 first:
 * 4 s and 6 s of link, 4 s and 6 s of computing: 100/240 = 41.7%. */
START_TEST(example1_steady_state)
{
    tsched_twojob j1 = {TJS, 2000, 2000, 0, 10}, j2 = {TJS, 1000, 1000, 0, 10};
    double sa, sb, u;
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &j1, &j2, 1));
    ck_near(u, 0.375, 1e-9);
    ck_near(sa, 6.0 / 12, 1e-9);
    ck_near(sb, 3.0 / 12, 1e-9);
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &j1, &j2, 0));
    ck_near(u, 5.0 / 12, 1e-9);
    ck_near(sa, 4.0 / 12, 1e-9);
    ck_near(sb, 6.0 / 12, 1e-9);
    /* the same with the arguments swapped */
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &j2, &j1, 1));
    ck_near(u, 5.0 / 12, 1e-9);
    ck_near(sa, 6.0 / 12, 1e-9);
    ck_near(sb, 4.0 / 12, 1e-9);

    /* the periods themselves: job 1 first repeats every 4 s (from t = 6 s on: job 1 sends
     * [6,8], job 2 [8,9], both ready again at 10), job 2 first every 6 s */
    ts_twojob_result r;
    ck_assert_ok(ts_twojob_steady(&r, &j1, &j2, 1));
    ck_assert_int_eq(r.exact, 1);
    ck_near(r.period_ms, 4000, 0);
    ck_near(r.link_ms[0], 2000, 0);
    ck_near(r.link_ms[1], 1000, 0);
    ck_near(r.compute_ms[0], 2000, 0);
    ck_near(r.compute_ms[1], 1000, 0);
    ck_assert_ok(ts_twojob_steady(&r, &j1, &j2, 0));
    ck_assert_int_eq(r.exact, 1);
    ck_near(r.period_ms, 6000, 0);
    ck_near(r.link_ms[0], 2000, 0);
    ck_near(r.link_ms[1], 3000, 0);

    /* Delta_1 = 6/12 - 4/12 (job 1 is the reference), Delta_2 = 6/12 - 3/12: k_2 = 1.5;
     * seen from job 2 as the reference, k_1 = (2/12) / (3/12) */
    double k;
    ck_assert_ok(ts_crux_factor(&k, &j2, &j1));
    ck_near(k, 1.5, 0);
    ck_assert_ok(ts_crux_factor(&k, &j1, &j2));
    ck_near(k, 2.0 / 3, 1e-12);
}
END_TEST

/* Example 2 (Figure 12): job 1 (2 GPUs) computes 4 s and sends 1 s, job 2 (12 GPUs)
 * computes 2 s and sends 3 s, both release their traffic halfway through the computation.
 *
 * What the model gives. In steady state the order does not matter: job 1's sending has a
 * slack of 1 s inside its computation, so either order locks into a phase where the two
 * jobs take turns without waiting (both iterate every 4 s; link shares 1/4 and 3/4;
 * utilisation (2*4 + 12*2) / (14*4) = 4/7 in both orders). The difference is the
 * transient from the synchronised start the paper draws: with job 1 first, job 2's first
 * two iterations stretch to 5 s (it computes [0,2], [5,7], [10,12] in the first 13 s: idle
 * 7 s); with job 2 first, it computes [0,2], [4,6], [8,10], [12,13]: idle 6 s, the
 * paper's numbers. The correction factor therefore falls back to the link time each job
 * gets from the start until both runs have settled (16 s here): job 2 (the reference, more
 * traffic) gets 12 s first vs 10 s second, job 1 4 s vs 3 s: k_1 = 1/2, so job 2 goes
 * first. */
START_TEST(example2_transient)
{
    tsched_twojob j1 = {TJS, 4000, 1000, 0.5, 2}, j2 = {TJS, 2000, 3000, 0.5, 12};
    double sa, sb, u1, u2;
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u1, &j1, &j2, 1));
    ck_near(sa, 0.25, 1e-12);
    ck_near(sb, 0.75, 1e-12);
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u2, &j1, &j2, 0));
    ck_near(sa, 0.25, 1e-12);
    ck_near(sb, 0.75, 1e-12);
    ck_near(u1, 4.0 / 7, 1e-12);
    ck_near(u2, 4.0 / 7, 1e-12);

    /* the paper's idle times of job 2's GPUs over the first 13 s */
    ts_twojob_result r;
    ck_assert_ok(ts_twojob_window(&r, &j1, &j2, 1, 13000));
    ck_near(13000 - r.compute_ms[1], 7000, 0);
    ck_near(13000 - r.compute_ms[0], 0, 0); /* job 1 never waits */
    ck_assert_ok(ts_twojob_window(&r, &j1, &j2, 0, 13000));
    ck_near(13000 - r.compute_ms[1], 6000, 0);
    ck_near(13000 - r.compute_ms[0], 1000, 0); /* job 1's first send waits for [4,5] */

    /* settling: job 1 first repeats from 12 s, job 2 first from 8 s, both every 4 s */
    ck_assert_ok(ts_twojob_steady(&r, &j1, &j2, 1));
    ck_near(r.start_ms, 12000, 0);
    ck_near(r.period_ms, 4000, 0);
    ck_assert_ok(ts_twojob_steady(&r, &j1, &j2, 0));
    ck_near(r.start_ms, 8000, 0);
    ck_assert_ok(ts_twojob_window(&r, &j1, &j2, 0, 16000));
    ck_near(r.link_ms[1], 12000, 0);
    ck_near(r.link_ms[0], 3000, 0);
    ck_assert_ok(ts_twojob_window(&r, &j1, &j2, 1, 16000));
    ck_near(r.link_ms[1], 10000, 0);
    ck_near(r.link_ms[0], 4000, 0);

    double k;
    ck_assert_ok(ts_crux_factor(&k, &j1, &j2));
    ck_near(k, 0.5, 0);
}
END_TEST

START_TEST(twojob_special_cases)
{
    double sa, sb, u;
    /* job a sends all the time (fully overlapped, sending longer than computing): b starves */
    tsched_twojob a = {TJS, 100, 300, 1, 8}, b = {TJS, 300, 100, 0.3, 16};
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &a, &b, 1));
    ck_near(sa, 1, 0);
    ck_near(sb, 0, 0);
    ck_near(u, 8 * 100.0 / (24 * 300.0), 1e-12);

    /* no contention at all: overlap 1 and long computations, the shares are X / C */
    tsched_twojob c = {TJS, 1e6, 1000, 1, 4}, d = {TJS, 1e6, 2000, 1, 4};
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &c, &d, 0));
    ck_near(sa, 1e-3, 1e-15);
    ck_near(sb, 2e-3, 1e-15);
    ck_near(u, 1, 0);
    double k;
    ck_assert_ok(ts_crux_factor(&k, &c, &d));
    ck_near(k, 1, 0);
    ts_twojob_result r0;

    /* the reference loses nothing: gpt's 400 ms of sending (released at 600 ms) have 200 ms
     * of slack inside its 1200 ms computation, so bert's traffic never delays it, while bert
     * gets 320 ms of link per 1200 ms when first and 240 ms when second. Delta_r = 0 <
     * Delta_j: bert gets the largest factor, 1000; the other way round the smallest. */
    tsched_twojob gpt = {TJS, 1200, 400, 0.5, 32}, bert = {TJS, 300, 80, 0.3, 16};
    ck_assert_ok(ts_twojob_steady(&r0, &bert, &gpt, 0));
    ck_near(r0.link_ms[0] / r0.period_ms, 240.0 / 1200, 1e-12);
    ck_near(r0.link_ms[1] / r0.period_ms, 400.0 / 1200, 1e-12);
    ck_assert_ok(ts_twojob_steady(&r0, &bert, &gpt, 1));
    ck_near(r0.link_ms[0] / r0.period_ms, 320.0 / 1200, 1e-12);
    ck_near(r0.link_ms[1] / r0.period_ms, 400.0 / 1200, 1e-12);
    ck_assert_ok(ts_crux_factor(&k, &bert, &gpt));
    ck_near(k, 1000, 0);
    ck_assert_ok(ts_crux_factor(&k, &gpt, &bert));
    ck_near(k, 1e-3, 0);

    /* incommensurate iteration times that barely interact: no exact period within the
     * budget, the averaged answer keeps the prioritised job exact (X / T) */
    tsched_twojob e = {TJS, 1200, 33.3333, 0.5, 64}, f = {TJS, 300.7, 100.1, 0.3, 16};
    ts_twojob_result r;
    ck_assert_ok(ts_twojob_steady(&r, &e, &f, 0));
    ck_assert_int_eq(r.exact, 0);
    ck_near(r.link_ms[1] / r.period_ms, 100.1 / (0.7 * 300.7 + 100.1), 1e-9);
    ck_near(r.link_ms[0] / r.period_ms, 33.3333 / 1200, 1e-9);
    ck_assert_ok(ts_twojob_steady(&r, &e, &f, 1));
    ck_assert_int_eq(r.exact, 1);
    ck_near(r.link_ms[0] / r.period_ms, 33.3333 / 1200, 1e-9);
}
END_TEST

/* Shares are shares, utilisation is a fraction, the prioritised job always gets X / T, and
 * both orders are answered alike whichever argument holds the job. */
START_TEST(twojob_properties)
{
    static const double cs[] = {100, 250, 400, 1000};
    static const double xs[] = {50, 120, 400, 900};
    static const double os[] = {0, 0.3, 0.5, 1};
    int inexact = 0, cases = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j += 7) {
            tsched_twojob a = {TJS, cs[i % 4], xs[(i / 4) % 4], os[(i / 16) % 4], 1 + (uint32_t)i % 3};
            tsched_twojob b = {TJS, cs[j % 4], xs[(j / 4) % 4], os[(j / 16) % 4], 2};
            for (int first = 0; first < 2; first++) {
                ts_twojob_result r, s;
                ck_assert_ok(ts_twojob_steady(&r, &a, &b, first));
                ck_assert_ok(ts_twojob_steady(&s, &b, &a, !first));
                cases++;
                inexact += !r.exact;
                double sa = r.link_ms[0] / r.period_ms, sb = r.link_ms[1] / r.period_ms;
                ck_assert(sa >= 0 && sb >= 0 && sa + sb <= 1 + 1e-12);
                ck_assert(r.utilization > 0 && r.utilization <= 1 + 1e-12);
                ck_near(s.link_ms[1] / s.period_ms, sa, 1e-12);
                ck_near(s.link_ms[0] / s.period_ms, sb, 1e-12);
                const tsched_twojob *h = first ? &a : &b;
                double t0 = fmax(h->compute_ms, (1 - h->overlap) * h->compute_ms + h->comm_ms);
                ck_near(first ? sa : sb, h->comm_ms / t0, 1e-12);
                double k;
                ck_assert_ok(ts_crux_factor(&k, &a, &b));
                ck_assert(isfinite(k) && k >= 0);
            }
        }
    /* these round numbers always lock into an exact period */
    ck_assert_int_eq(inexact, 0);
    ck_assert_int_gt(cases, 0);
}
END_TEST

START_TEST(twojob_errors)
{
    tsched_twojob ok = {TJS, 100, 10, 0.5, 1};
    double sa, sb, u;
    tsched_twojob bad[] = {{TJS, 0, 10, 0.5, 1},        {TJS, 100, 0, 0.5, 1},        {TJS, 100, 10, -0.1, 1},
                           {TJS, 100, 10, 1.5, 1},      {TJS, 100, 10, 0.5, 0},       {TJS, NAN, 10, 0.5, 1},
                           {TJS, 100, INFINITY, 0.5, 1}, {TJS, 100, 10, NAN, 1},       {TJS, -5, 10, 0, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_status(tsched_twojob_steady(&sa, &sb, &u, &bad[i], &ok, 1), TSCHED_E_RANGE);
        ck_assert_errmsg_has("job a");
        ck_assert_status(tsched_twojob_steady(&sa, &sb, &u, &ok, &bad[i], 0), TSCHED_E_RANGE);
        ck_assert_errmsg_has("job b");
    }
    ck_assert_status(tsched_twojob_steady(&sa, &sb, &u, NULL, &ok, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_twojob_steady(&sa, &sb, &u, &ok, NULL, 1), TSCHED_E_INVALID);
    /* outputs are optional */
    ck_assert_ok(tsched_twojob_steady(NULL, NULL, NULL, &ok, &ok, 1));
    ts_twojob_result r;
    ck_assert_status(ts_twojob_window(&r, &ok, &ok, 1, 0), TSCHED_E_RANGE);
    ck_assert_status(ts_twojob_window(&r, &ok, &ok, 1, 1e300), TSCHED_E_TOO_LARGE);
}
END_TEST

/* ---- intensity and path selection ------------------------------------------------- */

/* Two leaves, two spines, trunks of 100 Gbit/s, NICs of 200 Gbit/s.
 * "spread" (W = 10 TFLOP): n0->n2 and n1->n3, 50 Gb each. Routed alone: the first flow ties
 * (0.5 on both spines) and takes S0, the second sees 1.0 on S0 and 0.5 on S1 and takes S1.
 * Every trunk direction it uses carries 50 Gb (50/100 = 0.5 s); every NIC link 50 Gb
 * (50/200 = 0.25 s): t = 0.5 s, I = 10 / 0.5 = 20 TFLOP/s.
 * "nic" (W = 3): n0->n1 twice, 100 Gb each, inside leaf L0: no trunk, but n0's NIC sends
 * 200 Gb at 200 Gbit/s: t = 1 s, I = 3. NIC links count.
 * Traffic (sum over links): spread 2 flows x 4 links x 50 = 400, nic 2 x 2 x 100 = 400: a
 * tie, the reference is the first job. Both use n0's NIC up-link: one DAG edge from spread
 * (P = 20) to nic (P = 3) of weight 20. */
START_TEST(intensity_by_hand)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 200, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"spread\", \"gpus\": 16, \"work_tflop\": 10, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 50}, {\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 50}]},"
           "{\"name\": \"nic\", \"gpus\": 8, \"work_tflop\": 3, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 100}, {\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 100}]}]}");
    ck_assert_uint_eq(tsched_jobset_count(js), 2);
    ck_assert_str_eq(tsched_jobset_name(js, 1), "nic");
    ck_assert_ptr_null(tsched_jobset_name(js, 2));
    tsched_priorities *p = run(t, js, 2);
    ck_near(tsched_priorities_intensity(p, 0), 20, 1e-12);
    ck_near(tsched_priorities_intensity(p, 1), 3, 1e-12);
    /* overlap 1 and 1000 s of computing: no contention effect, k = 1 */
    ck_near(tsched_priorities_factor(p, 0), 1, 0);
    ck_near(tsched_priorities_factor(p, 1), 1, 0);
    ck_near(tsched_priorities_priority(p, 0), 20, 1e-12);
    ck_assert_uint_eq(tsched_priorities_order(p, 0), 0);
    ck_assert_uint_eq(tsched_priorities_order(p, 1), 1);
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 1);
    ck_near(tsched_priorities_total_weight(p), 20, 1e-12);
    ck_near(tsched_priorities_cut_weight(p), 20, 1e-12);
    ck_assert_uint_eq(tsched_priorities_level(p, 0), 0);
    ck_assert_uint_eq(tsched_priorities_level(p, 1), 1);

    json_t *root = to_json(p, js);
    ck_assert_str_eq(json_string_value(json_object_get(root, "reference")), "spread");
    json_t *jobs = json_object_get(root, "jobs");
    ck_near(json_number_value(json_object_get(json_array_get(jobs, 0), "bottleneck_ms")), 500, 1e-9);
    ck_near(json_number_value(json_object_get(json_array_get(jobs, 1), "bottleneck_ms")), 1000, 1e-9);
    ck_near(json_number_value(json_object_get(json_array_get(jobs, 0), "traffic_gbits")), 400, 1e-9);
    ck_near(json_number_value(json_object_get(json_array_get(jobs, 1), "traffic_gbits")), 400, 1e-9);
    json_decref(root);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* One job's own flows: three flows n0->n2 of 10 Gb on two spines of 100 Gbit/s (NICs 400):
 * 0.1 vs 0.1 -> S0 (tie: first path); 0.2 vs 0.1 -> S1; 0.2 vs 0.2 -> S0. S0 carries 20 Gb
 * each way (0.2 s), S1 10 Gb, the NICs 30 Gb at 400 (0.075 s): t = 0.2 s, I = 1 / 0.2 = 5
 * (all on S0 would give 0.3 s and 3.33). */
START_TEST(path_selection_within_a_job)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 400, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"j\", \"gpus\": 16, \"work_tflop\": 1, \"compute_ms\": 500, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 10}, {\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 10},"
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 10}]}]}");
    tsched_priorities *p = run(t, js, 8);
    ck_near(tsched_priorities_intensity(p, 0), 5, 1e-12);
    ck_near(tsched_priorities_factor(p, 0), 1, 0); /* the reference itself */
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 0);
    ck_assert_uint_eq(tsched_priorities_level(p, 0), 0);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* The most intense job chooses first. Spine S0's trunks carry 200 Gbit/s, S1's 100; NICs
 * 400. "weak" (listed first; W = 1): n1->n3, 50 Gb. "strong" (W = 10): n0->n2, 100 Gb.
 * Alone both take S0: weak 50/200 = 0.25 s (I = 4), strong 100/200 = 0.5 s (I = 20).
 * By decreasing intensity strong goes first and takes S0; weak then sees (100 + 50)/200 =
 * 0.75 on S0 against 50/100 = 0.5 on S1 and takes S1: final t_weak = 0.5 s, I = 2; strong
 * keeps I = 20; no link is shared, so the DAG has no edge. (In input order weak would take
 * S0 first, strong would join it at 0.75 < 1.0, and the two would share S0.) */
START_TEST(path_selection_by_intensity)
{
    const double g[] = {200, 100};
    tsched_topology *t = fabric(2, 2, 2, 400, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"weak\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 300, \"flows\": ["
           "{\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 50}]},"
           "{\"name\": \"strong\", \"gpus\": 8, \"work_tflop\": 10, \"compute_ms\": 300, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 100}]}]}");
    tsched_priorities *p = run(t, js, 2);
    ck_near(tsched_priorities_intensity(p, 0), 2, 1e-12);
    ck_near(tsched_priorities_intensity(p, 1), 20, 1e-12);
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 0);
    ck_near(tsched_priorities_total_weight(p), 0, 0);
    ck_assert_uint_eq(tsched_priorities_order(p, 1), 0);
    /* no contention: every job may sit on the top level */
    ck_assert_uint_eq(tsched_priorities_level(p, 0), 0);
    ck_assert_uint_eq(tsched_priorities_level(p, 1), 0);
    tsched_priorities_free(p);
    /* Sincronia and Varys cut the priority order (strong, weak), not the input order */
    static const tsched_kcut_algo algos[] = {TSCHED_KCUT_SINCRONIA, TSCHED_KCUT_VARYS};
    for (int a = 0; a < 2; a++) {
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.levels = 2;
        o.algo = algos[a];
        ck_assert_ok(tsched_prioritize(&p, t, js, &o));
        ck_assert_uint_eq(tsched_priorities_level(p, 1), 0);
        ck_assert_uint_eq(tsched_priorities_level(p, 0), 1);
        tsched_priorities_free(p);
    }
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* ---- priorities ------------------------------------------------------------------------ */

/* Example 1 on a fabric: one spine, trunks of 100 Gbit/s, NICs of 400. job1 sends 200 Gb
 * (t = 2 s) and does 10 GFLOP; job2 sends 100 Gb (t = 1 s) and does 5 GFLOP: equal
 * intensity 0.005 TFLOP/s. job1 has more traffic (200 x 4 links vs 100 x 4): the reference.
 * k_2 = 1.5 (see example1_steady_state), so P_2 = 0.0075 > P_1 = 0.005: job2 first. */
START_TEST(example1_priorities)
{
    const double g[] = {100};
    tsched_topology *t = fabric(2, 1, 2, 400, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"job1\", \"gpus\": 10, \"work_tflop\": 0.01, \"compute_ms\": 2000, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 200}]},"
           "{\"name\": \"job2\", \"gpus\": 10, \"work_tflop\": 0.005, \"compute_ms\": 1000, \"overlap\": 0, \"flows\": ["
           "{\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 100}]}]}");
    tsched_priorities *p = run(t, js, 2);
    ck_near(tsched_priorities_intensity(p, 0), 0.005, 1e-15);
    ck_near(tsched_priorities_intensity(p, 1), 0.005, 1e-15);
    ck_near(tsched_priorities_factor(p, 0), 1, 0);
    ck_near(tsched_priorities_factor(p, 1), 1.5, 0);
    ck_near(tsched_priorities_priority(p, 1), 0.0075, 1e-15);
    ck_assert_uint_eq(tsched_priorities_order(p, 1), 0);
    ck_assert_uint_eq(tsched_priorities_order(p, 0), 1);
    /* they share L0->S0 and S0->L1: one edge job2 -> job1 of weight I_2 */
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 1);
    ck_near(tsched_priorities_total_weight(p), 0.005, 1e-15);
    ck_assert_uint_eq(tsched_priorities_level(p, 1), 0);
    ck_assert_uint_eq(tsched_priorities_level(p, 0), 1);
    json_t *root = to_json(p, js);
    ck_assert_str_eq(json_string_value(json_object_get(root, "reference")), "job1");
    json_t *e = json_array_get(json_object_get(json_object_get(root, "dag"), "edges"), 0);
    ck_assert_int_eq(json_integer_value(json_array_get(e, 0)), 1);
    ck_assert_int_eq(json_integer_value(json_array_get(e, 1)), 0);
    json_decref(root);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* Example 2 on a fabric: job1 100 Gb (t = 1 s), 10 GFLOP, 4 s, 2 GPUs; job2 300 Gb (t = 3 s),
 * 30 GFLOP, 2 s, 12 GPUs; overlap 0.5. Equal intensity; job2 is the reference (more
 * traffic); k_1 = 1/2 (example2_transient): job2 goes first, whichever is listed first. */
START_TEST(example2_priorities)
{
    const double g[] = {100};
    tsched_topology *t = fabric(2, 1, 2, 400, g);
    static const char *j1 = "{\"name\": \"job1\", \"gpus\": 2, \"work_tflop\": 0.01, \"compute_ms\": 4000, "
                            "\"overlap\": 0.5, \"flows\": [{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 100}]}";
    static const char *j2 = "{\"name\": \"job2\", \"gpus\": 12, \"work_tflop\": 0.03, \"compute_ms\": 2000, "
                            "\"overlap\": 0.5, \"flows\": [{\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 300}]}";
    for (int swap = 0; swap < 2; swap++) {
        char doc[1024];
        snprintf(doc, sizeof doc, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [%s, %s]}", swap ? j2 : j1,
                 swap ? j1 : j2);
        tsched_jobset *js = load_set(t, doc);
        uint32_t i1 = swap ? 1 : 0, i2 = 1 - i1;
        ck_assert_str_eq(tsched_jobset_name(js, i1), "job1");
        tsched_priorities *p = run(t, js, 2);
        ck_near(tsched_priorities_intensity(p, i1), 0.01, 1e-15);
        ck_near(tsched_priorities_intensity(p, i2), 0.01, 1e-15);
        ck_near(tsched_priorities_factor(p, i2), 1, 0);
        ck_near(tsched_priorities_factor(p, i1), 0.5, 1e-12);
        ck_assert_uint_eq(tsched_priorities_order(p, i2), 0);
        ck_assert_uint_eq(tsched_priorities_order(p, i1), 1);
        ck_assert_uint_eq(tsched_priorities_level(p, i2), 0);
        ck_assert_uint_eq(tsched_priorities_level(p, i1), 1);
        tsched_priorities_free(p);
        tsched_jobset_free(js);
    }
    tsched_topology_free(t);
}
END_TEST

/* Three jobs on three leaves and one spine (trunks 100 Gbit/s, NICs 400), overlap 1 and
 * 1000 s of computing so that every k = 1 and P = I:
 *   a: n0->n2 100 Gb, W 3: L0->S0, S0->L1; t = 1 s, I = 3
 *   b: n1->n4 200 Gb, W 4: L0->S0, S0->L2; t = 2 s, I = 2 (the reference: 800 Gb of traffic)
 *   c: n5->n3 100 Gb, W 5: L2->S0, S0->L1; t = 1 s, I = 5
 * a and b share L0->S0, a and c share S0->L1, b and c nothing (b goes down to L2, c up
 * from it). Order c, a, b; edges a -> b (weight I_a = 3) and c -> a (I_c = 5), total 8.
 * K = 1 cuts nothing; K = 2 best cuts c -> a (levels c 0, a 1, b 1: 5); K = 3 cuts both. */
START_TEST(dag_by_hand)
{
    const double g[] = {100};
    tsched_topology *t = fabric(3, 1, 2, 400, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"a\", \"gpus\": 8, \"work_tflop\": 3, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
           "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 100}]},"
           "{\"name\": \"b\", \"gpus\": 8, \"work_tflop\": 4, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
           "{\"src\": \"n1\", \"dst\": \"n4\", \"gbits\": 200}]},"
           "{\"name\": \"c\", \"gpus\": 8, \"work_tflop\": 5, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
           "{\"src\": \"n5\", \"dst\": \"n3\", \"gbits\": 100}]}]}");
    static const uint32_t want_levels[4][3] = {{0, 0, 0}, {0, 0, 0}, {1, 1, 0}, {1, 2, 0}};
    static const double want_cut[4] = {0, 0, 5, 8};
    for (uint32_t K = 1; K <= 3; K++) {
        tsched_priorities *p = run(t, js, K);
        ck_near(tsched_priorities_intensity(p, 0), 3, 1e-12);
        ck_near(tsched_priorities_intensity(p, 1), 2, 1e-12);
        ck_near(tsched_priorities_intensity(p, 2), 5, 1e-12);
        for (uint32_t i = 0; i < 3; i++)
            ck_near(tsched_priorities_factor(p, i), 1, 0);
        ck_assert_uint_eq(tsched_priorities_order(p, 2), 0);
        ck_assert_uint_eq(tsched_priorities_order(p, 0), 1);
        ck_assert_uint_eq(tsched_priorities_order(p, 1), 2);
        ck_assert_uint_eq(tsched_priorities_dag_edges(p), 2);
        ck_near(tsched_priorities_total_weight(p), 8, 1e-12);
        ck_near(tsched_priorities_cut_weight(p), want_cut[K], 1e-12);
        for (uint32_t i = 0; i < 3; i++)
            ck_assert_uint_eq(tsched_priorities_level(p, i), want_levels[K][i]);
        json_t *root = to_json(p, js);
        json_t *dag = json_object_get(root, "dag");
        json_t *edges = json_object_get(dag, "edges");
        ck_assert_uint_eq(json_array_size(edges), 2);
        /* pairs in index order: (a, b) then (a, c) */
        static const int want_e[2][2] = {{0, 1}, {2, 0}};
        static const double want_w[2] = {3, 5};
        for (size_t e = 0; e < 2; e++) {
            json_t *x = json_array_get(edges, e);
            ck_assert_int_eq(json_integer_value(json_array_get(x, 0)), want_e[e][0]);
            ck_assert_int_eq(json_integer_value(json_array_get(x, 1)), want_e[e][1]);
            ck_near(json_number_value(json_array_get(x, 2)), want_w[e], 1e-12);
        }
        ck_assert_int_eq(json_integer_value(json_object_get(dag, "nodes")), 3);
        ck_near(json_number_value(json_object_get(dag, "cut_weight")), want_cut[K], 1e-12);
        ck_assert_int_eq(json_integer_value(json_object_get(root, "levels")), K);
        json_decref(root);
        tsched_priorities_free(p);
    }
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* Every field of tsched.priorities.v1, on the fixture. */
START_TEST(priorities_json_fields)
{
    tsched_topology *t = NULL;
    tsched_jobset *js = NULL;
    ck_assert_ok(tsched_topology_load_file(&t, TSCHED_TEST_DATA "/priority/crux-topo.json"));
    ck_assert_ok(tsched_jobset_load_file(&js, t, TSCHED_TEST_DATA "/priority/crux-jobset.json"));
    ck_assert_uint_eq(tsched_jobset_count(js), 3);
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    ck_assert_uint_eq(o.size, sizeof o);
    o.levels = 2;
    o.algo = TSCHED_KCUT_VARYS;
    tsched_priorities *p = NULL;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    json_t *root = to_json(p, js);
    ck_assert_str_eq(json_string_value(json_object_get(root, "format")), "tsched.priorities.v1");
    ck_assert_str_eq(json_string_value(json_object_get(root, "algorithm")), "varys");
    ck_assert_int_eq(json_integer_value(json_object_get(root, "levels")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(root, "reference")), "gpt");
    json_t *jobs = json_object_get(root, "jobs");
    ck_assert_uint_eq(json_array_size(jobs), 3);
    static const char *names[] = {"gpt", "bert", "resnet"};
    uint32_t seen = 0;
    for (uint32_t i = 0; i < 3; i++) {
        json_t *j = json_array_get(jobs, i);
        ck_assert_str_eq(json_string_value(json_object_get(j, "name")), names[i]);
        ck_assert(json_number_value(json_object_get(j, "intensity")) == tsched_priorities_intensity(p, i));
        ck_assert(json_number_value(json_object_get(j, "factor")) == tsched_priorities_factor(p, i));
        ck_assert(json_number_value(json_object_get(j, "priority")) == tsched_priorities_priority(p, i));
        ck_assert(json_integer_value(json_object_get(j, "order")) == tsched_priorities_order(p, i));
        ck_assert(json_integer_value(json_object_get(j, "level")) == tsched_priorities_level(p, i));
        ck_assert(json_number_value(json_object_get(j, "bottleneck_ms")) > 0);
        ck_assert(json_number_value(json_object_get(j, "traffic_gbits")) > 0);
        ck_assert(tsched_priorities_level(p, i) < 2);
        seen |= 1u << tsched_priorities_order(p, i);
        /* P = k I */
        ck_near(tsched_priorities_priority(p, i), tsched_priorities_factor(p, i) * tsched_priorities_intensity(p, i),
                1e-9 * tsched_priorities_priority(p, i));
    }
    ck_assert_uint_eq(seen, 7); /* order is a permutation */
    json_t *dag = json_object_get(root, "dag");
    ck_assert(json_is_array(json_object_get(dag, "edges")));
    ck_assert_uint_eq(json_array_size(json_object_get(dag, "edges")), tsched_priorities_dag_edges(p));
    ck_assert(json_number_value(json_object_get(dag, "total_weight")) == tsched_priorities_total_weight(p));
    ck_assert(json_number_value(json_object_get(dag, "cut_weight")) == tsched_priorities_cut_weight(p));
    /* every edge goes from the earlier to the later job in the order, weight I_u, and the
     * levels respect it */
    double total = 0;
    for (size_t e = 0; e < json_array_size(json_object_get(dag, "edges")); e++) {
        json_t *x = json_array_get(json_object_get(dag, "edges"), e);
        uint32_t u = (uint32_t)json_integer_value(json_array_get(x, 0)), v = (uint32_t)json_integer_value(json_array_get(x, 1));
        ck_assert_uint_lt(tsched_priorities_order(p, u), tsched_priorities_order(p, v));
        ck_assert(json_number_value(json_array_get(x, 2)) == tsched_priorities_intensity(p, u));
        ck_assert_uint_le(tsched_priorities_level(p, u), tsched_priorities_level(p, v));
        total += json_number_value(json_array_get(x, 2));
    }
    ck_near(total, tsched_priorities_total_weight(p), 1e-9 * total);
    json_decref(root);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* A job set of 12 jobs on a generated clos3 fabric, twice and after a reload: the same
 * bytes; and a different kcut seed may change the levels but not the priorities. */
static char *big_jobset(void)
{
    size_t cap = 1 << 16, n = 0;
    char *doc = malloc(cap);
    ck_assert_ptr_nonnull(doc);
    n += (size_t)snprintf(doc + n, cap - n, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [");
    for (unsigned j = 0; j < 12; j++) {
        n += (size_t)snprintf(doc + n, cap - n,
                              "%s{\"name\": \"job%u\", \"gpus\": %u, \"work_tflop\": %g, \"compute_ms\": %g, "
                              "\"overlap\": %g, \"flows\": [",
                              j ? ", " : "", j, 8 * (j % 4 + 1), 10.0 + 37.0 * (j % 5), 100.0 + 45.0 * (j % 7),
                              0.1 * (j % 6));
        for (unsigned k = 0; k < 6; k++)
            n += (size_t)snprintf(doc + n, cap - n,
                                  "%s{\"src\": \"node%u\", \"dst\": \"node%u\", \"src_nic\": %u, \"dst_nic\": %u, "
                                  "\"gbits\": %g}",
                                  k ? ", " : "", (j * 5 + k * 3) % 64, (j * 11 + k * 7 + 17) % 64, k % 2, (k + 1) % 2,
                                  1.0 + (double)((j + k) % 4));
        n += (size_t)snprintf(doc + n, cap - n, "]}");
    }
    snprintf(doc + n, cap - n, "]}");
    return doc;
}

START_TEST(deterministic)
{
    tsched_topology *t = tu_gen_clos3(2, 4, 2, 4, 8, 8, 2, 200, 0);
    char *doc = big_jobset();
    char *s[3] = {NULL, NULL, NULL};
    for (int r = 0; r < 3; r++) {
        tsched_jobset *js = load_set(t, doc);
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.levels = 3;
        tsched_priorities *p = NULL;
        ck_assert_ok(tsched_prioritize(&p, t, js, r == 2 ? NULL : &o));
        ck_assert_ok(tsched_priorities_to_json(&s[r], p, js));
        for (uint32_t i = 0; i < tsched_jobset_count(js); i++) {
            ck_assert(tsched_priorities_intensity(p, i) > 0 && isfinite(tsched_priorities_intensity(p, i)));
            ck_assert(tsched_priorities_factor(p, i) >= 0 && isfinite(tsched_priorities_factor(p, i)));
        }
        tsched_priorities_free(p);
        tsched_jobset_free(js);
    }
    ck_assert_str_eq(s[0], s[1]);
    ck_assert(strstr(s[2], "\"levels\": 8") != NULL); /* NULL options: the defaults */
    for (int r = 0; r < 3; r++)
        tsched_free(s[r]);
    free(doc);
    tsched_topology_free(t);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------ */

typedef struct bad_case {
    const char *json;
    tsched_status status;
    const char *needle;
} bad_case;

#define JOB_OK "{\"name\": \"ok\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 1}]}"
#define HEAD "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK ", "
#define FLOW(x) "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": [" x "]}]}"

START_TEST(jobset_errors)
{
    const double g[] = {100};
    tsched_topology *t = fabric(2, 1, 2, 100, g);
    static const bad_case cases[] = {
        {"{\"format\": \"tsched.jobset.v2\", \"jobs\": []}", TSCHED_E_FORMAT, "format"},
        {"{\"jobs\": []}", TSCHED_E_FORMAT, "format"},
        {"{\"format\": \"tsched.jobset.v1\"}", TSCHED_E_NOT_FOUND, "jobs"},
        {"{\"format\": \"tsched.jobset.v1\", \"jobs\": {}}", TSCHED_E_TYPE, "jobs"},
        {HEAD "3]}", TSCHED_E_TYPE, "jobs[1]"},
        {HEAD "{\"gpus\": 8}]}", TSCHED_E_NOT_FOUND, "jobs[1].name"},
        {HEAD "{\"name\": \"\", \"gpus\": 8}]}", TSCHED_E_RANGE, "jobs[1].name"},
        {HEAD JOB_OK "]}", TSCHED_E_DUPLICATE, "jobs[1].name: duplicate job name \"ok\" (also jobs[0])"},
        {HEAD "{\"name\": \"j\", \"gpus\": 0, \"work_tflop\": 1, \"compute_ms\": 10}]}", TSCHED_E_RANGE,
         "jobs[1].gpus"},
        {HEAD "{\"name\": \"j\", \"gpus\": 2.5, \"work_tflop\": 1, \"compute_ms\": 10}]}", TSCHED_E_RANGE,
         "jobs[1].gpus"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"compute_ms\": 10}]}", TSCHED_E_NOT_FOUND, "jobs[1].work_tflop"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 0, \"compute_ms\": 10}]}", TSCHED_E_RANGE,
         "jobs[1].work_tflop"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": -1, \"compute_ms\": 10}]}", TSCHED_E_RANGE,
         "jobs[1].work_tflop"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": \"10\"}]}", TSCHED_E_TYPE,
         "jobs[1].compute_ms"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 0}]}", TSCHED_E_RANGE,
         "jobs[1].compute_ms"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"overlap\": 1.5}]}",
         TSCHED_E_RANGE, "jobs[1].overlap"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"overlap\": -0.1}]}",
         TSCHED_E_RANGE, "jobs[1].overlap"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10}]}", TSCHED_E_INVALID,
         "jobs[1].flows: job \"j\" has no flows"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": []}]}",
         TSCHED_E_INVALID, "job \"j\" has no flows"},
        {HEAD "{\"name\": \"j\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": 1}]}", TSCHED_E_TYPE,
         "jobs[1].flows"},
        {HEAD FLOW("7"), TSCHED_E_TYPE, "jobs[1].flows[0]"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"x\", \"gbits\": 1}"), TSCHED_E_NOT_FOUND,
         "jobs[1].flows[0].dst: no node named \"x\""},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 1}, {\"dst\": \"n1\", \"gbits\": 1}"),
         TSCHED_E_NOT_FOUND, "jobs[1].flows[1].src"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\", \"src_nic\": 1, \"gbits\": 1}"), TSCHED_E_RANGE,
         "jobs[1].flows[0].src_nic"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\", \"dst_nic\": -1, \"gbits\": 1}"), TSCHED_E_RANGE,
         "jobs[1].flows[0].dst_nic"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\"}"), TSCHED_E_NOT_FOUND, "jobs[1].flows[0].gbits"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 0}"), TSCHED_E_RANGE, "jobs[1].flows[0].gbits"},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 1e999}"), TSCHED_E_PARSE, ""},
        {HEAD FLOW("{\"src\": \"n0\", \"dst\": \"n0\", \"gbits\": 1}"), TSCHED_E_INVALID,
         "jobs[1].flows[0].dst: same node and NIC"},
        {"{\"format\": \"tsched.jobset.v1\", \"jobs\": [", TSCHED_E_PARSE, "line 1"},
        {"[]", TSCHED_E_TYPE, "document"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsched_jobset *js = (tsched_jobset *)1;
        tsched_status st = tsched_jobset_load_string(&js, t, cases[i].json, strlen(cases[i].json));
        ck_assert_msg(st == cases[i].status, "case %zu: got %s, expected %s: %s", i, tsched_status_str(st),
                      tsched_status_str(cases[i].status), tsched_last_error());
        ck_assert_ptr_null(js);
        ck_assert_msg(strstr(tsched_last_error(), cases[i].needle) != NULL, "case %zu: \"%s\" lacks \"%s\"", i,
                      tsched_last_error(), cases[i].needle);
    }
    tsched_jobset *js = NULL;
    ck_assert_status(tsched_jobset_load_string(NULL, t, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(&js, NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(&js, t, NULL, 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_file(&js, t, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_file(&js, t, TSCHED_TEST_DATA "/priority/no-such-file.json"), TSCHED_E_IO);
    tsched_topology_free(t);

    /* fixtures: the file name and the field */
    ck_assert_ok(tsched_topology_load_file(&t, TSCHED_TEST_DATA "/priority/crux-topo.json"));
    ck_assert_status(tsched_jobset_load_file(&js, t, TSCHED_TEST_DATA "/priority/jobset-bad-dst.json"),
                     TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("jobset-bad-dst.json");
    ck_assert_errmsg_has("jobs[2].flows[0].dst: no node named \"x\"");
    ck_assert_status(tsched_jobset_load_file(&js, t, TSCHED_TEST_DATA "/priority/jobset-no-flows.json"),
                     TSCHED_E_INVALID);
    ck_assert_errmsg_has("jobs[1].flows: job \"idle\" has no flows");
    ck_assert_ptr_null(js);
    tsched_jobset_free(NULL);
    ck_assert_uint_eq(tsched_jobset_count(NULL), 0);
    ck_assert_ptr_null(tsched_jobset_name(NULL, 0));
    tsched_topology_free(t);
}
END_TEST

START_TEST(prioritize_errors)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK ", "
           "{\"name\": \"second\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": ["
           "{\"src\": \"n1\", \"dst\": \"n0\", \"gbits\": 1}, {\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 1}]}]}");
    tsched_priorities *p = (tsched_priorities *)1;
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    ck_assert_status(tsched_prioritize(NULL, t, js, &o), TSCHED_E_INVALID);
    ck_assert_status(tsched_prioritize(&p, NULL, js, &o), TSCHED_E_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_status(tsched_prioritize(&p, t, NULL, &o), TSCHED_E_INVALID);
    o.size = 0;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_prio_options.size");
    tsched_prio_options_init(&o);
    o.levels = 0;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("levels");
    ck_assert_ptr_null(p);

    /* both spines down: the second job's second flow has no path */
    ck_assert_ok(tsched_topology_set_up(t, "S0", 0));
    ck_assert_ok(tsched_topology_set_up(t, "S1", 0));
    tsched_prio_options_init(&o);
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_NO_PATH);
    ck_assert_errmsg_has("jobs[0].flows[0] (job \"ok\")");
    ck_assert_ptr_null(p);
    ck_assert_ok(tsched_topology_set_up(t, "S1", 1));
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    tsched_priorities_free(p);
    /* a node down */
    ck_assert_ok(tsched_topology_set_up(t, "n3", 0));
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_NO_PATH);
    ck_assert_errmsg_has("jobs[1].flows[1] (job \"second\")");
    ck_assert_ok(tsched_topology_set_up(t, "n3", 1));

    /* numbers that would overflow an intensity are refused by the loader, naming the range */
    static const char huge[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": [{\"name\": \"h\", \"gpus\": 8, "
                               "\"work_tflop\": 1e308, \"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", "
                               "\"dst\": \"n1\", \"gbits\": 1e-6}]}]}";
    tsched_jobset *hj = NULL;
    ck_assert_status(tsched_jobset_load_string(&hj, t, huge, strlen(huge)), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[0].work_tflop: 1e+308 is out of range [1e-06, 1e+12]");
    ck_assert_ptr_null(hj);

    /* the set belongs to another fabric, even one of the same shape */
    const double g1[] = {100};
    tsched_topology *small = fabric(1, 1, 2, 100, g1);
    ck_assert_status(tsched_prioritize(&p, small, js, &o), TSCHED_E_MISMATCH);
    ck_assert_errmsg_has("tsched_prioritize: job set");
    ck_assert_ptr_null(p);

    /* to_json checks */
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    char *s = (char *)1;
    ck_assert_status(tsched_priorities_to_json(NULL, p, js), TSCHED_E_INVALID);
    ck_assert_status(tsched_priorities_to_json(&s, NULL, js), TSCHED_E_INVALID);
    ck_assert_ptr_null(s);
    ck_assert_status(tsched_priorities_to_json(&s, p, NULL), TSCHED_E_INVALID);
    tsched_jobset *one = load_set(t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK "]}");
    ck_assert_status(tsched_priorities_to_json(&s, p, one), TSCHED_E_INVALID);

    /* getters: bad index and NULL give 0 */
    ck_assert(tsched_priorities_intensity(p, 2) == 0);
    ck_assert(tsched_priorities_factor(p, 9) == 0);
    ck_assert(tsched_priorities_priority(NULL, 0) == 0);
    ck_assert_uint_eq(tsched_priorities_order(p, 5), 0);
    ck_assert_uint_eq(tsched_priorities_level(NULL, 0), 0);
    ck_assert_uint_eq(tsched_priorities_dag_edges(NULL), 0);
    ck_assert(tsched_priorities_total_weight(NULL) == 0);
    ck_assert(tsched_priorities_cut_weight(NULL) == 0);
    tsched_priorities_free(p);
    tsched_priorities_free(NULL);
    tsched_prio_options_init(NULL);
    tsched_jobset_free(one);
    tsched_jobset_free(js);
    tsched_topology_free(small);
    tsched_topology_free(t);
}
END_TEST

/* An empty job set is a valid (empty) answer. */
START_TEST(empty_jobset)
{
    const double g[] = {100};
    tsched_topology *t = fabric(2, 1, 1, 100, g);
    tsched_jobset *js = load_set(t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": []}");
    ck_assert_uint_eq(tsched_jobset_count(js), 0);
    tsched_priorities *p = run(t, js, 4);
    json_t *root = to_json(p, js);
    ck_assert_uint_eq(json_array_size(json_object_get(root, "jobs")), 0);
    ck_assert(json_is_null(json_object_get(root, "reference")));
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(root, "dag"), "edges")), 0);
    json_decref(root);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* ---- hardening: extreme magnitudes, struct sizes, fabric identity, NULLs ------------ */

/* Log-uniform in [1e-6, 1e9] ms, or one of the edges. */
static double xtime(tu_rng *r, const double *edges, size_t nedges)
{
    if (tu_rng_below(r, 4) == 0)
        return edges[tu_rng_below(r, nedges)];
    return pow(10, -6 + 15 * tu_rng_unit(r));
}

static double xoverlap(tu_rng *r)
{
    static const double o[] = {0, 1, 1e-300, 1 - 1e-16, 0.5};
    return tu_rng_below(r, 2) ? o[tu_rng_below(r, 5)] : tu_rng_unit(r);
}

/* The two-job model over any positive finite magnitudes: never an internal error, shares
 * and utilisation are fractions, the factor stays in [1e-3, 1e3], and the prioritised job
 * gets X / T whenever no input is below the grid. */
START_TEST(twojob_extreme_magnitudes)
{
    static const double edges[] = {1e-6, 1e9, 1e12, 1e-300, 1e300, 1e308, 4.9e-324, 1, 3};
    tu_rng r = {20261123};
    int cases = 0;
    const int its = (int)tu_nv(300); /* a third under the sanitizer setup, a ninth under valgrind */
    for (int it = 0; it < its; it++) {
        tsched_twojob a = {TJS, xtime(&r, edges, 9), xtime(&r, edges, 9), xoverlap(&r), 1 + tu_rng_below(&r, 64)};
        tsched_twojob b = {TJS, xtime(&r, edges, 9), xtime(&r, edges, 9), xoverlap(&r),
                           tu_rng_below(&r, 8) ? 1 + tu_rng_below(&r, 64) : UINT32_MAX};
        for (int first = 0; first < 2; first++) {
            double sa = -1, sb = -1, u = -1;
            tsched_status st = tsched_twojob_steady(&sa, &sb, &u, &a, &b, first);
            ck_assert_msg(st == TSCHED_OK, "case %d: a {%g, %g, %g} b {%g, %g, %g}: %s", it, a.compute_ms,
                          a.comm_ms, a.overlap, b.compute_ms, b.comm_ms, b.overlap, tsched_last_error());
            ck_assert_msg(isfinite(sa) && isfinite(sb) && isfinite(u), "case %d: %g %g %g", it, sa, sb, u);
            ck_assert_msg(sa >= 0 && sb >= 0 && sa + sb <= 1 + 1e-9, "case %d/%d: a {%g, %g, %.17g} b {%g, %g, %.17g}: %.17g %.17g", it, first, a.compute_ms, a.comm_ms, a.overlap, b.compute_ms, b.comm_ms, b.overlap, sa, sb);
            ck_assert(u > 0 && u <= 1 + 1e-9);
            const tsched_twojob *h = first ? &a : &b;
            double m = fmax(fmax(a.compute_ms, a.comm_ms), fmax(b.compute_ms, b.comm_ms));
            double lo = fmin(fmin(h->compute_ms, h->comm_ms), (1 - h->overlap) * h->compute_ms);
            if (fmin(h->compute_ms, h->comm_ms) > 1e-6 * m && (lo == 0 || lo > 1e-6 * m)) {
                double t0 = fmax(h->compute_ms, (1 - h->overlap) * h->compute_ms + h->comm_ms);
                ck_near(first ? sa : sb, h->comm_ms / t0, 1e-6);
            }
            cases++;
        }
        double k = -1;
        ck_assert_msg(ts_crux_factor(&k, &a, &b) == TSCHED_OK, "case %d: %s", it, tsched_last_error());
        ck_assert_msg(isfinite(k) && k >= 1e-3 && k <= 1e3, "case %d: k = %g", it, k);
    }
    ck_assert_int_eq(cases, 2 * its);

    /* the reported failure: 1e12 ms of computation against a second of traffic */
    tsched_twojob big = {TJS, 1e12, 1000, 0.5, 8}, small = {TJS, 1, 1, 0, 8};
    double sa, sb, u, k;
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &big, &small, 1));
    ck_near(sa, 1000 / 1e12, 1e-11); /* 1000 ms is below 2^-36 of 1e12 ms: on the grid */
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &big, &small, 0));
    ck_near(sb, 0.5, 1e-9);
    ck_assert_ok(ts_crux_factor(&k, &big, &small));
    ck_assert_ok(ts_crux_factor(&k, &small, &big));
    /* a job that leaves the other one tick of link per period: starved but answered */
    tsched_twojob hog = {TJS, 1e9, 1e9 - 1e-6, 1, 1}, victim = {TJS, 1e-6, 1e9, 0, 1};
    ck_assert_ok(tsched_twojob_steady(&sa, &sb, &u, &hog, &victim, 1));
    ck_assert(sb >= 0 && sb < 1e-9 && sa > 1 - 1e-9);
}
END_TEST

static tsched_status load_extreme(tsched_jobset **js, const tsched_topology *t, double work, double compute,
                                  double overlap, double gbits)
{
    char doc[512];
    snprintf(doc, sizeof doc,
             "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
             "{\"name\": \"x\", \"gpus\": 8, \"work_tflop\": %.17g, \"compute_ms\": %.17g, \"overlap\": %.17g,"
             " \"flows\": [{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": %.17g}]},"
             "{\"name\": \"y\", \"gpus\": 4, \"work_tflop\": 1, \"compute_ms\": 10, \"overlap\": 0.5,"
             " \"flows\": [{\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 10}]}]}",
             work, compute, overlap, gbits);
    return tsched_jobset_load_string(js, t, doc, strlen(doc));
}

/* Job sets at the edges of the accepted ranges and beyond: inside, a sane answer;
 * outside, TSCHED_E_RANGE naming the field and the range; never an internal error. */
START_TEST(jobset_extreme_magnitudes)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    static const double edges[] = {1e-6, 1e9, 1, 1e-3};
    tu_rng r = {777};
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    o.levels = 2;
    for (int it = 0; it < 60; it++) {
        double work = it % 5 == 0 ? (it % 10 ? 1e12 : 1e-6) : pow(10, -6 + 18 * tu_rng_unit(&r));
        double gbits = it % 7 == 0 ? (it % 14 ? 1e12 : 1e-6) : pow(10, -6 + 18 * tu_rng_unit(&r));
        double compute = xtime(&r, edges, 4);
        tsched_jobset *js = NULL;
        ck_assert_ok(load_extreme(&js, t, work, compute, xoverlap(&r) == 1e-300 ? 0 : tu_rng_unit(&r), gbits));
        tsched_priorities *p = NULL;
        tsched_status st = tsched_prioritize(&p, t, js, &o);
        ck_assert_msg(st == TSCHED_OK, "case %d (work %g, compute %g, gbits %g): %s", it, work, compute, gbits,
                      tsched_last_error());
        for (uint32_t j = 0; j < 2; j++) {
            double k = tsched_priorities_factor(p, j), pr = tsched_priorities_priority(p, j);
            ck_assert(isfinite(k) && k >= 1e-3 && k <= 1e3);
            ck_assert(isfinite(pr) && pr > 0);
            ck_assert_uint_lt(tsched_priorities_level(p, j), 2);
        }
        tsched_priorities_free(p);
        tsched_jobset_free(js);
    }
    static const struct {
        double work, compute, overlap, gbits;
        const char *msg;
    } bad[] = {
        {1, 1e12, 0, 1, "jobs[0].compute_ms: 1e+12 is out of range [1e-06, 1e+09]"},
        {1, 1e308, 0, 1, "jobs[0].compute_ms: 1e+308 is out of range [1e-06, 1e+09]"},
        {1, 1e-300, 0, 1, "jobs[0].compute_ms: 1e-300 is out of range [1e-06, 1e+09]"},
        {1e13, 10, 0, 1, "jobs[0].work_tflop: 1e+13 is out of range [1e-06, 1e+12]"},
        {1e-7, 10, 0, 1, "jobs[0].work_tflop: 1e-07 is out of range [1e-06, 1e+12]"},
        {1, 10, 0, 1e13, "jobs[0].flows[0].gbits: 1e+13 is out of range [1e-06, 1e+12]"},
        {1, 10, 0, 1e-300, "jobs[0].flows[0].gbits: 1e-300 is out of range [1e-06, 1e+12]"},
        {1, 10, 1.0000001, 1, "jobs[0].overlap"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tsched_jobset *js = (tsched_jobset *)1;
        ck_assert_status(load_extreme(&js, t, bad[i].work, bad[i].compute, bad[i].overlap, bad[i].gbits),
                         TSCHED_E_RANGE);
        ck_assert_errmsg_has(bad[i].msg);
        ck_assert_ptr_null(js);
    }
    tsched_topology_free(t);
}
END_TEST

/* DESIGN 3 size rule on tsched_prio_options and tsched_twojob. */
START_TEST(option_struct_sizes)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    tsched_jobset *js = load_set(
        t, "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
           "{\"name\": \"a\", \"gpus\": 8, \"work_tflop\": 5, \"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 1}]},"
           "{\"name\": \"b\", \"gpus\": 8, \"work_tflop\": 3, \"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", \"dst\": \"n3\", \"gbits\": 1}]},"
           "{\"name\": \"c\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", \"dst\": \"n1\", \"gbits\": 1}]}]}");
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    ck_assert_uint_eq(o.size, sizeof o);
    ck_assert_int_eq(o.algo, TSCHED_KCUT_CRUX);
    ck_assert_uint_eq(o.levels, 8);
    ck_assert_uint_eq(o.orders, 10);
    ck_assert_uint_eq(o.seed, 1);
    /* levels 1 puts every job on level 0; a size that stops before `levels` ignores it and
     * the default (8 levels) separates the three chained jobs */
    o.levels = 1;
    tsched_priorities *p = NULL;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    ck_assert_uint_eq(tsched_priorities_level(p, 0) + tsched_priorities_level(p, 1) + tsched_priorities_level(p, 2), 0);
    tsched_priorities_free(p);
    o.size = offsetof(tsched_prio_options, levels); /* one field and the rest early */
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    ck_assert_uint_gt(tsched_priorities_level(p, 0) + tsched_priorities_level(p, 1) + tsched_priorities_level(p, 2), 0);
    tsched_priorities_free(p);
    o.size = sizeof(size_t); /* everything default */
    o.algo = (tsched_kcut_algo)77;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    tsched_priorities_free(p);
    o.size = offsetof(tsched_prio_options, seed); /* seed only defaulted: levels 1 read */
    o.algo = TSCHED_KCUT_CRUX;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    ck_assert_uint_eq(tsched_priorities_level(p, 0) + tsched_priorities_level(p, 1) + tsched_priorities_level(p, 2), 0);
    tsched_priorities_free(p);
    o.size = offsetof(tsched_prio_options, levels) + 1; /* inside a field */
    p = (tsched_priorities *)1;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_prio_options.size");
    ck_assert_ptr_null(p);
    o.size = sizeof o + 8;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_INVALID);
    ck_assert_ok(tsched_prioritize(&p, t, js, NULL)); /* NULL options: defaults */
    tsched_priorities_free(p);

    /* tsched_twojob: defaults compute 1, comm 1, overlap 0, gpus 1 */
    tsched_twojob full = {TJS, 1, 1, 0, 1}, x = {TJS, 2000, 2000, 0, 10}, y;
    double s1, s2, u1, s3, s4, u2;
    ck_assert_ok(tsched_twojob_steady(&s1, &s2, &u1, &full, &x, 1));
    memset(&y, 0x7f, sizeof y); /* garbage beyond the size */
    y.size = sizeof(size_t);
    ck_assert_ok(tsched_twojob_steady(&s3, &s4, &u2, &y, &x, 1));
    ck_near(s3, s1, 0);
    ck_near(s4, s2, 0);
    ck_near(u2, u1, 0);
    /* ending after compute_ms: the rest default (comm 1, overlap 0, gpus 1) */
    tsched_twojob z = {TJS, 1, 1, 0, 1};
    memset(&y, 0x7f, sizeof y);
    y.size = offsetof(tsched_twojob, comm_ms);
    y.compute_ms = 3;
    z.compute_ms = 3;
    ck_assert_ok(tsched_twojob_steady(&s1, &s2, &u1, &z, &x, 0));
    ck_assert_ok(tsched_twojob_steady(&s3, &s4, &u2, &y, &x, 0));
    ck_near(s3, s1, 0);
    ck_near(u2, u1, 0);
    /* ending after overlap: gpus defaults to 1 (utilisation weights change) */
    y = (tsched_twojob){TJS, 4000, 1000, 0.5, 99};
    y.size = offsetof(tsched_twojob, gpus);
    z = (tsched_twojob){TJS, 4000, 1000, 0.5, 1};
    ck_assert_ok(tsched_twojob_steady(&s1, &s2, &u1, &z, &x, 1));
    ck_assert_ok(tsched_twojob_steady(&s3, &s4, &u2, &y, &x, 1));
    ck_near(u2, u1, 0);
    y.gpus = 1;
    y.size = offsetof(tsched_twojob, comm_ms) + 4; /* inside comm_ms */
    ck_assert_status(tsched_twojob_steady(&s1, &s2, &u1, &y, &x, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_twojob.size");
    y.size = 0;
    ck_assert_status(tsched_twojob_steady(&s1, &s2, &u1, &x, &y, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_twojob.size");
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* A job set and its priorities belong to the fabric the set was loaded against. */
START_TEST(fabric_identity)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g), *twin = fabric(2, 2, 2, 100, g);
    ck_assert(tsched_topology_id(t) != tsched_topology_id(twin));
    static const char doc[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK "]}";
    tsched_jobset *js = load_set(t, doc), *js2 = load_set(twin, doc);
    tsched_priorities *p = (tsched_priorities *)1;
    /* the same shape is not enough */
    ck_assert_status(tsched_prioritize(&p, twin, js, NULL), TSCHED_E_MISMATCH);
    ck_assert_errmsg_has("tsched_prioritize: job set");
    ck_assert_ptr_null(p);
    ck_assert_ok(tsched_prioritize(&p, t, js, NULL));
    /* state changes keep the identity */
    ck_assert_ok(tsched_topology_set_up(t, "S1", 0));
    tsched_priorities *p2 = NULL;
    ck_assert_ok(tsched_prioritize(&p2, t, js, NULL));
    tsched_priorities_free(p2);
    /* the writer needs no fabric, only the set the result came from */
    char *s = NULL;
    ck_assert_ok(tsched_priorities_to_json(&s, p, js));
    tsched_free(s);
    s = (char *)1;
    ck_assert_status(tsched_priorities_to_json(&s, p, js2), TSCHED_E_MISMATCH);
    ck_assert_errmsg_has("tsched_priorities_to_json");
    ck_assert_ptr_null(s);
    /* the result outlives its fabric */
    tsched_topology_free(t);
    ck_assert_ok(tsched_priorities_to_json(&s, p, js));
    ck_assert_ptr_nonnull(strstr(s, "\"ok\""));
    tsched_free(s);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_jobset_free(js2);
    tsched_topology_free(twin);
}
END_TEST

/* Every function of priority.h with NULL in each pointer argument. */
START_TEST(null_arguments)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    static const char doc[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK "]}";
    tsched_jobset *js = load_set(t, doc);
    tsched_kcut_algo algo;
    ck_assert_str_eq(tsched_kcut_algo_name((tsched_kcut_algo)99), "?");
    ck_assert_status(tsched_kcut_algo_from_name(NULL, "crux"), TSCHED_E_INVALID);
    ck_assert_status(tsched_kcut_algo_from_name(&algo, NULL), TSCHED_E_INVALID);
    tsched_kcut_options_init(NULL);
    tsched_prio_options_init(NULL);
    tsched_dag *d = NULL;
    ck_assert_status(tsched_dag_new(NULL, 3), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out");
    tsched_dag_free(NULL);
    ck_assert_status(tsched_dag_add_edge(NULL, 0, 1, 1), TSCHED_E_INVALID);
    ck_assert_uint_eq(tsched_dag_nodes(NULL), 0);
    ck_assert_uint_eq(tsched_dag_edges(NULL), 0);
    ck_assert_status(tsched_dag_load_file(NULL, TSCHED_TEST_DATA "/priority/dag-small.json"), TSCHED_E_INVALID);
    ck_assert_status(tsched_dag_load_file(&d, NULL), TSCHED_E_INVALID);
    ck_assert_ptr_null(d);
    ck_assert_status(tsched_dag_load_string(NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_dag_load_string(&d, NULL, 2), TSCHED_E_INVALID);
    ck_assert_ptr_null(d);
    ck_assert_ok(tsched_dag_new(&d, 2));
    uint32_t lv[2];
    double cw;
    ck_assert_status(tsched_dag_compress(NULL, &cw, d, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("levels");
    ck_assert_status(tsched_dag_compress(lv, &cw, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("dag");
    ck_assert_ok(tsched_dag_compress(lv, NULL, d, NULL));
    char *s = NULL;
    ck_assert_status(tsched_levels_to_json(NULL, lv, 2, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_levels_to_json(&s, NULL, 2, 0), TSCHED_E_INVALID);
    ck_assert_ptr_null(s);
    tsched_dag_free(d);
    tsched_jobset *j2 = NULL;
    ck_assert_status(tsched_jobset_load_file(NULL, t, TSCHED_TEST_DATA "/priority/crux-jobset.json"),
                     TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_file(&j2, NULL, TSCHED_TEST_DATA "/priority/crux-jobset.json"),
                     TSCHED_E_INVALID);
    ck_assert_errmsg_has("topology is NULL");
    ck_assert_status(tsched_jobset_load_file(&j2, t, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(NULL, t, doc, strlen(doc)), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(&j2, NULL, doc, strlen(doc)), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(&j2, t, NULL, 3), TSCHED_E_INVALID);
    ck_assert_status(tsched_jobset_load_string(NULL, NULL, NULL, 0), TSCHED_E_INVALID);
    ck_assert_ptr_null(j2);
    tsched_jobset_free(NULL);
    ck_assert_uint_eq(tsched_jobset_count(NULL), 0);
    ck_assert_ptr_null(tsched_jobset_name(NULL, 0));
    tsched_priorities *p = NULL;
    ck_assert_status(tsched_prioritize(NULL, t, js, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out");
    ck_assert_status(tsched_prioritize(&p, NULL, js, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topo");
    ck_assert_status(tsched_prioritize(&p, t, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("jobs");
    ck_assert_ptr_null(p);
    tsched_priorities_free(NULL);
    ck_assert(tsched_priorities_intensity(NULL, 0) == 0);
    ck_assert(tsched_priorities_factor(NULL, 0) == 0);
    ck_assert(tsched_priorities_priority(NULL, 0) == 0);
    ck_assert_uint_eq(tsched_priorities_order(NULL, 0), 0);
    ck_assert_uint_eq(tsched_priorities_level(NULL, 0), 0);
    ck_assert_uint_eq(tsched_priorities_dag_edges(NULL), 0);
    ck_assert(tsched_priorities_total_weight(NULL) == 0);
    ck_assert(tsched_priorities_cut_weight(NULL) == 0);
    ck_assert_ok(tsched_prioritize(&p, t, js, NULL));
    ck_assert_status(tsched_priorities_to_json(NULL, p, js), TSCHED_E_INVALID);
    ck_assert_status(tsched_priorities_to_json(&s, NULL, js), TSCHED_E_INVALID);
    ck_assert_errmsg_has("p is NULL");
    ck_assert_status(tsched_priorities_to_json(&s, p, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("jobs is NULL");
    tsched_twojob a = {TJS, 1, 1, 0, 1};
    ck_assert_status(tsched_twojob_steady(NULL, NULL, NULL, NULL, &a, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("job a");
    ck_assert_status(tsched_twojob_steady(NULL, NULL, NULL, &a, NULL, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("job b");
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* Limits: job counts, flows, names and the compression's bounds. */
START_TEST(jobset_limits)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    static const char two[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK ", "
                              "{\"name\": \"b\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": ["
                              "{\"src\": \"n1\", \"dst\": \"n0\", \"gbits\": 1}, {\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 1}]}]}";
    tsched_limits lim = {.size = sizeof lim};
    ck_assert_ok(tsched_limits_get(&lim));
    lim.dag_nodes = 1;
    ck_assert_ok(tsched_limits_set(&lim));
    tsched_jobset *js = (tsched_jobset *)1;
    ck_assert_status(tsched_jobset_load_string(&js, t, two, strlen(two)), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("dag_nodes = 1");
    ck_assert_ptr_null(js);
    tsched_limits_reset();
    ck_assert_ok(tsched_limits_get(&lim));
    lim.flows = 2;
    ck_assert_ok(tsched_limits_set(&lim));
    ck_assert_status(tsched_jobset_load_string(&js, t, two, strlen(two)), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("flows = 2");
    ck_assert_errmsg_has("3");
    tsched_limits_reset();
    static const char badname[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": [" JOB_OK ", "
                                  "{\"name\": \"a~b\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": ["
                                  "{\"src\": \"n1\", \"dst\": \"n0\", \"gbits\": 1}]}]}";
    ck_assert_status(tsched_jobset_load_string(&js, t, badname, strlen(badname)), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[1].name");
    ck_assert_ptr_null(js);
    static const char ctl[] = "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
                              "{\"name\": \"a\\u0001\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 10, \"flows\": ["
                              "{\"src\": \"n1\", \"dst\": \"n0\", \"gbits\": 1}]}]}";
    ck_assert_status(tsched_jobset_load_string(&js, t, ctl, strlen(ctl)), TSCHED_E_RANGE);
    ck_assert_errmsg_has("jobs[0].name");

    /* compression bounds through tsched_prioritize */
    js = load_set(t, two);
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    tsched_priorities *p = (tsched_priorities *)1;
    o.levels = 65;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("levels: 65 exceeds the limit kcut_levels = 64");
    ck_assert_ptr_null(p);
    o.levels = 2;
    o.orders = UINT32_MAX;
    ck_assert_status(tsched_prioritize(&p, t, js, &o), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("orders: 4294967295 exceeds the limit kcut_orders = 10000");
    o.orders = 10000;
    ck_assert_ok(tsched_prioritize(&p, t, js, &o));
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST


/* ---- the job-set builder ------------------------------------------------------------------ */

static char *prio_json(const tsched_topology *t, const tsched_jobset *js, uint32_t levels)
{
    tsched_priorities *p = run(t, js, levels);
    char *s = NULL;
    ck_assert_ok(tsched_priorities_to_json(&s, p, js));
    tsched_priorities_free(p);
    return s;
}

/* The same job set built through the calls (jobs first, then the flows round-robin over
 * the jobs, so a job's flows are not contiguous) and loaded from JSON gives the same bytes. */
START_TEST(builder_equals_loader)
{
    tsched_topology *t = tu_gen_clos3(2, 4, 2, 4, 8, 8, 2, 200, 0);
    char *doc = big_jobset();
    tsched_jobset *loaded = load_set(t, doc);
    json_error_t err;
    json_t *root = json_loads(doc, 0, &err), *jobs = json_object_get(root, "jobs");
    ck_assert_ptr_nonnull(root);
    tsched_jobset *built = NULL;
    ck_assert_ok(tsched_jobset_new(&built, t));
    size_t maxf = 0;
    for (size_t j = 0; j < json_array_size(jobs); j++) {
        json_t *o = json_array_get(jobs, j);
        uint32_t index = 99;
        ck_assert_ok(tsched_jobset_add_job(&index, built, json_string_value(json_object_get(o, "name")),
                                           (uint32_t)json_integer_value(json_object_get(o, "gpus")),
                                           json_number_value(json_object_get(o, "work_tflop")),
                                           json_number_value(json_object_get(o, "compute_ms")),
                                           json_number_value(json_object_get(o, "overlap"))));
        ck_assert_uint_eq(index, j);
        if (json_array_size(json_object_get(o, "flows")) > maxf)
            maxf = json_array_size(json_object_get(o, "flows"));
    }
    for (size_t k = 0; k < maxf; k++)
        for (size_t j = 0; j < json_array_size(jobs); j++) {
            json_t *f = json_array_get(json_object_get(json_array_get(jobs, j), "flows"), k);
            if (!f)
                continue;
            ck_assert_ok(tsched_jobset_add_flow(
                built, (uint32_t)j, tu_node(t, json_string_value(json_object_get(f, "src"))),
                (uint32_t)json_integer_value(json_object_get(f, "src_nic")),
                tu_node(t, json_string_value(json_object_get(f, "dst"))),
                (uint32_t)json_integer_value(json_object_get(f, "dst_nic")),
                json_number_value(json_object_get(f, "gbits")), NULL));
        }
    ck_assert_uint_eq(tsched_jobset_count(built), tsched_jobset_count(loaded));
    for (uint32_t levels = 1; levels <= 4; levels += 3) {
        char *a = prio_json(t, loaded, levels), *b = prio_json(t, built, levels);
        ck_assert_str_eq(a, b);
        tsched_free(a);
        tsched_free(b);
    }
    json_decref(root);
    free(doc);
    tsched_jobset_free(loaded);
    tsched_jobset_free(built);
    tsched_topology_free(t);
}
END_TEST

/* The path n0 -> n2 through spine `spine` of the hand fabric. */
static tsched_path path_via(const tsched_topology *t, const char *spine)
{
    tsched_path ps[4];
    size_t n = 0;
    ps[0].size = sizeof ps[0];
    ck_assert_ok(tsched_topology_paths(ps, 4, &n, t, tu_node(t, "n0"), 0, tu_node(t, "n2"), 0));
    for (size_t i = 0; i < n; i++)
        if (ps[i].nswitches == 3 && ps[i].switches[1] == tu_sw(t, spine))
            return ps[i];
    ck_abort_msg("no path via %s", spine);
    return ps[0];
}

/* Pinned paths are kept. Spine S0's trunks carry 200 Gbit/s, S1's 100; NICs 400. "strong"
 * (W = 10) sends 100 Gb n0 -> n2, "weak" (W = 1) 50 Gb n1 -> n3.
 * Free (path_selection_by_intensity): strong takes S0, t = 100/200 = 0.5 s, I = 20; weak
 * S1, t = 0.5 s, I = 2.
 * Strong pinned through S1: t = 100/100 = 1 s, I = 10. Weak, chosen after it, sees
 * (0 + 50)/200 = 0.25 on S0 against (100 + 50)/100 = 1.5 on S1: S0, t = max(50/200, 50/400)
 * = 0.25 s, I = 4. No link shared: no DAG edge.
 * Both pinned through S1: weak t = 50/100 = 0.5 s, I = 2; they share L0~S1 and S1~L1: one
 * edge from strong (P = 10 > 2 with factors of 1: overlap 1, long computation) of weight 10.
 * The reader's `hops` pins the same way (same bytes). */
START_TEST(pinned_paths_honoured)
{
    const double g[] = {200, 100};
    tsched_topology *t = fabric(2, 2, 2, 400, g);
    uint32_t n0 = tu_node(t, "n0"), n1 = tu_node(t, "n1"), n2 = tu_node(t, "n2"), n3 = tu_node(t, "n3");
    tsched_path s1 = path_via(t, "S1");
    for (int both = 0; both < 2; both++) {
        tsched_jobset *js = NULL;
        uint32_t strong, weak;
        ck_assert_ok(tsched_jobset_new(&js, t));
        ck_assert_ok(tsched_jobset_add_job(&weak, js, "weak", 8, 1, 1e6, 1));
        ck_assert_ok(tsched_jobset_add_job(&strong, js, "strong", 8, 10, 1e6, 1));
        /* weak's path n1 -> n3 via S1: same switches and links as n0 -> n2 */
        ck_assert_ok(tsched_jobset_add_flow(js, weak, n1, 0, n3, 0, 50, both ? &s1 : NULL));
        ck_assert_ok(tsched_jobset_add_flow(js, strong, n0, 0, n2, 0, 100, &s1));
        tsched_priorities *p = run(t, js, 2);
        ck_near(tsched_priorities_intensity(p, strong), 10, 1e-12);
        ck_near(tsched_priorities_intensity(p, weak), both ? 2 : 4, 1e-12);
        ck_assert_uint_eq(tsched_priorities_dag_edges(p), both ? 1 : 0);
        ck_near(tsched_priorities_total_weight(p), both ? 10 : 0, 1e-12);
        ck_assert_uint_eq(tsched_priorities_order(p, strong), 0);
        char *a = NULL;
        ck_assert_ok(tsched_priorities_to_json(&a, p, js));
        tsched_priorities_free(p);
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"format\": \"tsched.jobset.v1\", \"jobs\": ["
                 "{\"name\": \"weak\", \"gpus\": 8, \"work_tflop\": 1, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
                 "{\"src\": \"n1\", \"dst\": \"n3\", \"gbits\": 50%s}]},"
                 "{\"name\": \"strong\", \"gpus\": 8, \"work_tflop\": 10, \"compute_ms\": 1e6, \"overlap\": 1, \"flows\": ["
                 "{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 100, \"hops\": [\"L0\", \"S1\", \"L1\"]}]}]}",
                 both ? ", \"hops\": [\"L0\", \"S1\", \"L1\"]" : "");
        tsched_jobset *lj = load_set(t, doc);
        char *b = prio_json(t, lj, 2);
        ck_assert_str_eq(a, b);
        tsched_free(a);
        tsched_free(b);
        tsched_jobset_free(lj);
        tsched_jobset_free(js);
    }
    /* unpinned, strong takes S0 (I = 20) */
    tsched_jobset *js = NULL;
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "strong", 8, 10, 1e6, 1));
    ck_assert_ok(tsched_jobset_add_flow(js, 0, n0, 0, n2, 0, 100, NULL));
    tsched_priorities *p = run(t, js, 2);
    ck_near(tsched_priorities_intensity(p, 0), 20, 1e-12);
    tsched_priorities_free(p);
    /* a pinned path stays even when its spine is down (the caller's routing decides) */
    tsched_jobset_free(js);
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "strong", 8, 10, 1e6, 1));
    ck_assert_ok(tsched_jobset_add_flow(js, 0, n0, 0, n2, 0, 100, &s1));
    ck_assert_ok(tsched_topology_set_up(t, "S1", 0));
    p = run(t, js, 2);
    ck_near(tsched_priorities_intensity(p, 0), 10, 1e-12);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

/* Jobs without flows (all traffic inside a node): intensity, priority and traffic 0,
 * factor 1, ordered first, no DAG edge, finite JSON; with no traffic at all the reference
 * is null. */
START_TEST(builder_jobs_without_flows)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    tsched_jobset *js = NULL;
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "net", 8, 10, 100, 0.5));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "local", 8, 10, 100, 0.5));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "net2", 8, 1, 100, 0.5));
    ck_assert_ok(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 10, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, 2, 1, 0, 3, 0, 10, NULL));
    ck_assert_ok(tsched_jobset_add_flow(js, 2, 0, 0, 2, 0, 10, NULL));
    tsched_priorities *p = run(t, js, 3);
    ck_assert_uint_eq(tsched_priorities_order(p, 1), 0);
    ck_assert_uint_eq(tsched_priorities_order(p, 0), 1);
    ck_assert_uint_eq(tsched_priorities_order(p, 2), 2);
    ck_near(tsched_priorities_intensity(p, 1), 0, 0);
    ck_near(tsched_priorities_priority(p, 1), 0, 0);
    ck_near(tsched_priorities_factor(p, 1), 1, 0);
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 1); /* net and net2 share n0's NIC */
    json_t *root = to_json(p, js);
    json_t *loc = json_array_get(json_object_get(root, "jobs"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(loc, "name")), "local");
    ck_near(json_number_value(json_object_get(loc, "traffic_gbits")), 0, 0);
    ck_near(json_number_value(json_object_get(loc, "bottleneck_ms")), 0, 0);
    ck_assert_str_eq(json_string_value(json_object_get(root, "reference")), "net2"); /* the most traffic */
    json_decref(root);
    tsched_priorities_free(p);
    tsched_jobset_free(js);

    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "a", 8, 10, 100, 0.5));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "b", 8, 10, 100, 0.5));
    p = run(t, js, 8);
    ck_assert_uint_eq(tsched_priorities_dag_edges(p), 0);
    char *s = NULL;
    ck_assert_ok(tsched_priorities_to_json(&s, p, js));
    ck_assert_ptr_null(strstr(s, "nan"));
    ck_assert_ptr_null(strstr(s, "inf"));
    root = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(root);
    ck_assert(json_is_null(json_object_get(root, "reference")));
    json_decref(root);
    tsched_free(s);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
}
END_TEST

#define ck_builder_err(call, status, needle)                                                                       \
    do {                                                                                                           \
        uint32_t before_ = tsched_jobset_count(js);                                                                \
        ck_assert_status(call, status);                                                                            \
        ck_assert_errmsg_has(needle);                                                                              \
        ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));                                                     \
        ck_assert_uint_eq(tsched_jobset_count(js), before_);                                                       \
    } while (0)

/* Every error of the builder names the argument; nothing is added on failure. */
START_TEST(builder_errors)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g), *twin = fabric(2, 2, 2, 100, g);
    tsched_jobset *js = (tsched_jobset *)1;
    ck_assert_status(tsched_jobset_new(&js, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("topo");
    ck_assert_ptr_null(js);
    ck_assert_status(tsched_jobset_new(NULL, t), TSCHED_E_INVALID);
    ck_assert_errmsg_has("out");
    tsched_topology *unbuilt = NULL;
    ck_assert_ok(tsched_topology_new(&unbuilt, "unbuilt"));
    ck_assert_status(tsched_jobset_new(&js, unbuilt), TSCHED_E_STATE);
    tsched_topology_free(unbuilt);
    ck_assert_ok(tsched_jobset_new(&js, t));
    ck_assert_ok(tsched_jobset_add_job(NULL, js, "a", 8, 1, 10, 0));
    /* jobs */
    ck_assert_status(tsched_jobset_add_job(NULL, NULL, "b", 8, 1, 10, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("js");
    ck_builder_err(tsched_jobset_add_job(NULL, js, NULL, 8, 1, 10, 0), TSCHED_E_INVALID, "name");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "a", 8, 1, 10, 0), TSCHED_E_DUPLICATE, "jobs[1].name");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "x~y", 8, 1, 10, 0), TSCHED_E_RANGE, "jobs[1].name");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "", 8, 1, 10, 0), TSCHED_E_RANGE, "jobs[1].name");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 0, 1, 10, 0), TSCHED_E_RANGE, "jobs[1].gpus");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 0, 10, 0), TSCHED_E_RANGE, "jobs[1].work_tflop");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, NAN, 10, 0), TSCHED_E_RANGE, "jobs[1].work_tflop");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1e13, 10, 0), TSCHED_E_RANGE, "jobs[1].work_tflop");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1, 1e-7, 0), TSCHED_E_RANGE, "jobs[1].compute_ms");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1, INFINITY, 0), TSCHED_E_RANGE, "jobs[1].compute_ms");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1, 10, 1.5), TSCHED_E_RANGE, "jobs[1].overlap");
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1, 10, -0.1), TSCHED_E_RANGE, "jobs[1].overlap");
    tsched_limits lim = {.size = sizeof lim};
    ck_assert_ok(tsched_limits_get(&lim));
    lim.dag_nodes = 1;
    ck_assert_ok(tsched_limits_set(&lim));
    ck_builder_err(tsched_jobset_add_job(NULL, js, "b", 8, 1, 10, 0), TSCHED_E_TOO_LARGE, "dag_nodes = 1");
    tsched_limits_reset();
    /* flows */
    ck_assert_status(tsched_jobset_add_flow(NULL, 0, 0, 0, 2, 0, 1, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("js");
    ck_builder_err(tsched_jobset_add_flow(js, 1, 0, 0, 2, 0, 1, NULL), TSCHED_E_INVALID, "job 1");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 8, 0, 2, 0, 1, NULL), TSCHED_E_INVALID, "jobs[0].flows[0].src_node");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 9, 0, 1, NULL), TSCHED_E_INVALID, "dst_node: node 9");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 1, 2, 0, 1, NULL), TSCHED_E_INVALID, "src_nic: NIC 1");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 3, 1, NULL), TSCHED_E_INVALID, "dst_nic: NIC 3");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 2, 0, 2, 0, 1, NULL), TSCHED_E_INVALID, "same node and NIC");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 0, NULL), TSCHED_E_RANGE, "jobs[0].flows[0].gbits");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, NAN, NULL), TSCHED_E_RANGE, "gbits");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1e13, NULL), TSCHED_E_RANGE, "gbits");
    tsched_path ok = path_via(t, "S1"), bad = ok;
    bad.size = 3;
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "tsched_path");
    bad.size = offsetof(tsched_path, links);
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "does not cover the links");
    bad = ok;
    bad.nswitches = 0;
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "jobs[0].flows[0].path");
    bad = ok;
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 1, 0, 1, &bad), TSCHED_E_INVALID,
                   "not at the destination NIC's leaf");
    ck_builder_err(tsched_jobset_add_flow(js, 0, 2, 0, 0, 0, 1, &bad), TSCHED_E_INVALID, "not at the source NIC's leaf");
    bad.links[0] ^= 1; /* the down direction of the up trunk */
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "links[0]");
    bad = ok;
    bad.links[1] = 2 * 1000;
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "links[1] = 2000");
    bad = ok;
    bad.switches[1] = tu_sw(t, "S0"); /* links still through S1 */
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "links[0]");
    /* a one-switch path between two leaves */
    bad = ok;
    bad.nswitches = 1;
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &bad), TSCHED_E_INVALID, "path");
    ck_assert_ok(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, &ok));
    ck_assert_ok(tsched_limits_get(&lim));
    lim.flows = 1;
    ck_assert_ok(tsched_limits_set(&lim));
    ck_builder_err(tsched_jobset_add_flow(js, 0, 0, 0, 2, 0, 1, NULL), TSCHED_E_TOO_LARGE, "flows = 1");
    tsched_limits_reset();
    /* same-leaf pinned path: the leaf alone */
    tsched_path leaf = {.size = sizeof leaf, .nswitches = 1};
    leaf.switches[0] = tu_sw(t, "L0");
    ck_assert_ok(tsched_jobset_add_flow(js, 0, 0, 0, 1, 0, 1, &leaf));
    /* identity: a set made for one fabric is refused by its twin */
    tsched_priorities *p = (tsched_priorities *)1;
    ck_assert_status(tsched_prioritize(&p, twin, js, NULL), TSCHED_E_MISMATCH);
    ck_assert_errmsg_has("job set");
    ck_assert_ptr_null(p);
    ck_assert_ok(tsched_prioritize(&p, t, js, NULL));
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
    tsched_topology_free(twin);
}
END_TEST

/* The reader's `hops`: unknown switch, missing link, wrong ends, not strings. */
START_TEST(jobset_hops_errors)
{
    const double g[] = {100, 100};
    tsched_topology *t = fabric(2, 2, 2, 100, g);
    static const struct {
        const char *hops, *needle;
        tsched_status st;
    } cases[] = {
        {"[\"L0\", \"S9\", \"L1\"]", "jobs[0].flows[0].hops[1]: no switch \"S9\"", TSCHED_E_INVALID},
        {"[\"L0\", \"L1\"]", "jobs[0].flows[0].hops[1]: no link", TSCHED_E_INVALID},
        {"[\"L1\", \"S0\", \"L1\"]", "jobs[0].flows[0].hops: starts at", TSCHED_E_INVALID},
        {"[\"L0\", \"S0\", \"L0\"]", "jobs[0].flows[0].hops: ends at", TSCHED_E_INVALID},
        {"[]", "jobs[0].flows[0].hops: ends at", TSCHED_E_INVALID},
        {"[\"L0\", 3, \"L1\"]", "jobs[0].flows[0].hops[1]", TSCHED_E_TYPE},
        {"\"L0\"", "jobs[0].flows[0].hops", TSCHED_E_TYPE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"format\": \"tsched.jobset.v1\", \"jobs\": [{\"name\": \"a\", \"gpus\": 8, \"work_tflop\": 1, "
                 "\"compute_ms\": 10, \"flows\": [{\"src\": \"n0\", \"dst\": \"n2\", \"gbits\": 1, \"hops\": %s}]}]}",
                 cases[i].hops);
        tsched_jobset *js = (tsched_jobset *)1;
        ck_assert_status(tsched_jobset_load_string(&js, t, doc, strlen(doc)), cases[i].st);
        ck_assert_errmsg_has(cases[i].needle);
        ck_assert_ptr_null(js);
    }
    tsched_topology_free(t);
}
END_TEST

static Suite *priority_suite(void)
{
    Suite *s = suite_create("priority");
    TCase *tc = tcase_create("crux");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, example1_steady_state);
    tcase_add_test(tc, example2_transient);
    tcase_add_test(tc, twojob_special_cases);
    tcase_add_test(tc, twojob_properties);
    tcase_add_test(tc, twojob_errors);
    tcase_add_test(tc, intensity_by_hand);
    tcase_add_test(tc, builder_equals_loader);
    tcase_add_test(tc, pinned_paths_honoured);
    tcase_add_test(tc, builder_jobs_without_flows);
    tcase_add_test(tc, builder_errors);
    tcase_add_test(tc, jobset_hops_errors);
    tcase_add_test(tc, path_selection_within_a_job);
    tcase_add_test(tc, path_selection_by_intensity);
    tcase_add_test(tc, example1_priorities);
    tcase_add_test(tc, example2_priorities);
    tcase_add_test(tc, dag_by_hand);
    tcase_add_test(tc, priorities_json_fields);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, jobset_errors);
    tcase_add_test(tc, prioritize_errors);
    tcase_add_test(tc, empty_jobset);
    tcase_add_test(tc, twojob_extreme_magnitudes);
    tcase_add_test(tc, jobset_extreme_magnitudes);
    tcase_add_test(tc, option_struct_sizes);
    tcase_add_test(tc, fabric_identity);
    tcase_add_test(tc, null_arguments);
    tcase_add_test(tc, jobset_limits);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, priority_kcut_tcase());
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(priority_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
