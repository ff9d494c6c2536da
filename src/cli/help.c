/* Help texts: `topo-sched CMD --help`, `-h` anywhere, `topo-sched help [CMD]`.
 * One text per command, as typed: the usage line, one line per option with its default,
 * the exit statuses. The option lines come from the command's option table (opt.h, next to
 * its parser in cmd_*.c); tests/test_options.c checks the tables against this text,
 * doc/topo-sched.1 and the service. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

#define HELP_LINE "  -h, --help              print this help and exit 0 (default: off)\n"
#define EXIT_0123(one)                                                                                     \
    "\nexit status: 0 success; 1 " one ";\n"                                                               \
    "2 bad usage or bad input (one line on standard error naming the file and field, nothing on\n"        \
    "standard output); 3 internal or solver failure.\n"
#define EXIT_023                                                                                           \
    "\nexit status: 0 success; 2 bad usage or bad input (one line on standard error naming the\n"          \
    "file and field, nothing on standard output); 3 internal failure.\n"
static const char help_all[] =
    "usage: topo-sched [--limit NAME=N]... COMMAND [ARGS]\n"
    "       topo-sched COMMAND --help | topo-sched help [COMMAND] | topo-sched --version\n"
    "\n"
    "commands (each prints its options and their defaults with --help):\n"
    "  demo                          the embedded showcase: no files needed\n"
    "  topology show                 summary of a fabric: counts per tier, GPUs, free, down\n"
    "  topology import-slurm         Slurm topology.conf (tree or block form) -> tsched.topology.v1\n"
    "  topology import-slurm-yaml    Slurm topology.yaml -> tsched.topology.v1\n"
    "  topology import-slurm-live    a running Slurm's topology and node state -> tsched.topology.v1\n"
    "  topology import-k8s-nodes     `kubectl get nodes -o json` and label keys -> tsched.topology.v1\n"
    "  topology export               a fabric as Slurm topology.conf/.yaml, Kueue, KAI or Volcano objects\n"
    "  place                         place a job: tsched.placement.v1, host files, pod order\n"
    "  flows                         the flows one step of a collective puts on the fabric\n"
    "  route                         a path and a max-min fair rate for every flow\n"
    "  prioritize                    CRUX intensities, priorities and K hardware levels\n"
    "  kcut                          compress a tsched.dag.v1 to K levels\n"
    "  simulate                      flow-level simulation of jobs sharing the fabric\n"
    "  trace convert-alibaba         Alibaba GPU pods (v2023) -> tsched.trace.v1\n"
    "  trace convert-dcn             dcn-simulators ring pairs -> tsched.trace.v1\n"
    "  trace poisson                 synthetic jobs -> tsched.trace.v1\n"
    "  vclos                         vClos: an isolated leaf-spine sub-fabric per job\n"
    "  cells                         Crius Cells of a job on every GPU pool\n"
    "  crius-schedule                one Crius scheduling event\n"
    "  draw                          the fabric as an SVG or PNG picture, or Graphviz DOT\n"
    "  serve                         answer JSON requests line by line (stdin or a Unix socket)\n"
    "  help [COMMAND]                this list, or one command's options\n"
    "\n"
    "options before the command:\n"
    "  --limit NAME=N          raise or lower a resource limit, repeatable; N = 0 restores the default\n"
    "                          (defaults: input_bytes 268435456, nodes 1048576, switches 262144,\n"
    "                          nics_per_node 256, gpus_per_node 1024, trunks 4194304, name_bytes 255,\n"
    "                          flows 67108864, kcut_orders 10000, kcut_levels 64, dag_nodes 16777216,\n"
    "                          kcut_memory 1073741824, sim_events 268435456, output_bytes 268435456,\n"
    "                          members 1048576)\n"
    "  --version               print the library version and exit 0\n"
    "  -h, --help              print this list and exit 0\n"
    "\n"
    "Files may be '-' for standard input (at most one per command line); results go to standard\n"
    "output unless -o FILE. The manual page topo-sched(1) describes every command.\n"
    "\nexit status: 0 success; 1 no feasible answer; 2 bad usage or bad input (one line on standard\n"
    "error naming the file and field, nothing on standard output); 3 internal or solver failure.\n";

static const char help_help[] = "usage: topo-sched help [COMMAND]\n"
                                "\n"
                                "Print the options of COMMAND (as typed, e.g. `help topology export`), or\n"
                                "the list of commands. `topo-sched COMMAND --help` and `-h` anywhere on the\n"
                                "line do the same.\n"
                                "\n"
                                "options:\n" HELP_LINE "\nexit status: 0 success; 2 unknown command.\n";

static const char help_demo[] = "usage: topo-sched demo\n"
                                "\n"
                                "The embedded showcase: builds a 16,384-GPU clos3 fabric and shows the\n"
                                "topology, placement, routing, CRUX, simulation, vClos and Crius parts on it.\n"
                                "Takes no files; the output is the same on every run.\n"
                                "\n"
                                "options:\n" HELP_LINE
                                "\nexit status: 0 success; 2 an argument was given; 3 internal failure.\n";

static const char help_topology[] =
    "usage: topo-sched topology SUBCOMMAND ...\n"
    "\n"
    "subcommands (each prints its options with --help):\n"
    "  show -t TOPO                        summary: tsched.topology-summary.v1\n"
    "  import-slurm FILE                   Slurm topology.conf (tree or block form)\n"
    "  import-slurm-yaml FILE              Slurm topology.yaml\n"
    "  import-slurm-live                   a running Slurm (runs topo-sched-slurm state)\n"
    "  import-k8s-nodes FILE --levels K,...  `kubectl get nodes -o json` with label keys\n"
    "  export -t TOPO --to FORMAT          slurm-conf, slurm-yaml, kueue, kai or volcano\n"
    "\n"
    "options:\n" HELP_LINE EXIT_023;

static const char help_topology_show_head[] =
    "usage: topo-sched topology show -t TOPO [--compact] [-o FILE]\n"
    "\n"
    "Load a tsched.topology.v1 fabric and print its tsched.topology-summary.v1: nodes, GPUs, free\n"
    "GPUs, switches per tier, pods, trunks, NVLink domains and what is down.\n"
    "\n"
    "options:\n";
static const char help_topology_show_tail[] = EXIT_023;

static const char help_import_slurm_head[] =
    "usage: topo-sched topology import-slurm FILE [--no-nvl] [--gpus-per-node N] [--nics-per-node N]\n"
    "           [--nic-gbps X] [--gpu-type T] [--name NAME] [--nodes-json FILE2] [--compact] [-o FILE]\n"
    "\n"
    "Read a Slurm topology.conf, tree form (SwitchName= Switches= Nodes= LinkSpeed=) or block form\n"
    "(BlockName= Nodes=, BlockSizes=; also `scontrol show topology` output), and print the fabric as\n"
    "tsched.topology.v1. The file has no GPU or NIC facts: the options supply them. With\n"
    "--nodes-json, Slurm's node list gives each node's GPUs, its free GPUs and whether it is down\n"
    "(drained, down, not responding, ...; a node missing from the list is down).\n"
    "\n"
    "options:\n";
static const char help_import_slurm_tail[] = EXIT_023;

static const char help_import_slurm_yaml_head[] =
    "usage: topo-sched topology import-slurm-yaml FILE [--topology NAME] [--nvl-topology NAME] [--no-nvl]\n"
    "           [--gpus-per-node N] [--nics-per-node N] [--nic-gbps X] [--gpu-type T] [--name NAME]\n"
    "           [--nodes-json FILE2] [--compact] [-o FILE]\n"
    "\n"
    "Read a Slurm topology.yaml (a list of tree, block or flat topologies) and print the selected one\n"
    "as tsched.topology.v1; trunks are non-blocking (the file has no link speed). --nodes-json applies\n"
    "Slurm's node state as import-slurm does.\n"
    "\n"
    "options:\n";
static const char help_import_slurm_yaml_tail[] = EXIT_023;

static const char help_import_slurm_live[] =
    "usage: topo-sched topology import-slurm-live [--topology FILE] [--gpus-per-node N] [--nic-gbps X]\n"
    "           [--compact] [-o FILE]\n"
    "\n"
    "Read the topology and node state of the running Slurm cluster (SLURM_CONF) through libslurm and\n"
    "print the fabric as tsched.topology.v1, with free GPUs and down nodes as import-slurm\n"
    "--nodes-json gives them. The library never links libslurm: this runs `topo-sched-slurm state`\n"
    "with the arguments given, the program named by $TSCHED_SLURM_PLACER, else topo-sched-slurm in\n"
    "the directory of topo-sched, else on PATH; it is built only where libslurm is installed.\n"
    "--topology FILE takes the fabric from a topology.conf, topology.yaml or tsched.topology.v1 file\n"
    "instead of slurm_load_topo; `topo-sched-slurm state --help` lists every option.\n"
    "\n"
    "options:\n" HELP_LINE
    "\nexit status: topo-sched-slurm's: 0 success; 2 bad usage or bad input, or topo-sched-slurm not\n"
    "found; 3 the controller could not be reached.\n";

static const char help_import_k8s_head[] =
    "usage: topo-sched topology import-k8s-nodes FILE (--levels K1,K2,... | --kueue-topology FILE)\n"
    "           [--nvl-label KEY] [--gpu-resource NAME] [--gpu-type T] [--nics-per-node N]\n"
    "           [--nic-gbps X] [--name NAME] [--compact] [-o FILE]\n"
    "\n"
    "Read the JSON of `kubectl get nodes -o json` and build the fabric from node labels, one switch\n"
    "tier per label key (the finest key is the leaf); print it as tsched.topology.v1. Nodes without\n"
    "GPUs or without a level label are left out (listed in `excluded`); NotReady or unschedulable\n"
    "nodes are kept but marked down.\n"
    "\n"
    "options:\n";
static const char help_import_k8s_tail[] = EXIT_023;

static const char help_export_head[] =
    "usage: topo-sched topology export -t TOPO --to slurm-conf|slurm-yaml|kueue|kai|volcano\n"
    "           [--levels K1,...] [--block] [--physical] [--kueue-api v1alpha1|v1beta1|v1beta2]\n"
    "           [--tier-names] [--sanitize] [--format yaml|json] [--name NAME] [--no-hostname-level]\n"
    "           [--no-nodes] [-o FILE]\n"
    "\n"
    "Write the fabric's domain tree (every tier, plus the NVLink level where it nests) for a\n"
    "scheduler: Slurm topology.conf or topology.yaml, or a Kueue or KAI Topology with node labels,\n"
    "or Volcano HyperNodes (a YAML stream). An NVLink level that nests nowhere is left out with one\n"
    "warning line on standard error (exit status 0).\n"
    "\n"
    "options:\n";
static const char help_export_tail[] = EXIT_023;

static const char help_place_head[] =
    "usage: topo-sched place -t TOPO -j JOB\n"
    "           [--algo mip|best-fit|random-fit|gpu-pack|topo-aware|exhaustive] [--alpha A] [--seed N]\n"
    "           [--time-limit-ms N] [--hostfile FILE [--hostfile-per-task] [--tasks-per-node N]]\n"
    "           [--pod-order FILE [--index-label KEY]] [--no-timing] [--compact] [-o FILE]\n"
    "\n"
    "Place a tsched.job.v1 job on the fabric's free GPUs and print its tsched.placement.v1.\n"
    "\n"
    "options:\n";
static const char help_place_tail[] = EXIT_0123("no feasible placement");

static const char help_flows_head[] =
    "usage: topo-sched flows -t TOPO -p PLACEMENT --pattern dp-ring|dp-hd|pp|alltoall [--step S]\n"
    "           [--gbits X] [-j JOB] [--compact] [-o FILE]\n"
    "\n"
    "Print the flows (tsched.flows.v1) one step of a collective puts on the fabric, one per NIC rail\n"
    "of every node pair.\n"
    "\n"
    "options:\n";
static const char help_flows_tail[] = EXIT_023;

static const char help_route_head[] =
    "usage: topo-sched route -t TOPO -f FLOWS [--algo greedy|ecmp|balanced-ecmp|ilp] [--seed N]\n"
    "           [--threads N] [--time-limit-ms N] [--no-timing] [--compact] [-o FILE]\n"
    "\n"
    "Give every flow of a tsched.flows.v1 document a path and a max-min fair rate; print\n"
    "tsched.routes.v1. Down switches and trunks are avoided.\n"
    "\n"
    "options:\n";
static const char help_route_tail[] = EXIT_0123("a flow has no surviving path");

static const char help_prioritize_head[] =
    "usage: topo-sched prioritize -t TOPO -s JOBSET --levels K [--algo crux|sincronia|varys|exhaustive]\n"
    "           [--order crux|sincronia|varys|taccl] [--orders M] [--seed N] [--compact] [-o FILE]\n"
    "\n"
    "Run CRUX on a tsched.jobset.v1 job set and print tsched.priorities.v1: per job its GPU\n"
    "intensity, correction factor, priority, order and level; the contention DAG. --order puts\n"
    "the jobs in a baseline's order instead of CRUX's (Sincronia, Varys, TACCL*) before --algo\n"
    "compresses them.\n"
    "\n"
    "options:\n";
static const char help_prioritize_tail[] = EXIT_0123("a job's flow has no path");

static const char help_kcut_head[] =
    "usage: topo-sched kcut -d DAG --levels K [--algo crux|sincronia|varys|exhaustive] [--orders M]\n"
    "           [--seed N] [--threads N] [--compact] [-o FILE]\n"
    "\n"
    "Compress a tsched.dag.v1 to K levels (max K-cut) and print tsched.levels.v1. A cycle is an\n"
    "input error.\n"
    "\n"
    "options:\n";
static const char help_kcut_tail[] = EXIT_023;

static const char help_simulate_head[] =
    "usage: topo-sched simulate -t TOPO -w TRACE [-s SCENARIO] [--until S] [--seed N] [--placement P]\n"
    "           [--routing R] [--reroute none|refresh] [--priority X] [--levels K] [--links trunk|member]\n"
    "           [--queue fifo|ff] [--timeseries FILE] [--sample-ms N] [--links-report]\n"
    "           [--progress | --quiet] [--no-timing] [--compact] [-o FILE]\n"
    "\n"
    "Replay the jobs of a tsched.trace.v1 trace on the fabric under a scenario's policies and print\n"
    "tsched.simresult.v1. The options override the scenario's fields.\n"
    "\n"
    "options:\n";
static const char help_simulate_tail[] = "\nexit status: 0 the run ended (whatever the result's status); 2 bad usage or bad input (one\n"
    "line on standard error naming the file and field, nothing on standard output); 3 internal\n"
    "failure.\n";

static const char help_trace[] =
    "usage: topo-sched trace SUBCOMMAND ...\n"
    "\n"
    "subcommands (each prints its options with --help), all writing tsched.trace.v1:\n"
    "  convert-alibaba POD_CSV           the Alibaba GPU pod list (v2023)\n"
    "  convert-dcn DIR                   a ring_size_R folder of the dcn-simulators flow sets\n"
    "  poisson --jobs N ...              synthetic jobs with Poisson arrivals\n"
    "\n"
    "options:\n" HELP_LINE EXIT_023;

static const char help_trace_alibaba_head[] =
    "usage: topo-sched trace convert-alibaba POD_CSV [--scale-gpus K] [--model-mix FILE]\n"
    "           [--gpus-per-node N] [--seed N] [--gbits X] [--compute-ms C] [--compact] [-o FILE]\n"
    "\n"
    "Convert the Alibaba GPU pod list (v2023) to tsched.trace.v1. POD_CSV and --model-mix may be\n"
    "'-', not both.\n"
    "\n"
    "options:\n";
static const char help_trace_alibaba_tail[] = EXIT_023;

static const char help_trace_dcn_head[] =
    "usage: topo-sched trace convert-dcn DIR [--seed N] [--compute-ms C] [--iterations I]\n"
    "           [--arrival-window-s W] [--compact] [-o FILE]\n"
    "\n"
    "Convert a ring_size_R folder of the dcn-simulators flow sets to tsched.trace.v1: one job per\n"
    "file on fixed nodes with one phase of explicit flows. --model-mix, --gbits and\n"
    "--gpus-per-node are refused.\n"
    "\n"
    "options:\n";
static const char help_trace_dcn_tail[] = EXIT_023;

static const char help_trace_poisson_head[] =
    "usage: topo-sched trace poisson --jobs N --mean-interarrival-s L --sizes G:W,... --duration-dist D\n"
    "           [--model-mix FILE] [--gpus-per-node N] [--gbits X] [--compute-ms C] [--seed N]\n"
    "           [--compact] [-o FILE]\n"
    "\n"
    "Synthetic jobs with exponential inter-arrival times, as tsched.trace.v1.\n"
    "\n"
    "options:\n";
static const char help_trace_poisson_tail[] = EXIT_023;

static const char help_vclos_head[] =
    "usage: topo-sched vclos -t TOPO -r REQUESTS [--mode vclos|ocs-vclos|free] [--shapes all|pow2]\n"
    "           [--state VCLOS] [--pattern ring|alltoall|hd [--step S]]\n"
    "           [--routing source|ecmp|balanced-ecmp] [--seed N] [--time-limit-ms N] [--no-timing]\n"
    "           [--compact] [-o FILE]\n"
    "\n"
    "Apply a tsched.vclos-requests.v1 document (alloc, release, down, up) to a two-tier fabric and\n"
    "print tsched.vclos.v1: allocations, reserved member links, source routes, waiting jobs.\n"
    "\n"
    "options:\n";
static const char help_vclos_tail[] = "\nexit status: 0 every request was processed (waiting jobs included); 2 bad usage or bad input\n"
    "(one line on standard error naming the file and field, nothing on standard output); 3 solver\n"
    "or internal failure.\n";

static const char help_cells_head[] =
    "usage: topo-sched cells -t TOPO -j JOB [-c GPUS] [--profile PROFILE] [--type T] [--gpus N]\n"
    "           [--stages S] [--plans assembled|tuned|exhaustive] [--no-timing] [--compact] [-o FILE]\n"
    "\n"
    "List the Crius Cells of a job with a model on every GPU pool of the fabric: stage cuts, the\n"
    "best per-stage plan, iteration time, throughput, memory; print tsched.cells.v1.\n"
    "\n"
    "options:\n";
static const char help_cells_tail[] = "\nexit status: 0 success, also when no Cell is feasible; 2 bad usage or bad input (one line on\n"
    "standard error naming the file or option and the field, nothing on standard output); 3\n"
    "internal failure.\n";

static const char help_crius_head[] =
    "usage: topo-sched crius-schedule -t TOPO -q QUEUE [-c GPUS] [--depth D]\n"
    "           [--objective normalized|throughput] [--event arrival|departure] [--no-timing]\n"
    "           [--compact] [-o FILE]\n"
    "\n"
    "Run one event of the Crius Cell-based scheduler on a tsched.crius-queue.v1 queue and the\n"
    "fabric's free GPUs; print tsched.crius-schedule.v1.\n"
    "\n"
    "options:\n";
static const char help_crius_tail[] = EXIT_0123("every job of a non-empty queue left pending (document still written)");

static const char help_draw_head[] =
    "usage: topo-sched draw -t TOPO [-p PLACEMENT] [-r ROUTES] [--format svg|dot|png]\n"
    "           [--view full|aggregate|auto] [--group-by dp|pp] [--max-nodes N] [-o FILE]\n"
    "\n"
    "Draw the fabric, one row per tier, the top tier first: an SVG picture written without any\n"
    "external program, Graphviz DOT, or PNG. Down elements are dashed. Past 2000 px the\n"
    "aggregated view: nodes as squares in pod blocks, trunks as leaf x spine heatmaps.\n"
    "\n"
    "options:\n";
static const char help_draw_tail[] = EXIT_023;

static const char help_serve_head[] =
    "usage: topo-sched serve [--socket PATH [--ready-file F]] [--max-line-mb N] [--idle-timeout-s S]\n"
    "                        [--max-clients N]\n"
    "\n"
    "Answer requests, one JSON object per line (load-topology, update, place, flows, route,\n"
    "prioritize, kcut, vclos, cells, crius-schedule, simulate, import-slurm, import-slurm-yaml,\n"
    "import-k8s-nodes, export, version, unload, shutdown), with one JSON line each, in order.\n"
    "Stops at shutdown or end of input.\n"
    "\n"
    "options:\n";
static const char help_serve_tail[] = "\nexit status: 0 shutdown or end of input (request errors are answered, not fatal); 2 bad usage;\n"
    "3 internal failure.\n";

/* A command's text: `text` as it is, or `text` (usage, description, "options:"), the option
 * lines made from `spec`'s rows, the -h line and `tail` (the exit statuses). */
static const struct {
    const char *cmd;
    const char *text;
    const cli_cmd_spec *spec;
    const char *tail;
} helps[] = {
    {"", help_all, NULL, NULL},
    {"help", help_help, NULL, NULL},
    {"demo", help_demo, NULL, NULL},
    {"topology", help_topology, NULL, NULL},
    {"topology show", help_topology_show_head, &cli_spec_topology_show, help_topology_show_tail},
    {"topology import-slurm", help_import_slurm_head, &cli_spec_import_slurm, help_import_slurm_tail},
    {"topology import-slurm-yaml", help_import_slurm_yaml_head, &cli_spec_import_slurm_yaml, help_import_slurm_yaml_tail},
    {"topology import-slurm-live", help_import_slurm_live, NULL, NULL},
    {"topology import-k8s-nodes", help_import_k8s_head, &cli_spec_import_k8s, help_import_k8s_tail},
    {"topology export", help_export_head, &cli_spec_export, help_export_tail},
    {"place", help_place_head, &cli_spec_place, help_place_tail},
    {"flows", help_flows_head, &cli_spec_flows, help_flows_tail},
    {"route", help_route_head, &cli_spec_route, help_route_tail},
    {"prioritize", help_prioritize_head, &cli_spec_prioritize, help_prioritize_tail},
    {"kcut", help_kcut_head, &cli_spec_kcut, help_kcut_tail},
    {"simulate", help_simulate_head, &cli_spec_simulate, help_simulate_tail},
    {"trace", help_trace, NULL, NULL},
    {"trace convert-alibaba", help_trace_alibaba_head, &cli_spec_trace_alibaba, help_trace_alibaba_tail},
    {"trace convert-dcn", help_trace_dcn_head, &cli_spec_trace_dcn, help_trace_dcn_tail},
    {"trace poisson", help_trace_poisson_head, &cli_spec_trace_poisson, help_trace_poisson_tail},
    {"vclos", help_vclos_head, &cli_spec_vclos, help_vclos_tail},
    {"cells", help_cells_head, &cli_spec_cells, help_cells_tail},
    {"crius-schedule", help_crius_head, &cli_spec_crius, help_crius_tail},
    {"draw", help_draw_head, &cli_spec_draw, help_draw_tail},
    {"serve", help_serve_head, &cli_spec_serve, help_serve_tail},
};

const cli_cmd_spec *const cli_specs[] = {
    &cli_spec_topology_show,
    &cli_spec_import_slurm,
    &cli_spec_import_slurm_yaml,
    &cli_spec_import_k8s,
    &cli_spec_export,
    &cli_spec_place,
    &cli_spec_flows,
    &cli_spec_route,
    &cli_spec_prioritize,
    &cli_spec_kcut,
    &cli_spec_simulate,
    &cli_spec_trace_alibaba,
    &cli_spec_trace_dcn,
    &cli_spec_trace_poisson,
    &cli_spec_vclos,
    &cli_spec_cells,
    &cli_spec_crius,
    &cli_spec_draw,
    &cli_spec_serve,
    NULL,
};

const char *cli_help_text(const char *cmd)
{
    static char *made[sizeof helps / sizeof helps[0]]; /* made once, kept to the end of the process */
    for (size_t i = 0; cmd && i < sizeof helps / sizeof helps[0]; i++) {
        if (strcmp(helps[i].cmd, cmd) != 0)
            continue;
        if (!helps[i].spec)
            return helps[i].text;
        if (!made[i]) {
            size_t head = strlen(helps[i].text), opts = cli_opt_help(NULL, 0, helps[i].spec);
            size_t n = head + opts + strlen(HELP_LINE) + strlen(helps[i].tail) + 1;
            char *t = malloc(n);
            if (!t)
                return NULL;
            memcpy(t, helps[i].text, head);
            cli_opt_help(t + head, n - head, helps[i].spec);
            strcpy(t + head + opts, HELP_LINE);
            strcat(t, helps[i].tail);
            made[i] = t;
        }
        return made[i];
    }
    return NULL;
}

static int is_help_flag(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* Commands with subcommands: the second word belongs to the name. */
static int is_group(const char *a) { return strcmp(a, "topology") == 0 || strcmp(a, "trace") == 0; }

int cli_help(int argc, char **argv)
{
    int i = 1;
    while (i + 1 < argc && strcmp(argv[i], "--limit") == 0)
        i += 2;
    int flag = 0, form = i < argc && strcmp(argv[i], "help") == 0;
    for (int k = i; k < argc; k++)
        flag |= is_help_flag(argv[k]);
    if (!flag && !form)
        return -1;
    /* The command's words: after `help`, every word but the flags; else the command itself,
     * and its subcommand when it has some and the next word is not an option. */
    const char *w[3] = {NULL, NULL, NULL};
    int n = 0;
    if (form) {
        for (int k = i + 1; k < argc; k++)
            if (!is_help_flag(argv[k])) {
                if (n == 3)
                    return cli_usage_error("help: unexpected argument '%s'", argv[k]);
                w[n++] = argv[k];
            }
        if (n == 0 && flag)
            w[n++] = "help";
    } else if (i < argc && argv[i][0] != '-') {
        w[n++] = argv[i];
        if (is_group(argv[i]) && i + 1 < argc && argv[i + 1][0] != '-')
            w[n++] = argv[i + 1];
    }
    if (n > 2 || (n == 2 && !is_group(w[0])))
        return cli_usage_error("help: unexpected argument '%s'", w[n - 1]);
    char name[128] = "";
    if (n > 0 && strlen(w[0]) + (n == 2 ? strlen(w[1]) + 1 : 0) < sizeof name) {
        strcpy(name, w[0]);
        if (n == 2) {
            strcat(name, " ");
            strcat(name, w[1]);
        }
    }
    const char *text = cli_help_text(name);
    if (!text || (n > 0 && !name[0]))
        return cli_usage_error("unknown command '%s%s%s'", n ? w[0] : "", n == 2 ? " " : "", n == 2 ? w[1] : "");
    if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
        fputs("topo-sched: <stdout>: write failed\n", stderr);
        return CLI_INTERNAL;
    }
    return CLI_OK;
}
