/* CRUX on a job set (doc/priority.md): GPU intensity (Def. 2), intensity-ordered path
 * selection (4.1), correction factors and priorities (4.2), the contention DAG and its
 * compression to hardware levels (4.3).
 *
 * Links are every trunk in each direction (2 * trunk + d, as in tsched_path), then, when some
 * flow is pinned to member links, every member link in each direction (2 * member + d after
 * the trunks), and after them the NIC-to-leaf link of every NIC some flow uses, in each
 * direction (capacity: the node's nic_gbps). The candidate paths of the path cache are in its compact link ids and
 * are translated to the fabric's (ts_pathcache_fabric_links) as they are read; pinned paths are in the
 * fabric's already. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/output_opts.h"
#include "../routing/pathcache.h"
#include "../topology/topology_paths.h"
#include "../common/structsize.h"
#include "crux_internal.h"
#include "dag_internal.h"

struct tsched_priorities {
    uint32_t n;
    double *intensity, *factor, *priority;
    double *bottleneck_ms; /* t_j of Def. 2 with the selected paths */
    double *traffic;       /* sum over links of M_{j,e}, gigabits */
    uint32_t *order, *level;
    uint32_t reference;    /* TSCHED_NONE with no jobs */
    uint32_t nedges;
    size_t eu_cap, ev_cap, ew_cap;
    uint32_t *eu, *ev;
    double *ew;
    double total_weight, cut_weight;
    uint32_t levels;
    tsched_kcut_algo algo;
    tsched_prio_order ord;
    uint64_t topo_id, topo_gen; /* the fabric it was computed on (that of its job set) */
};

void tsched_prio_options_init(tsched_prio_options *opts)
{
    if (!opts)
        return;
    tsched_kcut_options k;
    tsched_kcut_options_init(&k);
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->algo = k.algo;
    opts->levels = k.levels;
    opts->orders = k.orders;
    opts->seed = k.seed;
}

void tsched_priorities_free(tsched_priorities *p)
{
    if (!p)
        return;
    free(p->intensity);
    free(p->factor);
    free(p->priority);
    free(p->bottleneck_ms);
    free(p->traffic);
    free(p->order);
    free(p->level);
    free(p->eu);
    free(p->ev);
    free(p->ew);
    free(p);
}

double tsched_priorities_intensity(const tsched_priorities *p, uint32_t i) { return p && i < p->n ? p->intensity[i] : 0; }
double tsched_priorities_factor(const tsched_priorities *p, uint32_t i) { return p && i < p->n ? p->factor[i] : 0; }
double tsched_priorities_priority(const tsched_priorities *p, uint32_t i) { return p && i < p->n ? p->priority[i] : 0; }
uint32_t tsched_priorities_order(const tsched_priorities *p, uint32_t i) { return p && i < p->n ? p->order[i] : 0; }
uint32_t tsched_priorities_level(const tsched_priorities *p, uint32_t i) { return p && i < p->n ? p->level[i] : 0; }
uint32_t tsched_priorities_dag_edges(const tsched_priorities *p) { return p ? p->nedges : 0; }
double tsched_priorities_total_weight(const tsched_priorities *p) { return p ? p->total_weight : 0; }
double tsched_priorities_cut_weight(const tsched_priorities *p) { return p ? p->cut_weight : 0; }

/* ---- the computation ------------------------------------------------------------------ */

typedef struct crux {
    const tsched_topology *t;
    const tsched_jobset *js;
    ts_pathcache cache;
    uint32_t ntl;        /* trunk links: 2 * trunks */
    uint32_t nfl;        /* fabric links: ntl, + 2 * members when a flow is pinned to members */
    uint32_t nlinks;     /* nfl + 2 * used NICs */
    double *cap;         /* per link, Gbit/s */
    uint32_t *src_link;  /* per flow: its source NIC's up link */
    uint32_t *dst_link;  /* per flow: its destination NIC's down link */
    uint32_t *foff, *fl; /* each job's flows (ts_jobset_csr) */
    uint32_t *pair;      /* per flow: leaf pair in the cache (unused for a pinned flow) */
    uint32_t *pidx;      /* per flow: chosen path */
    double *load;        /* per trunk link: gigabits placed so far */
    double *vol;         /* per link: one job's M_{j,e}, zero between jobs */
    uint32_t *touched;   /* links with vol > 0 */
    uint32_t ntouched;
} crux;

static void crux_free(crux *c)
{
    ts_pathcache_free(&c->cache);
    free(c->cap);
    free(c->src_link);
    free(c->dst_link);
    free(c->foff);
    free(c->fl);
    free(c->pair);
    free(c->pidx);
    free(c->load);
    free(c->vol);
    free(c->touched);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t nic_index(const uint64_t *keys, uint32_t n, uint64_t key)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Flow f's path as directed link ids of the fabric into buf (TSCHED_PATH_MAX_LINKS);
 * returns the hop count. */
static uint32_t flow_path(const crux *c, uint32_t f, uint32_t *buf)
{
    uint32_t hops;
    const uint32_t *pin = ts_jobset_pin(c->js, f, &hops);
    if (pin) {
        uint32_t base = ts_jobset_pin_members(c->js, f) ? c->ntl : 0;
        for (uint32_t h = 0; h < hops; h++)
            buf[h] = base + pin[h];
        return hops;
    }
    const ts_pair *p = ts_pathcache_pair(&c->cache, c->pair[f]);
    const uint32_t *l = ts_pathcache_path(&c->cache, p, c->pidx[f]), *gl = ts_pathcache_fabric_links(&c->cache);
    for (uint32_t h = 0; h < p->hops; h++)
        buf[h] = gl[l[h]];
    return p->hops;
}

/* The directed trunk link under fabric link l (a member link's trunk): path selection
 * weighs trunks, so a flow pinned to a member loads its trunk there. */
static uint32_t trunk_link(const crux *c, uint32_t l)
{
    if (l < c->ntl)
        return l;
    l -= c->ntl;
    return 2 * tsched_topology_member_trunk(c->t, l / 2) + l % 2;
}

/* Check the set against the fabric, number the links, list every flow's candidate paths. */
static tsched_status crux_setup(crux *c)
{
    const tsched_topology *t = c->t;
    const tsched_jobset *js = c->js;
    ts_topo_paths tv;
    ts_topology_paths(&tv, t);
    uint32_t nn = tsched_topology_num_nodes(t), nf = js->nflows;
    size_t nfa = nf ? nf : 1;
    uint64_t *keys = ts_malloc(2 * nfa, sizeof *keys);
    tsched_status st;
    if ((st = ts_jobset_csr(&c->foff, &c->fl, js)) != TSCHED_OK)
        return st;
    if (!keys || !(c->src_link = ts_malloc(nfa, sizeof *c->src_link)) ||
        !(c->dst_link = ts_malloc(nfa, sizeof *c->dst_link)) || !(c->pair = ts_malloc(nfa, sizeof *c->pair)) ||
        !(c->pidx = ts_calloc(nfa, sizeof *c->pidx))) {
        free(keys);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t ends[2] = {js->src[f], js->dst[f]}, nics[2] = {js->src_nic[f], js->dst_nic[f]};
        for (int e = 0; e < 2; e++)
            if (ends[e] >= nn || nics[e] >= tsched_topology_node_nics(t, ends[e])) {
                free(keys);
                return ts_error(TSCHED_E_INVALID, "tsched_prioritize: flow %u names a node or NIC fabric \"%s\" "
                                                  "lacks (job set loaded against another fabric?)",
                                f, tsched_topology_name(t));
            }
        keys[2 * (size_t)f] = (uint64_t)js->src[f] << 32 | js->src_nic[f];
        keys[2 * (size_t)f + 1] = (uint64_t)js->dst[f] << 32 | js->dst_nic[f];
    }
    qsort(keys, 2 * (size_t)nf, sizeof *keys, cmp_u64);
    uint32_t nk = 0;
    for (size_t i = 0; i < 2 * (size_t)nf; i++)
        if (nk == 0 || keys[i] != keys[nk - 1])
            keys[nk++] = keys[i];
    uint64_t nml = js->member_flows ? 2 * (uint64_t)tsched_topology_num_members(t) : 0;
    uint64_t nlinks = 2 * (uint64_t)tsched_topology_num_trunks(t) + nml + 2 * (uint64_t)nk;
    if (nlinks >= UINT32_MAX) {
        free(keys);
        return ts_error(TSCHED_E_TOO_LARGE, "tsched_prioritize: %llu links", (unsigned long long)nlinks);
    }
    c->ntl = 2 * tsched_topology_num_trunks(t);
    c->nfl = c->ntl + (uint32_t)nml;
    c->nlinks = (uint32_t)nlinks;
    size_t nla = c->nlinks ? c->nlinks : 1;
    if (!(c->cap = ts_malloc(nla, sizeof *c->cap)) || !(c->vol = ts_calloc(nla, sizeof *c->vol)) ||
        !(c->touched = ts_malloc(nla, sizeof *c->touched)) ||
        !(c->load = ts_calloc(c->ntl ? c->ntl : 1, sizeof *c->load))) {
        free(keys);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t l = 0; l < c->ntl; l++)
        c->cap[l] = tsched_topology_trunk_gbps(t, l / 2);
    for (uint32_t l = c->ntl; l < c->nfl; l++)
        c->cap[l] = tsched_topology_member_gbps(t, (l - c->ntl) / 2);
    for (uint32_t k = 0; k < nk; k++)
        c->cap[c->nfl + 2 * k] = c->cap[c->nfl + 2 * k + 1] = tsched_topology_node_nic_gbps(t, (uint32_t)(keys[k] >> 32));
    for (uint32_t f = 0; f < nf; f++) {
        c->src_link[f] = c->nfl + 2 * nic_index(keys, nk, (uint64_t)js->src[f] << 32 | js->src_nic[f]);
        c->dst_link[f] = c->nfl + 2 * nic_index(keys, nk, (uint64_t)js->dst[f] << 32 | js->dst_nic[f]) + 1;
    }
    free(keys);

    for (uint32_t j = 0; j < js->n; j++)
        for (uint32_t k = c->foff[j]; k < c->foff[j + 1]; k++) {
            uint32_t f = c->fl[k], s = js->src[f], d = js->dst[f];
            uint32_t hops;
            if (ts_jobset_pin(js, f, &hops))
                continue; /* kept as given */
            uint32_t a = tsched_topology_node_nic_leaf(t, s, js->src_nic[f]);
            uint32_t b = tsched_topology_node_nic_leaf(t, d, js->dst_nic[f]);
            if (a == TSCHED_NONE || b == TSCHED_NONE)
                return ts_error(TSCHED_E_INVALID, "jobs[%u].flows[%u]: a NIC without a leaf", j, k - c->foff[j]);
            if ((st = ts_pathcache_get(&c->pair[f], &c->cache, t, a, b)) != TSCHED_OK)
                return st;
            if (ts_pathcache_pair(&c->cache, c->pair[f])->npaths == 0 || !tv.node_up[s] || !tv.node_up[d])
                return ts_error(TSCHED_E_NO_PATH,
                                "jobs[%u].flows[%u] (job \"%s\"): no surviving path from \"%s\" NIC %u to \"%s\" NIC %u",
                                j, k - c->foff[j], js->name[j], tsched_topology_node_name(t, s), js->src_nic[f],
                                tsched_topology_node_name(t, d), js->dst_nic[f]);
        }
    return TSCHED_OK;
}

/* Route job j's flows in input order on the least congested path given c->load (which it
 * extends): congestion = the largest (load + gbits) / capacity over the path's trunk
 * links, ties to the first candidate. A pinned flow keeps its path and loads it. */
static void route_job(crux *c, uint32_t j)
{
    const tsched_jobset *js = c->js;
    const uint32_t *gl = ts_pathcache_fabric_links(&c->cache);
    uint32_t buf[TSCHED_PATH_MAX_LINKS];
    for (uint32_t i = c->foff[j]; i < c->foff[j + 1]; i++) {
        uint32_t f = c->fl[i];
        double g = js->gbits[f];
        uint32_t hops;
        if (!ts_jobset_pin(js, f, &hops)) {
            const ts_pair *p = ts_pathcache_pair(&c->cache, c->pair[f]);
            const uint32_t *l = ts_pathcache_path(&c->cache, p, 0);
            uint32_t best = 0;
            double bestv = INFINITY;
            for (uint32_t k = 0; k < p->npaths && p->hops > 0; k++, l += p->hops) {
                double v = 0;
                for (uint32_t h = 0; h < p->hops; h++) {
                    double x = (c->load[gl[l[h]]] + g) / c->cap[gl[l[h]]];
                    if (x > v)
                        v = x;
                }
                if (v < bestv) {
                    bestv = v;
                    best = k;
                }
            }
            c->pidx[f] = best;
        }
        hops = flow_path(c, f, buf);
        for (uint32_t h = 0; h < hops; h++)
            c->load[trunk_link(c, buf[h])] += g;
    }
}

static void add_vol(crux *c, uint32_t l, double g)
{
    if (c->vol[l] == 0)
        c->touched[c->ntouched++] = l;
    c->vol[l] += g;
}

/* M_{j,e} of job j on its chosen paths into c->vol (listed in c->touched); returns
 * t_j = max_e M_{j,e} / B_e in seconds and the total traffic sum_e M_{j,e}. */
static double job_volume(crux *c, uint32_t j, double *traffic)
{
    const tsched_jobset *js = c->js;
    uint32_t buf[TSCHED_PATH_MAX_LINKS];
    c->ntouched = 0;
    for (uint32_t i = c->foff[j]; i < c->foff[j + 1]; i++) {
        uint32_t f = c->fl[i];
        uint32_t hops = flow_path(c, f, buf);
        double g = js->gbits[f];
        add_vol(c, c->src_link[f], g);
        for (uint32_t h = 0; h < hops; h++)
            add_vol(c, buf[h], g);
        add_vol(c, c->dst_link[f], g);
    }
    double tmax = 0, sum = 0;
    for (uint32_t i = 0; i < c->ntouched; i++) {
        uint32_t l = c->touched[i];
        double x = c->vol[l] / c->cap[l];
        if (x > tmax)
            tmax = x;
        sum += c->vol[l];
    }
    *traffic = sum;
    return tmax;
}

/* TACCL*'s transmission distance of job j: the fabric links its flows cross, averaged over
 * its gigabits (a flow between two NICs of one leaf crosses none). */
static double job_distance(const crux *c, uint32_t j)
{
    uint32_t buf[TSCHED_PATH_MAX_LINKS];
    double hops = 0, vol = 0;
    for (uint32_t i = c->foff[j]; i < c->foff[j + 1]; i++) {
        uint32_t f = c->fl[i];
        hops += c->js->gbits[f] * flow_path(c, f, buf);
        vol += c->js->gbits[f];
    }
    return vol > 0 ? hops / vol : 0;
}

static void clear_volume(crux *c)
{
    for (uint32_t i = 0; i < c->ntouched; i++)
        c->vol[c->touched[i]] = 0;
    c->ntouched = 0;
}

typedef struct rank_item {
    double key;
    uint32_t idx;
} rank_item;

/* Decreasing key, ties to the earlier index. */
static int cmp_rank(const void *a, const void *b)
{
    const rank_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* perm[r] = the job of rank r by decreasing key; rank[j] = its rank (may be NULL). */
static tsched_status rank_by(uint32_t *perm, uint32_t *rank, const double *key, uint32_t n)
{
    rank_item *it = ts_malloc(n ? n : 1, sizeof *it);
    if (!it)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        it[i] = (rank_item){key[i], i};
    qsort(it, n, sizeof *it, cmp_rank);
    for (uint32_t r = 0; r < n; r++) {
        perm[r] = it[r].idx;
        if (rank)
            rank[it[r].idx] = r;
    }
    free(it);
    return TSCHED_OK;
}

static tsched_status push_edge(tsched_priorities *p, uint32_t u, uint32_t v, double w)
{
    tsched_status st;
    size_t need = (size_t)p->nedges + 1;
    if ((st = TS_GROW(p->eu, p->eu_cap, need)) || (st = TS_GROW(p->ev, p->ev_cap, need)) ||
        (st = TS_GROW(p->ew, p->ew_cap, need)))
        return st;
    p->eu[p->nedges] = u;
    p->ev[p->nedges] = v;
    p->ew[p->nedges] = w;
    p->nedges++;
    return TSCHED_OK;
}

/* The contention DAG: an edge between two jobs with traffic on a common link (a trunk
 * direction or a NIC link direction), from the one ranked first, weighted by its intensity.
 * jl_off/jl: each job's links; edges are added in (lower job, higher job) index order. */
static tsched_status build_edges(tsched_priorities *p, const uint32_t *jl_off, const uint32_t *jl, uint32_t nlinks)
{
    uint32_t n = p->n;
    tsched_status st = TSCHED_OK;
    uint32_t *lj_off = ts_calloc((size_t)nlinks + 1, sizeof *lj_off);
    uint32_t *lj = ts_malloc(jl_off[n] ? jl_off[n] : 1, sizeof *lj);
    uint32_t *mark = ts_malloc(n, sizeof *mark), *peers = ts_malloc(n, sizeof *peers);
    if (!lj_off || !lj || !mark || !peers) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t k = 0; k < jl_off[n]; k++)
        lj_off[jl[k] + 1]++;
    for (uint32_t l = 0; l < nlinks; l++)
        lj_off[l + 1] += lj_off[l];
    {
        uint32_t *pos = ts_malloc(nlinks ? nlinks : 1, sizeof *pos);
        if (!pos) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
        memcpy(pos, lj_off, (size_t)nlinks * sizeof *pos);
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t k = jl_off[j]; k < jl_off[j + 1]; k++)
                lj[pos[jl[k]]++] = j;
        free(pos);
    }
    for (uint32_t j = 0; j < n; j++)
        mark[j] = UINT32_MAX;
    for (uint32_t a = 0; a < n && st == TSCHED_OK; a++) {
        uint32_t np = 0;
        for (uint32_t k = jl_off[a]; k < jl_off[a + 1]; k++) {
            uint32_t l = jl[k];
            for (uint32_t m = lj_off[l]; m < lj_off[l + 1]; m++) {
                uint32_t b = lj[m];
                if (b > a && mark[b] != a) {
                    mark[b] = a;
                    peers[np++] = b;
                }
            }
        }
        /* peers in index order: small insertion-friendly sort of distinct ids */
        for (uint32_t x = 1; x < np; x++) {
            uint32_t v = peers[x], y = x;
            while (y > 0 && peers[y - 1] > v) {
                peers[y] = peers[y - 1];
                y--;
            }
            peers[y] = v;
        }
        for (uint32_t x = 0; x < np && st == TSCHED_OK; x++) {
            uint32_t b = peers[x];
            uint32_t u = p->order[a] < p->order[b] ? a : b, v = u == a ? b : a;
            st = push_edge(p, u, v, p->intensity[u]);
            p->total_weight += p->intensity[u];
        }
    }
out:
    free(lj_off);
    free(lj);
    free(mark);
    free(peers);
    return st;
}

static tsched_status alloc_result(tsched_priorities **out, uint32_t n)
{
    tsched_priorities *p = ts_calloc(1, sizeof *p);
    if (!p)
        return TSCHED_E_NOMEM;
    size_t na = n ? n : 1;
    p->n = n;
    p->reference = TSCHED_NONE;
    if (!(p->intensity = ts_calloc(na, sizeof *p->intensity)) || !(p->factor = ts_calloc(na, sizeof *p->factor)) ||
        !(p->priority = ts_calloc(na, sizeof *p->priority)) ||
        !(p->bottleneck_ms = ts_calloc(na, sizeof *p->bottleneck_ms)) ||
        !(p->traffic = ts_calloc(na, sizeof *p->traffic)) || !(p->order = ts_calloc(na, sizeof *p->order)) ||
        !(p->level = ts_calloc(na, sizeof *p->level))) {
        tsched_priorities_free(p);
        return TSCHED_E_NOMEM;
    }
    *out = p;
    return TSCHED_OK;
}

static tsched_status compute(tsched_priorities *p, crux *c, const tsched_prio_options *o)
{
    const tsched_jobset *js = c->js;
    uint32_t n = js->n;
    tsched_status st;
    uint32_t *perm = ts_malloc(n ? n : 1, sizeof *perm);
    double *key = ts_malloc(n ? n : 1, sizeof *key);
    uint32_t *jl_off = ts_calloc((size_t)n + 1, sizeof *jl_off), *jl = NULL;
    double *jt = NULL, *dist = NULL; /* the baseline orders': each (job, link)'s time, distances */
    size_t jl_cap = 0, jt_cap = 0;
    tsched_dag *dag = NULL;
    int baseline = o->order != TSCHED_PRIO_ORDER_CRUX;
    if (!perm || !jl_off || !key || (baseline && !(dist = ts_calloc(n ? n : 1, sizeof *dist)))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }

    /* 1. intensities with each job's flows routed alone on the empty fabric: the order
     * of path selection (a job without flows has nothing to route: first, harmlessly) */
    for (uint32_t j = 0; j < n; j++) {
        double traffic;
        uint32_t buf[TSCHED_PATH_MAX_LINKS];
        route_job(c, j);
        double tj = job_volume(c, j, &traffic);
        clear_volume(c);
        key[j] = c->foff[j] == c->foff[j + 1] ? INFINITY : js->work_tflop[j] / tj;
        /* back to an empty fabric */
        for (uint32_t i = c->foff[j]; i < c->foff[j + 1]; i++) {
            uint32_t hops = flow_path(c, c->fl[i], buf);
            for (uint32_t h = 0; h < hops; h++)
                c->load[trunk_link(c, buf[h])] = 0;
        }
    }
    if ((st = rank_by(perm, NULL, key, n)) != TSCHED_OK)
        goto out;

    /* 2. path selection from the most intense job down */
    for (uint32_t r = 0; r < n; r++)
        route_job(c, perm[r]);

    /* 3. final intensities and each job's links; a job without flows keeps intensity 0,
     * no links and no DAG edge */
    for (uint32_t j = 0; j < n; j++) {
        double tj = job_volume(c, j, &p->traffic[j]);
        p->bottleneck_ms[j] = tj * 1000.0;
        p->intensity[j] = c->foff[j] == c->foff[j + 1] ? 0 : js->work_tflop[j] / tj;
        if (c->foff[j] < c->foff[j + 1] && (!isfinite(p->bottleneck_ms[j]) || !isfinite(p->traffic[j]) ||
                                            !isfinite(p->intensity[j]) || !(p->intensity[j] > 0))) {
            st = ts_error(TSCHED_E_RANGE, "jobs[%u] (job \"%s\"): intensity %g TFLOP/s over %g ms out of range "
                                          "(extreme work_tflop or gbits)",
                          j, js->name[j], p->intensity[j], p->bottleneck_ms[j]);
            goto out;
        }
        if ((st = TS_GROW(jl, jl_cap, (size_t)jl_off[j] + c->ntouched + 1)) != TSCHED_OK)
            goto out;
        memcpy(jl + jl_off[j], c->touched, (size_t)c->ntouched * sizeof *jl);
        jl_off[j + 1] = jl_off[j] + c->ntouched;
        if (baseline) {
            if ((st = TS_GROW(jt, jt_cap, (size_t)jl_off[j + 1] + 1)) != TSCHED_OK)
                goto out;
            for (uint32_t i = 0; i < c->ntouched; i++)
                jt[jl_off[j] + i] = c->vol[c->touched[i]] / c->cap[c->touched[i]];
            dist[j] = job_distance(c, j);
        }
        clear_volume(c);
        if (p->traffic[j] > 0 && (p->reference == TSCHED_NONE || p->traffic[j] > p->traffic[p->reference]))
            p->reference = j;
    }

    /* 4. correction factors against the reference job (the one with the most traffic; none
     * when no job has any), priorities, order; jobs without flows first */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = p->reference;
        p->factor[j] = 1;
        if (j != r && r != TSCHED_NONE && p->traffic[j] > 0) {
            tsched_twojob a = {sizeof a, js->compute_ms[j], p->bottleneck_ms[j], js->overlap[j], js->gpus[j]};
            tsched_twojob b = {sizeof b, js->compute_ms[r], p->bottleneck_ms[r], js->overlap[r], js->gpus[r]};
            if ((st = ts_crux_factor(&p->factor[j], &a, &b)) != TSCHED_OK)
                goto out;
        }
        p->priority[j] = p->factor[j] * p->intensity[j];
        if (!isfinite(p->priority[j])) {
            st = ts_error(TSCHED_E_RANGE, "jobs[%u] (job \"%s\"): priority %g x %g overflows", j, js->name[j],
                          p->factor[j], p->intensity[j]);
            goto out;
        }
        key[j] = p->traffic[j] > 0 ? p->priority[j] : INFINITY;
    }
    if (baseline) {
        /* a baseline's own order replaces P_j's (the intensities and factors stay reported) */
        ts_coflows cf = {n, c->nlinks, jl_off, jl, jt, dist};
        st = ts_prio_order_rank(perm, p->order, o->order, &cf);
    } else {
        st = rank_by(perm, p->order, key, n);
    }
    if (st != TSCHED_OK)
        goto out;

    /* 5. contention DAG and its compression */
    if ((st = build_edges(p, jl_off, jl, c->nlinks)) != TSCHED_OK)
        goto out;
    if (n > 0) {
        /* the compressor's nodes are the jobs by rank (node 0 = first), so that its
         * canonical order, which Sincronia and Varys cut, is the priority order (perm now
         * receives the levels by rank) */
        if ((st = tsched_dag_new(&dag, n)) != TSCHED_OK)
            goto out;
        for (uint32_t e = 0; e < p->nedges; e++)
            if ((st = tsched_dag_add_edge(dag, p->order[p->eu[e]], p->order[p->ev[e]], p->ew[e])) != TSCHED_OK)
                goto out;
        tsched_kcut_options k;
        tsched_kcut_options_init(&k);
        k.algo = o->algo;
        k.levels = o->levels;
        k.orders = o->orders;
        k.seed = o->seed;
        if ((st = tsched_dag_compress(perm, &p->cut_weight, dag, &k)) != TSCHED_OK)
            goto out;
        for (uint32_t j = 0; j < n; j++)
            p->level[j] = perm[p->order[j]];
    }
    p->levels = o->levels;
    p->algo = o->algo;
    p->ord = o->order;
out:
    tsched_dag_free(dag);
    free(perm);
    free(key);
    free(jl_off);
    free(jl);
    free(jt);
    free(dist);
    return st;
}

tsched_status tsched_prioritize(tsched_priorities **out, const tsched_topology *topo, const tsched_jobset *jobs,
                                const tsched_prio_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_prioritize: out is NULL");
    *out = NULL;
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_prioritize: topo is NULL");
    if (!jobs)
        return ts_error(TSCHED_E_INVALID, "tsched_prioritize: jobs is NULL");
    tsched_status st;
    if ((st = ts_check_built(topo, "tsched_prioritize")) != TSCHED_OK)
        return st;
    /* the flows name nodes and NICs by index in the fabric the set was loaded against */
    if ((st = tsched_topology_check_identity(topo, jobs->topo_id, jobs->topo_gen,
                                             "tsched_prioritize: job set")) != TSCHED_OK)
        return st;
    static const ts_span spans[] = {TS_SPAN(tsched_prio_options, size),   TS_SPAN(tsched_prio_options, algo),
                                    TS_SPAN(tsched_prio_options, levels), TS_SPAN(tsched_prio_options, orders),
                                    TS_SPAN(tsched_prio_options, seed),   TS_SPAN(tsched_prio_options, order)};
    tsched_prio_options merged;
    tsched_prio_options_init(&merged);
    if (opts && (st = ts_struct_in(&merged, opts, spans, TS_NSPANS(spans), sizeof merged, "tsched_prio_options")))
        return st;
    const tsched_prio_options *o = &merged;
    if ((unsigned)o->order > TSCHED_PRIO_ORDER_TACCL)
        return ts_error(TSCHED_E_INVALID, "tsched_prio_options.order: %d is not an order (0 to %d)", (int)o->order,
                        (int)TSCHED_PRIO_ORDER_TACCL);
    /* the compression's options are checked before any work */
    if ((st = ts_kcut_check(o->algo, o->levels, o->orders, jobs->n)) != TSCHED_OK)
        return st;
    crux c;
    memset(&c, 0, sizeof c);
    c.t = topo;
    c.js = jobs;
    ts_pathcache_init(&c.cache);
    tsched_priorities *p = NULL;
    if ((st = crux_setup(&c)) == TSCHED_OK && (st = alloc_result(&p, jobs->n)) == TSCHED_OK) {
        p->topo_id = jobs->topo_id;
        p->topo_gen = jobs->topo_gen;
        st = compute(p, &c, o);
    }
    if (st != TSCHED_OK) {
        tsched_priorities_free(p);
        p = NULL;
    }
    crux_free(&c);
    *out = p;
    return st;
}

/* ---- output ------------------------------------------------------------------------------ */

static tsched_status job_json(json_t *arr, const tsched_priorities *p, const tsched_jobset *js, uint32_t i)
{
    json_t *o = json_object();
    tsched_status st;
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    if ((st = ts_json_set(o, "name", json_string(js->name[i]))) || (st = ts_json_set(o, "intensity", json_real(p->intensity[i]))) ||
        (st = ts_json_set(o, "factor", json_real(p->factor[i]))) ||
        (st = ts_json_set(o, "priority", json_real(p->priority[i]))) ||
        (st = ts_json_set(o, "order", json_integer(p->order[i]))) ||
        (st = ts_json_set(o, "level", json_integer(p->level[i]))) ||
        (st = ts_json_set(o, "bottleneck_ms", json_real(p->bottleneck_ms[i]))) ||
        (st = ts_json_set(o, "traffic_gbits", json_real(p->traffic[i])))) {
        json_decref(o);
        return st;
    }
    return ts_json_push(arr, o);
}

static tsched_status dag_json(json_t *root, const tsched_priorities *p)
{
    json_t *d = json_object(), *edges = json_array();
    tsched_status st = TSCHED_OK;
    if (!d || !edges) {
        json_decref(d);
        json_decref(edges);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    for (uint32_t e = 0; e < p->nedges && st == TSCHED_OK; e++)
        st = ts_json_push(edges, json_pack("[IIf]", (json_int_t)p->eu[e], (json_int_t)p->ev[e], p->ew[e]));
    if (st != TSCHED_OK || (st = ts_json_set(d, "nodes", json_integer(p->n))) != TSCHED_OK) {
        json_decref(d);
        json_decref(edges);
        return st;
    }
    if ((st = ts_json_set(d, "edges", edges)) != TSCHED_OK) {
        json_decref(d);
        return st;
    }
    if ((st = ts_json_set(d, "total_weight", json_real(p->total_weight))) ||
        (st = ts_json_set(d, "cut_weight", json_real(p->cut_weight)))) {
        json_decref(d);
        return st;
    }
    return ts_json_set(root, "dag", d);
}

tsched_status tsched_priorities_to_json(char **out, const tsched_priorities *p, const tsched_jobset *jobs)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_priorities_to_json: out is NULL");
    *out = NULL;
    if (!p)
        return ts_error(TSCHED_E_INVALID, "tsched_priorities_to_json: p is NULL");
    if (!jobs)
        return ts_error(TSCHED_E_INVALID, "tsched_priorities_to_json: jobs is NULL");
    /* the writer needs only the job names, but they must be the set's the result was
     * computed from: same fabric and same job count */
    if (jobs->topo_id != p->topo_id || jobs->topo_gen != p->topo_gen)
        return ts_error(TSCHED_E_MISMATCH, "tsched_priorities_to_json: the result was computed on fabric #%llu "
                        "(generation %llu), the job set was loaded against fabric #%llu (generation %llu)",
                        (unsigned long long)p->topo_id, (unsigned long long)p->topo_gen,
                        (unsigned long long)jobs->topo_id, (unsigned long long)jobs->topo_gen);
    if (jobs->n != p->n)
        return ts_error(TSCHED_E_INVALID, "tsched_priorities_to_json: the result has %u jobs, the job set %u", p->n,
                        jobs->n);
    json_t *root = json_object(), *arr = json_array();
    tsched_status st = TSCHED_OK;
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    for (uint32_t i = 0; i < p->n && st == TSCHED_OK; i++)
        st = job_json(arr, p, jobs, i);
    if (st != TSCHED_OK) {
        json_decref(arr);
        json_decref(root);
        return st;
    }
    if ((st = ts_json_set(root, "format", json_string("tsched.priorities.v1"))) ||
        (st = ts_json_set(root, "algorithm", json_string(tsched_kcut_algo_name(p->algo)))) ||
        /* written for a baseline only: CRUX's documents keep their bytes */
        (p->ord != TSCHED_PRIO_ORDER_CRUX &&
         (st = ts_json_set(root, "ordering", json_string(tsched_prio_order_name(p->ord))))) ||
        (st = ts_json_set(root, "levels", json_integer(p->levels))) ||
        (st = ts_json_set(root, "reference", p->reference == TSCHED_NONE ? json_null()
                                                                           : json_string(jobs->name[p->reference])))) {
        json_decref(arr);
        json_decref(root);
        return st;
    }
    if ((st = ts_json_set(root, "jobs", arr)) == TSCHED_OK && (st = dag_json(root, p)) == TSCHED_OK)
        st = ts_json_dump(out, root);
    json_decref(root);
    return st;
}

tsched_status tsched_priorities_to_json_opts(char **out, const tsched_priorities *p, const tsched_jobset *jobs,
                                             const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_priorities_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_priorities_to_json(out, p, jobs);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
