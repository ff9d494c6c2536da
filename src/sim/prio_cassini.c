/* Priority `cassini` (doc/sim.md "### CASSINI"): CASSINI (Rajasekaran et al., NSDI'24) as the
 * CRUX paper describes it (§6.3, related work): no priority levels (every job at level 0);
 * jobs that share a link get time shifts chosen so that their communication phases
 * interleave on it. After each start or finish, the running jobs that share links (directly
 * or through others) form groups; in each group every job's iteration is a circle whose
 * circumference is its iteration time alone, with its communication window an arc of it;
 * each job's next iteration is delayed (once) by the shift that minimises the overlap of the
 * windows of jobs sharing a link over the next two longest iterations. Shifts are taken from
 * CAS_SLOTS points of each job's circle: every combination for groups of up to
 * CAS_EXHAUSTIVE jobs, else greedily one job at a time (trace order), each given the others
 * placed before it. Ties go to the smaller total shift, so a group already interleaved keeps
 * shift 0 and the shifts are not re-applied at every event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "sim_internal.h"

#define CAS_SLOTS 24     /* candidate shifts per circle */
#define CAS_BINS 512     /* time bins of the horizon the overlap is measured on */
#define CAS_WORDS (CAS_BINS / 64)
#define CAS_EXHAUSTIVE 3 /* groups up to this many jobs: every combination of shifts */

typedef struct cas_job {
    uint32_t ji;
    double base, period, rel, comm; /* ns from now: its next iteration's start; its circle */
    uint64_t bits[CAS_SLOTS][CAS_WORDS]; /* communicating bins per candidate shift */
} cas_job;

/* Job j's circle: its iteration time alone (times the coarsening factor), its communication
 * released at round((1 - overlap) C) and lasting the rest of the iteration alone; when the
 * communication hides under the computation, the window is [release, C) (an upper bound). */
static void circle(cas_job *c, const tsched_sim *s, const ts_sim_job *j)
{
    double g = (double)(j->cur_g ? j->cur_g : 1), comp = (double)j->compute * g;
    c->period = j->iter_alone_s * 1e9 * g;
    if (c->period < comp)
        c->period = comp;
    c->rel = nearbyint((1 - j->overlap) * comp);
    c->comm = c->period > comp ? c->period - c->rel : comp - c->rel;
    /* a fresh iteration (started now, nothing done) can be delayed now; else the next one,
     * expected one iteration alone after this one's start */
    double next = (double)(j->iter_start - s->now) + c->period;
    c->base = j->iter_fresh && j->iter_start == s->now ? 0 : next > 0 ? next : 0;
}

static void fill_bits(cas_job *c, double width)
{
    memset(c->bits, 0, sizeof c->bits);
    for (uint32_t k = 0; k < CAS_SLOTS; k++) {
        double start = c->base + c->period * k / CAS_SLOTS;
        for (uint32_t b = 0; b < CAS_BINS; b++) {
            double t = (b + 0.5) * width - start;
            if (t < 0 || !(c->period > 0))
                continue; /* still in the iteration in progress: not counted */
            double in = fmod(t, c->period);
            if (in >= c->rel && in < c->rel + c->comm)
                c->bits[k][b / 64] |= UINT64_C(1) << (b % 64);
        }
    }
}

static uint32_t overlap(const cas_job *a, uint32_t ka, const cas_job *b, uint32_t kb)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < CAS_WORDS; w++)
        n += (uint32_t)__builtin_popcountll(a->bits[ka][w] & b->bits[kb][w]);
    return n;
}

/* The overlap of the first m jobs of the group at shifts k[], pairs sharing a link only. */
static uint64_t group_cost(const cas_job *c, const uint32_t *k, uint32_t m, const unsigned char *share, uint32_t n,
                           const uint32_t *idx)
{
    uint64_t cost = 0;
    for (uint32_t a = 0; a < m; a++)
        for (uint32_t b = a + 1; b < m; b++)
            if (share[(size_t)idx[a] * n + idx[b]])
                cost += overlap(&c[a], k[a], &c[b], k[b]);
    return cost;
}

static uint32_t total(const uint32_t *k, uint32_t m)
{
    uint32_t t = 0;
    for (uint32_t i = 0; i < m; i++)
        t += k[i];
    return t;
}

/* Shifts of one group of m jobs (run[idx[i]]), into k[]. */
static void choose(uint32_t *k, const cas_job *c, uint32_t m, const unsigned char *share, uint32_t n,
                   const uint32_t *idx)
{
    memset(k, 0, m * sizeof *k);
    if (m <= CAS_EXHAUSTIVE) {
        uint32_t cur[CAS_EXHAUSTIVE] = {0};
        uint64_t best = group_cost(c, k, m, share, n, idx);
        uint32_t best_t = 0;
        for (;;) {
            /* the last job's shift moves fastest: of equal totals, the later jobs move */
            uint32_t i = m;
            while (i > 0 && ++cur[i - 1] == CAS_SLOTS)
                cur[--i] = 0;
            if (i == 0)
                break;
            uint64_t cost = group_cost(c, cur, m, share, n, idx);
            uint32_t t = total(cur, m);
            if (cost < best || (cost == best && t < best_t)) {
                best = cost;
                best_t = t;
                memcpy(k, cur, m * sizeof *k);
            }
        }
        return;
    }
    for (uint32_t a = 1; a < m; a++) { /* greedy: the first job stays at 0 */
        uint64_t best = UINT64_MAX;
        for (uint32_t x = 0; x < CAS_SLOTS && best; x++) {
            uint64_t cost = 0;
            for (uint32_t b = 0; b < a; b++)
                if (share[(size_t)idx[a] * n + idx[b]])
                    cost += overlap(&c[a], x, &c[b], k[b]);
            if (cost < best) {
                best = cost;
                k[a] = x;
            }
        }
    }
}

static uint32_t find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

tsched_status ts_sim_prio_cassini(tsched_sim *s, const ts_sim_prio_ops *self)
{
    (void)self;
    if (s->cr) /* placement crius: no flows */
        return TSCHED_OK;
    /* the running jobs with flows and a known iteration time */
    uint32_t n = 0, *run = ts_malloc(s->njobs ? s->njobs : 1, sizeof *run);
    if (!run)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < s->njobs; i++) {
        const ts_sim_job *j = &s->jobs[i];
        if (j->state == TS_JOB_RUNNING && j->nrflows && j->iter_alone_s > 0)
            run[n++] = i;
    }
    tsched_status st = n == 1 ? ts_sim_shift_iteration(s, run[0], 0) : TSCHED_OK;
    unsigned char *share = n > 1 ? ts_calloc((size_t)n * n, 1) : NULL;
    uint32_t *owner = n > 1 ? ts_malloc(s->nlinks ? s->nlinks : 1, sizeof *owner) : NULL;
    uint32_t *up = n > 1 ? ts_malloc(n, sizeof *up) : NULL, *idx = n > 1 ? ts_malloc(n, sizeof *idx) : NULL;
    uint32_t *k = n > 1 ? ts_malloc(n, sizeof *k) : NULL;
    cas_job *c = n > 1 ? ts_malloc(n, sizeof *c) : NULL;
    if (n > 1 && (!share || !owner || !up || !idx || !k || !c))
        st = TSCHED_E_NOMEM;
    if (st == TSCHED_OK && n > 1) {
        /* who shares a link with whom: the jobs on each link (each job once per link), by a
         * counting sort of (link, job) */
        for (uint32_t a = 0; a < n; a++)
            up[a] = a;
        uint32_t *cnt = ts_calloc((size_t)s->nlinks + 1, sizeof *cnt), *on = NULL;
        size_t len = 0;
        for (int pass = 0; pass < 2 && cnt; pass++) {
            for (uint32_t l = 0; l < s->nlinks; l++)
                owner[l] = UINT32_MAX;
            for (uint32_t a = 0; a < n; a++) {
                const ts_sim_job *j = &s->jobs[run[a]];
                for (uint32_t q = 0; q < j->nrlinks; q++) {
                    uint32_t l = j->rlinks[q];
                    if (l >= s->nlinks || owner[l] == a)
                        continue;
                    owner[l] = a;
                    if (pass == 0)
                        cnt[l + 1]++, len++;
                    else
                        on[cnt[l + 1]++] = a;
                }
            }
            if (pass == 0) {
                for (uint32_t l = 0; l < s->nlinks; l++)
                    cnt[l + 1] += cnt[l];
                memmove(cnt + 1, cnt, (size_t)s->nlinks * sizeof *cnt); /* cnt[l + 1]: start of l */
                if (!(on = ts_malloc(len ? len : 1, sizeof *on)))
                    break;
            }
        }
        if (!cnt || !on)
            st = TSCHED_E_NOMEM;
        /* after the fill, cnt[l + 1] is where link l's jobs end and cnt[l] where they start */
        for (uint32_t l = 0; l < s->nlinks && st == TSCHED_OK; l++)
            for (uint32_t x = cnt[l]; x < cnt[l + 1]; x++)
                for (uint32_t y = x + 1; y < cnt[l + 1]; y++) {
                    uint32_t a = on[x], b = on[y];
                    share[(size_t)a * n + b] = share[(size_t)b * n + a] = 1;
                    up[find(up, a)] = find(up, b);
                }
        free(cnt);
        free(on);
        /* each group alone */
        for (uint32_t root = 0; root < n && st == TSCHED_OK; root++) {
            if (find(up, root) != root)
                continue;
            uint32_t m = 0;
            double width = 0, maxbase = 0;
            for (uint32_t a = 0; a < n; a++)
                if (find(up, a) == root) {
                    idx[m] = a;
                    c[m].ji = run[a];
                    circle(&c[m], s, &s->jobs[run[a]]);
                    width = fmax(width, c[m].period);
                    maxbase = fmax(maxbase, c[m].base);
                    m++;
                }
            if (m < 2) {
                st = ts_sim_shift_iteration(s, c[0].ji, 0);
                if (st != TSCHED_OK)
                    break;
                continue;
            }
            width = (maxbase + 2 * width) / CAS_BINS;
            for (uint32_t a = 0; a < m; a++)
                fill_bits(&c[a], width);
            choose(k, c, m, share, n, idx);
            for (uint32_t a = 0; a < m && st == TSCHED_OK; a++)
                st = ts_sim_shift_iteration(s, c[a].ji, (int64_t)nearbyint(c[a].period * k[a] / CAS_SLOTS));
            if (st != TSCHED_OK)
                break;
        }
    }
    free(share);
    free(owner);
    free(up);
    free(idx);
    free(k);
    free(c);
    free(run);
    return st;
}
