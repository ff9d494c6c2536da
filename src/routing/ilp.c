/* The ILP optimum of the greedy objective: minimise the largest number of flows on one
 * directed trunk. Flows of one leaf pair are interchangeable (same candidate paths), so the
 * model counts them per pair: y[e][p] = flows of pair e on path p, sum_p y[e][p] = n_e,
 * and for every link, sum of the y crossing it <= z. This is exact and removes the
 * symmetry between identical flows. Greedy's answer bounds z from above; the LP relaxation
 * from below; branch and bound runs only when they differ. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/glpk_guard.h"
#include "routing_internal.h"

/* ---- the two-tier case, exactly and fast ------------------------------------------------
 * When every routed pair has the same candidate spines (in the same order), the pairs form a
 * bipartite multigraph (source leaves, destination leaves) whose largest degree D bounds any
 * answer from below: D flows leave one leaf over S spines, so some up-link carries at least
 * ceil(D / S). By Koenig's theorem the graph's edges can be coloured with D colours so that
 * no two edges at a vertex share one; colour c to spine c mod S then puts at most ceil(D / S)
 * flows on every link. That is the optimum (the paper's "edge-colouring" baseline). */

/* Colour edges (u[e], v[e]) of a bipartite multigraph with nl left and nr right vertices
 * and largest degree D: at[u * D + c] = edge of colour c at u (UINT32_MAX = free). */
static tsched_status koenig(uint32_t *colour, const uint32_t *u, const uint32_t *v, uint32_t ne, uint32_t nl,
                            uint32_t nr, uint32_t D, const ts_deadline *d)
{
    uint32_t *atl = ts_malloc((size_t)nl * D, sizeof *atl), *atr = ts_malloc((size_t)nr * D, sizeof *atr);
    uint32_t *path = ts_malloc(ne ? ne : 1, sizeof *path);
    if (!atl || !atr || !path) {
        free(atl);
        free(atr);
        free(path);
        return TSCHED_E_NOMEM;
    }
    memset(atl, 0xff, (size_t)nl * D * sizeof *atl);
    memset(atr, 0xff, (size_t)nr * D * sizeof *atr);
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t a = 0, b = 0;
        tsched_status st;
        if ((e & 1023) == 1023 && (st = ts_deadline_check(d, "routing ILP: edge colouring")) != TSCHED_OK) {
            free(atl);
            free(atr);
            free(path);
            return st;
        }
        /* both exist: before this edge, u and v have fewer than D edges */
        while (atl[(size_t)u[e] * D + a] != UINT32_MAX)
            a++;
        while (atr[(size_t)v[e] * D + b] != UINT32_MAX)
            b++;
        if (atr[(size_t)v[e] * D + a] != UINT32_MAX) {
            /* a is taken at v: swap a and b along the path from v that alternates a, b, a, ...
             * It cannot reach u (it would close an odd cycle), so a becomes free at both. */
            uint32_t n = 0, x = v[e], right = 1, c = a;
            for (;;) {
                uint32_t ed = (right ? atr : atl)[(size_t)x * D + c];
                if (ed == UINT32_MAX)
                    break;
                path[n++] = ed;
                x = right ? u[ed] : v[ed];
                right = !right;
                c = c == a ? b : a;
            }
            for (uint32_t k = 0; k < n; k++) {
                uint32_t ed = path[k];
                atl[(size_t)u[ed] * D + colour[ed]] = UINT32_MAX;
                atr[(size_t)v[ed] * D + colour[ed]] = UINT32_MAX;
            }
            for (uint32_t k = 0; k < n; k++) {
                uint32_t ed = path[k];
                colour[ed] = colour[ed] == a ? b : a;
                atl[(size_t)u[ed] * D + colour[ed]] = ed;
                atr[(size_t)v[ed] * D + colour[ed]] = ed;
            }
        }
        atl[(size_t)u[e] * D + a] = e;
        atr[(size_t)v[e] * D + a] = e;
        colour[e] = a;
    }
    free(atl);
    free(atr);
    free(path);
    return TSCHED_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Compact numbers for the leaves of the cache's pairs (la[q], lb[q] for pair q; *nv of
 * them), so that per-leaf arrays grow with the leaves routed, not the fabric. */
static tsched_status pair_leaves(uint32_t **la_out, uint32_t **lb_out, uint32_t *nv, const ts_pathcache *c)
{
    uint32_t np = c->npairs, n = 0;
    uint32_t *all = ts_malloc(2 * (size_t)np + 1, sizeof *all), *la = ts_malloc(np + 1, sizeof *la),
             *lb = ts_malloc(np + 1, sizeof *lb);
    if (!all || !la || !lb) {
        free(all);
        free(la);
        free(lb);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t q = 0; q < np; q++) {
        all[2 * q] = c->pairs[q].a;
        all[2 * q + 1] = c->pairs[q].b;
    }
    qsort(all, 2 * (size_t)np, sizeof *all, cmp_u32);
    for (uint32_t k = 0; k < 2 * np; k++)
        if (n == 0 || all[n - 1] != all[k])
            all[n++] = all[k];
    for (uint32_t q = 0; q < np; q++) {
        la[q] = (uint32_t)((const uint32_t *)bsearch(&c->pairs[q].a, all, n, sizeof *all, cmp_u32) - all);
        lb[q] = (uint32_t)((const uint32_t *)bsearch(&c->pairs[q].b, all, n, sizeof *all, cmp_u32) - all);
    }
    free(all);
    *la_out = la;
    *lb_out = lb;
    *nv = n;
    return TSCHED_OK;
}

/* The two-tier exact path. Returns 1 in *done when it applied. */
static tsched_status two_tier(tsched_routes *r, int *done, const ts_deadline *d)
{
    *done = 0;
    const ts_pathcache *c = r->cache;
    const ts_pair *ref = NULL;
    uint32_t nsw = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &c->pairs[ts_route_pair(r, i)];
        if (p->hops == 0)
            continue;
        if (p->hops != 2)
            return TSCHED_OK;
        if (!ref) {
            ref = p;
            continue;
        }
        if (p->npaths != ref->npaths)
            return TSCHED_OK;
        for (uint32_t k = 0; k < p->npaths; k++)
            if (ts_link_head(&c->tv, c->gl[ts_pair_link(c, p, k, 0)]) !=
                ts_link_head(&c->tv, c->gl[ts_pair_link(c, ref, k, 0)]))
                return TSCHED_OK;
    }
    if (!ref)
        return TSCHED_OK;
    /* vertices: the leaves of the pairs (the colouring does not depend on their numbers) */
    uint32_t *la = NULL, *lb = NULL;
    tsched_status st = pair_leaves(&la, &lb, &nsw, c);
    if (st != TSCHED_OK)
        return st;
    uint32_t *u = ts_malloc(r->n, sizeof *u), *v = ts_malloc(r->n, sizeof *v), *fl = ts_malloc(r->n, sizeof *fl);
    uint32_t *degl = ts_calloc(nsw, sizeof *degl), *degr = ts_calloc(nsw, sizeof *degr), *col = ts_malloc(r->n, sizeof *col);
    if (!u || !v || !fl || !degl || !degr || !col) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    uint32_t ne = 0, D = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &c->pairs[ts_route_pair(r, i)];
        if (p->hops == 0)
            continue;
        u[ne] = la[ts_route_pair(r, i)];
        v[ne] = lb[ts_route_pair(r, i)];
        fl[ne] = i;
        if (++degl[u[ne]] > D)
            D = degl[u[ne]];
        if (++degr[v[ne]] > D)
            D = degr[v[ne]];
        ne++;
    }
    if ((st = koenig(col, u, v, ne, nsw, nsw, D, d)) != TSCHED_OK)
        goto out;
    memset(r->load, 0, r->nlinks * sizeof *r->load);
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t i = fl[e];
        const ts_pair *p = &c->pairs[ts_route_pair(r, i)];
        uint32_t k = col[e] % p->npaths;
        r->pidx[i] = k;
        ts_pair_load(r->load, c, p, k);
    }
    *done = 1;
out:
    free(la);
    free(lb);
    free(u);
    free(v);
    free(fl);
    free(degl);
    free(degr);
    free(col);
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Milliseconds left before the deadline, at least 1 (GLPK reads 0 as "no limit"); 0 once
 * it has passed. */
static int ms_left(const ts_deadline *d)
{
    double left = d->at - ts_now_ms();
    if (left <= 0)
        return 0;
    return left >= 2e9 ? 2000000000 : (int)ceil(left);
}

/* Building stops while there is still time to take the model down again (GLPK frees it
 * element by element: about as long as it took to build, measured). */
static int build_late(const ts_deadline *d, double built0)
{
    double t = ts_now_ms();
    return d->at - t <= 1.25 * (t - built0) + 2;
}

/* Branch and bound stops at the deadline, whatever GLPK's own clock says. */
static void deadline_cb(glp_tree *tree, void *info)
{
    if (ts_now_ms() >= ((const ts_deadline *)info)->at)
        glp_ios_terminate(tree);
}

/* What the ILP on the GLPK worker thread reads and writes (glpk_guard.h). */
typedef struct ilp_ctx {
    const uint32_t *count, *col0, *rowlen, *loff, *lcol;
    const uint64_t *rows;
    uint32_t ncols, ub, nrows, np;
    const ts_deadline *d;
    double built0; /* when building started, thread start included */
    uint32_t *y;
    int *ind;
    double *val;
    int improved, proven;
} ilp_ctx;

static tsched_status ilp_body(void *arg)
{
    ilp_ctx *cx = arg;
    const uint32_t *count = cx->count, *col0 = cx->col0, *rowlen = cx->rowlen, *loff = cx->loff, *lcol = cx->lcol;
    const uint64_t *rows = cx->rows;
    uint32_t ncols = cx->ncols, ub = cx->ub, nrows = cx->nrows, np = cx->np, *y = cx->y;
    const ts_deadline *d = cx->d;
    double built0 = cx->built0, *val = cx->val;
    int *ind = cx->ind, improved = 0, proven = 0;
    glp_prob *lp;
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    int z = (int)ncols + 1, left;
    glp_add_cols(lp, z);
    for (int j = 1; j < z; j++) {
        if ((j & 4095) == 0 && build_late(d, built0))
            goto done;
        glp_set_col_kind(lp, j, GLP_IV);
        glp_set_col_bnds(lp, j, GLP_LO, 0, 0);
    }
    glp_set_col_kind(lp, z, GLP_IV);
    glp_set_col_bnds(lp, z, GLP_DB, 0, ub - 1); /* only strictly better answers; ub >= 2 */
    glp_set_obj_coef(lp, z, 1);
    size_t nnz = 0; /* since the clock was last read */
    for (uint32_t k = 0; k < nrows; k++) {
        uint32_t l = (uint32_t)rows[k];
        if ((nnz += rowlen[l] + 1) >= 4096) {
            nnz = 0;
            if (build_late(d, built0))
                goto done; /* out of time while building: greedy's answer stands */
        }
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t j = 0; j < rowlen[l]; j++) {
            ind[++len] = (int)lcol[loff[l] + j];
            val[len] = 1;
        }
        ind[++len] = z;
        val[len] = -1;
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    }
    for (uint32_t e = 0; e < np; e++) {
        if (col0[e + 1] == col0[e])
            continue;
        if ((nnz += col0[e + 1] - col0[e]) >= 4096) {
            nnz = 0;
            if (build_late(d, built0))
                goto done;
        }
        int row = glp_add_rows(lp, 1), len = 0;
        for (uint32_t c = col0[e]; c < col0[e + 1]; c++) {
            ind[++len] = (int)c;
            val[len] = 1;
        }
        glp_set_mat_row(lp, row, len, ind, val);
        glp_set_row_bnds(lp, row, GLP_FX, count[e], count[e]);
    }
    /* GLPK starts its clock only after setting up (about as long as building the model
     * took, measured): each solver gets the time left minus that, and starts only when
     * at least as much again remains */
    double setup = ts_now_ms() - built0 + 1;
    if ((left = ms_left(d)) < 2 * setup)
        goto done;
    glp_smcp sp;
    ts_glpk_smcp(&sp, left - (int)setup);
    int ret = glp_simplex(lp, &sp);
    if (ret == 0 && glp_get_status(lp) == GLP_NOFEAS) {
        proven = 1; /* not even fractionally better than greedy */
    } else if (ret == 0 && (left = ms_left(d)) >= 2 * setup) {
        glp_iocp parm;
        ts_glpk_iocp(&parm, left - (int)setup);
        parm.presolve = GLP_OFF; /* the LP above is the root */
        parm.cb_func = deadline_cb;
        parm.cb_info = (void *)d;
        ret = glp_intopt(lp, &parm);
        int ms = glp_mip_status(lp);
        if (ret == 0 && (ms == GLP_OPT || ms == GLP_NOFEAS))
            proven = 1;
        if ((ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (ms == GLP_OPT || ms == GLP_FEAS)) {
            for (uint32_t c = 1; c <= ncols; c++)
                y[c] = (uint32_t)lround(glp_mip_col_val(lp, (int)c));
            improved = 1;
        }
    }
done:
    glp_delete_prob(lp);
    cx->improved = improved;
    cx->proven = proven;
    return TSCHED_OK;
}

/* The pair-aggregated model on the GLPK worker thread. Every buffer is allocated here, before,
 * so nothing the longjmp path frees is indeterminate. Building the model counts against
 * the deadline: past it, the model is dropped and greedy's answer stands. */
static tsched_status glpk_solve(const tsched_routes *r, const uint32_t *count, const uint32_t *col0, uint32_t ncols,
                                uint32_t ub, const ts_deadline *d, uint32_t *y, int *improved_out, int *proven_out)
{
    uint32_t np = r->cache->npairs, nl = r->nlinks, nrows = 0;
    size_t maxlen = (size_t)ncols + 2;
    int *ind = ts_malloc(maxlen, sizeof *ind);
    double *val = ts_malloc(maxlen, sizeof *val);
    uint32_t *rowlen = ts_calloc(nl ? nl : 1, sizeof *rowlen);
    uint32_t *loff = ts_calloc((size_t)nl + 1, sizeof *loff), *lcol = NULL;
    uint64_t *rows = NULL;
    tsched_status st = TSCHED_OK;
    *improved_out = *proven_out = 0;
    if (!ind || !val || !rowlen || !loff) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* per-link column lists, built in two passes (count, fill) */
    for (uint32_t e = 0; e < np; e++) {
        const ts_pair *p = &r->cache->pairs[e];
        if (col0[e + 1] == col0[e])
            continue;
        for (uint32_t k = 0; k < p->npaths; k++)
            for (uint32_t h = 0; h < p->hops; h++)
                loff[ts_pair_link(r->cache, p, k, h) + 1]++;
    }
    for (uint32_t l = 0; l < nl; l++) {
        nrows += loff[l + 1] > 0;
        loff[l + 1] += loff[l];
    }
    if (!(lcol = ts_malloc(loff[nl] ? loff[nl] : 1, sizeof *lcol)) || !(rows = ts_malloc(nrows ? nrows : 1, sizeof *rows))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t e = 0; e < np; e++) {
        const ts_pair *p = &r->cache->pairs[e];
        if (col0[e + 1] == col0[e])
            continue;
        for (uint32_t q = 0; q < p->npaths; q++)
            for (uint32_t h = 0; h < p->hops; h++) {
                uint32_t l = ts_pair_link(r->cache, p, q, h);
                lcol[loff[l] + rowlen[l]++] = col0[e] + q;
            }
    }
    /* one row per used link, in the order of the fabric's link ids (the model, and so
     * GLPK's path through it, does not depend on the order the cache met the links) */
    nrows = 0;
    for (uint32_t l = 0; l < nl; l++)
        if (rowlen[l])
            rows[nrows++] = (uint64_t)r->cache->gl[l] << 32 | l;
    qsort(rows, nrows, sizeof *rows, cmp_u64);
    if (ms_left(d) == 0)
        goto out;
    ilp_ctx cx = {count, col0, rowlen, loff, lcol, rows, ncols, ub, nrows, np, d, ts_now_ms(), y, ind, val, 0, 0};
    st = ts_glpk_run(ilp_body, &cx, "routing ILP");
    *improved_out = cx.improved;
    *proven_out = cx.proven;
out:
    free(ind);
    free(val);
    free(rowlen);
    free(loff);
    free(lcol);
    free(rows);
    return st;
}

/* A lower bound on the largest trunk load: the flows leaving a leaf over the fabric all
 * cross one of the leaf's up-links that some candidate path uses, so one of them carries at
 * least ceil(out / links); likewise for the flows entering a leaf and its down-links. */
static tsched_status degree_bound(uint32_t *lb, const tsched_routes *r)
{
    const ts_pathcache *c = r->cache;
    uint32_t ns = 0, *pa = NULL, *pb = NULL;
    tsched_status st = pair_leaves(&pa, &pb, &ns, c);
    if (st != TSCHED_OK)
        return st;
    uint32_t *out = ts_calloc(ns ? ns : 1, sizeof *out), *in = ts_calloc(ns ? ns : 1, sizeof *in);
    uint32_t *ups = ts_calloc(ns ? ns : 1, sizeof *ups), *downs = ts_calloc(ns ? ns : 1, sizeof *downs);
    uint8_t *seen = ts_calloc(r->nlinks ? r->nlinks : 1, 1);
    uint8_t *used = ts_calloc(c->npairs ? c->npairs : 1, 1);
    if (!out || !in || !ups || !downs || !seen || !used) {
        st = TSCHED_E_NOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        const ts_pair *p = &c->pairs[ts_route_pair(r, i)];
        if (p->hops == 0)
            continue;
        out[pa[ts_route_pair(r, i)]]++;
        in[pb[ts_route_pair(r, i)]]++;
        used[ts_route_pair(r, i)] = 1;
    }
    /* a link is the first hop of one leaf only, the last hop of one leaf only */
    for (uint32_t q = 0; q < c->npairs; q++) {
        const ts_pair *p = &c->pairs[q];
        if (!used[q])
            continue;
        for (uint32_t k = 0; k < p->npaths; k++) {
            uint32_t first = ts_pair_link(c, p, k, 0), last = ts_pair_link(c, p, k, p->hops - 1);
            if (!(seen[first] & 1)) {
                seen[first] |= 1;
                ups[pa[q]]++;
            }
            if (!(seen[last] & 2)) {
                seen[last] |= 2;
                downs[pb[q]]++;
            }
        }
    }
    *lb = 0;
    for (uint32_t x = 0; x < ns; x++) {
        if (ups[x] && (out[x] + ups[x] - 1) / ups[x] > *lb)
            *lb = (out[x] + ups[x] - 1) / ups[x];
        if (downs[x] && (in[x] + downs[x] - 1) / downs[x] > *lb)
            *lb = (in[x] + downs[x] - 1) / downs[x];
    }
done:
    free(pa);
    free(pb);
    free(out);
    free(in);
    free(ups);
    free(downs);
    free(seen);
    free(used);
    return st;
}

tsched_status ts_route_ilp(tsched_routes *r, const ts_flows_view *f, const ts_deadline *d, int *optimal)
{
    (void)f;
    tsched_status st;
    *optimal = 0;
    int done;
    if ((st = two_tier(r, &done, d)) != TSCHED_OK)
        return st;
    if (done) {
        *optimal = 1;
        return TSCHED_OK;
    }
    /* greedy first: the upper bound, and the answer when nothing beats it */
    if ((st = ts_route_greedy_until(r, d)) != TSCHED_OK)
        return st;
    uint32_t ub = 0;
    for (uint32_t l = 0; l < r->nlinks; l++)
        if (r->load[l] > ub)
            ub = r->load[l];
    if (ub <= 1) {
        *optimal = 1; /* no answer has fewer than one flow on a used link */
        return TSCHED_OK;
    }
    uint32_t lb;
    if ((st = degree_bound(&lb, r)) != TSCHED_OK)
        return st;
    if (ub <= lb) {
        *optimal = 1; /* greedy meets the bound: nothing can be better */
        return TSCHED_OK;
    }
    if (ms_left(d) == 0)
        return TSCHED_OK; /* out of time: greedy's answer, "feasible" */
    uint32_t np = r->cache->npairs;
    uint32_t *count = ts_calloc(np, sizeof *count), *col0 = ts_malloc((size_t)np + 1, sizeof *col0);
    if (!count || !col0) {
        free(count);
        free(col0);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t i = 0; i < r->n; i++)
        count[ts_route_pair(r, i)]++;
    /* columns: y for pairs with flows and at least one fabric link; then z */
    uint32_t ncols = 0;
    for (uint32_t e = 0; e < np; e++) {
        col0[e] = ncols + 1;
        if (count[e] && r->cache->pairs[e].hops)
            ncols += r->cache->pairs[e].npaths;
    }
    col0[np] = ncols + 1;
    uint32_t *y = ts_malloc((size_t)ncols + 1, sizeof *y);
    int improved = 0, proven = 0;
    tsched_status st2 = y ? glpk_solve(r, count, col0, ncols, ub, d, y, &improved, &proven) : TSCHED_E_NOMEM;
    if (st2 == TSCHED_OK && improved) {
        /* hand the paths out to the pair's flows in flow order */
        memset(r->load, 0, r->nlinks * sizeof *r->load);
        for (uint32_t i = 0; i < r->n; i++) {
            uint32_t e = ts_route_pair(r, i);
            const ts_pair *p = &r->cache->pairs[e];
            uint32_t k = 0;
            if (col0[e + 1] > col0[e]) {
                while (y[col0[e] + k] == 0)
                    k++;
                y[col0[e] + k]--;
            }
            r->pidx[i] = k;
            ts_pair_load(r->load, r->cache, p, k);
        }
    }
    *optimal = proven;
    free(count);
    free(col0);
    free(y);
    return st2;
}
