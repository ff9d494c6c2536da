/* Internal: text that comes from the input, made safe to quote in one-line messages:
 * control characters, C1 controls, U+2028/2029 and invalid UTF-8 are escaped (\n, \xNN). */
#ifndef TS_COMMON_TEXT_H
#define TS_COMMON_TEXT_H

#include <stddef.h>

/* Length of the character at s (1 to 4 bytes, at most len) if it is valid UTF-8 and not a
 * control character (C0, DEL, C1, U+2028, U+2029); 0 otherwise. Names and quoted input
 * must pass this so that a message never breaks its line. */
size_t ts_text_char(const char *s, size_t len);

/* Bytes a quoted text may take: ts_text_quote() of at most `max_in` input bytes. */
#define TS_TEXT_QUOTE_CAP(max_in) (4 * (size_t)(max_in) + 8)

/* Write at most the first `max_in` bytes of s[0..len) into dst as one line between double
 * quotes: '"' and '\' are escaped with a backslash, \n \r \t stand for themselves, any
 * other control character or invalid UTF-8 byte becomes \xNN; a text cut short ends in
 * "...". cap must be at least TS_TEXT_QUOTE_CAP(max_in). Returns dst. */
const char *ts_text_quote(char *dst, size_t cap, const char *s, size_t len, size_t max_in);

/* Copy the NUL-terminated s into dst (capacity cap > 0) with control characters and invalid
 * UTF-8 escaped as in ts_text_quote() (quotes and backslashes are kept as they are), cut at
 * a character boundary if it does not fit. Returns nonzero if anything was escaped. */
int ts_text_one_line(char *dst, size_t cap, const char *s);

#endif
