/* topo-sched prioritize -t TOPO -s JOBSET --levels K [--algo A] [--order O] [--orders M]
 *                       [--seed N] [--compact] [-o FILE]
 * topo-sched kcut -d DAG --levels K [--algo A] [--orders M] [--seed N] [--threads N]
 *                 [--compact] [-o FILE] */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

static const char *const kcut_algos[] = {"crux", "sincronia", "varys", "exhaustive", NULL};

static int conv_kcut_algo(void *dst, const char *s) { return tsched_kcut_algo_from_name(dst, s) != TSCHED_OK; }

static const char *const prio_orders[] = {"crux", "sincronia", "varys", "taccl", NULL};

static int conv_prio_order(void *dst, const char *s) { return tsched_prio_order_from_name(dst, s) != TSCHED_OK; }

/* The arguments of both commands (prioritize has no -d and --threads, kcut no -t and -s). */
typedef struct kcut_args {
    const char *topo, *setf, *dagf, *out;
    int levels_given, compact;
    tsched_kcut_options k;
    tsched_prio_order order; /* prioritize only */
} kcut_args;

static void kcut_init(void *v)
{
    kcut_args *a = v;
    memset(a, 0, sizeof *a);
    tsched_kcut_options_init(&a->k);
}

static void prio_init(void *v)
{
    kcut_args *a = v;
    kcut_init(a);
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    a->k.algo = o.algo;
    a->k.levels = o.levels;
    a->k.orders = o.orders;
    a->k.seed = o.seed;
    a->order = o.order;
}

#define S kcut_args
#define KCUT_ROWS                                                                                                  \
    {.lng = "--levels", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, k.levels), .given = CLI_GIVEN(S, levels_given), \
     .err = "is not a whole number >= 1", .arg = "K", .help = "hardware priority levels, >= 1"},                   \
        {.lng = "--algo", .type = CLI_OPT_ENUM, .names = kcut_algos, .conv = conv_kcut_algo, .off = CLI_OFF(S, k.algo), \
         .arg = "A", .dflt = "crux", .help = "crux, sincronia, varys or exhaustive"},                              \
        {.lng = "--orders", .type = CLI_OPT_UINT, .umin = 1, .off = CLI_OFF(S, k.orders),                         \
         .err = "is not a whole number >= 1", .arg = "M", .dflt = "10", .help = "random orders tried by crux, >= 1"}, \
        {.lng = "--seed", .type = CLI_OPT_UINT, .flags = CLI_OPT_U64, .off = CLI_OFF(S, k.seed),                  \
         .err = "is not a whole number", .arg = "N", .dflt = "1", .help = "seed of those orders"}

static const cli_opt prio_opts[] = {
    {.shrt = "-t", .type = CLI_OPT_FILE, .off = CLI_OFF(S, topo), .arg = "TOPO",
     .help = "the fabric, tsched.topology.v1 ({D}; '-' = standard input)"},
    {.shrt = "-s", .type = CLI_OPT_FILE, .off = CLI_OFF(S, setf), .arg = "JOBSET", .help = "the job set, tsched.jobset.v1"},
    KCUT_ROWS,
    {.lng = "--order", .type = CLI_OPT_ENUM, .names = prio_orders, .conv = conv_prio_order, .off = CLI_OFF(S, order),
     .arg = "O", .dflt = "crux", .help = "the jobs' order: crux, sincronia, varys or taccl"},
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};

static const cli_opt kcut_opts[] = {
    {.shrt = "-d", .type = CLI_OPT_FILE, .off = CLI_OFF(S, dagf), .arg = "DAG",
     .help = "the DAG, tsched.dag.v1 ({D}; '-' = standard input)"},
    KCUT_ROWS,
    {.lng = "--threads", .type = CLI_OPT_UINT, .off = CLI_OFF(S, k.threads),
     .err = "is not a whole number (0 = every online CPU)", .arg = "N", .dflt = "0",
     .help = "threads cutting crux's orders; 0 = every online CPU"},
    CLI_ROW_COMPACT(S, compact),
    CLI_ROW_OUT(S, out),
};
#undef KCUT_ROWS
#undef S

const cli_cmd_spec cli_spec_prioritize = {"prioritize", "prioritize", prio_opts, CLI_NOPTS(prio_opts),
                                          sizeof(kcut_args), prio_init, 0};
const cli_cmd_spec cli_spec_kcut = {"kcut", "kcut", kcut_opts, CLI_NOPTS(kcut_opts), sizeof(kcut_args), kcut_init, 0};

int cmd_kcut(int argc, char **argv)
{
    kcut_args a;
    kcut_init(&a);
    int prc = cli_opt_parse(&cli_spec_kcut, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *dagf = a.dagf, *out = a.out;
    int levels_given = a.levels_given, compact = a.compact;
    tsched_kcut_options k = a.k;
    if (!dagf || !levels_given)
        return cli_usage_error("kcut: -d DAG and --levels K are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    tsched_dag *d = NULL;
    uint32_t *levels = NULL;
    char *json = NULL;
    double cut = 0;
    tsched_status st;
    int rc;
    if ((st = tsched_dag_load_file(&d, dagf)) != TSCHED_OK) {
        rc = cli_fail(st);
        goto out;
    }
    if (!(levels = calloc(tsched_dag_nodes(d) ? tsched_dag_nodes(d) : 1, sizeof *levels))) {
        fprintf(stderr, "topo-sched: out of memory\n");
        rc = CLI_INTERNAL;
        goto out;
    }
    if ((st = tsched_dag_compress(levels, &cut, d, &k)) ||
        (st = tsched_levels_to_json(&json, levels, tsched_dag_nodes(d), cut))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_write_json(out, json, compact);
out:
    tsched_free(json);
    free(levels);
    tsched_dag_free(d);
    return rc;
}

int cmd_prioritize(int argc, char **argv)
{
    tsched_prio_options o;
    tsched_prio_options_init(&o);
    kcut_args a;
    prio_init(&a);
    int prc = cli_opt_parse(&cli_spec_prioritize, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *topo = a.topo, *setf = a.setf, *out = a.out;
    int levels_given = a.levels_given, compact = a.compact;
    tsched_kcut_options k = a.k;
    if (!topo || !setf || !levels_given)
        return cli_usage_error("prioritize: -t TOPO, -s JOBSET and --levels K are required");
    int orc = cli_output_check(out); /* before the work: an unwritable -o fails now */
    if (orc != CLI_OK)
        return orc;
    o.algo = k.algo;
    o.levels = k.levels;
    o.orders = k.orders;
    o.seed = k.seed;
    o.order = a.order;
    tsched_topology *t = NULL;
    tsched_jobset *js = NULL;
    tsched_priorities *p = NULL;
    char *json = NULL;
    tsched_status st;
    int rc;
    if ((st = tsched_topology_load_file(&t, topo)) || (st = tsched_jobset_load_file(&js, t, setf)) ||
        (st = tsched_prioritize(&p, t, js, &o)) || (st = tsched_priorities_to_json(&json, p, js))) {
        rc = cli_fail(st);
        goto out;
    }
    rc = cli_write_json(out, json, compact);
out:
    tsched_free(json);
    tsched_priorities_free(p);
    tsched_jobset_free(js);
    tsched_topology_free(t);
    return rc;
}
