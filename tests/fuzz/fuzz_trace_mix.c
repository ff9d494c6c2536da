/* libFuzzer target: the tsched.model-mix.v1 reader (ts_trace_mix_parse) on any bytes; a mix
 * it accepts drives the Poisson generator (6 jobs of 32, 64 or 96 GPUs, 8 GPUs a node) and a
 * two-pod Alibaba CSV. Every input gives a status, never a crash, a leak or a hang, and
 * whatever is accepted loads in the trace reader (fuzz_trace_common.h). */
#include "fuzz_trace_common.h"

static const char pods[] = "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\n"
                           "a,8,1000,Succeeded,10,500,20\nb,3,,Running,30,,40\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_trace_mix *mx = NULL;
    ts_trace_err err;
    err.msg[0] = '\0';
    tsched_status st = ts_trace_mix_parse(&mx, (const char *)data, size, "fuzz-mix.json", &err);
    if (st != TSCHED_OK) {
        if (mx || err.msg[0] == '\0')
            abort();
        return 0;
    }
    ts_trace_opts o;
    ts_trace_opts_init(&o, 1000);
    o.mix = mx;
    o.seed = size;
    json_t *doc = NULL;
    st = ts_trace_poisson(&doc, 6, 10, "32:1,64:2,96:1", "exp:100", &o, &err);
    fuzz_check(st, doc, &err);
    doc = NULL;
    st = ts_trace_alibaba(&doc, pods, sizeof pods - 1, "pods.csv", 1, &o, &err);
    fuzz_check(st, doc, &err);
    ts_trace_mix_free(mx);
    return 0;
}
