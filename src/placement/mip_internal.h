/* Shared by the two halves of Arnold's MIP placement: the greedy candidates (mip_cand.c)
 * and the GLPK models, lower bound and driver (mip.c). */
#ifndef TS_PLACEMENT_MIP_INTERNAL_H
#define TS_PLACEMENT_MIP_INTERNAL_H

#include "solver.h"

#define EPS 1e-9

typedef struct prob {
    uint32_t R, C, K;     /* rows are the units here */
    const uint32_t *cap;
    double alpha;         /* weight of dp (columns) */
    double deadline;      /* CLOCK_MONOTONIC seconds */
} prob;

typedef struct best {
    uint32_t *dom; /* R x C, row-major */
    double value;
    int have;
} best;

/* Domain order for greedy packings: by how many whole groups of `size` cells fit,
 * descending, then by capacity descending, then index. */
typedef struct dom_key {
    uint32_t k, fit, cap;
} dom_key;

static inline double ts_mip_objective(const prob *q, uint32_t D, uint32_t P) { return q->alpha * D + (1.0 - q->alpha) * P; }

/* Milliseconds left before the deadline, at least 1. */
int ts_mip_ms_left(const prob *q);
/* Score `dom` and keep it in `b` when strictly better. */
tsched_status ts_mip_offer(best *b, const prob *q, const uint32_t *dom);

/* Candidate answers (mip_cand.c). */
tsched_status ts_mip_cand_rows_whole(best *b, const prob *q, uint32_t *dom, dom_key *order, uint32_t *dstar);
tsched_status ts_mip_cand_cols_whole(best *b, const prob *q, uint32_t *dom, dom_key *order, uint32_t *pstar);
tsched_status ts_mip_cand_grids(best *b, const prob *q, uint32_t *dom, dom_key *order);
tsched_status ts_mip_cand_baselines(best *b, const prob *q, uint32_t *dom);

#endif
