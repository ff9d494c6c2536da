/* The monotonic clock of time limits (clock.h). */
#include <time.h>

#include "clock.h"

double ts_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ts_now_ms(void) { return ts_monotonic_s() * 1e3; }
