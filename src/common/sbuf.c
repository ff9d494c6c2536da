/* Growing text buffer (see sbuf.h). */
#include "sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cnum.h"

void ts_sbuf_init(ts_sbuf *b) { memset(b, 0, sizeof *b); }

void ts_sbuf_free(ts_sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int reserve(ts_sbuf *b, size_t n)
{
    if (b->failed)
        return 0;
    if (n > SIZE_MAX - b->len - 1) {
        b->failed = 1;
        return 0;
    }
    if (b->len + n + 1 <= b->cap)
        return 1;
    if (TS_GROW(b->s, b->cap, b->len + n + 1) != TSCHED_OK) {
        b->failed = 1;
        return 0;
    }
    return 1;
}

void ts_sbuf_putn(ts_sbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void ts_sbuf_puts(ts_sbuf *b, const char *s) { ts_sbuf_putn(b, s, strlen(s)); }

void ts_sbuf_putc(ts_sbuf *b, char c) { ts_sbuf_putn(b, &c, 1); }

void ts_sbuf_printf(ts_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = ts_vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    ts_vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

tsched_status ts_sbuf_take(char **out, ts_sbuf *b)
{
    if (!b->failed && !reserve(b, 0))
        b->failed = 1;
    if (b->failed) {
        ts_sbuf_free(b);
        *out = NULL;
        return ts_error(TSCHED_E_NOMEM, "out of memory writing a document");
    }
    b->s[b->len] = '\0';
    *out = b->s;
    memset(b, 0, sizeof *b);
    return TSCHED_OK;
}
