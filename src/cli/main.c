/* topo-sched: command-line front end of libtopo-sched (DESIGN 6). */
#include <stddef.h>
#include <string.h>

#include "cli.h"

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
        F(kcut_memory, 1), F(sim_events, 1), F(output_bytes, 1), F(members, 0),
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
    int help = cli_help(argc, argv); /* `help [CMD]`, or --help / -h anywhere: before anything runs */
    if (help >= 0)
        return help;
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
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    return cli_usage_error("unknown command '%s'", cmd);
}
