/* Internal: the frozen results of a simulation (tsched_sim_result), as the engine fills them
 * and the writers (JSON, CSV) read them. Everything is owned by the result. */
#ifndef TS_SIM_RESULT_H
#define TS_SIM_RESULT_H

#include "topo-sched/sim.h"

/* One interval [t, t + sample_ns) of the time series (doc/sim.md §5.2). Averages are exact
 * integrals over the interval; counts are taken at its start. */
typedef struct ts_sim_sample {
    double gpu_util;          /* computing GPU-time / (all GPUs x interval) */
    double busy_gpus_avg;     /* computing GPUs, time-averaged */
    uint32_t alloc_gpus;      /* GPUs held by running jobs, at the start */
    uint32_t running_jobs, queued_jobs, active_flows; /* at the start */
    double link_util_mean;    /* mean over directed fabric links of delivered / (capacity x interval) */
    double link_util_max;     /* the largest of them */
} ts_sim_sample;

/* One directed fabric link of the links report (§5.1). */
typedef struct ts_sim_link_stats {
    const char *a, *b;        /* sending and receiving switch (names owned by the result) */
    int64_t member;           /* -1 in trunk mode, else k */
    double gbps;              /* capacity */
    double mean_util;         /* delivered / (capacity x window) */
    double busy_frac;         /* share of the window it carried any flow */
} ts_sim_link_stats;

/* A job's last Cell under placement crius (pool NULL: it never ran). */
typedef struct ts_sim_cell_rec {
    const char *pool;              /* owned by the result */
    uint32_t gpus, stages;
    double iteration_s;
} ts_sim_cell_rec;

struct tsched_sim_result {
    char *scenario;                /* scenario name */
    tsched_sim_summary summary;    /* complete (size = sizeof) */
    uint32_t njobs;
    tsched_sim_job_stats *jobs;    /* complete structs; names owned by `strings` */
    uint32_t *node_off;            /* njobs + 1 offsets into node_names */
    const char **node_names;       /* each job's nodes in rank order (names owned by the fabric copy) */
    uint32_t nlinks;
    ts_sim_link_stats *links;
    int no_series;                 /* 1: the run kept no time series (option timeseries 0); 0 so that a
                                      zeroed result has one */
    int64_t sample_ns;             /* interval of `samples` */
    uint32_t nsamples;
    ts_sim_sample *samples;
    char *strings;                 /* arena of every name the result points to */
    /* placement crius (doc/sim.md §3.2): each job's Cell and GPUs per node, the events run */
    int crius;
    uint32_t *node_gpus;           /* parallel to node_names */
    ts_sim_cell_rec *cells;        /* per job */
    uint64_t crius_events;
};

/* Names of the enums as the JSON writes them. */
const char *ts_sim_status_name(int status);          /* "done", "until", "stalled" */
const char *ts_sim_wait_cause_name(int cause);       /* NULL for none, "gpu", "network", "timeout", "queue" */

#endif
