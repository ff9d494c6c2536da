/* The pull reader of jread.h. Every check mirrors one of jansson's (load.c, utf.c): the
 * reader must never accept a text that jansson refuses, nor read a different value. */
#include "jread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char uc;

void ts_jr_init(ts_jr *r, const char *text, size_t len)
{
    memset(r, 0, offsetof(ts_jr, keys));
    r->p = text;
    r->end = text + len;
    r->nkeys = 0;
    r->buf = NULL;
    r->cap = 0;
    r->last_len = 0;
}

void ts_jr_free(ts_jr *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

static int fail(ts_jr *r)
{
    r->failed = 1;
    return -1;
}

static void ws(ts_jr *r)
{
    const char *p = r->p, *end = r->end;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    r->p = p;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

int ts_jr_peek(ts_jr *r)
{
    if (r->failed)
        return TS_JR_ERROR;
    ws(r);
    if (r->p >= r->end) {
        fail(r);
        return TS_JR_ERROR;
    }
    switch (*r->p) {
    case '{': return TS_JR_OBJECT;
    case '[': return TS_JR_ARRAY;
    case '"': return TS_JR_STRING;
    case 't': return TS_JR_TRUE;
    case 'f': return TS_JR_FALSE;
    case 'n': return TS_JR_NULL;
    default:
        if (*r->p == '-' || is_digit(*r->p))
            return TS_JR_NUMBER;
        fail(r);
        return TS_JR_ERROR;
    }
}

static int enter(ts_jr *r, int type)
{
    if (ts_jr_peek(r) != type || r->depth >= TS_JR_MAX_DEPTH)
        return fail(r);
    r->p++;
    r->count[r->depth] = 0;
    r->kbase[r->depth] = r->nkeys;
    r->depth++;
    return 0;
}

int ts_jr_object(ts_jr *r) { return enter(r, TS_JR_OBJECT); }
int ts_jr_array(ts_jr *r) { return enter(r, TS_JR_ARRAY); }

static int leave(ts_jr *r)
{
    r->p++;
    r->depth--;
    r->nkeys = r->kbase[r->depth];
    return 0;
}

/* Length of the valid UTF-8 sequence of 2 to 4 bytes at s (jansson's utf8_check_first and
 * utf8_check_full: no overlong forms, no surrogates, nothing above U+10FFFF), else 0. */
static size_t utf8_len(const uc *s, const uc *end)
{
    uc c = s[0], lo = 0x80, hi = 0xBF;
    size_t n;
    if (c < 0xC2)
        return 0;
    if (c < 0xE0)
        n = 2;
    else if (c < 0xF0) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c < 0xF5) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if ((size_t)(end - s) < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return n;
}

int ts_jr_key_next(ts_jr *r, ts_jr_key *key)
{
    if (r->failed || r->depth == 0)
        return fail(r);
    uint32_t d = r->depth - 1;
    ws(r);
    if (r->p >= r->end)
        return fail(r);
    if (*r->p == '}')
        return leave(r);
    if (r->count[d] > 0) {
        if (*r->p != ',')
            return fail(r);
        r->p++;
        ws(r);
    }
    if (r->p >= r->end || *r->p != '"')
        return fail(r);
    const uc *s = (const uc *)++r->p, *end = (const uc *)r->end, *p = s;
    for (;;) {
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p >= end || *p < 0x20 || *p == '\\')
            return fail(r); /* keys with escapes are left to jansson */
        if (*p == '"')
            break;
        size_t k = utf8_len(p, end);
        if (!k)
            return fail(r);
        p += k;
    }
    key->s = (const char *)s;
    key->len = (uint32_t)(p - s);
    if ((size_t)(p - s) > UINT32_MAX || r->nkeys - r->kbase[d] >= TS_JR_MAX_KEYS)
        return fail(r);
    for (uint32_t j = r->kbase[d]; j < r->nkeys; j++)
        if (r->keys[j].len == key->len && memcmp(r->keys[j].s, key->s, key->len) == 0)
            return fail(r); /* a duplicate key */
    r->keys[r->nkeys++] = *key;
    r->p = (const char *)p + 1;
    ws(r);
    if (r->p >= r->end || *r->p != ':')
        return fail(r);
    r->p++;
    r->count[d]++;
    return 1;
}

int ts_jr_elem_next(ts_jr *r)
{
    if (r->failed || r->depth == 0)
        return fail(r);
    uint32_t d = r->depth - 1;
    ws(r);
    if (r->p >= r->end)
        return fail(r);
    if (*r->p == ']')
        return leave(r);
    if (r->count[d] > 0) {
        if (*r->p != ',')
            return fail(r);
        r->p++;
    }
    r->count[d]++;
    return 1;
}

static int reserve(ts_jr *r, size_t need)
{
    if (need <= r->cap)
        return 0;
    size_t cap = r->cap ? r->cap : 64;
    while (cap < need)
        cap *= 2;
    char *b = realloc(r->buf, cap);
    if (!b)
        return -1;
    r->buf = b;
    r->cap = cap;
    return 0;
}

static int hex4(const uc *p, const uc *end, uint32_t *v)
{
    if (end - p < 4)
        return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        uc c = p[i];
        uint32_t x;
        if (c >= '0' && c <= '9')
            x = c - '0';
        else if (c >= 'a' && c <= 'f')
            x = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            x = c - 'A' + 10;
        else
            return -1;
        *v = *v << 4 | x;
    }
    return 0;
}

int ts_jr_string(ts_jr *r, const char **out, size_t *len)
{
    if (ts_jr_peek(r) != TS_JR_STRING)
        return fail(r);
    const uc *p = (const uc *)r->p + 1, *end = (const uc *)r->end;
    size_t n = 0;
    for (;;) {
        const uc *s = p;
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (reserve(r, n + (size_t)(p - s) + 8) != 0)
            return fail(r);
        memcpy(r->buf + n, s, (size_t)(p - s));
        n += (size_t)(p - s);
        if (p >= end || *p < 0x20)
            return fail(r);
        if (*p == '"') {
            p++;
            break;
        }
        if (*p >= 0x80) {
            size_t k = utf8_len(p, end);
            if (!k)
                return fail(r);
            memcpy(r->buf + n, p, k);
            n += k;
            p += k;
            continue;
        }
        if (++p >= end) /* after the backslash */
            return fail(r);
        char c;
        switch (*p++) {
        case '"': c = '"'; break;
        case '\\': c = '\\'; break;
        case '/': c = '/'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
            uint32_t v, v2;
            if (hex4(p, end, &v) != 0)
                return fail(r);
            p += 4;
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (end - p < 2 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &v2) != 0 || v2 < 0xDC00 ||
                    v2 > 0xDFFF)
                    return fail(r);
                p += 6;
                v = ((v - 0xD800) << 10) + (v2 - 0xDC00) + 0x10000;
            } else if ((v >= 0xDC00 && v <= 0xDFFF) || v == 0) {
                return fail(r); /* a lone low surrogate; "\u0000" (jansson: JSON_ALLOW_NUL) */
            }
            char *o = r->buf + n;
            if (v < 0x80) {
                o[0] = (char)v;
                n += 1;
            } else if (v < 0x800) {
                o[0] = (char)(0xC0 | v >> 6);
                o[1] = (char)(0x80 | (v & 0x3F));
                n += 2;
            } else if (v < 0x10000) {
                o[0] = (char)(0xE0 | v >> 12);
                o[1] = (char)(0x80 | (v >> 6 & 0x3F));
                o[2] = (char)(0x80 | (v & 0x3F));
                n += 3;
            } else {
                o[0] = (char)(0xF0 | v >> 18);
                o[1] = (char)(0x80 | (v >> 12 & 0x3F));
                o[2] = (char)(0x80 | (v >> 6 & 0x3F));
                o[3] = (char)(0x80 | (v & 0x3F));
                n += 4;
            }
            continue;
        }
        default: return fail(r);
        }
        r->buf[n++] = c;
    }
    r->buf[n] = '\0';
    r->p = (const char *)p;
    *out = r->buf;
    *len = n;
    return 0;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int ts_jr_number(ts_jr *r, double *d, int64_t *i, int *is_int)
{
    if (ts_jr_peek(r) != TS_JR_NUMBER)
        return fail(r);
    const char *p = r->p, *end = r->end;
    int neg = *p == '-';
    p += neg;
    /* significant digits (leading zeros dropped) and the power of ten they are scaled by */
    char dig[48];
    int nd = 0, dexp = 0, intdigits = 0;
    uint64_t m = 0;
    if (p >= end || !is_digit(*p))
        return fail(r);
    if (*p == '0') {
        p++;
        intdigits = 1;
        if (p < end && is_digit(*p))
            return fail(r);
    } else {
        for (; p < end && is_digit(*p); p++, intdigits++) {
            if (nd >= 40)
                return fail(r);
            m = m * 10 + (uint64_t)(*p - '0');
            dig[nd++] = *p;
        }
    }
    int real = 0;
    if (p < end && *p == '.') {
        real = 1;
        if (++p >= end || !is_digit(*p))
            return fail(r);
        for (; p < end && is_digit(*p); p++) {
            dexp--;
            if (nd == 0 && *p == '0')
                continue;
            if (nd >= 40)
                return fail(r);
            m = m * 10 + (uint64_t)(*p - '0');
            dig[nd++] = *p;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = 1;
        p++;
        int eneg = 0, e = 0, ed = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p >= end || !is_digit(*p))
            return fail(r);
        for (; p < end && is_digit(*p); p++) {
            if (++ed > 5)
                return fail(r); /* e.g. 1e-999999: jansson reads 0; left to it */
            e = e * 10 + (*p - '0');
        }
        dexp += eneg ? -e : e;
    }
    if (!real) {
        if (intdigits > 18)
            return fail(r); /* jansson's range check (strtoll) is left to it */
        *i = neg ? -(int64_t)m : (int64_t)m;
        *d = (double)*i;
        *is_int = 1;
        r->p = p;
        return 0;
    }
    double v;
    if (nd == 0) {
        v = 0;
    } else if (nd <= 15 && dexp >= -22 && dexp <= 22) {
        /* Clinger's fast path: m < 2^53 and 10^|dexp| are exact, one rounding */
        v = dexp >= 0 ? (double)m * pow10_exact[dexp] : (double)m / pow10_exact[-dexp];
    } else {
        /* strtod (~0.2 us for 17 digits), on DIGITSeEXP: no radix character, so the process
         * locale cannot change the reading; the last such text is remembered, as
         * documents often repeat a value (a DAG's weights per node) */
        char text[64];
        int k = nd;
        memcpy(text, dig, (size_t)nd);
        text[k++] = 'e';
        unsigned e = dexp < 0 ? 0u - (unsigned)dexp : (unsigned)dexp;
        char ed[12];
        int ne = 0;
        do
            ed[ne++] = (char)('0' + e % 10);
        while (e /= 10);
        if (dexp < 0)
            text[k++] = '-';
        while (ne)
            text[k++] = ed[--ne];
        if (k == r->last_len && memcmp(text, r->last_text, (size_t)k) == 0) {
            v = r->last_value;
        } else {
            text[k] = '\0';
            v = strtod(text, NULL);
            if (isinf(v))
                return fail(r); /* jansson: "real number overflow" */
            memcpy(r->last_text, text, (size_t)k);
            r->last_len = k;
            r->last_value = v;
        }
    }
    *d = neg ? -v : v;
    *i = 0;
    *is_int = 0;
    r->p = p;
    return 0;
}

static int literal(ts_jr *r, const char *word, size_t n)
{
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r);
    r->p += n;
    return 0;
}

int ts_jr_skip(ts_jr *r)
{
    ts_jr_key k;
    const char *s;
    size_t n;
    double d;
    int64_t i;
    int is_int, more;
    switch (ts_jr_peek(r)) {
    case TS_JR_OBJECT:
        if (ts_jr_object(r) != 0)
            return -1;
        while ((more = ts_jr_key_next(r, &k)) == 1)
            if (ts_jr_skip(r) != 0)
                return -1;
        return more;
    case TS_JR_ARRAY:
        if (ts_jr_array(r) != 0)
            return -1;
        while ((more = ts_jr_elem_next(r)) == 1)
            if (ts_jr_skip(r) != 0)
                return -1;
        return more;
    case TS_JR_STRING: return ts_jr_string(r, &s, &n);
    case TS_JR_NUMBER: return ts_jr_number(r, &d, &i, &is_int);
    case TS_JR_TRUE: return literal(r, "true", 4);
    case TS_JR_FALSE: return literal(r, "false", 5);
    case TS_JR_NULL: return literal(r, "null", 4);
    default: return fail(r);
    }
}

int ts_jr_finish(ts_jr *r)
{
    if (r->failed || r->depth != 0)
        return fail(r);
    ws(r);
    return r->p == r->end ? 0 : fail(r);
}
