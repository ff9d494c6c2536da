/* The flow set (struct of arrays, see flows_internal.h), pattern names, and
 * `tsched.flows.v1` (DESIGN 5.4). The writer streams text instead of building a jansson
 * tree: a tree costs several hundred bytes per flow, which matters at a million flows.
 * Names are quoted by jansson and reals printed by ts_fmt_double(), so the bytes are those
 * ts_json_dump() would give for the same document. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/jread.h"
#include "../common/json.h"
#include "../common/output_opts.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../common/numfmt.h"
#include "../topology/topology_paths.h"
#include "flows_internal.h"

#define FLOWS_FORMAT "tsched.flows.v1"

/* ---- pattern names ---- */

static const char *const pattern_names[] = {"dp-ring", "dp-hd", "pp", "alltoall"};
#define NPATTERNS (sizeof pattern_names / sizeof pattern_names[0])

const char *tsched_pattern_name(tsched_pattern pattern)
{
    return (unsigned)pattern < NPATTERNS ? pattern_names[pattern] : "?";
}

tsched_status tsched_pattern_from_name(tsched_pattern *pattern, const char *name)
{
    if (!pattern)
        return ts_error(TSCHED_E_INVALID, "tsched_pattern_from_name: pattern is NULL");
    if (!name)
        return ts_error(TSCHED_E_INVALID, "tsched_pattern_from_name: name is NULL");
    for (unsigned i = 0; i < NPATTERNS; i++)
        if (strcmp(name, pattern_names[i]) == 0) {
            *pattern = (tsched_pattern)i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "pattern: unknown pattern \"%s\"; expected dp-ring, dp-hd, pp or alltoall",
                    name ? name : "(null)");
}

/* ---- storage ---- */

tsched_status tsched_flows_new(tsched_flows **out)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_new: out is NULL");
    tsched_flows *f = ts_calloc(1, sizeof *f);
    if (!(*out = f))
        return TSCHED_E_NOMEM;
    ts_strtab_init(&f->jobs);
    f->last_job = UINT32_MAX;
    return TSCHED_OK;
}

void tsched_flows_free(tsched_flows *f)
{
    if (!f)
        return;
    free(f->src);
    free(f->dst);
    free(f->src_nic);
    free(f->dst_nic);
    free(f->gbits);
    free(f->job);
    ts_strtab_free(&f->jobs);
    free(f);
}

/* Grow one column to `cap` entries. On failure the column keeps its old block, which is
 * still at least f->cap long, so the set stays consistent. */
static tsched_status grow_column(void **col, uint32_t cap, size_t size)
{
    void *p = ts_realloc(*col, cap, size);
    if (!p)
        return TSCHED_E_NOMEM;
    *col = p;
    return TSCHED_OK;
}

tsched_status ts_flows_reserve(tsched_flows *f, uint64_t extra)
{
    uint64_t need = (uint64_t)f->n + extra;
    if (need > ts_limits()->flows)
        return ts_limit_error("flows", (unsigned long long)need, "flows", ts_limits()->flows);
    if (need <= f->cap)
        return TSCHED_OK;
    uint64_t ncap = f->cap ? f->cap : 64;
    while (ncap < need)
        ncap *= 2; /* amortised O(1) adds */
    if (ncap > TS_FLOWS_MAX)
        ncap = TS_FLOWS_MAX;
    uint32_t c = (uint32_t)ncap;
    tsched_status st;
    if ((st = grow_column((void **)&f->src, c, sizeof *f->src)) ||
        (st = grow_column((void **)&f->dst, c, sizeof *f->dst)) ||
        (st = grow_column((void **)&f->src_nic, c, sizeof *f->src_nic)) ||
        (st = grow_column((void **)&f->dst_nic, c, sizeof *f->dst_nic)) ||
        (st = grow_column((void **)&f->gbits, c, sizeof *f->gbits)) ||
        (st = grow_column((void **)&f->job, c, sizeof *f->job)))
        return st;
    f->cap = c;
    return TSCHED_OK;
}

tsched_status ts_flows_job_id(uint32_t *id, tsched_flows *f, const char *job)
{
    if (!job) {
        *id = UINT32_MAX;
        return TSCHED_OK;
    }
    if (!*job)
        return ts_error(TSCHED_E_INVALID, "job: empty name; pass NULL for a flow without a job");
    if (f->last_job != UINT32_MAX && strcmp(job, ts_strtab_str(&f->jobs, f->last_job)) == 0) {
        *id = f->last_job;
        return TSCHED_OK;
    }
    uint32_t known = ts_strtab_find(&f->jobs, job);
    tsched_status st;
    if (known == UINT32_MAX && (st = ts_name_check(job, "job")) != TSCHED_OK)
        return st;
    st = ts_strtab_intern(&f->jobs, job, id, NULL);
    if (st == TSCHED_OK)
        f->last_job = *id;
    return st;
}

void ts_flows_push(tsched_flows *f, uint32_t job, uint32_t src, uint32_t src_nic, uint32_t dst, uint32_t dst_nic,
                   double gbits)
{
    uint32_t i = f->n++;
    f->src[i] = src;
    f->dst[i] = dst;
    f->src_nic[i] = (uint16_t)src_nic;
    f->dst_nic[i] = (uint16_t)dst_nic;
    f->gbits[i] = gbits;
    f->job[i] = job;
}

tsched_status tsched_flows_add(uint32_t *index, tsched_flows *f, const char *job, uint32_t src, uint32_t src_nic,
                               uint32_t dst, uint32_t dst_nic, double gbits)
{
    if (!f)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_add: flows is NULL");
    if (!isfinite(gbits) || gbits <= 0)
        return ts_error(TSCHED_E_RANGE, "gbits: %g is not a finite positive number", gbits);
    if (src_nic > TS_FLOWS_MAX_NIC)
        return ts_error(TSCHED_E_RANGE, "src_nic: %u is out of range [0, %u]", src_nic, TS_FLOWS_MAX_NIC);
    if (dst_nic > TS_FLOWS_MAX_NIC)
        return ts_error(TSCHED_E_RANGE, "dst_nic: %u is out of range [0, %u]", dst_nic, TS_FLOWS_MAX_NIC);
    if (src == dst && src_nic == dst_nic)
        return ts_error(TSCHED_E_INVALID, "dst: flow from node %u NIC %u to itself", src, src_nic);
    tsched_status st;
    uint32_t id;
    if ((st = ts_flows_reserve(f, 1)) || (st = ts_flows_job_id(&id, f, job)))
        return st;
    if (index)
        *index = f->n;
    ts_flows_push(f, id, src, src_nic, dst, dst_nic, gbits);
    return TSCHED_OK;
}

/* workload_view.h: routing reads the columns themselves */
void ts_flows_view_get(ts_flows_view *v, const tsched_flows *f)
{
    *v = (ts_flows_view){f->n, f->src, f->dst, f->src_nic, f->dst_nic};
}

uint32_t tsched_flows_count(const tsched_flows *f) { return f ? f->n : 0; }
uint32_t tsched_flows_src(const tsched_flows *f, uint32_t i) { return f && i < f->n ? f->src[i] : 0; }
uint32_t tsched_flows_dst(const tsched_flows *f, uint32_t i) { return f && i < f->n ? f->dst[i] : 0; }
uint32_t tsched_flows_src_nic(const tsched_flows *f, uint32_t i) { return f && i < f->n ? f->src_nic[i] : 0; }
uint32_t tsched_flows_dst_nic(const tsched_flows *f, uint32_t i) { return f && i < f->n ? f->dst_nic[i] : 0; }
double tsched_flows_gbits(const tsched_flows *f, uint32_t i) { return f && i < f->n ? f->gbits[i] : 0; }

const char *tsched_flows_job(const tsched_flows *f, uint32_t i)
{
    if (!f || i >= f->n || f->job[i] == UINT32_MAX)
        return NULL;
    return ts_strtab_str(&f->jobs, f->job[i]);
}

/* ---- reading ---- */

static tsched_status read_doc(tsched_flows *f, const tsched_topology *t, const json_t *root)
{
    tsched_status st;
    const json_t *arr;
    if ((st = ts_json_check_format(root, FLOWS_FORMAT)) || (st = ts_json_arr(&arr, root, "", "flows", 1)) ||
        (st = ts_flows_reserve(f, json_array_size(arr))))
        return st;
    char where[40];
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *o = json_array_get(arr, i);
        snprintf(where, sizeof where, "flows[%zu]", i);
        if (!json_is_object(o))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(o));
        const char *job = NULL;
        uint32_t src, dst, src_nic, dst_nic, id;
        double gbits = 1;
        if ((st = ts_json_str(&job, o, where, "job", 0)) ||
            (st = ts_json_node_nic(&src, &src_nic, o, where, "src", "src_nic", t)) ||
            (st = ts_json_node_nic(&dst, &dst_nic, o, where, "dst", "dst_nic", t)) ||
            (st = ts_json_num(&gbits, o, where, "gbits", 0, 0, 1, DBL_MAX)))
            return st;
        if (src == dst && src_nic == dst_nic)
            return ts_error(TSCHED_E_INVALID, "%s.dst: same node and NIC as src (node \"%s\" NIC %u)", where,
                            tsched_topology_node_name(t, src), src_nic);
        if ((st = ts_flows_job_id(&id, f, job)) != TSCHED_OK)
            return st;
        ts_flows_push(f, id, src, src_nic, dst, dst_nic, gbits);
    }
    return TSCHED_OK;
}

/* The loaders' reader: the object is made here so a failed read frees it. */
tsched_status ts_flows_read_tree(void *slot, const void *ctx, const json_t *root)
{
    const tsched_topology *topo = ctx;
    tsched_flows *obj = NULL;
    tsched_status st = tsched_flows_new(&obj);
    if (st == TSCHED_OK)
        st = read_doc(obj, topo, root);
    else
        return st;
    if (st != TSCHED_OK) {
        tsched_flows_free(obj);
        return st;
    }
    *(tsched_flows **)slot = obj;
    return TSCHED_OK;
}

/* One flow object of the pull reader, checked as read_doc() checks it; anything it does
 * not accept (including what read_doc() would accept, such as NICs written 1.0) sends
 * the document to read_doc(). `job` keeps the job name until the flow is complete. */
static int fast_flow(ts_jr *r, tsched_flows *f, const tsched_topology *t, char **job, size_t *jcap)
{
    uint32_t node[2] = {UINT32_MAX, UINT32_MAX}, nic[2] = {0, 0}, id;
    double gbits = 1;
    int has_job = 0, more;
    ts_jr_key k;
    const char *s;
    size_t len;
    double d;
    int64_t x;
    int is_int;
    if (ts_jr_object(r) != 0)
        return -1;
    while ((more = ts_jr_key_next(r, &k)) == 1) {
        int type = ts_jr_peek(r), end = -1;
        if (ts_jr_key_is(&k, "src") || (end = ts_jr_key_is(&k, "dst"))) {
            end = end == 1;
            if (type != TS_JR_STRING || ts_jr_string(r, &s, &len) != 0 || len == 0)
                return -1;
            if ((node[end] = tsched_topology_find_node(t, s)) == TSCHED_NONE)
                return -1;
        } else if (ts_jr_key_is(&k, "src_nic") || (end = ts_jr_key_is(&k, "dst_nic"))) {
            end = end == 1;
            if (type == TS_JR_NULL) {
                nic[end] = 0;
                if (ts_jr_skip(r) != 0)
                    return -1;
                continue;
            }
            if (type != TS_JR_NUMBER || ts_jr_number(r, &d, &x, &is_int) != 0 || !is_int || x < 0 ||
                x > UINT32_MAX)
                return -1;
            nic[end] = (uint32_t)x;
        } else if (ts_jr_key_is(&k, "gbits")) {
            if (type == TS_JR_NULL) {
                gbits = 1;
                if (ts_jr_skip(r) != 0)
                    return -1;
                continue;
            }
            if (type != TS_JR_NUMBER || ts_jr_number(r, &d, &x, &is_int) != 0 || !(d > 0) || d > DBL_MAX)
                return -1;
            gbits = d;
        } else if (ts_jr_key_is(&k, "job") && type != TS_JR_NULL) {
            if (type != TS_JR_STRING || ts_jr_string(r, &s, &len) != 0 || len == 0 || strlen(s) != len)
                return -1;
            if (TS_GROW(*job, *jcap, len + 1) != TSCHED_OK)
                return -1;
            memcpy(*job, s, len + 1);
            has_job = 1;
        } else {
            if (ts_jr_key_is(&k, "job"))
                has_job = 0;
            if (ts_jr_skip(r) != 0)
                return -1;
        }
    }
    if (more != 0 || node[0] == UINT32_MAX || node[1] == UINT32_MAX)
        return -1;
    for (int e = 0; e < 2; e++)
        if (nic[e] >= tsched_topology_node_nics(t, node[e]))
            return -1;
    if (node[0] == node[1] && nic[0] == nic[1])
        return -1;
    if (ts_flows_reserve(f, 1) != TSCHED_OK || ts_flows_job_id(&id, f, has_job ? *job : NULL) != TSCHED_OK)
        return -1;
    ts_flows_push(f, id, node[0], nic[0], node[1], nic[1], gbits);
    return 0;
}

tsched_status ts_flows_read_text(void *slot, const void *ctx, const char *json, size_t len)
{
    const tsched_topology *t = ctx;
    tsched_flows *f = NULL;
    tsched_status st = tsched_flows_new(&f);
    if (st != TSCHED_OK)
        return st;
    ts_jr r;
    ts_jr_init(&r, json, len);
    ts_jr_key k;
    const char *s;
    size_t n;
    char *job = NULL;
    size_t jcap = 0;
    int more, format_ok = 0, has_flows = 0, bad = 0;
    if (ts_jr_object(&r) != 0)
        bad = 1;
    while (!bad && (more = ts_jr_key_next(&r, &k)) != 0) {
        if (more < 0) {
            bad = 1;
        } else if (ts_jr_key_is(&k, "format")) {
            bad = ts_jr_string(&r, &s, &n) != 0 || strcmp(s, FLOWS_FORMAT) != 0;
            format_ok = 1;
        } else if (ts_jr_key_is(&k, "flows")) {
            has_flows = 1;
            if ((bad = ts_jr_array(&r) != 0))
                break;
            while (!bad && (more = ts_jr_elem_next(&r)) != 0)
                bad = more < 0 || fast_flow(&r, f, t, &job, &jcap) != 0;
        } else {
            bad = ts_jr_skip(&r) != 0;
        }
    }
    if (bad || !format_ok || !has_flows || ts_jr_finish(&r) != 0) {
        tsched_flows_free(f);
        f = NULL;
        st = TSCHED_E_PARSE;
    }
    free(job);
    ts_jr_free(&r);
    *(tsched_flows **)slot = f;
    return st;
}

tsched_status tsched_flows_load_string(tsched_flows **out, const tsched_topology *topo, const char *json, size_t len)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_load_string: topology is NULL");
    return ts_json_load_string_fast(out, ts_flows_read_text, ts_flows_read_tree, topo, json, len,
                                    "tsched_flows_load_string");
}

tsched_status tsched_flows_load_file(tsched_flows **out, const tsched_topology *topo, const char *path)
{
    if (out && !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_load_file: topology is NULL");
    return ts_json_load_file_fast(out, ts_flows_read_text, ts_flows_read_tree, topo, path, "tsched_flows_load_file");
}

/* ---- writing ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static tsched_status put(sbuf *b, const char *s, size_t n)
{
    tsched_status st = TS_GROW(b->p, b->cap, b->len + n + 1);
    if (st != TSCHED_OK)
        return st;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return TSCHED_OK;
}

static tsched_status puts_(sbuf *b, const char *s) { return put(b, s, strlen(s)); }

/* A real exactly as ts_json_dump() formats it inside a document. */
static tsched_status put_real(sbuf *b, double x)
{
    char s[TS_FMT_DOUBLE_CAP];
    return put(b, s, (size_t)ts_fmt_double(s, sizeof s, x));
}

/* JSON text of a name, cached by index: a fabric's names repeat across many flows. */
static tsched_status quoted(const char **out, char **cache, const char *name)
{
    if (!*cache) {
        json_t *v = json_string(name);
        if (!v)
            return ts_error(TSCHED_E_INVALID, "name \"%s\" is not valid UTF-8", name);
        *cache = ts_json_write(v, TS_JSON_COMPACT, NULL);
        json_decref(v);
        if (!*cache)
            return ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    }
    *out = *cache;
    return TSCHED_OK;
}

static tsched_status put_field(sbuf *b, const char *key, const char *value, int last)
{
    tsched_status st;
    if ((st = puts_(b, "      \"")) || (st = puts_(b, key)) || (st = puts_(b, "\": ")) || (st = puts_(b, value)))
        return st;
    return puts_(b, last ? "\n" : ",\n");
}

static tsched_status check_end(const tsched_flows *f, const tsched_topology *t, uint32_t i, int dst)
{
    uint32_t node = dst ? f->dst[i] : f->src[i], nic = dst ? f->dst_nic[i] : f->src_nic[i];
    uint32_t nn = tsched_topology_num_nodes(t);
    if (node >= nn)
        return ts_error(TSCHED_E_INVALID, "flows[%u].%s: node %u does not exist in fabric \"%s\" (%u nodes)", i,
                        dst ? "dst" : "src", node, tsched_topology_name(t), nn);
    if (nic >= tsched_topology_node_nics(t, node))
        return ts_error(TSCHED_E_INVALID, "flows[%u].%s: NIC %u does not exist; node \"%s\" has %u NICs", i,
                        dst ? "dst_nic" : "src_nic", nic, tsched_topology_node_name(t, node),
                        tsched_topology_node_nics(t, node));
    return TSCHED_OK;
}

tsched_status tsched_flows_to_json(char **out, const tsched_flows *f, const tsched_topology *t)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_to_json: out is NULL");
    *out = NULL;
    if (!f || !t)
        return ts_error(TSCHED_E_INVALID, "tsched_flows_to_json: flows or topology is NULL");
    tsched_status st = TSCHED_OK;
    uint32_t nn = tsched_topology_num_nodes(t), nj = ts_strtab_count(&f->jobs);
    char **node_txt = ts_calloc(nn ? nn : 1, sizeof *node_txt), **job_txt = ts_calloc(nj ? nj : 1, sizeof *job_txt);
    sbuf b = {NULL, 0, 0};
    if (!node_txt || !job_txt) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    /* the layout of JSON_INDENT(2): objects and arrays open a line, empty ones stay "[]" */
    if ((st = puts_(&b, "{\n  \"format\": \"" FLOWS_FORMAT "\",\n  \"flows\": [")))
        goto out;
    for (uint32_t i = 0; i < f->n; i++) {
        const char *src, *dst, *job = NULL;
        char num[2][16];
        if ((st = check_end(f, t, i, 0)) || (st = check_end(f, t, i, 1)) ||
            (st = quoted(&src, &node_txt[f->src[i]], tsched_topology_node_name(t, f->src[i]))) ||
            (st = quoted(&dst, &node_txt[f->dst[i]], tsched_topology_node_name(t, f->dst[i]))) ||
            (f->job[i] != UINT32_MAX &&
             (st = quoted(&job, &job_txt[f->job[i]], ts_strtab_str(&f->jobs, f->job[i])))))
            goto out;
        snprintf(num[0], sizeof num[0], "%u", (unsigned)f->src_nic[i]);
        snprintf(num[1], sizeof num[1], "%u", (unsigned)f->dst_nic[i]);
        if ((st = puts_(&b, i ? ",\n    {\n" : "\n    {\n")) || (job && (st = put_field(&b, "job", job, 0))) ||
            (st = put_field(&b, "src", src, 0)) || (st = put_field(&b, "dst", dst, 0)) ||
            (st = put_field(&b, "src_nic", num[0], 0)) || (st = put_field(&b, "dst_nic", num[1], 0)) ||
            (st = puts_(&b, "      \"gbits\": ")) || (st = put_real(&b, f->gbits[i])) ||
            (st = puts_(&b, "\n    }")))
            goto out;
    }
    if ((st = puts_(&b, f->n ? "\n  ]\n}" : "]\n}")))
        goto out;
    *out = b.p;
    b.p = NULL;
out:
    for (uint32_t i = 0; node_txt && i < nn; i++)
        free(node_txt[i]);
    for (uint32_t i = 0; job_txt && i < nj; i++)
        free(job_txt[i]);
    free(node_txt);
    free(job_txt);
    free(b.p);
    return st;
}

tsched_status tsched_flows_to_json_opts(char **out, const tsched_flows *flows, const tsched_topology *topo,
                                        const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_flows_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_flows_to_json(out, flows, topo);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
