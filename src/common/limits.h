/* Internal: the calling thread's resource limits (tsched_limits_get/_set) and the one
 * message every exceeded limit gives. */
#ifndef TS_COMMON_LIMITS_H
#define TS_COMMON_LIMITS_H

#include "error.h"

/* The calling thread's limits (read-only view; always complete). */
const tsched_limits *ts_limits(void);

/* TSCHED_E_TOO_LARGE: "<what>: <value> exceeds the limit <field> = <limit> (tsched_limits)". */
tsched_status ts_limit_error(const char *what, unsigned long long value, const char *field,
                             unsigned long long limit);

/* ts_limit_error unless value <= limit. */
static inline tsched_status ts_limit_check(const char *what, unsigned long long value, const char *field,
                                           unsigned long long limit)
{
    return value <= limit ? TSCHED_OK : ts_limit_error(what, value, field, limit);
}

#endif
