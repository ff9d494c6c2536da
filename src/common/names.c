#include "names.h"

#include <stdint.h>
#include <string.h>

#include "limits.h"
#include "text.h"
#include "topo-sched/topology.h"

tsched_status ts_name_check(const char *name, const char *field)
{
    if (!name)
        return ts_error(TSCHED_E_INVALID, "%s: name is NULL", field);
    size_t len = strlen(name), max = ts_limits()->name_bytes;
    if (len == 0)
        return ts_error(TSCHED_E_RANGE, "%s: a name must not be empty", field);
    if (len > max)
        return ts_error(TSCHED_E_RANGE, "%s: a name of %zu bytes is longer than the limit name_bytes = %zu", field,
                        len, max);
    const unsigned char *s = (const unsigned char *)name;
    for (size_t i = 0; i < len;) {
        if (s[i] < 0x20 || s[i] == 0x7f)
            return ts_error(TSCHED_E_RANGE, "%s: a name must not hold control character 0x%02x (byte %zu)", field,
                            s[i], i);
        if (s[i] == '~' || s[i] == '#')
            return ts_error(TSCHED_E_RANGE, "%s: \"%s\": a name must not hold '%c' (it builds link names)", field,
                            name, s[i]);
        size_t n = ts_text_char(name + i, len - i);
        if (n == 0)
            return ts_error(TSCHED_E_RANGE, "%s: a name must be valid UTF-8 without control characters (bad byte "
                            "0x%02x at byte %zu)", field, s[i], i);
        i += n;
    }
    return TSCHED_OK;
}

const char *ts_domain_name(int domain)
{
    switch (domain) {
    case TSCHED_LEVEL_LEAF: return "leaf";
    case TSCHED_LEVEL_POD: return "pod";
    case TSCHED_LEVEL_NVL: return "nvl";
    default: return domain < 0 ? "auto" : "?";
    }
}

const char *ts_enum_name(const char *const *names, unsigned n, int v)
{
    return v >= 0 && (unsigned)v < n ? names[v] : "?";
}

int ts_enum_find(const char *const *names, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}
