/* Internal: a JSON text laid out on one line without parsing it. */
#ifndef TS_COMMON_JSON_COMPACT_H
#define TS_COMMON_JSON_COMPACT_H

#include <stddef.h>

/* Remove, in place, the whitespace outside strings of the NUL-terminated JSON `text`; return
 * its new length. For the library's own indented documents this is exactly the compact layout
 * of ts_json_write() (separators "," and ":" without spaces), and every token keeps its text. */
size_t ts_json_compact_text(char *text);

#endif
