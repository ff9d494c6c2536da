/* topo-aware (Arnold 7.1, baseline 4; Amaral et al., "Topology-aware GPU scheduling for
 * learning workloads in cloud environments", SC'17): map the job graph onto the topology by
 * dual recursive bipartitioning (Pellegrini's hierarchical static mapping), each job-graph
 * bisection done by Fiduccia-Mattheyses.
 *
 * Job graph: one vertex per cell; an edge of weight w_dp between (r, c) and (r+1, c) (a
 * ring all-reduce over a column talks neighbour to neighbour, so a chain rather than a
 * clique), and one of weight w_pp between (r, c) and (r, c+1) (stage to next stage).
 *
 * Topology tree: the domains with free nodes, in index order, split recursively into two
 * contiguous halves whose free-node totals are as equal as possible (the split point
 * minimising |left - right|; ties: the leftmost), down to single domains.
 *
 * Mapping n cells onto a tree node (n <= its free nodes):
 *   a. a single domain: all cells go there;
 *   b. some domain of the subtree has >= n free: all cells go to the one with the fewest
 *      free among those (ties: lowest index), so a job that fits a domain is never split;
 *   c. else, one half has >= n free: all cells go to that half (the one with fewer free
 *      when both fit; ties: the left one), nothing is cut at this level;
 *   d. else the cells are cut in two: the half with more free nodes (ties: the left) gets
 *      exactly its free nodes, the other one the rest. Packing rather than splitting in
 *      proportion to capacity keeps the job on the fewest domains (Arnold reports
 *      topo-aware equal to best-fit and gpu-pack on its small setting, which a
 *      proportional split would not be). The bisection starts twice, from the first cells
 *      in row-major and in column-major order going to the left half, refines each by FM
 *      with the part sizes held exact, and keeps the smaller cut (ties: the start in the
 *      job's matrix order, row-major for unit PP). Both halves are then mapped the same way.
 * Edges to cells outside the current set are ignored (they are cut at a higher level
 * whatever happens below).
 *
 * FM: gains are a * w_dp + b * w_pp with a, b in [-2, 2] (at most two edges of each kind
 * per vertex), so 25 buckets per side sorted once by gain replace the usual integer gain
 * array, and a move costs O(1). A pass moves every vertex once, always the best gain from
 * the side that must give one (sizes alternate between exact and off by one), then rolls
 * back to the best prefix with exact sizes; passes repeat while they lower the cut (at most
 * FM_MAX_PASSES). Cut weights are compared as integer edge counts times the weights, so
 * runs are deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "baseline_util.h"

#define NONE UINT32_MAX
#define NKEYS 25
#define FM_MAX_PASSES 64

typedef struct fm_ws {
    uint32_t n;
    uint32_t *nb;     /* 4 per vertex: up, down (DP edges), left, right (PP edges); NONE = absent */
    int8_t *ga, *gb;  /* external - internal DP edges, PP edges */
    uint8_t *locked;
    uint32_t *next, *prev, *moves;
    uint32_t head[2][NKEYS];
    uint8_t ord[NKEYS]; /* bucket keys, best gain first */
    double w_dp, w_pp;
} fm_ws;

static void fm_free(fm_ws *w)
{
    free(w->nb);
    free(w->ga);
    free(w->gb);
    free(w->locked);
    free(w->next);
    free(w->prev);
    free(w->moves);
    memset(w, 0, sizeof *w);
}

static double key_gain(const fm_ws *w, int key) { return (key / 5 - 2) * w->w_dp + (key % 5 - 2) * w->w_pp; }

/* The job graph on `cells`, and FM's workspace. */
static tsched_status fm_alloc(fm_ws *w, const uint32_t *cells, uint32_t n, const ts_pproblem *p, const char *who)
{
    memset(w, 0, sizeof *w);
    size_t total = (size_t)p->rows * p->cols;
    size_t nn = n ? n : 1;
    uint32_t *loc = ts_malloc(total ? total : 1, sizeof *loc);
    w->nb = ts_malloc(nn, 4 * sizeof *w->nb);
    w->ga = ts_malloc(nn, sizeof *w->ga);
    w->gb = ts_malloc(nn, sizeof *w->gb);
    w->locked = ts_malloc(nn, sizeof *w->locked);
    w->next = ts_malloc(nn, sizeof *w->next);
    w->prev = ts_malloc(nn, sizeof *w->prev);
    w->moves = ts_malloc(nn, sizeof *w->moves);
    if (!loc || !w->nb || !w->ga || !w->gb || !w->locked || !w->next || !w->prev || !w->moves) {
        free(loc);
        fm_free(w);
        return TSCHED_E_NOMEM;
    }
    w->n = n;
    w->w_dp = p->w_dp;
    w->w_pp = p->w_pp;
    for (size_t g = 0; g < total; g++)
        loc[g] = NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (cells[i] >= total || loc[cells[i]] != NONE) {
            tsched_status st = ts_error(TSCHED_E_INVALID, "%s: cell %u (index %u) is %s", who, cells[i], i,
                                        cells[i] >= total ? "outside the matrix" : "given twice");
            free(loc);
            fm_free(w);
            return st;
        }
        loc[cells[i]] = i;
    }
    uint32_t rows = p->rows, cols = p->cols;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = cells[i], r = g / cols, c = g % cols;
        w->nb[4 * (size_t)i + 0] = r > 0 ? loc[g - cols] : NONE;
        w->nb[4 * (size_t)i + 1] = r + 1 < rows ? loc[g + cols] : NONE;
        w->nb[4 * (size_t)i + 2] = c > 0 ? loc[g - 1] : NONE;
        w->nb[4 * (size_t)i + 3] = c + 1 < cols ? loc[g + 1] : NONE;
    }
    free(loc);
    /* insertion sort of the 25 keys by gain, best first (ties: smaller key) */
    for (int k = 0; k < NKEYS; k++) {
        int j = k;
        while (j > 0 && key_gain(w, w->ord[j - 1]) < key_gain(w, k)) {
            w->ord[j] = w->ord[j - 1];
            j--;
        }
        w->ord[j] = (uint8_t)k;
    }
    return TSCHED_OK;
}

/* Cut edges: DP ones in *cd, PP ones in *cp. */
static void fm_cut(const fm_ws *w, const uint8_t *part, long *cd, long *cp)
{
    *cd = *cp = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t down = w->nb[4 * (size_t)i + 1], right = w->nb[4 * (size_t)i + 3];
        if (down != NONE && part[down] != part[i])
            (*cd)++;
        if (right != NONE && part[right] != part[i])
            (*cp)++;
    }
}

static double cut_value(const fm_ws *w, long cd, long cp) { return (double)cd * w->w_dp + (double)cp * w->w_pp; }

static inline int vkey(const fm_ws *w, uint32_t v) { return (w->ga[v] + 2) * 5 + (w->gb[v] + 2); }

static void bucket_insert(fm_ws *w, const uint8_t *part, uint32_t v)
{
    uint32_t *h = &w->head[part[v]][vkey(w, v)];
    w->prev[v] = NONE;
    w->next[v] = *h;
    if (*h != NONE)
        w->prev[*h] = v;
    *h = v;
}

static void bucket_remove(fm_ws *w, const uint8_t *part, uint32_t v)
{
    if (w->prev[v] != NONE)
        w->next[w->prev[v]] = w->next[v];
    else
        w->head[part[v]][vkey(w, v)] = w->next[v];
    if (w->next[v] != NONE)
        w->prev[w->next[v]] = w->prev[v];
}

/* Position in w->ord of the best non-empty bucket of side s; NKEYS when empty. */
static int best_bucket(const fm_ws *w, int s)
{
    for (int o = 0; o < NKEYS; o++)
        if (w->head[s][w->ord[o]] != NONE)
            return o;
    return NKEYS;
}

/* One FM pass; returns 1 when it lowered the cut (kept in *cd, *cp). */
static int fm_pass(fm_ws *w, uint8_t *part, long *cd, long *cp)
{
    uint32_t n = w->n;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < NKEYS; k++)
            w->head[s][k] = NONE;
    for (uint32_t v = 0; v < n; v++) {
        int a = 0, b = 0;
        for (size_t d = 0; d < 4; d++) {
            uint32_t u = w->nb[4 * (size_t)v + d];
            if (u == NONE)
                continue;
            int delta = part[u] != part[v] ? 1 : -1;
            if (d < 2)
                a += delta;
            else
                b += delta;
        }
        w->ga[v] = (int8_t)a;
        w->gb[v] = (int8_t)b;
        w->locked[v] = 0;
    }
    for (uint32_t v = n; v-- > 0;) /* lowest index on top of each bucket */
        bucket_insert(w, part, v);

    long bcd = *cd, bcp = *cp;
    double best = cut_value(w, bcd, bcp);
    uint32_t len = 0, best_len = 0;
    int excess = 0; /* cells on side 0 minus its size */
    for (;;) {
        int s, o;
        if (excess == 0) {
            int o0 = best_bucket(w, 0), o1 = best_bucket(w, 1);
            s = o1 < o0;
            o = s ? o1 : o0;
        } else {
            s = excess > 0 ? 0 : 1;
            o = best_bucket(w, s);
        }
        if (o == NKEYS)
            break;
        uint32_t v = w->head[s][w->ord[o]];
        bucket_remove(w, part, v);
        w->locked[v] = 1;
        *cd -= w->ga[v];
        *cp -= w->gb[v];
        for (size_t d = 0; d < 4; d++) {
            uint32_t u = w->nb[4 * (size_t)v + d];
            if (u == NONE || w->locked[u])
                continue;
            bucket_remove(w, part, u);
            /* u on v's old side: the edge turns external for u; else internal */
            int delta = part[u] == s ? 2 : -2;
            if (d < 2)
                w->ga[u] = (int8_t)(w->ga[u] + delta);
            else
                w->gb[u] = (int8_t)(w->gb[u] + delta);
            bucket_insert(w, part, u);
        }
        part[v] = (uint8_t)(1 - s);
        excess += s == 0 ? -1 : 1;
        w->moves[len++] = v;
        if (excess == 0) {
            double val = cut_value(w, *cd, *cp);
            if (val < best) {
                best = val;
                best_len = len;
                bcd = *cd;
                bcp = *cp;
            }
        }
    }
    while (len > best_len)
        part[w->moves[--len]] ^= 1;
    *cd = bcd;
    *cp = bcp;
    return best_len > 0;
}

static void fm_run(fm_ws *w, uint8_t *part, long *cd, long *cp)
{
    fm_cut(w, part, cd, cp);
    for (int pass = 0; pass < FM_MAX_PASSES && fm_pass(w, part, cd, cp); pass++)
        ;
}

static tsched_status check_parts(const uint8_t *part, uint32_t n, const char *who)
{
    if (n > 0 && !part)
        return ts_error(TSCHED_E_INVALID, "%s: NULL part", who);
    for (uint32_t i = 0; i < n; i++)
        if (part[i] > 1)
            return ts_error(TSCHED_E_INVALID, "%s: part[%u] = %u is not 0 or 1", who, i, part[i]);
    return TSCHED_OK;
}

tsched_status ts_fm_refine(uint8_t *part, const uint32_t *cells, uint32_t n, const ts_pproblem *p,
                           double *cut_before, double *cut_after)
{
    const char *who = "ts_fm_refine";
    if (!p || (n > 0 && !cells))
        return ts_error(TSCHED_E_INVALID, "%s: NULL problem or cells", who);
    tsched_status st = check_parts(part, n, who);
    if (st != TSCHED_OK)
        return st;
    fm_ws w;
    if ((st = fm_alloc(&w, cells, n, p, who)) != TSCHED_OK)
        return st;
    long cd, cp;
    fm_cut(&w, part, &cd, &cp);
    if (cut_before)
        *cut_before = cut_value(&w, cd, cp);
    fm_run(&w, part, &cd, &cp);
    if (cut_after)
        *cut_after = cut_value(&w, cd, cp);
    fm_free(&w);
    return TSCHED_OK;
}

tsched_status ts_cut_weight(double *cut, const uint8_t *part, const uint32_t *cells, uint32_t n,
                            const ts_pproblem *p)
{
    const char *who = "ts_cut_weight";
    if (!cut || !p || (n > 0 && !cells))
        return ts_error(TSCHED_E_INVALID, "%s: NULL argument", who);
    tsched_status st = check_parts(part, n, who);
    if (st != TSCHED_OK)
        return st;
    fm_ws w;
    if ((st = fm_alloc(&w, cells, n, p, who)) != TSCHED_OK)
        return st;
    long cd, cp;
    fm_cut(&w, part, &cd, &cp);
    *cut = cut_value(&w, cd, cp);
    fm_free(&w);
    return TSCHED_OK;
}

/* ---- dual recursive bipartitioning ------------------------------------------------- */

typedef struct ta_ctx {
    const ts_pproblem *p;
    uint32_t *dom;
    uint32_t *dl;  /* domains with free nodes, ascending */
    uint64_t *pre; /* pre[i] = free nodes of dl[0..i) */
    uint32_t *tmp; /* n scratch */
    uint8_t *pa, *pb;
} ta_ctx;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void assign_all(ta_ctx *x, const uint32_t *cells, uint32_t n, uint32_t k)
{
    for (uint32_t i = 0; i < n; i++)
        x->dom[cells[i]] = k;
}

/* Split `cells` (n of them, ascending) so that the first s0 (after the call) form the
 * left part: two FM runs, the better kept. */
static tsched_status bisect(ta_ctx *x, uint32_t *cells, uint32_t n, uint32_t s0)
{
    const ts_pproblem *p = x->p;
    fm_ws w;
    tsched_status st = fm_alloc(&w, cells, n, p, "topo-aware");
    if (st != TSCHED_OK)
        return st;
    /* start A: row-major prefix (cells are ascending); start B: column-major prefix */
    for (uint32_t i = 0; i < n; i++) {
        x->pa[i] = i >= s0;
        x->tmp[i] = (cells[i] % p->cols) * p->rows + cells[i] / p->cols;
    }
    qsort(x->tmp, n, sizeof *x->tmp, cmp_u32);
    uint32_t last = x->tmp[s0 - 1]; /* s0 >= 1 */
    for (uint32_t i = 0; i < n; i++)
        x->pb[i] = (cells[i] % p->cols) * p->rows + cells[i] / p->cols > last;
    long ad, ap, bd, bp;
    fm_run(&w, x->pa, &ad, &ap);
    fm_run(&w, x->pb, &bd, &bp);
    double va = cut_value(&w, ad, ap), vb = cut_value(&w, bd, bp);
    fm_free(&w);
    const uint8_t *part = p->unit == TSCHED_UNIT_DP ? (va < vb ? x->pa : x->pb) : (vb < va ? x->pb : x->pa);
    uint32_t l = 0, r = s0;
    for (uint32_t i = 0; i < n; i++)
        x->tmp[part[i] ? r++ : l++] = cells[i];
    if (l != s0 || r != n) /* FM keeps the sizes */
        return ts_error(TSCHED_E_INTERNAL, "topo-aware: bisection gave %u + %u cells, wanted %u + %u", l, r - s0,
                        s0, n - s0);
    memcpy(cells, x->tmp, (size_t)n * sizeof *cells);
    return TSCHED_OK;
}

/* Map n cells (ascending) onto the domains dl[lo..hi), whose free nodes are >= n. */
static tsched_status map_node(ta_ctx *x, uint32_t lo, uint32_t hi, uint32_t *cells, uint32_t n)
{
    const uint32_t *cap = x->p->cap;
    if (n == 0)
        return TSCHED_OK;
    if (hi - lo == 1) {
        assign_all(x, cells, n, x->dl[lo]);
        return TSCHED_OK;
    }
    uint32_t fit = NONE, mid = lo + 1;
    uint64_t total = x->pre[hi] - x->pre[lo], best_gap = UINT64_MAX;
    for (uint32_t i = lo; i < hi; i++) {
        if (cap[x->dl[i]] >= n && (fit == NONE || cap[x->dl[i]] < cap[x->dl[fit]]))
            fit = i;
        if (i > lo) {
            uint64_t left = x->pre[i] - x->pre[lo], right = total - left;
            uint64_t gap = left > right ? left - right : right - left;
            if (gap < best_gap) {
                best_gap = gap;
                mid = i;
            }
        }
    }
    if (fit != NONE) {
        assign_all(x, cells, n, x->dl[fit]);
        return TSCHED_OK;
    }
    uint64_t c1 = x->pre[mid] - x->pre[lo], c2 = x->pre[hi] - x->pre[mid];
    if (c1 >= n && (c2 < n || c1 <= c2))
        return map_node(x, lo, mid, cells, n);
    if (c2 >= n)
        return map_node(x, mid, hi, cells, n);
    /* n > c1, c2 and n <= c1 + c2: both parts are non-empty */
    uint32_t s0 = c1 >= c2 ? (uint32_t)c1 : (uint32_t)(n - c2);
    tsched_status st = bisect(x, cells, n, s0);
    if (st == TSCHED_OK)
        st = map_node(x, lo, mid, cells, s0);
    if (st == TSCHED_OK)
        st = map_node(x, mid, hi, cells + s0, n - s0);
    return st;
}

tsched_status ts_solve_topo_aware(uint32_t *dom, const ts_pproblem *p)
{
    uint32_t n;
    tsched_status st = ts_baseline_check(&n, dom, p, "topo-aware");
    if (st != TSCHED_OK)
        return st;
    if (!isfinite(p->w_dp) || !isfinite(p->w_pp) || p->w_dp < 0 || p->w_pp < 0)
        return ts_error(TSCHED_E_RANGE, "topo-aware: edge weights w_dp %g and w_pp %g must be finite and >= 0",
                        p->w_dp, p->w_pp);
    if (n == 0)
        return TSCHED_OK;
    ta_ctx x = {.p = p, .dom = dom};
    uint32_t *cells = ts_malloc(n, sizeof *cells);
    x.tmp = ts_malloc(n, sizeof *x.tmp);
    x.pa = ts_malloc(n, sizeof *x.pa);
    x.pb = ts_malloc(n, sizeof *x.pb);
    x.dl = ts_malloc(p->ndom, sizeof *x.dl);
    x.pre = ts_malloc((size_t)p->ndom + 1, sizeof *x.pre);
    if (!cells || !x.tmp || !x.pa || !x.pb || !x.dl || !x.pre) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    uint32_t nd = 0;
    x.pre[0] = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        if (p->cap[k] > 0) {
            x.dl[nd] = k;
            x.pre[nd + 1] = x.pre[nd] + p->cap[k];
            nd++;
        }
    for (uint32_t i = 0; i < n; i++)
        cells[i] = i;
    st = map_node(&x, 0, nd, cells, n);
out:
    free(cells);
    free(x.tmp);
    free(x.pa);
    free(x.pb);
    free(x.dl);
    free(x.pre);
    return st;
}
