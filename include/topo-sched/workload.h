/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file workload.h
 * @brief A training job: its shape (GPUs, TP, PP, DP), Arnold's communication matrix
 *        (Eq. 1), the analytic per-GPU volumes of Arnold App. C, and the affinity lookup
 *        (Arnold 5.2) that turns them into the DP/PP weight alpha.
 */
#ifndef TOPO_SCHED_WORKLOAD_H
#define TOPO_SCHED_WORKLOAD_H

#include "common.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque job handle (`tsched.job.v1`). */
typedef struct tsched_job tsched_job;

/** Which groups the placement MIP treats as its scheduling units (DESIGN 5.2 "unit"). */
typedef enum tsched_unit {
    TSCHED_UNIT_PP = 0, /**< rows (PP groups) are the units */
    TSCHED_UNIT_DP = 1  /**< columns (DP groups) are the units */
} tsched_unit;

/**
 * The topology level whose spread is minimised (DESIGN 5.2 "domain"). One numbering with
 * ::tsched_level and ::tsched_tier (DESIGN 3): leaf 0, pod 1, NVLink domain 3.
 */
typedef enum tsched_domain {
    TSCHED_DOMAIN_AUTO = -1,               /**< pod when the fabric has pods, else leaf */
    TSCHED_DOMAIN_LEAF = TSCHED_LEVEL_LEAF, /**< one leaf switch (0) */
    TSCHED_DOMAIN_POD = TSCHED_LEVEL_POD,   /**< Arnold's minipod (1) */
    TSCHED_DOMAIN_NVL = TSCHED_LEVEL_NVL    /**< a multi-node NVLink domain (3); a node without one is its own */
} tsched_domain;

/** Model configuration of a job (the "model" object of `tsched.job.v1`). */
typedef struct tsched_model {
    size_t size;           /**< sizeof(tsched_model), set by tsched_model_init() */
    uint32_t hidden;       /**< hidden dimension h */
    uint32_t layers;       /**< transformer layers l */
    uint32_t vocab;        /**< vocabulary size V */
    uint32_t seq;          /**< sequence length s */
    uint32_t global_batch; /**< global batch gb (sequences) */
    uint32_t micro_batch;  /**< micro-batch mb (sequences) */
    uint32_t vpp;          /**< virtual pipeline stages per GPU (>= 1) */
    uint32_t moe_experts;  /**< experts per MoE layer; 0 = dense */
} tsched_model;

/** Fill `m` with a small dense default (h 4096, l 32, V 32000, s 4096, gb 512, mb 1, vpp 1) and set `size`. */
TSCHED_API void tsched_model_init(tsched_model *m);

/**
 * Per-GPU quantities of Arnold App. C, in elements (multiply by the bytes per element of
 * the data type for bytes), and the ratios of Arnold 5.2.
 */
typedef struct tsched_volumes {
    size_t size;     /**< set by the caller to sizeof(tsched_volumes) before the call (DESIGN 3) */
    double weights;  /**< v_w: parameters held by one GPU (its stage, split by TP) */
    double dp;       /**< v_d: DP volume per GPU per iteration (Eq. 12, split by TP) */
    double pp;       /**< v_p: PP volume per GPU per micro-batch (Eq. 13, split by TP) */
    double microbatches; /**< m = gb / (mb * dp) (Eq. 11) */
    double r1;       /**< mb * v_w / (v_d + v_p): computation over communication */
    double r2;       /**< v_d / v_p: DP over PP volume */
} tsched_volumes;

/**
 * Create a job of `gpus` GPUs with tensor parallelism `tp` and pipeline parallelism `pp`
 * (dp = gpus / (tp * pp)); alpha 0.5, unit pp, domain auto, no model. `name` may be NULL
 * or "" ("job"). The caller frees
 * `*out` with tsched_job_free(). Errors: TSCHED_E_RANGE naming the field when `gpus` is not
 * a multiple of tp * pp or a value is 0.
 */
TSCHED_API tsched_status tsched_job_new(tsched_job **out, const char *name, uint32_t gpus, uint32_t tp, uint32_t pp);

/** Load a `tsched.job.v1` document from a file (`"-"` = stdin). Errors name the field. */
TSCHED_API tsched_status tsched_job_load_file(tsched_job **out, const char *path);

/** Load a `tsched.job.v1` document from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_job_load_string(tsched_job **out, const char *json, size_t len);

/** Free a job. NULL is a no-op. */
TSCHED_API void tsched_job_free(tsched_job *job);

/** Write the job as `tsched.job.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_job_to_json(char **out, const tsched_job *job);

/** Set alpha in [0, 1] (beta = 1 - alpha). Errors: TSCHED_E_RANGE. */
TSCHED_API tsched_status tsched_job_set_alpha(tsched_job *job, double alpha);
/** Ask for alpha from the affinity lookup ("alpha": "auto"); needs a model. */
TSCHED_API tsched_status tsched_job_set_alpha_auto(tsched_job *job);
/** Set the scheduling unit. Errors: TSCHED_E_RANGE for an unknown value. */
TSCHED_API tsched_status tsched_job_set_unit(tsched_job *job, tsched_unit unit);
/** Set the domain level. Errors: TSCHED_E_RANGE for an unknown value. */
TSCHED_API tsched_status tsched_job_set_domain(tsched_job *job, tsched_domain domain);
/** Attach a model (copied). Errors: TSCHED_E_RANGE naming the field (zero sizes, gb not a multiple of mb). */
TSCHED_API tsched_status tsched_job_set_model(tsched_job *job, const tsched_model *model);

/** Name (owned by the job). */
TSCHED_API const char *tsched_job_name(const tsched_job *job);
/** GPUs, TP, PP, DP of the job (0 for NULL). */
TSCHED_API uint32_t tsched_job_gpus(const tsched_job *job);
TSCHED_API uint32_t tsched_job_tp(const tsched_job *job);
TSCHED_API uint32_t tsched_job_pp(const tsched_job *job);
TSCHED_API uint32_t tsched_job_dp(const tsched_job *job);
/** Alpha as set; a negative value means "auto" (not resolved yet); NaN for NULL. */
TSCHED_API double tsched_job_alpha(const tsched_job *job);
/** Scheduling unit and domain level (TSCHED_UNIT_PP and TSCHED_DOMAIN_AUTO for NULL). */
TSCHED_API tsched_unit tsched_job_unit(const tsched_job *job);
TSCHED_API tsched_domain tsched_job_domain(const tsched_job *job);
/** Copy the model into `*model` (its `size` must be set); TSCHED_E_NOT_FOUND if the job has none. */
TSCHED_API tsched_status tsched_job_model(tsched_model *model, const tsched_job *job);

/**
 * Arnold Eq. 1: the communication matrix on nodes of `gpus_per_node` GPUs: rows =
 * dp / (gpus_per_node / tp) PP groups, cols = pp DP groups, one whole node per cell.
 * Errors (TSCHED_E_RANGE, naming the numbers): tp does not divide gpus_per_node, or
 * gpus_per_node / tp does not divide dp.
 */
TSCHED_API tsched_status tsched_job_matrix(uint32_t *rows, uint32_t *cols, const tsched_job *job,
                                           uint32_t gpus_per_node);

/**
 * Arnold App. C volumes and the 5.2 ratios of the job's model; `out->size` must be set (the
 * library writes only the fields it covers). Errors: TSCHED_E_INVALID (NULL, bad size), TSCHED_E_NOT_FOUND
 * (no model), TSCHED_E_RANGE (gb not divisible by mb * dp, layers not divisible by pp).
 * The MoE assumption is documented in doc/workload.md.
 */
TSCHED_API tsched_status tsched_job_volumes(tsched_volumes *out, const tsched_job *job);

/** Opaque characterization database `tsched.affinity.v1`. */
typedef struct tsched_affinity tsched_affinity;

/** The built-in database (Arnold's published measurements, see doc/workload.md). Free with tsched_affinity_free(). */
TSCHED_API tsched_status tsched_affinity_default(tsched_affinity **out);
/** Load a `tsched.affinity.v1` database. Errors name the field. */
TSCHED_API tsched_status tsched_affinity_load_file(tsched_affinity **out, const char *path);
/** Load a `tsched.affinity.v1` database from memory. */
TSCHED_API tsched_status tsched_affinity_load_string(tsched_affinity **out, const char *json, size_t len);
/** Free a database. NULL is a no-op. */
TSCHED_API void tsched_affinity_free(tsched_affinity *db);
/** Number of records. */
TSCHED_API uint32_t tsched_affinity_count(const tsched_affinity *db);

/**
 * Record `index` of a database: its GPU type (owned by the database), ratios and measured
 * improvements; any out-parameter may be NULL. Errors: TSCHED_E_INVALID for a bad index.
 */
TSCHED_API tsched_status tsched_affinity_record(const char **gpu_type, double *r1, double *r2, double *j_dp,
                                                double *j_pp, const tsched_affinity *db, uint32_t index);

/** Write a database as `tsched.affinity.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_affinity_to_json(char **out, const tsched_affinity *db);

/**
 * Nearest record (Euclidean distance in (r1, r2)) among those of `gpu_type`; `*alpha` =
 * j_dp / (j_dp + j_pp) of that record and `*record` (may be NULL) its index.
 * Errors: TSCHED_E_NOT_FOUND when no record has this GPU type.
 */
TSCHED_API tsched_status tsched_affinity_lookup(double *alpha, uint32_t *record, const tsched_affinity *db,
                                                const char *gpu_type, double r1, double r2);

/**
 * The alpha to use for `job` on `gpu_type`: the job's own alpha, or for "auto" the lookup
 * of its model's ratios in `db` (NULL = the built-in database).
 */
TSCHED_API tsched_status tsched_job_resolve_alpha(double *alpha, const tsched_job *job, const tsched_affinity *db,
                                                  const char *gpu_type);

/* ---- flows (tsched.flows.v1) ---------------------------------------------------------- */

/** Opaque set of flows, all active at the same time (one communication step). */
typedef struct tsched_flows tsched_flows;

/** Collective patterns (DESIGN 6 `--pattern`). */
typedef enum tsched_pattern {
    TSCHED_PATTERN_DP_RING = 0,  /**< ring all-reduce inside every DP group (column) */
    TSCHED_PATTERN_DP_HD = 1,    /**< recursive halving-doubling inside every DP group, one step */
    TSCHED_PATTERN_PP = 2,       /**< send/recv between adjacent stages of every PP group (row) */
    TSCHED_PATTERN_ALLTOALL = 3  /**< pairwise exchange inside every DP group, one step */
} tsched_pattern;

/** Name of a pattern ("dp-ring", "dp-hd", "pp", "alltoall"); "?" if unknown. Static string. */
TSCHED_API const char *tsched_pattern_name(tsched_pattern pattern);
/** Pattern from its name. Errors: TSCHED_E_FORMAT naming the unknown name. */
TSCHED_API tsched_status tsched_pattern_from_name(tsched_pattern *pattern, const char *name);

/** An empty flow set; the caller frees it with tsched_flows_free(). */
TSCHED_API tsched_status tsched_flows_new(tsched_flows **out);
/** Free a flow set. NULL is a no-op. */
TSCHED_API void tsched_flows_free(tsched_flows *flows);

/**
 * Append a flow of `gbits` gigabits from NIC `src_nic` of node `src` to NIC `dst_nic` of
 * node `dst` (node indices of the fabric the flows will be routed on). `job` may be NULL.
 * `*index` (may be NULL) receives the flow's index. Errors: TSCHED_E_RANGE (gbits not
 * finite and positive), TSCHED_E_INVALID (src == dst with the same NIC), TSCHED_E_TOO_LARGE.
 */
TSCHED_API tsched_status tsched_flows_add(uint32_t *index, tsched_flows *flows, const char *job, uint32_t src,
                                          uint32_t src_nic, uint32_t dst, uint32_t dst_nic, double gbits);

/** Number of flows. */
TSCHED_API uint32_t tsched_flows_count(const tsched_flows *flows);
/** Source and destination node, NICs, volume and job of flow `i` (0 / NULL for a bad index). */
TSCHED_API uint32_t tsched_flows_src(const tsched_flows *flows, uint32_t i);
TSCHED_API uint32_t tsched_flows_dst(const tsched_flows *flows, uint32_t i);
TSCHED_API uint32_t tsched_flows_src_nic(const tsched_flows *flows, uint32_t i);
TSCHED_API uint32_t tsched_flows_dst_nic(const tsched_flows *flows, uint32_t i);
TSCHED_API double tsched_flows_gbits(const tsched_flows *flows, uint32_t i);
/** Job name of flow `i`, or NULL when it has none (owned by the flow set; valid until the
 * next tsched_flows_add or tsched_flows_collective on it). */
TSCHED_API const char *tsched_flows_job(const tsched_flows *flows, uint32_t i);

/**
 * Load a `tsched.flows.v1` document; node names are resolved against `topo` and NIC
 * indices checked against its nodes. Errors name the field (`flows[3].dst`).
 */
TSCHED_API tsched_status tsched_flows_load_file(tsched_flows **out, const tsched_topology *topo, const char *path);
/** Load a `tsched.flows.v1` document from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_flows_load_string(tsched_flows **out, const tsched_topology *topo, const char *json,
                                                  size_t len);
/** Write `tsched.flows.v1`; the caller frees `*out` with tsched_free(). */
TSCHED_API tsched_status tsched_flows_to_json(char **out, const tsched_flows *flows, const tsched_topology *topo);
/** tsched_flows_to_json() laid out as `opts` asks (NULL: indented; the document has no timing). The
 *  compact text is the same document without whitespace. Errors as tsched_flows_to_json(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_flows_to_json_opts(char **out, const tsched_flows *flows, const tsched_topology *topo,
                                                   const tsched_output_opts *opts);

/**
 * Number of flow sets (steps) a pattern has for a rows x cols matrix: 1 for dp-ring and pp,
 * log2(rows) for dp-hd (rows must be a power of two), rows - 1 for alltoall; at least 1
 * (a DP group of one node gives one empty step).
 * Errors: TSCHED_E_RANGE naming the shape.
 */
TSCHED_API tsched_status tsched_pattern_steps(uint32_t *steps, tsched_pattern pattern, uint32_t rows, uint32_t cols);

/**
 * Append to `flows` the flows step `step` of `pattern` puts on the fabric for a job laid
 * out as `nodes` (rows * cols node indices of `topo`, row-major: cell (r, c) at r * cols + c,
 * as tsched_placement_nodes() gives). Every node pair of the pattern gets one flow per NIC
 * rail (NIC k to NIC k), so GPU k talks to GPU k. Volumes: `gbits` per flow when > 0,
 * else the App. C volumes of `job` (doc/workload.md); `job` may be NULL when `gbits` > 0. Errors: TSCHED_E_RANGE (bad step,
 * shape), TSCHED_E_NOT_FOUND (no gbits and no model), TSCHED_E_INVALID (nodes with
 * different NIC counts, a bad node index).
 */
TSCHED_API tsched_status tsched_flows_collective(tsched_flows *flows, const tsched_topology *topo,
                                                 const tsched_job *job, 
                                                 const uint32_t *nodes, uint32_t rows, uint32_t cols,
                                                 tsched_pattern pattern, uint32_t step, double gbits);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_WORKLOAD_H */
