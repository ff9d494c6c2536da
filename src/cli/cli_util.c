#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "../common/json_compact.h"
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

/* ---- outputs: checked before the run, replaced only on success ------------------------
 *
 * Every file a command writes goes through here. cli_outs_add() runs before the work: it
 * creates a temporary file next to the output (".NAME.XXXXXX" in the same directory, so the
 * final rename stays on one file system), which proves the output can be written; an
 * unwritable path fails at once with exit status 2. The text goes into the temporary file,
 * and cli_outs_end() renames every written temporary file over its output only when the
 * command succeeded; otherwise the temporary files are removed and every existing output is
 * left as it was. A path that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) cannot be replaced by a rename: it is checked for write access up front and
 * written in place. A symbolic link is followed: its target is replaced (a link to nothing is
 * written through, creating its target). */

static int out_error(const char *path, const char *what, int err)
{
    fprintf(stderr, "topo-sched: %s: %s: %s\n", path, what, strerror(err));
    return CLI_BAD_INPUT;
}

void cli_outs_init(cli_outs *g) { memset(g, 0, sizeof *g); }

int cli_outs_add(cli_outs *g, const char *path)
{
    if (g->n >= CLI_MAX_OUTPUTS) {
        fprintf(stderr, "topo-sched: more than %d output files\n", CLI_MAX_OUTPUTS);
        return CLI_INTERNAL;
    }
    cli_out *o = &g->o[g->n];
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!path || strcmp(path, "-") == 0) {
        o->kind = CLI_OUT_STDOUT;
        g->n++;
        return CLI_OK;
    }
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT)
        return out_error(path, "cannot open for writing", errno);
    if (exists && S_ISDIR(sb.st_mode))
        return out_error(path, "cannot open for writing", EISDIR);
    if (exists && access(path, W_OK) != 0)
        return out_error(path, "cannot open for writing", errno);
    struct stat lb;
    if ((exists && !S_ISREG(sb.st_mode)) || (!exists && lstat(path, &lb) == 0)) {
        /* not a regular file, or a symbolic link to nothing yet: written through, as fopen */
        o->kind = CLI_OUT_IN_PLACE;
        g->n++;
        return CLI_OK;
    }
    if (path[strlen(path) - 1] == '/')
        return out_error(path, "cannot open for writing", EISDIR);
    char *target = exists && lstat(path, &lb) == 0 && S_ISLNK(lb.st_mode) ? realpath(path, NULL) : strdup(path);
    if (!target)
        return out_error(path, "cannot open for writing", errno);
    const char *slash = strrchr(target, '/');
    size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    char *tmp = malloc(dlen + strlen(base) + 10);
    if (!tmp) {
        free(target);
        fputs("topo-sched: out of memory\n", stderr);
        return CLI_INTERNAL;
    }
    sprintf(tmp, "%.*s.%s.XXXXXX", (int)dlen, target, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(target);
        return out_error(path, "cannot open for writing", e);
    }
    /* the mode a plain fopen(path, "w") would have given: the existing file's, or 0666
     * less the umask */
    mode_t mode = exists ? sb.st_mode & 07777 : 0;
    if (!exists) {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    FILE *f = fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        free(target);
        return out_error(path, "cannot open for writing", e);
    }
    o->kind = CLI_OUT_TEMP;
    o->target = target;
    o->tmp = tmp;
    o->f = f;
    g->n++;
    return CLI_OK;
}

/* The first output of `g` for `path` not yet written. */
static cli_out *out_find(cli_outs *g, const char *path)
{
    int std = !path || strcmp(path, "-") == 0;
    for (int i = 0; i < g->n; i++) {
        cli_out *o = &g->o[i];
        if (o->state == 0 && (std ? o->kind == CLI_OUT_STDOUT : o->path && strcmp(o->path, path) == 0))
            return o;
    }
    return NULL;
}

FILE *cli_outs_file(cli_outs *g, const char *path)
{
    cli_out *o = out_find(g, path);
    if (!o) { /* a command that did not add the output first */
        fprintf(stderr, "topo-sched: %s: not an output of this command\n", path ? path : "<stdout>");
        return NULL;
    }
    if (o->kind == CLI_OUT_STDOUT)
        o->f = stdout;
    else if (o->kind == CLI_OUT_IN_PLACE && !(o->f = fopen(o->path, "w"))) {
        out_error(o->path, "cannot open for writing", errno);
        o->state = 2;
        return NULL;
    }
    o->state = 1;
    return o->f;
}

int cli_outs_close(cli_outs *g, FILE *f, int failed)
{
    for (int i = 0; i < g->n; i++) {
        cli_out *o = &g->o[i];
        if (o->state != 1 || o->f != f)
            continue;
        int bad = o->kind == CLI_OUT_STDOUT ? fflush(f) != 0 : fclose(f) != 0;
        o->f = NULL;
        o->state = failed || bad ? 2 : 3;
        if (bad && !failed) {
            fprintf(stderr, "topo-sched: %s: write failed\n", o->kind == CLI_OUT_STDOUT ? "<stdout>" : o->path);
            return CLI_INTERNAL;
        }
        return CLI_OK;
    }
    return CLI_INTERNAL;
}

int cli_outs_write(cli_outs *g, const char *path, const char *text, int newline)
{
    FILE *f = cli_outs_file(g, path);
    if (!f)
        return CLI_BAD_INPUT;
    if (fputs(text, f) == EOF || (newline && fputc('\n', f) == EOF)) {
        cli_outs_close(g, f, 1);
        fprintf(stderr, "topo-sched: %s: write failed\n", !path || strcmp(path, "-") == 0 ? "<stdout>" : path);
        return CLI_INTERNAL;
    }
    return cli_outs_close(g, f, 0);
}

int cli_outs_write_json(cli_outs *g, const char *path, const char *json, int compact)
{
    if (!compact)
        return cli_outs_write(g, path, json, 1);
    /* the library's indented text on one line, by a lexical pass: nothing is parsed back,
     * every token keeps its text (the same bytes as tsched_output_opts.compact) */
    size_t n = strlen(json) + 1;
    char *text = malloc(n);
    if (text)
        memcpy(text, json, n);
    if (!text) {
        fputs("topo-sched: out of memory writing the output\n", stderr);
        return CLI_INTERNAL;
    }
    ts_json_compact_text(text);
    int rc = cli_outs_write(g, path, text, 1);
    free(text);
    return rc;
}

int cli_outs_end(cli_outs *g, int rc)
{
    for (int i = 0; i < g->n; i++) {
        cli_out *o = &g->o[i];
        if (o->kind == CLI_OUT_IN_PLACE && o->f)
            fclose(o->f);
        if (o->kind != CLI_OUT_TEMP)
            continue;
        if (o->f)
            fclose(o->f);
        o->f = NULL;
        if (rc == CLI_OK && o->state == 3 && rename(o->tmp, o->target) != 0) {
            fprintf(stderr, "topo-sched: %s: cannot replace: %s\n", o->path, strerror(errno));
            rc = CLI_INTERNAL;
        }
        if (rc != CLI_OK || o->state != 3)
            unlink(o->tmp);
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
    }
    g->n = 0;
    return rc;
}

int cli_output_check(const char *path)
{
    cli_outs g;
    cli_outs_init(&g);
    int rc = cli_outs_add(&g, path);
    cli_outs_end(&g, CLI_BAD_INPUT); /* nothing written: the temporary file goes */
    return rc;
}

static int write_text(const char *path, const char *text, int newline)
{
    cli_outs g;
    cli_outs_init(&g);
    int rc = cli_outs_add(&g, path);
    if (rc == CLI_OK)
        rc = cli_outs_write(&g, path, text, newline);
    return cli_outs_end(&g, rc);
}

int cli_write(const char *path, const char *text) { return write_text(path, text, 1); }

int cli_write_raw(const char *path, const char *text) { return write_text(path, text, 0); }

int cli_write_json(const char *path, const char *json, int compact)
{
    cli_outs g;
    cli_outs_init(&g);
    int rc = cli_outs_add(&g, path);
    if (rc == CLI_OK)
        rc = cli_outs_write_json(&g, path, json, compact);
    return cli_outs_end(&g, rc);
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
