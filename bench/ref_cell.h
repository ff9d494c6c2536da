/* The plain reference for Cell estimation (doc/cell.md §3.2-3.3), written for the benchmark
 * only (no library code): the cost model's formulas evaluated for every per-stage plan
 * option of a Cell whose stage cuts are given, then the exact optimum of the plan space by
 * the two-threshold sweep of §3.3 (max A, then max C + X). It finds the least T, not the
 * tie-broken plan; it serves as the timing reference and as an independent check of the
 * library's T. */
#ifndef TSCHED_BENCH_REF_CELL_H
#define TSCHED_BENCH_REF_CELL_H

#include <stdint.h>

#define REF_CELL_MAX_STAGES 128
#define REF_CELL_MAX_OPTS 16 /* per stage: divisors of g that are <= G */

typedef struct ref_cell_in {
    double hidden, layers, vocab, seq, gb;   /* the model (analytic: no profile) */
    double tflops, efficiency, mem_gib, intra_gbps; /* the GPU type */
    uint32_t G;                              /* GPUs per node of the pool */
    double U_gbps;                           /* per-GPU network bandwidth of the pool */
    uint32_t N, S;                           /* the Cell */
    uint32_t first_layer[REF_CELL_MAX_STAGES + 1]; /* stage cuts, first_layer[S] = layers */
    uint32_t gpus[REF_CELL_MAX_STAGES];      /* g_s */
} ref_cell_in;

/* Plan spaces as in cell.h (0 assembled, 1 tuned, 2 exhaustive). */
typedef struct ref_cell_out {
    int feasible;
    double T;            /* seconds per iteration of the best plan (0 if infeasible) */
    uint32_t options;    /* plan options evaluated (sum over stages, before the memory filter) */
    double log10_plans;  /* log10 of the product of per-stage option counts */
} ref_cell_out;

/* Evaluate Cell `in` in plan space `space`. `favor_tp[s]` (tuned space only; may be NULL for
 * the other two) says whether stage s is TP-favoured. Returns 0, or -1 for bad input (too
 * many stages, S = 0). */
int ref_cell_eval(ref_cell_out *out, const ref_cell_in *in, int space, const uint8_t *favor_tp);

/* The four T values of the worked example of doc/cell.md §3.2 (N 4, S 2, t = (1,1), (1,2),
 * (2,1), (2,2)) and the assembled / exhaustive optimum at N 8: returns the largest relative
 * error against the contract's printed digits (a self-test of the reference). */
double ref_cell_selftest(void);

#endif
