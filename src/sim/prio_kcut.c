/* Priorities crux, sincronia, varys and taccl (doc/sim.md §6): the priority module's order
 * and k-cut over the running jobs, with their flows of one iteration on the links they use
 * now (member links in member mode); the levels apply at once to flows in flight. Also the
 * running jobs as a job set, which reroute `refresh` orders by (reroute_refresh.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

/* The fabric path of routed flow rf (NIC links first and last, fabric links between), and
 * in member mode the directed member links it crosses (`members`, p->nswitches - 1 of them).
 * Returns 0 when a link is no trunk or member (an OCS circuit, the dead link): no path;
 * 2 when the flow crosses only its NIC links between two leaves (routing `ideal`: the
 * fabric as one big switch), which no switch path can say; else 1. */
static int rflow_path(tsched_path *p, uint32_t *members, const tsched_sim *s, const ts_sim_job *j,
                      const ts_sim_rflow *rf)
{
    const uint32_t *l = j->rlinks + rf->link_off, nl = ts_sim_rflow_net(rf); /* host links left out */
    for (uint32_t k = 1; k + 1 < nl; k++)
        if (l[k] >= s->nfab)
            return 0;
    uint32_t sw = tsched_topology_node_nic_leaf(s->t, rf->src, rf->src_nic);
    if (nl == 2 && sw != tsched_topology_node_nic_leaf(s->t, rf->dst, rf->dst_nic))
        return 2;
    p->nswitches = 1;
    p->switches[0] = sw;
    for (uint32_t k = 1; k + 1 < nl; k++) {
        uint32_t u = l[k] / 2, tr = s->unit_trunk[u];
        sw = l[k] % 2 == 0 ? tsched_topology_trunk_upper(s->t, tr) : tsched_topology_trunk_lower(s->t, tr);
        p->links[p->nswitches - 1] = 2 * tr + l[k] % 2;
        /* unit u is member u - unit_base[tr] of its trunk (net.c numbers them so) */
        members[p->nswitches - 1] =
            2 * (tsched_topology_trunk_first_member(s->t, tr) + (u - s->unit_base[tr])) + l[k] % 2;
        p->switches[p->nswitches++] = sw;
    }
    return 1;
}

/* A power of two 2^k that brings positive values spanning [lo, hi] into [min, max]: 0 when
 * they are inside already, else the exponent nearest to 0 that fits them all; when their
 * span is wider than the range, the one that keeps the largest inside (the smallest are
 * then clamped up). `*k_lo`, `*k_hi` accumulate the bounds over several kinds of values. */
static void fit_bounds(int *k_lo, int *k_hi, double lo, double hi, double min, double max)
{
    if (!(lo > 0) || !(hi > 0))
        return; /* no value of this kind */
    double a = ceil(log2(min) - log2(lo)), b = floor(log2(max) - log2(hi));
    /* finite doubles give |a|, |b| < 2200; an infinite volume (gbits x repeat past the
     * largest double) gives -inf: keep the casts defined */
    a = a < -4096 ? -4096 : a > 4096 ? 4096 : a;
    b = b < -4096 ? -4096 : b > 4096 ? 4096 : b;
    if (a > *k_lo)
        *k_lo = (int)a;
    if (b < *k_hi)
        *k_hi = (int)b;
}

static int fit_exp(int k_lo, int k_hi)
{
    if (k_lo > k_hi)
        return k_hi;
    return k_lo > 0 ? k_lo : k_hi < 0 ? k_hi : 0;
}

static double fit(double v, int k, double min, double max)
{
    v = ldexp(v, k);
    return v < min ? min : v > max ? max : v;
}

/* The running jobs as a job set (`which[k]` is the job index of set entry k), with their
 * flows of one iteration pinned to the paths they use now: in member mode to the member
 * links (so that intensities and contention are those of the links really shared). The priority module accepts
 * narrower ranges than a trace (doc/priority.md: compute_ms [1e-6, 1e9], gbits [1e-6,
 * 1e12], work_tflop [1e-6, 1e12]); its answers depend only on the ratios of the times
 * (compute and transfer) and of the works, so all compute times and volumes are scaled by
 * one power of two and all works by another until they fit: exact, the same levels and
 * intensity order. Values that still do not fit (a set spanning more decades than the
 * range) are clamped to the range's ends. */
tsched_status ts_sim_running_jobset(tsched_sim *s, tsched_jobset **out, uint32_t **which_out, uint32_t *n_out)
{
    /* first pass: the spans of compute times, volumes and works */
    double c_lo = INFINITY, c_hi = 0, g_lo = INFINITY, g_hi = 0, w_lo = INFINITY, w_hi = 0;
    for (uint32_t ji = 0; ji < s->njobs; ji++) {
        const ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING)
            continue;
        double cms = (double)j->compute * 1e-6;
        double work = j->work_tflop > 0 ? j->work_tflop : j->gpus * cms / 1000.0;
        c_lo = fmin(c_lo, cms);
        c_hi = fmax(c_hi, cms);
        w_lo = fmin(w_lo, work);
        w_hi = fmax(w_hi, work);
        for (uint32_t p = 0; p < j->nphases; p++)
            for (uint32_t i = j->phase_rf_off[p]; i < j->phase_rf_off[p + 1]; i++) {
                double g = j->rflows[i].gbits * j->phases[p].repeat;
                g_lo = fmin(g_lo, g);
                g_hi = fmax(g_hi, g);
            }
    }
    int t_lo = INT32_MIN / 2, t_hi = INT32_MAX / 2, w_klo = INT32_MIN / 2, w_khi = INT32_MAX / 2;
    fit_bounds(&t_lo, &t_hi, c_lo, c_hi, TSCHED_JOBSET_COMPUTE_MIN, TSCHED_JOBSET_COMPUTE_MAX);
    fit_bounds(&t_lo, &t_hi, g_lo, g_hi, TSCHED_JOBSET_GBITS_MIN, TSCHED_JOBSET_GBITS_MAX);
    fit_bounds(&w_klo, &w_khi, w_lo, w_hi, TSCHED_JOBSET_WORK_MIN, TSCHED_JOBSET_WORK_MAX);
    int kt = fit_exp(t_lo, t_hi), kw = fit_exp(w_klo, w_khi);

    tsched_jobset *js;
    tsched_status st = tsched_jobset_new(&js, s->t);
    if (st != TSCHED_OK)
        return st;
    uint32_t *which = ts_malloc(s->njobs ? s->njobs : 1, sizeof *which), n = 0;
    if (!which) {
        tsched_jobset_free(js);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t ji = 0; ji < s->njobs && st == TSCHED_OK; ji++) {
        ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING)
            continue;
        double cms = (double)j->compute * 1e-6;
        double work = j->work_tflop > 0 ? j->work_tflop : j->gpus * cms / 1000.0;
        uint32_t idx;
        if ((st = tsched_jobset_add_job(&idx, js, j->name, j->gpus,
                                        fit(work, kw, TSCHED_JOBSET_WORK_MIN, TSCHED_JOBSET_WORK_MAX),
                                        fit(cms, kt, TSCHED_JOBSET_COMPUTE_MIN, TSCHED_JOBSET_COMPUTE_MAX), j->overlap)) !=
            TSCHED_OK)
            break;
        which[n++] = ji;
        for (uint32_t p = 0; p < j->nphases && st == TSCHED_OK; p++)
            for (uint32_t i = j->phase_rf_off[p]; i < j->phase_rf_off[p + 1] && st == TSCHED_OK; i++) {
                const ts_sim_rflow *rf = &j->rflows[i];
                /* inside a node (host_links): no network flow; stalled: no path to pin */
                if (ts_sim_rflow_net(rf) == 0 || j->rlinks[rf->link_off + 1] == s->dead)
                    continue;
                tsched_path path;
                memset(&path, 0xff, sizeof path);
                path.size = sizeof path;
                double g = fit(rf->gbits * j->phases[p].repeat, kt, TSCHED_JOBSET_GBITS_MIN, TSCHED_JOBSET_GBITS_MAX);
                /* an OCS circuit is no fabric path: the flow goes in unpinned; a flow of
                 * routing `ideal` loads its NIC links only */
                uint32_t members[TSCHED_PATH_MAX_LINKS];
                int pinned = rflow_path(&path, members, s, j, rf);
                if (pinned == 2)
                    st = tsched_jobset_add_nic_flow(js, idx, rf->src, rf->src_nic, rf->dst, rf->dst_nic, g);
                else if (pinned == 1 && ts_sim_link_mode(s)->members)
                    st = tsched_jobset_add_member_flow(js, idx, rf->src, rf->src_nic, rf->dst, rf->dst_nic, g,
                                                       members, path.nswitches - 1);
                else
                    st = tsched_jobset_add_flow(js, idx, rf->src, rf->src_nic, rf->dst, rf->dst_nic, g,
                                                pinned ? &path : NULL);
            }
    }
    if (st != TSCHED_OK) {
        tsched_jobset_free(js);
        free(which);
        return st;
    }
    *out = js;
    *which_out = which;
    *n_out = n;
    return TSCHED_OK;
}

/* CRUX, Sincronia, Varys or TACCL* over the running jobs (the row's arg: its compression
 * and order, TS_SIM_PRIO_ARG), with their flows of one iteration on the paths they use; the
 * levels apply at once to flows in flight. */
tsched_status ts_sim_prio_kcut(tsched_sim *s, const ts_sim_prio_ops *self)
{
    if (s->cr) /* placement crius: no flows to prioritise */
        return TSCHED_OK;
    tsched_jobset *js;
    uint32_t *which, n;
    tsched_status st = ts_sim_running_jobset(s, &js, &which, &n);
    if (st != TSCHED_OK)
        return st;
    tsched_priorities *pr = NULL;
    if (st == TSCHED_OK && n > 0) {
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.algo = (tsched_kcut_algo)TS_SIM_PRIO_ALGO(self->arg);
        o.order = (tsched_prio_order)TS_SIM_PRIO_ORDER(self->arg);
        o.levels = s->levels;
        o.seed = s->seed;
        st = tsched_prioritize(&pr, s->t, js, &o);
    }
    for (uint32_t k = 0; k < n && st == TSCHED_OK; k++) {
        ts_sim_job *j = &s->jobs[which[k]];
        uint32_t lev = tsched_priorities_level(pr, k);
        if (lev == j->level)
            continue;
        j->level = lev;
        for (uint32_t fi = 0; fi < s->nflow; fi++) {
            ts_sim_flow *f = &s->flow[fi];
            if (f->active && f->job == which[k]) {
                f->level = lev;
                for (uint32_t q = 0; q < f->nlinks; q++)
                    ts_sim_touch(s, f->links[q]);
            }
        }
    }
    tsched_priorities_free(pr);
    tsched_jobset_free(js);
    free(which);
    return st;
}
