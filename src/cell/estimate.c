/* One Cell estimate (doc/cell.md §3), Cell-guided tuning (§4) and the getters.
 *
 * A Cell is one allocation: the struct, its stages and the two names (plus a profile clone
 * when a profile applies). The scratch of one estimate (GPUs and cuts per stage, the model's
 * per-stage numbers, every admissible option) lives on the stack when small.
 *
 * Where the note leaves room, this file decides:
 * - reasons are tried in the order more stages than layers, more stages than gpus (no cut),
 *   then, with the stages cut, gpus not a multiple of the node size, out of memory;
 * - plans_evaluated is the size of the space, memory-infeasible options included (the paper
 *   profiles a plan before dropping it); a product above INT64_MAX (the largest JSON integer)
 *   is never written as a number: the count stays at INT64_MAX and the Cell is flagged
 *   saturated (plans_evaluated_saturated in JSON, INT64_MAX from tsched_cell_space);
 * - favours come from the assembled answer whatever the space asked, so every Cell reports
 *   them and tsched_cell_tune seeds the tuned space with exactly the estimate's favours. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "estimate_internal.h"
#include "topo-sched/workload.h"

#define R_LAYERS "more stages than layers"
#define R_GPUS "more stages than gpus"
#define R_NODE "gpus not a multiple of the node size"
#define R_MEM "out of memory in every plan"

/* JSON integers are signed 64-bit. No exact product equals the cap: 2^63 - 1 has the prime
 * factor 649657, and a stage has at most 1344 options (the most divisors a uint32 has). */
#define PLANS_CAP ((uint64_t)INT64_MAX)
/* Far beyond any model (B = 4 S must fit in 32 bits; the scratch stays addressable). */
#define MAX_STAGES (1u << 24)
#define MAX_OPTIONS (1u << 26)

static tsched_status cell_new(tsched_cell **out, const ts_cell_in *in, uint32_t N, uint32_t S, uint32_t nst)
{
    size_t lp = strlen(in->pool) + 1, lg = strlen(in->gpu->name) + 1;
    size_t head = (sizeof(tsched_cell) + 7) / 8 * 8;
    size_t stb = (size_t)nst * sizeof(ts_cell_stage);
    char *mem = ts_calloc(1, head + stb + lp + lg);
    if (!mem)
        return TSCHED_E_NOMEM;
    tsched_cell *c = (tsched_cell *)mem;
    c->st = nst ? (ts_cell_stage *)(mem + head) : NULL;
    c->pool = mem + head + stb;
    c->gpu_type = c->pool + lp;
    memcpy(c->pool, in->pool, lp);
    memcpy(c->gpu_type, in->gpu->name, lg);
    c->tflops = in->gpu->tflops;
    c->mem_gib = in->gpu->mem_gib;
    c->intra_gbps = in->gpu->intra_gbps;
    c->efficiency = in->gpu->efficiency;
    c->G = in->G;
    c->U_gbps = in->U_gbps;
    c->hidden = in->hidden;
    c->layers = in->layers;
    c->vocab = in->vocab;
    c->seq = in->seq;
    c->global_batch = in->global_batch;
    c->moe_experts = in->moe_experts;
    c->N = N;
    c->S = S;
    c->reason = "";
    c->B = 4 * S;
    if (in->profile) {
        tsched_status st = ts_profile_clone(&c->profile, in->profile);
        if (st != TSCHED_OK) {
            free(mem);
            return st;
        }
    }
    *out = c;
    return TSCHED_OK;
}

/* a * b, or PLANS_CAP with *sat set when the product exceeds it (a, b <= PLANS_CAP). */
static uint64_t mul_sat(uint64_t a, uint64_t b, int *sat)
{
    if (*sat || (a && b > PLANS_CAP / a)) {
        *sat = 1;
        return PLANS_CAP;
    }
    return a * b;
}

/* Copy the options of `space` that fit in memory into sel; *plans gets the size of the
 * space (every option, fitting or not), or PLANS_CAP with *sat set when it is larger. */
static uint32_t select_space(ts_opt *sel, uint64_t *plans, int *sat, const ts_opt *all, uint32_t K, const ts_cm *cm,
                             tsched_plan_space space, const int *favor)
{
    uint32_t n = 0, s = UINT32_MAX, cnt = 0;
    uint64_t prod = 1;
    *sat = 0;
    for (uint32_t k = 0; k < K; k++) {
        const ts_opt *o = &all[k];
        if (o->s != s) {
            if (s != UINT32_MAX)
                prod = mul_sat(prod, cnt, sat);
            s = o->s;
            cnt = 0;
        }
        if (!ts_plan_in_space(space, cm->st[s].g, cm->G, o->t, favor ? favor[s] : 0))
            continue;
        cnt++;
        if (o->M <= cm->memcap)
            sel[n++] = *o;
    }
    prod = mul_sat(prod, cnt, sat);
    *plans = prod;
    return n;
}

static tsched_status estimate(tsched_cell **out, const ts_cell_in *in, uint32_t N, uint32_t S,
                              tsched_plan_space space)
{
    uint32_t l = in->layers;
    int cuttable = S <= l && S <= N;
    tsched_cell *c = NULL;
    tsched_status st = cell_new(&c, in, N, S, cuttable ? S : 0);
    if (st != TSCHED_OK)
        return st;
    c->space = space;
    if (S > l) {
        c->reason = R_LAYERS;
        *out = c;
        return TSCHED_OK;
    }
    if (S > N) {
        c->reason = R_GPUS;
        *out = c;
        return TSCHED_OK;
    }

    /* count the admissible options first: t | g, t <= G */
    uint32_t q = N / S, r = N % S;
    uint64_t cnt_q = 0, cnt_q1 = 0;
    for (uint32_t t = 1; t <= q && t <= in->G; t++)
        cnt_q += q % t == 0;
    for (uint64_t t = 1; t <= (uint64_t)q + 1 && t <= in->G; t++)
        cnt_q1 += ((uint64_t)q + 1) % t == 0;
    uint64_t K64 = (uint64_t)(S - r) * cnt_q + (uint64_t)r * cnt_q1;
    if (S > MAX_STAGES || K64 > MAX_OPTIONS) {
        tsched_cell_free(c);
        return ts_error(TSCHED_E_TOO_LARGE, "stages: %u stages with %llu plan options in all; at most %u stages and %u "
                        "options are supported", S, (unsigned long long)K64, MAX_STAGES, MAX_OPTIONS);
    }
    uint32_t K = (uint32_t)K64;

    size_t need = (size_t)S * sizeof(ts_cm_stage) + 2 * (size_t)K * sizeof(ts_opt) + ((size_t)K + 3 * (size_t)S) * sizeof(double) +
                  2 * (size_t)S * sizeof(ts_opt *) + (2 * (size_t)S + 1) * sizeof(uint32_t) + S * sizeof(int);
    _Alignas(16) char stackbuf[16384];
    char *buf = need <= sizeof stackbuf ? stackbuf : ts_malloc(need, 1);
    if (!buf) {
        tsched_cell_free(c);
        return TSCHED_E_NOMEM;
    }
    ts_cm_stage *cst = (ts_cm_stage *)buf;
    ts_opt *all = (ts_opt *)(cst + S), *sel = all + K;
    double *work = (double *)(sel + K);
    const ts_opt **chosen = (const ts_opt **)(work + K + 3 * (size_t)S), **cur = chosen + S;
    uint32_t *g = (uint32_t *)(cur + S), *first = g + S;
    int *favor = (int *)(first + S + 1);

    ts_stages_gpus(g, N, S);
    st = ts_stages_cut(first, in->hidden, l, in->vocab, in->seq, in->profile, g, S);
    if (st != TSCHED_OK)
        goto fail;
    c->cut = 1;
    for (uint32_t s = 0; s < S; s++) {
        c->st[s].first_layer = first[s];
        c->st[s].layers = first[s + 1] - first[s];
        c->st[s].gpus = g[s];
    }
    if (N > in->G && N % in->G != 0) {
        c->reason = R_NODE;
        goto done;
    }

    ts_cm cm;
    cm.st = cst;
    ts_cm_init(&cm, in, N, S, first, g);
    c->m = cm.m;
    /* the assembled space (the scheduler's) needs only t = 1 and TP-max of each stage */
    uint32_t k = 0;
    for (uint32_t s = 0; s < S; s++) {
        uint32_t tmax = space == TSCHED_PLANS_ASSEMBLED ? ts_tp_max(g[s], in->G) : 0;
        for (uint32_t t = 1; t <= g[s] && t <= in->G; t++)
            if (g[s] % t == 0 && (!tmax || t == 1 || t == tmax))
                ts_cm_option(&all[k++], &cm, s, t);
    }
    K = k;

    uint64_t plans;
    int sat;
    uint32_t n = select_space(sel, &plans, &sat, all, K, &cm, TSCHED_PLANS_ASSEMBLED, NULL);
    double T = ts_plans_best(chosen, sel, n, &cm, work, cur);
    if (T < 0) {
        /* TP-max, in every space, needs the least memory: no space has a plan */
        c->reason = R_MEM;
        goto done;
    }
    for (uint32_t s = 0; s < S; s++) {
        favor[s] = chosen[s]->t > 1;
        c->st[s].favor_tp = favor[s];
    }
    if (space != TSCHED_PLANS_ASSEMBLED) {
        n = select_space(sel, &plans, &sat, all, K, &cm, space, favor);
        T = ts_plans_best(chosen, sel, n, &cm, work, cur);
        if (T < 0) { /* cannot happen: the assembled answer is in every space */
            st = ts_error(TSCHED_E_INTERNAL, "cell: no plan in space %d although the assembled one fits", space);
            goto fail;
        }
    }
    c->plans = plans;
    c->plans_saturated = sat;
    c->feasible = 1;
    c->T = T;
    c->throughput = in->global_batch / T;
    for (uint32_t s = 0; s < S; s++) {
        c->st[s].tp = chosen[s]->t;
        c->st[s].dp = g[s] / chosen[s]->t;
        c->st[s].time_s = chosen[s]->tau;
        c->st[s].mem_bytes = chosen[s]->M;
    }
done:
    if (buf != stackbuf)
        free(buf);
    *out = c;
    return TSCHED_OK;
fail:
    if (buf != stackbuf)
        free(buf);
    tsched_cell_free(c);
    return st;
}

tsched_status ts_cell_estimate_in(tsched_cell **out, const ts_cell_in *in, uint32_t n_gpus, uint32_t stages,
                                  tsched_plan_space space)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "ts_cell_estimate_in: out is NULL");
    *out = NULL;
    if (!in || !in->gpu || !in->pool || !in->gpu->name)
        return ts_error(TSCHED_E_INVALID, "ts_cell_estimate_in: in, its pool or its gpu is NULL");
    if (space != TSCHED_PLANS_ASSEMBLED && space != TSCHED_PLANS_TUNED && space != TSCHED_PLANS_EXHAUSTIVE)
        return ts_error(TSCHED_E_INVALID, "space: %d is not a plan space (0, 1 or 2)", (int)space);
    if (n_gpus == 0)
        return ts_error(TSCHED_E_INVALID, "n_gpus: 0 is out of range (>= 1)");
    if (stages == 0)
        return ts_error(TSCHED_E_INVALID, "stages: 0 is out of range (>= 1)");
    if (n_gpus > TS_CELL_MAX_GPUS)
        return ts_error(TSCHED_E_TOO_LARGE, "n_gpus: %u is above the limit of %u GPUs per Cell", n_gpus,
                        TS_CELL_MAX_GPUS);
    if (in->G == 0)
        return ts_error(TSCHED_E_INVALID, "pool %s: 0 GPUs per node", in->pool);
    /* the catalogue and the pools guarantee these; a direct caller might not */
    const ts_gpu *g = in->gpu;
    if (!(g->tflops > 0 && g->mem_gib > 0 && g->intra_gbps > 0 && g->efficiency > 0 && g->efficiency <= 1 &&
          isfinite(g->tflops) && isfinite(g->mem_gib) && isfinite(g->intra_gbps)))
        return ts_error(TSCHED_E_RANGE, "gpu %s: tflops %g, mem_gib %g, intra_gbps %g, efficiency %g must be positive "
                        "and finite (efficiency at most 1)", g->name, g->tflops, g->mem_gib, g->intra_gbps,
                        g->efficiency);
    if (!(in->U_gbps > 0 && isfinite(in->U_gbps)))
        return ts_error(TSCHED_E_RANGE, "pool %s: U_gbps %g is out of range (> 0)", in->pool, in->U_gbps);
    if (in->layers == 0)
        return ts_error(TSCHED_E_RANGE, "model.layers: 0 is out of range (>= 1)");
    if (in->hidden == 0)
        return ts_error(TSCHED_E_RANGE, "model.hidden: 0 is out of range (>= 1)");
    if (in->seq == 0)
        return ts_error(TSCHED_E_RANGE, "model.seq: 0 is out of range (>= 1)");
    if (in->global_batch == 0)
        return ts_error(TSCHED_E_RANGE, "model.global_batch: 0 is out of range (>= 1)");
    if (in->profile && in->profile->nlayers != in->layers)
        return ts_error(TSCHED_E_RANGE, "layers: %u entries, model has %u", in->profile->nlayers, in->layers);
    if (in->moe_experts > 0 && !in->profile)
        return ts_error(TSCHED_E_RANGE, "model.moe_experts: MoE is not in the cell cost model; supply an op profile");
    return estimate(out, in, n_gpus, stages, space);
}

tsched_status tsched_cell_estimate(tsched_cell **out, const tsched_topology *topo, const char *pool,
                                   const tsched_gpu_catalog *cat, const tsched_job *job,
                                   const tsched_op_profile *profile, uint32_t n_gpus, uint32_t stages,
                                   tsched_plan_space space)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_estimate: out is NULL");
    *out = NULL;
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_estimate: topo is NULL");
    if (!pool)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_estimate: pool is NULL");
    if (!cat)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_estimate: cat is NULL");
    if (!job)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_estimate: job is NULL");
    if (space != TSCHED_PLANS_ASSEMBLED && space != TSCHED_PLANS_TUNED && space != TSCHED_PLANS_EXHAUSTIVE)
        return ts_error(TSCHED_E_INVALID, "space: %d is not a plan space (0, 1 or 2)", (int)space);
    if (n_gpus == 0)
        return ts_error(TSCHED_E_INVALID, "n_gpus: 0 is out of range (>= 1)");
    if (stages == 0)
        return ts_error(TSCHED_E_INVALID, "stages: 0 is out of range (>= 1)");
    tsched_model m;
    m.size = sizeof m;
    if (tsched_job_model(&m, job) != TSCHED_OK)
        return ts_error(TSCHED_E_NOT_FOUND, "model: missing; a Cell estimate needs the model");
    const char *type = NULL;
    uint32_t G = 0;
    double U = 0;
    if (!ts_pool_lookup(&type, &G, &U, topo, pool))
        return ts_error(TSCHED_E_NOT_FOUND, "pool: no pool \"%s\" in the fabric", pool);
    const ts_gpu *gpu = ts_catalog_find(cat, type);
    if (!gpu)
        return ts_error(TSCHED_E_NOT_FOUND, "pool %s: gpu type \"%s\" is not in the catalogue", pool, type);
    int use_prof = profile && profile->gpu_type && strcmp(profile->gpu_type, type) == 0;
    ts_cell_in in = {.pool = pool,
                     .gpu = gpu,
                     .G = G,
                     .U_gbps = U,
                     .hidden = m.hidden,
                     .layers = m.layers,
                     .vocab = m.vocab,
                     .seq = m.seq,
                     .global_batch = m.global_batch,
                     .moe_experts = m.moe_experts,
                     .profile = use_prof ? profile : NULL};
    return ts_cell_estimate_in(out, &in, n_gpus, stages, space);
}

tsched_status tsched_cell_tune(tsched_cell **out, const tsched_cell *e)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_tune: out is NULL");
    *out = NULL;
    if (!e)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_tune: estimate is NULL");
    if (!e->feasible)
        return ts_error(TSCHED_E_STATE, "cell %s/%u/%u: infeasible (%s); nothing to tune", e->pool, e->N, e->S,
                        e->reason);
    /* The estimate is deterministic in what the Cell copied, so re-running it gives the same
     * stages and assembled favours; the tuned space is then seeded by those favours. */
    ts_gpu gpu = {e->gpu_type, e->tflops, e->mem_gib, e->intra_gbps, e->efficiency, NULL};
    ts_cell_in in = {.pool = e->pool,
                     .gpu = &gpu,
                     .G = e->G,
                     .U_gbps = e->U_gbps,
                     .hidden = e->hidden,
                     .layers = e->layers,
                     .vocab = e->vocab,
                     .seq = e->seq,
                     .global_batch = e->global_batch,
                     .moe_experts = e->moe_experts,
                     .profile = e->profile};
    return ts_cell_estimate_in(out, &in, e->N, e->S, TSCHED_PLANS_TUNED);
}

int tsched_cell_feasible(const tsched_cell *c) { return c ? c->feasible : 0; }
const char *tsched_cell_reason(const tsched_cell *c) { return c ? c->reason : ""; }
double tsched_cell_iteration_s(const tsched_cell *c) { return c && c->feasible ? c->T : 0; }
double tsched_cell_throughput(const tsched_cell *c) { return c && c->feasible ? c->throughput : 0; }
uint32_t tsched_cell_num_stages(const tsched_cell *c) { return c ? c->S : 0; }
uint32_t tsched_cell_gpus(const tsched_cell *c) { return c ? c->N : 0; }
const char *tsched_cell_pool(const tsched_cell *c) { return c ? c->pool : NULL; }
const char *ts_cell_gpu_type(const tsched_cell *c) { return c ? c->gpu_type : NULL; }

tsched_status tsched_cell_space(tsched_plan_space *space, uint64_t *plans_evaluated, const tsched_cell *c)
{
    if (!space)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_space: space is NULL");
    if (!plans_evaluated)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_space: plans_evaluated is NULL");
    if (!c)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_space: c (the cell) is NULL");
    *space = c->space;
    *plans_evaluated = c->plans;
    return TSCHED_OK;
}

tsched_status tsched_cell_stage(uint32_t *first_layer, uint32_t *layers, uint32_t *gpus, uint32_t *dp,
                                uint32_t *tp, double *time_s, double *mem_bytes, const tsched_cell *c,
                                uint32_t stage)
{
    if (!c)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_stage: c (the cell) is NULL");
    if (stage >= c->S)
        return ts_error(TSCHED_E_INVALID, "stage: %u is out of range (the Cell has %u stages)", stage, c->S);
    if (!c->cut)
        return ts_error(TSCHED_E_STATE, "cell %s/%u/%u: not cut into stages (%s)", c->pool, c->N, c->S, c->reason);
    const ts_cell_stage *s = &c->st[stage];
    if (first_layer)
        *first_layer = s->first_layer;
    if (layers)
        *layers = s->layers;
    if (gpus)
        *gpus = s->gpus;
    if (dp)
        *dp = s->dp;
    if (tp)
        *tp = s->tp;
    if (time_s)
        *time_s = s->time_s;
    if (mem_bytes)
        *mem_bytes = s->mem_bytes;
    return TSCHED_OK;
}

void tsched_cell_free(tsched_cell *c)
{
    if (!c)
        return;
    tsched_op_profile_free(c->profile);
    free(c);
}
