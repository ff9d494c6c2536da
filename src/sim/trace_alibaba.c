/* trace convert-alibaba: the Alibaba v2023 pod list to tsched.trace.v1 (doc/sim-traces.md). */
#include "trace_convert_internal.h"

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

enum { C_NAME, C_NUM_GPU, C_GPU_MILLI, C_PHASE, C_CREATE, C_DELETE, C_SCHED, C_COUNT };
static const char *const col_names[C_COUNT] = {"name",          "num_gpu",       "gpu_milli",     "pod_phase",
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
    if (!all_digits(s) || ts_tc_parse_u64(s, out) != 0)
        return ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '%s' is not a whole number", path, line, col, s);
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
        return ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '%s' is not a number of seconds", path, line, col, s);
    if (v < 0)
        return ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: %s: '%s' is negative", path, line, col, s);
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
                return ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: unterminated quote in the header", path, line);
            if (n == CSV_JUNK)
                return ts_tc_fail(err, TSCHED_E_PARSE,
                                  "%s:%zu: header field %zu: '\"%.*s\"%.*s' has text after the closing "
                                  "quote",
                                  path, line, bad.field + 1, bad.vlen, bad.val, bad.jlen, bad.junk);
            if (n > 64)
                return ts_tc_fail(err, TSCHED_E_TOO_LARGE, "%s:%zu: %zu columns, at most 64 are read", path, line, n);
            for (size_t k = 0; k < C_COUNT; k++) {
                cols[k] = (size_t)-1;
                for (size_t j = 0; j < n; j++)
                    if (strcmp(ts_tc_trim(fields_buf[j]), col_names[k]) == 0 && cols[k] == (size_t)-1)
                        cols[k] = j;
                if (cols[k] == (size_t)-1)
                    return ts_tc_fail(err, TSCHED_E_NOT_FOUND, "%s:%zu: the header has no column '%s'", path, line,
                                      col_names[k]);
            }
            for (size_t j = 0; j < n; j++)
                header[j] = ts_tc_trim(fields_buf[j]);
            ncols = n;
            continue;
        }
        if (ll == 0)
            continue;
        size_t n = csv_split(l, fields_buf, 64, &bad);
        if (n == CSV_JUNK) {
            rc = ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: %s: '\"%.*s\"%.*s' has text after the closing quote", path,
                            line, bad.field < ncols ? header[bad.field] : "(a field past the header's)", bad.vlen,
                            bad.val, bad.jlen, bad.junk);
            goto out;
        }
        if (n == CSV_UNTERMINATED) {
            rc = ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: unterminated quote", path, line);
            goto out;
        }
        if (n != ncols) {
            rc = ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: %zu fields, the header has %zu", path, line, n, ncols);
            goto out;
        }
        if (npods == cap) {
            cap = cap ? 2 * cap : 1024;
            pod *np = realloc(pods, cap * sizeof *pods);
            if (!np) {
                rc = ts_tc_nomem(err);
                goto out;
            }
            pods = np;
        }
        pod *q = &pods[npods];
        char *v[C_COUNT];
        for (size_t k = 0; k < C_COUNT; k++)
            v[k] = ts_tc_trim(fields_buf[cols[k]]);
        uint64_t ngpu, milli = 0;
        if (!*v[C_NAME]) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: name: empty", path, line);
            goto out;
        }
        if (!*v[C_PHASE]) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: pod_phase: empty", path, line);
            goto out;
        }
        if ((rc = parse_count(path, line, "num_gpu", v[C_NUM_GPU], &ngpu, err)) ||
            (*v[C_GPU_MILLI] && (rc = parse_count(path, line, "gpu_milli", v[C_GPU_MILLI], &milli, err))) ||
            (rc = parse_time(path, line, "creation_time", v[C_CREATE], &q->create, err)) ||
            (rc = parse_time(path, line, "deletion_time", v[C_DELETE], &q->del, err)) ||
            (rc = parse_time(path, line, "scheduled_time", v[C_SCHED], &q->sched, err)))
            goto out;
        if (isnan(q->create)) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: creation_time: empty", path, line);
            goto out;
        }
        if (ngpu > 65536) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: num_gpu: %" PRIu64 " is above 65536", path, line, ngpu);
            goto out;
        }
        if (ngpu * scale > UINT32_MAX) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: num_gpu: %" PRIu64 " times --scale-gpus %u is above %u", path,
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
        rc = ts_tc_fail(err, TSCHED_E_PARSE, "%s: empty file: no header", path);
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
    json_t *doc = ts_tc_new_trace(base_name(path)), *jobs = json_object_get(doc, "jobs");
    name_set ns = {0};
    char **names = calloc(kept ? kept : 1, sizeof *names);
    if (!doc || !names || ts_tc_name_set_init(&ns, kept) != 0) {
        json_decref(doc);
        free(names);
        free(ns.slot);
        rc = ts_tc_nomem(err);
        goto out;
    }
    ts_rng r;
    ts_rng_seed(&r, c->seed);
    for (size_t i = 0; i < kept && rc == TSCHED_OK; i++) {
        pod *q = &pods[i];
        char nm[NAME_MAX_BYTES + 1];
        ts_tc_make_name(nm, NAME_MAX_BYTES, "pod-", q->name);
        for (unsigned k = 1; ts_tc_name_set_has(&ns, nm); k++) {
            /* a repeated name (in the file, or made equal by the cleaning) gets its line */
            char suffix[48], base[NAME_MAX_BYTES + 1];
            ts_snprintf(suffix, sizeof suffix, k == 1 ? "-line%zu" : "-line%zu-%u", q->line, k);
            ts_tc_make_name(base, NAME_MAX_BYTES - strlen(suffix), "pod-", q->name);
            size_t bl = strlen(base), sl = strlen(suffix);
            memcpy(nm, base, bl);
            memcpy(nm + bl, suffix, sl + 1);
        }
        names[i] = strdup(nm);
        if (!names[i]) {
            rc = ts_tc_nomem(err);
            break;
        }
        ts_tc_name_set_add(&ns, names[i]);
        int censored = isnan(q->del) || (q->running && q->del >= end);
        double dur = (censored ? end : q->del) - q->sched, arrival = q->create - t0;
        /* what the trace holds (trace_ranges.h): never write what simulate refuses */
        if (!ts_trace_arrival_ok(arrival)) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE,
                            "%s:%zu: creation_time: %.17g gives arrival_s %g s (after the earliest "
                            "kept creation, %.17g), above the 9.2e9 s a trace holds",
                            path, q->line, q->create, arrival, t0);
            break;
        }
        if (!ts_trace_duration_ok(dur, 1)) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE,
                            "%s:%zu: scheduled_time: %.17g gives duration_s %g s (to %s %.17g), outside "
                            "the " TS_TRACE_DURATION_S_RANGE " s a trace holds",
                            path, q->line, q->sched, dur, censored ? "the trace's end" : "deletion_time",
                            censored ? end : q->del);
            break;
        }
        json_t *job = json_object();
        const mix_model *m;
        if (!job || json_array_append_new(jobs, job) != 0 || ts_tc_set(job, "name", json_string(names[i])) ||
            ts_tc_set(job, "arrival_s", ts_tc_num(arrival)) ||
            ts_tc_set(job, "gpus", json_integer((json_int_t)q->gpus)) || ts_tc_model_head(job, c, &r, q->gpus, &m) ||
            ts_tc_set(job, "duration_s", ts_tc_num(dur)) || (censored && ts_tc_set(job, "censored", json_true())) ||
            ts_tc_model_tail(job, c, m))
            rc = ts_tc_nomem(err);
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
        return ts_tc_opt_fail(err, "--scale-gpus: '%" PRIu32 "' is not a power of two in [1, 65536]", scale_gpus);
    tsched_status st;
    if ((st = ts_trace_check_compute_ms(o->compute_ms, NULL, err)) ||
        (st = ts_trace_check_gbits(o->gbits, NULL, err)) || (st = ts_tc_no_nul(text, len, name, err)))
        return st;
    /* the parser cuts lines and fields in place: work on a copy, NUL-terminated */
    char *copy = malloc(len + 1);
    if (!copy)
        return ts_tc_nomem(err);
    memcpy(copy, text, len);
    copy[len] = '\0';
    st = alibaba_build(out, name, copy, scale_gpus, o, err);
    free(copy);
    return st;
}
