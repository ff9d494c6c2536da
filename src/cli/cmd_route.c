/* topo-sched flows -t TOPO -p PLACEMENT --pattern P [--step S] [--gbits X] [-j JOB]
 *                  [--compact] [-o FILE]
 * topo-sched route -t TOPO -f FLOWS [--algo A] [--seed N] [--threads N] [--time-limit-ms N]
 *                  [--no-timing] [--compact] [-o FILE] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const flow_patterns[] = {"dp-ring", "dp-hd", "pp", "alltoall", NULL};

typedef struct flows_args {
    const char *topo, *plf, *jobf, *out, *pattern;
    unsigned step;
    double gbits;
    int compact;
} flows_args;

static void flows_init(void *v) { memset(v, 0, sizeof(flows_args)); }

#define S flows_args
/* --pattern is checked after the required options (its error comes second) */
static const cli_opt flows_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-p", .type = CLI_OPT_FILE, .off = CLI_OFF(S, plf), .arg = "PLACEMENT", .help = "a tsched.placement.v1 on TOPO"},
    {.lng = "--pattern", .type = CLI_OPT_STRING, .names = flow_patterns, .off = CLI_OFF(S, pattern), .arg = "P",
     .help = "dp-ring, dp-hd, pp or alltoall"},
    {.lng = "--step", .type = CLI_OPT_UINT, .off = CLI_OFF(S, step), .err = "is not a whole number", .arg = "S",
     .dflt = "0", .help = "the collective's step"},
    {.lng = "--gbits", .type = CLI_OPT_DOUBLE, .flags = CLI_OPT_STRICT | CLI_OPT_MIN_OPEN, .min = 0, .max = INFINITY,
     .off = CLI_OFF(S, gbits), .err = "is not a positive number", .arg = "X", .dflt = "none",
     .help = "gigabits of every flow ({D}; required unless -j)"},
    {.shrt = "-j", .type = CLI_OPT_FILE, .off = CLI_OFF(S, jobf), .arg = "JOB", .dflt = "none",
     .help = "the job, whose model gives the App. C volumes"},
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_flows = {"flows", "flows", flows_opts, CLI_NOPTS(flows_opts), sizeof(flows_args), flows_init, 0};

int cmd_flows(int argc, char **argv)
{
    flows_args a;
    flows_init(&a);
    int prc = cli_opt_parse(&cli_spec_flows, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *plf = a.plf, *jobf = a.jobf, *out = a.out, *pattern = a.pattern;
    unsigned step = a.step;
    double gbits = a.gbits;
    int compact = a.compact;
    if (!topo || !plf || !pattern)
        return cli_usage_error("flows: -t TOPO, -p PLACEMENT and --pattern are required");
    tsched_pattern pat;
    if (tsched_pattern_from_name(&pat, pattern) != TSCHED_OK)
        return cli_usage_error("--pattern: %s", tsched_last_error());
    if (gbits <= 0 && !jobf)
        return cli_usage_error("flows: give --gbits X, or -j JOB with a model for the App. C volumes");
    tsched_topology *t = NULL;
    tsched_placement *p = NULL;
    tsched_job *j = NULL;
    tsched_flows *f = NULL;
    char *json = NULL;
    tsched_status st;
    int rc;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_placement_load_file(&p, t, plf)) ||
        (jobf && (st = tsched_job_load_file(&j, jobf))) || (st = tsched_flows_new(&f)) ||
        (st = tsched_flows_collective(f, t, j, tsched_placement_nodes(p), tsched_placement_rows(p),
                                      tsched_placement_cols(p), pat, step, gbits)) ||
        (st = tsched_flows_to_json(&json, f, t))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_write_json(out, json, compact);
out:
    tsched_free(json);
    tsched_flows_free(f);
    tsched_job_free(j);
    tsched_placement_free(p);
    tsched_topology_free(t);
    return rc;
}

/* The routes document streamed to the output `path` of `g` (a million flows never exist as
 * one text), then a newline, with cli_write()'s messages and exit codes. */
static int write_routes(cli_outs *g, const char *path, const tsched_routes *r, const tsched_topology *t, int flags)
{
    FILE *f = cli_outs_file(g, path);
    if (!f)
        return CLI_BAD_INPUT;
    tsched_status st = tsched_routes_write_json(f, r, t, flags);
    int bad = st == TSCHED_E_IO || (st == TSCHED_OK && fputc('\n', f) == EOF);
    int rc = cli_outs_close(g, f, st != TSCHED_OK || bad);
    if (st != TSCHED_OK && st != TSCHED_E_IO)
        return cli_fail(st);
    if (bad) {
        fprintf(stderr, "topo-sched: %s: write failed\n", !path || strcmp(path, "-") == 0 ? "<stdout>" : path);
        return CLI_INTERNAL;
    }
    return rc;
}

static const char *const route_algos[] = {"greedy", "ecmp", "balanced-ecmp", "ilp", NULL};

static int conv_route_algo(void *dst, const char *s) { return tsched_route_algo_from_name(dst, s) != TSCHED_OK; }

typedef struct route_args {
    const char *topo, *flowsf, *out;
    int timing, compact;
    tsched_route_options o;
} route_args;

static void route_init(void *v)
{
    route_args *a = v;
    memset(a, 0, sizeof *a);
    a->timing = 1;
    tsched_route_options_init(&a->o);
}

#define S route_args
static const cli_opt route_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-f", .type = CLI_OPT_FILE, .off = CLI_OFF(S, flowsf), .arg = "FLOWS", .help = "the flows, tsched.flows.v1"},
    {.lng = "--algo", .type = CLI_OPT_ENUM, .names = route_algos, .conv = conv_route_algo, .off = CLI_OFF(S, o.algo),
     .arg = "A", .dflt = "greedy", .help = "greedy, ecmp, balanced-ecmp or ilp"},
    {.lng = "--seed", .type = CLI_OPT_UINT, .flags = CLI_OPT_U64, .off = CLI_OFF(S, o.seed),
     .err = "is not a whole number", .arg = "N", .dflt = "1", .help = "seed of the two ECMP variants"},
    {.lng = "--threads", .type = CLI_OPT_UINT, .umin = 1, .umax = 64, .off = CLI_OFF(S, o.threads),
     .err = "is not a whole number in [1, 64]", .arg = "N", .dflt = "1",
     .help = "greedy on N threads over independent components, 1 to 64"},
    {.lng = "--time-limit-ms", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, o.time_limit_ms),
     .err = "is not a positive whole number", .arg = "N", .dflt = "10000", .help = "bound of the ILP, > 0"},
    CLI_ROW_NO_TIMING(S, timing, "solve_ms"),
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_route = {"route", "route", route_opts, CLI_NOPTS(route_opts), sizeof(route_args), route_init, 0};

int cmd_route(int argc, char **argv)
{
    route_args a;
    route_init(&a);
    int prc = cli_opt_parse(&cli_spec_route, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *flowsf = a.flowsf, *out = a.out;
    int timing = a.timing, compact = a.compact;
    tsched_route_options o = a.o;
    if (!topo || !flowsf)
        return cli_usage_error("route: -t TOPO and -f FLOWS are required");
    tsched_topology *t = NULL;
    tsched_flows *f = NULL;
    tsched_routes *r = NULL;
    tsched_status st;
    cli_outs outs;
    cli_outs_init(&outs);
    int rc = cli_outs_add(&outs, out); /* checked before the work */
    if (rc != CLI_OK)
        goto out;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_flows_load_file(&f, t, flowsf)) ||
        (st = tsched_route(&r, t, f, &o))) {
        rc = cli_fail(st);
        goto out;
    }
    /* the input is no longer needed: its memory goes before the output is written */
    tsched_flows_free(f);
    f = NULL;
    rc = write_routes(&outs, out, r, t, (timing ? 0 : TSCHED_ROUTES_JSON_NO_TIMING) | (compact ? TSCHED_ROUTES_JSON_COMPACT : 0));
out:
    rc = cli_outs_end(&outs, rc);
    tsched_routes_free(r);
    tsched_flows_free(f);
    tsched_topology_free(t);
    return rc;
}
