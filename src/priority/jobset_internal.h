/* Internal: job-set building that the public builder does not offer. */
#ifndef TS_PRIORITY_JOBSET_INTERNAL_H
#define TS_PRIORITY_JOBSET_INTERNAL_H

#include "topo-sched/priority.h"

/* Accepted ranges of the job set (doc/priority.md, "Accepted ranges"): wide enough for any
 * real job, narrow enough that intensities (work over seconds of transfer) and the two-job
 * model's inputs stay far from overflow and underflow. */
#define TS_JOBSET_WORK_MIN 1e-6 /* TFLOP per iteration */
#define TS_JOBSET_WORK_MAX 1e12
#define TS_JOBSET_COMPUTE_MIN 1e-6 /* ms per iteration: 1 ns */
#define TS_JOBSET_COMPUTE_MAX 1e9  /* about 11.6 days */
#define TS_JOBSET_GBITS_MIN 1e-6   /* gigabits of one flow per iteration: 1 kbit */
#define TS_JOBSET_GBITS_MAX 1e12

/* tsched_jobset_add_flow() with its checks, for a flow that crosses its source NIC's
 * up-link and its destination NIC's down-link and no trunk, whatever leaves the NICs are
 * on: the fabric as one big switch (the simulator's routing `ideal`, doc/sim.md §6). The
 * flow is pinned: path selection leaves it alone and it loads only its two NIC links. */
tsched_status ts_jobset_add_nic_flow(tsched_jobset *js, uint32_t job, uint32_t src_node, uint32_t src_nic,
                                     uint32_t dst_node, uint32_t dst_nic, double gbits);

#endif
