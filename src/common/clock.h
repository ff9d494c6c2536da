/* Internal: the monotonic clock that time limits and solve times are measured on. */
#ifndef TS_COMMON_CLOCK_H
#define TS_COMMON_CLOCK_H

/* Seconds of CLOCK_MONOTONIC (an arbitrary origin; only differences mean anything). */
double ts_monotonic_s(void);
/* The same clock in milliseconds. */
double ts_now_ms(void);

#endif
