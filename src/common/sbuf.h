/* Internal: a growing NUL-terminated text buffer for writers that build a document by hand
 * (YAML, Slurm configuration). The first allocation failure is sticky: later appends do
 * nothing and ts_sbuf_take() reports TSCHED_E_NOMEM, so writers check once at the end. */
#ifndef TS_COMMON_SBUF_H
#define TS_COMMON_SBUF_H

#include <stddef.h>

#include "error.h"

typedef struct ts_sbuf {
    char *s;
    size_t len, cap;
    int failed; /* an allocation failed */
} ts_sbuf;

void ts_sbuf_init(ts_sbuf *b);
void ts_sbuf_free(ts_sbuf *b);
void ts_sbuf_putn(ts_sbuf *b, const char *s, size_t n);
void ts_sbuf_puts(ts_sbuf *b, const char *s);
void ts_sbuf_putc(ts_sbuf *b, char c);
void ts_sbuf_printf(ts_sbuf *b, const char *fmt, ...) TS_PRINTF(2, 3);
/* Hand the text to the caller (free with tsched_free()/free()); `b` is left empty. An earlier
 * allocation failure gives TSCHED_E_NOMEM and frees the text. */
tsched_status ts_sbuf_take(char **out, ts_sbuf *b);

#endif
