/* Equal-cost valley-free paths. A pair of leaves sharing a usable spine uses the 2-hop
 * paths through those spines; otherwise the 4-hop paths leaf-spine-core-spine-leaf; on a
 * fabric with tiers 3..7, otherwise the paths that climb to the lowest tier where the two
 * leaves share a usable ancestor (deep_walk below). Paths always come in lexicographic
 * order of their switch index sequences. */
#include "../common/alloc.h"
#include "../common/structsize.h"
#include "topology_internal.h"

#include <stdlib.h>
#include <string.h>

static tsched_status check_nic(const tsched_topology *t, uint32_t node, uint32_t nic, const char *which)
{
    tsched_status st = ts_check_built(t, "paths");
    if (st != TSCHED_OK)
        return st;
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "paths: %s node %u does not exist (%u nodes)", which, node, t->nnodes);
    if (nic >= t->node_nics[node])
        return ts_error(TSCHED_E_INVALID, "paths: %s NIC %u of node \"%s\" does not exist (%u NICs)", which, nic,
                        ts_strtab_str(&t->node_names, node), t->node_nics[node]);
    return TSCHED_OK;
}

static tsched_status check_leaf(const tsched_topology *t, uint32_t leaf, const char *which)
{
    tsched_status st = ts_check_built(t, "paths");
    if (st != TSCHED_OK)
        return st;
    if (leaf >= t->nswitches || t->sw_tier[leaf] != TSCHED_TIER_LEAF)
        return ts_error(TSCHED_E_INVALID, "paths: %s switch %u is not a leaf", which, leaf);
    return TSCHED_OK;
}

static inline uint32_t nic_leaf(const tsched_topology *t, uint32_t node, uint32_t nic)
{
    return t->node_rail[node] == UINT32_MAX ? t->node_leaf[node] : t->rail[t->node_rail[node] + nic];
}

static int deep_count(uint64_t *count, const tsched_topology *t, uint32_t a, uint32_t b, int from);

uint64_t ts_leaf_count(const tsched_topology *t, uint32_t a, uint32_t b)
{
    if (!t->sw_up[a] || !t->sw_up[b])
        return 0;
    if (a == b)
        return 1;
    ts_index_ensure(t);
    const ts_index *ix = t->ix;
    if (!ix->usable) /* the last rebuild ran out of memory: count by walking */
        return ts_list_leaf_paths(NULL, 0, t, a, b);
    uint32_t oa = t->sw_ord[a], ob = t->sw_ord[b];
    uint64_t c = ts_profile_count(&ix->sprof, 0, ix->leaf_sprof[oa], ix->leaf_sprof[ob]);
    if (!c)
        c = ts_profile_count(&ix->cprof, 1, ix->leaf_cprof[oa], ix->leaf_cprof[ob]);
    if (!c && t->max_tier >= 3 && !deep_count(&c, t, a, b, 3))
        c = ts_list_leaf_paths(NULL, 0, t, a, b); /* no memory for the ancestor sets: walk */
    return c;
}

tsched_status tsched_topology_path_count(uint64_t *count, const tsched_topology *t, uint32_t src, uint32_t src_nic,
                                         uint32_t dst, uint32_t dst_nic)
{
    tsched_status st;
    if (!count)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_path_count: count is NULL");
    *count = 0;
    if ((st = check_nic(t, src, src_nic, "source")) != TSCHED_OK ||
        (st = check_nic(t, dst, dst_nic, "destination")) != TSCHED_OK)
        return st;
    if (!t->node_up[src] || !t->node_up[dst])
        return TSCHED_OK;
    *count = ts_leaf_count(t, nic_leaf(t, src, src_nic), nic_leaf(t, dst, dst_nic));
    return TSCHED_OK;
}

tsched_status tsched_topology_leaf_path_count(uint64_t *count, const tsched_topology *t, uint32_t a, uint32_t b)
{
    tsched_status st;
    if (!count)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_leaf_path_count: count is NULL");
    *count = 0;
    if ((st = check_leaf(t, a, "source")) != TSCHED_OK || (st = check_leaf(t, b, "destination")) != TSCHED_OK)
        return st;
    *count = ts_leaf_count(t, a, b);
    return TSCHED_OK;
}

/* Appends a path if there is room; always counts it. With `paths` NULL and `lk` set, only
 * its nsw - 1 links are written, at lk + n * (nsw - 1) (every path of a pair has the same
 * length). The walker below is inlined into each caller, so each gets its own store. */
static inline void emit(ts_path *paths, uint32_t *lk, size_t cap, size_t *n, const uint32_t *sw,
                        const uint32_t *links, uint32_t nsw)
{
    if (*n < cap) {
        if (paths) {
            ts_path *p = &paths[*n];
            p->nswitches = nsw;
            for (uint32_t i = 0; i < TSCHED_PATH_MAX_SWITCHES; i++)
                p->switches[i] = i < nsw ? sw[i] : TSCHED_NONE;
            for (uint32_t i = 0; i < TSCHED_PATH_MAX_LINKS; i++)
                p->links[i] = i + 1 < nsw ? links[i] : TSCHED_NONE;
        } else if (lk) {
            for (uint32_t i = 0; i + 1 < nsw; i++)
                lk[*n * (nsw - 1) + i] = links[i];
        }
    }
    (*n)++;
}

/* A leaf's uplink to spine `e` is usable: the trunk and the spine are up. */
static inline int uplink_ok(const tsched_topology *t, const ts_adj *e) { return t->tr_up[e->trunk] && t->sw_up[e->sw]; }

/* ---- paths through tier 3 and above ----
 * Between two leaves without a common usable ancestor at tiers 1 and 2, the shortest
 * valley-free paths climb to the lowest tier k where they have one (an ancestor is reached
 * by an up path whose switches and trunks are all up) and come down to the destination:
 * 2k hops. Listing searches up from the source in index order and down through the
 * destination's ancestors in index order, which gives the lexicographic order of the
 * switch sequences. The destination's ancestor sets are allocated per call; without
 * memory for them, membership is decided by searching up from the destination instead
 * (the same paths, slower), so a query never fails. */

typedef struct ts_anc {
    uint32_t sw;
    uint64_t mult; /* usable up paths from the leaf (saturating) */
} ts_anc;

/* Ancestors of a leaf by tier: tier j holds a[off[j] .. off[j + 1]), sorted by switch. */
typedef struct ts_ancs {
    ts_anc *a;
    size_t len, cap;
    size_t off[TSCHED_MAX_TIERS + 1];
} ts_ancs;

static uint64_t sat_add(uint64_t x, uint64_t y) { return x > UINT64_MAX - y ? UINT64_MAX : x + y; }
static uint64_t sat_mul(uint64_t x, uint64_t y) { return y && x > UINT64_MAX / y ? UINT64_MAX : x * y; }

static int cmp_anc(const void *x, const void *y)
{
    uint32_t a = ((const ts_anc *)x)->sw, b = ((const ts_anc *)y)->sw;
    return a < b ? -1 : a > b;
}

/* Plain realloc: a query that runs out of memory falls back and leaves no error behind. */
static int push_anc(ts_ancs *s, uint32_t sw, uint64_t mult)
{
    if (s->len == s->cap) {
        size_t n = s->cap ? 2 * s->cap : 64;
        ts_anc *q = n <= SIZE_MAX / sizeof *q ? realloc(s->a, n * sizeof *q) : NULL;
        if (!q)
            return 0;
        s->a = q;
        s->cap = n;
    }
    s->a[s->len++] = (ts_anc){sw, mult};
    return 1;
}

/* The usable ancestors of `leaf` at tiers 1..top; 0 when out of memory. */
static int ancestors(ts_ancs *s, const tsched_topology *t, uint32_t leaf, int top)
{
    memset(s, 0, sizeof *s);
    if (!push_anc(s, leaf, 1))
        return 0;
    s->off[1] = 1;
    for (int j = 1; j <= top; j++) {
        size_t start = s->len;
        for (size_t i = s->off[j - 1]; i < s->off[j]; i++) {
            uint32_t x = s->a[i].sw;
            uint64_t m = s->a[i].mult;
            for (uint32_t e = t->up_off[x]; e < t->up_off[x + 1]; e++)
                if (uplink_ok(t, &t->up_adj[e]) && !push_anc(s, t->up_adj[e].sw, m))
                    return 0;
        }
        qsort(s->a + start, s->len - start, sizeof *s->a, cmp_anc);
        size_t w = start;
        for (size_t i = start; i < s->len; i++) {
            if (w > start && s->a[w - 1].sw == s->a[i].sw)
                s->a[w - 1].mult = sat_add(s->a[w - 1].mult, s->a[i].mult);
            else
                s->a[w++] = s->a[i];
        }
        s->len = w;
        if (j + 1 <= TSCHED_MAX_TIERS)
            s->off[j + 1] = w;
    }
    return 1;
}

static uint64_t anc_mult(const ts_ancs *s, int tier, uint32_t sw)
{
    size_t lo = s->off[tier], hi = s->off[tier + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->a[mid].sw == sw)
            return s->a[mid].mult;
        if (s->a[mid].sw < sw)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Sum over common ancestors at `tier` of the products of their up-path counts. */
static uint64_t common_paths(const ts_ancs *x, const ts_ancs *y, int tier)
{
    const ts_anc *p = x->a + x->off[tier], *pe = x->a + x->off[tier + 1];
    const ts_anc *q = y->a + y->off[tier], *qe = y->a + y->off[tier + 1];
    uint64_t c = 0;
    while (p < pe && q < qe) {
        if (p->sw == q->sw) {
            c = sat_add(c, sat_mul(p->mult, q->mult));
            p++;
            q++;
        } else if (p->sw < q->sw) {
            p++;
        } else {
            q++;
        }
    }
    return c;
}

/* Count of the paths of the lowest common tier >= from; 0 when out of memory. */
static int deep_count(uint64_t *count, const tsched_topology *t, uint32_t a, uint32_t b, int from)
{
    ts_ancs x, y;
    int ok = ancestors(&x, t, a, t->max_tier) && ancestors(&y, t, b, t->max_tier);
    *count = 0;
    for (int j = from; ok && j <= t->max_tier && !*count; j++)
        *count = common_paths(&x, &y, j);
    free(x.a);
    free(y.a);
    return ok;
}

uint64_t ts_deep_count(const tsched_topology *t, uint32_t a, uint32_t b)
{
    uint64_t c = 0;
    if (!t->sw_up[a] || !t->sw_up[b])
        return 0;
    if (a == b)
        return 1;
    return deep_count(&c, t, a, b, 1) ? c : 0;
}

/* An up path of usable switches and trunks from x to y (tier ty). */
static int reach_up(const tsched_topology *t, uint32_t x, uint32_t y, int ty)
{
    if (x == y)
        return 1;
    if (t->sw_tier[x] >= ty)
        return 0;
    for (uint32_t e = t->up_off[x]; e < t->up_off[x + 1]; e++)
        if (uplink_ok(t, &t->up_adj[e]) && reach_up(t, t->up_adj[e].sw, y, ty))
            return 1;
    return 0;
}

typedef struct deep_walker {
    const tsched_topology *t;
    ts_path *paths;
    uint32_t *lk;
    size_t cap, n;
    uint32_t b;
    int k;               /* the tier the paths climb to */
    const ts_ancs *anc;  /* the destination's ancestors, or NULL (search up from b) */
    uint32_t sw[TSCHED_PATH_MAX_SWITCHES], links[TSCHED_PATH_MAX_LINKS];
} deep_walker;

/* Is y (tier ty) the destination or one of its usable ancestors? */
static int dest_above(const deep_walker *w, uint32_t y, int ty)
{
    if (ty == 0)
        return y == w->b;
    return w->anc ? anc_mult(w->anc, ty, y) != 0 : reach_up(w->t, w->b, y, ty);
}

static void deep_down(deep_walker *w, uint32_t x, uint32_t pos)
{
    const tsched_topology *t = w->t;
    if (x == w->b) {
        emit(w->paths, w->lk, w->cap, &w->n, w->sw, w->links, pos + 1);
        return;
    }
    for (uint32_t e = t->dn_off[x]; e < t->dn_off[x + 1]; e++) {
        const ts_adj *d = &t->dn_adj[e];
        if (!t->tr_up[d->trunk] || !t->sw_up[d->sw] || !dest_above(w, d->sw, t->sw_tier[d->sw]))
            continue;
        w->sw[pos + 1] = d->sw;
        w->links[pos] = 2 * d->trunk + 1;
        deep_down(w, d->sw, pos + 1);
    }
}

static void deep_up(deep_walker *w, uint32_t x, uint32_t pos)
{
    const tsched_topology *t = w->t;
    if (t->sw_tier[x] == w->k) {
        if (dest_above(w, x, w->k))
            deep_down(w, x, pos);
        return;
    }
    for (uint32_t e = t->up_off[x]; e < t->up_off[x + 1]; e++) {
        const ts_adj *u = &t->up_adj[e];
        if (!uplink_ok(t, u))
            continue;
        w->sw[pos + 1] = u->sw;
        w->links[pos] = 2 * u->trunk;
        deep_up(w, u->sw, pos + 1);
    }
}

/* Does an up path from x reach a tier-k switch above the destination? */
static int deep_exists(const deep_walker *w, uint32_t x)
{
    const tsched_topology *t = w->t;
    if (t->sw_tier[x] == w->k)
        return dest_above(w, x, w->k);
    for (uint32_t e = t->up_off[x]; e < t->up_off[x + 1]; e++)
        if (uplink_ok(t, &t->up_adj[e]) && deep_exists(w, t->up_adj[e].sw))
            return 1;
    return 0;
}

/* The paths of the lowest common tier k >= from between distinct up leaves a and b.
 * `use_mem` 0 skips the ancestor sets (tests of the fallback). */
static size_t deep_walk(ts_path *paths, uint32_t *lk, uint32_t *hops, size_t cap, const tsched_topology *t, uint32_t a,
                        uint32_t b, int from, int use_mem)
{
    deep_walker w = {.t = t, .paths = paths, .lk = lk, .cap = cap, .b = b};
    ts_ancs x = {0}, y = {0};
    int mem = use_mem && ancestors(&x, t, a, t->max_tier) && ancestors(&y, t, b, t->max_tier);
    w.anc = mem ? &y : NULL;
    for (int j = from; j <= t->max_tier; j++) {
        w.k = j;
        if (mem ? common_paths(&x, &y, j) != 0 : deep_exists(&w, a)) {
            w.sw[0] = a;
            deep_up(&w, a, 0);
            *hops = 2 * (uint32_t)j;
            break;
        }
    }
    free(x.a);
    free(y.a);
    return w.n;
}

size_t ts_list_leaf_paths_nomem(ts_path *paths, size_t cap, const tsched_topology *t, uint32_t a, uint32_t b)
{
    uint32_t hops = 0;
    if (!t->sw_up[a] || !t->sw_up[b])
        return 0;
    if (a == b)
        return ts_list_leaf_paths(paths, cap, t, a, b);
    return deep_walk(paths, NULL, &hops, cap, t, a, b, 1, 0);
}

/* Lists are merged, not searched: up_adj and dn_adj are sorted by neighbour index, so the
 * spines common to two leaves (or to a core and a leaf) come out in index order in one
 * pass, with their trunk ids at hand. */
static inline size_t walk(ts_path *paths, uint32_t *lk, uint32_t *hops, size_t cap, const tsched_topology *t,
                         uint32_t a, uint32_t b)
{
    size_t n = 0;
    uint32_t sw[5] = {0}, links[4] = {0};
    if (!t->sw_up[a] || !t->sw_up[b])
        return 0;
    if (a == b) {
        sw[0] = a;
        emit(paths, lk, cap, &n, sw, links, 1);
        *hops = 0;
        return 1;
    }
    const ts_adj *ua = t->up_adj + t->up_off[a], *uae = t->up_adj + t->up_off[a + 1];
    const ts_adj *ub = t->up_adj + t->up_off[b], *ube = t->up_adj + t->up_off[b + 1];
    sw[0] = a;
    /* 2-hop: common usable spines in index order. */
    for (const ts_adj *x = ua, *y = ub; x < uae && y < ube;) {
        if (x->sw < y->sw) {
            x++;
        } else if (x->sw > y->sw) {
            y++;
        } else {
            if (uplink_ok(t, x) && t->tr_up[y->trunk]) {
                sw[1] = x->sw;
                sw[2] = b;
                links[0] = 2 * x->trunk;
                links[1] = 2 * y->trunk + 1;
                emit(paths, lk, cap, &n, sw, links, 3);
            }
            x++;
            y++;
        }
    }
    if (n) {
        *hops = 2;
        return n;
    }
    *hops = 4;
    /* 4-hop: (source spine, core) in index order, then the destination spines below that
     * core, merged with the destination leaf's uplinks. */
    for (const ts_adj *s1 = ua; s1 < uae; s1++) {
        if (!uplink_ok(t, s1))
            continue;
        sw[1] = s1->sw;
        links[0] = 2 * s1->trunk;
        for (uint32_t c = t->up_off[s1->sw]; c < t->up_off[s1->sw + 1]; c++) {
            const ts_adj *ce = &t->up_adj[c];
            if (!uplink_ok(t, ce))
                continue;
            sw[2] = ce->sw;
            links[1] = 2 * ce->trunk;
            const ts_adj *d = t->dn_adj + t->dn_off[ce->sw], *de = t->dn_adj + t->dn_off[ce->sw + 1];
            for (const ts_adj *y = ub; d < de && y < ube;) {
                if (d->sw < y->sw) {
                    d++;
                } else if (d->sw > y->sw) {
                    y++;
                } else {
                    if (t->tr_up[d->trunk] && uplink_ok(t, y)) {
                        sw[3] = y->sw;
                        sw[4] = b;
                        links[2] = 2 * d->trunk + 1;
                        links[3] = 2 * y->trunk + 1;
                        emit(paths, lk, cap, &n, sw, links, 5);
                    }
                    d++;
                    y++;
                }
            }
        }
    }
    if (n == 0 && t->max_tier >= 3)
        n = deep_walk(paths, lk, hops, cap, t, a, b, 3, 1);
    return n;
}

size_t ts_list_leaf_paths(ts_path *paths, size_t cap, const tsched_topology *t, uint32_t a, uint32_t b)
{
    uint32_t hops;
    return walk(paths, NULL, &hops, cap, t, a, b);
}

size_t ts_list_leaf_links(uint32_t *links, uint32_t *hops, size_t cap, const tsched_topology *t, uint32_t a, uint32_t b)
{
    *hops = 0;
    return walk(NULL, links, hops, cap, t, a, b);
}

static const ts_span path_spans[] = {
    TS_SPAN(tsched_path, size),
    TS_SPAN(tsched_path, nswitches),
    TS_SPAN(tsched_path, switches),
    TS_SPAN(tsched_path, links),
};

tsched_status ts_path_stride(size_t *stride, const tsched_path *paths, const char *fn)
{
    size_t size;
    memcpy(&size, paths, sizeof size);
    tsched_status st = ts_struct_size(size, path_spans, TS_NSPANS(path_spans), sizeof(tsched_path), "tsched_path");
    if (st != TSCHED_OK)
        return ts_error_prefix(st, fn);
    *stride = size;
    return TSCHED_OK;
}

tsched_status ts_paths_out(tsched_path *paths, const ts_path *src, size_t n, const char *fn)
{
    if (n == 0)
        return TSCHED_OK;
    size_t stride = 0;
    tsched_status st = ts_path_stride(&stride, paths, fn);
    if (st != TSCHED_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        tsched_path full;
        memset(&full, 0xff, sizeof full);
        full.size = stride;
        full.nswitches = src[i].nswitches;
        memcpy(full.switches, src[i].switches, sizeof src[i].switches);
        memcpy(full.links, src[i].links, sizeof src[i].links);
        memcpy((char *)paths + i * stride, &full, stride);
    }
    return TSCHED_OK;
}

/* List into the caller's array: the internal records first (the count is O(1), so the
 * buffer is sized once), then copied with the caller's stride. */
static tsched_status list_out(tsched_path *paths, size_t cap, size_t *count, const tsched_topology *t, uint32_t a,
                              uint32_t b, const char *fn)
{
    uint64_t total = ts_leaf_count(t, a, b);
    size_t n = total < cap ? (size_t)total : cap;
    ts_path *tmp = NULL;
    if (n && !(tmp = ts_malloc(n, sizeof *tmp)))
        return TSCHED_E_NOMEM;
    size_t listed = ts_list_leaf_paths(tmp, n, t, a, b);
    if (listed > n && n < cap) { /* the O(1) count is a bound in theory only; never trust it blindly */
        free(tmp);
        n = listed < cap ? listed : cap;
        if (!(tmp = ts_malloc(n, sizeof *tmp)))
            return TSCHED_E_NOMEM;
        listed = ts_list_leaf_paths(tmp, n, t, a, b);
    }
    tsched_status st = ts_paths_out(paths, tmp, n < listed ? n : listed, fn);
    free(tmp);
    if (st != TSCHED_OK)
        return st;
    *count = listed;
    if (listed > cap)
        return ts_error(TSCHED_E_BUFFER, "%s: %zu paths do not fit in a buffer of %zu", fn, listed, cap);
    return TSCHED_OK;
}

tsched_status tsched_topology_paths(tsched_path *paths, size_t cap, size_t *count, const tsched_topology *t,
                                    uint32_t src, uint32_t src_nic, uint32_t dst, uint32_t dst_nic)
{
    tsched_status st;
    if (!count || (!paths && cap))
        return ts_error(TSCHED_E_INVALID, "tsched_topology_paths: count or paths is NULL");
    *count = 0;
    if ((st = check_nic(t, src, src_nic, "source")) != TSCHED_OK ||
        (st = check_nic(t, dst, dst_nic, "destination")) != TSCHED_OK)
        return st;
    if (!t->node_up[src] || !t->node_up[dst])
        return TSCHED_OK;
    return list_out(paths, cap, count, t, nic_leaf(t, src, src_nic), nic_leaf(t, dst, dst_nic),
                    "tsched_topology_paths");
}

tsched_status tsched_topology_leaf_paths(tsched_path *paths, size_t cap, size_t *count, const tsched_topology *t,
                                         uint32_t a, uint32_t b)
{
    tsched_status st;
    if (!count || (!paths && cap))
        return ts_error(TSCHED_E_INVALID, "tsched_topology_leaf_paths: count or paths is NULL");
    *count = 0;
    if ((st = check_leaf(t, a, "source")) != TSCHED_OK || (st = check_leaf(t, b, "destination")) != TSCHED_OK)
        return st;
    return list_out(paths, cap, count, t, a, b, "tsched_topology_leaf_paths");
}
