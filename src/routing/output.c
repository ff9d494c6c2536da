/* tsched.routes.v1 (DESIGN 5.5). */
#include <math.h>
#include <stdlib.h>

#include "../common/json.h"
#include "routing_internal.h"

tsched_status tsched_routes_to_json(char **out, const tsched_routes *routes, const tsched_topology *topo, int with_time)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_to_json: out is NULL");
    *out = NULL;
    if (!routes)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_to_json: routes is NULL");
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_to_json: topo is NULL");
    const tsched_routes *r = routes;
    const tsched_topology *t = topo;
    /* switch names come from the fabric: it must be the one the routes were computed on */
    tsched_status st = tsched_topology_check_identity(t, r->topo_id, r->topo_gen, "tsched_routes_to_json: routes");
    if (st != TSCHED_OK)
        return st;
    json_t *root = json_object(), *flows = json_array();
    if (!root || !flows) {
        json_decref(root);
        json_decref(flows);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    if ((st = ts_json_set(root, "format", json_string("tsched.routes.v1"))) ||
        (st = ts_json_set(root, "algorithm", json_string(tsched_route_algo_name(r->algo)))) ||
        (st = ts_json_set(root, "status", json_string(r->status))) ||
        (st = ts_json_set(root, "max_link_flows", json_integer(r->max_load))) ||
        (r->has_rates && (st = ts_json_set(root, "min_rate_gbps", json_real(r->min_rate)))) ||
        (st = ts_json_set(root, "moved", json_integer(r->moved))) || (st = ts_json_set(root, "flows", flows)))
        goto out;
    for (uint32_t i = 0; i < r->n; i++) {
        tsched_path p = {.size = sizeof(tsched_path)};
        json_t *o = json_object(), *hops = json_array();
        if ((st = ts_json_push(flows, o)) || (st = ts_json_set(o, "index", json_integer(i))) ||
            (st = ts_json_set(o, "hops", hops)) || (st = tsched_routes_path(&p, r, i)))
            goto out;
        /* both ends on one leaf: no fabric hop (DESIGN 5.5) */
        for (uint32_t h = 0; p.nswitches > 1 && h < p.nswitches; h++)
            if ((st = ts_json_push(hops, json_string(tsched_topology_switch_name(t, p.switches[h])))))
                goto out;
        if (r->has_rates && (st = ts_json_set(o, "rate_gbps", json_real(r->rate[i]))))
            goto out;
    }
    if (with_time && (st = ts_json_set(root, "solve_ms", json_real(r->solve_ms))))
        goto out;
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}
