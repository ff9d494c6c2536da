/* topo-sched: command-line front end of libtopo-sched (DESIGN 6). */
#include <stddef.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: topo-sched [--limit NAME=N]... COMMAND [ARGS]\n"
    "\n"
    "  demo                                   the embedded showcase: no files needed\n"
    "  topology show -t TOPO [-o FILE]        summary: counts per tier, GPUs, free, down\n"
    "  topology import-slurm FILE [-o FILE]   Slurm topology.conf -> tsched.topology.v1\n"
    "        [--gpus-per-node N] [--nics-per-node N] [--nic-gbps X] [--gpu-type T] [--name NAME]\n"
    "  place -t TOPO -j JOB [--algo mip|best-fit|random-fit|gpu-pack|topo-aware|exhaustive]\n"
    "        [--alpha A] [--seed N] [--time-limit-ms N] [--hostfile FILE] [--no-timing] [-o FILE]\n"
    "                                         place a job: tsched.placement.v1 (solve_ms omitted with --no-timing)\n"
    "  flows -t TOPO -p PLACEMENT --pattern dp-ring|dp-hd|pp|alltoall [--step S] [--gbits X]\n"
    "        [-j JOB] [--compact] [-o FILE]\n"
    "                                         the flows one step of a collective puts on the fabric\n"
    "  route -t TOPO -f FLOWS [--algo greedy|ecmp|balanced-ecmp|ilp] [--seed N] [--threads N]\n"
    "        [--time-limit-ms N] [--no-timing] [--compact] [-o FILE]\n"
    "                                         a path and a max-min fair rate for every flow\n"
    "  prioritize -t TOPO -s JOBSET --levels K [--algo crux|sincronia|varys|exhaustive]\n"
    "        [--orders M] [--seed N] [--compact] [-o FILE]\n"
    "                                         CRUX intensities, priorities and K levels\n"
    "  kcut -d DAG --levels K [--algo crux|sincronia|varys|exhaustive] [--orders M] [--seed N]\n"
    "        [--threads N] [--compact] [-o FILE]\n"
    "                                         compress a tsched.dag.v1 to K levels\n"
    "  simulate -t TOPO -w TRACE [-s SCENARIO] [--until S] [--seed N] [--placement P] [--routing R]\n"
    "        [--reroute none|refresh] [--priority X] [--levels K] [--links trunk|member] [--queue fifo|ff]\n"
    "        [--timeseries FILE] [--sample-ms N] [--links-report] [--progress|--quiet] [--no-timing]\n"
    "        [--compact] [-o FILE]             flow-level simulation of jobs sharing the fabric: tsched.simresult.v1\n"
    "  trace convert-alibaba POD_CSV [--scale-gpus K] [--model-mix FILE] [--gpus-per-node N] [--seed N]\n"
    "        [--gbits X] [--compute-ms C] [--compact] [-o FILE]\n"
    "                                         Alibaba GPU pods (v2023) -> tsched.trace.v1\n"
    "  trace convert-dcn DIR [--seed N] [--compute-ms C] [--iterations I] [--arrival-window-s W]\n"
    "        [--compact] [-o FILE]            dcn-simulators ring pairs -> tsched.trace.v1\n"
    "  trace poisson --jobs N --mean-interarrival-s L --sizes G:W,... --duration-dist D\n"
    "        [--model-mix FILE] [--gpus-per-node N] [--gbits X] [--compute-ms C] [--seed N]\n"
    "        [--compact] [-o FILE]            synthetic jobs (D: fixed:S, exp:MEAN, lognormal:MU,SIGMA)\n"
    "  vclos -t TOPO -r REQUESTS [--mode vclos|ocs-vclos|free] [--shapes all|pow2] [--state VCLOS]\n"
    "        [--pattern ring|alltoall|hd [--step S]] [--routing source|ecmp|balanced-ecmp] [--seed N]\n"
    "        [--time-limit-ms N] [--no-timing] [--compact] [-o FILE]\n"
    "                                         vClos: an isolated leaf-spine sub-fabric per job: tsched.vclos.v1\n"
    "  cells -t TOPO -j JOB [-c GPUS] [--profile PROFILE] [--type T] [--gpus N] [--stages S]\n"
    "        [--plans assembled|tuned|exhaustive] [--no-timing] [--compact] [-o FILE]\n"
    "                                         Crius Cells of a job on every GPU pool: tsched.cells.v1\n"
    "  crius-schedule -t TOPO -q QUEUE [-c GPUS] [--depth D] [--objective normalized|throughput]\n"
    "        [--event arrival|departure] [--no-timing] [--compact] [-o FILE]\n"
    "                                         one Crius scheduling event: tsched.crius-schedule.v1\n"
    "  --version                              print the library version\n"
    "  --limit NAME=N                         before the command: raise or lower a resource limit\n"
    "        (input_bytes, nodes, switches, nics_per_node, gpus_per_node, trunks, name_bytes, flows,\n"
    "        kcut_orders, kcut_levels, dag_nodes; doc/ROBUSTNESS.md lists defaults and ceilings)\n"
    "\n"
    "Files may be '-' for standard input. Exit status: 0 success, 1 no feasible answer,\n"
    "2 bad usage or bad input, 3 internal or solver failure.\n";

/* --limit NAME=N: one tsched_limits field by name. */
static int set_limit(const char *arg)
{
    static const struct {
        const char *name;
        size_t off;
        int wide;
    } fields[] = {
#define F(f, w) {#f, offsetof(tsched_limits, f), w}
        F(input_bytes, 1), F(nodes, 0),  F(switches, 0),    F(nics_per_node, 0), F(gpus_per_node, 0), F(trunks, 0),
        F(name_bytes, 0),  F(flows, 0),  F(kcut_orders, 0), F(kcut_levels, 0),   F(dag_nodes, 0),
#undef F
    };
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq)
        return cli_usage_error("--limit: expected NAME=N, got '%s'", arg ? arg : "");
    tsched_limits l = {.size = sizeof l};
    tsched_limits_get(&l);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strlen(fields[i].name) != (size_t)(eq - arg) || strncmp(arg, fields[i].name, (size_t)(eq - arg)) != 0)
            continue;
        uint64_t v;
        if (cli_parse_u64(eq + 1, &v) != 0 || (!fields[i].wide && v > UINT32_MAX))
            return cli_usage_error("--limit %.*s: '%s' is not a whole number in range", (int)(eq - arg), arg, eq + 1);
        char *field = (char *)&l + fields[i].off;
        if (fields[i].wide)
            memcpy(field, &v, sizeof v);
        else {
            uint32_t v32 = (uint32_t)v;
            memcpy(field, &v32, sizeof v32);
        }
        tsched_status st = tsched_limits_set(&l);
        return st == TSCHED_OK ? CLI_OK : cli_fail(st);
    }
    return cli_usage_error("--limit: unknown limit '%.*s'", (int)(eq - arg), arg);
}

int main(int argc, char **argv)
{
    while (argc >= 3 && strcmp(argv[1], "--limit") == 0) {
        int rc = set_limit(argv[2]);
        if (rc != CLI_OK)
            return rc;
        argc -= 2;
        argv += 2;
    }
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
    if (strcmp(cmd, "trace") == 0)
        return cmd_trace(argc - 1, argv + 1);
    if (strcmp(cmd, "simulate") == 0)
        return cmd_simulate(argc - 1, argv + 1);
    if (strcmp(cmd, "vclos") == 0)
        return cmd_vclos(argc - 1, argv + 1);
    if (strcmp(cmd, "cells") == 0)
        return cmd_cells(argc - 1, argv + 1);
    if (strcmp(cmd, "crius-schedule") == 0)
        return cmd_crius_schedule(argc - 1, argv + 1);
    if (strcmp(cmd, "draw") == 0)
        return cmd_draw(argc - 1, argv + 1);
    return cli_usage_error("unknown command '%s'", cmd);
}
