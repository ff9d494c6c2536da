/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file priority.h
 * @brief Which job's traffic goes first (CRUX, SIGCOMM'24, seed 001): GPU intensity
 *        (Def. 2), intensity-ordered path selection (4.1), priority assignment with
 *        correction factors (4.2), the contention DAG and its compression to K hardware
 *        levels as a DAG max K-cut (4.3, Algorithm 1), with the Sincronia and Varys baselines
 *        (their orders and compressions), CRUX's TACCL* order and an exhaustive reference.
 */
#ifndef TOPO_SCHED_PRIORITY_H
#define TOPO_SCHED_PRIORITY_H

#include "common.h"
#include "routing.h"
#include "topology.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the compressor on its own: tsched.dag.v1 -> tsched.levels.v1 --------------------- */

/** Opaque weighted DAG: edge (u, v, w) means u has higher priority than v, weight w >= 0. */
typedef struct tsched_dag tsched_dag;

/** Compression algorithms (DESIGN 6 `--algo` of kcut and prioritize). */
typedef enum tsched_kcut_algo {
    TSCHED_KCUT_CRUX = 0,      /**< Algorithm 1: best max K-cut over m random topological orders */
    TSCHED_KCUT_SINCRONIA = 1, /**< the first K-1 jobs of the order get their own level, the rest the last */
    TSCHED_KCUT_VARYS = 2,     /**< the order cut into K equal consecutive groups */
    TSCHED_KCUT_EXHAUSTIVE = 3 /**< the optimum over all valid compressions, n <= 10 */
} tsched_kcut_algo;

/** Name of an algorithm ("crux", "sincronia", "varys", "exhaustive"); "?" if unknown. */
TSCHED_API const char *tsched_kcut_algo_name(tsched_kcut_algo algo);
/** Algorithm from its name. Errors: TSCHED_E_FORMAT naming it, TSCHED_E_INVALID for NULL. */
TSCHED_API tsched_status tsched_kcut_algo_from_name(tsched_kcut_algo *algo, const char *name);

/** Compression options; initialise with tsched_kcut_options_init() (fields may be appended). */
typedef struct tsched_kcut_options {
    size_t size;           /**< sizeof(tsched_kcut_options) */
    tsched_kcut_algo algo; /**< default crux */
    uint32_t levels;       /**< K >= 1; default 8 */
    uint32_t orders;       /**< m random topological orders for crux; default 10 */
    uint64_t seed;         /**< default 1 */
    /** crux: worker threads over the independent orders; 0 (default) = the online CPUs, at
     * most `orders` are used. The answer is the same for every value (the best order by the
     * same tie-break: the first of the maximal cuts). Appended: an older `size` gives 0. */
    uint32_t threads;
} tsched_kcut_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_kcut_options_init(tsched_kcut_options *opts);

/** A DAG of `nodes` nodes and no edges; the caller frees it with tsched_dag_free().
 * Errors: TSCHED_E_TOO_LARGE beyond 2^26 nodes. */
TSCHED_API tsched_status tsched_dag_new(tsched_dag **out, uint32_t nodes);
/** Free a DAG. NULL is a no-op. */
TSCHED_API void tsched_dag_free(tsched_dag *dag);
/**
 * Add edge u -> v of weight w. Errors: TSCHED_E_INVALID (a node out of range, u == v),
 * TSCHED_E_RANGE (w negative or not finite). Cycles are found by tsched_dag_compress().
 */
TSCHED_API tsched_status tsched_dag_add_edge(tsched_dag *dag, uint32_t u, uint32_t v, double w);
/** Number of nodes and of edges. */
TSCHED_API uint32_t tsched_dag_nodes(const tsched_dag *dag);
TSCHED_API uint32_t tsched_dag_edges(const tsched_dag *dag);
/** Load `tsched.dag.v1` ({"nodes": n, "edges": [[u, v, w], ...]}). Errors name the field;
 * a cycle is TSCHED_E_CYCLE naming its nodes. */
TSCHED_API tsched_status tsched_dag_load_file(tsched_dag **out, const char *path);
/** Load `tsched.dag.v1` from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_dag_load_string(tsched_dag **out, const char *json, size_t len);

/**
 * Compress the DAG's nodes to `opts->levels` levels: `levels` (one entry per node) receives
 * a level in 0..K-1 with level[u] <= level[v] on every edge (0 = highest), `*cut_weight` the
 * total weight of the edges with level[u] < level[v] (`cut_weight` may be NULL). `opts` may be
 * NULL for the defaults. Deterministic for a given seed.
 * Errors: TSCHED_E_CYCLE (naming a node on a cycle), TSCHED_E_RANGE (K < 1, orders < 1),
 * TSCHED_E_INVALID (exhaustive beyond 10 nodes), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_dag_compress(uint32_t *levels, double *cut_weight, const tsched_dag *dag,
                                             const tsched_kcut_options *opts);

/** `tsched.levels.v1` for `n` levels and a cut weight; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_levels_to_json(char **out, const uint32_t *levels, uint32_t n, double cut_weight);
/** tsched_levels_to_json() laid out as `opts` asks (NULL: indented; the document has no timing).
 *  The compact text is the same document without whitespace. Errors as tsched_levels_to_json(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_levels_to_json_opts(char **out, const uint32_t *levels, uint32_t n, double cut_weight,
                                                    const tsched_output_opts *opts);

/* ---- CRUX on a job set: tsched.jobset.v1 -> tsched.priorities.v1 ----------------------- */

/* Accepted ranges of a job set (doc/priority.md, "Accepted ranges"): wide enough for any real
 * job, narrow enough that intensities and the two-job model's inputs stay far from overflow
 * and underflow. A caller with wider values (a simulator) scales them in. */
#define TSCHED_JOBSET_WORK_MIN 1e-6    /**< TFLOP per iteration */
#define TSCHED_JOBSET_WORK_MAX 1e12    /**< TFLOP per iteration */
#define TSCHED_JOBSET_COMPUTE_MIN 1e-6 /**< ms of computation per iteration (1 ns) */
#define TSCHED_JOBSET_COMPUTE_MAX 1e9  /**< ms of computation per iteration (about 11.6 days) */
#define TSCHED_JOBSET_GBITS_MIN 1e-6   /**< gigabits of one flow per iteration (1 kbit) */
#define TSCHED_JOBSET_GBITS_MAX 1e12   /**< gigabits of one flow per iteration */

/** Opaque set of jobs sharing a fabric (`tsched.jobset.v1`). */
typedef struct tsched_jobset tsched_jobset;

/**
 * Load a `tsched.jobset.v1` document against `topo` (flow endpoints are node names of it).
 * Each job: name, gpus, work_tflop (W_j per iteration), compute_ms, overlap in [0, 1]
 * (share of the computation that communication overlaps), flows; a flow may pin its path
 * with `hops` (switch names, as in `tsched.routes.v1`). Errors name the field
 * (`jobs[2].flows[0].dst`); a job without flows is TSCHED_E_INVALID naming it.
 */
TSCHED_API tsched_status tsched_jobset_load_file(tsched_jobset **out, const tsched_topology *topo, const char *path);
/** tsched_jobset_load_file() from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_jobset_load_string(tsched_jobset **out, const tsched_topology *topo, const char *json,
                                                   size_t len);
/**
 * An empty job set for `topo`, to be filled with tsched_jobset_add_job() and
 * tsched_jobset_add_flow() (the builder a simulator uses instead of JSON). The set records
 * the fabric's identity and shape generation as the loaders do; `topo` must stay alive while
 * flows are added. The caller frees `*out` with tsched_jobset_free().
 * Errors: TSCHED_E_INVALID (NULL), TSCHED_E_STATE (a fabric not built yet), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_jobset_new(tsched_jobset **out, const tsched_topology *topo);
/**
 * Append a job with the JSON reader's checks: `name` a valid name (DESIGN 3) not yet in the
 * set, `gpus` >= 1, `work_tflop` (TFLOP per iteration) in [1e-6, 1e12], `compute_ms` in
 * [1e-6, 1e9], `overlap` in [0, 1] (doc/priority.md, "Accepted ranges"). `*index` (may be
 * NULL) receives the job's index, its position in the set. A job may stay without flows
 * (all its traffic inside one node): it then has no network traffic, see tsched_prioritize().
 * Errors name `jobs[i].field`: TSCHED_E_INVALID (NULL `js` or `name`), TSCHED_E_RANGE (a
 * bad name or number), TSCHED_E_DUPLICATE (the name is taken), TSCHED_E_TOO_LARGE (the
 * `dag_nodes` limit), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_jobset_add_job(uint32_t *index, tsched_jobset *js, const char *name, uint32_t gpus,
                                               double work_tflop, double compute_ms, double overlap);
/**
 * Append a flow of job `job`, from NIC `src_nic` of node `src_node` to NIC `dst_nic` of node
 * `dst_node` (node indices of the set's fabric), `gbits` gigabits per iteration in [1e-6,
 * 1e12], with the JSON reader's checks. `path` NULL lets tsched_prioritize() choose the path
 * (CRUX's intensity-ordered path selection); otherwise the flow is pinned to `*path` (an
 * input tsched_path whose `size` must be valid and cover `links`): it must start at the source
 * NIC's leaf, end at the destination NIC's, and cross the trunks between consecutive switches
 * in the direction travelled, up then down. A pinned path is kept as given, even through a
 * switch or trunk that is down. The set copies what it needs.
 * Errors name `jobs[j].flows[k]` and the argument: TSCHED_E_INVALID (NULL `js`, a job,
 * node or NIC that does not exist, equal endpoints, a bad `path`), TSCHED_E_RANGE (`gbits`),
 * TSCHED_E_MISMATCH (the fabric changed shape since tsched_jobset_new()),
 * TSCHED_E_TOO_LARGE (the `flows` limit), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_jobset_add_flow(tsched_jobset *js, uint32_t job, uint32_t src_node, uint32_t src_nic,
                                                uint32_t dst_node, uint32_t dst_nic, double gbits,
                                                const tsched_path *path);
/**
 * Append a flow of job `job` that crosses only its source NIC's up-link and its destination
 * NIC's down-link, whatever leaves the two NICs are on: the fabric seen as one big switch (a
 * simulator's "ideal" routing). The flow is pinned: path selection leaves it alone, and it
 * loads no trunk. Same arguments, ranges and errors as tsched_jobset_add_flow() with a NULL
 * `path`; a failed call adds nothing.
 */
TSCHED_API tsched_status tsched_jobset_add_nic_flow(tsched_jobset *js, uint32_t job, uint32_t src_node,
                                                    uint32_t src_nic, uint32_t dst_node, uint32_t dst_nic,
                                                    double gbits);
/**
 * Append a flow of job `job` pinned to member links (a simulator's `member` link mode):
 * `members` lists the `hops` directed member links it crosses, in the order travelled, each
 * `2 * member + d` (member ids of tsched_topology_trunk_first_member(), d = 0 going up, 1
 * going down); their trunks must form a path as a pinned `path` of
 * tsched_jobset_add_flow() does (from the source NIC's leaf to the destination NIC's,
 * valley-free; `hops` 0 when both NICs are on one leaf). The flow loads those member links
 * (capacity tsched_topology_member_gbps()) and its two NIC links, so two jobs on one trunk
 * but on different members do not contend. The set copies `members`, which may be NULL
 * when `hops` is 0. Same arguments, ranges
 * and errors as tsched_jobset_add_flow(), and TSCHED_E_INVALID naming `members[h]` for an id
 * that is not a directed member link or does not continue the path; a failed call adds
 * nothing.
 */
TSCHED_API tsched_status tsched_jobset_add_member_flow(tsched_jobset *js, uint32_t job, uint32_t src_node,
                                                       uint32_t src_nic, uint32_t dst_node, uint32_t dst_nic,
                                                       double gbits, const uint32_t *members, uint32_t hops);
/** Free a job set. NULL is a no-op. */
TSCHED_API void tsched_jobset_free(tsched_jobset *jobs);
/** Number of jobs. */
TSCHED_API uint32_t tsched_jobset_count(const tsched_jobset *jobs);
/** Name of job `i` (owned by the set), or NULL. */
TSCHED_API const char *tsched_jobset_name(const tsched_jobset *jobs, uint32_t i);

/**
 * Which rule orders the jobs before compression (doc/priority.md, "Orders"): CRUX's own
 * priority assignment or one of the baselines CRUX compares with (§4.4, §6.3), each applied
 * to a training job as one coflow (its flows of one iteration on the links they use).
 */
typedef enum tsched_prio_order {
    TSCHED_PRIO_ORDER_CRUX = 0,      /**< P_j = k_j I_j, decreasing (CRUX 4.2) */
    TSCHED_PRIO_ORDER_SINCRONIA = 1, /**< Bottleneck-Select-Scale-Iterate (Sincronia, SIGCOMM'18), weight 1 */
    TSCHED_PRIO_ORDER_VARYS = 2,     /**< smallest effective bottleneck first (Varys, SIGCOMM'14) */
    TSCHED_PRIO_ORDER_TACCL = 3      /**< longest transmission distance first (CRUX's TACCL*, footnote 3) */
} tsched_prio_order;

/** Name of an order ("crux", "sincronia", "varys", "taccl"); "?" if unknown. */
TSCHED_API const char *tsched_prio_order_name(tsched_prio_order order);
/** Order from its name. Errors: TSCHED_E_FORMAT naming it, TSCHED_E_INVALID for NULL. */
TSCHED_API tsched_status tsched_prio_order_from_name(tsched_prio_order *order, const char *name);

/**
 * Prioritisation options; initialise with tsched_prio_options_init(). The compression
 * fields mirror tsched_kcut_options but are the struct's own, so that both structs can
 * gain fields independently (DESIGN 3 size rule: a caller's `size` that ends early gives the
 * remaining fields their defaults).
 */
typedef struct tsched_prio_options {
    size_t size;           /**< sizeof(tsched_prio_options) */
    tsched_kcut_algo algo; /**< compression algorithm; default crux */
    uint32_t levels;       /**< hardware priority levels K >= 1; default 8 */
    uint32_t orders;       /**< m random topological orders for crux; default 10 */
    uint64_t seed;         /**< default 1 */
    /** The jobs' order before compression; default crux. Appended: an older `size` gives
     * crux. */
    tsched_prio_order order;
} tsched_prio_options;

/** Fill `opts` with the defaults and set its `size`. NULL is a no-op. */
TSCHED_API void tsched_prio_options_init(tsched_prio_options *opts);

/** Opaque result (`tsched.priorities.v1`). */
typedef struct tsched_priorities tsched_priorities;

/**
 * CRUX on a job set: intensities (Def. 2) from the traffic each job puts on every trunk,
 * intensity-ordered path selection (for the flows without a pinned path; pinned flows keep
 * theirs and count in everything), correction factors and priorities P_j = k_j I_j, the
 * contention DAG, and its compression to levels. See doc/priority.md. A job without flows
 * (built with tsched_jobset_add_job() only) has intensity 0, factor 1, priority 0, no DAG
 * edge, and is ordered before every job with traffic. `opts` may be NULL for
 * the defaults. The caller frees
 * `*out` with tsched_priorities_free(). Errors: TSCHED_E_NO_PATH, TSCHED_E_INVALID,
 * TSCHED_E_MISMATCH (`topo` is not the fabric the set was made for, or changed shape).
 */
TSCHED_API tsched_status tsched_prioritize(tsched_priorities **out, const tsched_topology *topo,
                                           const tsched_jobset *jobs, const tsched_prio_options *opts);
/** Free a result. NULL is a no-op. */
TSCHED_API void tsched_priorities_free(tsched_priorities *p);
/** Per job i: GPU intensity I_j (TFLOP per second of bottleneck transfer), correction factor
 * k_j, priority P_j, order (0 = first), level (0 = highest). 0 for a bad index. */
TSCHED_API double tsched_priorities_intensity(const tsched_priorities *p, uint32_t i);
TSCHED_API double tsched_priorities_factor(const tsched_priorities *p, uint32_t i);
TSCHED_API double tsched_priorities_priority(const tsched_priorities *p, uint32_t i);
TSCHED_API uint32_t tsched_priorities_order(const tsched_priorities *p, uint32_t i);
TSCHED_API uint32_t tsched_priorities_level(const tsched_priorities *p, uint32_t i);
/** The contention DAG's edge count, total weight and cut weight. */
TSCHED_API uint32_t tsched_priorities_dag_edges(const tsched_priorities *p);
TSCHED_API double tsched_priorities_total_weight(const tsched_priorities *p);
TSCHED_API double tsched_priorities_cut_weight(const tsched_priorities *p);
/** `tsched.priorities.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_priorities_to_json(char **out, const tsched_priorities *p, const tsched_jobset *jobs);
/** tsched_priorities_to_json() laid out as `opts` asks (NULL: indented; the document has no
 *  timing). The compact text is the same document without whitespace. Errors as
 *  tsched_priorities_to_json(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_priorities_to_json_opts(char **out, const tsched_priorities *p,
                                                        const tsched_jobset *jobs, const tsched_output_opts *opts);

/**
 * One job of the two-job model (tsched_twojob_steady()). Input struct under the DESIGN 3
 * size rule: set `size` to sizeof(tsched_twojob); fields a smaller `size` does not cover take
 * their defaults (compute_ms 1, comm_ms 1, overlap 0, gpus 1).
 */
typedef struct tsched_twojob {
    size_t size;       /**< sizeof(tsched_twojob) */
    double compute_ms; /**< computation per iteration, positive and finite */
    double comm_ms;    /**< communication per iteration at the full link rate, positive and finite */
    double overlap;    /**< share of the computation the communication overlaps, in [0, 1] */
    uint32_t gpus;     /**< GPUs of the job, >= 1 */
} tsched_twojob;

/**
 * The two-job iteration model of CRUX 4.2 on one shared link, in steady state: both jobs
 * iterate (computation `compute_ms`; communication of `comm_ms` at the full link rate,
 * starting after the non-overlapped share (1 - overlap) of the computation; the next
 * iteration starts when both are done); the prioritised job's traffic preempts the other's.
 * With job a first (`a_first` = 1) or job b first, gives each job's share of link time and
 * the GPU utilisation (GPUs busy computing / all GPUs) over the steady-state period.
 * Only the ratios of the times matter: any positive finite magnitudes are accepted; times
 * below 2^-29 of the largest count as 2^-29 of it (doc/priority.md, "Two-job model").
 * Outputs may be NULL. Errors: TSCHED_E_INVALID (`a` or `b` NULL, a bad `size`),
 * TSCHED_E_RANGE (non-positive or non-finite times, gpus 0, overlap outside [0, 1]).
 */
TSCHED_API tsched_status tsched_twojob_steady(double *link_share_a, double *link_share_b, double *utilization,
                                              const tsched_twojob *a, const tsched_twojob *b, int a_first);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_PRIORITY_H */
