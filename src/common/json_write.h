/* Internal: the JSON text of a jansson tree, with reals printed by ts_fmt_double().
 * Self-contained (jansson and libc only) so the command line can compile it in as well;
 * the library's callers use ts_json_dumps() of json.h, which records errors. */
#ifndef TS_COMMON_JSON_WRITE_H
#define TS_COMMON_JSON_WRITE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Layout flags of ts_json_write() and ts_json_dumps(). */
#define TS_JSON_INDENT 0  /* jansson's JSON_INDENT(2): one member per line, two spaces a level */
#define TS_JSON_COMPACT 1 /* jansson's JSON_COMPACT: no whitespace at all */

/* The text of `root` (any JSON value), laid out byte for byte as jansson's
 * json_dumps(root, JSON_INDENT(2) or JSON_COMPACT) lays it out (object members in insertion
 * order, the same escapes in strings, integers as "%lld"), except that each real is the
 * shortest text that reads back to the same double (ts_fmt_double). NUL-terminated; the
 * caller frees it with free(). NULL when out of memory or `root` is NULL. `*len`, if
 * `len` is not NULL, receives the length. */
char *ts_json_write(const json_t *root, int compact, size_t *len);

/* ---- streaming: the same layout without a tree ----------------------------------------
 * For documents of millions of elements: values are written as they are produced, into a
 * buffer (a string at the end) or in 64 KiB pieces to a FILE. Byte for byte what
 * ts_json_write() gives for the tree of the same values in the same order. */

typedef struct ts_wbuf {
    char *p;
    size_t len, cap;
    int failed; /* out of memory */
} ts_wbuf;

#define TS_JW_MAX_DEPTH 16

typedef struct ts_jw {
    ts_wbuf b;
    FILE *f;      /* NULL: everything stays in b */
    int compact;  /* TS_JSON_INDENT or TS_JSON_COMPACT */
    int io_error; /* a write to f failed */
    uint32_t depth;
    uint32_t count[TS_JW_MAX_DEPTH]; /* members written in each open container */
} ts_jw;

void ts_jw_init(ts_jw *w, FILE *f, int compact);
/* Open an object ('{') or array ('['), close it ('}' or ']'). */
void ts_jw_open(ts_jw *w, char c);
void ts_jw_close(ts_jw *w, char c);
/* The next object member's key (written with its separator), or the next array element's
 * separator; the value follows. */
void ts_jw_key(ts_jw *w, const char *key);
void ts_jw_elem(ts_jw *w);
/* Values. ts_jw_raw copies text that is already JSON (e.g. from ts_jw_quote). */
void ts_jw_str(ts_jw *w, const char *s);
void ts_jw_int(ts_jw *w, long long x);
void ts_jw_real(ts_jw *w, double x);
void ts_jw_raw(ts_jw *w, const char *s, size_t n);
/* The JSON text of string s ("..." with jansson's escapes), malloc'ed; NULL when out of memory. */
char *ts_jw_quote(const char *s);
/* Write what is pending to f. 0 when every write succeeded and memory never ran out,
 * -1 otherwise (io_error or b.failed tell which). Without f, *out (if not NULL) takes the
 * NUL-terminated text; ts_jw_free releases whatever is left. */
int ts_jw_finish(ts_jw *w, char **out, size_t *len);
void ts_jw_free(ts_jw *w);

#endif
