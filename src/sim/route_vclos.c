/* Routing vclos (doc/sim.md §6): under placements vclos and ocs-vclos each flow takes
 * the up and down link its job reserved (tsched_vclos_route), a member or an OCS port. */
#include "sim_internal.h"

tsched_status ts_sim_route_vclos_load(const tsched_sim *s, const ts_sim_route_ops *self)
{
    (void)self;
    if (!(ts_sim_placement(s)->flags & TS_PLACE_RESERVES))
        return ts_error(TSCHED_E_INVALID, "routing: \"vclos\" needs placement \"vclos\" or \"ocs-vclos\", not \"%s\"",
                        ts_sim_placement(s)->name);
    return TSCHED_OK;
}

/* A flow's ranks are its nodes' positions in the job's node list (the vclos rank order). */
void ts_sim_route_vclos_job(tsched_sim *s, const ts_sim_job *j, int begin)
{
    for (uint32_t k = 0; k < j->nnodes; k++)
        s->node_pos[j->nodes[k]] = begin ? k : TSCHED_NONE;
}

/* The directed sim link of vclos link id `link` (a member, or an OCS port), `down` 0 for
 * the leaf-to-spine direction. */
static uint32_t vclos_slot(const tsched_sim *s, uint32_t link, int down)
{
    if (link < s->vc_members)
        return 2 * link + (uint32_t)down; /* member mode: unit u is member u */
    return s->ocs_base + 2 * (link - s->vc_members) + (uint32_t)down;
}

/* Routing `vclos` (§3.3): the reserved up and down link of the flow from tsched_vclos_route,
 * rank = the node's position in the job's node list (the vclos rank order) times E plus the
 * NIC. Writes the directed links into `out`, returns their number (0: same leaf); a lost
 * link (a degraded job) is the dead link. */
tsched_status ts_sim_route_vclos_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i)
{
    const tsched_sim *s = c->s;
    const ts_sim_job *j = c->j;
    const tsched_topology *t = s->t;
    uint32_t src = tsched_flows_src(c->f, i), src_nic = tsched_flows_src_nic(c->f, i);
    uint32_t dst = tsched_flows_dst(c->f, i), dst_nic = tsched_flows_dst_nic(c->f, i);
    *np = 0;
    if (tsched_topology_node_nic_leaf(t, src, src_nic) == tsched_topology_node_nic_leaf(t, dst, dst_nic))
        return TSCHED_OK;
    uint32_t E = tsched_topology_node_nics(t, src), a = s->node_pos[src], b = s->node_pos[dst], up, down;
    if (a == TSCHED_NONE || b == TSCHED_NONE)
        return ts_error(TSCHED_E_INTERNAL, "sim: job \"%s\": a flow's node is not the job's", j->name);
    tsched_status st = tsched_vclos_route(&up, &down, s->vc, j->name, a * E + src_nic, b * E + dst_nic);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, j->name);
    if (up == TSCHED_NONE || down == TSCHED_NONE) {
        out[(*np)++] = s->dead;
        return TSCHED_OK;
    }
    out[(*np)++] = vclos_slot(s, up, 0);
    out[(*np)++] = vclos_slot(s, down, 1);
    return TSCHED_OK;
}
