/* The circuits of a master answer of OCS-vClos, without a solver (doc/vclos.md §4).
 *
 * Given the master's chosen leaves (x) and virtual spines per spine (y_m), a circuit
 * assignment is z_nmk in {0,1} with, for every chosen leaf n, spine m and OCS k:
 *   sum_m z_nmk <= [port (n,k) usable]   sum_k z_nmk = y_m   sum_n z_nmk <= idle(m,k).
 * Its rewiring count is sum z_nmk [port (n,k) is not on m now]. This file tries, in order:
 *
 * 1. Keep, then complete. Leaf n can keep at most a_nm = min(y_m, usable ports of n now on
 *    m) circuits to m, so every assignment rewires at least
 *        LB = sum_n (s - sum_m a_nm)
 *    circuits. Keep exactly a_nm of them on every leaf (n's ports on m in ascending k), then
 *    complete each leaf in ascending order by a max-flow (spines with their residual demand
 *    -> n's other usable ports, through (m,k) while spine ports are left). Kept circuits
 *    never exceed the spine ports: those on (m,k) are distinct unreserved circuits ending on
 *    m's ports of OCS k, at most idle(m,k). If the completion succeeds the count is LB: a
 *    proven minimum of the rewiring count for the master's (x, y).
 * 2. Sequential min-cost flow: leaves in ascending order, each by a min-cost flow (cost 0
 *    for a circuit already on its spine, 1 otherwise) over the spine ports the earlier
 *    leaves left. Feasible when it succeeds; its count is not proven minimal.
 * 3. Uniform ports (every chosen leaf has the same usable ports; always so when s = U or
 *    when no chosen leaf carries a running job): an edge colouring. The master's w_mk
 *    (circuits to m on OCS k; sum_k w_mk = l y_m, sum_m w_mk <= l and w_mk <= idle(m,k) on
 *    the usable OCSes, 0 elsewhere) is a bipartite multigraph between y_m copies of each
 *    spine (each given l of m's edges) and the OCSes; its maximum degree is l, so by Konig's
 *    theorem it has a proper l-edge-colouring, found by alternating-path swaps. A copy has
 *    degree l, so every colour meets it once: colour c is a leaf's assignment (y_m circuits
 *    to m, at most one per OCS). Colours go to leaves by a least-rewiring assignment
 *    (Hungarian method). So a master answer with uniform ports always has circuits, and no
 *    solver runs.
 * A failure of all three proves nothing: the caller then solves the z ILP for this (x, y)
 * (exact); if that proves there are no circuits it cuts (x, y) off the master and re-solves
 * (ocs_ilp.c), falling back to the full model after VC_OCS_CUTS_MAX cuts. None of this
 * changes the main cost: it is the master's, whose optimum is the §4 model's optimum
 * whenever its (x, y) has circuits (the master is a relaxation of the §4 model). */
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "ocs_ilp.h"

typedef struct asg {
    const tsched_vclos *v;
    uint32_t ns, U;
    const uint32_t *sv;
    uint32_t *dem;   /* ns: demand of the current leaf per spine */
    uint32_t *rem;   /* ns*U: spine ports left */
    uint8_t *ok;     /* U: current leaf's port may take a new circuit */
    int32_t *match;  /* U: spine (local) of the port in the current flow, or -1 */
    uint32_t *used;  /* ns: circuits of the current leaf per spine */
    int32_t *dist;   /* ns + U */
    int32_t *prev;   /* ns + U */
    uint32_t *queue; /* ns + U */
    uint8_t *inq;    /* ns + U */
} asg;

/* Min-cost flow of one leaf n: sum(dem) circuits, spine jm -> port k allowed when ok[k] and
 * rem[jm*U+k] > 0, cost 0 if (n,k) is on sv[jm] now (only when costed), else 1. Successive
 * shortest paths (SPFA; no negative cycle in the residual graph of a min-cost flow). Result
 * in match[]; returns 1 when every demand is met. */
static int leaf_flow(asg *a, uint32_t n, int costed)
{
    uint32_t ns = a->ns, U = a->U, need = 0, V = ns + U;
    for (uint32_t jm = 0; jm < ns; jm++) {
        a->used[jm] = 0;
        need += a->dem[jm];
    }
    for (uint32_t k = 0; k < U; k++)
        a->match[k] = -1;
    for (uint32_t got = 0; got < need; got++) {
        uint32_t qh = 0, qt = 0;
        for (uint32_t i = 0; i < V; i++) {
            a->dist[i] = INT32_MAX;
            a->prev[i] = -1;
            a->inq[i] = 0;
        }
        for (uint32_t jm = 0; jm < ns; jm++)
            if (a->used[jm] < a->dem[jm]) {
                a->dist[jm] = 0;
                a->queue[qt++ % V] = jm;
                a->inq[jm] = 1;
            }
        while (qh != qt) {
            uint32_t u = a->queue[qh++ % V];
            a->inq[u] = 0;
            if (u < ns) { /* spine -> unmatched-to-it ports */
                for (uint32_t k = 0; k < U; k++) {
                    if (!a->ok[k] || a->match[k] == (int32_t)u || !a->rem[u * U + k])
                        continue;
                    int32_t c = costed && vc_ocs_on_spine(a->v, n, k, a->sv[u]) ? 0 : 1;
                    if (a->dist[u] + c < a->dist[ns + k]) {
                        a->dist[ns + k] = a->dist[u] + c;
                        a->prev[ns + k] = (int32_t)u;
                        if (!a->inq[ns + k]) {
                            a->inq[ns + k] = 1;
                            a->queue[qt++ % V] = ns + k;
                        }
                    }
                }
            } else if (a->match[u - ns] >= 0) { /* matched port -> back to its spine */
                uint32_t k = u - ns, jm = (uint32_t)a->match[k];
                int32_t c = costed && vc_ocs_on_spine(a->v, n, k, a->sv[jm]) ? 0 : 1;
                if (a->dist[u] - c < a->dist[jm]) {
                    a->dist[jm] = a->dist[u] - c;
                    a->prev[jm] = (int32_t)u;
                    if (!a->inq[jm]) {
                        a->inq[jm] = 1;
                        a->queue[qt++ % V] = jm;
                    }
                }
            }
        }
        /* cheapest free port reached (ties: lowest k) */
        int32_t best = -1;
        for (uint32_t k = 0; k < U; k++)
            if (a->match[k] < 0 && a->dist[ns + k] != INT32_MAX && (best < 0 || a->dist[ns + k] < a->dist[ns + best]))
                best = (int32_t)k;
        if (best < 0)
            return 0;
        /* augment: port <- spine <- port <- ... <- spine with spare demand */
        uint32_t node = ns + (uint32_t)best;
        for (;;) {
            uint32_t jm = (uint32_t)a->prev[node], k = node - ns;
            int32_t old = a->match[k];
            a->match[k] = (int32_t)jm;
            if (a->prev[jm] < 0) {
                a->used[jm]++;
                (void)old;
                break;
            }
            node = (uint32_t)a->prev[jm]; /* the port jm gives up */
            a->match[node - ns] = -1;
        }
    }
    return 1;
}

/* Hungarian method (minimum-cost perfect assignment, rows to columns, n x n, costs >= 0).
 * col_of[r] = column of row r. Scratch: u, w (n+1), p, way (n+1), minv (n+1), done (n+1). */
static void hungarian(uint32_t nn, const int32_t *cost, uint32_t *col_of, int64_t *u, int64_t *w, uint32_t *p,
                      uint32_t *way, int64_t *minv, uint8_t *done)
{
    for (uint32_t i = 0; i <= nn; i++)
        u[i] = w[i] = 0, p[i] = 0, way[i] = 0;
    for (uint32_t i = 1; i <= nn; i++) {
        p[0] = i;
        uint32_t j0 = 0;
        for (uint32_t j = 0; j <= nn; j++)
            minv[j] = INT64_MAX, done[j] = 0;
        do {
            done[j0] = 1;
            uint32_t i0 = p[j0], j1 = 0;
            int64_t delta = INT64_MAX;
            for (uint32_t j = 1; j <= nn; j++)
                if (!done[j]) {
                    int64_t cur = cost[(size_t)(i0 - 1) * nn + (j - 1)] - u[i0] - w[j];
                    if (cur < minv[j])
                        minv[j] = cur, way[j] = j0;
                    if (minv[j] < delta)
                        delta = minv[j], j1 = j;
                }
            for (uint32_t j = 0; j <= nn; j++)
                if (done[j])
                    u[p[j]] += delta, w[j] -= delta;
                else
                    minv[j] -= delta;
            j0 = j1;
        } while (p[j0] != 0);
        do {
            uint32_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (uint32_t j = 1; j <= nn; j++)
        col_of[p[j] - 1] = j - 1;
}

/* Step 3 (see the file comment). Returns 1 with zsol filled, 0 if the ports are not uniform
 * or the master's w is missing. */
static tsched_status konig(const tsched_vclos *v, vc_ocs_ilp *p, int *found)
{
    uint32_t U = v->ocs->U, l = p->nl, ns = p->ns, s = p->s;
    *found = 0;
    if (!p->have_w)
        return TSCHED_OK;
    for (uint32_t i = 1; i < l; i++)
        for (uint32_t k = 0; k < U; k++)
            if (vc_ocs_port_usable(v, p->lv[i], k) != vc_ocs_port_usable(v, p->lv[0], k))
                return TSCHED_OK;
    uint32_t E = l * s, nv = s + U; /* vertices: spine copies 0..s-1, OCS s + k */
    uint32_t *eu = ts_malloc(E, sizeof *eu), *ek = ts_malloc(E, sizeof *ek), *ecol = ts_malloc(E, sizeof *ecol),
             *copy_sp = ts_malloc(s, sizeof *copy_sp);
    int32_t *at = ts_malloc((size_t)nv * l, sizeof *at); /* at[vertex*l + c] = edge or -1 */
    int32_t *cost = ts_malloc((size_t)l * l, sizeof *cost);
    uint32_t *col_of = ts_malloc(l, sizeof *col_of), *pp = ts_malloc(l + 1, sizeof *pp),
             *way = ts_malloc(l + 1, sizeof *way);
    int64_t *hu = ts_malloc(l + 1, sizeof *hu), *hw = ts_malloc(l + 1, sizeof *hw), *minv = ts_malloc(l + 1, sizeof *minv);
    uint8_t *done = ts_malloc(l + 1, 1);
    tsched_status st = TSCHED_OK;
    if (!eu || !ek || !ecol || !copy_sp || !at || !cost || !col_of || !pp || !way || !hu || !hw || !minv || !done) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* edges: spine jm's w circuits, in ascending k, l per copy */
    uint32_t ne = 0, nc = 0;
    for (uint32_t jm = 0; jm < ns; jm++) {
        uint32_t first = ne;
        for (uint32_t k = 0; k < U; k++)
            for (uint32_t r = 0; r < p->wsol[jm * U + k]; r++) {
                if (ne == E) {
                    st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: the master has more than %u circuits", E);
                    goto out;
                }
                eu[ne] = nc + (ne - first) / l;
                ek[ne++] = s + k;
            }
        if (ne - first != l * p->ysol[jm]) {
            st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: spine %u has %u circuits in the master, not %u", p->sv[jm],
                          ne - first, l * p->ysol[jm]);
            goto out;
        }
        for (uint32_t y = 0; y < p->ysol[jm]; y++)
            copy_sp[nc++] = jm;
    }
    for (size_t i = 0; i < (size_t)nv * l; i++)
        at[i] = -1;
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t a = eu[e], b = ek[e], ca = 0, cb = 0;
        while (at[a * l + ca] >= 0)
            ca++; /* exists: degree(a) <= l and e is not yet coloured */
        while (at[b * l + cb] >= 0)
            cb++;
        if (ca >= l || cb >= l) {
            st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: a vertex of the circuit graph has degree above %u", l);
            goto out;
        }
        if (at[b * l + ca] >= 0) {
            /* swap colours ca/cb on the path from b that starts with ca; it cannot reach a
             * (bipartite: it would end there on colour cb, which is free at a... or ca) */
            uint32_t x = b, c1 = ca, c2 = cb;
            int32_t f = at[x * l + c1];
            /* collect the path, then recolour */
            uint32_t len = 0;
            while (f >= 0) {
                ecol[len++] = (uint32_t)f; /* ecol as scratch for path edges (uncoloured ones untouched) */
                uint32_t y = eu[f] == x ? ek[f] : eu[f];
                x = y;
                uint32_t t = c1;
                c1 = c2;
                c2 = t;
                f = at[x * l + c1];
            }
            /* recolour: first clear, then set swapped */
            uint32_t *pe = ecol;
            for (uint32_t i = 0; i < len; i++) {
                uint32_t g = pe[i], col = (i % 2 == 0) ? ca : cb;
                at[eu[g] * l + col] = -1;
                at[ek[g] * l + col] = -1;
            }
            for (uint32_t i = 0; i < len; i++) {
                uint32_t g = pe[i], col = (i % 2 == 0) ? cb : ca;
                at[eu[g] * l + col] = (int32_t)g;
                at[ek[g] * l + col] = (int32_t)g;
            }
        }
        at[a * l + ca] = (int32_t)e;
        at[b * l + ca] = (int32_t)e;
    }
    /* colour of every edge */
    for (uint32_t x = 0; x < s; x++)
        for (uint32_t c = 0; c < l; c++) {
            int32_t e = at[x * l + c];
            if (e < 0) {
                st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: colour %u misses a virtual spine", c);
                goto out;
            }
            ecol[e] = c;
        }
    /* colours to leaves, fewest rewired */
    for (uint32_t c = 0; c < l; c++)
        for (uint32_t i = 0; i < l; i++)
            cost[(size_t)c * l + i] = 0;
    for (uint32_t e = 0; e < ne; e++)
        for (uint32_t i = 0; i < l; i++)
            cost[(size_t)ecol[e] * l + i] += !vc_ocs_on_spine(v, p->lv[i], ek[e] - s, p->sv[copy_sp[eu[e]]]);
    hungarian(l, cost, col_of, hu, hw, pp, way, minv, done);
    for (uint32_t i = 0; i < l; i++)
        memset(p->zsol + ((size_t)p->lv[i] * ns) * U, 0, (size_t)ns * U);
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t n = p->lv[col_of[ecol[e]]];
        p->zsol[((size_t)n * ns + copy_sp[eu[e]]) * U + ek[e] - s] = 1;
    }
    *found = 1;
out:
    free(eu);
    free(ek);
    free(ecol);
    free(copy_sp);
    free(at);
    free(cost);
    free(col_of);
    free(pp);
    free(way);
    free(hu);
    free(hw);
    free(minv);
    free(done);
    return st;
}

tsched_status vc_ocs_assign(const tsched_vclos *v, vc_ocs_ilp *p, int *found, int *proven)
{
    uint32_t U = v->ocs->U, ns = p->ns, nl = p->nl, V = ns + U;
    *found = *proven = 0;
    asg a = {.v = v, .ns = ns, .U = U, .sv = p->sv};
    a.dem = ts_malloc(ns + 1, sizeof *a.dem);
    a.rem = ts_malloc((size_t)ns * U + 1, sizeof *a.rem);
    a.ok = ts_malloc(U, 1);
    a.match = ts_malloc(U, sizeof *a.match);
    a.used = ts_malloc(ns + 1, sizeof *a.used);
    a.dist = ts_malloc(V, sizeof *a.dist);
    a.prev = ts_malloc(V, sizeof *a.prev);
    a.queue = ts_malloc(V, sizeof *a.queue);
    a.inq = ts_malloc(V, 1);
    tsched_status st = TSCHED_OK;
    if (!a.dem || !a.rem || !a.ok || !a.match || !a.used || !a.dist || !a.prev || !a.queue || !a.inq) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < nl; i++)
        memset(p->zsol + ((size_t)p->lv[i] * ns) * U, 0, (size_t)ns * U);
    /* 1. keep a_nm circuits per (leaf, spine), then complete */
    for (uint32_t jm = 0; jm < ns; jm++)
        for (uint32_t k = 0; k < U; k++)
            a.rem[jm * U + k] = p->idle[p->sv[jm] * U + k];
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t n = p->lv[i];
        for (uint32_t jm = 0; jm < ns; jm++)
            for (uint32_t k = 0, kept = 0; k < U && kept < p->ysol[jm]; k++)
                if (vc_ocs_port_usable(v, n, k) && vc_ocs_on_spine(v, n, k, p->sv[jm])) {
                    if (!a.rem[jm * U + k]) {
                        st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: spine %u has no port left on OCS %u", p->sv[jm], k);
                        goto out;
                    }
                    a.rem[jm * U + k]--;
                    p->zsol[((size_t)n * ns + jm) * U + k] = 1;
                    kept++;
                }
    }
    int ok = 1;
    for (uint32_t i = 0; i < nl && ok; i++) {
        uint32_t n = p->lv[i];
        for (uint32_t jm = 0; jm < ns; jm++) {
            uint32_t kept = 0;
            for (uint32_t k = 0; k < U; k++)
                kept += p->zsol[((size_t)n * ns + jm) * U + k];
            a.dem[jm] = p->ysol[jm] - kept;
        }
        for (uint32_t k = 0; k < U; k++) {
            a.ok[k] = (uint8_t)vc_ocs_port_usable(v, n, k);
            for (uint32_t jm = 0; jm < ns && a.ok[k]; jm++)
                if (p->zsol[((size_t)n * ns + jm) * U + k])
                    a.ok[k] = 0;
        }
        if (!(ok = leaf_flow(&a, n, 0)))
            break;
        for (uint32_t k = 0; k < U; k++)
            if (a.match[k] >= 0) {
                a.rem[(uint32_t)a.match[k] * U + k]--;
                p->zsol[((size_t)n * ns + (uint32_t)a.match[k]) * U + k] = 1;
            }
    }
    if (ok) {
        *found = *proven = 1;
        goto out;
    }
    /* 2. sequential min-cost flow */
    for (uint32_t i = 0; i < nl; i++)
        memset(p->zsol + ((size_t)p->lv[i] * ns) * U, 0, (size_t)ns * U);
    for (uint32_t jm = 0; jm < ns; jm++) {
        a.dem[jm] = p->ysol[jm];
        for (uint32_t k = 0; k < U; k++)
            a.rem[jm * U + k] = p->idle[p->sv[jm] * U + k];
    }
    ok = 1;
    for (uint32_t i = 0; i < nl && ok; i++) {
        uint32_t n = p->lv[i];
        for (uint32_t k = 0; k < U; k++)
            a.ok[k] = (uint8_t)vc_ocs_port_usable(v, n, k);
        if (!(ok = leaf_flow(&a, n, 1)))
            break;
        for (uint32_t k = 0; k < U; k++)
            if (a.match[k] >= 0) {
                a.rem[(uint32_t)a.match[k] * U + k]--;
                p->zsol[((size_t)n * ns + (uint32_t)a.match[k]) * U + k] = 1;
            }
    }
    if (ok) {
        *found = 1;
        goto out;
    }
    /* 3. uniform ports: edge colouring */
    st = konig(v, p, found);
out:
    free(a.dem);
    free(a.rem);
    free(a.ok);
    free(a.match);
    free(a.used);
    free(a.dist);
    free(a.prev);
    free(a.queue);
    free(a.inq);
    return st;
}
