/* Workload suite: job shapes and Arnold Eq. 1, the App. C volumes against values worked
 * by hand, `tsched.job.v1` reading (every invalid-input class) and writing, the affinity
 * database (lookup, ties, bad records, the built-in records and their shipped JSON), and
 * alpha resolution. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"
#include "workload/workload_internal.h"

#define WL_DATA TSCHED_TEST_DATA "/workload"

static tsched_model model_of(uint32_t h, uint32_t l, uint32_t V, uint32_t s, uint32_t gb, uint32_t mb, uint32_t vpp,
                             uint32_t experts)
{
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = h;
    m.layers = l;
    m.vocab = V;
    m.seq = s;
    m.global_batch = gb;
    m.micro_batch = mb;
    m.vpp = vpp;
    m.moe_experts = experts;
    return m;
}

/* A job with a model; the test fails if either is rejected. */
static tsched_job *job_with_model(uint32_t gpus, uint32_t tp, uint32_t pp, tsched_model m)
{
    tsched_job *j = tu_job("t", gpus, tp, pp);
    ck_assert_ok(tsched_job_set_model(j, &m));
    return j;
}

static tsched_job *load_job(const char *json)
{
    tsched_job *j = NULL;
    ck_assert_ok(tsched_job_load_string(&j, json, strlen(json)));
    ck_assert_ptr_nonnull(j);
    return j;
}

static tsched_affinity *load_db(const char *json)
{
    tsched_affinity *db = NULL;
    ck_assert_ok(tsched_affinity_load_string(&db, json, strlen(json)));
    ck_assert_ptr_nonnull(db);
    return db;
}

/* Equal up to rounding: a relative 1e-12 (absolute near 0). */
#define ck_assert_close(x, want) ck_assert_double_eq_tol((x), (want), tol_for(want))
static double tol_for(double want) { return 1e-12 * (fabs(want) > 1 ? fabs(want) : 1); }

/* ---- shapes and Eq. 1 ---- */

START_TEST(matrix_arnold_table1)
{
    /* Arnold Table 1 shapes on 8-GPU nodes: rows = dp / (8 / tp), cols = pp. */
    static const struct {
        uint32_t gpus, tp, pp, gpn, dp, rows, cols;
    } cases[] = {
        {96, 4, 2, 8, 12, 6, 2},      /* DP12 TP4 PP2: 12 / (8/4) = 6 */
        {768, 4, 8, 8, 24, 12, 8},    /* DP24 TP4 PP8: 24 / 2 = 12 */
        {2944, 8, 8, 8, 46, 46, 8},   /* DP46 TP8 PP8: 46 / 1 = 46 */
        {32, 2, 2, 4, 8, 4, 2},       /* 4-GPU nodes: 8 / (4/2) = 4 */
        {64, 1, 4, 16, 16, 1, 4},     /* 16-GPU nodes, no TP: 16 / 16 = 1 */
        {8, 8, 1, 8, 1, 1, 1},        /* one node */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tsched_job *j = tu_job("t", cases[k].gpus, cases[k].tp, cases[k].pp);
        ck_assert_uint_eq(tsched_job_gpus(j), cases[k].gpus);
        ck_assert_uint_eq(tsched_job_tp(j), cases[k].tp);
        ck_assert_uint_eq(tsched_job_pp(j), cases[k].pp);
        ck_assert_uint_eq(tsched_job_dp(j), cases[k].dp);
        uint32_t rows = 0, cols = 0;
        ck_assert_ok(tsched_job_matrix(&rows, &cols, j, cases[k].gpn));
        ck_assert_msg(rows == cases[k].rows && cols == cases[k].cols, "case %zu: %ux%u, expected %ux%u", k, rows, cols,
                      cases[k].rows, cases[k].cols);
        tsched_job_free(j);
    }
}
END_TEST

START_TEST(matrix_errors)
{
    uint32_t rows = 77, cols = 77;
    /* tp 3 does not divide 8 GPUs per node */
    tsched_job *j = tu_job("t", 24, 3, 1);
    ck_assert_status(tsched_job_matrix(&rows, &cols, j, 8), TSCHED_E_RANGE);
    ck_assert_errmsg_has("tp: 3");
    ck_assert_errmsg_has("gpus_per_node 8");
    /* ... but it does on 6-GPU nodes: 8 / (6/3) = 4 rows */
    ck_assert_ok(tsched_job_matrix(&rows, &cols, j, 6));
    ck_assert_uint_eq(rows, 4);
    ck_assert_uint_eq(cols, 1);
    tsched_job_free(j);
    /* tp 16 larger than the node */
    j = tu_job("t", 32, 16, 2);
    ck_assert_status(tsched_job_matrix(&rows, &cols, j, 8), TSCHED_E_RANGE);
    ck_assert_errmsg_has("tp: 16");
    tsched_job_free(j);
    /* dp 2 is not a multiple of 8 / 2 = 4 TP groups per node */
    j = tu_job("t", 8, 2, 2);
    rows = cols = 77;
    ck_assert_status(tsched_job_matrix(&rows, &cols, j, 8), TSCHED_E_RANGE);
    ck_assert_errmsg_has("dp = 8 / (tp 2 * pp 2) = 2");
    ck_assert_errmsg_has("gpus_per_node / tp = 8 / 2 = 4");
    ck_assert_uint_eq(rows, 77); /* untouched on failure */
    /* zero GPUs per node and NULL arguments */
    ck_assert_status(tsched_job_matrix(&rows, &cols, j, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("gpus_per_node");
    ck_assert_status(tsched_job_matrix(NULL, &cols, j, 8), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_matrix(&rows, NULL, j, 8), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_matrix(&rows, &cols, NULL, 8), TSCHED_E_INVALID);
    tsched_job_free(j);
}
END_TEST

START_TEST(job_new_defaults_and_shape_errors)
{
    tsched_job *j = tu_job(NULL, 96, 4, 2);
    ck_assert_str_eq(tsched_job_name(j), "job");
    ck_assert_uint_eq(tsched_job_dp(j), 12);
    ck_assert_double_eq(tsched_job_alpha(j), 0.5);
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_PP);
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_AUTO);
    tsched_model m;
    tsched_model_init(&m);
    ck_assert_status(tsched_job_model(&m, j), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("model");
    tsched_job_free(j);
    j = tu_job("", 8, 8, 1); /* an empty name would not survive JSON ("name" must not be empty) */
    ck_assert_str_eq(tsched_job_name(j), "job");
    tsched_job_free(j);
    j = tu_job("llm-a", 2944, 8, 8);
    ck_assert_str_eq(tsched_job_name(j), "llm-a");
    tsched_job_free(j);

    j = (tsched_job *)&m; /* must be reset to NULL on failure */
    ck_assert_status(tsched_job_new(&j, "x", 2944, 3, 8), TSCHED_E_RANGE);
    ck_assert_ptr_null(j);
    ck_assert_errmsg_has("tp: 3 does not divide gpus 2944");
    ck_assert_status(tsched_job_new(&j, "x", 96, 4, 5), TSCHED_E_RANGE);
    ck_assert_errmsg_has("pp: 5 does not divide gpus / tp = 96 / 4 = 24");
    ck_assert_status(tsched_job_new(&j, "x", 0, 1, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("gpus:");
    ck_assert_status(tsched_job_new(&j, "x", 8, 0, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("tp:");
    ck_assert_status(tsched_job_new(&j, "x", 8, 1, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("pp:");
    /* tp * pp would overflow 32 bits; dp must still be judged correctly */
    ck_assert_status(tsched_job_new(&j, "x", 65536, 65536, 65536), TSCHED_E_RANGE);
    ck_assert_errmsg_has("pp: 65536");
    ck_assert_status(tsched_job_new(NULL, "x", 8, 1, 1), TSCHED_E_INVALID);
}
END_TEST

START_TEST(setters_and_getters)
{
    tsched_job *j = tu_job("t", 16, 8, 2);
    ck_assert_ok(tsched_job_set_alpha(j, 0.3));
    ck_assert_double_eq(tsched_job_alpha(j), 0.3);
    ck_assert_ok(tsched_job_set_alpha(j, 0));
    ck_assert_ok(tsched_job_set_alpha(j, 1));
    ck_assert_status(tsched_job_set_alpha(j, 1.5), TSCHED_E_RANGE);
    ck_assert_errmsg_has("alpha: 1.5 is out of range [0, 1]");
    ck_assert_status(tsched_job_set_alpha(j, -0.1), TSCHED_E_RANGE);
    ck_assert_status(tsched_job_set_alpha(j, NAN), TSCHED_E_RANGE);
    ck_assert_double_eq(tsched_job_alpha(j), 1); /* unchanged by the failures */
    /* auto needs a model */
    ck_assert_status(tsched_job_set_alpha_auto(j), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("model");
    ck_assert_double_eq(tsched_job_alpha(j), 1);

    ck_assert_ok(tsched_job_set_unit(j, TSCHED_UNIT_DP));
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_DP);
    ck_assert_status(tsched_job_set_unit(j, (tsched_unit)7), TSCHED_E_RANGE);
    ck_assert_errmsg_has("unit");
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_DP);
    ck_assert_ok(tsched_job_set_domain(j, TSCHED_DOMAIN_LEAF));
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_LEAF);
    ck_assert_status(tsched_job_set_domain(j, (tsched_domain)2), TSCHED_E_RANGE); /* cluster: no spread */
    ck_assert_errmsg_has("domain");
    ck_assert_status(tsched_job_set_domain(j, (tsched_domain)4), TSCHED_E_RANGE);
    ck_assert_ok(tsched_job_set_domain(j, TSCHED_DOMAIN_NVL));
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_NVL);
    ck_assert_ok(tsched_job_set_domain(j, TSCHED_DOMAIN_LEAF));

    /* model: copied in and out */
    tsched_model m = model_of(6144, 48, 64000, 4096, 1024, 2, 3, 8), got;
    ck_assert_ok(tsched_job_set_model(j, &m));
    m.hidden = 1; /* the job holds a copy */
    tsched_model_init(&got);
    ck_assert_ok(tsched_job_model(&got, j));
    ck_assert_uint_eq(got.size, sizeof got);
    ck_assert_uint_eq(got.hidden, 6144);
    ck_assert_uint_eq(got.layers, 48);
    ck_assert_uint_eq(got.vocab, 64000);
    ck_assert_uint_eq(got.seq, 4096);
    ck_assert_uint_eq(got.global_batch, 1024);
    ck_assert_uint_eq(got.micro_batch, 2);
    ck_assert_uint_eq(got.vpp, 3);
    ck_assert_uint_eq(got.moe_experts, 8);
    got.size = 0;
    ck_assert_status(tsched_job_model(&got, j), TSCHED_E_INVALID);
    got.size = sizeof got;
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    ck_assert_double_lt(tsched_job_alpha(j), 0);
    ck_assert_ok(tsched_job_set_alpha(j, 0.25)); /* explicit again */
    ck_assert_double_eq(tsched_job_alpha(j), 0.25);

    /* model checks name the field */
    static const char *const fields[] = {"hidden", "layers", "vocab", "seq", "global_batch", "micro_batch", "vpp"};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        tsched_model bad = model_of(8, 2, 10, 3, 8, 2, 1, 0);
        uint32_t *f[] = {&bad.hidden, &bad.layers, &bad.vocab, &bad.seq, &bad.global_batch, &bad.micro_batch, &bad.vpp};
        *f[k] = 0;
        ck_assert_status(tsched_job_set_model(j, &bad), TSCHED_E_RANGE);
        char want[64];
        snprintf(want, sizeof want, "model.%s: must be at least 1", fields[k]);
        ck_assert_errmsg_has(want);
    }
    tsched_model bad = model_of(8, 2, 10, 3, 10, 4, 1, 0);
    ck_assert_status(tsched_job_set_model(j, &bad), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.global_batch: 10 is not a multiple of model.micro_batch 4");
    bad.size = 0; /* not initialised */
    ck_assert_status(tsched_job_set_model(j, &bad), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_set_model(j, NULL), TSCHED_E_INVALID);
    ck_assert_ok(tsched_job_model(&got, j)); /* failures kept the old model */
    ck_assert_uint_eq(got.hidden, 6144);

    /* NULL handles */
    ck_assert_status(tsched_job_set_alpha(NULL, 0.5), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_set_alpha_auto(NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_set_unit(NULL, TSCHED_UNIT_PP), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_set_domain(NULL, TSCHED_DOMAIN_POD), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_model(&got, NULL), TSCHED_E_INVALID);
    ck_assert_ptr_null(tsched_job_name(NULL));
    ck_assert_uint_eq(tsched_job_gpus(NULL), 0);
    ck_assert_uint_eq(tsched_job_tp(NULL), 0);
    ck_assert_uint_eq(tsched_job_pp(NULL), 0);
    ck_assert_uint_eq(tsched_job_dp(NULL), 0);
    ck_assert(isnan(tsched_job_alpha(NULL)));
    tsched_job_free(NULL);
    tsched_job_free(j);

    tsched_model d;
    tsched_model_init(&d);
    ck_assert_uint_eq(d.size, sizeof d);
    ck_assert_uint_eq(d.hidden, 4096);
    ck_assert_uint_eq(d.layers, 32);
    ck_assert_uint_eq(d.vocab, 32000);
    ck_assert_uint_eq(d.seq, 4096);
    ck_assert_uint_eq(d.global_batch, 512);
    ck_assert_uint_eq(d.micro_batch, 1);
    ck_assert_uint_eq(d.vpp, 1);
    ck_assert_uint_eq(d.moe_experts, 0);
    tsched_model_init(NULL);
}
END_TEST

/* ---- App. C volumes, worked by hand ----
 *
 * Small dense job S: gpus 8, tp 2, pp 2 -> dp 2; h 4, l 2, V 10, s 3, gb 8, mb 2.
 *   m     = gb / (mb * dp) = 8 / (2 * 2) = 2                                  (Eq. 11)
 *   attention 4h^2 + 2h = 64 + 8 = 72; dense FFN 8h^2 + 7h = 128 + 28 = 156; layer = 228
 *   embedding h (V + s) = 4 * 13 = 52; layers per stage l / pp = 1
 *   v_d = v_w = (52 + 1 * 228) / tp = 280 / 2 = 140                            (Eq. 12)
 *   v_p = 2 * mb * s * h / tp = 2 * 2 * 3 * 4 / 2 = 24                          (Eq. 13)
 *   r1 = mb * v_w / (v_d + v_p) = 2 * 140 / 164 = 70 / 41;  r2 = 140 / 24 = 35 / 6
 */
START_TEST(volumes_dense_by_hand)
{
    tsched_job *j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    tsched_volumes v = {.size = sizeof v};
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.microbatches, 2);
    ck_assert_close(v.weights, 140);
    ck_assert_close(v.dp, 140);
    ck_assert_close(v.pp, 24);
    ck_assert_close(v.r1, 70.0 / 41.0);
    ck_assert_close(v.r2, 35.0 / 6.0);
    tsched_job_free(j);

    /* Same model with tp 1 on 8 GPUs (dp 4), gb 16: m = 16 / (2 * 4) = 2; dense per-GPU
     * volumes do not depend on dp, and tp 1 doubles them: v_w = v_d = 280, v_p = 48. */
    j = job_with_model(8, 1, 2, model_of(4, 2, 10, 3, 16, 2, 1, 0));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.microbatches, 2);
    ck_assert_close(v.weights, 280);
    ck_assert_close(v.dp, 280);
    ck_assert_close(v.pp, 48);
    ck_assert_close(v.r2, 280.0 / 48.0);
    tsched_job_free(j);
}
END_TEST

/* 24B dense on H800 (doc/workload.md): h 6144, l 48, V 64000, s 4096, tp 8, pp 8, mb 1.
 *   layer 12 h^2 + 9 h = 452,984,832 + 55,296 = 453,040,128; x 6 layers = 2,718,240,768
 *   embedding 6144 * 68,096 = 418,381,824; sum 3,136,622,592; / 8 = 392,077,824
 *   v_p = 2 * 4096 * 6144 / 8 = 6,291,456; r2 = 392,077,824 / 6,291,456 = 62.319091796875 */
START_TEST(volumes_paper_scale)
{
    tsched_job *j = job_with_model(2944, 8, 8, model_of(6144, 48, 64000, 4096, 1472, 1, 1, 0));
    tsched_volumes v = {.size = sizeof v};
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 392077824.0);
    ck_assert_close(v.dp, 392077824.0);
    ck_assert_close(v.pp, 6291456.0);
    ck_assert_close(v.microbatches, 32); /* 1472 / 46 */
    ck_assert_close(v.r2, 62.319091796875);
    ck_assert_close(v.r1, 392077824.0 / (392077824.0 + 6291456.0));
    tsched_job_free(j);
}
END_TEST

/* vpp: gpus 8, tp 2, pp 2, h 4, l 4, V 10, s 3, gb 8, mb 2, vpp 2.
 *   layers per GPU l / pp = 2 (as two virtual stages of 1): v_w = v_d = (52 + 2 * 228) / 2 = 254
 *   v_p = 2 * mb * s * h * vpp / tp = 2 * 2 * 3 * 4 * 2 / 2 = 48 (each micro-batch leaves the
 *   GPU once per virtual stage it holds)
 *   r1 = 2 * 254 / (254 + 48) = 508 / 302;  r2 = 254 / 48 */
START_TEST(volumes_vpp)
{
    tsched_job *j = job_with_model(8, 2, 2, model_of(4, 4, 10, 3, 8, 2, 2, 0));
    tsched_volumes v = {.size = sizeof v};
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 254);
    ck_assert_close(v.dp, 254);
    ck_assert_close(v.pp, 48);
    ck_assert_close(v.microbatches, 2);
    ck_assert_close(v.r1, 508.0 / 302.0);
    ck_assert_close(v.r2, 254.0 / 48.0);
    tsched_job_free(j);
    /* vpp 1 on the same shape: v_p = 24, v_w unchanged */
    j = job_with_model(8, 2, 2, model_of(4, 4, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 254);
    ck_assert_close(v.pp, 24);
    tsched_job_free(j);
    /* l / pp = 1 layer cannot be split into vpp 2 virtual stages */
    j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 8, 2, 2, 0));
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.layers: 2 is not a multiple of pp * model.vpp = 2 * 2");
    tsched_job_free(j);
}
END_TEST

/* MoE, expert parallelism ep = gcd(E, dp) inside the DP group, on the shape of S
 * (attention 72, expert FFN 156, embedding 52, tp 2, v_p 24, mb 2):
 *  (a) E 4, dp 2: ep 2 -> 2 experts per GPU; dp / ep = 1 replica, so expert gradients are
 *      not all-reduced: v_w = (52 + 72 + 2 * 156) / 2 = 218, v_d = (52 + 72) / 2 = 62,
 *      r1 = 2 * 218 / (62 + 24) = 436 / 86, r2 = 62 / 24
 *  (b) E 3, dp 2: ep 1 -> all 3 experts on every GPU, 2 replicas:
 *      v_w = v_d = (52 + 72 + 3 * 156) / 2 = 296, r1 = 592 / 320, r2 = 296 / 24
 *  (c) E 2, dp 4 (gpus 16, gb 16): ep 2 -> 1 expert per GPU, 2 replicas:
 *      v_w = v_d = (52 + 72 + 156) / 2 = 140 (the dense value), r2 = 140 / 24 */
START_TEST(volumes_moe)
{
    tsched_volumes v = {.size = sizeof v};
    tsched_job *j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 4));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 218);
    ck_assert_close(v.dp, 62);
    ck_assert_close(v.pp, 24);
    ck_assert_close(v.r1, 436.0 / 86.0);
    ck_assert_close(v.r2, 62.0 / 24.0);
    tsched_job_free(j);

    j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 3));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 296);
    ck_assert_close(v.dp, 296);
    ck_assert_close(v.r1, 592.0 / 320.0);
    ck_assert_close(v.r2, 296.0 / 24.0);
    tsched_job_free(j);

    j = job_with_model(16, 2, 2, model_of(4, 2, 10, 3, 16, 2, 1, 2));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 140);
    ck_assert_close(v.dp, 140);
    ck_assert_close(v.r2, 140.0 / 24.0);
    tsched_job_free(j);

    ck_assert_uint_eq(ts_expert_parallel(8, 46), 2);
    ck_assert_uint_eq(ts_expert_parallel(8, 128), 8);
    ck_assert_uint_eq(ts_expert_parallel(0, 128), 1);
    ck_assert_uint_eq(ts_expert_parallel(7, 12), 1);
}
END_TEST

/* Groups of one member do not communicate between GPUs:
 *  pp 1 (gpus 4, tp 2, dp 2, l 2, gb 8, mb 2): v_w = v_d = (52 + 2 * 228) / 2 = 254, v_p = 0,
 *      r1 = mb * v_w / v_d = 2, r2 = +inf
 *  dp 1 (gpus 4, tp 2, pp 2, gb 8, mb 2 -> m 4): v_w = 140, v_d = 0, v_p = 24,
 *      r1 = 2 * 140 / 24, r2 = 0 */
START_TEST(volumes_single_member_groups)
{
    tsched_volumes v = {.size = sizeof v};
    tsched_job *j = job_with_model(4, 2, 1, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.weights, 254);
    ck_assert_close(v.dp, 254);
    ck_assert_double_eq(v.pp, 0);
    ck_assert_close(v.r1, 2);
    ck_assert(isinf(v.r2) && v.r2 > 0);
    tsched_job_free(j);
    j = job_with_model(4, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert_close(v.microbatches, 4);
    ck_assert_close(v.weights, 140);
    ck_assert_double_eq(v.dp, 0);
    ck_assert_close(v.pp, 24);
    ck_assert_close(v.r1, 280.0 / 24.0);
    ck_assert_double_eq(v.r2, 0);
    tsched_job_free(j);
    /* a single GPU: nothing leaves it */
    j = job_with_model(1, 1, 1, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert(isinf(v.r1));
    ck_assert_double_eq(v.r2, 0);
    tsched_job_free(j);
}
END_TEST

START_TEST(volumes_errors)
{
    tsched_volumes v = {.size = sizeof v};
    tsched_job *j = tu_job("nomodel", 8, 2, 2);
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("model");
    ck_assert_status(tsched_job_volumes(NULL, j), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_volumes(&v, NULL), TSCHED_E_INVALID);
    tsched_job_free(j);
    /* gb 6 is a multiple of mb 2 (accepted by set_model) but not of mb * dp = 4 */
    j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 6, 2, 1, 0));
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.global_batch: 6 is not a multiple of model.micro_batch * dp = 2 * 2");
    tsched_job_free(j);
    /* 3 layers on 2 stages */
    j = job_with_model(8, 2, 2, model_of(4, 3, 10, 3, 8, 2, 1, 0));
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.layers: 3 is not a multiple of pp 2");
    tsched_job_free(j);
    /* DESIGN 5.2's example: gb 1024 is not a multiple of dp 46 */
    j = NULL;
    ck_assert_ok(tsched_job_load_file(&j, WL_DATA "/llm-a.json"));
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.global_batch: 1024");
    tsched_job_free(j);
}
END_TEST

/* ---- tsched.job.v1 ---- */

static const char design_doc[] =
    "{ \"format\": \"tsched.job.v1\", \"name\": \"llm-a\",\n"
    "  \"gpus\": 2944, \"tp\": 8, \"pp\": 8,\n"
    "  \"unit\": \"pp\", \"alpha\": 0.3,\n"
    "  \"model\": { \"hidden\": 6144, \"layers\": 48, \"vocab\": 64000, \"seq\": 4096,\n"
    "             \"global_batch\": 1024, \"micro_batch\": 1, \"vpp\": 1, \"moe_experts\": 0 } }";

START_TEST(json_load_valid)
{
    tsched_job *j = load_job(design_doc);
    ck_assert_str_eq(tsched_job_name(j), "llm-a");
    ck_assert_uint_eq(tsched_job_gpus(j), 2944);
    ck_assert_uint_eq(tsched_job_tp(j), 8);
    ck_assert_uint_eq(tsched_job_pp(j), 8);
    ck_assert_uint_eq(tsched_job_dp(j), 46);
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_PP);
    ck_assert_double_eq(tsched_job_alpha(j), 0.3);
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_AUTO);
    tsched_model m;
    tsched_model_init(&m);
    ck_assert_ok(tsched_job_model(&m, j));
    ck_assert_uint_eq(m.hidden, 6144);
    ck_assert_uint_eq(m.layers, 48);
    ck_assert_uint_eq(m.vocab, 64000);
    ck_assert_uint_eq(m.seq, 4096);
    ck_assert_uint_eq(m.global_batch, 1024);
    ck_assert_uint_eq(m.micro_batch, 1);
    ck_assert_uint_eq(m.vpp, 1);
    ck_assert_uint_eq(m.moe_experts, 0);
    tsched_job_free(j);

    /* defaults; whole numbers written as reals; unknown fields ignored */
    j = load_job("{\"format\":\"tsched.job.v1\",\"gpus\":16.0,\"tp\":8,\"pp\":2,\"extra\":[1],"
                 "\"model\":{\"hidden\":4,\"layers\":2,\"vocab\":10,\"seq\":3,\"global_batch\":8,\"micro_batch\":2}}");
    ck_assert_str_eq(tsched_job_name(j), "job");
    ck_assert_uint_eq(tsched_job_gpus(j), 16);
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_PP);
    ck_assert_double_eq(tsched_job_alpha(j), 0.5);
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_AUTO);
    ck_assert_ok(tsched_job_model(&m, j));
    ck_assert_uint_eq(m.vpp, 1);
    ck_assert_uint_eq(m.moe_experts, 0);
    tsched_job_free(j);

    j = load_job("{\"format\":\"tsched.job.v1\",\"gpus\":16,\"tp\":8,\"pp\":2,\"unit\":\"dp\",\"domain\":\"leaf\","
                 "\"alpha\":\"auto\",\"model\":{\"hidden\":4,\"layers\":2,\"vocab\":10,\"seq\":3,\"global_batch\":8,"
                 "\"micro_batch\":2,\"vpp\":2,\"moe_experts\":4}}");
    ck_assert_int_eq(tsched_job_unit(j), TSCHED_UNIT_DP);
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_LEAF);
    ck_assert_double_lt(tsched_job_alpha(j), 0);
    ck_assert_ok(tsched_job_model(&m, j));
    ck_assert_uint_eq(m.vpp, 2);
    ck_assert_uint_eq(m.moe_experts, 4);
    tsched_job_free(j);
    j = load_job("{\"format\":\"tsched.job.v1\",\"gpus\":8,\"tp\":8,\"pp\":1,\"domain\":\"pod\",\"alpha\":0}");
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_POD);
    ck_assert_double_eq(tsched_job_alpha(j), 0);
    tsched_job_free(j);
}
END_TEST

#define JOB_HEAD "{\"format\":\"tsched.job.v1\","
#define SHAPE "\"gpus\":16,\"tp\":8,\"pp\":2"
#define MODEL_REST "\"vocab\":10,\"seq\":3,\"global_batch\":8,\"micro_batch\":2"

START_TEST(json_load_invalid)
{
    static const struct {
        const char *doc;
        tsched_status want;
        const char *needle;
    } cases[] = {
        /* syntax and document */
        {"{\"format\":\"tsched.job.v1\",", TSCHED_E_PARSE, "line 1"},
        {JOB_HEAD SHAPE ",\"gpus\":8}", TSCHED_E_PARSE, "gpus"}, /* duplicate key */
        {"[1,2]", TSCHED_E_TYPE, "document"},
        {"{" SHAPE "}", TSCHED_E_FORMAT, "format"},
        {"{\"format\":\"tsched.job.v2\"," SHAPE "}", TSCHED_E_FORMAT, "tsched.job.v2"},
        {"{\"format\":\"tsched.topology.v1\"," SHAPE "}", TSCHED_E_FORMAT, "format"},
        {"{\"format\":1," SHAPE "}", TSCHED_E_TYPE, "format"},
        /* missing required fields */
        {JOB_HEAD "\"tp\":8,\"pp\":2}", TSCHED_E_NOT_FOUND, "gpus: missing"},
        {JOB_HEAD "\"gpus\":16,\"pp\":2}", TSCHED_E_NOT_FOUND, "tp: missing"},
        {JOB_HEAD "\"gpus\":16,\"tp\":8}", TSCHED_E_NOT_FOUND, "pp: missing"},
        {JOB_HEAD "\"gpus\":null,\"tp\":8,\"pp\":2}", TSCHED_E_NOT_FOUND, "gpus"},
        /* wrong types */
        {JOB_HEAD "\"gpus\":\"16\",\"tp\":8,\"pp\":2}", TSCHED_E_TYPE, "gpus"},
        {JOB_HEAD "\"gpus\":16,\"tp\":[8],\"pp\":2}", TSCHED_E_TYPE, "tp"},
        {JOB_HEAD "\"gpus\":16,\"tp\":8,\"pp\":true}", TSCHED_E_TYPE, "pp"},
        {JOB_HEAD "\"name\":5," SHAPE "}", TSCHED_E_TYPE, "name"},
        {JOB_HEAD SHAPE ",\"unit\":1}", TSCHED_E_TYPE, "unit"},
        {JOB_HEAD SHAPE ",\"domain\":true}", TSCHED_E_TYPE, "domain"},
        {JOB_HEAD SHAPE ",\"alpha\":true}", TSCHED_E_TYPE, "alpha"},
        {JOB_HEAD SHAPE ",\"alpha\":[0.5]}", TSCHED_E_TYPE, "alpha"},
        {JOB_HEAD SHAPE ",\"model\":[]}", TSCHED_E_TYPE, "model"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":\"4\",\"layers\":2," MODEL_REST "}}", TSCHED_E_TYPE, "model.hidden"},
        /* numbers out of range, impossible shapes */
        {JOB_HEAD "\"gpus\":0,\"tp\":8,\"pp\":2}", TSCHED_E_RANGE, "gpus"},
        {JOB_HEAD "\"gpus\":-16,\"tp\":8,\"pp\":2}", TSCHED_E_RANGE, "gpus: must not be negative"},
        {JOB_HEAD "\"gpus\":16.5,\"tp\":8,\"pp\":2}", TSCHED_E_RANGE, "gpus"},
        {JOB_HEAD "\"gpus\":4294967296,\"tp\":8,\"pp\":2}", TSCHED_E_RANGE, "gpus"},
        {JOB_HEAD "\"gpus\":16,\"tp\":0,\"pp\":2}", TSCHED_E_RANGE, "tp"},
        {JOB_HEAD "\"gpus\":2944,\"tp\":3,\"pp\":8}", TSCHED_E_RANGE, "tp: 3 does not divide gpus 2944"},
        {JOB_HEAD "\"gpus\":2944,\"tp\":8,\"pp\":5}", TSCHED_E_RANGE, "pp: 5 does not divide gpus / tp = 2944 / 8"},
        {JOB_HEAD SHAPE ",\"alpha\":1.5}", TSCHED_E_RANGE, "alpha: 1.5 is out of range [0, 1]"},
        {JOB_HEAD SHAPE ",\"alpha\":-0.1}", TSCHED_E_RANGE, "alpha"},
        {JOB_HEAD "\"name\":\"\"," SHAPE "}", TSCHED_E_RANGE, "name"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":0,\"layers\":2," MODEL_REST "}}", TSCHED_E_RANGE, "model.hidden"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":-2," MODEL_REST "}}", TSCHED_E_RANGE, "model.layers"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":2," MODEL_REST ",\"vpp\":0}}", TSCHED_E_RANGE,
         "model.vpp"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":2," MODEL_REST ",\"moe_experts\":1.5}}", TSCHED_E_RANGE,
         "model.moe_experts"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":2,\"vocab\":10,\"seq\":3,\"global_batch\":10,"
                        "\"micro_batch\":4}}",
         TSCHED_E_RANGE, "model.global_batch: 10 is not a multiple of model.micro_batch 4"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":2,\"vocab\":10,\"seq\":3,\"global_batch\":8,"
                        "\"micro_batch\":0}}",
         TSCHED_E_RANGE, "model.micro_batch"},
        /* unknown enumerated values */
        {JOB_HEAD SHAPE ",\"unit\":\"x\"}", TSCHED_E_FORMAT, "unit: unknown value \"x\"; expected \"pp\" or \"dp\""},
        {JOB_HEAD SHAPE ",\"unit\":\"PP\"}", TSCHED_E_FORMAT, "unit"},
        {JOB_HEAD SHAPE ",\"unit\":\"\"}", TSCHED_E_FORMAT, "unit"},
        {JOB_HEAD SHAPE ",\"domain\":\"rack\"}", TSCHED_E_FORMAT, "domain: unknown value \"rack\""},
        {JOB_HEAD SHAPE ",\"alpha\":\"half\"}", TSCHED_E_FORMAT, "alpha: unknown value \"half\""},
        /* missing model parts */
        {JOB_HEAD SHAPE ",\"alpha\":\"auto\"}", TSCHED_E_NOT_FOUND, "model"},
        {JOB_HEAD SHAPE ",\"model\":{\"layers\":2," MODEL_REST "}}", TSCHED_E_NOT_FOUND, "model.hidden: missing"},
        {JOB_HEAD SHAPE ",\"model\":{\"hidden\":4,\"layers\":2,\"vocab\":10,\"seq\":3,\"global_batch\":8}}",
         TSCHED_E_NOT_FOUND, "model.micro_batch: missing"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tsched_job *j = (tsched_job *)&cases; /* must be reset */
        tsched_clear_error();
        tsched_status st = tsched_job_load_string(&j, cases[k].doc, strlen(cases[k].doc));
        ck_assert_msg(st == cases[k].want, "case %zu (%s): %s, expected %s: %s", k, cases[k].doc,
                      tsched_status_str(st), tsched_status_str(cases[k].want), tsched_last_error());
        ck_assert_msg(j == NULL, "case %zu: out not reset", k);
        ck_assert_msg(strstr(tsched_last_error(), cases[k].needle) != NULL, "case %zu: message \"%s\" lacks \"%s\"", k,
                      tsched_last_error(), cases[k].needle);
        ck_assert_int_eq(tsched_last_status(), cases[k].want);
    }
    tsched_job *j = NULL;
    ck_assert_status(tsched_job_load_string(&j, NULL, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_load_string(NULL, design_doc, strlen(design_doc)), TSCHED_E_INVALID);
    /* the length bounds the text: a prefix of a valid document is malformed */
    ck_assert_status(tsched_job_load_string(&j, design_doc, 40), TSCHED_E_PARSE);
}
END_TEST

START_TEST(json_load_file)
{
    tsched_job *j = NULL;
    ck_assert_ok(tsched_job_load_file(&j, WL_DATA "/llm-auto.json"));
    ck_assert_str_eq(tsched_job_name(j), "llm-auto");
    ck_assert_double_lt(tsched_job_alpha(j), 0);
    ck_assert_int_eq(tsched_job_domain(j), TSCHED_DOMAIN_POD);
    tsched_job_free(j);
    ck_assert_status(tsched_job_load_file(&j, WL_DATA "/bad-unit.json"), TSCHED_E_FORMAT);
    ck_assert_ptr_null(j);
    ck_assert_errmsg_has("bad-unit.json: unit: unknown value \"x\"");
    ck_assert_status(tsched_job_load_file(&j, WL_DATA "/no-such-file.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("no-such-file.json");
    ck_assert_status(tsched_job_load_file(&j, NULL), TSCHED_E_INVALID);
}
END_TEST

/* Write, read back, write again: same fields, same bytes. */
static void check_round_trip(const tsched_job *j, const char *must_have)
{
    char *a = NULL, *b = NULL;
    ck_assert_ok(tsched_job_to_json(&a, j));
    ck_assert_msg(strstr(a, must_have) != NULL, "output lacks %s:\n%s", must_have, a);
    tsched_job *k = load_job(a);
    ck_assert_str_eq(tsched_job_name(k), tsched_job_name(j));
    ck_assert_uint_eq(tsched_job_gpus(k), tsched_job_gpus(j));
    ck_assert_uint_eq(tsched_job_tp(k), tsched_job_tp(j));
    ck_assert_uint_eq(tsched_job_pp(k), tsched_job_pp(j));
    ck_assert_double_eq(tsched_job_alpha(k), tsched_job_alpha(j));
    ck_assert_int_eq(tsched_job_unit(k), tsched_job_unit(j));
    ck_assert_int_eq(tsched_job_domain(k), tsched_job_domain(j));
    tsched_model mj, mk;
    tsched_model_init(&mj);
    tsched_model_init(&mk);
    tsched_status sj = tsched_job_model(&mj, j), sk = tsched_job_model(&mk, k);
    ck_assert_int_eq(sj, sk);
    ck_assert_int_eq(memcmp(&mj, &mk, sizeof mj), 0);
    ck_assert_ok(tsched_job_to_json(&b, k));
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    tsched_job_free(k);
}

START_TEST(json_round_trip)
{
    tsched_job *j = load_job(design_doc);
    check_round_trip(j, "\"format\": \"tsched.job.v1\"");
    char *s = NULL;
    ck_assert_ok(tsched_job_to_json(&s, j));
    const char *want[] = {"\"name\": \"llm-a\"", "\"gpus\": 2944", "\"tp\": 8", "\"pp\": 8", "\"unit\": \"pp\"",
                          "\"hidden\": 6144", "\"layers\": 48", "\"vocab\": 64000", "\"seq\": 4096",
                          "\"global_batch\": 1024", "\"micro_batch\": 1", "\"vpp\": 1", "\"moe_experts\": 0"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(s, want[i]) != NULL, "output lacks %s:\n%s", want[i], s);
    ck_assert_ptr_null(strstr(s, "domain")); /* automatic: not written */
    tsched_free(s);
    tsched_job_free(j);

    ck_assert_ok(tsched_job_load_file(&j, WL_DATA "/llm-auto.json"));
    check_round_trip(j, "\"alpha\": \"auto\"");
    check_round_trip(j, "\"domain\": \"pod\"");
    tsched_job_free(j);

    /* a job built through the API */
    j = tu_job("built", 64, 4, 2);
    check_round_trip(j, "\"alpha\": 0.5");
    ck_assert_ok(tsched_job_set_unit(j, TSCHED_UNIT_DP));
    ck_assert_ok(tsched_job_set_domain(j, TSCHED_DOMAIN_LEAF));
    ck_assert_ok(tsched_job_set_alpha(j, 1.0 / 3.0));
    check_round_trip(j, "\"unit\": \"dp\"");
    check_round_trip(j, "\"domain\": \"leaf\"");
    tsched_model m = model_of(4096, 32, 32000, 4096, 512, 2, 2, 16);
    ck_assert_ok(tsched_job_set_model(j, &m));
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    check_round_trip(j, "\"moe_experts\": 16");
    check_round_trip(j, "\"alpha\": \"auto\"");
    ck_assert_status(tsched_job_to_json(&s, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_to_json(NULL, j), TSCHED_E_INVALID);
    tsched_job_free(j);
}
END_TEST

/* ---- the affinity database ---- */

static const char small_db[] = "{\"format\":\"tsched.affinity.v1\",\"records\":["
                               "{\"gpu_type\":\"X1\",\"r1\":1,\"r2\":1,\"j_dp\":1,\"j_pp\":0},"          /* 0 */
                               "{\"gpu_type\":\"X1\",\"r1\":2,\"r2\":2,\"j_dp\":0,\"j_pp\":2},"          /* 1 */
                               "{\"gpu_type\":\"Y2\",\"r1\":1,\"r2\":1,\"j_dp\":1,\"j_pp\":3},"          /* 2 */
                               "{\"gpu_type\":\"X1\",\"r1\":5,\"r2\":0,\"j_dp\":3,\"j_pp\":1,\"note\":\"n\"}," /* 3 */
                               "{\"gpu_type\":\"X1\",\"r1\":0,\"r2\":5,\"j_dp\":1,\"j_pp\":1},"          /* 4 */
                               "{\"gpu_type\":\"X1\",\"r1\":2,\"r2\":2,\"j_dp\":1,\"j_pp\":1}"           /* 5 = 1's point */
                               "]}";

START_TEST(affinity_lookup_nearest_and_ties)
{
    tsched_affinity *db = load_db(small_db);
    ck_assert_uint_eq(tsched_affinity_count(db), 6);
    double alpha = -1;
    uint32_t rec = 99;
    /* nearest */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 1.2, 1.1));
    ck_assert_uint_eq(rec, 0);
    ck_assert_double_eq(alpha, 1);
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 1.9, 2.5));
    ck_assert_uint_eq(rec, 1); /* (2,2) also at index 5: the lower index wins */
    ck_assert_double_eq(alpha, 0);
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 4, 0.5));
    ck_assert_uint_eq(rec, 3);
    ck_assert_double_eq(alpha, 0.75);
    /* both coordinates count: (0.2, 4) is nearer to (0,5) than to (1,1) or (2,2) */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 0.2, 4));
    ck_assert_uint_eq(rec, 4);
    ck_assert_double_eq(alpha, 0.5);
    /* ties go to the lowest index: (1.5, 1.5) is sqrt(0.5) from records 0, 1 and 5 */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 1.5, 1.5));
    ck_assert_uint_eq(rec, 0);
    /* (2.5, 2.5): records 1 and 5 at sqrt(0.5), record 0 at sqrt(4.5) */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 2.5, 2.5));
    ck_assert_uint_eq(rec, 1);
    /* (5, 5): records 1 and 5 at sqrt(18) ~ 4.24 beat records 3 and 4 at 5 */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 5, 5));
    ck_assert_uint_eq(rec, 1);
    /* (10, 10): records 3 (5,0) and 4 (0,5) tie at sqrt(125) ~ 11.18, nearer than
     * records 1 and 5 at sqrt(128) ~ 11.31: record 3 */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "X1", 10, 10));
    ck_assert_uint_eq(rec, 3);
    /* the GPU type filters first: Y2's only record wins even where X1's are nearer */
    ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, "Y2", 2, 2));
    ck_assert_uint_eq(rec, 2);
    ck_assert_double_eq(alpha, 0.25);
    /* record may be NULL */
    ck_assert_ok(tsched_affinity_lookup(&alpha, NULL, db, "X1", 1, 1));
    ck_assert_double_eq(alpha, 1);
    /* unknown type, case-sensitive */
    alpha = 42;
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, "x1", 1, 1), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("\"x1\"");
    ck_assert_errmsg_has("\"X1\", \"Y2\"");
    ck_assert_double_eq(alpha, 42);
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, "H800", 1, 1), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("H800");
    /* bad arguments */
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, "X1", NAN, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("r1");
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, "X1", 1, INFINITY), TSCHED_E_RANGE);
    ck_assert_errmsg_has("r2");
    ck_assert_status(tsched_affinity_lookup(NULL, &rec, db, "X1", 1, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, NULL, "X1", 1, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, NULL, 1, 1), TSCHED_E_INVALID);
    tsched_affinity_free(db);

    db = load_db("{\"format\":\"tsched.affinity.v1\",\"records\":[]}");
    ck_assert_uint_eq(tsched_affinity_count(db), 0);
    ck_assert_status(tsched_affinity_lookup(&alpha, &rec, db, "H800", 1, 1), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("no records");
    tsched_affinity_free(db);
    ck_assert_uint_eq(tsched_affinity_count(NULL), 0);
    tsched_affinity_free(NULL);
}
END_TEST

#define DB_HEAD "{\"format\":\"tsched.affinity.v1\",\"records\":["
#define REC_OK "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":1}"

START_TEST(affinity_load_invalid)
{
    static const struct {
        const char *doc;
        tsched_status want;
        const char *needle;
    } cases[] = {
        {DB_HEAD REC_OK, TSCHED_E_PARSE, "line"},
        {"{\"records\":[]}", TSCHED_E_FORMAT, "format"},
        {"{\"format\":\"tsched.affinity.v2\",\"records\":[]}", TSCHED_E_FORMAT, "tsched.affinity.v2"},
        {"{\"format\":\"tsched.affinity.v1\"}", TSCHED_E_NOT_FOUND, "records: missing"},
        {"{\"format\":\"tsched.affinity.v1\",\"records\":{}}", TSCHED_E_TYPE, "records"},
        {DB_HEAD REC_OK ",7]}", TSCHED_E_TYPE, "records[1]: expected an object"},
        {DB_HEAD "{\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_NOT_FOUND, "records[0].gpu_type"},
        {DB_HEAD REC_OK ",{\"gpu_type\":\"H800\",\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_NOT_FOUND,
         "records[1].r1"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_NOT_FOUND, "records[0].r2"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_pp\":1}]}", TSCHED_E_NOT_FOUND, "records[0].j_dp"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":1}]}", TSCHED_E_NOT_FOUND, "records[0].j_pp"},
        {DB_HEAD "{\"gpu_type\":8,\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_TYPE, "records[0].gpu_type"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":\"1\",\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_TYPE,
         "records[0].r1"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":\"1\",\"j_pp\":1}]}", TSCHED_E_TYPE,
         "records[0].j_dp"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":1,\"note\":3}]}", TSCHED_E_TYPE,
         "records[0].note"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":-1,\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_RANGE,
         "records[0].r1: must not be negative"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":-2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_RANGE,
         "records[0].r2"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":-0.5,\"j_pp\":1}]}", TSCHED_E_RANGE,
         "records[0].j_dp"},
        {DB_HEAD REC_OK ",{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":-1}]}", TSCHED_E_RANGE,
         "records[1].j_pp"},
        {DB_HEAD REC_OK ",{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":0,\"j_pp\":0.0}]}", TSCHED_E_RANGE,
         "records[1]: j_dp and j_pp are both 0"},
        {DB_HEAD "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":2,\"j_dp\":1e308,\"j_pp\":1e308}]}", TSCHED_E_RANGE,
         "records[0]"},
        {DB_HEAD "{\"gpu_type\":\"\",\"r1\":1,\"r2\":2,\"j_dp\":1,\"j_pp\":1}]}", TSCHED_E_RANGE,
         "records[0].gpu_type"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tsched_affinity *db = (tsched_affinity *)&cases;
        tsched_status st = tsched_affinity_load_string(&db, cases[k].doc, strlen(cases[k].doc));
        ck_assert_msg(st == cases[k].want, "case %zu (%s): %s, expected %s: %s", k, cases[k].doc,
                      tsched_status_str(st), tsched_status_str(cases[k].want), tsched_last_error());
        ck_assert_msg(db == NULL, "case %zu: out not reset", k);
        ck_assert_msg(strstr(tsched_last_error(), cases[k].needle) != NULL, "case %zu: message \"%s\" lacks \"%s\"", k,
                      tsched_last_error(), cases[k].needle);
    }
    tsched_affinity *db = NULL;
    ck_assert_status(tsched_affinity_load_file(&db, WL_DATA "/bad-affinity.json"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("bad-affinity.json: records[1]: j_dp and j_pp are both 0");
    ck_assert_ptr_null(db);
    ck_assert_status(tsched_affinity_load_file(&db, WL_DATA "/none.json"), TSCHED_E_IO);
    ck_assert_status(tsched_affinity_load_file(&db, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_affinity_load_string(&db, NULL, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_affinity_load_string(NULL, small_db, strlen(small_db)), TSCHED_E_INVALID);
    ck_assert_status(tsched_affinity_default(NULL), TSCHED_E_INVALID);
}
END_TEST

/* The representative configurations of doc/workload.md, written out again here so that
 * the built-in r1, r2 are checked against an independent computation through the public
 * API, not against the library's own table. */
static const struct {
    const char *type;
    uint32_t gpus, tp, pp, h, l, V, s, gb, mb, experts;
    double alpha;
} paper_configs[] = {
    {"H800", 2944, 8, 8, 6144, 48, 64000, 4096, 1472, 1, 0, 0.0}, /* 24B dense: PP-aligned +2.3% */
    {"H800", 2048, 4, 4, 3072, 36, 64000, 4096, 1024, 1, 8, 0.3}, /* 24B MoE: alpha 0.3 */
    {"L20", 64, 4, 2, 4096, 32, 32000, 4096, 512, 1, 0, 1.0},     /* 7B dense: DP-aligned +1.4% */
    {"L20", 64, 4, 4, 5120, 40, 32000, 4096, 512, 1, 0, 0.0},     /* 14B dense: PP-aligned +0.5% */
};

START_TEST(affinity_default_contents)
{
    tsched_affinity *db = NULL;
    ck_assert_ok(tsched_affinity_default(&db));
    size_t n = sizeof paper_configs / sizeof paper_configs[0];
    ck_assert_uint_eq(tsched_affinity_count(db), n);
    for (uint32_t i = 0; i < n; i++) {
        const ts_affinity_record *r = ts_affinity_record_at(db, i);
        ck_assert_ptr_nonnull(r);
        ck_assert_str_eq(r->gpu_type, paper_configs[i].type);
        ck_assert_ptr_nonnull(r->note);
        tsched_job *j = job_with_model(paper_configs[i].gpus, paper_configs[i].tp, paper_configs[i].pp,
                                       model_of(paper_configs[i].h, paper_configs[i].l, paper_configs[i].V,
                                                paper_configs[i].s, paper_configs[i].gb, paper_configs[i].mb, 1,
                                                paper_configs[i].experts));
        tsched_volumes v = {.size = sizeof v};
        ck_assert_ok(tsched_job_volumes(&v, j));
        ck_assert_double_eq(r->r1, v.r1);
        ck_assert_double_eq(r->r2, v.r2);
        /* a record is its own nearest neighbour, and gives the paper's alpha */
        double alpha = -1;
        uint32_t rec = 99;
        ck_assert_ok(tsched_affinity_lookup(&alpha, &rec, db, r->gpu_type, v.r1, v.r2));
        ck_assert_uint_eq(rec, i);
        ck_assert_double_eq_tol(alpha, paper_configs[i].alpha, 1e-12);
        /* and so does "alpha": "auto" for that job */
        ck_assert_ok(tsched_job_set_alpha_auto(j));
        ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, NULL, paper_configs[i].type));
        ck_assert_double_eq_tol(alpha, paper_configs[i].alpha, 1e-12);
        tsched_job_free(j);
    }
    /* magnitudes worked by hand in volumes_paper_scale and doc/workload.md */
    ck_assert_double_eq(ts_affinity_record_at(db, 0)->r2, 62.319091796875);
    ck_assert_double_eq_tol(ts_affinity_record_at(db, 1)->r2, 48.8223876953125, 1e-12);
    ck_assert_double_eq_tol(ts_affinity_record_at(db, 2)->r2, 100.423828125, 1e-12);
    ck_assert_double_eq_tol(ts_affinity_record_at(db, 3)->r2, 79.417236328125, 1e-12);
    /* the published improvements */
    ck_assert_double_eq(ts_affinity_record_at(db, 0)->j_dp, 0);
    ck_assert_double_eq(ts_affinity_record_at(db, 0)->j_pp, 2.3);
    ck_assert_double_eq_tol(ts_affinity_record_at(db, 1)->j_dp + ts_affinity_record_at(db, 1)->j_pp, 1.8, 1e-12);
    ck_assert_double_eq(ts_affinity_record_at(db, 2)->j_dp, 1.4);
    ck_assert_double_eq(ts_affinity_record_at(db, 2)->j_pp, 0);
    ck_assert_double_eq(ts_affinity_record_at(db, 3)->j_pp, 0.5);
    ck_assert_ptr_null(ts_affinity_record_at(db, (uint32_t)n));
    tsched_affinity_free(db);
}
END_TEST

START_TEST(affinity_default_matches_shipped_json)
{
    tsched_affinity *def = NULL, *file = NULL;
    ck_assert_ok(tsched_affinity_default(&def));
    ck_assert_ok(tsched_affinity_load_file(&file, WL_DATA "/default-affinity.json"));
    ck_assert_uint_eq(tsched_affinity_count(file), tsched_affinity_count(def));
    for (uint32_t i = 0; i < tsched_affinity_count(def); i++) {
        const ts_affinity_record *a = ts_affinity_record_at(def, i), *b = ts_affinity_record_at(file, i);
        ck_assert_str_eq(a->gpu_type, b->gpu_type);
        ck_assert_str_eq(a->note, b->note);
        ck_assert_double_eq(a->r1, b->r1);
        ck_assert_double_eq(a->r2, b->r2);
        ck_assert_double_eq(a->j_dp, b->j_dp);
        ck_assert_double_eq(a->j_pp, b->j_pp);
    }
    /* byte for byte, as the writer emits it */
    char *text = NULL, *shipped = NULL;
    size_t len = 0;
    ck_assert_ok(tsched_affinity_to_json(&text, def));
    /* the public record getter agrees with the internal record */
    for (uint32_t i = 0; i < tsched_affinity_count(def); i++) {
        const char *type;
        double r1, r2, jd, jp;
        ck_assert_ok(tsched_affinity_record(&type, &r1, &r2, &jd, &jp, def, i));
        ck_assert_str_eq(type, ts_affinity_record_at(def, i)->gpu_type);
        ck_assert_double_eq(r2, ts_affinity_record_at(def, i)->r2);
        ck_assert_double_eq(jp, ts_affinity_record_at(def, i)->j_pp);
    }
    ck_assert_status(tsched_affinity_record(NULL, NULL, NULL, NULL, NULL, def, tsched_affinity_count(def)),
                     TSCHED_E_INVALID);
    FILE *f = fopen(WL_DATA "/default-affinity.json", "rb");
    ck_assert_ptr_nonnull(f);
    shipped = calloc(1, 1 << 16);
    ck_assert_ptr_nonnull(shipped);
    len = fread(shipped, 1, (1 << 16) - 1, f);
    fclose(f);
    if (len > 0 && shipped[len - 1] == '\n')
        shipped[len - 1] = '\0';
    ck_assert_str_eq(text, shipped);
    free(shipped);
    /* written and read back, the database is the same */
    tsched_affinity *again = load_db(text);
    char *text2 = NULL;
    ck_assert_ok(ts_affinity_to_json(&text2, again));
    ck_assert_str_eq(text, text2);
    tsched_free(text);
    tsched_free(text2);
    tsched_affinity_free(again);
    tsched_affinity_free(file);
    tsched_affinity_free(def);
}
END_TEST

START_TEST(resolve_alpha)
{
    double alpha = -1;
    /* explicit: returned as is, no GPU type needed */
    tsched_job *j = load_job(design_doc);
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, NULL, NULL));
    ck_assert_double_eq(alpha, 0.3);
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, NULL, "unknown-gpu"));
    ck_assert_double_eq(alpha, 0.3);
    tsched_job_free(j);

    /* auto, built-in database: the 24B dense job file is PP-aligned on H800 */
    ck_assert_ok(tsched_job_load_file(&j, WL_DATA "/llm-auto.json"));
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, NULL, "H800"));
    ck_assert_double_eq(alpha, 0);
    /* on L20 its r2 (62.3) is nearer the 14B record (79.4) than the 7B one (100.4) */
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, NULL, "L20"));
    ck_assert_double_eq(alpha, 0);
    alpha = 7;
    ck_assert_status(tsched_job_resolve_alpha(&alpha, j, NULL, "A100"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("A100");
    ck_assert_double_eq(alpha, 7);
    ck_assert_status(tsched_job_resolve_alpha(&alpha, j, NULL, NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("gpu_type");
    /* auto, the caller's database */
    tsched_affinity *db = load_db("{\"format\":\"tsched.affinity.v1\",\"records\":["
                                  "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":10,\"j_dp\":1,\"j_pp\":3},"
                                  "{\"gpu_type\":\"H800\",\"r1\":1,\"r2\":60,\"j_dp\":3,\"j_pp\":1}]}");
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, db, "H800"));
    ck_assert_double_eq(alpha, 0.75);
    tsched_job_free(j);
    /* a smaller model of the same shape: r2 = 140/24 ~ 5.8, nearest (1, 10) */
    j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, db, "H800"));
    ck_assert_double_eq(alpha, 0.25);
    tsched_job_free(j);
    /* volume errors surface */
    j = job_with_model(8, 2, 2, model_of(4, 2, 10, 3, 6, 2, 1, 0));
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    ck_assert_status(tsched_job_resolve_alpha(&alpha, j, db, "H800"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("model.global_batch");
    tsched_job_free(j);
    /* only DP groups communicate (pp 1): alpha 1; only PP groups (dp 1): alpha 0 */
    j = job_with_model(4, 2, 1, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, db, "H800"));
    ck_assert_double_eq(alpha, 1);
    tsched_job_free(j);
    j = job_with_model(4, 2, 2, model_of(4, 2, 10, 3, 8, 2, 1, 0));
    ck_assert_ok(tsched_job_set_alpha_auto(j));
    ck_assert_ok(tsched_job_resolve_alpha(&alpha, j, db, "H800"));
    ck_assert_double_eq(alpha, 0);
    ck_assert_status(tsched_job_resolve_alpha(NULL, j, db, "H800"), TSCHED_E_INVALID);
    ck_assert_status(tsched_job_resolve_alpha(&alpha, NULL, db, "H800"), TSCHED_E_INVALID);
    tsched_job_free(j);
    tsched_affinity_free(db);
}
END_TEST

/* Each thread loads, fails and resolves on its own handles; its error messages stay its own. */
static void *worker(void *arg)
{
    const char *type = arg;
    for (int it = 0; it < 200; it++) {
        tsched_job *j = NULL;
        if (tsched_job_load_file(&j, TSCHED_TEST_DATA "/workload/llm-auto.json") != TSCHED_OK)
            return "load";
        double alpha;
        tsched_status st = tsched_job_resolve_alpha(&alpha, j, NULL, type);
        tsched_job_free(j);
        if (strcmp(type, "H800") == 0) {
            if (st != TSCHED_OK || alpha != 0)
                return "H800 alpha";
        } else if (st != TSCHED_E_NOT_FOUND || !strstr(tsched_last_error(), type)) {
            return "message of another thread";
        }
    }
    return NULL;
}

START_TEST(concurrent_use)
{
    static char *types[] = {"H800", "GPU-A", "GPU-B"};
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker, types[i]), 0);
    for (int i = 0; i < 3; i++) {
        void *res = NULL;
        ck_assert_int_eq(pthread_join(th[i], &res), 0);
        ck_assert_msg(res == NULL, "thread %d: %s", i, (const char *)res);
    }
}
END_TEST

TCase *workload_flows_tcase(void);

int main(void)
{
    Suite *s = suite_create("workload");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, matrix_arnold_table1);
    tcase_add_test(tc, matrix_errors);
    tcase_add_test(tc, job_new_defaults_and_shape_errors);
    tcase_add_test(tc, setters_and_getters);
    tcase_add_test(tc, volumes_dense_by_hand);
    tcase_add_test(tc, volumes_paper_scale);
    tcase_add_test(tc, volumes_vpp);
    tcase_add_test(tc, volumes_moe);
    tcase_add_test(tc, volumes_single_member_groups);
    tcase_add_test(tc, volumes_errors);
    tcase_add_test(tc, json_load_valid);
    tcase_add_test(tc, json_load_invalid);
    tcase_add_test(tc, json_load_file);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, affinity_lookup_nearest_and_ties);
    tcase_add_test(tc, affinity_load_invalid);
    tcase_add_test(tc, affinity_default_contents);
    tcase_add_test(tc, affinity_default_matches_shipped_json);
    tcase_add_test(tc, resolve_alpha);
    tcase_add_test(tc, concurrent_use);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, workload_flows_tcase());
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
