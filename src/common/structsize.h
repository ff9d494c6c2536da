/* Internal: the size rule of public option and output structs (DESIGN 3). A struct begins
 * with `size_t size`; a caller built against an older header passes a smaller size. Any
 * size from sizeof(size_t) up to the library's own that does not end strictly inside a
 * field is valid: the fields it covers are the caller's, the rest take their defaults (in)
 * or are not written (out). Because fields are only ever appended, the covered fields are
 * exactly the first `size` bytes, so copying is a memcpy of that prefix. */
#ifndef TS_COMMON_STRUCTSIZE_H
#define TS_COMMON_STRUCTSIZE_H

#include <stddef.h>
#include <string.h>

#include "error.h"

typedef struct ts_span {
    size_t off, end; /* a field occupies bytes [off, end) */
} ts_span;

#define TS_SPAN(T, m) { offsetof(T, m), offsetof(T, m) + sizeof(((T *)0)->m) }

/* TSCHED_E_INVALID naming `name` and both sizes unless `size` is valid for a struct of
 * `full` bytes whose fields are `f[0..n)`. */
tsched_status ts_struct_size(size_t size, const ts_span *f, size_t n, size_t full, const char *name);

/* Input: `dst` (full size, already holding the defaults) takes the caller's covered fields
 * from `src`, whose first member is its size. Checks the size first. */
tsched_status ts_struct_in(void *dst, const void *src, const ts_span *f, size_t n, size_t full, const char *name);

/* Output: write the prefix of `full` (a complete struct) that the caller's `*(size_t *)dst`
 * covers into `dst`; the size field keeps the caller's value. */
tsched_status ts_struct_out(void *dst, const void *full_src, const ts_span *f, size_t n, size_t full,
                            const char *name);

#define TS_NSPANS(a) (sizeof(a) / sizeof((a)[0]))

#endif
