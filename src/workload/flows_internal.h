/* Internal, private to src/workload: the layout of a flow set (routing reads its columns
 * through workload_view.h). Struct of arrays, so a million flows cost 24 bytes each (plus the
 * doubling slack) and a routing pass touches only the columns it needs. */
#ifndef TS_WORKLOAD_FLOWS_INTERNAL_H
#define TS_WORKLOAD_FLOWS_INTERNAL_H

#include "../common/strtab.h"
#include "topo-sched/workload.h"
#include "workload_view.h"

/* Flow indices are uint32_t, but a set holds fewer than 2^31 flows, so a count and twice
 * a count (say, one entry per direction) fit in 32 bits. */
#define TS_FLOWS_MAX ((UINT32_C(1) << 31) - 1)

/* NIC indices are stored in 16 bits; fabrics have far fewer NICs per node. */
#define TS_FLOWS_MAX_NIC UINT16_MAX

struct tsched_flows {
    uint32_t *src, *dst;         /* node indices of the fabric the flows are meant for */
    uint16_t *src_nic, *dst_nic; /* NIC of the node, 0-based */
    double *gbits;               /* volume in gigabits, finite and > 0 */
    uint32_t *job;               /* id in `jobs`, or UINT32_MAX when the flow has no job */
    uint32_t n, cap;             /* flows, and the capacity of every array above */
    ts_strtab jobs;              /* distinct job names */
    uint32_t last_job;           /* id of the last job name added: most adds repeat it */
};

/* Make room for `extra` more flows (doubling). Errors: TSCHED_E_TOO_LARGE beyond
 * TS_FLOWS_MAX, TSCHED_E_NOMEM. */
tsched_status ts_flows_reserve(tsched_flows *f, uint64_t extra);
/* Id of a job name in `f->jobs` (interning it); NULL -> UINT32_MAX; "" is TSCHED_E_INVALID. */
tsched_status ts_flows_job_id(uint32_t *id, tsched_flows *f, const char *job);
/* Append a flow that the caller has validated, into room made by ts_flows_reserve(). */
void ts_flows_push(tsched_flows *f, uint32_t job, uint32_t src, uint32_t src_nic, uint32_t dst, uint32_t dst_nic,
                   double gbits);

/* The tsched.flows.v1 readers of the loaders (ctx: the fabric): the jansson tree reader,
 * whose errors are the contract, and the pull reader tried first (json.h,
 * ts_json_load_string_fast), which must give the same flows or fail. */
struct json_t;
tsched_status ts_flows_read_tree(void *slot, const void *ctx, const struct json_t *root);
tsched_status ts_flows_read_text(void *slot, const void *ctx, const char *json, size_t len);

#endif
