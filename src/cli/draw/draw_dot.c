/* `topo-sched draw --format dot`: the Graphviz writer (doc/draw.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

void draw_dot(sbuf *o, const picture *pc)
{
    const tsched_topology *t = pc->t;
    sb_printf(o, "graph \"");
    sb_dot(o, tsched_topology_name(t));
    sb_printf(o, "\" {\n  graph [rankdir=TB, ranksep=1.2, nodesep=0.15, fontname=\"Helvetica\", labelloc=t, label=\"");
    sb_dot(o, tsched_topology_name(t));
    sb_printf(o, ": %u nodes, %u switches, %u trunks\"];\n", tsched_topology_num_nodes(t),
              tsched_topology_num_switches(t), tsched_topology_num_trunks(t));
    sb_printf(o, "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, "
                 "fillcolor=\"#eef2f7\", color=\"#44546a\"];\n  edge [color=\"#9a9a9a\"];\n");
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        const row *r = &pc->rows[ri];
        char tn[16];
        draw_tier_name(tn, sizeof tn, r->tier);
        sb_printf(o, "  subgraph \"tier_%s\" {\n    rank=same;\n", tn);
        for (uint32_t k = 0; k < r->nboxes; k++) {
            const box *b = &pc->boxes[r->first_box + k];
            char l1[160], l2[96];
            draw_box_text(l1, sizeof l1, l2, sizeof l2, pc, b);
            int down = b->ndown == b->count;
            sb_printf(o, "    s%u [label=\"", r->first_box + k);
            if (b->count == 1 && !r->grouped)
                sb_dot(o, tsched_topology_switch_name(t, r->members[b->first]));
            else {
                sb_dot(o, l1);
                sb_printf(o, "\\n");
                sb_dot(o, l2);
            }
            sb_printf(o, "\"%s];\n", down ? ", style=\"rounded,filled,dashed\", fillcolor=\"#f7f7f7\", color=\"#8c8c8c\"" : "");
        }
        sb_printf(o, "  }\n");
    }
    for (uint32_t i = 0; i < pc->nedges; i++) {
        const edge *e = &pc->edges[i];
        int down = e->ndown == e->ntrunks;
        sb_printf(o, "  s%u -- s%u [", e->upper, e->lower);
        const char *sep = "";
        if (e->crossed) {
            char colour[8], lab[32];
            double s = draw_scale_of(pc, e->value);
            draw_load_colour(colour, s);
            draw_value_label(lab, sizeof lab, pc, e->value);
            sb_printf(o, "color=\"%s\", penwidth=%.2f, label=\"%s%s\", fontsize=9", colour, draw_load_width(s),
                      e->ntrunks > 1 ? "max " : "", lab);
            sep = ", ";
        } else if (pc->ld.given) {
            sb_printf(o, "color=\"#c8c8c8\"");
            sep = ", ";
        }
        if (down)
            sb_printf(o, "%sstyle=dashed", sep);
        sb_printf(o, "];\n");
    }
    if (pc->nrows && pc->rows[pc->nrows - 1].tier == 0) {
        const row *leaf = &pc->rows[pc->nrows - 1];
        sb_printf(o, "  subgraph nodes {\n    rank=same;\n    node [style=\"filled\", fillcolor=\"#ffffff\", fontsize=9];\n");
        for (uint32_t k = 0; k < leaf->nboxes; k++) {
            uint32_t bi = leaf->first_box + k;
            leaf_nodes ln = draw_nodes_of(pc, &pc->boxes[bi]);
            if (ln.list) {
                for (uint32_t i = 0; i < ln.n; i++) {
                    uint32_t nd = ln.list[i];
                    int64_t rank = pc->rank ? pc->rank[nd] : -1;
                    int down = !tsched_topology_node_is_up(t, nd);
                    sb_printf(o, "    n%u [label=\"", nd);
                    sb_dot(o, tsched_topology_node_name(t, nd));
                    if (rank >= 0)
                        sb_printf(o, "\\nrank %lld\", fillcolor=\"#4c78a8\", fontcolor=\"#ffffff\"", (long long)rank);
                    else if (tsched_topology_node_free_gpus(t, nd) < tsched_topology_node_gpus(t, nd))
                        sb_printf(o, "\", fillcolor=\"#e3e3e3\"");
                    else
                        sb_printf(o, "\"");
                    uint32_t nvl = tsched_topology_node_nvl(t, nd);
                    if (nvl != TSCHED_NONE) {
                        sb_printf(o, ", penwidth=2.5, color=\"%s\", tooltip=\"NVLink domain ", draw_nvl_colour(nvl));
                        sb_dot(o, tsched_topology_nvl_name(t, nvl));
                        sb_printf(o, "\"");
                    }
                    sb_printf(o, "%s];\n", down ? ", style=\"filled,dashed\"" : "");
                }
            } else if (ln.n) {
                sb_printf(o, "    c%u [label=\"%u nodes", bi, ln.n);
                if (pc->rank)
                    sb_printf(o, "\\n%u placed", ln.placed);
                if (ln.down)
                    sb_printf(o, "\\n%u down", ln.down);
                sb_printf(o, "\"%s%s];\n", ln.placed ? ", fillcolor=\"#c6d7ea\"" : "",
                          ln.down == ln.n ? ", style=\"filled,dashed\", color=\"#8c8c8c\"" : "");
            }
        }
        sb_printf(o, "  }\n");
        for (uint32_t k = 0; k < leaf->nboxes; k++) {
            uint32_t bi = leaf->first_box + k;
            leaf_nodes ln = draw_nodes_of(pc, &pc->boxes[bi]);
            if (ln.list)
                for (uint32_t i = 0; i < ln.n; i++)
                    sb_printf(o, "  s%u -- n%u [color=\"#d0d0d0\"];\n", bi, ln.list[i]);
            else if (ln.n)
                sb_printf(o, "  s%u -- c%u [color=\"#d0d0d0\"];\n", bi, bi);
        }
    }
    sb_printf(o, "}\n");
}
