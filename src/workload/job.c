/* The job handle and `tsched.job.v1` (DESIGN 5.2). Loading checks everything that can be
 * checked without a fabric: the shape (dp whole) and the model's own fields. What depends
 * on the nodes (Eq. 1) or on the volume model (App. C divisibilities) is checked where it
 * is used, so a job can carry a model that only documents it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/names.h"
#include "../common/structsize.h"
#include "../common/json.h"
#include "workload_internal.h"

#define JOB_FORMAT "tsched.job.v1"
#define DEFAULT_NAME "job"

/* dp = gpus / (tp * pp) whole; the error blames the first factor that fails. */
static tsched_status check_shape(uint32_t gpus, uint32_t tp, uint32_t pp)
{
    if (gpus == 0)
        return ts_error(TSCHED_E_RANGE, "gpus: must be at least 1, got 0");
    if (tp == 0)
        return ts_error(TSCHED_E_RANGE, "tp: must be at least 1, got 0");
    if (pp == 0)
        return ts_error(TSCHED_E_RANGE, "pp: must be at least 1, got 0");
    if (gpus % tp != 0)
        return ts_error(TSCHED_E_RANGE, "tp: %u does not divide gpus %u (dp = gpus / (tp * pp) must be whole)", tp,
                        gpus);
    if ((gpus / tp) % pp != 0)
        return ts_error(TSCHED_E_RANGE,
                        "pp: %u does not divide gpus / tp = %u / %u = %u (dp = gpus / (tp * pp) must be whole)", pp,
                        gpus, tp, gpus / tp);
    return TSCHED_OK;
}

tsched_status ts_model_check(const tsched_model *m)
{
    static const struct {
        const char *name;
        size_t off;
    } pos[] = {
        {"hidden", offsetof(tsched_model, hidden)},         {"layers", offsetof(tsched_model, layers)},
        {"vocab", offsetof(tsched_model, vocab)},           {"seq", offsetof(tsched_model, seq)},
        {"global_batch", offsetof(tsched_model, global_batch)}, {"micro_batch", offsetof(tsched_model, micro_batch)},
        {"vpp", offsetof(tsched_model, vpp)},
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        uint32_t v;
        memcpy(&v, (const char *)m + pos[i].off, sizeof v);
        if (v == 0)
            return ts_error(TSCHED_E_RANGE, "model.%s: must be at least 1, got 0", pos[i].name);
    }
    if (m->global_batch % m->micro_batch != 0)
        return ts_error(TSCHED_E_RANGE, "model.global_batch: %u is not a multiple of model.micro_batch %u",
                        m->global_batch, m->micro_batch);
    return TSCHED_OK;
}

void tsched_model_init(tsched_model *m)
{
    if (!m)
        return;
    memset(m, 0, sizeof *m);
    m->size = sizeof *m;
    m->hidden = 4096;
    m->layers = 32;
    m->vocab = 32000;
    m->seq = 4096;
    m->global_batch = 512;
    m->micro_batch = 1;
    m->vpp = 1;
    m->moe_experts = 0;
}

tsched_status tsched_job_new(tsched_job **out, const char *name, uint32_t gpus, uint32_t tp, uint32_t pp)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_job_new: out is NULL");
    *out = NULL;
    tsched_status st;
    if (name && *name && (st = ts_name_check(name, "name")) != TSCHED_OK)
        return st;
    if ((st = check_shape(gpus, tp, pp)) != TSCHED_OK)
        return st;
    tsched_job *j = ts_calloc(1, sizeof *j);
    if (!j)
        return TSCHED_E_NOMEM;
    if (!(j->name = ts_strdup(name && *name ? name : DEFAULT_NAME))) {
        free(j);
        return TSCHED_E_NOMEM;
    }
    j->gpus = gpus;
    j->tp = tp;
    j->pp = pp;
    j->dp = gpus / tp / pp;
    j->alpha = 0.5;
    j->unit = TSCHED_UNIT_PP;
    j->domain = TSCHED_DOMAIN_AUTO;
    *out = j;
    return TSCHED_OK;
}

void tsched_job_free(tsched_job *job)
{
    if (!job)
        return;
    free(job->name);
    free(job);
}

/* ---- setters ---- */

tsched_status tsched_job_set_alpha(tsched_job *job, double alpha)
{
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_set_alpha: job is NULL");
    if (!(alpha >= 0 && alpha <= 1))
        return ts_error(TSCHED_E_RANGE, "alpha: %g is out of range [0, 1]", alpha);
    job->alpha = alpha;
    job->alpha_auto = 0;
    return TSCHED_OK;
}

tsched_status tsched_job_set_alpha_auto(tsched_job *job)
{
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_set_alpha_auto: job is NULL");
    if (!job->has_model)
        return ts_error(TSCHED_E_NOT_FOUND, "model: \"alpha\": \"auto\" needs the job's model");
    job->alpha_auto = 1;
    return TSCHED_OK;
}

tsched_status tsched_job_set_unit(tsched_job *job, tsched_unit unit)
{
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_set_unit: job is NULL");
    if (unit != TSCHED_UNIT_PP && unit != TSCHED_UNIT_DP)
        return ts_error(TSCHED_E_RANGE, "unit: unknown value %d", (int)unit);
    job->unit = unit;
    return TSCHED_OK;
}

tsched_status tsched_job_set_domain(tsched_job *job, tsched_domain domain)
{
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_set_domain: job is NULL");
    if (domain != TSCHED_DOMAIN_AUTO && domain != TSCHED_DOMAIN_POD && domain != TSCHED_DOMAIN_LEAF &&
        domain != TSCHED_DOMAIN_NVL)
        return ts_error(TSCHED_E_RANGE, "domain: unknown value %d", (int)domain);
    job->domain = domain;
    return TSCHED_OK;
}

static const ts_span model_spans[] = {
    TS_SPAN(tsched_model, size),         TS_SPAN(tsched_model, hidden),      TS_SPAN(tsched_model, layers),
    TS_SPAN(tsched_model, vocab),        TS_SPAN(tsched_model, seq),         TS_SPAN(tsched_model, global_batch),
    TS_SPAN(tsched_model, micro_batch),  TS_SPAN(tsched_model, vpp),         TS_SPAN(tsched_model, moe_experts),
};

tsched_status tsched_job_set_model(tsched_job *job, const tsched_model *model)
{
    if (!job || !model)
        return ts_error(TSCHED_E_INVALID, "tsched_job_set_model: job or model is NULL");
    tsched_model merged;
    tsched_model_init(&merged);
    tsched_status st = ts_struct_in(&merged, model, model_spans, TS_NSPANS(model_spans), sizeof merged, "tsched_model");
    if (st != TSCHED_OK || (st = ts_model_check(&merged)) != TSCHED_OK)
        return st;
    job->model = merged;
    job->model.size = sizeof job->model;
    job->has_model = 1;
    return TSCHED_OK;
}

/* ---- getters ---- */

const char *tsched_job_name(const tsched_job *job) { return job ? job->name : NULL; }
uint32_t tsched_job_gpus(const tsched_job *job) { return job ? job->gpus : 0; }
uint32_t tsched_job_tp(const tsched_job *job) { return job ? job->tp : 0; }
uint32_t tsched_job_pp(const tsched_job *job) { return job ? job->pp : 0; }
uint32_t tsched_job_dp(const tsched_job *job) { return job ? job->dp : 0; }

double tsched_job_alpha(const tsched_job *job)
{
    if (!job)
        return NAN;
    return job->alpha_auto ? -1.0 : job->alpha;
}

tsched_unit tsched_job_unit(const tsched_job *job) { return job ? job->unit : TSCHED_UNIT_PP; }
tsched_domain tsched_job_domain(const tsched_job *job) { return job ? job->domain : TSCHED_DOMAIN_AUTO; }

tsched_status tsched_job_model(tsched_model *model, const tsched_job *job)
{
    if (!model || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_model: model or job is NULL");
    tsched_status st = ts_struct_size(model->size, model_spans, TS_NSPANS(model_spans), sizeof *model, "tsched_model");
    if (st != TSCHED_OK)
        return st;
    if (!job->has_model)
        return ts_error(TSCHED_E_NOT_FOUND, "model: job \"%s\" has no model", job->name);
    return ts_struct_out(model, &job->model, model_spans, TS_NSPANS(model_spans), sizeof *model, "tsched_model");
}

/* ---- reading ---- */

/* A string field restricted to `n` values; absent leaves *out. Unknown value ->
 * TSCHED_E_FORMAT, wrong type -> TSCHED_E_TYPE (DESIGN 5). */
static tsched_status read_enum(int *out, const json_t *obj, const char *key, const char *const *names,
                               const int *values, size_t n, const char *expected)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected a string, got %s", key, ts_json_type_name(v));
    const char *s = json_string_value(v);
    if (strlen(s) == json_string_length(v))
        for (size_t i = 0; i < n; i++)
            if (strcmp(s, names[i]) == 0) {
                *out = values[i];
                return TSCHED_OK;
            }
    return ts_error(TSCHED_E_FORMAT, "%s: unknown value \"%s\"; expected %s", key, s, expected);
}

static tsched_status read_alpha(tsched_job *j, const json_t *root)
{
    const json_t *v = json_object_get(root, "alpha");
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (json_is_string(v)) {
        if (strcmp(json_string_value(v), "auto") != 0 || json_string_length(v) != 4)
            return ts_error(TSCHED_E_FORMAT, "alpha: unknown value \"%s\"; expected a number in [0, 1] or \"auto\"",
                            json_string_value(v));
        j->alpha_auto = 1;
        return TSCHED_OK;
    }
    if (!json_is_number(v))
        return ts_error(TSCHED_E_TYPE, "alpha: expected a number in [0, 1] or \"auto\", got %s", ts_json_type_name(v));
    return ts_json_num(&j->alpha, root, "", "alpha", 0, 0, 0, 1);
}

static tsched_status read_model(tsched_model *m, const json_t *o)
{
    tsched_status st;
    const uint32_t big = UINT32_MAX;
    tsched_model_init(m);
    if ((st = ts_json_u32(&m->hidden, o, "model", "hidden", 1, 1, big)) ||
        (st = ts_json_u32(&m->layers, o, "model", "layers", 1, 1, big)) ||
        (st = ts_json_u32(&m->vocab, o, "model", "vocab", 1, 1, big)) ||
        (st = ts_json_u32(&m->seq, o, "model", "seq", 1, 1, big)) ||
        (st = ts_json_u32(&m->global_batch, o, "model", "global_batch", 1, 1, big)) ||
        (st = ts_json_u32(&m->micro_batch, o, "model", "micro_batch", 1, 1, big)) ||
        (st = ts_json_u32(&m->vpp, o, "model", "vpp", 0, 1, big)) ||
        (st = ts_json_u32(&m->moe_experts, o, "model", "moe_experts", 0, 0, big)))
        return st;
    return ts_model_check(m);
}

static tsched_status load_doc(tsched_job **out, const json_t *root)
{
    static const char *const unit_names[] = {"pp", "dp"};
    static const int unit_values[] = {TSCHED_UNIT_PP, TSCHED_UNIT_DP};
    static const char *const domain_names[] = {"pod", "leaf", "nvl"};
    static const int domain_values[] = {TSCHED_DOMAIN_POD, TSCHED_DOMAIN_LEAF, TSCHED_DOMAIN_NVL};
    tsched_status st;
    const char *name = NULL;
    uint32_t gpus, tp, pp;
    const json_t *model;
    if ((st = ts_json_check_format(root, JOB_FORMAT)) || (st = ts_json_str(&name, root, "", "name", 0)) ||
        (st = ts_json_u32(&gpus, root, "", "gpus", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&tp, root, "", "tp", 1, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&pp, root, "", "pp", 1, 1, UINT32_MAX)) ||
        (st = ts_json_obj(&model, root, "", "model", 0)))
        return st;
    tsched_job *j;
    if ((st = tsched_job_new(&j, name, gpus, tp, pp)) != TSCHED_OK)
        return st;
    int unit = TSCHED_UNIT_PP, domain = TSCHED_DOMAIN_AUTO;
    if ((st = read_enum(&unit, root, "unit", unit_names, unit_values, 2, "\"pp\" or \"dp\"")) ||
        (st = read_enum(&domain, root, "domain", domain_names, domain_values, 3,
                        "\"pod\", \"leaf\" or \"nvl\" (omit the field for automatic)")) ||
        (st = read_alpha(j, root)))
        goto fail;
    j->unit = (tsched_unit)unit;
    j->domain = (tsched_domain)domain;
    if (model) {
        if ((st = read_model(&j->model, model)) != TSCHED_OK)
            goto fail;
        j->has_model = 1;
    }
    if (j->alpha_auto && !j->has_model) {
        st = ts_error(TSCHED_E_NOT_FOUND, "model: missing; \"alpha\": \"auto\" derives alpha from the model");
        goto fail;
    }
    *out = j;
    return TSCHED_OK;
fail:
    tsched_job_free(j);
    return st;
}

static tsched_status read_doc(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_job **)slot, root);
}

tsched_status tsched_job_load_string(tsched_job **out, const char *json, size_t len)
{
    return ts_json_load_string(out, read_doc, NULL, json, len, "tsched_job_load_string");
}

tsched_status tsched_job_load_file(tsched_job **out, const char *path)
{
    return ts_json_load_file(out, read_doc, NULL, path, "tsched_job_load_file");
}

/* ---- writing ---- */

static tsched_status model_json(json_t **out, const tsched_model *m)
{
    tsched_status st;
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    if ((st = ts_json_set(o, "hidden", json_integer(m->hidden))) ||
        (st = ts_json_set(o, "layers", json_integer(m->layers))) ||
        (st = ts_json_set(o, "vocab", json_integer(m->vocab))) || (st = ts_json_set(o, "seq", json_integer(m->seq))) ||
        (st = ts_json_set(o, "global_batch", json_integer(m->global_batch))) ||
        (st = ts_json_set(o, "micro_batch", json_integer(m->micro_batch))) ||
        (st = ts_json_set(o, "vpp", json_integer(m->vpp))) ||
        (st = ts_json_set(o, "moe_experts", json_integer(m->moe_experts)))) {
        json_decref(o);
        return st;
    }
    *out = o;
    return TSCHED_OK;
}

tsched_status tsched_job_to_json(char **out, const tsched_job *job)
{
    if (!out || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_to_json: out or job is NULL");
    *out = NULL;
    json_t *root = json_object();
    if (!root)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    tsched_status st;
    json_t *model = NULL;
    if ((st = ts_json_set(root, "format", json_string(JOB_FORMAT))) ||
        (st = ts_json_set(root, "name", json_string(job->name))) ||
        (st = ts_json_set(root, "gpus", json_integer(job->gpus))) ||
        (st = ts_json_set(root, "tp", json_integer(job->tp))) || (st = ts_json_set(root, "pp", json_integer(job->pp))) ||
        (st = ts_json_set(root, "unit", json_string(job->unit == TSCHED_UNIT_DP ? "dp" : "pp"))) ||
        (st = ts_json_set(root, "alpha", job->alpha_auto ? json_string("auto") : json_real(job->alpha))))
        goto out;
    if (job->domain != TSCHED_DOMAIN_AUTO &&
        (st = ts_json_set(root, "domain", json_string(ts_domain_name(job->domain)))))
        goto out;
    if (job->has_model &&
        ((st = model_json(&model, &job->model)) || (st = ts_json_set(root, "model", model))))
        goto out;
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}
