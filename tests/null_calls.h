/*
 * The NULL-argument table of test_abi_null.c: tests/gen_null_calls.py writes one thunk per
 * (exported function, pointer parameter) that calls the function with NULL in that parameter
 * and the valid values of this context in the others.
 */
#ifndef TSCHED_NULL_CALLS_H
#define TSCHED_NULL_CALLS_H

#include <stddef.h>

#include "topo-sched/topo-sched.h"

/** Elements of every scratch buffer, and the `cap` passed with it. */
#define NT_BUF 64
/** Nodes of the fixture DAG, and the `n` of tsched_levels_to_json. */
#define NT_LEVELS 3
/** Events the fixture's sim reports to its callback (tsched_sim_event_kind bits). */
#define NT_SIM_EVENTS (TSCHED_SIM_EV_ARRIVE | TSCHED_SIM_EV_START | TSCHED_SIM_EV_FINISH | TSCHED_SIM_EV_PHASE_END)

/** Valid arguments: the fixture (built once, never changed by a call) and scratch space. */
struct nt_ctx {
    /* fixture handles, read-only for every call */
    tsched_topology *topo;
    tsched_job *job;      /* 16 GPUs, tp 8, pp 1, with a model */
    tsched_job *job_auto; /* the same with alpha "auto" */
    tsched_placement *placement;
    tsched_flows *flows;
    tsched_routes *routes;
    tsched_jobset *jobset;
    tsched_priorities *prio;
    tsched_dag *dag;
    tsched_affinity *aff;
    tsched_reservation *resv;
    uint64_t topo_id, topo_gen;
    uint32_t rows, cols;
    const uint32_t *placement_nodes;
    const char *gpu_type; /* a GPU type of the built-in affinity database */
    const char *leaves[1];
    uint32_t zeros[NT_BUF];
    tsched_path route_paths[NT_BUF];
    tsched_model model;
    tsched_limits limits;
    tsched_gen_params gen_params;
    tsched_slurm_options slurm_opts;
    tsched_export_options export_opts;
    tsched_k8s_options k8s_opts;
    tsched_place_options place_opts;
    tsched_route_options route_opts;
    tsched_kcut_options kcut_opts;
    tsched_prio_options prio_opts;
    tsched_twojob twojob;
    /* simulation: its own fabric (a run changes the fabric's state), one job ("j", 16 GPUs)
     * with one phase with one explicit flow, run to the end; its result */
    tsched_topology *sim_topo;
    tsched_sim *sim;
    tsched_sim_result *sim_result;
    tsched_sim_job sim_job;     /* a valid job named "nj", for tsched_sim_add_job */
    tsched_sim_phase sim_phase; /* pattern -1 */
    tsched_sim_callback sim_cb;
    unsigned sim_cb_calls; /* events seen by sim_cb */
    int64_t sim_end;       /* tsched_sim_now() of the fixture's sim after its run */
    char *sim_result_json; /* sim_result, without timing */
    /* vclos: a leaf-spine of its own (4 leaves x 4 spines x 2 nodes x 8 GPUs); `vclos` runs
     * job "x" (16 GPUs: stage 1, both nodes of leaf0); its JSON (load_state's input) and a
     * requests document */
    tsched_topology *vc_topo;
    tsched_vclos *vclos;
    char *vclos_json, *vclos_req_json, *vclos_fixture_json;
    /* cell (cell_fixture in test_abi_null.c): a heterogeneous fabric of its own (leaf0: a0, a1
     * A100 x4, a1 busy; leaf1: t0, t1 T4 x2, g0 of a type the catalogue lacks), job "cj" (4
     * GPUs, a 4-layer model), the built-in catalogue, an A100 op profile of that model, the
     * Cell (A100/4, 4 GPUs, 2 stages) and a scheduler that ran "cj" (job 0); the documents as
     * text and files (a queue of job "q"); cell_busy = {a1}, cell_busy_gpus = {4}: the GPUs a
     * fresh scheduler's job 0 "r" (4 GPUs, not running) may be set running on */
    tsched_gpu_catalog *cat;
    tsched_op_profile *profile;
    tsched_cell *cell;
    tsched_crius *crius;
    tsched_topology *cell_topo;
    tsched_job *cell_job;
    uint32_t cell_busy[1], cell_busy_gpus[1];
    char *cat_json, *profile_json, *queue_json, *cell_json, *crius_json, *cell_topo_json, *cell_job_json;
    char cat_path[64], profile_path[64], queue_path[64];
    /* documents, as text and as files */
    char *topo_json, *job_json, *aff_json, *flows_json, *placement_json, *dag_json, *jobset_json, *slurm_text, *slurm_yaml_text, *k8s_text;
    char *trace_json, *scenario_json;
    char *routes_json, routes_path[64]; /* tsched.routes.v1 of `routes` */
    char topo_path[64], job_path[64], aff_path[64], flows_path[64], placement_path[64], dag_path[64],
        jobset_path[64], slurm_path[64], slurm_yaml_path[64], k8s_path[64], save_path[64], trace_path[64], scenario_path[64];
    /* traces: poisson options (2 jobs), a pod CSV (text and file), a dcn job file (text and
     * in a folder) */
    tsched_trace_options trace_opts, trace_set_opts;
    const char *trace_mix, *trace_csv, *dcn_names[1], *dcn_texts[1];
    char trace_csv_path[64], dcn_dir[64], dcn_file[96];

    /* fresh handles of one call (nt_fresh_*), freed after it */
    tsched_topology *s_topo;
    tsched_job *s_job;
    tsched_flows *s_flows;
    tsched_dag *s_dag;
    tsched_router *s_router;
    tsched_placement *s_placement;
    tsched_routes *s_routes;
    tsched_jobset *s_jobset;
    tsched_priorities *s_prio;
    tsched_affinity *s_aff;
    tsched_reservation *s_resv;
    void *s_mem;
    tsched_sim *s_sim;
    tsched_topology *s_sim_topo; /* the fabric of s_sim, freed after it */
    tsched_vclos *s_vclos;
    tsched_gpu_catalog *s_cat;
    tsched_op_profile *s_profile;
    tsched_cell *s_cell;
    tsched_crius *s_crius;
    tsched_service *s_service;
    /* out-parameters of one call, freed after it when set */
    tsched_topology *o_topo;
    tsched_job *o_job;
    tsched_placement *o_placement;
    tsched_flows *o_flows;
    tsched_routes *o_routes;
    tsched_router *o_router;
    tsched_jobset *o_jobset;
    tsched_priorities *o_prio;
    tsched_dag *o_dag;
    tsched_affinity *o_aff;
    tsched_reservation *o_resv;
    tsched_sim *o_sim;
    tsched_sim_result *o_sim_result;
    tsched_vclos *o_vclos;
    tsched_gpu_catalog *o_cat;
    tsched_op_profile *o_profile;
    tsched_cell *o_cell;
    tsched_crius *o_crius;
    tsched_service *o_service;
    int o_int;
    const tsched_cell *o_ccell;
    char **o_strs;
    tsched_gpu_info o_gpu_info;
    tsched_plan_space o_plan_space;
    const char *o_cstrs[NT_BUF];
    tsched_vclos_outcome o_vclos_outcome;
    tsched_vclos_change o_vclos_change[NT_BUF];
    tsched_vclos_jobinfo o_vclos_jobinfo;
    char *o_str;
    const char *o_cstr;
    tsched_admit o_admit;
    tsched_pattern o_pattern;
    tsched_place_algo o_place_algo;
    tsched_export_format o_export_format;
    tsched_export_options o_export_opts;
    tsched_route_algo o_route_algo;
    tsched_kcut_algo o_kcut_algo;
    tsched_prio_order o_prio_order;
    tsched_gen_params o_gen_params;
    tsched_slurm_options o_slurm_opts;
    tsched_k8s_options o_k8s_opts;
    tsched_place_options o_place_opts;
    tsched_route_options o_route_opts;
    tsched_kcut_options o_kcut_opts;
    tsched_prio_options o_prio_opts;
    tsched_trace_options o_trace_opts;
    uint32_t o_u32[NT_BUF];
    uint64_t o_u64[NT_BUF];
    size_t o_size[NT_BUF];
    double o_dbl[NT_BUF];
    tsched_path o_paths[NT_BUF];
    tsched_volumes o_volumes;
    tsched_spread o_spread;
    tsched_model o_model;
    tsched_limits o_limits;
    tsched_sim_job_stats o_sim_job_stats;
    tsched_sim_summary o_sim_summary;
};

/* Fresh objects and initialised output space for one call (test_abi_null.c). */
tsched_topology *nt_fresh_topo(struct nt_ctx *c);
tsched_topology *nt_fresh_unbuilt(struct nt_ctx *c);
tsched_job *nt_fresh_job(struct nt_ctx *c);
tsched_gpu_catalog *nt_fresh_cat(struct nt_ctx *c);
tsched_op_profile *nt_fresh_profile(struct nt_ctx *c);
tsched_cell *nt_fresh_cell(struct nt_ctx *c);
tsched_crius *nt_fresh_crius(struct nt_ctx *c);
tsched_service *nt_fresh_service(struct nt_ctx *c);
tsched_gpu_info *nt_gpu_info(struct nt_ctx *c);
tsched_flows *nt_fresh_flows(struct nt_ctx *c);
tsched_dag *nt_fresh_dag(struct nt_ctx *c);
tsched_router *nt_fresh_router(struct nt_ctx *c);
tsched_placement *nt_fresh_placement(struct nt_ctx *c);
tsched_routes *nt_fresh_routes(struct nt_ctx *c);
tsched_jobset *nt_fresh_jobset(struct nt_ctx *c);
tsched_priorities *nt_fresh_prio(struct nt_ctx *c);
tsched_affinity *nt_fresh_aff(struct nt_ctx *c);
tsched_reservation *nt_fresh_resv(struct nt_ctx *c);
void *nt_fresh_mem(struct nt_ctx *c);
tsched_sim *nt_fresh_sim(struct nt_ctx *c);
uint32_t *nt_u32(struct nt_ctx *c);
uint64_t *nt_u64(struct nt_ctx *c);
size_t *nt_size(struct nt_ctx *c);
double *nt_dbl(struct nt_ctx *c);
/* A stream to /dev/null for the writers that take a FILE. */
FILE *nt_file(struct nt_ctx *c);
tsched_path *nt_paths(struct nt_ctx *c);
tsched_volumes *nt_volumes(struct nt_ctx *c);
tsched_spread *nt_spread(struct nt_ctx *c);
tsched_model *nt_model_out(struct nt_ctx *c);
tsched_limits *nt_limits_out(struct nt_ctx *c);
tsched_sim_job_stats *nt_sim_job_stats(struct nt_ctx *c);
tsched_sim_summary *nt_sim_summary(struct nt_ctx *c);
tsched_vclos *nt_fresh_vclos(struct nt_ctx *c);
tsched_vclos *nt_fresh_vclos_free(struct nt_ctx *c);
tsched_vclos *nt_fresh_vclos_empty(struct nt_ctx *c);
tsched_vclos_jobinfo *nt_vclos_jobinfo(struct nt_ctx *c);

/** What a call returned. */
enum nt_kind {
    NT_STATUS, /* a tsched_status */
    NT_VOID,   /* nothing (init and free functions) */
    NT_STR,    /* a string (getter) */
    NT_PTR,    /* an array (getter) */
    NT_NUM     /* a number or an enumerated value (getter) */
};

struct nt_result {
    tsched_status status;
    const char *str;
    const void *ptr;
    double num;
};

/**
 * One row: the call with NULL in `param`; `param` "" for the call of a status function with
 * valid values only; `param` NULL (and `call` NULL) for a function without pointer parameters.
 */
struct nt_entry {
    const char *func;
    const char *param;
    int nparams;
    enum nt_kind kind;
    void (*call)(struct nt_ctx *c, struct nt_result *r);
};

extern const struct nt_entry nt_entries[];
extern const size_t nt_nentries;

#endif
