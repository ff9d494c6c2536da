/* Placements that pick nodes (doc/sim.md §5): first-fit, and the placement module's
 * best-fit, random-fit, gpu-pack, topo-aware, exhaustive and mip. A job that fits on one
 * node goes to the up node with the fewest free GPUs that still fit, whatever the row. */
#include <stdlib.h>

#include "../common/alloc.h"
#include "sim_internal.h"

enum { GO_ON = 2 };

/* What the rows share: a single-node job placed (1) or waiting (0), an error (-1); else
 * GO_ON with j->nodes made for *need nodes of s->gpn GPUs. With shared_nodes a job that may
 * split and finds no whole nodes for itself takes parts of nodes (host.c), by first-fit's
 * rule for the first-fit row, best-fit's for the others. */
static int prepare(tsched_sim *s, const ts_sim_place_ops *self, ts_sim_job *j, uint32_t *need_out,
                   tsched_status *err)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t), gpn = s->gpn;
    int split = ts_sim_place_split(s, j, self->place == ts_sim_place_first_fit, err);
    if (split != GO_ON)
        return split;
    if (j->gpus <= gpn) {
        /* single node: the up node with the fewest free GPUs that still fit */
        uint32_t best = TSCHED_NONE, bestf = UINT32_MAX;
        for (uint32_t n = 0; n < nn; n++) {
            if (!tsched_topology_node_is_up(t, n))
                continue;
            uint32_t f = tsched_topology_node_free_gpus(t, n);
            if (f >= j->gpus && f < bestf) {
                best = n;
                bestf = f;
            }
        }
        if (best == TSCHED_NONE) {
            j->wait_cause = TSCHED_SIM_WAIT_GPU;
            return 0;
        }
        if (!(j->nodes = ts_malloc(1, sizeof *j->nodes))) {
            *err = TSCHED_E_NOMEM;
            return -1;
        }
        j->nodes[0] = best;
        j->nnodes = 1;
        j->gpn_used = j->gpus;
        return 1;
    }
    uint32_t need = j->gpus / gpn;
    if (tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0) < need) {
        j->wait_cause = TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    if (!(j->nodes = ts_malloc(need, sizeof *j->nodes))) {
        *err = TSCHED_E_NOMEM;
        return -1;
    }
    j->gpn_used = gpn;
    *need_out = need;
    return GO_ON;
}

/* first-fit: the lowest-index free nodes */
int ts_sim_place_first_fit(tsched_sim *s, const ts_sim_place_ops *self, ts_sim_job *j, tsched_status *err)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t), gpn = s->gpn, need = 0;
    int got = prepare(s, self, j, &need, err);
    if (got != GO_ON)
        return got;
    uint32_t k = 0;
    for (uint32_t n = 0; n < nn && k < need; n++)
        if (tsched_topology_node_is_free(t, n) && tsched_topology_node_gpus(t, n) == gpn)
            j->nodes[k++] = n;
    if (k < need) {
        j->wait_cause = TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    j->nnodes = need;
    return 1;
}

/* The placement module's algorithm of the row (self->arg); nodes in rank order. */
int ts_sim_place_module(tsched_sim *s, const ts_sim_place_ops *self, ts_sim_job *j, tsched_status *err)
{
    const tsched_topology *t = s->t;
    uint32_t gpn = s->gpn, need = 0;
    int got = prepare(s, self, j, &need, err);
    if (got != GO_ON)
        return got;
    tsched_job *tj;
    tsched_status st = tsched_job_new(&tj, j->name, j->gpus, j->tp, j->pp);
    if (st == TSCHED_OK && j->has_model)
        st = tsched_job_set_model(tj, &j->model);
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = (tsched_place_algo)self->arg;
    o.seed = s->seed;
    o.time_limit_ms = s->place_ms;
    o.gpus_per_node = gpn;
    tsched_placement *p = NULL;
    st = tsched_place(&p, t, tj, &o);
    tsched_job_free(tj);
    if (st == TSCHED_E_INFEASIBLE || st == TSCHED_E_TIMEOUT) {
        j->wait_cause = st == TSCHED_E_TIMEOUT ? TSCHED_SIM_WAIT_TIMEOUT : TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    uint32_t rows = tsched_placement_rows(p), cols = tsched_placement_cols(p);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            j->nodes[c * rows + r] = tsched_placement_node(p, r, c);
    j->nnodes = rows * cols;
    tsched_placement_free(p);
    return 1;
}
