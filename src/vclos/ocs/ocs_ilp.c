/* The stage-3 ILP of OCS-vClos (doc/vclos.md §4), also used for stage 2b with one spine.
 *
 * Model, for one shape (l, s = q*E). x_n binary (leaf n gives q idle nodes and s ports),
 * y_m in {0..Ymax_m} (virtual spines on spine m), z_nmk binary (leaf n's port on OCS k
 * carries a circuit to spine m) for every eligible leaf n with an idle port on k and
 * eligible spine m with an idle port on k:
 *
 *   min  W * (sum_m RPN(m) y_m + sum_n T RSN(n) x_n) + sum z_nmk [port (n,k) not on m now]
 *   s.t. sum x = l, sum y = s
 *        sum_m z_nmk <= x_n                       (n, k)  a leaf port carries one circuit
 *        sum_n z_nmk <= idle(m, k)                (m, k)  spine ports on OCS k
 *        sum_k z_nmk <= y_m                       (n, m)
 *        sum_k z_nmk >= y_m - Ymax_m (1 - x_n)    (n, m)  a chosen leaf reaches every v
 *        sum_k z_nmk <= Ymax_m x_n                (n, m)
 *
 * W = l*s + 1 exceeds any rewiring count (at most l*s circuits), so rewiring only breaks
 * ties. Exact pruning before GLPK, iterated to a fixpoint (it removes only variables that
 * are 0 in every feasible solution, so the optimum is unchanged):
 *  - a leaf is eligible iff it is up, RSN >= q, and it has at least s idle ports on OCSes
 *    where some eligible spine has an idle port (a chosen leaf needs s circuits, one per
 *    port, each to an eligible spine with an idle port on that OCS);
 *  - Ymax_m = min(s, floor(cap_m / l)), cap_m = sum_k min(idle(m,k), eligible leaves with an
 *    idle port on k): a spine with y virtual spines ends l*y circuits of chosen leaves, at
 *    most idle(m,k) on OCS k and at most one per leaf port; a spine is eligible iff it is up
 *    and Ymax_m >= 1 (2b: only its spine, with Ymax = s required);
 *  - z_nmk exists only for eligible n, m with (n,k) idle and idle(m,k) > 0, and the (m,k) row
 *    only when idle(m,k) is below the number of z of that (m,k) (else it is implied).
 * If fewer than l leaves remain or sum Ymax < s the shape is infeasible without GLPK. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/clock.h"
#include "../../common/glpk_guard.h"
#include "ocs_ilp.h"

int vc_ocs_method_default = VC_OCS_COMBI;

tsched_status vc_ocs_ilp_init(const tsched_vclos *v, vc_ocs_ilp *p)
{
    uint32_t L = v->L, S = v->S, U = v->ocs->U;
    size_t lsu = (size_t)L * S * U;
    memset(p, 0, sizeof *p);
    p->method = vc_ocs_method_default;
    if (!(p->lv = ts_malloc(L, sizeof *p->lv)) || !(p->sv = ts_malloc(S, sizeof *p->sv)) ||
        !(p->ymax = ts_malloc(S, sizeof *p->ymax)) || !(p->rsn = ts_malloc(L, sizeof *p->rsn)) ||
        !(p->rpn = ts_malloc(S, sizeof *p->rpn)) || !(p->idle = ts_malloc((size_t)S * U, sizeof *p->idle)) ||
        !(p->lok = ts_malloc(L, 1)) || !(p->sok = ts_malloc(S, 1)) || !(p->zcol = ts_calloc(lsu, sizeof *p->zcol)) ||
        !(p->wcol = ts_calloc((size_t)S * U, sizeof *p->wcol)) ||
        !(p->wsol = ts_calloc((size_t)S * U, sizeof *p->wsol)) ||
        !(p->xsol = ts_malloc(L, 1)) || !(p->ysol = ts_malloc(S, sizeof *p->ysol)) || !(p->zsol = ts_malloc(lsu, 1)) ||
        !(p->cutx = ts_malloc((size_t)VC_OCS_CUTS_MAX * L, 1)) ||
        !(p->cuty = ts_malloc((size_t)VC_OCS_CUTS_MAX * S, sizeof *p->cuty)))
        return TSCHED_E_NOMEM;
    /* state before the allocation: the same for every shape and spine */
    for (uint32_t n = 0; n < L; n++)
        p->rsn[n] = vc_rsn(v, n);
    vc_ocs_spine_idle(v, p->idle);
    for (uint32_t m = 0; m < S; m++) {
        p->rpn[m] = 0;
        for (uint32_t k = 0; k < U; k++)
            p->rpn[m] += p->idle[m * U + k];
    }
    return TSCHED_OK;
}

void vc_ocs_ilp_fini(vc_ocs_ilp *p)
{
    free(p->lv);
    free(p->sv);
    free(p->ymax);
    free(p->rsn);
    free(p->rpn);
    free(p->idle);
    free(p->lok);
    free(p->sok);
    free(p->zcol);
    free(p->wcol);
    free(p->wsol);
    free(p->ia);
    free(p->ja);
    free(p->ar);
    free(p->xsol);
    free(p->ysol);
    free(p->zsol);
    free(p->cutx);
    free(p->cuty);
    free(p->bcol);
    memset(p, 0, sizeof *p);
}

/* The eligibility filter; returns 0 when the shape is infeasible. */
static int filter(const tsched_vclos *v, vc_ocs_ilp *p)
{
    uint32_t L = v->L, S = v->S, U = v->ocs->U;
    for (uint32_t n = 0; n < L; n++)
        p->lok[n] = !v->sw_down[v->leaf_sw[n]] && p->rsn[n] >= p->q;
    for (uint32_t m = 0; m < S; m++) {
        p->sok[m] = !v->sw_down[v->spine_sw[m]] && (p->spine == VC_NONE || p->spine == m);
        p->ymax[m] = 0;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t m = 0; m < S; m++) {
            if (!p->sok[m])
                continue;
            uint64_t cap = 0;
            for (uint32_t k = 0; k < U; k++) {
                uint32_t idle = p->idle[m * U + k], nk = 0;
                for (uint32_t n = 0; n < L && nk < idle; n++)
                    nk += (uint32_t)(p->lok[n] && vc_ocs_port_usable(v, n, k));
                cap += nk;
            }
            uint64_t y = cap / p->l;
            p->ymax[m] = (uint32_t)(y < p->s ? y : p->s);
            if (p->ymax[m] == 0 || (p->spine != VC_NONE && p->ymax[m] < p->s)) {
                p->sok[m] = 0;
                changed = 1;
            }
        }
        for (uint32_t n = 0; n < L; n++) {
            if (!p->lok[n])
                continue;
            uint32_t reach = 0;
            for (uint32_t k = 0; k < U; k++) {
                if (!vc_ocs_port_usable(v, n, k))
                    continue;
                for (uint32_t m = 0; m < S; m++)
                    if (p->sok[m] && p->idle[m * U + k]) {
                        reach++;
                        break;
                    }
            }
            if (reach < p->s) {
                p->lok[n] = 0;
                changed = 1;
            }
        }
    }
    p->nl = p->ns = 0;
    uint64_t ysum = 0;
    for (uint32_t n = 0; n < L; n++)
        if (p->lok[n])
            p->lv[p->nl++] = n;
    for (uint32_t m = 0; m < S; m++)
        if (p->sok[m]) {
            p->ymax[p->ns] = p->ymax[m]; /* m >= ns: compacting in place is safe */
            p->sv[p->ns++] = m;
            ysum += p->ymax[m];
        }
    return p->nl >= p->l && ysum >= p->s;
}

typedef struct body_ctx {
    const tsched_vclos *v;
    vc_ocs_ilp *p;
} body_ctx;

static tsched_status body(void *arg)
{
    body_ctx *c = arg;
    const tsched_vclos *v = c->v;
    vc_ocs_ilp *p = c->p;
    uint32_t U = v->ocs->U, nl = p->nl, ns = p->ns;
    double W = (double)p->l * p->s + 1;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    int ncol = (int)(nl + ns + p->nz);
    glp_add_cols(lp, ncol);
    for (uint32_t i = 0; i < nl; i++) {
        glp_set_col_kind(lp, (int)i + 1, GLP_BV);
        glp_set_obj_coef(lp, (int)i + 1, W * v->T * p->rsn[p->lv[i]]);
    }
    for (uint32_t jm = 0; jm < ns; jm++) {
        int col = (int)(nl + jm) + 1;
        glp_set_col_kind(lp, col, GLP_IV);
        if (p->yfixed)
            glp_set_col_bnds(lp, col, GLP_FX, p->ysol[jm], p->ysol[jm]);
        else if (p->spine != VC_NONE)
            glp_set_col_bnds(lp, col, GLP_FX, p->s, p->s);
        else
            glp_set_col_bnds(lp, col, GLP_DB, 0, p->ymax[jm]);
        glp_set_obj_coef(lp, col, W * p->rpn[p->sv[jm]]);
    }
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t n = p->lv[i];
        for (uint32_t jm = 0; jm < ns; jm++)
            for (uint32_t k = 0; k < U; k++) {
                int col = p->zcol[((size_t)n * ns + jm) * U + k];
                if (col) {
                    glp_set_col_kind(lp, col, GLP_BV);
                    glp_set_obj_coef(lp, col, vc_ocs_on_spine(v, n, k, p->sv[jm]) ? 0 : 1);
                }
            }
    }
    size_t nnz = 0;
    int row;
#define PUT(r, c, a) (p->ia[++nnz] = (r), p->ja[nnz] = (c), p->ar[nnz] = (a))
    row = glp_add_rows(lp, 2);
    glp_set_row_bnds(lp, row, GLP_FX, p->l, p->l);
    glp_set_row_bnds(lp, row + 1, GLP_FX, p->s, p->s);
    for (uint32_t i = 0; i < nl; i++)
        PUT(row, (int)i + 1, 1);
    for (uint32_t jm = 0; jm < ns; jm++)
        PUT(row + 1, (int)(nl + jm) + 1, 1);
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t n = p->lv[i];
        /* (n, k): one circuit per leaf port, only on a chosen leaf */
        for (uint32_t k = 0; k < U; k++) {
            int any = 0;
            for (uint32_t jm = 0; jm < ns && !any; jm++)
                any = p->zcol[((size_t)n * ns + jm) * U + k] != 0;
            if (!any)
                continue;
            row = glp_add_rows(lp, 1);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            PUT(row, (int)i + 1, -1);
            for (uint32_t jm = 0; jm < ns; jm++) {
                int col = p->zcol[((size_t)n * ns + jm) * U + k];
                if (col)
                    PUT(row, col, 1);
            }
        }
        /* (n, m): a chosen leaf has exactly y_m circuits to m, an unchosen one none */
        for (uint32_t jm = 0; jm < ns; jm++) {
            double Y = p->ymax[jm];
            int ycol = (int)(nl + jm) + 1;
            row = glp_add_rows(lp, 3);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            glp_set_row_bnds(lp, row + 1, GLP_LO, -Y, 0);
            glp_set_row_bnds(lp, row + 2, GLP_UP, 0, 0);
            PUT(row, ycol, -1);
            PUT(row + 1, ycol, -1);
            PUT(row + 1, (int)i + 1, -Y);
            PUT(row + 2, (int)i + 1, -Y);
            for (uint32_t k = 0; k < U; k++) {
                int col = p->zcol[((size_t)n * ns + jm) * U + k];
                if (col) {
                    PUT(row, col, 1);
                    PUT(row + 1, col, 1);
                    PUT(row + 2, col, 1);
                }
            }
        }
    }
    /* (m, k): idle spine ports, where they bind */
    for (uint32_t jm = 0; jm < ns; jm++)
        for (uint32_t k = 0; k < U; k++) {
            uint32_t idle = p->idle[p->sv[jm] * U + k], cnt = 0;
            for (uint32_t i = 0; i < nl; i++)
                cnt += (uint32_t)(p->zcol[((size_t)p->lv[i] * ns + jm) * U + k] != 0);
            if (cnt <= idle)
                continue;
            row = glp_add_rows(lp, 1);
            glp_set_row_bnds(lp, row, GLP_UP, 0, idle);
            for (uint32_t i = 0; i < nl; i++) {
                int col = p->zcol[((size_t)p->lv[i] * ns + jm) * U + k];
                if (col)
                    PUT(row, col, 1);
            }
        }
#undef PUT
    glp_load_matrix(lp, (int)nnz, p->ia, p->ja, p->ar);
    glp_iocp parm;
    ts_glpk_iocp(&parm, p->time_ms);
    int ret = glp_intopt(lp, &parm), ms = glp_mip_status(lp);
    tsched_status st = TSCHED_OK;
    p->status = VC_ILP_NONE;
    if ((ret == 0 || ret == GLP_ETMLIM) && (ms == GLP_OPT || ms == GLP_FEAS)) {
        p->status = VC_ILP_FOUND;
        p->optimal = ret == 0 && ms == GLP_OPT;
        for (uint32_t i = 0; i < nl; i++)
            p->xsol[i] = glp_mip_col_val(lp, (int)i + 1) > 0.5;
        for (uint32_t jm = 0; jm < ns; jm++)
            p->ysol[jm] = (uint32_t)lround(glp_mip_col_val(lp, (int)(nl + jm) + 1));
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t n = p->lv[i];
            for (uint32_t jm = 0; jm < ns; jm++)
                for (uint32_t k = 0; k < U; k++) {
                    size_t at = ((size_t)n * ns + jm) * U + k;
                    p->zsol[at] = p->zcol[at] && glp_mip_col_val(lp, p->zcol[at]) > 0.5;
                }
        }
    } else if (ret == GLP_ETMLIM) {
        p->status = VC_ILP_TIMEOUT;
    } else if (ret != 0 && ret != GLP_ENOPFS && ret != GLP_ENODFS) {
        st = ts_error(TSCHED_E_SOLVER, "ocs-vclos ILP (l = %u, s = %u): glp_intopt returned %d", p->l, p->s, ret);
    }
    glp_delete_prob(lp);
    return st;
}

/* The master (see the file comment): x, y and w_mk = circuits to spine m on OCS k. */
static tsched_status master_body(void *arg)
{
    body_ctx *c = arg;
    const tsched_vclos *v = c->v;
    vc_ocs_ilp *p = c->p;
    uint32_t U = v->ocs->U, nl = p->nl, ns = p->ns;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    int ncol = (int)(nl + ns), nw = 0;
    for (uint32_t jm = 0; jm < ns; jm++)
        for (uint32_t k = 0; k < U; k++)
            if (p->wcol[jm * U + k])
                nw++;
    int nb = 0;
    for (size_t i = 0; i < (size_t)ns * (p->s + 2) && p->ncut; i++)
        nb += p->bcol[i] != 0;
    glp_add_cols(lp, ncol + nw + nb);
    for (uint32_t i = 0; i < nl; i++) {
        glp_set_col_kind(lp, (int)i + 1, GLP_BV);
        glp_set_obj_coef(lp, (int)i + 1, (double)v->T * p->rsn[p->lv[i]]);
    }
    for (uint32_t jm = 0; jm < ns; jm++) {
        int col = (int)(nl + jm) + 1;
        glp_set_col_kind(lp, col, GLP_IV);
        if (p->spine != VC_NONE)
            glp_set_col_bnds(lp, col, GLP_FX, p->s, p->s);
        else
            glp_set_col_bnds(lp, col, GLP_DB, 0, p->ymax[jm]);
        glp_set_obj_coef(lp, col, p->rpn[p->sv[jm]]);
    }
    for (uint32_t jm = 0; jm < ns; jm++)
        for (uint32_t k = 0; k < U; k++) {
            int col = p->wcol[jm * U + k];
            if (!col)
                continue;
            glp_set_col_kind(lp, col, GLP_IV);
            glp_set_col_bnds(lp, col, GLP_DB, 0, p->idle[p->sv[jm] * U + k]);
        }
    size_t nnz = 0;
    int row;
#define PUT(r, c, a) (p->ia[++nnz] = (r), p->ja[nnz] = (c), p->ar[nnz] = (a))
    /* no-good cuts: b(jm, t) = 1 only if y_jm >= t; cut c: sum_{n in X_c} x_n - sum_jm
     * b(jm, y_c(jm) + 1) <= l - 1, i.e. another leaf set or some y_jm above y_c(jm) (sum y =
     * s, so any y != y_c has one) */
    if (p->ncut) {
        uint32_t T1 = p->s + 2;
        for (uint32_t jm = 0; jm < ns; jm++)
            for (uint32_t t = 1; t < T1; t++) {
                int col = p->bcol[jm * T1 + t];
                if (!col)
                    continue;
                glp_set_col_kind(lp, col, GLP_BV);
                row = glp_add_rows(lp, 1);
                glp_set_row_bnds(lp, row, GLP_LO, 0, 0);
                PUT(row, (int)(nl + jm) + 1, 1);
                PUT(row, col, -(double)t);
            }
        for (uint32_t c = 0; c < p->ncut; c++) {
            row = glp_add_rows(lp, 1);
            glp_set_row_bnds(lp, row, GLP_UP, 0, (double)p->l - 1);
            for (uint32_t i = 0; i < nl; i++)
                if (p->cutx[(size_t)c * v->L + p->lv[i]])
                    PUT(row, (int)i + 1, 1);
            for (uint32_t jm = 0; jm < ns; jm++) {
                uint32_t t = p->cuty[(size_t)c * v->S + p->sv[jm]] + 1;
                if (t <= p->ymax[jm])
                    PUT(row, p->bcol[jm * T1 + t], -1);
            }
        }
    }
    row = glp_add_rows(lp, 2);
    glp_set_row_bnds(lp, row, GLP_FX, p->l, p->l);
    glp_set_row_bnds(lp, row + 1, GLP_FX, p->s, p->s);
    for (uint32_t i = 0; i < nl; i++)
        PUT(row, (int)i + 1, 1);
    for (uint32_t jm = 0; jm < ns; jm++)
        PUT(row + 1, (int)(nl + jm) + 1, 1);
    /* per spine: l * y_m circuits */
    for (uint32_t jm = 0; jm < ns; jm++) {
        row = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, row, GLP_FX, 0, 0);
        PUT(row, (int)(nl + jm) + 1, -(double)p->l);
        for (uint32_t k = 0; k < U; k++)
            if (p->wcol[jm * U + k])
                PUT(row, p->wcol[jm * U + k], 1);
    }
    /* per OCS: circuits <= chosen leaves with an idle port there; per (m, k) likewise */
    for (uint32_t k = 0; k < U; k++) {
        int any = 0;
        for (uint32_t jm = 0; jm < ns && !any; jm++)
            any = p->wcol[jm * U + k] != 0;
        if (!any)
            continue;
        row = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        for (uint32_t i = 0; i < nl; i++)
            if (vc_ocs_port_usable(v, p->lv[i], k))
                PUT(row, (int)i + 1, -1);
        for (uint32_t jm = 0; jm < ns; jm++)
            if (p->wcol[jm * U + k])
                PUT(row, p->wcol[jm * U + k], 1);
        for (uint32_t jm = 0; jm < ns; jm++) {
            if (!p->wcol[jm * U + k] || p->idle[p->sv[jm] * U + k] <= 1)
                continue; /* w <= 1 is implied by the OCS row when some leaf is chosen */
            row = glp_add_rows(lp, 1);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            for (uint32_t i = 0; i < nl; i++)
                if (vc_ocs_port_usable(v, p->lv[i], k))
                    PUT(row, (int)i + 1, -1);
            PUT(row, p->wcol[jm * U + k], 1);
        }
    }
#undef PUT
    glp_load_matrix(lp, (int)nnz, p->ia, p->ja, p->ar);
    glp_iocp parm;
    ts_glpk_iocp(&parm, p->time_ms);
    int ret = glp_intopt(lp, &parm), ms = glp_mip_status(lp);
    tsched_status st = TSCHED_OK;
    p->status = VC_ILP_NONE;
    if ((ret == 0 || ret == GLP_ETMLIM) && (ms == GLP_OPT || ms == GLP_FEAS)) {
        p->status = VC_ILP_FOUND;
        p->optimal = ret == 0 && ms == GLP_OPT;
        for (uint32_t i = 0; i < nl; i++)
            p->xsol[i] = glp_mip_col_val(lp, (int)i + 1) > 0.5;
        for (uint32_t jm = 0; jm < ns; jm++) {
            p->ysol[jm] = (uint32_t)lround(glp_mip_col_val(lp, (int)(nl + jm) + 1));
            for (uint32_t k = 0; k < U; k++) {
                int col = p->wcol[jm * U + k];
                p->wsol[jm * U + k] = col ? (uint32_t)lround(glp_mip_col_val(lp, col)) : 0;
            }
        }
        p->have_w = 1;
    } else if (ret == GLP_ETMLIM) {
        p->status = VC_ILP_TIMEOUT;
    } else if (ret != 0 && ret != GLP_ENOPFS && ret != GLP_ENODFS) {
        st = ts_error(TSCHED_E_SOLVER, "ocs-vclos master (l = %u, s = %u): glp_intopt returned %d", p->l, p->s, ret);
    }
    glp_delete_prob(lp);
    return st;
}

/* Milliseconds left before the deadline (0 = none), or -1 when it has passed. */
static int time_left(double deadline)
{
    if (deadline <= 0)
        return 0;
    double left = (deadline - ts_monotonic_s()) * 1e3;
    if (left < 1)
        return -1;
    return left > 2e9 ? 2000000000 : (int)left;
}

/* Make room for `need` matrix entries. */
static tsched_status reserve_nnz(vc_ocs_ilp *p, size_t need)
{
    if (need <= p->nnz_cap)
        return TSCHED_OK;
    free(p->ia);
    free(p->ja);
    free(p->ar);
    p->ia = p->ja = NULL;
    p->ar = NULL;
    p->nnz_cap = 0;
    if (!(p->ia = ts_malloc(need, sizeof *p->ia)) || !(p->ja = ts_malloc(need, sizeof *p->ja)) ||
        !(p->ar = ts_malloc(need, sizeof *p->ar)))
        return TSCHED_E_NOMEM;
    p->nnz_cap = need;
    return TSCHED_OK;
}

/* The full z model over the current eligible leaves and spines. */
static tsched_status full_solve(const tsched_vclos *v, vc_ocs_ilp *p, double deadline, int *status)
{
    uint32_t U = v->ocs->U;
    for (uint32_t n = 0; n < v->L; n++)
        memset(p->zcol + (size_t)n * p->ns * U, 0, (size_t)p->ns * U * sizeof *p->zcol);
    int col = (int)(p->nl + p->ns);
    for (uint32_t i = 0; i < p->nl; i++)
        for (uint32_t jm = 0; jm < p->ns; jm++)
            for (uint32_t k = 0; k < U; k++)
                if (vc_ocs_port_usable(v, p->lv[i], k) && p->idle[p->sv[jm] * U + k])
                    p->zcol[((size_t)p->lv[i] * p->ns + jm) * U + k] = ++col;
    p->nz = (uint32_t)col - p->nl - p->ns;
    tsched_status st =
        reserve_nnz(p, 5 * (size_t)p->nz + (size_t)p->nl * U + 4 * (size_t)p->nl * p->ns + p->nl + p->ns + 2);
    if (st)
        return st;
    if ((p->time_ms = time_left(deadline)) < 0) {
        *status = VC_ILP_TIMEOUT;
        return TSCHED_OK;
    }
    body_ctx c = {v, p};
    if ((st = ts_glpk_run(body, &c, "ocs-vclos ILP")))
        return st;
    *status = p->status;
    return TSCHED_OK;
}

/* The master over the current eligible leaves and spines. */
static tsched_status master_solve(const tsched_vclos *v, vc_ocs_ilp *p, double deadline, int *status)
{
    uint32_t U = v->ocs->U;
    int col = (int)(p->nl + p->ns);
    for (uint32_t jm = 0; jm < p->ns; jm++)
        for (uint32_t k = 0; k < U; k++) {
            int any = 0;
            for (uint32_t i = 0; i < p->nl && !any; i++)
                any = vc_ocs_port_usable(v, p->lv[i], k);
            p->wcol[jm * U + k] = any && p->idle[p->sv[jm] * U + k] ? ++col : 0;
        }
    size_t nw = (size_t)col - p->nl - p->ns, nb = 0, T1 = p->s + 2;
    if (p->ncut) {
        if (p->bcol_cap < (size_t)p->ns * T1) {
            free(p->bcol);
            p->bcol_cap = 0;
            if (!(p->bcol = ts_malloc((size_t)p->ns * T1, sizeof *p->bcol)))
                return TSCHED_E_NOMEM;
            p->bcol_cap = (size_t)p->ns * T1;
        }
        memset(p->bcol, 0, (size_t)p->ns * T1 * sizeof *p->bcol);
        for (uint32_t c = 0; c < p->ncut; c++)
            for (uint32_t jm = 0; jm < p->ns; jm++) {
                uint32_t t = p->cuty[(size_t)c * v->S + p->sv[jm]] + 1;
                if (t <= p->ymax[jm] && !p->bcol[jm * T1 + t]) {
                    p->bcol[jm * T1 + t] = ++col;
                    nb++;
                }
            }
    }
    tsched_status st = reserve_nnz(p, p->nl + 2 * (size_t)p->ns + 2 * nw + (size_t)U * (p->nl + 1) * (p->ns + 1) + 2 +
                                          2 * nb + (size_t)p->ncut * (p->nl + p->ns));
    if (st)
        return st;
    if ((p->time_ms = time_left(deadline)) < 0) {
        *status = VC_ILP_TIMEOUT;
        return TSCHED_OK;
    }
    body_ctx c = {v, p};
    if ((st = ts_glpk_run(master_body, &c, "ocs-vclos master")))
        return st;
    *status = p->status;
    return TSCHED_OK;
}

/* Binaries of the circuit ILP for the master's answer (lv, sv compacted to it). */
static size_t z_columns(const tsched_vclos *v, const vc_ocs_ilp *p)
{
    uint32_t U = v->ocs->U;
    size_t c = 0;
    for (uint32_t i = 0; i < p->nl; i++)
        for (uint32_t k = 0; k < U; k++)
            if (vc_ocs_port_usable(v, p->lv[i], k))
                for (uint32_t jm = 0; jm < p->ns; jm++)
                    c += p->idle[p->sv[jm] * U + k] != 0;
    return c;
}

/* Rewired circuits of the answer in p (chosen leaves of lv, spines of sv). */
static uint32_t count_rewired(const tsched_vclos *v, const vc_ocs_ilp *p)
{
    uint32_t U = v->ocs->U, c = 0;
    for (uint32_t i = 0; i < p->nl; i++) {
        if (!p->xsol[i])
            continue;
        uint32_t n = p->lv[i];
        for (uint32_t jm = 0; jm < p->ns; jm++)
            for (uint32_t k = 0; k < U; k++)
                c += (uint32_t)(p->zsol[((size_t)n * p->ns + jm) * U + k] && !vc_ocs_on_spine(v, n, k, p->sv[jm]));
    }
    return c;
}

/* Main cost and rewiring count of the answer. */
static void finish(const tsched_vclos *v, vc_ocs_ilp *p)
{
    p->objective = 0;
    for (uint32_t i = 0; i < p->nl; i++)
        if (p->xsol[i])
            p->objective += (int64_t)v->T * p->rsn[p->lv[i]];
    for (uint32_t jm = 0; jm < p->ns; jm++)
        p->objective += (int64_t)p->rpn[p->sv[jm]] * p->ysol[jm];
    p->rewired = count_rewired(v, p);
}

/* Exactness of the main cost (every method). The master (x, y, w_mk = circuits to m on OCS
 * k) is a relaxation of the §4 model: any feasible (x, y, z) gives w_mk = sum_n z_nmk with
 * sum_k w_mk = l y_m, w_mk <= idle(m,k), sum_m w_mk <= chosen leaves with a usable port on k,
 * and the same main cost. So the master's optimum is a lower bound of the model's, reached
 * when its (x, y) has circuits: the answer is then an optimum of §4's main cost. When it has
 * none (proven by the circuit ILP for that (x, y) being infeasible, not by a failure of
 * ocs_assign.c), a no-good cut removes (x, y) from the master: sum_{n in X} x_n - sum_m
 * b(m, y_m + 1) <= l - 1 with binaries b(m, t) <= y_m / t (another leaf set, or some spine
 * with more virtual spines; sum y = s, so every y' != y has one). Cuts remove only choices
 * without circuits, so the master stays a relaxation; it is re-solved, and the first choice
 * with circuits is optimal. After VC_OCS_CUTS_MAX cuts the full model decides (its own
 * optimum), within the deadline, or VC_OCS_NOLIMIT_CAP_MS after the first master when no
 * deadline is set (every solve after the first master has that cap). Rewiring, the tie-break:
 *  - VC_OCS_TWO_ILP: fewest rewired circuits for the master's (x, y) (a GLPK solve);
 *  - VC_OCS_COMBI: the same minimum whenever ocs_assign.c's step 1 succeeds (rewired_min =
 *    1: the count equals its lower bound). When only its step 2 or 3 finds circuits: the
 *    circuit ILP's proven minimum if that ILP has at most VC_OCS_ZILP_MAX binaries and
 *    proves it before the deadline, else the count of step 2 or 3 (rewired_min = 0). When
 *    ocs_assign.c finds none: the circuit ILP as VC_OCS_TWO_ILP;
 *  - VC_OCS_FULL (and every fallback to it): W * main + rewired over all (x, y, z), i.e. the
 *    fewest rewired among all main-cost optima.
 * None of them minimises rewiring over every main-cost optimum except VC_OCS_FULL. */
tsched_status vc_ocs_ilp_solve(const tsched_vclos *v, vc_ocs_ilp *p, uint32_t l, uint32_t q, uint32_t spine,
                               double deadline, int *status)
{
    *status = VC_ILP_NONE;
    p->l = l;
    p->q = q;
    p->s = q * v->E;
    p->spine = spine;
    p->yfixed = 0;
    p->have_w = 0;
    p->rewired_min = 0;
    p->ncut = 0;
    p->fell_back = 0;
    if (!filter(v, p))
        return TSCHED_OK;
    tsched_status st;
    if (p->method == VC_OCS_FULL) {
        if ((st = full_solve(v, p, deadline, status)) || *status != VC_ILP_FOUND)
            return st;
        p->rewired_min = p->optimal;
        finish(v, p);
        return TSCHED_OK;
    }
    /* the cut loop: master, then circuits for its choice; a choice proven to have none is cut
     * off and the master re-solved */
    double dl = deadline;
    for (;;) {
        /* 1. the master: infeasible there means infeasible (it is a relaxation, and every cut
         * removes only choices with no circuits) */
        st = master_solve(v, p, dl, status);
        if (st || *status != VC_ILP_FOUND)
            return st;
        if (dl <= 0)
            dl = ts_monotonic_s() + VC_OCS_NOLIMIT_CAP_MS * 1e-3;
        int optimal = p->optimal;
        /* 2. the circuits of the master's leaves and spines */
        uint32_t nl = 0, ns = 0, U = v->ocs->U;
        for (uint32_t i = 0; i < p->nl; i++)
            if (p->xsol[i])
                p->lv[nl++] = p->lv[i];
        for (uint32_t jm = 0; jm < p->ns; jm++)
            if (p->ysol[jm]) {
                p->ymax[ns] = p->ysol[jm];
                p->ysol[ns] = p->ysol[jm];
                p->sv[ns] = p->sv[jm];
                memmove(p->wsol + (size_t)ns * U, p->wsol + (size_t)jm * U, (size_t)U * sizeof *p->wsol);
                ns++;
            }
        p->nl = nl;
        p->ns = ns;
        for (uint32_t i = 0; i < nl; i++)
            p->xsol[i] = 1;
        int found = 0, proven = 0;
        if (p->method == VC_OCS_COMBI && (st = vc_ocs_assign(v, p, &found, &proven)))
            return st;
        if (found && (proven || z_columns(v, p) > VC_OCS_ZILP_MAX)) {
            p->optimal = optimal;
            p->rewired_min = proven;
            finish(v, p);
            return TSCHED_OK;
        }
        /* the circuit ILP for (x, y): the fewest rewired circuits, or the proof that the
         * choice has none (GLPK's exhaustive search; the assignment's failure is no proof) */
        p->yfixed = 1;
        if ((st = full_solve(v, p, dl, status)))
            return st;
        p->yfixed = 0;
        if (found && !(*status == VC_ILP_FOUND && p->optimal)) {
            /* the small circuit ILP did not prove its minimum in time: the assignment's answer */
            for (uint32_t i = 0; i < nl; i++)
                p->xsol[i] = 1;
            if ((st = vc_ocs_assign(v, p, &found, &proven)))
                return st;
            if (!found)
                return ts_error(TSCHED_E_INTERNAL, "ocs-vclos: the circuit assignment is not deterministic");
            *status = VC_ILP_FOUND;
            p->optimal = optimal;
            p->rewired_min = 0;
            finish(v, p);
            return TSCHED_OK;
        }
        if (*status == VC_ILP_FOUND) {
            p->rewired_min = p->optimal;
            p->optimal = p->optimal && optimal;
            finish(v, p);
            return TSCHED_OK;
        }
        if (*status == VC_ILP_TIMEOUT)
            return TSCHED_OK;
        /* 3. (x, y) has no circuits: cut it off and re-solve the master over the same
         * eligible leaves and spines (the filter is deterministic) */
        if (p->ncut == VC_OCS_CUTS_MAX)
            break;
        memset(p->cutx + (size_t)p->ncut * v->L, 0, v->L);
        memset(p->cuty + (size_t)p->ncut * v->S, 0, v->S * sizeof *p->cuty);
        for (uint32_t i = 0; i < nl; i++)
            p->cutx[(size_t)p->ncut * v->L + p->lv[i]] = 1;
        for (uint32_t jm = 0; jm < ns; jm++)
            p->cuty[(size_t)p->ncut * v->S + p->sv[jm]] = p->ysol[jm];
        p->ncut++;
        filter(v, p);
        p->have_w = 0;
    }
    /* 4. VC_OCS_CUTS_MAX choices without circuits: the full model decides, within the deadline
     * (or the cap when there is none) */
    p->fell_back = 1;
    filter(v, p);
    if ((st = full_solve(v, p, dl, status)) || *status != VC_ILP_FOUND)
        return st;
    p->rewired_min = p->optimal;
    finish(v, p);
    return TSCHED_OK;
}
