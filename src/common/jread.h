/* Internal: a pull reader over a JSON text in memory, for the loaders of large documents
 * (a million flows, a DAG of millions of edges), which then need no jansson tree: values
 * are read in document order and consumed at once.
 *
 * It accepts a subset of what ts_json_parse() (jansson, duplicate keys rejected) accepts
 * and gives the same values; the loaders keep the tree reader as the reference: whenever
 * this reader, or a loader's check, fails, the loader reads the text again with jansson
 * and its tree reader, which reports the error with today's exact message. So the reader
 * never records an error, and "fails" includes what it chooses not to handle (nesting
 * deeper than TS_JR_MAX_DEPTH, keys with escapes, objects of more than TS_JR_MAX_KEYS
 * members, integers of more than 18 digits): such documents are read, more slowly, by
 * jansson. Everything it accepts is JSON (RFC 8259) with valid UTF-8, no "\u0000", no
 * lone surrogate, no duplicate key, integers in range and finite reals: what jansson
 * accepts too (tests/test_common.c compares the two on seeded random documents). */
#ifndef TS_COMMON_JREAD_H
#define TS_COMMON_JREAD_H

#include <stddef.h>
#include <stdint.h>

#define TS_JR_MAX_DEPTH 32
#define TS_JR_MAX_KEYS 32

/* Value types of ts_jr_peek(). */
enum { TS_JR_ERROR = 0, TS_JR_OBJECT, TS_JR_ARRAY, TS_JR_STRING, TS_JR_NUMBER, TS_JR_TRUE, TS_JR_FALSE, TS_JR_NULL };

typedef struct ts_jr_key {
    const char *s; /* in the text (keys with escapes are not handled) */
    uint32_t len;
} ts_jr_key;

typedef struct ts_jr {
    const char *p, *end;
    int failed;
    uint32_t depth;
    uint32_t count[TS_JR_MAX_DEPTH];  /* members or elements read in each open container */
    uint32_t kbase[TS_JR_MAX_DEPTH];  /* first key of each open object in `keys` */
    ts_jr_key keys[TS_JR_MAX_DEPTH * TS_JR_MAX_KEYS];
    uint32_t nkeys;
    char *buf; /* the last string read, decoded and NUL-terminated */
    size_t cap;
    char last_text[64]; /* the last real read through strtod, and its value */
    int last_len;
    double last_value;
} ts_jr;

void ts_jr_init(ts_jr *r, const char *text, size_t len);
void ts_jr_free(ts_jr *r);

/* Type of the next value (whitespace skipped), TS_JR_ERROR on bad input. */
int ts_jr_peek(ts_jr *r);
/* Enter the object or array that comes next. 0 on success, -1 on failure. */
int ts_jr_object(ts_jr *r);
int ts_jr_array(ts_jr *r);
/* In an object: 1 with the next key in *key (its ':' consumed; the value comes next),
 * 0 when the object ended (its '}' consumed), -1 on failure (bad syntax, a duplicate key). */
int ts_jr_key_next(ts_jr *r, ts_jr_key *key);
/* In an array: 1 when an element comes next, 0 when it ended (']' consumed), -1 on failure. */
int ts_jr_elem_next(ts_jr *r);
/* A string value, decoded, NUL-terminated; valid until the next string is read.
 * 0 on success (*len its length), -1 on failure (also for "\u0000"). */
int ts_jr_string(ts_jr *r, const char **s, size_t *len);
/* A number: *is_int 1 for a JSON integer (no '.', 'e', 'E'; *i its value, *d = (double)*i),
 * 0 for a real (*d as strtod reads it in the C locale). -1 on failure. */
int ts_jr_number(ts_jr *r, double *d, int64_t *i, int *is_int);
/* Skip one value of any type, checking it as the others do. */
int ts_jr_skip(ts_jr *r);
/* After the root value: 0 when only whitespace is left, -1 otherwise. */
int ts_jr_finish(ts_jr *r);

/* A key equals the NUL-terminated `s`. */
static inline int ts_jr_key_is(const ts_jr_key *k, const char *s)
{
    uint32_t i = 0;
    for (; i < k->len; i++)
        if (s[i] != k->s[i] || !s[i])
            return 0;
    return s[i] == '\0';
}

#endif
