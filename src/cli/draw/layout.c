/* `topo-sched draw`: the picture's model (rows of boxes, edges between them, loads on the
 * trunks) and where everything goes. The writers only read it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

const char *draw_tier_word(int tier, int plural)
{
    static const char *const one[] = {"leaf", "spine", "core"}, *const many[] = {"leaves", "spines", "cores"};
    if (tier >= 0 && tier < 3)
        return plural ? many[tier] : one[tier];
    return plural ? "switches" : "switch";
}

/* "leaf", "spine", "core", "tier<k>" */
void draw_tier_name(char *dst, size_t cap, int tier)
{
    if (tier < 3)
        snprintf(dst, cap, "%s", draw_tier_word(tier, 0));
    else
        snprintf(dst, cap, "tier%d", tier);
}

/* Trunk value: the share of its busier direction (rates) or that direction's flow count. */
double draw_trunk_value(const picture *pc, uint32_t tr)
{
    const loads *L = &pc->ld;
    if (!L->has_rates) {
        uint32_t a = L->flows[2 * (size_t)tr], b = L->flows[2 * (size_t)tr + 1];
        return a > b ? a : b;
    }
    double a = L->gbps[2 * (size_t)tr], b = L->gbps[2 * (size_t)tr + 1], busy = a > b ? a : b;
    double cap = tsched_topology_trunk_gbps(pc->t, tr);
    if (cap > 0)
        return busy / cap;
    return busy > 0 ? INFINITY : 0;
}

int draw_trunk_crossed(const picture *pc, uint32_t tr)
{
    return pc->ld.given && (pc->ld.flows[2 * (size_t)tr] || pc->ld.flows[2 * (size_t)tr + 1]);
}

/* The colour scale's position of a value: its share, or count / largest count without rates. */
double draw_scale_of(const picture *pc, double v)
{
    if (pc->ld.has_rates)
        return v;
    return pc->ld.max_value > 0 ? v / pc->ld.max_value : 0;
}

/* Green (0) - amber (0.5) - red (1); dark red above 1. */
void draw_load_colour(char out[8], double s)
{
    if (!(s <= 1.0 + 1e-9)) {
        snprintf(out, 8, "#7f0000");
        return;
    }
    static const int stop[3][3] = {{0x2c, 0xa0, 0x2c}, {0xff, 0xbf, 0x00}, {0xd6, 0x27, 0x28}};
    if (s < 0)
        s = 0;
    if (s > 1)
        s = 1;
    double u = 2 * s;
    int k = u >= 1 ? 1 : 0;
    u -= k;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(stop[k][i] + u * (stop[k + 1][i] - stop[k][i]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

double draw_load_width(double s)
{
    if (!(s <= 1))
        s = 1;
    return 1.5 + 4.5 * (s < 0 ? 0 : s);
}

/* Colour of NVLink domain `d` (in order of first node, so neighbours differ). */
const char *draw_nvl_colour(uint32_t d)
{
    static const char *const pal[] = {"#e15759", "#f28e2b", "#59a14f", "#b07aa1",
                                      "#edc948", "#76b7b2", "#ff9da7", "#9c755f"};
    return pal[d % (sizeof pal / sizeof pal[0])];
}

/* The label of a trunk value: the share with two decimals, or the flow count. */
void draw_value_label(char *dst, size_t cap, const picture *pc, double v)
{
    if (!pc->ld.has_rates)
        snprintf(dst, cap, "%.0f", v);
    else if (isinf(v))
        snprintf(dst, cap, "inf");
    else
        snprintf(dst, cap, "%.2f", v);
}

int draw_nomem(void)
{
    fprintf(stderr, "topo-sched: draw: out of memory\n");
    return CLI_INTERNAL;
}

/* Rows and boxes: one box per switch, or groups when a tier has more than DRAW_MAX_ROW. */
int draw_build_rows(picture *pc)
{
    const tsched_topology *t = pc->t;
    uint32_t nsw = tsched_topology_num_switches(t), total = 0;
    pc->box_of = malloc((nsw ? nsw : 1) * sizeof *pc->box_of);
    if (!pc->box_of)
        return draw_nomem();
    for (int tier = DRAW_TIERS - 1; tier >= 0; tier--) {
        uint32_t n = tsched_topology_num_tier(t, tier);
        if (!n)
            continue;
        row *r = &pc->rows[pc->nrows++];
        r->tier = tier;
        r->nsw = n;
        r->grouped = n > DRAW_MAX_ROW;
        total += r->grouped ? DRAW_MAX_ROW : n;
        if (!(r->members = malloc(n * sizeof *r->members)))
            return draw_nomem();
    }
    pc->boxes = calloc(total ? total : 1, sizeof *pc->boxes);
    if (!pc->boxes)
        return draw_nomem();
    uint32_t *podpos = NULL, npods = tsched_topology_num_pods(t);
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        row *r = &pc->rows[ri];
        r->first_box = pc->nboxes;
        if (!r->grouped) {
            for (uint32_t i = 0; i < r->nsw; i++) {
                uint32_t sw = tsched_topology_tier_switch(t, r->tier, i);
                r->members[i] = sw;
                box *b = &pc->boxes[pc->nboxes];
                *b = (box){.first = i, .count = 1, .row = ri, .pos = i, .pod = TSCHED_NONE};
                pc->box_of[sw] = pc->nboxes++;
            }
            r->nboxes = r->nsw;
            continue;
        }
        /* by pod when every switch has one and the pods fit in a row, in order of first switch */
        int by_pod = npods > 0;
        uint32_t distinct = 0;
        if (by_pod) {
            free(podpos);
            if (!(podpos = malloc(npods * sizeof *podpos)))
                return draw_nomem();
            for (uint32_t p = 0; p < npods; p++)
                podpos[p] = TSCHED_NONE;
            for (uint32_t i = 0; i < r->nsw && by_pod; i++) {
                uint32_t p = tsched_topology_switch_pod(t, tsched_topology_tier_switch(t, r->tier, i));
                if (p >= npods)
                    by_pod = 0;
                else if (podpos[p] == TSCHED_NONE)
                    podpos[p] = distinct++;
            }
            by_pod = by_pod && distinct <= DRAW_MAX_ROW;
        }
        if (by_pod) {
            uint32_t *cnt = calloc(distinct, sizeof *cnt);
            if (!cnt) {
                free(podpos);
                return draw_nomem();
            }
            for (uint32_t i = 0; i < r->nsw; i++)
                cnt[podpos[tsched_topology_switch_pod(t, tsched_topology_tier_switch(t, r->tier, i))]]++;
            uint32_t acc = 0;
            for (uint32_t k = 0; k < distinct; k++) {
                pc->boxes[pc->nboxes + k] =
                    (box){.first = acc, .count = 0, .row = ri, .pos = k, .pod = TSCHED_NONE};
                acc += cnt[k];
            }
            free(cnt);
            for (uint32_t i = 0; i < r->nsw; i++) {
                uint32_t sw = tsched_topology_tier_switch(t, r->tier, i), p = tsched_topology_switch_pod(t, sw);
                box *b = &pc->boxes[pc->nboxes + podpos[p]];
                b->pod = p;
                r->members[b->first + b->count++] = sw;
                pc->box_of[sw] = pc->nboxes + podpos[p];
            }
            r->nboxes = distinct;
        } else {
            uint32_t g = (r->nsw + DRAW_MAX_ROW - 1) / DRAW_MAX_ROW;
            r->nboxes = (r->nsw + g - 1) / g;
            for (uint32_t k = 0; k < r->nboxes; k++) {
                uint32_t first = k * g, cnt = r->nsw - first < g ? r->nsw - first : g;
                pc->boxes[pc->nboxes + k] =
                    (box){.first = first, .count = cnt, .row = ri, .pos = k, .pod = TSCHED_NONE};
            }
            for (uint32_t i = 0; i < r->nsw; i++) {
                uint32_t sw = tsched_topology_tier_switch(t, r->tier, i);
                r->members[i] = sw;
                pc->box_of[sw] = pc->nboxes + i / g;
            }
        }
        pc->nboxes += r->nboxes;
    }
    free(podpos);
    for (uint32_t bi = 0; bi < pc->nboxes; bi++) {
        box *b = &pc->boxes[bi];
        for (uint32_t k = 0; k < b->count; k++)
            b->ndown += !tsched_topology_switch_is_up(t, pc->rows[b->row].members[b->first + k]);
    }
    return CLI_OK;
}

typedef struct ekey {
    uint64_t key;
    uint32_t trunk;
} ekey;

static int ekey_cmp(const void *a, const void *b)
{
    const ekey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->trunk < y->trunk ? -1 : x->trunk > y->trunk;
}

/* One edge per pair of boxes joined by trunks, in (upper box, lower box) order. */
int draw_build_edges(picture *pc)
{
    const tsched_topology *t = pc->t;
    uint32_t nt = tsched_topology_num_trunks(t);
    ekey *k = malloc((nt ? nt : 1) * sizeof *k);
    pc->edges = malloc((nt ? nt : 1) * sizeof *pc->edges);
    if (!k || !pc->edges) {
        free(k);
        return draw_nomem();
    }
    for (uint32_t tr = 0; tr < nt; tr++) {
        uint32_t up = pc->box_of[tsched_topology_trunk_upper(t, tr)], lo = pc->box_of[tsched_topology_trunk_lower(t, tr)];
        k[tr] = (ekey){.key = (uint64_t)up << 32 | lo, .trunk = tr};
    }
    qsort(k, nt, sizeof *k, ekey_cmp);
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t tr = k[i].trunk;
        if (i == 0 || k[i].key != k[i - 1].key)
            pc->edges[pc->nedges++] =
                (edge){.upper = (uint32_t)(k[i].key >> 32), .lower = (uint32_t)k[i].key, .trunk = tr};
        edge *e = &pc->edges[pc->nedges - 1];
        e->ntrunks++;
        e->ndown += !tsched_topology_trunk_is_up(t, tr);
        if (draw_trunk_crossed(pc, tr)) {
            double v = draw_trunk_value(pc, tr);
            if (!e->crossed || v > e->value)
                e->value = v;
            e->crossed++;
            if (v > pc->ld.max_value)
                pc->ld.max_value = v;
        }
    }
    free(k);
    return CLI_OK;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct NVLink domains among the nodes of a box (0 when out of memory: only a tooltip). */
uint32_t draw_box_nvl_domains(const picture *pc, const box *b, uint32_t n)
{
    uint32_t *d = malloc((n ? n : 1) * sizeof *d), m = 0, distinct = 0;
    if (!d)
        return 0;
    const row *r = &pc->rows[b->row];
    for (uint32_t k = 0; k < b->count; k++) {
        uint32_t cnt = 0;
        const uint32_t *l = tsched_topology_leaf_nodes(pc->t, r->members[b->first + k], &cnt);
        for (uint32_t i = 0; i < cnt && m < n; i++) {
            uint32_t v = tsched_topology_node_nvl(pc->t, l[i]);
            if (v != TSCHED_NONE)
                d[m++] = v;
        }
    }
    qsort(d, m, sizeof *d, u32_cmp);
    for (uint32_t i = 0; i < m; i++)
        distinct += i == 0 || d[i] != d[i - 1];
    free(d);
    return distinct;
}

leaf_nodes draw_nodes_of(const picture *pc, const box *b)
{
    leaf_nodes ln = {0};
    const row *r = &pc->rows[b->row];
    for (uint32_t k = 0; k < b->count; k++) {
        uint32_t cnt = 0;
        const uint32_t *l = tsched_topology_leaf_nodes(pc->t, r->members[b->first + k], &cnt);
        for (uint32_t i = 0; i < cnt; i++) {
            ln.placed += pc->rank && pc->rank[l[i]] >= 0;
            ln.down += !tsched_topology_node_is_up(pc->t, l[i]);
        }
        ln.n += cnt;
        if (b->count == 1)
            ln.list = l;
    }
    if (b->count != 1 || ln.n > pc->max_nodes)
        ln.list = NULL;
    return ln;
}

/* ---- layout --------------------------------------------------------------------------- */

void draw_layout(picture *pc)
{
    double colw = SW_W, inner = 0, block_h = 0;
    const row *leaf = pc->nrows && pc->rows[pc->nrows - 1].tier == 0 ? &pc->rows[pc->nrows - 1] : NULL;
    if (leaf)
        for (uint32_t k = 0; k < leaf->nboxes; k++) {
            leaf_nodes ln = draw_nodes_of(pc, &pc->boxes[leaf->first_box + k]);
            double w = 0, h = 0;
            if (ln.list) {
                uint32_t cols = ln.n < NODE_COLS ? ln.n : NODE_COLS, lines = (ln.n + NODE_COLS - 1) / NODE_COLS;
                w = cols * NODE_W + (cols ? cols - 1 : 0) * NODE_GAP;
                h = lines * (NODE_H + NODE_GAP);
            } else if (ln.n) {
                w = COUNT_W;
                h = COUNT_H + NODE_GAP;
            }
            if (w > colw)
                colw = w;
            if (h > block_h)
                block_h = h;
        }
    pc->colw = colw + COL_GAP;
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        const row *r = &pc->rows[ri];
        double w = r->nboxes * (&pc->rows[ri] == leaf ? pc->colw : SW_W + COL_GAP);
        if (w > inner)
            inner = w;
    }
    double least = pc->ld.given ? 820 : 600; /* room for the heading and the legend */
    if (inner < least)
        inner = least;
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        row *r = &pc->rows[ri];
        r->y = MARGIN + HEAD_H + ri * ROW_GAP;
        for (uint32_t k = 0; k < r->nboxes; k++)
            pc->boxes[r->first_box + k].x = MARGIN + inner * (k + 0.5) / r->nboxes;
    }
    double bottom = MARGIN + HEAD_H + (pc->nrows ? (pc->nrows - 1) * ROW_GAP + SW_H : 0);
    pc->nodes_top = bottom + 26;
    pc->width = inner + 2 * MARGIN;
    pc->height = pc->nodes_top + block_h + 10 + LEGEND_H + MARGIN;
}

/* The text of a box: a switch's name, or a group's "pod3" / "first…last" and its count. */
void draw_box_text(char *l1, size_t c1, char *l2, size_t c2, const picture *pc, const box *b)
{
    const row *r = &pc->rows[b->row];
    const char *first = tsched_topology_switch_name(pc->t, r->members[b->first]);
    l2[0] = '\0';
    if (b->count == 1 && !r->grouped) {
        draw_shorten(l1, c1, first, 15);
        return;
    }
    if (b->pod != TSCHED_NONE)
        draw_shorten(l1, c1, tsched_topology_pod_name(pc->t, b->pod), 15);
    else {
        char a[64], z[64];
        draw_shorten(a, sizeof a, first, 6);
        draw_shorten(z, sizeof z, tsched_topology_switch_name(pc->t, r->members[b->first + b->count - 1]), 6);
        snprintf(l1, c1, "%s..%s", a, z);
    }
    if (b->ndown)
        snprintf(l2, c2, "%u %s, %u down", b->count, draw_tier_word(r->tier, b->count != 1), b->ndown);
    else
        snprintf(l2, c2, "%u %s", b->count, draw_tier_word(r->tier, b->count != 1));
}

void draw_picture_free(picture *pc)
{
    for (uint32_t ri = 0; ri < pc->nrows; ri++)
        free(pc->rows[ri].members);
    free(pc->boxes);
    free(pc->box_of);
    free(pc->edges);
    free(pc->rank);
    free(pc->group);
    free(pc->ld.gbps);
    free(pc->ld.flows);
}
