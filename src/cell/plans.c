/* Plan spaces and their exact optimum (doc/cell.md §3.3).
 *
 * T = sum_s tau_s + (B-1) max_s (C_s + X_s) + max_s A_s couples the stages only through the
 * two maxima. For each candidate theta2 of max A (the options' distinct A values,
 * ascending), the options with A <= theta2 are swept in order of C + X; at every distinct
 * C + X value theta1, each stage holds its least tau among the options seen so far (ties:
 * the smaller t, which is the plan tie-break restricted to one stage), and
 * sum tau + (B-1) theta1 + theta2 bounds T of that plan from above. The optimum plan P*
 * appears at its own (theta2, theta1), where the sweep's plan is at least as good and at
 * least as preferred, so the best of the sweep's plans is the optimum. Scores are a running
 * sum; plans within 1e-9 of the best score are re-scored with the §3.2 formula
 * (ts_cm_iteration) and compared exactly: T, then fewer stages with t > 1, then the t
 * vector lexicographically. O(K^2) with K options in all (K log K for the sort). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate_internal.h"

uint32_t ts_tp_max(uint32_t g, uint32_t G)
{
    for (uint32_t t = g < G ? g : G; t > 1; t--)
        if (g % t == 0)
            return t;
    return 1;
}

int ts_plan_in_space(tsched_plan_space space, uint32_t g, uint32_t G, uint32_t t, int favor_tp)
{
    uint32_t tmax = ts_tp_max(g, G);
    switch (space) {
    case TSCHED_PLANS_ASSEMBLED:
        return t == 1 || t == tmax;
    case TSCHED_PLANS_TUNED:
        if (!favor_tp)
            return (uint64_t)t * t <= g;
        return (uint64_t)t * t >= g || t == tmax;
    default:
        return 1;
    }
}

static int cmp_cx(const void *pa, const void *pb)
{
    const ts_opt *a = pa, *b = pb;
    if (a->cx != b->cx)
        return a->cx < b->cx ? -1 : 1;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Is plan `a` preferred to plan `b` (T, then fewer t > 1, then t lexicographically)? */
static int better(double Ta, const ts_opt *const *a, double Tb, const ts_opt *const *b, uint32_t S)
{
    if (Ta != Tb)
        return Ta < Tb;
    uint32_t na = 0, nb = 0;
    for (uint32_t s = 0; s < S; s++) {
        na += a[s]->t > 1;
        nb += b[s]->t > 1;
    }
    if (na != nb)
        return na < nb;
    for (uint32_t s = 0; s < S; s++)
        if (a[s]->t != b[s]->t)
            return a[s]->t < b[s]->t;
    return 0;
}

double ts_plans_best(const ts_opt **chosen, ts_opt *opts, uint32_t K, const ts_cm *cm, double *work,
                     const ts_opt **cur)
{
    uint32_t S = cm->S;
    double *thetas = work, *minA = work + K, *mintau = work + K + S, *mincx = work + K + 2 * S;
    if (S > K)
        return -1;
    for (uint32_t s = 0; s < S; s++)
        minA[s] = mintau[s] = mincx[s] = INFINITY;
    for (uint32_t k = 0; k < K; k++) {
        const ts_opt *o = &opts[k];
        thetas[k] = o->A;
        if (o->A < minA[o->s])
            minA[o->s] = o->A;
        if (o->tau < mintau[o->s])
            mintau[o->s] = o->tau;
        if (o->cx < mincx[o->s])
            mincx[o->s] = o->cx;
    }
    /* lower bound on T of any plan without theta2: every stage at its least tau and C + X */
    double lowest = 0, lb = 0, lbcx = 0;
    for (uint32_t s = 0; s < S; s++) {
        if (minA[s] == INFINITY)
            return -1;
        if (minA[s] > lowest)
            lowest = minA[s];
        lb += mintau[s];
        if (mincx[s] > lbcx)
            lbcx = mincx[s];
    }
    lb += (cm->B - 1) * lbcx;
    if (K <= 32) { /* the common case: insertion sorts beat qsort's calls */
        for (uint32_t i = 1; i < K; i++) {
            ts_opt o = opts[i];
            double th = thetas[i];
            uint32_t j = i;
            for (; j > 0 && cmp_cx(&opts[j - 1], &o) > 0; j--)
                opts[j] = opts[j - 1];
            opts[j] = o;
            for (j = i; j > 0 && thetas[j - 1] > th; j--)
                thetas[j] = thetas[j - 1];
            thetas[j] = th;
        }
    } else {
        qsort(opts, K, sizeof *opts, cmp_cx);
        qsort(thetas, K, sizeof *thetas, cmp_dbl);
    }
    double bestT = INFINITY, bestscore = INFINITY;
    int have = 0;
    for (uint32_t q = 0; q < K; q++) {
        double th2 = thetas[q];
        if (th2 < lowest || (q > 0 && th2 == thetas[q - 1]))
            continue;
        /* plans first seen here have max A = th2 (ascending): none can win past this */
        if (have && (lb + th2) * (1 - 1e-9) > bestT)
            break;
        for (uint32_t s = 0; s < S; s++)
            cur[s] = NULL;
        uint32_t covered = 0;
        double sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            const ts_opt *o = &opts[k];
            if (o->A <= th2) {
                const ts_opt *b = cur[o->s];
                if (!b) {
                    cur[o->s] = o;
                    covered++;
                    sum += o->tau;
                } else if (o->tau < b->tau || (o->tau == b->tau && o->t < b->t)) {
                    sum += o->tau - b->tau;
                    cur[o->s] = o;
                }
            }
            if (covered < S || (k + 1 < K && opts[k + 1].cx == o->cx))
                continue;
            double score = sum + (cm->B - 1) * o->cx + th2;
            if (score > bestscore * (1 + 1e-9))
                continue;
            if (score < bestscore)
                bestscore = score;
            double T = ts_cm_iteration(cm, cur);
            if (!have || better(T, cur, bestT, chosen, S)) {
                memcpy(chosen, cur, S * sizeof *chosen);
                bestT = T;
                have = 1;
            }
        }
    }
    return have ? bestT : -1;
}
