/* Max-min fair rates by progressive filling. Links: every trunk in each direction, and
 * every NIC's link to its leaf in each direction. The link with the smallest fair share
 * (remaining capacity / unfrozen flows) is the next bottleneck: its flows are frozen at
 * that share, which leaves every other link's share the same or larger, so the shares
 * come out in increasing order and a heap of links gives O((F h + L) log L). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "routing_internal.h"

/* An indexed min-heap of links keyed by fair share: a link's key changes each time one of
 * its flows is frozen, and moving it in place (instead of pushing a new entry) keeps the
 * heap no larger than the number of links. Ties go to the lower link id. */
typedef struct iheap {
    uint32_t *a;   /* heap of link ids */
    uint32_t *pos; /* link -> index in a, UINT32_MAX when absent */
    double *key;   /* link -> share */
    uint32_t n;
} iheap;

static int hless(const iheap *h, uint32_t x, uint32_t y)
{
    return h->key[x] < h->key[y] || (h->key[x] == h->key[y] && x < y);
}

static void hswap(iheap *h, uint32_t i, uint32_t j)
{
    uint32_t t = h->a[i];
    h->a[i] = h->a[j];
    h->a[j] = t;
    h->pos[h->a[i]] = i;
    h->pos[h->a[j]] = j;
}

static void sift_up(iheap *h, uint32_t i)
{
    while (i > 0 && hless(h, h->a[i], h->a[(i - 1) / 2])) {
        hswap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(iheap *h, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && hless(h, h->a[l], h->a[m]))
            m = l;
        if (r < h->n && hless(h, h->a[r], h->a[m]))
            m = r;
        if (m == i)
            return;
        hswap(h, i, m);
        i = m;
    }
}

static void hpush(iheap *h, uint32_t link, double share)
{
    h->key[link] = share;
    h->a[h->n] = link;
    h->pos[link] = h->n;
    sift_up(h, h->n++);
}

/* A share only grows while flows freeze (see the file comment), so a key moves down. */
static void hupdate(iheap *h, uint32_t link, double share)
{
    h->key[link] = share;
    sift_down(h, h->pos[link]);
    sift_up(h, h->pos[link]);
}

static void hremove(iheap *h, uint32_t link)
{
    uint32_t i = h->pos[link];
    h->pos[link] = UINT32_MAX;
    if (--h->n == i)
        return;
    h->a[i] = h->a[h->n];
    h->pos[h->a[i]] = i;
    sift_down(h, i);
    sift_up(h, i);
}

/* Fair rates of n flows whose links are given in CSR form (flink[foff[i] .. foff[i+1])),
 * with capacity cap[link].
 *
 * Layout for locality: each link keeps its flows as records stored one after another,
 * a record being the flow's id followed by the flow's other links (the last one marked by
 * the top bit), so freezing a flow reads the words right after the one that named it
 * instead of two dependent random loads (offset, then link list); frozen flows are a
 * bitset. The arithmetic is the one of the plain algorithm, in the same order on every
 * value: a link's remaining capacity loses the bottleneck's share once per flow frozen
 * on it, bottlenecks come off the heap in the same order (smallest share, ties to the
 * lower link), and a link's key is its remaining capacity over its unfrozen flows. Keys
 * are only read when a link reaches the top of the heap, so a link touched several times
 * while one bottleneck's flows freeze moves in the heap once, with its last key. */
#define REC_LAST UINT32_C(0x80000000)
#define REC_NONE UINT32_C(0x7fffffff) /* the only word of a record of a flow with no other link */

static tsched_status maxmin(double *rate, uint32_t n, const uint32_t *foff, const uint32_t *flink, uint32_t nlinks,
                            const double *cap)
{
    if (nlinks >= REC_NONE)
        return ts_error(TSCHED_E_TOO_LARGE, "links: %u distinct links, at most %u", nlinks, REC_NONE - 1);
    tsched_status st = TSCHED_OK;
    size_t nl = nlinks ? nlinks : 1, nw = ((size_t)n + 63) / 64;
    size_t *roff = ts_calloc((size_t)nlinks + 1, sizeof *roff), *fill = ts_malloc(nl, sizeof *fill);
    uint32_t *rec = NULL, *active = ts_calloc(nl, sizeof *active), *seen = ts_calloc(nl, sizeof *seen);
    uint32_t *touched = ts_malloc(nl, sizeof *touched);
    double *rem = ts_malloc(nl, sizeof *rem);
    uint64_t *frozen = ts_calloc(nw ? nw : 1, sizeof *frozen);
    iheap h = {ts_malloc(nl, sizeof(uint32_t)), ts_malloc(nl, sizeof(uint32_t)), ts_malloc(nl, sizeof(double)), 0};
    if (!roff || !fill || !active || !seen || !touched || !rem || !frozen || !h.a || !h.pos || !h.key) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* link -> records of its flows, in flow order */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = foff[i + 1] - foff[i], size = 1 + (len > 1 ? len - 1 : 1);
        for (uint32_t k = foff[i]; k < foff[i + 1]; k++) {
            roff[flink[k] + 1] += size;
            active[flink[k]]++;
        }
    }
    for (uint32_t l = 0; l < nlinks; l++)
        roff[l + 1] += roff[l];
    if (!(rec = ts_malloc(roff[nlinks] ? roff[nlinks] : 1, sizeof *rec))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    memcpy(fill, roff, nlinks * sizeof *fill);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = foff[i], e = foff[i + 1];
        for (uint32_t k = b; k < e; k++) {
            uint32_t *w = rec + fill[flink[k]], m = 0;
            w[m++] = i;
            for (uint32_t j = b; j < e; j++)
                if (j != k)
                    w[m++] = flink[j];
            if (m == 1)
                w[m++] = REC_NONE;
            w[m - 1] |= REC_LAST;
            fill[flink[k]] += m;
        }
    }
    for (uint32_t l = 0; l < nlinks; l++) {
        rem[l] = cap[l];
        h.pos[l] = UINT32_MAX;
        if (active[l])
            hpush(&h, l, rem[l] / active[l]);
    }
    for (uint32_t i = 0; i < n; i++)
        if (foff[i] == foff[i + 1]) {
            rate[i] = INFINITY; /* no link at all: only a flow inside one node */
            frozen[i / 64] |= UINT64_C(1) << (i % 64);
        }
    uint32_t round = 0;
    while (h.n > 0) {
        uint32_t l = h.a[0], nt = 0;
        double share = h.key[l] < 0 ? 0 : h.key[l];
        hremove(&h, l);
        round++;
        const uint32_t *w = rec + roff[l], *end = rec + roff[l + 1];
        while (w < end) {
            uint32_t i = *w++;
            uint64_t bit = UINT64_C(1) << (i % 64);
            if (frozen[i / 64] & bit) {
                while (!(*w++ & REC_LAST))
                    ;
                continue;
            }
            frozen[i / 64] |= bit;
            rate[i] = share;
            uint32_t word;
            do {
                word = *w++;
                uint32_t x = word & ~REC_LAST;
                if (x == l || x == REC_NONE)
                    continue;
                rem[x] -= share;
                if (rem[x] < 0)
                    rem[x] = 0; /* rounding */
                active[x]--;
                if (seen[x] != round) {
                    seen[x] = round;
                    touched[nt++] = x;
                }
            } while (!(word & REC_LAST));
        }
        for (uint32_t j = 0; j < nt; j++) {
            uint32_t x = touched[j];
            if (active[x] > 0)
                hupdate(&h, x, rem[x] / active[x]);
            else if (h.pos[x] != UINT32_MAX)
                hremove(&h, x);
        }
        active[l] = 0;
    }
out:
    free(roff);
    free(fill);
    free(rec);
    free(active);
    free(seen);
    free(touched);
    free(rem);
    free(frozen);
    free(h.a);
    free(h.pos);
    free(h.key);
    return st;
}

/* Links of the rate computation: every trunk in each direction, and every NIC's link to
 * its leaf in each direction. Only the links the flows cross get a number, in the order of
 * the key below, so the arrays grow with the flows, not the fabric, and ties between equal
 * shares fall as they would in a numbering of the whole fabric (trunk links by id, then
 * NIC links by node, NIC, direction): the answers do not depend on the fabric's size. */
#define NIC_KEY (UINT64_C(1) << 63)

static uint64_t nic_key(uint32_t node, uint32_t nic, uint32_t up_down)
{
    return NIC_KEY | (uint64_t)node << 32 | (uint64_t)nic << 1 | up_down;
}

typedef struct keyid {
    uint64_t key;
    uint32_t id;
} keyid;

static int cmp_keyid(const void *a, const void *b)
{
    const keyid *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* ids[k] = rank of keys[k] among the distinct keys (increasing), whose values go to
 * *ukeys (count *nu). A hash table numbers the keys in order of first sight, then a sort
 * of the distinct keys only turns those numbers into ranks. */
static tsched_status compact_keys(uint32_t *ids, uint64_t **ukeys, uint32_t *nu, const uint64_t *keys, size_t m)
{
    size_t cap = 1024, n = 0, ucap = 0;
    uint32_t *slots = ts_calloc(cap, sizeof *slots), *rank = NULL;
    keyid *uk = NULL;
    tsched_status st = TSCHED_OK;
    if (!slots)
        return TSCHED_E_NOMEM;
    for (size_t k = 0; k < m; k++) {
        if ((n + 1) * 2 > cap) {
            size_t ncap = cap * 2;
            uint32_t *ns = ts_calloc(ncap, sizeof *ns);
            if (!ns) {
                st = TSCHED_E_NOMEM;
                goto out;
            }
            for (size_t j = 0; j < n; j++) {
                size_t i = (size_t)((uk[j].key * 0x9e3779b97f4a7c15ULL) >> 32) & (ncap - 1);
                while (ns[i])
                    i = (i + 1) & (ncap - 1);
                ns[i] = (uint32_t)j + 1;
            }
            free(slots);
            slots = ns;
            cap = ncap;
        }
        size_t i = (size_t)((keys[k] * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
        while (slots[i] && uk[slots[i] - 1].key != keys[k])
            i = (i + 1) & (cap - 1);
        if (!slots[i]) {
            if ((st = TS_GROW(uk, ucap, n + 1)) != TSCHED_OK)
                goto out;
            uk[n] = (keyid){keys[k], (uint32_t)n};
            slots[i] = (uint32_t)++n;
        }
        ids[k] = slots[i] - 1;
    }
    free(slots);
    slots = NULL;
    qsort(uk, n, sizeof *uk, cmp_keyid);
    if (!(rank = ts_malloc(n ? n : 1, sizeof *rank)) || !(*ukeys = ts_malloc(n ? n : 1, sizeof **ukeys))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (size_t j = 0; j < n; j++) {
        rank[uk[j].id] = (uint32_t)j;
        (*ukeys)[j] = uk[j].key;
    }
    for (size_t k = 0; k < m; k++)
        ids[k] = rank[ids[k]];
    *nu = (uint32_t)n;
out:
    free(slots);
    free(uk);
    free(rank);
    return st;
}

/* compact_keys() through an array over the fabric's whole link space (trunk links, then
 * every NIC's two links), used when that space is no larger than a few times the work,
 * where it beats hashing: same ids, since the space is laid out in key order. */
static int dense_fits(const tsched_topology *t, size_t m, size_t *space)
{
    uint64_t budget = 4 * (uint64_t)m + 65536, s = 2 * (uint64_t)tsched_topology_num_trunks(t);
    uint32_t nn = tsched_topology_num_nodes(t);
    if (s + 3 * (uint64_t)nn > budget) /* every node has a NIC: a quick no */
        return 0;
    ts_topo_paths tv;
    ts_topology_paths(&tv, t);
    for (uint32_t v = 0; v < nn; v++)
        s += 2 * (uint64_t)tv.node_nics[v];
    *space = (size_t)s;
    return s + nn <= budget;
}

static tsched_status compact_dense(uint32_t *ids, uint64_t **ukeys, uint32_t *nu, const uint64_t *keys, size_t m,
                                   const tsched_topology *t, size_t space)
{
    uint32_t nn = tsched_topology_num_nodes(t), tl = 2 * tsched_topology_num_trunks(t), n = 0;
    uint32_t *nic_off = ts_malloc((size_t)nn + 1, sizeof *nic_off), *map = ts_calloc(space ? space : 1, sizeof *map);
    tsched_status st = TSCHED_OK;
    if (!nic_off || !map) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    ts_topo_paths tv;
    ts_topology_paths(&tv, t);
    nic_off[0] = 0;
    for (uint32_t v = 0; v < nn; v++)
        nic_off[v + 1] = nic_off[v] + tv.node_nics[v];
    for (size_t k = 0; k < m; k++) {
        uint64_t x = keys[k];
        ids[k] = x & NIC_KEY ? tl + 2 * (nic_off[(x >> 32) & 0x7fffffffu] + (uint32_t)((x >> 1) & 0x7fffffffu)) +
                                   (uint32_t)(x & 1)
                             : (uint32_t)x;
        map[ids[k]] = 1;
    }
    for (size_t x = 0; x < space; x++)
        if (map[x])
            map[x] = ++n;
    if (!(*ukeys = ts_malloc(n ? n : 1, sizeof **ukeys))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (size_t k = 0; k < m; k++) {
        ids[k] = map[ids[k]] - 1;
        (*ukeys)[ids[k]] = keys[k];
    }
    *nu = n;
out:
    free(nic_off);
    free(map);
    return st;
}

static tsched_status rates_for(double *rate, const tsched_topology *t, const ts_flows_view *f,
                               const uint32_t *const *path_links, const uint32_t *hops)
{
    uint32_t n = f->n, nu = 0;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += hops[i] + 2;
    /* flow i's links: NIC up, the path's trunk links, NIC down */
    uint32_t *foff = ts_malloc((size_t)n + 1, sizeof *foff), *flink = ts_malloc(total ? total : 1, sizeof *flink);
    uint64_t *key = ts_malloc(total ? total : 1, sizeof *key), *ukey = NULL;
    double *cap = NULL;
    tsched_status st = TSCHED_E_NOMEM;
    if (!foff || !flink || !key)
        goto out;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        foff[i] = (uint32_t)k;
        key[k++] = nic_key(f->src[i], f->src_nic[i], 0);
        for (uint32_t h = 0; h < hops[i]; h++)
            key[k++] = path_links[i][h];
        key[k++] = nic_key(f->dst[i], f->dst_nic[i], 1);
    }
    foff[n] = (uint32_t)k;
    size_t space;
    st = dense_fits(t, total, &space) ? compact_dense(flink, &ukey, &nu, key, total, t, space)
                                      : compact_keys(flink, &ukey, &nu, key, total);
    if (st != TSCHED_OK)
        goto out;
    free(key);
    key = NULL;
    if (!(cap = ts_malloc(nu ? nu : 1, sizeof *cap))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t l = 0; l < nu; l++)
        cap[l] = ukey[l] & NIC_KEY ? tsched_topology_node_nic_gbps(t, (uint32_t)(ukey[l] >> 32) & 0x7fffffffu)
                                   : tsched_topology_trunk_gbps(t, (uint32_t)(ukey[l] / 2));
    st = maxmin(rate, n, foff, flink, nu, cap);
out:
    free(foff);
    free(flink);
    free(key);
    free(ukey);
    free(cap);
    return st;
}

tsched_status ts_route_rates(tsched_routes *r, const tsched_topology *t, const ts_flows_view *f)
{
    const uint32_t **pl = ts_malloc(r->n ? r->n : 1, sizeof *pl);
    uint32_t *hops = ts_malloc(r->n ? r->n : 1, sizeof *hops);
    tsched_status st = TSCHED_E_NOMEM;
    if (pl && hops) {
        for (uint32_t i = 0; i < r->n; i++)
            pl[i] = ts_route_links(r, i, &hops[i]);
        st = rates_for(r->rate, t, f, pl, hops);
    }
    free(pl);
    free(hops);
    return st;
}

tsched_status tsched_rates_maxmin(double *rates, const tsched_topology *t, const tsched_flows *flows,
                                  const tsched_path *paths)
{
    if (!rates || !t || !flows || (!paths && tsched_flows_count(flows)))
        return ts_error(TSCHED_E_INVALID, "tsched_rates_maxmin: %s is NULL",
                        !rates ? "rates" : !t ? "topo" : !flows ? "flows" : "paths");
    ts_flows_view fv;
    ts_flows_view_get(&fv, flows);
    const ts_flows_view *f = &fv;
    tsched_status st1 = ts_check_built(t, "tsched_rates_maxmin");
    if (st1 != TSCHED_OK || (st1 = ts_limit_check("flows", f->n, "flows", ts_limits()->flows)) != TSCHED_OK)
        return st1;
    uint32_t nn = tsched_topology_num_nodes(t), nt = tsched_topology_num_trunks(t);
    size_t stride = sizeof *paths;
    tsched_status st0;
    if (f->n && (st0 = ts_path_stride(&stride, paths, "tsched_rates_maxmin")) != TSCHED_OK)
        return st0;
    if (f->n && stride < offsetof(tsched_path, links) + sizeof paths->links)
        return ts_error(TSCHED_E_INVALID, "tsched_rates_maxmin: paths[0].size %zu does not cover the links", stride);
    const uint32_t **pl = ts_malloc(f->n ? f->n : 1, sizeof *pl);
    uint32_t *hops = ts_malloc(f->n ? f->n : 1, sizeof *hops);
    tsched_status st = TSCHED_OK;
    if (!pl || !hops) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        const tsched_path *p = (const tsched_path *)((const char *)paths + i * stride);
        if (f->src[i] >= nn || f->dst[i] >= nn || f->src_nic[i] >= tsched_topology_node_nics(t, f->src[i]) ||
            f->dst_nic[i] >= tsched_topology_node_nics(t, f->dst[i])) {
            st = ts_error(TSCHED_E_INVALID, "flows[%u]: node or NIC not in the fabric", i);
            goto out;
        }
        uint32_t a = tsched_topology_node_nic_leaf(t, f->src[i], f->src_nic[i]);
        uint32_t b = tsched_topology_node_nic_leaf(t, f->dst[i], f->dst_nic[i]);
        if (p->nswitches < 1 || p->nswitches > TSCHED_PATH_MAX_SWITCHES || p->switches[0] != a || p->switches[p->nswitches - 1] != b) {
            st = ts_error(TSCHED_E_INVALID, "paths[%u]: does not join the NIC leaves of flow %u", i, i);
            goto out;
        }
        for (uint32_t h = 0; h + 1 < p->nswitches; h++) {
            uint32_t tr = p->links[h] / 2, up = p->links[h] % 2 == 0;
            if (tr >= nt) {
                st = ts_error(TSCHED_E_INVALID, "paths[%u].links[%u]: link %u does not exist", i, h, p->links[h]);
                goto out;
            }
            /* the link must join the two switches it stands between, in its direction */
            uint32_t lo = tsched_topology_trunk_lower(t, tr), hi = tsched_topology_trunk_upper(t, tr);
            if ((up && (lo != p->switches[h] || hi != p->switches[h + 1])) ||
                (!up && (hi != p->switches[h] || lo != p->switches[h + 1]))) {
                st = ts_error(TSCHED_E_INVALID, "paths[%u].links[%u]: link %u does not join switches %u and %u", i, h,
                              p->links[h], p->switches[h], p->switches[h + 1]);
                goto out;
            }
        }
        pl[i] = p->links;
        hops[i] = p->nswitches - 1;
    }
    st = rates_for(rates, t, f, pl, hops);
out:
    free(pl);
    free(hops);
    return st;
}
