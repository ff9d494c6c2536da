/* sim: jobs that share nodes and the host-internal link model (issue 23 item 2; doc/sim.md
 * "Shared nodes and host-internal links"): split placements as documented, NICs and PCIe
 * switch links shared at the analytic max-min rates, a single-node job's ring on NVLink or
 * PCIe, bad input named, and on seeded random runs the GPU table exact and every rate the
 * brute-force max-min of the links the flows cross. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "sim/sim_internal.h"
#include "test_util.h"

#define MS 1000000LL

/* A job of the trace: a dp-ring phase of `gbits` per flow (0: no phase). */
static int job_json(char *buf, size_t cap, const char *name, double arrival_s, uint32_t gpus, double compute_ms,
                    unsigned iters, double gbits)
{
    if (gbits > 0)
        return snprintf(buf, cap,
                        "{\"name\":\"%s\",\"arrival_s\":%.6f,\"gpus\":%u,\"compute_ms\":%.6f,\"iterations\":%u,"
                        "\"phases\":[{\"pattern\":\"dp-ring\",\"gbits\":%.6f}]}",
                        name, arrival_s, gpus, compute_ms, iters, gbits);
    return snprintf(buf, cap, "{\"name\":\"%s\",\"arrival_s\":%.6f,\"gpus\":%u,\"compute_ms\":%.6f,\"iterations\":%u}",
                    name, arrival_s, gpus, compute_ms, iters);
}

/* A simulation of `t` with the scenario text and the jobs (a JSON array's inside). */
static tsched_sim *make(tsched_topology *t, const char *scenario, const char *jobs)
{
    tsched_sim *s = tu_sim_new(t);
    char trace[16384];
    snprintf(trace, sizeof trace, "{\"format\":\"tsched.trace.v1\",\"jobs\":[%s]}", jobs);
    ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
    ck_assert_msg(tsched_sim_load_scenario_string(s, scenario, strlen(scenario)) == TSCHED_OK, "%s: %s", scenario,
                  tsched_last_error());
    return s;
}

static void run_done(tsched_sim *s)
{
    tsched_status st = tsched_sim_run_until(s, INT64_MAX);
    ck_assert_msg(st == TSCHED_OK, "%s", tsched_last_error());
}

/* The job's placement: nodes and GPUs per node, in rank order. */
static void assert_place(const tsched_sim *s, uint32_t ji, uint32_t n, const uint32_t *nodes, const uint32_t *gpus)
{
    const ts_sim_job *j = &s->jobs[ji];
    ck_assert_uint_eq(j->state, TS_JOB_RUNNING);
    ck_assert_uint_eq(j->nnodes, n);
    for (uint32_t k = 0; k < n; k++) {
        ck_assert_uint_eq(j->nodes[k], nodes[k]);
        ck_assert_uint_eq(ts_sim_node_gpus(j, k), gpus[k]);
    }
}

/* ---- placement ------------------------------------------------------------------------------- */

/* 12 GPUs on 8-GPU nodes: 8 + 4 on an empty cluster under both rows; with three 6-GPU jobs
 * on nodes 0-2 (2 GPUs free each), first-fit takes 2 + 2 + 2 + 6 in node order and best-fit
 * the node with the most free GPUs (8) and then the fewest that hold the rest (2, 2). The
 * ranks sit on the lowest free GPUs of each node and the ring's flows leave every segment on
 * the NIC nearest its GPUs (GPU g of 8 on NIC g / 2). */
START_TEST(twelve_gpus_on_eight_gpu_nodes)
{
    for (int bf = 0; bf < 2; bf++) {
        char scen[256], jobs[2048];
        snprintf(scen, sizeof scen,
                 "{\"format\":\"tsched.scenario.v1\",\"placement\":\"%s\",\"shared_nodes\":true}",
                 bf ? "best-fit" : "first-fit");
        /* empty cluster */
        tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
        job_json(jobs, sizeof jobs, "big", 0, 12, 100, 2, 10);
        tsched_sim *s = make(t, scen, jobs);
        ck_assert_ok(tsched_sim_run_until(s, 1));
        assert_place(s, 0, 2, (uint32_t[]){0, 1}, (uint32_t[]){8, 4});
        for (uint32_t r = 0; r < 12; r++)
            ck_assert_uint_eq(s->jobs[0].gpu_ids[r], r < 8 ? r : 8 + (r - 8));
        /* two segments with NICs {0..3} and {0, 1}: 2 channels, both directions */
        ck_assert_uint_eq(s->jobs[0].nrflows, 4);
        run_done(s);
        tsched_sim_free(s);
        tsched_topology_free(t);

        /* fragmented */
        t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
        int off = 0;
        for (int k = 0; k < 3; k++) {
            char nm[8];
            snprintf(nm, sizeof nm, "six%d", k);
            off += job_json(jobs + off, sizeof jobs - (size_t)off, nm, 0, 6, 1000, 1, 0);
            jobs[off++] = ',';
        }
        job_json(jobs + off, sizeof jobs - (size_t)off, "big", 0, 12, 100, 1, 10);
        s = make(t, scen, jobs);
        ck_assert_ok(tsched_sim_run_until(s, 1));
        for (uint32_t k = 0; k < 3; k++)
            assert_place(s, k, 1, (uint32_t[]){k}, (uint32_t[]){6});
        const ts_sim_job *j = &s->jobs[3];
        if (!bf) {
            assert_place(s, 3, 4, (uint32_t[]){0, 1, 2, 3}, (uint32_t[]){2, 2, 2, 6});
        } else {
            assert_place(s, 3, 3, (uint32_t[]){3, 0, 1}, (uint32_t[]){8, 2, 2});
            /* node 3's GPUs 0-7, then GPUs 6 and 7 of nodes 0 and 1 (NIC 3): one channel */
            ck_assert_uint_eq(j->gpu_ids[8], s->gpu_base[0] + 6);
            ck_assert_uint_eq(j->gpu_ids[11], s->gpu_base[1] + 7);
            ck_assert_uint_eq(j->nrflows, 3);
            ck_assert_uint_eq(j->rflows[0].src, 3);
            ck_assert_uint_eq(j->rflows[0].src_nic, 0);
            ck_assert_uint_eq(j->rflows[0].dst, 0);
            ck_assert_uint_eq(j->rflows[0].dst_nic, 3);
            ck_assert_uint_eq(j->rflows[1].src_nic, 3);
            ck_assert_uint_eq(j->rflows[1].dst_nic, 3);
        }
        run_done(s);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* A split job's ring volume from its model: 12 GPUs of a BERT (tp defaults to gcd(12, 8) =
 * 4) on 8 + 4 GPUs of nodes with 4 NICs: 2 channels (the 4-GPU segment's NICs 0, 1), each
 * flow 2 (S - 1) / S x tp x v_d / C elements of 4 bytes with S = 2 segments, C = 2. */
START_TEST(split_job_model_volume)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
    const char *jobs = "{\"name\":\"bert\",\"arrival_s\":0,\"gpus\":12,\"compute_ms\":100,\"iterations\":2,"
                       "\"model\":{\"hidden\":1024,\"layers\":24,\"vocab\":30522,\"seq\":512,\"global_batch\":192,"
                       "\"micro_batch\":8},\"phases\":[{\"pattern\":\"dp-ring\"}]}";
    tsched_sim *s = make(t, "{\"format\":\"tsched.scenario.v1\",\"placement\":\"best-fit\",\"shared_nodes\":true}",
                         jobs);
    ck_assert_ok(tsched_sim_run_until(s, 1));
    const ts_sim_job *j = &s->jobs[0];
    ck_assert_uint_eq(j->tp, 4);
    assert_place(s, 0, 2, (uint32_t[]){0, 1}, (uint32_t[]){8, 4});
    tsched_job *tj;
    ck_assert_ok(tsched_job_new(&tj, "bert", 12, 4, 1));
    ck_assert_ok(tsched_job_set_model(tj, &j->model));
    tsched_volumes v = {.size = sizeof v};
    ck_assert_ok(tsched_job_volumes(&v, tj));
    tsched_job_free(tj);
    double want = v.dp * 4 / 2 * 2.0 * 1 / 2 * 32 / 1e9;
    ck_assert_uint_eq(j->nrflows, 4);
    for (uint32_t i = 0; i < j->nrflows; i++)
        ck_assert_double_eq_tol(j->rflows[i].gbits, want, 1e-12 * want);
    run_done(s);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- shared NICs and PCIe ---------------------------------------------------------------- */

/* Two 12-GPU jobs on 8-GPU nodes of one 100 Gbit/s NIC: A on 8 + 4 (nodes 0, 1), B on 4 + 8
 * (nodes 1, 2). Node 1's NIC carries one flow of each job each way: max-min gives every flow
 * 50 Gbit/s, so 10 Gbit per flow takes 0.2 s and each iteration 0.1 s + 0.2 s (alone: 0.1 s
 * of communication). */
START_TEST(two_jobs_share_a_nic)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 1, 100, 1, 0);
    char jobs[1024];
    int off = job_json(jobs, sizeof jobs, "a", 0, 12, 100, 3, 10);
    jobs[off++] = ',';
    job_json(jobs + off, sizeof jobs - (size_t)off, "b", 0, 12, 100, 3, 10);
    tsched_sim *s = make(t, "{\"format\":\"tsched.scenario.v1\",\"placement\":\"first-fit\",\"shared_nodes\":true}",
                         jobs);
    ck_assert_ok(tsched_sim_run_until(s, 100 * MS + 1));
    assert_place(s, 0, 2, (uint32_t[]){0, 1}, (uint32_t[]){8, 4});
    assert_place(s, 1, 2, (uint32_t[]){1, 2}, (uint32_t[]){4, 8});
    uint32_t active = 0;
    for (uint32_t f = 0; f < s->nflow; f++)
        if (s->flow[f].active) {
            ck_assert_double_eq_tol(s->flow[f].rate, 50.0, 1e-9);
            active++;
        }
    ck_assert_uint_eq(active, 4);
    run_done(s);
    tsched_sim_result *r;
    ck_assert_ok(tsched_sim_result_new(&r, s));
    for (uint32_t i = 0; i < 2; i++) {
        tsched_sim_job_stats js = tu_sim_job(r, i);
        ck_assert_double_eq_tol(js.iter_mean_s, 0.3, 1e-12);
        ck_assert_double_eq_tol(js.iter_alone_s, 0.2, 1e-12);
    }
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* CRUX Fig. 21's shape: a 16-GPU BERT-like job on 4 + 4 + 4 + 4 GPUs of four hosts, each host
 * also running a 4-GPU ResNet-like job, with no NVLink (nvlink_gbps 0) so the small jobs'
 * rings cross the PCIe switches. Hosts of 8 GPUs and 2 NICs (4 GPUs per PCIe switch): the
 * ResNets hold GPUs 2-5 (both switches), BERT GPUs 0, 1, 6, 7 (both switches, two
 * channels). Every PCIe link carries two ResNet flows and one BERT flow: max-min gives each
 * 256 / 3 Gbit/s (the 200 Gbit/s NICs carry one flow each and do not bind); alone, BERT's
 * flows get 200 (the NIC) and a ResNet's 128 (two flows per PCIe link). */
START_TEST(pcie_contention_like_crux_fig21)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 2, 200, 4, 0);
    char jobs[8192];
    int off = 0;
    for (int h = 0; h < 4; h++) {
        char nm[16];
        snprintf(nm, sizeof nm, "x%d", h);
        off += job_json(jobs + off, sizeof jobs - (size_t)off, nm, 0, 2, 1, 1, 0);
        jobs[off++] = ',';
        snprintf(nm, sizeof nm, "resnet%d", h);
        off += job_json(jobs + off, sizeof jobs - (size_t)off, nm, 0, 4, 2, 1, 30);
        jobs[off++] = ',';
        snprintf(nm, sizeof nm, "y%d", h);
        off += job_json(jobs + off, sizeof jobs - (size_t)off, nm, 0, 2, 1, 1, 0);
        jobs[off++] = ',';
    }
    job_json(jobs + off, sizeof jobs - (size_t)off, "bert", 0, 16, 1, 1, 30);
    tsched_sim *s = make(t,
                         "{\"format\":\"tsched.scenario.v1\",\"placement\":\"first-fit\",\"shared_nodes\":true,"
                         "\"host_links\":{\"nvlink_gbps\":0}}",
                         jobs);
    /* the 2-GPU jobs end at 1 ms, BERT starts then and communicates from 2 ms, as the ResNets */
    ck_assert_ok(tsched_sim_run_until(s, 2 * MS + 1));
    ck_assert_uint_eq(s->pcie_gbps, 256);
    for (uint32_t h = 0; h < 4; h++) {
        const ts_sim_job *rn = &s->jobs[3 * h + 1];
        assert_place(s, 3 * h + 1, 1, (uint32_t[]){h}, (uint32_t[]){4});
        ck_assert_uint_eq(rn->gpu_ids[0], s->gpu_base[h] + 2);
    }
    assert_place(s, 12, 4, (uint32_t[]){0, 1, 2, 3}, (uint32_t[]){4, 4, 4, 4});
    uint32_t active = 0;
    for (uint32_t f = 0; f < s->nflow; f++)
        if (s->flow[f].active) {
            ck_assert_msg(fabs(s->flow[f].rate - 256.0 / 3) < 1e-9, "flow %u of job %u: %.17g", f, s->flow[f].job,
                          s->flow[f].rate);
            active++;
        }
    ck_assert_uint_eq(active, 4 * 4 + 8); /* four rings of 4 GPUs, BERT's 4 segments x 2 channels */
    run_done(s);
    tsched_sim_result *r;
    ck_assert_ok(tsched_sim_result_new(&r, s));
    tsched_sim_job_stats b = tu_sim_job(r, 12), rn = tu_sim_job(r, 1);
    ck_assert_double_eq_tol(b.iter_alone_s, 1e-3 + 30.0 / 200, 1e-9);
    ck_assert_double_eq_tol(rn.iter_alone_s, 2e-3 + 30.0 / 128, 1e-9);
    ck_assert_double_eq_tol(b.iter_mean_s, 1e-3 + 30.0 / (256.0 / 3), 1e-8);
    tsched_sim_result_free(r);
    tsched_sim_free(s);
    tsched_topology_free(t);
}
END_TEST

/* ---- a single-node job on its host links ---------------------------------------------------- */

/* An 8-GPU job on one 8-GPU node, ring of 48 Gbit per GPU: free without host links; on
 * NVLink (4800 Gbit/s per GPU) 48 / 4800 = 10 ms per iteration; without NVLink over PCIe
 * (256 Gbit/s per switch link, 4 NICs so 2 GPUs per switch, 2 ring flows per link) 48 / 128.
 * A 4-GPU job the same on PCIe (GPUs 0-3: 2 flows on each of 2 switches' links). */
START_TEST(single_node_ring_on_host_links)
{
    static const struct {
        const char *host;
        uint32_t gpus;
        double comm_s;
    } cases[] = {
        {NULL, 8, 0},
        {"{}", 8, 48.0 / 4800},
        {"{\"nvlink_gbps\":2400}", 8, 48.0 / 2400},
        {"{\"nvlink_gbps\":0}", 8, 48.0 / 128},
        {"{\"nvlink_gbps\":0,\"pcie_gbps\":100}", 8, 48.0 / 50},
        {"{\"nvlink_gbps\":0}", 4, 48.0 / 128},
        {"null", 4, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
        char scen[256], jobs[512];
        snprintf(scen, sizeof scen, "{\"format\":\"tsched.scenario.v1\"%s%s}", cases[c].host ? ",\"host_links\":" : "",
                 cases[c].host ? cases[c].host : "");
        job_json(jobs, sizeof jobs, "one", 0, cases[c].gpus, 100, 3, 48);
        tsched_sim *s = make(t, scen, jobs);
        run_done(s);
        tsched_sim_result *r;
        ck_assert_ok(tsched_sim_result_new(&r, s));
        tsched_sim_job_stats js = tu_sim_job(r, 0);
        ck_assert_msg(fabs(js.iter_mean_s - (0.1 + cases[c].comm_s)) < 1e-9, "case %zu: %.17g", c, js.iter_mean_s);
        ck_assert_double_eq_tol(js.iter_alone_s, 0.1 + cases[c].comm_s, 1e-9);
        ck_assert_double_eq_tol(js.gbits_delivered, js.gbits_demanded, 1e-9 * (js.gbits_demanded + 1));
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
}
END_TEST

/* ---- bad input --------------------------------------------------------------------------------- */

static void expect_error(const char *scenario, uint32_t gpus, const char *placement, const char *field)
{
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
    tsched_sim *s = tu_sim_new(t);
    char trace[512];
    int off = snprintf(trace, sizeof trace, "{\"format\":\"tsched.trace.v1\",\"jobs\":[");
    off += job_json(trace + off, sizeof trace - (size_t)off, "j", 0, gpus, 10, 1, 1);
    snprintf(trace + off, sizeof trace - (size_t)off, "]}");
    tsched_status st = tsched_sim_load_trace_string(s, trace, strlen(trace));
    if (st == TSCHED_OK && placement)
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_PLACEMENT, placement));
    if (st == TSCHED_OK)
        st = tsched_sim_load_scenario_string(s, scenario, strlen(scenario));
    if (st == TSCHED_OK)
        st = tsched_sim_run_until(s, INT64_MAX);
    ck_assert_msg(st != TSCHED_OK, "%s: accepted", scenario);
    ck_assert_msg(strstr(tsched_last_error(), field) != NULL, "%s: \"%s\" does not name %s", scenario,
                  tsched_last_error(), field);
    tsched_sim_free(s);
    tsched_topology_free(t);
}

START_TEST(bad_input_names_the_field)
{
    expect_error("{\"format\":\"tsched.scenario.v1\",\"host_links\":{\"pcie_gbps\":-1}}", 8, NULL,
                 "host_links.pcie_gbps");
    expect_error("{\"format\":\"tsched.scenario.v1\",\"host_links\":{\"pcie_gbps\":0}}", 8, NULL,
                 "host_links.pcie_gbps");
    expect_error("{\"format\":\"tsched.scenario.v1\",\"host_links\":{\"nvlink_gbps\":-5}}", 8, NULL,
                 "host_links.nvlink_gbps");
    expect_error("{\"format\":\"tsched.scenario.v1\",\"host_links\":{\"nvlink\":5}}", 8, NULL, "host_links.nvlink");
    expect_error("{\"format\":\"tsched.scenario.v1\",\"host_links\":5}", 8, NULL, "host_links");
    expect_error("{\"format\":\"tsched.scenario.v1\",\"shared_nodes\":1}", 8, NULL, "shared_nodes");
    /* a placement that only knows whole nodes */
    expect_error("{\"format\":\"tsched.scenario.v1\",\"shared_nodes\":true}", 12, "random-fit", "shared_nodes");
    /* more GPUs than the cluster: refused when added, by the trace reader or the C API */
    expect_error("{\"format\":\"tsched.scenario.v1\",\"shared_nodes\":true}", 33, NULL, "jobs[0].gpus");
    tsched_topology *t = tu_gen_leaf_spine(2, 1, 2, 8, 4, 100, 1, 0);
    tsched_sim *s = tu_sim_new(t);
    const char *sc = "{\"format\":\"tsched.scenario.v1\",\"shared_nodes\":true}";
    ck_assert_ok(tsched_sim_load_scenario_string(s, sc, strlen(sc)));
    tsched_sim_job in = {.size = sizeof in, .name = "huge", .gpus = 36, .compute_ns = MS, .iterations = 1};
    ck_assert_int_eq(tsched_sim_add_job(NULL, s, &in), TSCHED_E_RANGE);
    ck_assert_msg(strstr(tsched_last_error(), "jobs[0].gpus") != NULL, "%s", tsched_last_error());
    tsched_sim_free(s);
    tsched_topology_free(t);
    /* without shared nodes a 12-GPU job is refused as before */
    expect_error("{\"format\":\"tsched.scenario.v1\"}", 12, NULL, "jobs[0].gpus");
}
END_TEST

/* ---- seeded random runs ----------------------------------------------------------------------- */

/* Max-min rates by progressive filling over the active flows' links (all at level 0). */
static void brute_maxmin(const tsched_sim *s, double *rate)
{
    uint32_t nf = s->nflow;
    uint8_t *fixed = calloc(nf ? nf : 1, 1);
    double *used = calloc(s->nlinks, sizeof *used);
    uint32_t *cnt = calloc(s->nlinks, sizeof *cnt);
    ck_assert_ptr_nonnull(fixed);
    ck_assert_ptr_nonnull(used);
    ck_assert_ptr_nonnull(cnt);
    for (uint32_t f = 0; f < nf; f++)
        fixed[f] = !s->flow[f].active;
    for (;;) {
        memset(cnt, 0, s->nlinks * sizeof *cnt);
        for (uint32_t f = 0; f < nf; f++)
            for (uint32_t k = 0; !fixed[f] && k < s->flow[f].nlinks; k++)
                cnt[s->flow[f].links[k]]++;
        double best = INFINITY;
        uint32_t bl = UINT32_MAX;
        for (uint32_t l = 0; l < s->nlinks; l++)
            if (cnt[l]) {
                double share = (s->link[l].cap - used[l]) / cnt[l];
                if (share < best) {
                    best = share;
                    bl = l;
                }
            }
        if (bl == UINT32_MAX)
            break;
        for (uint32_t f = 0; f < nf; f++) {
            if (fixed[f])
                continue;
            int on = 0;
            for (uint32_t k = 0; k < s->flow[f].nlinks; k++)
                on |= s->flow[f].links[k] == bl;
            if (!on)
                continue;
            fixed[f] = 1;
            rate[f] = best < 0 ? 0 : best;
            for (uint32_t k = 0; k < s->flow[f].nlinks; k++)
                used[s->flow[f].links[k]] += rate[f];
        }
    }
    free(fixed);
    free(used);
    free(cnt);
}

/* The GPU table and the topology agree: per node the running jobs' GPUs add up to the used
 * ones (never more than the node's), every running job holds exactly its GPUs, distinct, on
 * its nodes in rank order, and nobody else's. */
static void check_gpus(const tsched_sim *s)
{
    const tsched_topology *t = s->t;
    uint32_t nn = tsched_topology_num_nodes(t);
    uint32_t *sum = calloc(nn, sizeof *sum);
    ck_assert_ptr_nonnull(sum);
    for (uint32_t ji = 0; ji < s->njobs; ji++) {
        const ts_sim_job *j = &s->jobs[ji];
        if (j->state != TS_JOB_RUNNING)
            continue;
        uint32_t r = 0;
        for (uint32_t k = 0; k < j->nnodes; k++) {
            uint32_t n = j->nodes[k];
            sum[n] += ts_sim_node_gpus(j, k);
            for (uint32_t q = 0; q < ts_sim_node_gpus(j, k); q++, r++) {
                uint32_t g = j->gpu_ids[r];
                ck_assert_msg(g >= s->gpu_base[n] && g < s->gpu_base[n + 1], "job %u rank %u off its node", ji, r);
                ck_assert_uint_eq(s->gpu_owner[g], ji);
            }
        }
        ck_assert_uint_eq(r, j->gpus);
    }
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t g = tsched_topology_node_gpus(t, n), owned = 0;
        ck_assert_uint_le(sum[n], g);
        ck_assert_uint_eq(sum[n], g - tsched_topology_node_free_gpus(t, n));
        for (uint32_t x = s->gpu_base[n]; x < s->gpu_base[n + 1]; x++)
            owned += s->gpu_owner[x] != TSCHED_NONE;
        ck_assert_uint_eq(owned, sum[n]);
    }
    free(sum);
}

START_TEST(random_partial_placements)
{
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 20};
    ts_rng rng;
    ts_rng_seed(&rng, 23);
    uint32_t partial = 0, inner = 0, restarts = 0; /* seen: jobs on part of a node with others, flows inside a node */
    for (unsigned rep = 0; rep < tu_n(24); rep++) {
        char jobs[8192], scen[256];
        int off = 0;
        uint32_t njobs = 4 + (uint32_t)ts_rng_below(&rng, 8);
        for (uint32_t k = 0; k < njobs; k++) {
            char nm[16];
            snprintf(nm, sizeof nm, "j%u", k);
            uint32_t gpus = sizes[ts_rng_below(&rng, sizeof sizes / sizeof sizes[0])];
            double arrival = ts_rng_double(&rng) * 0.5;
            double compute = 1 + 50 * ts_rng_double(&rng);
            unsigned iters = 1 + (unsigned)ts_rng_below(&rng, 5);
            double gbits = 0.5 + 10 * ts_rng_double(&rng);
            off += job_json(jobs + off, sizeof jobs - (size_t)off, nm, arrival, gpus, compute, iters, gbits);
            if (k + 1 < njobs)
                jobs[off++] = ',';
        }
        int host = (int)ts_rng_below(&rng, 3);
        tsched_topology *t = tu_gen_leaf_spine(2, 1, 3, 8, 4, 50, 1, 2);
        snprintf(scen, sizeof scen,
                 "{\"format\":\"tsched.scenario.v1\",\"placement\":\"%s\",\"shared_nodes\":true%s}",
                 rep % 2 ? "best-fit" : "first-fit",
                 host == 0   ? ""
                 : host == 1 ? ",\"host_links\":{\"pcie_gbps\":60}"
                             : ",\"host_links\":{\"nvlink_gbps\":0,\"pcie_gbps\":80}");
        tsched_sim *s = make(t, scen, jobs);
        double *rate = NULL;
        int failed = rep % 3 != 0; /* every third run a node of a running job goes down and comes back */
        for (int64_t now = 0;; now += 7 * MS) {
            tsched_status st = tsched_sim_run_until(s, now);
            ck_assert_msg(st == TSCHED_OK, "rep %u: %s", rep, tsched_last_error());
            check_gpus(s);
            for (uint32_t ji = 0; !failed && ji < s->njobs; ji++)
                if (s->jobs[ji].state == TS_JOB_RUNNING) {
                    const char *nm = tsched_topology_node_name(t, s->jobs[ji].nodes[s->jobs[ji].nnodes - 1]);
                    ck_assert_ok(tsched_sim_add_failure(s, now + 1, nm, 0));
                    ck_assert_ok(tsched_sim_add_failure(s, now + 150 * MS, nm, 1));
                    failed = 1;
                }
            for (uint32_t ji = 0; ji < s->njobs; ji++) {
                const ts_sim_job *j = &s->jobs[ji];
                partial += j->state == TS_JOB_RUNNING && j->node_gpus && j->nnodes > 1;
                for (uint32_t q = 0; j->state == TS_JOB_RUNNING && q < j->nrflows; q++)
                    inner += ts_sim_rflow_net(&j->rflows[q]) == 0;
            }
            rate = realloc(rate, (s->nflow ? s->nflow : 1) * sizeof *rate);
            ck_assert_ptr_nonnull(rate);
            brute_maxmin(s, rate);
            for (uint32_t f = 0; f < s->nflow; f++)
                if (s->flow[f].active)
                    ck_assert_msg(fabs(s->flow[f].rate - rate[f]) <= 1e-9 * (rate[f] + 1),
                                  "rep %u flow %u: %.17g, brute force %.17g", rep, f, s->flow[f].rate, rate[f]);
            if (s->done == s->njobs)
                break;
            ck_assert_msg(now < 600000 * MS, "rep %u does not finish", rep);
        }
        free(rate);
        for (uint32_t i = 0; i < s->njobs; i++)
            restarts += s->jobs[i].restarts;
        tsched_sim_result *r;
        ck_assert_ok(tsched_sim_result_new(&r, s));
        for (uint32_t i = 0; i < s->njobs; i++) {
            tsched_sim_job_stats js = tu_sim_job(r, i);
            ck_assert(fabs(js.gbits_delivered - js.gbits_demanded) <= 1e-9 * js.gbits_demanded);
        }
        tsched_sim_result_free(r);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(partial, 10);
    ck_assert_uint_gt(restarts, 0);
    ck_assert_uint_gt(inner, 10);
}
END_TEST

/* Multi-node whole-node jobs (multiples of the node size) on a cluster they never fragment
 * give the same results with shared_nodes on, and with host links whose PCIe (256 Gbit/s) is faster
 * than the NICs (100): byte-identical result documents on seeded random mixes. */
START_TEST(whole_nodes_unchanged)
{
    static const char *const patterns[] = {"dp-ring", "dp-hd", "alltoall"};
    ts_rng rng;
    ts_rng_seed(&rng, 2323);
    for (unsigned rep = 0; rep < tu_n(8); rep++) {
        char trace[8192];
        int off = snprintf(trace, sizeof trace, "{\"format\":\"tsched.trace.v1\",\"jobs\":[");
        uint32_t njobs = 3 + (uint32_t)ts_rng_below(&rng, 5);
        for (uint32_t k = 0; k < njobs; k++) {
            uint32_t gpus = 16u << ts_rng_below(&rng, 2); /* multi-node: one node's ring would take time on NVLink */
            const char *pat = patterns[ts_rng_below(&rng, 3)];
            double arrival = ts_rng_double(&rng) * 0.3;
            unsigned compute = 1 + (unsigned)ts_rng_below(&rng, 40);
            unsigned iters = 1 + (unsigned)ts_rng_below(&rng, 4);
            double gbits = 0.5 + 10 * ts_rng_double(&rng);
            off += snprintf(trace + off, sizeof trace - (size_t)off,
                            "%s{\"name\":\"j%u\",\"arrival_s\":%.4f,\"gpus\":%u,\"compute_ms\":%u,\"iterations\":%u,"
                            "\"phases\":[{\"pattern\":\"%s\",\"gbits\":%.4f}]}",
                            k ? "," : "", k, arrival, gpus, compute, iters, pat, gbits);
        }
        snprintf(trace + off, sizeof trace - (size_t)off, "]}");
        static const char *const extra[] = {"", ",\"shared_nodes\":true", ",\"host_links\":{}",
                                            ",\"shared_nodes\":true,\"host_links\":{\"nvlink_gbps\":0}"};
        char *first = NULL;
        for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++) {
            tsched_topology *t = tu_gen_leaf_spine(2, 2, 4, 8, 2, 100, 1, 2);
            tsched_sim *s = tu_sim_new(t);
            ck_assert_ok(tsched_sim_load_trace_string(s, trace, strlen(trace)));
            char scen[256];
            snprintf(scen, sizeof scen,
                     "{\"format\":\"tsched.scenario.v1\",\"placement\":\"%s\",\"routing\":\"ecmp\"%s}",
                     rep % 2 ? "best-fit" : "first-fit", extra[e]);
            ck_assert_ok(tsched_sim_load_scenario_string(s, scen, strlen(scen)));
            run_done(s);
            tsched_sim_result *r;
            ck_assert_ok(tsched_sim_result_new(&r, s));
            char *doc = NULL;
            ck_assert_ok(tsched_sim_result_to_json(&doc, r, TSCHED_SIM_JSON_NO_TIMING | TSCHED_SIM_JSON_LINKS));
            if (!first)
                first = doc;
            else {
                ck_assert_msg(strcmp(first, doc) == 0, "rep %u, %s: results differ", rep, extra[e]);
                tsched_free(doc);
            }
            tsched_sim_result_free(r);
            tsched_sim_free(s);
            tsched_topology_free(t);
        }
        tsched_free(first);
    }
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim-nodes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, twelve_gpus_on_eight_gpu_nodes);
    tcase_add_test(tc, split_job_model_volume);
    tcase_add_test(tc, two_jobs_share_a_nic);
    tcase_add_test(tc, pcie_contention_like_crux_fig21);
    tcase_add_test(tc, single_node_ring_on_host_links);
    tcase_add_test(tc, bad_input_names_the_field);
    tcase_add_test(tc, random_partial_placements);
    tcase_add_test(tc, whole_nodes_unchanged);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
