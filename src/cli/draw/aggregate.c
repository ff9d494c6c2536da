/* `topo-sched draw --view aggregate` (doc/draw.md "Large fabrics"): a picture whose size does
 * not grow with the fabric. A node map (pods as blocks, a leaf as a column of squares, one per
 * node, placed nodes coloured by their DP or PP group) and one heatmap per pair of tiers
 * joined by trunks (lower tier across, upper tier down; a cell is a bin of switches by a bin
 * of switches: its capacity, or with routes its busiest trunk's load). Text is placed only
 * where it overlaps no text already placed, so labels never pile up whatever the fabric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#define AG_W 1900.0     /* content width budget, px */
#define AG_XBINS 240u   /* at most this many heatmap columns (bins of lower-tier switches) */
#define AG_YBINS 64u    /* and rows (bins of upper-tier switches) */
#define AG_LABEL_W 120.0 /* room for a heatmap's row labels */
#define AG_RUN 16u      /* leaves per block when the fabric has no pods */
#define AG_COL_MAX 64u  /* squares per leaf column; more nodes wrap into more columns */
#define AG_CELL_MAX 16  /* largest node square, px */
#define AG_BLOCK_GAP 14.0
#define AG_BLOCK_LABEL 14.0
#define AG_LEGEND_H 64.0
/* Width of a character in em: DejaVu Sans digits are 0.636 em, most letters less; labels are
 * placed with this bound so that their boxes never overlap (tests/test_draw.py uses it too). */
#define FONT_K 0.64
#define FONT_K_BOLD 0.70

/* ---- text placed without overlap ---------------------------------------------------------- */

typedef struct lbox {
    double x0, y0, x1, y1;
} lbox;

typedef struct labels {
    lbox *b;
    size_t n, cap;
    int oom;
} labels;

static unsigned utf8_chars(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static double text_w(const char *s, double size) { return FONT_K * size * utf8_chars(s); }

/* `text` at (x, y) (baseline; anchor "start", "middle" or "end") unless its box meets a text
 * already placed; 1 if written. `attrs` is extra SVG attributes (may be ""). */
static int put_text(sbuf *o, labels *L, double x, double y, const char *anchor, double size, const char *attrs,
                    const char *text)
{
    double w = (strstr(attrs, "bold") ? FONT_K_BOLD : FONT_K) * size * utf8_chars(text), x0 = anchor[0] == 'm' ? x - w / 2 : anchor[0] == 'e' ? x - w : x;
    lbox nb = {x0, y - 0.8 * size, x0 + w, y + 0.25 * size};
    for (size_t i = 0; i < L->n; i++) {
        const lbox *b = &L->b[i];
        if (nb.x0 < b->x1 && b->x0 < nb.x1 && nb.y0 < b->y1 && b->y0 < nb.y1)
            return 0;
    }
    if (L->n == L->cap) {
        size_t nc = L->cap ? 2 * L->cap : 256;
        lbox *g = realloc(L->b, nc * sizeof *g);
        if (!g) {
            L->oom = 1;
            return 0;
        }
        L->b = g;
        L->cap = nc;
    }
    L->b[L->n++] = nb;
    sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\"%s%s%s %s>", x, y, size, anchor[0] == 's' ? "" : " text-anchor=\"",
              anchor[0] == 's' ? "" : anchor, anchor[0] == 's' ? "" : "\"", attrs);
    sb_xml(o, text);
    sb_printf(o, "</text>\n");
    return 1;
}

/* ---- colours ------------------------------------------------------------------------------ */

#define C_FREE "#dce3ec"
#define C_BUSY "#8d99a8"
#define C_DOWN "#3a3a3a"
#define C_IDLE "#ececec"
#define C_CELL_DOWN "#7a7a7a"

static const char *group_colour(uint32_t g)
{
    static const char *const pal[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};
    return pal[g % 10];
}

/* Light to dark blue, s in [0, 1]: trunk capacity. */
static void cap_colour(char out[8], double s)
{
    static const int stop[3][3] = {{0xe8, 0xf0, 0xfa}, {0x6b, 0xae, 0xd6}, {0x08, 0x30, 0x6b}};
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    double u = 2 * s;
    int k = u >= 1 ? 1 : 0;
    u -= k;
    if (k == 1 && u > 1)
        u = 1;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(stop[k][i] + u * (stop[k + 1][i] - stop[k][i]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* ---- heatmaps ----------------------------------------------------------------------------- */

typedef struct axis {
    int tier;
    uint32_t n, per, nbins; /* switches, switches per bin (index order), bins */
} axis;

typedef struct hmap {
    axis x, y; /* x: the lower tier, y: the upper one */
    uint32_t *ntr, *nup, *ncross; /* per cell y * x.nbins + x */
    double *cap, *val;
    double maxv, x0, y0, cw, ch;
} hmap;

static axis make_axis(const picture *pc, int tier, uint32_t maxbins)
{
    axis a = {.tier = tier, .n = tsched_topology_num_tier(pc->t, tier)};
    a.per = (a.n + maxbins - 1) / maxbins;
    if (!a.per)
        a.per = 1;
    a.nbins = (a.n + a.per - 1) / a.per;
    return a;
}

/* The value a cell shows: capacity (no routes), busiest load (routes). */
static double cell_value(const picture *pc, const hmap *h, size_t c)
{
    return pc->ld.given ? h->val[c] : h->cap[c];
}

static int build_hmaps(const picture *pc, const uint32_t *tidx, hmap *hm, int *nh)
{
    const tsched_topology *t = pc->t;
    uint32_t nt = tsched_topology_num_trunks(t);
    unsigned char pair[DRAW_TIERS][DRAW_TIERS] = {{0}};
    for (uint32_t tr = 0; tr < nt; tr++) {
        int lo = tsched_topology_switch_tier(t, tsched_topology_trunk_lower(t, tr));
        int up = tsched_topology_switch_tier(t, tsched_topology_trunk_upper(t, tr));
        if (lo >= 0 && up >= 0 && lo < DRAW_TIERS && up < DRAW_TIERS)
            pair[lo][up] = 1;
    }
    int n = 0;
    for (int lo = 0; lo < DRAW_TIERS; lo++)
        for (int up = 0; up < DRAW_TIERS; up++)
            if (pair[lo][up]) {
                hmap *h = &hm[n++];
                memset(h, 0, sizeof *h);
                h->x = make_axis(pc, lo, AG_XBINS);
                h->y = make_axis(pc, up, AG_YBINS);
                size_t cells = (size_t)h->x.nbins * h->y.nbins;
                h->ntr = calloc(cells, sizeof *h->ntr);
                h->nup = calloc(cells, sizeof *h->nup);
                h->ncross = calloc(cells, sizeof *h->ncross);
                h->cap = calloc(cells, sizeof *h->cap);
                h->val = calloc(cells, sizeof *h->val);
                *nh = n;
                if (!h->ntr || !h->nup || !h->ncross || !h->cap || !h->val)
                    return draw_nomem();
                pair[lo][up] = (unsigned char)n; /* 1 + its index */
            }
    for (uint32_t tr = 0; tr < nt; tr++) {
        uint32_t a = tsched_topology_trunk_lower(t, tr), b = tsched_topology_trunk_upper(t, tr);
        int lo = tsched_topology_switch_tier(t, a), up = tsched_topology_switch_tier(t, b);
        if (lo < 0 || up < 0 || lo >= DRAW_TIERS || up >= DRAW_TIERS)
            continue;
        hmap *h = &hm[pair[lo][up] - 1];
        size_t c = (size_t)(tidx[b] / h->y.per) * h->x.nbins + tidx[a] / h->x.per;
        h->ntr[c]++;
        if (tsched_topology_trunk_is_up(t, tr)) {
            h->nup[c]++;
            h->cap[c] += tsched_topology_trunk_gbps(t, tr);
        }
        if (draw_trunk_crossed(pc, tr)) {
            double v = draw_trunk_value(pc, tr);
            if (!h->ncross[c] || v > h->val[c])
                h->val[c] = v;
            h->ncross[c]++;
        }
    }
    for (int i = 0; i < n; i++) {
        hmap *h = &hm[i];
        for (size_t c = 0; c < (size_t)h->x.nbins * h->y.nbins; c++)
            if (h->ntr[c] && cell_value(pc, h, c) > h->maxv)
                h->maxv = cell_value(pc, h, c);
    }
    return CLI_OK;
}

static void free_hmaps(hmap *hm, int nh)
{
    for (int i = 0; i < nh; i++) {
        free(hm[i].ntr);
        free(hm[i].nup);
        free(hm[i].ncross);
        free(hm[i].cap);
        free(hm[i].val);
    }
}

/* The pod of a bin when all its switches share one, else TSCHED_NONE. */
static uint32_t bin_pod(const picture *pc, const axis *a, uint32_t k)
{
    uint32_t first = k * a->per, last = first + a->per < a->n ? first + a->per : a->n;
    uint32_t p = tsched_topology_switch_pod(pc->t, tsched_topology_tier_switch(pc->t, a->tier, first));
    for (uint32_t i = first + 1; i < last && p != TSCHED_NONE; i++)
        if (tsched_topology_switch_pod(pc->t, tsched_topology_tier_switch(pc->t, a->tier, i)) != p)
            p = TSCHED_NONE;
    return p;
}

/* Labels along one axis: runs of bins of one pod get the pod's name; without pods, bins get
 * their first switch's name; a label that would meet another is left out. Pod boundaries are
 * drawn across the map. */
static void axis_labels(sbuf *o, labels *L, const picture *pc, const hmap *h, int vertical)
{
    const axis *a = vertical ? &h->y : &h->x;
    double span = vertical ? h->ch : h->cw;
    int any_pod = 0;
    for (uint32_t k = 0; k < a->nbins && !any_pod; k++)
        any_pod = bin_pod(pc, a, k) != TSCHED_NONE;
    double w = h->x.nbins * h->cw, hh = h->y.nbins * h->ch;
    for (uint32_t k = 0; k < a->nbins;) {
        uint32_t p = any_pod ? bin_pod(pc, a, k) : TSCHED_NONE, e = k + 1;
        while (any_pod && e < a->nbins && bin_pod(pc, a, e) == p)
            e++;
        char name[96];
        const char *full = p != TSCHED_NONE ? tsched_topology_pod_name(pc->t, p)
                                            : tsched_topology_switch_name(pc->t, tsched_topology_tier_switch(pc->t, a->tier, k * a->per));
        double mid = (k + e) / 2.0 * span;
        if (vertical) {
            draw_shorten(name, sizeof name, full, (unsigned)((AG_LABEL_W - 8) / (FONT_K * 9)));
            put_text(o, L, h->x0 - 4, h->y0 + mid + 3, "end", 9, "fill=\"#333333\"", name);
        } else {
            /* a run wide enough for 8 characters gets its name shortened to fit; a narrower
             * one keeps the whole name, and is left out if it would meet its neighbour */
            unsigned room = (unsigned)((e - k) * span / (FONT_K * 9));
            draw_shorten(name, sizeof name, full, room < 8 ? 255 : room);
            put_text(o, L, h->x0 + mid, h->y0 + hh + 12, "middle", 9, "fill=\"#333333\"", name);
        }
        if (any_pod && k > 0) {
            if (vertical)
                sb_printf(o, "<line class=\"podline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#44546a\" "
                             "stroke-width=\"0.6\"/>\n", h->x0, h->y0 + k * span, h->x0 + w, h->y0 + k * span);
            else
                sb_printf(o, "<line class=\"podline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#44546a\" "
                             "stroke-width=\"0.6\"/>\n", h->x0 + k * span, h->y0, h->x0 + k * span, h->y0 + hh);
        }
        k = e;
    }
}

static void bin_title(sbuf *o, const picture *pc, const axis *a, uint32_t k)
{
    uint32_t first = k * a->per, last = (first + a->per < a->n ? first + a->per : a->n) - 1;
    sb_xml(o, tsched_topology_switch_name(pc->t, tsched_topology_tier_switch(pc->t, a->tier, first)));
    if (last != first) {
        sb_printf(o, " .. ");
        sb_xml(o, tsched_topology_switch_name(pc->t, tsched_topology_tier_switch(pc->t, a->tier, last)));
    }
}

static void svg_hmap(sbuf *o, labels *L, const picture *pc, const hmap *h)
{
    char lo[16], up[16], lab[32];
    draw_tier_name(lo, sizeof lo, h->x.tier);
    draw_tier_name(up, sizeof up, h->y.tier);
    const char *what = !pc->ld.given ? "capacity" : pc->ld.has_rates ? "load" : "flows";
    char title[320], cols[64] = "", rows[64] = "";
    if (h->x.per > 1)
        snprintf(cols, sizeof cols, ", %u per column", h->x.per);
    if (h->y.per > 1)
        snprintf(rows, sizeof rows, ", %u per row", h->y.per);
    char scale[64];
    if (!pc->ld.given)
        snprintf(scale, sizeof scale, "capacity, darkest %g Gbit/s", h->maxv);
    else if (pc->ld.has_rates)
        snprintf(scale, sizeof scale, "load of the busiest trunk");
    else
        snprintf(scale, sizeof scale, "flows on the busiest trunk, reddest %g", h->maxv);
    snprintf(title, sizeof title, "%s x %s trunks (%s): columns %u %s%s, rows %u %s%s", lo, up, scale, h->x.n,
             draw_tier_word(h->x.tier, h->x.n != 1), cols, h->y.n, draw_tier_word(h->y.tier, h->y.n != 1), rows);
    put_text(o, L, h->x0, h->y0 - 8, "start", 11, "font-weight=\"bold\" fill=\"#222222\"", title);
    sb_printf(o, "<g class=\"heatmap\" data-lower=\"%s\" data-upper=\"%s\" data-cols=\"%u\" data-rows=\"%u\" "
                 "data-col-size=\"%u\" data-row-size=\"%u\" data-value=\"%s\" data-max=\"%.10g\">\n",
              lo, up, h->x.nbins, h->y.nbins, h->x.per, h->y.per, what, h->maxv);
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" stroke=\"#c8c8c8\"/>\n",
              h->x0, h->y0, h->x.nbins * h->cw, h->y.nbins * h->ch);
    for (uint32_t j = 0; j < h->y.nbins; j++)
        for (uint32_t i = 0; i < h->x.nbins; i++) {
            size_t c = (size_t)j * h->x.nbins + i;
            if (!h->ntr[c])
                continue;
            double v = cell_value(pc, h, c);
            char col[8];
            int down = h->nup[c] == 0;
            if (pc->ld.given && h->ncross[c])
                draw_load_colour(col, pc->ld.has_rates ? v : (h->maxv > 0 ? v / h->maxv : 0));
            else if (pc->ld.given)
                snprintf(col, sizeof col, "%s", down ? C_CELL_DOWN : C_IDLE);
            else if (down)
                snprintf(col, sizeof col, "%s", C_CELL_DOWN);
            else
                cap_colour(col, h->maxv > 0 ? v / h->maxv : 0);
            sb_printf(o, "<rect class=\"cell%s%s\" data-col=\"%u\" data-row=\"%u\" data-trunks=\"%u\" data-value=\"%.10g\" "
                         "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                      down ? " down" : "", h->ncross[c] ? " loaded" : "", i, j, h->ntr[c], v, h->x0 + i * h->cw,
                      h->y0 + j * h->ch, h->cw >= 5 ? h->cw - 1 : h->cw, h->ch >= 5 ? h->ch - 1 : h->ch, col);
            bin_title(o, pc, &h->x, i);
            sb_printf(o, " ~ ");
            bin_title(o, pc, &h->y, j);
            sb_printf(o, ": %u trunks, %u down, %g Gbit/s", h->ntr[c], h->ntr[c] - h->nup[c], h->cap[c]);
            if (pc->ld.given) {
                draw_value_label(lab, sizeof lab, pc, h->val[c]);
                sb_printf(o, "; %u carry flows%s%s", h->ncross[c], h->ncross[c] ? ", the busiest " : "",
                          h->ncross[c] ? lab : "");
            }
            sb_printf(o, "</title></rect>\n");
        }
    sb_printf(o, "</g>\n");
    axis_labels(o, L, pc, h, 0);
    axis_labels(o, L, pc, h, 1);
}

/* ---- node map ----------------------------------------------------------------------------- */

typedef struct nmap {
    uint32_t *leaves; /* the leaves, block by block */
    uint32_t *bfirst, *bcount, *bpod; /* per block: leaves[bfirst .. +bcount), its pod */
    uint32_t nblocks, maxleaves, maxn, colh, lcols;
    double c, lgap, bw, x0, y0;
    uint32_t per_line;
} nmap;

static int build_nmap(const picture *pc, nmap *m)
{
    const tsched_topology *t = pc->t;
    uint32_t nl = tsched_topology_num_tier(t, 0), np = tsched_topology_num_pods(t);
    m->leaves = malloc((nl ? nl : 1) * sizeof *m->leaves);
    m->bfirst = malloc((nl ? nl : 1) * sizeof *m->bfirst);
    m->bcount = malloc((nl ? nl : 1) * sizeof *m->bcount);
    m->bpod = malloc((nl ? nl : 1) * sizeof *m->bpod);
    if (!m->leaves || !m->bfirst || !m->bcount || !m->bpod)
        return draw_nomem();
    int by_pod = np > 0;
    for (uint32_t i = 0; i < nl && by_pod; i++)
        by_pod = tsched_topology_switch_pod(t, tsched_topology_tier_switch(t, 0, i)) < np;
    if (by_pod) { /* pods in order of their first leaf, each pod's leaves in index order */
        unsigned char *seen = calloc(np, 1);
        if (!seen)
            return draw_nomem();
        uint32_t k = 0;
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t p = tsched_topology_switch_pod(t, tsched_topology_tier_switch(t, 0, i)), cnt = 0;
            if (seen[p])
                continue;
            seen[p] = 1;
            const uint32_t *pl = tsched_topology_pod_leaves(t, p, &cnt);
            m->bfirst[m->nblocks] = k;
            m->bpod[m->nblocks] = p;
            for (uint32_t j = 0; j < cnt; j++)
                if (tsched_topology_switch_tier(t, pl[j]) == 0 && k < nl)
                    m->leaves[k++] = pl[j];
            m->bcount[m->nblocks] = k - m->bfirst[m->nblocks];
            m->nblocks++;
        }
        free(seen);
        by_pod = k == nl; /* a pod listing something else: fall back to runs */
    }
    if (!by_pod) {
        m->nblocks = 0;
        for (uint32_t i = 0; i < nl; i++) {
            m->leaves[i] = tsched_topology_tier_switch(t, 0, i);
            if (i % AG_RUN == 0) {
                m->bfirst[m->nblocks] = i;
                m->bcount[m->nblocks] = 0;
                m->bpod[m->nblocks++] = TSCHED_NONE;
            }
            m->bcount[m->nblocks - 1]++;
        }
    }
    for (uint32_t b = 0; b < m->nblocks; b++)
        if (m->bcount[b] > m->maxleaves)
            m->maxleaves = m->bcount[b];
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t cnt = 0;
        tsched_topology_leaf_nodes(t, m->leaves[i], &cnt);
        if (cnt > m->maxn)
            m->maxn = cnt;
    }
    m->colh = m->maxn < AG_COL_MAX ? (m->maxn ? m->maxn : 1) : AG_COL_MAX;
    m->lcols = (m->maxn + m->colh - 1) / m->colh;
    if (!m->lcols)
        m->lcols = 1;
    return CLI_OK;
}

static double nmap_height(const nmap *m)
{
    uint32_t lines = m->nblocks ? (m->nblocks + m->per_line - 1) / m->per_line : 0;
    return lines * (AG_BLOCK_LABEL + m->colh * m->c + AG_BLOCK_GAP);
}

/* The largest square (px) at which the blocks fit `w` x `hmax`, and the blocks per line. */
static void size_nmap(nmap *m, double hmax)
{
    for (int c = AG_CELL_MAX; c >= 1; c--) {
        m->c = c;
        m->lgap = c >= 4 ? 3 : 1;
        m->bw = (double)m->maxleaves * m->lcols * c + (m->maxleaves ? m->maxleaves - 1 : 0) * m->lgap;
        double pl = floor((AG_W + AG_BLOCK_GAP) / (m->bw + AG_BLOCK_GAP));
        m->per_line = pl < 1 ? 1 : pl > m->nblocks ? (m->nblocks ? m->nblocks : 1) : (uint32_t)pl;
        if (m->bw <= AG_W && nmap_height(m) <= hmax)
            return;
    }
}

static void block_label(char *dst, size_t cap, const picture *pc, const nmap *m, uint32_t b)
{
    if (m->bpod[b] != TSCHED_NONE) {
        snprintf(dst, cap, "%s", tsched_topology_pod_name(pc->t, m->bpod[b]));
        return;
    }
    const char *a = tsched_topology_switch_name(pc->t, m->leaves[m->bfirst[b]]);
    const char *z = tsched_topology_switch_name(pc->t, m->leaves[m->bfirst[b] + m->bcount[b] - 1]);
    snprintf(dst, cap, "%s..%s", a, z);
}

static void svg_node_cell(sbuf *o, const picture *pc, int group_by, uint32_t node, double x, double y, double s)
{
    const tsched_topology *t = pc->t;
    int down = !tsched_topology_node_is_up(t, node);
    int64_t rank = pc->rank ? pc->rank[node] : -1;
    uint32_t gpus = tsched_topology_node_gpus(t, node), fr = tsched_topology_node_free_gpus(t, node);
    uint32_t g = rank >= 0 ? pc->group[2 * (size_t)node + (group_by == DRAW_GROUP_DP)] : 0;
    const char *fill = rank >= 0 ? group_colour(g) : down ? C_DOWN : fr < gpus ? C_BUSY : C_FREE;
    sb_printf(o, "<rect class=\"node%s%s%s\" data-name=\"", rank >= 0 ? " placed" : "", down ? " down" : "",
              fr < gpus ? " busy" : "");
    sb_xml(o, tsched_topology_node_name(t, node));
    sb_printf(o, "\"");
    if (rank >= 0)
        sb_printf(o, " data-rank=\"%lld\" data-group=\"%u\"", (long long)rank, g);
    sb_printf(o, " x=\"%.1f\" y=\"%.1f\" width=\"%g\" height=\"%g\" fill=\"%s\"><title>", x, y, s, s, fill);
    sb_xml(o, tsched_topology_node_name(t, node));
    sb_printf(o, ": %u GPUs, %u free%s", gpus, fr, down ? ", down" : "");
    if (rank >= 0)
        sb_printf(o, ", rank %lld, PP group %u, DP group %u", (long long)rank, pc->group[2 * (size_t)node],
                  pc->group[2 * (size_t)node + 1]);
    sb_printf(o, "</title></rect>\n");
}

static void svg_nmap(sbuf *o, labels *L, const picture *pc, const nmap *m, int group_by)
{
    double s = m->c >= 3 ? m->c - 1 : m->c; /* a 1 px gap between squares when they are big enough */
    for (uint32_t b = 0; b < m->nblocks; b++) {
        uint32_t line = b / m->per_line, col = b % m->per_line, nodes = 0;
        double bx = m->x0 + col * (m->bw + AG_BLOCK_GAP),
               by = m->y0 + line * (AG_BLOCK_LABEL + m->colh * m->c + AG_BLOCK_GAP) + AG_BLOCK_LABEL;
        for (uint32_t k = 0; k < m->bcount[b]; k++) {
            uint32_t cnt = 0;
            tsched_topology_leaf_nodes(pc->t, m->leaves[m->bfirst[b] + k], &cnt);
            nodes += cnt;
        }
        char name[160], sh[160];
        block_label(name, sizeof name, pc, m, b);
        sb_printf(o, "<g class=\"block\" data-leaves=\"%u\" data-nodes=\"%u\"", m->bcount[b], nodes);
        if (m->bpod[b] != TSCHED_NONE) {
            sb_printf(o, " data-pod=\"");
            sb_xml(o, name);
            sb_printf(o, "\"");
        }
        sb_printf(o, "><title>");
        sb_xml(o, name);
        sb_printf(o, ": %u leaves, %u nodes</title>\n", m->bcount[b], nodes);
        for (uint32_t k = 0; k < m->bcount[b]; k++) {
            uint32_t cnt = 0;
            const uint32_t *nl = tsched_topology_leaf_nodes(pc->t, m->leaves[m->bfirst[b] + k], &cnt);
            double lx = bx + k * (m->lcols * m->c + m->lgap);
            for (uint32_t i = 0; i < cnt; i++)
                svg_node_cell(o, pc, group_by, nl[i], lx + (i / m->colh) * m->c, by + (i % m->colh) * m->c, s);
        }
        sb_printf(o, "</g>\n");
        unsigned room = (unsigned)(m->bw / (FONT_K * 10));
        draw_shorten(sh, sizeof sh, name, room < 3 ? 3 : room);
        put_text(o, L, bx, by - 4, "start", 10, "fill=\"#222222\"", sh);
    }
}

/* ---- legend --------------------------------------------------------------------------------- */

static double swatch(sbuf *o, labels *L, double x, double y, const char *fill, const char *text)
{
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y, fill);
    put_text(o, L, x + 16, y + 10, "start", 10, "", text);
    return x + 16 + text_w(text, 10) + 14;
}

static void svg_legend(sbuf *o, labels *L, const picture *pc, int group_by, double y)
{
    double x = MARGIN;
    sb_printf(o, "<g class=\"legend\">\n");
    x = swatch(o, L, x, y, C_FREE, "node, all GPUs free");
    x = swatch(o, L, x, y, C_BUSY, "node, GPUs in use");
    x = swatch(o, L, x, y, C_DOWN, "node down");
    if (pc->rank) {
        uint32_t ng = group_by == DRAW_GROUP_DP ? pc->pcols : pc->prows;
        char txt[96];
        snprintf(txt, sizeof txt, "placed: colour of its %s group (%u groups%s)", group_by == DRAW_GROUP_DP ? "DP" : "PP",
                 ng, ng > 10 ? ", colours repeat every 10" : "");
        for (uint32_t g = 0; g < (ng < 10 ? ng : 10); g++) {
            sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y, group_colour(g));
            x += 13;
        }
        put_text(o, L, x + 3, y + 10, "start", 10, "", txt);
    }
    y += 24;
    x = MARGIN;
    const double bw = 200;
    if (!pc->ld.given) {
        sb_printf(o, "<defs><linearGradient id=\"capscale\"><stop offset=\"0\" stop-color=\"#e8f0fa\"/>"
                     "<stop offset=\"0.5\" stop-color=\"#6baed6\"/><stop offset=\"1\" stop-color=\"#08306b\"/>"
                     "</linearGradient></defs>\n");
        sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"12\" fill=\"url(#capscale)\"/>\n", x, y, bw);
    } else {
        sb_printf(o, "<defs><linearGradient id=\"loadscale\"><stop offset=\"0\" stop-color=\"#2ca02c\"/>"
                     "<stop offset=\"0.5\" stop-color=\"#ffbf00\"/><stop offset=\"1\" stop-color=\"#d62728\"/>"
                     "</linearGradient></defs>\n");
        sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"12\" fill=\"url(#loadscale)\"/>\n", x, y, bw);
    }
    char lo[32], hi[32], txt[200];
    if (!pc->ld.given) {
        snprintf(lo, sizeof lo, "0");
        snprintf(hi, sizeof hi, "largest");
        snprintf(txt, sizeof txt, "capacity of a cell's up trunks, Gbit/s per direction (each map to its largest cell)");
    } else if (pc->ld.has_rates) {
        snprintf(lo, sizeof lo, "0");
        snprintf(hi, sizeof hi, "1");
        snprintf(txt, sizeof txt, "load of a cell's busiest trunk: Gbit/s of its busier direction / capacity");
    } else {
        snprintf(lo, sizeof lo, "0");
        snprintf(hi, sizeof hi, "largest");
        snprintf(txt, sizeof txt, "flows on a cell's busiest trunk (no rates; each map to its largest cell)");
    }
    put_text(o, L, x, y + 24, "start", 10, "", lo);
    put_text(o, L, x + bw, y + 24, "end", 10, "", hi);
    x += bw + 12;
    if (pc->ld.given && pc->ld.has_rates) {
        sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#7f0000\"/>\n", x, y);
        put_text(o, L, x + 16, y + 10, "start", 10, "", ">1");
        x += 40;
    }
    x = swatch(o, L, x, y, C_CELL_DOWN, "all trunks down");
    if (pc->ld.given)
        x = swatch(o, L, x, y, C_IDLE, "no flow");
    put_text(o, L, x, y + 10, "start", 10, "fill=\"#444444\"", txt);
    sb_printf(o, "</g>\n");
}

/* ---- the picture ---------------------------------------------------------------------------- */

int draw_agg_svg(sbuf *o, double *w, double *h, const picture *pc, int group_by)
{
    const tsched_topology *t = pc->t;
    uint32_t nsw = tsched_topology_num_switches(t);
    uint32_t *tidx = malloc((nsw ? nsw : 1) * sizeof *tidx);
    hmap hm[DRAW_TIERS * DRAW_TIERS];
    int nh = 0, rc = CLI_OK;
    nmap m = {0};
    labels L = {0};
    if (!tidx) {
        rc = draw_nomem();
        goto done;
    }
    for (int tier = 0; tier < DRAW_TIERS; tier++)
        for (uint32_t i = 0; i < tsched_topology_num_tier(t, tier); i++)
            tidx[tsched_topology_tier_switch(t, tier, i)] = i;
    if ((rc = build_hmaps(pc, tidx, hm, &nh)) != CLI_OK || (rc = build_nmap(pc, &m)) != CLI_OK)
        goto done;
    /* heatmaps first in the budget: their size is bounded by the bins; the node map gets the rest */
    double hm_budget = nh ? (nh > 1 ? 560.0 / nh : 420.0) : 0, hms_h = 0, content_w = 600;
    for (int i = 0; i < nh; i++) {
        hmap *h = &hm[i];
        double cw = floor((AG_W - AG_LABEL_W) / h->x.nbins), ch = floor(hm_budget / h->y.nbins);
        h->cw = cw > 24 ? 24 : cw < 1 ? 1 : cw;
        h->ch = ch > 16 ? 16 : ch < 2 ? 2 : ch;
        hms_h += 24 + h->y.nbins * h->ch + 30;
        if (AG_LABEL_W + h->x.nbins * h->cw > content_w)
            content_w = AG_LABEL_W + h->x.nbins * h->cw;
    }
    double top = MARGIN + HEAD_H + 8;
    size_nmap(&m, DRAW_AUTO_PX - top - 22 - hms_h - AG_LEGEND_H - 2 * MARGIN);
    m.x0 = MARGIN;
    m.y0 = top + 22;
    double nm_w = m.per_line * m.bw + (m.per_line - 1) * AG_BLOCK_GAP;
    if (nm_w > content_w)
        content_w = nm_w;
    double y = m.y0 + nmap_height(&m) + 14;
    for (int i = 0; i < nh; i++) {
        hm[i].x0 = MARGIN + AG_LABEL_W;
        hm[i].y0 = y + 24;
        y = hm[i].y0 + hm[i].y.nbins * hm[i].ch + 30;
    }
    double width = ceil(content_w + 2 * MARGIN), height = ceil(y + AG_LEGEND_H + MARGIN);
    if (width < 1100)
        width = 1100;
    *w = width;
    *h = height;

    sb_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"aggregate\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
              width, height, width, height);
    sb_printf(o, "<title>");
    sb_xml(o, tsched_topology_name(t));
    sb_printf(o, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    char line[512];
    put_text(o, &L, MARGIN, MARGIN + 10, "start", 16, "font-weight=\"bold\"", tsched_topology_name(t));
    int tiers = 0;
    for (int tier = 0; tier < DRAW_TIERS; tier++)
        if (tsched_topology_num_tier(t, tier))
            tiers = tier + 1;
    int n = snprintf(line, sizeof line, "%u nodes, %llu GPUs, %u switches in %d tiers, %u trunks",
                     tsched_topology_num_nodes(t), (unsigned long long)tsched_topology_num_gpus(t), nsw, tiers,
                     tsched_topology_num_trunks(t));
    if (pc->rank && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - n, "; placement on %u nodes (%u x %u)", pc->placed, pc->prows, pc->pcols);
    if (pc->ld.given && n > 0 && (size_t)n < sizeof line) {
        char lab[32];
        draw_value_label(lab, sizeof lab, pc, pc->ld.max_value);
        snprintf(line + n, sizeof line - n, "; %u routed flows, busiest trunk %s%s", pc->ld.nflows, lab,
                 pc->ld.has_rates ? "" : " flows");
    }
    put_text(o, &L, MARGIN, MARGIN + 28, "start", 11, "fill=\"#444444\"", line);
    snprintf(line, sizeof line, "aggregated view (the full view would be %.0f x %.0f px: --view full)", pc->width, pc->height);
    put_text(o, &L, MARGIN, MARGIN + 44, "start", 11, "fill=\"#444444\"", line);
    snprintf(line, sizeof line, "nodes: one square per node, a column per leaf, a block per %s",
             m.nblocks && m.bpod[0] != TSCHED_NONE ? "pod" : "16 leaves");
    put_text(o, &L, MARGIN, top + 8, "start", 11, "font-weight=\"bold\" fill=\"#222222\"", line);
    sb_printf(o, "<g class=\"nodemap\" data-blocks=\"%u\">\n", m.nblocks);
    svg_nmap(o, &L, pc, &m, group_by);
    sb_printf(o, "</g>\n");
    for (int i = 0; i < nh; i++)
        svg_hmap(o, &L, pc, &hm[i]);
    svg_legend(o, &L, pc, group_by, y + 8);
    sb_printf(o, "</svg>\n");
    if (L.oom)
        rc = draw_nomem();
done:
    free(tidx);
    free_hmaps(hm, nh);
    free(m.leaves);
    free(m.bfirst);
    free(m.bcount);
    free(m.bpod);
    free(L.b);
    return rc;
}
