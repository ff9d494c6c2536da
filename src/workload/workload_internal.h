/* Internal, private to src/workload (other modules: workload_view.h): the job and
 * affinity-database records shared by the workload sources, and helpers the tests reach
 * through the internal archive. */
#ifndef TS_WORKLOAD_INTERNAL_H
#define TS_WORKLOAD_INTERNAL_H

#include "topo-sched/workload.h"

/* what the other modules may use (ts_model_check among it): this module's files see it too */
#include "workload_view.h"

struct tsched_job {
    char *name;
    uint32_t gpus, tp, pp, dp;
    double alpha;     /* in [0, 1]; ignored while alpha_auto */
    int alpha_auto;   /* "alpha": "auto" */
    tsched_unit unit;
    tsched_domain domain;
    int has_model;
    tsched_model model;
};

typedef struct ts_affinity_record {
    char *gpu_type;
    char *note; /* NULL when absent */
    double r1, r2, j_dp, j_pp;
} ts_affinity_record;

struct tsched_affinity {
    ts_affinity_record *rec;
    uint32_t count;
    size_t cap;
};

/* App. C volumes for a shape and model without a job handle (the default database is
 * built from configurations, not jobs). `dp` = gpus / (tp * pp). */
tsched_status ts_volumes_compute(tsched_volumes *out, uint32_t tp, uint32_t pp, uint32_t dp, const tsched_model *m);

/* Expert-parallel degree the volume model assumes: gcd(experts, dp) (1 for dense). */
uint32_t ts_expert_parallel(uint32_t experts, uint32_t dp);

/* Record i of a database (NULL when out of range). */
const ts_affinity_record *ts_affinity_record_at(const tsched_affinity *db, uint32_t i);

/* Write a database as `tsched.affinity.v1` (the caller frees `*out` with tsched_free()). */
tsched_status ts_affinity_to_json(char **out, const tsched_affinity *db);

/* The representative configurations behind the built-in records (doc/workload.md). */
typedef struct ts_affinity_config {
    const char *gpu_type;
    const char *note;
    uint32_t gpus, tp, pp;
    uint32_t hidden, layers, vocab, seq, global_batch, micro_batch, vpp, moe_experts;
    double j_dp, j_pp;
} ts_affinity_config;

/* The configurations of tsched_affinity_default(), in record order; `*n` their number. */
const ts_affinity_config *ts_affinity_default_configs(uint32_t *n);

#endif
