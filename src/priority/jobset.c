/* tsched.jobset.v1: the jobs CRUX prioritises, each with its per-iteration work, compute
 * time, overlap and the flows of one iteration (DESIGN 5.6). */
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../topology/topology_paths.h"
#include "../common/strtab.h"
#include "crux_internal.h"

#define JOBSET_FORMAT "tsched.jobset.v1"
/* Flow and job indices stay well inside 32 bits (twice a count still fits). */
#define JOBSET_MAX ((UINT32_C(1) << 31) - 1)

/* Accepted ranges: priority.h */
#define WORK_MIN TSCHED_JOBSET_WORK_MIN
#define WORK_MAX TSCHED_JOBSET_WORK_MAX
#define COMPUTE_MIN TSCHED_JOBSET_COMPUTE_MIN
#define COMPUTE_MAX TSCHED_JOBSET_COMPUTE_MAX
#define GBITS_MIN TSCHED_JOBSET_GBITS_MIN
#define GBITS_MAX TSCHED_JOBSET_GBITS_MAX

void tsched_jobset_free(tsched_jobset *js)
{
    if (!js)
        return;
    if (js->name)
        for (uint32_t i = 0; i < js->n; i++)
            free(js->name[i]);
    free(js->name);
    free(js->gpus);
    free(js->work_tflop);
    free(js->compute_ms);
    free(js->overlap);
    free(js->nflows_of);
    free(js->job);
    free(js->src);
    free(js->dst);
    free(js->src_nic);
    free(js->dst_nic);
    free(js->gbits);
    free(js->pin);
    free(js->pins);
    ts_strtab_free(&js->names);
    free(js);
}

uint32_t tsched_jobset_count(const tsched_jobset *js) { return js ? js->n : 0; }

const char *tsched_jobset_name(const tsched_jobset *js, uint32_t i) { return js && i < js->n ? js->name[i] : NULL; }

static tsched_jobset *set_new(const tsched_topology *t)
{
    tsched_jobset *js = ts_calloc(1, sizeof *js);
    if (!js)
        return NULL;
    ts_strtab_init(&js->names);
    js->topo = t;
    js->topo_id = tsched_topology_id(t);
    js->topo_gen = tsched_topology_generation(t);
    return js;
}

/* Room for `nj` jobs and `nf` flows in all. */
static tsched_status reserve(tsched_jobset *js, size_t nj, size_t nf)
{
    tsched_status st;
    nj = nj ? nj : 1;
    nf = nf ? nf : 1;
    if ((st = TS_GROW(js->name, js->jcap[0], nj)) || (st = TS_GROW(js->gpus, js->jcap[1], nj)) ||
        (st = TS_GROW(js->work_tflop, js->jcap[2], nj)) || (st = TS_GROW(js->compute_ms, js->jcap[3], nj)) ||
        (st = TS_GROW(js->overlap, js->jcap[4], nj)) || (st = TS_GROW(js->nflows_of, js->jcap[5], nj)) ||
        (st = TS_GROW(js->job, js->fcap[0], nf)) || (st = TS_GROW(js->src, js->fcap[1], nf)) ||
        (st = TS_GROW(js->dst, js->fcap[2], nf)) || (st = TS_GROW(js->src_nic, js->fcap[3], nf)) ||
        (st = TS_GROW(js->dst_nic, js->fcap[4], nf)) || (st = TS_GROW(js->gbits, js->fcap[5], nf)) ||
        (st = TS_GROW(js->pin, js->fcap[6], nf)))
        return st;
    return TSCHED_OK;
}

/* Append a job whose numbers are checked; the name is checked here (`where` names the job,
 * e.g. "jobs[3]"). */
static tsched_status push_job(uint32_t *index, tsched_jobset *js, const char *name, uint32_t gpus, double work,
                              double compute, double overlap, const char *where)
{
    char nwhere[96];
    tsched_status st;
    snprintf(nwhere, sizeof nwhere, "%s.name", where);
    if ((st = ts_name_check(name, nwhere)) != TSCHED_OK)
        return st;
    uint32_t other = ts_strtab_find(&js->names, name);
    if (other != TSCHED_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "%s: duplicate job name \"%s\" (also jobs[%u])", nwhere, name, other);
    if (js->n >= JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "%s: %u jobs already, at most %u", where, js->n, (unsigned)JOBSET_MAX);
    /* the jobs are the contention DAG's nodes */
    if ((st = ts_limit_check("jobs: job count", (unsigned long long)js->n + 1, "dag_nodes", ts_limits()->dag_nodes)))
        return st;
    if ((st = reserve(js, (size_t)js->n + 1, js->nflows)) != TSCHED_OK)
        return st;
    uint32_t id;
    int added;
    char *copy = ts_strdup(name);
    if (!copy || (st = ts_strtab_intern(&js->names, name, &id, &added)) != TSCHED_OK) {
        free(copy);
        return copy ? st : TSCHED_E_NOMEM;
    }
    uint32_t j = js->n++;
    js->name[j] = copy;
    js->gpus[j] = gpus;
    js->work_tflop[j] = work;
    js->compute_ms[j] = compute;
    js->overlap[j] = overlap;
    js->nflows_of[j] = 0;
    if (index)
        *index = j;
    return TSCHED_OK;
}

/* Check a path from (src, sn) to (dst, dn): it starts at the source NIC's leaf, ends at the
 * destination NIC's, and each link is the trunk between consecutive switches in the
 * direction travelled, up then down (valley-free). `where` names it. */
static tsched_status check_path(const tsched_topology *t, uint32_t src, uint32_t sn, uint32_t dst, uint32_t dn,
                                const uint32_t *sw, uint32_t ns, const uint32_t *links, const char *where)
{
    if (ns < 1 || ns > TSCHED_PATH_MAX_SWITCHES)
        return ts_error(TSCHED_E_INVALID, "%s: %u switches, expected 1 to %u", where, ns,
                        (unsigned)TSCHED_PATH_MAX_SWITCHES);
    uint32_t a = tsched_topology_node_nic_leaf(t, src, sn), b = tsched_topology_node_nic_leaf(t, dst, dn);
    if (sw[0] != a)
        return ts_error(TSCHED_E_INVALID, "%s: starts at switch %u, not at the source NIC's leaf \"%s\"", where,
                        sw[0], tsched_topology_switch_name(t, a));
    if (sw[ns - 1] != b)
        return ts_error(TSCHED_E_INVALID, "%s: ends at switch %u, not at the destination NIC's leaf \"%s\"", where,
                        sw[ns - 1], tsched_topology_switch_name(t, b));
    uint32_t nt = tsched_topology_num_trunks(t);
    int down = 0;
    for (uint32_t h = 0; h + 1 < ns; h++) {
        uint32_t l = links[h], r = l / 2, d = l % 2;
        if (l == TSCHED_NONE || r >= nt)
            return ts_error(TSCHED_E_INVALID, "%s: links[%u] = %u is not a directed link of fabric \"%s\" (%u trunks)",
                            where, h, l, tsched_topology_name(t), nt);
        uint32_t from = d ? tsched_topology_trunk_upper(t, r) : tsched_topology_trunk_lower(t, r);
        uint32_t to = d ? tsched_topology_trunk_lower(t, r) : tsched_topology_trunk_upper(t, r);
        if (from != sw[h] || to != sw[h + 1])
            return ts_error(TSCHED_E_INVALID, "%s: links[%u] = %u does not go from switch %u to switch %u", where, h,
                            l, sw[h], sw[h + 1]);
        if (down && !d)
            return ts_error(TSCHED_E_INVALID, "%s: links[%u] goes up again after going down (not valley-free)",
                            where, h);
        down |= (int)d;
    }
    return TSCHED_OK;
}

/* Append a flow whose endpoints and volume are checked; `links` (hops of them) pins its
 * path when non-NULL. */
static tsched_status push_flow(tsched_jobset *js, uint32_t j, uint32_t src, uint32_t sn, uint32_t dst, uint32_t dn,
                               double gbits, const uint32_t *links, uint32_t hops, const char *where)
{
    tsched_status st;
    if (js->nflows >= JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "%s: %u flows already, at most %u", where, js->nflows,
                        (unsigned)JOBSET_MAX);
    if ((st = ts_limit_check("jobs: flows in all", (unsigned long long)js->nflows + 1, "flows", ts_limits()->flows)))
        return st;
    if ((st = reserve(js, js->n, (size_t)js->nflows + 1)) != TSCHED_OK)
        return st;
    uint32_t pin = TSCHED_NONE;
    if (links) {
        if (js->npins + hops + 1 >= UINT32_MAX)
            return ts_error(TSCHED_E_TOO_LARGE, "%s: too many pinned hops", where);
        if ((st = TS_GROW(js->pins, js->pins_cap, js->npins + hops + 1)) != TSCHED_OK)
            return st;
        pin = (uint32_t)js->npins;
        js->pins[js->npins++] = hops;
        for (uint32_t h = 0; h < hops; h++)
            js->pins[js->npins++] = links[h];
    }
    uint32_t f = js->nflows++;
    js->job[f] = j;
    js->src[f] = src;
    js->dst[f] = dst;
    js->src_nic[f] = sn;
    js->dst_nic[f] = dn;
    js->gbits[f] = gbits;
    js->pin[f] = pin;
    js->nflows_of[j]++;
    return TSCHED_OK;
}

tsched_status ts_jobset_csr(uint32_t **off, uint32_t **fl, const tsched_jobset *js)
{
    *off = ts_calloc((size_t)js->n + 1, sizeof **off);
    *fl = ts_malloc(js->nflows ? js->nflows : 1, sizeof **fl);
    uint32_t *pos = ts_malloc(js->n ? js->n : 1, sizeof *pos);
    if (!*off || !*fl || !pos) {
        free(*off);
        free(*fl);
        free(pos);
        *off = *fl = NULL;
        return TSCHED_E_NOMEM;
    }
    for (uint32_t j = 0; j < js->n; j++)
        (*off)[j + 1] = (*off)[j] + js->nflows_of[j];
    memcpy(pos, *off, (size_t)js->n * sizeof *pos);
    for (uint32_t f = 0; f < js->nflows; f++)
        (*fl)[pos[js->job[f]]++] = f;
    free(pos);
    return TSCHED_OK;
}

/* ---- the builder ------------------------------------------------------------------------ */

tsched_status tsched_jobset_new(tsched_jobset **out, const tsched_topology *topo)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_new: out is NULL");
    *out = NULL;
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_new: topo is NULL");
    tsched_status st = ts_check_built(topo, "tsched_jobset_new");
    if (st != TSCHED_OK)
        return st;
    if (!(*out = set_new(topo)))
        return TSCHED_E_NOMEM;
    return TSCHED_OK;
}

/* The reader's range check of a number, for the builder: TSCHED_E_RANGE naming
 * `fn: jobs[j].field` and the value. */
static tsched_status num_in(double v, double min, double max, const char *fn, uint32_t j, const char *field)
{
    if (v >= min && v <= max)
        return TSCHED_OK;
    return ts_error(TSCHED_E_RANGE, "%s: jobs[%u].%s: %g is out of range [%g, %g]", fn, j, field, v, min, max);
}

tsched_status tsched_jobset_add_job(uint32_t *index, tsched_jobset *js, const char *name, uint32_t gpus,
                                    double work_tflop, double compute_ms, double overlap)
{
    static const char fn[] = "tsched_jobset_add_job";
    if (!js)
        return ts_error(TSCHED_E_INVALID, "%s: js is NULL", fn);
    if (!name)
        return ts_error(TSCHED_E_INVALID, "%s: name is NULL", fn);
    uint32_t j = js->n;
    char where[64];
    snprintf(where, sizeof where, "%s: jobs[%u]", fn, j);
    tsched_status st;
    if (gpus < 1)
        return ts_error(TSCHED_E_RANGE, "%s.gpus: 0 is out of range [1, %u]", where, UINT32_MAX);
    if ((st = num_in(work_tflop, WORK_MIN, WORK_MAX, fn, j, "work_tflop")) ||
        (st = num_in(compute_ms, COMPUTE_MIN, COMPUTE_MAX, fn, j, "compute_ms")) ||
        (st = num_in(overlap, 0, 1, fn, j, "overlap")))
        return st;
    return push_job(index, js, name, gpus, work_tflop, compute_ms, overlap, where);
}

tsched_status tsched_jobset_add_flow(tsched_jobset *js, uint32_t job, uint32_t src_node, uint32_t src_nic,
                                     uint32_t dst_node, uint32_t dst_nic, double gbits, const tsched_path *path)
{
    static const char fn[] = "tsched_jobset_add_flow";
    if (!js)
        return ts_error(TSCHED_E_INVALID, "%s: js is NULL", fn);
    tsched_status st;
    if ((st = tsched_topology_check_identity(js->topo, js->topo_id, js->topo_gen, "tsched_jobset_add_flow: job set")))
        return st;
    if (job >= js->n)
        return ts_error(TSCHED_E_INVALID, "%s: job %u does not exist (%u jobs)", fn, job, js->n);
    char where[80];
    snprintf(where, sizeof where, "%s: jobs[%u].flows[%u]", fn, job, js->nflows_of[job]);
    const tsched_topology *t = js->topo;
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t nodes[2] = {src_node, dst_node}, nics[2] = {src_nic, dst_nic};
    static const char *const nk[2] = {"src_node", "dst_node"}, *const ck[2] = {"src_nic", "dst_nic"};
    for (int e = 0; e < 2; e++) {
        if (nodes[e] >= nn)
            return ts_error(TSCHED_E_INVALID, "%s.%s: node %u does not exist in fabric \"%s\" (%u nodes)", where,
                            nk[e], nodes[e], tsched_topology_name(t), nn);
        if (nics[e] >= tsched_topology_node_nics(t, nodes[e]))
            return ts_error(TSCHED_E_INVALID, "%s.%s: NIC %u of node \"%s\" does not exist (%u NICs)", where, ck[e],
                            nics[e], tsched_topology_node_name(t, nodes[e]), tsched_topology_node_nics(t, nodes[e]));
    }
    if (src_node == dst_node && src_nic == dst_nic)
        return ts_error(TSCHED_E_INVALID, "%s.dst_node: same node and NIC as src (node \"%s\" NIC %u)", where,
                        tsched_topology_node_name(t, src_node), src_nic);
    if (!(gbits >= GBITS_MIN && gbits <= GBITS_MAX))
        return ts_error(TSCHED_E_RANGE, "%s.gbits: %g is out of range [%g, %g]", where, gbits, GBITS_MIN, GBITS_MAX);
    if (!path)
        return push_flow(js, job, src_node, src_nic, dst_node, dst_nic, gbits, NULL, 0, where);
    /* an input struct under the size rule: it must cover the links */
    size_t size;
    memcpy(&size, path, sizeof size);
    char pwhere[96];
    snprintf(pwhere, sizeof pwhere, "%s.path", where);
    if ((st = ts_path_stride(&size, path, pwhere)) != TSCHED_OK)
        return st;
    size_t need = offsetof(tsched_path, links) + sizeof path->links;
    if (size < need)
        return ts_error(TSCHED_E_INVALID, "%s: tsched_path size %zu does not cover the links (%zu bytes needed)",
                        pwhere, size, need);
    tsched_path p;
    memcpy(&p, path, sizeof p < size ? sizeof p : size);
    if (p.nswitches < 1 || p.nswitches > TSCHED_PATH_MAX_SWITCHES)
        return ts_error(TSCHED_E_INVALID, "%s: nswitches %u, expected 1 to %u", pwhere, p.nswitches,
                        (unsigned)TSCHED_PATH_MAX_SWITCHES);
    if ((st = check_path(t, src_node, src_nic, dst_node, dst_nic, p.switches, p.nswitches, p.links, pwhere)))
        return st;
    return push_flow(js, job, src_node, src_nic, dst_node, dst_nic, gbits, p.links, p.nswitches - 1, where);
}

tsched_status tsched_jobset_add_nic_flow(tsched_jobset *js, uint32_t job, uint32_t src_node, uint32_t src_nic,
                                         uint32_t dst_node, uint32_t dst_nic, double gbits)
{
    /* the public builder's checks of the endpoints and the volume, then the flow pinned to
     * no trunk at all: it loads its two NIC links only */
    tsched_status st = tsched_jobset_add_flow(js, job, src_node, src_nic, dst_node, dst_nic, gbits, NULL);
    if (st != TSCHED_OK)
        return st;
    uint32_t f = js->nflows - 1;
    if ((st = TS_GROW(js->pins, js->pins_cap, js->npins + 1)) != TSCHED_OK) {
        js->nflows--; /* a failed call adds nothing */
        js->nflows_of[job]--;
        return st;
    }
    js->pin[f] = (uint32_t)js->npins;
    js->pins[js->npins++] = 0;
    return TSCHED_OK;
}

tsched_status tsched_jobset_add_member_flow(tsched_jobset *js, uint32_t job, uint32_t src_node, uint32_t src_nic,
                                            uint32_t dst_node, uint32_t dst_nic, double gbits, const uint32_t *members,
                                            uint32_t hops)
{
    static const char fn[] = "tsched_jobset_add_member_flow";
    if (js && hops > 0 && !members)
        return ts_error(TSCHED_E_INVALID, "%s: members is NULL for %u hops", fn, hops);
    /* the public builder's checks of the endpoints and the volume first */
    tsched_status st = tsched_jobset_add_flow(js, job, src_node, src_nic, dst_node, dst_nic, gbits, NULL);
    if (st != TSCHED_OK)
        return st;
    const tsched_topology *t = js->topo;
    uint32_t f = js->nflows - 1;
    char where[112];
    snprintf(where, sizeof where, "%s: jobs[%u].flows[%u].members", fn, job, js->nflows_of[job] - 1);
    uint32_t sw[TSCHED_PATH_MAX_SWITCHES], links[TSCHED_PATH_MAX_LINKS], nm = tsched_topology_num_members(t);
    if (hops > TSCHED_PATH_MAX_LINKS) {
        st = ts_error(TSCHED_E_INVALID, "%s: %u hops, at most %u", where, hops, (unsigned)TSCHED_PATH_MAX_LINKS);
    } else {
        /* the trunk path the members lie on, checked as a pinned path is */
        sw[0] = tsched_topology_node_nic_leaf(t, src_node, src_nic);
        for (uint32_t h = 0; h < hops && st == TSCHED_OK; h++) {
            uint32_t m = members[h] / 2, d = members[h] % 2, r = tsched_topology_member_trunk(t, m);
            if (m >= nm || r == TSCHED_NONE) {
                st = ts_error(TSCHED_E_INVALID, "%s[%u]: %u is not a directed member link of fabric \"%s\" (%u members)",
                              where, h, members[h], tsched_topology_name(t), nm);
                break;
            }
            links[h] = 2 * r + d;
            sw[h + 1] = d ? tsched_topology_trunk_lower(t, r) : tsched_topology_trunk_upper(t, r);
        }
        if (st == TSCHED_OK)
            st = check_path(t, src_node, src_nic, dst_node, dst_nic, sw, hops + 1, links, where);
    }
    if (st == TSCHED_OK && js->npins + hops + 1 >= UINT32_MAX)
        st = ts_error(TSCHED_E_TOO_LARGE, "%s: too many pinned hops", where);
    if (st == TSCHED_OK)
        st = TS_GROW(js->pins, js->pins_cap, js->npins + hops + 1);
    if (st != TSCHED_OK) {
        js->nflows--; /* a failed call adds nothing */
        js->nflows_of[job]--;
        return st;
    }
    js->pin[f] = (uint32_t)js->npins;
    js->pins[js->npins++] = hops | TS_PIN_MEMBERS;
    for (uint32_t h = 0; h < hops; h++)
        js->pins[js->npins++] = members[h];
    js->member_flows++;
    return TSCHED_OK;
}

/* ---- the reader ------------------------------------------------------------------------- */

/* Optional `hops` of a flow: switch names from the source NIC's leaf to the destination
 * NIC's, as in tsched.routes.v1 (an empty list: both NICs on one leaf). *ns = 0 when absent. */
static tsched_status read_hops(uint32_t *links, uint32_t *ns, const json_t *o, const char *where,
                               const tsched_topology *t, uint32_t src, uint32_t sn, uint32_t dst, uint32_t dn)
{
    const json_t *arr;
    tsched_status st;
    char hwhere[128];
    *ns = 0;
    if ((st = ts_json_arr(&arr, o, where, "hops", 0)) != TSCHED_OK || !arr)
        return st;
    snprintf(hwhere, sizeof hwhere, "%s.hops", where);
    size_t n = json_array_size(arr);
    uint32_t sw[TSCHED_PATH_MAX_SWITCHES];
    if (n == 0) {
        /* routes.v1 writes no hop for two NICs of one leaf */
        sw[0] = tsched_topology_node_nic_leaf(t, src, sn);
        n = 1;
    } else if (n > TSCHED_PATH_MAX_SWITCHES) {
        return ts_error(TSCHED_E_INVALID, "%s: %zu switches, at most %u", hwhere, n,
                        (unsigned)TSCHED_PATH_MAX_SWITCHES);
    } else {
        for (size_t h = 0; h < n; h++) {
            const json_t *v = json_array_get(arr, h);
            if (!json_is_string(v))
                return ts_error(TSCHED_E_TYPE, "%s[%zu]: expected a switch name, got %s", hwhere, h,
                                ts_json_type_name(v));
            sw[h] = tsched_topology_find_switch(t, json_string_value(v));
            if (sw[h] == TSCHED_NONE)
                return ts_error(TSCHED_E_INVALID, "%s[%zu]: no switch \"%s\" in fabric \"%s\"", hwhere, h,
                                json_string_value(v), tsched_topology_name(t));
        }
    }
    for (size_t h = 0; h + 1 < n; h++) {
        uint32_t r = tsched_topology_find_trunk(t, sw[h], sw[h + 1]);
        if (r == TSCHED_NONE)
            return ts_error(TSCHED_E_INVALID, "%s[%zu]: no link between \"%s\" and \"%s\"", hwhere, h + 1,
                            tsched_topology_switch_name(t, sw[h]), tsched_topology_switch_name(t, sw[h + 1]));
        links[h] = 2 * r + (tsched_topology_trunk_lower(t, r) == sw[h] ? 0 : 1);
    }
    if ((st = check_path(t, src, sn, dst, dn, sw, (uint32_t)n, links, hwhere)) != TSCHED_OK)
        return st;
    *ns = (uint32_t)n;
    return TSCHED_OK;
}

static tsched_status read_flows(tsched_jobset *js, uint32_t j, const json_t *arr, const char *jwhere,
                                const tsched_topology *t)
{
    char where[96];
    tsched_status st;
    for (size_t k = 0; k < json_array_size(arr); k++) {
        const json_t *o = json_array_get(arr, k);
        snprintf(where, sizeof where, "%s.flows[%zu]", jwhere, k);
        if (!json_is_object(o))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
        uint32_t src, dst, src_nic, dst_nic, links[TSCHED_PATH_MAX_LINKS], ns;
        double gbits = 0;
        if ((st = ts_json_node_nic(&src, &src_nic, o, where, "src", "src_nic", t)) ||
            (st = ts_json_node_nic(&dst, &dst_nic, o, where, "dst", "dst_nic", t)) ||
            (st = ts_json_num(&gbits, o, where, "gbits", 1, GBITS_MIN, 0, GBITS_MAX)))
            return st;
        if (src == dst && src_nic == dst_nic)
            return ts_error(TSCHED_E_INVALID, "%s.dst: same node and NIC as src (node \"%s\" NIC %u)", where,
                            tsched_topology_node_name(t, src), src_nic);
        if ((st = read_hops(links, &ns, o, where, t, src, src_nic, dst, dst_nic)) ||
            (st = push_flow(js, j, src, src_nic, dst, dst_nic, gbits, ns ? links : NULL, ns ? ns - 1 : 0, where)))
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_doc(tsched_jobset *js, const tsched_topology *t, const json_t *root)
{
    tsched_status st;
    const json_t *jobs;
    if ((st = ts_json_check_format(root, JOBSET_FORMAT)) || (st = ts_json_arr(&jobs, root, "", "jobs", 1)))
        return st;
    size_t n = json_array_size(jobs), nflows = 0;
    if (n > JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "jobs: %zu jobs, at most %u", n, (unsigned)JOBSET_MAX);
    /* the jobs are the contention DAG's nodes */
    if ((st = ts_limit_check("jobs: job count", n, "dag_nodes", ts_limits()->dag_nodes)) != TSCHED_OK)
        return st;
    /* size the arrays first; malformed entries are reported in the main pass */
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_object_get(json_array_get(jobs, i), "flows");
        nflows += json_is_array(f) ? json_array_size(f) : 0;
    }
    if (nflows > JOBSET_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "jobs: %zu flows in all, at most %u", nflows, (unsigned)JOBSET_MAX);
    if ((st = ts_limit_check("jobs: flows in all", nflows, "flows", ts_limits()->flows)) != TSCHED_OK)
        return st;
    if ((st = reserve(js, n, nflows)) != TSCHED_OK)
        return st;
    char where[40];
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(jobs, i);
        snprintf(where, sizeof where, "jobs[%zu]", i);
        if (!json_is_object(o))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
        const char *name;
        const json_t *flows;
        uint32_t gpus = 0;
        double work = 0, compute = 0, overlap = 0;
        if ((st = ts_json_str(&name, o, where, "name", 1)) != TSCHED_OK)
            return st;
        {
            /* name errors first, as before the builder shared push_job */
            char nwhere[48];
            snprintf(nwhere, sizeof nwhere, "%s.name", where);
            if ((st = ts_name_check(name, nwhere)) != TSCHED_OK)
                return st;
            uint32_t other = ts_strtab_find(&js->names, name);
            if (other != TSCHED_NONE)
                return ts_error(TSCHED_E_DUPLICATE, "%s: duplicate job name \"%s\" (also jobs[%u])", nwhere, name,
                                other);
        }
        if ((st = ts_json_u32(&gpus, o, where, "gpus", 1, 1, UINT32_MAX)) ||
            (st = ts_json_num(&work, o, where, "work_tflop", 1, WORK_MIN, 0, WORK_MAX)) ||
            (st = ts_json_num(&compute, o, where, "compute_ms", 1, COMPUTE_MIN, 0, COMPUTE_MAX)) ||
            (st = ts_json_num(&overlap, o, where, "overlap", 0, 0, 0, 1)) ||
            (st = ts_json_arr(&flows, o, where, "flows", 0)))
            return st;
        if (!flows || json_array_size(flows) == 0)
            return ts_error(TSCHED_E_INVALID, "%s.flows: job \"%s\" has no flows (a job without traffic cannot be "
                                              "prioritised)", where, name);
        uint32_t j;
        if ((st = push_job(&j, js, name, gpus, work, compute, overlap, where)) ||
            (st = read_flows(js, j, flows, where, t)))
            return st;
    }
    return TSCHED_OK;
}

/* The loaders' reader: the object is made here so a failed read frees it. */
static tsched_status read_into(void *slot, const void *ctx, const json_t *root)
{
    const tsched_topology *topo = ctx;
    tsched_jobset *obj = set_new(topo);
    if (!obj)
        return TSCHED_E_NOMEM;
    tsched_status st = read_doc(obj, topo, root);
    if (st != TSCHED_OK) {
        tsched_jobset_free(obj);
        return st;
    }
    *(tsched_jobset **)slot = obj;
    return TSCHED_OK;
}

tsched_status tsched_jobset_load_string(tsched_jobset **out, const tsched_topology *topo, const char *json, size_t len)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_load_string: topology is NULL");
    return ts_json_load_string(out, read_into, topo, json, len, "tsched_jobset_load_string");
}

tsched_status tsched_jobset_load_file(tsched_jobset **out, const tsched_topology *topo, const char *path)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_jobset_load_file: topology is NULL");
    return ts_json_load_file(out, read_into, topo, path, "tsched_jobset_load_file");
}
