/* Failures (doc/vclos.md §6): STUB until failures land. */
#include "vclos_internal.h"

tsched_status tsched_vclos_set_up(tsched_vclos *v, const char *name, int up)
{
    (void)v, (void)name, (void)up;
    return ts_error(TSCHED_E_STATE, "tsched_vclos_set_up: not built yet");
}

tsched_status tsched_vclos_changes(const char **jobs, tsched_vclos_change *what, size_t cap, size_t *count,
                                   const tsched_vclos *v)
{
    (void)jobs, (void)what, (void)cap, (void)v;
    if (count)
        *count = 0;
    return ts_error(TSCHED_E_STATE, "tsched_vclos_changes: not built yet");
}
