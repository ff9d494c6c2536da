/* The readers of vclos (doc/vclos.md §8, doc/FORMATS.md): tsched.vclos-requests.v1 applied
 * request by request (tsched_vclos_apply_requests, the CLI's -r), and the jobs of an earlier
 * tsched.vclos.v1 loaded as running (tsched_vclos_load_state, the CLI's --state). Every
 * error names the request or job and the field: `requests[3].gpus: 0 is not a positive
 * integer`. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/clock.h"
#include "../../common/json.h"
#include "../../common/output_opts.h"
#include "../../common/limits.h"
#include "../../common/names.h"
#include "json_out.h"
#include "../ocs/ocs_io.h"

/* ---- shared field readers ---- */

static tsched_status parse_doc(json_t **root, const char *json, size_t len, const char *format)
{
    *root = NULL;
    if (len > ts_limits()->input_bytes)
        return ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    tsched_status st = ts_json_parse(root, json, len);
    if (st)
        return st;
    if ((st = ts_json_check_format(*root, format))) {
        json_decref(*root);
        *root = NULL;
    }
    return st;
}

/* A whole number of GPUs in [1, total]: `where.gpus: 0 is not a positive integer`. */
static tsched_status read_gpus(uint32_t *out, const json_t *obj, const char *where, uint64_t total)
{
    const json_t *g = json_object_get(obj, "gpus");
    if (!g || json_is_null(g))
        return ts_error(TSCHED_E_NOT_FOUND, "%s.gpus: missing required field", where);
    double d;
    if (json_is_integer(g)) {
        json_int_t x = json_integer_value(g);
        if (x <= 0)
            return ts_error(TSCHED_E_RANGE, "%s.gpus: %lld is not a positive integer", where, (long long)x);
        d = (double)x;
    } else if (json_is_real(g)) {
        d = json_real_value(g);
        if (!(d >= 1) || d != floor(d))
            return ts_error(TSCHED_E_RANGE, "%s.gpus: %g is not a positive integer", where, d);
    } else
        return ts_error(TSCHED_E_TYPE, "%s.gpus: expected a positive integer, got %s", where, ts_json_type_name(g));
    if (d > (double)total)
        return ts_error(TSCHED_E_RANGE, "%s.gpus: %.0f is above the fabric's %llu GPUs", where, d,
                        (unsigned long long)total);
    *out = (uint32_t)d;
    return TSCHED_OK;
}

/* A job name: a string the library accepts as a name. */
static tsched_status read_name(const char **out, const json_t *obj, const char *where, const char *key)
{
    tsched_status st = ts_json_str(out, obj, where, key, 1);
    if (st)
        return st;
    char field[96];
    snprintf(field, sizeof field, "%s.%s", where, key);
    return ts_name_check(*out, field);
}

/* Does `name` name a node, a switch, a trunk `a~b` or a member `a~b#k` of the fabric? */
static int element_exists(const tsched_topology *t, const char *name)
{
    if (tsched_topology_find_node(t, name) != TSCHED_NONE || tsched_topology_find_switch(t, name) != TSCHED_NONE)
        return 1;
    if (strchr(name, '#'))
        return tsched_topology_find_member(t, name) != TSCHED_NONE;
    const char *tilde = strchr(name, '~');
    if (!tilde || strchr(tilde + 1, '~'))
        return 0;
    size_t n = (size_t)(tilde - name);
    char *a = ts_malloc(n + 1, 1);
    if (!a)
        return 0;
    memcpy(a, name, n);
    a[n] = '\0';
    uint32_t sa = tsched_topology_find_switch(t, a), sb = tsched_topology_find_switch(t, tilde + 1);
    free(a);
    return sa != TSCHED_NONE && sb != TSCHED_NONE && tsched_topology_find_trunk(t, sa, sb) != TSCHED_NONE;
}

/* ---- load_state ---- */

/* A string element `arr[i]` (`where[i]`). */
static tsched_status arr_str(const char **out, const json_t *arr, size_t i, const char *where)
{
    const json_t *x = json_array_get(arr, i);
    if (!json_is_string(x))
        return ts_error(TSCHED_E_TYPE, "%s[%zu]: expected a string, got %s", where, i, ts_json_type_name(x));
    *out = json_string_value(x);
    return TSCHED_OK;
}

/* Local index of a switch of `tier` named arr[i]. */
static tsched_status arr_switch(uint32_t *out, const tsched_vclos *v, const json_t *arr, size_t i, const char *where,
                                int tier)
{
    const char *name;
    tsched_status st = arr_str(&name, arr, i, where);
    if (st)
        return st;
    uint32_t s = tsched_topology_find_switch(v->topo, name);
    if (s == TSCHED_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "%s[%zu]: \"%s\" not found", where, i, name);
    if (tsched_topology_switch_tier(v->topo, s) != tier)
        return ts_error(TSCHED_E_INVALID, "%s[%zu]: \"%s\" is not a %s", where, i, name, tier ? "spine" : "leaf");
    *out = v->sw_local[s];
    return TSCHED_OK;
}

/* The OCS ports of a stage-2 job of ocs-vclos: `leafA~spineB@ocsK` (or `leafA~leafB@ocsK`
 * for stage 2a) names leaf A's port on OCS K; the port must belong to the right leaf, be
 * free and up, and (2a) both leaves' ports of one rank share their OCS. The circuits are
 * re-pointed when the job is added (vc_ocs_commit), as an allocation would. */
static tsched_status state_ocs_links(vc_job *j, const tsched_vclos *v, const json_t *links, const char *w, int two_a)
{
    char f[96];
    snprintf(f, sizeof f, "%s.links", w);
    uint32_t U = vc_ocs_count(v);
    int one_spine = 1;
    for (uint32_t x = 1; x < j->s; x++)
        one_spine &= j->sp[x] == j->sp[0];
    j->ocs_stage = two_a ? 20 : one_spine ? 21 : 3; /* 2b used one spine; stage 3 may too (not told apart) */
    for (uint32_t i = 0; i < j->l * j->s; i++) {
        const char *nm;
        tsched_status st;
        if (json_is_null(json_array_get(links, i)))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: null: a degraded ocs-vclos job cannot be loaded", f, i);
        if ((st = arr_str(&nm, links, i, f)))
            return st;
        const char *at = strstr(nm, "@ocs"), *tilde = strchr(nm, '~');
        char *end = NULL;
        unsigned long k = at && at[4] >= '0' && at[4] <= '9' ? strtoul(at + 4, &end, 10) : ULONG_MAX;
        if (!at || !tilde || tilde > at || !end || *end || k >= U)
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is not an OCS port leafA~spineB@ocsK (K < %u)", f, i, nm,
                            U);
        uint32_t leaf = j->leaves[i / j->s];
        const char *leaf_name = tsched_topology_switch_name(v->topo, v->leaf_sw[leaf]);
        if (strlen(leaf_name) != (size_t)(tilde - nm) || strncmp(nm, leaf_name, (size_t)(tilde - nm)))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is not a port of %s", f, i, nm, leaf_name);
        uint32_t port;
        if ((st = vc_ocs_state_port(&port, v, leaf, k, f, i, nm)))
            return st;
        for (uint32_t x = (i / j->s) * j->s; x < i; x++)
            if (j->links[x] == port)
                return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is listed twice", f, i, nm);
        if (two_a && i >= j->s && !vc_ocs_same_ocs(v, port, j->links[i - j->s]))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is not on the OCS of the other leaf's port %u", f, i, nm,
                            i - j->s);
        j->links[i] = port;
    }
    return TSCHED_OK;
}

/* Read and check one job of a state document against the handle's current state (the
 * jobs before it in the document are already added). */
static tsched_status state_job(vc_job *j, const tsched_vclos *v, const json_t *o, uint32_t idx)
{
    char w[64], f[96];
    snprintf(w, sizeof w, "jobs[%u]", idx);
    if (!json_is_object(o))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", w, ts_json_type_name(o));
    const char *name;
    const json_t *nodes, *leaves, *spines, *links;
    uint32_t stage, gpn;
    uint64_t total = (uint64_t)v->T * v->nnodes;
    tsched_status st;
    if ((st = read_name(&name, o, w, "name")) || (st = read_gpus(&j->gpus, o, w, total)) ||
        (st = ts_json_u32(&stage, o, w, "stage", 1, 0, 2)) || (st = ts_json_arr(&nodes, o, w, "nodes", 1)) ||
        (st = ts_json_u32(&gpn, o, w, "gpus_per_node", 1, 1, v->T)) || (st = ts_json_arr(&leaves, o, w, "leaves", 1)) ||
        (st = ts_json_arr(&spines, o, w, "spines", 1)) || (st = ts_json_arr(&links, o, w, "links", 1)))
        return st;
    if (vc_find_job(v, name) != VC_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "%s.name: \"%s\" is already running", w, name);
    if (!(j->name = ts_strdup(name)))
        return TSCHED_E_NOMEM;
    j->stage = j->ocs_stage = stage;
    j->gpn = gpn;
    j->optimal = 1;
    size_t nn = json_array_size(nodes), nl = json_array_size(leaves), ns = json_array_size(spines),
           nk = json_array_size(links);
    uint32_t Q = stage ? (j->gpus + v->T - 1) / v->T : 1;
    if (stage == 0 && j->gpus > v->T)
        return ts_error(TSCHED_E_INVALID, "%s.stage: 0 holds one node, but gpus %u is above a node's %u", w, j->gpus,
                        v->T);
    if (stage > 0 && j->gpus <= v->T)
        return ts_error(TSCHED_E_INVALID, "%s.stage: %u needs more than a node's %u GPUs, gpus is %u", w, stage, v->T,
                        j->gpus);
    if (gpn != (stage ? v->T : j->gpus))
        return ts_error(TSCHED_E_INVALID, "%s.gpus_per_node: %u, expected %u for stage %u", w, gpn,
                        stage ? v->T : j->gpus, stage);
    if (nn != Q)
        return ts_error(TSCHED_E_INVALID, "%s.nodes: %zu nodes, expected %u for %u GPUs at stage %u", w, nn, Q, j->gpus,
                        stage);
    uint32_t l = stage == 2 ? (uint32_t)nl : 1;
    if (nl != 1 && stage < 2)
        return ts_error(TSCHED_E_INVALID, "%s.leaves: %zu leaves, expected 1 for stage %u", w, nl, stage);
    if (stage == 2 && (nl < 2 || Q % nl))
        return ts_error(TSCHED_E_INVALID, "%s.leaves: %zu leaves do not split the job's %u nodes evenly over 2 or more",
                        w, nl, Q);
    uint32_t q = Q / l, s = stage == 2 ? q * v->E : stage == 1 ? Q * v->E : 0;
    size_t want_links = stage == 2 && v->mode != TSCHED_VCLOS_MODE_FREE ? (size_t)l * s : 0;
    if (ns != (stage == 2 ? s : 0))
        return ts_error(TSCHED_E_INVALID, "%s.spines: %zu spines, expected %u for this shape", w, ns,
                        stage == 2 ? s : 0);
    if (nk != want_links)
        return ts_error(TSCHED_E_INVALID, "%s.links: %zu links, expected %zu for this shape in mode %s", w, nk,
                        want_links, vc_mode_name(v->mode));
    j->l = l;
    j->s = s;
    if (!(j->nodes = ts_malloc(nn, sizeof *j->nodes)) || !(j->leaves = ts_malloc(l, sizeof *j->leaves)) ||
        (ns && !(j->sp = ts_malloc(ns, sizeof *j->sp))) || (nk && !(j->links = ts_malloc(nk, sizeof *j->links))))
        return TSCHED_E_NOMEM;
    j->nnodes = (uint32_t)nn;
    snprintf(f, sizeof f, "%s.leaves", w);
    for (uint32_t i = 0; i < l; i++) {
        if ((st = arr_switch(&j->leaves[i], v, leaves, i, f, 0)))
            return st;
        if (i && j->leaves[i] <= j->leaves[i - 1])
            return ts_error(TSCHED_E_INVALID, "%s[%u]: leaves must be listed once each, in ascending order", f, i);
    }
    snprintf(f, sizeof f, "%s.nodes", w);
    for (uint32_t i = 0; i < nn; i++) {
        const char *nm;
        if ((st = arr_str(&nm, nodes, i, f)))
            return st;
        uint32_t n = tsched_topology_find_node(v->topo, nm);
        if (n == TSCHED_NONE)
            return ts_error(TSCHED_E_NOT_FOUND, "%s[%u]: \"%s\" not found", f, i, nm);
        j->nodes[i] = n;
        uint32_t leaf = j->leaves[stage == 2 ? i / q : 0];
        if (v->node_leaf[n] != leaf)
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is not under %s", f, i, nm,
                            tsched_topology_switch_name(v->topo, v->leaf_sw[leaf]));
        if (i && (stage == 2 ? i % q : 1) && n <= j->nodes[i - 1])
            return ts_error(TSCHED_E_INVALID, "%s[%u]: the nodes of a leaf must be listed once each, in ascending order",
                            f, i);
        if (!vc_node_up(v, n))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is down", f, i, nm);
        if (stage ? !vc_node_idle(v, n) : (v->node_owner[n] != 0 || v->node_free[n] < j->gpus))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is not %s", f, i, nm,
                            stage ? "idle" : "free enough for the job's GPUs");
    }
    snprintf(f, sizeof f, "%s.spines", w);
    uint32_t nnull = 0;
    for (uint32_t i = 0; i < ns; i++) {
        if (v->mode == TSCHED_VCLOS_MODE_OCS && json_is_null(json_array_get(spines, i))) {
            j->sp[i] = VC_NONE; /* OCS stage 2a: two leaves joined directly */
            nnull++;
            continue;
        }
        if ((st = arr_switch(&j->sp[i], v, spines, i, f, 1)))
            return st;
    }
    if (nnull && (nnull != ns || l != 2))
        return ts_error(TSCHED_E_INVALID, "%s: null marks a two-leaf job without spines (stage 2a): all or none, on 2 leaves", f);
    if (v->mode == TSCHED_VCLOS_MODE_OCS && stage == 2)
        return state_ocs_links(j, v, links, w, nnull != 0);
    snprintf(f, sizeof f, "%s.links", w);
    for (uint32_t i = 0; i < nk; i++) {
        const json_t *x = json_array_get(links, i);
        if (json_is_null(x)) { /* lost with a failure and not repaired */
            j->links[i] = VC_NONE;
            j->degraded = 1;
            continue;
        }
        const char *nm;
        if ((st = arr_str(&nm, links, i, f)))
            return st;
        uint32_t m = tsched_topology_find_member(v->topo, nm);
        if (m == TSCHED_NONE)
            return ts_error(TSCHED_E_NOT_FOUND, "%s[%u]: \"%s\" not found (expected a member link a~b#k)", f, i, nm);
        uint32_t leaf = j->leaves[i / s], spine = j->sp[i % s];
        if (v->member_pair[m] != leaf * v->S + spine)
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" does not join %s and %s", f, i, nm,
                            tsched_topology_switch_name(v->topo, v->leaf_sw[leaf]),
                            tsched_topology_switch_name(v->topo, v->spine_sw[spine]));
        if (!vc_member_free(v, m))
            return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is %s", f, i, nm,
                            vc_member_up(v, m) ? "reserved by another job" : "down");
        for (uint32_t k = (i / s) * s; k < i; k++)
            if (j->links[k] == m)
                return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is listed twice", f, i, nm);
        j->links[i] = m;
    }
    return TSCHED_OK;
}

/* Re-point the circuits of a loaded OCS job; a spine without enough idle ports is an input error. */
static tsched_status ocs_commit(tsched_vclos *v, const vc_job *j, uint32_t idx)
{
    tsched_status st = vc_ocs_commit(v, j);
    if (st == TSCHED_E_INTERNAL)
        return ts_error(TSCHED_E_INVALID, "jobs[%u].links: the circuits cannot be set up (%s)", idx,
                        tsched_last_error());
    return st;
}

static tsched_status load_state(tsched_vclos *v, const json_t *root)
{
    const char *mode;
    const json_t *jobs;
    tsched_status st;
    if ((st = ts_json_str(&mode, root, "", "mode", 1)) || (st = ts_json_arr(&jobs, root, "", "jobs", 1)))
        return st;
    if (strcmp(mode, vc_mode_name(v->mode)))
        return ts_error(TSCHED_E_INVALID, "mode: \"%s\" does not match the handle's mode \"%s\"", mode,
                        vc_mode_name(v->mode));
    uint32_t before = v->njobs;
    vc_ocs_saved saved;
    if ((st = vc_ocs_save(&saved, v))) {
        vc_ocs_restore(&saved, v, 0);
        return st;
    }
    for (size_t i = 0; i < json_array_size(jobs); i++) {
        vc_job *j = ts_calloc(1, sizeof *j);
        if (!j) {
            st = TSCHED_E_NOMEM;
            break;
        }
        if ((st = state_job(j, v, json_array_get(jobs, i), (uint32_t)i)) ||
            (v->ocs && j->stage == 2 && (st = ocs_commit(v, j, (uint32_t)i))) || (st = vc_job_add(v, j))) {
            vc_job_destroy(j);
            break;
        }
    }
    if (st) /* the handle is left as it was */
        while (v->njobs > before)
            vc_job_remove(v, v->njobs - 1);
    vc_ocs_restore(&saved, v, st != TSCHED_OK);
    return st;
}

tsched_status tsched_vclos_load_state(tsched_vclos *v, const char *json, size_t len)
{
    if (!v || !json)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_load_state: %s is NULL", v ? "json" : "v");
    json_t *root;
    tsched_status st = parse_doc(&root, json, len, VC_OUT_FORMAT);
    if (st)
        return st;
    st = load_state(v, root);
    json_decref(root);
    return st;
}

/* ---- requests ---- */

typedef struct waitlist {
    char **names;
    size_t n, cap;
} waitlist;

static void wait_drop(waitlist *w, const char *name)
{
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->names[i], name)) {
            free(w->names[i]);
            memmove(w->names + i, w->names + i + 1, (w->n - i - 1) * sizeof *w->names);
            w->n--;
            return;
        }
}

static tsched_status wait_add(waitlist *w, const char *name)
{
    if (TS_GROW(w->names, w->cap, w->n + 1))
        return TSCHED_E_NOMEM;
    if (!(w->names[w->n] = ts_strdup(name)))
        return TSCHED_E_NOMEM;
    w->n++;
    return TSCHED_OK;
}

static const char *outcome_reason(tsched_vclos_outcome o)
{
    switch (o) {
    case TSCHED_VCLOS_WAIT_GPU: return "gpu";
    case TSCHED_VCLOS_WAIT_NETWORK: return "network";
    case TSCHED_VCLOS_WAIT_TIMEOUT: return "timeout";
    default: return NULL;
    }
}

static tsched_status do_alloc(json_t *res, tsched_vclos *v, const json_t *o, const char *w, waitlist *wl, int timing)
{
    const char *job;
    uint32_t gpus;
    tsched_status st;
    if ((st = read_name(&job, o, w, "job")) || (st = read_gpus(&gpus, o, w, (uint64_t)v->T * v->nnodes)))
        return st;
    if (vc_find_job(v, job) != VC_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "%s.job: \"%s\" is already allocated", w, job);
    tsched_vclos_outcome oc = TSCHED_VCLOS_WAIT_GPU;
    double t0 = ts_monotonic_s();
    if ((st = tsched_vclos_allocate(v, job, gpus, &oc)))
        return ts_error_prefix(st, w);
    double ms = (ts_monotonic_s() - t0) * 1e3;
    wait_drop(wl, job);
    if ((st = ts_json_set(res, "job", json_string(job))))
        return st;
    if (oc == TSCHED_VCLOS_ALLOCATED) {
        const vc_job *j = v->jobs[vc_find_job(v, job)];
        if ((st = ts_json_set(res, "status", json_string("allocated"))) ||
            (st = ts_json_set(res, "stage", json_integer(j->stage))))
            return st;
        if (j->stage == 2) {
            json_t *shape = json_array();
            if ((st = ts_json_set(res, "shape", shape)) || (st = ts_json_push(shape, json_integer(j->l))) ||
                (st = ts_json_push(shape, json_integer(j->s))) ||
                (st = ts_json_set(res, "objective", json_integer(j->objective))) ||
                (st = ts_json_set(res, "optimal", json_boolean(j->optimal))))
                return st;
        }
    } else {
        if ((st = ts_json_set(res, "status", json_string("waiting"))) ||
            (st = ts_json_set(res, "reason", json_string(outcome_reason(oc)))) || (st = wait_add(wl, job)))
            return st;
    }
    if (timing && (st = ts_json_set(res, "solve_ms", json_real(ms))))
        return st;
    return TSCHED_OK;
}

static tsched_status do_release(json_t *res, tsched_vclos *v, const json_t *o, const char *w)
{
    const char *job;
    tsched_status st = read_name(&job, o, w, "job");
    if (st)
        return st;
    if (vc_find_job(v, job) == VC_NONE)
        return ts_error(TSCHED_E_NOT_FOUND, "%s.job: \"%s\" is not running", w, job);
    if ((st = tsched_vclos_release(v, job)))
        return ts_error_prefix(st, w);
    if ((st = ts_json_set(res, "job", json_string(job))) || (st = ts_json_set(res, "status", json_string("released"))))
        return st;
    return TSCHED_OK;
}

static tsched_status do_set_up(json_t *res, tsched_vclos *v, const json_t *o, const char *w, int up)
{
    const char *name;
    tsched_status st = ts_json_str(&name, o, w, "name", 1);
    if (st)
        return st;
    if (!element_exists(v->topo, name))
        return ts_error(TSCHED_E_NOT_FOUND, "%s.name: \"%s\" not found", w, name);
    if ((st = tsched_vclos_set_up(v, name, up)))
        return st == TSCHED_E_NOT_FOUND ? ts_error(TSCHED_E_NOT_FOUND, "%s.name: \"%s\" not found", w, name)
                                        : ts_error_prefix(st, w);
    size_t n = 0;
    st = tsched_vclos_changes(NULL, NULL, 0, &n, v);
    if (st && st != TSCHED_E_BUFFER)
        return ts_error_prefix(st, w);
    const char **names = ts_malloc(n ? n : 1, sizeof *names);
    tsched_vclos_change *what = ts_malloc(n ? n : 1, sizeof *what);
    if (!names || !what) {
        free(names);
        free(what);
        return TSCHED_E_NOMEM;
    }
    if (n && (st = tsched_vclos_changes(names, what, n, &n, v))) {
        free(names);
        free(what);
        return ts_error_prefix(st, w);
    }
    json_t *lists[3] = {json_array(), json_array(), json_array()};
    static const char *const keys[3] = {"repaired", "degraded", "evicted"};
    if ((st = ts_json_set(res, "name", json_string(name))) || (st = ts_json_set(res, "status", json_string("ok")))) {
        for (int k = 0; k < 3; k++)
            json_decref(lists[k]);
    } else {
        for (int k = 0; k < 3; k++)
            if (!st)
                st = ts_json_set(res, keys[k], lists[k]);
            else
                json_decref(lists[k]);
        for (size_t i = 0; !st && i < n; i++) {
            int k = what[i] == TSCHED_VCLOS_REPAIRED ? 0 : what[i] == TSCHED_VCLOS_DEGRADED ? 1 : 2;
            st = ts_json_push(lists[k], json_string(names[i]));
        }
    }
    free(names);
    free(what);
    return st;
}

static tsched_status apply(json_t *results, tsched_vclos *v, const json_t *reqs, waitlist *wl, int timing)
{
    tsched_status st = TSCHED_OK;
    for (size_t i = 0; !st && i < json_array_size(reqs); i++) {
        char w[48];
        snprintf(w, sizeof w, "requests[%zu]", i);
        const json_t *o = json_array_get(reqs, i);
        if (!json_is_object(o))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", w, ts_json_type_name(o));
        const char *op;
        if ((st = ts_json_str(&op, o, w, "op", 1)))
            return st;
        int kind = !strcmp(op, "alloc") ? 0 : !strcmp(op, "release") ? 1 : !strcmp(op, "down") ? 2
                                                                          : !strcmp(op, "up")     ? 3
                                                                                                  : -1;
        if (kind < 0)
            return ts_error(TSCHED_E_RANGE, "%s.op: \"%s\" unknown (expected alloc, release, down or up)", w, op);
        json_t *res = json_object();
        if ((st = ts_json_push(results, res)) || (st = ts_json_set(res, "index", json_integer((json_int_t)i))) ||
            (st = ts_json_set(res, "op", json_string(op))))
            return st;
        switch (kind) {
        case 0: st = do_alloc(res, v, o, w, wl, timing); break;
        case 1: st = do_release(res, v, o, w); break;
        default: st = do_set_up(res, v, o, w, kind == 3); break;
        }
    }
    return st;
}

tsched_status tsched_vclos_apply_requests(char **out, tsched_vclos *v, const char *json, size_t len, int pattern,
                                          uint32_t step, int timing)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_apply_requests: out is NULL");
    *out = NULL;
    if (!v || !json)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_apply_requests: %s is NULL", v ? "json" : "v");
    tsched_status st = vc_json_check_pattern(pattern, "tsched_vclos_apply_requests");
    if (st)
        return st;
    double t0 = ts_monotonic_s();
    json_t *doc, *root = NULL, *results = NULL;
    const json_t *reqs;
    if ((st = parse_doc(&doc, json, len, VC_REQ_FORMAT)))
        return st;
    waitlist wl = {0};
    if ((st = ts_json_arr(&reqs, doc, "", "requests", 1)))
        goto out;
    if (!(root = vc_json_head(v))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    if ((st = ts_json_set(root, "results", results = json_array())) || (st = apply(results, v, reqs, &wl, timing)) ||
        (st = vc_json_add_jobs(root, v, pattern, step)))
        goto out;
    json_t *waiting = json_array();
    if ((st = ts_json_set(root, "waiting", waiting)))
        goto out;
    for (size_t i = 0; i < wl.n; i++)
        if ((st = ts_json_push(waiting, json_string(wl.names[i]))))
            goto out;
    if (timing && (st = ts_json_set(root, "solve_ms", json_real((ts_monotonic_s() - t0) * 1e3))))
        goto out;
    st = ts_json_dump(out, root);
out:
    for (size_t i = 0; i < wl.n; i++)
        free(wl.names[i]);
    free(wl.names);
    json_decref(root);
    json_decref(doc);
    return st;
}

tsched_status tsched_vclos_apply_requests_opts(char **out, tsched_vclos *v, const char *json, size_t len, int pattern,
                                               uint32_t step, const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_vclos_apply_requests_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_vclos_apply_requests(out, v, json, len, pattern, step, o.timing);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
