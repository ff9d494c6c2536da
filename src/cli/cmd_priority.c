/* topo-sched prioritize -t TOPO -s JOBSET --levels K [--algo A] [--orders M] [--seed N]
 *                       [--compact] [-o FILE]
 * topo-sched kcut -d DAG --levels K [--algo A] [--orders M] [--seed N] [--threads N]
 *                 [--compact] [-o FILE] */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Options shared by both commands; returns CLI_OK, or a usage error's exit status. */
static int kcut_option(tsched_kcut_options *k, int *levels_given, int *compact, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int has = *i + 1 < argc;
    unsigned u;
    if (strcmp(a, "--levels") == 0 && has) {
        if (cli_parse_u32(argv[++*i], &u) != 0 || u == 0)
            return cli_usage_error("--levels: '%s' is not a whole number >= 1", argv[*i]);
        k->levels = u;
        *levels_given = 1;
    } else if (strcmp(a, "--algo") == 0 && has) {
        if (tsched_kcut_algo_from_name(&k->algo, argv[++*i]) != TSCHED_OK)
            return cli_usage_error("--algo: %s", tsched_last_error());
    } else if (strcmp(a, "--orders") == 0 && has) {
        if (cli_parse_u32(argv[++*i], &u) != 0 || u == 0)
            return cli_usage_error("--orders: '%s' is not a whole number >= 1", argv[*i]);
        k->orders = u;
    } else if (strcmp(a, "--seed") == 0 && has) {
        if (cli_parse_u64(argv[++*i], &k->seed) != 0)
            return cli_usage_error("--seed: '%s' is not a whole number", argv[*i]);
    } else if (strcmp(a, "--compact") == 0) {
        *compact = 1;
    } else {
        return -1; /* not one of ours */
    }
    return CLI_OK;
}

int cmd_kcut(int argc, char **argv)
{
    const char *dagf = NULL, *out = NULL;
    int levels_given = 0, compact = 0;
    tsched_kcut_options k;
    tsched_kcut_options_init(&k);
    for (int i = 1; i < argc; i++) {
        int rc = kcut_option(&k, &levels_given, &compact, argc, argv, &i);
        if (rc > 0)
            return rc;
        if (rc == 0)
            continue;
        if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dagf = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            unsigned u;
            if (cli_parse_u32(argv[++i], &u) != 0)
                return cli_usage_error("--threads: '%s' is not a whole number (0 = every online CPU)", argv[i]);
            k.threads = u;
        } else
            return cli_usage_error("kcut: unknown or incomplete option '%s'", argv[i]);
    }
    if (!dagf || !levels_given)
        return cli_usage_error("kcut: -d DAG and --levels K are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    tsched_dag *d = NULL;
    uint32_t *levels = NULL;
    char *json = NULL;
    double cut = 0;
    tsched_status st;
    int rc;
    if ((st = tsched_dag_load_file(&d, dagf)) != TSCHED_OK) {
        rc = cli_fail(st);
        goto out;
    }
    if (!(levels = calloc(tsched_dag_nodes(d) ? tsched_dag_nodes(d) : 1, sizeof *levels))) {
        fprintf(stderr, "topo-sched: out of memory\n");
        rc = CLI_INTERNAL;
        goto out;
    }
    if ((st = tsched_dag_compress(levels, &cut, d, &k)) ||
        (st = tsched_levels_to_json(&json, levels, tsched_dag_nodes(d), cut))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_write_json(out, json, compact);
out:
    tsched_free(json);
    free(levels);
    tsched_dag_free(d);
    return rc;
}

int cmd_prioritize(int argc, char **argv)
{
    const char *topo = NULL, *setf = NULL, *out = NULL;
    int levels_given = 0, compact = 0;
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    tsched_kcut_options k;
    tsched_kcut_options_init(&k);
    k.algo = o.algo;
    k.levels = o.levels;
    k.orders = o.orders;
    k.seed = o.seed;
    for (int i = 1; i < argc; i++) {
        int rc = kcut_option(&k, &levels_given, &compact, argc, argv, &i);
        if (rc > 0)
            return rc;
        if (rc == 0)
            continue;
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            topo = argv[++i];
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            setf = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else
            return cli_usage_error("prioritize: unknown or incomplete option '%s'", argv[i]);
    }
    if (!topo || !setf || !levels_given)
        return cli_usage_error("prioritize: -t TOPO, -s JOBSET and --levels K are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    o.algo = k.algo;
    o.levels = k.levels;
    o.orders = k.orders;
    o.seed = k.seed;
    tsched_topology *t = NULL;
    tsched_jobset *js = NULL;
    tsched_priorities *p = NULL;
    char *json = NULL;
    tsched_status st;
    int rc;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_jobset_load_file(&js, t, setf)) ||
        (st = tsched_prioritize(&p, t, js, &o)) || (st = tsched_priorities_to_json(&json, p, js))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_write_json(out, json, compact);
out:
    tsched_free(json);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
    return rc;
}
