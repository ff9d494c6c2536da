/* STUB (groundwork): the Cell-based scheduler, replaced by crius*.c proper. */
#include <stdlib.h>

#include "cell_internal.h"

#define NI return ts_error(TSCHED_E_INTERNAL, "%s: not implemented yet", __func__)

tsched_status tsched_crius_new(tsched_crius **out, const tsched_topology *topo, const tsched_gpu_catalog *cat)
{ (void)out; (void)topo; (void)cat; NI; }
tsched_status tsched_crius_set_depth(tsched_crius *cr, uint32_t depth) { (void)cr; (void)depth; NI; }
tsched_status tsched_crius_set_objective(tsched_crius *cr, tsched_crius_objective obj) { (void)cr; (void)obj; NI; }
tsched_status tsched_crius_add_job(uint32_t *index, tsched_crius *cr, const tsched_job *job, double submit)
{ (void)index; (void)cr; (void)job; (void)submit; NI; }
tsched_status tsched_crius_set_running(tsched_crius *cr, uint32_t job, const char *pool, uint32_t n_gpus,
                                       uint32_t stages, const uint32_t *nodes, const uint32_t *node_gpus,
                                       uint32_t count)
{ (void)cr; (void)job; (void)pool; (void)n_gpus; (void)stages; (void)nodes; (void)node_gpus; (void)count; NI; }
tsched_status tsched_crius_load_queue(tsched_crius *cr, const char *path) { (void)cr; (void)path; NI; }
tsched_status tsched_crius_load_queue_string(tsched_crius *cr, const char *json, size_t len)
{ (void)cr; (void)json; (void)len; NI; }
tsched_status tsched_crius_remove_job(tsched_crius *cr, uint32_t job) { (void)cr; (void)job; NI; }
tsched_status tsched_crius_schedule(tsched_crius *cr, tsched_crius_event event) { (void)cr; (void)event; NI; }
uint32_t tsched_crius_num_jobs(const tsched_crius *cr) { (void)cr; return 0; }
const char *tsched_crius_job_name(const tsched_crius *cr, uint32_t job) { (void)cr; (void)job; return NULL; }
int tsched_crius_job_running(const tsched_crius *cr, uint32_t job) { (void)cr; (void)job; return 0; }
int tsched_crius_job_changed(const tsched_crius *cr, uint32_t job) { (void)cr; (void)job; return 0; }
const char *tsched_crius_job_reason(const tsched_crius *cr, uint32_t job) { (void)cr; (void)job; return NULL; }
double tsched_crius_job_reference(const tsched_crius *cr, uint32_t job) { (void)cr; (void)job; return 0; }
tsched_status tsched_crius_job_cell(const tsched_cell **cell, const tsched_crius *cr, uint32_t job)
{ (void)cell; (void)cr; (void)job; NI; }
tsched_status tsched_crius_job_nodes(uint32_t *nodes, uint32_t *node_gpus, size_t cap, size_t *count,
                                     const tsched_crius *cr, uint32_t job)
{ (void)nodes; (void)node_gpus; (void)cap; (void)count; (void)cr; (void)job; NI; }
double tsched_crius_value(const tsched_crius *cr) { (void)cr; return 0; }
tsched_status tsched_crius_to_json(char **out, const tsched_crius *cr, int with_time) { (void)out; (void)cr; (void)with_time; NI; }
void tsched_crius_free(tsched_crius *cr) { (void)cr; }
