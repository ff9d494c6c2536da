#include "readall.h"

#include <stdlib.h>
#include <string.h>

ts_read_result ts_read_stream(FILE *f, uint64_t max, char **out, size_t *len)
{
    char *buf = NULL;
    size_t cap = 0, n = 0;
    ts_read_result r = TS_READ_OK;
    *out = NULL;
    *len = 0;
    for (;;) {
        /* Grow by doubling (at least 64 KiB) but never past the limit (+1 byte to see that it
         * is exceeded, +1 for the terminating NUL). */
        if (cap - n < 2 || cap == 0) {
            size_t want = cap < 65536 ? 65536 : 2 * cap;
            if (max < SIZE_MAX - 2 && want > max + 2)
                want = (size_t)max + 2;
            if (want <= cap) /* cannot happen: n <= max here */
                want = cap + 2;
            char *nb = realloc(buf, want);
            if (!nb) {
                r = TS_READ_NOMEM;
                break;
            }
            buf = nb;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        const char *nul = got ? memchr(buf + n, '\0', got) : NULL;
        if (nul) {
            *len = n + (size_t)(nul - (buf + n));
            r = TS_READ_NUL;
            break;
        }
        n += got;
        if (n > max) {
            r = TS_READ_TOO_LARGE;
            break;
        }
        if (got == 0) {
            if (ferror(f))
                r = TS_READ_IO;
            break;
        }
    }
    if (r != TS_READ_OK) {
        free(buf);
        return r;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return TS_READ_OK;
}
