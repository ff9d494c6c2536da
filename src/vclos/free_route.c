/* Free-mode routing (doc/vclos.md §5): STUB until the baselines land. */
#include "vclos_internal.h"

tsched_status vc_free_route(const tsched_vclos *v, const vc_job *j, uint32_t src, uint32_t dst, uint32_t *up,
                            uint32_t *down)
{
    (void)v, (void)j, (void)src, (void)dst;
    *up = *down = VC_NONE;
    return ts_error(TSCHED_E_STATE, "free-mode routing: not built yet");
}

tsched_status vc_free_step(const tsched_vclos *v, tsched_vclos_pattern pattern, uint32_t step, uint32_t *up,
                           uint32_t *down)
{
    (void)v, (void)pattern, (void)step, (void)up, (void)down;
    return ts_error(TSCHED_E_STATE, "free-mode routing: not built yet");
}
