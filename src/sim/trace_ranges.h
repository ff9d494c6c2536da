/* Internal: the ranges of the tsched.trace.v1 fields that do not depend on the fabric, exactly
 * as the trace reader (trace_load.c) accepts them (doc/FORMATS.md). Writers of traces (the
 * converters, trace_convert.h) check every value they write with these, so that whatever they
 * write, `simulate` loads. trace_load.c reads with the same constants (TS_SIM_MAX_S,
 * ts_sim_ns, TS_TRACE_COUNT_MAX). */
#ifndef TS_SIM_TRACE_RANGES_H
#define TS_SIM_TRACE_RANGES_H

#include "sim_api.h"

/* Largest time in seconds a trace holds (arrival_s, duration_s; compute_ms is 1e3 times it). */
#define TS_TRACE_MAX_S TS_SIM_MAX_S
/* Largest `iterations`: a whole number up to 2^53 (the largest a JSON real holds exactly). */
#define TS_TRACE_COUNT_MAX UINT64_C(9007199254740992)
/* Whole-number fields read as 32-bit counts: gpus, tp, pp, repeat, src, dst, NICs. */
#define TS_TRACE_U32_MAX UINT32_MAX

/* `arrival_s`: a finite number in [0, 9.2e9]. */
static inline int ts_trace_arrival_ok(double s) { return s >= 0 && s <= TS_TRACE_MAX_S; }

/* A duration of v units of `unit_s` seconds (`duration_s`: 1, `compute_ms`: 1e-3): finite, in
 * (0, 9.2e9 s], and at least the clock's nanosecond once rounded (doc/sim.md §1.1). */
static inline int ts_trace_duration_ok(double v, double unit_s)
{
    return v > 0 && v <= TS_TRACE_MAX_S / unit_s && ts_sim_ns(v * unit_s) > 0;
}

/* The bounds of ts_trace_duration_ok as messages print them: the least accepted value is half
 * a nanosecond (it rounds up to 1 ns). */
#define TS_TRACE_DURATION_S_RANGE "[5e-10, 9.2e9]"
#define TS_TRACE_COMPUTE_MS_RANGE "[5e-7, 9.2e12]"

/* `gbits` of a phase or a flow: finite and > 0. */
static inline int ts_trace_gbits_ok(double g) { return g > 0 && g <= 1.7976931348623157e308; }

#endif
