/* Batched progressive filling over flat arrays, written as a plain C loop would be by
 * someone who knows where the time goes (issue 26 item 5: the earlier reference chased
 * three dependent random loads per frozen flow, offset -> link list -> frozen byte, and was
 * 2-3x slower than this).
 *
 * Layout: each link keeps its flows as records laid one after another in one array, a
 * record being a header word (flow id << 4 | number of the flow's other links) followed by
 * those other links. Freezing a flow then reads the words right after the one that named it;
 * "frozen" is a bitset (128 KiB at 1M flows: in L2); a link's remaining capacity, unfrozen
 * count and heap slot are small arrays over the links (a few thousand: in L1/L2).
 *
 * The order of the arithmetic is the library's (src/common/fluid.c) so the rates are the
 * same bits: an indexed binary min-heap of links keyed by share = remaining / unfrozen, ties
 * to the lower link; each round pops the smallest share, freezes that link's unfrozen flows
 * at it, takes it off every other link they cross (clamped at 0), then re-keys each touched
 * link once with the tie rule of src/common/fluid.h. The order of the flows within a round
 * does not change any double: every subtraction of a round takes off the same share. */
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

static inline int less(const heap *h, uint32_t x, uint32_t y)
{
    return h->key[x] < h->key[y] || (h->key[x] == h->key[y] && x < y);
}

static inline void put(heap *h, uint32_t i, uint32_t x)
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
    if (n >= (1u << 28))
        return -1;
    size_t nl = (size_t)nlinks + 1, words = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = off[i + 1] - off[i];
        if (len > 16)
            return -1;
        words += len * len; /* one record of len words on each of its len links */
    }
    if (words >= UINT32_MAX)
        return -1;
    uint32_t *start = calloc(nl + 1, sizeof *start), *rec = malloc((words ? words : 1) * sizeof *rec);
    uint32_t *tot = calloc(nl, sizeof *tot), *cnt = malloc(nl * sizeof *cnt), *mark = calloc(nl, sizeof *mark);
    uint32_t *touched = malloc(nl * sizeof *touched);
    double *rem = malloc(nl * sizeof *rem);
    uint64_t *frozen = calloc((size_t)n / 64 + 1, sizeof *frozen);
    heap h = {malloc(nl * sizeof(uint32_t)), malloc(nl * sizeof(uint32_t)), malloc(nl * sizeof(double)), 0};
    int ret = -1;
    if (!start || !rec || !tot || !cnt || !mark || !touched || !rem || !frozen || !h.a || !h.pos || !h.key)
        goto out;
    /* bucket sizes in words, then their starts; cnt is the fill cursor while filling */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = off[i + 1] - off[i];
        for (uint32_t k = off[i]; k < off[i + 1]; k++) {
            start[fl[k] + 1] += len;
            tot[fl[k]]++;
        }
    }
    for (uint32_t x = 0; x < nlinks; x++)
        start[x + 1] += start[x];
    memcpy(cnt, start, nlinks * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = off[i], e = off[i + 1], others = e - b - 1;
        if (b == e) {
            rate[i] = INFINITY;
            frozen[i / 64] |= 1ull << (i % 64);
            continue;
        }
        for (uint32_t k = b; k < e; k++) {
            uint32_t *r = rec + cnt[fl[k]];
            cnt[fl[k]] += others + 1;
            *r++ = i << 4 | others;
            for (uint32_t j = b; j < e; j++)
                if (j != k)
                    *r++ = fl[j];
        }
    }
    for (uint32_t x = 0; x < nlinks; x++) {
        rem[x] = cap[x];
        cnt[x] = tot[x];
        h.pos[x] = UINT32_MAX;
        if (cnt[x]) {
            h.key[x] = rem[x] / cnt[x];
            h.a[h.n] = x;
            h.pos[x] = h.n;
            up(&h, h.n++);
        }
    }
    for (uint32_t round = 1; h.n > 0; round++) {
        uint32_t l = h.a[0], nt = 0;
        double share = h.key[l] < 0 ? 0 : h.key[l];
        drop(&h, l);
        const uint32_t *r = rec + start[l], *end = rec + start[l + 1];
        while (r < end) {
            uint32_t i = r[0] >> 4, others = r[0] & 15;
            uint64_t bit = 1ull << (i % 64);
            if (frozen[i / 64] & bit) {
                r += others + 1;
                continue;
            }
            frozen[i / 64] |= bit;
            rate[i] = share;
            for (uint32_t j = 1; j <= others; j++) {
                uint32_t x = r[j];
                double v = rem[x] - share;
                rem[x] = v < 0 ? 0 : v;
                cnt[x]--;
                if (mark[x] != round) {
                    mark[x] = round;
                    touched[nt++] = x;
                }
            }
            r += others + 1;
        }
        for (uint32_t j = 0; j < nt; j++) {
            uint32_t x = touched[j];
            if (cnt[x] > 0) {
                /* the kernel's tie rule (src/common/fluid.h): within 4 ulp of the share per
                 * flow frozen on the link (at least 1), the link is tied and takes it exactly */
                double key = rem[x] / cnt[x], k = (double)(tot[x] - cnt[x]);
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
    free(rec);
    free(tot);
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
