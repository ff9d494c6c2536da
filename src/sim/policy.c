/* The simulator's policy tables (sim_policy.h): one row per policy, in the order
 * tsched_sim_set_policy lists the names. A new policy: its hooks in a file of its own and
 * one row here (doc/sim.md, "Where the code lives"). */
#include <string.h>

#include "topo-sched/placement.h"
#include "topo-sched/priority.h"
#include "topo-sched/vclos.h"

#include "sim_policy.h"

const ts_sim_queue_ops ts_sim_queues[] = {
    {"fifo", 0, 1},
    {"ff", 1, 0},
    {NULL, 0, 0},
};

const ts_sim_place_ops ts_sim_placements[] = {
    {"first-fit", NULL, NULL, ts_sim_place_first_fit, NULL, NULL, 0, 0},
    {"best-fit", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_BEST_FIT, 0},
    {"random-fit", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_RANDOM_FIT, 0},
    {"gpu-pack", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_GPU_PACK, 0},
    {"topo-aware", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_TOPO_AWARE, 0},
    {"exhaustive", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_EXHAUSTIVE, 0},
    {"mip", NULL, NULL, ts_sim_place_module, NULL, NULL, TSCHED_PLACE_MIP, 0},
    {"vclos", ts_sim_vclos_load, NULL, ts_sim_place_vclos, NULL, ts_sim_vclos_failure, TSCHED_VCLOS_MODE_VCLOS,
     TS_PLACE_RESERVES},
    {"ocs-vclos", ts_sim_vclos_load, NULL, ts_sim_place_vclos, NULL, ts_sim_vclos_failure, TSCHED_VCLOS_MODE_OCS,
     TS_PLACE_RESERVES},
    {"vclos-free", ts_sim_vclos_load, NULL, ts_sim_place_vclos, NULL, ts_sim_vclos_failure, TSCHED_VCLOS_MODE_FREE,
     0},
    {"crius", NULL, ts_sim_crius_ready, NULL, ts_sim_crius_schedule, NULL, 0, TS_PLACE_CELLS},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0, 0},
};

const ts_sim_route_ops ts_sim_routings[] = {
    {"greedy", NULL, NULL, NULL, ts_sim_route_module_phase, ts_sim_route_module_flow, TSCHED_ROUTE_GREEDY,
     TS_PICK_LEAST, 0},
    {"ecmp", NULL, NULL, NULL, ts_sim_route_module_phase, ts_sim_route_module_flow, TSCHED_ROUTE_ECMP, TS_PICK_HASH,
     0},
    {"balanced-ecmp", NULL, NULL, NULL, ts_sim_route_module_phase, ts_sim_route_module_flow,
     TSCHED_ROUTE_BALANCED_ECMP, TS_PICK_BALANCED, 0},
    {"ilp", NULL, NULL, NULL, ts_sim_route_module_phase, ts_sim_route_module_flow, TSCHED_ROUTE_ILP, TS_PICK_LEAST,
     0},
    {"source", NULL, ts_sim_route_source_check, NULL, NULL, ts_sim_route_source_flow, 0, TS_PICK_LEAST, 1},
    {"ideal", NULL, NULL, NULL, NULL, ts_sim_route_ideal_flow, 0, TS_PICK_LEAST, 0},
    {"vclos", ts_sim_route_vclos_load, NULL, ts_sim_route_vclos_job, NULL, ts_sim_route_vclos_flow, 0, TS_PICK_LEAST,
     1},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0},
};

const ts_sim_reroute_ops ts_sim_reroutes[] = {
    {"none", NULL},
    {"refresh", ts_sim_refresh_paths},
    {NULL, NULL},
};

const ts_sim_prio_ops ts_sim_priorities[] = {
    {"none", NULL, 0, 0},
    {"fixed", NULL, 0, 1},
    {"crux", ts_sim_prio_kcut, TS_SIM_PRIO_ARG(TSCHED_KCUT_CRUX, TSCHED_PRIO_ORDER_CRUX), 0},
    /* the baselines: their own order, then their own compression (TACCL* states none: the
     * one baseline compression CRUX evaluates, Sincronia's) */
    {"sincronia", ts_sim_prio_kcut, TS_SIM_PRIO_ARG(TSCHED_KCUT_SINCRONIA, TSCHED_PRIO_ORDER_SINCRONIA), 0},
    {"varys", ts_sim_prio_kcut, TS_SIM_PRIO_ARG(TSCHED_KCUT_VARYS, TSCHED_PRIO_ORDER_VARYS), 0},
    {"taccl", ts_sim_prio_kcut, TS_SIM_PRIO_ARG(TSCHED_KCUT_SINCRONIA, TSCHED_PRIO_ORDER_TACCL), 0},
    {"cassini", ts_sim_prio_cassini, 0, 0},
    {NULL, NULL, 0, 0},
};

const ts_sim_links_ops ts_sim_links[] = {
    {"trunk", 0},
    {"member", 1},
    {NULL, 0},
};

const char *ts_sim_policy_name(int which, int i)
{
    if (i < 0)
        return NULL;
    /* every table ends with a NULL name: walking to row i stops there */
    for (int k = 0; k <= i; k++) {
        const char *n = NULL;
        switch (which) {
        case TSCHED_SIM_QUEUE: n = ts_sim_queues[k].name; break;
        case TSCHED_SIM_PLACEMENT: n = ts_sim_placements[k].name; break;
        case TSCHED_SIM_ROUTING: n = ts_sim_routings[k].name; break;
        case TSCHED_SIM_REROUTE: n = ts_sim_reroutes[k].name; break;
        case TSCHED_SIM_PRIORITY: n = ts_sim_priorities[k].name; break;
        case TSCHED_SIM_LINKS: n = ts_sim_links[k].name; break;
        default: return NULL;
        }
        if (!n || k == i)
            return n;
    }
    return NULL;
}

int ts_sim_policy_find(int which, const char *name)
{
    for (int i = 0;; i++) {
        const char *n = ts_sim_policy_name(which, i);
        if (!n)
            return -1;
        if (strcmp(n, name) == 0)
            return i;
    }
}

void ts_sim_policy_defaults(int *pol)
{
    static const char *const names[TS_SIM_NPOL] = {"fifo", "best-fit", "greedy", "none", "none", "trunk"};
    for (int k = 0; k < TS_SIM_NPOL; k++)
        pol[k] = ts_sim_policy_find(k, names[k]);
}
