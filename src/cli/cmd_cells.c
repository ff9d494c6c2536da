/* topo-sched cells -t TOPO -j JOB [-c GPUS] [--profile PROFILE] [--type T] [--gpus N]
 *                  [--stages S] [--plans assembled|tuned|exhaustive] [--no-timing]
 *                  [--compact] [-o FILE]                                   (doc/cell.md §8)
 * The job's candidate Cells on every pool of the fabric whose GPU type is in the catalogue:
 * tsched.cells.v1, one element per Cell from tsched_cell_to_json(). Exit 0 (also when no
 * Cell is feasible), 2 bad usage or input (one line naming the file or option and the
 * field; nothing on standard output), 3 internal failure. Also the helpers that
 * crius-schedule shares (catalogue, file errors, output). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "cli.h"
#include "opt.h"

/* ---- shared with cmd_crius.c ---- */

int cli_cell_opt_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("topo-sched: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_BAD_INPUT;
}

int cli_cell_fail_file(tsched_status st, const char *path)
{
    /* Readers of files prefix their messages with the file name; add it when absent. */
    const char *msg = tsched_last_error(), *shown = strcmp(path, "-") ? path : "<stdin>";
    size_t n = strlen(shown);
    if (strncmp(msg, shown, n) == 0 && msg[n] == ':')
        return cli_fail(st);
    return cli_fail_in(st, shown);
}

int cli_cell_catalog(tsched_gpu_catalog **out, const char *path)
{
    tsched_gpu_catalog *cat = NULL, *file = NULL;
    tsched_status st = tsched_gpu_catalog_default(&cat);
    if (st != TSCHED_OK)
        return cli_fail(st);
    if (path) {
        if ((st = tsched_gpu_catalog_load_file(&file, path)) != TSCHED_OK) {
            tsched_gpu_catalog_free(cat);
            return cli_cell_fail_file(st, path);
        }
        st = tsched_gpu_catalog_merge(cat, file);
        tsched_gpu_catalog_free(file);
        if (st != TSCHED_OK) {
            tsched_gpu_catalog_free(cat);
            return cli_fail_in(st, path);
        }
    }
    *out = cat;
    return CLI_OK;
}

int cli_cell_nomem(void)
{
    fputs("topo-sched: out of memory\n", stderr);
    return CLI_INTERNAL;
}

double cli_cell_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- cells ---- */

/* The library's error, its leading input label ("job: ") replaced by where that input came
 * from on this command line (the file name, or the option). */
static int fail_relabel(tsched_status st, const char *const (*labels)[2], size_t n)
{
    const char *msg = tsched_last_error();
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(labels[i][0]);
        if (labels[i][1] && strncmp(msg, labels[i][0], k) == 0 && msg[k] == ':') {
            fprintf(stderr, "topo-sched: %s%s\n", labels[i][1], msg + k);
            return cli_fail_status(st);
        }
    }
    return cli_fail(st);
}

static const char *const spaces[] = {"assembled", "tuned", "exhaustive", NULL};

typedef struct cells_args {
    const char *topo, *jobf, *catf, *proff, *type, *out;
    int space, timing, compact;
    unsigned only_n, only_s;
} cells_args;

static void cells_init(void *v)
{
    cells_args *a = v;
    memset(a, 0, sizeof *a);
    a->space = TSCHED_PLANS_ASSEMBLED;
    a->timing = 1;
}

#define S cells_args
static const cli_opt cells_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-j", .type = CLI_OPT_FILE, .off = CLI_OFF(S, jobf), .arg = "JOB", .help = "the job, tsched.job.v1 with a model"},
    {.shrt = "-c", .type = CLI_OPT_FILE, .off = CLI_OFF(S, catf), .arg = "GPUS", .dflt = "built-in only",
     .help = "tsched.gpus.v1 merged over the built-in catalogue"},
    {.lng = "--profile", .type = CLI_OPT_FILE, .flags = CLI_OPT_NO_SERVICE, .off = CLI_OFF(S, proff), .arg = "PROFILE",
     .dflt = "cost model", .help = "measured tsched.op-profile.v1 for its GPU type"},
    {.lng = "--type", .type = CLI_OPT_STRING, .off = CLI_OFF(S, type), .arg = "T", .dflt = "every pool",
     .help = "only pools of GPU type T"},
    {.lng = "--gpus", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, only_n), .err = "is not a whole number",
     .range_err = "is out of range (>= 1)", .arg = "N", .dflt = "N_G/2, N_G and 2 N_G", .help = "only Cells of N GPUs, >= 1"},
    {.lng = "--stages", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, only_s), .err = "is not a whole number",
     .range_err = "is out of range (>= 1)", .arg = "S", .dflt = "1, 2, 4, ... up to min(N, layers)",
     .help = "only Cells of S stages, >= 1"},
    {.lng = "--plans", .type = CLI_OPT_ENUM, .names = spaces, .off = CLI_OFF(S, space),
     .err = "unknown (assembled, tuned or exhaustive)", .arg = "P", .dflt = "assembled",
     .help = "assembled, tuned or exhaustive plan space"},
    CLI_ROW_NO_TIMING(S, timing, "solve_ms"),
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_cells = {"cells", "cells", cells_opts, CLI_NOPTS(cells_opts), sizeof(cells_args), cells_init, 0};

int cmd_cells(int argc, char **argv)
{
    cells_args a;
    cells_init(&a);
    int rc = cli_opt_parse(&cli_spec_cells, &a, argc, argv);
    if (rc != CLI_OK)
        return rc;
    const char *topo = a.topo, *jobf = a.jobf, *catf = a.catf, *proff = a.proff, *type = a.type, *out = a.out;
    int space = a.space, timing = a.timing, compact = a.compact;
    unsigned only_n = a.only_n, only_s = a.only_s;
    if (!topo || !jobf)
        return cli_usage_error("cells: -t TOPO and -j JOB are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    if ((strcmp(topo, "-") == 0) + (strcmp(jobf, "-") == 0) + (catf && strcmp(catf, "-") == 0) +
            (proff && strcmp(proff, "-") == 0) >
        1)
        return cli_usage_error("cells: at most one file may be '-' (standard input)");

    tsched_topology *t = NULL;
    tsched_job *job = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_op_profile *prof = NULL;
    char *json = NULL;
    tsched_status st;
    if ((st = tsched_topology_load_file(&t, topo))) {
        rc = cli_cell_fail_file(st, topo);
        goto done;
    }
    if ((st = tsched_job_load_file(&job, jobf))) {
        rc = cli_cell_fail_file(st, jobf);
        goto done;
    }
    if ((rc = cli_cell_catalog(&cat, catf)) != CLI_OK)
        goto done;
    if (proff && (st = tsched_op_profile_load_file(&prof, proff))) {
        rc = cli_cell_fail_file(st, proff);
        goto done;
    }
    tsched_output_opts oo;
    tsched_output_opts_init(&oo);
    oo.compact = compact;
    oo.timing = timing;
    if ((st = tsched_cell_list_to_json_opts(&json, t, job, cat, prof, type, only_n, only_s, (tsched_plan_space)space,
                                            &oo))) {
        const char *const labels[][2] = {{"job", strcmp(jobf, "-") ? jobf : "<stdin>"},
                                         {"profile", !proff ? NULL : strcmp(proff, "-") ? proff : "<stdin>"},
                                         {"type", "--type"},
                                         {"gpus", "--gpus"},
                                         {"topology", "-t"}};
        rc = fail_relabel(st, labels, sizeof labels / sizeof labels[0]);
        goto done;
    }
    rc = cli_write(out, json); /* laid out by the library (--compact) */
done:
    tsched_free(json);
    tsched_op_profile_free(prof);
    tsched_gpu_catalog_free(cat);
    tsched_job_free(job);
    tsched_topology_free(t);
    return rc;
}
