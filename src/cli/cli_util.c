#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../common/json_write.h"
#include "../common/readall.h"
#include "cli.h"

int cli_fail(tsched_status st)
{
    fprintf(stderr, "topo-sched: %s\n", tsched_last_error());
    return cli_fail_status(st);
}

int cli_fail_status(tsched_status st)
{
    switch (st) {
    case TSCHED_OK: return CLI_OK;
    case TSCHED_E_INFEASIBLE:
    case TSCHED_E_NO_PATH: return CLI_INFEASIBLE;
    case TSCHED_E_NOMEM:
    case TSCHED_E_SOLVER:
    case TSCHED_E_TIMEOUT:
    case TSCHED_E_INTERNAL: return CLI_INTERNAL;
    default: return CLI_BAD_INPUT;
    }
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("topo-sched: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see 'topo-sched --help')\n", stderr);
    va_end(ap);
    return CLI_BAD_INPUT;
}

static int write_text(const char *path, const char *text, int newline)
{
    int to_stdout = !path || strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "topo-sched: %s: cannot open for writing: %s\n", path, strerror(errno));
        return CLI_BAD_INPUT;
    }
    int bad = fputs(text, f) == EOF || (newline && fputc('\n', f) == EOF);
    bad |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "topo-sched: %s: write failed\n", to_stdout ? "<stdout>" : path);
        return CLI_INTERNAL;
    }
    return CLI_OK;
}

int cli_write(const char *path, const char *text) { return write_text(path, text, 1); }

int cli_write_raw(const char *path, const char *text) { return write_text(path, text, 0); }

int cli_write_doc(const char *path, const json_t *doc, int compact)
{
    char *text = ts_json_write(doc, compact ? TS_JSON_COMPACT : TS_JSON_INDENT, NULL);
    if (!text) {
        fputs("topo-sched: out of memory writing the output\n", stderr);
        return CLI_INTERNAL;
    }
    int rc = cli_write(path, text);
    free(text);
    return rc;
}

int cli_write_json(const char *path, const char *json, int compact)
{
    if (!compact)
        return cli_write(path, json);
    json_error_t err;
    json_t *doc = json_loads(json, 0, &err);
    if (!doc) {
        fprintf(stderr, "topo-sched: the library's document did not parse: %s\n", err.text);
        return CLI_INTERNAL;
    }
    int rc = cli_write_doc(path, doc, 1);
    json_decref(doc);
    return rc;
}

int cli_emit(tsched_status st, char *json, const char *path) { return cli_emit_doc(st, json, path, 0); }

int cli_emit_doc(tsched_status st, char *json, const char *path, int compact)
{
    if (st != TSCHED_OK)
        return cli_fail(st);
    int rc = cli_write_json(path, json, compact);
    tsched_free(json);
    return rc;
}

int cli_parse_u32(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > 0xffffffffUL)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return -1;
    double v = ts_strtod(s, &end);
    if (errno || *end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

int cli_read_file(const char *path, char **buf, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "topo-sched: %s: cannot open: %s\n", path, strerror(errno));
        return CLI_BAD_INPUT;
    }
    int rc = cli_read_stream(f, is_stdin ? "<stdin>" : path, buf, len);
    if (!is_stdin)
        fclose(f);
    return rc;
}

int cli_read_stream(FILE *f, const char *shown, char **buf, size_t *len)
{
    tsched_limits lim = {.size = sizeof lim};
    tsched_limits_get(&lim);
    /* the library's bounded reader (src/common/readall.c): stops at the first NUL byte */
    switch (ts_read_stream(f, lim.input_bytes, buf, len)) {
    case TS_READ_OK: return CLI_OK;
    case TS_READ_NUL:
        fprintf(stderr, "topo-sched: %s: byte %zu is a NUL byte; expected a text document\n", shown, *len);
        return CLI_BAD_INPUT;
    case TS_READ_TOO_LARGE:
        fprintf(stderr, "topo-sched: %s: more than %llu bytes: exceeds the limit input_bytes = %llu\n", shown,
                (unsigned long long)lim.input_bytes, (unsigned long long)lim.input_bytes);
        return CLI_BAD_INPUT;
    case TS_READ_IO:
        fprintf(stderr, "topo-sched: %s: read error\n", shown);
        return CLI_BAD_INPUT;
    default:
        fprintf(stderr, "topo-sched: %s: out of memory\n", shown);
        return CLI_INTERNAL;
    }
}

int cli_fail_in(tsched_status st, const char *where)
{
    fprintf(stderr, "topo-sched: %s: %s\n", where, tsched_last_error());
    return cli_fail_status(st);
}
