/* Stages 0 and 1, the stage-2 fill of a chosen shape, allocate and release
 * (doc/vclos.md §2). */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/names.h"
#include "vclos_internal.h"

int vc_stage0(const tsched_vclos *v, vc_job *j, uint32_t gpus)
{
    uint32_t best = VC_NONE;
    for (uint32_t n = 0; n < v->nnodes; n++)
        if (vc_node_up(v, n) && v->node_owner[n] == 0 && v->node_free[n] >= gpus &&
            (best == VC_NONE || v->node_free[n] < v->node_free[best]))
            best = n;
    if (best == VC_NONE)
        return 0;
    if (!(j->nodes = ts_malloc(1, sizeof *j->nodes)))
        return -1;
    j->nodes[0] = best;
    j->nnodes = 1;
    j->gpn = gpus;
    j->stage = j->ocs_stage = 0;
    j->l = 1;
    j->s = 0;
    j->optimal = 1;
    return 1;
}

/* The q lowest-index idle nodes of local leaf `leaf` into out[]; returns how many. */
static uint32_t take_idle(const tsched_vclos *v, uint32_t leaf, uint32_t q, uint32_t *out)
{
    uint32_t got = 0;
    for (uint32_t i = v->leaf_first[leaf]; i < v->leaf_first[leaf + 1] && got < q; i++)
        if (vc_node_idle(v, v->leaf_nodes[i]))
            out[got++] = v->leaf_nodes[i];
    return got;
}

int vc_stage1(const tsched_vclos *v, vc_job *j, uint32_t Q)
{
    uint32_t best = VC_NONE, best_rsn = 0;
    for (uint32_t n = 0; n < v->L; n++) {
        uint32_t rsn = vc_rsn(v, n);
        if (rsn >= Q && (best == VC_NONE || rsn < best_rsn)) {
            best = n;
            best_rsn = rsn;
        }
    }
    if (best == VC_NONE)
        return 0;
    if (!(j->nodes = ts_malloc(Q, sizeof *j->nodes)) || !(j->leaves = ts_malloc(1, sizeof *j->leaves)))
        return -1;
    j->nnodes = take_idle(v, best, Q, j->nodes);
    j->gpn = v->T;
    j->stage = j->ocs_stage = 1;
    j->l = 1;
    j->leaves[0] = best;
    j->s = Q * v->E;
    j->optimal = 1;
    return 1;
}

tsched_status vc_fill_stage2(const tsched_vclos *v, vc_job *j, uint32_t l, uint32_t q, const uint32_t *leaves,
                             const uint32_t *sp)
{
    uint32_t s = q * v->E;
    free(j->nodes);
    free(j->leaves);
    free(j->sp);
    free(j->links);
    j->nodes = NULL;
    j->leaves = j->sp = j->links = NULL;
    if (!(j->nodes = ts_malloc((size_t)l * q, sizeof *j->nodes)) || !(j->leaves = ts_malloc(l, sizeof *j->leaves)) ||
        !(j->sp = ts_malloc(s, sizeof *j->sp)))
        return TSCHED_E_NOMEM;
    if (v->mode != TSCHED_VCLOS_MODE_FREE && !(j->links = ts_malloc((size_t)l * s, sizeof *j->links)))
        return TSCHED_E_NOMEM;
    memcpy(j->leaves, leaves, (size_t)l * sizeof *leaves);
    memcpy(j->sp, sp, (size_t)s * sizeof *sp);
    j->l = l;
    j->s = s;
    j->nnodes = l * q;
    j->gpn = v->T;
    j->stage = j->ocs_stage = 2;
    for (uint32_t i = 0; i < l; i++) {
        if (i && leaves[i] <= leaves[i - 1])
            return ts_error(TSCHED_E_INTERNAL, "vclos: stage-2 leaves not ascending");
        if (take_idle(v, leaves[i], q, j->nodes + (size_t)i * q) != q)
            return ts_error(TSCHED_E_INTERNAL, "vclos: leaf %u has fewer than %u idle nodes", leaves[i], q);
        if (!j->links)
            continue;
        uint32_t *row = j->links + (size_t)i * s;
        for (uint32_t vs = 0; vs < s; vs++)
            if ((row[vs] = vc_pair_pick(v, leaves[i], sp[vs], row, vs)) == VC_NONE)
                return ts_error(TSCHED_E_INTERNAL, "vclos: no free member from leaf %u to spine %u", leaves[i], sp[vs]);
    }
    return TSCHED_OK;
}

/* Idle nodes of the whole fabric. */
static uint32_t idle_nodes(const tsched_vclos *v)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < v->nnodes; i++)
        n += (uint32_t)vc_node_idle(v, i);
    return n;
}

/* Stages 0, 1, 2 (or the OCS stages) for job `j`; *found, *timed_out as vc_stage2. */
static tsched_status run_stages(tsched_vclos *v, vc_job *j, uint32_t gpus, double deadline, int *found,
                                int *timed_out)
{
    *found = *timed_out = 0;
    int r;
    if (gpus <= v->T) {
        if ((r = vc_stage0(v, j, gpus)) < 0)
            return TSCHED_E_NOMEM;
        *found = r;
        return TSCHED_OK;
    }
    uint32_t Q = (gpus + v->T - 1) / v->T;
    if (idle_nodes(v) < Q)
        return TSCHED_OK;
    if ((r = vc_stage1(v, j, Q)) < 0)
        return TSCHED_E_NOMEM;
    if (r) {
        *found = 1;
        return TSCHED_OK;
    }
    if (v->mode == TSCHED_VCLOS_MODE_OCS)
        return vc_ocs_stage2(v, j, Q, deadline, found, timed_out);
    return vc_stage2(v, j, Q, v->mode == TSCHED_VCLOS_MODE_FREE, deadline, found, timed_out);
}

/* Why a request waits: would it also wait with every link free? */
static tsched_status wait_reason(const tsched_vclos *v, uint32_t gpus, double deadline, tsched_vclos_outcome *outcome)
{
    *outcome = TSCHED_VCLOS_WAIT_GPU;
    if (gpus <= v->T || v->mode == TSCHED_VCLOS_MODE_FREE)
        return TSCHED_OK;
    uint32_t Q = (gpus + v->T - 1) / v->T;
    if (idle_nodes(v) < Q)
        return TSCHED_OK;
    vc_job probe;
    memset(&probe, 0, sizeof probe);
    int found = 0, timed_out = 0;
    tsched_status st = vc_stage2(v, &probe, Q, 1, deadline, &found, &timed_out);
    free(probe.nodes);
    free(probe.leaves);
    free(probe.sp);
    free(probe.links);
    if (st)
        return st;
    *outcome = found ? TSCHED_VCLOS_WAIT_NETWORK : timed_out ? TSCHED_VCLOS_WAIT_TIMEOUT : TSCHED_VCLOS_WAIT_GPU;
    return TSCHED_OK;
}

tsched_status tsched_vclos_allocate(tsched_vclos *v, const char *job, uint32_t gpus, tsched_vclos_outcome *outcome)
{
    if (!v || !job || !outcome)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_allocate: %s is NULL", !v ? "v" : !job ? "job" : "outcome");
    *outcome = TSCHED_VCLOS_WAIT_GPU;
    tsched_status st = ts_name_check(job, "job");
    if (st)
        return st;
    uint64_t total = (uint64_t)v->T * v->nnodes;
    if (gpus == 0 || gpus > total)
        return ts_error(TSCHED_E_RANGE, "gpus: %u is not in [1, %llu] (the fabric's GPUs)", gpus,
                        (unsigned long long)total);
    if (vc_find_job(v, job) != VC_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "job: \"%s\" is already allocated", job);
    double deadline = v->time_limit_ms ? ts_monotonic_s() + v->time_limit_ms * 1e-3 : 0;
    vc_job *j = ts_calloc(1, sizeof *j);
    if (!j)
        return TSCHED_E_NOMEM;
    j->gpus = gpus;
    j->optimal = 1;
    if (!(j->name = ts_strdup(job))) {
        vc_job_destroy(j);
        return TSCHED_E_NOMEM;
    }
    int found = 0, timed_out = 0;
    if ((st = run_stages(v, j, gpus, deadline, &found, &timed_out))) {
        vc_job_destroy(j);
        return st;
    }
    if (found) {
        if ((st = vc_job_add(v, j))) {
            vc_job_destroy(j);
            return st;
        }
        *outcome = TSCHED_VCLOS_ALLOCATED;
        return TSCHED_OK;
    }
    vc_job_destroy(j);
    if (timed_out) {
        *outcome = TSCHED_VCLOS_WAIT_TIMEOUT;
        return TSCHED_OK;
    }
    return wait_reason(v, gpus, deadline, outcome);
}

tsched_status tsched_vclos_release(tsched_vclos *v, const char *job)
{
    if (!v || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_release: %s is NULL", v ? "job" : "v");
    uint32_t slot = vc_find_job(v, job);
    if (slot == VC_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "job: \"%s\" is not running", job);
    vc_job_remove(v, slot);
    return TSCHED_OK;
}
