/* libFuzzer target: any bytes as a tsched.topology.v1 document or a Slurm topology.conf
 * must give a status, never a crash, a leak or a hang. The first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    tsched_topology *t = NULL;
    const char *text = (const char *)data + 1;
    tsched_status st = data[0] & 1 ? tsched_topology_import_slurm_string(&t, text, size - 1, NULL)
                                   : tsched_topology_load_string(&t, text, size - 1);
    /* Huge fabrics are legal (a short hostlist can name a million nodes) but re-serialising
     * them under ASan only slows the fuzzer down: round-trip the moderate ones. */
    if (st == TSCHED_OK && tsched_topology_num_nodes(t) <= 20000) {
        /* Whatever loads must save and load back. */
        char *json = NULL;
        if (tsched_topology_to_json(&json, t) == TSCHED_OK) {
            tsched_topology *u = NULL;
            if (tsched_topology_load_string(&u, json, strlen(json)) != TSCHED_OK)
                abort();
            tsched_topology_free(u);
        }
        tsched_free(json);
        uint32_t n = tsched_topology_num_nodes(t);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            uint64_t c;
            tsched_topology_path_count(&c, t, i, 0, n - 1 - i, 0);
        }
    }
    tsched_topology_free(t);
    return 0;
}
