/* Accounting behind the results (doc/sim.md §8): busy and allocated GPU time in the
 * measurement window, the time series' samples and their coarsening. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

static void close_sample(tsched_sim *s);
static void skip_sample(tsched_sim *s);

/* Integrate busy and allocated GPUs from last_acct to t (window and samples). */
void ts_sim_account(tsched_sim *s, int64_t t)
{
    while (s->last_acct < t) {
        int64_t end = t;
        /* a boundary past the clock's range is never reached */
        int64_t sample_end;
        int past = s->sample <= 0 || __builtin_mul_overflow((int64_t)s->nsamples + 1, s->sample, &sample_end);
        if (!past && sample_end <= end)
            end = sample_end;
        int64_t w = end - s->last_acct;
        int64_t lo = s->last_acct > s->from ? s->last_acct : s->from, hi = end < s->to ? end : s->to;
        if (hi > lo) {
            s->gpu_busy_window += s->busy_gpus * (double)(hi - lo);
            s->gpu_alloc_window += (double)s->alloc_gpus * (double)(hi - lo);
        }
        s->s_busy += s->busy_gpus * (double)w;
        s->last_acct = end;
        if (!past && end == sample_end) {
            /* every flow's bits up to the boundary, so each interval gets its own; done
             * without a time series too, so that asking for one changes no other result
             * (settling in two pieces rounds differently than in one) */
            if (s->nactive) {
                int64_t keep = s->now;
                s->now = end;
                for (uint32_t fi = 0; fi < s->nflow; fi++)
                    if (s->flow[fi].active)
                        ts_sim_settle(s, &s->flow[fi]);
                s->now = keep;
            }
            if (s->timeseries)
                close_sample(s);
            else
                skip_sample(s);
        }
    }
}

/* The averages of the interval in progress, of length `len` ns: busy GPUs from the busy
 * integral, link utilisation from the bits delivered on each up fabric link. */
void ts_sim_fill_interval(const tsched_sim *s, ts_sim_sample *x, double len)
{
    x->busy_gpus_avg = s->s_busy / len;
    x->gpu_util = s->total_gpus ? x->busy_gpus_avg / s->total_gpus : 0;
    double sum = 0, mx = 0;
    uint32_t nl = 0;
    for (uint32_t l = 0; l < s->nfab; l++) {
        if (s->link[l].cap <= 0)
            continue;
        double u = s->s_link_gbits[l] / (s->link[l].cap * len * 1e-9);
        sum += u;
        if (u > mx)
            mx = u;
        nl++;
    }
    x->link_util_mean = nl ? sum / nl : 0;
    x->link_util_max = mx;
}

/* The samples fill max_samples: pairs merge into one sample of twice the interval,
 * as the time series' groups merge (result_csv.c): averages with equal weights, the
 * largest link's utilisation averaged, counts of the first; the interval in progress, just
 * opened at a boundary of both, goes on with the doubled length. */
static void coarsen(tsched_sim *s)
{
    uint32_t half = s->nsamples / 2;
    for (uint32_t k = 0; k < half; k++) {
        const ts_sim_sample *a = &s->samples[2 * k], *b = &s->samples[2 * k + 1];
        ts_sim_sample m = *a;
        m.gpu_util = (a->gpu_util + b->gpu_util) / 2;
        m.busy_gpus_avg = (a->busy_gpus_avg + b->busy_gpus_avg) / 2;
        m.link_util_mean = (a->link_util_mean + b->link_util_mean) / 2;
        m.link_util_max = (a->link_util_max + b->link_util_max) / 2;
        s->samples[k] = m;
    }
    s->samples[half] = s->samples[s->nsamples]; /* the counts at the open interval's start */
    s->nsamples = half;
    s->sample *= 2;
}

static void close_sample(tsched_sim *s)
{
    if (TS_GROW(s->samples, s->samples_cap, (size_t)s->nsamples + 1) != TSCHED_OK) {
        s->acct_st = TSCHED_E_NOMEM; /* never a time series with a hole: the run stops */
        return;
    }
    ts_sim_fill_interval(s, &s->samples[s->nsamples], (double)s->sample);
    memset(s->s_link_gbits, 0, s->nfab * sizeof *s->s_link_gbits);
    s->nsamples++;
    s->s_busy = 0;
    /* the counts of the next interval, at its start */
    if (TS_GROW(s->samples, s->samples_cap, (size_t)s->nsamples + 1) != TSCHED_OK) {
        s->acct_st = TSCHED_E_NOMEM;
        return;
    }
    ts_sim_sample *n = &s->samples[s->nsamples];
    memset(n, 0, sizeof *n);
    n->alloc_gpus = s->alloc_gpus;
    n->running_jobs = s->running;
    n->queued_jobs = s->nqueue;
    n->active_flows = s->nactive;
    if (s->nsamples >= s->max_samples && s->sample <= INT64_MAX / 2)
        coarsen(s);
}

/* Without a time series: only the grid moves on, as close_sample and coarsen move it (the
 * boundaries where flows are settled stay where they would be with one); no per-link loop. */
static void skip_sample(tsched_sim *s)
{
    s->nsamples++;
    s->s_busy = 0;
    if (s->nsamples >= s->max_samples && s->sample <= INT64_MAX / 2) {
        s->nsamples /= 2;
        s->sample *= 2;
    }
}

/* Job j starts (on 1) or stops computing now, its GPUs busy or not from now. */
void ts_sim_busy(tsched_sim *s, ts_sim_job *j, int on)
{
    ts_sim_account(s, s->now);
    if (on) {
        s->busy_gpus += j->used_gpus;
        j->compute_start = s->now;
    } else {
        s->busy_gpus -= j->used_gpus;
        if (j->compute_start >= 0)
            j->compute_ns_total += (double)(s->now - j->compute_start);
        j->compute_start = -1;
    }
}
