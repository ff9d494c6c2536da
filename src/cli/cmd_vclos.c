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

/* Index of `s` in the NULL-terminated `names`, or -1. */
static int pick(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int cmd_vclos(int argc, char **argv)
{
    static const char *const modes[] = {"vclos", "ocs-vclos", "free", NULL};
    static const char *const shapes_names[] = {"all", "pow2", NULL};
    static const char *const patterns[] = {"ring", "alltoall", "hd", NULL};
    static const char *const routings[] = {"source", "ecmp", "balanced-ecmp", NULL};
    const char *topo = NULL, *reqf = NULL, *statef = NULL, *out = NULL;
    int mode = TSCHED_VCLOS_MODE_VCLOS, shapes = TSCHED_VCLOS_SHAPES_ALL, pattern = -1, routing = -1;
    int timing = 1, compact_out = 0, has_step = 0, has_seed = 0, has_limit = 0;
    unsigned step = 0, limit = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-t") && has)
            topo = argv[++i];
        else if (!strcmp(a, "-r") && has)
            reqf = argv[++i];
        else if (!strcmp(a, "--state") && has)
            statef = argv[++i];
        else if (!strcmp(a, "-o") && has)
            out = argv[++i];
        else if (!strcmp(a, "--mode") && has) {
            if ((mode = pick(argv[++i], modes)) < 0)
                return cli_usage_error("--mode: '%s' unknown (vclos, ocs-vclos or free)", argv[i]);
        } else if (!strcmp(a, "--shapes") && has) {
            if ((shapes = pick(argv[++i], shapes_names)) < 0)
                return cli_usage_error("--shapes: '%s' unknown (all or pow2)", argv[i]);
        } else if (!strcmp(a, "--pattern") && has) {
            if ((pattern = pick(argv[++i], patterns)) < 0)
                return cli_usage_error("--pattern: '%s' unknown (ring, alltoall or hd)", argv[i]);
        } else if (!strcmp(a, "--routing") && has) {
            if ((routing = pick(argv[++i], routings)) < 0)
                return cli_usage_error("--routing: '%s' unknown (source, ecmp or balanced-ecmp)", argv[i]);
        } else if (!strcmp(a, "--step") && has) {
            if (cli_parse_u32(argv[++i], &step) != 0)
                return cli_usage_error("--step: '%s' is not a whole number", argv[i]);
            has_step = 1;
        } else if (!strcmp(a, "--seed") && has) {
            if (cli_parse_u64(argv[++i], &seed) != 0)
                return cli_usage_error("--seed: '%s' is not a whole number", argv[i]);
            has_seed = 1;
        } else if (!strcmp(a, "--time-limit-ms") && has) {
            if (cli_parse_u32(argv[++i], &limit) != 0)
                return cli_usage_error("--time-limit-ms: '%s' is not a whole number (0 = none)", argv[i]);
            has_limit = 1;
        } else if (!strcmp(a, "--no-timing"))
            timing = 0;
        else if (!strcmp(a, "--compact"))
            compact_out = 1;
        else
            return cli_usage_error("vclos: unknown or incomplete option '%s'", a);
    }
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
