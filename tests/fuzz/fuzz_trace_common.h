/* Shared by the trace converter fuzz targets (fuzz_trace_*.c): the cross-check that whatever
 * a converter accepts, the library's trace reader loads. The fabric, built once, is the dcn
 * wiring (64 leaves of 32 nodes, node0..node2047) with 32 GPUs a node (65,536 GPUs: every
 * Alibaba pod fits). Only what depends on the fabric may fail the load: a job larger than
 * it, or a mix's hops that are not a path on it; anything else aborts. */
#ifndef FUZZ_TRACE_COMMON_H
#define FUZZ_TRACE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

#include "../../src/common/json.h"
#include "../../src/sim/trace_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tsched_topology *fuzz_fabric(void)
{
    static tsched_topology *t;
    if (!t) {
        tsched_gen_params g;
        tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
        g.leaves = 64;
        g.spines = 2;
        g.nodes_per_leaf = 32;
        g.gpus_per_node = 32;
        g.nics_per_node = 1;
        if (tsched_topology_generate(&t, &g) != TSCHED_OK)
            abort();
    }
    return t;
}

/* The converter's status must be a real one with a one-line message; a document must load. */
static void fuzz_check(tsched_status st, json_t *doc, const ts_trace_err *err)
{
    if (st != TSCHED_OK) {
        if (doc || err->msg[0] == '\0' || strchr(err->msg, '\n'))
            abort();
        return;
    }
    if (!doc)
        abort();
    char *text = NULL;
    if (ts_json_dumps(&text, doc, TS_JSON_COMPACT) != TSCHED_OK) {
        json_decref(doc);
        return; /* out of memory */
    }
    json_decref(doc);
    tsched_sim *s = NULL;
    if (tsched_sim_new(&s, fuzz_fabric()) == TSCHED_OK) {
        tsched_status ls = tsched_sim_load_trace_string(s, text, strlen(text));
        const char *m = tsched_last_error();
        int fabric = strstr(m, "more than the fabric's") != NULL || strstr(m, ".hops") != NULL;
        if (ls != TSCHED_OK && ls != TSCHED_E_NOMEM && ls != TSCHED_E_TOO_LARGE && !fabric) {
            fprintf(stderr, "converter accepted, trace reader refused: %s\n%.2000s\n", m, text);
            abort();
        }
    }
    tsched_sim_free(s);
    tsched_free(text);
}

#endif
