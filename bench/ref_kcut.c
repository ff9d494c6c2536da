/* A plain single-threaded reference of `tsched_dag_compress` with algo crux (CRUX §4.3,
 * Algorithm 1), written from the documented contract for bench_kcut.c: m random
 * topological orders (Kahn, the next node drawn uniformly from the ready set by
 * xoshiro256** seeded through splitmix64, the ready set kept as an array with swap-remove),
 * each cut exactly by the layered DP f(i, k) = max_j f(j, k - 1) + C(j, i) with the
 * divide-and-conquer optimisation and C kept by a sliding window whose moves find their
 * running sums by binary search; ties to the smallest j; the best order is the first with the
 * largest cut. Levels are renumbered densely; the cut is summed in edge order. One thread,
 * no tricks: the yardstick of the library's speed and the check of its answers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref_kcut.h"

typedef struct rrng {
    uint64_t s[4];
} rrng;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void rrng_seed(rrng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        r->s[i] = z ^ (z >> 31);
    }
}

static uint64_t rrng_next(rrng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

static uint64_t rrng_below(rrng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = rrng_next(r);
    while (x >= limit);
    return x % n;
}

typedef struct win {
    const uint32_t *ioff, *ip, *ooff, *oq;
    const double *ic, *oc, *itot;
    uint32_t J, I;
    double c;
    const double *g;
    double *f;
    uint32_t *arg;
} win;

static double sum_le(const uint32_t *P, const double *C, uint32_t a, uint32_t b, uint32_t x)
{
    if (a == b || P[a] > x)
        return 0;
    if (P[b - 1] <= x)
        return C[b - 1];
    uint32_t lo = a, hi = b - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (P[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return C[lo];
}

static void seek(win *s, uint32_t j, uint32_t i)
{
    while (s->I < i) {
        uint32_t t = ++s->I;
        s->c += sum_le(s->ip, s->ic, s->ioff[t], s->ioff[t + 1], s->J);
    }
    while (s->J > j) {
        uint32_t t = s->J--;
        s->c += s->itot[t] - sum_le(s->oq, s->oc, s->ooff[t], s->ooff[t + 1], s->I);
    }
    while (s->J < j) {
        uint32_t t = ++s->J;
        s->c += sum_le(s->oq, s->oc, s->ooff[t], s->ooff[t + 1], s->I) - s->itot[t];
    }
    while (s->I > i) {
        uint32_t t = s->I--;
        s->c -= sum_le(s->ip, s->ic, s->ioff[t], s->ioff[t + 1], s->J);
    }
}

static void solve(win *s, uint32_t lo, uint32_t hi, uint32_t jlo, uint32_t jhi)
{
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2, jmax = mid < jhi ? mid : jhi;
        seek(s, jlo, mid);
        double best = s->g[jlo] + s->c;
        uint32_t bj = jlo;
        for (uint32_t j = jlo + 1; j <= jmax; j++) {
            seek(s, j, mid);
            double v = s->g[j] + s->c;
            if (v > best) {
                best = v;
                bj = j;
            }
        }
        s->f[mid] = best;
        s->arg[mid] = bj;
        if (mid > lo)
            solve(s, lo, mid - 1, jlo, bj);
        lo = mid + 1;
        jlo = bj;
    }
}

/* Levels of one order into lv (positions 1..n), the exact max K-cut. */
static int cut_order(uint32_t *lv, const ref_dag *d, const uint32_t *order, uint32_t K)
{
    const uint32_t n = d->n;
    uint32_t *pos = calloc(n + 1, sizeof *pos), *ioff = calloc(n + 2, 4), *ooff = calloc(n + 2, 4);
    uint32_t *ip = malloc((d->m + 1) * sizeof *ip), *oq = malloc((d->m + 1) * sizeof *oq);
    double *ic = malloc((d->m + 1) * sizeof *ic), *oc = malloc((d->m + 1) * sizeof *oc);
    double *itot = calloc(n + 2, sizeof *itot), total = 0;
    uint32_t keff = K < n ? K : n;
    double *f = calloc(n + 1, sizeof *f), *g = calloc(n + 1, sizeof *g);
    uint32_t *arg = malloc(((size_t)(keff > 1 ? keff - 1 : 1)) * (n + 1) * sizeof *arg);
    uint64_t *key = malloc((d->m + 1) * sizeof *key);
    if (!pos || !ioff || !ooff || !ip || !oq || !ic || !oc || !itot || !f || !g || !arg || !key)
        return -1;
    for (uint32_t k = 0; k < n; k++)
        pos[order[k]] = k + 1;
    /* the lists by sorting (target, source) and (source, target) pairs of edge indices; equal
     * positions are parallel edges, kept in edge order (their running sum is then the same
     * as the library's bucketing gives) */
    uint32_t m = 0;
    for (uint32_t k = 0; k < d->m; k++)
        if (d->w[k] > 0) {
            ioff[pos[d->v[k]] + 1]++;
            ooff[pos[d->u[k]] + 1]++;
            key[m++] = (uint64_t)k;
            total += d->w[k];
        }
    for (uint32_t t = 1; t <= n; t++) {
        ioff[t + 1] += ioff[t];
        ooff[t + 1] += ooff[t];
    }
    uint32_t *cur = malloc((n + 2) * sizeof *cur);
    uint32_t *ie = malloc((m + 1) * sizeof *ie), *oe = malloc((m + 1) * sizeof *oe);
    if (!cur || !ie || !oe)
        return -1;
    /* in-list of q: edges sorted by source position, then edge index */
    memcpy(cur, ooff, (n + 2) * sizeof *cur);
    for (uint32_t a = 0; a < m; a++) /* bucket by source, edge order */
        oe[cur[pos[d->u[key[a]]]]++] = (uint32_t)key[a];
    memcpy(cur, ioff, (n + 2) * sizeof *cur);
    for (uint32_t a = 0; a < m; a++) /* stable: by target, sources ascending */
        ie[cur[pos[d->v[oe[a]]]]++] = oe[a];
    memcpy(cur, ooff, (n + 2) * sizeof *cur);
    for (uint32_t a = 0; a < m; a++) /* stable: by source, targets ascending */
        oe[cur[pos[d->u[ie[a]]]]++] = ie[a];
    for (uint32_t t = 1; t <= n; t++) {
        double run = 0;
        for (uint32_t a = ioff[t]; a < ioff[t + 1]; a++) {
            ip[a] = pos[d->u[ie[a]]];
            ic[a] = a == ioff[t] ? d->w[ie[a]] : (run + d->w[ie[a]]);
            run = ic[a];
        }
        itot[t] = run;
        run = 0;
        for (uint32_t a = ooff[t]; a < ooff[t + 1]; a++) {
            oq[a] = pos[d->v[oe[a]]];
            oc[a] = a == ooff[t] ? d->w[oe[a]] : (run + d->w[oe[a]]);
            run = oc[a];
        }
    }
    uint32_t kdone = 1;
    if (keff >= 2 && total > 0) {
        win s = {ioff, ip, ooff, oq, ic, oc, itot, 0, 0, 0, NULL, NULL, NULL};
        for (uint32_t k = 2; k <= keff; k++) {
            s.g = g;
            s.f = f;
            s.arg = arg + (size_t)(k - 2) * (n + 1);
            solve(&s, 0, n, 0, n);
            kdone = k;
            double *t = g;
            g = f;
            f = t;
            if (g[n] >= total)
                break;
        }
    }
    uint32_t i = n;
    for (uint32_t k = kdone; k >= 2; k--) {
        uint32_t j = arg[(size_t)(k - 2) * (n + 1) + i];
        for (uint32_t p = j + 1; p <= i; p++)
            lv[order[p - 1]] = k - 1;
        i = j;
    }
    for (uint32_t p = 1; p <= i; p++)
        lv[order[p - 1]] = 0;
    /* dense renumbering: levels are < K */
    uint32_t *map = calloc(K, sizeof *map);
    if (!map)
        return -1;
    for (uint32_t x = 0; x < n; x++)
        map[lv[x]] = 1;
    for (uint32_t l = 0, used = 0; l < K; l++)
        map[l] = map[l] ? used++ : 0;
    for (uint32_t x = 0; x < n; x++)
        lv[x] = map[lv[x]];
    free(map);
    free(pos), free(ioff), free(ooff), free(ip), free(oq), free(ic), free(oc), free(itot);
    free(f), free(g), free(arg), free(key), free(cur), free(ie), free(oe);
    return 0;
}

double ref_cut_weight(const ref_dag *d, const uint32_t *lv)
{
    double s = 0;
    for (uint32_t k = 0; k < d->m; k++)
        if (lv[d->u[k]] < lv[d->v[k]])
            s += d->w[k];
    return s;
}

int ref_kcut(uint32_t *levels, double *cut, const ref_dag *d, uint32_t K, uint32_t orders, uint64_t seed)
{
    const uint32_t n = d->n;
    uint32_t *order = malloc((n + 1) * sizeof *order), *trial = malloc((n + 1) * sizeof *trial);
    uint32_t *indeg = calloc(n + 1, sizeof *indeg), *ready = malloc((n + 1) * sizeof *ready);
    uint32_t *off = calloc(n + 2, sizeof *off), *adj = malloc((d->m + 1) * sizeof *adj);
    if (!order || !trial || !indeg || !ready || !off || !adj)
        return -1;
    for (uint32_t k = 0; k < d->m; k++)
        off[d->u[k] + 1]++;
    for (uint32_t x = 0; x < n; x++)
        off[x + 1] += off[x];
    uint32_t *cur = malloc((n + 1) * sizeof *cur);
    if (!cur)
        return -1;
    memcpy(cur, off, (n + 1) * sizeof *cur);
    for (uint32_t k = 0; k < d->m; k++) /* out-edges in edge order */
        adj[cur[d->u[k]]++] = d->v[k];
    free(cur);
    rrng rng;
    rrng_seed(&rng, seed);
    double best = -1;
    for (uint32_t r = 0; r < orders; r++) {
        memset(indeg, 0, n * sizeof *indeg);
        for (uint32_t k = 0; k < d->m; k++)
            indeg[d->v[k]]++;
        uint32_t cnt = 0, placed = 0;
        for (uint32_t x = 0; x < n; x++)
            if (!indeg[x])
                ready[cnt++] = x;
        while (cnt) {
            uint32_t i = (uint32_t)rrng_below(&rng, cnt), x = ready[i];
            ready[i] = ready[--cnt];
            order[placed++] = x;
            for (uint32_t a = off[x]; a < off[x + 1]; a++)
                if (--indeg[adj[a]] == 0)
                    ready[cnt++] = adj[a];
        }
        if (placed < n || cut_order(trial, d, order, K) != 0)
            return -1;
        double cw = ref_cut_weight(d, trial);
        if (cw > best) {
            best = cw;
            memcpy(levels, trial, n * sizeof *levels);
        }
    }
    *cut = ref_cut_weight(d, levels);
    free(order), free(trial), free(indeg), free(ready), free(off), free(adj);
    return 0;
}
