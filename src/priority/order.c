/* The orders of the baselines CRUX compares with (doc/priority.md, "Orders"): Sincronia's
 * Bottleneck-Select-Scale-Iterate, Varys's smallest effective bottleneck first and CRUX's
 * TACCL* (longest transmission distance first). Each job is one coflow: its flows of one
 * iteration on the links they use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/names.h"
#include "crux_internal.h"

static const char *const order_names[] = {"crux", "sincronia", "varys", "taccl"};
#define NORDER (sizeof order_names / sizeof order_names[0])

const char *tsched_prio_order_name(tsched_prio_order order) { return ts_enum_name(order_names, NORDER, (int)order); }

tsched_status tsched_prio_order_from_name(tsched_prio_order *order, const char *name)
{
    if (!order || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_prio_order_from_name: %s is NULL", !order ? "order" : "name");
    int v = ts_enum_find(order_names, NORDER, name);
    if (v < 0)
        return ts_error(TSCHED_E_FORMAT, "order: unknown order \"%s\"; expected crux, sincronia, varys or taccl", name);
    *order = (tsched_prio_order)v;
    return TSCHED_OK;
}

/* Jobs without traffic come first (as under CRUX: they contend with nobody), in index
 * order; returns how many. */
static uint32_t idle_first(uint32_t *perm, const ts_coflows *cf)
{
    uint32_t k = 0;
    for (uint32_t j = 0; j < cf->n; j++)
        if (cf->off[j] == cf->off[j + 1])
            perm[k++] = j;
    return k;
}

typedef struct key_item {
    double key;
    uint32_t idx;
} key_item;

/* Increasing key, ties to the lower index. */
static int cmp_key(const void *a, const void *b)
{
    const key_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The jobs with traffic after perm[0..k) by increasing key[j]. */
static tsched_status sort_rest(uint32_t *perm, uint32_t k, const double *key, const ts_coflows *cf)
{
    key_item *it = ts_malloc(cf->n ? cf->n : 1, sizeof *it);
    if (!it)
        return TSCHED_E_NOMEM;
    uint32_t m = 0;
    for (uint32_t j = 0; j < cf->n; j++)
        if (cf->off[j] < cf->off[j + 1])
            it[m++] = (key_item){key[j], j};
    qsort(it, m, sizeof *it, cmp_key);
    for (uint32_t i = 0; i < m; i++)
        perm[k + i] = it[i].idx;
    free(it);
    return TSCHED_OK;
}

/* Sincronia's BSSI (Agarwal et al., SIGCOMM'18, Algorithm 1) with every weight 1, from the
 * last position to the first: the bottleneck b is the link with the most unscheduled time
 * on it (sum of the unscheduled jobs' t_{j,b}; ties to the lowest link id); the job put last
 * is the one on b with the largest t_{j,b} / w_j (w_j = 0 counts as infinite; ties to the
 * highest index, so that equal jobs keep index order); every other job on b has its weight
 * scaled down by w_last * t_{j,b} / t_{last,b}. The loads are summed afresh each round in
 * job index order, so the answer does not depend on the order of removals. O(n E) for E
 * (job, link) pairs. */
static tsched_status bssi(uint32_t *perm, uint32_t k0, const ts_coflows *cf)
{
    uint32_t n = cf->n, E = cf->off[n];
    tsched_status st = TSCHED_OK;
    /* per link: the jobs on it (in index order) with their times */
    uint32_t *loff = ts_calloc((size_t)cf->nlinks + 1, sizeof *loff);
    uint32_t *ljob = ts_malloc(E ? E : 1, sizeof *ljob), *used = ts_malloc(E ? E : 1, sizeof *used);
    double *lt = ts_malloc(E ? E : 1, sizeof *lt), *w = ts_malloc(n ? n : 1, sizeof *w);
    uint8_t *gone = ts_calloc(n ? n : 1, 1);
    if (!loff || !ljob || !used || !lt || !w || !gone) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t e = 0; e < E; e++)
        loff[cf->link[e] + 1]++;
    uint32_t nused = 0;
    for (uint32_t l = 0; l < cf->nlinks; l++) {
        if (loff[l + 1])
            used[nused++] = l;
        loff[l + 1] += loff[l];
    }
    {
        uint32_t *pos = ts_malloc(cf->nlinks ? cf->nlinks : 1, sizeof *pos);
        if (!pos) {
            st = TSCHED_E_NOMEM;
            goto out;
        }
        memcpy(pos, loff, (size_t)cf->nlinks * sizeof *pos);
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t e = cf->off[j]; e < cf->off[j + 1]; e++) {
                ljob[pos[cf->link[e]]] = j;
                lt[pos[cf->link[e]]++] = cf->t[e];
            }
        free(pos);
    }
    for (uint32_t j = 0; j < n; j++)
        w[j] = 1.0;
    for (uint32_t slot = n; slot-- > k0;) {
        uint32_t b = UINT32_MAX;
        double bl = 0;
        for (uint32_t u = 0; u < nused; u++) {
            uint32_t l = used[u];
            double s = 0;
            for (uint32_t x = loff[l]; x < loff[l + 1]; x++)
                if (!gone[ljob[x]])
                    s += lt[x];
            if (s > bl) {
                bl = s;
                b = l;
            }
        }
        if (b == UINT32_MAX) {
            st = ts_error(TSCHED_E_INTERNAL, "sincronia order: no loaded link with %u jobs left", slot - k0 + 1);
            goto out;
        }
        uint32_t last = UINT32_MAX;
        double lr = -1, ltb = 0;
        for (uint32_t x = loff[b]; x < loff[b + 1]; x++) {
            uint32_t j = ljob[x];
            if (gone[j])
                continue;
            double r = w[j] > 0 ? lt[x] / w[j] : INFINITY;
            if (r >= lr) {
                lr = r;
                last = j;
                ltb = lt[x];
            }
        }
        perm[slot] = last;
        gone[last] = 1;
        for (uint32_t x = loff[b]; x < loff[b + 1]; x++) {
            uint32_t j = ljob[x];
            if (gone[j])
                continue;
            w[j] -= w[last] * lt[x] / ltb;
            if (w[j] < 0)
                w[j] = 0; /* rounding: the chosen job had the smallest w / t */
        }
    }
out:
    free(loff);
    free(ljob);
    free(used);
    free(lt);
    free(w);
    free(gone);
    return st;
}

tsched_status ts_prio_order_rank(uint32_t *perm, uint32_t *rank, tsched_prio_order order, const ts_coflows *cf)
{
    uint32_t n = cf->n, k = idle_first(perm, cf);
    tsched_status st;
    if (order == TSCHED_PRIO_ORDER_SINCRONIA) {
        st = bssi(perm, k, cf);
    } else {
        double *key = ts_malloc(n ? n : 1, sizeof *key);
        if (!key)
            return TSCHED_E_NOMEM;
        for (uint32_t j = 0; j < n; j++) {
            if (order == TSCHED_PRIO_ORDER_VARYS) {
                /* Gamma_j = max_e M_{j,e} / B_e: the longest the job's coflow takes alone */
                double g = 0;
                for (uint32_t e = cf->off[j]; e < cf->off[j + 1]; e++)
                    g = cf->t[e] > g ? cf->t[e] : g;
                key[j] = g;
            } else {
                key[j] = -cf->dist[j]; /* longest distance first */
            }
        }
        st = sort_rest(perm, k, key, cf);
        free(key);
    }
    if (st == TSCHED_OK && rank)
        for (uint32_t r = 0; r < n; r++)
            rank[perm[r]] = r;
    return st;
}
