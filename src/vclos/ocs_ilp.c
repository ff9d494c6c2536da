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

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/glpk_guard.h"
#include "ocs_ilp.h"

tsched_status vc_ocs_ilp_init(const tsched_vclos *v, vc_ocs_ilp *p)
{
    uint32_t L = v->L, S = v->S, U = v->ocs->U;
    size_t lsu = (size_t)L * S * U;
    memset(p, 0, sizeof *p);
    if (!(p->lv = ts_malloc(L, sizeof *p->lv)) || !(p->sv = ts_malloc(S, sizeof *p->sv)) ||
        !(p->ymax = ts_malloc(S, sizeof *p->ymax)) || !(p->rsn = ts_malloc(L, sizeof *p->rsn)) ||
        !(p->rpn = ts_malloc(S, sizeof *p->rpn)) || !(p->idle = ts_malloc((size_t)S * U, sizeof *p->idle)) ||
        !(p->lok = ts_malloc(L, 1)) || !(p->sok = ts_malloc(S, 1)) || !(p->zcol = ts_calloc(lsu, sizeof *p->zcol)) ||
        !(p->wcol = ts_calloc((size_t)S * U, sizeof *p->wcol)) ||
        !(p->xsol = ts_malloc(L, 1)) || !(p->ysol = ts_malloc(S, sizeof *p->ysol)) || !(p->zsol = ts_malloc(lsu, 1)))
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
    free(p->ia);
    free(p->ja);
    free(p->ar);
    free(p->xsol);
    free(p->ysol);
    free(p->zsol);
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
    glp_add_cols(lp, ncol + nw);
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
        for (uint32_t jm = 0; jm < ns; jm++)
            p->ysol[jm] = (uint32_t)lround(glp_mip_col_val(lp, (int)(nl + jm) + 1));
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
    size_t nw = (size_t)col - p->nl - p->ns;
    tsched_status st = reserve_nnz(p, p->nl + 2 * (size_t)p->ns + 2 * nw + (size_t)U * (p->nl + 1) * (p->ns + 1) + 2);
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

tsched_status vc_ocs_ilp_solve(const tsched_vclos *v, vc_ocs_ilp *p, uint32_t l, uint32_t q, uint32_t spine,
                               double deadline, int *status)
{
    *status = VC_ILP_NONE;
    p->l = l;
    p->q = q;
    p->s = q * v->E;
    p->spine = spine;
    p->yfixed = 0;
    if (!filter(v, p))
        return TSCHED_OK;
    /* 1. the master: infeasible there means infeasible (it is a relaxation) */
    tsched_status st = master_solve(v, p, deadline, status);
    if (st || *status != VC_ILP_FOUND)
        return st;
    int optimal = p->optimal;
    /* 2. the circuits of the master's leaves and spines, fewest rewired */
    uint32_t nl = 0, ns = 0;
    for (uint32_t i = 0; i < p->nl; i++)
        if (p->xsol[i])
            p->lv[nl++] = p->lv[i];
    for (uint32_t jm = 0; jm < p->ns; jm++)
        if (p->ysol[jm]) {
            p->ymax[ns] = p->ysol[jm];
            p->ysol[ns] = p->ysol[jm];
            p->sv[ns++] = p->sv[jm];
        }
    p->nl = nl;
    p->ns = ns;
    p->yfixed = 1;
    if ((st = full_solve(v, p, deadline, status)))
        return st;
    p->yfixed = 0;
    if (*status == VC_ILP_FOUND) {
        p->optimal = p->optimal && optimal;
    } else {
        if (*status == VC_ILP_TIMEOUT)
            return TSCHED_OK;
        /* 3. the master's choice has no circuits: the full model decides */
        filter(v, p);
        if ((st = full_solve(v, p, deadline, status)) || *status != VC_ILP_FOUND)
            return st;
    }
    p->objective = 0;
    for (uint32_t i = 0; i < p->nl; i++)
        if (p->xsol[i])
            p->objective += (int64_t)v->T * p->rsn[p->lv[i]];
    for (uint32_t jm = 0; jm < p->ns; jm++)
        p->objective += (int64_t)p->rpn[p->sv[jm]] * p->ysol[jm];
    return TSCHED_OK;
}
