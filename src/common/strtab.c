#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static uint32_t hash_str(const char *s)
{
    /* FNV-1a: names are short, and this is fast and good enough to spread them. */
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

void ts_strtab_init(ts_strtab *t) { memset(t, 0, sizeof *t); }

void ts_strtab_free(ts_strtab *t)
{
    free(t->arena);
    free(t->offs);
    free(t->hashes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static uint32_t lookup(const ts_strtab *t, const char *s, uint32_t h, size_t *slot)
{
    size_t mask = t->nslots - 1;
    size_t i = h & mask;
    for (;;) {
        uint32_t v = t->slots[i];
        if (v == 0) {
            *slot = i;
            return UINT32_MAX;
        }
        if (t->hashes[v - 1] == h && strcmp(t->arena + t->offs[v - 1], s) == 0) {
            *slot = i;
            return v - 1;
        }
        i = (i + 1) & mask;
    }
}

uint32_t ts_strtab_find(const ts_strtab *t, const char *s)
{
    if (t->nslots == 0 || s == NULL)
        return UINT32_MAX;
    size_t slot;
    return lookup(t, s, hash_str(s), &slot);
}

static tsched_status rehash(ts_strtab *t, size_t nslots)
{
    uint32_t *slots = ts_calloc(nslots, sizeof *slots);
    if (!slots)
        return TSCHED_E_NOMEM;
    size_t mask = nslots - 1;
    for (size_t id = 0; id < t->count; id++) {
        size_t i = t->hashes[id] & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return TSCHED_OK;
}

tsched_status ts_strtab_intern(ts_strtab *t, const char *s, uint32_t *id, int *added)
{
    tsched_status st;
    if (added)
        *added = 0;
    if (t->count >= UINT32_MAX - 1)
        return ts_error(TSCHED_E_TOO_LARGE, "more than %u names", UINT32_MAX - 1);
    if ((t->count + 1) * 2 > t->nslots) {
        if ((st = rehash(t, t->nslots ? t->nslots * 2 : 64)) != TSCHED_OK)
            return st;
    }
    uint32_t h = hash_str(s);
    size_t slot;
    uint32_t found = lookup(t, s, h, &slot);
    if (found != UINT32_MAX) {
        *id = found;
        return TSCHED_OK;
    }
    size_t len = strlen(s) + 1;
    if ((st = TS_GROW(t->arena, t->arena_cap, t->arena_len + len)) != TSCHED_OK)
        return st;
    size_t cap = t->offs_cap;
    if ((st = TS_GROW(t->offs, cap, t->count + 1)) != TSCHED_OK)
        return st;
    cap = t->offs_cap;
    if ((st = TS_GROW(t->hashes, cap, t->count + 1)) != TSCHED_OK)
        return st;
    t->offs_cap = cap;
    memcpy(t->arena + t->arena_len, s, len);
    t->offs[t->count] = t->arena_len;
    t->hashes[t->count] = h;
    t->arena_len += len;
    t->slots[slot] = (uint32_t)t->count + 1;
    *id = (uint32_t)t->count++;
    if (added)
        *added = 1;
    return TSCHED_OK;
}
