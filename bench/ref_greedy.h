/* The plain reference of the routing bench: Algorithm 1 (greedy least-congested path) on an
 * intact two-tier leaf-spine fabric as a tight C loop over contiguous per-leaf spine loads,
 * with no library call. Paths are spines in index order, ties to the first, as the
 * library's. */
#ifndef TSCHED_BENCH_REF_GREEDY_H
#define TSCHED_BENCH_REF_GREEDY_H

#include <stdint.h>

/* Flow i goes from leaf src_leaf[i] to leaf dst_leaf[i] (ordinals < leaves); spine_of[i]
 * gets the chosen spine ordinal (UINT32_MAX for a flow within one leaf). Everything the
 * loop needs (the up and down loads, leaves x spines each) is allocated and zeroed inside:
 * a cold call; nothing is allocated per flow. Returns 0, or -1 when out of memory. */
int ref_greedy_leaf_spine(uint32_t *spine_of, const uint32_t *src_leaf, const uint32_t *dst_leaf, uint32_t n,
                          uint32_t leaves, uint32_t spines);

#endif
