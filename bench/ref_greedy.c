/* See ref_greedy.h. */
#include "ref_greedy.h"

#include <stdlib.h>

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
        const uint32_t *u = up + (size_t)a * spines, *d = down + (size_t)b * spines;
        uint32_t best = 0, bestv = UINT32_MAX;
        for (uint32_t s = 0; s < spines; s++) {
            uint32_t v = u[s] > d[s] ? u[s] : d[s];
            if (v < bestv) {
                bestv = v;
                best = s;
            }
        }
        spine_of[i] = best;
        up[(size_t)a * spines + best]++;
        down[(size_t)b * spines + best]++;
    }
    free(up);
    return 0;
}
