/* best-fit (Arnold 7.1, baseline 1): "assigns the nodes to the minipod with the least
 * remaining resources" that still fits.
 *
 * The rule. Cells are taken in matrix order (unit PP: row-major, unit DP: column-major);
 * m is the number not yet placed, u the unit size (cols for unit PP, rows for unit DP),
 * rem[k] the free nodes left in domain k. Repeat until m = 0:
 *   1. Some domain has rem >= m: put all m cells in the one with the least rem among
 *      those (ties: lowest index). Done.
 *   2. Else some domain has rem >= u: take the one with the least rem among those (ties:
 *      lowest index) and give it floor(rem / u) whole units.
 *   3. Else: fill the domain with the most rem (ties: lowest index) completely.
 * Step 2 is what a best-fit bin packer does with an item larger than every bin: it cuts
 * the job at unit boundaries (so units stay whole) and still prefers the tightest bin.
 * Step 3 only happens once no domain can take a unit at all, and then the largest
 * leftovers keep the pieces fewest.
 *
 * Cost O(n + K log K): a domain touched by step 2 keeps rem < u <= m, so it can neither
 * fit the rest nor be picked by step 2 again; the untouched domains with cap >= u are a
 * suffix of one sorted array, so steps 1-2 are a binary search and a moving pointer, and
 * step 3 walks a second array sorted by what is left. */
#include <stdlib.h>

#include "../common/alloc.h"
#include "baseline_util.h"

typedef struct bf_dom {
    uint32_t cap, idx;
} bf_dom;

static int by_cap_asc(const void *a, const void *b)
{
    const bf_dom *x = a, *y = b;
    if (x->cap != y->cap)
        return x->cap < y->cap ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_cap_desc(const void *a, const void *b)
{
    const bf_dom *x = a, *y = b;
    if (x->cap != y->cap)
        return x->cap > y->cap ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* First i in [lo, hi) with s[i].cap >= v in an ascending array (hi when none). */
static uint32_t first_at_least(const bf_dom *s, uint32_t lo, uint32_t hi, uint32_t v)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].cap >= v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* First i in [lo, hi) with s[i].cap < v (resp. <= v) in a descending array. */
static uint32_t first_below(const bf_dom *s, uint32_t lo, uint32_t hi, uint32_t v, int or_equal)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].cap < v || (or_equal && s[mid].cap == v))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void put(uint32_t *dom, const ts_pproblem *p, uint32_t *pos, uint32_t count, uint32_t k)
{
    for (uint32_t i = 0; i < count; i++)
        dom[ts_matrix_cell(p, *pos + i)] = k;
    *pos += count;
}

tsched_status ts_solve_best_fit(uint32_t *dom, const ts_pproblem *p)
{
    uint32_t n;
    tsched_status st = ts_baseline_check(&n, dom, p, "best-fit");
    if (st != TSCHED_OK || n == 0)
        return st;
    bf_dom *s = ts_malloc(p->ndom, sizeof *s);
    uint32_t *used = ts_calloc(p->ndom, sizeof *used);
    if (!s || !used) {
        free(s);
        free(used);
        return TSCHED_E_NOMEM;
    }
    uint32_t u = ts_unit_size(p), pos = 0, m = n, ns = 0;

    /* Steps 1-2 over the domains that can take a whole unit. */
    for (uint32_t k = 0; k < p->ndom; k++)
        if (p->cap[k] >= u)
            s[ns++] = (bf_dom){p->cap[k], k};
    qsort(s, ns, sizeof *s, by_cap_asc);
    for (uint32_t next = 0; m > 0 && next < ns;) {
        uint32_t j = first_at_least(s, next, ns, m);
        if (j < ns) {
            used[s[j].idx] += m;
            put(dom, p, &pos, m, s[j].idx);
            m = 0;
            break;
        }
        uint32_t take = s[next].cap / u * u; /* < m: s[next] did not fit the rest */
        used[s[next].idx] += take;
        put(dom, p, &pos, take, s[next].idx);
        m -= take;
        next++;
    }

    /* Step 3 (with step 1 still first) over whatever is left. */
    if (m > 0) {
        ns = 0;
        for (uint32_t k = 0; k < p->ndom; k++)
            if (p->cap[k] > used[k])
                s[ns++] = (bf_dom){p->cap[k] - used[k], k};
        qsort(s, ns, sizeof *s, by_cap_desc);
        for (uint32_t i = 0; m > 0 && i < ns;) {
            uint32_t e = first_below(s, i, ns, m, 0); /* s[i..e) can hold the rest */
            if (e > i) {
                /* the run of the smallest fitting value starts at its lowest index */
                uint32_t f = first_below(s, i, e, s[e - 1].cap, 1);
                put(dom, p, &pos, m, s[f].idx);
                m = 0;
                break;
            }
            put(dom, p, &pos, s[i].cap, s[i].idx);
            m -= s[i].cap;
            i++;
        }
    }
    free(s);
    free(used);
    if (m > 0) /* unreachable after ts_baseline_check */
        return ts_error(TSCHED_E_INTERNAL, "best-fit: %u cells left unplaced", m);
    return TSCHED_OK;
}
