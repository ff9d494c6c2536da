/* Active flows, per-link flow lists, the event heap, and the rates: strict priority levels
 * with max-min fairness inside a level, recomputed on the connected components of the links
 * an event touched (doc/sim.md §3.2-3.3) by the library's one fluid-sharing kernel
 * (src/common/fluid.c), which reads the flows and links here through callbacks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/fluid.h"
#include "sim_internal.h"

/* ---- event heap (sim_internal.h): push here, pop and compaction in the loop (engine.c) ---- */

tsched_status ts_sim_push(tsched_sim *s, int64_t t, int kind, uint32_t a, int64_t b)
{
    if (TS_GROW(s->heap, s->heap_cap, s->nheap + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    size_t i = s->nheap++;
    ts_sim_event e = {t, s->seq++, kind, a, b};
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ts_sim_ev_before(&e, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
    return TSCHED_OK;
}

/* ---- accounting of delivered bits ----------------------------------------------------- */

static int64_t overlap_ns(int64_t a, int64_t b, int64_t from, int64_t to)
{
    int64_t lo = a > from ? a : from, hi = b < to ? b : to;
    return hi > lo ? hi - lo : 0;
}

/* Bring `remaining` up to now at the flow's current rate; the bits go to the flow's job
 * and, inside the measurement window, to its fabric links. */
void ts_sim_settle(tsched_sim *s, ts_sim_flow *f)
{
    int64_t dt = s->now - f->last;
    if (dt <= 0 || f->rate <= 0) {
        f->last = s->now;
        return;
    }
    double bits = f->rate * (double)dt * 1e-9;
    if (bits > f->remaining)
        bits = f->remaining;
    f->remaining -= bits;
    int64_t w = overlap_ns(f->last, s->now, s->from, s->to);
    if (w > 0) {
        double wb = f->rate * (double)w * 1e-9;
        for (uint32_t k = 0; k < f->nlinks; k++)
            if (f->links[k] < s->nfab)
                s->link[f->links[k]].delivered += wb;
    }
    if (s->s_link_gbits)
        for (uint32_t k = 0; k < f->nlinks; k++)
            if (f->links[k] < s->nfab)
                s->s_link_gbits[f->links[k]] += bits;
    s->jobs[f->job].gbits_delivered += bits;
    f->last = s->now;
}

/* ---- flows and link lists ------------------------------------------------------------- */

static void link_busy(tsched_sim *s, ts_sim_link *l, int busy)
{
    if (busy && l->busy_since < 0)
        l->busy_since = s->now;
    else if (!busy && l->busy_since >= 0) {
        l->busy_ns += overlap_ns(l->busy_since, s->now, s->from, s->to);
        l->busy_since = -1;
    }
}

static tsched_status touch_link(tsched_sim *s, uint32_t l)
{
    if (s->link[l].mark == s->mark)
        return TSCHED_OK;
    s->link[l].mark = s->mark;
    if (TS_GROW(s->touched, s->touched_cap, (size_t)s->ntouched + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    s->touched[s->ntouched++] = l;
    return TSCHED_OK;
}

tsched_status ts_sim_flow_start(uint32_t *index, tsched_sim *s, uint32_t job, const ts_sim_rflow *rf,
                                const uint32_t *links)
{
    uint32_t fi;
    if (s->nfree)
        fi = s->free_flows[--s->nfree];
    else {
        if (TS_GROW(s->flow, s->flow_cap, (size_t)s->nflow + 1) != TSCHED_OK)
            return TSCHED_E_NOMEM;
        fi = s->nflow++;
        memset(&s->flow[fi], 0, sizeof s->flow[fi]);
    }
    ts_sim_flow *f = &s->flow[fi];
    uint32_t gen = f->gen + 1;
    memset(f, 0, sizeof *f);
    f->gen = gen;
    f->job = job;
    f->gbits = f->remaining = rf->gbits;
    f->last = s->now;
    f->level = s->jobs[job].level;
    f->links = links;
    f->nlinks = rf->nlinks;
    f->active = 1;
    for (uint32_t k = 0; k < f->nlinks; k++) {
        ts_sim_link *l = &s->link[links[k]];
        if (TS_GROW(l->flows, l->cap_n, (size_t)l->n + 1) != TSCHED_OK)
            return TSCHED_E_NOMEM;
        l->flows[l->n++] = fi;
        link_busy(s, l, 1);
        tsched_status st = touch_link(s, links[k]);
        if (st != TSCHED_OK)
            return st;
    }
    s->nactive++;
    if (index)
        *index = fi;
    return TSCHED_OK;
}

void ts_sim_flow_remove(tsched_sim *s, uint32_t fi)
{
    ts_sim_flow *f = &s->flow[fi];
    for (uint32_t k = 0; k < f->nlinks; k++) {
        ts_sim_link *l = &s->link[f->links[k]];
        /* keep the list in flow-start order is not needed: components are sorted */
        for (uint32_t j = 0; j < l->n; j++)
            if (l->flows[j] == fi) {
                l->flows[j] = l->flows[--l->n];
                break;
            }
        if (l->n == 0)
            link_busy(s, l, 0);
        touch_link(s, f->links[k]); /* a failed push only loses a duplicate mark */
    }
    f->active = 0;
    f->gen++;
    s->nactive--;
    if (TS_GROW(s->free_flows, s->free_cap, (size_t)s->nfree + 1) == TSCHED_OK)
        s->free_flows[s->nfree++] = fi;
}

void ts_sim_touch(tsched_sim *s, uint32_t l) { touch_link(s, l); }

/* ---- rates: the fluid-sharing kernel over the simulator's links and flows --------------- */

/* The kernel reads the live network through these (src/common/fluid.h): per link its
 * active flows and capacity, per flow its links and level. */
static const uint32_t *net_link_flows(void *ctx, uint32_t l, uint32_t *n)
{
    const ts_sim_link *lk = &((const tsched_sim *)ctx)->link[l];
    *n = lk->n;
    return lk->flows;
}

static const uint32_t *net_flow_links(void *ctx, uint32_t f, uint32_t *n, uint32_t *level)
{
    const ts_sim_flow *fl = &((const tsched_sim *)ctx)->flow[f];
    *n = fl->nlinks;
    *level = fl->level;
    return fl->links;
}

static double net_cap(void *ctx, uint32_t l) { return ((const tsched_sim *)ctx)->link[l].cap; }

/* The network view and the workspace (made at the first solve, freed with the sim). */
static tsched_status net_of(ts_fluid_net *net, tsched_sim *s)
{
    if (!s->fluid) {
        tsched_status st = ts_fluid_new(&s->fluid);
        if (st != TSCHED_OK)
            return st;
    }
    *net = (ts_fluid_net){s, s->nlinks, s->nflow, net_link_flows, net_flow_links, net_cap};
    return TSCHED_OK;
}

/* Strict priority with max-min inside a level (§2.2) for flows given as lists (a phase
 * alone, engine.c): flow i crosses links fl[i][0..fn[i]) at level lev[i]; `out[i]` receives
 * its rate. The kernel finds the distinct links itself (ties by link id). */
tsched_status ts_sim_maxmin(tsched_sim *s, size_t nf, const uint32_t *const *fl, const uint32_t *fn,
                            const uint32_t *lev, double *out)
{
    ts_fluid_net net;
    tsched_status st = net_of(&net, s);
    if (st == TSCHED_OK && nf > UINT32_MAX)
        st = ts_error(TSCHED_E_TOO_LARGE, "sim: %zu flows in one phase", nf);
    if (st == TSCHED_OK)
        st = ts_fluid_solve_lists(s->fluid, out, (uint32_t)nf, fl, fn, lev, &net);
    if (st != TSCHED_OK)
        for (size_t i = 0; i < nf; i++)
            out[i] = 0;
    return st;
}

/* Per-flow scratch of at least nf entries: rates, link lists, levels. */
tsched_status ts_sim_scratch(tsched_sim *s, size_t nf)
{
    if (nf <= s->rate_cap)
        return TSCHED_OK;
    size_t cap = s->rate_cap ? s->rate_cap : 64;
    while (cap < nf)
        cap *= 2;
    double *r = ts_realloc(s->rate_scratch, cap, sizeof(double));
    if (r)
        s->rate_scratch = r;
    const uint32_t **fl = ts_realloc(s->fl, cap, sizeof *fl);
    if (fl)
        s->fl = fl;
    uint32_t *fn = ts_realloc(s->fn, cap, sizeof *fn);
    if (fn)
        s->fn = fn;
    uint32_t *lev = ts_realloc(s->lev, cap, sizeof *lev);
    if (lev)
        s->lev = lev;
    if (!r || !fl || !fn || !lev)
        return TSCHED_E_NOMEM;
    s->rate_cap = cap;
    return TSCHED_OK;
}

/* Move flow fi to rate r: settle at the old rate, reschedule its completion. */
static tsched_status set_rate(tsched_sim *s, uint32_t fi, double r)
{
    ts_sim_flow *f = &s->flow[fi];
    ts_sim_settle(s, f);
    f->rate = r;
    f->gen++;
    s->rate_updates++;
    if (r <= 0)
        return TSCHED_OK; /* stalled: no completion until a rate comes back */
    double ns = ceil(1e9 * f->remaining / r);
    if (!(ns < 9e18 - (double)s->now)) /* its end would fall past the clock (292 years) */
        return ts_error(TSCHED_E_RANGE,
                        "job \"%s\": a flow of %g Gbit at %g Gbit/s would end %g s after t = %g s, past the "
                        "simulated clock's range (%g s)",
                        s->jobs[f->job].name, f->gbits, r, ns / 1e9, (double)s->now / 1e9, 9e9);
    return ts_sim_push(s, s->now + (int64_t)ns, TS_EV_FLOW_DONE, fi, f->gen);
}

tsched_status ts_sim_recompute(tsched_sim *s)
{
    if (s->ntouched == 0)
        return TSCHED_OK;
    ts_fluid_net net;
    const uint32_t *fi;
    const double *r;
    size_t nf = 0;
    tsched_status st = net_of(&net, s);
    if (st == TSCHED_OK)
        st = ts_fluid_solve_touched(s->fluid, &net, s->touched, s->ntouched, &fi, &r, &nf);
    s->ntouched = 0;
    s->mark++; /* the touch marks of this batch are spent */
    if (st != TSCHED_OK)
        return st;
    if (nf) {
        s->comps++;
        s->comp_flows_sum += nf;
        if (nf > s->comp_flows_max)
            s->comp_flows_max = (uint32_t)nf;
    }
    /* flows by index: one order of the completion events pushed, whatever the event */
    for (size_t i = 0; i < nf && st == TSCHED_OK; i++)
        /* a flow whose rate did not change keeps its completion event */
        if (s->flow[fi[i]].rate != r[i] || s->flow[fi[i]].last == s->now)
            st = set_rate(s, fi[i], r[i]);
    return st;
}

tsched_status ts_sim_check_full(tsched_sim *s)
{
    /* every active flow's rate must equal a recomputation of its whole component (each
     * component once) */
    ts_fluid_net net;
    tsched_status st = net_of(&net, s);
    uint32_t epoch = ++s->check_epoch;
    for (uint32_t f = 0; f < s->nflow && st == TSCHED_OK; f++) {
        const ts_sim_flow *fl = &s->flow[f];
        if (!fl->active || fl->nlinks == 0 || fl->checked == epoch)
            continue;
        const uint32_t *fi;
        const double *r;
        size_t nf;
        if ((st = ts_fluid_solve_touched(s->fluid, &net, &fl->links[0], 1, &fi, &r, &nf)) != TSCHED_OK)
            return st;
        for (size_t i = 0; i < nf; i++) {
            ts_sim_flow *g = &s->flow[fi[i]];
            g->checked = epoch;
            if (memcmp(&g->rate, &r[i], sizeof r[i]) != 0)
                return ts_error(TSCHED_E_INTERNAL,
                                "sim: incremental rate of flow %u (%.17g) differs from a full recomputation (%.17g) "
                                "at t = %lld ns",
                                fi[i], g->rate, r[i], (long long)s->now);
        }
    }
    s->mark++;
    return st;
}
