/* Creation, the add_* builder calls, and the getters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "topology_internal.h"

tsched_status tsched_topology_new(tsched_topology **out, const char *name)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_new: out is NULL");
    *out = NULL;
    tsched_status st;
    if (name && *name && (st = ts_name_check(name, "name")) != TSCHED_OK)
        return st;
    tsched_topology *t = ts_calloc(1, sizeof *t);
    if (!t)
        return TSCHED_E_NOMEM;
    t->name = ts_strdup(name && *name ? name : "cluster");
    if (!t->name) {
        free(t);
        return TSCHED_E_NOMEM;
    }
    /* Identities start at 1 so that 0 can mean "no fabric" in a result. */
    static _Atomic uint64_t next_id = 1;
    t->id = next_id++;
    ts_strtab_init(&t->node_names);
    ts_strtab_init(&t->switch_names);
    ts_strtab_init(&t->pod_names);
    ts_strtab_init(&t->gpu_types);
    ts_strtab_init(&t->refs);
    *out = t;
    return TSCHED_OK;
}

void tsched_topology_free(tsched_topology *t)
{
    if (!t)
        return;
    free(t->name);
    ts_strtab_free(&t->node_names);
    ts_strtab_free(&t->switch_names);
    ts_strtab_free(&t->pod_names);
    ts_strtab_free(&t->gpu_types);
    ts_strtab_free(&t->refs);
    free(t->node_leaf);
    free(t->node_gpus);
    free(t->node_free);
    free(t->node_nics);
    free(t->node_type);
    free(t->node_rail);
    free(t->node_gbps);
    free(t->node_up);
    free(t->rail);
    free(t->sw_tier);
    free(t->sw_up);
    free(t->sw_pod);
    free(t->sw_ord);
    for (int i = 0; i < TSCHED_MAX_TIERS; i++)
        free(t->tier_list[i]);
    ts_topology_attrs_free(t);
    free(t->links_in);
    free(t->tr_lower);
    free(t->tr_upper);
    free(t->tr_links);
    free(t->tr_gbps);
    free(t->tr_up);
    free(t->tr_own);
    free(t->tr_mem_off);
    free(t->tr_mem_up);
    free(t->mem_up);
    free(t->tr_run_off);
    free(t->run_count);
    free(t->run_total);
    free(t->up_off);
    free(t->dn_off);
    free(t->up_adj);
    free(t->dn_adj);
    free(t->leaf_node_off);
    free(t->leaf_node_list);
    free(t->pod_leaf_off);
    free(t->pod_leaf_list);
    free(t->leaf_free);
    free(t->pod_free);
    free(t->leaf_att_off);
    free(t->leaf_att_list);
    ts_topology_index_free(t);
    free(t);
}

static tsched_status check_building(const tsched_topology *t, const char *fn)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "%s: topology is NULL", fn);
    if (t->built)
        return ts_error(TSCHED_E_STATE, "%s: the topology is already built; only its state may change", fn);
    return TSCHED_OK;
}

tsched_status ts_check_built(const tsched_topology *t, const char *fn)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "%s: topology is NULL", fn);
    if (!t->built)
        return ts_error(TSCHED_E_STATE, "%s: the topology is not built", fn);
    return TSCHED_OK;
}

/* ---- the interface of topology_paths.h ---- */

int ts_topology_built(const tsched_topology *t) { return t && t->built; }

uint64_t ts_topology_version(const tsched_topology *t) { return t->version; }

void ts_topology_paths(ts_topo_paths *v, const tsched_topology *t)
{
    *v = (ts_topo_paths){
        .topo = t,
        .nnodes = t->nnodes,
        .nswitches = t->nswitches,
        .ntrunks = t->ntrunks,
        .max_hops = ts_max_hops(t),
        .node_leaf = t->node_leaf,
        .node_nics = t->node_nics,
        .node_rail = t->node_rail,
        .rail = t->rail,
        .node_up = t->node_up,
        .sw_tier = t->sw_tier,
        .sw_up = t->sw_up,
        .sw_ord = t->sw_ord,
        .nleaves = t->tier_count[TSCHED_TIER_LEAF],
        .leaves = t->tier_list[TSCHED_TIER_LEAF],
        .tr_lower = t->tr_lower,
        .tr_upper = t->tr_upper,
        .tr_up = t->tr_up,
        .tr_own = t->tr_own,
        .up_off = t->up_off,
        .up_adj = t->up_adj,
    };
}

/* DESIGN 3 names, with the element's field in the message (`nodes[3].name`). */
static tsched_status check_name(const char *name, const char *where, const char *key)
{
    char field[96];
    snprintf(field, sizeof field, "%s.%s", where, key);
    return ts_name_check(name, field);
}

tsched_status tsched_topology_add_switch(uint32_t *index, tsched_topology *t, const char *name, int tier,
                                         const char *pod)
{
    tsched_status st;
    if ((st = check_building(t, "tsched_topology_add_switch")) != TSCHED_OK)
        return st;
    char where[64];
    snprintf(where, sizeof where, "switches[%u]", t->nswitches - t->switch_base);
    if ((st = check_name(name, where, "name")) != TSCHED_OK)
        return st;
    if (tier < 0 || tier >= TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "%s.tier: %d is out of range [0, %d] (switch \"%s\")", where, tier,
                        TSCHED_MAX_TIERS - 1, name);
    if ((st = ts_limit_check("switches", (unsigned long long)t->nswitches + 1, "switches", ts_limits()->switches)))
        return st;
    if (ts_strtab_find(&t->node_names, name) != UINT32_MAX ||
        ts_strtab_find(&t->switch_names, name) != UINT32_MAX)
        return ts_error(TSCHED_E_DUPLICATE, "%s.name: duplicate name \"%s\"", where, name);
    uint32_t pod_id = UINT32_MAX;
    if (pod) {
        if ((st = check_name(pod, where, "pod")) != TSCHED_OK)
            return st;
        if ((st = ts_strtab_intern(&t->pod_names, pod, &pod_id, NULL)) != TSCHED_OK)
            return st;
    }
    size_t need = (size_t)t->nswitches + 1, cap = t->switch_cap;
    if ((st = TS_GROW(t->sw_tier, cap, need)) != TSCHED_OK)
        return st;
    cap = t->switch_cap;
    if ((st = TS_GROW(t->sw_up, cap, need)) != TSCHED_OK)
        return st;
    cap = t->switch_cap;
    if ((st = TS_GROW(t->sw_pod, cap, need)) != TSCHED_OK)
        return st;
    cap = t->switch_cap;
    if ((st = TS_GROW(t->sw_value, cap, need)) != TSCHED_OK)
        return st;
    t->switch_cap = cap;
    uint32_t id;
    if ((st = ts_strtab_intern(&t->switch_names, name, &id, NULL)) != TSCHED_OK)
        return st;
    t->sw_tier[id] = (uint8_t)tier;
    t->sw_up[id] = 1;
    t->sw_pod[id] = pod_id;
    t->sw_value[id] = UINT32_MAX;
    t->nswitches++;
    t->shape_gen++;
    if (index)
        *index = id;
    return TSCHED_OK;
}

tsched_status tsched_topology_add_node(uint32_t *index, tsched_topology *t, const char *name, const char *leaf,
                                       uint32_t gpus, uint32_t nics, const char *gpu_type, double nic_gbps)
{
    tsched_status st;
    if ((st = check_building(t, "tsched_topology_add_node")) != TSCHED_OK)
        return st;
    char where[64];
    snprintf(where, sizeof where, "nodes[%u]", t->nnodes - t->node_base);
    if ((st = check_name(name, where, "name")) != TSCHED_OK)
        return st;
    if (gpu_type && *gpu_type && (st = check_name(gpu_type, where, "gpu_type")) != TSCHED_OK)
        return st;
    if (!leaf)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_add_node: leaf is NULL");
    if (!*leaf)
        return ts_error(TSCHED_E_NOT_FOUND, "%s.leaf: node \"%s\" has no leaf", where, name);
    const tsched_limits *lim = ts_limits();
    if (gpus == 0)
        return ts_error(TSCHED_E_RANGE, "%s.gpus: must be at least 1", where);
    if (nics == 0)
        return ts_error(TSCHED_E_RANGE, "%s.nics: must be at least 1", where);
    char field[80];
    snprintf(field, sizeof field, "%s.gpus", where);
    if ((st = ts_limit_check(field, gpus, "gpus_per_node", lim->gpus_per_node)))
        return st;
    snprintf(field, sizeof field, "%s.nics", where);
    if ((st = ts_limit_check(field, nics, "nics_per_node", lim->nics_per_node)))
        return st;
    if (!isfinite(nic_gbps) || nic_gbps <= 0 || nic_gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_RANGE, "%s.nic_gbps: %g is out of range (0, %g]", where, nic_gbps, TS_MAX_GBPS);
    if ((st = ts_limit_check("nodes", (unsigned long long)t->nnodes + 1, "nodes", lim->nodes)))
        return st;
    if (ts_strtab_find(&t->node_names, name) != UINT32_MAX ||
        ts_strtab_find(&t->switch_names, name) != UINT32_MAX)
        return ts_error(TSCHED_E_DUPLICATE, "%s.name: duplicate name \"%s\"", where, name);
    uint32_t type_id, leaf_ref;
    if ((st = ts_strtab_intern(&t->gpu_types, gpu_type && *gpu_type ? gpu_type : "GPU", &type_id, NULL)) != TSCHED_OK)
        return st;
    if ((st = ts_strtab_intern(&t->refs, leaf, &leaf_ref, NULL)) != TSCHED_OK)
        return st;
    size_t need = (size_t)t->nnodes + 1, cap;
#define GROW_NODE(arr)                                                                                             \
    do {                                                                                                           \
        cap = t->node_cap;                                                                                         \
        if ((st = TS_GROW(arr, cap, need)) != TSCHED_OK)                                                           \
            return st;                                                                                             \
    } while (0)
    GROW_NODE(t->node_leaf);
    GROW_NODE(t->node_gpus);
    GROW_NODE(t->node_free);
    GROW_NODE(t->node_nics);
    GROW_NODE(t->node_type);
    GROW_NODE(t->node_rail);
    GROW_NODE(t->node_gbps);
    GROW_NODE(t->node_up);
    GROW_NODE(t->node_nvl_ref);
    GROW_NODE(t->node_host);
#undef GROW_NODE
    t->node_cap = cap;
    uint32_t id;
    if ((st = ts_strtab_intern(&t->node_names, name, &id, NULL)) != TSCHED_OK)
        return st;
    t->node_leaf[id] = leaf_ref;
    t->node_gpus[id] = gpus;
    t->node_free[id] = gpus;
    t->node_nics[id] = nics;
    t->node_type[id] = type_id;
    t->node_rail[id] = UINT32_MAX;
    t->node_gbps[id] = nic_gbps;
    t->node_up[id] = 1;
    t->node_nvl_ref[id] = UINT32_MAX;
    t->node_host[id] = UINT32_MAX;
    t->nnodes++;
    t->shape_gen++;
    if (index)
        *index = id;
    return TSCHED_OK;
}

tsched_status tsched_topology_set_rails(tsched_topology *t, uint32_t node, const char *const *leaves, uint32_t count)
{
    tsched_status st;
    if ((st = check_building(t, "tsched_topology_set_rails")) != TSCHED_OK)
        return st;
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_rails: node %u does not exist", node);
    char where[64];
    snprintf(where, sizeof where, "nodes[%u].rails", node - t->node_base);
    if (!leaves || count != t->node_nics[node])
        return ts_error(TSCHED_E_INVALID, "%s: %u leaves given for %u NICs (node \"%s\")", where, count,
                        t->node_nics[node], ts_strtab_str(&t->node_names, node));
    if ((st = TS_GROW(t->rail, t->rail_cap, t->nrail + count)) != TSCHED_OK)
        return st;
    size_t base = t->nrail;
    for (uint32_t k = 0; k < count; k++) {
        if (!leaves[k] || !*leaves[k])
            return ts_error(TSCHED_E_INVALID, "%s[%u]: empty leaf name", where, k);
        if ((st = ts_strtab_intern(&t->refs, leaves[k], &t->rail[base + k], NULL)) != TSCHED_OK)
            return st;
    }
    t->nrail += count;
    t->shape_gen++;
    t->node_rail[node] = (uint32_t)base;
    t->node_leaf[node] = t->rail[base];
    return TSCHED_OK;
}

tsched_status tsched_topology_add_link(tsched_topology *t, const char *a, const char *b, double gbps, uint32_t count)
{
    tsched_status st;
    if ((st = check_building(t, "tsched_topology_add_link")) != TSCHED_OK)
        return st;
    if (!a || !b)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_add_link: %s is NULL", !a ? "a" : "b");
    size_t i = t->nlinks_in - t->link_base;
    if (!isfinite(gbps) || gbps <= 0 || gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_RANGE, "links[%zu].gbps: %g is out of range (0, %g]", i, gbps, TS_MAX_GBPS);
    return ts_topology_add_link_total(t, a, b, gbps * (double)count, count);
}

tsched_status ts_topology_add_link_total(tsched_topology *t, const char *a, const char *b, double gbps, uint32_t count)
{
    tsched_status st;
    if ((st = check_building(t, "tsched_topology_add_link")) != TSCHED_OK)
        return st;
    size_t i = t->nlinks_in - t->link_base;
    if (!a || !*a)
        return ts_error(TSCHED_E_NOT_FOUND, "links[%zu].a: missing switch name", i);
    if (!b || !*b)
        return ts_error(TSCHED_E_NOT_FOUND, "links[%zu].b: missing switch name", i);
    if (count == 0 || count > TS_MAX_LINK_COUNT)
        return ts_error(TSCHED_E_RANGE, "links[%zu].count: %u is out of range [1, %u]", i, count, TS_MAX_LINK_COUNT);
    if (!isfinite(gbps) || gbps < TS_MIN_GBPS || gbps > TS_MAX_GBPS * (double)TS_MAX_LINK_COUNT)
        return ts_error(TSCHED_E_RANGE, "links[%zu].gbps: capacity %g is out of range", i, gbps);
    if (t->nlinks_in >= (size_t)TS_MAX_TRUNKS * 4)
        return ts_error(TSCHED_E_TOO_LARGE, "links[%zu]: more than %u links", i, TS_MAX_TRUNKS * 4);
    if ((st = TS_GROW(t->links_in, t->links_in_cap, t->nlinks_in + 1)) != TSCHED_OK)
        return st;
    ts_link_in *l = &t->links_in[t->nlinks_in];
    if ((st = ts_strtab_intern(&t->refs, a, &l->a_ref, NULL)) != TSCHED_OK)
        return st;
    if ((st = ts_strtab_intern(&t->refs, b, &l->b_ref, NULL)) != TSCHED_OK)
        return st;
    l->total_gbps = gbps;
    l->count = count;
    t->nlinks_in++;
    t->shape_gen++;
    return TSCHED_OK;
}

/* ---- getters ---- */

#define NODE_OK(t, n) ((t) && (t)->built && (n) < (t)->nnodes)
#define SW_OK(t, s) ((t) && (t)->built && (s) < (t)->nswitches)
#define TR_OK(t, r) ((t) && (t)->built && (r) < (t)->ntrunks)

const char *tsched_topology_name(const tsched_topology *t) { return t ? t->name : NULL; }
uint64_t tsched_topology_id(const tsched_topology *t) { return t ? t->id : 0; }
uint64_t tsched_topology_generation(const tsched_topology *t) { return t ? t->shape_gen : 0; }

tsched_status tsched_topology_check_identity(const tsched_topology *t, uint64_t id, uint64_t generation,
                                             const char *what)
{
    if (!what)
        what = "result";
    if (!t)
        return ts_error(TSCHED_E_INVALID, "%s: topology is NULL", what);
    if (t->id != id)
        return ts_error(TSCHED_E_MISMATCH,
                        "%s: made on fabric #%llu (generation %llu), used with fabric #%llu \"%s\" (generation %llu)",
                        what, (unsigned long long)id, (unsigned long long)generation, (unsigned long long)t->id,
                        t->name, (unsigned long long)t->shape_gen);
    if (t->shape_gen != generation)
        return ts_error(TSCHED_E_MISMATCH,
                        "%s: made on fabric #%llu \"%s\" at generation %llu; its shape has changed since (generation "
                        "%llu)",
                        what, (unsigned long long)id, t->name, (unsigned long long)generation,
                        (unsigned long long)t->shape_gen);
    return TSCHED_OK;
}
uint32_t tsched_topology_num_nodes(const tsched_topology *t) { return t ? t->nnodes : 0; }
uint32_t tsched_topology_num_switches(const tsched_topology *t) { return t ? t->nswitches : 0; }
uint32_t tsched_topology_num_tier(const tsched_topology *t, int tier)
{
    return t && t->built && tier >= 0 && tier < TSCHED_MAX_TIERS ? t->tier_count[tier] : 0;
}
uint32_t tsched_topology_num_pods(const tsched_topology *t) { return t ? ts_strtab_count(&t->pod_names) : 0; }
uint32_t tsched_topology_num_trunks(const tsched_topology *t) { return t ? t->ntrunks : 0; }
uint64_t tsched_topology_num_gpus(const tsched_topology *t) { return t && t->built ? t->total_gpus : 0; }
uint64_t tsched_topology_num_free_gpus(const tsched_topology *t) { return t && t->built ? t->free_gpus : 0; }

uint32_t tsched_topology_find_node(const tsched_topology *t, const char *name)
{
    return t ? ts_strtab_find(&t->node_names, name) : TSCHED_NONE;
}
const char *tsched_topology_node_name(const tsched_topology *t, uint32_t n)
{
    return t && n < t->nnodes ? ts_strtab_str(&t->node_names, n) : NULL;
}
uint32_t tsched_topology_node_leaf(const tsched_topology *t, uint32_t n)
{
    return NODE_OK(t, n) ? t->node_leaf[n] : TSCHED_NONE;
}
uint32_t tsched_topology_node_nic_leaf(const tsched_topology *t, uint32_t n, uint32_t nic)
{
    if (!NODE_OK(t, n) || nic >= t->node_nics[n])
        return TSCHED_NONE;
    return t->node_rail[n] == UINT32_MAX ? t->node_leaf[n] : t->rail[t->node_rail[n] + nic];
}
uint32_t tsched_topology_node_pod(const tsched_topology *t, uint32_t n)
{
    return NODE_OK(t, n) ? t->sw_pod[t->node_leaf[n]] : TSCHED_NONE;
}
uint32_t tsched_topology_node_gpus(const tsched_topology *t, uint32_t n) { return NODE_OK(t, n) ? t->node_gpus[n] : 0; }
uint32_t tsched_topology_node_free_gpus(const tsched_topology *t, uint32_t n)
{
    return NODE_OK(t, n) ? t->node_free[n] : 0;
}
uint32_t tsched_topology_node_nics(const tsched_topology *t, uint32_t n) { return NODE_OK(t, n) ? t->node_nics[n] : 0; }
double tsched_topology_node_nic_gbps(const tsched_topology *t, uint32_t n) { return NODE_OK(t, n) ? t->node_gbps[n] : 0; }
const char *tsched_topology_node_gpu_type(const tsched_topology *t, uint32_t n)
{
    return NODE_OK(t, n) ? ts_strtab_str(&t->gpu_types, t->node_type[n]) : NULL;
}
int tsched_topology_node_is_up(const tsched_topology *t, uint32_t n) { return NODE_OK(t, n) && ts_node_usable(t, n); }
int tsched_topology_node_is_free(const tsched_topology *t, uint32_t n)
{
    return NODE_OK(t, n) && ts_node_usable(t, n) && t->node_free[n] == t->node_gpus[n];
}

uint32_t tsched_topology_find_switch(const tsched_topology *t, const char *name)
{
    return t ? ts_strtab_find(&t->switch_names, name) : TSCHED_NONE;
}
const char *tsched_topology_switch_name(const tsched_topology *t, uint32_t s)
{
    return t && s < t->nswitches ? ts_strtab_str(&t->switch_names, s) : NULL;
}
int tsched_topology_switch_tier(const tsched_topology *t, uint32_t s) { return t && s < t->nswitches ? t->sw_tier[s] : -1; }
uint32_t tsched_topology_switch_pod(const tsched_topology *t, uint32_t s)
{
    return t && s < t->nswitches ? t->sw_pod[s] : TSCHED_NONE;
}
int tsched_topology_switch_is_up(const tsched_topology *t, uint32_t s) { return t && s < t->nswitches && t->sw_up[s]; }
uint32_t tsched_topology_tier_switch(const tsched_topology *t, int tier, uint32_t i)
{
    if (!t || !t->built || tier < 0 || tier >= TSCHED_MAX_TIERS || i >= t->tier_count[tier])
        return TSCHED_NONE;
    return t->tier_list[tier][i];
}
const uint32_t *tsched_topology_leaf_nodes(const tsched_topology *t, uint32_t leaf, uint32_t *count)
{
    if (!count)
        return NULL;
    *count = 0;
    if (!SW_OK(t, leaf) || t->sw_tier[leaf] != TSCHED_TIER_LEAF)
        return NULL;
    *count = t->leaf_node_off[leaf + 1] - t->leaf_node_off[leaf];
    return t->leaf_node_list + t->leaf_node_off[leaf];
}

uint32_t tsched_topology_find_pod(const tsched_topology *t, const char *name)
{
    return t ? ts_strtab_find(&t->pod_names, name) : TSCHED_NONE;
}
const char *tsched_topology_pod_name(const tsched_topology *t, uint32_t p)
{
    return t && p < ts_strtab_count(&t->pod_names) ? ts_strtab_str(&t->pod_names, p) : NULL;
}
const uint32_t *tsched_topology_pod_leaves(const tsched_topology *t, uint32_t p, uint32_t *count)
{
    if (!count)
        return NULL;
    *count = 0;
    if (!t || !t->built || p >= ts_strtab_count(&t->pod_names))
        return NULL;
    *count = t->pod_leaf_off[p + 1] - t->pod_leaf_off[p];
    return t->pod_leaf_list + t->pod_leaf_off[p];
}

uint32_t tsched_topology_find_trunk(const tsched_topology *t, uint32_t a, uint32_t b)
{
    if (!SW_OK(t, a) || !SW_OK(t, b))
        return TSCHED_NONE;
    if (t->sw_tier[a] > t->sw_tier[b]) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    return ts_trunk_between(t, a, b);
}
uint32_t tsched_topology_trunk_lower(const tsched_topology *t, uint32_t r) { return TR_OK(t, r) ? t->tr_lower[r] : TSCHED_NONE; }
uint32_t tsched_topology_trunk_upper(const tsched_topology *t, uint32_t r) { return TR_OK(t, r) ? t->tr_upper[r] : TSCHED_NONE; }
double tsched_topology_trunk_gbps(const tsched_topology *t, uint32_t r) { return TR_OK(t, r) ? t->tr_gbps[r] : 0; }
uint32_t tsched_topology_trunk_links(const tsched_topology *t, uint32_t r) { return TR_OK(t, r) ? t->tr_links[r] : 0; }
int tsched_topology_trunk_is_up(const tsched_topology *t, uint32_t r) { return TR_OK(t, r) && t->tr_up[r]; }

/* ---- member links ---- */

#define MEM_OK(t, m) ((t) && (t)->built && (m) < (t)->nmembers)

uint32_t ts_member_trunk(const tsched_topology *t, uint32_t m)
{
    uint32_t lo = 0, hi = t->ntrunks; /* the answer is in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->tr_mem_off[mid] <= m)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t tsched_topology_num_members(const tsched_topology *t) { return t && t->built ? t->nmembers : 0; }
uint32_t tsched_topology_trunk_first_member(const tsched_topology *t, uint32_t r)
{
    return TR_OK(t, r) ? t->tr_mem_off[r] : TSCHED_NONE;
}
uint32_t tsched_topology_member_trunk(const tsched_topology *t, uint32_t m)
{
    return MEM_OK(t, m) ? ts_member_trunk(t, m) : TSCHED_NONE;
}
uint32_t tsched_topology_member_index(const tsched_topology *t, uint32_t m)
{
    return MEM_OK(t, m) ? m - t->tr_mem_off[ts_member_trunk(t, m)] : TSCHED_NONE;
}
double tsched_topology_member_gbps(const tsched_topology *t, uint32_t m)
{
    if (!MEM_OK(t, m))
        return 0;
    uint32_t r = ts_member_trunk(t, m), k = m - t->tr_mem_off[r];
    for (uint32_t i = t->tr_run_off[r]; i < t->tr_run_off[r + 1]; i++) {
        if (k < t->run_count[i])
            return t->run_total[i] / t->run_count[i];
        k -= t->run_count[i];
    }
    return 0; /* not reached: the runs of a trunk cover its members */
}
int tsched_topology_member_is_up(const tsched_topology *t, uint32_t m) { return MEM_OK(t, m) && t->mem_up[m]; }
