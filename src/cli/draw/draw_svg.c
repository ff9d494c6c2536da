/* `topo-sched draw`: the SVG writer (doc/draw.md), byte-identical for the same inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

static const char *const DASH = " stroke-dasharray=\"5,3\"";

static void svg_switch(sbuf *o, const picture *pc, const box *b)
{
    const row *r = &pc->rows[b->row];
    int down = b->ndown == b->count, group = r->grouped;
    char tn[16], l1[160], l2[96];
    draw_tier_name(tn, sizeof tn, r->tier);
    draw_box_text(l1, sizeof l1, l2, sizeof l2, pc, b);
    double x = b->x - SW_W / 2, y = r->y;
    sb_printf(o, "<g class=\"switch %s%s%s\" data-count=\"%u\"", tn, group ? " group" : "", down ? " down" : "", b->count);
    if (!group) {
        sb_printf(o, " data-name=\"");
        sb_xml(o, tsched_topology_switch_name(pc->t, r->members[b->first]));
        sb_printf(o, "\"");
    }
    sb_printf(o, "><title>");
    if (!group) {
        sb_xml(o, tsched_topology_switch_name(pc->t, r->members[b->first]));
        sb_printf(o, ": %s%s", tn, down ? ", down" : "");
    } else {
        sb_printf(o, "%u %s", b->count, draw_tier_word(r->tier, 1));
        if (b->pod != TSCHED_NONE) {
            sb_printf(o, " of pod ");
            sb_xml(o, tsched_topology_pod_name(pc->t, b->pod));
        }
        sb_printf(o, ": ");
        sb_xml(o, tsched_topology_switch_name(pc->t, r->members[b->first]));
        sb_printf(o, " .. ");
        sb_xml(o, tsched_topology_switch_name(pc->t, r->members[b->first + b->count - 1]));
        sb_printf(o, " (index order), %u down", b->ndown);
    }
    sb_printf(o, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" rx=\"4\" fill=\"%s\" stroke=\"%s\" "
                 "stroke-width=\"1.5\"%s/>",
              x, y, SW_W, SW_H, down ? "#f7f7f7" : group ? "#dde6f2" : "#eef2f7", down ? "#8c8c8c" : "#44546a",
              down ? DASH : "");
    if (l2[0]) {
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">", b->x, y + 14);
        sb_xml(o, l1);
        sb_printf(o, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\" fill=\"#44546a\">", b->x,
                  y + 27);
        sb_xml(o, l2);
    } else {
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">", b->x, y + 21);
        sb_xml(o, l1);
    }
    sb_printf(o, "</text></g>\n");
}

static void svg_node(sbuf *o, const picture *pc, uint32_t node, double x, double y)
{
    const tsched_topology *t = pc->t;
    int down = !tsched_topology_node_is_up(t, node);
    int64_t rank = pc->rank ? pc->rank[node] : -1;
    uint32_t gpus = tsched_topology_node_gpus(t, node), fr = tsched_topology_node_free_gpus(t, node);
    const char *name = tsched_topology_node_name(t, node);
    const char *fill = rank >= 0 ? "#4c78a8" : down ? "#f7f7f7" : fr < gpus ? "#e3e3e3" : "#ffffff";
    char sh[96];
    draw_shorten(sh, sizeof sh, name, 10);
    sb_printf(o, "<g class=\"node%s%s\" data-name=\"", rank >= 0 ? " placed" : "", down ? " down" : "");
    sb_xml(o, name);
    sb_printf(o, "\"");
    if (rank >= 0)
        sb_printf(o, " data-rank=\"%lld\"", (long long)rank);
    uint32_t nvl = tsched_topology_node_nvl(t, node);
    if (nvl != TSCHED_NONE) {
        sb_printf(o, " data-nvl=\"");
        sb_xml(o, tsched_topology_nvl_name(t, nvl));
        sb_printf(o, "\"");
    }
    sb_printf(o, "><title>");
    sb_xml(o, name);
    sb_printf(o, ": %u GPUs, %u free%s", gpus, fr, down ? ", down" : "");
    if (rank >= 0)
        sb_printf(o, ", rank %lld", (long long)rank);
    if (nvl != TSCHED_NONE) {
        sb_printf(o, ", NVLink domain ");
        sb_xml(o, tsched_topology_nvl_name(t, nvl));
    }
    sb_printf(o, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" rx=\"3\" fill=\"%s\" stroke=\"%s\" "
                 "stroke-width=\"1.2\"%s/>",
              x, y, NODE_W, NODE_H, fill, down ? "#8c8c8c" : "#44546a", down ? DASH : "");
    if (nvl != TSCHED_NONE) /* a bar in the domain's colour along the bottom edge */
        sb_printf(o, "<rect class=\"nvl\" x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"4\" fill=\"%s\"/>", x + 1.5,
                  y + NODE_H - 5.5, NODE_W - 3, draw_nvl_colour(nvl));
    const char *ink = rank >= 0 ? "#ffffff" : "#222222";
    sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\" fill=\"%s\">", x + NODE_W / 2,
              y + (rank >= 0 ? 12 : 21), ink);
    sb_xml(o, sh);
    sb_printf(o, "</text>");
    if (rank >= 0)
        sb_printf(o, "<text class=\"rank\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                     "font-weight=\"bold\" fill=\"%s\">%lld</text>",
                  x + NODE_W / 2, y + 28, ink, (long long)rank);
    sb_printf(o, "</g>\n");
}

static void svg_nodes(sbuf *o, const picture *pc, const box *b)
{
    leaf_nodes ln = draw_nodes_of(pc, b);
    if (!ln.n)
        return;
    double top = pc->nodes_top;
    sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b0b0b0\" stroke-width=\"1\"/>\n", b->x,
              pc->rows[b->row].y + SW_H, b->x, top);
    if (ln.list) {
        uint32_t cols = ln.n < NODE_COLS ? ln.n : NODE_COLS;
        double w = cols * NODE_W + (cols - 1) * NODE_GAP, x0 = b->x - w / 2;
        for (uint32_t i = 0; i < ln.n; i++)
            svg_node(o, pc, ln.list[i], x0 + (i % NODE_COLS) * (NODE_W + NODE_GAP),
                     top + (i / NODE_COLS) * (NODE_H + NODE_GAP));
        return;
    }
    int down = ln.down == ln.n;
    double x = b->x - COUNT_W / 2;
    sb_printf(o, "<g class=\"nodecount%s%s\" data-count=\"%u\" data-placed=\"%u\"><title>%u nodes, %u placed, %u down",
              ln.placed ? " placed" : "", down ? " down" : "", ln.n, ln.placed, ln.n, ln.placed, ln.down);
    if (tsched_topology_num_nvl_domains(pc->t))
        sb_printf(o, ", %u NVLink domains", draw_box_nvl_domains(pc, b, ln.n));
    sb_printf(o, "</title>");
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" rx=\"3\" fill=\"%s\" stroke=\"%s\" "
                 "stroke-width=\"1.2\"%s/>",
              x, top, COUNT_W, COUNT_H, ln.placed ? "#c6d7ea" : down ? "#f7f7f7" : "#ffffff",
              down ? "#8c8c8c" : "#44546a", down ? DASH : "");
    sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\">%u nodes</text>",
              b->x, top + 16, ln.n);
    char extra[96] = "";
    if (pc->rank && ln.down)
        snprintf(extra, sizeof extra, "%u placed, %u down", ln.placed, ln.down);
    else if (pc->rank)
        snprintf(extra, sizeof extra, "%u placed", ln.placed);
    else if (ln.down)
        snprintf(extra, sizeof extra, "%u down", ln.down);
    if (extra[0])
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\">%s</text>", b->x, top + 31, extra);
    sb_printf(o, "</g>\n");
}

/* A trunk's label sits on its line at a height that depends on the upper box's position, so
 * that labels of lines meeting one box do not pile up. */
static void edge_geometry(const picture *pc, const edge *e, double *x1, double *y1, double *x2, double *y2, double *lx,
                          double *ly)
{
    const box *u = &pc->boxes[e->upper], *l = &pc->boxes[e->lower];
    *x1 = u->x;
    *y1 = pc->rows[u->row].y + SW_H;
    *x2 = l->x;
    *y2 = pc->rows[l->row].y;
    double f = 0.22 + 0.56 * (u->pos + 0.5) / pc->rows[u->row].nboxes; /* from the lower end */
    *lx = *x2 + f * (*x1 - *x2);
    *ly = *y2 + f * (*y1 - *y2);
}

static void svg_edge_title(sbuf *o, const picture *pc, const edge *e)
{
    const tsched_topology *t = pc->t;
    char lab[32];
    if (e->ntrunks == 1) {
        uint32_t tr = e->trunk;
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, tr)));
        sb_printf(o, "~");
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, tr)));
        sb_printf(o, ": %g Gbit/s%s", tsched_topology_trunk_gbps(t, tr), e->ndown ? ", down" : "");
        if (pc->ld.given) {
            size_t d = 2 * (size_t)tr;
            sb_printf(o, "; up %u flows", pc->ld.flows[d]);
            if (pc->ld.has_rates)
                sb_printf(o, " %g Gbit/s", pc->ld.gbps[d]);
            sb_printf(o, ", down %u flows", pc->ld.flows[d + 1]);
            if (pc->ld.has_rates)
                sb_printf(o, " %g Gbit/s", pc->ld.gbps[d + 1]);
            if (e->crossed) {
                draw_value_label(lab, sizeof lab, pc, e->value);
                sb_printf(o, "; %s %s", pc->ld.has_rates ? "load" : "busier direction", lab);
            }
        }
        return;
    }
    sb_printf(o, "%u trunks, %u down", e->ntrunks, e->ndown);
    if (e->crossed) {
        draw_value_label(lab, sizeof lab, pc, e->value);
        sb_printf(o, "; %u carry flows, the busiest %s", e->crossed, lab);
    }
}

static void svg_edge(sbuf *o, const picture *pc, const edge *e)
{
    double x1, y1, x2, y2, lx, ly;
    edge_geometry(pc, e, &x1, &y1, &x2, &y2, &lx, &ly);
    int down = e->ndown == e->ntrunks;
    char colour[8] = "#9a9a9a";
    double width = 1;
    if (e->crossed) {
        double s = draw_scale_of(pc, e->value);
        draw_load_colour(colour, s);
        width = draw_load_width(s);
    } else if (pc->ld.given)
        snprintf(colour, sizeof colour, "#c8c8c8");
    if (down && !e->crossed)
        snprintf(colour, sizeof colour, "#8c8c8c");
    sb_printf(o, "<line class=\"trunk%s%s%s\" data-trunks=\"%u\"", e->ntrunks > 1 ? " group" : "", down ? " down" : "",
              e->crossed ? " loaded" : "", e->ntrunks);
    if (e->ntrunks == 1) {
        const tsched_topology *t = pc->t;
        sb_printf(o, " data-name=\"");
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, e->trunk)));
        sb_printf(o, "~");
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, e->trunk)));
        sb_printf(o, "\"");
    }
    sb_printf(o, " x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.2f\"%s><title>", x1, y1, x2,
              y2, colour, width, down ? DASH : "");
    svg_edge_title(o, pc, e);
    sb_printf(o, "</title></line>\n");
}

static void svg_edge_label(sbuf *o, const picture *pc, const edge *e)
{
    double x1, y1, x2, y2, lx, ly;
    edge_geometry(pc, e, &x1, &y1, &x2, &y2, &lx, &ly);
    char lab[32];
    draw_value_label(lab, sizeof lab, pc, e->value);
    sb_printf(o, "<text class=\"load\"");
    if (e->ntrunks == 1) {
        const tsched_topology *t = pc->t;
        sb_printf(o, " data-name=\"");
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, e->trunk)));
        sb_printf(o, "~");
        sb_xml(o, tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, e->trunk)));
        sb_printf(o, "\"");
    }
    sb_printf(o, " x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\" font-weight=\"bold\" fill=\"#222222\" "
                 "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">%s%s</text>\n",
              lx, ly + 3, e->ntrunks > 1 ? "max " : "", lab);
}

static void svg_legend(sbuf *o, const picture *pc)
{
    double y = pc->height - MARGIN - LEGEND_H + 14, x = MARGIN;
    sb_printf(o, "<g class=\"legend\" font-size=\"10\">\n");
    if (pc->rank) {
        sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"14\" rx=\"2\" fill=\"#4c78a8\" stroke=\"#44546a\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\">placed (rank)</text>\n",
                  x, y, x + 28, y + 11);
        x += 120;
    }
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"14\" rx=\"2\" fill=\"#e3e3e3\" stroke=\"#44546a\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\">GPUs in use</text>\n",
              x, y, x + 28, y + 11);
    x += 110;
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"14\" rx=\"2\" fill=\"#f7f7f7\" stroke=\"#8c8c8c\"%s/>"
                 "<text x=\"%.1f\" y=\"%.1f\">down</text>\n",
              x, y, DASH, x + 28, y + 11);
    x += 80;
    if (tsched_topology_num_nvl_domains(pc->t)) {
        for (uint32_t d = 0; d < 4; d++)
            sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"4\" fill=\"%s\"/>", x + 6.0 * d, y + 6,
                      draw_nvl_colour(d));
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\">NVLink domain</text>\n", x + 30, y + 11);
        x += 120;
    }
    if (pc->ld.given) {
        double bw = 160;
        sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"10\" fill=\"url(#loadscale)\"/>\n", x, y + 2, bw);
        if (pc->ld.has_rates) {
            sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">0</text><text x=\"%.1f\" y=\"%.1f\" "
                         "text-anchor=\"middle\">0.5</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1</text>\n",
                      x, y + 25, x + bw / 2, y + 25, x + bw, y + 25);
            sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"#7f0000\"/><text x=\"%.1f\" "
                         "y=\"%.1f\">&gt;1</text>\n",
                      x + bw + 6, y + 2, x + bw + 24, y + 11);
            sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\">trunk load: Gbit/s of its busier direction / capacity</text>\n",
                      x + bw + 50, y + 11);
        } else {
            sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">0</text><text x=\"%.1f\" y=\"%.1f\" "
                         "text-anchor=\"middle\">%.0f</text>\n",
                      x, y + 25, x + bw, y + 25, pc->ld.max_value);
            sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\">flows on a trunk's busier direction (no rates)</text>\n", x + bw + 12,
                      y + 11);
        }
    }
    sb_printf(o, "</g>\n");
}

void draw_svg(sbuf *o, const picture *pc)
{
    const tsched_topology *t = pc->t;
    sb_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                 "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
              pc->width, pc->height, pc->width, pc->height);
    sb_printf(o, "<title>");
    sb_xml(o, tsched_topology_name(t));
    sb_printf(o, "</title>\n");
    if (pc->ld.given)
        sb_printf(o, "<defs><linearGradient id=\"loadscale\"><stop offset=\"0\" stop-color=\"#2ca02c\"/>"
                     "<stop offset=\"0.5\" stop-color=\"#ffbf00\"/><stop offset=\"1\" stop-color=\"#d62728\"/>"
                     "</linearGradient></defs>\n");
    sb_printf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    /* heading */
    uint32_t tiers = pc->nrows ? (uint32_t)pc->rows[0].tier + 1 : 0;
    sb_printf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"16\" font-weight=\"bold\">", MARGIN, MARGIN + 10);
    sb_xml(o, tsched_topology_name(t));
    sb_printf(o, "</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#444444\">%u nodes, %llu GPUs, %u "
                 "switches in %u tiers, %u trunks",
              MARGIN, MARGIN + 28, tsched_topology_num_nodes(t), (unsigned long long)tsched_topology_num_gpus(t),
              tsched_topology_num_switches(t), tiers, tsched_topology_num_trunks(t));
    if (tsched_topology_num_nvl_domains(t))
        sb_printf(o, ", %u NVLink domains", tsched_topology_num_nvl_domains(t));
    if (pc->rank)
        sb_printf(o, "; placement on %u nodes", pc->placed);
    if (pc->ld.given) {
        char lab[32];
        draw_value_label(lab, sizeof lab, pc, pc->ld.max_value);
        sb_printf(o, "; %u routed flows, busiest trunk %s%s", pc->ld.nflows, lab, pc->ld.has_rates ? "" : " flows");
    }
    sb_printf(o, "</text>\n");
    /* tier names at the left of each row */
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        char tn[16];
        draw_tier_name(tn, sizeof tn, pc->rows[ri].tier);
        sb_printf(o, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"9\" fill=\"#888888\">%s</text>\n", 4.0,
                  pc->rows[ri].y - 4, tn);
    }
    /* trunks: idle ones first, so that loaded ones are drawn over them */
    sb_printf(o, "<g class=\"trunks\">\n");
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < pc->nedges; i++)
            if ((pc->edges[i].crossed != 0) == pass)
                svg_edge(o, pc, &pc->edges[i]);
    sb_printf(o, "</g>\n<g class=\"switches\">\n");
    for (uint32_t b = 0; b < pc->nboxes; b++)
        svg_switch(o, pc, &pc->boxes[b]);
    sb_printf(o, "</g>\n<g class=\"nodes\">\n");
    if (pc->nrows && pc->rows[pc->nrows - 1].tier == 0) {
        const row *leaf = &pc->rows[pc->nrows - 1];
        for (uint32_t k = 0; k < leaf->nboxes; k++)
            svg_nodes(o, pc, &pc->boxes[leaf->first_box + k]);
    }
    sb_printf(o, "</g>\n<g class=\"loads\">\n");
    for (uint32_t i = 0; i < pc->nedges; i++)
        if (pc->edges[i].crossed)
            svg_edge_label(o, pc, &pc->edges[i]);
    sb_printf(o, "</g>\n");
    svg_legend(o, pc);
    sb_printf(o, "</svg>\n");
}
