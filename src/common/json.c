#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cnum.h"
#include "json_write.h"
#include "limits.h"
#include "readall.h"

tsched_status ts_json_parse(json_t **out, const char *data, size_t len)
{
    json_error_t err;
    /* jansson reads reals with strtod after swapping '.' for the locale's decimal point,
     * which works for one-byte points only: read in the C locale (cnum.h) */
    locale_t old = ts_c_locale_enter();
    *out = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
    ts_c_locale_leave(old);
    /* jansson reports its own allocation failures as parse errors: with the code
     * json_error_out_of_memory, or, when its lexer could not even start, with no position
     * and no text (no reading error looks like that) */
    int oom = *out == NULL && err.line == -1 && err.text[0] == '\0';
#if JANSSON_VERSION_HEX >= 0x020e00
    oom |= *out == NULL && json_error_code(&err) == json_error_out_of_memory;
#endif
    if (oom)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading JSON");
    if (!*out) {
        /* jansson takes a NUL byte for the end of the text ("end of file expected near end
         * of file" after a document): name the NUL when jansson stopped there */
        const char *nul = memchr(data, '\0', len);
        if (nul && err.position >= 0 && (size_t)(nul - data) <= (size_t)err.position) {
            size_t at = (size_t)(nul - data), line = 1, col = 1;
            for (size_t i = 0; i < at; i++, col++)
                if (data[i] == '\n')
                    line++, col = 0;
            return ts_error(TSCHED_E_PARSE, "line %zu, column %zu: byte %zu is a NUL byte; JSON text holds none", line,
                            col, at);
        }
        return ts_error(TSCHED_E_PARSE, "line %d, column %d: %s", err.line, err.column, err.text);
    }
    return TSCHED_OK;
}

tsched_status ts_json_parse_field(json_t **out, const char *text, const char *field)
{
    *out = NULL;
    size_t len = strlen(text);
    if (len > ts_limits()->input_bytes)
        return ts_limit_error(field, (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    tsched_status st = ts_json_parse(out, text, len);
    if (st != TSCHED_OK)
        return st == TSCHED_E_NOMEM ? st : ts_error_prefix(TSCHED_E_PARSE, field);
    return TSCHED_OK;
}

static _Thread_local int files_forbidden;

int ts_files_forbid(int on)
{
    int was = files_forbidden;
    files_forbidden = on;
    return was;
}

tsched_status ts_read_file(char **out, size_t *len, const char *path)
{
    if (files_forbidden)
        return ts_error(TSCHED_E_INVALID, "\"%s\" is a file name, and the service reads no files: give the document "
                        "itself", path);
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return ts_error(TSCHED_E_IO, "%s: cannot open: %s", path, strerror(errno));
    const char *shown = f == stdin ? "<stdin>" : path;
    uint64_t max = ts_limits()->input_bytes;
    /* the one bounded reader (readall.h): stops at the first NUL and past the limit */
    ts_read_result r = ts_read_stream(f, max, out, len);
    if (f != stdin)
        fclose(f);
    switch (r) {
    case TS_READ_OK: return TSCHED_OK;
    case TS_READ_NUL:
        return ts_error(TSCHED_E_PARSE, "%s: byte %zu is a NUL byte; expected a text document", shown, *len);
    case TS_READ_TOO_LARGE:
        return ts_error(TSCHED_E_TOO_LARGE, "%s: more than %llu bytes: exceeds the limit input_bytes = %llu "
                        "(raise it with tsched_limits_set)", shown, (unsigned long long)max, (unsigned long long)max);
    case TS_READ_IO: return ts_error(TSCHED_E_IO, "%s: read error", shown);
    default: return ts_error(TSCHED_E_NOMEM, "%s: out of memory reading it", shown);
    }
}

static tsched_status load_string(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx,
                                 const char *json, size_t len, const char *fn)
{
    if (!slot)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *(void **)slot = NULL;
    if (!json)
        return ts_error(TSCHED_E_INVALID, "%s: json is NULL", fn);
    if (len > ts_limits()->input_bytes)
        return ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    if (fast) {
        if (fast(slot, ctx, json, len) == TSCHED_OK)
            return TSCHED_OK;
        *(void **)slot = NULL; /* read it again: the tree reader's error is the one reported */
    }
    json_t *root;
    tsched_status st = ts_json_parse(&root, json, len);
    if (st != TSCHED_OK)
        return st;
    st = read(slot, ctx, root);
    json_decref(root);
    return st;
}

static tsched_status load_file(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx, const char *path,
                               const char *fn)
{
    if (!slot || !path)
        return ts_error(TSCHED_E_INVALID, "%s: out or path is NULL", fn);
    *(void **)slot = NULL;
    char *buf;
    size_t len;
    tsched_status st = ts_read_file(&buf, &len, path);
    if (st != TSCHED_OK)
        return st;
    st = load_string(slot, fast, read, ctx, buf, len, fn);
    free(buf);
    return st == TSCHED_OK ? st : ts_error_prefix(st, strcmp(path, "-") == 0 ? "<stdin>" : path);
}

tsched_status ts_json_load_string(void *slot, ts_doc_reader read, const void *ctx, const char *json, size_t len,
                                  const char *fn)
{
    return load_string(slot, NULL, read, ctx, json, len, fn);
}

tsched_status ts_json_load_file(void *slot, ts_doc_reader read, const void *ctx, const char *path, const char *fn)
{
    return load_file(slot, NULL, read, ctx, path, fn);
}

tsched_status ts_json_load_string_fast(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx,
                                       const char *json, size_t len, const char *fn)
{
    return load_string(slot, fast, read, ctx, json, len, fn);
}

tsched_status ts_json_load_file_fast(void *slot, ts_text_reader fast, ts_doc_reader read, const void *ctx,
                                     const char *path, const char *fn)
{
    return load_file(slot, fast, read, ctx, path, fn);
}

const char *ts_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "?";
}

tsched_status ts_json_check_format(const json_t *root, const char *format)
{
    if (!json_is_object(root))
        return ts_error(TSCHED_E_TYPE, "document: expected an object, got %s", ts_json_type_name(root));
    const json_t *f = json_object_get(root, "format");
    if (!f)
        return ts_error(TSCHED_E_FORMAT, "format: missing; expected \"%s\"", format);
    if (!json_is_string(f))
        return ts_error(TSCHED_E_TYPE, "format: expected a string, got %s", ts_json_type_name(f));
    if (strcmp(json_string_value(f), format) != 0)
        return ts_error(TSCHED_E_FORMAT, "format: unknown format or version \"%s\"; expected \"%s\"",
                        json_string_value(f), format);
    return TSCHED_OK;
}

tsched_status ts_json_dumps(char **out, const json_t *root, int compact)
{
    *out = ts_json_write(root, compact, NULL);
    if (!*out)
        return ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    return TSCHED_OK;
}

tsched_status ts_json_dump(char **out, const json_t *root) { return ts_json_dumps(out, root, TS_JSON_INDENT); }

#define WHERE_FMT "%s%s%s"
#define WHERE_ARGS(where, key) (where && *where ? where : ""), (where && *where ? "." : ""), key

static tsched_status get_field(const json_t **v, const json_t *obj, const char *where, const char *key,
                               int required)
{
    *v = json_object_get(obj, key);
    if (!*v || json_is_null(*v)) {
        *v = NULL;
        if (required)
            return ts_error(TSCHED_E_NOT_FOUND, WHERE_FMT ": missing required field", WHERE_ARGS(where, key));
    }
    return TSCHED_OK;
}

/* A number as double, with the field named in the error. */
static tsched_status get_number(double *out, const json_t *v, const char *where, const char *key)
{
    if (json_is_integer(v))
        *out = (double)json_integer_value(v);
    else if (json_is_real(v))
        *out = json_real_value(v);
    else
        return ts_error(TSCHED_E_TYPE, WHERE_FMT ": expected a number, got %s", WHERE_ARGS(where, key),
                        ts_json_type_name(v));
    if (!isfinite(*out))
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": not a finite number", WHERE_ARGS(where, key));
    return TSCHED_OK;
}

tsched_status ts_json_u32(uint32_t *out, const json_t *obj, const char *where, const char *key, int required,
                          uint32_t min, uint32_t max)
{
    const json_t *v;
    tsched_status st = get_field(&v, obj, where, key, required);
    if (st != TSCHED_OK || !v)
        return st;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 0)
            return ts_error(TSCHED_E_RANGE, WHERE_FMT ": must not be negative, got %lld", WHERE_ARGS(where, key),
                            (long long)x);
        if (x < (json_int_t)min || (unsigned long long)x > max)
            return ts_error(TSCHED_E_RANGE, WHERE_FMT ": %lld is out of range [%u, %u]", WHERE_ARGS(where, key),
                            (long long)x, min, max);
        *out = (uint32_t)x;
        return TSCHED_OK;
    }
    double d;
    if ((st = get_number(&d, v, where, key)) != TSCHED_OK)
        return ts_error(st == TSCHED_E_TYPE ? TSCHED_E_TYPE : st, WHERE_FMT ": expected a whole number, got %s",
                        WHERE_ARGS(where, key), json_is_number(v) ? "a non-finite number" : ts_json_type_name(v));
    if (d < 0)
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": must not be negative, got %g", WHERE_ARGS(where, key), d);
    if (d != floor(d))
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": expected a whole number, got %g", WHERE_ARGS(where, key), d);
    if (d < min || d > max)
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": %g is out of range [%u, %u]", WHERE_ARGS(where, key), d, min,
                        max);
    *out = (uint32_t)d;
    return TSCHED_OK;
}

tsched_status ts_json_num(double *out, const json_t *obj, const char *where, const char *key, int required,
                          double min, int min_open, double max)
{
    const json_t *v;
    tsched_status st = get_field(&v, obj, where, key, required);
    if (st != TSCHED_OK || !v)
        return st;
    double d;
    if ((st = get_number(&d, v, where, key)) != TSCHED_OK)
        return st;
    if (d < 0 && min >= 0)
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": must not be negative, got %g", WHERE_ARGS(where, key), d);
    if (d < min || (min_open && d == min) || d > max)
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": %g is out of range %s%g, %g]", WHERE_ARGS(where, key), d,
                        min_open ? "(" : "[", min, max);
    *out = d;
    return TSCHED_OK;
}

tsched_status ts_json_str(const char **out, const json_t *obj, const char *where, const char *key, int required)
{
    const json_t *v;
    tsched_status st = get_field(&v, obj, where, key, required);
    if (st != TSCHED_OK || !v)
        return st;
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, WHERE_FMT ": expected a string, got %s", WHERE_ARGS(where, key),
                        ts_json_type_name(v));
    if (json_string_length(v) == 0)
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": must not be empty", WHERE_ARGS(where, key));
    if (strlen(json_string_value(v)) != json_string_length(v))
        return ts_error(TSCHED_E_RANGE, WHERE_FMT ": contains a NUL character", WHERE_ARGS(where, key));
    *out = json_string_value(v);
    return TSCHED_OK;
}

tsched_status ts_json_arr(const json_t **out, const json_t *obj, const char *where, const char *key, int required)
{
    const json_t *v;
    tsched_status st = get_field(&v, obj, where, key, required);
    *out = NULL;
    if (st != TSCHED_OK || !v)
        return st;
    if (!json_is_array(v))
        return ts_error(TSCHED_E_TYPE, WHERE_FMT ": expected an array, got %s", WHERE_ARGS(where, key),
                        ts_json_type_name(v));
    *out = v;
    return TSCHED_OK;
}

tsched_status ts_json_obj(const json_t **out, const json_t *obj, const char *where, const char *key, int required)
{
    const json_t *v;
    tsched_status st = get_field(&v, obj, where, key, required);
    *out = NULL;
    if (st != TSCHED_OK || !v)
        return st;
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, WHERE_FMT ": expected an object, got %s", WHERE_ARGS(where, key),
                        ts_json_type_name(v));
    *out = v;
    return TSCHED_OK;
}

tsched_status ts_json_set(json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) != 0)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON field %s", key);
    return TSCHED_OK;
}

tsched_status ts_json_push(json_t *arr, json_t *value)
{
    if (!value || json_array_append_new(arr, value) != 0)
        return ts_error(TSCHED_E_NOMEM, "out of memory building a JSON array");
    return TSCHED_OK;
}
