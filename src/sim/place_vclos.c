/* Placements vclos, ocs-vclos and vclos-free (doc/sim.md §5.1): the vclos handle allocates
 * every job, made at the run's start over the fabric as it is then, and hears of every
 * failure and repair. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

/* The placements of the vclos module (doc/sim.md §3.2): the rules they bring, and the
 * handle, made over the fabric as it is now. vclos and ocs-vclos reserve member links, so
 * they imply `links: member` (naming `trunk` is an error) and routing `vclos` (naming
 * another routing is an error); vclos-free implies `member` too but accepts `trunk` and
 * any routing but `vclos`. */
tsched_status ts_sim_vclos_load(tsched_sim *s, const ts_sim_place_ops *self)
{
    int rt = s->pol[TSCHED_SIM_ROUTING], rt_vclos = ts_sim_policy_find(TSCHED_SIM_ROUTING, "vclos");
    int member = ts_sim_policy_find(TSCHED_SIM_LINKS, "member");
    const char *pname = self->name, *rname = ts_sim_routing(s)->name;
    int reserving = (self->flags & TS_PLACE_RESERVES) != 0;
    if (reserving && s->pol_set[TSCHED_SIM_ROUTING] && rt != rt_vclos)
        return ts_error(TSCHED_E_INVALID,
                        "routing: \"%s\" cannot be used with placement \"%s\" (its flows take their reserved "
                        "routes: routing \"vclos\")", rname, pname);
    if (reserving && s->pol_set[TSCHED_SIM_LINKS] && s->pol[TSCHED_SIM_LINKS] != member)
        return ts_error(TSCHED_E_INVALID,
                        "links: \"trunk\" cannot be used with placement \"%s\" (it reserves member links: "
                        "links \"member\")", pname);
    for (uint32_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].nfixed)
            return ts_error(TSCHED_E_INVALID, "jobs[%u].nodes: placement \"%s\" chooses every job's nodes (job \"%s\")",
                            i, pname, s->jobs[i].name);
    if (reserving)
        s->pol[TSCHED_SIM_ROUTING] = rt_vclos;
    if (!s->pol_set[TSCHED_SIM_LINKS])
        s->pol[TSCHED_SIM_LINKS] = member;
    tsched_status st = tsched_vclos_new(&s->vc, s->t, (tsched_vclos_mode)self->arg);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "placement");
    if ((st = tsched_vclos_set_time_limit_ms(s->vc, s->place_ms)) != TSCHED_OK)
        return st;
    s->vc_members = tsched_topology_num_members(s->t);
    s->nocs = tsched_vclos_num_links(s->vc) - s->vc_members;
    return TSCHED_OK;
}

/* Placements vclos, ocs-vclos, vclos-free (§3.2): the vclos handle allocates every job
 * (single-node ones too); the job's nodes are its rank order. 1 placed, 0 waits (the cause
 * as the handle gives it), -1 error. */
int ts_sim_place_vclos(tsched_sim *s, const ts_sim_place_ops *self, ts_sim_job *j, tsched_status *err)
{
    (void)self;
    /* the handle's answer depends only on its state: a job that failed and has seen no
     * change since fails again for the same reason (this skips the ILPs at arrivals) */
    if (j->vc_failed == s->vc_epoch + 1)
        return 0;
    tsched_vclos_outcome oc;
    tsched_status st = tsched_vclos_allocate(s->vc, j->name, j->gpus, &oc);
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    if (oc != TSCHED_VCLOS_ALLOCATED) {
        j->wait_cause = oc == TSCHED_VCLOS_WAIT_NETWORK   ? TSCHED_SIM_WAIT_NETWORK
                        : oc == TSCHED_VCLOS_WAIT_TIMEOUT ? TSCHED_SIM_WAIT_TIMEOUT
                                                          : TSCHED_SIM_WAIT_GPU;
        j->vc_failed = s->vc_epoch + 1;
        return 0;
    }
    s->vc_epoch++;
    j->vc_held = 1;
    tsched_vclos_jobinfo info = {.size = sizeof info};
    size_t n = 0;
    if ((st = tsched_vclos_job_info(&info, s->vc, j->name)) == TSCHED_OK &&
        !(j->nodes = ts_malloc(info.nodes ? info.nodes : 1, sizeof *j->nodes)))
        st = TSCHED_E_NOMEM;
    if (st == TSCHED_OK)
        st = tsched_vclos_job_nodes(j->nodes, info.nodes, &n, s->vc, j->name);
    if (st != TSCHED_OK) {
        (void)tsched_vclos_release(s->vc, j->name);
        j->vc_held = 0;
        *err = st;
        return -1;
    }
    j->nnodes = (uint32_t)n;
    j->gpn_used = info.gpus_per_node;
    return 1;
}

/* A failure or repair goes to the vclos handle too (§3.2, §3.5): the jobs it evicted (it
 * released them) and those it could not repair are stopped and requeued as a node loss is
 * (the degraded ones released first); repaired jobs take their new reserved routes. */
tsched_status ts_sim_vclos_failure(tsched_sim *s, const char *name, int up)
{
    tsched_status st = tsched_vclos_set_up(s->vc, name, up);
    s->vc_epoch++;
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "failures");
    size_t n = 0;
    st = tsched_vclos_changes(NULL, NULL, 0, &n, s->vc);
    if (st != TSCHED_OK && st != TSCHED_E_BUFFER)
        return st;
    if (n == 0)
        return TSCHED_OK;
    const char **names = ts_malloc(n, sizeof *names);
    tsched_vclos_change *what = ts_malloc(n, sizeof *what);
    uint32_t *idx = ts_malloc(n, sizeof *idx);
    if (!names || !what || !idx)
        st = TSCHED_E_NOMEM;
    else
        st = tsched_vclos_changes(names, what, n, &n, s->vc);
    /* job indices first: the names are the handle's and releases change it */
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        idx[i] = TSCHED_NONE;
        for (uint32_t k = 0; k < s->njobs && idx[i] == TSCHED_NONE; k++)
            if (s->jobs[k].state == TS_JOB_RUNNING && !strcmp(s->jobs[k].name, names[i]))
                idx[i] = k;
        if (idx[i] == TSCHED_NONE)
            st = ts_error(TSCHED_E_INTERNAL, "sim: the vclos handle changed job \"%s\", which is not running",
                          names[i]);
    }
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        ts_sim_job *j = &s->jobs[idx[i]];
        if (j->state != TS_JOB_RUNNING)
            continue;
        if (what[i] == TSCHED_VCLOS_EVICTED)
            j->vc_held = 0; /* the handle has released it */
        if (what[i] == TSCHED_VCLOS_REPAIRED)
            st = ts_sim_reroute_job(s, idx[i]);
        else
            ts_sim_stop_job(s, idx[i]);
    }
    free(names);
    free(what);
    free(idx);
    return st;
}
