/* tsched.vclos.v1 output (doc/vclos.md §8, doc/FORMATS.md): the running jobs with their
 * nodes, leaves, virtual spines, reserved links (circuits in OCS mode), ranks and, with a
 * pattern, the fabric flows of one step and the links each one takes. Field names and
 * orders are the format's; every name is the topology's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "json_out.h"

const char *vc_mode_name(int mode)
{
    switch (mode) {
    case TSCHED_VCLOS_MODE_VCLOS: return "vclos";
    case TSCHED_VCLOS_MODE_OCS: return "ocs-vclos";
    case TSCHED_VCLOS_MODE_FREE: return "free";
    default: return NULL;
    }
}

const char *vc_routing_name(int routing)
{
    switch (routing) {
    case TSCHED_VCLOS_ROUTING_SOURCE: return "source";
    case TSCHED_VCLOS_ROUTING_ECMP: return "ecmp";
    case TSCHED_VCLOS_ROUTING_BALANCED_ECMP: return "balanced-ecmp";
    default: return NULL;
    }
}

tsched_status vc_json_check_pattern(int pattern, const char *fn)
{
    if (pattern < -1 || pattern > TSCHED_VCLOS_HD)
        return ts_error(TSCHED_E_INVALID, "%s: pattern %d unknown (-1 none, 0 ring, 1 alltoall, 2 hd)", fn, pattern);
    return TSCHED_OK;
}

static const char *leaf_name(const tsched_vclos *v, uint32_t leaf)
{
    return tsched_topology_switch_name(v->topo, v->leaf_sw[leaf]);
}

static const char *spine_name(const tsched_vclos *v, uint32_t spine)
{
    return tsched_topology_switch_name(v->topo, v->spine_sw[spine]);
}

static const char *node_name(const tsched_vclos *v, uint32_t node) { return tsched_topology_node_name(v->topo, node); }

/* A link's name as a JSON string, null for VC_NONE (a lost member). */
static tsched_status link_json(json_t **out, const tsched_vclos *v, uint32_t link)
{
    *out = NULL;
    if (link == VC_NONE) {
        *out = json_null();
        return TSCHED_OK;
    }
    char *name = NULL;
    tsched_status st = tsched_vclos_link_name(&name, v, link);
    if (st)
        return st;
    *out = json_string(name);
    free(name);
    if (!*out)
        return ts_error(TSCHED_E_NOMEM, "out of memory building " VC_OUT_FORMAT);
    return TSCHED_OK;
}

static tsched_status push_link(json_t *arr, const tsched_vclos *v, uint32_t link)
{
    json_t *x;
    tsched_status st = link_json(&x, v, link);
    return st ? st : ts_json_push(arr, x);
}

static tsched_status push_str(json_t *arr, const char *s) { return ts_json_push(arr, json_string(s)); }

static json_t *seed_json(uint64_t seed)
{
    if (seed <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)seed);
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)seed);
    return json_string(b);
}

json_t *vc_json_head(const tsched_vclos *v)
{
    json_t *root = json_object();
    if (!root) {
        ts_error(TSCHED_E_NOMEM, "out of memory building " VC_OUT_FORMAT);
        return NULL;
    }
    tsched_status st = ts_json_set(root, "format", json_string(VC_OUT_FORMAT));
    if (!st)
        st = ts_json_set(root, "mode", json_string(vc_mode_name(v->mode)));
    if (!st)
        st = ts_json_set(root, "shapes", json_string(v->shapes == TSCHED_VCLOS_SHAPES_POW2 ? "pow2" : "all"));
    if (!st && v->mode == TSCHED_VCLOS_MODE_FREE) {
        st = ts_json_set(root, "routing", json_string(vc_routing_name(v->routing)));
        /* a seed above INT64_MAX does not fit a JSON integer of jansson: written as a string */
        if (!st)
            st = ts_json_set(root, "seed", seed_json(v->seed));
    }
    if (st) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static uint32_t job_ranks(const tsched_vclos *v, const vc_job *j) { return j->stage ? j->nnodes * v->E : 0; }

/* The OCS circuit of each link of the job (doc/vclos.md §4): circuits[i] describes links[i]. */
static tsched_status add_circuits(json_t *o, const tsched_vclos *v, const vc_job *j)
{
    json_t *arr = json_array();
    tsched_status st = ts_json_set(o, "circuits", arr);
    uint32_t n = j->links ? j->l * j->s : 0;
    for (uint32_t i = 0; !st && i < n; i++) {
        uint32_t link = j->links[i];
        if (link == VC_NONE) {
            st = ts_json_push(arr, json_null());
            continue;
        }
        uint32_t spine = VC_NONE, peer = VC_NONE, ocs = VC_NONE;
        int rewired = 0;
        vc_ocs_port_peer(v, link, &spine, &peer, &ocs, &rewired);
        json_t *c = json_object();
        const char *far = spine != VC_NONE ? spine_name(v, spine) : peer != VC_NONE ? leaf_name(v, peer) : NULL;
        if ((st = ts_json_push(arr, c)) ||
            (st = ts_json_set(c, "ocs", ocs == VC_NONE ? json_null() : json_integer(ocs))) ||
            (st = ts_json_set(c, "leaf", json_string(leaf_name(v, j->leaves[i / j->s])))) ||
            (st = ts_json_set(c, "spine", far ? json_string(far) : json_null())) ||
            (st = ts_json_set(c, "rewired", json_boolean(rewired))))
            break;
    }
    return st;
}

/* One flow of the listing: src/dst rank, nodes, NICs, hops and links. `spine` is the
 * physical spine in the middle (VC_NONE: unknown), `peer_leaf` = 1 for a leaf-to-leaf
 * circuit (hops [A, B]). */
static tsched_status add_flow(json_t *flows, const tsched_vclos *v, const vc_job *j, uint32_t r, uint32_t d,
                              int cross, uint32_t spine, int leaf_to_leaf, uint32_t up, uint32_t down)
{
    uint32_t na = j->nodes[r / v->E], nb = j->nodes[d / v->E];
    uint32_t la = v->node_leaf[na], lb = v->node_leaf[nb];
    json_t *o = json_object(), *hops = json_array(), *links = json_array();
    tsched_status st;
    if ((st = ts_json_push(flows, o)) || (st = ts_json_set(o, "src_rank", json_integer(r))) ||
        (st = ts_json_set(o, "dst_rank", json_integer(d))) || (st = ts_json_set(o, "src", json_string(node_name(v, na)))) ||
        (st = ts_json_set(o, "src_nic", json_integer(r % v->E))) ||
        (st = ts_json_set(o, "dst", json_string(node_name(v, nb)))) ||
        (st = ts_json_set(o, "dst_nic", json_integer(d % v->E))) || (st = ts_json_set(o, "hops", hops)) ||
        (st = ts_json_set(o, "links", links)) || (st = push_str(hops, leaf_name(v, la))))
        return st;
    if (!cross)
        return TSCHED_OK;
    if (!leaf_to_leaf &&
        (st = ts_json_push(hops, spine == VC_NONE ? json_null() : json_string(spine_name(v, spine)))))
        return st;
    if ((st = push_str(hops, leaf_name(v, lb))) || (st = push_link(links, v, up)) || (st = push_link(links, v, down)))
        return st;
    return TSCHED_OK;
}

/* The flows of one job: `fu`, `fd` (free mode) hold the links of rank r at fu[r], fd[r]. */
static tsched_status add_flows(json_t *o, const tsched_vclos *v, const vc_job *j, tsched_vclos_pattern pattern,
                               uint32_t step, const uint32_t *fu, const uint32_t *fd)
{
    uint32_t R = job_ranks(v, j);
    if (!tsched_vclos_pattern_steps(pattern, R))
        return TSCHED_OK; /* no step (fewer than 2 ranks, or hd over a non-power of two) */
    json_t *flows = json_array();
    tsched_status st = ts_json_set(o, "flows", flows);
    for (uint32_t r = 0; !st && r < R; r++) {
        uint32_t d = vc_pattern_dst(pattern, step, R, r);
        uint32_t na = j->nodes[r / v->E], nb = j->nodes[d / v->E];
        if (na == nb)
            continue; /* inside a node: not a fabric flow */
        int cross = v->node_leaf[na] != v->node_leaf[nb];
        uint32_t up = VC_NONE, down = VC_NONE, spine = VC_NONE;
        int l2l = 0;
        if (cross && fu) {
            up = fu[r];
            down = fd[r];
            if (up != VC_NONE)
                spine = v->member_pair[up] % v->S;
            else if (down != VC_NONE)
                spine = v->member_pair[down] % v->S;
        } else if (cross && j->s) {
            uint32_t a = r / j->s, b = d / j->s, jj = r % j->s;
            if (j->links) {
                up = j->links[a * j->s + jj];
                down = j->links[b * j->s + jj];
            }
            spine = j->sp ? j->sp[jj] : VC_NONE;
            if (v->mode == TSCHED_VCLOS_MODE_OCS) {
                uint32_t peer = VC_NONE, ocs = VC_NONE, sp = VC_NONE;
                int rew = 0;
                if (up != VC_NONE) {
                    vc_ocs_port_peer(v, up, &sp, &peer, &ocs, &rew);
                    spine = sp;
                    l2l = sp == VC_NONE && peer != VC_NONE;
                } else
                    l2l = spine == VC_NONE;
            }
        }
        st = add_flow(flows, v, j, r, d, cross, spine, l2l, up, down);
    }
    return st;
}

static tsched_status add_job(json_t *jobs, const tsched_vclos *v, const vc_job *j, int pattern, uint32_t step,
                             const uint32_t *fu, const uint32_t *fd)
{
    json_t *o = json_object(), *nodes = json_array(), *leaves = json_array(), *spines = json_array(),
           *links = json_array(), *rk = json_array();
    tsched_status st;
    /* ts_json_set() and ts_json_push() take the value even when they fail: nothing leaks */
    if ((st = ts_json_push(jobs, o)) || (st = ts_json_set(o, "name", json_string(j->name))) ||
        (st = ts_json_set(o, "gpus", json_integer(j->gpus))) || (st = ts_json_set(o, "stage", json_integer(j->stage))) ||
        (st = ts_json_set(o, "nodes", nodes)) || (st = ts_json_set(o, "gpus_per_node", json_integer(j->gpn))) ||
        (st = ts_json_set(o, "leaves", leaves)) || (st = ts_json_set(o, "spines", spines)) ||
        (st = ts_json_set(o, "links", links)) ||
        (v->mode == TSCHED_VCLOS_MODE_OCS && (st = add_circuits(o, v, j))) || (st = ts_json_set(o, "ranks", rk)))
        return st;
    for (uint32_t i = 0; i < j->nnodes; i++)
        if ((st = push_str(nodes, node_name(v, j->nodes[i]))))
            return st;
    if (j->stage == 0 && j->nnodes) {
        if ((st = push_str(leaves, leaf_name(v, v->node_leaf[j->nodes[0]]))))
            return st;
    } else
        for (uint32_t i = 0; j->leaves && i < j->l; i++)
            if ((st = push_str(leaves, leaf_name(v, j->leaves[i]))))
                return st;
    if (j->stage >= 2 && j->sp)
        for (uint32_t i = 0; i < j->s; i++)
            if ((st = ts_json_push(spines, j->sp[i] == VC_NONE ? json_null() : json_string(spine_name(v, j->sp[i])))))
                return st;
    if (j->links)
        for (uint32_t i = 0; i < j->l * j->s; i++)
            if ((st = push_link(links, v, j->links[i])))
                return st;
    uint32_t R = job_ranks(v, j);
    for (uint32_t r = 0; r < R; r++) {
        uint32_t node = j->nodes[r / v->E];
        json_t *x = json_object(), *up;
        if ((st = ts_json_push(rk, x)) || (st = ts_json_set(x, "rank", json_integer(r))) ||
            (st = ts_json_set(x, "node", json_string(node_name(v, node)))) ||
            (st = ts_json_set(x, "nic", json_integer(r % v->E))) ||
            (st = ts_json_set(x, "leaf", json_string(leaf_name(v, v->node_leaf[node])))) ||
            (st = link_json(&up, v, j->links && j->s ? j->links[r] : VC_NONE)) || (st = ts_json_set(x, "uplink", up)))
            return st;
    }
    if (pattern >= 0)
        st = add_flows(o, v, j, (tsched_vclos_pattern)pattern, step, fu, fd);
    return st;
}

tsched_status vc_json_add_jobs(json_t *root, const tsched_vclos *v, int pattern, uint32_t step)
{
    json_t *jobs = json_array();
    tsched_status st = ts_json_set(root, "jobs", jobs);
    if (st)
        return st;
    uint32_t *fu = NULL, *fd = NULL;
    if (pattern >= 0 && v->mode == TSCHED_VCLOS_MODE_FREE) {
        /* free mode: one routing decision over the whole step (balanced-ecmp counts it all) */
        size_t total = 0;
        for (uint32_t i = 0; i < v->njobs; i++)
            total += job_ranks(v, v->jobs[i]);
        if (!(fu = ts_malloc(total ? total : 1, sizeof *fu)) || !(fd = ts_malloc(total ? total : 1, sizeof *fd))) {
            free(fu);
            return TSCHED_E_NOMEM;
        }
        if ((st = vc_free_step(v, (tsched_vclos_pattern)pattern, step, fu, fd))) {
            free(fu);
            free(fd);
            return st;
        }
    }
    size_t off = 0;
    for (uint32_t i = 0; !st && i < v->njobs; i++) {
        const vc_job *j = v->jobs[i];
        st = add_job(jobs, v, j, pattern, step, fu ? fu + off : NULL, fd ? fd + off : NULL);
        off += job_ranks(v, j);
    }
    free(fu);
    free(fd);
    return st;
}

tsched_status tsched_vclos_to_json(char **out, const tsched_vclos *v, int pattern, uint32_t step)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_to_json: out is NULL");
    *out = NULL;
    if (!v)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_to_json: v is NULL");
    tsched_status st = vc_json_check_pattern(pattern, "tsched_vclos_to_json");
    if (st)
        return st;
    json_t *root = vc_json_head(v);
    if (!root)
        return TSCHED_E_NOMEM;
    if (!(st = vc_json_add_jobs(root, v, pattern, step)))
        st = ts_json_dump(out, root);
    json_decref(root);
    return st;
}
