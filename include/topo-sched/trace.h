/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file trace.h
 * @brief Making `tsched.trace.v1` documents, the job streams the simulator replays
 *        (doc/sim-traces.md): the Alibaba cluster-trace-gpu-v2023 pod CSV, the dcn-simulators
 *        flow sets, seeded Poisson jobs, and the `tsched.model-mix.v1` model mix they draw
 *        from. `topo-sched trace` is a thin wrapper over these calls.
 *
 * Every call returns the document as NUL-terminated text (`*out`, free it with
 * tsched_free()), byte for byte what `topo-sched trace` writes for the same inputs and
 * options: indented by two spaces, or on one line with `compact`. The same inputs, options
 * and seed give the same bytes. Whatever a call returns, tsched_sim_load_trace_string()
 * loads, fabric permitting.
 *
 * Errors: a status and one line (tsched_last_error()) naming the input (its name, the line
 * and the field) or the option, and the value. Options are named as the command line spells
 * them (`--gbits`, `--sizes`), the same words as the fields of ::tsched_trace_options with
 * `-` for `_`. Inputs longer than the `input_bytes` limit are ::TSCHED_E_TOO_LARGE.
 */
#ifndef TOPO_SCHED_TRACE_H
#define TOPO_SCHED_TRACE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Options of the trace calls. Initialise with tsched_trace_options_init() (which sets `size`
 * and the defaults), then change fields directly or from text with tsched_trace_options_set().
 * Fields may be appended in later versions; a caller built against an older header passes its
 * smaller `size` and the fields it does not cover take their defaults (DESIGN 3). Strings are
 * borrowed for the call only. A field that does not apply to a converter is ignored.
 */
typedef struct tsched_trace_options {
    size_t size;                /**< sizeof(tsched_trace_options), set by the init function */
    uint64_t seed;              /**< seed of every draw (`--seed`); default 1 */
    const char *model_mix;      /**< text of a `tsched.model-mix.v1` document (`--model-mix`);
                                     NULL (default) = none: one `dp-ring` phase of `gbits` */
    size_t model_mix_len;       /**< bytes of `model_mix`; 0 = up to its NUL */
    const char *model_mix_name; /**< what messages call the model mix (its file name); NULL = "model-mix" */
    double gbits;               /**< volume of the one phase without a mix (`--gbits`); finite, > 0; default 1 */
    double compute_ms;          /**< computation per iteration without a mix (`--compute-ms`), in
                                     [5e-7, 9.2e12]; 0 (default) = the converter's default: 1000,
                                     convert-dcn 1 */
    uint32_t gpus_per_node;     /**< `tp` of a drawn model that gives none (`--gpus-per-node`),
                                     1 to 65536; default 8 */
    uint32_t scale_gpus;        /**< convert-alibaba: every GPU count times this power of two
                                     (`--scale-gpus`), 1 to 65536; default 1 */
    uint64_t iterations;        /**< convert-dcn: iterations of every job (`--iterations`), 1 to 2^53;
                                     default 10 */
    double arrival_window_s;    /**< convert-dcn: arrivals uniform in [0, W) (`--arrival-window-s`),
                                     W in [0, 9.2e9]; default 10 */
    uint32_t jobs;              /**< poisson: jobs (`--jobs`), 1 to 1,000,000; required */
    double mean_interarrival_s; /**< poisson: mean inter-arrival time in seconds
                                     (`--mean-interarrival-s`), in (0, 9.2e9]; required */
    const char *sizes;          /**< poisson: GPU counts and weights "G:W,G:W,..." (`--sizes`); required */
    const char *duration_dist;  /**< poisson: "fixed:S", "exp:MEAN" or "lognormal:MU,SIGMA"
                                     (`--duration-dist`); required */
    int compact;                /**< 1: the document on one line (`--compact`); default 0, indented */
} tsched_trace_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_trace_options_init(tsched_trace_options *opts);

/**
 * Set the option `name` (the command line's long name without its dashes: "seed", "gbits",
 * "compute-ms", "gpus-per-node", "scale-gpus", "iterations", "arrival-window-s", "jobs",
 * "mean-interarrival-s", "sizes", "duration-dist") from its text `value`, checked as the
 * command line checks it; "sizes" and "duration-dist" keep the pointer `value` (it must
 * outlive the options' use). On error `opts` is unchanged. Errors: ::TSCHED_E_RANGE naming
 * the option and the text; ::TSCHED_E_INVALID (NULL argument, bad `size`, unknown name).
 */
TSCHED_API tsched_status tsched_trace_options_set(tsched_trace_options *opts, const char *name, const char *value);

/**
 * Check a `tsched.model-mix.v1` document: `text` (`len` bytes, 0 = up to its NUL; `name` names
 * it in messages, NULL = "model-mix"). Errors: ::TSCHED_E_PARSE, ::TSCHED_E_FORMAT, ::TSCHED_E_TYPE,
 * ::TSCHED_E_RANGE naming the field; ::TSCHED_E_TOO_LARGE above `input_bytes`.
 */
TSCHED_API tsched_status tsched_trace_mix_check(const char *text, size_t len, const char *name);

/**
 * convert-alibaba: the trace of the pod CSV `csv` (`len` bytes; `name` names it in messages
 * and its base name names the trace, NULL = "-"). Options used: seed, model_mix, gbits,
 * compute_ms, gpus_per_node, scale_gpus, compact (`opts` NULL = the defaults). `*out` is
 * NULL on error. Errors: ::TSCHED_E_PARSE (a malformed row, a NUL byte), ::TSCHED_E_RANGE
 * (a value or an option out of range), those of the model mix, ::TSCHED_E_TOO_LARGE,
 * ::TSCHED_E_INVALID (NULL `out` or `csv`, bad `size`), ::TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_trace_convert_alibaba(char **out, const char *csv, size_t len, const char *name,
                                                      const tsched_trace_options *opts);

/**
 * convert-alibaba on the file `path` ("-" = standard input), which also names the input.
 * Errors: those of tsched_trace_convert_alibaba(), ::TSCHED_E_IO (the file cannot be read),
 * ::TSCHED_E_INVALID inside the service (it reads no files).
 */
TSCHED_API tsched_status tsched_trace_convert_alibaba_file(char **out, const char *path,
                                                           const tsched_trace_options *opts);

/**
 * convert-dcn: the trace of one dcn-simulators folder given as `n` files: `names[i]` (the
 * file's name in the folder) holding `texts[i]` (`lens[i]` bytes; `lens` NULL = each up to
 * its NUL). Names other than `job_<K>-<MODEL>.txt` are ignored, the others taken in the
 * order of K. `dir` (the folder's path) names the trace (its last two components) and, with
 * each file's name, the inputs in messages. Options used: seed, compute_ms, iterations,
 * arrival_window_s, compact. Errors: ::TSCHED_E_PARSE and ::TSCHED_E_RANGE naming the file,
 * line and field; ::TSCHED_E_DUPLICATE (a K twice); ::TSCHED_E_NOT_FOUND (no job file);
 * ::TSCHED_E_TOO_LARGE; ::TSCHED_E_INVALID; ::TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_trace_convert_dcn(char **out, const char *dir, const char *const *names,
                                                  const char *const *texts, const size_t *lens, size_t n,
                                                  const tsched_trace_options *opts);

/**
 * convert-dcn on the folder `dir`: its `job_<K>-<MODEL>.txt` entries, each of which must be a
 * regular file (opened without blocking, so a FIFO is refused at once). Errors: those of
 * tsched_trace_convert_dcn(), ::TSCHED_E_IO (the folder or a file cannot be read),
 * ::TSCHED_E_INVALID inside the service (it reads no files).
 */
TSCHED_API tsched_status tsched_trace_convert_dcn_dir(char **out, const char *dir, const tsched_trace_options *opts);

/**
 * poisson: `jobs` synthetic jobs, exponential inter-arrivals of mean `mean_interarrival_s`,
 * sizes from `sizes`, durations from `duration_dist`, models from the mix or `gbits` and
 * `compute_ms`. Errors: ::TSCHED_E_RANGE naming the option (a missing required one too),
 * those of the model mix, ::TSCHED_E_INVALID, ::TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_trace_poisson(char **out, const tsched_trace_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_TRACE_H */
