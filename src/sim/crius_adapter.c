/* Placement crius (doc/sim.md §5.2): the cell module's scheduler decides every job's Cell
 * and nodes at each scheduling attempt; jobs compute all the time at their Cell's
 * iteration time and have no flows. This file adapts the scheduler to the event loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

/* Placement crius (doc/sim.md §3.2): the cell module's scheduler over the fabric as it is
 * now, with the simulation's catalogue. Failures are not part of version 1 under crius: the
 * scheduler has no call to take a node away from it. */
tsched_status ts_sim_crius_ready(tsched_sim *s, const ts_sim_place_ops *self)
{
    (void)self;
    if (s->nfail)
        return ts_error(TSCHED_E_INVALID, "failures: placement \"crius\" does not take failures (the scheduler cannot "
                        "lose a node); %u given", s->nfail);
    tsched_gpu_catalog *def = NULL;
    tsched_status st = TSCHED_OK;
    if (!s->cat && (st = tsched_gpu_catalog_default(&def)) != TSCHED_OK)
        return ts_error_prefix(st, "placement");
    st = tsched_crius_new(&s->cr, s->t, s->cat ? s->cat : def);
    tsched_gpu_catalog_free(def);
    if (st != TSCHED_OK) {
        s->cr = NULL;
        return ts_error_prefix(st, "placement");
    }
    if ((st = tsched_crius_set_depth(s->cr, s->crius_depth)) != TSCHED_OK)
        return ts_error_prefix(st, "crius_depth");
    return TSCHED_OK;
}

/* a + b saturated at INT64_MAX (b >= 0): for comparisons only. */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Stop running job ji for a new Cell (or none): the iteration in progress is lost, the real
 * iterations of a coarsened one that ended before now count; its GPUs go back to the fabric. */
static void crius_stop(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    if (j->compute_running && j->cur_g > 1 && j->cell_t > 0) {
        uint64_t k0 = j->real_done - j->cell_done0, m = 0;
        double whole = floor((double)(s->now - j->cell_start) * 1e-9 / j->cell_t) - (double)k0;
        if (whole > 0)
            m = whole >= (double)(j->cur_g - 1) ? j->cur_g - 1 : (uint64_t)whole;
        /* the clock's rounding decides at the edges */
        while (m > 0 && sat_add(j->cell_start, ts_sim_ns((double)(k0 + m) * j->cell_t)) > s->now)
            m--;
        while (m + 1 < j->cur_g && sat_add(j->cell_start, ts_sim_ns((double)(k0 + m + 1) * j->cell_t)) <= s->now)
            m++;
        if (m) {
            if (j->real_done == 0 || j->cell_t < j->iter_min_s)
                j->iter_min_s = j->cell_t;
            if (j->cell_t > j->iter_max_s)
                j->iter_max_s = j->cell_t;
            j->iter_sum_s += j->cell_t * (double)m;
            j->real_done += m;
        }
    }
    ts_sim_job_requeued(s, j);
}

/* The Cell and nodes the scheduler gives job ji (index ci) now; *same = 1 when they are the
 * ones it runs with. */
static tsched_status crius_assignment(const tsched_cell **cell, uint32_t *nodes, uint32_t *gpus, size_t cap,
                                      size_t *count, int *same, const tsched_sim *s, uint32_t ji, uint32_t ci)
{
    const ts_sim_job *j = &s->jobs[ji];
    tsched_status st = tsched_crius_job_cell(cell, s->cr, ci);
    if (st == TSCHED_OK)
        st = tsched_crius_job_nodes(nodes, gpus, cap, count, s->cr, ci);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "placement crius");
    const char *pool = tsched_cell_pool(*cell);
    *same = j->state == TS_JOB_RUNNING && j->cell_pool && pool && !strcmp(pool, j->cell_pool) &&
            tsched_cell_gpus(*cell) == j->cell_n && tsched_cell_num_stages(*cell) == j->cell_s && *count == j->nnodes;
    for (size_t k = 0; *same && k < *count; k++)
        *same = nodes[k] == j->nodes[k] && gpus[k] == ts_sim_node_gpus(j, (uint32_t)k);
    return TSCHED_OK;
}

/* Give job ji the Cell and nodes of the scheduler (checked against the fabric's free GPUs)
 * and start it there. */
static tsched_status crius_start(tsched_sim *s, uint32_t ji, const tsched_cell *cell, const uint32_t *nodes,
                                 const uint32_t *gpus, size_t count)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    const char *pool = tsched_cell_pool(cell);
    double it = tsched_cell_iteration_s(cell);
    uint64_t sum = 0;
    for (size_t k = 0; k < count; k++) {
        if (nodes[k] >= tsched_topology_num_nodes(t) || !tsched_topology_node_is_up(t, nodes[k]) ||
            tsched_topology_node_free_gpus(t, nodes[k]) < gpus[k])
            return ts_error(TSCHED_E_INTERNAL, "sim: placement crius gave job \"%s\" %u GPUs of node %u, which has %u "
                            "free", j->name, gpus[k], nodes[k],
                            nodes[k] < tsched_topology_num_nodes(t) ? tsched_topology_node_free_gpus(t, nodes[k]) : 0);
        sum += gpus[k];
    }
    if (!pool || count == 0 || sum != tsched_cell_gpus(cell) || !(it > 0) || !isfinite(it))
        return ts_error(TSCHED_E_INTERNAL, "sim: placement crius gave job \"%s\" a Cell of %u GPUs, %llu on its %zu "
                        "nodes, iteration %g s", j->name, tsched_cell_gpus(cell), (unsigned long long)sum, count, it);
    uint32_t *nn = ts_malloc(count, sizeof *nn), *ng = ts_malloc(count, sizeof *ng);
    char *pc = ts_strdup(pool);
    if (!nn || !ng || !pc) {
        free(nn);
        free(ng);
        free(pc);
        return TSCHED_E_NOMEM;
    }
    memcpy(nn, nodes, count * sizeof *nn);
    memcpy(ng, gpus, count * sizeof *ng);
    free(j->nodes);
    free(j->node_gpus);
    free(j->cell_pool);
    j->nodes = nn;
    j->node_gpus = ng;
    j->nnodes = (uint32_t)count;
    j->gpn_used = 0;
    j->used_gpus = (uint32_t)sum;
    j->cell_pool = pc;
    j->cell_n = tsched_cell_gpus(cell);
    j->cell_s = tsched_cell_num_stages(cell);
    j->cell_t = it;
    return ts_sim_start_job(s, ji);
}

tsched_status ts_sim_crius_schedule(tsched_sim *s)
{
    tsched_status st = TSCHED_OK;
    int departure = s->ncr_gone > 0;
    /* departures first (doc/sim.md §3.2), then the jobs that arrived, in arrival order */
    for (uint32_t i = 0; i < s->ncr_gone; i++)
        if ((st = tsched_crius_remove_job(s->cr, s->cr_gone[i])) != TSCHED_OK)
            return ts_error_prefix(st, "placement crius");
    s->ncr_gone = 0;
    for (uint32_t q = 0; q < s->nqueue; q++) {
        ts_sim_job *j = &s->jobs[s->queue[q]];
        if (j->cr_index != TSCHED_NONE)
            continue;
        tsched_job *tj = NULL;
        uint32_t ci = TSCHED_NONE;
        st = tsched_job_new(&tj, j->name, j->gpus, 1, 1);
        if (st == TSCHED_OK)
            st = tsched_job_set_model(tj, &j->model);
        if (st == TSCHED_OK)
            st = tsched_crius_add_job(&ci, s->cr, tj, (double)j->arrival * 1e-9);
        tsched_job_free(tj);
        if (st == TSCHED_OK && TS_GROW(s->cr_job, s->cr_job_cap, (size_t)ci + 1) != TSCHED_OK)
            st = TSCHED_E_NOMEM;
        if (st != TSCHED_OK)
            return ts_error_prefix(st, j->name);
        s->cr_job[ci] = s->queue[q];
        j->cr_index = ci;
    }
    if ((st = tsched_crius_schedule(s->cr, departure ? TSCHED_CRIUS_DEPARTURE : TSCHED_CRIUS_ARRIVAL)) != TSCHED_OK)
        return ts_error_prefix(st, "placement crius");
    s->crius_events++;
    uint32_t n = tsched_crius_num_jobs(s->cr), nn = tsched_topology_num_nodes(s->t);
    uint32_t *nodes = ts_malloc(nn ? nn : 1, sizeof *nodes), *gpus = ts_malloc(nn ? nn : 1, sizeof *gpus);
    uint8_t *go = ts_calloc(n ? n : 1, 1);
    if (!nodes || !gpus || !go)
        st = TSCHED_E_NOMEM;
    /* every running job whose Cell or nodes changed stops first, so that the GPUs it leaves
     * are free when the others start */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++) {
        uint32_t ji = s->cr_job[ci];
        ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING && j->state != TS_JOB_QUEUED)
            continue;
        if (!tsched_crius_job_running(s->cr, ci)) {
            if (j->state == TS_JOB_RUNNING) { /* the scheduler took it off: back to the queue */
                crius_stop(s, ji);
                if (TS_GROW(s->queue, s->queue_cap, (size_t)s->nqueue + 1) != TSCHED_OK) {
                    st = TSCHED_E_NOMEM;
                    break;
                }
                s->queue[s->nqueue++] = ji;
            }
            j->ever_tried = 1;
            j->wait_cause = TSCHED_SIM_WAIT_GPU;
            continue;
        }
        const tsched_cell *cell;
        size_t count = 0;
        int same = 0;
        if ((st = crius_assignment(&cell, nodes, gpus, nn, &count, &same, s, ji, ci)) != TSCHED_OK)
            break;
        if (same)
            continue;
        if (j->state == TS_JOB_RUNNING)
            crius_stop(s, ji);
        go[ci] = 1;
    }
    /* then they start in their new Cells, and the new jobs in theirs, in queue order */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++) {
        if (!go[ci])
            continue;
        const tsched_cell *cell;
        size_t count = 0;
        int same = 0;
        if ((st = crius_assignment(&cell, nodes, gpus, nn, &count, &same, s, s->cr_job[ci], ci)) == TSCHED_OK)
            st = crius_start(s, s->cr_job[ci], cell, nodes, gpus, count);
    }
    /* callbacks see the state after the whole event: every job in its new Cell */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++)
        if (go[ci])
            ts_sim_emit(s, TSCHED_SIM_EV_START, s->cr_job[ci], TSCHED_NONE, s->jobs[s->cr_job[ci]].name);
    free(nodes);
    free(gpus);
    free(go);
    /* the queue keeps the jobs still waiting, in their order */
    uint32_t w = 0;
    for (uint32_t q = 0; q < s->nqueue; q++)
        if (s->jobs[s->queue[q]].state == TS_JOB_QUEUED)
            s->queue[w++] = s->queue[q];
    s->nqueue = w;
    return st;
}
