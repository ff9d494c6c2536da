/* The sim module's handle: creation, policies and options, jobs, phases, flows, failures,
 * callbacks (doc/sim.md §3, §4.2, §6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/fluid.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../common/structsize.h"
#include "sim_internal.h"

static const char *const pol_field[TS_SIM_NPOL] = {"queue", "placement", "routing", "reroute", "priority", "links"};

#define NONNULL(fn, x)                                                                                              \
    do {                                                                                                            \
        if (!(x))                                                                                                   \
            return ts_error(TSCHED_E_INVALID, "%s: %s is NULL", fn, #x);                                            \
    } while (0)

tsched_status tsched_sim_new(tsched_sim **out, tsched_topology *topo)
{
    NONNULL("tsched_sim_new", out);
    *out = NULL;
    NONNULL("tsched_sim_new", topo);
    if (tsched_topology_num_switches(topo) == 0 && tsched_topology_num_nodes(topo) == 0)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_new: the topology is empty or not built");
    uint64_t probe;
    tsched_status st = tsched_topology_leaf_path_count(&probe, topo, 0, 0);
    if (st == TSCHED_E_STATE)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_new: the topology is not built");
    tsched_sim *s = ts_calloc(1, sizeof *s);
    if (!s)
        return TSCHED_E_NOMEM;
    s->t = topo;
    s->topo_id = tsched_topology_id(topo);
    s->topo_gen = tsched_topology_generation(topo);
    if (!(s->name = ts_strdup("scenario"))) {
        free(s);
        return TSCHED_E_NOMEM;
    }
    ts_sim_policy_defaults(s->pol);
    s->seed = 1;
    s->levels = 8;
    s->until = INT64_MAX;
    s->from = 0;
    s->to = INT64_MAX;
    s->place_ms = 100;
    s->sample = 1000000000;
    s->timeseries = 1;
    s->max_samples = TS_SIM_MAX_SAMPLES;
    s->next_tick = -1;
    s->crius_depth = 3;
    s->compact_at = TS_SIM_COMPACT_MIN;
    *out = s;
    return TSCHED_OK;
}

static void job_free(ts_sim_job *j)
{
    free(j->name);
    free(j->fixed_nodes);
    free(j->phases);
    free(j->xflows);
    free(j->hops);
    free(j->nodes);
    free(j->rflows);
    free(j->phase_rf_off);
    free(j->rlinks);
    free(j->node_gpus);
    free(j->gpu_ids);
    free(j->cell_pool);
}

void tsched_sim_free(tsched_sim *s)
{
    if (!s)
        return;
    /* the GPUs its running jobs hold go back to the fabric; failures stay as they are */
    for (uint32_t i = 0; i < s->njobs; i++) {
        const ts_sim_job *j = &s->jobs[i];
        if (j->state != TS_JOB_RUNNING)
            continue;
        for (uint32_t k = 0; k < j->nnodes; k++) {
            uint32_t n = j->nodes[k], g = tsched_topology_node_gpus(s->t, n);
            uint32_t f = tsched_topology_node_free_gpus(s->t, n) + ts_sim_node_gpus(j, k);
            tsched_topology_set_free_gpus(s->t, n, f > g ? g : f);
        }
    }
    for (uint32_t i = 0; i < s->njobs; i++)
        job_free(&s->jobs[i]);
    free(s->jobs);
    ts_strtab_free(&s->job_names);
    for (uint32_t i = 0; i < s->nfail; i++)
        free(s->failures[i].name);
    free(s->failures);
    free(s->name);
    /* the vclos handle first: it only reads the topology */
    tsched_vclos_free(s->vc);
    tsched_crius_free(s->cr);
    tsched_gpu_catalog_free(s->cat);
    free(s->cr_gone);
    free(s->cr_job);
    free(s->node_pos);
    free(s->nic_base);
    free(s->gpu_base);
    free(s->host_lbase);
    free(s->gpu_owner);
    for (uint32_t l = 0; s->link && l < s->nlinks; l++)
        free(s->link[l].flows);
    free(s->link);
    free(s->base_flows);
    free(s->unit_base);
    free(s->unit_trunk);
    free(s->unit_flows);
    free(s->phase_cnt);
    free(s->flow);
    free(s->free_flows);
    free(s->heap);
    free(s->queue);
    free(s->samples);
    free(s->s_link_gbits);
    free(s->touched);
    free(s->rate_scratch);
    free(s->fl);
    free(s->fn);
    free(s->lev);
    ts_fluid_free(s->fluid);
    free(s);
}

const tsched_topology *ts_sim_topology(const tsched_sim *sim) { return sim ? sim->t : NULL; }

void ts_sim_batch_begin(tsched_sim *sim)
{
    if (sim)
        sim->batch_mark = sim->njobs;
}

/* Drop the jobs from index n on, their names with them (the table has no removal: it is
 * made again from the jobs kept, which were in it, so only memory can fail, and then the
 * names are found by a scan until the next success). */
static void drop_jobs(tsched_sim *sim, uint32_t n)
{
    if (sim->njobs <= n)
        return;
    while (sim->njobs > n)
        job_free(&sim->jobs[--sim->njobs]);
    ts_strtab_free(&sim->job_names);
    uint32_t id;
    for (uint32_t i = 0; i < sim->njobs; i++)
        if (ts_strtab_intern(&sim->job_names, sim->jobs[i].name, &id, NULL) != TSCHED_OK) {
            ts_strtab_free(&sim->job_names);
            break;
        }
}

/* The index of the job named `name`, or TSCHED_NONE. */
static uint32_t find_job(const tsched_sim *s, const char *name)
{
    if (ts_strtab_count(&s->job_names) == s->njobs)
        return ts_strtab_find(&s->job_names, name);
    for (uint32_t i = 0; i < s->njobs; i++) /* the table is incomplete after a failed allocation */
        if (strcmp(s->jobs[i].name, name) == 0)
            return i;
    return TSCHED_NONE;
}

void ts_sim_batch_abort(tsched_sim *sim)
{
    if (sim)
        drop_jobs(sim, sim->batch_mark);
}

tsched_status ts_sim_set_name(tsched_sim *sim, const char *name)
{
    NONNULL("ts_sim_set_name", sim);
    NONNULL("ts_sim_set_name", name);
    tsched_status st = ts_name_check(name, "name");
    if (st != TSCHED_OK)
        return st;
    char *c = ts_strdup(name);
    if (!c)
        return TSCHED_E_NOMEM;
    free(sim->name);
    sim->name = c;
    return TSCHED_OK;
}

static tsched_status not_started(const tsched_sim *s, const char *fn)
{
    if (s->started)
        return ts_error(TSCHED_E_STATE, "%s: the run has started; policies and options are fixed", fn);
    return TSCHED_OK;
}

tsched_status tsched_sim_set_policy(tsched_sim *s, tsched_sim_policy which, const char *name)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_set_policy: sim is NULL");
    NONNULL("tsched_sim_set_policy", name);
    if ((unsigned)which >= TS_SIM_NPOL)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_set_policy: unknown policy %d", (int)which);
    tsched_status st = not_started(s, "tsched_sim_set_policy");
    if (st != TSCHED_OK)
        return st;
    int i = ts_sim_policy_find(which, name);
    if (i >= 0) {
        s->pol[which] = i;
        s->pol_set[which] = 1;
        return TSCHED_OK;
    }
    char list[400] = "";
    for (int k = 0; ts_sim_policy_name(which, k); k++) {
        strcat(list, k ? ", " : "");
        strcat(list, ts_sim_policy_name(which, k));
    }
    return ts_error(TSCHED_E_FORMAT, "%s: unknown value \"%s\"; expected one of %s", pol_field[which], name, list);
}

static tsched_status time_opt(int64_t *out, double v, double scale, const char *field, int null_ok)
{
    if (null_ok && isinf(v) && v > 0) {
        *out = INT64_MAX;
        return TSCHED_OK;
    }
    if (!isfinite(v) || v < 0 || v * scale > 9.2e18)
        return ts_error(TSCHED_E_RANGE, "%s: %g is out of range [0, %g]", field, v, 9.2e18 / scale);
    *out = (int64_t)nearbyint(v * scale);
    return TSCHED_OK;
}

static tsched_status whole(double v, double lo, double max, const char *field)
{
    if (!isfinite(v) || v < lo || v > max || v != floor(v))
        return ts_error(TSCHED_E_RANGE, "%s: %g is not a whole number in [%g, %g]", field, v, lo, max);
    return TSCHED_OK;
}

tsched_status tsched_sim_set_option(tsched_sim *s, tsched_sim_option which, double v)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_set_option: sim is NULL");
    tsched_status st = not_started(s, "tsched_sim_set_option");
    if (st != TSCHED_OK)
        return st;
    switch (which) {
    case TSCHED_SIM_SEED:
        if ((st = whole(v, 0, 9007199254740992.0, "seed")) == TSCHED_OK)
            s->seed = (uint64_t)v;
        return st;
    case TSCHED_SIM_LEVELS:
        if ((st = whole(v, 1, 64, "levels")) == TSCHED_OK)
            s->levels = (uint32_t)v;
        return st;
    case TSCHED_SIM_UNTIL_S: return time_opt(&s->until, v, 1e9, "until_s", 1);
    case TSCHED_SIM_MEASURE_FROM_S: return time_opt(&s->from, v, 1e9, "measure.from_s", 0);
    case TSCHED_SIM_MEASURE_TO_S: return time_opt(&s->to, v, 1e9, "measure.to_s", 1);
    case TSCHED_SIM_PHASE_LATENCY_US: return time_opt(&s->latency, v, 1e3, "phase_latency_us", 0);
    case TSCHED_SIM_MAX_SIM_ITERATIONS:
        if ((st = whole(v, 0, 1e15, "max_sim_iterations")) == TSCHED_OK)
            s->max_iters = (uint64_t)v;
        return st;
    case TSCHED_SIM_PLACE_TIME_LIMIT_MS:
        if ((st = whole(v, 0, 3.6e6, "place_time_limit_ms")) == TSCHED_OK)
            s->place_ms = (uint32_t)v;
        return st;
    case TSCHED_SIM_SAMPLE_MS:
        if ((st = time_opt(&s->sample, v, 1e6, "sample_ms", 0)) == TSCHED_OK && s->sample <= 0)
            st = ts_error(TSCHED_E_RANGE, "sample_ms: %g must be positive", v);
        return st;
    case TSCHED_SIM_CHECK_FULL:
        s->check_full = v != 0;
        return TSCHED_OK;
    case TSCHED_SIM_TIMESERIES:
        if ((st = whole(v, 0, 1, "timeseries")) == TSCHED_OK)
            s->timeseries = v != 0;
        return st;
    case TSCHED_SIM_SCHEDULE_INTERVAL_S: return time_opt(&s->interval, v, 1e9, "schedule_interval_s", 0);
    case TSCHED_SIM_CRIUS_DEPTH:
        if ((st = whole(v, 0, 16, "crius_depth")) == TSCHED_OK)
            s->crius_depth = (uint32_t)v;
        return st;
    }
    return ts_error(TSCHED_E_INVALID, "tsched_sim_set_option: unknown option %d", (int)which);
}

/* The rules of job i that depend on the placement (doc/sim.md §4.1, §8): under crius a model
 * and no fixed nodes; under every other placement a computation time. */
static tsched_status placement_rules(const tsched_sim *s, uint32_t i)
{
    const ts_sim_job *j = &s->jobs[i];
    if (ts_sim_cells(s)) {
        if (j->nfixed)
            return ts_error(TSCHED_E_INVALID, "jobs[%u].nodes: placement \"crius\" chooses every job's nodes (job \"%s\")",
                            i, j->name);
        if (!j->has_model)
            return ts_error(TSCHED_E_NOT_FOUND,
                            "jobs[%u].model: missing; placement \"crius\" estimates Cells from the model (job \"%s\")", i,
                            j->name);
        if (j->iterations == 0)
            return ts_error(TSCHED_E_INVALID,
                            "jobs[%u].duration_s: placement \"crius\" needs the work in iterations (job \"%s\")", i,
                            j->name);
        return TSCHED_OK;
    }
    if (j->compute <= 0)
        return ts_error(TSCHED_E_RANGE, "jobs[%u].compute_ms: missing; it is needed unless the placement is \"crius\" "
                        "(job \"%s\")", i, j->name);
    return TSCHED_OK;
}

static const ts_span job_spans[] = {
    TS_SPAN(tsched_sim_job, size),       TS_SPAN(tsched_sim_job, name),       TS_SPAN(tsched_sim_job, arrival_ns),
    TS_SPAN(tsched_sim_job, gpus),       TS_SPAN(tsched_sim_job, tp),         TS_SPAN(tsched_sim_job, pp),
    TS_SPAN(tsched_sim_job, compute_ns), TS_SPAN(tsched_sim_job, overlap),    TS_SPAN(tsched_sim_job, iterations),
    TS_SPAN(tsched_sim_job, duration_ns), TS_SPAN(tsched_sim_job, level),     TS_SPAN(tsched_sim_job, work_tflop),
    TS_SPAN(tsched_sim_job, model),      TS_SPAN(tsched_sim_job, nodes),      TS_SPAN(tsched_sim_job, num_nodes),
};

tsched_status tsched_sim_add_job(uint32_t *index, tsched_sim *s, const tsched_sim_job *user)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_add_job: sim is NULL");
    if (!user)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_add_job: job is NULL");
    tsched_sim_job in;
    memset(&in, 0, sizeof in);
    in.size = sizeof in;
    tsched_status st = ts_struct_in(&in, user, job_spans, TS_NSPANS(job_spans), sizeof in, "tsched_sim_job");
    if (st != TSCHED_OK)
        return st;
    char where[300];
    snprintf(where, sizeof where, "jobs[%u]", s->njobs);
    if (!in.name)
        return ts_error(TSCHED_E_INVALID, "%s.name: NULL", where);
    if ((st = ts_name_check(in.name, "name")) != TSCHED_OK)
        return ts_error_prefix(st, where);
    if (find_job(s, in.name) != TSCHED_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "%s.name: duplicate job name \"%s\"", where, in.name);
    if (s->njobs >= ts_limits()->dag_nodes)
        return ts_limit_error("jobs", (unsigned long long)s->njobs + 1, "dag_nodes", ts_limits()->dag_nodes);
    if (in.arrival_ns < 0 || (s->started && in.arrival_ns < s->now))
        return ts_error(TSCHED_E_RANGE, "%s.arrival_s: %.9g is %s", where, (double)in.arrival_ns * 1e-9,
                        in.arrival_ns < 0 ? "negative" : "in the simulation's past");
    /* 0 = not given: needed by every placement but crius, checked when the run starts */
    if (in.compute_ns < 0)
        return ts_error(TSCHED_E_RANGE, "%s.compute_ms: %.9g must be positive", where, (double)in.compute_ns * 1e-6);
    if (!(in.overlap >= 0 && in.overlap <= 1))
        return ts_error(TSCHED_E_RANGE, "%s.overlap: %g is out of range [0, 1]", where, in.overlap);
    if ((in.iterations == 0) == (in.duration_ns <= 0))
        return ts_error(TSCHED_E_INVALID, "%s (\"%s\"): give exactly one of iterations and duration_s", where, in.name);
    if (!(in.work_tflop >= 0) || !isfinite(in.work_tflop))
        return ts_error(TSCHED_E_RANGE, "%s.work_tflop: %g must be positive", where, in.work_tflop);
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t), gsum = 0;
    for (uint32_t k = 0; k < in.num_nodes; k++) {
        if (!in.nodes)
            return ts_error(TSCHED_E_INVALID, "%s.nodes: NULL with num_nodes %u", where, in.num_nodes);
        if (in.nodes[k] >= nn)
            return ts_error(TSCHED_E_NOT_FOUND, "%s.nodes[%u]: node %u does not exist", where, k, in.nodes[k]);
        for (uint32_t q = 0; q < k; q++)
            if (in.nodes[q] == in.nodes[k])
                return ts_error(TSCHED_E_DUPLICATE, "%s.nodes[%u]: node \"%s\" is repeated", where, k,
                                tsched_topology_node_name(t, in.nodes[k]));
        gsum += tsched_topology_node_gpus(t, in.nodes[k]);
    }
    if (in.num_nodes && in.gpus == 0)
        in.gpus = gsum;
    if (in.gpus == 0)
        return ts_error(TSCHED_E_RANGE, "%s.gpus: must be at least 1", where);
    if (in.num_nodes && in.gpus != gsum)
        return ts_error(TSCHED_E_RANGE, "%s.gpus: %u does not match the %u GPUs of its nodes", where, in.gpus, gsum);
    if ((uint64_t)in.gpus > tsched_topology_num_gpus(t))
        return ts_error(TSCHED_E_RANGE, "%s.gpus: %u is more than the fabric's %llu GPUs", where, in.gpus,
                        (unsigned long long)tsched_topology_num_gpus(t));
    if (TS_GROW(s->jobs, s->jobs_cap, (size_t)s->njobs + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    ts_sim_job *j = &s->jobs[s->njobs];
    memset(j, 0, sizeof *j);
    if (!(j->name = ts_strdup(in.name)))
        return TSCHED_E_NOMEM;
    if (in.num_nodes) {
        if (!(j->fixed_nodes = ts_malloc(in.num_nodes, sizeof *j->fixed_nodes))) {
            free(j->name);
            return TSCHED_E_NOMEM;
        }
        memcpy(j->fixed_nodes, in.nodes, in.num_nodes * sizeof *j->fixed_nodes);
        j->nfixed = in.num_nodes;
    }
    j->arrival = in.arrival_ns;
    j->gpus = in.gpus;
    j->tp = in.tp;
    j->pp = in.pp ? in.pp : 1;
    j->compute = in.compute_ns;
    j->overlap = in.overlap;
    j->iterations = in.iterations;
    j->duration = in.iterations ? 0 : in.duration_ns;
    j->level = j->fixed_level = in.level;
    j->work_tflop = in.work_tflop;
    if (in.model) {
        tsched_model m;
        tsched_model_init(&m);
        memcpy(&m, in.model, in.model->size < sizeof m ? in.model->size : sizeof m);
        m.size = sizeof m;
        j->model = m;
        j->has_model = 1;
    }
    j->start = j->finish = -1;
    j->compute_start = -1;
    j->cr_index = TSCHED_NONE;
    /* its id is its index while the table holds every name (find_job) */
    uint32_t id;
    if (ts_strtab_count(&s->job_names) == s->njobs &&
        ts_strtab_intern(&s->job_names, j->name, &id, NULL) != TSCHED_OK) {
        job_free(j);
        return TSCHED_E_NOMEM;
    }
    if (index)
        *index = s->njobs;
    s->njobs++;
    if (s->started) {
        j->state = TS_JOB_FUTURE;
        uint64_t need0 = s->ev_need;
        if ((st = placement_rules(s, s->njobs - 1)) != TSCHED_OK ||
            (st = ts_sim_job_bounds(s, s->njobs - 1)) != TSCHED_OK) {
            s->ev_need = need0;
            drop_jobs(s, s->njobs - 1);
            return st;
        }
        if (ts_sim_cells(s))
            j->level = 0;
        if ((st = ts_sim_push(s, j->arrival, TS_EV_ARRIVAL, s->njobs - 1, 0)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status job_of(ts_sim_job **out, tsched_sim *s, uint32_t job, const char *fn)
{
    NONNULL(fn, s);
    if (job >= s->njobs)
        return ts_error(TSCHED_E_INVALID, "%s: job %u does not exist", fn, job);
    *out = &s->jobs[job];
    if ((*out)->state != TS_JOB_FUTURE || (s->started && (*out)->arrival < s->now))
        return ts_error(TSCHED_E_STATE, "%s: job \"%s\" has arrived; its phases are fixed", fn, (*out)->name);
    return TSCHED_OK;
}

tsched_status tsched_sim_job_add_phase(uint32_t *index, tsched_sim *s, uint32_t job, const tsched_sim_phase *phase)
{
    static const ts_span spans[] = {TS_SPAN(tsched_sim_phase, size), TS_SPAN(tsched_sim_phase, pattern),
                                    TS_SPAN(tsched_sim_phase, gbits), TS_SPAN(tsched_sim_phase, repeat)};
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_job_add_phase: sim is NULL");
    ts_sim_job *j = NULL;
    tsched_status st = job_of(&j, s, job, "tsched_sim_job_add_phase");
    if (st != TSCHED_OK)
        return st;
    NONNULL("tsched_sim_job_add_phase", phase);
    tsched_sim_phase in = {sizeof in, -1, 0, 1};
    if ((st = ts_struct_in(&in, phase, spans, TS_NSPANS(spans), sizeof in, "tsched_sim_phase")) != TSCHED_OK)
        return st;
    if (in.pattern < -1 || in.pattern > TSCHED_PATTERN_ALLTOALL)
        return ts_error(TSCHED_E_RANGE, "jobs[%u].phases[%u].pattern: unknown pattern %d", job, j->nphases,
                        in.pattern);
    if (!(in.gbits >= 0) || !isfinite(in.gbits))
        return ts_error(TSCHED_E_RANGE, "jobs[%u].phases[%u].gbits: %g must be positive", job, j->nphases, in.gbits);
    if (in.pattern >= 0 && in.gbits == 0 && !j->has_model)
        return ts_error(TSCHED_E_NOT_FOUND, "jobs[%u].phases[%u]: no gbits and job \"%s\" has no model", job,
                        j->nphases, j->name);
    if (TS_GROW(j->phases, j->phases_cap, (size_t)j->nphases + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    ts_sim_phase *p = &j->phases[j->nphases];
    p->pattern = in.pattern;
    p->step = -1;
    p->gbits = in.gbits;
    p->repeat = in.repeat ? in.repeat : 1;
    p->xoff = j->nx;
    p->nx = 0;
    if (index)
        *index = j->nphases;
    j->nphases++;
    return TSCHED_OK;
}

tsched_status tsched_sim_phase_add_flow(tsched_sim *s, uint32_t job, uint32_t phase, uint32_t src_rank,
                                        uint32_t src_nic, uint32_t dst_rank, uint32_t dst_nic, double gbits,
                                        const uint32_t *hops, uint32_t nhops)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_phase_add_flow: sim is NULL");
    ts_sim_job *j = NULL;
    tsched_status st = job_of(&j, s, job, "tsched_sim_phase_add_flow");
    if (st != TSCHED_OK)
        return st;
    if (phase >= j->nphases || phase != j->nphases - 1 || j->phases[phase].pattern != -1)
        return ts_error(TSCHED_E_INVALID,
                        "jobs[%u].phases[%u]: flows go to the last phase added, which must have no pattern", job,
                        phase);
    ts_sim_phase *p = &j->phases[phase];
    char where[96];
    snprintf(where, sizeof where, "jobs[%u].phases[%u].flows[%u]", job, phase, p->nx);
    if (!(gbits > 0) || !isfinite(gbits))
        return ts_error(TSCHED_E_RANGE, "%s.gbits: %g must be positive", where, gbits);
    const tsched_topology *t = s->t;
    if (j->nfixed) {
        if (src_rank >= j->nfixed || dst_rank >= j->nfixed)
            return ts_error(TSCHED_E_RANGE, "%s: rank %u out of range [0, %u)", where,
                            src_rank >= j->nfixed ? src_rank : dst_rank, j->nfixed);
        uint32_t a = j->fixed_nodes[src_rank], b = j->fixed_nodes[dst_rank];
        if (a == b)
            return ts_error(TSCHED_E_RANGE, "%s: src and dst are both on node \"%s\"", where,
                            tsched_topology_node_name(t, a));
        if (src_nic >= tsched_topology_node_nics(t, a) || dst_nic >= tsched_topology_node_nics(t, b))
            return ts_error(TSCHED_E_RANGE, "%s: NIC %u out of range", where,
                            src_nic >= tsched_topology_node_nics(t, a) ? src_nic : dst_nic);
    } else if (src_rank == dst_rank) {
        return ts_error(TSCHED_E_RANGE, "%s: src and dst are the same rank %u", where, src_rank);
    }
    if (nhops && !hops)
        return ts_error(TSCHED_E_INVALID, "%s.hops: NULL with %u hops", where, nhops);
    if (nhops > TSCHED_PATH_MAX_SWITCHES || (nhops && nhops % 2 == 0))
        return ts_error(TSCHED_E_NOT_FOUND, "%s.hops: %u switches are not a valley-free path", where, nhops);
    for (uint32_t h = 0; h < nhops; h++) {
        if (hops[h] >= tsched_topology_num_switches(t))
            return ts_error(TSCHED_E_NOT_FOUND, "%s.hops[%u]: switch %u does not exist", where, h, hops[h]);
        if (h && tsched_topology_find_trunk(t, hops[h - 1], hops[h]) == TSCHED_NONE)
            return ts_error(TSCHED_E_NOT_FOUND, "%s.hops[%u]: \"%s\" and \"%s\" are not linked", where, h,
                            tsched_topology_switch_name(t, hops[h - 1]), tsched_topology_switch_name(t, hops[h]));
    }
    if (nhops && j->nfixed &&
        (hops[0] != tsched_topology_node_nic_leaf(t, j->fixed_nodes[src_rank], src_nic) ||
         hops[nhops - 1] != tsched_topology_node_nic_leaf(t, j->fixed_nodes[dst_rank], dst_nic)))
        return ts_error(TSCHED_E_NOT_FOUND, "%s.hops: the path does not join the flow's NIC leaves", where);
    if (TS_GROW(j->xflows, j->x_cap, (size_t)j->nx + 1) != TSCHED_OK ||
        TS_GROW(j->hops, j->hops_cap, (size_t)j->nhops + nhops) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    ts_sim_xflow *x = &j->xflows[j->nx++];
    x->src = src_rank;
    x->src_nic = src_nic;
    x->dst = dst_rank;
    x->dst_nic = dst_nic;
    x->gbits = gbits;
    x->hop_off = j->nhops;
    x->nhops = nhops;
    if (nhops)
        memcpy(j->hops + j->nhops, hops, nhops * sizeof *hops);
    j->nhops += nhops;
    p->nx++;
    return TSCHED_OK;
}

tsched_status tsched_sim_add_failure(tsched_sim *s, int64_t at_ns, const char *name, int up)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_add_failure: sim is NULL");
    NONNULL("tsched_sim_add_failure", name);
    if (at_ns < 0 || (s->started && at_ns < s->now))
        return ts_error(TSCHED_E_RANGE, "failures: at_s %.9g is %s", (double)at_ns * 1e-9,
                        at_ns < 0 ? "negative" : "in the simulation's past");
    const tsched_topology *t = s->t;
    if (tsched_topology_find_node(t, name) == TSCHED_NONE && tsched_topology_find_switch(t, name) == TSCHED_NONE &&
        tsched_topology_find_member(t, name) == TSCHED_NONE) {
        const char *tilde = strchr(name, '~');
        int ok = 0;
        if (tilde && !strchr(name, '#')) {
            char a[512];
            size_t n = (size_t)(tilde - name);
            if (n < sizeof a) {
                memcpy(a, name, n);
                a[n] = '\0';
                uint32_t x = tsched_topology_find_switch(t, a), y = tsched_topology_find_switch(t, tilde + 1);
                ok = x != TSCHED_NONE && y != TSCHED_NONE && tsched_topology_find_trunk(t, x, y) != TSCHED_NONE;
            }
        }
        if (!ok)
            return ts_error(TSCHED_E_NOT_FOUND, "failures: no node, switch, trunk or member link named \"%s\"", name);
    }
    if (TS_GROW(s->failures, s->fail_cap, (size_t)s->nfail + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    ts_sim_failure *f = &s->failures[s->nfail];
    if (!(f->name = ts_strdup(name)))
        return TSCHED_E_NOMEM;
    f->at = at_ns;
    f->up = up ? 1 : 0;
    s->nfail++;
    if (s->started)
        return ts_sim_push(s, at_ns, TS_EV_FAILURE, s->nfail - 1, 0);
    return TSCHED_OK;
}

tsched_status tsched_sim_set_callback(tsched_sim *s, uint32_t mask, tsched_sim_callback cb, void *user)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_set_callback: sim is NULL");
    s->cb = cb;
    s->cb_user = user;
    s->cb_mask = cb ? mask : 0;
    return TSCHED_OK;
}

int64_t tsched_sim_now(const tsched_sim *s) { return s ? s->now : 0; }

tsched_status tsched_sim_set_gpu_catalog(tsched_sim *s, const tsched_gpu_catalog *cat)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_set_gpu_catalog: sim is NULL");
    NONNULL("tsched_sim_set_gpu_catalog", cat);
    tsched_status st = not_started(s, "tsched_sim_set_gpu_catalog");
    if (st != TSCHED_OK)
        return st;
    tsched_gpu_catalog *c = NULL;
    if ((st = tsched_gpu_catalog_default(&c)) == TSCHED_OK)
        st = tsched_gpu_catalog_merge(c, cat);
    if (st != TSCHED_OK) {
        tsched_gpu_catalog_free(c);
        return st;
    }
    tsched_gpu_catalog_free(s->cat);
    s->cat = c;
    return TSCHED_OK;
}

/* The first run_until: links, the rules that depend on the policies, the first events. */
tsched_status ts_sim_start_run(tsched_sim *s)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t);
    /* a start that failed earlier may have made the handles */
    tsched_vclos_free(s->vc);
    s->vc = NULL;
    tsched_crius_free(s->cr);
    s->cr = NULL;
    const ts_sim_place_ops *pl = ts_sim_placement(s);
    const ts_sim_route_ops *rt = ts_sim_routing(s);
    tsched_status st = TSCHED_OK;
    if ((rt->load && (st = rt->load(s, rt)) != TSCHED_OK) || (pl->load && (st = pl->load(s, pl)) != TSCHED_OK))
        return st;
    s->ntrunks = tsched_topology_num_trunks(t);
    if (!(s->nic_base = ts_malloc((size_t)nn + 1, sizeof *s->nic_base)))
        return TSCHED_E_NOMEM;
    uint64_t nics = 0;
    for (uint32_t n = 0; n < nn; n++) {
        s->nic_base[n] = (uint32_t)nics;
        nics += tsched_topology_node_nics(t, n);
        s->total_gpus += tsched_topology_node_gpus(t, n);
    }
    s->nic_base[nn] = (uint32_t)nics;
    /* fabric units: trunks, or in member mode every member link of every trunk */
    if (!(s->unit_base = ts_malloc((size_t)s->ntrunks + 1, sizeof *s->unit_base)))
        return TSCHED_E_NOMEM;
    uint64_t units = 0;
    for (uint32_t tr = 0; tr < s->ntrunks; tr++) {
        s->unit_base[tr] = (uint32_t)units;
        units += ts_sim_link_mode(s)->members ? tsched_topology_trunk_links(t, tr) : 1;
        if (units > UINT32_MAX / 4)
            return ts_error(TSCHED_E_TOO_LARGE, "sim: more than %u member links", UINT32_MAX / 4);
    }
    s->unit_base[s->ntrunks] = (uint32_t)units;
    s->nfab = (uint32_t)(2 * units);
    if (!(s->unit_trunk = ts_malloc(units ? units : 1, sizeof *s->unit_trunk)))
        return TSCHED_E_NOMEM;
    for (uint32_t tr = 0; tr < s->ntrunks; tr++)
        for (uint32_t u = s->unit_base[tr]; u < s->unit_base[tr + 1]; u++)
            s->unit_trunk[u] = tr;
    /* placement ocs-vclos: two directed slots per OCS port (a circuit of its member's
     * capacity), after the NIC links */
    s->ocs_base = (uint32_t)(s->nfab + 2 * nics);
    uint64_t host = 0; /* shared_nodes / host_links: host links after the OCS slots (host.c) */
    if ((st = ts_sim_host_layout(s, &host)) != TSCHED_OK)
        return st;
    uint64_t nl = (uint64_t)s->nfab + 2 * nics + 2 * (uint64_t)s->nocs + host + 1; /* + the dead link */
    if (nl > UINT32_MAX - 1)
        return ts_error(TSCHED_E_TOO_LARGE, "sim: %llu directed links", (unsigned long long)nl);
    s->nlinks = (uint32_t)nl;
    if (!(s->link = ts_calloc(s->nlinks ? s->nlinks : 1, sizeof *s->link)) ||
        !(s->base_flows = ts_calloc(2 * (size_t)s->ntrunks + 1, sizeof *s->base_flows)) ||
        !(s->unit_flows = ts_calloc((size_t)s->nfab + 1, sizeof *s->unit_flows)) ||
        !(s->phase_cnt = ts_calloc((size_t)s->nfab + 1, sizeof *s->phase_cnt)) ||
        (s->timeseries && !(s->s_link_gbits = ts_calloc((size_t)s->nfab + 1, sizeof *s->s_link_gbits))))
        return TSCHED_E_NOMEM;
    for (uint32_t l = 0; l < s->nlinks; l++) {
        s->link[l].cap = -1; /* refresh sets every capacity */
        s->link[l].busy_since = -1;
    }
    s->dead = s->nlinks - 1;
    s->link[s->dead].cap = 0;
    if (s->vc && !(s->node_pos = ts_malloc(nn ? nn : 1, sizeof *s->node_pos)))
        return TSCHED_E_NOMEM;
    for (uint32_t n = 0; s->node_pos && n < nn; n++)
        s->node_pos[n] = TSCHED_NONE;
    s->mark = 1;
    st = ts_sim_refresh_caps(s);
    s->ntouched = 0;
    s->mark++;
    if (st != TSCHED_OK)
        return st;
    /* GPUs per node: the most common count, ties to the smaller */
    uint32_t *hist = ts_calloc(1025, sizeof *hist);
    if (!hist)
        return TSCHED_E_NOMEM;
    for (uint32_t n = 0; n < nn; n++)
        hist[tsched_topology_node_gpus(t, n) <= 1024 ? tsched_topology_node_gpus(t, n) : 1024]++;
    uint32_t gpn = 1;
    for (uint32_t g = 1; g <= 1024; g++)
        if (hist[g] > hist[gpn])
            gpn = g;
    free(hist);
    s->gpn = gpn;
    /* rules that depend on the policies (doc/sim.md §4.1, §8) */
    for (uint32_t i = 0; i < s->njobs; i++) {
        ts_sim_job *j = &s->jobs[i];
        if ((st = placement_rules(s, i)) != TSCHED_OK || (st = ts_sim_host_rules(s, i)) != TSCHED_OK)
            return st;
        if (ts_sim_cells(s)) {
            /* tp, pp, compute_ms and phases are ignored: the Cell decides (doc/sim.md §3.2) */
            j->level = 0;
            continue;
        }
        if (ts_sim_priorities[s->pol[TSCHED_SIM_PRIORITY]].fixed && j->fixed_level >= s->levels)
            return ts_error(TSCHED_E_RANGE, "jobs[%u].level: %u is not below levels = %u (job \"%s\")", i,
                            j->fixed_level, s->levels, j->name);
        if (!ts_sim_priorities[s->pol[TSCHED_SIM_PRIORITY]].fixed)
            j->level = 0;
        if (!j->tp)
            j->tp = j->nfixed ? tsched_topology_node_gpus(t, j->fixed_nodes[0]) : gpn;
        if (!j->nfixed && j->gpus > gpn && j->gpus % gpn != 0 && !j->split)
            return ts_error(TSCHED_E_RANGE, "jobs[%u].gpus: %u is not a multiple of the %u GPUs of a node (job \"%s\")",
                            i, j->gpus, gpn, j->name);
        uint32_t nodes = j->nfixed ? j->nfixed : (j->gpus > gpn ? j->gpus / gpn : 1);
        if (nodes % j->pp != 0)
            return ts_error(TSCHED_E_RANGE, "jobs[%u].pp: %u does not divide its %u nodes (job \"%s\")", i, j->pp,
                            nodes, j->name);
        /* a pattern of several steps becomes that many consecutive phases (doc/sim.md §2
         * "Collective volumes with explicit gbits"): dp-hd 2 log2 rows (reduce-scatter
         * steps 0..L-1, then the all-gather on the same pairs in reverse), alltoall rows - 1 */
        for (uint32_t p = 0, q = 0; p < j->nphases; p++, q++) { /* q: the phase as given */
            ts_sim_phase *ph = &j->phases[p];
            if (ph->step >= 0 || (ph->pattern != TSCHED_PATTERN_DP_HD && ph->pattern != TSCHED_PATTERN_ALLTOALL))
                continue;
            uint32_t steps = 1, rows = nodes / j->pp;
            if (rows > 1 && (st = tsched_pattern_steps(&steps, (tsched_pattern)ph->pattern, rows, j->pp)) != TSCHED_OK)
                return ts_error_prefix(st, j->name);
            int hd = rows > 1 && ph->pattern == TSCHED_PATTERN_DP_HD;
            uint32_t n = hd ? 2 * steps : steps;
            if (n > 1 && TS_GROW(j->phases, j->phases_cap, (size_t)j->nphases + n - 1) != TSCHED_OK)
                return TSCHED_E_NOMEM;
            ph = &j->phases[p];
            memmove(ph + n, ph + 1, (j->nphases - p - 1) * sizeof *ph);
            const ts_sim_phase whole = ph[0];
            for (uint32_t k = 0; k < n; k++) {
                uint32_t step = k < steps ? k : n - 1 - k;
                ph[k] = whole;
                ph[k].step = (int32_t)step;
                if (whole.gbits > 0 && rows > 1) {
                    /* gbits is each rank's data per rail: Rabenseifner's halving-doubling
                     * sends half of what is left at step s (G / 2^(s+1)), pairwise
                     * exchange G / rows to each peer; the App. C volumes (gbits 0) are
                     * computed per step by tsched_flows_collective the same way */
                    ph[k].gbits = hd ? ldexp(whole.gbits, -(int)(step + 1)) : whole.gbits / rows;
                    if (!(ph[k].gbits > 0))
                        return ts_error(TSCHED_E_RANGE,
                                        "jobs[%u].phases[%u].gbits: %g is too small to split over %u ranks (job "
                                        "\"%s\")",
                                        i, q, whole.gbits, rows, j->name);
                }
            }
            j->nphases += n - 1;
            p += n - 1;
        }
        for (uint32_t p = 0; p < j->nphases; p++)
            for (uint32_t x = 0; x < j->phases[p].nx; x++) {
                const ts_sim_xflow *xf = &j->xflows[j->phases[p].xoff + x];
                if (xf->src >= nodes || xf->dst >= nodes)
                    return ts_error(TSCHED_E_RANGE, "jobs[%u].phases[%u].flows[%u]: rank %u out of range [0, %u)", i, p,
                                    x, xf->src >= nodes ? xf->src : xf->dst, nodes);
            }
    }
    if (pl->ready && (st = pl->ready(s, pl)) != TSCHED_OK)
        return st;
    if (s->to < s->from)
        return ts_error(TSCHED_E_RANGE, "measure.to_s: %.9g is before measure.from_s %.9g", (double)s->to * 1e-9,
                        (double)s->from * 1e-9);
    /* the least time and events the iterations need (doc/sim.md §1) */
    s->ev_need = 0;
    for (uint32_t i = 0; i < s->njobs; i++)
        if ((st = ts_sim_job_bounds(s, i)) != TSCHED_OK)
            return st;
    rt = ts_sim_routing(s); /* the placement may have implied it */
    if (rt->check && (st = rt->check(s, rt)) != TSCHED_OK)
        return st;
    for (uint32_t i = 0; i < s->njobs; i++)
        if ((st = ts_sim_push(s, s->jobs[i].arrival, TS_EV_ARRIVAL, i, 0)) != TSCHED_OK)
            return st;
    for (uint32_t i = 0; i < s->nfail; i++)
        if ((st = ts_sim_push(s, s->failures[i].at, TS_EV_FAILURE, i, 0)) != TSCHED_OK)
            return st;
    /* the first interval's counts */
    if (TS_GROW(s->samples, s->samples_cap, 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    memset(&s->samples[0], 0, sizeof s->samples[0]);
    s->started = 1;
    return TSCHED_OK;
}
