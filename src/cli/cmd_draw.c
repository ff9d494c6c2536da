/* topo-sched draw -t TOPO [-p PLACEMENT] [-r ROUTES] [--format svg|dot|png] [--view full|aggregate|auto]
 *                 [--group-by dp|pp] [--max-nodes N] [-o FILE]
 *
 * A picture of the fabric (doc/draw.md): one row of boxes per tier, the top tier first, the
 * nodes under their leaf, trunks as lines; past DRAW_AUTO_PX an aggregated view (node map and
 * heatmaps, draw/aggregate.c), and PNG through librsvg when built with it (draw/png.c). Presentation only: the documents come through the
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
    pc->group = calloc(2 * (size_t)(nn ? nn : 1), sizeof *pc->group);
    if (!pc->rank || !pc->group) {
        tsched_placement_free(p);
        return draw_nomem();
    }
    for (uint32_t i = 0; i < nn; i++)
        pc->rank[i] = -1;
    pc->prows = tsched_placement_rows(p);
    pc->pcols = tsched_placement_cols(p);
    for (uint32_t r = 0; r < tsched_placement_rows(p); r++)
        for (uint32_t c = 0; c < tsched_placement_cols(p); c++) {
            uint32_t node = tsched_placement_node(p, r, c);
            if (node < nn) {
                pc->rank[node] = tsched_placement_rank(p, r, c);
                pc->group[2 * (size_t)node] = r;
                pc->group[2 * (size_t)node + 1] = c;
                pc->placed++;
            }
        }
    tsched_placement_free(p);
    return CLI_OK;
}

/* ---- command ---------------------------------------------------------------------------- */

static const char *const draw_formats[] = {"svg", "dot", "png", NULL};
enum { FMT_SVG, FMT_DOT, FMT_PNG };
static const char *const draw_views[] = {"auto", "full", "aggregate", NULL};
enum { VIEW_AUTO, VIEW_FULL, VIEW_AGGREGATE };
static const char *const draw_groups[] = {"dp", "pp", NULL}; /* DRAW_GROUP_DP, DRAW_GROUP_PP */

typedef struct draw_args {
    const char *topo, *plf, *rtf, *out;
    int format; /* index in draw_formats */
    int view;   /* index in draw_views */
    int group;  /* index in draw_groups */
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
     .err = "is not svg, dot or png", .arg = "svg|dot|png", .dflt = "svg",
     .help = "output format; png needs a build with librsvg (meson -Dpng)"},
    {.lng = "--view", .type = CLI_OPT_ENUM, .names = draw_views, .off = CLI_OFF(S, view),
     .err = "is not auto, full or aggregate", .arg = "V", .dflt = "auto",
     .help = "full, aggregate or auto ({D}: aggregate when the full view passes\n"
             "2000 px); aggregate = nodes as squares in pod blocks, trunk heatmaps"},
    {.lng = "--group-by", .type = CLI_OPT_ENUM, .names = draw_groups, .off = CLI_OFF(S, group),
     .err = "is not dp or pp", .arg = "dp|pp", .dflt = "dp",
     .help = "aggregate view: placed nodes coloured by DP group ({D}; placement\n"
             "column) or PP group (placement row)"},
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
    if (a.format == FMT_PNG && !draw_png_available())
        return cli_usage_error("draw: --format png: this topo-sched was built without PNG support (meson -Dpng=enabled, "
                               "needs librsvg2-dev)");
    if (a.format == FMT_DOT && a.view == VIEW_AGGREGATE)
        return cli_usage_error("draw: --view aggregate is drawn as SVG or PNG, not DOT");
    if ((plf && strcmp(plf, "-") == 0) + (rtf && strcmp(rtf, "-") == 0) + (strcmp(topo, "-") == 0) > 1)
        return cli_usage_error("draw: at most one input may be '-'");
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_load_file(&t, topo);
    if (st != TSCHED_OK)
        return cli_fail(st);
    picture pc = {.t = t, .max_nodes = max_nodes};
    sbuf o = {0};
    unsigned char *png = NULL;
    size_t pnglen = 0;
    int rc = CLI_OK;
    double w = 0, h = 0; /* the picture's size in px */
    if ((plf && (rc = read_placement(&pc, plf)) != CLI_OK) || (rtf && (rc = read_routes(&pc, rtf)) != CLI_OK) ||
        (rc = draw_build_rows(&pc)) != CLI_OK || (rc = draw_build_edges(&pc)) != CLI_OK)
        goto done;
    draw_layout(&pc);
    /* DOT is laid out by Graphviz: always the full graph (grouped past 64 switches a tier) */
    int agg = a.format != FMT_DOT &&
              (a.view == VIEW_AGGREGATE || (a.view == VIEW_AUTO && (pc.width > DRAW_AUTO_PX || pc.height > DRAW_AUTO_PX)));
    if (a.format == FMT_DOT)
        draw_dot(&o, &pc);
    else if (agg)
        rc = draw_agg_svg(&o, &w, &h, &pc, a.group);
    else {
        draw_svg(&o, &pc);
        w = pc.width;
        h = pc.height;
    }
    if (rc != CLI_OK)
        goto done;
    if (o.oom || !o.s) {
        rc = draw_nomem();
        goto done;
    }
    if (a.format != FMT_PNG) {
        rc = cli_write_raw(out, o.s);
        goto done;
    }
    if ((rc = draw_png(&png, &pnglen, o.s, o.len, w, h)) != CLI_OK)
        goto done;
    cli_outs g;
    cli_outs_init(&g);
    rc = cli_outs_add(&g, out);
    FILE *f = rc == CLI_OK ? cli_outs_file(&g, out) : NULL;
    if (rc == CLI_OK && !f)
        rc = CLI_BAD_INPUT;
    if (f) {
        int bad = fwrite(png, 1, pnglen, f) != pnglen;
        rc = cli_outs_close(&g, f, bad);
        if (bad) {
            fprintf(stderr, "topo-sched: %s: write failed\n", !out || strcmp(out, "-") == 0 ? "<stdout>" : out);
            rc = CLI_INTERNAL;
        }
    }
    rc = cli_outs_end(&g, rc);
done:
    free(png);
    free(o.s);
    draw_picture_free(&pc);
    tsched_topology_free(t);
    return rc;
}
