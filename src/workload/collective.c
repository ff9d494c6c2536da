/* The flows one step of a collective puts on the fabric (vClos 5.3 patterns) for a job
 * laid out on Arnold's communication matrix, rail by rail, with App. C volumes. The
 * volume model (bytes per element, what one flow carries, how a node's data splits over
 * its rails) is argued in doc/workload.md "Flows"; comments here say which choice a line
 * implements. */
#include <math.h>
#include <stdlib.h>

#include "../common/alloc.h"
#include "flows_internal.h"
#include "workload_internal.h"

/* Bytes per element. DP gradients are all-reduced in fp32 (Arnold App. E: "DP groups still
 * use 32-bit for parameter and gradient synchronization"; Megatron reduces bf16 models'
 * gradients in fp32). Activations (and MoE tokens) travel in bf16: App. E's 8-bit L20
 * format "halves" the PP volume, so the baseline is 16-bit. */
#define TS_GRAD_BYTES 4.0
#define TS_ACT_BYTES 2.0

static double to_gbits(double elements, double bytes) { return elements * bytes * 8.0 / 1e9; }

tsched_status tsched_pattern_steps(uint32_t *steps, tsched_pattern pattern, uint32_t rows, uint32_t cols)
{
    if (!steps)
        return ts_error(TSCHED_E_INVALID, "tsched_pattern_steps: steps is NULL");
    if (rows == 0 || cols == 0)
        return ts_error(TSCHED_E_RANGE, "shape: a %u x %u matrix has no cells", rows, cols);
    switch (pattern) {
    case TSCHED_PATTERN_DP_RING:
    case TSCHED_PATTERN_PP: *steps = 1; return TSCHED_OK;
    case TSCHED_PATTERN_DP_HD: {
        if (rows & (rows - 1))
            return ts_error(TSCHED_E_RANGE,
                            "rows: %u is not a power of two; dp-hd pairs row r with row r XOR 2^s in every DP group",
                            rows);
        uint32_t s = 0;
        while ((UINT32_C(1) << s) < rows)
            s++;
        /* a DP group of one has nothing to exchange: one empty step, as dp-ring has */
        *steps = s ? s : 1;
        return TSCHED_OK;
    }
    case TSCHED_PATTERN_ALLTOALL: *steps = rows > 1 ? rows - 1 : 1; return TSCHED_OK;
    }
    return ts_error(TSCHED_E_RANGE, "pattern: unknown value %d", (int)pattern);
}

/* Every node index exists, no node plays two cells, and all have the same NIC count
 * (one rail per NIC index); when `same_gpus`, the same GPU count too. */
static tsched_status check_nodes(uint32_t *nics, uint32_t *gpus, const tsched_topology *t, const uint32_t *nodes,
                                 size_t cells, int same_gpus)
{
    uint32_t nn = tsched_topology_num_nodes(t);
    uint8_t *used = ts_calloc(nn ? nn : 1, 1);
    if (!used)
        return TSCHED_E_NOMEM;
    tsched_status st = TSCHED_OK;
    for (size_t i = 0; i < cells && st == TSCHED_OK; i++) {
        uint32_t n = nodes[i];
        if (n >= nn) {
            st = ts_error(TSCHED_E_INVALID, "nodes[%zu]: node %u does not exist in fabric \"%s\" (%u nodes)", i, n,
                          tsched_topology_name(t), nn);
            break;
        }
        if (used[n]++) {
            st = ts_error(TSCHED_E_INVALID, "nodes[%zu]: node \"%s\" plays two cells of the matrix", i,
                          tsched_topology_node_name(t, n));
            break;
        }
        uint32_t k = tsched_topology_node_nics(t, n), g = tsched_topology_node_gpus(t, n);
        if (i == 0) {
            *nics = k;
            *gpus = g;
        } else if (k != *nics) {
            st = ts_error(TSCHED_E_INVALID,
                          "nodes[%zu]: node \"%s\" has %u NICs but node \"%s\" (nodes[0]) has %u; the nodes of one "
                          "job need the same NIC rails",
                          i, tsched_topology_node_name(t, n), k, tsched_topology_node_name(t, nodes[0]), *nics);
        } else if (same_gpus && g != *gpus) {
            st = ts_error(TSCHED_E_INVALID,
                          "nodes[%zu]: node \"%s\" has %u GPUs but node \"%s\" (nodes[0]) has %u; the App. C volumes "
                          "need one node size",
                          i, tsched_topology_node_name(t, n), g, tsched_topology_node_name(t, nodes[0]), *gpus);
        }
    }
    free(used);
    return st;
}

/* Per-rail elements of the job's model on nodes of `g` GPUs and `nics` NICs:
 * `grad`: the node's distinct gradient data (tp shards of v_d; the g / tp TP groups of a
 * node hold replicas, reduced over NVLink first), split over the rails;
 * `act`: one micro-batch's activation as every GPU sends it (mb s h / tp), times the
 * g / nics GPUs that share a rail. */
static tsched_status model_volumes(double *grad, double *act, const tsched_job *job, uint32_t g, uint32_t nics,
                                   uint32_t rows, uint32_t cols)
{
    tsched_status st;
    uint32_t jr, jc;
    tsched_volumes v = {.size = sizeof v};
    if ((st = tsched_job_matrix(&jr, &jc, job, g)) || (st = tsched_job_volumes(&v, job)))
        return st;
    if (jr != rows || jc != cols)
        return ts_error(TSCHED_E_RANGE,
                        "rows, cols: job \"%s\" forms a %u x %u matrix on %u-GPU nodes, but the nodes given form %u x "
                        "%u",
                        job->name, jr, jc, g, rows, cols);
    const tsched_model *m = &job->model;
    *grad = (double)job->tp * v.dp / nics;
    *act = (double)g / nics * ((double)m->micro_batch * m->seq * m->hidden / job->tp);
    return TSCHED_OK;
}

/* Node pairs of one step, in the documented order, each expanded into one flow per rail. */
static void emit(tsched_flows *f, uint32_t job, const uint32_t *nodes, uint32_t rows, uint32_t cols, uint32_t nics,
                 tsched_pattern pattern, uint32_t step, double gbits)
{
    if (pattern == TSCHED_PATTERN_PP) {
        for (uint32_t r = 0; r < rows; r++)
            for (uint32_t c = 0; c + 1 < cols; c++)
                for (uint32_t k = 0; k < nics; k++)
                    ts_flows_push(f, job, nodes[(size_t)r * cols + c], k, nodes[(size_t)r * cols + c + 1], k, gbits);
        return;
    }
    if (rows < 2)
        return; /* a DP group of one node sends nothing */
    for (uint32_t c = 0; c < cols; c++)
        for (uint32_t r = 0; r < rows; r++) {
            uint32_t peer;
            switch (pattern) {
            case TSCHED_PATTERN_DP_RING: peer = (r + 1) % rows; break;
            case TSCHED_PATTERN_DP_HD: peer = r ^ (UINT32_C(1) << step); break;
            default: peer = (uint32_t)(((uint64_t)r + step + 1) % rows); break;
            }
            for (uint32_t k = 0; k < nics; k++)
                ts_flows_push(f, job, nodes[(size_t)r * cols + c], k, nodes[(size_t)peer * cols + c], k, gbits);
        }
}

tsched_status tsched_flows_collective(tsched_flows *flows, const tsched_topology *topo, const tsched_job *job,
                                      const uint32_t *nodes, uint32_t rows, uint32_t cols, tsched_pattern pattern,
                                      uint32_t step, double gbits)
{
    if (!flows || !topo || !nodes)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_collective: flows, topology or nodes is NULL");
    if (rows == 0 || cols == 0)
        return ts_error(TSCHED_E_INVALID, "shape: a %u x %u matrix has no cells", rows, cols);
    if (isnan(gbits) || isinf(gbits))
        return ts_error(TSCHED_E_RANGE, "gbits: %g is not finite", gbits);
    const int use_model = !(gbits > 0);
    if (use_model && !job)
        return ts_error(TSCHED_E_NOT_FOUND,
                        "gbits: not given (> 0) and no job, so no model for the App. C volumes; give gbits or a job "
                        "with a model");
    if (use_model && !job->has_model)
        return ts_error(TSCHED_E_NOT_FOUND,
                        "gbits: not given (> 0) and job \"%s\" has no model for the App. C volumes; give gbits or "
                        "the job's model",
                        job->name);
    tsched_status st;
    uint32_t steps, nics = 0, g = 0;
    if ((st = tsched_pattern_steps(&steps, pattern, rows, cols)) != TSCHED_OK)
        return st;
    if (step >= steps) {
        if (steps == 0)
            return ts_error(TSCHED_E_RANGE, "step: %u is out of range; %s has 0 steps on a %u x %u matrix", step,
                            tsched_pattern_name(pattern), rows, cols);
        return ts_error(TSCHED_E_RANGE, "step: %u is out of range; %s has %u step%s on a %u x %u matrix (0..%u)",
                        step, tsched_pattern_name(pattern), steps, steps == 1 ? "" : "s", rows, cols, steps - 1);
    }
    size_t cells = (size_t)rows * cols;
    if ((st = check_nodes(&nics, &g, topo, nodes, cells, use_model)) != TSCHED_OK)
        return st;
    if (use_model) {
        double grad = 0, act = 0;
        if ((st = model_volumes(&grad, &act, job, g, nics, rows, cols)) != TSCHED_OK)
            return st;
        switch (pattern) {
        case TSCHED_PATTERN_DP_RING: /* ring all-reduce: 2 (R - 1) / R of the data crosses each link */
            gbits = to_gbits(grad * 2.0 * (rows - 1) / rows, TS_GRAD_BYTES);
            break;
        case TSCHED_PATTERN_DP_HD: /* reduce-scatter step s: half of what is left, D / 2^(s+1) */
            gbits = to_gbits(ldexp(grad, -(int)(step + 1)), TS_GRAD_BYTES);
            break;
        case TSCHED_PATTERN_PP: /* one micro-batch's forward activation */
            gbits = to_gbits(act, TS_ACT_BYTES);
            break;
        case TSCHED_PATTERN_ALLTOALL: /* a micro-batch's tokens, 1 / R of them to each peer */
            gbits = to_gbits(act / rows, TS_ACT_BYTES);
            break;
        }
    }
    uint64_t pairs = pattern == TSCHED_PATTERN_PP ? (uint64_t)rows * (cols - 1) : rows < 2 ? 0 : (uint64_t)cells;
    uint32_t id;
    if ((st = ts_flows_reserve(flows, pairs * nics)) ||
        (st = ts_flows_job_id(&id, flows, job ? job->name : NULL)))
        return st;
    emit(flows, id, nodes, rows, cols, nics, pattern, step, gbits);
    return TSCHED_OK;
}
