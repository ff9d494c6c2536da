/* The opt-in tag of a job's comment: "topo-sched:" then comma-separated key=value
 * (tp, pp, gpus, alpha, unit), e.g. `sbatch --hold --comment topo-sched:tp=8,pp=4`.
 * Strict on purpose: a job whose tag we misread would be placed on a shape it did not ask
 * for, so anything unexpected keeps it held with a reason instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

/* The largest tp, pp or gpus a tag may give: far above any job, small enough for uint32_t
 * products. */
#define TAG_MAX_COUNT 1048576u

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* The first prefix at the start of `s` or after a blank, from `s`; NULL if none. */
static const char *find_prefix(const char *s, const char *from)
{
    for (const char *p = strstr(from, PS_TAG_PREFIX); p; p = strstr(p + 1, PS_TAG_PREFIX))
        if (p == s || is_blank(p[-1]))
            return p;
    return NULL;
}

int ps_tag_find(const char *comment, const char **start, size_t *len)
{
    const char *p = comment ? find_prefix(comment, comment) : NULL;
    if (!p)
        return 0;
    p += strlen(PS_TAG_PREFIX);
    size_t n = 0;
    while (p[n] && !is_blank(p[n]))
        n++;
    *start = p;
    *len = n;
    return 1;
}

/* A whole number in [1, TAG_MAX_COUNT], digits only. */
static int parse_count(uint32_t *out, const char *v, size_t n)
{
    if (n == 0 || n > 7)
        return -1;
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (uint32_t)(v[i] - '0');
    }
    if (x < 1 || x > TAG_MAX_COUNT)
        return -1;
    *out = x;
    return 0;
}

/* digits[.digits*] or .digits, in [0, 1]. */
static int parse_alpha(double *out, const char *v, size_t n)
{
    size_t i = 0, int_digits = 0, frac_digits = 0;
    while (i < n && v[i] >= '0' && v[i] <= '9')
        i++, int_digits++;
    if (i < n && v[i] == '.') {
        i++;
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++, frac_digits++;
    }
    if (i != n || int_digits + frac_digits == 0 || n > 32)
        return -1;
    char tmp[33];
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    double a = strtod(tmp, NULL);
    if (!(a >= 0.0 && a <= 1.0))
        return -1;
    *out = a;
    return 0;
}

int ps_tag_parse(ps_tag *tag, const char *comment, char *err, size_t errcap)
{
    static const char *const keys[] = {"tp", "pp", "gpus", "alpha", "unit"};
    tag->tp = tag->pp = tag->gpus = 0;
    tag->alpha_set = 0;
    tag->alpha = 0;
    tag->unit = -1;
    const char *s;
    size_t len;
    if (!ps_tag_find(comment, &s, &len))
        return 0;
    if (find_prefix(comment, s + len)) {
        snprintf(err, errcap, "bad tag: the comment holds two %s tags", PS_TAG_PREFIX);
        return -1;
    }
    int seen[5] = {0};
    size_t i = 0;
    while (len > 0 && i <= len) {
        size_t j = i;
        while (j < len && s[j] != ',')
            j++;
        const char *item = s + i;
        size_t ilen = j - i;
        const char *eq = memchr(item, '=', ilen);
        if (!eq) {
            snprintf(err, errcap, "bad tag: item '%.*s' is not key=value", (int)ilen, item);
            return -1;
        }
        size_t klen = (size_t)(eq - item), vlen = ilen - klen - 1;
        const char *v = eq + 1;
        int k = -1;
        for (int q = 0; q < 5; q++)
            if (strlen(keys[q]) == klen && memcmp(keys[q], item, klen) == 0)
                k = q;
        if (k < 0) {
            snprintf(err, errcap, "bad tag: unknown key '%.*s' (tp, pp, gpus, alpha, unit)", (int)klen, item);
            return -1;
        }
        if (seen[k]++) {
            snprintf(err, errcap, "bad tag: key '%s' given twice", keys[k]);
            return -1;
        }
        int bad = 0;
        switch (k) {
        case 0: bad = parse_count(&tag->tp, v, vlen); break;
        case 1: bad = parse_count(&tag->pp, v, vlen); break;
        case 2: bad = parse_count(&tag->gpus, v, vlen); break;
        case 3:
            /* No `auto`: it derives alpha from the job's model (layers, hidden size ...),
             * which a tag cannot carry; refusing it here says so at once. */
            if (vlen == 4 && memcmp(v, "auto", 4) == 0) {
                snprintf(err, errcap, "bad tag: alpha='auto' needs the job's model, which a tag cannot give; "
                                      "give a number in [0, 1]");
                return -1;
            }
            if ((bad = parse_alpha(&tag->alpha, v, vlen)) == 0)
                tag->alpha_set = 1;
            break;
        default:
            if (vlen == 2 && memcmp(v, "pp", 2) == 0)
                tag->unit = TSCHED_UNIT_PP;
            else if (vlen == 2 && memcmp(v, "dp", 2) == 0)
                tag->unit = TSCHED_UNIT_DP;
            else
                bad = 1;
        }
        if (bad) {
            static const char *const what[] = {"a whole number in [1, 1048576]", "a whole number in [1, 1048576]",
                                               "a whole number in [1, 1048576]", "a number in [0, 1]",
                                               "pp or dp"};
            snprintf(err, errcap, "bad tag: %s='%.*s' is not %s", keys[k], (int)(vlen > 40 ? 40 : vlen), v, what[k]);
            return -1;
        }
        i = j + 1;
    }
    return 1;
}
