/* The two-job iteration model of CRUX 4.2 (Examples 1 and 2): two periodic jobs share one
 * link under strict preemptive priority, as a fluid (the prioritised job sends at the full
 * rate whenever it has data; the other only while the first is silent).
 *
 * Scale. Only ratios of the six inputs (compute time, ready offset (1 - overlap) * compute,
 * communication time of each job) matter, so they are put on one binary grid of 2^28 ticks
 * per power of two of the largest input and the simulation runs in 64-bit integers: "nice"
 * inputs (whole or binary-fraction ms) are exact whatever their magnitude, others move by at
 * most 2^-29 of the largest input, and an input below one tick counts as one tick. Every
 * parameter is then in [1, 2^29] ticks. The prioritised job (job 0) never waits: it repeats
 * with its own period T0 and leaves the other job G = T0 - X0 ticks of link time in every
 * window of T0. So an iteration of job 1 lasts at most A1 + ceil(X1 / G) T0 + T0 < 2^58
 * ticks (G = 0, job 1 never sends, is answered in closed form), and times are rebased after
 * every step so they stay below 2^59; totals are doubles (exact below 2^53 ticks).
 *
 * Steps. The state is sampled at every iteration start of the job with the longer
 * iterations (job 1 when its undisturbed iteration, stretched by the link time it gets,
 * is at least T0, else job 0); the other job's state then determines the future. Within a
 * step the shorter job is fast-forwarded in closed form: whole periods of job 0 while job 1
 * waits, computes or sends in every gap (G ticks each), or whole undisturbed iterations of
 * job 1 while job 0 is silent. So a step costs a bounded number of events (a few dozen:
 * each phase of the sampled job's iteration is one fast-forward plus the events of at most
 * two periods of the other job), whatever the ratio of the inputs.
 *
 * Termination. The sampled state sequence is eventually periodic; Brent's cycle finder
 * spots the first repeat with O(1) memory and the per-period totals are then recomputed
 * from that state, exactly. A sequence whose period is too long (incommensurate iteration
 * times) stops after 2^18 events, i.e. thousands of steps, and takes the mean iteration
 * time of job 1 over the second half of the run instead (`exact` = 0; see mean_out()).
 * Finding the cycle start replays at most twice the steps already made, so it fits its
 * budget of 4 x 2^18 events. */
#include <math.h>
#include <string.h>

#include "../common/error.h"
#include "../common/structsize.h"
#include "crux_internal.h"

/* Ticks per power of two of the largest input: GRID_BITS, or fewer when job 1 could be so
 * starved that one of its iterations would exceed ITER_MAX_TICKS (make_params()). */
#define GRID_BITS 36
#define ITER_MAX_TICKS (INT64_C(1) << 58)
/* The state is sampled at job 1's iteration starts when its iterations are at least this
 * many periods of job 0 long; below, at job 0's (where the cycle and its start are found
 * in a few hundred steps anyway). */
#define SAMPLE_RATIO 64.0
#define EVENT_CAP (UINT64_C(1) << 18)
/* Window runs (the transient of ts_crux_factor, ts_twojob_window) stay below this many
 * ticks, so absolute times fit in 64 bits without rebasing. */
#define WINDOW_MAX_TICKS (INT64_C(1) << 60)

/* Job 0 is the prioritised ("high") job, job 1 the other. */
typedef struct tj_params {
    int64_t C[2], A[2], X[2]; /* compute, ready offset, communication: ticks */
    int64_t T[2];             /* undisturbed periods max(C, A + X); T[0] is job 0's period */
    int64_t G;                /* job 1's link time in every window of T[0]: T[0] - X[0] */
    int samp;                 /* the job whose iteration starts are the steps */
    double q;                 /* ms per tick */
} tj_params;

typedef struct tj_sim {
    int64_t t;
    int64_t s[2];      /* start of the current iteration */
    int64_t rem[2];    /* communication left */
    int ready[2];      /* the communication of the current iteration has been released */
    uint64_t iters[2]; /* iterations started */
    double clock;      /* time elapsed (t is rebased, the clock is not) */
    double busy[2];    /* total computing time */
    double link[2];    /* total link time */
} tj_sim;

/* Totals over one period (or a window), in ticks. */
typedef struct tj_out {
    double period, start, link[2], busy[2];
    int exact;
} tj_out;

static const tsched_twojob twojob_defaults = {sizeof(tsched_twojob), 1.0, 1.0, 0.0, 1};

static const ts_span twojob_spans[] = {
    TS_SPAN(tsched_twojob, size),    TS_SPAN(tsched_twojob, compute_ms), TS_SPAN(tsched_twojob, comm_ms),
    TS_SPAN(tsched_twojob, overlap), TS_SPAN(tsched_twojob, gpus),
};

/* The caller's job over the defaults (DESIGN 3 size rule). */
static tsched_status read_job(tsched_twojob *out, const tsched_twojob *j, const char *which)
{
    if (!j)
        return ts_error(TSCHED_E_INVALID, "tsched_twojob_steady: job %s is NULL", which);
    *out = twojob_defaults;
    return ts_struct_in(out, j, twojob_spans, TS_NSPANS(twojob_spans), sizeof *out, "tsched_twojob");
}

static tsched_status check_job(const tsched_twojob *j, const char *which)
{
    if (!j)
        return ts_error(TSCHED_E_INVALID, "two-job model: job %s is NULL", which);
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

/* x <= 2^e: at most 2^bits ticks; a positive input never becomes zero. */
static int64_t to_ticks(double x, int e, int bits, int64_t min)
{
    double v = nearbyint(ldexp(x, bits - e));
    int64_t r = v >= 0 ? (int64_t)v : 0;
    return r < min ? min : r;
}

/* The grid of a pair of jobs: 2^GRID_BITS ticks per 2^e ms, 2^e above every input. */
static int grid_exp(const tsched_twojob *a, const tsched_twojob *b)
{
    double m = fmax(fmax(a->compute_ms, a->comm_ms), fmax(b->compute_ms, b->comm_ms));
    int e;
    (void)frexp(m, &e);
    return e;
}

static void set_job(tj_params *p, int i, const tsched_twojob *j, int e, int bits)
{
    p->C[i] = to_ticks(j->compute_ms, e, bits, 1);
    p->X[i] = to_ticks(j->comm_ms, e, bits, 1);
    p->A[i] = to_ticks((1 - j->overlap) * j->compute_ms, e, bits, 0);
    if (p->A[i] > p->C[i])
        p->A[i] = p->C[i];
    p->T[i] = p->C[i] > p->A[i] + p->X[i] ? p->C[i] : p->A[i] + p->X[i];
}

/* An upper bound of job 1's iteration in ticks: it gets G of link in every T0. */
static double iter_bound(const tj_params *p)
{
    if (p->G == 0)
        return 0; /* never sends: answered in closed form */
    return (double)p->C[1] + (double)p->A[1] + ((double)p->X[1] / (double)p->G + 2) * (double)p->T[0];
}

static void make_params(tj_params *p, const tsched_twojob *hi, const tsched_twojob *lo, int e)
{
    /* the finest grid on which every time of the run fits in 64 bits; each bit less halves
     * all the terms of the bound except the one tick G may lose */
    int bits = GRID_BITS;
    for (;;) {
        set_job(p, 0, hi, e, bits);
        set_job(p, 1, lo, e, bits);
        p->G = p->T[0] - p->X[0];
        if (bits <= 1 || iter_bound(p) <= (double)ITER_MAX_TICKS)
            break;
        bits--;
    }
    p->q = ldexp(1.0, e - bits);
    /* Job 1's iteration when it sends at its long-run rate G / T0: the sampled job is the
     * one with the longer iterations (efficiency only; either choice is exact). */
    double l1 = p->G > 0 ? fmax((double)p->C[1], (double)p->A[1] + (double)p->X[1] * (double)p->T[0] / (double)p->G)
                         : INFINITY;
    p->samp = l1 >= SAMPLE_RATIO * (double)p->T[0] ? 1 : 0;
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

/* Length of [a, b) inside [lo, hi). */
static int64_t overlap_len(int64_t a, int64_t b, int64_t lo, int64_t hi)
{
    int64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
    return y > x ? y - x : 0;
}

/* Fast-forward the job that is not sampled over whole iterations in which nothing else
 * happens, without passing `limit`. */
static void fast_forward(tj_sim *s, const tj_params *p, int64_t limit)
{
    int64_t k, d;
    if (p->samp == 1) {
        /* whole periods of job 0 from one of its iteration starts: in each, job 0 sends X0
         * and computes C0, and job 1 gets exactly G of link if it has more than that left */
        if (s->t != s->s[0] || p->G == 0)
            return;
        if (!s->ready[1])
            k = (s->s[1] + p->A[1] - s->t) / p->T[0];
        else if (s->rem[1] > 0)
            k = (s->rem[1] - 1) / p->G;
        else
            k = (s->s[1] + p->C[1] - s->t) / p->T[0];
        if ((limit - s->t) / p->T[0] < k)
            k = (limit - s->t) / p->T[0];
        if (k <= 0)
            return;
        d = k * p->T[0];
        s->link[0] += (double)k * (double)p->X[0];
        s->busy[0] += (double)k * (double)p->C[0];
        s->iters[0] += (uint64_t)k;
        s->s[0] += d;
        s->busy[1] += (double)overlap_len(s->t, s->t + d, s->s[1], s->s[1] + p->C[1]);
        if (s->ready[1] && s->rem[1] > 0) {
            s->rem[1] -= k * p->G;
            s->link[1] += (double)k * (double)p->G;
        }
    } else {
        /* whole undisturbed iterations of job 1 (period T1) from one of its starts, while
         * job 0 does not send and does not start an iteration */
        if (s->t != s->s[1] || (s->ready[0] && s->rem[0] > 0))
            return;
        int64_t e = s->ready[0] ? s->s[0] + p->T[0] : s->s[0] + p->A[0];
        if (limit < e)
            e = limit;
        k = (e - s->t) / p->T[1];
        if (k <= 0)
            return;
        d = k * p->T[1];
        s->link[1] += (double)k * (double)p->X[1];
        s->busy[1] += (double)k * (double)p->C[1];
        s->iters[1] += (uint64_t)k;
        s->s[1] += d;
        s->busy[0] += (double)overlap_len(s->t, s->t + d, s->s[0], s->s[0] + p->C[0]);
    }
    s->t += d;
    s->clock += (double)d;
    settle(s, p);
}

/* Run until time `limit` or, with stop >= 0, until job `stop` starts an iteration.
 * 0, or -1 when `*events` passes `cap`. */
static int advance(tj_sim *s, const tj_params *p, int64_t limit, int stop, uint64_t *events, uint64_t cap)
{
    uint64_t it0 = stop >= 0 ? s->iters[stop] : 0;
#define TJ_DONE (s->t >= limit || (stop >= 0 && s->iters[stop] != it0))
    while (!TJ_DONE) {
        if (++*events > cap)
            return -1;
        fast_forward(s, p, limit);
        if (TJ_DONE)
            break;
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
            s->busy[i] += (double)overlap_len(s->t, next, s->s[i], s->s[i] + p->C[i]);
        if (tx >= 0) {
            s->rem[tx] -= dt;
            s->link[tx] += (double)dt;
        }
        s->t = next;
        s->clock += (double)dt;
        settle(s, p);
    }
#undef TJ_DONE
    return 0;
}

/* One iteration of the sampled job; times are rebased afterwards (only differences
 * matter), so they stay below one iteration of either job. */
static int step(tj_sim *s, const tj_params *p, uint64_t *events, uint64_t cap)
{
    if (advance(s, p, INT64_MAX, p->samp, events, cap) != 0)
        return -1;
    int64_t m = s->s[0] < s->s[1] ? s->s[0] : s->s[1];
    s->t -= m;
    s->s[0] -= m;
    s->s[1] -= m;
    return 0;
}

/* Same state at an iteration start of the sampled job (which is then fresh): the other
 * job's phase, data left and readiness determine everything that follows. */
static int same_state(const tj_sim *x, const tj_sim *y, int samp)
{
    int o = 1 - samp;
    return x->t - x->s[o] == y->t - y->s[o] && x->rem[o] == y->rem[o] && x->ready[o] == y->ready[o];
}

static void zero_totals(tj_sim *s)
{
    s->clock = 0;
    s->busy[0] = s->busy[1] = s->link[0] = s->link[1] = 0;
}

static void diff_out(tj_out *o, const tj_sim *from, const tj_sim *to)
{
    o->period = to->clock - from->clock;
    for (int i = 0; i < 2; i++) {
        o->link[i] = to->link[i] - from->link[i];
        o->busy[i] = to->busy[i] - from->busy[i];
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
    double w = (to->clock - (double)(to->t - to->s[1])) - (from->clock - (double)(from->t - from->s[1]));
    if (!(w > 0))
        return -1;
    o->period = w;
    o->link[0] = w * (double)p->X[0] / (double)p->T[0];
    o->busy[0] = w * (double)p->C[0] / (double)p->T[0];
    o->link[1] = (double)n * (double)p->X[1];
    o->busy[1] = (double)n * (double)p->C[1];
    return 0;
}

static tsched_status run_steady(tj_out *o, const tj_params *p)
{
    memset(o, 0, sizeof *o);
    o->exact = 1;
    if (p->G == 0) {
        /* job 0 sends without a gap (all overlap, communication at least as long as the
         * computation): job 1 never gets the link and stops once its computation is done */
        o->period = (double)p->T[0];
        o->link[0] = (double)p->X[0];
        o->busy[0] = (double)p->C[0];
        o->start = (double)((p->C[1] + p->T[0] - 1) / p->T[0]) * (double)p->T[0];
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
    while (!same_state(&tort, &hare, p->samp)) {
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
             * between iteration starts of the sampled job */
            tj_sim *from = have_half && half.clock < last.clock ? &half : &tort;
            if (mean_out(o, p, from, &last) != 0)
                diff_out(o, from, &last); /* job 1 hardly advances: plain average */
            if (!(o->period > 0))
                return ts_error(TSCHED_E_INTERNAL, "two-job model: empty averaging window");
            o->start = from->clock;
            o->exact = 0;
            return TSCHED_OK;
        }
        lam++;
    }
    /* the totals of one period, from zero so they are exact */
    tj_sim c = tort;
    zero_totals(&c);
    uint64_t ev2 = 0;
    for (uint64_t i = 0; i < lam; i++)
        if (step(&c, p, &ev2, 4 * EVENT_CAP) != 0)
            return ts_error(TSCHED_E_INTERNAL, "two-job model: period replay failed");
    o->period = c.clock;
    for (int i = 0; i < 2; i++) {
        o->link[i] = c.link[i];
        o->busy[i] = c.busy[i];
    }
    /* where the cycle begins: hare lam steps ahead of tortoise, both from the start */
    sim_init(&tort, p);
    hare = tort;
    events = 0;
    for (uint64_t i = 0; i < lam; i++)
        if (step(&hare, p, &events, 4 * EVENT_CAP) != 0)
            return ts_error(TSCHED_E_INTERNAL, "two-job model: cycle start not found");
    while (!same_state(&tort, &hare, p->samp))
        if (step(&tort, p, &events, 4 * EVENT_CAP) != 0 || step(&hare, p, &events, 4 * EVENT_CAP) != 0)
            return ts_error(TSCHED_E_INTERNAL, "two-job model: cycle start not found");
    o->start = tort.clock;
    return TSCHED_OK;
}

/* 0, or -1 when the window needs more than the event budget. */
static int run_window(tj_out *o, const tj_params *p, int64_t horizon)
{
    memset(o, 0, sizeof *o);
    if (horizon <= 0 || horizon > WINDOW_MAX_TICKS)
        return -1;
    tj_sim s;
    uint64_t events = 0;
    sim_init(&s, p);
    if (advance(&s, p, horizon, -1, &events, 4 * EVENT_CAP) != 0)
        return -1;
    o->period = (double)horizon;
    for (int i = 0; i < 2; i++) {
        o->link[i] = s.link[i];
        o->busy[i] = s.busy[i];
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
    r->share[0] = o->period > 0 ? o->link[ia] / o->period : 0;
    r->share[1] = o->period > 0 ? o->link[ib] / o->period : 0;
    double work = (double)a->gpus * o->busy[ia] + (double)b->gpus * o->busy[ib];
    r->utilization = o->period > 0 ? work / (((double)a->gpus + (double)b->gpus) * o->period) : 0;
    r->exact = o->exact;
    /* The prioritised job never waits: its share is X / T of its own inputs, exactly,
     * even when they are finer than the grid. */
    const tsched_twojob *h = a_first ? a : b;
    double th = fmax(h->compute_ms, (1 - h->overlap) * h->compute_ms + h->comm_ms);
    double sh = h->comm_ms / th;
    if (isfinite(sh) && sh >= 0 && sh <= 1)
        r->share[ia] = sh;
    {
        /* an averaged answer mixes an exact rate (job 0) with an estimated one (job 1), and
         * an input below the grid moves the other job's share by its rounding: keep the
         * answer a possible schedule (shares sum to at most 1, utilisation at most 1) */
        double sum = r->share[0] + r->share[1];
        if (sum > 1) {
            r->share[0] /= sum;
            r->share[1] /= sum;
        }
        if (r->utilization > 1)
            r->utilization = 1;
    }
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
    make_params(&p, a_first ? a : b, a_first ? b : a, grid_exp(a, b));
    double h = horizon_ms / p.q;
    if (h > (double)WINDOW_MAX_TICKS)
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
    tsched_twojob ja, jb;
    tsched_status st;
    if ((st = read_job(&ja, a, "a")) != TSCHED_OK || (st = read_job(&jb, b, "b")) != TSCHED_OK)
        return st;
    ts_twojob_result r;
    if ((st = ts_twojob_steady(&r, &ja, &jb, a_first)) != TSCHED_OK)
        return st;
    /* ratios of tick counts: independent of the magnitude of the inputs */
    if (link_share_a)
        *link_share_a = r.share[0];
    if (link_share_b)
        *link_share_b = r.share[1];
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
        /* the two runs may use different grids (make_params()): the horizon in ms */
        double hms = fmax((orf.start + orf.period) * prf.q, (ojf.start + ojf.period) * pjf.q);
        double hr = nearbyint(hms / prf.q), hj = nearbyint(hms / pjf.q);
        tj_out wrf, wjf;
        if (orf.exact && ojf.exact && hr > 0 && hj > 0 && hr <= (double)WINDOW_MAX_TICKS &&
            hj <= (double)WINDOW_MAX_TICKS && run_window(&wrf, &prf, (int64_t)hr) == 0 &&
            run_window(&wjf, &pjf, (int64_t)hj) == 0) {
            if (prf.q == pjf.q) {
                /* one grid: whole tick counts, exact */
                nr = wrf.link[0] - wjf.link[1];
                nj = wjf.link[0] - wrf.link[1];
                drh = nr / hr;
                djh = nj / hr;
            } else {
                drh = nr = wrf.link[0] / hr - wjf.link[1] / hj;
                djh = nj = wjf.link[0] / hj - wrf.link[1] / hr;
            }
        }
        if (drh > eps) {
            /* nr, nj: the transient's */
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
