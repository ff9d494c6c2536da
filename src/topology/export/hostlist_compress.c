/* Hostlist compression (see hostlist_compress.h). */
#include "hostlist_compress.h"

#include <string.h>

#include "../../common/text.h"
#include "../import/hostlist.h"

typedef struct hc_name {
    size_t plen;    /* prefix bytes */
    size_t dlen;    /* trailing digits, 0 when the name is written as it is */
    uint64_t value; /* the digits' value */
} hc_name;

static void split(hc_name *h, const char *s)
{
    size_t len = strlen(s), d = len;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    h->plen = d;
    h->dlen = len - d;
    h->value = 0;
    /* An all-digit name, or too many digits to read back: no group. */
    if (h->plen == 0 || h->dlen == 0 || h->dlen > TS_HOSTLIST_MAX_DIGITS) {
        h->plen = len;
        h->dlen = 0;
        return;
    }
    for (size_t i = d; i < len; i++)
        h->value = h->value * 10 + (uint64_t)(s[i] - '0');
}

/* Digits written without zero padding: a range starting there prints every later value
 * the same way, whatever its width ("[8-10]" is 8 9 10). */
static int natural(const char *digits, size_t n) { return n == 1 || digits[0] != '0'; }

static tsched_status check(const char *name, const char *what)
{
    if (!name || !*name)
        return ts_error(TSCHED_E_FORMAT, "%s: an empty name cannot be written in a hostlist", what);
    if (strpbrk(name, ",[] \t\r\n\v\f")) {
        char q[TS_TEXT_QUOTE_CAP(80)];
        return ts_error(TSCHED_E_FORMAT,
                        "%s: name %s holds ',', '[', ']' or a blank, which a hostlist cannot carry", what,
                        ts_text_quote(q, sizeof q, name, strlen(name), 80));
    }
    return TSCHED_OK;
}

static int same_prefix(const char *a, const hc_name *ha, const char *b, const hc_name *hb)
{
    return hb->dlen > 0 && ha->plen == hb->plen && memcmp(a, b, ha->plen) == 0;
}

tsched_status ts_hostlist_compress(ts_sbuf *out, const char *const *names, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        tsched_status st = check(names[i], what);
        if (st != TSCHED_OK)
            return st;
    }
    size_t i = 0;
    int first = 1;
    while (i < n) {
        hc_name hi;
        split(&hi, names[i]);
        if (!first)
            ts_sbuf_putc(out, ',');
        first = 0;
        size_t j = i + 1;
        if (hi.dlen > 0) {
            hc_name hj;
            while (j < n && (split(&hj, names[j]), same_prefix(names[i], &hi, names[j], &hj)))
                j++;
        }
        if (j == i + 1) {
            ts_sbuf_puts(out, names[i]);
            i++;
            continue;
        }
        ts_sbuf_putn(out, names[i], hi.plen);
        ts_sbuf_putc(out, '[');
        size_t k = i;
        while (k < j) {
            hc_name hk, hm, prev;
            split(&hk, names[k]);
            prev = hk;
            size_t m = k + 1;
            while (m < j && (split(&hm, names[m]), prev.value != UINT64_MAX && hm.value == prev.value + 1 &&
                                                       (hm.dlen == hk.dlen || (natural(names[k] + hk.plen, hk.dlen) &&
                                                                               natural(names[m] + hm.plen, hm.dlen))))) {
                prev = hm;
                m++;
            }
            if (k > i)
                ts_sbuf_putc(out, ',');
            ts_sbuf_puts(out, names[k] + hk.plen);
            if (m - k > 1) {
                ts_sbuf_putc(out, '-');
                ts_sbuf_puts(out, names[m - 1] + hk.plen);
            }
            k = m;
        }
        ts_sbuf_putc(out, ']');
        i = j;
    }
    return TSCHED_OK;
}
