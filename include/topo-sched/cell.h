/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file cell.h
 * @brief Crius Cells (doc/cell.md): a training job fixed to one GPU pool, a GPU count and a
 *        number of pipeline stages, with data/tensor parallelism inside each stage left open;
 *        stage determination, the cost model and its three plan spaces, Cell-guided tuning,
 *        and the Cell-based scheduler of adaptive-parallelism jobs on heterogeneous GPUs.
 *
 * A **pool** is the set of nodes of a fabric with one GPU type and one GPU count per node,
 * named `TYPE/G` (`A100/8`); pools are listed in the byte order of their names. GPU figures
 * come from a catalogue (`tsched.gpus.v1`, a built-in one from vendor data sheets); measured
 * numbers may replace the model through an op profile (`tsched.op-profile.v1`).
 *
 * Catalogues and profiles are immutable once loaded and may be shared between threads; a
 * `tsched_cell` is immutable; a `tsched_crius` is used by one thread at a time. No function
 * keeps a pointer to a caller's object after it returns (the scheduler copies the fabric's
 * pools and free GPUs at tsched_crius_new(), Cells copy what tsched_cell_tune() needs).
 */
#ifndef TOPO_SCHED_CELL_H
#define TOPO_SCHED_CELL_H

#include "common.h"
#include "topology.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/** GPU catalogue (`tsched.gpus.v1`). */
typedef struct tsched_gpu_catalog tsched_gpu_catalog;
/** Measured layer and collective times of one model on one GPU type (`tsched.op-profile.v1`). */
typedef struct tsched_op_profile tsched_op_profile;
/** One estimated Cell (immutable). */
typedef struct tsched_cell tsched_cell;
/** The Cell-based scheduler's state across events. */
typedef struct tsched_crius tsched_crius;

/** Which per-stage (dp, tp) plans a Cell estimate searches (doc/cell.md §3.3). */
typedef enum tsched_plan_space {
    TSCHED_PLANS_ASSEMBLED = 0, /**< t = 1 and TP-max per stage: the paper's estimate */
    TSCHED_PLANS_TUNED = 1,     /**< the favoured half of each stage (Cell-guided tuning) */
    TSCHED_PLANS_EXHAUSTIVE = 2 /**< every admissible t per stage (reference) */
} tsched_plan_space;

/** What the scheduler maximises. */
typedef enum tsched_crius_objective {
    TSCHED_CRIUS_NORMALIZED = 0, /**< sum of throughput / reference throughput (default) */
    TSCHED_CRIUS_THROUGHPUT = 1  /**< sum of throughputs (sequences per second) */
} tsched_crius_objective;

/** Kind of scheduling event (Algorithm 1). */
typedef enum tsched_crius_event {
    TSCHED_CRIUS_ARRIVAL = 0,  /**< place new and pending jobs */
    TSCHED_CRIUS_DEPARTURE = 1 /**< the same, then up to `depth` greedy improvements */
} tsched_crius_event;

/** One GPU type of a catalogue. Output struct: set `size` before the call (DESIGN 3). */
typedef struct tsched_gpu_info {
    size_t size;       /**< sizeof(tsched_gpu_info), set by the caller */
    const char *name;  /**< owned by the catalogue */
    double tflops;     /**< dense FP16/BF16 tensor peak */
    double mem_gib;    /**< memory per GPU */
    double intra_gbps; /**< one direction per GPU inside a node (NVLink or PCIe) */
    double efficiency; /**< share of the peak reached, (0, 1] */
} tsched_gpu_info;

/* ---- GPU catalogue ----------------------------------------------------------------------- */

/** The built-in catalogue (doc/cell.md, with sources). Free with tsched_gpu_catalog_free(). */
TSCHED_API tsched_status tsched_gpu_catalog_default(tsched_gpu_catalog **out);
/**
 * Read a `tsched.gpus.v1` file ("-" = stdin). Errors name the file and field:
 * TSCHED_E_IO, TSCHED_E_PARSE, TSCHED_E_FORMAT, TSCHED_E_TYPE, TSCHED_E_NOT_FOUND (a missing
 * field), TSCHED_E_RANGE (a non-positive figure, efficiency outside (0, 1]),
 * TSCHED_E_DUPLICATE (a name twice), TSCHED_E_TOO_LARGE.
 */
TSCHED_API tsched_status tsched_gpu_catalog_load_file(tsched_gpu_catalog **out, const char *path);
/** tsched_gpu_catalog_load_file() from `len` bytes of memory. */
TSCHED_API tsched_status tsched_gpu_catalog_load_string(tsched_gpu_catalog **out, const char *json, size_t len);
/** Merge `src` into `dst`; an entry of the same name is replaced by `src`'s. */
TSCHED_API tsched_status tsched_gpu_catalog_merge(tsched_gpu_catalog *dst, const tsched_gpu_catalog *src);
/** Number of GPU types (0 for NULL). */
TSCHED_API uint32_t tsched_gpu_catalog_count(const tsched_gpu_catalog *cat);
/** Entry `index` (name order). TSCHED_E_INVALID for NULL or a bad index or size. */
TSCHED_API tsched_status tsched_gpu_catalog_get(tsched_gpu_info *info, const tsched_gpu_catalog *cat, uint32_t index);
/** Entry by name; TSCHED_E_NOT_FOUND naming it when absent. */
TSCHED_API tsched_status tsched_gpu_catalog_find(tsched_gpu_info *info, const tsched_gpu_catalog *cat,
                                                 const char *name);
/** Write `tsched.gpus.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_gpu_catalog_to_json(char **out, const tsched_gpu_catalog *cat);
/** Free a catalogue (NULL is ignored). */
TSCHED_API void tsched_gpu_catalog_free(tsched_gpu_catalog *cat);

/* ---- op profile --------------------------------------------------------------------------- */

/** Read a `tsched.op-profile.v1` file ("-" = stdin); errors as the catalogue's, naming the field. */
TSCHED_API tsched_status tsched_op_profile_load_file(tsched_op_profile **out, const char *path);
/** tsched_op_profile_load_file() from `len` bytes of memory. */
TSCHED_API tsched_status tsched_op_profile_load_string(tsched_op_profile **out, const char *json, size_t len);
/** GPU type the profile was measured on (owned by the profile; NULL for NULL). */
TSCHED_API const char *tsched_op_profile_gpu_type(const tsched_op_profile *p);
/** Number of layer entries (0 for NULL). */
TSCHED_API uint32_t tsched_op_profile_layers(const tsched_op_profile *p);
/** Free a profile (NULL is ignored). */
TSCHED_API void tsched_op_profile_free(tsched_op_profile *p);

/* ---- pools, stages, Cells ------------------------------------------------------------------ */

/**
 * Pool names "TYPE/G" of a fabric in name order (byte order). One allocation: a single
 * tsched_free(*names) releases the array and its strings. A fabric without nodes gives
 * `*count` = 0 and `*names` = NULL. Errors: TSCHED_E_INVALID, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_cell_pools(char ***names, uint32_t *count, const tsched_topology *topo);

/**
 * Stage determination alone (doc/cell.md §2): `first_layer[stages + 1]` (the last entry is
 * the model's layer count) and `gpus[stages]`, arrays of the caller. `profile` may be NULL
 * (the analytic model). Errors: TSCHED_E_NOT_FOUND (`job` has no model), TSCHED_E_RANGE
 * (stages or n_gpus 0, more stages than layers or than GPUs, naming which; a profile whose
 * layer count differs from the model), TSCHED_E_INVALID (NULL).
 */
TSCHED_API tsched_status tsched_cell_stages(uint32_t *first_layer, uint32_t *gpus, const tsched_job *job,
                                            const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages);

/**
 * Estimate one Cell: `n_gpus` GPUs of pool `pool` of `topo`, `stages` stages, best plan of
 * `space`. An infeasible Cell (more stages than layers or GPUs, GPUs not a multiple of the
 * node size, out of memory in every plan) is TSCHED_OK with tsched_cell_feasible() = 0 and
 * a reason. `profile` may be NULL; it applies only when its GPU type is the pool's. The
 * caller frees `*out` with tsched_cell_free(). Errors: TSCHED_E_INVALID (NULL, a bad space,
 * n_gpus or stages 0), TSCHED_E_NOT_FOUND (unknown pool, the pool's GPU type not in `cat`,
 * the job has no model), TSCHED_E_RANGE (MoE without a profile, a profile of another layer
 * count), TSCHED_E_TOO_LARGE (n_gpus above 16,777,216, or a stage count whose plan options
 * would not fit), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_cell_estimate(tsched_cell **out, const tsched_topology *topo, const char *pool,
                                              const tsched_gpu_catalog *cat, const tsched_job *job,
                                              const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages,
                                              tsched_plan_space space);
/**
 * Cell-guided tuning (doc/cell.md §4): the `tuned` plan of the Cell `estimate` was made for,
 * seeded by its assembled favours. `*out` is a new Cell (free with tsched_cell_free()).
 * Errors: TSCHED_E_INVALID (NULL), TSCHED_E_STATE (the Cell is infeasible), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_cell_tune(tsched_cell **out, const tsched_cell *estimate);
/** 1 if the Cell has a feasible plan, 0 if not or NULL. */
TSCHED_API int tsched_cell_feasible(const tsched_cell *c);
/** Why the Cell is infeasible ("" when feasible or NULL). Owned by the Cell. */
TSCHED_API const char *tsched_cell_reason(const tsched_cell *c);
/** Iteration time T in seconds of the best plan (0 if infeasible or NULL). */
TSCHED_API double tsched_cell_iteration_s(const tsched_cell *c);
/** Sequences per second, global batch / T (0 if infeasible or NULL). */
TSCHED_API double tsched_cell_throughput(const tsched_cell *c);
/** Number of stages S (0 for NULL). */
TSCHED_API uint32_t tsched_cell_num_stages(const tsched_cell *c);
/** Number of GPUs N (0 for NULL). */
TSCHED_API uint32_t tsched_cell_gpus(const tsched_cell *c);
/** Pool name (owned by the Cell; NULL for NULL). */
TSCHED_API const char *tsched_cell_pool(const tsched_cell *c);
/** Plan space searched and the number of plans in it (the product of per-stage options).
 * A product above INT64_MAX is not representable in the JSON documents: it is reported as
 * INT64_MAX (2^63 - 1), which no exact product reaches, meaning "more than 2^63 - 1". */
TSCHED_API tsched_status tsched_cell_space(tsched_plan_space *space, uint64_t *plans_evaluated,
                                           const tsched_cell *c);
/**
 * Stage `stage` of the best plan: its first layer, layer count, GPUs, dp, tp, time tau_s in
 * seconds and memory per GPU in bytes; any out may be NULL. Stage ranges are set for an
 * infeasible Cell whose stages could be cut (plan fields 0). Errors: TSCHED_E_INVALID (NULL,
 * stage out of range), TSCHED_E_STATE (the Cell could not be cut into stages).
 */
TSCHED_API tsched_status tsched_cell_stage(uint32_t *first_layer, uint32_t *layers, uint32_t *gpus, uint32_t *dp,
                                           uint32_t *tp, double *time_s, double *mem_bytes, const tsched_cell *c,
                                           uint32_t stage);
/** Write one element of `tsched.cells.v1`'s `cells` array; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_cell_to_json(char **out, const tsched_cell *c);
/** Free a Cell (NULL is ignored). */
TSCHED_API void tsched_cell_free(tsched_cell *c);

/**
 * The document `topo-sched cells` prints (`tsched.cells.v1`, doc/cell.md §8): the job's
 * candidate Cells on every pool of `topo` whose GPU type is in `cat` (the others listed in
 * `unknown_gpu_types`), N = N_G/2 (N_G even), N_G and 2 N_G GPUs (or `gpus` when not 0),
 * S = 1, 2, 4, ... up to min(N, layers) stages (or `stages` when not 0), best plan of
 * `plans`; `type` (may be NULL) keeps only the pools of that GPU type; `profile` (may be
 * NULL) applies to the pools of its GPU type; `timing` 0 leaves out `solve_ms`. The caller
 * frees `*out` with tsched_free(). Errors begin with the input they concern, so a caller can
 * name its source: "job: " (no model, MoE without a fitting profile, sizes the estimate
 * refuses), "profile: " (layer count, a profile the estimate refuses), "type: " (no pool of
 * that type), "gpus: " (`gpus` above the Cell size limit), "topology: "; TSCHED_E_INVALID
 * (NULL `out`, `topo`, `job` or `cat`, a bad `plans`), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_cell_list_to_json(char **out, const tsched_topology *topo, const tsched_job *job,
                                                  const tsched_gpu_catalog *cat, const tsched_op_profile *profile,
                                                  const char *type, uint32_t gpus, uint32_t stages,
                                                  tsched_plan_space plans, int timing);
/**
 * tsched_cell_list_to_json() laid out as `opts` asks (NULL: indented, with `solve_ms`;
 * `opts->timing` replaces `timing`). The compact text is the same document without
 * whitespace. Errors as tsched_cell_list_to_json(), and TSCHED_E_INVALID for a bad
 * `opts->size`.
 */
TSCHED_API tsched_status tsched_cell_list_to_json_opts(char **out, const tsched_topology *topo, const tsched_job *job,
                                                       const tsched_gpu_catalog *cat, const tsched_op_profile *profile,
                                                       const char *type, uint32_t gpus, uint32_t stages,
                                                       tsched_plan_space plans, const tsched_output_opts *opts);

/* ---- the Cell-based scheduler --------------------------------------------------------------- */

/**
 * A scheduler over the pools of `topo` whose GPU type is in `cat` (both copied: neither needs
 * to outlive it). Node free GPUs are read now; running jobs' GPUs must be busy in `topo`.
 * Free with tsched_crius_free(). Errors: TSCHED_E_INVALID, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_crius_new(tsched_crius **out, const tsched_topology *topo,
                                          const tsched_gpu_catalog *cat);
/** Search depth D, 0..16 (default 3). TSCHED_E_RANGE naming `depth` otherwise. */
TSCHED_API tsched_status tsched_crius_set_depth(tsched_crius *cr, uint32_t depth);
/** Objective (default normalized). TSCHED_E_INVALID for a bad value. */
TSCHED_API tsched_status tsched_crius_set_objective(tsched_crius *cr, tsched_crius_objective obj);
/**
 * Queue a job (copied; it needs a model) submitted at `submit` seconds; `*index` (may be
 * NULL) is its index, in queue order. Errors: TSCHED_E_NOT_FOUND (no model),
 * TSCHED_E_DUPLICATE (a queued job of that name), TSCHED_E_RANGE (submit < 0 or not finite,
 * MoE), TSCHED_E_TOO_LARGE (more than 8,388,608 GPUs: 2 N_G must stay a valid Cell),
 * TSCHED_E_INVALID, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_crius_add_job(uint32_t *index, tsched_crius *cr, const tsched_job *job, double submit);
/**
 * Mark job `job` running in Cell (pool, n_gpus, stages) on `count` nodes (fabric node
 * indices) holding `node_gpus[i]` GPUs each; those GPUs are busy in the fabric the
 * scheduler was made from. Errors: TSCHED_E_NOT_FOUND (unknown pool or job),
 * TSCHED_E_INVALID (a node of another pool, GPUs that do not sum to n_gpus, more than the
 * node has, a node listed twice, a Cell the model finds infeasible), TSCHED_E_STATE (the
 * GPUs are free in the fabric or held by another running job).
 */
TSCHED_API tsched_status tsched_crius_set_running(tsched_crius *cr, uint32_t job, const char *pool, uint32_t n_gpus,
                                                  uint32_t stages, const uint32_t *nodes, const uint32_t *node_gpus,
                                                  uint32_t count);
/** Read a `tsched.crius-queue.v1` file and queue its jobs (running ones too). Errors name the field. */
TSCHED_API tsched_status tsched_crius_load_queue(tsched_crius *cr, const char *path);
/** tsched_crius_load_queue() from `len` bytes of memory. On error no job is added. */
TSCHED_API tsched_status tsched_crius_load_queue_string(tsched_crius *cr, const char *json, size_t len);
/** A departure: the job leaves and its GPUs are free. TSCHED_E_NOT_FOUND / TSCHED_E_INVALID. */
TSCHED_API tsched_status tsched_crius_remove_job(tsched_crius *cr, uint32_t job);
/** Run one event (doc/cell.md §5). Deterministic. Errors: TSCHED_E_INVALID, TSCHED_E_NOMEM. */
TSCHED_API tsched_status tsched_crius_schedule(tsched_crius *cr, tsched_crius_event event);
/** Number of jobs ever added (indices stay valid after removal; 0 for NULL). */
TSCHED_API uint32_t tsched_crius_num_jobs(const tsched_crius *cr);
/** Name of a job (owned by the scheduler; NULL for a bad index). */
TSCHED_API const char *tsched_crius_job_name(const tsched_crius *cr, uint32_t job);
/** 1 if the job runs after the last event, 0 if pending, removed or a bad index. */
TSCHED_API int tsched_crius_job_running(const tsched_crius *cr, uint32_t job);
/** 1 if the last event changed the job's Cell or nodes (or started it), else 0. */
TSCHED_API int tsched_crius_job_changed(const tsched_crius *cr, uint32_t job);
/** Why a job is pending ("" if running; NULL for a bad index). Owned by the scheduler. */
TSCHED_API const char *tsched_crius_job_reason(const tsched_crius *cr, uint32_t job);
/** Reference throughput ref_j of the job (0 if none is feasible or a bad index). */
TSCHED_API double tsched_crius_job_reference(const tsched_crius *cr, uint32_t job);
/**
 * The running job's Cell (assembled plan), owned by `cr` until the next event or job
 * change. Errors: TSCHED_E_INVALID (NULL, bad index), TSCHED_E_STATE (pending or removed).
 */
TSCHED_API tsched_status tsched_crius_job_cell(const tsched_cell **cell, const tsched_crius *cr, uint32_t job);
/**
 * The running job's nodes (fabric indices, ascending) and GPUs on each; `*count` gets the
 * number. Errors: TSCHED_E_BUFFER (`cap` too small; `*count` is the size needed),
 * TSCHED_E_STATE (pending), TSCHED_E_INVALID.
 */
TSCHED_API tsched_status tsched_crius_job_nodes(uint32_t *nodes, uint32_t *node_gpus, size_t cap, size_t *count,
                                                const tsched_crius *cr, uint32_t job);
/** Objective value of the committed state after the last event. */
TSCHED_API double tsched_crius_value(const tsched_crius *cr);
/** Write `tsched.crius-schedule.v1` of the last event; `with_time` = 0 drops `solve_ms`. */
TSCHED_API tsched_status tsched_crius_to_json(char **out, const tsched_crius *cr, int with_time);
/** tsched_crius_to_json() laid out as `opts` asks (NULL: indented, with `solve_ms`); errors as
 *  tsched_crius_to_json(), and TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_crius_to_json_opts(char **out, const tsched_crius *cr, const tsched_output_opts *opts);
/** Free a scheduler (NULL is ignored). */
TSCHED_API void tsched_crius_free(tsched_crius *cr);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_CELL_H */
