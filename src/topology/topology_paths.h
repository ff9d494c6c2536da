/* The topology module's interface to the library's other modules (routing, priority,
 * vclos, cell, workload), beside the public topology.h: what their hot loops and their
 * checks need of a fabric, and nothing else. They include this header, never
 * topology_internal.h (tests/check_seams.sh fails the suite otherwise); a field added to
 * struct tsched_topology stays private until it is added here. doc/ARCHITECTURE.md lists
 * who uses what.
 *
 * The arrays are read through a view (ts_topo_paths) filled by one call: the consumer's
 * loops index plain arrays, as fast as reading the handle's fields, without knowing the
 * handle's layout. */
#ifndef TS_TOPOLOGY_PATHS_H
#define TS_TOPOLOGY_PATHS_H

#include "topo-sched/topology.h"

/* The library's own path record (up to 8 tiers: 15 switches); public tsched_path arrays
 * are filled from it with the caller's stride. */
typedef struct ts_path {
    uint32_t nswitches;
    uint32_t switches[TSCHED_PATH_MAX_SWITCHES];
    uint32_t links[TSCHED_PATH_MAX_LINKS];
} ts_path;

/* Copy `n` internal paths into the caller's array of stride `paths[0].size` (checked);
 * `fn` names the caller in errors. */
tsched_status ts_paths_out(tsched_path *paths, const ts_path *src, size_t n, const char *fn);
/* The stride of a caller's tsched_path array: its first element's size, checked. */
tsched_status ts_path_stride(size_t *stride, const tsched_path *paths, const char *fn);

/* TSCHED_E_INVALID for NULL, TSCHED_E_STATE before build; `fn` names the caller. */
tsched_status ts_check_built(const tsched_topology *t, const char *fn);
/* 1 once tsched_topology_build() has succeeded (t not NULL), else 0. Sets no error. */
int ts_topology_built(const tsched_topology *t);
/* The state version: changes whenever paths may have changed (any up/down change), so a
 * cache of paths compares it. */
uint64_t ts_topology_version(const tsched_topology *t);

/* A flow endpoint of a JSON document: the node named by field `key` of `o` (resolved in t)
 * and its NIC from field `nic_key` (default 0), checked against the node; errors name
 * `where.key`. */
struct json_t;
tsched_status ts_json_node_nic(uint32_t *node, uint32_t *nic, const struct json_t *o, const char *where,
                               const char *key, const char *nic_key, const tsched_topology *t);

/* One entry of a switch's up-adjacency. */
typedef struct ts_adj {
    uint32_t sw;    /* neighbour switch */
    uint32_t trunk;
} ts_adj;

/* A read-only view of a built fabric's arrays. Filled by ts_topology_paths(); it stays
 * valid while the handle lives and its shape (tsched_topology_generation()) is unchanged:
 * state changes (up/down, free GPUs) write into the same arrays, so the view sees them.
 * Directed link ids are as in tsched_path: 2r climbs trunk r, 2r + 1 descends it. */
typedef struct ts_topo_paths {
    const tsched_topology *topo; /* the handle it views */
    uint32_t nnodes, nswitches, ntrunks;
    uint32_t max_hops;           /* most fabric links on one path: twice the highest tier (>= 2) */
    /* nodes */
    const uint32_t *node_leaf;   /* leaf switch of NIC 0 */
    const uint32_t *node_nics;
    const uint32_t *node_rail;   /* offset into rail[] (one leaf per NIC), or UINT32_MAX */
    const uint32_t *rail;
    const uint8_t *node_up;      /* the node's own state (not its leaf's) */
    /* switches */
    const uint8_t *sw_tier, *sw_up;
    const uint32_t *sw_ord;      /* position within its tier */
    uint32_t nleaves;
    const uint32_t *leaves;      /* tier 0, in index order (sw_ord of leaves[o] is o) */
    /* trunks, sorted by (lower, upper) */
    const uint32_t *tr_lower, *tr_upper;
    const uint8_t *tr_up;        /* usable: its own state up and one member up */
    const uint8_t *tr_own;       /* its own state only (set_trunk_up, `a~b` in a down list) */
    /* up-adjacency: CSR over switches, sorted by neighbour index */
    const uint32_t *up_off;
    const ts_adj *up_adj;
} ts_topo_paths;

/* Fill `v` from a built fabric (the caller checked ts_check_built()). O(1). */
void ts_topology_paths(ts_topo_paths *v, const tsched_topology *t);

/* The leaf of a node's NIC (both checked by the caller), as tsched_topology_node_nic_leaf(). */
static inline uint32_t ts_nic_leaf(const ts_topo_paths *v, uint32_t node, uint32_t nic)
{
    return v->node_rail[node] == UINT32_MAX ? v->node_leaf[node] : v->rail[v->node_rail[node] + nic];
}

/* The switch a directed fabric link leads to. */
static inline uint32_t ts_link_head(const ts_topo_paths *v, uint32_t l)
{
    return l & 1 ? v->tr_lower[l / 2] : v->tr_upper[l / 2];
}

/* Paths between two leaves without argument checks (routing calls these per leaf pair):
 * the O(1) count, and their directed links only, path after path (*hops each: 0, 2, 4,
 * ... up to max_hops), into `links` (room for cap * max_hops; cap paths at most; returns
 * the count). */
uint64_t ts_leaf_count(const tsched_topology *t, uint32_t a, uint32_t b);
size_t ts_list_leaf_links(uint32_t *links, uint32_t *hops, size_t cap, const tsched_topology *t, uint32_t a,
                          uint32_t b);

#endif
