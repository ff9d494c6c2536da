/* topo-sched draw -t TOPO [-p PLACEMENT] [-r ROUTES] [--format svg|dot] [--max-nodes N] [-o FILE]
 *
 * A picture of the fabric (doc/draw.md): one row of boxes per tier, the top tier first, the
 * nodes under their leaf, trunks as lines. Presentation only: everything comes from the
 * public API (topology and placement loaders); the routes document has no loader in the
 * library, so its hops and rates are read here with jansson and resolved through the
 * topology API. The SVG is written here, byte-identical for the same inputs. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* ---- output buffer ------------------------------------------------------------------ */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom)
        return;
    for (;;) {
        va_list cp;
        va_copy(cp, ap);
        size_t room = b->cap - b->len;
        int n = b->s ? vsnprintf(b->s + b->len, room, fmt, cp) : -2;
        va_end(cp);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        if (n == -1) {
            b->oom = 1;
            return;
        }
        size_t need = b->len + (n > 0 ? (size_t)n : 0) + 1, ncap = b->cap ? b->cap : 65536;
        while (ncap < need)
            ncap *= 2;
        char *ns = realloc(b->s, ncap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
    }
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

/* `s` escaped for XML text and attribute values. */
static void sb_xml(sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sb_printf(b, "&amp;"); break;
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        case '\'': sb_printf(b, "&apos;"); break;
        default: sb_printf(b, "%c", *s);
        }
    }
}

/* `s` escaped for a Graphviz double-quoted string ("\n" in `s` stays a DOT line break). */
static void sb_dot(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || (*s == '\\' && s[1] != 'n'))
            sb_printf(b, "\\%c", *s);
        else
            sb_printf(b, "%c", *s);
    }
}

/* At most `maxc` characters of the UTF-8 name `s`: a longer one keeps its head and tail around
 * an ellipsis (the full name goes in the tooltip). */
static void shorten(char *dst, size_t cap, const char *s, unsigned maxc)
{
    size_t len = strlen(s);
    unsigned nch = 0;
    for (size_t i = 0; i < len; i++)
        nch += ((unsigned char)s[i] & 0xc0) != 0x80;
    if (nch <= maxc || maxc < 3) {
        snprintf(dst, cap, "%s", s);
        return;
    }
    unsigned tail = (maxc - 1) / 2, head = maxc - 1 - tail, c = 0;
    size_t i = 0, o = 0;
    for (; i < len; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == head)
            break;
        if (o + 1 < cap)
            dst[o++] = s[i];
    }
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 */
    for (size_t k = 0; k < 3 && o + 1 < cap; k++)
        dst[o++] = ell[k];
    c = 0;
    size_t j = len;
    while (j > 0 && c < tail) {
        j--;
        c += ((unsigned char)s[j] & 0xc0) != 0x80;
    }
    for (; j < len && o + 1 < cap; j++)
        dst[o++] = s[j];
    dst[o] = '\0';
}

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
    uint32_t placed;
    loads ld;
    double width, height, nodes_top, colw;
} picture;

static const char *tier_word(int tier, int plural)
{
    static const char *const one[] = {"leaf", "spine", "core"}, *const many[] = {"leaves", "spines", "cores"};
    if (tier >= 0 && tier < 3)
        return plural ? many[tier] : one[tier];
    return plural ? "switches" : "switch";
}

/* "leaf", "spine", "core", "tier<k>" */
static void tier_name(char *dst, size_t cap, int tier)
{
    if (tier < 3)
        snprintf(dst, cap, "%s", tier_word(tier, 0));
    else
        snprintf(dst, cap, "tier%d", tier);
}

/* Trunk value: the share of its busier direction (rates) or that direction's flow count. */
static double trunk_value(const picture *pc, uint32_t tr)
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

static int trunk_crossed(const picture *pc, uint32_t tr)
{
    return pc->ld.given && (pc->ld.flows[2 * (size_t)tr] || pc->ld.flows[2 * (size_t)tr + 1]);
}

/* The colour scale's position of a value: its share, or count / largest count without rates. */
static double scale_of(const picture *pc, double v)
{
    if (pc->ld.has_rates)
        return v;
    return pc->ld.max_value > 0 ? v / pc->ld.max_value : 0;
}

/* Green (0) - amber (0.5) - red (1); dark red above 1. */
static void load_colour(char out[8], double s)
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

static double load_width(double s)
{
    if (!(s <= 1))
        s = 1;
    return 1.5 + 4.5 * (s < 0 ? 0 : s);
}

/* Colour of NVLink domain `d` (in order of first node, so neighbours differ). */
static const char *nvl_colour(uint32_t d)
{
    static const char *const pal[] = {"#e15759", "#f28e2b", "#59a14f", "#b07aa1",
                                      "#edc948", "#76b7b2", "#ff9da7", "#9c755f"};
    return pal[d % (sizeof pal / sizeof pal[0])];
}

/* The label of a trunk value: the share with two decimals, or the flow count. */
static void value_label(char *dst, size_t cap, const picture *pc, double v)
{
    if (!pc->ld.has_rates)
        snprintf(dst, cap, "%.0f", v);
    else if (isinf(v))
        snprintf(dst, cap, "inf");
    else
        snprintf(dst, cap, "%.2f", v);
}

static int nomem(void)
{
    fprintf(stderr, "topo-sched: draw: out of memory\n");
    return CLI_INTERNAL;
}

/* Rows and boxes: one box per switch, or groups when a tier has more than DRAW_MAX_ROW. */
static int build_rows(picture *pc)
{
    const tsched_topology *t = pc->t;
    uint32_t nsw = tsched_topology_num_switches(t), total = 0;
    pc->box_of = malloc((nsw ? nsw : 1) * sizeof *pc->box_of);
    if (!pc->box_of)
        return nomem();
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
            return nomem();
    }
    pc->boxes = calloc(total ? total : 1, sizeof *pc->boxes);
    if (!pc->boxes)
        return nomem();
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
                return nomem();
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
                return nomem();
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
static int build_edges(picture *pc)
{
    const tsched_topology *t = pc->t;
    uint32_t nt = tsched_topology_num_trunks(t);
    ekey *k = malloc((nt ? nt : 1) * sizeof *k);
    pc->edges = malloc((nt ? nt : 1) * sizeof *pc->edges);
    if (!k || !pc->edges) {
        free(k);
        return nomem();
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
        if (trunk_crossed(pc, tr)) {
            double v = trunk_value(pc, tr);
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

/* ---- inputs ----------------------------------------------------------------------- */

static int routes_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int routes_error(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "topo-sched: %s: ", path);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_BAD_INPUT;
}

/* A tsched.routes.v1 document: each flow's hops resolved to directed trunks of `t`. */
static int read_routes(picture *pc, const char *path)
{
    const tsched_topology *t = pc->t;
    loads *L = &pc->ld;
    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_OK)
        return rc;
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root)
        return routes_error(shown, "line %d: %s", err.line, err.text);
    uint32_t nt = tsched_topology_num_trunks(t);
    L->given = 1;
    L->gbps = calloc(2 * (size_t)(nt ? nt : 1), sizeof *L->gbps);
    L->flows = calloc(2 * (size_t)(nt ? nt : 1), sizeof *L->flows);
    if (!L->gbps || !L->flows) {
        json_decref(root);
        return nomem();
    }
    json_t *fmt = json_object_get(root, "format"), *flows = json_object_get(root, "flows");
    if (!json_is_object(root))
        rc = routes_error(shown, "not a JSON object");
    else if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "tsched.routes.v1") != 0)
        rc = routes_error(shown, "format: expected \"tsched.routes.v1\"");
    else if (!json_is_array(flows))
        rc = routes_error(shown, "flows: expected an array");
    size_t n = rc == CLI_OK ? json_array_size(flows) : 0;
    if (n > UINT32_MAX)
        rc = routes_error(shown, "flows: too many flows");
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        json_t *f = json_array_get(flows, i), *hops = json_object_get(f, "hops"), *rate = json_object_get(f, "rate_gbps");
        if (!json_is_object(f)) {
            rc = routes_error(shown, "flows[%zu]: expected an object", i);
            break;
        }
        if (!json_is_array(hops)) {
            rc = routes_error(shown, "flows[%zu].hops: expected an array of switch names", i);
            break;
        }
        if (i == 0)
            L->has_rates = rate != NULL;
        if ((rate != NULL) != L->has_rates) {
            rc = routes_error(shown, "flows[%zu].rate_gbps: %s", i,
                              L->has_rates ? "missing (flows[0] has a rate)" : "present (flows[0] has none)");
            break;
        }
        double r = 0;
        if (rate) {
            r = json_is_number(rate) ? json_number_value(rate) : -1;
            if (!(r >= 0) || !isfinite(r)) {
                rc = routes_error(shown, "flows[%zu].rate_gbps: expected a finite number >= 0", i);
                break;
            }
        }
        uint32_t prev = TSCHED_NONE;
        for (size_t h = 0; h < json_array_size(hops); h++) {
            json_t *name = json_array_get(hops, h);
            uint32_t sw = json_is_string(name) ? tsched_topology_find_switch(t, json_string_value(name)) : TSCHED_NONE;
            if (sw == TSCHED_NONE) {
                rc = json_is_string(name) ? routes_error(shown, "flows[%zu].hops[%zu]: no switch '%s' in the fabric",
                                                         i, h, json_string_value(name))
                                          : routes_error(shown, "flows[%zu].hops[%zu]: expected a switch name", i, h);
                break;
            }
            if (prev != TSCHED_NONE) {
                uint32_t tr = tsched_topology_find_trunk(t, prev, sw);
                if (tr == TSCHED_NONE) {
                    rc = routes_error(shown, "flows[%zu].hops[%zu]: no trunk joins '%s' and '%s'", i, h,
                                      tsched_topology_switch_name(t, prev), json_string_value(name));
                    break;
                }
                size_t link = 2 * (size_t)tr + (tsched_topology_trunk_upper(t, tr) == sw ? 0 : 1);
                L->gbps[link] += r;
                L->flows[link]++;
            }
            prev = sw;
        }
    }
    L->nflows = (uint32_t)n;
    json_decref(root);
    return rc;
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
        return nomem();
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

/* ---- nodes under a leaf box ---------------------------------------------------------- */

typedef struct leaf_nodes {
    const uint32_t *list; /* the leaf's nodes when drawn one by one, else NULL */
    uint32_t n, placed, down;
} leaf_nodes;

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct NVLink domains among the nodes of a box (0 when out of memory: only a tooltip). */
static uint32_t box_nvl_domains(const picture *pc, const box *b, uint32_t n)
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

static leaf_nodes nodes_of(const picture *pc, const box *b)
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

static void layout(picture *pc)
{
    double colw = SW_W, inner = 0, block_h = 0;
    const row *leaf = pc->nrows && pc->rows[pc->nrows - 1].tier == 0 ? &pc->rows[pc->nrows - 1] : NULL;
    if (leaf)
        for (uint32_t k = 0; k < leaf->nboxes; k++) {
            leaf_nodes ln = nodes_of(pc, &pc->boxes[leaf->first_box + k]);
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

/* ---- SVG ------------------------------------------------------------------------------ */

static const char *const DASH = " stroke-dasharray=\"5,3\"";

/* The text of a box: a switch's name, or a group's "pod3" / "first…last" and its count. */
static void box_text(char *l1, size_t c1, char *l2, size_t c2, const picture *pc, const box *b)
{
    const row *r = &pc->rows[b->row];
    const char *first = tsched_topology_switch_name(pc->t, r->members[b->first]);
    l2[0] = '\0';
    if (b->count == 1 && !r->grouped) {
        shorten(l1, c1, first, 15);
        return;
    }
    if (b->pod != TSCHED_NONE)
        shorten(l1, c1, tsched_topology_pod_name(pc->t, b->pod), 15);
    else {
        char a[64], z[64];
        shorten(a, sizeof a, first, 6);
        shorten(z, sizeof z, tsched_topology_switch_name(pc->t, r->members[b->first + b->count - 1]), 6);
        snprintf(l1, c1, "%s..%s", a, z);
    }
    if (b->ndown)
        snprintf(l2, c2, "%u %s, %u down", b->count, tier_word(r->tier, b->count != 1), b->ndown);
    else
        snprintf(l2, c2, "%u %s", b->count, tier_word(r->tier, b->count != 1));
}

static void svg_switch(sbuf *o, const picture *pc, const box *b)
{
    const row *r = &pc->rows[b->row];
    int down = b->ndown == b->count, group = r->grouped;
    char tn[16], l1[160], l2[96];
    tier_name(tn, sizeof tn, r->tier);
    box_text(l1, sizeof l1, l2, sizeof l2, pc, b);
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
        sb_printf(o, "%u %s", b->count, tier_word(r->tier, 1));
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
    shorten(sh, sizeof sh, name, 10);
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
                  y + NODE_H - 5.5, NODE_W - 3, nvl_colour(nvl));
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
    leaf_nodes ln = nodes_of(pc, b);
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
        sb_printf(o, ", %u NVLink domains", box_nvl_domains(pc, b, ln.n));
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
                value_label(lab, sizeof lab, pc, e->value);
                sb_printf(o, "; %s %s", pc->ld.has_rates ? "load" : "busier direction", lab);
            }
        }
        return;
    }
    sb_printf(o, "%u trunks, %u down", e->ntrunks, e->ndown);
    if (e->crossed) {
        value_label(lab, sizeof lab, pc, e->value);
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
        double s = scale_of(pc, e->value);
        load_colour(colour, s);
        width = load_width(s);
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
    value_label(lab, sizeof lab, pc, e->value);
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
                      nvl_colour(d));
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

static void render_svg(sbuf *o, const picture *pc)
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
        value_label(lab, sizeof lab, pc, pc->ld.max_value);
        sb_printf(o, "; %u routed flows, busiest trunk %s%s", pc->ld.nflows, lab, pc->ld.has_rates ? "" : " flows");
    }
    sb_printf(o, "</text>\n");
    /* tier names at the left of each row */
    for (uint32_t ri = 0; ri < pc->nrows; ri++) {
        char tn[16];
        tier_name(tn, sizeof tn, pc->rows[ri].tier);
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

/* ---- DOT ------------------------------------------------------------------------------ */

static void render_dot(sbuf *o, const picture *pc)
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
        tier_name(tn, sizeof tn, r->tier);
        sb_printf(o, "  subgraph \"tier_%s\" {\n    rank=same;\n", tn);
        for (uint32_t k = 0; k < r->nboxes; k++) {
            const box *b = &pc->boxes[r->first_box + k];
            char l1[160], l2[96];
            box_text(l1, sizeof l1, l2, sizeof l2, pc, b);
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
            double s = scale_of(pc, e->value);
            load_colour(colour, s);
            value_label(lab, sizeof lab, pc, e->value);
            sb_printf(o, "color=\"%s\", penwidth=%.2f, label=\"%s%s\", fontsize=9", colour, load_width(s),
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
            leaf_nodes ln = nodes_of(pc, &pc->boxes[bi]);
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
                        sb_printf(o, ", penwidth=2.5, color=\"%s\", tooltip=\"NVLink domain ", nvl_colour(nvl));
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
            leaf_nodes ln = nodes_of(pc, &pc->boxes[bi]);
            if (ln.list)
                for (uint32_t i = 0; i < ln.n; i++)
                    sb_printf(o, "  s%u -- n%u [color=\"#d0d0d0\"];\n", bi, ln.list[i]);
            else if (ln.n)
                sb_printf(o, "  s%u -- c%u [color=\"#d0d0d0\"];\n", bi, bi);
        }
    }
    sb_printf(o, "}\n");
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
        (rc = build_rows(&pc)) != CLI_OK || (rc = build_edges(&pc)) != CLI_OK)
        goto done;
    layout(&pc);
    if (strcmp(format, "dot") == 0)
        render_dot(&o, &pc);
    else
        render_svg(&o, &pc);
    if (o.oom || !o.s) {
        rc = nomem();
        goto done;
    }
    rc = cli_write_raw(out, o.s);
done:
    free(o.s);
    for (uint32_t ri = 0; ri < pc.nrows; ri++)
        free(pc.rows[ri].members);
    free(pc.boxes);
    free(pc.box_of);
    free(pc.edges);
    free(pc.rank);
    free(pc.ld.gbps);
    free(pc.ld.flows);
    tsched_topology_free(t);
    return rc;
}
