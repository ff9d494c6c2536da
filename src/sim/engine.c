/* The event loop (doc/sim.md §1): arrivals, the queue and placement (§3.1-3.2), each job's
 * iterations (computation, then phases of flows, §1.2), routing at start (§3.3), levels
 * (§3.4), failures (§3.5), and the accounting behind the results (§5). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/limits.h"
#include "../common/rng.h"
#include "sim_internal.h"
#include "trace_ranges.h"


/* ---- accounting ------------------------------------------------------------------------ */

static void close_sample(tsched_sim *s);

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
            /* every flow's bits up to the boundary, so each interval gets its own */
            int64_t keep = s->now;
            s->now = end;
            for (uint32_t fi = 0; fi < s->nflow; fi++)
                if (s->flow[fi].active)
                    ts_sim_settle(s, &s->flow[fi]);
            s->now = keep;
            close_sample(s);
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

static void busy(tsched_sim *s, ts_sim_job *j, int on)
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

/* a + b saturated at INT64_MAX (b >= 0): for comparisons only. */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}


tsched_status ts_sim_job_bounds(tsched_sim *s, uint32_t i)
{
    const ts_sim_job *j = &s->jobs[i];
    uint64_t iters = j->iterations;
    if (iters == 0)
        return TSCHED_OK; /* duration mode: checked when its iterations are resolved */
    /* simulated iterations: coarsened to at most max_sim_iterations (§2) */
    uint64_t sim = iters;
    if (s->max_iters && iters > s->max_iters) {
        uint64_t g = (iters + s->max_iters - 1) / s->max_iters;
        sim = (iters + g - 1) / g;
    }
    if (!TS_SIM_IS_CRIUS(s)) {
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
    uint64_t per = TS_SIM_IS_CRIUS(s) ? 1 : 2, need;
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

static void emit(tsched_sim *s, int kind, uint32_t job, uint32_t phase, const char *name)
{
    if (!s->cb || !(s->cb_mask & (uint32_t)kind))
        return;
    tsched_sim_event e = {sizeof e, kind, s->now, job, phase,
                          job == TSCHED_NONE ? 0 : s->jobs[job].real_done, name};
    if (s->cb(&e, s->cb_user))
        s->stop = 1;
}

/* ---- links ---------------------------------------------------------------------------------- */

/* Capacities from the fabric's state: a trunk carries its capacity when it and both its
 * switches are up; a NIC link when its node is up. */
tsched_status ts_sim_refresh_caps(tsched_sim *s)
{
    const tsched_topology *t = s->t;
    /* at the run's start (every capacity set for the first time) nothing carries a flow yet:
     * no link is marked, so the scratch list stays empty instead of listing every link */
    for (uint32_t tr = 0; tr < s->ntrunks; tr++) {
        int up = tsched_topology_trunk_is_up(t, tr) &&
                 tsched_topology_switch_is_up(t, tsched_topology_trunk_lower(t, tr)) &&
                 tsched_topology_switch_is_up(t, tsched_topology_trunk_upper(t, tr));
        /* trunk mode: the trunk's capacity (the sum of its up members); member mode: each
         * member's own speed and state */
        int member = s->pol[TSCHED_SIM_LINKS] == 1;
        uint32_t first = tsched_topology_trunk_first_member(t, tr);
        for (uint32_t u = s->unit_base[tr]; u < s->unit_base[tr + 1]; u++) {
            uint32_t m = first + (u - s->unit_base[tr]);
            double c = !up ? 0
                       : member ? (tsched_topology_member_is_up(t, m) ? tsched_topology_member_gbps(t, m) : 0)
                                : tsched_topology_trunk_gbps(t, tr);
            for (int d = 0; d < 2; d++) {
                uint32_t l = 2 * u + (uint32_t)d;
                if (s->link[l].cap != c) {
                    s->link[l].cap = c;
                    if (s->started)
                        ts_sim_touch(s, l);
                }
            }
        }
    }
    /* OCS ports (placement ocs-vclos): a circuit of its member's capacity while the port's
     * leaf is up; a circuit to a lost spine is moved or dropped by the vclos handle */
    if (s->nocs) {
        uint32_t L = tsched_topology_num_tier(t, TSCHED_TIER_LEAF), per = L ? s->nocs / L : 0;
        for (uint32_t p = 0; p < s->nocs; p++) {
            uint32_t leaf = tsched_topology_tier_switch(t, TSCHED_TIER_LEAF, per ? p / per : 0);
            double c = tsched_topology_switch_is_up(t, leaf) ? tsched_vclos_link_gbps(s->vc, s->vc_members + p) : 0;
            for (int d = 0; d < 2; d++) {
                uint32_t l = s->ocs_base + 2 * p + (uint32_t)d;
                if (s->link[l].cap != c) {
                    s->link[l].cap = c;
                    if (s->started)
                        ts_sim_touch(s, l);
                }
            }
        }
    }
    uint32_t nn = tsched_topology_num_nodes(t);
    for (uint32_t n = 0; n < nn; n++) {
        double c = tsched_topology_node_is_up(t, n) ? tsched_topology_node_nic_gbps(t, n) : 0;
        for (uint32_t k = 0; k < tsched_topology_node_nics(t, n); k++)
            for (int d = 0; d < 2; d++) {
                uint32_t l = s->nfab + 2 * (s->nic_base[n] + k) + (uint32_t)d;
                if (s->link[l].cap != c) {
                    s->link[l].cap = c;
                    if (s->started)
                        ts_sim_touch(s, l);
                }
            }
    }
    return TSCHED_OK;
}

/* ---- routing a job's flows ---------------------------------------------------------------- */

static uint32_t nic_link(const tsched_sim *s, uint32_t node, uint32_t nic, int down)
{
    return s->nfab + 2 * (s->nic_base[node] + nic) + (uint32_t)down;
}

/* Append one routed flow with its links: NIC up, the path's fabric links, NIC down. */
static tsched_status add_rflow(tsched_sim *s, ts_sim_job *j, size_t *cap_rf, size_t *cap_rl, uint32_t src,
                               uint32_t src_nic, uint32_t dst, uint32_t dst_nic, double gbits, const uint32_t *plinks,
                               uint32_t nplinks)
{
    if (TS_GROW(j->rflows, *cap_rf, (size_t)j->nrflows + 1) != TSCHED_OK ||
        TS_GROW(j->rlinks, *cap_rl, (size_t)j->nrlinks + nplinks + 2) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    ts_sim_rflow *rf = &j->rflows[j->nrflows++];
    rf->src = src;
    rf->src_nic = src_nic;
    rf->dst = dst;
    rf->dst_nic = dst_nic;
    rf->gbits = gbits;
    rf->link_off = j->nrlinks;
    j->rlinks[j->nrlinks++] = nic_link(s, src, src_nic, 0);
    for (uint32_t h = 0; h < nplinks; h++)
        j->rlinks[j->nrlinks++] = plinks[h];
    j->rlinks[j->nrlinks++] = nic_link(s, dst, dst_nic, 1);
    rf->nlinks = nplinks + 2;
    return TSCHED_OK;
}


/* The directed unit link a flow takes on directed trunk link `tl` (2 * trunk + d): the trunk
 * itself in trunk mode; in member mode (§2.1) the member by the flow's ECMP hash for ecmp,
 * uniformly among the least-loaded members for balanced-ecmp, else the least-loaded member
 * with ties to the lowest k; loads are the running jobs' flows plus this phase's so far. */
static uint32_t pick_unit(tsched_sim *s, uint32_t tl, uint64_t hash, int routing)
{
    uint32_t tr = tl / 2, d = tl % 2, a = s->unit_base[tr], n = s->unit_base[tr + 1] - a, k = 0;
    if (n > 1) {
        if (routing == 1) {
            /* the hash picks among the members that are up (all of them when none is down) */
            uint32_t nup = 0;
            for (uint32_t m = 0; m < n; m++)
                nup += s->link[2 * (a + m) + d].cap > 0;
            uint32_t pick = nup ? (uint32_t)(ts_mix64(hash ^ ((uint64_t)tr + 1) * 0x9E3779B97F4A7C15ull) % nup) : 0;
            for (uint32_t m = 0; m < n; m++)
                if (!nup || (s->link[2 * (a + m) + d].cap > 0 && pick-- == 0)) {
                    k = m;
                    break;
                }
        } else {
            uint32_t best = UINT32_MAX, ties = 0;
            for (uint32_t m = 0; m < n; m++) {
                uint32_t l = 2 * (a + m) + d, load = s->unit_flows[l] + s->phase_cnt[l];
                if (s->link[l].cap <= 0)
                    continue; /* a member that is down */
                if (load < best) {
                    best = load;
                    k = m;
                    ties = 1;
                } else if (load == best) {
                    ties++;
                }
            }
            if (routing == 2 && ties > 1) { /* balanced: a seeded uniform choice among the ties */
                uint32_t pick = (uint32_t)(ts_mix64(hash ^ ((uint64_t)tr + 7) * 0xD6E8FEB86659FD93ull) % ties);
                for (uint32_t m = 0; m < n; m++) {
                    uint32_t l = 2 * (a + m) + d;
                    if (s->link[l].cap > 0 && s->unit_flows[l] + s->phase_cnt[l] == best && pick-- == 0) {
                        k = m;
                        break;
                    }
                }
            }
        }
    }
    uint32_t u = 2 * (a + k) + d;
    s->phase_cnt[u]++;
    return u;
}

/* vClos's source routing (SR) on a two-tier fabric (§3.3): the k-th NIC under a leaf (node
 * index, then NIC order, over the leaf's nodes) goes up on the leaf's spine k mod S, member
 * floor(k / S) mod count, and down on the member of the same index. Writes the directed unit
 * links into `out` and returns their number, or UINT32_MAX when a trunk is missing. */
static uint32_t source_route(tsched_sim *s, uint32_t *out, uint32_t src, uint32_t src_nic, uint32_t dst,
                             uint32_t dst_nic)
{
    const tsched_topology *t = s->t;
    uint32_t a = tsched_topology_node_nic_leaf(t, src, src_nic), b = tsched_topology_node_nic_leaf(t, dst, dst_nic);
    if (a == b)
        return 0;
    uint32_t count, k = 0;
    const uint32_t *nodes = tsched_topology_leaf_nodes(t, a, &count);
    for (uint32_t i = 0; i < count && nodes[i] != src; i++)
        k += tsched_topology_node_nics(t, nodes[i]);
    k += src_nic;
    /* the leaf's spines in index order */
    uint32_t ns = tsched_topology_num_tier(t, TSCHED_TIER_SPINE), S = 0, spine = TSCHED_NONE;
    for (uint32_t i = 0; i < ns; i++)
        S += tsched_topology_find_trunk(t, a, tsched_topology_tier_switch(t, TSCHED_TIER_SPINE, i)) != TSCHED_NONE;
    if (S == 0)
        return UINT32_MAX;
    for (uint32_t i = 0, seen = 0; i < ns; i++) {
        uint32_t sp = tsched_topology_tier_switch(t, TSCHED_TIER_SPINE, i);
        if (tsched_topology_find_trunk(t, a, sp) != TSCHED_NONE && seen++ == k % S) {
            spine = sp;
            break;
        }
    }
    uint32_t up = tsched_topology_find_trunk(t, a, spine), down = tsched_topology_find_trunk(t, b, spine);
    if (up == TSCHED_NONE || down == TSCHED_NONE)
        return UINT32_MAX;
    uint32_t m = k / S;
    uint32_t nu = s->unit_base[up + 1] - s->unit_base[up], nd = s->unit_base[down + 1] - s->unit_base[down];
    out[0] = 2 * (s->unit_base[up] + m % nu);
    out[1] = 2 * (s->unit_base[down] + m % nd) + 1;
    return 2;
}

/* The directed sim link of vclos link id `link` (a member, or an OCS port), `down` 0 for
 * the leaf-to-spine direction. */
static uint32_t vclos_slot(const tsched_sim *s, uint32_t link, int down)
{
    if (link < s->vc_members)
        return 2 * link + (uint32_t)down; /* member mode: unit u is member u */
    return s->ocs_base + 2 * (link - s->vc_members) + (uint32_t)down;
}

/* Routing `vclos` (§3.3): the reserved up and down link of the flow from tsched_vclos_route,
 * rank = the node's position in the job's node list (the vclos rank order) times E plus the
 * NIC. Writes the directed links into `out`, returns their number (0: same leaf); a lost
 * link (a degraded job) is the dead link. */
static tsched_status vclos_route(uint32_t *np, uint32_t *out, const tsched_sim *s, const ts_sim_job *j, uint32_t src,
                                 uint32_t src_nic, uint32_t dst, uint32_t dst_nic)
{
    const tsched_topology *t = s->t;
    *np = 0;
    if (tsched_topology_node_nic_leaf(t, src, src_nic) == tsched_topology_node_nic_leaf(t, dst, dst_nic))
        return TSCHED_OK;
    uint32_t E = tsched_topology_node_nics(t, src), a = s->node_pos[src], b = s->node_pos[dst], up, down;
    if (a == TSCHED_NONE || b == TSCHED_NONE)
        return ts_error(TSCHED_E_INTERNAL, "sim: job \"%s\": a flow's node is not the job's", j->name);
    tsched_status st = tsched_vclos_route(&up, &down, s->vc, j->name, a * E + src_nic, b * E + dst_nic);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, j->name);
    if (up == TSCHED_NONE || down == TSCHED_NONE) {
        out[(*np)++] = s->dead;
        return TSCHED_OK;
    }
    out[(*np)++] = vclos_slot(s, up, 0);
    out[(*np)++] = vclos_slot(s, down, 1);
    return TSCHED_OK;
}

/* The flows of one phase of job j as a tsched_flows (node indices of the fabric). */
static tsched_status phase_flows(tsched_flows **out, tsched_sim *s, ts_sim_job *j, const ts_sim_phase *ph)
{
    tsched_flows *f;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        return st;
    if (ph->pattern >= 0) {
        uint32_t cols = j->pp ? j->pp : 1, rows = j->nnodes / cols;
        uint32_t *cells = ts_malloc(j->nnodes ? j->nnodes : 1, sizeof *cells);
        tsched_job *tj = NULL;
        if (!cells)
            st = TSCHED_E_NOMEM;
        /* rank r = col * rows + row: the matrix is row-major (row * cols + col) */
        for (uint32_t r = 0; st == TSCHED_OK && r < j->nnodes; r++)
            cells[(r % rows) * cols + r / rows] = j->nodes[r];
        if (st == TSCHED_OK && ph->gbits <= 0) {
            st = tsched_job_new(&tj, j->name, j->gpus, j->tp, j->pp);
            if (st == TSCHED_OK && j->has_model)
                st = tsched_job_set_model(tj, &j->model);
        }
        if (st == TSCHED_OK && rows > 1 && ph->pattern != TSCHED_PATTERN_PP) {
            st = tsched_flows_collective(f, s->t, tj, cells, rows, cols, (tsched_pattern)ph->pattern,
                                         ph->step > 0 ? (uint32_t)ph->step : 0, ph->gbits);
        } else if (st == TSCHED_OK && ph->pattern == TSCHED_PATTERN_PP && cols > 1) {
            st = tsched_flows_collective(f, s->t, tj, cells, rows, cols, TSCHED_PATTERN_PP, 0, ph->gbits);
        }
        tsched_job_free(tj);
        free(cells);
    } else {
        for (uint32_t x = 0; x < ph->nx && st == TSCHED_OK; x++) {
            const ts_sim_xflow *xf = &j->xflows[ph->xoff + x];
            st = tsched_flows_add(NULL, f, NULL, j->nodes[xf->src], xf->src_nic, j->nodes[xf->dst], xf->dst_nic,
                                  xf->gbits);
        }
    }
    if (st != TSCHED_OK) {
        tsched_flows_free(f);
        return ts_error_prefix(st, j->name);
    }
    *out = f;
    return TSCHED_OK;
}

/* The flows of all of job j's phases together on `nodes` nodes of `nics` NICs (every step
 * of a multi-step pattern is a phase of its own and all are kept for the job's life), from
 * the shape alone: a pattern phase gives one flow per node pair per NIC rail (rows x cols
 * pairs for the DP patterns when rows > 1, rows x (cols - 1) for pp when cols > 1), an
 * explicit phase its flows. Saturates at UINT64_MAX. Needs nothing but the job's phases, so
 * that it can also be decided before the run (with the node count and NICs per node). */
static uint64_t job_flow_count(const ts_sim_job *j, uint64_t nodes, uint64_t nics)
{
    uint64_t cols = j->pp ? j->pp : 1, rows = nodes / cols, total = 0;
    for (uint32_t p = 0; p < j->nphases; p++) {
        const ts_sim_phase *ph = &j->phases[p];
        uint64_t n = ph->pattern < 0                    ? ph->nx
                     : ph->pattern == TSCHED_PATTERN_PP ? (cols > 1 ? rows * (cols - 1) * nics : 0)
                                                        : (rows > 1 ? rows * cols * nics : 0);
        total = n > UINT64_MAX - total ? UINT64_MAX : total + n; /* each n < 2^62: nodes x NICs */
    }
    return total;
}

/* Route every phase of job j (§3.3) into j->rflows / j->rlinks. */
static tsched_status route_job(tsched_sim *s, ts_sim_job *j)
{
    size_t cap_rf = 0, cap_rl = 0;
    /* the flows limit bounds the job's phases together, decided before anything is made */
    uint64_t lim = ts_limits()->flows;
    uint64_t nf = job_flow_count(j, j->nnodes, j->nnodes ? tsched_topology_node_nics(s->t, j->nodes[0]) : 0);
    if (nf > lim) {
        char what[4096 + 128];
        snprintf(what, sizeof what, "jobs[%u] (job \"%s\"): flows of its phases together", (unsigned)(j - s->jobs),
                 j->name);
        return ts_limit_error(what, (unsigned long long)nf, "flows", (unsigned long long)lim);
    }
    j->nrflows = j->nrlinks = 0;
    free(j->phase_rf_off);
    if (!(j->phase_rf_off = ts_calloc((size_t)j->nphases + 1, sizeof *j->phase_rf_off)))
        return TSCHED_E_NOMEM;
    int routing = s->pol[TSCHED_SIM_ROUTING];
    tsched_status st = TSCHED_OK;
    if (routing == TS_RT_VCLOS)
        for (uint32_t k = 0; k < j->nnodes; k++)
            s->node_pos[j->nodes[k]] = k;
    for (uint32_t p = 0; p < j->nphases && st == TSCHED_OK; p++) {
        const ts_sim_phase *ph = &j->phases[p];
        j->phase_rf_off[p] = j->nrflows;
        tsched_flows *f = NULL;
        if ((st = phase_flows(&f, s, j, ph)) != TSCHED_OK)
            break;
        uint32_t n = tsched_flows_count(f);
        tsched_routes *r = NULL;
        int stalled = 0;
        uint64_t o_seed = s->seed * 0x9E3779B97F4A7C15ull;
        for (const char *c = j->name; *c; c++)
            o_seed = (o_seed ^ (uint8_t)*c) * 0x100000001B3ull;
        o_seed ^= ((uint64_t)p + 1) * 0xBF58476D1CE4E5B9ull;
        if (routing != TS_RT_IDEAL && routing != TS_RT_SOURCE && routing != TS_RT_VCLOS && n > 0) {
            tsched_route_options o;
            tsched_route_options_init(&o);
            static const tsched_route_algo algos[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP,
                                                      TSCHED_ROUTE_BALANCED_ECMP, TSCHED_ROUTE_ILP,
                                                      TSCHED_ROUTE_GREEDY};
            o.algo = algos[routing < 5 ? routing : 0];
            /* a fixed mix of seed, job and phase: with the flow's index, its ECMP hash (§3.3) */
            o.seed = o_seed;
            o.flags = TSCHED_ROUTE_NO_RATES;
            o.time_limit_ms = s->place_ms;
            /* the flows of every other running job's phases (this job's are not counted yet) */
            o.base_link_flows = s->base_flows;
            st = tsched_route(&r, s->t, f, &o);
            if (st == TSCHED_E_NO_PATH) {
                /* no surviving path: the phase's flows wait on the dead link until a repair */
                st = TSCHED_OK;
                r = NULL;
                stalled = 1;
            } else if (st != TSCHED_OK) {
                tsched_flows_free(f);
                break;
            }
        }
        for (uint32_t i = 0; i < n && st == TSCHED_OK; i++) {
            double gb = tsched_flows_gbits(f, i);
            uint32_t plinks[TSCHED_PATH_MAX_LINKS], np = 0;
            if (ph->pattern < 0 && j->xflows[ph->xoff + i].nhops) {
                const ts_sim_xflow *xf = &j->xflows[ph->xoff + i];
                const uint32_t *hp = j->hops + xf->hop_off;
                for (uint32_t h = 0; h + 1 < xf->nhops; h++) {
                    uint32_t a = hp[h], b = hp[h + 1];
                    uint32_t tr = tsched_topology_find_trunk(s->t, a, b);
                    int up = tsched_topology_switch_tier(s->t, b) > tsched_topology_switch_tier(s->t, a);
                    plinks[np++] = 2 * tr + (up ? 0u : 1u);
                }
            } else if (stalled) {
                plinks[np++] = s->dead;
            } else if (routing == TS_RT_VCLOS) {
                if ((st = vclos_route(&np, plinks, s, j, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                                      tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i))) != TSCHED_OK)
                    break;
                st = add_rflow(s, j, &cap_rf, &cap_rl, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                               tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i), gb, plinks, np);
                continue;
            } else if (routing == TS_RT_SOURCE) {
                np = source_route(s, plinks, tsched_flows_src(f, i), tsched_flows_src_nic(f, i), tsched_flows_dst(f, i),
                                  tsched_flows_dst_nic(f, i));
                if (np == UINT32_MAX) {
                    np = 1;
                    plinks[0] = s->dead; /* the source route's spine or trunk is missing: stalled */
                }
                st = add_rflow(s, j, &cap_rf, &cap_rl, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                               tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i), gb, plinks, np);
                continue;
            } else if (r) {
                tsched_path path = {.size = sizeof path};
                if ((st = tsched_routes_path(&path, r, i)) != TSCHED_OK)
                    break;
                for (uint32_t h = 0; h + 1 < path.nswitches; h++)
                    plinks[np++] = path.links[h];
            }
            for (uint32_t h = 0; h < np && !stalled; h++)
                plinks[h] = pick_unit(s, plinks[h], o_seed ^ ((uint64_t)i + 1) * 0x94D049BB133111EBull, routing);
            st = add_rflow(s, j, &cap_rf, &cap_rl, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                           tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i), gb, plinks, np);
        }
        tsched_routes_free(r);
        tsched_flows_free(f);
        /* the next phase of this job never runs with this one: forget its member counts */
        for (uint32_t i = j->phase_rf_off[p]; i < j->nrflows; i++) {
            const ts_sim_rflow *rf = &j->rflows[i];
            for (uint32_t k = 0; k < rf->nlinks; k++)
                if (j->rlinks[rf->link_off + k] < s->nfab)
                    s->phase_cnt[j->rlinks[rf->link_off + k]] = 0;
        }
    }
    if (routing == TS_RT_VCLOS)
        for (uint32_t k = 0; k < j->nnodes; k++)
            s->node_pos[j->nodes[k]] = TSCHED_NONE;
    if (st == TSCHED_OK)
        j->phase_rf_off[j->nphases] = j->nrflows;
    return st;
}

/* ---- iteration time alone (§1.4) ---------------------------------------------------------- */

/* The job's iteration time alone on the fabric at its placement: computation, and every
 * phase at the max-min rates its flows get with no other traffic (its time is its slowest
 * flow's), on the same links and capacities the run uses. */
static tsched_status alone_iteration_s(double *out, tsched_sim *s, ts_sim_job *j)
{
    double comm = 0;
    uint32_t m = ++s->mark;
    for (uint32_t p = 0; p < j->nphases; p++) {
        uint32_t a = j->phase_rf_off[p], b = j->phase_rf_off[p + 1];
        size_t n = b - a, nl = 0;
        if (n == 0) {
            comm += (double)s->latency * j->phases[p].repeat;
            continue;
        }
        tsched_status st = ts_sim_scratch(s, n);
        if (st != TSCHED_OK)
            return st;
        for (size_t i = 0; i < n; i++) {
            const ts_sim_rflow *rf = &j->rflows[a + i];
            s->fl[i] = j->rlinks + rf->link_off;
            s->fn[i] = rf->nlinks;
            s->lev[i] = 0;
            for (uint32_t k = 0; k < rf->nlinks; k++) {
                uint32_t l = s->fl[i][k];
                if (s->link[l].mark == m)
                    continue;
                s->link[l].mark = m;
                if (TS_GROW(s->comp_l, s->comp_l_cap, nl + 1) != TSCHED_OK)
                    return TSCHED_E_NOMEM;
                s->comp_l[nl++] = l;
            }
        }
        ts_sim_maxmin(s, n, s->fl, s->fn, s->lev, s->comp_l, nl, s->rate_scratch, s->frozen);
        m = ++s->mark;
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double r = s->rate_scratch[i];
            double tt = r > 0 ? ceil(1e9 * j->rflows[a + i].gbits / r) : INFINITY;
            if (tt > worst)
                worst = tt;
        }
        comm += (worst + (double)s->latency) * j->phases[p].repeat;
    }
    s->mark++;
    double c = (double)j->compute, rel = nearbyint((1 - j->overlap) * (double)j->compute);
    double it = rel + comm > c ? rel + comm : c;
    *out = it * 1e-9;
    return TSCHED_OK;
}

/* ---- iterations ------------------------------------------------------------------------------ */

static tsched_status start_phase(tsched_sim *s, uint32_t ji);

static tsched_status start_iteration(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    j->iter_start = s->now;
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
        busy(s, j, 1);
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
    busy(s, j, 1);
    st = ts_sim_push(s, end, TS_EV_COMPUTE_END, ji, j->gen);
    if (st == TSCHED_OK)
        st = ts_sim_push(s, s->now + (int64_t)nearbyint((1 - j->overlap) * (double)c), TS_EV_RELEASE, ji, j->gen);
    return st;
}

static tsched_status end_iteration_if_done(tsched_sim *s, uint32_t ji);

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
            emit(s, TSCHED_SIM_EV_PHASE_START, ji, j->cur_phase, j->name);
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
    emit(s, TSCHED_SIM_EV_PHASE_END, ji, j->cur_phase, j->name);
    if (++j->cur_rep >= j->phases[j->cur_phase].repeat) {
        j->cur_rep = 0;
        j->cur_phase++;
    }
    return start_phase(s, ji);
}

/* Add (dir 1) or remove (-1) job j's routed flows to the loads other jobs' routing sees:
 * per directed trunk for the routing module, per directed unit for member choice. */
static void base_loads(tsched_sim *s, const ts_sim_job *j, int dir)
{
    for (uint32_t i = 0; i < j->nrlinks; i++) {
        uint32_t l = j->rlinks[i];
        if (l >= s->nfab)
            continue;
        s->unit_flows[l] += (uint32_t)dir;
        s->base_flows[2 * s->unit_trunk[l / 2] + l % 2] += (uint32_t)dir;
    }
}

static void release_nodes(tsched_sim *s, ts_sim_job *j)
{
    for (uint32_t k = 0; k < j->nnodes; k++) {
        uint32_t n = j->nodes[k];
        uint32_t fr = tsched_topology_node_free_gpus(s->t, n) + ts_sim_node_gpus(j, k);
        uint32_t g = tsched_topology_node_gpus(s->t, n);
        tsched_topology_set_free_gpus(s->t, n, fr > g ? g : fr);
    }
    if (j->vc_held) {
        /* cannot fail: the handle holds the job (evicted jobs were cleared by the caller) */
        (void)tsched_vclos_release(s->vc, j->name);
        j->vc_held = 0;
        s->vc_epoch++;
    }
    ts_sim_account(s, s->now);
    s->alloc_gpus -= j->used_gpus;
    /* routed flows leave the base loads of other jobs' routing */
    base_loads(s, j, -1);
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
    emit(s, TSCHED_SIM_EV_ITERATION, ji, TSCHED_NONE, j->name);
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
    emit(s, TSCHED_SIM_EV_FINISH, ji, TSCHED_NONE, j->name);
    return TSCHED_OK;
}

/* ---- placement (§3.2) ---------------------------------------------------------------------- */

/* Placements vclos, ocs-vclos, vclos-free (§3.2): the vclos handle allocates every job
 * (single-node ones too); the job's nodes are its rank order. 1 placed, 0 waits (the cause
 * as the handle gives it), -1 error. */
static int vclos_place(tsched_sim *s, ts_sim_job *j, tsched_status *err)
{
    /* the handle's answer depends only on its state: a job that failed and has seen no
     * change since fails again for the same reason (this skips the ILPs at arrivals) */
    if (j->vc_failed == s->vc_epoch + 1)
        return 0;
    tsched_vclos_outcome oc;
    tsched_status st = tsched_vclos_allocate(s->vc, j->name, j->gpus, &oc);
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    if (oc != TSCHED_VCLOS_ALLOCATED) {
        j->wait_cause = oc == TSCHED_VCLOS_WAIT_NETWORK   ? TSCHED_SIM_WAIT_NETWORK
                        : oc == TSCHED_VCLOS_WAIT_TIMEOUT ? TSCHED_SIM_WAIT_TIMEOUT
                                                          : TSCHED_SIM_WAIT_GPU;
        j->vc_failed = s->vc_epoch + 1;
        return 0;
    }
    s->vc_epoch++;
    j->vc_held = 1;
    tsched_vclos_jobinfo info = {.size = sizeof info};
    size_t n = 0;
    if ((st = tsched_vclos_job_info(&info, s->vc, j->name)) == TSCHED_OK &&
        !(j->nodes = ts_malloc(info.nodes ? info.nodes : 1, sizeof *j->nodes)))
        st = TSCHED_E_NOMEM;
    if (st == TSCHED_OK)
        st = tsched_vclos_job_nodes(j->nodes, info.nodes, &n, s->vc, j->name);
    if (st != TSCHED_OK) {
        (void)tsched_vclos_release(s->vc, j->name);
        j->vc_held = 0;
        *err = st;
        return -1;
    }
    j->nnodes = (uint32_t)n;
    j->gpn_used = info.gpus_per_node;
    return 1;
}

/* Try to give job j its nodes now; 1 placed, 0 not (cause in j->wait_cause), <0 error. */
static int try_place(tsched_sim *s, uint32_t ji, tsched_status *err)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t);
    j->ever_tried = 1;
    free(j->nodes);
    j->nodes = NULL;
    j->nnodes = 0;
    uint32_t gpn = s->gpn;
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
    if (s->vc)
        return vclos_place(s, j, err);
    if (j->gpus <= gpn) {
        /* single node: the up node with the fewest free GPUs that still fit */
        uint32_t best = TSCHED_NONE, bestf = UINT32_MAX;
        for (uint32_t n = 0; n < nn; n++) {
            if (!tsched_topology_node_is_up(t, n))
                continue;
            uint32_t f = tsched_topology_node_free_gpus(t, n);
            if (f >= j->gpus && f < bestf) {
                best = n;
                bestf = f;
            }
        }
        if (best == TSCHED_NONE) {
            j->wait_cause = TSCHED_SIM_WAIT_GPU;
            return 0;
        }
        if (!(j->nodes = ts_malloc(1, sizeof *j->nodes))) {
            *err = TSCHED_E_NOMEM;
            return -1;
        }
        j->nodes[0] = best;
        j->nnodes = 1;
        j->gpn_used = j->gpus;
        return 1;
    }
    uint32_t need = j->gpus / gpn;
    if (tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0) < need) {
        j->wait_cause = TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    if (!(j->nodes = ts_malloc(need, sizeof *j->nodes))) {
        *err = TSCHED_E_NOMEM;
        return -1;
    }
    j->gpn_used = gpn;
    int pl = s->pol[TSCHED_SIM_PLACEMENT];
    if (pl == 0) { /* first-fit: lowest-index free nodes */
        uint32_t k = 0;
        for (uint32_t n = 0; n < nn && k < need; n++)
            if (tsched_topology_node_is_free(t, n) && tsched_topology_node_gpus(t, n) == gpn)
                j->nodes[k++] = n;
        if (k < need) {
            j->wait_cause = TSCHED_SIM_WAIT_GPU;
            return 0;
        }
        j->nnodes = need;
        return 1;
    }
    static const tsched_place_algo algos[] = {TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK,  TSCHED_PLACE_TOPO_AWARE,
                                              TSCHED_PLACE_EXHAUSTIVE, TSCHED_PLACE_MIP};
    tsched_job *tj;
    tsched_status st = tsched_job_new(&tj, j->name, j->gpus, j->tp, j->pp);
    if (st == TSCHED_OK && j->has_model)
        st = tsched_job_set_model(tj, &j->model);
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = algos[pl];
    o.seed = s->seed;
    o.time_limit_ms = s->place_ms;
    o.gpus_per_node = gpn;
    tsched_placement *p = NULL;
    st = tsched_place(&p, t, tj, &o);
    tsched_job_free(tj);
    if (st == TSCHED_E_INFEASIBLE || st == TSCHED_E_TIMEOUT) {
        j->wait_cause = st == TSCHED_E_TIMEOUT ? TSCHED_SIM_WAIT_TIMEOUT : TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    if (st != TSCHED_OK) {
        *err = ts_error_prefix(st, j->name);
        return -1;
    }
    uint32_t rows = tsched_placement_rows(p), cols = tsched_placement_cols(p);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            j->nodes[c * rows + r] = tsched_placement_node(p, r, c);
    j->nnodes = rows * cols;
    tsched_placement_free(p);
    return 1;
}

static tsched_status start_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    if (!s->cr) {
        free(j->node_gpus);
        j->node_gpus = NULL;
        j->used_gpus = j->gpus;
    }
    for (uint32_t k = 0; k < j->nnodes; k++) {
        uint32_t n = j->nodes[k];
        tsched_topology_set_free_gpus(s->t, n, tsched_topology_node_free_gpus(t, n) - ts_sim_node_gpus(j, k));
    }
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
    if (s->cr) {
        /* placement crius: no flows; the Cell's iteration time is the time alone */
        j->iter_alone_s = j->cell_t;
        j->cell_start = s->now;
        j->cell_done0 = j->real_done;
    } else {
        tsched_status st = route_job(s, j);
        if (st != TSCHED_OK)
            return st;
        base_loads(s, j, 1);
        if (j->iter_alone_s == 0 && (st = alone_iteration_s(&j->iter_alone_s, s, j)) != TSCHED_OK)
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
    uint64_t left = j->iterations - j->real_done;
    if (s->max_iters && left > s->max_iters)
        j->group = (left + s->max_iters - 1) / s->max_iters; /* coarsened (§1.4) */
    j->sim_iters = (left + j->group - 1) / j->group;
    j->sim_done = 0;
    j->left_at_start = left;
    if (!s->cr) /* placement crius tells once every job of the event has its Cell */
        emit(s, TSCHED_SIM_EV_START, ji, TSCHED_NONE, j->name);
    j->cur_phase = j->cur_rep = 0;
    return start_iteration(s, ji);
}

/* ---- placement crius (§3.2) ------------------------------------------------------------------ */

/* Stop running job ji for a new Cell (or none): the iteration in progress is lost, the real
 * iterations of a coarsened one that ended before now count; its GPUs go back to the fabric. */
static void crius_stop(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    if (j->compute_running && j->cur_g > 1 && j->cell_t > 0) {
        uint64_t k0 = j->real_done - j->cell_done0, m = 0;
        double whole = floor((double)(s->now - j->cell_start) * 1e-9 / j->cell_t) - (double)k0;
        if (whole > 0)
            m = whole >= (double)(j->cur_g - 1) ? j->cur_g - 1 : (uint64_t)whole;
        /* the clock's rounding decides at the edges */
        while (m > 0 && sat_add(j->cell_start, ts_sim_ns((double)(k0 + m) * j->cell_t)) > s->now)
            m--;
        while (m + 1 < j->cur_g && sat_add(j->cell_start, ts_sim_ns((double)(k0 + m + 1) * j->cell_t)) <= s->now)
            m++;
        if (m) {
            if (j->real_done == 0 || j->cell_t < j->iter_min_s)
                j->iter_min_s = j->cell_t;
            if (j->cell_t > j->iter_max_s)
                j->iter_max_s = j->cell_t;
            j->iter_sum_s += j->cell_t * (double)m;
            j->real_done += m;
        }
    }
    if (j->compute_running)
        busy(s, j, 0);
    j->compute_running = j->comm_running = 0;
    release_nodes(s, j);
    j->gen++;
    j->state = TS_JOB_QUEUED;
    j->restarts++;
    s->running--;
}

/* The Cell and nodes the scheduler gives job ji (index ci) now; *same = 1 when they are the
 * ones it runs with. */
static tsched_status crius_assignment(const tsched_cell **cell, uint32_t *nodes, uint32_t *gpus, size_t cap,
                                      size_t *count, int *same, const tsched_sim *s, uint32_t ji, uint32_t ci)
{
    const ts_sim_job *j = &s->jobs[ji];
    tsched_status st = tsched_crius_job_cell(cell, s->cr, ci);
    if (st == TSCHED_OK)
        st = tsched_crius_job_nodes(nodes, gpus, cap, count, s->cr, ci);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "placement crius");
    const char *pool = tsched_cell_pool(*cell);
    *same = j->state == TS_JOB_RUNNING && j->cell_pool && pool && !strcmp(pool, j->cell_pool) &&
            tsched_cell_gpus(*cell) == j->cell_n && tsched_cell_num_stages(*cell) == j->cell_s && *count == j->nnodes;
    for (size_t k = 0; *same && k < *count; k++)
        *same = nodes[k] == j->nodes[k] && gpus[k] == ts_sim_node_gpus(j, (uint32_t)k);
    return TSCHED_OK;
}

/* Give job ji the Cell and nodes of the scheduler (checked against the fabric's free GPUs)
 * and start it there. */
static tsched_status crius_start(tsched_sim *s, uint32_t ji, const tsched_cell *cell, const uint32_t *nodes,
                                 const uint32_t *gpus, size_t count)
{
    ts_sim_job *j = &s->jobs[ji];
    const tsched_topology *t = s->t;
    const char *pool = tsched_cell_pool(cell);
    double it = tsched_cell_iteration_s(cell);
    uint64_t sum = 0;
    for (size_t k = 0; k < count; k++) {
        if (nodes[k] >= tsched_topology_num_nodes(t) || !tsched_topology_node_is_up(t, nodes[k]) ||
            tsched_topology_node_free_gpus(t, nodes[k]) < gpus[k])
            return ts_error(TSCHED_E_INTERNAL, "sim: placement crius gave job \"%s\" %u GPUs of node %u, which has %u "
                            "free", j->name, gpus[k], nodes[k],
                            nodes[k] < tsched_topology_num_nodes(t) ? tsched_topology_node_free_gpus(t, nodes[k]) : 0);
        sum += gpus[k];
    }
    if (!pool || count == 0 || sum != tsched_cell_gpus(cell) || !(it > 0) || !isfinite(it))
        return ts_error(TSCHED_E_INTERNAL, "sim: placement crius gave job \"%s\" a Cell of %u GPUs, %llu on its %zu "
                        "nodes, iteration %g s", j->name, tsched_cell_gpus(cell), (unsigned long long)sum, count, it);
    uint32_t *nn = ts_malloc(count, sizeof *nn), *ng = ts_malloc(count, sizeof *ng);
    char *pc = ts_strdup(pool);
    if (!nn || !ng || !pc) {
        free(nn);
        free(ng);
        free(pc);
        return TSCHED_E_NOMEM;
    }
    memcpy(nn, nodes, count * sizeof *nn);
    memcpy(ng, gpus, count * sizeof *ng);
    free(j->nodes);
    free(j->node_gpus);
    free(j->cell_pool);
    j->nodes = nn;
    j->node_gpus = ng;
    j->nnodes = (uint32_t)count;
    j->gpn_used = 0;
    j->used_gpus = (uint32_t)sum;
    j->cell_pool = pc;
    j->cell_n = tsched_cell_gpus(cell);
    j->cell_s = tsched_cell_num_stages(cell);
    j->cell_t = it;
    return start_job(s, ji);
}

tsched_status ts_sim_crius_schedule(tsched_sim *s)
{
    tsched_status st = TSCHED_OK;
    int departure = s->ncr_gone > 0;
    /* departures first (doc/sim.md §3.2), then the jobs that arrived, in arrival order */
    for (uint32_t i = 0; i < s->ncr_gone; i++)
        if ((st = tsched_crius_remove_job(s->cr, s->cr_gone[i])) != TSCHED_OK)
            return ts_error_prefix(st, "placement crius");
    s->ncr_gone = 0;
    for (uint32_t q = 0; q < s->nqueue; q++) {
        ts_sim_job *j = &s->jobs[s->queue[q]];
        if (j->cr_index != TSCHED_NONE)
            continue;
        tsched_job *tj = NULL;
        uint32_t ci = TSCHED_NONE;
        st = tsched_job_new(&tj, j->name, j->gpus, 1, 1);
        if (st == TSCHED_OK)
            st = tsched_job_set_model(tj, &j->model);
        if (st == TSCHED_OK)
            st = tsched_crius_add_job(&ci, s->cr, tj, (double)j->arrival * 1e-9);
        tsched_job_free(tj);
        if (st == TSCHED_OK && TS_GROW(s->cr_job, s->cr_job_cap, (size_t)ci + 1) != TSCHED_OK)
            st = TSCHED_E_NOMEM;
        if (st != TSCHED_OK)
            return ts_error_prefix(st, j->name);
        s->cr_job[ci] = s->queue[q];
        j->cr_index = ci;
    }
    if ((st = tsched_crius_schedule(s->cr, departure ? TSCHED_CRIUS_DEPARTURE : TSCHED_CRIUS_ARRIVAL)) != TSCHED_OK)
        return ts_error_prefix(st, "placement crius");
    s->crius_events++;
    uint32_t n = tsched_crius_num_jobs(s->cr), nn = tsched_topology_num_nodes(s->t);
    uint32_t *nodes = ts_malloc(nn ? nn : 1, sizeof *nodes), *gpus = ts_malloc(nn ? nn : 1, sizeof *gpus);
    uint8_t *go = ts_calloc(n ? n : 1, 1);
    if (!nodes || !gpus || !go)
        st = TSCHED_E_NOMEM;
    /* every running job whose Cell or nodes changed stops first, so that the GPUs it leaves
     * are free when the others start */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++) {
        uint32_t ji = s->cr_job[ci];
        ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING && j->state != TS_JOB_QUEUED)
            continue;
        if (!tsched_crius_job_running(s->cr, ci)) {
            if (j->state == TS_JOB_RUNNING) { /* the scheduler took it off: back to the queue */
                crius_stop(s, ji);
                if (TS_GROW(s->queue, s->queue_cap, (size_t)s->nqueue + 1) != TSCHED_OK) {
                    st = TSCHED_E_NOMEM;
                    break;
                }
                s->queue[s->nqueue++] = ji;
            }
            j->ever_tried = 1;
            j->wait_cause = TSCHED_SIM_WAIT_GPU;
            continue;
        }
        const tsched_cell *cell;
        size_t count = 0;
        int same = 0;
        if ((st = crius_assignment(&cell, nodes, gpus, nn, &count, &same, s, ji, ci)) != TSCHED_OK)
            break;
        if (same)
            continue;
        if (j->state == TS_JOB_RUNNING)
            crius_stop(s, ji);
        go[ci] = 1;
    }
    /* then they start in their new Cells, and the new jobs in theirs, in queue order */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++) {
        if (!go[ci])
            continue;
        const tsched_cell *cell;
        size_t count = 0;
        int same = 0;
        if ((st = crius_assignment(&cell, nodes, gpus, nn, &count, &same, s, s->cr_job[ci], ci)) == TSCHED_OK)
            st = crius_start(s, s->cr_job[ci], cell, nodes, gpus, count);
    }
    /* callbacks see the state after the whole event: every job in its new Cell */
    for (uint32_t ci = 0; ci < n && st == TSCHED_OK; ci++)
        if (go[ci])
            emit(s, TSCHED_SIM_EV_START, s->cr_job[ci], TSCHED_NONE, s->jobs[s->cr_job[ci]].name);
    free(nodes);
    free(gpus);
    free(go);
    /* the queue keeps the jobs still waiting, in their order */
    uint32_t w = 0;
    for (uint32_t q = 0; q < s->nqueue; q++)
        if (s->jobs[s->queue[q]].state == TS_JOB_QUEUED)
            s->queue[w++] = s->queue[q];
    s->nqueue = w;
    return st;
}

/* ---- priorities (§3.4) ---------------------------------------------------------------------- */

/* The fabric path of routed flow rf (NIC links first and last, fabric links between).
 * Returns 0 when a link is no trunk or member (an OCS circuit, the dead link): no path;
 * 2 when the flow crosses only its NIC links between two leaves (routing `ideal`: the
 * fabric as one big switch), which no switch path can say; else 1. */
static int rflow_path(tsched_path *p, const tsched_sim *s, const ts_sim_job *j, const ts_sim_rflow *rf)
{
    const uint32_t *l = j->rlinks + rf->link_off;
    for (uint32_t k = 1; k + 1 < rf->nlinks; k++)
        if (l[k] >= s->nfab)
            return 0;
    uint32_t sw = tsched_topology_node_nic_leaf(s->t, rf->src, rf->src_nic);
    if (rf->nlinks == 2 && sw != tsched_topology_node_nic_leaf(s->t, rf->dst, rf->dst_nic))
        return 2;
    p->nswitches = 1;
    p->switches[0] = sw;
    for (uint32_t k = 1; k + 1 < rf->nlinks; k++) {
        uint32_t tr = s->unit_trunk[l[k] / 2];
        sw = l[k] % 2 == 0 ? tsched_topology_trunk_upper(s->t, tr) : tsched_topology_trunk_lower(s->t, tr);
        p->links[p->nswitches - 1] = 2 * tr + l[k] % 2;
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
 * flows of one iteration pinned to the paths they use now. The priority module accepts
 * narrower ranges than a trace (doc/priority.md: compute_ms [1e-6, 1e9], gbits [1e-6,
 * 1e12], work_tflop [1e-6, 1e12]); its answers depend only on the ratios of the times
 * (compute and transfer) and of the works, so all compute times and volumes are scaled by
 * one power of two and all works by another until they fit: exact, the same levels and
 * intensity order. Values that still do not fit (a set spanning more decades than the
 * range) are clamped to the range's ends. */
static tsched_status running_jobset(tsched_sim *s, tsched_jobset **out, uint32_t **which_out, uint32_t *n_out)
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
                if (j->rlinks[rf->link_off + 1] == s->dead)
                    continue; /* a stalled flow has no path to pin */
                tsched_path path;
                memset(&path, 0xff, sizeof path);
                path.size = sizeof path;
                double g = fit(rf->gbits * j->phases[p].repeat, kt, TSCHED_JOBSET_GBITS_MIN, TSCHED_JOBSET_GBITS_MAX);
                /* an OCS circuit is no fabric path: the flow goes in unpinned; a flow of
                 * routing `ideal` loads its NIC links only */
                int pinned = rflow_path(&path, s, j, rf);
                if (pinned == 2)
                    st = tsched_jobset_add_nic_flow(js, idx, rf->src, rf->src_nic, rf->dst, rf->dst_nic, g);
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

/* CRUX, Sincronia or Varys over the running jobs, with their flows of one iteration on the
 * paths they use; the levels apply at once to flows in flight. */
static tsched_status reprioritize(tsched_sim *s)
{
    int pol = s->pol[TSCHED_SIM_PRIORITY];
    if (pol < 2 || s->cr) /* placement crius: no flows to prioritise */
        return TSCHED_OK;
    tsched_jobset *js;
    uint32_t *which, n;
    tsched_status st = running_jobset(s, &js, &which, &n);
    if (st != TSCHED_OK)
        return st;
    tsched_priorities *pr = NULL;
    if (st == TSCHED_OK && n > 0) {
        static const tsched_kcut_algo algos[] = {TSCHED_KCUT_CRUX, TSCHED_KCUT_SINCRONIA, TSCHED_KCUT_VARYS};
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.algo = algos[pol - 2];
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

static tsched_status reroute_job(tsched_sim *s, uint32_t ji);

/* reroute "refresh" (CRUX §5): every running job's flows are routed again, most GPU-intense
 * job first (CRUX Def. 2 on the current paths; ties by start, then trace order). */
static tsched_status refresh_paths(tsched_sim *s)
{
    if (s->pol[TSCHED_SIM_REROUTE] != 1 || s->running == 0 || s->cr)
        return TSCHED_OK;
    tsched_jobset *js;
    uint32_t *which, n;
    tsched_status st = running_jobset(s, &js, &which, &n);
    if (st != TSCHED_OK)
        return st;
    tsched_priorities *pr = NULL;
    double *key = ts_malloc(n ? n : 1, sizeof *key);
    if (!key)
        st = TSCHED_E_NOMEM;
    if (st == TSCHED_OK && n > 0)
        st = tsched_prioritize(&pr, s->t, js, NULL);
    for (uint32_t k = 0; st == TSCHED_OK && k < n; k++)
        key[k] = tsched_priorities_intensity(pr, k);
    /* insertion sort of `which` by (intensity desc, start asc, index asc) */
    for (uint32_t i = 1; st == TSCHED_OK && i < n; i++) {
        uint32_t w = which[i], k = i;
        double kv = key[i];
        while (k > 0) {
            uint32_t p = which[k - 1];
            int before = kv > key[k - 1] ||
                         (kv == key[k - 1] && (s->jobs[w].start < s->jobs[p].start ||
                                                (s->jobs[w].start == s->jobs[p].start && w < p)));
            if (!before)
                break;
            which[k] = p;
            key[k] = key[k - 1];
            k--;
        }
        which[k] = w;
        key[k] = kv;
    }
    for (uint32_t k = 0; st == TSCHED_OK && k < n; k++)
        st = reroute_job(s, which[k]);
    tsched_priorities_free(pr);
    tsched_jobset_free(js);
    free(which);
    free(key);
    return st;
}

/* ---- the queue (§3.1) --------------------------------------------------------------------- */

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
    if (s->cr)
        return ts_sim_crius_schedule(s);
    if (s->pol[TSCHED_SIM_QUEUE] == 1) { /* ff: smallest first, every job that fits */
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
            st = start_job(s, ji);
            continue;
        }
        s->queue[w++] = ji;
        if (s->pol[TSCHED_SIM_QUEUE] == 0)
            blocked = 1; /* fifo: the head blocks the others */
    }
    s->nqueue = w;
    return st;
}

/* ---- failures (§3.5) ------------------------------------------------------------------------ */

static void stop_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    for (uint32_t fi = 0; fi < s->nflow; fi++) {
        ts_sim_flow *f = &s->flow[fi];
        if (f->active && f->job == ji) {
            ts_sim_settle(s, f);
            j->gbits_demanded -= f->remaining; /* dropped from the demand */
            ts_sim_flow_remove(s, fi);
        }
    }
    if (j->compute_running)
        busy(s, j, 0);
    j->compute_running = j->comm_running = 0;
    release_nodes(s, j);
    j->gen++;
    j->state = TS_JOB_QUEUED;
    j->restarts++;
    s->running--;
    /* back to the head of the queue */
    if (TS_GROW(s->queue, s->queue_cap, (size_t)s->nqueue + 1) == TSCHED_OK) {
        memmove(s->queue + 1, s->queue, s->nqueue * sizeof *s->queue);
        s->queue[0] = ji;
        s->nqueue++;
    }
}

/* Route job ji again with the current policy and loads; its flows in flight move to their
 * new paths with their remaining bits. */
static tsched_status reroute_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    uint32_t *old = j->rlinks;
    ts_sim_rflow *oldf = j->rflows;
    uint32_t nold = j->nrflows;
    base_loads(s, j, -1);
    j->rlinks = NULL;
    j->rflows = NULL;
    tsched_status st = route_job(s, j);
    if (st != TSCHED_OK) {
        free(old);
        free(oldf);
        return st;
    }
    base_loads(s, j, 1);
    /* the job's flows in flight (listed first: moving one may reuse its pool slot) point into
     * `old`: move each to the same flow's new links */
    uint32_t nmine = 0, *mine = ts_malloc(s->nflow ? s->nflow : 1, sizeof *mine);
    if (!mine) {
        free(old);
        free(oldf);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t fi = 0; fi < s->nflow; fi++)
        if (s->flow[fi].active && s->flow[fi].job == ji)
            mine[nmine++] = fi;
    for (uint32_t q0 = 0; q0 < nmine && st == TSCHED_OK; q0++) {
        uint32_t fi = mine[q0];
        ts_sim_flow *f = &s->flow[fi];
        size_t off = (size_t)(f->links - old);
        uint32_t idx = 0;
        for (uint32_t q = 0; q < nold; q++)
            if (oldf[q].link_off == off)
                idx = q;
        ts_sim_settle(s, f);
        double rem = f->remaining, gb = f->gbits;
        ts_sim_flow_remove(s, fi);
        ts_sim_rflow rf = j->rflows[idx];
        rf.gbits = gb;
        uint32_t nf;
        if ((st = ts_sim_flow_start(&nf, s, ji, &rf, j->rlinks + rf.link_off)) == TSCHED_OK)
            s->flow[nf].remaining = rem;
    }
    free(mine);
    free(old);
    free(oldf);
    return st;
}

/* A failure or repair goes to the vclos handle too (§3.2, §3.5): the jobs it evicted (it
 * released them) and those it could not repair are stopped and requeued as a node loss is
 * (the degraded ones released first); repaired jobs take their new reserved routes. */
static tsched_status vclos_failure(tsched_sim *s, const char *name, int up)
{
    tsched_status st = tsched_vclos_set_up(s->vc, name, up);
    s->vc_epoch++;
    if (st != TSCHED_OK)
        return ts_error_prefix(st, "failures");
    size_t n = 0;
    st = tsched_vclos_changes(NULL, NULL, 0, &n, s->vc);
    if (st != TSCHED_OK && st != TSCHED_E_BUFFER)
        return st;
    if (n == 0)
        return TSCHED_OK;
    const char **names = ts_malloc(n, sizeof *names);
    tsched_vclos_change *what = ts_malloc(n, sizeof *what);
    uint32_t *idx = ts_malloc(n, sizeof *idx);
    if (!names || !what || !idx)
        st = TSCHED_E_NOMEM;
    else
        st = tsched_vclos_changes(names, what, n, &n, s->vc);
    /* job indices first: the names are the handle's and releases change it */
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        idx[i] = TSCHED_NONE;
        for (uint32_t k = 0; k < s->njobs && idx[i] == TSCHED_NONE; k++)
            if (s->jobs[k].state == TS_JOB_RUNNING && !strcmp(s->jobs[k].name, names[i]))
                idx[i] = k;
        if (idx[i] == TSCHED_NONE)
            st = ts_error(TSCHED_E_INTERNAL, "sim: the vclos handle changed job \"%s\", which is not running",
                          names[i]);
    }
    for (size_t i = 0; i < n && st == TSCHED_OK; i++) {
        ts_sim_job *j = &s->jobs[idx[i]];
        if (j->state != TS_JOB_RUNNING)
            continue;
        if (what[i] == TSCHED_VCLOS_EVICTED)
            j->vc_held = 0; /* the handle has released it */
        if (what[i] == TSCHED_VCLOS_REPAIRED)
            st = reroute_job(s, idx[i]);
        else
            stop_job(s, idx[i]);
    }
    free(names);
    free(what);
    free(idx);
    return st;
}

/* After a state change: jobs that lost a node restart; flows whose path lost a link are
 * re-routed with the job's whole routing redone for phases not yet started. */
static tsched_status after_failure(tsched_sim *s)
{
    for (uint32_t ji = 0; ji < s->njobs; ji++) {
        ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING)
            continue;
        int lost = 0;
        for (uint32_t k = 0; k < j->nnodes && !lost; k++)
            lost = !tsched_topology_node_is_up(s->t, j->nodes[k]);
        if (lost) {
            stop_job(s, ji);
            continue;
        }
        int broken = 0;
        for (uint32_t i = 0; i < j->nrlinks && !broken; i++)
            broken = s->link[j->rlinks[i]].cap <= 0;
        if (!broken)
            continue;
        tsched_status st = reroute_job(s, ji);
        if (st != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
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
        emit(s, TSCHED_SIM_EV_ARRIVE, e->a, TSCHED_NONE, j->name);
        break;
    }
    case TS_EV_COMPUTE_END: {
        ts_sim_job *j = &s->jobs[e->a];
        if (e->b != j->gen || !j->compute_running)
            break;
        busy(s, j, 0);
        j->compute_running = 0;
        st = end_iteration_if_done(s, e->a);
        break;
    }
    case TS_EV_RELEASE: {
        ts_sim_job *j = &s->jobs[e->a];
        if (e->b != j->gen)
            break;
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
    case TS_EV_FAILURE: {
        const ts_sim_failure *fl = &s->failures[e->a];
        ts_sim_account(s, s->now);
        st = tsched_topology_set_up(s->t, fl->name, fl->up);
        if (st == TSCHED_OK)
            st = ts_sim_refresh_caps(s);
        if (st == TSCHED_OK && s->vc)
            st = vclos_failure(s, fl->name, fl->up);
        if (st == TSCHED_OK)
            st = after_failure(s);
        if (fl->up)
            s->pending_sched = 1;
        emit(s, TSCHED_SIM_EV_FAILURE, TSCHED_NONE, TSCHED_NONE, fl->name);
        break;
    }
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
