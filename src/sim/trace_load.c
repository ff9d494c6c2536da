/* The `tsched.trace.v1` reader (doc/sim.md §4.1, errors §8). Every field rule of the trace
 * that does not depend on the scenario's policies is checked here, with the field's JSON
 * path in the message (`jobs[3].phases[0].flows[1].dst`); the jobs then enter the simulation
 * through the public calls, whose errors get the same path in front. A document is added
 * whole or not at all (ts_sim_batch_begin / ts_sim_batch_abort). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error.h"
#include "common/json.h"
#include "common/limits.h"
#include "common/names.h"
#include "common/strtab.h"
#include "common/text.h"
#include "sim/sim_api.h"
#include "sim/trace_ranges.h"
#include "workload/workload_view.h"

#define TRACE_FORMAT "tsched.trace.v1"
/* JSON paths with 20-digit indices: jobs[i], .phases[p], .flows[f] */
#define JOB_CAP 32
#define PHASE_CAP 64
#define FLOW_CAP 96
/* bytes of an input name quoted in a message */
#define QUOTE_IN 80
/* 2^53: whole numbers above this are not exact as JSON reals (trace_ranges.h, which the
 * converters check what they write with) */
#define WHOLE_MAX ((double)TS_TRACE_COUNT_MAX)

/* ts_json_load_string() stores NULL through the slot's first pointer; the reader finds the
 * simulation beside it. */
typedef struct trace_slot {
    void *unused;
    tsched_sim *sim;
} trace_slot;

typedef struct quote_buf {
    char s[TS_TEXT_QUOTE_CAP(QUOTE_IN)];
} quote_buf;

static const char *quote(quote_buf *b, const char *s)
{
    return ts_text_quote(b->s, sizeof b->s, s, strlen(s), QUOTE_IN);
}

/* A field that is present and not null (null reads as absent, as in common/json.c). */
static const json_t *present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* A count of at least 1: a JSON integer, or an integral real up to 2^53. Absent leaves *out. */
static tsched_status read_count(uint64_t *out, const json_t *o, const char *where, const char *key)
{
    const json_t *v = present(o, key);
    if (!v)
        return TSCHED_OK;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 1)
            return ts_error(TSCHED_E_RANGE, "%s.%s: must be at least 1, got %lld", where, key, (long long)x);
        *out = (uint64_t)x;
        return TSCHED_OK;
    }
    if (!json_is_real(v))
        return ts_error(TSCHED_E_TYPE, "%s.%s: expected a whole number, got %s", where, key, ts_json_type_name(v));
    double d = json_real_value(v);
    if (!isfinite(d))
        return ts_error(TSCHED_E_RANGE, "%s.%s: not a finite number", where, key);
    if (d < 1)
        return ts_error(TSCHED_E_RANGE, "%s.%s: must be at least 1, got %g", where, key, d);
    if (d != floor(d) || d > WHOLE_MAX)
        return ts_error(TSCHED_E_RANGE, "%s.%s: expected a whole number up to 2^53, got %.17g", where, key, d);
    *out = (uint64_t)d;
    return TSCHED_OK;
}

/* A positive duration in `unit_s` seconds (1 for seconds, 1e-3 for milliseconds) converted to
 * nanoseconds; absent leaves *ns. A value that rounds to 0 ns is out of range. */
static tsched_status read_duration(int64_t *ns, const json_t *o, const char *where, const char *key, double unit_s,
                                   int required)
{
    double v = 0;
    tsched_status st = ts_json_num(&v, o, where, key, required, 0, 1, TS_SIM_MAX_S / unit_s);
    if (st != TSCHED_OK || !present(o, key))
        return st;
    int64_t x = ts_sim_ns(v * unit_s);
    if (x <= 0)
        return ts_error(TSCHED_E_RANGE, "%s.%s: %g is shorter than the clock's nanosecond", where, key, v);
    *ns = x;
    return TSCHED_OK;
}

/* The job's "model" (as tsched.job.v1; job.c's reader is private to it). */
static tsched_status read_model(tsched_model *m, const json_t *o, const char *jwhere)
{
    char where[JOB_CAP + 8];
    snprintf(where, sizeof where, "%s.model", jwhere);
    const uint32_t big = UINT32_MAX;
    tsched_status st;
    tsched_model_init(m);
    if ((st = ts_json_u32(&m->hidden, o, where, "hidden", 1, 1, big)) ||
        (st = ts_json_u32(&m->layers, o, where, "layers", 1, 1, big)) ||
        (st = ts_json_u32(&m->vocab, o, where, "vocab", 1, 1, big)) ||
        (st = ts_json_u32(&m->seq, o, where, "seq", 1, 1, big)) ||
        (st = ts_json_u32(&m->global_batch, o, where, "global_batch", 1, 1, big)) ||
        (st = ts_json_u32(&m->micro_batch, o, where, "micro_batch", 1, 1, big)) ||
        (st = ts_json_u32(&m->vpp, o, where, "vpp", 0, 1, big)) ||
        (st = ts_json_u32(&m->moe_experts, o, where, "moe_experts", 0, 0, big)))
        return st;
    /* its messages say `model.<field>` */
    if ((st = ts_model_check(m)) != TSCHED_OK)
        return ts_error_prefix(st, jwhere);
    return TSCHED_OK;
}

/* `nodes`: names resolved on the fabric, in rank order, no repeats. */
static tsched_status read_nodes(uint32_t **out, uint32_t *n, uint64_t *gpus, const json_t *arr, const char *jwhere,
                                const tsched_topology *t)
{
    size_t count = json_array_size(arr);
    *out = NULL;
    *n = 0;
    *gpus = 0;
    if (count == 0)
        return ts_error(TSCHED_E_RANGE, "%s.nodes: empty; leave it out to let the placement policy choose", jwhere);
    if (count > tsched_topology_num_nodes(t))
        return ts_error(TSCHED_E_RANGE, "%s.nodes: %zu nodes, more than the fabric's %u", jwhere, count,
                        tsched_topology_num_nodes(t));
    uint32_t *nodes = ts_malloc(count, sizeof *nodes);
    if (!nodes)
        return TSCHED_E_NOMEM;
    ts_strtab seen;
    ts_strtab_init(&seen);
    tsched_status st = TSCHED_OK;
    quote_buf q;
    for (size_t k = 0; k < count && st == TSCHED_OK; k++) {
        const json_t *v = json_array_get(arr, k);
        if (!json_is_string(v)) {
            st = ts_error(TSCHED_E_TYPE, "%s.nodes[%zu]: expected a string, got %s", jwhere, k, ts_json_type_name(v));
            break;
        }
        const char *name = json_string_value(v);
        uint32_t idx = tsched_topology_find_node(t, name);
        if (idx == TSCHED_NONE) {
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.nodes[%zu]: unknown node %s", jwhere, k, quote(&q, name));
            break;
        }
        uint32_t id;
        int added;
        if ((st = ts_strtab_intern(&seen, name, &id, &added)) != TSCHED_OK)
            break;
        if (!added) {
            st = ts_error(TSCHED_E_DUPLICATE, "%s.nodes[%zu]: node %s repeated (also nodes[%u])", jwhere, k,
                          quote(&q, name), id);
            break;
        }
        nodes[k] = idx;
        *gpus += tsched_topology_node_gpus(t, idx);
    }
    ts_strtab_free(&seen);
    if (st != TSCHED_OK) {
        free(nodes);
        return st;
    }
    *out = nodes;
    *n = (uint32_t)count;
    return TSCHED_OK;
}

/* What a flow's checks need to know about its job. */
typedef struct job_ctx {
    tsched_sim *sim;
    const tsched_topology *t;
    uint32_t index;          /* the job's index in the simulation */
    const uint32_t *nodes;   /* fixed placement, or NULL */
    uint32_t num_nodes;
    int has_model;
    uint64_t *flows_total;   /* explicit flows of the document so far */
} job_ctx;

/* A rank and its NIC, checked against the fixed nodes when there are some. */
static tsched_status check_end(const job_ctx *jc, const char *where, const char *rkey, uint32_t rank,
                               const char *nkey, uint32_t nic)
{
    if (!jc->nodes)
        return TSCHED_OK;
    if (rank >= jc->num_nodes)
        return ts_error(TSCHED_E_RANGE, "%s.%s: rank %u out of range [0, %u)", where, rkey, rank, jc->num_nodes);
    uint32_t node = jc->nodes[rank], nics = tsched_topology_node_nics(jc->t, node);
    if (nic >= nics) {
        quote_buf q;
        return ts_error(TSCHED_E_RANGE, "%s.%s: NIC %u out of range [0, %u) of node %s", where, nkey, nic, nics,
                        quote(&q, tsched_topology_node_name(jc->t, node)));
    }
    return TSCHED_OK;
}

/* `hops`: switch names resolved to indices, consecutive ones linked; with fixed nodes the
 * ends are the leaves of the two NICs. */
static tsched_status read_hops(uint32_t **out, uint32_t *n, const json_t *arr, const char *where, const job_ctx *jc,
                               uint32_t src, uint32_t src_nic, uint32_t dst, uint32_t dst_nic)
{
    size_t count = json_array_size(arr);
    *out = NULL;
    *n = 0;
    if (count == 0)
        return ts_error(TSCHED_E_NOT_FOUND, "%s.hops: empty, not a path (leave it out to let the routing choose)",
                        where);
    if (count > tsched_topology_num_switches(jc->t))
        return ts_error(TSCHED_E_NOT_FOUND, "%s.hops: %zu switches, more than the fabric's %u: not a path", where,
                        count, tsched_topology_num_switches(jc->t));
    uint32_t *hops = ts_malloc(count, sizeof *hops);
    if (!hops)
        return TSCHED_E_NOMEM;
    quote_buf q, q2;
    tsched_status st = TSCHED_OK;
    for (size_t h = 0; h < count && st == TSCHED_OK; h++) {
        const json_t *v = json_array_get(arr, h);
        if (!json_is_string(v)) {
            st = ts_error(TSCHED_E_TYPE, "%s.hops[%zu]: expected a string, got %s", where, h, ts_json_type_name(v));
            break;
        }
        hops[h] = tsched_topology_find_switch(jc->t, json_string_value(v));
        if (hops[h] == TSCHED_NONE)
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.hops[%zu]: unknown switch %s", where, h,
                          quote(&q, json_string_value(v)));
        else if (h > 0 && tsched_topology_find_trunk(jc->t, hops[h - 1], hops[h]) == TSCHED_NONE)
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.hops[%zu]: no link between %s and %s: not a path", where, h,
                          quote(&q, tsched_topology_switch_name(jc->t, hops[h - 1])),
                          quote(&q2, json_string_value(v)));
    }
    if (st == TSCHED_OK && jc->nodes) {
        uint32_t sl = tsched_topology_node_nic_leaf(jc->t, jc->nodes[src], src_nic);
        uint32_t dl = tsched_topology_node_nic_leaf(jc->t, jc->nodes[dst], dst_nic);
        if (hops[0] != sl)
            st = ts_error(TSCHED_E_NOT_FOUND, "%s.hops[0]: %s is not the leaf of the source NIC (%s): not a path",
                          where, quote(&q, tsched_topology_switch_name(jc->t, hops[0])),
                          quote(&q2, tsched_topology_switch_name(jc->t, sl)));
        else if (hops[count - 1] != dl)
            st = ts_error(TSCHED_E_NOT_FOUND,
                          "%s.hops[%zu]: %s is not the leaf of the destination NIC (%s): not a path", where,
                          count - 1, quote(&q, tsched_topology_switch_name(jc->t, hops[count - 1])),
                          quote(&q2, tsched_topology_switch_name(jc->t, dl)));
    }
    if (st != TSCHED_OK) {
        free(hops);
        return st;
    }
    *out = hops;
    *n = (uint32_t)count;
    return TSCHED_OK;
}

static tsched_status read_flow(const job_ctx *jc, uint32_t phase, const json_t *o, const char *where)
{
    if (!json_is_object(o))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
    uint32_t src = 0, dst = 0, src_nic = 0, dst_nic = 0;
    double gbits = 0;
    const json_t *hops_arr;
    tsched_status st;
    if ((st = ts_json_u32(&src, o, where, "src", 1, 0, UINT32_MAX)) ||
        (st = ts_json_u32(&src_nic, o, where, "src_nic", 0, 0, UINT32_MAX)) ||
        (st = check_end(jc, where, "src", src, "src_nic", src_nic)) ||
        (st = ts_json_u32(&dst, o, where, "dst", 1, 0, UINT32_MAX)) ||
        (st = ts_json_u32(&dst_nic, o, where, "dst_nic", 0, 0, UINT32_MAX)) ||
        (st = check_end(jc, where, "dst", dst, "dst_nic", dst_nic)))
        return st;
    if (src == dst)
        return ts_error(TSCHED_E_RANGE, "%s.dst: rank %u is also src: src and dst on one node (NVLink is not "
                                        "modelled)", where, dst);
    if ((st = ts_json_num(&gbits, o, where, "gbits", 1, 0, 1, HUGE_VAL)) ||
        (st = ts_json_arr(&hops_arr, o, where, "hops", 0)))
        return st;
    uint32_t *hops = NULL, nhops = 0;
    if (hops_arr && (st = read_hops(&hops, &nhops, hops_arr, where, jc, src, src_nic, dst, dst_nic)) != TSCHED_OK)
        return st;
    st = tsched_sim_phase_add_flow(jc->sim, jc->index, phase, src, src_nic, dst, dst_nic, gbits, hops, nhops);
    free(hops);
    return st == TSCHED_OK ? st : ts_error_prefix(st, where);
}

static tsched_status read_phase(const job_ctx *jc, const json_t *o, const char *where)
{
    if (!json_is_object(o))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
    const json_t *pat = present(o, "pattern"), *fl = present(o, "flows");
    if ((pat != NULL) == (fl != NULL))
        return ts_error(TSCHED_E_INVALID, "%s: %s of \"pattern\" and \"flows\"; exactly one is needed", where,
                        pat ? "both" : "neither");
    tsched_sim_phase ph;
    memset(&ph, 0, sizeof ph);
    ph.size = sizeof ph;
    ph.pattern = -1;
    ph.repeat = 1;
    tsched_status st;
    const json_t *flows = NULL;
    if ((st = ts_json_u32(&ph.repeat, o, where, "repeat", 0, 1, UINT32_MAX)) != TSCHED_OK)
        return st;
    if (pat) {
        const char *name;
        tsched_pattern p;
        if ((st = ts_json_str(&name, o, where, "pattern", 1)) != TSCHED_OK)
            return st;
        if (tsched_pattern_from_name(&p, name) != TSCHED_OK) {
            quote_buf q;
            return ts_error(TSCHED_E_FORMAT, "%s.pattern: unknown pattern %s; expected dp-ring, dp-hd, pp or alltoall",
                            where, quote(&q, name));
        }
        ph.pattern = (int)p;
        if ((st = ts_json_num(&ph.gbits, o, where, "gbits", 0, 0, 1, HUGE_VAL)) != TSCHED_OK)
            return st;
        if (!present(o, "gbits") && !jc->has_model)
            return ts_error(TSCHED_E_NOT_FOUND, "%s.gbits: missing, and the job has no \"model\" to take the volumes "
                                                "from", where);
    } else {
        if ((st = ts_json_arr(&flows, o, where, "flows", 1)) != TSCHED_OK)
            return st;
        *jc->flows_total += json_array_size(flows);
        char what[PHASE_CAP + 32];
        snprintf(what, sizeof what, "%s.flows: flows in all", where);
        if ((st = ts_limit_check(what, *jc->flows_total, "flows", ts_limits()->flows)) != TSCHED_OK)
            return st;
    }
    uint32_t phase;
    if ((st = tsched_sim_job_add_phase(&phase, jc->sim, jc->index, &ph)) != TSCHED_OK)
        return ts_error_prefix(st, where);
    char fwhere[FLOW_CAP];
    for (size_t f = 0; flows && f < json_array_size(flows); f++) {
        snprintf(fwhere, sizeof fwhere, "%s.flows[%zu]", where, f);
        if ((st = read_flow(jc, phase, json_array_get(flows, f), fwhere)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_job(tsched_sim *sim, const tsched_topology *t, const json_t *o, size_t i, ts_strtab *names,
                              uint64_t *flows_total)
{
    char where[JOB_CAP];
    snprintf(where, sizeof where, "jobs[%zu]", i);
    if (!json_is_object(o))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
    tsched_status st;
    tsched_sim_job j;
    memset(&j, 0, sizeof j);
    j.size = sizeof j;
    quote_buf q;

    const char *name;
    char field[JOB_CAP + 8];
    snprintf(field, sizeof field, "%s.name", where);
    if ((st = ts_json_str(&name, o, where, "name", 1)) || (st = ts_name_check(name, field)))
        return st;
    uint32_t id;
    int added;
    if ((st = ts_strtab_intern(names, name, &id, &added)) != TSCHED_OK)
        return st;
    if (!added)
        return ts_error(TSCHED_E_DUPLICATE, "%s.name: duplicate job name %s (also jobs[%u])", where, quote(&q, name),
                        id);
    j.name = name;

    double arrival = 0;
    if ((st = ts_json_num(&arrival, o, where, "arrival_s", 0, 0, 0, TS_SIM_MAX_S)) != TSCHED_OK)
        return st;
    j.arrival_ns = ts_sim_ns(arrival);

    const json_t *nodes_arr, *model_obj, *phases;
    if ((st = ts_json_arr(&nodes_arr, o, where, "nodes", 0)) ||
        (st = ts_json_obj(&model_obj, o, where, "model", 0)) ||
        (st = ts_json_arr(&phases, o, where, "phases", 0)))
        return st;

    uint32_t *nodes = NULL, num_nodes = 0;
    uint64_t node_gpus = 0;
    if (nodes_arr && (st = read_nodes(&nodes, &num_nodes, &node_gpus, nodes_arr, where, t)) != TSCHED_OK)
        return st;
    j.nodes = nodes;
    j.num_nodes = num_nodes;

    tsched_model model;
    uint64_t iterations = 0;
    const json_t *iter_v = present(o, "iterations"), *dur_v = present(o, "duration_s");
    if ((st = ts_json_u32(&j.gpus, o, where, "gpus", nodes == NULL, 1, UINT32_MAX)) != TSCHED_OK)
        goto done;
    if (nodes && present(o, "gpus") && j.gpus != node_gpus) {
        st = ts_error(TSCHED_E_RANGE, "%s.gpus: %u does not match the %llu GPUs of its %u nodes", where, j.gpus,
                      (unsigned long long)node_gpus, num_nodes);
        goto done;
    }
    if (nodes && !present(o, "gpus")) {
        if (node_gpus > UINT32_MAX) {
            st = ts_error(TSCHED_E_RANGE, "%s.nodes: %llu GPUs in all, more than a job may have", where,
                          (unsigned long long)node_gpus);
            goto done;
        }
        j.gpus = (uint32_t)node_gpus;
    }
    if (j.gpus > tsched_topology_num_gpus(t)) {
        st = ts_error(TSCHED_E_RANGE, "%s.gpus: %u GPUs, more than the fabric's %llu", where, j.gpus,
                      (unsigned long long)tsched_topology_num_gpus(t));
        goto done;
    }
    if ((st = ts_json_u32(&j.tp, o, where, "tp", 0, 1, UINT32_MAX)) ||
        (st = ts_json_u32(&j.pp, o, where, "pp", 0, 1, UINT32_MAX)))
        goto done;
    if (model_obj) {
        if ((st = read_model(&model, model_obj, where)) != TSCHED_OK)
            goto done;
        j.model = &model;
    }
    if ((st = read_duration(&j.compute_ns, o, where, "compute_ms", 1e-3, 0)) ||
        (st = ts_json_num(&j.overlap, o, where, "overlap", 0, 0, 0, 1)))
        goto done;
    if ((iter_v != NULL) == (dur_v != NULL)) {
        st = ts_error(TSCHED_E_INVALID, "%s: %s of \"iterations\" and \"duration_s\" (job %s); exactly one is needed",
                      where, iter_v ? "both" : "neither", quote(&q, name));
        goto done;
    }
    if ((st = read_count(&iterations, o, where, "iterations")) ||
        (st = read_duration(&j.duration_ns, o, where, "duration_s", 1, 0)) ||
        (st = ts_json_u32(&j.level, o, where, "level", 0, 0, UINT32_MAX)) ||
        (st = ts_json_num(&j.work_tflop, o, where, "work_tflop", 0, 0, 1, HUGE_VAL)))
        goto done;
    j.iterations = iterations;

    uint32_t index;
    if ((st = tsched_sim_add_job(&index, sim, &j)) != TSCHED_OK) {
        st = ts_error_prefix(st, where);
        goto done;
    }
    job_ctx jc = {sim, t, index, nodes, num_nodes, model_obj != NULL, flows_total};
    char pwhere[PHASE_CAP];
    for (size_t p = 0; phases && p < json_array_size(phases); p++) {
        snprintf(pwhere, sizeof pwhere, "%s.phases[%zu]", where, p);
        if ((st = read_phase(&jc, json_array_get(phases, p), pwhere)) != TSCHED_OK)
            break;
    }
done:
    free(nodes);
    return st;
}

static tsched_status read_trace(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    tsched_sim *sim = ((trace_slot *)slot)->sim;
    const json_t *jobs;
    const char *doc_name;
    tsched_status st;
    if ((st = ts_json_check_format(root, TRACE_FORMAT)) || (st = ts_json_str(&doc_name, root, "", "name", 0)) ||
        (st = ts_json_arr(&jobs, root, "", "jobs", 1)))
        return st;
    const tsched_topology *t = ts_sim_topology(sim);
    if (!t)
        return ts_error(TSCHED_E_INVALID, "jobs: the simulation has no fabric");
    ts_strtab names;
    ts_strtab_init(&names);
    uint64_t flows_total = 0;
    ts_sim_batch_begin(sim);
    for (size_t i = 0; i < json_array_size(jobs) && st == TSCHED_OK; i++)
        st = read_job(sim, t, json_array_get(jobs, i), i, &names, &flows_total);
    ts_strtab_free(&names);
    if (st != TSCHED_OK)
        ts_sim_batch_abort(sim);
    return st;
}

tsched_status tsched_sim_load_trace_string(tsched_sim *sim, const char *json, size_t len)
{
    if (!sim)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_trace_string: sim is NULL");
    trace_slot slot = {NULL, sim};
    return ts_json_load_string(&slot, read_trace, NULL, json, len, "tsched_sim_load_trace_string");
}

tsched_status tsched_sim_load_trace_file(tsched_sim *sim, const char *path)
{
    if (!sim)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_trace_file: sim is NULL");
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_trace_file: path is NULL");
    trace_slot slot = {NULL, sim};
    return ts_json_load_file(&slot, read_trace, NULL, path, "tsched_sim_load_trace_file");
}
