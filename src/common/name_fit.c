/* Deterministic name shortening (see name_fit.h). */
#include "name_fit.h"

#include <stdio.h>
#include <string.h>

uint32_t ts_name_hash32(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static int alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

const char *ts_name_shorten(char *buf, size_t cap, const char *name, size_t n, size_t max)
{
    if (cap == 0)
        return buf;
    if (max + 1 > cap)
        max = cap - 1;
    if (n <= max) {
        memcpy(buf, name, n);
        buf[n] = '\0';
        return buf;
    }
    size_t keep = max > TS_NAME_HASH_SUFFIX ? max - TS_NAME_HASH_SUFFIX : 0;
    while (keep > 0 && !alnum((unsigned char)name[keep - 1]))
        keep--;
    memcpy(buf, name, keep);
    /* With nothing kept the hash alone must still fit and start alphanumerically. */
    snprintf(buf + keep, cap - keep, keep ? "-%08x" : "%08x", (unsigned)ts_name_hash32(name, n));
    return buf;
}
