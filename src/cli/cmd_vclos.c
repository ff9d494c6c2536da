/* topo-sched vclos -t TOPO -r REQUESTS [--mode vclos|ocs-vclos|free] [--shapes all|pow2]
 *                  [--state VCLOS] [--pattern ring|alltoall|hd [--step S]]
 *                  [--routing source|ecmp|balanced-ecmp] [--seed N] [--time-limit-ms N]
 *                  [--no-timing] [--compact] [-o FILE]                    (doc/vclos.md §8)
 * Exit 0 when every request was processed (waiting jobs included), 2 bad usage or input
 * (one line naming the file or option and the field), 3 solver failure; nothing on
 * standard output unless 0. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const modes[] = {"vclos", "ocs-vclos", "free", NULL};
static const char *const shapes_names[] = {"all", "pow2", NULL};
static const char *const patterns[] = {"ring", "alltoall", "hd", NULL};
static const char *const routings[] = {"source", "ecmp", "balanced-ecmp", NULL};

typedef struct vclos_args {
    const char *topo, *reqf, *statef, *out;
    int mode, shapes, pattern, routing;
    int timing, compact_out, has_step, has_seed, has_limit, has_routing;
    unsigned step, limit;
    uint64_t seed;
} vclos_args;

static void vclos_init(void *v)
{
    vclos_args *a = v;
    memset(a, 0, sizeof *a);
    a->mode = TSCHED_VCLOS_MODE_VCLOS;
    a->shapes = TSCHED_VCLOS_SHAPES_ALL;
    a->pattern = -1;
    a->routing = TSCHED_VCLOS_ROUTING_SOURCE;
    a->timing = 1;
    a->seed = 1;
}

#define S vclos_args
static const cli_opt vclos_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "a two-tier fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-r", .type = CLI_OPT_FILE, .off = CLI_OFF(S, reqf), .arg = "REQUESTS",
     .help = "the requests, tsched.vclos-requests.v1"},
    {.lng = "--mode", .type = CLI_OPT_ENUM, .names = modes, .off = CLI_OFF(S, mode),
     .err = "unknown (vclos, ocs-vclos or free)", .arg = "M", .dflt = "vclos",
     .help = "vclos (reserved links), ocs-vclos or free"},
    {.lng = "--shapes", .type = CLI_OPT_ENUM, .names = shapes_names, .off = CLI_OFF(S, shapes),
     .err = "unknown (all or pow2)", .arg = "all|pow2", .dflt = "all", .help = "shapes tried for a multi-leaf job"},
    {.lng = "--state", .type = CLI_OPT_FILE, .flags = CLI_OPT_NO_SERVICE, .off = CLI_OFF(S, statef), .arg = "VCLOS",
     .dflt = "none", .help = "an earlier output whose jobs run already"},
    {.lng = "--pattern", .type = CLI_OPT_ENUM, .names = patterns, .off = CLI_OFF(S, pattern),
     .err = "unknown (ring, alltoall or hd)", .arg = "P", .dflt = "none",
     .help = "ring, alltoall or hd: add each job's flows"},
    {.lng = "--step", .type = CLI_OPT_UINT, .off = CLI_OFF(S, step), .given = CLI_GIVEN(S, has_step),
     .err = "is not a whole number", .arg = "S", .dflt = "0", .help = "the pattern's step"},
    {.lng = "--routing", .type = CLI_OPT_ENUM, .names = routings, .off = CLI_OFF(S, routing),
     .given = CLI_GIVEN(S, has_routing),
     .err = "unknown (source, ecmp or balanced-ecmp)", .arg = "R", .dflt = "source",
     .help = "mode free only: source, ecmp or balanced-ecmp"},
    {.lng = "--seed", .type = CLI_OPT_UINT, .flags = CLI_OPT_U64, .off = CLI_OFF(S, seed), .given = CLI_GIVEN(S, has_seed),
     .err = "is not a whole number", .arg = "N", .dflt = "1", .help = "mode free only: seed of the ECMP choices"},
    {.lng = "--time-limit-ms", .type = CLI_OPT_UINT, .off = CLI_OFF(S, limit), .given = CLI_GIVEN(S, has_limit),
     .err = "is not a whole number (0 = none)", .arg = "N", .dflt = "1000", .help = "bound of one allocation, 0 = none"},
    CLI_ROW_NO_TIMING(S, timing, "solve_ms"),
    CLI_ROW_COMPACT(S, compact_out),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_vclos = {"vclos", "vclos", vclos_opts, CLI_NOPTS(vclos_opts), sizeof(vclos_args), vclos_init, 0};

int cmd_vclos(int argc, char **argv)
{
    vclos_args a;
    vclos_init(&a);
    int prc = cli_opt_parse(&cli_spec_vclos, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *reqf = a.reqf, *statef = a.statef, *out = a.out;
    int mode = a.mode, shapes = a.shapes, pattern = a.pattern, routing = a.has_routing ? a.routing : -1;
    int timing = a.timing, compact_out = a.compact_out, has_step = a.has_step, has_seed = a.has_seed,
        has_limit = a.has_limit;
    unsigned step = a.step, limit = a.limit;
    uint64_t seed = a.seed;
    if (!topo || !reqf)
        return cli_usage_error("vclos: -t TOPO and -r REQUESTS are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    if (has_step && pattern < 0)
        return cli_usage_error("--step: needs --pattern");
    if ((routing >= 0 || has_seed) && mode != TSCHED_VCLOS_MODE_FREE)
        return cli_usage_error("%s: only --mode free chooses links (vclos and ocs-vclos use their source routes)",
                               routing >= 0 ? "--routing" : "--seed");
    if ((strcmp(topo, "-") == 0) + (strcmp(reqf, "-") == 0) + (statef && strcmp(statef, "-") == 0) > 1)
        return cli_usage_error("vclos: at most one file may be '-' (standard input)");

    tsched_topology *t = NULL;
    tsched_vclos *v = NULL;
    char *reqs = NULL, *state = NULL, *json = NULL;
    size_t rlen = 0, slen = 0;
    tsched_status st;
    int rc;
    if ((st = tsched_topology_load_file(&t, topo))) {
        rc = cli_fail(st);
        goto done;
    }
    if ((st = tsched_vclos_new(&v, t, (tsched_vclos_mode)mode))) {
        rc = cli_fail_in(st, "-t");
        goto done;
    }
    if ((st = tsched_vclos_set_shapes(v, (tsched_vclos_shapes)shapes)) ||
        (has_limit && (st = tsched_vclos_set_time_limit_ms(v, limit))) ||
        (mode == TSCHED_VCLOS_MODE_FREE &&
         (st = tsched_vclos_set_routing(v, routing < 0 ? TSCHED_VCLOS_ROUTING_SOURCE : (tsched_vclos_routing)routing,
                                        seed)))) {
        rc = cli_fail(st);
        goto done;
    }
    if (statef) {
        if ((rc = cli_read_file(statef, &state, &slen)) != CLI_OK)
            goto done;
        if ((st = tsched_vclos_load_state(v, state, slen))) {
            rc = cli_fail_in(st, strcmp(statef, "-") ? statef : "<stdin>");
            goto done;
        }
    }
    if ((rc = cli_read_file(reqf, &reqs, &rlen)) != CLI_OK)
        goto done;
    if ((st = tsched_vclos_apply_requests(&json, v, reqs, rlen, pattern, step, timing))) {
        rc = cli_fail_in(st, strcmp(reqf, "-") ? reqf : "<stdin>");
        goto done;
    }
    rc = cli_write_json(out, json, compact_out);
done:
    tsched_free(json);
    free(reqs);
    free(state);
    tsched_vclos_free(v);
    tsched_topology_free(t);
    return rc;
}
