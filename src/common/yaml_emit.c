/* Block YAML writer (see yaml_emit.h). */
#include "yaml_emit.h"

#include "numfmt.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int plain_ok(const char *s)
{
    static const char *const reserved[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "null"};
    unsigned char c0 = (unsigned char)s[0];
    if (!((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z') || c0 == '_'))
        return 0;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '.' || c == '/' || c == '-' || c == '[' || c == ']' || c == ',';
        if (!ok)
            return 0;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcasecmp(s, reserved[i]) == 0)
            return 0;
    return 1;
}

void ts_yaml_scalar(ts_sbuf *b, const char *s)
{
    if (*s && plain_ok(s)) {
        ts_sbuf_puts(b, s);
        return;
    }
    ts_sbuf_putc(b, '"');
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            ts_sbuf_putc(b, '\\');
            ts_sbuf_putc(b, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            ts_sbuf_printf(b, "\\x%02x", c);
        } else {
            ts_sbuf_putc(b, (char)c);
        }
    }
    ts_sbuf_putc(b, '"');
}

static void indent(ts_sbuf *b, int n)
{
    for (int i = 0; i < n; i++)
        ts_sbuf_putc(b, ' ');
}

static int is_scalar(const json_t *v) { return !json_is_object(v) && !json_is_array(v); }

static void scalar(ts_sbuf *b, const json_t *v)
{
    if (json_is_string(v))
        ts_yaml_scalar(b, json_string_value(v));
    else if (json_is_integer(v))
        ts_sbuf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v)) {
        char t[TS_FMT_DOUBLE_CAP];
        ts_fmt_double(t, sizeof t, json_real_value(v));
        ts_sbuf_puts(b, t);
    }
    else if (json_is_true(v))
        ts_sbuf_puts(b, "true");
    else if (json_is_false(v))
        ts_sbuf_puts(b, "false");
    else
        ts_sbuf_puts(b, "null");
}

static int all_integers(const json_t *a)
{
    size_t i;
    json_t *x;
    json_array_foreach(a, i, x) if (!json_is_integer(x)) return 0;
    return 1;
}

static void emit(ts_sbuf *b, const json_t *v, int ind, int inline_first, int iseq);

/* The value of a key: on its line when it is a scalar or empty, else on the next lines. */
static void value(ts_sbuf *b, const json_t *v, int ind, int iseq)
{
    if (is_scalar(v)) {
        ts_sbuf_putc(b, ' ');
        scalar(b, v);
        ts_sbuf_putc(b, '\n');
    } else if (json_is_object(v) && json_object_size(v) == 0) {
        ts_sbuf_puts(b, " {}\n");
    } else if (json_is_array(v) && (json_array_size(v) == 0 || all_integers(v))) {
        ts_sbuf_puts(b, " [");
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            if (i)
                ts_sbuf_puts(b, ", ");
            scalar(b, x);
        }
        ts_sbuf_puts(b, "]\n");
    } else {
        ts_sbuf_putc(b, '\n');
        emit(b, v, json_is_array(v) && !iseq ? ind : ind + 2, 0, iseq);
    }
}

/* `inline_first`: the first line goes after a "- " already written. */
static void emit(ts_sbuf *b, const json_t *v, int ind, int inline_first, int iseq)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        int first = 1;
        json_object_foreach((json_t *)v, k, x)
        {
            if (!(first && inline_first))
                indent(b, ind);
            first = 0;
            ts_yaml_scalar(b, k);
            ts_sbuf_putc(b, ':');
            value(b, x, ind, iseq);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            if (!(i == 0 && inline_first))
                indent(b, ind);
            ts_sbuf_puts(b, "- ");
            if (is_scalar(x)) {
                scalar(b, x);
                ts_sbuf_putc(b, '\n');
            } else {
                emit(b, x, ind + 2, 1, iseq);
            }
        }
    }
}

void ts_yaml_emit(ts_sbuf *b, const json_t *v, int indent_seq) { emit(b, v, 0, 0, indent_seq); }
