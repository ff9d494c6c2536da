/* topo-sched topology show | import-slurm | import-slurm-yaml | import-k8s-nodes */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int show(int argc, char **argv)
{
    const char *topo = NULL, *out = NULL;
    int compact = 0;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "--topology") == 0) && i + 1 < argc)
            topo = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--compact") == 0)
            compact = 1;
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
    return cli_emit_doc(st, json, out, compact);
}

/* ---- imports of foreign formats (import-slurm, import-slurm-yaml, import-k8s-nodes) ---- */

/* The node options shared by the Slurm imports: 1 when argv[*i] was one (value consumed),
 * 0 when it is not one, -1 after a usage error (printed). */
static int slurm_node_option(int argc, char **argv, int *i, tsched_slurm_options *o)
{
    const char *a = argv[*i];
    if (*i + 1 >= argc)
        return 0;
    if (strcmp(a, "--gpus-per-node") == 0) {
        if (cli_parse_u32(argv[++*i], &o->gpus_per_node) != 0 || o->gpus_per_node == 0)
            return cli_usage_error("--gpus-per-node: '%s' is not a positive whole number", argv[*i]), -1;
    } else if (strcmp(a, "--nics-per-node") == 0) {
        if (cli_parse_u32(argv[++*i], &o->nics_per_node) != 0 || o->nics_per_node == 0)
            return cli_usage_error("--nics-per-node: '%s' is not a positive whole number", argv[*i]), -1;
    } else if (strcmp(a, "--nic-gbps") == 0) {
        if (cli_parse_double(argv[++*i], &o->nic_gbps) != 0)
            return cli_usage_error("--nic-gbps: '%s' is not a positive number", argv[*i]), -1;
    } else if (strcmp(a, "--gpu-type") == 0) {
        o->gpu_type = argv[++*i];
    } else if (strcmp(a, "--name") == 0) {
        o->name = argv[++*i];
    } else {
        return 0;
    }
    return 1;
}

/* import-slurm FILE [--no-nvl] [node options] and import-slurm-yaml FILE [--topology NAME]
 * [--nvl-topology NAME] [node options]. */
static int import_slurm_any(int argc, char **argv, int yaml)
{
    const char *cmd = yaml ? "topology import-slurm-yaml" : "topology import-slurm";
    const char *file = NULL, *out = NULL;
    int compact = 0;
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc, r = slurm_node_option(argc, argv, &i, &o);
        if (r < 0)
            return CLI_BAD_INPUT;
        if (r > 0)
            continue;
        if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--compact") == 0) {
            compact = 1;
        } else if (strcmp(a, "--no-nvl") == 0) {
            o.block_nvl = 0;
        } else if (yaml && strcmp(a, "--topology") == 0 && has) {
            o.topology = argv[++i];
        } else if (yaml && strcmp(a, "--nvl-topology") == 0 && has) {
            o.nvl_topology = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("%s: unknown or incomplete option '%s'", cmd, a);
        } else if (!file) {
            file = a;
        } else {
            return cli_usage_error("%s: unexpected argument '%s'", cmd, a);
        }
    }
    if (!file)
        return cli_usage_error("%s: FILE is required", cmd);
    tsched_topology *t;
    tsched_status st = yaml ? tsched_topology_import_slurm_yaml_file(&t, file, &o)
                            : tsched_topology_import_slurm_file(&t, file, &o);
    if (st != TSCHED_OK)
        return cli_fail(st);
    char *json;
    st = tsched_topology_to_json(&json, t);
    tsched_topology_free(t);
    return cli_emit_doc(st, json, out, compact);
}

static int import_slurm(int argc, char **argv) { return import_slurm_any(argc, argv, 0); }
static int import_slurm_yaml(int argc, char **argv) { return import_slurm_any(argc, argv, 1); }

/* Split "K1,K2,..." in place into `keys` (at most `cap`); returns the count, or -1 when an
 * entry is empty or there are too many. */
static int split_keys(char *list, const char **keys, int cap)
{
    int n = 0;
    for (char *p = list;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p || n == cap)
            return -1;
        keys[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

/* import-k8s-nodes FILE (--levels K1,... | --kueue-topology FILE) [--nvl-label KEY]
 * [--gpu-resource NAME] [--gpu-type T] [--nics-per-node N] [--nic-gbps X] [--name NAME] */
static int import_k8s_nodes(int argc, char **argv)
{
    const char *cmd = "topology import-k8s-nodes";
    const char *file = NULL, *out = NULL, *kueue = NULL;
    int compact = 0;
    const char *levels = NULL;
    const char *keys[64];
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--compact") == 0) {
            compact = 1;
        } else if (strcmp(a, "--levels") == 0 && has) {
            levels = argv[++i];
        } else if (strcmp(a, "--kueue-topology") == 0 && has) {
            kueue = argv[++i];
        } else if (strcmp(a, "--nvl-label") == 0 && has) {
            o.nvl_label = argv[++i];
        } else if (strcmp(a, "--gpu-resource") == 0 && has) {
            o.gpu_resource = argv[++i];
        } else if (strcmp(a, "--gpu-type") == 0 && has) {
            o.gpu_type = argv[++i];
        } else if (strcmp(a, "--nics-per-node") == 0 && has) {
            if (cli_parse_u32(argv[++i], &o.nics_per_node) != 0 || o.nics_per_node == 0)
                return cli_usage_error("--nics-per-node: '%s' is not a positive whole number", argv[i]);
        } else if (strcmp(a, "--nic-gbps") == 0 && has) {
            if (cli_parse_double(argv[++i], &o.nic_gbps) != 0)
                return cli_usage_error("--nic-gbps: '%s' is not a positive number", argv[i]);
        } else if (strcmp(a, "--name") == 0 && has) {
            o.name = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("%s: unknown or incomplete option '%s'", cmd, a);
        } else if (!file) {
            file = a;
        } else {
            return cli_usage_error("%s: unexpected argument '%s'", cmd, a);
        }
    }
    if (!file)
        return cli_usage_error("%s: FILE is required", cmd);
    if (!levels == !kueue)
        return cli_usage_error("%s: give exactly one of --levels K1,K2,... and --kueue-topology FILE", cmd);
    char *ktext = NULL, *copy = NULL;
    if (levels) {
        int n = (copy = strdup(levels)) ? split_keys(copy, keys, (int)(sizeof keys / sizeof keys[0])) : -1;
        if (n < 0) {
            free(copy);
            return cli_usage_error("--levels: '%s' is not a comma-separated list of label keys", levels);
        }
        o.levels = keys;
        o.nlevels = (uint32_t)n;
    } else {
        size_t len;
        int rc = cli_read_file(kueue, &ktext, &len);
        if (rc != CLI_OK)
            return rc;
        o.kueue_topology = ktext;
        o.kueue_topology_name = kueue;
    }
    tsched_topology *t;
    tsched_status st = tsched_topology_import_k8s_nodes_file(&t, file, &o);
    free(ktext);
    free(copy);
    if (st != TSCHED_OK) {
        /* an error in the levels names --levels as the user typed it */
        static const char field[] = "tsched_k8s_options.levels";
        const char *msg = tsched_last_error();
        if (levels && strncmp(msg, field, sizeof field - 1) == 0) {
            fprintf(stderr, "topo-sched: --levels%s\n", msg + sizeof field - 1);
            return cli_fail_status(st);
        }
        return cli_fail(st);
    }
    char *json;
    st = tsched_topology_to_json(&json, t);
    tsched_topology_free(t);
    return cli_emit_doc(st, json, out, compact);
}

int cmd_topology(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("topology: missing subcommand (show, import-slurm, import-slurm-yaml, import-k8s-nodes)");
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm") == 0)
        return import_slurm(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return cmd_topology_export(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm-yaml") == 0)
        return import_slurm_yaml(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-k8s-nodes") == 0)
        return import_k8s_nodes(argc - 1, argv + 1);
    return cli_usage_error("topology: unknown subcommand '%s'", argv[1]);
}
