/* OCS-vClos stages 2a, 2b and 3 (doc/vclos.md §4); the stage-3 ILP is in ocs_ilp.c. */
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "ocs_ilp.h"

/* The q lowest-index idle nodes of leaf n into out[]; returns how many. */
static uint32_t lowest_idle(const tsched_vclos *v, uint32_t n, uint32_t q, uint32_t *out)
{
    uint32_t got = 0;
    for (uint32_t i = v->leaf_first[n]; i < v->leaf_first[n + 1] && got < q; i++)
        if (vc_node_idle(v, v->leaf_nodes[i]))
            out[got++] = v->leaf_nodes[i];
    return got;
}

/* Fill j: l leaves (ascending) with q nodes each, s = q*E virtual spines of spine sp[]
 * (NULL for 2a), links[i*s + vs] = port ids; then re-point the circuits. */
static tsched_status fill(tsched_vclos *v, vc_job *j, uint32_t l, uint32_t q, const uint32_t *leaves,
                          const uint32_t *sp, const uint32_t *links, uint32_t ocs_stage)
{
    uint32_t s = q * v->E;
    free(j->nodes);
    free(j->leaves);
    free(j->sp);
    free(j->links);
    j->leaves = j->nodes = j->sp = j->links = NULL;
    if (!(j->nodes = ts_malloc((size_t)l * q, sizeof *j->nodes)) || !(j->leaves = ts_malloc(l, sizeof *j->leaves)) ||
        !(j->sp = ts_malloc(s, sizeof *j->sp)) || !(j->links = ts_malloc((size_t)l * s, sizeof *j->links)))
        return TSCHED_E_NOMEM;
    memcpy(j->leaves, leaves, (size_t)l * sizeof *leaves);
    memcpy(j->links, links, (size_t)l * s * sizeof *links);
    for (uint32_t vs = 0; vs < s; vs++)
        j->sp[vs] = sp ? sp[vs] : VC_NONE;
    j->l = l;
    j->s = s;
    j->nnodes = l * q;
    j->gpn = v->T;
    j->stage = 2;
    j->ocs_stage = ocs_stage;
    for (uint32_t i = 0; i < l; i++)
        if (lowest_idle(v, leaves[i], q, j->nodes + (size_t)i * q) != q)
            return ts_error(TSCHED_E_INTERNAL, "ocs-vclos: leaf %u has fewer than %u idle nodes", leaves[i], q);
    return vc_ocs_commit(v, j);
}

/* Stage 2a: two leaves joined directly by s leaf-to-leaf circuits. */
static tsched_status stage2a(tsched_vclos *v, vc_job *j, uint32_t Q, const uint32_t *rsn, int *found)
{
    const vc_ocs *o = v->ocs;
    uint32_t q = Q / 2, s = q * v->E, U = o->U;
    uint32_t ba = VC_NONE, bb = VC_NONE, bsum = 0;
    for (uint32_t a = 0; a < v->L; a++) {
        if (rsn[a] < q)
            continue;
        for (uint32_t b = a + 1; b < v->L; b++) {
            if (rsn[b] < q || (ba != VC_NONE && rsn[a] + rsn[b] >= bsum))
                continue;
            uint32_t common = 0;
            for (uint32_t k = 0; k < U; k++)
                common += (uint32_t)(vc_ocs_port_usable(v, a, k) && vc_ocs_port_usable(v, b, k));
            if (common >= s) {
                ba = a;
                bb = b;
                bsum = rsn[a] + rsn[b];
            }
        }
    }
    if (ba == VC_NONE)
        return TSCHED_OK;
    uint32_t *links = ts_malloc(2 * (size_t)s, sizeof *links);
    if (!links)
        return TSCHED_E_NOMEM;
    for (uint32_t k = 0, vs = 0; k < U && vs < s; k++)
        if (vc_ocs_port_usable(v, ba, k) && vc_ocs_port_usable(v, bb, k)) {
            links[vs] = vc_ocs_port(v, ba, k);
            links[s + vs] = vc_ocs_port(v, bb, k);
            vs++;
        }
    uint32_t leaves[2] = {ba, bb};
    tsched_status st = fill(v, j, 2, q, leaves, NULL, links, 20);
    free(links);
    if (st)
        return st;
    j->objective = (int64_t)v->T * bsum;
    j->optimal = 1;
    *found = 1;
    return TSCHED_OK;
}

/* Turn an ILP answer into the job: leaves ascending, virtual spines by spine ascending,
 * the ports of (leaf, spine m) in ascending OCS order given to m's virtual spines in order. */
static tsched_status take(tsched_vclos *v, vc_job *j, const vc_ocs_ilp *p, uint32_t ocs_stage)
{
    uint32_t l = p->l, s = p->s, U = v->ocs->U;
    uint32_t *leaves = ts_malloc(l, sizeof *leaves), *sp = ts_malloc(s, sizeof *sp),
             *links = ts_malloc((size_t)l * s, sizeof *links);
    tsched_status st = TSCHED_OK;
    if (!leaves || !sp || !links) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    uint32_t nl = 0, nv = 0;
    for (uint32_t i = 0; i < p->nl; i++)
        if (p->xsol[i]) {
            if (nl == l) {
                st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: the ILP chose more than %u leaves", l);
                goto out;
            }
            leaves[nl++] = p->lv[i];
        }
    for (uint32_t jm = 0; jm < p->ns; jm++)
        for (uint32_t y = 0; y < p->ysol[jm] && nv < s; y++)
            sp[nv++] = p->sv[jm];
    if (nl != l || nv != s) {
        st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: the ILP answer has %u leaves and %u virtual spines", nl, nv);
        goto out;
    }
    for (uint32_t i = 0; i < l; i++) {
        uint32_t n = leaves[i], vs = 0;
        for (uint32_t jm = 0; jm < p->ns; jm++) {
            uint32_t m = p->sv[jm], first = vs, end = vs + p->ysol[jm];
            for (uint32_t k = 0; k < U; k++)
                if (p->zsol[((size_t)n * p->ns + jm) * U + k]) {
                    if (vs == end) {
                        st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: leaf %u has too many circuits to spine %u", n, m);
                        goto out;
                    }
                    links[(size_t)i * s + vs++] = vc_ocs_port(v, n, k);
                }
            if (vs != end) {
                st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: leaf %u has %u circuits to spine %u, not %u", n,
                              vs - first, m, end - first);
                goto out;
            }
        }
    }
    if ((st = fill(v, j, l, s / v->E, leaves, sp, links, ocs_stage)))
        goto out;
    j->objective = p->objective;
    j->optimal = p->optimal;
out:
    free(leaves);
    free(sp);
    free(links);
    return st;
}

/* Stage-3 ILP for every shape in ascending l (spine = VC_NONE: any spines; else stage 2b
 * on that spine only). */
static tsched_status shapes_ilp(tsched_vclos *v, vc_job *j, vc_ocs_ilp *p, const uint32_t *shapes, uint32_t nsh,
                                uint32_t Q, uint32_t spine, double deadline, int *found, int *timed_out)
{
    for (uint32_t i = 0; i < nsh && !*found; i++) {
        int status = 0;
        tsched_status st = vc_ocs_ilp_solve(v, p, shapes[i], Q / shapes[i], spine, deadline, &status);
        if (st)
            return st;
        if (status == VC_ILP_TIMEOUT) {
            *timed_out = 1;
            return TSCHED_OK;
        }
        if (status == VC_ILP_FOUND) {
            if ((st = take(v, j, p, spine == VC_NONE ? 3 : 21)))
                return st;
            *found = 1;
        }
    }
    return TSCHED_OK;
}

tsched_status vc_ocs_stage2(tsched_vclos *v, vc_job *j, uint32_t Q, double deadline, int *found, int *timed_out)
{
    *found = *timed_out = 0;
    const vc_ocs *o = v->ocs;
    uint32_t U = o->U, L = v->L, S = v->S;
    uint32_t *rsn = ts_malloc(L, sizeof *rsn), *shapes = ts_malloc(L + 1, sizeof *shapes),
             *idle = ts_malloc((size_t)S * U, sizeof *idle), *order = ts_malloc(S, sizeof *order),
             *tot = ts_malloc(S, sizeof *tot);
    vc_ocs_ilp p;
    memset(&p, 0, sizeof p);
    tsched_status st = TSCHED_OK;
    if (!rsn || !shapes || !idle || !order || !tot) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t n = 0; n < L; n++)
        rsn[n] = vc_rsn(v, n);
    uint32_t nsh = vc_shapes(v, Q, U, shapes, L + 1);
    if (!nsh)
        goto out;
    /* 2a: l = 2 when that shape is allowed */
    if (shapes[0] == 2 && (st = stage2a(v, j, Q, rsn, found)))
        goto out;
    if (*found)
        goto out;
    if ((st = vc_ocs_ilp_init(v, &p)))
        goto out;
    /* 2b: spines with at least R idle ports, ascending idle ports, ties lowest index */
    vc_ocs_spine_idle(v, idle);
    uint32_t R = Q * v->E, no = 0;
    for (uint32_t m = 0; m < S; m++) {
        tot[m] = 0;
        for (uint32_t k = 0; k < U; k++)
            tot[m] += idle[m * U + k];
        if (tot[m] >= R) {
            uint32_t i = no++;
            while (i > 0 && tot[order[i - 1]] > tot[m]) {
                order[i] = order[i - 1];
                i--;
            }
            order[i] = m;
        }
    }
    for (uint32_t i = 0; i < no && !*found && !*timed_out; i++)
        if ((st = shapes_ilp(v, j, &p, shapes, nsh, Q, order[i], deadline, found, timed_out)))
            goto out;
    /* 3 */
    if (!*found && !*timed_out)
        st = shapes_ilp(v, j, &p, shapes, nsh, Q, VC_NONE, deadline, found, timed_out);
out:
    vc_ocs_ilp_fini(&p);
    free(rsn);
    free(shapes);
    free(idle);
    free(order);
    free(tot);
    if (st)
        *found = 0;
    return st;
}
