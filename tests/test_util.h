/* Shared helpers for the Check suites. */
#ifndef TSCHED_TEST_UTIL_H
#define TSCHED_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topo-sched/topo-sched.h"
/* Header-only (static inline), so suites built against the public library alone use it too. */
#include "../src/common/rng.h"

/* Assert a call returns `want`; on mismatch print the library's message. */
#define ck_assert_status(expr, want)                                                                               \
    do {                                                                                                           \
        tsched_status ck_st_ = (expr);                                                                             \
        ck_assert_msg(ck_st_ == (want), "%s returned %s, expected %s: %s", #expr, tsched_status_str(ck_st_),      \
                      tsched_status_str(want), tsched_last_error());                                               \
    } while (0)

#define ck_assert_ok(expr) ck_assert_status(expr, TSCHED_OK)

/* Assert the last error message contains `needle`. */
#define ck_assert_errmsg_has(needle)                                                                               \
    ck_assert_msg(strstr(tsched_last_error(), (needle)) != NULL, "error message \"%s\" lacks \"%s\"",             \
                  tsched_last_error(), (needle))

/* Index of a named element; the test fails if there is none. */
static inline uint32_t tu_sw(const tsched_topology *t, const char *name)
{
    uint32_t s = tsched_topology_find_switch(t, name);
    ck_assert_msg(s != TSCHED_NONE, "no switch %s", name);
    return s;
}

static inline uint32_t tu_node(const tsched_topology *t, const char *name)
{
    uint32_t n = tsched_topology_find_node(t, name);
    ck_assert_msg(n != TSCHED_NONE, "no node %s", name);
    return n;
}

static inline uint32_t tu_trunk(const tsched_topology *t, const char *a, const char *b)
{
    uint32_t r = tsched_topology_find_trunk(t, tu_sw(t, a), tu_sw(t, b));
    ck_assert_msg(r != TSCHED_NONE, "no trunk %s~%s", a, b);
    return r;
}

/* Heavy random loops run a third of their cases under the sanitizer and valgrind setups
 * (meson.build sets TSCHED_SLOW_BUILD there), and their coverage thresholds a fifth, so the
 * suite stays inside CI's time; the plain build runs them all. */
static inline int tu_slow(void) { return getenv("TSCHED_SLOW_BUILD") != NULL; }
static inline unsigned tu_n(unsigned n) { return tu_slow() ? (n + 2) / 3 : n; }
static inline unsigned tu_min(unsigned n) { return tu_slow() ? n / 5 : n; }
/* valgrind costs 20-50 times the plain build, ASan 2-4 times: the valgrind setup also sets
 * TSCHED_VALGRIND, and the heaviest loops (tu_nv) run a ninth of their cases there, still a
 * third under ASan and all of them in the plain build. */
/* Milliseconds since an arbitrary origin: `*wall` on the monotonic clock, `*cpu` of this
 * process (all threads). The time-limit tests use both: a limit that is not honoured burns CPU
 * past it, while a call that only waited for a machine shared with other jobs does not, so
 * such a test fails only when both exceed the bound. */
static inline void tu_clock_ms(double *wall, double *cpu)
{
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    *wall = (double)w.tv_sec * 1e3 + (double)w.tv_nsec * 1e-6;
    *cpu = (double)c.tv_sec * 1e3 + (double)c.tv_nsec * 1e-6;
}

static inline int tu_valgrind(void) { return getenv("TSCHED_VALGRIND") != NULL; }
static inline unsigned tu_nv(unsigned n) { return tu_valgrind() ? (n + 8) / 9 : tu_n(n); }

/* ---- the tests' one seeded generator --------------------------------------------------- */

/* splitmix64 stepped by the library's own ts_splitmix64 (common/rng.h, which also seeds the
 * library's xoshiro256** ts_rng), so a case is the same on every machine and no suite carries
 * a private generator. The state is the seed: `tu_rng r = {seed};` or tu_rng_new(seed). */
typedef struct tu_rng {
    uint64_t s;
} tu_rng;

static inline tu_rng tu_rng_new(uint64_t seed)
{
    tu_rng r = {seed};
    return r;
}

static inline uint64_t tu_rng_next(tu_rng *r) { return ts_splitmix64(&r->s); }

/* In [0, n) by modulo (a bias below n / 2^64, nothing a test can see); n = 0 gives 0. */
static inline uint32_t tu_rng_below(tu_rng *r, uint32_t n) { return n ? (uint32_t)(tu_rng_next(r) % n) : 0; }

/* In [0, 1), 53 bits. */
static inline double tu_rng_unit(tu_rng *r) { return (double)(tu_rng_next(r) >> 11) * 0x1.0p-53; }

/* Fisher-Yates over n values. */
static inline void tu_rng_shuffle(tu_rng *r, uint32_t *a, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_rng_below(r, i), x = a[i - 1];
        a[i - 1] = a[j];
        a[j] = x;
    }
}

/* A job of `gpus` GPUs in tp x pp; the test fails if it is refused. */
static inline tsched_job *tu_job(const char *name, uint32_t gpus, uint32_t tp, uint32_t pp)
{
    tsched_job *j = NULL;
    ck_assert_ok(tsched_job_new(&j, name, gpus, tp, pp));
    ck_assert_ptr_nonnull(j);
    return j;
}

/* doc/workload.md's worked example of the App. C volumes: h 4, l 2, V 10, s 3, gb 16, mb 2
 * (v_d = 70 elements per GPU at tp 4, pp 2). */
static inline tsched_model tu_small_model(void)
{
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 4;
    m.layers = 2;
    m.vocab = 10;
    m.seq = 3;
    m.global_batch = 16;
    m.micro_batch = 2;
    return m;
}

/* ---- fabrics ---------------------------------------------------------------------------- */

/* Generated fabrics (tsched_topology_generate) with every knob; a zero keeps
 * tsched_topology_params_init's default (npl 16, gpus 8, nics 0 = one per GPU, nic 400 Gbit/s,
 * uplinks 0 = derived from `over`, over 1). Nodes "node<i>", leaves "leaf<i>", spines
 * "spine<i>", cores "core<i>". This one sets the knobs both kinds share on `g`. */
static inline tsched_topology *tu_generate(tsched_gen_params *g, uint32_t npl, uint32_t gpus, uint32_t nics,
                                           double nic_gbps, uint32_t uplinks, double over)
{
    g->nodes_per_leaf = npl ? npl : g->nodes_per_leaf;
    g->gpus_per_node = gpus ? gpus : g->gpus_per_node;
    g->nics_per_node = nics;
    g->nic_gbps = nic_gbps > 0 ? nic_gbps : g->nic_gbps;
    g->uplinks = uplinks;
    g->oversubscription = over > 0 ? over : g->oversubscription;
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_generate(&t, g));
    return t;
}

/* A leaf-spine of L leaves and S spines. */
static inline tsched_topology *tu_gen_leaf_spine(uint32_t L, uint32_t S, uint32_t npl, uint32_t gpus, uint32_t nics,
                                                 double nic_gbps, uint32_t uplinks, double over)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = L;
    g.spines = S;
    return tu_generate(&g, npl, gpus, nics, nic_gbps, uplinks, over);
}

/* A three-tier Clos: `pods` pods of `lpp` leaves and `spp` spines, `cores` cores (uplinks
 * derived). */
static inline tsched_topology *tu_gen_clos3(uint32_t pods, uint32_t lpp, uint32_t spp, uint32_t cores, uint32_t npl,
                                            uint32_t gpus, uint32_t nics, double nic_gbps, double over)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
    g.pods = pods;
    g.leaves_per_pod = lpp;
    g.spines_per_pod = spp;
    g.cores = cores;
    return tu_generate(&g, npl, gpus, nics, nic_gbps, 0, over);
}

/* A generated leaf-spine: L leaves, S spines, K members per pair, P nodes per leaf of T GPUs
 * and E NICs of 100 Gbit/s (nodes "node<i>", leaves "leaf<i>", spines "spine<i>"). */
static inline tsched_topology *tu_leaf_spine(uint32_t L, uint32_t S, uint32_t K, uint32_t P, uint32_t T, uint32_t E)
{
    return tu_gen_leaf_spine(L, S, P, T, E, 100, K, 0);
}

/* A hand-built two-tier fabric in the making, nodes still to add: leaf0 and leaf1 (tier 0),
 * spine0 (tier 1), each trunk `members` links of `gbps` Gbit/s; the caller adds nodes and
 * calls tsched_topology_build. */
static inline tsched_topology *tu_two_leaves_start(const char *name, double gbps, uint32_t members)
{
    tsched_topology *t;
    ck_assert_ok(tsched_topology_new(&t, name));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf1", 0, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
    ck_assert_ok(tsched_topology_add_link(t, "leaf0", "spine0", gbps, members));
    ck_assert_ok(tsched_topology_add_link(t, "leaf1", "spine0", gbps, members));
    return t;
}

/* Contention recount (doc/vclos.md §9): the flows of step `step` (modulo each job's steps) of
 * `pattern` over every running job of `v` at once, each route rebuilt from the job's ranks
 * alone (up = the source's uplink, down = the uplink of the rank on the destination's leaf
 * with the source's local index), checked against tsched_vclos_route(), counted per directed
 * link. Returns the largest count (0 when no flow crosses leaves); *flows (may be NULL) gets
 * the number of cross-leaf flows. Only for modes vclos and ocs-vclos (reserved routes). */
static inline uint32_t tu_vclos_max_share(const tsched_vclos *v, tsched_vclos_pattern pattern, uint32_t step,
                                          uint32_t *flows)
{
    uint32_t nl = tsched_vclos_num_links(v), best = 0, nflows = 0;
    uint32_t *cnt = calloc(2 * (size_t)nl + 1, sizeof *cnt);
    ck_assert_ptr_nonnull(cnt);
    for (uint32_t i = 0; i < tsched_vclos_num_jobs(v); i++) {
        const char *name = tsched_vclos_job_name(v, i);
        tsched_vclos_jobinfo info = {.size = sizeof info};
        ck_assert_ok(tsched_vclos_job_info(&info, v, name));
        uint32_t R = info.ranks, steps = tsched_vclos_pattern_steps(pattern, R);
        if (info.stage < 2 || !steps)
            continue;
        size_t n = 0;
        uint32_t *node = malloc(R * sizeof *node), *up = malloc(R * sizeof *up);
        ck_assert_ptr_nonnull(node);
        ck_assert_ptr_nonnull(up);
        ck_assert_ok(tsched_vclos_job_ranks(node, NULL, up, R, &n, v, name));
        ck_assert_uint_eq(n, R);
        uint32_t s = info.vspines, st = step % steps;
        for (uint32_t r = 0; r < R; r++) {
            uint32_t d = pattern == TSCHED_VCLOS_RING ? (r + 1) % R
                         : pattern == TSCHED_VCLOS_ALLTOALL ? (r + st + 1) % R : r ^ (1u << st);
            if (node[r] == node[d] || r / s == d / s)
                continue;
            uint32_t want_up = up[r], want_dn = up[(d / s) * s + r % s], got_up, got_dn;
            ck_assert_ok(tsched_vclos_route(&got_up, &got_dn, v, name, r, d));
            ck_assert_uint_eq(got_up, want_up);
            ck_assert_uint_eq(got_dn, want_dn);
            ck_assert_uint_lt(want_up, nl);
            ck_assert_uint_lt(want_dn, nl);
            if (++cnt[2 * (size_t)want_up] > best)
                best = cnt[2 * (size_t)want_up];
            if (++cnt[2 * (size_t)want_dn + 1] > best)
                best = cnt[2 * (size_t)want_dn + 1];
            nflows++;
        }
        free(node);
        free(up);
    }
    free(cnt);
    if (flows)
        *flows = nflows;
    return best;
}

/* The Crius Table 1 cluster (doc/cell.md §8) divided by `div`: 80/div nodes of 4 A100-40G,
 * 160/div of 2 A40, 160/div of 2 A10 (200 Gbit/s NICs), max(1, 20/div) of 16 V100 (the others
 * 100 Gbit/s), one NIC each, `per_leaf` nodes of one type per leaf ("leaf<i>"), two spines.
 * Nodes are named "a100-<i>", "a40-<i>", "a10-<i>", "v100-<i>", in that index order. div 1 is
 * the paper's 1,280 GPUs. */
static inline tsched_topology *tu_table1(uint32_t div, uint32_t per_leaf)
{
    static const struct {
        const char *prefix, *type;
        uint32_t count, gpus;
        double gbps;
    } kinds[] = {{"a100", "A100-40G", 80, 4, 100}, {"a40", "A40", 160, 2, 100},
                 {"a10", "A10", 160, 2, 200},      {"v100", "V100", 20, 16, 100}};
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_new(&t, "table1"));
    char name[64], leaf[32];
    uint32_t leaves = 0;
    for (unsigned k = 0; k < 4; k++) {
        uint32_t n = kinds[k].count / div ? kinds[k].count / div : 1;
        for (uint32_t i = 0; i < n; i++) {
            if (i % per_leaf == 0)
                leaves++;
            snprintf(name, sizeof name, "%s-%u", kinds[k].prefix, i);
            snprintf(leaf, sizeof leaf, "leaf%u", leaves - 1);
            ck_assert_ok(tsched_topology_add_node(NULL, t, name, leaf, kinds[k].gpus, 1, kinds[k].type, kinds[k].gbps));
        }
    }
    for (uint32_t l = 0; l < leaves; l++) {
        snprintf(leaf, sizeof leaf, "leaf%u", l);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, leaf, 0, NULL));
    }
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine0", 1, NULL));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine1", 1, NULL));
    for (uint32_t l = 0; l < leaves; l++) {
        snprintf(leaf, sizeof leaf, "leaf%u", l);
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine0", 400, 1));
        ck_assert_ok(tsched_topology_add_link(t, leaf, "spine1", 400, 1));
    }
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* Directory of tests/data, passed by meson as TSCHED_TEST_DATA. */
#ifndef TSCHED_TEST_DATA
#define TSCHED_TEST_DATA "tests/data"
#endif


/* leaf0 - spine0 - leaf1, each trunk `members` links of `gbps` Gbit/s; n0, n1 on leaf0, n2,
 * n3 on leaf1, `gpus` GPUs and one NIC of `nic` Gbit/s each. */
static inline tsched_topology *tu_two_leaves_members(double gbps, uint32_t members, double nic, uint32_t gpus)
{
    tsched_topology *t = tu_two_leaves_start("two-leaves", gbps, members);
    static const char *const n[4] = {"n0", "n1", "n2", "n3"}, *const l[4] = {"leaf0", "leaf0", "leaf1", "leaf1"};
    for (int i = 0; i < 4; i++)
        ck_assert_ok(tsched_topology_add_node(NULL, t, n[i], l[i], gpus, 1, NULL, nic));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

/* The same with one link per trunk of `trunk` Gbit/s. */
static inline tsched_topology *tu_two_leaves(double trunk, double nic, uint32_t gpus)
{
    return tu_two_leaves_members(trunk, 1, nic, gpus);
}

/* ---- simulator suites ---------------------------------------------------------------- */

/* A simulator over t that checks every rate recomputation against a full one. */
static inline tsched_sim *tu_sim_new(tsched_topology *t)
{
    tsched_sim *s;
    ck_assert_ok(tsched_sim_new(&s, t));
    ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, 1));
    return s;
}

/* Run to the end; the result snapshot is the caller's. */
static inline tsched_sim_result *tu_sim_run(tsched_sim *s)
{
    ck_assert_ok(tsched_sim_run_until(s, INT64_MAX));
    tsched_sim_result *r;
    ck_assert_ok(tsched_sim_result_new(&r, s));
    return r;
}

static inline tsched_sim_job_stats tu_sim_job(const tsched_sim_result *r, uint32_t i)
{
    tsched_sim_job_stats js = {.size = sizeof js};
    ck_assert_ok(tsched_sim_result_job(&js, r, i));
    return js;
}

static inline tsched_sim_summary tu_sim_summary(const tsched_sim_result *r)
{
    tsched_sim_summary sm = {.size = sizeof sm};
    ck_assert_ok(tsched_sim_result_summary(&sm, r));
    return sm;
}

#endif
