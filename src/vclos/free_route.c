/* Free-mode routing (doc/vclos.md §5): the baselines SR, ECMP and Balanced ECMP choose the
 * members of each cross-leaf flow of a job placed by stages 0-2 without reservation. A flow
 * from rank a (leaf A) to rank b (leaf B != A) goes up on a member of trunk A~m and down on a
 * member of trunk B~m for one spine m; the answer is two topology member ids, VC_NONE for
 * both when the flow has no usable route (see each policy). A member is "up" when itself,
 * its trunk and both switches are up in the handle's state (vc_member_up).
 *
 * source (SR): tsched_vclos_source_route(), the one definition the simulator's routing
 *   `source` uses too: the k-th NIC under its leaf (leaf's nodes in ascending node index,
 *   NICs in order, k from 0 over all nodes of the leaf, busy or not) goes up on spine m = the
 *   (k mod S)-th spine of leaf A (S = the spines A has a trunk to, ascending index: all of
 *   them on a leaf-spine), member floor(k / S) mod K_Am of trunk A~m, and down on trunk
 *   B~m's member floor(k / S) mod K_Bm (the same index when the fabric is uniform). Static,
 *   load- and failure-blind: when one of the two members (or the trunk B~m) is missing or
 *   not up in the handle's state, the route is lost (VC_NONE).
 *
 * ecmp: h = H(seed, job name, src rank, dst rank) below. The candidate spines are those m
 *   (ascending index) with at least one up member on both trunks A~m and B~m; with c of them
 *   the flow takes the (h mod c)-th. On trunk A~m it takes the (mix(h ^ 1) mod u)-th of its
 *   u up members (ascending k), on B~m the (mix(h ^ 2) mod d)-th of its d up members. No
 *   candidate spine: VC_NONE.
 *
 *     mix(z)  = splitmix64's output function: z += 0x9E3779B97F4A7C15;
 *               z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
 *               return z ^ (z >> 31)                          (all arithmetic mod 2^64)
 *     fnv(s)  = 64-bit FNV-1a of the name's bytes (offset 0xCBF29CE484222325, prime 0x100000001B3)
 *     H       = mix(mix(mix(mix(seed) ^ fnv(name)) ^ src) ^ dst)
 *
 * balanced-ecmp (vc_free_step only): the flows of one step over all running jobs, jobs in
 *   allocation order, flows by source rank; flow counts start at 0 for every directed member
 *   (up direction and down direction counted apart) and include only this step's earlier
 *   flows. A flow's candidates are the up members of its source leaf towards the spines that
 *   have an up member towards its destination leaf; among those with the fewest flows on
 *   their up direction it picks uniformly: with t > 1 ties, in order (spine ascending, then
 *   k ascending), the ts_rng_below(rng, t)-th, rng = ts_rng seeded once per step with the
 *   handle's seed (src/common/rng.c: xoshiro256** seeded by splitmix64, unbiased rejection);
 *   no draw when t = 1. Then on the chosen spine's trunk to the destination leaf it takes
 *   the up member with the fewest flows on its down direction, ties to the lowest k. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/rng.h"
#include "vclos_internal.h"

static uint64_t mix(uint64_t z) { return ts_mix64(z + UINT64_C(0x9E3779B97F4A7C15)); }

static uint64_t fnv(const char *s)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * UINT64_C(0x100000001B3);
    return h;
}

/* Local leaf of rank r of a stage-1/2 job. */
static uint32_t rank_leaf(const tsched_vclos *v, const vc_job *j, uint32_t r)
{
    return v->node_leaf[j->nodes[r / v->E]];
}

/* Up members of pair (leaf, spine). */
static uint32_t pair_up(const tsched_vclos *v, uint32_t leaf, uint32_t spine)
{
    uint32_t pair = leaf * v->S + spine, n = 0;
    for (uint32_t k = 0; k < v->pair_k[pair]; k++)
        n += (uint32_t)vc_member_up(v, v->pair_first[pair] + k);
    return n;
}

/* The i-th up member (ascending k) of pair (leaf, spine). */
static uint32_t pair_up_nth(const tsched_vclos *v, uint32_t leaf, uint32_t spine, uint32_t i)
{
    uint32_t pair = leaf * v->S + spine;
    for (uint32_t k = 0; k < v->pair_k[pair]; k++) {
        uint32_t m = v->pair_first[pair] + k;
        if (vc_member_up(v, m) && i-- == 0)
            return m;
    }
    return VC_NONE;
}

tsched_status tsched_vclos_source_route(uint32_t *up_member, uint32_t *down_member, const tsched_topology *topo,
                                        uint32_t src_node, uint32_t src_nic, uint32_t dst_node, uint32_t dst_nic)
{
    if (!up_member || !down_member || !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_vclos_source_route: %s is NULL",
                        !up_member ? "up_member" : !down_member ? "down_member" : "topo");
    *up_member = *down_member = TSCHED_NONE;
    const tsched_topology *t = topo;
    uint32_t nn = tsched_topology_num_nodes(t);
    if (src_node >= nn || dst_node >= nn)
        return ts_error(TSCHED_E_RANGE, "tsched_vclos_source_route: %s_node %u is not a node (the fabric has %u)",
                        src_node >= nn ? "src" : "dst", src_node >= nn ? src_node : dst_node, nn);
    int bad_src = src_nic >= tsched_topology_node_nics(t, src_node);
    if (bad_src || dst_nic >= tsched_topology_node_nics(t, dst_node))
        return ts_error(TSCHED_E_RANGE, "tsched_vclos_source_route: %s_nic %u is not a NIC of node \"%s\"",
                        bad_src ? "src" : "dst", bad_src ? src_nic : dst_nic,
                        tsched_topology_node_name(t, bad_src ? src_node : dst_node));
    uint32_t a = tsched_topology_node_nic_leaf(t, src_node, src_nic);
    uint32_t b = tsched_topology_node_nic_leaf(t, dst_node, dst_nic);
    if (a == b)
        return TSCHED_OK;
    /* k: the NIC's place under its leaf (a rail NIC, whose node is listed under another
     * leaf, comes after every NIC of the leaf's nodes) */
    uint32_t count;
    uint64_t k = 0;
    const uint32_t *nodes = tsched_topology_leaf_nodes(t, a, &count);
    for (uint32_t i = 0; i < count && nodes[i] != src_node; i++)
        k += tsched_topology_node_nics(t, nodes[i]);
    k += src_nic;
    /* the source leaf's spines (those it has a trunk to) in index order */
    uint32_t ns = tsched_topology_num_tier(t, TSCHED_TIER_SPINE), S = 0, spine = TSCHED_NONE;
    for (uint32_t i = 0; i < ns; i++)
        S += tsched_topology_find_trunk(t, a, tsched_topology_tier_switch(t, TSCHED_TIER_SPINE, i)) != TSCHED_NONE;
    for (uint32_t i = 0, seen = 0; S && i < ns; i++) {
        uint32_t sp = tsched_topology_tier_switch(t, TSCHED_TIER_SPINE, i);
        if (tsched_topology_find_trunk(t, a, sp) != TSCHED_NONE && seen++ == k % S) {
            spine = sp;
            break;
        }
    }
    uint32_t up = tsched_topology_find_trunk(t, a, spine), down = tsched_topology_find_trunk(t, b, spine);
    uint32_t ku = tsched_topology_trunk_links(t, up), kd = tsched_topology_trunk_links(t, down);
    if (up == TSCHED_NONE || down == TSCHED_NONE || !ku || !kd)
        return ts_error(TSCHED_E_NO_PATH, "tsched_vclos_source_route: leaf \"%s\" has %s",
                        tsched_topology_switch_name(t, a),
                        spine == TSCHED_NONE ? "no spine" : "no trunk to the spine of the destination leaf");
    uint64_t m = k / S;
    *up_member = tsched_topology_trunk_first_member(t, up) + (uint32_t)(m % ku);
    *down_member = tsched_topology_trunk_first_member(t, down) + (uint32_t)(m % kd);
    return TSCHED_OK;
}

/* SR in the handle's state: a route through a member that is not up there is lost. */
static void route_source(const tsched_vclos *v, const vc_job *j, uint32_t src, uint32_t dst, uint32_t *up,
                         uint32_t *down)
{
    uint32_t mu, md;
    if (tsched_vclos_source_route(&mu, &md, v->topo, j->nodes[src / v->E], src % v->E, j->nodes[dst / v->E],
                                  dst % v->E) != TSCHED_OK ||
        mu == TSCHED_NONE || !vc_member_up(v, mu) || !vc_member_up(v, md))
        return;
    *up = mu;
    *down = md;
}

static void route_ecmp(const tsched_vclos *v, const vc_job *j, uint32_t src, uint32_t dst, uint32_t a, uint32_t b,
                       uint32_t *up, uint32_t *down)
{
    uint64_t h = mix(mix(mix(mix(v->seed) ^ fnv(j->name)) ^ src) ^ dst);
    uint32_t c = 0;
    for (uint32_t m = 0; m < v->S; m++)
        c += pair_up(v, a, m) && pair_up(v, b, m);
    if (!c)
        return;
    uint32_t pick = (uint32_t)(h % c), m = 0;
    for (;; m++)
        if (pair_up(v, a, m) && pair_up(v, b, m) && pick-- == 0)
            break;
    *up = pair_up_nth(v, a, m, (uint32_t)(mix(h ^ 1) % pair_up(v, a, m)));
    *down = pair_up_nth(v, b, m, (uint32_t)(mix(h ^ 2) % pair_up(v, b, m)));
}

tsched_status vc_free_route(const tsched_vclos *v, const vc_job *j, uint32_t src, uint32_t dst, uint32_t *up,
                            uint32_t *down)
{
    *up = *down = VC_NONE;
    if (v->routing == TSCHED_VCLOS_ROUTING_BALANCED_ECMP)
        return ts_error(TSCHED_E_STATE,
                        "routing: balanced-ecmp depends on a whole step (only the pattern listing gives it)");
    if (j->stage < 1 || src / v->E == dst / v->E)
        return TSCHED_OK;
    uint32_t a = rank_leaf(v, j, src), b = rank_leaf(v, j, dst);
    if (a == b)
        return TSCHED_OK;
    if (v->routing == TSCHED_VCLOS_ROUTING_SOURCE)
        route_source(v, j, src, dst, up, down);
    else
        route_ecmp(v, j, src, dst, a, b, up, down);
    return TSCHED_OK;
}

/* Balanced ECMP of one flow from leaf a to leaf b; loads are per directed member. */
static void route_balanced(const tsched_vclos *v, ts_rng *rng, uint32_t *up_load, uint32_t *down_load, uint32_t a,
                           uint32_t b, uint32_t *up, uint32_t *down)
{
    uint32_t best = UINT32_MAX, ties = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t pick = 0;
        if (pass == 1) {
            if (!ties)
                return;
            pick = ties > 1 ? (uint32_t)ts_rng_below(rng, ties) : 0;
        }
        for (uint32_t m = 0; m < v->S; m++) {
            if (!pair_up(v, b, m))
                continue;
            uint32_t pa = a * v->S + m;
            for (uint32_t k = 0; k < v->pair_k[pa]; k++) {
                uint32_t mem = v->pair_first[pa] + k;
                if (!vc_member_up(v, mem))
                    continue;
                if (pass == 0) {
                    if (up_load[mem] < best) {
                        best = up_load[mem];
                        ties = 1;
                    } else if (up_load[mem] == best) {
                        ties++;
                    }
                } else if (up_load[mem] == best && pick-- == 0) {
                    uint32_t pb = b * v->S + m, dm = VC_NONE;
                    for (uint32_t kk = 0; kk < v->pair_k[pb]; kk++) {
                        uint32_t x = v->pair_first[pb] + kk;
                        if (vc_member_up(v, x) && (dm == VC_NONE || down_load[x] < down_load[dm]))
                            dm = x;
                    }
                    *up = mem;
                    *down = dm;
                    up_load[mem]++;
                    down_load[dm]++;
                    return;
                }
            }
        }
    }
}

/* Layout: the arrays `up` and `down` have one entry per rank of every running job, job by
 * job in allocation order (stage-0 jobs have no ranks): rank r of the i-th job is entry
 * off_i + r with off_i = the ranks of jobs 0..i-1. Entry e holds the up and down member ids
 * of the flow that rank sends in step `step` (modulo the job's steps) of `pattern`, VC_NONE
 * for both when it sends no fabric flow (same node, same leaf, no such step, e.g. hd with R
 * not a power of two) or the routing found no usable route. */
tsched_status vc_free_step(const tsched_vclos *v, tsched_vclos_pattern pattern, uint32_t step, uint32_t *up,
                           uint32_t *down)
{
    if (v->mode != TSCHED_VCLOS_MODE_FREE)
        return ts_error(TSCHED_E_STATE, "routing: only free mode chooses links");
    uint32_t *up_load = NULL, *down_load = NULL;
    ts_rng rng;
    if (v->routing == TSCHED_VCLOS_ROUTING_BALANCED_ECMP) {
        size_t n = v->nmembers ? v->nmembers : 1;
        if (!(up_load = ts_calloc(n, sizeof *up_load)) || !(down_load = ts_calloc(n, sizeof *down_load))) {
            free(up_load);
            return TSCHED_E_NOMEM;
        }
        ts_rng_seed(&rng, v->seed);
    }
    size_t off = 0;
    for (uint32_t i = 0; i < v->njobs; i++) {
        const vc_job *j = v->jobs[i];
        uint32_t R = j->stage ? j->nnodes * v->E : 0;
        for (uint32_t r = 0; r < R; r++) {
            uint32_t *u = &up[off + r], *d = &down[off + r];
            *u = *d = VC_NONE;
            uint32_t dst = vc_pattern_dst(pattern, step, R, r);
            if (dst == VC_NONE || dst / v->E == r / v->E)
                continue;
            uint32_t a = rank_leaf(v, j, r), b = rank_leaf(v, j, dst);
            if (a == b)
                continue;
            if (up_load)
                route_balanced(v, &rng, up_load, down_load, a, b, u, d);
            else
                (void)vc_free_route(v, j, r, dst, u, d);
        }
        off += R;
    }
    free(up_load);
    free(down_load);
    return TSCHED_OK;
}
