/* topo-sched flows -t TOPO -p PLACEMENT --pattern P [--step S] [--gbits X] [-j JOB]
 *                  [--compact] [-o FILE]
 * topo-sched route -t TOPO -f FLOWS [--algo A] [--seed N] [--threads N] [--time-limit-ms N]
 *                  [--no-timing] [--compact] [-o FILE] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_flows(int argc, char **argv)
{
    const char *topo = NULL, *plf = NULL, *jobf = NULL, *out = NULL, *pattern = NULL;
    unsigned step = 0;
    double gbits = 0;
    int compact = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-t") == 0 && has)
            topo = argv[++i];
        else if (strcmp(a, "-p") == 0 && has)
            plf = argv[++i];
        else if (strcmp(a, "-j") == 0 && has)
            jobf = argv[++i];
        else if (strcmp(a, "-o") == 0 && has)
            out = argv[++i];
        else if (strcmp(a, "--pattern") == 0 && has)
            pattern = argv[++i];
        else if (strcmp(a, "--compact") == 0)
            compact = 1;
        else if (strcmp(a, "--step") == 0 && has) {
            if (cli_parse_u32(argv[++i], &step) != 0)
                return cli_usage_error("--step: '%s' is not a whole number", argv[i]);
        } else if (strcmp(a, "--gbits") == 0 && has) {
            if (cli_parse_double(argv[++i], &gbits) != 0)
                return cli_usage_error("--gbits: '%s' is not a positive number", argv[i]);
        } else
            return cli_usage_error("flows: unknown or incomplete option '%s'", a);
    }
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

int cmd_route(int argc, char **argv)
{
    const char *topo = NULL, *flowsf = NULL, *out = NULL;
    int timing = 1, compact = 0;
    tsched_route_options o;
    tsched_route_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        unsigned u;
        if (strcmp(a, "-t") == 0 && has) {
            topo = argv[++i];
        } else if (strcmp(a, "-f") == 0 && has) {
            flowsf = argv[++i];
        } else if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--algo") == 0 && has) {
            if (tsched_route_algo_from_name(&o.algo, argv[++i]) != TSCHED_OK)
                return cli_usage_error("--algo: %s", tsched_last_error());
        } else if (strcmp(a, "--seed") == 0 && has) {
            if (cli_parse_u64(argv[++i], &o.seed) != 0)
                return cli_usage_error("--seed: '%s' is not a whole number", argv[i]);
        } else if (strcmp(a, "--threads") == 0 && has) {
            if (cli_parse_u32(argv[++i], &u) != 0 || u == 0 || u > 64)
                return cli_usage_error("--threads: '%s' is not a whole number in [1, 64]", argv[i]);
            o.threads = u;
        } else if (strcmp(a, "--time-limit-ms") == 0 && has) {
            if (cli_parse_u32(argv[++i], &u) != 0 || u == 0)
                return cli_usage_error("--time-limit-ms: '%s' is not a positive whole number", argv[i]);
            o.time_limit_ms = u;
        } else if (strcmp(a, "--no-timing") == 0) {
            timing = 0;
        } else if (strcmp(a, "--compact") == 0) {
            compact = 1;
        } else {
            return cli_usage_error("route: unknown or incomplete option '%s'", a);
        }
    }
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
