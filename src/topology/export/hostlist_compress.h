/* Internal: the inverse of ts_hostlist_expand() for a list of names, used by the exports
 * (doc/export.md): names split into a prefix and trailing digits (at most
 * TS_HOSTLIST_MAX_DIGITS); consecutive names of one prefix share one bracket group, in which
 * runs of consecutive numbers of one digit width become `a-b` ("gpu[01-04,07]"), as do runs
 * written without zero padding across widths ("n[8-10]"); anything else is written as it
 * is, items joined by commas. The order of the list is kept, so
 * expanding the text gives back exactly the same names. */
#ifndef TS_TOPOLOGY_HOSTLIST_COMPRESS_H
#define TS_TOPOLOGY_HOSTLIST_COMPRESS_H

#include <stddef.h>

#include "../../common/sbuf.h"

/* Append the expression of names[0..n) to `out`. Errors: TSCHED_E_FORMAT for a name that a
 * hostlist cannot carry (empty, or holding ',', '[', ']' or a blank), naming `what` (e.g.
 * `switch "leaf0": Nodes`) and the name. */
tsched_status ts_hostlist_compress(ts_sbuf *out, const char *const *names, size_t n, const char *what);

#endif
