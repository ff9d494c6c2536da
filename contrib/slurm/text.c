/* Texts the placer builds from what libslurm reported, kept free of Slurm so that the test
 * can build them from random inputs: the topology.conf the library imports, the node-state
 * JSON it reads, and hostlist expressions for req_nodes and the log. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

static int buf_fail(ps_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->failed = 1;
    return -1;
}

int ps_buf_add(ps_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return buf_fail(b);
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

int ps_buf_str(ps_buf *b, const char *s) { return ps_buf_add(b, s, strlen(s)); }

int ps_buf_printf(ps_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return buf_fail(b);
    if ((size_t)n < sizeof small)
        return ps_buf_add(b, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return buf_fail(b);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = ps_buf_add(b, big, (size_t)n);
    free(big);
    return rc;
}

int ps_buf_json_str(ps_buf *b, const char *s)
{
    if (!s)
        return ps_buf_str(b, "null");
    ps_buf_str(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            ps_buf_add(b, e, 2);
        } else if (*p < 0x20)
            ps_buf_printf(b, "\\u%04x", *p);
        else
            ps_buf_add(b, (const char *)p, 1);
    }
    return ps_buf_str(b, "\"");
}

int ps_topology_conf(char **out, const ps_switch *sw, size_t n)
{
    ps_buf b = {0};
    ps_buf_str(&b, "");
    for (size_t i = 0; i < n; i++) {
        ps_buf_printf(&b, "SwitchName=%s Level=%u", sw[i].name, sw[i].level);
        if (sw[i].switches && sw[i].switches[0])
            ps_buf_printf(&b, " Switches=%s", sw[i].switches);
        else if (sw[i].nodes && sw[i].nodes[0])
            ps_buf_printf(&b, " Nodes=%s", sw[i].nodes);
        ps_buf_str(&b, "\n");
    }
    *out = b.s;
    return b.failed ? -1 : 0;
}

int ps_nodes_json(char **out, const ps_node *nodes, size_t n)
{
    ps_buf b = {0};
    ps_buf_str(&b, "{\"nodes\":[");
    for (size_t i = 0; i < n; i++) {
        const ps_node *x = &nodes[i];
        ps_buf_str(&b, i ? ",{\"name\":" : "{\"name\":");
        ps_buf_json_str(&b, x->name);
        if (x->gres) {
            ps_buf_str(&b, ",\"gres\":");
            ps_buf_json_str(&b, x->gres);
        }
        if (x->gres_used) {
            ps_buf_str(&b, ",\"gres_used\":");
            ps_buf_json_str(&b, x->gres_used);
        }
        ps_buf_str(&b, ",\"state\":");
        ps_buf_json_str(&b, x->state ? x->state : "unknown");
        ps_buf_str(&b, ",\"state_flags\":[");
        for (unsigned f = 0; f < x->nflags && f < sizeof x->flags / sizeof x->flags[0]; f++) {
            if (f)
                ps_buf_str(&b, ",");
            ps_buf_json_str(&b, x->flags[f]);
        }
        ps_buf_str(&b, "]}");
    }
    ps_buf_str(&b, "]}\n");
    *out = b.s;
    return b.failed ? -1 : 0;
}

/* ---- hostlist ranging ------------------------------------------------------------------ */

/* A name split as prefix + number: `width` is the zero-padded digit count (0: unpadded). */
typedef struct hl_item {
    size_t name;        /* index into the names */
    size_t plen;        /* prefix length */
    unsigned width;     /* digits of a zero-padded number, else 0 */
    unsigned long long num;
    size_t group;       /* first item of its group (by prefix and width) */
} hl_item;

static int cmp_num(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

int ps_hostlist_ranged(char **out, const char *const *names, size_t n)
{
    *out = NULL;
    hl_item *it = calloc(n ? n : 1, sizeof *it);
    unsigned long long *nums = calloc(n ? n : 1, sizeof *nums);
    char *done = calloc(n ? n : 1, 1);
    ps_buf b = {0};
    ps_buf_str(&b, "");
    if (!it || !nums || !done) {
        free(it), free(nums), free(done), free(b.s);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i];
        size_t len = strlen(s), d = len;
        while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
            d--;
        it[i].name = i;
        it[i].plen = d;
        if (d == len || len - d > 18) { /* no number (or one too long to range): literal */
            it[i].plen = len;
            it[i].width = UINT32_MAX;
        } else {
            it[i].width = (s[d] == '0' && len - d > 1) ? (unsigned)(len - d) : 0;
            it[i].num = strtoull(s + d, NULL, 10);
        }
    }
    /* an unpadded number joins a zero-padded group of its own digit count: "gpu[01-02,10]" */
    for (size_t i = 0; i < n; i++)
        if (it[i].width == 0)
            for (size_t j = 0; j < n; j++)
                if (it[j].width != 0 && it[j].width != UINT32_MAX && it[j].plen == it[i].plen &&
                    it[j].width == strlen(names[i]) - it[i].plen && memcmp(names[j], names[i], it[i].plen) == 0) {
                    it[i].width = it[j].width;
                    break;
                }
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i];
        size_t d = it[i].plen;
        it[i].group = i;
        for (size_t j = 0; j < i; j++)
            if (it[j].group == j && it[j].width == it[i].width && it[j].width != UINT32_MAX &&
                it[j].plen == it[i].plen && memcmp(names[j], s, d) == 0) {
                it[i].group = j;
                break;
            }
    }
    int first = 1;
    for (size_t g = 0; g < n; g++) {
        if (done[g])
            continue;
        if (it[g].width == UINT32_MAX) { /* literal names: once each */
            for (size_t j = g; j < n; j++)
                if (it[j].width == UINT32_MAX && strcmp(names[j], names[g]) == 0)
                    done[j] = 1;
            ps_buf_str(&b, first ? "" : ",");
            ps_buf_str(&b, names[g]);
            first = 0;
            continue;
        }
        size_t k = 0;
        for (size_t j = g; j < n; j++)
            if (it[j].group == g) {
                nums[k++] = it[j].num;
                done[j] = 1;
            }
        qsort(nums, k, sizeof *nums, cmp_num);
        size_t u = 0;
        for (size_t j = 0; j < k; j++)
            if (u == 0 || nums[j] != nums[u - 1])
                nums[u++] = nums[j];
        ps_buf_str(&b, first ? "" : ",");
        first = 0;
        ps_buf_add(&b, names[g], it[g].plen);
        int w = (int)it[g].width;
        if (u == 1) {
            ps_buf_printf(&b, "%0*llu", w, nums[0]);
            continue;
        }
        ps_buf_str(&b, "[");
        for (size_t j = 0; j < u;) {
            size_t e = j;
            while (e + 1 < u && nums[e + 1] == nums[e] + 1)
                e++;
            ps_buf_printf(&b, j ? ",%0*llu" : "%0*llu", w, nums[j]);
            if (e > j)
                ps_buf_printf(&b, "-%0*llu", w, nums[e]);
            j = e + 1;
        }
        ps_buf_str(&b, "]");
    }
    free(it);
    free(nums);
    free(done);
    *out = b.s;
    return b.failed ? -1 : 0;
}
