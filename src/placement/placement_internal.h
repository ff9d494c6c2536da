/* Internal layout of a placement result. */
#ifndef TS_PLACEMENT_INTERNAL_H
#define TS_PLACEMENT_INTERNAL_H

#include "topo-sched/placement.h"

struct tsched_placement {
    uint32_t rows, cols;
    uint32_t *nodes; /* rows * cols node indices, row-major */
    tsched_place_algo algo;
    tsched_place_status status;
    tsched_domain domain; /* POD or LEAF, resolved */
    double alpha;
    uint32_t dp_max, pp_max, domains_used;
    double weighted;
    double solve_ms;
    uint64_t fabric_id, fabric_gen; /* the fabric it was made on (DESIGN 3) */
};

/* Domain of a node for a resolved domain level: its pod or its leaf; TSCHED_NONE if the
 * node has no pod at the pod level. */
uint32_t ts_node_domain(const tsched_topology *t, uint32_t node, tsched_domain level);
/* Size of the id space of ts_node_domain() at `level`: pods, switches (leaves), or the
 * named NVLink domains followed by one per node (a node without a domain is its own). */
uint32_t ts_domain_count(const tsched_topology *t, tsched_domain level);

#endif
