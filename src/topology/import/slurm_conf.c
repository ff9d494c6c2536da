/* Slurm's topology.conf text, tree and block form: logical lines in the order of Slurm's own
 * reader, Key=Value tokens, and one switch or block record per line (slurm.c builds the
 * fabric from the records; doc/slurm-import.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/limits.h"
#include "../topology_internal.h"
#include "../topology_limits.h"
#include "slurm_internal.h"

#define qa sl_qa
#define qz sl_qz
#define at_line sl_at_line

#define NONE32 UINT32_MAX

enum {
    K_SWITCHNAME,
    K_NODES,
    K_SWITCHES,
    K_LINKSPEED,
    K_BLOCKNAME,
    K_BLOCKSIZES,
    K_LEVEL,
    K_BLOCKINDEX,
    K_BLOCKSIZE,
    K_COUNT,
    K_UNKNOWN = -1
};

static const char *const key_names[K_COUNT] = {"SwitchName", "Nodes",  "Switches",   "LinkSpeed", "BlockName",
                                               "BlockSizes", "Level", "BlockIndex", "BlockSize"};

/* One Key=Value of a logical line. */
typedef struct sl_tok {
    sl_text key, val;
} sl_tok;

/* Where the part of a physical line starts in the cooked text. */
typedef struct sl_seg {
    size_t off, line;
} sl_seg;

/* ---- lexical level ---------------------------------------------------------------------- */

/* What isspace() accepts in the C locale, as in Slurm's parser (regex [[:space:]]). */
static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* Key characters of Slurm's key=value regex: [[:alnum:]_.] */
static int is_key_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
}

static int ascii_lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch; }

/* Keys are case-insensitive in Slurm; compare without the locale. */
static int key_is(const char *p, size_t n, const char *key)
{
    size_t i = 0;
    for (; i < n && key[i]; i++)
        if (ascii_lower((unsigned char)p[i]) != ascii_lower((unsigned char)key[i]))
            return 0;
    return i == n && key[i] == '\0';
}

static int match_key(const char *p, size_t n)
{
    for (int k = 0; k < K_COUNT; k++)
        if (key_is(p, n, key_names[k]))
            return k;
    return K_UNKNOWN;
}

/* A NUL-terminated copy of n bytes, valid until the next call. */
static tsched_status cstr(sl_ctx *c, const char *p, size_t n, const char **out)
{
    tsched_status st = TS_GROW(c->tmp, c->tmp_cap, n + 1);
    if (st != TSCHED_OK)
        return st;
    memcpy(c->tmp, p, n);
    c->tmp[n] = '\0';
    *out = c->tmp;
    return TSCHED_OK;
}

/* The model's names are UTF-8 without control characters and without '#' (DESIGN 3); the
 * builder does not look for those, and a raw control character would break the message. */
tsched_status sl_check_name(size_t line, const char *field, const char *name, size_t n)
{
    sl_q q;
    for (size_t i = 0; i < n;) {
        size_t w = ts_text_char(name + i, n - i);
        if (w == 0)
            return ts_error(TSCHED_E_INVALID, "line %zu: %s: name %s holds a control character or invalid UTF-8 "
                            "at byte %zu", line, field, qa(&q, name, n), i);
        if (name[i] == '#')
            return ts_error(TSCHED_E_INVALID, "line %zu: %s: name %s contains '#', which the model reserves for "
                            "member links", line, field, qa(&q, name, n));
        i += w;
    }
    return TSCHED_OK;
}

/* LinkSpeed: a plain decimal number ("400", "12.5"), read correctly rounded (as strtod in
 * the C locale would) whatever the caller's locale: the significant digits are handed to
 * strtod as DIGITSeEXP, a text without a radix character. Returns 0 if the text is not such
 * a number or has more than 200 significant digits. */
static int parse_speed(const char *p, size_t n, double *out)
{
    char buf[224];
    size_t i = 0, k = 0;
    long dexp = 0;
    int digits = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
        if (k == 0 && p[i] == '0')
            continue; /* leading zeros */
        if (k >= 200)
            return 0;
        buf[k++] = p[i];
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
            dexp--;
            if (k == 0 && p[i] == '0')
                continue;
            if (k >= 200)
                return 0;
            buf[k++] = p[i];
        }
    }
    if (digits == 0 || i != n)
        return 0;
    if (k == 0) {
        *out = 0;
        return 1;
    }
    snprintf(buf + k, sizeof buf - k, "e%ld", dexp);
    *out = strtod(buf, NULL);
    return 1;
}

/* ---- one switch definition ----------------------------------------------------------- */

static tsched_status read_tokens(sl_ctx *c, sl_text *v)
{
    sl_q q;
    for (size_t i = 0; i < c->ntok; i++) {
        const sl_text *key = &c->tok[i].key, *val = &c->tok[i].val;
        int k = match_key(key->p, key->len);
        if (k == K_UNKNOWN)
            return ts_error(TSCHED_E_PARSE, "line %zu: unknown key %s (expected SwitchName, Nodes, Switches, "
                            "LinkSpeed, BlockName or BlockSizes)", key->line, qa(&q, key->p, key->len));
        if (val->len == 0)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s= has an empty value", val->line, key_names[k]);
        if (v[k].p)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s= is given twice for one switch (first on line %zu)",
                            key->line, key_names[k], v[k].line);
        v[k] = *val;
    }
    return TSCHED_OK;
}

tsched_status sl_add_record(sl_ctx *c, int kind, const sl_text *name, const sl_text *nodes, const sl_text *children,
                            double speed, uint32_t item)
{
    tsched_status st;
    sl_q q;
    char fb[96];
    sl_switch probe = {.kind = kind, .item = item};
    const char *field = sl_field(c, &probe, SL_F_NAME, fb, sizeof fb);
    if (memchr(name->p, '[', name->len) || memchr(name->p, ']', name->len) || memchr(name->p, ',', name->len))
        return ts_error(TSCHED_E_PARSE, "line %zu: %s%s%s: a hostlist is not allowed here; give one plain name",
                        name->line, field, c->yaml ? " " : "", qa(&q, name->p, name->len));
    if ((st = sl_check_name(name->line, field, name->p, name->len)) != TSCHED_OK)
        return st;
    if (c->nsw >= TS_MAX_SWITCHES)
        return ts_error(TSCHED_E_TOO_LARGE, "line %zu: more than %u switches", name->line, TS_MAX_SWITCHES);
    const char *cname;
    uint32_t id;
    int added;
    if ((st = cstr(c, name->p, name->len, &cname)) != TSCHED_OK ||
        (st = ts_strtab_intern(&c->names, cname, &id, &added)) != TSCHED_OK)
        return st;
    if (!added)
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s%s%s is already defined on line %zu", name->line, field,
                        c->yaml ? " " : "", qa(&q, name->p, name->len), c->sw[id].line);
    if ((st = TS_GROW(c->sw, c->sw_cap, c->nsw + 1)) != TSCHED_OK)
        return st; /* the name stays interned, but the import fails as a whole anyway */
    sl_switch *w = &c->sw[c->nsw++];
    memset(w, 0, sizeof *w);
    w->line = name->line;
    w->item = item;
    w->kind = kind;
    if (nodes)
        w->nodes = *nodes;
    if (children)
        w->children = *children;
    w->speed = speed;
    w->pod = NONE32;
    if (kind == SL_BLOCK && c->nblocks++ == 0)
        c->first_block_line = name->line;
    if (kind == SL_SWITCH && c->first_switch_line == 0)
        c->first_switch_line = name->line;
    return TSCHED_OK;
}

tsched_status sl_set_sizes(sl_ctx *c, const uint64_t *sizes, size_t n, size_t line)
{
    char fb[96];
    const char *field = sl_field(c, NULL, SL_F_SIZES, fb, sizeof fb);
    if (n == 0)
        return ts_error(TSCHED_E_PARSE, "line %zu: %s holds no size", line, field);
    if (n > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "line %zu: %s: %zu sizes would need %zu tiers above the blocks; the model has "
                        "at most %d tiers", line, field, n, n - 1, TSCHED_MAX_TIERS);
    size_t i = ts_block_sizes_bad(sizes, n);
    if (i < n && (sizes[i] == 0 || sizes[i] > UINT32_MAX))
        return ts_error(TSCHED_E_RANGE, "line %zu: %s: size %llu is not in [1, %u]", line, field,
                        (unsigned long long)sizes[i], UINT32_MAX);
    if (i < n)
        return ts_error(TSCHED_E_RANGE, "line %zu: %s: size %llu is not a power-of-two multiple of the size %llu "
                        "before it", line, field, (unsigned long long)sizes[i], (unsigned long long)sizes[i - 1]);
    memcpy(c->sizes, sizes, n * sizeof *sizes);
    c->nsizes = n;
    c->sizes_line = line;
    c->have_sizes = 1;
    return TSCHED_OK;
}

/* BlockSizes=4,16: decimal numbers separated by commas. */
static tsched_status conf_sizes(sl_ctx *c, const sl_text *v)
{
    sl_q q;
    uint64_t sizes[TSCHED_MAX_TIERS + 1];
    size_t n = 0, i = 0;
    while (i <= v->len) {
        size_t j = i;
        uint64_t x = 0;
        while (j < v->len && v->p[j] >= '0' && v->p[j] <= '9' && x < (1ull << 40))
            x = x * 10 + (uint64_t)(v->p[j++] - '0');
        if (j == i || (j < v->len && v->p[j] != ','))
            return ts_error(TSCHED_E_PARSE, "line %zu: BlockSizes=%s: expected whole numbers separated by commas",
                            v->line, qa(&q, v->p, v->len));
        if (n == TSCHED_MAX_TIERS + 1)
            break; /* sl_set_sizes says that there are too many */
        sizes[n++] = x;
        i = j + 1;
    }
    return sl_set_sizes(c, sizes, n, v->line);
}

/* One logical line of topology.conf, its keys read: a switch, a block or BlockSizes. */
static tsched_status conf_record(sl_ctx *c, const sl_text *v)
{
    sl_q q;
    static const int switch_keys[] = {K_SWITCHNAME, K_NODES, K_SWITCHES, K_LINKSPEED, K_LEVEL};
    static const int block_keys[] = {K_BLOCKNAME, K_NODES, K_BLOCKINDEX, K_BLOCKSIZE};
    const int *allowed;
    size_t nallowed;
    int lead;
    if (v[K_SWITCHNAME].p) {
        lead = K_SWITCHNAME, allowed = switch_keys, nallowed = sizeof switch_keys / sizeof *switch_keys;
    } else if (v[K_BLOCKNAME].p) {
        lead = K_BLOCKNAME, allowed = block_keys, nallowed = sizeof block_keys / sizeof *block_keys;
    } else if (v[K_BLOCKSIZES].p) {
        lead = K_BLOCKSIZES, allowed = NULL, nallowed = 0;
    } else {
        const sl_text *key = &c->tok[0].key;
        return ts_error(TSCHED_E_PARSE, "line %zu: %.*s= without SwitchName= or BlockName=; every line defines one "
                        "switch or one block", key->line, (int)key->len, key->p);
    }
    for (int k = 0; k < K_COUNT; k++) {
        int ok = k == lead;
        for (size_t i = 0; i < nallowed; i++)
            ok |= allowed[i] == k;
        if (v[k].p && !ok)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s= does not belong on a %s= line", v[k].line, key_names[k],
                            key_names[lead]);
    }
    if (lead != K_SWITCHNAME && c->first_switch_line)
        return ts_error(TSCHED_E_PARSE, "line %zu: %s= in a file of the tree form (SwitchName= on line %zu); a "
                        "file is either tree or block form", v[lead].line, key_names[lead], c->first_switch_line);
    if (lead == K_SWITCHNAME && (c->nblocks || c->have_sizes))
        return ts_error(TSCHED_E_PARSE, "line %zu: SwitchName= in a file of the block form (%s on line %zu); a file "
                        "is either tree or block form", v[lead].line, c->nblocks ? "BlockName=" : "BlockSizes=",
                        c->nblocks ? c->first_block_line : c->sizes_line);
    if (lead == K_BLOCKSIZES) {
        if (c->have_sizes)
            return ts_error(TSCHED_E_PARSE, "line %zu: a second BlockSizes= line (the first is on line %zu)",
                            v[lead].line, c->sizes_line);
        return conf_sizes(c, &v[K_BLOCKSIZES]);
    }
    if (lead == K_BLOCKNAME)
        return sl_add_record(c, SL_BLOCK, &v[K_BLOCKNAME], v[K_NODES].p ? &v[K_NODES] : NULL, NULL, 0, 0);
    const sl_text *name = &v[K_SWITCHNAME];
    if (v[K_LEVEL].p)
        c->scontrol = 1;
    sl_text nodes = v[K_NODES];
    if (nodes.p && v[K_SWITCHES].p) {
        /* scontrol show topology lists every node below an upper switch: Switches= says it all */
        if (!v[K_LEVEL].p)
            return ts_error(TSCHED_E_PARSE, "line %zu: switch %s has both Nodes= and Switches=; a switch of the tree "
                            "form holds either nodes or switches", name->line, qa(&q, name->p, name->len));
        nodes.p = NULL;
    }
    double speed = 0;
    if (v[K_LINKSPEED].p && !v[K_LEVEL].p) {
        const sl_text *sp = &v[K_LINKSPEED];
        if (!parse_speed(sp->p, sp->len, &speed) || !isfinite(speed) || speed <= 0 || speed > TS_MAX_GBPS)
            return ts_error(TSCHED_E_RANGE, "line %zu: LinkSpeed=%s must be a finite number > 0 and <= %g (Gbit/s)",
                            sp->line, qa(&q, sp->p, sp->len), TS_MAX_GBPS);
    }
    return sl_add_record(c, SL_SWITCH, name, nodes.p ? &nodes : NULL, v[K_SWITCHES].p ? &v[K_SWITCHES] : NULL, speed,
                         0);
}

/* Physical line of cooked offset `off`; offsets are asked for in increasing order, so the
 * segment index only moves forward (*k) and a logical line of many continuations costs
 * linear time. */
static size_t line_of(const sl_ctx *c, size_t *k, size_t off)
{
    while (*k + 1 < c->nseg && c->seg[*k + 1].off <= off)
        (*k)++;
    return c->seg[*k].line;
}

/* Does the text look like "Key=..." (or "Key+=..."), Key one of ours? */
static int starts_with_key(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && is_key_char(p[i]))
        i++;
    size_t klen = i;
    if (i < n && p[i] && strchr("-*+/", p[i]))
        i++;
    return klen > 0 && i < n && p[i] == '=' && match_key(p, klen) != K_UNKNOWN;
}

/* Split one logical line into Key=Value tokens the way Slurm's parser does (the key=value
 * regex of src/common/parse_config.c): blanks may surround '='; a value is either "..."
 * (the quotes removed, blanks allowed inside) or a run of non-blank bytes. */
static tsched_status tokenize(sl_ctx *c)
{
    const char *s = c->cooked;
    size_t i = c->line_start, end = c->ncooked, k = 0;
    sl_q q;
    c->ntok = 0;
    for (;;) {
        while (i < end && is_space(s[i]))
            i++;
        if (i == end)
            return TSCHED_OK;
        size_t ks = i, kline = line_of(c, &k, ks);
        while (i < end && is_key_char(s[i]))
            i++;
        size_t klen = i - ks, j = i;
        while (j < end && is_space(s[j]))
            j++;
        char op = 0;
        if (klen > 0 && j + 1 < end && s[j] && strchr("-*+/", s[j]) && s[j + 1] == '=')
            op = s[j++];
        if (klen == 0 || j == end || s[j] != '=') {
            size_t te = ks;
            while (te < end && !is_space(s[te]))
                te++;
            return ts_error(TSCHED_E_PARSE, "line %zu: %s is not Key=Value", kline, qa(&q, s + ks, te - ks));
        }
        if (op)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s%c=: the operators +=, -=, *= and /= have no meaning in "
                            "topology.conf; use =", kline, qa(&q, s + ks, klen), op);
        size_t v = j + 1;
        while (v < end && is_space(s[v]))
            v++;
        size_t vline = v < end ? line_of(c, &k, v) : kline, vs = v, ve;
        if (v == end) {
            ve = v; /* an empty value: reported with the key's name once the key is known */
            i = v;
        } else if (s[v] == '"') {
            const char *close = memchr(s + v + 1, '"', end - v - 1);
            if (!close || (close + 1 < s + end && !is_space(close[1]))) {
                size_t te = v;
                while (te < end && !is_space(s[te]))
                    te++;
                return ts_error(TSCHED_E_PARSE, "line %zu: %.*s=%s: a quoted value needs a closing '\"' followed by "
                                "a blank or the end of the line", vline, (int)klen, s + ks, qa(&q, s + v, te - v));
            }
            vs = v + 1;
            ve = (size_t)(close - s);
            i = ve + 1;
        } else {
            ve = v;
            while (ve < end && !is_space(s[ve]))
                ve++;
            i = ve;
            /* "SwitchName= Nodes=x": Slurm would name the switch "Nodes=x"; that is a key
             * whose value was left out, not a name */
            if (v > j + 1 && starts_with_key(s + v, ve - v)) {
                vs = ve = v;
                i = v;
                vline = kline;
            }
        }
        tsched_status st = TS_GROW(c->tok, c->tok_cap, c->ntok + 1);
        if (st != TSCHED_OK)
            return st;
        c->tok[c->ntok++] = (sl_tok){{s + ks, klen, kline}, {s + vs, ve - vs, vline}};
    }
}

static tsched_status finish_line(sl_ctx *c)
{
    tsched_status st = tokenize(c);
    c->line_start = c->ncooked;
    if (st != TSCHED_OK || c->ntok == 0) {
        c->nseg = 0;
        return st;
    }
    sl_text v[K_COUNT] = {{0}};
    st = read_tokens(c, v);
    if (st == TSCHED_OK)
        st = conf_record(c, v);
    c->ntok = 0;
    c->nseg = 0;
    return st;
}

/* Physical lines -> logical lines, in the order of Slurm's _get_next_line(): a '#' that
 * follows an even number of backslashes starts a comment; then a line whose last non-blank
 * bytes are an odd number of backslashes continues on the next one, which is appended
 * without anything in between (so a break may fall inside a value); then every backslash
 * escapes the byte after it ("\#" is '#', "\\" is '\'). Values keep pointing into the
 * cooked text, which lives as long as the import. */
tsched_status sl_parse_text(sl_ctx *c, const char *text, size_t len)
{
    tsched_status st;
    size_t pos = 0, line = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        pos = 3; /* a UTF-8 byte order mark written by some editors */
    if (!(c->cooked = ts_malloc(len + 1, 1)))
        return TSCHED_E_NOMEM;
    while (pos < len) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t eol = nl ? (size_t)(nl - text) : len;
        if (memchr(text + pos, '\0', eol - pos))
            return ts_error(TSCHED_E_PARSE, "line %zu: NUL byte in the text", line);
        size_t end = eol, bs = 0;
        for (size_t i = pos; i < eol; i++) {
            if (text[i] == '#' && bs % 2 == 0) {
                end = i;
                break;
            }
            bs = text[i] == '\\' ? bs + 1 : 0;
        }
        size_t e = end, run = 0;
        while (e > pos && is_space(text[e - 1]))
            e--;
        while (run < e - pos && text[e - 1 - run] == '\\')
            run++;
        int cont = run % 2 == 1;
        if (cont)
            end = e - 1; /* the last backslash and the blanks after it go */
        if ((st = TS_GROW(c->seg, c->seg_cap, c->nseg + 1)) != TSCHED_OK)
            return st;
        c->seg[c->nseg++] = (sl_seg){c->ncooked, line};
        for (size_t i = pos; i < end; i++) {
            if (text[i] == '\\' && ++i == end)
                break; /* cannot happen: an odd run at the end is a continuation */
            c->cooked[c->ncooked++] = text[i];
        }
        if (!cont && (st = finish_line(c)) != TSCHED_OK)
            return st;
        pos = eol + 1;
    }
    if (c->nseg > 0 && (st = finish_line(c)) != TSCHED_OK) /* a continuation on the last line */
        return st;
    if (c->nsw == 0)
        return ts_error(TSCHED_E_PARSE, "no switch or block is defined (no SwitchName= or BlockName= line)");
    return TSCHED_OK;
}
