/* The tsched.model-mix.v1 document of the converters (doc/sim-traces.md). */
#include "trace_convert_internal.h"

/* ---------------------------------------------------------------- model mix */

struct ts_trace_mix {
    json_t *root;
    mix_model *m;
    double *w;
    size_t n;
    double total;
};

void ts_trace_mix_free(ts_trace_mix *mx)
{
    if (!mx)
        return;
    json_decref(mx->root);
    free(mx->m);
    free(mx->w);
    free(mx);
}

static int json_positive(json_t *v)
{
    return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) > 0;
}

static tsched_status mix_uint(const char *path, json_t *o, size_t i, const char *key, unsigned *out, int *has,
                              ts_trace_err *err)
{
    json_t *v = json_object_get(o, key);
    *has = v != NULL;
    if (!v)
        return TSCHED_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > UINT32_MAX)
        return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].%s: expected a whole number >= 1", path, i, key);
    *out = (unsigned)json_integer_value(v);
    return TSCHED_OK;
}

/* A whole number in [min, UINT32_MAX] as the trace reader takes one (ts_json_u32): a JSON
 * integer or an integral real. */
static int u32_ok(const json_t *v, uint32_t min)
{
    if (json_is_integer(v))
        return json_integer_value(v) >= (json_int_t)min && json_integer_value(v) <= (json_int_t)UINT32_MAX;
    if (!json_is_real(v))
        return 0;
    double d = json_real_value(v);
    return d == floor(d) && d >= min && d <= (double)UINT32_MAX;
}

/* A field the reader takes null for absent. */
static const json_t *present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* models[i].model: copied into every job that draws it, so it must be what the trace reader
 * takes (tsched.job.v1's model: six required counts >= 1, vpp >= 1, moe_experts >= 0, a
 * global batch that is a multiple of the micro batch). */
static tsched_status mix_model_obj(const char *path, size_t i, json_t *mo, ts_trace_err *err)
{
    static const char *const req[] = {"hidden", "layers", "vocab", "seq", "global_batch", "micro_batch"};
    for (size_t k = 0; k < 6; k++) {
        const json_t *v = present(mo, req[k]);
        if (!v || !u32_ok(v, 1))
            return ts_tc_fail(err, TSCHED_E_RANGE,
                              "%s: models[%zu].model.%s: required, a whole number in [1, 4294967295]", path, i, req[k]);
    }
    const json_t *vpp = present(mo, "vpp"), *moe = present(mo, "moe_experts");
    if (vpp && !u32_ok(vpp, 1))
        return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].model.vpp: expected a whole number in [1, 4294967295]",
                          path, i);
    if (moe && !u32_ok(moe, 0))
        return ts_tc_fail(err, TSCHED_E_RANGE,
                          "%s: models[%zu].model.moe_experts: expected a whole number in [0, 4294967295]", path, i);
    double gb = json_number_value(present(mo, "global_batch")), mb = json_number_value(present(mo, "micro_batch"));
    if (fmod(gb, mb) != 0)
        return ts_tc_fail(err, TSCHED_E_RANGE,
                          "%s: models[%zu].model.global_batch: %.17g is not a multiple of micro_batch "
                          "%.17g",
                          path, i, gb, mb);
    return TSCHED_OK;
}

/* models[i].phases[j].flows: copied as they are, so each must be what the trace reader takes
 * for a job placed by the simulator (no fixed nodes): src and dst distinct ranks, NICs, gbits
 * finite and > 0, hops (if any) a non-empty array of switch names (whether they name a path
 * depends on the fabric). */
static tsched_status mix_flows(const char *path, size_t i, size_t j, json_t *fl, ts_trace_err *err)
{
    for (size_t f = 0; f < json_array_size(fl); f++) {
        json_t *x = json_array_get(fl, f);
        const json_t *src = present(x, "src"), *dst = present(x, "dst"), *g = present(x, "gbits"),
                     *hops = present(x, "hops");
        static const char *const nics[2] = {"src_nic", "dst_nic"};
        if (!json_is_object(x))
            return ts_tc_fail(err, TSCHED_E_TYPE, "%s: models[%zu].phases[%zu].flows[%zu]: expected an object", path, i,
                              j, f);
        if (!src || !u32_ok(src, 0) || !dst || !u32_ok(dst, 0))
            return ts_tc_fail(err, TSCHED_E_RANGE,
                              "%s: models[%zu].phases[%zu].flows[%zu].%s: required, a rank in [0, "
                              "4294967295]",
                              path, i, j, f, !src || !u32_ok(src, 0) ? "src" : "dst");
        if (json_number_value(src) == json_number_value(dst))
            return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].flows[%zu].dst: rank %.17g is also src",
                              path, i, j, f, json_number_value(dst));
        for (int k = 0; k < 2; k++)
            if (present(x, nics[k]) && !u32_ok(present(x, nics[k]), 0))
                return ts_tc_fail(err, TSCHED_E_RANGE,
                                  "%s: models[%zu].phases[%zu].flows[%zu].%s: expected a whole number "
                                  "in [0, 4294967295]",
                                  path, i, j, f, nics[k]);
        if (!g || !json_positive((json_t *)g))
            return ts_tc_fail(err, TSCHED_E_RANGE,
                              "%s: models[%zu].phases[%zu].flows[%zu].gbits: required, a number > 0", path, i, j, f);
        if (hops) {
            int ok = json_is_array(hops) && json_array_size(hops) > 0;
            for (size_t h = 0; ok && h < json_array_size(hops); h++)
                ok = json_is_string(json_array_get(hops, h));
            if (!ok)
                return ts_tc_fail(err, TSCHED_E_TYPE,
                                  "%s: models[%zu].phases[%zu].flows[%zu].hops: expected a non-empty "
                                  "array of switch names",
                                  path, i, j, f);
        }
    }
    return TSCHED_OK;
}

static tsched_status mix_phases(const char *path, json_t *model, size_t i, ts_trace_err *err)
{
    static const char *const patterns[] = {"dp-ring", "dp-hd", "pp", "alltoall"};
    json_t *ph = json_object_get(model, "phases");
    if (!json_is_array(ph) || json_array_size(ph) == 0)
        return ts_tc_fail(err, TSCHED_E_FORMAT, "%s: models[%zu].phases: required, a non-empty array", path, i);
    for (size_t j = 0; j < json_array_size(ph); j++) {
        json_t *p = json_array_get(ph, j), *pat = json_object_get(p, "pattern"), *fl = json_object_get(p, "flows");
        json_t *g = json_object_get(p, "gbits"), *rep = json_object_get(p, "repeat");
        if (!json_is_object(p))
            return ts_tc_fail(err, TSCHED_E_TYPE, "%s: models[%zu].phases[%zu]: expected an object", path, i, j);
        if (!pat == !fl)
            return ts_tc_fail(err, TSCHED_E_FORMAT,
                              "%s: models[%zu].phases[%zu]: needs exactly one of pattern and flows", path, i, j);
        if (pat) {
            size_t k = 0;
            while (k < 4 && !(json_is_string(pat) && strcmp(json_string_value(pat), patterns[k]) == 0))
                k++;
            if (k == 4)
                return ts_tc_fail(err, TSCHED_E_FORMAT,
                                  "%s: models[%zu].phases[%zu].pattern: expected dp-ring, dp-hd, pp or alltoall", path,
                                  i, j);
            if (!g && !json_is_object(json_object_get(model, "model")))
                return ts_tc_fail(
                    err, TSCHED_E_FORMAT,
                    "%s: models[%zu].phases[%zu].gbits: missing, and the model has no \"model\" to derive "
                    "volumes from",
                    path, i, j);
        } else if (!json_is_array(fl) || json_array_size(fl) == 0)
            return ts_tc_fail(err, TSCHED_E_FORMAT, "%s: models[%zu].phases[%zu].flows: expected a non-empty array",
                              path, i, j);
        else {
            tsched_status st = mix_flows(path, i, j, fl, err);
            if (st != TSCHED_OK)
                return st;
        }
        if (g && !json_positive(g))
            return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].gbits: expected a number > 0", path, i,
                              j);
        if (rep && (!json_is_integer(rep) || json_integer_value(rep) < 1 || json_integer_value(rep) > UINT32_MAX))
            return ts_tc_fail(err, TSCHED_E_RANGE,
                              "%s: models[%zu].phases[%zu].repeat: expected a whole number in [1, 4294967295]", path, i,
                              j);
    }
    return TSCHED_OK;
}

static tsched_status mix_read(ts_trace_mix *mx, const char *text, size_t len, const char *path, ts_trace_err *err)
{
    json_error_t e;
    mx->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (!mx->root)
        return ts_tc_fail(err, TSCHED_E_PARSE, "%s:%d:%d: %s", path, e.line, e.column, e.text);
    json_t *fmt = json_object_get(mx->root, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MIX_FORMAT) != 0)
        return ts_tc_fail(err, TSCHED_E_FORMAT, "%s: format: expected \"" MIX_FORMAT "\"%s%s%s", path,
                          json_is_string(fmt) ? ", got \"" : "", json_is_string(fmt) ? json_string_value(fmt) : "",
                          json_is_string(fmt) ? "\"" : "");
    json_t *models = json_object_get(mx->root, "models");
    if (!json_is_array(models) || json_array_size(models) == 0)
        return ts_tc_fail(err, TSCHED_E_FORMAT, "%s: models: required, a non-empty array", path);
    mx->n = json_array_size(models);
    mx->m = calloc(mx->n, sizeof *mx->m);
    mx->w = calloc(mx->n, sizeof *mx->w);
    if (!mx->m || !mx->w)
        return ts_tc_nomem(err);
    tsched_status st;
    for (size_t i = 0; i < mx->n; i++) {
        json_t *o = json_array_get(models, i);
        if (!json_is_object(o))
            return ts_tc_fail(err, TSCHED_E_TYPE, "%s: models[%zu]: expected an object", path, i);
        mix_model *m = &mx->m[i];
        m->src = o;
        json_t *w = json_object_get(o, "weight"), *c = json_object_get(o, "compute_ms"),
               *ov = json_object_get(o, "overlap"), *mo = json_object_get(o, "model"), *nm = json_object_get(o, "name");
        if (nm && !json_is_string(nm))
            return ts_tc_fail(err, TSCHED_E_TYPE, "%s: models[%zu].name: expected a string", path, i);
        if (w && !json_positive(w))
            return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].weight: expected a number > 0", path, i);
        mx->w[i] = w ? json_number_value(w) : 1.0;
        if (!c || !json_is_number(c) || !ts_trace_duration_ok(json_number_value(c), 1e-3))
            return ts_tc_fail(
                err, TSCHED_E_RANGE,
                "%s: models[%zu].compute_ms: required, a number of milliseconds in " TS_TRACE_COMPUTE_MS_RANGE, path,
                i);
        if (ov && (!json_is_number(ov) || !(json_number_value(ov) >= 0 && json_number_value(ov) <= 1)))
            return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[%zu].overlap: expected a number in [0, 1]", path, i);
        if (mo && !json_is_object(mo))
            return ts_tc_fail(err, TSCHED_E_TYPE, "%s: models[%zu].model: expected an object", path, i);
        if (mo && (st = mix_model_obj(path, i, mo, err)) != TSCHED_OK)
            return st;
        if ((st = mix_uint(path, o, i, "tp", &m->tp, &m->has_tp, err)) ||
            (st = mix_uint(path, o, i, "pp", &m->pp, &m->has_pp, err)) || (st = mix_phases(path, o, i, err)))
            return st;
        mx->total += mx->w[i];
    }
    if (!isfinite(mx->total))
        return ts_tc_fail(err, TSCHED_E_RANGE, "%s: models[].weight: the weights sum to infinity", path);
    return TSCHED_OK;
}

tsched_status ts_trace_mix_parse(ts_trace_mix **out, const char *text, size_t len, const char *name, ts_trace_err *err)
{
    *out = NULL;
    tsched_status st = ts_tc_no_nul(text, len, name, err);
    if (st != TSCHED_OK)
        return st;
    ts_trace_mix *mx = calloc(1, sizeof *mx);
    if (!mx)
        return ts_tc_nomem(err);
    st = mix_read(mx, text, len, name, err);
    if (st != TSCHED_OK) {
        ts_trace_mix_free(mx);
        return st;
    }
    *out = mx;
    return TSCHED_OK;
}

/* The job's model fields, in trace order: tp, pp, compute_ms, overlap (a drawn model), or
 * compute_ms alone (no mix). `phases` and `model` come after, from ts_tc_model_tail(). */
int ts_tc_model_head(json_t *job, const ts_trace_opts *o, ts_rng *r, uint64_t gpus, const mix_model **chosen)
{
    *chosen = NULL;
    if (!o->mix)
        return ts_tc_set(job, "compute_ms", ts_tc_num(o->compute_ms));
    const mix_model *m = &o->mix->m[ts_tc_rng_pick(r, o->mix->w, o->mix->n, o->mix->total)];
    *chosen = m;
    uint64_t tp = m->has_tp ? m->tp : o->gpus_per_node, pp = m->has_pp ? m->pp : 1;
    if (gpus % (tp * pp) != 0) {
        tp = o->gpus_per_node;
        pp = 1;
    }
    json_t *ov = json_object_get(m->src, "overlap");
    return ts_tc_set(job, "tp", json_integer((json_int_t)tp)) || ts_tc_set(job, "pp", json_integer((json_int_t)pp)) ||
           ts_tc_set(job, "compute_ms", json_deep_copy(json_object_get(m->src, "compute_ms"))) ||
           (ov && ts_tc_set(job, "overlap", json_deep_copy(ov)));
}

int ts_tc_model_tail(json_t *job, const ts_trace_opts *o, const mix_model *m)
{
    if (!m) {
        json_t *ph = json_pack("[{s:s, s:o}]", "pattern", "dp-ring", "gbits", ts_tc_num(o->gbits));
        return ts_tc_set(job, "phases", ph);
    }
    json_t *model = json_object_get(m->src, "model"), *name = json_object_get(m->src, "name");
    return (model && ts_tc_set(job, "model", json_deep_copy(model))) ||
           (name && ts_tc_set(job, "model_name", json_deep_copy(name))) ||
           ts_tc_set(job, "phases", json_deep_copy(json_object_get(m->src, "phases")));
}
