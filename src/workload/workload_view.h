/* The workload module's interface to the library's other modules, beside the public
 * workload.h: the columns of a flow set, read by routing's hot loops, and the model check
 * the simulator's trace reader shares with the job reader. They include this header, never
 * flows_internal.h or workload_internal.h (tests/check_seams.sh fails the suite otherwise);
 * doc/ARCHITECTURE.md lists who uses what. */
#ifndef TS_WORKLOAD_VIEW_H
#define TS_WORKLOAD_VIEW_H

#include "topo-sched/workload.h"

/* A read-only view of a flow set's endpoints, flow i at index i (as tsched_flows_src() and
 * friends, without a call per flow). Filled by ts_flows_view_get(); valid until the set is
 * changed (tsched_flows_add() may move the columns) or freed. */
typedef struct ts_flows_view {
    uint32_t n;                  /* flows */
    const uint32_t *src, *dst;   /* node indices of the fabric the flows are meant for */
    const uint16_t *src_nic, *dst_nic; /* NIC of the node, 0-based */
} ts_flows_view;

/* Fill `v` from `f` (not NULL). O(1). */
void ts_flows_view_get(ts_flows_view *v, const tsched_flows *f);

/* Check a model's own fields (no job shape involved); errors name `model.<field>`. */
tsched_status ts_model_check(const tsched_model *m);

#endif
