/* The plain single-threaded K-cut reference of bench_kcut.c (ref_kcut.c). */
#ifndef TSCHED_BENCH_REF_KCUT_H
#define TSCHED_BENCH_REF_KCUT_H

#include <stdint.h>

typedef struct ref_dag {
    uint32_t n, m;
    const uint32_t *u, *v; /* edge k: u[k] -> v[k] of weight w[k], in insertion order */
    const double *w;
} ref_dag;

/* crux with `orders` orders from `seed`; 0, or -1 when out of memory or on a cycle. */
int ref_kcut(uint32_t *levels, double *cut, const ref_dag *d, uint32_t K, uint32_t orders, uint64_t seed);
/* Sum of w over the edges with levels[u] < levels[v], in edge order. */
double ref_cut_weight(const ref_dag *d, const uint32_t *levels);

#endif
