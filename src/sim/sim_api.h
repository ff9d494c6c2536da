/* Internal: what the sim readers (trace_load.c, scenario_load.c) need from the engine beyond
 * the public API of topo-sched/sim.h, and the one conversion of seconds to the clock. */
#ifndef TS_SIM_API_H
#define TS_SIM_API_H

#include <math.h>
#include <stdint.h>

#include "topo-sched/sim.h"

/* The fabric the simulation runs on (the readers resolve node and switch names in it). */
const tsched_topology *ts_sim_topology(const tsched_sim *sim);
/* Start/finish an all-or-nothing batch of additions: on error, ts_sim_batch_abort drops every job added since ts_sim_batch_begin. */
void ts_sim_batch_begin(tsched_sim *sim);
void ts_sim_batch_abort(tsched_sim *sim);
/* The scenario's name (`tsched.scenario.v1` name, written as the result's "scenario"); copied.
 * Errors: TSCHED_E_INVALID (NULL), TSCHED_E_NOMEM, TSCHED_E_STATE once the run has started. */
tsched_status ts_sim_set_name(tsched_sim *sim, const char *name);
/* Scenario `shared_nodes` and `host_links` (doc/sim.md "Shared nodes and host-internal
 * links"): shared, host 1 on, 0 off, -1 as they are. Errors: TSCHED_E_RANGE naming the field (a
 * capacity not finite, pcie_gbps not positive, nvlink_gbps negative), TSCHED_E_STATE once the
 * run has started. */
tsched_status ts_sim_set_host(tsched_sim *sim, int shared, int host, double pcie_gbps, double nvlink_gbps);

/* Largest time in seconds the readers accept: 9.2e9 s * 1e9 still fits an int64_t count of
 * nanoseconds (INT64_MAX is about 9.223e18). Larger or non-finite values are TSCHED_E_RANGE
 * in the reader, before ts_sim_ns() is called. */
#define TS_SIM_MAX_S 9.2e9

/* Seconds to the clock's nanoseconds, rounded to the nearest (halves away from zero;
 * doc/sim.md §1.1). Saturates at INT64_MIN / INT64_MAX for values the readers would have
 * rejected, and gives 0 for NaN, so it is defined for every double. */
static inline int64_t ts_sim_ns(double seconds)
{
    if (seconds != seconds)
        return 0;
    double ns = seconds * 1e9;
    /* 2^63 as a double: the first value that does not fit */
    if (ns >= 9223372036854775808.0)
        return INT64_MAX;
    if (ns <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)llround(ns);
}

#endif
