/* Numbers in the C locale whatever the host's locale is (cnum.h). */
#include "cnum.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Made on first use; a thread that loses the race to publish its copy frees it. */
static _Atomic(locale_t) c_locale;

locale_t ts_c_locale(void)
{
    locale_t c = atomic_load_explicit(&c_locale, memory_order_acquire);
    if (c)
        return c;
    locale_t mine = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!mine)
        return (locale_t)0;
    locale_t expected = (locale_t)0;
    if (atomic_compare_exchange_strong_explicit(&c_locale, &expected, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    freelocale(mine);
    return expected;
}

locale_t ts_c_locale_enter(void)
{
    locale_t c = ts_c_locale();
    return c ? uselocale(c) : (locale_t)0;
}

void ts_c_locale_leave(locale_t old)
{
    if (old)
        uselocale(old);
}

double ts_strtod(const char *s, char **end)
{
    locale_t old = ts_c_locale_enter();
    double d = strtod(s, end);
    ts_c_locale_leave(old);
    return d;
}

int ts_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    locale_t old = ts_c_locale_enter();
    int n = vsnprintf(buf, cap, fmt, ap);
    ts_c_locale_leave(old);
    return n;
}

int ts_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = ts_vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
