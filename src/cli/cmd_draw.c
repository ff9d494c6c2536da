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
#include "opt.h"

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

static const char *const draw_formats[] = {"svg", "dot", NULL};

typedef struct draw_args {
    const char *topo, *plf, *rtf, *out;
    int format; /* index in draw_formats */
    unsigned max_nodes;
} draw_args;

static void draw_init(void *v)
{
    draw_args *a = v;
    memset(a, 0, sizeof *a);
    a->max_nodes = 64;
}

#define S draw_args
static const cli_opt draw_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-p", .type = CLI_OPT_FILE, .off = CLI_OFF(S, plf), .arg = "PLACEMENT", .dflt = "none",
     .help = "fill the placement's nodes, labelled with their rank"},
    {.shrt = "-r", .type = CLI_OPT_FILE, .off = CLI_OFF(S, rtf), .arg = "ROUTES", .dflt = "none",
     .help = "tsched.routes.v1: trunks coloured and widened by load"},
    {.lng = "--format", .type = CLI_OPT_ENUM, .names = draw_formats, .off = CLI_OFF(S, format),
     .err = "is not svg or dot", .arg = "svg|dot", .dflt = "svg", .help = "output format"},
    {.lng = "--max-nodes", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, max_nodes),
     .err = "is not a positive whole number", .arg = "N", .dflt = "64",
     .help = "above N nodes under a leaf, one box with their count"},
    CLI_ROW_OUT(S, out),
};
#undef S

/* No service op draws: the picture is the command line's own (doc/serve.md). */
const cli_cmd_spec cli_spec_draw = {"draw", NULL, draw_opts, CLI_NOPTS(draw_opts), sizeof(draw_args), draw_init, 0};

int cmd_draw(int argc, char **argv)
{
    draw_args a;
    draw_init(&a);
    int prc = cli_opt_parse(&cli_spec_draw, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *plf = a.plf, *rtf = a.rtf, *out = a.out;
    unsigned max_nodes = a.max_nodes;
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
    if (a.format == 1) /* dot */
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
