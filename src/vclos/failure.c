/* Failures (doc/vclos.md §6): `down` and `up` of a node, switch, trunk `a~b` or member
 * `a~b#k` in the handle's own state (node_down, sw_down, trunk_down, member_down; the
 * topology is never written), and what a `down` does to running jobs:
 *
 *   - evicted: the job holds a node that is no longer up (the node itself or its leaf went
 *     down); all its resources are released at once (vc_job_remove) and only its name is
 *     kept in the changes list;
 *   - repaired / degraded (mode vclos only): the job holds reserved members that are no
 *     longer up (a member, a trunk or a spine went down). Each virtual spine v that lost a
 *     member is handled in turn, v ascending: the members of v that are still up are set
 *     free for the moment and every lost one is dropped for good; v moves to the spine with
 *     the least RPN (free members over all of its trunks, counted at that moment), ties to the
 *     lowest index, among the spines that have a free member towards every leaf of the job;
 *     on each leaf the job takes the lowest-index free member of that trunk (§2's rule; one
 *     member per (leaf, virtual spine), the job's own members being reserved are never
 *     free). Ranks keep their local indices: only sp(v) and the members of v change (so sp
 *     is no longer sorted after a repair). When no spine qualifies, v keeps its up members
 *     on its old spine, its lost members become VC_NONE (routes through them: none) and the
 *     job is degraded (j->degraded = 1 while any of its links is VC_NONE).
 *     A job that lost members on several virtual spines is `degraded` when any of them could
 *     not be repaired, `repaired` otherwise. Virtual spines lost by an earlier `down` are
 *     not retried.
 *
 * Jobs are handled in allocation order, so an earlier job has the first choice of free
 * members; the changes list is in the same order. Free mode reserves nothing: a `down`
 * only evicts (its routing avoids down members by itself, free_route.c).
 *
 * OCS mode (v->ocs != NULL): node and leaf losses evict as above. A job whose circuits end
 * on a spine that went down is reported `degraded` and those circuits' ports are dropped
 * (VC_NONE, port no longer held); there is no repair onto another spine in version 1 (that
 * would need re-pointing circuits through the OCS layer). Members and trunks do not carry
 * circuits, so their `down` changes only the state.
 *
 * `up` touches no job and clears the changes list of the previous `down`. A `down` is
 * all-or-nothing: the only allocations (change list, name copies, scratch) happen before any
 * job is touched, and on TSCHED_E_NOMEM the state byte is put back. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "vclos_internal.h"

enum { EL_NODE, EL_SWITCH, EL_TRUNK, EL_MEMBER };

/* Resolve `name` to an element of the handle's fabric. */
static tsched_status resolve(const tsched_vclos *v, const char *name, int *kind, uint32_t *idx)
{
    const tsched_topology *t = v->topo;
    uint32_t i;
    if ((i = tsched_topology_find_node(t, name)) != TSCHED_NONE) {
        *kind = EL_NODE;
    } else if ((i = tsched_topology_find_switch(t, name)) != TSCHED_NONE) {
        *kind = EL_SWITCH;
    } else if (strchr(name, '#')) {
        if ((i = tsched_topology_find_member(t, name)) != TSCHED_NONE)
            *kind = EL_MEMBER;
    } else {
        const char *tilde = strchr(name, '~');
        if (tilde) {
            size_t na = (size_t)(tilde - name);
            char *a = ts_malloc(na + 1, 1);
            if (!a)
                return TSCHED_E_NOMEM;
            memcpy(a, name, na);
            a[na] = '\0';
            uint32_t sa = tsched_topology_find_switch(t, a), sb = tsched_topology_find_switch(t, tilde + 1);
            free(a);
            if (sa != TSCHED_NONE && sb != TSCHED_NONE)
                i = tsched_topology_find_trunk(t, sa, sb);
            if (i != TSCHED_NONE)
                *kind = EL_TRUNK;
        }
    }
    if (i == TSCHED_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "name: \"%s\" not found", name);
    *idx = i;
    return TSCHED_OK;
}

static uint8_t *state_byte(tsched_vclos *v, int kind, uint32_t idx)
{
    switch (kind) {
    case EL_NODE:
        return &v->node_down[idx];
    case EL_SWITCH:
        return &v->sw_down[idx];
    case EL_TRUNK:
        return &v->trunk_down[idx];
    default:
        return &v->member_down[idx];
    }
}

static void clear_changes(tsched_vclos *v)
{
    for (uint32_t i = 0; i < v->nchg; i++)
        free(v->chg_names[i]);
    v->nchg = 0;
}

/* What a down does to job j (after the state byte is set): 0 nothing, else 1 + change. */
static int job_effect(const tsched_vclos *v, const vc_job *j)
{
    for (uint32_t i = 0; i < j->nnodes; i++)
        if (!vc_node_up(v, j->nodes[i]))
            return 1 + TSCHED_VCLOS_EVICTED;
    if (!j->links || v->mode == TSCHED_VCLOS_MODE_FREE)
        return 0;
    size_t n = (size_t)j->l * j->s;
    for (size_t i = 0; i < n; i++) {
        uint32_t link = j->links[i];
        if (link == VC_NONE)
            continue;
        if (!v->ocs) {
            if (!vc_member_up(v, link))
                return 1 + TSCHED_VCLOS_REPAIRED; /* repaired or degraded: decided later */
        } else if (link >= v->nmembers) {
            uint32_t spine, leaf, ocs;
            int rewired;
            vc_ocs_port_peer(v, link, &spine, &leaf, &ocs, &rewired);
            if (spine != VC_NONE && v->sw_down[v->spine_sw[spine]])
                return 1 + TSCHED_VCLOS_DEGRADED;
        }
    }
    return 0;
}

/* RPN(m): free members over all trunks of spine m. */
static uint32_t rpn(const tsched_vclos *v, uint32_t spine)
{
    uint32_t n = 0;
    for (uint32_t leaf = 0; leaf < v->L; leaf++)
        n += vc_pair_free(v, leaf, spine);
    return n;
}

/* Repair virtual spine `vs` of job j (mode vclos); `pick` holds j->l entries. Returns 1 when
 * repaired, 0 when degraded. */
static int repair_vspine(tsched_vclos *v, vc_job *j, uint32_t vs, uint32_t *pick)
{
    /* drop the lost members for good, free the up ones for the moment */
    for (uint32_t i = 0; i < j->l; i++) {
        uint32_t *link = &j->links[(size_t)i * j->s + vs];
        if (*link == VC_NONE)
            continue;
        if (v->link_owner[*link] == j->seq)
            v->link_owner[*link] = 0;
        if (!vc_member_up(v, *link))
            *link = VC_NONE;
    }
    uint32_t best = VC_NONE, best_rpn = 0;
    for (uint32_t m = 0; m < v->S; m++) {
        uint32_t i = 0;
        while (i < j->l && vc_pair_free(v, j->leaves[i], m) > 0)
            i++;
        if (i < j->l)
            continue;
        uint32_t r = rpn(v, m);
        if (best == VC_NONE || r < best_rpn) {
            best = m;
            best_rpn = r;
        }
    }
    if (best == VC_NONE) {
        for (uint32_t i = 0; i < j->l; i++) {
            uint32_t link = j->links[(size_t)i * j->s + vs];
            if (link != VC_NONE)
                v->link_owner[link] = j->seq;
        }
        return 0;
    }
    for (uint32_t i = 0; i < j->l; i++)
        pick[i] = vc_pair_pick(v, j->leaves[i], best, NULL, 0);
    for (uint32_t i = 0; i < j->l; i++) {
        j->links[(size_t)i * j->s + vs] = pick[i];
        v->link_owner[pick[i]] = j->seq;
    }
    j->sp[vs] = best;
    return 1;
}

/* Repair every virtual spine of j that lost a member; returns the change. */
static tsched_vclos_change repair_job(tsched_vclos *v, vc_job *j, uint32_t *pick)
{
    int all = 1;
    for (uint32_t vs = 0; vs < j->s; vs++) {
        int lost = 0;
        for (uint32_t i = 0; i < j->l && !lost; i++) {
            uint32_t link = j->links[(size_t)i * j->s + vs];
            lost = link != VC_NONE && !vc_member_up(v, link);
        }
        if (lost && !repair_vspine(v, j, vs, pick))
            all = 0;
    }
    return all ? TSCHED_VCLOS_REPAIRED : TSCHED_VCLOS_DEGRADED;
}

/* OCS mode: drop the ports whose circuit ends on a down spine. */
static void degrade_ocs_job(tsched_vclos *v, vc_job *j)
{
    size_t n = (size_t)j->l * j->s;
    for (size_t i = 0; i < n; i++) {
        uint32_t link = j->links[i];
        if (link == VC_NONE || link < v->nmembers)
            continue;
        uint32_t spine, leaf, ocs;
        int rewired;
        vc_ocs_port_peer(v, link, &spine, &leaf, &ocs, &rewired);
        if (spine != VC_NONE && v->sw_down[v->spine_sw[spine]]) {
            if (v->link_owner[link] == j->seq)
                v->link_owner[link] = 0;
            j->links[i] = VC_NONE;
        }
    }
}

static int has_lost_link(const vc_job *j)
{
    size_t n = j->links ? (size_t)j->l * j->s : 0;
    for (size_t i = 0; i < n; i++)
        if (j->links[i] == VC_NONE)
            return 1;
    return 0;
}

static tsched_status apply_down(tsched_vclos *v, uint8_t *byte)
{
    uint8_t old = *byte;
    *byte = 1;
    uint32_t naff = 0, maxl = 1;
    int *eff = ts_calloc(v->njobs ? v->njobs : 1, sizeof *eff);
    char **names = ts_calloc(v->njobs ? v->njobs : 1, sizeof *names);
    uint32_t *pick = NULL;
    tsched_status st = (eff && names) ? TSCHED_OK : TSCHED_E_NOMEM;
    for (uint32_t i = 0; !st && i < v->njobs; i++) {
        if (!(eff[i] = job_effect(v, v->jobs[i])))
            continue;
        if (!(names[naff++] = ts_strdup(v->jobs[i]->name)))
            st = TSCHED_E_NOMEM;
        if (v->jobs[i]->l > maxl)
            maxl = v->jobs[i]->l;
    }
    if (!st && !(pick = ts_malloc(maxl, sizeof *pick)))
        st = TSCHED_E_NOMEM;
    if (!st && naff > v->chg_cap) {
        size_t cap = v->chg_cap, cap2 = v->chg_cap;
        if (TS_GROW(v->chg_names, cap, naff) || TS_GROW(v->chg_what, cap2, naff))
            st = TSCHED_E_NOMEM;
        else
            v->chg_cap = cap < cap2 ? cap : cap2;
    }
    if (st) {
        *byte = old;
        for (uint32_t i = 0; names && i < naff; i++)
            free(names[i]);
        free(names);
        free(eff);
        free(pick);
        return st;
    }
    clear_changes(v);
    /* jobs in allocation order; an eviction shifts the later slots down by one */
    uint32_t n0 = v->njobs, slot = 0, a = 0;
    for (uint32_t i = 0; i < n0; i++) {
        if (!eff[i]) {
            slot++;
            continue;
        }
        vc_job *j = v->jobs[slot];
        tsched_vclos_change what = (tsched_vclos_change)(eff[i] - 1);
        if (what == TSCHED_VCLOS_EVICTED) {
            vc_job_remove(v, slot);
        } else {
            if (v->ocs)
                degrade_ocs_job(v, j);
            else
                what = repair_job(v, j, pick);
            j->degraded = has_lost_link(j);
            slot++;
        }
        v->chg_names[a] = names[a];
        v->chg_what[a] = what;
        v->nchg = ++a;
    }
    free(names);
    free(eff);
    free(pick);
    return TSCHED_OK;
}

tsched_status tsched_vclos_set_up(tsched_vclos *v, const char *name, int up)
{
    if (!v || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_up: %s is NULL", v ? "name" : "v");
    int kind = 0;
    uint32_t idx = 0;
    tsched_status st = resolve(v, name, &kind, &idx);
    if (st)
        return st;
    uint8_t *byte = state_byte(v, kind, idx);
    if (up) {
        *byte = 0;
        clear_changes(v);
        return TSCHED_OK;
    }
    return apply_down(v, byte);
}

tsched_status tsched_vclos_changes(const char **jobs, tsched_vclos_change *what, size_t cap, size_t *count,
                                   const tsched_vclos *v)
{
    if (!count || !v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_changes: %s is NULL", count ? "v" : "count");
    if (cap && (!jobs || !what))
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_changes: %s is NULL", jobs ? "what" : "jobs");
    *count = v->nchg;
    if (v->nchg > cap)
        return ts_error(TSCHED_E_BUFFER, "tsched_vclos_changes: %u entries do not fit in cap %zu", v->nchg, cap);
    for (uint32_t i = 0; i < v->nchg; i++) {
        jobs[i] = v->chg_names[i];
        what[i] = v->chg_what[i];
    }
    return TSCHED_OK;
}
