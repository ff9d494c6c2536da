/* The trace converters (doc/sim-traces.md) on memory buffers: every rule and the order of the
 * random draws are documented there, and the same input and seed give the same bytes as the
 * command line always wrote (tests/data/trace/golden). See trace_convert.h. */
/* This file: what every converter shares (trace_convert_internal.h). */
#include "trace_convert_internal.h"

/* ---------------------------------------------------------------- errors */

static tsched_status verr(ts_trace_err *e, tsched_status st, const char *fmt, va_list ap)
{
    char raw[sizeof e->msg];
    ts_vsnprintf(raw, sizeof raw, fmt, ap);
    ts_text_one_line(e->msg, sizeof e->msg, raw); /* one line whatever the input held */
    return st;
}

/* An input's fault (a file, a line, a field). */
tsched_status ts_tc_fail(ts_trace_err *e, tsched_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(e, st, fmt, ap);
    va_end(ap);
    return st;
}

/* An option's fault: the message starts with the option ("--gbits: ..."), which is how
 * the command line and the service tell it from an input's. */
tsched_status ts_tc_opt_fail(ts_trace_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(e, TSCHED_E_RANGE, fmt, ap);
    va_end(ap);
    return TSCHED_E_RANGE;
}

tsched_status ts_tc_nomem(ts_trace_err *e) { return ts_tc_fail(e, TSCHED_E_NOMEM, "out of memory"); }

/* Text inputs hold no NUL byte (common's reader stops at the first one; a buffer may hold one). */
tsched_status ts_tc_no_nul(const char *text, size_t len, const char *name, ts_trace_err *e)
{
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return ts_tc_fail(e, TSCHED_E_PARSE, "%s: byte %zu is a NUL byte; expected a text document", name,
                          (size_t)(nul - text));
    return TSCHED_OK;
}

/* ---------------------------------------------------------------- random numbers
 * common's xoshiro256** seeded by splitmix64; a uniform draw is U = (x >> 11 + 0.5) / 2^53, in
 * (0, 1) open at both ends, so log(U) is finite. */

double ts_tc_rng_uniform(ts_rng *r) { return ((double)(ts_rng_next(r) >> 11) + 0.5) * 0x1p-53; }

/* Exponential of mean `mean`: one draw. */
double ts_tc_rng_exp(ts_rng *r, double mean) { return -mean * log(ts_tc_rng_uniform(r)); }

/* Standard normal by Box-Muller: two draws, the cosine branch only. */
double ts_tc_rng_normal(ts_rng *r)
{
    double u1 = ts_tc_rng_uniform(r), u2 = ts_tc_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Index i of the first cumulative weight above U * total: one draw. */
size_t ts_tc_rng_pick(ts_rng *r, const double *w, size_t n, double total)
{
    double u = ts_tc_rng_uniform(r) * total, c = 0;
    for (size_t i = 0; i < n; i++) {
        c += w[i];
        if (u < c)
            return i;
    }
    return n - 1;
}

/* ---------------------------------------------------------------- numbers in text */

/* A whole number in base 10 (no sign), as the command line's parser. */
int ts_tc_parse_u64(const char *s, uint64_t *out)
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
int ts_tc_parse_real(const char *s, double *v)
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
json_t *ts_tc_num(double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

int ts_tc_set(json_t *obj, const char *key, json_t *v) { return !v || json_object_set_new(obj, key, v) != 0; }

json_t *ts_tc_new_trace(const char *name)
{
    json_t *doc = json_object();
    if (!doc || ts_tc_set(doc, "format", json_string(TRACE_FORMAT)) || ts_tc_set(doc, "name", json_string(name)) ||
        ts_tc_set(doc, "jobs", json_array())) {
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
 * C1, U+2028, U+2029), '~', '#' and byte of malformed UTF-8 becomes '_', and the name is cut at a character boundary so
 * it fits in `max` bytes. */
void ts_tc_make_name(char *out, size_t max, const char *prefix, const char *raw)
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

static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

int ts_tc_name_set_init(name_set *ns, size_t n)
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

int ts_tc_name_set_has(const name_set *ns, const char *s) { return ns->slot[name_set_find(ns, s)] != NULL; }

/* Add `s` (kept by pointer: it must outlive the set). */
void ts_tc_name_set_add(name_set *ns, const char *s) { ns->slot[name_set_find(ns, s)] = s; }

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
        return ts_tc_opt_fail(err, "--gbits: '%s' is not a positive number", shown(b, sizeof b, text, gbits));
    return TSCHED_OK;
}

tsched_status ts_trace_check_compute_ms(double ms, const char *text, ts_trace_err *err)
{
    char b[32];
    if (!ts_trace_duration_ok(ms, 1e-3))
        return ts_tc_opt_fail(err, "--compute-ms: '%s' is not a number of milliseconds in " TS_TRACE_COMPUTE_MS_RANGE,
                              shown(b, sizeof b, text, ms));
    return TSCHED_OK;
}

tsched_status ts_trace_check_iterations(uint64_t n, const char *text, ts_trace_err *err)
{
    char b[32];
    if (n == 0 || n > TS_TRACE_COUNT_MAX)
        return ts_tc_opt_fail(err, "--iterations: '%s' is not a whole number in [1, 2^53]",
                              shown(b, sizeof b, text, (double)n));
    return TSCHED_OK;
}

tsched_status ts_trace_check_window(double w, const char *text, ts_trace_err *err)
{
    char b[32];
    if (!ts_trace_arrival_ok(w))
        return ts_tc_opt_fail(err, "--arrival-window-s: '%s' is not a number in [0, 9.2e9]",
                              shown(b, sizeof b, text, w));
    return TSCHED_OK;
}

char *ts_tc_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* The times tsched.trace.v1 holds, exactly as `simulate` reads them (trace_ranges.h): a
 * generator checks each value it writes, so it never writes a trace the simulator refuses. */
int ts_tc_time_ok(double v, int duration) { return duration ? ts_trace_duration_ok(v, 1) : ts_trace_arrival_ok(v); }

tsched_status ts_tc_time_error(ts_trace_err *err, const char *opt, unsigned job, double v, int duration)
{
    return ts_tc_opt_fail(err, "%s: job %u's %s would be %g s, outside %s s, the range a trace holds", opt, job,
                          duration ? "duration" : "arrival", v, duration ? TS_TRACE_DURATION_S_RANGE : "[0, 9.2e9]");
}
