/* Placeholder: replaced by the Slurm import work. */
#include <string.h>
#include "topology_internal.h"
void tsched_slurm_options_init(tsched_slurm_options *o) { if (o) { memset(o, 0, sizeof *o); o->size = sizeof *o; o->gpus_per_node = 8; o->nic_gbps = 400; } }
tsched_status tsched_topology_import_slurm_string(tsched_topology **out, const char *text, size_t len, const tsched_slurm_options *opts)
{ (void)out; (void)text; (void)len; (void)opts; return ts_error(TSCHED_E_INTERNAL, "not yet"); }
tsched_status tsched_topology_import_slurm_file(tsched_topology **out, const char *path, const tsched_slurm_options *opts)
{ (void)out; (void)path; (void)opts; return ts_error(TSCHED_E_INTERNAL, "not yet"); }
