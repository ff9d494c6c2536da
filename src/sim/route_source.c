/* Routing source (doc/sim.md §6): vClos's static source routing, the vclos module's
 * tsched_vclos_source_route(), on the sim's units: the trunk in trunk mode, the member in
 * member mode. Blind to failures: a flow on a member that is down waits at rate 0 until
 * the repair, and a route with no spine or trunk waits on the dead link. */
#include "sim_internal.h"

tsched_status ts_sim_route_source_check(const tsched_sim *s, const ts_sim_route_ops *self)
{
    (void)self;
    const tsched_topology *t = s->t;
    if (tsched_topology_num_tier(t, TSCHED_TIER_CORE) > 0)
        return ts_error(TSCHED_E_INVALID, "routing: \"source\" needs a two-tier fabric; \"%s\" has %u core switches",
                        tsched_topology_name(t), tsched_topology_num_tier(t, TSCHED_TIER_CORE));
    return TSCHED_OK;
}

/* The directed unit link of topology member m (down 0: leaf to spine). */
static uint32_t member_unit(const tsched_sim *s, uint32_t m, int down)
{
    uint32_t tr = tsched_topology_member_trunk(s->t, m), k = m - tsched_topology_trunk_first_member(s->t, tr);
    uint32_t nu = s->unit_base[tr + 1] - s->unit_base[tr];
    return 2 * (s->unit_base[tr] + k % nu) + (uint32_t)down;
}

tsched_status ts_sim_route_source_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i)
{
    const tsched_sim *s = c->s;
    uint32_t up, down;
    tsched_status st = tsched_vclos_source_route(&up, &down, s->t, tsched_flows_src(c->f, i),
                                                 tsched_flows_src_nic(c->f, i), tsched_flows_dst(c->f, i),
                                                 tsched_flows_dst_nic(c->f, i));
    *np = 0;
    if (st == TSCHED_E_NO_PATH) {
        out[(*np)++] = s->dead; /* the source route's spine or trunk is missing: stalled */
        return TSCHED_OK;
    }
    if (st != TSCHED_OK || up == TSCHED_NONE) /* an error, or one leaf: no fabric link */
        return st;
    out[(*np)++] = member_unit(s, up, 0);
    out[(*np)++] = member_unit(s, down, 1);
    return TSCHED_OK;
}
