/* Internal: shorten a name to a target's length limit, deterministically and without
 * losing uniqueness (exports' `sanitize`, doc/export.md "Name limits"). */
#ifndef TS_COMMON_NAME_FIT_H
#define TS_COMMON_NAME_FIT_H

#include <stddef.h>
#include <stdint.h>

/* Length of the suffix ts_name_shorten() appends: '-' and 8 lower-case hex digits. */
#define TS_NAME_HASH_SUFFIX 9

/* 32-bit FNV-1a of the n bytes of s (the suffix's hash; stable across versions). */
uint32_t ts_name_hash32(const char *s, size_t n);

/* `name` (n bytes) fitted to `max` bytes (max > TS_NAME_HASH_SUFFIX): a copy when n <= max;
 * else its first max - 9 bytes, less any trailing bytes that are not alphanumeric (so that
 * the result still starts and ends like a DNS label), then '-' and the 8 hex digits of
 * ts_name_hash32() of the WHOLE name. Two different long names collide only when their
 * prefixes and 32-bit hashes both agree; callers still check uniqueness afterwards.
 * Writes into buf (cap >= max + 1) and returns it. */
const char *ts_name_shorten(char *buf, size_t cap, const char *name, size_t n, size_t max);

#endif
