/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file topology.h
 * @brief The fabric: nodes, GPUs, NICs, leaf/spine/core switches, pods, trunks, state,
 *        and the equal-cost up-down paths between two NICs.
 *
 * Elements are addressed by dense indices from 0: nodes, switches (all tiers in one index
 * space), pods and trunks. Indices are stable for the life of a handle. A handle is built
 * once (generator, JSON, Slurm import, or tsched_topology_new() + add_* +
 * tsched_topology_build()) and may then only change its state (free GPUs, up/down).
 * Read-only calls on one built handle may run from several threads at once; a state
 * change must not run concurrently with anything else on the same handle.
 */
#ifndef TOPO_SCHED_TOPOLOGY_H
#define TOPO_SCHED_TOPOLOGY_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque fabric handle. */
typedef struct tsched_topology tsched_topology;

/**
 * Switch tiers. A link always joins two adjacent tiers. Tiers 0..2 have the names below;
 * a fabric may use tiers up to TSCHED_MAX_TIERS - 1 (tier k >= 3 is named `tier<k>`).
 */
typedef enum tsched_tier {
    TSCHED_TIER_LEAF = 0,  /**< leaf / ToR: nodes attach here */
    TSCHED_TIER_SPINE = 1, /**< spine / pod switch (Arnold's minipod = a pod) */
    TSCHED_TIER_CORE = 2   /**< core: joins pods */
} tsched_tier;

/** Number of named tiers (leaf, spine, core). */
#define TSCHED_TIERS 3
/** Number of tiers a fabric may use: switch tiers are 0 .. TSCHED_MAX_TIERS - 1. */
#define TSCHED_MAX_TIERS 8

/**
 * Domains used by the free-capacity queries. One numbering of levels for the whole library
 * (DESIGN 3): a level's number is the tier of the switches that bound it (leaf 0, pod 1,
 * cluster 2), shared by ::tsched_tier and ::tsched_domain.
 */
typedef enum tsched_level {
    TSCHED_LEVEL_LEAF = 0,    /**< one leaf switch */
    TSCHED_LEVEL_POD = 1,     /**< one pod */
    TSCHED_LEVEL_CLUSTER = 2, /**< the whole fabric (index ignored) */
    TSCHED_LEVEL_NVL = 3      /**< a multi-node NVLink domain (a node without one is alone) */
} tsched_level;

/** Generator kinds of `tsched.topology.v1` "generate.kind". */
typedef enum tsched_gen_kind {
    TSCHED_GEN_LEAF_SPINE = 0, /**< two tiers: every leaf links to every spine */
    TSCHED_GEN_CLOS3 = 1       /**< three tiers: pods of leaves and spines, cores in planes */
} tsched_gen_kind;

/**
 * Generator parameters (DESIGN 5.1). Initialise with tsched_topology_params_init(), which
 * sets `size` and the defaults, then set the fields of the chosen kind. Fields may be
 * appended in later versions; `size` tells the library which ones the caller knows.
 */
typedef struct tsched_gen_params {
    size_t size;             /**< sizeof(tsched_gen_params), set by the init function */
    tsched_gen_kind kind;    /**< leaf_spine or clos3 */
    const char *name;        /**< fabric name; NULL = "cluster" */
    uint32_t leaves;         /**< leaf_spine: number of leaves */
    uint32_t spines;         /**< leaf_spine: number of spines */
    uint32_t pods;           /**< clos3: number of pods */
    uint32_t leaves_per_pod; /**< clos3 */
    uint32_t spines_per_pod; /**< clos3: also the number of core planes */
    uint32_t cores;          /**< clos3: core c serves plane c mod spines_per_pod */
    uint32_t nodes_per_leaf; /**< nodes under each leaf */
    uint32_t gpus_per_node;  /**< GPUs per node */
    uint32_t nics_per_node;  /**< 0 = gpus_per_node */
    uint32_t uplinks;        /**< links per leaf-spine trunk; 0 = derived (see doc/topology.md) */
    double nic_gbps;         /**< speed of one NIC and of one fabric link */
    double oversubscription; /**< >= 1; divides each tier's uplink capacity; 0 = 1.0 */
    const char *gpu_type;    /**< NULL = "GPU" */
    uint32_t homes;          /**< leaves each node's NICs are split over (dual-homed hosts: 2);
                                  0 or 1 = one leaf per node (doc/topology.md, "Multi-homed
                                  nodes") */
} tsched_gen_params;

/** Fill `params` with the defaults of `kind` and set its `size`. */
TSCHED_API void tsched_topology_params_init(tsched_gen_params *params, tsched_gen_kind kind);

/** Options of the Slurm `topology.conf` and `topology.yaml` imports (the files have no GPU
 * or NIC facts). */
typedef struct tsched_slurm_options {
    size_t size;              /**< sizeof(tsched_slurm_options), set by the init function */
    const char *name;         /**< fabric name; NULL = "slurm" */
    uint32_t gpus_per_node;   /**< default 8 */
    uint32_t nics_per_node;   /**< 0 = gpus_per_node */
    double nic_gbps;          /**< default 400; a leaf's LinkSpeed overrides it for its nodes */
    const char *gpu_type;     /**< NULL = "GPU" */
    int block_nvl;            /**< block form: 1 (default) puts each block's nodes in an NVLink
                                   domain named after the block; 0 does not */
    const char *topology;     /**< topology.yaml: the entry to import; NULL = the default one */
    const char *nvl_topology; /**< topology.yaml: a block entry whose blocks set the NVLink
                                   domains of the imported nodes; NULL = none */
    const char *nodes_json;   /**< NUL-terminated text of `scontrol show nodes --json` or
                                   `sinfo --json` (Slurm 22.05 and later): per-node GPUs from
                                   `gres`, allocated GPUs from `gres_used`, and the node state
                                   (doc/slurm-import.md, "Node state"); NULL = none (every node
                                   up and free with `gpus_per_node` GPUs) */
} tsched_slurm_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_slurm_options_init(tsched_slurm_options *opts);

/**
 * Options of the Kubernetes nodes import (the JSON of `kubectl get nodes -o json`). The
 * domain levels come from `levels` or, when `nlevels` is 0, from a Kueue `Topology`
 * object. Initialise with tsched_k8s_options_init(); NULL strings mean the defaults.
 */
typedef struct tsched_k8s_options {
    size_t size;                /**< sizeof(tsched_k8s_options), set by the init function */
    const char *const *levels;  /**< node label keys, coarsest first, as a Kueue Topology's
                                     spec.levels[].nodeLabel; a last `kubernetes.io/hostname`
                                     (the node itself) is dropped */
    uint32_t nlevels;           /**< entries of `levels`; 0 = take them from kueue_topology */
    const char *kueue_topology; /**< NUL-terminated text of a Kueue Topology (JSON or the YAML
                                     subset of doc/slurm-import.md); NULL = none */
    const char *nvl_label;      /**< label whose value names the node's NVLink domain;
                                     NULL = "nvidia.com/gpu.clique", "" = none */
    const char *gpu_resource;   /**< allocatable resource counting GPUs; NULL = "nvidia.com/gpu" */
    const char *gpu_type;       /**< GPU type when the node lacks label nvidia.com/gpu.product;
                                     NULL = "GPU" */
    uint32_t nics_per_node;     /**< 0 = one per GPU */
    double nic_gbps;            /**< speed of one NIC, Gbit/s; default 400 */
    const char *name;           /**< fabric name; NULL = "k8s" */
    const char *kueue_topology_name; /**< what messages call the Kueue Topology (its file name);
                                          NULL = "kueue topology" */
    const char *pods_json;      /**< NUL-terminated text of `kubectl get pods -A -o json`: the
                                     `gpu_resource` GPUs that pods bound to a node and not
                                     Succeeded/Failed request (the scheduler's effective request:
                                     containers summed, init containers' maximum, overhead) are
                                     taken from that node's free GPUs (doc/k8s-import.md, "Pods");
                                     NULL = none (every GPU of an imported node free) */
} tsched_k8s_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_k8s_options_init(tsched_k8s_options *opts);

/** Most switches on one path: up and down through 8 tiers (TSCHED_MAX_TIERS). */
#define TSCHED_PATH_MAX_SWITCHES 15
/** Most links on one path. */
#define TSCHED_PATH_MAX_LINKS 14

/**
 * A valley-free path between two NICs: the switches in order, and between consecutive
 * switches the trunk crossed, as a directed link id `2 * trunk + d` (d = 0 going up a
 * tier, 1 going down). A path between NICs of one leaf holds only that leaf. An output
 * struct: the caller sets `size` (in an array, of the first element, which is the stride
 * for all); the library writes only the fields `size` covers (DESIGN 3). Unused entries
 * are TSCHED_NONE.
 */
typedef struct tsched_path {
    size_t size;                                 /**< sizeof(tsched_path), set by the caller */
    uint32_t nswitches;                          /**< 1 (same leaf), 3 (via a spine), 5 (via a core), ... 15 */
    uint32_t switches[TSCHED_PATH_MAX_SWITCHES]; /**< switch indices, source leaf first */
    uint32_t links[TSCHED_PATH_MAX_LINKS];       /**< nswitches - 1 directed link ids */
} tsched_path;

/* ---- creation ------------------------------------------------------------------- */

/**
 * Generate a leaf_spine or clos3 fabric with the names, wiring and capacities of
 * DESIGN 5.1. On success `*out` is a built handle the caller frees with
 * tsched_topology_free(). Errors: TSCHED_E_INVALID, TSCHED_E_RANGE (a zero or
 * non-finite parameter), TSCHED_E_TOO_LARGE (sizes beyond the library's limits).
 */
TSCHED_API tsched_status tsched_topology_generate(tsched_topology **out, const tsched_gen_params *params);

/**
 * Start an empty fabric to fill with add_* calls and finish with tsched_topology_build().
 * `name` may be NULL ("cluster"). The caller frees `*out`.
 */
TSCHED_API tsched_status tsched_topology_new(tsched_topology **out, const char *name);

/**
 * Add a switch. `pod` may be NULL (cores, two-tier fabrics); pods are created by name on
 * first use. `*index` (may be NULL) receives the switch index. `tier` is 0 ..
 * TSCHED_MAX_TIERS - 1. Errors: TSCHED_E_STATE after build, TSCHED_E_DUPLICATE (name used
 * by a node or switch), TSCHED_E_RANGE (tier, naming the switch).
 */
TSCHED_API tsched_status tsched_topology_add_switch(uint32_t *index, tsched_topology *topo, const char *name,
                                                    int tier, const char *pod);

/**
 * Add a node with `gpus` GPUs and `nics` NICs of `nic_gbps` each, attached to the leaf
 * named `leaf` (it may be added later; names are resolved by tsched_topology_build()).
 * `gpu_type` may be NULL ("GPU"). Errors: TSCHED_E_STATE, TSCHED_E_DUPLICATE,
 * TSCHED_E_RANGE (zero NICs, non-finite or non-positive speed, absurd counts).
 */
TSCHED_API tsched_status tsched_topology_add_node(uint32_t *index, tsched_topology *topo, const char *name,
                                                  const char *leaf, uint32_t gpus, uint32_t nics,
                                                  const char *gpu_type, double nic_gbps);

/**
 * Attach the NICs of node `node` to one leaf each: `leaves` holds exactly as many names as
 * the node has NICs, in NIC order, and may repeat a name (rail-optimised fabrics: one leaf
 * per NIC; dual-homed hosts: NICs 0-3 on one leaf, 4-7 on another; any grouping). NIC 0's
 * leaf is the node's leaf (its placement domain). Errors: TSCHED_E_STATE,
 * TSCHED_E_INVALID (wrong count or index).
 */
TSCHED_API tsched_status tsched_topology_set_rails(tsched_topology *topo, uint32_t node,
                                                   const char *const *leaves, uint32_t count);

/**
 * Add `count` parallel links of `gbps` each between switches `a` and `b` (names,
 * resolved at build). Links between the same two switches add up into one trunk.
 * Errors: TSCHED_E_STATE, TSCHED_E_RANGE (count 0, speed not finite and positive).
 */
TSCHED_API tsched_status tsched_topology_add_link(tsched_topology *topo, const char *a, const char *b,
                                                  double gbps, uint32_t count);

/**
 * Validate and index a fabric made with add_* calls. Errors name the element: a node
 * whose leaf is unknown or not tier 0 (TSCHED_E_NOT_FOUND / TSCHED_E_RANGE), a link to
 * an unknown switch, a link not between adjacent tiers (TSCHED_E_CYCLE when both ends
 * share a tier), TSCHED_E_TOO_LARGE. On failure the handle stays unbuilt.
 */
TSCHED_API tsched_status tsched_topology_build(tsched_topology *topo);

/**
 * Load a `tsched.topology.v1` document from a file (`"-"` reads standard input).
 * Errors name the file and the field (JSON pointer style, `nodes[12].leaf`).
 */
TSCHED_API tsched_status tsched_topology_load_file(tsched_topology **out, const char *path);

/** Load a `tsched.topology.v1` document from `len` bytes of `json`. */
TSCHED_API tsched_status tsched_topology_load_string(tsched_topology **out, const char *json, size_t len);

/**
 * Import a Slurm `topology.conf` from a file (`"-"`: standard input). Tree form: switches
 * with `Nodes=` become leaves (tier 0), each parent one tier above its children, up to
 * tier 7. Block form: each `BlockName=` becomes a leaf whose nodes share an NVLink domain,
 * grouped by `BlockSizes=` (see doc/slurm-import.md). `opts` may be NULL for the defaults.
 * On success the caller frees `*out`. Errors: TSCHED_E_PARSE (line and text, also a file
 * mixing the two forms), TSCHED_E_CYCLE, TSCHED_E_RANGE (more than 8 levels, a bad
 * BlockSizes, a block smaller than its first size), TSCHED_E_NOT_FOUND,
 * TSCHED_E_DUPLICATE, TSCHED_E_IO.
 */
TSCHED_API tsched_status tsched_topology_import_slurm_file(tsched_topology **out, const char *path,
                                                           const tsched_slurm_options *opts);

/** Import a Slurm `topology.conf` held in `len` bytes of `text`. */
TSCHED_API tsched_status tsched_topology_import_slurm_string(tsched_topology **out, const char *text, size_t len,
                                                             const tsched_slurm_options *opts);

/**
 * Import one topology of a Slurm `topology.yaml` from a file (`"-"`: standard input): the
 * entry named `opts->topology`, else the first with `cluster_default: true`, else the
 * first `tree` or `block` entry. A `tree` entry imports like the tree form of
 * topology.conf (`children` for `Switches=`, trunks non-blocking), a `block` entry like
 * the block form. `opts->nvl_topology` names a `block` entry that only sets the NVLink
 * domains of the imported nodes. The YAML subset read is that of doc/slurm-import.md.
 * On success the caller frees `*out`. Errors name the line and the path
 * (`[1].tree.switches[3].nodes`): TSCHED_E_PARSE (YAML outside the subset, a bad entry),
 * TSCHED_E_FORMAT (a `flat` or other entry selected, or no tree or block entry),
 * TSCHED_E_NOT_FOUND (an unknown topology name, an overlay node not in the structure),
 * and those of tsched_topology_import_slurm_file().
 */
TSCHED_API tsched_status tsched_topology_import_slurm_yaml_file(tsched_topology **out, const char *path,
                                                                const tsched_slurm_options *opts);

/** tsched_topology_import_slurm_yaml_file() on `len` bytes of `text`. */
TSCHED_API tsched_status tsched_topology_import_slurm_yaml_string(tsched_topology **out, const char *text,
                                                                  size_t len, const tsched_slurm_options *opts);

/**
 * Apply Slurm node state to a built fabric (e.g. a tsched.topology.v1 document with real link
 * speeds) by the rules of tsched_slurm_options.nodes_json (doc/slurm-import.md, "Node state"):
 * each node's free GPUs become its GPUs minus those in use, and the nodes the text calls down,
 * or does not list, go down. GPU counts and nodes already down stay as they are. `nodes_json`
 * is the NUL-terminated text of `sinfo --json` or `scontrol show nodes --json`; `topo` is
 * changed only when the whole text reads. Errors: TSCHED_E_INVALID (a NULL argument),
 * TSCHED_E_PARSE (names the field and value), TSCHED_E_RANGE (input limits), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_topology_apply_slurm_nodes(tsched_topology *topo, const char *nodes_json);

/**
 * Import the nodes of a Kubernetes cluster from the JSON of `kubectl get nodes -o json`
 * (a `List` of `Node` items, or one `Node`) in a file (`"-"`: standard input). The label
 * levels of `opts` become switch tiers (the finest a leaf); a switch is named by its label
 * value, or `<parent name>/<value>` where the value repeats, with the raw value kept.
 * Nodes without GPUs or without a level label are left out (listed with their reason);
 * NotReady and unschedulable nodes are down; with `opts->pods_json` the GPUs the pods hold
 * are not free. See doc/k8s-import.md. `opts` must give the
 * levels. On success the caller frees `*out`. Errors name the file and the field
 * (`items[3].metadata.labels["example.com/rack"]`; `pods_json: items[2].spec...` for the
 * pod list, which is not in the file): TSCHED_E_PARSE (not JSON, or a malformed pod list),
 * TSCHED_E_FORMAT (not a node list, a bad label value or GPU count), TSCHED_E_NOT_FOUND (a
 * level no node carries, no node left), TSCHED_E_INVALID (bad options, naming them),
 * TSCHED_E_DUPLICATE (a node listed twice), TSCHED_E_IO.
 */
TSCHED_API tsched_status tsched_topology_import_k8s_nodes_file(tsched_topology **out, const char *path,
                                                               const tsched_k8s_options *opts);

/** tsched_topology_import_k8s_nodes_file() on `len` bytes of `json`. */
TSCHED_API tsched_status tsched_topology_import_k8s_nodes_string(tsched_topology **out, const char *json, size_t len,
                                                                 const tsched_k8s_options *opts);

/** Free a fabric. NULL is a no-op. */
TSCHED_API void tsched_topology_free(tsched_topology *topo);

/* ---- output ----------------------------------------------------------------------- */

/**
 * Write the fabric as an explicit `tsched.topology.v1` document (every node, switch and
 * link, and the state). `*out` is a NUL-terminated string the caller frees with
 * tsched_free(). Loading it gives back the same model.
 */
TSCHED_API tsched_status tsched_topology_to_json(char **out, const tsched_topology *topo);
/** tsched_topology_to_json() laid out as `opts` asks (NULL: indented; the document has no timing).
 *  The compact text is the same document without whitespace. Errors as tsched_topology_to_json(),
 *  and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_topology_to_json_opts(char **out, const tsched_topology *topo,
                                                      const tsched_output_opts *opts);

/** Write tsched_topology_to_json() to a file (`"-"`: standard output). Errors: TSCHED_E_IO. */
TSCHED_API tsched_status tsched_topology_save_file(const tsched_topology *topo, const char *path);

/**
 * The `tsched.topology-summary.v1` document of `topo-sched topology show`: counts per
 * tier, GPUs, free GPUs, pods, trunks and what is down. The caller frees `*out` with
 * tsched_free().
 */
TSCHED_API tsched_status tsched_topology_summary_json(char **out, const tsched_topology *topo);
/** tsched_topology_summary_json() laid out as `opts` asks (NULL: indented; the document has no
 *  timing). The compact text is the same document without whitespace. Errors as
 *  tsched_topology_summary_json(), and
 *  TSCHED_E_INVALID for a bad `opts->size`. */
TSCHED_API tsched_status tsched_topology_summary_json_opts(char **out, const tsched_topology *topo,
                                                           const tsched_output_opts *opts);

/* ---- sizes -------------------------------------------------------------------------
 * Getters take a built handle and an index below the matching count. An out-of-range
 * index or a NULL handle gives 0, NULL or TSCHED_NONE, never a crash. */

/** Name of the fabric (owned by the handle); NULL for NULL. */
TSCHED_API const char *tsched_topology_name(const tsched_topology *topo);
/**
 * Identity of the fabric: unique among the handles of this process, never reused, never 0
 * (0 for NULL). Every result computed on a fabric records it (DESIGN 3).
 */
TSCHED_API uint64_t tsched_topology_id(const tsched_topology *topo);
/**
 * Shape generation: changes whenever nodes, switches or links are added (only before
 * tsched_topology_build()); state changes (free GPUs, up/down) leave it alone. 0 for NULL.
 */
TSCHED_API uint64_t tsched_topology_generation(const tsched_topology *topo);
/**
 * TSCHED_OK when `topo` is the fabric of identity `id` at shape generation `generation`,
 * as recorded by a result; otherwise ::TSCHED_E_MISMATCH naming both fabrics, prefixed by
 * `what` (may be NULL). Errors: ::TSCHED_E_INVALID for a NULL `topo`.
 */
TSCHED_API tsched_status tsched_topology_check_identity(const tsched_topology *topo, uint64_t id, uint64_t generation,
                                                        const char *what);
/** Number of nodes. */
TSCHED_API uint32_t tsched_topology_num_nodes(const tsched_topology *topo);
/** Number of switches of all tiers. */
TSCHED_API uint32_t tsched_topology_num_switches(const tsched_topology *topo);
/** Number of switches of one tier (0 .. TSCHED_MAX_TIERS - 1; 0 for any other). */
TSCHED_API uint32_t tsched_topology_num_tier(const tsched_topology *topo, int tier);
/** Number of pods (0 on a fabric without pods). */
TSCHED_API uint32_t tsched_topology_num_pods(const tsched_topology *topo);
/** Number of trunks (switch pairs joined by one or more links). */
TSCHED_API uint32_t tsched_topology_num_trunks(const tsched_topology *topo);
/** Total GPUs of all nodes, up or down. */
TSCHED_API uint64_t tsched_topology_num_gpus(const tsched_topology *topo);
/** Free GPUs on up nodes. */
TSCHED_API uint64_t tsched_topology_num_free_gpus(const tsched_topology *topo);

/* ---- nodes ------------------------------------------------------------------------ */

/** Index of the node named `name`, or TSCHED_NONE. O(1). */
TSCHED_API uint32_t tsched_topology_find_node(const tsched_topology *topo, const char *name);
/** Name of node `node` (owned by the handle). */
TSCHED_API const char *tsched_topology_node_name(const tsched_topology *topo, uint32_t node);
/** Leaf switch of the node's NIC 0: the node's one leaf domain for placement and free counts. */
TSCHED_API uint32_t tsched_topology_node_leaf(const tsched_topology *topo, uint32_t node);
/** Leaf switch of the node's NIC `nic` (may differ from the node's leaf: rails, multi-homed nodes). */
TSCHED_API uint32_t tsched_topology_node_nic_leaf(const tsched_topology *topo, uint32_t node, uint32_t nic);
/** Pod of the node's leaf, or TSCHED_NONE. */
TSCHED_API uint32_t tsched_topology_node_pod(const tsched_topology *topo, uint32_t node);
/** GPUs of the node. */
TSCHED_API uint32_t tsched_topology_node_gpus(const tsched_topology *topo, uint32_t node);
/** Free GPUs of the node (its state, whether it is up or not). */
TSCHED_API uint32_t tsched_topology_node_free_gpus(const tsched_topology *topo, uint32_t node);
/** NICs of the node. */
TSCHED_API uint32_t tsched_topology_node_nics(const tsched_topology *topo, uint32_t node);
/** Speed of one NIC of the node, Gbit/s. */
TSCHED_API double tsched_topology_node_nic_gbps(const tsched_topology *topo, uint32_t node);
/** GPU type of the node (owned by the handle). */
TSCHED_API const char *tsched_topology_node_gpu_type(const tsched_topology *topo, uint32_t node);
/** 1 if the node, its leaf and (for rails) every NIC leaf are up, else 0. */
TSCHED_API int tsched_topology_node_is_up(const tsched_topology *topo, uint32_t node);
/** 1 if the node is up and all its GPUs are free: what placement may use. */
TSCHED_API int tsched_topology_node_is_free(const tsched_topology *topo, uint32_t node);

/* ---- switches, pods, trunks ----------------------------------------------------------- */

/** Index of the switch named `name`, or TSCHED_NONE. O(1). */
TSCHED_API uint32_t tsched_topology_find_switch(const tsched_topology *topo, const char *name);
/** Name of a switch (owned by the handle). */
TSCHED_API const char *tsched_topology_switch_name(const tsched_topology *topo, uint32_t sw);
/** Tier of a switch (0 .. TSCHED_MAX_TIERS - 1), or -1 for a bad index. */
TSCHED_API int tsched_topology_switch_tier(const tsched_topology *topo, uint32_t sw);
/** Pod of a switch, or TSCHED_NONE (cores, two-tier fabrics). */
TSCHED_API uint32_t tsched_topology_switch_pod(const tsched_topology *topo, uint32_t sw);
/** 1 if the switch is up (its own state), else 0. */
TSCHED_API int tsched_topology_switch_is_up(const tsched_topology *topo, uint32_t sw);
/** Switch index of the `i`-th switch of `tier`, in index order, or TSCHED_NONE. */
TSCHED_API uint32_t tsched_topology_tier_switch(const tsched_topology *topo, int tier, uint32_t i);
/**
 * Nodes whose NIC 0 sits on leaf `leaf`, in index order. Returns a pointer into the
 * handle (valid while it lives) and sets `*count`; NULL with `*count` = 0 for a bad index.
 */
TSCHED_API const uint32_t *tsched_topology_leaf_nodes(const tsched_topology *topo, uint32_t leaf, uint32_t *count);

/** Index of the pod named `name`, or TSCHED_NONE. */
TSCHED_API uint32_t tsched_topology_find_pod(const tsched_topology *topo, const char *name);
/** Name of a pod (owned by the handle). */
TSCHED_API const char *tsched_topology_pod_name(const tsched_topology *topo, uint32_t pod);
/** Leaves of a pod in index order (pointer into the handle); NULL, `*count` = 0 if bad. */
TSCHED_API const uint32_t *tsched_topology_pod_leaves(const tsched_topology *topo, uint32_t pod, uint32_t *count);

/** Trunk joining switches `a` and `b` (either order), or TSCHED_NONE. */
TSCHED_API uint32_t tsched_topology_find_trunk(const tsched_topology *topo, uint32_t a, uint32_t b);
/** Lower-tier end of a trunk. */
TSCHED_API uint32_t tsched_topology_trunk_lower(const tsched_topology *topo, uint32_t trunk);
/** Upper-tier end of a trunk. */
TSCHED_API uint32_t tsched_topology_trunk_upper(const tsched_topology *topo, uint32_t trunk);
/**
 * Capacity of a trunk in one direction, Gbit/s: the sum of its up member links (all of
 * them on a fresh fabric; 0 when none is up). The trunk's own state and its switches' do
 * not change it.
 */
TSCHED_API double tsched_topology_trunk_gbps(const tsched_topology *topo, uint32_t trunk);
/** Number of links (members, up or down) in a trunk. */
TSCHED_API uint32_t tsched_topology_trunk_links(const tsched_topology *topo, uint32_t trunk);
/**
 * 1 if the trunk is up: its own state is up and at least one of its member links is up
 * (its switches may still be down), else 0.
 */
TSCHED_API int tsched_topology_trunk_is_up(const tsched_topology *topo, uint32_t trunk);

/* ---- member links ---------------------------------------------------------------------
 * A trunk's links are its members k = 0..links-1, numbered over its `links` entries in
 * input order (an entry of `count` c gives c consecutive members of its `gbps`) and named
 * `lower~upper#k` (either order of the two switches is accepted). Member ids are dense
 * over the fabric: trunk by trunk in trunk index order, then k. */

/** Number of member links of all trunks (0 for NULL or an unbuilt handle). */
TSCHED_API uint32_t tsched_topology_num_members(const tsched_topology *topo);
/**
 * Id of member k = 0 of a trunk: its members are `first .. first + trunk_links - 1`.
 * TSCHED_NONE for a bad index.
 */
TSCHED_API uint32_t tsched_topology_trunk_first_member(const tsched_topology *topo, uint32_t trunk);
/** Trunk of a member link, or TSCHED_NONE for a bad index. O(log trunks). */
TSCHED_API uint32_t tsched_topology_member_trunk(const tsched_topology *topo, uint32_t member);
/** Number k of a member inside its trunk (its name's `#k`), or TSCHED_NONE. */
TSCHED_API uint32_t tsched_topology_member_index(const tsched_topology *topo, uint32_t member);
/** Capacity of one member link in one direction, Gbit/s (up or down); 0 for a bad index. */
TSCHED_API double tsched_topology_member_gbps(const tsched_topology *topo, uint32_t member);
/** 1 if the member link itself is up (its trunk or switches may still be down), else 0. */
TSCHED_API int tsched_topology_member_is_up(const tsched_topology *topo, uint32_t member);
/**
 * Id of the member named `a~b#k` (either order of `a` and `b`), or TSCHED_NONE (NULL, not
 * a member name, unknown switch, unlinked switches, k out of range). Sets no error.
 */
TSCHED_API uint32_t tsched_topology_find_member(const tsched_topology *topo, const char *name);

/* ---- NVLink domains, label provenance, left-out nodes ------------------------------------
 * Optional facts of `tsched.topology.v1` that imports write and exports read. None of them
 * changes routing. Strings returned are owned by the handle and stay valid until the next
 * call that sets the same kind of fact (or the handle is freed). */

/**
 * Put node `node` in the NVLink domain named `domain` (nodes sharing a name form one
 * multi-node NVLink domain); NULL or "" clears it. Before build only. Name rules as for
 * node names (DESIGN 3). Errors: TSCHED_E_INVALID (NULL handle, bad index), TSCHED_E_STATE
 * (built), TSCHED_E_RANGE (a bad name, naming `nodes[i].nvl_domain`).
 */
TSCHED_API tsched_status tsched_topology_set_nvl_domain(tsched_topology *topo, uint32_t node, const char *domain);
/** The node's NVLink domain name, NULL when it has none (or for a bad index). */
TSCHED_API const char *tsched_topology_node_nvl_domain(const tsched_topology *topo, uint32_t node);
/**
 * Number of named NVLink domains of a built fabric (0 when unbuilt). Domains are numbered
 * from 0 in order of their first node.
 */
TSCHED_API uint32_t tsched_topology_num_nvl_domains(const tsched_topology *topo);
/** Index of the node's NVLink domain, or TSCHED_NONE (UINT32_MAX) when it has none. */
TSCHED_API uint32_t tsched_topology_node_nvl(const tsched_topology *topo, uint32_t node);
/** Name of NVLink domain `domain`, NULL for a bad index. */
TSCHED_API const char *tsched_topology_nvl_name(const tsched_topology *topo, uint32_t domain);

/**
 * Label provenance, any time: record the raw label value a switch came from (its `name`
 * may have been made unique); NULL or "" clears it. The value is UTF-8 text without
 * control characters, 1 to name_bytes bytes. Errors: TSCHED_E_INVALID (NULL handle, bad
 * index), TSCHED_E_RANGE (a bad value, naming `switches[i].value`).
 */
TSCHED_API tsched_status tsched_topology_set_switch_value(tsched_topology *topo, uint32_t sw, const char *value);
/** The raw label value of a switch, NULL when unset (or for a bad index). */
TSCHED_API const char *tsched_topology_switch_value(const tsched_topology *topo, uint32_t sw);

/**
 * Label provenance, any time: record the node's `kubernetes.io/hostname` label value when it
 * differs from the node name (an FQDN node name, a cloud's instance id): the pod order's node
 * selector uses it (doc/export.md). NULL or "" clears it. Text rules as for
 * tsched_topology_set_switch_value(). Errors: TSCHED_E_INVALID (NULL handle, bad index),
 * TSCHED_E_RANGE (a bad value, naming `nodes[i].hostname_label`).
 */
TSCHED_API tsched_status tsched_topology_set_node_hostname(tsched_topology *topo, uint32_t node, const char *value);
/** The node's recorded `kubernetes.io/hostname` label value, NULL when unset (or for a bad index). */
TSCHED_API const char *tsched_topology_node_hostname(const tsched_topology *topo, uint32_t node);

/**
 * Label provenance, any time: the document's `"labels": {"tiers": [K0, K1, ...], "nvl": K}`,
 * Ki being the label key of tier i. `tier_keys` holds `ntiers` keys (at most
 * TSCHED_MAX_TIERS; it may be NULL when `ntiers` is 0); `nvl_key` may be NULL. `ntiers` 0
 * with a NULL `nvl_key` clears the labels. The strings are copied. Errors: TSCHED_E_INVALID
 * (NULL handle, NULL array or entry), TSCHED_E_RANGE (too many tiers, a bad key, naming
 * `labels.tiers[i]` or `labels.nvl`).
 */
TSCHED_API tsched_status tsched_topology_set_labels(tsched_topology *topo, const char *const *tier_keys,
                                                    uint32_t ntiers, 
                                                    const char *nvl_key);
/** Number of tier label keys; 0 when no labels are set. */
TSCHED_API uint32_t tsched_topology_label_tiers(const tsched_topology *topo);
/** Label key of tier `tier`, NULL when unset or out of range. */
TSCHED_API const char *tsched_topology_label_tier(const tsched_topology *topo, uint32_t tier);
/** Label key of the NVLink domains, NULL when unset. */
TSCHED_API const char *tsched_topology_label_nvl(const tsched_topology *topo);

/**
 * Record a node an import left out, with the reason (the document's `"excluded"` object,
 * kept in insertion order), any time. `node` follows the node-name rules; `reason` is UTF-8
 * text without control characters (may be empty). Errors: TSCHED_E_INVALID (NULL),
 * TSCHED_E_RANGE (a bad name or reason), TSCHED_E_DUPLICATE (node already listed).
 */
TSCHED_API tsched_status tsched_topology_add_excluded(tsched_topology *topo, const char *node, const char *reason);
/** Number of left-out nodes. */
TSCHED_API uint32_t tsched_topology_num_excluded(const tsched_topology *topo);
/** Name of left-out node `i` (insertion order), NULL for a bad index. */
TSCHED_API const char *tsched_topology_excluded_node(const tsched_topology *topo, uint32_t i);
/** Reason of left-out node `i`, NULL for a bad index. */
TSCHED_API const char *tsched_topology_excluded_reason(const tsched_topology *topo, uint32_t i);

/* ---- state ---------------------------------------------------------------------------- */

/**
 * Set the free GPUs of a node. Errors: TSCHED_E_INVALID (index), TSCHED_E_RANGE (more
 * than the node has).
 */
TSCHED_API tsched_status tsched_topology_set_free_gpus(tsched_topology *topo, uint32_t node, uint32_t free_gpus);

/**
 * Mark an element up (`up` = 1) or down (0) by name: a node, a switch, a trunk written
 * `a~b` or one member link written `a~b#k` (either order of the switches). A change costs what it touches: free counts of the nodes
 * concerned are updated at once, and the path index is rebuilt once, by the next path
 * query, however many changes came before it. Errors: TSCHED_E_INVALID (NULL or empty
 * name), TSCHED_E_NOT_FOUND (no such element; for `a~b#k` with k not below the
 * trunk's link count, the message names the trunk and its count).
 */
TSCHED_API tsched_status tsched_topology_set_up(tsched_topology *topo, const char *name, int up);

/**
 * Apply a whole event at once: element `names[i]` (a node, a switch, a trunk `a~b` or a
 * member link `a~b#k`, as
 * tsched_topology_set_up()) goes up when `up[i]` is non-zero, down otherwise, in array
 * order (a name given twice ends as its last entry says). All or nothing: every name is
 * resolved before anything changes, so on any error the fabric is left as it was. The
 * arrays stay the caller's; `names` and `up` may be NULL when `count` is 0. Errors:
 * TSCHED_E_INVALID (NULL handle or array, NULL or empty entry), TSCHED_E_NOT_FOUND
 * naming the entry (`names[7]`) and the name, TSCHED_E_NOMEM, TSCHED_E_STATE (unbuilt).
 */
TSCHED_API tsched_status tsched_topology_set_up_batch(tsched_topology *topo, const char *const *names,
                                                      const int *up, size_t count);

/** Mark node `node` up or down. Errors: TSCHED_E_INVALID. */
TSCHED_API tsched_status tsched_topology_set_node_up(tsched_topology *topo, uint32_t node, int up);
/** Mark switch `sw` up or down; its paths disappear or return. Errors: TSCHED_E_INVALID. */
TSCHED_API tsched_status tsched_topology_set_switch_up(tsched_topology *topo, uint32_t sw, int up);
/** Mark trunk `trunk` up or down. Errors: TSCHED_E_INVALID. */
TSCHED_API tsched_status tsched_topology_set_trunk_up(tsched_topology *topo, uint32_t trunk, int up);
/**
 * Mark member link `member` up or down: the trunk's capacity becomes the sum of its up
 * members, and a trunk whose last up member goes down leaves every path (lazily, as a
 * trunk going down). A state change: the shape generation stays. O(links of the trunk).
 * Errors: TSCHED_E_INVALID (NULL handle, bad index), TSCHED_E_STATE (unbuilt).
 */
TSCHED_API tsched_status tsched_topology_set_member_up(tsched_topology *topo, uint32_t member, int up);

/* ---- free capacity ----------------------------------------------------------------------- */

/**
 * Number of up nodes with all GPUs free in one domain: a leaf (switch index), a pod, a
 * named NVLink domain (TSCHED_LEVEL_NVL, index below tsched_topology_num_nvl_domains()),
 * or the cluster. O(1). A bad index gives 0.
 */
TSCHED_API uint32_t tsched_topology_free_node_count(const tsched_topology *topo, tsched_level level, uint32_t index);

/**
 * List the up nodes with all GPUs free in one domain into `nodes` (a leaf, an NVLink
 * domain or the cluster: node index order; a pod: leaf by leaf in the pod's leaf order)
 * (capacity `cap`). `*count` receives the number that exist. Errors: TSCHED_E_INVALID,
 * TSCHED_E_BUFFER when `cap` < `*count` (the first `cap` are written).
 */
TSCHED_API tsched_status tsched_topology_free_nodes(uint32_t *nodes, size_t cap, size_t *count,
                                                    const tsched_topology *topo, tsched_level level, uint32_t index);

/* ---- paths ----------------------------------------------------------------------------- */

/**
 * Number of equal-cost valley-free paths between NIC `src_nic` of `src` and NIC
 * `dst_nic` of `dst`, without building them: the shortest ones, which climb to the lowest
 * tier where the two leaves share a usable ancestor (a switch reached by up-going links
 * whose switches and trunks are all up) and come down. O(1) when that tier is 1 or 2 (all
 * pairs of a generated fabric); above, it costs the size of the two leaves' ancestor
 * sets. 0 when an end is down or no path survives; 1 when both NICs sit on one leaf.
 * Errors: TSCHED_E_INVALID (node or NIC index).
 */
TSCHED_API tsched_status tsched_topology_path_count(uint64_t *count, const tsched_topology *topo, uint32_t src,
                                                    uint32_t src_nic, uint32_t dst, uint32_t dst_nic);

/**
 * List the paths counted by tsched_topology_path_count() in lexicographic order of their
 * switch index sequences: through a common spine, by spine index; via cores, by (source
 * spine, core, destination spine); deeper paths alike, switch after switch.
 * `paths[0].size` is the stride of the array (see ::tsched_path); `paths` may be NULL when
 * `cap` is 0. `*count` receives the number of paths. Errors: TSCHED_E_INVALID (NULL, bad
 * index, bad size), TSCHED_E_BUFFER when `cap` < `*count` (the first `cap` are written).
 */
TSCHED_API tsched_status tsched_topology_paths(tsched_path *paths, size_t cap, size_t *count,
                                               const tsched_topology *topo, uint32_t src, uint32_t src_nic,
                                               uint32_t dst, uint32_t dst_nic);

/** tsched_topology_path_count() between two leaf switches. */
TSCHED_API tsched_status tsched_topology_leaf_path_count(uint64_t *count, const tsched_topology *topo,
                                                         uint32_t src_leaf, uint32_t dst_leaf);

/** tsched_topology_paths() between two leaf switches. */
TSCHED_API tsched_status tsched_topology_leaf_paths(tsched_path *paths, size_t cap, size_t *count,
                                                    const tsched_topology *topo, uint32_t src_leaf,
                                                    uint32_t dst_leaf);

/* ---- export to schedulers (doc/export.md) ---------------------------------------------- */

/** What tsched_topology_export() writes. */
typedef enum tsched_export_format {
    TSCHED_EXPORT_SLURM_CONF = 0, /**< Slurm `topology.conf`, tree form (block form with `block`) */
    TSCHED_EXPORT_SLURM_YAML = 1, /**< Slurm `topology.yaml`: a tree entry, and a block entry for NVLink */
    TSCHED_EXPORT_KUEUE = 2,      /**< a Kueue `Topology` and labelled `Node` objects */
    TSCHED_EXPORT_KAI = 3,        /**< a KAI scheduler `Topology` and labelled `Node` objects */
    TSCHED_EXPORT_VOLCANO = 4     /**< Volcano `HyperNode` objects */
} tsched_export_format;

/** API version of the Kueue `Topology` written by ::TSCHED_EXPORT_KUEUE. */
typedef enum tsched_kueue_api {
    TSCHED_KUEUE_V1BETA2 = 0, /**< `kueue.x-k8s.io/v1beta2` (Kueue 0.15 and later) */
    TSCHED_KUEUE_V1BETA1 = 1, /**< `kueue.x-k8s.io/v1beta1` (Kueue 0.14) */
    TSCHED_KUEUE_V1ALPHA1 = 2 /**< `kueue.x-k8s.io/v1alpha1` (Kueue 0.13 and earlier; at most 8 levels) */
} tsched_kueue_api;

/**
 * Options of tsched_topology_export(). Initialise with tsched_export_options_init(); fields
 * may be appended in later versions (`size` tells the library which ones the caller knows).
 * An option that does not apply to the chosen format is TSCHED_E_INVALID naming it.
 */
typedef struct tsched_export_options {
    size_t size;                /**< sizeof(tsched_export_options), set by the init function */
    tsched_export_format to;    /**< default TSCHED_EXPORT_SLURM_CONF */
    /**
     * Kueue, KAI, Volcano: one node label key per written level, coarsest first, without
     * `kubernetes.io/hostname` (a last such key is dropped). NULL / 0: the keys the import
     * recorded, else `tsched.topology/leaf`, `/spine`, `/core`, `/tier<k>`, `/nvl`. Read
     * during the call only.
     */
    const char *const *levels;
    uint32_t num_levels;        /**< entries of `levels` */
    int block;                  /**< slurm-conf: the block form (one block per NVLink domain) */
    int physical;               /**< Slurm: every switch and link instead of the domain tree */
    tsched_kueue_api kueue_api; /**< Kueue: default TSCHED_KUEUE_V1BETA2 */
    int tier_names;             /**< Volcano: also write `spec.tierName` */
    /**
     * Names over the target's limits become errors unless this is set: Kubernetes names and
     * values are lower-cased, invalid characters become `-`, and every export shortens a name
     * over its limit deterministically (a hash suffix; doc/export.md "Name limits").
     */
    int sanitize;
    int json;                   /**< Kubernetes: one `v1` `List` in JSON instead of a YAML stream */
    const char *name;           /**< Topology / Slurm topology name; NULL = the fabric's name */
    int no_hostname_level;      /**< Kueue, KAI: no `kubernetes.io/hostname` level at the end of `spec.levels` */
    int no_nodes;               /**< Kueue, KAI, Volcano: no `Node` objects (Volcano writes none anyway) */
} tsched_export_options;

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_export_options_init(tsched_export_options *opts);

/** Format from its name (`slurm-conf`, `slurm-yaml`, `kueue`, `kai`, `volcano`). Errors: TSCHED_E_FORMAT. */
TSCHED_API tsched_status tsched_export_format_from_name(tsched_export_format *to, const char *name);
/** Name of a format; "?" for an unknown value. Static string. */
TSCHED_API const char *tsched_export_format_name(tsched_export_format to);

/**
 * Write `topo` for another scheduler (doc/export.md): its domain tree (or, for Slurm with
 * `physical`, every switch and link) as `topology.conf`, `topology.yaml`, Kueue or KAI
 * `Topology` plus node labels, or Volcano HyperNodes. `opts` may be NULL (slurm-conf).
 * `*out` is a NUL-terminated text the caller frees with tsched_free(). When the NVLink
 * domains nest nowhere in the domain tree, their level is left out and
 * tsched_topology_export_warning() says so; that is not an error.
 * Errors: TSCHED_E_INVALID (NULL, bad size, an option that does not apply),
 * TSCHED_E_FORMAT (a name or label value Kubernetes or Slurm cannot carry, naming the switch
 * or node; a bad `levels` key; a node with NICs on two leaves or more, naming it), TSCHED_E_DUPLICATE (two domains or HyperNodes given one
 * name or value, naming both), TSCHED_E_RANGE (`levels` of the wrong count),
 * TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_topology_export(char **out, const tsched_topology *topo,
                                                const tsched_export_options *opts);

/**
 * The warning of the calling thread's last tsched_topology_export() (one line, owned by
 * the library, valid until the thread's next export), or "" when it had none.
 */
TSCHED_API const char *tsched_topology_export_warning(void);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_TOPOLOGY_H */
