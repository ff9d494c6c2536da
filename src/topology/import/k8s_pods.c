/* The pods of the Kubernetes nodes import (tsched_k8s_options.pods_json; semantics in
 * doc/k8s-import.md, "Pods"): which GPUs of each imported node running pods hold.
 *
 * The text is what `kubectl get pods -A -o json` prints: a `List` (or `PodList`) whose items
 * are Pods. A pod holds GPUs on the node `spec.nodeName` names from the moment the scheduler
 * binds it until it is terminal, as the scheduler counts them: every phase but Succeeded and
 * Failed (Pending with a node, Running, Unknown, none yet). What it holds is the scheduler's
 * effective request of the GPU resource (k8s.io/component-helpers resource.PodRequests): the
 * app containers summed, then the init containers in order, each needing its own request plus
 * the sidecars (restartPolicy Always) started before it while a sidecar keeps its request for
 * the pod's life, the larger of the two, plus spec.overhead. A container's request falls back
 * to its limit, as the API server defaults an extended resource's request from its limit.
 *
 * Every pod is read and checked, bound or not, so a malformed list fails the same way
 * whatever the cluster's state; the counts are bounded by the gpus_per_node limit as they
 * are read, so no sum can overflow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/limits.h"
#include "../../common/text.h"
#include "../../common/yaml.h"
#include "k8s_internal.h"

#define P_QUOTE 80

int k8s_count(uint64_t *out, const json_t *v, uint64_t max)
{
    uint64_t x = 0;
    *out = 0;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return K8S_COUNT_BAD;
        x = (uint64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (n == 0 || n > 12)
            return K8S_COUNT_BAD;
        for (size_t i = 0; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return K8S_COUNT_BAD;
            x = x * 10 + (uint64_t)(s[i] - '0');
        }
    } else {
        return K8S_COUNT_TYPE;
    }
    if (x > max)
        return K8S_COUNT_BIG;
    *out = x;
    return K8S_COUNT_OK;
}

/* What the pods are read with. */
typedef struct p_ctx {
    const char *res; /* the GPU resource */
    uint64_t max;    /* the gpus_per_node limit: no one request may exceed it */
    char field[512]; /* the field being read, for messages */
} p_ctx;

static tsched_status p_error(const p_ctx *p, const char *what) /* what: a printf-free text */
{
    return ts_error(TSCHED_E_PARSE, "pods_json: %s: %s", p->field, what);
}

static tsched_status p_type(const p_ctx *p, const char *want, const json_t *v)
{
    return ts_error(TSCHED_E_PARSE, "pods_json: %s: expected %s, got %s", p->field, want,
                    v ? ts_json_type_name(v) : "nothing");
}

/* Field `key` of `obj` (where `obj` is at `where`): NULL when absent or null; else it must
 * have the JSON type `is` checks (named `want` in the message). Leaves p->field naming it. */
static tsched_status p_get(const json_t **out, p_ctx *p, const json_t *obj, const char *where, const char *key,
                           int (*is)(const json_t *), const char *want)
{
    snprintf(p->field, sizeof p->field, "%s.%s", where, key);
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (!is(v))
        return p_type(p, want, v);
    *out = v;
    return TSCHED_OK;
}

static int is_obj(const json_t *v) { return json_is_object(v); }
static int is_arr(const json_t *v) { return json_is_array(v); }
static int is_str(const json_t *v) { return json_is_string(v); }

/* The GPUs of resource list `list` (requests, limits, overhead) at `where`: 0 when absent.
 * *given: the resource is named there. */
static tsched_status p_quantity(uint64_t *out, int *given, p_ctx *p, const json_t *list, const char *where)
{
    *out = 0;
    *given = 0;
    const json_t *v = list ? json_object_get(list, p->res) : NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    snprintf(p->field, sizeof p->field, "%s", where);
    ts_path_key(p->field, sizeof p->field, p->res);
    char q[TS_TEXT_QUOTE_CAP(P_QUOTE)], msg[TS_TEXT_QUOTE_CAP(P_QUOTE) + 160];
    switch (k8s_count(out, v, p->max)) {
    case K8S_COUNT_OK:
        *given = 1;
        return TSCHED_OK;
    case K8S_COUNT_TYPE:
        return p_type(p, "a decimal string", v);
    case K8S_COUNT_BIG:
        snprintf(msg, sizeof msg, "%s GPUs are more than the limit gpus_per_node = %llu",
                 json_is_string(v) ? ts_text_quote(q, sizeof q, json_string_value(v), json_string_length(v), P_QUOTE)
                                   : "the",
                 (unsigned long long)p->max);
        return p_error(p, msg);
    default:
        if (json_is_integer(v))
            snprintf(msg, sizeof msg, "%lld is not a whole number of GPUs", (long long)json_integer_value(v));
        else
            snprintf(msg, sizeof msg, "%s is not a whole number of GPUs",
                     ts_text_quote(q, sizeof q, json_string_value(v), json_string_length(v), P_QUOTE));
        return p_error(p, msg);
    }
}

/* The GPU request of container `c` at `where`: resources.requests, else resources.limits.
 * *sidecar: an init container that keeps running (restartPolicy Always). */
static tsched_status p_container(uint64_t *req, int *sidecar, p_ctx *p, const json_t *c, const char *where)
{
    tsched_status st;
    const json_t *res, *requests, *limits, *policy;
    char w[160];
    *req = 0;
    *sidecar = 0;
    if (!json_is_object(c)) {
        snprintf(p->field, sizeof p->field, "%s", where);
        return p_type(p, "a container object", c);
    }
    if ((st = p_get(&policy, p, c, where, "restartPolicy", is_str, "a string")) != TSCHED_OK)
        return st;
    *sidecar = policy && strcmp(json_string_value(policy), "Always") == 0;
    if ((st = p_get(&res, p, c, where, "resources", is_obj, "an object")) != TSCHED_OK || !res)
        return st;
    snprintf(w, sizeof w, "%s.resources", where);
    if ((st = p_get(&requests, p, res, w, "requests", is_obj, "an object")) != TSCHED_OK ||
        (st = p_get(&limits, p, res, w, "limits", is_obj, "an object")) != TSCHED_OK)
        return st;
    uint64_t limit;
    int has_req, has_limit;
    char wr[192];
    snprintf(wr, sizeof wr, "%s.limits", w);
    if ((st = p_quantity(&limit, &has_limit, p, limits, wr)) != TSCHED_OK)
        return st;
    snprintf(wr, sizeof wr, "%s.requests", w);
    if ((st = p_quantity(req, &has_req, p, requests, wr)) != TSCHED_OK)
        return st;
    if (!has_req)
        *req = limit;
    return TSCHED_OK;
}

/* The effective GPU request of pod spec `spec` at `where` (PodRequests, see the top). */
static tsched_status p_request(uint64_t *out, p_ctx *p, const json_t *spec, const char *where)
{
    tsched_status st;
    const json_t *cs, *ics, *over;
    char w[160];
    uint64_t sum = 0, sidecars = 0, init_max = 0, r;
    int sidecar, given;
    *out = 0;
    if ((st = p_get(&cs, p, spec, where, "containers", is_arr, "an array of containers")) != TSCHED_OK ||
        (st = p_get(&ics, p, spec, where, "initContainers", is_arr, "an array of containers")) != TSCHED_OK ||
        (st = p_get(&over, p, spec, where, "overhead", is_obj, "an object")) != TSCHED_OK)
        return st;
    for (size_t i = 0; i < json_array_size(cs); i++) {
        snprintf(w, sizeof w, "%s.containers[%zu]", where, i);
        if ((st = p_container(&r, &sidecar, p, json_array_get(cs, i), w)) != TSCHED_OK)
            return st;
        sum += r; /* each r <= max and the entries are bounded by input_bytes: no overflow */
    }
    for (size_t i = 0; i < json_array_size(ics); i++) {
        snprintf(w, sizeof w, "%s.initContainers[%zu]", where, i);
        if ((st = p_container(&r, &sidecar, p, json_array_get(ics, i), w)) != TSCHED_OK)
            return st;
        uint64_t need; /* what the pod holds while this init container starts */
        if (sidecar) {
            sum += r;
            sidecars += r;
            need = sidecars;
        } else {
            need = r + sidecars;
        }
        if (need > init_max)
            init_max = need;
    }
    snprintf(w, sizeof w, "%s.overhead", where);
    if ((st = p_quantity(&r, &given, p, over, w)) != TSCHED_OK)
        return st;
    *out = (sum > init_max ? sum : init_max) + r;
    return TSCHED_OK;
}

/* Pod `item` (items[i]): *node = its spec.nodeName when it holds resources there, else NULL;
 * *gpus = what it holds. */
static tsched_status p_pod(const char **node, uint64_t *gpus, p_ctx *p, const json_t *item, size_t i)
{
    static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
    tsched_status st;
    char where[48];
    const json_t *kind, *spec, *status, *name, *phase;
    *node = NULL;
    *gpus = 0;
    snprintf(where, sizeof where, "items[%zu]", i);
    snprintf(p->field, sizeof p->field, "%s", where);
    if (!json_is_object(item))
        return p_type(p, "a Pod object", item);
    if ((st = p_get(&kind, p, item, where, "kind", is_str, "a string")) != TSCHED_OK)
        return st;
    if (kind && strcmp(json_string_value(kind), "Pod") != 0) {
        char q[TS_TEXT_QUOTE_CAP(P_QUOTE)], msg[TS_TEXT_QUOTE_CAP(P_QUOTE) + 64];
        snprintf(msg, sizeof msg, "expected \"Pod\", got %s",
                 ts_text_quote(q, sizeof q, json_string_value(kind), json_string_length(kind), P_QUOTE));
        return p_error(p, msg);
    }
    if ((st = p_get(&spec, p, item, where, "spec", is_obj, "an object")) != TSCHED_OK)
        return st;
    if (!spec)
        return p_error(p, "missing (a Pod has a spec)");
    if ((st = p_get(&status, p, item, where, "status", is_obj, "an object")) != TSCHED_OK)
        return st;
    char w[64];
    snprintf(w, sizeof w, "%s.spec", where);
    if ((st = p_get(&name, p, spec, w, "nodeName", is_str, "a string")) != TSCHED_OK)
        return st;
    snprintf(w, sizeof w, "%s.status", where);
    phase = NULL;
    if (status && (st = p_get(&phase, p, status, w, "phase", is_str, "a string")) != TSCHED_OK)
        return st;
    int terminal = 0, known = !phase;
    for (size_t k = 0; phase && k < sizeof phases / sizeof *phases; k++)
        if (strcmp(json_string_value(phase), phases[k]) == 0) {
            known = 1;
            terminal = k == 2 || k == 3;
        }
    if (!known) {
        char q[TS_TEXT_QUOTE_CAP(P_QUOTE)], msg[TS_TEXT_QUOTE_CAP(P_QUOTE) + 96];
        snprintf(msg, sizeof msg, "%s is not a pod phase (Pending, Running, Succeeded, Failed, Unknown)",
                 ts_text_quote(q, sizeof q, json_string_value(phase), json_string_length(phase), P_QUOTE));
        return p_error(p, msg);
    }
    snprintf(w, sizeof w, "%s.spec", where);
    if ((st = p_request(gpus, p, spec, w)) != TSCHED_OK)
        return st;
    if (name && json_string_length(name) > 0 && !terminal)
        *node = json_string_value(name);
    return TSCHED_OK;
}

tsched_status k8s_pods_apply(tsched_topology *topo, const char *pods_json, const char *gpu_resource)
{
    json_t *root;
    tsched_status st = ts_json_parse_field(&root, pods_json, "pods_json");
    if (st != TSCHED_OK)
        return st;
    p_ctx p = {.res = gpu_resource, .max = ts_limits()->gpus_per_node};
    uint32_t nn = tsched_topology_num_nodes(topo);
    uint64_t *taken = ts_calloc(nn ? nn : 1, sizeof *taken);
    const json_t *kind = json_object_get(root, "kind"), *items = json_object_get(root, "items");
    const char *ks = json_string_value(kind);
    if (!taken)
        st = TSCHED_E_NOMEM;
    else if (!json_is_object(root))
        st = ts_error(TSCHED_E_PARSE, "pods_json: expected a List of Pods (kubectl get pods -A -o json), got %s",
                      ts_json_type_name(root));
    else if (kind && (!ks || (strcmp(ks, "List") != 0 && strcmp(ks, "PodList") != 0)))
        st = ts_error(TSCHED_E_PARSE, "pods_json: kind: expected \"List\" or \"PodList\", got %s",
                      ks ? ks : ts_json_type_name(kind));
    else if (!json_is_array(items))
        st = ts_error(TSCHED_E_PARSE, "pods_json: items: %s; expected the array of Pods of kubectl get pods -A -o json",
                      items ? "not an array" : "missing");
    for (size_t i = 0; st == TSCHED_OK && i < json_array_size(items); i++) {
        const char *node;
        uint64_t gpus;
        if ((st = p_pod(&node, &gpus, &p, json_array_get(items, i), i)) != TSCHED_OK)
            break;
        /* a node the fabric lacks was left out (no GPUs, no level label) or is gone: its pods
         * take nothing from the nodes imported */
        uint32_t v = node ? tsched_topology_find_node(topo, node) : TSCHED_NONE;
        if (v != TSCHED_NONE && v < nn)
            taken[v] += gpus; /* bounded as the sums above */
    }
    for (uint32_t v = 0; st == TSCHED_OK && v < nn; v++) {
        uint32_t gpus = tsched_topology_node_gpus(topo, v);
        /* more taken than allocatable: a device went unhealthy under running pods; none free */
        st = tsched_topology_set_free_gpus(topo, v, taken[v] < gpus ? gpus - (uint32_t)taken[v] : 0);
    }
    free(taken);
    json_decref(root);
    return st;
}
