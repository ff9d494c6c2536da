/* The service's operations (doc/serve.md): each answers with the document the matching CLI
 * command prints for the same inputs and options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/json.h"
#include "service_internal.h"

/* A document field of the request, as text. */
typedef struct doc {
    char *text;
    size_t len;
    int owned;
} doc;

static tsched_status get_doc(doc *d, svc_req *req, const char *key, int required)
{
    return ts_svc_doc(&d->text, &d->len, &d->owned, req, key, required);
}

static void doc_free(doc *d)
{
    if (d->owned)
        free(d->text);
    d->text = NULL;
    d->owned = 0;
}

/* A loader's failure, its message prefixed by the request field the document came from. */
static tsched_status in_field(tsched_status st, const char *key)
{
    return st == TSCHED_OK ? st : ts_error_prefix(st, key);
}

/* An option value the library rejected: its message names the option as "options.KEY". */
static tsched_status in_option(tsched_status st, const char *key)
{
    if (st == TSCHED_OK)
        return st;
    const char *msg = tsched_last_error();
    size_t n = strlen(key);
    if (strncmp(msg, key, n) == 0 && msg[n] == ':') { /* the library named it already: "algo: ..." */
        char *copy = strdup(msg);
        if (copy)
            ts_error(st, "options.%s", copy);
        free(copy);
        return st;
    }
    char where[64];
    snprintf(where, sizeof where, "options.%s", key);
    return ts_error_prefix(st, where);
}

/* A library call's failure that may be about one of the options `keys` (NULL-terminated):
 * when its message starts with "KEY:", it names the option as "options.KEY"; other
 * failures pass as they are. */
static tsched_status about_option(tsched_status st, const char *const *keys)
{
    if (st == TSCHED_OK)
        return st;
    const char *msg = tsched_last_error();
    for (; *keys; keys++) {
        size_t n = strlen(*keys);
        if (strncmp(msg, *keys, n) == 0 && msg[n] == ':')
            return in_option(st, *keys);
    }
    return st;
}

static tsched_status missing_option(const char *key)
{
    return ts_error(TSCHED_E_NOT_FOUND, "options.%s: missing required option", key);
}

/* ---- version, shutdown ---- */

static tsched_status op_version(char **result, svc_req *req)
{
    (void)req;
    json_t *o = json_pack("{ss}", "version", tsched_version());
    *result = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return *result ? TSCHED_OK : ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
}

static tsched_status op_null(char **result, svc_req *req)
{
    (void)req;
    *result = NULL;
    return TSCHED_OK;
}

/* ---- fabrics ---- */

static tsched_status op_load(char **result, svc_req *req)
{
    const char *name;
    doc d = {0};
    tsched_topology *t = NULL;
    tsched_status st;
    if ((st = ts_svc_str(&name, req, "name")) || (st = get_doc(&d, req, "topology", 1)))
        return st;
    st = in_field(tsched_topology_load_string(&t, d.text, d.len), "topology");
    doc_free(&d);
    if (st == TSCHED_OK)
        st = tsched_topology_summary_json(result, t);
    if (st != TSCHED_OK) {
        tsched_topology_free(t);
        return st;
    }
    req->put_name = name;
    req->put_topo = t;
    return TSCHED_OK;
}

static tsched_status op_unload(char **result, svc_req *req)
{
    const char *name;
    tsched_status st;
    *result = NULL;
    if ((st = ts_svc_str(&name, req, "name")))
        return st;
    if (!ts_svc_find(req->svc, name))
        return ts_error(TSCHED_E_NOT_FOUND, "name: no fabric named \"%s\" is loaded", name);
    req->drop_name = name;
    return TSCHED_OK;
}

/* The batch's "tsched_topology_set_up_batch: names[i]: ..." renamed to the request's field. */
static tsched_status batch_error(tsched_status st, size_t ndown)
{
    const char *msg = tsched_last_error(), *pre = "tsched_topology_set_up_batch: names[";
    size_t n = strlen(pre);
    if (strncmp(msg, pre, n) != 0)
        return st;
    char *end;
    unsigned long long i = strtoull(msg + n, &end, 10);
    if (end[0] != ']')
        return st;
    char *rest = strdup(end + 1);
    if (!rest)
        return st;
    if (i < ndown)
        ts_error(st, "state.down[%llu]%s", i, rest);
    else
        ts_error(st, "state.up[%llu]%s", i - ndown, rest);
    free(rest);
    return st;
}

/* The names of state.down / state.up (strings), appended to names[] with their up flag. */
static tsched_status collect(const char **names, int *up, size_t *n, const json_t *arr, const char *key, int flag)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (!json_is_string(v))
            return ts_error(TSCHED_E_TYPE, "state.%s[%zu]: expected a name, got %s", key, i, ts_json_type_name(v));
        if (json_string_length(v) == 0)
            return ts_error(TSCHED_E_FORMAT, "state.%s[%zu]: empty name", key, i);
        names[*n] = json_string_value(v);
        up[(*n)++] = flag;
    }
    return TSCHED_OK;
}

static tsched_status op_update(char **result, svc_req *req)
{
    const char *name;
    const json_t *state, *free_gpus = NULL, *down = NULL, *upl = NULL;
    tsched_status st;
    if ((st = ts_svc_str(&name, req, "name")) || (st = ts_json_obj(&state, req->root, "", "state", 1)))
        return st;
    svc_fabric *f = ts_svc_find(req->svc, name);
    if (!f)
        return ts_error(TSCHED_E_NOT_FOUND, "name: no fabric named \"%s\" is loaded", name);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)state, key, v)
    {
        if (strcmp(key, "free_gpus") && strcmp(key, "down") && strcmp(key, "up"))
            return ts_error(TSCHED_E_FORMAT, "state.%s: unknown field (free_gpus, down, up)", key);
    }
    if ((st = ts_json_obj(&free_gpus, state, "state", "free_gpus", 0)) ||
        (st = ts_json_arr(&down, state, "state", "down", 0)) || (st = ts_json_arr(&upl, state, "state", "up", 0)))
        return st;
    tsched_topology *t = f->topo;
    /* Everything is checked before anything changes: a rejected update leaves the fabric as it was. */
    if (free_gpus) {
        json_object_foreach((json_t *)free_gpus, key, v)
        {
            uint32_t node = tsched_topology_find_node(t, key), n;
            if (node == TSCHED_NONE)
                return ts_error(TSCHED_E_NOT_FOUND, "state.free_gpus.%s: no node named \"%s\"", key, key);
            if ((st = ts_json_u32(&n, free_gpus, "state.free_gpus", key, 1, 0, tsched_topology_node_gpus(t, node))))
                return st;
        }
    }
    size_t ndown = down ? json_array_size(down) : 0, nup = upl ? json_array_size(upl) : 0, n = 0;
    const char **names = ts_malloc(ndown + nup + 1, sizeof *names);
    int *up = ts_malloc(ndown + nup + 1, sizeof *up);
    if (!names || !up)
        st = TSCHED_E_NOMEM;
    else if (!(st = collect(names, up, &n, down, "down", 0)) && !(st = collect(names, up, &n, upl, "up", 1)))
        st = tsched_topology_set_up_batch(t, names, up, n);
    free(names);
    free(up);
    if (st != TSCHED_OK)
        return batch_error(st, ndown);
    if (free_gpus) {
        json_object_foreach((json_t *)free_gpus, key, v)
        {
            uint32_t node = tsched_topology_find_node(t, key), n = 0;
            if ((st = ts_json_u32(&n, free_gpus, "state.free_gpus", key, 1, 0, UINT32_MAX)) ||
                (st = tsched_topology_set_free_gpus(t, node, n)))
                return st;
        }
    }
    return tsched_topology_summary_json(result, t);
}

/* ---- place, flows, route ---- */

static const char *const place_fields[] = {"topology", "job", NULL};
static const char *const place_options[] = {"algo",      "alpha",   "seed",     "time-limit-ms",     "no-timing",
                                            "compact",   "hostfile", "hostfile-per-task", "tasks-per-node",
                                            "pod-order", "index-label", NULL};

static tsched_status op_place(char **result, svc_req *req)
{
    tsched_place_options o;
    tsched_place_options_init(&o);
    const char *algo = NULL;
    int no_timing = 0, compact = 0;
    tsched_status st;
    if ((st = ts_svc_opt_str(&algo, req, "algo")) ||
        (algo && (st = tsched_place_algo_from_name(&o.algo, algo)) && (st = in_option(st, "algo"))) ||
        (st = ts_svc_opt_num(&o.alpha, NULL, req, "alpha", 0, 0, 1)) ||
        (st = ts_svc_opt_u64(&o.seed, NULL, req, "seed", 0, UINT64_MAX)) ||
        (st = ts_svc_opt_u32(&o.time_limit_ms, NULL, req, "time-limit-ms", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    svc_launch launch;
    if ((st = ts_svc_launch_options(&launch, req)))
        return st;
    tsched_topology *t, *tmp = NULL;
    tsched_job *j = NULL;
    tsched_placement *p = NULL;
    doc d = {0};
    if (!(st = ts_svc_topology(&t, &tmp, req, "topology")) && !(st = get_doc(&d, req, "job", 1)) &&
        !(st = in_field(tsched_job_load_string(&j, d.text, d.len), "job")) && !(st = tsched_place(&p, t, j, &o)) &&
        !(st = tsched_placement_to_json(result, p, t, tsched_job_name(j), !no_timing)) &&
        (st = ts_svc_launch_files(req, &launch, p, t, tsched_job_name(j)))) {
        tsched_free(*result);
        *result = NULL;
    }
    doc_free(&d);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(tmp);
    return st;
}

static const char *const flows_fields[] = {"topology", "placement", "job", NULL};
static const char *const flows_options[] = {"pattern", "step", "gbits", "compact", NULL};

static tsched_status op_flows(char **result, svc_req *req)
{
    const char *pattern = NULL;
    uint32_t step = 0;
    double gbits = 0;
    int compact = 0;
    tsched_pattern pat;
    tsched_status st;
    if ((st = ts_svc_opt_str(&pattern, req, "pattern")) ||
        (st = ts_svc_opt_u32(&step, NULL, req, "step", 0, UINT32_MAX)) ||
        (st = ts_svc_opt_num(&gbits, NULL, req, "gbits", 0, 1, 1e300)) ||
        (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    if (!pattern)
        return missing_option("pattern");
    if ((st = tsched_pattern_from_name(&pat, pattern)) != TSCHED_OK)
        return in_option(st, "pattern");
    const json_t *jv = json_object_get(req->root, "job");
    if (gbits <= 0 && (!jv || json_is_null(jv)))
        return ts_error(TSCHED_E_NOT_FOUND, "options.gbits: give gbits, or a job with a model for the App. C volumes");
    tsched_topology *t, *tmp = NULL;
    tsched_placement *p = NULL;
    tsched_job *j = NULL;
    tsched_flows *f = NULL;
    doc dp = {0}, dj = {0};
    if (!(st = ts_svc_topology(&t, &tmp, req, "topology")) && !(st = get_doc(&dp, req, "placement", 1)) &&
        !(st = in_field(tsched_placement_load_string(&p, t, dp.text, dp.len), "placement")) &&
        !(st = get_doc(&dj, req, "job", 0)) &&
        !(dj.text && (st = in_field(tsched_job_load_string(&j, dj.text, dj.len), "job"))) &&
        !(st = tsched_flows_new(&f)) &&
        !(st = about_option(tsched_flows_collective(f, t, j, tsched_placement_nodes(p), tsched_placement_rows(p),
                                                    tsched_placement_cols(p), pat, step, gbits),
                            (const char *const[]){"step", "gbits", NULL})))
        st = tsched_flows_to_json(result, f, t);
    doc_free(&dp);
    doc_free(&dj);
    tsched_flows_free(f);
    tsched_job_free(j);
    tsched_placement_free(p);
    tsched_topology_free(tmp);
    return st;
}

static const char *const route_fields[] = {"topology", "flows", NULL};
static const char *const route_options[] = {"algo", "seed", "threads", "time-limit-ms", "no-timing", "compact", NULL};

static tsched_status op_route(char **result, svc_req *req)
{
    tsched_route_options o;
    tsched_route_options_init(&o);
    const char *algo = NULL;
    int no_timing = 0, compact = 0;
    tsched_status st;
    if ((st = ts_svc_opt_str(&algo, req, "algo")) ||
        (algo && (st = tsched_route_algo_from_name(&o.algo, algo)) && (st = in_option(st, "algo"))) ||
        (st = ts_svc_opt_u64(&o.seed, NULL, req, "seed", 0, UINT64_MAX)) ||
        (st = ts_svc_opt_u32(&o.threads, NULL, req, "threads", 1, 64)) ||
        (st = ts_svc_opt_u32(&o.time_limit_ms, NULL, req, "time-limit-ms", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    tsched_topology *t, *tmp = NULL;
    tsched_flows *f = NULL;
    tsched_routes *r = NULL;
    doc d = {0};
    if (!(st = ts_svc_topology(&t, &tmp, req, "topology")) && !(st = get_doc(&d, req, "flows", 1)) &&
        !(st = in_field(tsched_flows_load_string(&f, t, d.text, d.len), "flows")) &&
        !(st = tsched_route(&r, t, f, &o)))
        st = tsched_routes_to_json(result, r, t, !no_timing);
    doc_free(&d);
    tsched_routes_free(r);
    tsched_flows_free(f);
    tsched_topology_free(tmp);
    return st;
}

/* ---- prioritize, kcut ---- */

/* levels (required), algo, orders, seed: the options both commands share. */
/* The compression's own bounds (levels and orders against the limits) are options. */
static const char *const kcut_checked[] = {"levels", "orders", "algo", NULL};

static tsched_status kcut_options(tsched_kcut_options *k, svc_req *req)
{
    const char *algo = NULL;
    int given = 0, compact = 0;
    tsched_status st;
    if ((st = ts_svc_opt_u32(&k->levels, &given, req, "levels", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_str(&algo, req, "algo")) ||
        (algo && (st = tsched_kcut_algo_from_name(&k->algo, algo)) && (st = in_option(st, "algo"))) ||
        (st = ts_svc_opt_u32(&k->orders, NULL, req, "orders", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_u64(&k->seed, NULL, req, "seed", 0, UINT64_MAX)) ||
        (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    return given ? TSCHED_OK : missing_option("levels");
}

static const char *const prio_fields[] = {"topology", "jobset", NULL};
static const char *const prio_options[] = {"levels", "algo", "order", "orders", "seed", "compact", NULL};

static tsched_status op_prioritize(char **result, svc_req *req)
{
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    tsched_kcut_options k;
    tsched_kcut_options_init(&k);
    k.algo = o.algo;
    k.levels = o.levels;
    k.orders = o.orders;
    k.seed = o.seed;
    tsched_status st = kcut_options(&k, req);
    const char *order = NULL;
    if (st == TSCHED_OK && !(st = ts_svc_opt_str(&order, req, "order")) && order &&
        (st = tsched_prio_order_from_name(&o.order, order)))
        st = in_option(st, "order");
    if (st != TSCHED_OK)
        return st;
    o.algo = k.algo;
    o.levels = k.levels;
    o.orders = k.orders;
    o.seed = k.seed;
    tsched_topology *t, *tmp = NULL;
    tsched_jobset *js = NULL;
    tsched_priorities *p = NULL;
    doc d = {0};
    if (!(st = ts_svc_topology(&t, &tmp, req, "topology")) && !(st = get_doc(&d, req, "jobset", 1)) &&
        !(st = in_field(tsched_jobset_load_string(&js, t, d.text, d.len), "jobset")) &&
        !(st = about_option(tsched_prioritize(&p, t, js, &o), kcut_checked)))
        st = tsched_priorities_to_json(result, p, js);
    doc_free(&d);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(tmp);
    return st;
}

static const char *const kcut_fields[] = {"dag", NULL};
static const char *const kcut_opts[] = {"levels", "algo", "orders", "seed", "threads", "compact", NULL};

static tsched_status op_kcut(char **result, svc_req *req)
{
    tsched_kcut_options k;
    tsched_kcut_options_init(&k);
    tsched_status st;
    if ((st = kcut_options(&k, req)) || (st = ts_svc_opt_u32(&k.threads, NULL, req, "threads", 0, UINT32_MAX)))
        return st;
    tsched_dag *d = NULL;
    uint32_t *levels = NULL;
    double cut = 0;
    doc dd = {0};
    if (!(st = get_doc(&dd, req, "dag", 1)) && !(st = in_field(tsched_dag_load_string(&d, dd.text, dd.len), "dag"))) {
        uint32_t n = tsched_dag_nodes(d);
        if (!(levels = ts_calloc(n ? n : 1, sizeof *levels)))
            st = TSCHED_E_NOMEM;
        else if (!(st = about_option(tsched_dag_compress(levels, &cut, d, &k), kcut_checked)))
            st = tsched_levels_to_json(result, levels, n, cut);
    }
    doc_free(&dd);
    free(levels);
    tsched_dag_free(d);
    return st;
}

/* ---- vclos, cells, crius-schedule, simulate ---- */

/* Option `key`, one of `names` (NULL-terminated): its index into *out. */
static tsched_status opt_pick(int *out, int *given, svc_req *req, const char *key, const char *const *names,
                              const char *list)
{
    const char *v = NULL;
    tsched_status st = ts_svc_opt_str(&v, req, key);
    if (st != TSCHED_OK || !v)
        return st;
    for (int i = 0; names[i]; i++)
        if (!strcmp(v, names[i])) {
            *out = i;
            if (given)
                *given = 1;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "options.%s: \"%s\" unknown (%s)", key, v, list);
}

static const char *const vclos_fields[] = {"topology", "requests", "state", NULL};
static const char *const vclos_options[] = {"mode",          "shapes",    "pattern", "step",    "routing", "seed",
                                            "time-limit-ms", "no-timing", "compact", NULL};

static tsched_status op_vclos(char **result, svc_req *req)
{
    static const char *const modes[] = {"vclos", "ocs-vclos", "free", NULL};
    static const char *const shapes_names[] = {"all", "pow2", NULL};
    static const char *const patterns[] = {"ring", "alltoall", "hd", NULL};
    static const char *const routings[] = {"source", "ecmp", "balanced-ecmp", NULL};
    int mode = TSCHED_VCLOS_MODE_VCLOS, shapes = TSCHED_VCLOS_SHAPES_ALL, pattern = -1, routing = -1;
    int no_timing = 0, compact = 0, has_step = 0, has_seed = 0, has_limit = 0;
    uint32_t step = 0, limit = 0;
    uint64_t seed = 1;
    tsched_status st;
    if ((st = opt_pick(&mode, NULL, req, "mode", modes, "vclos, ocs-vclos or free")) ||
        (st = opt_pick(&shapes, NULL, req, "shapes", shapes_names, "all or pow2")) ||
        (st = opt_pick(&pattern, NULL, req, "pattern", patterns, "ring, alltoall or hd")) ||
        (st = opt_pick(&routing, NULL, req, "routing", routings, "source, ecmp or balanced-ecmp")) ||
        (st = ts_svc_opt_u32(&step, &has_step, req, "step", 0, UINT32_MAX)) ||
        (st = ts_svc_opt_u64(&seed, &has_seed, req, "seed", 0, UINT64_MAX)) ||
        (st = ts_svc_opt_u32(&limit, &has_limit, req, "time-limit-ms", 0, UINT32_MAX)) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    if (has_step && pattern < 0)
        return ts_error(TSCHED_E_NOT_FOUND, "options.step: needs options.pattern");
    if ((routing >= 0 || has_seed) && mode != TSCHED_VCLOS_MODE_FREE)
        return ts_error(TSCHED_E_INVALID,
                        "options.%s: only mode free chooses links (vclos and ocs-vclos use their source routes)",
                        routing >= 0 ? "routing" : "seed");
    tsched_topology *t, *tmp = NULL;
    tsched_vclos *v = NULL;
    doc dr = {0}, ds = {0};
    if ((st = ts_svc_topology(&t, &tmp, req, "topology")) || (st = get_doc(&dr, req, "requests", 1)) ||
        (st = get_doc(&ds, req, "state", 0)))
        goto done;
    if ((st = tsched_vclos_new(&v, t, (tsched_vclos_mode)mode))) {
        st = in_field(st, "topology");
        goto done;
    }
    if ((st = tsched_vclos_set_shapes(v, (tsched_vclos_shapes)shapes)) ||
        (has_limit && (st = tsched_vclos_set_time_limit_ms(v, limit))) ||
        (mode == TSCHED_VCLOS_MODE_FREE &&
         (st = tsched_vclos_set_routing(v, routing < 0 ? TSCHED_VCLOS_ROUTING_SOURCE : (tsched_vclos_routing)routing,
                                        seed))) ||
        (ds.text && (st = in_field(tsched_vclos_load_state(v, ds.text, ds.len), "state"))))
        goto done;
    st = in_field(tsched_vclos_apply_requests(result, v, dr.text, dr.len, pattern, step, !no_timing), "requests");
done:
    doc_free(&dr);
    doc_free(&ds);
    tsched_vclos_free(v);
    tsched_topology_free(tmp);
    return st;
}

/* The built-in GPU catalogue with the tsched.gpus.v1 document of field "catalog" merged over it. */
static tsched_status catalog(tsched_gpu_catalog **out, svc_req *req)
{
    tsched_gpu_catalog *cat = NULL, *file = NULL;
    doc d = {0};
    tsched_status st;
    if ((st = tsched_gpu_catalog_default(&cat)) || (st = get_doc(&d, req, "catalog", 0)))
        goto done;
    if (d.text && (!(st = in_field(tsched_gpu_catalog_load_string(&file, d.text, d.len), "catalog"))))
        st = in_field(tsched_gpu_catalog_merge(cat, file), "catalog");
done:
    doc_free(&d);
    tsched_gpu_catalog_free(file);
    if (st != TSCHED_OK) {
        tsched_gpu_catalog_free(cat);
        cat = NULL;
    }
    *out = cat;
    return st;
}

static const char *const cells_fields[] = {"topology", "job", "catalog", "profile", NULL};
static const char *const cells_options[] = {"type", "gpus", "stages", "plans", "no-timing", "compact", NULL};

static tsched_status op_cells(char **result, svc_req *req)
{
    static const char *const spaces[] = {"assembled", "tuned", "exhaustive", NULL};
    int space = TSCHED_PLANS_ASSEMBLED, no_timing = 0, compact = 0;
    uint32_t gpus = 0, stages = 0;
    const char *type = NULL;
    tsched_status st;
    if ((st = ts_svc_opt_str(&type, req, "type")) || (st = ts_svc_opt_u32(&gpus, NULL, req, "gpus", 1, UINT32_MAX)) ||
        (st = ts_svc_opt_u32(&stages, NULL, req, "stages", 1, UINT32_MAX)) ||
        (st = opt_pick(&space, NULL, req, "plans", spaces, "assembled, tuned or exhaustive")) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    tsched_topology *t, *tmp = NULL;
    tsched_job *j = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_op_profile *prof = NULL;
    doc dj = {0}, dp = {0};
    if (!(st = ts_svc_topology(&t, &tmp, req, "topology")) && !(st = get_doc(&dj, req, "job", 1)) &&
        !(st = in_field(tsched_job_load_string(&j, dj.text, dj.len), "job")) && !(st = catalog(&cat, req)) &&
        !(st = get_doc(&dp, req, "profile", 0)) &&
        !(dp.text && (st = in_field(tsched_op_profile_load_string(&prof, dp.text, dp.len), "profile")))) {
        st = tsched_cell_list_to_json(result, t, j, cat, prof, type, gpus, stages, (tsched_plan_space)space,
                                      !no_timing);
        /* the library names options by their bare names */
        if (st != TSCHED_OK && (!strncmp(tsched_last_error(), "type:", 5) || !strncmp(tsched_last_error(), "gpus:", 5)))
            ts_error_prefix(st, "options");
        if (st != TSCHED_OK && !strncmp(tsched_last_error(), "options: ", 9)) {
            char *m = strdup(tsched_last_error() + 9);
            if (m)
                ts_error(st, "options.%s", m);
            free(m);
        }
    }
    doc_free(&dj);
    doc_free(&dp);
    tsched_op_profile_free(prof);
    tsched_gpu_catalog_free(cat);
    tsched_job_free(j);
    tsched_topology_free(tmp);
    return st;
}

static const char *const crius_fields[] = {"topology", "queue", "catalog", NULL};
static const char *const crius_options[] = {"depth", "objective", "event", "no-timing", "compact", NULL};

static tsched_status op_crius(char **result, svc_req *req)
{
    static const char *const objectives[] = {"normalized", "throughput", NULL};
    static const char *const events[] = {"arrival", "departure", NULL};
    int objective = TSCHED_CRIUS_NORMALIZED, event = TSCHED_CRIUS_ARRIVAL, no_timing = 0, compact = 0, has_depth = 0;
    uint32_t depth = 3;
    tsched_status st;
    if ((st = ts_svc_opt_u32(&depth, &has_depth, req, "depth", 0, 16)) ||
        (st = opt_pick(&objective, NULL, req, "objective", objectives, "normalized or throughput")) ||
        (st = opt_pick(&event, NULL, req, "event", events, "arrival or departure")) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    tsched_topology *t, *tmp = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_crius *cr = NULL;
    doc dq = {0};
    if ((st = ts_svc_topology(&t, &tmp, req, "topology")) || (st = get_doc(&dq, req, "queue", 1)) ||
        (st = catalog(&cat, req)))
        goto done;
    if ((st = tsched_crius_new(&cr, t, cat))) {
        st = in_field(st, "topology");
        goto done;
    }
    if ((has_depth && (st = tsched_crius_set_depth(cr, depth))) ||
        (st = tsched_crius_set_objective(cr, (tsched_crius_objective)objective)) ||
        (st = in_field(tsched_crius_load_queue_string(cr, dq.text, dq.len), "queue")) ||
        (st = tsched_crius_schedule(cr, (tsched_crius_event)event)))
        goto done;
    st = tsched_crius_to_json(result, cr, !no_timing);
done:
    doc_free(&dq);
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(tmp);
    return st;
}

static const char *const sim_fields[] = {"topology", "trace", "scenario", NULL};
static const char *const sim_options[] = {"until",    "seed",     "levels",       "sample-ms", "queue",   "placement",
                                          "routing",  "reroute",  "priority",     "links",     "links-report",
                                          "no-timing", "compact", NULL};

static tsched_status op_simulate(char **result, svc_req *req)
{
    static const struct {
        const char *key;
        tsched_sim_policy which;
    } pols[] = {{"queue", TSCHED_SIM_QUEUE},     {"placement", TSCHED_SIM_PLACEMENT}, {"routing", TSCHED_SIM_ROUTING},
                {"reroute", TSCHED_SIM_REROUTE}, {"priority", TSCHED_SIM_PRIORITY},   {"links", TSCHED_SIM_LINKS}};
    static const struct {
        const char *key;
        tsched_sim_option which;
    } nums[] = {{"until", TSCHED_SIM_UNTIL_S},
                {"seed", TSCHED_SIM_SEED},
                {"levels", TSCHED_SIM_LEVELS},
                {"sample-ms", TSCHED_SIM_SAMPLE_MS}};
    const char *pol[6] = {0};
    double num[4] = {0};
    int has_num[4] = {0}, links = 0, no_timing = 0, compact = 0;
    tsched_status st = TSCHED_OK;
    for (size_t k = 0; k < 6 && !st; k++)
        st = ts_svc_opt_str(&pol[k], req, pols[k].key);
    for (size_t k = 0; k < 4 && !st; k++)
        st = ts_svc_opt_num(&num[k], &has_num[k], req, nums[k].key, 0, 0, 1e300);
    if (st || (st = ts_svc_opt_flag(&links, req, "links-report")) ||
        (st = ts_svc_opt_flag(&no_timing, req, "no-timing")) || (st = ts_svc_opt_flag(&compact, req, "compact")))
        return st;
    /* The run changes its fabric's state: a loaded fabric is run on a copy, as the CLI
     * runs on a fabric fresh from its file. */
    tsched_topology *t = NULL, *own = NULL;
    tsched_sim *s = NULL;
    tsched_sim_result *r = NULL;
    doc dt = {0}, ds = {0};
    char *copy = NULL;
    if ((st = ts_svc_topology(&t, &own, req, "topology")))
        goto done;
    if (!own) {
        if ((st = tsched_topology_to_json(&copy, t)) ||
            (st = tsched_topology_load_string(&own, copy, strlen(copy))))
            goto done;
        t = own;
    }
    if ((st = tsched_sim_new(&s, t)) || (st = get_doc(&ds, req, "scenario", 0)) ||
        (ds.text && (st = in_field(tsched_sim_load_scenario_string(s, ds.text, ds.len), "scenario"))) ||
        (st = get_doc(&dt, req, "trace", 1)) ||
        (st = in_field(tsched_sim_load_trace_string(s, dt.text, dt.len), "trace")))
        goto done;
    doc_free(&dt); /* a trace can be large: give it back before the run */
    for (size_t k = 0; k < 6; k++)
        if (pol[k] && (st = in_option(tsched_sim_set_policy(s, pols[k].which, pol[k]), pols[k].key)) != TSCHED_OK)
            goto done;
    for (size_t k = 0; k < 4; k++)
        if (has_num[k] && (st = in_option(tsched_sim_set_option(s, nums[k].which, num[k]), nums[k].key)) != TSCHED_OK)
            goto done;
    /* the op returns no time series: sampling it would cost span x links for nothing */
    if ((st = tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, 0)) != TSCHED_OK)
        goto done;
    int flags = (no_timing ? TSCHED_SIM_JSON_NO_TIMING : 0) | (links ? TSCHED_SIM_JSON_LINKS : 0) |
                TSCHED_SIM_JSON_COMPACT;
    if (!(st = tsched_sim_run_until(s, INT64_MAX)) && !(st = tsched_sim_result_new(&r, s)))
        st = tsched_sim_result_to_json(result, r, flags);
done:
    tsched_free(copy);
    doc_free(&dt);
    doc_free(&ds);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(own);
    return st;
}

/* ---- the table ---- */

static const char *const name_fields[] = {"name", NULL};
static const char *const load_fields[] = {"name", "topology", NULL};
static const char *const update_fields[] = {"name", "state", NULL};

static const svc_op ops[] = {
    {"version", op_version, NULL, NULL, 0},
    {"load-topology", op_load, load_fields, NULL, 0},
    {"update", op_update, update_fields, NULL, 0},
    {"unload", op_unload, name_fields, NULL, 0},
    {"place", op_place, place_fields, place_options, 0},
    {"import-slurm", ts_svc_op_import_slurm, ts_svc_import_fields, ts_svc_import_slurm_options, 0},
    {"import-slurm-yaml", ts_svc_op_import_slurm_yaml, ts_svc_import_fields, ts_svc_import_slurm_yaml_options, 0},
    {"import-k8s-nodes", ts_svc_op_import_k8s_nodes, ts_svc_import_k8s_fields, ts_svc_import_k8s_options, 0},
    {"export", ts_svc_op_export, ts_svc_export_fields, ts_svc_export_options, 0},
    {"flows", op_flows, flows_fields, flows_options, 0},
    {"route", op_route, route_fields, route_options, 0},
    {"prioritize", op_prioritize, prio_fields, prio_options, 0},
    {"kcut", op_kcut, kcut_fields, kcut_opts, 0},
    {"vclos", op_vclos, vclos_fields, vclos_options, 0},
    {"cells", op_cells, cells_fields, cells_options, 0},
    {"crius-schedule", op_crius, crius_fields, crius_options, 0},
    {"simulate", op_simulate, sim_fields, sim_options, 0},
    {"trace-convert-alibaba", ts_svc_op_trace_alibaba, ts_svc_trace_alibaba_fields, ts_svc_trace_alibaba_options, 0},
    {"trace-convert-dcn", ts_svc_op_trace_dcn, ts_svc_trace_dcn_fields, ts_svc_trace_dcn_options, 0},
    {"trace-poisson", ts_svc_op_trace_poisson, ts_svc_trace_poisson_fields, ts_svc_trace_poisson_options, 0},
    {"shutdown", op_null, NULL, NULL, 1},
};

const svc_op *ts_svc_ops(size_t *n)
{
    *n = sizeof ops / sizeof ops[0];
    return ops;
}
