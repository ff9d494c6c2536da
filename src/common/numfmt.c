/* Shortest round-trip printing of doubles (design: the least p whose "%.{p}g" reads back),
 * written as plain decimal except for extreme magnitudes (PLAIN_EXP_MIN/MAX below).
 *
 * The library runs inside other people's processes, whose LC_NUMERIC may use ',' (or a
 * multi-byte character) as the decimal point, and setlocale() is not ours to call. So the
 * text is assembled here from the digits and exponent of "%.{n}e", reading only digits,
 * the sign and the exponent (the radix character, whatever it is, is skipped), and the
 * round trip is checked with strtod() on "DIGITSe-N", which has no radix character at all.
 *
 * One snprintf per number: the 17 correctly rounded digits of "%.16e" give the p-digit
 * rounding for every p by rounding the digit string again, except when the digits dropped
 * are exactly "50...0", where rounding twice can differ from rounding once; then snprintf
 * rounds the exact value to p digits itself. (A half-way point h of p-digit rounding has
 * p + 1 <= 17 digits, so if h lay strictly between the value and its 17-digit rounding, h
 * would be the nearer 17-digit number; the two roundings can only disagree when the
 * 17-digit one is h.) */
#include "numfmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits (exactly n) and decimal exponent of "%.{n-1}e" of the finite ax >= 0. */
static void sci(char *dig, int *exp10, double ax, int n)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*e", n - 1, ax);
    const char *p = tmp;
    int k = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && k < n)
            dig[k++] = *p;
    while (k < n) /* not reached with a C99 printf; keeps dig defined */
        dig[k++] = '0';
    *exp10 = *p ? atoi(p + 1) : 0;
}

/* dig[0..p) and exp10 = d17 rounded to p < 17 digits; 0 when the dropped digits are a tie. */
static int reround(char *dig, int *exp10, const char *d17, int e17, int p)
{
    if (d17[p] == '5') {
        int k = p + 1;
        while (k < 17 && d17[k] == '0')
            k++;
        if (k == 17)
            return 0;
    }
    memcpy(dig, d17, (size_t)p);
    *exp10 = e17;
    if (d17[p] >= '5') {
        int k = p - 1;
        while (k >= 0 && dig[k] == '9')
            dig[k--] = '0';
        if (k >= 0) {
            dig[k]++;
        } else { /* 9...9 -> 10...0 */
            dig[0] = '1';
            ++*exp10;
        }
    }
    return 1;
}

/* Does the decimal dig[0..p) x 10^(exp10 - p + 1) read back to the bits of ax? */
static int reads_back(const char *dig, int exp10, int p, double ax)
{
    int k = exp10 - p + 1;
#if FLT_EVAL_METHOD == 0
    /* Clinger's fast path, what strtod does first too: an integer below 2^53 times or over
     * an exact power of ten is one correctly rounded operation. */
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (p <= 16 && k >= -22 && k <= 22) {
        uint64_t d = 0;
        for (int i = 0; i < p; i++)
            d = d * 10 + (uint64_t)(dig[i] - '0');
        if (d <= (UINT64_C(1) << 53)) {
            double y = k >= 0 ? (double)d * pow10[k] : (double)d / pow10[-k];
            return y == ax && signbit(y) == signbit(ax);
        }
    }
#endif
    char tmp[40];
    memcpy(tmp, dig, (size_t)p);
    snprintf(tmp + p, sizeof tmp - (size_t)p, "e%d", k);
    double y = strtod(tmp, NULL);
    uint64_t a, b;
    memcpy(&a, &ax, sizeof a);
    memcpy(&b, &y, sizeof b);
    return a == b;
}

/* Plain decimal for 1e-4 <= |x| < 1e17, the exponent form outside. %g's own rule (exponent
 * when the exponent is at least the precision) printed 400 as "4e+02", which people and
 * integer-minded readers take badly; below 1e17 every double's shortest digits padded with
 * zeros are at most 17 digits before the point (as long as "%.17g" of 2^53 ... 1e17), and
 * the lower bound is %g's (and Python's repr's), so small numbers print as before. */
#define PLAIN_EXP_MIN (-4)
#define PLAIN_EXP_MAX 16

/* The text (C locale) of the p-digit rounding dig x 10^exp10, into out: plain decimal when
 * PLAIN_EXP_MIN <= exp10 <= PLAIN_EXP_MAX (an integer part longer than p digits padded with
 * zeros), else %g's exponent form. */
static size_t as_text(char *out, int neg, const char *dig, int exp10, int p)
{
    size_t n = 0;
    int last = p; /* %g drops trailing zeros of the fraction */
    while (last > 1 && dig[last - 1] == '0')
        last--;
    if (neg)
        out[n++] = '-';
    if (exp10 < PLAIN_EXP_MIN || exp10 > PLAIN_EXP_MAX) {
        out[n++] = dig[0];
        if (last > 1) {
            out[n++] = '.';
            memcpy(out + n, dig + 1, (size_t)(last - 1));
            n += (size_t)(last - 1);
        }
        n += (size_t)sprintf(out + n, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    } else if (exp10 >= p) { /* an integer with fewer significant digits than places */
        memcpy(out + n, dig, (size_t)p);
        n += (size_t)p;
        memset(out + n, '0', (size_t)(exp10 + 1 - p));
        n += (size_t)(exp10 + 1 - p);
    } else if (exp10 >= 0) {
        memcpy(out + n, dig, (size_t)exp10 + 1);
        n += (size_t)exp10 + 1;
        if (last > exp10 + 1) {
            out[n++] = '.';
            memcpy(out + n, dig + exp10 + 1, (size_t)(last - exp10 - 1));
            n += (size_t)(last - exp10 - 1);
        }
    } else {
        out[n++] = '0';
        out[n++] = '.';
        for (int z = -1; z > exp10; z--)
            out[n++] = '0';
        memcpy(out + n, dig, (size_t)last);
        n += (size_t)last;
    }
    out[n] = '\0';
    return n;
}

int ts_fmt_double(char *buf, size_t cap, double x)
{
    char text[TS_FMT_DOUBLE_CAP + 8];
    size_t n;
    if (isnan(x)) {
        n = (size_t)sprintf(text, "%snan", signbit(x) ? "-" : "");
    } else if (isinf(x)) {
        n = (size_t)sprintf(text, "%sinf", x < 0 ? "-" : "");
    } else {
        double ax = fabs(x);
        char d17[17], dig[17];
        int e17, e = 0, p;
        sci(d17, &e17, ax, 17);
        for (p = 1; p < 17; p++) {
            if (!reround(dig, &e, d17, e17, p))
                sci(dig, &e, ax, p);
            if (reads_back(dig, e, p, ax))
                break;
        }
        if (p == 17) { /* 17 significant digits always read back */
            memcpy(dig, d17, sizeof d17);
            e = e17;
        }
        n = as_text(text, signbit(x) != 0, dig, e, p);
        if (!strchr(text, '.') && !strchr(text, 'e')) {
            memcpy(text + n, ".0", 3);
            n += 2;
        }
    }
    if (cap > 0) {
        size_t k = n < cap ? n : cap - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return (int)n;
}
