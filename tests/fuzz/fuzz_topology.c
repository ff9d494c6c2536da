/* libFuzzer target: any bytes given to any of the library's readers must give a status,
 * never a crash, a leak or a hang. The first byte picks the reader (mod 16): 0 topology
 * JSON, 1 Slurm topology.conf, 2 job, 3 DAG (then compressed), 4 flows, 5 job set (then
 * prioritised), 6 placement (4-6 against a small fixed fabric), 7 trace, 8 scenario, 9 vclos
 * requests and state (tsched.vclos-requests.v1 applied, tsched.vclos.v1 loaded, on a small
 * leaf-spine), 10 GPU catalogue (tsched.gpus.v1: written back, loaded again, merged over the
 * built-in one), 11 op profile (tsched.op-profile.v1, then stage determination with it), 12
 * Crius queue (tsched.crius-queue.v1 on a small heterogeneous fabric with the built-in
 * catalogue, then one event when it holds at most 4 jobs), 13 service requests (one per line,
 * at most 8, to tsched_service_handle() with a small fabric attached as "c": every answer
 * must be one line of JSON, whatever the request), 14 Slurm topology.yaml (the YAML subset
 * reader; default selection, then with an NVLink overlay named "nvl"), 15 Kubernetes nodes
 * (the JSON of kubectl get nodes with the levels block, rack, hostname; then the same bytes
 * as a Kueue Topology, JSON or YAML, over a fixed node list). What imports must save and
 * load back. 16: the JSON pull reader of the large loaders (src/common/jread.h) against
 * jansson: whatever it accepts, jansson accepts with the same values. The flows (4) and DAG
 * (3) cases also check that the loaders' pull reader never accepts what their jansson tree
 * reader refuses, and gives the same result. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

#include "../../src/common/json.h"
#include "../jread_oracle.h"
#include "fuzz_fabrics.h"
#include "../../src/priority/dag_internal.h"
#include "../../src/workload/flows_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void topology_json(const char *text, size_t n)
{
    tsched_topology *t = NULL;
    /* Huge fabrics are legal (a short hostlist can name a million nodes) but re-serialising
     * them under ASan only slows the fuzzer down: round-trip the moderate ones. */
    if (tsched_topology_load_string(&t, text, n) == TSCHED_OK && tsched_topology_num_nodes(t) <= 20000) {
        char *json = NULL;
        if (tsched_topology_to_json(&json, t) == TSCHED_OK) {
            tsched_topology *u = NULL;
            if (tsched_topology_load_string(&u, json, strlen(json)) != TSCHED_OK)
                abort(); /* whatever loads must save and load back */
            tsched_topology_free(u);
        }
        tsched_free(json);
        uint32_t nn = tsched_topology_num_nodes(t);
        for (uint32_t i = 0; i < nn && i < 64; i++) {
            uint64_t c;
            tsched_topology_path_count(&c, t, i, 0, nn - 1 - i, 0);
        }
    }
    tsched_topology_free(t);
}

/* 9: the same bytes as a vclos state (--state) and as vclos requests, on a 4 x 4 leaf-spine
 * with 2 members per pair; a loaded state is written back and must load again. */
static void vclos_docs(const char *text, size_t n)
{
    tsched_topology *t = fuzz_leaf_spine();
    if (!t)
        return;
    for (int mode = 0; mode < 3; mode += 2) { /* vclos and free */
        tsched_vclos *v = NULL, *w = NULL;
        if (tsched_vclos_new(&v, t, (tsched_vclos_mode)mode) != TSCHED_OK)
            continue;
        tsched_vclos_set_time_limit_ms(v, 50);
        if (tsched_vclos_load_state(v, text, n) == TSCHED_OK) {
            char *json = NULL;
            if (tsched_vclos_to_json(&json, v, -1, 0) == TSCHED_OK) {
                if (tsched_vclos_new(&w, t, (tsched_vclos_mode)mode) != TSCHED_OK ||
                    tsched_vclos_load_state(w, json, strlen(json)) != TSCHED_OK)
                    abort(); /* what loads must write and load back */
                tsched_vclos_free(w);
            }
            tsched_free(json);
        }
        char *out = NULL;
        tsched_vclos_apply_requests(&out, v, text, n, TSCHED_VCLOS_RING, 0, 0);
        tsched_free(out);
        tsched_vclos_free(v);
    }
    tsched_topology_free(t);
}

/* 10: a catalogue; what loads must write and load back to the same text, and merge. */
static void gpu_catalog(const char *text, size_t n)
{
    tsched_gpu_catalog *c = NULL, *d = NULL, *def = NULL;
    if (tsched_gpu_catalog_load_string(&c, text, n) == TSCHED_OK) {
        char *a = NULL, *b = NULL;
        if (tsched_gpu_catalog_to_json(&a, c) == TSCHED_OK) {
            if (tsched_gpu_catalog_load_string(&d, a, strlen(a)) != TSCHED_OK ||
                tsched_gpu_catalog_count(d) != tsched_gpu_catalog_count(c) ||
                tsched_gpu_catalog_to_json(&b, d) != TSCHED_OK || strcmp(a, b) != 0)
                abort(); /* load(to_json(c)) == c */
        }
        tsched_free(a);
        tsched_free(b);
        if (tsched_gpu_catalog_default(&def) == TSCHED_OK && tsched_gpu_catalog_merge(def, c) == TSCHED_OK) {
            for (uint32_t i = 0; i < tsched_gpu_catalog_count(c); i++) {
                tsched_gpu_info x = {.size = sizeof x}, y = {.size = sizeof y};
                if (tsched_gpu_catalog_get(&x, c, i) != TSCHED_OK || tsched_gpu_catalog_find(&y, def, x.name) != TSCHED_OK ||
                    x.tflops != y.tflops)
                    abort(); /* the merged entry is the file's */
            }
        }
    }
    tsched_gpu_catalog_free(c);
    tsched_gpu_catalog_free(d);
    tsched_gpu_catalog_free(def);
}

/* 11: an op profile; then stage determination of a matching small model with it. */
static void op_profile(const char *text, size_t n)
{
    tsched_op_profile *p = NULL;
    if (tsched_op_profile_load_string(&p, text, n) == TSCHED_OK && tsched_op_profile_layers(p) <= 64) {
        tsched_job *j = NULL;
        tsched_model m;
        tsched_model_init(&m);
        m.hidden = 64;
        m.layers = tsched_op_profile_layers(p);
        m.vocab = 100;
        m.seq = 16;
        m.global_batch = 8;
        if (tsched_job_new(&j, "f", 8, 1, 1) == TSCHED_OK && tsched_job_set_model(j, &m) == TSCHED_OK) {
            uint32_t first[5], gpus[4];
            for (uint32_t s = 1; s <= 4; s *= 2)
                tsched_cell_stages(first, gpus, j, p, 8, s);
        }
        tsched_job_free(j);
    }
    tsched_op_profile_free(p);
}

/* 12: a Crius queue on two leaves: a0, a1 A100 x8 (a1 busy), t0, t1 T4 x2, v0 V100 x4 and g0
 * of a GPU type the catalogue lacks; a queue of at most 4 jobs then gets one arrival event
 * at depth 1 and is written out. */
static void crius_queue(const char *text, size_t n)
{
    tsched_topology *t = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_crius *cr = NULL;
    if (tsched_topology_new(&t, "hetero") != TSCHED_OK || tsched_gpu_catalog_default(&cat) != TSCHED_OK)
        goto out;
    static const struct {
        const char *name, *leaf, *type;
        uint32_t gpus, nics;
        double gbps;
    } nodes[] = {{"a0", "leaf0", "A100", 8, 4, 200}, {"a1", "leaf0", "A100", 8, 4, 200},
                 {"t0", "leaf1", "T4", 2, 1, 25},    {"t1", "leaf1", "T4", 2, 1, 25},
                 {"v0", "leaf1", "V100", 4, 2, 100}, {"g0", "leaf1", "G2", 8, 1, 100}};
    if (tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL) != TSCHED_OK ||
        tsched_topology_add_switch(NULL, t, "leaf1", 0, NULL) != TSCHED_OK ||
        tsched_topology_add_switch(NULL, t, "spine0", 1, NULL) != TSCHED_OK ||
        tsched_topology_add_link(t, "leaf0", "spine0", 400, 2) != TSCHED_OK ||
        tsched_topology_add_link(t, "leaf1", "spine0", 400, 2) != TSCHED_OK)
        goto out;
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        if (tsched_topology_add_node(NULL, t, nodes[i].name, nodes[i].leaf, nodes[i].gpus, nodes[i].nics,
                                     nodes[i].type, nodes[i].gbps) != TSCHED_OK)
            goto out;
    if (tsched_topology_build(t) != TSCHED_OK || tsched_topology_set_free_gpus(t, 1, 0) != TSCHED_OK ||
        tsched_crius_new(&cr, t, cat) != TSCHED_OK)
        goto out;
    if (tsched_crius_load_queue_string(cr, text, n) == TSCHED_OK) {
        uint32_t jobs = tsched_crius_num_jobs(cr);
        for (uint32_t i = 0; i < jobs; i++)
            (void)tsched_crius_job_name(cr, i);
        if (jobs <= 4 && tsched_crius_set_depth(cr, 1) == TSCHED_OK &&
            tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL) == TSCHED_OK) {
            char *json = NULL;
            tsched_crius_to_json(&json, cr, 0);
            tsched_free(json);
        }
        if (jobs)
            tsched_crius_remove_job(cr, jobs - 1);
    }
out:
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
}

/* 13: lines of requests to one service. Simulations are fuzzed by cases 7 and 8 (a request
 * may ask for a long run): lines naming "simulate" are skipped, and the limits keep every
 * other request small. */
static void service_requests(const char *text, size_t n)
{
    tsched_limits lim = {.size = sizeof lim};
    tsched_limits_get(&lim);
    lim.nodes = 1u << 12;
    lim.switches = 1u << 10;
    lim.trunks = 1u << 14;
    lim.flows = 2000;
    lim.kcut_orders = 16;
    lim.dag_nodes = 2000;
    tsched_limits_set(&lim);
    tsched_topology *t = fuzz_small_clos();
    tsched_service *svc = NULL;
    if (t && tsched_service_new(&svc) == TSCHED_OK && tsched_service_attach(svc, "c", t) == TSCHED_OK) {
        const char *p = text, *end = text + n;
        for (int k = 0; k < 8 && p < end; k++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
            char *answer = NULL;
            int stop = 0;
            int skip = 0;
            for (size_t i = 0; i + 8 <= len && !skip; i++)
                skip = memcmp(p + i, "simulate", 8) == 0;
            if (!skip) {
                tsched_status st = tsched_service_handle(&answer, &stop, svc, p, len);
                if (st == TSCHED_OK &&
                    (!answer || strncmp(answer, "{\"id\":", 6) != 0 || strchr(answer, '\n') ||
                     answer[strlen(answer) - 1] != '}'))
                    abort(); /* an answer is one line holding one object */
                tsched_free(answer);
                if (stop)
                    break;
            }
            p += len + 1;
        }
    }
    tsched_service_free(svc);
    tsched_topology_free(t);
    tsched_limits_reset();
}

/* An imported fabric must save and load back. */
static void imported(tsched_topology *t)
{
    if (t && tsched_topology_num_nodes(t) <= 20000) {
        char *json = NULL;
        if (tsched_topology_to_json(&json, t) == TSCHED_OK) {
            tsched_topology *u = NULL;
            if (tsched_topology_load_string(&u, json, strlen(json)) != TSCHED_OK)
                abort();
            tsched_topology_free(u);
        }
        tsched_free(json);
    }
    tsched_topology_free(t);
}

/* 14: topology.yaml, with expansions bounded as for topology.conf (case 1). */
static void slurm_yaml(const char *text, size_t n)
{
    tsched_limits lim = {.size = sizeof lim};
    tsched_limits_get(&lim);
    lim.nodes = 1u << 17;
    lim.switches = 1u << 14;
    tsched_limits_set(&lim);
    tsched_topology *t = NULL;
    tsched_topology_import_slurm_yaml_string(&t, text, n, NULL);
    imported(t);
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.nvl_topology = "nvl";
    t = NULL;
    tsched_topology_import_slurm_yaml_string(&t, text, n, &o);
    imported(t);
    tsched_limits_reset();
}

/* 15: Kubernetes nodes, then the bytes as a Kueue Topology and as the pod list (pods_json)
 * of a fixed node list (NUL-terminated copy). */
static void k8s_nodes(const char *text, size_t n)
{
    static const char *const levels[] = {"example.com/block", "example.com/rack", "kubernetes.io/hostname"};
    static const char nodes[] =
        "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"g1\", \"labels\": {\"example.com/block\": "
        "\"b\", \"example.com/rack\": \"r\", \"x\": \"y\"}}, \"status\": {\"allocatable\": {\"nvidia.com/gpu\": "
        "\"8\"}}}]}";
    tsched_k8s_options o;
    tsched_k8s_options_init(&o);
    o.levels = levels;
    o.nlevels = 3;
    tsched_topology *t = NULL;
    tsched_topology_import_k8s_nodes_string(&t, text, n, &o);
    imported(t);
    char *copy = malloc(n + 1);
    if (!copy)
        return;
    memcpy(copy, text, n);
    copy[n] = '\0';
    tsched_k8s_options_init(&o);
    o.kueue_topology = copy;
    t = NULL;
    tsched_topology_import_k8s_nodes_string(&t, nodes, sizeof nodes - 1, &o);
    imported(t);
    tsched_k8s_options_init(&o);
    o.levels = levels;
    o.nlevels = 3;
    o.pods_json = copy;
    t = NULL;
    tsched_topology_import_k8s_nodes_string(&t, nodes, sizeof nodes - 1, &o);
    imported(t);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    unsigned sel = data[0] % 17;
    switch (sel) {
    case 0:
        topology_json(text, n);
        break;
    case 1: {
        /* A dozen bytes of hostlist may legally name a million nodes: that only measures
         * the machine's memory. Lower limits keep every expansion well below the fuzzer's
         * RSS limit (the large expansions are unit-tested). */
        tsched_limits lim = {.size = sizeof lim};
        tsched_limits_get(&lim);
        lim.nodes = 1u << 17;
        lim.switches = 1u << 14;
        tsched_limits_set(&lim);
        tsched_topology *t = NULL;
        tsched_topology_import_slurm_string(&t, text, n, NULL);
        tsched_topology_free(t);
        tsched_limits_reset();
        break;
    }
    case 2: {
        tsched_job *j = NULL;
        if (tsched_job_load_string(&j, text, n) == TSCHED_OK) {
            uint32_t r, c;
            tsched_volumes v = {.size = sizeof v};
            tsched_job_matrix(&r, &c, j, 8);
            tsched_job_volumes(&v, j);
            char *json = NULL;
            tsched_job_to_json(&json, j);
            tsched_free(json);
        }
        tsched_job_free(j);
        break;
    }
    case 3: {
        tsched_dag *d = NULL, *pull = NULL;
        tsched_status st = tsched_dag_load_string(&d, text, n);
        if (ts_dag_read_text(&pull, NULL, text, n) == TSCHED_OK) {
            if (st != TSCHED_OK || pull->n != d->n || pull->m != d->m ||
                (d->m && memcmp(pull->e, d->e, (size_t)d->m * sizeof *d->e) != 0))
                abort(); /* the pull reader and the tree reader disagree */
        }
        tsched_dag_free(pull);
        if (st == TSCHED_OK && tsched_dag_nodes(d) <= 5000) {
            uint32_t *levels = calloc(tsched_dag_nodes(d) + 1, sizeof *levels);
            double cut;
            tsched_kcut_options o;
            tsched_kcut_options_init(&o);
            o.levels = 3;
            o.orders = 2;
            if (levels)
                tsched_dag_compress(levels, &cut, d, &o);
            free(levels);
        }
        tsched_dag_free(d);
        break;
    }
    case 9:
        vclos_docs(text, n);
        break;
    case 10:
        gpu_catalog(text, n);
        break;
    case 11:
        op_profile(text, n);
        break;
    case 12:
        crius_queue(text, n);
        break;
    case 13:
        service_requests(text, n);
        break;
    case 14:
        slurm_yaml(text, n);
        break;
    case 15:
        k8s_nodes(text, n);
        break;
    case 16:
        if (jr_compare(text, n, NULL, NULL) != 0)
            abort(); /* the pull reader accepted what jansson refuses, or read other values */
        break;
    default: {
        tsched_topology *t = fuzz_small_clos();
        if (!t)
            break;
        if (sel == 4) {
            tsched_flows *f = NULL;
            tsched_routes *r = NULL;
            tsched_flows *pull = NULL, *tree = NULL;
            if (ts_flows_read_text(&pull, t, text, n) == TSCHED_OK) {
                if (ts_json_load_string(&tree, ts_flows_read_tree, t, text, n, "fuzz") != TSCHED_OK ||
                    tree->n != pull->n || (tree->n && (memcmp(tree->src, pull->src, tree->n * sizeof *tree->src) ||
                                                       memcmp(tree->dst, pull->dst, tree->n * sizeof *tree->dst) ||
                                                       memcmp(tree->src_nic, pull->src_nic, tree->n * sizeof *tree->src_nic) ||
                                                       memcmp(tree->dst_nic, pull->dst_nic, tree->n * sizeof *tree->dst_nic) ||
                                                       memcmp(tree->gbits, pull->gbits, tree->n * sizeof *tree->gbits) ||
                                                       memcmp(tree->job, pull->job, tree->n * sizeof *tree->job))))
                    abort(); /* the pull reader and the tree reader disagree */
            }
            tsched_flows_free(pull);
            tsched_flows_free(tree);
            if (tsched_flows_load_string(&f, t, text, n) == TSCHED_OK && tsched_flows_count(f) <= 2000)
                tsched_route(&r, t, f, NULL);
            tsched_routes_free(r);
            tsched_flows_free(f);
        } else if (sel == 5) {
            tsched_jobset *js = NULL;
            tsched_priorities *p = NULL;
            if (tsched_jobset_load_string(&js, t, text, n) == TSCHED_OK && tsched_jobset_count(js) <= 50)
                tsched_prioritize(&p, t, js, NULL);
            tsched_priorities_free(p);
            tsched_jobset_free(js);
        } else if (sel == 6) {
            tsched_placement *p = NULL;
            tsched_placement_load_string(&p, t, text, n);
            tsched_placement_free(p);
        } else {
            /* 7: a tsched.trace.v1, 8: a tsched.scenario.v1 (then a short run of the example
             * trace, so the scenario's settings are exercised) */
            static const char example[] = "{\"format\": \"tsched.trace.v1\", \"jobs\": [{\"name\": \"a\", "
                                          "\"gpus\": 16, \"compute_ms\": 5, \"iterations\": 3, \"phases\": "
                                          "[{\"pattern\": \"dp-ring\", \"gbits\": 1}]}]}";
            tsched_sim *s = NULL;
            if (tsched_sim_new(&s, t) == TSCHED_OK) {
                int ok = sel == 7 ? tsched_sim_load_trace_string(s, text, n) == TSCHED_OK
                                          : tsched_sim_load_scenario_string(s, text, n) == TSCHED_OK &&
                                                tsched_sim_load_trace_string(s, example, sizeof example - 1) ==
                                                    TSCHED_OK;
                if (ok) {
                    /* bounded: at most a simulated minute */
                    tsched_sim_run_until(s, 60000000000LL);
                }
            }
            tsched_sim_free(s);
        }
        tsched_topology_free(t);
        break;
    }
    }
    return 0;
}
