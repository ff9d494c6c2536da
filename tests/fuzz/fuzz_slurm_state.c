/* libFuzzer target: the Slurm node state reader (tsched_slurm_options.nodes_json,
 * src/topology/import/slurm_nodes.c) on any bytes. The first byte picks the import: even,
 * topology.conf; odd, the same tree as topology.yaml; the rest (cut at its first NUL, as a C
 * string is) is the node list, applied to 16 nodes n[0-15] on two leaves. Every input gives a
 * status with a one-line message and no fabric, never a crash, a leak or a hang; a fabric
 * that loads has every node with 1..limit GPUs, free GPUs within them, the totals adding up,
 * and every node the list does not name down. Seeds: corpus_slurm_state/ (the fixtures
 * recorded from Slurm 22.05 and hand cases of the later forms and the errors). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char conf[] = "SwitchName=leaf0 Nodes=n[0-7]\n"
                           "SwitchName=leaf1 Nodes=n[8-15]\n"
                           "SwitchName=root Switches=leaf[0-1]\n";
static const char yaml[] = "- topology: t\n"
                           "  tree:\n"
                           "    switches:\n"
                           "      - switch: leaf0\n"
                           "        nodes: n[0-7]\n"
                           "      - switch: leaf1\n"
                           "        nodes: n[8-15]\n"
                           "      - switch: root\n"
                           "        children: leaf[0-1]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *json = malloc(size);
    if (!json)
        return 0;
    memcpy(json, data + 1, size - 1);
    json[size - 1] = '\0';
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nodes_json = json;
    tsched_topology *t = (tsched_topology *)&t;
    tsched_status st = data[0] & 1 ? tsched_topology_import_slurm_yaml_string(&t, yaml, strlen(yaml), &o)
                                   : tsched_topology_import_slurm_string(&t, conf, strlen(conf), &o);
    if (st != TSCHED_OK) {
        const char *m = tsched_last_error();
        if (t || !m[0] || strchr(m, '\n') ||
            (st != TSCHED_E_PARSE && st != TSCHED_E_TOO_LARGE && st != TSCHED_E_NOMEM))
            abort();
        free(json);
        return 0;
    }
    tsched_limits lim = {.size = sizeof lim};
    if (tsched_limits_get(&lim) != TSCHED_OK || tsched_topology_num_nodes(t) != 16)
        abort();
    uint64_t gpus = 0, free_up = 0;
    for (uint32_t v = 0; v < 16; v++) {
        uint32_t g = tsched_topology_node_gpus(t, v), f = tsched_topology_node_free_gpus(t, v);
        if (g < 1 || g > lim.gpus_per_node || f > g)
            abort();
        gpus += g;
        free_up += tsched_topology_node_is_up(t, v) ? f : 0;
        /* a node the list does not name is down (a name may be escaped in the text: then
         * only the other direction is cheap to check, so only a clear absence counts) */
        char quoted[16];
        snprintf(quoted, sizeof quoted, "\"%s\"", tsched_topology_node_name(t, v));
        if (!strstr(json, quoted) && !strchr(json, '\\') && tsched_topology_node_is_up(t, v))
            abort();
    }
    if (tsched_topology_num_gpus(t) != gpus || tsched_topology_num_free_gpus(t) != free_up)
        abort();
    tsched_topology_free(t);
    free(json);
    return 0;
}
