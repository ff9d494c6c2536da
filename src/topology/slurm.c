/* Import of Slurm's topology.conf, tree form (semantics in doc/slurm-import.md).
 *
 * The text is read in one pass into switch records that point back into it; then the
 * Switches= lists are resolved, tiers are found by an iterative depth-first search (a
 * deep or cyclic file cannot exhaust the stack), pods are the connected components of
 * the leaf-spine graph, and the fabric is assembled through the public builder calls
 * only, so it is validated exactly like any other fabric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/structsize.h"
#include "../common/json.h"
#include "hostlist.h"
#include "../common/structsize.h"
#include "topology_internal.h"

/* Names and text quoted in messages are cut to this many bytes, and escaped so that a
 * message stays on one line whatever the input holds. */
#define SL_QUOTE 80

typedef struct sl_q {
    char s[TS_TEXT_QUOTE_CAP(SL_QUOTE)];
} sl_q;

static const char *qa(sl_q *b, const char *p, size_t n) { return ts_text_quote(b->s, sizeof b->s, p, n, SL_QUOTE); }
static const char *qz(sl_q *b, const char *p) { return qa(b, p, strlen(p)); }

#define NONE32 UINT32_MAX

enum { K_SWITCHNAME, K_NODES, K_SWITCHES, K_LINKSPEED, K_COUNT, K_BLOCK = -2, K_UNKNOWN = -1 };

static const char *const key_names[K_COUNT] = {"SwitchName", "Nodes", "Switches", "LinkSpeed"};

/* A value of the file: bytes of the cooked text and the line they start on. p == NULL:
 * absent. */
typedef struct sl_text {
    const char *p;
    size_t len, line;
} sl_text;

/* One Key=Value of a logical line. */
typedef struct sl_tok {
    sl_text key, val;
} sl_tok;

/* Where the part of a physical line starts in the cooked text. */
typedef struct sl_seg {
    size_t off, line;
} sl_seg;

typedef struct sl_switch {
    size_t line;             /* line of SwitchName= */
    sl_text nodes, children; /* Nodes= and Switches= expressions */
    double speed;            /* LinkSpeed, 0 when not given */
    size_t child_off;        /* children in sl_ctx.child */
    uint32_t nchild, nparents, nnodes;
    int tier;
    uint32_t pod;            /* NONE32: no pod */
    double down;             /* capacity below the switch, Gbit/s */
} sl_switch;

typedef struct sl_ctx {
    const tsched_slurm_options *o;
    uint32_t nics;
    ts_strtab names;         /* switch names; id = index in sw = file order */
    sl_switch *sw;
    size_t nsw, sw_cap;
    uint32_t *child;
    size_t nchild, child_cap;
    char *cooked;            /* logical lines: comments cut, lines joined, escapes undone */
    size_t ncooked, line_start;
    sl_seg *seg;             /* physical lines of the logical line being read */
    size_t nseg, seg_cap;
    sl_tok *tok;             /* tokens of the logical line being read */
    size_t ntok, tok_cap;
    char *tmp;               /* NUL-terminated copy of one value */
    size_t tmp_cap;
    ts_hostlist hl;
    ts_strtab nodes;         /* node names, to find the first leaf of a repeated one */
    uint32_t *owner;         /* node id -> its leaf */
    size_t owner_cap;
    uint32_t tier_count[TSCHED_TIERS];
    tsched_topology *topo;
} sl_ctx;

void tsched_slurm_options_init(tsched_slurm_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->gpus_per_node = 8;
    opts->nics_per_node = 0;
    opts->nic_gbps = 400;
}

static void ctx_free(sl_ctx *c)
{
    ts_strtab_free(&c->names);
    ts_strtab_free(&c->nodes);
    ts_hostlist_free(&c->hl);
    free(c->sw);
    free(c->child);
    free(c->tok);
    free(c->seg);
    free(c->cooked);
    free(c->tmp);
    free(c->owner);
    tsched_topology_free(c->topo);
}

/* Prefix the current message with "line N: what" and keep the status. */
static tsched_status at_line(tsched_status st, size_t line, const char *what)
{
    char prefix[160];
    snprintf(prefix, sizeof prefix, "line %zu%s%s", line, what ? ": " : "", what ? what : "");
    return ts_error_prefix(st, prefix);
}

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
    if (key_is(p, n, "BlockName") || key_is(p, n, "BlockSizes"))
        return K_BLOCK;
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
static tsched_status check_name(size_t line, const char *field, const char *name, size_t n)
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

/* LinkSpeed: a plain decimal number ("400", "12.5"). Parsed by hand so that the result
 * does not depend on the caller's locale. Returns 0 if the text is not such a number. */
static int parse_speed(const char *p, size_t n, double *out)
{
    size_t i = 0;
    double v = 0, frac = 0, scale = 1;
    int digits = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++)
        v = v * 10 + (p[i] - '0');
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
            if (scale < 1e17) { /* digits beyond double precision change nothing */
                frac = frac * 10 + (p[i] - '0');
                scale *= 10;
            }
        }
    }
    if (digits == 0 || i != n)
        return 0;
    *out = v + frac / scale;
    return 1;
}

/* ---- one switch definition ----------------------------------------------------------- */

static tsched_status read_tokens(sl_ctx *c, sl_text *v)
{
    sl_q q;
    for (size_t i = 0; i < c->ntok; i++) {
        const sl_text *key = &c->tok[i].key, *val = &c->tok[i].val;
        int k = match_key(key->p, key->len);
        /* keys hold only [[:alnum:]_.], so they are printed as they are */
        if (k == K_BLOCK)
            return ts_error(TSCHED_E_PARSE,
                            "line %zu: %.*s=: the block form of topology.conf is not supported, only the tree form "
                            "(SwitchName=... Nodes=... Switches=...)",
                            key->line, (int)key->len, key->p);
        if (k == K_UNKNOWN)
            return ts_error(TSCHED_E_PARSE, "line %zu: unknown key %s (expected SwitchName, Nodes, Switches or "
                            "LinkSpeed)", key->line, qa(&q, key->p, key->len));
        if (val->len == 0)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s= has an empty value", val->line, key_names[k]);
        if (v[k].p)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s= is given twice for one switch (first on line %zu)",
                            key->line, key_names[k], v[k].line);
        v[k] = *val;
    }
    return TSCHED_OK;
}

static tsched_status add_record(sl_ctx *c, const sl_text *v)
{
    tsched_status st;
    sl_q q;
    const sl_text *name = &v[K_SWITCHNAME];
    if (memchr(name->p, '[', name->len) || memchr(name->p, ']', name->len) || memchr(name->p, ',', name->len))
        return ts_error(TSCHED_E_PARSE,
                        "line %zu: SwitchName=%s: a hostlist is not allowed here; give one plain name", name->line,
                        qa(&q, name->p, name->len));
    if ((st = check_name(name->line, "SwitchName=", name->p, name->len)) != TSCHED_OK)
        return st;
    if (v[K_NODES].p && v[K_SWITCHES].p)
        return ts_error(TSCHED_E_PARSE, "line %zu: switch %s has both Nodes= and Switches=; a switch of the tree "
                        "form holds either nodes or switches", name->line, qa(&q, name->p, name->len));
    double speed = 0;
    if (v[K_LINKSPEED].p) {
        const sl_text *s = &v[K_LINKSPEED];
        if (!parse_speed(s->p, s->len, &speed) || !isfinite(speed) || speed <= 0 || speed > TS_MAX_GBPS)
            return ts_error(TSCHED_E_RANGE, "line %zu: LinkSpeed=%s must be a finite number > 0 and <= %g (Gbit/s)",
                            s->line, qa(&q, s->p, s->len), TS_MAX_GBPS);
    }
    if (c->nsw >= TS_MAX_SWITCHES)
        return ts_error(TSCHED_E_TOO_LARGE, "line %zu: more than %u switches", name->line, TS_MAX_SWITCHES);
    const char *cname;
    uint32_t id;
    int added;
    if ((st = cstr(c, name->p, name->len, &cname)) != TSCHED_OK ||
        (st = ts_strtab_intern(&c->names, cname, &id, &added)) != TSCHED_OK)
        return st;
    if (!added)
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: SwitchName=%s is already defined on line %zu", name->line,
                        qa(&q, name->p, name->len), c->sw[id].line);
    if ((st = TS_GROW(c->sw, c->sw_cap, c->nsw + 1)) != TSCHED_OK)
        return st; /* the name stays interned, but the import fails as a whole anyway */
    sl_switch *w = &c->sw[c->nsw++];
    memset(w, 0, sizeof *w);
    w->line = name->line;
    w->nodes = v[K_NODES];
    w->children = v[K_SWITCHES];
    w->speed = speed;
    w->pod = NONE32;
    return TSCHED_OK;
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
    if (st == TSCHED_OK && !v[K_SWITCHNAME].p) {
        const sl_text *key = &c->tok[0].key;
        st = ts_error(TSCHED_E_PARSE, "line %zu: %.*s= without SwitchName=; every line of the tree form defines one "
                      "switch", key->line, (int)key->len, key->p);
    }
    if (st == TSCHED_OK)
        st = add_record(c, v);
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
static tsched_status parse_text(sl_ctx *c, const char *text, size_t len)
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
        return ts_error(TSCHED_E_PARSE, "no switch is defined (no SwitchName= line)");
    return TSCHED_OK;
}

/* ---- the switch tree ---------------------------------------------------------------- */

static tsched_status resolve_children(sl_ctx *c)
{
    tsched_status st = TSCHED_OK;
    sl_q q;
    uint32_t *mark = ts_malloc(c->nsw, sizeof *mark); /* the last parent that listed a switch */
    if (!mark)
        return TSCHED_E_NOMEM;
    for (size_t s = 0; s < c->nsw; s++)
        mark[s] = NONE32;
    for (size_t s = 0; s < c->nsw && st == TSCHED_OK; s++) {
        sl_switch *w = &c->sw[s];
        w->child_off = c->nchild;
        if (!w->children.p)
            continue;
        ts_hostlist_clear(&c->hl);
        if ((st = ts_hostlist_expand(&c->hl, w->children.p, w->children.len, ts_limits()->switches)) != TSCHED_OK) {
            st = at_line(st, w->children.line, "Switches=");
            break;
        }
        for (size_t i = 0; i < ts_hostlist_count(&c->hl); i++) {
            const char *name = ts_hostlist_name(&c->hl, i);
            uint32_t id = ts_strtab_find(&c->names, name);
            if (id == NONE32) {
                st = ts_error(TSCHED_E_NOT_FOUND, "line %zu: Switches=: no switch named %s", w->children.line,
                              qz(&q, name));
                break;
            }
            if (mark[id] == (uint32_t)s) {
                st = ts_error(TSCHED_E_DUPLICATE, "line %zu: Switches=: switch %s is listed twice",
                              w->children.line, qz(&q, name));
                break;
            }
            mark[id] = (uint32_t)s;
            if (c->nchild >= TS_MAX_TRUNKS) {
                st = ts_error(TSCHED_E_TOO_LARGE, "line %zu: Switches=: more than %u parent-child pairs in all",
                              w->children.line, TS_MAX_TRUNKS);
                break;
            }
            if ((st = TS_GROW(c->child, c->child_cap, c->nchild + 1)) != TSCHED_OK)
                break;
            c->child[c->nchild++] = id;
            w->nchild++;
            c->sw[id].nparents++;
        }
    }
    free(mark);
    return st;
}

typedef struct sl_frame {
    uint32_t sw, next; /* switch, and its next child to visit */
} sl_frame;

/* Append s to buf (capacity cap), marking a cut with "...". */
static void append(char *buf, size_t cap, size_t *n, const char *s)
{
    if (*n + 1 >= cap)
        return;
    int w = snprintf(buf + *n, cap - *n, "%s", s);
    if (w < 0 || (size_t)w >= cap - *n) {
        *n = cap - 1;
        memcpy(buf + cap - 4, "...", 4);
    } else {
        *n += (size_t)w;
    }
}

/* The switch on top of the stack lists `child`, which is further down the stack. */
static tsched_status cycle_error(const sl_ctx *c, const sl_frame *stack, size_t depth, uint32_t child)
{
    size_t from = depth - 1;
    while (stack[from].sw != child)
        from--;
    char buf[480];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = from; i < depth; i++) {
        append(buf, sizeof buf, &n, ts_strtab_str(&c->names, stack[i].sw));
        append(buf, sizeof buf, &n, " -> ");
    }
    append(buf, sizeof buf, &n, ts_strtab_str(&c->names, child));
    const sl_switch *top = &c->sw[stack[depth - 1].sw];
    return ts_error(TSCHED_E_CYCLE, "line %zu: Switches=: cycle in the switch tree: %s", top->children.line, buf);
}

/* All children are done: the switch sits one tier above them. */
static tsched_status finish_tier(sl_ctx *c, uint32_t s)
{
    sl_q q1, q2, q3;
    sl_switch *w = &c->sw[s];
    if (w->nchild == 0) {
        w->tier = TSCHED_TIER_LEAF;
        return TSCHED_OK;
    }
    const uint32_t *ch = c->child + w->child_off;
    int t0 = c->sw[ch[0]].tier;
    for (uint32_t k = 1; k < w->nchild; k++) {
        if (c->sw[ch[k]].tier == t0)
            continue;
        const char *a = ts_strtab_str(&c->names, ch[0]), *b = ts_strtab_str(&c->names, ch[k]);
        return ts_error(TSCHED_E_RANGE, "line %zu: Switches=: the children of switch %s are on different levels: "
                        "%s is tier %d but %s is tier %d", w->children.line, qz(&q1, ts_strtab_str(&c->names, s)),
                        qz(&q2, a), t0, qz(&q3, b), c->sw[ch[k]].tier);
    }
    if (t0 + 1 >= TSCHED_TIERS)
        return ts_error(TSCHED_E_RANGE, "line %zu: switch %s would be tier %d, the top of a tree of %d or more "
                        "levels; the model has at most three tiers (leaf, spine, core)", w->line,
                        qz(&q1, ts_strtab_str(&c->names, s)), t0 + 1, t0 + 2);
    w->tier = t0 + 1;
    return TSCHED_OK;
}

/* Iterative depth-first search over children: a switch is finished after all of them. */
static tsched_status compute_tiers(sl_ctx *c)
{
    tsched_status st = TSCHED_OK;
    uint8_t *state = ts_calloc(c->nsw, 1); /* 0 new, 1 on the stack, 2 finished */
    sl_frame *stack = ts_malloc(c->nsw, sizeof *stack);
    if (!state || !stack) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t root = 0; root < c->nsw; root++) {
        if (state[root])
            continue;
        size_t depth = 0;
        stack[depth++] = (sl_frame){root, 0};
        state[root] = 1;
        while (depth > 0) {
            sl_frame *f = &stack[depth - 1];
            const sl_switch *w = &c->sw[f->sw];
            if (f->next < w->nchild) {
                uint32_t ch = c->child[w->child_off + f->next++];
                if (state[ch] == 1) {
                    st = cycle_error(c, stack, depth, ch);
                    goto out;
                }
                if (state[ch] == 0) {
                    state[ch] = 1;
                    stack[depth++] = (sl_frame){ch, 0};
                }
                continue;
            }
            if ((st = finish_tier(c, f->sw)) != TSCHED_OK)
                goto out;
            state[f->sw] = 2;
            c->tier_count[c->sw[f->sw].tier]++;
            depth--;
        }
    }
out:
    free(state);
    free(stack);
    return st;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Pods are the connected components of the leaf-spine graph, numbered by first leaf. */
static tsched_status assign_pods(sl_ctx *c)
{
    uint32_t *parent = ts_malloc(c->nsw, sizeof *parent), *pod_of = ts_malloc(c->nsw, sizeof *pod_of);
    if (!parent || !pod_of) {
        free(parent);
        free(pod_of);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t s = 0; s < c->nsw; s++) {
        parent[s] = s;
        pod_of[s] = NONE32;
    }
    for (uint32_t s = 0; s < c->nsw; s++) {
        if (c->sw[s].tier != TSCHED_TIER_SPINE)
            continue;
        for (uint32_t k = 0; k < c->sw[s].nchild; k++) {
            uint32_t a = uf_find(parent, s), b = uf_find(parent, c->child[c->sw[s].child_off + k]);
            if (a != b)
                parent[a > b ? a : b] = a < b ? a : b;
        }
    }
    uint32_t npods = 0;
    for (uint32_t s = 0; s < c->nsw; s++)
        if (c->sw[s].tier == TSCHED_TIER_LEAF && pod_of[uf_find(parent, s)] == NONE32)
            pod_of[uf_find(parent, s)] = npods++;
    for (uint32_t s = 0; s < c->nsw; s++)
        if (c->sw[s].tier != TSCHED_TIER_CORE)
            c->sw[s].pod = pod_of[uf_find(parent, s)];
    free(parent);
    free(pod_of);
    return TSCHED_OK;
}

/* ---- assembly through the public builder -------------------------------------------- */

/* Leaves, then spines, then cores, each in file order. */
static tsched_status add_switches(sl_ctx *c)
{
    for (int tier = 0; tier < TSCHED_TIERS; tier++) {
        for (uint32_t s = 0; s < c->nsw; s++) {
            const sl_switch *w = &c->sw[s];
            if (w->tier != tier)
                continue;
            char pod[32];
            if (w->pod != NONE32)
                snprintf(pod, sizeof pod, "pod%u", w->pod);
            tsched_status st = tsched_topology_add_switch(NULL, c->topo, ts_strtab_str(&c->names, s), tier,
                                                          w->pod != NONE32 ? pod : NULL);
            if (st != TSCHED_OK)
                return at_line(st, w->line, NULL);
        }
    }
    return TSCHED_OK;
}

static tsched_status add_node(sl_ctx *c, uint32_t leaf, const char *name, double speed)
{
    tsched_status st;
    sl_q q1, q2, q3;
    const sl_switch *w = &c->sw[leaf];
    const char *leaf_name = ts_strtab_str(&c->names, leaf);
    if ((st = check_name(w->nodes.line, "Nodes=", name, strlen(name))) != TSCHED_OK)
        return st;
    uint32_t sw = ts_strtab_find(&c->names, name);
    if (sw != NONE32)
        return ts_error(TSCHED_E_DUPLICATE,
                        "line %zu: Nodes=: node %s has the name of the switch defined on line %zu", w->nodes.line,
                        qz(&q1, name), c->sw[sw].line);
    uint32_t id;
    int added;
    if ((st = ts_strtab_intern(&c->nodes, name, &id, &added)) != TSCHED_OK)
        return st;
    if (!added && c->owner[id] == leaf)
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: Nodes=: node %s is listed twice under switch %s",
                        w->nodes.line, qz(&q1, name), qz(&q2, leaf_name));
    if (!added) {
        const sl_switch *first = &c->sw[c->owner[id]];
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: Nodes=: node %s is listed under switch %s (line %zu) "
                        "and under switch %s", w->nodes.line, qz(&q1, name),
                        qz(&q2, ts_strtab_str(&c->names, c->owner[id])), first->nodes.line, qz(&q3, leaf_name));
    }
    if ((st = TS_GROW(c->owner, c->owner_cap, (size_t)id + 1)) != TSCHED_OK)
        return st;
    c->owner[id] = leaf;
    st = tsched_topology_add_node(NULL, c->topo, name, leaf_name, c->o->gpus_per_node, c->nics, c->o->gpu_type, speed);
    return st == TSCHED_OK ? st : at_line(st, w->nodes.line, "Nodes=");
}

/* Nodes leaf by leaf, in hostlist order; each leaf's downward capacity is what its NICs carry. */
static tsched_status add_nodes(sl_ctx *c)
{
    tsched_status st;
    for (uint32_t s = 0; s < c->nsw; s++) {
        sl_switch *w = &c->sw[s];
        if (w->tier != TSCHED_TIER_LEAF || !w->nodes.p)
            continue;
        double speed = w->speed > 0 ? w->speed : c->o->nic_gbps;
        size_t before = ts_strtab_count(&c->nodes);
        ts_hostlist_clear(&c->hl);
        size_t max_nodes = ts_limits()->nodes;
        if ((st = ts_hostlist_expand(&c->hl, w->nodes.p, w->nodes.len, max_nodes > before ? max_nodes - before : 0)) !=
            TSCHED_OK) {
            if (st != TSCHED_E_TOO_LARGE)
                return at_line(st, w->nodes.line, "Nodes=");
            char what[128];
            snprintf(what, sizeof what, "Nodes= (%zu nodes before this line; the limit nodes = %zu, see tsched_limits)",
                     before, max_nodes);
            return at_line(st, w->nodes.line, what);
        }
        for (size_t i = 0; i < ts_hostlist_count(&c->hl); i++)
            if ((st = add_node(c, s, ts_hostlist_name(&c->hl, i), speed)) != TSCHED_OK)
                return st;
        w->nnodes = (uint32_t)ts_hostlist_count(&c->hl);
        w->down = (double)w->nnodes * c->nics * speed;
    }
    return TSCHED_OK;
}

/* Capacity of the trunk from child `ch` up to parent `p`, Gbit/s. */
static double trunk_capacity(const sl_ctx *c, const sl_switch *p, const sl_switch *ch)
{
    if (p->speed > 0)
        return p->speed;
    if (ch->down > 0)
        return ch->down / ch->nparents; /* non-blocking: the uplinks carry all that is below */
    return c->o->nic_gbps;              /* nothing below: one nominal link keeps the wiring */
}

/* Links needed so that none exceeds the model's per-link limit; only a fabric far beyond
 * any real one needs more than one. */
static uint32_t links_for(double cap)
{
    if (cap <= TS_MAX_GBPS)
        return 1;
    double need = ceil(cap / TS_MAX_GBPS);
    uint32_t count = need < TS_MAX_LINK_COUNT ? (uint32_t)need : TS_MAX_LINK_COUNT;
    if (cap / count > TS_MAX_GBPS && count < TS_MAX_LINK_COUNT)
        count++; /* ceil() of a rounded quotient may fall one short */
    return count;
}

/* One trunk per parent-child pair; children's capacities are known before their parents'. */
static tsched_status add_links(sl_ctx *c)
{
    for (int tier = TSCHED_TIER_SPINE; tier < TSCHED_TIERS; tier++) {
        for (uint32_t s = 0; s < c->nsw; s++) {
            sl_switch *p = &c->sw[s];
            if (p->tier != tier)
                continue;
            for (uint32_t k = 0; k < p->nchild; k++) {
                uint32_t child = c->child[p->child_off + k];
                double cap = trunk_capacity(c, p, &c->sw[child]);
                uint32_t count = links_for(cap);
                tsched_status st = tsched_topology_add_link(c->topo, ts_strtab_str(&c->names, child),
                                                            ts_strtab_str(&c->names, s), cap / count, count);
                if (st != TSCHED_OK)
                    return at_line(st, p->children.line, "Switches=");
                p->down += cap;
            }
        }
    }
    return TSCHED_OK;
}

/* ---- entry points -------------------------------------------------------------------- */

static tsched_status check_options(const tsched_slurm_options *o, uint32_t *nics)
{
    if (o->gpus_per_node < 1 || o->gpus_per_node > TS_MAX_GPUS_PER_NODE)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.gpus_per_node: %u is out of range [1, %u]",
                        o->gpus_per_node, TS_MAX_GPUS_PER_NODE);
    if (!isfinite(o->nic_gbps) || o->nic_gbps <= 0 || o->nic_gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.nic_gbps: %g is not a finite number in (0, %g]",
                        o->nic_gbps, TS_MAX_GBPS);
    *nics = o->nics_per_node ? o->nics_per_node : o->gpus_per_node;
    if (*nics > TS_MAX_NICS_PER_NODE)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.nics_per_node: %u NICs per node%s is more than %u",
                        *nics, o->nics_per_node ? "" : " (one per GPU)", TS_MAX_NICS_PER_NODE);
    return TSCHED_OK;
}

static tsched_status import(sl_ctx *c, const char *text, size_t len)
{
    tsched_status st;
    if ((st = parse_text(c, text, len)) != TSCHED_OK || (st = resolve_children(c)) != TSCHED_OK ||
        (st = compute_tiers(c)) != TSCHED_OK)
        return st;
    if (c->tier_count[TSCHED_TIER_CORE] > 0 && (st = assign_pods(c)) != TSCHED_OK)
        return st;
    const char *name = c->o->name && *c->o->name ? c->o->name : "slurm";
    if ((st = tsched_topology_new(&c->topo, name)) != TSCHED_OK || (st = add_switches(c)) != TSCHED_OK ||
        (st = add_nodes(c)) != TSCHED_OK || (st = add_links(c)) != TSCHED_OK)
        return st;
    return tsched_topology_build(c->topo);
}

static tsched_status import_string(tsched_topology **out, const char *text, size_t len,
                                   const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_string: out is NULL");
    *out = NULL;
    if (!text && len)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_string: text is NULL");
    static const ts_span spans[] = {
        TS_SPAN(tsched_slurm_options, size),          TS_SPAN(tsched_slurm_options, name),
        TS_SPAN(tsched_slurm_options, gpus_per_node), TS_SPAN(tsched_slurm_options, nics_per_node),
        TS_SPAN(tsched_slurm_options, nic_gbps),      TS_SPAN(tsched_slurm_options, gpu_type),
    };
    tsched_slurm_options merged;
    tsched_slurm_options_init(&merged);
    tsched_status st;
    if (opts && (st = ts_struct_in(&merged, opts, spans, TS_NSPANS(spans), sizeof merged, "tsched_slurm_options")))
        return st;
    opts = &merged;
    sl_ctx c;
    memset(&c, 0, sizeof c);
    st = check_options(opts, &c.nics);
    if (st != TSCHED_OK)
        return st;
    c.o = opts;
    ts_strtab_init(&c.names);
    ts_strtab_init(&c.nodes);
    ts_hostlist_init(&c.hl);
    st = import(&c, text ? text : "", len);
    if (st == TSCHED_OK) {
        *out = c.topo;
        c.topo = NULL;
    }
    ctx_free(&c);
    return st;
}

tsched_status tsched_topology_import_slurm_string(tsched_topology **out, const char *text, size_t len,
                                                  const tsched_slurm_options *opts)
{
    return import_string(out, text, len, opts);
}

tsched_status tsched_topology_import_slurm_file(tsched_topology **out, const char *path,
                                                const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_file: out is NULL");
    *out = NULL;
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_file: path is NULL");
    char *text;
    size_t len;
    tsched_status st = ts_read_file(&text, &len, path); /* its message already names the path */
    if (st != TSCHED_OK)
        return st;
    st = import_string(out, text, len, opts);
    free(text);
    return st == TSCHED_OK ? st : ts_error_prefix(st, path);
}
