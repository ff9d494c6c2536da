/* Stage 2 (doc/vclos.md §2-§3): shapes in ascending l; per shape the eligibility filter to a
 * fixpoint, a greedy that settles the easy cases, else the class-aggregated ILP solved with
 * GLPK; the optimum expanded to concrete leaves and spines and committed by vc_fill_stage2.
 *
 * Per shape (l, q), s = q * E, over the state before the allocation:
 *   C[n][m]  free members of pair (n, m) (every member of the pair when links are ignored),
 *   RSN[n]   idle nodes of leaf n, RPN[m] = sum_n C[n][m].
 * Filter: a leaf is eligible iff RSN >= q and its free members towards eligible spines
 * number >= s; a spine is eligible iff it can carry a virtual spine, i.e. its bound
 * Ymax[m] = the l-th largest C[n][m] over eligible leaves is >= 1 (y_m <= C[n][m] on each of
 * the l chosen leaves, so Ymax is a valid bound: the model stays exact).
 * Greedy: the l eligible leaves of least RSN (ties lowest index) and, on them, the spines of
 * least RPN (ties lowest index) filled up to min over the chosen leaves of C[n][m]; when its
 * cost equals the lower bound (least-RSN leaves + least-RPN spines up to Ymax, each part
 * minimised alone) it is an optimum and GLPK is not called. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/glpk_guard.h"
#include "vclos_internal.h"

/* Tests only (tests/test_vclos.c): 1 sends every shape the filter keeps to the class ILP,
 * skipping the greedy shortcut, so that the ILP itself meets the brute force. */
int vc_stage2_force_ilp = 0;

/* Scratch of one vc_stage2 call; everything is allocated before any GLPK solve. */
typedef struct s2 {
    const tsched_vclos *v;
    uint32_t L, S;
    uint32_t *C;       /* L * S */
    uint32_t *rsn;     /* L */
    uint64_t *rpn;     /* S */
    uint8_t *leaf_ok;  /* L */
    uint8_t *spine_ok; /* S */
    uint32_t *ymax;    /* S */
    uint32_t *el, nel; /* eligible leaves, ascending */
    uint32_t *es, nes; /* eligible spines, ascending */
    uint32_t *tmp;     /* max(L, S) */
    uint32_t *ord;     /* max(L, S) */
    /* classes */
    uint32_t *lcls;    /* nel: class of eligible leaf i */
    uint32_t *lrep;    /* leaf classes: representative (first) eligible position */
    uint32_t *lsize;
    uint32_t nlc;
    uint32_t *scls;    /* nes */
    uint32_t *srep;
    uint32_t *ssize;
    uint32_t nsc;
    /* chosen */
    uint32_t *leaves;  /* l */
    uint32_t *ycount;  /* S: virtual spines per spine */
    uint32_t *sp;      /* s */
    /* ILP */
    int *ia, *ja;
    double *ar;
    size_t nz, nz_cap;
    int *ucol;         /* nlc: column of U_c (0 = none) */
    double *sol;       /* columns + 1 */
} s2;

static void s2_free(s2 *w)
{
    free(w->C);
    free(w->rsn);
    free(w->rpn);
    free(w->leaf_ok);
    free(w->spine_ok);
    free(w->ymax);
    free(w->el);
    free(w->es);
    free(w->tmp);
    free(w->ord);
    free(w->lcls);
    free(w->lrep);
    free(w->lsize);
    free(w->scls);
    free(w->srep);
    free(w->ssize);
    free(w->leaves);
    free(w->ycount);
    free(w->sp);
    free(w->ia);
    free(w->ja);
    free(w->ar);
    free(w->ucol);
    free(w->sol);
}

static tsched_status s2_init(s2 *w, const tsched_vclos *v, int ignore_links)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->L = v->L;
    w->S = v->S;
    size_t L = v->L, S = v->S, mx = L > S ? L : S;
    size_t smax = (size_t)v->maxp * v->E; /* s never exceeds it */
    if (smax < 1)
        smax = 1;
    if (!(w->C = ts_malloc(L * S, sizeof *w->C)) || !(w->rsn = ts_malloc(L, sizeof *w->rsn)) ||
        !(w->rpn = ts_calloc(S, sizeof *w->rpn)) || !(w->leaf_ok = ts_malloc(L, 1)) ||
        !(w->spine_ok = ts_malloc(S, 1)) || !(w->ymax = ts_malloc(S, sizeof *w->ymax)) ||
        !(w->el = ts_malloc(L, sizeof *w->el)) || !(w->es = ts_malloc(S, sizeof *w->es)) ||
        !(w->tmp = ts_malloc(mx, sizeof *w->tmp)) || !(w->ord = ts_malloc(mx, sizeof *w->ord)) ||
        !(w->lcls = ts_malloc(L, sizeof *w->lcls)) || !(w->lrep = ts_malloc(L, sizeof *w->lrep)) ||
        !(w->lsize = ts_malloc(L, sizeof *w->lsize)) || !(w->scls = ts_malloc(S, sizeof *w->scls)) ||
        !(w->srep = ts_malloc(S, sizeof *w->srep)) || !(w->ssize = ts_malloc(S, sizeof *w->ssize)) ||
        !(w->leaves = ts_malloc(L, sizeof *w->leaves)) || !(w->ycount = ts_malloc(S, sizeof *w->ycount)) ||
        !(w->sp = ts_malloc(smax, sizeof *w->sp)) || !(w->ucol = ts_malloc(L, sizeof *w->ucol)) ||
        !(w->sol = ts_malloc(2 * L + S + 1, sizeof *w->sol)))
        return TSCHED_E_NOMEM;
    for (uint32_t n = 0; n < v->L; n++) {
        w->rsn[n] = vc_rsn(v, n);
        for (uint32_t m = 0; m < v->S; m++) {
            uint32_t c = ignore_links ? v->pair_k[(size_t)n * v->S + m] : vc_pair_free(v, n, m);
            w->C[(size_t)n * v->S + m] = c;
            w->rpn[m] += c;
        }
    }
    return TSCHED_OK;
}

#define CNM(w, n, m) ((w)->C[(size_t)(n) * (w)->S + (m)])

/* The k-th largest (k >= 1) of vals[0..n): a partial selection by counting (values are small). */
static uint32_t kth_largest(uint32_t *vals, uint32_t n, uint32_t k)
{
    if (k > n)
        return 0;
    /* insertion sort, descending: n is at most the leaf count */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = vals[i], j = i;
        while (j > 0 && vals[j - 1] < x) {
            vals[j] = vals[j - 1];
            j--;
        }
        vals[j] = x;
    }
    return vals[k - 1];
}

/* Eligibility filter to a fixpoint (§3 step 1). Returns 1 when the shape may be feasible. */
static int filter(s2 *w, uint32_t l, uint32_t q, uint32_t s)
{
    uint32_t L = w->L, S = w->S;
    for (uint32_t n = 0; n < L; n++)
        w->leaf_ok[n] = w->rsn[n] >= q;
    memset(w->spine_ok, 1, S);
    for (;;) {
        int changed = 0;
        uint32_t nleaf = 0;
        for (uint32_t n = 0; n < L; n++) {
            if (!w->leaf_ok[n])
                continue;
            uint64_t cap = 0;
            for (uint32_t m = 0; m < S; m++)
                if (w->spine_ok[m])
                    cap += CNM(w, n, m);
            if (cap < s) {
                w->leaf_ok[n] = 0;
                changed = 1;
            } else
                nleaf++;
        }
        if (nleaf < l)
            return 0;
        uint64_t scap = 0;
        for (uint32_t m = 0; m < S; m++) {
            if (!w->spine_ok[m])
                continue;
            uint32_t k = 0;
            for (uint32_t n = 0; n < L; n++)
                if (w->leaf_ok[n])
                    w->tmp[k++] = CNM(w, n, m);
            uint32_t y = kth_largest(w->tmp, k, l);
            if (y > s)
                y = s;
            w->ymax[m] = y;
            if (!y) {
                w->spine_ok[m] = 0;
                changed = 1;
            }
            scap += y;
        }
        if (scap < s)
            return 0;
        if (!changed)
            break;
    }
    w->nel = w->nes = 0;
    for (uint32_t n = 0; n < L; n++)
        if (w->leaf_ok[n])
            w->el[w->nel++] = n;
    for (uint32_t m = 0; m < S; m++)
        if (w->spine_ok[m])
            w->es[w->nes++] = m;
    return 1;
}

/* Stable order of idx[0..n) by key ascending (ties keep the index order). */
static void sort_by_key(uint32_t *idx, uint32_t n, const uint64_t *key)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = idx[i], j = i;
        while (j > 0 && key[idx[j - 1]] > key[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

/* Fill s virtual spines over the eligible spines by RPN ascending (ties lowest index), each
 * up to cap(m) (caps in tmp[]); counts into ycount. Returns the cost, or -1 if short. */
static int64_t fill_spines(s2 *w, uint32_t s, const uint32_t *cap)
{
    uint32_t n = w->nes;
    memcpy(w->ord, w->es, n * sizeof *w->ord);
    sort_by_key(w->ord, n, w->rpn);
    memset(w->ycount, 0, w->S * sizeof *w->ycount);
    uint32_t left = s;
    int64_t cost = 0;
    for (uint32_t i = 0; i < n && left; i++) {
        uint32_t m = w->ord[i], y = cap[m] < left ? cap[m] : left;
        w->ycount[m] = y;
        left -= y;
        cost += (int64_t)w->rpn[m] * y;
    }
    return left ? -1 : cost;
}

/* The greedy of the file comment. Returns 1 with leaves[] and ycount[] set when it is an
 * optimum (or, `any` = 1, merely feasible), else 0. */
static int greedy(s2 *w, uint32_t l, uint32_t s, int any)
{
    uint32_t n = w->nel;
    uint64_t *key = ts_malloc(w->L, sizeof *key); /* small; failure = no shortcut */
    if (!key)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        key[w->el[i]] = w->rsn[w->el[i]];
    uint32_t *ord = ts_malloc(n ? n : 1, sizeof *ord);
    if (!ord) {
        free(key);
        return 0;
    }
    memcpy(ord, w->el, n * sizeof *ord);
    sort_by_key(ord, n, key);
    free(key);
    for (uint32_t i = 0; i < l; i++)
        w->leaves[i] = ord[i];
    free(ord);
    /* lower bound of the spine part: caps = ymax */
    int64_t lb_spine = any ? 0 : fill_spines(w, s, w->ymax);
    /* caps on the chosen leaves */
    uint32_t *cap = w->tmp; /* S entries needed: tmp has max(L, S) */
    for (uint32_t m = 0; m < w->S; m++) {
        uint32_t c = w->spine_ok[m] ? w->ymax[m] : 0;
        for (uint32_t i = 0; i < l && c; i++)
            if (CNM(w, w->leaves[i], m) < c)
                c = CNM(w, w->leaves[i], m);
        cap[m] = c;
    }
    int64_t cost = fill_spines(w, s, cap);
    if (cost < 0 || (!any && cost != lb_spine))
        return 0;
    /* leaves ascending */
    for (uint32_t i = 1; i < l; i++) {
        uint32_t x = w->leaves[i], j = i;
        while (j > 0 && w->leaves[j - 1] > x) {
            w->leaves[j] = w->leaves[j - 1];
            j--;
        }
        w->leaves[j] = x;
    }
    return 1;
}

/* Leaf classes (RSN, C over eligible spines) and spine classes (RPN, C over eligible leaves),
 * in order of their lowest member. */
static void classes(s2 *w)
{
    w->nlc = 0;
    for (uint32_t i = 0; i < w->nel; i++) {
        uint32_t n = w->el[i], c;
        for (c = 0; c < w->nlc; c++) {
            uint32_t r = w->el[w->lrep[c]];
            if (w->rsn[r] != w->rsn[n])
                continue;
            uint32_t k;
            for (k = 0; k < w->nes; k++)
                if (CNM(w, r, w->es[k]) != CNM(w, n, w->es[k]))
                    break;
            if (k == w->nes)
                break;
        }
        if (c == w->nlc) {
            w->lrep[c] = i;
            w->lsize[c] = 0;
            w->nlc++;
        }
        w->lcls[i] = c;
        w->lsize[c]++;
    }
    w->nsc = 0;
    for (uint32_t i = 0; i < w->nes; i++) {
        uint32_t m = w->es[i], d;
        for (d = 0; d < w->nsc; d++) {
            uint32_t r = w->es[w->srep[d]];
            if (w->rpn[r] != w->rpn[m])
                continue;
            uint32_t k;
            for (k = 0; k < w->nel; k++)
                if (CNM(w, w->el[k], r) != CNM(w, w->el[k], m))
                    break;
            if (k == w->nel)
                break;
        }
        if (d == w->nsc) {
            w->srep[d] = i;
            w->ssize[d] = 0;
            w->nsc++;
        }
        w->scls[i] = d;
        w->ssize[d]++;
    }
}

/* ---- the class ILP ---- */

typedef struct ilp_ctx {
    s2 *w;
    uint32_t l, s;
    int zero_obj;     /* feasibility only */
    int tm_lim;       /* ms, 0 none */
    int ncols;
    /* out */
    int result;       /* 0 infeasible, 1 optimal, 2 feasible (limit), 3 limit without solution */
    double obj;
} ilp_ctx;

static tsched_status push(s2 *w, int row, int col, double val)
{
    if (w->nz + 1 >= w->nz_cap) {
        size_t cap = w->nz_cap ? 2 * w->nz_cap : 256;
        int *ia = ts_realloc(w->ia, cap, sizeof *ia);
        if (!ia)
            return TSCHED_E_NOMEM;
        w->ia = ia;
        int *ja = ts_realloc(w->ja, cap, sizeof *ja);
        if (!ja)
            return TSCHED_E_NOMEM;
        w->ja = ja;
        double *ar = ts_realloc(w->ar, cap, sizeof *ar);
        if (!ar)
            return TSCHED_E_NOMEM;
        w->ar = ar;
        w->nz_cap = cap;
    }
    w->nz++;
    w->ia[w->nz] = row;
    w->ja[w->nz] = col;
    w->ar[w->nz] = val;
    return TSCHED_OK;
}

/* Columns: X_c = 1..nlc, Y_d = nlc+1..nlc+nsc, then U_c where needed (ucol). Rows: 1 sum X
 * = l, 2 sum Y = s, two rows per U_c column (U_c <= X_c <= a_c U_c), then one row per pair of
 * classes with f < Ymax (Y_d + (Ymax - f) b_d U_c <= Ymax b_d). solve_classes() fills the
 * matrix, ilp_body() the bounds, both walking the classes in the same order. */

/* f_cd of leaf class c and spine class d. */
static uint32_t class_f(const s2 *w, uint32_t c, uint32_t d)
{
    return CNM(w, w->el[w->lrep[c]], w->es[w->srep[d]]);
}

/* The spine cut of class d is worth a row when some leaf class has f < Ymax towards it. */
static int spine_cut(const s2 *w, uint32_t d)
{
    uint32_t ym = w->ymax[w->es[w->srep[d]]];
    for (uint32_t c = 0; c < w->nlc; c++)
        if (class_f(w, c, d) < ym)
            return 1;
    return 0;
}

/* The leaf cut of class c: when it has no member at all towards some spine class. */
static int leaf_cut(const s2 *w, uint32_t c)
{
    if (!w->ucol[c])
        return 0;
    for (uint32_t d = 0; d < w->nsc; d++)
        if (!class_f(w, c, d))
            return 1;
    return 0;
}

static tsched_status ilp_body(void *arg)
{
    ilp_ctx *cx = arg;
    s2 *w = cx->w;
    const tsched_vclos *v = w->v;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, cx->ncols);
    for (uint32_t c = 0; c < w->nlc; c++) {
        int col = (int)c + 1;
        uint32_t hi = w->lsize[c] < cx->l ? w->lsize[c] : cx->l;
        glp_set_col_kind(lp, col, GLP_IV);
        glp_set_col_bnds(lp, col, GLP_DB, 0, hi);
        if (!cx->zero_obj)
            glp_set_obj_coef(lp, col, (double)v->T * w->rsn[w->el[w->lrep[c]]]);
        if (w->ucol[c] > (int)w->nlc + (int)w->nsc) {
            glp_set_col_kind(lp, w->ucol[c], GLP_BV);
        }
    }
    for (uint32_t d = 0; d < w->nsc; d++) {
        int col = (int)(w->nlc + d) + 1;
        uint64_t hi = (uint64_t)w->ssize[d] * w->ymax[w->es[w->srep[d]]];
        if (hi > cx->s)
            hi = cx->s;
        glp_set_col_kind(lp, col, GLP_IV);
        glp_set_col_bnds(lp, col, GLP_DB, 0, (double)hi);
        if (!cx->zero_obj)
            glp_set_obj_coef(lp, col, (double)w->rpn[w->es[w->srep[d]]]);
    }
    /* rows, in the order push() numbered them */
    int nrows = 0;
    for (size_t i = 1; i <= w->nz; i++)
        if (w->ia[i] > nrows)
            nrows = w->ia[i];
    glp_add_rows(lp, nrows);
    glp_set_row_bnds(lp, 1, GLP_FX, cx->l, cx->l);
    glp_set_row_bnds(lp, 2, GLP_FX, cx->s, cx->s);
    int row = 2;
    for (uint32_t c = 0; c < w->nlc; c++) {
        int u = w->ucol[c];
        if (u <= (int)(w->nlc + w->nsc))
            continue;
        glp_set_row_bnds(lp, ++row, GLP_LO, 0, 0);  /* X_c - U_c >= 0 */
        glp_set_row_bnds(lp, ++row, GLP_UP, 0, 0);  /* X_c - a_c U_c <= 0 */
    }
    for (uint32_t c = 0; c < w->nlc; c++)
        for (uint32_t d = 0; d < w->nsc; d++) {
            uint32_t f = class_f(w, c, d), ym = w->ymax[w->es[w->srep[d]]];
            if (f >= ym)
                continue;
            glp_set_row_bnds(lp, ++row, GLP_UP, 0, (double)ym * w->ssize[d]);
        }
    for (uint32_t d = 0; d < w->nsc; d++)
        if (spine_cut(w, d))
            glp_set_row_bnds(lp, ++row, GLP_UP, 0, 0);
    for (uint32_t c = 0; c < w->nlc; c++)
        if (leaf_cut(w, c))
            glp_set_row_bnds(lp, ++row, GLP_UP, 0, 0);
    glp_load_matrix(lp, (int)w->nz, w->ia, w->ja, w->ar);
    glp_iocp parm;
    ts_glpk_iocp(&parm, cx->tm_lim);
    int ret = glp_intopt(lp, &parm);
    int ms = glp_mip_status(lp);
    if (ret == 0 && ms == GLP_OPT) {
        cx->result = 1;
    } else if ((ret == 0 && ms == GLP_NOFEAS) || ret == GLP_ENOPFS || ret == GLP_ENODFS) {
        cx->result = 0;
    } else if ((ret == GLP_ETMLIM || ret == 0) && ms == GLP_FEAS) {
        cx->result = 2;
    } else if (ret == GLP_ETMLIM) {
        cx->result = 3;
    } else {
        glp_delete_prob(lp);
        return ts_error(TSCHED_E_SOLVER, "vclos stage-2 ILP: glp_intopt returned %d (status %d)", ret, ms);
    }
    if (cx->result == 1 || cx->result == 2) {
        cx->obj = glp_mip_obj_val(lp);
        for (int col = 1; col <= cx->ncols; col++)
            w->sol[col] = glp_mip_col_val(lp, col);
    }
    glp_delete_prob(lp);
    return TSCHED_OK;
}

/* Build the matrix, solve, and on a solution expand it into leaves[] and ycount[].
 * *result as ilp_ctx.result. */
static tsched_status solve_classes(s2 *w, uint32_t l, uint32_t s, int zero_obj, int tm_lim, int *result,
                                   int64_t *obj)
{
    classes(w);
    w->nz = 0;
    int ncols = (int)(w->nlc + w->nsc);
    int ybase = (int)w->nlc; /* Y_d = ybase + d + 1 */
    tsched_status st;
    /* U_c: a column of its own when the class has a pair row and more than one leaf; a
     * one-leaf class uses X_c itself (binary). 0 = no pair row. */
    for (uint32_t c = 0; c < w->nlc; c++) {
        int need = 0;
        for (uint32_t d = 0; d < w->nsc && !need; d++)
            need = class_f(w, c, d) < w->ymax[w->es[w->srep[d]]];
        w->ucol[c] = !need ? 0 : w->lsize[c] == 1 ? (int)c + 1 : ++ncols;
    }
    int row = 1;
    for (uint32_t c = 0; c < w->nlc; c++)
        if ((st = push(w, row, (int)c + 1, 1)))
            return st;
    row = 2;
    for (uint32_t d = 0; d < w->nsc; d++)
        if ((st = push(w, row, ybase + (int)d + 1, 1)))
            return st;
    for (uint32_t c = 0; c < w->nlc; c++) {
        int u = w->ucol[c];
        if (u <= (int)(w->nlc + w->nsc))
            continue;
        row++;
        if ((st = push(w, row, (int)c + 1, 1)) || (st = push(w, row, u, -1)))
            return st;
        row++;
        if ((st = push(w, row, (int)c + 1, 1)) || (st = push(w, row, u, -(double)w->lsize[c])))
            return st;
    }
    for (uint32_t c = 0; c < w->nlc; c++)
        for (uint32_t d = 0; d < w->nsc; d++) {
            uint32_t f = class_f(w, c, d), ym = w->ymax[w->es[w->srep[d]]];
            if (f >= ym)
                continue;
            row++;
            if ((st = push(w, row, ybase + (int)d + 1, 1)) ||
                (st = push(w, row, w->ucol[c], (double)(ym - f) * w->ssize[d])))
                return st;
        }
    /* cuts (valid for every integer solution, they tighten the LP bound):
     * a spine of class d carrying y needs l chosen leaves with f >= y each:
     *   l Y_d <= b_d sum_c min(f_cd, Ymax_d) X_c;
     * a chosen leaf of class c sends all s virtual spines to spines it has a member to:
     *   s U_c <= sum_{d: f_cd > 0} Y_d. */
    for (uint32_t d = 0; d < w->nsc; d++) {
        if (!spine_cut(w, d))
            continue;
        row++;
        uint32_t ym = w->ymax[w->es[w->srep[d]]];
        if ((st = push(w, row, ybase + (int)d + 1, (double)l)))
            return st;
        for (uint32_t c = 0; c < w->nlc; c++) {
            uint32_t f = class_f(w, c, d);
            if (f && (st = push(w, row, (int)c + 1, -(double)w->ssize[d] * (f < ym ? f : ym))))
                return st;
        }
    }
    for (uint32_t c = 0; c < w->nlc; c++) {
        if (!leaf_cut(w, c))
            continue;
        row++;
        if ((st = push(w, row, w->ucol[c], (double)s)))
            return st;
        for (uint32_t d = 0; d < w->nsc; d++)
            if (class_f(w, c, d) && (st = push(w, row, ybase + (int)d + 1, -1)))
                return st;
    }
    if (ncols + 1 > (int)(2 * w->L + w->S + 1))
        return ts_error(TSCHED_E_INTERNAL, "vclos stage-2 ILP: %d columns", ncols);
    ilp_ctx cx = {w, l, s, zero_obj, tm_lim, ncols, 0, 0};
    if ((st = ts_glpk_run(ilp_body, &cx, "vclos stage-2 ILP")))
        return st;
    *result = cx.result;
    *obj = llround(cx.obj);
    if (cx.result != 1 && cx.result != 2)
        return TSCHED_OK;
    /* expand: the lowest-index leaves of each class; each spine class's spines ascending up
     * to min(Ymax, f of every chosen class) each */
    uint32_t nl = 0;
    uint8_t *chosen_c = (uint8_t *)w->ord; /* nlc <= L bytes fit in ord (max(L, S) words) */
    memset(chosen_c, 0, w->nlc);
    for (uint32_t c = 0; c < w->nlc; c++) {
        uint32_t x = (uint32_t)llround(w->sol[c + 1]);
        if (x)
            chosen_c[c] = 1;
        for (uint32_t i = 0; i < w->nel && x; i++)
            if (w->lcls[i] == c) {
                if (nl == l)
                    return ts_error(TSCHED_E_INTERNAL, "vclos stage-2 ILP: more than %u leaves", l);
                w->leaves[nl++] = w->el[i];
                x--;
            }
    }
    if (nl != l)
        return ts_error(TSCHED_E_INTERNAL, "vclos stage-2 ILP: %u leaves, not %u", nl, l);
    for (uint32_t i = 1; i < l; i++) {
        uint32_t x = w->leaves[i], j = i;
        while (j > 0 && w->leaves[j - 1] > x) {
            w->leaves[j] = w->leaves[j - 1];
            j--;
        }
        w->leaves[j] = x;
    }
    memset(w->ycount, 0, w->S * sizeof *w->ycount);
    uint32_t total = 0;
    for (uint32_t d = 0; d < w->nsc; d++) {
        uint32_t y = (uint32_t)llround(w->sol[ybase + d + 1]);
        uint32_t cap = w->ymax[w->es[w->srep[d]]];
        for (uint32_t c = 0; c < w->nlc; c++)
            if (chosen_c[c] && class_f(w, c, d) < cap)
                cap = class_f(w, c, d);
        for (uint32_t i = 0; i < w->nes && y; i++)
            if (w->scls[i] == d) {
                uint32_t t = y < cap ? y : cap;
                w->ycount[w->es[i]] = t;
                y -= t;
                total += t;
            }
        if (y)
            return ts_error(TSCHED_E_INTERNAL, "vclos stage-2 ILP: spine class %u cannot carry its spines", d);
    }
    if (total != s)
        return ts_error(TSCHED_E_INTERNAL, "vclos stage-2 ILP: %u virtual spines, not %u", total, s);
    return TSCHED_OK;
}

tsched_status vc_stage2(const tsched_vclos *v, vc_job *j, uint32_t Q, int ignore_links, double deadline,
                        int *found, int *timed_out)
{
    *found = *timed_out = 0;
    uint32_t *ls = ts_malloc((size_t)v->L + 1, sizeof *ls);
    if (!ls)
        return TSCHED_E_NOMEM;
    uint32_t nshapes = vc_shapes(v, Q, vc_max_leaf_uplinks(v), ls, v->L + 1);
    if (!nshapes) {
        free(ls);
        return TSCHED_OK;
    }
    /* a probe (the wait reason in vclos mode) needs feasibility only, and no commit */
    int probe = ignore_links && v->mode != TSCHED_VCLOS_MODE_FREE;
    s2 w;
    tsched_status st = s2_init(&w, v, ignore_links);
    for (uint32_t k = 0; k < nshapes && !st; k++) {
        uint32_t l = ls[k], q = Q / l, s = q * v->E;
        if (!filter(&w, l, q, s))
            continue;
        int result = 0, optimal = 1, solved = 0;
        int64_t obj = 0;
        if (!vc_stage2_force_ilp && greedy(&w, l, s, probe)) {
            result = 1;
        } else {
            int tm = 0;
            if (deadline > 0) {
                double left = (deadline - ts_monotonic_s()) * 1e3;
                if (left <= 0) {
                    *timed_out = 1;
                    break;
                }
                tm = left < 1 ? 1 : (int)ceil(left);
            }
            if ((st = solve_classes(&w, l, s, probe, tm, &result, &obj)))
                break;
            solved = 1;
            if (result == 3) {
                *timed_out = 1;
                break;
            }
            if (result == 0)
                continue;
            optimal = result == 1;
        }
        /* sp[]: physical spines ascending, repeats consecutive; check against C */
        uint32_t nv = 0;
        int64_t recomputed = 0;
        for (uint32_t m = 0; m < v->S; m++) {
            for (uint32_t y = 0; y < w.ycount[m]; y++)
                w.sp[nv++] = m;
            recomputed += (int64_t)w.rpn[m] * w.ycount[m];
            for (uint32_t i = 0; i < l && w.ycount[m]; i++)
                if (CNM(&w, w.leaves[i], m) < w.ycount[m])
                    st = ts_error(TSCHED_E_INTERNAL, "vclos stage 2: leaf %u has %u free members to spine %u, not %u",
                                  w.leaves[i], CNM(&w, w.leaves[i], m), m, w.ycount[m]);
        }
        for (uint32_t i = 0; i < l; i++)
            recomputed += (int64_t)v->T * w.rsn[w.leaves[i]];
        if (st)
            break;
        if (nv != s) {
            st = ts_error(TSCHED_E_INTERNAL, "vclos stage 2: %u virtual spines, not %u", nv, s);
            break;
        }
        if (!probe && solved && obj != recomputed) {
            st = ts_error(TSCHED_E_INTERNAL, "vclos stage 2: objective %lld, recomputed %lld", (long long)obj,
                          (long long)recomputed);
            break;
        }
        *found = 1;
        if (probe)
            break;
        if ((st = vc_fill_stage2(v, j, l, q, w.leaves, w.sp)))
            break;
        j->objective = recomputed;
        j->optimal = optimal;
        break;
    }
    s2_free(&w);
    free(ls);
    if (st)
        *found = 0;
    return st;
}
