/* STUB (groundwork): stage determination, estimation, tuning, getters and Cell JSON,
 * replaced by stages.c, model.c, plans.c, estimate.c and cell_json.c proper. */
#include <stdlib.h>

#include "cell_internal.h"

#define NI return ts_error(TSCHED_E_INTERNAL, "%s: not implemented yet", __func__)

tsched_status tsched_cell_stages(uint32_t *first_layer, uint32_t *gpus, const tsched_job *job,
                                 const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages)
{ (void)first_layer; (void)gpus; (void)job; (void)profile; (void)n_gpus; (void)stages; NI; }
tsched_status tsched_cell_estimate(tsched_cell **out, const tsched_topology *topo, const char *pool,
                                   const tsched_gpu_catalog *cat, const tsched_job *job,
                                   const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages,
                                   tsched_plan_space space)
{ (void)out; (void)topo; (void)pool; (void)cat; (void)job; (void)profile; (void)n_gpus; (void)stages; (void)space; NI; }
tsched_status tsched_cell_tune(tsched_cell **out, const tsched_cell *estimate) { (void)out; (void)estimate; NI; }
int tsched_cell_feasible(const tsched_cell *c) { (void)c; return 0; }
const char *tsched_cell_reason(const tsched_cell *c) { (void)c; return ""; }
double tsched_cell_iteration_s(const tsched_cell *c) { (void)c; return 0; }
double tsched_cell_throughput(const tsched_cell *c) { (void)c; return 0; }
uint32_t tsched_cell_num_stages(const tsched_cell *c) { (void)c; return 0; }
uint32_t tsched_cell_gpus(const tsched_cell *c) { (void)c; return 0; }
const char *tsched_cell_pool(const tsched_cell *c) { (void)c; return NULL; }
tsched_status tsched_cell_space(tsched_plan_space *space, uint64_t *plans_evaluated, const tsched_cell *c)
{ (void)space; (void)plans_evaluated; (void)c; NI; }
tsched_status tsched_cell_stage(uint32_t *first_layer, uint32_t *layers, uint32_t *gpus, uint32_t *dp,
                                uint32_t *tp, double *time_s, double *mem_bytes, const tsched_cell *c,
                                uint32_t stage)
{ (void)first_layer; (void)layers; (void)gpus; (void)dp; (void)tp; (void)time_s; (void)mem_bytes; (void)c; (void)stage; NI; }
tsched_status tsched_cell_to_json(char **out, const tsched_cell *c) { (void)out; (void)c; NI; }
void tsched_cell_free(tsched_cell *c) { (void)c; }
tsched_status ts_cell_estimate_in(tsched_cell **out, const ts_cell_in *in, uint32_t n_gpus, uint32_t stages,
                                  tsched_plan_space space)
{ (void)out; (void)in; (void)n_gpus; (void)stages; (void)space; NI; }
tsched_status ts_cell_json(json_t **out, const tsched_cell *c) { (void)out; (void)c; NI; }
tsched_status ts_cell_stage_plan_json(json_t **out, const tsched_cell *c) { (void)out; (void)c; NI; }
const char *ts_cell_gpu_type(const tsched_cell *c) { (void)c; return NULL; }
