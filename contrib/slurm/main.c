/* topo-sched-slurm: a Slurm placer that links libtopo-sched (spec B, doc/slurm.md).
 *
 *   topo-sched-slurm [run] [--once] [--interval S] [--partition P] [--algo A] ...
 *   topo-sched-slurm state [--topology FILE] [--gpus-per-node N] [--nic-gbps X] [--compact] [-o FILE]
 *   topo-sched-slurm --help | --version
 *
 * The options are one table (in the spirit of src/cli/opt.h): each row gives the option's
 * name, the modes that take it, its type and range, where the value goes, and what --help
 * prints, so the parser and the help text cannot disagree. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "placer.h"

#define PROG "topo-sched-slurm"

enum { M_RUN = 1, M_STATE = 2 };
typedef enum { O_FLAG, O_UINT, O_DOUBLE, O_STR, O_DIR, O_ALGO } opt_type;

typedef struct opt {
    const char *name;
    unsigned modes;
    opt_type type;
    size_t off;        /* in ps_config */
    size_t given;      /* 1 + offset of an int set when given; 0 none */
    unsigned umin, umax;
    double min, max;
    const char *arg;   /* placeholder in help; NULL for a flag */
    const char *dflt;  /* default as help shows it */
    const char *help;
} opt;

#define OFF(f) offsetof(ps_config, f)
#define GIVEN(f) (offsetof(ps_config, f) + 1)
static const opt opts[] = {
    {"--once", M_RUN, O_FLAG, OFF(once), 0, 0, 0, 0, 0, NULL, "loop", "run one cycle and exit (0 done, 3 no controller)"},
    {"--interval", M_RUN, O_UINT, OFF(interval_s), 0, 1, 86400, 0, 0, "S", "5", "seconds between cycles"},
    {"--partition", M_RUN, O_STR, OFF(partition), 0, 0, 0, 0, 0, "P", "all", "only jobs of partition P"},
    {"--algo", M_RUN, O_ALGO, OFF(algo), 0, 0, 0, 0, 0, "A", "mip",
     "mip, best-fit, random-fit, gpu-pack, topo-aware, exhaustive"},
    {"--alpha", M_RUN, O_DOUBLE, OFF(alpha), GIVEN(alpha_set), 0, 0, 0, 1, "A", "the job's", "DP/PP weight in [0, 1]"},
    {"--time-limit-ms", M_RUN, O_UINT, OFF(time_limit_ms), 0, 1, UINT32_MAX, 0, 0, "N", "10000",
     "solver time limit per job"},
    {"--hostfile-dir", M_RUN, O_DIR, OFF(hostfile_dir), 0, 0, 0, 0, 0, "DIR", "none",
     "write DIR/<jobid>.hosts: the nodes in rank order"},
    {"--tasks-per-node", M_RUN, O_UINT, OFF(tasks_per_node), GIVEN(tpn_set), 1, 4096, 0, 0, "N", "one line per node",
     "host file with N lines per node (srun --distribution=arbitrary)"},
    {"--topology", M_RUN | M_STATE, O_STR, OFF(topology), 0, 0, 0, 0, 0, "FILE", "slurm_load_topo",
     "fabric from topology.conf, topology.yaml or tsched.topology.v1"},
    {"--max-jobs", M_RUN, O_UINT, OFF(max_jobs), 0, 1, UINT32_MAX, 0, 0, "N", "100", "jobs placed per cycle, in job id order"},
    {"--dump-dir", M_RUN, O_DIR, OFF(dump_dir), 0, 0, 0, 0, 0, "DIR", "none",
     "write DIR/<jobid>.{topology,job,placement}.json (replay)"},
    {"--reserve-horizon", M_RUN, O_UINT, OFF(reserve_horizon_s), 0, 0, 31536000, 0, 0, "S", "0 = off",
     "reserve nodes for the earliest held job beginning (sbatch --begin) within S s; others admitted by Arnold App. G"},
    {"--dry-run", M_RUN, O_FLAG, OFF(dry_run), 0, 0, 0, 0, 0, NULL, "off", "decide and write files, send nothing"},
    {"--gpus-per-node", M_RUN | M_STATE, O_UINT, OFF(gpus_per_node), 0, 1, 1024, 0, 0, "N", "8",
     "GPUs of a node whose gres names none"},
    {"--nic-gbps", M_RUN | M_STATE, O_DOUBLE, OFF(nic_gbps), 0, 0, 0, 0, 1e9, "X", "400", "speed of one NIC, Gbit/s"},
    {"--log", M_RUN, O_STR, OFF(log), 0, 0, 0, 0, 0, "FILE", "standard error", "append the log lines to FILE"},
    {"--compact", M_STATE, O_FLAG, OFF(compact), 0, 0, 0, 0, 0, NULL, "indented", "print the document on one line"},
    {"-o", M_STATE, O_STR, OFF(out), 0, 0, 0, 0, 0, "FILE", "standard output", "write the fabric to FILE"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry '" PROG " --help'.\n", stderr);
    return 2;
}

static void print_help(void)
{
    printf("Usage: " PROG " [run] [--once] [OPTIONS]   place held Slurm jobs that opted in, release them\n"
           "       " PROG " state [OPTIONS]           print the live fabric as tsched.topology.v1\n"
           "       " PROG " --help | --version\n\n"
           "A job opts in by being held and tagged: sbatch --hold --exclusive -N 8 --comment topo-sched:tp=8,pp=4\n"
           "(keys tp, pp, gpus, alpha in [0,1], unit = pp|dp). Each cycle places the opted-in jobs in\n"
           "job id order on the live fabric (slurm_load_topo + slurm_load_node), writes the host file, and\n"
           "sends ONE update: req_nodes = the chosen nodes and the release. A job that cannot be placed\n"
           "stays held with the reason in its admin comment. One log line per decision.\n"
           "With --reserve-horizon S, the earliest opted-in job whose begin time is at most S s away gets\n"
           "the nodes its placement on the free nodes picks reserved; every other job is placed outside\n"
           "them if its GPUs fit there, on any node if its time limit ends before that begin time, else\n"
           "stays held (delayed).\n");
    for (unsigned m = M_RUN; m <= M_STATE; m <<= 1) {
        printf("\n%s options:\n", m == M_RUN ? "run" : "state");
        for (size_t i = 0; i < NOPTS; i++) {
            if (!(opts[i].modes & m))
                continue;
            char label[40];
            snprintf(label, sizeof label, "%s%s%s", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
            printf("  %-20s %s (default: %s)\n", label, opts[i].help, opts[i].dflt);
        }
    }
    printf("\nSlurm is found through SLURM_CONF (or /etc/slurm/slurm.conf). Exit status: 0 ok, 1 error,\n"
           "2 bad usage, 3 the controller could not be reached (--once, state).\n"
           "Test hook: TSCHED_SLURM_TEST_EXIT_BEFORE_RELEASE=1 makes the process _exit(99) after\n"
           "writing the host file of its first placed job, before any update (crash test only).\n");
}

static int parse_value(ps_config *cfg, const opt *o, const char *v)
{
    char *at = (char *)cfg + o->off, *end;
    errno = 0;
    switch (o->type) {
    case O_UINT: {
        unsigned long long x = strtoull(v, &end, 10);
        if (!*v || *v == '-' || *v == '+' || *end || errno || x < o->umin || x > o->umax)
            return usage_error("%s: '%s' is not a whole number in [%u, %u]", o->name, v, o->umin, o->umax);
        *(unsigned *)(void *)at = (unsigned)x;
        break;
    }
    case O_DOUBLE: {
        double x = strtod(v, &end);
        int open_min = o->off == OFF(nic_gbps);
        if (!*v || *end || errno || !(x >= o->min && x <= o->max) || (open_min && x <= o->min))
            return usage_error("%s: '%s' is not a number in %c%g, %g]", o->name, v, open_min ? '(' : '[', o->min, o->max);
        *(double *)(void *)at = x;
        break;
    }
    case O_ALGO:
        if (tsched_place_algo_from_name((tsched_place_algo *)(void *)at, v) != TSCHED_OK)
            return usage_error("%s: '%s' is not one of mip, best-fit, random-fit, gpu-pack, topo-aware, exhaustive",
                               o->name, v);
        break;
    case O_DIR:
        if (access(v, W_OK | X_OK) != 0)
            return usage_error("%s: '%s' is not a writable directory: %s", o->name, v, strerror(errno));
        /* fall through */
    default:
        if (!*v)
            return usage_error("%s: empty value", o->name);
        *(const char **)(void *)at = v;
    }
    return 0;
}

/* Parse argv into cfg for `mode`; 0 or the exit status after a message. */
static int parse(ps_config *cfg, unsigned mode, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        size_t nlen = eq && a[0] == '-' && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
        const opt *o = NULL;
        for (size_t k = 0; k < NOPTS; k++)
            if (strlen(opts[k].name) == nlen && strncmp(opts[k].name, a, nlen) == 0)
                o = &opts[k];
        if (!o)
            return usage_error("%s '%s'", a[0] == '-' ? "unknown option" : "unexpected argument", a);
        if (!(o->modes & mode))
            return usage_error("%s: not an option of '%s'", o->name, mode == M_RUN ? "run" : "state");
        if (o->type == O_FLAG) {
            if (nlen != strlen(a))
                return usage_error("%s takes no value", o->name);
            *(int *)(void *)((char *)cfg + o->off) = 1;
            continue;
        }
        const char *v = nlen != strlen(a) ? a + nlen + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v)
            return usage_error("%s needs a value (%s)", o->name, o->arg);
        int rc = parse_value(cfg, o, v);
        if (rc)
            return rc;
        if (o->given)
            *(int *)(void *)((char *)cfg + o->given - 1) = 1;
    }
    return 0;
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int run_state(const ps_config *cfg)
{
    char err[1024];
    tsched_topology *t = NULL;
    int rc = ps_live_fabric(&t, cfg, err, sizeof err);
    if (rc != PS_OK) {
        fprintf(stderr, PROG ": state: %s\n", err);
        return rc == PS_E_SLURM ? 3 : 1;
    }
    tsched_output_opts oo;
    tsched_output_opts_init(&oo);
    oo.compact = cfg->compact;
    char *json = NULL;
    FILE *f = NULL;
    rc = 1;
    if (tsched_topology_to_json_opts(&json, t, &oo) != TSCHED_OK)
        fprintf(stderr, PROG ": state: %s\n", tsched_last_error());
    else if (!(f = cfg->out ? fopen(cfg->out, "w") : stdout))
        fprintf(stderr, PROG ": state: %s: %s\n", cfg->out, strerror(errno));
    else {
        size_t len = strlen(json);
        int ok = fwrite(json, 1, len, f) == len && (len == 0 || json[len - 1] == '\n' || fputc('\n', f) != EOF);
        ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
        if (!ok)
            fprintf(stderr, PROG ": state: %s: write error\n", cfg->out ? cfg->out : "standard output");
        rc = ok ? 0 : 1;
    }
    tsched_free(json);
    tsched_topology_free(t);
    return rc;
}

static int run_loop(const ps_config *cfg)
{
    if (cfg->once) {
        int rc = ps_cycle(cfg);
        return rc == PS_OK ? 0 : rc == PS_E_SLURM ? 3 : 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a signal cuts the sleep short */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    while (!stop_requested) {
        ps_cycle(cfg); /* failures are logged; the next cycle tries again */
        for (unsigned t = 0; t < cfg->interval_s * 10 && !stop_requested; t++) {
            struct timespec ts = {0, 100000000L};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_help();
            return 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf(PROG " %s (libtopo-sched %s, built with Slurm %d.%02d.%d)\n", TSCHED_VERSION_STRING, tsched_version(),
                   SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
                   SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
            return 0;
        }
    }
    ps_config cfg = {.interval_s = 5, .max_jobs = 100, .algo = TSCHED_PLACE_MIP};
    unsigned mode = M_RUN;
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "run"))
        first = 2;
    else if (argc > 1 && !strcmp(argv[1], "state"))
        mode = M_STATE, first = 2;
    int rc = parse(&cfg, mode, argc, argv, first);
    if (rc)
        return rc;
    if (mode == M_RUN && ps_log_open(cfg.log) != 0) {
        fprintf(stderr, PROG ": --log %s: %s\n", cfg.log, strerror(errno));
        return 2;
    }
    slurm_init(NULL); /* reads SLURM_CONF; mandatory before any call since 22.05 */
    rc = mode == M_STATE ? run_state(&cfg) : run_loop(&cfg);
    ps_cycle_cleanup();
    slurm_fini();
    ps_log_close();
    return rc;
}
