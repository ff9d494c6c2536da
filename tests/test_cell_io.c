/* Cell I/O suite (doc/cell.md §1, §3.4, §7.1, §8): the built-in GPU catalogue against the
 * design's table, lookups, clone and merge; the tsched.gpus.v1 reader (every field rule and
 * bad input) and writer (round trip); the tsched.op-profile.v1 reader, clone and the
 * collective interpolation against hand-computed values on seeded random point sets; pools
 * of hand-built heterogeneous fabrics against a brute-force recount. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cell/cell_internal.h"
#include "common/rng.h"
#include "test_util.h"

#define IO_DATA TSCHED_TEST_DATA "/cell/io"

/* ---- the built-in catalogue ---- */

/* §7.1's table, typed in from the design note (not from catalog.c). */
static const struct {
    const char *name;
    double tflops, mem_gib, intra_gbps;
} table71[] = {
    {"H100", 989, 80, 3600},   {"H800", 989, 80, 1600},  {"A100", 312, 80, 2400},   {"A100-40G", 312, 40, 2400},
    {"A40", 149.7, 48, 256},   {"A10", 125, 24, 256},    {"L20", 119.5, 48, 256},   {"V100", 125, 32, 1200},
    {"V100M16", 125, 16, 1200}, {"V100M32", 125, 32, 1200}, {"T4", 65, 16, 128}, {"P100", 18.7, 16, 128},
};
#define N71 (sizeof table71 / sizeof table71[0])

static tsched_gpu_catalog *default_cat(void)
{
    tsched_gpu_catalog *c = NULL;
    ck_assert_ok(tsched_gpu_catalog_default(&c));
    ck_assert_ptr_nonnull(c);
    return c;
}

START_TEST(test_builtin_table)
{
    tsched_gpu_catalog *c = default_cat();
    ck_assert_uint_eq(tsched_gpu_catalog_count(c), N71);
    for (size_t i = 0; i < N71; i++) {
        tsched_gpu_info info = {.size = sizeof info};
        ck_assert_ok(tsched_gpu_catalog_find(&info, c, table71[i].name));
        ck_assert_str_eq(info.name, table71[i].name);
        ck_assert(info.tflops == table71[i].tflops);
        ck_assert(info.mem_gib == table71[i].mem_gib);
        ck_assert(info.intra_gbps == table71[i].intra_gbps);
        ck_assert(info.efficiency == 0.5);
        const ts_gpu *g = ts_catalog_find(c, table71[i].name);
        ck_assert_ptr_nonnull(g);
        ck_assert_ptr_nonnull(g->note); /* every figure cites its source */
        ck_assert_uint_gt(strlen(g->note), 20);
    }
    /* Name order (strcmp), and get() agrees with find(). */
    for (uint32_t i = 0; i < c->n; i++) {
        if (i)
            ck_assert_int_lt(strcmp(c->gpus[i - 1].name, c->gpus[i].name), 0);
        tsched_gpu_info a = {.size = sizeof a}, b = {.size = sizeof b};
        ck_assert_ok(tsched_gpu_catalog_get(&a, c, i));
        ck_assert_ok(tsched_gpu_catalog_find(&b, c, a.name));
        ck_assert_ptr_eq(a.name, b.name);
    }
    ck_assert_str_eq(c->gpus[0].name, "A10");
    ck_assert_str_eq(c->gpus[1].name, "A100");
    ck_assert_str_eq(c->gpus[2].name, "A100-40G");
    tsched_gpu_catalog_free(c);
}
END_TEST

START_TEST(test_catalog_lookups)
{
    tsched_gpu_catalog *c = default_cat();
    tsched_gpu_info info = {.size = sizeof info};
    ck_assert_status(tsched_gpu_catalog_find(&info, c, "G2"), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("\"G2\"");
    ck_assert_status(tsched_gpu_catalog_get(&info, c, c->n), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_get(NULL, c, 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_get(&info, NULL, 0), TSCHED_E_INVALID);
    ck_assert_uint_eq(tsched_gpu_catalog_count(NULL), 0);
    ck_assert_ptr_null(ts_catalog_find(c, "A1"));
    ck_assert_ptr_null(ts_catalog_find(c, "Z"));
    ck_assert_ptr_null(ts_catalog_find(c, ""));
    ck_assert_ptr_null(ts_catalog_find(NULL, "A100"));
    /* Every entry is found by the binary search. */
    for (uint32_t i = 0; i < c->n; i++)
        ck_assert_ptr_eq(ts_catalog_find(c, c->gpus[i].name), &c->gpus[i]);
    /* Bad sizes: not on a field boundary, too large. An older, shorter struct gets its prefix. */
    info.size = sizeof info + 8;
    ck_assert_status(tsched_gpu_catalog_get(&info, c, 0), TSCHED_E_INVALID);
    info.size = sizeof(size_t) + 1;
    ck_assert_status(tsched_gpu_catalog_get(&info, c, 0), TSCHED_E_INVALID);
    tsched_gpu_info old;
    memset(&old, 0, sizeof old);
    old.size = offsetof(tsched_gpu_info, mem_gib);
    ck_assert_ok(tsched_gpu_catalog_get(&old, c, 1));
    ck_assert_str_eq(old.name, "A100");
    ck_assert(old.tflops == 312);
    ck_assert(old.mem_gib == 0); /* not covered: untouched */
    tsched_gpu_catalog_free(c);
    tsched_gpu_catalog_free(NULL);
}
END_TEST

/* Field-by-field equality of two catalogues. */
static void assert_cat_eq(const tsched_gpu_catalog *a, const tsched_gpu_catalog *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        const ts_gpu *x = &a->gpus[i], *y = &b->gpus[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert(x->tflops == y->tflops);
        ck_assert(x->mem_gib == y->mem_gib);
        ck_assert(x->intra_gbps == y->intra_gbps);
        ck_assert(x->efficiency == y->efficiency);
        ck_assert_int_eq(!x->note, !y->note);
        if (x->note)
            ck_assert_str_eq(x->note, y->note);
    }
}

START_TEST(test_catalog_clone)
{
    tsched_gpu_catalog *c = default_cat(), *d = NULL;
    ck_assert_ok(ts_catalog_clone(&d, c));
    assert_cat_eq(c, d);
    for (uint32_t i = 0; i < c->n; i++)
        ck_assert_ptr_ne(c->gpus[i].name, d->gpus[i].name); /* deep */
    tsched_gpu_catalog_free(c);
    tsched_gpu_catalog_free(d);
    ck_assert_status(ts_catalog_clone(&d, NULL), TSCHED_E_INVALID);
}
END_TEST

/* A catalogue of the given names; entry i has tflops = base + i. */
static tsched_gpu_catalog *cat_of(const char *const *names, uint32_t n, double base)
{
    tsched_gpu_catalog *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->gpus = calloc(n ? n : 1, sizeof *c->gpus);
    ck_assert_ptr_nonnull(c->gpus);
    for (uint32_t i = 0; i < n; i++) {
        c->gpus[i].name = strdup(names[i]);
        c->gpus[i].tflops = base + i;
        c->gpus[i].mem_gib = 16;
        c->gpus[i].intra_gbps = 100;
        c->gpus[i].efficiency = 0.5;
    }
    c->n = n;
    ts_catalog_sort(c);
    return c;
}

START_TEST(test_catalog_merge)
{
    tsched_gpu_catalog *dst = default_cat(), *ref = default_cat();
    const char *names[] = {"G2", "A100", "ZZ", "0first", "V100M16"};
    tsched_gpu_catalog *src = cat_of(names, 5, 1000);
    ck_assert_ok(tsched_gpu_catalog_merge(dst, src));
    ck_assert_uint_eq(dst->n, ref->n + 3);
    for (uint32_t i = 1; i < dst->n; i++)
        ck_assert_int_lt(strcmp(dst->gpus[i - 1].name, dst->gpus[i].name), 0);
    /* src's entries win; the others are the built-in ones. */
    for (uint32_t i = 0; i < dst->n; i++) {
        const ts_gpu *g = &dst->gpus[i], *s = ts_catalog_find(src, g->name), *r = ts_catalog_find(ref, g->name);
        ck_assert(s || r);
        const ts_gpu *want = s ? s : r;
        ck_assert(g->tflops == want->tflops);
        ck_assert(g->mem_gib == want->mem_gib);
        ck_assert_int_eq(!g->note, !want->note);
    }
    ck_assert(ts_catalog_find(dst, "A100")->tflops == 1001);
    /* Merging an empty catalogue or itself changes nothing. */
    tsched_gpu_catalog *empty = cat_of(NULL, 0, 0), *before = NULL;
    ck_assert_ok(ts_catalog_clone(&before, dst));
    ck_assert_ok(tsched_gpu_catalog_merge(dst, empty));
    ck_assert_ok(tsched_gpu_catalog_merge(dst, dst));
    assert_cat_eq(dst, before);
    /* Into an empty one: a copy. */
    ck_assert_ok(tsched_gpu_catalog_merge(empty, ref));
    assert_cat_eq(empty, ref);
    ck_assert_status(tsched_gpu_catalog_merge(NULL, ref), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_merge(dst, NULL), TSCHED_E_INVALID);
    tsched_gpu_catalog_free(dst);
    tsched_gpu_catalog_free(ref);
    tsched_gpu_catalog_free(src);
    tsched_gpu_catalog_free(empty);
    tsched_gpu_catalog_free(before);
}
END_TEST

/* Seeded random merges against a brute-force reference (name -> tflops table). */
START_TEST(test_catalog_merge_random)
{
    ts_rng r;
    ts_rng_seed(&r, 12);
    for (int iter = 0; iter < 200; iter++) {
        char nb[2][12][8];
        const char *na[2][12];
        uint32_t cnt[2];
        tsched_gpu_catalog *c[2];
        for (int k = 0; k < 2; k++) {
            cnt[k] = (uint32_t)ts_rng_below(&r, 8);
            uint32_t n = 0;
            for (uint32_t i = 0; i < cnt[k]; i++) {
                snprintf(nb[k][n], sizeof nb[k][n], "T%u", (unsigned)ts_rng_below(&r, 10));
                int dup = 0;
                for (uint32_t j = 0; j < n; j++)
                    dup |= strcmp(nb[k][j], nb[k][n]) == 0;
                if (!dup) {
                    na[k][n] = nb[k][n];
                    n++;
                }
            }
            cnt[k] = n;
            c[k] = cat_of(na[k], n, k ? 100 : 0);
        }
        ck_assert_ok(tsched_gpu_catalog_merge(c[0], c[1]));
        /* Brute force: names of both, each from src if there, else from dst. */
        uint32_t want = 0;
        for (int d = 0; d < 10; d++) {
            char nm[8];
            snprintf(nm, sizeof nm, "T%d", d);
            int in0 = 0, in1 = 0;
            for (uint32_t i = 0; i < cnt[0]; i++)
                in0 |= strcmp(na[0][i], nm) == 0;
            for (uint32_t i = 0; i < cnt[1]; i++)
                in1 |= strcmp(na[1][i], nm) == 0;
            const ts_gpu *g = ts_catalog_find(c[0], nm);
            ck_assert_int_eq(g != NULL, in0 || in1);
            if (in1)
                ck_assert(g->tflops >= 100);
            else if (in0)
                ck_assert(g->tflops < 100);
            want += in0 || in1;
        }
        ck_assert_uint_eq(c[0]->n, want);
        for (uint32_t i = 1; i < c[0]->n; i++)
            ck_assert_int_lt(strcmp(c[0]->gpus[i - 1].name, c[0]->gpus[i].name), 0);
        tsched_gpu_catalog_free(c[0]);
        tsched_gpu_catalog_free(c[1]);
    }
}
END_TEST

/* ---- tsched.gpus.v1 ---- */

static tsched_gpu_catalog *load_cat(const char *json)
{
    tsched_gpu_catalog *c = NULL;
    ck_assert_ok(tsched_gpu_catalog_load_string(&c, json, strlen(json)));
    ck_assert_ptr_nonnull(c);
    return c;
}

START_TEST(test_catalog_load_file)
{
    tsched_gpu_catalog *c = NULL;
    ck_assert_ok(tsched_gpu_catalog_load_file(&c, IO_DATA "/gpus-ok.json"));
    ck_assert_uint_eq(c->n, 3);
    /* Sorted by name whatever the file's order. */
    ck_assert_str_eq(c->gpus[0].name, "A100");
    ck_assert_str_eq(c->gpus[1].name, "G2");
    ck_assert_str_eq(c->gpus[2].name, "G3");
    ck_assert(c->gpus[0].efficiency == 1);
    ck_assert(c->gpus[0].tflops == 300);
    ck_assert_ptr_null(c->gpus[0].note);
    ck_assert(c->gpus[1].efficiency == 0.45);
    ck_assert_str_eq(c->gpus[1].note, "assumed A100-class (undisclosed model of the Alibaba v2023 inventory)");
    ck_assert(c->gpus[2].efficiency == 0.5); /* default */
    ck_assert(c->gpus[2].mem_gib == 32);
    ck_assert(c->gpus[2].intra_gbps == 1200);
    /* -c FILE over the built-in one: A100 from the file, G2/G3 added. */
    tsched_gpu_catalog *d = default_cat();
    ck_assert_ok(tsched_gpu_catalog_merge(d, c));
    ck_assert_uint_eq(d->n, N71 + 2);
    ck_assert(ts_catalog_find(d, "A100")->tflops == 300);
    ck_assert(ts_catalog_find(d, "A100-40G")->tflops == 312);
    tsched_gpu_catalog_free(d);
    tsched_gpu_catalog_free(c);
}
END_TEST

/* §8's bad catalogues as files: the status and the one-line message naming file and field. */
START_TEST(test_catalog_bad_files)
{
    static const struct {
        const char *file;
        tsched_status st;
        const char *msg;
    } cases[] = {
        {"gpus-missing-tflops.json", TSCHED_E_NOT_FOUND, "gpus[1].tflops: missing required field"},
        {"gpus-negative-tflops.json", TSCHED_E_RANGE, "gpus[2].tflops: -1 is out of range (> 0)"},
        {"gpus-zero-mem.json", TSCHED_E_RANGE, "gpus[0].mem_gib: 0 is out of range (> 0)"},
        {"gpus-duplicate.json", TSCHED_E_DUPLICATE, "gpus[2].name: duplicate name \"T4\" (also gpus[0])"},
        {"gpus-efficiency.json", TSCHED_E_RANGE, "gpus[0].efficiency: 1.5 is out of range (0, 1]"},
        {"no-such-file.json", TSCHED_E_IO, "no-such-file.json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[640];
        snprintf(path, sizeof path, "%s/%s", IO_DATA, cases[i].file);
        tsched_gpu_catalog *c = (tsched_gpu_catalog *)&path; /* must be reset to NULL */
        ck_assert_status(tsched_gpu_catalog_load_file(&c, path), cases[i].st);
        ck_assert_ptr_null(c);
        snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
        if (cases[i].st != TSCHED_E_IO)
            ck_assert_str_eq(tsched_last_error(), want);
        else
            ck_assert_errmsg_has(cases[i].msg);
        ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    }
}
END_TEST

/* Every field rule, from strings. */
START_TEST(test_catalog_bad_strings)
{
#define ENTRY(x) "{\"format\": \"tsched.gpus.v1\", \"gpus\": [" x "]}"
#define OK_E "{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1}"
    static const struct {
        const char *json;
        tsched_status st;
        const char *msg;
    } cases[] = {
        {"{\"format\": \"tsched.gpus.v2\", \"gpus\": []}", TSCHED_E_FORMAT, "format: unknown format or version"},
        {"{\"gpus\": []}", TSCHED_E_FORMAT, "format: missing"},
        {"[]", TSCHED_E_TYPE, "document: expected an object"},
        {"{\"format\": \"tsched.gpus.v1\"}", TSCHED_E_NOT_FOUND, "gpus: missing required field"},
        {"{\"format\": \"tsched.gpus.v1\", \"gpus\": {}}", TSCHED_E_TYPE, "gpus: expected an array"},
        {ENTRY("3"), TSCHED_E_TYPE, "gpus[0]: expected an object, got integer"},
        {ENTRY("{\"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_NOT_FOUND, "gpus[0].name: missing"},
        {ENTRY("{\"name\": \"\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_RANGE,
         "gpus[0].name: must not be empty"},
        {ENTRY("{\"name\": 7, \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_TYPE,
         "gpus[0].name: expected a string"},
        {ENTRY("{\"name\": \"a~b\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_RANGE,
         "gpus[0].name"},
        {ENTRY(OK_E ", {\"name\": \"B\", \"tflops\": 0, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_RANGE,
         "gpus[1].tflops: 0 is out of range (> 0)"},
        {ENTRY("{\"name\": \"A\", \"tflops\": \"1\", \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_TYPE,
         "gpus[0].tflops: expected a number, got string"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"intra_gbps\": 1}"), TSCHED_E_NOT_FOUND,
         "gpus[0].mem_gib: missing required field"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": -2, \"intra_gbps\": 1}"), TSCHED_E_RANGE,
         "gpus[0].mem_gib: -2 is out of range (> 0)"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1}"), TSCHED_E_NOT_FOUND,
         "gpus[0].intra_gbps: missing required field"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 0}"), TSCHED_E_RANGE,
         "gpus[0].intra_gbps: 0 is out of range (> 0)"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1e7, \"mem_gib\": 1, \"intra_gbps\": 1}"), TSCHED_E_RANGE,
         "gpus[0].tflops: 1e+07 is out of range (0, 1e+06]"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1, \"efficiency\": 0}"),
         TSCHED_E_RANGE, "gpus[0].efficiency: 0 is out of range (> 0)"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1, \"efficiency\": -0.5}"),
         TSCHED_E_RANGE, "gpus[0].efficiency: -0.5 is out of range (> 0)"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1, \"efficiency\": 1.0000001}"),
         TSCHED_E_RANGE, "gpus[0].efficiency: 1 is out of range (0, 1]"},
        {ENTRY("{\"name\": \"A\", \"tflops\": 1, \"mem_gib\": 1, \"intra_gbps\": 1, \"note\": 3}"), TSCHED_E_TYPE,
         "gpus[0].note: expected a string"},
        {ENTRY(OK_E ", " OK_E), TSCHED_E_DUPLICATE, "gpus[1].name: duplicate name \"A\" (also gpus[0])"},
        {"{\"format\": \"tsched.gpus.v1\", \"gpus\": [}", TSCHED_E_PARSE, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsched_gpu_catalog *c = NULL;
        tsched_status st = tsched_gpu_catalog_load_string(&c, cases[i].json, strlen(cases[i].json));
        ck_assert_msg(st == cases[i].st, "case %zu: %s (%s)", i, tsched_status_str(st), tsched_last_error());
        ck_assert_ptr_null(c);
        ck_assert_msg(strncmp(tsched_last_error(), cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: \"%s\"", i,
                      tsched_last_error());
    }
    /* Accepted edge values: efficiency exactly 1, the upper bounds, an empty catalogue, null note. */
    tsched_gpu_catalog *c = load_cat(ENTRY("{\"name\": \"A\", \"tflops\": 1e6, \"mem_gib\": 1e6, "
                                           "\"intra_gbps\": 1e9, \"efficiency\": 1, \"note\": null}"));
    ck_assert(c->gpus[0].efficiency == 1);
    ck_assert_ptr_null(c->gpus[0].note);
    tsched_gpu_catalog_free(c);
    c = load_cat(ENTRY(""));
    ck_assert_uint_eq(tsched_gpu_catalog_count(c), 0);
    tsched_gpu_catalog_free(c);
    ck_assert_status(tsched_gpu_catalog_load_string(NULL, "{}", 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_load_string(&c, NULL, 2), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_load_file(&c, NULL), TSCHED_E_INVALID);
#undef ENTRY
#undef OK_E
}
END_TEST

/* load(to_json(c)) == c, and the text is a fixed point. */
static void check_round_trip(const tsched_gpu_catalog *c)
{
    char *a = NULL, *b = NULL;
    ck_assert_ok(tsched_gpu_catalog_to_json(&a, c));
    tsched_gpu_catalog *d = load_cat(a);
    assert_cat_eq(c, d);
    ck_assert_ok(tsched_gpu_catalog_to_json(&b, d));
    ck_assert_str_eq(a, b);
    tsched_free(a);
    tsched_free(b);
    tsched_gpu_catalog_free(d);
}

START_TEST(test_catalog_round_trip)
{
    tsched_gpu_catalog *c = default_cat();
    check_round_trip(c);
    char *s = NULL;
    ck_assert_ok(tsched_gpu_catalog_to_json(&s, c));
    ck_assert_ptr_nonnull(strstr(s, "\"format\": \"tsched.gpus.v1\""));
    ck_assert_ptr_nonnull(strstr(s, "\"name\": \"A40\""));
    tsched_free(s);
    tsched_gpu_catalog_free(c);
    /* Random figures (awkward doubles), with and without notes. */
    ts_rng r;
    ts_rng_seed(&r, 7);
    for (int iter = 0; iter < 50; iter++) {
        uint32_t n = (uint32_t)ts_rng_below(&r, 6);
        char nb[6][32];
        const char *na[6];
        for (uint32_t i = 0; i < n; i++) {
            snprintf(nb[i], sizeof nb[i], "gpu-%u-%u", i, (unsigned)ts_rng_below(&r, 1000));
            na[i] = nb[i];
        }
        c = cat_of(na, n, 0);
        for (uint32_t i = 0; i < n; i++) {
            ts_gpu *g = &c->gpus[i];
            g->tflops = 1e-3 + ts_rng_double(&r) * 1000;
            g->mem_gib = 0.1 + ts_rng_double(&r) * 100;
            g->intra_gbps = 1 / 3.0 + ts_rng_double(&r) * 5000;
            g->efficiency = 1 - ts_rng_double(&r) * 0.999;
            if (ts_rng_below(&r, 2))
                g->note = strdup("measured \"in house\" \\ 2026");
        }
        check_round_trip(c);
        tsched_gpu_catalog_free(c);
    }
    ck_assert_status(tsched_gpu_catalog_to_json(NULL, c), TSCHED_E_INVALID);
    ck_assert_status(tsched_gpu_catalog_to_json(&s, NULL), TSCHED_E_INVALID);
}
END_TEST

/* ---- tsched.op-profile.v1 ---- */

static tsched_op_profile *load_prof(const char *json)
{
    tsched_op_profile *p = NULL;
    ck_assert_ok(tsched_op_profile_load_string(&p, json, strlen(json)));
    ck_assert_ptr_nonnull(p);
    return p;
}

static void assert_prof_eq(const tsched_op_profile *a, const tsched_op_profile *b)
{
    ck_assert_str_eq(a->gpu_type, b->gpu_type);
    ck_assert_uint_eq(a->nlayers, b->nlayers);
    for (uint32_t i = 0; i < a->nlayers; i++) {
        ck_assert(a->layers[i].time_s == b->layers[i].time_s);
        ck_assert(a->layers[i].params == b->layers[i].params);
        ck_assert(a->layers[i].act_bytes == b->layers[i].act_bytes);
        ck_assert(a->layers[i].out_bytes == b->layers[i].out_bytes);
    }
    ck_assert_uint_eq(a->ncoll, b->ncoll);
    for (uint32_t i = 0; i < a->ncoll; i++) {
        const ts_prof_coll *x = &a->coll[i], *y = &b->coll[i];
        ck_assert_int_eq(x->op, y->op);
        ck_assert_int_eq(x->inter, y->inter);
        ck_assert_uint_eq(x->ranks, y->ranks);
        ck_assert_uint_eq(x->npoints, y->npoints);
        for (uint32_t k = 0; k < x->npoints; k++) {
            ck_assert(x->bytes[k] == y->bytes[k]);
            ck_assert(x->secs[k] == y->secs[k]);
        }
    }
}

START_TEST(test_profile_load)
{
    tsched_op_profile *p = NULL;
    ck_assert_ok(tsched_op_profile_load_file(&p, IO_DATA "/profile-ok.json"));
    ck_assert_str_eq(tsched_op_profile_gpu_type(p), "A100");
    ck_assert_uint_eq(tsched_op_profile_layers(p), 3);
    ck_assert(p->layers[0].time_s == 0.0031);
    ck_assert(p->layers[1].params == 50343936);
    ck_assert(p->layers[1].act_bytes == 142606336);
    ck_assert(p->layers[1].out_bytes == 4194304);
    ck_assert(p->layers[2].time_s == 0.0045);
    ck_assert(p->layers[2].params == 0);
    ck_assert_uint_eq(p->ncoll, 4);
    /* Sorted by (op, scope, ranks): allreduce intra 4, allreduce inter 4, allgather intra 2, sendrecv inter 1. */
    ck_assert_int_eq(p->coll[0].op, TS_COLL_ALLREDUCE);
    ck_assert_int_eq(p->coll[0].inter, 0);
    ck_assert_int_eq(p->coll[1].op, TS_COLL_ALLREDUCE);
    ck_assert_int_eq(p->coll[1].inter, 1);
    ck_assert_uint_eq(p->coll[1].npoints, 3);
    ck_assert_int_eq(p->coll[2].op, TS_COLL_ALLGATHER);
    ck_assert_int_eq(p->coll[3].op, TS_COLL_SENDRECV);
    ck_assert_uint_eq(p->coll[3].ranks, 1);
    double t;
    /* Hand-computed: allreduce intra 4 through (0,0), (1048576, 9e-5), (67108864, 1.2e-3). */
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLREDUCE, 0, 4, 524288), 1);
    ck_assert_double_eq_tol(t, 4.5e-5, 1e-18);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLREDUCE, 0, 4, 1048576 + 66060288 / 2.0), 1);
    ck_assert_double_eq_tol(t, (9e-5 + 1.2e-3) / 2, 1e-15);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLREDUCE, 0, 4, 67108864 + 66060288), 1);
    ck_assert_double_eq_tol(t, 1.2e-3 + (1.2e-3 - 9e-5), 1e-15);
    /* sendrecv: one point, the line through (0, 0); any ranks argument is one pair. */
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_SENDRECV, 1, 1, 3 * 1048576.0), 1);
    ck_assert_double_eq_tol(t, 3e-4, 1e-16);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_SENDRECV, 1, 2, 1048576 / 2.0), 1);
    ck_assert_double_eq_tol(t, 5e-5, 1e-17);
    /* allgather with a zero first time: flat, then rising. */
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 0, 2, 500), 1);
    ck_assert(t == 0);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 0, 2, 1500), 1);
    ck_assert_double_eq_tol(t, 5e-6, 1e-18);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 0, 2, 0), 1);
    ck_assert(t == 0);
    /* No matching entry: other ranks, other scope, other op. */
    t = -1;
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLREDUCE, 0, 8, 100), 0);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 1, 2, 100), 0);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_SENDRECV, 0, 1, 100), 0);
    ck_assert(t == -1);
    ck_assert_int_eq(ts_profile_coll_time(&t, NULL, TS_COLL_SENDRECV, 0, 1, 100), 0);
    /* Clone. */
    tsched_op_profile *q = NULL;
    ck_assert_ok(ts_profile_clone(&q, p));
    assert_prof_eq(p, q);
    ck_assert_ptr_ne(p->coll[0].bytes, q->coll[0].bytes);
    tsched_op_profile_free(p);
    tsched_op_profile_free(q);
    ck_assert_status(ts_profile_clone(&q, NULL), TSCHED_E_INVALID);
    ck_assert_ptr_null(tsched_op_profile_gpu_type(NULL));
    ck_assert_uint_eq(tsched_op_profile_layers(NULL), 0);
    tsched_op_profile_free(NULL);
    /* Without collectives. */
    p = load_prof("{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"T4\", \"layers\": [{\"time_s\": 1, "
                  "\"params\": 0, \"act_bytes\": 0, \"out_bytes\": 0}]}");
    ck_assert_uint_eq(p->ncoll, 0);
    ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLREDUCE, 0, 2, 100), 0);
    ck_assert_ok(ts_profile_clone(&q, p));
    assert_prof_eq(p, q);
    tsched_op_profile_free(q);
    tsched_op_profile_free(p);
}
END_TEST

START_TEST(test_profile_bad_files)
{
    static const struct {
        const char *file;
        tsched_status st;
        const char *msg;
    } cases[] = {
        {"profile-unsorted.json", TSCHED_E_RANGE, "collectives[0].points[2]: bytes 100 not above the previous 200"},
        {"profile-bad-op.json", TSCHED_E_FORMAT,
         "collectives[0].op: unknown value \"reduce\"; expected allreduce, allgather or sendrecv"},
        {"profile-bad-scope.json", TSCHED_E_FORMAT, "collectives[0].scope: unknown value \"pod\"; expected intra or inter"},
        {"profile-bad-ranks.json", TSCHED_E_RANGE, "collectives[0].ranks: 1 is out of range [2, 16777216]"},
        {"profile-duplicate.json", TSCHED_E_DUPLICATE,
         "collectives[2]: duplicate entry (allreduce, inter, ranks 8) (also collectives[0])"},
        {"profile-missing-time.json", TSCHED_E_NOT_FOUND, "layers[1].time_s: missing required field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[640];
        snprintf(path, sizeof path, "%s/%s", IO_DATA, cases[i].file);
        tsched_op_profile *p = (tsched_op_profile *)&path;
        ck_assert_status(tsched_op_profile_load_file(&p, path), cases[i].st);
        ck_assert_ptr_null(p);
        snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
        ck_assert_str_eq(tsched_last_error(), want);
    }
}
END_TEST

START_TEST(test_profile_bad_strings)
{
#define DOC(l, c) "{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"A100\", \"layers\": [" l "]" c "}"
#define L1 "{\"time_s\": 1, \"params\": 1, \"act_bytes\": 1, \"out_bytes\": 1}"
#define C1(x) ", \"collectives\": [" x "]"
    static const struct {
        const char *json;
        tsched_status st;
        const char *msg;
    } cases[] = {
        {"{\"format\": \"tsched.op-profile.v1\", \"layers\": [" L1 "]}", TSCHED_E_NOT_FOUND, "gpu_type: missing"},
        {"{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"\", \"layers\": [" L1 "]}", TSCHED_E_RANGE,
         "gpu_type: must not be empty"},
        {"{\"format\": \"tsched.gpus.v1\", \"gpu_type\": \"A\", \"layers\": [" L1 "]}", TSCHED_E_FORMAT, "format:"},
        {"{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"A\"}", TSCHED_E_NOT_FOUND, "layers: missing"},
        {DOC("", ""), TSCHED_E_RANGE, "layers: expected at least one entry"},
        {DOC("[]", ""), TSCHED_E_TYPE, "layers[0]: expected an object, got array"},
        {DOC("{\"time_s\": 0, \"params\": 1, \"act_bytes\": 1, \"out_bytes\": 1}", ""), TSCHED_E_RANGE,
         "layers[0].time_s: 0 is out of range (> 0)"},
        {DOC(L1 ", {\"time_s\": 1, \"params\": -1, \"act_bytes\": 1, \"out_bytes\": 1}", ""), TSCHED_E_RANGE,
         "layers[1].params: -1 is out of range (>= 0)"},
        {DOC("{\"time_s\": 1, \"params\": 1, \"act_bytes\": -3, \"out_bytes\": 1}", ""), TSCHED_E_RANGE,
         "layers[0].act_bytes: -3 is out of range (>= 0)"},
        {DOC("{\"time_s\": 1, \"params\": 1, \"act_bytes\": 1}", ""), TSCHED_E_NOT_FOUND,
         "layers[0].out_bytes: missing required field"},
        {DOC("{\"time_s\": 1e10, \"params\": 1, \"act_bytes\": 1, \"out_bytes\": 1}", ""), TSCHED_E_RANGE,
         "layers[0].time_s: 1e+10 is out of range (0, 1e+09]"},
        {DOC(L1, ", \"collectives\": 3"), TSCHED_E_TYPE, "collectives: expected an array"},
        {DOC(L1, C1("{\"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, 1]]}")), TSCHED_E_NOT_FOUND,
         "collectives[0].op: missing"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"ranks\": 2, \"points\": [[1, 1]]}")), TSCHED_E_NOT_FOUND,
         "collectives[0].scope: missing"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"points\": [[1, 1]]}")), TSCHED_E_NOT_FOUND,
         "collectives[0].ranks: missing"},
        {DOC(L1, C1("{\"op\": \"allgather\", \"scope\": \"intra\", \"ranks\": 0, \"points\": [[1, 1]]}")),
         TSCHED_E_RANGE, "collectives[0].ranks: 0 is out of range [2, 16777216]"},
        {DOC(L1, C1("{\"op\": \"sendrecv\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, 1]]}")),
         TSCHED_E_RANGE, "collectives[0].ranks: 2 is out of range (sendrecv is one pair: 1)"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2}")), TSCHED_E_NOT_FOUND,
         "collectives[0].points: missing"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": []}")), TSCHED_E_RANGE,
         "collectives[0].points: expected at least one [bytes, seconds] point"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [5]}")), TSCHED_E_TYPE,
         "collectives[0].points[0]: expected [bytes, seconds], got integer"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, 2, 3]]}")),
         TSCHED_E_TYPE, "collectives[0].points[0]: expected [bytes, seconds], got an array of 3 values"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, \"x\"]]}")),
         TSCHED_E_TYPE, "collectives[0].points[0]: seconds: expected a number, got string"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[0, 1]]}")),
         TSCHED_E_RANGE, "collectives[0].points[0]: bytes 0 is out of range (0, 1e+18]"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, -1]]}")),
         TSCHED_E_RANGE, "collectives[0].points[0]: seconds -1 is out of range [0, 1e+09]"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, 1], [1, 2]]}")),
         TSCHED_E_RANGE, "collectives[0].points[1]: bytes 1 not above the previous 1"},
        {DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, \"points\": [[1, 1], [2, 0.5]]}")),
         TSCHED_E_RANGE, "collectives[0].points[1]: seconds 0.5 below the previous 1"},
        {DOC(L1, C1("{\"op\": \"sendrecv\", \"scope\": \"intra\", \"points\": [[1, 1]]}, "
                    "{\"op\": \"sendrecv\", \"scope\": \"intra\", \"ranks\": 1, \"points\": [[2, 1]]}")),
         TSCHED_E_DUPLICATE, "collectives[1]: duplicate entry (sendrecv, intra, ranks 1) (also collectives[0])"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsched_op_profile *p = NULL;
        tsched_status st = tsched_op_profile_load_string(&p, cases[i].json, strlen(cases[i].json));
        ck_assert_msg(st == cases[i].st, "case %zu: %s (%s)", i, tsched_status_str(st), tsched_last_error());
        ck_assert_ptr_null(p);
        ck_assert_msg(strncmp(tsched_last_error(), cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: \"%s\"", i,
                      tsched_last_error());
    }
    /* Equal seconds are fine (non-decreasing), and a same key with another scope is not a duplicate. */
    tsched_op_profile *p = load_prof(DOC(L1, C1("{\"op\": \"allreduce\", \"scope\": \"intra\", \"ranks\": 2, "
                                                "\"points\": [[1, 1], [2, 1]]}, {\"op\": \"allreduce\", \"scope\": "
                                                "\"inter\", \"ranks\": 2, \"points\": [[1, 1]]}")));
    ck_assert_uint_eq(p->ncoll, 2);
    tsched_op_profile_free(p);
#undef DOC
#undef L1
#undef C1
}
END_TEST

/* Reference interpolation: walk the segments from (0, 0). */
static double ref_interp(const double *b, const double *s, uint32_t n, double x)
{
    double pb = 0, ps = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (x <= b[k])
            return ps + (s[k] - ps) * (x - pb) / (b[k] - pb);
        pb = b[k];
        ps = s[k];
    }
    double b0 = n >= 2 ? b[n - 2] : 0, s0 = n >= 2 ? s[n - 2] : 0;
    return s[n - 1] + (s[n - 1] - s0) / (b[n - 1] - b0) * (x - b[n - 1]);
}

START_TEST(test_profile_interp_random)
{
    ts_rng r;
    ts_rng_seed(&r, 33);
    for (unsigned iter = 0; iter < tu_n(300); iter++) {
        uint32_t n = 1 + (uint32_t)ts_rng_below(&r, 12);
        double b[12], s[12], pb = 0, ps = 0;
        /* Build the JSON; points ascending with non-decreasing seconds (some flat). */
        char json[4096];
        int len = snprintf(json, sizeof json,
                           "{\"format\": \"tsched.op-profile.v1\", \"gpu_type\": \"X\", \"layers\": [{\"time_s\": 1, "
                           "\"params\": 0, \"act_bytes\": 0, \"out_bytes\": 0}], \"collectives\": [{\"op\": "
                           "\"allgather\", \"scope\": \"inter\", \"ranks\": %u, \"points\": [",
                           2 + (unsigned)ts_rng_below(&r, 30));
        for (uint32_t k = 0; k < n; k++) {
            b[k] = pb + 1 + (double)ts_rng_below(&r, 1u << 20);
            s[k] = ps + (ts_rng_below(&r, 4) ? (double)ts_rng_below(&r, 1000) * 1e-6 : 0);
            pb = b[k];
            ps = s[k];
            len += snprintf(json + len, sizeof json - (size_t)len, "%s[%.17g, %.17g]", k ? ", " : "", b[k], s[k]);
        }
        snprintf(json + len, sizeof json - (size_t)len, "]}]}");
        tsched_op_profile *p = load_prof(json);
        uint32_t ranks = p->coll[0].ranks;
        for (int q = 0; q < 40; q++) {
            /* Points on, between, below and beyond the given ones. */
            double x;
            switch (q % 4) {
            case 0: x = b[ts_rng_below(&r, n)]; break;
            case 1: x = ts_rng_double(&r) * b[0]; break;
            case 2: x = ts_rng_double(&r) * b[n - 1]; break;
            default: x = b[n - 1] * (1 + 3 * ts_rng_double(&r)); break;
            }
            double t = -1, want = ref_interp(b, s, n, x);
            ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 1, ranks, x), 1);
            ck_assert_msg(fabs(t - want) <= 1e-12 * fmax(1, fabs(want)), "x %.17g: %.17g vs %.17g", x, t, want);
            if (q % 4 == 0) /* exactly a point's time on a point */
                for (uint32_t k = 0; k < n; k++)
                    if (x == b[k])
                        ck_assert_double_eq_tol(t, s[k], 1e-15);
            ck_assert(t >= 0);
        }
        /* Monotone in bytes. */
        double prev = 0;
        for (int k = 0; k <= 100; k++) {
            double t;
            ck_assert_int_eq(ts_profile_coll_time(&t, p, TS_COLL_ALLGATHER, 1, ranks, b[n - 1] * 1.5 * k / 100), 1);
            ck_assert(t >= prev - 1e-15);
            prev = t;
        }
        tsched_op_profile *c = NULL;
        ck_assert_ok(ts_profile_clone(&c, p));
        assert_prof_eq(p, c);
        tsched_op_profile_free(c);
        tsched_op_profile_free(p);
    }
}
END_TEST

/* ---- pools ---- */

/* A hand-built heterogeneous fabric: two leaves under one spine.
 *   a0 A100 x8, 4 NICs of 200  (U 100)    a1 A100 x8, 2 NICs of 200 (U 50)
 *   a2 A100 x4, 1 x 100 (U 25)
 *   t0 T4 x2, 1 x 25 (12.5)   t1 T4 x2, 2 x 25 (25)   v0 V100M16 x16, 8 x 100 (50)
 *   a3 A100 x16, 2 x 400 (50)  g0 G2 x8, 1 x 100 (12.5) */
static tsched_topology *hetero_fabric(void)
{
    tsched_topology *t = tu_two_leaves_start("hetero", 400, 2);
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a0", "leaf0", 8, 4, "A100", 200));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "t0", "leaf0", 2, 1, "T4", 25));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a1", "leaf1", 8, 2, "A100", 200));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "v0", "leaf1", 16, 8, "V100M16", 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a2", "leaf0", 4, 1, "A100", 100));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "t1", "leaf1", 2, 2, "T4", 25));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "a3", "leaf0", 16, 2, "A100", 400));
    ck_assert_ok(tsched_topology_add_node(NULL, t, "g0", "leaf1", 8, 1, "G2", 100));
    ck_assert_ok(tsched_topology_build(t));
    return t;
}

START_TEST(test_pools_hand)
{
    tsched_topology *t = hetero_fabric();
    ts_pools p;
    ck_assert_ok(ts_pools_build(&p, t));
    static const struct {
        const char *name, *type;
        uint32_t G;
        double U;
        const char *nodes[3];
    } want[] = {
        {"A100/16", "A100", 16, 50, {"a3"}},  {"A100/4", "A100", 4, 25, {"a2"}},
        {"A100/8", "A100", 8, 50, {"a0", "a1"}}, {"G2/8", "G2", 8, 12.5, {"g0"}},
        {"T4/2", "T4", 2, 12.5, {"t0", "t1"}}, {"V100M16/16", "V100M16", 16, 50, {"v0"}},
    };
    ck_assert_uint_eq(p.n, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < p.n; i++) {
        ck_assert_str_eq(p.p[i].name, want[i].name);
        ck_assert_str_eq(p.p[i].gpu_type, want[i].type);
        ck_assert_uint_eq(p.p[i].G, want[i].G);
        ck_assert(p.p[i].U_gbps == want[i].U);
        uint32_t k = 0;
        while (k < 3 && want[i].nodes[k])
            k++;
        ck_assert_uint_eq(p.p[i].nnodes, k);
        for (uint32_t j = 0; j < k; j++)
            ck_assert_uint_eq(p.p[i].nodes[j], tu_node(t, want[i].nodes[j]));
        ck_assert_uint_eq(ts_pools_find(&p, want[i].name), i);
    }
    ck_assert_uint_eq(ts_pools_find(&p, "A100/2"), UINT32_MAX);
    ck_assert_uint_eq(ts_pools_find(&p, "CPU/0"), UINT32_MAX);
    ck_assert_uint_eq(ts_pools_find(&p, "Z"), UINT32_MAX);
    ts_pools_free(&p);

    char **names = NULL;
    uint32_t n = 99;
    ck_assert_ok(tsched_cell_pools(&names, &n, t));
    ck_assert_uint_eq(n, 6);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_str_eq(names[i], want[i].name);
    tsched_free(names); /* one allocation */
    /* Down and busy nodes still belong to their pools. */
    ck_assert_ok(tsched_topology_set_node_up(t, tu_node(t, "a0"), 0));
    ck_assert_ok(ts_pools_build(&p, t));
    ck_assert_uint_eq(p.p[ts_pools_find(&p, "A100/8")].nnodes, 2);
    ts_pools_free(&p);
    tsched_topology_free(t);
}
END_TEST

START_TEST(test_pools_empty_and_errors)
{
    tsched_topology *t = NULL;
    /* The fabric rejects nodes without GPUs, so "no pool" means "no node". */
    ck_assert_ok(tsched_topology_new(&t, "empty"));
    ck_assert_ok(tsched_topology_add_switch(NULL, t, "leaf0", 0, NULL));
    ts_pools p;
    /* Not built yet. */
    ck_assert_status(ts_pools_build(&p, t), TSCHED_E_INVALID);
    char **names = (char **)&p;
    uint32_t n = 5;
    ck_assert_status(tsched_cell_pools(&names, &n, t), TSCHED_E_INVALID);
    ck_assert_ok(tsched_topology_build(t));
    ck_assert_ok(tsched_cell_pools(&names, &n, t));
    ck_assert_ptr_null(names);
    ck_assert_uint_eq(n, 0);
    ck_assert_ok(ts_pools_build(&p, t));
    ck_assert_uint_eq(p.n, 0);
    ts_pools_free(&p);
    ck_assert_status(tsched_cell_pools(NULL, &n, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_cell_pools(&names, NULL, t), TSCHED_E_INVALID);
    ck_assert_status(tsched_cell_pools(&names, &n, NULL), TSCHED_E_INVALID);
    tsched_topology_free(t);
}
END_TEST

/* Random heterogeneous fabrics: pools against a recount by (type, G) over every node pair. */
START_TEST(test_pools_random)
{
    static const char *const types[] = {"A100", "T4", "V100M16", "G2", "A10", "A100-40G"};
    static const uint32_t gpus[] = {1, 2, 4, 8, 16, 3};
    static const double gbps[] = {25, 100, 200, 400};
    ts_rng r;
    ts_rng_seed(&r, 2026);
    for (unsigned iter = 0; iter < tu_n(60); iter++) {
        tsched_topology *t = NULL;
        ck_assert_ok(tsched_topology_new(&t, "rnd"));
        uint32_t leaves = 1 + (uint32_t)ts_rng_below(&r, 3), nn = 1 + (uint32_t)ts_rng_below(&r, 40);
        ck_assert_ok(tsched_topology_add_switch(NULL, t, "spine", 1, NULL));
        for (uint32_t l = 0; l < leaves; l++) {
            char nm[16];
            snprintf(nm, sizeof nm, "leaf%u", l);
            ck_assert_ok(tsched_topology_add_switch(NULL, t, nm, 0, NULL));
            ck_assert_ok(tsched_topology_add_link(t, nm, "spine", 400, 1));
        }
        for (uint32_t v = 0; v < nn; v++) {
            char nm[16], lf[16];
            snprintf(nm, sizeof nm, "n%u", v);
            snprintf(lf, sizeof lf, "leaf%u", (unsigned)ts_rng_below(&r, leaves));
            ck_assert_ok(tsched_topology_add_node(NULL, t, nm, lf, gpus[ts_rng_below(&r, 6)],
                                                  1 + (uint32_t)ts_rng_below(&r, 8), types[ts_rng_below(&r, 6)],
                                                  gbps[ts_rng_below(&r, 4)]));
        }
        ck_assert_ok(tsched_topology_build(t));
        ts_pools p;
        ck_assert_ok(ts_pools_build(&p, t));
        /* Every node with GPUs is in exactly the pool of its (type, G); U is the min. */
        uint32_t total = 0;
        for (uint32_t i = 0; i < p.n; i++) {
            if (i)
                ck_assert_int_lt(strcmp(p.p[i - 1].name, p.p[i].name), 0);
            char want[64];
            snprintf(want, sizeof want, "%s/%u", p.p[i].gpu_type, p.p[i].G);
            ck_assert_str_eq(p.p[i].name, want);
            double u = INFINITY;
            uint32_t cnt = 0;
            for (uint32_t v = 0; v < nn; v++) {
                if (tsched_topology_node_gpus(t, v) != p.p[i].G ||
                    strcmp(tsched_topology_node_gpu_type(t, v), p.p[i].gpu_type) != 0)
                    continue;
                ck_assert_uint_lt(cnt, p.p[i].nnodes);
                ck_assert_uint_eq(p.p[i].nodes[cnt], v); /* ascending, complete */
                cnt++;
                u = fmin(u, tsched_topology_node_nics(t, v) * tsched_topology_node_nic_gbps(t, v) / p.p[i].G);
            }
            ck_assert_uint_eq(cnt, p.p[i].nnodes);
            ck_assert_uint_gt(p.p[i].G, 0);
            ck_assert(p.p[i].U_gbps == u);
            total += cnt;
        }
        ck_assert_uint_eq(total, nn);
        char **names;
        uint32_t n;
        ck_assert_ok(tsched_cell_pools(&names, &n, t));
        ck_assert_uint_eq(n, p.n);
        for (uint32_t i = 0; i < n; i++)
            ck_assert_str_eq(names[i], p.p[i].name);
        tsched_free(names);
        ts_pools_free(&p);
        tsched_topology_free(t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cell-io");
    TCase *tc = tcase_create("catalogue");
    tcase_add_test(tc, test_builtin_table);
    tcase_add_test(tc, test_catalog_lookups);
    tcase_add_test(tc, test_catalog_clone);
    tcase_add_test(tc, test_catalog_merge);
    tcase_add_test(tc, test_catalog_merge_random);
    tcase_add_test(tc, test_catalog_load_file);
    tcase_add_test(tc, test_catalog_bad_files);
    tcase_add_test(tc, test_catalog_bad_strings);
    tcase_add_test(tc, test_catalog_round_trip);
    suite_add_tcase(s, tc);
    tc = tcase_create("profile");
    tcase_add_test(tc, test_profile_load);
    tcase_add_test(tc, test_profile_bad_files);
    tcase_add_test(tc, test_profile_bad_strings);
    tcase_add_test(tc, test_profile_interp_random);
    suite_add_tcase(s, tc);
    tc = tcase_create("pools");
    tcase_add_test(tc, test_pools_hand);
    tcase_add_test(tc, test_pools_empty_and_errors);
    tcase_add_test(tc, test_pools_random);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
