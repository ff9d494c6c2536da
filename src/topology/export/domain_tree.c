/* The domain tree of the exports (see domain_tree.h). Components are found with one
 * union-find over the switches, adding the trunks of one tier at a time, so the whole tree
 * costs O((switches + trunks + nodes) * tiers). Only the public getters are used. */
#include "domain_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/sbuf.h"

#define NONE TSCHED_NONE

/* ---- NVLink domains of the model (design: interop §1) -------------------------------- */

static uint32_t nvl_count(const tsched_topology *t) { return tsched_topology_num_nvl_domains(t); }
static uint32_t nvl_of(const tsched_topology *t, uint32_t n) { return tsched_topology_node_nvl(t, n); }
static const char *nvl_name(const tsched_topology *t, uint32_t d) { return tsched_topology_nvl_name(t, d); }

const char *ts_tier_name(char *buf, size_t cap, int tier)
{
    static const char *const named[] = {"leaf", "spine", "core"};
    if (tier >= 0 && tier < 3)
        snprintf(buf, cap, "%s", named[tier]);
    else
        snprintf(buf, cap, "tier%d", tier);
    return buf;
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    uint32_t r = x;
    while (p[r] != r)
        r = p[r];
    while (p[x] != r) {
        uint32_t nx = p[x];
        p[x] = r;
        x = nx;
    }
    return r;
}

static void uf_union(uint32_t *p, uint32_t a, uint32_t b)
{
    a = uf_find(p, a);
    b = uf_find(p, b);
    if (a != b)
        p[a < b ? b : a] = a < b ? a : b;
}


#define MIXED (NONE - 1)
#define UNSET (NONE - 2)

/* For the tier-1 components (union-find `parent`): rootpod[root] = the one pod of all its
 * leaves (MIXED otherwise), podroot[pod] = the one component of all its leaves. */
static tsched_status pod_roots(uint32_t **rootpod, uint32_t **podroot, const tsched_topology *t, uint32_t *parent)
{
    uint32_t ns = tsched_topology_num_switches(t), np = tsched_topology_num_pods(t);
    uint32_t nleaves = tsched_topology_num_tier(t, 0);
    *rootpod = ts_malloc(ns ? ns : 1, sizeof **rootpod);
    *podroot = ts_malloc(np ? np : 1, sizeof **podroot);
    if (!*rootpod || !*podroot)
        return TSCHED_E_NOMEM;
    for (uint32_t s = 0; s < ns; s++)
        (*rootpod)[s] = UNSET; /* unset */
    for (uint32_t p = 0; p < np; p++)
        (*podroot)[p] = UNSET;
    for (uint32_t i = 0; i < nleaves; i++) {
        uint32_t leaf = tsched_topology_tier_switch(t, 0, i), r = uf_find(parent, leaf);
        uint32_t pod = tsched_topology_switch_pod(t, leaf);
        uint32_t *rp = &(*rootpod)[r];
        *rp = *rp == UNSET ? pod : *rp == pod ? pod : MIXED;
        if (pod != NONE && pod < np) {
            uint32_t *pr = &(*podroot)[pod];
            *pr = *pr == UNSET ? r : *pr == r ? r : MIXED;
        }
    }
    return TSCHED_OK;
}

/* A tier-1 component is named after its pod when the pod's leaves are exactly its own. */
static int podname_ok(const tsched_topology *t, uint32_t *parent, const uint32_t *rootpod, const uint32_t *podroot,
                      uint32_t leaf)
{
    uint32_t r = uf_find(parent, leaf), pod = rootpod[r];
    return pod != NONE && pod < tsched_topology_num_pods(t) && podroot[pod] == r;
}

static void level_free(ts_dlevel *l)
{
    free(l->node_dom);
    free(l->first_node);
    free((void *)l->name);
    free(l->sw);
    free(l->sw_dom);
    memset(l, 0, sizeof *l);
}

void ts_dtree_free(ts_dtree *d)
{
    if (!d)
        return;
    for (uint32_t k = 0; k < TS_DT_MAX_TIERS; k++)
        level_free(&d->tier[k]);
    level_free(&d->nvl);
    free(d->names);
    memset(d, 0, sizeof *d);
}

/* Allocate the per-node array and room for `cap` domains. */
static tsched_status level_alloc(ts_dlevel *l, uint32_t nnodes, uint32_t cap)
{
    l->node_dom = ts_malloc(nnodes ? nnodes : 1, sizeof *l->node_dom);
    l->first_node = ts_malloc(cap ? cap : 1, sizeof *l->first_node);
    l->name = ts_calloc(cap ? cap : 1, sizeof *l->name);
    l->sw = ts_malloc(cap ? cap : 1, sizeof *l->sw);
    return l->node_dom && l->first_node && l->name && l->sw ? TSCHED_OK : TSCHED_E_NOMEM;
}

/* Every domain of `a` lies inside one domain of `b`. */
static int nests(const ts_dlevel *a, const ts_dlevel *b, uint32_t nnodes)
{
    for (uint32_t n = 0; n < nnodes; n++)
        if (b->node_dom[n] != b->node_dom[a->first_node[a->node_dom[n]]])
            return 0;
    return 1;
}

/* Generated names are kept as offsets into one buffer until it stops moving. */
typedef struct gen_ref {
    const char **slot;
    size_t off;
} gen_ref;

tsched_status ts_dtree_build(ts_dtree *d, const tsched_topology *t)
{
    memset(d, 0, sizeof *d);
    d->nvl_pos = -1;
    if (!t)
        return ts_error(TSCHED_E_INVALID, "domain tree: topology is NULL");
    uint32_t nn = tsched_topology_num_nodes(t), ns = tsched_topology_num_switches(t);
    uint32_t ntr = tsched_topology_num_trunks(t);
    d->nnodes = nn;
    int top = -1;
    for (uint32_t s = 0; s < ns; s++) {
        int k = tsched_topology_switch_tier(t, s);
        if (k > top)
            top = k;
    }
    d->ntiers = top >= 0 ? (uint32_t)top + 1 : 0;
    if (d->ntiers > TS_DT_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "domain tree: tier %d is beyond the model's %d tiers", top, TS_DT_MAX_TIERS);
    uint32_t *parent = ts_malloc(ns ? ns : 1, sizeof *parent);
    uint32_t *rootdom = ts_malloc(ns ? ns : 1, sizeof *rootdom);
    uint32_t *count = ts_malloc(ns ? ns : 1, sizeof *count);
    uint32_t *one = ts_malloc(ns ? ns : 1, sizeof *one);
    uint32_t *rootpod = NULL, *podroot = NULL;
    gen_ref *refs = NULL;
    size_t nrefs = 0, refs_cap = 0;
    ts_sbuf gen;
    ts_sbuf_init(&gen);
    tsched_status st = TSCHED_OK;
    if (!parent || !rootdom || !count || !one) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < ns; s++)
        parent[s] = s;
    uint32_t nleaves = tsched_topology_num_tier(t, 0);
    for (uint32_t k = 0; k < d->ntiers; k++) {
        ts_dlevel *l = &d->tier[k];
        l->tier = (int)k;
        for (uint32_t r = 0; r < ntr; r++) {
            uint32_t up = tsched_topology_trunk_upper(t, r);
            if (k > 0 && tsched_topology_switch_tier(t, up) == (int)k)
                uf_union(parent, up, tsched_topology_trunk_lower(t, r));
        }
        if ((st = level_alloc(l, nn, nleaves)) != TSCHED_OK)
            goto out;
        for (uint32_t s = 0; s < ns; s++)
            rootdom[s] = NONE;
        /* domains in order of first leaf, leaves holding a node only */
        for (uint32_t i = 0; i < nleaves; i++) {
            uint32_t leaf = tsched_topology_tier_switch(t, 0, i), cnt = 0;
            tsched_topology_leaf_nodes(t, leaf, &cnt);
            if (cnt == 0)
                continue;
            uint32_t r = uf_find(parent, leaf);
            if (rootdom[r] == NONE) {
                rootdom[r] = l->ndom;
                l->sw[l->ndom] = leaf; /* first leaf for now */
                l->first_node[l->ndom] = NONE;
                l->ndom++;
            }
        }
        if (!(l->sw_dom = ts_malloc(ns, sizeof *l->sw_dom))) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
        for (uint32_t s = 0; s < ns; s++)
            l->sw_dom[s] = tsched_topology_switch_tier(t, s) <= (int)k ? rootdom[uf_find(parent, s)] : NONE;
        for (uint32_t n = 0; n < nn; n++) {
            uint32_t dom = rootdom[uf_find(parent, tsched_topology_node_leaf(t, n))];
            l->node_dom[n] = dom;
            if (l->first_node[dom] == NONE)
                l->first_node[dom] = n;
        }
        if (k == 0) {
            for (uint32_t x = 0; x < l->ndom; x++)
                l->name[x] = tsched_topology_switch_name(t, l->sw[x]);
            continue;
        }
        if (k == 1 && (st = pod_roots(&rootpod, &podroot, t, parent)) != TSCHED_OK)
            goto out;
        for (uint32_t x = 0; x < l->ndom; x++)
            count[x] = 0;
        for (uint32_t i = 0, m = tsched_topology_num_tier(t, (int)k); i < m; i++) {
            uint32_t s = tsched_topology_tier_switch(t, (int)k, i), x = rootdom[uf_find(parent, s)];
            if (x != NONE && count[x]++ == 0)
                one[x] = s;
        }
        for (uint32_t x = 0; x < l->ndom; x++) {
            uint32_t first_leaf = l->sw[x];
            l->sw[x] = NONE;
            if (count[x] == 1) {
                l->sw[x] = one[x];
                l->name[x] = tsched_topology_switch_name(t, one[x]);
                continue;
            }
            if (k == 1 && podname_ok(t, parent, rootpod, podroot, first_leaf)) {
                l->name[x] = tsched_topology_pod_name(t, tsched_topology_switch_pod(t, first_leaf));
                continue;
            }
            char tn[16];
            if ((st = TS_GROW(refs, refs_cap, nrefs + 1)) != TSCHED_OK)
                goto out;
            refs[nrefs].slot = &l->name[x];
            refs[nrefs].off = gen.len;
            nrefs++;
            ts_sbuf_printf(&gen, "%s-%u", ts_tier_name(tn, sizeof tn, (int)k), x);
            ts_sbuf_putc(&gen, '\0');
        }
    }
    /* NVLink level */
    if (nvl_count(t) > 0 && nn > 0) {
        ts_dlevel *l = &d->nvl;
        d->has_nvl = 1;
        l->nvl = 1;
        l->tier = -1;
        uint32_t nd = nvl_count(t);
        uint32_t *map = ts_malloc(nd, sizeof *map);
        if (!map || (st = level_alloc(l, nn, nn)) != TSCHED_OK) {
            free(map);
            st = TSCHED_E_NOMEM;
            goto out;
        }
        for (uint32_t v = 0; v < nd; v++)
            map[v] = NONE;
        for (uint32_t n = 0; n < nn; n++) {
            uint32_t v = nvl_of(t, n);
            uint32_t x = v != NONE && v < nd ? map[v] : NONE;
            if (x == NONE) {
                x = l->ndom++;
                l->first_node[x] = n;
                l->sw[x] = v < nd ? v : NONE;
                l->name[x] = v < nd ? nvl_name(t, v) : tsched_topology_node_name(t, n);
                if (v < nd)
                    map[v] = x;
            }
            l->node_dom[n] = x;
        }
        free(map);
        if (d->ntiers > 0 && nests(l, &d->tier[0], nn)) {
            d->nvl_pos = 0;
        } else {
            for (uint32_t k = 0; k < d->ntiers; k++)
                if (nests(&d->tier[k], l, nn) && (k + 1 == d->ntiers || nests(l, &d->tier[k + 1], nn))) {
                    d->nvl_pos = (int)k + 1;
                    break;
                }
        }
    }
    {
        char *names;
        if ((st = ts_sbuf_take(&names, &gen)) != TSCHED_OK)
            goto out;
        d->names = names;
        for (size_t i = 0; i < nrefs; i++)
            *refs[i].slot = names + refs[i].off;
    }
out:
    free(parent);
    free(rootdom);
    free(count);
    free(one);
    free(refs);
    free(rootpod);
    free(podroot);
    ts_sbuf_free(&gen);
    if (st != TSCHED_OK)
        ts_dtree_free(d);
    return st;
}

uint32_t ts_dtree_nlevels(const ts_dtree *d) { return d->ntiers + (d->has_nvl && d->nvl_pos >= 0 ? 1 : 0); }

const ts_dlevel *ts_dtree_level(const ts_dtree *d, uint32_t i)
{
    if (d->has_nvl && d->nvl_pos >= 0) {
        if (i == (uint32_t)d->nvl_pos)
            return &d->nvl;
        if (i > (uint32_t)d->nvl_pos)
            i--;
    }
    return i < d->ntiers ? &d->tier[i] : NULL;
}
