/* The service's foreign formats (doc/serve.md): the imports (import-slurm, import-slurm-yaml,
 * import-k8s-nodes), the export, and the launch files of `place` (host file, pod order),
 * each answering what the matching CLI command prints or writes for the same inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/json.h"
#include "service_internal.h"

/* ---- messages ---- */

/* A library message about an option struct ("tsched_slurm_options.gpus_per_node: ...",
 * "tsched_k8s_options: ...") renamed to the request's option ("options.gpus-per-node: ...",
 * "options: ..."). Other messages are left alone; returns 1 when it renamed. */
static int rename_option_error(tsched_status st)
{
    static const char *const structs[] = {"tsched_slurm_options", "tsched_k8s_options", "tsched_export_options"};
    const char *msg = tsched_last_error();
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++) {
        size_t n = strlen(structs[i]);
        if (strncmp(msg, structs[i], n) != 0 || (msg[n] != '.' && msg[n] != ':'))
            continue;
        const char *p = msg + n;
        char field[64] = "";
        size_t k = 0;
        if (*p == '.') {
            for (p++; ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') && k + 1 < sizeof field; p++)
                field[k++] = *p == '_' ? '-' : *p;
            field[k] = '\0';
            if (!strcmp(field, "json")) /* the CLI's --format json */
                strcpy(field, "format");
        }
        char *rest = strdup(p);
        if (!rest)
            return 0;
        ts_error(st, "options%s%s%s", k ? "." : "", field, rest);
        free(rest);
        return 1;
    }
    return 0;
}

/* A library message about a live-state text ("nodes_json: nodes[2].gres: ...") renamed to
 * the option that carried it ("options.nodes-json: nodes[2].gres: ..."); returns 1 when it
 * renamed. */
static int rename_live_error(tsched_status st)
{
    static const char *const fields[][2] = {{"nodes_json:", "options.nodes-json:"},
                                            {"pods_json:", "options.pods-json:"}};
    const char *msg = tsched_last_error();
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t n = strlen(fields[i][0]);
        if (strncmp(msg, fields[i][0], n) != 0)
            continue;
        char *rest = strdup(msg + n);
        if (!rest)
            return 0;
        ts_error(st, "%s%s", fields[i][1], rest);
        free(rest);
        return 1;
    }
    return 0;
}

/* A failure of an import or export: option errors name the option, the others get the
 * request field `key` the text came from (the CLI names the file there). */
static tsched_status in_text(tsched_status st, const char *key)
{
    if (st == TSCHED_OK || rename_option_error(st) || rename_live_error(st) ||
        !strncmp(tsched_last_error(), "options", 7))
        return st;
    return ts_error_prefix(st, key);
}

/* ---- request readers ---- */

/* Field `key`: a string of foreign text (any length, may be empty). NULL *text when absent
 * and not required. */
static tsched_status text_field(const char **text, size_t *len, const svc_req *req, const char *key, int required)
{
    const json_t *v = json_object_get(req->root, key);
    *text = NULL;
    *len = 0;
    if (!v || json_is_null(v))
        return required ? ts_error(TSCHED_E_NOT_FOUND, "%s: missing required field", key) : TSCHED_OK;
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected a string (the file's text), got %s", key, ts_json_type_name(v));
    *text = json_string_value(v);
    *len = json_string_length(v);
    return TSCHED_OK;
}

/* A list of label keys: option `key` as "K1,K2,..." (the command line's form) or a JSON
 * array of strings. `*keys` (malloc) points into `*copy` (malloc) or into the request;
 * `*n` = 0 when absent. */
static tsched_status opt_keys(const char ***keys, uint32_t *n, char **copy, const svc_req *req, const char *key)
{
    const json_t *o = ts_svc_options(req), *v = o ? json_object_get(o, key) : NULL;
    *keys = NULL;
    *n = 0;
    *copy = NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t cnt = 1;
        for (const char *p = s; *p; p++)
            cnt += *p == ',';
        if (!(*copy = ts_strdup(s)) || !(*keys = ts_malloc(cnt, sizeof **keys)))
            return ts_error(TSCHED_E_NOMEM, "options.%s: out of memory", key);
        size_t k = 0;
        for (char *p = *copy, *start = *copy;; p++)
            if (*p == ',' || *p == '\0') {
                int end = *p == '\0';
                *p = '\0';
                if (!*start)
                    return ts_error(TSCHED_E_FORMAT, "options.%s: key %zu of \"%s\" is empty", key, k + 1, s);
                (*keys)[k++] = start;
                start = p + 1;
                if (end)
                    break;
            }
        *n = (uint32_t)k;
        return TSCHED_OK;
    }
    if (!json_is_array(v))
        return ts_error(TSCHED_E_TYPE, "options.%s: expected \"K1,K2,...\" or an array of label keys, got %s", key,
                        ts_json_type_name(v));
    size_t cnt = json_array_size(v), i;
    if (cnt == 0)
        return ts_error(TSCHED_E_FORMAT, "options.%s: empty list", key);
    if (cnt > UINT32_MAX || !(*keys = ts_malloc(cnt, sizeof **keys)))
        return ts_error(TSCHED_E_NOMEM, "options.%s: out of memory", key);
    const json_t *e;
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e))
            return ts_error(TSCHED_E_TYPE, "options.%s[%zu]: expected a label key, got %s", key, i,
                            ts_json_type_name(e));
        if (json_string_length(e) == 0 || strlen(json_string_value(e)) != json_string_length(e))
            return ts_error(TSCHED_E_FORMAT, "options.%s[%zu]: expected a non-empty key without NUL bytes", key, i);
        (*keys)[i] = json_string_value(e);
    }
    *n = (uint32_t)cnt;
    return TSCHED_OK;
}

/* Option `key` holding a document (the live state: the text of a file the CLI reads, or the
 * JSON itself): *text points at the text, into the request or into *owned (malloc, freed by
 * the caller); NULL when absent. */
static tsched_status opt_document(const char **text, char **owned, const svc_req *req, const char *key,
                                  const char *what)
{
    const json_t *o = ts_svc_options(req), *v = o ? json_object_get(o, key) : NULL;
    *text = NULL;
    *owned = NULL;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v)) {
        *text = json_string_value(v);
        return TSCHED_OK;
    }
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "options.%s: expected the text of %s or its object, got %s", key, what,
                        json_is_string(v) ? "a string with a NUL byte" : ts_json_type_name(v));
    if (!(*owned = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))))
        return ts_error(TSCHED_E_NOMEM, "options.%s: out of memory", key);
    *text = *owned;
    return TSCHED_OK;
}

/* The import's result: the topology.v1 document, and the fabric loaded under the request's
 * `name` when it has one (taken; freed otherwise). */
static tsched_status import_done(char **result, svc_req *req, tsched_topology *t)
{
    const json_t *nv = json_object_get(req->root, "name");
    const char *name = NULL;
    tsched_status st = TSCHED_OK;
    if (nv && !json_is_null(nv))
        st = ts_svc_str(&name, req, "name");
    if (st == TSCHED_OK)
        st = tsched_topology_to_json(result, t);
    if (st != TSCHED_OK || !name) {
        tsched_topology_free(t);
        return st;
    }
    req->put_name = name;
    req->put_topo = t;
    return TSCHED_OK;
}

/* ---- import-slurm, import-slurm-yaml ---- */

const char *const ts_svc_import_fields[] = {"text", "name", NULL};
const char *const ts_svc_import_slurm_options[] = {"gpus-per-node", "nics-per-node", "nic-gbps", "gpu-type", "name",
                                                   "no-nvl",        "compact",       "nodes-json", NULL};
const char *const ts_svc_import_slurm_yaml_options[] = {
    "gpus-per-node", "nics-per-node", "nic-gbps", "gpu-type", "name", "no-nvl", "topology", "nvl-topology", "compact",
    "nodes-json", NULL};

static tsched_status import_slurm_any(char **result, svc_req *req, int yaml)
{
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    int no_nvl = 0, compact = 0;
    const char *text;
    size_t len;
    tsched_status st;
    if ((st = ts_svc_opt_u32(&o.gpus_per_node, NULL, req, "gpus-per-node", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_u32(&o.nics_per_node, NULL, req, "nics-per-node", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_num(&o.nic_gbps, NULL, req, "nic-gbps", 0, 1, 1e300)) ||
        (st = ts_svc_opt_str(&o.gpu_type, req, "gpu-type")) || (st = ts_svc_opt_str(&o.name, req, "name")) ||
        (st = ts_svc_opt_flag(&no_nvl, req, "no-nvl")) || (st = ts_svc_opt_flag(&compact, req, "compact")) ||
        (yaml && ((st = ts_svc_opt_str(&o.topology, req, "topology")) ||
                  (st = ts_svc_opt_str(&o.nvl_topology, req, "nvl-topology")))) ||
        (st = text_field(&text, &len, req, "text", 1)))
        return st;
    char *live = NULL;
    if ((st = opt_document(&o.nodes_json, &live, req, "nodes-json", "sinfo --json")) != TSCHED_OK)
        return st;
    if (no_nvl)
        o.block_nvl = 0;
    tsched_topology *t = NULL;
    st = yaml ? tsched_topology_import_slurm_yaml_string(&t, text, len, &o)
              : tsched_topology_import_slurm_string(&t, text, len, &o);
    free(live);
    if (st != TSCHED_OK)
        return in_text(st, "text");
    return import_done(result, req, t);
}

tsched_status ts_svc_op_import_slurm(char **result, svc_req *req) { return import_slurm_any(result, req, 0); }
tsched_status ts_svc_op_import_slurm_yaml(char **result, svc_req *req) { return import_slurm_any(result, req, 1); }

/* ---- import-k8s-nodes ---- */

const char *const ts_svc_import_k8s_fields[] = {"text", "nodes", "name", NULL};
const char *const ts_svc_import_k8s_options[] = {"levels",    "kueue-topology", "nvl-label", "gpu-resource",
                                                 "gpu-type",  "nics-per-node",  "nic-gbps",  "name",
                                                 "compact",   "pods-json",      NULL};

tsched_status ts_svc_op_import_k8s_nodes(char **result, svc_req *req)
{
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    int compact = 0;
    const char **keys = NULL;
    char *copy = NULL, *kueue = NULL, *nodes = NULL, *pods = NULL;
    const char *text = NULL, *where = "text";
    size_t len = 0;
    tsched_topology *t = NULL;
    const json_t *opts = ts_svc_options(req), *kv = opts ? json_object_get(opts, "kueue-topology") : NULL;
    const json_t *nv = json_object_get(req->root, "nodes");
    tsched_status st;
    if ((st = ts_svc_opt_str(&o.nvl_label, req, "nvl-label")) ||
        (st = ts_svc_opt_str(&o.gpu_resource, req, "gpu-resource")) ||
        (st = ts_svc_opt_str(&o.gpu_type, req, "gpu-type")) ||
        (st = ts_svc_opt_u32(&o.nics_per_node, NULL, req, "nics-per-node", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_num(&o.nic_gbps, NULL, req, "nic-gbps", 0, 1, 1e300)) ||
        (st = ts_svc_opt_str(&o.name, req, "name")) || (st = ts_svc_opt_flag(&compact, req, "compact")) ||
        (st = opt_keys(&keys, &o.nlevels, &copy, req, "levels")) ||
        (st = opt_document(&o.pods_json, &pods, req, "pods-json", "kubectl get pods -A -o json")))
        goto done;
    if (kv && json_is_null(kv))
        kv = NULL;
    if (!o.nlevels == !kv) {
        st = ts_error(TSCHED_E_INVALID,
                      "options: give exactly one of options.levels (label keys) and options.kueue-topology");
        goto done;
    }
    o.levels = keys;
    if (kv) { /* a Kueue Topology: its text (JSON or YAML), or the object itself */
        if (json_is_object(kv)) {
            if (!(kueue = json_dumps(kv, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
                st = ts_error(TSCHED_E_NOMEM, "options.kueue-topology: out of memory");
                goto done;
            }
            o.kueue_topology = kueue;
        } else if (json_is_string(kv) && strlen(json_string_value(kv)) == json_string_length(kv)) {
            o.kueue_topology = json_string_value(kv);
        } else {
            st = ts_error(TSCHED_E_TYPE, "options.kueue-topology: expected the text of a Kueue Topology or its object, "
                                         "got %s",
                          json_is_string(kv) ? "a string with a NUL byte" : ts_json_type_name(kv));
            goto done;
        }
        o.kueue_topology_name = "options.kueue-topology";
    }
    /* the nodes: `text` (the file's text) or `nodes` (the List object, or an array of Nodes) */
    if ((st = text_field(&text, &len, req, "text", 0)))
        goto done;
    if (nv && json_is_null(nv))
        nv = NULL;
    if (!text == !nv) {
        st = ts_error(text ? TSCHED_E_INVALID : TSCHED_E_NOT_FOUND,
                      "%s: give exactly one of text (kubectl get nodes -o json) and nodes (its object)",
                      text ? "nodes" : "text");
        goto done;
    }
    if (nv) {
        where = "nodes";
        if (json_is_string(nv)) {
            text = json_string_value(nv);
            len = json_string_length(nv);
        } else if (json_is_object(nv) || json_is_array(nv)) {
            json_t *list = json_is_array(nv) ? json_pack("{ss ss sO}", "apiVersion", "v1", "kind", "List", "items", nv)
                                             : json_incref((json_t *)nv);
            nodes = list ? json_dumps(list, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
            json_decref(list);
            if (!nodes) {
                st = ts_error(TSCHED_E_NOMEM, "nodes: out of memory copying the document");
                goto done;
            }
            text = nodes;
            len = strlen(nodes);
        } else {
            st = ts_error(TSCHED_E_TYPE, "nodes: expected the object of kubectl get nodes -o json, an array of Nodes "
                                         "or its JSON text, got %s",
                          ts_json_type_name(nv));
            goto done;
        }
    }
    st = tsched_topology_import_k8s_nodes_string(&t, text, len, &o);
    if (st != TSCHED_OK) {
        st = in_text(st, where);
        goto done;
    }
    st = import_done(result, req, t);
done:
    free(keys);
    free(copy);
    free(kueue);
    free(nodes);
    free(pods);
    return st;
}

/* ---- export ---- */

const char *const ts_svc_export_fields[] = {"topology", NULL};
const char *const ts_svc_export_options[] = {"to",       "levels", "block",  "physical", "kueue-api", "tier-names",
                                             "sanitize", "format", "name",   "no-hostname-level", "no-nodes", NULL};

tsched_status ts_svc_op_export(char **result, svc_req *req)
{
    tsched_export_options o;
    tsched_export_options_init(&o);
    const char *to = NULL, *api = NULL, *format = NULL;
    const char **keys = NULL;
    char *copy = NULL, *text = NULL;
    uint32_t nkeys = 0;
    tsched_topology *t, *tmp = NULL;
    json_t *doc = NULL;
    tsched_status st;
    if ((st = ts_svc_opt_str(&to, req, "to")) || (st = ts_svc_opt_flag(&o.block, req, "block")) ||
        (st = ts_svc_opt_flag(&o.physical, req, "physical")) || (st = ts_svc_opt_str(&api, req, "kueue-api")) ||
        (st = ts_svc_opt_flag(&o.tier_names, req, "tier-names")) ||
        (st = ts_svc_opt_flag(&o.sanitize, req, "sanitize")) || (st = ts_svc_opt_str(&format, req, "format")) ||
        (st = ts_svc_opt_str(&o.name, req, "name")) || (st = opt_keys(&keys, &nkeys, &copy, req, "levels")) ||
        (st = ts_svc_opt_flag(&o.no_hostname_level, req, "no-hostname-level")) ||
        (st = ts_svc_opt_flag(&o.no_nodes, req, "no-nodes")))
        goto done;
    if (!to) {
        st = ts_error(TSCHED_E_NOT_FOUND, "options.to: missing required option (slurm-conf, slurm-yaml, kueue, kai "
                                          "or volcano)");
        goto done;
    }
    if ((st = tsched_export_format_from_name(&o.to, to))) {
        st = ts_error_prefix(st, "options.to");
        goto done;
    }
    if (api && strcmp(api, "v1beta2") && strcmp(api, "v1beta1") && strcmp(api, "v1alpha1")) {
        st = ts_error(TSCHED_E_FORMAT, "options.kueue-api: \"%s\" is not v1alpha1, v1beta1 or v1beta2", api);
        goto done;
    }
    o.kueue_api = !api || !strcmp(api, "v1beta2") ? TSCHED_KUEUE_V1BETA2
                  : !strcmp(api, "v1beta1")       ? TSCHED_KUEUE_V1BETA1
                                                  : TSCHED_KUEUE_V1ALPHA1;
    if (format && strcmp(format, "yaml") && strcmp(format, "json")) {
        st = ts_error(TSCHED_E_FORMAT, "options.format: \"%s\" is not yaml or json", format);
        goto done;
    }
    o.json = format && !strcmp(format, "json");
    /* the CLI's checks, in its order and words */
    int slurm = o.to == TSCHED_EXPORT_SLURM_CONF || o.to == TSCHED_EXPORT_SLURM_YAML;
    const char *bad = NULL, *applies = NULL;
    if (slurm && (nkeys || o.no_nodes || o.json))
        bad = nkeys ? "levels" : o.no_nodes ? "no-nodes" : "format", applies = "kueue, kai and volcano";
    else if (o.no_hostname_level && o.to != TSCHED_EXPORT_KUEUE && o.to != TSCHED_EXPORT_KAI)
        bad = "no-hostname-level", applies = "kueue and kai";
    else if (o.block && o.to != TSCHED_EXPORT_SLURM_CONF)
        bad = "block", applies = "slurm-conf";
    else if (o.physical && !slurm)
        bad = "physical", applies = "slurm-conf and slurm-yaml";
    else if (api && o.to != TSCHED_EXPORT_KUEUE)
        bad = "kueue-api", applies = "kueue";
    else if (o.tier_names && o.to != TSCHED_EXPORT_VOLCANO)
        bad = "tier-names", applies = "volcano";
    if (bad) {
        st = ts_error(TSCHED_E_INVALID, "options.%s: applies to %s only, not %s", bad, applies, to);
        goto done;
    }
    o.levels = keys;
    o.num_levels = nkeys;
    if ((st = ts_svc_topology(&t, &tmp, req, "topology")))
        goto done;
    if ((st = tsched_topology_export(&text, t, &o))) {
        char *m = strdup(tsched_last_error()); /* the keys' own messages: "levels[1]: ..." */
        if (m && (!strncmp(m, "levels:", 7) || !strncmp(m, "levels[", 7)))
            ts_error(st, "options.%s", m);
        else
            st = in_text(st, "topology");
        free(m);
        goto done;
    }
    const char *warning = tsched_topology_export_warning();
    json_t *tv = json_string(text);
    if (!tv) { /* the library writes UTF-8 from UTF-8 names: only memory can fail here */
        st = ts_error(TSCHED_E_INTERNAL, "export: the text is not UTF-8 or memory ran out");
        goto done;
    }
    if (!(doc = json_object()) || json_object_set_new(doc, "text", tv) ||
        json_object_set_new(doc, "warning", *warning ? json_string(warning) : json_null()) ||
        !(*result = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
        if (!doc)
            json_decref(tv);
        st = ts_error(TSCHED_E_NOMEM, "export: out of memory writing the answer");
    }
done:
    json_decref(doc);
    tsched_free(text);
    tsched_topology_free(tmp);
    free(keys);
    free(copy);
    return st;
}

/* ---- the launch files of place ---- */

/* A file-writing option given a value (the CLI's file name): the service writes no files. */
static tsched_status launch_flag(int *on, const svc_req *req, const char *key, const char *answer_field)
{
    const json_t *o = ts_svc_options(req), *v = o ? json_object_get(o, key) : NULL;
    if (v && json_is_string(v))
        return ts_error(TSCHED_E_FORMAT,
                        "options.%s: the service writes no files: give true to get it in the answer's \"%s\"", key,
                        answer_field);
    return ts_svc_opt_flag(on, req, key);
}

tsched_status ts_svc_launch_options(svc_launch *l, const svc_req *req)
{
    memset(l, 0, sizeof *l);
    int tpn_set = 0;
    tsched_status st;
    if ((st = launch_flag(&l->hostfile, req, "hostfile", "hostfile")) ||
        (st = ts_svc_opt_flag(&l->per_task, req, "hostfile-per-task")) ||
        (st = ts_svc_opt_u32(&l->tasks_per_node, &tpn_set, req, "tasks-per-node", 1, UINT32_MAX)) ||
        (st = launch_flag(&l->pod_order, req, "pod-order", "pod_order")) ||
        (st = ts_svc_opt_str(&l->index_label, req, "index-label")))
        return st;
    if (l->per_task && !l->hostfile)
        return ts_error(TSCHED_E_INVALID, "options.hostfile-per-task: needs options.hostfile");
    if (tpn_set && !l->per_task && !l->pod_order)
        return ts_error(TSCHED_E_INVALID,
                        "options.tasks-per-node: needs options.hostfile-per-task or options.pod-order");
    if (l->index_label && !l->pod_order)
        return ts_error(TSCHED_E_INVALID, "options.index-label: needs options.pod-order");
    return TSCHED_OK;
}

/* The library's launch-file messages named by the request's options. */
static void launch_error(tsched_status st)
{
    const char *msg = tsched_last_error();
    char *copy = strdup(msg);
    if (!copy)
        return;
    if (!strncmp(copy, "index_label:", 12))
        ts_error(st, "options.index-label:%s", copy + 12);
    else if (strstr(copy, "tasks_per_node") || strstr(copy, "pods_per_node"))
        ts_error(st, "options.tasks-per-node: %s", copy);
    free(copy);
}

tsched_status ts_svc_launch_files(svc_req *req, const svc_launch *l, const tsched_placement *p,
                                  const tsched_topology *t, const char *job_name)
{
    char *hosts = NULL, *pods = NULL, *hq = NULL;
    tsched_status st = TSCHED_OK;
    if (!l->hostfile && !l->pod_order)
        return TSCHED_OK;
    if (l->hostfile) {
        st = l->per_task ? tsched_placement_hostfile_per_task(&hosts, p, t, l->tasks_per_node)
                         : tsched_placement_hostfile(&hosts, p, t);
        if (st != TSCHED_OK)
            goto done;
        json_t *s = json_string(hosts);
        int utf8 = s != NULL;
        hq = s ? json_dumps(s, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        json_decref(s);
        if (!hq) {
            st = ts_error(utf8 ? TSCHED_E_NOMEM : TSCHED_E_INTERNAL, "hostfile: %s",
                          utf8 ? "out of memory writing the answer" : "the host file is not UTF-8 text");
            goto done;
        }
    }
    if (l->pod_order) {
        if ((st = tsched_placement_pod_order(&pods, p, t, job_name, l->index_label, l->tasks_per_node)))
            goto done;
        ts_svc_minify(pods);
    }
    /* ,"hostfile":"...","pod_order":{...} */
    size_t n = (hq ? strlen(hq) + 13 : 0) + (pods ? strlen(pods) + 14 : 0) + 1;
    char *extra = malloc(n);
    if (!extra) {
        st = ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
        goto done;
    }
    snprintf(extra, n, "%s%s%s%s", hq ? ",\"hostfile\":" : "", hq ? hq : "", pods ? ",\"pod_order\":" : "",
             pods ? pods : "");
    free(req->extra);
    req->extra = extra;
done:
    if (st != TSCHED_OK)
        launch_error(st);
    free(hq);
    tsched_free(hosts);
    tsched_free(pods);
    return st;
}
