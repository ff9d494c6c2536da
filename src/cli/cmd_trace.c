/* topo-sched trace convert-alibaba | convert-dcn | poisson: build a tsched.trace.v1 document
 * (doc/sim-traces.md). The options and the files are read here; the conversion is the
 * library's (src/sim/trace_convert.h and its files, compiled in until they become
 * tsched_trace_* calls). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "../sim/trace_convert.h"

/* The converter's error: one line, with the usage hint when an option is at fault. */
static int conv_fail(tsched_status st, const ts_trace_err *e)
{
    if (st == TSCHED_E_NOMEM) {
        fprintf(stderr, "topo-sched: %s\n", e->msg);
        return CLI_INTERNAL;
    }
    if (e->option)
        return cli_usage_error("%s", e->msg);
    fprintf(stderr, "topo-sched: %s\n", e->msg);
    return CLI_BAD_INPUT;
}

static int emit(json_t *doc, const char *out, int compact)
{
    int rc = cli_write_doc(out, doc, compact);
    json_decref(doc);
    return rc;
}

/* ---------------------------------------------------------------- shared options */

typedef struct {
    const char *out, *mix_path;
    int compact;
    ts_trace_opts o;
    ts_trace_mix *mix;
} common_opts;

/* A finite number (the converter checks its range). */
static int parse_finite(const char *s, double *v)
{
    char *end;
    errno = 0;
    if (!*s)
        return -1;
    *v = ts_strtod(s, &end);
    return errno || *end || !isfinite(*v) ? -1 : 0;
}

/* Options every converter shares; 1 = consumed (i advanced), 0 = not ours, -1 = error. */
static int common_opt(common_opts *c, int argc, char **argv, int *i, int *rc)
{
    const char *a = argv[*i];
    int has = *i + 1 < argc;
    unsigned u;
    ts_trace_err e;
    tsched_status st;
    if (strcmp(a, "-o") == 0 && has)
        c->out = argv[++*i];
    else if (strcmp(a, "--compact") == 0)
        c->compact = 1;
    else if (strcmp(a, "--seed") == 0 && has) {
        if (cli_parse_u64(argv[++*i], &c->o.seed) != 0)
            return *rc = cli_usage_error("--seed: '%s' is not a whole number", argv[*i]), -1;
    } else if (strcmp(a, "--model-mix") == 0 && has)
        c->mix_path = argv[++*i];
    else if (strcmp(a, "--gbits") == 0 && has) {
        if (parse_finite(argv[++*i], &c->o.gbits) != 0)
            c->o.gbits = NAN;
        if ((st = ts_trace_check_gbits(c->o.gbits, argv[*i], &e)) != TSCHED_OK)
            return *rc = conv_fail(st, &e), -1;
    } else if (strcmp(a, "--compute-ms") == 0 && has) {
        if (parse_finite(argv[++*i], &c->o.compute_ms) != 0)
            c->o.compute_ms = NAN;
        if ((st = ts_trace_check_compute_ms(c->o.compute_ms, argv[*i], &e)) != TSCHED_OK)
            return *rc = conv_fail(st, &e), -1;
    } else if (strcmp(a, "--gpus-per-node") == 0 && has) {
        if (cli_parse_u32(argv[++*i], &u) != 0 || u == 0 || u > 65536)
            return *rc = cli_usage_error("--gpus-per-node: '%s' is not a whole number in [1, 65536]", argv[*i]), -1;
        c->o.gpus_per_node = u;
    } else
        return 0;
    return 1;
}

static void common_init(common_opts *c, double compute_ms)
{
    memset(c, 0, sizeof *c);
    ts_trace_opts_init(&c->o, compute_ms);
}

/* Read and parse --model-mix when given. */
static int load_mix(common_opts *c)
{
    if (!c->mix_path)
        return CLI_OK;
    char *text;
    size_t len;
    int rc = cli_read_file(c->mix_path, &text, &len);
    if (rc != CLI_OK)
        return rc;
    ts_trace_err e;
    tsched_status st = ts_trace_mix_parse(&c->mix, text, len, c->mix_path, &e);
    free(text);
    if (st != TSCHED_OK)
        return conv_fail(st, &e);
    c->o.mix = c->mix;
    return CLI_OK;
}

/* ---------------------------------------------------------------- convert-alibaba */

static int convert_alibaba(int argc, char **argv)
{
    common_opts c;
    common_init(&c, 1000);
    const char *csv = NULL;
    unsigned scale = 1;
    int rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        int k = common_opt(&c, argc, argv, &i, &rc);
        if (k < 0)
            return rc;
        if (k)
            continue;
        if (strcmp(argv[i], "--scale-gpus") == 0 && i + 1 < argc) {
            if (cli_parse_u32(argv[++i], &scale) != 0 || scale == 0 || (scale & (scale - 1)) != 0 || scale > 65536)
                return cli_usage_error("--scale-gpus: '%s' is not a power of two in [1, 65536]", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("trace convert-alibaba: unknown or incomplete option '%s'", argv[i]);
        else if (csv)
            return cli_usage_error("trace convert-alibaba: one POD_CSV expected, got '%s' and '%s'", csv, argv[i]);
        else
            csv = argv[i];
    }
    if (!csv)
        return cli_usage_error("trace convert-alibaba: POD_CSV is required");
    if (c.mix_path && strcmp(c.mix_path, "-") == 0 && strcmp(csv, "-") == 0)
        return cli_usage_error("trace convert-alibaba: at most one '-' (standard input) per command line");
    char *text = NULL;
    size_t len;
    json_t *doc = NULL;
    ts_trace_err e;
    if ((rc = load_mix(&c)) == CLI_OK && (rc = cli_read_file(csv, &text, &len)) == CLI_OK) {
        tsched_status st = ts_trace_alibaba(&doc, text, len, csv, scale, &c.o, &e);
        rc = st == TSCHED_OK ? emit(doc, c.out, c.compact) : conv_fail(st, &e);
    }
    free(text);
    ts_trace_mix_free(c.mix);
    return rc;
}

/* ---------------------------------------------------------------- convert-dcn */

/* A job file found in the folder: a regular file only. It is opened without blocking, so a
 * FIFO (or a device) named like a job file is refused at once instead of waiting for a
 * writer. */
static int read_regular(const char *path, char **text, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "topo-sched: %s: cannot open: %s\n", path, strerror(errno));
        return CLI_BAD_INPUT;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        fprintf(stderr, "topo-sched: %s: not a regular file (a job file must be one)\n", path);
        return CLI_BAD_INPUT;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        fprintf(stderr, "topo-sched: %s: cannot open: %s\n", path, strerror(errno));
        return CLI_BAD_INPUT;
    }
    int rc = cli_read_stream(f, path, text, len);
    fclose(f);
    return rc;
}

static int convert_dcn(int argc, char **argv)
{
    common_opts c;
    common_init(&c, 1);
    const char *dir = NULL;
    uint64_t iters = TS_TRACE_DCN_DEFAULT_ITERATIONS;
    double window = TS_TRACE_DCN_DEFAULT_WINDOW_S;
    int rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--model-mix") == 0 || strcmp(a, "--gbits") == 0 || strcmp(a, "--gpus-per-node") == 0)
            return cli_usage_error("trace convert-dcn: %s does not apply (the files give the flows)", a);
        int k = common_opt(&c, argc, argv, &i, &rc);
        if (k < 0)
            return rc;
        if (k)
            continue;
        ts_trace_err e;
        tsched_status st;
        if (strcmp(a, "--iterations") == 0 && i + 1 < argc) {
            if (cli_parse_u64(argv[++i], &iters) != 0)
                iters = 0;
            if ((st = ts_trace_check_iterations(iters, argv[i], &e)) != TSCHED_OK)
                return conv_fail(st, &e);
        } else if (strcmp(a, "--arrival-window-s") == 0 && i + 1 < argc) {
            if (parse_finite(argv[++i], &window) != 0)
                window = NAN;
            if ((st = ts_trace_check_window(window, argv[i], &e)) != TSCHED_OK)
                return conv_fail(st, &e);
        } else if (a[0] == '-')
            return cli_usage_error("trace convert-dcn: unknown or incomplete option '%s'", a);
        else if (dir)
            return cli_usage_error("trace convert-dcn: one DIR expected, got '%s' and '%s'", dir, a);
        else
            dir = a;
    }
    if (!dir)
        return cli_usage_error("trace convert-dcn: DIR is required");
    ts_trace_err e;
    tsched_status st;
    ts_trace_dcn *d = NULL;
    if ((st = ts_trace_dcn_begin(&d, dir, iters, window, &c.o, &e)) != TSCHED_OK)
        return conv_fail(st, &e);
    DIR *dh = opendir(dir);
    if (!dh) {
        ts_trace_dcn_free(d);
        fprintf(stderr, "topo-sched: %s: cannot open the folder: %s\n", dir, strerror(errno));
        return CLI_BAD_INPUT;
    }
    ts_trace_dcn_file *files = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        unsigned long long k;
        if (!ts_trace_dcn_match(de->d_name, &k))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            ts_trace_dcn_file *nf = realloc(files, cap * sizeof *files);
            if (!nf) {
                rc = CLI_INTERNAL;
                break;
            }
            files = nf;
        }
        files[n].k = k;
        if (!(files[n].file = strdup(de->d_name))) {
            rc = CLI_INTERNAL;
            break;
        }
        n++;
    }
    closedir(dh);
    if (rc != CLI_OK)
        fputs("topo-sched: out of memory\n", stderr);
    else if ((st = ts_trace_dcn_order(files, n, dir, &e)) != TSCHED_OK)
        rc = conv_fail(st, &e);
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        size_t pl = strlen(dir) + strlen(files[i].file) + 2;
        char *path = malloc(pl), *text = NULL;
        size_t len;
        if (!path) {
            fputs("topo-sched: out of memory\n", stderr);
            rc = CLI_INTERNAL;
            break;
        }
        snprintf(path, pl, "%s/%s", dir, files[i].file);
        if ((rc = read_regular(path, &text, &len)) == CLI_OK &&
            (st = ts_trace_dcn_add(d, text, len, path, files[i].file, &e)) != TSCHED_OK)
            rc = conv_fail(st, &e);
        free(text);
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(files[i].file);
    free(files);
    if (rc != CLI_OK) {
        ts_trace_dcn_free(d);
        return rc;
    }
    json_t *doc;
    if ((st = ts_trace_dcn_finish(&doc, d, &e)) != TSCHED_OK)
        return conv_fail(st, &e);
    return emit(doc, c.out, c.compact);
}

/* ---------------------------------------------------------------- poisson */

static int poisson(int argc, char **argv)
{
    common_opts c;
    common_init(&c, 1000);
    const char *sizes = NULL, *dspec = NULL;
    unsigned njobs = 0;
    double mean = 0;
    int rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        int k = common_opt(&c, argc, argv, &i, &rc);
        if (k < 0)
            return rc;
        if (k)
            continue;
        if (strcmp(a, "--jobs") == 0 && has) {
            if (cli_parse_u32(argv[++i], &njobs) != 0 || njobs == 0 || njobs > TS_TRACE_MAX_JOBS)
                return cli_usage_error("--jobs: '%s' is not a whole number in [1, %u]", argv[i], TS_TRACE_MAX_JOBS);
        } else if (strcmp(a, "--mean-interarrival-s") == 0 && has) {
            if (cli_parse_double(argv[++i], &mean) != 0 || !(mean > 0) || mean > 9.2e9)
                return cli_usage_error("--mean-interarrival-s: '%s' is not a number in (0, 9.2e9]", argv[i]);
        } else if (strcmp(a, "--sizes") == 0 && has)
            sizes = argv[++i];
        else if (strcmp(a, "--duration-dist") == 0 && has)
            dspec = argv[++i];
        else
            return cli_usage_error("trace poisson: unknown or incomplete option '%s'", a);
    }
    if (!njobs || mean <= 0 || !sizes || !dspec)
        return cli_usage_error("trace poisson: --jobs, --mean-interarrival-s, --sizes and --duration-dist are required");
    ts_trace_err e;
    tsched_status st;
    json_t *doc;
    /* the options first, then the mix file */
    if ((st = ts_trace_poisson_check(sizes, dspec, &e)) != TSCHED_OK)
        return conv_fail(st, &e);
    if ((rc = load_mix(&c)) == CLI_OK) {
        if ((st = ts_trace_poisson(&doc, njobs, mean, sizes, dspec, &c.o, &e)) == TSCHED_OK)
            rc = emit(doc, c.out, c.compact);
        else
            rc = conv_fail(st, &e);
    }
    ts_trace_mix_free(c.mix);
    return rc;
}

static const char trace_usage[] =
    "usage: topo-sched trace convert-alibaba POD_CSV [--scale-gpus K] [--model-mix FILE] [--gpus-per-node N]\n"
    "                        [--seed N] [--gbits X] [--compute-ms C] [--compact] [-o FILE]\n"
    "       topo-sched trace convert-dcn DIR [--seed N] [--compute-ms C] [--iterations I]\n"
    "                        [--arrival-window-s W] [--compact] [-o FILE]\n"
    "       topo-sched trace poisson --jobs N --mean-interarrival-s L --sizes G:W,... --duration-dist D\n"
    "                        [--model-mix FILE] [--gpus-per-node N] [--gbits X] [--compute-ms C] [--seed N]\n"
    "                        [--compact] [-o FILE]\n"
    "       D: fixed:S | exp:MEAN | lognormal:MU,SIGMA.  Writes tsched.trace.v1 (doc/sim-traces.md).\n";

int cmd_trace(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(trace_usage, stdout);
            return CLI_OK;
        }
    if (argc < 2)
        return cli_usage_error("trace: expected convert-alibaba, convert-dcn or poisson");
    if (strcmp(argv[1], "convert-alibaba") == 0)
        return convert_alibaba(argc - 1, argv + 1);
    if (strcmp(argv[1], "convert-dcn") == 0)
        return convert_dcn(argc - 1, argv + 1);
    if (strcmp(argv[1], "poisson") == 0)
        return poisson(argc - 1, argv + 1);
    return cli_usage_error("trace: unknown subcommand '%s' (convert-alibaba, convert-dcn, poisson)", argv[1]);
}
