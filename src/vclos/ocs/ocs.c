/* OCS-vClos (doc/vclos.md §4): the layer model, circuits, re-pointing and port names.
 * Stages 2a, 2b and 3 are in ocs_stage.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "ocs_internal.h"

tsched_status vc_ocs_new(tsched_vclos *v)
{
    uint32_t K = 0, first = VC_NONE;
    for (uint32_t p = 0; p < v->L * v->S; p++) {
        const char *a = tsched_topology_switch_name(v->topo, v->leaf_sw[p / v->S]);
        const char *b = tsched_topology_switch_name(v->topo, v->spine_sw[p % v->S]);
        if (v->pair_k[p] == 0)
            return ts_error(TSCHED_E_INVALID, "ocs-vclos needs a uniform leaf-spine (%s~%s has no link)", a, b);
        if (first == VC_NONE) {
            first = p;
            K = v->pair_k[p];
        } else if (v->pair_k[p] != K)
            return ts_error(TSCHED_E_INVALID, "ocs-vclos needs a uniform leaf-spine (%s~%s has %u links, %s~%s has %u)",
                            a, b, v->pair_k[p], tsched_topology_switch_name(v->topo, v->leaf_sw[first / v->S]),
                            tsched_topology_switch_name(v->topo, v->spine_sw[first % v->S]), K);
    }
    if (v->L % v->S)
        return ts_error(TSCHED_E_INVALID, "ocs-vclos needs the spines to divide the leaves (%u leaves, %u spines)",
                        v->L, v->S);
    uint64_t U = (uint64_t)v->S * K, ports = (uint64_t)v->L * U;
    if (ports + v->nmembers >= VC_NONE)
        return ts_error(TSCHED_E_INVALID, "ocs-vclos: %llu OCS ports are too many",
                        (unsigned long long)ports);
    vc_ocs *o = ts_calloc(1, sizeof *o);
    if (!o)
        return TSCHED_E_NOMEM;
    v->ocs = o;
    o->U = (uint32_t)U;
    o->G = v->L / v->S;
    o->K = K;
    if (!(o->kind = ts_malloc(ports, 1)) || !(o->peer = ts_malloc(ports, sizeof *o->peer)) ||
        !(o->cnt = ts_malloc((size_t)v->S * o->U, sizeof *o->cnt)) || !(o->mark = ts_calloc(ports, 1)))
        return TSCHED_E_NOMEM;
    /* initial wiring = the electrical fabric: on OCS k leaf n meets spine (n + k) mod S */
    for (uint32_t n = 0; n < v->L; n++)
        for (uint32_t k = 0; k < o->U; k++) {
            o->kind[n * o->U + k] = VC_PEER_SPINE;
            o->peer[n * o->U + k] = (n + k) % v->S;
        }
    for (size_t i = 0; i < (size_t)v->S * o->U; i++)
        o->cnt[i] = o->G;
    v->nlinks = v->nmembers + (uint32_t)ports;
    return TSCHED_OK;
}

void vc_ocs_free(vc_ocs *o)
{
    if (!o)
        return;
    free(o->kind);
    free(o->peer);
    free(o->cnt);
    free(o->mark);
    free(o);
}

int vc_ocs_port_usable(const tsched_vclos *v, uint32_t n, uint32_t k)
{
    return !v->sw_down[v->leaf_sw[n]] && v->link_owner[vc_ocs_port(v, n, k)] == 0;
}

int vc_ocs_on_spine(const tsched_vclos *v, uint32_t n, uint32_t k, uint32_t m)
{
    size_t i = (size_t)n * v->ocs->U + k;
    return v->ocs->kind[i] == VC_PEER_SPINE && v->ocs->peer[i] == m;
}

void vc_ocs_spine_idle(const tsched_vclos *v, uint32_t *idle)
{
    const vc_ocs *o = v->ocs;
    for (uint32_t m = 0; m < v->S; m++)
        for (uint32_t k = 0; k < o->U; k++)
            idle[m * o->U + k] = v->sw_down[v->spine_sw[m]] ? 0 : o->G;
    for (uint32_t n = 0; n < v->L; n++)
        for (uint32_t k = 0; k < o->U; k++) {
            size_t i = (size_t)n * o->U + k;
            if (v->link_owner[v->nmembers + i] && o->kind[i] == VC_PEER_SPINE) {
                uint32_t *c = &idle[o->peer[i] * o->U + k];
                if (*c)
                    (*c)--;
            }
        }
}

/* Tear down the circuit of (unreserved) port i = n*U + k. */
static void detach(vc_ocs *o, size_t i)
{
    uint32_t k = (uint32_t)(i % o->U);
    if (o->kind[i] == VC_PEER_SPINE)
        o->cnt[o->peer[i] * o->U + k]--;
    else if (o->kind[i] == VC_PEER_LEAF)
        o->kind[(size_t)o->peer[i] * o->U + k] = VC_PEER_NONE;
    o->kind[i] = VC_PEER_NONE;
}

tsched_status vc_ocs_commit(tsched_vclos *v, const vc_job *j)
{
    vc_ocs *o = v->ocs;
    uint32_t U = o->U, ns = j->l * j->s;
    /* check first: nothing changes on an error */
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t p = j->links[i];
        if (p < v->nmembers || p >= v->nlinks || v->link_owner[p])
            return ts_error(TSCHED_E_INTERNAL, "ocs-vclos: port %u is not a free OCS port", p);
    }
    if (j->ocs_stage == 20) {
        /* 2a: rank j of both leaves uses the circuit joining their ports on one OCS */
        for (uint32_t vs = 0; vs < j->s; vs++) {
            size_t a = j->links[vs] - v->nmembers, b = j->links[j->s + vs] - v->nmembers;
            if (o->kind[a] == VC_PEER_LEAF && o->peer[a] == b / U)
                continue;
            detach(o, a);
            detach(o, b);
            o->kind[a] = o->kind[b] = VC_PEER_LEAF;
            o->peer[a] = (uint32_t)(b / U);
            o->peer[b] = (uint32_t)(a / U);
        }
        return TSCHED_OK;
    }
    /* enough idle spine ports on every (spine, OCS) the job asks for */
    uint32_t *need = ts_calloc((size_t)v->S * U, sizeof *need), *idle = ts_malloc((size_t)v->S * U, sizeof *idle);
    if (!need || !idle) {
        free(need);
        free(idle);
        return TSCHED_E_NOMEM;
    }
    vc_ocs_spine_idle(v, idle);
    tsched_status st = TSCHED_OK;
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t p = j->links[i] - v->nmembers, m = j->sp[i % j->s];
        if (++need[m * U + p % U] > idle[m * U + p % U])
            st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: spine %u has too few idle ports on OCS %u", m, p % U);
    }
    free(need);
    free(idle);
    if (st)
        return st;
    /* the job's ports already on their spine stay; the others are detached, then joined to
     * an unconnected port of the spine or, when its G ports all carry circuits, to the port
     * of the lowest-index leaf whose circuit there is neither reserved nor the job's */
    for (uint32_t i = 0; i < ns; i++)
        o->mark[j->links[i] - v->nmembers] = 1;
    for (uint32_t i = 0; i < ns; i++) {
        size_t p = j->links[i] - v->nmembers;
        if (!vc_ocs_on_spine(v, (uint32_t)(p / U), (uint32_t)(p % U), j->sp[i % j->s]))
            detach(o, p);
    }
    for (uint32_t i = 0; i < ns && !st; i++) {
        size_t p = j->links[i] - v->nmembers;
        uint32_t k = (uint32_t)(p % U), m = j->sp[i % j->s];
        if (o->kind[p] == VC_PEER_SPINE)
            continue;
        if (o->cnt[m * U + k] >= o->G) {
            uint32_t n2 = 0;
            for (; n2 < v->L; n2++) {
                size_t q = (size_t)n2 * U + k;
                if (!o->mark[q] && !v->link_owner[v->nmembers + q] && vc_ocs_on_spine(v, n2, k, m))
                    break;
            }
            if (n2 == v->L) {
                st = ts_error(TSCHED_E_INTERNAL, "ocs-vclos: no spine port to re-point on OCS %u", k);
                break;
            }
            detach(o, (size_t)n2 * U + k);
        }
        o->kind[p] = VC_PEER_SPINE;
        o->peer[p] = m;
        o->cnt[m * U + k]++;
    }
    for (uint32_t i = 0; i < ns; i++)
        o->mark[j->links[i] - v->nmembers] = 0;
    return st;
}

tsched_status vc_ocs_link_name(char **out, const tsched_vclos *v, uint32_t link)
{
    *out = NULL;
    if (!v->ocs || link < v->nmembers || link >= v->nlinks)
        return ts_error(TSCHED_E_RANGE, "link: %u is not an OCS port", link);
    const vc_ocs *o = v->ocs;
    size_t i = link - v->nmembers;
    uint32_t n = (uint32_t)(i / o->U), k = (uint32_t)(i % o->U);
    const char *a = tsched_topology_switch_name(v->topo, v->leaf_sw[n]);
    const char *b = o->kind[i] == VC_PEER_SPINE  ? tsched_topology_switch_name(v->topo, v->spine_sw[o->peer[i]])
                    : o->kind[i] == VC_PEER_LEAF ? tsched_topology_switch_name(v->topo, v->leaf_sw[o->peer[i]])
                                                 : NULL;
    size_t len = strlen(a) + (b ? strlen(b) : 0) + 24;
    char *s = ts_malloc(len, 1);
    if (!s)
        return TSCHED_E_NOMEM;
    if (b)
        snprintf(s, len, "%s~%s@ocs%u", a, b, k);
    else
        snprintf(s, len, "%s@ocs%u", a, k);
    *out = s;
    return TSCHED_OK;
}

void vc_ocs_port_peer(const tsched_vclos *v, uint32_t link, uint32_t *spine, uint32_t *leaf, uint32_t *ocs,
                      int *rewired)
{
    *spine = *leaf = *ocs = VC_NONE;
    *rewired = 0;
    if (!v->ocs || link < v->nmembers || link >= v->nlinks)
        return;
    const vc_ocs *o = v->ocs;
    size_t i = link - v->nmembers;
    uint32_t n = (uint32_t)(i / o->U), k = (uint32_t)(i % o->U);
    *ocs = k;
    if (o->kind[i] == VC_PEER_SPINE)
        *spine = o->peer[i];
    else if (o->kind[i] == VC_PEER_LEAF)
        *leaf = o->peer[i];
    /* rewired: the circuit differs from the initial wiring (spine (n + k) mod S) */
    *rewired = !(o->kind[i] == VC_PEER_SPINE && o->peer[i] == (n + k) % v->S);
}
