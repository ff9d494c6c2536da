/* The trace converters (doc/sim-traces.md) on memory buffers: every rule and the order of the
 * random draws are documented there, and the same input and seed give the same bytes as the
 * command line always wrote (tests/data/trace/golden). See trace_convert.h. */
#include "trace_convert.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cnum.h"
#include "../common/rng.h"
#include "../common/text.h"
#include "trace_ranges.h"

#define TRACE_FORMAT "tsched.trace.v1"
#define MIX_FORMAT "tsched.model-mix.v1"
#define NAME_MAX_BYTES 255

/* ---------------------------------------------------------------- errors */

static tsched_status verr(ts_trace_err *e, tsched_status st, int option, const char *fmt, va_list ap)
{
    char raw[sizeof e->msg];
    ts_vsnprintf(raw, sizeof raw, fmt, ap);
    ts_text_one_line(e->msg, sizeof e->msg, raw); /* one line whatever the input held */
    e->option = option;
    return st;
}

/* An input's fault (a file, a line, a field). */
static tsched_status fail(ts_trace_err *e, tsched_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(e, st, 0, fmt, ap);
    va_end(ap);
    return st;
}

/* An option's fault. */
static tsched_status opt_fail(ts_trace_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(e, TSCHED_E_RANGE, 1, fmt, ap);
    va_end(ap);
    return TSCHED_E_RANGE;
}

static tsched_status nomem(ts_trace_err *e) { return fail(e, TSCHED_E_NOMEM, "out of memory"); }

/* Text inputs hold no NUL byte (common's reader stops at the first one; a buffer may hold one). */
static tsched_status no_nul(const char *text, size_t len, const char *name, ts_trace_err *e)
{
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return fail(e, TSCHED_E_PARSE, "%s: byte %zu is a NUL byte; expected a text document", name,
                    (size_t)(nul - text));
    return TSCHED_OK;
}

/* ---------------------------------------------------------------- random numbers
 * common's xoshiro256** seeded by splitmix64; a uniform draw is U = (x >> 11 + 0.5) / 2^53, in
 * (0, 1) open at both ends, so log(U) is finite. */

static double rng_uniform(ts_rng *r) { return ((double)(ts_rng_next(r) >> 11) + 0.5) * 0x1p-53; }

/* Exponential of mean `mean`: one draw. */
static double rng_exp(ts_rng *r, double mean) { return -mean * log(rng_uniform(r)); }

/* Standard normal by Box-Muller: two draws, the cosine branch only. */
static double rng_normal(ts_rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Index i of the first cumulative weight above U * total: one draw. */
static size_t rng_pick(ts_rng *r, const double *w, size_t n, double total)
{
    double u = rng_uniform(r) * total, c = 0;
    for (size_t i = 0; i < n; i++) {
        c += w[i];
        if (u < c)
            return i;
    }
    return n - 1;
}

/* ---------------------------------------------------------------- numbers in text */

/* A whole number in base 10 (no sign), as the command line's parser. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* A finite number. */
static int parse_real(const char *s, double *v)
{
    char *end;
    errno = 0;
    if (!*s)
        return -1;
    *v = ts_strtod(s, &end);
    return errno || *end || !isfinite(*v) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON helpers */

/* Integers stay integers: an integral value below 2^53 prints as one. */
static json_t *num(double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static int set(json_t *obj, const char *key, json_t *v) { return !v || json_object_set_new(obj, key, v) != 0; }

static json_t *new_trace(const char *name)
{
    json_t *doc = json_object();
    if (!doc || set(doc, "format", json_string(TRACE_FORMAT)) || set(doc, "name", json_string(name)) ||
        set(doc, "jobs", json_array())) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* ---------------------------------------------------------------- names */

/* Length of the well-formed UTF-8 character at s (n bytes left), 0 if malformed. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

/* prefix + raw made a valid name (DESIGN 3, ts_name_check): every control character (C0, DEL,
 * C1, U+2028, U+2029), '~', '#' and byte of malformed UTF-8 becomes '_', and the name is cut at a character boundary so it fits in
 * `max` bytes. */
static void make_name(char *out, size_t max, const char *prefix, const char *raw)
{
    size_t o = strlen(prefix);
    memcpy(out, prefix, o);
    const unsigned char *s = (const unsigned char *)raw;
    size_t n = strlen(raw);
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len(s + i, n - i);
        if (l == 0 || s[i] < 0x20 || s[i] == 0x7f || s[i] == '~' || s[i] == '#' || ts_text_char(raw + i, n - i) == 0) {
            /* a C0 or C1 control, U+2028/2029 (names refuse them: ts_name_check) or a bad byte */
            if (o + 1 > max)
                break;
            out[o++] = '_';
            i += l ? l : 1;
            continue;
        }
        if (o + l > max)
            break;
        memcpy(out + o, s + i, l);
        o += l;
        i += l;
    }
    out[o] = '\0';
}

/* A set of names, open addressing (FNV-1a); keeps pointers to the caller's strings. */
typedef struct {
    const char **slot;
    size_t cap;
} name_set;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

static int name_set_init(name_set *ns, size_t n)
{
    ns->cap = 16;
    while (ns->cap < 2 * n + 2)
        ns->cap *= 2;
    ns->slot = calloc(ns->cap, sizeof *ns->slot);
    return ns->slot ? 0 : -1;
}

/* The slot holding `s`, or the empty slot where it would go. */
static size_t name_set_find(const name_set *ns, const char *s)
{
    size_t i = (size_t)fnv1a(s) & (ns->cap - 1);
    while (ns->slot[i] && strcmp(ns->slot[i], s) != 0)
        i = (i + 1) & (ns->cap - 1);
    return i;
}

static int name_set_has(const name_set *ns, const char *s) { return ns->slot[name_set_find(ns, s)] != NULL; }

/* Add `s` (kept by pointer: it must outlive the set). */
static void name_set_add(name_set *ns, const char *s) { ns->slot[name_set_find(ns, s)] = s; }

/* ---------------------------------------------------------------- options */

void ts_trace_opts_init(ts_trace_opts *o, double compute_ms)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->gbits = 1;
    o->compute_ms = compute_ms;
    o->gpus_per_node = 8;
}

/* The option's text as given, or the value when there is none. */
static const char *shown(char *buf, size_t cap, const char *text, double v)
{
    if (text)
        return text;
    ts_snprintf(buf, cap, "%.17g", v);
    return buf;
}

tsched_status ts_trace_check_gbits(double gbits, const char *text, ts_trace_err *err)
{
    char b[32];
    if (!ts_trace_gbits_ok(gbits))
        return opt_fail(err, "--gbits: '%s' is not a positive number", shown(b, sizeof b, text, gbits));
    return TSCHED_OK;
}

tsched_status ts_trace_check_compute_ms(double ms, const char *text, ts_trace_err *err)
{
    char b[32];
    if (!ts_trace_duration_ok(ms, 1e-3))
        return opt_fail(err, "--compute-ms: '%s' is not a number of milliseconds in " TS_TRACE_COMPUTE_MS_RANGE,
                        shown(b, sizeof b, text, ms));
    return TSCHED_OK;
}

tsched_status ts_trace_check_iterations(uint64_t n, const char *text, ts_trace_err *err)
{
    char b[32];
    if (n == 0 || n > TS_TRACE_COUNT_MAX)
        return opt_fail(err, "--iterations: '%s' is not a whole number in [1, 2^53]",
                        shown(b, sizeof b, text, (double)n));
    return TSCHED_OK;
}

tsched_status ts_trace_check_window(double w, const char *text, ts_trace_err *err)
{
    char b[32];
    if (!ts_trace_arrival_ok(w))
        return opt_fail(err, "--arrival-window-s: '%s' is not a number in [0, 9.2e9]", shown(b, sizeof b, text, w));
    return TSCHED_OK;
}

/* ---------------------------------------------------------------- model mix */

typedef struct {
    json_t *src; /* models[i] of the document (borrowed) */
    unsigned tp, pp;
    int has_tp, has_pp;
} mix_model;

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

static int json_positive(json_t *v) { return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) > 0; }

static tsched_status mix_uint(const char *path, json_t *o, size_t i, const char *key, unsigned *out, int *has,
                              ts_trace_err *err)
{
    json_t *v = json_object_get(o, key);
    *has = v != NULL;
    if (!v)
        return TSCHED_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > UINT32_MAX)
        return fail(err, TSCHED_E_RANGE, "%s: models[%zu].%s: expected a whole number >= 1", path, i, key);
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
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].model.%s: required, a whole number in [1, 4294967295]",
                        path, i, req[k]);
    }
    const json_t *vpp = present(mo, "vpp"), *moe = present(mo, "moe_experts");
    if (vpp && !u32_ok(vpp, 1))
        return fail(err, TSCHED_E_RANGE, "%s: models[%zu].model.vpp: expected a whole number in [1, 4294967295]", path,
                    i);
    if (moe && !u32_ok(moe, 0))
        return fail(err, TSCHED_E_RANGE,
                    "%s: models[%zu].model.moe_experts: expected a whole number in [0, 4294967295]", path, i);
    double gb = json_number_value(present(mo, "global_batch")), mb = json_number_value(present(mo, "micro_batch"));
    if (fmod(gb, mb) != 0)
        return fail(err, TSCHED_E_RANGE, "%s: models[%zu].model.global_batch: %.17g is not a multiple of micro_batch "
                    "%.17g", path, i, gb, mb);
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
            return fail(err, TSCHED_E_TYPE, "%s: models[%zu].phases[%zu].flows[%zu]: expected an object", path, i, j,
                        f);
        if (!src || !u32_ok(src, 0) || !dst || !u32_ok(dst, 0))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].flows[%zu].%s: required, a rank in [0, "
                        "4294967295]", path, i, j, f, !src || !u32_ok(src, 0) ? "src" : "dst");
        if (json_number_value(src) == json_number_value(dst))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].flows[%zu].dst: rank %.17g is also src", path,
                        i, j, f, json_number_value(dst));
        for (int k = 0; k < 2; k++)
            if (present(x, nics[k]) && !u32_ok(present(x, nics[k]), 0))
                return fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].flows[%zu].%s: expected a whole number "
                            "in [0, 4294967295]", path, i, j, f, nics[k]);
        if (!g || !json_positive((json_t *)g))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].flows[%zu].gbits: required, a number > 0",
                        path, i, j, f);
        if (hops) {
            int ok = json_is_array(hops) && json_array_size(hops) > 0;
            for (size_t h = 0; ok && h < json_array_size(hops); h++)
                ok = json_is_string(json_array_get(hops, h));
            if (!ok)
                return fail(err, TSCHED_E_TYPE, "%s: models[%zu].phases[%zu].flows[%zu].hops: expected a non-empty "
                            "array of switch names", path, i, j, f);
        }
    }
    return TSCHED_OK;
}

static tsched_status mix_phases(const char *path, json_t *model, size_t i, ts_trace_err *err)
{
    static const char *const patterns[] = {"dp-ring", "dp-hd", "pp", "alltoall"};
    json_t *ph = json_object_get(model, "phases");
    if (!json_is_array(ph) || json_array_size(ph) == 0)
        return fail(err, TSCHED_E_FORMAT, "%s: models[%zu].phases: required, a non-empty array", path, i);
    for (size_t j = 0; j < json_array_size(ph); j++) {
        json_t *p = json_array_get(ph, j), *pat = json_object_get(p, "pattern"), *fl = json_object_get(p, "flows");
        json_t *g = json_object_get(p, "gbits"), *rep = json_object_get(p, "repeat");
        if (!json_is_object(p))
            return fail(err, TSCHED_E_TYPE, "%s: models[%zu].phases[%zu]: expected an object", path, i, j);
        if (!pat == !fl)
            return fail(err, TSCHED_E_FORMAT, "%s: models[%zu].phases[%zu]: needs exactly one of pattern and flows",
                        path, i, j);
        if (pat) {
            size_t k = 0;
            while (k < 4 && !(json_is_string(pat) && strcmp(json_string_value(pat), patterns[k]) == 0))
                k++;
            if (k == 4)
                return fail(err, TSCHED_E_FORMAT,
                            "%s: models[%zu].phases[%zu].pattern: expected dp-ring, dp-hd, pp or alltoall", path, i, j);
            if (!g && !json_is_object(json_object_get(model, "model")))
                return fail(err, TSCHED_E_FORMAT,
                            "%s: models[%zu].phases[%zu].gbits: missing, and the model has no \"model\" to derive "
                            "volumes from", path, i, j);
        } else if (!json_is_array(fl) || json_array_size(fl) == 0)
            return fail(err, TSCHED_E_FORMAT, "%s: models[%zu].phases[%zu].flows: expected a non-empty array", path, i,
                        j);
        else {
            tsched_status st = mix_flows(path, i, j, fl, err);
            if (st != TSCHED_OK)
                return st;
        }
        if (g && !json_positive(g))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].phases[%zu].gbits: expected a number > 0", path, i, j);
        if (rep && (!json_is_integer(rep) || json_integer_value(rep) < 1 || json_integer_value(rep) > UINT32_MAX))
            return fail(err, TSCHED_E_RANGE,
                        "%s: models[%zu].phases[%zu].repeat: expected a whole number in [1, 4294967295]", path, i, j);
    }
    return TSCHED_OK;
}

static tsched_status mix_read(ts_trace_mix *mx, const char *text, size_t len, const char *path, ts_trace_err *err)
{
    json_error_t e;
    mx->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (!mx->root)
        return fail(err, TSCHED_E_PARSE, "%s:%d:%d: %s", path, e.line, e.column, e.text);
    json_t *fmt = json_object_get(mx->root, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MIX_FORMAT) != 0)
        return fail(err, TSCHED_E_FORMAT, "%s: format: expected \"" MIX_FORMAT "\"%s%s%s", path,
                    json_is_string(fmt) ? ", got \"" : "", json_is_string(fmt) ? json_string_value(fmt) : "",
                    json_is_string(fmt) ? "\"" : "");
    json_t *models = json_object_get(mx->root, "models");
    if (!json_is_array(models) || json_array_size(models) == 0)
        return fail(err, TSCHED_E_FORMAT, "%s: models: required, a non-empty array", path);
    mx->n = json_array_size(models);
    mx->m = calloc(mx->n, sizeof *mx->m);
    mx->w = calloc(mx->n, sizeof *mx->w);
    if (!mx->m || !mx->w)
        return nomem(err);
    tsched_status st;
    for (size_t i = 0; i < mx->n; i++) {
        json_t *o = json_array_get(models, i);
        if (!json_is_object(o))
            return fail(err, TSCHED_E_TYPE, "%s: models[%zu]: expected an object", path, i);
        mix_model *m = &mx->m[i];
        m->src = o;
        json_t *w = json_object_get(o, "weight"), *c = json_object_get(o, "compute_ms"),
               *ov = json_object_get(o, "overlap"), *mo = json_object_get(o, "model"), *nm = json_object_get(o, "name");
        if (nm && !json_is_string(nm))
            return fail(err, TSCHED_E_TYPE, "%s: models[%zu].name: expected a string", path, i);
        if (w && !json_positive(w))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].weight: expected a number > 0", path, i);
        mx->w[i] = w ? json_number_value(w) : 1.0;
        if (!c || !json_is_number(c) || !ts_trace_duration_ok(json_number_value(c), 1e-3))
            return fail(err, TSCHED_E_RANGE,
                        "%s: models[%zu].compute_ms: required, a number of milliseconds in " TS_TRACE_COMPUTE_MS_RANGE,
                        path, i);
        if (ov && (!json_is_number(ov) || !(json_number_value(ov) >= 0 && json_number_value(ov) <= 1)))
            return fail(err, TSCHED_E_RANGE, "%s: models[%zu].overlap: expected a number in [0, 1]", path, i);
        if (mo && !json_is_object(mo))
            return fail(err, TSCHED_E_TYPE, "%s: models[%zu].model: expected an object", path, i);
        if (mo && (st = mix_model_obj(path, i, mo, err)) != TSCHED_OK)
            return st;
        if ((st = mix_uint(path, o, i, "tp", &m->tp, &m->has_tp, err)) ||
            (st = mix_uint(path, o, i, "pp", &m->pp, &m->has_pp, err)) || (st = mix_phases(path, o, i, err)))
            return st;
        mx->total += mx->w[i];
    }
    if (!isfinite(mx->total))
        return fail(err, TSCHED_E_RANGE, "%s: models[].weight: the weights sum to infinity", path);
    return TSCHED_OK;
}

tsched_status ts_trace_mix_parse(ts_trace_mix **out, const char *text, size_t len, const char *name,
                                 ts_trace_err *err)
{
    *out = NULL;
    tsched_status st = no_nul(text, len, name, err);
    if (st != TSCHED_OK)
        return st;
    ts_trace_mix *mx = calloc(1, sizeof *mx);
    if (!mx)
        return nomem(err);
    st = mix_read(mx, text, len, name, err);
    if (st != TSCHED_OK) {
        ts_trace_mix_free(mx);
        return st;
    }
    *out = mx;
    return TSCHED_OK;
}

/* The job's model fields, in trace order: tp, pp, compute_ms, overlap (a drawn model), or
 * compute_ms alone (no mix). `phases` and `model` come after, from model_tail(). */
static int model_head(json_t *job, const ts_trace_opts *o, ts_rng *r, uint64_t gpus, const mix_model **chosen)
{
    *chosen = NULL;
    if (!o->mix)
        return set(job, "compute_ms", num(o->compute_ms));
    const mix_model *m = &o->mix->m[rng_pick(r, o->mix->w, o->mix->n, o->mix->total)];
    *chosen = m;
    uint64_t tp = m->has_tp ? m->tp : o->gpus_per_node, pp = m->has_pp ? m->pp : 1;
    if (gpus % (tp * pp) != 0) {
        tp = o->gpus_per_node;
        pp = 1;
    }
    json_t *ov = json_object_get(m->src, "overlap");
    return set(job, "tp", json_integer((json_int_t)tp)) || set(job, "pp", json_integer((json_int_t)pp)) ||
           set(job, "compute_ms", json_deep_copy(json_object_get(m->src, "compute_ms"))) ||
           (ov && set(job, "overlap", json_deep_copy(ov)));
}

static int model_tail(json_t *job, const ts_trace_opts *o, const mix_model *m)
{
    if (!m) {
        json_t *ph = json_pack("[{s:s, s:o}]", "pattern", "dp-ring", "gbits", num(o->gbits));
        return set(job, "phases", ph);
    }
    json_t *model = json_object_get(m->src, "model"), *name = json_object_get(m->src, "name");
    return (model && set(job, "model", json_deep_copy(model))) ||
           (name && set(job, "model_name", json_deep_copy(name))) ||
           set(job, "phases", json_deep_copy(json_object_get(m->src, "phases")));
}

/* The times tsched.trace.v1 holds, exactly as `simulate` reads them (trace_ranges.h): a
 * generator checks each value it writes, so it never writes a trace the simulator refuses. */
static int time_ok(double v, int duration) { return duration ? ts_trace_duration_ok(v, 1) : ts_trace_arrival_ok(v); }

static tsched_status time_error(ts_trace_err *err, const char *opt, unsigned job, double v, int duration)
{
    return opt_fail(err, "%s: job %u's %s would be %g s, outside %s s, the range a trace holds", opt, job,
                    duration ? "duration" : "arrival", v, duration ? TS_TRACE_DURATION_S_RANGE : "[0, 9.2e9]");
}

/* ---------------------------------------------------------------- convert-alibaba */

/* What csv_split() found wrong in a quoted field: the field's index, its unquoted text and the
 * text after its closing quote. */
typedef struct {
    size_t field;
    const char *val, *junk;
    int vlen, jlen;
} csv_bad;

#define CSV_UNTERMINATED ((size_t)-1)
#define CSV_JUNK ((size_t)-2)

/* Split one CSV line in place (RFC 4180 quotes, no line breaks inside quotes). Returns the
 * number of fields, CSV_UNTERMINATED on an unterminated quote, or CSV_JUNK (with *bad) when a
 * closing quote is followed by anything but spaces before the next comma (`"p1"x`). */
static size_t csv_split(char *line, char **f, size_t max, csv_bad *bad)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *start = p, *w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return CSV_UNTERMINATED;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            char *junk = p;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p && *p != ',') {
                while (*p && *p != ',')
                    p++;
                bad->field = n;
                bad->val = start;
                bad->vlen = (int)(w - start);
                bad->junk = junk;
                bad->jlen = (int)(p - junk);
                return CSV_JUNK;
            }
        } else {
            while (*p && *p != ',')
                p++;
            w = p;
        }
        char sep = *p;
        *w = '\0';
        if (n < max)
            f[n] = start;
        n++;
        if (sep != ',')
            break;
        p++;
    }
    return n;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

enum { C_NAME, C_NUM_GPU, C_GPU_MILLI, C_PHASE, C_CREATE, C_DELETE, C_SCHED, C_COUNT };
static const char *const col_names[C_COUNT] = {"name",      "num_gpu",       "gpu_milli",     "pod_phase",
                                               "creation_time", "deletion_time", "scheduled_time"};

typedef struct {
    const char *name; /* into the text buffer */
    uint64_t gpus;    /* after the gpu_milli rule */
    int pending, running;
    double create, del, sched; /* NAN when empty */
    size_t line;
} pod;

/* Digits only: no sign, no base prefix (0x10), no spaces. */
static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* A decimal number: [+-] digits [. digits] [e [+-] digits], with digits on at least one side of
 * the point. strtod() alone would also take 0x10, inf and nan. */
static int decimal(const char *s)
{
    int digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static tsched_status parse_count(const char *path, size_t line, const char *col, const char *s, uint64_t *out,
                                 ts_trace_err *err)
{
    if (!all_digits(s) || parse_u64(s, out) != 0)
        return fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '%s' is not a whole number", path, line, col, s);
    return TSCHED_OK;
}

/* A time in seconds: empty = NAN (absent), else a finite number >= 0. */
static tsched_status parse_time(const char *path, size_t line, const char *col, const char *s, double *out,
                                ts_trace_err *err)
{
    if (!*s) {
        *out = NAN;
        return TSCHED_OK;
    }
    char *end;
    errno = 0;
    double v = decimal(s) ? ts_strtod(s, &end) : NAN;
    if (!decimal(s) || errno || *end || !isfinite(v))
        return fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '%s' is not a number of seconds", path, line, col, s);
    if (v < 0)
        return fail(err, TSCHED_E_RANGE, "%s:%zu: %s: '%s' is negative", path, line, col, s);
    *out = v;
    return TSCHED_OK;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static tsched_status alibaba_build(json_t **doc_out, const char *path, char *text, unsigned scale,
                                   const ts_trace_opts *c, ts_trace_err *err)
{
    char *fields_buf[64], *header[64];
    csv_bad bad;
    size_t ncols = 0, cols[C_COUNT], npods = 0, cap = 0;
    pod *pods = NULL;
    tsched_status rc = TSCHED_OK;
    char *p = text;
    if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;
    size_t line = 0;
    while (*p) {
        char *nl = strchr(p, '\n'), *l = p;
        if (nl) {
            *nl = '\0';
            p = nl + 1;
        } else
            p += strlen(p);
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[--ll] = '\0';
        if (ncols == 0) { /* the header */
            size_t n = csv_split(l, fields_buf, 64, &bad);
            if (n == CSV_UNTERMINATED)
                return fail(err, TSCHED_E_PARSE, "%s:%zu: unterminated quote in the header", path, line);
            if (n == CSV_JUNK)
                return fail(err, TSCHED_E_PARSE, "%s:%zu: header field %zu: '\"%.*s\"%.*s' has text after the closing "
                            "quote", path, line, bad.field + 1, bad.vlen, bad.val, bad.jlen, bad.junk);
            if (n > 64)
                return fail(err, TSCHED_E_TOO_LARGE, "%s:%zu: %zu columns, at most 64 are read", path, line, n);
            for (size_t k = 0; k < C_COUNT; k++) {
                cols[k] = (size_t)-1;
                for (size_t j = 0; j < n; j++)
                    if (strcmp(trim(fields_buf[j]), col_names[k]) == 0 && cols[k] == (size_t)-1)
                        cols[k] = j;
                if (cols[k] == (size_t)-1)
                    return fail(err, TSCHED_E_NOT_FOUND, "%s:%zu: the header has no column '%s'", path, line,
                                col_names[k]);
            }
            for (size_t j = 0; j < n; j++)
                header[j] = trim(fields_buf[j]);
            ncols = n;
            continue;
        }
        if (ll == 0)
            continue;
        size_t n = csv_split(l, fields_buf, 64, &bad);
        if (n == CSV_JUNK) {
            rc = fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '\"%.*s\"%.*s' has text after the closing quote", path, line,
                      bad.field < ncols ? header[bad.field] : "(a field past the header's)", bad.vlen, bad.val,
                      bad.jlen, bad.junk);
            goto out;
        }
        if (n == CSV_UNTERMINATED) {
            rc = fail(err, TSCHED_E_PARSE, "%s:%zu: unterminated quote", path, line);
            goto out;
        }
        if (n != ncols) {
            rc = fail(err, TSCHED_E_PARSE, "%s:%zu: %zu fields, the header has %zu", path, line, n, ncols);
            goto out;
        }
        if (npods == cap) {
            cap = cap ? 2 * cap : 1024;
            pod *np = realloc(pods, cap * sizeof *pods);
            if (!np) {
                rc = nomem(err);
                goto out;
            }
            pods = np;
        }
        pod *q = &pods[npods];
        char *v[C_COUNT];
        for (size_t k = 0; k < C_COUNT; k++)
            v[k] = trim(fields_buf[cols[k]]);
        uint64_t ngpu, milli = 0;
        if (!*v[C_NAME]) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: name: empty", path, line);
            goto out;
        }
        if (!*v[C_PHASE]) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: pod_phase: empty", path, line);
            goto out;
        }
        if ((rc = parse_count(path, line, "num_gpu", v[C_NUM_GPU], &ngpu, err)) ||
            (*v[C_GPU_MILLI] && (rc = parse_count(path, line, "gpu_milli", v[C_GPU_MILLI], &milli, err))) ||
            (rc = parse_time(path, line, "creation_time", v[C_CREATE], &q->create, err)) ||
            (rc = parse_time(path, line, "deletion_time", v[C_DELETE], &q->del, err)) ||
            (rc = parse_time(path, line, "scheduled_time", v[C_SCHED], &q->sched, err)))
            goto out;
        if (isnan(q->create)) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: creation_time: empty", path, line);
            goto out;
        }
        if (ngpu > 65536) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: num_gpu: %" PRIu64 " is above 65536", path, line, ngpu);
            goto out;
        }
        if (ngpu * scale > UINT32_MAX) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: num_gpu: %" PRIu64 " times --scale-gpus %u is above %u", path,
                      line, ngpu, scale, (unsigned)UINT32_MAX);
            goto out;
        }
        (void)milli; /* a fraction of one GPU (num_gpu 1, gpu_milli < 1000) counts as that GPU */
        q->name = v[C_NAME];
        q->gpus = ngpu * scale;
        q->pending = strcmp(v[C_PHASE], "Pending") == 0;
        q->running = strcmp(v[C_PHASE], "Running") == 0;
        q->line = line;
        npods++;
    }
    if (ncols == 0) {
        rc = fail(err, TSCHED_E_PARSE, "%s: empty file: no header", path);
        goto out;
    }
    /* The trace's end: the latest time of any row. */
    double end = 0;
    for (size_t i = 0; i < npods; i++) {
        end = fmax(end, pods[i].create);
        if (!isnan(pods[i].del))
            end = fmax(end, pods[i].del);
        if (!isnan(pods[i].sched))
            end = fmax(end, pods[i].sched);
    }
    /* Keep: GPU pods that were scheduled, with a positive duration. */
    double t0 = INFINITY;
    size_t kept = 0;
    for (size_t i = 0; i < npods; i++) {
        pod *q = &pods[i];
        int keep = q->gpus >= 1 && !q->pending && !isnan(q->sched);
        if (keep) {
            int censored = isnan(q->del) || (q->running && q->del >= end);
            double stop = censored ? end : q->del;
            keep = stop - q->sched > 0;
        }
        if (keep) {
            t0 = fmin(t0, q->create);
            pods[kept++] = *q;
        }
    }
    json_t *doc = new_trace(base_name(path)), *jobs = json_object_get(doc, "jobs");
    name_set ns = {0};
    char **names = calloc(kept ? kept : 1, sizeof *names);
    if (!doc || !names || name_set_init(&ns, kept) != 0) {
        json_decref(doc);
        free(names);
        free(ns.slot);
        rc = nomem(err);
        goto out;
    }
    ts_rng r;
    ts_rng_seed(&r, c->seed);
    for (size_t i = 0; i < kept && rc == TSCHED_OK; i++) {
        pod *q = &pods[i];
        char nm[NAME_MAX_BYTES + 1];
        make_name(nm, NAME_MAX_BYTES, "pod-", q->name);
        for (unsigned k = 1; name_set_has(&ns, nm); k++) {
            /* a repeated name (in the file, or made equal by the cleaning) gets its line */
            char suffix[48], base[NAME_MAX_BYTES + 1];
            ts_snprintf(suffix, sizeof suffix, k == 1 ? "-line%zu" : "-line%zu-%u", q->line, k);
            make_name(base, NAME_MAX_BYTES - strlen(suffix), "pod-", q->name);
            size_t bl = strlen(base), sl = strlen(suffix);
            memcpy(nm, base, bl);
            memcpy(nm + bl, suffix, sl + 1);
        }
        names[i] = strdup(nm);
        if (!names[i]) {
            rc = nomem(err);
            break;
        }
        name_set_add(&ns, names[i]);
        int censored = isnan(q->del) || (q->running && q->del >= end);
        double dur = (censored ? end : q->del) - q->sched, arrival = q->create - t0;
        /* what the trace holds (trace_ranges.h): never write what simulate refuses */
        if (!ts_trace_arrival_ok(arrival)) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: creation_time: %.17g gives arrival_s %g s (after the earliest "
                      "kept creation, %.17g), above the 9.2e9 s a trace holds", path, q->line, q->create, arrival, t0);
            break;
        }
        if (!ts_trace_duration_ok(dur, 1)) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: scheduled_time: %.17g gives duration_s %g s (to %s %.17g), outside "
                      "the " TS_TRACE_DURATION_S_RANGE " s a trace holds", path, q->line, q->sched, dur,
                      censored ? "the trace's end" : "deletion_time", censored ? end : q->del);
            break;
        }
        json_t *job = json_object();
        const mix_model *m;
        if (!job || json_array_append_new(jobs, job) != 0 || set(job, "name", json_string(names[i])) ||
            set(job, "arrival_s", num(arrival)) || set(job, "gpus", json_integer((json_int_t)q->gpus)) ||
            model_head(job, c, &r, q->gpus, &m) || set(job, "duration_s", num(dur)) ||
            (censored && set(job, "censored", json_true())) || model_tail(job, c, m))
            rc = nomem(err);
    }
    for (size_t i = 0; i < kept; i++)
        free(names[i]);
    free(names);
    free(ns.slot);
    if (rc != TSCHED_OK)
        json_decref(doc);
    else
        *doc_out = doc;
out:
    free(pods);
    return rc;
}

tsched_status ts_trace_alibaba(json_t **out, const char *text, size_t len, const char *name, uint32_t scale_gpus,
                               const ts_trace_opts *o, ts_trace_err *err)
{
    *out = NULL;
    if (scale_gpus == 0 || (scale_gpus & (scale_gpus - 1)) != 0 || scale_gpus > 65536)
        return opt_fail(err, "--scale-gpus: '%" PRIu32 "' is not a power of two in [1, 65536]", scale_gpus);
    tsched_status st;
    if ((st = ts_trace_check_compute_ms(o->compute_ms, NULL, err)) || (st = ts_trace_check_gbits(o->gbits, NULL, err)) ||
        (st = no_nul(text, len, name, err)))
        return st;
    /* the parser cuts lines and fields in place: work on a copy, NUL-terminated */
    char *copy = malloc(len + 1);
    if (!copy)
        return nomem(err);
    memcpy(copy, text, len);
    copy[len] = '\0';
    st = alibaba_build(out, name, copy, scale_gpus, o, err);
    free(copy);
    return st;
}

/* ---------------------------------------------------------------- convert-dcn */

#define DCN_HEADER "#src dst src_tor dst_tor start_time flow_size compute_time stage_index"
#define DCN_FIRST_SERVER 96u
#define DCN_SERVERS 2048u
#define DCN_PER_TOR 32u

static int dcn_cmp(const void *a, const void *b)
{
    const ts_trace_dcn_file *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return strcmp(x->file, y->file);
}

int ts_trace_dcn_match(const char *n, unsigned long long *k)
{
    if (strncmp(n, "job_", 4) != 0 || n[4] < '0' || n[4] > '9')
        return 0;
    char *end;
    errno = 0;
    *k = strtoull(n + 4, &end, 10);
    size_t len = strlen(n);
    return !errno && *end == '-' && end[1] != '\0' && len > 4 && strcmp(n + len - 4, ".txt") == 0 &&
           (size_t)(end + 1 - n) < len - 4;
}

tsched_status ts_trace_dcn_order(ts_trace_dcn_file *files, size_t n, const char *dir, ts_trace_err *err)
{
    if (n == 0)
        return fail(err, TSCHED_E_NOT_FOUND, "%s: no job_<K>-<MODEL>.txt files (give a ring_size_R folder of the "
                                             "dcn-simulators traffic pairs)", dir);
    qsort(files, n, sizeof *files, dcn_cmp);
    for (size_t i = 1; i < n; i++)
        if (files[i].k == files[i - 1].k)
            return fail(err, TSCHED_E_DUPLICATE, "%s: job number %llu twice (%s, %s)", dir, files[i].k,
                        files[i - 1].file, files[i].file);
    return TSCHED_OK;
}

struct ts_trace_dcn {
    json_t *doc, *jobs;
    ts_rng r;
    uint64_t iterations;
    double window, compute_ms;
};

void ts_trace_dcn_free(ts_trace_dcn *d)
{
    if (!d)
        return;
    json_decref(d->doc);
    free(d);
}

tsched_status ts_trace_dcn_begin(ts_trace_dcn **out, const char *dir, uint64_t iterations, double window_s,
                                 const ts_trace_opts *o, ts_trace_err *err)
{
    *out = NULL;
    tsched_status st;
    if ((st = ts_trace_check_iterations(iterations, NULL, err)) || (st = ts_trace_check_window(window_s, NULL, err)) ||
        (st = ts_trace_check_compute_ms(o->compute_ms, NULL, err)))
        return st;
    /* a job's computation alone must end inside the clock the simulator refuses to pass, or the
     * trace loads but every run of it is refused when it starts */
    double end_s = window_s + (double)iterations * o->compute_ms / 1e3;
    if (!(end_s <= 9.2e9))
        return opt_fail(err, "--compute-ms: %g ms x --iterations %llu from --arrival-window-s %g ends after %g s, "
                        "past the 9.2e9 s a simulated clock holds", o->compute_ms, (unsigned long long)iterations,
                        window_s, end_s);
    ts_trace_dcn *d = calloc(1, sizeof *d);
    char *dcopy = strdup(dir);
    if (!d || !dcopy) {
        free(d);
        free(dcopy);
        return nomem(err);
    }
    /* The trace's name: the folder's last two components (concurrent_jobs_N/ring_size_R). */
    size_t dl = strlen(dcopy);
    while (dl > 1 && dcopy[dl - 1] == '/')
        dcopy[--dl] = '\0';
    char *last = strrchr(dcopy, '/'), *name = dcopy;
    if (last && last != dcopy) {
        *last = '\0';
        char *prev = strrchr(dcopy, '/');
        *last = '/';
        name = prev ? prev + 1 : dcopy;
    }
    char tname[NAME_MAX_BYTES + 1];
    make_name(tname, NAME_MAX_BYTES, "dcn:", name);
    free(dcopy);
    d->doc = new_trace(tname);
    if (!d->doc) {
        free(d);
        return nomem(err);
    }
    d->jobs = json_object_get(d->doc, "jobs");
    ts_rng_seed(&d->r, o->seed);
    d->iterations = iterations;
    d->window = window_s;
    d->compute_ms = o->compute_ms;
    *out = d;
    return TSCHED_OK;
}

/* One job file to one job: nodes in order of first appearance, one phase of its flows. */
static tsched_status dcn_job(char *text, const char *path, const char *file, json_t *job, ts_trace_err *err)
{
    tsched_status rc = TSCHED_OK;
    int32_t rank_of[DCN_SERVERS];
    for (size_t i = 0; i < DCN_SERVERS; i++)
        rank_of[i] = -1;
    json_t *nodes = json_array(), *flows = json_array();
    size_t line = 0, nflows = 0;
    int32_t nranks = 0;
    char *p = text;
    while (*p && rc == TSCHED_OK) {
        char *l = p, *nl = strchr(p, '\n');
        if (nl) {
            *nl = '\0';
            p = nl + 1;
        } else
            p += strlen(p);
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[--ll] = '\0';
        l = trim(l);
        if (line == 1) {
            if (strcmp(l, DCN_HEADER) != 0)
                rc = fail(err, TSCHED_E_FORMAT, "%s:1: expected the header '" DCN_HEADER "'", path);
            continue;
        }
        if (!*l)
            continue;
        unsigned long long v[8];
        char *s = l, *end;
        int k = 0;
        for (; k < 8; k++) {
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s < '0' || *s > '9')
                break;
            errno = 0;
            v[k] = strtoull(s, &end, 10);
            if (errno || (*end && *end != ' ' && *end != '\t'))
                break;
            s = end;
        }
        while (*s == ' ' || *s == '\t')
            s++;
        if (k < 8 || *s) {
            rc = fail(err, TSCHED_E_PARSE, "%s:%zu: expected 8 whole numbers (%s)", path, line, &DCN_HEADER[1]);
            break;
        }
        static const char *const end_names[2] = {"src", "dst"};
        int32_t rk[2];
        for (int e = 0; e < 2 && rc == TSCHED_OK; e++) {
            unsigned long long vert = v[e];
            if (vert < DCN_FIRST_SERVER || vert >= DCN_FIRST_SERVER + DCN_SERVERS) {
                rc = fail(err, TSCHED_E_RANGE, "%s:%zu: %s: %llu is not a server vertex (%u..%u)", path, line,
                          end_names[e], vert, DCN_FIRST_SERVER, DCN_FIRST_SERVER + DCN_SERVERS - 1);
                break;
            }
            unsigned s_idx = (unsigned)(vert - DCN_FIRST_SERVER);
            if (v[2 + e] != s_idx / DCN_PER_TOR) {
                rc = fail(err, TSCHED_E_RANGE, "%s:%zu: %s_tor: %llu, but server vertex %llu sits under ToR %u", path,
                          line, end_names[e], v[2 + e], vert, s_idx / DCN_PER_TOR);
                break;
            }
            if (rank_of[s_idx] < 0) {
                char nm[32];
                ts_snprintf(nm, sizeof nm, "node%u", s_idx);
                rank_of[s_idx] = nranks++;
                if (json_array_append_new(nodes, json_string(nm)) != 0)
                    rc = nomem(err);
            }
            rk[e] = rank_of[s_idx];
        }
        if (rc != TSCHED_OK)
            break;
        if (v[0] == v[1]) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: dst: flow from server vertex %llu to itself", path, line, v[0]);
            break;
        }
        if (v[5] == 0) {
            rc = fail(err, TSCHED_E_RANGE, "%s:%zu: flow_size: 0 bits", path, line);
            break;
        }
        json_t *f = json_pack("{s:i, s:i, s:o}", "src", (json_int_t)rk[0], "dst", (json_int_t)rk[1], "gbits",
                              num((double)v[5] / 1e9));
        if (!f || json_array_append_new(flows, f) != 0)
            rc = nomem(err);
        nflows++;
    }
    if (rc == TSCHED_OK && nflows == 0)
        rc = fail(err, TSCHED_E_NOT_FOUND, "%s: no flows", path);
    if (rc == TSCHED_OK) {
        char name[NAME_MAX_BYTES + 1];
        make_name(name, NAME_MAX_BYTES, "", file);
        size_t nl = strlen(name);
        if (nl > 4 && strcmp(name + nl - 4, ".txt") == 0)
            name[nl - 4] = '\0';
        if (set(job, "name", json_string(name)) || set(job, "nodes", nodes) ||
            set(job, "phases", json_pack("[{s:o}]", "flows", flows)))
            rc = nomem(err);
        return rc;
    }
    json_decref(nodes);
    json_decref(flows);
    return rc;
}

tsched_status ts_trace_dcn_add(ts_trace_dcn *d, const char *text, size_t len, const char *path, const char *file,
                               ts_trace_err *err)
{
    tsched_status st = no_nul(text, len, path, err);
    if (st != TSCHED_OK)
        return st;
    json_t *job = json_object();
    if (!job || json_array_append_new(d->jobs, job) != 0)
        return nomem(err);
    /* fields in trace order: name, arrival_s, nodes, compute_ms, iterations, phases */
    if (set(job, "name", json_string("")) || set(job, "arrival_s", num(d->window * rng_uniform(&d->r))) ||
        set(job, "nodes", json_array()) || set(job, "compute_ms", num(d->compute_ms)) ||
        set(job, "iterations", json_integer((json_int_t)d->iterations)))
        return nomem(err);
    char *copy = malloc(len + 1);
    if (!copy)
        return nomem(err);
    memcpy(copy, text, len);
    copy[len] = '\0';
    st = dcn_job(copy, path, file, job, err);
    free(copy);
    return st;
}

tsched_status ts_trace_dcn_finish(json_t **out, ts_trace_dcn *d, ts_trace_err *err)
{
    (void)err;
    *out = d->doc;
    d->doc = NULL;
    ts_trace_dcn_free(d);
    return TSCHED_OK;
}

/* ---------------------------------------------------------------- poisson */

typedef struct {
    uint64_t *size;
    double *w;
    size_t n;
    double total;
} size_dist;

static tsched_status parse_sizes(const char *spec, size_dist *sd, ts_trace_err *err)
{
    memset(sd, 0, sizeof *sd);
    size_t cap = 1;
    for (const char *s = spec; *s; s++)
        cap += *s == ',';
    sd->size = calloc(cap, sizeof *sd->size);
    sd->w = calloc(cap, sizeof *sd->w);
    char *copy = strdup(spec);
    if (!sd->size || !sd->w || !copy) {
        free(copy);
        return nomem(err);
    }
    tsched_status rc = TSCHED_OK;
    char *save = NULL;
    size_t items = 0;
    for (char *p = copy;; p = NULL) {
        char *tok = p ? p : save;
        if (!tok)
            break;
        char *comma = strchr(tok, ',');
        save = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        items++;
        char *colon = strchr(tok, ':');
        if (!colon) {
            rc = opt_fail(err, "--sizes: '%s' is not SIZE:WEIGHT", tok);
            break;
        }
        *colon = '\0';
        uint64_t g;
        if (parse_u64(tok, &g) != 0 || g == 0 || g > UINT32_MAX) {
            rc = opt_fail(err, "--sizes: size '%s' is not a whole number of GPUs >= 1", tok);
            break;
        }
        char *end;
        errno = 0;
        double w = ts_strtod(colon + 1, &end);
        if (!colon[1] || errno || *end || !isfinite(w)) {
            rc = opt_fail(err, "--sizes: weight of %" PRIu64 " is '%s', not a number", g, colon + 1);
            break;
        }
        if (w <= 0) {
            rc = opt_fail(err, "--sizes: weight of %" PRIu64 " is %s", g, colon + 1);
            break;
        }
        for (size_t k = 0; k < sd->n; k++)
            if (sd->size[k] == g) {
                rc = opt_fail(err, "--sizes: size %" PRIu64 " given twice", g);
                break;
            }
        if (rc != TSCHED_OK)
            break;
        sd->size[sd->n] = g;
        sd->w[sd->n++] = w;
        sd->total += w;
    }
    free(copy);
    if (rc == TSCHED_OK && (items == 0 || sd->n == 0))
        rc = opt_fail(err, "--sizes: empty; expected SIZE:WEIGHT,...");
    if (rc == TSCHED_OK && !isfinite(sd->total))
        rc = opt_fail(err, "--sizes: the weights sum to infinity");
    return rc;
}

enum { DUR_FIXED, DUR_EXP, DUR_LOGNORMAL };

typedef struct {
    int kind;
    double a, b;
} dur_dist;

static tsched_status parse_duration(const char *spec, dur_dist *d, ts_trace_err *err)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return opt_fail(err, "--duration-dist: '%s' is not fixed:S, exp:MEAN or lognormal:MU,SIGMA", spec);
    size_t kl = (size_t)(colon - spec);
    const char *arg = colon + 1;
    if (kl == 5 && strncmp(spec, "fixed", 5) == 0) {
        d->kind = DUR_FIXED;
        if (parse_real(arg, &d->a) != 0 || !time_ok(d->a, 1))
            return opt_fail(err, "--duration-dist: fixed duration '%s' is not a number in " TS_TRACE_DURATION_S_RANGE,
                            arg);
    } else if (kl == 3 && strncmp(spec, "exp", 3) == 0) {
        d->kind = DUR_EXP;
        if (parse_real(arg, &d->a) != 0 || !time_ok(d->a, 1))
            return opt_fail(err, "--duration-dist: exp mean '%s' is not a number in " TS_TRACE_DURATION_S_RANGE, arg);
    } else if (kl == 9 && strncmp(spec, "lognormal", 9) == 0) {
        d->kind = DUR_LOGNORMAL;
        const char *comma = strchr(arg, ',');
        char mu[64];
        if (!comma || (size_t)(comma - arg) >= sizeof mu)
            return opt_fail(err, "--duration-dist: lognormal needs MU,SIGMA, got '%s'", arg);
        memcpy(mu, arg, (size_t)(comma - arg));
        mu[comma - arg] = '\0';
        if (parse_real(mu, &d->a) != 0)
            return opt_fail(err, "--duration-dist: lognormal MU '%s' is not a number", mu);
        if (parse_real(comma + 1, &d->b) != 0 || d->b < 0)
            return opt_fail(err, "--duration-dist: lognormal SIGMA '%s' is not a number >= 0", comma + 1);
        /* |z| of one Box-Muller draw is below 8.7: keep every duration finite and > 0 */
        if (d->a + 8.7 * d->b > 700 || d->a - 8.7 * d->b < -700)
            return opt_fail(err, "--duration-dist: lognormal:%s,%s can give durations that are not finite and "
                                 "positive (need |MU| + 8.7 SIGMA <= 700)", mu, comma + 1);
    } else
        return opt_fail(err, "--duration-dist: unknown distribution '%.*s' (fixed, exp, lognormal)", (int)kl, spec);
    return TSCHED_OK;
}

static double draw_duration(const dur_dist *d, ts_rng *r)
{
    switch (d->kind) {
    case DUR_EXP: return rng_exp(r, d->a);
    case DUR_LOGNORMAL: return exp(d->a + d->b * rng_normal(r));
    default: return d->a;
    }
}

tsched_status ts_trace_poisson_check(const char *sizes, const char *dspec, ts_trace_err *err)
{
    size_dist sd;
    dur_dist dd;
    tsched_status rc = parse_sizes(sizes, &sd, err);
    if (rc == TSCHED_OK)
        rc = parse_duration(dspec, &dd, err);
    free(sd.size);
    free(sd.w);
    return rc;
}

tsched_status ts_trace_poisson(json_t **out, uint32_t njobs, double mean, const char *sizes, const char *dspec,
                               const ts_trace_opts *c, ts_trace_err *err)
{
    *out = NULL;
    if (njobs == 0 || njobs > TS_TRACE_MAX_JOBS)
        return opt_fail(err, "--jobs: '%" PRIu32 "' is not a whole number in [1, %u]", njobs, TS_TRACE_MAX_JOBS);
    if (!(mean > 0) || mean > TS_TRACE_MAX_S)
        return opt_fail(err, "--mean-interarrival-s: %g is not a number in (0, 9.2e9]", mean);
    size_dist sd = {0};
    dur_dist dd;
    tsched_status rc;
    if ((rc = ts_trace_check_compute_ms(c->compute_ms, NULL, err)) || (rc = ts_trace_check_gbits(c->gbits, NULL, err)))
        return rc;
    if ((rc = parse_sizes(sizes, &sd, err)) != TSCHED_OK || (rc = parse_duration(dspec, &dd, err)) != TSCHED_OK) {
        free(sd.size);
        free(sd.w);
        return rc;
    }
    json_t *doc = new_trace("poisson"), *jobs = json_object_get(doc, "jobs");
    if (!doc) {
        rc = nomem(err);
        goto out;
    }
    ts_rng r;
    ts_rng_seed(&r, c->seed);
    double t = 0;
    for (unsigned i = 0; i < njobs && rc == TSCHED_OK; i++) {
        /* per job, in this order: inter-arrival, size, duration, model */
        t += rng_exp(&r, mean);
        uint64_t g = sd.size[rng_pick(&r, sd.w, sd.n, sd.total)];
        double dur = draw_duration(&dd, &r);
        if (!time_ok(t, 0)) {
            rc = time_error(err, "--mean-interarrival-s", i, t, 0);
            break;
        }
        if (!time_ok(dur, 1)) {
            rc = time_error(err, "--duration-dist", i, dur, 1);
            break;
        }
        char name[32];
        ts_snprintf(name, sizeof name, "job%u", i);
        json_t *job = json_object();
        const mix_model *m;
        if (!job || json_array_append_new(jobs, job) != 0 || set(job, "name", json_string(name)) ||
            set(job, "arrival_s", num(t)) || set(job, "gpus", json_integer((json_int_t)g)) ||
            model_head(job, c, &r, g, &m) || set(job, "duration_s", num(dur)) || model_tail(job, c, m))
            rc = nomem(err);
    }
    if (rc == TSCHED_OK)
        *out = doc;
    else
        json_decref(doc);
out:
    free(sd.size);
    free(sd.w);
    return rc;
}
