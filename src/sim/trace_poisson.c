/* trace poisson: a generated Poisson trace (doc/sim-traces.md). */
#include "trace_convert_internal.h"

/* ---------------------------------------------------------------- poisson */

typedef struct {
    uint64_t *size;
    double *w;
    size_t n;
    double total;
} size_dist;

static tsched_status parse_sizes(const char *spec, size_dist *sd, ts_trace_err *err)
{
    memset(sd, 0, sizeof *sd);
    size_t cap = 1;
    for (const char *s = spec; *s; s++)
        cap += *s == ',';
    sd->size = calloc(cap, sizeof *sd->size);
    sd->w = calloc(cap, sizeof *sd->w);
    char *copy = strdup(spec);
    if (!sd->size || !sd->w || !copy) {
        free(copy);
        return ts_tc_nomem(err);
    }
    tsched_status rc = TSCHED_OK;
    char *save = NULL;
    size_t items = 0;
    for (char *p = copy;; p = NULL) {
        char *tok = p ? p : save;
        if (!tok)
            break;
        char *comma = strchr(tok, ',');
        save = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        items++;
        char *colon = strchr(tok, ':');
        if (!colon) {
            rc = ts_tc_opt_fail(err, "--sizes: '%s' is not SIZE:WEIGHT", tok);
            break;
        }
        *colon = '\0';
        uint64_t g;
        if (ts_tc_parse_u64(tok, &g) != 0 || g == 0 || g > UINT32_MAX) {
            rc = ts_tc_opt_fail(err, "--sizes: size '%s' is not a whole number of GPUs >= 1", tok);
            break;
        }
        char *end;
        errno = 0;
        double w = ts_strtod(colon + 1, &end);
        if (!colon[1] || errno || *end || !isfinite(w)) {
            rc = ts_tc_opt_fail(err, "--sizes: weight of %" PRIu64 " is '%s', not a number", g, colon + 1);
            break;
        }
        if (w <= 0) {
            rc = ts_tc_opt_fail(err, "--sizes: weight of %" PRIu64 " is %s", g, colon + 1);
            break;
        }
        for (size_t k = 0; k < sd->n; k++)
            if (sd->size[k] == g) {
                rc = ts_tc_opt_fail(err, "--sizes: size %" PRIu64 " given twice", g);
                break;
            }
        if (rc != TSCHED_OK)
            break;
        sd->size[sd->n] = g;
        sd->w[sd->n++] = w;
        sd->total += w;
    }
    free(copy);
    if (rc == TSCHED_OK && (items == 0 || sd->n == 0))
        rc = ts_tc_opt_fail(err, "--sizes: empty; expected SIZE:WEIGHT,...");
    if (rc == TSCHED_OK && !isfinite(sd->total))
        rc = ts_tc_opt_fail(err, "--sizes: the weights sum to infinity");
    return rc;
}

enum { DUR_FIXED, DUR_EXP, DUR_LOGNORMAL };

typedef struct {
    int kind;
    double a, b;
} dur_dist;

static tsched_status parse_duration(const char *spec, dur_dist *d, ts_trace_err *err)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return ts_tc_opt_fail(err, "--duration-dist: '%s' is not fixed:S, exp:MEAN or lognormal:MU,SIGMA", spec);
    size_t kl = (size_t)(colon - spec);
    const char *arg = colon + 1;
    if (kl == 5 && strncmp(spec, "fixed", 5) == 0) {
        d->kind = DUR_FIXED;
        if (ts_tc_parse_real(arg, &d->a) != 0 || !ts_tc_time_ok(d->a, 1))
            return ts_tc_opt_fail(
                err, "--duration-dist: fixed duration '%s' is not a number in " TS_TRACE_DURATION_S_RANGE, arg);
    } else if (kl == 3 && strncmp(spec, "exp", 3) == 0) {
        d->kind = DUR_EXP;
        if (ts_tc_parse_real(arg, &d->a) != 0 || !ts_tc_time_ok(d->a, 1))
            return ts_tc_opt_fail(err, "--duration-dist: exp mean '%s' is not a number in " TS_TRACE_DURATION_S_RANGE,
                                  arg);
    } else if (kl == 9 && strncmp(spec, "lognormal", 9) == 0) {
        d->kind = DUR_LOGNORMAL;
        const char *comma = strchr(arg, ',');
        char mu[64];
        if (!comma || (size_t)(comma - arg) >= sizeof mu)
            return ts_tc_opt_fail(err, "--duration-dist: lognormal needs MU,SIGMA, got '%s'", arg);
        memcpy(mu, arg, (size_t)(comma - arg));
        mu[comma - arg] = '\0';
        if (ts_tc_parse_real(mu, &d->a) != 0)
            return ts_tc_opt_fail(err, "--duration-dist: lognormal MU '%s' is not a number", mu);
        if (ts_tc_parse_real(comma + 1, &d->b) != 0 || d->b < 0)
            return ts_tc_opt_fail(err, "--duration-dist: lognormal SIGMA '%s' is not a number >= 0", comma + 1);
        /* |z| of one Box-Muller draw is below 8.7: keep every duration finite and > 0 */
        if (d->a + 8.7 * d->b > 700 || d->a - 8.7 * d->b < -700)
            return ts_tc_opt_fail(err,
                                  "--duration-dist: lognormal:%s,%s can give durations that are not finite and "
                                  "positive (need |MU| + 8.7 SIGMA <= 700)",
                                  mu, comma + 1);
    } else
        return ts_tc_opt_fail(err, "--duration-dist: unknown distribution '%.*s' (fixed, exp, lognormal)", (int)kl,
                              spec);
    return TSCHED_OK;
}

static double draw_duration(const dur_dist *d, ts_rng *r)
{
    switch (d->kind) {
    case DUR_EXP: return ts_tc_rng_exp(r, d->a);
    case DUR_LOGNORMAL: return exp(d->a + d->b * ts_tc_rng_normal(r));
    default: return d->a;
    }
}

tsched_status ts_trace_poisson_check(const char *sizes, const char *dspec, ts_trace_err *err)
{
    size_dist sd = {0};
    dur_dist dd;
    tsched_status rc = sizes ? parse_sizes(sizes, &sd, err) : TSCHED_OK;
    if (rc == TSCHED_OK && dspec)
        rc = parse_duration(dspec, &dd, err);
    free(sd.size);
    free(sd.w);
    return rc;
}

tsched_status ts_trace_poisson(json_t **out, uint32_t njobs, double mean, const char *sizes, const char *dspec,
                               const ts_trace_opts *c, ts_trace_err *err)
{
    *out = NULL;
    if (njobs == 0 || njobs > TS_TRACE_MAX_JOBS)
        return ts_tc_opt_fail(err, "--jobs: '%" PRIu32 "' is not a whole number in [1, %u]", njobs, TS_TRACE_MAX_JOBS);
    if (!(mean > 0) || mean > TS_TRACE_MAX_S)
        return ts_tc_opt_fail(err, "--mean-interarrival-s: %g is not a number in (0, 9.2e9]", mean);
    size_dist sd = {0};
    dur_dist dd;
    tsched_status rc;
    if ((rc = ts_trace_check_compute_ms(c->compute_ms, NULL, err)) || (rc = ts_trace_check_gbits(c->gbits, NULL, err)))
        return rc;
    if ((rc = parse_sizes(sizes, &sd, err)) != TSCHED_OK || (rc = parse_duration(dspec, &dd, err)) != TSCHED_OK) {
        free(sd.size);
        free(sd.w);
        return rc;
    }
    json_t *doc = ts_tc_new_trace("poisson"), *jobs = json_object_get(doc, "jobs");
    if (!doc) {
        rc = ts_tc_nomem(err);
        goto out;
    }
    ts_rng r;
    ts_rng_seed(&r, c->seed);
    double t = 0;
    for (unsigned i = 0; i < njobs && rc == TSCHED_OK; i++) {
        /* per job, in this order: inter-arrival, size, duration, model */
        t += ts_tc_rng_exp(&r, mean);
        uint64_t g = sd.size[ts_tc_rng_pick(&r, sd.w, sd.n, sd.total)];
        double dur = draw_duration(&dd, &r);
        if (!ts_tc_time_ok(t, 0)) {
            rc = ts_tc_time_error(err, "--mean-interarrival-s", i, t, 0);
            break;
        }
        if (!ts_tc_time_ok(dur, 1)) {
            rc = ts_tc_time_error(err, "--duration-dist", i, dur, 1);
            break;
        }
        char name[32];
        ts_snprintf(name, sizeof name, "job%u", i);
        json_t *job = json_object();
        const mix_model *m;
        if (!job || json_array_append_new(jobs, job) != 0 || ts_tc_set(job, "name", json_string(name)) ||
            ts_tc_set(job, "arrival_s", ts_tc_num(t)) || ts_tc_set(job, "gpus", json_integer((json_int_t)g)) ||
            ts_tc_model_head(job, c, &r, g, &m) || ts_tc_set(job, "duration_s", ts_tc_num(dur)) ||
            ts_tc_model_tail(job, c, m))
            rc = ts_tc_nomem(err);
    }
    if (rc == TSCHED_OK)
        *out = doc;
    else
        json_decref(doc);
out:
    free(sd.size);
    free(sd.w);
    return rc;
}
