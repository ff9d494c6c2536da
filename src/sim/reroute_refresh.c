/* Reroute refresh (CRUX §5, doc/sim.md §6): after a start or a finish, every running
 * job's flows are routed again with the current loads. */
#include <stdlib.h>

#include "../common/alloc.h"
#include "sim_internal.h"

/* reroute "refresh" (CRUX §5): every running job's flows are routed again, most GPU-intense
 * job first (CRUX Def. 2 on the current paths; ties by start, then trace order). */
tsched_status ts_sim_refresh_paths(tsched_sim *s)
{
    if (s->running == 0 || s->cr)
        return TSCHED_OK;
    tsched_jobset *js;
    uint32_t *which, n;
    tsched_status st = ts_sim_running_jobset(s, &js, &which, &n);
    if (st != TSCHED_OK)
        return st;
    tsched_priorities *pr = NULL;
    double *key = ts_malloc(n ? n : 1, sizeof *key);
    if (!key)
        st = TSCHED_E_NOMEM;
    if (st == TSCHED_OK && n > 0)
        st = tsched_prioritize(&pr, s->t, js, NULL);
    for (uint32_t k = 0; st == TSCHED_OK && k < n; k++)
        key[k] = tsched_priorities_intensity(pr, k);
    /* insertion sort of `which` by (intensity desc, start asc, index asc) */
    for (uint32_t i = 1; st == TSCHED_OK && i < n; i++) {
        uint32_t w = which[i], k = i;
        double kv = key[i];
        while (k > 0) {
            uint32_t p = which[k - 1];
            int before = kv > key[k - 1] ||
                         (kv == key[k - 1] && (s->jobs[w].start < s->jobs[p].start ||
                                                (s->jobs[w].start == s->jobs[p].start && w < p)));
            if (!before)
                break;
            which[k] = p;
            key[k] = key[k - 1];
            k--;
        }
        which[k] = w;
        key[k] = kv;
    }
    for (uint32_t k = 0; st == TSCHED_OK && k < n; k++)
        st = ts_sim_reroute_job(s, which[k]);
    tsched_priorities_free(pr);
    tsched_jobset_free(js);
    free(which);
    free(key);
    return st;
}
