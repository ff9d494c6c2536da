/* Internal: the simulation engine's state (doc/sim.md). Jobs own their phases and the
 * flows of their current iteration; active flows live in a pool with per-link lists, so an
 * event touches its connected component only (§2.3). */
#ifndef TS_SIM_INTERNAL_H
#define TS_SIM_INTERNAL_H

#include "topo-sched/cell.h"
#include "topo-sched/placement.h"
#include "topo-sched/priority.h"
#include "topo-sched/routing.h"
#include "topo-sched/sim.h"
#include "topo-sched/vclos.h"

#include "../common/rng.h"
#include "../common/strtab.h"
#include "sim_api.h"
#include "sim_policy.h"
#include "sim_result.h"

/* An explicit flow of a phase, as added (ranks, optional pinned hops). */
typedef struct ts_sim_xflow {
    uint32_t src, src_nic, dst, dst_nic;
    double gbits;
    uint32_t hop_off, nhops; /* into job->hops */
} ts_sim_xflow;

typedef struct ts_sim_phase {
    int pattern;             /* tsched_pattern, or -1 */
    int32_t step;            /* the step of a multi-step pattern, or -1: all (one-step patterns) */
    double gbits;
    uint32_t repeat;
    uint32_t xoff, nx;       /* explicit flows: into job->xflows */
} ts_sim_phase;

/* A routed flow of one phase of the running job: NIC links and fabric links, fixed for the
 * job's life (or until a failure moves it). */
typedef struct ts_sim_rflow {
    uint32_t src, src_nic, dst, dst_nic;
    double gbits;            /* per phase instance (already times the coarsening factor) */
    uint32_t link_off, nlinks; /* into job->rlinks: directed sim link ids, NIC up first */
    uint32_t nhost;          /* host links (host_links on) at the end of its nlinks: the network's
                              * are the first nlinks - nhost (none for a flow inside one node) */
} ts_sim_rflow;

/* The network links of routed flow rf (NIC up, fabric, NIC down): 0 for a flow inside a node. */
static inline uint32_t ts_sim_rflow_net(const ts_sim_rflow *rf)
{
    return rf->nlinks - rf->nhost;
}

enum { TS_JOB_FUTURE = 0, TS_JOB_QUEUED, TS_JOB_RUNNING, TS_JOB_DONE };

typedef struct ts_sim_job {
    char *name;
    int64_t arrival, compute, duration;
    uint32_t gpus, tp, pp, level, fixed_level;
    double overlap, work_tflop;
    uint64_t iterations;       /* asked (real), resolved at start for duration jobs */
    int has_model;
    tsched_model model;
    uint32_t *fixed_nodes, nfixed;
    ts_sim_phase *phases;
    uint32_t nphases;
    size_t phases_cap;
    ts_sim_xflow *xflows;
    uint32_t nx;
    size_t x_cap;
    uint32_t *hops;
    uint32_t nhops;
    size_t hops_cap;

    /* running state */
    int state;
    uint32_t *nodes, nnodes;   /* rank order */
    uint32_t gpn_used;         /* GPUs used per node (single-node jobs: their gpus) */
    int64_t start, finish, iter_start;
    uint64_t sim_iters, sim_done; /* simulated iterations (coarsened) */
    uint64_t group;            /* real iterations per simulated one */
    uint64_t left_at_start;    /* real iterations to run since the last start */
    uint64_t cur_g;            /* real iterations in the simulated one in progress */
    uint64_t real_done;
    int compute_running, comm_running;
    uint32_t cur_phase, cur_rep; /* phase in progress */
    uint32_t phase_flows_left;
    ts_sim_rflow *rflows;      /* all phases of one iteration */
    uint32_t *phase_rf_off;    /* nphases + 1 offsets into rflows */
    uint32_t *rlinks;
    uint32_t nrflows, nrlinks;
    int64_t gen;               /* bumps on stop: stale events are ignored */
    int64_t compute_start;     /* when the current computation started (or -1) */
    /* priority cassini (prio_cassini.c): the delay its next iteration starts with, whether
     * the iteration in progress has done nothing yet (it may still be delayed), whether it
     * waits out a delay (its iter_start is the instant it was due) */
    int64_t shift;
    int iter_fresh, shifted;
    int coarse; /* max_sim_iterations applies to it ("Coarsening rule", ts_sim_job_bounds) */

    /* statistics */
    double iter_sum_s, iter_min_s, iter_max_s, iter_alone_s, compute_ns_total;
    double gbits_demanded, gbits_delivered;
    uint32_t restarts;
    int wait_cause;
    int ever_tried;
    int vc_held;               /* placed by the vclos handle and not released there yet */
    uint64_t vc_failed;        /* vc_epoch + 1 of its last failed allocation (0: none) */

    /* GPUs held now: `gpus`, or under placement crius its Cell's N, spread as node_gpus */
    uint32_t used_gpus;
    uint32_t *node_gpus;       /* per node of `nodes` (placement crius, or split by shared_nodes),
                                * NULL = gpn_used on each */
    int split;                 /* shared_nodes: may take part of a node (decided at the run's start) */
    uint32_t *gpu_ids;         /* shared_nodes or host_links: per rank, its GPU (node's gpu_base +
                                * index in the node), rank order */
    /* placement crius (doc/sim.md §3.2): the scheduler's index and the Cell the job runs in */
    uint32_t cr_index;         /* TSCHED_NONE until queued in the scheduler */
    char *cell_pool;           /* NULL while it has no Cell */
    uint32_t cell_n, cell_s;
    double cell_t;             /* the Cell's iteration_s */
    int64_t cell_start;        /* when it started in this Cell */
    uint64_t cell_done0;       /* real iterations done when it started in this Cell */
} ts_sim_job;

/* GPUs job j holds on its k-th node. */
static inline uint32_t ts_sim_node_gpus(const ts_sim_job *j, uint32_t k)
{
    return j->node_gpus ? j->node_gpus[k] : j->gpn_used;
}

/* An active flow (in the pool). */
typedef struct ts_sim_flow {
    uint32_t job;
    double gbits, remaining, rate;
    int64_t last;              /* time `remaining` was settled */
    uint32_t level;
    const uint32_t *links;     /* job->rlinks + off (stable while the job runs) */
    uint32_t nlinks;
    uint32_t gen;              /* completion events carry it */
    int active;
    uint32_t mark;             /* component search */
    uint32_t checked;          /* last full-recomputation check that covered it */
} ts_sim_flow;

typedef struct ts_sim_event {
    int64_t t;
    uint64_t seq;
    int kind;
    uint32_t a;                /* job, flow or failure index */
    int64_t b;                 /* job generation or flow generation */
} ts_sim_event;

/* The event heap's order: (time, sequence), so events of one instant keep the order they
 * were pushed in. */
static inline int ts_sim_ev_before(const ts_sim_event *a, const ts_sim_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

typedef struct ts_sim_failure {
    int64_t at;
    char *name;
    int up;
} ts_sim_failure;

/* Per directed link: capacity and the active flows on it (an intrusive array). */
typedef struct ts_sim_link {
    double cap;
    uint32_t *flows;
    uint32_t n;
    size_t cap_n;
    uint32_t mark;
    double delivered;          /* Gbit in the measurement window (link report) */
    int64_t busy_ns;
    int64_t busy_since;        /* -1 when idle */
} ts_sim_link;

struct tsched_sim {
    tsched_topology *t;
    uint64_t topo_id, topo_gen;
    char *name;
    int pol[TS_SIM_NPOL];
    uint8_t pol_set[TS_SIM_NPOL]; /* named by the scenario or a setter (implied defaults, §3.2) */
    uint64_t seed;
    uint32_t levels;
    int64_t until, from, to, latency, sample;
    uint64_t max_iters;
    uint32_t place_ms;
    int check_full;
    int timeseries;            /* keep the time series (option timeseries, default 1) */
    int64_t interval;

    ts_sim_job *jobs;
    uint32_t njobs;
    size_t jobs_cap;
    ts_strtab job_names;       /* every job's name, id = job index: duplicates found in O(1) */
    uint32_t batch_mark;       /* ts_sim_batch_begin */
    ts_sim_failure *failures;
    uint32_t nfail;
    size_t fail_cap;

    /* links: 2 per fabric unit (a trunk, or in member mode a member link), then 2 per NIC,
     * then (placement ocs-vclos) 2 per OCS port of the vclos handle, then the dead link */
    uint32_t ntrunks, nlinks;
    tsched_vclos *vc;          /* placements vclos, ocs-vclos, vclos-free: made at the run's start */
    uint32_t vc_members;       /* topology member links: vclos link ids below are members */
    uint32_t ocs_base, nocs;   /* first OCS port slot, OCS ports (vclos ids vc_members + i) */
    uint32_t *node_pos;        /* per node: its position in the job being routed (scratch) */
    uint64_t vc_epoch;         /* changes of the handle's state (allocations, releases, failures) */
    uint32_t dead;             /* a link of capacity 0: the path of a flow that has none (stalled) */
    uint32_t nfab;             /* directed fabric links: 2 * units */
    uint32_t *unit_base;       /* per trunk: its first unit (ntrunks + 1 offsets) */
    uint32_t *unit_trunk;      /* per unit: its trunk */
    uint32_t *unit_flows;      /* per directed unit link: routed flows of running jobs */
    uint32_t *phase_cnt;       /* per directed unit link: flows of the phase being routed */
    uint32_t *nic_base;        /* per node: first global NIC index */
    ts_sim_link *link;
    uint32_t *base_flows;      /* routed flows of running jobs per directed fabric link */

    ts_sim_flow *flow;
    uint32_t nflow;
    size_t flow_cap;
    uint32_t *free_flows;
    uint32_t nfree;
    size_t free_cap;
    uint32_t nactive;

    ts_sim_event *heap;
    size_t nheap, heap_cap;
    uint64_t seq;
    size_t compact_at;         /* heap size at which superseded events are dropped (TS_SIM_COMPACT_MIN first) */
    uint64_t handled;          /* events taken off the heap, handled or dropped as superseded (sim_events) */
    uint64_t ev_need;          /* events the jobs' iterations need at the least (sim_events, §1) */

    uint32_t *queue;           /* waiting job indices, arrival order */
    uint32_t nqueue;
    size_t queue_cap;

    int started;
    int64_t now;
    uint32_t total_gpus;
    uint32_t gpn;              /* GPUs per node: the most common count (ties: the smaller) */
    uint32_t running, done;
    int64_t last_acct;         /* accounting integrated up to here */
    double busy_gpus;          /* computing GPUs now */
    uint32_t alloc_gpus;
    double gpu_busy_window, gpu_alloc_window; /* GPU-ns inside the measurement window */

    /* samples */
    ts_sim_sample *samples;
    uint32_t nsamples;         /* at most max_samples: a longer run doubles `sample` */
    uint32_t max_samples;      /* TS_SIM_MAX_SAMPLES (even; the tests lower it) */
    tsched_status acct_st;     /* TSCHED_E_NOMEM once a sample could not be kept: the run stops */
    size_t samples_cap;
    double s_busy, s_linkutil_sum; /* integrals of the current interval */
    double *s_link_gbits;      /* per fabric link, delivered in the current interval */

    /* scratch for components and rates */
    uint32_t *touched;
    uint32_t ntouched;
    size_t touched_cap;
    uint32_t mark;
    uint32_t check_epoch;      /* TSCHED_SIM_CHECK_FULL passes */
    double *rate_scratch;
    const uint32_t **fl;
    uint32_t *fn, *lev;
    size_t rate_cap;

    tsched_sim_callback cb;
    void *cb_user;
    uint32_t cb_mask;
    int stop;

    uint64_t events, rate_updates;
    uint64_t comps, comp_flows_sum; /* recomputed components and their flows */
    uint32_t comp_flows_max;
    double wall_ms;
    int pending_sched;         /* something arrived, finished or was repaired */
    uint32_t starts;           /* job starts so far */
    int finished_flag;         /* a job finished in this batch: priorities are recomputed */
    int64_t next_tick;         /* the next scheduling instant queued (schedule_interval_s) */
    ts_rng rng;

    /* placement crius (doc/sim.md §3.2): the scheduler, made at the run's start, and its
     * catalogue (the built-in one merged with the caller's; NULL = the built-in one) */
    tsched_crius *cr;
    tsched_gpu_catalog *cat;
    uint32_t *cr_gone;         /* scheduler indices of jobs finished since the last attempt */
    uint32_t ncr_gone;
    size_t cr_gone_cap;
    uint32_t *cr_job;          /* per scheduler index: the sim job */
    size_t cr_job_cap;
    uint64_t crius_events;     /* tsched_crius_schedule calls */
    uint32_t crius_depth;      /* TSCHED_SIM_CRIUS_DEPTH */

    struct ts_fluid *fluid;    /* the rate kernel's workspace (rates.c), made at the first solve */

    /* shared nodes and host links (doc/sim.md "Shared nodes and host-internal links", host.c) */
    int shared_nodes;          /* jobs may take part of a node */
    int host_on;               /* host_links given: PCIe and NVLink links per node */
    double pcie_gbps, nvlink_gbps;
    uint32_t host_base;        /* first host link id (after the OCS slots) */
    uint32_t *host_lbase;      /* per node: its first host link, relative to host_base (nn + 1) */
    uint32_t *gpu_base;        /* per node: its first GPU id (nn + 1) */
    uint32_t *gpu_owner;       /* per GPU id: the job holding it, or TSCHED_NONE */
};

/* Put `e` at slot i of the heap's first n entries and move it down to its place (the pop and
 * the compaction of the event loop; ts_sim_push() moves up). Inline: it is the loop's hot path. */
static inline __attribute__((always_inline)) void ts_sim_sift_down(tsched_sim *s, size_t i, size_t n, ts_sim_event e)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ts_sim_ev_before(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ts_sim_ev_before(&s->heap[c], &e))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = e;
}

/* The policy rows chosen (sim_policy.h). */
static inline const ts_sim_place_ops *ts_sim_placement(const tsched_sim *s)
{
    return &ts_sim_placements[s->pol[TSCHED_SIM_PLACEMENT]];
}
static inline const ts_sim_route_ops *ts_sim_routing(const tsched_sim *s)
{
    return &ts_sim_routings[s->pol[TSCHED_SIM_ROUTING]];
}
static inline const ts_sim_links_ops *ts_sim_link_mode(const tsched_sim *s)
{
    return &ts_sim_links[s->pol[TSCHED_SIM_LINKS]];
}
/* Jobs run in Cells: computing only, no flows (placement crius). */
static inline int ts_sim_cells(const tsched_sim *s)
{
    return (ts_sim_placement(s)->flags & TS_PLACE_CELLS) != 0;
}

/* api.c */
tsched_status ts_sim_start_run(tsched_sim *s);
/* engine.c: the event loop, iterations, the queue */
/* The least simulated time and the fewest events job i's iterations need (doc/sim.md §1):
 * TSCHED_E_RANGE naming the job and the field when it would end past the clock,
 * TSCHED_E_TOO_LARGE (sim_events) when the jobs checked so far need more events than the
 * limit. Adds its events to s->ev_need. Duration-mode jobs count once their iterations are
 * resolved (at their first start). */
tsched_status ts_sim_job_bounds(tsched_sim *s, uint32_t i);
/* An event that no longer means anything (a superseded flow completion, an event of a job
 * stopped since, a scheduling instant with nothing to schedule). */
int ts_sim_event_stale(const tsched_sim *s, const ts_sim_event *e);
/* The callback's event of `kind` now, when the caller asked for it. */
void ts_sim_emit(tsched_sim *s, int kind, uint32_t job, uint32_t phase, const char *name);
tsched_status ts_sim_start_job(tsched_sim *s, uint32_t ji);
/* Running job j stops (its flows already gone): computation ends, its GPUs go back, its
 * pending events go stale, and it counts a restart; the caller queues it. */
void ts_sim_job_requeued(tsched_sim *s, ts_sim_job *j);
/* net.c: links, routes, loads */
tsched_status ts_sim_refresh_caps(tsched_sim *s);
tsched_status ts_sim_route_job(tsched_sim *s, ts_sim_job *j);
/* Add (dir 1) or remove (-1) job j's routed flows to the loads other jobs' routing sees. */
void ts_sim_base_loads(tsched_sim *s, const ts_sim_job *j, int dir);
tsched_status ts_sim_alone_iteration_s(double *out, tsched_sim *s, ts_sim_job *j);
/* Route job ji again with the current policy and loads; its flows in flight move to their
 * new paths with their remaining bits. */
tsched_status ts_sim_reroute_job(tsched_sim *s, uint32_t ji);
/* host.c: shared nodes and host links */
/* Host links after the OCS slots (`*count` directed links, 0 with host_links off) and the
 * GPU table (shared_nodes or host_links); s->ocs_base and s->nocs already set. */
tsched_status ts_sim_host_layout(tsched_sim *s, uint64_t *count);
/* Host links' capacities from the nodes' state (part of ts_sim_refresh_caps). */
void ts_sim_host_caps(tsched_sim *s);
/* The run's start, per job i: which jobs may split, the rules shared_nodes and host_links
 * bring (errors name the field). */
tsched_status ts_sim_host_rules(tsched_sim *s, uint32_t i);
/* shared_nodes: place job j on part of nodes (first-fit: in node order, else best-fit of
 * the rest): 1 placed, 0 waits, -1 error; 2: take whole nodes by the row's rule. */
int ts_sim_place_split(tsched_sim *s, ts_sim_job *j, int first_fit, tsched_status *err);
/* Job j takes (on 1) or gives back (0) its GPUs in the GPU table: the lowest free ones of
 * each of its nodes, in rank order. */
tsched_status ts_sim_host_gpus(tsched_sim *s, ts_sim_job *j, int on);
/* Host link ids: the PCIe switch link of NIC k of node n (down 0: GPUs to NIC), the NVLink
 * link of GPU g (an index in the node) of node n (down 0: out of the GPU). */
static inline uint32_t ts_sim_pcie_link(const tsched_sim *s, uint32_t n, uint32_t k, int down)
{
    return s->host_base + s->host_lbase[n] + 2 * k + (uint32_t)down;
}
/* A split job's dp-ring phase (shared_nodes) as node-level flows into f: one ring over its
 * node segments, one channel per NIC every segment has near its GPUs. *done 0: not such a
 * phase (the fabric module's flows apply). */
tsched_status ts_sim_host_phase(int *done, tsched_sim *s, ts_sim_job *j, const ts_sim_phase *ph, tsched_flows *f);
/* The per-flow volume of a single-node job's dp-ring over its `ring` GPUs (host_links). */
tsched_status ts_sim_inner_gbits(double *out, const ts_sim_job *j, const ts_sim_phase *ph, uint32_t ring);
/* A flow inside node n from GPU a to GPU b (indices in the node): its host links into out[]. */
uint32_t ts_sim_host_inner(const tsched_sim *s, uint32_t n, uint32_t a, uint32_t b, uint32_t *out);
/* account.c */
void ts_sim_account(tsched_sim *s, int64_t t);
void ts_sim_fill_interval(const tsched_sim *s, ts_sim_sample *x, double len);
void ts_sim_busy(tsched_sim *s, ts_sim_job *j, int on);
/* engine.c: priority cassini delays job ji's next iteration by d ns (0: none); an iteration
 * that started at this instant and has done nothing yet is delayed at once. */
tsched_status ts_sim_shift_iteration(tsched_sim *s, uint32_t ji, int64_t d);
/* failures.c */
void ts_sim_stop_job(tsched_sim *s, uint32_t ji);
tsched_status ts_sim_failure_event(tsched_sim *s, uint32_t fi);
/* prio_kcut.c: the running jobs as a job set (which[k] = the job of entry k), their flows
 * of one iteration pinned to the paths they use now */
tsched_status ts_sim_running_jobset(tsched_sim *s, tsched_jobset **out, uint32_t **which_out, uint32_t *n_out);
/* rates.c */
tsched_status ts_sim_flow_start(uint32_t *index, tsched_sim *s, uint32_t job, const ts_sim_rflow *rf,
                                const uint32_t *links);
void ts_sim_touch(tsched_sim *s, uint32_t flow);
tsched_status ts_sim_recompute(tsched_sim *s);
tsched_status ts_sim_check_full(tsched_sim *s);
tsched_status ts_sim_scratch(tsched_sim *s, size_t nf);
/* Rates of flows given as lists (src/common/fluid.c). On
 * failure (TSCHED_E_NOMEM, ...) every rate is 0. */
tsched_status ts_sim_maxmin(tsched_sim *s, size_t nf, const uint32_t *const *fl, const uint32_t *fn,
                            const uint32_t *lev, double *out);
void ts_sim_settle(tsched_sim *s, ts_sim_flow *f);
void ts_sim_flow_remove(tsched_sim *s, uint32_t fi);
tsched_status ts_sim_push(tsched_sim *s, int64_t t, int kind, uint32_t a, int64_t b);

/* Samples kept by one run (memory and time stay bounded on any simulated span): when a run
 * fills them, adjacent pairs merge and the interval doubles (doc/sim.md §5). */
#define TS_SIM_MAX_SAMPLES (1u << 18)
/* The heap is compacted (superseded events dropped) when it reaches twice its live size
 * after the last compaction, and never below this. */
#define TS_SIM_COMPACT_MIN 256

enum {
    TS_EV_FAILURE = 0, /* failures first at an instant, then arrivals, ... */
    TS_EV_FLOW_DONE,
    TS_EV_COMPUTE_END,
    TS_EV_RELEASE,
    TS_EV_FLOWS_GO,
    TS_EV_ARRIVAL,
    TS_EV_TICK,
    TS_EV_SHIFT_GO /* priority cassini: a delayed iteration starts (last: no older run has one) */
};

#endif
