/* topo-sched place -t TOPO -j JOB [--algo A] [--alpha A] [--seed N] [--time-limit-ms N]
 *                  [--hostfile FILE [--hostfile-per-task] [--tasks-per-node N]]
 *                  [--pod-order FILE [--index-label KEY]] [--no-timing] [--compact] [-o FILE] */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const place_algos[] = {"mip", "best-fit", "random-fit", "gpu-pack", "topo-aware", "exhaustive", NULL};

static int conv_algo(void *dst, const char *s) { return tsched_place_algo_from_name(dst, s) != TSCHED_OK; }

typedef struct place_args {
    const char *topo, *jobf, *out, *hostfile, *pod_order, *index_label;
    int timing, per_task, tpn_set, compact;
    unsigned tasks_per_node;
    tsched_place_options o;
} place_args;

static void place_init(void *v)
{
    place_args *a = v;
    memset(a, 0, sizeof *a);
    a->timing = 1;
    tsched_place_options_init(&a->o);
}

#define S place_args
static const cli_opt place_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-j", .type = CLI_OPT_FILE, .off = CLI_OFF(S, jobf), .arg = "JOB", .help = "the job, tsched.job.v1"},
    {.lng = "--algo", .type = CLI_OPT_ENUM, .names = place_algos, .conv = conv_algo, .off = CLI_OFF(S, o.algo),
     .arg = "A", .dflt = "mip", .help = "mip, best-fit, random-fit, gpu-pack, topo-aware, exhaustive"},
    {.lng = "--alpha", .type = CLI_OPT_DOUBLE, .min = 0, .max = 1, .off = CLI_OFF(S, o.alpha),
     .err = "is not a number in [0, 1]", .arg = "A", .dflt = "the job's alpha", .help = "DP/PP weight in [0, 1]"},
    {.lng = "--seed", .type = CLI_OPT_UINT, .flags = CLI_OPT_U64, .off = CLI_OFF(S, o.seed),
     .err = "is not a whole number", .arg = "N", .dflt = "1", .help = "seed of random-fit"},
    {.lng = "--time-limit-ms", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, o.time_limit_ms),
     .err = "is not a positive whole number", .arg = "N", .dflt = "10000", .help = "solver time limit, > 0"},
    {.lng = "--hostfile", .type = CLI_OPT_FILE, .off = CLI_OFF(S, hostfile), .arg = "FILE", .dflt = "none",
     .help = "also write the nodes, one per line in rank order", .svc = 'f'},
    {.lng = "--hostfile-per-task", .type = CLI_OPT_FLAG, .set = 1, .off = CLI_OFF(S, per_task), .dflt = "off",
     .help = "one line per task, for srun --distribution=arbitrary"},
    {.lng = "--tasks-per-node", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, tasks_per_node),
     .given = CLI_GIVEN(S, tpn_set), .err = "is not a positive whole number", .arg = "N",
     .dflt = "the GPUs per\nnode of the job's nodes",
     .help = "tasks per node of the per-task host file ({D}) and pods per node of the pod order (default: 1)"},
    {.lng = "--pod-order", .type = CLI_OPT_FILE, .off = CLI_OFF(S, pod_order), .arg = "FILE", .dflt = "none",
     .help = "also write tsched.pod-order.v1: pod index -> node", .svc = 'f'},
    {.lng = "--index-label", .type = CLI_OPT_STRING, .off = CLI_OFF(S, index_label), .arg = "KEY",
     .dflt = "\nbatch.kubernetes.io/job-completion-index", .help = "pod label the index is matched against"},
    CLI_ROW_NO_TIMING(S, timing, "solve_ms"),
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef S

const cli_cmd_spec cli_spec_place = {"place", "place", place_opts, CLI_NOPTS(place_opts), sizeof(place_args), place_init, 0};

int cmd_place(int argc, char **argv)
{
    place_args a;
    place_init(&a);
    int prc = cli_opt_parse(&cli_spec_place, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *jobf = a.jobf, *out = a.out, *hostfile = a.hostfile;
    const char *pod_order = a.pod_order, *index_label = a.index_label;
    int timing = a.timing, per_task = a.per_task, tpn_set = a.tpn_set, compact = a.compact;
    unsigned tasks_per_node = a.tasks_per_node;
    tsched_place_options o = a.o;
    if (!topo || !jobf)
        return cli_usage_error("place: -t TOPO and -j JOB are required");
    if (per_task && !hostfile)
        return cli_usage_error("place: --hostfile-per-task needs --hostfile FILE");
    if (tpn_set && !per_task && !pod_order)
        return cli_usage_error("place: --tasks-per-node needs --hostfile-per-task or --pod-order");
    if (index_label && !pod_order)
        return cli_usage_error("place: --index-label needs --pod-order FILE");
    tsched_topology *t = NULL;
    tsched_job *j = NULL;
    tsched_placement *p = NULL;
    char *json = NULL, *hosts = NULL, *pods = NULL;
    tsched_status st;
    /* every output checked before the work; replaced together, and only if all is well */
    cli_outs outs;
    cli_outs_init(&outs);
    int rc = cli_outs_add(&outs, out);
    if (rc == CLI_OK && hostfile)
        rc = cli_outs_add(&outs, hostfile);
    if (rc == CLI_OK && pod_order)
        rc = cli_outs_add(&outs, pod_order);
    if (rc != CLI_OK)
        goto out;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_job_load_file(&j, jobf)) ||
        (st = tsched_place(&p, t, j, &o)) || (st = tsched_placement_to_json(&json, p, t, tsched_job_name(j), timing)) ||
        (hostfile && (st = per_task ? tsched_placement_hostfile_per_task(&hosts, p, t, tasks_per_node)
                                    : tsched_placement_hostfile(&hosts, p, t))) ||
        (pod_order &&
         (st = tsched_placement_pod_order(&pods, p, t, tsched_job_name(j), index_label, tasks_per_node)))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = hostfile ? cli_outs_write(&outs, hostfile, hosts, 0) : CLI_OK;
    tsched_free(hosts);
    hosts = NULL;
    if (rc == CLI_OK && pod_order)
        rc = cli_outs_write(&outs, pod_order, pods, 1);
    tsched_free(pods);
    pods = NULL;
    if (rc == CLI_OK)
        rc = cli_outs_write_json(&outs, out, json, compact);
out:
    rc = cli_outs_end(&outs, rc);
    tsched_free(json);
    tsched_free(hosts);
    tsched_free(pods);
    tsched_placement_free(p);
    tsched_job_free(j);
    tsched_topology_free(t);
    return rc;
}
