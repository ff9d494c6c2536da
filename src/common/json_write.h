/* Internal: the JSON text of a jansson tree, with reals printed by ts_fmt_double().
 * Self-contained (jansson and libc only) so the command line can compile it in as well;
 * the library's callers use ts_json_dumps() of json.h, which records errors. */
#ifndef TS_COMMON_JSON_WRITE_H
#define TS_COMMON_JSON_WRITE_H

#include <jansson.h>
#include <stddef.h>

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

#endif
