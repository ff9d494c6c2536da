/* Frozen results: a snapshot of every job's statistics, the summary, the links report and
 * the time series, independent of the simulation (doc/sim.md §5). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/structsize.h"
#include "sim_internal.h"

/* Bytes of an arena holding `s`, appended at *len (capacity checked by the caller's sizing). */
static const char *put(char *arena, size_t *len, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(arena + *len, s, n);
    const char *p = arena + *len;
    *len += n;
    return p;
}

tsched_status tsched_sim_result_new(tsched_sim_result **out, const tsched_sim *s)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_new: out is NULL");
    *out = NULL;
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_new: sim is NULL");
    const tsched_topology *t = s->t;
    tsched_sim_result *r = ts_calloc(1, sizeof *r);
    if (!r)
        return TSCHED_E_NOMEM;
    /* sizes first: one arena for every name */
    size_t bytes = strlen(s->name) + 1, nodes = 0;
    for (uint32_t i = 0; i < s->njobs; i++) {
        bytes += strlen(s->jobs[i].name) + 1;
        if (s->jobs[i].cell_pool)
            bytes += strlen(s->jobs[i].cell_pool) + 1;
        nodes += s->jobs[i].state >= TS_JOB_RUNNING || s->jobs[i].start >= 0 ? s->jobs[i].nnodes : 0;
    }
    int report_links = s->started;
    uint32_t nfab = report_links ? s->nfab : 0;
    for (uint32_t u = 0; u < nfab / 2; u++) {
        uint32_t tr = s->unit_trunk[u];
        bytes += 2 * (strlen(tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, tr))) +
                      strlen(tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, tr))) + 2);
    }
    for (uint32_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].start >= 0)
            for (uint32_t k = 0; k < s->jobs[i].nnodes; k++)
                bytes += strlen(tsched_topology_node_name(t, s->jobs[i].nodes[k])) + 1;
    r->strings = ts_malloc(bytes, 1);
    r->jobs = ts_calloc(s->njobs ? s->njobs : 1, sizeof *r->jobs);
    r->node_off = ts_calloc((size_t)s->njobs + 1, sizeof *r->node_off);
    r->node_names = ts_calloc(nodes ? nodes : 1, sizeof *r->node_names);
    r->links = ts_calloc(nfab ? nfab : 1, sizeof *r->links);
    /* without a time series the sample grid was only counted (account.c): no rows */
    uint32_t ns = s->timeseries ? s->nsamples : 0;
    /* the interval in progress at the end, shorter than the others */
    int64_t part = s->started && s->timeseries ? s->now - (int64_t)s->nsamples * s->sample : 0;
    r->samples = ts_calloc(ns + 1, sizeof *r->samples);
    r->crius = s->cr != NULL;
    if (r->crius) {
        r->node_gpus = ts_calloc(nodes ? nodes : 1, sizeof *r->node_gpus);
        r->cells = ts_calloc(s->njobs ? s->njobs : 1, sizeof *r->cells);
        r->crius_events = s->crius_events;
    }
    if (!r->strings || !r->jobs || !r->node_off || !r->node_names || !r->links || !r->samples ||
        (r->crius && (!r->node_gpus || !r->cells))) {
        tsched_sim_result_free(r);
        return TSCHED_E_NOMEM;
    }
    size_t len = 0;
    r->scenario = (char *)put(r->strings, &len, s->name);

    int64_t end = s->now;
    int64_t from = s->from, to = s->to < end ? s->to : end;
    tsched_sim_summary *sum = &r->summary;
    sum->size = sizeof *sum;
    sum->end_ns = end;
    sum->from_ns = from;
    sum->to_ns = to;
    sum->jobs = s->njobs;
    double jct = 0, wait = 0, run = 0;
    int64_t makespan = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->njobs; i++) {
        const ts_sim_job *j = &s->jobs[i];
        tsched_sim_job_stats *o = &r->jobs[i];
        o->size = sizeof *o;
        o->name = put(r->strings, &len, j->name);
        o->gpus = j->gpus;
        o->level = j->level;
        o->arrival_ns = j->arrival;
        o->start_ns = j->start;
        o->finish_ns = j->state == TS_JOB_DONE ? j->finish : -1;
        o->iterations = j->iterations;
        o->iterations_done = j->real_done;
        o->iter_mean_s = j->real_done ? j->iter_sum_s / (double)j->real_done : 0;
        /* the sum rounds in another order than min and max: keep min <= mean <= max */
        if (j->real_done && o->iter_mean_s < j->iter_min_s)
            o->iter_mean_s = j->iter_min_s;
        if (j->real_done && o->iter_mean_s > j->iter_max_s)
            o->iter_mean_s = j->iter_max_s;
        o->iter_min_s = j->real_done ? j->iter_min_s : 0;
        o->iter_max_s = j->real_done ? j->iter_max_s : 0;
        o->iter_alone_s = j->iter_alone_s;
        double comp = j->compute_ns_total;
        if (j->compute_start >= 0)
            comp += (double)(s->now - j->compute_start);
        o->compute_s = comp * 1e-9;
        o->restarts = j->restarts;
        o->wait_cause = j->start < 0 ? (j->ever_tried ? j->wait_cause : TSCHED_SIM_WAIT_QUEUE) : j->wait_cause;
        o->gbits_demanded = j->gbits_demanded;
        o->gbits_delivered = j->gbits_delivered;
        r->node_off[i] = k;
        if (j->start >= 0)
            for (uint32_t q = 0; q < j->nnodes; q++) {
                if (r->crius)
                    r->node_gpus[k] = ts_sim_node_gpus(j, q);
                r->node_names[k++] = put(r->strings, &len, tsched_topology_node_name(t, j->nodes[q]));
            }
        if (r->crius && j->cell_pool) {
            r->cells[i].pool = put(r->strings, &len, j->cell_pool);
            r->cells[i].gpus = j->cell_n;
            r->cells[i].stages = j->cell_s;
            r->cells[i].iteration_s = j->cell_t;
        }
        sum->gbits_demanded += j->gbits_demanded;
        sum->gbits_delivered += j->gbits_delivered;
        if (o->finish_ns >= 0) {
            sum->jobs_done++;
            jct += (double)(j->finish - j->arrival) * 1e-9;
            wait += (double)(j->start - j->arrival) * 1e-9;
            run += (double)(j->finish - j->start) * 1e-9;
            if (j->finish > makespan)
                makespan = j->finish;
        }
        if (j->start != j->arrival || j->start < 0) {
            switch (o->wait_cause) {
            case TSCHED_SIM_WAIT_GPU: sum->waits_gpu++; break;
            case TSCHED_SIM_WAIT_NETWORK: sum->waits_network++; break;
            case TSCHED_SIM_WAIT_TIMEOUT: sum->waits_timeout++; break;
            case TSCHED_SIM_WAIT_QUEUE: sum->waits_queue++; break;
            default: break;
            }
        }
    }
    r->node_off[s->njobs] = k;
    r->njobs = s->njobs;
    /* averages over no finished job are undefined: NaN, written as null */
    sum->avg_jct_s = sum->jobs_done ? jct / sum->jobs_done : NAN;
    sum->avg_wait_s = sum->jobs_done ? wait / sum->jobs_done : NAN;
    sum->avg_run_s = sum->jobs_done ? run / sum->jobs_done : NAN;
    sum->makespan_s = (double)makespan * 1e-9;
    double window = to > from ? (double)(to - from) : 0;
    sum->gpu_util = window > 0 && s->total_gpus ? s->gpu_busy_window / ((double)s->total_gpus * window) : 0;
    sum->gpu_util_alloc = s->gpu_alloc_window > 0 ? s->gpu_busy_window / s->gpu_alloc_window : 0;
    sum->events = s->events;
    sum->rate_updates = s->rate_updates;
    sum->components = s->comps;
    sum->component_flows_max = s->comp_flows_max;
    sum->component_flows_mean = s->comps ? (double)s->comp_flows_sum / (double)s->comps : 0;
    sum->wall_ms = s->wall_ms;
    uint32_t unfinished = 0;
    for (uint32_t i = 0; i < s->njobs; i++)
        unfinished += s->jobs[i].state != TS_JOB_DONE;
    sum->status = unfinished == 0 ? TSCHED_SIM_DONE : s->nheap ? TSCHED_SIM_UNTIL : TSCHED_SIM_STALLED;

    /* links: every directed fabric link, trunk order, up first, then by member */
    int member = ts_sim_link_mode(s)->members;
    for (uint32_t l = 0; l < nfab; l++) {
        uint32_t tr = s->unit_trunk[l / 2], lo = tsched_topology_trunk_lower(t, tr), hi = tsched_topology_trunk_upper(t, tr);
        ts_sim_link_stats *o = &r->links[l];
        int up = l % 2 == 0;
        o->a = put(r->strings, &len, tsched_topology_switch_name(t, up ? lo : hi));
        o->b = put(r->strings, &len, tsched_topology_switch_name(t, up ? hi : lo));
        o->member = member ? (int64_t)(l / 2 - s->unit_base[tr]) : -1;
        o->gbps = member ? tsched_topology_member_gbps(t, tsched_topology_trunk_first_member(t, tr) +
                                                             (l / 2 - s->unit_base[tr]))
                         : tsched_topology_trunk_gbps(t, tr);
        int64_t busy = s->link[l].busy_ns;
        if (s->link[l].busy_since >= 0) {
            int64_t lo2 = s->link[l].busy_since > from ? s->link[l].busy_since : from;
            busy += to > lo2 ? to - lo2 : 0;
        }
        o->mean_util = window > 0 && o->gbps > 0 ? s->link[l].delivered / (o->gbps * window * 1e-9) : 0;
        o->busy_frac = window > 0 ? (double)busy / window : 0;
    }
    r->nlinks = nfab;
    if (ns) /* no samples (and s->samples NULL) before the run starts */
        memcpy(r->samples, s->samples, ns * sizeof *r->samples);
    if (part > 0 && s->samples) {
        /* its counts were taken at its start (close_sample); its averages over its own length */
        ts_sim_sample *x = &r->samples[ns];
        *x = s->samples[ns];
        ts_sim_fill_interval(s, x, (double)part);
        ns++;
    }
    r->nsamples = ns;
    r->no_series = !s->timeseries;
    r->sample_ns = s->sample;
    *out = r;
    return TSCHED_OK;
}

void tsched_sim_result_free(tsched_sim_result *r)
{
    if (!r)
        return;
    free(r->strings);
    free(r->jobs);
    free(r->node_off);
    free(r->node_names);
    free(r->links);
    free(r->samples);
    free(r->node_gpus);
    free(r->cells);
    free(r);
}

uint32_t tsched_sim_result_job_count(const tsched_sim_result *r) { return r ? r->njobs : 0; }

static const ts_span stats_spans[] = {
    TS_SPAN(tsched_sim_job_stats, size),        TS_SPAN(tsched_sim_job_stats, name),
    TS_SPAN(tsched_sim_job_stats, gpus),        TS_SPAN(tsched_sim_job_stats, level),
    TS_SPAN(tsched_sim_job_stats, arrival_ns),  TS_SPAN(tsched_sim_job_stats, start_ns),
    TS_SPAN(tsched_sim_job_stats, finish_ns),   TS_SPAN(tsched_sim_job_stats, iterations),
    TS_SPAN(tsched_sim_job_stats, iterations_done), TS_SPAN(tsched_sim_job_stats, iter_mean_s),
    TS_SPAN(tsched_sim_job_stats, iter_min_s),  TS_SPAN(tsched_sim_job_stats, iter_max_s),
    TS_SPAN(tsched_sim_job_stats, iter_alone_s), TS_SPAN(tsched_sim_job_stats, compute_s),
    TS_SPAN(tsched_sim_job_stats, restarts),    TS_SPAN(tsched_sim_job_stats, wait_cause),
    TS_SPAN(tsched_sim_job_stats, gbits_demanded), TS_SPAN(tsched_sim_job_stats, gbits_delivered),
};

tsched_status tsched_sim_result_job(tsched_sim_job_stats *out, const tsched_sim_result *r, uint32_t i)
{
    if (!out || !r)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_job: %s is NULL", !out ? "out" : "result");
    if (i >= r->njobs)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_job: job %u does not exist (%u jobs)", i, r->njobs);
    return ts_struct_out(out, &r->jobs[i], stats_spans, TS_NSPANS(stats_spans), sizeof *out, "tsched_sim_job_stats");
}

tsched_status tsched_sim_result_summary(tsched_sim_summary *out, const tsched_sim_result *r)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_sim_summary, size),        TS_SPAN(tsched_sim_summary, status),
        TS_SPAN(tsched_sim_summary, end_ns),      TS_SPAN(tsched_sim_summary, from_ns),
        TS_SPAN(tsched_sim_summary, to_ns),       TS_SPAN(tsched_sim_summary, jobs),
        TS_SPAN(tsched_sim_summary, jobs_done),   TS_SPAN(tsched_sim_summary, avg_jct_s),
        TS_SPAN(tsched_sim_summary, avg_wait_s),  TS_SPAN(tsched_sim_summary, avg_run_s),
        TS_SPAN(tsched_sim_summary, makespan_s),  TS_SPAN(tsched_sim_summary, gpu_util),
        TS_SPAN(tsched_sim_summary, gpu_util_alloc), TS_SPAN(tsched_sim_summary, gbits_demanded),
        TS_SPAN(tsched_sim_summary, gbits_delivered), TS_SPAN(tsched_sim_summary, events),
        TS_SPAN(tsched_sim_summary, rate_updates), TS_SPAN(tsched_sim_summary, waits_gpu),
        TS_SPAN(tsched_sim_summary, waits_network), TS_SPAN(tsched_sim_summary, waits_timeout),
        TS_SPAN(tsched_sim_summary, waits_queue), TS_SPAN(tsched_sim_summary, wall_ms),
        TS_SPAN(tsched_sim_summary, components), TS_SPAN(tsched_sim_summary, component_flows_max),
        TS_SPAN(tsched_sim_summary, component_flows_mean),
    };
    if (!out || !r)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_summary: %s is NULL", !out ? "out" : "result");
    return ts_struct_out(out, &r->summary, spans, TS_NSPANS(spans), sizeof *out, "tsched_sim_summary");
}
