/* The service's trace ops (doc/serve.md): trace-convert-alibaba, trace-convert-dcn and
 * trace-poisson answer the document `topo-sched trace` writes with --compact for the same
 * inputs, through the same tsched_trace_* calls. The inputs are request fields (the service
 * reads no files); the options are the command's, given as JSON numbers or as the text the
 * command line takes, and checked by tsched_trace_options_set exactly as the command does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/numfmt.h"
#include "service_internal.h"

const char *const ts_svc_trace_alibaba_fields[] = {"text", "name", "model-mix", NULL};
const char *const ts_svc_trace_alibaba_options[] = {"seed",          "gbits",      "compute-ms",
                                                    "gpus-per-node", "scale-gpus", "compact", NULL};
const char *const ts_svc_trace_dcn_fields[] = {"dir", "files", NULL};
const char *const ts_svc_trace_dcn_options[] = {"seed", "compute-ms", "iterations", "arrival-window-s", "compact",
                                                NULL};
const char *const ts_svc_trace_poisson_fields[] = {"model-mix", NULL};
const char *const ts_svc_trace_poisson_options[] = {
    "jobs", "mean-interarrival-s", "sizes", "duration-dist", "seed", "gbits", "compute-ms", "gpus-per-node", "compact",
    NULL};

/* The library names an option as the command line does ("--gbits: ..."); the request's is
 * "options.gbits". */
static tsched_status in_options(tsched_status st)
{
    const char *msg = tsched_last_error();
    if (st == TSCHED_OK || strncmp(msg, "--", 2) != 0)
        return st;
    char *rest = strdup(msg + 2);
    if (!rest)
        return st;
    ts_error(st, "options.%s", rest);
    free(rest);
    return st;
}

/* What every trace op reads: the options, the strings they keep by pointer (sizes,
 * duration-dist: copies, freed with it) and the model mix. */
typedef struct trace_in {
    tsched_trace_options o;
    char *kept[2], *mix;
    int owned; /* mix is ours to free */
} trace_in;

static void trace_in_free(trace_in *t)
{
    if (t->owned)
        free(t->mix);
    free(t->kept[0]);
    free(t->kept[1]);
}

/* The op's options into t->o (every one but compact goes through tsched_trace_options_set;
 * numbers are given to it as the shortest text that reads back to the same value), and the
 * optional model mix of field "model-mix" (an object or its JSON text). */
static tsched_status read_in(trace_in *t, const svc_req *req, const char *const *names)
{
    memset(t, 0, sizeof *t);
    tsched_trace_options_init(&t->o);
    t->o.compact = 1; /* the service's answers are compact */
    const json_t *all = ts_svc_options(req);
    tsched_status st = TSCHED_OK;
    size_t kept = 0;
    for (; *names && !st; names++) {
        const json_t *v = all ? json_object_get(all, *names) : NULL;
        char buf[40];
        const char *s = buf;
        if (!v || json_is_null(v) || !strcmp(*names, "compact"))
            continue; /* compact: the answer is compact whatever it says */
        if (json_is_string(v))
            s = json_string_value(v);
        else if (json_is_integer(v))
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            ts_fmt_double(buf, sizeof buf, json_real_value(v));
        else
            return ts_error(TSCHED_E_TYPE, "options.%s: expected a number or a string, got %s", *names,
                            ts_json_type_name(v));
        if (!strcmp(*names, "sizes") || !strcmp(*names, "duration-dist")) {
            if (kept == 2 || !(s = t->kept[kept++] = strdup(s)))
                return ts_error(TSCHED_E_NOMEM, "out of memory");
        }
        st = in_options(tsched_trace_options_set(&t->o, *names, s));
    }
    size_t len;
    if (st || (st = ts_svc_doc(&t->mix, &len, &t->owned, req, "model-mix", 0)) || !t->mix)
        return st;
    t->o.model_mix = t->mix;
    t->o.model_mix_len = len;
    t->o.model_mix_name = "model-mix";
    return TSCHED_OK;
}

tsched_status ts_svc_op_trace_alibaba(char **result, svc_req *req)
{
    trace_in t;
    const char *csv = NULL, *name = NULL;
    const json_t *v = json_object_get(req->root, "name");
    tsched_status st;
    if (!(st = read_in(&t, req, ts_svc_trace_alibaba_options)) && !(st = ts_svc_str(&csv, req, "text")) &&
        !(v && !json_is_null(v) && (st = ts_svc_str(&name, req, "name")))) {
        size_t len = json_string_length(json_object_get(req->root, "text"));
        st = in_options(tsched_trace_convert_alibaba(result, csv, len, name, &t.o));
    }
    trace_in_free(&t);
    return st;
}

/* The files of field "files" (an object: name -> text) as the arrays of tsched_trace_convert_dcn. */
static tsched_status read_files(const char ***names, const char ***texts, size_t **lens, size_t *n,
                                const svc_req *req)
{
    const json_t *files = json_object_get(req->root, "files");
    if (!files || json_is_null(files))
        return ts_error(TSCHED_E_NOT_FOUND, "files: missing required field");
    if (!json_is_object(files))
        return ts_error(TSCHED_E_TYPE, "files: expected an object of file names and their texts, got %s",
                        ts_json_type_name(files));
    size_t cap = json_object_size(files) + 1;
    *names = calloc(cap, sizeof **names);
    *texts = calloc(cap, sizeof **texts);
    *lens = calloc(cap, sizeof **lens);
    if (!*names || !*texts || !*lens)
        return ts_error(TSCHED_E_NOMEM, "out of memory");
    const char *key;
    const json_t *t;
    json_object_foreach((json_t *)files, key, t) {
        if (!json_is_string(t))
            return ts_error(TSCHED_E_TYPE, "files.%s: expected a string (the file's text), got %s", key,
                            ts_json_type_name(t));
        (*names)[*n] = key;
        (*texts)[*n] = json_string_value(t);
        (*lens)[(*n)++] = json_string_length(t);
    }
    return TSCHED_OK;
}

tsched_status ts_svc_op_trace_dcn(char **result, svc_req *req)
{
    trace_in t;
    const char *dir, **names = NULL, **texts = NULL;
    size_t *lens = NULL, n = 0;
    tsched_status st;
    if (!(st = read_in(&t, req, ts_svc_trace_dcn_options)) && !(st = ts_svc_str(&dir, req, "dir")) &&
        !(st = read_files(&names, &texts, &lens, &n, req)))
        st = in_options(tsched_trace_convert_dcn(result, dir, names, texts, lens, n, &t.o));
    free(names);
    free(texts);
    free(lens);
    trace_in_free(&t);
    return st;
}

tsched_status ts_svc_op_trace_poisson(char **result, svc_req *req)
{
    trace_in t;
    tsched_status st;
    if (!(st = read_in(&t, req, ts_svc_trace_poisson_options))) {
        if (!t.o.jobs || !t.o.mean_interarrival_s || !t.o.sizes || !t.o.duration_dist)
            st = ts_error(TSCHED_E_NOT_FOUND, "options: jobs, mean-interarrival-s, sizes and duration-dist are required");
        else
            st = in_options(tsched_trace_poisson(result, &t.o));
    }
    trace_in_free(&t);
    return st;
}
