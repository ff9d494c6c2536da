/* Internal to the trace converters (trace_convert.c and its sibling files): what they share.
 * Each converter is a file of its own: trace_mix.c (the tsched.model-mix.v1 document),
 * trace_alibaba.c, trace_dcn.c, trace_poisson.c; trace_convert.c holds the errors, numbers,
 * names and option checks they all use; trace_api.c, the public calls over them. */
#ifndef TS_SIM_TRACE_CONVERT_INTERNAL_H
#define TS_SIM_TRACE_CONVERT_INTERNAL_H

#include "trace_convert.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cnum.h"
#include "../common/rng.h"
#include "../common/text.h"
#include "trace_ranges.h"

#define TRACE_FORMAT "tsched.trace.v1"
#define MIX_FORMAT "tsched.model-mix.v1"
#define NAME_MAX_BYTES 255

/* A set of names, open addressing (FNV-1a); keeps pointers to the caller's strings. */
typedef struct {
    const char **slot;
    size_t cap;
} name_set;

typedef struct {
    json_t *src; /* models[i] of the document (borrowed) */
    unsigned tp, pp;
    int has_tp, has_pp;
} mix_model;

tsched_status ts_tc_fail(ts_trace_err *e, tsched_status st, const char *fmt, ...);
tsched_status ts_tc_opt_fail(ts_trace_err *e, const char *fmt, ...);
tsched_status ts_tc_nomem(ts_trace_err *e);
tsched_status ts_tc_no_nul(const char *text, size_t len, const char *name, ts_trace_err *e);
double ts_tc_rng_uniform(ts_rng *r);
double ts_tc_rng_exp(ts_rng *r, double mean);
double ts_tc_rng_normal(ts_rng *r);
size_t ts_tc_rng_pick(ts_rng *r, const double *w, size_t n, double total);
int ts_tc_parse_u64(const char *s, uint64_t *out);
int ts_tc_parse_real(const char *s, double *v);
json_t *ts_tc_num(double v);
int ts_tc_set(json_t *obj, const char *key, json_t *v);
json_t *ts_tc_new_trace(const char *name);
void ts_tc_make_name(char *out, size_t max, const char *prefix, const char *raw);
int ts_tc_name_set_init(name_set *ns, size_t n);
int ts_tc_name_set_has(const name_set *ns, const char *s);
void ts_tc_name_set_add(name_set *ns, const char *s);
int ts_tc_model_head(json_t *job, const ts_trace_opts *o, ts_rng *r, uint64_t gpus, const mix_model **chosen);
int ts_tc_model_tail(json_t *job, const ts_trace_opts *o, const mix_model *m);
int ts_tc_time_ok(double v, int duration);
tsched_status ts_tc_time_error(ts_trace_err *err, const char *opt, unsigned job, double v, int duration);
char *ts_tc_trim(char *s);

#endif
