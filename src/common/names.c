#include "names.h"

#include <stdint.h>
#include <string.h>

#include "limits.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 (overlong forms, surrogates and
 * code points above U+10FFFF are invalid, as RFC 3629 says). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

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
        size_t n = utf8_seq(s + i);
        if (n == 0)
            return ts_error(TSCHED_E_RANGE, "%s: a name must be valid UTF-8 (bad byte 0x%02x at byte %zu)", field,
                            s[i], i);
        i += n;
    }
    return TSCHED_OK;
}
