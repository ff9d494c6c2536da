/* Exact Eq. 2 optimum by enumeration: the reference the MIP is tested against, so it must
 * be exact rather than clever. Depth-first over the cells in row-major order, domains in
 * increasing index; these prunings each provably keep the first optimum of that order
 * (see the comments at each):
 *   - symmetry: domains of equal capacity are interchangeable, so a domain may be opened
 *     only after every lower-indexed domain of the same capacity has been opened;
 *   - bound: the spreads of partly filled rows and columns never shrink, and the cells a
 *     row or column still lacks need room in the free capacity, so the objective of these
 *     lower bounds of the final maxima bounds every completion.
 * Objectives are compared as integer ranks of the (dp_max, pp_max) pairs, so the
 * comparison is exact, transitive and treats ties such as alpha = 0.5, (1,2) vs (2,1) as
 * ties. The answer is the lexicographically first optimal map (row-major, domain index),
 * independent of any heuristic, so it is deterministic and checkable by brute force.
 * p->time_limit_ms is not consulted: within the limits (16 cells, 4 domains) the worst
 * case measured takes a few milliseconds, and a reference must not depend on timing. */
#include <inttypes.h>
#include <string.h>

#include "../common/error.h"
#include "solver.h"

#define EX_MAXC TS_EXHAUSTIVE_MAX_CELLS
#define EX_MAXK TS_EXHAUSTIVE_MAX_DOMAINS

/* Weighted values closer than this are one rank: weighted is alpha*d + (1-alpha)*p with
 * d, p <= 4, so distinct exact values are far apart for any alpha a user would write, and
 * the rounding of e.g. alpha = 1/3 must not split a true tie. */
#define EX_TIE_EPS 1e-9

typedef struct ex_search {
    uint32_t rows, cols, ndom, ncell;
    uint32_t left[EX_MAXK];     /* capacity still free per domain */
    uint32_t cap[EX_MAXK];
    int prev_same[EX_MAXK];     /* the next lower domain with the same capacity, or -1 */
    uint32_t rowmask[EX_MAXC];  /* domains present in each row so far (bit k) */
    uint32_t colmask[EX_MAXC];
    uint32_t cur[EX_MAXC];
    uint32_t best[EX_MAXC];
    int rank[EX_MAXK + 1][EX_MAXK + 1]; /* rank[dp][pp], 0 = best */
    int limit;                  /* prune a subtree whose lower bound has rank >= limit */
    int floor;                  /* rank of the global lower bound: nothing can beat it */
    int found;
} ex_search;

static uint32_t popcount4(uint32_t m) { return (m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u) + ((m >> 3) & 1u); }

/* Rank every (dp, pp) pair with 1 <= dp, pp <= ndom by its weighted value, computed as
 * ts_metric_eval does. Sorted values are chained into classes by EX_TIE_EPS, which keeps
 * the ranks transitive and monotone in dp and pp (weighted is, for 0 <= alpha <= 1). */
static void ex_rank_pairs(ex_search *s, double alpha)
{
    double val[EX_MAXK * EX_MAXK];
    uint32_t idx[EX_MAXK * EX_MAXK], n = 0;
    for (uint32_t d = 1; d <= s->ndom; d++)
        for (uint32_t p = 1; p <= s->ndom; p++) {
            val[n] = alpha * d + (1.0 - alpha) * p;
            idx[n] = n;
            n++;
        }
    /* insertion sort, stable: n <= 16 */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = idx[i], j = i;
        while (j > 0 && val[idx[j - 1]] > val[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
    int r = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && val[idx[i]] - val[idx[i - 1]] > EX_TIE_EPS)
            r++;
        uint32_t d = idx[i] / s->ndom + 1, p = idx[i] % s->ndom + 1;
        s->rank[d][p] = r;
    }
}

/* Rank of a complete map (used for the heuristic starting bound). */
static int ex_map_rank(const ex_search *s, const uint32_t *dom)
{
    uint32_t dp = 0, pp = 0;
    for (uint32_t r = 0; r < s->rows; r++) {
        uint32_t m = 0;
        for (uint32_t c = 0; c < s->cols; c++)
            m |= 1u << dom[r * s->cols + c];
        if (popcount4(m) > pp)
            pp = popcount4(m);
    }
    for (uint32_t c = 0; c < s->cols; c++) {
        uint32_t m = 0;
        for (uint32_t r = 0; r < s->rows; r++)
            m |= 1u << dom[r * s->cols + c];
        if (popcount4(m) > dp)
            dp = popcount4(m);
    }
    return s->rank[dp][pp];
}

/* Fill domains in index order, cells row-major or column-major: always feasible. */
static void ex_greedy_fill(const ex_search *s, uint32_t *dom, int col_major)
{
    uint32_t k = 0, used = 0;
    for (uint32_t i = 0; i < s->ncell; i++) {
        while (used >= s->cap[k]) {
            k++;
            used = 0;
        }
        uint32_t cell = col_major ? (i % s->rows) * s->cols + i / s->rows : i;
        dom[cell] = k;
        used++;
    }
}

/* How many domains outside `mask` a group must still open to hold its `rem` unassigned
 * cells, if the domains in `mask` took as many as they have left and the roomiest others
 * took the rest. Other groups only use capacity up, so this is a lower bound. */
static uint32_t ex_need(const ex_search *s, uint32_t mask, uint32_t rem)
{
    uint32_t room = 0, other[EX_MAXK], n = 0;
    for (uint32_t k = 0; k < s->ndom; k++) {
        if (mask & (1u << k))
            room += s->left[k];
        else if (s->left[k] > 0)
            other[n++] = s->left[k];
    }
    if (room >= rem)
        return 0;
    uint32_t need = 0;
    while (room < rem && n > 0) {
        uint32_t b = 0;
        for (uint32_t j = 1; j < n; j++)
            if (other[j] > other[b])
                b = j;
        room += other[b];
        other[b] = other[--n];
        need++;
    }
    return need; /* room < rem here cannot happen: total capacity covers every cell */
}

static void ex_dfs(ex_search *s, uint32_t i, uint32_t dlb, uint32_t plb)
{
    if (i == s->ncell) {
        /* Reached only when rank < limit: a strict improvement, or the first map no worse
         * than the heuristic bound. */
        s->limit = s->rank[dlb][plb];
        s->found = 1;
        memcpy(s->best, s->cur, s->ncell * sizeof s->cur[0]);
        return;
    }
    uint32_t r = i / s->cols, c = i % s->cols;
    uint32_t rm = s->rowmask[r], cm = s->colmask[c];
    for (uint32_t k = 0; k < s->ndom; k++) {
        if (s->left[k] == 0)
            continue;
        /* Symmetry: an unopened domain whose equal-capacity predecessor is unopened too
         * is skipped. Relabelling an optimal map within equal-capacity classes so that
         * each class is opened in index order keeps it feasible and its spreads equal,
         * and the relabelled map is lexicographically no larger (at the first cell where
         * they differ it uses a lower index), so the first optimum overall survives. */
        int j = s->prev_same[k];
        if (s->left[k] == s->cap[k] && j >= 0 && s->left[j] == s->cap[j])
            continue;
        uint32_t bit = 1u << k;
        uint32_t p = popcount4(rm | bit), d = popcount4(cm | bit);
        if (p < plb)
            p = plb;
        if (d < dlb)
            d = dlb;
        /* Bound: spreads only grow as cells are added, and the rank is monotone in both,
         * so no completion of this subtree can rank below rank[d][p]. A subtree that can
         * only tie is skipped, which keeps the first optimum found. */
        if (s->rank[d][p] >= s->limit)
            continue;
        s->left[k]--;
        /* Capacity: the rest of this row and of this column must fit somewhere. */
        uint32_t pn = popcount4(rm | bit) + ex_need(s, rm | bit, s->cols - 1 - c);
        uint32_t dn = popcount4(cm | bit) + ex_need(s, cm | bit, s->rows - 1 - r);
        if (pn > p)
            p = pn;
        if (dn > d)
            d = dn;
        if (s->rank[d][p] >= s->limit) {
            s->left[k]++;
            continue;
        }
        s->rowmask[r] = rm | bit;
        s->colmask[c] = cm | bit;
        s->cur[i] = k;
        ex_dfs(s, i + 1, d, p);
        s->left[k]++;
        s->rowmask[r] = rm;
        s->colmask[c] = cm;
        if (s->limit <= s->floor)
            return; /* provably optimal already */
    }
}

tsched_status ts_solve_exhaustive(uint32_t *dom, int *optimal, const ts_pproblem *p)
{
    if (!dom || !p || (p->ndom > 0 && !p->cap))
        return ts_error(TSCHED_E_INVALID, "exhaustive placement: NULL argument");
    if (optimal)
        *optimal = 0;
    uint64_t ncell = (uint64_t)p->rows * p->cols;
    if (p->rows == 0 || p->cols == 0)
        return ts_error(TSCHED_E_INVALID, "exhaustive placement: empty matrix (%" PRIu32 " x %" PRIu32 ")", p->rows,
                        p->cols);
    if (ncell > EX_MAXC || p->ndom > EX_MAXK)
        return ts_error(TSCHED_E_INVALID,
                        "exhaustive placement: %" PRIu32 " x %" PRIu32 " = %" PRIu64 " cells and %" PRIu32
                        " domains exceed its limits of %u cells and %u domains",
                        p->rows, p->cols, ncell, p->ndom, EX_MAXC, EX_MAXK);
    if (!(p->alpha >= 0.0 && p->alpha <= 1.0))
        return ts_error(TSCHED_E_RANGE, "exhaustive placement: alpha %g is not in [0, 1]", p->alpha);
    uint64_t total = 0;
    for (uint32_t k = 0; k < p->ndom; k++)
        total += p->cap[k];
    if (total < ncell)
        return ts_error(TSCHED_E_INFEASIBLE,
                        "exhaustive placement: %" PRIu64 " cells need as many nodes, but the %" PRIu32
                        " domains have only %" PRIu64 " free",
                        ncell, p->ndom, total);

    ex_search s;
    memset(&s, 0, sizeof s);
    s.rows = p->rows;
    s.cols = p->cols;
    s.ndom = p->ndom;
    s.ncell = (uint32_t)ncell;
    uint32_t maxcap = 0;
    for (uint32_t k = 0; k < s.ndom; k++) {
        /* Free nodes beyond ncell never bind. Clamping puts every domain that can hold
         * the whole job into one symmetry class, which is right: they are interchangeable. */
        s.cap[k] = p->cap[k] < s.ncell ? p->cap[k] : s.ncell;
        s.left[k] = s.cap[k];
        s.prev_same[k] = -1;
        for (uint32_t j = k; j-- > 0;)
            if (s.cap[j] == s.cap[k]) {
                s.prev_same[k] = (int)j;
                break;
            }
        if (s.cap[k] > maxcap)
            maxcap = s.cap[k];
    }
    ex_rank_pairs(&s, p->alpha);

    /* A row of C cells needs at least ceil(C / maxcap) domains, a column ceil(R / maxcap):
     * the floor below which no map can go, used only to stop early. */
    uint32_t plb = (s.cols + maxcap - 1) / maxcap, dlb = (s.rows + maxcap - 1) / maxcap;
    s.floor = s.rank[dlb][plb];

    /* Starting bound from two trivial fills. Maps that tie with it are still accepted
     * (limit = rank + 1), so the answer is the search's first optimum, not the fill. */
    uint32_t fill[EX_MAXC];
    ex_greedy_fill(&s, fill, 0);
    int r0 = ex_map_rank(&s, fill);
    ex_greedy_fill(&s, fill, 1);
    int r1 = ex_map_rank(&s, fill);
    s.limit = (r0 < r1 ? r0 : r1) + 1;

    ex_dfs(&s, 0, dlb, plb);
    if (!s.found) /* impossible: the fills are feasible and the pruning keeps an optimum */
        return ts_error(TSCHED_E_INTERNAL, "exhaustive placement: no map found for %" PRIu32 " x %" PRIu32
                        " cells in %" PRIu32 " domains", p->rows, p->cols, p->ndom);
    memcpy(dom, s.best, s.ncell * sizeof dom[0]);
    if (optimal)
        *optimal = 1;
    return TSCHED_OK;
}
