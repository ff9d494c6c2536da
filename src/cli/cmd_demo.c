/* topo-sched demo: the embedded default cluster, shown without any input file. Later
 * modules extend it (placement, routing, priorities). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The demo's own seeded generator, so the busy pattern is the same on every run. */
static uint64_t demo_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A clos3 fabric of a realistic size: 8 pods x 16 leaves x 16 nodes = 2,048 H800 nodes,
 * 16,384 GPUs, 8 spines per pod, 16 cores in 8 planes; about a third of it busy. */
static tsched_status make_demo_cluster(tsched_topology **out)
{
    tsched_gen_params p;
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.name = "demo";
    p.pods = 8;
    p.leaves_per_pod = 16;
    p.spines_per_pod = 8;
    p.cores = 16;
    p.nodes_per_leaf = 16;
    p.gpus_per_node = 8;
    p.nic_gbps = 400;
    p.gpu_type = "H800";
    tsched_status st = tsched_topology_generate(out, &p);
    if (st != TSCHED_OK)
        return st;
    uint64_t seed = 0x5eed2026u;
    uint32_t n = tsched_topology_num_nodes(*out);
    for (uint32_t i = 0; i < n && st == TSCHED_OK; i++) {
        uint64_t r = demo_rand(&seed) % 100;
        /* Busy nodes cluster by leaf, as long-running jobs do. */
        uint64_t leaf_bias = (i / 16) % 5 == 0 ? 30 : 0;
        if (r < 20 + leaf_bias)
            st = tsched_topology_set_free_gpus(*out, i, 0);
        else if (r < 30 + leaf_bias)
            st = tsched_topology_set_free_gpus(*out, i, (uint32_t)(1 + demo_rand(&seed) % 7));
    }
    return st;
}

static void print_path(const tsched_topology *t, const tsched_path *p)
{
    for (uint32_t i = 0; i < p->nswitches; i++)
        printf("%s%s", i ? " > " : "", tsched_topology_switch_name(t, p->switches[i]));
}

static tsched_status show_paths(const tsched_topology *t, const char *a, const char *b, const char *what)
{
    uint32_t na = tsched_topology_find_node(t, a), nb = tsched_topology_find_node(t, b);
    uint64_t count;
    tsched_status st = tsched_topology_path_count(&count, t, na, 0, nb, 0);
    if (st != TSCHED_OK)
        return st;
    tsched_path paths[64] = {{.size = sizeof(tsched_path)}};
    size_t n;
    st = tsched_topology_paths(paths, 64, &n, t, na, 0, nb, 0);
    if (st != TSCHED_OK && st != TSCHED_E_BUFFER)
        return st;
    printf("  %-7s -> %-8s %-22s %3" PRIu64 " paths", a, b, what, count);
    if (n > 0) {
        printf(", first: ");
        print_path(t, &paths[0]);
    }
    printf("\n");
    return TSCHED_OK;
}

/* Place a GPT-like job (Arnold's setting (iii) shape: DP46 TP8 PP8, 368 nodes) on the demo
 * cluster with every algorithm. Called before the failure part, on the intact fabric. */
static tsched_status demo_place(const tsched_topology *t, tsched_placement **keep)
{
    tsched_job *j;
    tsched_status st = tsched_job_new(&j, "llm-demo", 2944, 8, 8);
    if (st != TSCHED_OK)
        return st;
    if ((st = tsched_job_set_alpha(j, 0.3)) != TSCHED_OK) {
        tsched_job_free(j);
        return st;
    }
    uint32_t rows, cols;
    if ((st = tsched_job_matrix(&rows, &cols, j, 8)) != TSCHED_OK) {
        tsched_job_free(j);
        return st;
    }
    printf("\nplacing job \"llm-demo\": 2944 GPUs, TP 8, PP 8, DP 46 -> %u x %u nodes, alpha 0.3 (beta 0.7)\n", rows,
           cols);
    printf("  %-11s %9s %7s %7s %5s %10s  %s\n", "algorithm", "weighted", "dp_max", "pp_max", "pods", "time", "status");
    static const tsched_place_algo algos[] = {TSCHED_PLACE_MIP, TSCHED_PLACE_BEST_FIT, TSCHED_PLACE_RANDOM_FIT,
                                              TSCHED_PLACE_GPU_PACK, TSCHED_PLACE_TOPO_AWARE, TSCHED_PLACE_EXHAUSTIVE};
    tsched_placement *mip = NULL;
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        tsched_place_options o;
        tsched_place_options_init(&o);
        o.algo = algos[i];
        tsched_placement *p;
        st = tsched_place(&p, t, j, &o);
        if (st == TSCHED_E_INVALID && algos[i] == TSCHED_PLACE_EXHAUSTIVE) {
            printf("  %-11s %9s  (exact enumeration stops at 16 nodes and 4 pods)\n", "exhaustive", "-");
            continue;
        }
        if (st != TSCHED_OK) {
            tsched_placement_free(mip);
            tsched_job_free(j);
            return st;
        }
        printf("  %-11s %9.2f %7u %7u %5u %7.1f ms  %s\n", tsched_place_algo_name(algos[i]), tsched_placement_weighted(p),
               tsched_placement_dp_max(p), tsched_placement_pp_max(p), tsched_placement_domains_used(p),
               tsched_placement_solve_ms(p), tsched_placement_status(p) == TSCHED_PLACE_OPTIMAL ? "optimal" : "feasible");
        if (algos[i] == TSCHED_PLACE_MIP)
            mip = p;
        else
            tsched_placement_free(p);
    }
    char *hosts = NULL;
    if ((st = tsched_placement_hostfile(&hosts, mip, t)) == TSCHED_OK) {
        printf("\nmip host file, first 10 of %u ranks (rank = col * rows + row; Megatron order):\n", rows * cols);
        char *line = hosts;
        for (int k = 0; k < 10 && *line; k++) {
            char *nl = strchr(line, '\n');
            printf("  rank %-3d %.*s (pod %s)\n", k, (int)(nl - line), line,
                   tsched_topology_pod_name(t, tsched_topology_node_pod(t, tsched_placement_node(mip, (uint32_t)k % rows,
                                                                                                (uint32_t)k / rows))));
            line = nl + 1;
        }
    }
    tsched_free(hosts);
    *keep = mip;
    tsched_job_free(j);
    return st;
}

/* Route the placed job's ring all-reduce flows (one per NIC rail) with greedy and ECMP. */
static tsched_status demo_route_once(const tsched_topology *t, const tsched_flows *f, const char *label)
{
    static const tsched_route_algo algos[] = {TSCHED_ROUTE_GREEDY, TSCHED_ROUTE_ECMP};
    tsched_routes *r[2] = {NULL, NULL};
    tsched_status st = TSCHED_OK;
    for (int i = 0; i < 2 && st == TSCHED_OK; i++) {
        tsched_route_options o;
        tsched_route_options_init(&o);
        o.algo = algos[i];
        st = tsched_route(&r[i], t, f, &o);
    }
    if (st == TSCHED_OK)
        printf("  %-26s %8u %10u   %8.1f %10.1f\n", label, tsched_routes_max_link_flows(r[0]),
               tsched_routes_max_link_flows(r[1]), tsched_routes_min_rate(r[0]), tsched_routes_min_rate(r[1]));
    tsched_routes_free(r[0]);
    tsched_routes_free(r[1]);
    return st;
}

static tsched_status demo_route(tsched_topology *t, const tsched_placement *p)
{
    tsched_flows *f;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        return st;
    if ((st = tsched_flows_collective(f, t, NULL, tsched_placement_nodes(p), tsched_placement_rows(p),
                                      tsched_placement_cols(p), TSCHED_PATTERN_DP_RING, 0, 10.0)) != TSCHED_OK) {
        tsched_flows_free(f);
        return st;
    }
    printf("\nrouting its dp-ring step: %u flows (one per NIC rail of every ring edge, 10 Gbit each)\n",
           tsched_flows_count(f));
    printf("  %-26s %8s %10s   %8s %10s\n", "", "max flows/link", "", "min rate (Gbit/s)", "");
    printf("  %-26s %8s %10s   %8s %10s\n", "", "greedy", "ecmp", "greedy", "ecmp");
    /* two spines of the pod that holds the job's first node (8 spines per pod, generated
     * names: spine p*8+s) */
    uint32_t pod = tsched_topology_node_pod(t, tsched_placement_node(p, 0, 0));
    char s1[32], s2[32], label[96];
    snprintf(s1, sizeof s1, "spine%u", pod * 8 + 1);
    snprintf(s2, sizeof s2, "spine%u", pod * 8 + 5);
    snprintf(label, sizeof label, "%s and %s down", s1, s2);
    if ((st = demo_route_once(t, f, "intact fabric")) == TSCHED_OK &&
        (st = tsched_topology_set_up(t, s1, 0)) == TSCHED_OK && (st = tsched_topology_set_up(t, s2, 0)) == TSCHED_OK)
        st = demo_route_once(t, f, label);
    if (st == TSCHED_OK && (st = tsched_topology_set_up(t, s1, 1)) == TSCHED_OK)
        st = tsched_topology_set_up(t, s2, 1);
    tsched_flows_free(f);
    return st;
}

/* CRUX on a mixed job set sharing leaf0/leaf1 and leaf2/leaf3 of the demo cluster: a
 * GPT-like job (8 nodes), a BERT-like job (2 nodes), two ResNet-like jobs (2 nodes each). */
static tsched_status demo_priorities(const tsched_topology *t)
{
    /* ring all-reduce traffic, one flow per NIC rail (8 rails), gigabits per iteration */
    char *doc = malloc(1 << 16);
    if (!doc)
        return TSCHED_E_NOMEM;
    size_t n = 0;
    n += (size_t)snprintf(doc + n, 65536 - n, "{\"format\": \"tsched.jobset.v1\", \"jobs\": [");
    static const struct {
        const char *name;
        unsigned gpus, first, count, stride;
        double tflop, ms, overlap, gbits;
    } jobs[] = {{"gpt", 64, 0, 8, 4, 9500.0, 1200.0, 0.5, 12.0},
                {"bert", 16, 1, 2, 16, 410.0, 300.0, 0.3, 2.5},
                {"resnet-a", 16, 2, 2, 16, 160.0, 220.0, 0.7, 0.8},
                {"resnet-b", 16, 34, 2, 16, 150.0, 200.0, 0.7, 0.8}};
    for (size_t j = 0; j < 4; j++) {
        n += (size_t)snprintf(doc + n, 65536 - n,
                              "%s{\"name\": \"%s\", \"gpus\": %u, \"work_tflop\": %.1f, \"compute_ms\": %.1f, "
                              "\"overlap\": %.2f, \"flows\": [",
                              j ? ", " : "", jobs[j].name, jobs[j].gpus, jobs[j].tflop, jobs[j].ms, jobs[j].overlap);
        for (unsigned r = 0; r < jobs[j].count; r++) {
            unsigned a = jobs[j].first + r * jobs[j].stride, b = jobs[j].first + ((r + 1) % jobs[j].count) * jobs[j].stride;
            for (unsigned k = 0; k < 8; k++)
                n += (size_t)snprintf(doc + n, 65536 - n,
                                      "%s{\"src\": \"node%u\", \"dst\": \"node%u\", \"src_nic\": %u, \"dst_nic\": %u, "
                                      "\"gbits\": %.2f}",
                                      r || k ? ", " : "", a, b, k, k, jobs[j].gbits);
        }
        n += (size_t)snprintf(doc + n, 65536 - n, "]}");
    }
    n += (size_t)snprintf(doc + n, 65536 - n, "]}");
    tsched_jobset *js = NULL;
    tsched_status st = tsched_jobset_load_string(&js, t, doc, n);
    free(doc);
    if (st != TSCHED_OK)
        return st;
    static const tsched_kcut_algo algos[] = {TSCHED_KCUT_CRUX, TSCHED_KCUT_SINCRONIA, TSCHED_KCUT_VARYS};
    tsched_priorities *p[3] = {NULL, NULL, NULL};
    for (int a = 0; a < 3 && st == TSCHED_OK; a++) {
        tsched_prio_options o;
        tsched_prio_options_init(&o);
        o.levels = 2;
        o.algo = algos[a];
        st = tsched_prioritize(&p[a], t, js, &o);
    }
    if (st == TSCHED_OK) {
        printf("\nCRUX priorities for four jobs sharing trunks, compressed to 2 hardware levels:\n");
        printf("  %-9s %12s %8s %12s %6s %6s %10s %6s\n", "job", "intensity", "k", "priority", "order", "crux",
               "sincronia", "varys");
        for (uint32_t i = 0; i < tsched_jobset_count(js); i++)
            printf("  %-9s %12.1f %8.3f %12.1f %6u %6u %10u %6u\n", tsched_jobset_name(js, i),
                   tsched_priorities_intensity(p[0], i), tsched_priorities_factor(p[0], i),
                   tsched_priorities_priority(p[0], i), tsched_priorities_order(p[0], i),
                   tsched_priorities_level(p[0], i), tsched_priorities_level(p[1], i), tsched_priorities_level(p[2], i));
        printf("  contention DAG: %u edges of total weight %.1f; cut weight crux %.1f, sincronia %.1f, varys %.1f\n",
               tsched_priorities_dag_edges(p[0]), tsched_priorities_total_weight(p[0]),
               tsched_priorities_cut_weight(p[0]), tsched_priorities_cut_weight(p[1]),
               tsched_priorities_cut_weight(p[2]));
    }
    for (int a = 0; a < 3; a++)
        tsched_priorities_free(p[a]);
    tsched_jobset_free(js);
    return st;
}

/* CRUX Example 1 (seed 001 §4.2) in the simulator: two jobs of 10 GPUs on one link; job 1
 * computes 2 s and sends 2 s, job 2 computes 1 s and sends 1 s. Whose traffic goes first
 * decides the GPU utilisation. */
static tsched_status demo_simulate(void)
{
    tsched_topology *t;
    tsched_status st = tsched_topology_new(&t, "crux-example-1");
    static const char *const n[4] = {"a0", "b0", "a1", "b1"}, *const l[4] = {"leaf0", "leaf0", "leaf1", "leaf1"};
    if (st || (st = tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL)) ||
        (st = tsched_topology_add_switch(NULL, t, "leaf1", 0, NULL)) ||
        (st = tsched_topology_add_switch(NULL, t, "spine0", 1, NULL)) ||
        (st = tsched_topology_add_link(t, "leaf0", "spine0", 100, 1)) ||
        (st = tsched_topology_add_link(t, "leaf1", "spine0", 100, 1)))
        goto out;
    for (int i = 0; i < 4 && st == TSCHED_OK; i++)
        st = tsched_topology_add_node(NULL, t, n[i], l[i], 5, 1, NULL, 400);
    if (st || (st = tsched_topology_build(t)))
        goto out;
    printf("\nsimulating CRUX Example 1: two 10-GPU jobs share one 100 Gbit/s link; job 1 computes 2 s\n"
           "and sends 200 Gbit, job 2 computes 1 s and sends 100 Gbit, no overlap:\n");
    for (int first = 1; first <= 2 && st == TSCHED_OK; first++) {
        tsched_sim *s = NULL;
        tsched_sim_result *r = NULL;
        uint32_t na[2] = {0, 2}, nb[2] = {1, 3}, ja, jb, ph;
        tsched_sim_job j1 = {sizeof j1, "job1", 0, 0, 0, 0, 2000000000, 0, 1000, 0, first == 1 ? 0 : 1, 0, NULL, na, 2};
        tsched_sim_job j2 = {sizeof j2, "job2", 0, 0, 0, 0, 1000000000, 0, 1000, 0, first == 2 ? 0 : 1, 0, NULL, nb, 2};
        tsched_sim_phase p = {sizeof p, -1, 0, 1};
        tsched_sim_summary sm = {.size = sizeof sm};
        if (!(st = tsched_sim_new(&s, t)) && !(st = tsched_sim_set_policy(s, TSCHED_SIM_PRIORITY, "fixed")) &&
            !(st = tsched_sim_set_option(s, TSCHED_SIM_MEASURE_FROM_S, 120)) &&
            !(st = tsched_sim_set_option(s, TSCHED_SIM_MEASURE_TO_S, 144)) &&
            !(st = tsched_sim_set_option(s, TSCHED_SIM_UNTIL_S, 144)) && !(st = tsched_sim_add_job(&ja, s, &j1)) &&
            !(st = tsched_sim_job_add_phase(&ph, s, ja, &p)) &&
            !(st = tsched_sim_phase_add_flow(s, ja, ph, 0, 0, 1, 0, 200, NULL, 0)) &&
            !(st = tsched_sim_add_job(&jb, s, &j2)) && !(st = tsched_sim_job_add_phase(&ph, s, jb, &p)) &&
            !(st = tsched_sim_phase_add_flow(s, jb, ph, 0, 0, 1, 0, 100, NULL, 0)) &&
            !(st = tsched_sim_run_until(s, INT64_MAX)) && !(st = tsched_sim_result_new(&r, s)) &&
            !(st = tsched_sim_result_summary(&sm, r)))
            printf("  job %d first: GPU utilisation %.1f %% over 120-144 s (paper: %s)\n", first, 100 * sm.gpu_util,
                   first == 1 ? "37.5 %" : "41.7 %");
        tsched_sim_result_free(r);
        tsched_sim_free(s);
    }
out:
    tsched_topology_free(t);
    return st;
}

/* vClos (doc/vclos.md §8): two multi-leaf jobs on a small leaf-spine; one ring step of both,
 * routed by ECMP over free links (mode free) and by vClos's reserved source routes; the
 * directed member links that carry two or more of the step's flows. */
#define DEMO_VCLOS_SEED 7

/* Route every cross-leaf flow of one ring step of every job; *flows = their number, returns
 * the directed member links carrying two or more (-1 when routing failed: st set). */
static int vclos_ring_shared(const tsched_vclos *v, uint32_t *flows, tsched_status *st)
{
    uint32_t nl = tsched_vclos_num_links(v), shared = 0;
    uint32_t *cnt = calloc(2 * (size_t)nl + 1, sizeof *cnt);
    *flows = 0;
    *st = cnt ? TSCHED_OK : TSCHED_E_NOMEM;
    for (uint32_t i = 0; *st == TSCHED_OK && i < tsched_vclos_num_jobs(v); i++) {
        const char *job = tsched_vclos_job_name(v, i);
        uint32_t node[64];
        size_t R = 0;
        if ((*st = tsched_vclos_job_ranks(node, NULL, NULL, 64, &R, v, job)) != TSCHED_OK)
            break;
        for (uint32_t r = 0; r < R && *st == TSCHED_OK; r++) {
            uint32_t d = (uint32_t)((r + 1) % R), up, down;
            if (node[r] == node[d] || (*st = tsched_vclos_route(&up, &down, v, job, r, d)) != TSCHED_OK ||
                up == TSCHED_NONE)
                continue;
            ++*flows;
            shared += ++cnt[2 * (size_t)up] == 2;
            shared += ++cnt[2 * (size_t)down + 1] == 2;
        }
    }
    free(cnt);
    return *st == TSCHED_OK ? (int)shared : -1;
}

static tsched_status demo_vclos(void)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.name = "vclos-demo";
    g.leaves = 4;
    g.spines = 4;
    g.uplinks = 1;
    g.nodes_per_leaf = 2;
    g.gpus_per_node = 2;
    g.nics_per_node = 2;
    g.nic_gbps = 100;
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_generate(&t, &g);
    if (st != TSCHED_OK)
        return st;
    printf("\nvClos on a 4-leaf x 4-spine leaf-spine (2 nodes x 2 GPUs x 2 NICs per leaf, 1 link per pair):\n"
           "two 6-GPU jobs (3 nodes each, one per leaf), one ring step of both:\n");
    printf("  %-22s %-26s %-26s %6s %s\n", "mode", "job a leaves", "job b leaves", "flows",
           "member links with >= 2 flows");
    static const struct {
        tsched_vclos_mode mode;
        const char *label;
    } runs[] = {{TSCHED_VCLOS_MODE_FREE, "free, ecmp (seed 7)"}, {TSCHED_VCLOS_MODE_VCLOS, "vclos (source routes)"}};
    for (size_t k = 0; k < 2 && st == TSCHED_OK; k++) {
        tsched_vclos *v = NULL;
        tsched_vclos_outcome oa = TSCHED_VCLOS_WAIT_GPU, ob = TSCHED_VCLOS_WAIT_GPU;
        if ((st = tsched_vclos_new(&v, t, runs[k].mode)) ||
            (runs[k].mode == TSCHED_VCLOS_MODE_FREE &&
             (st = tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_ECMP, DEMO_VCLOS_SEED))) ||
            (st = tsched_vclos_allocate(v, "a", 6, &oa)) || (st = tsched_vclos_allocate(v, "b", 6, &ob))) {
            tsched_vclos_free(v);
            break;
        }
        char leaves[2][64];
        for (int j = 0; j < 2; j++) {
            uint32_t nodes[8];
            size_t n = 0, w = 0;
            leaves[j][0] = '\0';
            if (tsched_vclos_job_nodes(nodes, 8, &n, v, j ? "b" : "a") != TSCHED_OK) {
                snprintf(leaves[j], sizeof leaves[j], "(waits)");
                continue;
            }
            for (size_t i = 0; i < n; i++)
                w += (size_t)snprintf(leaves[j] + w, sizeof leaves[j] - w, "%s%s", i ? " " : "",
                                      tsched_topology_switch_name(t, tsched_topology_node_leaf(t, nodes[i])));
        }
        uint32_t flows = 0;
        int shared = oa == TSCHED_VCLOS_ALLOCATED && ob == TSCHED_VCLOS_ALLOCATED ? vclos_ring_shared(v, &flows, &st) : -1;
        if (st == TSCHED_E_STATE) { /* a part of the module this build does not have yet */
            printf("  %-22s (%s)\n", runs[k].label, tsched_last_error());
            st = TSCHED_OK;
        } else if (st == TSCHED_OK && shared < 0)
            printf("  %-22s %-26s %-26s (a job waits)\n", runs[k].label, leaves[0], leaves[1]);
        else if (st == TSCHED_OK)
            printf("  %-22s %-26s %-26s %6u %d\n", runs[k].label, leaves[0], leaves[1], flows, shared);
        tsched_vclos_free(v);
    }
    tsched_topology_free(t);
    return st;
}

/* Crius (doc/cell.md): the four BERT sizes of Crius Table 2 on its Table 1 cluster scaled to
 * 1/10, their best Cell per pool, then one arrival event of the Cell-based scheduler. */

/* A part of the cell module this build does not have yet. */
static int cell_missing(tsched_status st)
{
    return st == TSCHED_E_INTERNAL && strstr(tsched_last_error(), "not implemented yet") != NULL;
}

static tsched_status crius_cluster(tsched_topology **out)
{
    static const struct {
        const char *prefix, *type;
        uint32_t nodes, gpus;
        double nic_gbps;
    } kinds[] = {{"a100-", "A100-40G", 8, 4, 100}, {"a40-", "A40", 16, 2, 100}, {"a10-", "A10", 16, 2, 200},
                 {"v100-", "V100", 2, 16, 100}};
    tsched_topology *t;
    tsched_status st = tsched_topology_new(&t, "crius-table1-tenth");
    if (st == TSCHED_OK)
        st = tsched_topology_add_switch(NULL, t, "spine0", 1, NULL);
    for (size_t k = 0; k < 4 && st == TSCHED_OK; k++) {
        char leaf[32], name[32];
        snprintf(leaf, sizeof leaf, "leaf%zu", k);
        if ((st = tsched_topology_add_switch(NULL, t, leaf, 0, NULL)) ||
            (st = tsched_topology_add_link(t, leaf, "spine0", 400, 4)))
            break;
        for (uint32_t i = 0; i < kinds[k].nodes && st == TSCHED_OK; i++) {
            snprintf(name, sizeof name, "%s%u", kinds[k].prefix, i);
            st = tsched_topology_add_node(NULL, t, name, leaf, kinds[k].gpus, 1, kinds[k].type, kinds[k].nic_gbps);
        }
    }
    if (st == TSCHED_OK)
        st = tsched_topology_build(t);
    /* half of the A100 nodes and one V100 node are busy with other work */
    static const char *const busy[] = {"a100-0", "a100-1", "a100-2", "a100-3", "v100-1"};
    for (size_t i = 0; i < 5 && st == TSCHED_OK; i++)
        st = tsched_topology_set_free_gpus(t, tsched_topology_find_node(t, busy[i]), 0);
    if (st != TSCHED_OK) {
        tsched_topology_free(t);
        return st;
    }
    *out = t;
    return TSCHED_OK;
}

static const struct {
    const char *name;
    uint32_t hidden, layers, gpus;
} crius_models[] = {{"bert-0.76b", 1536, 24, 4}, {"bert-1.3b", 2048, 24, 8}, {"bert-2.6b", 2560, 32, 8},
                    {"bert-6.7b", 4096, 32, 16}};

static tsched_status crius_job(tsched_job **out, size_t k)
{
    tsched_status st = tsched_job_new(out, crius_models[k].name, crius_models[k].gpus, 1, 1);
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = crius_models[k].hidden;
    m.layers = crius_models[k].layers;
    m.vocab = 30522;
    m.seq = 512;
    m.global_batch = 256;
    m.micro_batch = 1;
    if (st == TSCHED_OK && (st = tsched_job_set_model(*out, &m)) != TSCHED_OK)
        tsched_job_free(*out);
    return st;
}

/* Best candidate Cell of `job` on `pool` (greatest throughput; ties: fewer GPUs, fewer stages). */
static tsched_status crius_best(uint32_t *bn, uint32_t *bs, double *thr, const tsched_topology *t, const char *pool,
                                const tsched_gpu_catalog *cat, const tsched_job *job, uint32_t ng, uint32_t layers)
{
    *bn = *bs = 0;
    *thr = 0;
    for (uint32_t n = ng / 2; n <= 2 * ng; n *= 2)
        for (uint32_t s = 1; s <= n && s <= layers; s *= 2) {
            tsched_cell *c;
            tsched_status st = tsched_cell_estimate(&c, t, pool, cat, job, NULL, n, s, TSCHED_PLANS_ASSEMBLED);
            if (st != TSCHED_OK)
                return st;
            if (tsched_cell_feasible(c) && tsched_cell_throughput(c) > *thr) {
                *thr = tsched_cell_throughput(c);
                *bn = n;
                *bs = s;
            }
            tsched_cell_free(c);
        }
    return TSCHED_OK;
}

static tsched_status demo_crius_run(void)
{
    tsched_topology *t = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_crius *cr = NULL;
    tsched_job *jobs[4] = {NULL, NULL, NULL, NULL};
    char **pools = NULL;
    uint32_t npools = 0;
    tsched_status st = crius_cluster(&t);
    if (st || (st = tsched_gpu_catalog_default(&cat)) || (st = tsched_cell_pools(&pools, &npools, t)))
        goto out;
    for (size_t k = 0; k < 4 && st == TSCHED_OK; k++)
        st = crius_job(&jobs[k], k);
    if (st)
        goto out;
    printf("  best Cell per pool over N in {N_G/2, N_G, 2 N_G} and S in 1, 2, 4, ... (N GPUs x S stages,\n"
           "  sequences/s of the assembled plan; global batch 256, seq 512, vocabulary 30522):\n");
    printf("  %-11s %5s %3s %4s", "model", "h", "l", "N_G");
    for (uint32_t p = 0; p < npools; p++)
        printf(p + 1 < npools ? "  %-16s" : "  %s", pools[p]);
    printf("\n");
    for (size_t k = 0; k < 4 && st == TSCHED_OK; k++) {
        printf("  %-11s %5u %3u %4u", crius_models[k].name, crius_models[k].hidden, crius_models[k].layers,
               crius_models[k].gpus);
        for (uint32_t p = 0; p < npools && st == TSCHED_OK; p++) {
            uint32_t n, s;
            double thr;
            if ((st = crius_best(&n, &s, &thr, t, pools[p], cat, jobs[k], crius_models[k].gpus,
                                 crius_models[k].layers)) == TSCHED_OK) {
                char cellbuf[32];
                if (n)
                    snprintf(cellbuf, sizeof cellbuf, "%ux%u %.1f", n, s, thr);
                else
                    snprintf(cellbuf, sizeof cellbuf, "(none fits)");
                printf(p + 1 < npools ? "  %-16s" : "  %s", cellbuf);
            }
        }
        printf("\n");
    }
    if (st || (st = tsched_crius_new(&cr, t, cat)))
        goto out;
    for (size_t k = 0; k < 4 && st == TSCHED_OK; k++)
        st = tsched_crius_add_job(NULL, cr, jobs[k], (double)k);
    if (st || (st = tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL)))
        goto out;
    printf("  one arrival event of the four jobs (A100 nodes 0-3 and v100-1 busy; depth 3, normalized):\n");
    for (uint32_t j = 0; j < tsched_crius_num_jobs(cr) && st == TSCHED_OK; j++) {
        const tsched_cell *c;
        if (!tsched_crius_job_running(cr, j)) {
            printf("    %-11s pending: %s\n", tsched_crius_job_name(cr, j), tsched_crius_job_reason(cr, j));
            continue;
        }
        uint32_t nodes[64], ngpus[64];
        size_t cnt = 0;
        if ((st = tsched_crius_job_cell(&c, cr, j)) ||
            ((st = tsched_crius_job_nodes(nodes, ngpus, 64, &cnt, cr, j)) && st != TSCHED_E_BUFFER))
            break;
        st = TSCHED_OK;
        printf("    %-11s %-11s %2u GPUs x %2u stage%s %7.1f seq/s (%.2f of its reference) on %zu node%s from %s\n",
               tsched_crius_job_name(cr, j), tsched_cell_pool(c), tsched_cell_gpus(c), tsched_cell_num_stages(c),
               tsched_cell_num_stages(c) == 1 ? " " : "s",
               tsched_cell_throughput(c), tsched_cell_throughput(c) / tsched_crius_job_reference(cr, j), cnt,
               cnt == 1 ? "" : "s", cnt ? tsched_topology_node_name(t, nodes[0]) : "-");
    }
    if (st == TSCHED_OK)
        printf("  objective (sum of throughput / reference): %.3f\n", tsched_crius_value(cr));
out:
    tsched_crius_free(cr);
    for (size_t k = 0; k < 4; k++)
        tsched_job_free(jobs[k]);
    tsched_free(pools);
    tsched_gpu_catalog_free(cat);
    tsched_topology_free(t);
    return st;
}

static tsched_status demo_crius(void)
{
    printf("\nCrius Cells: the BERT sizes of Crius Table 2 (0.76, 1.3, 2.6, 6.7 B; shapes h x l of the GPT-3\n"
           "family, 0.77, 1.33, 2.67, 6.70 B by doc/cell.md's count) on its Table 1 cluster at 1/10: 8 x 4\n"
           "A100-40G (NVLink), 16 x 2 A40, 16 x 2 A10, 2 x 16 V100 (NVLink); one NIC per node, 100 Gbit/s\n"
           "(A10: 200):\n");
    fflush(stdout);
    tsched_status st = demo_crius_run();
    if (cell_missing(st)) {
        printf("  (not in this build: %s)\n", tsched_last_error());
        st = TSCHED_OK;
    }
    return st;
}

int cmd_demo(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return cli_usage_error("demo: takes no arguments");
    tsched_topology *t;
    tsched_status st = make_demo_cluster(&t);
    if (st != TSCHED_OK)
        return cli_fail(st);
    uint32_t pods = tsched_topology_num_pods(t);
    uint64_t gpus = tsched_topology_num_gpus(t), free_gpus = tsched_topology_num_free_gpus(t);
    printf("topo-sched %s demo: the embedded default cluster\n\n", tsched_version());
    printf("fabric  \"%s\": clos3, %u pods, %u leaves, %u spines, %u cores, %u trunks\n", tsched_topology_name(t), pods,
           tsched_topology_num_tier(t, TSCHED_TIER_LEAF), tsched_topology_num_tier(t, TSCHED_TIER_SPINE),
           tsched_topology_num_tier(t, TSCHED_TIER_CORE), tsched_topology_num_trunks(t));
    uint32_t l0 = tsched_topology_tier_switch(t, TSCHED_TIER_LEAF, 0);
    uint32_t s0 = tsched_topology_tier_switch(t, TSCHED_TIER_SPINE, 0);
    uint32_t c0 = tsched_topology_tier_switch(t, TSCHED_TIER_CORE, 0);
    uint32_t tls = tsched_topology_find_trunk(t, l0, s0), tsc = tsched_topology_find_trunk(t, s0, c0);
    printf("links   leaf-spine trunk %u x 400 Gbps = %.0f Gbps, spine-core trunk %u x 400 Gbps = %.0f Gbps (1:1)\n",
           tsched_topology_trunk_links(t, tls), tsched_topology_trunk_gbps(t, tls), tsched_topology_trunk_links(t, tsc),
           tsched_topology_trunk_gbps(t, tsc));
    printf("nodes   %u nodes x %u %s GPUs, %u NICs of %.0f Gbps each\n", tsched_topology_num_nodes(t),
           tsched_topology_node_gpus(t, 0), tsched_topology_node_gpu_type(t, 0), tsched_topology_node_nics(t, 0),
           tsched_topology_node_nic_gbps(t, 0));
    printf("GPUs    %" PRIu64 " total, %" PRIu64 " free (%.1f%%); %u nodes entirely free\n\n", gpus, free_gpus,
           100.0 * (double)free_gpus / (double)gpus, tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0));
    printf("entirely free nodes per pod (what placement may use):\n");
    for (uint32_t p = 0; p < pods; p++) {
        uint32_t nl;
        const uint32_t *leaves = tsched_topology_pod_leaves(t, p, &nl);
        uint32_t best = 0, best_leaf = leaves[0];
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t f = tsched_topology_free_node_count(t, TSCHED_LEVEL_LEAF, leaves[i]);
            if (f > best) {
                best = f;
                best_leaf = leaves[i];
            }
        }
        printf("  %-5s %4u of %u nodes free; fullest-free leaf %s (%u/16)\n", tsched_topology_pod_name(t, p),
               tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, p), nl * 16,
               tsched_topology_switch_name(t, best_leaf), best);
    }
    printf("\nequal-cost paths between NIC 0 of two nodes:\n");
    if ((st = show_paths(t, "node0", "node5", "(same leaf)")) || (st = show_paths(t, "node0", "node40", "(same pod)")) ||
        (st = show_paths(t, "node0", "node300", "(pod0 -> pod1)")))
        goto fail;
    tsched_placement *placed = NULL;
    if ((st = demo_place(t, &placed)) != TSCHED_OK || (st = demo_route(t, placed)) != TSCHED_OK) {
        tsched_placement_free(placed);
        goto fail;
    }
    tsched_placement_free(placed);
    if ((st = demo_priorities(t)) != TSCHED_OK || (st = demo_simulate()) != TSCHED_OK ||
        (st = demo_vclos()) != TSCHED_OK || (st = demo_crius()) != TSCHED_OK)
        goto fail;
    printf("\nafter failing spine0 and the trunk leaf0~spine1:\n");
    if ((st = tsched_topology_set_up(t, "spine0", 0)) || (st = tsched_topology_set_up(t, "leaf0~spine1", 0)))
        goto fail;
    if ((st = show_paths(t, "node0", "node40", "(same pod)")) || (st = show_paths(t, "node0", "node300", "(pod0 -> pod1)")))
        goto fail;
    printf("\nnext: 'topo-sched topology show -t FILE' summarises your own tsched.topology.v1 fabric,\n"
           "'topo-sched topology import-slurm topology.conf' converts a Slurm tree topology,\n"
           "'topo-sched place -t FILE -j JOB' places a tsched.job.v1 job,\n"
           "'topo-sched flows' and 'topo-sched route' turn a placement into flows and paths,\n"
           "'topo-sched prioritize' and 'topo-sched kcut' assign CRUX priorities and levels,\n"
           "'topo-sched trace' and 'topo-sched simulate' replay jobs sharing the fabric,\n"
           "'topo-sched vclos' gives each job an isolated leaf-spine sub-fabric (vClos),\n"
           "'topo-sched cells' and 'topo-sched crius-schedule' estimate and schedule Crius Cells.\n");
    tsched_topology_free(t);
    return CLI_OK;
fail:
    tsched_topology_free(t);
    return cli_fail(st);
}
