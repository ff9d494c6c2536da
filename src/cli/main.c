/* topo-sched: command-line front end of libtopo-sched (DESIGN 6). */
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: topo-sched COMMAND [ARGS]\n"
    "\n"
    "  demo                                   the embedded showcase: no files needed\n"
    "  topology show -t TOPO [-o FILE]        summary: counts per tier, GPUs, free, down\n"
    "  topology import-slurm FILE [-o FILE]   Slurm topology.conf -> tsched.topology.v1\n"
    "        [--gpus-per-node N] [--nics-per-node N] [--nic-gbps X] [--gpu-type T] [--name NAME]\n"
    "  place -t TOPO -j JOB [--algo mip|best-fit|random-fit|gpu-pack|topo-aware|exhaustive]\n"
    "        [--alpha A] [--seed N] [--time-limit-ms N] [--hostfile FILE] [--no-timing] [-o FILE]\n"
    "                                         place a job: tsched.placement.v1 (solve_ms omitted with --no-timing)\n"
    "  flows -t TOPO -p PLACEMENT --pattern dp-ring|dp-hd|pp|alltoall [--step S] [--gbits X]\n"
    "        [-j JOB] [-o FILE]              the flows one step of a collective puts on the fabric\n"
    "  route -t TOPO -f FLOWS [--algo greedy|ecmp|balanced-ecmp|ilp] [--seed N] [--threads N]\n"
    "        [--time-limit-ms N] [--no-timing] [-o FILE]\n"
    "                                         a path and a max-min fair rate for every flow\n"
    "  prioritize -t TOPO -s JOBSET --levels K [--algo crux|sincronia|varys|exhaustive]\n"
    "        [--orders M] [--seed N] [-o FILE]  CRUX intensities, priorities and K levels\n"
    "  kcut -d DAG --levels K [--algo crux|sincronia|varys|exhaustive] [--orders M] [--seed N]\n"
    "        [-o FILE]                        compress a tsched.dag.v1 to K levels\n"
    "  --version                              print the library version\n"
    "\n"
    "Files may be '-' for standard input. Exit status: 0 success, 1 no feasible answer,\n"
    "2 bad usage or bad input, 3 internal or solver failure.\n";

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("topo-sched %s\n", tsched_version());
        return CLI_OK;
    }
    if (strcmp(cmd, "demo") == 0)
        return cmd_demo(argc - 1, argv + 1);
    if (strcmp(cmd, "place") == 0)
        return cmd_place(argc - 1, argv + 1);
    if (strcmp(cmd, "flows") == 0)
        return cmd_flows(argc - 1, argv + 1);
    if (strcmp(cmd, "route") == 0)
        return cmd_route(argc - 1, argv + 1);
    if (strcmp(cmd, "prioritize") == 0)
        return cmd_prioritize(argc - 1, argv + 1);
    if (strcmp(cmd, "kcut") == 0)
        return cmd_kcut(argc - 1, argv + 1);
    if (strcmp(cmd, "topology") == 0)
        return cmd_topology(argc - 1, argv + 1);
    return cli_usage_error("unknown command '%s'", cmd);
}
