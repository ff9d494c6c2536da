/* The Cell-based scheduler (doc/cell.md §5-§6): state, jobs, running jobs, getters.
 * The scheduling itself is in crius_sched.c, the counters and placement rule in
 * crius_fit.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "crius_internal.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct leaf_key {
    uint32_t leaf, node;
} leaf_key;

static int cmp_leaf_key(const void *a, const void *b)
{
    const leaf_key *x = a, *y = b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Group pool p's nodes by leaf (leaf index order, node index order inside). */
static tsched_status build_pool_leaves(cr_pool *cp, const ts_pool *p, const tsched_topology *topo)
{
    uint32_t n = p->nnodes;
    leaf_key *k = ts_malloc(n ? n : 1, sizeof *k);
    cp->leaf_nodes = ts_malloc(n ? n : 1, sizeof *cp->leaf_nodes);
    cp->leaf_start = ts_malloc((size_t)n + 1, sizeof *cp->leaf_start);
    cp->leaf_id = ts_malloc(n ? n : 1, sizeof *cp->leaf_id);
    cp->scratch_cnt = ts_malloc(n ? n : 1, sizeof *cp->scratch_cnt);
    cp->scratch_key = ts_malloc(n ? n : 1, sizeof *cp->scratch_key);
    cp->cnt = ts_calloc((size_t)cp->G + 1, sizeof *cp->cnt);
    if (!k || !cp->leaf_nodes || !cp->leaf_start || !cp->leaf_id || !cp->scratch_cnt || !cp->scratch_key ||
        !cp->cnt) {
        free(k);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        k[i].leaf = tsched_topology_node_leaf(topo, p->nodes[i]);
        k[i].node = p->nodes[i];
    }
    qsort(k, n, sizeof *k, cmp_leaf_key);
    cp->nleaves = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || k[i].leaf != k[i - 1].leaf) {
            cp->leaf_id[cp->nleaves] = k[i].leaf;
            cp->leaf_start[cp->nleaves++] = i;
        }
        cp->leaf_nodes[i] = k[i].node;
    }
    cp->leaf_start[cp->nleaves] = n;
    free(k);
    return TSCHED_OK;
}

tsched_status tsched_crius_new(tsched_crius **out, const tsched_topology *topo, const tsched_gpu_catalog *cat)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_new: out is NULL");
    *out = NULL;
    if (!topo || !cat)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_new: %s is NULL", !topo ? "topo" : "cat");
    tsched_crius *cr = ts_calloc(1, sizeof *cr);
    if (!cr)
        return TSCHED_E_NOMEM;
    cr->depth = 3;
    cr->objective = TSCHED_CRIUS_NORMALIZED;
    ts_strtab_init(&cr->node_tab);
    ts_strtab_init(&cr->names);
    tsched_status st = ts_catalog_clone(&cr->cat, cat);
    if (st == TSCHED_OK)
        st = ts_pools_build(&cr->pools, topo);
    if (st != TSCHED_OK) {
        tsched_crius_free(cr);
        return st;
    }
    uint32_t n = tsched_topology_num_nodes(topo);
    cr->nnodes = n;
    cr->node_pool = ts_malloc(n ? n : 1, sizeof *cr->node_pool);
    cr->node_G = ts_malloc(n ? n : 1, sizeof *cr->node_G);
    cr->node_up = ts_malloc(n ? n : 1, sizeof *cr->node_up);
    cr->free = ts_malloc(n ? n : 1, sizeof *cr->free);
    cr->held = ts_calloc(n ? n : 1, sizeof *cr->held);
    cr->cp = ts_calloc(cr->pools.n ? cr->pools.n : 1, sizeof *cr->cp);
    cr->unknown = ts_calloc(cr->pools.n ? cr->pools.n : 1, sizeof *cr->unknown);
    if (!cr->node_pool || !cr->node_G || !cr->node_up || !cr->free || !cr->held || !cr->cp || !cr->unknown) {
        tsched_crius_free(cr);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        if ((st = ts_strtab_intern(&cr->node_tab, tsched_topology_node_name(topo, i), &id, NULL)) != TSCHED_OK) {
            tsched_crius_free(cr);
            return st;
        }
        cr->node_pool[i] = CR_NONE;
        cr->node_G[i] = tsched_topology_node_gpus(topo, i);
        cr->node_up[i] = (uint8_t)(tsched_topology_node_is_up(topo, i) != 0);
        cr->free[i] = tsched_topology_node_free_gpus(topo, i);
        if (cr->free[i] > cr->node_G[i])
            cr->free[i] = cr->node_G[i];
    }
    for (uint32_t p = 0; p < cr->pools.n; p++) {
        const ts_pool *pp = &cr->pools.p[p];
        cr_pool *cp = &cr->cp[p];
        cp->G = pp->G;
        cp->gpu = ts_catalog_find(cr->cat, pp->gpu_type);
        cp->known = cp->gpu != NULL;
        if (!cp->known) {
            /* name order of pools is not name order of types: sort and dedupe below */
            int dup = 0;
            for (uint32_t u = 0; u < cr->nunknown; u++)
                dup |= strcmp(cr->unknown[u], pp->gpu_type) == 0;
            if (!dup) {
                if (!(cr->unknown[cr->nunknown] = ts_strdup(pp->gpu_type))) {
                    tsched_crius_free(cr);
                    return TSCHED_E_NOMEM;
                }
                cr->nunknown++;
            }
        }
        for (uint32_t i = 0; i < pp->nnodes; i++)
            cr->node_pool[pp->nodes[i]] = p;
        if ((st = build_pool_leaves(cp, pp, topo)) != TSCHED_OK) {
            tsched_crius_free(cr);
            return st;
        }
    }
    qsort(cr->unknown, cr->nunknown, sizeof *cr->unknown, cmp_str);
    *out = cr;
    return TSCHED_OK;
}

static void job_free_contents(cr_job *jb)
{
    free(jb->name);
    for (uint32_t o = 0; o < jb->nopts; o++)
        tsched_cell_free(jb->opts[o].cell);
    free(jb->opts);
    tsched_cell_free(jb->g_cell);
    free(jb->nodes);
    free(jb->node_gpus);
    memset(jb, 0, sizeof *jb);
}

void tsched_crius_free(tsched_crius *cr)
{
    if (!cr)
        return;
    for (uint32_t j = 0; j < cr->njobs; j++)
        job_free_contents(&cr->jobs[j]);
    free(cr->jobs);
    free(cr->name_job);
    ts_strtab_free(&cr->names);
    ts_strtab_free(&cr->node_tab);
    for (uint32_t p = 0; cr->cp && p < cr->pools.n; p++) {
        cr_pool *cp = &cr->cp[p];
        free(cp->leaf_start);
        free(cp->leaf_nodes);
        free(cp->leaf_id);
        free(cp->scratch_cnt);
        free(cp->scratch_key);
        free(cp->cnt);
    }
    free(cr->cp);
    for (uint32_t u = 0; cr->unknown && u < cr->nunknown; u++)
        free(cr->unknown[u]);
    free(cr->unknown);
    ts_pools_free(&cr->pools);
    tsched_gpu_catalog_free(cr->cat);
    free(cr->node_pool);
    free(cr->node_G);
    free(cr->node_up);
    free(cr->free);
    free(cr->held);
    free(cr->vfree);
    free(cr->vopt);
    free(cr->voff);
    free(cr->vcnt);
    free(cr->vrun);
    free(cr->arena_node);
    free(cr->arena_gpus);
    free(cr->log);
    free(cr);
}

tsched_status tsched_crius_set_depth(tsched_crius *cr, uint32_t depth)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_set_depth: cr is NULL");
    if (depth > 16)
        return ts_error(TSCHED_E_RANGE, "depth: %u is out of range [0, 16]", depth);
    cr->depth = depth;
    return TSCHED_OK;
}

tsched_status tsched_crius_set_objective(tsched_crius *cr, tsched_crius_objective obj)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_set_objective: cr is NULL");
    if (obj != TSCHED_CRIUS_NORMALIZED && obj != TSCHED_CRIUS_THROUGHPUT)
        return ts_error(TSCHED_E_INVALID, "objective: %d is not normalized (0) or throughput (1)", (int)obj);
    if (obj != cr->objective) {
        cr->objective = obj;
        for (uint32_t j = 0; j < cr->njobs; j++)
            for (uint32_t o = 0; o < cr->jobs[j].nopts; o++)
                cr->jobs[j].opts[o].term = cr_term(cr, &cr->jobs[j], cr->jobs[j].opts[o].thr);
    }
    return TSCHED_OK;
}

double cr_term(const tsched_crius *cr, const cr_job *jb, double thr)
{
    if (cr->objective == TSCHED_CRIUS_THROUGHPUT)
        return thr;
    return jb->ref > 0 ? thr / jb->ref : 0;
}

tsched_status cr_add(uint32_t *index, tsched_crius *cr, const char *name, uint32_t gpus, const tsched_model *m,
                     double submit)
{
    if (!isfinite(submit) || submit < 0)
        return ts_error(TSCHED_E_RANGE, "submit: %g is out of range (>= 0)", submit);
    if (gpus < 1)
        return ts_error(TSCHED_E_RANGE, "gpus: 0 is out of range (>= 1)");
    /* 2 N_G must stay within the estimator's Cell size */
    if (gpus > TS_CELL_MAX_GPUS / 2)
        return ts_error(TSCHED_E_TOO_LARGE, "gpus: %u is above the scheduler's limit of %u per job", gpus,
                        TS_CELL_MAX_GPUS / 2);
    /* v1 of the scheduler takes no op profiles, and the cost model rejects MoE without one */
    if (m->moe_experts > 0)
        return ts_error(TSCHED_E_RANGE, "model.moe_experts: MoE is not in the cell cost model; supply an op profile");
    if (!m->hidden || !m->layers || !m->vocab || !m->seq || !m->global_batch)
        return ts_error(TSCHED_E_RANGE, "model.%s: must be at least 1, got 0",
                        !m->hidden ? "hidden" : !m->layers ? "layers" : !m->vocab ? "vocab" : !m->seq ? "seq"
                                                                                                : "global_batch");
    uint32_t id;
    int added;
    tsched_status st = ts_strtab_intern(&cr->names, name, &id, &added);
    if (st != TSCHED_OK)
        return st;
    if ((st = TS_GROW(cr->name_job, cr->name_job_cap, (size_t)id + 1)) != TSCHED_OK)
        return st;
    if (added)
        cr->name_job[id] = CR_NONE;
    if (cr->name_job[id] != CR_NONE)
        return ts_error(TSCHED_E_DUPLICATE, "name: a job named \"%s\" is already queued", name);
    if ((st = TS_GROW(cr->jobs, cr->jobs_cap, (size_t)cr->njobs + 1)) != TSCHED_OK)
        return st;
    if (cr->njobs == UINT32_MAX - 1)
        return ts_error(TSCHED_E_TOO_LARGE, "jobs: too many");
    cr_job *jb = &cr->jobs[cr->njobs];
    memset(jb, 0, sizeof *jb);
    if (!(jb->name = ts_strdup(name)))
        return TSCHED_E_NOMEM;
    jb->name_id = id;
    jb->ng = gpus;
    jb->hidden = m->hidden;
    jb->layers = m->layers;
    jb->vocab = m->vocab;
    jb->seq = m->seq;
    jb->gb = m->global_batch;
    jb->submit = submit;
    jb->opt = CR_NONE;
    jb->reason = "not scheduled yet";
    cr->name_job[id] = cr->njobs;
    if (index)
        *index = cr->njobs;
    cr->njobs++;
    return TSCHED_OK;
}

tsched_status tsched_crius_add_job(uint32_t *index, tsched_crius *cr, const tsched_job *job, double submit)
{
    if (!cr || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_add_job: %s is NULL", !cr ? "cr" : "job");
    tsched_model m;
    tsched_model_init(&m);
    if (tsched_job_model(&m, job) != TSCHED_OK)
        return ts_error(TSCHED_E_NOT_FOUND, "model: missing; a Cell estimate needs the model");
    return cr_add(index, cr, tsched_job_name(job), tsched_job_gpus(job), &m, submit);
}

static ts_cell_in cell_in(const tsched_crius *cr, const cr_job *jb, uint32_t p)
{
    ts_cell_in in;
    memset(&in, 0, sizeof in);
    in.pool = cr->pools.p[p].name;
    in.gpu = cr->cp[p].gpu;
    in.G = cr->pools.p[p].G;
    in.U_gbps = cr->pools.p[p].U_gbps;
    in.hidden = jb->hidden;
    in.layers = jb->layers;
    in.vocab = jb->vocab;
    in.seq = jb->seq;
    in.global_batch = jb->gb;
    in.moe_experts = 0;
    in.profile = NULL;
    return in;
}

tsched_status cr_estimate(tsched_cell **out, const tsched_crius *cr, const cr_job *jb, uint32_t p, uint32_t N,
                          uint32_t S)
{
    ts_cell_in in = cell_in(cr, jb, p);
    return ts_cell_estimate_in(out, &in, N, S, TSCHED_PLANS_ASSEMBLED);
}

tsched_status cr_set_running(tsched_crius *cr, uint32_t job, const char *pool, uint32_t n_gpus, uint32_t stages,
                             const uint32_t *nodes, const uint32_t *node_gpus, uint32_t count)
{
    if (job >= cr->njobs || cr->jobs[job].removed)
        return ts_error(TSCHED_E_NOT_FOUND, "job: no job %u", job);
    cr_job *jb = &cr->jobs[job];
    if (jb->running || jb->given)
        return ts_error(TSCHED_E_STATE, "job \"%s\": already running", jb->name);
    uint32_t p = ts_pools_find(&cr->pools, pool);
    if (p == UINT32_MAX)
        return ts_error(TSCHED_E_NOT_FOUND, "pool: no pool \"%s\" in the fabric", pool);
    if (!cr->cp[p].known)
        return ts_error(TSCHED_E_NOT_FOUND, "pool: \"%s\" has gpu type \"%s\", which is not in the catalogue", pool,
                        cr->pools.p[p].gpu_type);
    if (n_gpus < 1)
        return ts_error(TSCHED_E_INVALID, "gpus: 0 is out of range (>= 1)");
    if (stages < 1)
        return ts_error(TSCHED_E_INVALID, "stages: 0 is out of range (>= 1)");
    if (count < 1)
        return ts_error(TSCHED_E_INVALID, "nodes: empty");
    uint64_t sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t n = nodes[i];
        if (n >= cr->nnodes)
            return ts_error(TSCHED_E_NOT_FOUND, "nodes[%u]: no node %u", i, n);
        const char *nm = ts_strtab_str(&cr->node_tab, n);
        if (cr->node_pool[n] != p)
            return ts_error(TSCHED_E_INVALID, "nodes[%u]: node \"%s\" is in pool \"%s\", not \"%s\"", i, nm,
                            cr->node_pool[n] == CR_NONE ? "(none)" : cr->pools.p[cr->node_pool[n]].name, pool);
        for (uint32_t k = 0; k < i; k++)
            if (nodes[k] == n)
                return ts_error(TSCHED_E_INVALID, "nodes[%u]: node \"%s\" listed twice", i, nm);
        uint32_t g = node_gpus[i];
        if (g < 1 || g > cr->node_G[n])
            return ts_error(TSCHED_E_INVALID, "nodes[%u].gpus: %u is out of range [1, %u] for node \"%s\"", i, g,
                            cr->node_G[n], nm);
        uint32_t busy = cr->node_G[n] - cr->free[n] - cr->held[n];
        if (g > busy) {
            if (cr->held[n] == 0 || g > cr->node_G[n] - cr->free[n])
                return ts_error(TSCHED_E_STATE,
                                "nodes[%u]: node \"%s\" has %u busy GPUs in the fabric, the job holds %u: the fabric "
                                "says they are free",
                                i, nm, cr->node_G[n] - cr->free[n], g);
            return ts_error(TSCHED_E_STATE, "nodes[%u]: GPUs of node \"%s\" are held by another running job", i, nm);
        }
        sum += g;
    }
    if (sum != n_gpus)
        return ts_error(TSCHED_E_INVALID, "nodes: GPUs sum to %llu, not gpus %u", (unsigned long long)sum, n_gpus);
    tsched_cell *cell = NULL;
    tsched_status st = cr_estimate(&cell, cr, jb, p, n_gpus, stages);
    if (st != TSCHED_OK)
        return st;
    if (!tsched_cell_feasible(cell)) {
        /* a running job's Cell is one of its options (design/cell.md): one the model cannot
         * run (more stages than layers or GPUs, GPUs off the node size, memory) is an input
         * error, whatever the depth of the search that would otherwise move it */
        st = ts_error(TSCHED_E_INVALID, "stages: the Cell %s/%u/%u of job \"%s\" is infeasible (%s)", pool, n_gpus,
                      stages, jb->name, tsched_cell_reason(cell));
        tsched_cell_free(cell);
        return st;
    }
    uint32_t *nn = ts_malloc(count, sizeof *nn), *ng = ts_malloc(count, sizeof *ng);
    if (!nn || !ng) {
        free(nn);
        free(ng);
        tsched_cell_free(cell);
        return TSCHED_E_NOMEM;
    }
    /* ascending node order (count is small: insertion sort) */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t k = i;
        while (k > 0 && nn[k - 1] > nodes[i]) {
            nn[k] = nn[k - 1];
            ng[k] = ng[k - 1];
            k--;
        }
        nn[k] = nodes[i];
        ng[k] = node_gpus[i];
    }
    for (uint32_t i = 0; i < count; i++)
        cr->held[nodes[i]] += node_gpus[i];
    jb->given = 1;
    jb->g_pool = p;
    jb->g_N = n_gpus;
    jb->g_S = stages;
    jb->g_cell = cell;
    jb->running = 1;
    jb->reason = "";
    jb->nnodes = count;
    jb->nodes = nn;
    jb->node_gpus = ng;
    if (jb->has_opts) {
        /* options were built without this Cell: rebuild them at the next event */
        for (uint32_t o = 0; o < jb->nopts; o++)
            tsched_cell_free(jb->opts[o].cell);
        free(jb->opts);
        jb->opts = NULL;
        jb->nopts = 0;
        jb->has_opts = 0;
    }
    return TSCHED_OK;
}

tsched_status tsched_crius_set_running(tsched_crius *cr, uint32_t job, const char *pool, uint32_t n_gpus,
                                       uint32_t stages, const uint32_t *nodes, const uint32_t *node_gpus,
                                       uint32_t count)
{
    if (!cr || !pool || !nodes || !node_gpus)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_set_running: %s is NULL",
                        !cr ? "cr" : !pool ? "pool" : !nodes ? "nodes" : "node_gpus");
    return cr_set_running(cr, job, pool, n_gpus, stages, nodes, node_gpus, count);
}

static void release_committed(tsched_crius *cr, cr_job *jb)
{
    for (uint32_t i = 0; i < jb->nnodes; i++) {
        cr->free[jb->nodes[i]] += jb->node_gpus[i];
        cr->held[jb->nodes[i]] -= jb->node_gpus[i];
    }
}

void cr_truncate(tsched_crius *cr, uint32_t n)
{
    while (cr->njobs > n) {
        cr_job *jb = &cr->jobs[--cr->njobs];
        if (jb->running && jb->given)
            for (uint32_t i = 0; i < jb->nnodes; i++)
                cr->held[jb->nodes[i]] -= jb->node_gpus[i];
        else if (jb->running)
            release_committed(cr, jb);
        cr->name_job[jb->name_id] = CR_NONE;
        job_free_contents(jb);
    }
}

tsched_status tsched_crius_remove_job(tsched_crius *cr, uint32_t job)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_remove_job: cr is NULL");
    if (job >= cr->njobs)
        return ts_error(TSCHED_E_NOT_FOUND, "job: no job %u", job);
    cr_job *jb = &cr->jobs[job];
    if (jb->removed)
        return ts_error(TSCHED_E_NOT_FOUND, "job: job %u (\"%s\") was already removed", job, jb->name);
    if (jb->running)
        release_committed(cr, jb);
    cr->name_job[jb->name_id] = CR_NONE;
    char *name = jb->name;
    uint32_t name_id = jb->name_id;
    double submit = jb->submit;
    jb->name = NULL;
    job_free_contents(jb);
    jb->name = name;
    jb->name_id = name_id;
    jb->submit = submit;
    jb->removed = 1;
    jb->opt = CR_NONE;
    jb->reason = "removed";
    return TSCHED_OK;
}

/* ---- getters ---- */

uint32_t tsched_crius_num_jobs(const tsched_crius *cr) { return cr ? cr->njobs : 0; }

const char *tsched_crius_job_name(const tsched_crius *cr, uint32_t job)
{
    return cr && job < cr->njobs ? cr->jobs[job].name : NULL;
}

int tsched_crius_job_running(const tsched_crius *cr, uint32_t job)
{
    return cr && job < cr->njobs && !cr->jobs[job].removed && cr->jobs[job].running;
}

int tsched_crius_job_changed(const tsched_crius *cr, uint32_t job)
{
    return cr && job < cr->njobs && !cr->jobs[job].removed && cr->jobs[job].changed;
}

const char *tsched_crius_job_reason(const tsched_crius *cr, uint32_t job)
{
    if (!cr || job >= cr->njobs)
        return NULL;
    return cr->jobs[job].running ? "" : cr->jobs[job].reason;
}

double tsched_crius_job_reference(const tsched_crius *cr, uint32_t job)
{
    return cr && job < cr->njobs && !cr->jobs[job].removed ? cr->jobs[job].ref : 0;
}

/* The running job's Cell: its committed option's, or the given Cell before any event. */
const tsched_cell *cr_job_cell(const tsched_crius *cr, uint32_t job)
{
    const cr_job *jb = &cr->jobs[job];
    if (!jb->running)
        return NULL;
    return jb->opt != CR_NONE ? jb->opts[jb->opt].cell : jb->g_cell;
}

tsched_status tsched_crius_job_cell(const tsched_cell **cell, const tsched_crius *cr, uint32_t job)
{
    if (!cell || !cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_job_cell: %s is NULL", !cell ? "cell" : "cr");
    *cell = NULL;
    if (job >= cr->njobs)
        return ts_error(TSCHED_E_INVALID, "job: %u is out of range (%u jobs)", job, cr->njobs);
    if (!tsched_crius_job_running(cr, job))
        return ts_error(TSCHED_E_STATE, "job \"%s\": not running (%s)", cr->jobs[job].name, cr->jobs[job].reason);
    *cell = cr_job_cell(cr, job);
    return TSCHED_OK;
}

tsched_status tsched_crius_job_nodes(uint32_t *nodes, uint32_t *node_gpus, size_t cap, size_t *count,
                                     const tsched_crius *cr, uint32_t job)
{
    if (!count || !cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_job_nodes: %s is NULL", !count ? "count" : "cr");
    *count = 0;
    if (job >= cr->njobs)
        return ts_error(TSCHED_E_INVALID, "job: %u is out of range (%u jobs)", job, cr->njobs);
    const cr_job *jb = &cr->jobs[job];
    if (!tsched_crius_job_running(cr, job))
        return ts_error(TSCHED_E_STATE, "job \"%s\": not running (%s)", jb->name, jb->reason);
    *count = jb->nnodes;
    if (cap < jb->nnodes)
        return ts_error(TSCHED_E_BUFFER, "tsched_crius_job_nodes: cap %zu is less than the %u nodes of job \"%s\"", cap,
                        jb->nnodes, jb->name);
    if (jb->nnodes && (!nodes || !node_gpus))
        return ts_error(TSCHED_E_INVALID, "tsched_crius_job_nodes: %s is NULL", !nodes ? "nodes" : "node_gpus");
    for (uint32_t i = 0; i < jb->nnodes; i++) {
        nodes[i] = jb->nodes[i];
        node_gpus[i] = jb->node_gpus[i];
    }
    return TSCHED_OK;
}

double tsched_crius_value(const tsched_crius *cr) { return cr ? cr->value : 0; }
