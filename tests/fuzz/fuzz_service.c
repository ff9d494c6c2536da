/* libFuzzer target: the service's request line (doc/serve.md), every op. Each input is split
 * into lines (at most 16), each handed to tsched_service_handle() with small fabrics attached
 * ("c": a 3-tier Clos of 8 nodes of 8 GPUs; "v": a 4 x 4 leaf-spine with 2 members per
 * pair, for vclos), in one service per input, so loads, updates and unloads carry over to
 * the next lines. Every request must be answered (TSCHED_OK) with one line of valid JSON:
 * an object whose members are "id", "ok" and "result" (and for place "hostfile" and
 * "pod_order"), or "id", "ok" false, "exit", "status" and "error". The limits keep each
 * request small: a simulation has at most 200,000 events, a document 1 MiB.
 * Seeds: tests/fuzz/corpus_service (one valid request per op, and a few sequences). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

#include "fuzz_fabrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One line of one JSON object of the documented shape, or abort(). */
static void check_answer(const char *answer)
{
    if (!answer || strchr(answer, '\n') || strncmp(answer, "{\"id\":", 6) != 0)
        abort();
    json_error_t e;
    json_t *a = json_loads(answer, 0, &e);
    if (!a || !json_is_object(a) || !json_object_get(a, "id") || !json_is_boolean(json_object_get(a, "ok")))
        abort();
    size_t n = json_object_size(a);
    if (json_is_true(json_object_get(a, "ok"))) {
        size_t files = (size_t)!!json_object_get(a, "hostfile") + (size_t)!!json_object_get(a, "pod_order");
        if (!json_object_get(a, "result") || n != 3 + files)
            abort();
    } else {
        const json_t *x = json_object_get(a, "exit"), *s = json_object_get(a, "status"),
                     *m = json_object_get(a, "error");
        if (n != 5 || !json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 3 ||
            !json_is_string(s) || strncmp(json_string_value(s), "TSCHED_E_", 9) != 0 || !json_is_string(m) ||
            json_string_length(m) == 0 || strchr(json_string_value(m), '\n'))
            abort();
    }
    json_decref(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tsched_limits lim = {.size = sizeof lim};
    tsched_limits_get(&lim);
    lim.input_bytes = 1u << 20;
    lim.nodes = 1u << 12;
    lim.switches = 1u << 10;
    lim.trunks = 1u << 14;
    lim.members = 1u << 14;
    lim.flows = 2000;
    lim.kcut_orders = 16;
    lim.dag_nodes = 2000;
    lim.sim_events = 200000;
    lim.output_bytes = 4u << 20;
    tsched_limits_set(&lim);
    tsched_topology *c = fuzz_small_clos(), *v = fuzz_leaf_spine();
    tsched_service *svc = NULL;
    if (c && v && tsched_service_new(&svc) == TSCHED_OK && tsched_service_attach(svc, "c", c) == TSCHED_OK &&
        tsched_service_attach(svc, "v", v) == TSCHED_OK) {
        const char *p = (const char *)data, *end = p + size;
        for (int k = 0; k < 16 && p < end; k++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
            char *answer = NULL;
            int stop = 0;
            tsched_status st = tsched_service_handle(&answer, &stop, svc, p, len);
            if (st == TSCHED_OK)
                check_answer(answer);
            else if (st != TSCHED_E_NOMEM) /* only memory may fail to give an answer */
                abort();
            tsched_free(answer);
            if (stop)
                break;
            p += len + 1;
        }
    }
    tsched_service_free(svc);
    tsched_topology_free(c);
    tsched_topology_free(v);
    tsched_limits_reset();
    return 0;
}
