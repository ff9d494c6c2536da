/* Batched progressive filling over flat arrays: a link -> flows index (CSR), the flows'
 * link lists flow-major in one array, a byte per flow for "frozen", and an indexed min-heap
 * of links keyed by share = remaining capacity / unfrozen flows. Each round takes the
 * smallest share (ties to the lower link), freezes that link's unfrozen flows at it,
 * takes it off every other link they cross, then re-keys the links it touched once
 * (batched). */
#include "ref_rates.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t *a, *pos;
    double *key;
    uint32_t n;
} heap;

static int less(const heap *h, uint32_t x, uint32_t y)
{
    return h->key[x] < h->key[y] || (h->key[x] == h->key[y] && x < y);
}

static void put(heap *h, uint32_t i, uint32_t x)
{
    h->a[i] = x;
    h->pos[x] = i;
}

static void up(heap *h, uint32_t i)
{
    uint32_t x = h->a[i];
    while (i > 0 && less(h, x, h->a[(i - 1) / 2])) {
        put(h, i, h->a[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    put(h, i, x);
}

static void down(heap *h, uint32_t i)
{
    uint32_t x = h->a[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && less(h, h->a[c + 1], h->a[c]))
            c++;
        if (!less(h, h->a[c], x))
            break;
        put(h, i, h->a[c]);
        i = c;
    }
    put(h, i, x);
}

static void drop(heap *h, uint32_t x)
{
    uint32_t i = h->pos[x];
    h->pos[x] = UINT32_MAX;
    if (--h->n == i)
        return;
    uint32_t y = h->a[h->n];
    put(h, i, y);
    down(h, i);
    up(h, h->pos[y]);
}

int ref_rates_maxmin(double *rate, uint32_t n, const uint32_t *off, const uint32_t *fl, uint32_t nlinks,
                     const double *cap)
{
    size_t nl = nlinks + 1, m = off[n];
    uint32_t *start = calloc(nl + 1, sizeof *start), *flows = malloc((m ? m : 1) * sizeof *flows);
    uint32_t *cnt = calloc(nl, sizeof *cnt), *mark = calloc(nl, sizeof *mark), *touched = malloc(nl * sizeof *touched);
    double *rem = malloc(nl * sizeof *rem);
    unsigned char *frozen = calloc(n ? n : 1, 1);
    heap h = {malloc(nl * sizeof(uint32_t)), malloc(nl * sizeof(uint32_t)), malloc(nl * sizeof(double)), 0};
    int ret = -1;
    if (!start || !flows || !cnt || !mark || !touched || !rem || !frozen || !h.a || !h.pos || !h.key)
        goto out;
    for (size_t k = 0; k < m; k++)
        start[fl[k] + 1]++;
    for (uint32_t x = 0; x < nlinks; x++) {
        cnt[x] = start[x + 1];
        start[x + 1] += start[x];
    }
    memcpy(mark, start, nlinks * sizeof *mark); /* fill positions first */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            flows[mark[fl[k]]++] = i;
    memset(mark, 0, nl * sizeof *mark);
    for (uint32_t x = 0; x < nlinks; x++) {
        rem[x] = cap[x];
        h.pos[x] = UINT32_MAX;
        if (cnt[x]) {
            h.key[x] = rem[x] / cnt[x];
            h.a[h.n] = x;
            h.pos[x] = h.n;
            up(&h, h.n++);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (off[i] == off[i + 1]) {
            rate[i] = INFINITY;
            frozen[i] = 1;
        }
    for (uint32_t round = 1; h.n > 0; round++) {
        uint32_t l = h.a[0], nt = 0;
        double share = h.key[l] < 0 ? 0 : h.key[l];
        drop(&h, l);
        for (uint32_t k = start[l]; k < start[l + 1]; k++) {
            uint32_t i = flows[k];
            if (frozen[i])
                continue;
            frozen[i] = 1;
            rate[i] = share;
            for (uint32_t j = off[i]; j < off[i + 1]; j++) {
                uint32_t x = fl[j];
                if (x == l)
                    continue;
                rem[x] -= share;
                if (rem[x] < 0)
                    rem[x] = 0;
                cnt[x]--;
                if (mark[x] != round) {
                    mark[x] = round;
                    touched[nt++] = x;
                }
            }
        }
        for (uint32_t j = 0; j < nt; j++) {
            uint32_t x = touched[j];
            if (cnt[x] > 0) {
                /* the kernel's tie rule (src/common/fluid.h): within 4 ulp of the share per
                 * flow frozen on the link (at least 1), the link is tied and takes it exactly */
                double key = rem[x] / cnt[x], k = (double)(start[x + 1] - start[x] - cnt[x]);
                h.key[x] = fabs(key - share) <= 4 * DBL_EPSILON * share * (k > 1 ? k : 1) ? share : key;
                down(&h, h.pos[x]);
                up(&h, h.pos[x]);
            } else if (h.pos[x] != UINT32_MAX) {
                drop(&h, x);
            }
        }
        cnt[l] = 0;
    }
    ret = 0;
out:
    free(start);
    free(flows);
    free(cnt);
    free(mark);
    free(touched);
    free(rem);
    free(frozen);
    free(h.a);
    free(h.pos);
    free(h.key);
    return ret;
}
