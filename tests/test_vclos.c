/* vclos stages 0-2 (doc/vclos.md §2-§3, §9): every allocation on small random fabrics
 * against a brute force over leaf subsets and spine multisets, its validity, contention by
 * recount, the paper's and the reduced formulation against the same brute force,
 * determinism, pow2 shapes, the time limit, and bad inputs. The reference reads the state
 * through the public API only (jobs' nodes and links, the topology's down elements). */
#include <stdio.h>

#include "common/rng.h"
#include "test_util.h"
#include "vclos_models.h"

/* stage2.c: 1 makes every shape go through the class ILP (no greedy shortcut). */
extern int vc_stage2_force_ilp;

/* ---- the fabric as the reference sees it ---- */

typedef struct fab {
    tsched_topology *t;
    uint32_t L, S, K, P, T, E, nn, nm;
    uint32_t *node_leaf;   /* nn: local leaf */
    uint32_t *pair_first;  /* L * S */
    uint32_t *member_pair; /* nm */
    uint8_t *node_up;      /* nn */
    uint8_t *member_up;    /* nm */
} fab;

static void fab_init(fab *f, tsched_topology *t, uint32_t K, uint32_t P, uint32_t T, uint32_t E)
{
    memset(f, 0, sizeof *f);
    f->t = t;
    f->L = tsched_topology_num_tier(t, 0);
    f->S = tsched_topology_num_tier(t, 1);
    f->K = K;
    f->P = P;
    f->T = T;
    f->E = E;
    f->nn = tsched_topology_num_nodes(t);
    f->nm = tsched_topology_num_members(t);
    f->node_leaf = calloc(f->nn, sizeof *f->node_leaf);
    f->pair_first = calloc((size_t)f->L * f->S, sizeof *f->pair_first);
    f->member_pair = calloc(f->nm, sizeof *f->member_pair);
    f->node_up = calloc(f->nn, 1);
    f->member_up = calloc(f->nm, 1);
    for (uint32_t n = 0; n < f->nn; n++) {
        uint32_t sw = tsched_topology_node_leaf(t, n);
        for (uint32_t i = 0; i < f->L; i++)
            if (tsched_topology_tier_switch(t, 0, i) == sw)
                f->node_leaf[n] = i;
    }
    for (uint32_t a = 0; a < f->L; a++)
        for (uint32_t b = 0; b < f->S; b++) {
            uint32_t r = tsched_topology_find_trunk(t, tsched_topology_tier_switch(t, 0, a),
                                                    tsched_topology_tier_switch(t, 1, b));
            ck_assert_uint_ne(r, TSCHED_NONE);
            ck_assert_uint_eq(tsched_topology_trunk_links(t, r), K);
            uint32_t first = tsched_topology_trunk_first_member(t, r);
            f->pair_first[a * f->S + b] = first;
            for (uint32_t k = 0; k < K; k++)
                f->member_pair[first + k] = a * f->S + b;
        }
    for (uint32_t n = 0; n < f->nn; n++)
        f->node_up[n] = (uint8_t)tsched_topology_node_is_up(t, n);
    for (uint32_t m = 0; m < f->nm; m++)
        f->member_up[m] = (uint8_t)tsched_topology_member_is_up(t, m);
}

static void fab_free(fab *f)
{
    free(f->node_leaf);
    free(f->pair_first);
    free(f->member_pair);
    free(f->node_up);
    free(f->member_up);
    tsched_topology_free(f->t);
}

/* ---- the handle's occupancy, read through the API ---- */

typedef struct snap {
    uint32_t *used; /* nn: GPUs of stage-0 jobs */
    uint8_t *held;  /* nn: held by a stage-1/2 job */
    uint8_t *taken; /* nm: reserved */
} snap;

static void snap_take(snap *s, const fab *f, const tsched_vclos *v)
{
    s->used = calloc(f->nn, sizeof *s->used);
    s->held = calloc(f->nn, 1);
    s->taken = calloc(f->nm ? f->nm : 1, 1);
    for (uint32_t i = 0; i < tsched_vclos_num_jobs(v); i++) {
        const char *name = tsched_vclos_job_name(v, i);
        tsched_vclos_jobinfo info = {.size = sizeof info};
        ck_assert_ok(tsched_vclos_job_info(&info, v, name));
        uint32_t nodes[64], links[512];
        size_t n = 0, nl = 0;
        ck_assert_ok(tsched_vclos_job_nodes(nodes, 64, &n, v, name));
        ck_assert_uint_eq(n, info.nodes);
        for (size_t k = 0; k < n; k++) {
            ck_assert_uint_lt(nodes[k], f->nn);
            if (info.stage == 0) {
                s->used[nodes[k]] += info.gpus_per_node;
                ck_assert_uint_le(s->used[nodes[k]], f->T);
            } else {
                ck_assert_msg(!s->held[nodes[k]], "node %u held twice", nodes[k]);
                s->held[nodes[k]] = 1;
            }
        }
        ck_assert_ok(tsched_vclos_job_links(links, 512, &nl, v, name));
        ck_assert_uint_eq(nl, info.links);
        for (size_t k = 0; k < nl; k++) {
            ck_assert_uint_lt(links[k], f->nm);
            ck_assert_msg(!s->taken[links[k]], "member %u reserved twice", links[k]);
            s->taken[links[k]] = 1;
        }
    }
    for (uint32_t n = 0; n < f->nn; n++)
        ck_assert_msg(!(s->held[n] && s->used[n]), "node %u both held and shared", n);
}

static void snap_free(snap *s)
{
    free(s->used);
    free(s->held);
    free(s->taken);
}

static int node_idle(const fab *f, const snap *s, uint32_t n)
{
    return f->node_up[n] && !s->used[n] && !s->held[n];
}

/* RSN, C (free members, or all members with `all_free`), RPN of a state. */
static void state_counts(const fab *f, const snap *s, int all_free, uint32_t *rsn, uint32_t *C, uint64_t *rpn)
{
    memset(rsn, 0, f->L * sizeof *rsn);
    for (uint32_t n = 0; n < f->nn; n++)
        rsn[f->node_leaf[n]] += (uint32_t)node_idle(f, s, n);
    memset(rpn, 0, f->S * sizeof *rpn);
    for (uint32_t p = 0; p < f->L * f->S; p++) {
        uint32_t c = 0;
        for (uint32_t k = 0; k < f->K; k++) {
            uint32_t m = f->pair_first[p] + k;
            c += all_free || (f->member_up[m] && !s->taken[m]);
        }
        C[p] = c;
        rpn[p % f->S] += c;
    }
}

/* ---- brute force ---- */

typedef struct bf {
    const fab *f;
    const uint32_t *C, *rsn;
    const uint64_t *rpn;
    uint32_t cap[8], y[8];
    int64_t best;
} bf;

static void bf_spines(bf *b, uint32_t m, uint32_t left, int64_t cost)
{
    if (m == b->f->S) {
        if (!left && (b->best < 0 || cost < b->best))
            b->best = cost;
        return;
    }
    for (uint32_t y = 0; y <= b->cap[m] && y <= left; y++)
        bf_spines(b, m + 1, left - y, cost + (int64_t)b->rpn[m] * y);
}

/* Optimum of shape (l, q) over every leaf subset and spine multiset; -1 infeasible. */
static int64_t brute(const fab *f, const uint32_t *C, const uint32_t *rsn, const uint64_t *rpn, uint32_t l,
                     uint32_t q)
{
    bf b = {f, C, rsn, rpn, {0}, {0}, -1};
    uint32_t s = q * f->E;
    for (uint32_t mask = 0; mask < (1u << f->L); mask++) {
        if ((uint32_t)__builtin_popcount(mask) != l)
            continue;
        int64_t leaf_cost = 0;
        int ok = 1;
        for (uint32_t m = 0; m < f->S; m++)
            b.cap[m] = f->K;
        for (uint32_t n = 0; n < f->L && ok; n++) {
            if (!(mask >> n & 1))
                continue;
            if (rsn[n] < q)
                ok = 0;
            leaf_cost += (int64_t)f->T * rsn[n];
            for (uint32_t m = 0; m < f->S; m++)
                if (C[n * f->S + m] < b.cap[m])
                    b.cap[m] = C[n * f->S + m];
        }
        if (!ok)
            continue;
        int64_t before = b.best;
        b.best = -1;
        bf_spines(&b, 0, s, leaf_cost);
        if (before >= 0 && (b.best < 0 || before < b.best))
            b.best = before;
    }
    return b.best;
}

/* Stage-2 leaf counts for Q nodes, as §2 states them. */
static uint32_t ref_shapes(const fab *f, uint32_t Q, int pow2, uint32_t *ls)
{
    uint32_t n = 0;
    for (uint32_t l = 2; l <= Q && l <= f->L; l++) {
        uint32_t q = Q / l;
        if (Q % l || q > f->P || q * f->E > f->S * f->K)
            continue;
        if (pow2 && ((l & (l - 1)) || (q & (q - 1))))
            continue;
        ls[n++] = l;
    }
    return n;
}

/* ---- checks of one allocation ---- */

typedef struct stats {
    uint32_t allocs[3], waits[4], models, ilp_shapes;
} stats;

/* Every ring, alltoall and hd step over all jobs at once; `stride` > 1 takes every
 * stride-th alltoall step only (the recount asserts per flow: big fabrics sample). */
static void check_recount_stride(const tsched_vclos *v, uint32_t stride)
{
    uint32_t maxr = 0; /* steps past a job's last one wrap: stop at the largest job's */
    for (uint32_t i = 0; i < tsched_vclos_num_jobs(v); i++) {
        tsched_vclos_jobinfo info = {.size = sizeof info};
        ck_assert_ok(tsched_vclos_job_info(&info, v, tsched_vclos_job_name(v, i)));
        if (info.stage == 2 && info.ranks > maxr)
            maxr = info.ranks;
    }
    ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_RING, 0, NULL), 1);
    for (uint32_t st = 0; st + 1 < maxr; st += stride)
        ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_ALLTOALL, st, NULL), 1);
    for (uint32_t st = 0; (1u << st) < maxr; st++)
        ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_HD, st, NULL), 1);
}

static void check_recount(const tsched_vclos *v) { check_recount_stride(v, 1); }

/* Compare the models with the brute force on every shape of this request. */
static void check_models(const fab *f, const uint32_t *C, const uint32_t *rsn, const uint64_t *rpn, uint32_t Q,
                         const uint32_t *ls, uint32_t nls, stats *stt)
{
    uint32_t K[64];
    for (uint32_t p = 0; p < f->L * f->S; p++)
        K[p] = f->K;
    vm_inst in = {f->L, f->S, f->T, f->E, C, K, rsn, rpn};
    for (uint32_t i = 0; i < nls; i++) {
        uint32_t l = ls[i], q = Q / l;
        int64_t want = brute(f, C, rsn, rpn, l, q), a = -1, b = -1;
        int ra = vm_paper(&in, l, q, &a), rb = vm_reduced(&in, l, q, &b);
        ck_assert_int_ge(ra, 0);
        ck_assert_int_ge(rb, 0);
        ck_assert_int_eq(ra, want >= 0);
        ck_assert_int_eq(rb, want >= 0);
        if (want >= 0) {
            ck_assert_int_eq(a, want);
            ck_assert_int_eq(b, want);
        }
        stt->models++;
    }
}

/* Check the handle's answer to `gpus` for job `name` against the reference over `before`. */
static void check_answer(const fab *f, const tsched_vclos *v, const char *name, uint32_t gpus,
                         tsched_vclos_outcome out, const snap *before, int pow2, int models, stats *stt)
{
    uint32_t rsn[8], C[64], rsn_all[8], C_all[64];
    uint64_t rpn[8], rpn_all[8];
    state_counts(f, before, 0, rsn, C, rpn);
    state_counts(f, before, 1, rsn_all, C_all, rpn_all);
    tsched_vclos_jobinfo info = {.size = sizeof info};
    if (gpus <= f->T) {
        uint32_t best = TSCHED_NONE;
        for (uint32_t n = 0; n < f->nn; n++)
            if (f->node_up[n] && !before->held[n] && f->T - before->used[n] >= gpus &&
                (best == TSCHED_NONE || before->used[n] > before->used[best]))
                best = n;
        if (best == TSCHED_NONE) {
            ck_assert_int_eq(out, TSCHED_VCLOS_WAIT_GPU);
            stt->waits[out]++;
            return;
        }
        ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
        ck_assert_ok(tsched_vclos_job_info(&info, v, name));
        uint32_t node;
        size_t cnt;
        ck_assert_ok(tsched_vclos_job_nodes(&node, 1, &cnt, v, name));
        ck_assert_uint_eq(info.stage, 0);
        ck_assert_uint_eq(node, best);
        ck_assert_uint_eq(info.gpus_per_node, gpus);
        stt->allocs[0]++;
        return;
    }
    uint32_t Q = (gpus + f->T - 1) / f->T, idle = 0;
    for (uint32_t n = 0; n < f->L; n++)
        idle += rsn[n];
    /* stage 1 */
    uint32_t best = TSCHED_NONE;
    for (uint32_t n = 0; n < f->L; n++)
        if (rsn[n] >= Q && (best == TSCHED_NONE || rsn[n] < rsn[best]))
            best = n;
    uint32_t nodes[64];
    size_t cnt = 0;
    if (best != TSCHED_NONE) {
        ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
        ck_assert_ok(tsched_vclos_job_info(&info, v, name));
        ck_assert_uint_eq(info.stage, 1);
        ck_assert_ok(tsched_vclos_job_nodes(nodes, 64, &cnt, v, name));
        ck_assert_uint_eq(cnt, Q);
        uint32_t k = 0;
        for (uint32_t n = 0; n < f->nn && k < Q; n++)
            if (f->node_leaf[n] == best && node_idle(f, before, n))
                ck_assert_uint_eq(nodes[k++], n);
        stt->allocs[1]++;
        return;
    }
    uint32_t ls[8], nls = idle >= Q ? ref_shapes(f, Q, pow2, ls) : 0;
    if (models)
        check_models(f, C, rsn, rpn, Q, ls, nls, stt);
    uint32_t win = 0;
    int64_t opt = -1;
    for (uint32_t i = 0; i < nls && opt < 0; i++)
        if ((opt = brute(f, C, rsn, rpn, ls[i], Q / ls[i])) >= 0)
            win = ls[i];
    if (opt < 0) {
        int net = 0;
        for (uint32_t i = 0; i < nls && !net; i++)
            net = brute(f, C_all, rsn_all, rpn_all, ls[i], Q / ls[i]) >= 0;
        ck_assert_int_eq(out, net ? TSCHED_VCLOS_WAIT_NETWORK : TSCHED_VCLOS_WAIT_GPU);
        ck_assert_uint_eq(tsched_vclos_job_info(&info, v, name), TSCHED_E_NOT_FOUND);
        stt->waits[out]++;
        return;
    }
    ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
    stt->allocs[2]++;
    ck_assert_ok(tsched_vclos_job_info(&info, v, name));
    uint32_t l = win, q = Q / l, s = q * f->E;
    ck_assert_uint_eq(info.stage, 2);
    ck_assert_uint_eq(info.leaves, l);
    ck_assert_uint_eq(info.vspines, s);
    ck_assert_uint_eq(info.nodes, Q);
    ck_assert_uint_eq(info.ranks, Q * f->E);
    ck_assert_uint_eq(info.links, l * s);
    ck_assert_uint_eq(info.gpus_per_node, f->T);
    ck_assert_int_eq(info.optimal, 1);
    ck_assert_int_eq(info.objective, opt);
    /* nodes: q lowest idle nodes of each chosen leaf, leaves ascending */
    ck_assert_ok(tsched_vclos_job_nodes(nodes, 64, &cnt, v, name));
    ck_assert_uint_eq(cnt, Q);
    uint32_t leaves[8];
    for (uint32_t i = 0; i < l; i++) {
        leaves[i] = f->node_leaf[nodes[i * q]];
        if (i)
            ck_assert_uint_gt(leaves[i], leaves[i - 1]);
        uint32_t k = 0;
        for (uint32_t n = 0; n < f->nn && k < q; n++)
            if (f->node_leaf[n] == leaves[i] && node_idle(f, before, n))
                ck_assert_uint_eq(nodes[i * q + k++], n);
        ck_assert_uint_eq(k, q);
    }
    /* links: (leaf i, v) -> a member of leaves[i]~sp(v), free before, lowest not yet taken */
    uint32_t links[512], sp[64];
    ck_assert_ok(tsched_vclos_job_links(links, 512, &cnt, v, name));
    ck_assert_uint_eq(cnt, l * s);
    for (uint32_t vs = 0; vs < s; vs++) {
        sp[vs] = f->member_pair[links[vs]] % f->S;
        if (vs)
            ck_assert_uint_ge(sp[vs], sp[vs - 1]);
    }
    int64_t recomputed = 0;
    for (uint32_t i = 0; i < l; i++)
        recomputed += (int64_t)f->T * rsn[leaves[i]];
    for (uint32_t vs = 0; vs < s; vs++)
        recomputed += (int64_t)rpn[sp[vs]];
    ck_assert_int_eq(recomputed, info.objective);
    for (uint32_t i = 0; i < l; i++)
        for (uint32_t vs = 0; vs < s; vs++) {
            uint32_t mem = links[i * s + vs], p = leaves[i] * f->S + sp[vs], want = TSCHED_NONE;
            for (uint32_t k = 0; k < f->K && want == TSCHED_NONE; k++) {
                uint32_t cand = f->pair_first[p] + k;
                int used = !f->member_up[cand] || before->taken[cand];
                for (uint32_t u = 0; u < vs && !used; u++)
                    used = links[i * s + u] == cand;
                if (!used)
                    want = cand;
            }
            ck_assert_uint_eq(mem, want);
        }
    /* ranks: leaf by leaf, node by node, NIC by NIC; uplink of (leaf, local index) */
    uint32_t rn[256], rnic[256], rup[256];
    ck_assert_ok(tsched_vclos_job_ranks(rn, rnic, rup, 256, &cnt, v, name));
    ck_assert_uint_eq(cnt, Q * f->E);
    for (uint32_t r = 0; r < Q * f->E; r++) {
        ck_assert_uint_eq(rn[r], nodes[r / f->E]);
        ck_assert_uint_eq(rnic[r], r % f->E);
        ck_assert_uint_eq(rup[r], links[(r / s) * s + r % s]);
    }
}

/* ---- random scenarios ---- */

typedef struct rec {
    char name[16];
    uint32_t gpus;
} rec;

/* One random fabric and a sequence of allocations and releases, each checked. `log`
 * (may be NULL) gets the handle's jobs after every operation for the determinism test. */
static void scenario(uint64_t seed, int force_ilp, int models, stats *stt)
{
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    uint32_t L = 2 + (uint32_t)ts_rng_below(&rng, 7), S = 1 + (uint32_t)ts_rng_below(&rng, 6);
    uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 2), P = 1 + (uint32_t)ts_rng_below(&rng, 4);
    uint32_t T = 1 + (uint32_t)ts_rng_below(&rng, 2), E = ts_rng_below(&rng, 2) ? T : 1;
    tsched_topology *t = tu_leaf_spine(L, S, K, P, T, E);
    uint32_t nm = tsched_topology_num_members(t), nn = tsched_topology_num_nodes(t);
    uint32_t pdown = (uint32_t)ts_rng_below(&rng, 4); /* 0, 5, 10, 15 % */
    for (uint32_t m = 0; m < nm; m++)
        if (ts_rng_below(&rng, 100) < 5 * pdown)
            ck_assert_ok(tsched_topology_set_member_up(t, m, 0));
    for (uint32_t n = 0; n < nn; n++)
        if (ts_rng_below(&rng, 100) < 3 * pdown)
            ck_assert_ok(tsched_topology_set_node_up(t, n, 0));
    fab f;
    fab_init(&f, t, K, P, T, E);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    ck_assert_ok(tsched_vclos_set_time_limit_ms(v, 0));
    int pow2 = ts_rng_below(&rng, 4) == 0;
    if (pow2)
        ck_assert_ok(tsched_vclos_set_shapes(v, TSCHED_VCLOS_SHAPES_POW2));
    vc_stage2_force_ilp = force_ilp;
    uint32_t next = 0;
    for (uint32_t op = 0; op < 24; op++) {
        uint32_t nj = tsched_vclos_num_jobs(v);
        if (nj && ts_rng_below(&rng, 100) < 45) {
            const char *name = tsched_vclos_job_name(v, (uint32_t)ts_rng_below(&rng, nj));
            char copy[32];
            snprintf(copy, sizeof copy, "%s", name);
            snap a, b;
            snap_take(&a, &f, v);
            tsched_vclos_jobinfo info = {.size = sizeof info};
            ck_assert_ok(tsched_vclos_job_info(&info, v, copy));
            uint32_t nodes[64], links[512];
            size_t cn, cl;
            ck_assert_ok(tsched_vclos_job_nodes(nodes, 64, &cn, v, copy));
            ck_assert_ok(tsched_vclos_job_links(links, 512, &cl, v, copy));
            ck_assert_ok(tsched_vclos_release(v, copy));
            snap_take(&b, &f, v);
            /* exactly the job's resources came back */
            for (size_t k = 0; k < cn; k++) {
                if (info.stage == 0)
                    a.used[nodes[k]] -= info.gpus_per_node;
                else
                    a.held[nodes[k]] = 0;
            }
            for (size_t k = 0; k < cl; k++)
                a.taken[links[k]] = 0;
            ck_assert_mem_eq(a.used, b.used, nn * sizeof *a.used);
            ck_assert_mem_eq(a.held, b.held, nn);
            ck_assert_mem_eq(a.taken, b.taken, nm);
            snap_free(&a);
            snap_free(&b);
            continue;
        }
        uint32_t gpus, kind = (uint32_t)ts_rng_below(&rng, 10);
        uint32_t maxq = L * P / 2 + 1;
        if (kind < 2)
            gpus = 1 + (uint32_t)ts_rng_below(&rng, T);
        else if (kind < 4)
            gpus = T + 1 + (uint32_t)ts_rng_below(&rng, T * maxq);
        else
            gpus = T * (2 + (uint32_t)ts_rng_below(&rng, maxq));
        if (gpus > L * P * T)
            gpus = L * P * T;
        char name[16];
        snprintf(name, sizeof name, "j%u", next++);
        snap before;
        snap_take(&before, &f, v);
        tsched_vclos_outcome out;
        ck_assert_ok(tsched_vclos_allocate(v, name, gpus, &out));
        check_answer(&f, v, name, gpus, out, &before, pow2, models, stt);
        snap_free(&before);
        snap after;
        snap_take(&after, &f, v); /* asserts nothing is held or reserved twice */
        snap_free(&after);
        check_recount(v);
    }
    vc_stage2_force_ilp = 0;
    tsched_vclos_free(v);
    fab_free(&f);
}

START_TEST(brute_force_small)
{
    stats st;
    memset(&st, 0, sizeof st);
    for (uint64_t seed = 1; seed <= tu_n(120); seed++)
        scenario(seed, (int)(seed % 2), 0, &st);
    fprintf(stderr, "brute force: %u/%u/%u allocations (stages 0/1/2), waits gpu %u network %u\n", st.allocs[0],
            st.allocs[1], st.allocs[2], st.waits[1], st.waits[2]);
    ck_assert_uint_ge(st.allocs[2], tu_min(200));
    ck_assert_uint_ge(st.waits[TSCHED_VCLOS_WAIT_NETWORK], tu_min(20));
    ck_assert_uint_ge(st.waits[TSCHED_VCLOS_WAIT_GPU], tu_min(20));
    ck_assert_uint_eq(st.waits[TSCHED_VCLOS_WAIT_TIMEOUT], 0);
}
END_TEST

START_TEST(formulations_agree)
{
    stats st;
    memset(&st, 0, sizeof st);
    for (uint64_t seed = 1001; seed <= 1000 + tu_n(70); seed++)
        scenario(seed, 1, 1, &st);
    fprintf(stderr, "formulations: %u shape instances (paper, reduced, brute force; class ILP chose %u)\n",
            st.models, st.allocs[2]);
    ck_assert_uint_ge(st.models, tu_min(300));
}
END_TEST

/* ---- determinism ---- */

static char *dump(const tsched_vclos *v)
{
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(cap, 1);
    for (uint32_t i = 0; i < tsched_vclos_num_jobs(v); i++) {
        const char *name = tsched_vclos_job_name(v, i);
        tsched_vclos_jobinfo info = {.size = sizeof info};
        ck_assert_ok(tsched_vclos_job_info(&info, v, name));
        uint32_t buf[4096];
        size_t cnt;
        len += (size_t)snprintf(out + len, cap - len, "%s st%u l%u s%u obj%lld opt%d n:", name, info.stage,
                                info.leaves, info.vspines, (long long)info.objective, info.optimal);
        ck_assert_ok(tsched_vclos_job_nodes(buf, 4096, &cnt, v, name));
        for (size_t k = 0; k < cnt && len < cap - 64; k++)
            len += (size_t)snprintf(out + len, cap - len, " %u", buf[k]);
        ck_assert_ok(tsched_vclos_job_links(buf, 4096, &cnt, v, name));
        for (size_t k = 0; k < cnt && len < cap - 64; k++)
            len += (size_t)snprintf(out + len, cap - len, " %u", buf[k]);
        len += (size_t)snprintf(out + len, cap - len, "\n");
        ck_assert_uint_lt(len, cap - 64);
    }
    return out;
}

/* A random run on a 16 x 8 x 2 fabric; returns the dump after every step joined. */
static char *det_run(const tsched_topology *t, uint64_t seed)
{
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    ck_assert_ok(tsched_vclos_set_time_limit_ms(v, 0));
    ts_rng rng;
    ts_rng_seed(&rng, seed);
    size_t cap = 1 << 20, len = 0;
    char *all = calloc(cap, 1);
    for (uint32_t op = 0; op < 60; op++) {
        char name[16];
        uint32_t nj = tsched_vclos_num_jobs(v);
        if (nj && ts_rng_below(&rng, 3) == 0) {
            snprintf(name, sizeof name, "%s", tsched_vclos_job_name(v, (uint32_t)ts_rng_below(&rng, nj)));
            ck_assert_ok(tsched_vclos_release(v, name));
        } else {
            snprintf(name, sizeof name, "d%u", op);
            tsched_vclos_outcome out;
            ck_assert_ok(tsched_vclos_allocate(v, name, 4 * (1 + (uint32_t)ts_rng_below(&rng, 12)), &out));
            len += (size_t)snprintf(all + len, cap - len, "%s -> %d\n", name, (int)out);
        }
        char *d = dump(v);
        size_t dl = strlen(d);
        ck_assert_uint_lt(len + dl, cap);
        memcpy(all + len, d, dl + 1);
        len += dl;
        free(d);
    }
    check_recount(v);
    tsched_vclos_free(v);
    return all;
}

START_TEST(determinism)
{
    tsched_topology *t = tu_leaf_spine(16, 8, 2, 4, 4, 4);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char *a = det_run(t, seed), *b = det_run(t, seed);
        ck_assert_str_eq(a, b);
        free(a);
        free(b);
    }
    tsched_topology_free(t);
}
END_TEST

/* ---- pow2 shapes on a fabric where only a non-power-of-two shape fits ---- */

START_TEST(pow2_shapes)
{
    /* 6 leaves x 2 nodes, 2 GPUs/NICs per node, 4 spines x 1: Q = 6 nodes. Shapes (l, q):
     * (3, 2) with s = 4 fits on an empty fabric; pow2 allows only (2, 3) (q = 3 > 2 nodes
     * per leaf: not a shape) and (6, 1)... 6 is not a power of two: no shape, gpu wait. */
    tsched_topology *t = tu_leaf_spine(6, 4, 1, 2, 2, 2);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_vclos_outcome out;
    ck_assert_ok(tsched_vclos_set_shapes(v, TSCHED_VCLOS_SHAPES_POW2));
    ck_assert_ok(tsched_vclos_allocate(v, "a", 12, &out));
    ck_assert_int_eq(out, TSCHED_VCLOS_WAIT_GPU);
    ck_assert_ok(tsched_vclos_allocate(v, "b", 8, &out)); /* Q = 4: (2, 2) */
    ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
    tsched_vclos_jobinfo info = {.size = sizeof info};
    ck_assert_ok(tsched_vclos_job_info(&info, v, "b"));
    ck_assert_uint_eq(info.stage, 2);
    ck_assert_uint_eq(info.leaves, 2);
    ck_assert_uint_eq(info.vspines, 4);
    ck_assert_ok(tsched_vclos_release(v, "b"));
    ck_assert_ok(tsched_vclos_set_shapes(v, TSCHED_VCLOS_SHAPES_ALL));
    ck_assert_ok(tsched_vclos_allocate(v, "a", 12, &out));
    ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
    ck_assert_ok(tsched_vclos_job_info(&info, v, "a"));
    ck_assert_uint_eq(info.leaves, 3);
    ck_assert_uint_eq(info.vspines, 4);
    /* empty fabric: all leaves RSN 2, all spines RPN 6: 3 * 2 * 2 + 4 * 6 */
    ck_assert_int_eq(info.objective, 36);
    check_recount(v);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* ---- the time limit ---- */

START_TEST(time_limit)
{
    /* 2,048 GPUs (64 x 32 x 1), random occupancy, 1 ms per allocation: answers may be
     * unproven or time out, but every allocation is valid and contention-free. */
    tsched_topology *t = tu_leaf_spine(64, 32, 1, 4, 8, 8);
    ts_rng rng;
    ts_rng_seed(&rng, 7);
    /* a fifth of the members down: every leaf its own class, the ILPs are large */
    for (uint32_t m = 0; m < tsched_topology_num_members(t); m++)
        if (ts_rng_below(&rng, 5) == 0)
            ck_assert_ok(tsched_topology_set_member_up(t, m, 0));
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    ck_assert_ok(tsched_vclos_set_time_limit_ms(v, 1));
    vc_stage2_force_ilp = 1; /* every shape through GLPK: the limit bites */
    uint32_t counts[4] = {0}, unproven = 0;
    for (uint32_t op = 0; op < 150; op++) {
        char name[16];
        uint32_t nj = tsched_vclos_num_jobs(v);
        if (nj > 6 && ts_rng_below(&rng, 3) == 0) {
            snprintf(name, sizeof name, "%s", tsched_vclos_job_name(v, (uint32_t)ts_rng_below(&rng, nj)));
            ck_assert_ok(tsched_vclos_release(v, name));
            continue;
        }
        snprintf(name, sizeof name, "t%u", op);
        static const uint32_t lim[] = {1, 2, 4, 8};
        ck_assert_ok(tsched_vclos_set_time_limit_ms(v, lim[ts_rng_below(&rng, 4)]));
        tsched_vclos_outcome out;
        uint32_t q = 1u << (1 + ts_rng_below(&rng, 6));
        ck_assert_ok(tsched_vclos_allocate(v, name, 8 * q, &out));
        counts[out]++;
        if (out == TSCHED_VCLOS_ALLOCATED) {
            tsched_vclos_jobinfo info = {.size = sizeof info};
            ck_assert_ok(tsched_vclos_job_info(&info, v, name));
            ck_assert_uint_eq(info.nodes, q);
            unproven += !info.optimal;
        }
    }
    vc_stage2_force_ilp = 0;
    check_recount_stride(v, 13);
    fprintf(stderr, "time limit 1 ms: %u allocated (%u unproven), %u gpu, %u network, %u timeout\n", counts[0],
            unproven, counts[1], counts[2], counts[3]);
    /* every reservation exclusive, every node held once */
    fab f;
    fab_init(&f, t, 1, 4, 8, 8);
    snap s;
    snap_take(&s, &f, v);
    snap_free(&s);
    f.t = NULL;
    tsched_vclos_free(v);
    fab_free(&f);
    tsched_topology_free(t);
}
END_TEST

/* ---- bad inputs and rejections ---- */

START_TEST(bad_inputs)
{
    tsched_topology *t = tu_leaf_spine(4, 8, 1, 2, 4, 4);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_vclos_outcome out;
    ck_assert_status(tsched_vclos_allocate(v, "a", 0, &out), TSCHED_E_RANGE);
    ck_assert_errmsg_has("gpus: 0");
    ck_assert_status(tsched_vclos_allocate(v, "a", 33, &out), TSCHED_E_RANGE);
    ck_assert_errmsg_has("gpus: 33");
    ck_assert_status(tsched_vclos_allocate(v, "", 4, &out), TSCHED_E_RANGE);
    ck_assert_status(tsched_vclos_allocate(v, "a~b", 4, &out), TSCHED_E_RANGE);
    ck_assert_status(tsched_vclos_allocate(v, NULL, 4, &out), TSCHED_E_INVALID);
    ck_assert_ok(tsched_vclos_allocate(v, "a", 32, &out));
    ck_assert_int_eq(out, TSCHED_VCLOS_ALLOCATED);
    ck_assert_status(tsched_vclos_allocate(v, "a", 4, &out), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("\"a\"");
    ck_assert_uint_eq(tsched_vclos_num_jobs(v), 1);
    ck_assert_status(tsched_vclos_release(v, "zz"), TSCHED_E_NOT_FOUND);
    ck_assert_ok(tsched_vclos_release(v, "a"));
    ck_assert_uint_eq(tsched_vclos_num_jobs(v), 0);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

START_TEST(new_rejects)
{
    tsched_vclos *v = (tsched_vclos *)1;
    /* clos3 */
    tsched_topology *t = tu_gen_clos3(2, 2, 2, 2, 1, 2, 0, 100, 0);
    ck_assert_status(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tier 2");
    ck_assert_ptr_null(v);
    tsched_topology_free(t);
    /* rails and mixed nodes, built by hand */
    for (int which = 0; which < 3; which++) {
        t = tu_two_leaves_start("x", 1, 100);
        uint32_t n0;
        ck_assert_ok(tsched_topology_add_node(&n0, t, "node0", "leaf0", 2, 2, NULL, 100));
        ck_assert_ok(tsched_topology_add_node(NULL, t, "node1", "leaf1", which == 1 ? 4 : 2, which == 2 ? 1 : 2,
                                              NULL, 100));
        if (which == 0) {
            const char *rails[] = {"leaf0", "leaf1"};
            ck_assert_ok(tsched_topology_set_rails(t, n0, rails, 2));
        }
        ck_assert_ok(tsched_topology_build(t));
        ck_assert_status(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS), TSCHED_E_INVALID);
        ck_assert_errmsg_has(which == 0 ? "rails" : which == 1 ? "same gpus" : "same nics");
        ck_assert_ptr_null(v);
        tsched_topology_free(t);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("vclos");
    const char *names[] = {"brute", "models", "determinism", "limit", "misc"};
    TCase *tc[5];
    for (int i = 0; i < 5; i++) {
        tc[i] = tcase_create(names[i]);
        tcase_set_timeout(tc[i], 600);
        suite_add_tcase(s, tc[i]);
    }
    tcase_add_test(tc[0], brute_force_small);
    tcase_add_test(tc[1], formulations_agree);
    tcase_add_test(tc[2], determinism);
    tcase_add_test(tc[3], time_limit);
    tcase_add_test(tc[4], pow2_shapes);
    tcase_add_test(tc[4], bad_inputs);
    tcase_add_test(tc[4], new_rejects);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
