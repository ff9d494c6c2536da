/* Reading `tsched.topology.v1` (DESIGN 5.1). Every error names the field as a JSON path
 * (`nodes[12].leaf`); the file loader prefixes the file name. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "topology_internal.h"

#define TOPOLOGY_FORMAT "tsched.topology.v1"

static tsched_status read_generate(tsched_gen_params *p, const json_t *g)
{
    tsched_status st;
    const char *kind;
    if ((st = ts_json_str(&kind, g, "generate", "kind", 1)) != TSCHED_OK)
        return st;
    if (strcmp(kind, "leaf_spine") == 0)
        tsched_topology_params_init(p, TSCHED_GEN_LEAF_SPINE);
    else if (strcmp(kind, "clos3") == 0)
        tsched_topology_params_init(p, TSCHED_GEN_CLOS3);
    else
        return ts_error(TSCHED_E_FORMAT, "generate.kind: unknown kind \"%s\"; expected \"leaf_spine\" or \"clos3\"",
                        kind);
    int clos3 = p->kind == TSCHED_GEN_CLOS3;
    const uint32_t big = UINT32_MAX;
    if (clos3) {
        if ((st = ts_json_u32(&p->pods, g, "generate", "pods", 1, 1, big)) ||
            (st = ts_json_u32(&p->leaves_per_pod, g, "generate", "leaves_per_pod", 1, 1, big)) ||
            (st = ts_json_u32(&p->spines_per_pod, g, "generate", "spines_per_pod", 1, 1, big)) ||
            (st = ts_json_u32(&p->cores, g, "generate", "cores", 1, 1, big)))
            return st;
    } else {
        if ((st = ts_json_u32(&p->leaves, g, "generate", "leaves", 1, 1, big)) ||
            (st = ts_json_u32(&p->spines, g, "generate", "spines", 1, 1, big)))
            return st;
    }
    if ((st = ts_json_u32(&p->nodes_per_leaf, g, "generate", "nodes_per_leaf", 1, 1, big)) ||
        (st = ts_json_u32(&p->gpus_per_node, g, "generate", "gpus_per_node", 1, 1, TS_MAX_GPUS_PER_NODE)) ||
        (st = ts_json_u32(&p->nics_per_node, g, "generate", "nics_per_node", 0, 1, TS_MAX_NICS_PER_NODE)) ||
        (st = ts_json_u32(&p->uplinks, g, "generate", "uplinks", 0, 1, TS_MAX_LINK_COUNT)) ||
        (st = ts_json_num(&p->nic_gbps, g, "generate", "nic_gbps", 1, 0, 1, TS_MAX_GBPS)) ||
        (st = ts_json_num(&p->oversubscription, g, "generate", "oversubscription", 0, 1, 0, 1e6)) ||
        (st = ts_json_str(&p->gpu_type, g, "generate", "gpu_type", 0)) ||
        (st = ts_json_u32(&p->homes, g, "generate", "homes", 0, 1, TS_MAX_NICS_PER_NODE)))
        return st;
    return TSCHED_OK;
}

/* The saver lists pods in index order, so that a pod a leaf only inherited keeps its
 * index when the document is read back. */
static tsched_status read_pods(tsched_topology *t, const json_t *arr)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        char where[48];
        snprintf(where, sizeof where, "pods[%zu]", i);
        if (!json_is_string(v) || json_string_length(v) == 0)
            return ts_error(TSCHED_E_TYPE, "%s: expected a pod name, got %s", where,
                            json_is_string(v) ? "an empty string" : ts_json_type_name(v));
        uint32_t id;
        tsched_status st = ts_strtab_intern(&t->pod_names, json_string_value(v), &id, NULL);
        if (st != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_switches(tsched_topology *t, const json_t *arr)
{
    tsched_status st;
    size_t i;
    const json_t *v;
    t->switch_base = t->nswitches;
    json_array_foreach(arr, i, v)
    {
        char where[48];
        snprintf(where, sizeof where, "switches[%zu]", i);
        if (!json_is_object(v))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
        const char *name, *pod = NULL, *value = NULL;
        uint32_t tier, idx;
        /* any tier reaches add_switch, whose range error names the switch */
        if ((st = ts_json_str(&name, v, where, "name", 1)) ||
            (st = ts_json_u32(&tier, v, where, "tier", 1, 0, INT32_MAX)) ||
            (st = ts_json_str(&pod, v, where, "pod", 0)) || (st = ts_json_str(&value, v, where, "value", 0)) ||
            (st = tsched_topology_add_switch(&idx, t, name, (int)tier, pod)) ||
            (value && (st = tsched_topology_set_switch_value(t, idx, value))))
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_rails(tsched_topology *t, uint32_t node, const json_t *rails, const char *where)
{
    size_t n = json_array_size(rails);
    const char **names = ts_calloc(n ? n : 1, sizeof *names);
    if (!names)
        return TSCHED_E_NOMEM;
    tsched_status st = TSCHED_OK;
    for (size_t k = 0; k < n; k++) {
        const json_t *r = json_array_get(rails, k);
        if (!json_is_string(r) || json_string_length(r) == 0) {
            st = ts_error(TSCHED_E_TYPE, "%s.rails[%zu]: expected a leaf name, got %s", where, k,
                          json_is_string(r) ? "an empty string" : ts_json_type_name(r));
            goto out;
        }
        names[k] = json_string_value(r);
    }
    st = tsched_topology_set_rails(t, node, names, (uint32_t)n);
out:
    free(names);
    return st;
}

static tsched_status read_nodes(tsched_topology *t, const json_t *arr, double default_gbps)
{
    tsched_status st;
    size_t i;
    const json_t *v;
    t->node_base = t->nnodes;
    json_array_foreach(arr, i, v)
    {
        char where[48];
        snprintf(where, sizeof where, "nodes[%zu]", i);
        if (!json_is_object(v))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
        const char *name, *leaf = NULL, *type = NULL, *nvl = NULL, *host = NULL;
        uint32_t gpus, nics = 0, idx;
        double gbps = default_gbps;
        const json_t *rails;
        if ((st = ts_json_str(&name, v, where, "name", 1)) || (st = ts_json_arr(&rails, v, where, "rails", 0)) ||
            (st = ts_json_str(&leaf, v, where, "leaf", rails == NULL)) ||
            (st = ts_json_u32(&gpus, v, where, "gpus", 1, 1, TS_MAX_GPUS_PER_NODE)) ||
            (st = ts_json_u32(&nics, v, where, "nics", 0, 1, TS_MAX_NICS_PER_NODE)) ||
            (st = ts_json_str(&type, v, where, "gpu_type", 0)) ||
            (st = ts_json_num(&gbps, v, where, "nic_gbps", 0, 0, 1, TS_MAX_GBPS)) ||
            (st = ts_json_str(&nvl, v, where, "nvl_domain", 0)) || (st = ts_json_str(&host, v, where, "hostname_label", 0)))
            return st;
        if (nics == 0)
            nics = rails ? (uint32_t)json_array_size(rails) : gpus;
        if (rails && !leaf) {
            const json_t *r0 = json_array_get(rails, 0);
            leaf = json_is_string(r0) && json_string_length(r0) ? json_string_value(r0) : NULL;
            if (!leaf)
                return ts_error(TSCHED_E_NOT_FOUND, "%s.rails[0]: a node needs a leaf for its first NIC", where);
        }
        if ((st = tsched_topology_add_node(&idx, t, name, leaf, gpus, nics, type, gbps)) != TSCHED_OK)
            return st;
        if (rails && (st = read_rails(t, idx, rails, where)) != TSCHED_OK)
            return st;
        if (nvl) {
            if (!*nvl)
                return ts_error(TSCHED_E_RANGE, "%s.nvl_domain: a name must not be empty", where);
            if ((st = tsched_topology_set_nvl_domain(t, idx, nvl)) != TSCHED_OK)
                return st;
        }
        if (host && (st = tsched_topology_set_node_hostname(t, idx, host)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_links(tsched_topology *t, const json_t *arr)
{
    tsched_status st;
    size_t i;
    const json_t *v;
    t->link_base = t->nlinks_in;
    json_array_foreach(arr, i, v)
    {
        char where[48];
        snprintf(where, sizeof where, "links[%zu]", i);
        if (!json_is_object(v))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
        const char *a, *b;
        double gbps, cap = 0;
        uint32_t count = 1;
        /* With capacity_gbps present, gbps is informative (capacity / count) and may
         * exceed the per-link limit for trunks the saver merged. */
        if ((st = ts_json_str(&a, v, where, "a", 1)) || (st = ts_json_str(&b, v, where, "b", 1)) ||
            (st = ts_json_u32(&count, v, where, "count", 0, 1, TS_MAX_LINK_COUNT)) ||
            (st = ts_json_num(&cap, v, where, "capacity_gbps", 0, TS_MIN_GBPS, 0, TS_MAX_GBPS * (double)TS_MAX_LINK_COUNT)) ||
            (st = ts_json_num(&gbps, v, where, "gbps", 1, 0, 1, cap > 0 ? DBL_MAX : TS_MAX_GBPS)))
            return st;
        /* capacity_gbps (written by the saver when gbps * count would not give the
         * trunk's capacity back exactly) wins over gbps * count. */
        if ((st = ts_topology_add_link_total(t, a, b, cap > 0 ? cap : gbps * count, count)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_state(tsched_topology *t, const json_t *state)
{
    tsched_status st;
    const json_t *free_gpus, *down;
    if ((st = ts_json_obj(&free_gpus, state, "state", "free_gpus", 0)) ||
        (st = ts_json_arr(&down, state, "state", "down", 0)))
        return st;
    if (free_gpus) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)free_gpus, key, v)
        {
            uint32_t n = tsched_topology_find_node(t, key), f;
            if (n == TSCHED_NONE)
                return ts_error(TSCHED_E_NOT_FOUND, "state.free_gpus.%s: no node named \"%s\"", key, key);
            if ((st = ts_json_u32(&f, free_gpus, "state.free_gpus", key, 1, 0, UINT32_MAX)) != TSCHED_OK)
                return st;
            if ((st = tsched_topology_set_free_gpus(t, n, f)) != TSCHED_OK)
                return st;
        }
    }
    if (down) {
        size_t i;
        const json_t *v;
        json_array_foreach(down, i, v)
        {
            char where[48];
            snprintf(where, sizeof where, "state.down[%zu]", i);
            if (!json_is_string(v))
                return ts_error(TSCHED_E_TYPE, "%s: expected a name, got %s", where, ts_json_type_name(v));
            if ((st = tsched_topology_set_up(t, json_string_value(v), 0)) != TSCHED_OK)
                return ts_error_prefix(st, where);
        }
    }
    return TSCHED_OK;
}

/* "labels": { "tiers": [K0, K1, ...], "nvl": K } */
static tsched_status read_labels(tsched_topology *t, const json_t *labels)
{
    tsched_status st;
    const json_t *tiers;
    const char *nvl = NULL;
    if ((st = ts_json_arr(&tiers, labels, "labels", "tiers", 0)) ||
        (st = ts_json_str(&nvl, labels, "labels", "nvl", 0)))
        return st;
    size_t n = tiers ? json_array_size(tiers) : 0;
    if (n > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "labels.tiers: %zu keys; at most %d tiers", n, TSCHED_MAX_TIERS);
    const char *keys[TSCHED_MAX_TIERS];
    for (size_t i = 0; i < n; i++) {
        const json_t *k = json_array_get(tiers, i);
        if (!json_is_string(k))
            return ts_error(TSCHED_E_TYPE, "labels.tiers[%zu]: expected a label key, got %s", i, ts_json_type_name(k));
        keys[i] = json_string_value(k);
    }
    return tsched_topology_set_labels(t, keys, (uint32_t)n, nvl);
}

/* "excluded": { "NODE": "REASON", ... } in document order */
static tsched_status read_excluded(tsched_topology *t, const json_t *excl)
{
    tsched_status st;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)excl, key, v)
    {
        const char *reason;
        if ((st = ts_json_str(&reason, excl, "excluded", key, 1)) ||
            (st = tsched_topology_add_excluded(t, key, reason)))
            return st;
    }
    return TSCHED_OK;
}

/* "block_sizes": [N, ...], the BlockSizes a Slurm block import read */
static tsched_status read_block_sizes(tsched_topology *t, const json_t *arr)
{
    uint64_t v[TSCHED_MAX_TIERS];
    size_t n = json_array_size(arr);
    if (n > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "block_sizes: %zu sizes; at most %d", n, TSCHED_MAX_TIERS);
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(arr, i);
        if (!json_is_integer(s) || json_integer_value(s) < 0)
            return ts_error(TSCHED_E_TYPE, "block_sizes[%zu]: expected a whole number, got %s", i,
                            ts_json_type_name(s));
        v[i] = (uint64_t)json_integer_value(s);
    }
    return ts_topology_set_block_sizes(t, v, n, "block_sizes");
}

static tsched_status load_doc(tsched_topology **out, const json_t *root)
{
    tsched_status st;
    const char *name = NULL;
    const json_t *gen, *nodes, *switches, *links, *state, *pods, *labels, *excluded, *bsizes;
    if ((st = ts_json_check_format(root, TOPOLOGY_FORMAT)) || (st = ts_json_str(&name, root, "", "name", 0)) ||
        (st = ts_json_obj(&gen, root, "", "generate", 0)) || (st = ts_json_arr(&nodes, root, "", "nodes", 0)) ||
        (st = ts_json_arr(&switches, root, "", "switches", 0)) || (st = ts_json_arr(&links, root, "", "links", 0)) ||
        (st = ts_json_obj(&state, root, "", "state", 0)) || (st = ts_json_arr(&pods, root, "", "pods", 0)) ||
        (st = ts_json_obj(&labels, root, "", "labels", 0)) || (st = ts_json_obj(&excluded, root, "", "excluded", 0)) ||
        (st = ts_json_arr(&bsizes, root, "", "block_sizes", 0)))
        return st;
    if (!gen && !nodes && !switches)
        return ts_error(TSCHED_E_NOT_FOUND, "document: neither \"generate\" nor \"nodes\"/\"switches\": the fabric is empty");
    tsched_topology *t;
    if ((st = tsched_topology_new(&t, name)) != TSCHED_OK)
        return st;
    tsched_gen_params p;
    double default_gbps = 400;
    if (gen) {
        if ((st = read_generate(&p, gen)) != TSCHED_OK || (st = ts_topology_generate_into(t, &p)) != TSCHED_OK)
            goto fail;
        default_gbps = p.nic_gbps;
    }
    if ((pods && (st = read_pods(t, pods))) || (switches && (st = read_switches(t, switches))) || (nodes && (st = read_nodes(t, nodes, default_gbps))) ||
        (links && (st = read_links(t, links))) || (st = tsched_topology_build(t)) ||
        (state && (st = read_state(t, state))) || (labels && (st = read_labels(t, labels))) ||
        (excluded && (st = read_excluded(t, excluded))) || (bsizes && (st = read_block_sizes(t, bsizes))))
        goto fail;
    *out = t;
    return TSCHED_OK;
fail:
    tsched_topology_free(t);
    return st;
}

static tsched_status read_doc(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_topology **)slot, root);
}

tsched_status tsched_topology_load_string(tsched_topology **out, const char *json, size_t len)
{
    return ts_json_load_string(out, read_doc, NULL, json, len, "tsched_topology_load_string");
}

tsched_status tsched_topology_load_file(tsched_topology **out, const char *path)
{
    return ts_json_load_file(out, read_doc, NULL, path, "tsched_topology_load_file");
}

tsched_status ts_json_node_nic(uint32_t *node, uint32_t *nic, const json_t *o, const char *where, const char *key,
                               const char *nic_key, const tsched_topology *t)
{
    const char *name;
    tsched_status st;
    if ((st = ts_json_str(&name, o, where, key, 1)) != TSCHED_OK)
        return st;
    *node = tsched_topology_find_node(t, name);
    if (*node == TSCHED_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "%s.%s: no node named \"%s\" in fabric \"%s\"", where, key, name,
                        tsched_topology_name(t));
    *nic = 0;
    if ((st = ts_json_u32(nic, o, where, nic_key, 0, 0, UINT32_MAX)) != TSCHED_OK)
        return st;
    uint32_t nics = tsched_topology_node_nics(t, *node);
    if (*nic >= nics)
        return ts_error(TSCHED_E_RANGE, "%s.%s: %u is out of range; node \"%s\" has %u NIC%s (0..%u)", where,
                        nic_key, *nic, name, nics, nics == 1 ? "" : "s", nics - 1);
    return TSCHED_OK;
}
