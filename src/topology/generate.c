/* The leaf_spine and clos3 generators of DESIGN 5.1. Names use global indices in
 * pod -> leaf -> slot order; switch indices are leaves, then spines, then cores. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/structsize.h"
#include "topology_internal.h"

void tsched_topology_params_init(tsched_gen_params *p, tsched_gen_kind kind)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->kind = kind;
    p->nodes_per_leaf = 16;
    p->gpus_per_node = 8;
    p->nic_gbps = 400;
    p->oversubscription = 1.0;
    if (kind == TSCHED_GEN_LEAF_SPINE) {
        p->leaves = 8;
        p->spines = 8;
    } else {
        p->pods = 4;
        p->leaves_per_pod = 8;
        p->spines_per_pod = 8;
        p->cores = 16;
    }
}

static tsched_status need(uint32_t v, const char *field)
{
    if (v == 0)
        return ts_error(TSCHED_E_RANGE, "generate.%s: must be at least 1", field);
    return TSCHED_OK;
}

/* ceil(a / b) for positive reals, as a link count of at least 1. */
static uint64_t ceil_div(double a, double b)
{
    double q = ceil(a / b - 1e-9);
    return q < 1 ? 1 : (uint64_t)q;
}

/* a * b, saturating, so that absurd shapes are reported as what they are, not wrapped. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static tsched_status too_large(uint64_t n, const char *what, uint32_t limit)
{
    char field[48];
    snprintf(field, sizeof field, "generate: %s", what);
    return ts_limit_error(field, (unsigned long long)n, what, limit);
}

static const ts_span gen_spans[] = {
    TS_SPAN(tsched_gen_params, size),           TS_SPAN(tsched_gen_params, kind),
    TS_SPAN(tsched_gen_params, name),           TS_SPAN(tsched_gen_params, leaves),
    TS_SPAN(tsched_gen_params, spines),         TS_SPAN(tsched_gen_params, pods),
    TS_SPAN(tsched_gen_params, leaves_per_pod), TS_SPAN(tsched_gen_params, spines_per_pod),
    TS_SPAN(tsched_gen_params, cores),          TS_SPAN(tsched_gen_params, nodes_per_leaf),
    TS_SPAN(tsched_gen_params, gpus_per_node),  TS_SPAN(tsched_gen_params, nics_per_node),
    TS_SPAN(tsched_gen_params, uplinks),        TS_SPAN(tsched_gen_params, nic_gbps),
    TS_SPAN(tsched_gen_params, oversubscription), TS_SPAN(tsched_gen_params, gpu_type),
    TS_SPAN(tsched_gen_params, homes),
};

/* The caller's parameters over the defaults of its kind (DESIGN 3 size rule). */
static tsched_status read_params(tsched_gen_params *out, const tsched_gen_params *p)
{
    if (!p)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_generate: params is NULL");
    tsched_gen_kind kind;
    size_t size;
    memcpy(&size, p, sizeof size);
    if (size >= offsetof(tsched_gen_params, kind) + sizeof p->kind)
        kind = p->kind;
    else
        kind = TSCHED_GEN_CLOS3;
    tsched_topology_params_init(out, kind);
    return ts_struct_in(out, p, gen_spans, TS_NSPANS(gen_spans), sizeof *out, "tsched_gen_params");
}

static tsched_status add_named(tsched_topology *t, const char *prefix, uint32_t i, int tier, const char *pod)
{
    char name[32];
    snprintf(name, sizeof name, "%s%u", prefix, i);
    return tsched_topology_add_switch(NULL, t, name, tier, pod);
}

static tsched_status link_named(tsched_topology *t, const char *pa, uint32_t a, const char *pb, uint32_t b,
                                double gbps, uint64_t count)
{
    char na[32], nb[32];
    snprintf(na, sizeof na, "%s%u", pa, a);
    snprintf(nb, sizeof nb, "%s%u", pb, b);
    return ts_topology_add_link_total(t, na, nb, gbps * (double)count, (uint32_t)count);
}

/* NIC k of a node of the leaf group starting at `first` goes to leaf first + k / (nics /
 * homes): NIC k of every node of the group on one leaf, so that NIC k to NIC k traffic
 * inside a group stays on its leaf. */
static tsched_status set_homes(tsched_topology *t, uint32_t node, uint64_t first, uint32_t homes, uint32_t nics)
{
    char names[TS_MAX_NICS_PER_NODE][32];
    const char *rails[TS_MAX_NICS_PER_NODE];
    for (uint32_t h = 0; h < homes; h++)
        snprintf(names[h], sizeof names[h], "leaf%llu", (unsigned long long)(first + h));
    for (uint32_t k = 0; k < nics; k++)
        rails[k] = names[k / (nics / homes)];
    return tsched_topology_set_rails(t, node, rails, nics);
}

tsched_status ts_topology_generate_into(tsched_topology *t, const tsched_gen_params *user)
{
    tsched_gen_params params;
    tsched_status st = read_params(&params, user);
    if (st != TSCHED_OK)
        return st;
    const tsched_gen_params *p = &params;
    const tsched_limits *lim = ts_limits();
    int clos3 = p->kind == TSCHED_GEN_CLOS3;
    if (p->kind != TSCHED_GEN_LEAF_SPINE && !clos3)
        return ts_error(TSCHED_E_FORMAT, "generate.kind: unknown kind %d", (int)p->kind);
    uint32_t leaves = clos3 ? 0 : p->leaves, spines = clos3 ? 0 : p->spines;
    if (clos3) {
        if ((st = need(p->pods, "pods")) || (st = need(p->leaves_per_pod, "leaves_per_pod")) ||
            (st = need(p->spines_per_pod, "spines_per_pod")) || (st = need(p->cores, "cores")))
            return st;
        if (p->cores < p->spines_per_pod)
            return ts_error(TSCHED_E_RANGE,
                            "generate.cores: %u cores leave some of the %u spine planes without a core; need at "
                            "least spines_per_pod",
                            p->cores, p->spines_per_pod);
    } else {
        if ((st = need(p->leaves, "leaves")) || (st = need(p->spines, "spines")))
            return st;
    }
    if ((st = need(p->nodes_per_leaf, "nodes_per_leaf")) || (st = need(p->gpus_per_node, "gpus_per_node")))
        return st;
    if (p->gpus_per_node > lim->gpus_per_node)
        return too_large(p->gpus_per_node, "gpus_per_node", lim->gpus_per_node);
    uint32_t nics = p->nics_per_node ? p->nics_per_node : p->gpus_per_node;
    if (nics > lim->nics_per_node)
        return too_large(nics, "nics_per_node", lim->nics_per_node);
    if (!isfinite(p->nic_gbps) || p->nic_gbps <= 0 || p->nic_gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_RANGE, "generate.nic_gbps: %g is out of range (0, %g]", p->nic_gbps, TS_MAX_GBPS);
    /* Multi-homed nodes: the leaves (of a pod) form groups of `homes` consecutive leaves,
     * and every node of a group has nics / homes NICs on each of them, so each leaf still
     * carries nodes_per_leaf * nics NICs and the capacities below do not change. */
    uint32_t homes = p->homes ? p->homes : 1;
    uint32_t group_leaves = clos3 ? p->leaves_per_pod : p->leaves;
    if (homes > 1 && nics % homes != 0)
        return ts_error(TSCHED_E_RANGE, "generate.homes: %u does not divide the %u NICs of a node", homes, nics);
    if (homes > 1 && group_leaves % homes != 0)
        return ts_error(TSCHED_E_RANGE, "generate.homes: %u does not divide the %u leaves%s", homes, group_leaves,
                        clos3 ? " of a pod" : "");
    double over = p->oversubscription == 0 ? 1.0 : p->oversubscription;
    if (!isfinite(over) || over < 1 || over > 1e6)
        return ts_error(TSCHED_E_RANGE, "generate.oversubscription: %g is out of range [1, 1e6]", over);

    /* Sizes in 64 bits first, so absurd shapes fail before any allocation. */
    uint64_t nleaves = clos3 ? mul_sat(p->pods, p->leaves_per_pod) : leaves;
    uint64_t nspines = clos3 ? mul_sat(p->pods, p->spines_per_pod) : spines;
    uint64_t nnodes = mul_sat(nleaves, p->nodes_per_leaf);
    uint64_t nswitches = add_sat(add_sat(nleaves, nspines), clos3 ? p->cores : 0);
    uint64_t ntrunks = clos3 ? add_sat(mul_sat(nleaves, p->spines_per_pod), mul_sat(p->pods, p->cores))
                             : mul_sat(nleaves, spines);
    if (nnodes > lim->nodes)
        return too_large(nnodes, "nodes", lim->nodes);
    if (nswitches > lim->switches)
        return too_large(nswitches, "switches", lim->switches);
    if (ntrunks > lim->trunks)
        return too_large(ntrunks, "trunks", lim->trunks);

    /* Capacities (doc/topology.md): every fabric link runs at nic_gbps; a leaf-spine trunk
     * has enough links to carry the leaf's NICs spread over its spines, divided by the
     * oversubscription; a spine-core trunk likewise carries the spine's downlinks spread
     * over the cores of its plane. */
    uint64_t nics_per_leaf = (uint64_t)p->nodes_per_leaf * nics;
    uint32_t spl = clos3 ? p->spines_per_pod : spines;
    uint64_t up_ls = p->uplinks ? p->uplinks : ceil_div((double)nics_per_leaf, spl * over);
    uint64_t lpp = clos3 ? p->leaves_per_pod : 0;
    uint64_t cores_per_plane_min = clos3 ? p->cores / p->spines_per_pod : 0;
    if (up_ls > TS_MAX_LINK_COUNT)
        return ts_error(TSCHED_E_TOO_LARGE, "generate: %llu links per leaf-spine trunk exceed the limit of %u",
                        (unsigned long long)up_ls, TS_MAX_LINK_COUNT);

    /* member links of all trunks, before anything is made (the builder checks again) */
    uint64_t members = mul_sat(mul_sat(nleaves, spl), up_ls);
    for (uint32_t pd = 0; clos3 && pd < p->pods && members <= lim->members; pd++)
        for (uint32_t s = 0; s < p->spines_per_pod && members <= lim->members; s++) {
            uint64_t in_plane = cores_per_plane_min + (s < p->cores % p->spines_per_pod ? 1 : 0);
            uint64_t per_core = ceil_div((double)ceil_div((double)(lpp * up_ls), over), (double)in_plane);
            members = add_sat(members, mul_sat(per_core, in_plane));
        }
    if (members > lim->members)
        return too_large(members, "members", lim->members);

    char pod[32];
    for (uint64_t l = 0; l < nleaves && st == TSCHED_OK; l++) {
        snprintf(pod, sizeof pod, "pod%llu", (unsigned long long)(clos3 ? l / lpp : 0));
        st = add_named(t, "leaf", (uint32_t)l, TSCHED_TIER_LEAF, clos3 ? pod : NULL);
    }
    for (uint64_t s = 0; s < nspines && st == TSCHED_OK; s++) {
        snprintf(pod, sizeof pod, "pod%llu", (unsigned long long)(clos3 ? s / p->spines_per_pod : 0));
        st = add_named(t, "spine", (uint32_t)s, TSCHED_TIER_SPINE, clos3 ? pod : NULL);
    }
    for (uint32_t c = 0; clos3 && c < p->cores && st == TSCHED_OK; c++)
        st = add_named(t, "core", c, TSCHED_TIER_CORE, NULL);
    const char *type = p->gpu_type && *p->gpu_type ? p->gpu_type : "GPU";
    char nname[32], lname[32];
    for (uint64_t n = 0; n < nnodes && st == TSCHED_OK; n++) {
        uint64_t first = homes > 1 ? n / ((uint64_t)homes * p->nodes_per_leaf) * homes : n / p->nodes_per_leaf;
        uint32_t idx;
        snprintf(nname, sizeof nname, "node%llu", (unsigned long long)n);
        snprintf(lname, sizeof lname, "leaf%llu", (unsigned long long)first);
        st = tsched_topology_add_node(&idx, t, nname, lname, p->gpus_per_node, nics, type, p->nic_gbps);
        if (st == TSCHED_OK && homes > 1)
            st = set_homes(t, idx, first, homes, nics);
    }
    for (uint64_t l = 0; l < nleaves && st == TSCHED_OK; l++) {
        uint64_t first = clos3 ? (l / lpp) * p->spines_per_pod : 0;
        for (uint32_t s = 0; s < spl && st == TSCHED_OK; s++)
            st = link_named(t, "leaf", (uint32_t)l, "spine", (uint32_t)(first + s), p->nic_gbps, up_ls);
    }
    if (clos3) {
        for (uint32_t pd = 0; pd < p->pods && st == TSCHED_OK; pd++) {
            for (uint32_t s = 0; s < p->spines_per_pod && st == TSCHED_OK; s++) {
                uint64_t in_plane = cores_per_plane_min + (s < p->cores % p->spines_per_pod ? 1 : 0);
                uint64_t spine_up = ceil_div((double)(lpp * up_ls), over);
                uint64_t per_core = ceil_div((double)spine_up, (double)in_plane);
                if (per_core > TS_MAX_LINK_COUNT) {
                    st = ts_error(TSCHED_E_TOO_LARGE, "generate: %llu links per spine-core trunk exceed the limit of %u",
                                  (unsigned long long)per_core, TS_MAX_LINK_COUNT);
                    break;
                }
                for (uint32_t c = s; c < p->cores && st == TSCHED_OK; c += p->spines_per_pod)
                    st = link_named(t, "spine", pd * p->spines_per_pod + s, "core", c, p->nic_gbps, per_core);
            }
        }
    }
    return st;
}

tsched_status tsched_topology_generate(tsched_topology **out, const tsched_gen_params *p)
{
    tsched_status st;
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_generate: out is NULL");
    *out = NULL;
    tsched_topology *t;
    tsched_gen_params params;
    if ((st = read_params(&params, p)) != TSCHED_OK)
        return st;
    if ((st = tsched_topology_new(&t, params.name)) != TSCHED_OK)
        return st;
    if ((st = ts_topology_generate_into(t, p)) != TSCHED_OK || (st = tsched_topology_build(t)) != TSCHED_OK) {
        tsched_topology_free(t);
        return st;
    }
    *out = t;
    return TSCHED_OK;
}
