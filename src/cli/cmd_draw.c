/* topo-sched draw -t TOPO [-p PLACEMENT] [-r ROUTES] [--format svg|dot] [--max-nodes N] [-o FILE]
 *
 * A picture of the fabric (doc/draw.md): one row of boxes per tier, the top tier first, the
 * nodes under their leaf, trunks as lines. Presentation only: the documents come through the
 * library's loaders (topology, placement, routes); the model and its layout are in
 * draw/layout.c, the writers in draw/draw_svg.c and draw/draw_dot.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw/draw.h"

/* ---- inputs ----------------------------------------------------------------------------- */

/* A tsched.routes.v1 document of `t`: per directed link, the flows crossing it and the sum of
 * their rates, added in flow order. */
static int read_routes(picture *pc, const char *path)
{
    const tsched_topology *t = pc->t;
    loads *L = &pc->ld;
    tsched_routes *r = NULL;
    tsched_status st = tsched_routes_load_file(&r, t, NULL, path);
    if (st != TSCHED_OK)
        return cli_fail(st);
    uint32_t nt = tsched_topology_num_trunks(t), n = tsched_routes_count(r);
    L->given = 1;
    L->has_rates = tsched_routes_has_rates(r);
    L->nflows = n;
    L->gbps = calloc(2 * (size_t)(nt ? nt : 1), sizeof *L->gbps);
    L->flows = calloc(2 * (size_t)(nt ? nt : 1), sizeof *L->flows);
    if (!L->gbps || !L->flows) {
        tsched_routes_free(r);
        return draw_nomem();
    }
    for (uint32_t i = 0; i < n; i++) {
        tsched_path p = {.size = sizeof p};
        if (tsched_routes_path(&p, r, i) != TSCHED_OK)
            break; /* cannot happen: i < n */
        double rate = tsched_routes_rate(r, i);
        for (uint32_t h = 0; h + 1 < p.nswitches; h++) {
            L->gbps[p.links[h]] += rate;
            L->flows[p.links[h]]++;
        }
    }
    tsched_routes_free(r);
    return CLI_OK;
}

static int read_placement(picture *pc, const char *path)
{
    tsched_placement *p = NULL;
    tsched_status st = tsched_placement_load_file(&p, pc->t, path);
    if (st != TSCHED_OK)
        return cli_fail(st);
    uint32_t nn = tsched_topology_num_nodes(pc->t);
    pc->rank = malloc((nn ? nn : 1) * sizeof *pc->rank);
    if (!pc->rank) {
        tsched_placement_free(p);
        return draw_nomem();
    }
    for (uint32_t i = 0; i < nn; i++)
        pc->rank[i] = -1;
    for (uint32_t r = 0; r < tsched_placement_rows(p); r++)
        for (uint32_t c = 0; c < tsched_placement_cols(p); c++) {
            uint32_t node = tsched_placement_node(p, r, c);
            if (node < nn) {
                pc->rank[node] = tsched_placement_rank(p, r, c);
                pc->placed++;
            }
        }
    tsched_placement_free(p);
    return CLI_OK;
}

/* ---- command ---------------------------------------------------------------------------- */

int cmd_draw(int argc, char **argv)
{
    const char *topo = NULL, *plf = NULL, *rtf = NULL, *out = NULL, *format = "svg";
    unsigned max_nodes = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-t") == 0 && has)
            topo = argv[++i];
        else if (strcmp(a, "-p") == 0 && has)
            plf = argv[++i];
        else if (strcmp(a, "-r") == 0 && has)
            rtf = argv[++i];
        else if (strcmp(a, "-o") == 0 && has)
            out = argv[++i];
        else if (strcmp(a, "--format") == 0 && has) {
            format = argv[++i];
            if (strcmp(format, "svg") != 0 && strcmp(format, "dot") != 0)
                return cli_usage_error("--format: '%s' is not svg or dot", format);
        } else if (strcmp(a, "--max-nodes") == 0 && has) {
            if (cli_parse_u32(argv[++i], &max_nodes) != 0 || max_nodes == 0)
                return cli_usage_error("--max-nodes: '%s' is not a positive whole number", argv[i]);
        } else
            return cli_usage_error("draw: unknown or incomplete option '%s'", a);
    }
    if (!topo)
        return cli_usage_error("draw: -t TOPO is required");
    if ((plf && strcmp(plf, "-") == 0) + (rtf && strcmp(rtf, "-") == 0) + (strcmp(topo, "-") == 0) > 1)
        return cli_usage_error("draw: at most one input may be '-'");
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_load_file(&t, topo);
    if (st != TSCHED_OK)
        return cli_fail(st);
    picture pc = {.t = t, .max_nodes = max_nodes};
    sbuf o = {0};
    int rc = CLI_OK;
    if ((plf && (rc = read_placement(&pc, plf)) != CLI_OK) || (rtf && (rc = read_routes(&pc, rtf)) != CLI_OK) ||
        (rc = draw_build_rows(&pc)) != CLI_OK || (rc = draw_build_edges(&pc)) != CLI_OK)
        goto done;
    draw_layout(&pc);
    if (strcmp(format, "dot") == 0)
        draw_dot(&o, &pc);
    else
        draw_svg(&o, &pc);
    if (o.oom || !o.s) {
        rc = draw_nomem();
        goto done;
    }
    rc = cli_write_raw(out, o.s);
done:
    free(o.s);
    draw_picture_free(&pc);
    tsched_topology_free(t);
    return rc;
}
