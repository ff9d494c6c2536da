/* Internal calls between the sim module's readers and its engine. */
#ifndef TS_SIM_API_H
#define TS_SIM_API_H

#include <math.h>
#include <stdint.h>

#include "topo-sched/sim.h"

const tsched_topology *ts_sim_topology(const tsched_sim *sim);
/* Start/finish an all-or-nothing batch of additions: on error, ts_sim_batch_abort drops every job added since ts_sim_batch_begin. */
void ts_sim_batch_begin(tsched_sim *sim);
void ts_sim_batch_abort(tsched_sim *sim);
tsched_status ts_sim_set_name(tsched_sim *sim, const char *name);

/* Seconds to integer nanoseconds, rounded to nearest (doc/sim.md §1.1); the caller has
 * checked the value is finite and at most ~9.2e9 s. */
static inline int64_t ts_sim_ns(double seconds)
{
    double ns = nearbyint(seconds * 1e9);
    if (ns >= 9.2e18)
        return INT64_MAX;
    if (ns <= -9.2e18)
        return INT64_MIN;
    return (int64_t)ns;
}

#endif
