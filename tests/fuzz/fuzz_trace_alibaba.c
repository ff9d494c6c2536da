/* libFuzzer target: convert-alibaba (ts_trace_alibaba) on any bytes. The first byte picks
 * the options (bit 0: a model mix, bit 1: --scale-gpus 2, the rest: the seed); the rest is
 * the pod CSV. Every input gives a status, never a crash, a leak or a hang, and whatever is
 * accepted loads in the trace reader (fuzz_trace_common.h). */
#include "fuzz_trace_common.h"

static const char mix_doc[] =
    "{\"format\": \"tsched.model-mix.v1\", \"models\": ["
    "{\"name\": \"gpt\", \"weight\": 3, \"compute_ms\": 850, \"overlap\": 0.4, \"tp\": 4, \"pp\": 2,"
    " \"phases\": [{\"pattern\": \"dp-ring\", \"gbits\": 40.0}, {\"pattern\": \"pp\", \"gbits\": 0.8, \"repeat\": 8}]},"
    "{\"compute_ms\": 1e-3, \"model\": {\"hidden\": 64, \"layers\": 2, \"vocab\": 100, \"seq\": 8, \"global_batch\": 4,"
    " \"micro_batch\": 2}, \"phases\": [{\"pattern\": \"alltoall\"}, {\"flows\": [{\"src\": 0, \"dst\": 1, \"gbits\": 2}]}]}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    ts_trace_opts o;
    ts_trace_opts_init(&o, 1000);
    o.seed = data[0] >> 2;
    ts_trace_mix *mx = NULL;
    ts_trace_err err;
    if ((data[0] & 1) && ts_trace_mix_parse(&mx, mix_doc, sizeof mix_doc - 1, "mix", &err) != TSCHED_OK)
        abort();
    o.mix = mx;
    json_t *doc = NULL;
    err.msg[0] = '\0';
    tsched_status st = ts_trace_alibaba(&doc, (const char *)data + 1, size - 1, "fuzz.csv", data[0] & 2 ? 2 : 1, &o,
                                        &err);
    fuzz_check(st, doc, &err);
    ts_trace_mix_free(mx);
    return 0;
}
