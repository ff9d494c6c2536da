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

static int pick(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int cmd_crius_schedule(int argc, char **argv)
{
    static const char *const objectives[] = {"normalized", "throughput", NULL};
    static const char *const events[] = {"arrival", "departure", NULL};
    const char *topo = NULL, *queue = NULL, *catf = NULL, *out = NULL;
    int objective = TSCHED_CRIUS_NORMALIZED, event = TSCHED_CRIUS_ARRIVAL, timing = 1, compact = 0, has_depth = 0;
    unsigned depth = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-t") && has)
            topo = argv[++i];
        else if (!strcmp(a, "-q") && has)
            queue = argv[++i];
        else if (!strcmp(a, "-c") && has)
            catf = argv[++i];
        else if (!strcmp(a, "-o") && has)
            out = argv[++i];
        else if (!strcmp(a, "--depth") && has) {
            if (cli_parse_u32(argv[++i], &depth) != 0)
                return cli_usage_error("--depth: '%s' is not a whole number", argv[i]);
            if (depth > 16)
                return cli_cell_opt_error("--depth: %u is out of range (0..16)", depth);
            has_depth = 1;
        } else if (!strcmp(a, "--objective") && has) {
            if ((objective = pick(argv[++i], objectives)) < 0)
                return cli_usage_error("--objective: '%s' unknown (normalized or throughput)", argv[i]);
        } else if (!strcmp(a, "--event") && has) {
            if ((event = pick(argv[++i], events)) < 0)
                return cli_usage_error("--event: '%s' unknown (arrival or departure)", argv[i]);
        } else if (!strcmp(a, "--no-timing"))
            timing = 0;
        else if (!strcmp(a, "--compact"))
            compact = 1;
        else
            return cli_usage_error("crius-schedule: unknown or incomplete option '%s'", a);
    }
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
