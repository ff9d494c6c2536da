/* Flows of the workload module: the four collective patterns on hand-made matrices against
 * flow lists written out here, the rail expansion, the App. C volumes against the formulas
 * of doc/workload.md "Flows" worked independently, every error with its field, the
 * `tsched.flows.v1` reader and writer (round trip, every invalid-input class), a million
 * flows, and reading `tsched.placement.v1` back. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/json.h"
#include "common/rng.h"
#include "test_util.h"
#include "workload/flows_internal.h"

#define FLOWS_DATA TSCHED_TEST_DATA "/flows"

/* ---- helpers ---- */

static tsched_flows *new_flows(void)
{
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_new(&f));
    ck_assert_ptr_nonnull(f);
    return f;
}

static tsched_model small_model(void) { return tu_small_model(); }

/* One expected node pair: (src, dst) node indices. */
typedef struct pair {
    uint32_t src, dst;
} pair;

/* The set holds exactly `n` pairs in this order, each expanded into `nics` rails. */
static void check_pairs(const tsched_flows *f, uint32_t first, const pair *want, uint32_t n, uint32_t nics,
                        double gbits, const char *job)
{
    ck_assert_uint_eq(tsched_flows_count(f), first + n * nics);
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t k = 0; k < nics; k++) {
            uint32_t i = first + p * nics + k;
            ck_assert_msg(tsched_flows_src(f, i) == want[p].src && tsched_flows_dst(f, i) == want[p].dst,
                          "flow %u: %u -> %u, expected %u -> %u", i, tsched_flows_src(f, i), tsched_flows_dst(f, i),
                          want[p].src, want[p].dst);
            ck_assert_uint_eq(tsched_flows_src_nic(f, i), k);
            ck_assert_uint_eq(tsched_flows_dst_nic(f, i), k);
            ck_assert_double_eq(tsched_flows_gbits(f, i), gbits);
            if (job)
                ck_assert_str_eq(tsched_flows_job(f, i), job);
            else
                ck_assert_ptr_null(tsched_flows_job(f, i));
        }
}

/* A 4 x 2 matrix (rows = PP groups, cols = DP groups) of scattered nodes:
 *            col 0  col 1
 *   row 0      5      2
 *   row 1      7      0
 *   row 2      1      6
 *   row 3      3      4                                                        */
static const uint32_t M42[8] = {5, 2, 7, 0, 1, 6, 3, 4};

/* Flows of one pattern step on M42 with one NIC per node and 10 Gbit per flow. */
static tsched_flows *m42_flows(tsched_pattern pattern, uint32_t step)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 1, 0, 0, 0);
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, M42, 4, 2, pattern, step, 10));
    tsched_topology_free(t);
    return f;
}

/* ---- pattern names and steps ---- */

START_TEST(pattern_names)
{
    static const char *const names[] = {"dp-ring", "dp-hd", "pp", "alltoall"};
    for (int i = 0; i < 4; i++) {
        tsched_pattern p = (tsched_pattern)99;
        ck_assert_str_eq(tsched_pattern_name((tsched_pattern)i), names[i]);
        ck_assert_ok(tsched_pattern_from_name(&p, names[i]));
        ck_assert_int_eq(p, i);
    }
    ck_assert_str_eq(tsched_pattern_name((tsched_pattern)4), "?");
    tsched_pattern p;
    ck_assert_status(tsched_pattern_from_name(&p, "ring"), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("\"ring\"");
    ck_assert_status(tsched_pattern_from_name(&p, NULL), TSCHED_E_INVALID); /* DESIGN 3 */
    ck_assert_errmsg_has("name is NULL");
    ck_assert_status(tsched_pattern_from_name(NULL, "pp"), TSCHED_E_INVALID);
}
END_TEST

START_TEST(pattern_steps)
{
    uint32_t s = 99;
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_DP_RING, 5, 3));
    ck_assert_uint_eq(s, 1);
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_PP, 5, 3));
    ck_assert_uint_eq(s, 1);
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_DP_HD, 8, 3));
    ck_assert_uint_eq(s, 3);
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_DP_HD, 1, 3));
    ck_assert_uint_eq(s, 1); /* one empty step for a DP group of one */
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_DP_HD, 1u << 31, 1));
    ck_assert_uint_eq(s, 31);
    ck_assert_ok(tsched_pattern_steps(&s, TSCHED_PATTERN_ALLTOALL, 5, 3));
    ck_assert_uint_eq(s, 4);
    ck_assert_status(tsched_pattern_steps(&s, TSCHED_PATTERN_DP_HD, 6, 3), TSCHED_E_RANGE);
    ck_assert_errmsg_has("rows: 6");
    ck_assert_status(tsched_pattern_steps(&s, TSCHED_PATTERN_PP, 0, 3), TSCHED_E_RANGE);
    ck_assert_errmsg_has("0 x 3");
    ck_assert_status(tsched_pattern_steps(&s, (tsched_pattern)7, 2, 2), TSCHED_E_RANGE);
    ck_assert_errmsg_has("pattern");
    ck_assert_status(tsched_pattern_steps(NULL, TSCHED_PATTERN_PP, 2, 2), TSCHED_E_INVALID);
}
END_TEST

/* ---- the patterns on M42 ---- */

START_TEST(dp_ring_flows)
{
    /* column by column, row r -> row (r + 1) mod 4, all at once */
    static const pair want[] = {{5, 7}, {7, 1}, {1, 3}, {3, 5}, {2, 0}, {0, 6}, {6, 4}, {4, 2}};
    tsched_flows *f = m42_flows(TSCHED_PATTERN_DP_RING, 0);
    check_pairs(f, 0, want, 8, 1, 10, NULL);
    tsched_flows_free(f);
}
END_TEST

START_TEST(dp_hd_flows)
{
    /* step 0: r <-> r XOR 1; step 1: r <-> r XOR 2; both directions of each pair */
    static const pair step0[] = {{5, 7}, {7, 5}, {1, 3}, {3, 1}, {2, 0}, {0, 2}, {6, 4}, {4, 6}};
    static const pair step1[] = {{5, 1}, {7, 3}, {1, 5}, {3, 7}, {2, 6}, {0, 4}, {6, 2}, {4, 0}};
    tsched_flows *f = m42_flows(TSCHED_PATTERN_DP_HD, 0);
    check_pairs(f, 0, step0, 8, 1, 10, NULL);
    tsched_flows_free(f);
    f = m42_flows(TSCHED_PATTERN_DP_HD, 1);
    check_pairs(f, 0, step1, 8, 1, 10, NULL);
    tsched_flows_free(f);
}
END_TEST

START_TEST(pp_flows)
{
    /* row by row, stage c -> stage c + 1 (forward only) */
    static const pair want42[] = {{5, 2}, {7, 0}, {1, 6}, {3, 4}};
    tsched_flows *f = m42_flows(TSCHED_PATTERN_PP, 0);
    check_pairs(f, 0, want42, 4, 1, 10, NULL);
    tsched_flows_free(f);
    /* a 2 x 3 matrix: rows 0 = {0, 1, 2}, 1 = {3, 4, 5} -> 0->1, 1->2, 3->4, 4->5 */
    static const uint32_t m23[6] = {0, 1, 2, 3, 4, 5};
    static const pair want23[] = {{0, 1}, {1, 2}, {3, 4}, {4, 5}};
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 1, 0, 0, 0);
    f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, m23, 2, 3, TSCHED_PATTERN_PP, 0, 3));
    check_pairs(f, 0, want23, 4, 1, 3, NULL);
    /* one stage: nothing to send */
    tsched_flows_free(f);
    f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, m23, 6, 1, TSCHED_PATTERN_PP, 0, 3));
    ck_assert_uint_eq(tsched_flows_count(f), 0);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(alltoall_flows)
{
    /* step s: row r -> row (r + s + 1) mod 4, inside every column */
    static const pair step[3][8] = {
        {{5, 7}, {7, 1}, {1, 3}, {3, 5}, {2, 0}, {0, 6}, {6, 4}, {4, 2}},
        {{5, 1}, {7, 3}, {1, 5}, {3, 7}, {2, 6}, {0, 4}, {6, 2}, {4, 0}},
        {{5, 3}, {7, 5}, {1, 7}, {3, 1}, {2, 4}, {0, 2}, {6, 0}, {4, 6}},
    };
    for (uint32_t s = 0; s < 3; s++) {
        tsched_flows *f = m42_flows(TSCHED_PATTERN_ALLTOALL, s);
        check_pairs(f, 0, step[s], 8, 1, 10, NULL);
        tsched_flows_free(f);
    }
}
END_TEST

START_TEST(single_row_dp)
{
    /* a DP group of one node: every DP pattern has one step, and it is empty */
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 2, 0, 0, 0);
    static const uint32_t row[3] = {0, 1, 2};
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, row, 1, 3, TSCHED_PATTERN_DP_RING, 0, 1));
    ck_assert_uint_eq(tsched_flows_count(f), 0);
    ck_assert_ok(tsched_flows_collective(f, t, NULL, row, 1, 3, TSCHED_PATTERN_DP_HD, 0, 1));
    ck_assert_ok(tsched_flows_collective(f, t, NULL, row, 1, 3, TSCHED_PATTERN_ALLTOALL, 0, 1));
    ck_assert_uint_eq(tsched_flows_count(f), 0);
    ck_assert_status(tsched_flows_collective(f, t, NULL, row, 1, 3, TSCHED_PATTERN_DP_HD, 1, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("1 step");
    /* two rows: the ring is both directions of the one pair */
    static const uint32_t col[2] = {6, 1};
    static const pair want[] = {{6, 1}, {1, 6}};
    ck_assert_ok(tsched_flows_collective(f, t, NULL, col, 2, 1, TSCHED_PATTERN_DP_RING, 0, 1));
    check_pairs(f, 0, want, 2, 2, 1, NULL);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(rails)
{
    /* 8 NICs: 8 flows per pair, NIC k to NIC k, rail by rail inside a pair */
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 8, 0, 0, 0);
    static const uint32_t col[2] = {0, 5};
    static const pair want[] = {{0, 5}, {5, 0}};
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, col, 2, 1, TSCHED_PATTERN_DP_RING, 0, 4));
    check_pairs(f, 0, want, 2, 8, 4, NULL);
    ck_assert_uint_eq(tsched_flows_count(f), 16);
    tsched_topology_free(t);
    /* a 4-NIC fabric; flows append after what the set holds */
    t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    static const pair want42[] = {{5, 2}, {7, 0}, {1, 6}, {3, 4}};
    ck_assert_ok(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, 4));
    check_pairs(f, 16, want42, 4, 4, 4, NULL);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

/* ---- volumes ---- */

#define ck_assert_rel(x, want) ck_assert_double_eq_tol((x), (want), 1e-12 * fabs(want))

START_TEST(volumes_small_model)
{
    /* doc/workload.md "Flows", worked by hand: gpus 64, tp 4, pp 2 on 8-GPU nodes with 4 NICs
     * (g / tp = 2 TP groups per node): dp 8, matrix 4 x 2. Model h 4, l 2, V 10, s 3, mb 2,
     * gb 16. v_d = (h(V+s) + l/pp (12h^2 + 9h)) / tp = (52 + 228) / 4 = 70.
     * DP data per rail D = tp * v_d / nics = 4 * 70 / 4 = 70 elements, 4 bytes each;
     * activation per GPU a = mb s h / tp = 6, per rail (g / nics) a = 12 elements, 2 bytes. */
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    tsched_job *j = tu_job("small", 64, 4, 2);
    tsched_model m = small_model();
    ck_assert_ok(tsched_job_set_model(j, &m));
    const double bit = 8 / 1e9;
    const double ring = 70 * 4 * bit * (2.0 * 3 / 4); /* 2 (R-1)/R of D */
    const double hd[2] = {70 * 4 * bit / 2, 70 * 4 * bit / 4};
    const double pp = 12 * 2 * bit, a2a = 12 * 2 * bit / 4;
    struct {
        tsched_pattern p;
        uint32_t step;
        double want;
        uint32_t flows;
    } cases[] = {
        {TSCHED_PATTERN_DP_RING, 0, ring, 32},    {TSCHED_PATTERN_DP_HD, 0, hd[0], 32},
        {TSCHED_PATTERN_DP_HD, 1, hd[1], 32},     {TSCHED_PATTERN_PP, 0, pp, 16},
        {TSCHED_PATTERN_ALLTOALL, 2, a2a, 32},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tsched_flows *f = new_flows();
        ck_assert_ok(tsched_flows_collective(f, t, j, M42, 4, 2, cases[c].p, cases[c].step, 0));
        ck_assert_uint_eq(tsched_flows_count(f), cases[c].flows);
        for (uint32_t i = 0; i < tsched_flows_count(f); i++) {
            ck_assert_rel(tsched_flows_gbits(f, i), cases[c].want);
            ck_assert_str_eq(tsched_flows_job(f, i), "small");
        }
        tsched_flows_free(f);
    }
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(volumes_production_shape)
{
    /* The 24B dense record of doc/workload.md: tp 8, pp 8, 2944 GPUs (dp 46) on 8-GPU,
     * 8-NIC nodes: a 46 x 8 matrix, v_d = 392,077,824 elements (the record's table).
     * One TP group per node, so a rail carries one GPU's data: D = v_d. */
    tsched_topology *t = tu_gen_leaf_spine(24, 2, 16, 8, 8, 0, 0, 0);
    tsched_job *j = tu_job("llm-a", 2944, 8, 8);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 6144;
    m.layers = 48;
    m.vocab = 64000;
    m.seq = 4096;
    m.global_batch = 1472;
    m.micro_batch = 1;
    ck_assert_ok(tsched_job_set_model(j, &m));
    uint32_t nodes[368];
    for (uint32_t i = 0; i < 368; i++)
        nodes[i] = i;
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, j, nodes, 46, 8, TSCHED_PATTERN_DP_RING, 0, -1));
    ck_assert_uint_eq(tsched_flows_count(f), 46 * 8 * 8);
    /* 392,077,824 * 4 bytes * 8 bits = 12.546 Gbit of gradients per rail; 2 * 45/46 of it */
    ck_assert_rel(tsched_flows_gbits(f, 0), 12.546490368 * 90 / 46);
    tsched_flows_free(f);
    f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, j, nodes, 46, 8, TSCHED_PATTERN_PP, 0, 0));
    ck_assert_uint_eq(tsched_flows_count(f), 46 * 7 * 8);
    /* mb s h / tp = 4096 * 6144 / 8 = 3,145,728 bf16 elements = 0.050331648 Gbit */
    ck_assert_rel(tsched_flows_gbits(f, 0), 0.050331648);
    tsched_flows_free(f);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(gbits_override)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    tsched_job *j = tu_job("small", 64, 4, 2);
    tsched_model m = small_model();
    ck_assert_ok(tsched_job_set_model(j, &m));
    for (int p = 0; p < 4; p++) {
        tsched_flows *f = new_flows();
        ck_assert_ok(tsched_flows_collective(f, t, j, M42, 4, 2, (tsched_pattern)p, 0, 2.5));
        ck_assert_uint_gt(tsched_flows_count(f), 0);
        for (uint32_t i = 0; i < tsched_flows_count(f); i++) {
            ck_assert_double_eq(tsched_flows_gbits(f, i), 2.5);
            ck_assert_str_eq(tsched_flows_job(f, i), "small");
        }
        tsched_flows_free(f);
    }
    /* with gbits the job needs no model, and its shape is not checked against the matrix */
    tsched_job *bare = tu_job("bare", 8, 8, 1);
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, bare, M42, 4, 2, TSCHED_PATTERN_PP, 0, 1.25));
    ck_assert_uint_eq(tsched_flows_count(f), 16);
    ck_assert_str_eq(tsched_flows_job(f, 3), "bare");
    tsched_flows_free(f);
    tsched_job_free(bare);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(collective_errors)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 2, 0, 0, 0);
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, 1)); /* failures must leave this alone */
    tsched_job *bare = NULL, *j = NULL;
    ck_assert_ok(tsched_job_new(&bare, "bare", 64, 4, 2));
    ck_assert_ok(tsched_job_new(&j, "small", 64, 4, 2));
    tsched_model m = small_model();
    ck_assert_ok(tsched_job_set_model(j, &m));

    ck_assert_status(tsched_flows_collective(NULL, t, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_collective(f, NULL, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_collective(f, t, NULL, NULL, 4, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 0, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("0 x 2");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 0, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);

    /* step beyond the pattern's steps, naming the count */
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_DP_HD, 2, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("step: 2");
    ck_assert_errmsg_has("2 steps");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_ALLTOALL, 3, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("3 steps");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_DP_RING, 1, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("1 step ");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, (tsched_pattern)9, 0, 1), TSCHED_E_RANGE);
    /* dp-hd needs a power-of-two number of rows */
    static const uint32_t m32[6] = {0, 1, 2, 3, 4, 5};
    ck_assert_status(tsched_flows_collective(f, t, NULL, m32, 3, 2, TSCHED_PATTERN_DP_HD, 0, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("rows: 3");

    /* no volume: neither gbits nor a model */
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, 0), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("gbits");
    ck_assert_errmsg_has("model");
    ck_assert_status(tsched_flows_collective(f, t, bare, M42, 4, 2, TSCHED_PATTERN_PP, 0, -1), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("gbits");
    ck_assert_errmsg_has("model");
    ck_assert_errmsg_has("\"bare\"");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, INFINITY), TSCHED_E_RANGE);
    ck_assert_errmsg_has("gbits");
    ck_assert_status(tsched_flows_collective(f, t, NULL, M42, 4, 2, TSCHED_PATTERN_PP, 0, NAN), TSCHED_E_RANGE);

    /* the model's matrix must be the one given: 64 GPUs tp 4 pp 2 is 4 x 2, not 2 x 2 */
    static const uint32_t m22[4] = {0, 1, 2, 3};
    ck_assert_status(tsched_flows_collective(f, t, j, m22, 2, 2, TSCHED_PATTERN_PP, 0, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("4 x 2");
    ck_assert_errmsg_has("2 x 2");

    /* bad node indices: out of the fabric, twice in the matrix */
    uint32_t bad[8];
    memcpy(bad, M42, sizeof bad);
    bad[3] = 8; /* the fabric has nodes 0..7 */
    ck_assert_status(tsched_flows_collective(f, t, NULL, bad, 4, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("nodes[3]");
    bad[3] = 5;
    ck_assert_status(tsched_flows_collective(f, t, NULL, bad, 4, 2, TSCHED_PATTERN_PP, 0, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("nodes[3]");
    ck_assert_errmsg_has("node5");

    ck_assert_uint_eq(tsched_flows_count(f), 1);
    tsched_flows_free(f);
    tsched_job_free(bare);
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(collective_mixed_nodes)
{
    /* nodes of one job need equal NIC counts (rails), and for the model one GPU count */
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "mixed"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a", "leaf0", 8, 8, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "b", "leaf0", 8, 4, NULL, 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "c", "leaf0", 4, 8, NULL, 400));
    ck_assert_ok(tsched_topology_build(t));
    tsched_flows *f = new_flows();
    static const uint32_t ab[2] = {0, 1}, ac[2] = {0, 2};
    ck_assert_status(tsched_flows_collective(f, t, NULL, ab, 2, 1, TSCHED_PATTERN_DP_RING, 0, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("\"b\" has 4 NICs");
    ck_assert_errmsg_has("\"a\"");
    /* same NICs, different GPUs: fine with gbits ... */
    ck_assert_ok(tsched_flows_collective(f, t, NULL, ac, 2, 1, TSCHED_PATTERN_DP_RING, 0, 1));
    ck_assert_uint_eq(tsched_flows_count(f), 16);
    /* ... not with the model */
    tsched_job *j = tu_job("j", 16, 8, 1);
    tsched_model m = small_model();
    m.global_batch = 4;
    ck_assert_ok(tsched_job_set_model(j, &m));
    ck_assert_status(tsched_flows_collective(f, t, j, ac, 2, 1, TSCHED_PATTERN_DP_RING, 0, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("\"c\" has 4 GPUs");
    ck_assert_uint_eq(tsched_flows_count(f), 16);
    tsched_job_free(j);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

/* ---- the flow set ---- */

START_TEST(add_and_get)
{
    tsched_flows *f = new_flows();
    uint32_t idx = 99;
    ck_assert_uint_eq(tsched_flows_count(f), 0);
    ck_assert_ok(tsched_flows_add(&idx, f, "a", 3, 1, 4, 2, 1.5));
    ck_assert_uint_eq(idx, 0);
    ck_assert_ok(tsched_flows_add(&idx, f, NULL, 4, 0, 3, 0, 2));
    ck_assert_uint_eq(idx, 1);
    ck_assert_ok(tsched_flows_add(&idx, f, "b", 7, 0, 7, 1, 0.25)); /* one node, two NICs */
    ck_assert_ok(tsched_flows_add(&idx, f, "a", 1, 65535, 2, 0, 3));
    ck_assert_uint_eq(idx, 3);
    ck_assert_uint_eq(tsched_flows_count(f), 4);
    ck_assert_uint_eq(tsched_flows_src(f, 0), 3);
    ck_assert_uint_eq(tsched_flows_src_nic(f, 0), 1);
    ck_assert_uint_eq(tsched_flows_dst(f, 0), 4);
    ck_assert_uint_eq(tsched_flows_dst_nic(f, 0), 2);
    ck_assert_double_eq(tsched_flows_gbits(f, 0), 1.5);
    ck_assert_str_eq(tsched_flows_job(f, 0), "a");
    ck_assert_ptr_null(tsched_flows_job(f, 1));
    ck_assert_str_eq(tsched_flows_job(f, 2), "b");
    ck_assert_str_eq(tsched_flows_job(f, 3), "a");
    ck_assert_uint_eq(tsched_flows_src_nic(f, 3), 65535);
    ck_assert_uint_eq(f->jobs.count, 2); /* names are shared, not copied per flow */
    /* a bad index reads as 0 / NULL */
    ck_assert_uint_eq(tsched_flows_src(f, 4), 0);
    ck_assert_uint_eq(tsched_flows_dst(f, 4), 0);
    ck_assert_uint_eq(tsched_flows_src_nic(f, 4), 0);
    ck_assert_uint_eq(tsched_flows_dst_nic(f, 4), 0);
    ck_assert_double_eq(tsched_flows_gbits(f, 4), 0);
    ck_assert_ptr_null(tsched_flows_job(f, 4));
    ck_assert_uint_eq(tsched_flows_count(NULL), 0);
    ck_assert_ptr_null(tsched_flows_job(NULL, 0));
    tsched_flows_free(NULL);
    tsched_flows_free(f);
}
END_TEST

START_TEST(add_errors)
{
    tsched_flows *f = new_flows();
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, 0), TSCHED_E_RANGE);
    ck_assert_errmsg_has("gbits");
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, -2), TSCHED_E_RANGE);
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, NAN), TSCHED_E_RANGE);
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, INFINITY), TSCHED_E_RANGE);
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 2, 3, 2, 3, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("itself");
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 65536, 1, 0, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("src_nic");
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 70000, 1), TSCHED_E_RANGE);
    ck_assert_errmsg_has("dst_nic");
    ck_assert_status(tsched_flows_add(NULL, f, "", 0, 0, 1, 0, 1), TSCHED_E_INVALID);
    ck_assert_errmsg_has("job");
    ck_assert_status(tsched_flows_add(NULL, NULL, NULL, 0, 0, 1, 0, 1), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_new(NULL), TSCHED_E_INVALID);
    ck_assert_uint_eq(tsched_flows_count(f), 0);
    /* the size limit, without allocating 2^31 flows: pretend the set is full */
    f->n = TS_FLOWS_MAX;
    ck_assert_status(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, 1), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("limit");
    f->n = 0;
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 0, 0, 1, 0, 1));
    tsched_flows_free(f);
}
END_TEST

START_TEST(million_flows)
{
    const uint32_t N = 1000000;
    tsched_flows *f = new_flows();
    for (uint32_t i = 0; i < N; i++) {
        tsched_status st = tsched_flows_add(NULL, f, i % 4 ? "job-a" : NULL, i % 1000, i % 8, (i + 1) % 1000,
                                            (i + 3) % 8, 1 + i % 7);
        if (st != TSCHED_OK)
            ck_abort_msg("add %u: %s", i, tsched_last_error());
    }
    ck_assert_uint_eq(tsched_flows_count(f), N);
    for (uint32_t i = 0; i < N; i++)
        if (tsched_flows_src(f, i) != i % 1000 || tsched_flows_dst(f, i) != (i + 1) % 1000 ||
            tsched_flows_src_nic(f, i) != i % 8 || tsched_flows_dst_nic(f, i) != (i + 3) % 8 ||
            tsched_flows_gbits(f, i) != 1 + i % 7 || (tsched_flows_job(f, i) == NULL) != (i % 4 == 0))
            ck_abort_msg("flow %u read back wrong", i);
    /* ~25 bytes per flow: 24 per entry, and doubling keeps the slack below 2x */
    size_t per = sizeof *f->src + sizeof *f->dst + sizeof *f->src_nic + sizeof *f->dst_nic + sizeof *f->gbits +
                 sizeof *f->job;
    ck_assert_uint_le(per, 25);
    ck_assert_uint_lt(f->cap, 2 * N);
    ck_assert_uint_eq(f->jobs.count, 1);
    tsched_flows_free(f);
}
END_TEST


/* ---- the pull reader of the loaders against the tree reader ---- */

typedef struct tbuf {
    char *p;
    size_t n, cap;
} tbuf;

static void tput(tbuf *b, const char *s)
{
    size_t k = strlen(s);
    if (b->n + k + 1 > b->cap) {
        b->cap = (b->n + k + 1) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, s, k + 1);
    b->n += k;
}

static const char *pick(ts_rng *rng, const char *const *xs, size_t n) { return xs[ts_rng_below(rng, n)]; }
#define PICK(rng, xs) pick(rng, xs, sizeof xs / sizeof *xs)

/* A flows document, mostly valid, with every kind of field error now and then. */
static void random_flows_doc(tbuf *b, ts_rng *rng)
{
    static const char *const node[] = {"\"node0\"", "\"node1\"", "\"node2\"", "\"node3\"", "\"node4\"", "\"node5\"",
                                       "\"node6\"", "\"node7\"", "\"node\\u0037\"", "\"node9\"", "\"\"", "null",
                                       "3", "[]"};
    static const char *const nic[] = {"0", "1", "1", "0", "2", "1.0", "-1", "null", "\"0\"", "-0", "4294967296",
                                      "0.5", "1e0"};
    static const char *const gbits[] = {"1", "2.5", "0.1", "1e3", "7", "0", "-1", "null", "\"x\"", "1e308",
                                        "0.30000000000000004", "-0.0", "12345678901234567890"};
    static const char *const job[] = {"\"a\"", "\"b\"", "\"llm-\\u00e9\"", "\"\"", "null", "\"a#b\"", "1",
                                      "\"caf\xc3\xa9\""};
    static const char *const fmt[] = {"\"tsched.flows.v1\"", "\"tsched.flows.v1\"", "\"tsched.flows.v1\"",
                                      "\"tsched.flows.v2\"", "null", "1", "\"tsched.flows\\u002ev1\""};
    int bad = ts_rng_below(rng, 3) == 0; /* a third of the documents have some error */
    int nflows = (int)ts_rng_below(rng, 12);
    char tmp[64];
    int fmt_first = (int)ts_rng_below(rng, 4) != 0;
    tput(b, "{");
    if (fmt_first)
        tput(b, "\"format\": "), tput(b, bad ? PICK(rng, fmt) : fmt[0]), tput(b, ", ");
    if (ts_rng_below(rng, 4) == 0)
        tput(b, "\"note\": {\"x\": [1, {\"y\": null}], \"z\": \"\\n\"}, ");
    tput(b, "\"flows\": [");
    for (int i = 0; i < nflows; i++) {
        const char *keys[8], *vals[8];
        int nk = 0;
        int err = bad && ts_rng_below(rng, 4) == 0;
        int s = (int)ts_rng_below(rng, 8), d = (int)ts_rng_below(rng, 8);
        keys[nk] = "src", vals[nk++] = err && ts_rng_below(rng, 3) == 0 ? PICK(rng, node) : node[s];
        if (!(err && ts_rng_below(rng, 6) == 0))
            keys[nk] = "dst", vals[nk++] = err && ts_rng_below(rng, 3) == 0 ? PICK(rng, node) : node[d];
        if (ts_rng_below(rng, 2))
            keys[nk] = "src_nic", vals[nk++] = err ? PICK(rng, nic) : nic[ts_rng_below(rng, 4)];
        if (ts_rng_below(rng, 2))
            keys[nk] = "dst_nic", vals[nk++] = err ? PICK(rng, nic) : nic[ts_rng_below(rng, 4)];
        if (ts_rng_below(rng, 3))
            keys[nk] = "gbits", vals[nk++] = err ? PICK(rng, gbits) : gbits[ts_rng_below(rng, 5)];
        if (ts_rng_below(rng, 2))
            keys[nk] = "job", vals[nk++] = err ? PICK(rng, job) : job[ts_rng_below(rng, 3)];
        if (ts_rng_below(rng, 5) == 0)
            keys[nk] = "extra", vals[nk++] = "[true, false, {\"k\": 1.5e-3}]";
        if (err && ts_rng_below(rng, 8) == 0)
            keys[nk] = "src", vals[nk++] = node[0]; /* a duplicate key */
        for (int k = nk - 1; k > 0; k--) { /* members in any order */
            int j = (int)ts_rng_below(rng, (uint64_t)k + 1);
            const char *tk = keys[k], *tv = vals[k];
            keys[k] = keys[j], vals[k] = vals[j], keys[j] = tk, vals[j] = tv;
        }
        tput(b, i ? ",\n  {" : "\n  {");
        if (err && ts_rng_below(rng, 10) == 0) {
            tput(b, "}");
            continue;
        }
        for (int k = 0; k < nk; k++) {
            snprintf(tmp, sizeof tmp, "%s\"%s\": ", k ? ", " : "", keys[k]);
            tput(b, tmp);
            tput(b, vals[k]);
        }
        tput(b, "}");
    }
    tput(b, "]");
    if (!fmt_first)
        tput(b, ", \"format\": "), tput(b, bad ? PICK(rng, fmt) : fmt[0]);
    tput(b, "}\n");
}

/* The same flows, value for value (gbits to the bit) and job for job. */
static void same_flows(const tsched_flows *a, const tsched_flows *b, const char *doc)
{
    ck_assert_uint_eq(tsched_flows_count(a), tsched_flows_count(b));
    for (uint32_t i = 0; i < tsched_flows_count(a); i++) {
        ck_assert_msg(a->src[i] == b->src[i] && a->dst[i] == b->dst[i] && a->src_nic[i] == b->src_nic[i] &&
                          a->dst_nic[i] == b->dst_nic[i] && memcmp(&a->gbits[i], &b->gbits[i], sizeof(double)) == 0,
                      "flow %u differs in %s", i, doc);
        const char *ja = tsched_flows_job(a, i), *jb = tsched_flows_job(b, i);
        ck_assert_msg((!ja && !jb) || (ja && jb && strcmp(ja, jb) == 0), "flow %u: job differs in %s", i, doc);
        ck_assert_uint_eq(a->job[i], b->job[i]);
    }
    ck_assert_uint_eq(ts_strtab_count(&a->jobs), ts_strtab_count(&b->jobs));
}

/* Seeded random documents, valid and not, then damaged: tsched_flows_load_string gives the
 * tree reader's status and message, and, where it loads, the same flows; the pull reader
 * alone never accepts what the tree reader refuses. */
START_TEST(json_pull_reader_is_the_tree_reader)
{
    tsched_topology *t = tu_gen_leaf_spine(4, 2, 2, 8, 2, 0, 0, 0);
    ts_rng rng;
    ts_rng_seed(&rng, 3);
    unsigned loaded = 0, fast = 0, refused = 0;
    for (unsigned i = 0; i < 3000; i++) {
        tbuf b = {NULL, 0, 0};
        random_flows_doc(&b, &rng);
        if (i % 3 == 2 && b.n > 2) { /* damage a byte */
            static const char junk[] = "{}[],:\"\\ -.e0x\x80";
            b.p[ts_rng_below(&rng, b.n)] = junk[ts_rng_below(&rng, sizeof junk - 1)];
        }
        tsched_flows *ref = NULL, *got = NULL, *pull = NULL;
        tsched_status st_ref = ts_json_load_string(&ref, ts_flows_read_tree, t, b.p, b.n, "tsched_flows_load_string");
        char msg[512];
        snprintf(msg, sizeof msg, "%s", tsched_last_error());
        tsched_status st = tsched_flows_load_string(&got, t, b.p, b.n);
        ck_assert_msg(st == st_ref, "doc %u: status %d, tree reader %d (%s): %s", i, st, st_ref, msg, b.p);
        if (st != TSCHED_OK) {
            ck_assert_str_eq(tsched_last_error(), msg);
            ck_assert_ptr_null(got);
            refused++;
        } else {
            same_flows(got, ref, b.p);
            loaded++;
        }
        if (ts_flows_read_text(&pull, t, b.p, b.n) == TSCHED_OK) {
            ck_assert_msg(st_ref == TSCHED_OK, "doc %u: the pull reader took what the tree reader refused: %s", i,
                          b.p);
            same_flows(pull, ref, b.p);
            fast++;
        } else {
            ck_assert_ptr_null(pull);
        }
        tsched_flows_free(ref);
        tsched_flows_free(got);
        tsched_flows_free(pull);
        free(b.p);
    }
    /* both paths were exercised: most loadable documents went the fast way */
    ck_assert_uint_gt(refused, 500);
    ck_assert_uint_gt(loaded, 500);
    ck_assert_uint_gt(fast, loaded / 2);
    tsched_topology_free(t);
}
END_TEST

/* ---- tsched.flows.v1 ---- */

static tsched_flows *load_flows(const tsched_topology *t, const char *json)
{
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_load_string(&f, t, json, strlen(json)));
    ck_assert_ptr_nonnull(f);
    return f;
}

START_TEST(json_round_trip)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_add(NULL, f, "llm-a", 0, 0, 5, 0, 15.0));
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 5, 3, 1, 2, 0.1));
    ck_assert_ok(tsched_flows_add(NULL, f, "b \"quoted\"", 2, 1, 2, 3, 1.0 / 3));
    ck_assert_ok(tsched_flows_add(NULL, f, "llm-a", 7, 3, 6, 3, 1e-300));
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 6, 0, 7, 0, 12345678.900000001));
    char *a = NULL, *b = NULL;
    ck_assert_ok(tsched_flows_to_json(&a, f, t));
    /* the same bytes as a jansson document dumped the library's way */
    json_t *doc = json_pack("{s:s, s:[{s:s, s:s, s:s, s:i, s:i, s:f}, {s:s, s:s, s:i, s:i, s:f},"
                            " {s:s, s:s, s:s, s:i, s:i, s:f}, {s:s, s:s, s:s, s:i, s:i, s:f},"
                            " {s:s, s:s, s:i, s:i, s:f}]}",
                            "format", "tsched.flows.v1", "flows",
                            "job", "llm-a", "src", "node0", "dst", "node5", "src_nic", 0, "dst_nic", 0, "gbits", 15.0,
                            "src", "node5", "dst", "node1", "src_nic", 3, "dst_nic", 2, "gbits", 0.1,
                            "job", "b \"quoted\"", "src", "node2", "dst", "node2", "src_nic", 1, "dst_nic", 3,
                            "gbits", 1.0 / 3,
                            "job", "llm-a", "src", "node7", "dst", "node6", "src_nic", 3, "dst_nic", 3, "gbits", 1e-300,
                            "src", "node6", "dst", "node7", "src_nic", 0, "dst_nic", 0, "gbits", 12345678.900000001);
    ck_assert_ptr_nonnull(doc);
    char *want = NULL;
    ck_assert_ok(ts_json_dump(&want, doc));
    json_decref(doc);
    ck_assert_str_eq(a, want);
    tsched_free(want);
    /* reals as the shortest text that reads back (doc/FORMATS.md) */
    ck_assert_ptr_nonnull(strstr(a, "\"gbits\": 0.1\n"));
    ck_assert_ptr_nonnull(strstr(a, "\"gbits\": 0.3333333333333333\n"));
    ck_assert_ptr_nonnull(strstr(a, "\"gbits\": 12345678.9\n"));
    int jobs = 0; /* "job" only where a flow has one */
    for (const char *q = a; (q = strstr(q, "\"job\"")) != NULL; q++)
        jobs++;
    ck_assert_int_eq(jobs, 3);
    /* read back: every field exactly, and the same bytes again */
    tsched_flows *g = load_flows(t, a);
    ck_assert_uint_eq(tsched_flows_count(g), 5);
    for (uint32_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(tsched_flows_src(g, i), tsched_flows_src(f, i));
        ck_assert_uint_eq(tsched_flows_dst(g, i), tsched_flows_dst(f, i));
        ck_assert_uint_eq(tsched_flows_src_nic(g, i), tsched_flows_src_nic(f, i));
        ck_assert_uint_eq(tsched_flows_dst_nic(g, i), tsched_flows_dst_nic(f, i));
        ck_assert_msg(tsched_flows_gbits(g, i) == tsched_flows_gbits(f, i), "flow %u: gbits %.17g != %.17g", i,
                      tsched_flows_gbits(g, i), tsched_flows_gbits(f, i));
        const char *ja = tsched_flows_job(f, i), *jb = tsched_flows_job(g, i);
        ck_assert_int_eq(ja == NULL, jb == NULL);
        if (ja)
            ck_assert_str_eq(ja, jb);
    }
    ck_assert_ok(tsched_flows_to_json(&b, g, t));
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    tsched_flows_free(g);
    /* an empty set */
    tsched_flows_free(f);
    f = new_flows();
    ck_assert_ok(tsched_flows_to_json(&a, f, t));
    ck_assert_str_eq(a, "{\n  \"format\": \"tsched.flows.v1\",\n  \"flows\": []\n}");
    g = load_flows(t, a);
    ck_assert_uint_eq(tsched_flows_count(g), 0);
    tsched_free(a);
    tsched_flows_free(g);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(json_defaults)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    /* only src and dst: NICs 0, 1 Gbit, no job; unknown fields are ignored */
    tsched_flows *f = load_flows(t, "{\"format\": \"tsched.flows.v1\", \"note\": [1, 2],"
                                    " \"flows\": [{\"src\": \"node1\", \"dst\": \"node3\", \"extra\": {}},"
                                    " {\"src\": \"node3\", \"dst\": \"node3\", \"dst_nic\": 3, \"gbits\": 7,"
                                    "  \"job\": null}]}");
    ck_assert_uint_eq(tsched_flows_count(f), 2);
    ck_assert_uint_eq(tsched_flows_src(f, 0), 1);
    ck_assert_uint_eq(tsched_flows_dst(f, 0), 3);
    ck_assert_uint_eq(tsched_flows_src_nic(f, 0), 0);
    ck_assert_uint_eq(tsched_flows_dst_nic(f, 0), 0);
    ck_assert_double_eq(tsched_flows_gbits(f, 0), 1);
    ck_assert_ptr_null(tsched_flows_job(f, 0));
    ck_assert_uint_eq(tsched_flows_dst_nic(f, 1), 3);
    ck_assert_double_eq(tsched_flows_gbits(f, 1), 7);
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(json_invalid)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
#define FL(body) "{\"format\": \"tsched.flows.v1\", \"flows\": [" body "]}"
    static const struct {
        const char *json;
        tsched_status want;
        const char *needle;
    } cases[] = {
        {"{\"format\": \"tsched.flows.v1\", \"flows\": [", TSCHED_E_PARSE, "line 1"},
        {"{\"format\": \"tsched.flows.v1\", \"flows\": [], \"flows\": []}", TSCHED_E_PARSE, "duplicate"},
        {"[]", TSCHED_E_TYPE, "document"},
        {"{\"flows\": []}", TSCHED_E_FORMAT, "format"},
        {"{\"format\": \"tsched.flows.v2\", \"flows\": []}", TSCHED_E_FORMAT, "tsched.flows.v2"},
        {"{\"format\": 1, \"flows\": []}", TSCHED_E_TYPE, "format"},
        {"{\"format\": \"tsched.flows.v1\"}", TSCHED_E_NOT_FOUND, "flows"},
        {"{\"format\": \"tsched.flows.v1\", \"flows\": {}}", TSCHED_E_TYPE, "flows: expected an array"},
        {FL("[]"), TSCHED_E_TYPE, "flows[0]: expected an object"},
        {FL("{\"dst\": \"node1\"}"), TSCHED_E_NOT_FOUND, "flows[0].src"},
        {FL("{\"src\": \"node1\"}"), TSCHED_E_NOT_FOUND, "flows[0].dst"},
        {FL("{\"src\": 3, \"dst\": \"node1\"}"), TSCHED_E_TYPE, "flows[0].src"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\"}, {\"src\": \"gpu9\", \"dst\": \"node1\"}"), TSCHED_E_NOT_FOUND,
         "flows[1].src: no node named \"gpu9\""},
        {FL("{\"src\": \"node0\", \"dst\": \"node99\"}"), TSCHED_E_NOT_FOUND, "flows[0].dst: no node named \"node99\""},
        {FL("{\"src\": \"node0\", \"dst\": \"leaf0\"}"), TSCHED_E_NOT_FOUND, "\"leaf0\""},
        {FL("{\"src\": \"\", \"dst\": \"node1\"}"), TSCHED_E_RANGE, "flows[0].src"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"src_nic\": 4}"), TSCHED_E_RANGE, "flows[0].src_nic: 4"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"dst_nic\": 9}"), TSCHED_E_RANGE, "flows[0].dst_nic: 9"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"dst_nic\": -1}"), TSCHED_E_RANGE, "flows[0].dst_nic"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"src_nic\": 1.5}"), TSCHED_E_RANGE, "flows[0].src_nic"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"src_nic\": \"1\"}"), TSCHED_E_TYPE, "flows[0].src_nic"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"gbits\": 0}"), TSCHED_E_RANGE, "flows[0].gbits"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"gbits\": -3.5}"), TSCHED_E_RANGE, "flows[0].gbits"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"gbits\": \"5\"}"), TSCHED_E_TYPE, "flows[0].gbits"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"gbits\": 1e999}"), TSCHED_E_PARSE, "line 1"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"job\": 7}"), TSCHED_E_TYPE, "flows[0].job"},
        {FL("{\"src\": \"node0\", \"dst\": \"node1\", \"job\": \"\"}"), TSCHED_E_RANGE, "flows[0].job"},
        {FL("{\"src\": \"node2\", \"dst\": \"node2\", \"src_nic\": 1, \"dst_nic\": 1}"), TSCHED_E_INVALID,
         "flows[0].dst: same node and NIC"},
        {FL("{\"src\": \"node2\", \"dst\": \"node2\"}"), TSCHED_E_INVALID, "node \"node2\" NIC 0"},
    };
#undef FL
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsched_flows *f = (tsched_flows *)1;
        tsched_status st = tsched_flows_load_string(&f, t, cases[i].json, strlen(cases[i].json));
        ck_assert_msg(st == cases[i].want, "case %zu (%s): %s, expected %s: %s", i, cases[i].json,
                      tsched_status_str(st), tsched_status_str(cases[i].want), tsched_last_error());
        ck_assert_msg(strstr(tsched_last_error(), cases[i].needle), "case %zu: \"%s\" lacks \"%s\"", i,
                      tsched_last_error(), cases[i].needle);
        ck_assert_ptr_null(f);
    }
    tsched_flows *f;
    ck_assert_status(tsched_flows_load_string(&f, NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_load_string(&f, t, NULL, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_load_string(NULL, t, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_flows_to_json(NULL, NULL, t), TSCHED_E_INVALID);
    /* the writer refuses flows its fabric cannot name */
    f = new_flows();
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 0, 0, 8, 0, 1));
    char *s = (char *)1;
    ck_assert_status(tsched_flows_to_json(&s, f, t), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows[0].dst");
    ck_assert_ptr_null(s);
    tsched_flows_free(f);
    f = new_flows();
    ck_assert_ok(tsched_flows_add(NULL, f, NULL, 0, 4, 1, 0, 1));
    ck_assert_status(tsched_flows_to_json(&s, f, t), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flows[0].src_nic");
    tsched_flows_free(f);
    tsched_topology_free(t);
}
END_TEST

START_TEST(json_files)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 4, 0, 0, 0);
    tsched_flows *f = NULL;
    ck_assert_ok(tsched_flows_load_file(&f, t, FLOWS_DATA "/dp-ring-2x1.json"));
    ck_assert_uint_eq(tsched_flows_count(f), 8);
    ck_assert_uint_eq(tsched_flows_src(f, 4), 4);
    ck_assert_uint_eq(tsched_flows_dst(f, 4), 0);
    ck_assert_uint_eq(tsched_flows_src_nic(f, 4), 0);
    ck_assert_double_eq(tsched_flows_gbits(f, 4), 15);
    ck_assert_str_eq(tsched_flows_job(f, 4), "llm-a");
    /* the fixture is what the writer produces for this set, byte for byte */
    char *s = NULL, *want = NULL;
    size_t len;
    ck_assert_ok(tsched_flows_to_json(&s, f, t));
    ck_assert_ok(ts_read_file(&want, &len, FLOWS_DATA "/dp-ring-2x1.json"));
    if (len && want[len - 1] == '\n')
        want[len - 1] = '\0';
    ck_assert_str_eq(s, want);
    tsched_free(s);
    free(want);
    tsched_flows_free(f);
    /* the same set made by the collective */
    static const uint32_t col[2] = {0, 4};
    f = new_flows();
    tsched_job *j = tu_job("llm-a", 16, 8, 1);
    ck_assert_ok(tsched_flows_collective(f, t, j, col, 2, 1, TSCHED_PATTERN_DP_RING, 0, 15));
    ck_assert_ok(tsched_flows_to_json(&s, f, t));
    ck_assert_ok(ts_read_file(&want, &len, FLOWS_DATA "/dp-ring-2x1.json"));
    ck_assert_int_eq(strncmp(s, want, strlen(s)), 0);
    tsched_free(s);
    free(want);
    tsched_flows_free(f);
    tsched_job_free(j);
    /* errors carry the file name and the field */
    ck_assert_status(tsched_flows_load_file(&f, t, FLOWS_DATA "/dangling.json"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("dangling.json: flows[1].dst: no node named \"node42\"");
    ck_assert_status(tsched_flows_load_file(&f, t, FLOWS_DATA "/no-such-file.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("no-such-file.json");
    ck_assert_status(tsched_flows_load_file(&f, t, NULL), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

/* ---- tsched.placement.v1 read back ---- */

static tsched_job *place_job(void)
{
    tsched_job *j = tu_job("llm-b", 64, 8, 2); /* 8-GPU nodes: 4 x 2 */
    ck_assert_ok(tsched_job_set_alpha(j, 0.3));
    return j;
}

/* Place, write, load, write: the same text, the same nodes, metric, status and algorithm. */
static void round_trip(const tsched_topology *t, tsched_place_algo algo, int domain, int with_time)
{
    tsched_job *j = place_job();
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = algo;
    o.domain = domain;
    tsched_placement *p = NULL, *q = NULL;
    ck_assert_ok(tsched_place(&p, t, j, &o));
    char *a = NULL, *b = NULL;
    ck_assert_ok(tsched_placement_to_json(&a, p, t, "llm-b", with_time));
    ck_assert_ok(tsched_placement_load_string(&q, t, a, strlen(a)));
    ck_assert_uint_eq(tsched_placement_rows(q), tsched_placement_rows(p));
    ck_assert_uint_eq(tsched_placement_cols(q), tsched_placement_cols(p));
    const uint32_t *np = tsched_placement_nodes(p), *nq = tsched_placement_nodes(q);
    for (uint32_t r = 0; r < 4; r++)
        for (uint32_t c = 0; c < 2; c++) {
            ck_assert_uint_eq(nq[r * 2 + c], np[r * 2 + c]);
            ck_assert_uint_eq(nq[r * 2 + c], tsched_placement_node(p, r, c));
        }
    ck_assert_uint_eq(tsched_placement_dp_max(q), tsched_placement_dp_max(p));
    ck_assert_uint_eq(tsched_placement_pp_max(q), tsched_placement_pp_max(p));
    ck_assert_uint_eq(tsched_placement_domains_used(q), tsched_placement_domains_used(p));
    ck_assert(tsched_placement_weighted(q) == tsched_placement_weighted(p));
    ck_assert(tsched_placement_alpha(q) == 0.3);
    ck_assert_int_eq(tsched_placement_status(q), tsched_placement_status(p));
    ck_assert_int_eq(tsched_placement_algo(q), algo);
    if (with_time)
        ck_assert(tsched_placement_solve_ms(q) == tsched_placement_solve_ms(p));
    else
        ck_assert(tsched_placement_solve_ms(q) == 0);
    ck_assert_ok(tsched_placement_to_json(&b, q, t, "llm-b", with_time));
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    tsched_placement_free(p);
    tsched_placement_free(q);
    tsched_job_free(j);
}

START_TEST(placement_load_round_trip)
{
    /* 2 pods x 2 leaves x 3 nodes: the 8 cells must span pods */
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 3, 0, 0, 0, 0);
    round_trip(t, TSCHED_PLACE_MIP, -1, 0);
    round_trip(t, TSCHED_PLACE_MIP, -1, 1);
    round_trip(t, TSCHED_PLACE_BEST_FIT, TSCHED_DOMAIN_LEAF, 0);
    round_trip(t, TSCHED_PLACE_RANDOM_FIT, TSCHED_DOMAIN_POD, 0);
    tsched_topology_free(t);
    t = tu_gen_leaf_spine(3, 2, 3, 8, 8, 0, 0, 0); /* no pods: leaf domain */
    round_trip(t, TSCHED_PLACE_EXHAUSTIVE, -1, 0);
    tsched_topology_free(t);
    ck_assert_ptr_null(tsched_placement_nodes(NULL));
}
END_TEST

START_TEST(placement_load_recomputes)
{
    /* the spread fields of the document are not trusted; an absent domain means pod on
     * a fabric with pods; solve_ms and job are optional */
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 3, 0, 0, 0, 0); /* pod0: node0..5, pod1: node6..11 */
    const char *doc = "{\"format\": \"tsched.placement.v1\", \"algorithm\": \"gpu-pack\", \"status\": \"feasible\","
                      " \"rows\": 2, \"cols\": 2, \"alpha\": 0.25, \"spread\": {\"dp_max\": 9},"
                      " \"assignment\": [{\"row\": 0, \"col\": 0, \"node\": \"node0\"},"
                      " {\"row\": 1, \"col\": 0, \"node\": \"node6\", \"rank\": 1},"
                      " {\"row\": 0, \"col\": 1, \"node\": \"node1\", \"rank\": 2},"
                      " {\"row\": 1, \"col\": 1, \"node\": \"node2\"}]}";
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_placement_load_string(&p, t, doc, strlen(doc)));
    ck_assert_uint_eq(tsched_placement_dp_max(p), 2); /* column 0: pods 0 and 1 */
    ck_assert_uint_eq(tsched_placement_pp_max(p), 2); /* row 1: pods 1 and 0 */
    ck_assert_uint_eq(tsched_placement_domains_used(p), 2);
    ck_assert_double_eq(tsched_placement_weighted(p), 2);
    ck_assert_int_eq(tsched_placement_status(p), TSCHED_PLACE_FEASIBLE);
    ck_assert_int_eq(tsched_placement_algo(p), TSCHED_PLACE_GPU_PACK);
    ck_assert_double_eq(tsched_placement_solve_ms(p), 0);
    const uint32_t *n = tsched_placement_nodes(p);
    ck_assert_uint_eq(n[0], 0);
    ck_assert_uint_eq(n[1], 1);
    ck_assert_uint_eq(n[2], 6);
    ck_assert_uint_eq(n[3], 2);
    /* the loaded placement drives the flows of its job */
    tsched_flows *f = new_flows();
    ck_assert_ok(tsched_flows_collective(f, t, NULL, n, 2, 2, TSCHED_PATTERN_PP, 0, 1));
    ck_assert_uint_eq(tsched_flows_count(f), 2 * 8);
    ck_assert_uint_eq(tsched_flows_src(f, 8), 6);
    ck_assert_uint_eq(tsched_flows_dst(f, 8), 2);
    tsched_flows_free(f);
    tsched_placement_free(p);
    tsched_topology_free(t);
}
END_TEST

/* The round-trip document of a 4 x 2 placement, as a jansson tree the cases mutate. */
static json_t *placed_doc(const tsched_topology *t)
{
    tsched_job *j = place_job();
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_place(&p, t, j, NULL));
    char *s = NULL;
    ck_assert_ok(tsched_placement_to_json(&s, p, t, "llm-b", 1));
    json_t *doc = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    tsched_free(s);
    tsched_placement_free(p);
    tsched_job_free(j);
    return doc;
}

static void expect_load_error(const tsched_topology *t, json_t *doc, tsched_status want, const char *needle,
                              const char *needle2)
{
    char *s = json_dumps(doc, 0);
    ck_assert_ptr_nonnull(s);
    tsched_placement *p = (tsched_placement *)1;
    tsched_status st = tsched_placement_load_string(&p, t, s, strlen(s));
    ck_assert_msg(st == want, "%s: %s, expected %s: %s", needle, tsched_status_str(st), tsched_status_str(want),
                  tsched_last_error());
    ck_assert_errmsg_has(needle);
    if (needle2)
        ck_assert_errmsg_has(needle2);
    ck_assert_ptr_null(p);
    free(s);
    json_decref(doc);
}

static json_t *entry(json_t *doc, size_t i) { return json_array_get(json_object_get(doc, "assignment"), i); }

START_TEST(placement_load_errors)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 3, 0, 0, 0, 0);
    json_t *d;
    /* the unmodified document loads */
    d = placed_doc(t);
    char *s = json_dumps(d, 0);
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_placement_load_string(&p, t, s, strlen(s)));
    tsched_placement_free(p);
    free(s);
    json_decref(d);

    /* a missing cell: entry 5 is (row 1, col 1) in rank order */
    d = placed_doc(t);
    ck_assert_int_eq(json_array_remove(json_object_get(d, "assignment"), 5), 0);
    expect_load_error(t, d, TSCHED_E_NOT_FOUND, "assignment", "row 1, col 1");
    /* a cell assigned twice */
    d = placed_doc(t);
    json_object_set_new(entry(d, 3), "row", json_integer(2));
    json_object_set_new(entry(d, 3), "rank", json_integer(2));
    expect_load_error(t, d, TSCHED_E_DUPLICATE, "assignment[3]", "row 2, col 0");
    /* a node used twice */
    d = placed_doc(t);
    json_object_set(entry(d, 6), "node", json_object_get(entry(d, 1), "node"));
    expect_load_error(t, d, TSCHED_E_DUPLICATE, "assignment[6].node", "assignment[1]");
    /* a rank that is not col * rows + row */
    d = placed_doc(t);
    json_object_set_new(entry(d, 4), "rank", json_integer(3));
    expect_load_error(t, d, TSCHED_E_RANGE, "assignment[4].rank: 3", "= 4");
    /* an unknown node */
    d = placed_doc(t);
    json_object_set_new(entry(d, 2), "node", json_string("gpu77"));
    expect_load_error(t, d, TSCHED_E_NOT_FOUND, "assignment[2].node", "\"gpu77\"");
    /* a bad algorithm name, a bad status */
    d = placed_doc(t);
    json_object_set_new(d, "algorithm", json_string("simulated-annealing"));
    expect_load_error(t, d, TSCHED_E_FORMAT, "algorithm", "simulated-annealing");
    d = placed_doc(t);
    json_object_set_new(d, "status", json_string("infeasible"));
    expect_load_error(t, d, TSCHED_E_FORMAT, "status", "infeasible");
    d = placed_doc(t);
    json_object_del(d, "algorithm");
    expect_load_error(t, d, TSCHED_E_NOT_FOUND, "algorithm", NULL);
    /* format, types, ranges */
    d = placed_doc(t);
    json_object_set_new(d, "format", json_string("tsched.placement.v9"));
    expect_load_error(t, d, TSCHED_E_FORMAT, "format", NULL);
    d = placed_doc(t);
    json_object_set_new(d, "rows", json_string("4"));
    expect_load_error(t, d, TSCHED_E_TYPE, "rows", NULL);
    d = placed_doc(t);
    json_object_set_new(d, "alpha", json_real(1.5));
    expect_load_error(t, d, TSCHED_E_RANGE, "alpha", NULL);
    d = placed_doc(t);
    json_object_set_new(d, "domain", json_string("rack"));
    expect_load_error(t, d, TSCHED_E_FORMAT, "domain", "rack");
    d = placed_doc(t);
    json_object_set_new(d, "job", json_integer(1));
    expect_load_error(t, d, TSCHED_E_TYPE, "job", NULL);
    d = placed_doc(t);
    json_object_set_new(d, "solve_ms", json_real(-1));
    expect_load_error(t, d, TSCHED_E_RANGE, "solve_ms", NULL);
    d = placed_doc(t);
    json_object_set_new(entry(d, 0), "col", json_integer(2));
    expect_load_error(t, d, TSCHED_E_RANGE, "assignment[0].col", NULL);
    d = placed_doc(t);
    json_object_del(entry(d, 7), "node");
    expect_load_error(t, d, TSCHED_E_NOT_FOUND, "assignment[7].node", NULL);
    d = placed_doc(t);
    json_array_set_new(json_object_get(d, "assignment"), 1, json_string("node0"));
    expect_load_error(t, d, TSCHED_E_TYPE, "assignment[1]", NULL);
    d = placed_doc(t);
    json_object_set_new(d, "rows", json_integer(100));
    expect_load_error(t, d, TSCHED_E_RANGE, "rows", "12");
    /* "pod" on a fabric without pods */
    tsched_topology *ls = tu_gen_leaf_spine(3, 2, 3, 8, 8, 0, 0, 0);
    d = placed_doc(ls);
    json_object_set_new(d, "domain", json_string("pod"));
    expect_load_error(ls, d, TSCHED_E_INVALID, "domain", "no pod");
    tsched_topology_free(ls);

    ck_assert_status(tsched_placement_load_string(NULL, t, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_placement_load_string(&p, NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_placement_load_string(&p, t, "{", 1), TSCHED_E_PARSE);
    ck_assert_status(tsched_placement_load_file(&p, t, FLOWS_DATA "/no-such-placement.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("no-such-placement.json");
    tsched_topology_free(t);
}
END_TEST

START_TEST(placement_load_file)
{
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 3, 0, 0, 0, 0);
    tsched_placement *p = NULL;
    ck_assert_ok(tsched_placement_load_file(&p, t, FLOWS_DATA "/placement-2x2.json"));
    ck_assert_uint_eq(tsched_placement_rows(p), 2);
    ck_assert_uint_eq(tsched_placement_node(p, 1, 0), 6);
    ck_assert_uint_eq(tsched_placement_dp_max(p), 2);
    ck_assert_uint_eq(tsched_placement_pp_max(p), 1);
    ck_assert_double_eq(tsched_placement_solve_ms(p), 4.25);
    tsched_placement_free(p);
    ck_assert_status(tsched_placement_load_file(&p, t, FLOWS_DATA "/placement-bad-rank.json"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("placement-bad-rank.json: assignment[1].rank");
    tsched_topology_free(t);
}
END_TEST

TCase *workload_flows_tcase(void);

TCase *workload_flows_tcase(void)
{
    TCase *tc = tcase_create("flows");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pattern_names);
    tcase_add_test(tc, pattern_steps);
    tcase_add_test(tc, dp_ring_flows);
    tcase_add_test(tc, dp_hd_flows);
    tcase_add_test(tc, pp_flows);
    tcase_add_test(tc, alltoall_flows);
    tcase_add_test(tc, single_row_dp);
    tcase_add_test(tc, rails);
    tcase_add_test(tc, volumes_small_model);
    tcase_add_test(tc, volumes_production_shape);
    tcase_add_test(tc, gbits_override);
    tcase_add_test(tc, collective_errors);
    tcase_add_test(tc, collective_mixed_nodes);
    tcase_add_test(tc, add_and_get);
    tcase_add_test(tc, add_errors);
    tcase_add_test(tc, million_flows);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, json_defaults);
    tcase_add_test(tc, json_invalid);
    tcase_add_test(tc, json_files);
    tcase_add_test(tc, json_pull_reader_is_the_tree_reader);
    tcase_add_test(tc, placement_load_round_trip);
    tcase_add_test(tc, placement_load_recomputes);
    tcase_add_test(tc, placement_load_errors);
    tcase_add_test(tc, placement_load_file);
    return tc;
}
