/* The `tsched.simresult.v1` writer (doc/sim.md §5.1): field names and order as the format
 * shows them, null for what did not happen (a job that never started or finished), seconds
 * as reals (ns / 1e9), counts as integers. */
#include <math.h>
#include <string.h>

#include "common/error.h"
#include "common/json.h"
#include "sim/sim_result.h"

#define RESULT_FORMAT "tsched.simresult.v1"
#define KNOWN_FLAGS (TSCHED_SIM_JSON_NO_TIMING | TSCHED_SIM_JSON_LINKS | TSCHED_SIM_JSON_COMPACT)

const char *ts_sim_status_name(int status)
{
    switch (status) {
    case TSCHED_SIM_DONE: return "done";
    case TSCHED_SIM_UNTIL: return "until";
    case TSCHED_SIM_STALLED: return "stalled";
    default: return NULL;
    }
}

const char *ts_sim_wait_cause_name(int cause)
{
    switch (cause) {
    case TSCHED_SIM_WAIT_GPU: return "gpu";
    case TSCHED_SIM_WAIT_NETWORK: return "network";
    case TSCHED_SIM_WAIT_TIMEOUT: return "timeout";
    case TSCHED_SIM_WAIT_QUEUE: return "queue";
    default: return NULL; /* TSCHED_SIM_WAIT_NONE, and anything unknown */
    }
}

/* A double; null when it is not finite (jansson cannot write NaN or infinities, and the
 * engine leaves averages over nothing as NaN rather than inventing a 0). */
static json_t *real(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Nanoseconds as seconds. */
static json_t *secs(int64_t ns) { return json_real((double)ns / 1e9); }

/* A count (written as an integer). */
static json_t *count(uint64_t x) { return json_integer(x > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)x); }

static tsched_status put(json_t *o, const char *key, json_t *v) { return ts_json_set(o, key, v); }

static tsched_status add_summary(json_t *root, const tsched_sim_summary *s)
{
    json_t *o = json_object();
    tsched_status st = put(root, "summary", o);
    if (st != TSCHED_OK)
        return st;
    return put(o, "jobs", count(s->jobs)) || put(o, "jobs_done", count(s->jobs_done)) ||
                   put(o, "avg_jct_s", real(s->avg_jct_s)) || put(o, "avg_wait_s", real(s->avg_wait_s)) ||
                   put(o, "avg_run_s", real(s->avg_run_s)) || put(o, "makespan_s", real(s->makespan_s)) ||
                   put(o, "gpu_util", real(s->gpu_util)) || put(o, "gpu_util_alloc", real(s->gpu_util_alloc)) ||
                   put(o, "gbits_demanded", real(s->gbits_demanded)) ||
                   put(o, "gbits_delivered", real(s->gbits_delivered)) || put(o, "events", count(s->events)) ||
                   put(o, "rate_updates", count(s->rate_updates)) ||
                   put(o, "components", count(s->components)) ||
                   put(o, "component_flows_max", count(s->component_flows_max)) ||
                   put(o, "component_flows_mean", real(s->component_flows_mean)) || put(o, "waits_gpu", count(s->waits_gpu)) ||
                   put(o, "waits_network", count(s->waits_network)) ||
                   put(o, "waits_timeout", count(s->waits_timeout)) || put(o, "waits_queue", count(s->waits_queue))
               ? TSCHED_E_NOMEM
               : TSCHED_OK;
}

/* Placement crius: GPUs per node (beside "nodes") and the job's last Cell, or null. */
static tsched_status add_cell(json_t *o, const tsched_sim_result *r, uint32_t i)
{
    json_t *g = json_array();
    tsched_status st = put(o, "node_gpus", g);
    for (uint32_t k = r->node_off[i]; st == TSCHED_OK && k < r->node_off[i + 1]; k++)
        st = ts_json_push(g, count(r->node_gpus[k]));
    if (st != TSCHED_OK)
        return st;
    const ts_sim_cell_rec *c = &r->cells[i];
    if (!c->pool)
        return put(o, "cell", json_null());
    json_t *cell = json_object();
    if ((st = put(o, "cell", cell)) != TSCHED_OK)
        return st;
    return put(cell, "pool", json_string(c->pool)) || put(cell, "gpus", count(c->gpus)) ||
                   put(cell, "stages", count(c->stages)) || put(cell, "iteration_s", real(c->iteration_s))
               ? TSCHED_E_NOMEM
               : TSCHED_OK;
}

static tsched_status add_job(json_t *arr, const tsched_sim_result *r, uint32_t i)
{
    const tsched_sim_job_stats *j = &r->jobs[i];
    if (j->wait_cause < TSCHED_SIM_WAIT_NONE || j->wait_cause > TSCHED_SIM_WAIT_QUEUE)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: jobs[%u].wait_cause: unknown cause %d", i,
                        j->wait_cause);
    json_t *o = json_object(), *nodes;
    tsched_status st = ts_json_push(arr, o);
    if (st != TSCHED_OK)
        return st;
    /* ts_json_set() takes the value even when it fails: nothing leaks */
    if ((st = put(o, "name", json_string(j->name ? j->name : ""))) || (st = put(o, "gpus", count(j->gpus))) ||
        (st = put(o, "level", count(j->level))) || (st = put(o, "nodes", nodes = json_array())))
        return st;
    if (r->node_off && r->node_names)
        for (uint32_t k = r->node_off[i]; k < r->node_off[i + 1]; k++)
            if ((st = ts_json_push(nodes, json_string(r->node_names[k] ? r->node_names[k] : ""))) != TSCHED_OK)
                return st;
    int started = j->start_ns >= 0, finished = started && j->finish_ns >= 0;
    const char *cause = ts_sim_wait_cause_name(j->wait_cause);
    if (r->crius && r->cells && r->node_gpus && (st = add_cell(o, r, i)) != TSCHED_OK)
        return st;
    return put(o, "arrival_s", secs(j->arrival_ns)) ||
                   put(o, "start_s", started ? secs(j->start_ns) : json_null()) ||
                   put(o, "finish_s", finished ? secs(j->finish_ns) : json_null()) ||
                   put(o, "wait_s", started ? secs(j->start_ns - j->arrival_ns) : json_null()) ||
                   put(o, "run_s", finished ? secs(j->finish_ns - j->start_ns) : json_null()) ||
                   put(o, "jct_s", finished ? secs(j->finish_ns - j->arrival_ns) : json_null()) ||
                   put(o, "iterations", count(j->iterations)) ||
                   put(o, "iterations_done", count(j->iterations_done)) ||
                   put(o, "iter_mean_s", real(j->iter_mean_s)) || put(o, "iter_min_s", real(j->iter_min_s)) ||
                   put(o, "iter_max_s", real(j->iter_max_s)) || put(o, "iter_alone_s", real(j->iter_alone_s)) ||
                   put(o, "compute_s", real(j->compute_s)) || put(o, "restarts", count(j->restarts)) ||
                   put(o, "gbits_demanded", real(j->gbits_demanded)) ||
                   put(o, "gbits_delivered", real(j->gbits_delivered)) ||
                   put(o, "wait_cause", cause ? json_string(cause) : json_null())
               ? TSCHED_E_NOMEM
               : TSCHED_OK;
}

static tsched_status add_links(json_t *root, const tsched_sim_result *r)
{
    json_t *arr = json_array();
    tsched_status st = put(root, "links", arr);
    for (uint32_t i = 0; st == TSCHED_OK && i < r->nlinks; i++) {
        const ts_sim_link_stats *l = &r->links[i];
        json_t *o = json_object();
        if ((st = ts_json_push(arr, o)) != TSCHED_OK)
            break;
        if (put(o, "a", json_string(l->a ? l->a : "")) || put(o, "b", json_string(l->b ? l->b : "")) ||
            put(o, "member", l->member < 0 ? json_null() : count((uint64_t)l->member)) ||
            put(o, "gbps", real(l->gbps)) || put(o, "mean_util", real(l->mean_util)) ||
            put(o, "busy_frac", real(l->busy_frac)))
            st = TSCHED_E_NOMEM;
    }
    return st;
}

static tsched_status build(json_t *root, const tsched_sim_result *r, int flags)
{
    const tsched_sim_summary *s = &r->summary;
    const char *status = ts_sim_status_name(s->status);
    if (!status)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: summary.status: unknown status %d", s->status);
    tsched_status st;
    json_t *window;
    if ((st = put(root, "format", json_string(RESULT_FORMAT))) ||
        (st = put(root, "scenario", json_string(r->scenario ? r->scenario : "scenario"))) ||
        (st = put(root, "status", json_string(status))) || (st = put(root, "end_s", secs(s->end_ns))) ||
        (st = put(root, "window", window = json_object())) || (st = put(window, "from_s", secs(s->from_ns))) ||
        (st = put(window, "to_s", s->to_ns == INT64_MAX ? json_null() : secs(s->to_ns))) ||
        (st = add_summary(root, s)))
        return st;
    if (r->crius && (st = put(json_object_get(root, "summary"), "crius_events", count(r->crius_events))) != TSCHED_OK)
        return st;
    json_t *jobs = json_array();
    if ((st = put(root, "jobs", jobs)) != TSCHED_OK)
        return st;
    for (uint32_t i = 0; i < r->njobs; i++)
        if ((st = add_job(jobs, r, i)) != TSCHED_OK)
            return st;
    if ((flags & TSCHED_SIM_JSON_LINKS) && (st = add_links(root, r)) != TSCHED_OK)
        return st;
    if (!(flags & TSCHED_SIM_JSON_NO_TIMING) && (st = put(root, "wall_ms", real(s->wall_ms))) != TSCHED_OK)
        return st;
    return TSCHED_OK;
}

tsched_status tsched_sim_result_to_json(char **out, const tsched_sim_result *result, int flags)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: out is NULL");
    *out = NULL;
    if (!result)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: result is NULL");
    if (flags & ~KNOWN_FLAGS)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: flags: unknown bits 0x%x",
                        (unsigned)(flags & ~KNOWN_FLAGS));
    if (result->njobs && !result->jobs)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: result has %u jobs but no job records",
                        result->njobs);
    if (result->nlinks && !result->links && (flags & TSCHED_SIM_JSON_LINKS))
        return ts_error(TSCHED_E_INVALID, "tsched_sim_result_to_json: result has %u links but no link records",
                        result->nlinks);
    json_t *root = json_object();
    if (!root)
        return ts_error(TSCHED_E_NOMEM, "out of memory building tsched.simresult.v1");
    tsched_status st = build(root, result, flags);
    if (st == TSCHED_OK) {
        *out = ts_json_write(root, (flags & TSCHED_SIM_JSON_COMPACT) ? TS_JSON_COMPACT : TS_JSON_INDENT, NULL);
        if (!*out)
            st = ts_error(TSCHED_E_NOMEM, "out of memory writing tsched.simresult.v1");
    }
    json_decref(root);
    return st;
}
