/* Internal: what the four baselines of Arnold 7.1 (best-fit, random-fit, gpu-pack,
 * topo-aware) share: the argument check, "matrix order", and the Fiduccia-Mattheyses
 * refinement of topo-aware, exposed so the tests can check it on its own. */
#ifndef TS_PLACEMENT_BASELINE_UTIL_H
#define TS_PLACEMENT_BASELINE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "solver.h"

/* Check the problem and return the number of cells in *ncells. Errors: TSCHED_E_INVALID
 * (NULL), TSCHED_E_TOO_LARGE (more than UINT32_MAX cells), TSCHED_E_INFEASIBLE (the
 * domains' free nodes are fewer than the cells; the caller should have refused already). */
static inline tsched_status ts_baseline_check(uint32_t *ncells, const uint32_t *dom, const ts_pproblem *p,
                                              const char *algo)
{
    *ncells = 0;
    if (!p || !dom || (p->ndom > 0 && !p->cap))
        return ts_error(TSCHED_E_INVALID, "%s: NULL problem, output or capacities", algo);
    uint64_t n = (uint64_t)p->rows * p->cols;
    if (n > UINT32_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "%s: %u x %u cells do not fit the index type", algo, p->rows, p->cols);
    uint64_t free_nodes = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        free_nodes += p->cap[k];
    if (free_nodes < n)
        return ts_error(TSCHED_E_INFEASIBLE, "%s: the job needs %llu nodes but its %u domains have %llu free", algo,
                        (unsigned long long)n, p->ndom, (unsigned long long)free_nodes);
    *ncells = (uint32_t)n;
    return TSCHED_OK;
}

/* Cell (r * cols + c) of the i-th node "in matrix order": unit by unit, i.e. row-major when
 * the units are PP groups (rows) and column-major when they are DP groups (columns). */
static inline uint32_t ts_matrix_cell(const ts_pproblem *p, uint32_t i)
{
    if (p->unit == TSCHED_UNIT_DP)
        return (i % p->rows) * p->cols + i / p->rows;
    return i;
}

/* Cells per unit: a row (cols cells) for unit PP, a column (rows cells) for unit DP. */
static inline uint32_t ts_unit_size(const ts_pproblem *p) { return p->unit == TSCHED_UNIT_DP ? p->rows : p->cols; }

/* The job graph of topo-aware: one vertex per cell, an edge of weight p->w_dp between
 * vertically adjacent cells (r, c)-(r+1, c) (a ring all-reduce of a DP group goes from
 * neighbour to neighbour), and one of weight p->w_pp between horizontally adjacent cells
 * (r, c)-(r, c+1) (a pipeline sends from stage to stage). Only edges with both ends among
 * the given cells count.
 *
 * ts_fm_refine improves the bipartition part[i] in {0, 1} of the n distinct cells
 * cells[i] (global ids r * cols + c, any order) by Fiduccia-Mattheyses passes that keep
 * the number of cells on each side exactly as given, and stops when a pass does not lower
 * the cut weight. The result's cut is never above the initial one. *cut_before and
 * *cut_after (either may be NULL) receive the cut weight before and after. Errors:
 * TSCHED_E_NOMEM, TSCHED_E_INVALID (a cell outside the matrix, a part not 0/1). */
tsched_status ts_fm_refine(uint8_t *part, const uint32_t *cells, uint32_t n, const ts_pproblem *p,
                           double *cut_before, double *cut_after);

/* Cut weight of a bipartition as defined above (scratch of rows * cols entries).
 * Errors: TSCHED_E_NOMEM, TSCHED_E_INVALID as ts_fm_refine. */
tsched_status ts_cut_weight(double *cut, const uint8_t *part, const uint32_t *cells, uint32_t n,
                            const ts_pproblem *p);

#endif
