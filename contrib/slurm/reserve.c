/* The pure parts of the placer's reservation rule (Arnold App. G, Algorithm 1; doc/slurm.md
 * "Reservation"): which job is imminent, when a job is predicted to end, and the reason a
 * delayed job is held with. The decision itself is the library's tsched_reservation_admit;
 * cycle.c calls these with what libslurm reports. No Slurm here (tested without it). */
#include <float.h>
#include <stdio.h>
#include <time.h>

#include "placer.h"

int ps_reserve_imminent(int64_t begin, int64_t now, unsigned horizon_s)
{
    /* begin <= now: Slurm may start it now, so it is an ordinary job, not an arrival */
    return horizon_s > 0 && begin > now && begin - now <= (int64_t)horizon_s;
}

size_t ps_reserve_pick(const int64_t *begins, size_t n, int64_t now, unsigned horizon_s)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (ps_reserve_imminent(begins[i], now, horizon_s) && (best == n || begins[i] < begins[best]))
            best = i; /* strict <: on a tie the first (the lower job id) keeps it */
    return best;
}

double ps_reserve_predicted_end(int64_t now, uint32_t time_limit_min)
{
    /* INFINITE and NO_VAL (slurm.h: 0xffffffff, 0xfffffffe) never end; the library wants a
     * finite time, and DBL_MAX is after every arrival */
    if (time_limit_min >= PS_TIME_NO_VAL)
        return DBL_MAX;
    return (double)now + 60.0 * (double)time_limit_min;
}

void ps_reserve_delay_reason(char *dst, size_t cap, uint32_t reserved_id, int64_t arrival)
{
    char when[32] = "?";
    time_t t = (time_t)arrival;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(dst, cap, "delayed: nodes reserved for job %u arriving at %s", reserved_id, when);
}
