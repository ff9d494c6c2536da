/* The fluid-sharing kernel (src/common/fluid.c), the library's one max-min solver:
 * - against an exact reference (progressive filling in rational arithmetic, every tie
 *   resolved exactly) on seeded random incidences with priority levels, zero-capacity links,
 *   flows with no link, duplicate links and long flows; its answer also checked against the
 *   optimality conditions directly, its sums against the capacities, and its own residue
 *   exactly 0 on every link the exact answer saturates;
 * - incremental re-solves of the touched components against full solves, bit for bit, after
 *   random additions, removals, level and capacity changes;
 * - bad sizes and input refused with a status and a message;
 * - its two users: tsched_rates_maxmin (routing) and the simulator's rates for the same
 *   flows on the same paths, bit for bit, on seeded random fabrics and jobs. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fluid.h"
#include "common/rng.h"
#include "sim/sim_internal.h"
#include "test_util.h"

/* ---- exact rationals (the reference) ------------------------------------------------------ */

__extension__ typedef __int128 i128; /* products of two 60-bit numbers */

typedef struct q {
    i128 n, d; /* d > 0, reduced */
} q;

static int q_overflow; /* a case whose numbers grew too large is skipped, and counted */

static i128 gcd128(i128 a, i128 b)
{
    if (a < 0)
        a = -a;
    while (b) {
        i128 t = a % b;
        a = b;
        b = t;
    }
    return a ? a : 1;
}

static q q_make(i128 n, i128 d)
{
    if (d < 0)
        n = -n, d = -d;
    i128 g = gcd128(n, d);
    q r = {n / g, d / g};
    const i128 lim = (i128)1 << 60;
    if (r.n > lim || r.n < -lim || r.d > lim)
        q_overflow = 1;
    return r;
}

static q q_sub(q a, q b) { return q_overflow ? a : q_make(a.n * b.d - b.n * a.d, a.d * b.d); }
static q q_divu(q a, uint32_t k) { return q_overflow ? a : q_make(a.n, a.d * k); }
static int q_cmp(q a, q b)
{
    i128 x = a.n * b.d, y = b.n * a.d;
    return x < y ? -1 : x > y;
}
static double q_dbl(q a) { return (double)a.n / (double)a.d; }

/* ---- a random incidence ------------------------------------------------------------------- */

typedef struct inst {
    uint32_t nf, nl;
    uint32_t *foff, *flink, *lev;
    double *cap;
    int64_t *icap; /* the capacities, whole numbers (so the reference is exact) */
} inst;

static void inst_free(inst *c)
{
    free(c->foff);
    free(c->flink);
    free(c->lev);
    free(c->cap);
    free(c->icap);
}

/* Up to 14 flows on up to 10 links: lengths 0-5 (0: no link) with repeats allowed, now and
 * then one of 33-40 links (the long-flow records); capacities 0-6 times a scale, levels from
 * one of three shapes (one level, a few, spread far apart). */
static inst inst_random(ts_rng *r)
{
    inst c = {0};
    c.nl = (uint32_t)ts_rng_below(r, 11);
    c.nf = (uint32_t)ts_rng_below(r, 15);
    c.foff = calloc(c.nf + 1, sizeof *c.foff);
    c.flink = calloc((size_t)c.nf * 40 + 1, sizeof *c.flink);
    c.lev = calloc(c.nf + 1, sizeof *c.lev);
    c.cap = calloc(c.nl + 1, sizeof *c.cap);
    c.icap = calloc(c.nl + 1, sizeof *c.icap);
    int64_t scale = ts_rng_below(r, 2) ? 1 : 1000;
    for (uint32_t l = 0; l < c.nl; l++) {
        c.icap[l] = (int64_t)ts_rng_below(r, 7) * scale;
        c.cap[l] = (double)c.icap[l];
    }
    int shape = (int)ts_rng_below(r, 3);
    uint32_t k = 0;
    for (uint32_t i = 0; i < c.nf; i++) {
        c.foff[i] = k;
        uint32_t len = c.nl == 0 ? 0 : ts_rng_below(r, 25) == 0 ? 33 + (uint32_t)ts_rng_below(r, 8)
                                                                 : (uint32_t)ts_rng_below(r, 6);
        for (uint32_t j = 0; j < len; j++)
            c.flink[k++] = (uint32_t)ts_rng_below(r, c.nl);
        c.lev[i] = shape == 0 ? 0 : shape == 1 ? (uint32_t)ts_rng_below(r, 3) : (uint32_t)ts_rng_below(r, 3) * 500000;
    }
    c.foff[c.nf] = k;
    return c;
}

/* Progressive filling, exact: level by level, the smallest share over the links carrying
 * unfrozen flows of the level, every such flow crossing a link at that share frozen at it
 * (all ties at once), its share taken off each link it crosses, once per crossing. */
static void reference(q *rate, int *inf, q *rem, const inst *c)
{
    uint32_t *cnt = calloc(c->nl + 1, sizeof *cnt);
    char *frozen = calloc(c->nf + 1, 1);
    for (uint32_t l = 0; l < c->nl; l++)
        rem[l] = q_make(c->icap[l] > 0 ? c->icap[l] : 0, 1);
    uint32_t maxlev = 0;
    for (uint32_t i = 0; i < c->nf; i++) {
        inf[i] = c->foff[i] == c->foff[i + 1];
        frozen[i] = (char)inf[i];
        maxlev = c->lev[i] > maxlev ? c->lev[i] : maxlev;
    }
    for (uint32_t v = 0; v <= maxlev; v++) {
        size_t left = 0;
        for (uint32_t i = 0; i < c->nf; i++)
            if (!frozen[i] && c->lev[i] == v) {
                left++;
                for (uint32_t k = c->foff[i]; k < c->foff[i + 1]; k++)
                    cnt[c->flink[k]]++;
            }
        while (left && !q_overflow) {
            q best = {0, 0};
            for (uint32_t l = 0; l < c->nl; l++)
                if (cnt[l]) {
                    q s = q_divu(rem[l], cnt[l]);
                    if (best.d == 0 || q_cmp(s, best) < 0)
                        best = s;
                }
            char *hit = calloc(c->nf + 1, 1);
            for (uint32_t i = 0; i < c->nf; i++) {
                if (frozen[i] || c->lev[i] != v)
                    continue;
                for (uint32_t k = c->foff[i]; k < c->foff[i + 1] && !hit[i]; k++)
                    hit[i] = q_cmp(q_divu(rem[c->flink[k]], cnt[c->flink[k]]), best) == 0;
            }
            for (uint32_t i = 0; i < c->nf; i++)
                if (hit[i]) {
                    frozen[i] = 1;
                    rate[i] = best;
                    left--;
                    for (uint32_t k = c->foff[i]; k < c->foff[i + 1]; k++) {
                        rem[c->flink[k]] = q_sub(rem[c->flink[k]], best);
                        cnt[c->flink[k]]--;
                    }
                }
            free(hit);
        }
        memset(cnt, 0, (c->nl + 1) * sizeof *cnt);
    }
    free(cnt);
    free(frozen);
}

/* The conditions that define the answer, checked on the kernel's doubles: every link's load
 * (with repeats) within its capacity; every flow with a link has one on which the levels up
 * to its own fill the capacity and no flow of its level gets more. */
static void check_conditions(const inst *c, const double *rate, uint64_t seed)
{
    for (uint32_t i = 0; i < c->nf; i++) {
        if (c->foff[i] == c->foff[i + 1]) {
            ck_assert_msg(isinf(rate[i]), "seed %llu: flow %u has no link but rate %g", (unsigned long long)seed, i,
                          rate[i]);
            continue;
        }
        ck_assert_msg(rate[i] >= 0 && isfinite(rate[i]), "seed %llu: flow %u rate %g", (unsigned long long)seed, i,
                      rate[i]);
    }
    double *load = calloc(c->nl + 1, sizeof *load);
    for (uint32_t i = 0; i < c->nf; i++)
        for (uint32_t k = c->foff[i]; k < c->foff[i + 1]; k++)
            load[c->flink[k]] += rate[i];
    for (uint32_t l = 0; l < c->nl; l++)
        ck_assert_msg(load[l] <= c->cap[l] * (1 + 1e-12), "seed %llu: link %u carries %.17g > cap %.17g",
                      (unsigned long long)seed, l, load[l], c->cap[l]);
    for (uint32_t i = 0; i < c->nf; i++) {
        if (c->foff[i] == c->foff[i + 1])
            continue;
        int ok = 0;
        for (uint32_t k = c->foff[i]; k < c->foff[i + 1] && !ok; k++) {
            uint32_t l = c->flink[k];
            double up = 0, most = 0;
            for (uint32_t j = 0; j < c->nf; j++)
                for (uint32_t m = c->foff[j]; m < c->foff[j + 1]; m++)
                    if (c->flink[m] == l) {
                        if (c->lev[j] <= c->lev[i])
                            up += rate[j];
                        if (c->lev[j] == c->lev[i] && rate[j] > most)
                            most = rate[j];
                    }
            ok = up >= c->cap[l] * (1 - 1e-9) && rate[i] >= most * (1 - 1e-9);
        }
        ck_assert_msg(ok, "seed %llu: flow %u (level %u, rate %.17g) has no bottleneck link", (unsigned long long)seed,
                      i, c->lev[i], rate[i]);
    }
    free(load);
}

START_TEST(kernel_matches_exact_reference)
{
    ts_fluid *w = NULL, *fresh = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    unsigned cases = tu_nv(4000), checked = 0, skipped = 0, saturated = 0, far = 0, levels = 0, zero_cap = 0;
    for (unsigned cs = 0; cs < cases; cs++) {
        ts_rng r;
        ts_rng_seed(&r, 1000 + cs);
        inst c = inst_random(&r);
        double *rate = calloc(c.nf + 1, sizeof *rate), *rate2 = calloc(c.nf + 1, sizeof *rate2);
        q *qr = calloc(c.nf + 1, sizeof *qr), *qrem = calloc(c.nl + 1, sizeof *qrem);
        int *inf = calloc(c.nf + 1, sizeof *inf);
        ck_assert_ok(ts_fluid_solve(w, rate, c.nf, c.foff, c.flink, c.lev, c.nl, c.cap));
        uint32_t nres;
        const double *res = ts_fluid_residue(w, &nres);
        ck_assert_uint_eq(nres, c.nl);
        check_conditions(&c, rate, 1000 + cs);
        q_overflow = 0;
        reference(qr, inf, qrem, &c);
        if (q_overflow) {
            skipped++;
        } else {
            checked++;
            double maxcap = 1;
            for (uint32_t l = 0; l < c.nl; l++)
                maxcap = c.cap[l] > maxcap ? c.cap[l] : maxcap;
            for (uint32_t i = 0; i < c.nf; i++) {
                if (inf[i]) {
                    ck_assert(isinf(rate[i]));
                    continue;
                }
                double want = q_dbl(qr[i]);
                ck_assert_msg(fabs(rate[i] - want) <= 1e-12 * maxcap, "case %u flow %u: %.17g, exact %.17g", cs, i,
                              rate[i], want);
            }
            /* exact zero residue in the kernel's own accounting wherever the exact answer
             * saturates a link; elsewhere its residue is the exact one, to rounding */
            for (uint32_t l = 0; l < c.nl; l++) {
                if (qrem[l].n == 0) {
                    ck_assert_msg(res[l] == 0.0, "case %u: link %u saturated, residue %.17g", cs, l, res[l]);
                    saturated++;
                } else {
                    ck_assert_msg(fabs(res[l] - q_dbl(qrem[l])) <= 1e-12 * maxcap, "case %u: link %u residue %.17g, exact %.17g",
                                  cs, l, res[l], q_dbl(qrem[l]));
                }
                zero_cap += c.icap[l] == 0;
            }
        }
        for (uint32_t i = 0; i < c.nf; i++) {
            far += c.foff[i + 1] - c.foff[i] > 32;
            levels += c.lev[i] != c.lev[0];
        }
        /* a fresh workspace gives the same bits as one reused over every earlier size */
        if (cs % 7 == 0) {
            ck_assert_ok(ts_fluid_new(&fresh));
            ck_assert_ok(ts_fluid_solve(fresh, rate2, c.nf, c.foff, c.flink, c.lev, c.nl, c.cap));
            ck_assert_msg(c.nf == 0 || !memcmp(rate, rate2, c.nf * sizeof *rate), "case %u: fresh workspace differs", cs);
            ts_fluid_free(fresh);
        }
        inst_free(&c);
        free(rate);
        free(rate2);
        free(qr);
        free(qrem);
        free(inf);
    }
    /* the cases covered what they are for */
    ck_assert_msg(checked >= cases * 9 / 10, "only %u of %u cases checked exactly (%u overflowed)", checked, cases,
                  skipped);
    ck_assert_uint_gt(saturated, cases);
    ck_assert_uint_gt(far, 20);
    ck_assert_uint_gt(levels, cases);
    ck_assert_uint_gt(zero_cap, cases / 4);
    ts_fluid_free(w);
}
END_TEST

/* The answer does not depend on the order of the flows: the same incidence with its flows
 * shuffled gives each flow the same bits (ties fall by link, never by flow). */
START_TEST(kernel_ignores_flow_order)
{
    ts_fluid *w = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    for (unsigned cs = 0; cs < tu_n(1000); cs++) {
        ts_rng r;
        ts_rng_seed(&r, 77000 + cs);
        inst c = inst_random(&r);
        uint32_t *perm = calloc(c.nf + 1, sizeof *perm), *foff = calloc(c.nf + 1, sizeof *foff);
        uint32_t *flink = calloc(c.foff[c.nf] + 1, sizeof *flink), *lev = calloc(c.nf + 1, sizeof *lev);
        double *a = calloc(c.nf + 1, sizeof *a), *b = calloc(c.nf + 1, sizeof *b);
        for (uint32_t i = 0; i < c.nf; i++)
            perm[i] = i;
        ts_rng_shuffle_u32(&r, perm, c.nf);
        uint32_t k = 0;
        for (uint32_t p = 0; p < c.nf; p++) {
            uint32_t i = perm[p];
            foff[p] = k;
            lev[p] = c.lev[i];
            for (uint32_t m = c.foff[i]; m < c.foff[i + 1]; m++)
                flink[k++] = c.flink[m];
        }
        foff[c.nf] = k;
        ck_assert_ok(ts_fluid_solve(w, a, c.nf, c.foff, c.flink, c.lev, c.nl, c.cap));
        ck_assert_ok(ts_fluid_solve(w, b, c.nf, foff, flink, lev, c.nl, c.cap));
        for (uint32_t p = 0; p < c.nf; p++)
            ck_assert_msg(!memcmp(&b[p], &a[perm[p]], sizeof b[p]), "case %u: flow %u: %.17g vs %.17g", cs, perm[p],
                          b[p], a[perm[p]]);
        inst_free(&c);
        free(perm);
        free(foff);
        free(flink);
        free(lev);
        free(a);
        free(b);
    }
    ts_fluid_free(w);
}
END_TEST

/* ---- incremental re-solve ------------------------------------------------------------------ */

#define NET_LINKS 40
#define NET_FLOWS 60

typedef struct tnet {
    double cap[NET_LINKS];
    uint32_t *lf[NET_LINKS], nlf[NET_LINKS];  /* flows on each link, repeats included */
    uint32_t links[NET_FLOWS][6], nlinks[NET_FLOWS], level[NET_FLOWS];
    int active[NET_FLOWS];
    double rate[NET_FLOWS];                    /* as the incremental solves left them */
} tnet;

static const uint32_t *tn_link_flows(void *ctx, uint32_t l, uint32_t *n)
{
    tnet *t = ctx;
    *n = t->nlf[l];
    return t->lf[l];
}

static const uint32_t *tn_flow_links(void *ctx, uint32_t f, uint32_t *n, uint32_t *level)
{
    tnet *t = ctx;
    *n = t->nlinks[f];
    *level = t->level[f];
    return t->links[f];
}

static double tn_cap(void *ctx, uint32_t l) { return ((tnet *)ctx)->cap[l]; }

static void tn_add(tnet *t, uint32_t f, ts_rng *r, uint32_t *touched, uint32_t *nt)
{
    t->active[f] = 1;
    t->nlinks[f] = 1 + (uint32_t)ts_rng_below(r, 6);
    t->level[f] = (uint32_t)ts_rng_below(r, 3);
    for (uint32_t k = 0; k < t->nlinks[f]; k++) {
        uint32_t l = (uint32_t)ts_rng_below(r, NET_LINKS);
        t->links[f][k] = l;
        t->lf[l] = realloc(t->lf[l], (t->nlf[l] + 1) * sizeof *t->lf[l]);
        t->lf[l][t->nlf[l]++] = f;
        touched[(*nt)++] = l;
    }
}

static void tn_remove(tnet *t, uint32_t f, uint32_t *touched, uint32_t *nt)
{
    for (uint32_t k = 0; k < t->nlinks[f]; k++) {
        uint32_t l = t->links[f][k];
        for (uint32_t j = 0; j < t->nlf[l]; j++)
            if (t->lf[l][j] == f) {
                t->lf[l][j] = t->lf[l][--t->nlf[l]];
                break;
            }
        touched[(*nt)++] = l;
    }
    t->active[f] = 0;
    t->nlinks[f] = 0;
}

START_TEST(incremental_equals_full_solve)
{
    ts_fluid *w = NULL, *full = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    ck_assert_ok(ts_fluid_new(&full));
    uint64_t solved_flows = 0, batches = 0, untouched_checked = 0;
    for (unsigned run = 0; run < tu_nv(40); run++) {
        ts_rng r;
        ts_rng_seed(&r, 5000 + run);
        tnet *t = calloc(1, sizeof *t);
        for (uint32_t l = 0; l < NET_LINKS; l++)
            t->cap[l] = (double)ts_rng_below(&r, 5) * 25 + (ts_rng_below(&r, 4) ? 0 : 1.0 / 3);
        ts_fluid_net net = {t, NET_LINKS, NET_FLOWS, tn_link_flows, tn_flow_links, tn_cap};
        for (unsigned step = 0; step < 150; step++) {
            uint32_t touched[64], nt = 0;
            unsigned ops = 1 + (unsigned)ts_rng_below(&r, 3);
            for (unsigned o = 0; o < ops; o++) {
                uint32_t f = (uint32_t)ts_rng_below(&r, NET_FLOWS), what = (uint32_t)ts_rng_below(&r, 10);
                if (what == 0) { /* a capacity changes */
                    uint32_t l = (uint32_t)ts_rng_below(&r, NET_LINKS);
                    t->cap[l] = (double)ts_rng_below(&r, 5) * 25;
                    touched[nt++] = l;
                } else if (what == 1 && t->active[f]) { /* a level changes */
                    t->level[f] = (uint32_t)ts_rng_below(&r, 3);
                    for (uint32_t k = 0; k < t->nlinks[f]; k++)
                        touched[nt++] = t->links[f][k];
                } else if (t->active[f]) {
                    tn_remove(t, f, touched, &nt);
                } else {
                    tn_add(t, f, &r, touched, &nt);
                }
            }
            const uint32_t *fi;
            const double *rt;
            size_t n;
            ck_assert_ok(ts_fluid_solve_touched(w, &net, touched, nt, &fi, &rt, &n));
            batches++;
            solved_flows += n;
            for (size_t i = 0; i < n; i++) {
                ck_assert(t->active[fi[i]]);
                if (i)
                    ck_assert_uint_lt(fi[i - 1], fi[i]);
                t->rate[fi[i]] = rt[i];
            }
            /* the whole network solved at once, links by id */
            uint32_t foff[NET_FLOWS + 1], flink[NET_FLOWS * 6], lev[NET_FLOWS], ids[NET_FLOWS], nf = 0, k = 0;
            for (uint32_t f = 0; f < NET_FLOWS; f++)
                if (t->active[f]) {
                    ids[nf] = f;
                    lev[nf] = t->level[f];
                    foff[nf++] = k;
                    for (uint32_t j = 0; j < t->nlinks[f]; j++)
                        flink[k++] = t->links[f][j];
                }
            foff[nf] = k;
            double want[NET_FLOWS];
            ck_assert_ok(ts_fluid_solve(full, want, nf, foff, flink, lev, NET_LINKS, t->cap));
            for (uint32_t i = 0; i < nf; i++) {
                ck_assert_msg(!memcmp(&want[i], &t->rate[ids[i]], sizeof want[i]),
                              "run %u step %u: flow %u incremental %.17g, full %.17g", run, step, ids[i],
                              t->rate[ids[i]], want[i]);
                untouched_checked++;
            }
        }
        for (uint32_t l = 0; l < NET_LINKS; l++)
            free(t->lf[l]);
        free(t);
    }
    /* components were partial: fewer flows solved than checked */
    ck_assert_uint_gt(batches, 0);
    ck_assert_msg(solved_flows < untouched_checked, "%llu flows solved, %llu checked", (unsigned long long)solved_flows,
                  (unsigned long long)untouched_checked);
    ts_fluid_free(w);
    ts_fluid_free(full);
}
END_TEST

/* The list form (a phase alone in the simulator) is the CSR form over the same links. */
START_TEST(lists_equal_csr)
{
    ts_fluid *w = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    for (unsigned cs = 0; cs < tu_n(500); cs++) {
        ts_rng r;
        ts_rng_seed(&r, 9000 + cs);
        tnet *t = calloc(1, sizeof *t);
        for (uint32_t l = 0; l < NET_LINKS; l++)
            t->cap[l] = (double)ts_rng_below(&r, 5) * 10;
        uint32_t nt = 0, touched[NET_FLOWS * 6];
        uint32_t nf = (uint32_t)ts_rng_below(&r, NET_FLOWS);
        for (uint32_t f = 0; f < nf; f++)
            tn_add(t, f, &r, touched, &nt);
        const uint32_t *fl[NET_FLOWS];
        uint32_t foff[NET_FLOWS + 1], flink[NET_FLOWS * 6], k = 0;
        for (uint32_t f = 0; f < nf; f++) {
            fl[f] = t->links[f];
            foff[f] = k;
            for (uint32_t j = 0; j < t->nlinks[f]; j++)
                flink[k++] = t->links[f][j];
        }
        foff[nf] = k;
        double a[NET_FLOWS], b[NET_FLOWS];
        ts_fluid_net net = {t, NET_LINKS, NET_FLOWS, tn_link_flows, tn_flow_links, tn_cap};
        ck_assert_ok(ts_fluid_solve_lists(w, a, nf, fl, t->nlinks, t->level, &net));
        ck_assert_ok(ts_fluid_solve(w, b, nf, foff, flink, t->level, NET_LINKS, t->cap));
        ck_assert(nf == 0 || !memcmp(a, b, nf * sizeof *a));
        for (uint32_t l = 0; l < NET_LINKS; l++)
            free(t->lf[l]);
        free(t);
    }
    ts_fluid_free(w);
}
END_TEST

/* ---- bad input ----------------------------------------------------------------------------- */

static uint32_t bad_flow_id[1] = {7};
static const uint32_t *bad_link_flows(void *ctx, uint32_t l, uint32_t *n)
{
    (void)ctx, (void)l;
    *n = 1;
    return bad_flow_id;
}

START_TEST(bad_input_is_refused)
{
    ts_fluid *w = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    uint32_t foff[3] = {0, 2, 3}, flink[3] = {0, 1, 1}, lev[2] = {0, 0};
    double cap[2] = {10, 20}, rate[2] = {-1, -1};
    ck_assert_status(ts_fluid_solve(w, rate, 2, foff, flink, lev, TS_FLUID_MAX_LINKS + 1, cap), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("nlinks");
    uint32_t bad[3] = {0, 2, 3};
    ck_assert_status(ts_fluid_solve(w, rate, 2, foff, bad, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flink[1] = 2");
    uint32_t down[3] = {0, 3, 2};
    ck_assert_status(ts_fluid_solve(w, rate, 2, down, flink, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert_errmsg_has("foff[2]");
    cap[1] = NAN;
    ck_assert_status(ts_fluid_solve(w, rate, 2, foff, flink, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert_errmsg_has("cap[1]");
    cap[1] = INFINITY;
    ck_assert_status(ts_fluid_solve(w, rate, 2, foff, flink, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert(rate[0] == -1 && rate[1] == -1); /* nothing written */
    ck_assert_status(ts_fluid_solve(NULL, rate, 2, foff, flink, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert_status(ts_fluid_solve(w, rate, 2, NULL, flink, lev, 2, cap), TSCHED_E_INVALID);
    ck_assert_status(ts_fluid_new(NULL), TSCHED_E_INVALID);
    /* a negative capacity counts as 0 */
    cap[1] = -5;
    ck_assert_ok(ts_fluid_solve(w, rate, 2, foff, flink, NULL, 2, cap));
    ck_assert(rate[0] == 0 && rate[1] == 0);
    cap[1] = 20;
    ck_assert_ok(ts_fluid_solve(w, rate, 2, foff, flink, NULL, 2, cap));
    ck_assert(rate[0] == 10 && rate[1] == 10);
    /* the network forms check ids */
    tnet *t = calloc(1, sizeof *t);
    ts_fluid_net net = {t, NET_LINKS, NET_FLOWS, tn_link_flows, tn_flow_links, tn_cap};
    const uint32_t *fi;
    const double *rt;
    size_t n;
    uint32_t seed = NET_LINKS;
    ck_assert_status(ts_fluid_solve_touched(w, &net, &seed, 1, &fi, &rt, &n), TSCHED_E_INVALID);
    ck_assert_errmsg_has("seeds[0]");
    net.nflows = 3;
    net.link_flows = bad_link_flows;
    seed = 0;
    ck_assert_status(ts_fluid_solve_touched(w, &net, &seed, 1, &fi, &rt, &n), TSCHED_E_INVALID);
    ck_assert_errmsg_has("flow 7");
    net.nlinks = TS_FLUID_MAX_LINKS + 1;
    ck_assert_status(ts_fluid_solve_touched(w, &net, &seed, 1, &fi, &rt, &n), TSCHED_E_TOO_LARGE);
    net.nlinks = 4;
    const uint32_t far[1] = {9}, *fl[1] = {far};
    uint32_t fn[1] = {1};
    ck_assert_status(ts_fluid_solve_lists(w, rate, 1, fl, fn, NULL, &net), TSCHED_E_INVALID);
    ck_assert_errmsg_has("fl[0][0] = 9");
    free(t);
    ts_fluid_free(w);
}
END_TEST

/* ---- routing and the simulator: one kernel, the same rates --------------------------------- */

/* Seeded random leaf-spines and jobs (fixed nodes, explicit flows between random ranks and
 * NICs, their computations ending at different instants so the flows start in several event
 * batches and the simulator's rates come from incremental re-solves). Once every flow is
 * running and none has finished, each flow's rate in the simulator equals, bit for bit,
 * tsched_rates_maxmin's on the same paths. */
START_TEST(routing_and_sim_give_the_same_rates)
{
    static const char *routings[] = {"ecmp", "greedy", "balanced-ecmp"};
    unsigned compared = 0, crossing = 0;
    for (unsigned cs = 0; cs < tu_n(60); cs++) {
        ts_rng r;
        ts_rng_seed(&r, 31000 + cs);
        uint32_t L = 2 + (uint32_t)ts_rng_below(&r, 3), S = 1 + (uint32_t)ts_rng_below(&r, 3);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&r, 2), P = 2 + (uint32_t)ts_rng_below(&r, 3);
        uint32_t E = 1 + (uint32_t)ts_rng_below(&r, 2);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, 8, E);
        tsched_sim *s = NULL;
        ck_assert_ok(tsched_sim_new(&s, t));
        ck_assert_ok(tsched_sim_set_policy(s, TSCHED_SIM_ROUTING, routings[cs % 3]));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_SEED, (double)cs));
        ck_assert_ok(tsched_sim_set_option(s, TSCHED_SIM_CHECK_FULL, 1));
        uint32_t nn = tsched_topology_num_nodes(t), *nodes = malloc(nn * sizeof *nodes), used = 0;
        for (uint32_t v = 0; v < nn; v++)
            nodes[v] = v;
        ts_rng_shuffle_u32(&r, nodes, nn);
        uint32_t njobs = 1 + (uint32_t)ts_rng_below(&r, 3);
        for (uint32_t j = 0; j < njobs && nn - used >= 2; j++) {
            uint32_t k = 2 + (uint32_t)ts_rng_below(&r, nn - used - 1 < 4 ? nn - used - 1 : 4), ji, ph;
            char name[16];
            snprintf(name, sizeof name, "j%u", j);
            tsched_sim_job job = {sizeof job, name, 0, 8 * k, 8, 1, 1000000 + 10000 * (int64_t)j, 0, 1, 0, 0, 0,
                                  NULL, nodes + used, k};
            ck_assert_ok(tsched_sim_add_job(&ji, s, &job));
            tsched_sim_phase p = {sizeof p, -1, 0, 1};
            ck_assert_ok(tsched_sim_job_add_phase(&ph, s, ji, &p));
            uint32_t nfl = 1 + (uint32_t)ts_rng_below(&r, 12);
            for (uint32_t f = 0; f < nfl; f++) {
                uint32_t a = (uint32_t)ts_rng_below(&r, k), b = (uint32_t)ts_rng_below(&r, k - 1);
                b += b >= a;
                ck_assert_ok(tsched_sim_phase_add_flow(s, ji, ph, a, (uint32_t)ts_rng_below(&r, E), b,
                                                       (uint32_t)ts_rng_below(&r, E), 10 + (double)ts_rng_below(&r, 90),
                                                       NULL, 0));
            }
            used += k;
        }
        /* every computation has ended (the last at 1.02 ms); no flow can end before 100 ms */
        ck_assert_ok(tsched_sim_run_until(s, 2000000));
        uint32_t n = 0;
        for (uint32_t fi = 0; fi < s->nflow; fi++)
            n += s->flow[fi].active;
        tsched_flows *fs = NULL;
        ck_assert_ok(tsched_flows_new(&fs));
        tsched_path *paths = calloc(n + 1, sizeof *paths);
        double *simr = calloc(n + 1, sizeof *simr), *rr = calloc(n + 1, sizeof *rr);
        uint32_t m = 0;
        for (uint32_t fi = 0; fi < s->nflow; fi++) {
            const ts_sim_flow *f = &s->flow[fi];
            if (!f->active)
                continue;
            uint32_t end[2], nic[2];
            for (int d = 0; d < 2; d++) { /* the NIC links: first and last */
                uint32_t l = f->links[d ? f->nlinks - 1 : 0], g = (l - s->nfab) / 2, v = 0;
                ck_assert_uint_ge(l, s->nfab);
                ck_assert_uint_eq((l - s->nfab) % 2, (uint32_t)d);
                while (s->nic_base[v + 1] <= g)
                    v++;
                end[d] = v;
                nic[d] = g - s->nic_base[v];
            }
            ck_assert_ok(tsched_flows_add(NULL, fs, NULL, end[0], nic[0], end[1], nic[1], 1.0));
            tsched_path *p = &paths[m];
            p->size = sizeof *p;
            p->switches[0] = tsched_topology_node_nic_leaf(t, end[0], nic[0]);
            p->nswitches = 1;
            for (uint32_t k = 1; k + 1 < f->nlinks; k++) {
                uint32_t l = f->links[k], tr = l / 2;
                ck_assert_uint_lt(l, s->nfab);
                p->links[p->nswitches - 1] = l;
                p->switches[p->nswitches] = l % 2 == 0 ? tsched_topology_trunk_upper(t, tr)
                                                       : tsched_topology_trunk_lower(t, tr);
                p->nswitches++;
            }
            crossing += p->nswitches > 1;
            simr[m++] = f->rate;
        }
        ck_assert_ok(tsched_rates_maxmin(rr, t, fs, paths));
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_msg(!memcmp(&rr[i], &simr[i], sizeof rr[i]), "case %u: flow %u: routing %.17g, simulator %.17g",
                          cs, i, rr[i], simr[i]);
            compared++;
        }
        free(paths);
        free(simr);
        free(rr);
        free(nodes);
        tsched_flows_free(fs);
        tsched_sim_free(s);
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(compared, 200);
    ck_assert_uint_gt(crossing, 100);
}
END_TEST

/* ---- exact ties on symmetric links ------------------------------------------------------- */

/* k links of one capacity C in a ring, each with `a` flows of its own and `b` flows shared
 * with the next link (and, in half the cases, each flow also on a private link of capacity
 * above its share): every link's fair share is C / (a + 2b), and by symmetry every flow gets
 * it. The first bottleneck freezes b flows of each neighbour, whose share is then recomputed
 * as (C - b s) / (a + b): equal to s only up to rounding, so without the kernel's tie rule
 * the flows of the next links come out an ulp apart. Checked bit for bit, on both the
 * incidence and the lists entry points. */
static double array_cap(void *ctx, uint32_t l) { return ((const double *)ctx)[l]; }

START_TEST(symmetric_links_give_equal_rates)
{
    ts_fluid *w = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    unsigned off_by_rounding = 0;
    for (unsigned cs = 0; cs < tu_n(400); cs++) {
        ts_rng r;
        ts_rng_seed(&r, 41000 + cs);
        uint32_t k = 2 + (uint32_t)ts_rng_below(&r, 7), a = (uint32_t)ts_rng_below(&r, 4);
        uint32_t b = 1 + (uint32_t)ts_rng_below(&r, 4), priv = (uint32_t)ts_rng_below(&r, 2);
        double C = (double)(1 + ts_rng_below(&r, 1000000)) / (double)(3 + ts_rng_below(&r, 97));
        uint32_t per = a + b, nf = k * per, nl = k + (priv ? nf : 0);
        uint32_t *foff = calloc(nf + 1, sizeof *foff), *flink = calloc((size_t)nf * 3, sizeof *flink);
        const uint32_t **fl = calloc(nf, sizeof *fl);
        uint32_t *fn = calloc(nf, sizeof *fn);
        double *cap = calloc(nl, sizeof *cap), *x = calloc(nf, sizeof *x), *y = calloc(nf, sizeof *y);
        ck_assert(foff && flink && fl && fn && cap && x && y);
        for (uint32_t l = 0; l < nl; l++)
            cap[l] = l < k ? C : C * 2; /* private links never bind */
        uint32_t m = 0;
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t j = 0; j < per; j++) {
                uint32_t f = i * per + j;
                foff[f] = m;
                flink[m++] = i;
                if (j >= a) /* shared with the next link of the ring */
                    flink[m++] = (i + 1) % k;
                if (priv)
                    flink[m++] = k + f;
                fl[f] = flink + foff[f];
                fn[f] = m - foff[f];
            }
        foff[nf] = m;
        ck_assert_ok(ts_fluid_solve(w, x, nf, foff, flink, NULL, nl, cap));
        ts_fluid_net net = {cap, nl, nf, NULL, NULL, array_cap};
        ck_assert_ok(ts_fluid_solve_lists(w, y, nf, fl, fn, NULL, &net));
        double s = C / (double)(a + 2 * b);
        for (uint32_t f = 0; f < nf; f++) {
            ck_assert_msg(!memcmp(&x[f], &x[0], sizeof x[f]), "case %u: flow %u %.17g, flow 0 %.17g", cs, f, x[f],
                          x[0]);
            ck_assert(!memcmp(&x[f], &y[f], sizeof x[f]));
        }
        ck_assert(fabs(x[0] - s) <= 1e-12 * s);
        /* would the rounding have told them apart? (C - b s) / (a + b) against s */
        off_by_rounding += (C - b * s) / (double)(a + b) != s;
        free(foff), free(flink), free(fl), free(fn), free(cap), free(x), free(y);
    }
    ck_assert_uint_gt(off_by_rounding, 20);
    ts_fluid_free(w);
}
END_TEST

/* ---- many levels: a saturated link gives exactly 0 to the levels below (issue 23) --------- */

/* An inst as a network for ts_fluid_solve_touched: per link its flows (repeats kept). */
typedef struct inet {
    const inst *c;
    uint32_t *loff, *lflow;
} inet;

static const uint32_t *in_link_flows(void *ctx, uint32_t l, uint32_t *n)
{
    const inet *t = ctx;
    *n = t->loff[l + 1] - t->loff[l];
    return t->lflow + t->loff[l];
}

static const uint32_t *in_flow_links(void *ctx, uint32_t f, uint32_t *n, uint32_t *level)
{
    const inet *t = ctx;
    *n = t->c->foff[f + 1] - t->c->foff[f];
    *level = t->c->lev[f];
    return t->c->flink + t->c->foff[f];
}

static double in_cap(void *ctx, uint32_t l) { return ((const inet *)ctx)->c->cap[l]; }

/* Up to 40 flows of 1-3 links on up to 6 links of 100-400 Gbit/s (multiples of 25, so the
 * shares are thirds, sevenths, ... with rounding in every subtraction), 3 to 8 levels. */
static inst inst_levels(ts_rng *r)
{
    inst c = {0};
    c.nl = 1 + (uint32_t)ts_rng_below(r, 6);
    c.nf = 1 + (uint32_t)ts_rng_below(r, 40);
    c.foff = calloc(c.nf + 1, sizeof *c.foff);
    c.flink = calloc((size_t)c.nf * 3 + 1, sizeof *c.flink);
    c.lev = calloc(c.nf + 1, sizeof *c.lev);
    c.cap = calloc(c.nl + 1, sizeof *c.cap);
    c.icap = calloc(c.nl + 1, sizeof *c.icap);
    for (uint32_t l = 0; l < c.nl; l++) {
        c.icap[l] = 25 * (4 + (int64_t)ts_rng_below(r, 13));
        c.cap[l] = (double)c.icap[l];
    }
    uint32_t levels = 3 + (uint32_t)ts_rng_below(r, 6), k = 0;
    for (uint32_t i = 0; i < c.nf; i++) {
        c.foff[i] = k;
        for (uint32_t j = 1 + (uint32_t)ts_rng_below(r, 3); j > 0; j--)
            c.flink[k++] = (uint32_t)ts_rng_below(r, c.nl);
        c.lev[i] = (uint32_t)ts_rng_below(r, levels);
    }
    c.foff[c.nf] = k;
    return c;
}

START_TEST(many_levels_exact_zero)
{
    ts_fluid *w = NULL;
    ck_assert_ok(ts_fluid_new(&w));
    unsigned cases = tu_nv(4000), zeros = 0, checked = 0;
    for (unsigned cs = 0; cs < cases; cs++) {
        ts_rng r;
        ts_rng_seed(&r, 777000 + cs);
        inst c = inst_levels(&r);
        double *rate = calloc(c.nf + 1, sizeof *rate);
        q *qr = calloc(c.nf + 1, sizeof *qr), *qrem = calloc(c.nl + 1, sizeof *qrem);
        int *inf = calloc(c.nf + 1, sizeof *inf);
        ck_assert_ok(ts_fluid_solve(w, rate, c.nf, c.foff, c.flink, c.lev, c.nl, c.cap));
        check_conditions(&c, rate, 777000 + cs);
        q_overflow = 0;
        reference(qr, inf, qrem, &c);
        if (!q_overflow) {
            checked++;
            for (uint32_t i = 0; i < c.nf; i++) {
                double want = q_dbl(qr[i]);
                if (qr[i].n == 0) { /* behind a saturated link: exactly nothing, not a residue */
                    ck_assert_msg(rate[i] == 0.0, "case %u flow %u (level %u): %.17g, exact 0", cs, i, c.lev[i],
                                  rate[i]);
                    zeros++;
                } else
                    ck_assert_msg(fabs(rate[i] - want) <= 1e-12 * want, "case %u flow %u: %.17g, exact %.17g", cs, i,
                                  rate[i], want);
            }
        }
        /* the incremental path gives the same bits: every link as a seed, and each link alone
         * (its component) */
        inet t = {&c, calloc(c.nl + 2, sizeof(uint32_t)), calloc(c.foff[c.nf] + 1, sizeof(uint32_t))};
        for (uint32_t k = 0; k < c.foff[c.nf]; k++)
            t.loff[c.flink[k] + 2]++;
        for (uint32_t l = 0; l < c.nl; l++)
            t.loff[l + 2] += t.loff[l + 1];
        for (uint32_t i = 0; i < c.nf; i++)
            for (uint32_t k = c.foff[i]; k < c.foff[i + 1]; k++)
                t.lflow[t.loff[c.flink[k] + 1]++] = i;
        ts_fluid_net net = {&t, c.nl, c.nf, in_link_flows, in_flow_links, in_cap};
        uint32_t *all = calloc(c.nl, sizeof *all);
        for (uint32_t l = 0; l < c.nl; l++)
            all[l] = l;
        for (uint32_t l = 0; l <= c.nl; l++) {
            const uint32_t *fl;
            const double *rt;
            size_t n;
            ck_assert_ok(ts_fluid_solve_touched(w, &net, l < c.nl ? &all[l] : all, l < c.nl ? 1 : c.nl, &fl, &rt, &n));
            for (size_t x = 0; x < n; x++)
                ck_assert_msg(!memcmp(&rt[x], &rate[fl[x]], sizeof *rt),
                              "case %u flow %u: incremental %.17g, full %.17g", cs, fl[x], rt[x], rate[fl[x]]);
        }
        free(all);
        free(t.loff);
        free(t.lflow);
        inst_free(&c);
        free(rate);
        free(qr);
        free(qrem);
        free(inf);
    }
    ck_assert_uint_ge(checked, cases * 9 / 10);
    ck_assert_uint_gt(zeros, cases / 4); /* the cases put flows behind saturated links */
    ts_fluid_free(w);
}
END_TEST

/* The shape: `top` level-0 flows fill a trunk (a third, a fifth, ... of 200 Gbit/s,
 * whose sum rounds), flows of levels 1 to 7 cross it too, each from a NIC link of its own
 * (4000 Gbit/s, never the bottleneck). Each lower flow gets exactly 0 (the simulator once
 * gave 1.1e-13 Gbit/s there, whose end fell past the clock) and the trunk's residue is
 * exactly 0. */
START_TEST(saturated_trunk_gives_lower_levels_zero)
{
    static const double caps[] = {200, 300, 100, 700, 2200};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++)
        for (uint32_t top = 3; top <= 9; top += 2) {
            /* link 0: the trunk; link 1 + i: flow i's own NIC link */
            uint32_t nf = top + 7, foff[17], flink[34], lev[16], k = 0;
            double cap[17];
            cap[0] = caps[ci];
            for (uint32_t i = 0; i < nf; i++) {
                foff[i] = k;
                flink[k++] = 1 + i;
                flink[k++] = 0;
                lev[i] = i < top ? 0 : 1 + (i - top);
                cap[1 + i] = 4000;
            }
            foff[nf] = k;
            double rate[16];
            ts_fluid *w = NULL;
            ck_assert_ok(ts_fluid_new(&w));
            ck_assert_ok(ts_fluid_solve(w, rate, nf, foff, flink, lev, nf + 1, cap));
            for (uint32_t i = 0; i < nf; i++)
                if (i < top)
                    ck_assert_double_eq_tol(rate[i], caps[ci] / top, 1e-12 * caps[ci]);
                else
                    ck_assert_msg(rate[i] == 0.0, "cap %g, %u flows: level %u gets %.17g", caps[ci], top, lev[i],
                                  rate[i]);
            uint32_t nres;
            ck_assert(ts_fluid_residue(w, &nres)[0] == 0.0);
            ts_fluid_free(w);
        }
}
END_TEST

int main(void)
{
    Suite *su = suite_create("fluid");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, kernel_matches_exact_reference);
    tcase_add_test(tc, kernel_ignores_flow_order);
    tcase_add_test(tc, incremental_equals_full_solve);
    tcase_add_test(tc, lists_equal_csr);
    tcase_add_test(tc, bad_input_is_refused);
    tcase_add_test(tc, routing_and_sim_give_the_same_rates);
    tcase_add_test(tc, symmetric_links_give_equal_rates);
    tcase_add_test(tc, many_levels_exact_zero);
    tcase_add_test(tc, saturated_trunk_gives_lower_levels_zero);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
