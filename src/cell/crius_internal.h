/* Internal: the Cell-based scheduler (doc/cell.md §5). Files:
 *   crius.c        state, tsched_crius_new/_free, add_job, set_running, remove_job, getters
 *   crius_fit.c    per-pool counters of nodes by free GPUs, the placement rule of §5 step 6,
 *                  the undo log of the virtual state
 *   crius_sched.c  options (candidate Cells), events: queue order, CELLBASEDSCHED, scaling
 *                  steps, the departure pass, FINALIZEALLOC
 *   crius_queue.c  the tsched.crius-queue.v1 reader
 *   crius_json.c   tsched.crius-schedule.v1
 *
 * Data layout (the speed target of §8: one arrival event with 100 jobs on 1,280 GPUs in
 * < 50 ms): the committed state is each job's option and nodes plus every node's free GPUs.
 * An event copies it once into a virtual state (vfree, per-pool counters cnt[f] of up nodes
 * by free GPUs with the largest f present, each job's option and nodes in an append-only
 * arena); every change goes through an undo log, so a candidate scaling step costs the
 * counters it touches (O(G + nodes of the job)), never a copy of the state. */
#ifndef TS_CRIUS_INTERNAL_H
#define TS_CRIUS_INTERNAL_H

#include <stdint.h>

#include "../common/strtab.h"
#include "cell_internal.h"

#define CR_NONE UINT32_MAX

/* One option of a job: a Cell (pool, N, S) with the best S of its (pool, N). */
typedef struct cr_opt {
    uint32_t pool, N, S;
    double thr;        /* throughput (sequences/s); 0 for an infeasible current Cell */
    double term;       /* its objective term (throughput / ref, or throughput) */
    tsched_cell *cell; /* owned */
} cr_opt;

typedef struct cr_job {
    char *name;
    uint32_t name_id; /* in cr->names */
    uint32_t ng;      /* N_G */
    uint32_t hidden, layers, vocab, seq, gb;
    double submit;
    int removed;
    /* options (built at the first event that sees the job, then cached) */
    int has_opts;
    uint32_t nopts;
    cr_opt *opts;
    double ref;
    uint32_t nfeasible; /* options with throughput > 0 */
    /* running Cell given by set_running before the options exist */
    int given;
    uint32_t g_pool, g_N, g_S;
    tsched_cell *g_cell;
    /* committed state */
    int running;
    uint32_t opt; /* committed option (CR_NONE while only `given`) */
    uint32_t nnodes;
    uint32_t *nodes, *node_gpus; /* ascending node index */
    int changed;
    const char *reason; /* static string */
} cr_job;

typedef struct cr_pool {
    int known;        /* GPU type in the catalogue */
    const ts_gpu *gpu; /* in cr->cat */
    uint32_t G;
    uint32_t nleaves;
    uint32_t *leaf_start; /* nleaves + 1: CSR of the pool's nodes by leaf (leaf index order) */
    uint32_t *leaf_nodes; /* node indices, index order inside a leaf */
    uint32_t *leaf_id;    /* fabric leaf index of each local leaf (ascending) */
    uint32_t *scratch_cnt;  /* nleaves */
    uint64_t *scratch_key;  /* nleaves: (count desc, leaf asc) sort keys */
    /* virtual counters: cnt[f] = up nodes with f free GPUs, f = 0..G; maxfree = largest f
     * with cnt[f] > 0 (0 when none) */
    uint32_t *cnt;
    uint32_t maxfree;
} cr_pool;

typedef enum cr_log_kind { CR_LOG_HIST = 0, CR_LOG_FREE = 1, CR_LOG_JOB = 2 } cr_log_kind;

typedef struct cr_log {
    uint32_t kind, i; /* HIST: pool; FREE: node; JOB: job */
    uint32_t a, b, c, d;
    double x; /* JOB: old objective */
    /* HIST: a = from f, b = to f, c = old maxfree
     * FREE: a = old free
     * JOB:  a = old opt, b = old arena offset, c = old count, d = old running */
} cr_log;

struct tsched_crius {
    uint32_t depth;
    tsched_crius_objective objective;
    tsched_gpu_catalog *cat;
    ts_pools pools;
    cr_pool *cp; /* pools.n */
    char **unknown; /* GPU types of pools not in the catalogue, name order, distinct */
    uint32_t nunknown;
    /* nodes */
    uint32_t nnodes;
    ts_strtab node_tab; /* name -> index (ids equal node indices) */
    uint32_t *node_pool; /* pool index */
    uint32_t *node_G;    /* GPUs of the node */
    uint8_t *node_up;
    uint32_t *free;     /* committed free GPUs */
    uint32_t *held;     /* GPUs held by running jobs (for set_running's busy check) */
    /* jobs */
    uint32_t njobs;
    size_t jobs_cap;
    cr_job *jobs;
    ts_strtab names;    /* job names ever seen */
    uint32_t *name_job; /* name id -> live job index or CR_NONE */
    size_t name_job_cap;
    /* last event */
    int has_event;
    tsched_crius_event event;
    double value;
    uint32_t cells_estimated;
    double solve_ms;
    /* virtual state of an event */
    uint32_t *vfree;
    uint32_t *vopt, *voff, *vcnt;
    uint8_t *vrun;
    uint32_t *arena_node, *arena_gpus;
    size_t arena_len, arena_cap;
    cr_log *log;
    size_t log_len, log_cap;
    double vobj;
};

/* crius_fit.c */
/* Build cnt/maxfree of every known pool from vfree and node_up. */
void cr_hist_build(tsched_crius *cr);
/* Move one up node of pool p from f free GPUs to t (logged). */
tsched_status cr_hist_move(tsched_crius *cr, uint32_t p, uint32_t f, uint32_t t);
/* Does N GPUs of pool p fit under the placement rule on the current counters? O(1). */
int cr_fits(const tsched_crius *cr, uint32_t p, uint32_t N);
/* The counters' effect of placing N GPUs on pool p (it must fit), without choosing nodes. */
tsched_status cr_hist_place(tsched_crius *cr, uint32_t p, uint32_t N);
/* Release job j's virtual nodes on the counters only. */
tsched_status cr_hist_release(tsched_crius *cr, uint32_t j);
/* Release job j's virtual nodes for real (vfree, counters, job record; logged). */
tsched_status cr_release(tsched_crius *cr, uint32_t j);
/* Place option o of job j for real with the placement rule (it must fit; logged). */
tsched_status cr_place(tsched_crius *cr, uint32_t j, uint32_t o);
/* Undo the log back to length `mark`. */
void cr_undo(tsched_crius *cr, size_t mark);
/* Grow the per-event arrays for the current job and node counts. */
tsched_status cr_virtual_reserve(tsched_crius *cr);

/* crius_sched.c */
/* Build the options of job j (estimating its candidate Cells); counts estimates. */
tsched_status cr_build_options(tsched_crius *cr, uint32_t j, uint32_t *estimated);

/* crius.c */
/* Internal forms of add_job / set_running shared with the queue reader. */
tsched_status cr_add(uint32_t *index, tsched_crius *cr, const char *name, uint32_t gpus, const tsched_model *m,
                     double submit);
tsched_status cr_set_running(tsched_crius *cr, uint32_t job, const char *pool, uint32_t n_gpus, uint32_t stages,
                             const uint32_t *nodes, const uint32_t *node_gpus, uint32_t count);
/* Drop jobs with index >= n (the queue reader's rollback). */
void cr_truncate(tsched_crius *cr, uint32_t n);
/* Objective term of a throughput for job j. */
double cr_term(const tsched_crius *cr, const cr_job *jb, double thr);
/* Estimate Cell (pool p, N, S) of job jb in the assembled space. */
tsched_status cr_estimate(tsched_cell **out, const tsched_crius *cr, const cr_job *jb, uint32_t p, uint32_t N,
                          uint32_t S);
/* The running job's Cell (NULL if not running). */
const tsched_cell *cr_job_cell(const tsched_crius *cr, uint32_t job);

#endif
