/* The text of `topo-sched draw`: a growing buffer, XML and DOT escapes, shortened names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

static void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom)
        return;
    for (;;) {
        va_list cp;
        va_copy(cp, ap);
        size_t room = b->cap - b->len;
        int n = b->s ? vsnprintf(b->s + b->len, room, fmt, cp) : -2;
        va_end(cp);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        if (n == -1) {
            b->oom = 1;
            return;
        }
        size_t need = b->len + (n > 0 ? (size_t)n : 0) + 1, ncap = b->cap ? b->cap : 65536;
        while (ncap < need)
            ncap *= 2;
        char *ns = realloc(b->s, ncap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
    }
}


void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_xml(sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sb_printf(b, "&amp;"); break;
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        case '\'': sb_printf(b, "&apos;"); break;
        default: sb_printf(b, "%c", *s);
        }
    }
}

void sb_dot(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || (*s == '\\' && s[1] != 'n'))
            sb_printf(b, "\\%c", *s);
        else
            sb_printf(b, "%c", *s);
    }
}

void draw_shorten(char *dst, size_t cap, const char *s, unsigned maxc)
{
    size_t len = strlen(s);
    unsigned nch = 0;
    for (size_t i = 0; i < len; i++)
        nch += ((unsigned char)s[i] & 0xc0) != 0x80;
    if (nch <= maxc || maxc < 3) {
        snprintf(dst, cap, "%s", s);
        return;
    }
    unsigned tail = (maxc - 1) / 2, head = maxc - 1 - tail, c = 0;
    size_t i = 0, o = 0;
    for (; i < len; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == head)
            break;
        if (o + 1 < cap)
            dst[o++] = s[i];
    }
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 */
    for (size_t k = 0; k < 3 && o + 1 < cap; k++)
        dst[o++] = ell[k];
    c = 0;
    size_t j = len;
    while (j > 0 && c < tail) {
        j--;
        c += ((unsigned char)s[j] & 0xc0) != 0x80;
    }
    for (; j < len && o + 1 < cap; j++)
        dst[o++] = s[j];
    dst[o] = '\0';
}
