/* Routings greedy, ecmp, balanced-ecmp and ilp (doc/sim.md §6): the routing module routes
 * each phase's flows with the other running jobs' flows as its base loads; a flow's switch
 * path gives its trunk links, whose members the engine picks (net.c). */
#include "sim_internal.h"

tsched_status ts_sim_route_module_phase(ts_sim_route_ctx *c, const ts_sim_route_ops *self)
{
    const tsched_sim *s = c->s;
    tsched_route_options o;
    tsched_route_options_init(&o);
    o.algo = (tsched_route_algo)self->arg;
    o.seed = c->seed;
    o.flags = TSCHED_ROUTE_NO_RATES;
    o.time_limit_ms = s->place_ms;
    /* the flows of every other running job's phases (this job's are not counted yet) */
    o.base_link_flows = s->base_flows;
    tsched_status st = tsched_route(&c->r, s->t, c->f, &o);
    if (st == TSCHED_E_NO_PATH) {
        /* no surviving path: the phase's flows wait on the dead link until a repair */
        c->r = NULL;
        c->stalled = 1;
        return TSCHED_OK;
    }
    return st;
}

tsched_status ts_sim_route_module_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i)
{
    *np = 0;
    if (!c->r)
        return TSCHED_OK;
    tsched_path path = {.size = sizeof path};
    tsched_status st = tsched_routes_path(&path, c->r, i);
    if (st != TSCHED_OK)
        return st;
    for (uint32_t h = 0; h + 1 < path.nswitches; h++)
        out[(*np)++] = path.links[h];
    return TSCHED_OK;
}
