/* Test-only formulations of the stage-2 ILP (vclos_models.h), straight from doc/vclos.md §3. */
#include "vclos_models.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>

typedef struct mat {
    int *ia, *ja;
    double *ar;
    int n, cap;
} mat;

static void put(mat *a, int row, int col, double val)
{
    if (a->n + 1 >= a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->ia = realloc(a->ia, (size_t)a->cap * sizeof *a->ia);
        a->ja = realloc(a->ja, (size_t)a->cap * sizeof *a->ja);
        a->ar = realloc(a->ar, (size_t)a->cap * sizeof *a->ar);
        if (!a->ia || !a->ja || !a->ar)
            abort();
    }
    a->n++;
    a->ia[a->n] = row;
    a->ja[a->n] = col;
    a->ar[a->n] = val;
}

static void int_col(glp_prob *lp, int col, double lo, double hi, double cost)
{
    glp_set_col_kind(lp, col, GLP_IV);
    if (hi > lo)
        glp_set_col_bnds(lp, col, GLP_DB, lo, hi);
    else
        glp_set_col_bnds(lp, col, GLP_FX, lo, lo);
    glp_set_obj_coef(lp, col, cost);
}

/* Solve and clean up: 1 with *obj, 0 infeasible, -1 failure. */
static int finish(glp_prob *lp, mat *a, int64_t *obj)
{
    glp_load_matrix(lp, a->n, a->ia, a->ja, a->ar);
    free(a->ia);
    free(a->ja);
    free(a->ar);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int ret = glp_intopt(lp, &parm), st = glp_mip_status(lp), res;
    if (ret == GLP_ENOPFS || ret == GLP_ENODFS || (ret == 0 && st == GLP_NOFEAS))
        res = 0;
    else if (ret == 0 && st == GLP_OPT) {
        res = 1;
        *obj = llround(glp_mip_obj_val(lp));
    } else
        res = -1;
    glp_delete_prob(lp);
    return res;
}

int vm_paper(const vm_inst *in, uint32_t l, uint32_t q, int64_t *obj)
{
    glp_term_out(GLP_OFF);
    uint32_t L = in->L, S = in->S, s = q * in->E, K = 0;
    for (uint32_t p = 0; p < L * S; p++)
        if (in->K[p] > K)
            K = in->K[p];
    /* columns: x_n (L), y_m (S), c_nm (L*S), r_n (L) */
#define X(n) ((int)(n) + 1)
#define Y(m) ((int)(L + (m)) + 1)
#define CC(n, m) ((int)(L + S + (n) * S + (m)) + 1)
#define R(n) ((int)(L + S + L * S + (n)) + 1)
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, (int)(2 * L + S + L * S));
    for (uint32_t n = 0; n < L; n++) {
        glp_set_col_kind(lp, X(n), GLP_BV);
        glp_set_obj_coef(lp, X(n), (double)in->T * in->rsn[n]);
        int_col(lp, R(n), 0, in->rsn[n], 0);
        for (uint32_t m = 0; m < S; m++) {
            uint32_t c = in->C[n * S + m] < K ? in->C[n * S + m] : K;
            int_col(lp, CC(n, m), 0, c, 0);
        }
    }
    for (uint32_t m = 0; m < S; m++)
        int_col(lp, Y(m), 0, K, (double)in->rpn[m]);
    mat a = {0};
    int row = 0;
    /* (2) */
    glp_add_rows(lp, 2);
    for (uint32_t n = 0; n < L; n++)
        put(&a, 1, X(n), 1);
    glp_set_row_bnds(lp, 1, GLP_FX, l, l);
    for (uint32_t m = 0; m < S; m++)
        put(&a, 2, Y(m), 1);
    glp_set_row_bnds(lp, 2, GLP_FX, s, s);
    row = 2;
    /* (3) and (5) per leaf */
    for (uint32_t n = 0; n < L; n++) {
        row = glp_add_rows(lp, 1);
        for (uint32_t m = 0; m < S; m++)
            put(&a, row, CC(n, m), 1);
        put(&a, row, X(n), -(double)s);
        glp_set_row_bnds(lp, row, GLP_FX, 0, 0);
        row = glp_add_rows(lp, 1);
        put(&a, row, R(n), in->E);
        put(&a, row, X(n), -(double)s);
        glp_set_row_bnds(lp, row, GLP_FX, 0, 0);
    }
    /* (3) per spine */
    for (uint32_t m = 0; m < S; m++) {
        row = glp_add_rows(lp, 1);
        for (uint32_t n = 0; n < L; n++)
            put(&a, row, CC(n, m), 1);
        put(&a, row, Y(m), -(double)l);
        glp_set_row_bnds(lp, row, GLP_FX, 0, 0);
    }
    /* (4) */
    for (uint32_t n = 0; n < L; n++)
        for (uint32_t m = 0; m < S; m++) {
            row = glp_add_rows(lp, 1);
            put(&a, row, CC(n, m), 1);
            put(&a, row, X(n), -(double)K);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
            row = glp_add_rows(lp, 1);
            put(&a, row, CC(n, m), 1);
            put(&a, row, Y(m), -1);
            glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
        }
#undef X
#undef Y
#undef CC
#undef R
    return finish(lp, &a, obj);
}

int vm_reduced(const vm_inst *in, uint32_t l, uint32_t q, int64_t *obj)
{
    glp_term_out(GLP_OFF);
    uint32_t L = in->L, S = in->S, s = q * in->E, K = 0;
    for (uint32_t p = 0; p < L * S; p++)
        if (in->K[p] > K)
            K = in->K[p];
    char *lok = calloc(L, 1), *sok = calloc(S, 1);
    int *xc = calloc(L, sizeof *xc), *yc = calloc(S, sizeof *yc);
    uint32_t *Ym = calloc(S, sizeof *Ym);
    if (!lok || !sok || !xc || !yc || !Ym)
        abort();
    /* step 1: the filter as §3 states it */
    for (uint32_t n = 0; n < L; n++)
        lok[n] = in->rsn[n] >= q;
    for (uint32_t m = 0; m < S; m++)
        sok[m] = 1;
    int feasible = 1;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t n = 0; n < L; n++) {
            if (!lok[n])
                continue;
            uint32_t cap = 0;
            for (uint32_t m = 0; m < S; m++)
                cap += sok[m] ? in->C[n * S + m] : 0;
            if (cap < s)
                lok[n] = 0, changed = 1;
        }
        for (uint32_t m = 0; m < S; m++) {
            if (!sok[m])
                continue;
            uint32_t cnt = 0;
            for (uint32_t n = 0; n < L; n++)
                cnt += lok[n] && in->C[n * S + m] > 0;
            if (cnt < l)
                sok[m] = 0, changed = 1;
        }
    }
    uint32_t nl = 0, scap = 0;
    for (uint32_t m = 0; m < S; m++) {
        Ym[m] = 0;
        for (uint32_t n = 0; n < L; n++)
            if (lok[n] && in->C[n * S + m] > Ym[m])
                Ym[m] = in->C[n * S + m];
        if (Ym[m] > K)
            Ym[m] = K;
        scap += sok[m] ? Ym[m] : 0;
    }
    for (uint32_t n = 0; n < L; n++)
        nl += lok[n];
    if (nl < l || scap < s)
        feasible = 0;
    int res = 0;
    if (feasible) {
        glp_prob *lp = glp_create_prob();
        glp_set_obj_dir(lp, GLP_MIN);
        int ncol = 0;
        for (uint32_t n = 0; n < L; n++)
            if (lok[n]) {
                xc[n] = ++ncol;
                glp_add_cols(lp, 1);
                glp_set_col_kind(lp, ncol, GLP_BV);
                glp_set_obj_coef(lp, ncol, (double)in->T * in->rsn[n]);
            }
        for (uint32_t m = 0; m < S; m++)
            if (sok[m]) {
                yc[m] = ++ncol;
                glp_add_cols(lp, 1);
                int_col(lp, ncol, 0, Ym[m], (double)in->rpn[m]);
            }
        mat a = {0};
        glp_add_rows(lp, 2);
        for (uint32_t n = 0; n < L; n++)
            if (lok[n])
                put(&a, 1, xc[n], 1);
        glp_set_row_bnds(lp, 1, GLP_FX, l, l);
        for (uint32_t m = 0; m < S; m++)
            if (sok[m])
                put(&a, 2, yc[m], 1);
        glp_set_row_bnds(lp, 2, GLP_FX, s, s);
        for (uint32_t n = 0; n < L; n++)
            for (uint32_t m = 0; m < S; m++) {
                uint32_t c = in->C[n * S + m];
                if (!lok[n] || !sok[m] || c >= Ym[m])
                    continue;
                int row = glp_add_rows(lp, 1);
                put(&a, row, yc[m], 1);
                put(&a, row, xc[n], (double)(Ym[m] - c));
                glp_set_row_bnds(lp, row, GLP_UP, 0, Ym[m]);
            }
        res = finish(lp, &a, obj);
    }
    free(lok);
    free(sok);
    free(xc);
    free(yc);
    free(Ym);
    return res;
}
