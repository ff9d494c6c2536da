/* State changes after build: free GPUs, up/down. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "topology_internal.h"

tsched_status tsched_topology_set_free_gpus(tsched_topology *t, uint32_t node, uint32_t free_gpus)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_free_gpus")) != TSCHED_OK)
        return st;
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_free_gpus: node %u does not exist", node);
    if (free_gpus > t->node_gpus[node])
        return ts_error(TSCHED_E_RANGE, "state.free_gpus.%s: %u is more than the node's %u GPUs",
                        ts_strtab_str(&t->node_names, node), free_gpus, t->node_gpus[node]);
    /* O(1) update of the counters instead of a full recount: schedulers call this per
     * allocation. */
    if (ts_node_usable(t, node)) {
        uint32_t leaf = t->node_leaf[node], pod = t->sw_pod[leaf];
        int was = t->node_free[node] == t->node_gpus[node], is = free_gpus == t->node_gpus[node];
        t->free_gpus = t->free_gpus - t->node_free[node] + free_gpus;
        if (was != is) {
            int d = is ? 1 : -1;
            t->leaf_free[leaf] += (uint32_t)d;
            if (pod != UINT32_MAX)
                t->pod_free[pod] += (uint32_t)d;
            t->cluster_free += (uint32_t)d;
        }
    }
    t->node_free[node] = free_gpus;
    return TSCHED_OK;
}

tsched_status tsched_topology_set_node_up(tsched_topology *t, uint32_t node, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_node_up")) != TSCHED_OK)
        return st;
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_node_up: node %u does not exist", node);
    t->node_up[node] = up ? 1 : 0;
    t->version++;
    return ts_topology_recount_free(t);
}

tsched_status tsched_topology_set_switch_up(tsched_topology *t, uint32_t sw, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_switch_up")) != TSCHED_OK)
        return st;
    if (sw >= t->nswitches)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_switch_up: switch %u does not exist", sw);
    uint8_t old = t->sw_up[sw];
    t->sw_up[sw] = up ? 1 : 0;
    if ((st = ts_topology_reindex(t)) != TSCHED_OK)
        t->sw_up[sw] = old;
    return st;
}

tsched_status tsched_topology_set_trunk_up(tsched_topology *t, uint32_t trunk, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_trunk_up")) != TSCHED_OK)
        return st;
    if (trunk >= t->ntrunks)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_trunk_up: trunk %u does not exist", trunk);
    uint8_t old = t->tr_up[trunk];
    t->tr_up[trunk] = up ? 1 : 0;
    if ((st = ts_topology_reindex(t)) != TSCHED_OK)
        t->tr_up[trunk] = old;
    return st;
}

tsched_status tsched_topology_set_up(tsched_topology *t, const char *name, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_up")) != TSCHED_OK)
        return st;
    if (!name || !*name)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_up: name is empty");
    const char *tilde = strchr(name, '~');
    if (!tilde) {
        uint32_t i = ts_strtab_find(&t->node_names, name);
        if (i != UINT32_MAX)
            return tsched_topology_set_node_up(t, i, up);
        i = ts_strtab_find(&t->switch_names, name);
        if (i != UINT32_MAX)
            return tsched_topology_set_switch_up(t, i, up);
        return ts_error(TSCHED_E_NOT_FOUND, "no node or switch named \"%s\"", name);
    }
    size_t la = (size_t)(tilde - name);
    char *a = ts_malloc(la + 1, 1);
    if (!a)
        return TSCHED_E_NOMEM;
    memcpy(a, name, la);
    a[la] = '\0';
    uint32_t sa = ts_strtab_find(&t->switch_names, a), sb = ts_strtab_find(&t->switch_names, tilde + 1);
    free(a);
    if (sa == UINT32_MAX || sb == UINT32_MAX)
        return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": no switch named \"%.*s\"", name,
                        sa == UINT32_MAX ? (int)la : (int)strlen(tilde + 1), sa == UINT32_MAX ? name : tilde + 1);
    uint32_t tr = tsched_topology_find_trunk(t, sa, sb);
    if (tr == TSCHED_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": the two switches are not linked", name);
    return tsched_topology_set_trunk_up(t, tr, up);
}

uint32_t tsched_topology_free_node_count(const tsched_topology *t, tsched_level level, uint32_t index)
{
    if (!t || !t->built)
        return 0;
    switch (level) {
    case TSCHED_LEVEL_LEAF:
        return index < t->nswitches ? t->leaf_free[index] : 0;
    case TSCHED_LEVEL_POD:
        return index < ts_strtab_count(&t->pod_names) ? t->pod_free[index] : 0;
    case TSCHED_LEVEL_CLUSTER:
        return t->cluster_free;
    case TSCHED_LEVEL_NVL: /* no fabric describes NVLink domains yet */
        return 0;
    }
    return 0;
}

static void push(uint32_t *nodes, size_t cap, size_t *n, uint32_t v)
{
    if (*n < cap)
        nodes[*n] = v;
    (*n)++;
}

static void free_on_leaf(const tsched_topology *t, uint32_t leaf, uint32_t *nodes, size_t cap, size_t *n)
{
    for (uint32_t i = t->leaf_node_off[leaf]; i < t->leaf_node_off[leaf + 1]; i++) {
        uint32_t v = t->leaf_node_list[i];
        if (ts_node_usable(t, v) && t->node_free[v] == t->node_gpus[v])
            push(nodes, cap, n, v);
    }
}

tsched_status tsched_topology_free_nodes(uint32_t *nodes, size_t cap, size_t *count, const tsched_topology *t,
                                         tsched_level level, uint32_t index)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_free_nodes")) != TSCHED_OK)
        return st;
    if (!count || (!nodes && cap))
        return ts_error(TSCHED_E_INVALID, "tsched_topology_free_nodes: count or nodes is NULL");
    size_t n = 0;
    *count = 0;
    if (level == TSCHED_LEVEL_LEAF) {
        if (index >= t->nswitches || t->sw_tier[index] != TSCHED_TIER_LEAF)
            return ts_error(TSCHED_E_INVALID, "tsched_topology_free_nodes: switch %u is not a leaf", index);
        free_on_leaf(t, index, nodes, cap, &n);
    } else if (level == TSCHED_LEVEL_POD) {
        if (index >= ts_strtab_count(&t->pod_names))
            return ts_error(TSCHED_E_INVALID, "tsched_topology_free_nodes: pod %u does not exist", index);
        /* Leaves of a pod are in index order, and so are nodes of a generated fabric;
         * sort anyway is not needed for the documented order "by leaf, then node". */
        for (uint32_t i = t->pod_leaf_off[index]; i < t->pod_leaf_off[index + 1]; i++)
            free_on_leaf(t, t->pod_leaf_list[i], nodes, cap, &n);
    } else if (level == TSCHED_LEVEL_CLUSTER) {
        for (uint32_t v = 0; v < t->nnodes; v++)
            if (ts_node_usable(t, v) && t->node_free[v] == t->node_gpus[v])
                push(nodes, cap, &n, v);
    } else {
        return ts_error(TSCHED_E_INVALID, "tsched_topology_free_nodes: unknown level %d", (int)level);
    }
    *count = n;
    if (n > cap)
        return ts_error(TSCHED_E_BUFFER, "free nodes: %zu nodes do not fit in a buffer of %zu", n, cap);
    return TSCHED_OK;
}
