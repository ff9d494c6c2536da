/* Stage 2 (doc/vclos.md §2-§3): STUB until the class-aggregated ILP lands. */
#include "vclos_internal.h"

tsched_status vc_stage2(const tsched_vclos *v, vc_job *j, uint32_t Q, int ignore_links, double deadline,
                        int *found, int *timed_out)
{
    (void)v, (void)j, (void)Q, (void)ignore_links, (void)deadline;
    *found = *timed_out = 0;
    return TSCHED_OK;
}
