/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file sim.h
 * @brief Flow-level simulation of training jobs sharing a fabric (doc/sim.md): jobs arrive,
 *        wait, are placed, iterate (computation, then phases of flows), and finish; flows share
 *        links by strict priority levels with max-min fairness inside a level; the library's
 *        own placement, routing and priority modules are the policies.
 *
 * Time is an int64_t count of nanoseconds. One simulation is used by one thread at a time;
 * results are frozen snapshots independent of the simulation.
 */
#ifndef TOPO_SCHED_SIM_H
#define TOPO_SCHED_SIM_H

#include "cell.h"
#include "common.h"
#include "topology.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque simulation. */
typedef struct tsched_sim tsched_sim;
/** Opaque frozen results of a simulation. */
typedef struct tsched_sim_result tsched_sim_result;

/** Which policy tsched_sim_set_policy() sets (scenario fields of doc/sim.md). */
typedef enum tsched_sim_policy {
    TSCHED_SIM_QUEUE = 0,     /**< "fifo" (default) or "ff" (fewest GPUs first) */
    TSCHED_SIM_PLACEMENT = 1, /**< "first-fit", "best-fit" (default), "random-fit", "gpu-pack", "topo-aware",
                                   "exhaustive", "mip" */
    TSCHED_SIM_ROUTING = 2,   /**< "greedy" (default), "ecmp", "balanced-ecmp", "ilp", "source", "ideal" */
    TSCHED_SIM_REROUTE = 3,   /**< "none" (default) or "refresh" */
    TSCHED_SIM_PRIORITY = 4,  /**< "none" (default), "fixed", "crux", "sincronia", "varys", "taccl", "cassini" */
    TSCHED_SIM_LINKS = 5      /**< "trunk" (default) or "member" */
} tsched_sim_policy;

/** Which number tsched_sim_set_option() sets. */
typedef enum tsched_sim_option {
    TSCHED_SIM_SEED = 0,                /**< seed of every random choice; default 1 */
    TSCHED_SIM_LEVELS = 1,              /**< hardware priority levels; default 8 */
    TSCHED_SIM_UNTIL_S = 2,             /**< stop at this time; INFINITY (default) = run to the end */
    TSCHED_SIM_MEASURE_FROM_S = 3,      /**< utilisation window start; default 0 */
    TSCHED_SIM_MEASURE_TO_S = 4,        /**< utilisation window end; INFINITY (default) = the run's end */
    TSCHED_SIM_PHASE_LATENCY_US = 5,    /**< added between a phase's start and its flows'; default 0 */
    TSCHED_SIM_MAX_SIM_ITERATIONS = 6,  /**< coarsening bound (0 = off, default) */
    TSCHED_SIM_PLACE_TIME_LIMIT_MS = 7, /**< per placement solve; default 100 */
    TSCHED_SIM_SAMPLE_MS = 8,           /**< time-series interval; default 1000 */
    TSCHED_SIM_CHECK_FULL = 9,          /**< 1: recompute every rate after each event batch and compare */
    TSCHED_SIM_SCHEDULE_INTERVAL_S = 10, /**< placement attempts only at multiples of this; default 0 */
    TSCHED_SIM_CRIUS_DEPTH = 11,        /**< placement crius: the scheduler's search depth, 0..16; default 3
                                             (appended for placement crius) */
    TSCHED_SIM_TIMESERIES = 12          /**< 1 (default): keep the time series; 0: do not (cheaper; every
                                             other result the same), doc/sim.md "Time series on request" */
} tsched_sim_option;

/**
 * A job of the trace (`tsched.trace.v1` jobs[]). Input struct: set `size` to
 * sizeof(tsched_sim_job) (older sizes are accepted, DESIGN 3). Exactly one of `iterations`
 * and `duration_ns` is non-zero.
 */
typedef struct tsched_sim_job {
    size_t size;               /**< sizeof(tsched_sim_job) */
    const char *name;          /**< unique in the simulation; copied */
    int64_t arrival_ns;        /**< >= 0 */
    uint32_t gpus;             /**< >= 1; with `nodes`, 0 = the sum of their GPUs */
    uint32_t tp, pp;           /**< 0 = GPUs per node and 1 */
    int64_t compute_ns;        /**< > 0: computation per iteration; 0 = not given (placement crius only,
                                    checked when the run starts) */
    double overlap;            /**< in [0, 1]: share of the computation communication overlaps */
    uint64_t iterations;       /**< iterations to run, or 0 with `duration_ns` */
    int64_t duration_ns;       /**< run time alone on the fabric, or 0 with `iterations` */
    uint32_t level;            /**< priority level under priority "fixed" */
    double work_tflop;         /**< work per iteration (CRUX W_j); 0 = gpus * compute seconds */
    const tsched_model *model; /**< NULL = none (copied); needed by phases without gbits */
    const uint32_t *nodes;     /**< fixed placement in rank order (node indices), or NULL */
    uint32_t num_nodes;        /**< entries of `nodes` */
} tsched_sim_job;

/** A communication phase of a job's iteration (`phases[]`). Input struct, size first. */
typedef struct tsched_sim_phase {
    size_t size;      /**< sizeof(tsched_sim_phase) */
    int pattern;      /**< a tsched_pattern, or -1 for explicit flows (tsched_sim_phase_add_flow) */
    double gbits;     /**< per flow of dp-ring and pp; each rank's data per rail for dp-hd and alltoall (split
                           over their steps, doc/sim.md); 0 = the App. C volumes of the job's model */
    uint32_t repeat;  /**< the phase runs this many times in a row; 0 = 1 */
} tsched_sim_phase;

/** Kinds of tsched_sim_event. */
typedef enum tsched_sim_event_kind {
    TSCHED_SIM_EV_ARRIVE = 1,      /**< a job arrived */
    TSCHED_SIM_EV_START = 2,       /**< a job got its nodes and started */
    TSCHED_SIM_EV_ITERATION = 4,   /**< a job finished an iteration */
    TSCHED_SIM_EV_FINISH = 8,      /**< a job finished */
    TSCHED_SIM_EV_PHASE_START = 16, /**< a phase's flows started */
    TSCHED_SIM_EV_PHASE_END = 32,  /**< a phase's last flow ended */
    TSCHED_SIM_EV_FAILURE = 64     /**< an element went down or up */
} tsched_sim_event_kind;

/** What a callback is told. Valid during the callback only. */
typedef struct tsched_sim_event {
    size_t size;          /**< sizeof(tsched_sim_event) of the library */
    int kind;             /**< a tsched_sim_event_kind */
    int64_t t_ns;         /**< when */
    uint32_t job;         /**< job index (TSCHED_NONE for failures) */
    uint32_t phase;       /**< phase index for phase events, else TSCHED_NONE */
    uint64_t iteration;   /**< iterations done so far */
    const char *name;     /**< the job's name, or the element's for failures */
} tsched_sim_event;

/** Callback: return non-zero to stop tsched_sim_run_until() after this event's batch. */
typedef int (*tsched_sim_callback)(const tsched_sim_event *event, void *user);

/** Why a job waited (vClos Table 2). */
typedef enum tsched_sim_wait_cause {
    TSCHED_SIM_WAIT_NONE = 0,    /**< started at its arrival */
    TSCHED_SIM_WAIT_GPU = 1,     /**< not enough free GPUs / nodes */
    TSCHED_SIM_WAIT_NETWORK = 2, /**< GPUs free, but no isolated network (vclos) */
    TSCHED_SIM_WAIT_TIMEOUT = 3, /**< the placement solver ran out of time */
    TSCHED_SIM_WAIT_QUEUE = 4    /**< never tried: behind the FIFO head */
} tsched_sim_wait_cause;

/** How a run ended. */
typedef enum tsched_sim_status {
    TSCHED_SIM_DONE = 0,   /**< every job finished */
    TSCHED_SIM_UNTIL = 1,  /**< stopped at until_s (or run_until's time) */
    TSCHED_SIM_STALLED = 2 /**< nothing can move: jobs that never fit or have no path */
} tsched_sim_status;

/** Per-job results (`tsched.simresult.v1` jobs[]). Output struct: set `size`. */
typedef struct tsched_sim_job_stats {
    size_t size;              /**< sizeof(tsched_sim_job_stats), set by the caller */
    const char *name;         /**< owned by the result */
    uint32_t gpus, level;     /**< GPUs; the last priority level the job had */
    int64_t arrival_ns;       /**< arrival */
    int64_t start_ns;         /**< start, or -1 if it never started */
    int64_t finish_ns;        /**< finish, or -1 if it did not finish */
    uint64_t iterations;      /**< iterations asked (after duration_s was resolved) */
    uint64_t iterations_done; /**< iterations completed */
    double iter_mean_s, iter_min_s, iter_max_s; /**< over completed iterations; 0 if none */
    double iter_alone_s;      /**< iteration time alone on the fabric at its placement */
    double compute_s;         /**< time its GPUs computed */
    uint32_t restarts;        /**< restarts after losing a node */
    int wait_cause;           /**< a tsched_sim_wait_cause */
    double gbits_demanded, gbits_delivered; /**< released by its phases; delivered */
} tsched_sim_job_stats;

/** Whole-run results (`tsched.simresult.v1` summary). Output struct: set `size`. */
typedef struct tsched_sim_summary {
    size_t size;              /**< sizeof(tsched_sim_summary), set by the caller */
    int status;               /**< a tsched_sim_status */
    int64_t end_ns;           /**< simulated time at the end */
    int64_t from_ns, to_ns;   /**< the measurement window */
    uint32_t jobs, jobs_done;
    double avg_jct_s, avg_wait_s, avg_run_s, makespan_s; /**< over finished jobs */
    double gpu_util;          /**< computing GPU-time / (all GPUs x window) (CRUX Def. 1) */
    double gpu_util_alloc;    /**< computing GPU-time / allocated GPU-time in the window */
    double gbits_demanded, gbits_delivered;
    uint64_t events;          /**< event batches */
    uint64_t rate_updates;    /**< flows whose rate was recomputed */
    uint32_t waits_gpu, waits_network, waits_timeout, waits_queue;
    double wall_ms;           /**< wall time of the runs (volatile) */
    uint64_t components;      /**< rate recomputations (one per event batch that changed a rate) */
    uint32_t component_flows_max; /**< most flows in one recomputed component */
    double component_flows_mean;  /**< mean flows per recomputed component */
} tsched_sim_summary;

/**
 * A simulation on `topo`, with every policy and option at its default. `topo` must outlive
 * the simulation, which changes its state (free GPUs, failures) while it runs; the caller
 * frees `*out` with tsched_sim_free(). Errors: TSCHED_E_INVALID (NULL, unbuilt fabric).
 */
TSCHED_API tsched_status tsched_sim_new(tsched_sim **out, tsched_topology *topo);
/** Free a simulation. NULL is a no-op. The GPUs its running jobs held are freed on the
 * fabric again; elements the run's failures took down stay down. */
TSCHED_API void tsched_sim_free(tsched_sim *sim);

/**
 * Set a policy by name (as in `tsched.scenario.v1`). Errors: TSCHED_E_FORMAT naming the
 * field and the accepted names (and "not available in this build" for crius),
 * TSCHED_E_STATE once the run has started. Placements vclos, ocs-vclos and vclos-free
 * (doc/sim.md §3.2) imply links "member" and vclos, ocs-vclos routing "vclos"; a routing
 * or links that contradicts them is TSCHED_E_INVALID when the run starts.
 */
TSCHED_API tsched_status tsched_sim_set_policy(tsched_sim *sim, tsched_sim_policy which, const char *name);
/**
 * Set a number of the scenario (INFINITY = null for the *_S times). Errors: TSCHED_E_RANGE
 * naming the option and value (negative, non-finite, not whole where it must be),
 * TSCHED_E_INVALID (unknown option), TSCHED_E_STATE once the run has started.
 */
TSCHED_API tsched_status tsched_sim_set_option(tsched_sim *sim, tsched_sim_option which, double value);

/** Load a `tsched.scenario.v1` document (policies, options, failures). Errors name the field. */
TSCHED_API tsched_status tsched_sim_load_scenario_file(tsched_sim *sim, const char *path);
/** tsched_sim_load_scenario_file() from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_sim_load_scenario_string(tsched_sim *sim, const char *json, size_t len);
/** Load a `tsched.trace.v1` document: every job and its phases. Errors name the field
 * (`jobs[3].phases[0].flows[1].dst`); on error no job of the document is added. */
TSCHED_API tsched_status tsched_sim_load_trace_file(tsched_sim *sim, const char *path);
/** tsched_sim_load_trace_file() from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_sim_load_trace_string(tsched_sim *sim, const char *json, size_t len);

/**
 * Add a job; `*index` (may be NULL) receives its index (trace order). Jobs may be added
 * before a run and between tsched_sim_run_until() calls (with an arrival not in the past).
 * Errors: TSCHED_E_RANGE / TSCHED_E_INVALID / TSCHED_E_DUPLICATE / TSCHED_E_NOT_FOUND as
 * doc/sim.md lists, naming the job.
 */
TSCHED_API tsched_status tsched_sim_add_job(uint32_t *index, tsched_sim *sim, const tsched_sim_job *job);
/** Append a phase to job `job`; `*index` (may be NULL) receives the phase's index. */
TSCHED_API tsched_status tsched_sim_job_add_phase(uint32_t *index, tsched_sim *sim, uint32_t job,
                                                  const tsched_sim_phase *phase);
/**
 * Add an explicit flow to phase `phase` of job `job` (a phase with pattern -1): ranks index
 * the job's nodes in rank order; `hops`/`nhops` pin its path (switch indices, source leaf
 * first), NULL/0 = routed by the policy. Errors: TSCHED_E_RANGE (rank or NIC out of range,
 * both ranks equal, gbits not positive), TSCHED_E_NOT_FOUND (hops not a path), checked
 * against the fabric when the rank's node is known.
 */
TSCHED_API tsched_status tsched_sim_phase_add_flow(tsched_sim *sim, uint32_t job, uint32_t phase, uint32_t src_rank,
                                                   uint32_t src_nic, uint32_t dst_rank, uint32_t dst_nic, double gbits,
                                                   const uint32_t *hops, uint32_t nhops);
/**
 * At `at_ns`, take the element `name` (a node, a switch, a trunk `a~b`, a member link
 * `a~b#k`) down (`up` = 0) or up. Errors: TSCHED_E_NOT_FOUND naming it, TSCHED_E_RANGE (negative time).
 */
TSCHED_API tsched_status tsched_sim_add_failure(tsched_sim *sim, int64_t at_ns, const char *name, int up);

/** Call `cb` for the events in `event_mask` (tsched_sim_event_kind bits); NULL `cb` = none; `user` (may be NULL) is passed back to `cb`. */
TSCHED_API tsched_status tsched_sim_set_callback(tsched_sim *sim, uint32_t event_mask, tsched_sim_callback cb,
                                                 void *user);

/**
 * Run until simulated time `t_ns` (INT64_MAX: to the end, or until_s). May be called again;
 * jobs may be added between calls. Errors: TSCHED_E_INVALID (a policy-dependent rule a job
 * breaks, named), TSCHED_E_NOMEM, TSCHED_E_SOLVER; the simulation stays consistent.
 */
TSCHED_API tsched_status tsched_sim_run_until(tsched_sim *sim, int64_t t_ns);
/** Current simulated time in ns (0 for NULL). */
TSCHED_API int64_t tsched_sim_now(const tsched_sim *sim);

/**
 * Snapshot of the results so far; the caller frees `*out` with tsched_sim_result_free().
 * (design/sim.md names this function `tsched_sim_result`, which C cannot declare next to the
 * type of the same name; `_new` pairs it with `_free`.) Errors: TSCHED_E_INVALID, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_sim_result_new(tsched_sim_result **out, const tsched_sim *sim);
/** Free a result. NULL is a no-op. */
TSCHED_API void tsched_sim_result_free(tsched_sim_result *result);
/** Number of jobs in a result (0 for NULL). */
TSCHED_API uint32_t tsched_sim_result_job_count(const tsched_sim_result *result);
/** Job `i`'s results into `*out` (its `size` set). Errors: TSCHED_E_INVALID (NULL, index, size). */
TSCHED_API tsched_status tsched_sim_result_job(tsched_sim_job_stats *out, const tsched_sim_result *result, uint32_t i);
/** The summary into `*out` (its `size` set). Errors: TSCHED_E_INVALID. */
TSCHED_API tsched_status tsched_sim_result_summary(tsched_sim_summary *out, const tsched_sim_result *result);

/** tsched_sim_result_to_json() flags: leave out the volatile wall_ms. */
#define TSCHED_SIM_JSON_NO_TIMING 1
/** tsched_sim_result_to_json() flags: add the per-link report. */
#define TSCHED_SIM_JSON_LINKS 2
/** tsched_sim_result_to_json() flags: one line instead of two-space indentation. */
#define TSCHED_SIM_JSON_COMPACT 4

/** `tsched.simresult.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_sim_result_to_json(char **out, const tsched_sim_result *result, int flags);
/**
 * The time series of doc/sim.md (CSV with a header line), one row per interval of
 * `sample_ns` (0 = the simulation's sample_ms); the caller frees `*out` with tsched_free().
 */
TSCHED_API tsched_status tsched_sim_result_timeseries_csv(char **out, const tsched_sim_result *result,
                                                          int64_t sample_ns);

/**
 * The GPU catalogue placement `crius` estimates Cells with (doc/sim.md §3.2): the built-in
 * one (tsched_gpu_catalog_default()) merged with `cat`, an entry of the same name taking
 * `cat`'s figures; copied, so `cat` need not outlive the call. Without this call the
 * built-in catalogue alone is used; the scenario's `gpus` object does the same. Errors:
 * TSCHED_E_INVALID (NULL), TSCHED_E_STATE once the run has started, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_sim_set_gpu_catalog(tsched_sim *sim, const tsched_gpu_catalog *cat);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_SIM_H */
