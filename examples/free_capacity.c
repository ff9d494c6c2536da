/* What a scheduler asks before placing a job: where are whole free nodes, per pod and
 * per leaf, and how many equal-cost paths join two candidate nodes, before and after a
 * failure. Uses only the public API, linked as `pkg-config --libs topo-sched` gives. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <topo-sched/topo-sched.h>

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", what, tsched_status_str(tsched_last_status()), tsched_last_error());
    return EXIT_FAILURE;
}

int main(void)
{
    static const char doc[] = "{ \"format\": \"tsched.topology.v1\", \"name\": \"example\","
                              "  \"generate\": { \"kind\": \"clos3\", \"pods\": 2, \"leaves_per_pod\": 4,"
                              "    \"spines_per_pod\": 4, \"cores\": 8, \"nodes_per_leaf\": 8,"
                              "    \"gpus_per_node\": 8, \"nic_gbps\": 400, \"gpu_type\": \"H100\" },"
                              "  \"state\": { \"free_gpus\": { \"node0\": 0, \"node1\": 2, \"node9\": 0 } } }";
    tsched_topology *t;
    if (tsched_topology_load_string(&t, doc, sizeof doc - 1) != TSCHED_OK)
        return fail("load");
    printf("%s: %u nodes, %" PRIu64 " GPUs, %" PRIu64 " free\n", tsched_topology_name(t), tsched_topology_num_nodes(t),
           tsched_topology_num_gpus(t), tsched_topology_num_free_gpus(t));
    for (uint32_t p = 0; p < tsched_topology_num_pods(t); p++) {
        uint32_t nl;
        const uint32_t *leaves = tsched_topology_pod_leaves(t, p, &nl);
        printf("%s: %u whole free nodes;", tsched_topology_pod_name(t, p),
               tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p));
        for (uint32_t i = 0; i < nl; i++)
            printf(" %s=%u", tsched_topology_switch_name(t, leaves[i]),
                   tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, leaves[i]));
        printf("\n");
    }
    uint32_t a = tsched_topology_find_node(t, "node2"), b = tsched_topology_find_node(t, "node40");
    uint64_t before, after;
    if (tsched_topology_path_count(&before, t, a, 0, b, 0) != TSCHED_OK)
        return fail("path_count");
    if (tsched_topology_set_up(t, "spine0", 0) != TSCHED_OK)
        return fail("set_up");
    if (tsched_topology_path_count(&after, t, a, 0, b, 0) != TSCHED_OK)
        return fail("path_count");
    printf("node2 -> node40: %" PRIu64 " paths, %" PRIu64 " with spine0 down\n", before, after);
    tsched_topology_free(t);
    /* The example doubles as a smoke test of the installed ABI. */
    return before == 8 && after == 6 ? EXIT_SUCCESS : EXIT_FAILURE;
}
