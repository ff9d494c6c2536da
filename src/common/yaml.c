/* The YAML subset reader of yaml.h. The text is first cut into content lines (blank and
 * comment lines dropped, characters and document markers checked), then read by recursive
 * descent over those lines: a collection ends where a line is less indented than it, and a
 * value is either on its key's line (a scalar or a flow sequence) or on the lines below.
 * Recursion is bounded by TS_YAML_MAX_DEPTH, every scalar ends on its line, and each byte
 * is looked at a bounded number of times, so any input costs time linear in its size. */
#include "yaml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cnum.h"
#include "limits.h"
#include "text.h"

#define Y_QUOTE 60

typedef struct yline {
    size_t off, end; /* the line's bytes [off, end), without "\r\n" */
    size_t indent;   /* leading spaces */
    size_t no;       /* 1-based line number */
} yline;

typedef struct yframe {
    char *key; /* NULL: an index */
    size_t index;
} yframe;

typedef struct yrec {
    const json_t *v;
    size_t line;
    char *raw; /* plain scalar read as a number: its text */
} yrec;

struct ts_yaml_info {
    yrec *rec;
    size_t n, cap;
};

typedef struct yp {
    const char *t;
    yline *ln;
    size_t nln, ln_cap;
    size_t cur; /* first content line not consumed yet */
    yframe path[TS_YAML_MAX_DEPTH];
    size_t depth;
    ts_yaml_info *info;
    char *buf; /* the scalar being decoded */
    size_t len, cap;
} yp;

/* ---- paths and errors ------------------------------------------------------------------ */

static void path_put(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf), m = strlen(s);
    if (n + m + 1 <= cap) {
        memcpy(buf + n, s, m + 1);
    } else if (cap >= 4) {
        memcpy(buf + cap - 4, "...", 4);
    }
}

static int plain_key(const char *k)
{
    if (!*k)
        return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_' ||
              *k == '-'))
            return 0;
    return 1;
}

void ts_path_key(char *buf, size_t cap, const char *key)
{
    if (!buf || cap == 0 || !key)
        return;
    if (plain_key(key)) {
        if (buf[0])
            path_put(buf, cap, ".");
        path_put(buf, cap, key);
        return;
    }
    char q[TS_TEXT_QUOTE_CAP(Y_QUOTE)];
    ts_text_quote(q, sizeof q, key, strlen(key), Y_QUOTE);
    path_put(buf, cap, "[");
    path_put(buf, cap, q);
    path_put(buf, cap, "]");
}

void ts_path_index(char *buf, size_t cap, size_t index)
{
    if (!buf || cap == 0)
        return;
    char s[32];
    snprintf(s, sizeof s, "[%zu]", index);
    path_put(buf, cap, s);
}

static tsched_status yerr(const yp *p, tsched_status st, size_t line, const char *fmt, ...) TS_PRINTF(4, 5);

static tsched_status yerr(const yp *p, tsched_status st, size_t line, const char *fmt, ...)
{
    char path[400] = "", msg[400];
    for (size_t d = 0; d < p->depth; d++) {
        if (p->path[d].key)
            ts_path_key(path, sizeof path, p->path[d].key);
        else
            ts_path_index(path, sizeof path, p->path[d].index);
    }
    va_list ap;
    va_start(ap, fmt);
    ts_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ts_error(st, "line %zu: %s%s%s", line, path, path[0] ? ": " : "", msg);
}

/* ---- lines ------------------------------------------------------------------------------- */

static int blank(char c) { return c == ' ' || c == '\t'; }

/* "---" or "..." at the start of a line: 1 a marker alone, 2 a marker followed by text,
 * 0 not a marker. */
static int marker(const char *s, size_t n, const char *m)
{
    if (n < 3 || memcmp(s, m, 3) != 0 || (n > 3 && !blank(s[3])))
        return 0;
    size_t i = 3;
    while (i < n && blank(s[i]))
        i++;
    return i == n || s[i] == '#' ? 1 : 2;
}

static tsched_status split_lines(yp *p, const char *t, size_t len)
{
    size_t pos = 0, no = 0;
    int started = 0, docstart = 0, ended = 0;
    if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    while (pos < len) {
        no++;
        const char *nl = memchr(t + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - t) : len, next = nl ? end + 1 : len;
        if (end > pos && t[end - 1] == '\r')
            end--;
        for (size_t i = pos; i < end;) {
            if (t[i] == '\t') {
                i++;
                continue;
            }
            size_t w = ts_text_char(t + i, end - i);
            if (w == 0)
                return ts_error(TSCHED_E_PARSE, "line %zu: byte %zu of the line is a control character or not "
                                "UTF-8", no, i - pos + 1);
            i += w;
        }
        size_t ind = 0;
        while (pos + ind < end && t[pos + ind] == ' ')
            ind++;
        size_t c = pos + ind, k = c;
        while (k < end && blank(t[k]))
            k++;
        if (k == end || t[k] == '#') {
            pos = next;
            continue;
        }
        if (t[c] == '\t')
            return ts_error(TSCHED_E_PARSE, "line %zu: a tab in the indentation; indent with spaces only", no);
        int m = ind == 0 ? marker(t + c, end - c, "---") : 0;
        if (m) {
            if (started || docstart || ended)
                return ts_error(TSCHED_E_PARSE, "line %zu: a second document (---) is not supported; give one "
                                "document", no);
            if (m == 2)
                return ts_error(TSCHED_E_PARSE, "line %zu: text after --- is not supported; start the content on "
                                "the next line", no);
            docstart = 1;
            pos = next;
            continue;
        }
        m = ind == 0 ? marker(t + c, end - c, "...") : 0;
        if (m == 1) {
            ended = 1;
            pos = next;
            continue;
        }
        if (ended)
            return ts_error(TSCHED_E_PARSE, "line %zu: text after the end of the document (...)", no);
        if (ind == 0 && t[c] == '%')
            return ts_error(TSCHED_E_PARSE, "line %zu: directives (%%) are not supported", no);
        started = 1;
        tsched_status st = TS_GROW(p->ln, p->ln_cap, p->nln + 1);
        if (st != TSCHED_OK)
            return st;
        p->ln[p->nln++] = (yline){pos, end, ind, no};
        pos = next;
    }
    return TSCHED_OK;
}

/* ---- scalars ------------------------------------------------------------------------------ */

static tsched_status put(yp *p, const char *s, size_t n)
{
    tsched_status st = TS_GROW(p->buf, p->cap, p->len + n + 1);
    if (st != TSCHED_OK)
        return st;
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
    return TSCHED_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static tsched_status put_utf8(yp *p, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return put(p, b, n);
}

/* A double-quoted scalar at t[i] == '"' on line L: decoded into p->buf; *next is the offset
 * after the closing quote. */
static tsched_status scan_double(yp *p, const yline *L, size_t i, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    p->len = 0;
    if ((st = put(p, "", 0)) != TSCHED_OK)
        return st;
    for (i++; i < L->end && t[i] != '"';) {
        if (t[i] != '\\') {
            size_t j = i;
            while (j < L->end && t[j] != '"' && t[j] != '\\')
                j++;
            if ((st = put(p, t + i, j - i)) != TSCHED_OK)
                return st;
            i = j;
            continue;
        }
        if (++i == L->end)
            break; /* a backslash at the end continues the scalar on the next line */
        char e = t[i++], c = 0;
        int digits = 0;
        switch (e) {
        case '"': c = '"'; break;
        case '\\': c = '\\'; break;
        case '/': c = '/'; break;
        case ' ': c = ' '; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            return yerr(p, TSCHED_E_PARSE, L->no, "the escape \\%c is not supported in a double-quoted scalar "
                        "(use \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\x \\u or \\U)", (unsigned char)e >= 0x20 && e != 0x7f ? e : '?');
        }
        if (!digits) {
            if ((st = put(p, &c, 1)) != TSCHED_OK)
                return st;
            continue;
        }
        uint32_t cp = 0;
        for (int k = 0; k < digits; k++, i++) {
            int h = i < L->end ? hexval(t[i]) : -1;
            if (h < 0)
                return yerr(p, TSCHED_E_PARSE, L->no, "\\%c needs %d hexadecimal digits", e, digits);
            cp = cp * 16 + (uint32_t)h;
        }
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return yerr(p, TSCHED_E_PARSE, L->no, "\\%c%0*X is not a character this reader accepts (NUL, a "
                        "surrogate or beyond U+10FFFF)", e, digits, cp);
        if ((st = put_utf8(p, cp)) != TSCHED_OK)
            return st;
    }
    if (i >= L->end)
        return yerr(p, TSCHED_E_PARSE, L->no, "a double-quoted scalar must end on its line (multi-line scalars "
                    "are not supported)");
    *next = i + 1;
    return TSCHED_OK;
}

static tsched_status scan_single(yp *p, const yline *L, size_t i, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    p->len = 0;
    if ((st = put(p, "", 0)) != TSCHED_OK)
        return st;
    for (i++; i < L->end; i++) {
        if (t[i] == '\'') {
            if (i + 1 < L->end && t[i + 1] == '\'') {
                if ((st = put(p, "'", 1)) != TSCHED_OK)
                    return st;
                i++;
                continue;
            }
            *next = i + 1;
            return TSCHED_OK;
        }
        if ((st = put(p, t + i, 1)) != TSCHED_OK)
            return st;
    }
    return yerr(p, TSCHED_E_PARSE, L->no, "a single-quoted scalar must end on its line (multi-line scalars are not "
                "supported)");
}

static int flow_ind(char c) { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'; }

/* A plain scalar from t[i] to before " #", ": " (or ':' at the end) and, in a flow
 * sequence, before ",[]{}"; trailing blanks dropped. Sets [*s, *e) and *stop, the offset
 * where the scan stopped. */
static void scan_plain(const yp *p, const yline *L, size_t i, int flow, size_t *s, size_t *e, size_t *stop)
{
    const char *t = p->t;
    size_t last = i;
    *s = i;
    for (; i < L->end; i++) {
        char c = t[i];
        if (c == ':' && (i + 1 == L->end || blank(t[i + 1]) || (flow && flow_ind(t[i + 1]))))
            break;
        if (c == '#' && i > *s && blank(t[i - 1]))
            break;
        if (flow && flow_ind(c))
            break;
        if (!blank(c))
            last = i + 1;
    }
    *e = last;
    *stop = i;
}

/* What a scalar may not start with, as a message; NULL when c may start a plain scalar. */
static const char *bad_start(const yp *p, const yline *L, size_t i)
{
    const char *t = p->t;
    char c = t[i], n = i + 1 < L->end ? t[i + 1] : ' ';
    switch (c) {
    case '&': return "anchors (&) are not supported";
    case '*': return "aliases (*) are not supported";
    case '!': return "tags (!) are not supported";
    case '|':
    case '>': return "block scalars (| and >) are not supported: a scalar must fit on its line";
    case '{': return "flow mappings ({...}) are not supported";
    case '%':
    case '@':
    case '`': return "a plain scalar may not start with %, @ or `; quote it";
    case ',':
    case ']':
    case '}': return "unexpected ',', ']' or '}'";
    case '?':
        return blank(n) ? "complex keys (? ) are not supported" : NULL;
    case ':':
        return blank(n) ? "a ':' without a key" : NULL;
    case '-':
        return blank(n) ? "a block sequence cannot start on the line of its key or inside a flow sequence" : NULL;
    default: return NULL;
    }
}

static tsched_status record(yp *p, const json_t *v, size_t line, const char *raw, size_t rawlen)
{
    if (!p->info || json_is_true(v) || json_is_false(v) || json_is_null(v))
        return TSCHED_OK;
    ts_yaml_info *in = p->info;
    tsched_status st = TS_GROW(in->rec, in->cap, in->n + 1);
    if (st != TSCHED_OK)
        return st;
    yrec *r = &in->rec[in->n];
    r->v = v;
    r->line = line;
    r->raw = NULL;
    if (raw) {
        if (!(r->raw = ts_malloc(rawlen + 1, 1)))
            return TSCHED_E_NOMEM;
        memcpy(r->raw, raw, rawlen);
        r->raw[rawlen] = '\0';
    }
    in->n++;
    return TSCHED_OK;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int lower_is(const char *s, size_t n, const char *w)
{
    if (strlen(w) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        if (c != w[i])
            return 0;
    }
    return 1;
}

/* A number in JSON's grammar for the plain scalar s[0..n), or 0 if it is no number: a sign,
 * digits with at most one '.', at least one digit, then optionally e[-+]digits. */
static int number_text(const char *s, size_t n, char *out, size_t cap)
{
    size_t i = 0, o = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    size_t a = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t ae = i, b = i, be = i;
    int dot = 0;
    if (i < n && s[i] == '.') {
        dot = 1;
        b = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        be = i;
    }
    if (ae == a && be == b)
        return 0;
    size_t x = i, xe = i;
    if (dot && i < n && (s[i] == 'e' || s[i] == 'E')) {
        x = ++i;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!all_digits(s + i, n - i))
            return 0;
        xe = n;
        i = n;
    }
    if (i != n || n + 8 > cap)
        return 0;
    if (neg)
        out[o++] = '-';
    while (a + 1 < ae && s[a] == '0')
        a++; /* JSON allows no leading zeros */
    if (a == ae)
        out[o++] = '0';
    memcpy(out + o, s + a, ae - a);
    o += ae - a;
    if (dot) {
        out[o++] = '.';
        if (b == be)
            out[o++] = '0';
        memcpy(out + o, s + b, be - b);
        o += be - b;
        if (x < xe) {
            out[o++] = 'e';
            memcpy(out + o, s + x, xe - x);
            o += xe - x;
        }
    }
    out[o] = '\0';
    return 1;
}

/* A plain scalar's value (yaml.h). */
static tsched_status resolve_plain(yp *p, const char *s, size_t n, size_t line, json_t **out)
{
    *out = NULL;
    if ((n == 1 && s[0] == '~') || (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
                                               !memcmp(s, "NULL", 4)))) {
        *out = json_null();
        return TSCHED_OK;
    }
    if (lower_is(s, n, "true") || lower_is(s, n, "false")) {
        *out = json_boolean(n == 4);
        return TSCHED_OK;
    }
    char num[96];
    int raw = 0;
    if (n + 8 <= sizeof num && number_text(s, n, num, sizeof num)) {
        /* jansson reads the number in the C locale (cnum.h); an integer beyond 64 bits or a
         * real beyond a double fails and stays text */
        locale_t old = ts_c_locale_enter();
        *out = json_loads(num, JSON_DECODE_ANY, NULL);
        ts_c_locale_leave(old);
        raw = *out != NULL;
    }
    if (!*out)
        *out = json_stringn(s, n);
    if (!*out)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    tsched_status st = record(p, *out, line, raw ? s : NULL, n);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
    }
    return st;
}

static tsched_status new_string(yp *p, size_t line, json_t **out)
{
    *out = json_stringn(p->buf, p->len);
    if (!*out)
        return yerr(p, TSCHED_E_PARSE, line, "a scalar holds a NUL character"); /* UTF-8 was checked */
    tsched_status st = record(p, *out, line, NULL, 0);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
    }
    return st;
}

static size_t skip_blank(const yp *p, const yline *L, size_t i)
{
    while (i < L->end && blank(p->t[i]))
        i++;
    return i;
}

/* After a value at offset i: only blanks and a comment may follow (a '#' must follow a blank). */
static tsched_status line_rest(yp *p, const yline *L, size_t i)
{
    size_t j = skip_blank(p, L, i);
    if (j == L->end || (p->t[j] == '#' && j > L->off && blank(p->t[j - 1])))
        return TSCHED_OK;
    char q[TS_TEXT_QUOTE_CAP(Y_QUOTE)];
    return yerr(p, TSCHED_E_PARSE, L->no, "unexpected text %s after the value",
                ts_text_quote(q, sizeof q, p->t + j, L->end - j, Y_QUOTE));
}

/* [a, "b", 4] on one line. */
static tsched_status parse_flow(yp *p, const yline *L, size_t i, json_t **out, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    json_t *arr = json_array();
    if (!arr)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = record(p, arr, L->no, NULL, 0)) != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    i = skip_blank(p, L, i + 1);
    size_t count = 0;
    for (;;) {
        if (i == L->end || (t[i] == '#' && blank(t[i - 1])))
            goto unterminated;
        if (t[i] == ']') { /* "[]", or after a trailing comma as YAML allows */
            i++;
            break;
        }
        json_t *v = NULL;
        const char *why = NULL;
        if (t[i] == '[')
            why = "nested flow sequences are not supported: a flow sequence holds scalars";
        else if (t[i] == ',')
            why = "an empty entry in a flow sequence";
        else if (t[i] != '"' && t[i] != '\'')
            why = bad_start(p, L, i);
        if (why) {
            json_decref(arr);
            return yerr(p, TSCHED_E_PARSE, L->no, "%s", why);
        }
        if (t[i] == '"' || t[i] == '\'') {
            st = t[i] == '"' ? scan_double(p, L, i, &i) : scan_single(p, L, i, &i);
            if (st == TSCHED_OK)
                st = new_string(p, L->no, &v);
        } else {
            size_t s, e, stop;
            scan_plain(p, L, i, 1, &s, &e, &stop);
            if (stop < L->end && t[stop] == ':') {
                json_decref(arr);
                return yerr(p, TSCHED_E_PARSE, L->no, "a key: value pair inside a flow sequence (flow mappings are "
                            "not supported)");
            }
            i = stop;
            st = resolve_plain(p, t + s, e - s, L->no, &v);
        }
        if (st == TSCHED_OK && json_array_append_new(arr, v) != 0)
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
        if (st != TSCHED_OK) {
            json_decref(arr);
            return st;
        }
        count++;
        i = skip_blank(p, L, i);
        if (i < L->end && t[i] == ',') {
            i = skip_blank(p, L, i + 1);
            continue;
        }
        if (i < L->end && t[i] == ']') {
            i++;
            break;
        }
        if (i == L->end || t[i] == '#')
            goto unterminated;
        json_decref(arr);
        return yerr(p, TSCHED_E_PARSE, L->no, "expected ',' or ']' in a flow sequence");
    }
    *out = arr;
    *next = i;
    return TSCHED_OK;
unterminated:
    json_decref(arr);
    return yerr(p, TSCHED_E_PARSE, L->no, "a flow sequence must end with ']' on its line");
}

/* A value that is the rest of line L from offset i: a scalar or a flow sequence. */
static tsched_status parse_inline(yp *p, size_t li, size_t i, json_t **out)
{
    const yline *L = &p->ln[li];
    const char *t = p->t;
    tsched_status st;
    size_t next;
    *out = NULL;
    if (t[i] == '[') {
        st = parse_flow(p, L, i, out, &next);
    } else if (t[i] == '"' || t[i] == '\'') {
        st = t[i] == '"' ? scan_double(p, L, i, &next) : scan_single(p, L, i, &next);
        if (st == TSCHED_OK)
            st = new_string(p, L->no, out);
    } else {
        const char *why = bad_start(p, L, i);
        if (why)
            return yerr(p, TSCHED_E_PARSE, L->no, "%s", why);
        size_t s, e;
        scan_plain(p, L, i, 0, &s, &e, &next);
        if (next < L->end && t[next] == ':')
            return yerr(p, TSCHED_E_PARSE, L->no, "a ': ' inside a plain value (a mapping cannot start on the line "
                        "of its key); quote the value");
        st = resolve_plain(p, t + s, e - s, L->no, out);
    }
    if (st == TSCHED_OK)
        st = line_rest(p, L, next);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
        return st;
    }
    p->cur = li + 1;
    return TSCHED_OK;
}

/* Is there a key ("k:" followed by a blank or the end) at offset i of L? On 1 the key is in
 * p->buf and *after is the offset after its ':'. Scan errors of a quoted key are returned. */
static tsched_status scan_key(yp *p, const yline *L, size_t i, int *found, size_t *after)
{
    const char *t = p->t;
    tsched_status st;
    size_t j;
    *found = 0;
    if (t[i] == '"' || t[i] == '\'') {
        if ((st = t[i] == '"' ? scan_double(p, L, i, &j) : scan_single(p, L, i, &j)) != TSCHED_OK)
            return st;
        j = skip_blank(p, L, j);
    } else {
        if (bad_start(p, L, i) || t[i] == '[')
            return TSCHED_OK;
        size_t s, e;
        scan_plain(p, L, i, 0, &s, &e, &j);
        p->len = 0;
        if ((st = put(p, t + s, e - s)) != TSCHED_OK)
            return st;
    }
    if (j < L->end && t[j] == ':' && (j + 1 == L->end || blank(t[j + 1]))) {
        *found = 1;
        *after = j + 1;
    }
    return TSCHED_OK;
}

static int seq_marker(const yp *p, const yline *L)
{
    size_t i = L->off + L->indent;
    return p->t[i] == '-' && (i + 1 == L->end || blank(p->t[i + 1]));
}

static tsched_status parse_node(yp *p, size_t li, size_t i, json_t **out);

static tsched_status enter(yp *p, size_t line)
{
    if (p->depth >= TS_YAML_MAX_DEPTH)
        return yerr(p, TSCHED_E_TOO_LARGE, line, "nested deeper than %d collections", TS_YAML_MAX_DEPTH);
    p->path[p->depth].index = 0;
    free(p->path[p->depth].key);
    p->path[p->depth].key = NULL;
    p->depth++;
    return TSCHED_OK;
}

/* The value below a key or a "-" that ends its line: the more indented lines that follow
 * (or, with `seq_ok`, a sequence at the same indentation), else null. */
static tsched_status value_below(yp *p, size_t li, size_t col, int seq_ok, json_t **out)
{
    size_t j = li + 1;
    if (j < p->nln && p->ln[j].indent > col)
        return parse_node(p, j, p->ln[j].off + p->ln[j].indent, out);
    if (seq_ok && j < p->nln && p->ln[j].indent == col && seq_marker(p, &p->ln[j]))
        return parse_node(p, j, p->ln[j].off + p->ln[j].indent, out);
    p->cur = j;
    *out = json_null();
    return TSCHED_OK;
}

/* A block mapping whose keys sit at column `col`; the first key is at offset i of line li
 * (a compact mapping after "- " starts inside its line). */
static tsched_status parse_map(yp *p, size_t li, size_t i, json_t **out)
{
    tsched_status st;
    const size_t col = i - p->ln[li].off;
    json_t *obj = json_object();
    if (!obj)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = record(p, obj, p->ln[li].no, NULL, 0)) != TSCHED_OK || (st = enter(p, p->ln[li].no)) != TSCHED_OK) {
        json_decref(obj);
        return st;
    }
    yframe *f = &p->path[p->depth - 1];
    for (;;) {
        const yline *L = &p->ln[li];
        int found;
        size_t after;
        if ((st = scan_key(p, L, i, &found, &after)) != TSCHED_OK)
            break;
        if (!found) {
            st = seq_marker(p, L) && L->indent == col
                     ? yerr(p, TSCHED_E_PARSE, L->no, "a sequence entry where a key of the mapping is expected")
                     : yerr(p, TSCHED_E_PARSE, L->no, "expected 'key: value' (a multi-line scalar or a "
                            "misindented line?)");
            break;
        }
        if (!(f->key = ts_strdup(p->buf))) {
            st = TSCHED_E_NOMEM;
            break;
        }
        if (p->len != strlen(p->buf)) {
            st = yerr(p, TSCHED_E_PARSE, L->no, "a key holds a NUL character");
            break;
        }
        if (json_object_get(obj, f->key)) {
            st = yerr(p, TSCHED_E_PARSE, L->no, "key given twice in one mapping");
            break;
        }
        json_t *v = NULL;
        size_t vi = skip_blank(p, L, after);
        if (vi < L->end && p->t[vi] != '#')
            st = parse_inline(p, li, vi, &v);
        else
            st = value_below(p, li, col, 1, &v);
        if (st != TSCHED_OK)
            break;
        if (json_object_set_new(obj, f->key, v) != 0) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
            break;
        }
        size_t j = p->cur;
        if (j >= p->nln || p->ln[j].indent < col)
            break;
        if (p->ln[j].indent > col) {
            st = yerr(p, TSCHED_E_PARSE, p->ln[j].no, "more indented than the keys of its mapping (a multi-line "
                      "scalar or a misindented line?)");
            break;
        }
        free(f->key);
        f->key = NULL;
        li = j;
        i = p->ln[j].off + col;
    }
    if (st != TSCHED_OK) {
        json_decref(obj);
        return st;
    }
    free(f->key);
    f->key = NULL;
    p->depth--;
    *out = obj;
    return TSCHED_OK;
}

/* A block sequence whose "-" sit at column `col`, the first at offset i of line li. */
static tsched_status parse_seq(yp *p, size_t li, size_t i, json_t **out)
{
    tsched_status st;
    const size_t col = i - p->ln[li].off;
    json_t *arr = json_array();
    if (!arr)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = record(p, arr, p->ln[li].no, NULL, 0)) != TSCHED_OK || (st = enter(p, p->ln[li].no)) != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    yframe *f = &p->path[p->depth - 1];
    for (size_t idx = 0;; idx++) {
        const yline *L = &p->ln[li];
        f->index = idx;
        json_t *v = NULL;
        size_t vi = skip_blank(p, L, i + 1);
        if (vi < L->end && p->t[vi] != '#')
            st = parse_node(p, li, vi, &v);
        else
            st = value_below(p, li, col, 0, &v);
        if (st != TSCHED_OK)
            break;
        if (json_array_append_new(arr, v) != 0) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
            break;
        }
        size_t j = p->cur;
        if (j >= p->nln || p->ln[j].indent < col)
            break;
        if (p->ln[j].indent > col) {
            f->index = idx;
            st = yerr(p, TSCHED_E_PARSE, p->ln[j].no, "more indented than the entries of its sequence (a "
                      "multi-line scalar or a misindented line?)");
            break;
        }
        if (!seq_marker(p, &p->ln[j]))
            break; /* the next key of a mapping whose value this sequence was */
        li = j;
        i = p->ln[j].off + col;
    }
    if (st != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    p->depth--;
    *out = arr;
    return TSCHED_OK;
}

/* The node that starts at offset i of line li. */
static tsched_status parse_node(yp *p, size_t li, size_t i, json_t **out)
{
    const yline *L = &p->ln[li];
    const char *t = p->t;
    *out = NULL;
    if (t[i] == '-' && (i + 1 == L->end || blank(t[i + 1])))
        return parse_seq(p, li, i, out);
    int found = 0;
    size_t after;
    tsched_status st = scan_key(p, L, i, &found, &after);
    if (st != TSCHED_OK)
        return st;
    if (found)
        return parse_map(p, li, i, out);
    return parse_inline(p, li, i, out);
}

/* ---- entry points ------------------------------------------------------------------------ */

static int rec_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const yrec *)a)->v, y = (uintptr_t)((const yrec *)b)->v;
    return x < y ? -1 : x > y;
}

tsched_status ts_yaml_parse(json_t **out, ts_yaml_info **info, const char *text, size_t len)
{
    if (info)
        *info = NULL;
    *out = NULL;
    if (!text && len)
        return ts_error(TSCHED_E_INVALID, "YAML text is NULL");
    if (len > ts_limits()->input_bytes)
        return ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    yp p;
    memset(&p, 0, sizeof p);
    p.t = text;
    tsched_status st = TSCHED_OK;
    if (info && !(p.info = ts_calloc(1, sizeof *p.info)))
        return TSCHED_E_NOMEM;
    if (len && memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        size_t line = 1;
        for (const char *c = text; c < z; c++)
            line += *c == '\n';
        st = ts_error(TSCHED_E_PARSE, "line %zu: a NUL byte", line);
    }
    json_t *root = NULL;
    if (st == TSCHED_OK)
        st = split_lines(&p, text, len);
    if (st == TSCHED_OK) {
        if (p.nln == 0) {
            root = json_null();
        } else {
            st = parse_node(&p, 0, p.ln[0].off + p.ln[0].indent, &root);
            if (st == TSCHED_OK && p.cur < p.nln) {
                st = ts_error(TSCHED_E_PARSE, "line %zu: less indented than the first line of the document and not "
                              "part of it (a second root?)", p.ln[p.cur].no);
                json_decref(root);
                root = NULL;
            }
        }
    }
    for (size_t d = 0; d < TS_YAML_MAX_DEPTH; d++)
        free(p.path[d].key);
    free(p.ln);
    free(p.buf);
    if (st != TSCHED_OK) {
        ts_yaml_info_free(p.info);
        return st;
    }
    if (p.info) {
        if (p.info->n > 1) /* rec is NULL when nothing was recorded */
            qsort(p.info->rec, p.info->n, sizeof *p.info->rec, rec_cmp);
        *info = p.info;
    }
    *out = root;
    return TSCHED_OK;
}

static const yrec *find(const ts_yaml_info *info, const json_t *v)
{
    if (!info || !v || !info->n)
        return NULL;
    yrec key = {v, 0, NULL};
    return bsearch(&key, info->rec, info->n, sizeof key, rec_cmp);
}

size_t ts_yaml_line(const ts_yaml_info *info, const json_t *v)
{
    const yrec *r = find(info, v);
    return r ? r->line : 0;
}

const char *ts_yaml_scalar_text(const ts_yaml_info *info, const json_t *v)
{
    const yrec *r = find(info, v);
    return r ? r->raw : NULL;
}

void ts_yaml_info_free(ts_yaml_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; i < info->n; i++)
        free(info->rec[i].raw);
    free(info->rec);
    free(info);
}
