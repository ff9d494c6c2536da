/* Slurm topology.conf import and the hostlist expressions behind it. Expected values are
 * worked out by hand from the fixtures (tests/data/slurm/) and the rules in
 * doc/slurm-import.md, never read back from the code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "topology/import/hostlist.h"

#define SLURM_DATA TSCHED_TEST_DATA "/slurm"

/* ---- helpers -------------------------------------------------------------------------- */

static tsched_topology *import_ok(const char *text, const tsched_slurm_options *opts)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_string(&t, text, strlen(text), opts));
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Import must fail with `want`, leave no handle, and name both needles (NULL: skip). */
static void import_fails_len(const char *text, size_t len, tsched_status want, const char *n1, const char *n2)
{
    tsched_topology *t = (tsched_topology *)&t; /* must be reset to NULL */
    tsched_clear_error();
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, len, NULL), want);
    ck_assert_ptr_null(t);
    ck_assert_int_eq(tsched_last_status(), want);
    if (n1)
        ck_assert_errmsg_has(n1);
    if (n2)
        ck_assert_errmsg_has(n2);
}

static void import_fails(const char *text, tsched_status want, const char *n1, const char *n2)
{
    import_fails_len(text, strlen(text), want, n1, n2);
}

static double trunk_gbps(const tsched_topology *t, const char *a, const char *b)
{
    return tsched_topology_trunk_gbps(t, tu_trunk(t, a, b));
}

static uint64_t paths(const tsched_topology *t, const char *a, const char *b)
{
    uint64_t n = 12345;
    ck_assert_ok(tsched_topology_path_count(&n, t, tu_node(t, a), 0, tu_node(t, b), 0));
    return n;
}

static const char *leaf_of(const tsched_topology *t, const char *n)
{
    return tsched_topology_switch_name(t, tsched_topology_node_leaf(t, tu_node(t, n)));
}

/* ---- hostlist ----------------------------------------------------------------------------- */

static void expands_to(const char *expr, const char *const *want, size_t nwant)
{
    ts_hostlist h;
    ts_hostlist_init(&h);
    ck_assert_ok(ts_hostlist_expand(&h, expr, strlen(expr), 1000));
    ck_assert_uint_eq(ts_hostlist_count(&h), nwant);
    for (size_t i = 0; i < nwant; i++)
        ck_assert_str_eq(ts_hostlist_name(&h, i), want[i]);
    size_t names = 0, bytes = 0;
    ck_assert_ok(ts_hostlist_measure(&names, &bytes, expr, strlen(expr), 1000));
    ck_assert_uint_eq(names, nwant);
    size_t want_bytes = 0;
    for (size_t i = 0; i < nwant; i++)
        want_bytes += strlen(want[i]) + 1;
    ck_assert_uint_eq(bytes, want_bytes);
    ts_hostlist_free(&h);
}

#define EXPANDS_TO(expr, ...)                                                                                      \
    do {                                                                                                           \
        static const char *const w_[] = {__VA_ARGS__};                                                             \
        expands_to(expr, w_, sizeof w_ / sizeof w_[0]);                                                            \
    } while (0)

START_TEST(hostlist_expansions)
{
    EXPANDS_TO("gpu[001-004,070]", "gpu001", "gpu002", "gpu003", "gpu004", "gpu070");
    EXPANDS_TO("tux[0-3,12,18-20]", "tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20");
    EXPANDS_TO("[8-10]", "8", "9", "10");
    EXPANDS_TO("n[098-101]", "n098", "n099", "n100", "n101");
    EXPANDS_TO("n[1-2]-ib", "n1-ib", "n2-ib");
    EXPANDS_TO("r[1-2]n[01-02]", "r1n01", "r1n02", "r2n01", "r2n02");
    EXPANDS_TO("a,b[1-2]", "a", "b1", "b2");
    EXPANDS_TO("x[3]y[5,7]z", "x3y5z", "x3y7z");
    EXPANDS_TO("plain", "plain");
    EXPANDS_TO("x[007]", "x007");
    EXPANDS_TO("c[2-2],c[0-1]", "c2", "c0", "c1"); /* order kept as written */
    EXPANDS_TO("d[1-2],d[1]", "d1", "d2", "d1");   /* duplicates kept: the caller decides */
}
END_TEST

static void hostlist_rejects(const char *expr, tsched_status want, const char *needle)
{
    ts_hostlist h;
    ts_hostlist_init(&h);
    ck_assert_ok(ts_hostlist_expand(&h, "keep[1-2]", 9, 100));
    ck_assert_status(ts_hostlist_expand(&h, expr, strlen(expr), 1000), want);
    ck_assert_errmsg_has(needle);
    /* a failed expansion leaves the list as it was */
    ck_assert_uint_eq(ts_hostlist_count(&h), 2);
    ck_assert_str_eq(ts_hostlist_name(&h, 1), "keep2");
    ck_assert_status(ts_hostlist_measure(NULL, NULL, expr, strlen(expr), 1000), want);
    ts_hostlist_free(&h);
}

START_TEST(hostlist_errors)
{
    hostlist_rejects("gpu[1-4", TSCHED_E_PARSE, "unmatched '['");
    hostlist_rejects("gpu1-4]", TSCHED_E_PARSE, "unmatched ']'");
    hostlist_rejects("gpu[1-[2]]", TSCHED_E_PARSE, "nested '['");
    hostlist_rejects("n[1-2]x[", TSCHED_E_PARSE, "unmatched '['");
    hostlist_rejects("a[]", TSCHED_E_PARSE, "empty range");
    hostlist_rejects("a[1,,2]", TSCHED_E_PARSE, "empty range");
    hostlist_rejects("a[5-3]", TSCHED_E_PARSE, "lo > hi");
    hostlist_rejects("a[1x]", TSCHED_E_PARSE, "non-digit 'x'");
    hostlist_rejects("a[-1]", TSCHED_E_PARSE, "non-digit '-'");
    hostlist_rejects("a[1-2:2]", TSCHED_E_PARSE, "non-digit ':'");
    hostlist_rejects("a[1234567890123456789]", TSCHED_E_PARSE, "longer than 18 digits");
    hostlist_rejects("a[0-1000]", TSCHED_E_TOO_LARGE, "more than 1000 names");
    hostlist_rejects("a[0-9]b[0-9]c[0-10]d", TSCHED_E_TOO_LARGE, "more than 1000 names");
    hostlist_rejects("a[0-500],b[0-500]", TSCHED_E_TOO_LARGE, "more than 1000 names");

    /* an embedded NUL is an error, not the end of the expression */
    ts_hostlist h;
    ts_hostlist_init(&h);
    ck_assert_status(ts_hostlist_expand(&h, "a\0b", 3, 10), TSCHED_E_PARSE);
    ck_assert_errmsg_has("NUL");
    ck_assert_status(ts_hostlist_expand(&h, "a[1\0]", 5, 10), TSCHED_E_PARSE);
    ck_assert_errmsg_has("NUL");
    ck_assert_uint_eq(ts_hostlist_count(&h), 0);
    ts_hostlist_free(&h);
}
END_TEST

START_TEST(hostlist_limits)
{
    /* Sizes come from arithmetic, before anything is allocated: 10^18 names fail at once. */
    size_t names = 7, bytes = 7;
    const char *huge = "n[0-999999999999999999]";
    ck_assert_status(ts_hostlist_measure(&names, &bytes, huge, strlen(huge), (size_t)1 << 22), TSCHED_E_TOO_LARGE);
    ck_assert_uint_eq(names, 7);
    const char *product = "a[0-999999]b[0-999999]c[0-999999]d[0-999999]";
    ck_assert_status(ts_hostlist_measure(NULL, NULL, product, strlen(product), SIZE_MAX), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("bytes");

    /* exactly at the limit passes, one more fails */
    ck_assert_ok(ts_hostlist_measure(&names, &bytes, "n[1-4194304]", 12, (size_t)1 << 22));
    ck_assert_uint_eq(names, 4194304);
    /* 9 one-digit + 90 two-digit + ... values, each with "n" and a NUL */
    size_t digits = 9 * 1 + 90 * 2 + 900 * 3 + 9000 * 4 + 90000 * 5 + 900000 * 6 + (4194304 - 999999) * 7;
    ck_assert_uint_eq(bytes, digits + 2 * (size_t)4194304);
    ck_assert_status(ts_hostlist_measure(&names, NULL, "n[0-4194304]", 12, (size_t)1 << 22), TSCHED_E_TOO_LARGE);

    /* padding counts in the byte total: 0001..1000 are all four digits */
    ck_assert_ok(ts_hostlist_measure(&names, &bytes, "[0001-1000]", 11, 5000));
    ck_assert_uint_eq(names, 1000);
    ck_assert_uint_eq(bytes, 1000 * 5);

    /* names append across calls; a list is reusable after clear */
    ts_hostlist h;
    ts_hostlist_init(&h);
    ck_assert_ok(ts_hostlist_expand(&h, "a[1-3]", 6, 3));
    ck_assert_ok(ts_hostlist_expand(&h, "b", 1, 1));
    ck_assert_uint_eq(ts_hostlist_count(&h), 4);
    ck_assert_str_eq(ts_hostlist_name(&h, 0), "a1");
    ck_assert_str_eq(ts_hostlist_name(&h, 3), "b");
    ck_assert_status(ts_hostlist_expand(&h, "c[1-2]", 6, 1), TSCHED_E_TOO_LARGE);
    ts_hostlist_clear(&h);
    ck_assert_uint_eq(ts_hostlist_count(&h), 0);
    ck_assert_ok(ts_hostlist_expand(&h, "z[9-11]", 7, 3));
    ck_assert_str_eq(ts_hostlist_name(&h, 2), "z11");

    /* a large expansion is complete and in order */
    ts_hostlist_clear(&h);
    ck_assert_ok(ts_hostlist_expand(&h, "gpu[000000-199999]", 18, 200000));
    ck_assert_uint_eq(ts_hostlist_count(&h), 200000);
    ck_assert_str_eq(ts_hostlist_name(&h, 0), "gpu000000");
    ck_assert_str_eq(ts_hostlist_name(&h, 123456), "gpu123456");
    ck_assert_str_eq(ts_hostlist_name(&h, 199999), "gpu199999");
    ts_hostlist_free(&h);
}
END_TEST

/* ---- Slurm compatibility: separators and expansion order ---------------------------------
 *
 * The expected lists below are what `scontrol show hostnames EXPR` of Slurm 22.05.8 (Debian 12
 * package slurm-client) printed, copied by hand; they are not produced by the code under test. */

START_TEST(hostlist_stray_separators)
{
    /* scontrol: "n1,,n2" -> n1 n2; "s1,s2," -> s1 s2; ",a" -> a; "a," -> a */
    EXPANDS_TO("n1,,n2", "n1", "n2");
    EXPANDS_TO("s1,s2,", "s1", "s2");
    EXPANDS_TO(",a", "a");
    EXPANDS_TO("a,", "a");
    /* scontrol: "a[1-2] ,, b" -> a1 a2 b; "a,b c" -> a b c; "a<TAB>b" -> a b */
    EXPANDS_TO("a[1-2] ,, b", "a1", "a2", "b");
    EXPANDS_TO("a,b c", "a", "b", "c");
    EXPANDS_TO("a\tb", "a", "b");
    EXPANDS_TO("a[1-2]b[1-2]c[1-2],,d", "a1b1c1", "a1b1c2", "a2b1c1", "a2b1c2", "a1b2c1", "a1b2c2", "a2b2c1",
               "a2b2c2", "d");
    /* scontrol prints nothing for ",": a list of separators names no host */
    static const char *const empty[] = {",", "", " , ,", ",,\t"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        ts_hostlist h;
        ts_hostlist_init(&h);
        size_t names = 7, bytes = 7;
        ck_assert_ok(ts_hostlist_measure(&names, &bytes, empty[i], strlen(empty[i]), 10));
        ck_assert_uint_eq(names, 0);
        ck_assert_uint_eq(bytes, 0);
        ck_assert_ok(ts_hostlist_expand(&h, empty[i], strlen(empty[i]), 10));
        ck_assert_uint_eq(ts_hostlist_count(&h), 0);
        ts_hostlist_free(&h);
    }
    /* inside brackets a comma still needs numbers on both sides (scontrol: "Invalid hostlist") */
    hostlist_rejects("a[1,,2]", TSCHED_E_PARSE, "empty range");
    hostlist_rejects("a[1,]", TSCHED_E_PARSE, "empty range");
    hostlist_rejects("a[ 1]", TSCHED_E_PARSE, "non-digit ' '");
}
END_TEST

START_TEST(hostlist_slurm_order)
{
    /* all from `scontrol show hostnames` of Slurm 22.05 */
    EXPANDS_TO("r[1-2]n[1-2]p[1-2]", "r1n1p1", "r1n1p2", "r2n1p1", "r2n1p2", "r1n2p1", "r1n2p2", "r2n2p1",
               "r2n2p2");
    EXPANDS_TO("a[1-2]b[1-3]c[1-2]d[1-2]", "a1b1c1d1", "a1b1c1d2", "a2b1c1d1", "a2b1c1d2", "a1b2c1d1", "a1b2c1d2",
               "a2b2c1d1", "a2b2c1d2", "a1b3c1d1", "a1b3c1d2", "a2b3c1d1", "a2b3c1d2", "a1b1c2d1", "a1b1c2d2",
               "a2b1c2d1", "a2b1c2d2", "a1b2c2d1", "a1b2c2d2", "a2b2c2d1", "a2b2c2d2", "a1b3c2d1", "a1b3c2d2",
               "a2b3c2d1", "a2b3c2d2");
    EXPANDS_TO("r[2,1]n[1-2]p[1-2]", "r2n1p1", "r2n1p2", "r1n1p1", "r1n1p2", "r2n2p1", "r2n2p2", "r1n2p1",
               "r1n2p2");
    EXPANDS_TO("a[8-10]b[1-2]c[1-2]", "a8b1c1", "a8b1c2", "a9b1c1", "a9b1c2", "a10b1c1", "a10b1c2", "a8b2c1",
               "a8b2c2", "a9b2c1", "a9b2c2", "a10b2c1", "a10b2c2");
    EXPANDS_TO("a[1-3]b[1,3]c[01-2]", "a1b1c01", "a1b1c02", "a2b1c01", "a2b1c02", "a3b1c01", "a3b1c02", "a1b3c01",
               "a1b3c02", "a2b3c01", "a2b3c02", "a3b3c01", "a3b3c02");
    EXPANDS_TO("a[00-2]b[1-2]c[1-2]", "a00b1c1", "a00b1c2", "a01b1c1", "a01b1c2", "a02b1c1", "a02b1c2", "a00b2c1",
               "a00b2c2", "a01b2c1", "a01b2c2", "a02b2c1", "a02b2c2");
    EXPANDS_TO("a1b[1-2]c[1-2]d[1-2]", "a1b1c1d1", "a1b1c1d2", "a1b2c1d1", "a1b2c1d2", "a1b1c2d1", "a1b1c2d2",
               "a1b2c2d1", "a1b2c2d2");
    EXPANDS_TO("a[1-2]b[3]c[1-2]", "a1b3c1", "a1b3c2", "a2b3c1", "a2b3c2");
    EXPANDS_TO("a[1-2]b[1-2]c[1-2]d[1-2]e[1-2]", "a1b1c1d1e1", "a1b1c1d1e2", "a2b1c1d1e1", "a2b1c1d1e2",
               "a1b2c1d1e1", "a1b2c1d1e2", "a2b2c1d1e1", "a2b2c1d1e2", "a1b1c2d1e1", "a1b1c2d1e2", "a2b1c2d1e1",
               "a2b1c2d1e2", "a1b2c2d1e1", "a1b2c2d1e2", "a2b2c2d1e1", "a2b2c2d1e2", "a1b1c1d2e1", "a1b1c1d2e2",
               "a2b1c1d2e1", "a2b1c1d2e2", "a1b2c1d2e1", "a1b2c1d2e2", "a2b2c1d2e1", "a2b2c1d2e2", "a1b1c2d2e1",
               "a1b1c2d2e2", "a2b1c2d2e1", "a2b1c2d2e2", "a1b2c2d2e1", "a1b2c2d2e2", "a2b2c2d2e1", "a2b2c2d2e2");
    EXPANDS_TO("r[1-2]n[1-2]p[1-2],x[1-2]", "r1n1p1", "r1n1p2", "r2n1p1", "r2n1p2", "r1n2p1", "r1n2p2", "r2n2p1",
               "r2n2p2", "x1", "x2");
    /* two groups: the plain odometer */
    EXPANDS_TO("[1-2]a[1-2]", "1a1", "1a2", "2a1", "2a2");
    EXPANDS_TO("a[1-2][3-4]", "a13", "a14", "a23", "a24");
    EXPANDS_TO("a[1-2]-b[1-2]", "a1-b1", "a1-b2", "a2-b1", "a2-b2");
}
END_TEST

/* An independent reference for the randomized test: Slurm's own recursion, as read in
 * src/common/hostlist.c (_push_range_list) and rewritten here in the plainest way. The last
 * bracket group of an item is the innermost range; the text before it is expanded by taking
 * its last group, and for each of that group's values (outermost loop) the rest recurses. */
typedef struct ref_list {
    char **v;
    size_t n, cap;
} ref_list;

static void ref_push(ref_list *l, const char *s, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        ck_assert_ptr_nonnull(l->v);
    }
    char *c = malloc(n + 1);
    ck_assert_ptr_nonnull(c);
    memcpy(c, s, n);
    c[n] = '\0';
    l->v[l->n++] = c;
}

static void ref_free(ref_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* The values of "lo-hi,lo,..." (between brackets) printed with their padding, in order. */
static void ref_values(ref_list *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        const char *dash = memchr(s + i, '-', j - i);
        size_t lo_len = dash ? (size_t)(dash - (s + i)) : j - i;
        unsigned long long lo = strtoull(s + i, NULL, 10), hi = dash ? strtoull(dash + 1, NULL, 10) : lo;
        for (unsigned long long v = lo; v <= hi; v++) {
            char buf[40];
            int w = snprintf(buf, sizeof buf, "%0*llu", (int)lo_len, v);
            ref_push(out, buf, (size_t)w);
        }
        i = j + 1;
    }
}

static void ref_prefix(ref_list *out, const char *pre, size_t plen, const ref_list *inner)
{
    const char *open = NULL;
    for (size_t i = 0; i < plen; i++)
        if (pre[i] == '[')
            open = pre + i;
    if (!open) {
        for (size_t k = 0; k < inner->n; k++) {
            char buf[256];
            int w = snprintf(buf, sizeof buf, "%.*s%s", (int)plen, pre, inner->v[k]);
            ref_push(out, buf, (size_t)w);
        }
        return;
    }
    const char *close = memchr(open, ']', plen - (size_t)(open - pre));
    ref_list vals = {0};
    ref_values(&vals, open + 1, (size_t)(close - open - 1));
    for (size_t k = 0; k < vals.n; k++) {
        char buf[256];
        int w = snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)(open - pre), pre, vals.v[k],
                         (int)(plen - (size_t)(close + 1 - pre)), close + 1);
        ref_prefix(out, buf, (size_t)w, inner);
    }
    ref_free(&vals);
}

static void ref_expand(ref_list *out, const char *expr)
{
    size_t i = 0, n = strlen(expr);
    while (i < n) {
        size_t j = i;
        int depth = 0;
        while (j < n && (depth || !strchr(", \t", expr[j]))) {
            depth += expr[j] == '[' ? 1 : expr[j] == ']' ? -1 : 0;
            j++;
        }
        if (j > i) {
            const char *item = expr + i, *open = NULL;
            for (size_t k = i; k < j; k++)
                if (expr[k] == '[')
                    open = expr + k;
            if (!open) {
                ref_push(out, item, j - i);
            } else { /* the item ends with the group */
                ref_list inner = {0};
                ref_values(&inner, open + 1, (size_t)(expr + j - 1 - open - 1));
                ref_prefix(out, item, (size_t)(open - item), &inner);
                ref_free(&inner);
            }
        }
        i = j + 1;
    }
}

START_TEST(hostlist_random_vs_reference)
{
    uint32_t seed = 20240522u;
#define RND(m) ((seed = seed * 1664525u + 1013904223u), (seed >> 8) % (m))
    static const char *const seps[] = {",", ",,", " ", ", ", "\t"};
    for (int round = 0; round < 500; round++) {
        char expr[512];
        size_t len = 0;
        if (RND(4) == 0)
            expr[len++] = ','; /* a stray leading comma */
        unsigned items = 1 + RND(3);
        for (unsigned it = 0; it < items; it++) {
            if (it)
                len += (size_t)sprintf(expr + len, "%s", seps[RND(5)]);
            unsigned groups = RND(5); /* 0..4 bracket groups */
            len += (size_t)sprintf(expr + len, "%c", 'a' + (int)RND(26));
            for (unsigned g = 0; g < groups; g++) {
                if (g && RND(2))
                    len += (size_t)sprintf(expr + len, "%c", 'a' + (int)RND(26));
                expr[len++] = '[';
                unsigned ranges = 1 + RND(2);
                for (unsigned r = 0; r < ranges; r++) {
                    unsigned lo = RND(12), span = RND(3), width = 1 + RND(3);
                    if (r)
                        expr[len++] = ',';
                    len += (size_t)sprintf(expr + len, "%0*u", (int)width, lo);
                    if (span)
                        len += (size_t)sprintf(expr + len, "-%u", lo + span);
                }
                expr[len++] = ']';
            }
        }
        if (RND(4) == 0)
            expr[len++] = ','; /* a trailing comma */
        expr[len] = '\0';

        ref_list want = {0};
        ref_expand(&want, expr);
        ts_hostlist h;
        ts_hostlist_init(&h);
        ck_assert_msg(ts_hostlist_expand(&h, expr, len, 100000) == TSCHED_OK, "%s: %s", expr, tsched_last_error());
        ck_assert_msg(ts_hostlist_count(&h) == want.n, "%s: %zu names, reference %zu", expr, ts_hostlist_count(&h),
                      want.n);
        for (size_t i = 0; i < want.n; i++)
            ck_assert_msg(strcmp(ts_hostlist_name(&h, i), want.v[i]) == 0, "%s: name %zu is %s, reference %s", expr,
                          i, ts_hostlist_name(&h, i), want.v[i]);
        size_t names = 0;
        ck_assert_ok(ts_hostlist_measure(&names, NULL, expr, len, 100000));
        ck_assert_uint_eq(names, want.n);
        ts_hostlist_free(&h);
        ref_free(&want);
    }
#undef RND
}
END_TEST

/* The reference itself must agree with what scontrol printed, or it proves nothing. */
START_TEST(reference_matches_scontrol)
{
    ref_list l = {0};
    ref_expand(&l, "a[1-2]b[1-3]c[1-2]d[1-2],,x");
    ck_assert_uint_eq(l.n, 25);
    ck_assert_str_eq(l.v[0], "a1b1c1d1");
    ck_assert_str_eq(l.v[2], "a2b1c1d1");
    ck_assert_str_eq(l.v[4], "a1b2c1d1");
    ck_assert_str_eq(l.v[12], "a1b1c2d1");
    ck_assert_str_eq(l.v[23], "a2b3c2d2");
    ck_assert_str_eq(l.v[24], "x");
    ref_free(&l);
}
END_TEST

/* ---- the three-level fixture ------------------------------------------------------------ */

static tsched_topology *three_level(void)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/three_level.conf", NULL));
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(three_level_shape)
{
    tsched_topology *t = three_level();
    ck_assert_str_eq(tsched_topology_name(t), "slurm");
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_LEAF), 8);
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_SPINE), 4);
    ck_assert_uint_eq(tsched_topology_num_tier(t, TSCHED_TIER_CORE), 2);
    ck_assert_uint_eq(tsched_topology_num_switches(t), 14);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 128);
    ck_assert_uint_eq(tsched_topology_num_gpus(t), 128 * 8);
    ck_assert_uint_eq(tsched_topology_num_trunks(t), 4 * 4 + 4 * 2);

    /* leaves in file order, then spines, then cores, although the file starts with cores */
    static const char *const order[] = {"leaf0", "leaf1", "leaf2", "leaf3", "leaf4", "leaf5", "leaf6",
                                        "leaf7", "spine0", "spine1", "spine2", "spine3", "core0", "core1"};
    for (uint32_t i = 0; i < 14; i++) {
        ck_assert_str_eq(tsched_topology_switch_name(t, i), order[i]);
        ck_assert_int_eq(tsched_topology_switch_tier(t, i), i < 8 ? 0 : i < 12 ? 1 : 2);
    }

    /* pods: the two leaf-spine components, pod0 holding the first leaf */
    ck_assert_uint_eq(tsched_topology_num_pods(t), 2);
    uint32_t p0 = tsched_topology_find_pod(t, "pod0"), p1 = tsched_topology_find_pod(t, "pod1");
    ck_assert_uint_ne(p0, TSCHED_NONE);
    ck_assert_uint_ne(p1, TSCHED_NONE);
    uint32_t n = 0;
    const uint32_t *leaves = tsched_topology_pod_leaves(t, p0, &n);
    ck_assert_uint_eq(n, 4);
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_uint_eq(leaves[i], tu_sw(t, order[i]));
    leaves = tsched_topology_pod_leaves(t, p1, &n);
    ck_assert_uint_eq(n, 4);
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_uint_eq(leaves[i], tu_sw(t, order[4 + i]));
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "spine1")), p0);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "spine2")), p1);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "core0")), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_node_pod(t, tu_node(t, "gpu065")), p1);

    /* nodes leaf by leaf, in hostlist order */
    ck_assert_str_eq(tsched_topology_node_name(t, 0), "gpu001");
    ck_assert_str_eq(tsched_topology_node_name(t, 47), "gpu048");
    ck_assert_str_eq(tsched_topology_node_name(t, 119), "gpu120");
    ck_assert_str_eq(tsched_topology_node_name(t, 120), "big1");
    ck_assert_str_eq(tsched_topology_node_name(t, 127), "big8");
    ck_assert_str_eq(leaf_of(t, "gpu001"), "leaf0");
    ck_assert_str_eq(leaf_of(t, "gpu016"), "leaf0");
    ck_assert_str_eq(leaf_of(t, "gpu017"), "leaf1");
    ck_assert_str_eq(leaf_of(t, "gpu041"), "leaf2");
    ck_assert_str_eq(leaf_of(t, "gpu064"), "leaf3");
    ck_assert_str_eq(leaf_of(t, "gpu081"), "leaf5"); /* the continued line */
    ck_assert_str_eq(leaf_of(t, "gpu097"), "leaf6"); /* lower-case key */
    ck_assert_str_eq(leaf_of(t, "big8"), "leaf7");
    n = 0;
    tsched_topology_leaf_nodes(t, tu_sw(t, "leaf7"), &n);
    ck_assert_uint_eq(n, 16);

    /* defaults: 8 GPUs, one 400 Gbit/s NIC per GPU; leaf3's LinkSpeed sets its NICs */
    uint32_t g1 = tu_node(t, "gpu001"), g50 = tu_node(t, "gpu050");
    ck_assert_uint_eq(tsched_topology_node_gpus(t, g1), 8);
    ck_assert_uint_eq(tsched_topology_node_nics(t, g1), 8);
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, g1), "GPU");
    ck_assert_double_eq_tol(tsched_topology_node_nic_gbps(t, g1), 400, 1e-9);
    ck_assert_double_eq_tol(tsched_topology_node_nic_gbps(t, g50), 200, 1e-9);
    tsched_topology_free(t);
}
END_TEST

START_TEST(three_level_capacity)
{
    tsched_topology *t = three_level();
    const double leaf400 = 16 * 8 * 400.0, leaf200 = 16 * 8 * 200.0; /* what a leaf's NICs carry */
    /* non-blocking: a leaf under two spines sends half of it up each */
    ck_assert_double_eq_tol(trunk_gbps(t, "leaf0", "spine0"), leaf400 / 2, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "leaf3", "spine0"), leaf200 / 2, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "leaf7", "spine3"), leaf400 / 2, 1e-6);
    /* spine1 has LinkSpeed=1600: every trunk to its children */
    ck_assert_double_eq_tol(trunk_gbps(t, "leaf0", "spine1"), 1600, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "leaf3", "spine1"), 1600, 1e-6);
    ck_assert_uint_eq(tsched_topology_trunk_links(t, tu_trunk(t, "leaf3", "spine1")), 1);
    /* a spine passes up what its downlinks carry, split over its two cores */
    ck_assert_double_eq_tol(trunk_gbps(t, "spine0", "core0"), (3 * leaf400 / 2 + leaf200 / 2) / 2, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "spine0", "core1"), (3 * leaf400 / 2 + leaf200 / 2) / 2, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "spine1", "core0"), 4 * 1600 / 2.0, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "spine2", "core1"), 4 * (leaf400 / 2) / 2, 1e-6);
    ck_assert_uint_eq(tsched_topology_trunk_links(t, tu_trunk(t, "spine2", "core1")), 1);
    uint32_t r = tu_trunk(t, "spine2", "core1");
    ck_assert_uint_eq(tsched_topology_trunk_lower(t, r), tu_sw(t, "spine2"));
    ck_assert_uint_eq(tsched_topology_trunk_upper(t, r), tu_sw(t, "core1"));
    /* no wiring that the file does not state */
    ck_assert_uint_eq(tsched_topology_find_trunk(t, tu_sw(t, "leaf0"), tu_sw(t, "spine2")), TSCHED_NONE);
    tsched_topology_free(t);
}
END_TEST

START_TEST(three_level_paths)
{
    tsched_topology *t = three_level();
    ck_assert_uint_eq(paths(t, "gpu001", "gpu002"), 1); /* one leaf */
    ck_assert_uint_eq(paths(t, "gpu001", "gpu017"), 2); /* spine0 or spine1 */
    ck_assert_uint_eq(paths(t, "gpu049", "gpu033"), 2);
    ck_assert_uint_eq(paths(t, "big1", "gpu065"), 2); /* pod 1: spine2 or spine3 */
    /* across pods: 2 cores x 2 spines up x 2 spines down */
    ck_assert_uint_eq(paths(t, "gpu001", "gpu065"), 8);
    ck_assert_uint_eq(paths(t, "big8", "gpu064"), 8);
    tsched_topology_free(t);
}
END_TEST

/* ---- two levels, options, syntax ----------------------------------------------------------- */

START_TEST(two_level_no_pods)
{
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/two_level.conf", NULL));
    ck_assert_uint_eq(tsched_topology_num_tier(t, 0), 3);
    ck_assert_uint_eq(tsched_topology_num_tier(t, 1), 2);
    ck_assert_uint_eq(tsched_topology_num_tier(t, 2), 0);
    ck_assert_uint_eq(tsched_topology_num_pods(t), 0);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "tor1")), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8 + 8 + 4);
    ck_assert_str_eq(tsched_topology_node_name(t, 4), "tux12");
    ck_assert_str_eq(tsched_topology_node_name(t, 7), "tux20");
    ck_assert_str_eq(tsched_topology_node_name(t, 16), "ib-r1n01");
    ck_assert_str_eq(tsched_topology_node_name(t, 19), "ib-r2n02");
    ck_assert_str_eq(leaf_of(t, "ib-r2n01"), "tor3");
    ck_assert_uint_eq(tsched_topology_node_pod(t, tu_node(t, "tux0")), TSCHED_NONE);
    ck_assert_double_eq_tol(trunk_gbps(t, "tor1", "agg1"), 800, 1e-9);
    ck_assert_double_eq_tol(trunk_gbps(t, "tor1", "agg2"), 8 * 8 * 400 / 2.0, 1e-6);
    ck_assert_double_eq_tol(trunk_gbps(t, "tor3", "agg2"), 4 * 8 * 400 / 2.0, 1e-6);
    ck_assert_uint_eq(paths(t, "tux0", "tux21"), 2);
    ck_assert_uint_eq(paths(t, "tux0", "tux3"), 1);
    tsched_topology_free(t);
}
END_TEST

START_TEST(options_apply)
{
    tsched_slurm_options o;
    memset(&o, 0xff, sizeof o);
    tsched_slurm_options_init(&o);
    ck_assert_uint_eq(o.size, sizeof o);
    ck_assert_uint_eq(o.gpus_per_node, 8);
    ck_assert_uint_eq(o.nics_per_node, 0);
    ck_assert_double_eq(o.nic_gbps, 400);
    ck_assert_ptr_null(o.gpu_type);
    ck_assert_ptr_null(o.name);
    tsched_slurm_options_init(NULL); /* no crash */

    o.gpus_per_node = 4;
    o.nics_per_node = 2;
    o.nic_gbps = 100;
    o.gpu_type = "H100";
    o.name = "cluster-b";
    tsched_topology *t = NULL;
    ck_assert_ok(tsched_topology_import_slurm_file(&t, SLURM_DATA "/two_level.conf", &o));
    ck_assert_str_eq(tsched_topology_name(t), "cluster-b");
    uint32_t n = tu_node(t, "tux21");
    ck_assert_uint_eq(tsched_topology_node_gpus(t, n), 4);
    ck_assert_uint_eq(tsched_topology_node_nics(t, n), 2);
    ck_assert_str_eq(tsched_topology_node_gpu_type(t, n), "H100");
    ck_assert_double_eq_tol(tsched_topology_node_nic_gbps(t, n), 100, 1e-9);
    ck_assert_double_eq_tol(trunk_gbps(t, "tor2", "agg2"), 8 * 2 * 100 / 2.0, 1e-9);
    ck_assert_double_eq_tol(trunk_gbps(t, "tor2", "agg1"), 800, 1e-9);
    tsched_topology_free(t);

    /* nics_per_node 0 means one NIC per GPU */
    o.nics_per_node = 0;
    t = import_ok("SwitchName=s Nodes=a", &o);
    ck_assert_uint_eq(tsched_topology_node_nics(t, 0), 4);
    tsched_topology_free(t);
}
END_TEST

START_TEST(options_invalid)
{
    tsched_topology *t = NULL;
    const char *text = "SwitchName=s Nodes=a";
    tsched_slurm_options o;
    tsched_slurm_options_init(&o);
    o.gpus_per_node = 0;
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("gpus_per_node");
    o.gpus_per_node = 1025;
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("gpus_per_node");
    o.gpus_per_node = 1024;
    o.nics_per_node = 8;
    t = import_ok(text, &o);
    ck_assert_uint_eq(tsched_topology_node_gpus(t, 0), 1024);
    tsched_topology_free(t);
    t = NULL;
    o.nics_per_node = 0; /* 1024 NICs: more than a node may have */
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("nics_per_node");

    double bad[] = {0, -400, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tsched_slurm_options_init(&o);
        o.nic_gbps = bad[i];
        ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), &o), TSCHED_E_INVALID);
        ck_assert_errmsg_has("nic_gbps");
        ck_assert_ptr_null(t);
    }
    tsched_slurm_options_init(&o);
    o.size = sizeof o - 1;
    ck_assert_status(tsched_topology_import_slurm_string(&t, text, strlen(text), &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("size");

    ck_assert_status(tsched_topology_import_slurm_string(NULL, text, strlen(text), NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_import_slurm_string(&t, NULL, 5, NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_import_slurm_file(NULL, "x", NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_topology_import_slurm_file(&t, NULL, NULL), TSCHED_E_INVALID);
}
END_TEST

START_TEST(syntax_accepted)
{
    /* CRLF, comments, blank lines, tabs, case-insensitive keys, a continued line, and a
     * continuation on the last line; LinkSpeed with a fraction. */
    const char *text = "\r\n# header\r\n\r\n"
                       "sWiTcHnAmE=t1\tNODES=n[1-2]   # two nodes\r\n"
                       "SwitchName=t2 \\\r\n"
                       "   Nodes=n[3-4] \\\r\n"
                       "   LINKSPEED=12.5\r\n"
                       "SwitchName=up Switches=t[1-2] \\";
    tsched_topology *t = import_ok(text, NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 4);
    ck_assert_str_eq(leaf_of(t, "n4"), "t2");
    ck_assert_double_eq_tol(tsched_topology_node_nic_gbps(t, tu_node(t, "n3")), 12.5, 1e-12);
    ck_assert_int_eq(tsched_topology_switch_tier(t, tu_sw(t, "up")), 1);
    /* one parent: the whole leaf capacity goes up */
    ck_assert_double_eq_tol(trunk_gbps(t, "t2", "up"), 2 * 8 * 12.5, 1e-9);
    tsched_topology_free(t);

    /* a switch with neither Nodes= nor Switches= is an empty leaf; its uplink keeps the
     * wiring with one link at nic_gbps, as there is nothing below it */
    t = import_ok("SwitchName=e\nSwitchName=s Switches=e\n", NULL);
    ck_assert_int_eq(tsched_topology_switch_tier(t, tu_sw(t, "e")), 0);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 0);
    ck_assert_double_eq_tol(trunk_gbps(t, "e", "s"), 400, 1e-9);
    tsched_topology_free(t);

    /* a lone leaf is a fabric too */
    t = import_ok("SwitchName=only Nodes=x[1-3]", NULL);
    ck_assert_uint_eq(tsched_topology_num_switches(t), 1);
    ck_assert_uint_eq(paths(t, "x1", "x3"), 1);
    tsched_topology_free(t);
}
END_TEST

/* Rules of Slurm's config parser (src/common/parse_config.c of Slurm 22.05: the key=value
 * regex and _get_next_line()); each case was rejected or read differently before. */
START_TEST(syntax_slurm_quotes)
{
    /* quotes are removed, as by the regex's "([^"]*)" branch */
    tsched_topology *t = import_ok("SwitchName=\"s1\" Nodes=\"n[1-4]\"\n"
                                   "SwitchName=\"top\" Switches=\"s1\" LinkSpeed=\"100\"\n", NULL);
    ck_assert_uint_ne(tsched_topology_find_switch(t, "s1"), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_find_switch(t, "\"s1\""), TSCHED_NONE);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 4);
    ck_assert_str_eq(tsched_topology_node_name(t, 0), "n1");
    ck_assert_str_eq(tsched_topology_node_name(t, 3), "n4");
    ck_assert_double_eq_tol(trunk_gbps(t, "s1", "top"), 100, 1e-9);
    tsched_topology_free(t);

    /* a quoted value may hold blanks, which then separate hostlist items (hostlist_create
     * splits on ",", blank and tab) */
    t = import_ok("SwitchName=l Nodes=\"n[1-2], m7  x\"\n", NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 4);
    ck_assert_str_eq(tsched_topology_node_name(t, 1), "n2");
    ck_assert_str_eq(tsched_topology_node_name(t, 2), "m7");
    ck_assert_str_eq(tsched_topology_node_name(t, 3), "x");
    tsched_topology_free(t);

    /* a quote inside an unquoted value is an ordinary byte, as for Slurm */
    t = import_ok("SwitchName=a\"b Nodes=x\n", NULL);
    ck_assert_uint_ne(tsched_topology_find_switch(t, "a\"b"), TSCHED_NONE);
    tsched_topology_free(t);

    /* "" is an empty value; an unclosed quote is an error naming line and key */
    import_fails("SwitchName=a\nSwitchName=b Nodes=\"\"\n", TSCHED_E_PARSE, "line 2", "Nodes= has an empty value");
    import_fails("SwitchName=a\nSwitchName=b Nodes=\"n[1-2]\n", TSCHED_E_PARSE, "line 2: Nodes=", "closing '\"'");
    import_fails("SwitchName=a Nodes=\"n1\"x\n", TSCHED_E_PARSE, "line 1: Nodes=", "closing '\"'");
}
END_TEST

START_TEST(syntax_slurm_continuation)
{
    /* the break falls inside the hostlist: the lines are joined with nothing in between */
    tsched_topology *t = import_ok("SwitchName=l1 Nodes=n[1-2,\\\n3-4]\n"
                                   "SwitchName=l2 Nodes=gpu[001-0\\\n04]\n"
                                   "SwitchName=s Swi\\\ntches=l[1-2]\n",
                                   NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8);
    ck_assert_str_eq(leaf_of(t, "n4"), "l1");
    ck_assert_str_eq(leaf_of(t, "gpu004"), "l2");
    ck_assert_int_eq(tsched_topology_switch_tier(t, tu_sw(t, "s")), 1);
    tsched_topology_free(t);

    /* blanks (and CR) after the backslash do not matter; a comment after it neither */
    t = import_ok("SwitchName=l1 Nodes=a,\\   \r\nb   \nSwitchName=l2 Nodes=c,\\ # more below\nd\n", NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 4);
    ck_assert_str_eq(leaf_of(t, "b"), "l1");
    ck_assert_str_eq(leaf_of(t, "d"), "l2");
    tsched_topology_free(t);

    /* an even number of backslashes is no continuation: "\\" is one backslash, in the name */
    import_fails("SwitchName=a\\\\\nNodes=x\n", TSCHED_E_PARSE, "line 2", "without SwitchName");
    /* an escaped '#' is not a comment; the model then refuses '#' in a name */
    import_fails("SwitchName=l Nodes=a\\#1\n", TSCHED_E_INVALID, "line 1: Nodes=", "'#'");

    /* errors name the physical line of the token, also inside a joined value */
    import_fails("SwitchName=a \\\n  Nodes=n[1-2,\\\n5-3]\n", TSCHED_E_PARSE, "line 2: Nodes=", "lo > hi");
    import_fails("SwitchName=a \\\n\\\n  Foo=1\n", TSCHED_E_PARSE, "line 3", "unknown key \"Foo\"");
}
END_TEST

START_TEST(syntax_slurm_blanks_around_equals)
{
    tsched_topology *t = import_ok("SwitchName = l1 Nodes =n[1-2]\n"
                                   "SwitchName\t=\tl2   Nodes=   m1\n"
                                   "SwitchName= s Switches =l[1-2] LinkSpeed = 50\n",
                                   NULL);
    ck_assert_uint_eq(tsched_topology_num_switches(t), 3);
    ck_assert_str_eq(leaf_of(t, "n2"), "l1");
    ck_assert_str_eq(leaf_of(t, "m1"), "l2");
    ck_assert_double_eq_tol(trunk_gbps(t, "l2", "s"), 50, 1e-9);
    tsched_topology_free(t);

    /* "Nodes= Switches=x" is an empty Nodes= (Slurm would read the value "Switches=x") */
    import_fails("SwitchName=a Nodes= Switches=b\n", TSCHED_E_PARSE, "line 1", "Nodes= has an empty value");
    import_fails("SwitchName=a Nodes =\n", TSCHED_E_PARSE, "line 1", "Nodes= has an empty value");
    import_fails("SwitchName=a Nodes += x\n", TSCHED_E_PARSE, "line 1", "+=");
}
END_TEST

START_TEST(syntax_slurm_stray_commas_and_order)
{
    tsched_topology *t = import_ok("SwitchName=l1 Nodes=n1,,n2,\n"
                                   "SwitchName=l2 Nodes=,m1\n"
                                   "SwitchName=s Switches=l1,l2,\n",
                                   NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 3);
    ck_assert_str_eq(tsched_topology_node_name(t, 1), "n2");
    ck_assert_uint_ne(tsched_topology_find_trunk(t, tu_sw(t, "l2"), tu_sw(t, "s")), TSCHED_NONE);
    tsched_topology_free(t);

    /* nodes of a leaf in the order scontrol show hostnames prints (Slurm 22.05) */
    t = import_ok("SwitchName=l Nodes=r[1-2]n[1-2]p[1-2]\n", NULL);
    static const char *const order[] = {"r1n1p1", "r1n1p2", "r2n1p1", "r2n1p2",
                                        "r1n2p1", "r1n2p2", "r2n2p1", "r2n2p2"};
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 8);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_str_eq(tsched_topology_node_name(t, i), order[i]);
    tsched_topology_free(t);
}
END_TEST

/* Every byte of the message is printable ASCII or UTF-8 without control characters. */
static void assert_one_line(void)
{
    const char *m = tsched_last_error();
    size_t n = strlen(m);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)m[i];
        ck_assert_msg(c >= 0x20 && c != 0x7f, "control byte 0x%02x at %zu in: %s", c, i, m);
        ck_assert_msg(!(c == 0xc2 && i + 1 < n && (unsigned char)m[i + 1] < 0xa0), "C1 control at %zu", i);
    }
}

START_TEST(errors_stay_one_line)
{
    static const struct {
        const char *text;
        size_t len;
        tsched_status st;
        const char *n1, *n2;
    } cases[] = {
#define C(t, st, a, b) {t, sizeof t - 1, st, a, b}
        C("SwitchName=a\x01" "b Nodes=x\n", TSCHED_E_INVALID, "line 1: SwitchName=", "\\x01"),
        C("SwitchName=a\nSwitchName=b Nodes=x\x1b[31m\n", TSCHED_E_PARSE, "line 2: Nodes=", "\\x1b"),
        C("SwitchName=a\nSwitchName=b Nodes=n1,x\x7fy\n", TSCHED_E_INVALID, "line 2: Nodes=", "\\x7f"),
        C("SwitchName=a\nSwitchName=b Nodes=\"x\x0by\"\n", TSCHED_E_INVALID, "line 2: Nodes=", "\\x0b"),
        C("SwitchName=a Nodes=\xc2\x85" "x\n", TSCHED_E_INVALID, "line 1: Nodes=", "\\xc2\\x85"),
        C("SwitchName=a Nodes=\xff\n", TSCHED_E_INVALID, "line 1: Nodes=", "\\xff"),
        C("SwitchName=a F\x1b=1\n", TSCHED_E_PARSE, "line 1", "is not Key=Value"),
        C("SwitchName=a Nodes=\"n[1-2]\nSwitchName=b\n", TSCHED_E_PARSE, "line 1: Nodes=", "closing"),
        C("SwitchName=a Nodes=n[1\x02]\n", TSCHED_E_PARSE, "line 1: Nodes=", "0x02"),
        C("SwitchName=a\nSwitchName=b Switches=a,c\x03\n", TSCHED_E_NOT_FOUND, "line 2: Switches=", "\\x03"),
        C("SwitchName=s\x04 Switches=s\x04\n", TSCHED_E_INVALID, "line 1: SwitchName=", "\\x04"),
#undef C
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        import_fails_len(cases[i].text, cases[i].len, cases[i].st, cases[i].n1, cases[i].n2);
        assert_one_line();
    }

    /* a path with a newline and an escape sequence, from the file reader's own message */
    tsched_topology *t = NULL;
    ck_assert_status(tsched_topology_import_slurm_file(&t, "/no/such\ndir\x1b/topology.conf", NULL), TSCHED_E_IO);
    assert_one_line();
    ck_assert_errmsg_has("such\\ndir\\x1b");
}
END_TEST

START_TEST(pods_by_component)
{
    /* l1 is the first leaf, so its component (with sB) is pod0 although sA comes first;
     * s0 and s1 share leaf m1, which joins them into one pod. */
    const char *text = "SwitchName=c Switches=sA,sB,s0,s1\n"
                       "SwitchName=sA Switches=l2\n"
                       "SwitchName=sB Switches=l1\n"
                       "SwitchName=s0 Switches=m0,m1\n"
                       "SwitchName=s1 Switches=m1,m2\n"
                       "SwitchName=l1 Nodes=n1\n"
                       "SwitchName=l2 Nodes=n2\n"
                       "SwitchName=m0 Nodes=k0\n"
                       "SwitchName=m1 Nodes=k1\n"
                       "SwitchName=m2 Nodes=k2\n";
    tsched_topology *t = import_ok(text, NULL);
    ck_assert_uint_eq(tsched_topology_num_pods(t), 3);
    uint32_t p0 = tsched_topology_find_pod(t, "pod0"), p1 = tsched_topology_find_pod(t, "pod1"),
             p2 = tsched_topology_find_pod(t, "pod2");
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "l1")), p0);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "sB")), p0);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "l2")), p1);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "sA")), p1);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "s0")), p2);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "s1")), p2);
    ck_assert_uint_eq(tsched_topology_switch_pod(t, tu_sw(t, "m2")), p2);
    uint32_t n = 0;
    tsched_topology_pod_leaves(t, p2, &n);
    ck_assert_uint_eq(n, 3);
    /* m1 has two parents: its capacity is split; m0 has one */
    ck_assert_double_eq_tol(trunk_gbps(t, "m1", "s0"), 8 * 400 / 2.0, 1e-9);
    ck_assert_double_eq_tol(trunk_gbps(t, "m0", "s0"), 8 * 400.0, 1e-9);
    ck_assert_double_eq_tol(trunk_gbps(t, "s0", "c"), 8 * 400 + 8 * 400 / 2.0, 1e-9);
    ck_assert_uint_eq(paths(t, "k0", "k2"), 1 * 1 * 1); /* via s0, c, s1 */
    ck_assert_uint_eq(paths(t, "k1", "k2"), 1);         /* common spine s1 */
    ck_assert_uint_eq(paths(t, "n1", "n2"), 1);
    tsched_topology_free(t);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------- */

START_TEST(errors_parse)
{
    import_fails("SwitchName=a Nodes=x\n\nNodes=y\n", TSCHED_E_PARSE, "line 3", "Nodes= without SwitchName");
    import_fails("# c\nSwitchName=a Foo=1\n", TSCHED_E_PARSE, "line 2", "unknown key \"Foo\"");
    import_fails("SwitchName=a Nodes=\n", TSCHED_E_PARSE, "line 1", "Nodes= has an empty value");
    import_fails("SwitchName=\n", TSCHED_E_PARSE, "line 1", "SwitchName= has an empty value");
    import_fails("SwitchName=a\nBlockName=b1 Nodes=n[1-4]\n", TSCHED_E_PARSE, "line 2", "BlockName");
    ck_assert_errmsg_has("tree form");
    import_fails("BlockSizes=4,16\n", TSCHED_E_PARSE, "no switch or block", NULL);
    import_fails("SwitchName=s[1-2] Nodes=a\n", TSCHED_E_PARSE, "line 1", "s[1-2]");
    import_fails("SwitchName=s1,s2\n", TSCHED_E_PARSE, "line 1", "plain name");
    import_fails("SwitchName=a\nSwitchName=s Nodes=n1 Switches=a\n", TSCHED_E_PARSE, "line 2",
                 "both Nodes= and Switches=");
    import_fails("SwitchName=a junk\n", TSCHED_E_PARSE, "line 1", "\"junk\" is not Key=Value");
    import_fails("SwitchName=a Nodes=x nodes=y\n", TSCHED_E_PARSE, "line 1", "given twice");
    import_fails("SwitchName=a\nSwitchName=b Nodes=n[1-\n", TSCHED_E_PARSE, "line 2: Nodes=", "unmatched '['");
    import_fails("SwitchName=a\n\nSwitchName=b Switches=a[1,,2]\n", TSCHED_E_PARSE, "line 3: Switches=", "empty range");
    import_fails("SwitchName=a Nodes=n[3-1]\n", TSCHED_E_PARSE, "line 1: Nodes=", "lo > hi");
    import_fails("SwitchName=a \\\n Nodes=n[1-2] \\\n Foo=1\n", TSCHED_E_PARSE, "line 3", "Foo");
    import_fails("", TSCHED_E_PARSE, "no switch", NULL);
    import_fails("# only a comment\n\n   \n", TSCHED_E_PARSE, "no switch", NULL);
    static const char nul1[] = "SwitchName=a\nSwitchName=b\0c\n", nul2[] = "SwitchName=a\n#\0\n";
    import_fails_len(nul1, sizeof nul1 - 1, TSCHED_E_PARSE, "line 2", "NUL");
    import_fails_len(nul2, sizeof nul2 - 1, TSCHED_E_PARSE, "line 2", "NUL");
}
END_TEST

START_TEST(errors_range)
{
    import_fails("SwitchName=l1 Nodes=a\n"
                 "SwitchName=l2 Nodes=b\n"
                 "SwitchName=s1 Switches=l1\n"
                 "SwitchName=top Switches=l2,s1\n",
                 TSCHED_E_RANGE, "line 4", "\"l2\" is tier 0 but \"s1\" is tier 1");
    ck_assert_errmsg_has("\"top\"");
    /* nine levels: the ninth is one too many */
    import_fails("SwitchName=l Nodes=a\n"
                 "SwitchName=s1 Switches=l\n"
                 "SwitchName=s2 Switches=s1\n"
                 "SwitchName=s3 Switches=s2\n"
                 "SwitchName=s4 Switches=s3\n"
                 "SwitchName=s5 Switches=s4\n"
                 "SwitchName=s6 Switches=s5\n"
                 "SwitchName=s7 Switches=s6\n"
                 "SwitchName=x Switches=s7\n",
                 TSCHED_E_RANGE, "line 9", "\"x\"");
    ck_assert_errmsg_has("at most 8 tiers");
    const char *bad[] = {"0", "-1", "abc", "inf", "nan", "1e3", "", "1.2.3", "2000000000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "SwitchName=l Nodes=a\nSwitchName=s Switches=l LinkSpeed=%s\n", bad[i]);
        import_fails(text, bad[i][0] ? TSCHED_E_RANGE : TSCHED_E_PARSE, "line 2", "LinkSpeed=");
    }
}
END_TEST

START_TEST(errors_not_found_and_cycle)
{
    import_fails("SwitchName=l1 Nodes=a\n"
                 "SwitchName=l2 Nodes=b\n"
                 "# spines\n"
                 "SwitchName=s1 Switches=l[1-2]\n"
                 "\n"
                 "SwitchName=s2 Switches=l1\n"
                 "SwitchName=c Switches=s[1-2],s9\n",
                 TSCHED_E_NOT_FOUND, "line 7: Switches=: no switch named \"s9\"", NULL);
    import_fails("SwitchName=s1 Switches=s2\nSwitchName=s2 Switches=s1\n", TSCHED_E_CYCLE, "s1 -> s2", "s2 -> s1");
    import_fails("SwitchName=s1 Switches=s1\n", TSCHED_E_CYCLE, "line 1", "s1 -> s1");
    /* a cycle below a sound part of the tree */
    import_fails("SwitchName=leaf Nodes=n\n"
                 "SwitchName=a Switches=leaf,b\n"
                 "SwitchName=b Switches=c\n"
                 "SwitchName=c Switches=b\n",
                 TSCHED_E_CYCLE, "b -> c -> b", "line 4");
}
END_TEST

START_TEST(errors_duplicate)
{
    import_fails("SwitchName=a\nSwitchName=b\nSwitchName=a\n", TSCHED_E_DUPLICATE, "line 3", "line 1");
    ck_assert_errmsg_has("\"a\"");
    import_fails("SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[4-6]\n", TSCHED_E_DUPLICATE, "\"n4\"", "line 2");
    ck_assert_errmsg_has("\"l1\"");
    ck_assert_errmsg_has("\"l2\"");
    import_fails("SwitchName=l1 Nodes=n1,n2,n1\n", TSCHED_E_DUPLICATE, "line 1", "\"n1\" is listed twice");
    import_fails("SwitchName=l1 Nodes=x,s1\nSwitchName=s1 Switches=l1\n", TSCHED_E_DUPLICATE, "line 1", "\"s1\"");
    ck_assert_errmsg_has("line 2"); /* where the switch is defined */
    import_fails("SwitchName=l1 Nodes=l1\n", TSCHED_E_DUPLICATE, "\"l1\"", NULL);
    import_fails("SwitchName=l1\nSwitchName=s Switches=l1,l[1-2]\nSwitchName=l2\n", TSCHED_E_DUPLICATE, "line 2",
                 "\"l1\" is listed twice");
}
END_TEST

START_TEST(errors_too_large)
{
    /* 4,194,305 names: refused before they are made */
    import_fails("SwitchName=l Nodes=n[0-4194304]\n", TSCHED_E_TOO_LARGE, "line 1", "Nodes=");
    import_fails("SwitchName=l\nSwitchName=s Switches=l[0-99999999999]\n", TSCHED_E_TOO_LARGE, "line 2",
                 "Switches=");
    import_fails("SwitchName=l Nodes=a[0-999]b[0-999]c[0-999]\n", TSCHED_E_TOO_LARGE, "line 1", NULL);
}
END_TEST

START_TEST(errors_in_builder_name_the_line)
{
    /* '~' is reserved by the model for links; the builder's message gets the line */
    import_fails("SwitchName=ok Nodes=a\nSwitchName=bad~name Nodes=b\n", TSCHED_E_RANGE, "line 2", "bad~name");
    import_fails("SwitchName=ok Nodes=a,b~c\n", TSCHED_E_RANGE, "line 1: Nodes=", "b~c");
}
END_TEST

START_TEST(deep_and_long_inputs)
{
    /* A chain of 100,000 switches: the search must not recurse, and stops at tier 8. */
    const size_t n = 100000;
    size_t cap = n * 48 + 64, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i + 1 < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "SwitchName=s%zu Switches=s%zu\n", i, i + 1);
    len += (size_t)snprintf(text + len, cap - len, "SwitchName=s%zu Nodes=x\n", n - 1);
    import_fails_len(text, len, TSCHED_E_RANGE, "at most 8 tiers", "line 99992");
    ck_assert_errmsg_has("\"s99991\"");

    /* The same chain closed into a cycle. */
    len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "SwitchName=s%zu Switches=s%zu\n", i, (i + 1) % n);
    import_fails_len(text, len, TSCHED_E_CYCLE, "s0 -> s1 -> s2", "...");
    free(text);

    /* A 1 MB switch name is beyond the name limit (DESIGN 3); messages quote it cut short. */
    size_t big = (size_t)1 << 20;
    text = malloc(2 * big + 64);
    ck_assert_ptr_nonnull(text);
    len = (size_t)sprintf(text, "SwitchName=");
    memset(text + len, 'w', big);
    len += big;
    len += (size_t)sprintf(text + len, " Nodes=");
    memset(text + len, 'h', big);
    len += big;
    len += (size_t)sprintf(text + len, "[1-2]\n");
    import_fails_len(text, len, TSCHED_E_RANGE, "line 1", "name_bytes");
    ck_assert_uint_lt(strlen(tsched_last_error()), 400);
    len -= 6;
    len += (size_t)sprintf(text + len, "[1-]\n");
    import_fails_len(text, len, TSCHED_E_RANGE, "line 1", "name_bytes");
    ck_assert_uint_lt(strlen(tsched_last_error()), 400);
    free(text);
}
END_TEST

START_TEST(mutated_inputs_fail_cleanly)
{
    /* Byte flips of the fixture: every outcome is a fabric or a clean error. */
    char *orig = NULL;
    size_t len = 0;
    FILE *f = fopen(SLURM_DATA "/three_level.conf", "rb");
    ck_assert_ptr_nonnull(f);
    orig = malloc(65536);
    ck_assert_ptr_nonnull(orig);
    len = fread(orig, 1, 65536, f);
    fclose(f);
    ck_assert_uint_gt(len, 100);
    char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    static const char alphabet[] = "[]-,=#\\ \n\t\0a1\"\x01\x1b\r";
    tu_rng r = {12345};
    uint32_t ok = 0, failed = 0;
    for (int round = 0; round < 400; round++) {
        memcpy(buf, orig, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            size_t at = tu_rng_below(&r, (uint32_t)len);
            buf[at] = alphabet[tu_rng_below(&r, sizeof alphabet - 1)];
        }
        tsched_topology *t = NULL;
        tsched_status st = tsched_topology_import_slurm_string(&t, buf, len, NULL);
        if (st == TSCHED_OK) {
            ck_assert_ptr_nonnull(t);
            ok++;
        } else {
            ck_assert_ptr_null(t);
            ck_assert_int_eq(tsched_last_status(), st);
            assert_one_line();
            failed++;
        }
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(ok, 0);
    ck_assert_uint_gt(failed, 0);
    free(buf);
    free(orig);
}
END_TEST

START_TEST(file_errors)
{
    tsched_topology *t = (tsched_topology *)&t;
    ck_assert_status(tsched_topology_import_slurm_file(&t, SLURM_DATA "/no_such_file.conf", NULL), TSCHED_E_IO);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has("no_such_file.conf");
    ck_assert_status(tsched_topology_import_slurm_file(&t, SLURM_DATA "/bad_cycle.conf", NULL), TSCHED_E_CYCLE);
    ck_assert_ptr_null(t);
    ck_assert_errmsg_has("bad_cycle.conf: line 5");
    ck_assert_errmsg_has("core-a -> spine-b -> core-a");
}
END_TEST

/* Expansions are refused by arithmetic before any name is made (hardening item 3): a
 * 33-byte file naming 4M nodes, and a long prefix on a wide range, each within a few ms. */
START_TEST(expansion_bounded_by_limits)
{
    import_fails("SwitchName=s Nodes=n[0-4194303]\n", TSCHED_E_TOO_LARGE, "the limit nodes = 1048576", NULL);
    char text[600];
    int n = snprintf(text, sizeof text, "SwitchName=s Nodes=%0300d[1-900000]\n", 7);
    ck_assert_int_gt(n, 300);
    import_fails(text, TSCHED_E_TOO_LARGE, "name_bytes", NULL);
    /* raised limits let the same file through */
    tsched_limits l = {.size = sizeof l};
    tsched_limits_get(&l);
    l.nodes = 2000;
    ck_assert_ok(tsched_limits_set(&l));
    import_fails("SwitchName=s Nodes=n[0-2000]\n", TSCHED_E_TOO_LARGE, "the limit nodes = 2000", NULL);
    tsched_topology *t = import_ok("SwitchName=s Nodes=n[1-2000]\n", NULL);
    ck_assert_uint_eq(tsched_topology_num_nodes(t), 2000);
    tsched_topology_free(t);
    tsched_limits_reset();
}
END_TEST

TCase *topology_slurm_tcase(void)
{
    TCase *tc = tcase_create("slurm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hostlist_expansions);
    tcase_add_test(tc, hostlist_errors);
    tcase_add_test(tc, hostlist_limits);
    tcase_add_test(tc, hostlist_stray_separators);
    tcase_add_test(tc, hostlist_slurm_order);
    tcase_add_test(tc, hostlist_random_vs_reference);
    tcase_add_test(tc, reference_matches_scontrol);
    tcase_add_test(tc, three_level_shape);
    tcase_add_test(tc, three_level_capacity);
    tcase_add_test(tc, three_level_paths);
    tcase_add_test(tc, two_level_no_pods);
    tcase_add_test(tc, options_apply);
    tcase_add_test(tc, options_invalid);
    tcase_add_test(tc, syntax_accepted);
    tcase_add_test(tc, syntax_slurm_quotes);
    tcase_add_test(tc, syntax_slurm_continuation);
    tcase_add_test(tc, syntax_slurm_blanks_around_equals);
    tcase_add_test(tc, syntax_slurm_stray_commas_and_order);
    tcase_add_test(tc, errors_stay_one_line);
    tcase_add_test(tc, pods_by_component);
    tcase_add_test(tc, errors_parse);
    tcase_add_test(tc, errors_range);
    tcase_add_test(tc, errors_not_found_and_cycle);
    tcase_add_test(tc, errors_duplicate);
    tcase_add_test(tc, errors_too_large);
    tcase_add_test(tc, errors_in_builder_name_the_line);
    tcase_add_test(tc, deep_and_long_inputs);
    tcase_add_test(tc, mutated_inputs_fail_cleanly);
    tcase_add_test(tc, file_errors);
    tcase_add_test(tc, expansion_bounded_by_limits);
    return tc;
}
