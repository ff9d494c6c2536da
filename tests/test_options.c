/* The option tables of the command line (src/cli/opt.h, one per command) against everything
 * that describes the same options (issue 22 item 5):
 *   - the table itself: a numeric or named default is what the command starts from, and
 *     every name of a named option is one its parser accepts;
 *   - `topo-sched CMD --help` (the text the command prints): one line per row, with the
 *     row's default (or "required"), and no other option line;
 *   - doc/topo-sched.1, the command's subsection: one tagged paragraph per row, a value after
 *     the names exactly when the option takes one, "(default: ...)" or "required", the
 *     default itself when it is a number or a name; no other option there; and every name in
 *     doc/topo-sched.1.md;
 *   - the service (src/service): the op's options are the table's long options (those that
 *     neither write files nor drive the terminal), each of the same type (a request giving
 *     it an array is refused with the type the row says), the same range (the bounds
 *     accepted, one past them refused) and the same names;
 *   - doc/serve.md: the op's row lists the same options.
 * The trace subcommands' options are read by the library's tsched_trace_options_set (the rows'
 * `call`): their type, range and default are checked against it too (by the parser, and the
 * library's list of names against the rows). `draw` has no service op (its table's
 * service_op is NULL: the service draws nothing), so only its help and man page are checked.
 * Then a planted-mismatch self-check: each check must fail on a copy of a table with one row
 * changed (a name, a default, a range, a type).
 * usage: test_options SOURCE_DIR */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../src/cli/cli.h"
#include "../src/cli/opt.h"
#include "../src/service/service_internal.h"
#include "topo-sched/trace.h"

static int quiet; /* the self-check expects failures: their lines are not printed */
static long n_help, n_man, n_probes; /* what was compared, so that a check is never empty */

static int fail(const char *fmt, ...)
{
    if (!quiet) {
        va_list ap;
        va_start(ap, fmt);
        fputs("FAIL: ", stdout);
        vprintf(fmt, ap);
        fputc('\n', stdout);
        va_end(ap);
    }
    return 1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (len + 4096 + 1 > cap && !(buf = realloc(buf, cap = 2 * cap + 8192)))
            exit(1);
        n = fread(buf + len, 1, 4096, f);
        len += n;
    } while (n > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* Whitespace runs to one space, none at the ends (in place). */
static char *squash(char *s)
{
    char *w = s;
    int sp = 0;
    for (char *r = s; *r; r++) {
        if (*r == ' ' || *r == '\n' || *r == '\t') {
            sp = w != s;
            continue;
        }
        if (sp)
            *w++ = ' ';
        sp = 0;
        *w++ = *r;
    }
    *w = '\0';
    return s;
}

/* `src` into `dst` of `cap` bytes, cut to fit. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static const char *name_of(const cli_opt *o) { return o->lng ? o->lng : o->shrt ? o->shrt : o->arg; }

static int takes_value(const cli_opt *o) { return o->type != CLI_OPT_FLAG; }

/* The default when it is a machine value (a number of a numeric option, a name of a named
 * one), else NULL (prose such as "one per GPU"). */
static const char *machine_default(const cli_opt *o)
{
    if (!o->dflt)
        return NULL;
    if (o->type == CLI_OPT_UINT || o->type == CLI_OPT_DOUBLE) {
        char *end;
        strtod(o->dflt, &end);
        return *end || end == o->dflt ? NULL : o->dflt;
    }
    for (int i = 0; o->names && o->names[i]; i++)
        if (!strcmp(o->names[i], o->dflt))
            return o->dflt;
    return NULL;
}

static int is_service_option(const cli_cmd_spec *s, const cli_opt *o)
{
    return s->service_op && o->lng && !(o->flags & (CLI_OPT_NO_SERVICE | CLI_OPT_REFUSED));
}

/* A row that is only a refusal (no help line, no paragraph, no service option). */
static int refused_row(const cli_opt *o) { return (o->flags & CLI_OPT_REFUSED) != 0; }

/* ---- the table against itself: defaults and names ---- */

static int check_table(const cli_cmd_spec *s)
{
    int bad = 0;
    char *v = calloc(1, s->size), *w = calloc(1, s->size);
    if (!v || !w)
        exit(1);
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        s->init(v);
        const char *def = machine_default(o);
        if (o->type == CLI_OPT_UINT && def) {
            uint64_t x = 0;
            unsigned u = 0;
            if (o->flags & CLI_OPT_U64)
                memcpy(&x, v + o->off, sizeof x);
            else
                memcpy(&u, v + o->off, sizeof u), x = u;
            /* 0 left for the library, which takes the default help shows: the parser must
             * refuse 0 then, so the value 0 never comes from the user */
            int lib = x == 0 && (o->umin >= 1 || o->given);
            if (!lib && x != strtoull(def, NULL, 10))
                bad |= fail("%s %s: default %s in the table, %llu in the command", s->name, name_of(o), def,
                            (unsigned long long)x);
        } else if (o->type == CLI_OPT_DOUBLE && def) {
            double d;
            memcpy(&d, v + o->off, sizeof d);
            int unset = d == 0 && o->given; /* given only when typed: the library's own default */
            if (!unset && d != strtod(def, NULL))
                bad |= fail("%s %s: default %s in the table, %g in the command", s->name, name_of(o), def, d);
        } else if (o->type == CLI_OPT_ENUM && def) {
            /* the named default parses to what the command starts from */
            s->init(w);
            int rc = o->conv ? o->conv(w + o->off, def) : -1;
            if (!o->conv) {
                for (int i = 0; o->names[i]; i++)
                    if (!strcmp(o->names[i], def)) {
                        int x = o->values ? o->values[i] : i;
                        memcpy(w + o->off, &x, sizeof x);
                        rc = 0;
                    }
            }
            if (rc != 0 || memcmp(v + o->off, w + o->off, sizeof(int)) != 0)
                bad |= fail("%s %s: the default %s is not what the command starts from", s->name, name_of(o), def);
        } else if (o->type == CLI_OPT_FLAG) {
            int x;
            memcpy(&x, v + o->off, sizeof x);
            if (x == o->set)
                bad |= fail("%s %s: the flag changes nothing (it is set by default)", s->name, name_of(o));
        }
        if (refused_row(o) && (!o->err || !o->lng))
            bad |= fail("%s %s: a refused option without its message", s->name, name_of(o));
        if (o->dflt && !o->help)
            bad |= fail("%s %s: no help text", s->name, name_of(o));
        /* every name is one the parser takes */
        for (int i = 0; o->type == CLI_OPT_ENUM && o->names && o->names[i]; i++) {
            s->init(w);
            char *argv[] = {(char *)"cmd", (char *)o->lng, (char *)o->names[i]};
            if (cli_opt_parse(s, w, 3, argv) != CLI_OK)
                bad |= fail("%s %s: the parser refuses the table's name '%s'", s->name, name_of(o), o->names[i]);
        }
        if ((o->type == CLI_OPT_UINT || o->type == CLI_OPT_DOUBLE || (o->type == CLI_OPT_ENUM && !o->conv)) && !o->err &&
            !o->call)
            bad |= fail("%s %s: no message for a bad value", s->name, name_of(o));
    }
    free(v);
    free(w);
    return bad;
}

/* ---- --help ---- */

/* The paragraph of `help` whose first line starts with the option label `label`: that line
 * and its continuation lines (deeper indent), squashed; NULL if absent. */
static char *help_paragraph(const char *help, const char *label)
{
    size_t n = strlen(label);
    for (const char *p = help; (p = strstr(p, "\n  ")); p++) {
        const char *l = p + 3;
        if (strncmp(l, label, n) || (l[n] != ' ' && l[n] != '\n'))
            continue;
        const char *e = l;
        while ((e = strchr(e, '\n')) && !strncmp(e + 1, "                          ", 26))
            e++;
        size_t len = e ? (size_t)(e - l) : strlen(l);
        char *out = malloc(len + 1);
        memcpy(out, l + n, len - n);
        out[len - n] = '\0';
        return squash(out);
    }
    return NULL;
}

static void label_of(char *buf, size_t cap, const cli_opt *o)
{
    snprintf(buf, cap, "%s%s%s%s%s", o->shrt ? o->shrt : "", o->shrt && o->lng ? ", " : "", o->lng ? o->lng : "",
             o->arg && o->type != CLI_OPT_POS ? " " : "", o->arg ? o->arg : "");
}

/* "(default: X" or "required" in a squashed paragraph. */
static int states_default(const cli_cmd_spec *s, const cli_opt *o, const char *para, const char *where, int exact)
{
    if (!o->dflt)
        return strstr(para, "required") ? 0 : fail("%s %s: %s does not say required", s->name, name_of(o), where);
    const char *d = strstr(para, "(default:");
    if (!d)
        return fail("%s %s: %s states no default", s->name, name_of(o), where);
    char want[512];
    snprintf(want, sizeof want, "(default: %s", exact ? o->dflt : machine_default(o) ? machine_default(o) : "");
    squash(want);
    if (strncmp(d, want, strlen(want)) != 0)
        return fail("%s %s: %s says '%.60s', the table '%s'", s->name, name_of(o), where, d, want);
    /* a machine default is the whole value: 1 is not 10 */
    char after = d[strlen(want)];
    if ((exact || machine_default(o)) && ((after >= '0' && after <= '9') || after == '.' ||
                                           (after >= 'a' && after <= 'z') || after == '-'))
        return fail("%s %s: %s says '%.60s', the table '%s'", s->name, name_of(o), where, d, want);
    return 0;
}

static int check_help(const cli_cmd_spec *s, const char *help)
{
    int bad = 0;
    char label[128];
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (refused_row(o)) {
            label_of(label, sizeof label, o);
            char *para = help_paragraph(help, label);
            if (para)
                bad |= fail("%s --help: a line for %s, which the command refuses", s->name, label);
            free(para);
            continue;
        }
        label_of(label, sizeof label, o);
        char *para = help_paragraph(help, label);
        if (!para) {
            bad |= fail("%s --help: no line for %s", s->name, label);
            continue;
        }
        bad |= states_default(s, o, para, "--help", 1);
        n_help++;
        free(para);
    }
    /* every option line of the help is a row (or -h) */
    const char *opts = strstr(help, "\noptions:\n");
    for (const char *p = opts; p && (p = strstr(p, "\n  ")); p++) {
        const char *l = p + 3;
        if (*l == ' ' || !strncmp(l, "-h, --help", 10) || !strncmp(l, "\n", 1))
            continue;
        int found = 0;
        for (size_t k = 0; k < s->nopts && !found; k++) {
            if (refused_row(&s->opts[k]))
                continue;
            label_of(label, sizeof label, &s->opts[k]);
            found = !strncmp(l, label, strlen(label)) && (l[strlen(label)] == ' ' || l[strlen(label)] == '\n');
        }
        if (!found)
            bad |= fail("%s --help: option line '%.30s' has no row in the table", s->name, l);
    }
    return bad;
}

/* ---- the man page ---- */

/* roff of one line to text: macro names dropped, quotes and font escapes undone, the
 * arguments of the alternating-font macros joined without spaces. */
static void roff_line(char *out, size_t cap, const char *line)
{
    size_t w = 0;
    int join = 0;
    const char *p = line;
    if (*p == '.') {
        const char *m = p + 1;
        join = (m[0] == 'B' || m[0] == 'I' || m[0] == 'R') && (m[1] == 'R' || m[1] == 'I' || m[1] == 'B');
        while (*p && *p != ' ')
            p++;
        while (*p == ' ')
            p++;
    }
    int q = 0;
    for (; *p && w + 2 < cap; p++) {
        if (*p == '"') {
            q = !q;
            continue;
        }
        if (*p == ' ' && !q && join)
            continue;
        if (*p == '\\') {
            p++;
            if (*p == 'f') {
                p += p[1] == '(' ? 3 : 1;
                continue;
            }
            if (*p == '(' && p[1] && p[2]) {
                const char *sym = p[1] == 'e' && p[2] == 'm' ? "--" : "";
                for (; *sym; sym++)
                    out[w++] = *sym;
                p += 2;
                continue;
            }
            if (*p == 'c' || *p == '&' || *p == ':')
                continue;
            if (!*p)
                break;
        }
        out[w++] = *p;
    }
    out[w] = '\0';
}

typedef struct man_item {
    char tag[256];  /* the tag line as text: "-t, --topology TOPO" */
    char *text;     /* the paragraph, squashed */
} man_item;

/* The .TP items of subsection `.SS "name"`; returns their count (at most cap), -1 if absent. */
static int man_items(man_item *items, int cap, const char *man, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "\n.SS \"%s\"\n", name);
    const char *p = strstr(man, head);
    if (!p)
        return -1;
    p += strlen(head);
    int n = -1;
    size_t tlen = 0;
    char line[2048], text[2048];
    int want_tag = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p += len + (e != NULL);
        if (!strncmp(line, ".SS", 3) || !strncmp(line, ".SH", 3))
            break;
        if (!strncmp(line, ".TP", 3) || !strncmp(line, ".PP", 3) || !strncmp(line, ".RS", 3) ||
            !strncmp(line, ".RE", 3)) {
            if (!strncmp(line, ".TP", 3) && n + 1 < cap) {
                n++;
                items[n].text = calloc(1, 65536);
                tlen = 0;
                want_tag = 1;
            } else
                want_tag = -1; /* text after .PP belongs to no item */
            continue;
        }
        if (n < 0 || want_tag < 0 || line[0] == '\0' || !strncmp(line, ".\\\"", 3) || !strncmp(line, ".sp", 3) ||
            !strncmp(line, ".nf", 3) || !strncmp(line, ".fi", 3) || !strncmp(line, ".EX", 3) ||
            !strncmp(line, ".EE", 3) || !strncmp(line, ".in", 3))
            continue;
        roff_line(text, sizeof text, line);
        if (want_tag == 1) {
            copy(items[n].tag, sizeof items[n].tag, text);
            squash(items[n].tag);
            want_tag = 0;
            continue;
        }
        size_t tl = strlen(text);
        if (tlen + tl + 2 < 65536) {
            memcpy(items[n].text + tlen, text, tl);
            tlen += tl;
            /* \c at the end joins the next line without a space */
            if (!(len >= 2 && line[len - 2] == '\\' && line[len - 1] == 'c'))
                items[n].text[tlen++] = ' ';
            items[n].text[tlen] = '\0';
        }
    }
    for (int i = 0; i <= n; i++)
        squash(items[i].text);
    return n + 1;
}

/* The option names of a tag ("-t, --topology TOPO" -> -t, --topology) and whether a value
 * follows them. */
static int tag_names(const char *tag, const char **names, int cap, char *buf, size_t bufcap, int *value)
{
    copy(buf, bufcap, tag);
    int n = 0;
    *value = 0;
    for (char *t = strtok(buf, " ,"); t; t = strtok(NULL, " ,")) {
        if (t[0] == '-' && n < cap)
            names[n++] = t;
        else
            *value = 1;
    }
    return n;
}

static const cli_opt *row_named(const cli_cmd_spec *s, const char *name)
{
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if ((o->lng && !strcmp(o->lng, name)) || (o->shrt && !strcmp(o->shrt, name)))
            return o;
    }
    return NULL;
}

/* A paragraph "As for CMD (...)" tagged with several options: each is a row of CMD's table
 * too, the same in everything but where its value goes (CMD's own paragraphs are checked
 * with CMD). */
static int check_as_for(const cli_cmd_spec *s, const char *const *names, int nn, const char *ref, int *seen)
{
    int bad = 0;
    const cli_cmd_spec *r = NULL;
    for (const cli_cmd_spec *const *q = cli_specs; *q && !r; q++) {
        size_t n = strlen((*q)->name);
        if (!strncmp(ref, (*q)->name, n) && (ref[n] == ' ' || ref[n] == '\0' || ref[n] == '.'))
            r = *q;
    }
    if (!r)
        return fail("doc/topo-sched.1 %s: 'As for %.30s' names no command with a table", s->name, ref);
    for (int j = 0; j < nn; j++) {
        const cli_opt *o = row_named(s, names[j]), *x = row_named(r, names[j]);
        if (!o) {
            bad |= fail("doc/topo-sched.1 %s: option %s is in no row of the table", s->name, names[j]);
            continue;
        }
        seen[o - s->opts] = 1;
        if (!x || x->type != o->type || x->flags != o->flags || x->umin != o->umin || x->umax != o->umax ||
            x->min != o->min || x->max != o->max || (!x->dflt != !o->dflt) ||
            (x->dflt && strcmp(x->dflt, o->dflt)) || x->names != o->names)
            bad |= fail("doc/topo-sched.1 %s: %s is 'as for %s' there, but the tables differ", s->name, names[j],
                        r->name);
    }
    return bad;
}

/* The text of subsection `.SS "name"` up to the next one (malloc'd); NULL if absent. */
static char *man_section(const char *man, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "\n.SS \"%s\"\n", name);
    const char *p = strstr(man, head);
    if (!p)
        return NULL;
    p += strlen(head);
    const char *e = strstr(p, "\n.SS ");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *out = malloc(n + 1);
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

/* The group whose subsection holds the options its subcommands share ("Options: ... as under
 * trace"), or NULL. There a subcommand's own default is written "(default: D; SUB E)". */
static const char *man_parent(const cli_cmd_spec *s) { return !strncmp(s->name, "trace ", 6) ? "trace" : NULL; }

/* The shared paragraphs of the parent subsection for the rows of `s` not described in its own. */
static int check_man_parent(const cli_cmd_spec *s, const char *man, int *seen)
{
    const char *parent = man_parent(s);
    if (!parent)
        return 0;
    man_item items[64];
    int n = man_items(items, 64, man, parent), bad = 0;
    if (n < 0)
        return fail("doc/topo-sched.1: no subsection .SS \"%s\"", parent);
    const char *sub = s->name + strlen(parent) + 1;
    for (int i = 0; i < n; i++) {
        const char *names[16];
        char buf[256];
        int value;
        int nn = tag_names(items[i].tag, names, 16, buf, sizeof buf, &value);
        const cli_opt *o = nn ? row_named(s, names[0]) : NULL;
        if (!o || refused_row(o) || seen[o - s->opts])
            continue; /* another subcommand's option, or one described under the subcommand */
        seen[o - s->opts] = 1;
        n_man++;
        if (value != takes_value(o))
            bad |= fail("doc/topo-sched.1 %s: %s %s a value under %s, %s in the table", s->name, names[0],
                        value ? "takes" : "takes no", parent, takes_value(o) ? "takes one" : "is a flag");
        char own[128], want[160];
        snprintf(own, sizeof own, "; %s ", sub);
        if (strstr(items[i].text, own)) {
            snprintf(want, sizeof want, "; %s %s)", sub, o->dflt ? o->dflt : "required");
            if (!strstr(items[i].text, want))
                bad |= fail("doc/topo-sched.1 %s: %s under %s says '%.60s', the table '%s'", s->name, names[0],
                            parent, strstr(items[i].text, own), want);
        } else
            bad |= states_default(s, o, items[i].text, "doc/topo-sched.1", 0);
    }
    for (int i = 0; i < n; i++)
        free(items[i].text);
    return bad;
}

static int check_man(const cli_cmd_spec *s, const char *man, const char *man_md)
{
    int bad = 0;
    man_item items[64];
    int n = man_items(items, 64, man, s->name);
    if (n < 0)
        return fail("doc/topo-sched.1: no subsection .SS \"%s\"", s->name);
    int *seen = calloc(s->nopts, sizeof *seen);
    for (int i = 0; i < n; i++) {
        const char *names[16];
        char buf[256];
        int value;
        int nn = tag_names(items[i].tag, names, 16, buf, sizeof buf, &value);
        const cli_opt *o = NULL;
        if (nn == 0) { /* the positional argument: an upper-case word */
            for (size_t k = 0; k < s->nopts && !o; k++)
                if (s->opts[k].type == CLI_OPT_POS && !strcmp(s->opts[k].arg, items[i].tag))
                    o = &s->opts[k];
            if (!o) {
                if (strspn(items[i].tag, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == strlen(items[i].tag))
                    bad |= fail("doc/topo-sched.1 %s: argument %s is in no row", s->name, items[i].tag);
                continue;
            }
        } else if (nn > 1 && !strncmp(items[i].text, "As for ", 7)) {
            bad |= check_as_for(s, names, nn, items[i].text + 7, seen);
            continue;
        } else {
            if (!strcmp(names[0], "-h"))
                continue;
            o = row_named(s, names[0]);
            if (!o) {
                bad |= fail("doc/topo-sched.1 %s: option %s is in no row of the table", s->name, names[0]);
                continue;
            }
            for (int j = 1; j < nn; j++)
                if (row_named(s, names[j]) != o)
                    bad |= fail("doc/topo-sched.1 %s: %s and %s are one option there, not in the table", s->name,
                                names[0], names[j]);
            if (value != takes_value(o))
                bad |= fail("doc/topo-sched.1 %s: %s %s a value there, %s in the table", s->name, names[0],
                            value ? "takes" : "takes no", takes_value(o) ? "takes one" : "is a flag");
        }
        seen[o - s->opts] = 1;
        n_man++;
        char where[160];
        snprintf(where, sizeof where, "doc/topo-sched.1");
        bad |= states_default(s, o, items[i].text, where, 0);
    }
    bad |= check_man_parent(s, man, seen);
    /* a positional argument without a paragraph of its own is named in the subsection's text */
    char *sec = man_section(man, s->name);
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (!seen[k] && o->type == CLI_OPT_POS && sec && strstr(sec, o->arg))
            seen[k] = 1, n_man++;
    }
    free(sec);
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (refused_row(o))
            continue;
        if (!seen[k])
            bad |= fail("doc/topo-sched.1 %s: no paragraph for %s", s->name, name_of(o));
        /* and the markdown copy names it */
        const char *nm = o->lng ? o->lng : o->shrt;
        int found = 0;
        size_t len = nm && o->type != CLI_OPT_POS ? strlen(nm) : 0;
        for (const char *p = man_md; len && (p = strstr(p, nm)) && !found; p++) {
            char b = p == man_md ? ' ' : p[-1], a = p[len];
            found = !(b == '-' || (b >= 'a' && b <= 'z')) && !(a == '-' || (a >= 'a' && a <= 'z'));
        }
        if (len && !found)
            bad |= fail("doc/topo-sched.1.md does not name %s (%s)", nm, s->name);
    }
    for (int i = 0; i < n; i++)
        free(items[i].text);
    free(seen);
    return bad;
}

/* ---- the service ---- */

static tsched_service *svc;

/* The answer's error message for op `op` with options `opts` (JSON text), or "" when ok. */
static char *ask(const char *op, const char *opts)
{
    char req[1024];
    snprintf(req, sizeof req, "{\"id\":1,\"op\":\"%s\",\"options\":{%s}}", op, opts);
    char *answer = NULL;
    if (tsched_service_handle(&answer, NULL, svc, req, strlen(req)) != TSCHED_OK)
        exit(3);
    json_t *a = json_loads(answer, 0, NULL);
    tsched_free(answer);
    const char *e = json_string_value(json_object_get(a, "error"));
    char *out = strdup(e ? e : "");
    json_decref(a);
    return out;
}

/* Options a probe of `key` needs beside it (an option that only works with another). */
static const char *context(const char *op, const char *key)
{
    static const char *const ctx[][3] = {
        {"place", "hostfile-per-task", "\"hostfile\":true,"},
        {"place", "tasks-per-node", "\"pod-order\":true,"},
        {"place", "index-label", "\"pod-order\":true,"},
        {"vclos", "routing", "\"mode\":\"free\","},
        {"vclos", "seed", "\"mode\":\"free\","},
        {"vclos", "step", "\"pattern\":\"ring\","},
    };
    for (size_t i = 0; i < sizeof ctx / sizeof ctx[0]; i++)
        if (!strcmp(ctx[i][0], op) && !strcmp(ctx[i][1], key))
            return ctx[i][2];
    /* the required options, so that the probed one is read */
    if (!strcmp(op, "export") && strcmp(key, "to"))
        return "\"to\":\"kueue\",";
    if ((!strcmp(op, "kcut") || !strcmp(op, "prioritize")) && strcmp(key, "levels"))
        return "\"levels\":1,";
    if (!strcmp(op, "flows") && strcmp(key, "pattern"))
        return "\"pattern\":\"pp\",";
    return "";
}

/* 1 when the service refuses `value` for option `key` of `op` naming the option. */
static int refused(const char *op, const char *key, const char *value, char **msg)
{
    char opts[512];
    snprintf(opts, sizeof opts, "%s\"%s\":%s", context(op, key), key, value);
    char *e = ask(op, opts);
    char named[128];
    snprintf(named, sizeof named, "options.%s:", key);
    int r = strstr(e, named) != NULL;
    if (msg)
        *msg = e;
    else
        free(e);
    return r;
}

static int probe(const cli_cmd_spec *s, const cli_opt *o, const char *value, int want_refused, const char *why)
{
    char *msg;
    const char *key = o->lng + 2;
    int r = refused(s->service_op, key, value, &msg);
    int bad = 0;
    n_probes++;
    if (r != want_refused)
        bad = fail("service %s: options.%s = %s is %s there, %s in the table (%s)%s%s", s->service_op, key, value,
                   r ? "refused" : "accepted", want_refused ? "refused" : "accepted", why, *msg ? ": " : "", msg);
    free(msg);
    return bad;
}

/* A whole number as JSON: above INT64_MAX as a string (the service takes numbers as strings
 * too; JSON readers refuse such integers). */
static void fmt_u(char *b, size_t cap, uint64_t x)
{
    snprintf(b, cap, x > (uint64_t)INT64_MAX ? "\"%llu\"" : "%llu", (unsigned long long)x);
}

static int check_service(const cli_cmd_spec *s)
{
    if (!s->service_op)
        return 0;
    int bad = 0;
    size_t nops;
    const svc_op *ops = ts_svc_ops(&nops), *op = NULL;
    for (size_t i = 0; i < nops; i++)
        if (!strcmp(ops[i].name, s->service_op))
            op = &ops[i];
    if (!op)
        return fail("service: no op %s", s->service_op);
    /* the names, both ways */
    for (const char *const *k = op->options; k && *k; k++) {
        char lng[64];
        snprintf(lng, sizeof lng, "--%s", *k);
        const cli_opt *o = row_named(s, lng);
        if (!o || !is_service_option(s, o))
            bad |= fail("service %s: option %s is %s", s->service_op, *k,
                        o ? "marked CLI-only in the table" : "in no row of the table");
    }
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (!is_service_option(s, o))
            continue;
        const char *key = o->lng + 2;
        int known = 0;
        for (const char *const *n = op->options; n && *n && !known; n++)
            known = !strcmp(*n, key);
        if (!known) {
            bad |= fail("service %s: no option %s (the table has %s)", s->service_op, key, o->lng);
            continue;
        }
        char svc_type = o->svc ? o->svc
                        : o->type == CLI_OPT_FLAG ? 'f'
                        : o->type == CLI_OPT_UINT ? 'u'
                        : o->type == CLI_OPT_DOUBLE ? 'n'
                                                   : 's';
        if (svc_type == '?')
            continue;
        /* the type: an array is refused with the expected type named */
        static const char *const expect[][2] = {
            {"f", "expected true or false"}, {"u", "expected a whole number"}, {"n", "expected a number"},
            {"s", "expected a"}, {"x", "expected a number or a string"}};
        char *msg;
        refused(s->service_op, key, "[]", &msg);
        for (size_t t = 0; t < sizeof expect / sizeof expect[0]; t++)
            if (expect[t][0][0] == svc_type && !strstr(msg, expect[t][1]))
                bad |= fail("service %s: options.%s: type %c in the table, the service says '%s'", s->service_op, key,
                            svc_type, msg);
        if (svc_type == 's' && (strstr(msg, "whole number") || strstr(msg, "true or false") ||
                                strstr(msg, "expected a number")))
            bad |= fail("service %s: options.%s: a string in the table, the service says '%s'", s->service_op, key,
                        msg);
        free(msg);
        char b[64];
        if (o->type == CLI_OPT_UINT && (svc_type == 'u' || svc_type == 'x')) {
            uint64_t max = o->umax ? o->umax : (o->flags & CLI_OPT_U64) ? UINT64_MAX : UINT32_MAX;
            fmt_u(b, sizeof b, o->umin);
            bad |= probe(s, o, b, 0, "the least value");
            if (o->umin > 0) {
                fmt_u(b, sizeof b, o->umin - 1);
                bad |= probe(s, o, b, 1, "below the range");
            }
            fmt_u(b, sizeof b, max);
            bad |= probe(s, o, b, 0, "the greatest value");
            if (max < UINT64_MAX) {
                fmt_u(b, sizeof b, max + 1);
                bad |= probe(s, o, b, 1, "above the range");
            }
        } else if (o->type == CLI_OPT_DOUBLE && (svc_type == 'n' || svc_type == 'x')) {
            snprintf(b, sizeof b, "%.17g", o->min);
            bad |= probe(s, o, b, (o->flags & CLI_OPT_MIN_OPEN) != 0, "the bound below");
            snprintf(b, sizeof b, "%.17g", o->min - 0.5);
            bad |= probe(s, o, b, 1, "below the range");
            if (isfinite(o->max)) {
                snprintf(b, sizeof b, "%.17g", o->max);
                bad |= probe(s, o, b, 0, "the bound above");
                snprintf(b, sizeof b, "%.17g", o->max + 0.5);
                bad |= probe(s, o, b, 1, "above the range");
            } else {
                bad |= probe(s, o, "1e300", 0, "no bound above");
            }
        }
        /* the names of a named option, and one that is none of them */
        for (int i = 0; o->names && o->names[i]; i++) {
            snprintf(b, sizeof b, "\"%s\"", o->names[i]);
            bad |= probe(s, o, b, 0, "one of its names");
        }
        if (o->type == CLI_OPT_ENUM)
            bad |= probe(s, o, "\"no-such-name\"", 1, "none of its names");
    }
    return bad;
}

/* ---- rows read by a library call (trace): the call against the row's range ---- */

/* Standard error to /dev/null (on) and back (off): the parser's refusals are expected. */
static void hush(int on)
{
    static int saved = -1;
    fflush(stderr);
    if (on && saved < 0) {
        FILE *null = fopen("/dev/null", "w");
        saved = dup(2);
        if (null) {
            dup2(fileno(null), 2);
            fclose(null);
        }
    } else if (!on && saved >= 0) {
        dup2(saved, 2);
        close(saved);
        saved = -1;
    }
}

/* 1 when the command's parser refuses option `o` = `value`. */
static int cli_refuses(const cli_cmd_spec *s, const cli_opt *o, const char *value)
{
    char *v = calloc(1, s->size);
    if (!v)
        exit(1);
    s->init(v);
    char *argv[] = {(char *)"cmd", (char *)o->lng, (char *)value};
    hush(1);
    int rc = cli_opt_parse(s, v, 3, argv);
    hush(0);
    free(v);
    n_probes++;
    return rc != CLI_OK;
}

static int lib_probe(const cli_cmd_spec *s, const cli_opt *o, const char *value, int want_refused, const char *why)
{
    int r = cli_refuses(s, o, value);
    return r == want_refused ? 0
                             : fail("%s %s %s is %s by %s, %s in the table (%s)", s->name, o->lng, value,
                                    r ? "refused" : "accepted", "the library", want_refused ? "refused" : "accepted",
                                    why);
}

static int check_lib(const cli_cmd_spec *s)
{
    int bad = 0;
    char b[64];
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (!o->call)
            continue;
        if (o->type == CLI_OPT_UINT) {
            uint64_t max = o->umax ? o->umax : (o->flags & CLI_OPT_U64) ? UINT64_MAX : UINT32_MAX;
            snprintf(b, sizeof b, "%llu", (unsigned long long)o->umin);
            bad |= lib_probe(s, o, b, 0, "the least value");
            if (o->umin > 0) {
                snprintf(b, sizeof b, "%llu", (unsigned long long)(o->umin - 1));
                bad |= lib_probe(s, o, b, 1, "below the range");
            }
            snprintf(b, sizeof b, "%llu", (unsigned long long)max);
            bad |= lib_probe(s, o, b, 0, "the greatest value");
            if (max < UINT64_MAX) {
                snprintf(b, sizeof b, "%llu", (unsigned long long)(max + 1));
                bad |= lib_probe(s, o, b, 1, "above the range");
            }
        } else if (o->type == CLI_OPT_DOUBLE) {
            snprintf(b, sizeof b, "%.17g", o->min);
            bad |= lib_probe(s, o, b, (o->flags & CLI_OPT_MIN_OPEN) != 0, "the bound below");
            snprintf(b, sizeof b, "%.17g", o->min - 0.5);
            bad |= lib_probe(s, o, b, 1, "below the range");
            if (isfinite(o->max)) {
                snprintf(b, sizeof b, "%.17g", o->max);
                bad |= lib_probe(s, o, b, 0, "the bound above");
                snprintf(b, sizeof b, "%.17g", o->max + 0.5);
                bad |= lib_probe(s, o, b, 1, "above the range");
            } else
                bad |= lib_probe(s, o, "1e300", 0, "no bound above");
        } else
            bad |= fail("%s %s: a library row of a type with no range", s->name, o->lng);
    }
    return bad;
}

/* Every option tsched_trace_options_set knows (the list its message for an unknown name
 * gives) is a row of a trace table, and every trace table's service option is one it knows
 * (or compact, which is the options struct's own field). */
static int check_trace_names(void)
{
    tsched_trace_options o;
    tsched_trace_options_init(&o);
    if (tsched_trace_options_set(&o, "no-such-option", "1") == TSCHED_OK)
        return fail("tsched_trace_options_set takes an unknown name");
    char list[512];
    const char *msg = tsched_last_error(), *p = strchr(msg, '(');
    copy(list, sizeof list, p ? p + 1 : "");
    char *e = strchr(list, ')');
    if (!e)
        return fail("tsched_trace_options_set's message has no list of names: %s", msg);
    *e = '\0';
    const cli_cmd_spec *const trace[] = {&cli_spec_trace_alibaba, &cli_spec_trace_dcn, &cli_spec_trace_poisson};
    int bad = 0, n = 0;
    for (char *t = strtok(list, ", "); t; t = strtok(NULL, ", "), n++) {
        char lng[80];
        snprintf(lng, sizeof lng, "--%s", t);
        int found = 0;
        for (size_t i = 0; i < 3 && !found; i++) {
            const cli_opt *r = row_named(trace[i], lng);
            found = r && is_service_option(trace[i], r);
        }
        if (!found)
            bad |= fail("the library's trace option %s is a row of no trace table", t);
    }
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < trace[i]->nopts; k++) {
            const cli_opt *r = &trace[i]->opts[k];
            if (!is_service_option(trace[i], r) || !strcmp(r->lng, "--compact"))
                continue;
            tsched_trace_options_init(&o);
            if (tsched_trace_options_set(&o, r->lng + 2, "") == TSCHED_OK || strstr(tsched_last_error(), "unknown option"))
                bad |= fail("%s %s: the library does not know it", trace[i]->name, r->lng);
        }
    return n < 5 ? fail("tsched_trace_options_set lists only %d names", n) : bad;
}

/* doc/serve.md: the op's row of the operations table names the same options ("those of
 * `OP`" stands for OP's options; `compact` is accepted everywhere and said once). */
static int serve_md_options(char names[][64], int cap, const char *md, const char *op, int depth)
{
    char head[96];
    snprintf(head, sizeof head, "\n| `%s` |", op);
    const char *p = strstr(md, head);
    if (!p || depth > 2)
        return -1;
    const char *e = strchr(p + 1, '\n');
    /* the third column: after the second and before the third '|' past the op's */
    const char *c = p + strlen(head);
    c = strchr(c, '|');
    const char *end = c ? strchr(c + 1, '|') : NULL;
    if (!c || !end || (e && end > e))
        return -1;
    int n = 0;
    for (const char *q = c; q < end && (q = strchr(q, '`')) && q < end;) {
        const char *r = strchr(q + 1, '`');
        if (!r || r > end)
            break;
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(r - q - 1), q + 1);
        if (q - c >= 9 && !strncmp(q - 9, "those of ", 9)) {
            int m = serve_md_options(names + n, cap - n, md, word, depth + 1);
            n += m > 0 ? m : 0;
        } else if (n < cap)
            snprintf(names[n++], 64, "%s", word);
        q = r + 1;
    }
    return n;
}

static int check_serve_md(const cli_cmd_spec *s, const char *md)
{
    if (!s->service_op)
        return 0;
    char names[64][64];
    int n = serve_md_options(names, 64, md, s->service_op, 0), bad = 0;
    if (n < 0)
        return fail("doc/serve.md: no row for op %s", s->service_op);
    for (int i = 0; i < n; i++) {
        char lng[80] = "--";
        copy(lng + 2, sizeof lng - 2, names[i]);
        const cli_opt *o = row_named(s, lng);
        if (!o || !is_service_option(s, o))
            bad |= fail("doc/serve.md %s: option %s is not a service option of the table", s->service_op, names[i]);
    }
    for (size_t k = 0; k < s->nopts; k++) {
        const cli_opt *o = &s->opts[k];
        if (!is_service_option(s, o) || !strcmp(o->lng, "--compact"))
            continue;
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = !strcmp(names[i], o->lng + 2);
        if (!found)
            bad |= fail("doc/serve.md %s: option %s is not listed", s->service_op, o->lng + 2);
    }
    return bad;
}

/* ---- all checks of one table ---- */

typedef struct docs {
    const char *man, *man_md, *serve_md;
} docs;

enum { CK_TABLE = 1, CK_HELP = 2, CK_MAN = 4, CK_SERVICE = 8, CK_SERVE_MD = 16, CK_LIB = 32 };

static int check_spec(const cli_cmd_spec *s, const char *help, const docs *d)
{
    int failed = 0;
    failed |= check_table(s) ? CK_TABLE : 0;
    failed |= check_help(s, help) ? CK_HELP : 0;
    failed |= check_man(s, d->man, d->man_md) ? CK_MAN : 0;
    failed |= check_service(s) ? CK_SERVICE : 0;
    failed |= check_serve_md(s, d->serve_md) ? CK_SERVE_MD : 0;
    failed |= check_lib(s) ? CK_LIB : 0;
    return failed;
}

/* ---- the planted mismatches ---- */

typedef struct plant {
    const char *cmd, *opt;
    const char *what;
    void (*change)(cli_opt *o);
    int caught_by; /* every check that must fail */
} plant;

static void rename_opt(cli_opt *o) { o->lng = "--no-such-option"; }
static void other_default(cli_opt *o) { o->dflt = "12345"; }
static void other_max(cli_opt *o) { o->umax = 63; }
static void other_min(cli_opt *o) { o->min = 1; }
static void flag_to_number(cli_opt *o)
{
    o->type = CLI_OPT_UINT;
    o->err = "is not a whole number";
    o->arg = "N";
}
static void other_name(cli_opt *o)
{
    static const char *const names[] = {"greedy", "ecmp", "spray", NULL};
    o->names = names;
}

static int self_check(const docs *d)
{
    static const plant plants[] = {
        {"route", "--seed", "a renamed option", rename_opt, CK_HELP | CK_MAN | CK_SERVICE | CK_SERVE_MD},
        {"route", "--seed", "another default", other_default, CK_TABLE | CK_HELP | CK_MAN},
        {"route", "--threads", "another range", other_max, CK_SERVICE},
        {"flows", "--gbits", "another lower bound", other_min, CK_SERVICE},
        {"route", "--no-timing", "a flag made a number", flag_to_number, CK_HELP | CK_MAN | CK_SERVICE},
        {"route", "--algo", "a name the parser and the service do not know", other_name, CK_TABLE | CK_SERVICE},
        {"trace convert-alibaba", "--scale-gpus", "another range of a library option", other_max, CK_SERVICE | CK_LIB},
        {"trace poisson", "--mean-interarrival-s", "another lower bound of a library option", other_min,
         CK_SERVICE | CK_LIB},
        {"trace convert-dcn", "--iterations", "another default of a library option", other_default,
         CK_TABLE | CK_HELP | CK_MAN},
        {"trace poisson", "--gbits", "a renamed shared option", rename_opt, CK_HELP | CK_MAN | CK_SERVICE | CK_SERVE_MD},
        {"draw", "--max-nodes", "another default (no service op)", other_default, CK_TABLE | CK_HELP | CK_MAN},
    };
    int bad = 0;
    printf("self-check (a line on standard error where the parser refuses a planted name is expected):\n");
    fflush(stdout);
    quiet = 1;
    for (size_t i = 0; i < sizeof plants / sizeof plants[0]; i++) {
        const plant *p = &plants[i];
        const cli_cmd_spec *s = NULL;
        for (const cli_cmd_spec *const *q = cli_specs; *q; q++)
            if (!strcmp((*q)->name, p->cmd))
                s = *q;
        if (!s) {
            quiet = 0;
            return fail("self-check: no table %s", p->cmd);
        }
        cli_opt *rows = malloc(s->nopts * sizeof *rows);
        memcpy(rows, s->opts, s->nopts * sizeof *rows);
        cli_opt *o = NULL;
        for (size_t k = 0; k < s->nopts; k++)
            if (rows[k].lng && !strcmp(rows[k].lng, p->opt))
                o = &rows[k];
        cli_cmd_spec copy = *s;
        copy.opts = rows;
        if (o)
            p->change(o);
        int got = o ? check_spec(&copy, cli_help_text(s->name), d) : 0;
        free(rows);
        quiet = 0;
        if ((got & p->caught_by) != p->caught_by) {
            bad |= fail("self-check: %s (%s %s) went unnoticed by check(s) %#x", p->what, p->cmd, p->opt,
                        p->caught_by & ~got);
        } else
            printf("ok: self-check: %s (%s %s) caught (checks %#x)\n", p->what, p->cmd, p->opt, got);
        quiet = 1;
    }
    quiet = 0;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: test_options SOURCE_DIR\n", stderr);
        return 2;
    }
    char path[4096];
    docs d;
    snprintf(path, sizeof path, "%s/doc/topo-sched.1", argv[1]);
    d.man = read_text(path);
    snprintf(path, sizeof path, "%s/doc/topo-sched.1.md", argv[1]);
    d.man_md = read_text(path);
    snprintf(path, sizeof path, "%s/doc/serve.md", argv[1]);
    d.serve_md = read_text(path);
    if (tsched_service_new(&svc) != TSCHED_OK)
        return 3;
    int bad = 0, n = 0;
    size_t rows = 0;
    long svc_rows = 0;
    for (const cli_cmd_spec *const *q = cli_specs; *q; q++, n++) {
        const char *help = cli_help_text((*q)->name);
        if (!help) {
            bad |= fail("%s: no help text", (*q)->name);
            continue;
        }
        for (size_t k = 0; k < (*q)->nopts; k++) {
            rows += !refused_row(&(*q)->opts[k]);
            svc_rows += is_service_option(*q, &(*q)->opts[k]);
        }
        bad |= check_spec(*q, help, &d) != 0;
    }
    /* every row was found in the help and the man page; the service was asked */
    if (n_help != (long)rows || n_man + 0 < (long)rows / 2 || n_probes < 2 * svc_rows)
        bad |= fail("too little compared: %ld help lines, %ld man paragraphs, %ld service probes for %zu rows", n_help,
                    n_man, n_probes, rows);
    bad |= check_trace_names();
    long counted[3] = {n_help, n_man, n_probes};
    bad |= self_check(&d);
    tsched_service_free(svc);
    free((void *)d.man);
    free((void *)d.man_md);
    free((void *)d.serve_md);
    if (bad)
        return 1;
    printf("ok: %d option tables (%zu rows, %ld of them service options) agree with --help (%ld lines), "
           "doc/topo-sched.1 (%ld paragraphs), the service (%ld requests) and doc/serve.md\n",
           n, rows, svc_rows, counted[0], counted[1], counted[2]);
    return 0;
}
