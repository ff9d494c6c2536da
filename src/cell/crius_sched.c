/* Cell-based scheduling (doc/cell.md §5, Algorithm 1 of Crius made exact): each job's option
 * list, the events, CELLBASEDSCHED with its scaling steps, the departure pass, FINALIZEALLOC.
 *
 * Corners the note leaves open, and what this file does:
 * - A running job's current Cell (set_running) is always an option. When its (pool, N) is a
 *   candidate whose best S differs, or N is not one of N_G/2, N_G, 2 N_G, the current Cell is
 *   an extra option listed right after the options of smaller (pool, N) and the best-S option
 *   of its own (pool, N). An infeasible current Cell is an option of throughput 0; no job is
 *   ever moved to (or started on) an option of throughput 0, a job may only stay on it.
 * - Objective sums are compared with a relative tolerance of 1e-12 (`better` below): a later
 *   candidate (a recorded choice with more steps, a step later in order, a departure change)
 *   replaces the current best only when greater by more than that, so ties decided by the
 *   documented order do not depend on rounding of the running sum. A job's own options are
 *   compared exactly (their terms are computed the same way).
 * - "r in queue order" for scaling steps and the departure pass is the order jobs were added
 *   (index order); the order jobs are scheduled in is submit then index (step 3).
 * - The job being scheduled is not in A while its scaling steps are searched, so it never
 *   scales itself; steps are taken even when they lower the objective (the look-ahead decides),
 *   and the best prefix is kept.
 * - `cells_estimated` counts the Cell estimates computed by this event (the options of jobs
 *   seen for the first time); options are cached per job across events.
 * - A node listed as a running job's that is down keeps the job; its GPUs are not usable by
 *   anyone else once released (a down node has no usable GPUs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/clock.h"
#include "crius_internal.h"

static int better(double a, double b) { return a > b + 1e-12 * fmax(1.0, fabs(b)); }

static tsched_status push_opt(cr_job *jb, size_t *cap, cr_opt o)
{
    tsched_status st = TS_GROW(jb->opts, *cap, (size_t)jb->nopts + 1);
    if (st != TSCHED_OK)
        return st;
    jb->opts[jb->nopts++] = o;
    return TSCHED_OK;
}

static void drop_opts(cr_job *jb)
{
    for (uint32_t o = 0; o < jb->nopts; o++)
        tsched_cell_free(jb->opts[o].cell);
    free(jb->opts);
    jb->opts = NULL;
    jb->nopts = 0;
}

tsched_status cr_build_options(tsched_crius *cr, uint32_t j, uint32_t *estimated)
{
    cr_job *jb = &cr->jobs[j];
    uint32_t Ns[3], nN = 0;
    if (jb->ng % 2 == 0)
        Ns[nN++] = jb->ng / 2;
    Ns[nN++] = jb->ng;
    if (jb->ng <= UINT32_MAX / 2)
        Ns[nN++] = 2 * jb->ng;
    size_t cap = 0;
    tsched_status st = TSCHED_OK;
    jb->opts = NULL;
    jb->nopts = 0;
    for (uint32_t p = 0; p < cr->pools.n && st == TSCHED_OK; p++) {
        if (!cr->cp[p].known)
            continue;
        for (uint32_t q = 0; q < nN && st == TSCHED_OK; q++) {
            uint32_t N = Ns[q], smax = N < jb->layers ? N : jb->layers;
            cr_opt best = {p, N, 0, 0, 0, NULL};
            for (uint32_t S = 1; S <= smax; S *= 2) {
                tsched_cell *c = NULL;
                if ((st = cr_estimate(&c, cr, jb, p, N, S)) != TSCHED_OK)
                    break;
                (*estimated)++;
                double thr = tsched_cell_feasible(c) ? tsched_cell_throughput(c) : 0;
                if (thr > 0 && thr > best.thr) {
                    tsched_cell_free(best.cell);
                    best.cell = c;
                    best.S = S;
                    best.thr = thr;
                } else {
                    tsched_cell_free(c);
                }
                if (S > UINT32_MAX / 2)
                    break;
            }
            if (st != TSCHED_OK) {
                tsched_cell_free(best.cell);
                break;
            }
            if (best.cell && (st = push_opt(jb, &cap, best)) != TSCHED_OK)
                tsched_cell_free(best.cell);
        }
    }
    if (st == TSCHED_OK && jb->given) {
        /* the current Cell, unless it is its (pool, N)'s best: after every option of a smaller
         * (pool, N) and after its own (pool, N)'s best */
        uint32_t at = 0;
        int dup = 0;
        for (uint32_t o = 0; o < jb->nopts; o++) {
            const cr_opt *op = &jb->opts[o];
            if (op->pool < jb->g_pool || (op->pool == jb->g_pool && op->N <= jb->g_N))
                at = o + 1;
            dup |= op->pool == jb->g_pool && op->N == jb->g_N && op->S == jb->g_S;
        }
        if (!dup) {
            cr_opt g = {jb->g_pool, jb->g_N, jb->g_S,
                        tsched_cell_feasible(jb->g_cell) ? tsched_cell_throughput(jb->g_cell) : 0, 0, jb->g_cell};
            if ((st = push_opt(jb, &cap, g)) == TSCHED_OK) {
                memmove(jb->opts + at + 1, jb->opts + at, (jb->nopts - 1 - at) * sizeof *jb->opts);
                jb->opts[at] = g;
                jb->g_cell = NULL;
            }
        }
    }
    if (st != TSCHED_OK) {
        drop_opts(jb);
        return st;
    }
    /* reference throughput: best at N = N_G, else best over every option */
    double ref = 0, all = 0;
    jb->nfeasible = 0;
    for (uint32_t o = 0; o < jb->nopts; o++) {
        const cr_opt *op = &jb->opts[o];
        if (op->thr > 0)
            jb->nfeasible++;
        if (op->N == jb->ng && op->thr > ref)
            ref = op->thr;
        if (op->thr > all)
            all = op->thr;
    }
    jb->ref = ref > 0 ? ref : all;
    for (uint32_t o = 0; o < jb->nopts; o++)
        jb->opts[o].term = cr_term(cr, jb, jb->opts[o].thr);
    if (jb->given) {
        jb->opt = CR_NONE;
        for (uint32_t o = 0; o < jb->nopts && jb->opt == CR_NONE; o++)
            if (jb->opts[o].pool == jb->g_pool && jb->opts[o].N == jb->g_N && jb->opts[o].S == jb->g_S)
                jb->opt = o;
        tsched_cell_free(jb->g_cell);
        jb->g_cell = NULL;
        jb->given = 0;
    }
    jb->has_opts = 1;
    return TSCHED_OK;
}

/* The job's option of greatest term that fits the counters (ties: listed first); CR_NONE. */
static uint32_t best_fit(const tsched_crius *cr, const cr_job *jb)
{
    uint32_t best = CR_NONE;
    for (uint32_t o = 0; o < jb->nopts; o++) {
        const cr_opt *op = &jb->opts[o];
        if (op->thr > 0 && (best == CR_NONE || op->term > jb->opts[best].term) && cr_fits(cr, op->pool, op->N))
            best = o;
    }
    return best;
}

/* One scaling step for job j (j == CR_NONE: the departure pass, gain only). Sets *r, *o
 * (CR_NONE when there is no step). */
static tsched_status best_step(uint32_t *rbest, uint32_t *obest, tsched_crius *cr, uint32_t j)
{
    *rbest = *obest = CR_NONE;
    double best = 0;
    const cr_job *jj = j == CR_NONE ? NULL : &cr->jobs[j];
    tsched_status st;
    for (uint32_t r = 0; r < cr->njobs; r++) {
        if (r == j || !cr->vrun[r] || cr->vopt[r] == CR_NONE)
            continue;
        const cr_job *jr = &cr->jobs[r];
        double cur = jr->opts[cr->vopt[r]].term;
        size_t m = cr->log_len;
        int released = 0;
        for (uint32_t o = 0; o < jr->nopts; o++) {
            const cr_opt *op = &jr->opts[o];
            if (o == cr->vopt[r] || op->thr <= 0)
                continue;
            if (jj == NULL && !better(cr->vobj - cur + op->term, cr->vobj))
                continue; /* the departure pass wants a gain > 0 */
            if (!released) {
                if ((st = cr_hist_release(cr, r)) != TSCHED_OK)
                    return st;
                released = 1;
            }
            if (!cr_fits(cr, op->pool, op->N))
                continue;
            double score;
            if (jj) {
                size_t m2 = cr->log_len;
                if ((st = cr_hist_place(cr, op->pool, op->N)) != TSCHED_OK)
                    return st;
                uint32_t bj = best_fit(cr, jj);
                score = cr->vobj - cur + op->term + (bj == CR_NONE ? 0 : jj->opts[bj].term);
                cr_undo(cr, m2);
            } else {
                score = op->term - cur;
            }
            if (*rbest == CR_NONE || better(score, best)) {
                best = score;
                *rbest = r;
                *obest = o;
            }
        }
        cr_undo(cr, m);
    }
    return TSCHED_OK;
}

static tsched_status apply_step(tsched_crius *cr, uint32_t r, uint32_t o)
{
    tsched_status st = cr_release(cr, r);
    return st == TSCHED_OK ? cr_place(cr, r, o) : st;
}

/* CELLBASEDSCHED(job) of §5 step 4. *placed = 1 when the job got an option. */
static tsched_status cell_based_sched(int *placed, tsched_crius *cr, uint32_t j)
{
    const cr_job *jb = &cr->jobs[j];
    size_t mark0 = cr->log_len, best_mark = 0;
    uint32_t best_o = CR_NONE;
    double best_obj = 0;
    tsched_status st;
    *placed = 0;
    for (uint32_t k = 0;; k++) {
        uint32_t o = best_fit(cr, jb);
        if (o != CR_NONE) {
            double v = cr->vobj + jb->opts[o].term;
            if (best_o == CR_NONE || better(v, best_obj)) {
                best_o = o;
                best_obj = v;
                best_mark = cr->log_len;
            }
        }
        if (k == cr->depth)
            break;
        uint32_t r, ro;
        if ((st = best_step(&r, &ro, cr, j)) != TSCHED_OK)
            return st;
        if (r == CR_NONE)
            break;
        if ((st = apply_step(cr, r, ro)) != TSCHED_OK)
            return st;
    }
    if (best_o == CR_NONE) {
        cr_undo(cr, mark0);
        return TSCHED_OK;
    }
    cr_undo(cr, best_mark);
    if ((st = cr_place(cr, j, best_o)) != TSCHED_OK)
        return st;
    *placed = 1;
    return TSCHED_OK;
}

typedef struct qkey {
    double submit;
    uint32_t j;
} qkey;

static int cmp_qkey(const void *a, const void *b)
{
    const qkey *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static void sort_nodes(uint32_t *n, uint32_t *g, uint32_t c)
{
    for (uint32_t i = 1; i < c; i++) {
        uint32_t a = n[i], b = g[i], k = i;
        while (k > 0 && n[k - 1] > a) {
            n[k] = n[k - 1];
            g[k] = g[k - 1];
            k--;
        }
        n[k] = a;
        g[k] = b;
    }
}

/* FINALIZEALLOC: commit the virtual state. Allocates first, so a failure changes nothing. */
static tsched_status finalize(tsched_crius *cr, const char **reason)
{
    uint32_t nj = cr->njobs;
    uint32_t **nn = ts_calloc(nj ? nj : 1, sizeof *nn), **ng = ts_calloc(nj ? nj : 1, sizeof *ng);
    uint8_t *chg = ts_calloc(nj ? nj : 1, 1);
    tsched_status st = nn && ng && chg ? TSCHED_OK : TSCHED_E_NOMEM;
    for (uint32_t j = 0; j < nj && st == TSCHED_OK; j++) {
        const cr_job *jb = &cr->jobs[j];
        if (jb->removed || !cr->vrun[j])
            continue;
        uint32_t c = cr->vcnt[j];
        nn[j] = ts_malloc(c ? c : 1, sizeof **nn);
        ng[j] = ts_malloc(c ? c : 1, sizeof **ng);
        if (!nn[j] || !ng[j]) {
            st = TSCHED_E_NOMEM;
            break;
        }
        memcpy(nn[j], cr->arena_node + cr->voff[j], c * sizeof **nn);
        memcpy(ng[j], cr->arena_gpus + cr->voff[j], c * sizeof **ng);
        sort_nodes(nn[j], ng[j], c);
        chg[j] = !jb->running || jb->opt != cr->vopt[j] || jb->nnodes != c ||
                 memcmp(jb->nodes, nn[j], c * sizeof **nn) != 0 || memcmp(jb->node_gpus, ng[j], c * sizeof **ng) != 0;
    }
    if (st != TSCHED_OK) {
        for (uint32_t j = 0; nn && ng && j < nj; j++) {
            free(nn[j]);
            free(ng[j]);
        }
        free(nn);
        free(ng);
        free(chg);
        return st;
    }
    double value = 0;
    for (uint32_t j = 0; j < nj; j++) {
        cr_job *jb = &cr->jobs[j];
        if (jb->removed)
            continue;
        jb->changed = chg[j];
        if (!cr->vrun[j]) {
            jb->running = 0;
            jb->reason = reason[j] ? reason[j] : jb->reason;
            continue;
        }
        if (chg[j]) {
            for (uint32_t i = 0; jb->running && i < jb->nnodes; i++)
                cr->held[jb->nodes[i]] -= jb->node_gpus[i];
            for (uint32_t i = 0; i < cr->vcnt[j]; i++)
                cr->held[nn[j][i]] += ng[j][i];
            free(jb->nodes);
            free(jb->node_gpus);
            jb->nodes = nn[j];
            jb->node_gpus = ng[j];
            jb->nnodes = cr->vcnt[j];
            jb->opt = cr->vopt[j];
        } else {
            free(nn[j]);
            free(ng[j]);
        }
        jb->running = 1;
        jb->reason = "";
        value += jb->opts[jb->opt].term;
    }
    memcpy(cr->free, cr->vfree, (size_t)cr->nnodes * sizeof *cr->free);
    cr->value = value;
    free(nn);
    free(ng);
    free(chg);
    return TSCHED_OK;
}

static tsched_status run_event(tsched_crius *cr, tsched_crius_event event, const char **reason)
{
    tsched_status st;
    /* virtual state = committed state */
    memcpy(cr->vfree, cr->free, (size_t)cr->nnodes * sizeof *cr->vfree);
    cr->arena_len = 0;
    cr->log_len = 0;
    cr->vobj = 0;
    for (uint32_t j = 0; j < cr->njobs; j++) {
        const cr_job *jb = &cr->jobs[j];
        cr->vrun[j] = (uint8_t)(!jb->removed && jb->running);
        cr->vopt[j] = cr->vrun[j] ? jb->opt : CR_NONE;
        cr->voff[j] = (uint32_t)cr->arena_len;
        cr->vcnt[j] = 0;
        if (!cr->vrun[j])
            continue;
        for (uint32_t i = 0; i < jb->nnodes; i++) {
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
            cr->arena_node[cr->arena_len] = jb->nodes[i];
            cr->arena_gpus[cr->arena_len++] = jb->node_gpus[i];
        }
        cr->vcnt[j] = jb->nnodes;
        if (jb->opt != CR_NONE)
            cr->vobj += jb->opts[jb->opt].term;
    }
    cr_hist_build(cr);
    /* step 3: jobs without a Cell by submit, then queue order */
    uint32_t nq = 0;
    qkey *q = ts_malloc(cr->njobs ? cr->njobs : 1, sizeof *q);
    if (!q)
        return TSCHED_E_NOMEM;
    for (uint32_t j = 0; j < cr->njobs; j++)
        if (!cr->jobs[j].removed && !cr->jobs[j].running)
            q[nq++] = (qkey){cr->jobs[j].submit, j};
    qsort(q, nq, sizeof *q, cmp_qkey);
    st = TSCHED_OK;
    for (uint32_t i = 0; i < nq && st == TSCHED_OK; i++) {
        uint32_t j = q[i].j;
        if (cr->jobs[j].nfeasible == 0) {
            reason[j] = "no feasible cell";
            continue;
        }
        int placed;
        st = cell_based_sched(&placed, cr, j);
        if (st == TSCHED_OK && !placed)
            reason[j] = "insufficient gpus";
    }
    free(q);
    /* step 5: the departure's extra pass */
    for (uint32_t k = 0; st == TSCHED_OK && event == TSCHED_CRIUS_DEPARTURE && k < cr->depth; k++) {
        uint32_t r, o;
        if ((st = best_step(&r, &o, cr, CR_NONE)) != TSCHED_OK || r == CR_NONE)
            break;
        st = apply_step(cr, r, o);
    }
    return st;
}

tsched_status tsched_crius_schedule(tsched_crius *cr, tsched_crius_event event)
{
    if (!cr)
        return ts_error(TSCHED_E_INVALID, "tsched_crius_schedule: cr is NULL");
    if (event != TSCHED_CRIUS_ARRIVAL && event != TSCHED_CRIUS_DEPARTURE)
        return ts_error(TSCHED_E_INVALID, "event: %d is not arrival (0) or departure (1)", (int)event);
    double t0 = ts_now_ms();
    uint32_t estimated = 0;
    tsched_status st;
    for (uint32_t j = 0; j < cr->njobs; j++)
        if (!cr->jobs[j].removed && !cr->jobs[j].has_opts &&
            (st = cr_build_options(cr, j, &estimated)) != TSCHED_OK)
            return st;
    if ((st = cr_virtual_reserve(cr)) != TSCHED_OK)
        return st;
    const char **reason = ts_calloc(cr->njobs ? cr->njobs : 1, sizeof *reason);
    if (!reason)
        return TSCHED_E_NOMEM;
    st = run_event(cr, event, reason);
    if (st == TSCHED_OK)
        st = finalize(cr, reason);
    cr->log_len = 0;
    free(reason);
    if (st != TSCHED_OK)
        return st;
    cr->has_event = 1;
    cr->event = event;
    cr->cells_estimated = estimated;
    cr->solve_ms = ts_now_ms() - t0;
    return TSCHED_OK;
}
