/* Internal layout of a fabric, private to src/topology: other modules use topology_paths.h.
 * Struct-of-arrays so that the hot queries (path counts, free capacity) touch a few dense
 * arrays; names live in string tables. */
#ifndef TS_TOPOLOGY_INTERNAL_H
#define TS_TOPOLOGY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "topo-sched/topology.h"

#include "../common/strtab.h"
/* what the other modules may use: this module's files see it too */
#include "topology_paths.h"

#include "topology_limits.h"


/* A pending link, names resolved at build. */
typedef struct ts_link_in {
    uint32_t a_ref, b_ref; /* ids in topo->refs */
    double total_gbps; /* capacity of all `count` links together */
    uint32_t count;
} ts_link_in;

/* Per-leaf path index: leaves with the same usable spine set (or core multiset) share a
 * profile, and counts between profiles are tabulated, so a path count is O(1). */
typedef struct ts_profiles {
    uint32_t n;          /* number of profiles */
    uint32_t *off;       /* n + 1 offsets into items (capacity: leaves + 1, set at build) */
    uint32_t *items;     /* spine profile: spine ids; core profile: (core, mult) pairs */
    uint64_t *matrix;    /* n x n counts (in mat_buf) when n <= TS_MAX_PROFILE_MATRIX, else NULL */
    uint64_t *mat_buf;   /* kept between rebuilds */
    size_t items_len, items_cap, mat_cap;
    uint32_t *slots;     /* open addressing over profiles: id + 1, 0 = empty */
    uint32_t *hashes;    /* per profile (capacity: leaves) */
    size_t nslots;       /* power of two, at least twice the leaves: never rehashed */
} ts_profiles;

/* The path index, rebuilt lazily. A state change only marks it stale (O(1)); the first
 * path count after that rebuilds it once, under `lock`, however many changes came before.
 * Read-only calls may run from several threads, so `stale` is checked twice (atomically
 * without the lock, then under it), and readers see a finished index (release/acquire on
 * `stale`). The rebuild's buffers are kept from one rebuild to the next and sized at build
 * time; when a rebuild needs more memory and cannot get it, `usable` is 0 and counts walk
 * the adjacency instead (the same answers, slower) until a later rebuild succeeds, so a
 * query never fails and never answers wrong. Owned by the handle; the pointer is constant
 * after build, so const queries may refresh what it points to. */
typedef struct ts_index {
    pthread_mutex_t lock;
    atomic_int stale;       /* 1: a state change came after the last rebuild */
    int usable;             /* 0: the last rebuild ran out of memory */
    uint64_t rebuilds;      /* number of rebuilds (tests and benchmarks look at it) */
    size_t raw_items[2];    /* items of the last rebuild without sharing: spine, core */
    uint32_t *leaf_sprof, *leaf_cprof; /* profile of each leaf, by leaf ordinal */
    ts_profiles sprof, cprof;
    /* scratch of one rebuild, per switch */
    uint32_t *buf, *pairs, *mult, *touched;
} ts_index;

struct tsched_topology {
    char *name;
    int built;
    uint64_t id;        /* unique in the process, never reused (DESIGN 3) */
    uint64_t shape_gen; /* bumped by every change of nodes, switches or links */

    ts_strtab node_names, switch_names, pod_names, gpu_types;
    ts_strtab refs; /* names referenced before build (leaves of nodes, link ends) */

    /* nodes */
    uint32_t nnodes;
    size_t node_cap;
    uint32_t *node_leaf;   /* ref id before build, switch index after */
    uint32_t *node_gpus, *node_free, *node_nics, *node_type;
    uint32_t *node_rail;   /* offset into rail[] or UINT32_MAX */
    double *node_gbps;
    uint8_t *node_up;      /* the node's own state */
    uint32_t *rail;        /* ref ids before build, switch indices after */
    size_t nrail, rail_cap;

    /* switches */
    uint32_t nswitches;
    size_t switch_cap;
    uint8_t *sw_tier, *sw_up;
    uint32_t *sw_pod;      /* pod id or UINT32_MAX */
    uint32_t *sw_ord;      /* position within its tier (after build) */
    uint32_t *tier_list[TSCHED_MAX_TIERS];
    uint32_t tier_count[TSCHED_MAX_TIERS];
    int max_tier;          /* highest tier with a switch (after build), -1 without switches */

    /* pending links */
    ts_link_in *links_in;
    size_t nlinks_in, links_in_cap;

    /* trunks (after build), sorted by (lower, upper). tr_up is the trunk's usability
     * (its own state up and at least one member up): paths and the index read it;
     * tr_gbps is the capacity of its up members, kept exact by every member change. */
    uint32_t ntrunks;
    uint32_t *tr_lower, *tr_upper, *tr_links;
    double *tr_gbps;
    uint8_t *tr_up;
    uint8_t *tr_own;       /* the trunk's own state (set_trunk_up, `a~b` in a down list) */

    /* member links (after build): trunk r has members tr_mem_off[r] .. tr_mem_off[r+1]-1,
     * numbered over its links entries in input order. Runs of members of equal gbps (CSR
     * over trunks: tr_run_off) keep each entry's exact capacity, so that a saved fabric
     * loads back to the same doubles. */
    uint32_t nmembers, nruns;
    uint32_t *tr_mem_off, *tr_mem_up; /* ntrunks + 1 offsets; up members per trunk */
    uint8_t *mem_up;
    uint32_t *tr_run_off, *run_count;
    double *run_total;

    /* adjacency (after build): CSR over switches, sorted by neighbour index */
    uint32_t *up_off, *dn_off;
    ts_adj *up_adj, *dn_adj;

    /* nodes per leaf (CSR over switch index), leaves per pod */
    uint32_t *leaf_node_off, *leaf_node_list;
    uint32_t *pod_leaf_off, *pod_leaf_list;

    /* nodes whose usability depends on a leaf (CSR over switch index): the nodes of the
     * leaf and the rail nodes with a NIC on it, each once, so that a leaf going down or up
     * updates the free counts of these nodes only */
    uint32_t *leaf_att_off, *leaf_att_list;

    /* free capacity (after build), kept exact by every state change */
    uint32_t *leaf_free;   /* per switch index (non-leaves stay 0) */
    uint32_t *pod_free;
    uint32_t cluster_free;
    uint64_t total_gpus, free_gpus;

    /* path index (after build) */
    ts_index *ix;

    /* bumped by every up/down change: caches of paths (routing) compare it */
    uint64_t version;

    /* NVLink domains (design interop 1): names as set, ids in nvl_names; after build the
     * named domains are numbered in order of first node */
    ts_strtab nvl_names;
    uint32_t *node_nvl_ref; /* per node: id in nvl_names or UINT32_MAX (grows with nodes) */
    uint32_t nnvl;          /* after build: number of named domains */
    uint32_t *node_nvl;     /* after build: per node, domain index or UINT32_MAX */
    uint32_t *nvl_ref;      /* after build: per domain, id in nvl_names */
    uint32_t *nvl_node_off, *nvl_node_list; /* after build: nodes per domain (CSR), index order */
    uint32_t *nvl_free;     /* after build: free nodes per domain, kept like pod_free */

    /* label provenance and left-out nodes (any time) */
    ts_strtab sw_values;
    uint32_t *sw_value;     /* per switch: id in sw_values or UINT32_MAX (grows with switches) */
    ts_strtab node_hosts;   /* kubernetes.io/hostname label values that differ from the node name */
    uint32_t *node_host;    /* per node: id in node_hosts or UINT32_MAX (grows with nodes) */
    char *label_tier[TSCHED_MAX_TIERS];
    uint32_t nlabel_tiers;
    char *label_nvl;
    ts_strtab excl_nodes;   /* left-out nodes in insertion order */
    char **excl_reason;
    size_t excl_cap;
    /* BlockSizes of a Slurm block import, exactly as read; the --block exports write them
     * back (design interop 3.1). nblock_sizes = 0: none recorded. */
    uint32_t block_sizes[TSCHED_MAX_TIERS];
    uint32_t nblock_sizes;

    /* message bases: explicit elements are named nodes[i - base] etc. in errors */
    uint32_t node_base, switch_base;
    size_t link_base;
};

/* Shared between the topology files. */
/* "leaf", "spine", "core", "tier3" .. "tier7"; "?" out of range. */
const char *ts_tier_word(int tier);
/* After build: number the NVLink domains in order of first node. */
tsched_status ts_topology_nvl_build(tsched_topology *t);
/* Free the interop additions (NVLink domains, values, labels, excluded). */
void ts_topology_attrs_free(tsched_topology *t);
/* Index of the first size of BlockSizes that is not in [1, UINT32_MAX] or not a
 * power-of-two multiple of the one before; n when all are fine. */
size_t ts_block_sizes_bad(const uint64_t *sizes, size_t n);
/* Record the BlockSizes a block import read (n <= TSCHED_MAX_TIERS; each size > 0 and a
 * power-of-two multiple of the one before, else TSCHED_E_RANGE naming `field`[i]); n = 0
 * clears them. */
tsched_status ts_topology_set_block_sizes(tsched_topology *t, const uint64_t *sizes, size_t n, const char *field);
/* The recorded BlockSizes (NULL and 0 when none). */
const uint32_t *ts_topology_block_sizes(const tsched_topology *t, uint32_t *n);
/* Add the elements of a generated fabric to an unbuilt handle (the JSON loader extends
 * them with explicit elements before building). */
tsched_status ts_topology_generate_into(tsched_topology *t, const tsched_gen_params *p);
/* tsched_topology_add_link() with the trunk's total capacity given exactly, so that a
 * saved trunk loads back to the same double. */
tsched_status ts_topology_add_link_total(tsched_topology *t, const char *a, const char *b, double total_gbps,
                                         uint32_t count);
int ts_node_usable(const tsched_topology *t, uint32_t node);
int ts_switch_usable(const tsched_topology *t, uint32_t sw);
/* At build: allocate the path index and its buffers, build it, lay out the leaf
 * attachment lists and count free capacity. TSCHED_E_NOMEM leaves the handle only fit
 * to free. */
tsched_status ts_topology_index_init(tsched_topology *t);
void ts_topology_index_free(tsched_topology *t);
/* A state change happened: the index is rebuilt before the next count. O(1). */
static inline void ts_index_mark_stale(tsched_topology *t)
{
    atomic_store_explicit(&t->ix->stale, 1, memory_order_relaxed);
}
/* Rebuild the index if a state change made it stale (thread-safe, never fails). */
void ts_index_refresh(const tsched_topology *t);
static inline void ts_index_ensure(const tsched_topology *t)
{
    if (atomic_load_explicit(&t->ix->stale, memory_order_acquire))
        ts_index_refresh(t);
}
/* Tests: drop the index as a failed rebuild would (counts then walk the adjacency until
 * the next state change). */
void ts_index_drop(const tsched_topology *t);
/* Recount the free capacity from scratch (build time; tests compare against it). */
void ts_topology_recount_free(tsched_topology *t);

/* Paths between two leaves without argument checks, listed into `paths` (capacity `cap`;
 * returns the count); ts_leaf_count() and ts_list_leaf_links() are in topology_paths.h. */
size_t ts_list_leaf_paths(ts_path *paths, size_t cap, const tsched_topology *t, uint32_t a, uint32_t b);
/* Most fabric links on one path of this fabric: twice its highest tier (at least 2). */
static inline uint32_t ts_max_hops(const tsched_topology *t) { return t->max_tier > 1 ? 2u * (uint32_t)t->max_tier : 2u; }
/* Tests: the paths through tier 3 and above listed without the ancestor sets a listing
 * normally allocates (as when memory runs out); the same answer, slower. */
size_t ts_list_leaf_paths_nomem(ts_path *paths, size_t cap, const tsched_topology *t, uint32_t a, uint32_t b);
/* Tests: the path count through tier 3 and above from the ancestor sets (0 when they
 * cannot be allocated). */
uint64_t ts_deep_count(const tsched_topology *t, uint32_t a, uint32_t b);
/* Trunk between two switches, UINT32_MAX if none (binary search in adjacency). */
/* Paths between two leaves via the profile index (cores = 0: 2-hop, 1: 4-hop). */
uint64_t ts_profile_count(const ts_profiles *p, int cores, uint32_t a, uint32_t b);
uint32_t ts_trunk_between(const tsched_topology *t, uint32_t lower, uint32_t upper);
/* Capacity of the up members of trunk r (runs in order; a run with all members up gives
 * its exact capacity back). */
double ts_trunk_capacity(const tsched_topology *t, uint32_t r);
/* Trunk of member m (m < nmembers): binary search over tr_mem_off. */
uint32_t ts_member_trunk(const tsched_topology *t, uint32_t m);

#endif
