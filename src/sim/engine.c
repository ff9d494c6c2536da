/* The event loop (doc/sim.md §1): arrivals, the queue and placement (§5), and each job's
 * iterations (computation, then phases of flows, §2). The rest lives by concern
 * (doc/sim.md, "Where the code lives"): the network model in net.c, accounting in
 * account.c, failures in failures.c, and the policies behind the tables of policy.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/limits.h"
#include "sim_internal.h"
#include "trace_ranges.h"

/* ---- the clock's range (doc/sim.md §1) --------------------------------------------------- */

/* Times are int64_t nanoseconds; INT64_MAX stands for "never" (until_s, measure.to_s), so
 * the last instant an event may take is INT64_MAX - 1 (about 292 years). */
#define CLOCK_LAST (INT64_MAX - 1)

static tsched_status past_clock(const tsched_sim *s, int64_t a, int64_t b, uint32_t ji, const char *field)
{
    return ts_error(TSCHED_E_RANGE,
                    "jobs[%u] (\"%s\").%s: an event %.9g s after t = %.9g s would fall past the simulated clock's "
                    "range (%.9g s)", ji, s->jobs[ji].name, field, (double)b * 1e-9, (double)a * 1e-9,
                    (double)CLOCK_LAST * 1e-9);
}

/* *out = a + b, or TSCHED_E_RANGE naming job ji and `field` when it falls past the clock. */
static inline tsched_status clock_add(int64_t *out, const tsched_sim *s, int64_t a, int64_t b, uint32_t ji,
                                      const char *field)
{
    if (b >= 0 && !__builtin_add_overflow(a, b, out) && *out <= CLOCK_LAST)
        return TSCHED_OK;
    return past_clock(s, a, b, ji, field);
}


/* The coarsening bound that applies to job j (doc/sim.md "Coarsening rule"): none under a
 * priority that recomputes levels or shifts at starts and finishes (a row with a `prioritize`
 * hook), since those act on how the jobs' phases interleave, which coarsening changes, unless
 * j's iterations one by one would take the run past sim_events (j->coarse, set by
 * ts_sim_job_bounds); placement crius runs no flows, so there it stays. */
static int prio_dynamic(const tsched_sim *s)
{
    return ts_sim_priorities[s->pol[TSCHED_SIM_PRIORITY]].prioritize && !ts_sim_cells(s);
}

static uint64_t coarsen_bound(const tsched_sim *s, const ts_sim_job *j)
{
    return prio_dynamic(s) && !j->coarse ? 0 : s->max_iters;
}

tsched_status ts_sim_job_bounds(tsched_sim *s, uint32_t i)
{
    ts_sim_job *j = &s->jobs[i];
    uint64_t iters = j->iterations;
    if (iters == 0)
        return TSCHED_OK; /* duration mode: checked when its iterations are resolved */
    /* under a dynamic priority, one by one while the run's events stay within sim_events */
    uint64_t per0 = ts_sim_cells(s) ? 1 : 2, need0;
    j->coarse = !prio_dynamic(s) || __builtin_mul_overflow(iters, per0, &need0) ||
                __builtin_add_overflow(s->ev_need, need0, &need0) || need0 > ts_limits()->sim_events;
    /* simulated iterations: coarsened to at most max_sim_iterations (§2) */
    uint64_t sim = iters, m = coarsen_bound(s, j);
    if (m && iters > m) {
        uint64_t g = (iters + m - 1) / m;
        sim = (iters + g - 1) / g;
    }
    if (!ts_sim_cells(s)) {
        /* the computation alone, and the phase latencies alone, are lower bounds of its time */
        double comp = (double)iters * (double)j->compute, reps = 0;
        for (uint32_t p = 0; p < j->nphases; p++)
            reps += j->phases[p].repeat;
        double lat = (double)sim * reps * (double)s->latency;
        const char *field = comp >= lat ? "compute_ms" : "phase_latency_us";
        double need = comp >= lat ? comp : lat;
        /* provably past the clock (a margin for the double's rounding; the run checks exactly) */
        if ((double)j->arrival + need > (double)CLOCK_LAST * (1 + 1e-12))
            return ts_error(TSCHED_E_RANGE,
                            "jobs[%u] (\"%s\").%s: %llu iterations (%.9g ms of computation each, phase latency "
                            "%.9g us in %.0f phase instances) from arrival_s %.9g end after %.9g s, past the "
                            "simulated clock's range (%.9g s)", i, j->name, field, (unsigned long long)iters,
                            (double)j->compute * 1e-6, (double)s->latency * 1e-3, reps, (double)j->arrival * 1e-9,
                            ((double)j->arrival + need) * 1e-9, (double)CLOCK_LAST * 1e-9);
    }
    /* every simulated iteration takes at least its computation's end (and, but under
     * crius, its communication's release) off the heap */
    uint64_t per = ts_sim_cells(s) ? 1 : 2, need;
    if (__builtin_mul_overflow(sim, per, &need) || __builtin_add_overflow(s->ev_need, need, &s->ev_need))
        s->ev_need = UINT64_MAX;
    if (s->ev_need > ts_limits()->sim_events) {
        char what[400];
        snprintf(what, sizeof what, "jobs[%u] (\"%s\").iterations: events the iterations of the jobs up to it need",
                 i, j->name);
        return ts_limit_error(what, s->ev_need, "sim_events", ts_limits()->sim_events);
    }
    return TSCHED_OK;
}

/* ---- callbacks ---------------------------------------------------------------------------- */

void ts_sim_emit(tsched_sim *s, int kind, uint32_t job, uint32_t phase, const char *name)
{
    if (!s->cb || !(s->cb_mask & (uint32_t)kind))
        return;
    tsched_sim_event e = {sizeof e, kind, s->now, job, phase,
                          job == TSCHED_NONE ? 0 : s->jobs[job].real_done, name};
    if (s->cb(&e, s->cb_user))
        s->stop = 1;
}

/* ---- iterations ------------------------------------------------------------------------------ */

static tsched_status start_phase(tsched_sim *s, uint32_t ji);

static tsched_status start_iteration(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    if (!j->shifted)
        j->iter_start = s->now;
    j->shifted = 0;
    j->iter_fresh = 0;
    if (j->shift > 0 && !s->cr) {
        /* priority cassini: the iteration waits out its shift, GPUs idle; its time counts
         * from when it was due, so the shift is part of the job's run */
        int64_t go = 0;
        tsched_status st = clock_add(&go, s, s->now, j->shift, ji, "cassini shift");
        j->shift = 0;
        j->shifted = 1;
        return st == TSCHED_OK ? ts_sim_push(s, go, TS_EV_SHIFT_GO, ji, j->gen) : st;
    }
    int last = j->sim_done + 1 == j->sim_iters;
    uint64_t g = last ? j->left_at_start - (j->sim_iters - 1) * j->group : j->group;
    j->cur_g = g;
    if (s->cr) {
        /* placement crius: computing all the time, no flows; iteration k of the Cell ends at
         * the Cell's start + round(k * iteration_s), so n iterations take n * iteration_s to
         * the nanosecond whatever the coarsening */
        uint64_t k = j->real_done - j->cell_done0 + g;
        int64_t end = 0;
        tsched_status st = clock_add(&end, s, j->cell_start, ts_sim_ns((double)k * j->cell_t), ji, "iterations");
        if (st != TSCHED_OK)
            return st;
        j->compute_running = 1;
        j->comm_running = 0;
        ts_sim_busy(s, j, 1);
        return ts_sim_push(s, end > s->now ? end : s->now, TS_EV_COMPUTE_END, ji, j->gen);
    }
    int64_t c, end = 0;
    tsched_status st = TSCHED_OK;
    if (__builtin_mul_overflow(j->compute, (int64_t)g, &c))
        c = INT64_MAX; /* past the clock: clock_add refuses it */
    if ((st = clock_add(&end, s, s->now, c, ji, "compute_ms")) != TSCHED_OK)
        return st;
    j->compute_running = 1;
    j->comm_running = 1;
    j->iter_fresh = 1;
    ts_sim_busy(s, j, 1);
    st = ts_sim_push(s, end, TS_EV_COMPUTE_END, ji, j->gen);
    if (st == TSCHED_OK)
        st = ts_sim_push(s, s->now + (int64_t)nearbyint((1 - j->overlap) * (double)c), TS_EV_RELEASE, ji, j->gen);
    return st;
}

static tsched_status end_iteration_if_done(tsched_sim *s, uint32_t ji);

tsched_status ts_sim_shift_iteration(tsched_sim *s, uint32_t ji, int64_t d)
{
    ts_sim_job *j = &s->jobs[ji];
    j->shift = d > 0 ? d : 0;
    if (!j->shift || !j->iter_fresh || j->iter_start != s->now || j->state != TS_JOB_RUNNING)
        return TSCHED_OK; /* applied when its next iteration starts */
    /* started at this instant, nothing of it handled yet: take it back and delay it */
    ts_sim_busy(s, j, 0);
    j->compute_running = j->comm_running = 0;
    j->gen++; /* its computation's end and its release go stale */
    j->shifted = 1; /* still due at iter_start */
    return start_iteration(s, ji);
}

/* Start phase j->cur_phase (repeat j->cur_rep): after the latency, its flows. */
static tsched_status start_phase(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    while (j->cur_phase < j->nphases) {
        uint32_t a = j->phase_rf_off[j->cur_phase], b = j->phase_rf_off[j->cur_phase + 1];
        if (a < b || s->latency > 0) {
            int64_t go = 0;
            tsched_status st = clock_add(&go, s, s->now, s->latency, ji, "phase_latency_us");
            if (st != TSCHED_OK)
                return st;
            ts_sim_emit(s, TSCHED_SIM_EV_PHASE_START, ji, j->cur_phase, j->name);
            return ts_sim_push(s, go, TS_EV_FLOWS_GO, ji, j->gen);
        }
        /* a phase without network flows (all ranks on one node) takes no time */
        if (++j->cur_rep >= j->phases[j->cur_phase].repeat) {
            j->cur_rep = 0;
            j->cur_phase++;
        }
    }
    j->comm_running = 0;
    return end_iteration_if_done(s, ji);
}

static tsched_status flows_go(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    uint32_t a = j->phase_rf_off[j->cur_phase], b = j->phase_rf_off[j->cur_phase + 1];
    j->phase_flows_left = b - a;
    tsched_status st = TSCHED_OK;
    for (uint32_t i = a; i < b && st == TSCHED_OK; i++) {
        ts_sim_rflow rf = j->rflows[i];
        rf.gbits *= (double)j->cur_g; /* a coarsened iteration carries g iterations' volumes */
        j->gbits_demanded += rf.gbits;
        st = ts_sim_flow_start(NULL, s, ji, &rf, j->rlinks + rf.link_off);
    }
    if (st == TSCHED_OK && a == b)
        st = ts_sim_push(s, s->now, TS_EV_FLOWS_GO, ji, -1 - j->gen); /* empty: ends at once */
    return st;
}

static tsched_status phase_done(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    ts_sim_emit(s, TSCHED_SIM_EV_PHASE_END, ji, j->cur_phase, j->name);
    if (++j->cur_rep >= j->phases[j->cur_phase].repeat) {
        j->cur_rep = 0;
        j->cur_phase++;
    }
    return start_phase(s, ji);
}

/* Job j's GPUs (and its vclos reservation) go back; its flows leave the base loads. */
static void release_nodes(tsched_sim *s, ts_sim_job *j)
{
    for (uint32_t k = 0; k < j->nnodes; k++) {
        uint32_t n = j->nodes[k];
        uint32_t fr = tsched_topology_node_free_gpus(s->t, n) + ts_sim_node_gpus(j, k);
        uint32_t g = tsched_topology_node_gpus(s->t, n);
        tsched_topology_set_free_gpus(s->t, n, fr > g ? g : fr);
    }
    (void)ts_sim_host_gpus(s, j, 0); /* giving back cannot fail */
    if (j->vc_held) {
        /* cannot fail: the handle holds the job (evicted jobs were cleared by the caller) */
        (void)tsched_vclos_release(s->vc, j->name);
        j->vc_held = 0;
        s->vc_epoch++;
    }
    ts_sim_account(s, s->now);
    s->alloc_gpus -= j->used_gpus;
    /* routed flows leave the base loads of other jobs' routing */
    ts_sim_base_loads(s, j, -1);
}

/* sim_internal.h; shared by failures (failures.c) and new Cells (crius_adapter.c) */
void ts_sim_job_requeued(tsched_sim *s, ts_sim_job *j)
{
    if (j->compute_running)
        ts_sim_busy(s, j, 0);
    j->compute_running = j->comm_running = 0;
    release_nodes(s, j);
    j->gen++;
    j->state = TS_JOB_QUEUED;
    j->restarts++;
    s->running--;
}

static tsched_status end_iteration_if_done(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    if (j->compute_running || j->comm_running)
        return TSCHED_OK;
    uint64_t g = j->cur_g;
    double it = (double)(s->now - j->iter_start) * 1e-9 / (double)g;
    j->iter_sum_s += it * (double)g;
    if (j->real_done == 0 || it < j->iter_min_s)
        j->iter_min_s = it;
    if (it > j->iter_max_s)
        j->iter_max_s = it;
    j->sim_done++;
    j->real_done += g;
    ts_sim_emit(s, TSCHED_SIM_EV_ITERATION, ji, TSCHED_NONE, j->name);
    if (j->sim_done < j->sim_iters)
        return start_iteration(s, ji);
    /* finished */
    j->state = TS_JOB_DONE;
    j->finish = s->now;
    s->running--;
    s->done++;
    release_nodes(s, j);
    s->pending_sched = 1;
    s->finished_flag = 1;
    if (s->cr && j->cr_index != TSCHED_NONE) {
        /* a departure for the scheduler at the next placement attempt */
        if (TS_GROW(s->cr_gone, s->cr_gone_cap, (size_t)s->ncr_gone + 1) != TSCHED_OK)
            return TSCHED_E_NOMEM;
        s->cr_gone[s->ncr_gone++] = j->cr_index;
    }
    ts_sim_emit(s, TSCHED_SIM_EV_FINISH, ji, TSCHED_NONE, j->name);
    return TSCHED_OK;
}

/* ---- placement (§5) ------------------------------------------------------------------------ */

/* Try to give job j its nodes now: fixed nodes as given, else the placement policy's row.
 * 1 placed, 0 not (cause in j->wait_cause), <0 error. */
static int try_place(tsched_sim *s, uint32_t ji, tsched_status *err)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    j->ever_tried = 1;
    free(j->nodes);
    j->nodes = NULL;
    j->nnodes = 0;
    free(j->node_gpus); /* a split placement's counts (shared_nodes) */
    j->node_gpus = NULL;
    if (j->nfixed) {
        for (uint32_t k = 0; k < j->nfixed; k++)
            if (!tsched_topology_node_is_free(t, j->fixed_nodes[k])) {
                j->wait_cause = TSCHED_SIM_WAIT_GPU;
                return 0;
            }
        if (!(j->nodes = ts_malloc(j->nfixed, sizeof *j->nodes))) {
            *err = TSCHED_E_NOMEM;
            return -1;
        }
        memcpy(j->nodes, j->fixed_nodes, j->nfixed * sizeof *j->nodes);
        j->nnodes = j->nfixed;
        j->gpn_used = tsched_topology_node_gpus(t, j->nodes[0]);
        return 1;
    }
    const ts_sim_place_ops *pl = ts_sim_placement(s);
    return pl->place(s, pl, j, err);
}

/* Job ji starts on its nodes now: routed (but in Cells), its iterations resolved. */
tsched_status ts_sim_start_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    if (!s->cr)
        j->used_gpus = j->gpus;
    for (uint32_t k = 0; k < j->nnodes; k++) {
        uint32_t n = j->nodes[k];
        tsched_topology_set_free_gpus(s->t, n, tsched_topology_node_free_gpus(t, n) - ts_sim_node_gpus(j, k));
    }
    tsched_status hs = ts_sim_host_gpus(s, j, 1);
    if (hs != TSCHED_OK)
        return hs;
    ts_sim_account(s, s->now);
    s->alloc_gpus += j->used_gpus;
    j->state = TS_JOB_RUNNING;
    if (j->start < 0)
        j->start = s->now;
    if (j->start == j->arrival && j->restarts == 0)
        j->wait_cause = TSCHED_SIM_WAIT_NONE;
    s->running++;
    s->starts++;
    j->group = 1;
    j->shift = 0;
    j->shifted = 0;
    if (s->cr) {
        /* placement crius: no flows; the Cell's iteration time is the time alone */
        j->iter_alone_s = j->cell_t;
        j->cell_start = s->now;
        j->cell_done0 = j->real_done;
    } else {
        tsched_status st = ts_sim_route_job(s, j);
        if (st != TSCHED_OK)
            return st;
        ts_sim_base_loads(s, j, 1);
        if (j->iter_alone_s == 0 && (st = ts_sim_alone_iteration_s(&j->iter_alone_s, s, j)) != TSCHED_OK)
            return st;
        if (j->iterations == 0) { /* duration mode */
            double it = j->iter_alone_s > 0 ? j->iter_alone_s : 1e-9;
            double k = nearbyint((double)j->duration * 1e-9 / it);
            if (!(k <= (double)TS_TRACE_COUNT_MAX))
                return ts_error(TSCHED_E_RANGE,
                                "jobs[%u] (\"%s\").duration_s: %.9g s at %.9g s per iteration alone is %.17g "
                                "iterations, more than 2^53", ji, j->name, (double)j->duration * 1e-9, it, k);
            j->iterations = k < 1 ? 1 : (uint64_t)k;
            if ((st = ts_sim_job_bounds(s, ji)) != TSCHED_OK)
                return st;
        }
    }
    /* a job without flows shares no link: coarsening cannot change how it interleaves */
    uint64_t left = j->iterations - j->real_done, m = j->nrflows ? coarsen_bound(s, j) : s->max_iters;
    if (m && left > m)
        j->group = (left + m - 1) / m; /* coarsened (§2, "Coarsening rule") */
    j->sim_iters = (left + j->group - 1) / j->group;
    j->sim_done = 0;
    j->left_at_start = left;
    if (!s->cr) /* placement crius tells once every job of the event has its Cell */
        ts_sim_emit(s, TSCHED_SIM_EV_START, ji, TSCHED_NONE, j->name);
    j->cur_phase = j->cur_rep = 0;
    return start_iteration(s, ji);
}

/* ---- the queue (§5) ----------------------------------------------------------------------- */

static int ff_less(const tsched_sim *s, uint32_t a, uint32_t b)
{
    const ts_sim_job *x = &s->jobs[a], *y = &s->jobs[b];
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival;
    return a < b;
}

static tsched_status schedule(tsched_sim *s)
{
    s->pending_sched = 0;
    const ts_sim_place_ops *pl = ts_sim_placement(s);
    const ts_sim_queue_ops *qp = &ts_sim_queues[s->pol[TSCHED_SIM_QUEUE]];
    if (pl->schedule)
        return pl->schedule(s);
    if (qp->smallest_first) { /* ff: smallest first, every job that fits */
        for (uint32_t i = 1; i < s->nqueue; i++) { /* insertion sort: the queue is short */
            uint32_t v = s->queue[i], k = i;
            while (k > 0 && ff_less(s, v, s->queue[k - 1])) {
                s->queue[k] = s->queue[k - 1];
                k--;
            }
            s->queue[k] = v;
        }
    }
    uint32_t w = 0;
    int blocked = 0;
    tsched_status st = TSCHED_OK;
    for (uint32_t i = 0; i < s->nqueue; i++) {
        uint32_t ji = s->queue[i];
        if (blocked || st != TSCHED_OK) {
            if (!s->jobs[ji].ever_tried)
                s->jobs[ji].wait_cause = TSCHED_SIM_WAIT_QUEUE;
            s->queue[w++] = ji;
            continue;
        }
        int r = try_place(s, ji, &st);
        if (r > 0) {
            st = ts_sim_start_job(s, ji);
            continue;
        }
        s->queue[w++] = ji;
        if (qp->head_blocks)
            blocked = 1; /* fifo: the head blocks the others */
    }
    s->nqueue = w;
    return st;
}

/* ---- priorities and paths after a start or a finish (§6) --------------------------------- */

static tsched_status reprioritize(tsched_sim *s)
{
    const ts_sim_prio_ops *p = &ts_sim_priorities[s->pol[TSCHED_SIM_PRIORITY]];
    return p->prioritize ? p->prioritize(s, p) : TSCHED_OK;
}

static tsched_status refresh_paths(tsched_sim *s)
{
    const ts_sim_reroute_ops *r = &ts_sim_reroutes[s->pol[TSCHED_SIM_REROUTE]];
    return r->refresh ? r->refresh(s) : TSCHED_OK;
}

/* ---- the loop ---------------------------------------------------------------------------------- */

static inline ts_sim_event pop(tsched_sim *s)
{
    ts_sim_event top = s->heap[0], last = s->heap[--s->nheap];
    if (s->nheap)
        ts_sim_sift_down(s, 0, s->nheap, last);
    s->handled++;
    return top;
}

static inline int stale(const tsched_sim *s, const ts_sim_event *e)
{
    switch (e->kind) {
    case TS_EV_FLOW_DONE: {
        const ts_sim_flow *f = &s->flow[e->a];
        return !f->active || (int64_t)f->gen != e->b;
    }
    case TS_EV_COMPUTE_END: return e->b != s->jobs[e->a].gen || !s->jobs[e->a].compute_running;
    case TS_EV_RELEASE: return e->b != s->jobs[e->a].gen;
    case TS_EV_FLOWS_GO: return e->b != s->jobs[e->a].gen && e->b != -1 - s->jobs[e->a].gen;
    case TS_EV_TICK: return !s->pending_sched;
    case TS_EV_SHIFT_GO: return e->b != s->jobs[e->a].gen;
    default: return 0; /* arrivals and failures always count */
    }
}

int ts_sim_event_stale(const tsched_sim *s, const ts_sim_event *e) { return stale(s, e); }

/* Drop the superseded events (a rate change leaves the old completion behind) and rebuild
 * the heap, when they may be half of it: the heap stays within twice its live events (or
 * TS_SIM_COMPACT_MIN), at O(1) amortised per event. Scheduling instants stay (whether one
 * is needed can change before it comes). */
static __attribute__((noinline)) void compact(tsched_sim *s)
{
    size_t w = 0;
    for (size_t i = 0; i < s->nheap; i++) {
        if (s->heap[i].kind != TS_EV_TICK && stale(s, &s->heap[i])) {
            s->handled++;
            continue;
        }
        s->heap[w++] = s->heap[i];
    }
    s->nheap = w;
    for (size_t i = w / 2; i-- > 0;)
        ts_sim_sift_down(s, i, w, s->heap[i]);
    s->compact_at = 2 * w > TS_SIM_COMPACT_MIN ? 2 * w : TS_SIM_COMPACT_MIN;
}

/* Superseded events at the head go without touching the clock (§1). */
static inline void drop_stale(tsched_sim *s)
{
    if (s->nheap >= s->compact_at)
        compact(s);
    while (s->nheap && stale(s, &s->heap[0]))
        (void)pop(s);
}

static tsched_status handle(tsched_sim *s, const ts_sim_event *e)
{
    tsched_status st = TSCHED_OK;
    switch (e->kind) {
    case TS_EV_ARRIVAL: {
        ts_sim_job *j = &s->jobs[e->a];
        j->state = TS_JOB_QUEUED;
        if (TS_GROW(s->queue, s->queue_cap, (size_t)s->nqueue + 1) != TSCHED_OK)
            return TSCHED_E_NOMEM;
        s->queue[s->nqueue++] = e->a;
        s->pending_sched = 1;
        ts_sim_emit(s, TSCHED_SIM_EV_ARRIVE, e->a, TSCHED_NONE, j->name);
        break;
    }
    case TS_EV_COMPUTE_END: {
        ts_sim_job *j = &s->jobs[e->a];
        if (e->b != j->gen || !j->compute_running)
            break;
        ts_sim_busy(s, j, 0);
        j->compute_running = 0;
        j->iter_fresh = 0;
        st = end_iteration_if_done(s, e->a);
        break;
    }
    case TS_EV_SHIFT_GO:
        if (e->b == s->jobs[e->a].gen)
            st = start_iteration(s, e->a);
        break;
    case TS_EV_RELEASE: {
        ts_sim_job *j = &s->jobs[e->a];
        if (e->b != j->gen)
            break;
        j->iter_fresh = 0;
        j->cur_phase = j->cur_rep = 0;
        st = start_phase(s, e->a);
        break;
    }
    case TS_EV_FLOWS_GO: {
        ts_sim_job *j = &s->jobs[e->a];
        if (e->b == -1 - j->gen) /* an empty phase instance */
            st = phase_done(s, e->a);
        else if (e->b == j->gen)
            st = flows_go(s, e->a);
        break;
    }
    case TS_EV_FLOW_DONE: {
        ts_sim_flow *f = &s->flow[e->a];
        if (!f->active || (int64_t)f->gen != e->b)
            break;
        ts_sim_settle(s, f);
        s->jobs[f->job].gbits_delivered += f->remaining; /* the last sliver (§2.4) */
        f->remaining = 0;
        uint32_t ji = f->job;
        ts_sim_flow_remove(s, e->a);
        ts_sim_job *j = &s->jobs[ji];
        if (--j->phase_flows_left == 0)
            st = phase_done(s, ji);
        break;
    }
    case TS_EV_FAILURE: st = ts_sim_failure_event(s, e->a); break;
    default:
        break;
    }
    return st;
}

/* The next scheduling instant after t (schedule_interval_s); past the clock's range only a
 * job still waiting is an error. */
static tsched_status push_tick(tsched_sim *s, int64_t t)
{
    int64_t next;
    if (__builtin_mul_overflow(t / s->interval + 1, s->interval, &next) || next > CLOCK_LAST) {
        if (!s->nqueue)
            return TSCHED_OK; /* nothing waits; an arrival asks again */
        const ts_sim_job *j = &s->jobs[s->queue[0]];
        return ts_error(TSCHED_E_RANGE,
                        "jobs[%u] (\"%s\"): waits for the scheduling instant after t = %.9g s, past the simulated "
                        "clock's range (%.9g s) at schedule_interval_s %.9g", s->queue[0], j->name, (double)t * 1e-9,
                        (double)CLOCK_LAST * 1e-9, (double)s->interval * 1e-9);
    }
    if (next == s->next_tick)
        return TSCHED_OK;
    s->next_tick = next;
    return ts_sim_push(s, next, TS_EV_TICK, 0, 0);
}

tsched_status tsched_sim_run_until(tsched_sim *s, int64_t t_end)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_run_until: sim is NULL");
    tsched_status st = tsched_topology_check_identity(s->t, s->topo_id, s->topo_gen, "tsched_sim_run_until");
    if (st != TSCHED_OK)
        return st;
    if (!s->started && (st = ts_sim_start_run(s)) != TSCHED_OK)
        return st;
    double w0 = ts_now_ms();
    int64_t limit = t_end < s->until ? t_end : s->until;
    uint64_t max_events = ts_limits()->sim_events;
    int to_end = t_end == INT64_MAX;
    s->stop = 0;
    while (st == TSCHED_OK && !s->stop) {
        /* a run to the end ends with its last job: failures after it change nothing it reports */
        if (to_end && s->done == s->njobs)
            break;
        if (s->handled > max_events) {
            char what[96];
            snprintf(what, sizeof what, "sim: events handled by t = %.9g s", (double)s->now * 1e-9);
            st = ts_limit_error(what, s->handled, "sim_events", max_events);
            break;
        }
        /* the clock moves only to an event that changes something (§1) */
        drop_stale(s);
        if (!s->nheap)
            break;
        int64_t t = s->heap[0].t;
        if (t > limit)
            break;
        /* a scheduling instant alone is tentative: if it starts or stops nothing, the clock
         * stays where it was */
        int tentative = 0;
        if (s->heap[0].kind == TS_EV_TICK) {
            (void)pop(s);
            drop_stale(s);
            tentative = !s->nheap || s->heap[0].t != t;
        }
        int64_t keep = s->now, acct0 = s->last_acct;
        uint32_t before = s->running + s->done;
        uint32_t started = s->starts;
        if (!tentative) {
            ts_sim_account(s, t);
            if ((st = s->acct_st) != TSCHED_OK)
                break;
        }
        s->now = t;
        /* one batch: every event of this instant, then placement, then rates once */
        while (st == TSCHED_OK && s->nheap && s->heap[0].t == t) {
            ts_sim_event e = pop(s);
            st = handle(s, &e);
        }
        if (st == TSCHED_OK && s->pending_sched &&
            (s->interval <= 0 || t % s->interval == 0))
            st = schedule(s);
        if (tentative && st == TSCHED_OK) {
            /* placement accounts before it changes anything: a moved accounting is a change */
            if (s->starts == started && s->running + s->done == before && s->last_acct == acct0) {
                s->now = keep;
                continue;
            }
            ts_sim_account(s, t);
            st = s->acct_st;
        }
        if (st == TSCHED_OK && (s->starts != started || s->running + s->done != before || s->finished_flag)) {
            st = refresh_paths(s);
            if (st == TSCHED_OK)
                st = reprioritize(s);
        }
        s->finished_flag = 0;
        if (st == TSCHED_OK)
            st = ts_sim_recompute(s);
        if (st == TSCHED_OK && s->check_full)
            st = ts_sim_check_full(s);
        s->events++;
        if (st == TSCHED_OK && s->pending_sched && s->interval > 0)
            st = push_tick(s, t);
    }
    if (st == TSCHED_OK && !s->stop) {
        int64_t to = limit;
        /* run to the end: it ends with the last event that changed something, not at until_s */
        if ((to_end && s->done == s->njobs) || (!s->nheap && to == INT64_MAX))
            to = s->now;
        if (to != INT64_MAX && to > s->now) {
            ts_sim_account(s, to);
            s->now = to;
            st = s->acct_st;
        }
        /* settle every flow so the delivered bits are up to date */
        for (uint32_t fi = 0; fi < s->nflow; fi++)
            if (s->flow[fi].active)
                ts_sim_settle(s, &s->flow[fi]);
    }
    s->wall_ms += ts_now_ms() - w0;
    return st;
}
