/* Internal: write a jansson value as block YAML (the writers of the Kubernetes and Slurm
 * exports build each document as a JSON value and print it through here, so the YAML and
 * the JSON forms hold the same data). Mappings keep their insertion order; an array of
 * integers is written in flow style (`[4, 8]`); a string is plain when no YAML reader can
 * take it for anything but that string, else double-quoted. */
#ifndef TS_COMMON_YAML_EMIT_H
#define TS_COMMON_YAML_EMIT_H

#include <jansson.h>

#include "sbuf.h"

/* Append `v` (an object or an array) at indentation 0. `indent_seq`: a sequence that is
 * the value of a key is indented under it by two spaces (Slurm's style) rather than
 * written at the key's indentation (kubectl's style). */
void ts_yaml_emit(ts_sbuf *b, const json_t *v, int indent_seq);
/* Append one scalar string, plain or double-quoted. */
void ts_yaml_scalar(ts_sbuf *b, const char *s);

#endif
