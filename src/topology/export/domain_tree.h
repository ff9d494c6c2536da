/* Internal: the domain tree every export writes (doc/export.md, "The domain tree").
 *
 * For a node, its tier-0 domain is its leaf (exports refuse a node with NICs on several
 * leaves before building the tree, so NIC 0's is every NIC's); its tier-k domain (k >= 1)
 * is the connected component of the switches of tiers 0..k that holds that leaf. Only
 * domains holding a node exist. Domains of one tier are numbered in order of their first
 * leaf (leaf index order). A tier-0 domain is named after its leaf; a higher one after its
 * single tier-k switch if it has exactly one, else after its pod at tier 1, else
 * `<tier name>-<i>` (i its number in the tier). Tiers run from 0 to the highest tier present.
 *
 * NVLink domains form one more level when the fabric has any: a node without a domain is a
 * domain of its own (named after the node); domains are numbered in order of first node.
 * The level is inserted at the lowest position where it nests (see `nvl_pos`).
 *
 * "Written levels" are the tiers from the bottom with the NVLink level inserted; every
 * domain of a written level lies inside one domain of the next, so each level's domain of
 * a node, read from the top, is a path. */
#ifndef TS_TOPOLOGY_DOMAIN_TREE_H
#define TS_TOPOLOGY_DOMAIN_TREE_H

#include <stdint.h>

#include "topo-sched/topology.h"

/* Most tiers a fabric may have. */
#define TS_DT_MAX_TIERS TSCHED_MAX_TIERS

typedef struct ts_dlevel {
    int nvl;               /* 1: the NVLink level; 0: a tier */
    int tier;              /* the tier (0 leaf, 1 spine, ...); -1 for the NVLink level */
    uint32_t ndom;         /* domains of this level */
    uint32_t *node_dom;    /* node -> its domain */
    uint32_t *first_node;  /* domain -> its lowest node index */
    const char **name;     /* domain -> name (owned by the fabric or the tree) */
    uint32_t *sw;          /* tier: the switch a domain is named after, else TSCHED_NONE;
                              NVLink: the fabric's NVLink domain index, TSCHED_NONE for a
                              node alone */
    uint32_t *sw_dom;      /* tier k: switch -> the domain holding it (switches of tiers
                              0..k joined to a leaf with nodes), else TSCHED_NONE; NULL for
                              the NVLink level */
} ts_dlevel;

typedef struct ts_dtree {
    uint32_t nnodes;
    uint32_t ntiers;       /* tiers 0..ntiers-1 (0 when the fabric has no node) */
    ts_dlevel tier[TS_DT_MAX_TIERS];
    int has_nvl;           /* the fabric has NVLink domains: `nvl` is filled */
    ts_dlevel nvl;
    /* Where the NVLink level nests: the number of tiers below it (0: below the leaves,
     * ntiers: above the top tier), or -1 when it nests nowhere (or there is none). */
    int nvl_pos;
    char *names;           /* generated names, back to back */
} ts_dtree;

/* Build the tree of a built fabric. Errors: TSCHED_E_INVALID, TSCHED_E_NOMEM. */
tsched_status ts_dtree_build(ts_dtree *d, const tsched_topology *t);
void ts_dtree_free(ts_dtree *d);

/* Number of written levels: the tiers, plus the NVLink level when it nests. */
uint32_t ts_dtree_nlevels(const ts_dtree *d);
/* Written level i, from the bottom (0 .. nlevels-1). */
const ts_dlevel *ts_dtree_level(const ts_dtree *d, uint32_t i);
/* Domain of the next level up holding domain `dom` of `lv` (`up` is that level). */
static inline uint32_t ts_dlevel_parent(const ts_dlevel *up, const ts_dlevel *lv, uint32_t dom)
{
    return up->node_dom[lv->first_node[dom]];
}
/* Name of a tier: leaf, spine, core, tier<k> (into buf of at least 16 bytes). */
const char *ts_tier_name(char *buf, size_t cap, int tier);

#endif
