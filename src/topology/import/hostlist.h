/* Internal: hostlist expressions, the compact name lists of Slurm and other cluster tools:
 * "gpu[001-064,070]", "tux[0-3,12,18-20]", "n[1-2]-ib", "r[1-2]n[01-02]", "a,b[1-2]".
 *
 * Grammar: a list is items separated by top-level commas, blanks, tabs or newlines; runs of
 * separators and separators at either end are ignored ("a,,b," is "a b", "," is no name at
 * all), as Slurm's hostlist_create() does. An item is literal text with any number of
 * bracket groups; a group is comma-separated ranges `lo` or `lo-hi` of decimal numbers.
 * A number is zero-padded to the number of digits its range's `lo` was written with, so
 * "[001-064]" gives 001..064 and "[8-10]" gives 8, 9, 10.
 *
 * Several groups expand as a cartesian product in Slurm's order (Slurm 22.05, `scontrol
 * show hostnames`): the last group turns fastest, then the first, the second, ..., and the
 * last but one slowest. Two groups are thus the plain odometer ("r[1-2]n[1-2]" is r1n1 r1n2
 * r2n1 r2n2), but "r[1-2]n[1-2]p[1-2]" is r1n1p1 r1n1p2 r2n1p1 r2n1p2 r1n2p1 ... Order and
 * duplicates are kept as written: deciding what a repeated name means is the caller's
 * business.
 *
 * Names are stored back to back in one arena so that a million names cost a few
 * allocations. Sizes are checked before anything is allocated, so a short expression that
 * would expand to billions of names fails fast with TSCHED_E_TOO_LARGE. */
#ifndef TS_TOPOLOGY_HOSTLIST_H
#define TS_TOPOLOGY_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/error.h"
#include "../../common/text.h"

/* Longest number inside brackets: every value and every count then fits in a uint64_t. */
#define TS_HOSTLIST_MAX_DIGITS 18
/* Most bytes (names and their NULs) one expansion may add, whatever the caller's name
 * limit: a long prefix times a large range must not exhaust memory. */
#define TS_HOSTLIST_MAX_BYTES ((size_t)1 << 30)

typedef struct ts_hostlist {
    char *arena;      /* NUL-terminated names back to back */
    size_t arena_len, arena_cap;
    size_t *offs;     /* name i starts at arena + offs[i] */
    size_t count, offs_cap;
} ts_hostlist;

void ts_hostlist_init(ts_hostlist *h);
void ts_hostlist_free(ts_hostlist *h);
/* Forget the names but keep the memory, for reuse by the next expansion. */
void ts_hostlist_clear(ts_hostlist *h);

/* Validate `len` bytes of `expr` and count what it expands to, without expanding it:
 * `*names` names taking `*bytes` bytes with their NULs (either pointer may be NULL; a list of
 * separators only has no name).
 * Errors: TSCHED_E_PARSE (unmatched or nested bracket, empty range, a non-digit
 * or a reversed range inside brackets, a number longer than TS_HOSTLIST_MAX_DIGITS, a NUL
 * byte), TSCHED_E_TOO_LARGE (more than `max_names` names or TS_HOSTLIST_MAX_BYTES bytes).
 * Messages quote the expression and say where it went wrong. */
tsched_status ts_hostlist_measure(size_t *names, size_t *bytes, const char *expr, size_t len, size_t max_names);

/* Append the names of `expr` to `h`, in the order written. At most `max_names` names may
 * be added by this call. Errors as ts_hostlist_measure(), plus TSCHED_E_NOMEM; on any
 * error `h` keeps exactly the names it had. */
tsched_status ts_hostlist_expand(ts_hostlist *h, const char *expr, size_t len, size_t max_names);

/* ---- text in messages --------------------------------------------------------------- */

static inline size_t ts_hostlist_count(const ts_hostlist *h) { return h->count; }
/* Name i (i < count), valid until the next expand, clear or free. */
static inline const char *ts_hostlist_name(const ts_hostlist *h, size_t i) { return h->arena + h->offs[i]; }

#endif
