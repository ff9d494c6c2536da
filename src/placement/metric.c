/* The Eq. 2 metric (DESIGN 5.3): a group's spread is the number of distinct domains among
 * its nodes; dp_max over columns, pp_max over rows. */
#include <stdlib.h>

#include "../common/alloc.h"
#include "solver.h"

tsched_status ts_metric_eval(ts_metric *m, const uint32_t *dom, uint32_t rows, uint32_t cols, uint32_t ndom,
                             double alpha)
{
    /* seen[k] holds the id of the last group that counted domain k: no clearing between
     * groups. Ids: rows 1..R, columns R+1..R+C, everything R+C+1. */
    uint32_t *seen = ts_calloc(ndom, sizeof *seen);
    if (!seen)
        return TSCHED_E_NOMEM;
    m->dp_max = m->pp_max = m->used = 0;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t n = 0;
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t k = dom[(size_t)r * cols + c];
            if (seen[k] != r + 1) {
                seen[k] = r + 1;
                n++;
            }
        }
        if (n > m->pp_max)
            m->pp_max = n;
    }
    for (uint32_t c = 0; c < cols; c++) {
        uint32_t n = 0, id = rows + 1 + c;
        for (uint32_t r = 0; r < rows; r++) {
            uint32_t k = dom[(size_t)r * cols + c];
            if (seen[k] != id) {
                seen[k] = id;
                n++;
            }
        }
        if (n > m->dp_max)
            m->dp_max = n;
    }
    uint32_t all = rows + cols + 1;
    for (size_t i = 0; i < (size_t)rows * cols; i++) {
        uint32_t k = dom[i];
        if (seen[k] != all) {
            seen[k] = all;
            m->used++;
        }
    }
    free(seen);
    m->weighted = alpha * m->dp_max + (1.0 - alpha) * m->pp_max;
    return TSCHED_OK;
}
