/* The op profile `tsched.op-profile.v1` (doc/cell.md §3.4): measured layer and collective
 * times of one model on one GPU type, its reader, clone and the traffic-based interpolation
 * of collectives.
 *
 * Field rules (ranges chosen so that every product of the cost model stays finite):
 *   gpu_type            required, a name (DESIGN 3)
 *   layers[]            required, at least one entry; each entry's four fields required:
 *     time_s            (0, 1e9]   forward + backward of one sequence on one GPU: a layer takes time
 *     params            [0, 1e18]  a layer may hold no parameters (e.g. a pooling layer)
 *     act_bytes         [0, 1e18]  stored activations per sequence
 *     out_bytes         [0, 1e18]  output per sequence
 *   collectives[]       optional (absent: every collective from the formulas of §3.2)
 *     op                allreduce | allgather | sendrecv
 *     scope             intra | inter
 *     ranks             >= 2 (at most 2^24); sendrecv: 1 (may be left out)
 *     points            at least one [bytes, seconds]; bytes in (0, 1e18], strictly ascending;
 *                       seconds in [0, 1e9], non-decreasing
 *   A second entry of the same (op, scope, ranks) is TSCHED_E_DUPLICATE.
 * Unknown fields are ignored (DESIGN 5). Entries are kept sorted by (op, scope, ranks) for
 * lookups; the layers keep their order. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/names.h"
#include "cell_internal.h"

#define PROFILE_FORMAT "tsched.op-profile.v1"
#define MAX_TIME_S 1e9
#define MAX_COUNT 1e18
#define MAX_RANKS (1u << 24)

static const char *const op_names[] = {"allreduce", "allgather", "sendrecv"};

static void coll_clear(ts_prof_coll *c)
{
    free(c->bytes);
    free(c->secs);
    c->bytes = c->secs = NULL;
}

void tsched_op_profile_free(tsched_op_profile *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->ncoll; i++)
        coll_clear(&p->coll[i]);
    free(p->coll);
    free(p->layers);
    free(p->gpu_type);
    free(p);
}

const char *tsched_op_profile_gpu_type(const tsched_op_profile *p) { return p ? p->gpu_type : NULL; }
uint32_t tsched_op_profile_layers(const tsched_op_profile *p) { return p ? p->nlayers : 0; }

/* ---- reading ---- */

static tsched_status read_layer(ts_prof_layer *l, const json_t *v, size_t i)
{
    char where[48];
    snprintf(where, sizeof where, "layers[%zu]", i);
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
    tsched_status st;
    if ((st = ts_cell_json_range(&l->time_s, v, where, "time_s", 1, 0, 1, MAX_TIME_S)) ||
        (st = ts_cell_json_range(&l->params, v, where, "params", 1, 0, 0, MAX_COUNT)) ||
        (st = ts_cell_json_range(&l->act_bytes, v, where, "act_bytes", 1, 0, 0, MAX_COUNT)) ||
        (st = ts_cell_json_range(&l->out_bytes, v, where, "out_bytes", 1, 0, 0, MAX_COUNT)))
        return st;
    return TSCHED_OK;
}

/* One of `names[0..n)`, else TSCHED_E_FORMAT listing them. */
static tsched_status read_enum(int *out, const json_t *v, const char *where, const char *key,
                               const char *const *names, int n, const char *expected)
{
    const char *s;
    tsched_status st = ts_json_str(&s, v, where, key, 1);
    if (st != TSCHED_OK)
        return st;
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return TSCHED_OK;
        }
    return ts_error(TSCHED_E_FORMAT, "%s.%s: unknown value \"%s\"; expected %s", where, key, s, expected);
}

static tsched_status read_points(ts_prof_coll *c, const json_t *v, const char *where)
{
    const json_t *pts;
    tsched_status st = ts_json_arr(&pts, v, where, "points", 1);
    if (st != TSCHED_OK)
        return st;
    size_t n = json_array_size(pts);
    if (n == 0)
        return ts_error(TSCHED_E_RANGE, "%s.points: expected at least one [bytes, seconds] point", where);
    if (n > UINT32_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "%s.points: %zu points; at most %u are supported", where, n, UINT32_MAX);
    if (!(c->bytes = ts_malloc(n, sizeof *c->bytes)) || !(c->secs = ts_malloc(n, sizeof *c->secs)))
        return TSCHED_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(pts, i);
        if (!json_is_array(p))
            return ts_error(TSCHED_E_TYPE, "%s.points[%zu]: expected [bytes, seconds], got %s", where, i,
                            ts_json_type_name(p));
        if (json_array_size(p) != 2)
            return ts_error(TSCHED_E_TYPE, "%s.points[%zu]: expected [bytes, seconds], got an array of %zu values",
                            where, i, json_array_size(p));
        for (size_t k = 0; k < 2; k++)
            if (!json_is_number(json_array_get(p, k)))
                return ts_error(TSCHED_E_TYPE, "%s.points[%zu]: %s: expected a number, got %s", where, i,
                                k ? "seconds" : "bytes", ts_json_type_name(json_array_get(p, k)));
        double b = json_number_value(json_array_get(p, 0)), s = json_number_value(json_array_get(p, 1));
        if (!isfinite(b) || !(b > 0) || b > MAX_COUNT)
            return ts_error(TSCHED_E_RANGE, "%s.points[%zu]: bytes %g is out of range (0, %g]", where, i, b, MAX_COUNT);
        if (!isfinite(s) || s < 0 || s > MAX_TIME_S)
            return ts_error(TSCHED_E_RANGE, "%s.points[%zu]: seconds %g is out of range [0, %g]", where, i, s,
                            MAX_TIME_S);
        if (i > 0 && !(b > c->bytes[i - 1]))
            return ts_error(TSCHED_E_RANGE, "%s.points[%zu]: bytes %g not above the previous %g", where, i, b,
                            c->bytes[i - 1]);
        if (i > 0 && s < c->secs[i - 1])
            return ts_error(TSCHED_E_RANGE, "%s.points[%zu]: seconds %g below the previous %g", where, i, s,
                            c->secs[i - 1]);
        c->bytes[i] = b;
        c->secs[i] = s;
        c->npoints = (uint32_t)i + 1;
    }
    return TSCHED_OK;
}

static tsched_status read_coll(ts_prof_coll *c, const json_t *v, size_t i)
{
    char where[48];
    snprintf(where, sizeof where, "collectives[%zu]", i);
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
    static const char *const scopes[] = {"intra", "inter"};
    int op = 0, scope = 0;
    tsched_status st;
    if ((st = read_enum(&op, v, where, "op", op_names, 3, "allreduce, allgather or sendrecv")) ||
        (st = read_enum(&scope, v, where, "scope", scopes, 2, "intra or inter")))
        return st;
    c->op = (ts_coll_op)op;
    c->inter = scope;
    c->ranks = 1;
    if ((st = ts_json_u32(&c->ranks, v, where, "ranks", op != TS_COLL_SENDRECV, 0, UINT32_MAX)) != TSCHED_OK)
        return st;
    if (op == TS_COLL_SENDRECV && c->ranks != 1)
        return ts_error(TSCHED_E_RANGE, "%s.ranks: %u is out of range (sendrecv is one pair: 1)", where, c->ranks);
    if (op != TS_COLL_SENDRECV && (c->ranks < 2 || c->ranks > MAX_RANKS))
        return ts_error(TSCHED_E_RANGE, "%s.ranks: %u is out of range [2, %u]", where, c->ranks, MAX_RANKS);
    return read_points(c, v, where);
}

/* Order of entries: op, scope, ranks. */
static int coll_key_cmp(ts_coll_op op, int inter, uint32_t ranks, const ts_prof_coll *b)
{
    if (op != b->op)
        return op < b->op ? -1 : 1;
    if (inter != b->inter)
        return inter < b->inter ? -1 : 1;
    return (ranks > b->ranks) - (ranks < b->ranks);
}

/* Document index of an entry, carried through the sort to name a duplicate. */
typedef struct coll_at {
    ts_prof_coll c;
    size_t at;
} coll_at;

static int coll_at_cmp(const void *a, const void *b)
{
    const coll_at *x = a, *y = b;
    int c = coll_key_cmp(x->c.op, x->c.inter, x->c.ranks, &y->c);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Sort p->coll by key; TSCHED_E_DUPLICATE names the later entry of the first clash. */
static tsched_status sort_colls(tsched_op_profile *p)
{
    if (p->ncoll < 2)
        return TSCHED_OK;
    coll_at *s = ts_malloc(p->ncoll, sizeof *s);
    if (!s)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < p->ncoll; i++)
        s[i] = (coll_at){p->coll[i], i};
    qsort(s, p->ncoll, sizeof *s, coll_at_cmp);
    size_t dup = SIZE_MAX, other = 0;
    for (uint32_t i = 1; i < p->ncoll; i++)
        if (coll_key_cmp(s[i].c.op, s[i].c.inter, s[i].c.ranks, &s[i - 1].c) == 0 && s[i].at < dup) {
            dup = s[i].at;
            other = s[i - 1].at;
        }
    tsched_status st = TSCHED_OK;
    if (dup != SIZE_MAX) {
        const ts_prof_coll *c = &p->coll[dup];
        st = ts_error(TSCHED_E_DUPLICATE, "collectives[%zu]: duplicate entry (%s, %s, ranks %u) (also collectives[%zu])",
                      dup, op_names[c->op], c->inter ? "inter" : "intra", c->ranks, other);
    } else {
        for (uint32_t i = 0; i < p->ncoll; i++)
            p->coll[i] = s[i].c;
    }
    free(s);
    return st;
}

static tsched_status load_doc(tsched_op_profile **out, const json_t *root)
{
    tsched_status st;
    const json_t *layers, *colls;
    const char *type;
    if ((st = ts_json_check_format(root, PROFILE_FORMAT)) || (st = ts_json_str(&type, root, "", "gpu_type", 1)) ||
        (st = ts_name_check(type, "gpu_type")) || (st = ts_json_arr(&layers, root, "", "layers", 1)) ||
        (st = ts_json_arr(&colls, root, "", "collectives", 0)))
        return st;
    size_t nl = json_array_size(layers), nc = colls ? json_array_size(colls) : 0;
    if (nl == 0)
        return ts_error(TSCHED_E_RANGE, "layers: expected at least one entry");
    if (nl > UINT32_MAX || nc > UINT32_MAX)
        return ts_error(TSCHED_E_TOO_LARGE, "%s: more than %u entries", nl > UINT32_MAX ? "layers" : "collectives",
                        UINT32_MAX);
    tsched_op_profile *p = ts_calloc(1, sizeof *p);
    if (!p)
        return TSCHED_E_NOMEM;
    if (!(p->gpu_type = ts_strdup(type)) || !(p->layers = ts_calloc(nl, sizeof *p->layers)) ||
        (nc && !(p->coll = ts_calloc(nc, sizeof *p->coll)))) {
        tsched_op_profile_free(p);
        return TSCHED_E_NOMEM;
    }
    p->nlayers = (uint32_t)nl;
    for (size_t i = 0; i < nl && st == TSCHED_OK; i++)
        st = read_layer(&p->layers[i], json_array_get(layers, i), i);
    for (size_t i = 0; i < nc && st == TSCHED_OK; i++) {
        p->ncoll = (uint32_t)i + 1; /* owned from now on, even half-read */
        st = read_coll(&p->coll[i], json_array_get(colls, i), i);
    }
    if (st == TSCHED_OK)
        st = sort_colls(p);
    if (st != TSCHED_OK) {
        tsched_op_profile_free(p);
        return st;
    }
    *out = p;
    return TSCHED_OK;
}

static tsched_status read_doc(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_op_profile **)slot, root);
}

tsched_status tsched_op_profile_load_string(tsched_op_profile **out, const char *json, size_t len)
{
    return ts_json_load_string(out, read_doc, NULL, json, len, "tsched_op_profile_load_string");
}

tsched_status tsched_op_profile_load_file(tsched_op_profile **out, const char *path)
{
    return ts_json_load_file(out, read_doc, NULL, path, "tsched_op_profile_load_file");
}

/* ---- clone and interpolation ---- */

tsched_status ts_profile_clone(tsched_op_profile **out, const tsched_op_profile *p)
{
    if (!out || !p)
        return ts_error(TSCHED_E_INVALID, "ts_profile_clone: out or p is NULL");
    *out = NULL;
    tsched_op_profile *q = ts_calloc(1, sizeof *q);
    if (!q)
        return TSCHED_E_NOMEM;
    if (!(q->gpu_type = ts_strdup(p->gpu_type)) || (p->nlayers && !(q->layers = ts_malloc(p->nlayers, sizeof *q->layers))) ||
        (p->ncoll && !(q->coll = ts_calloc(p->ncoll, sizeof *q->coll))))
        goto fail;
    q->nlayers = p->nlayers;
    if (p->nlayers)
        memcpy(q->layers, p->layers, p->nlayers * sizeof *q->layers);
    for (uint32_t i = 0; i < p->ncoll; i++) {
        const ts_prof_coll *a = &p->coll[i];
        ts_prof_coll *b = &q->coll[i];
        q->ncoll = i + 1;
        *b = *a;
        b->bytes = b->secs = NULL;
        if (!(b->bytes = ts_malloc(a->npoints, sizeof *b->bytes)) || !(b->secs = ts_malloc(a->npoints, sizeof *b->secs)))
            goto fail;
        memcpy(b->bytes, a->bytes, a->npoints * sizeof *b->bytes);
        memcpy(b->secs, a->secs, a->npoints * sizeof *b->secs);
    }
    *out = q;
    return TSCHED_OK;
fail:
    tsched_op_profile_free(q);
    return TSCHED_E_NOMEM;
}

/* Piecewise-linear through (0, 0) and the points; the last segment extended (one point: the
 * line through (0, 0) and it). x <= 0 gives 0. */
static double interpolate(const ts_prof_coll *c, double x)
{
    if (!(x > 0))
        return 0;
    const double *b = c->bytes, *s = c->secs;
    uint32_t n = c->npoints;
    if (x <= b[0] || n == 1)
        return s[0] * (x / b[0]);
    /* The segment [b[k-1], b[k]] holding x, or the last one past b[n-1]. */
    uint32_t lo = 1, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k = lo;
    return s[k - 1] + (s[k] - s[k - 1]) * ((x - b[k - 1]) / (b[k] - b[k - 1]));
}

int ts_profile_coll_time(double *secs, const tsched_op_profile *p, ts_coll_op op, int inter, uint32_t ranks,
                         double bytes)
{
    if (!secs || !p || p->ncoll == 0)
        return 0;
    inter = inter != 0;
    if (op == TS_COLL_SENDRECV)
        ranks = 1; /* one pair, whatever the caller counts */
    uint32_t lo = 0, hi = p->ncoll;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = coll_key_cmp(op, inter, ranks, &p->coll[mid]);
        if (c == 0) {
            *secs = interpolate(&p->coll[mid], bytes);
            return 1;
        }
        if (c > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}
