/* Compact layout by a lexical pass: the writers that build their indented text by hand
 * (flows, levels, placement, ...) and the command line get `--compact` without parsing a
 * document back, so every number and string keeps the exact text its writer chose. */
#include "json_compact.h"

size_t ts_json_compact_text(char *text)
{
    size_t o = 0;
    int in_string = 0;
    for (size_t i = 0; text[i]; i++) {
        char c = text[i];
        if (in_string) {
            text[o++] = c;
            if (c == '\\' && text[i + 1])
                text[o++] = text[++i]; /* an escaped quote does not end the string */
            else if (c == '"')
                in_string = 0;
        } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            text[o++] = c;
            in_string = c == '"';
        }
    }
    text[o] = '\0';
    return o;
}
