/* topo-sched topology export -t TOPO --to slurm-conf|slurm-yaml|kueue|kai|volcano ...
 * (doc/export.md; help text in help.c). All the work is tsched_topology_export(); the NVLink
 * warning, when the library gives one, is one line on standard error and the exit status
 * stays 0. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_topology_export(int argc, char **argv)
{
    const char *topo = NULL, *out = NULL, *to = NULL, *levels_arg = NULL;
    tsched_export_options o;
    tsched_export_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-t") == 0 && has) {
            topo = argv[++i];
        } else if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--to") == 0 && has) {
            to = argv[++i];
            if (tsched_export_format_from_name(&o.to, to) != TSCHED_OK)
                return cli_usage_error("--to: %s", tsched_last_error());
        } else if (strcmp(a, "--levels") == 0 && has) {
            levels_arg = argv[++i];
        } else if (strcmp(a, "--block") == 0) {
            o.block = 1;
        } else if (strcmp(a, "--physical") == 0) {
            o.physical = 1;
        } else if (strcmp(a, "--kueue-api") == 0 && has) {
            const char *v = argv[++i];
            if (strcmp(v, "v1beta2") == 0)
                o.kueue_api = TSCHED_KUEUE_V1BETA2;
            else if (strcmp(v, "v1beta1") == 0)
                o.kueue_api = TSCHED_KUEUE_V1BETA1;
            else
                return cli_usage_error("--kueue-api: '%s' is not v1beta1 or v1beta2", v);
        } else if (strcmp(a, "--tier-names") == 0) {
            o.tier_names = 1;
        } else if (strcmp(a, "--sanitize") == 0) {
            o.sanitize = 1;
        } else if (strcmp(a, "--format") == 0 && has) {
            const char *v = argv[++i];
            if (strcmp(v, "json") == 0)
                o.json = 1;
            else if (strcmp(v, "yaml") == 0)
                o.json = 0;
            else
                return cli_usage_error("--format: '%s' is not yaml or json", v);
        } else if (strcmp(a, "--name") == 0 && has) {
            o.name = argv[++i];
        } else {
            return cli_usage_error("topology export: unknown or incomplete option '%s'", a);
        }
    }
    if (!topo || !to)
        return cli_usage_error("topology export: -t TOPO and --to FORMAT are required");
    int slurm = o.to == TSCHED_EXPORT_SLURM_CONF || o.to == TSCHED_EXPORT_SLURM_YAML;
    if (slurm && (levels_arg || o.sanitize || o.json))
        return cli_usage_error("topology export: %s applies to kueue, kai and volcano only",
                               levels_arg ? "--levels" : o.sanitize ? "--sanitize" : "--format json");
    if (o.block && o.to != TSCHED_EXPORT_SLURM_CONF)
        return cli_usage_error("topology export: --block applies to slurm-conf only");
    if (o.physical && !slurm)
        return cli_usage_error("topology export: --physical applies to slurm-conf and slurm-yaml only");
    if (o.kueue_api != TSCHED_KUEUE_V1BETA2 && o.to != TSCHED_EXPORT_KUEUE)
        return cli_usage_error("topology export: --kueue-api applies to kueue only");
    if (o.tier_names && o.to != TSCHED_EXPORT_VOLCANO)
        return cli_usage_error("topology export: --tier-names applies to volcano only");
    /* --levels: comma-separated keys, none empty */
    char *copy = NULL;
    const char **keys = NULL;
    if (levels_arg) {
        size_t n = 1;
        for (const char *p = levels_arg; *p; p++)
            n += *p == ',';
        copy = malloc(strlen(levels_arg) + 1);
        keys = malloc(n * sizeof *keys);
        if (!copy || !keys) {
            free(copy);
            free(keys);
            fputs("topo-sched: out of memory\n", stderr);
            return CLI_INTERNAL;
        }
        strcpy(copy, levels_arg);
        size_t k = 0;
        for (char *p = copy, *start = copy;; p++)
            if (*p == ',' || *p == '\0') {
                int end = *p == '\0';
                *p = '\0';
                keys[k++] = start;
                start = p + 1;
                if (end)
                    break;
            }
        for (size_t i = 0; i < k; i++)
            if (!*keys[i]) {
                free(copy);
                free(keys);
                return cli_usage_error("--levels: key %zu of '%s' is empty", i + 1, levels_arg);
            }
        o.levels = keys;
        o.num_levels = (uint32_t)k;
    }
    tsched_topology *t = NULL;
    char *text = NULL;
    int rc;
    tsched_status st = tsched_topology_load_file(&t, topo);
    if (st != TSCHED_OK) {
        rc = cli_fail(st);
    } else if ((st = tsched_topology_export(&text, t, &o)) != TSCHED_OK) {
        rc = cli_fail_in(st, topo);
    } else {
        if (*tsched_topology_export_warning())
            fprintf(stderr, "topo-sched: warning: %s: %s\n", topo, tsched_topology_export_warning());
        rc = cli_write_raw(out, text);
    }
    tsched_free(text);
    tsched_topology_free(t);
    free(copy);
    free(keys);
    return rc;
}
