/* Failures and repairs (doc/sim.md §7): a fabric element goes down or up at its instant;
 * capacities follow, the placement's own state hears of it (vclos), jobs that lost a node
 * stop and wait at the head of the queue, and flows whose path lost a link are routed
 * again. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

/* Stop running job ji: its flows in flight are dropped from its demand, its GPUs go back,
 * and it waits at the head of the queue to start again. */
void ts_sim_stop_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    for (uint32_t fi = 0; fi < s->nflow; fi++) {
        ts_sim_flow *f = &s->flow[fi];
        if (f->active && f->job == ji) {
            ts_sim_settle(s, f);
            j->gbits_demanded -= f->remaining; /* dropped from the demand */
            ts_sim_flow_remove(s, fi);
        }
    }
    ts_sim_job_requeued(s, j);
    /* back to the head of the queue */
    if (TS_GROW(s->queue, s->queue_cap, (size_t)s->nqueue + 1) == TSCHED_OK) {
        memmove(s->queue + 1, s->queue, s->nqueue * sizeof *s->queue);
        s->queue[0] = ji;
        s->nqueue++;
    }
}

/* After a state change: jobs that lost a node restart; flows whose path lost a link are
 * re-routed with the job's whole routing redone for phases not yet started. */
static tsched_status after_failure(tsched_sim *s)
{
    for (uint32_t ji = 0; ji < s->njobs; ji++) {
        ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING)
            continue;
        int lost = 0;
        for (uint32_t k = 0; k < j->nnodes && !lost; k++)
            lost = !tsched_topology_node_is_up(s->t, j->nodes[k]);
        if (lost) {
            ts_sim_stop_job(s, ji);
            continue;
        }
        int broken = 0;
        for (uint32_t i = 0; i < j->nrlinks && !broken; i++)
            broken = s->link[j->rlinks[i]].cap <= 0;
        if (!broken)
            continue;
        tsched_status st = ts_sim_reroute_job(s, ji);
        if (st != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

/* Failure or repair number fi of the scenario, now. */
tsched_status ts_sim_failure_event(tsched_sim *s, uint32_t fi)
{
    const ts_sim_failure *fl = &s->failures[fi];
    const ts_sim_place_ops *pl = ts_sim_placement(s);
    ts_sim_account(s, s->now);
    tsched_status st = tsched_topology_set_up(s->t, fl->name, fl->up);
    if (st == TSCHED_OK)
        st = ts_sim_refresh_caps(s);
    if (st == TSCHED_OK && pl->failure)
        st = pl->failure(s, fl->name, fl->up);
    if (st == TSCHED_OK)
        st = after_failure(s);
    if (fl->up)
        s->pending_sched = 1;
    ts_sim_emit(s, TSCHED_SIM_EV_FAILURE, TSCHED_NONE, TSCHED_NONE, fl->name);
    return st;
}
