/* topo-sched trace convert-alibaba | convert-dcn | poisson: build a tsched.trace.v1 document
 * (doc/sim-traces.md). A thin wrapper: the options are parsed and the files read here; the
 * checks, the conversion and the document's text are the library's tsched_trace_* calls
 * (include/topo-sched/trace.h), the ones the service and the bindings make. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"
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
    int compute_given;                  /* --compute-ms typed; until then 0, the converter's default */
    tsched_trace_options o;
} trace_args;

static void trace_init(void *v)
{
    trace_args *a = v;
    memset(a, 0, sizeof *a);
    tsched_trace_options_init(&a->o);
}

/* An option of tsched_trace_options_set, read and checked by the library as the line is read. */
static int trace_set(void *vals, const cli_opt *o, const char *v)
{
    tsched_status st = tsched_trace_options_set(&((trace_args *)vals)->o, o->lng + 2, v);
    return st != TSCHED_OK ? fail(st, NULL) : CLI_OK;
}

/* The rows; a library option's type and range are the ones tsched_trace_options_set checks
 * (tests/test_options.c holds the two to each other). */
#define S trace_args
#define LIB(name, f, t) .lng = name, .type = t, .call = trace_set, .svc = 'x', .off = CLI_OFF(S, o.f)
#define ROW_SEED(text) {LIB("--seed", seed, CLI_OPT_UINT), .flags = CLI_OPT_U64, .arg = "N", .dflt = "1", .help = text}
#define ROW_COMPUTE(text, d)                                                                               \
    {LIB("--compute-ms", compute_ms, CLI_OPT_DOUBLE), .min = 5e-7, .max = 9.2e12,                           \
     .given = CLI_GIVEN(S, compute_given), .arg = "C", .dflt = d, .help = text}
#define ROWS_MODEL                                                                                          \
    {.lng = "--model-mix", .type = CLI_OPT_FILE, .flags = CLI_OPT_NO_SERVICE, .off = CLI_OFF(S, mix_path),   \
     .arg = "FILE", .dflt = "none", .help = "tsched.model-mix.v1: one model drawn per job"},                 \
        {LIB("--gpus-per-node", gpus_per_node, CLI_OPT_UINT), .umin = 1, .umax = 65536, .arg = "N",          \
         .dflt = "8", .help = "node size assumed for a drawn model, 1 to 65536"},                            \
        {LIB("--gbits", gbits, CLI_OPT_DOUBLE), .flags = CLI_OPT_MIN_OPEN, .min = 0, .max = INFINITY,        \
         .arg = "X", .dflt = "1", .help = "Gbit per flow of the one dp-ring phase without a model"}
#define ROW_REFUSED(name)                                                                                   \
    {.lng = name, .type = CLI_OPT_STRING, .flags = CLI_OPT_REFUSED, .err = "does not apply (the files give the flows)"}

static const cli_opt alibaba_opts[] = {
    {.type = CLI_OPT_POS, .off = CLI_OFF(S, input), .flags = CLI_OPT_ONE, .arg = "POD_CSV",
     .help = "the pod list ({D}; '-' = standard input)"},
    {LIB("--scale-gpus", scale_gpus, CLI_OPT_UINT), .umin = 1, .umax = 65536, .arg = "K", .dflt = "1",
     .help = "multiply every GPU count, a power of two 1 to 65536"},
    ROWS_MODEL,
    ROW_COMPUTE("computation per iteration without a model", "1000"),
    ROW_SEED("seed"),
    CLI_ROW_COMPACT_AS(S, o.compact, '?'),
    CLI_ROW_OUT(S, out),
};

static const cli_opt dcn_opts[] = {
    {.type = CLI_OPT_POS, .off = CLI_OFF(S, input), .flags = CLI_OPT_ONE | CLI_OPT_NO_DASH, .arg = "DIR",
     .help = "the folder"},
    ROW_SEED("seed of the arrivals"),
    ROW_COMPUTE("computation per iteration", "1"),
    {LIB("--iterations", iterations, CLI_OPT_UINT), .flags = CLI_OPT_U64, .umin = 1, .umax = 1ull << 53,
     .arg = "I", .dflt = "10", .help = "iterations per job, >= 1"},
    {LIB("--arrival-window-s", arrival_window_s, CLI_OPT_DOUBLE), .min = 0, .max = 9.2e9, .arg = "W",
     .dflt = "10", .help = "arrivals uniform in [0, W) seconds"},
    CLI_ROW_COMPACT_AS(S, o.compact, '?'),
    CLI_ROW_OUT(S, out),
    ROW_REFUSED("--model-mix"),
    ROW_REFUSED("--gbits"),
    ROW_REFUSED("--gpus-per-node"),
};

static const cli_opt poisson_opts[] = {
    {LIB("--jobs", jobs, CLI_OPT_UINT), .umin = 1, .umax = 1000000, .arg = "N",
     .help = "number of jobs, 1 to 1000000"},
    {LIB("--mean-interarrival-s", mean_interarrival_s, CLI_OPT_DOUBLE), .flags = CLI_OPT_MIN_OPEN, .min = 0,
     .max = 9.2e9, .arg = "L", .help = "mean inter-arrival time in seconds, > 0"},
    {.lng = "--sizes", .type = CLI_OPT_STRING, .svc = 'x', .off = CLI_OFF(S, sizes), .arg = "G:W,...",
     .help = "GPU counts and their weights"},
    {.lng = "--duration-dist", .type = CLI_OPT_STRING, .svc = 'x', .off = CLI_OFF(S, dspec), .arg = "D",
     .help = "fixed:S, exp:MEAN or lognormal:MU,SIGMA seconds"},
    ROWS_MODEL,
    ROW_COMPUTE("computation per iteration without a model", "1000"),
    ROW_SEED("seed"),
    CLI_ROW_COMPACT_AS(S, o.compact, '?'),
    CLI_ROW_OUT(S, out),
};
#undef S
#undef LIB
#undef ROW_SEED
#undef ROW_COMPUTE
#undef ROWS_MODEL
#undef ROW_REFUSED

const cli_cmd_spec cli_spec_trace_alibaba = {"trace convert-alibaba", "trace-convert-alibaba", alibaba_opts,
                                             CLI_NOPTS(alibaba_opts), sizeof(trace_args), trace_init, 0};
const cli_cmd_spec cli_spec_trace_dcn = {"trace convert-dcn", "trace-convert-dcn", dcn_opts, CLI_NOPTS(dcn_opts),
                                         sizeof(trace_args), trace_init, 0};
const cli_cmd_spec cli_spec_trace_poisson = {"trace poisson", "trace-poisson", poisson_opts, CLI_NOPTS(poisson_opts),
                                             sizeof(trace_args), trace_init, 0};

static int parse(trace_args *a, const cli_cmd_spec *spec, int argc, char **argv)
{
    trace_init(a);
    return cli_opt_parse(spec, a, argc, argv);
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
    int rc = parse(&a, &cli_spec_trace_alibaba, argc, argv);
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
    int rc = parse(&a, &cli_spec_trace_dcn, argc, argv);
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
    int rc = parse(&a, &cli_spec_trace_poisson, argc, argv);
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

int cmd_trace(int argc, char **argv)
{
    /* --help and -h never come here: main answers them first (help.c, rows below) */
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
