/* The service's request fields and options, each error naming the field (doc/serve.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cnum.h"
#include "common/json.h"
#include "service_internal.h"

tsched_status ts_svc_str(const char **out, const svc_req *req, const char *key)
{
    const json_t *v = json_object_get(req->root, key);
    if (!v || json_is_null(v))
        return ts_error(TSCHED_E_NOT_FOUND, "%s: missing required field", key);
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected a string, got %s", key, ts_json_type_name(v));
    if (json_string_length(v) == 0 || strlen(json_string_value(v)) != json_string_length(v))
        return ts_error(TSCHED_E_FORMAT, "%s: expected a non-empty name without NUL bytes", key);
    *out = json_string_value(v);
    return TSCHED_OK;
}

tsched_status ts_svc_doc(char **text, size_t *len, int *owned, const svc_req *req, const char *key, int required)
{
    const json_t *v = json_object_get(req->root, key);
    *text = NULL;
    *len = 0;
    *owned = 0;
    if (!v || json_is_null(v))
        return required ? ts_error(TSCHED_E_NOT_FOUND, "%s: missing required field", key) : TSCHED_OK;
    if (json_is_string(v)) {
        /* the document's JSON text: never a file name (the service reads no files) */
        const char *s = json_string_value(v);
        size_t n = json_string_length(v), b = 0;
        while (b < n && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r'))
            b++;
        if (b == n || s[b] != '{')
            return ts_error(TSCHED_E_PARSE,
                            "%s: a string here is the document's JSON text (an object), not a file name: the service "
                            "reads no files; got \"%.64s\"%s",
                            key, s, n > 64 ? "..." : "");
        *text = (char *)s;
        *len = n;
        return TSCHED_OK;
    }
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected a document (an object, or a string of JSON text), got %s", key,
                        ts_json_type_name(v));
    *text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (!*text)
        return ts_error(TSCHED_E_NOMEM, "%s: out of memory copying the document", key);
    *len = strlen(*text);
    *owned = 1;
    return TSCHED_OK;
}

tsched_status ts_svc_topology(tsched_topology **topo, tsched_topology **tmp, const svc_req *req, const char *key)
{
    const json_t *v = json_object_get(req->root, key);
    *topo = *tmp = NULL;
    if (v && json_is_string(v)) {
        svc_fabric *f = ts_svc_find(req->svc, json_string_value(v));
        if (!f)
            return ts_error(TSCHED_E_NOT_FOUND, "%s: no fabric named \"%s\" is loaded", key, json_string_value(v));
        *topo = f->topo;
        return TSCHED_OK;
    }
    char *text;
    size_t len;
    int owned;
    tsched_status st = ts_svc_doc(&text, &len, &owned, req, key, 1);
    if (st != TSCHED_OK)
        return st;
    st = tsched_topology_load_string(tmp, text, len);
    if (owned)
        free(text);
    if (st != TSCHED_OK)
        return ts_error_prefix(st, key);
    *topo = *tmp;
    return TSCHED_OK;
}

/* ---- options ---- */

const json_t *ts_svc_options(const svc_req *req)
{
    const json_t *o = json_object_get(req->root, "options");
    return o && json_is_object(o) ? o : NULL;
}

static const json_t *opt(const svc_req *req, const char *key)
{
    const json_t *o = ts_svc_options(req), *v = o ? json_object_get(o, key) : NULL;
    return v && !json_is_null(v) ? v : NULL;
}

tsched_status ts_svc_opt_flag(int *out, const svc_req *req, const char *key)
{
    const json_t *v = opt(req, key);
    if (!v)
        return TSCHED_OK;
    if (!json_is_boolean(v))
        return ts_error(TSCHED_E_TYPE, "options.%s: expected true or false, got %s", key, ts_json_type_name(v));
    *out = json_is_true(v);
    return TSCHED_OK;
}

tsched_status ts_svc_opt_u64(uint64_t *out, int *given, const svc_req *req, const char *key, uint64_t min,
                             uint64_t max)
{
    const json_t *v = opt(req, key);
    if (!v)
        return TSCHED_OK;
    uint64_t x;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return ts_error(TSCHED_E_RANGE, "options.%s: %lld is negative", key, (long long)json_integer_value(v));
        x = (uint64_t)json_integer_value(v);
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!(d >= 0 && d < 18446744073709551616.0) || d != floor(d))
            return ts_error(TSCHED_E_RANGE, "options.%s: %.17g is not a whole number >= 0", key, d);
        x = (uint64_t)d;
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        unsigned long long u = *s && *s != '-' && *s != '+' && *s != ' ' ? strtoull(s, &end, 10) : 0;
        if (!*s || *s == '-' || *s == '+' || *s == ' ' || errno || *end)
            return ts_error(TSCHED_E_RANGE, "options.%s: \"%s\" is not a whole number", key, s);
        x = u;
    } else
        return ts_error(TSCHED_E_TYPE, "options.%s: expected a whole number, got %s", key, ts_json_type_name(v));
    if (x < min || x > max)
        return ts_error(TSCHED_E_RANGE, "options.%s: %llu is out of range [%llu, %llu]", key, (unsigned long long)x,
                        (unsigned long long)min, (unsigned long long)max);
    *out = x;
    if (given)
        *given = 1;
    return TSCHED_OK;
}

tsched_status ts_svc_opt_u32(uint32_t *out, int *given, const svc_req *req, const char *key, uint32_t min,
                             uint32_t max)
{
    uint64_t x = *out;
    tsched_status st = ts_svc_opt_u64(&x, given, req, key, min, max);
    if (st == TSCHED_OK)
        *out = (uint32_t)x;
    return st;
}

tsched_status ts_svc_opt_num(double *out, int *given, const svc_req *req, const char *key, double min, int min_open,
                             double max)
{
    const json_t *v = opt(req, key);
    if (!v)
        return TSCHED_OK;
    double d;
    if (json_is_number(v))
        d = json_number_value(v);
    else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        d = ts_strtod(s, &end);
        if (!*s || errno || *end || !isfinite(d))
            return ts_error(TSCHED_E_RANGE, "options.%s: \"%s\" is not a number", key, s);
    } else
        return ts_error(TSCHED_E_TYPE, "options.%s: expected a number, got %s", key, ts_json_type_name(v));
    if (!(min_open ? d > min : d >= min) || !(d <= max))
        return ts_error(TSCHED_E_RANGE, "options.%s: %.17g is out of range %s%g, %g]", key, d, min_open ? "(" : "[",
                        min, max);
    *out = d;
    if (given)
        *given = 1;
    return TSCHED_OK;
}

tsched_status ts_svc_opt_str(const char **out, const svc_req *req, const char *key)
{
    const json_t *v = opt(req, key);
    if (!v)
        return TSCHED_OK;
    if (!json_is_string(v))
        return ts_error(TSCHED_E_TYPE, "options.%s: expected a string, got %s", key, ts_json_type_name(v));
    *out = json_string_value(v);
    return TSCHED_OK;
}
