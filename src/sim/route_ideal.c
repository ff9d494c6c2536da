/* Routing ideal (doc/sim.md §6): the fabric as one big switch; a flow crosses its two NIC
 * links only. */
#include "sim_internal.h"

tsched_status ts_sim_route_ideal_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i)
{
    (void)out;
    (void)c;
    (void)i;
    *np = 0;
    return TSCHED_OK;
}
