/* Internal: the one bounded reader of text inputs. It stops at the first NUL byte (a text
 * document never holds one: `-t /dev/zero` is refused after one read, not after input_bytes)
 * and as soon as the input is longer than the limit. State-free (libc only): the library's
 * loaders (ts_read_file, json.h) and the command line (compiled in) share it. */
#ifndef TS_COMMON_READALL_H
#define TS_COMMON_READALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum ts_read_result {
    TS_READ_OK = 0,
    TS_READ_NUL,       /* a NUL byte at offset *len */
    TS_READ_TOO_LARGE, /* more than max bytes */
    TS_READ_IO,        /* ferror() */
    TS_READ_NOMEM
} ts_read_result;

/* Read f to its end into a NUL-terminated buffer (*out, free()) of *len bytes, never holding
 * more than max + 1 bytes of input nor reading past the chunk that holds a NUL. On any result
 * but TS_READ_OK, *out is NULL (for TS_READ_NUL, *len is the NUL's offset). */
ts_read_result ts_read_stream(FILE *f, uint64_t max, char **out, size_t *len);

#endif
