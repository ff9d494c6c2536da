/* random-fit (Arnold 7.1, baseline 2): "assigns nodes to minipods randomly such that the
 * assignment is balanced and fair".
 *
 * The rule. Cells are taken in matrix order (unit PP: row-major, unit DP: column-major).
 * Each goes to a domain drawn uniformly (ts_rng seeded with p->seed) among the domains
 * that still have a free node and hold the fewest cells of this job so far. So every
 * domain gets its L-th cell before any gets its (L+1)-th, unless it is full: for any two
 * domains a, b, count[a] > count[b] + 1 only when b is full. Which domains get the extra
 * cell of the last round, and which cells go where, is the random part.
 *
 * Cost O(n + K): the candidates of the current round are an array with swap-removal; a
 * domain drawn goes to the next round's array unless it became full. */
#include <stdlib.h>

#include "../common/alloc.h"
#include "../common/rng.h"
#include "baseline_util.h"

tsched_status ts_solve_random_fit(uint32_t *dom, const ts_pproblem *p)
{
    uint32_t n;
    tsched_status st = ts_baseline_check(&n, dom, p, "random-fit");
    if (st != TSCHED_OK || n == 0)
        return st;
    uint32_t *cur = ts_malloc(p->ndom, sizeof *cur);
    uint32_t *next = ts_malloc(p->ndom, sizeof *next);
    uint32_t *count = ts_calloc(p->ndom, sizeof *count);
    if (!cur || !next || !count) {
        free(cur);
        free(next);
        free(count);
        return TSCHED_E_NOMEM;
    }
    ts_rng rng;
    ts_rng_seed(&rng, p->seed);
    uint32_t ncur = 0, nnext = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        if (p->cap[k] > 0)
            cur[ncur++] = k;
    for (uint32_t i = 0; i < n; i++) {
        if (ncur == 0) { /* round over: the survivors all hold one more cell */
            uint32_t *t = cur;
            cur = next;
            next = t;
            ncur = nnext;
            nnext = 0;
        }
        /* ncur > 0: the capacities cover n, so some domain is not full */
        uint32_t j = (uint32_t)ts_rng_below(&rng, ncur);
        uint32_t k = cur[j];
        cur[j] = cur[--ncur];
        if (++count[k] < p->cap[k])
            next[nnext++] = k;
        dom[ts_matrix_cell(p, i)] = k;
    }
    free(cur);
    free(next);
    free(count);
    return TSCHED_OK;
}
