#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- text in messages ------------------------------------------------------------------ */

size_t ts_text_char(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 0)
        return 0;
    if (u[0] < 0x80)
        return u[0] >= 0x20 && u[0] != 0x7f;
    size_t n;
    uint32_t cp, min;
    if (u[0] >= 0xc2 && u[0] <= 0xdf) {
        n = 2, cp = u[0] & 0x1fu, min = 0x80;
    } else if (u[0] >= 0xe0 && u[0] <= 0xef) {
        n = 3, cp = u[0] & 0x0fu, min = 0x800;
    } else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
        n = 4, cp = u[0] & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (u[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0; /* overlong, beyond Unicode, or a surrogate */
    if (cp <= 0x9f || cp == 0x2028 || cp == 0x2029)
        return 0; /* C1 controls and the Unicode line and paragraph separators */
    return n;
}

/* Write one input character (or one bad byte) at s[0..len) escaped; returns the input bytes
 * it took, or 0 if its output would not fit in `room` bytes. */
static size_t escape_one(char *dst, size_t *dn, size_t room, const char *s, size_t len, int quoted)
{
    size_t n = ts_text_char(s, len);
    char tmp[8];
    size_t w;
    if (n > 0 && !(quoted && (s[0] == '"' || s[0] == '\\'))) {
        if (n > room)
            return 0;
        memcpy(dst + *dn, s, n);
        *dn += n;
        return n;
    }
    unsigned char c = (unsigned char)s[0];
    if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t') {
        tmp[0] = '\\';
        tmp[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c;
        w = 2;
    } else {
        w = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", c);
    }
    if (w > room)
        return 0;
    memcpy(dst + *dn, tmp, w);
    *dn += w;
    return 1;
}

const char *ts_text_quote(char *dst, size_t cap, const char *s, size_t len, size_t max_in)
{
    size_t dn = 0, i = 0, lim = len < max_in ? len : max_in;
    if (cap < 8) {
        if (cap)
            dst[0] = '\0';
        return dst;
    }
    dst[dn++] = '"';
    while (i < lim) {
        /* room for this character, "...", the closing quote and the NUL */
        size_t took = escape_one(dst, &dn, cap - dn - 5, s + i, lim - i, 1);
        if (took == 0)
            break;
        i += took;
    }
    if (i < len) {
        memcpy(dst + dn, "...", 3);
        dn += 3;
    }
    dst[dn++] = '"';
    dst[dn] = '\0';
    return dst;
}

int ts_text_one_line(char *dst, size_t cap, const char *s)
{
    size_t dn = 0, i = 0, len = strlen(s);
    int escaped = 0;
    if (cap == 0)
        return 0;
    while (i < len) {
        escaped |= s[i] != '"' && s[i] != '\\' && ts_text_char(s + i, len - i) == 0;
        size_t took = escape_one(dst, &dn, cap - dn - 1, s + i, len - i, 0);
        if (took == 0)
            break;
        i += took;
    }
    dst[dn] = '\0';
    return escaped;
}
