/* Arnold's MIP placement (Eq. 4-10), made exact for the Eq. 2 metric.
 *
 * The paper's model packs units (PP groups by default) into domains minimising
 * alpha * (domains used) + beta * T, T = the largest unit spread. "Domains used" equals the
 * other dimension's max spread only while no unit is split, so on its own the model is a
 * proxy. Here the problem is solved for the metric itself (doc/placement.md):
 *
 *  1. Candidate answers (upper bounds; the greedy ones in mip_cand.c), each laid out cell by cell and scored by Eq. 2:
 *     every unit whole (pp_max = 1, the fewest domains that hold the rows whole), every
 *     column whole (dp_max = 1), balanced grids of distinct domains, and the paper's model
 *     solved by GLPK with integer node counts, its split units laid out as intervals.
 *  2. Lower bound: the metric is alpha * D + beta * P for integers P, D >= 1. Pairs with
 *     P = 1 (rows whole) or D = 1 (columns whole) are decided exactly by a greedy packing,
 *     so the best answer is optimal when no pair with P, D >= 2 could beat it.
 *  3. Otherwise a second MIP over cells (x[r][c][k]) minimises alpha * D + beta * P
 *     directly, restricted to P, D >= 2 and to values strictly below the best answer;
 *     "infeasible" proves the best answer optimal.
 *
 * Unit DP is solved as unit PP on the transposed matrix with alpha and beta swapped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/glpk_guard.h"
#include "mip_internal.h"

/* The cell MIP is built only up to this many x variables; beyond, the answer of steps 1-2
 * is returned as "feasible" when step 2 cannot prove it. */
#define CELL_MIP_MAX_VARS 4000u
/* The paper's model is solved per unit; beyond this many (unit, domain) pairs its
 * symmetric formulation is too slow to be worth a share of the time limit. */
#define PAPER_MIP_MAX_PAIRS 1200u

int ts_mip_ms_left(const prob *q)
{
    double left = (q->deadline - ts_monotonic_s()) * 1000.0;
    return left < 1 ? 1 : left > 1e9 ? 1000000000 : (int)left;
}

/* Score `dom` and keep it when strictly better (ties keep the earlier candidate, so the
 * order of candidates is the tie-break and the answer is deterministic). */
tsched_status ts_mip_offer(best *b, const prob *q, const uint32_t *dom)
{
    ts_metric m;
    tsched_status st = ts_metric_eval(&m, dom, q->R, q->C, q->K, q->alpha);
    if (st != TSCHED_OK)
        return st;
    if (!b->have || m.weighted < b->value - EPS) {
        memcpy(b->dom, dom, (size_t)q->R * q->C * sizeof *dom);
        b->value = m.weighted;
        b->have = 1;
    }
    return TSCHED_OK;
}

/* A budget of branch-and-bound nodes: unlike the wall-clock limit it stops GLPK at the
 * same point on every machine, so an unproven answer is still the same bytes for the
 * same input. The time limit stays as a safety net. */
#define NODE_BUDGET 1000

static void budget_cb(glp_tree *tree, void *info)
{
    (void)info;
    int active, all, total;
    if (glp_ios_reason(tree) != GLP_ISELECT)
        return;
    glp_ios_tree_size(tree, &active, &all, &total);
    if (total > NODE_BUDGET)
        glp_ios_terminate(tree);
}

static void mip_params(glp_iocp *parm, int time_ms)
{
    ts_glpk_iocp(parm, time_ms);
    parm->cb_func = budget_cb;
    /* GLPK's default branching (Driebeck-Tomlin) evaluates a tableau row per fractional
     * variable at every node, which dominates on these models; most-fractional branching
     * with best-bound backtracking is far cheaper per node. */
    parm->br_tech = GLP_BR_MFV;
    parm->bt_tech = GLP_BT_BLB;
}

/* GLPK wants GLP_FX, not GLP_DB, when both bounds are equal. */
static void int_bounds(glp_prob *lp, int col, double lo, double hi)
{
    glp_set_col_kind(lp, col, GLP_IV);
    glp_set_col_bnds(lp, col, lo == hi ? GLP_FX : GLP_DB, lo, hi);
}

/* ---- the paper's model (Eq. 4-10) with integer counts ---------------------------------- */

/* Lay out per-row domain counts n[r][k] as intervals in domain index order, so that a
 * domain's cells line up in the same columns across rows: split rows then add as few
 * domains to each column as this simple alignment allows. */
static void interval_layout(uint32_t *dom, const prob *q, const uint32_t *n)
{
    for (uint32_t r = 0; r < q->R; r++) {
        uint32_t c = 0;
        for (uint32_t k = 0; k < q->K && c < q->C; k++)
            for (uint32_t t = 0; t < n[(size_t)r * q->K + k] && c < q->C; t++)
                dom[(size_t)r * q->C + c++] = k;
    }
}

/* What the paper's MIP reads and writes on the GLPK worker thread (glpk_guard.h). */
typedef struct paper_ctx {
    const prob *q;
    uint32_t *n;
    int *ind;
    double *val;
    int time_ms;
    int solved;
} paper_ctx;

static tsched_status paper_body(void *arg)
{
    paper_ctx *cx = arg;
    const prob *q = cx->q;
    uint32_t R = q->R, C = q->C, K = q->K, *n = cx->n;
    int *ind = cx->ind, time_ms = cx->time_ms, solved = 0;
    double *val = cx->val;
    glp_prob *lp;
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    /* columns: n[r][k] (1 .. RK), s[r][k] (RK+1 .. 2RK), y[k] (2RK+1 .. 2RK+K), T */
    int nn = (int)(R * K), ys = 2 * nn + 1, tcol = 2 * nn + (int)K + 1;
    glp_add_cols(lp, tcol);
    for (int j = 1; j <= nn; j++) {
        int_bounds(lp, j, 0, C);
        glp_set_col_kind(lp, nn + j, GLP_BV);
    }
    for (uint32_t k = 0; k < K; k++) {
        glp_set_col_kind(lp, ys + (int)k, GLP_BV);
        glp_set_obj_coef(lp, ys + (int)k, q->alpha);
    }
    int_bounds(lp, tcol, 1, C < K ? C : K);
    glp_set_obj_coef(lp, tcol, 1.0 - q->alpha);
#define NCOL(r, k) ((int)((r) * K + (k)) + 1)
#define SCOL(r, k) (nn + NCOL(r, k))
    for (uint32_t r = 0; r < R; r++) {
        /* Eq. 7: every node of the unit is placed */
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t k = 0; k < K; k++) {
            ind[++len] = NCOL(r, k);
            val[len] = 1;
        }
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_FX, C, C);
        /* Eq. 5: spread of the unit <= T */
        row = glp_add_rows(lp, 1);
        len = 0;
        for (uint32_t k = 0; k < K; k++) {
            ind[++len] = SCOL(r, k);
            val[len] = 1;
        }
        ind[++len] = tcol;
        val[len] = -1;
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        /* Eq. 8: n <= C * s */
        for (uint32_t k = 0; k < K; k++) {
            row = glp_add_rows(lp, 1);
            ind[1] = NCOL(r, k);
            val[1] = 1;
            ind[2] = SCOL(r, k);
            val[2] = -(double)C;
            glp_set_mat_row(lp, row, 2, ind, val);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        }
        /* units are interchangeable: order them by their count in domain 0 */
        if (r + 1 < R) {
            row = glp_add_rows(lp, 1);
            ind[1] = NCOL(r, 0);
            val[1] = 1;
            ind[2] = NCOL(r + 1, 0);
            val[2] = -1;
            glp_set_mat_row(lp, row, 2, ind, val);
            glp_set_row_bnds(lp, row, GLP_LO, 0, 0);
        }
    }
    /* Eq. 6: capacity of a used domain */
    for (uint32_t k = 0; k < K; k++) {
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t r = 0; r < R; r++) {
            ind[++len] = NCOL(r, k);
            val[len] = 1;
        }
        ind[++len] = ys + (int)k;
        val[len] = -(double)q->cap[k];
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    }
#undef NCOL
#undef SCOL
    glp_iocp parm;
    mip_params(&parm, time_ms);
    int ret = glp_intopt(lp, &parm);
    int ms = glp_mip_status(lp);
    if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (ms == GLP_OPT || ms == GLP_FEAS)) {
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t k = 0; k < K; k++)
                n[(size_t)r * K + k] = (uint32_t)lround(glp_mip_col_val(lp, (int)(r * K + k) + 1));
        solved = 1;
    }
    glp_delete_prob(lp);
    cx->solved = solved;
    return TSCHED_OK;
}

static tsched_status cand_paper_mip(best *b, const prob *q, uint32_t *dom, int time_ms)
{
    if ((uint64_t)q->R * q->K > PAPER_MIP_MAX_PAIRS)
        return TSCHED_OK;
    uint32_t R = q->R, K = q->K;
    uint32_t *n = ts_calloc((size_t)R * K, sizeof *n);
    int *ind = ts_malloc((size_t)R + K + 2, sizeof *ind);
    double *val = ts_malloc((size_t)R + K + 2, sizeof *val);
    if (!n || !ind || !val) {
        free(n);
        free(ind);
        free(val);
        return TSCHED_E_NOMEM;
    }
    paper_ctx cx = {q, n, ind, val, time_ms, 0};
    tsched_status st = ts_glpk_run(paper_body, &cx, "placement MIP (Eq. 4-10)");
    if (st != TSCHED_OK) {
        free(n);
        free(ind);
        free(val);
        return st;
    }
    int solved = cx.solved;
    if (solved) {
        interval_layout(dom, q, n);
        st = ts_mip_offer(b, q, dom);
    }
    free(n);
    free(ind);
    free(val);
    return st;
}

/* ---- the cell MIP: the metric itself ---------------------------------------------------- */

/* What the cell MIP reads and writes on the GLPK worker thread (glpk_guard.h). */
typedef struct cell_ctx {
    const prob *q;
    uint32_t *dom;
    int *ind;
    double *val;
    double cut;
    size_t nx;
    int found, done;
} cell_ctx;

static tsched_status cell_body(void *arg)
{
    cell_ctx *cx = arg;
    const prob *q = cx->q;
    uint32_t R = q->R, C = q->C, K = q->K, *dom = cx->dom;
    int *ind = cx->ind, found = 0, done = 0;
    double *val = cx->val, cut = cx->cut;
    size_t nx = cx->nx;
    glp_prob *lp;
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    int X = (int)nx, S = X + (int)(R * K), T = S + (int)(C * K), PC = T + 1, DC = T + 2;
    glp_add_cols(lp, DC);
    for (int j = 1; j <= T; j++)
        glp_set_col_kind(lp, j, GLP_BV);
    int_bounds(lp, PC, 2, C < K ? C : K);
    glp_set_obj_coef(lp, PC, 1.0 - q->alpha);
    int_bounds(lp, DC, 2, R < K ? R : K);
    glp_set_obj_coef(lp, DC, q->alpha);
#define XC(r, c, k) ((int)((((size_t)(r) * C + (c)) * K) + (k)) + 1)
#define SC(r, k) (X + (int)((r) * K + (k)) + 1)
#define TC(c, k) (S + (int)((c) * K + (k)) + 1)
    for (uint32_t r = 0; r < R; r++)
        for (uint32_t c = 0; c < C; c++) {
            int row = glp_add_rows(lp, 1), len = 0;
            for (uint32_t k = 0; k < K; k++) {
                ind[++len] = XC(r, c, k);
                val[len] = 1;
            }
            glp_set_mat_row(lp, row, len, ind, val);
            glp_set_row_bnds(lp, row, GLP_FX, 1, 1);
        }
    for (uint32_t k = 0; k < K; k++) {
        /* x <= s and x <= t, one by one: the aggregated form (sum_c x <= C s) lets the
         * LP relaxation spread s thinly and proves nothing */
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t c = 0; c < C; c++) {
                int row = glp_add_rows(lp, 2);
                ind[1] = XC(r, c, k);
                val[1] = 1;
                ind[2] = SC(r, k);
                val[2] = -1;
                glp_set_mat_row(lp, row, 2, ind, val);
                glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
                ind[2] = TC(c, k);
                glp_set_mat_row(lp, row + 1, 2, ind, val);
                glp_set_row_bnds(lp, row + 1, GLP_UP, 0, 0);
            }
        /* capacity */
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t c = 0; c < C; c++) {
                ind[++len] = XC(r, c, k);
                val[len] = 1;
            }
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, q->cap[k]);
    }
    for (uint32_t r = 0; r < R; r++) {
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t k = 0; k < K; k++) {
            ind[++len] = SC(r, k);
            val[len] = 1;
        }
        ind[++len] = PC;
        val[len] = -1;
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    }
    for (uint32_t c = 0; c < C; c++) {
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t k = 0; k < K; k++) {
            ind[++len] = TC(c, k);
            val[len] = 1;
        }
        ind[++len] = DC;
        val[len] = -1;
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    }
    /* only answers strictly better than the best known */
    {
        int row = glp_add_rows(lp, 1);
        ind[1] = PC;
        val[1] = 1.0 - q->alpha;
        ind[2] = DC;
        val[2] = q->alpha;
        glp_set_mat_row(lp, row, 2, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, cut);
    }
    /* Symmetry. Columns are interchangeable: order them by the domain of their cell in
     * row 0. Rows 1.. are interchangeable without disturbing row 0: order them by the
     * domain of their cell in column 0. (dom(r, c) = sum_k k x[r][c][k].) */
    for (uint32_t c = 0; c + 1 < C; c++) {
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t k = 1; k < K; k++) {
            ind[++len] = XC(0, c, k);
            val[len] = k;
            ind[++len] = XC(0, c + 1, k);
            val[len] = -(double)k;
        }
        if (len) {
            glp_set_mat_row(lp, row, len, ind, val);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        }
    }
    for (uint32_t r = 1; r + 1 < R; r++) {
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t k = 1; k < K; k++) {
            ind[++len] = XC(r, 0, k);
            val[len] = k;
            ind[++len] = XC(r + 1, 0, k);
            val[len] = -(double)k;
        }
        if (len) {
            glp_set_mat_row(lp, row, len, ind, val);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        }
    }
    /* Domains of equal capacity are interchangeable: order their use. (Relabel first,
     * then permute rows and columns: the permutations keep the use counts, so both
     * orders can hold at once.) */
    for (uint32_t k = 0; k + 1 < K; k++) {
        if (q->cap[k] != q->cap[k + 1])
            continue;
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t c = 0; c < C; c++) {
                ind[++len] = XC(r, c, k);
                val[len] = 1;
                ind[++len] = XC(r, c, k + 1);
                val[len] = -1;
            }
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_LO, 0, 0);
    }
    glp_iocp parm;
    mip_params(&parm, ts_mip_ms_left(q));
    /* GLPK's MIP presolver spends seconds on this model; solve the root LP with the
     * simplex instead and branch from it. */
    glp_smcp sparm;
    ts_glpk_smcp(&sparm, ts_mip_ms_left(q));
    parm.presolve = GLP_OFF;
    int ret = glp_simplex(lp, &sparm);
    if (ret == 0 && glp_get_status(lp) == GLP_NOFEAS) {
        ret = GLP_ENOPFS;
    } else if (ret == 0) {
        parm.tm_lim = ts_mip_ms_left(q);
        ret = glp_intopt(lp, &parm);
    }
    int ms = glp_mip_status(lp);
    if (ret == 0 && (ms == GLP_OPT || ms == GLP_NOFEAS))
        done = 1;
    if (ret == GLP_ENOPFS || ret == GLP_ENODFS)
        done = 1; /* presolver proved infeasibility */
    if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (ms == GLP_OPT || ms == GLP_FEAS)) {
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t c = 0; c < C; c++)
                for (uint32_t k = 0; k < K; k++)
                    if (glp_mip_col_val(lp, XC(r, c, k)) > 0.5)
                        dom[(size_t)r * C + c] = k;
        found = 1;
    }
#undef XC
#undef SC
#undef TC
    glp_delete_prob(lp);
    cx->found = found;
    cx->done = done;
    return TSCHED_OK;
}

/* Minimise alpha * D + beta * P over cell assignments with P, D >= 2 and objective <= cut.
 * Returns 1 in *proven when GLPK finished (optimal or infeasible). */
static tsched_status cell_mip(best *b, int *proven, const prob *q, uint32_t *dom, double cut)
{
    uint32_t R = q->R, C = q->C, K = q->K;
    *proven = 0;
    size_t nx = (size_t)R * C * K;
    /* the longest row: equal-capacity symmetry rows hold 2 * R * C entries */
    size_t maxlen = 2 * (size_t)R * C + R + C + K + 4;
    int *ind = ts_malloc(maxlen + 1, sizeof *ind);
    double *val = ts_malloc(maxlen + 1, sizeof *val);
    if (!ind || !val) {
        free(ind);
        free(val);
        return TSCHED_E_NOMEM;
    }
    cell_ctx cx = {q, dom, ind, val, cut, nx, 0, 0};
    tsched_status st = ts_glpk_run(cell_body, &cx, "placement MIP (cells)");
    int found = cx.found, done = cx.done;
    if (st != TSCHED_OK) {
        free(ind);
        free(val);
        return st;
    }
    free(ind);
    free(val);
    *proven = done;
    return found ? ts_mip_offer(b, q, dom) : TSCHED_OK;
}

/* ---- lower bound for pairs with P, D >= 2 ---------------------------------------------------- */

/* Relaxation: in an answer with row spread <= P and column spread <= D, domain k's cells
 * lie in r_k rows and q_k columns, so it covers at most min(c_k, r_k q_k) cells, while
 * sum r_k <= R P (each row meets at most P domains) and sum q_k <= C D. Dualising both
 * budgets with lambda, mu >= 0:
 *     R C <= sum_k max_{r, q} [min(c_k, r q) - lambda r - mu q] + lambda R P + mu C D.
 * For fixed q the bracket is concave in r, so r is 0, floor(c/q) or ceil(c/q) (capped at
 * R). Any (lambda, mu) whose right side is below R C proves the pair infeasible; a grid of
 * multipliers is searched. */
static double cover_bound(const prob *q, const uint32_t *caps, const uint32_t *mult, uint32_t ncap, double lambda,
                          double mu, uint32_t P, uint32_t D)
{
    double total = lambda * q->R * P + mu * (double)q->C * D;
    for (uint32_t k = 0; k < ncap; k++) {
        double c = caps[k], best = 0;
        for (uint32_t w = 1; w <= q->C; w++) {
            uint32_t lo = caps[k] / w, hi = (caps[k] + w - 1) / w;
            uint32_t rs[2] = {lo < q->R ? lo : q->R, hi < q->R ? hi : q->R};
            for (int i = 0; i < 2; i++) {
                double r = rs[i], v = (r * w < c ? r * w : c) - lambda * r - mu * w;
                if (v > best)
                    best = v;
            }
        }
        total += best * mult[k];
    }
    return total;
}

/* Minimise the bound over (lambda, mu) in [0, C] x [0, R]: a coarse grid, then grids
 * zooming in on the best point; stop as soon as the pair is refuted. */
static int pair_refuted(const prob *q, const uint32_t *caps, const uint32_t *mult, uint32_t ncap, uint32_t P,
                        uint32_t D)
{
    double need = (double)q->R * q->C - 0.5; /* coverage is integral: below RC means <= RC - 1 */
    double l0 = 0, l1 = q->C, m0 = 0, m1 = q->R, bl = 0, bm = 0, best = 1e300;
    for (int round = 0; round < 10; round++) {
        const int n = round == 0 ? 16 : 6;
        for (int i = 0; i <= n; i++)
            for (int j = 0; j <= n; j++) {
                double l = l0 + (l1 - l0) * i / n, m = m0 + (m1 - m0) * j / n;
                double v = cover_bound(q, caps, mult, ncap, l, m, P, D);
                if (v < need)
                    return 1;
                if (v < best) {
                    best = v;
                    bl = l;
                    bm = m;
                }
            }
        double hl = (l1 - l0) / n, hm = (m1 - m0) / n;
        l0 = bl - hl > 0 ? bl - hl : 0;
        l1 = bl + hl;
        m0 = bm - hm > 0 ? bm - hm : 0;
        m1 = bm + hm;
    }
    return 0;
}

static int cmp_u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x > y ? -1 : x < y;
}

/* Is there a pair (P, D) with P, D >= 2, not refuted by the cover bound, whose objective
 * beats `value`? Pairs with P = 1 or D = 1 are decided exactly by the whole-row and
 * whole-column packings, so they never need this. */
static tsched_status interior_can_beat(int *can, const prob *q, double value)
{
    *can = 0;
    if (q->R < 2 || q->C < 2 || q->K < 2 || ts_mip_objective(q, 2, 2) >= value - EPS)
        return TSCHED_OK;
    /* domains of equal capacity count once, times their number */
    uint32_t *caps = ts_malloc(q->K, sizeof *caps), *mult = ts_malloc(q->K, sizeof *mult), ncap = 0;
    if (!caps || !mult) {
        free(caps);
        free(mult);
        return TSCHED_E_NOMEM;
    }
    memcpy(caps, q->cap, q->K * sizeof *caps);
    qsort(caps, q->K, sizeof *caps, cmp_u32_desc);
    for (uint32_t k = 0; k < q->K; k++) {
        if (ncap > 0 && caps[ncap - 1] == caps[k]) {
            mult[ncap - 1]++;
        } else {
            caps[ncap] = caps[k];
            mult[ncap++] = 1;
        }
    }
    uint32_t pmax = q->C < q->K ? q->C : q->K, dmax = q->R < q->K ? q->R : q->K;
    for (uint32_t P = 2; P <= pmax && !*can; P++)
        for (uint32_t D = 2; D <= dmax && !*can; D++)
            if (ts_mip_objective(q, D, P) < value - EPS && !pair_refuted(q, caps, mult, ncap, P, D))
                *can = 1;
    free(caps);
    free(mult);
    return TSCHED_OK;
}

/* ---- driver ------------------------------------------------------------------------------ */

static tsched_status solve_rows(uint32_t *out, int *optimal, const prob *q)
{
    size_t cells = (size_t)q->R * q->C;
    best b = {0};
    uint32_t *dom = ts_malloc(cells, sizeof *dom);
    dom_key *order = ts_malloc(q->K, sizeof *order);
    b.dom = ts_malloc(cells, sizeof *b.dom);
    tsched_status st = TSCHED_OK;
    if (!dom || !order || !b.dom) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* Any fill works when capacity suffices; it makes sure there is always an answer. */
    {
        uint32_t k = 0, used = 0;
        for (size_t i = 0; i < cells; i++) {
            while (used == q->cap[k]) {
                k++;
                used = 0;
            }
            dom[i] = k;
            used++;
        }
        if ((st = ts_mip_offer(&b, q, dom)) != TSCHED_OK)
            goto out;
    }
    uint32_t dstar, pstar;
    if ((st = ts_mip_cand_rows_whole(&b, q, dom, order, &dstar)) || (st = ts_mip_cand_cols_whole(&b, q, dom, order, &pstar)) ||
        (st = ts_mip_cand_grids(&b, q, dom, order)))
        goto out;
    int can;
    if ((st = interior_can_beat(&can, q, b.value)) != TSCHED_OK)
        goto out;
    if (can && (st = ts_mip_cand_baselines(&b, q, dom)) != TSCHED_OK)
        goto out;
    if (can && (st = interior_can_beat(&can, q, b.value)) != TSCHED_OK)
        goto out;
    if (can) {
        int share = ts_mip_ms_left(q) / 4;
        if ((st = cand_paper_mip(&b, q, dom, share < 1 ? 1 : share)) != TSCHED_OK)
            goto out;
    }
    /* Axis pairs are exact: (1, D) is feasible iff D >= dstar, (P, 1) iff P >= pstar. So
     * the best answer is optimal unless an interior pair could beat it. */
    *optimal = 1;
    if ((st = interior_can_beat(&can, q, b.value)) != TSCHED_OK)
        goto out;
    if (can) {
        if ((size_t)cells * q->K > CELL_MIP_MAX_VARS) {
            *optimal = 0;
        } else {
            int proven;
            double cut = b.value - 1e-6;
            if ((st = cell_mip(&b, &proven, q, dom, cut)) != TSCHED_OK)
                goto out;
            *optimal = proven;
        }
    }
    memcpy(out, b.dom, cells * sizeof *out);
out:
    free(dom);
    free(order);
    free(b.dom);
    return st;
}

static tsched_status solve_problem(uint32_t *dom, int *optimal, prob *qq, const ts_pproblem *p);

tsched_status ts_solve_mip(uint32_t *dom, int *optimal, const ts_pproblem *p)
{
    *optimal = 0;
    uint64_t total = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        total += p->cap[k];
    if (total < (uint64_t)p->rows * p->cols)
        return ts_error(TSCHED_E_INFEASIBLE, "placement: %u nodes needed, %llu free", p->rows * p->cols,
                        (unsigned long long)total);
    /* Empty domains only add variables: solve over the others and map back. */
    uint32_t *idx = ts_malloc(p->ndom, sizeof *idx), *caps = ts_malloc(p->ndom, sizeof *caps), K = 0;
    if (!idx || !caps) {
        free(idx);
        free(caps);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t k = 0; k < p->ndom; k++)
        if (p->cap[k] > 0) {
            idx[K] = k;
            caps[K++] = p->cap[k];
        }
    prob q = {p->rows, p->cols, K, caps, p->alpha, ts_monotonic_s() + p->time_limit_ms / 1000.0};
    tsched_status st = solve_problem(dom, optimal, &q, p);
    size_t cells = (size_t)p->rows * p->cols;
    if (st == TSCHED_OK)
        for (size_t i = 0; i < cells; i++)
            dom[i] = idx[dom[i]];
    free(idx);
    free(caps);
    return st;
}

static tsched_status solve_problem(uint32_t *dom, int *optimal, prob *qq, const ts_pproblem *p)
{
    prob q = *qq;
    if (p->unit == TSCHED_UNIT_PP)
        return solve_rows(dom, optimal, &q);
    /* Unit DP: columns are the units, so solve the transpose with alpha and beta swapped. */
    q.R = p->cols;
    q.C = p->rows;
    q.alpha = 1.0 - p->alpha;
    size_t cells = (size_t)p->rows * p->cols;
    uint32_t *tr = ts_malloc(cells, sizeof *tr);
    if (!tr)
        return TSCHED_E_NOMEM;
    tsched_status st = solve_rows(tr, optimal, &q);
    if (st == TSCHED_OK)
        for (uint32_t r = 0; r < p->rows; r++)
            for (uint32_t c = 0; c < p->cols; c++)
                dom[(size_t)r * p->cols + c] = tr[(size_t)c * p->rows + r];
    free(tr);
    return st;
}
