#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int mul_overflows(size_t n, size_t size, size_t *out)
{
    if (size != 0 && n > SIZE_MAX / size)
        return 1;
    *out = n * size;
    return 0;
}

void *ts_malloc(size_t n, size_t size)
{
    size_t bytes;
    if (mul_overflows(n, size, &bytes)) {
        ts_error(TSCHED_E_NOMEM, "allocation of %zu x %zu bytes overflows", n, size);
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        ts_error(TSCHED_E_NOMEM, "out of memory allocating %zu bytes", bytes);
    return p;
}

void *ts_calloc(size_t n, size_t size)
{
    size_t bytes;
    if (mul_overflows(n, size, &bytes)) {
        ts_error(TSCHED_E_NOMEM, "allocation of %zu x %zu bytes overflows", n, size);
        return NULL;
    }
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        ts_error(TSCHED_E_NOMEM, "out of memory allocating %zu bytes", bytes);
    return p;
}

void *ts_realloc(void *ptr, size_t n, size_t size)
{
    size_t bytes;
    if (mul_overflows(n, size, &bytes)) {
        ts_error(TSCHED_E_NOMEM, "allocation of %zu x %zu bytes overflows", n, size);
        return NULL;
    }
    void *p = realloc(ptr, bytes ? bytes : 1);
    if (!p)
        ts_error(TSCHED_E_NOMEM, "out of memory allocating %zu bytes", bytes);
    return p;
}

tsched_status ts_grow(void **ptr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return TSCHED_OK;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return ts_error(TSCHED_E_NOMEM, "array of %zu elements is too large", need);
        ncap *= 2;
    }
    void *p = ts_realloc(*ptr, ncap, size);
    if (!p)
        return TSCHED_E_NOMEM;
    *ptr = p;
    *cap = ncap;
    return TSCHED_OK;
}

char *ts_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = ts_malloc(n, 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

void tsched_free(void *ptr) { free(ptr); }
