/* The time series of a simulation as CSV (doc/sim.md §5.2): a header line, then one row per
 * interval [t, t + sample) from the result's samples, or per group of k of them when a
 * multiple of the result's interval is asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error.h"
#include "common/numfmt.h"
#include "sim/sim_result.h"

#define CSV_HEADER                                                                                                  \
    "time_s,gpu_util,alloc_gpus,busy_gpus_avg,running_jobs,queued_jobs,active_flows,link_util_mean,link_util_max\n"
#define NUM_CAP TS_FMT_DOUBLE_CAP

/* Every double of the CSV goes through here: the shortest text that reads back to the same
 * double, as in the JSON documents. */
static const char *num(char buf[NUM_CAP], double x)
{
    ts_fmt_double(buf, NUM_CAP, x);
    return buf;
}

typedef struct csv_buf {
    char *s;
    size_t len, cap;
} csv_buf;

static tsched_status append(csv_buf *b, const char *s, size_t n)
{
    tsched_status st = TS_GROW(b->s, b->cap, b->len + n + 1);
    if (st != TSCHED_OK)
        return st;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return TSCHED_OK;
}

/* One row: samples [first, first + n) of the result as one interval starting at t_s. The
 * averages (exact integrals over each sample) average with equal weights, which is the exact
 * integral over the group; link_util_max averages the samples' maxima, an upper bound of the
 * largest per-link mean over the group (the per-link series are not kept). Counts are those
 * at the group's start. */
static tsched_status row(csv_buf *b, const ts_sim_sample *s, uint32_t n, double t_s)
{
    double gpu = 0, busy = 0, lmean = 0, lmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        gpu += s[i].gpu_util;
        busy += s[i].busy_gpus_avg;
        lmean += s[i].link_util_mean;
        lmax += s[i].link_util_max;
    }
    char t[NUM_CAP], g[NUM_CAP], bu[NUM_CAP], lm[NUM_CAP], lx[NUM_CAP];
    char line[8 * NUM_CAP + 64];
    int len = snprintf(line, sizeof line, "%s,%s,%u,%s,%u,%u,%u,%s,%s\n", num(t, t_s), num(g, gpu / n),
                       s[0].alloc_gpus, num(bu, busy / n), s[0].running_jobs, s[0].queued_jobs, s[0].active_flows,
                       num(lm, lmean / n), num(lx, lmax / n));
    return append(b, line, (size_t)len);
}

tsched_status tsched_sim_result_timeseries_csv(char **out, const tsched_sim_result *result, int64_t sample_ns)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_timeseries_csv: out is NULL");
    *out = NULL;
    if (!result)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_timeseries_csv: result is NULL");
    if (result->no_series)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_timeseries_csv: the run kept no time series (option "
                                          "timeseries was 0; set it to 1, or give topo-sched simulate --timeseries)");
    if (result->nsamples && !result->samples)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_timeseries_csv: result has %u samples but no records",
                        result->nsamples);
    int64_t base = result->sample_ns;
    if (sample_ns < 0)
        return ts_error(TSCHED_E_RANGE, "sample_ns: %lld is negative (0 = the result's interval)",
                        (long long)sample_ns);
    if (base <= 0) {
        if (result->nsamples)
            return ts_error(TSCHED_E_INVALID, "tsched_sim_result_timeseries_csv: result has %u samples of "
                            "interval %lld ns", result->nsamples, (long long)base);
        if (sample_ns != 0)
            return ts_error(TSCHED_E_RANGE, "sample_ns: %lld, but the result has no time series interval",
                            (long long)sample_ns);
    }
    int64_t step = sample_ns == 0 ? base : sample_ns;
    if (base > 0 && step % base != 0)
        return ts_error(TSCHED_E_RANGE, "sample_ns: %lld is not a positive multiple of the result's interval %lld ns",
                        (long long)sample_ns, (long long)base);
    uint32_t k = base > 0 ? (step / base > UINT32_MAX ? UINT32_MAX : (uint32_t)(step / base)) : 1;

    csv_buf b = {NULL, 0, 0};
    tsched_status st = append(&b, CSV_HEADER, strlen(CSV_HEADER));
    for (uint32_t first = 0, r = 0; st == TSCHED_OK && first < result->nsamples; r++) {
        uint32_t n = result->nsamples - first < k ? result->nsamples - first : k;
        /* exact while r * step fits: every row time is then the nearest double to it */
        double t_s = (uint64_t)r <= (uint64_t)(INT64_MAX / step) ? (double)((int64_t)r * step) / 1e9
                                                                 : (double)r * ((double)step / 1e9);
        st = row(&b, result->samples + first, n, t_s);
        first += n;
    }
    if (st != TSCHED_OK) {
        free(b.s);
        return st;
    }
    *out = b.s;
    return TSCHED_OK;
}
