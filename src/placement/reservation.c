/* Arnold App. G, Algorithm 1: the nodes of a planned large job are reserved until it
 * arrives; other jobs go outside the reserved zone, or inside it when they are predicted
 * to finish before the arrival, or wait. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "placement_internal.h"

struct tsched_reservation {
    uint64_t fabric_id, fabric_gen; /* of the placement it reserves */
    double arrival;
    uint32_t n;      /* reserved nodes, sorted */
    uint32_t *nodes;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

tsched_status tsched_reservation_new(tsched_reservation **out, const tsched_placement *p, double arrival)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_reservation_new: out is NULL");
    *out = NULL;
    if (!p)
        return ts_error(TSCHED_E_INVALID, "tsched_reservation_new: placement is NULL");
    if (!isfinite(arrival))
        return ts_error(TSCHED_E_INVALID, "arrival: not a finite time");
    tsched_reservation *r = ts_calloc(1, sizeof *r);
    size_t cells = (size_t)p->rows * p->cols;
    if (!r || !(r->nodes = ts_malloc(cells, sizeof *r->nodes))) {
        free(r);
        return TSCHED_E_NOMEM;
    }
    memcpy(r->nodes, p->nodes, cells * sizeof *r->nodes);
    qsort(r->nodes, cells, sizeof *r->nodes, cmp_u32);
    r->n = (uint32_t)cells;
    r->arrival = arrival;
    r->fabric_id = p->fabric_id;
    r->fabric_gen = p->fabric_gen;
    *out = r;
    return TSCHED_OK;
}

void tsched_reservation_free(tsched_reservation *r)
{
    if (!r)
        return;
    free(r->nodes);
    free(r);
}

int tsched_reservation_holds(const tsched_reservation *r, uint32_t node)
{
    return r && bsearch(&node, r->nodes, r->n, sizeof node, cmp_u32) != NULL;
}

uint64_t tsched_reservation_free_outside(const tsched_reservation *r, const tsched_topology *t)
{
    if (!r || !t || tsched_topology_id(t) != r->fabric_id || tsched_topology_generation(t) != r->fabric_gen)
        return 0;
    uint64_t f = 0;
    for (uint32_t n = 0; n < tsched_topology_num_nodes(t); n++)
        if (tsched_topology_node_is_up(t, n) && !tsched_reservation_holds(r, n))
            f += tsched_topology_node_free_gpus(t, n);
    return f;
}

tsched_status tsched_reservation_admit(tsched_admit *out, const tsched_reservation *r, const tsched_topology *t,
                                       uint32_t gpus, double now, double predicted_end, int preemptable)
{
    if (!out || !r || !t)
        return ts_error(TSCHED_E_INVALID, "tsched_reservation_admit: %s is NULL", !out ? "out" : !r ? "r" : "topo");
    tsched_status st = tsched_topology_check_identity(t, r->fabric_id, r->fabric_gen, "tsched_reservation_admit");
    if (st != TSCHED_OK)
        return st;
    if (!isfinite(now) || !isfinite(predicted_end))
        return ts_error(TSCHED_E_INVALID, "tsched_reservation_admit: now or predicted_end is not finite");
    if (predicted_end < now)
        return ts_error(TSCHED_E_INVALID, "predicted_end: %g is before now (%g)", predicted_end, now);
    /* Algorithm 1, lines 10-17 */
    if (preemptable || (uint64_t)gpus <= tsched_reservation_free_outside(r, t))
        *out = TSCHED_ADMIT_NOW;
    else if (predicted_end < r->arrival)
        *out = TSCHED_ADMIT_RESERVED;
    else
        *out = TSCHED_ADMIT_DELAY;
    return TSCHED_OK;
}
