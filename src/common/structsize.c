#include "structsize.h"

#include <stdint.h>

tsched_status ts_struct_size(size_t size, const ts_span *f, size_t n, size_t full, const char *name)
{
    if (size < sizeof(size_t) || size > full)
        return ts_error(TSCHED_E_INVALID,
                        "%s.size: %zu is outside [%zu, %zu]; set it to sizeof(%s) or use the struct's init function",
                        name, size, sizeof(size_t), full, name);
    /* A real struct of an older layout ends where a field ends, or (with its trailing
     * padding) where the next field begins. */
    if (size == full)
        return TSCHED_OK;
    for (size_t i = 0; i < n; i++)
        if (size == f[i].end || size == f[i].off)
            return TSCHED_OK;
    return ts_error(TSCHED_E_INVALID, "%s.size: %zu does not end on a field boundary (this library's sizeof is %zu)",
                    name, size, full);
}

tsched_status ts_struct_in(void *dst, const void *src, const ts_span *f, size_t n, size_t full, const char *name)
{
    size_t size;
    memcpy(&size, src, sizeof size);
    tsched_status st = ts_struct_size(size, f, n, full, name);
    if (st != TSCHED_OK)
        return st;
    memcpy((char *)dst + sizeof size, (const char *)src + sizeof size, size - sizeof size);
    return TSCHED_OK;
}

tsched_status ts_struct_out(void *dst, const void *full_src, const ts_span *f, size_t n, size_t full,
                            const char *name)
{
    size_t size;
    memcpy(&size, dst, sizeof size);
    tsched_status st = ts_struct_size(size, f, n, full, name);
    if (st != TSCHED_OK)
        return st;
    memcpy((char *)dst + sizeof size, (const char *)full_src + sizeof size, size - sizeof size);
    return TSCHED_OK;
}
