/* The JSON writer of src/common (shortest round-trip reals) against the jansson dump it
 * replaced (JSON_REAL_PRECISION(17)), on a routes-shaped document: N flows, each
 * { "index", "hops": [4 switch names], "rate_gbps" } with max-min-like rates (400 / k).
 *
 * usage: bench_json [--flows N] [--runs R] [--quick] */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/common/json_write.h"
#include "../src/common/numfmt.h"
#include "../src/common/rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long flows = 1000000, runs = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--flows") && i + 1 < argc)
            flows = atol(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atol(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            flows = 10000, runs = 1;
        else {
            fprintf(stderr, "usage: bench_json [--flows N] [--runs R] [--quick]\n");
            return 2;
        }
    }
    if (flows < 1 || runs < 1)
        return 2;
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "format", json_string("tsched.routes.v1"));
    json_object_set_new(root, "flows", arr);
    uint64_t seed = 88172645463325252u;
    for (long i = 0; i < flows; i++) {
        char name[4][24];
        uint64_t x = ts_splitmix64(&seed);
        snprintf(name[0], sizeof name[0], "leaf%lu", (unsigned long)(x % 512));
        snprintf(name[1], sizeof name[1], "spine%lu", (unsigned long)(x / 512 % 64));
        snprintf(name[2], sizeof name[2], "spine%lu", (unsigned long)(x / 32768 % 64));
        snprintf(name[3], sizeof name[3], "leaf%lu", (unsigned long)(x / 2097152 % 512));
        json_t *o = json_object(), *hops = json_array();
        for (int h = 0; h < 4; h++)
            json_array_append_new(hops, json_string(name[h]));
        json_object_set_new(o, "index", json_integer(i));
        json_object_set_new(o, "hops", hops);
        json_object_set_new(o, "rate_gbps", json_real(400.0 / (double)(1 + x / 4096 % 48)));
        json_array_append_new(arr, o);
    }
    double best_old = 1e30, best_new = 1e30;
    size_t len_old = 0, len_new = 0;
    for (long r = 0; r < runs; r++) {
        double t0 = now_s();
        char *a = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        double t1 = now_s();
        char *b = ts_json_write(root, TS_JSON_INDENT, &len_new);
        double t2 = now_s();
        if (!a || !b)
            return 3;
        len_old = strlen(a);
        free(a);
        free(b);
        if (t1 - t0 < best_old)
            best_old = t1 - t0;
        if (t2 - t1 < best_new)
            best_new = t2 - t1;
    }
    json_decref(root);
    /* the number printers alone, on the same kind of values */
    long nums = flows < 1000000 ? flows : 1000000;
    char buf[64];
    double t0 = now_s();
    for (long i = 0; i < nums; i++)
        snprintf(buf, sizeof buf, "%.17g", 400.0 / (double)(1 + i % 48));
    double t1 = now_s();
    for (long i = 0; i < nums; i++)
        ts_fmt_double(buf, sizeof buf, 400.0 / (double)(1 + i % 48));
    double t2 = now_s();
    printf("routes-shaped document, %ld flows (best of %ld runs)\n", flows, runs);
    printf("  jansson json_dumps, %%.17g reals   %8.3f s  %10zu bytes\n", best_old, len_old);
    printf("  ts_json_write, shortest reals     %8.3f s  %10zu bytes\n", best_new, len_new);
    printf("per number (%ld numbers): snprintf %%.17g %.0f ns, ts_fmt_double %.0f ns\n", nums,
           (t1 - t0) / (double)nums * 1e9, (t2 - t1) / (double)nums * 1e9);
    return 0;
}
