/* Internal to `topo-sched draw` (doc/draw.md): the picture's model and layout (layout.c),
 * shared by its writers (draw_svg.c, draw_dot.c) and the command (cmd_draw.c). */
#ifndef TSCHED_CLI_DRAW_H
#define TSCHED_CLI_DRAW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../cli.h"

#ifdef TSCHED_MAX_TIERS
#define DRAW_TIERS TSCHED_MAX_TIERS
#else
#define DRAW_TIERS 8 /* the model's tiers 0..7 (tsched_topology_num_tier answers 0 beyond) */
#endif

/* More switches than this in one tier: they are grouped (by pod, else in runs of index order). */
#define DRAW_MAX_ROW 64
/* Node boxes per line under a leaf. */
#define NODE_COLS 4

/* Geometry of the SVG, in px. */
#define MARGIN 20.0
#define HEAD_H 56.0
#define SW_W 104.0
#define SW_H 34.0
#define COL_GAP 16.0
#define ROW_GAP 130.0
#define NODE_W 62.0
#define NODE_H 34.0
#define NODE_GAP 6.0
#define COUNT_W 104.0
#define COUNT_H 48.0
#define LEGEND_H 56.0

/* ---- output buffer (draw_text.c) ------------------------------------------------------- */

/* A growing text; the first allocation failure is sticky (oom), checked once at the end. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `s` escaped for XML text and attribute values. */
void sb_xml(sbuf *b, const char *s);
/* `s` escaped for a Graphviz double-quoted string ("\n" in `s` stays a DOT line break). */
void sb_dot(sbuf *b, const char *s);
/* At most `maxc` characters of the UTF-8 name `s`: a longer one keeps its head and tail around
 * an ellipsis (the full name goes in the tooltip). */
void draw_shorten(char *dst, size_t cap, const char *s, unsigned maxc);

/* ---- the picture's model ------------------------------------------------------------ */

/* One box of a row: a switch, or a group of switches of one tier. */
typedef struct box {
    uint32_t first, count; /* its switches: members[first .. first + count) of its row */
    uint32_t row, pos;     /* row (0 = top) and position in the row */
    uint32_t ndown;        /* switches down among them */
    uint32_t pod;          /* grouped by pod: that pod, else TSCHED_NONE */
    double x;              /* centre */
} box;

typedef struct row {
    int tier;
    uint32_t nsw;      /* switches of the tier */
    uint32_t *members; /* the tier's switches, box by box */
    uint32_t first_box, nboxes;
    int grouped;
    double y; /* top of the boxes */
} row;

/* Trunks between two boxes, drawn as one line. */
typedef struct edge {
    uint32_t upper, lower; /* boxes */
    uint32_t trunk;        /* the trunk when ntrunks == 1 */
    uint32_t ntrunks, ndown, crossed;
    double value; /* largest load share (rates) or flow count (no rates) among its trunks */
} edge;

typedef struct loads {
    int given, has_rates;
    uint32_t nflows;
    double *gbps;     /* per directed link 2 * trunk + d: sum of rate_gbps */
    uint32_t *flows;  /* per directed link: flows crossing it */
    double max_value; /* largest trunk value */
} loads;

typedef struct picture {
    const tsched_topology *t;
    uint32_t nrows, nboxes, nedges, max_nodes;
    row rows[DRAW_TIERS];
    box *boxes;
    uint32_t *box_of; /* switch -> box */
    edge *edges;
    int64_t *rank; /* node -> rank, -1 unplaced (NULL without a placement) */
    uint32_t *group; /* node -> [2 * node] placement row (PP group), [2 * node + 1] column (DP group) */
    uint32_t prows, pcols; /* the placement's matrix */
    uint32_t placed;
    loads ld;
    double width, height, nodes_top, colw;
} picture;

/* The nodes under a leaf box. */
typedef struct leaf_nodes {
    const uint32_t *list; /* the leaf's nodes when drawn one by one, else NULL */
    uint32_t n, placed, down;
} leaf_nodes;

/* ---- the model (layout.c) ---------------------------------------------------------------- */

/* "leaf"/"leaves", "spine"/"spines", "core"/"cores", else "switch"/"switches". */
const char *draw_tier_word(int tier, int plural);
/* "leaf", "spine", "core", "tier<k>" */
void draw_tier_name(char *dst, size_t cap, int tier);
/* A trunk's value: the share of its busier direction (rates) or that direction's flow count. */
double draw_trunk_value(const picture *pc, uint32_t tr);
/* 1 if routes were given and some flow crosses the trunk. */
int draw_trunk_crossed(const picture *pc, uint32_t tr);
/* The colour scale's position of a value: its share, or count / largest count without rates. */
double draw_scale_of(const picture *pc, double v);
/* Green (0) - amber (0.5) - red (1); dark red above 1. */
void draw_load_colour(char out[8], double s);
/* Line width of a scale position. */
double draw_load_width(double s);
/* Colour of NVLink domain `d` (in order of first node, so neighbours differ). */
const char *draw_nvl_colour(uint32_t d);
/* The label of a trunk value: the share with two decimals, or the flow count. */
void draw_value_label(char *dst, size_t cap, const picture *pc, double v);
/* "out of memory" on standard error; CLI_INTERNAL. */
int draw_nomem(void);
/* Rows and boxes: one box per switch, or groups when a tier has more than DRAW_MAX_ROW. */
int draw_build_rows(picture *pc);
/* One edge per pair of boxes joined by trunks, in (upper box, lower box) order. */
int draw_build_edges(picture *pc);
/* Distinct NVLink domains among the nodes of a box (0 when out of memory: only a tooltip). */
uint32_t draw_box_nvl_domains(const picture *pc, const box *b, uint32_t n);
leaf_nodes draw_nodes_of(const picture *pc, const box *b);
/* Positions: box centres, row tops, the picture's size. */
void draw_layout(picture *pc);
/* The text of a box: a switch's name, or a group's "pod3" / "first…last" and its count. */
void draw_box_text(char *l1, size_t c1, char *l2, size_t c2, const picture *pc, const box *b);
/* Free what the model holds (not the fabric). */
void draw_picture_free(picture *pc);

/* ---- the writers ------------------------------------------------------------------------- */

/* The SVG picture (draw_svg.c). */
void draw_svg(sbuf *o, const picture *pc);
/* The Graphviz DOT graph (draw_dot.c). */
void draw_dot(sbuf *o, const picture *pc);

/* ---- the aggregated view (aggregate.c, doc/draw.md "Large fabrics") ---------------------- */

/* Past this width or height of the full view, --view auto draws the aggregated view. */
#define DRAW_AUTO_PX 2000.0
enum { DRAW_GROUP_DP = 0, DRAW_GROUP_PP = 1 };
/* The aggregated SVG: node map (pods as blocks, one square per node, placed nodes coloured by
 * DP or PP group), one heatmap per pair of joined tiers; about 2,000 px each side at most.
 * Its size in `*w` x `*h` px; `pc` laid out (its full-view size goes in the heading).
 * CLI_OK or draw_nomem(). */
int draw_agg_svg(sbuf *o, double *w, double *h, const picture *pc, int group_by);

/* ---- PNG (png.c) ------------------------------------------------------------------------ */

/* 1 when this build can write PNG (meson -Dpng, librsvg). */
int draw_png_available(void);
/* The SVG text `svg` rendered to PNG bytes in `*png` (malloc'd, `*len`), `w` x `h` px;
 * CLI_OK, or an exit status after a message. */
int draw_png(unsigned char **png, size_t *len, const char *svg, size_t svglen, double w, double h);

#endif
