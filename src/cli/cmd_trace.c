/* topo-sched trace convert-alibaba | convert-dcn | poisson: build a tsched.trace.v1 document
 * (doc/sim-traces.md). A thin wrapper: the options are parsed and the files read here; the
 * checks, the conversion and the document's text are the library's tsched_trace_* calls
 * (include/topo-sched/trace.h), the ones the service and the bindings make. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topo-sched/trace.h"

/* The library's error: one line, with the usage hint when an option is at fault. Option
 * faults are the messages that name one ("--gbits: ..."); an input's name the command line
 * took never starts with "--", but a --model-mix file could, hence `mix`. */
static int fail(tsched_status st, const char *mix)
{
    const char *msg = tsched_last_error();
    if (st == TSCHED_E_NOMEM) {
        fprintf(stderr, "topo-sched: %s\n", msg);
        return CLI_INTERNAL;
    }
    if (strncmp(msg, "--", 2) == 0 && !(mix && strncmp(msg, mix, strlen(mix)) == 0))
        return cli_usage_error("%s", msg);
    fprintf(stderr, "topo-sched: %s\n", msg);
    return CLI_BAD_INPUT;
}

/* What one command line of `trace` holds. */
typedef struct {
    const char *out, *mix_path, *input; /* -o, --model-mix, POD_CSV or DIR */
    const char *sizes, *dspec;          /* checked once the line is read, as always */
    tsched_trace_options o;
} trace_args;

/* The options each subcommand takes (besides -o and --compact), as tsched_trace_options_set
 * names them; "model-mix" is read here. */
static const char *const alibaba_opts[] = {"seed", "model-mix", "gbits", "compute-ms", "gpus-per-node",
                                           "scale-gpus", NULL};
static const char *const dcn_opts[] = {"seed", "compute-ms", "iterations", "arrival-window-s", NULL};
static const char *const poisson_opts[] = {"seed",          "model-mix", "gbits", "compute-ms",
                                           "gpus-per-node", "jobs",      "mean-interarrival-s", "sizes",
                                           "duration-dist", NULL};

static int takes(const char *const *names, const char *name)
{
    for (; *names; names++)
        if (strcmp(*names, name) == 0)
            return 1;
    return 0;
}

/* Parse argv[1..argc) of subcommand `sub` (its name; `what` names its positional argument,
 * NULL for none). Returns CLI_OK or the exit status after the message. */
static int parse(trace_args *a, int argc, char **argv, const char *sub, const char *const *names, const char *what)
{
    memset(a, 0, sizeof *a);
    tsched_trace_options_init(&a->o);
    tsched_status st;
    int dcn = strcmp(sub, "convert-dcn") == 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int has = i + 1 < argc;
        if (dcn && (!strcmp(s, "--model-mix") || !strcmp(s, "--gbits") || !strcmp(s, "--gpus-per-node")))
            return cli_usage_error("trace %s: %s does not apply (the files give the flows)", sub, s);
        if (strcmp(s, "-o") == 0 && has)
            a->out = argv[++i];
        else if (strcmp(s, "--compact") == 0)
            a->o.compact = 1;
        else if (strncmp(s, "--", 2) == 0 && has && takes(names, s + 2)) {
            const char *v = argv[++i];
            if (!strcmp(s, "--model-mix"))
                a->mix_path = v;
            else if (!strcmp(s, "--sizes"))
                a->sizes = v;
            else if (!strcmp(s, "--duration-dist"))
                a->dspec = v;
            else if ((st = tsched_trace_options_set(&a->o, s + 2, v)) != TSCHED_OK)
                return fail(st, NULL);
        } else if (!what || (s[0] == '-' && (s[1] != '\0' || dcn))) /* convert-dcn reads no standard input */
            return cli_usage_error("trace %s: unknown or incomplete option '%s'", sub, s);
        else if (a->input)
            return cli_usage_error("trace %s: one %s expected, got '%s' and '%s'", sub, what, a->input, s);
        else
            a->input = s;
    }
    return CLI_OK;
}

/* Read and check --model-mix when given (before the other input, as always). */
static int load_mix(trace_args *a, char **text)
{
    size_t len;
    *text = NULL;
    if (!a->mix_path)
        return CLI_OK;
    int rc = cli_read_file(a->mix_path, text, &len);
    if (rc != CLI_OK)
        return rc;
    tsched_status st = tsched_trace_mix_check(*text, len, a->mix_path);
    if (st != TSCHED_OK)
        return fail(st, a->mix_path);
    a->o.model_mix = *text;
    a->o.model_mix_len = len;
    a->o.model_mix_name = a->mix_path;
    return CLI_OK;
}

/* Write the document (or report the call's error). */
static int emit(tsched_status st, char *doc, const trace_args *a)
{
    int rc = st == TSCHED_OK ? cli_write(a->out, doc) : fail(st, a->mix_path);
    tsched_free(doc);
    return rc;
}

static int convert_alibaba(int argc, char **argv)
{
    trace_args a;
    int rc = parse(&a, argc, argv, "convert-alibaba", alibaba_opts, "POD_CSV");
    if (rc != CLI_OK)
        return rc;
    if (!a.input)
        return cli_usage_error("trace convert-alibaba: POD_CSV is required");
    if (a.mix_path && strcmp(a.mix_path, "-") == 0 && strcmp(a.input, "-") == 0)
        return cli_usage_error("trace convert-alibaba: at most one '-' (standard input) per command line");
    char *mix, *csv = NULL, *doc = NULL;
    size_t len;
    if ((rc = load_mix(&a, &mix)) == CLI_OK && (rc = cli_read_file(a.input, &csv, &len)) == CLI_OK) {
        tsched_status st = tsched_trace_convert_alibaba(&doc, csv, len, a.input, &a.o);
        rc = emit(st, doc, &a);
    }
    free(csv);
    free(mix);
    return rc;
}

static int convert_dcn(int argc, char **argv)
{
    trace_args a;
    int rc = parse(&a, argc, argv, "convert-dcn", dcn_opts, "DIR");
    if (rc != CLI_OK)
        return rc;
    if (!a.input)
        return cli_usage_error("trace convert-dcn: DIR is required");
    char *doc = NULL;
    tsched_status st = tsched_trace_convert_dcn_dir(&doc, a.input, &a.o);
    return emit(st, doc, &a);
}

static int poisson(int argc, char **argv)
{
    trace_args a;
    int rc = parse(&a, argc, argv, "poisson", poisson_opts, NULL);
    if (rc != CLI_OK)
        return rc;
    if (!a.o.jobs || !a.o.mean_interarrival_s || !a.sizes || !a.dspec)
        return cli_usage_error("trace poisson: --jobs, --mean-interarrival-s, --sizes and --duration-dist are required");
    tsched_status st;
    /* the options first, then the mix file */
    if ((st = tsched_trace_options_set(&a.o, "sizes", a.sizes)) != TSCHED_OK ||
        (st = tsched_trace_options_set(&a.o, "duration-dist", a.dspec)) != TSCHED_OK)
        return fail(st, NULL);
    char *mix, *doc = NULL;
    if ((rc = load_mix(&a, &mix)) == CLI_OK) {
        st = tsched_trace_poisson(&doc, &a.o);
        rc = emit(st, doc, &a);
    }
    free(mix);
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
