/* The network model (doc/sim.md §3.1, §6): directed links and their capacities, each job's
 * flows routed onto them (NIC links, fabric links or member links, by the routing policy's
 * row, sim_policy.h), the loads routing sees, a job's iteration time alone, and moving a
 * running job's flows to new paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/rng.h"
#include "sim_internal.h"

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
        int member = ts_sim_link_mode(s)->members;
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
    ts_sim_host_caps(s);
    return TSCHED_OK;
}

/* ---- routing a job's flows ---------------------------------------------------------------- */

static uint32_t nic_link(const tsched_sim *s, uint32_t node, uint32_t nic, int down)
{
    return s->nfab + 2 * (s->nic_base[node] + nic) + (uint32_t)down;
}

/* Append one routed flow with its links: NIC up, the path's fabric links, NIC down, and with
 * host_links the PCIe switch links of both NICs last (ts_sim_rflow_net). */
static tsched_status add_rflow(tsched_sim *s, ts_sim_job *j, size_t *cap_rf, size_t *cap_rl, uint32_t src,
                               uint32_t src_nic, uint32_t dst, uint32_t dst_nic, double gbits, const uint32_t *plinks,
                               uint32_t nplinks)
{
    if (TS_GROW(j->rflows, *cap_rf, (size_t)j->nrflows + 1) != TSCHED_OK ||
        TS_GROW(j->rlinks, *cap_rl, (size_t)j->nrlinks + nplinks + 4) != TSCHED_OK)
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
    rf->nhost = 0;
    if (s->host_on) {
        j->rlinks[j->nrlinks++] = ts_sim_pcie_link(s, src, src_nic, 0);
        j->rlinks[j->nrlinks++] = ts_sim_pcie_link(s, dst, dst_nic, 1);
        rf->nlinks += rf->nhost = 2;
    }
    return TSCHED_OK;
}

/* host_links: a single-node job's dp-ring phase over its GPUs, rank r to rank r + 1, each
 * flow on the host links between the two GPUs (NVLink, or PCIe without it). */
static tsched_status add_inner_flows(tsched_sim *s, ts_sim_job *j, const ts_sim_phase *ph, size_t *cap_rf,
                                     size_t *cap_rl)
{
    uint32_t R = j->gpus;
    if (!s->host_on || j->nnodes != 1 || ph->pattern != TSCHED_PATTERN_DP_RING || R < 2 || !j->gpu_ids)
        return TSCHED_OK;
    double gb;
    tsched_status st = ts_sim_inner_gbits(&gb, j, ph, R);
    if (st != TSCHED_OK)
        return st;
    uint32_t n = j->nodes[0], base = s->gpu_base[n];
    for (uint32_t r = 0; r < R; r++) {
        if (TS_GROW(j->rflows, *cap_rf, (size_t)j->nrflows + 1) != TSCHED_OK ||
            TS_GROW(j->rlinks, *cap_rl, (size_t)j->nrlinks + 2) != TSCHED_OK)
            return TSCHED_E_NOMEM;
        ts_sim_rflow *rf = &j->rflows[j->nrflows++];
        rf->src = rf->dst = n;
        rf->src_nic = rf->dst_nic = 0;
        rf->gbits = gb;
        rf->link_off = j->nrlinks;
        rf->nlinks = rf->nhost = ts_sim_host_inner(s, n, j->gpu_ids[r] - base, j->gpu_ids[(r + 1) % R] - base,
                                                   j->rlinks + j->nrlinks);
        j->nrlinks += rf->nlinks;
    }
    return TSCHED_OK;
}


/* The directed unit link a flow takes on directed trunk link `tl` (2 * trunk + d): the trunk
 * itself in trunk mode; in member mode (§2.1) the member by the flow's ECMP hash for ecmp,
 * uniformly among the least-loaded members for balanced-ecmp, else the least-loaded member
 * with ties to the lowest k; loads are the running jobs' flows plus this phase's so far. */
static uint32_t pick_unit(tsched_sim *s, uint32_t tl, uint64_t hash, int pick)
{
    uint32_t tr = tl / 2, d = tl % 2, a = s->unit_base[tr], n = s->unit_base[tr + 1] - a, k = 0;
    if (n > 1) {
        if (pick == TS_PICK_HASH) {
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
            if (pick == TS_PICK_BALANCED && ties > 1) { /* balanced: a seeded uniform choice among the ties */
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

/* The flows of one phase of job j as a tsched_flows (node indices of the fabric). */
static tsched_status phase_flows(tsched_flows **out, tsched_sim *s, ts_sim_job *j, const ts_sim_phase *ph)
{
    tsched_flows *f;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        return st;
    int split = 0;
    if ((st = ts_sim_host_phase(&split, s, j, ph, f)) != TSCHED_OK || split) {
        /* a split job's ring (host.c) */
    } else if (ph->pattern >= 0) {
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


/* Route every phase of job j (§3.3) into j->rflows / j->rlinks: pinned hops as given, else
 * the routing policy's row (sim_policy.h); trunk links then take a member (pick_unit). */
tsched_status ts_sim_route_job(tsched_sim *s, ts_sim_job *j)
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
    const ts_sim_route_ops *rt = ts_sim_routing(s);
    tsched_status st = TSCHED_OK;
    if (rt->job)
        rt->job(s, j, 1);
    for (uint32_t p = 0; p < j->nphases && st == TSCHED_OK; p++) {
        const ts_sim_phase *ph = &j->phases[p];
        j->phase_rf_off[p] = j->nrflows;
        tsched_flows *f = NULL;
        if ((st = phase_flows(&f, s, j, ph)) != TSCHED_OK)
            break;
        uint32_t n = tsched_flows_count(f);
        /* a fixed mix of seed, job and phase: with the flow's index, its ECMP hash (§3.3) */
        uint64_t o_seed = s->seed * 0x9E3779B97F4A7C15ull;
        for (const char *c = j->name; *c; c++)
            o_seed = (o_seed ^ (uint8_t)*c) * 0x100000001B3ull;
        o_seed ^= ((uint64_t)p + 1) * 0xBF58476D1CE4E5B9ull;
        ts_sim_route_ctx c = {s, j, f, o_seed, NULL, 0};
        if (rt->phase && n > 0 && (st = rt->phase(&c, rt)) != TSCHED_OK) {
            tsched_flows_free(f);
            break;
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
            } else if (c.stalled) {
                plinks[np++] = s->dead;
            } else {
                if ((st = rt->flow(&np, plinks, &c, i)) != TSCHED_OK)
                    break;
                if (rt->sim_links) {
                    st = add_rflow(s, j, &cap_rf, &cap_rl, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                                   tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i), gb, plinks, np);
                    continue;
                }
            }
            for (uint32_t h = 0; h < np && !c.stalled; h++)
                plinks[h] = pick_unit(s, plinks[h], o_seed ^ ((uint64_t)i + 1) * 0x94D049BB133111EBull, rt->pick);
            st = add_rflow(s, j, &cap_rf, &cap_rl, tsched_flows_src(f, i), tsched_flows_src_nic(f, i),
                           tsched_flows_dst(f, i), tsched_flows_dst_nic(f, i), gb, plinks, np);
        }
        tsched_routes_free(c.r);
        tsched_flows_free(f);
        if (st == TSCHED_OK)
            st = add_inner_flows(s, j, ph, &cap_rf, &cap_rl);
        /* the next phase of this job never runs with this one: forget its member counts */
        for (uint32_t i = j->phase_rf_off[p]; i < j->nrflows; i++) {
            const ts_sim_rflow *rf = &j->rflows[i];
            for (uint32_t k = 0; k < rf->nlinks; k++)
                if (j->rlinks[rf->link_off + k] < s->nfab)
                    s->phase_cnt[j->rlinks[rf->link_off + k]] = 0;
        }
    }
    if (rt->job)
        rt->job(s, j, 0);
    if (st == TSCHED_OK)
        j->phase_rf_off[j->nphases] = j->nrflows;
    return st;
}

/* Add (dir 1) or remove (-1) job j's routed flows to the loads other jobs' routing sees:
 * per directed trunk for the routing module, per directed unit for member choice. */
void ts_sim_base_loads(tsched_sim *s, const ts_sim_job *j, int dir)
{
    for (uint32_t i = 0; i < j->nrlinks; i++) {
        uint32_t l = j->rlinks[i];
        if (l >= s->nfab)
            continue;
        s->unit_flows[l] += (uint32_t)dir;
        s->base_flows[2 * s->unit_trunk[l / 2] + l % 2] += (uint32_t)dir;
    }
}

/* ---- iteration time alone (§1.4) ---------------------------------------------------------- */

/* The job's iteration time alone on the fabric at its placement: computation, and every
 * phase at the max-min rates its flows get with no other traffic (its time is its slowest
 * flow's), on the same links and capacities the run uses. */
tsched_status ts_sim_alone_iteration_s(double *out, tsched_sim *s, ts_sim_job *j)
{
    double comm = 0;
    for (uint32_t p = 0; p < j->nphases; p++) {
        uint32_t a = j->phase_rf_off[p], b = j->phase_rf_off[p + 1];
        size_t n = b - a;
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
        }
        if ((st = ts_sim_maxmin(s, n, s->fl, s->fn, s->lev, s->rate_scratch)) != TSCHED_OK)
            return st;
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double r = s->rate_scratch[i];
            double tt = r > 0 ? ceil(1e9 * j->rflows[a + i].gbits / r) : INFINITY;
            if (tt > worst)
                worst = tt;
        }
        comm += (worst + (double)s->latency) * j->phases[p].repeat;
    }
    double c = (double)j->compute, rel = nearbyint((1 - j->overlap) * (double)j->compute);
    double it = rel + comm > c ? rel + comm : c;
    *out = it * 1e-9;
    return TSCHED_OK;
}

/* Route job ji again with the current policy and loads; its flows in flight move to their
 * new paths with their remaining bits. */
tsched_status ts_sim_reroute_job(tsched_sim *s, uint32_t ji)
{
    ts_sim_job *j = &s->jobs[ji];
    uint32_t *old = j->rlinks;
    ts_sim_rflow *oldf = j->rflows;
    uint32_t nold = j->nrflows;
    ts_sim_base_loads(s, j, -1);
    j->rlinks = NULL;
    j->rflows = NULL;
    tsched_status st = ts_sim_route_job(s, j);
    if (st != TSCHED_OK) {
        free(old);
        free(oldf);
        return st;
    }
    ts_sim_base_loads(s, j, 1);
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
