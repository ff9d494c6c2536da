/* Limits are per thread, like the last error: a host that serves several tenants from
 * several threads can bound each one's input without a lock or a global. */
#include "limits.h"

#include <stdio.h>
#include <string.h>

#include "structsize.h"

static const tsched_limits defaults = {
    .size = sizeof(tsched_limits),
    .input_bytes = 256ull << 20,
    .nodes = 1u << 20,
    .switches = 1u << 18,
    .nics_per_node = 256,
    .gpus_per_node = 1024,
    .trunks = 1u << 22,
    .name_bytes = 255,
    .flows = 1u << 26,
    .kcut_orders = 10000,
    .kcut_levels = 64,
    .dag_nodes = 1u << 24,
    .kcut_memory = 1ull << 30,
    .sim_events = 1ull << 28,
    .output_bytes = 256ull << 20,
    .members = 1u << 20,
};

/* Hard ceilings: indices stay in 32 bits and one element's arrays stay small. */
static const tsched_limits ceilings = {
    .size = sizeof(tsched_limits),
    .input_bytes = UINT64_MAX,
    .nodes = 1u << 22,
    .switches = 1u << 20,
    .nics_per_node = 256,
    .gpus_per_node = 1024,
    .trunks = 1u << 22,
    .name_bytes = 4096,
    .flows = UINT32_MAX - 1,
    .kcut_orders = UINT32_MAX - 1,
    .kcut_levels = 1u << 16,
    .dag_nodes = 1u << 26,
    .kcut_memory = UINT64_MAX,
    .sim_events = UINT64_MAX,
    .output_bytes = UINT64_MAX,
    .members = 1u << 24,
};

static const ts_span spans[] = {
    TS_SPAN(tsched_limits, size),          TS_SPAN(tsched_limits, input_bytes), TS_SPAN(tsched_limits, nodes),
    TS_SPAN(tsched_limits, switches),      TS_SPAN(tsched_limits, nics_per_node),
    TS_SPAN(tsched_limits, gpus_per_node), TS_SPAN(tsched_limits, trunks),      TS_SPAN(tsched_limits, name_bytes),
    TS_SPAN(tsched_limits, flows),         TS_SPAN(tsched_limits, kcut_orders), TS_SPAN(tsched_limits, kcut_levels),
    TS_SPAN(tsched_limits, dag_nodes),     TS_SPAN(tsched_limits, kcut_memory),
    TS_SPAN(tsched_limits, sim_events),    TS_SPAN(tsched_limits, output_bytes), TS_SPAN(tsched_limits, members),
};

static _Thread_local tsched_limits cur;
static _Thread_local int cur_set;

const tsched_limits *ts_limits(void)
{
    if (!cur_set) {
        cur = defaults;
        cur_set = 1;
    }
    return &cur;
}

tsched_status ts_limit_error(const char *what, unsigned long long value, const char *field, unsigned long long limit)
{
    return ts_error(TSCHED_E_TOO_LARGE, "%s: %llu exceeds the limit %s = %llu (raise it with tsched_limits_set or topo-sched --limit)", what,
                    value, field, limit);
}

tsched_status tsched_limits_get(tsched_limits *limits)
{
    if (!limits)
        return ts_error(TSCHED_E_INVALID, "tsched_limits_get: limits is NULL");
    return ts_struct_out(limits, ts_limits(), spans, TS_NSPANS(spans), sizeof(tsched_limits), "tsched_limits");
}

#define CHECK_FIELD(f)                                                                                                \
    do {                                                                                                              \
        if (next.f == 0)                                                                                              \
            next.f = defaults.f;                                                                                      \
        else if (next.f > ceilings.f)                                                                                 \
            return ts_error(TSCHED_E_RANGE, "tsched_limits." #f ": %llu is above the ceiling %llu",                   \
                            (unsigned long long)next.f, (unsigned long long)ceilings.f);                              \
    } while (0)

tsched_status tsched_limits_set(const tsched_limits *limits)
{
    if (!limits)
        return ts_error(TSCHED_E_INVALID, "tsched_limits_set: limits is NULL");
    tsched_limits next = *ts_limits();
    tsched_status st = ts_struct_in(&next, limits, spans, TS_NSPANS(spans), sizeof next, "tsched_limits");
    if (st != TSCHED_OK)
        return st;
    CHECK_FIELD(input_bytes);
    CHECK_FIELD(nodes);
    CHECK_FIELD(switches);
    CHECK_FIELD(nics_per_node);
    CHECK_FIELD(gpus_per_node);
    CHECK_FIELD(trunks);
    CHECK_FIELD(name_bytes);
    CHECK_FIELD(flows);
    CHECK_FIELD(kcut_orders);
    CHECK_FIELD(kcut_levels);
    CHECK_FIELD(dag_nodes);
    CHECK_FIELD(kcut_memory);
    CHECK_FIELD(sim_events);
    CHECK_FIELD(output_bytes);
    CHECK_FIELD(members);
    next.size = sizeof next;
    cur = next;
    cur_set = 1;
    return TSCHED_OK;
}

void tsched_limits_reset(void)
{
    cur = defaults;
    cur_set = 1;
}
