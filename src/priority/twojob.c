/* The two-job iteration model of CRUX 4.2 (Examples 1 and 2): two periodic jobs share one
 * link under strict preemptive priority, as a fluid (the prioritised job sends at the full
 * rate whenever it has data; the other only while the first is silent).
 *
 * Exactness. Every event time is an integer combination of the six inputs (compute time,
 * ready offset (1 - overlap) * compute, communication time of each job), so the inputs are
 * put on one binary grid of 2^36 ticks per power of two of the largest input and the
 * simulation runs in 64-bit integers: "nice" inputs (whole or binary-fraction ms) are exact,
 * others move by at most 2^-36 of the largest input. The prioritised job never waits, so
 * it repeats with its own period; at each of its iteration starts the whole state is the
 * other job's (time since its iteration start, data left), and the state sequence is
 * eventually periodic. Brent's cycle finder spots the first repeat with O(1) memory, which
 * gives the period and the per-period totals exactly. A state sequence whose period is too
 * long (incommensurate iteration times that barely interact) stops after 2^18 events and
 * takes the other job's mean iteration time over the second half of the run instead
 * (`exact` = 0; see mean_out()). */
#include <math.h>
#include <string.h>

#include "../common/error.h"
#include "crux_internal.h"

#define GRID_BITS 36
#define EVENT_CAP (UINT64_C(1) << 18)

/* Job 0 is the prioritised ("high") job, job 1 the other. */
typedef struct tj_params {
    int64_t C[2], A[2], X[2]; /* compute, ready offset, communication: ticks */
    int64_t T0;               /* period of job 0 (never disturbed) */
    double q;                 /* ms per tick */
} tj_params;

typedef struct tj_sim {
    int64_t t;
    int64_t s[2];    /* start of the current iteration */
    int64_t rem[2];  /* communication left */
    int64_t busy[2]; /* total computing time */
    int64_t link[2]; /* total link time */
    uint64_t iters[2]; /* iterations started */
    int ready[2];    /* the communication of the current iteration has been released */
} tj_sim;

/* Totals over one period (or a window), in ticks. Doubles: exact up to 2^53 ticks, and the
 * averaged fallback is not a whole number of ticks anyway. */
typedef struct tj_out {
    double period, start, link[2], busy[2];
    int exact;
} tj_out;

static tsched_status check_job(const tsched_twojob *j, const char *which)
{
    if (!j)
        return ts_error(TSCHED_E_INVALID, "tsched_twojob_steady: job %s is NULL", which);
    if (!isfinite(j->compute_ms) || j->compute_ms <= 0)
        return ts_error(TSCHED_E_RANGE, "job %s: compute_ms must be positive and finite, got %g", which, j->compute_ms);
    if (!isfinite(j->comm_ms) || j->comm_ms <= 0)
        return ts_error(TSCHED_E_RANGE, "job %s: comm_ms must be positive and finite, got %g", which, j->comm_ms);
    if (!(j->overlap >= 0 && j->overlap <= 1))
        return ts_error(TSCHED_E_RANGE, "job %s: overlap must be in [0, 1], got %g", which, j->overlap);
    if (j->gpus == 0)
        return ts_error(TSCHED_E_RANGE, "job %s: gpus must be positive", which);
    return TSCHED_OK;
}

static int64_t to_ticks(double x, int e)
{
    return (int64_t)llround(ldexp(x, GRID_BITS - e));
}

/* The grid of a pair of jobs: 2^GRID_BITS ticks per 2^e ms, 2^e above every input. */
static int grid_exp(const tsched_twojob *a, const tsched_twojob *b)
{
    double m = fmax(fmax(a->compute_ms, a->comm_ms), fmax(b->compute_ms, b->comm_ms));
    int e;
    (void)frexp(m, &e);
    return e;
}

static void set_job(tj_params *p, int i, const tsched_twojob *j, int e)
{
    p->C[i] = to_ticks(j->compute_ms, e);
    p->X[i] = to_ticks(j->comm_ms, e);
    if (p->C[i] < 1)
        p->C[i] = 1; /* a positive input never becomes zero: iterations take time */
    if (p->X[i] < 1)
        p->X[i] = 1;
    p->A[i] = to_ticks((1 - j->overlap) * j->compute_ms, e);
    if (p->A[i] > p->C[i])
        p->A[i] = p->C[i];
    if (p->A[i] < 0)
        p->A[i] = 0;
}

static void make_params(tj_params *p, const tsched_twojob *hi, const tsched_twojob *lo, int e)
{
    set_job(p, 0, hi, e);
    set_job(p, 1, lo, e);
    p->T0 = p->C[0] > p->A[0] + p->X[0] ? p->C[0] : p->A[0] + p->X[0];
    p->q = ldexp(1.0, e - GRID_BITS);
}

/* Release communication that is due and start the next iteration of a job that is done. */
static void settle(tj_sim *s, const tj_params *p)
{
    int changed;
    do {
        changed = 0;
        for (int i = 0; i < 2; i++) {
            if (!s->ready[i] && s->t >= s->s[i] + p->A[i]) {
                s->ready[i] = 1;
                changed = 1;
            }
            if (s->ready[i] && s->rem[i] == 0 && s->t >= s->s[i] + p->C[i]) {
                s->s[i] = s->t;
                s->iters[i]++;
                s->rem[i] = p->X[i];
                s->ready[i] = p->A[i] == 0;
                changed = 1;
            }
        }
    } while (changed);
}

static void sim_init(tj_sim *s, const tj_params *p)
{
    memset(s, 0, sizeof *s);
    s->rem[0] = p->X[0];
    s->rem[1] = p->X[1];
    settle(s, p);
}

/* Run to time `limit`, one event at a time. 0, or -1 when `*events` passes `cap`. */
static int advance_to(tj_sim *s, const tj_params *p, int64_t limit, uint64_t *events, uint64_t cap)
{
    while (s->t < limit) {
        if (++*events > cap)
            return -1;
        int tx = -1;
        if (s->ready[0] && s->rem[0] > 0)
            tx = 0;
        else if (s->ready[1] && s->rem[1] > 0)
            tx = 1;
        int64_t next = limit;
        for (int i = 0; i < 2; i++) {
            if (!s->ready[i] && s->s[i] + p->A[i] < next)
                next = s->s[i] + p->A[i];
            if (s->t < s->s[i] + p->C[i] && s->s[i] + p->C[i] < next)
                next = s->s[i] + p->C[i];
        }
        if (tx >= 0 && s->t + s->rem[tx] < next)
            next = s->t + s->rem[tx];
        int64_t dt = next - s->t;
        for (int i = 0; i < 2; i++)
            if (s->t < s->s[i] + p->C[i])
                s->busy[i] += dt;
        if (tx >= 0) {
            s->rem[tx] -= dt;
            s->link[tx] += dt;
        }
        s->t = next;
        settle(s, p);
    }
    return 0;
}

/* One iteration of job 0. */
static int step(tj_sim *s, const tj_params *p, uint64_t *events, uint64_t cap)
{
    return advance_to(s, p, s->s[0] + p->T0, events, cap);
}

/* Same state at an iteration start of job 0 (job 0 itself is then always fresh). */
static int same_state(const tj_sim *x, const tj_sim *y)
{
    return x->t - x->s[1] == y->t - y->s[1] && x->rem[1] == y->rem[1] && x->ready[1] == y->ready[1];
}

static void diff_out(tj_out *o, const tj_sim *from, const tj_sim *to)
{
    o->period = (double)(to->t - from->t);
    for (int i = 0; i < 2; i++) {
        o->link[i] = (double)(to->link[i] - from->link[i]);
        o->busy[i] = (double)(to->busy[i] - from->busy[i]);
    }
}

/* The averaged fallback. Job 0 repeats every T0 whatever job 1 does, so its shares are
 * exact; job 1 sends X1 and computes C1 in each of its iterations, so its shares follow from
 * its mean iteration time over the whole iterations between two snapshots. Only that mean
 * is estimated, with an error of one iteration's variation over the iteration count. */
static int mean_out(tj_out *o, const tj_params *p, const tj_sim *from, const tj_sim *to)
{
    uint64_t n = to->iters[1] - from->iters[1];
    if (n < 2)
        return -1;
    double w = (double)(to->s[1] - from->s[1]);
    o->period = w;
    o->link[0] = w * (double)p->X[0] / (double)p->T0;
    o->busy[0] = w * (double)p->C[0] / (double)p->T0;
    o->link[1] = (double)n * (double)p->X[1];
    o->busy[1] = (double)n * (double)p->C[1];
    return 0;
}

static tsched_status run_steady(tj_out *o, const tj_params *p)
{
    memset(o, 0, sizeof *o);
    o->exact = 1;
    if (p->T0 == p->X[0]) {
        /* job 0 sends without a gap (all overlap, communication at least as long as the
         * computation): job 1 never gets the link and stops once its computation is done */
        o->period = (double)p->T0;
        o->link[0] = (double)p->X[0];
        o->busy[0] = (double)p->C[0];
        o->start = (double)((p->C[1] + p->T0 - 1) / p->T0 * p->T0);
        return TSCHED_OK;
    }
    uint64_t events = 0;
    tj_sim tort, hare, half;
    int have_half = 0;
    sim_init(&tort, p);
    half = tort;
    hare = tort;
    if (step(&hare, p, &events, EVENT_CAP) != 0)
        return ts_error(TSCHED_E_INTERNAL, "two-job model: no progress");
    uint64_t power = 1, lam = 1;
    while (!same_state(&tort, &hare)) {
        if (power == lam) {
            tort = hare;
            power *= 2;
            lam = 0;
        }
        if (!have_half && events >= EVENT_CAP / 2) {
            half = hare;
            have_half = 1;
        }
        tj_sim last = hare;
        if (step(&hare, p, &events, EVENT_CAP) != 0) {
            /* no exact period within the budget: average the second half of the run,
             * between iteration starts of job 0 */
            tj_sim *from = have_half && half.t < last.t ? &half : &tort;
            if (last.t - from->t < p->T0)
                return ts_error(TSCHED_E_INTERNAL, "two-job model: averaging window too short");
            if (mean_out(o, p, from, &last) != 0)
                diff_out(o, from, &last); /* job 1 hardly advances: plain average */
            o->start = (double)from->t;
            o->exact = 0;
            return TSCHED_OK;
        }
        lam++;
    }
    diff_out(o, &tort, &hare);
    /* where the cycle begins: hare lam steps ahead of tortoise, both from the start */
    sim_init(&tort, p);
    hare = tort;
    events = 0;
    for (uint64_t i = 0; i < lam; i++)
        if (step(&hare, p, &events, 4 * EVENT_CAP) != 0)
            return ts_error(TSCHED_E_INTERNAL, "two-job model: cycle start not found");
    while (!same_state(&tort, &hare))
        if (step(&tort, p, &events, 4 * EVENT_CAP) != 0 || step(&hare, p, &events, 4 * EVENT_CAP) != 0)
            return ts_error(TSCHED_E_INTERNAL, "two-job model: cycle start not found");
    o->start = (double)tort.t;
    return TSCHED_OK;
}

/* 0, or -1 when the window needs more than the event budget. */
static int run_window(tj_out *o, const tj_params *p, int64_t horizon)
{
    memset(o, 0, sizeof *o);
    tj_sim s;
    uint64_t events = 0;
    sim_init(&s, p);
    if (advance_to(&s, p, horizon, &events, 4 * EVENT_CAP) != 0)
        return -1;
    o->period = (double)horizon;
    for (int i = 0; i < 2; i++) {
        o->link[i] = (double)s.link[i];
        o->busy[i] = (double)s.busy[i];
    }
    o->exact = 1;
    return 0;
}

/* Ticks (job 0 = high) to a result for jobs (a, b). */
static void to_result(ts_twojob_result *r, const tj_out *o, const tj_params *p, const tsched_twojob *a,
                      const tsched_twojob *b, int a_first)
{
    int ia = a_first ? 0 : 1, ib = 1 - ia;
    r->period_ms = o->period * p->q;
    r->start_ms = o->start * p->q;
    r->link_ms[0] = o->link[ia] * p->q;
    r->link_ms[1] = o->link[ib] * p->q;
    r->compute_ms[0] = o->busy[ia] * p->q;
    r->compute_ms[1] = o->busy[ib] * p->q;
    double work = (double)a->gpus * o->busy[ia] + (double)b->gpus * o->busy[ib];
    r->utilization = o->period > 0 ? work / (((double)a->gpus + (double)b->gpus) * o->period) : 0;
    r->exact = o->exact;
}

static tsched_status check_pair(const tsched_twojob *a, const tsched_twojob *b)
{
    tsched_status st;
    if ((st = check_job(a, "a")) != TSCHED_OK || (st = check_job(b, "b")) != TSCHED_OK)
        return st;
    return TSCHED_OK;
}

tsched_status ts_twojob_steady(ts_twojob_result *res, const tsched_twojob *a, const tsched_twojob *b, int a_first)
{
    tsched_status st;
    if (!res)
        return ts_error(TSCHED_E_INVALID, "ts_twojob_steady: result is NULL");
    memset(res, 0, sizeof *res);
    if ((st = check_pair(a, b)) != TSCHED_OK)
        return st;
    tj_params p;
    make_params(&p, a_first ? a : b, a_first ? b : a, grid_exp(a, b));
    tj_out o;
    if ((st = run_steady(&o, &p)) != TSCHED_OK)
        return st;
    to_result(res, &o, &p, a, b, a_first);
    return TSCHED_OK;
}

tsched_status ts_twojob_window(ts_twojob_result *res, const tsched_twojob *a, const tsched_twojob *b, int a_first,
                               double horizon_ms)
{
    tsched_status st;
    if (!res)
        return ts_error(TSCHED_E_INVALID, "ts_twojob_window: result is NULL");
    memset(res, 0, sizeof *res);
    if ((st = check_pair(a, b)) != TSCHED_OK)
        return st;
    if (!isfinite(horizon_ms) || horizon_ms <= 0)
        return ts_error(TSCHED_E_RANGE, "horizon_ms must be positive and finite, got %g", horizon_ms);
    tj_params p;
    int e = grid_exp(a, b);
    make_params(&p, a_first ? a : b, a_first ? b : a, e);
    double h = ldexp(horizon_ms, GRID_BITS - e);
    if (h > ldexp(1.0, 60))
        return ts_error(TSCHED_E_TOO_LARGE, "horizon_ms %g is too long for these jobs", horizon_ms);
    tj_out o;
    if (run_window(&o, &p, (int64_t)llround(h)) != 0)
        return ts_error(TSCHED_E_TOO_LARGE, "horizon_ms %g needs more than %llu events", horizon_ms,
                        (unsigned long long)(4 * EVENT_CAP));
    to_result(res, &o, &p, a, b, a_first);
    return TSCHED_OK;
}

tsched_status tsched_twojob_steady(double *link_share_a, double *link_share_b, double *utilization,
                                   const tsched_twojob *a, const tsched_twojob *b, int a_first)
{
    ts_twojob_result r;
    tsched_status st = ts_twojob_steady(&r, a, b, a_first);
    if (st != TSCHED_OK)
        return st;
    if (link_share_a)
        *link_share_a = r.link_ms[0] / r.period_ms;
    if (link_share_b)
        *link_share_b = r.link_ms[1] / r.period_ms;
    if (utilization)
        *utilization = r.utilization;
    return TSCHED_OK;
}

/* Shares closer than this count as equal (they are ratios of exact tick counts). */
#define SHARE_EPS 1e-9
#define SHARE_EPS_AVG 1e-5
/* Bounds of a correction factor: a job that gains from going first while the reference
 * loses nothing is placed as if it were K_MAX times as intense (and 1 / K_MAX the other
 * way round), so P stays finite and positive. */
#define K_MAX 1000.0

tsched_status ts_crux_factor(double *k, const tsched_twojob *j, const tsched_twojob *r)
{
    tsched_status st;
    if (!k)
        return ts_error(TSCHED_E_INVALID, "ts_crux_factor: k is NULL");
    *k = 1;
    if ((st = check_pair(j, r)) != TSCHED_OK)
        return st;
    /* job 0 of the model is the prioritised one: run "r first" has r as job 0 */
    int e = grid_exp(j, r);
    tj_params prf, pjf;
    make_params(&prf, r, j, e);
    make_params(&pjf, j, r, e);
    tj_out orf, ojf;
    if ((st = run_steady(&orf, &prf)) != TSCHED_OK || (st = run_steady(&ojf, &pjf)) != TSCHED_OK)
        return st;
    /* Delta_r = Rr/Pr - Rj/Pj and Delta_j = Jj/Pj - Jr/Pr over the common denominator
     * Pr Pj: products of tick counts with short mantissas are exact, so "nice" inputs give
     * exact factors (Example 1: 1.5, not 1.4999999999999998) */
    double den = orf.period * ojf.period;
    double nr = orf.link[0] * ojf.period - ojf.link[1] * orf.period;
    double nj = ojf.link[0] * orf.period - orf.link[1] * ojf.period;
    double dr = nr / den, dj = nj / den;
    /* an averaged run is only good to a few parts per million */
    double eps = orf.exact && ojf.exact ? SHARE_EPS : SHARE_EPS_AVG;
    if (dr <= eps) {
        /* r loses nothing in steady state. Where the order still matters is the transient
         * from the synchronised start (Example 2): compare the link time each job gets
         * until both runs have settled and completed one steady period. */
        double drh = 0, djh = 0;
        double h1 = orf.start + orf.period, h2 = ojf.start + ojf.period;
        int64_t h = (int64_t)(h1 > h2 ? h1 : h2);
        tj_out wrf, wjf;
        if (orf.exact && ojf.exact && run_window(&wrf, &prf, h) == 0 && run_window(&wjf, &pjf, h) == 0) {
            drh = (wrf.link[0] - wjf.link[1]) / (double)h;
            djh = (wjf.link[0] - wrf.link[1]) / (double)h;
        }
        if (drh > eps) {
            nr = wrf.link[0] - wjf.link[1];
            nj = wjf.link[0] - wrf.link[1];
        } else {
            /* j gains from going first at no cost to r: first; no effect either way: 1 */
            *k = dj > eps || djh > eps ? K_MAX : 1;
            return TSCHED_OK;
        }
    }
    double x = nj / nr;
    *k = x > K_MAX ? K_MAX : x < 1 / K_MAX ? 1 / K_MAX : x;
    return TSCHED_OK;
}
