/* Internal: the simulator's policies as tables of operations (doc/sim.md §4-§6 and "Where the
 * code lives"), after Slurm's plugin op tables. Each policy is one row {name, hooks,
 * parameter}; s->pol[k] is the index of the chosen row in table k, and the rows' order is
 * the order tsched_sim_set_policy lists the names in. A new policy is one new file with its
 * hooks and one row in policy.c. */
#ifndef TS_SIM_POLICY_H
#define TS_SIM_POLICY_H

#include "topo-sched/routing.h"
#include "topo-sched/sim.h"

#define TS_SIM_NPOL 6

struct ts_sim_job;

/* queue (§5) */
typedef struct ts_sim_queue_ops {
    const char *name;
    int smallest_first; /* sorted by (GPUs, arrival, index) before each pass */
    int head_blocks;    /* the first job that does not fit stops the pass */
} ts_sim_queue_ops;

/* placement (§5) */
typedef struct ts_sim_place_ops ts_sim_place_ops;
struct ts_sim_place_ops {
    const char *name;
    /* At the run's start, before the links are made: the rules it brings and the handle it
     * needs. NULL: none. */
    tsched_status (*load)(tsched_sim *s, const ts_sim_place_ops *self);
    /* At the run's start, after every job's rules (crius: its scheduler). NULL: none. */
    tsched_status (*ready)(tsched_sim *s, const ts_sim_place_ops *self);
    /* Give job j (no fixed nodes) its nodes now: j->nodes in rank order, j->nnodes,
     * j->gpn_used. 1 placed, 0 waits (cause in j->wait_cause), -1 error in *err. */
    int (*place)(tsched_sim *s, const ts_sim_place_ops *self, struct ts_sim_job *j, tsched_status *err);
    /* A whole scheduling attempt in place of the queue's job-by-job pass (crius). NULL: the
     * queue policy's pass with `place`. */
    tsched_status (*schedule)(tsched_sim *s);
    /* After the fabric's element `name` went down or up (capacities refreshed): what the
     * placement's own state makes of it (vclos: its handle). NULL: nothing. */
    tsched_status (*failure)(tsched_sim *s, const char *name, int up);
    int arg;        /* the row's parameter: a tsched_place_algo, a tsched_vclos_mode */
    unsigned flags; /* TS_PLACE_* */
};
enum {
    TS_PLACE_CELLS = 1u,     /* jobs run in Cells: computing only, no flows, a model (crius) */
    TS_PLACE_RESERVES = 2u   /* reserves member links: its flows take routing `vclos` */
};

/* routing (§6): a phase's flows, then each flow's fabric links */
typedef struct ts_sim_route_ctx {
    tsched_sim *s;
    const struct ts_sim_job *j;
    const tsched_flows *f;   /* the phase's flows (fabric node indices) */
    uint64_t seed;           /* the phase's: scenario seed, job name, phase */
    tsched_routes *r;        /* set by `phase` (the routing module's rows), freed by the caller */
    int stalled;             /* no surviving path: every flow of the phase waits on the dead link */
} ts_sim_route_ctx;

typedef struct ts_sim_route_ops ts_sim_route_ops;
struct ts_sim_route_ops {
    const char *name;
    /* At the run's start, with the placement's `load` (before the links). NULL: none. */
    tsched_status (*load)(const tsched_sim *s, const ts_sim_route_ops *self);
    /* At the run's start, after every job's rules and bounds. NULL: none. */
    tsched_status (*check)(const tsched_sim *s, const ts_sim_route_ops *self);
    /* Before (begin 1) and after (0) the phases of job j are routed. NULL: nothing. */
    void (*job)(tsched_sim *s, const struct ts_sim_job *j, int begin);
    /* Once per phase with flows, before its flows. NULL: nothing. */
    tsched_status (*phase)(ts_sim_route_ctx *c, const ts_sim_route_ops *self);
    /* Flow i's fabric links into `out` (at most TSCHED_PATH_MAX_LINKS), their number in *np:
     * directed trunk links (2 * trunk + d), whose member the engine then picks, or with
     * `sim_links` directed sim links already. */
    tsched_status (*flow)(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i);
    int arg;       /* the row's parameter: a tsched_route_algo */
    int pick;      /* how a member of a trunk is picked: TS_PICK_* */
    int sim_links; /* `flow` gives sim links (member units, OCS slots, the dead link) */
};
enum { TS_PICK_LEAST = 0, TS_PICK_HASH = 1, TS_PICK_BALANCED = 2 };

/* reroute (CRUX §5) */
typedef struct ts_sim_reroute_ops {
    const char *name;
    /* After a start or a finish: route the running jobs' flows again. NULL: never. */
    tsched_status (*refresh)(tsched_sim *s);
} ts_sim_reroute_ops;

/* priority (§6) */
typedef struct ts_sim_prio_ops ts_sim_prio_ops;
struct ts_sim_prio_ops {
    const char *name;
    /* After a start or a finish: the running jobs' levels (flows in flight take them at
     * once). NULL: levels stay as they are. */
    tsched_status (*prioritize)(tsched_sim *s, const ts_sim_prio_ops *self);
    int arg;   /* the row's parameter: TS_SIM_PRIO_ARG(tsched_kcut_algo, tsched_prio_order) */
    int fixed; /* each job keeps the level the scenario gives it (below `levels`) */
};
/* A priority row's compression and order in its one `arg`. */
#define TS_SIM_PRIO_ARG(algo, order) ((int)(algo) | (int)(order) << 8)
#define TS_SIM_PRIO_ALGO(arg) ((arg) & 0xff)
#define TS_SIM_PRIO_ORDER(arg) ((arg) >> 8)

/* links (§3.1) */
typedef struct ts_sim_links_ops {
    const char *name;
    int members; /* one sim link per member link of a trunk, else one per trunk */
} ts_sim_links_ops;

extern const ts_sim_queue_ops ts_sim_queues[];
extern const ts_sim_place_ops ts_sim_placements[];
extern const ts_sim_route_ops ts_sim_routings[];
extern const ts_sim_reroute_ops ts_sim_reroutes[];
extern const ts_sim_prio_ops ts_sim_priorities[];
extern const ts_sim_links_ops ts_sim_links[];

/* Name of row i of policy `which` (a tsched_sim_policy), NULL past the last row. */
const char *ts_sim_policy_name(int which, int i);
/* Row index of `name` in policy `which`, or -1. */
int ts_sim_policy_find(int which, const char *name);
/* The rows chosen when the scenario names none. */
void ts_sim_policy_defaults(int *pol);

/* The rows of the hooks (their files). */
/* place_fit.c: first-fit, and the placement module's algorithms */
int ts_sim_place_first_fit(tsched_sim *s, const ts_sim_place_ops *self, struct ts_sim_job *j, tsched_status *err);
int ts_sim_place_module(tsched_sim *s, const ts_sim_place_ops *self, struct ts_sim_job *j, tsched_status *err);
/* place_vclos.c: vclos, ocs-vclos, vclos-free */
tsched_status ts_sim_vclos_load(tsched_sim *s, const ts_sim_place_ops *self);
int ts_sim_place_vclos(tsched_sim *s, const ts_sim_place_ops *self, struct ts_sim_job *j, tsched_status *err);
tsched_status ts_sim_vclos_failure(tsched_sim *s, const char *name, int up);
/* crius_adapter.c */
tsched_status ts_sim_crius_ready(tsched_sim *s, const ts_sim_place_ops *self);
tsched_status ts_sim_crius_schedule(tsched_sim *s);
/* route_module.c: greedy, ecmp, balanced-ecmp, ilp */
tsched_status ts_sim_route_module_phase(ts_sim_route_ctx *c, const ts_sim_route_ops *self);
tsched_status ts_sim_route_module_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i);
/* route_source.c */
tsched_status ts_sim_route_source_check(const tsched_sim *s, const ts_sim_route_ops *self);
tsched_status ts_sim_route_source_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i);
/* route_ideal.c */
tsched_status ts_sim_route_ideal_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i);
/* route_vclos.c */
tsched_status ts_sim_route_vclos_load(const tsched_sim *s, const ts_sim_route_ops *self);
void ts_sim_route_vclos_job(tsched_sim *s, const struct ts_sim_job *j, int begin);
tsched_status ts_sim_route_vclos_flow(uint32_t *np, uint32_t *out, const ts_sim_route_ctx *c, uint32_t i);
/* prio_kcut.c: crux, sincronia, varys; reroute refresh */
tsched_status ts_sim_prio_kcut(tsched_sim *s, const ts_sim_prio_ops *self);
tsched_status ts_sim_refresh_paths(tsched_sim *s);
/* prio_cassini.c: cassini (time shifts, every job at level 0) */
tsched_status ts_sim_prio_cassini(tsched_sim *s, const ts_sim_prio_ops *self);

#endif
