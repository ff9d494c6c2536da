/* The K-cut DP of one order (kcut.c), instantiated once per way of counting a list's
 * positions <= x: kcut.c includes this file with
 *   KC_SFX      the suffix of the functions' names,
 *   KC_ATTR     their attributes (a target instruction set),
 *   KC_COUNT16  (optional) a function (q, x) -> the number of trailing ones of the mask of
 *               q[0..16) <= x, read without a branch (q has 16 readable entries).
 * Every instance makes the same floating-point operations in the same order; only the way
 * the running sum to add is found differs. */
#define KC_CAT2(a, b) a##b
#define KC_CAT(a, b) KC_CAT2(a, b)
#define KC_F(name) KC_CAT(name, KC_SFX)

/* Sum of the weights of list entries a..b-1 whose position is <= x: the running sum of the
 * last such entry, 0 when there is none. The entries <= x are a prefix of the (ascending)
 * list: with KC_COUNT16 a list of up to KC_PAD entries is counted by the trailing ones of
 * the mask of its first 16 lanes (lanes past b hold the next lists' positions), capped at
 * its length; longer lists, and the instance without KC_COUNT16, search. */
KC_ATTR static inline double KC_F(sum_le_)(const uint32_t *P, const double *C, uint32_t a, uint32_t b, uint32_t x)
{
    uint32_t len = b - a, k;
#ifdef KC_COUNT16
    if (len <= KC_PAD) {
        k = KC_COUNT16(P + a, x);
        k = k < len ? k : len;
    } else
#endif
    {
        k = 0;
        if (len && P[a] <= x) {
            uint32_t lo = a, hi = b; /* P[lo] <= x, P[hi] > x (hi = b: past the end) */
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (P[mid] <= x)
                    lo = mid;
                else
                    hi = mid;
            }
            k = lo - a + 1;
        }
    }
    uint64_t bits;
    memcpy(&bits, C + a + k - 1, sizeof bits); /* C[a - 1] (readable) when k = 0, masked */
    bits &= (uint64_t)0 - (uint64_t)(k != 0);
    double r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

/* Move the window to (j, i), j <= i, keeping J <= I at every step. I grows: position t
 * enters with its in-edges from p <= J. J falls: position t leaves the prefix, its in-edges
 * (all from p < t) count again, its out-edges into the window stop. J grows: the reverse.
 * I falls: t leaves with its in-edges from p <= J. */
KC_ATTR static void KC_F(seek_)(kc *s, uint32_t j, uint32_t i)
{
    const uint32_t *in_off = s->in_off, *in_p = s->in_p, *out_off = s->out_off, *out_q = s->out_q;
    const double *in_c = s->in_c, *out_c = s->out_c, *in_tot = s->in_tot;
    uint32_t J = s->J, I = s->I;
    double c = s->c;
    if (I < i) {
        /* Kept for the fall back over these positions at this J (the next left half's). */
        double *grow = s->grow;
        s->gJ = J;
        s->glo = I;
        s->ghi = i;
        while (I < i) {
            uint32_t t = ++I;
            double S = KC_F(sum_le_)(in_p, in_c, in_off[t], in_off[t + 1], J);
            grow[t] = S;
            c += S;
        }
    }
    if (J > j && I == s->wI) {
        /* The positions the last walk passed at this I: its sums, read back in reverse. */
        const double *walk = s->walk;
        uint32_t top = s->whi, bot = s->wlo > j ? s->wlo : j;
        while (J > top) {
            uint32_t t = J--;
            c += in_tot[t] - KC_F(sum_le_)(out_q, out_c, out_off[t], out_off[t + 1], I);
        }
        while (J > bot) {
            uint32_t t = J--;
            c += in_tot[t] - walk[t];
        }
    }
    while (J > j) {
        uint32_t t = J--;
        c += in_tot[t] - KC_F(sum_le_)(out_q, out_c, out_off[t], out_off[t + 1], I);
    }
    while (J < j) {
        uint32_t t = ++J;
        c += KC_F(sum_le_)(out_q, out_c, out_off[t], out_off[t + 1], I) - in_tot[t];
    }
    if (I > i && J == s->gJ) {
        const double *grow = s->grow;
        uint32_t top = s->ghi, bot = s->glo > i ? s->glo : i;
        while (I > top) {
            uint32_t t = I--;
            c -= KC_F(sum_le_)(in_p, in_c, in_off[t], in_off[t + 1], J);
        }
        while (I > bot) {
            uint32_t t = I--;
            c -= grow[t];
        }
    }
    while (I > i) {
        uint32_t t = I--;
        c -= KC_F(sum_le_)(in_p, in_c, in_off[t], in_off[t + 1], J);
    }
    s->J = J;
    s->I = I;
    s->c = c;
}

/* f(i) for i in [lo, hi], knowing the smallest argmax lies in [jlo, jhi]. The smallest
 * argmax is monotone in i because C satisfies the quadrangle inequality. */
KC_ATTR static void KC_F(solve_)(kc *s, uint32_t lo, uint32_t hi, uint32_t jlo, uint32_t jhi)
{
    const uint32_t *out_off = s->out_off, *out_q = s->out_q;
    const double *out_c = s->out_c, *in_tot = s->in_tot, *g = s->g;
    double *walk = s->walk;
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2, jmax = mid < jhi ? mid : jhi;
        KC_F(seek_)(s, jlo, mid);
        /* J walks jlo .. jmax with I = mid: the window's prefix grows one position a step. */
        uint32_t J = jlo;
        double c = s->c, best = g[jlo] + c;
        uint32_t bj = jlo;
        while (J < jmax) {
            uint32_t t = ++J;
            double S = KC_F(sum_le_)(out_q, out_c, out_off[t], out_off[t + 1], mid);
            walk[t] = S;
            c += S - in_tot[t];
            double v = g[J] + c;
            if (v > best) {
                best = v;
                bj = J;
            }
        }
        s->J = J;
        s->c = c;
        s->wI = mid;
        s->wlo = jlo;
        s->whi = jmax;
        s->f[mid] = best;
        s->arg[mid] = bj;
        if (mid > lo)
            KC_F(solve_)(s, lo, mid - 1, jlo, bj);
        /* The right half as a loop: recursion depth stays log2(n). */
        lo = mid + 1;
        jlo = bj;
    }
}


#undef KC_F
#undef KC_CAT
#undef KC_CAT2
#undef KC_SFX
#undef KC_ATTR
#undef KC_COUNT16
