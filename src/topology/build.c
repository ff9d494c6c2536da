/* tsched_topology_build(): resolve names, validate the hierarchy, merge parallel links
 * into trunks, and lay out the adjacency and per-domain lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "topology_internal.h"

typedef struct trunk_in {
    uint32_t lower, upper, links;
    double gbps;
    size_t seq; /* input order: members are numbered over a trunk's entries in it */
} trunk_in;

static int cmp_trunk_in(const void *a, const void *b)
{
    const trunk_in *x = a, *y = b;
    if (x->lower != y->lower)
        return x->lower < y->lower ? -1 : 1;
    if (x->upper != y->upper)
        return x->upper < y->upper ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The name behind a ref id that is not a switch: say what it is instead. */
static tsched_status dangling(const tsched_topology *t, uint32_t ref, const char *field)
{
    const char *name = ts_strtab_str(&t->refs, ref);
    if (ts_strtab_find(&t->node_names, name) != UINT32_MAX)
        return ts_error(TSCHED_E_NOT_FOUND, "%s: \"%s\" is a node, not a switch", field, name);
    return ts_error(TSCHED_E_NOT_FOUND, "%s: no switch named \"%s\"", field, name);
}

static tsched_status resolve_nodes(tsched_topology *t, const uint32_t *ref_sw)
{
    for (uint32_t n = 0; n < t->nnodes; n++) {
        char field[96];
        if (t->node_rail[n] == UINT32_MAX) {
            uint32_t sw = ref_sw[t->node_leaf[n]];
            snprintf(field, sizeof field, "nodes[%u].leaf", n - t->node_base);
            if (sw == UINT32_MAX)
                return dangling(t, t->node_leaf[n], field);
            if (t->sw_tier[sw] != TSCHED_TIER_LEAF)
                return ts_error(TSCHED_E_RANGE, "%s: \"%s\" is tier %d; nodes attach to leaves (tier 0)", field,
                                ts_strtab_str(&t->switch_names, sw), t->sw_tier[sw]);
            t->node_leaf[n] = sw;
        } else {
            for (uint32_t k = 0; k < t->node_nics[n]; k++) {
                uint32_t *r = &t->rail[t->node_rail[n] + k];
                uint32_t sw = ref_sw[*r];
                snprintf(field, sizeof field, "nodes[%u].rails[%u]", n - t->node_base, k);
                if (sw == UINT32_MAX)
                    return dangling(t, *r, field);
                if (t->sw_tier[sw] != TSCHED_TIER_LEAF)
                    return ts_error(TSCHED_E_RANGE, "%s: \"%s\" is tier %d; NICs attach to leaves (tier 0)", field,
                                    ts_strtab_str(&t->switch_names, sw), t->sw_tier[sw]);
                *r = sw;
            }
            t->node_leaf[n] = t->rail[t->node_rail[n]];
        }
    }
    return TSCHED_OK;
}

static tsched_status resolve_links(tsched_topology *t, const uint32_t *ref_sw, trunk_in *tin)
{
    for (size_t i = 0; i < t->nlinks_in; i++) {
        const ts_link_in *l = &t->links_in[i];
        char field[64];
        long long li = (long long)i - (long long)t->link_base;
        uint32_t a = ref_sw[l->a_ref], b = ref_sw[l->b_ref];
        if (a == UINT32_MAX) {
            snprintf(field, sizeof field, "links[%lld].a", li);
            return dangling(t, l->a_ref, field);
        }
        if (b == UINT32_MAX) {
            snprintf(field, sizeof field, "links[%lld].b", li);
            return dangling(t, l->b_ref, field);
        }
        const char *an = ts_strtab_str(&t->switch_names, a), *bn = ts_strtab_str(&t->switch_names, b);
        int ta = t->sw_tier[a], tb = t->sw_tier[b];
        if (a == b)
            return ts_error(TSCHED_E_CYCLE, "links[%lld]: \"%s\" links to itself, a cycle in the switch hierarchy", li,
                            an);
        if (ta == tb)
            return ts_error(TSCHED_E_CYCLE,
                            "links[%lld]: \"%s\" and \"%s\" are both tier %d (%s); a link inside one tier makes a "
                            "cycle in the switch hierarchy",
                            li, an, bn, ta, ts_tier_word(ta));
        if (ta - tb != 1 && tb - ta != 1)
            return ts_error(TSCHED_E_RANGE,
                            "links[%lld]: \"%s\" (tier %d) and \"%s\" (tier %d) are not in adjacent tiers", li, an,
                            ta, bn, tb);
        uint32_t lo = ta < tb ? a : b, hi = ta < tb ? b : a;
        if (t->sw_tier[lo] == TSCHED_TIER_LEAF && t->sw_pod[lo] != UINT32_MAX && t->sw_pod[hi] != UINT32_MAX &&
            t->sw_pod[lo] != t->sw_pod[hi])
            return ts_error(TSCHED_E_INVALID, "links[%lld]: leaf \"%s\" in pod \"%s\" links to spine \"%s\" in pod \"%s\"",
                            li, ts_strtab_str(&t->switch_names, lo), ts_strtab_str(&t->pod_names, t->sw_pod[lo]),
                            ts_strtab_str(&t->switch_names, hi), ts_strtab_str(&t->pod_names, t->sw_pod[hi]));
        tin[i].lower = lo;
        tin[i].upper = hi;
        tin[i].links = l->count;
        tin[i].gbps = l->total_gbps;
        tin[i].seq = i;
    }
    return TSCHED_OK;
}

/* Trunks, their member links and the runs of equal-gbps members. Entries are sorted by
 * (lower, upper, input order); consecutive entries of one trunk whose links have the same
 * gbps share a run. */
static tsched_status make_trunks(tsched_topology *t, trunk_in *tin, size_t n)
{
    qsort(tin, n, sizeof *tin, cmp_trunk_in);
    size_t m = 0;
    uint64_t nmem = 0;
    for (size_t i = 0; i < n; i++) {
        nmem += tin[i].links; /* < 2^32 entries of < 2^32 links: no overflow */
        if (i == 0 || tin[i - 1].lower != tin[i].lower || tin[i - 1].upper != tin[i].upper)
            m++;
    }
    /* every member link costs memory here and in every user of the fabric (a simulation in
     * member mode has a link per member and direction): bounded before anything is made */
    tsched_status st = ts_limit_check("links: member links of all trunks", nmem, "members", ts_limits()->members);
    if (st != TSCHED_OK)
        return st;
    if (nmem > TS_MAX_MEMBERS)
        return ts_error(TSCHED_E_TOO_LARGE, "links: more than %u links in all trunks", TS_MAX_MEMBERS);
    if (m > TS_MAX_TRUNKS)
        return ts_error(TSCHED_E_TOO_LARGE, "links: %zu trunks exceed the limit of %u", m, TS_MAX_TRUNKS);
    t->ntrunks = (uint32_t)m;
    t->nmembers = (uint32_t)nmem;
    if (!(t->tr_lower = ts_malloc(m, sizeof(uint32_t))) || !(t->tr_upper = ts_malloc(m, sizeof(uint32_t))) ||
        !(t->tr_links = ts_malloc(m, sizeof(uint32_t))) || !(t->tr_gbps = ts_malloc(m, sizeof(double))) ||
        !(t->tr_up = ts_malloc(m, 1)) || !(t->tr_own = ts_malloc(m, 1)) ||
        !(t->tr_mem_off = ts_malloc(m + 1, sizeof(uint32_t))) || !(t->tr_mem_up = ts_malloc(m, sizeof(uint32_t))) ||
        !(t->tr_run_off = ts_malloc(m + 1, sizeof(uint32_t))) || !(t->mem_up = ts_malloc(nmem, 1)) ||
        !(t->run_count = ts_malloc(n, sizeof(uint32_t))) || !(t->run_total = ts_malloc(n, sizeof(double))))
        return TSCHED_E_NOMEM;
    if (nmem)
        memset(t->mem_up, 1, nmem);
    uint32_t r = UINT32_MAX, runs = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        const trunk_in *e = &tin[i];
        if (r == UINT32_MAX || t->tr_lower[r] != e->lower || t->tr_upper[r] != e->upper) {
            r = r == UINT32_MAX ? 0 : r + 1;
            t->tr_lower[r] = e->lower;
            t->tr_upper[r] = e->upper;
            t->tr_links[r] = 0;
            t->tr_up[r] = t->tr_own[r] = 1;
            t->tr_mem_off[r] = first;
            t->tr_run_off[r] = runs;
        } else if (t->tr_links[r] > UINT32_MAX - e->links) {
            return ts_error(TSCHED_E_TOO_LARGE, "links between \"%s\" and \"%s\" number more than %u",
                            ts_strtab_str(&t->switch_names, e->lower), ts_strtab_str(&t->switch_names, e->upper),
                            UINT32_MAX);
        }
        t->tr_links[r] += e->links;
        t->tr_mem_up[r] = t->tr_links[r];
        first += e->links;
        uint32_t last = runs - 1;
        if (runs > t->tr_run_off[r] && t->run_total[last] / t->run_count[last] == e->gbps / e->links) {
            t->run_count[last] += e->links;
            t->run_total[last] += e->gbps;
        } else {
            t->run_count[runs] = e->links;
            t->run_total[runs] = e->gbps;
            runs++;
        }
    }
    t->tr_mem_off[m] = first;
    t->tr_run_off[m] = runs;
    t->nruns = runs;
    for (uint32_t k = 0; k < m; k++)
        t->tr_gbps[k] = ts_trunk_capacity(t, k);
    return TSCHED_OK;
}

/* CSR adjacency. Trunks are sorted by (lower, upper), so filling in trunk order leaves
 * every list sorted by neighbour index. */
static tsched_status make_adjacency(tsched_topology *t)
{
    uint32_t ns = t->nswitches;
    if (!(t->up_off = ts_calloc((size_t)ns + 1, sizeof(uint32_t))) ||
        !(t->dn_off = ts_calloc((size_t)ns + 1, sizeof(uint32_t))) ||
        !(t->up_adj = ts_malloc(t->ntrunks, sizeof(ts_adj))) || !(t->dn_adj = ts_malloc(t->ntrunks, sizeof(ts_adj))))
        return TSCHED_E_NOMEM;
    for (uint32_t r = 0; r < t->ntrunks; r++) {
        t->up_off[t->tr_lower[r] + 1]++;
        t->dn_off[t->tr_upper[r] + 1]++;
    }
    for (uint32_t s = 0; s < ns; s++) {
        t->up_off[s + 1] += t->up_off[s];
        t->dn_off[s + 1] += t->dn_off[s];
    }
    uint32_t *upos = ts_malloc(ns, sizeof(uint32_t)), *dpos = ts_malloc(ns, sizeof(uint32_t));
    if (!upos || !dpos) {
        free(upos);
        free(dpos);
        return TSCHED_E_NOMEM;
    }
    memcpy(upos, t->up_off, ns * sizeof(uint32_t));
    memcpy(dpos, t->dn_off, ns * sizeof(uint32_t));
    for (uint32_t r = 0; r < t->ntrunks; r++) {
        uint32_t lo = t->tr_lower[r], hi = t->tr_upper[r];
        t->up_adj[upos[lo]++] = (ts_adj){hi, r};
        t->dn_adj[dpos[hi]++] = (ts_adj){lo, r};
    }
    free(upos);
    free(dpos);
    return TSCHED_OK;
}

/* A leaf without a pod joins the pod its spines share (if they all share one). */
static void inherit_pods(tsched_topology *t)
{
    for (uint32_t s = 0; s < t->nswitches; s++) {
        if (t->sw_tier[s] != TSCHED_TIER_LEAF || t->sw_pod[s] != UINT32_MAX)
            continue;
        uint32_t pod = UINT32_MAX;
        int same = 1;
        for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++) {
            uint32_t p = t->sw_pod[t->up_adj[i].sw];
            if (p == UINT32_MAX || (pod != UINT32_MAX && p != pod)) {
                same = 0;
                break;
            }
            pod = p;
        }
        if (same)
            t->sw_pod[s] = pod;
    }
}

static tsched_status make_lists(tsched_topology *t)
{
    uint32_t ns = t->nswitches, np = ts_strtab_count(&t->pod_names);
    if (!(t->sw_ord = ts_malloc(ns, sizeof(uint32_t))))
        return TSCHED_E_NOMEM;
    for (int k = 0; k < TSCHED_MAX_TIERS; k++)
        t->tier_count[k] = 0;
    t->max_tier = -1;
    for (uint32_t s = 0; s < ns; s++) {
        t->sw_ord[s] = t->tier_count[t->sw_tier[s]]++;
        if (t->sw_tier[s] > t->max_tier)
            t->max_tier = t->sw_tier[s];
    }
    for (int k = 0; k < TSCHED_MAX_TIERS; k++)
        if (!(t->tier_list[k] = ts_malloc(t->tier_count[k], sizeof(uint32_t))))
            return TSCHED_E_NOMEM;
    for (uint32_t s = 0; s < ns; s++)
        t->tier_list[t->sw_tier[s]][t->sw_ord[s]] = s;

    if (!(t->leaf_node_off = ts_calloc((size_t)ns + 1, sizeof(uint32_t))) ||
        !(t->leaf_node_list = ts_malloc(t->nnodes, sizeof(uint32_t))))
        return TSCHED_E_NOMEM;
    for (uint32_t n = 0; n < t->nnodes; n++)
        t->leaf_node_off[t->node_leaf[n] + 1]++;
    for (uint32_t s = 0; s < ns; s++)
        t->leaf_node_off[s + 1] += t->leaf_node_off[s];
    uint32_t *pos = ts_malloc((size_t)ns + 1, sizeof(uint32_t));
    if (!pos)
        return TSCHED_E_NOMEM;
    memcpy(pos, t->leaf_node_off, ((size_t)ns + 1) * sizeof(uint32_t));
    for (uint32_t n = 0; n < t->nnodes; n++)
        t->leaf_node_list[pos[t->node_leaf[n]]++] = n;
    free(pos);

    if (!(t->pod_leaf_off = ts_calloc((size_t)np + 1, sizeof(uint32_t))) ||
        !(t->pod_leaf_list = ts_malloc(t->tier_count[0], sizeof(uint32_t))))
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < t->tier_count[0]; i++) {
        uint32_t p = t->sw_pod[t->tier_list[0][i]];
        if (p != UINT32_MAX)
            t->pod_leaf_off[p + 1]++;
    }
    for (uint32_t p = 0; p < np; p++)
        t->pod_leaf_off[p + 1] += t->pod_leaf_off[p];
    if (!(pos = ts_malloc((size_t)np + 1, sizeof(uint32_t))))
        return TSCHED_E_NOMEM;
    memcpy(pos, t->pod_leaf_off, ((size_t)np + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < t->tier_count[0]; i++) {
        uint32_t p = t->sw_pod[t->tier_list[0][i]];
        if (p != UINT32_MAX)
            t->pod_leaf_list[pos[p]++] = t->tier_list[0][i];
    }
    free(pos);

    if (!(t->leaf_free = ts_calloc(ns, sizeof(uint32_t))) || !(t->pod_free = ts_calloc(np, sizeof(uint32_t))))
        return TSCHED_E_NOMEM;
    t->total_gpus = 0;
    for (uint32_t n = 0; n < t->nnodes; n++)
        t->total_gpus += t->node_gpus[n];
    return TSCHED_OK;
}

tsched_status tsched_topology_build(tsched_topology *t)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_build: topology is NULL");
    if (t->built)
        return ts_error(TSCHED_E_STATE, "tsched_topology_build: the topology is already built");
    uint32_t nrefs = ts_strtab_count(&t->refs);
    uint32_t *ref_sw = ts_malloc(nrefs, sizeof *ref_sw);
    trunk_in *tin = ts_malloc(t->nlinks_in, sizeof *tin);
    tsched_status st = TSCHED_E_NOMEM;
    if (!ref_sw || !tin)
        goto out;
    for (uint32_t r = 0; r < nrefs; r++)
        ref_sw[r] = ts_strtab_find(&t->switch_names, ts_strtab_str(&t->refs, r));
    /* Resolve into copies first: a failed build leaves the handle as it was. */
    uint32_t *leaf_save = ts_malloc(t->nnodes, sizeof(uint32_t));
    uint32_t *rail_save = ts_malloc(t->nrail, sizeof(uint32_t));
    if (!leaf_save || !rail_save) {
        free(leaf_save);
        free(rail_save);
        goto out;
    }
    /* memcpy with a NULL pointer is undefined even for 0 bytes, hence the guards. */
    if (t->nnodes)
        memcpy(leaf_save, t->node_leaf, t->nnodes * sizeof(uint32_t));
    if (t->nrail)
        memcpy(rail_save, t->rail, t->nrail * sizeof(uint32_t));
    if ((st = resolve_nodes(t, ref_sw)) != TSCHED_OK || (st = resolve_links(t, ref_sw, tin)) != TSCHED_OK) {
        if (t->nnodes)
            memcpy(t->node_leaf, leaf_save, t->nnodes * sizeof(uint32_t));
        if (t->nrail)
            memcpy(t->rail, rail_save, t->nrail * sizeof(uint32_t));
        free(leaf_save);
        free(rail_save);
        goto out;
    }
    free(leaf_save);
    free(rail_save);
    /* From here on only allocation can fail; a handle that fails here is only fit to free. */
    if ((st = make_trunks(t, tin, t->nlinks_in)) != TSCHED_OK || (st = make_adjacency(t)) != TSCHED_OK)
        goto out;
    inherit_pods(t);
    if ((st = make_lists(t)) != TSCHED_OK || (st = ts_topology_nvl_build(t)) != TSCHED_OK)
        goto out;
    t->built = 1;
    if ((st = ts_topology_index_init(t)) != TSCHED_OK) {
        t->built = 0;
        goto out;
    }
    free(t->links_in);
    t->links_in = NULL;
    t->nlinks_in = t->links_in_cap = 0;
    ts_strtab_free(&t->refs);
out:
    free(ref_sw);
    free(tin);
    return st;
}
