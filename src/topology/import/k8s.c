/* Import of Kubernetes nodes (doc/k8s-import.md): the JSON of `kubectl get nodes -o json`
 * and a list of label keys (or a Kueue Topology naming them) give a tree of label domains.
 * A domain is a path of label values from the coarsest level down, so a value need only be
 * unique under its parent; domains are numbered per level in order of their first node,
 * named, and assembled through the public builder calls like every other import. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/limits.h"
#include "../../common/names.h"
#include "../../common/structsize.h"
#include "../../common/text.h"
#include "../../common/yaml.h"
#include "k8s_internal.h"
#include "slurm_internal.h"
#include "../topology_internal.h"

#define HOSTNAME_KEY "kubernetes.io/hostname"
#define NONE32 UINT32_MAX
#define K_QUOTE 80

typedef struct k_q {
    char s[TS_TEXT_QUOTE_CAP(K_QUOTE)];
} k_q;

static const char *kq(k_q *b, const char *s) { return ts_text_quote(b->s, sizeof b->s, s, strlen(s), K_QUOTE); }

typedef struct k_node {
    const char *name, *type, *nvl, *host; /* host: the kubernetes.io/hostname label value */
    uint32_t gpus;
    int down;
} k_node;

typedef struct k_dom {
    uint32_t parent; /* domain of the level above; NONE32 at the coarsest level */
    const char *value;
    char *name;      /* owned */
    uint32_t sw;     /* switch index */
    double down;     /* capacity below, Gbit/s */
} k_dom;

typedef struct k_excl {
    const char *node;
    char *reason; /* owned */
} k_excl;

typedef struct k_ctx {
    tsched_k8s_options o;
    const char *keys[TSCHED_MAX_TIERS]; /* the levels, coarsest first, hostname dropped */
    uint32_t m;
    const char *levels_fmt;             /* names level i in messages */
    json_t *kueue;                      /* keeps the keys read from a Kueue Topology alive */
    k_node *nodes;
    size_t nn;
    const char **vals;                  /* nn x m label values */
    uint32_t *dom;                      /* nn x m domain ids */
    k_dom *d[TSCHED_MAX_TIERS];
    size_t nd[TSCHED_MAX_TIERS];
    k_excl *ex;
    size_t nex, ex_cap;
    tsched_topology *topo;
} k_ctx;

void tsched_k8s_options_init(tsched_k8s_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->nvl_label = "nvidia.com/gpu.clique";
    opts->gpu_resource = "nvidia.com/gpu";
    opts->gpu_type = "GPU";
    opts->nic_gbps = 400;
    opts->name = "k8s";
}

static void ctx_free(k_ctx *k)
{
    for (int l = 0; l < TSCHED_MAX_TIERS; l++) {
        for (size_t i = 0; i < k->nd[l]; i++)
            free(k->d[l][i].name);
        free(k->d[l]);
    }
    for (size_t i = 0; i < k->nex; i++)
        free(k->ex[i].reason);
    free(k->ex);
    free(k->nodes);
    free(k->vals);
    free(k->dom);
    json_decref(k->kueue);
    tsched_topology_free(k->topo);
}

/* ---- Kubernetes names ----------------------------------------------------------------- */

static int alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* A label value: empty, or at most 63 of [-A-Za-z0-9_.], beginning and ending with an
 * alphanumeric character. */
static int label_value_ok(const char *v)
{
    size_t n = strlen(v);
    if (n == 0)
        return 1;
    if (n > 63 || !alnum(v[0]) || !alnum(v[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!alnum(v[i]) && v[i] != '-' && v[i] != '_' && v[i] != '.')
            return 0;
    return 1;
}

/* A label key: an optional DNS subdomain prefix (at most 253 of [a-z0-9.-], alphanumeric at
 * both ends) and '/', then a name as a non-empty label value. */
static int label_key_ok(const char *k)
{
    const char *slash = strchr(k, '/');
    const char *name = slash ? slash + 1 : k;
    if (slash) {
        size_t n = (size_t)(slash - k);
        if (n == 0 || n > 253 || !alnum(k[0]) || !alnum(k[n - 1]))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '-' || k[i] == '.'))
                return 0;
    }
    return *name && !strchr(name, '/') && label_value_ok(name);
}

/* ---- options and levels ---------------------------------------------------------------- */

/* Take the keys, coarsest first: a last hostname key goes; the rest must be label keys,
 * distinct, at most TSCHED_MAX_TIERS, and not the NVLink label. `field(i)` names entry i. */
static tsched_status set_levels(k_ctx *k, const char *const *keys, uint32_t n, const char *src, const char *fmt)
{
    char field[160];
    if (n > 0 && keys[n - 1] && strcmp(keys[n - 1], HOSTNAME_KEY) == 0)
        n--;
    if (n == 0)
        return ts_error(TSCHED_E_INVALID, "%s: no label key besides %s: give at least one level above the nodes",
                        src, HOSTNAME_KEY);
    if (n > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_INVALID, "%s: %u levels are more than the %d tiers of the model", src, n,
                        TSCHED_MAX_TIERS);
    for (uint32_t i = 0; i < n; i++) {
        k_q q;
        snprintf(field, sizeof field, fmt, i);
        if (!keys[i])
            return ts_error(TSCHED_E_INVALID, "%s: NULL", field);
        if (strcmp(keys[i], HOSTNAME_KEY) == 0)
            return ts_error(TSCHED_E_INVALID, "%s: %s stands for the node itself and may only be the last level",
                            field, HOSTNAME_KEY);
        if (!label_key_ok(keys[i]))
            return ts_error(TSCHED_E_INVALID, "%s: %s is not a Kubernetes label key", field, kq(&q, keys[i]));
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(keys[i], keys[j]) == 0)
                return ts_error(TSCHED_E_INVALID, "%s: %s is given twice", field, kq(&q, keys[i]));
        if (*k->o.nvl_label && strcmp(keys[i], k->o.nvl_label) == 0)
            return ts_error(TSCHED_E_INVALID, "%s: %s is also the NVLink label (nvl_label); a key may not be both",
                            field, kq(&q, keys[i]));
        k->keys[i] = keys[i];
    }
    k->m = n;
    k->levels_fmt = fmt;
    return TSCHED_OK;
}

/* spec.levels[].nodeLabel of a Kueue Topology, JSON or the YAML subset. */
static tsched_status kueue_levels(k_ctx *k, const char *text)
{
    const char *src = k->o.kueue_topology_name ? k->o.kueue_topology_name : "kueue topology";
    size_t len = strlen(text), i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    ts_yaml_info *info = NULL;
    tsched_status st = i < len && text[i] == '{' ? ts_json_parse(&k->kueue, text, len)
                                                 : ts_yaml_parse(&k->kueue, &info, text, len);
    const json_t *root = k->kueue, *spec = NULL, *levels = NULL;
    const char *keys[TSCHED_MAX_TIERS + 2];
    uint32_t n = 0;
    if (st == TSCHED_OK && !json_is_object(root))
        st = ts_error(TSCHED_E_FORMAT, "expected a Kueue Topology object, got %s", ts_json_type_name(root));
    if (st == TSCHED_OK) {
        const json_t *kind = json_object_get(root, "kind");
        if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), "Topology") != 0))
            st = ts_error(TSCHED_E_FORMAT, "kind: expected \"Topology\", got %s",
                          json_is_string(kind) ? json_string_value(kind) : ts_json_type_name(kind));
    }
    if (st == TSCHED_OK && (st = ts_json_obj(&spec, root, "", "spec", 1)) == TSCHED_OK)
        st = ts_json_arr(&levels, spec, "spec", "levels", 1);
    for (size_t j = 0; st == TSCHED_OK && j < json_array_size(levels); j++) {
        char where[64];
        snprintf(where, sizeof where, "spec.levels[%zu]", j);
        const json_t *e = json_array_get(levels, j);
        const char *key = NULL;
        if (!json_is_object(e))
            st = ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(e));
        else if ((st = ts_json_str(&key, e, where, "nodeLabel", 1)) == TSCHED_OK && n < TSCHED_MAX_TIERS + 2)
            keys[n++] = key;
        if (st != TSCHED_OK && ts_yaml_line(info, e)) {
            char line[32];
            snprintf(line, sizeof line, "line %zu", ts_yaml_line(info, e));
            st = ts_error_prefix(st, line);
        }
    }
    if (st == TSCHED_OK && n == 0)
        st = ts_error(TSCHED_E_FORMAT, "spec.levels: empty");
    if (st == TSCHED_OK)
        st = set_levels(k, keys, n, "spec.levels", "spec.levels[%u].nodeLabel");
    ts_yaml_info_free(info);
    return st == TSCHED_OK ? st : ts_error_prefix(st, src);
}

static tsched_status check_options(k_ctx *k, const tsched_k8s_options *opts)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_k8s_options, size),          TS_SPAN(tsched_k8s_options, levels),
        TS_SPAN(tsched_k8s_options, nlevels),       TS_SPAN(tsched_k8s_options, kueue_topology),
        TS_SPAN(tsched_k8s_options, nvl_label),     TS_SPAN(tsched_k8s_options, gpu_resource),
        TS_SPAN(tsched_k8s_options, gpu_type),      TS_SPAN(tsched_k8s_options, nics_per_node),
        TS_SPAN(tsched_k8s_options, nic_gbps),      TS_SPAN(tsched_k8s_options, name),
        TS_SPAN(tsched_k8s_options, kueue_topology_name), TS_SPAN(tsched_k8s_options, pods_json),
    };
    tsched_k8s_options_init(&k->o);
    tsched_status st;
    if (opts && (st = ts_struct_in(&k->o, opts, spans, TS_NSPANS(spans), sizeof k->o, "tsched_k8s_options")))
        return st;
    tsched_k8s_options def;
    tsched_k8s_options_init(&def);
    tsched_k8s_options *o = &k->o;
    if (!o->nvl_label)
        o->nvl_label = def.nvl_label;
    if (!o->gpu_resource || !*o->gpu_resource)
        o->gpu_resource = def.gpu_resource;
    if (!o->gpu_type || !*o->gpu_type)
        o->gpu_type = def.gpu_type;
    if (!o->name || !*o->name)
        o->name = def.name;
    k_q q;
    if (*o->nvl_label && !label_key_ok(o->nvl_label))
        return ts_error(TSCHED_E_INVALID, "tsched_k8s_options.nvl_label: %s is not a Kubernetes label key",
                        kq(&q, o->nvl_label));
    if (!isfinite(o->nic_gbps) || o->nic_gbps <= 0 || o->nic_gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_INVALID, "tsched_k8s_options.nic_gbps: %g is not a finite number in (0, %g]",
                        o->nic_gbps, TS_MAX_GBPS);
    if (o->nics_per_node > TS_MAX_NICS_PER_NODE)
        return ts_error(TSCHED_E_INVALID, "tsched_k8s_options.nics_per_node: %u is more than %u", o->nics_per_node,
                        TS_MAX_NICS_PER_NODE);
    if ((st = ts_name_check(o->gpu_type, "tsched_k8s_options.gpu_type")) != TSCHED_OK)
        return ts_error(TSCHED_E_INVALID, "%s", tsched_last_error());
    if (o->nlevels > 0 && o->kueue_topology)
        return ts_error(TSCHED_E_INVALID, "tsched_k8s_options: give the levels or a Kueue Topology, not both");
    if (o->nlevels > 0) {
        if (!o->levels)
            return ts_error(TSCHED_E_INVALID, "tsched_k8s_options.levels: NULL with nlevels = %u", o->nlevels);
        st = set_levels(k, o->levels, o->nlevels, "tsched_k8s_options.levels", "tsched_k8s_options.levels[%u]");
        k->levels_fmt = "levels[%u]"; /* how the document's errors name a level */
        return st;
    }
    if (!o->kueue_topology)
        return ts_error(TSCHED_E_INVALID, "tsched_k8s_options.levels: no levels (give label keys or a Kueue "
                        "Topology)");
    return kueue_levels(k, o->kueue_topology);
}

/* ---- nodes -------------------------------------------------------------------------------- */

static tsched_status exclude(k_ctx *k, const char *node, const char *why, const char *what)
{
    tsched_status st = TS_GROW(k->ex, k->ex_cap, k->nex + 1);
    if (st != TSCHED_OK)
        return st;
    size_t n = strlen(why) + strlen(what) + 2;
    char *r = ts_malloc(n, 1);
    if (!r)
        return TSCHED_E_NOMEM;
    snprintf(r, n, "%s %s", why, what);
    k->ex[k->nex++] = (k_excl){node, r};
    return TSCHED_OK;
}

/* GPUs of status.allocatable[resource]: 0 when absent; a decimal count otherwise. */
static tsched_status read_gpus(uint32_t *gpus, const k_ctx *k, const json_t *item, const char *where)
{
    *gpus = 0;
    const json_t *status = json_object_get(item, "status");
    const json_t *alloc = json_is_object(status) ? json_object_get(status, "allocatable") : NULL;
    const json_t *v = json_is_object(alloc) ? json_object_get(alloc, k->o.gpu_resource) : NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    char field[512];
    snprintf(field, sizeof field, "%s%sstatus.allocatable", where, *where ? "." : "");
    ts_path_key(field, sizeof field, k->o.gpu_resource);
    uint32_t max = ts_limits()->gpus_per_node < TS_MAX_GPUS_PER_NODE ? ts_limits()->gpus_per_node
                                                                     : TS_MAX_GPUS_PER_NODE;
    uint64_t x;
    int r = k8s_count(&x, v, UINT64_MAX);
    if (r == K8S_COUNT_TYPE || (r == K8S_COUNT_BAD && !json_is_string(v)))
        return ts_error(TSCHED_E_FORMAT, "%s: expected a decimal string, got %s", field, ts_json_type_name(v));
    if (r != K8S_COUNT_OK) {
        k_q q;
        return ts_error(TSCHED_E_FORMAT, "%s: %s is not a whole number of GPUs", field, kq(&q, json_string_value(v)));
    }
    if (x > max)
        return ts_error(TSCHED_E_RANGE, "%s: %llu GPUs are more than the limit gpus_per_node = %u", field,
                        (unsigned long long)x, max);
    *gpus = (uint32_t)x;
    return TSCHED_OK;
}

/* A label's value: NULL when absent; a string that is a valid label value otherwise. */
static tsched_status read_label(const char **out, const json_t *labels, const char *key, const char *where)
{
    *out = NULL;
    const json_t *v = json_is_object(labels) ? json_object_get(labels, key) : NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    char field[512];
    snprintf(field, sizeof field, "%s%smetadata.labels", where, *where ? "." : "");
    ts_path_key(field, sizeof field, key);
    if (!json_is_string(v))
        return ts_error(TSCHED_E_FORMAT, "%s: expected a string, got %s", field, ts_json_type_name(v));
    k_q q;
    if (!label_value_ok(json_string_value(v)))
        return ts_error(TSCHED_E_FORMAT, "%s: %s is not a valid Kubernetes label value (at most 63 of A-Z a-z 0-9 "
                        "- _ ., alphanumeric at both ends)", field, kq(&q, json_string_value(v)));
    *out = json_string_value(v);
    return TSCHED_OK;
}

/* Down: a Ready condition whose status is not "True", or spec.unschedulable. */
static int node_down(const json_t *item)
{
    const json_t *spec = json_object_get(item, "spec");
    if (json_is_object(spec) && json_is_true(json_object_get(spec, "unschedulable")))
        return 1;
    const json_t *status = json_object_get(item, "status");
    const json_t *conds = json_is_object(status) ? json_object_get(status, "conditions") : NULL;
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        const json_t *type = json_object_get(c, "type"), *s = json_object_get(c, "status");
        if (json_is_string(type) && strcmp(json_string_value(type), "Ready") == 0)
            return !json_is_string(s) || strcmp(json_string_value(s), "True") != 0;
    }
    return 0;
}

static tsched_status read_nodes(k_ctx *k, const json_t *root, ts_strtab *seen)
{
    tsched_status st;
    if (!json_is_object(root))
        return ts_error(TSCHED_E_FORMAT, "document: expected a List of Nodes (kubectl get nodes -o json), got %s",
                        ts_json_type_name(root));
    const json_t *kind = json_object_get(root, "kind"), *items = json_object_get(root, "items");
    const char *ks = json_string_value(kind);
    int single = ks && strcmp(ks, "Node") == 0;
    if (!single) {
        if (kind && (!ks || (strcmp(ks, "List") != 0 && strcmp(ks, "NodeList") != 0)))
            return ts_error(TSCHED_E_FORMAT, "kind: expected \"List\", \"NodeList\" or \"Node\", got %s",
                            ks ? ks : ts_json_type_name(kind));
        if (!json_is_array(items))
            return ts_error(TSCHED_E_FORMAT, "items: %s; expected the array of Nodes of kubectl get nodes -o json",
                            items ? "not an array" : "missing");
    }
    size_t n = single ? 1 : json_array_size(items);
    if (n > ts_limits()->nodes)
        return ts_limit_error("items", n, "nodes", ts_limits()->nodes);
    if (!(k->nodes = ts_calloc(n ? n : 1, sizeof *k->nodes)) || !(k->vals = ts_calloc(n ? n * k->m : 1, sizeof *k->vals)))
        return TSCHED_E_NOMEM;
    int carried[TSCHED_MAX_TIERS] = {0};
    for (size_t i = 0; i < n; i++) {
        const json_t *item = single ? root : json_array_get(items, i);
        char where[48] = "";
        if (!single)
            snprintf(where, sizeof where, "items[%zu]", i);
        const char *dot = *where ? "." : "";
        if (!json_is_object(item))
            return ts_error(TSCHED_E_FORMAT, "%s: expected a Node object, got %s", where, ts_json_type_name(item));
        const json_t *meta = json_object_get(item, "metadata"), *labels;
        char field[96];
        snprintf(field, sizeof field, "%s%smetadata", where, dot);
        if (!json_is_object(meta))
            return ts_error(TSCHED_E_FORMAT, "%s: %s", field, meta ? "expected an object" : "missing");
        const char *name;
        if ((st = ts_json_str(&name, meta, field, "name", 1)) != TSCHED_OK)
            return st;
        snprintf(field, sizeof field, "%s%smetadata.name", where, dot);
        if ((st = ts_name_check(name, field)) != TSCHED_OK)
            return st;
        uint32_t id;
        int added;
        if ((st = ts_strtab_intern(seen, name, &id, &added)) != TSCHED_OK)
            return st;
        if (!added) {
            k_q q;
            return ts_error(TSCHED_E_DUPLICATE, "%s: node %s is listed twice (items[%u] first)", field, kq(&q, name),
                            id);
        }
        labels = json_object_get(meta, "labels");
        k_node *nd = &k->nodes[k->nn];
        const char **vals = k->vals + k->nn * k->m;
        const char *missing = NULL, *empty = NULL;
        for (uint32_t l = 0; l < k->m; l++) {
            if ((st = read_label(&vals[l], labels, k->keys[l], where)) != TSCHED_OK)
                return st;
            carried[l] |= vals[l] != NULL;
            if (!vals[l] && !missing)
                missing = k->keys[l];
            if (vals[l] && !*vals[l] && !empty)
                empty = k->keys[l];
        }
        if (*k->o.nvl_label && (st = read_label(&nd->nvl, labels, k->o.nvl_label, where)) != TSCHED_OK)
            return st;
        if ((st = read_label(&nd->type, labels, "nvidia.com/gpu.product", where)) != TSCHED_OK)
            return st;
        if ((st = read_label(&nd->host, labels, HOSTNAME_KEY, where)) != TSCHED_OK)
            return st;
        if ((st = read_gpus(&nd->gpus, k, item, where)) != TSCHED_OK)
            return st;
        if (nd->gpus == 0)
            st = exclude(k, name, "no", k->o.gpu_resource);
        else if (missing)
            st = exclude(k, name, "missing label", missing);
        else if (empty)
            st = exclude(k, name, "empty label", empty);
        else {
            nd->name = name;
            if (!nd->type || !*nd->type)
                nd->type = k->o.gpu_type;
            if (nd->nvl && !*nd->nvl)
                nd->nvl = NULL;
            nd->down = node_down(item);
            k->nn++;
        }
        if (st != TSCHED_OK)
            return st;
    }
    for (uint32_t l = 0; l < k->m; l++) {
        k_q q;
        char field[160];
        snprintf(field, sizeof field, k->levels_fmt, l);
        if (!carried[l])
            return ts_error(TSCHED_E_NOT_FOUND, "no node carries the label %s (%s)", kq(&q, k->keys[l]), field);
    }
    if (k->nn == 0)
        return ts_error(TSCHED_E_NOT_FOUND, "no node is left to import: all %zu are left out (the first: %s, %s)", n,
                        k->nex ? k->ex[0].node : "-", k->nex ? k->ex[0].reason : "-");
    return TSCHED_OK;
}

/* ---- domains -------------------------------------------------------------------------------- */

/* Level by level from the coarsest, a node's domain is (its parent domain, its value). */
static tsched_status make_domains(k_ctx *k)
{
    tsched_status st = TSCHED_OK;
    if (!(k->dom = ts_malloc(k->nn * k->m, sizeof *k->dom)))
        return TSCHED_E_NOMEM;
    ts_strtab tab;
    char buf[64 + 256];
    for (uint32_t l = 0; l < k->m && st == TSCHED_OK; l++) {
        size_t cap = 0;
        ts_strtab_init(&tab);
        for (size_t i = 0; i < k->nn && st == TSCHED_OK; i++) {
            uint32_t parent = l ? k->dom[i * k->m + l - 1] : NONE32;
            const char *v = k->vals[i * k->m + l];
            snprintf(buf, sizeof buf, "%u/%s", parent, v);
            uint32_t id;
            int added;
            if ((st = ts_strtab_intern(&tab, buf, &id, &added)) != TSCHED_OK)
                break;
            if (added) {
                if ((st = TS_GROW(k->d[l], cap, k->nd[l] + 1)) != TSCHED_OK)
                    break;
                k->d[l][k->nd[l]++] = (k_dom){parent, v, NULL, NONE32, 0};
            }
            k->dom[i * k->m + l] = id;
        }
        ts_strtab_free(&tab);
    }
    return st;
}

/* A domain is named by its value when no other domain of its level has it and no coarser
 * switch is named so; otherwise `<parent name>/<value>`. */
static tsched_status name_domains(k_ctx *k)
{
    tsched_status st = TSCHED_OK;
    ts_strtab used, vals;
    ts_strtab_init(&used);
    uint32_t *count = NULL;
    for (uint32_t l = 0; l < k->m && st == TSCHED_OK; l++) {
        ts_strtab_init(&vals);
        free(count);
        count = ts_calloc(k->nd[l] ? k->nd[l] : 1, sizeof *count);
        if (!count)
            st = TSCHED_E_NOMEM;
        uint32_t id;
        for (size_t i = 0; i < k->nd[l] && st == TSCHED_OK; i++)
            if ((st = ts_strtab_intern(&vals, k->d[l][i].value, &id, NULL)) == TSCHED_OK)
                count[id]++;
        for (size_t i = 0; i < k->nd[l] && st == TSCHED_OK; i++) {
            k_dom *d = &k->d[l][i];
            int plain = count[ts_strtab_find(&vals, d->value)] == 1 && ts_strtab_find(&used, d->value) == NONE32;
            if (plain || l == 0) {
                d->name = ts_strdup(d->value);
            } else {
                const char *pn = k->d[l - 1][d->parent].name;
                size_t n = strlen(pn) + strlen(d->value) + 2;
                if ((d->name = ts_malloc(n, 1)))
                    snprintf(d->name, n, "%s/%s", pn, d->value);
            }
            if (!d->name)
                st = TSCHED_E_NOMEM;
            else
                st = ts_strtab_intern(&used, d->name, &id, NULL);
        }
        ts_strtab_free(&vals);
    }
    free(count);
    ts_strtab_free(&used);
    return st;
}

/* ---- assembly ------------------------------------------------------------------------------ */

static tsched_status assemble(k_ctx *k)
{
    tsched_status st;
    const uint32_t m = k->m;
    int pods = m >= 3; /* pods exist when a tier-2 switch does */
    if ((st = tsched_topology_new(&k->topo, k->o.name)) != TSCHED_OK)
        return st;
    /* switches: tier 0 (the finest level) first, each tier in order of first node */
    for (uint32_t t = 0; t < m; t++) {
        uint32_t l = m - 1 - t;
        for (size_t i = 0; i < k->nd[l]; i++) {
            k_dom *d = &k->d[l][i];
            char pod[32];
            if (pods && t <= 1)
                snprintf(pod, sizeof pod, "pod%u", t == 1 ? (uint32_t)i : d->parent);
            if ((st = tsched_topology_add_switch(&d->sw, k->topo, d->name, (int)t, pods && t <= 1 ? pod : NULL)) !=
                TSCHED_OK)
                return st;
            if (strcmp(d->name, d->value) != 0 && (st = tsched_topology_set_switch_value(k->topo, d->sw, d->value)))
                return st;
        }
    }
    for (size_t i = 0; i < k->nn; i++) {
        const k_node *nd = &k->nodes[i];
        uint32_t nics = k->o.nics_per_node ? k->o.nics_per_node : nd->gpus, index;
        k_dom *leaf = &k->d[m - 1][k->dom[i * m + m - 1]];
        if (nics > TS_MAX_NICS_PER_NODE) {
            k_q q;
            return ts_error(TSCHED_E_RANGE, "node %s: %u NICs (one per GPU) are more than %u; set nics_per_node",
                            kq(&q, nd->name), nics, TS_MAX_NICS_PER_NODE);
        }
        if (tsched_topology_find_switch(k->topo, nd->name) != TSCHED_NONE) {
            /* the builder would name its own field ("nodes[i].name"): name the label instead */
            const char *key = "?";
            for (uint32_t l = 0; l < m; l++)
                for (size_t j = 0; j < k->nd[l]; j++)
                    if (strcmp(k->d[l][j].name, nd->name) == 0)
                        key = k->keys[l];
            k_q q, qk;
            return ts_error(TSCHED_E_DUPLICATE,
                            "node %s: the switch for label %s has that name too (the label's value); a node and a "
                            "switch cannot share a name",
                            kq(&q, nd->name), kq(&qk, key));
        }
        if ((st = tsched_topology_add_node(&index, k->topo, nd->name, leaf->name, nd->gpus, nics, nd->type,
                                           k->o.nic_gbps)) != TSCHED_OK ||
            (nd->nvl && (st = tsched_topology_set_nvl_domain(k->topo, index, nd->nvl)) != TSCHED_OK))
            return st;
        /* the pod order selects on this label; kept only where it differs from the name */
        if (nd->host && *nd->host && strcmp(nd->host, nd->name) != 0 &&
            (st = tsched_topology_set_node_hostname(k->topo, index, nd->host)) != TSCHED_OK)
            return st;
        leaf->down += nics * k->o.nic_gbps;
    }
    /* trunks: each domain to its one parent, non-blocking */
    for (uint32_t l = m - 1; l >= 1; l--) {
        for (size_t i = 0; i < k->nd[l]; i++) {
            k_dom *d = &k->d[l][i], *p = &k->d[l - 1][d->parent];
            uint32_t count = sl_links_for(d->down);
            if ((st = tsched_topology_add_link(k->topo, d->name, p->name, d->down / count, count)) != TSCHED_OK)
                return st;
            p->down += d->down;
        }
    }
    const char *tiers[TSCHED_MAX_TIERS];
    for (uint32_t t = 0; t < m; t++)
        tiers[t] = k->keys[m - 1 - t];
    int any_nvl = 0;
    for (size_t i = 0; i < k->nn && !any_nvl; i++)
        any_nvl = k->nodes[i].nvl != NULL;
    if ((st = tsched_topology_set_labels(k->topo, tiers, m, any_nvl ? k->o.nvl_label : NULL)) != TSCHED_OK)
        return st;
    for (size_t i = 0; i < k->nex; i++)
        if ((st = tsched_topology_add_excluded(k->topo, k->ex[i].node, k->ex[i].reason)) != TSCHED_OK)
            return st;
    if ((st = tsched_topology_build(k->topo)) != TSCHED_OK)
        return st;
    for (size_t i = 0; i < k->nn; i++)
        if (k->nodes[i].down && (st = tsched_topology_set_node_up(k->topo, (uint32_t)i, 0)) != TSCHED_OK)
            return st;
    return TSCHED_OK;
}

/* Errors of the options come back as they are; those of the document get `path: `. */
static tsched_status import(tsched_topology **out, const char *json, size_t len, const tsched_k8s_options *opts,
                            const char *path)
{
    k_ctx k;
    memset(&k, 0, sizeof k);
    tsched_status st = check_options(&k, opts);
    if (st != TSCHED_OK) {
        ctx_free(&k);
        return st;
    }
    char *text = NULL;
    if (path && (st = ts_read_file(&text, &len, path)) != TSCHED_OK) {
        ctx_free(&k);
        return st;
    }
    if (path)
        json = text;
    json_t *root = NULL;
    ts_strtab seen;
    ts_strtab_init(&seen);
    if (len > ts_limits()->input_bytes)
        st = ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    if (st == TSCHED_OK)
        st = ts_json_parse(&root, json, len);
    if (st == TSCHED_OK)
        st = read_nodes(&k, root, &seen);
    if (st == TSCHED_OK)
        st = make_domains(&k);
    if (st == TSCHED_OK)
        st = name_domains(&k);
    if (st == TSCHED_OK)
        st = assemble(&k);
    if (st == TSCHED_OK && k.o.pods_json)
        st = k8s_pods_apply(k.topo, k.o.pods_json, k.o.gpu_resource);
    if (st == TSCHED_OK) {
        *out = k.topo;
        k.topo = NULL;
    }
    ctx_free(&k);
    ts_strtab_free(&seen);
    json_decref(root);
    free(text);
    /* the pod list is not in the file: its errors keep their own name */
    if (st != TSCHED_OK && path && strncmp(tsched_last_error(), "pods_json:", 10) != 0)
        return ts_error_prefix(st, strcmp(path, "-") == 0 ? "<stdin>" : path);
    return st;
}

tsched_status tsched_topology_import_k8s_nodes_string(tsched_topology **out, const char *json, size_t len,
                                                      const tsched_k8s_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_string: out is NULL");
    *out = NULL;
    if (!json)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_string: json is NULL");
    if (!opts)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_string: opts is NULL (the levels are "
                        "required)");
    return import(out, json, len, opts, NULL);
}

tsched_status tsched_topology_import_k8s_nodes_file(tsched_topology **out, const char *path,
                                                    const tsched_k8s_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_file: out is NULL");
    *out = NULL;
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_file: path is NULL");
    if (!opts)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_k8s_nodes_file: opts is NULL (the levels are "
                        "required)");
    return import(out, NULL, 0, opts, path);
}
