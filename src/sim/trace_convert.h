/* Internal: the trace converters (doc/sim-traces.md) on memory buffers: the Alibaba
 * cluster-trace-gpu-v2023 pod CSV, the dcn-simulators flow files, the Poisson generator and
 * the tsched.model-mix.v1 document they share. They read no file, print nothing and keep no
 * state: trace_api.c makes them the public tsched_trace_* calls (include/topo-sched/trace.h),
 * which read the inputs and write the document for `topo-sched trace`, the service and the
 * bindings.
 *
 * Errors: a tsched_status and one line in err->msg naming the input (the `name` given for
 * it, the line and the field) or the option, as the command line spells it ("--gbits: ..."),
 * and the value. Every document a converter returns holds only
 * values the trace reader (trace_load.c) accepts, fabric permitting (trace_ranges.h). */
#ifndef TS_SIM_TRACE_CONVERT_H
#define TS_SIM_TRACE_CONVERT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "topo-sched/common.h"

typedef struct ts_trace_err {
    char msg[1024]; /* one line, no trailing newline */
} ts_trace_err;

/* A parsed tsched.model-mix.v1 document. */
typedef struct ts_trace_mix ts_trace_mix;

/* Parse the model mix `text` (len bytes; `name` names it in messages). */
tsched_status ts_trace_mix_parse(ts_trace_mix **out, const char *text, size_t len, const char *name,
                                 ts_trace_err *err);
void ts_trace_mix_free(ts_trace_mix *mx);

/* What every converter shares; ts_trace_opts_init() sets the defaults. */
typedef struct ts_trace_opts {
    uint64_t seed;          /* --seed, 1 */
    const ts_trace_mix *mix; /* --model-mix, NULL */
    double gbits;           /* --gbits, 1 */
    double compute_ms;      /* --compute-ms: 1000, convert-dcn 1 */
    uint32_t gpus_per_node; /* --gpus-per-node, 8 */
} ts_trace_opts;

void ts_trace_opts_init(ts_trace_opts *o, double compute_ms);

/* The ranges of the options (messages name them as the command line does): --gbits finite and
 * > 0, --compute-ms in [5e-7, 9.2e12] (what the trace reader takes). */
tsched_status ts_trace_check_gbits(double gbits, const char *text, ts_trace_err *err);
tsched_status ts_trace_check_compute_ms(double ms, const char *text, ts_trace_err *err);
/* convert-dcn's --iterations, [1, 2^53], and --arrival-window-s, [0, 9.2e9]. `text` (may be
 * NULL) is the option's text for the message. */
tsched_status ts_trace_check_iterations(uint64_t n, const char *text, ts_trace_err *err);
tsched_status ts_trace_check_window(double w, const char *text, ts_trace_err *err);

/* convert-alibaba: the pod CSV `text` (len bytes, no NUL; `name` for messages, its base name
 * names the trace) with every job's GPUs times `scale_gpus` (a power of two, 1 to 65536). */
tsched_status ts_trace_alibaba(json_t **out, const char *text, size_t len, const char *name, uint32_t scale_gpus,
                               const ts_trace_opts *o, ts_trace_err *err);

/* convert-dcn: the job files of one folder. The caller lists the folder, keeps the names
 * ts_trace_dcn_match() accepts, orders them with ts_trace_dcn_order(), reads each file and
 * adds it in that order. */
#define TS_TRACE_DCN_DEFAULT_ITERATIONS 10
#define TS_TRACE_DCN_DEFAULT_WINDOW_S 10.0
typedef struct ts_trace_dcn_file {
    unsigned long long k; /* the K of job_<K>-<MODEL>.txt */
    const char *file;     /* the file's name (the caller owns it) */
    size_t idx;           /* the caller's: where the file's text is (kept by the sort) */
} ts_trace_dcn_file;
/* 1 if `file` is a job_<K>-<MODEL>.txt name, with K in *k. */
int ts_trace_dcn_match(const char *file, unsigned long long *k);
/* Sort by K (then name); a repeated K is an error naming `dir` and both files. */
tsched_status ts_trace_dcn_order(ts_trace_dcn_file *files, size_t n, const char *dir, ts_trace_err *err);
typedef struct ts_trace_dcn ts_trace_dcn;
/* Start the trace of folder `dir` (its last two components name it). --iterations in [1, 2^53],
 * --arrival-window-s in [0, 9.2e9]. */
tsched_status ts_trace_dcn_begin(ts_trace_dcn **out, const char *dir, uint64_t iterations, double window_s,
                                 const ts_trace_opts *o, ts_trace_err *err);
/* One job from the file `file` (its name in the folder) of contents text[0..len); `path`
 * names it in messages. */
tsched_status ts_trace_dcn_add(ts_trace_dcn *d, const char *text, size_t len, const char *path, const char *file,
                               ts_trace_err *err);
/* The document (the builder is freed either way). */
tsched_status ts_trace_dcn_finish(json_t **out, ts_trace_dcn *d, ts_trace_err *err);
void ts_trace_dcn_free(ts_trace_dcn *d);

/* poisson: `jobs` jobs (1 to TS_TRACE_MAX_JOBS), exponential inter-arrivals of mean
 * `mean_s`, sizes and durations from the --sizes and --duration-dist texts. */
#define TS_TRACE_MAX_JOBS 1000000u
/* Only check the --sizes and --duration-dist texts (either may be NULL: not checked). */
tsched_status ts_trace_poisson_check(const char *sizes, const char *duration, ts_trace_err *err);
tsched_status ts_trace_poisson(json_t **out, uint32_t jobs, double mean_s, const char *sizes, const char *duration,
                               const ts_trace_opts *o, ts_trace_err *err);

#endif
