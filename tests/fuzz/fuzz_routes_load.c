/* libFuzzer target: tsched_routes_load_string() (src/routing/routes_load.c) on any bytes.
 * The first byte picks the call: even, no flow set; odd, the fixed flow set below. The rest
 * is the document, read against a small clos3 (2 pods x 2 leaves x 2 spines, 2 cores, 2
 * nodes a leaf: leaf0..3, spine0..3, core0..1, node0..7) whose spine3 is down. Every input
 * gives a status with a one-line message and no result, never a crash, a leak or a hang;
 * whatever loads is written and read again to the same bytes, with link counts that add up
 * to the hops of its paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tsched_topology *fabric(void)
{
    static tsched_topology *t;
    if (!t) {
        tsched_gen_params g;
        tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
        g.pods = 2;
        g.leaves_per_pod = 2;
        g.spines_per_pod = 2;
        g.cores = 2;
        g.nodes_per_leaf = 2;
        g.gpus_per_node = 8;
        g.nics_per_node = 1;
        if (tsched_topology_generate(&t, &g) != TSCHED_OK || tsched_topology_set_up(t, "spine3", 0) != TSCHED_OK)
            abort();
    }
    return t;
}

/* node0 -> node5, node1 -> node0 (one leaf), node2 -> node7, node6 -> node3 */
static tsched_flows *flow_set(void)
{
    static tsched_flows *f;
    static const uint32_t ends[4][2] = {{0, 5}, {1, 0}, {2, 7}, {6, 3}};
    if (!f) {
        if (tsched_flows_new(&f) != TSCHED_OK)
            abort();
        for (int i = 0; i < 4; i++)
            if (tsched_flows_add(NULL, f, "j", ends[i][0], 0, ends[i][1], 0, 1.0) != TSCHED_OK)
                abort();
    }
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const tsched_topology *t = fabric();
    const tsched_flows *f = data[0] & 1 ? flow_set() : NULL;
    tsched_routes *r = (tsched_routes *)&r, *again = NULL;
    tsched_status st = tsched_routes_load_string(&r, t, f, (const char *)data + 1, size - 1);
    if (st != TSCHED_OK) {
        const char *m = tsched_last_error();
        if (r || st == TSCHED_E_INTERNAL || !m[0] || strchr(m, '\n'))
            abort();
        return 0;
    }
    /* the link counts are the paths' hops */
    uint64_t hops = 0, counted = 0;
    for (uint32_t i = 0; i < tsched_routes_count(r); i++) {
        tsched_path p = {.size = sizeof p};
        if (tsched_routes_path(&p, r, i) != TSCHED_OK || p.nswitches < 1)
            abort();
        hops += p.nswitches - 1;
    }
    for (uint32_t l = 0; l < 2 * tsched_topology_num_trunks(t); l++)
        counted += tsched_routes_link_flows(r, l);
    if (hops != counted)
        abort();
    char *a = NULL, *b = NULL;
    st = tsched_routes_to_json(&a, r, t, 1);
    if (st == TSCHED_OK) {
        if (tsched_routes_load_string(&again, t, f, a, strlen(a)) != TSCHED_OK ||
            tsched_routes_to_json(&b, again, t, 1) != TSCHED_OK || strcmp(a, b) != 0) {
            fprintf(stderr, "written, not read back the same: %s\n%.2000s\n", tsched_last_error(), a);
            abort();
        }
    } else if (st != TSCHED_E_NOMEM)
        abort();
    tsched_free(a);
    tsched_free(b);
    tsched_routes_free(again);
    tsched_routes_free(r);
    return 0;
}
