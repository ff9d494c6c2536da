/* The GPU catalogue: the built-in table of doc/cell.md §7.1 (vendor data sheets), lookups,
 * clone and merge. Entries are kept sorted by name (strcmp) so lookups are binary searches
 * and every output lists them in name order. The tsched.gpus.v1 reader and writer are in
 * catalog_json.c. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/structsize.h"
#include "cell_internal.h"

/* The figures: tflops = dense FP16/BF16 tensor peak without sparsity; mem_gib = memory per
 * GPU; intra_gbps = one direction per GPU inside a node, in Gbit/s (NVLink: the data sheet's
 * bidirectional GB/s / 2 * 8; PCIe: the x16 link's one-way GB/s * 8). Sorted by name. */
static const struct builtin {
    const char *name;
    double tflops, mem_gib, intra_gbps;
    const char *note;
} builtin[] = {
    {"A10", 125, 24, 256,
     "NVIDIA A10 data sheet: 125 TFLOPS dense BF16, 24 GB GDDR6; intra: PCIe 4.0 x16, 32 GB/s one way"},
    {"A100", 312, 80, 2400,
     "NVIDIA A100 data sheet: SXM4 80 GB, 312 TFLOPS dense BF16; intra: NVLink 3, 600 GB/s both ways"},
    {"A100-40G", 312, 40, 2400,
     "NVIDIA A100 data sheet: SXM4 40 GB (the A100 of Crius Table 1), 312 TFLOPS dense BF16; intra: NVLink 3, "
     "600 GB/s both ways"},
    {"A40", 149.7, 48, 256,
     "NVIDIA A40 data sheet: 149.7 TFLOPS dense BF16, 48 GB GDDR6; intra: PCIe 4.0 x16, 32 GB/s one way"},
    {"H100", 989, 80, 3600,
     "NVIDIA H100 data sheet: SXM5, 989 TFLOPS dense BF16, 80 GB HBM3; intra: NVLink 4, 900 GB/s both ways"},
    {"H800", 989, 80, 1600,
     "NVIDIA H800 SXM: H100 compute (989 TFLOPS dense BF16), 80 GB; intra: NVLink cut to 400 GB/s both ways"},
    {"L20", 119.5, 48, 256,
     "NVIDIA L20 data sheet: 119.5 TFLOPS dense FP16/BF16, 48 GB GDDR6; intra: PCIe 4.0 x16, 32 GB/s one way "
     "(Arnold's L20 cluster)"},
    {"P100", 18.7, 16, 128,
     "NVIDIA P100 PCIe data sheet: 18.7 TFLOPS FP16 without tensor cores, 16 GB HBM2; intra: PCIe 3.0 x16, "
     "16 GB/s one way"},
    {"T4", 65, 16, 128,
     "NVIDIA T4 data sheet: 65 TFLOPS FP16 tensor, 16 GB GDDR6; intra: PCIe 3.0 x16, 16 GB/s one way"},
    {"V100", 125, 32, 1200,
     "NVIDIA V100 data sheet: SXM2 32 GB, 125 TFLOPS FP16 tensor; intra: NVLink 2, 300 GB/s both ways"},
    {"V100M16", 125, 16, 1200,
     "Alibaba v2023 name of the V100 16 GB, assumed SXM2 (NVIDIA V100 data sheet: 125 TFLOPS FP16 tensor; "
     "intra: NVLink 2, 300 GB/s both ways)"},
    {"V100M32", 125, 32, 1200,
     "Alibaba v2023 name of the V100 32 GB, assumed SXM2 (NVIDIA V100 data sheet: 125 TFLOPS FP16 tensor; "
     "intra: NVLink 2, 300 GB/s both ways)"},
};

#define NBUILTIN (sizeof builtin / sizeof builtin[0])
#define DEFAULT_EFFICIENCY 0.5

static void gpu_clear(ts_gpu *g)
{
    free(g->name);
    free(g->note);
    g->name = g->note = NULL;
}

void tsched_gpu_catalog_free(tsched_gpu_catalog *cat)
{
    if (!cat)
        return;
    for (uint32_t i = 0; i < cat->n; i++)
        gpu_clear(&cat->gpus[i]);
    free(cat->gpus);
    free(cat);
}

/* Copy `src` into `dst` (strings duplicated). */
static tsched_status gpu_copy(ts_gpu *dst, const ts_gpu *src)
{
    *dst = *src;
    dst->name = ts_strdup(src->name);
    dst->note = src->note ? ts_strdup(src->note) : NULL;
    if (!dst->name || (src->note && !dst->note)) {
        gpu_clear(dst);
        return TSCHED_E_NOMEM;
    }
    return TSCHED_OK;
}

/* A catalogue of `n` entries copied from `src` (NULL: zeroed entries to fill). */
static tsched_status cat_new(tsched_gpu_catalog **out, uint32_t n, const ts_gpu *src)
{
    tsched_gpu_catalog *c = ts_calloc(1, sizeof *c);
    if (!c)
        return TSCHED_E_NOMEM;
    if (n && !(c->gpus = ts_calloc(n, sizeof *c->gpus))) {
        free(c);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t i = 0; src && i < n; i++) {
        if (gpu_copy(&c->gpus[i], &src[i]) != TSCHED_OK) {
            tsched_gpu_catalog_free(c);
            return TSCHED_E_NOMEM;
        }
        c->n = i + 1;
    }
    *out = c;
    return TSCHED_OK;
}

tsched_status tsched_gpu_catalog_default(tsched_gpu_catalog **out)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_gpu_catalog_default: out is NULL");
    *out = NULL;
    tsched_gpu_catalog *c;
    tsched_status st = cat_new(&c, (uint32_t)NBUILTIN, NULL);
    if (st != TSCHED_OK)
        return st;
    for (uint32_t i = 0; i < NBUILTIN; i++) {
        const ts_gpu g = {.name = (char *)builtin[i].name,
                          .tflops = builtin[i].tflops,
                          .mem_gib = builtin[i].mem_gib,
                          .intra_gbps = builtin[i].intra_gbps,
                          .efficiency = DEFAULT_EFFICIENCY,
                          .note = (char *)builtin[i].note};
        if ((st = gpu_copy(&c->gpus[i], &g)) != TSCHED_OK) {
            tsched_gpu_catalog_free(c);
            return st;
        }
        c->n = i + 1;
    }
    /* The table above is written in name order; keep the invariant even if it is edited. */
    ts_catalog_sort(c);
    *out = c;
    return TSCHED_OK;
}

static int gpu_cmp(const void *a, const void *b)
{
    return strcmp(((const ts_gpu *)a)->name, ((const ts_gpu *)b)->name);
}

void ts_catalog_sort(tsched_gpu_catalog *cat)
{
    if (cat->n > 1)
        qsort(cat->gpus, cat->n, sizeof *cat->gpus, gpu_cmp);
}

/* Index of `name`, or the insertion point with *found = 0. */
static uint32_t cat_search(const tsched_gpu_catalog *cat, const char *name, int *found)
{
    uint32_t lo = 0, hi = cat->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(cat->gpus[mid].name, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

const ts_gpu *ts_catalog_find(const tsched_gpu_catalog *cat, const char *name)
{
    if (!cat || !name)
        return NULL;
    int found;
    uint32_t i = cat_search(cat, name, &found);
    return found ? &cat->gpus[i] : NULL;
}

tsched_status ts_catalog_clone(tsched_gpu_catalog **out, const tsched_gpu_catalog *cat)
{
    if (!out || !cat)
        return ts_error(TSCHED_E_INVALID, "ts_catalog_clone: out or cat is NULL");
    *out = NULL;
    return cat_new(out, cat->n, cat->gpus);
}

tsched_status tsched_gpu_catalog_merge(tsched_gpu_catalog *dst, const tsched_gpu_catalog *src)
{
    if (!dst || !src)
        return ts_error(TSCHED_E_INVALID, "tsched_gpu_catalog_merge: dst or src is NULL");
    if (dst == src || src->n == 0)
        return TSCHED_OK;
    /* Allocate everything first (copies of src's entries, the merged array), then move the
     * entries over: on failure dst is untouched. */
    tsched_gpu_catalog *copy;
    tsched_status st = cat_new(&copy, src->n, src->gpus);
    if (st != TSCHED_OK)
        return st;
    ts_gpu *m = ts_calloc((size_t)dst->n + src->n, sizeof *m);
    if (!m) {
        tsched_gpu_catalog_free(copy);
        return TSCHED_E_NOMEM;
    }
    uint32_t i = 0, j = 0, k = 0;
    while (i < dst->n || j < copy->n) {
        int c = i == dst->n ? 1 : j == copy->n ? -1 : strcmp(dst->gpus[i].name, copy->gpus[j].name);
        if (c < 0) {
            m[k++] = dst->gpus[i++];
            continue;
        }
        if (c == 0)
            gpu_clear(&dst->gpus[i++]); /* same name: src wins */
        m[k++] = copy->gpus[j++];
    }
    free(dst->gpus);
    dst->gpus = m;
    dst->n = k;
    free(copy->gpus); /* its strings now belong to dst */
    free(copy);
    return TSCHED_OK;
}

uint32_t tsched_gpu_catalog_count(const tsched_gpu_catalog *cat) { return cat ? cat->n : 0; }

static const ts_span info_spans[] = {
    TS_SPAN(tsched_gpu_info, size),       TS_SPAN(tsched_gpu_info, name),
    TS_SPAN(tsched_gpu_info, tflops),     TS_SPAN(tsched_gpu_info, mem_gib),
    TS_SPAN(tsched_gpu_info, intra_gbps), TS_SPAN(tsched_gpu_info, efficiency),
};

static tsched_status info_out(tsched_gpu_info *info, const ts_gpu *g)
{
    tsched_gpu_info full = {.size = sizeof full,
                            .name = g->name,
                            .tflops = g->tflops,
                            .mem_gib = g->mem_gib,
                            .intra_gbps = g->intra_gbps,
                            .efficiency = g->efficiency};
    return ts_struct_out(info, &full, info_spans, TS_NSPANS(info_spans), sizeof full, "tsched_gpu_info");
}

tsched_status tsched_gpu_catalog_get(tsched_gpu_info *info, const tsched_gpu_catalog *cat, uint32_t index)
{
    if (!info || !cat)
        return ts_error(TSCHED_E_INVALID, "tsched_gpu_catalog_get: info or cat is NULL");
    tsched_status st = ts_struct_size(info->size, info_spans, TS_NSPANS(info_spans), sizeof *info, "tsched_gpu_info");
    if (st != TSCHED_OK)
        return st;
    if (index >= cat->n)
        return ts_error(TSCHED_E_INVALID, "index: %u is out of range (the catalogue has %u GPU types)", index, cat->n);
    return info_out(info, &cat->gpus[index]);
}

tsched_status tsched_gpu_catalog_find(tsched_gpu_info *info, const tsched_gpu_catalog *cat, const char *name)
{
    if (!info || !cat || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_gpu_catalog_find: info, cat or name is NULL");
    tsched_status st = ts_struct_size(info->size, info_spans, TS_NSPANS(info_spans), sizeof *info, "tsched_gpu_info");
    if (st != TSCHED_OK)
        return st;
    const ts_gpu *g = ts_catalog_find(cat, name);
    if (!g)
        return ts_error(TSCHED_E_NOT_FOUND, "gpu_type: \"%s\" is not in the GPU catalogue", name);
    return info_out(info, g);
}
