/* gpu-pack (Arnold 7.1, baseline 3): GPU packing (Gandiva, MLaaS) modified to "pack
 * multi-GPU jobs to a minipod": use as few domains as possible.
 *
 * The rule. Sort the domains by free nodes, largest first (ties: lowest index), and fill
 * them in that order with the cells taken in matrix order (unit PP: row-major, unit DP:
 * column-major): every domain used but the last is full. Taking the largest first gives
 * the fewest domains whose free nodes add up to the job. Cost O(n + K log K). */
#include <stdlib.h>

#include "../common/alloc.h"
#include "baseline_util.h"

typedef struct gp_dom {
    uint32_t cap, idx;
} gp_dom;

static int by_cap_desc(const void *a, const void *b)
{
    const gp_dom *x = a, *y = b;
    if (x->cap != y->cap)
        return x->cap > y->cap ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

tsched_status ts_solve_gpu_pack(uint32_t *dom, const ts_pproblem *p)
{
    uint32_t n;
    tsched_status st = ts_baseline_check(&n, dom, p, "gpu-pack");
    if (st != TSCHED_OK || n == 0)
        return st;
    gp_dom *s = ts_malloc(p->ndom, sizeof *s);
    if (!s)
        return TSCHED_E_NOMEM;
    uint32_t ns = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        if (p->cap[k] > 0)
            s[ns++] = (gp_dom){p->cap[k], k};
    qsort(s, ns, sizeof *s, by_cap_desc);
    uint32_t pos = 0;
    for (uint32_t j = 0; j < ns && pos < n; j++) {
        uint32_t take = n - pos < s[j].cap ? n - pos : s[j].cap;
        for (uint32_t i = 0; i < take; i++)
            dom[ts_matrix_cell(p, pos + i)] = s[j].idx;
        pos += take;
    }
    free(s);
    return TSCHED_OK;
}
