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
#include "opt.h"

/* Progress (--progress, or a terminal): how much of the run is done, from the library's
 * events. The work is the iterations the jobs ask for (from a result snapshot taken before
 * the run), done as ITERATION events report them; when a job's count is not known before
 * it starts (duration_s), the finished jobs' share instead; with --until, at least the
 * share of the horizon simulated. ETA: the wall time so far stretched over what is left. */
typedef struct progress {
    int on, tty;
    double t0, last, until_s;
    unsigned long calls;
    uint32_t jobs, done;
    uint64_t *iters, *iters_done; /* per job: asked (0 unknown), reported done; NULL: by jobs */
    uint64_t work, work_done;
    int printed;
} progress;

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The jobs and their iterations, from a snapshot of the loaded run. */
static void progress_init(progress *p, const tsched_sim *s)
{
    tsched_sim_result *r = NULL;
    if (tsched_sim_result_new(&r, s) != TSCHED_OK)
        return;
    p->jobs = tsched_sim_result_job_count(r);
    p->iters = calloc(p->jobs ? p->jobs : 1, sizeof *p->iters);
    p->iters_done = calloc(p->jobs ? p->jobs : 1, sizeof *p->iters_done);
    for (uint32_t j = 0; p->iters && p->iters_done && j < p->jobs; j++) {
        tsched_sim_job_stats js = {.size = sizeof js};
        if (tsched_sim_result_job(&js, r, j) != TSCHED_OK || js.iterations == 0 ||
            js.iterations > UINT64_MAX - p->work) {
            p->work = 0;
            break;
        }
        p->iters[j] = js.iterations;
        p->work += js.iterations;
    }
    if (p->work == 0) { /* not every count known: by finished jobs */
        free(p->iters);
        free(p->iters_done);
        p->iters = p->iters_done = NULL;
    }
    tsched_sim_result_free(r);
}

static void progress_line(progress *p, double t_s, double now, int final)
{
    double f = p->work ? (double)p->work_done / (double)p->work : p->jobs ? (double)p->done / p->jobs : 0;
    if (p->until_s > 0 && t_s / p->until_s > f)
        f = t_s / p->until_s;
    if (final || f > 1)
        f = 1; /* the run is over, whatever was left unfinished */
    double wall = now - p->t0;
    char eta[32];
    if (final)
        snprintf(eta, sizeof eta, "done");
    else if (f > 0)
        snprintf(eta, sizeof eta, "ETA %.0f s", wall * (1 - f) / f);
    else
        snprintf(eta, sizeof eta, "ETA unknown");
    fprintf(stderr, "%ssimulate: %3.0f%%, %u/%u jobs done, t = %.1f s simulated, %.0f s wall, %s%s",
            p->tty && p->printed ? "\r" : "", floor(f * 100), p->done, p->jobs, t_s, wall, eta,
            p->tty && !final ? "   " : "\n");
    p->printed = !final;
}

/* A progress line on standard error once the run has taken a second, then at most every
 * quarter second on a terminal (rewriting itself) or every second elsewhere (one line each). */
static int on_event(const tsched_sim_event *e, void *user)
{
    progress *p = user;
    if (e->kind == TSCHED_SIM_EV_FINISH)
        p->done++;
    if (p->iters && e->job < p->jobs && (e->kind == TSCHED_SIM_EV_ITERATION || e->kind == TSCHED_SIM_EV_FINISH)) {
        uint64_t now_done = e->kind == TSCHED_SIM_EV_FINISH ? p->iters[e->job] : e->iteration;
        if (now_done > p->iters[e->job])
            now_done = p->iters[e->job];
        if (now_done > p->iters_done[e->job]) { /* never backwards: a restart redoes work */
            p->work_done += now_done - p->iters_done[e->job];
            p->iters_done[e->job] = now_done;
        }
    }
    if (++p->calls % 256 != 0)
        return 0;
    double now = wall_s();
    if (now - p->t0 < 1.0 || now - p->last < (p->tty ? 0.25 : 1.0))
        return 0;
    p->last = now;
    progress_line(p, (double)e->t_ns * 1e-9, now, 0);
    return 0;
}

/* The policies are kept as text: the library names a bad one (tsched_sim_set_policy). */
typedef struct sim_args {
    const char *topo, *trace, *scen, *out, *tsfile;
    const char *pol[TSCHED_SIM_LINKS + 1]; /* by tsched_sim_policy */
    double seed, levels, until, sample_ms;
    int has_seed, has_levels, has_until, has_sample_ms;
    int timing, compact, links, prog;
} sim_args;

static void sim_init(void *v)
{
    sim_args *a = v;
    memset(a, 0, sizeof *a);
    a->timing = 1;
    a->prog = -1;
}

static const char *const sim_placements[] = {"first-fit", "best-fit", "random-fit", "gpu-pack", "topo-aware", "exhaustive",
                                             "mip", "vclos", "ocs-vclos", "vclos-free", "crius", NULL};
static const char *const sim_routings[] = {"greedy", "ecmp", "balanced-ecmp", "ilp", "ideal", "source", "vclos", NULL};
static const char *const sim_reroutes[] = {"none", "refresh", NULL};
static const char *const sim_priorities[] = {"none", "fixed", "crux", "sincronia", "varys", "taccl", "cassini", NULL};
static const char *const sim_links[] = {"trunk", "member", NULL};
static const char *const sim_queues[] = {"fifo", "ff", NULL};

#define S sim_args
#define POLICY(name, which, list, a, d, h)                                                                   \
    {.lng = name, .type = CLI_OPT_STRING, .names = list, .off = CLI_OFF(S, pol) + (which) * sizeof(const char *), \
     .arg = a, .dflt = d, .help = h}
#define NUMBER(name, f, a, d, h)                                                                             \
    {.lng = name, .type = CLI_OPT_DOUBLE, .min = 0, .max = INFINITY, .off = CLI_OFF(S, f),                  \
     .given = CLI_GIVEN(S, has_##f), .err = "is not a non-negative number", .arg = a, .dflt = d, .help = h}
static const cli_opt sim_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-w", .type = CLI_OPT_FILE, .off = CLI_OFF(S, trace), .arg = "TRACE", .help = "the jobs, tsched.trace.v1"},
    {.shrt = "-s", .type = CLI_OPT_FILE, .off = CLI_OFF(S, scen), .arg = "SCENARIO", .dflt = "every default below",
     .help = "policies, tsched.scenario.v1"},
    NUMBER("--until", until, "S", "run to the end", "stop at S simulated seconds if jobs are pending"),
    NUMBER("--seed", seed, "N", "1", "seed of every random choice"),
    POLICY("--placement", TSCHED_SIM_PLACEMENT, sim_placements, "P", "best-fit",
           "the placement policy ({D}): first-fit, best-fit,\nrandom-fit, gpu-pack, topo-aware, exhaustive, mip, "
           "vclos, ocs-vclos,\nvclos-free or crius"),
    POLICY("--routing", TSCHED_SIM_ROUTING, sim_routings, "R", "greedy",
           "greedy, ecmp, balanced-ecmp, ilp, ideal, source or vclos"),
    POLICY("--reroute", TSCHED_SIM_REROUTE, sim_reroutes, "none|refresh", "none",
           "re-route running jobs at every start and finish"),
    POLICY("--priority", TSCHED_SIM_PRIORITY, sim_priorities, "X", "none", "none, fixed, crux, sincronia, varys, taccl or cassini"),
    NUMBER("--levels", levels, "K", "8", "priority levels, 1 to 64"),
    POLICY("--links", TSCHED_SIM_LINKS, sim_links, "trunk|member", "trunk; member with vClos",
           "one link per trunk or per member"),
    POLICY("--queue", TSCHED_SIM_QUEUE, sim_queues, "fifo|ff", "fifo", "queue policy"),
    {.lng = "--timeseries", .type = CLI_OPT_FILE, .flags = CLI_OPT_NO_SERVICE, .off = CLI_OFF(S, tsfile), .arg = "FILE",
     .dflt = "none", .help = "also write the CSV time series"},
    NUMBER("--sample-ms", sample_ms, "N", "1000", "time series interval"),
    {.lng = "--links-report", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, links), .dflt = "off",
     .help = "add the per-link `links` array"},
    {.lng = "--progress", .type = CLI_OPT_FLAG, .flags = CLI_OPT_NO_SERVICE, .set = 1, .off = CLI_OFF(S, prog),
     .dflt = "on a\nterminal only", .help = "a progress line on standard error even off a terminal"},
    {.lng = "--quiet", .type = CLI_OPT_FLAG, .flags = CLI_OPT_NO_SERVICE, .set = 0, .off = CLI_OFF(S, prog),
     .dflt = "on a terminal only", .help = "never a progress line"},
    CLI_ROW_NO_TIMING(S, timing, "wall_ms"),
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef NUMBER
#undef POLICY
#undef S

const cli_cmd_spec cli_spec_simulate = {"simulate", "simulate", sim_opts, CLI_NOPTS(sim_opts), sizeof(sim_args), sim_init, 0};

int cmd_simulate(int argc, char **argv)
{
    sim_args a;
    sim_init(&a);
    int prc = cli_opt_parse(&cli_spec_simulate, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *trace = a.trace, *scen = a.scen, *out = a.out, *tsfile = a.tsfile;
    int timing = a.timing, compact = a.compact, links = a.links, prog = a.prog;
    /* the numbers in the order of tsched_sim_option, as they were always applied */
    const struct {
        int given;
        tsched_sim_option which;
        double v;
    } nums[] = {{a.has_seed, TSCHED_SIM_SEED, a.seed},
                {a.has_levels, TSCHED_SIM_LEVELS, a.levels},
                {a.has_until, TSCHED_SIM_UNTIL_S, a.until},
                {a.has_sample_ms, TSCHED_SIM_SAMPLE_MS, a.sample_ms}};
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
    for (int k = 0; k <= TSCHED_SIM_LINKS; k++)
        if (a.pol[k] && (st = tsched_sim_set_policy(s, (tsched_sim_policy)k, a.pol[k])) != TSCHED_OK) {
            rc = cli_fail(st);
            goto out;
        }
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (nums[k].given && (st = tsched_sim_set_option(s, nums[k].which, nums[k].v)) != TSCHED_OK) {
            rc = cli_fail(st);
            goto out;
        }
    /* the time series costs a pass over every link per interval of the whole span, and
     * only --timeseries writes it: kept only then, whatever the scenario says */
    if ((st = tsched_sim_set_option(s, TSCHED_SIM_TIMESERIES, tsfile ? 1 : 0)) != TSCHED_OK) {
        rc = cli_fail(st);
        goto out;
    }
    progress p = {.tty = isatty(STDERR_FILENO), .t0 = wall_s(), .until_s = a.has_until ? a.until : 0};
    p.on = prog == 1 || (prog == -1 && p.tty);
    if (p.on) {
        progress_init(&p, s);
        tsched_sim_set_callback(s, TSCHED_SIM_EV_ITERATION | TSCHED_SIM_EV_FINISH | TSCHED_SIM_EV_PHASE_END, on_event,
                                &p);
    }
    st = tsched_sim_run_until(s, INT64_MAX);
    if (p.on && st == TSCHED_OK)
        progress_line(&p, (double)tsched_sim_now(s) * 1e-9, wall_s(), 1);
    else if (p.printed)
        fputs("\n", stderr);
    free(p.iters);
    free(p.iters_done);
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
