/* The output options every `*_opts` JSON writer takes (common.h): read once here, so that
 * the size rule and the defaults are the same for all of them. */
#include "output_opts.h"

#include <string.h>

#include "json.h"
#include "json_compact.h"
#include "structsize.h"

void tsched_output_opts_init(tsched_output_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->timing = 1;
}

tsched_status ts_output_opts_in(tsched_output_opts *dst, const tsched_output_opts *src, const char *fn)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_output_opts, size),
        TS_SPAN(tsched_output_opts, compact),
        TS_SPAN(tsched_output_opts, timing),
    };
    tsched_output_opts_init(dst);
    if (!src)
        return TSCHED_OK;
    tsched_status st = ts_struct_in(dst, src, spans, TS_NSPANS(spans), sizeof *dst, "tsched_output_opts");
    return st == TSCHED_OK ? st : ts_error_prefix(st, fn);
}

tsched_status ts_json_dump_opts(char **out, const json_t *doc, const tsched_output_opts *o)
{
    return ts_json_dumps(out, doc, o->compact ? TS_JSON_COMPACT : TS_JSON_INDENT);
}

tsched_status ts_output_finish(char **out, tsched_status st, const tsched_output_opts *o)
{
    if (st == TSCHED_OK && o->compact && *out)
        ts_json_compact_text(*out);
    return st;
}
