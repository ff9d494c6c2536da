/* The YAML subset reader's scanner: error paths, content lines and scalars (quoted, plain,
 * numbers). The structure above them is read in yaml.c. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cnum.h"
#include "limits.h"
#include "text.h"
#include "yaml_scan.h"

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

tsched_status ts_yp_yerr(const yp *p, tsched_status st, size_t line, const char *fmt, ...)
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


/* "---" or "..." at the start of a line: 1 a marker alone, 2 a marker followed by text,
 * 0 not a marker. */
static int marker(const char *s, size_t n, const char *m)
{
    if (n < 3 || memcmp(s, m, 3) != 0 || (n > 3 && !ts_yp_blank(s[3])))
        return 0;
    size_t i = 3;
    while (i < n && ts_yp_blank(s[i]))
        i++;
    return i == n || s[i] == '#' ? 1 : 2;
}

tsched_status ts_yp_split_lines(yp *p, const char *t, size_t len)
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
        while (k < end && ts_yp_blank(t[k]))
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

tsched_status ts_yp_put(yp *p, const char *s, size_t n)
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
    return ts_yp_put(p, b, n);
}

/* A double-quoted scalar at t[i] == '"' on line L: decoded into p->buf; *next is the offset
 * after the closing quote. */
tsched_status ts_yp_scan_double(yp *p, const yline *L, size_t i, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    p->len = 0;
    if ((st = ts_yp_put(p, "", 0)) != TSCHED_OK)
        return st;
    for (i++; i < L->end && t[i] != '"';) {
        if (t[i] != '\\') {
            size_t j = i;
            while (j < L->end && t[j] != '"' && t[j] != '\\')
                j++;
            if ((st = ts_yp_put(p, t + i, j - i)) != TSCHED_OK)
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
            return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "the escape \\%c is not supported in a double-quoted scalar "
                        "(use \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\x \\u or \\U)", (unsigned char)e >= 0x20 && e != 0x7f ? e : '?');
        }
        if (!digits) {
            if ((st = ts_yp_put(p, &c, 1)) != TSCHED_OK)
                return st;
            continue;
        }
        uint32_t cp = 0;
        for (int k = 0; k < digits; k++, i++) {
            int h = i < L->end ? hexval(t[i]) : -1;
            if (h < 0)
                return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "\\%c needs %d hexadecimal digits", e, digits);
            cp = cp * 16 + (uint32_t)h;
        }
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "\\%c%0*X is not a character this reader accepts (NUL, a "
                        "surrogate or beyond U+10FFFF)", e, digits, cp);
        if ((st = put_utf8(p, cp)) != TSCHED_OK)
            return st;
    }
    if (i >= L->end)
        return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a double-quoted scalar must end on its line (multi-line scalars "
                    "are not supported)");
    *next = i + 1;
    return TSCHED_OK;
}

tsched_status ts_yp_scan_single(yp *p, const yline *L, size_t i, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    p->len = 0;
    if ((st = ts_yp_put(p, "", 0)) != TSCHED_OK)
        return st;
    for (i++; i < L->end; i++) {
        if (t[i] == '\'') {
            if (i + 1 < L->end && t[i + 1] == '\'') {
                if ((st = ts_yp_put(p, "'", 1)) != TSCHED_OK)
                    return st;
                i++;
                continue;
            }
            *next = i + 1;
            return TSCHED_OK;
        }
        if ((st = ts_yp_put(p, t + i, 1)) != TSCHED_OK)
            return st;
    }
    return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a single-quoted scalar must end on its line (multi-line scalars are not "
                "supported)");
}

static int flow_ind(char c) { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'; }

/* A plain scalar from t[i] to before " #", ": " (or ':' at the end) and, in a flow
 * sequence, before ",[]{}"; trailing blanks dropped. Sets [*s, *e) and *stop, the offset
 * where the scan stopped. */
void ts_yp_scan_plain(const yp *p, const yline *L, size_t i, int flow, size_t *s, size_t *e, size_t *stop)
{
    const char *t = p->t;
    size_t last = i;
    *s = i;
    for (; i < L->end; i++) {
        char c = t[i];
        if (c == ':' && (i + 1 == L->end || ts_yp_blank(t[i + 1]) || (flow && flow_ind(t[i + 1]))))
            break;
        if (c == '#' && i > *s && ts_yp_blank(t[i - 1]))
            break;
        if (flow && flow_ind(c))
            break;
        if (!ts_yp_blank(c))
            last = i + 1;
    }
    *e = last;
    *stop = i;
}

/* What a scalar may not start with, as a message; NULL when c may start a plain scalar. */
const char *ts_yp_bad_start(const yp *p, const yline *L, size_t i)
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
        return ts_yp_blank(n) ? "complex keys (? ) are not supported" : NULL;
    case ':':
        return ts_yp_blank(n) ? "a ':' without a key" : NULL;
    case '-':
        return ts_yp_blank(n) ? "a block sequence cannot start on the line of its key or inside a flow sequence" : NULL;
    default: return NULL;
    }
}

tsched_status ts_yp_record(yp *p, const json_t *v, size_t line, const char *raw, size_t rawlen)
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
tsched_status ts_yp_resolve_plain(yp *p, const char *s, size_t n, size_t line, json_t **out)
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
    tsched_status st = ts_yp_record(p, *out, line, raw ? s : NULL, n);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
    }
    return st;
}

tsched_status ts_yp_new_string(yp *p, size_t line, json_t **out)
{
    *out = json_stringn(p->buf, p->len);
    if (!*out)
        return ts_yp_yerr(p, TSCHED_E_PARSE, line, "a scalar holds a NUL character"); /* UTF-8 was checked */
    tsched_status st = ts_yp_record(p, *out, line, NULL, 0);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
    }
    return st;
}

size_t ts_yp_skip_blank(const yp *p, const yline *L, size_t i)
{
    while (i < L->end && ts_yp_blank(p->t[i]))
        i++;
    return i;
}

/* After a value at offset i: only blanks and a comment may follow (a '#' must follow a blank). */
tsched_status ts_yp_line_rest(yp *p, const yline *L, size_t i)
{
    size_t j = ts_yp_skip_blank(p, L, i);
    if (j == L->end || (p->t[j] == '#' && j > L->off && ts_yp_blank(p->t[j - 1])))
        return TSCHED_OK;
    char q[TS_TEXT_QUOTE_CAP(Y_QUOTE)];
    return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "unexpected text %s after the value",
                ts_text_quote(q, sizeof q, p->t + j, L->end - j, Y_QUOTE));
}
