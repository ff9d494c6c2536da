/* Internal: the only source of randomness, always from an explicit seed
 * (xoshiro256** seeded through splitmix64), so results are reproducible byte for byte. */
#ifndef TS_COMMON_RNG_H
#define TS_COMMON_RNG_H

#include <stdint.h>

typedef struct ts_rng {
    uint64_t s[4];
} ts_rng;

/* splitmix64's output function (a bijective 64-bit mixer): hashes whose exact values are part
 * of a documented contract (ECMP in vclos and the simulator) are built from it. */
static inline uint64_t ts_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* One step of splitmix64: advance *x by the golden gamma and mix it. */
static inline uint64_t ts_splitmix64(uint64_t *x) { return ts_mix64(*x += UINT64_C(0x9E3779B97F4A7C15)); }

void ts_rng_seed(ts_rng *rng, uint64_t seed);
uint64_t ts_rng_next(ts_rng *rng);
/* Uniform integer in [0, n), unbiased; n = 0 gives 0. */
uint64_t ts_rng_below(ts_rng *rng, uint64_t n);
/* Uniform double in [0, 1). */
double ts_rng_double(ts_rng *rng);
/* Fisher-Yates shuffle of n uint32 values. */
void ts_rng_shuffle_u32(ts_rng *rng, uint32_t *a, uint32_t n);

#endif
