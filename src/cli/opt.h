/* The command line's options, one table per command (in the spirit of libgit2's
 * cli_opt_spec). A row says everything about one option: its names, the type and range of
 * its value, where the parsed value goes, the message for a bad value, and what `--help`
 * prints (placeholder, help text, default). From the rows come the parser of every command
 * (cli_opt_parse), the option lines of `--help` (help.c), and tests/test_options.c checks
 * the rows against the help text, doc/topo-sched.1 and the service's options. */
#ifndef TSCHED_CLI_OPT_H
#define TSCHED_CLI_OPT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_opt_type {
    CLI_OPT_STRING, /* a name or text, kept as given (const char *) */
    CLI_OPT_FILE,   /* a file name, '-' for standard input or output where the text says so (const char *) */
    CLI_OPT_POS,    /* the positional argument (const char *); at most one per command */
    CLI_OPT_FLAG,   /* no value: `set` is stored (int) */
    CLI_OPT_UINT,   /* a whole number in [umin, umax] (unsigned, or uint64_t with CLI_OPT_U64) */
    CLI_OPT_DOUBLE, /* a number in [min, max] (or (min, max] with CLI_OPT_MIN_OPEN) (double) */
    CLI_OPT_ENUM    /* one of `names` (int: its index, or values[index]), or what `conv` accepts */
} cli_opt_type;

enum {
    CLI_OPT_U64 = 1,      /* UINT: a uint64_t (umax 0 = UINT64_MAX), else unsigned (umax 0 = UINT32_MAX) */
    CLI_OPT_MIN_OPEN = 2, /* DOUBLE: min itself is out of range */
    CLI_OPT_STRICT = 4,   /* DOUBLE: an empty text or one out of double's range (errno) is refused */
    CLI_OPT_NO_SERVICE = 8, /* the service has no such option (files written, the terminal) */
    CLI_OPT_REFUSED = 16,   /* a name the command knows only to refuse: "CMD: NAME <err>", whatever
                             * follows; no help line, no service option */
    CLI_OPT_NO_DASH = 32,   /* POS: '-' is not a value (no standard input): an unknown option */
    CLI_OPT_ONE = 64        /* POS: a second one is "CMD: one ARG expected, got 'A' and 'B'" */
};

typedef struct cli_opt {
    const char *lng, *shrt; /* "--algo", "-t" (either may be NULL) */
    cli_opt_type type;
    unsigned flags;
    uint64_t umin, umax;         /* UINT */
    double min, max;             /* DOUBLE */
    const char *const *names;    /* ENUM: the accepted names (NULL-terminated) */
    const int *values;           /* ENUM: the value stored for each name (NULL: its index) */
    int (*conv)(void *dst, const char *s); /* ENUM: the library's parser (0 ok; its error names the value) */
    int set;                     /* FLAG: the value stored */
    size_t off;                  /* where the value goes in the command's values struct */
    size_t given;                /* 1 + offset of an int set to 1 when the option is given; 0 none */
    const char *err;             /* a bad value: "OPT: 'VALUE' <err>" (conv: the library's message) */
    const char *range_err;       /* UINT out of range, when not `err`: "OPT: N <range_err>", no usage hint */
    const char *arg;             /* the placeholder in help ("TOPO", "yaml|json"); NULL for a flag */
    const char *dflt;            /* the default as help shows it; NULL: required (maybe conditionally) */
    const char *help;            /* help text; "{D}" is "default: <dflt>" or "required", else " (...)" ends
                                  * it; '\n' starts a continuation line */
    char svc;                    /* the service's type when it differs from the CLI's: 'f' flag, 's' string,
                                  * 'x' a number or its text, '?' not checked; 0 = as the CLI type says */
    /* The value goes through this call (a library's setter) instead of the type's parser:
     * CLI_OK, or the exit status after its message. The type and range still say what it
     * accepts (help, tests/test_options.c, which checks the call against them). */
    int (*call)(void *vals, const struct cli_opt *o, const char *v);
} cli_opt;

typedef struct cli_cmd_spec {
    const char *name;            /* as typed: "topology export" */
    const char *service_op;      /* the service's op with the same options, or NULL */
    const cli_opt *opts;
    size_t nopts;
    size_t size;                 /* of the values struct */
    void (*init)(void *vals);    /* the defaults */
    int unknown_is_unexpected;   /* an unknown word is "unexpected argument" (else "unknown or incomplete option") */
} cli_cmd_spec;

#define CLI_OFF(S, f) offsetof(S, f)
#define CLI_GIVEN(S, f) (offsetof(S, f) + 1)
#define CLI_NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* Rows every command shares. */
#define CLI_ROW_OUT(S, f)                                                                                   \
    {.shrt = "-o", .type = CLI_OPT_FILE, .flags = CLI_OPT_NO_SERVICE, .off = CLI_OFF(S, f), .arg = "FILE",  \
     .dflt = "standard output", .help = "write the result to FILE"}
#define CLI_ROW_COMPACT(S, f) CLI_ROW_COMPACT_AS(S, f, 0)
/* `svc` '?': the service takes the option and ignores it (its answer is compact anyway). */
#define CLI_ROW_COMPACT_AS(S, f, svc_)                                                                      \
    {.lng = "--compact", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, f), .dflt = "indented",          \
     .help = "print the document on one line", .svc = svc_}
#define CLI_ROW_NO_TIMING(S, f, field)                                                                      \
    {.lng = "--no-timing", .type = CLI_OPT_FLAG, .set = 0, .off = CLI_OFF(S, f), .dflt = "written",         \
     .help = "leave out `" field "`: same bytes on every run"}

/* Parse argv[1..argc-1] (argv[0] is the command's word) into `vals` by the rows of `spec`:
 * CLI_OK, or the exit status after one line on standard error (the usage errors of
 * DESIGN 6). `vals` holds the defaults already (spec->init). */
int cli_opt_parse(const cli_cmd_spec *spec, void *vals, int argc, char **argv);

/* The option lines of `spec` as `--help` prints them, into buf (NUL-terminated; cut at
 * cap); returns the length they need. */
size_t cli_opt_help(char *buf, size_t cap, const cli_cmd_spec *spec);
/* The help line of one row (label padded, text, default), as above. */
size_t cli_opt_help_row(char *buf, size_t cap, const cli_opt *o);

/* The tables (one per command; cmd_*.c). */
extern const cli_cmd_spec cli_spec_topology_show, cli_spec_import_slurm, cli_spec_import_slurm_yaml,
    cli_spec_import_k8s, cli_spec_export, cli_spec_place, cli_spec_flows, cli_spec_route, cli_spec_prioritize,
    cli_spec_kcut, cli_spec_simulate, cli_spec_trace_alibaba, cli_spec_trace_dcn, cli_spec_trace_poisson,
    cli_spec_vclos, cli_spec_cells, cli_spec_crius, cli_spec_draw, cli_spec_serve;
/* Every table, NULL-terminated. */
extern const cli_cmd_spec *const cli_specs[];

#endif
