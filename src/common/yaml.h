/* Internal: a reader for the block subset of YAML that Slurm's topology.yaml and Kubernetes
 * manifests (a Kueue Topology) use, producing a jansson tree so that the JSON field readers
 * serve both. Accepted: block sequences and mappings by indentation (spaces only; a sequence
 * may sit at its key's indentation), plain, single- and double-quoted scalars on one line,
 * flow sequences of scalars on one line (`[4, 16]`), `#` comments, an optional leading `---`
 * and a trailing `...`. Everything else (anchors, aliases, tags, flow mappings, block and
 * multi-line scalars, tabs in indentation, directives, a second document, duplicate keys) is
 * TSCHED_E_PARSE naming the line and the path (`[1].tree.switches[3].nodes`).
 *
 * Plain scalars are typed as YAML 1.2's core schema says, restricted: `~`, `null`, `Null`,
 * `NULL` -> null; `true`/`false` in any case -> booleans; `[-+]?[0-9]+` -> an integer;
 * `[-+]?[0-9]*\.[0-9]+` or `[-+]?[0-9]+\.[0-9]*`, optionally followed by `[eE][-+]?[0-9]+`,
 * -> a real; anything else (also a number beyond 64 bits or a double), every quoted scalar
 * and every key -> a string. The text of a plain scalar read as a number is kept
 * (ts_yaml_scalar_text), so that a field that wants a name may take `switch: 100`. */
#ifndef TS_COMMON_YAML_H
#define TS_COMMON_YAML_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

/* Most nested block collections the reader follows (deeper is TSCHED_E_TOO_LARGE). */
#define TS_YAML_MAX_DEPTH 64

/* Where the nodes of a parsed document came from. */
typedef struct ts_yaml_info ts_yaml_info;

/* Parse `len` bytes (at most the input_bytes limit) into `*out` (the caller frees it with
 * json_decref; an empty document is JSON null). `info` may be NULL; otherwise `*info`
 * receives the lines of the document's nodes (free with ts_yaml_info_free). On error both
 * are NULL and the message reads `line N: PATH: what`. */
tsched_status ts_yaml_parse(json_t **out, ts_yaml_info **info, const char *text, size_t len);

/* 1-based line where `v` starts, or 0 when unknown (NULL info, a value not from this
 * document, or the shared true/false/null values of jansson, which have no identity). */
size_t ts_yaml_line(const ts_yaml_info *info, const json_t *v);

/* The source text of a plain scalar that was read as a number, else NULL. */
const char *ts_yaml_scalar_text(const ts_yaml_info *info, const json_t *v);

void ts_yaml_info_free(ts_yaml_info *info);

/* Append one step to the field path `buf` (capacity cap, NUL-terminated, may be empty):
 * `.key` (no dot at the start) when key is made of [A-Za-z0-9_-] only, else
 * `["key"]` with the key quoted for one-line messages; an index is `[i]`. Cut short with
 * "..." when it does not fit. */
void ts_path_key(char *buf, size_t cap, const char *key);
void ts_path_index(char *buf, size_t cap, size_t index);

#endif
