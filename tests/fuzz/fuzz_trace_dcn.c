/* libFuzzer target: convert-dcn (ts_trace_dcn_*) on any bytes. The first byte picks the
 * options (--iterations 1 + its low 4 bits, --arrival-window-s from its high bits, 0 to
 * 7e9); the rest is cut at each line "--" into job files job_0-F.txt, job_1-F.txt, ... (at
 * most 8). Every input gives a status, never a crash, a leak or a hang, and whatever is
 * accepted loads in the trace reader (fuzz_trace_common.h). */
#include "fuzz_trace_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    ts_trace_opts o;
    ts_trace_opts_init(&o, 1);
    o.seed = data[0];
    ts_trace_err err;
    err.msg[0] = '\0';
    ts_trace_dcn *d = NULL;
    tsched_status st = ts_trace_dcn_begin(&d, "fuzz/ring_size_2", 1 + (data[0] & 15), (data[0] >> 4) * 5e8, &o, &err);
    if (st != TSCHED_OK)
        abort();
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    for (int k = 0; k < 8 && st == TSCHED_OK && p <= end; k++) {
        const char *cut = NULL;
        for (const char *q = p; q + 4 <= end && !cut; q++)
            if (memcmp(q, "\n--\n", 4) == 0)
                cut = q + 1;
        size_t len = (size_t)((cut ? cut : end) - p);
        char file[32], path[48];
        snprintf(file, sizeof file, "job_%d-F.txt", k);
        snprintf(path, sizeof path, "fuzz/%s", file);
        st = ts_trace_dcn_add(d, p, len, path, file, &err);
        if (!cut)
            break;
        p = cut + 3;
    }
    json_t *doc = NULL;
    if (st == TSCHED_OK)
        st = ts_trace_dcn_finish(&doc, d, &err);
    else
        ts_trace_dcn_free(d);
    fuzz_check(st, doc, &err);
    return 0;
}
