/* topo-sched simulate -t TOPO -w TRACE [-s SCENARIO] [--until S] [--seed N] [--placement P]
 *                     [--routing R] [--reroute none|refresh] [--priority X] [--levels K]
 *                     [--links trunk|member] [--queue fifo|ff] [--timeseries FILE]
 *                     [--sample-ms N] [--links-report] [--progress | --quiet] [--no-timing]
 *                     [--compact] [-o FILE]                                  (doc/sim.md §7) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct progress {
    int on;
    double t0, last;
    unsigned long calls;
    uint32_t done;
    int printed;
} progress;

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One self-overwriting line on standard error once the run has taken a second. */
static int on_event(const tsched_sim_event *e, void *user)
{
    progress *p = user;
    if (e->kind == TSCHED_SIM_EV_FINISH)
        p->done++;
    if (++p->calls % 256 != 0)
        return 0;
    double now = wall_s();
    if (now - p->t0 < 1.0 || now - p->last < 0.25)
        return 0;
    p->last = now;
    fprintf(stderr, "\rsimulate: t = %.1f s, %u jobs done, %.0f s wall   ", (double)e->t_ns * 1e-9, p->done,
            now - p->t0);
    p->printed = 1;
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    const char *topo = NULL, *trace = NULL, *scen = NULL, *out = NULL, *tsfile = NULL;
    const char *pol[6] = {0};
    double opt[11];
    int has_opt[11] = {0};
    int timing = 1, compact = 0, links = 0, prog = -1;
    static const struct {
        const char *flag;
        tsched_sim_policy which;
    } pflags[] = {{"--queue", TSCHED_SIM_QUEUE},     {"--placement", TSCHED_SIM_PLACEMENT},
                  {"--routing", TSCHED_SIM_ROUTING}, {"--reroute", TSCHED_SIM_REROUTE},
                  {"--priority", TSCHED_SIM_PRIORITY}, {"--links", TSCHED_SIM_LINKS}};
    static const struct {
        const char *flag;
        tsched_sim_option which;
    } oflags[] = {{"--until", TSCHED_SIM_UNTIL_S}, {"--seed", TSCHED_SIM_SEED}, {"--levels", TSCHED_SIM_LEVELS},
                  {"--sample-ms", TSCHED_SIM_SAMPLE_MS}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc, matched = 0;
        for (size_t k = 0; k < sizeof pflags / sizeof pflags[0] && !matched; k++)
            if (strcmp(a, pflags[k].flag) == 0 && has) {
                pol[pflags[k].which] = argv[++i];
                matched = 1;
            }
        for (size_t k = 0; k < sizeof oflags / sizeof oflags[0] && !matched; k++)
            if (strcmp(a, oflags[k].flag) == 0 && has) {
                char *end;
                double v = ts_strtod(argv[++i], &end);
                if (*end || !isfinite(v) || v < 0)
                    return cli_usage_error("%s: '%s' is not a non-negative number", a, argv[i]);
                opt[oflags[k].which] = v;
                has_opt[oflags[k].which] = 1;
                matched = 1;
            }
        if (matched)
            continue;
        if (strcmp(a, "-t") == 0 && has)
            topo = argv[++i];
        else if (strcmp(a, "-w") == 0 && has)
            trace = argv[++i];
        else if (strcmp(a, "-s") == 0 && has)
            scen = argv[++i];
        else if (strcmp(a, "-o") == 0 && has)
            out = argv[++i];
        else if (strcmp(a, "--timeseries") == 0 && has)
            tsfile = argv[++i];
        else if (strcmp(a, "--links-report") == 0)
            links = 1;
        else if (strcmp(a, "--progress") == 0)
            prog = 1;
        else if (strcmp(a, "--quiet") == 0)
            prog = 0;
        else if (strcmp(a, "--no-timing") == 0)
            timing = 0;
        else if (strcmp(a, "--compact") == 0)
            compact = 1;
        else
            return cli_usage_error("simulate: unknown or incomplete option '%s'", a);
    }
    if (!topo || !trace)
        return cli_usage_error("simulate: -t TOPO and -w TRACE are required");
    int stdin_uses = (strcmp(topo, "-") == 0) + (strcmp(trace, "-") == 0) + (scen && strcmp(scen, "-") == 0);
    if (stdin_uses > 1)
        return cli_usage_error("simulate: at most one file may be '-' (standard input)");
    tsched_topology *t = NULL;
    tsched_sim *s = NULL;
    tsched_sim_result *r = NULL;
    char *json = NULL, *csv = NULL;
    tsched_status st;
    /* every output checked before the run; replaced together, and only if all is well */
    cli_outs outs;
    cli_outs_init(&outs);
    int rc = cli_outs_add(&outs, out);
    if (rc == CLI_OK && tsfile)
        rc = cli_outs_add(&outs, tsfile);
    if (rc != CLI_OK)
        goto out;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_sim_new(&s, t)) ||
        (scen && (st = tsched_sim_load_scenario_file(s, scen))) || (st = tsched_sim_load_trace_file(s, trace))) {
        rc = cli_fail(st);
        goto out;
    }
    /* the command line's policies and numbers override the scenario */
    for (int k = 0; k < 6; k++)
        if (pol[k] && (st = tsched_sim_set_policy(s, (tsched_sim_policy)k, pol[k])) != TSCHED_OK) {
            rc = cli_fail(st);
            goto out;
        }
    for (int k = 0; k < 11; k++)
        if (has_opt[k] && (st = tsched_sim_set_option(s, (tsched_sim_option)k, opt[k])) != TSCHED_OK) {
            rc = cli_fail(st);
            goto out;
        }
    progress p = {prog == 1 || (prog == -1 && isatty(STDERR_FILENO)), wall_s(), 0, 0, 0, 0};
    if (p.on)
        tsched_sim_set_callback(s, TSCHED_SIM_EV_ITERATION | TSCHED_SIM_EV_FINISH | TSCHED_SIM_EV_PHASE_END, on_event,
                                &p);
    st = tsched_sim_run_until(s, INT64_MAX);
    if (p.printed)
        fputs("\n", stderr);
    int flags = (timing ? 0 : TSCHED_SIM_JSON_NO_TIMING) | (links ? TSCHED_SIM_JSON_LINKS : 0) |
                (compact ? TSCHED_SIM_JSON_COMPACT : 0);
    if (st || (st = tsched_sim_result_new(&r, s)) || (st = tsched_sim_result_to_json(&json, r, flags)) ||
        (tsfile && (st = tsched_sim_result_timeseries_csv(&csv, r, 0)))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_outs_write(&outs, out, json, 1);
    if (rc == CLI_OK && tsfile)
        rc = cli_outs_write(&outs, tsfile, csv, 0);
out:
    rc = cli_outs_end(&outs, rc);
    tsched_free(csv);
    tsched_free(json);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
    return rc;
}
