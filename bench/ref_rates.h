/* The plain reference for max-min rates (issue 10 target 3, issue 26 item 5): batched
 * progressive filling over flat arrays, written for the benchmark only (no library code). */
#ifndef TSCHED_BENCH_REF_RATES_H
#define TSCHED_BENCH_REF_RATES_H

#include <stdint.h>

/* Max-min fair rates of n flows. Flow i crosses links fl[off[i] .. off[i+1]) (flow-major,
 * one contiguous array, at most 16 links a flow); link x has capacity cap[x], x < nlinks.
 * Ties between equal shares go to the lower link, a flow with no link gets INFINITY.
 * Everything it needs is allocated inside (a cold call). Returns 0, or -1 when out of
 * memory, or when n >= 2^28, a flow has more than 16 links or the records need 2^32 words
 * (the record format of ref_rates.c). */
int ref_rates_maxmin(double *rate, uint32_t n, const uint32_t *off, const uint32_t *fl, uint32_t nlinks,
                     const double *cap);

#endif
