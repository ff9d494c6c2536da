/* E6 helper (bench/experiments/e6_crius.py, doc/EXPERIMENTS.md): the reference Cell speed of
 * jobs, as the Crius scheduler defines it (design/cell.md §5 step 1: the best throughput over
 * pools at N = N_G, or over all its options when none is feasible there), read from the
 * library's own scheduler (tsched_crius_job_reference) so that the best-fit baseline of E6
 * runs on exactly the cost model placement crius uses. The experiment prefers
 * `topo-sched cells`; this program is its fallback when the CLI has no `cells`.
 *
 * usage: e6_reference TOPO GPUS_JSON < JOBS
 *   JOBS: one job per line, "name gpus hidden layers vocab seq global_batch"
 *   prints one line per job: "name reference_throughput" in sequences per second (0 when no
 *   Cell of the job is feasible on the fabric); the reference Cell's iteration time is
 *   global_batch / reference_throughput. Exit 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo-sched/cell.h"
#include "topo-sched/topology.h"
#include "topo-sched/workload.h"

static int fail(const char *what, tsched_status st)
{
    fprintf(stderr, "e6_reference: %s: %s: %s\n", what, tsched_status_str(st), tsched_last_error());
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: e6_reference TOPO GPUS_JSON < JOBS\n");
        return 2;
    }
    tsched_topology *t = NULL;
    tsched_gpu_catalog *cat = NULL, *extra = NULL;
    tsched_crius *cr = NULL;
    tsched_status st;
    if ((st = tsched_topology_load_file(&t, argv[1])) != TSCHED_OK)
        return fail(argv[1], st);
    if ((st = tsched_gpu_catalog_default(&cat)) != TSCHED_OK || (st = tsched_gpu_catalog_load_file(&extra, argv[2])) ||
        (st = tsched_gpu_catalog_merge(cat, extra)) != TSCHED_OK)
        return fail(argv[2], st);
    if ((st = tsched_crius_new(&cr, t, cat)) != TSCHED_OK)
        return fail("tsched_crius_new", st);
    char name[256];
    unsigned gpus, hidden, layers, vocab, seq, gb;
    uint32_t n = 0;
    while (scanf("%255s %u %u %u %u %u %u", name, &gpus, &hidden, &layers, &vocab, &seq, &gb) == 7) {
        tsched_job *job;
        tsched_model m;
        tsched_model_init(&m);
        m.hidden = hidden;
        m.layers = layers;
        m.vocab = vocab;
        m.seq = seq;
        m.global_batch = gb;
        m.micro_batch = 1;
        if ((st = tsched_job_new(&job, name, gpus, 1, 1)) != TSCHED_OK || (st = tsched_job_set_model(job, &m)) ||
            (st = tsched_crius_add_job(NULL, cr, job, 0)) != TSCHED_OK)
            return fail(name, st);
        tsched_job_free(job);
        n++;
    }
    /* one event: the references are known once every job's Cells are estimated */
    if (n && (st = tsched_crius_schedule(cr, TSCHED_CRIUS_ARRIVAL)) != TSCHED_OK)
        return fail("tsched_crius_schedule", st);
    for (uint32_t i = 0; i < n; i++) {
        double ref = tsched_crius_job_reference(cr, i);
        const char *jn = tsched_crius_job_name(cr, i);
        printf("%s %.17g\n", jn ? jn : "?", ref);
    }
    tsched_crius_free(cr);
    tsched_gpu_catalog_free(cat);
    tsched_gpu_catalog_free(extra);
    tsched_topology_free(t);
    return 0;
}
