/* One parser and one help writer for every command's option table (opt.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

/* The enum fields the tables write an int into. */
_Static_assert(sizeof(tsched_kueue_api) == sizeof(int), "an enum option is stored as an int");

static const char *opt_name(const cli_opt *o) { return o->lng ? o->lng : o->shrt; }

static const cli_opt *find(const cli_cmd_spec *spec, const char *a)
{
    for (size_t k = 0; k < spec->nopts; k++) {
        const cli_opt *o = &spec->opts[k];
        if (o->type != CLI_OPT_POS && ((o->lng && !strcmp(a, o->lng)) || (o->shrt && !strcmp(a, o->shrt))))
            return o;
    }
    return NULL;
}

static const cli_opt *positional(const cli_cmd_spec *spec)
{
    for (size_t k = 0; k < spec->nopts; k++)
        if (spec->opts[k].type == CLI_OPT_POS)
            return &spec->opts[k];
    return NULL;
}

static int bad_value(const cli_opt *o, const char *v) { return cli_usage_error("%s: '%s' %s", opt_name(o), v, o->err); }

/* The value `v` of option `o` into the values `base`; CLI_OK or an exit status after its message. */
static int store(const cli_opt *o, char *base, const char *v)
{
    char *at = base + o->off;
    if (o->call)
        return o->call(base, o, v);
    switch (o->type) {
    case CLI_OPT_UINT: {
        uint64_t x;
        unsigned u;
        int wide = (o->flags & CLI_OPT_U64) != 0;
        if (wide ? cli_parse_u64(v, &x) != 0 : cli_parse_u32(v, &u) != 0)
            return bad_value(o, v);
        if (!wide)
            x = u;
        uint64_t max = o->umax ? o->umax : wide ? UINT64_MAX : UINT32_MAX;
        if (x < o->umin || x > max) {
            if (!o->range_err)
                return bad_value(o, v);
            fprintf(stderr, "topo-sched: %s: %llu %s\n", opt_name(o), (unsigned long long)x, o->range_err);
            return CLI_BAD_INPUT;
        }
        if (wide)
            memcpy(at, &x, sizeof x);
        else
            memcpy(at, &u, sizeof u);
        return CLI_OK;
    }
    case CLI_OPT_DOUBLE: {
        char *end;
        errno = 0;
        double d = ts_strtod(v, &end);
        int strict = (o->flags & CLI_OPT_STRICT) != 0;
        if ((strict && (!*v || errno)) || *end || !isfinite(d) ||
            !((o->flags & CLI_OPT_MIN_OPEN) ? d > o->min : d >= o->min) || !(d <= o->max))
            return bad_value(o, v);
        memcpy(at, &d, sizeof d);
        return CLI_OK;
    }
    case CLI_OPT_ENUM:
        if (o->conv) {
            if (o->conv(at, v) != 0)
                return cli_usage_error("%s: %s", opt_name(o), tsched_last_error());
            return CLI_OK;
        }
        for (int i = 0; o->names[i]; i++)
            if (!strcmp(v, o->names[i])) {
                int x = o->values ? o->values[i] : i;
                memcpy(at, &x, sizeof x);
                return CLI_OK;
            }
        return bad_value(o, v);
    case CLI_OPT_FLAG: memcpy(at, &o->set, sizeof o->set); return CLI_OK;
    default: memcpy(at, &v, sizeof v); return CLI_OK;
    }
}

int cli_opt_parse(const cli_cmd_spec *spec, void *vals, int argc, char **argv)
{
    char *base = vals;
    const cli_opt *pos = positional(spec);
    int pos_seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_opt *o = find(spec, a);
        if (o && (o->flags & CLI_OPT_REFUSED))
            return cli_usage_error("%s: %s %s", spec->name, a, o->err);
        if (o && o->type != CLI_OPT_FLAG && i + 1 >= argc)
            o = NULL; /* incomplete: no value follows */
        if (!o) {
            if (pos && !(a[0] == '-' && (a[1] != '\0' || (pos->flags & CLI_OPT_NO_DASH)))) {
                const char *prev;
                memcpy(&prev, base + pos->off, sizeof prev);
                if (pos_seen && (pos->flags & CLI_OPT_ONE))
                    return cli_usage_error("%s: one %s expected, got '%s' and '%s'", spec->name, pos->arg, prev, a);
                if (pos_seen)
                    return cli_usage_error("%s: unexpected argument '%s'", spec->name, a);
                memcpy(base + pos->off, &a, sizeof a);
                pos_seen = 1;
                continue;
            }
            return cli_usage_error(spec->unknown_is_unexpected ? "%s: unexpected argument '%s'"
                                                               : "%s: unknown or incomplete option '%s'",
                                   spec->name, a);
        }
        int rc = store(o, base, o->type == CLI_OPT_FLAG ? NULL : argv[++i]);
        if (rc != CLI_OK)
            return rc;
        if (o->given) {
            int one = 1;
            memcpy(base + o->given - 1, &one, sizeof one);
        }
    }
    return CLI_OK;
}

/* ---- help ---- */

typedef struct sbuf {
    char *p;
    size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++, b->len++)
        if (b->len + 1 < b->cap)
            b->p[b->len] = s[k];
    if (b->cap)
        b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* Text with each '\n' followed by the continuation indent (26 columns). */
static void put_wrapped(sbuf *b, const char *s)
{
    for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        put(b, s, (size_t)(nl - s));
        puts_(b, "\n                          ");
    }
    puts_(b, s);
}

static void put_default(sbuf *b, const cli_opt *o)
{
    if (!o->dflt) {
        puts_(b, "required");
        return;
    }
    puts_(b, o->dflt[0] == '\n' ? "default:" : "default: ");
    put_wrapped(b, o->dflt);
}

size_t cli_opt_help_row(char *buf, size_t cap, const cli_opt *o)
{
    sbuf b = {buf, cap, 0};
    if (cap)
        buf[0] = '\0';
    char label[64];
    snprintf(label, sizeof label, "%s%s%s%s%s", o->shrt ? o->shrt : "", o->shrt && o->lng ? ", " : "",
             o->lng ? o->lng : "", o->arg && o->type != CLI_OPT_POS ? " " : "", o->arg ? o->arg : "");
    char head[96];
    snprintf(head, sizeof head, "  %-23s ", label);
    puts_(&b, head);
    const char *d = strstr(o->help, "{D}");
    if (d) {
        char part[512];
        snprintf(part, sizeof part, "%.*s", (int)(d - o->help), o->help);
        put_wrapped(&b, part);
        put_default(&b, o);
        put_wrapped(&b, d + 3);
    } else {
        put_wrapped(&b, o->help);
        puts_(&b, " (");
        put_default(&b, o);
        puts_(&b, ")");
    }
    puts_(&b, "\n");
    return b.len;
}

size_t cli_opt_help(char *buf, size_t cap, const cli_cmd_spec *spec)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t k = 0; k < spec->nopts; k++)
        if (!(spec->opts[k].flags & CLI_OPT_REFUSED))
            len += cli_opt_help_row(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, &spec->opts[k]);
    return len;
}
