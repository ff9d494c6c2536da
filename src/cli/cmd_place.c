/* topo-sched place -t TOPO -j JOB [--algo A] [--alpha A] [--seed N] [--time-limit-ms N]
 *                  [--hostfile FILE [--hostfile-per-task] [--tasks-per-node N]]
 *                  [--pod-order FILE [--index-label KEY]] [--no-timing] [--compact] [-o FILE] */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_place(int argc, char **argv)
{
    const char *topo = NULL, *jobf = NULL, *out = NULL, *hostfile = NULL;
    const char *pod_order = NULL, *index_label = NULL;
    int timing = 1, per_task = 0, tpn_set = 0, compact = 0;
    unsigned tasks_per_node = 0;
    tsched_place_options o;
    tsched_place_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        unsigned u;
        if (strcmp(a, "-t") == 0 && has) {
            topo = argv[++i];
        } else if (strcmp(a, "-j") == 0 && has) {
            jobf = argv[++i];
        } else if (strcmp(a, "-o") == 0 && has) {
            out = argv[++i];
        } else if (strcmp(a, "--hostfile") == 0 && has) {
            hostfile = argv[++i];
        } else if (strcmp(a, "--hostfile-per-task") == 0) {
            per_task = 1;
        } else if (strcmp(a, "--tasks-per-node") == 0 && has) {
            if (cli_parse_u32(argv[++i], &tasks_per_node) != 0 || tasks_per_node == 0)
                return cli_usage_error("--tasks-per-node: '%s' is not a positive whole number", argv[i]);
            tpn_set = 1;
        } else if (strcmp(a, "--pod-order") == 0 && has) {
            pod_order = argv[++i];
        } else if (strcmp(a, "--index-label") == 0 && has) {
            index_label = argv[++i];
        } else if (strcmp(a, "--algo") == 0 && has) {
            if (tsched_place_algo_from_name(&o.algo, argv[++i]) != TSCHED_OK)
                return cli_usage_error("--algo: %s", tsched_last_error());
        } else if (strcmp(a, "--alpha") == 0 && has) {
            char *end;
            o.alpha = ts_strtod(argv[++i], &end);
            if (*end || !(o.alpha >= 0 && o.alpha <= 1))
                return cli_usage_error("--alpha: '%s' is not a number in [0, 1]", argv[i]);
        } else if (strcmp(a, "--seed") == 0 && has) {
            if (cli_parse_u64(argv[++i], &o.seed) != 0)
                return cli_usage_error("--seed: '%s' is not a whole number", argv[i]);
        } else if (strcmp(a, "--time-limit-ms") == 0 && has) {
            if (cli_parse_u32(argv[++i], &u) != 0 || u == 0)
                return cli_usage_error("--time-limit-ms: '%s' is not a positive whole number", argv[i]);
            o.time_limit_ms = u;
        } else if (strcmp(a, "--no-timing") == 0) {
            timing = 0;
        } else if (strcmp(a, "--compact") == 0) {
            compact = 1;
        } else {
            return cli_usage_error("place: unknown or incomplete option '%s'", a);
        }
    }
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
