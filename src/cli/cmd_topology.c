/* topo-sched topology show | import-slurm */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int show(int argc, char **argv)
{
    const char *topo = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "--topology") == 0) && i + 1 < argc)
            topo = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else
            return cli_usage_error("topology show: unexpected argument '%s'", argv[i]);
    }
    if (!topo)
        return cli_usage_error("topology show: -t TOPO is required");
    tsched_topology *t;
    tsched_status st = tsched_topology_load_file(&t, topo);
    if (st != TSCHED_OK)
        return cli_fail(st);
    char *json;
    st = tsched_topology_summary_json(&json, t);
    tsched_topology_free(t);
    return cli_emit(st, json, out);
}

static int import_slurm(int argc, char **argv)
{
    const char *file = NULL, *out = NULL;
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--gpus-per-node") == 0 && has) {
            if (cli_parse_u32(argv[++i], &o.gpus_per_node) != 0 || o.gpus_per_node == 0)
                return cli_usage_error("--gpus-per-node: '%s' is not a positive whole number", argv[i]);
        } else if (strcmp(a, "--nics-per-node") == 0 && has) {
            if (cli_parse_u32(argv[++i], &o.nics_per_node) != 0 || o.nics_per_node == 0)
                return cli_usage_error("--nics-per-node: '%s' is not a positive whole number", argv[i]);
        } else if (strcmp(a, "--nic-gbps") == 0 && has) {
            if (cli_parse_double(argv[++i], &o.nic_gbps) != 0)
                return cli_usage_error("--nic-gbps: '%s' is not a positive number", argv[i]);
        } else if (strcmp(a, "--gpu-type") == 0 && has) {
            o.gpu_type = argv[++i];
        } else if (strcmp(a, "--name") == 0 && has) {
            o.name = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("topology import-slurm: unknown or incomplete option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            return cli_usage_error("topology import-slurm: unexpected argument '%s'", a);
        }
    }
    if (!file)
        return cli_usage_error("topology import-slurm: FILE is required");
    tsched_topology *t;
    tsched_status st = tsched_topology_import_slurm_file(&t, file, &o);
    if (st != TSCHED_OK)
        return cli_fail(st);
    char *json;
    st = tsched_topology_to_json(&json, t);
    tsched_topology_free(t);
    return cli_emit(st, json, out);
}

int cmd_topology(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("topology: missing subcommand (show, import-slurm)");
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm") == 0)
        return import_slurm(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return cmd_topology_export(argc - 1, argv + 1);
    return cli_usage_error("topology: unknown subcommand '%s'", argv[1]);
}
