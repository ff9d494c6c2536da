/* Active flows, per-link flow lists, the event heap, and the rates: strict priority levels
 * with max-min fairness inside a level (progressive filling on what the levels above left),
 * recomputed on the connected component of the links an event touched (doc/sim.md §2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
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

/* ---- rates of one component ------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Components are mostly a handful of flows: insertion sort beats qsort's set-up there. */
static void sort_u32(uint32_t *a, size_t n)
{
    if (n > 32) {
        qsort(a, n, sizeof *a, cmp_u32);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint32_t v = a[i];
        size_t k = i;
        for (; k > 0 && a[k - 1] > v; k--)
            a[k] = a[k - 1];
        a[k] = v;
    }
}

/* Push onto a scratch array, growing it only when full (the common case is one compare). */
#define PUSH(arr, cap, n, v)                                                                                        \
    do {                                                                                                            \
        if ((n) >= (cap) && TS_GROW(arr, cap, (n) + 1) != TSCHED_OK)                                                 \
            return TSCHED_E_NOMEM;                                                                                  \
        (arr)[(n)++] = (v);                                                                                         \
    } while (0)

/* Collect the component(s) reachable from the touched links: flows sorted by index, links
 * sorted by id, so the arithmetic below runs in one canonical order whatever the event. */
static tsched_status collect(tsched_sim *s, const uint32_t *seeds, uint32_t nseeds, size_t *nf, size_t *nl)
{
    uint32_t m = ++s->mark;
    size_t f = 0, l = 0, sp = 0;
    for (uint32_t i = 0; i < nseeds; i++) {
        if (s->link[seeds[i]].mark == m)
            continue;
        s->link[seeds[i]].mark = m;
        PUSH(s->stack, s->stack_cap, sp, seeds[i]);
    }
    while (sp) {
        uint32_t li = s->stack[--sp];
        PUSH(s->comp_l, s->comp_l_cap, l, li);
        ts_sim_link *lk = &s->link[li];
        for (uint32_t j = 0; j < lk->n; j++) {
            ts_sim_flow *fl = &s->flow[lk->flows[j]];
            if (fl->mark == m)
                continue;
            fl->mark = m;
            PUSH(s->comp_f, s->comp_f_cap, f, lk->flows[j]);
            for (uint32_t k = 0; k < fl->nlinks; k++) {
                uint32_t l2 = fl->links[k];
                if (s->link[l2].mark == m)
                    continue;
                s->link[l2].mark = m;
                PUSH(s->stack, s->stack_cap, sp, l2);
            }
        }
    }
    if (f > 1) /* never qsort(NULL, 0, ...): undefined */
        sort_u32(s->comp_f, f);
    if (l > 1)
        sort_u32(s->comp_l, l);
    *nf = f;
    *nl = l;
    return TSCHED_OK;
}

/* Strict priority with max-min inside a level (§2.2): flow i crosses links fl[i][0..fn[i])
 * at level lev[i]; L[0..nl) are the distinct links. `out[i]` receives flow i's rate. The
 * per-link scratch (`used`, `ncount`, indexed by link id) is left zero. Flows are visited in
 * index order and links in L's order, so the same input gives the same bits. */
void ts_sim_maxmin(tsched_sim *s, size_t nf, const uint32_t *const *fl, const uint32_t *fn, const uint32_t *lev,
                   const uint32_t *L, size_t nl, double *out, uint8_t *frozen)
{
    double *used = s->used;
    uint32_t *cnt = s->ncount;
    uint32_t maxlevel = 0;
    for (size_t i = 0; i < nf; i++) {
        out[i] = 0;
        if (lev[i] > maxlevel)
            maxlevel = lev[i];
    }
    for (uint32_t level = 0; level <= maxlevel; level++) {
        size_t left = 0;
        for (size_t i = 0; i < nf; i++) {
            frozen[i] = lev[i] != level;
            if (!frozen[i]) {
                left++;
                for (uint32_t k = 0; k < fn[i]; k++)
                    cnt[fl[i][k]]++;
            }
        }
        while (left) {
            double best = INFINITY;
            for (size_t j = 0; j < nl; j++) {
                uint32_t l = L[j];
                if (!cnt[l])
                    continue;
                double r = s->link[l].cap - used[l];
                double share = (r > 0 ? r : 0) / cnt[l];
                if (share < best)
                    best = share;
            }
            /* freeze every flow crossing a link at the smallest share; the shares are
             * recomputed from the same expression, so the comparison is exact */
            size_t froze = 0;
            for (size_t i = 0; i < nf; i++) {
                if (frozen[i])
                    continue;
                int hit = 0;
                for (uint32_t k = 0; k < fn[i] && !hit; k++) {
                    uint32_t l = fl[i][k];
                    double r = s->link[l].cap - used[l];
                    hit = (r > 0 ? r : 0) / cnt[l] == best;
                }
                if (hit) {
                    out[i] = best;
                    frozen[i] = 2; /* frozen in this round: counts change after the scan */
                    froze++;
                }
            }
            for (size_t i = 0; i < nf; i++) {
                if (frozen[i] != 2)
                    continue;
                frozen[i] = 1;
                for (uint32_t k = 0; k < fn[i]; k++) {
                    used[fl[i][k]] += best;
                    cnt[fl[i][k]]--;
                }
            }
            if (froze == 0) { /* cannot happen: the minimum is always attained */
                for (size_t i = 0; i < nf; i++)
                    if (!frozen[i])
                        for (uint32_t k = 0; k < fn[i]; k++)
                            cnt[fl[i][k]]--;
                break;
            }
            left -= froze;
        }
    }
    for (size_t j = 0; j < nl; j++)
        used[L[j]] = 0;
}

/* Per-flow scratch of at least nf entries: rates, frozen flags, link lists, levels. */
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
    uint8_t *fz = ts_realloc(s->frozen, cap, 1);
    if (fz)
        s->frozen = fz;
    const uint32_t **fl = ts_realloc(s->fl, cap, sizeof *fl);
    if (fl)
        s->fl = fl;
    uint32_t *fn = ts_realloc(s->fn, cap, sizeof *fn);
    if (fn)
        s->fn = fn;
    uint32_t *lev = ts_realloc(s->lev, cap, sizeof *lev);
    if (lev)
        s->lev = lev;
    if (!r || !fz || !fl || !fn || !lev)
        return TSCHED_E_NOMEM;
    s->rate_cap = cap;
    return TSCHED_OK;
}

/* The component's flows as the arrays ts_sim_maxmin reads. */
static void comp_arrays(tsched_sim *s, size_t nf)
{
    for (size_t i = 0; i < nf; i++) {
        const ts_sim_flow *f = &s->flow[s->comp_f[i]];
        s->fl[i] = f->links;
        s->fn[i] = f->nlinks;
        s->lev[i] = f->level;
    }
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
    size_t nf, nl;
    tsched_status st = collect(s, s->touched, s->ntouched, &nf, &nl);
    s->ntouched = 0;
    s->mark++; /* the touch marks of this batch are spent */
    if (st != TSCHED_OK || (st = ts_sim_scratch(s, nf)) != TSCHED_OK)
        return st;
    double *r = s->rate_scratch;
    comp_arrays(s, nf);
    ts_sim_maxmin(s, nf, s->fl, s->fn, s->lev, s->comp_l, nl, r, s->frozen);
    if (nf) {
        s->comps++;
        s->comp_flows_sum += nf;
        if (nf > s->comp_flows_max)
            s->comp_flows_max = (uint32_t)nf;
    }
    for (size_t i = 0; i < nf && st == TSCHED_OK; i++) {
        uint32_t fi = s->comp_f[i];
        /* a flow whose rate did not change keeps its completion event */
        if (s->flow[fi].rate != r[i] || s->flow[fi].last == s->now)
            st = set_rate(s, fi, r[i]);
    }
    return st;
}

tsched_status ts_sim_check_full(tsched_sim *s)
{
    /* every active flow's rate must equal a recomputation of its whole component (each
     * component once) */
    tsched_status st;
    uint32_t epoch = ++s->check_epoch;
    for (uint32_t fi = 0; fi < s->nflow; fi++) {
        ts_sim_flow *f = &s->flow[fi];
        if (!f->active || f->nlinks == 0 || f->checked == epoch)
            continue;
        size_t nf, nl;
        if ((st = collect(s, &f->links[0], 1, &nf, &nl)) != TSCHED_OK || (st = ts_sim_scratch(s, nf)) != TSCHED_OK)
            return st;
        double *r = s->rate_scratch;
        comp_arrays(s, nf);
        ts_sim_maxmin(s, nf, s->fl, s->fn, s->lev, s->comp_l, nl, r, s->frozen);
        for (size_t i = 0; i < nf; i++) {
            ts_sim_flow *g = &s->flow[s->comp_f[i]];
            g->checked = epoch;
            if (memcmp(&g->rate, &r[i], sizeof r[i]) != 0)
                return ts_error(TSCHED_E_INTERNAL,
                                "sim: incremental rate of flow %u (%.17g) differs from a full recomputation (%.17g) "
                                "at t = %lld ns",
                                s->comp_f[i], g->rate, r[i], (long long)s->now);
        }
    }
    s->mark++;
    return TSCHED_OK;
}
