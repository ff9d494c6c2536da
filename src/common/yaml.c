/* The YAML subset reader of yaml.h. The text is first cut into content lines (blank and
 * comment lines dropped, characters and document markers checked), then read by recursive
 * descent over those lines: a collection ends where a line is less indented than it, and a
 * value is either on its key's line (a scalar or a flow sequence) or on the lines below.
 * Recursion is bounded by TS_YAML_MAX_DEPTH, every scalar ends on its line, and each byte
 * is looked at a bounded number of times, so any input costs time linear in its size. */
#include "yaml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "limits.h"
#include "text.h"
#include "yaml_scan.h"

/* [a, "b", 4] on one line. */
static tsched_status parse_flow(yp *p, const yline *L, size_t i, json_t **out, size_t *next)
{
    const char *t = p->t;
    tsched_status st;
    json_t *arr = json_array();
    if (!arr)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = ts_yp_record(p, arr, L->no, NULL, 0)) != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    i = ts_yp_skip_blank(p, L, i + 1);
    size_t count = 0;
    for (;;) {
        if (i == L->end || (t[i] == '#' && ts_yp_blank(t[i - 1])))
            goto unterminated;
        if (t[i] == ']') { /* "[]", or after a trailing comma as YAML allows */
            i++;
            break;
        }
        json_t *v = NULL;
        const char *why = NULL;
        if (t[i] == '[')
            why = "nested flow sequences are not supported: a flow sequence holds scalars";
        else if (t[i] == ',')
            why = "an empty entry in a flow sequence";
        else if (t[i] != '"' && t[i] != '\'')
            why = ts_yp_bad_start(p, L, i);
        if (why) {
            json_decref(arr);
            return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "%s", why);
        }
        if (t[i] == '"' || t[i] == '\'') {
            st = t[i] == '"' ? ts_yp_scan_double(p, L, i, &i) : ts_yp_scan_single(p, L, i, &i);
            if (st == TSCHED_OK)
                st = ts_yp_new_string(p, L->no, &v);
        } else {
            size_t s, e, stop;
            ts_yp_scan_plain(p, L, i, 1, &s, &e, &stop);
            if (stop < L->end && t[stop] == ':') {
                json_decref(arr);
                return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a key: value pair inside a flow sequence (flow mappings are "
                            "not supported)");
            }
            i = stop;
            st = ts_yp_resolve_plain(p, t + s, e - s, L->no, &v);
        }
        if (st == TSCHED_OK && json_array_append_new(arr, v) != 0)
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
        if (st != TSCHED_OK) {
            json_decref(arr);
            return st;
        }
        count++;
        i = ts_yp_skip_blank(p, L, i);
        if (i < L->end && t[i] == ',') {
            i = ts_yp_skip_blank(p, L, i + 1);
            continue;
        }
        if (i < L->end && t[i] == ']') {
            i++;
            break;
        }
        if (i == L->end || t[i] == '#')
            goto unterminated;
        json_decref(arr);
        return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "expected ',' or ']' in a flow sequence");
    }
    *out = arr;
    *next = i;
    return TSCHED_OK;
unterminated:
    json_decref(arr);
    return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a flow sequence must end with ']' on its line");
}

/* A value that is the rest of line L from offset i: a scalar or a flow sequence. */
static tsched_status parse_inline(yp *p, size_t li, size_t i, json_t **out)
{
    const yline *L = &p->ln[li];
    const char *t = p->t;
    tsched_status st;
    size_t next;
    *out = NULL;
    if (t[i] == '[') {
        st = parse_flow(p, L, i, out, &next);
    } else if (t[i] == '"' || t[i] == '\'') {
        st = t[i] == '"' ? ts_yp_scan_double(p, L, i, &next) : ts_yp_scan_single(p, L, i, &next);
        if (st == TSCHED_OK)
            st = ts_yp_new_string(p, L->no, out);
    } else {
        const char *why = ts_yp_bad_start(p, L, i);
        if (why)
            return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "%s", why);
        size_t s, e;
        ts_yp_scan_plain(p, L, i, 0, &s, &e, &next);
        if (next < L->end && t[next] == ':')
            return ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a ': ' inside a plain value (a mapping cannot start on the line "
                        "of its key); quote the value");
        st = ts_yp_resolve_plain(p, t + s, e - s, L->no, out);
    }
    if (st == TSCHED_OK)
        st = ts_yp_line_rest(p, L, next);
    if (st != TSCHED_OK) {
        json_decref(*out);
        *out = NULL;
        return st;
    }
    p->cur = li + 1;
    return TSCHED_OK;
}

/* Is there a key ("k:" followed by a blank or the end) at offset i of L? On 1 the key is in
 * p->buf and *after is the offset after its ':'. Scan errors of a quoted key are returned. */
static tsched_status scan_key(yp *p, const yline *L, size_t i, int *found, size_t *after)
{
    const char *t = p->t;
    tsched_status st;
    size_t j;
    *found = 0;
    if (t[i] == '"' || t[i] == '\'') {
        if ((st = t[i] == '"' ? ts_yp_scan_double(p, L, i, &j) : ts_yp_scan_single(p, L, i, &j)) != TSCHED_OK)
            return st;
        j = ts_yp_skip_blank(p, L, j);
    } else {
        if (ts_yp_bad_start(p, L, i) || t[i] == '[')
            return TSCHED_OK;
        size_t s, e;
        ts_yp_scan_plain(p, L, i, 0, &s, &e, &j);
        p->len = 0;
        if ((st = ts_yp_put(p, t + s, e - s)) != TSCHED_OK)
            return st;
    }
    if (j < L->end && t[j] == ':' && (j + 1 == L->end || ts_yp_blank(t[j + 1]))) {
        *found = 1;
        *after = j + 1;
    }
    return TSCHED_OK;
}

static int seq_marker(const yp *p, const yline *L)
{
    size_t i = L->off + L->indent;
    return p->t[i] == '-' && (i + 1 == L->end || ts_yp_blank(p->t[i + 1]));
}

static tsched_status parse_node(yp *p, size_t li, size_t i, json_t **out);

static tsched_status enter(yp *p, size_t line)
{
    if (p->depth >= TS_YAML_MAX_DEPTH)
        return ts_yp_yerr(p, TSCHED_E_TOO_LARGE, line, "nested deeper than %d collections", TS_YAML_MAX_DEPTH);
    p->path[p->depth].index = 0;
    free(p->path[p->depth].key);
    p->path[p->depth].key = NULL;
    p->depth++;
    return TSCHED_OK;
}

/* The value below a key or a "-" that ends its line: the more indented lines that follow
 * (or, with `seq_ok`, a sequence at the same indentation), else null. */
static tsched_status value_below(yp *p, size_t li, size_t col, int seq_ok, json_t **out)
{
    size_t j = li + 1;
    if (j < p->nln && p->ln[j].indent > col)
        return parse_node(p, j, p->ln[j].off + p->ln[j].indent, out);
    if (seq_ok && j < p->nln && p->ln[j].indent == col && seq_marker(p, &p->ln[j]))
        return parse_node(p, j, p->ln[j].off + p->ln[j].indent, out);
    p->cur = j;
    *out = json_null();
    return TSCHED_OK;
}

/* A block mapping whose keys sit at column `col`; the first key is at offset i of line li
 * (a compact mapping after "- " starts inside its line). */
static tsched_status parse_map(yp *p, size_t li, size_t i, json_t **out)
{
    tsched_status st;
    const size_t col = i - p->ln[li].off;
    json_t *obj = json_object();
    if (!obj)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = ts_yp_record(p, obj, p->ln[li].no, NULL, 0)) != TSCHED_OK || (st = enter(p, p->ln[li].no)) != TSCHED_OK) {
        json_decref(obj);
        return st;
    }
    yframe *f = &p->path[p->depth - 1];
    for (;;) {
        const yline *L = &p->ln[li];
        int found;
        size_t after;
        if ((st = scan_key(p, L, i, &found, &after)) != TSCHED_OK)
            break;
        if (!found) {
            st = seq_marker(p, L) && L->indent == col
                     ? ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a sequence entry where a key of the mapping is expected")
                     : ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "expected 'key: value' (a multi-line scalar or a "
                            "misindented line?)");
            break;
        }
        if (!(f->key = ts_strdup(p->buf))) {
            st = TSCHED_E_NOMEM;
            break;
        }
        if (p->len != strlen(p->buf)) {
            st = ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "a key holds a NUL character");
            break;
        }
        if (json_object_get(obj, f->key)) {
            st = ts_yp_yerr(p, TSCHED_E_PARSE, L->no, "key given twice in one mapping");
            break;
        }
        json_t *v = NULL;
        size_t vi = ts_yp_skip_blank(p, L, after);
        if (vi < L->end && p->t[vi] != '#')
            st = parse_inline(p, li, vi, &v);
        else
            st = value_below(p, li, col, 1, &v);
        if (st != TSCHED_OK)
            break;
        if (json_object_set_new(obj, f->key, v) != 0) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
            break;
        }
        size_t j = p->cur;
        if (j >= p->nln || p->ln[j].indent < col)
            break;
        if (p->ln[j].indent > col) {
            st = ts_yp_yerr(p, TSCHED_E_PARSE, p->ln[j].no, "more indented than the keys of its mapping (a multi-line "
                      "scalar or a misindented line?)");
            break;
        }
        free(f->key);
        f->key = NULL;
        li = j;
        i = p->ln[j].off + col;
    }
    if (st != TSCHED_OK) {
        json_decref(obj);
        return st;
    }
    free(f->key);
    f->key = NULL;
    p->depth--;
    *out = obj;
    return TSCHED_OK;
}

/* A block sequence whose "-" sit at column `col`, the first at offset i of line li. */
static tsched_status parse_seq(yp *p, size_t li, size_t i, json_t **out)
{
    tsched_status st;
    const size_t col = i - p->ln[li].off;
    json_t *arr = json_array();
    if (!arr)
        return ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
    if ((st = ts_yp_record(p, arr, p->ln[li].no, NULL, 0)) != TSCHED_OK || (st = enter(p, p->ln[li].no)) != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    yframe *f = &p->path[p->depth - 1];
    for (size_t idx = 0;; idx++) {
        const yline *L = &p->ln[li];
        f->index = idx;
        json_t *v = NULL;
        size_t vi = ts_yp_skip_blank(p, L, i + 1);
        if (vi < L->end && p->t[vi] != '#')
            st = parse_node(p, li, vi, &v);
        else
            st = value_below(p, li, col, 0, &v);
        if (st != TSCHED_OK)
            break;
        if (json_array_append_new(arr, v) != 0) {
            st = ts_error(TSCHED_E_NOMEM, "out of memory reading YAML");
            break;
        }
        size_t j = p->cur;
        if (j >= p->nln || p->ln[j].indent < col)
            break;
        if (p->ln[j].indent > col) {
            f->index = idx;
            st = ts_yp_yerr(p, TSCHED_E_PARSE, p->ln[j].no, "more indented than the entries of its sequence (a "
                      "multi-line scalar or a misindented line?)");
            break;
        }
        if (!seq_marker(p, &p->ln[j]))
            break; /* the next key of a mapping whose value this sequence was */
        li = j;
        i = p->ln[j].off + col;
    }
    if (st != TSCHED_OK) {
        json_decref(arr);
        return st;
    }
    p->depth--;
    *out = arr;
    return TSCHED_OK;
}

/* The node that starts at offset i of line li. */
static tsched_status parse_node(yp *p, size_t li, size_t i, json_t **out)
{
    const yline *L = &p->ln[li];
    const char *t = p->t;
    *out = NULL;
    if (t[i] == '-' && (i + 1 == L->end || ts_yp_blank(t[i + 1])))
        return parse_seq(p, li, i, out);
    int found = 0;
    size_t after;
    tsched_status st = scan_key(p, L, i, &found, &after);
    if (st != TSCHED_OK)
        return st;
    if (found)
        return parse_map(p, li, i, out);
    return parse_inline(p, li, i, out);
}

/* ---- entry points ------------------------------------------------------------------------ */

static int rec_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const yrec *)a)->v, y = (uintptr_t)((const yrec *)b)->v;
    return x < y ? -1 : x > y;
}

tsched_status ts_yaml_parse(json_t **out, ts_yaml_info **info, const char *text, size_t len)
{
    if (info)
        *info = NULL;
    *out = NULL;
    if (!text && len)
        return ts_error(TSCHED_E_INVALID, "YAML text is NULL");
    if (len > ts_limits()->input_bytes)
        return ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    yp p;
    memset(&p, 0, sizeof p);
    p.t = text;
    tsched_status st = TSCHED_OK;
    if (info && !(p.info = ts_calloc(1, sizeof *p.info)))
        return TSCHED_E_NOMEM;
    if (len && memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        size_t line = 1;
        for (const char *c = text; c < z; c++)
            line += *c == '\n';
        st = ts_error(TSCHED_E_PARSE, "line %zu: a NUL byte", line);
    }
    json_t *root = NULL;
    if (st == TSCHED_OK)
        st = ts_yp_split_lines(&p, text, len);
    if (st == TSCHED_OK) {
        if (p.nln == 0) {
            root = json_null();
        } else {
            st = parse_node(&p, 0, p.ln[0].off + p.ln[0].indent, &root);
            if (st == TSCHED_OK && p.cur < p.nln) {
                st = ts_error(TSCHED_E_PARSE, "line %zu: less indented than the first line of the document and not "
                              "part of it (a second root?)", p.ln[p.cur].no);
                json_decref(root);
                root = NULL;
            }
        }
    }
    for (size_t d = 0; d < TS_YAML_MAX_DEPTH; d++)
        free(p.path[d].key);
    free(p.ln);
    free(p.buf);
    if (st != TSCHED_OK) {
        ts_yaml_info_free(p.info);
        return st;
    }
    if (p.info) {
        if (p.info->n > 1) /* rec is NULL when nothing was recorded */
            qsort(p.info->rec, p.info->n, sizeof *p.info->rec, rec_cmp);
        *info = p.info;
    }
    *out = root;
    return TSCHED_OK;
}

static const yrec *find(const ts_yaml_info *info, const json_t *v)
{
    if (!info || !v || !info->n)
        return NULL;
    yrec key = {v, 0, NULL};
    return bsearch(&key, info->rec, info->n, sizeof key, rec_cmp);
}

size_t ts_yaml_line(const ts_yaml_info *info, const json_t *v)
{
    const yrec *r = find(info, v);
    return r ? r->line : 0;
}

const char *ts_yaml_scalar_text(const ts_yaml_info *info, const json_t *v)
{
    const yrec *r = find(info, v);
    return r ? r->raw : NULL;
}

void ts_yaml_info_free(ts_yaml_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; i < info->n; i++)
        free(info->rec[i].raw);
    free(info->rec);
    free(info);
}
