/* Hostlist expressions (see hostlist.h). An expression is parsed once into items, groups
 * and ranges that point back into the text; the exact number of names and bytes follows
 * from those by arithmetic, so limits are enforced before the names are produced. */
#include "hostlist.h"

#include "../../common/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"

/* Longest part of an expression quoted in a message. */
#define HL_QUOTE 80

typedef struct hl_range {
    uint64_t lo, hi;
    unsigned width; /* digits `lo` was written with: the zero-padding of every value */
} hl_range;

typedef struct hl_group {
    size_t lit_off, lit_len; /* literal text before the group */
    size_t first, n;         /* its ranges */
    uint64_t count;          /* values in the group (saturated) */
    uint64_t bytes;          /* bytes of all its values as printed (saturated) */
} hl_group;

typedef struct hl_item {
    size_t first, n;           /* its groups */
    size_t tail_off, tail_len; /* literal text after the last group */
} hl_item;

typedef struct hl_parse {
    const char *s;
    size_t len;
    hl_range *ranges;
    size_t nranges, ranges_cap;
    hl_group *groups;
    size_t ngroups, groups_cap;
    hl_item *items;
    size_t nitems, items_cap;
    uint64_t names, bytes; /* totals (saturated) */
} hl_parse;

void ts_hostlist_init(ts_hostlist *h) { memset(h, 0, sizeof *h); }

void ts_hostlist_free(ts_hostlist *h)
{
    free(h->arena);
    free(h->offs);
    memset(h, 0, sizeof *h);
}

void ts_hostlist_clear(ts_hostlist *h)
{
    h->arena_len = 0;
    h->count = 0;
}

static void parse_free(hl_parse *p)
{
    free(p->ranges);
    free(p->groups);
    free(p->items);
}

/* Counts saturate at UINT64_MAX: anything that large is rejected as too large anyway. */
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* `at` is the byte offset of the problem, or NO_OFFSET when it concerns the whole list. */
#define NO_OFFSET SIZE_MAX

static tsched_status fail(const hl_parse *p, tsched_status st, size_t at, const char *what)
{
    char q[TS_TEXT_QUOTE_CAP(HL_QUOTE)];
    ts_text_quote(q, sizeof q, p->s, p->len, HL_QUOTE);
    if (at == NO_OFFSET)
        return ts_error(st, "hostlist %s: %s", q, what);
    return ts_error(st, "hostlist %s: %s at offset %zu", q, what, at);
}

/* The error for an unexpected character inside brackets. */
static tsched_status fail_char(const hl_parse *p, size_t at)
{
    char what[64];
    char c = p->s[at];
    if (c == '\0')
        return fail(p, TSCHED_E_PARSE, at, "NUL byte");
    if (c == '[')
        return fail(p, TSCHED_E_PARSE, at, "nested '['");
    if (c == ',' || c == ']')
        return fail(p, TSCHED_E_PARSE, at, "empty range or missing number");
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
        snprintf(what, sizeof what, "non-digit byte 0x%02x inside brackets", (unsigned char)c);
    else
        snprintf(what, sizeof what, "non-digit '%c' inside brackets", c);
    return fail(p, TSCHED_E_PARSE, at, what);
}

/* A decimal number at *pos: at least one digit, at most TS_HOSTLIST_MAX_DIGITS. */
static tsched_status parse_number(const hl_parse *p, size_t *pos, size_t open, uint64_t *value, unsigned *digits)
{
    size_t i = *pos;
    uint64_t v = 0;
    unsigned nd = 0;
    while (i < p->len && is_digit(p->s[i])) {
        if (++nd > TS_HOSTLIST_MAX_DIGITS) {
            char what[64];
            snprintf(what, sizeof what, "number longer than %d digits", TS_HOSTLIST_MAX_DIGITS);
            return fail(p, TSCHED_E_PARSE, *pos, what);
        }
        v = v * 10 + (uint64_t)(p->s[i] - '0');
        i++;
    }
    if (nd == 0)
        return i == p->len ? fail(p, TSCHED_E_PARSE, open, "unmatched '['") : fail_char(p, i);
    *pos = i;
    *value = v;
    *digits = nd;
    return TSCHED_OK;
}

/* Bytes of all values lo..hi printed with at least `width` digits, summed by digit count. */
static uint64_t range_bytes(uint64_t lo, uint64_t hi, unsigned width)
{
    uint64_t total = 0, band_lo = 0, band_hi = 9;
    /* Values have at most 18 digits, so band_hi stays below 10^19 and cannot overflow. */
    for (unsigned d = 1; band_lo <= hi; d++) {
        uint64_t a = lo > band_lo ? lo : band_lo, b = hi < band_hi ? hi : band_hi;
        if (a <= b)
            total = sat_add(total, sat_mul(b - a + 1, d > width ? d : width));
        band_lo = band_hi + 1;
        band_hi = band_hi * 10 + 9;
    }
    return total;
}

/* One bracket group; *pos is at its '[' and ends after its ']'. */
static tsched_status parse_group(hl_parse *p, size_t *pos, hl_group *g)
{
    tsched_status st;
    size_t open = *pos, i = open + 1;
    g->first = p->nranges;
    g->n = 0;
    g->count = 0;
    g->bytes = 0;
    for (;;) {
        hl_range r;
        unsigned hd;
        if ((st = parse_number(p, &i, open, &r.lo, &r.width)) != TSCHED_OK)
            return st;
        r.hi = r.lo;
        if (i < p->len && p->s[i] == '-') {
            i++;
            if ((st = parse_number(p, &i, open, &r.hi, &hd)) != TSCHED_OK)
                return st;
            if (r.lo > r.hi) {
                char what[96];
                snprintf(what, sizeof what, "reversed range %llu-%llu (lo > hi)", (unsigned long long)r.lo,
                         (unsigned long long)r.hi);
                return fail(p, TSCHED_E_PARSE, open, what);
            }
        }
        if ((st = TS_GROW(p->ranges, p->ranges_cap, p->nranges + 1)) != TSCHED_OK)
            return st;
        p->ranges[p->nranges++] = r;
        g->n++;
        g->count = sat_add(g->count, r.hi - r.lo + 1);
        g->bytes = sat_add(g->bytes, range_bytes(r.lo, r.hi, r.width));
        if (i == p->len)
            return fail(p, TSCHED_E_PARSE, open, "unmatched '['");
        if (p->s[i] == ']') {
            *pos = i + 1;
            return TSCHED_OK;
        }
        if (p->s[i] != ',')
            return fail_char(p, i);
        i++;
    }
}

/* Names and bytes of one parsed item: the product of its group sizes, each name holding
 * all the literal text, one value of every group, and a NUL. */
static void item_size(const hl_parse *p, const hl_item *it, uint64_t *names, uint64_t *bytes)
{
    uint64_t n = 1, lit = it->tail_len + 1;
    for (size_t k = 0; k < it->n; k++) {
        const hl_group *g = &p->groups[it->first + k];
        n = sat_mul(n, g->count);
        lit = sat_add(lit, g->lit_len);
    }
    uint64_t b = sat_mul(n, lit);
    for (size_t k = 0; k < it->n && n != UINT64_MAX; k++) {
        const hl_group *g = &p->groups[it->first + k];
        b = sat_add(b, sat_mul(g->bytes, n / g->count)); /* each value appears n / count times */
    }
    *names = n;
    *bytes = b;
}

/* Separators between items, as in Slurm's hostlist_create(). */
static int is_sep(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }

static tsched_status parse(hl_parse *p)
{
    tsched_status st;
    size_t i = 0;
    for (;;) {
        while (i < p->len && is_sep(p->s[i]))
            i++; /* stray, doubled and trailing separators name nothing */
        if (i == p->len)
            return TSCHED_OK;
        size_t lit = i;
        hl_item it = {.first = p->ngroups, .n = 0};
        while (i < p->len && !is_sep(p->s[i])) {
            if (p->s[i] == '\0')
                return fail(p, TSCHED_E_PARSE, i, "NUL byte");
            if (p->s[i] == ']')
                return fail(p, TSCHED_E_PARSE, i, "unmatched ']'");
            if (p->s[i] != '[') {
                i++;
                continue;
            }
            hl_group g = {.lit_off = lit, .lit_len = i - lit};
            if ((st = parse_group(p, &i, &g)) != TSCHED_OK)
                return st;
            if ((st = TS_GROW(p->groups, p->groups_cap, p->ngroups + 1)) != TSCHED_OK)
                return st;
            p->groups[p->ngroups++] = g;
            it.n++;
            lit = i;
        }
        it.tail_off = lit;
        it.tail_len = i - lit;
        if ((st = TS_GROW(p->items, p->items_cap, p->nitems + 1)) != TSCHED_OK)
            return st;
        p->items[p->nitems++] = it;
        uint64_t n, b;
        item_size(p, &it, &n, &b);
        p->names = sat_add(p->names, n);
        p->bytes = sat_add(p->bytes, b);
    }
}

static tsched_status parse_checked(hl_parse *p, const char *expr, size_t len, size_t max_names)
{
    memset(p, 0, sizeof *p);
    if (!expr && len)
        return ts_error(TSCHED_E_INVALID, "hostlist: expression is NULL");
    p->s = expr ? expr : "";
    p->len = len;
    tsched_status st = parse(p);
    if (st != TSCHED_OK)
        return st;
    if (p->names > max_names) {
        char what[96];
        snprintf(what, sizeof what, "expands to more than %zu names", max_names);
        return fail(p, TSCHED_E_TOO_LARGE, NO_OFFSET, what);
    }
    /* Every name must fit the name limit, so the names of one hostlist take at most
     * names x (name_bytes + 1) bytes: a long prefix on a wide range is refused here,
     * before anything is expanded. */
    uint64_t per_name = (uint64_t)ts_limits()->name_bytes + 1;
    uint64_t max_bytes = (uint64_t)p->names * per_name;
    if (max_bytes > TS_HOSTLIST_MAX_BYTES)
        max_bytes = TS_HOSTLIST_MAX_BYTES;
    if (p->bytes > max_bytes) {
        char what[128];
        snprintf(what, sizeof what, "expands to names longer than the limit name_bytes = %llu",
                 (unsigned long long)(per_name - 1));
        return fail(p, TSCHED_E_TOO_LARGE, NO_OFFSET, what);
    }
    return TSCHED_OK;
}

tsched_status ts_hostlist_measure(size_t *names, size_t *bytes, const char *expr, size_t len, size_t max_names)
{
    hl_parse p;
    tsched_status st = parse_checked(&p, expr, len, max_names);
    if (st == TSCHED_OK) {
        if (names)
            *names = (size_t)p.names;
        if (bytes)
            *bytes = (size_t)p.bytes;
    }
    parse_free(&p);
    return st;
}

/* Write v zero-padded to `width` digits; returns the bytes written. */
static size_t put_number(char *dst, uint64_t v, unsigned width)
{
    char tmp[24];
    size_t n = 0, w = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n + w < width)
        dst[w++] = '0';
    while (n)
        dst[w++] = tmp[--n];
    return w;
}

/* Group turning r-th fastest among n: Slurm peels the last group off as the innermost
 * range, then expands the others from the right, each value of a group wrapping all the
 * groups to its left (src/common/hostlist.c, _push_range_list). The result: the last group
 * fastest, then the first, the second, ..., the last but one slowest. */
static size_t turn_order(size_t n, size_t r) { return r == 0 ? n - 1 : r - 1; }

/* Emit every name of one item into space already reserved. The groups work as an
 * odometer whose wheels are ranked by turn_order(). */
static void emit_item(ts_hostlist *h, const hl_parse *p, const hl_item *it, size_t *ri, uint64_t *val)
{
    const hl_group *gs = it->n ? p->groups + it->first : NULL; /* NULL + 0 is undefined in C */
    for (size_t k = 0; k < it->n; k++) {
        ri[k] = 0;
        val[k] = p->ranges[gs[k].first].lo;
    }
    for (;;) {
        char *d = h->arena + h->arena_len;
        h->offs[h->count++] = h->arena_len;
        for (size_t k = 0; k < it->n; k++) {
            memcpy(d, p->s + gs[k].lit_off, gs[k].lit_len);
            d += gs[k].lit_len;
            d += put_number(d, val[k], p->ranges[gs[k].first + ri[k]].width);
        }
        memcpy(d, p->s + it->tail_off, it->tail_len);
        d += it->tail_len;
        *d++ = '\0';
        h->arena_len = (size_t)(d - h->arena);

        size_t r = 0;
        for (;; r++) {
            if (r == it->n)
                return;
            size_t k = turn_order(it->n, r);
            const hl_range *rg = &p->ranges[gs[k].first + ri[k]];
            if (val[k] < rg->hi) {
                val[k]++;
                break;
            }
            if (ri[k] + 1 < gs[k].n) {
                val[k] = p->ranges[gs[k].first + ++ri[k]].lo;
                break;
            }
            ri[k] = 0;
            val[k] = p->ranges[gs[k].first].lo;
        }
    }
}

tsched_status ts_hostlist_expand(ts_hostlist *h, const char *expr, size_t len, size_t max_names)
{
    if (!h)
        return ts_error(TSCHED_E_INVALID, "hostlist: list is NULL");
    hl_parse p;
    size_t *ri = NULL;
    uint64_t *val = NULL;
    tsched_status st = parse_checked(&p, expr, len, max_names);
    if (st != TSCHED_OK)
        goto out;
    /* Reserve everything first: from here on nothing can fail, so `h` never holds half a list. */
    if ((st = TS_GROW(h->offs, h->offs_cap, h->count + (size_t)p.names)) != TSCHED_OK ||
        (st = TS_GROW(h->arena, h->arena_cap, h->arena_len + (size_t)p.bytes)) != TSCHED_OK)
        goto out;
    if (!(ri = ts_malloc(p.ngroups, sizeof *ri)) || !(val = ts_malloc(p.ngroups, sizeof *val))) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < p.nitems; i++)
        emit_item(h, &p, &p.items[i], ri, val);
out:
    free(ri);
    free(val);
    parse_free(&p);
    return st;
}

