/* Internal: numbers parsed and printed in the C locale, whatever the host did.
 *
 * The library runs inside other programs, which may call setlocale(LC_ALL, "de_DE.UTF-8")
 * (',' as the decimal point) or even a locale whose decimal point is several bytes. Every
 * text the library reads or writes (documents, requests, messages) spells numbers the C
 * way, so parsing and formatting go through these helpers: they switch the calling thread
 * to a process-wide C locale (uselocale(), per thread, so other threads and the host's
 * global locale are untouched) around the libc call and switch back. Self-contained (libc
 * only) so the command line can compile it in as well. */
#ifndef TS_COMMON_CNUM_H
#define TS_COMMON_CNUM_H

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>

/* The C locale object, made once per process; (locale_t)0 only if it could not be made
 * (out of memory), and then the helpers use the thread's locale as it is. */
locale_t ts_c_locale(void);

/* Switch the calling thread to the C locale; returns what to give ts_c_locale_leave(). */
locale_t ts_c_locale_enter(void);
void ts_c_locale_leave(locale_t old);

/* strtod() in the C locale: "0.3" is 0.3 and "0,3" stops at the ','. */
double ts_strtod(const char *s, char **end);

/* vsnprintf() / snprintf() in the C locale: %g of 9.2e9 is "9.2e+09", never "9,2e+09". */
int ts_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
int ts_snprintf(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
