/* STUB: the tsched.op-profile.v1 reader (replaced next). */
#include "cell_internal.h"

#define NI return ts_error(TSCHED_E_INTERNAL, "%s: not implemented yet", __func__)

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
