/* tsched.placement.v1, the host file, and the Eq. 2 metric of hand-made placements. */
#include <stdlib.h>
#include <string.h>

#include "../common/structsize.h"
#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/output_opts.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "placement_internal.h"
#include "solver.h"

static const char *status_name(tsched_place_status s) { return s == TSCHED_PLACE_OPTIMAL ? "optimal" : "feasible"; }

/* `pods_used`: the pods holding the job's nodes, whatever the spread's domain, and 0 on a
 * fabric without pods (DESIGN 3: such a fabric "has no pods"; its topology summary says
 * "pods": 0). It used to be the count of spread domains, which printed 4 pods for 4 leaves
 * of a two-tier fabric (issue 25); that count is `domains_used` now. */
static tsched_status pods_used(uint32_t *out, const tsched_placement *p, const tsched_topology *t)
{
    *out = 0;
    uint32_t np = tsched_topology_num_pods(t);
    if (p->domain == TSCHED_DOMAIN_POD || np == 0) {
        *out = np ? p->domains_used : 0;
        return TSCHED_OK;
    }
    unsigned char *seen = ts_calloc(np, 1);
    if (!seen)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    for (size_t i = 0, cells = (size_t)p->rows * p->cols; i < cells; i++) {
        uint32_t pod = tsched_topology_node_pod(t, p->nodes[i]);
        if (pod < np && !seen[pod]) {
            seen[pod] = 1;
            ++*out;
        }
    }
    free(seen);
    return TSCHED_OK;
}

tsched_status tsched_placement_to_json(char **out, const tsched_placement *p, const tsched_topology *t,
                                       const char *job_name, int with_time)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_to_json: out is NULL");
    *out = NULL;
    if (!p || !t)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_to_json: placement or topology is NULL");
    tsched_status st = tsched_topology_check_identity(t, p->fabric_id, p->fabric_gen, "tsched_placement_to_json");
    if (st != TSCHED_OK)
        return st;
    uint32_t pods;
    if ((st = pods_used(&pods, p, t)) != TSCHED_OK)
        return st;
    json_t *root = json_object(), *spread = json_object(), *assign = json_array();
    if (!root || !spread || !assign) {
        json_decref(root);
        json_decref(spread);
        json_decref(assign);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    if ((st = ts_json_set(root, "format", json_string("tsched.placement.v1"))) ||
        (st = ts_json_set(root, "job", json_string(job_name ? job_name : ""))) ||
        (st = ts_json_set(root, "algorithm", json_string(tsched_place_algo_name(p->algo)))) ||
        (st = ts_json_set(root, "status", json_string(status_name(p->status)))) ||
        (st = ts_json_set(root, "rows", json_integer(p->rows))) ||
        (st = ts_json_set(root, "cols", json_integer(p->cols))) ||
        (st = ts_json_set(root, "alpha", json_real(p->alpha))) ||
        (st = ts_json_set(root, "beta", json_real(1.0 - p->alpha))) ||
        (st = ts_json_set(root, "domain", json_string(ts_domain_name(p->domain)))) ||
        (st = ts_json_set(root, "spread", spread)) ||
        (st = ts_json_set(spread, "dp_max", json_integer(p->dp_max))) ||
        (st = ts_json_set(spread, "pp_max", json_integer(p->pp_max))) ||
        (st = ts_json_set(spread, "weighted", json_real(p->weighted))) ||
        (st = ts_json_set(root, "pods_used", json_integer(pods)))) {
        if (!json_object_get(root, "spread")) /* out of memory before they joined the tree */
            json_decref(spread);
        json_decref(assign);
        goto out;
    }
    /* the spread domains' count, where it is not the pods' (added with issue 25) */
    if (p->domain != TSCHED_DOMAIN_POD && (st = ts_json_set(root, "domains_used", json_integer(p->domains_used)))) {
        json_decref(assign); /* not in the tree yet */
        goto out;
    }
    if ((st = ts_json_set(root, "assignment", assign)))
        goto out;
    /* in rank order, so the list reads as the launcher's host list */
    for (uint32_t c = 0; c < p->cols; c++)
        for (uint32_t r = 0; r < p->rows; r++) {
            json_t *a = json_object();
            uint32_t n = p->nodes[(size_t)r * p->cols + c];
            if ((st = ts_json_push(assign, a)) || (st = ts_json_set(a, "row", json_integer(r))) ||
                (st = ts_json_set(a, "col", json_integer(c))) ||
                (st = ts_json_set(a, "node", json_string(tsched_topology_node_name(t, n)))) ||
                (st = ts_json_set(a, "rank", json_integer((json_int_t)c * p->rows + r))))
                goto out;
        }
    if (with_time && (st = ts_json_set(root, "solve_ms", json_real(p->solve_ms))))
        goto out;
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}

tsched_status tsched_placement_hostfile(char **out, const tsched_placement *p, const tsched_topology *t)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_hostfile: out is NULL");
    *out = NULL;
    if (!p || !t)
        return ts_error(TSCHED_E_INVALID, "tsched_placement_hostfile: placement or topology is NULL");
    tsched_status st = tsched_topology_check_identity(t, p->fabric_id, p->fabric_gen, "tsched_placement_hostfile");
    if (st != TSCHED_OK)
        return st;
    size_t len = 1, cells = (size_t)p->rows * p->cols;
    for (size_t i = 0; i < cells; i++)
        len += strlen(tsched_topology_node_name(t, p->nodes[i])) + 1;
    if ((st = ts_limit_check("tsched_placement_hostfile: host file bytes", len - 1, "output_bytes",
                             ts_limits()->output_bytes)) != TSCHED_OK)
        return st;
    char *s = ts_malloc(len, 1), *w = s;
    if (!s)
        return TSCHED_E_NOMEM;
    for (uint32_t c = 0; c < p->cols; c++)
        for (uint32_t r = 0; r < p->rows; r++) {
            const char *name = tsched_topology_node_name(t, p->nodes[(size_t)r * p->cols + c]);
            size_t n = strlen(name);
            memcpy(w, name, n);
            w += n;
            *w++ = '\n';
        }
    *w = '\0';
    *out = s;
    return TSCHED_OK;
}

tsched_status tsched_spread_eval(tsched_spread *out, const tsched_topology *t, const uint32_t *nodes, uint32_t rows,
                                 uint32_t cols, double alpha, tsched_domain domain)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_spread, size),         TS_SPAN(tsched_spread, dp_max),   TS_SPAN(tsched_spread, pp_max),
        TS_SPAN(tsched_spread, domains_used), TS_SPAN(tsched_spread, weighted),
    };
    if (!out || !t || !nodes)
        return ts_error(TSCHED_E_INVALID, "tsched_spread_eval: %s is NULL", !out ? "out" : !t ? "topo" : "nodes");
    tsched_status st0 = ts_struct_size(out->size, spans, TS_NSPANS(spans), sizeof *out, "tsched_spread");
    if (st0 != TSCHED_OK)
        return st0;
    if (!(alpha >= 0 && alpha <= 1))
        return ts_error(TSCHED_E_INVALID, "alpha: %g is out of range [0, 1]", alpha);
    if (domain == TSCHED_DOMAIN_AUTO)
        domain = tsched_topology_num_pods(t) > 0 ? TSCHED_DOMAIN_POD : TSCHED_DOMAIN_LEAF;
    if (domain != TSCHED_DOMAIN_POD && domain != TSCHED_DOMAIN_LEAF && domain != TSCHED_DOMAIN_NVL)
        return ts_error(TSCHED_E_INVALID, "domain: unknown value %d", (int)domain);
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t ndom = ts_domain_count(t, domain);
    size_t cells = (size_t)rows * cols;
    uint32_t *dom = ts_malloc(cells, sizeof *dom);
    uint8_t *used = ts_calloc(nn, 1);
    tsched_status st = TSCHED_OK;
    if (!dom || !used) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < cells; i++) {
        uint32_t n = nodes[i];
        if (n >= nn) {
            st = ts_error(TSCHED_E_INVALID, "nodes[%zu]: node %u does not exist", i, n);
            goto out;
        }
        if (used[n]++) {
            st = ts_error(TSCHED_E_INVALID, "nodes[%zu]: node \"%s\" is used twice", i, tsched_topology_node_name(t, n));
            goto out;
        }
        dom[i] = ts_node_domain(t, n, domain);
        if (dom[i] == TSCHED_NONE) {
            st = ts_error(TSCHED_E_INVALID, "nodes[%zu]: node \"%s\" is in no pod", i, tsched_topology_node_name(t, n));
            goto out;
        }
    }
    ts_metric m;
    if ((st = ts_metric_eval(&m, dom, rows, cols, ndom, alpha)) != TSCHED_OK)
        goto out;
    tsched_spread full = {sizeof full, m.dp_max, m.pp_max, m.used, m.weighted};
    st = ts_struct_out(out, &full, spans, TS_NSPANS(spans), sizeof *out, "tsched_spread");
out:
    free(dom);
    free(used);
    return st;
}

tsched_status tsched_placement_to_json_opts(char **out, const tsched_placement *p, const tsched_topology *topo,
                                            const char *job_name, const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_placement_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_placement_to_json(out, p, topo, job_name, o.timing);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
