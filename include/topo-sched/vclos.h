/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file vclos.h
 * @brief vClos and OCS-vClos (doc/vclos.md): every multi-leaf job gets its own leaf-spine
 *        sub-fabric of reserved member links and a static source route per NIC, so that its
 *        ring, all-to-all and halving-doubling steps never share a directed link with
 *        anything; OCS-vClos re-points idle optical circuits to build such sub-fabrics.
 *
 * A handle holds the reservations of running jobs over one two-tier fabric. It reads the
 * fabric's free GPUs and down elements once, at creation, and keeps its own occupancy and
 * down set afterwards: the topology is never modified and must outlive the handle.
 *
 * Link ids: in modes `vclos` and `free` a link is a member link of the topology
 * (tsched_topology_find_member(), named `a~b#k`); in mode `ocs-vclos` a link is a leaf's
 * port on an optical circuit switch, id = tsched_topology_num_members() + leaf * U + k
 * (leaf = position of the leaf among tier-0 switches, U = OCSes), named after the circuit
 * it carries: `leafA~spineB@ocsK` or `leafA~leafB@ocsK`. One handle is used by one thread
 * at a time.
 */
#ifndef TOPO_SCHED_VCLOS_H
#define TOPO_SCHED_VCLOS_H

#include "common.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque reservations over a two-tier fabric. */
typedef struct tsched_vclos tsched_vclos;

/** What the handle allocates. */
typedef enum tsched_vclos_mode {
    TSCHED_VCLOS_MODE_VCLOS = 0, /**< stages 0, 1, 2: reserved member links (vClos) */
    TSCHED_VCLOS_MODE_OCS = 1,   /**< stages 0, 1, 2a, 2b, 3 over optical circuits (OCS-vClos) */
    TSCHED_VCLOS_MODE_FREE = 2   /**< stages 0-2 as if every member were free; nothing reserved */
} tsched_vclos_mode;

/** Which stage-2 shapes (l leaves x q nodes) are tried. */
typedef enum tsched_vclos_shapes {
    TSCHED_VCLOS_SHAPES_ALL = 0, /**< every l >= 2 dividing the node count (default) */
    TSCHED_VCLOS_SHAPES_POW2 = 1 /**< only l and q powers of two (the paper's FindvClos) */
} tsched_vclos_shapes;

/** Outcome of tsched_vclos_allocate(). A wait is not an error: nothing was reserved. */
typedef enum tsched_vclos_outcome {
    TSCHED_VCLOS_ALLOCATED = 0,    /**< the job runs */
    TSCHED_VCLOS_WAIT_GPU = 1,     /**< it would wait even with every link free */
    TSCHED_VCLOS_WAIT_NETWORK = 2, /**< idle nodes exist but no isolated sub-fabric */
    TSCHED_VCLOS_WAIT_TIMEOUT = 3  /**< the time limit ran out before any allocation was found */
} tsched_vclos_outcome;

/** Collectives whose steps the source routes keep contention-free (not workload's tsched_pattern). */
typedef enum tsched_vclos_pattern {
    TSCHED_VCLOS_RING = 0,     /**< one step: r -> r + 1 mod R */
    TSCHED_VCLOS_ALLTOALL = 1, /**< R - 1 steps: step t sends r -> r + t + 1 mod R */
    TSCHED_VCLOS_HD = 2        /**< log2 R steps: step t sends r -> r XOR 2^t (R a power of two) */
} tsched_vclos_pattern;

/** How flows pick member links in `free` mode (the baselines of doc/vclos.md). */
typedef enum tsched_vclos_routing {
    TSCHED_VCLOS_ROUTING_SOURCE = 0,       /**< SR: the k-th NIC of a leaf uses spine k mod S (default) */
    TSCHED_VCLOS_ROUTING_ECMP = 1,         /**< seeded hash per flow, load-blind */
    TSCHED_VCLOS_ROUTING_BALANCED_ECMP = 2 /**< least-loaded member per flow, over one whole step */
} tsched_vclos_routing;

/** What a failure or repair did to a running job (tsched_vclos_changes()). */
typedef enum tsched_vclos_change {
    TSCHED_VCLOS_REPAIRED = 0, /**< lost members replaced on other spines; ranks unchanged */
    TSCHED_VCLOS_DEGRADED = 1, /**< some lost member could not be replaced; routes through it are gone */
    TSCHED_VCLOS_EVICTED = 2   /**< lost a node or leaf: released (the caller requeues it) */
} tsched_vclos_change;

/**
 * Facts about one running job. Output struct: set `size` to sizeof(tsched_vclos_jobinfo)
 * before the call (older sizes are accepted, DESIGN 3).
 */
typedef struct tsched_vclos_jobinfo {
    size_t size;            /**< sizeof(tsched_vclos_jobinfo), set by the caller */
    uint32_t gpus;          /**< GPUs asked for */
    uint32_t stage;         /**< 0 one node, 1 one leaf, 2 vClos (OCS: 2 also for 2a, 2b and 3) */
    uint32_t ocs_stage;     /**< OCS mode: 0, 1, 20 (2a), 21 (2b), 3; else = stage */
    uint32_t nodes;         /**< nodes held */
    uint32_t gpus_per_node; /**< GPUs held on each node */
    uint32_t ranks;         /**< R = nodes x NICs (0 for stage 0) */
    uint32_t leaves;        /**< l (1 for stages 0 and 1) */
    uint32_t vspines;       /**< s = ranks per leaf (0 below stage 2) */
    uint32_t links;         /**< reserved links (l x s in vClos mode, 0 in free mode) */
    int64_t objective;      /**< stage 2: the ILP objective of doc/vclos.md §3; else 0 */
    int optimal;            /**< stage 2: 1 when proven optimal; else 1 */
    int degraded;           /**< 1 when a lost member could not be repaired */
} tsched_vclos_jobinfo;

/**
 * Make a handle over a two-tier fabric in `mode`. Reads the fabric's state once.
 * Ownership: `*out` is freed with tsched_vclos_free(); `topo` must outlive it.
 * Errors: TSCHED_E_INVALID (NULL, unbuilt fabric, a tier-2 switch, rails, nodes with different
 * GPU or NIC counts, OCS mode on a non-uniform fabric or when spines do not divide leaves,
 * a bad mode; the message names the element), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_vclos_new(tsched_vclos **out, const tsched_topology *topo, tsched_vclos_mode mode);
/** Free a handle (NULL is ignored). */
TSCHED_API void tsched_vclos_free(tsched_vclos *v);
/** Mode of the handle (-1 for NULL). */
TSCHED_API int tsched_vclos_mode_of(const tsched_vclos *v);
/** Choose the stage-2 shapes tried. TSCHED_E_INVALID for NULL or a bad value. */
TSCHED_API tsched_status tsched_vclos_set_shapes(tsched_vclos *v, tsched_vclos_shapes shapes);
/** Time limit of one whole tsched_vclos_allocate() in ms (default 1000, 0 = none). */
TSCHED_API tsched_status tsched_vclos_set_time_limit_ms(tsched_vclos *v, uint32_t ms);
/**
 * Routing of flows in `free` mode (default `source`, seed 1). TSCHED_E_STATE in the other
 * modes (their links are always the reserved source routes), TSCHED_E_INVALID for a bad value.
 */
TSCHED_API tsched_status tsched_vclos_set_routing(tsched_vclos *v, tsched_vclos_routing routing, uint64_t seed);

/**
 * Allocate `gpus` GPUs to the new job `job` by the stages of doc/vclos.md §2 (§4 in OCS
 * mode). `*outcome` tells whether it runs or waits (and why); a wait reserves nothing and is
 * TSCHED_OK. Errors: TSCHED_E_INVALID (NULL), TSCHED_E_RANGE (bad name, gpus 0 or above the
 * fabric's GPUs), TSCHED_E_DUPLICATE (`job` is running), TSCHED_E_SOLVER, TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_vclos_allocate(tsched_vclos *v, const char *job, uint32_t gpus,
                                               tsched_vclos_outcome *outcome);
/** Release a running job's GPUs, nodes and links at once. TSCHED_E_NOT_FOUND if not running. */
TSCHED_API tsched_status tsched_vclos_release(tsched_vclos *v, const char *job);
/**
 * Mark a node, switch, trunk `a~b` or member `a~b#k` down (`up` = 0) or up. Down: jobs on a
 * lost node or leaf are evicted, jobs on lost members are repaired or degraded (doc/vclos.md
 * §6); tsched_vclos_changes() lists them. Up touches no job. TSCHED_E_NOT_FOUND for an
 * unknown name.
 */
TSCHED_API tsched_status tsched_vclos_set_up(tsched_vclos *v, const char *name, int up);
/**
 * The jobs the last tsched_vclos_set_up() touched, in allocation order: `jobs[i]` (owned by
 * the handle, valid until the next state change) and `what[i]`. Either array may be NULL
 * when `cap` is 0. TSCHED_E_BUFFER with `*count` = the number needed when `cap` is too small.
 */
TSCHED_API tsched_status tsched_vclos_changes(const char **jobs, tsched_vclos_change *what, size_t cap, size_t *count,
                                              const tsched_vclos *v);
/**
 * Load running jobs from an earlier `tsched.vclos.v1` output (its `jobs`, with their nodes,
 * leaves, spines, links and circuits, and `mode`, which must equal the handle's), as if they
 * had been allocated in that order. Validated: names exist, resources are idle and up,
 * shapes are consistent. Errors name the field: TSCHED_E_PARSE, _FORMAT, _TYPE, _RANGE,
 * _NOT_FOUND, _DUPLICATE, _INVALID; on error the handle is unchanged.
 */
TSCHED_API tsched_status tsched_vclos_load_state(tsched_vclos *v, const char *json, size_t len);

/** Number of running jobs (0 for NULL). */
TSCHED_API uint32_t tsched_vclos_num_jobs(const tsched_vclos *v);
/** Name of the i-th running job in allocation order (owned by the handle), or NULL. */
TSCHED_API const char *tsched_vclos_job_name(const tsched_vclos *v, uint32_t i);
/** Facts about a running job. TSCHED_E_NOT_FOUND if not running, TSCHED_E_INVALID for a bad `size`. */
TSCHED_API tsched_status tsched_vclos_job_info(tsched_vclos_jobinfo *info, const tsched_vclos *v, const char *job);
/**
 * Nodes of a running job in rank order (chosen leaves ascending, nodes ascending inside a
 * leaf). TSCHED_E_BUFFER with `*count` = the number needed when `cap` is too small.
 */
TSCHED_API tsched_status tsched_vclos_job_nodes(uint32_t *nodes, size_t cap, size_t *count, const tsched_vclos *v,
                                                const char *job);
/**
 * Ranks of a running job: rank r is NIC `nic[r]` of node `node[r]`, going up on link
 * `uplink[r]` (TSCHED_NONE below stage 2, in free mode, or when lost). Any array may be NULL.
 * Stage-0 jobs have no ranks. TSCHED_E_BUFFER as above; TSCHED_E_NOT_FOUND.
 */
TSCHED_API tsched_status tsched_vclos_job_ranks(uint32_t *node, uint32_t *nic, uint32_t *uplink, size_t cap,
                                                size_t *count, const tsched_vclos *v, const char *job);
/**
 * Links reserved by a running job: the l x s links leaf by leaf, virtual spine ascending
 * (TSCHED_NONE where a member was lost and not repaired). TSCHED_E_BUFFER as above.
 */
TSCHED_API tsched_status tsched_vclos_job_links(uint32_t *links, size_t cap, size_t *count, const tsched_vclos *v,
                                                const char *job);
/**
 * The two links of the flow from rank `src_rank` to rank `dst_rank` of a running job:
 * `*up_link` and `*down_link` (link ids as in the file comment). Both are TSCHED_NONE when
 * the ranks share a leaf (no fabric link) or the link was lost; a leaf-to-leaf circuit
 * (OCS stage 2a) has the source leaf's port as up link and the destination's as down link.
 * In free mode the routing of tsched_vclos_set_routing() answers (`source` and `ecmp`
 * only: `balanced-ecmp` depends on a whole step, TSCHED_E_STATE).
 * Errors: TSCHED_E_NOT_FOUND (job), TSCHED_E_RANGE (rank), TSCHED_E_INVALID.
 */
TSCHED_API tsched_status tsched_vclos_route(uint32_t *up_link, uint32_t *down_link, const tsched_vclos *v,
                                            const char *job, uint32_t src_rank, uint32_t dst_rank);
/**
 * vClos source routing (SR, doc/vclos.md §5) of the flow from NIC `src_nic` of node
 * `src_node` to NIC `dst_nic` of node `dst_node` on a two-tier fabric: with k the source
 * NIC's place under its leaf A (the NICs of the nodes tsched_topology_leaf_nodes() lists
 * before `src_node`, plus `src_nic`) and S the spines A has a trunk to (ascending index), it
 * goes up on the (k mod S)-th of them, member floor(k / S) mod K of trunk A~spine, and down
 * on member floor(k / S) mod K' of the trunk from that spine to the destination NIC's leaf.
 * Static: blind to load and to what is up or down (the caller decides what a down member
 * means). Needs no handle: the vclos handle's free mode and the simulator's routing
 * `source` both route with it. `*up_member`, `*down_member`: topology member ids; both
 * TSCHED_NONE when the two NICs share a leaf. Errors: TSCHED_E_INVALID (NULL),
 * TSCHED_E_RANGE (a node or NIC that does not exist), TSCHED_E_NO_PATH (the leaf has no
 * spine, or the chosen spine no trunk to the destination leaf); on those two both out
 * values are TSCHED_NONE.
 */
TSCHED_API tsched_status tsched_vclos_source_route(uint32_t *up_member, uint32_t *down_member,
                                                   const tsched_topology *topo, uint32_t src_node, uint32_t src_nic,
                                                   uint32_t dst_node, uint32_t dst_nic);
/** Number of link ids of this handle (members, or members + OCS ports). */
TSCHED_API uint32_t tsched_vclos_num_links(const tsched_vclos *v);
/** Capacity of one direction of a link, Gbit/s (0 for a bad id). */
TSCHED_API double tsched_vclos_link_gbps(const tsched_vclos *v, uint32_t link);
/** Name of a link (`a~b#k` or `leafA~spineB@ocsK`); caller frees with tsched_free(). TSCHED_E_RANGE bad id. */
TSCHED_API tsched_status tsched_vclos_link_name(char **out, const tsched_vclos *v, uint32_t link);
/**
 * Number of steps of `pattern` for a job of `ranks` ranks (ring 1, alltoall R - 1, hd log2 R;
 * 0 when R < 2 or hd and R is not a power of two).
 */
TSCHED_API uint32_t tsched_vclos_pattern_steps(tsched_vclos_pattern pattern, uint32_t ranks);
/**
 * The handle's jobs as `tsched.vclos.v1` (doc/FORMATS.md) without `results`, with the
 * `flows` of step `step` of `pattern` (-1: no flows). Caller frees with tsched_free().
 */
TSCHED_API tsched_status tsched_vclos_to_json(char **out, const tsched_vclos *v, int pattern, uint32_t step);
/**
 * Apply a `tsched.vclos-requests.v1` document to the handle, request by request, and write
 * the whole `tsched.vclos.v1` answer (results, jobs, waiting) to `*out`. `pattern` and
 * `step` as in tsched_vclos_to_json(); `timing` 0 drops every `solve_ms`. Errors name the
 * request and field (`requests[3].gpus: 0 is not a positive integer`); on an error `*out`
 * is NULL and the requests before the bad one stay applied.
 */
TSCHED_API tsched_status tsched_vclos_apply_requests(char **out, tsched_vclos *v, const char *json, size_t len,
                                                    int pattern, uint32_t step, int timing);
/** tsched_vclos_apply_requests() with the answer laid out as `opts` asks (NULL: indented, with
 *  every `solve_ms`; `opts->timing` replaces `timing`). The compact text is the same document
 *  without whitespace. Errors as tsched_vclos_apply_requests(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_vclos_apply_requests_opts(char **out, tsched_vclos *v, const char *json, size_t len,
                                                          int pattern, uint32_t step, const tsched_output_opts *opts);

#ifdef __cplusplus
}
#endif

#endif
