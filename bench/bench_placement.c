/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 *
 * Benchmark of the placement module through the public API only (Arnold, seed 000, §7.1):
 *
 *  1. Arnold's Table 1 settings: (i) 3 pods / 18 free nodes, DP12 TP4 PP2 (6 x 2);
 *     (ii) 5 pods / 438 free nodes, DP24 TP4 PP8 (12 x 8); (iii) 11 pods / 1,019 free
 *     nodes, DP46 TP8 PP8 (46 x 8). The free nodes are spread unevenly over the pods by a
 *     seeded scheme (see pod_shares()). Every algorithm, alpha in {0, 0.3, 0.5}.
 *  2. The real Lingjun production Clos (tests/data/lingjun-847.json) at 30, 60 and 90 %
 *     occupancy (seeded, uniform), with the same three jobs where they fit.
 *  3. Scale targets: setting (iii) proven optimal by mip in < 100 ms; a 1,200-node job
 *     (150 x 8) on a 2,048-node 16-pod clos3, all free and ~40 % busy, in < 1 s.
 *
 * Every placement is checked against the library's own evaluator (tsched_spread_eval) and
 * the fabric state (distinct, free nodes), and mip against every other algorithm on the
 * same instance; any disagreement is printed as a PROBLEM line and makes the exit status 1.
 * Not a test: meson registers it with benchmark(), and `meson test` never runs it. See
 * doc/PERFORMANCE.md for the method and the latest numbers.
 *
 * Usage: bench_placement [--quick] [--json] [--strict] [--seeds N] [--reps N] [--time-limit-ms N]
 *                        [--lingjun FILE]
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topo-sched/topo-sched.h"

#define BENCH_NAME "bench_placement"
#include "bench_util.h"

#ifndef BENCH_LINGJUN_DEFAULT
#define BENCH_LINGJUN_DEFAULT "tests/data/lingjun-847.json"
#endif

/* Targets (doc/PERFORMANCE.md). */
#define TARGET_III_MS 100.0
#define TARGET_XL_MS 1000.0

#define GPN 8          /* GPUs per node everywhere in this bench */
#define NALGO 6        /* tsched_place_algo values 0..5 */
#define MAX_SEEDS 32
#define EPS 1e-9

static const double ALPHAS[] = {0.0, 0.3, 0.5};
#define NALPHA (sizeof ALPHAS / sizeof ALPHAS[0])

/* Column order of the tables: mip, the four baselines, exhaustive. */
static const tsched_place_algo ALGOS[NALGO] = {TSCHED_PLACE_MIP,        TSCHED_PLACE_BEST_FIT,
                                               TSCHED_PLACE_RANDOM_FIT, TSCHED_PLACE_GPU_PACK,
                                               TSCHED_PLACE_TOPO_AWARE, TSCHED_PLACE_EXHAUSTIVE};

typedef struct options {
    int quick, json, strict;
    unsigned seeds; /* instances per setting / occupancy: seeds 1..N */
    unsigned reps;  /* repetitions of each timed mip call of the scale targets */
    uint32_t time_limit_ms; /* tsched_place_options.time_limit_ms; 0 = the library's default */
    const char *lingjun;
    int lingjun_given;
} options;

/* Arnold Table 1. */
typedef struct setting {
    const char *id, *label;
    uint32_t pods, free_nodes;
    uint32_t dp, tp, pp;
} setting;

static const setting SETTINGS[] = {
    {"i", "(i) 3 pods, 18 free", 3, 18, 12, 4, 2},
    {"ii", "(ii) 5 pods, 438 free", 5, 438, 24, 4, 8},
    {"iii", "(iii) 11 pods, 1019 free", 11, 1019, 46, 8, 8},
};
#define NSETTINGS (sizeof SETTINGS / sizeof SETTINGS[0])

/* ---- results ---------------------------------------------------------------------- */

enum { OUT_NONE = 0, OUT_OK, OUT_NOFIT, OUT_ERROR };

typedef struct outcome {
    int kind;
    int optimal;
    uint32_t dp, pp, pods;
    double weighted;
    double solve_ms, wall_ms, wall_max_ms; /* medians over the repetitions; max wall */
    unsigned reps;
    tsched_status err;
} outcome;

/* One (scenario, job, alpha): every algorithm on every seed. */
typedef struct group {
    const char *section; /* "arnold", "lingjun", "scale" */
    char scenario[48];   /* "i", "lingjun-30", "clos3-2048-busy40", ... */
    char label[48];
    char job[32];
    uint32_t rows, cols, free_min, free_max;
    double alpha;
    unsigned nseeds;
    uint64_t seeds[MAX_SEEDS];
    uint32_t free_nodes[MAX_SEEDS];
    int ran[NALGO];
    outcome res[NALGO][MAX_SEEDS];
} group;

static group *g_groups;
static size_t g_ngroups, g_capgroups;
static int g_problems;
static uint32_t g_time_limit_ms;

/* Repetitions only smooth out the noise of short calls: once a call takes longer than
 * this, it is not repeated (a call that runs into the solver's time limit would take
 * reps x 10 s for nothing). */
#define REPEAT_BELOW_MS 1000.0

/* Fisher-Yates over v[0..n). */
static void shuffle(uint32_t *v, uint32_t n, uint64_t *s)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rng_below(s, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static void problem(const char *fmt, const char *scenario, const char *job, double alpha, uint64_t seed,
                    const char *algo, const char *detail)
{
    g_problems++;
    printf("PROBLEM %s job %s alpha %.1f seed %llu %s: ", scenario, job, alpha, (unsigned long long)seed, algo);
    printf(fmt, detail);
    printf("\n");
}

static group *new_group(const char *section, const char *scenario, const char *label, const char *job,
                        uint32_t rows, uint32_t cols, double alpha)
{
    if (g_ngroups == g_capgroups) {
        g_capgroups = g_capgroups ? 2 * g_capgroups : 64;
        group *n = realloc(g_groups, g_capgroups * sizeof *n);
        if (!n) {
            fprintf(stderr, "bench_placement: out of memory\n");
            exit(1);
        }
        g_groups = n;
    }
    group *g = &g_groups[g_ngroups++];
    memset(g, 0, sizeof *g);
    g->section = section;
    snprintf(g->scenario, sizeof g->scenario, "%s", scenario);
    snprintf(g->label, sizeof g->label, "%s", label);
    snprintf(g->job, sizeof g->job, "%s", job);
    g->rows = rows;
    g->cols = cols;
    g->alpha = alpha;
    return g;
}

/* ---- fabrics and state -------------------------------------------------------------- */

static tsched_topology *make_clos3(const char *name, uint32_t pods, uint32_t leaves_per_pod, uint32_t nodes_per_leaf)
{
    tsched_gen_params p;
    tsched_topology_params_init(&p, TSCHED_GEN_CLOS3);
    p.name = name;
    p.pods = pods;
    p.leaves_per_pod = leaves_per_pod;
    p.spines_per_pod = 4;
    p.cores = 8;
    p.nodes_per_leaf = nodes_per_leaf;
    p.gpus_per_node = GPN;
    p.nic_gbps = 400;
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_generate(&t, &p);
    if (st != TSCHED_OK)
        die("tsched_topology_generate", st);
    return t;
}

static void set_all_free(tsched_topology *t)
{
    uint32_t n = tsched_topology_num_nodes(t);
    for (uint32_t i = 0; i < n; i++) {
        tsched_status st = tsched_topology_set_free_gpus(t, i, tsched_topology_node_gpus(t, i));
        if (st != TSCHED_OK)
            die("tsched_topology_set_free_gpus", st);
    }
}

static void set_busy(tsched_topology *t, uint32_t node)
{
    tsched_status st = tsched_topology_set_free_gpus(t, node, 0);
    if (st != TSCHED_OK)
        die("tsched_topology_set_free_gpus", st);
}

/* Mark `busy` nodes of the whole fabric busy, drawn uniformly without replacement. */
static void occupy_uniform(tsched_topology *t, uint32_t busy, uint64_t *rng)
{
    uint32_t n = tsched_topology_num_nodes(t);
    uint32_t *v = xcalloc(n, sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    shuffle(v, n, rng);
    set_all_free(t);
    for (uint32_t i = 0; i < busy && i < n; i++)
        set_busy(t, v[i]);
    free(v);
}

/*
 * The free-node scheme of the Table 1 settings: pod k gets weight w_k = 0.3 + U[0, 1)
 * (so w_k in [0.3, 1.3)), and the N free nodes are shared in proportion to the weights by
 * largest remainder (floors first, then one more node to the pods with the largest
 * fractional parts, ties to the lower index). The shares add up to N exactly, and no share
 * exceeds floor(N * 1.3 / (1.3 + 0.3 (P - 1))) + 1, which fixes the pod size.
 */
static void pod_shares(uint32_t *share, uint32_t pods, uint32_t total, uint64_t *rng)
{
    double *w = xcalloc(pods, sizeof *w), *frac = xcalloc(pods, sizeof *frac), sum = 0;
    for (uint32_t k = 0; k < pods; k++)
        sum += w[k] = 0.3 + rng_unit(rng);
    uint32_t given = 0;
    for (uint32_t k = 0; k < pods; k++) {
        double q = (double)total * w[k] / sum;
        share[k] = (uint32_t)floor(q);
        frac[k] = q - floor(q);
        given += share[k];
    }
    while (given < total) {
        uint32_t best = 0;
        for (uint32_t k = 1; k < pods; k++)
            if (frac[k] > frac[best])
                best = k;
        share[best]++;
        frac[best] = -1;
        given++;
    }
    free(w);
    free(frac);
}

static uint32_t pod_share_bound(uint32_t pods, uint32_t total)
{
    return (uint32_t)floor((double)total * 1.3 / (1.3 + 0.3 * (pods - 1))) + 1;
}

/* Nodes of pod `pod`, leaf by leaf, into `out` (room for every node); returns the count. */
static uint32_t pod_nodes(uint32_t *out, const tsched_topology *t, uint32_t pod)
{
    uint32_t nl, len = 0;
    const uint32_t *leaves = tsched_topology_pod_leaves(t, pod, &nl);
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t cnt;
        const uint32_t *ns = tsched_topology_leaf_nodes(t, leaves[l], &cnt);
        for (uint32_t j = 0; j < cnt; j++)
            out[len++] = ns[j];
    }
    return len;
}

/* State of one setting instance: pod k keeps share[k] free nodes chosen uniformly among its
 * nodes (so leaves are partly free too); every other node is busy. */
static void apply_shares(tsched_topology *t, const uint32_t *share, uint32_t pods, uint64_t *rng)
{
    uint32_t n = tsched_topology_num_nodes(t);
    uint32_t *v = xcalloc(n, sizeof *v);
    set_all_free(t);
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t len = pod_nodes(v, t, k);
        if (share[k] > len) {
            fprintf(stderr, "bench_placement: pod %u holds %u nodes, its share is %u\n", k, len, share[k]);
            exit(1);
        }
        shuffle(v, len, rng);
        for (uint32_t i = share[k]; i < len; i++)
            set_busy(t, v[i]);
    }
    free(v);
}

static uint32_t pods_with_free(const tsched_topology *t)
{
    uint32_t c = 0;
    for (uint32_t k = 0; k < tsched_topology_num_pods(t); k++)
        c += tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, k) > 0;
    return c;
}

/* ---- one placement -------------------------------------------------------------------- */

/* Check a placement against the fabric and the library's evaluator; returns 1 if sound. */
static int verify(const tsched_placement *p, const tsched_topology *t, const group *g, uint64_t seed,
                  tsched_place_algo algo)
{
    const char *an = tsched_place_algo_name(algo);
    char msg[256];
    uint32_t R = tsched_placement_rows(p), C = tsched_placement_cols(p);
    if (R != g->rows || C != g->cols) {
        snprintf(msg, sizeof msg, "%u x %u, expected %u x %u", R, C, g->rows, g->cols);
        problem("matrix %s", g->scenario, g->job, g->alpha, seed, an, msg);
        return 0;
    }
    if (tsched_placement_algo(p) != algo || fabs(tsched_placement_alpha(p) - g->alpha) > EPS) {
        problem("%s", g->scenario, g->job, g->alpha, seed, an, "algorithm or alpha of the result differs");
        return 0;
    }
    uint32_t *nodes = xcalloc((size_t)R * C, sizeof *nodes);
    int ok = 1;
    for (uint32_t r = 0; r < R && ok; r++)
        for (uint32_t c = 0; c < C && ok; c++) {
            uint32_t n = tsched_placement_node(p, r, c);
            nodes[(size_t)r * C + c] = n;
            if (n == TSCHED_NONE || !tsched_topology_node_is_free(t, n) || tsched_topology_node_gpus(t, n) != GPN) {
                snprintf(msg, sizeof msg, "cell (%u, %u) got node %u, not a free %u-GPU node", r, c, n, GPN);
                problem("%s", g->scenario, g->job, g->alpha, seed, an, msg);
                ok = 0;
            }
        }
    tsched_spread s = {.size = sizeof s};
    if (ok) {
        /* also rejects a node used twice */
        tsched_status st = tsched_spread_eval(&s, t, nodes, R, C, g->alpha, TSCHED_DOMAIN_POD);
        if (st != TSCHED_OK) {
            snprintf(msg, sizeof msg, "%s: %s", tsched_status_str(st), tsched_last_error());
            problem("tsched_spread_eval: %s", g->scenario, g->job, g->alpha, seed, an, msg);
            ok = 0;
        } else if (s.dp_max != tsched_placement_dp_max(p) || s.pp_max != tsched_placement_pp_max(p) ||
                   s.domains_used != tsched_placement_domains_used(p) ||
                   fabs(s.weighted - tsched_placement_weighted(p)) > 1e-9) {
            snprintf(msg, sizeof msg, "reported dp %u pp %u pods %u w %g, evaluated dp %u pp %u pods %u w %g",
                     tsched_placement_dp_max(p), tsched_placement_pp_max(p), tsched_placement_domains_used(p),
                     tsched_placement_weighted(p), s.dp_max, s.pp_max, s.domains_used, s.weighted);
            problem("metric: %s", g->scenario, g->job, g->alpha, seed, an, msg);
            ok = 0;
        }
    }
    if (ok && algo != TSCHED_PLACE_MIP && algo != TSCHED_PLACE_EXHAUSTIVE &&
        tsched_placement_status(p) != TSCHED_PLACE_FEASIBLE) {
        problem("%s", g->scenario, g->job, g->alpha, seed, an, "a heuristic claims a proven optimum");
        ok = 0;
    }
    free(nodes);
    return ok;
}

/* Run `algo` `reps` times on the current state; keep the medians of the times, the first
 * result, and check that the repetitions agree. */
static void run_one(outcome *out, const tsched_topology *t, const tsched_job *job, const group *g, uint64_t seed,
                    tsched_place_algo algo, unsigned reps)
{
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = algo;
    o.alpha = g->alpha;
    o.seed = seed;
    o.time_limit_ms = g_time_limit_ms;
    double wall[64], solve[64];
    if (reps > 64)
        reps = 64;
    memset(out, 0, sizeof *out);
    out->reps = reps;
    for (unsigned r = 0; r < reps; r++) {
        tsched_placement *p = NULL;
        double t0 = now_ms();
        tsched_status st = tsched_place(&p, t, job, &o);
        wall[r] = now_ms() - t0;
        if (st != TSCHED_OK) {
            out->kind = st == TSCHED_E_INFEASIBLE ? OUT_NOFIT : OUT_ERROR;
            out->err = st;
            if (out->kind == OUT_ERROR) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s: %s", tsched_status_str(st), tsched_last_error());
                problem("tsched_place failed: %s", g->scenario, g->job, g->alpha, seed, tsched_place_algo_name(algo),
                        msg);
            }
            out->wall_ms = out->wall_max_ms = wall[r];
            return;
        }
        solve[r] = tsched_placement_solve_ms(p);
        if (r == 0) {
            out->kind = verify(p, t, g, seed, algo) ? OUT_OK : OUT_ERROR;
            out->optimal = tsched_placement_status(p) == TSCHED_PLACE_OPTIMAL;
            out->dp = tsched_placement_dp_max(p);
            out->pp = tsched_placement_pp_max(p);
            out->pods = tsched_placement_domains_used(p);
            out->weighted = tsched_placement_weighted(p);
        } else if (fabs(tsched_placement_weighted(p) - out->weighted) > EPS ||
                   (tsched_placement_status(p) == TSCHED_PLACE_OPTIMAL) != out->optimal) {
            problem("%s", g->scenario, g->job, g->alpha, seed, tsched_place_algo_name(algo),
                    "a repetition gave a different answer (not deterministic)");
        }
        tsched_placement_free(p);
        if (wall[r] > REPEAT_BELOW_MS) {
            reps = r + 1;
            out->reps = reps;
        }
    }
    double mx = 0;
    for (unsigned r = 0; r < reps; r++)
        mx = wall[r] > mx ? wall[r] : mx;
    out->wall_max_ms = mx;
    out->wall_ms = median(wall, reps);
    out->solve_ms = median(solve, reps);
}

/* All algorithms on one instance (one seed of one group), then the cross-checks: mip is
 * never worse than another algorithm, and equals exhaustive when both claim optimality. */
static void run_instance(group *g, const tsched_topology *t, const tsched_job *job, uint64_t seed, int with_exh,
                         unsigned mip_reps)
{
    unsigned si = g->nseeds++;
    g->seeds[si] = seed;
    g->free_nodes[si] = tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0);
    for (unsigned a = 0; a < NALGO; a++) {
        if (ALGOS[a] == TSCHED_PLACE_EXHAUSTIVE && !with_exh)
            continue;
        g->ran[a] = 1;
        run_one(&g->res[a][si], t, job, g, seed, ALGOS[a], ALGOS[a] == TSCHED_PLACE_MIP ? mip_reps : 1);
    }
    const outcome *m = &g->res[0][si];
    if (m->kind == OUT_NOFIT) {
        if (g->free_nodes[si] >= (size_t)g->rows * g->cols) {
            char msg[96];
            snprintf(msg, sizeof msg, "%u free nodes for %u cells", g->free_nodes[si], g->rows * g->cols);
            problem("infeasible with %s", g->scenario, g->job, g->alpha, seed, "mip", msg);
        }
        return;
    }
    if (m->kind != OUT_OK)
        return;
    for (unsigned a = 1; a < NALGO; a++) {
        const outcome *b = &g->res[a][si];
        if (!g->ran[a] || b->kind != OUT_OK)
            continue;
        char msg[160];
        if (b->weighted < m->weighted - EPS) {
            snprintf(msg, sizeof msg, "%s %.3f < mip %.3f (mip status %s)", tsched_place_algo_name(ALGOS[a]),
                     b->weighted, m->weighted, m->optimal ? "optimal" : "feasible");
            problem("beaten: %s", g->scenario, g->job, g->alpha, seed, "mip", msg);
        }
        if (ALGOS[a] == TSCHED_PLACE_EXHAUSTIVE && m->optimal && b->optimal && fabs(b->weighted - m->weighted) > EPS) {
            snprintf(msg, sizeof msg, "mip %.3f, exhaustive %.3f, both optimal", m->weighted, b->weighted);
            problem("%s", g->scenario, g->job, g->alpha, seed, "mip", msg);
        }
    }
}

/* ---- the three parts ------------------------------------------------------------------- */

static uint64_t seed_of(unsigned i) { return (uint64_t)i + 1; }

static void job_name(char *buf, size_t n, uint32_t dp, uint32_t tp, uint32_t pp)
{
    snprintf(buf, n, "dp%u-tp%u-pp%u", dp, tp, pp);
}

static tsched_job *make_job(uint32_t dp, uint32_t tp, uint32_t pp, uint32_t *rows, uint32_t *cols)
{
    char name[32];
    job_name(name, sizeof name, dp, tp, pp);
    tsched_job *j = NULL;
    tsched_status st = tsched_job_new(&j, name, dp * tp * pp, tp, pp);
    if (st != TSCHED_OK)
        die("tsched_job_new", st);
    if ((st = tsched_job_matrix(rows, cols, j, GPN)) != TSCHED_OK)
        die("tsched_job_matrix", st);
    return j;
}

static void part_arnold(const options *o)
{
    for (size_t s = 0; s < NSETTINGS; s++) {
        const setting *S = &SETTINGS[s];
        uint32_t bound = pod_share_bound(S->pods, S->free_nodes), npl = 16;
        uint32_t lpp = (bound + npl - 1) / npl;
        lpp = lpp < 2 ? 2 : lpp;
        char name[48];
        snprintf(name, sizeof name, "arnold-%s", S->id);
        tsched_topology *t = make_clos3(name, S->pods, lpp, npl);
        uint32_t rows, cols;
        tsched_job *job = make_job(S->dp, S->tp, S->pp, &rows, &cols);
        char jn[32];
        job_name(jn, sizeof jn, S->dp, S->tp, S->pp);
        group *gs[NALPHA];
        for (size_t a = 0; a < NALPHA; a++)
            gs[a] = new_group("arnold", S->id, S->label, jn, rows, cols, ALPHAS[a]);
        uint32_t *share = xcalloc(S->pods, sizeof *share);
        printf("setting %-4s clos3 %u pods x %u leaves x %u nodes, %u free nodes; job %s -> %u x %u; shares per seed:\n",
               S->id, S->pods, lpp, npl, S->free_nodes, jn, rows, cols);
        for (unsigned i = 0; i < o->seeds; i++) {
            uint64_t seed = seed_of(i), rng = rng_stream(0xA000 + s, seed);
            pod_shares(share, S->pods, S->free_nodes, &rng);
            apply_shares(t, share, S->pods, &rng);
            printf("  seed %llu:", (unsigned long long)seed);
            for (uint32_t k = 0; k < S->pods; k++)
                printf(" %u", share[k]);
            printf("\n");
            if (tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0) != S->free_nodes) {
                fprintf(stderr, "bench_placement: setting %s seed %llu has %u free nodes, expected %u\n", S->id,
                        (unsigned long long)seed, tsched_topology_free_node_count(t, TSCHED_LEVEL_CLUSTER, 0),
                        S->free_nodes);
                exit(1);
            }
            int exh = rows * cols <= 16 && pods_with_free(t) <= 4;
            /* setting (iii) is the < 100 ms target: time mip over several runs */
            unsigned reps = strcmp(S->id, "iii") == 0 ? o->reps : 1;
            for (size_t a = 0; a < NALPHA; a++)
                run_instance(gs[a], t, job, seed, exh, reps);
        }
        free(share);
        tsched_job_free(job);
        tsched_topology_free(t);
    }
}

static const uint32_t OCCUPANCY[] = {30, 60, 90};
#define NOCC (sizeof OCCUPANCY / sizeof OCCUPANCY[0])

static int part_lingjun(const options *o)
{
    tsched_topology *t = NULL;
    tsched_status st = tsched_topology_load_file(&t, o->lingjun);
    if (st != TSCHED_OK) {
        printf("lingjun: cannot load %s (%s: %s)%s\n", o->lingjun, tsched_status_str(st), tsched_last_error(),
               o->lingjun_given ? "" : "; skipped (give the file with --lingjun FILE)");
        if (o->lingjun_given)
            exit(1);
        return 0;
    }
    uint32_t n = tsched_topology_num_nodes(t);
    printf("lingjun %s: %u nodes, %u pods (", tsched_topology_name(t), n, tsched_topology_num_pods(t));
    for (uint32_t k = 0; k < tsched_topology_num_pods(t); k++)
        printf("%s%s %u", k ? ", " : "", tsched_topology_pod_name(t, k),
               tsched_topology_free_node_count(t, TSCHED_LEVEL_POD, k));
    printf(" nodes)\n");
    tsched_job *jobs[NSETTINGS];
    uint32_t rows[NSETTINGS], cols[NSETTINGS];
    char jn[NSETTINGS][32];
    for (size_t s = 0; s < NSETTINGS; s++) {
        jobs[s] = make_job(SETTINGS[s].dp, SETTINGS[s].tp, SETTINGS[s].pp, &rows[s], &cols[s]);
        job_name(jn[s], sizeof jn[s], SETTINGS[s].dp, SETTINGS[s].tp, SETTINGS[s].pp);
    }
    for (size_t c = 0; c < NOCC; c++) {
        char scen[48], label[48];
        snprintf(scen, sizeof scen, "lingjun-%u", OCCUPANCY[c]);
        uint32_t busy = (uint32_t)lround((double)n * OCCUPANCY[c] / 100.0);
        snprintf(label, sizeof label, "Lingjun %u%% busy, %u free", OCCUPANCY[c], n - busy);
        group *gs[NSETTINGS][NALPHA];
        for (size_t s = 0; s < NSETTINGS; s++)
            for (size_t a = 0; a < NALPHA; a++)
                gs[s][a] = new_group("lingjun", scen, label, jn[s], rows[s], cols[s], ALPHAS[a]);
        for (unsigned i = 0; i < o->seeds; i++) {
            uint64_t seed = seed_of(i), rng = rng_stream(0xB000 + c, seed);
            occupy_uniform(t, busy, &rng);
            for (size_t s = 0; s < NSETTINGS; s++) {
                int exh = rows[s] * cols[s] <= 16 && pods_with_free(t) <= 4;
                for (size_t a = 0; a < NALPHA; a++)
                    run_instance(gs[s][a], t, jobs[s], seed, exh, 1);
            }
        }
    }
    for (size_t s = 0; s < NSETTINGS; s++)
        tsched_job_free(jobs[s]);
    tsched_topology_free(t);
    return 1;
}

/* 16 pods x 8 leaves x 16 nodes; job 9600 GPUs TP8 PP8 -> 150 x 8 = 1,200 nodes. */
#define XL_BUSY_PCT 40

static void part_scale(const options *o)
{
    tsched_topology *t = make_clos3("scale-2048", 16, 8, 16);
    uint32_t n = tsched_topology_num_nodes(t), rows, cols;
    tsched_job *job = make_job(150, 8, 8, &rows, &cols);
    char jn[32];
    job_name(jn, sizeof jn, 150, 8, 8);
    uint32_t busy = (uint32_t)lround((double)n * XL_BUSY_PCT / 100.0);
    char label[48];
    for (int v = 0; v < 2; v++) {
        const char *scen = v == 0 ? "clos3-2048-free" : "clos3-2048-busy40";
        if (v == 0)
            snprintf(label, sizeof label, "2048 nodes, all free");
        else
            snprintf(label, sizeof label, "2048 nodes, %u busy, %u free", busy, n - busy);
        group *gs[NALPHA];
        for (size_t a = 0; a < NALPHA; a++)
            gs[a] = new_group("scale", scen, label, jn, rows, cols, ALPHAS[a]);
        unsigned nseeds = v == 0 ? 1 : o->seeds;
        for (unsigned i = 0; i < nseeds; i++) {
            uint64_t seed = seed_of(i), rng = rng_stream(0xC000, seed);
            if (v == 0)
                set_all_free(t);
            else
                occupy_uniform(t, busy, &rng);
            for (size_t a = 0; a < NALPHA; a++)
                run_instance(gs[a], t, job, seed, 0, o->reps);
        }
    }
    tsched_job_free(job);
    tsched_topology_free(t);
}

/* ---- reporting -------------------------------------------------------------------------- */

typedef struct stats {
    unsigned n, nofit, errors, optimal;
    double mean_w, min_w, max_w, mean_dp, mean_pp, mean_pods, mean_solve, max_solve, max_wall, mean_wall;
} stats;

static stats stats_of(const group *g, unsigned a)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.min_w = INFINITY;
    for (unsigned i = 0; i < g->nseeds; i++) {
        const outcome *r = &g->res[a][i];
        if (r->kind == OUT_NOFIT) {
            s.nofit++;
            continue;
        }
        if (r->kind != OUT_OK) {
            s.errors++;
            continue;
        }
        s.n++;
        s.optimal += (unsigned)r->optimal;
        s.mean_w += r->weighted;
        s.min_w = r->weighted < s.min_w ? r->weighted : s.min_w;
        s.max_w = r->weighted > s.max_w ? r->weighted : s.max_w;
        s.mean_dp += r->dp;
        s.mean_pp += r->pp;
        s.mean_pods += r->pods;
        s.mean_solve += r->solve_ms;
        s.mean_wall += r->wall_ms;
        s.max_solve = r->solve_ms > s.max_solve ? r->solve_ms : s.max_solve;
        s.max_wall = r->wall_max_ms > s.max_wall ? r->wall_max_ms : s.max_wall;
    }
    if (s.n) {
        s.mean_w /= s.n;
        s.mean_dp /= s.n;
        s.mean_pp /= s.n;
        s.mean_pods /= s.n;
        s.mean_solve /= s.n;
        s.mean_wall /= s.n;
    }
    return s;
}

/* The comparison of one group: the baseline with the lowest mean (best-fit, random-fit,
 * gpu-pack, topo-aware) over mip's mean; per instance, the best baseline over mip; how
 * often mip is strictly better than every baseline. */
typedef struct cmp {
    int valid;
    unsigned best_algo; /* index into ALGOS */
    double ratio_mean, ratio_inst_max, ratio_inst_mean;
    unsigned mip_wins, instances;
} cmp;

static cmp compare(const group *g)
{
    cmp c;
    memset(&c, 0, sizeof c);
    stats m = stats_of(g, 0);
    if (m.n == 0 || m.n != g->nseeds)
        return c;
    double best = INFINITY;
    for (unsigned a = 1; a <= 4; a++) {
        stats b = stats_of(g, a);
        if (b.n == g->nseeds && b.mean_w < best - EPS) {
            best = b.mean_w;
            c.best_algo = a;
        }
    }
    if (!isfinite(best))
        return c;
    c.valid = 1;
    c.ratio_mean = best / m.mean_w;
    for (unsigned i = 0; i < g->nseeds; i++) {
        double bi = INFINITY;
        for (unsigned a = 1; a <= 4; a++)
            if (g->res[a][i].kind == OUT_OK && g->res[a][i].weighted < bi)
                bi = g->res[a][i].weighted;
        double r = bi / g->res[0][i].weighted;
        c.ratio_inst_max = r > c.ratio_inst_max ? r : c.ratio_inst_max;
        c.ratio_inst_mean += r;
        c.mip_wins += r > 1 + EPS;
        c.instances++;
    }
    c.ratio_inst_mean /= c.instances;
    return c;
}

static void print_summary_table(const char *section, const char *title)
{
    printf("\n%s\n", title);
    printf("%-32s %-14s %5s |", "scenario", "job", "alpha");
    for (unsigned a = 0; a < NALGO; a++)
        printf(" %10s", tsched_place_algo_name(ALGOS[a]));
    printf(" | %-10s %6s %6s %5s %7s %9s\n", "best base", "b/mip", "inst", "wins", "mip opt", "mip ms");
    for (size_t i = 0; i < g_ngroups; i++) {
        const group *g = &g_groups[i];
        if (strcmp(g->section, section) != 0)
            continue;
        printf("%-32s %-14s %5.1f |", g->label, g->job, g->alpha);
        stats m = stats_of(g, 0);
        if (m.n == 0 && m.nofit == g->nseeds) {
            printf(" does not fit: needs %u nodes, %u free\n", g->rows * g->cols, g->free_nodes[0]);
            continue;
        }
        for (unsigned a = 0; a < NALGO; a++) {
            stats s = stats_of(g, a);
            if (!g->ran[a])
                printf(" %10s", "-");
            else if (s.n == 0)
                printf(" %10s", s.nofit ? "no fit" : "error");
            else
                printf(" %10.3f", s.mean_w);
        }
        cmp c = compare(g);
        if (c.valid)
            printf(" | %-10s %6.3f %6.3f %2u/%-2u %3u/%-3u %9.3f\n", tsched_place_algo_name(ALGOS[c.best_algo]),
                   c.ratio_mean, c.ratio_inst_max, c.mip_wins, c.instances, m.optimal, m.n, m.max_wall);
        else
            printf(" | (incomplete)\n");
    }
}

static void print_detail_table(const char *section, const char *title)
{
    printf("\n%s\n", title);
    printf("%-32s %-14s %5s %-10s %5s %13s %6s %6s %5s %9s %9s %9s %7s\n", "scenario", "job", "alpha", "algo", "n",
           "weighted", "dp_max", "pp_max", "pods", "solve ms", "max solve", "max wall", "optimal");
    for (size_t i = 0; i < g_ngroups; i++) {
        const group *g = &g_groups[i];
        if (strcmp(g->section, section) != 0)
            continue;
        for (unsigned a = 0; a < NALGO; a++) {
            if (!g->ran[a])
                continue;
            stats s = stats_of(g, a);
            if (s.n == 0) {
                if (a == 0)
                    printf("%-32s %-14s %5.1f %-10s does not fit (%u nodes)\n", g->label, g->job, g->alpha, "all",
                           g->rows * g->cols);
                if (s.errors)
                    printf("%-32s %-14s %5.1f %-10s %u errors\n", g->label, g->job, g->alpha,
                           tsched_place_algo_name(ALGOS[a]), s.errors);
                if (a == 0)
                    break;
                continue;
            }
            char w[32];
            snprintf(w, sizeof w, "%.3f %.1f-%.1f", s.mean_w, s.min_w, s.max_w);
            printf("%-32s %-14s %5.1f %-10s %5u %13s %6.2f %6.2f %5.2f %9.3f %9.3f %9.3f %3u/%-3u\n", g->label, g->job,
                   g->alpha, tsched_place_algo_name(ALGOS[a]), s.n, w, s.mean_dp, s.mean_pp, s.mean_pods,
                   s.mean_solve, s.max_solve, s.max_wall, s.optimal, s.n);
        }
    }
}

/* Targets: (a) setting (iii), every alpha and seed, mip proven optimal with a median wall
 * time below 100 ms; (b) the 1,200-node job, every alpha (and seed of the busy variant),
 * median wall time below 1 s (status reported). */
typedef struct target {
    char name[96];
    double ms, max_ms, solve_ms;
    int optimal, pass;
    double limit;
} target;
static target *g_targets;
static size_t g_ntargets;

static int print_targets(const options *o)
{
    int misses = 0;
    printf("\nscale targets (mip; wall time around tsched_place, median of up to %u runs, a call over 1 s runs once; max run shown)\n", o->reps);
    printf("%-44s %10s %10s %10s %-9s %-10s %s\n", "case", "median ms", "max ms", "solve ms", "status", "target",
           "result");
    g_targets = xcalloc(g_ngroups * MAX_SEEDS, sizeof *g_targets);
    for (size_t i = 0; i < g_ngroups; i++) {
        const group *g = &g_groups[i];
        int a_case = strcmp(g->section, "arnold") == 0 && strcmp(g->scenario, "iii") == 0;
        int b_case = strcmp(g->section, "scale") == 0;
        if (!a_case && !b_case)
            continue;
        for (unsigned s = 0; s < g->nseeds; s++) {
            const outcome *m = &g->res[0][s];
            target *t = &g_targets[g_ntargets++];
            snprintf(t->name, sizeof t->name, "%s %s alpha %.1f seed %llu", a_case ? "(iii) 46x8" : g->scenario,
                     a_case ? "" : "150x8", g->alpha, (unsigned long long)g->seeds[s]);
            t->limit = a_case ? TARGET_III_MS : TARGET_XL_MS;
            t->ms = m->wall_ms;
            t->max_ms = m->wall_max_ms;
            t->solve_ms = m->solve_ms;
            t->optimal = m->kind == OUT_OK && m->optimal;
            t->pass = m->kind == OUT_OK && m->wall_ms < t->limit && (t->optimal || b_case);
            const char *verdict = o->quick ? "n/a (quick)" : t->pass ? "PASS" : "MISS";
            misses += !o->quick && !t->pass;
            char tgt[32];
            snprintf(tgt, sizeof tgt, "< %g ms%s", t->limit, a_case ? ", opt" : "");
            printf("%-44s %10.2f %10.2f %10.2f %-9s %-10s %s\n", t->name, t->ms, t->max_ms, t->solve_ms,
                   m->kind != OUT_OK ? "error" : m->optimal ? "optimal" : "feasible", tgt, verdict);
        }
    }
    return misses;
}

static void json_outcome(const options *o, const group *g, unsigned a, unsigned s)
{
    const outcome *r = &g->res[a][s];
    printf("{\"bench\": \"placement\", \"quick\": %s, \"type\": \"run\", \"section\": \"%s\", \"scenario\": \"%s\", "
           "\"job\": \"%s\", \"rows\": %u, \"cols\": %u, \"alpha\": %.2f, \"seed\": %llu, \"free_nodes\": %u, "
           "\"algo\": \"%s\", ",
           o->quick ? "true" : "false", g->section, g->scenario, g->job, g->rows, g->cols, g->alpha,
           (unsigned long long)g->seeds[s], g->free_nodes[s], tsched_place_algo_name(ALGOS[a]));
    if (r->kind == OUT_OK)
        printf("\"result\": \"ok\", \"status\": \"%s\", \"weighted\": %.6g, \"dp_max\": %u, \"pp_max\": %u, "
               "\"pods_used\": %u, \"solve_ms\": %.4f, \"wall_ms\": %.4f, \"runs\": %u}\n",
               r->optimal ? "optimal" : "feasible", r->weighted, r->dp, r->pp, r->pods, r->solve_ms, r->wall_ms,
               r->reps);
    else
        printf("\"result\": \"%s\", \"error\": \"%s\"}\n", r->kind == OUT_NOFIT ? "does not fit" : "error",
               tsched_status_str(r->err));
}

static void print_json(const options *o)
{
    for (size_t i = 0; i < g_ngroups; i++) {
        const group *g = &g_groups[i];
        for (unsigned a = 0; a < NALGO; a++)
            for (unsigned s = 0; g->ran[a] && s < g->nseeds; s++)
                json_outcome(o, g, a, s);
    }
    for (size_t i = 0; i < g_ngroups; i++) {
        const group *g = &g_groups[i];
        for (unsigned a = 0; a < NALGO; a++) {
            if (!g->ran[a])
                continue;
            stats s = stats_of(g, a);
            printf("{\"bench\": \"placement\", \"quick\": %s, \"type\": \"summary\", \"section\": \"%s\", "
                   "\"scenario\": \"%s\", \"label\": \"%s\", \"job\": \"%s\", \"rows\": %u, \"cols\": %u, "
                   "\"alpha\": %.2f, \"algo\": \"%s\", \"instances\": %u, \"does_not_fit\": %u, \"errors\": %u",
                   o->quick ? "true" : "false", g->section, g->scenario, g->label, g->job, g->rows, g->cols, g->alpha,
                   tsched_place_algo_name(ALGOS[a]), s.n, s.nofit, s.errors);
            if (s.n)
                printf(", \"mean_weighted\": %.6g, \"min_weighted\": %.6g, \"max_weighted\": %.6g, "
                       "\"mean_dp_max\": %.4g, \"mean_pp_max\": %.4g, \"mean_pods_used\": %.4g, "
                       "\"mean_solve_ms\": %.4f, \"max_solve_ms\": %.4f, \"max_wall_ms\": %.4f, \"optimal\": %u",
                       s.mean_w, s.min_w, s.max_w, s.mean_dp, s.mean_pp, s.mean_pods, s.mean_solve, s.max_solve,
                       s.max_wall, s.optimal);
            printf("}\n");
        }
        cmp c = compare(g);
        if (c.valid)
            printf("{\"bench\": \"placement\", \"quick\": %s, \"type\": \"compare\", \"section\": \"%s\", "
                   "\"scenario\": \"%s\", \"job\": \"%s\", \"alpha\": %.2f, \"best_baseline\": \"%s\", "
                   "\"ratio_of_means\": %.6g, \"ratio_instance_max\": %.6g, \"ratio_instance_mean\": %.6g, "
                   "\"mip_strictly_better\": %u, \"instances\": %u}\n",
                   o->quick ? "true" : "false", g->section, g->scenario, g->job, g->alpha,
                   tsched_place_algo_name(ALGOS[c.best_algo]), c.ratio_mean, c.ratio_inst_max, c.ratio_inst_mean,
                   c.mip_wins, c.instances);
    }
    for (size_t i = 0; i < g_ntargets; i++) {
        const target *t = &g_targets[i];
        printf("{\"bench\": \"placement\", \"quick\": %s, \"type\": \"target\", \"metric\": \"%s\", \"value\": %.4f, "
               "\"max\": %.4f, \"solve_ms\": %.4f, \"unit\": \"ms\", \"status\": \"%s\", \"target\": \"< %g\", "
               "\"result\": \"%s\"}\n",
               o->quick ? "true" : "false", t->name, t->ms, t->max_ms, t->solve_ms,
               t->optimal ? "optimal" : "feasible", t->limit, o->quick ? "n/a" : t->pass ? "PASS" : "MISS");
    }
}

/* Over all Arnold groups: the mean and largest ratio best baseline / mip (the paper: 1.2x
 * on average, up to 1.67x). */
static void print_overall(void)
{
    double sum = 0, mx = 0;
    unsigned n = 0, wins = 0, inst = 0, ties_all = 0;
    for (size_t i = 0; i < g_ngroups; i++) {
        cmp c = compare(&g_groups[i]);
        if (strcmp(g_groups[i].section, "arnold") != 0 || !c.valid)
            continue;
        sum += c.ratio_mean;
        mx = c.ratio_mean > mx ? c.ratio_mean : mx;
        n++;
        wins += c.mip_wins;
        inst += c.instances;
        ties_all += c.mip_wins == 0;
    }
    if (n)
        printf("\nArnold settings overall: best baseline / mip (ratio of means) averages %.3f over %u (setting, alpha) "
               "cells, largest %.3f; mip strictly better than every baseline on %u of %u instances; %u cells where a "
               "baseline always ties mip\n",
               sum / n, n, mx, wins, inst, ties_all);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_placement [--quick] [--json] [--strict] [--seeds N] [--reps N] [--time-limit-ms N]\n"
               "                       [--lingjun FILE]\n"
               "  --quick         2 seeds, 1 timed run, 1 s solver limit (a smoke run; targets not judged)\n"
               "  --json          also print one JSON object per run, per summary and per target\n"
               "  --strict        exit 1 if a target is missed (problems always give exit 1)\n"
               "  --seeds N       instances per setting and occupancy, seeds 1..N (default 5, max %d)\n"
               "  --reps N        timed runs of each mip call of the scale targets (default 5; a call\n"
               "                  over 1 s is not repeated)\n"
               "  --time-limit-ms N  solver time limit (default: the library's, 10 s; quick: 1000)\n"
               "  --lingjun FILE  the Lingjun fabric (default %s)\n",
            MAX_SEEDS, BENCH_LINGJUN_DEFAULT);
}

static int parse_ulong(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return 0;
    *out = v;
    return 1;
}

static void parse_args(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->lingjun = BENCH_LINGJUN_DEFAULT;
    for (int i = 1; i < argc; i++) {
        unsigned long v = 0;
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (i + 1 < argc && strcmp(a, "--seeds") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= MAX_SEEDS) {
            o->seeds = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--reps") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 && v <= 64) {
            o->reps = (unsigned)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--time-limit-ms") == 0 && parse_ulong(argv[i + 1], &v) && v >= 1 &&
                   v <= 3600000ul) {
            o->time_limit_ms = (uint32_t)v;
            i++;
        } else if (i + 1 < argc && strcmp(a, "--lingjun") == 0) {
            o->lingjun = argv[++i];
            o->lingjun_given = 1;
        } else {
            fprintf(stderr, "bench_placement: bad argument \"%s\"\n", a);
            usage(stderr);
            exit(2);
        }
    }
    if (!o->seeds)
        o->seeds = o->quick ? 2 : 5;
    if (!o->reps)
        o->reps = o->quick ? 1 : 5;
    if (!o->time_limit_ms && o->quick)
        o->time_limit_ms = 1000;
}

int main(int argc, char **argv)
{
    options o;
    parse_args(&o, argc, argv);
    g_time_limit_ms = o.time_limit_ms;
    printf("bench_placement %s: seeds 1..%u, alpha {0, 0.3, 0.5}, %u timed run%s per scale-target mip call, "
           "solver time limit %s%u ms%s\n",
           tsched_version(), o.seeds, o.reps, o.reps == 1 ? "" : "s", o.time_limit_ms ? "" : "default ",
           o.time_limit_ms ? o.time_limit_ms : 10000u, o.quick ? " (quick)" : "");
    double t0 = now_ms();
    part_arnold(&o);
    int lingjun = part_lingjun(&o);
    part_scale(&o);
    double total = now_ms() - t0;

    print_summary_table("arnold",
                        "Arnold Table 1 settings: mean weighted spread over seeds (lower is better); best base = "
                        "baseline with the lowest mean, b/mip = its mean / mip's mean, inst = largest per-instance "
                        "(best baseline / mip), wins = instances where mip beats every baseline, mip ms = largest "
                        "wall time");
    print_overall();
    if (lingjun)
        print_summary_table("lingjun", "Lingjun (847 hosts, 3 pods): mean weighted spread over seeds");
    print_summary_table("scale", "Scale: 150 x 8 job (1,200 nodes) on a 16-pod clos3 of 2,048 nodes");
    print_detail_table("arnold", "Details, Arnold settings (means over seeds; times in ms; max wall over all runs)");
    if (lingjun)
        print_detail_table("lingjun", "Details, Lingjun");
    print_detail_table("scale", "Details, scale");
    int misses = print_targets(&o);
    printf("\nproblems (library answers failing a check): %d\n", g_problems);
    if (!o.quick)
        printf("targets: %s\n", misses ? "MISSED (see the table)" : "all PASS");
    printf("total bench time %.1f s\n", total / 1e3);
    if (o.json)
        print_json(&o);
    free(g_targets);
    free(g_groups);
    return g_problems || (o.strict && misses) ? 1 : 0;
}
