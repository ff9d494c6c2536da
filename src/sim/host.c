/* Shared nodes and host-internal links (doc/sim.md "Shared nodes and host-internal links"):
 * which jobs may take part of a node and where they go, the GPU table that says which GPUs
 * of a node each job holds, the PCIe and NVLink links of every node, a split job's ring over
 * its node segments and a single-node job's ring over its GPUs. Both parts are opt-in
 * (scenario `shared_nodes`, `host_links`): with neither, nothing here runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

tsched_status ts_sim_set_host(tsched_sim *s, int shared, int host, double pcie_gbps, double nvlink_gbps)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "ts_sim_set_host: sim is NULL");
    if (s->started)
        return ts_error(TSCHED_E_STATE, "shared_nodes, host_links: the run has started; options are fixed");
    if (host > 0 && !(pcie_gbps > 0 && isfinite(pcie_gbps)))
        return ts_error(TSCHED_E_RANGE, "host_links.pcie_gbps: %.17g is not a positive finite number", pcie_gbps);
    if (host > 0 && !(nvlink_gbps >= 0 && isfinite(nvlink_gbps)))
        return ts_error(TSCHED_E_RANGE, "host_links.nvlink_gbps: %.17g is not a finite number >= 0", nvlink_gbps);
    if (shared >= 0)
        s->shared_nodes = shared != 0;
    if (host >= 0) {
        s->host_on = host != 0;
        s->pcie_gbps = host ? pcie_gbps : 0;
        s->nvlink_gbps = host ? nvlink_gbps : 0;
    }
    return TSCHED_OK;
}

/* ---- the layout ---------------------------------------------------------------------------- */

tsched_status ts_sim_host_layout(tsched_sim *s, uint64_t *count)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t);
    *count = 0;
    s->host_base = s->ocs_base + 2 * s->nocs;
    if (!s->shared_nodes && !s->host_on)
        return TSCHED_OK;
    free(s->gpu_base);
    free(s->host_lbase);
    free(s->gpu_owner);
    s->gpu_owner = NULL;
    if (!(s->gpu_base = ts_malloc((size_t)nn + 1, sizeof *s->gpu_base)) ||
        !(s->host_lbase = ts_malloc((size_t)nn + 1, sizeof *s->host_lbase)))
        return TSCHED_E_NOMEM;
    uint64_t gpus = 0, links = 0;
    for (uint32_t n = 0; n < nn; n++) {
        s->gpu_base[n] = (uint32_t)gpus;
        s->host_lbase[n] = (uint32_t)links;
        gpus += tsched_topology_node_gpus(t, n);
        /* per node: a PCIe switch link each way per NIC, an NVLink link each way per GPU */
        links += 2 * (uint64_t)tsched_topology_node_nics(t, n) + 2 * (uint64_t)tsched_topology_node_gpus(t, n);
        if (gpus > UINT32_MAX / 2 || links > UINT32_MAX / 4)
            return ts_error(TSCHED_E_TOO_LARGE, "host_links: more than %u GPUs or host links", UINT32_MAX / 4);
    }
    s->gpu_base[nn] = (uint32_t)gpus;
    s->host_lbase[nn] = (uint32_t)links;
    if (!(s->gpu_owner = ts_malloc(gpus ? gpus : 1, sizeof *s->gpu_owner)))
        return TSCHED_E_NOMEM;
    for (uint64_t g = 0; g < gpus; g++)
        s->gpu_owner[g] = TSCHED_NONE;
    *count = s->host_on ? links : 0;
    return TSCHED_OK;
}

static uint32_t nvlink_link(const tsched_sim *s, uint32_t n, uint32_t g, int in)
{
    return s->host_base + s->host_lbase[n] + 2 * tsched_topology_node_nics(s->t, n) + 2 * g + (uint32_t)in;
}

void ts_sim_host_caps(tsched_sim *s)
{
    if (!s->host_on)
        return;
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t);
    for (uint32_t n = 0; n < nn; n++) {
        int up = tsched_topology_node_is_up(t, n);
        for (uint32_t l = s->host_lbase[n]; l < s->host_lbase[n + 1]; l++) {
            uint32_t id = s->host_base + l;
            int pcie = l - s->host_lbase[n] < 2 * tsched_topology_node_nics(t, n);
            double c = !up ? 0 : pcie ? s->pcie_gbps : s->nvlink_gbps;
            if (s->link[id].cap != c) {
                s->link[id].cap = c;
                if (s->started)
                    ts_sim_touch(s, id);
            }
        }
    }
}

/* The NIC nearest GPU g of a node of `gpus` GPUs and `nics` NICs (rail-optimised hosts: GPU
 * g sits on the PCIe switch of NIC floor(g * nics / gpus)). */
static uint32_t gpu_nic(uint32_t g, uint32_t gpus, uint32_t nics)
{
    return gpus ? (uint32_t)((uint64_t)g * nics / gpus) : 0;
}

uint32_t ts_sim_host_inner(const tsched_sim *s, uint32_t n, uint32_t a, uint32_t b, uint32_t *out)
{
    if (s->nvlink_gbps > 0) {
        out[0] = nvlink_link(s, n, a, 0);
        out[1] = nvlink_link(s, n, b, 1);
        return 2;
    }
    /* no NVLink: up through GPU a's PCIe switch, down through GPU b's */
    uint32_t g = tsched_topology_node_gpus(s->t, n), k = tsched_topology_node_nics(s->t, n);
    out[0] = ts_sim_pcie_link(s, n, gpu_nic(a, g, k), 0);
    out[1] = ts_sim_pcie_link(s, n, gpu_nic(b, g, k), 1);
    return 2;
}

/* ---- rules at the run's start --------------------------------------------------------------- */

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

tsched_status ts_sim_host_rules(tsched_sim *s, uint32_t i)
{
    ts_sim_job *j = &s->jobs[i];
    const ts_sim_place_ops *pl = ts_sim_placement(s);
    j->split = 0;
    if (!s->shared_nodes && !s->host_on)
        return TSCHED_OK;
    if (ts_sim_cells(s))
        return ts_error(TSCHED_E_INVALID, "%s: placement \"crius\" runs jobs without flows; it has no shared nodes "
                        "or host links", s->shared_nodes ? "shared_nodes" : "host_links");
    if (!s->shared_nodes)
        return TSCHED_OK;
    if (pl->place != ts_sim_place_first_fit && strcmp(pl->name, "best-fit") != 0)
        return ts_error(TSCHED_E_INVALID, "shared_nodes: placement \"%s\" places whole nodes; shared nodes need "
                        "\"first-fit\" or \"best-fit\"", pl->name);
    /* a split job is one DP ring over its node segments: no pipeline, no other pattern */
    int ring = !j->nfixed && j->pp <= 1;
    for (uint32_t p = 0; ring && p < j->nphases; p++)
        ring = j->phases[p].pattern == TSCHED_PATTERN_DP_RING;
    j->split = ring;
    if (ring && !j->tp && j->gpus % s->gpn != 0)
        j->tp = gcd32(j->gpus, s->gpn); /* TP inside the GPUs every full node and the rest hold */
    return TSCHED_OK;
}

/* ---- placement ------------------------------------------------------------------------------ */

int ts_sim_place_split(tsched_sim *s, ts_sim_job *j, int first_fit, tsched_status *err)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t), gpn = s->gpn;
    if (!s->shared_nodes || !j->split || j->gpus <= gpn)
        return 2;
    /* a multiple of the node size takes whole nodes when enough are free (today's rows) */
    if (j->gpus % gpn == 0 && tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0) >= j->gpus / gpn)
        return 2;
    uint64_t avail = 0;
    for (uint32_t n = 0; n < nn; n++)
        if (tsched_topology_node_is_up(t, n))
            avail += tsched_topology_node_free_gpus(t, n);
    if (avail < j->gpus) {
        j->wait_cause = TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    uint32_t *nodes = ts_malloc(nn ? nn : 1, sizeof *nodes), *cnt = ts_malloc(nn ? nn : 1, sizeof *cnt);
    uint8_t *taken = ts_calloc(nn ? nn : 1, 1);
    if (!nodes || !cnt || !taken) {
        free(nodes);
        free(cnt);
        free(taken);
        *err = TSCHED_E_NOMEM;
        return -1;
    }
    uint32_t k = 0, left = j->gpus;
    while (left > 0) {
        uint32_t pick = TSCHED_NONE;
        if (first_fit) { /* the lowest-index node with free GPUs */
            for (uint32_t n = 0; n < nn && pick == TSCHED_NONE; n++)
                if (!taken[n] && tsched_topology_node_is_up(t, n) && tsched_topology_node_free_gpus(t, n) > 0)
                    pick = n;
        } else { /* the fewest free GPUs that hold the rest, else the most free (ties: lowest index) */
            uint32_t fit = TSCHED_NONE, fitf = UINT32_MAX, most = TSCHED_NONE, mostf = 0;
            for (uint32_t n = 0; n < nn; n++) {
                uint32_t f = tsched_topology_node_is_up(t, n) && !taken[n] ? tsched_topology_node_free_gpus(t, n) : 0;
                if (f >= left && f < fitf) {
                    fit = n;
                    fitf = f;
                }
                if (f > mostf) {
                    most = n;
                    mostf = f;
                }
            }
            pick = fit != TSCHED_NONE ? fit : most;
        }
        /* cannot happen: `avail` covers the job */
        if (pick == TSCHED_NONE)
            break;
        uint32_t f = tsched_topology_node_free_gpus(t, pick), take = f < left ? f : left;
        taken[pick] = 1;
        nodes[k] = pick;
        cnt[k++] = take;
        left -= take;
    }
    free(taken);
    if (left > 0) {
        free(nodes);
        free(cnt);
        j->wait_cause = TSCHED_SIM_WAIT_GPU;
        return 0;
    }
    j->nodes = nodes;
    j->nnodes = k;
    j->node_gpus = cnt;
    j->gpn_used = 0;
    return 1;
}

/* ---- the GPU table ---------------------------------------------------------------------------- */

tsched_status ts_sim_host_gpus(tsched_sim *s, ts_sim_job *j, int on)
{
    if (!s->gpu_owner)
        return TSCHED_OK;
    uint32_t ji = (uint32_t)(j - s->jobs);
    if (!on) {
        for (uint32_t r = 0; j->gpu_ids && r < j->gpus; r++)
            if (s->gpu_owner[j->gpu_ids[r]] == ji)
                s->gpu_owner[j->gpu_ids[r]] = TSCHED_NONE;
        return TSCHED_OK;
    }
    free(j->gpu_ids);
    uint32_t total = 0;
    for (uint32_t k = 0; k < j->nnodes; k++)
        total += ts_sim_node_gpus(j, k);
    if (!(j->gpu_ids = ts_malloc(total ? total : 1, sizeof *j->gpu_ids)))
        return TSCHED_E_NOMEM;
    uint32_t r = 0;
    for (uint32_t k = 0; k < j->nnodes; k++) {
        uint32_t n = j->nodes[k], want = ts_sim_node_gpus(j, k);
        for (uint32_t g = s->gpu_base[n]; g < s->gpu_base[n + 1] && want > 0; g++)
            if (s->gpu_owner[g] == TSCHED_NONE) {
                s->gpu_owner[g] = ji;
                j->gpu_ids[r++] = g;
                want--;
            }
    }
    /* the topology's free counts and the table agree, so every GPU is found; a shortfall
     * (a bug) leaves the last ranks on the node's first GPU rather than reading past */
    for (; r < total; r++)
        j->gpu_ids[r] = s->gpu_base[j->nodes[0]];
    return TSCHED_OK;
}

/* ---- flows ---------------------------------------------------------------------------------- */

/* The NICs nearest the GPUs of job j on its k-th node (ranks from r0), distinct, ascending. */
static uint32_t segment_nics(const tsched_sim *s, const ts_sim_job *j, uint32_t k, uint32_t r0, uint32_t *out)
{
    uint32_t n = j->nodes[k], g = tsched_topology_node_gpus(s->t, n), nics = tsched_topology_node_nics(s->t, n);
    uint32_t m = 0;
    for (uint32_t r = r0; r < r0 + ts_sim_node_gpus(j, k); r++) {
        uint32_t nic = gpu_nic(j->gpu_ids[r] - s->gpu_base[n], g, nics);
        if (m == 0 || out[m - 1] != nic) /* GPUs ascend, so their NICs do */
            out[m++] = nic;
    }
    return m;
}

/* A ring's per-flow volume from the model: 2 (R - 1) / R of the gradient data `grad`
 * (elements, fp32: doc/workload.md "Flows"). */
static tsched_status model_ring_gbits(double *out, const ts_sim_job *j, double share, uint32_t ring)
{
    tsched_job *tj = NULL;
    tsched_volumes v = {.size = sizeof v};
    tsched_status st = tsched_job_new(&tj, j->name, j->gpus, j->tp && j->gpus % j->tp == 0 ? j->tp : 1, 1);
    if (st == TSCHED_OK)
        st = j->has_model ? tsched_job_set_model(tj, &j->model)
                          : ts_error(TSCHED_E_NOT_FOUND, "gbits: not given and no model for the volumes");
    if (st == TSCHED_OK)
        st = tsched_job_volumes(&v, tj);
    tsched_job_free(tj);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, j->name);
    *out = v.dp * share * 2.0 * (ring - 1) / ring * 4.0 * 8.0 / 1e9;
    return TSCHED_OK;
}

tsched_status ts_sim_host_phase(int *done, tsched_sim *s, ts_sim_job *j, const ts_sim_phase *ph, tsched_flows *f)
{
    *done = 0;
    if (!j->split || !j->node_gpus || ph->pattern != TSCHED_PATTERN_DP_RING)
        return TSCHED_OK;
    *done = 1;
    uint32_t S = j->nnodes, C = UINT32_MAX, maxk = 0;
    if (S < 2)
        return TSCHED_OK;
    for (uint32_t k = 0; k < S; k++) {
        uint32_t nics = tsched_topology_node_nics(s->t, j->nodes[k]);
        maxk = nics > maxk ? nics : maxk;
    }
    uint32_t *set = ts_malloc((size_t)S * (maxk ? maxk : 1), sizeof *set), *m = ts_malloc(S, sizeof *m);
    if (!set || !m) {
        free(set);
        free(m);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t k = 0, r0 = 0; k < S; r0 += ts_sim_node_gpus(j, k), k++) {
        m[k] = segment_nics(s, j, k, r0, set + (size_t)k * maxk);
        C = m[k] < C ? m[k] : C;
    }
    /* C channels, as on whole nodes one per rail: channel c leaves each segment on its c-th
     * nearest NIC and enters the next on that one's c-th */
    double gb = ph->gbits;
    tsched_status st = TSCHED_OK;
    if (!(gb > 0))
        st = model_ring_gbits(&gb, j, (double)j->tp / C, S);
    for (uint32_t k = 0; k < S && st == TSCHED_OK; k++) {
        uint32_t q = (k + 1) % S;
        for (uint32_t c = 0; c < C && st == TSCHED_OK; c++)
            st = tsched_flows_add(NULL, f, NULL, j->nodes[k], set[(size_t)k * maxk + c], j->nodes[q],
                                  set[(size_t)q * maxk + c], gb);
    }
    free(set);
    free(m);
    return st;
}

/* The per-flow volume of a single-node job's ring over its R GPUs: the phase's gbits, else
 * 2 (R - 1) / R of a GPU's gradient data. */
tsched_status ts_sim_inner_gbits(double *out, const ts_sim_job *j, const ts_sim_phase *ph, uint32_t ring)
{
    *out = ph->gbits;
    return ph->gbits > 0 ? TSCHED_OK : model_ring_gbits(out, j, 1.0, ring);
}
