/* See ref_greedy.h. Two passes over the pair's two load rows per flow: the smallest busiest
 * link (max of up and down, min over spines: a branch-free loop the compiler vectorises),
 * then the first spine that has it. On x86-64 with gcc the function is also compiled for
 * AVX2 and picked at load time (target_clones), as the library picks its AVX2 search at run
 * time: the reference is the plain loop at the best the compiler makes of it (issue 26
 * item 5), not a scalar loop the library's vector code would flatter. */
#include "ref_greedy.h"

#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define REF_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef REF_CLONES
#define REF_CLONES
#endif

REF_CLONES
int ref_greedy_leaf_spine(uint32_t *spine_of, const uint32_t *src_leaf, const uint32_t *dst_leaf, uint32_t n,
                          uint32_t leaves, uint32_t spines)
{
    /* up[a * spines + s]: flows on leaf a -> spine s; down[b * spines + s]: spine s -> leaf b */
    uint32_t *up = calloc((size_t)leaves * spines * 2, sizeof *up);
    if (!up)
        return -1;
    uint32_t *down = up + (size_t)leaves * spines;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = src_leaf[i], b = dst_leaf[i];
        if (a == b) {
            spine_of[i] = UINT32_MAX;
            continue;
        }
        uint32_t *restrict u = up + (size_t)a * spines, *restrict d = down + (size_t)b * spines;
        uint32_t m = UINT32_MAX;
        for (uint32_t s = 0; s < spines; s++) {
            uint32_t v = u[s] > d[s] ? u[s] : d[s];
            m = v < m ? v : m;
        }
        uint32_t best = 0;
        while ((u[best] > d[best] ? u[best] : d[best]) != m)
            best++;
        spine_of[i] = best;
        u[best]++;
        d[best]++;
    }
    free(up);
    return 0;
}
