/* Internal: checked allocation. Every failure records TSCHED_E_NOMEM with the size. */
#ifndef TS_COMMON_ALLOC_H
#define TS_COMMON_ALLOC_H

#include <stddef.h>

#include "error.h"

/* malloc/calloc of n * size bytes with overflow check; NULL + error on failure. */
void *ts_malloc(size_t n, size_t size);
void *ts_calloc(size_t n, size_t size);
/* realloc to n * size bytes; on failure the old block is untouched and NULL returned. */
void *ts_realloc(void *ptr, size_t n, size_t size);
/* Grow `*ptr` (an array of `size`-byte elements with capacity `*cap`) to hold at least
 * `need` elements, doubling. Returns TSCHED_OK or TSCHED_E_NOMEM. */
tsched_status ts_grow(void **ptr, size_t *cap, size_t need, size_t size);
/* strdup with the library's error handling. */
char *ts_strdup(const char *s);

#define TS_GROW(arr, cap, need) ts_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

#endif
