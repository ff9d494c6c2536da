/* The pull reader (src/common/jread.h) against jansson, for tests/test_common.c and the
 * fuzz target: whatever the reader accepts, jansson (as the loaders call it: duplicate keys
 * rejected) must accept with the same values, reals to the bit. */
#ifndef TS_TEST_JREAD_ORACLE_H
#define TS_TEST_JREAD_ORACLE_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../src/common/jread.h"
#include "../src/common/json_write.h"

/* The tree of the value the reader reads next; NULL when it fails. */
static json_t *jr_tree(ts_jr *r)
{
    json_t *v = NULL;
    const char *s;
    size_t n;
    double d;
    int64_t i;
    int is_int, more;
    switch (ts_jr_peek(r)) {
    case TS_JR_OBJECT: {
        ts_jr_key k;
        if (ts_jr_object(r) != 0 || !(v = json_object()))
            return NULL;
        while ((more = ts_jr_key_next(r, &k)) == 1) {
            char *key = malloc((size_t)k.len + 1);
            json_t *x = key ? jr_tree(r) : NULL;
            if (!x || json_object_getn(v, k.s, k.len)) { /* a duplicate here is the reader's bug */
                free(key);
                json_decref(x);
                json_decref(v);
                return NULL;
            }
            memcpy(key, k.s, k.len);
            key[k.len] = '\0';
            json_object_setn_new(v, key, k.len, x);
            free(key);
        }
        break;
    }
    case TS_JR_ARRAY:
        if (ts_jr_array(r) != 0 || !(v = json_array()))
            return NULL;
        while ((more = ts_jr_elem_next(r)) == 1) {
            json_t *x = jr_tree(r);
            if (!x) {
                json_decref(v);
                return NULL;
            }
            json_array_append_new(v, x);
        }
        break;
    case TS_JR_STRING: return ts_jr_string(r, &s, &n) == 0 ? json_stringn(s, n) : NULL;
    case TS_JR_NUMBER:
        if (ts_jr_number(r, &d, &i, &is_int) != 0)
            return NULL;
        return is_int ? json_integer((json_int_t)i) : json_real(d);
    case TS_JR_TRUE: return ts_jr_skip(r) == 0 ? json_true() : NULL;
    case TS_JR_FALSE: return ts_jr_skip(r) == 0 ? json_false() : NULL;
    case TS_JR_NULL: return ts_jr_skip(r) == 0 ? json_null() : NULL;
    default: return NULL;
    }
    if (more != 0) {
        json_decref(v);
        return NULL;
    }
    return v;
}

/* A whole document as the loaders take it: an object or array, then only whitespace. */
static json_t *jr_document(const char *text, size_t len)
{
    ts_jr r;
    ts_jr_init(&r, text, len);
    int t = ts_jr_peek(&r);
    json_t *v = t == TS_JR_OBJECT || t == TS_JR_ARRAY ? jr_tree(&r) : NULL;
    if (v && ts_jr_finish(&r) != 0) {
        json_decref(v);
        v = NULL;
    }
    ts_jr_free(&r);
    return v;
}

/* Compare the two readers on `text`: 0 when they agree (the reader refused, or both read
 * the same values), -1 when the reader accepted what jansson refused or read other values.
 * *reader_ok and *jansson_ok (if not NULL) say who accepted. */
static int jr_compare(const char *text, size_t len, int *reader_ok, int *jansson_ok)
{
    json_error_t err;
    json_t *mine = jr_document(text, len);
    json_t *theirs = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (reader_ok)
        *reader_ok = mine != NULL;
    if (jansson_ok)
        *jansson_ok = theirs != NULL;
    int bad = 0;
    if (mine && !theirs) {
        bad = 1;
    } else if (mine) {
        /* the writer prints each real's shortest text, so equal text = equal bits (-0.0 too) */
        char *a = ts_json_write(mine, TS_JSON_COMPACT, NULL), *b = ts_json_write(theirs, TS_JSON_COMPACT, NULL);
        bad = !a || !b || strcmp(a, b) != 0;
        free(a);
        free(b);
    }
    json_decref(mine);
    json_decref(theirs);
    return bad ? -1 : 0;
}

#endif
