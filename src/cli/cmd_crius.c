/* topo-sched crius-schedule -t TOPO -q QUEUE [-c GPUS] [--depth D]
 *                           [--objective normalized|throughput] [--event arrival|departure]
 *                           [--no-timing] [--compact] [-o FILE]            (doc/cell.md §8)
 * One event of the Cell-based scheduler on the fabric's free GPUs: tsched.crius-schedule.v1.
 * Exit 0, or 1 when the queue has jobs and every one is left pending (the document is still
 * written), 2 bad usage or input (one line naming the file or option and the field; nothing
 * on standard output), 3 internal failure. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const objectives[] = {"normalized", "throughput", NULL};
static const char *const events[] = {"arrival", "departure", NULL};

typedef struct crius_args {
    const char *topo, *queue, *catf, *out;
    int objective, event, timing, compact, has_depth;
    unsigned depth;
} crius_args;

static void crius_init(void *v)
{
    crius_args *a = v;
    memset(a, 0, sizeof *a);
    a->objective = TSCHED_CRIUS_NORMALIZED;
    a->event = TSCHED_CRIUS_ARRIVAL;
    a->timing = 1;
    a->depth = 3;
}

#define S crius_args
static const cli_opt crius_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-q", .type = CLI_OPT_FILE, .off = CLI_OFF(S, queue), .arg = "QUEUE", .help = "the queue, tsched.crius-queue.v1"},
    {.shrt = "-c", .type = CLI_OPT_FILE, .off = CLI_OFF(S, catf), .arg = "GPUS", .dflt = "built-in only",
     .help = "tsched.gpus.v1 merged over the built-in catalogue"},
    {.lng = "--depth", .type = CLI_OPT_UINT, .umax = 16, .off = CLI_OFF(S, depth), .given = CLI_GIVEN(S, has_depth),
     .err = "is not a whole number", .range_err = "is out of range (0..16)", .arg = "D", .dflt = "3",
     .help = "search depth for scaling running jobs, 0 to 16"},
    {.lng = "--objective", .type = CLI_OPT_ENUM, .names = objectives, .off = CLI_OFF(S, objective),
     .err = "unknown (normalized or throughput)", .arg = "O", .dflt = "normalized", .help = "normalized or throughput"},
    {.lng = "--event", .type = CLI_OPT_ENUM, .names = events, .off = CLI_OFF(S, event),
     .err = "unknown (arrival or departure)", .arg = "E", .dflt = "arrival", .help = "arrival or departure"},
    CLI_ROW_NO_TIMING(S, timing, "solve_ms"),
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_crius = {"crius-schedule", "crius-schedule", crius_opts, CLI_NOPTS(crius_opts),
                                     sizeof(crius_args), crius_init, 0};

int cmd_crius_schedule(int argc, char **argv)
{
    crius_args a;
    crius_init(&a);
    int prc = cli_opt_parse(&cli_spec_crius, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *queue = a.queue, *catf = a.catf, *out = a.out;
    int objective = a.objective, event = a.event, timing = a.timing, compact = a.compact, has_depth = a.has_depth;
    unsigned depth = a.depth;
    if (!topo || !queue)
        return cli_usage_error("crius-schedule: -t TOPO and -q QUEUE are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    if ((strcmp(topo, "-") == 0) + (strcmp(queue, "-") == 0) + (catf && strcmp(catf, "-") == 0) > 1)
        return cli_usage_error("crius-schedule: at most one file may be '-' (standard input)");

    tsched_topology *t = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_crius *cr = NULL;
    char *json = NULL;
    tsched_status st;
    int rc;
    if ((st = tsched_topology_load_file(&t, topo))) {
        rc = cli_cell_fail_file(st, topo);
        goto done;
    }
    if ((rc = cli_cell_catalog(&cat, catf)) != CLI_OK)
        goto done;
    if ((st = tsched_crius_new(&cr, t, cat))) {
        rc = cli_fail_in(st, "-t");
        goto done;
    }
    if ((has_depth && (st = tsched_crius_set_depth(cr, depth))) ||
        (st = tsched_crius_set_objective(cr, (tsched_crius_objective)objective))) {
        rc = cli_fail(st);
        goto done;
    }
    if ((st = tsched_crius_load_queue(cr, queue))) {
        rc = cli_cell_fail_file(st, queue);
        goto done;
    }
    if ((st = tsched_crius_schedule(cr, (tsched_crius_event)event))) {
        rc = cli_fail(st);
        goto done;
    }
    tsched_output_opts oo;
    tsched_output_opts_init(&oo);
    oo.compact = compact;
    oo.timing = timing;
    if ((st = tsched_crius_to_json_opts(&json, cr, &oo))) {
        rc = cli_fail(st);
        goto done;
    }
    rc = cli_write(out, json); /* laid out by the library (--compact) */
    if (rc == CLI_OK) {
        uint32_t n = tsched_crius_num_jobs(cr), running = 0;
        for (uint32_t j = 0; j < n; j++)
            running += tsched_crius_job_running(cr, j) != 0;
        if (n > 0 && running == 0)
            rc = CLI_INFEASIBLE;
    }
done:
    tsched_free(json);
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
    return rc;
}
