/* Max-min fair rates by progressive filling. Links: every trunk in each direction, and
 * every NIC's link to its leaf in each direction. The link with the smallest fair share
 * (remaining capacity / unfrozen flows) is the next bottleneck: its flows are frozen at
 * that share, which leaves every other link's share the same or larger, so the shares
 * come out in increasing order and a heap of links gives O((F h + L) log L). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../workload/flows_internal.h"
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
 * with capacity cap[link]. */
static tsched_status maxmin(double *rate, uint32_t n, const uint32_t *foff, const uint32_t *flink, uint32_t nlinks,
                            const double *cap)
{
    tsched_status st = TSCHED_OK;
    size_t nl = nlinks ? nlinks : 1;
    uint32_t *cnt = ts_calloc((size_t)nlinks + 1, sizeof *cnt), *lflows = NULL, *active = ts_malloc(nl, sizeof *active);
    double *rem = ts_malloc(nl, sizeof *rem);
    uint8_t *frozen = ts_calloc(n ? n : 1, 1);
    iheap h = {ts_malloc(nl, sizeof(uint32_t)), ts_malloc(nl, sizeof(uint32_t)), ts_malloc(nl, sizeof(double)), 0};
    if (!cnt || !active || !rem || !frozen || !h.a || !h.pos || !h.key) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* link -> flows (CSR) */
    for (size_t k = 0; k < foff[n]; k++)
        cnt[flink[k] + 1]++;
    for (uint32_t l = 0; l < nlinks; l++)
        cnt[l + 1] += cnt[l];
    if (!(lflows = ts_malloc(foff[n] ? foff[n] : 1, sizeof *lflows))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    memcpy(active, cnt, nlinks * sizeof *active); /* used as fill positions first */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = foff[i]; k < foff[i + 1]; k++)
            lflows[active[flink[k]]++] = i;
    for (uint32_t l = 0; l < nlinks; l++) {
        rem[l] = cap[l];
        active[l] = cnt[l + 1] - cnt[l];
        h.pos[l] = UINT32_MAX;
        if (active[l])
            hpush(&h, l, rem[l] / active[l]);
    }
    for (uint32_t i = 0; i < n; i++)
        if (foff[i] == foff[i + 1]) {
            rate[i] = INFINITY; /* no link at all: only a flow inside one node */
            frozen[i] = 1;
        }
    while (h.n > 0) {
        uint32_t l = h.a[0];
        double share = h.key[l] < 0 ? 0 : h.key[l];
        hremove(&h, l);
        for (uint32_t k = cnt[l]; k < cnt[l + 1]; k++) {
            uint32_t i = lflows[k];
            if (frozen[i])
                continue;
            frozen[i] = 1;
            rate[i] = share;
            for (uint32_t m = foff[i]; m < foff[i + 1]; m++) {
                uint32_t x = flink[m];
                if (x == l)
                    continue;
                rem[x] -= share;
                if (rem[x] < 0)
                    rem[x] = 0; /* rounding */
                if (--active[x] > 0)
                    hupdate(&h, x, rem[x] / active[x]);
                else if (h.pos[x] != UINT32_MAX)
                    hremove(&h, x);
            }
        }
        active[l] = 0;
    }
out:
    free(cnt);
    free(lflows);
    free(active);
    free(rem);
    free(frozen);
    free(h.a);
    free(h.pos);
    free(h.key);
    return st;
}

/* Link numbering: trunks 0 .. 2T-1 (2 * trunk + direction), then NIC j of the fabric's
 * global NIC numbering as 2T + 2j (NIC to leaf) and 2T + 2j + 1 (leaf to NIC). */
typedef struct linkspace {
    uint32_t ntrunk_links, nlinks;
    uint32_t *nic_off; /* per node: first global NIC */
    double *cap;
} linkspace;

static tsched_status linkspace_init(linkspace *s, const tsched_topology *t)
{
    uint32_t nn = tsched_topology_num_nodes(t), nt = tsched_topology_num_trunks(t);
    memset(s, 0, sizeof *s);
    if (!(s->nic_off = ts_malloc((size_t)nn + 1, sizeof *s->nic_off)))
        return TSCHED_E_NOMEM;
    s->nic_off[0] = 0;
    for (uint32_t v = 0; v < nn; v++)
        s->nic_off[v + 1] = s->nic_off[v] + tsched_topology_node_nics(t, v);
    s->ntrunk_links = 2 * nt;
    s->nlinks = s->ntrunk_links + 2 * s->nic_off[nn];
    if (!(s->cap = ts_malloc(s->nlinks ? s->nlinks : 1, sizeof *s->cap))) {
        free(s->nic_off);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t r = 0; r < nt; r++)
        s->cap[2 * r] = s->cap[2 * r + 1] = tsched_topology_trunk_gbps(t, r);
    for (uint32_t v = 0; v < nn; v++)
        for (uint32_t k = s->nic_off[v]; k < s->nic_off[v + 1]; k++)
            s->cap[s->ntrunk_links + 2 * k] = s->cap[s->ntrunk_links + 2 * k + 1] = tsched_topology_node_nic_gbps(t, v);
    return TSCHED_OK;
}

static void linkspace_free(linkspace *s)
{
    free(s->nic_off);
    free(s->cap);
}

/* Flow i's links: NIC up, the path's trunk links, NIC down. */
static tsched_status flow_links(uint32_t **foff_out, uint32_t **flink_out, const linkspace *s, const tsched_flows *f,
                                const uint32_t *const *path_links, const uint32_t *hops)
{
    uint32_t n = f->n;
    uint32_t *foff = ts_malloc((size_t)n + 1, sizeof *foff);
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += hops[i] + 2;
    uint32_t *flink = ts_malloc(total ? total : 1, sizeof *flink);
    if (!foff || !flink) {
        free(foff);
        free(flink);
        return TSCHED_E_NOMEM;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        foff[i] = (uint32_t)k;
        flink[k++] = s->ntrunk_links + 2 * (s->nic_off[f->src[i]] + f->src_nic[i]);
        for (uint32_t h = 0; h < hops[i]; h++)
            flink[k++] = path_links[i][h];
        flink[k++] = s->ntrunk_links + 2 * (s->nic_off[f->dst[i]] + f->dst_nic[i]) + 1;
    }
    foff[n] = (uint32_t)k;
    *foff_out = foff;
    *flink_out = flink;
    return TSCHED_OK;
}

static tsched_status rates_for(double *rate, const tsched_topology *t, const tsched_flows *f,
                               const uint32_t *const *path_links, const uint32_t *hops)
{
    linkspace s;
    tsched_status st = linkspace_init(&s, t);
    if (st != TSCHED_OK)
        return st;
    uint32_t *foff, *flink;
    if ((st = flow_links(&foff, &flink, &s, f, path_links, hops)) == TSCHED_OK) {
        st = maxmin(rate, f->n, foff, flink, s.nlinks, s.cap);
        free(foff);
        free(flink);
    }
    linkspace_free(&s);
    return st;
}

tsched_status ts_route_rates(tsched_routes *r, const tsched_topology *t, const tsched_flows *f)
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

tsched_status tsched_rates_maxmin(double *rates, const tsched_topology *t, const tsched_flows *f,
                                  const tsched_path *paths)
{
    if (!rates || !t || !f || (!paths && f->n))
        return ts_error(TSCHED_E_INVALID, "tsched_rates_maxmin: %s is NULL", !rates ? "rates" : !t ? "topo" : !f ? "flows" : "paths");
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
