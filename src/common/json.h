/* Internal: strict field readers over jansson. Each reader names the field in its error
 * as `where.key` (e.g. `nodes[12].leaf`), which is the contract of DESIGN 5. */
#ifndef TS_COMMON_JSON_H
#define TS_COMMON_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "error.h"
#include "json_write.h"

/* Parse `len` bytes; rejects duplicate keys. Errors: TSCHED_E_PARSE with line:column. */
tsched_status ts_json_parse(json_t **out, const char *data, size_t len);
/* The NUL-terminated text of an option holding a document (`field`, "pods_json"): within the
 * input_bytes limit (TSCHED_E_TOO_LARGE naming it), parsed (TSCHED_E_PARSE as `field: line
 * L, column C: ...`; TSCHED_E_NOMEM). */
tsched_status ts_json_parse_field(json_t **out, const char *text, const char *field);
/* Read a whole file ("-" = stdin) into a NUL-terminated buffer. Errors: TSCHED_E_IO;
 * TSCHED_E_INVALID, nothing opened, while the thread forbids files (below). */
tsched_status ts_read_file(char **out, size_t *len, const char *path);
/* Forbid (on = 1) or allow (0) the calling thread to open files by name; returns the
 * previous setting. The service forbids them while it answers a request: no field of a
 * request, nor any document inside one (a scenario's "gpus" file name, say), can make the
 * library open a path. */
int ts_files_forbid(int on);
/* A document reader: build the object in `*(T **)slot` from a parsed root; `ctx` is what
 * the caller passed (e.g. the fabric names are resolved in), possibly NULL. */
typedef tsched_status (*ts_doc_reader)(void *slot, const void *ctx, const json_t *root);
/* Parse `len` bytes and run `read`; `fn` names the public function in argument errors. */
tsched_status ts_json_load_string(void *slot, ts_doc_reader read, const void *ctx, const char *json, size_t len,
                                  const char *fn);
/* Read a file ("-" = stdin), then ts_json_load_string; errors are prefixed by the path. */
tsched_status ts_json_load_file(void *slot, ts_doc_reader read, const void *ctx, const char *path, const char *fn);
/* A reader straight from the text (jread.h): TSCHED_OK with the object in `*(T **)slot`, or
 * any other status to have the text read again by jansson and a ts_doc_reader, whose error
 * is the one reported. It must accept only what the tree reader accepts, with the same
 * result; leaving `*slot` NULL when it fails. */
typedef tsched_status (*ts_text_reader)(void *slot, const void *ctx, const char *json, size_t len);
/* ts_json_load_string() that tries `fast` first (same argument checks and limits). */
tsched_status ts_json_load_string_fast(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx,
                                       const char *json, size_t len, const char *fn);
/* ts_json_load_file() that tries `fast` first. */
tsched_status ts_json_load_file_fast(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx,
                                     const char *path, const char *fn);
/* Check that root is an object whose "format" equals `format`. */
tsched_status ts_json_check_format(const json_t *root, const char *format);
/* Serialise `root` with ts_json_write() (json_write.h): jansson's layout, keys in insertion
 * order, reals as the shortest text that reads back (numfmt.h); `compact` is TS_JSON_INDENT
 * or TS_JSON_COMPACT. The caller frees *out with tsched_free(). Errors: TSCHED_E_NOMEM. */
tsched_status ts_json_dumps(char **out, const json_t *root, int compact);
/* ts_json_dumps(out, root, TS_JSON_INDENT). */
tsched_status ts_json_dump(char **out, const json_t *root);

/* Where-prefixed field readers. `required`: absent -> TSCHED_E_NOT_FOUND; otherwise the
 * default is left in *out. Numbers accept JSON integers and integral reals. */
tsched_status ts_json_u32(uint32_t *out, const json_t *obj, const char *where, const char *key, int required,
                          uint32_t min, uint32_t max);
/* Finite double in [min, max]; `min_open` makes the lower bound exclusive. */
tsched_status ts_json_num(double *out, const json_t *obj, const char *where, const char *key, int required,
                          double min, int min_open, double max);
tsched_status ts_json_str(const char **out, const json_t *obj, const char *where, const char *key, int required);
/* An array field; absent and optional -> *out = NULL. */
tsched_status ts_json_arr(const json_t **out, const json_t *obj, const char *where, const char *key, int required);
/* An object field; absent and optional -> *out = NULL. */
tsched_status ts_json_obj(const json_t **out, const json_t *obj, const char *where, const char *key, int required);
/* Name of a JSON type for messages ("string", "array", ...). */
const char *ts_json_type_name(const json_t *v);

/* Build helpers: jansson calls that fail only on allocation; they record TSCHED_E_NOMEM. */
tsched_status ts_json_set(json_t *obj, const char *key, json_t *value);
tsched_status ts_json_push(json_t *arr, json_t *value);

#endif
