/* topo-sched topology show | import-slurm | import-slurm-yaml | import-slurm-live | import-k8s-nodes */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"

typedef struct show_args {
    const char *topo, *out;
    int compact;
} show_args;

static void show_init(void *v) { memset(v, 0, sizeof(show_args)); }

static const cli_opt show_opts[] = {
    {.lng = "--topology", .shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(show_args, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    CLI_ROW_COMPACT(show_args, compact),
    CLI_ROW_OUT(show_args, out),
};

const cli_cmd_spec cli_spec_topology_show = {"topology show", NULL, show_opts, CLI_NOPTS(show_opts),
                                             sizeof(show_args), show_init, 1};

static int show(int argc, char **argv)
{
    show_args a;
    show_init(&a);
    int prc = cli_opt_parse(&cli_spec_topology_show, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *out = a.out;
    int compact = a.compact;
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

typedef struct import_args {
    const char *file, *out, *levels, *kueue, *nodes_json, *pods_json;
    int compact;
    tsched_slurm_options o;
    tsched_k8s_options k;
} import_args;

static void slurm_init(void *v)
{
    import_args *a = v;
    memset(a, 0, sizeof *a);
    tsched_slurm_options_init(&a->o);
}

static void k8s_init(void *v)
{
    import_args *a = v;
    memset(a, 0, sizeof *a);
    tsched_k8s_options_init(&a->k);
}

#define S import_args
#define FILE_ROW(what)                                                                                      \
    {.type = CLI_OPT_POS, .off = CLI_OFF(S, file), .arg = "FILE", .help = "the " what " ({D}; '-' = standard input)"}
#define NO_NVL_ROW(h)                                                                                       \
    {.lng = "--no-nvl", .type = CLI_OPT_FLAG, .set = 0, .off = CLI_OFF(S, o.block_nvl), .dflt = "one per block", .help = h}
/* the node options of the Slurm imports (the files have no GPU or NIC facts) */
#define NODE_ROWS(fabric_name)                                                                                 \
    {.lng = "--gpus-per-node", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, o.gpus_per_node),             \
     .err = "is not a positive whole number", .arg = "N", .dflt = "8", .help = "GPUs of every node"},            \
        {.lng = "--nics-per-node", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, o.nics_per_node),         \
         .err = "is not a positive whole number", .arg = "N", .dflt = "one per GPU", .help = "NICs of every node"}, \
        {.lng = "--nic-gbps", .type = CLI_OPT_DOUBLE, .flags = CLI_OPT_STRICT | CLI_OPT_MIN_OPEN, .min = 0,       \
         .max = INFINITY, .off = CLI_OFF(S, o.nic_gbps), .err = "is not a positive number", .arg = "X",         \
         .dflt = "400", .help = "Gbit/s of every NIC"},                                                        \
        {.lng = "--gpu-type", .type = CLI_OPT_STRING, .off = CLI_OFF(S, o.gpu_type), .arg = "T", .dflt = "GPU",  \
         .help = "GPU type of every node"},                                                                     \
        {.lng = "--name", .type = CLI_OPT_STRING, .off = CLI_OFF(S, o.name), .arg = "NAME", .dflt = fabric_name,       \
         .help = "fabric name"}
/* the live state (the service takes the file's text, or its object, as the option's value) */
#define NODES_JSON_ROW                                                                                         \
    {.lng = "--nodes-json", .type = CLI_OPT_FILE, .off = CLI_OFF(S, nodes_json), .svc = '?',                    \
     .arg = "FILE", .dflt = "every node up and free",                                                         \
     .help = "Slurm's node state ({D}; '-' = standard input):\n`scontrol show nodes --json` or `sinfo --json`; "  \
             "GPUs, free GPUs, down nodes"}

static const cli_opt slurm_opts[] = {
    FILE_ROW("topology.conf"),
    NO_NVL_ROW("block form: blocks are not NVLink domains"),
    NODE_ROWS("slurm"),
    NODES_JSON_ROW,
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};

static const cli_opt slurm_yaml_opts[] = {
    FILE_ROW("topology.yaml"),
    {.lng = "--topology", .type = CLI_OPT_STRING, .off = CLI_OFF(S, o.topology), .arg = "NAME",
     .dflt = "the first with cluster_default: true,\nelse the first tree or block entry", .help = "the entry to import"},
    {.lng = "--nvl-topology", .type = CLI_OPT_STRING, .off = CLI_OFF(S, o.nvl_topology), .arg = "NAME", .dflt = "none",
     .help = "a block entry that only sets the nodes' NVLink domains"},
    NO_NVL_ROW("an imported block entry sets no NVLink domains"),
    NODE_ROWS("slurm"),
    NODES_JSON_ROW,
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};

static const cli_opt k8s_opts[] = {
    FILE_ROW("node list"),
    {.lng = "--levels", .type = CLI_OPT_STRING, .off = CLI_OFF(S, levels), .arg = "K1,K2,...",
     .help = "label keys, coarsest first ({D} unless --kueue-topology); a last\nkubernetes.io/hostname stands for the "
             "node and is dropped",
     .svc = '?'},
    {.lng = "--kueue-topology", .type = CLI_OPT_FILE, .off = CLI_OFF(S, kueue), .arg = "FILE", .dflt = "none",
     .help = "read the keys from a Kueue Topology object, JSON or YAML", .svc = '?'},
    {.lng = "--nvl-label", .type = CLI_OPT_STRING, .off = CLI_OFF(S, k.nvl_label), .arg = "KEY",
     .dflt = "nvidia.com/gpu.clique", .help = "label naming a node's NVLink domain"},
    {.lng = "--gpu-resource", .type = CLI_OPT_STRING, .off = CLI_OFF(S, k.gpu_resource), .arg = "NAME",
     .dflt = "nvidia.com/gpu", .help = "allocatable resource counting GPUs"},
    {.lng = "--gpu-type", .type = CLI_OPT_STRING, .off = CLI_OFF(S, k.gpu_type), .arg = "T", .dflt = "GPU",
     .help = "GPU type when a node has no nvidia.com/gpu.product label"},
    {.lng = "--nics-per-node", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, k.nics_per_node),
     .err = "is not a positive whole number", .arg = "N", .dflt = "one per GPU", .help = "NICs of every node"},
    {.lng = "--nic-gbps", .type = CLI_OPT_DOUBLE, .flags = CLI_OPT_STRICT | CLI_OPT_MIN_OPEN, .min = 0,
     .max = INFINITY, .off = CLI_OFF(S, k.nic_gbps), .err = "is not a positive number", .arg = "X", .dflt = "400",
     .help = "Gbit/s of every NIC"},
    {.lng = "--name", .type = CLI_OPT_STRING, .off = CLI_OFF(S, k.name), .arg = "NAME", .dflt = "k8s",
     .help = "fabric name"},
    {.lng = "--pods-json", .type = CLI_OPT_FILE, .off = CLI_OFF(S, pods_json), .svc = '?', .arg = "FILE",
     .dflt = "every GPU free",
     .help = "the pods ({D}; '-' = standard input): `kubectl get pods -A -o json`;\nGPUs of pods bound to a node "
             "and not Succeeded/Failed are not free"},
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef NODES_JSON_ROW
#undef NODE_ROWS
#undef NO_NVL_ROW
#undef FILE_ROW
#undef S

const cli_cmd_spec cli_spec_import_slurm = {"topology import-slurm", "import-slurm", slurm_opts, CLI_NOPTS(slurm_opts),
                                            sizeof(import_args), slurm_init, 0};
const cli_cmd_spec cli_spec_import_slurm_yaml = {"topology import-slurm-yaml", "import-slurm-yaml", slurm_yaml_opts,
                                                 CLI_NOPTS(slurm_yaml_opts), sizeof(import_args), slurm_init, 0};
const cli_cmd_spec cli_spec_import_k8s = {"topology import-k8s-nodes", "import-k8s-nodes", k8s_opts, CLI_NOPTS(k8s_opts),
                                          sizeof(import_args), k8s_init, 0};

/* A failed import: an error in the live state (`field`, "nodes_json:") names the file the
 * user gave (`file`, NULL when none) instead of the option. */
static int live_fail(tsched_status st, const char *field, const char *file)
{
    const char *msg = tsched_last_error();
    size_t n = strlen(field);
    if (!file || strncmp(msg, field, n) != 0)
        return cli_fail(st);
    fprintf(stderr, "topo-sched: %s:%s\n", strcmp(file, "-") == 0 ? "<stdin>" : file, msg + n);
    return cli_fail_status(st);
}

/* Read the live-state file `file` of option `opt` (NULL: none) into *text; FILE is the
 * positional file, which may not also be standard input. */
static int live_read(char **text, const char *cmd, const char *opt, const char *file, const char *pos)
{
    *text = NULL;
    if (!file)
        return CLI_OK;
    if (strcmp(file, "-") == 0 && strcmp(pos, "-") == 0)
        return cli_usage_error("%s: FILE and %s cannot both be standard input", cmd, opt);
    size_t len;
    return cli_read_file(file, text, &len);
}

/* import-slurm FILE [--no-nvl] [node options] [--nodes-json FILE2] and import-slurm-yaml FILE
 * [--topology NAME] [--nvl-topology NAME] [node options] [--nodes-json FILE2]. */
static int import_slurm_any(int argc, char **argv, int yaml)
{
    const char *cmd = yaml ? "topology import-slurm-yaml" : "topology import-slurm";
    import_args a;
    slurm_init(&a);
    int prc = cli_opt_parse(yaml ? &cli_spec_import_slurm_yaml : &cli_spec_import_slurm, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *file = a.file, *out = a.out;
    int compact = a.compact;
    tsched_slurm_options o = a.o;
    if (!file)
        return cli_usage_error("%s: FILE is required", cmd);
    char *live = NULL;
    int rc = live_read(&live, cmd, "--nodes-json", a.nodes_json, file);
    if (rc != CLI_OK)
        return rc;
    o.nodes_json = live;
    tsched_topology *t;
    tsched_status st = yaml ? tsched_topology_import_slurm_yaml_file(&t, file, &o)
                            : tsched_topology_import_slurm_file(&t, file, &o);
    free(live);
    if (st != TSCHED_OK)
        return live_fail(st, "nodes_json:", a.nodes_json);
    char *json;
    st = tsched_topology_to_json(&json, t);
    tsched_topology_free(t);
    return cli_emit_doc(st, json, out, compact);
}

static int import_slurm(int argc, char **argv) { return import_slurm_any(argc, argv, 0); }
static int import_slurm_yaml(int argc, char **argv) { return import_slurm_any(argc, argv, 1); }

/* import-slurm-live [ARGS]: the live state comes from libslurm, which the library never links:
 * run `topo-sched-slurm state ARGS` in this process's place. The program is
 * $TSCHED_SLURM_PLACER, else topo-sched-slurm next to this executable, else on PATH. */
static int import_slurm_live(int argc, char **argv)
{
    static const char prog[] = "topo-sched-slurm";
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        fputs("topo-sched: import-slurm-live: out of memory\n", stderr);
        return CLI_INTERNAL;
    }
    args[0] = (char *)prog;
    args[1] = (char *)"state";
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    const char *env = getenv("TSCHED_SLURM_PLACER");
    if (env && *env) {
        args[0] = (char *)env;
        execv(env, args);
        int err = errno;
        free(args);
        fprintf(stderr, "topo-sched: import-slurm-live: TSCHED_SLURM_PLACER=%s: cannot run: %s\n", env, strerror(err));
        return CLI_BAD_INPUT;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash && (size_t)(slash + 1 - self) + sizeof prog <= sizeof self) {
            memcpy(slash + 1, prog, sizeof prog);
            if (access(self, X_OK) == 0)
                execv(self, args);
        }
    }
    execvp(prog, args);
    free(args);
    fprintf(stderr, "topo-sched: import-slurm-live: %s not found (built only where Slurm's libslurm is installed)\n",
            prog);
    return CLI_BAD_INPUT;
}

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
 * [--gpu-resource NAME] [--gpu-type T] [--nics-per-node N] [--nic-gbps X] [--name NAME]
 * [--pods-json FILE2] */
static int import_k8s_nodes(int argc, char **argv)
{
    const char *cmd = "topology import-k8s-nodes";
    const char *keys[64];
    import_args a;
    k8s_init(&a);
    int prc = cli_opt_parse(&cli_spec_import_k8s, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *file = a.file, *out = a.out, *kueue = a.kueue, *levels = a.levels;
    int compact = a.compact;
    tsched_k8s_options o = a.k;
    if (!file)
        return cli_usage_error("%s: FILE is required", cmd);
    if (!levels == !kueue)
        return cli_usage_error("%s: give exactly one of --levels K1,K2,... and --kueue-topology FILE", cmd);
    if (kueue && a.pods_json && strcmp(kueue, "-") == 0 && strcmp(a.pods_json, "-") == 0)
        return cli_usage_error("%s: --kueue-topology and --pods-json cannot both be standard input", cmd);
    char *ktext = NULL, *copy = NULL, *pods = NULL;
    int rc = live_read(&pods, cmd, "--pods-json", a.pods_json, file);
    if (rc != CLI_OK)
        return rc;
    o.pods_json = pods;
    if (levels) {
        int n = (copy = strdup(levels)) ? split_keys(copy, keys, (int)(sizeof keys / sizeof keys[0])) : -1;
        if (n < 0) {
            free(copy);
            free(pods);
            return cli_usage_error("--levels: '%s' is not a comma-separated list of label keys", levels);
        }
        o.levels = keys;
        o.nlevels = (uint32_t)n;
    } else {
        size_t len;
        if ((rc = cli_read_file(kueue, &ktext, &len)) != CLI_OK) {
            free(pods);
            return rc;
        }
        o.kueue_topology = ktext;
        o.kueue_topology_name = kueue;
    }
    tsched_topology *t;
    tsched_status st = tsched_topology_import_k8s_nodes_file(&t, file, &o);
    free(ktext);
    free(copy);
    free(pods);
    if (st != TSCHED_OK) {
        /* an error in the levels names --levels as the user typed it */
        static const char field[] = "tsched_k8s_options.levels";
        const char *msg = tsched_last_error();
        if (levels && strncmp(msg, field, sizeof field - 1) == 0) {
            fprintf(stderr, "topo-sched: --levels%s\n", msg + sizeof field - 1);
            return cli_fail_status(st);
        }
        return live_fail(st, "pods_json:", a.pods_json);
    }
    char *json;
    st = tsched_topology_to_json(&json, t);
    tsched_topology_free(t);
    return cli_emit_doc(st, json, out, compact);
}

int cmd_topology(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(
            "topology: missing subcommand (show, import-slurm, import-slurm-yaml, import-slurm-live, import-k8s-nodes)");
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm") == 0)
        return import_slurm(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return cmd_topology_export(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm-yaml") == 0)
        return import_slurm_yaml(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-slurm-live") == 0)
        return import_slurm_live(argc - 1, argv + 1);
    if (strcmp(argv[1], "import-k8s-nodes") == 0)
        return import_k8s_nodes(argc - 1, argv + 1);
    return cli_usage_error("topology: unknown subcommand '%s'", argv[1]);
}
