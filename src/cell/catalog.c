/* STUB (groundwork): the catalogue, profile and pool functions, replaced by catalog.c,
 * profile.c and pools.c proper. */
#include <stdlib.h>

#include "cell_internal.h"

#define NI return ts_error(TSCHED_E_INTERNAL, "%s: not implemented yet", __func__)

tsched_status tsched_gpu_catalog_default(tsched_gpu_catalog **out) { (void)out; NI; }
tsched_status tsched_gpu_catalog_load_file(tsched_gpu_catalog **out, const char *path) { (void)out; (void)path; NI; }
tsched_status tsched_gpu_catalog_load_string(tsched_gpu_catalog **out, const char *json, size_t len)
{ (void)out; (void)json; (void)len; NI; }
tsched_status tsched_gpu_catalog_merge(tsched_gpu_catalog *dst, const tsched_gpu_catalog *src) { (void)dst; (void)src; NI; }
uint32_t tsched_gpu_catalog_count(const tsched_gpu_catalog *cat) { return cat ? cat->n : 0; }
tsched_status tsched_gpu_catalog_get(tsched_gpu_info *info, const tsched_gpu_catalog *cat, uint32_t index)
{ (void)info; (void)cat; (void)index; NI; }
tsched_status tsched_gpu_catalog_find(tsched_gpu_info *info, const tsched_gpu_catalog *cat, const char *name)
{ (void)info; (void)cat; (void)name; NI; }
tsched_status tsched_gpu_catalog_to_json(char **out, const tsched_gpu_catalog *cat) { (void)out; (void)cat; NI; }
void tsched_gpu_catalog_free(tsched_gpu_catalog *cat) { (void)cat; }
const ts_gpu *ts_catalog_find(const tsched_gpu_catalog *cat, const char *name) { (void)cat; (void)name; return NULL; }
tsched_status ts_catalog_clone(tsched_gpu_catalog **out, const tsched_gpu_catalog *cat) { (void)out; (void)cat; NI; }

tsched_status tsched_op_profile_load_file(tsched_op_profile **out, const char *path) { (void)out; (void)path; NI; }
tsched_status tsched_op_profile_load_string(tsched_op_profile **out, const char *json, size_t len)
{ (void)out; (void)json; (void)len; NI; }
const char *tsched_op_profile_gpu_type(const tsched_op_profile *p) { return p ? p->gpu_type : NULL; }
uint32_t tsched_op_profile_layers(const tsched_op_profile *p) { return p ? p->nlayers : 0; }
void tsched_op_profile_free(tsched_op_profile *p) { (void)p; }
tsched_status ts_profile_clone(tsched_op_profile **out, const tsched_op_profile *p) { (void)out; (void)p; NI; }
int ts_profile_coll_time(double *secs, const tsched_op_profile *p, ts_coll_op op, int inter, uint32_t ranks,
                         double bytes)
{ (void)secs; (void)p; (void)op; (void)inter; (void)ranks; (void)bytes; return 0; }

tsched_status tsched_cell_pools(char ***names, uint32_t *count, const tsched_topology *topo)
{ (void)names; (void)count; (void)topo; NI; }
tsched_status ts_pools_build(ts_pools *out, const tsched_topology *topo) { (void)out; (void)topo; NI; }
void ts_pools_free(ts_pools *pools) { (void)pools; }
uint32_t ts_pools_find(const ts_pools *pools, const char *name) { (void)pools; (void)name; return UINT32_MAX; }
