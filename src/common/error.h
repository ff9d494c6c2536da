/* Internal: the per-thread last-error record. */
#ifndef TS_COMMON_ERROR_H
#define TS_COMMON_ERROR_H

#include "topo-sched/common.h"

#if defined(__GNUC__)
#define TS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TS_PRINTF(a, b)
#endif

/* Record a failure for the calling thread and return `status`, so call sites read
 * `return ts_error(TSCHED_E_RANGE, "...", ...);`. */
tsched_status ts_error(tsched_status status, const char *fmt, ...) TS_PRINTF(2, 3);

/* Prepend "prefix: " to the current message (e.g. the file name), keep the status,
 * and return it. */
tsched_status ts_error_prefix(tsched_status status, const char *prefix);

#endif
