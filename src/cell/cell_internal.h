/* Internal: the cell module (doc/cell.md; contract in the design note of Crius Cells).
 * Who does what:
 *   catalog.c    GPU catalogue: built-in table, tsched.gpus.v1 reader/writer, merge, lookups
 *   profile.c    tsched.op-profile.v1 reader, clone, collective interpolation
 *   pools.c      pools "TYPE/G" of a fabric (name order, G, U, nodes)
 *   stages.c     stage determination (§2): exact bottleneck, bytes, earliest cuts
 *   model.c      the cost model of §3.2 for one stage plan (C, X, K, A, M)
 *   plans.c      per-stage options of the three plan spaces and their exact optimum (§3.3)
 *   estimate.c   tsched_cell_estimate / _tune / getters; ts_cell_estimate_in
 *   cell_json.c  one Cell as JSON (tsched.cells.v1 element, stage_plan)
 *   crius*.c     the Cell-based scheduler (§5): state, fit rule, events, queue reader, JSON
 *
 * Units: bandwidths in the structs below are the documents' Gbit/s; the cost model converts
 * (bytes/s = gbps * 1e9 / 8). */
#ifndef TS_CELL_INTERNAL_H
#define TS_CELL_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "topo-sched/cell.h"
#include "../common/error.h"

/* ---- catalogue (catalog.c) ---- */
typedef struct ts_gpu {
    char *name;
    double tflops, mem_gib, intra_gbps, efficiency;
    char *note; /* NULL when absent */
} ts_gpu;

struct tsched_gpu_catalog {
    uint32_t n;
    ts_gpu *gpus; /* sorted by name (strcmp) */
};

/* Entry named `name` or NULL. O(log n). */
const ts_gpu *ts_catalog_find(const tsched_gpu_catalog *cat, const char *name);
/* Deep copy. */
tsched_status ts_catalog_clone(tsched_gpu_catalog **out, const tsched_gpu_catalog *cat);

/* ---- op profile (profile.c) ---- */
typedef enum ts_coll_op { TS_COLL_ALLREDUCE = 0, TS_COLL_ALLGATHER = 1, TS_COLL_SENDRECV = 2 } ts_coll_op;

typedef struct ts_prof_layer {
    double time_s;    /* forward + backward of one sequence on one GPU (replaces phi_i / F) */
    double params;    /* replaces p_i */
    double act_bytes; /* stored activations per sequence (replaces 34 seq h) */
    double out_bytes; /* output per sequence (replaces 2 seq h) */
} ts_prof_layer;

typedef struct ts_prof_coll {
    ts_coll_op op;
    int inter;       /* 0 = scope intra (W), 1 = inter (U) */
    uint32_t ranks;  /* >= 2; 1 for sendrecv */
    uint32_t npoints;
    double *bytes;   /* ascending */
    double *secs;    /* non-decreasing */
} ts_prof_coll;

struct tsched_op_profile {
    char *gpu_type;
    uint32_t nlayers;
    ts_prof_layer *layers;
    uint32_t ncoll;
    ts_prof_coll *coll;
};

/* Deep copy (a Cell keeps one for tsched_cell_tune). */
tsched_status ts_profile_clone(tsched_op_profile **out, const tsched_op_profile *p);
/* Time of `bytes` moved by collective `op` among `ranks` at scope `inter`, interpolated
 * piecewise-linearly (through (0, 0) below the first point, the last segment's slope past
 * the last). Returns 1 and sets *secs when the profile has a matching entry, else 0. */
int ts_profile_coll_time(double *secs, const tsched_op_profile *p, ts_coll_op op, int inter, uint32_t ranks,
                         double bytes);

/* ---- pools (pools.c) ---- */
typedef struct ts_pool {
    char *name;      /* "TYPE/G" */
    char *gpu_type;  /* TYPE */
    uint32_t G;      /* GPUs per node */
    double U_gbps;   /* min over nodes of nics * nic_gbps / gpus */
    uint32_t nnodes;
    uint32_t *nodes; /* fabric node indices, ascending */
} ts_pool;

typedef struct ts_pools {
    uint32_t n;
    ts_pool *p; /* name order */
} ts_pools;

/* Pools of every node of the fabric (up or down, free or busy). */
tsched_status ts_pools_build(ts_pools *out, const tsched_topology *topo);
void ts_pools_free(ts_pools *pools);
/* Index of the pool named `name`, or UINT32_MAX. O(log n). */
uint32_t ts_pools_find(const ts_pools *pools, const char *name);
/* The figures of the one pool named `pool` ("TYPE/G") in one pass over the nodes, without
 * allocating: its GPU type (owned by the fabric), G and U. Returns its node count (0: no such
 * pool; the outs are then untouched). */
uint32_t ts_pool_lookup(const char **gpu_type, uint32_t *G, double *U_gbps, const tsched_topology *topo,
                        const char *pool);

/* ---- estimation (stages.c, model.c, plans.c, estimate.c) ---- */

/* Largest Cell (GPUs) the estimator takes: layout checks are linear in a stage's GPUs, so an
 * absurd count must be refused, not computed (16.7 M GPUs: far beyond any fabric). */
#define TS_CELL_MAX_GPUS (1u << 24)

/* Everything one Cell estimate reads, resolved: the scheduler and the benchmark call
 * ts_cell_estimate_in directly, without fabric lookups. */
typedef struct ts_cell_in {
    const char *pool;                 /* pool name, copied into the Cell */
    const ts_gpu *gpu;                /* figures of the pool's GPU type, copied */
    uint32_t G;                       /* GPUs per node */
    double U_gbps;                    /* per-GPU network bandwidth of the pool */
    uint32_t hidden, layers, vocab, seq, global_batch, moe_experts; /* the job's model */
    const tsched_op_profile *profile; /* NULL, or a profile of this GPU type and layer count */
} ts_cell_in;

/* Estimate Cell (in, N, S) in `space`. Infeasible Cells are TSCHED_OK with feasible = 0.
 * Errors: TSCHED_E_RANGE (MoE without profile, profile of another layer count),
 * TSCHED_E_INVALID (N or S 0), TSCHED_E_NOMEM. */
tsched_status ts_cell_estimate_in(tsched_cell **out, const ts_cell_in *in, uint32_t n_gpus, uint32_t stages,
                                  tsched_plan_space space);

/* The Cell's element of tsched.cells.v1 `cells` (pool, gpu_type, gpus, stages, feasible,
 * reason or microbatches, iteration_s, throughput, plans_evaluated, stage_plan). */
tsched_status ts_cell_json(json_t **out, const tsched_cell *c);
/* Only its stage_plan array (tsched.crius-schedule.v1 reuses it). */
tsched_status ts_cell_stage_plan_json(json_t **out, const tsched_cell *c);
/* GPU type of the Cell's pool (owned by the Cell). */
const char *ts_cell_gpu_type(const tsched_cell *c);

/* ---- catalogue, profile, pools: additions (helper cio) ---- */

/* Sort the entries by name (strcmp). Readers call it after appending. */
void ts_catalog_sort(tsched_gpu_catalog *cat);

/* Notes on the declarations above (helper cio):
 * - ts_profile_coll_time: a sendrecv query matches the profile's sendrecv entry of that
 *   scope whatever `ranks` says (a send/recv is one pair; the file's entries have ranks 1);
 *   bytes <= 0 (or NaN) give 0 s. Lookups are O(log entries).
 * - ts_pools_build: TSCHED_E_INVALID for an unbuilt fabric. */

/* A number field in [min, max] (`min_open`: (min, max]), finite. Errors name the field as
 * the cell documents do: `gpus[2].tflops: -1 is out of range (> 0)` below the minimum,
 * `...: 2 is out of range (0, 1]` above the maximum. Absent and optional: *out untouched. */
tsched_status ts_cell_json_range(double *out, const json_t *obj, const char *where, const char *key, int required,
                                 double min, int min_open, double max);

#endif
