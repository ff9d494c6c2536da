/* Max-min fair rates of routed flows. Links: every trunk in each direction, and every NIC's
 * link to its leaf in each direction, numbered densely here; the solving is the library's
 * one fluid-sharing kernel (src/common/fluid.c, O((F h + L) log L)), the simulator's too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/fluid.h"
#include "../common/limits.h"
#include "routing_internal.h"

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
    ts_fluid *fw = NULL;
    if ((st = ts_fluid_new(&fw)) == TSCHED_OK)
        st = ts_fluid_solve(fw, rate, n, foff, flink, NULL, nu, cap);
    ts_fluid_free(fw);
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
