/* A JSON writer over jansson trees. Jansson prints every real with a fixed precision
 * (JSON_REAL_PRECISION(17) gives 0.29999999999999999 for 0.3); documents must carry the
 * shortest text that reads back to the same double, so the tree is walked here. Everything
 * else copies jansson's dump.c layout so that documents without reals are byte-identical
 * to json_dumps(JSON_INDENT(2) | JSON_PRESERVE_ORDER) or JSON_COMPACT. */
#include "json_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

typedef ts_wbuf wbuf;

static void put(wbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->len <= n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len <= n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = 1;
                return;
            }
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void put_str(wbuf *b, const char *s) { put(b, s, strlen(s)); }

/* jansson's dump_indent(): with an indent, a newline and two spaces per level; compact,
 * nothing (the separators carry no space). */
static void newline(wbuf *b, int compact, int depth)
{
    static const char spaces[] = "                                ";
    if (compact)
        return;
    put(b, "\n", 1);
    for (size_t n = 2 * (size_t)depth; n > 0;) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        put(b, spaces, k);
        n -= k;
    }
}

/* jansson's dump_string() without JSON_ENSURE_ASCII / JSON_ESCAPE_SLASH: '"', '\' and
 * control characters are escaped, everything else (UTF-8, DEL, '/') is copied. */
static void put_quoted(wbuf *b, const char *s, size_t n)
{
    put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(b, s + run, i - run);
        run = i + 1;
        char esc[8];
        switch (c) {
        case '"': put(b, "\\\"", 2); break;
        case '\\': put(b, "\\\\", 2); break;
        case '\b': put(b, "\\b", 2); break;
        case '\f': put(b, "\\f", 2); break;
        case '\n': put(b, "\\n", 2); break;
        case '\r': put(b, "\\r", 2); break;
        case '\t': put(b, "\\t", 2); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)c);
            put(b, esc, 6);
        }
    }
    put(b, s + run, n - run);
    put(b, "\"", 1);
}

static void put_value(wbuf *b, const json_t *v, int compact, int depth)
{
    char num[TS_FMT_DOUBLE_CAP > 32 ? TS_FMT_DOUBLE_CAP : 32];
    switch (json_typeof(v)) {
    case JSON_NULL: put(b, "null", 4); return;
    case JSON_TRUE: put(b, "true", 4); return;
    case JSON_FALSE: put(b, "false", 5); return;
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        put_str(b, num);
        return;
    case JSON_REAL:
        ts_fmt_double(num, sizeof num, json_real_value(v));
        put_str(b, num);
        return;
    case JSON_STRING: put_quoted(b, json_string_value(v), json_string_length(v)); return;
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        put(b, "[", 1);
        if (n == 0) {
            put(b, "]", 1);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            if (i)
                put(b, ",", 1);
            newline(b, compact, depth + 1);
            put_value(b, json_array_get(v, i), compact, depth + 1);
        }
        newline(b, compact, depth);
        put(b, "]", 1);
        return;
    }
    case JSON_OBJECT: {
        /* the iterator follows insertion order (jansson >= 2.8: JSON_PRESERVE_ORDER) */
        void *it = json_object_iter((json_t *)v);
        put(b, "{", 1);
        if (!it) {
            put(b, "}", 1);
            return;
        }
        for (int first = 1; it; it = json_object_iter_next((json_t *)v, it), first = 0) {
            const char *key = json_object_iter_key(it);
#if JANSSON_VERSION_HEX >= 0x020e00
            size_t klen = json_object_iter_key_len(it);
#else
            size_t klen = strlen(key);
#endif
            if (!first)
                put(b, ",", 1);
            newline(b, compact, depth + 1);
            put_quoted(b, key, klen);
            put(b, compact ? ":" : ": ", compact ? 1 : 2);
            put_value(b, json_object_iter_value(it), compact, depth + 1);
        }
        newline(b, compact, depth);
        put(b, "}", 1);
        return;
    }
    }
}

char *ts_json_write(const json_t *root, int compact, size_t *len)
{
    if (!root)
        return NULL;
    wbuf b = {NULL, 0, 0, 0};
    put_value(&b, root, compact, 0);
    put(&b, "", 0); /* an empty buffer still becomes "" */
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.p;
}

/* ---- streaming ---- */

#define TS_JW_CHUNK 65536

void ts_jw_init(ts_jw *w, FILE *f, int compact)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->compact = compact;
}

static void jw_flush(ts_jw *w)
{
    if (w->f && w->b.len) {
        if (!w->io_error && fwrite(w->b.p, 1, w->b.len, w->f) != w->b.len)
            w->io_error = 1;
        w->b.len = 0;
    }
}

static void jw_put(ts_jw *w, const char *s, size_t n)
{
    put(&w->b, s, n);
    if (w->f && w->b.len >= TS_JW_CHUNK)
        jw_flush(w);
}

void ts_jw_open(ts_jw *w, char c)
{
    jw_put(w, &c, 1);
    if (w->depth < TS_JW_MAX_DEPTH)
        w->count[w->depth] = 0;
    w->depth++;
}

void ts_jw_close(ts_jw *w, char c)
{
    w->depth--;
    if (w->depth < TS_JW_MAX_DEPTH && w->count[w->depth])
        newline(&w->b, w->compact, (int)w->depth);
    jw_put(w, &c, 1);
}

void ts_jw_elem(ts_jw *w)
{
    uint32_t d = w->depth - 1;
    if (d < TS_JW_MAX_DEPTH && w->count[d]++)
        put(&w->b, ",", 1);
    newline(&w->b, w->compact, (int)w->depth);
}

void ts_jw_key(ts_jw *w, const char *key)
{
    ts_jw_elem(w);
    put_quoted(&w->b, key, strlen(key));
    jw_put(w, w->compact ? ":" : ": ", w->compact ? 1 : 2);
}

void ts_jw_str(ts_jw *w, const char *s)
{
    put_quoted(&w->b, s, strlen(s));
    if (w->f && w->b.len >= TS_JW_CHUNK)
        jw_flush(w);
}

void ts_jw_int(ts_jw *w, long long x)
{
    char t[24], *e = t + sizeof t, *q = e;
    unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (x < 0)
        *--q = '-';
    jw_put(w, q, (size_t)(e - q));
}

void ts_jw_real(ts_jw *w, double x)
{
    char num[TS_FMT_DOUBLE_CAP];
    int n = ts_fmt_double(num, sizeof num, x);
    jw_put(w, num, (size_t)n);
}

void ts_jw_raw(ts_jw *w, const char *s, size_t n) { jw_put(w, s, n); }

char *ts_jw_quote(const char *s)
{
    wbuf b = {NULL, 0, 0, 0};
    put_quoted(&b, s, strlen(s));
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

int ts_jw_finish(ts_jw *w, char **out, size_t *len)
{
    if (w->f) {
        jw_flush(w);
    } else {
        put(&w->b, "", 0); /* an empty buffer still becomes "" */
        if (!w->b.failed && out) {
            *out = w->b.p;
            if (len)
                *len = w->b.len;
            w->b.p = NULL;
        }
    }
    return w->b.failed || w->io_error ? -1 : 0;
}

void ts_jw_free(ts_jw *w)
{
    free(w->b.p);
    w->b.p = NULL;
    w->b.len = w->b.cap = 0;
}
