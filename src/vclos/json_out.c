/* tsched.vclos.v1 output (doc/vclos.md §8): STUB until the formats land. */
#include <stddef.h>

#include "vclos_internal.h"

tsched_status tsched_vclos_to_json(char **out, const tsched_vclos *v, int pattern, uint32_t step)
{
    (void)v, (void)pattern, (void)step;
    if (out)
        *out = NULL;
    return ts_error(TSCHED_E_STATE, "tsched_vclos_to_json: not built yet");
}
