#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_fail(tsched_status st)
{
    fprintf(stderr, "topo-sched: %s\n", tsched_last_error());
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

int cli_emit(tsched_status st, char *json, const char *path)
{
    if (st != TSCHED_OK)
        return cli_fail(st);
    int rc = cli_write(path, json);
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
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}
