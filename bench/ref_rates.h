/* The plain reference for max-min rates (issue 10, target 3): batched progressive filling
 * over flat arrays, written for the benchmark only (no library code). */
#ifndef TSCHED_BENCH_REF_RATES_H
#define TSCHED_BENCH_REF_RATES_H

#include <stdint.h>

/* Max-min fair rates of n flows. Flow i crosses links fl[off[i] .. off[i+1]) (flow-major,
 * one contiguous array); link x has capacity cap[x], x < nlinks. Ties between equal shares
 * go to the lower link, a flow with no link gets INFINITY. Returns 0, or -1 when out of
 * memory. */
int ref_rates_maxmin(double *rate, uint32_t n, const uint32_t *off, const uint32_t *fl, uint32_t nlinks,
                     const double *cap);

#endif
