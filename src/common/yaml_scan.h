/* The YAML subset reader's shared state, between its line and scalar scanner (yaml_scan.c)
 * and its structure parser (yaml.c); nothing outside those two files includes it. */
#ifndef TS_YAML_SCAN_H
#define TS_YAML_SCAN_H

#include <stddef.h>

#include "error.h"
#include "yaml.h"

#define Y_QUOTE 60

typedef struct yline {
    size_t off, end; /* the line's bytes [off, end), without "\r\n" */
    size_t indent;   /* leading spaces */
    size_t no;       /* 1-based line number */
} yline;

typedef struct yframe {
    char *key; /* NULL: an index */
    size_t index;
} yframe;

typedef struct yrec {
    const json_t *v;
    size_t line;
    char *raw; /* plain scalar read as a number: its text */
} yrec;

struct ts_yaml_info {
    yrec *rec;
    size_t n, cap;
};

typedef struct yp {
    const char *t;
    yline *ln;
    size_t nln, ln_cap;
    size_t cur; /* first content line not consumed yet */
    yframe path[TS_YAML_MAX_DEPTH];
    size_t depth;
    ts_yaml_info *info;
    char *buf; /* the scalar being decoded */
    size_t len, cap;
} yp;

static inline int ts_yp_blank(char c) { return c == ' ' || c == '\t'; }

tsched_status ts_yp_yerr(const yp *p, tsched_status st, size_t line, const char *fmt, ...) TS_PRINTF(4, 5);
tsched_status ts_yp_split_lines(yp *p, const char *t, size_t len);
tsched_status ts_yp_put(yp *p, const char *s, size_t n);
tsched_status ts_yp_scan_double(yp *p, const yline *L, size_t i, size_t *next);
tsched_status ts_yp_scan_single(yp *p, const yline *L, size_t i, size_t *next);
void ts_yp_scan_plain(const yp *p, const yline *L, size_t i, int flow, size_t *s, size_t *e, size_t *stop);
const char *ts_yp_bad_start(const yp *p, const yline *L, size_t i);
tsched_status ts_yp_record(yp *p, const json_t *v, size_t line, const char *raw, size_t rawlen);
tsched_status ts_yp_resolve_plain(yp *p, const char *s, size_t n, size_t line, json_t **out);
tsched_status ts_yp_new_string(yp *p, size_t line, json_t **out);
size_t ts_yp_skip_blank(const yp *p, const yline *L, size_t i);
tsched_status ts_yp_line_rest(yp *p, const yline *L, size_t i);

#endif
