/* Internal: the CRUX job set and the two-job iteration model, shared by jobset.c,
 * twojob.c, crux.c and the unit tests. */
#ifndef TS_PRIORITY_CRUX_INTERNAL_H
#define TS_PRIORITY_CRUX_INTERNAL_H

#include "topo-sched/priority.h"

#include "../common/strtab.h"

/* A job set: per job its parameters, per flow its job and endpoints, in the order they
 * were added (the loader adds each job's flows right after it; the builder in any order).
 * A flow's path is chosen by tsched_prioritize unless pinned: pin[f] is then an offset into
 * `pins`, where pins[off] is the hop count and the directed link ids (2 * trunk + d) follow.
 * Node and link indices refer to the fabric the set was made for; `topo` is kept for the
 * builder's checks only (the caller keeps it alive while adding flows). */
struct tsched_jobset {
    uint32_t n;                 /* jobs */
    char **name;
    uint32_t *gpus;
    double *work_tflop, *compute_ms, *overlap;
    uint32_t *nflows_of;        /* per job */
    size_t jcap[6];             /* capacities of the six job arrays */
    uint32_t nflows;
    uint32_t *job;              /* per flow */
    uint32_t *src, *dst;        /* node indices */
    uint32_t *src_nic, *dst_nic;
    double *gbits;
    uint32_t *pin;              /* TSCHED_NONE: path chosen by tsched_prioritize */
    size_t fcap[7];             /* capacities of the seven flow arrays */
    uint32_t *pins;
    size_t npins, pins_cap;
    uint32_t member_flows;      /* flows pinned to member links (tsched_jobset_add_member_flow) */
    ts_strtab names;            /* job names, for duplicates */
    const tsched_topology *topo;
    uint64_t topo_id, topo_gen; /* identity and shape generation of the fabric it was made for */
};

/* The flows of every job as CSR, in the order they were added: job j owns
 * fl[off[j] .. off[j + 1]). The caller frees both. */
tsched_status ts_jobset_csr(uint32_t **off, uint32_t **fl, const tsched_jobset *js);

/* A pin's hop count with this bit set: its ids are directed member links (2 * member + d),
 * not directed trunk links. */
#define TS_PIN_MEMBERS (UINT32_C(1) << 31)

/* Flow f's pinned path (its directed link ids, *hops of them), or NULL when it has none. */
static inline const uint32_t *ts_jobset_pin(const tsched_jobset *js, uint32_t f, uint32_t *hops)
{
    if (js->pin[f] == TSCHED_NONE) {
        *hops = 0;
        return NULL;
    }
    *hops = js->pins[js->pin[f]] & ~TS_PIN_MEMBERS;
    return js->pins + js->pin[f] + 1;
}

/* 1 if flow f is pinned to member links. */
static inline int ts_jobset_pin_members(const tsched_jobset *js, uint32_t f)
{
    return js->pin[f] != TSCHED_NONE && (js->pins[js->pin[f]] & TS_PIN_MEMBERS) != 0;
}

/* The jobs as coflows for the baseline orders (order.c): job j's links are
 * link[off[j] .. off[j + 1]) (ids below nlinks), t[k] the seconds its traffic of one
 * iteration takes on link[k] alone (M_{j,e} / B_e, > 0), dist[j] its transmission
 * distance (fabric links per gigabit, volume-weighted mean over its flows). */
typedef struct ts_coflows {
    uint32_t n, nlinks;
    const uint32_t *off, *link;
    const double *t, *dist;
} ts_coflows;

/* perm[r] = the job at position r of `order` (not TSCHED_PRIO_ORDER_CRUX), rank[j] its
 * position (rank may be NULL). Jobs without links first, in index order. */
tsched_status ts_prio_order_rank(uint32_t *perm, uint32_t *rank, tsched_prio_order order, const ts_coflows *cf);

/* The two-job model (tsched_twojob_steady) with everything it measured. Index 0 is job a,
 * 1 is job b. */
typedef struct ts_twojob_result {
    double period_ms;     /* steady run: the period; window run: the window */
    double start_ms;      /* steady run: when the periodic regime begins (0 if unknown) */
    double link_ms[2];    /* link time of each job over the period or window */
    double compute_ms[2]; /* time each job's GPUs compute over the period or window */
    double share[2];      /* link_ms / period_ms, computed in ticks (no overflow) */
    double utilization;   /* sum gpus * compute / (all gpus * period) */
    int exact;            /* 1: the period was found exactly; 0: averaged over a long run */
} ts_twojob_result;

/* The steady state of the model (both jobs start an iteration at time 0). */
tsched_status ts_twojob_steady(ts_twojob_result *res, const tsched_twojob *a, const tsched_twojob *b, int a_first);
/* The same system measured over the window [0, horizon_ms] from the synchronised start
 * (transient included). Errors: TSCHED_E_RANGE, TSCHED_E_TOO_LARGE (a window of more
 * than about a million events). */
tsched_status ts_twojob_window(ts_twojob_result *res, const tsched_twojob *a, const tsched_twojob *b, int a_first,
                               double horizon_ms);
/* Correction factor k_j of job j against the reference job r (CRUX 4.2, doc/priority.md):
 * Delta_r = r's steady link share when r goes first minus when j goes first, Delta_j the
 * same for j; k_j = Delta_j / Delta_r, clamped to [1e-3, 1e3]. When r loses nothing in
 * steady state (Delta_r = 0), the shares over the synchronised start up to the end of the
 * first steady period of both runs are used instead; if r loses nothing there either,
 * k_j = 1e3 when j gains and 1 when neither does. */
tsched_status ts_crux_factor(double *k, const tsched_twojob *j, const tsched_twojob *r);

#endif
