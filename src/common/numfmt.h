/* Internal: the one printer of doubles for every document the project writes (JSON, CSV).
 * Self-contained (libc only) so the command line can compile it in as well. */
#ifndef TS_COMMON_NUMFMT_H
#define TS_COMMON_NUMFMT_H

#include <stddef.h>

/* Enough for any output of ts_fmt_double(), NUL included ("-1.2345678901234567e-308"). */
#define TS_FMT_DOUBLE_CAP 32

/* The shortest decimal that reads back to the same double: the digits of "%.{p}g" in the C
 * locale for the least p in 1..17 whose text strtod() turns back into the same bits, written
 * plain when 1e-4 <= |x| < 1e17 (zeros padding an integer part longer than p: 400.0, not
 * %g's 4e+02) and in %g's exponent form outside (1e-05, 1e+17), with ".0" appended when the
 * text has no '.', 'e', "inf" or "nan" (so a real stays a real: 100.0, 1e+22, 0.3,
 * 1.2999999999999998, -0.0). Independent of the process locale and of setlocale(). Writes
 * at most `cap` bytes (NUL-terminated when cap > 0) and returns the length of the whole
 * text, as snprintf does. */
int ts_fmt_double(char *buf, size_t cap, double x);

#endif
