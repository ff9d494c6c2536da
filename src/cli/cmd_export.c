/* topo-sched topology export -t TOPO --to slurm-conf|slurm-yaml|kueue|kai|volcano ...
 * (doc/export.md; help text in help.c). All the work is tsched_topology_export(); the NVLink
 * warning, when the library gives one, is one line on standard error and the exit status
 * stays 0. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const export_formats[] = {"slurm-conf", "slurm-yaml", "kueue", "kai", "volcano", NULL};
static const char *const kueue_apis[] = {"v1alpha1", "v1beta1", "v1beta2", NULL};
static const int kueue_api_values[] = {TSCHED_KUEUE_V1ALPHA1, TSCHED_KUEUE_V1BETA1, TSCHED_KUEUE_V1BETA2};
static const char *const yaml_json[] = {"yaml", "json", NULL};

static int conv_to(void *dst, const char *s) { return tsched_export_format_from_name(dst, s) != TSCHED_OK; }

typedef struct export_args {
    const char *topo, *out, *levels;
    int to_given;
    tsched_export_options o;
} export_args;

static void export_init(void *v)
{
    export_args *a = v;
    memset(a, 0, sizeof *a);
    tsched_export_options_init(&a->o);
}

#define S export_args
static const cli_opt export_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.lng = "--to", .type = CLI_OPT_ENUM, .names = export_formats, .conv = conv_to, .off = CLI_OFF(S, o.to),
     .given = CLI_GIVEN(S, to_given), .arg = "FORMAT", .help = "slurm-conf, slurm-yaml, kueue, kai or volcano"},
    {.lng = "--levels", .type = CLI_OPT_STRING, .off = CLI_OFF(S, levels), .arg = "K1,...",
     .dflt = "the import's\nlabels, else tsched.topology/leaf, /spine, /core, /tier<k>, /nvl",
     .help = "label keys, one per written level, coarsest first", .svc = '?'},
    {.lng = "--block", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.block), .dflt = "tree",
     .help = "slurm-conf: the block form, one block per NVLink domain"},
    {.lng = "--physical", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.physical), .dflt = "domain tree",
     .help = "Slurm: every switch and link, not the domain tree"},
    {.lng = "--kueue-api", .type = CLI_OPT_ENUM, .names = kueue_apis, .values = kueue_api_values,
     .off = CLI_OFF(S, o.kueue_api), .err = "is not v1alpha1, v1beta1 or v1beta2", .arg = "VERSION", .dflt = "v1beta2",
     .help = "kueue: v1alpha1 (Kueue <= 0.13), v1beta1 (0.14) or v1beta2"},
    {.lng = "--tier-names", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.tier_names), .dflt = "off",
     .help = "volcano: also write spec.tierName"},
    {.lng = "--sanitize", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.sanitize), .dflt = "off",
     .help = "fit names to the target ({D}, an invalid or over-long name is exit 2):\nKubernetes "
             "lower-case, invalid characters to '-'; names over the limit shortened\nwith a hash suffix"},
    {.lng = "--format", .type = CLI_OPT_ENUM, .names = yaml_json, .off = CLI_OFF(S, o.json), .err = "is not yaml or json",
     .arg = "yaml|json", .dflt = "yaml", .help = "Kubernetes objects as a YAML stream or one v1 List"},
    {.lng = "--name", .type = CLI_OPT_STRING, .off = CLI_OFF(S, o.name), .arg = "NAME", .dflt = "the fabric's name",
     .help = "Topology object name (Kueue, KAI), Slurm topology name"},
    {.lng = "--no-hostname-level", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.no_hostname_level),
     .dflt = "written", .help = "kueue, kai: no kubernetes.io/hostname level in spec.levels"},
    {.lng = "--no-nodes", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, o.no_nodes), .dflt = "written",
     .help = "kueue, kai, volcano: no Node objects"},
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_export = {"topology export", "export", export_opts, CLI_NOPTS(export_opts),
                                      sizeof(export_args), export_init, 0};

int cmd_topology_export(int argc, char **argv)
{
    export_args a;
    export_init(&a);
    int prc = cli_opt_parse(&cli_spec_export, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *out = a.out, *to = a.to_given ? "" : NULL, *levels_arg = a.levels;
    tsched_export_options o = a.o;
    if (!topo || !to)
        return cli_usage_error("topology export: -t TOPO and --to FORMAT are required");
    int slurm = o.to == TSCHED_EXPORT_SLURM_CONF || o.to == TSCHED_EXPORT_SLURM_YAML;
    /* kubectl's `-o yaml` names a format; here -o names the file, so a bare format word is
     * almost surely that habit (a file named "yaml" in the current directory is rarely meant) */
    if (out && (!strcmp(out, "yaml") || !strcmp(out, "yml") || !strcmp(out, "json")))
        return cli_usage_error("topology export: -o %s names the output file; for the format use --format %s "
                               "(--format json for JSON), for a file of that name -o ./%s",
                               out, strcmp(out, "json") ? "yaml" : "json", out);
    if (slurm && (levels_arg || o.no_nodes || o.json))
        return cli_usage_error("topology export: %s applies to kueue, kai and volcano only",
                               levels_arg ? "--levels" : o.no_nodes ? "--no-nodes" : "--format json");
    if (o.no_hostname_level && o.to != TSCHED_EXPORT_KUEUE && o.to != TSCHED_EXPORT_KAI)
        return cli_usage_error("topology export: --no-hostname-level applies to kueue and kai only");
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
