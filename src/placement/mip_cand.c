/* Arnold's MIP placement, step 1 without a solver: candidate answers from greedy packings
 * (every unit whole, every column whole), balanced grids of distinct domains, and the
 * baselines' answers; each is scored by Eq. 2 and the best kept (mip.c). */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "mip_internal.h"

static int cmp_dom_key(const void *a, const void *b)
{
    const dom_key *x = a, *y = b;
    if (x->fit != y->fit)
        return x->fit > y->fit ? -1 : 1;
    if (x->cap != y->cap)
        return x->cap > y->cap ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Fewest domains that hold `n` whole groups of `size` cells (UINT32_MAX if impossible);
 * `order` receives the domains in packing order. Exact: taking the domains that fit the
 * most groups first minimises the count. */
static uint32_t pack_whole(dom_key *order, const prob *q, uint32_t size, uint32_t n)
{
    for (uint32_t k = 0; k < q->K; k++)
        order[k] = (dom_key){k, q->cap[k] / size, q->cap[k]};
    qsort(order, q->K, sizeof *order, cmp_dom_key);
    uint64_t got = 0;
    for (uint32_t i = 0; i < q->K; i++) {
        if (order[i].fit == 0)
            break;
        got += order[i].fit;
        if (got >= n)
            return i + 1;
    }
    return UINT32_MAX;
}

/* Rows whole: P = 1, D = the number of domains used. */
tsched_status ts_mip_cand_rows_whole(best *b, const prob *q, uint32_t *dom, dom_key *order, uint32_t *dstar)
{
    *dstar = pack_whole(order, q, q->C, q->R);
    if (*dstar == UINT32_MAX)
        return TSCHED_OK;
    uint32_t r = 0;
    for (uint32_t i = 0; i < *dstar && r < q->R; i++)
        for (uint32_t f = 0; f < order[i].fit && r < q->R; f++, r++)
            for (uint32_t c = 0; c < q->C; c++)
                dom[(size_t)r * q->C + c] = order[i].k;
    return ts_mip_offer(b, q, dom);
}

/* Columns whole: D = 1, P = the number of domains used. */
tsched_status ts_mip_cand_cols_whole(best *b, const prob *q, uint32_t *dom, dom_key *order, uint32_t *pstar)
{
    *pstar = pack_whole(order, q, q->R, q->C);
    if (*pstar == UINT32_MAX)
        return TSCHED_OK;
    uint32_t c = 0;
    for (uint32_t i = 0; i < *pstar && c < q->C; i++)
        for (uint32_t f = 0; f < order[i].fit && c < q->C; f++, c++)
            for (uint32_t r = 0; r < q->R; r++)
                dom[(size_t)r * q->C + c] = order[i].k;
    return ts_mip_offer(b, q, dom);
}

/* An a x g grid of rectangles (a row blocks of heights h[], g column blocks of widths
 * w[]) in distinct domains has D <= a and P <= g. The rectangles fit iff, both sorted by
 * size, the i-th largest rectangle fits the i-th largest domain. rect[] holds a * g
 * entries (size, block row, block column). */
typedef struct rect {
    uint32_t size, i, j;
} rect;

static int cmp_rect(const void *x, const void *y)
{
    const rect *a = x, *b = y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

static int grid_fits(rect *rc, const uint32_t *h, uint32_t a, const uint32_t *w, uint32_t g, const dom_key *order)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a; i++)
        for (uint32_t j = 0; j < g; j++)
            rc[n++] = (rect){h[i] * w[j], i, j};
    qsort(rc, n, sizeof *rc, cmp_rect);
    for (uint32_t m = 0; m < n; m++)
        if (rc[m].size > order[m].cap)
            return 0;
    return 1;
}

/* Lay out a grid that grid_fits() accepted (rc sorted): rectangle m in domain order[m]. */
static tsched_status lay_grid(best *b, const prob *q, uint32_t *dom, const rect *rc, const uint32_t *h, uint32_t a,
                              const uint32_t *w, uint32_t g, const dom_key *order)
{
    for (uint32_t m = 0; m < a * g; m++) {
        uint32_t r0 = 0, c0 = 0;
        for (uint32_t x = 0; x < rc[m].i; x++)
            r0 += h[x];
        for (uint32_t x = 0; x < rc[m].j; x++)
            c0 += w[x];
        for (uint32_t r = r0; r < r0 + h[rc[m].i]; r++)
            for (uint32_t c = c0; c < c0 + w[rc[m].j]; c++)
                dom[(size_t)r * q->C + c] = order[m].k;
    }
    return ts_mip_offer(b, q, dom);
}

/* Split `total` into `parts` positive sizes: the `idx`-th composition in a fixed order
 * (parts <= 3), 0 when idx is past the last one. */
static int composition(uint32_t *out, uint32_t total, uint32_t parts, uint64_t idx)
{
    if (parts == 1) {
        out[0] = total;
        return idx == 0;
    }
    if (parts == 2) {
        if (idx >= total - 1)
            return 0;
        out[0] = (uint32_t)idx + 1;
        out[1] = total - out[0];
        return 1;
    }
    for (uint32_t first = 1; first + 2 <= total; first++) {
        uint64_t n = total - first - 1;
        if (idx < n) {
            out[0] = first;
            out[1] = (uint32_t)idx + 1;
            out[2] = total - first - out[1];
            return 1;
        }
        idx -= n;
    }
    return 0;
}

static void balanced(uint32_t *out, uint32_t total, uint32_t parts)
{
    for (uint32_t i = 0; i < parts; i++)
        out[i] = total / parts + (i < total % parts);
}

/* Grids of a x g blocks in distinct domains, a * g <= K: balanced blocks for every shape,
 * and for shapes of up to 3 x 3 every split of the rows and columns when that is at most
 * GRID_SPLITS combinations. An a x g grid scores exactly alpha a + beta g, so shapes that
 * cannot beat the best answer are skipped, and the first split that fits is enough. */
#define GRID_SPLITS 20000u
tsched_status ts_mip_cand_grids(best *b, const prob *q, uint32_t *dom, dom_key *order)
{
    for (uint32_t k = 0; k < q->K; k++)
        order[k] = (dom_key){k, 0, q->cap[k]};
    qsort(order, q->K, sizeof *order, cmp_dom_key); /* fit = 0: by capacity */
    uint32_t amax = q->R < q->K ? q->R : q->K, gmax = q->C < q->K ? q->C : q->K;
    rect *rc = ts_malloc(q->K, sizeof *rc);
    uint32_t *h = ts_malloc(amax, sizeof *h), *w = ts_malloc(gmax, sizeof *w);
    tsched_status st = TSCHED_OK;
    if (!rc || !h || !w) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t a = 1; a <= amax; a++) {
        for (uint32_t g = 1; g <= gmax && (uint64_t)a * g <= q->K; g++) {
            if (a * g == 1 || ts_mip_objective(q, a, g) >= b->value - EPS)
                continue;
            uint64_t nh = a == 1 ? 1 : a == 2 ? q->R - 1 : (uint64_t)(q->R - 1) * (q->R - 2) / 2;
            uint64_t nw = g == 1 ? 1 : g == 2 ? q->C - 1 : (uint64_t)(q->C - 1) * (q->C - 2) / 2;
            int done = 0;
            if (a <= 3 && g <= 3 && nh * nw <= GRID_SPLITS) {
                for (uint64_t ih = 0; !done && composition(h, q->R, a, ih); ih++)
                    for (uint64_t iw = 0; !done && composition(w, q->C, g, iw); iw++)
                        if (grid_fits(rc, h, a, w, g, order)) {
                            if ((st = lay_grid(b, q, dom, rc, h, a, w, g, order)) != TSCHED_OK)
                                goto out;
                            done = 1;
                        }
            } else {
                balanced(h, q->R, a);
                balanced(w, q->C, g);
                if (grid_fits(rc, h, a, w, g, order) && (st = lay_grid(b, q, dom, rc, h, a, w, g, order)) != TSCHED_OK)
                    goto out;
            }
        }
    }
out:
    free(rc);
    free(h);
    free(w);
    return st;
}

/* The baselines' answers, in both unit orders: cheap, and they make sure mip is never
 * worse than any of them. */
tsched_status ts_mip_cand_baselines(best *b, const prob *q, uint32_t *dom)
{
    tsched_status (*const solvers[])(uint32_t *, const ts_pproblem *) = {ts_solve_gpu_pack, ts_solve_best_fit,
                                                                        ts_solve_topo_aware, ts_solve_random_fit};
    for (int unit = 0; unit < 2; unit++)
        for (size_t i = 0; i < sizeof solvers / sizeof solvers[0]; i++) {
            ts_pproblem p = {q->R, q->C, q->K, q->cap, q->alpha, unit ? TSCHED_UNIT_DP : TSCHED_UNIT_PP, 1, 1, 1, 1};
            tsched_status st = solvers[i](dom, &p);
            if (st == TSCHED_OK)
                st = ts_mip_offer(b, q, dom);
            if (st != TSCHED_OK)
                return st;
        }
    return TSCHED_OK;
}
