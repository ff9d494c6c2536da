/* Internal: the abstract placement problem every algorithm solves. The driver
 * (placement.c) turns a fabric into domains (pods or leaves) with free-node capacities,
 * calls one solver for a cell -> domain map, then picks concrete nodes inside each
 * domain. Solvers never see the topology, so they are testable on bare numbers. */
#ifndef TS_PLACEMENT_SOLVER_H
#define TS_PLACEMENT_SOLVER_H

#include "topo-sched/placement.h"

typedef struct ts_pproblem {
    uint32_t rows, cols;    /* the matrix: rows = PP groups, cols = DP groups */
    uint32_t ndom;          /* domains */
    const uint32_t *cap;    /* free nodes per domain; sum >= rows * cols (checked by the caller) */
    double alpha;           /* weight of dp_max; beta = 1 - alpha */
    tsched_unit unit;       /* PP: rows are the MIP's units; DP: columns */
    uint32_t time_limit_ms; /* > 0 */
    uint64_t seed;          /* random-fit and tie breaking */
    double w_dp, w_pp;      /* topo-aware: weight of a DP edge and of a PP edge (App. C volumes), > 0 */
} ts_pproblem;

/* Every solver writes dom[r * cols + c] (a domain < ndom for every cell), never puts more
 * than cap[k] cells in domain k, and is deterministic for a given problem (and seed).
 * *optimal (where present) is 1 when the answer is proven optimal for the Eq. 2 metric. */
tsched_status ts_solve_mip(uint32_t *dom, int *optimal, const ts_pproblem *p);
tsched_status ts_solve_exhaustive(uint32_t *dom, int *optimal, const ts_pproblem *p);
tsched_status ts_solve_best_fit(uint32_t *dom, const ts_pproblem *p);
tsched_status ts_solve_random_fit(uint32_t *dom, const ts_pproblem *p);
tsched_status ts_solve_gpu_pack(uint32_t *dom, const ts_pproblem *p);
tsched_status ts_solve_topo_aware(uint32_t *dom, const ts_pproblem *p);

/* Exhaustive's limits. */
#define TS_EXHAUSTIVE_MAX_CELLS 16u
#define TS_EXHAUSTIVE_MAX_DOMAINS 4u

/* The Eq. 2 metric of a cell -> domain map. Allocates scratch of ndom entries. */
typedef struct ts_metric {
    uint32_t dp_max, pp_max, used;
    double weighted;
} ts_metric;
tsched_status ts_metric_eval(ts_metric *m, const uint32_t *dom, uint32_t rows, uint32_t cols, uint32_t ndom,
                             double alpha);

#endif
