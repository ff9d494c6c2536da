/* Arnold Eq. 1 (the communication matrix) and App. C (per-GPU volumes), with the ratios
 * of Arnold 5.2. The modelling choices (where the embedding is counted, TP sharding, MoE,
 * vpp, degenerate groups) are argued in doc/workload.md; the comments here only say which
 * choice a line implements. */
#include <math.h>

#include "../common/structsize.h"
#include "../common/error.h"
#include "workload_internal.h"

tsched_status tsched_job_matrix(uint32_t *rows, uint32_t *cols, const tsched_job *job, uint32_t gpus_per_node)
{
    if (!rows || !cols || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_matrix: rows, cols or job is NULL");
    if (gpus_per_node == 0)
        return ts_error(TSCHED_E_INVALID, "gpus_per_node: must be at least 1, got 0");
    if (gpus_per_node % job->tp != 0)
        return ts_error(TSCHED_E_RANGE,
                        "tp: %u does not divide gpus_per_node %u (a cell of the matrix is one whole node of whole "
                        "TP groups)",
                        job->tp, gpus_per_node);
    uint32_t npn = gpus_per_node / job->tp;
    if (job->dp % npn != 0)
        return ts_error(TSCHED_E_RANGE,
                        "gpus: dp = %u / (tp %u * pp %u) = %u is not a multiple of gpus_per_node / tp = %u / %u = %u "
                        "(the TP groups of one node must be DP ranks of one stage)",
                        job->gpus, job->tp, job->pp, job->dp, gpus_per_node, job->tp, npn);
    *rows = job->dp / npn;
    *cols = job->pp;
    return TSCHED_OK;
}

uint32_t ts_expert_parallel(uint32_t experts, uint32_t dp)
{
    if (experts == 0 || dp == 0)
        return 1;
    uint32_t a = experts, b = dp;
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

tsched_status ts_volumes_compute(tsched_volumes *out, uint32_t tp, uint32_t pp, uint32_t dp, const tsched_model *m)
{
    if (m->layers % pp != 0)
        return ts_error(TSCHED_E_RANGE, "model.layers: %u is not a multiple of pp %u (Eq. 12 splits layers evenly)",
                        m->layers, pp);
    if (m->vpp > 1 && (m->layers / pp) % m->vpp != 0)
        return ts_error(TSCHED_E_RANGE,
                        "model.layers: %u is not a multiple of pp * model.vpp = %u * %u (each virtual stage holds "
                        "whole layers)",
                        m->layers, pp, m->vpp);
    uint64_t per_step = (uint64_t)m->micro_batch * dp;
    if (m->global_batch % per_step != 0)
        return ts_error(TSCHED_E_RANGE,
                        "model.global_batch: %u is not a multiple of model.micro_batch * dp = %u * %u (Eq. 11: m = "
                        "gb / (mb * dp) must be whole)",
                        m->global_batch, m->micro_batch, dp);

    const double h = m->hidden, V = m->vocab, s = m->seq, mb = m->micro_batch;
    const double layers_per_gpu = (double)(m->layers / pp);
    /* Eq. 12 as printed: the embedding h(V + s) on every stage, i.e. the first (heaviest) stage. */
    const double embed = h * (V + s);
    const double attn = 4 * h * h + 2 * h;
    const double ffn = 8 * h * h + 7 * h;
    double ffn_held = ffn, ffn_synced = ffn;
    if (m->moe_experts > 0) {
        /* Experts sharded by expert parallelism ep = gcd(E, dp) inside the DP group: a GPU
         * holds E/ep experts, and their gradients are all-reduced only among the dp/ep GPUs
         * holding the same experts (none when dp/ep = 1). */
        uint32_t ep = ts_expert_parallel(m->moe_experts, dp);
        ffn_held = (double)(m->moe_experts / ep) * ffn;
        ffn_synced = dp / ep > 1 ? ffn_held : 0;
    }
    out->weights = (embed + layers_per_gpu * (attn + ffn_held)) / tp;
    out->dp = dp > 1 ? (embed + layers_per_gpu * (attn + ffn_synced)) / tp : 0;
    /* Eq. 13 (activation forward + its gradient backward), each TP rank sending its 1/tp
     * share, once per virtual stage the GPU holds. */
    out->pp = pp > 1 ? 2 * mb * s * h * m->vpp / tp : 0;
    out->microbatches = (double)(m->global_batch / per_step);
    double comm = out->dp + out->pp;
    out->r1 = comm > 0 ? mb * out->weights / comm : INFINITY;
    out->r2 = out->dp == 0 ? 0 : out->pp > 0 ? out->dp / out->pp : INFINITY;
    return TSCHED_OK;
}

tsched_status tsched_job_volumes(tsched_volumes *out, const tsched_job *job)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_volumes, size), TS_SPAN(tsched_volumes, weights),      TS_SPAN(tsched_volumes, dp),
        TS_SPAN(tsched_volumes, pp),   TS_SPAN(tsched_volumes, microbatches), TS_SPAN(tsched_volumes, r1),
        TS_SPAN(tsched_volumes, r2),
    };
    if (!out || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_volumes: out or job is NULL");
    tsched_status st = ts_struct_size(out->size, spans, TS_NSPANS(spans), sizeof *out, "tsched_volumes");
    if (st != TSCHED_OK)
        return st;
    if (!job->has_model)
        return ts_error(TSCHED_E_NOT_FOUND, "model: job \"%s\" has no model; the volumes of App. C need one",
                        job->name);
    tsched_volumes v;
    if ((st = ts_volumes_compute(&v, job->tp, job->pp, job->dp, &job->model)) != TSCHED_OK)
        return st;
    return ts_struct_out(out, &v, spans, TS_NSPANS(spans), sizeof *out, "tsched_volumes");
}
