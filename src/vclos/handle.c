/* The vclos handle: creation from a two-tier fabric, setters, lookups, ranks, routes and
 * link names (doc/vclos.md §1, §7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/structsize.h"
#include "../topology/topology_paths.h"
#include "vclos_internal.h"

/* ---- state queries ---- */

int vc_node_up(const tsched_vclos *v, uint32_t node)
{
    return !v->node_down[node] && !v->sw_down[v->leaf_sw[v->node_leaf[node]]];
}

int vc_node_idle(const tsched_vclos *v, uint32_t node)
{
    return vc_node_up(v, node) && v->node_free[node] == v->T && v->node_owner[node] == 0;
}

uint32_t vc_rsn(const tsched_vclos *v, uint32_t leaf)
{
    uint32_t n = 0;
    for (uint32_t i = v->leaf_first[leaf]; i < v->leaf_first[leaf + 1]; i++)
        n += (uint32_t)vc_node_idle(v, v->leaf_nodes[i]);
    return n;
}

int vc_member_up(const tsched_vclos *v, uint32_t member)
{
    uint32_t pair = v->member_pair[member];
    uint32_t leaf = pair / v->S, spine = pair % v->S;
    return !v->member_down[member] && !v->trunk_down[v->pair_trunk[pair]] && !v->sw_down[v->leaf_sw[leaf]] &&
           !v->sw_down[v->spine_sw[spine]];
}

int vc_member_free(const tsched_vclos *v, uint32_t member)
{
    return vc_member_up(v, member) && (v->mode == TSCHED_VCLOS_MODE_FREE || v->link_owner[member] == 0);
}

uint32_t vc_pair_free(const tsched_vclos *v, uint32_t leaf, uint32_t spine)
{
    uint32_t pair = leaf * v->S + spine, n = 0;
    for (uint32_t k = 0; k < v->pair_k[pair]; k++)
        n += (uint32_t)vc_member_free(v, v->pair_first[pair] + k);
    return n;
}

uint32_t vc_pair_pick(const tsched_vclos *v, uint32_t leaf, uint32_t spine, const uint32_t *taken, uint32_t ntaken)
{
    uint32_t pair = leaf * v->S + spine;
    for (uint32_t k = 0; k < v->pair_k[pair]; k++) {
        uint32_t m = v->pair_first[pair] + k;
        if (!vc_member_free(v, m))
            continue;
        int used = 0;
        for (uint32_t i = 0; i < ntaken && !used; i++)
            used = taken[i] == m;
        if (!used)
            return m;
    }
    return VC_NONE;
}

uint32_t vc_job_leaf_pos(const vc_job *j, uint32_t leaf)
{
    for (uint32_t i = 0; i < j->l; i++)
        if (j->leaves[i] == leaf)
            return i;
    return VC_NONE;
}

uint32_t vc_max_leaf_uplinks(const tsched_vclos *v)
{
    uint32_t best = 0;
    for (uint32_t n = 0; n < v->L; n++) {
        uint32_t sum = 0;
        for (uint32_t m = 0; m < v->S; m++)
            sum += v->pair_k[n * v->S + m];
        if (sum > best)
            best = sum;
    }
    return best;
}

static int is_pow2(uint32_t x);

uint32_t vc_shapes(const tsched_vclos *v, uint32_t Q, uint32_t max_uplinks, uint32_t *l_out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t l = 2; l <= Q && l <= v->L && n < cap; l++) {
        if (Q % l)
            continue;
        uint32_t q = Q / l;
        if (q > v->maxp || (uint64_t)q * v->E > max_uplinks)
            continue;
        if (v->shapes == TSCHED_VCLOS_SHAPES_POW2 && (!is_pow2(l) || !is_pow2(q)))
            continue;
        l_out[n++] = l;
    }
    return n;
}

int vc_past(double deadline) { return deadline > 0 && ts_monotonic_s() > deadline; }

/* ---- patterns ---- */

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

uint32_t tsched_vclos_pattern_steps(tsched_vclos_pattern pattern, uint32_t ranks)
{
    if (ranks < 2)
        return 0;
    switch (pattern) {
    case TSCHED_VCLOS_RING:
        return 1;
    case TSCHED_VCLOS_ALLTOALL:
        return ranks - 1;
    case TSCHED_VCLOS_HD: {
        if (!is_pow2(ranks))
            return 0;
        uint32_t t = 0;
        while ((UINT32_C(1) << t) < ranks)
            t++;
        return t;
    }
    }
    return 0;
}

uint32_t vc_pattern_dst(tsched_vclos_pattern pattern, uint32_t step, uint32_t R, uint32_t r)
{
    uint32_t steps = tsched_vclos_pattern_steps(pattern, R);
    if (!steps || r >= R)
        return VC_NONE;
    step %= steps;
    switch (pattern) {
    case TSCHED_VCLOS_RING:
        return (r + 1) % R;
    case TSCHED_VCLOS_ALLTOALL:
        return (uint32_t)(((uint64_t)r + step + 1) % R);
    case TSCHED_VCLOS_HD:
        return r ^ (UINT32_C(1) << step);
    }
    return VC_NONE;
}

/* ---- jobs ---- */

uint32_t vc_find_job(const tsched_vclos *v, const char *name)
{
    for (uint32_t i = 0; i < v->njobs; i++)
        if (!strcmp(v->jobs[i]->name, name))
            return i;
    return VC_NONE;
}

void vc_job_destroy(vc_job *j)
{
    if (!j)
        return;
    free(j->name);
    free(j->nodes);
    free(j->leaves);
    free(j->sp);
    free(j->links);
    free(j);
}

tsched_status vc_job_add(tsched_vclos *v, vc_job *j)
{
    if (TS_GROW(v->jobs, v->jobs_cap, (size_t)v->njobs + 1))
        return TSCHED_E_NOMEM;
    j->seq = ++v->next_seq;
    v->jobs[v->njobs++] = j;
    for (uint32_t i = 0; i < j->nnodes; i++) {
        v->node_free[j->nodes[i]] -= j->gpn;
        if (j->stage > 0)
            v->node_owner[j->nodes[i]] = j->seq;
    }
    if (j->links && v->mode != TSCHED_VCLOS_MODE_FREE)
        for (uint32_t i = 0; i < j->l * j->s; i++)
            if (j->links[i] != VC_NONE)
                v->link_owner[j->links[i]] = j->seq;
    return TSCHED_OK;
}

void vc_job_remove(tsched_vclos *v, uint32_t slot)
{
    vc_job *j = v->jobs[slot];
    for (uint32_t i = 0; i < j->nnodes; i++) {
        v->node_free[j->nodes[i]] += j->gpn;
        if (v->node_owner[j->nodes[i]] == j->seq)
            v->node_owner[j->nodes[i]] = 0;
    }
    if (j->links)
        for (uint32_t i = 0; i < j->l * j->s; i++)
            if (j->links[i] != VC_NONE && v->link_owner[j->links[i]] == j->seq)
                v->link_owner[j->links[i]] = 0;
    memmove(v->jobs + slot, v->jobs + slot + 1, (size_t)(v->njobs - slot - 1) * sizeof *v->jobs);
    v->njobs--;
    vc_job_destroy(j);
}

/* ---- creation ---- */

void tsched_vclos_free(tsched_vclos *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->njobs; i++)
        vc_job_destroy(v->jobs[i]);
    free(v->jobs);
    for (uint32_t i = 0; i < v->nchg; i++)
        free(v->chg_names[i]);
    free(v->chg_names);
    free(v->chg_what);
    vc_ocs_free(v->ocs);
    free(v->leaf_sw);
    free(v->spine_sw);
    free(v->sw_local);
    free(v->node_leaf);
    free(v->leaf_first);
    free(v->leaf_nodes);
    free(v->pair_trunk);
    free(v->pair_k);
    free(v->pair_first);
    free(v->member_pair);
    free(v->node_down);
    free(v->sw_down);
    free(v->trunk_down);
    free(v->member_down);
    free(v->node_free);
    free(v->node_owner);
    free(v->link_owner);
    free(v);
}

/* Check the fabric is in version 1's scope (doc/vclos.md §1). */
static tsched_status check_fabric(const tsched_topology *t)
{
    uint32_t nsw = tsched_topology_num_switches(t), nn = tsched_topology_num_nodes(t);
    for (uint32_t s = 0; s < nsw; s++)
        if (tsched_topology_switch_tier(t, s) > 1)
            return ts_error(TSCHED_E_INVALID, "vclos needs a two-tier fabric (%s is tier %d)",
                            tsched_topology_switch_name(t, s), tsched_topology_switch_tier(t, s));
    if (!tsched_topology_num_tier(t, 0) || !tsched_topology_num_tier(t, 1))
        return ts_error(TSCHED_E_INVALID, "vclos needs a two-tier fabric with leaves and spines (%u leaves, %u spines)",
                        tsched_topology_num_tier(t, 0), tsched_topology_num_tier(t, 1));
    if (!nn)
        return ts_error(TSCHED_E_INVALID, "vclos needs a fabric with nodes (it has none)");
    for (uint32_t n = 0; n < nn; n++) {
        if (tsched_topology_node_gpus(t, n) != tsched_topology_node_gpus(t, 0))
            return ts_error(TSCHED_E_INVALID, "vclos needs nodes with the same gpus (%s has %u, %s has %u)",
                            tsched_topology_node_name(t, n), tsched_topology_node_gpus(t, n),
                            tsched_topology_node_name(t, 0), tsched_topology_node_gpus(t, 0));
        if (tsched_topology_node_nics(t, n) != tsched_topology_node_nics(t, 0))
            return ts_error(TSCHED_E_INVALID, "vclos needs nodes with the same nics (%s has %u, %s has %u)",
                            tsched_topology_node_name(t, n), tsched_topology_node_nics(t, n),
                            tsched_topology_node_name(t, 0), tsched_topology_node_nics(t, 0));
        for (uint32_t e = 0; e < tsched_topology_node_nics(t, n); e++)
            if (tsched_topology_node_nic_leaf(t, n, e) != tsched_topology_node_leaf(t, n))
                return ts_error(TSCHED_E_INVALID, "vclos does not support rails (%s has NICs on several leaves)",
                                tsched_topology_node_name(t, n));
    }
    return TSCHED_OK;
}

static tsched_status build(tsched_vclos *v)
{
    const tsched_topology *t = v->topo;
    ts_topo_paths tv; /* the own states of nodes and trunks (the public calls fold in more) */
    ts_topology_paths(&tv, t);
    v->L = tsched_topology_num_tier(t, 0);
    v->S = tsched_topology_num_tier(t, 1);
    v->nnodes = tsched_topology_num_nodes(t);
    v->nsw = tsched_topology_num_switches(t);
    v->ntrunks = tsched_topology_num_trunks(t);
    v->nmembers = tsched_topology_num_members(t);
    v->nlinks = v->nmembers;
    v->T = tsched_topology_node_gpus(t, 0);
    v->E = tsched_topology_node_nics(t, 0);
    size_t pairs = (size_t)v->L * v->S;
    if (!(v->leaf_sw = ts_malloc(v->L, sizeof *v->leaf_sw)) || !(v->spine_sw = ts_malloc(v->S, sizeof *v->spine_sw)) ||
        !(v->sw_local = ts_malloc(v->nsw, sizeof *v->sw_local)) ||
        !(v->node_leaf = ts_malloc(v->nnodes, sizeof *v->node_leaf)) ||
        !(v->leaf_first = ts_calloc((size_t)v->L + 1, sizeof *v->leaf_first)) ||
        !(v->leaf_nodes = ts_malloc(v->nnodes, sizeof *v->leaf_nodes)) ||
        !(v->pair_trunk = ts_malloc(pairs, sizeof *v->pair_trunk)) ||
        !(v->pair_k = ts_calloc(pairs, sizeof *v->pair_k)) ||
        !(v->pair_first = ts_calloc(pairs, sizeof *v->pair_first)) ||
        !(v->member_pair = ts_malloc(v->nmembers ? v->nmembers : 1, sizeof *v->member_pair)) ||
        !(v->node_down = ts_calloc(v->nnodes, 1)) || !(v->sw_down = ts_calloc(v->nsw, 1)) ||
        !(v->trunk_down = ts_calloc(v->ntrunks ? v->ntrunks : 1, 1)) ||
        !(v->member_down = ts_calloc(v->nmembers ? v->nmembers : 1, 1)) ||
        !(v->node_free = ts_malloc(v->nnodes, sizeof *v->node_free)) ||
        !(v->node_owner = ts_calloc(v->nnodes, sizeof *v->node_owner)))
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < v->L; i++) {
        v->leaf_sw[i] = tsched_topology_tier_switch(t, 0, i);
        v->sw_local[v->leaf_sw[i]] = i;
    }
    for (uint32_t i = 0; i < v->S; i++) {
        v->spine_sw[i] = tsched_topology_tier_switch(t, 1, i);
        v->sw_local[v->spine_sw[i]] = i;
    }
    for (uint32_t s = 0; s < v->nsw; s++)
        v->sw_down[s] = !tsched_topology_switch_is_up(t, s);
    /* nodes per leaf, ascending node index (a counting sort keeps the order) */
    for (uint32_t n = 0; n < v->nnodes; n++) {
        v->node_leaf[n] = v->sw_local[tsched_topology_node_leaf(t, n)];
        v->leaf_first[v->node_leaf[n] + 1]++;
        v->node_free[n] = tsched_topology_node_free_gpus(t, n);
        /* the node's own state: node_is_up also folds in its leaf, which sw_down holds */
        v->node_down[n] = (uint8_t)!tv.node_up[n];
    }
    for (uint32_t i = 0; i < v->L; i++) {
        uint32_t c = v->leaf_first[i + 1]; /* still the count of leaf i */
        if (c > v->maxp)
            v->maxp = c;
        v->leaf_first[i + 1] += v->leaf_first[i];
    }
    {
        uint32_t *fill = ts_malloc(v->L ? v->L : 1, sizeof *fill);
        if (!fill)
            return TSCHED_E_NOMEM;
        memcpy(fill, v->leaf_first, (size_t)v->L * sizeof *fill);
        for (uint32_t n = 0; n < v->nnodes; n++)
            v->leaf_nodes[fill[v->node_leaf[n]]++] = n;
        free(fill);
    }
    for (size_t p = 0; p < pairs; p++)
        v->pair_trunk[p] = VC_NONE;
    for (uint32_t r = 0; r < v->ntrunks; r++) {
        uint32_t lo = tsched_topology_trunk_lower(t, r), hi = tsched_topology_trunk_upper(t, r);
        size_t pair = (size_t)v->sw_local[lo] * v->S + v->sw_local[hi];
        v->pair_trunk[pair] = r;
        v->pair_k[pair] = tsched_topology_trunk_links(t, r);
        v->pair_first[pair] = tsched_topology_trunk_first_member(t, r);
        v->trunk_down[r] = (uint8_t)!tv.tr_own[r];
        if (v->pair_k[pair] > v->kmax)
            v->kmax = v->pair_k[pair];
        for (uint32_t k = 0; k < v->pair_k[pair]; k++) {
            uint32_t m = v->pair_first[pair] + k;
            v->member_pair[m] = (uint32_t)pair;
            v->member_down[m] = (uint8_t)!tsched_topology_member_is_up(t, m);
        }
    }
    v->member_gbps = v->nmembers ? tsched_topology_member_gbps(t, 0) : 0;
    return TSCHED_OK;
}

tsched_status tsched_vclos_new(tsched_vclos **out, const tsched_topology *topo, tsched_vclos_mode mode)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_new: out is NULL");
    *out = NULL;
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_new: topo is NULL");
    if (!ts_topology_built(topo))
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_new: the fabric is not built");
    if ((int)mode < TSCHED_VCLOS_MODE_VCLOS || (int)mode > TSCHED_VCLOS_MODE_FREE)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_new: mode %d unknown", (int)mode);
    tsched_status st = check_fabric(topo);
    if (st)
        return st;
    tsched_vclos *v = ts_calloc(1, sizeof *v);
    if (!v)
        return TSCHED_E_NOMEM;
    v->topo = topo;
    v->topo_id = tsched_topology_id(topo);
    v->topo_gen = tsched_topology_generation(topo);
    v->mode = mode;
    v->shapes = TSCHED_VCLOS_SHAPES_ALL;
    v->time_limit_ms = 1000;
    v->routing = TSCHED_VCLOS_ROUTING_SOURCE;
    v->seed = 1;
    if ((st = build(v)) || (mode == TSCHED_VCLOS_MODE_OCS && (st = vc_ocs_new(v)))) {
        tsched_vclos_free(v);
        return st;
    }
    if (!(v->link_owner = ts_calloc(v->nlinks ? v->nlinks : 1, sizeof *v->link_owner))) {
        tsched_vclos_free(v);
        return TSCHED_E_NOMEM;
    }
    *out = v;
    return TSCHED_OK;
}

int tsched_vclos_mode_of(const tsched_vclos *v) { return v ? (int)v->mode : -1; }

tsched_status tsched_vclos_set_shapes(tsched_vclos *v, tsched_vclos_shapes shapes)
{
    if (!v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_shapes: v is NULL");
    if ((int)shapes != TSCHED_VCLOS_SHAPES_ALL && (int)shapes != TSCHED_VCLOS_SHAPES_POW2)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_shapes: shapes %d unknown", (int)shapes);
    v->shapes = shapes;
    return TSCHED_OK;
}

tsched_status tsched_vclos_set_time_limit_ms(tsched_vclos *v, uint32_t ms)
{
    if (!v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_time_limit_ms: v is NULL");
    v->time_limit_ms = ms;
    return TSCHED_OK;
}

tsched_status tsched_vclos_set_routing(tsched_vclos *v, tsched_vclos_routing routing, uint64_t seed)
{
    if (!v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_routing: v is NULL");
    if ((int)routing < TSCHED_VCLOS_ROUTING_SOURCE || (int)routing > TSCHED_VCLOS_ROUTING_BALANCED_ECMP)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_set_routing: routing %d unknown", (int)routing);
    if (v->mode != TSCHED_VCLOS_MODE_FREE)
        return ts_error(TSCHED_E_STATE, "routing: only free mode chooses links (vclos and ocs-vclos use their source routes)");
    v->routing = routing;
    v->seed = seed;
    return TSCHED_OK;
}

/* ---- queries ---- */

uint32_t tsched_vclos_num_jobs(const tsched_vclos *v) { return v ? v->njobs : 0; }

const char *tsched_vclos_job_name(const tsched_vclos *v, uint32_t i)
{
    return v && i < v->njobs ? v->jobs[i]->name : NULL;
}

static tsched_status get_job(const vc_job **out, const tsched_vclos *v, const char *job, const char *fn)
{
    if (!v || !job)
        return ts_error(TSCHED_E_INVALID, "%s: %s is NULL", fn, v ? "job" : "v");
    uint32_t slot = vc_find_job(v, job);
    if (slot == VC_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "job: \"%s\" is not running", job);
    *out = v->jobs[slot];
    return TSCHED_OK;
}

static uint32_t job_ranks(const tsched_vclos *v, const vc_job *j) { return j->stage ? j->nnodes * v->E : 0; }

static const ts_span info_spans[] = {
    TS_SPAN(tsched_vclos_jobinfo, size),     TS_SPAN(tsched_vclos_jobinfo, gpus),
    TS_SPAN(tsched_vclos_jobinfo, stage),    TS_SPAN(tsched_vclos_jobinfo, ocs_stage),
    TS_SPAN(tsched_vclos_jobinfo, nodes),    TS_SPAN(tsched_vclos_jobinfo, gpus_per_node),
    TS_SPAN(tsched_vclos_jobinfo, ranks),    TS_SPAN(tsched_vclos_jobinfo, leaves),
    TS_SPAN(tsched_vclos_jobinfo, vspines),  TS_SPAN(tsched_vclos_jobinfo, links),
    TS_SPAN(tsched_vclos_jobinfo, objective), TS_SPAN(tsched_vclos_jobinfo, optimal),
    TS_SPAN(tsched_vclos_jobinfo, degraded),
};

tsched_status tsched_vclos_job_info(tsched_vclos_jobinfo *info, const tsched_vclos *v, const char *job)
{
    const vc_job *j;
    if (!info)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_job_info: info is NULL");
    tsched_status st = ts_struct_size(info->size, info_spans, TS_NSPANS(info_spans), sizeof *info,
                                      "tsched_vclos_jobinfo");
    if (st || (st = get_job(&j, v, job, "tsched_vclos_job_info")))
        return st;
    tsched_vclos_jobinfo x;
    memset(&x, 0, sizeof x);
    x.size = sizeof x;
    x.gpus = j->gpus;
    x.stage = j->stage;
    x.ocs_stage = j->ocs_stage;
    x.nodes = j->nnodes;
    x.gpus_per_node = j->gpn;
    x.ranks = job_ranks(v, j);
    x.leaves = j->l;
    x.vspines = j->s;
    x.links = j->links ? j->l * j->s : 0;
    x.objective = j->objective;
    x.optimal = j->optimal;
    x.degraded = j->degraded;
    return ts_struct_out(info, &x, info_spans, TS_NSPANS(info_spans), sizeof x, "tsched_vclos_jobinfo");
}

static tsched_status buffer_check(size_t need, size_t cap, size_t *count, const char *what)
{
    *count = need;
    if (need > cap)
        return ts_error(TSCHED_E_BUFFER, "%s: %zu entries do not fit in cap %zu", what, need, cap);
    return TSCHED_OK;
}

tsched_status tsched_vclos_job_nodes(uint32_t *nodes, size_t cap, size_t *count, const tsched_vclos *v,
                                     const char *job)
{
    const vc_job *j;
    if (!count || (!nodes && cap))
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_job_nodes: %s is NULL", count ? "nodes" : "count");
    tsched_status st = get_job(&j, v, job, "tsched_vclos_job_nodes");
    if (st || (st = buffer_check(j->nnodes, cap, count, "tsched_vclos_job_nodes")))
        return st;
    if (j->nnodes)
        memcpy(nodes, j->nodes, (size_t)j->nnodes * sizeof *nodes);
    return TSCHED_OK;
}

tsched_status tsched_vclos_job_ranks(uint32_t *node, uint32_t *nic, uint32_t *uplink, size_t cap, size_t *count,
                                     const tsched_vclos *v, const char *job)
{
    const vc_job *j;
    if (!count)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_job_ranks: count is NULL");
    tsched_status st = get_job(&j, v, job, "tsched_vclos_job_ranks");
    uint32_t R;
    if (st || (st = buffer_check(R = job_ranks(v, j), cap, count, "tsched_vclos_job_ranks")))
        return st;
    for (uint32_t r = 0; r < R; r++) {
        if (node)
            node[r] = j->nodes[r / v->E];
        if (nic)
            nic[r] = r % v->E;
        if (uplink)
            uplink[r] = j->links && j->s ? j->links[(r / j->s) * j->s + r % j->s] : VC_NONE;
    }
    return TSCHED_OK;
}

tsched_status tsched_vclos_job_links(uint32_t *links, size_t cap, size_t *count, const tsched_vclos *v,
                                     const char *job)
{
    const vc_job *j;
    if (!count || (!links && cap))
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_job_links: %s is NULL", count ? "links" : "count");
    tsched_status st = get_job(&j, v, job, "tsched_vclos_job_links");
    size_t n;
    if (st || (st = buffer_check(n = j->links ? (size_t)j->l * j->s : 0, cap, count, "tsched_vclos_job_links")))
        return st;
    if (n)
        memcpy(links, j->links, n * sizeof *links);
    return TSCHED_OK;
}

tsched_status tsched_vclos_route(uint32_t *up_link, uint32_t *down_link, const tsched_vclos *v, const char *job,
                                 uint32_t src_rank, uint32_t dst_rank)
{
    const vc_job *j;
    if (!up_link || !down_link)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_route: %s is NULL", up_link ? "down_link" : "up_link");
    *up_link = *down_link = VC_NONE;
    tsched_status st = get_job(&j, v, job, "tsched_vclos_route");
    if (st)
        return st;
    uint32_t R = job_ranks(v, j);
    if (src_rank >= R || dst_rank >= R)
        return ts_error(TSCHED_E_RANGE, "tsched_vclos_route: rank %u is not below the job's %u ranks",
                        src_rank >= R ? src_rank : dst_rank, R);
    if (j->stage < 2 || !j->s)
        return TSCHED_OK; /* one leaf: no fabric link */
    uint32_t a = src_rank / j->s, b = dst_rank / j->s;
    if (a == b)
        return TSCHED_OK;
    if (v->mode == TSCHED_VCLOS_MODE_FREE)
        return vc_free_route(v, j, src_rank, dst_rank, up_link, down_link);
    uint32_t jj = src_rank % j->s;
    *up_link = j->links[a * j->s + jj];
    *down_link = j->links[b * j->s + jj];
    if (*up_link == VC_NONE || *down_link == VC_NONE)
        *up_link = *down_link = VC_NONE;
    return TSCHED_OK;
}

uint32_t tsched_vclos_num_links(const tsched_vclos *v) { return v ? v->nlinks : 0; }

double tsched_vclos_link_gbps(const tsched_vclos *v, uint32_t link)
{
    if (!v || link >= v->nlinks)
        return 0;
    return link < v->nmembers ? tsched_topology_member_gbps(v->topo, link) : v->member_gbps;
}

tsched_status tsched_vclos_link_name(char **out, const tsched_vclos *v, uint32_t link)
{
    if (!out || !v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_link_name: %s is NULL", out ? "v" : "out");
    *out = NULL;
    if (link >= v->nlinks)
        return ts_error(TSCHED_E_RANGE, "link: %u is not below the %u links", link, v->nlinks);
    if (link >= v->nmembers)
        return vc_ocs_link_name(out, v, link);
    uint32_t pair = v->member_pair[link];
    const char *a = tsched_topology_switch_name(v->topo, v->leaf_sw[pair / v->S]);
    const char *b = tsched_topology_switch_name(v->topo, v->spine_sw[pair % v->S]);
    size_t n = strlen(a) + strlen(b) + 16;
    char *s = ts_malloc(n, 1);
    if (!s)
        return TSCHED_E_NOMEM;
    snprintf(s, n, "%s~%s#%u", a, b, link - v->pair_first[pair]);
    *out = s;
    return TSCHED_OK;
}
