/* tsched_place(): turn the fabric into domains (pods or leaves) of eligible nodes, run one
 * solver on the abstract problem, then pick concrete nodes: inside a domain, leaf by leaf
 * (fullest leaves first), cells taken unit by unit so a unit's nodes share leaves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "../common/structsize.h"
#include "placement_internal.h"
#include "solver.h"

void tsched_place_options_init(tsched_place_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->algo = TSCHED_PLACE_MIP;
    o->alpha = -1;
    o->unit = -1;
    o->domain = -1;
    o->seed = 1;
}

static const char *const algo_names[] = {"mip", "best-fit", "random-fit", "gpu-pack", "topo-aware", "exhaustive"};

const char *tsched_place_algo_name(tsched_place_algo a)
{
    return (unsigned)a < sizeof algo_names / sizeof algo_names[0] ? algo_names[a] : "?";
}

tsched_status tsched_place_algo_from_name(tsched_place_algo *a, const char *name)
{
    if (!a)
        return ts_error(TSCHED_E_INVALID, "tsched_place_algo_from_name: algo is NULL");
    if (!name)
        return ts_error(TSCHED_E_INVALID, "tsched_place_algo_from_name: name is NULL");
    for (unsigned i = 0; i < sizeof algo_names / sizeof algo_names[0]; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *a = (tsched_place_algo)i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT,
                    "algo: unknown placement algorithm \"%s\"; expected mip, best-fit, random-fit, gpu-pack, "
                    "topo-aware or exhaustive",
                    name ? name : "(null)");
}

uint32_t ts_node_domain(const tsched_topology *t, uint32_t node, tsched_domain level)
{
    if (level == TSCHED_DOMAIN_NVL) {
        uint32_t d = tsched_topology_node_nvl(t, node);
        return d != TSCHED_NONE ? d : tsched_topology_num_nvl_domains(t) + node;
    }
    return level == TSCHED_DOMAIN_LEAF ? tsched_topology_node_leaf(t, node) : tsched_topology_node_pod(t, node);
}

uint32_t ts_domain_count(const tsched_topology *t, tsched_domain level)
{
    if (level == TSCHED_DOMAIN_NVL)
        return tsched_topology_num_nvl_domains(t) + tsched_topology_num_nodes(t);
    return level == TSCHED_DOMAIN_POD ? tsched_topology_num_pods(t) : tsched_topology_num_switches(t);
}

/* The candidate set of the options' `nodes` (doc/cell.md §5): NULL when every node is a
 * candidate, else a mask of num_nodes bytes. Errors: a NULL list with a count
 * (TSCHED_E_INVALID), an index outside the fabric (TSCHED_E_RANGE), a node listed twice
 * (TSCHED_E_DUPLICATE), each naming `nodes[i]`. */
static tsched_status candidate_mask(uint8_t **mask, const tsched_topology *t, const tsched_place_options *o)
{
    *mask = NULL;
    if (o->num_nodes == 0)
        return TSCHED_OK;
    if (!o->nodes)
        return ts_error(TSCHED_E_INVALID, "nodes: NULL with num_nodes = %u", o->num_nodes);
    uint32_t nn = tsched_topology_num_nodes(t);
    uint8_t *m = ts_calloc(nn ? nn : 1, 1);
    if (!m)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < o->num_nodes; i++) {
        uint32_t v = o->nodes[i];
        tsched_status st = TSCHED_OK;
        if (v >= nn)
            st = ts_error(TSCHED_E_RANGE, "nodes[%u]: %u is not a node of fabric \"%s\" (it has %u)", i, v,
                          tsched_topology_name(t), nn);
        else if (m[v])
            st = ts_error(TSCHED_E_DUPLICATE, "nodes[%u]: node %u (\"%s\") is listed twice", i, v,
                          tsched_topology_node_name(t, v));
        if (st != TSCHED_OK) {
            free(m);
            return st;
        }
        m[v] = 1;
    }
    *mask = m;
    return TSCHED_OK;
}

/* The GPU count most (candidate) nodes have (ties: the smaller count), so mixed fabrics
 * place on the dominant node type unless told otherwise. */
static uint32_t common_gpus(const tsched_topology *t, const uint8_t *cand)
{
    uint32_t hist[1025] = {0}, best = 0;
    uint32_t n = tsched_topology_num_nodes(t);
    for (uint32_t i = 0; i < n; i++) {
        if (cand && !cand[i])
            continue;
        uint32_t g = tsched_topology_node_gpus(t, i);
        if (g <= 1024)
            hist[g]++;
    }
    for (uint32_t g = 1; g <= 1024; g++)
        if (hist[g] > hist[best])
            best = g;
    return best;
}

typedef struct domains {
    uint32_t n;       /* non-empty domains */
    uint32_t *cap;    /* eligible nodes per domain */
    uint32_t *off;    /* n + 1 offsets into nodes */
    uint32_t *nodes;  /* eligible nodes, domain by domain, leaf by leaf */
} domains;

static void domains_free(domains *d)
{
    free(d->cap);
    free(d->off);
    free(d->nodes);
}

typedef struct leaf_key {
    uint32_t leaf, free;
} leaf_key;

static int cmp_leaf_key(const void *a, const void *b)
{
    const leaf_key *x = a, *y = b;
    if (x->free != y->free)
        return x->free > y->free ? -1 : 1;
    return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* The one test of which nodes placement may use, for every algorithm: up, all GPUs free,
 * `gpn` GPUs, and in the candidate set when there is one. */
static int eligible(const tsched_topology *t, uint32_t n, uint32_t gpn, const uint8_t *cand)
{
    return (!cand || cand[n]) && tsched_topology_node_is_free(t, n) && tsched_topology_node_gpus(t, n) == gpn;
}

/* Append the eligible nodes of a leaf list (already ordered) to d. */
static void take_leaves(domains *d, uint32_t *len, const tsched_topology *t, const leaf_key *leaves, uint32_t nl,
                        uint32_t gpn, const uint8_t *cand)
{
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t cnt;
        const uint32_t *ns = tsched_topology_leaf_nodes(t, leaves[i].leaf, &cnt);
        for (uint32_t j = 0; j < cnt; j++)
            if (eligible(t, ns[j], gpn, cand))
                d->nodes[(*len)++] = ns[j];
    }
}

static uint32_t leaf_eligible(const tsched_topology *t, uint32_t leaf, uint32_t gpn, const uint8_t *cand)
{
    uint32_t cnt, f = 0;
    const uint32_t *ns = tsched_topology_leaf_nodes(t, leaf, &cnt);
    for (uint32_t j = 0; j < cnt; j++)
        f += (uint32_t)eligible(t, ns[j], gpn, cand);
    return f;
}

/* NVLink domains in order of first node, a node without one alone in its place; the
 * nodes of a domain in index order. */
static tsched_status build_nvl_domains(domains *d, const tsched_topology *t, uint32_t gpn, const uint8_t *cand)
{
    uint32_t nn = tsched_topology_num_nodes(t), nv = tsched_topology_num_nvl_domains(t);
    memset(d, 0, sizeof *d);
    uint32_t *seen = ts_calloc(nv ? nv : 1, sizeof *seen);
    d->cap = ts_malloc(nn, sizeof *d->cap);
    d->off = ts_malloc((size_t)nn + 1, sizeof *d->off);
    d->nodes = ts_malloc(nn, sizeof *d->nodes);
    if (!seen || !d->cap || !d->off || !d->nodes) {
        free(seen);
        domains_free(d);
        return TSCHED_E_NOMEM;
    }
    uint32_t len = 0;
    d->off[0] = 0;
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t v = tsched_topology_node_nvl(t, n), before = len;
        if (v == TSCHED_NONE) {
            if (eligible(t, n, gpn, cand))
                d->nodes[len++] = n;
        } else if (!seen[v]) {
            /* the domain's free nodes, index order, into the tail of d->nodes (it has room:
             * they are not placed yet), then kept where eligible */
            seen[v] = 1;
            size_t cnt = 0, room = nn - len;
            tsched_status st = tsched_topology_free_nodes(d->nodes + len, room, &cnt, t, TSCHED_LEVEL_NVL, v);
            if (st != TSCHED_OK) {
                free(seen);
                domains_free(d);
                return st;
            }
            for (size_t i = 0; i < cnt; i++)
                if (eligible(t, d->nodes[before + i], gpn, cand))
                    d->nodes[len++] = d->nodes[before + i];
        }
        if (len > before) {
            d->cap[d->n] = len - before;
            d->off[++d->n] = len;
        }
    }
    free(seen);
    return TSCHED_OK;
}

static tsched_status build_domains(domains *d, const tsched_topology *t, tsched_domain level, uint32_t gpn,
                                   const uint8_t *cand)
{
    if (level == TSCHED_DOMAIN_NVL)
        return build_nvl_domains(d, t, gpn, cand);
    uint32_t nn = tsched_topology_num_nodes(t), nleaves = tsched_topology_num_tier(t, TSCHED_TIER_LEAF);
    uint32_t nd = level == TSCHED_DOMAIN_POD ? tsched_topology_num_pods(t) : nleaves;
    memset(d, 0, sizeof *d);
    leaf_key *keys = ts_malloc(nleaves, sizeof *keys);
    d->cap = ts_malloc(nd, sizeof *d->cap);
    d->off = ts_malloc((size_t)nd + 1, sizeof *d->off);
    d->nodes = ts_malloc(nn, sizeof *d->nodes);
    if (!keys || !d->cap || !d->off || !d->nodes) {
        free(keys);
        domains_free(d);
        return TSCHED_E_NOMEM;
    }
    uint32_t len = 0;
    d->off[0] = 0;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t nl = 0, before = len;
        if (level == TSCHED_DOMAIN_POD) {
            uint32_t cnt;
            const uint32_t *leaves = tsched_topology_pod_leaves(t, i, &cnt);
            for (uint32_t j = 0; j < cnt; j++)
                keys[nl++] = (leaf_key){leaves[j], leaf_eligible(t, leaves[j], gpn, cand)};
            qsort(keys, nl, sizeof *keys, cmp_leaf_key);
        } else {
            uint32_t leaf = tsched_topology_tier_switch(t, TSCHED_TIER_LEAF, i);
            keys[nl++] = (leaf_key){leaf, 0};
        }
        take_leaves(d, &len, t, keys, nl, gpn, cand);
        if (len > before) { /* keep non-empty domains only */
            d->cap[d->n] = len - before;
            d->off[++d->n] = len;
        }
    }
    free(keys);
    return TSCHED_OK;
}


/* Edge weights for topo-aware: the job's App. C volumes when it has a model. */
static void job_weights(double *w_dp, double *w_pp, const tsched_job *job)
{
    tsched_volumes v = {.size = sizeof v};
    *w_dp = *w_pp = 1.0;
    if (tsched_job_volumes(&v, job) == TSCHED_OK && v.dp > 0 && v.pp > 0) {
        *w_dp = v.dp;
        *w_pp = v.pp * (v.microbatches > 0 ? v.microbatches : 1);
    }
    tsched_clear_error();
}

static tsched_status run_solver(uint32_t *dom, int *optimal, tsched_place_algo algo, const ts_pproblem *p)
{
    *optimal = 0;
    switch (algo) {
    case TSCHED_PLACE_MIP: return ts_solve_mip(dom, optimal, p);
    case TSCHED_PLACE_EXHAUSTIVE: return ts_solve_exhaustive(dom, optimal, p);
    case TSCHED_PLACE_BEST_FIT: return ts_solve_best_fit(dom, p);
    case TSCHED_PLACE_RANDOM_FIT: return ts_solve_random_fit(dom, p);
    case TSCHED_PLACE_GPU_PACK: return ts_solve_gpu_pack(dom, p);
    case TSCHED_PLACE_TOPO_AWARE: return ts_solve_topo_aware(dom, p);
    }
    return ts_error(TSCHED_E_INVALID, "algo: unknown placement algorithm %d", (int)algo);
}

static tsched_status resolve(ts_pproblem *p, tsched_domain *level, uint32_t *gpn, const tsched_topology *t,
                             const tsched_job *job, const tsched_place_options *o, const uint8_t *cand)
{
    tsched_status st;
    *gpn = o->gpus_per_node ? o->gpus_per_node : common_gpus(t, cand);
    if ((st = tsched_job_matrix(&p->rows, &p->cols, job, *gpn)) != TSCHED_OK)
        return st;
    if (isnan(o->alpha))
        return ts_error(TSCHED_E_RANGE, "alpha: NaN is not a number in [0, 1] (or < 0: the job's alpha)");
    if (o->alpha >= 0) {
        if (!(o->alpha <= 1))
            return ts_error(TSCHED_E_RANGE, "alpha: %g is out of range [0, 1]", o->alpha);
        p->alpha = o->alpha;
    } else {
        /* the GPU type of the nodes this job would run on */
        const char *type = NULL;
        for (uint32_t n = 0; n < tsched_topology_num_nodes(t) && !type; n++)
            if ((!cand || cand[n]) && tsched_topology_node_gpus(t, n) == *gpn)
                type = tsched_topology_node_gpu_type(t, n);
        if ((st = tsched_job_resolve_alpha(&p->alpha, job, NULL, type ? type : "GPU")) != TSCHED_OK)
            return st;
    }
    int unit = o->unit >= 0 ? o->unit : (int)tsched_job_unit(job);
    if (unit != TSCHED_UNIT_PP && unit != TSCHED_UNIT_DP)
        return ts_error(TSCHED_E_RANGE, "unit: unknown value %d", unit);
    p->unit = (tsched_unit)unit;
    int dl = o->domain >= 0 ? o->domain : (int)tsched_job_domain(job);
    if (dl == TSCHED_DOMAIN_AUTO)
        dl = tsched_topology_num_pods(t) > 0 ? TSCHED_DOMAIN_POD : TSCHED_DOMAIN_LEAF;
    if (dl != TSCHED_DOMAIN_POD && dl != TSCHED_DOMAIN_LEAF && dl != TSCHED_DOMAIN_NVL)
        return ts_error(TSCHED_E_RANGE, "domain: unknown value %d", dl);
    if (dl == TSCHED_DOMAIN_POD && tsched_topology_num_pods(t) == 0)
        return ts_error(TSCHED_E_INVALID, "domain: \"pod\" asked for, but fabric \"%s\" has no pods",
                        tsched_topology_name(t));
    *level = (tsched_domain)dl;
    p->time_limit_ms = o->time_limit_ms ? o->time_limit_ms : 10000;
    p->seed = o->seed;
    job_weights(&p->w_dp, &p->w_pp, job);
    return TSCHED_OK;
}

tsched_status tsched_place(tsched_placement **out, const tsched_topology *t, const tsched_job *job,
                           const tsched_place_options *opts)
{
    tsched_status st;
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_place: out is NULL");
    *out = NULL;
    if (!t || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_place: topology or job is NULL");
    static const ts_span spans[] = {
        TS_SPAN(tsched_place_options, size),          TS_SPAN(tsched_place_options, algo),
        TS_SPAN(tsched_place_options, alpha),         TS_SPAN(tsched_place_options, unit),
        TS_SPAN(tsched_place_options, domain),        TS_SPAN(tsched_place_options, seed),
        TS_SPAN(tsched_place_options, time_limit_ms), TS_SPAN(tsched_place_options, gpus_per_node),
        TS_SPAN(tsched_place_options, nodes),         TS_SPAN(tsched_place_options, num_nodes),
    };
    tsched_place_options merged;
    tsched_place_options_init(&merged);
    if (opts && (st = ts_struct_in(&merged, opts, spans, TS_NSPANS(spans), sizeof merged, "tsched_place_options")))
        return st;
    const tsched_place_options *o = &merged;
    ts_pproblem p;
    memset(&p, 0, sizeof p);
    tsched_domain level = TSCHED_DOMAIN_POD;
    uint32_t gpn = 0;
    uint8_t *cand;
    if ((st = candidate_mask(&cand, t, o)) != TSCHED_OK)
        return st;
    domains d;
    if ((st = resolve(&p, &level, &gpn, t, job, o, cand)) != TSCHED_OK ||
        (st = build_domains(&d, t, level, gpn, cand)) != TSCHED_OK) {
        free(cand);
        return st;
    }
    free(cand);
    size_t cells = (size_t)p.rows * p.cols;
    uint32_t total = d.off[d.n];
    if (total < cells) {
        domains_free(&d);
        if (o->num_nodes)
            return ts_error(TSCHED_E_INFEASIBLE,
                            "placement: job \"%s\" needs %zu nodes of %u GPUs (%u x %u matrix); only %u of the %u "
                            "candidate nodes (nodes[]) are such nodes, up and entirely free",
                            tsched_job_name(job), cells, gpn, p.rows, p.cols, total, o->num_nodes);
        return ts_error(TSCHED_E_INFEASIBLE,
                        "placement: job \"%s\" needs %zu nodes of %u GPUs (%u x %u matrix); only %u such nodes are up "
                        "and entirely free",
                        tsched_job_name(job), cells, gpn, p.rows, p.cols, total);
    }
    if (o->algo == TSCHED_PLACE_EXHAUSTIVE && (cells > TS_EXHAUSTIVE_MAX_CELLS || d.n > TS_EXHAUSTIVE_MAX_DOMAINS)) {
        domains_free(&d);
        return ts_error(TSCHED_E_INVALID,
                        "algo: exhaustive handles up to %u nodes and %u domains; this job has %zu nodes over %u domains",
                        TS_EXHAUSTIVE_MAX_CELLS, TS_EXHAUSTIVE_MAX_DOMAINS, cells, d.n);
    }
    p.ndom = d.n;
    p.cap = d.cap;
    tsched_placement *pl = ts_calloc(1, sizeof *pl);
    uint32_t *dom = ts_malloc(cells, sizeof *dom), *next = ts_malloc(d.n, sizeof *next);
    if (!pl || !dom || !next || !(pl->nodes = ts_malloc(cells, sizeof *pl->nodes))) {
        st = TSCHED_E_NOMEM;
        goto fail;
    }
    int optimal;
    double t0 = ts_now_ms();
    if ((st = run_solver(dom, &optimal, o->algo, &p)) != TSCHED_OK)
        goto fail;
    pl->solve_ms = ts_now_ms() - t0;
    /* concrete nodes: cells unit by unit, each domain's nodes leaf by leaf */
    memcpy(next, d.off, d.n * sizeof *next);
    uint32_t outer = p.unit == TSCHED_UNIT_PP ? p.rows : p.cols, inner = p.unit == TSCHED_UNIT_PP ? p.cols : p.rows;
    for (uint32_t a = 0; a < outer; a++)
        for (uint32_t b = 0; b < inner; b++) {
            size_t cell = p.unit == TSCHED_UNIT_PP ? (size_t)a * p.cols + b : (size_t)b * p.cols + a;
            uint32_t k = dom[cell];
            if (k >= d.n || next[k] >= d.off[k + 1]) {
                st = ts_error(TSCHED_E_INTERNAL, "placement: solver %s overfilled domain %u",
                              tsched_place_algo_name(o->algo), k);
                goto fail;
            }
            pl->nodes[cell] = d.nodes[next[k]++];
        }
    ts_metric m;
    if ((st = ts_metric_eval(&m, dom, p.rows, p.cols, d.n, p.alpha)) != TSCHED_OK)
        goto fail;
    pl->rows = p.rows;
    pl->cols = p.cols;
    pl->fabric_id = tsched_topology_id(t);
    pl->fabric_gen = tsched_topology_generation(t);
    pl->algo = o->algo;
    pl->status = optimal ? TSCHED_PLACE_OPTIMAL : TSCHED_PLACE_FEASIBLE;
    pl->domain = level;
    pl->alpha = p.alpha;
    pl->dp_max = m.dp_max;
    pl->pp_max = m.pp_max;
    pl->domains_used = m.used;
    pl->weighted = m.weighted;
    free(dom);
    free(next);
    domains_free(&d);
    *out = pl;
    return TSCHED_OK;
fail:
    free(dom);
    free(next);
    domains_free(&d);
    tsched_placement_free(pl);
    return st;
}

void tsched_placement_free(tsched_placement *p)
{
    if (!p)
        return;
    free(p->nodes);
    free(p);
}

uint32_t tsched_placement_rows(const tsched_placement *p) { return p ? p->rows : 0; }
uint32_t tsched_placement_cols(const tsched_placement *p) { return p ? p->cols : 0; }
uint32_t tsched_placement_node(const tsched_placement *p, uint32_t r, uint32_t c)
{
    return p && r < p->rows && c < p->cols ? p->nodes[(size_t)r * p->cols + c] : TSCHED_NONE;
}
uint32_t tsched_placement_rank(const tsched_placement *p, uint32_t r, uint32_t c)
{
    return p && r < p->rows && c < p->cols ? c * p->rows + r : TSCHED_NONE;
}
tsched_place_status tsched_placement_status(const tsched_placement *p) { return p ? p->status : TSCHED_PLACE_FEASIBLE; }
tsched_place_algo tsched_placement_algo(const tsched_placement *p) { return p ? p->algo : TSCHED_PLACE_MIP; }
uint32_t tsched_placement_dp_max(const tsched_placement *p) { return p ? p->dp_max : 0; }
uint32_t tsched_placement_pp_max(const tsched_placement *p) { return p ? p->pp_max : 0; }
double tsched_placement_weighted(const tsched_placement *p) { return p ? p->weighted : 0; }
double tsched_placement_alpha(const tsched_placement *p) { return p ? p->alpha : 0; }
uint32_t tsched_placement_domains_used(const tsched_placement *p) { return p ? p->domains_used : 0; }
double tsched_placement_solve_ms(const tsched_placement *p) { return p ? p->solve_ms : 0; }
