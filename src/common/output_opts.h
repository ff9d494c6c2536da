/* Internal: tsched_output_opts (common.h) as the `*_opts` writers read it. */
#ifndef TS_COMMON_OUTPUT_OPTS_H
#define TS_COMMON_OUTPUT_OPTS_H

#include <jansson.h>

#include "error.h"

/* `*dst` = the defaults with the fields `src->size` covers taken from `src` (NULL: the
 * defaults). Errors: TSCHED_E_INVALID naming `fn`, the struct and both sizes. */
tsched_status ts_output_opts_in(tsched_output_opts *dst, const tsched_output_opts *src, const char *fn);

/* `doc` as text in the layout `o` asks for (indented or compact); the caller frees *out
 * with tsched_free(). Errors: TSCHED_E_NOMEM. */
tsched_status ts_json_dump_opts(char **out, const json_t *doc, const tsched_output_opts *o);

/* Finish a `*_opts` writer that called the indented writer with status `st`: on success and
 * with `o->compact`, lay `*out` out on one line in place (ts_json_compact_text). Returns `st`. */
tsched_status ts_output_finish(char **out, tsched_status st, const tsched_output_opts *o);

#endif
