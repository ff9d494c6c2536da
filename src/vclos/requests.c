/* tsched.vclos-requests.v1 and --state (doc/vclos.md §8): STUB until the formats land. */
#include <stddef.h>

#include "vclos_internal.h"

tsched_status tsched_vclos_load_state(tsched_vclos *v, const char *json, size_t len)
{
    (void)v, (void)json, (void)len;
    return ts_error(TSCHED_E_STATE, "tsched_vclos_load_state: not built yet");
}

tsched_status tsched_vclos_apply_requests(char **out, tsched_vclos *v, const char *json, size_t len, int pattern,
                                          uint32_t step, int timing)
{
    (void)v, (void)json, (void)len, (void)pattern, (void)step, (void)timing;
    if (out)
        *out = NULL;
    return ts_error(TSCHED_E_STATE, "tsched_vclos_apply_requests: not built yet");
}
