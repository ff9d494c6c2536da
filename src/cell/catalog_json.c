/* The GPU catalogue format `tsched.gpus.v1` (doc/cell.md §7.1): reader and writer.
 *
 * Field rules: `name` (a name as DESIGN 3 defines it: non-empty, at most name_bytes bytes,
 * unique in the document), `tflops`, `mem_gib`, `intra_gbps` required and > 0 (and at most
 * the bounds below, so the cost model's products stay finite), `efficiency` in (0, 1],
 * default 0.5, `note` optional. Unknown fields are ignored (DESIGN 5), as every reader of the
 * project does. An empty `gpus` array is a valid (empty) catalogue: a file merged over the
 * built-in one may add nothing. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/names.h"
#include "cell_internal.h"

#define GPUS_FORMAT "tsched.gpus.v1"
#define DEFAULT_EFFICIENCY 0.5

/* Upper bounds of the figures: far beyond any GPU (1 EFLOPS, 1 PiB, 1 Pbit/s). */
#define MAX_TFLOPS 1e6
#define MAX_MEM_GIB 1e6
#define MAX_INTRA_GBPS 1e9

tsched_status ts_cell_json_range(double *out, const json_t *obj, const char *where, const char *key, int required,
                                 double min, int min_open, double max)
{
    double d;
    const json_t *v = json_object_get(obj, key);
    if (!required && (!v || json_is_null(v)))
        return TSCHED_OK;
    tsched_status st = ts_json_num(&d, obj, where, key, required, -DBL_MAX, 0, DBL_MAX);
    if (st != TSCHED_OK)
        return st;
    if (d < min || (min_open && d == min))
        return ts_error(TSCHED_E_RANGE, "%s%s%s: %g is out of range (%s %g)", where, *where ? "." : "", key, d,
                        min_open ? ">" : ">=", min);
    if (d > max)
        return ts_error(TSCHED_E_RANGE, "%s%s%s: %g is out of range %s%g, %g]", where, *where ? "." : "", key, d,
                        min_open ? "(" : "[", min, max);
    *out = d;
    return TSCHED_OK;
}

static tsched_status read_gpu(ts_gpu *g, const json_t *v, size_t i)
{
    char where[48];
    snprintf(where, sizeof where, "gpus[%zu]", i);
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
    tsched_status st;
    const char *name, *note = NULL;
    char field[64];
    snprintf(field, sizeof field, "%s.name", where);
    double eff = DEFAULT_EFFICIENCY;
    if ((st = ts_json_str(&name, v, where, "name", 1)) || (st = ts_name_check(name, field)) ||
        (st = ts_cell_json_range(&g->tflops, v, where, "tflops", 1, 0, 1, MAX_TFLOPS)) ||
        (st = ts_cell_json_range(&g->mem_gib, v, where, "mem_gib", 1, 0, 1, MAX_MEM_GIB)) ||
        (st = ts_cell_json_range(&g->intra_gbps, v, where, "intra_gbps", 1, 0, 1, MAX_INTRA_GBPS)) ||
        (st = ts_cell_json_range(&eff, v, where, "efficiency", 0, 0, 1, 1)) ||
        (st = ts_json_str(&note, v, where, "note", 0)))
        return st;
    g->efficiency = eff;
    if (!(g->name = ts_strdup(name)) || (note && !(g->note = ts_strdup(note)))) {
        free(g->name);
        g->name = NULL;
        return TSCHED_E_NOMEM;
    }
    return TSCHED_OK;
}

/* Document order of an entry, kept while sorting to name the duplicate. */
typedef struct name_at {
    const char *name;
    size_t at;
} name_at;

static int name_at_cmp(const void *a, const void *b)
{
    const name_at *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* TSCHED_E_DUPLICATE naming the later of the first clashing pair (in document order). */
static tsched_status check_unique(const tsched_gpu_catalog *c)
{
    if (c->n < 2)
        return TSCHED_OK;
    name_at *s = ts_malloc(c->n, sizeof *s);
    if (!s)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < c->n; i++)
        s[i] = (name_at){c->gpus[i].name, i};
    qsort(s, c->n, sizeof *s, name_at_cmp);
    size_t first = SIZE_MAX, other = 0;
    for (uint32_t i = 1; i < c->n; i++)
        if (strcmp(s[i].name, s[i - 1].name) == 0 && s[i].at < first) {
            first = s[i].at;
            other = s[i - 1].at;
        }
    tsched_status st = TSCHED_OK;
    if (first != SIZE_MAX)
        st = ts_error(TSCHED_E_DUPLICATE, "gpus[%zu].name: duplicate name \"%s\" (also gpus[%zu])", first,
                      c->gpus[first].name, other);
    free(s);
    return st;
}

static tsched_status load_doc(tsched_gpu_catalog **out, const json_t *root)
{
    tsched_status st;
    const json_t *gpus;
    if ((st = ts_json_check_format(root, GPUS_FORMAT)) || (st = ts_json_arr(&gpus, root, "", "gpus", 1)))
        return st;
    size_t n = json_array_size(gpus);
    if (n > UINT32_MAX - 1)
        return ts_error(TSCHED_E_TOO_LARGE, "gpus: %zu entries; at most %u are supported", n, UINT32_MAX - 1);
    tsched_gpu_catalog *c = ts_calloc(1, sizeof *c);
    if (!c || (n && !(c->gpus = ts_calloc(n, sizeof *c->gpus)))) {
        free(c);
        return TSCHED_E_NOMEM;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(gpus, i, v)
    {
        if ((st = read_gpu(&c->gpus[i], v, i)) != TSCHED_OK)
            break;
        c->n = (uint32_t)i + 1;
    }
    if (st == TSCHED_OK)
        st = check_unique(c);
    if (st != TSCHED_OK) {
        tsched_gpu_catalog_free(c);
        return st;
    }
    ts_catalog_sort(c);
    *out = c;
    return TSCHED_OK;
}

static tsched_status read_doc(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_gpu_catalog **)slot, root);
}

tsched_status tsched_gpu_catalog_load_string(tsched_gpu_catalog **out, const char *json, size_t len)
{
    return ts_json_load_string(out, read_doc, NULL, json, len, "tsched_gpu_catalog_load_string");
}

tsched_status tsched_gpu_catalog_load_file(tsched_gpu_catalog **out, const char *path)
{
    return ts_json_load_file(out, read_doc, NULL, path, "tsched_gpu_catalog_load_file");
}

tsched_status tsched_gpu_catalog_to_json(char **out, const tsched_gpu_catalog *cat)
{
    if (!out || !cat)
        return ts_error(TSCHED_E_INVALID, "tsched_gpu_catalog_to_json: out or cat is NULL");
    *out = NULL;
    tsched_status st;
    json_t *root = json_object(), *gpus = json_array();
    if (!root || !gpus) {
        json_decref(root);
        json_decref(gpus);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    if ((st = ts_json_set(root, "format", json_string(GPUS_FORMAT))) || (st = ts_json_set(root, "gpus", gpus)))
        goto out;
    for (uint32_t i = 0; i < cat->n; i++) {
        const ts_gpu *g = &cat->gpus[i];
        json_t *o = json_object();
        if ((st = ts_json_push(gpus, o)) != TSCHED_OK || (st = ts_json_set(o, "name", json_string(g->name))) ||
            (st = ts_json_set(o, "tflops", json_real(g->tflops))) ||
            (st = ts_json_set(o, "mem_gib", json_real(g->mem_gib))) ||
            (st = ts_json_set(o, "intra_gbps", json_real(g->intra_gbps))) ||
            (st = ts_json_set(o, "efficiency", json_real(g->efficiency))) ||
            (g->note && (st = ts_json_set(o, "note", json_string(g->note)))))
            goto out;
    }
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}
