/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file placement.h
 * @brief Which nodes a job gets and which node plays which cell of its communication
 *        matrix: Arnold's MIP (GLPK) that minimises the weighted max spread of DP and PP
 *        groups (Eq. 2), its baselines, the exact optimum on small instances, rank order,
 *        and the reservation policy of Arnold App. G.
 */
#ifndef TOPO_SCHED_PLACEMENT_H
#define TOPO_SCHED_PLACEMENT_H

#include "common.h"
#include "topology.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Placement algorithms (DESIGN 6 `--algo`). */
typedef enum tsched_place_algo {
    TSCHED_PLACE_MIP = 0,        /**< Arnold's MIP, made exact for Eq. 2 (doc/placement.md) */
    TSCHED_PLACE_BEST_FIT = 1,   /**< domain with the least free nodes that still fits */
    TSCHED_PLACE_RANDOM_FIT = 2, /**< seeded, balanced across domains */
    TSCHED_PLACE_GPU_PACK = 3,   /**< fewest domains, largest free first */
    TSCHED_PLACE_TOPO_AWARE = 4, /**< recursive bipartitioning with Fiduccia-Mattheyses */
    TSCHED_PLACE_EXHAUSTIVE = 5  /**< exact enumeration, up to 16 nodes and 4 domains */
} tsched_place_algo;

/** Name of an algorithm ("mip", "best-fit", ...); "?" for an unknown value. Static string. */
TSCHED_API const char *tsched_place_algo_name(tsched_place_algo algo);
/** Algorithm from its name. Errors: TSCHED_E_FORMAT naming the unknown name. */
TSCHED_API tsched_status tsched_place_algo_from_name(tsched_place_algo *algo, const char *name);

/** How good the answer is. */
typedef enum tsched_place_status {
    TSCHED_PLACE_OPTIMAL = 0, /**< proven optimal for the Eq. 2 metric (mip, exhaustive) */
    TSCHED_PLACE_FEASIBLE = 1 /**< valid; a heuristic's answer, or the time limit was hit */
} tsched_place_status;

/**
 * Placement options. Initialise with tsched_place_options_init(); fields may be appended
 * in later versions (`size` tells the library which ones the caller knows).
 */
typedef struct tsched_place_options {
    size_t size;             /**< sizeof(tsched_place_options) */
    tsched_place_algo algo;  /**< default TSCHED_PLACE_MIP */
    double alpha;            /**< < 0: the job's alpha (resolved through the affinity lookup for "auto") */
    int unit;                /**< < 0: the job's unit; else a tsched_unit */
    int domain;              /**< < 0: the job's domain; else a tsched_domain */
    uint64_t seed;           /**< random-fit and tie breaking; default 1 */
    uint32_t time_limit_ms;  /**< solver time limit; 0 = 10,000 ms */
    uint32_t gpus_per_node;  /**< nodes with this many GPUs are eligible; 0 = the most common count
                                  (among the candidates when `nodes` is set) */
    /**
     * Candidate nodes (fabric indices; doc/cell.md §5): with `num_nodes` > 0, placement uses
     * only these, for every algorithm. NULL / 0 = every node. A listed node that is down,
     * has a busy GPU or another GPU count than the job's nodes is simply not a candidate
     * (as any such node is not): if too few remain, tsched_place() fails with
     * TSCHED_E_INFEASIBLE saying how many of the listed nodes were usable. An index outside
     * the fabric is TSCHED_E_RANGE, an index listed twice TSCHED_E_DUPLICATE, a NULL list
     * with a count TSCHED_E_INVALID, each naming `nodes[i]`. The array is read during the
     * call only.
     */
    const uint32_t *nodes;
    uint32_t num_nodes; /**< entries of `nodes`; 0 = no restriction */
} tsched_place_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_place_options_init(tsched_place_options *opts);

/** Opaque placement result (`tsched.placement.v1`). */
typedef struct tsched_placement tsched_placement;

/**
 * Place `job` on the up nodes of `topo` whose GPUs are all free (and, when `opts->nodes` is
 * set, that are among those candidates). Every cell of the job's
 * matrix (tsched_job_matrix) gets one node. `opts` may be NULL for the defaults. The caller frees `*out` with
 * tsched_placement_free(). Errors: TSCHED_E_INFEASIBLE (not enough free nodes, naming how
 * many are needed and free), TSCHED_E_RANGE (shape errors of Eq. 1, a candidate index
 * outside the fabric), TSCHED_E_DUPLICATE (a candidate listed twice), TSCHED_E_INVALID
 * (exhaustive beyond 16 nodes / 4 domains), TSCHED_E_SOLVER, TSCHED_E_TIMEOUT (no answer
 * at all within the limit). A limit hit after an answer was found gives TSCHED_OK with
 * status TSCHED_PLACE_FEASIBLE.
 */
TSCHED_API tsched_status tsched_place(tsched_placement **out, const tsched_topology *topo, const tsched_job *job,
                                      const tsched_place_options *opts);

/** Free a placement. NULL is a no-op. */
TSCHED_API void tsched_placement_free(tsched_placement *p);

/** Matrix shape. */
TSCHED_API uint32_t tsched_placement_rows(const tsched_placement *p);
TSCHED_API uint32_t tsched_placement_cols(const tsched_placement *p);
/** Node index of cell (row, col), or TSCHED_NONE for a bad cell. */
TSCHED_API uint32_t tsched_placement_node(const tsched_placement *p, uint32_t row, uint32_t col);
/** Rank of cell (row, col) in the launcher's host list: col * rows + row (DESIGN 5.3). */
TSCHED_API uint32_t tsched_placement_rank(const tsched_placement *p, uint32_t row, uint32_t col);
/** Optimal or feasible (TSCHED_PLACE_FEASIBLE for NULL). */
TSCHED_API tsched_place_status tsched_placement_status(const tsched_placement *p);
/** The algorithm that produced it. */
TSCHED_API tsched_place_algo tsched_placement_algo(const tsched_placement *p);
/** Largest spread over DP groups (columns) and PP groups (rows). */
TSCHED_API uint32_t tsched_placement_dp_max(const tsched_placement *p);
TSCHED_API uint32_t tsched_placement_pp_max(const tsched_placement *p);
/** alpha * dp_max + beta * pp_max, and the alpha used. */
TSCHED_API double tsched_placement_weighted(const tsched_placement *p);
TSCHED_API double tsched_placement_alpha(const tsched_placement *p);
/** Number of distinct domains holding the job's nodes. */
TSCHED_API uint32_t tsched_placement_domains_used(const tsched_placement *p);
/** Wall time of the solve in milliseconds (not part of the deterministic output). */
TSCHED_API double tsched_placement_solve_ms(const tsched_placement *p);

/**
 * `tsched.placement.v1` of the placement; `job_name` may be NULL. The caller frees `*out`
 * with tsched_free(). With `with_time` = 0 the volatile `solve_ms` field is left out, so
 * the same input gives the same bytes. Errors: TSCHED_E_INVALID (NULL), TSCHED_E_MISMATCH (`topo` is
 * not the placement's fabric), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_placement_to_json(char **out, const tsched_placement *p, const tsched_topology *topo,
                                                  const char *job_name, int with_time);
/** tsched_placement_to_json() laid out as `opts` asks (NULL: indented, with `solve_ms`;
 *  `opts->timing` replaces `with_time`). The compact text is the same document without whitespace.
 *  Errors as tsched_placement_to_json(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_placement_to_json_opts(char **out, const tsched_placement *p,
                                                       const tsched_topology *topo, const char *job_name,
                                                       const tsched_output_opts *opts);

/**
 * Load a `tsched.placement.v1` document (as `topo-sched place` writes it) against the fabric
 * it was made for: node names are resolved in `topo`; every cell must be assigned exactly
 * once and no node twice. The metric is recomputed for the document's alpha and domain.
 * Errors name the field (`assignment[7].node`).
 */
TSCHED_API tsched_status tsched_placement_load_file(tsched_placement **out, const tsched_topology *topo,
                                                    const char *path);
/** tsched_placement_load_file() from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_placement_load_string(tsched_placement **out, const tsched_topology *topo,
                                                      const char *json, size_t len);
/** The rows * cols node indices, row-major (cell (r, c) at r * cols + c); owned by `p`. */
TSCHED_API const uint32_t *tsched_placement_nodes(const tsched_placement *p);

/**
 * Host file: one node name per line in rank order. The caller frees `*out` with tsched_free().
 * Errors: TSCHED_E_INVALID (NULL), TSCHED_E_MISMATCH (`topo` is not the fabric the placement
 * was made or loaded on, or its shape changed since), TSCHED_E_TOO_LARGE (above the limit
 * `output_bytes`), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_placement_hostfile(char **out, const tsched_placement *p, const tsched_topology *topo);

/**
 * Per-task host file (doc/export.md, for Slurm's `--distribution=arbitrary`): the node of
 * rank r on lines r*T .. r*T+T-1, T = `tasks_per_node`; 0 means the GPUs per node of the
 * placement's nodes. The caller frees `*out` with tsched_free(). Errors: TSCHED_E_INVALID
 * (NULL; `tasks_per_node` 0 while the nodes have different GPU counts), TSCHED_E_RANGE
 * (`tasks_per_node` above 4096), TSCHED_E_MISMATCH (as tsched_placement_hostfile()),
 * TSCHED_E_TOO_LARGE (the file, computed before it is written, above the limit
 * `output_bytes`, tsched_limits_set()), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_placement_hostfile_per_task(char **out, const tsched_placement *p,
                                                            const tsched_topology *topo, uint32_t tasks_per_node);

/**
 * Pod order for Kubernetes (`tsched.pod-order.v1`, doc/FORMATS.md): pod i, in index order,
 * goes to the node of line i of the per-task host file with `pods_per_node` lines per node
 * (0 = one pod per node), with a `kubernetes.io/hostname` node selector on the node's
 * recorded hostname label value (tsched_topology_node_hostname()), else its name. `job_name`
 * may be NULL (""); `index_label` is the pod label holding the index, NULL for
 * `batch.kubernetes.io/job-completion-index`. The caller frees `*out` with tsched_free().
 * Errors: TSCHED_E_INVALID (NULL), TSCHED_E_FORMAT (`index_label` not a label key, a
 * hostname value that is not a label value, naming the node), TSCHED_E_RANGE
 * (`pods_per_node` above 4096, a hostname value over 63 characters), TSCHED_E_MISMATCH, TSCHED_E_TOO_LARGE (the
 * document, computed before it is written, above the limit `output_bytes`), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_placement_pod_order(char **out, const tsched_placement *p, const tsched_topology *topo,
                                                    const char *job_name, const char *index_label,
                                                    uint32_t pods_per_node);

/** The Eq. 2 metric of any placement. */
typedef struct tsched_spread {
    size_t size;           /**< set by the caller to sizeof(tsched_spread) before the call (DESIGN 3) */
    uint32_t dp_max;       /**< largest number of domains among the nodes of one column */
    uint32_t pp_max;       /**< largest number of domains among the nodes of one row */
    uint32_t domains_used; /**< distinct domains overall */
    double weighted;       /**< alpha * dp_max + (1 - alpha) * pp_max */
} tsched_spread;

/**
 * Evaluate a hand-made placement: `nodes` holds rows * cols node indices, row-major
 * (cell (r, c) at r * cols + c); `out->size` must be set. Errors: TSCHED_E_INVALID (bad size, bad node index, a node used
 * twice, alpha outside [0, 1], a node without a pod for the pod domain).
 */
TSCHED_API tsched_status tsched_spread_eval(tsched_spread *out, const tsched_topology *topo, const uint32_t *nodes,
                                            uint32_t rows, uint32_t cols, double alpha, tsched_domain domain);

/* ---- reservation (Arnold App. G, Algorithm 1) -------------------------------------- */

/** Opaque reservation of a placement's nodes for a job arriving later. */
typedef struct tsched_reservation tsched_reservation;

/** What Algorithm 1 decides for an incoming job. */
typedef enum tsched_admit {
    TSCHED_ADMIT_NOW = 0,      /**< preemptable, or fits in free GPUs outside the reserved zone */
    TSCHED_ADMIT_RESERVED = 1, /**< may use reserved nodes: predicted to finish before the arrival */
    TSCHED_ADMIT_DELAY = 2     /**< neither: wait for the next scheduling interval */
} tsched_admit;

/**
 * Reserve the nodes of `p` for a job arriving at time `arrival` (any clock the caller
 * uses, e.g. seconds). The reservation copies what it needs; `p` may be freed after.
 */
TSCHED_API tsched_status tsched_reservation_new(tsched_reservation **out, const tsched_placement *p, double arrival);
/** Free a reservation. NULL is a no-op. */
TSCHED_API void tsched_reservation_free(tsched_reservation *r);
/** Whether node `node` is reserved. */
TSCHED_API int tsched_reservation_holds(const tsched_reservation *r, uint32_t node);
/** Free GPUs of up nodes of `topo` outside the reserved zone. */
TSCHED_API uint64_t tsched_reservation_free_outside(const tsched_reservation *r, const tsched_topology *topo);

/**
 * Algorithm 1 for one incoming job of `gpus` GPUs at time `now` whose completion the
 * caller predicts at `predicted_end` (same clock as `arrival`): NOW when `preemptable` or
 * when it fits in the free GPUs outside the reserved zone, RESERVED when it does not but
 * finishes before the reserved job arrives, else DELAY. Errors: TSCHED_E_INVALID (NULL,
 * non-finite times).
 */
TSCHED_API tsched_status tsched_reservation_admit(tsched_admit *out, const tsched_reservation *r,
                                                  const tsched_topology *topo, uint32_t gpus, double now,
                                                  double predicted_end, int preemptable);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_PLACEMENT_H */
