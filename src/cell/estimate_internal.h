/* Internal to the Cell estimator (stages.c, model.c, plans.c, estimate.c, cell_json.c):
 * the Cell itself and the cost model of doc/cell.md §3.2 for one stage option. */
#ifndef TS_CELL_ESTIMATE_INTERNAL_H
#define TS_CELL_ESTIMATE_INTERNAL_H

#include <stdint.h>

#include "cell_internal.h"

/* One stage of a Cell: its layer range and GPUs (set whenever the Cell could be cut), and
 * the plan of the Cell's answer (0 when infeasible). */
typedef struct ts_cell_stage {
    uint32_t first_layer, layers, gpus;
    uint32_t dp, tp;
    int favor_tp; /* the assembled choice is TP-max (t > 1) */
    double time_s, mem_bytes;
} ts_cell_stage;

struct tsched_cell {
    /* what the estimate was made from (tsched_cell_tune re-runs it) */
    char *pool, *gpu_type;            /* inside this allocation */
    double tflops, mem_gib, intra_gbps, efficiency;
    uint32_t G;
    double U_gbps;
    uint32_t hidden, layers, vocab, seq, global_batch, moe_experts;
    tsched_op_profile *profile;       /* a clone, or NULL */
    /* the answer */
    uint32_t N, S;
    int cut;                          /* stages determined (st valid) */
    int feasible;
    const char *reason;               /* static text; "" when feasible */
    tsched_plan_space space;
    uint64_t plans;                   /* size of the space, INT64_MAX when saturated */
    int plans_saturated;              /* the size exceeds INT64_MAX (plans is INT64_MAX) */
    uint32_t B;
    double m, T, throughput;
    ts_cell_stage *st;                /* S entries when cut, inside this allocation */
};

/* ---- stage determination (stages.c) ---- */

/* g_s of §2.1. */
void ts_stages_gpus(uint32_t *g, uint32_t n_gpus, uint32_t stages);
/* Cuts of §2.2-§2.3 for the model (prof NULL: analytic phi, exact), stages <= layers:
 * first[0..stages] with first[stages] = layers. `g` from ts_stages_gpus. Errors: NOMEM. */
tsched_status ts_stages_cut(uint32_t *first, uint32_t hidden, uint32_t layers, uint32_t vocab, uint32_t seq,
                            const tsched_op_profile *prof, const uint32_t *g, uint32_t stages);
/* The same by the O(S l log l) DP of §2 alone (ts_stages_cut uses it under a profile and a
 * closed form for the analytic model; the tests compare the two). */
tsched_status ts_stages_cut_dp(uint32_t *first, uint32_t hidden, uint32_t layers, uint32_t vocab, uint32_t seq,
                               const tsched_op_profile *prof, const uint32_t *g, uint32_t stages);

/* ---- cost model (model.c) ---- */

/* Per-stage quantities that do not depend on the plan. */
typedef struct ts_cm_stage {
    uint32_t first, n, g, o;
    double Phi;  /* FLOPs per sequence (analytic) or sum of the profile's time_s */
    double Pi;   /* parameters */
    double act;  /* profile: stored activation bytes per sequence of the stage's layers */
    double a_in; /* profile: one micro-batch's incoming boundary activation (bytes) */
} ts_cm_stage;

typedef struct ts_cm {
    uint32_t S, B, G, N;
    double m, a;          /* micro-batch (sequences) and a = 2 m seq h */
    double h, seq;
    double F, W, U;       /* FLOP/s, bytes/s */
    double memcap;        /* 0.9 mem_gib 2^30 */
    const tsched_op_profile *prof;
    ts_cm_stage *st;
} ts_cm;

/* One option (t) of one stage evaluated by the cost model. */
typedef struct ts_opt {
    uint32_t s, t;
    double C, X, K, A, M;
    double cx, tau;       /* C + X, C + X + K */
} ts_opt;

/* Fill cm (st has S entries, cm->st set by the caller) from the Cell's inputs and cuts. */
void ts_cm_init(ts_cm *cm, const ts_cell_in *in, uint32_t n_gpus, uint32_t stages, const uint32_t *first,
                const uint32_t *g);
/* Evaluate option t of stage s. */
void ts_cm_option(ts_opt *o, const ts_cm *cm, uint32_t s, uint32_t t);
/* T of a plan given its per-stage options (the §3.2 formula in its written order). */
double ts_cm_iteration(const ts_cm *cm, const ts_opt *const *chosen);

/* ---- plan spaces (plans.c) ---- */

/* Largest divisor of g that is <= G. */
uint32_t ts_tp_max(uint32_t g, uint32_t G);
/* Is option t of a stage with g GPUs in `space` (favor_tp: the stage's favour; only
 * read for the tuned space)? t must divide g and be <= G. */
int ts_plan_in_space(tsched_plan_space space, uint32_t g, uint32_t G, uint32_t t, int favor_tp);
/* Exact optimum of §3.3 over `opts` (K memory-feasible options of S stages, any order;
 * reordered in place), scratch `work` of K + 3 S doubles, `cur` of S pointers. Writes the chosen
 * option of every stage to chosen[S] and returns T, or returns -1 when some stage has no
 * option. */
double ts_plans_best(const ts_opt **chosen, ts_opt *opts, uint32_t K, const ts_cm *cm, double *work,
                     const ts_opt **cur);

#endif
