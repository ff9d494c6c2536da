/* STUB: the tsched.gpus.v1 reader and writer (replaced next). */
#include "cell_internal.h"

#define NI return ts_error(TSCHED_E_INTERNAL, "%s: not implemented yet", __func__)

tsched_status tsched_gpu_catalog_load_file(tsched_gpu_catalog **out, const char *path) { (void)out; (void)path; NI; }
tsched_status tsched_gpu_catalog_load_string(tsched_gpu_catalog **out, const char *json, size_t len)
{ (void)out; (void)json; (void)len; NI; }
tsched_status tsched_gpu_catalog_to_json(char **out, const tsched_gpu_catalog *cat) { (void)out; (void)cat; NI; }
