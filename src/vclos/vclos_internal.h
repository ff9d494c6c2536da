/* Internal: the vclos handle (doc/vclos.md). Who does what:
 *   handle.c    new/free/setters, lookups, ranks, routes, link names, pattern steps
 *   stage.c     stages 0 and 1, the stage-2 commit (nodes and members of a chosen shape),
 *               release, tsched_vclos_allocate (dispatch by mode, wait reasons)
 *   stage2.c    stage 2: shapes, eligibility filter, class-aggregated ILP (vc_stage2)
 *   ocs/        OCS-vClos: the layer and circuits (ocs.c), stages 2a, 2b, 3 (ocs_stage.c),
 *               the master ILP and cut loop (ocs_ilp.c), circuit assignment (ocs_assign.c)
 *   failure.c   set_up: evict, repair, degrade; tsched_vclos_changes
 *   free_route.c  free-mode routing (source, ecmp, balanced-ecmp)
 *   io/         tsched.vclos.v1 out (json_out.c), tsched.vclos-requests.v1 in and
 *               load_state (requests.c)
 *
 * Indices: leaves and spines are numbered locally 0..L-1 and 0..S-1 in ascending switch
 * index (tsched_topology_tier_switch order); `pair = leaf * S + spine`. Link ids are the
 * topology's member ids, then (OCS mode) ports: nmembers + leaf * U + k. */
#ifndef TS_VCLOS_INTERNAL_H
#define TS_VCLOS_INTERNAL_H

#include <stdint.h>

#include "topo-sched/vclos.h"
#include "../common/error.h"

#define VC_NONE UINT32_MAX

typedef struct vc_job {
    char *name;
    uint64_t seq;        /* allocation number: jobs[] stays in allocation order */
    uint32_t gpus;       /* asked for */
    uint32_t stage;      /* 0, 1, 2 */
    uint32_t ocs_stage;  /* OCS: 0, 1, 20 (2a), 21 (2b), 3; else = stage */
    uint32_t nnodes;     /* nodes held */
    uint32_t gpn;        /* GPUs held on each node */
    uint32_t *nodes;     /* nnodes, rank order: leaves ascending, nodes ascending */
    uint32_t l, s;       /* leaves, virtual spines (= ranks per leaf); stage 0: l = 1, s = 0 */
    uint32_t *leaves;    /* l local leaf indices, ascending */
    uint32_t *sp;        /* s: physical spine (local) of each virtual spine; VC_NONE for OCS 2a */
    uint32_t *links;     /* l * s reserved link ids, leaf by leaf, v ascending (VC_NONE: lost);
                            NULL in free mode and below stage 2 */
    int64_t objective;   /* stage 2 ILP objective */
    int optimal;         /* 1 unless a time limit cut the solve */
    int degraded;        /* a lost member could not be repaired */
} vc_job;

/* OCS layer state, owned by ocs/ (opaque to the rest). */
typedef struct vc_ocs vc_ocs;

struct tsched_vclos {
    const tsched_topology *topo;
    uint64_t topo_id, topo_gen;
    tsched_vclos_mode mode;
    tsched_vclos_shapes shapes;
    uint32_t time_limit_ms;  /* 0 = none */
    tsched_vclos_routing routing;
    uint64_t seed;

    /* fabric shape */
    uint32_t L, S;           /* leaves, spines */
    uint32_t T, E;           /* GPUs and NICs per node */
    uint32_t nnodes, nsw, ntrunks, nmembers, nlinks;
    uint32_t *leaf_sw;       /* L: switch index */
    uint32_t *spine_sw;      /* S: switch index */
    uint32_t *sw_local;      /* nsw: local index in its tier */
    uint32_t *node_leaf;     /* nnodes: local leaf */
    uint32_t *leaf_first;    /* L + 1: CSR into leaf_nodes */
    uint32_t *leaf_nodes;    /* nodes of each leaf, ascending */
    uint32_t *pair_trunk;    /* L * S: trunk or VC_NONE */
    uint32_t *pair_k;        /* L * S: members of the pair (0 without trunk) */
    uint32_t *pair_first;    /* L * S: first member id */
    uint32_t *member_pair;   /* nmembers: pair of the member */
    uint32_t kmax;           /* max pair_k */
    uint32_t maxp;           /* max nodes under one leaf */
    double member_gbps;      /* of member 0 (OCS: every port) */

    /* state (the handle's own copy, doc/vclos.md §6) */
    uint8_t *node_down;      /* nnodes: the node itself */
    uint8_t *sw_down;        /* nsw */
    uint8_t *trunk_down;     /* ntrunks */
    uint8_t *member_down;    /* nmembers */
    uint32_t *node_free;     /* nnodes: free GPUs */
    uint64_t *node_owner;    /* nnodes: seq of the stage-1/2 job holding the node, 0 = none */
    uint64_t *link_owner;    /* nlinks: seq of the job holding the link, 0 = free (seq >= 1) */

    /* running jobs in allocation order (compacted on release) */
    vc_job **jobs;
    uint32_t njobs;
    size_t jobs_cap;
    uint64_t next_seq;

    /* the last set_up's changes: names copied (evicted jobs are gone) */
    char **chg_names;
    tsched_vclos_change *chg_what;
    uint32_t nchg;
    size_t chg_cap;

    vc_ocs *ocs;             /* OCS mode only */
};

/* ---- handle.c ---- */
/* Slot of a running job or VC_NONE. */
uint32_t vc_find_job(const tsched_vclos *v, const char *name);
/* 1 if the node is up (itself and its leaf) in the handle's state. */
int vc_node_up(const tsched_vclos *v, uint32_t node);
/* Idle: up, all GPUs free, not held by a job. */
int vc_node_idle(const tsched_vclos *v, uint32_t node);
/* Idle nodes under local leaf n (RSN). */
uint32_t vc_rsn(const tsched_vclos *v, uint32_t leaf);
/* 1 if member `m` is up: itself, its trunk and both switches. */
int vc_member_up(const tsched_vclos *v, uint32_t member);
/* 1 if member `m` is up and not reserved (free mode: up). */
int vc_member_free(const tsched_vclos *v, uint32_t member);
/* C_nm: free members of pair (n, m). */
uint32_t vc_pair_free(const tsched_vclos *v, uint32_t leaf, uint32_t spine);
/* Lowest-index free member of pair (n, m) not in `taken[0..ntaken)`, or VC_NONE. */
uint32_t vc_pair_pick(const tsched_vclos *v, uint32_t leaf, uint32_t spine, const uint32_t *taken, uint32_t ntaken);
/* Leaf position (0..l-1) of a local leaf inside the job, or VC_NONE. */
uint32_t vc_job_leaf_pos(const vc_job *j, uint32_t leaf);
/* Destination rank of rank r in step `step` of `pattern` over R ranks, or VC_NONE. */
uint32_t vc_pattern_dst(tsched_vclos_pattern pattern, uint32_t step, uint32_t R, uint32_t r);
/* Append a job (allocation order) and register its links and nodes as held. */
tsched_status vc_job_add(tsched_vclos *v, vc_job *j);
void vc_job_destroy(vc_job *j);
/* Remove job slot i: give back GPUs, nodes and links; free it. */
void vc_job_remove(tsched_vclos *v, uint32_t slot);
/* Stage-2 shapes for Q nodes: the leaf counts l (ascending) with l >= 2, l * q = Q,
 * q <= maxp, s = q * E <= `max_uplinks` (a leaf's member links, or its OCS ports), and with
 * the pow2 shapes option l and q powers of two. Writes at most `cap` values, returns how many. */
uint32_t vc_shapes(const tsched_vclos *v, uint32_t Q, uint32_t max_uplinks, uint32_t *l_out, uint32_t cap);
/* Largest number of member links of one leaf (sum over its pairs). */
uint32_t vc_max_leaf_uplinks(const tsched_vclos *v);
/* Elapsed-time check of one allocate: 1 when past the deadline (deadline 0 = none). */
int vc_past(double deadline);

/* ---- stage.c ---- */
/* Stage 0 / stage 1: fill `j` (nodes, gpn, ...) and return 1 if found, 0 if not. */
int vc_stage0(const tsched_vclos *v, vc_job *j, uint32_t gpus);
int vc_stage1(const tsched_vclos *v, vc_job *j, uint32_t Q);
/* Fill a stage-2 job of shape (l, q) from the chosen leaves (l, ascending) and the
 * physical spine of each virtual spine (s = q * E, in the order §2 fixes: ascending spine,
 * repeats consecutive): its q lowest idle nodes per leaf and, unless free mode, the lowest
 * free member of each (leaf, sp(v)) not yet taken by the job. TSCHED_E_INTERNAL if a
 * member is missing (the ILP's answer was not feasible). */
tsched_status vc_fill_stage2(const tsched_vclos *v, vc_job *j, uint32_t l, uint32_t q, const uint32_t *leaves,
                             const uint32_t *sp);

/* ---- stage2.c ----
 * Stage 2 for a job of Q nodes: shapes in ascending l (shapes option), each solved exactly;
 * on success fills `j` (via vc_fill_stage2, objective, optimal) and sets *found = 1.
 * `ignore_links` = 1 treats every member of every pair as free (the wait-reason check and
 * free mode). `*timed_out` = 1 when the deadline (CLOCK_MONOTONIC s, 0 none) cut the search
 * before any allocation. */
tsched_status vc_stage2(const tsched_vclos *v, vc_job *j, uint32_t Q, int ignore_links, double deadline,
                        int *found, int *timed_out);

/* ---- ocs/ ---- */
tsched_status vc_ocs_new(tsched_vclos *v);     /* sets v->ocs and v->nlinks; E_INVALID */
void vc_ocs_free(vc_ocs *o);
/* Stages 2a, 2b, 3 for Q nodes (after 0 and 1 failed): as vc_stage2, reserving circuits. */
tsched_status vc_ocs_stage2(tsched_vclos *v, vc_job *j, uint32_t Q, double deadline, int *found, int *timed_out);
/* Name of port link (`leafA~spineB@ocsK`); caller frees. */
tsched_status vc_ocs_link_name(char **out, const tsched_vclos *v, uint32_t link);
/* A port's circuit far end for JSON: spine (local) or VC_NONE when joined to a leaf (then *leaf set). */
void vc_ocs_port_peer(const tsched_vclos *v, uint32_t link, uint32_t *spine, uint32_t *leaf, uint32_t *ocs,
                      int *rewired);

/* ---- failure.c ---- */
tsched_status vc_set_up(tsched_vclos *v, const char *name, int up);

/* ---- free_route.c ---- */
/* Free-mode route of one flow by `source` or `ecmp` (doc/vclos.md §5). */
tsched_status vc_free_route(const tsched_vclos *v, const vc_job *j, uint32_t src, uint32_t dst, uint32_t *up,
                            uint32_t *down);

/* The links of every flow of step `step` of `pattern` over all running jobs in free mode,
 * by the handle's routing (balanced-ecmp counts the whole step, jobs in allocation order,
 * flows by source rank). Rank r of the i-th job is entry off_i + r, off_i = the sum of
 * the ranks of the jobs before it; entries without a fabric flow get VC_NONE. `up`, `down`
 * hold the total ranks of all jobs. */
tsched_status vc_free_step(const tsched_vclos *v, tsched_vclos_pattern pattern, uint32_t step, uint32_t *up,
                           uint32_t *down);

#endif
