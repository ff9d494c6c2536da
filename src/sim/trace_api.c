/* The public trace calls (include/topo-sched/trace.h) over the converters of trace_convert.h:
 * the options struct (size rule, defaults, text setter), the inputs' limits, the mix, the dcn
 * folder, and the document as text. The command line (`topo-sched trace`), the service's
 * trace-* ops and both bindings call these, so they write the same bytes. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo-sched/trace.h"

#include "../common/json.h"
#include "../common/limits.h"
#include "../common/readall.h"
#include "../common/structsize.h"
#include "trace_convert_internal.h"

#define MIX_DEFAULT_NAME "model-mix"

void tsched_trace_options_init(tsched_trace_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->seed = 1;
    o->gbits = 1;
    o->gpus_per_node = 8;
    o->scale_gpus = 1;
    o->iterations = TS_TRACE_DCN_DEFAULT_ITERATIONS;
    o->arrival_window_s = TS_TRACE_DCN_DEFAULT_WINDOW_S;
}

/* The caller's options completed with the defaults (NULL = all defaults). */
static tsched_status opts_in(tsched_trace_options *dst, const tsched_trace_options *src)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_trace_options, size),
        TS_SPAN(tsched_trace_options, seed),
        TS_SPAN(tsched_trace_options, model_mix),
        TS_SPAN(tsched_trace_options, model_mix_len),
        TS_SPAN(tsched_trace_options, model_mix_name),
        TS_SPAN(tsched_trace_options, gbits),
        TS_SPAN(tsched_trace_options, compute_ms),
        TS_SPAN(tsched_trace_options, gpus_per_node),
        TS_SPAN(tsched_trace_options, scale_gpus),
        TS_SPAN(tsched_trace_options, iterations),
        TS_SPAN(tsched_trace_options, arrival_window_s),
        TS_SPAN(tsched_trace_options, jobs),
        TS_SPAN(tsched_trace_options, mean_interarrival_s),
        TS_SPAN(tsched_trace_options, sizes),
        TS_SPAN(tsched_trace_options, duration_dist),
        TS_SPAN(tsched_trace_options, compact),
    };
    tsched_trace_options_init(dst);
    if (!src)
        return TSCHED_OK;
    return ts_struct_in(dst, src, spans, TS_NSPANS(spans), sizeof *dst, "tsched_trace_options");
}

/* A converter's error as the thread's last error. */
static tsched_status conv_err(tsched_status st, const ts_trace_err *e) { return ts_error(st, "%s", e->msg); }

/* ---------------------------------------------------------------- the text setter
 * Checks and messages exactly as `topo-sched trace` always gave them for the option's text. */

static tsched_status opt_u32(void *out, const char *opt, const char *text, uint32_t max, int pow2)
{
    uint64_t v;
    if (ts_tc_parse_u64(text, &v) != 0 || v == 0 || v > max || (pow2 && (v & (v - 1)) != 0)) {
        if (pow2)
            return ts_error(TSCHED_E_RANGE, "--%s: '%s' is not a power of two in [1, %" PRIu32 "]", opt, text, max);
        return ts_error(TSCHED_E_RANGE, "--%s: '%s' is not a whole number in [1, %" PRIu32 "]", opt, text, max);
    }
    uint32_t u = (uint32_t)v;
    memcpy(out, &u, sizeof u);
    return TSCHED_OK;
}

/* A converter's check of one option's value; `text` is the value as given. */
typedef tsched_status (*opt_check)(double, const char *, ts_trace_err *);

/* A real option: parsed (NAN when it is not a finite number, so `check` refuses it naming
 * the text) and checked. */
static tsched_status opt_real(void *out, const char *text, opt_check check)
{
    ts_trace_err e;
    double v;
    if (ts_tc_parse_real(text, &v) != 0)
        v = NAN;
    tsched_status st = check(v, text, &e);
    if (st)
        return conv_err(st, &e);
    memcpy(out, &v, sizeof v);
    return TSCHED_OK;
}

/* The options tsched_trace_options_set knows: where each lives and how its text is read. */
typedef enum { OPT_U64, OPT_U32, OPT_POW2, OPT_REAL, OPT_ITERATIONS, OPT_MEAN, OPT_SPEC } opt_kind;
#define OPT(name, f, kind, max, check)                                                                             \
    { name, offsetof(tsched_trace_options, f), sizeof(((tsched_trace_options *)0)->f), kind, max, check }
static const struct opt_def {
    const char *name;
    size_t off, len;
    opt_kind kind;
    uint32_t max;    /* OPT_U32, OPT_POW2 */
    opt_check check; /* OPT_REAL */
} opt_defs[] = {
    OPT("seed", seed, OPT_U64, 0, NULL),
    OPT("gbits", gbits, OPT_REAL, 0, ts_trace_check_gbits),
    OPT("compute-ms", compute_ms, OPT_REAL, 0, ts_trace_check_compute_ms),
    OPT("gpus-per-node", gpus_per_node, OPT_U32, 65536, NULL),
    OPT("scale-gpus", scale_gpus, OPT_POW2, 65536, NULL),
    OPT("iterations", iterations, OPT_ITERATIONS, 0, NULL),
    OPT("arrival-window-s", arrival_window_s, OPT_REAL, 0, ts_trace_check_window),
    OPT("jobs", jobs, OPT_U32, TS_TRACE_MAX_JOBS, NULL),
    OPT("mean-interarrival-s", mean_interarrival_s, OPT_MEAN, 0, NULL),
    OPT("sizes", sizes, OPT_SPEC, 0, NULL),
    OPT("duration-dist", duration_dist, OPT_SPEC, 0, NULL),
};

/* Read `text` into the field of `d` at `p`, checked as the command line checks it. */
static tsched_status opt_read(void *p, const struct opt_def *d, const char *text)
{
    ts_trace_err e;
    tsched_status st = TSCHED_OK;
    uint64_t u;
    double v;
    switch (d->kind) {
    case OPT_U64:
        if (ts_tc_parse_u64(text, &u) != 0)
            return ts_error(TSCHED_E_RANGE, "--seed: '%s' is not a whole number", text);
        memcpy(p, &u, sizeof u);
        return TSCHED_OK;
    case OPT_U32:
    case OPT_POW2: return opt_u32(p, d->name, text, d->max, d->kind == OPT_POW2);
    case OPT_REAL: return opt_real(p, text, d->check);
    case OPT_ITERATIONS:
        if (ts_tc_parse_u64(text, &u) != 0)
            u = 0;
        st = ts_trace_check_iterations(u, text, &e);
        memcpy(p, &u, sizeof u);
        break;
    case OPT_MEAN:
        if (ts_tc_parse_real(text, &v) != 0 || !(v > 0) || v > TS_TRACE_MAX_S)
            return ts_error(TSCHED_E_RANGE, "--mean-interarrival-s: '%s' is not a number in (0, 9.2e9]", text);
        memcpy(p, &v, sizeof v);
        return TSCHED_OK;
    case OPT_SPEC:
        if (!strcmp(d->name, "sizes"))
            st = ts_trace_poisson_check(text, NULL, &e);
        else
            st = ts_trace_poisson_check(NULL, text, &e);
        memcpy(p, &text, sizeof text);
        break;
    }
    return st ? conv_err(st, &e) : st;
}

tsched_status tsched_trace_options_set(tsched_trace_options *opts, const char *name, const char *value)
{
    if (!opts || !name || !value)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_options_set: %s is NULL",
                        !opts ? "opts" : !name ? "name" : "value");
    tsched_trace_options o; /* a copy: on error the caller's is unchanged */
    tsched_status st = opts_in(&o, opts);
    if (st)
        return st;
    const struct opt_def *d = NULL;
    for (size_t i = 0; i < sizeof opt_defs / sizeof opt_defs[0] && !d; i++)
        if (!strcmp(opt_defs[i].name, name))
            d = &opt_defs[i];
    if (!d)
        return ts_error(TSCHED_E_INVALID,
                        "tsched_trace_options_set: unknown option '%s' (seed, gbits, compute-ms, gpus-per-node, "
                        "scale-gpus, iterations, arrival-window-s, jobs, mean-interarrival-s, sizes, duration-dist)",
                        name);
    if ((st = opt_read((char *)&o + d->off, d, value)))
        return st;
    if (d->off + d->len > opts->size)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_options_set: '%s' lies past the caller's struct (size %zu)",
                        name, opts->size);
    memcpy((char *)opts + sizeof opts->size, (const char *)&o + sizeof o.size, opts->size - sizeof opts->size);
    return TSCHED_OK;
}

/* ---------------------------------------------------------------- shared steps */

/* An input's bytes against the input_bytes limit, as the loaders check a document's. */
static tsched_status check_len(const char *name, size_t len)
{
    return ts_limit_check(name, (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
}

/* The options every converter checks itself (the converters check the rest). */
static tsched_status check_common(const tsched_trace_options *o)
{
    if (o->gpus_per_node == 0 || o->gpus_per_node > 65536)
        return ts_error(TSCHED_E_RANGE, "--gpus-per-node: '%" PRIu32 "' is not a whole number in [1, 65536]",
                        o->gpus_per_node);
    return TSCHED_OK;
}

/* The converters' options from the public ones; parses the mix when there is one. */
static tsched_status conv_opts(ts_trace_opts *c, ts_trace_mix **mix, const tsched_trace_options *o,
                               double default_compute_ms)
{
    *mix = NULL;
    ts_trace_opts_init(c, o->compute_ms == 0 ? default_compute_ms : o->compute_ms);
    c->seed = o->seed;
    c->gbits = o->gbits;
    c->gpus_per_node = o->gpus_per_node;
    if (!o->model_mix)
        return TSCHED_OK;
    ts_trace_err e;
    const char *name = o->model_mix_name ? o->model_mix_name : MIX_DEFAULT_NAME;
    size_t len = o->model_mix_len ? o->model_mix_len : strlen(o->model_mix);
    tsched_status st = check_len(name, len);
    if (st)
        return st;
    if ((st = ts_trace_mix_parse(mix, o->model_mix, len, name, &e)))
        return conv_err(st, &e);
    c->mix = *mix;
    return TSCHED_OK;
}

/* The document as text, in the layout the caller asked for; takes `doc`. */
static tsched_status emit(char **out, json_t *doc, int compact)
{
    char *text = ts_json_write(doc, compact ? TS_JSON_COMPACT : TS_JSON_INDENT, NULL);
    json_decref(doc);
    if (!text)
        return ts_error(TSCHED_E_NOMEM, "out of memory writing the trace");
    *out = text;
    return TSCHED_OK;
}

tsched_status tsched_trace_mix_check(const char *text, size_t len, const char *name)
{
    if (!text)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_mix_check: text is NULL");
    tsched_trace_options o;
    tsched_trace_options_init(&o);
    o.model_mix = text;
    o.model_mix_len = len;
    o.model_mix_name = name;
    ts_trace_opts c;
    ts_trace_mix *mx;
    tsched_status st = conv_opts(&c, &mx, &o, 1000);
    ts_trace_mix_free(mx);
    return st;
}

/* ---------------------------------------------------------------- convert-alibaba */

tsched_status tsched_trace_convert_alibaba(char **out, const char *csv, size_t len, const char *name,
                                           const tsched_trace_options *opts)
{
    if (!out || !csv)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_convert_alibaba: %s is NULL", !out ? "out" : "csv");
    *out = NULL;
    if (!name)
        name = "-";
    tsched_trace_options o;
    ts_trace_opts c;
    ts_trace_mix *mix = NULL;
    ts_trace_err e;
    json_t *doc;
    tsched_status st;
    if ((st = opts_in(&o, opts)) || (st = check_common(&o)) || (st = check_len(name, len)) ||
        (st = conv_opts(&c, &mix, &o, 1000)))
        return st;
    st = ts_trace_alibaba(&doc, csv, len, name, o.scale_gpus, &c, &e);
    ts_trace_mix_free(mix);
    return st ? conv_err(st, &e) : emit(out, doc, o.compact);
}

tsched_status tsched_trace_convert_alibaba_file(char **out, const char *path, const tsched_trace_options *opts)
{
    if (!out || !path)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_convert_alibaba_file: %s is NULL", !out ? "out" : "path");
    *out = NULL;
    char *text;
    size_t len;
    tsched_status st = ts_read_file(&text, &len, path);
    if (st)
        return st;
    st = tsched_trace_convert_alibaba(out, text, len, path, opts);
    free(text);
    return st;
}

/* ---------------------------------------------------------------- convert-dcn */

/* Where the job files' texts come from: the caller's arrays, or the folder (read one at a
 * time, in the order they are converted, so the first bad file is the one reported). */
typedef struct dcn_src {
    const char *const *texts;
    const size_t *lens;
    char *buf; /* the folder's: the file last read */
} dcn_src;

/* A job file of the folder: a regular file only. It is opened without blocking, so a FIFO
 * (or a device) named like a job file is refused at once instead of waiting for a writer.
 * Messages as the command line always gave them. */
static tsched_status read_regular(char **text, size_t *len, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return ts_error(TSCHED_E_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return ts_error(TSCHED_E_IO, "%s: not a regular file (a job file must be one)", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return ts_error(TSCHED_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    uint64_t max = ts_limits()->input_bytes;
    ts_read_result r = ts_read_stream(f, max, text, len);
    fclose(f);
    switch (r) {
    case TS_READ_OK: return TSCHED_OK;
    case TS_READ_NUL:
        return ts_error(TSCHED_E_PARSE, "%s: byte %zu is a NUL byte; expected a text document", path, *len);
    case TS_READ_TOO_LARGE:
        return ts_error(TSCHED_E_TOO_LARGE, "%s: more than %llu bytes: exceeds the limit input_bytes = %llu", path,
                        (unsigned long long)max, (unsigned long long)max);
    case TS_READ_IO: return ts_error(TSCHED_E_IO, "%s: read error", path);
    default: return ts_error(TSCHED_E_NOMEM, "%s: out of memory", path);
    }
}

/* Convert `files` (n, matched and not yet ordered); `dir_read` when they are read from the folder.
 * Takes the builder `d`. */
static tsched_status dcn_run(char **out, const char *dir, ts_trace_dcn_file *files, size_t n, dcn_src *src,
                             int dir_read, const tsched_trace_options *o, ts_trace_dcn *d)
{
    ts_trace_err e;
    tsched_status st = ts_trace_dcn_order(files, n, dir, &e);
    if (st)
        st = conv_err(st, &e);
    for (size_t i = 0; i < n && !st; i++) {
        size_t pl = strlen(dir) + strlen(files[i].file) + 2, len;
        char *path = malloc(pl);
        if (!path) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory");
            break;
        }
        snprintf(path, pl, "%s/%s", dir, files[i].file);
        const char *text;
        if (dir_read) {
            free(src->buf);
            src->buf = NULL;
            st = read_regular(&src->buf, &len, path);
            text = src->buf;
        } else {
            text = src->texts[files[i].idx];
            len = src->lens ? src->lens[files[i].idx] : strlen(text);
            st = check_len(path, len);
        }
        if (st == TSCHED_OK && (st = ts_trace_dcn_add(d, text, len, path, files[i].file, &e)))
            st = conv_err(st, &e);
        free(path);
    }
    if (st) {
        ts_trace_dcn_free(d);
        return st;
    }
    json_t *doc;
    if ((st = ts_trace_dcn_finish(&doc, d, &e))) /* frees the builder either way */
        return conv_err(st, &e);
    return emit(out, doc, o->compact);
}

/* The converter's start: the options checked, as the command line always checked them
 * before it opened the folder. */
static tsched_status dcn_begin(ts_trace_dcn **d, tsched_trace_options *o, const tsched_trace_options *opts,
                               const char *dir)
{
    ts_trace_opts c;
    ts_trace_err e;
    tsched_status st;
    if ((st = opts_in(o, opts)))
        return st;
    ts_trace_opts_init(&c, o->compute_ms == 0 ? 1 : o->compute_ms);
    c.seed = o->seed;
    st = ts_trace_dcn_begin(d, dir, o->iterations, o->arrival_window_s, &c, &e);
    return st ? conv_err(st, &e) : st;
}

tsched_status tsched_trace_convert_dcn(char **out, const char *dir, const char *const *names,
                                       const char *const *texts, const size_t *lens, size_t n,
                                       const tsched_trace_options *opts)
{
    if (!out || !dir || (n && (!names || !texts)))
        return ts_error(TSCHED_E_INVALID, "tsched_trace_convert_dcn: %s is NULL",
                        !out ? "out" : !dir ? "dir" : !names ? "names" : "texts");
    *out = NULL;
    tsched_trace_options o;
    ts_trace_dcn *d = NULL;
    tsched_status st = dcn_begin(&d, &o, opts, dir);
    if (st)
        return st;
    ts_trace_dcn_file *files = calloc(n ? n : 1, sizeof *files);
    size_t m = 0;
    if (!files)
        st = ts_error(TSCHED_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n && !st; i++) {
        if (!names[i] || !texts[i])
            st = ts_error(TSCHED_E_INVALID, "tsched_trace_convert_dcn: %s[%zu] is NULL", names[i] ? "texts" : "names",
                          i);
        else if (ts_trace_dcn_match(names[i], &files[m].k)) {
            files[m].file = names[i];
            files[m++].idx = i;
        }
    }
    dcn_src src = {texts, lens, NULL};
    if (!st)
        st = dcn_run(out, dir, files, m, &src, 0, &o, d);
    else
        ts_trace_dcn_free(d);
    free(files);
    return st;
}

/* The folder's job files (names malloc'ed), in the order readdir gives them. */
static tsched_status dcn_list(ts_trace_dcn_file **out, size_t *n, const char *dir)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return ts_error(TSCHED_E_IO, "%s: cannot open the folder: %s", dir, strerror(errno));
    ts_trace_dcn_file *files = NULL;
    size_t cap = 0;
    tsched_status st = TSCHED_OK;
    struct dirent *de;
    *n = 0;
    while ((de = readdir(dh)) != NULL) {
        unsigned long long k;
        if (!ts_trace_dcn_match(de->d_name, &k))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            ts_trace_dcn_file *nf = realloc(files, cap * sizeof *files);
            if (!nf) {
                st = TSCHED_E_NOMEM;
                break;
            }
            files = nf;
        }
        files[*n].k = k;
        if (!(files[*n].file = strdup(de->d_name))) {
            st = TSCHED_E_NOMEM;
            break;
        }
        (*n)++;
    }
    closedir(dh);
    *out = files;
    return st ? ts_error(st, "out of memory") : st;
}

tsched_status tsched_trace_convert_dcn_dir(char **out, const char *dir, const tsched_trace_options *opts)
{
    if (!out || !dir)
        return ts_error(TSCHED_E_INVALID, "tsched_trace_convert_dcn_dir: %s is NULL", !out ? "out" : "dir");
    *out = NULL;
    /* the service forbids files: read the setting (by setting it back) */
    int forbidden = ts_files_forbid(1);
    ts_files_forbid(forbidden);
    if (forbidden)
        return ts_error(TSCHED_E_INVALID, "\"%s\" is a folder name, and the service reads no files: give the files "
                        "themselves", dir);
    tsched_trace_options o;
    ts_trace_dcn *d = NULL;
    tsched_status st = dcn_begin(&d, &o, opts, dir);
    if (st)
        return st;
    ts_trace_dcn_file *files = NULL;
    size_t n = 0;
    dcn_src src = {NULL, NULL, NULL};
    if ((st = dcn_list(&files, &n, dir)) == TSCHED_OK)
        st = dcn_run(out, dir, files, n, &src, 1, &o, d);
    else
        ts_trace_dcn_free(d);
    free(src.buf);
    for (size_t i = 0; i < n; i++)
        free((char *)files[i].file);
    free(files);
    return st;
}

/* ---------------------------------------------------------------- poisson */

tsched_status tsched_trace_poisson(char **out, const tsched_trace_options *opts)
{
    if (!out || !opts) /* opts: the jobs have no default */
        return ts_error(TSCHED_E_INVALID, "tsched_trace_poisson: %s is NULL", !out ? "out" : "opts");
    *out = NULL;
    tsched_trace_options o;
    ts_trace_opts c;
    ts_trace_mix *mix = NULL;
    ts_trace_err e;
    json_t *doc;
    tsched_status st;
    if ((st = opts_in(&o, opts)) || (st = check_common(&o)))
        return st;
    if (!o.sizes || !o.duration_dist)
        return ts_error(TSCHED_E_RANGE, "--%s: required (%s)", o.sizes ? "duration-dist" : "sizes",
                        o.sizes ? "fixed:S, exp:MEAN or lognormal:MU,SIGMA" : "SIZE:WEIGHT,...");
    /* the options first, then the mix, as the command line always did */
    if ((st = ts_trace_poisson_check(o.sizes, o.duration_dist, &e)))
        return conv_err(st, &e);
    if ((st = conv_opts(&c, &mix, &o, 1000)))
        return st;
    st = ts_trace_poisson(&doc, o.jobs, o.mean_interarrival_s, o.sizes, o.duration_dist, &c, &e);
    ts_trace_mix_free(mix);
    return st ? conv_err(st, &e) : emit(out, doc, o.compact);
}
