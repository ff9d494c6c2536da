/* State changes after build: free GPUs, up/down. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "topology_internal.h"

/* Add (add = 1) or remove (0) the free capacity of usable node `v` from the counters. */
static void free_account(tsched_topology *t, uint32_t v, int add)
{
    uint32_t leaf = t->node_leaf[v], pod = t->sw_pod[leaf];
    if (add)
        t->free_gpus += t->node_free[v];
    else
        t->free_gpus -= t->node_free[v];
    if (t->node_free[v] != t->node_gpus[v])
        return;
    uint32_t d = add ? 1u : UINT32_MAX; /* +1 or -1, modulo 2^32 */
    t->leaf_free[leaf] += d;
    if (pod != UINT32_MAX)
        t->pod_free[pod] += d;
    if (t->node_nvl[v] != UINT32_MAX)
        t->nvl_free[t->node_nvl[v]] += d;
    t->cluster_free += d;
}

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
    /* O(1): schedulers call this per allocation. */
    int usable = ts_node_usable(t, node);
    if (usable)
        free_account(t, node, 0);
    t->node_free[node] = free_gpus;
    if (usable)
        free_account(t, node, 1);
    return TSCHED_OK;
}

/* ---- up/down: each change costs what it touches ----
 * The counters of the nodes whose usability changes are updated at once; the path index
 * is only marked stale and rebuilt, once, by the next count (index.c). These never fail,
 * so a batch can resolve every name first and then apply all or nothing. A change that
 * changes nothing (up on an up element) leaves the version alone. */

static void apply_node(tsched_topology *t, uint32_t n, int up)
{
    uint8_t v = up ? 1 : 0;
    if (t->node_up[n] == v)
        return;
    if (ts_node_usable(t, n))
        free_account(t, n, 0);
    t->node_up[n] = v;
    if (ts_node_usable(t, n))
        free_account(t, n, 1);
    t->version++; /* routing drops its cached paths; leaf paths themselves are unchanged */
}

static void apply_switch(tsched_topology *t, uint32_t sw, int up)
{
    uint8_t v = up ? 1 : 0;
    if (t->sw_up[sw] == v)
        return;
    /* Only a leaf decides whether nodes are usable: the nodes attached to it (rails
     * included) leave or rejoin the counters. */
    const uint32_t *att = NULL;
    uint32_t natt = 0;
    if (t->sw_tier[sw] == TSCHED_TIER_LEAF) {
        att = t->leaf_att_list + t->leaf_att_off[sw];
        natt = t->leaf_att_off[sw + 1] - t->leaf_att_off[sw];
    }
    for (uint32_t i = 0; i < natt; i++)
        if (ts_node_usable(t, att[i]))
            free_account(t, att[i], 0);
    t->sw_up[sw] = v;
    for (uint32_t i = 0; i < natt; i++)
        if (ts_node_usable(t, att[i]))
            free_account(t, att[i], 1);
    t->version++;
    ts_index_mark_stale(t);
}

double ts_trunk_capacity(const tsched_topology *t, uint32_t r)
{
    double sum = 0;
    uint32_t m = t->tr_mem_off[r];
    for (uint32_t i = t->tr_run_off[r]; i < t->tr_run_off[r + 1]; i++) {
        uint32_t n = t->run_count[i], up = 0;
        for (uint32_t k = 0; k < n; k++)
            up += t->mem_up[m + k];
        m += n;
        if (up == n)
            sum += t->run_total[i];
        else if (up)
            sum += t->run_total[i] / n * up;
    }
    return sum;
}

/* The trunk's usability after a change of its own state or of a member: the path index
 * goes stale only when it changes. */
static void trunk_refresh(tsched_topology *t, uint32_t tr)
{
    uint8_t live = t->tr_own[tr] && t->tr_mem_up[tr] > 0;
    if (t->tr_up[tr] != live) {
        t->tr_up[tr] = live;
        ts_index_mark_stale(t);
    }
    t->version++;
}

static void apply_trunk(tsched_topology *t, uint32_t tr, int up)
{
    uint8_t v = up ? 1 : 0;
    if (t->tr_own[tr] == v)
        return;
    t->tr_own[tr] = v;
    trunk_refresh(t, tr);
}

/* O(members of the trunk): its capacity is summed again, run by run. */
static void apply_member(tsched_topology *t, uint32_t m, int up)
{
    uint8_t v = up ? 1 : 0;
    if (t->mem_up[m] == v)
        return;
    uint32_t tr = ts_member_trunk(t, m);
    t->mem_up[m] = v;
    if (v)
        t->tr_mem_up[tr]++;
    else
        t->tr_mem_up[tr]--;
    t->tr_gbps[tr] = ts_trunk_capacity(t, tr);
    trunk_refresh(t, tr);
}

tsched_status tsched_topology_set_node_up(tsched_topology *t, uint32_t node, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_node_up")) != TSCHED_OK)
        return st;
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_node_up: node %u does not exist (%u nodes)", node,
                        t->nnodes);
    apply_node(t, node, up);
    return TSCHED_OK;
}

tsched_status tsched_topology_set_switch_up(tsched_topology *t, uint32_t sw, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_switch_up")) != TSCHED_OK)
        return st;
    if (sw >= t->nswitches)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_switch_up: switch %u does not exist (%u switches)", sw,
                        t->nswitches);
    apply_switch(t, sw, up);
    return TSCHED_OK;
}

tsched_status tsched_topology_set_trunk_up(tsched_topology *t, uint32_t trunk, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_trunk_up")) != TSCHED_OK)
        return st;
    if (trunk >= t->ntrunks)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_trunk_up: trunk %u does not exist (%u trunks)", trunk,
                        t->ntrunks);
    apply_trunk(t, trunk, up);
    return TSCHED_OK;
}

tsched_status tsched_topology_set_member_up(tsched_topology *t, uint32_t member, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_member_up")) != TSCHED_OK)
        return st;
    if (member >= t->nmembers)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_member_up: member %u does not exist (%u members)",
                        member, t->nmembers);
    apply_member(t, member, up);
    return TSCHED_OK;
}

/* An element named in a state call. */
typedef enum el_kind { EL_NODE, EL_SWITCH, EL_TRUNK, EL_MEMBER } el_kind;
typedef struct el_ref {
    el_kind kind;
    uint32_t index;
} el_ref;

/* How a link name `a~b` or `a~b#k` failed to resolve. */
typedef enum link_err { LK_OK, LK_NOMEM, LK_NO_A, LK_NO_B, LK_UNLINKED, LK_BAD_K, LK_RANGE_K } link_err;

/* Resolve a link name without reporting: `*trunk`, and `*member` (TSCHED_NONE for a
 * trunk name). */
static link_err parse_link(uint32_t *trunk, uint32_t *member, const tsched_topology *t, const char *name)
{
    const char *tilde = strchr(name, '~'), *hash = strchr(tilde, '#');
    const char *b = tilde + 1;
    size_t la = (size_t)(tilde - name), lb = hash ? (size_t)(hash - b) : strlen(b);
    /* The two ends, NUL-terminated: on the stack unless the name is longer than names
     * usually are (the name limit can be raised). */
    char stack[256], *buf = stack;
    if (la + lb + 2 > sizeof stack && !(buf = ts_malloc(la + lb + 2, 1)))
        return LK_NOMEM;
    memcpy(buf, name, la);
    buf[la] = '\0';
    memcpy(buf + la + 1, b, lb);
    buf[la + 1 + lb] = '\0';
    uint32_t sa = ts_strtab_find(&t->switch_names, buf), sb = ts_strtab_find(&t->switch_names, buf + la + 1);
    if (buf != stack)
        free(buf);
    if (sa == UINT32_MAX)
        return LK_NO_A;
    if (sb == UINT32_MAX)
        return LK_NO_B;
    uint32_t tr = tsched_topology_find_trunk(t, sa, sb);
    if (tr == TSCHED_NONE)
        return LK_UNLINKED;
    *trunk = tr;
    *member = TSCHED_NONE;
    if (!hash)
        return LK_OK;
    /* k: decimal digits only, without sign or spaces */
    const char *p = hash + 1;
    uint64_t k = 0;
    if (!*p)
        return LK_BAD_K;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return LK_BAD_K;
        if (k <= UINT32_MAX)
            k = k * 10 + (uint64_t)(*p - '0');
    }
    if (k >= t->tr_links[tr])
        return LK_RANGE_K;
    *member = t->tr_mem_off[tr] + (uint32_t)k;
    return LK_OK;
}

uint32_t tsched_topology_find_member(const tsched_topology *t, const char *name)
{
    if (!t || !t->built || !name || !strchr(name, '~') || !strchr(name, '#'))
        return TSCHED_NONE;
    uint32_t tr, m;
    return parse_link(&tr, &m, t, name) == LK_OK ? m : TSCHED_NONE;
}

/* Resolve a node, switch, `a~b` or `a~b#k` name; errors say what is missing. */
static tsched_status resolve(el_ref *out, const tsched_topology *t, const char *name)
{
    const char *tilde = strchr(name, '~');
    if (!tilde) {
        uint32_t i = ts_strtab_find(&t->node_names, name);
        if (i != UINT32_MAX) {
            *out = (el_ref){EL_NODE, i};
            return TSCHED_OK;
        }
        i = ts_strtab_find(&t->switch_names, name);
        if (i != UINT32_MAX) {
            *out = (el_ref){EL_SWITCH, i};
            return TSCHED_OK;
        }
        return ts_error(TSCHED_E_NOT_FOUND, "no node or switch named \"%s\"", name);
    }
    uint32_t tr = TSCHED_NONE, m = TSCHED_NONE;
    const char *hash = strchr(tilde, '#');
    int lb = (int)(hash ? (size_t)(hash - tilde - 1) : strlen(tilde + 1));
    switch (parse_link(&tr, &m, t, name)) {
    case LK_OK:
        *out = m == TSCHED_NONE ? (el_ref){EL_TRUNK, tr} : (el_ref){EL_MEMBER, m};
        return TSCHED_OK;
    case LK_NOMEM:
        return TSCHED_E_NOMEM;
    case LK_NO_A:
        return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": no switch named \"%.*s\"", name, (int)(tilde - name),
                        name);
    case LK_NO_B:
        return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": no switch named \"%.*s\"", name, lb, tilde + 1);
    case LK_UNLINKED:
        return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": the two switches are not linked", name);
    case LK_BAD_K:
    case LK_RANGE_K:
        break;
    }
    uint32_t n = t->tr_links[tr];
    return ts_error(TSCHED_E_NOT_FOUND, "link \"%s\": trunk %s~%s has %u member link%s (#0..#%u)", name,
                    ts_strtab_str(&t->switch_names, t->tr_lower[tr]), ts_strtab_str(&t->switch_names, t->tr_upper[tr]),
                    n, n == 1 ? "" : "s", n - 1);
}

static void apply(tsched_topology *t, el_ref r, int up)
{
    switch (r.kind) {
    case EL_NODE:
        apply_node(t, r.index, up);
        break;
    case EL_SWITCH:
        apply_switch(t, r.index, up);
        break;
    case EL_TRUNK:
        apply_trunk(t, r.index, up);
        break;
    case EL_MEMBER:
        apply_member(t, r.index, up);
        break;
    }
}

tsched_status tsched_topology_set_up(tsched_topology *t, const char *name, int up)
{
    tsched_status st;
    if ((st = ts_check_built(t, "tsched_topology_set_up")) != TSCHED_OK)
        return st;
    if (!name)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_up: name is NULL");
    if (!*name)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_up: name is empty");
    el_ref r;
    if ((st = resolve(&r, t, name)) != TSCHED_OK)
        return st;
    apply(t, r, up);
    return TSCHED_OK;
}

tsched_status tsched_topology_set_up_batch(tsched_topology *t, const char *const *names, const int *up, size_t count)
{
    static const char fn[] = "tsched_topology_set_up_batch";
    tsched_status st;
    if ((st = ts_check_built(t, fn)) != TSCHED_OK)
        return st;
    if (count && !names)
        return ts_error(TSCHED_E_INVALID, "%s: names is NULL", fn);
    if (count && !up)
        return ts_error(TSCHED_E_INVALID, "%s: up is NULL", fn);
    if (count == 0)
        return TSCHED_OK;
    /* All names first, nothing changed yet: one unknown name rejects the whole event. */
    el_ref *refs = ts_malloc(count, sizeof *refs);
    if (!refs)
        return TSCHED_E_NOMEM;
    for (size_t i = 0; i < count; i++) {
        if (!names[i] || !*names[i])
            st = ts_error(TSCHED_E_INVALID, "%s: names[%zu] is %s", fn, i, names[i] ? "empty" : "NULL");
        else if ((st = resolve(&refs[i], t, names[i])) != TSCHED_OK) {
            char where[64];
            snprintf(where, sizeof where, "%s: names[%zu]", fn, i);
            st = ts_error_prefix(st, where);
        }
        if (st != TSCHED_OK) {
            free(refs);
            return st;
        }
    }
    for (size_t i = 0; i < count; i++)
        apply(t, refs[i], up[i]);
    free(refs);
    return TSCHED_OK;
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
    case TSCHED_LEVEL_NVL:
        return index < t->nnvl ? t->nvl_free[index] : 0;
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
    } else if (level == TSCHED_LEVEL_NVL) {
        if (index >= t->nnvl)
            return ts_error(TSCHED_E_INVALID, "tsched_topology_free_nodes: NVLink domain %u does not exist (%u)", index,
                            t->nnvl);
        for (uint32_t i = t->nvl_node_off[index]; i < t->nvl_node_off[index + 1]; i++) {
            uint32_t v = t->nvl_node_list[i];
            if (ts_node_usable(t, v) && t->node_free[v] == t->node_gpus[v])
                push(nodes, cap, &n, v);
        }
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
