/* The scheduler's virtual state: per-pool counters of up nodes by free GPUs, the placement
 * rule of doc/cell.md §5 step 6, and the undo log every change goes through.
 *
 * Placement rule for N GPUs of a pool of G GPUs per node:
 *   N >= G: N / G nodes with all G GPUs free, leaf by leaf (the leaf with the most such nodes
 *           first, ties by leaf index; nodes in index order inside a leaf);
 *   N <  G: the node with the fewest free GPUs that are >= N (ties: lowest index).
 * Which nodes are taken never changes the counters' outcome (N >= G moves N/G nodes from G
 * to 0 free; N < G moves one node from f* to f* - N), so a fit test or a look-ahead runs on
 * the counters alone and only an applied option chooses nodes. Down nodes are not counted:
 * they have no usable GPUs. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "crius_internal.h"

static tsched_status log_push(tsched_crius *cr, cr_log e)
{
    if (cr->log_len == cr->log_cap) {
        tsched_status st = TS_GROW(cr->log, cr->log_cap, cr->log_len + 1);
        if (st != TSCHED_OK)
            return st;
    }
    cr->log[cr->log_len++] = e;
    return TSCHED_OK;
}

tsched_status cr_virtual_reserve(tsched_crius *cr)
{
    size_t nj = cr->njobs ? cr->njobs : 1, nn = cr->nnodes ? cr->nnodes : 1;
    uint32_t *vfree = ts_realloc(cr->vfree, nn, sizeof *vfree);
    if (!vfree)
        return TSCHED_E_NOMEM;
    cr->vfree = vfree;
    uint32_t *a = ts_realloc(cr->vopt, nj, sizeof *a);
    if (!a)
        return TSCHED_E_NOMEM;
    cr->vopt = a;
    if (!(a = ts_realloc(cr->voff, nj, sizeof *a)))
        return TSCHED_E_NOMEM;
    cr->voff = a;
    if (!(a = ts_realloc(cr->vcnt, nj, sizeof *a)))
        return TSCHED_E_NOMEM;
    cr->vcnt = a;
    uint8_t *r = ts_realloc(cr->vrun, nj, sizeof *r);
    if (!r)
        return TSCHED_E_NOMEM;
    cr->vrun = r;
    return TSCHED_OK;
}

static void maxfree_down(cr_pool *cp)
{
    while (cp->maxfree > 0 && cp->cnt[cp->maxfree] == 0)
        cp->maxfree--;
}

void cr_hist_build(tsched_crius *cr)
{
    for (uint32_t p = 0; p < cr->pools.n; p++) {
        cr_pool *cp = &cr->cp[p];
        memset(cp->cnt, 0, ((size_t)cp->G + 1) * sizeof *cp->cnt);
        const ts_pool *pp = &cr->pools.p[p];
        for (uint32_t i = 0; i < pp->nnodes; i++)
            if (cr->node_up[pp->nodes[i]])
                cp->cnt[cr->vfree[pp->nodes[i]]]++;
        cp->maxfree = cp->G;
        maxfree_down(cp);
    }
}

/* Move `k` up nodes of pool p from f free GPUs to t (logged). */
static tsched_status hist_move_k(tsched_crius *cr, uint32_t p, uint32_t f, uint32_t t, uint32_t k)
{
    cr_pool *cp = &cr->cp[p];
    cr_log e = {CR_LOG_HIST, p, f, t, cp->maxfree, k, 0};
    tsched_status st = log_push(cr, e);
    if (st != TSCHED_OK)
        return st;
    cp->cnt[f] -= k;
    cp->cnt[t] += k;
    if (t > cp->maxfree)
        cp->maxfree = t;
    else if (f == cp->maxfree)
        maxfree_down(cp);
    return TSCHED_OK;
}

tsched_status cr_hist_move(tsched_crius *cr, uint32_t p, uint32_t f, uint32_t t)
{
    return hist_move_k(cr, p, f, t, 1);
}

int cr_fits(const tsched_crius *cr, uint32_t p, uint32_t N)
{
    const cr_pool *cp = &cr->cp[p];
    uint32_t G = cp->G;
    if (G == 0 || N == 0)
        return 0;
    if (N >= G)
        return N % G == 0 && cp->cnt[G] >= N / G;
    return cp->maxfree >= N;
}

/* Fewest free GPUs >= N among the pool's up nodes (N < G; the option fits). */
static uint32_t fewest_free(const cr_pool *cp, uint32_t N)
{
    uint32_t f = N;
    while (cp->cnt[f] == 0)
        f++;
    return f;
}

tsched_status cr_hist_place(tsched_crius *cr, uint32_t p, uint32_t N)
{
    const cr_pool *cp = &cr->cp[p];
    if (N >= cp->G)
        return hist_move_k(cr, p, cp->G, 0, N / cp->G);
    uint32_t f = fewest_free(cp, N);
    return hist_move_k(cr, p, f, f - N, 1);
}

tsched_status cr_hist_release(tsched_crius *cr, uint32_t j)
{
    tsched_status st;
    for (uint32_t i = 0; i < cr->vcnt[j]; i++) {
        uint32_t n = cr->arena_node[cr->voff[j] + i], g = cr->arena_gpus[cr->voff[j] + i];
        if (cr->node_up[n] && (st = hist_move_k(cr, cr->node_pool[n], cr->vfree[n], cr->vfree[n] + g, 1)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status log_job(tsched_crius *cr, uint32_t j)
{
    cr_log e = {CR_LOG_JOB, j, cr->vopt[j], cr->voff[j], cr->vcnt[j], cr->vrun[j], cr->vobj};
    return log_push(cr, e);
}

static tsched_status set_free(tsched_crius *cr, uint32_t n, uint32_t v)
{
    cr_log e = {CR_LOG_FREE, n, cr->vfree[n], 0, 0, 0, 0};
    tsched_status st = log_push(cr, e);
    if (st != TSCHED_OK)
        return st;
    cr->vfree[n] = v;
    return TSCHED_OK;
}

tsched_status cr_release(tsched_crius *cr, uint32_t j)
{
    tsched_status st;
    if (!cr->vrun[j])
        return TSCHED_OK;
    for (uint32_t i = 0; i < cr->vcnt[j]; i++) {
        uint32_t n = cr->arena_node[cr->voff[j] + i], g = cr->arena_gpus[cr->voff[j] + i];
        if (cr->node_up[n] && (st = hist_move_k(cr, cr->node_pool[n], cr->vfree[n], cr->vfree[n] + g, 1)) != TSCHED_OK)
            return st;
        if ((st = set_free(cr, n, cr->vfree[n] + g)) != TSCHED_OK)
            return st;
    }
    if ((st = log_job(cr, j)) != TSCHED_OK)
        return st;
    const cr_job *jb = &cr->jobs[j];
    if (cr->vopt[j] != CR_NONE)
        cr->vobj -= jb->opts[cr->vopt[j]].term;
    cr->vrun[j] = 0;
    cr->vopt[j] = CR_NONE;
    cr->vcnt[j] = 0;
    return TSCHED_OK;
}

static tsched_status arena_push(tsched_crius *cr, uint32_t n, uint32_t g)
{
    if (cr->arena_len == cr->arena_cap) {
        size_t cap = cr->arena_cap ? 2 * cr->arena_cap : 256;
        uint32_t *a = ts_realloc(cr->arena_node, cap, sizeof *a);
        if (!a)
            return TSCHED_E_NOMEM;
        cr->arena_node = a;
        if (!(a = ts_realloc(cr->arena_gpus, cap, sizeof *a)))
            return TSCHED_E_NOMEM;
        cr->arena_gpus = a;
        cr->arena_cap = cap;
    }
    cr->arena_node[cr->arena_len] = n;
    cr->arena_gpus[cr->arena_len++] = g;
    return TSCHED_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

tsched_status cr_place(tsched_crius *cr, uint32_t j, uint32_t o)
{
    const cr_job *jb = &cr->jobs[j];
    const cr_opt *op = &jb->opts[o];
    uint32_t p = op->pool, N = op->N;
    cr_pool *cp = &cr->cp[p];
    uint32_t G = cp->G;
    size_t off = cr->arena_len;
    tsched_status st;
    if (N < G) {
        uint32_t f = fewest_free(cp, N);
        const ts_pool *pp = &cr->pools.p[p];
        uint32_t pick = CR_NONE;
        for (uint32_t i = 0; i < pp->nnodes && pick == CR_NONE; i++)
            if (cr->node_up[pp->nodes[i]] && cr->vfree[pp->nodes[i]] == f)
                pick = pp->nodes[i];
        if ((st = arena_push(cr, pick, N)) != TSCHED_OK || (st = hist_move_k(cr, p, f, f - N, 1)) != TSCHED_OK ||
            (st = set_free(cr, pick, f - N)) != TSCHED_OK)
            return st;
    } else {
        uint32_t k = N / G, nk = 0;
        for (uint32_t l = 0; l < cp->nleaves; l++) {
            uint32_t c = 0;
            for (uint32_t i = cp->leaf_start[l]; i < cp->leaf_start[l + 1]; i++) {
                uint32_t n = cp->leaf_nodes[i];
                c += cr->node_up[n] && cr->vfree[n] == G;
            }
            cp->scratch_cnt[l] = c;
            if (c)
                cp->scratch_key[nk++] = ((uint64_t)(UINT32_MAX - c) << 32) | l;
        }
        qsort(cp->scratch_key, nk, sizeof *cp->scratch_key, cmp_u64);
        uint32_t taken = 0;
        for (uint32_t q = 0; q < nk && taken < k; q++) {
            uint32_t l = (uint32_t)(cp->scratch_key[q] & UINT32_MAX);
            for (uint32_t i = cp->leaf_start[l]; i < cp->leaf_start[l + 1] && taken < k; i++) {
                uint32_t n = cp->leaf_nodes[i];
                if (!cr->node_up[n] || cr->vfree[n] != G)
                    continue;
                if ((st = arena_push(cr, n, G)) != TSCHED_OK || (st = set_free(cr, n, 0)) != TSCHED_OK)
                    return st;
                taken++;
            }
        }
        if ((st = hist_move_k(cr, p, G, 0, k)) != TSCHED_OK)
            return st;
    }
    if ((st = log_job(cr, j)) != TSCHED_OK)
        return st;
    if (cr->vrun[j] && cr->vopt[j] != CR_NONE)
        cr->vobj -= jb->opts[cr->vopt[j]].term;
    cr->vrun[j] = 1;
    cr->vopt[j] = o;
    cr->voff[j] = (uint32_t)off;
    cr->vcnt[j] = (uint32_t)(cr->arena_len - off);
    cr->vobj += op->term;
    return TSCHED_OK;
}

void cr_undo(tsched_crius *cr, size_t mark)
{
    while (cr->log_len > mark) {
        const cr_log *e = &cr->log[--cr->log_len];
        switch (e->kind) {
        case CR_LOG_HIST: {
            cr_pool *cp = &cr->cp[e->i];
            cp->cnt[e->b] -= e->d;
            cp->cnt[e->a] += e->d;
            cp->maxfree = e->c;
            break;
        }
        case CR_LOG_FREE: cr->vfree[e->i] = e->a; break;
        default:
            cr->vopt[e->i] = e->a;
            cr->voff[e->i] = e->b;
            cr->vcnt[e->i] = e->c;
            cr->vrun[e->i] = (uint8_t)e->d;
            cr->vobj = e->x;
            break;
        }
    }
}
