/* Internal: a string table that gives each distinct string a dense id (0, 1, ...) in
 * insertion order, with O(1) lookup. Names of nodes, switches, pods and GPU types live
 * here; strings are kept in one arena so a fabric of 100,000 nodes costs a few allocations. */
#ifndef TS_COMMON_STRTAB_H
#define TS_COMMON_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct ts_strtab {
    char *arena;       /* NUL-terminated strings back to back */
    size_t arena_len, arena_cap;
    size_t *offs;      /* id -> offset into arena */
    uint32_t *hashes;  /* id -> hash */
    size_t count, offs_cap;
    uint32_t *slots;   /* open addressing: id + 1, 0 = empty */
    size_t nslots;     /* power of two */
} ts_strtab;

void ts_strtab_init(ts_strtab *t);
void ts_strtab_free(ts_strtab *t);
/* Id of `s` or UINT32_MAX. */
uint32_t ts_strtab_find(const ts_strtab *t, const char *s);
/* Id of `s`, adding it if new; `*added` (may be NULL) tells which. */
tsched_status ts_strtab_intern(ts_strtab *t, const char *s, uint32_t *id, int *added);
/* The string of id (valid until the next intern). */
static inline const char *ts_strtab_str(const ts_strtab *t, uint32_t id) { return t->arena + t->offs[id]; }
static inline uint32_t ts_strtab_count(const ts_strtab *t) { return (uint32_t)t->count; }

#endif
