/* Internal: the service (doc/serve.md): named fabrics, request fields, options, operations. */
#ifndef TS_SERVICE_INTERNAL_H
#define TS_SERVICE_INTERNAL_H

#include <jansson.h>

#include "common/error.h"
#include "topo-sched/topo-sched.h"
#include "topo-sched/service.h"

typedef struct svc_fabric {
    char *name;
    tsched_topology *topo;
    int owned; /* loaded by a request (freed by the service) or attached (the caller's) */
} svc_fabric;

struct tsched_service {
    svc_fabric *fabrics;
    size_t count, cap;
};

/* One request being answered: the service, the parsed request object and the op's name. */
typedef struct svc_req {
    tsched_service *svc;
    const json_t *root;
    const char *op;
    char *extra; /* further answer members beside "result" (",\"hostfile\":...", malloc), or NULL */
    /* A change to the loaded fabrics, made by tsched_service_handle only once the answer
     * exists, so that a request answered with an error (out of memory writing the answer
     * included) leaves them as they were: load `put_topo` (owned) under `put_name`, or
     * unload `drop_name`. */
    const char *put_name, *drop_name;
    tsched_topology *put_topo;
} svc_req;

/* An operation: fills `*result` with the result document (library text, any whitespace;
 * NULL means JSON null) or returns an error status with the message recorded. */
typedef tsched_status (*svc_op_fn)(char **result, svc_req *req);

typedef struct svc_op {
    const char *name;
    svc_op_fn fn;
    const char *const *fields; /* request fields besides id, op and options; NULL-terminated */
    const char *const *options; /* option names accepted (CLI long names without "--") */
    int stops;                  /* "shutdown" */
} svc_op;

/* The operation table (ops.c); `n` receives its length. */
const svc_op *ts_svc_ops(size_t *n);

/* Fabric registry (service.c). */
svc_fabric *ts_svc_find(tsched_service *svc, const char *name);
/* Add or replace `name`; takes `topo` when `owned` (freed also on failure). */
tsched_status ts_svc_put(tsched_service *svc, const char *name, tsched_topology *topo, int owned);
tsched_status ts_svc_remove(tsched_service *svc, const char *name);

/* ---- request fields (fields.c) ---- */

/* Required string field `key` of the request. */
tsched_status ts_svc_str(const char **out, const svc_req *req, const char *key);
/* The document in field `key`: an object (written out compact) or a string holding its JSON
 * text. `*text` is to be freed with free() when `*owned`. Absent: NOT_FOUND if required,
 * else *text = NULL. */
tsched_status ts_svc_doc(char **text, size_t *len, int *owned, const svc_req *req, const char *key, int required);
/* Field `key` naming a loaded fabric (a string), or holding a tsched.topology.v1 document
 * loaded for this request only (*tmp receives it; free it after the request). */
tsched_status ts_svc_topology(tsched_topology **topo, tsched_topology **tmp, const svc_req *req, const char *key);

/* ---- options (fields.c): "options.KEY" in messages; numbers may be JSON numbers or
 * strings as on the command line; flags are true or false. ---- */

const json_t *ts_svc_options(const svc_req *req);
tsched_status ts_svc_opt_flag(int *out, const svc_req *req, const char *key);
/* `*given` (may be NULL) is set when the option is present. */
tsched_status ts_svc_opt_u64(uint64_t *out, int *given, const svc_req *req, const char *key, uint64_t min,
                             uint64_t max);
tsched_status ts_svc_opt_u32(uint32_t *out, int *given, const svc_req *req, const char *key, uint32_t min,
                             uint32_t max);
tsched_status ts_svc_opt_num(double *out, int *given, const svc_req *req, const char *key, double min, int min_open,
                             double max);
tsched_status ts_svc_opt_str(const char **out, const svc_req *req, const char *key);

/* ---- foreign formats (interop.c) ---- */

tsched_status ts_svc_op_import_slurm(char **result, svc_req *req);
tsched_status ts_svc_op_import_slurm_yaml(char **result, svc_req *req);
tsched_status ts_svc_op_import_k8s_nodes(char **result, svc_req *req);
tsched_status ts_svc_op_export(char **result, svc_req *req);
extern const char *const ts_svc_import_fields[], *const ts_svc_import_slurm_options[],
    *const ts_svc_import_slurm_yaml_options[], *const ts_svc_import_k8s_fields[], *const ts_svc_import_k8s_options[],
    *const ts_svc_export_fields[], *const ts_svc_export_options[];

/* ---- traces (ops_trace.c) ---- */

tsched_status ts_svc_op_trace_alibaba(char **result, svc_req *req);
tsched_status ts_svc_op_trace_dcn(char **result, svc_req *req);
tsched_status ts_svc_op_trace_poisson(char **result, svc_req *req);
extern const char *const ts_svc_trace_alibaba_fields[], *const ts_svc_trace_alibaba_options[],
    *const ts_svc_trace_dcn_fields[], *const ts_svc_trace_dcn_options[], *const ts_svc_trace_poisson_fields[],
    *const ts_svc_trace_poisson_options[];

/* The launch files `place` returns beside its placement (options hostfile, hostfile-per-task,
 * tasks-per-node, pod-order, index-label). */
typedef struct svc_launch {
    int hostfile, per_task, pod_order;
    uint32_t tasks_per_node;
    const char *index_label;
} svc_launch;

/* Read and check the launch options (before anything is placed). */
tsched_status ts_svc_launch_options(svc_launch *l, const svc_req *req);
/* Write the asked launch files of placement `p` into req->extra. */
tsched_status ts_svc_launch_files(svc_req *req, const svc_launch *l, const tsched_placement *p,
                                  const tsched_topology *t, const char *job_name);

/* Compact JSON text in place: whitespace outside strings removed. */
void ts_svc_minify(char *text);

#endif
