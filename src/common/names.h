/* Internal: what a name may be (DESIGN 3): valid UTF-8 without control characters, 1 to
 * tsched_limits.name_bytes bytes, without '~' or '#' (they build trunk and member-link names
 * such as `leaf0~spine1#2`). Every name enters the library through a call that checks it. */
#ifndef TS_COMMON_NAMES_H
#define TS_COMMON_NAMES_H

#include "error.h"

/* TSCHED_E_RANGE naming `field` (e.g. "nodes[3].name") and what is wrong, else TSCHED_OK.
 * NULL is TSCHED_E_INVALID. */
tsched_status ts_name_check(const char *name, const char *field);

/* Name of a placement domain level in the formats (DESIGN 5.2/5.3): "leaf", "pod", "nvl";
 * "auto" for a negative value, "?" for any other. */
const char *ts_domain_name(int domain);

/* A public enum's names listed in value order (names[v] for v = 0..n-1): the name of `v`, or
 * "?" outside; the value of `name`, or -1 (`name` not NULL). */
const char *ts_enum_name(const char *const *names, unsigned n, int v);
int ts_enum_find(const char *const *names, unsigned n, const char *name);

#endif
