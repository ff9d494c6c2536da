/* One placement cycle: read the opted-in held jobs, build the live fabric, place each job with
 * the library, write its host file, and release it with ONE update that also pins it to the
 * chosen nodes. The rules that keep this safe (spec B):
 *   - a job without the tag is never touched, and one with the tag only while it is held;
 *   - the job is read again just before the update, and released only if nothing changed;
 *   - nothing but req_nodes + priority goes to a placed job (plus clearing our own "not
 *     placed" admin comment of an earlier cycle, which would otherwise outlive the reason),
 *     nothing but the admin comment to a held one;
 *   - a failed call to the controller ends the cycle: what was not done is retried next time,
 *     and a job not yet updated is still held, so a crash at any point loses nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "placer.h"

#define REASON_MAX 480

typedef struct cand {
    uint32_t id, num_nodes;
    uint32_t time_limit; /* minutes; INFINITE / NO_VAL: none */
    int64_t begin;       /* epoch seconds Slurm may start it at */
    char *comment, *admin_comment, *partition;
} cand;

/* The last reason logged per held job, so that `run` logs a decision once, not every cycle. */
typedef struct memo {
    uint32_t id;
    char *reason;
} memo;
static memo *memos;
static size_t nmemos;

void ps_cycle_cleanup(void)
{
    for (size_t i = 0; i < nmemos; i++)
        free(memos[i].reason);
    free(memos);
    memos = NULL;
    nmemos = 0;
}

/* An error of the connection to the controller (not a refusal of the request). */
static int is_comm_error(int e)
{
    return (e > 0 && e < 1000) || (e >= SLURM_UNEXPECTED_MSG_ERROR && e <= SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR) ||
           (e >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR && e <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR) ||
           (e >= 5000 && e < 6000);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static int cmp_cand(const void *a, const void *b)
{
    uint32_t x = ((const cand *)a)->id, y = ((const cand *)b)->id;
    return x < y ? -1 : x > y;
}

/* `list` (comma-separated, as a job's partition) holds `name`. */
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

typedef struct cycle {
    const ps_config *cfg;
    tsched_topology *topo;
    partition_info_msg_t *parts;
    uint32_t gpn; /* GPUs per node: the most common count of the fabric's nodes */
    uint32_t *cands;
    char *mark;
    int placed; /* jobs placed so far (the test hook stops at the first) */
    memo *new_memos;
    size_t new_nmemos;
    /* --reserve-horizon: the one reservation of this cycle (NULL: none), for job res_id */
    tsched_reservation *res;
    uint32_t res_id;
    int64_t res_arrival, now;
} cycle;

static int write_file(const char *dir, uint32_t id, const char *ext, const char *text, char *err, size_t cap)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%u.%s", dir, id, ext);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    size_t len = strlen(text);
    /* JSON documents end with a newline, as topo-sched writes them (same bytes on replay) */
    int nl = len > 0 && text[len - 1] != '\n' && text[0] == '{';
    if (!f || fwrite(text, 1, len, f) != len || (nl && fputc('\n', f) == EOF) || fflush(f) != 0 ||
        fsync(fileno(f)) != 0) {
        snprintf(err, cap, "%.900s: %s", tmp, strerror(errno));
        if (f)
            fclose(f);
        unlink(tmp);
        return -1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, cap, "%.900s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The candidate nodes of the job's partitions: NULL with *n = 0 when they cover the whole
 * fabric (no restriction, so the choice is the one `topo-sched place` makes on the dump). */
static const uint32_t *partition_nodes(cycle *c, const cand *j, uint32_t *n)
{
    uint32_t total = tsched_topology_num_nodes(c->topo), k = 0;
    *n = 0;
    if (!c->parts || !j->partition)
        return NULL;
    memset(c->mark, 0, total);
    for (uint32_t p = 0; p < c->parts->record_count; p++) {
        const partition_info_t *pi = &c->parts->partition_array[p];
        if (!pi->name || !pi->nodes || !list_has(j->partition, pi->name))
            continue;
        hostlist_t hl = slurm_hostlist_create(pi->nodes);
        char *h;
        while (hl && (h = slurm_hostlist_shift(hl))) {
            uint32_t x = tsched_topology_find_node(c->topo, h);
            if (x != TSCHED_NONE)
                c->mark[x] = 1;
            free(h);
        }
        if (hl)
            slurm_hostlist_destroy(hl);
    }
    for (uint32_t x = 0; x < total; x++)
        if (c->mark[x])
            c->cands[k++] = x;
    if (k == total)
        return NULL;
    *n = k; /* 0: the partitions hold none of the fabric's nodes (the caller holds the job) */
    return c->cands;
}

/* Remember that `what` was logged for job `id` (for the next cycle); 1 when the last cycle
 * logged it already, so it is not logged again. */
static int remember(cycle *c, uint32_t id, const char *what)
{
    int seen = 0;
    for (size_t i = 0; i < nmemos; i++)
        if (memos[i].id == id && strcmp(memos[i].reason, what) == 0)
            seen = 1;
    memo *m = realloc(c->new_memos, (c->new_nmemos + 1) * sizeof *m);
    if (m) {
        c->new_memos = m;
        m[c->new_nmemos].id = id;
        if ((m[c->new_nmemos].reason = strdup(what)))
            c->new_nmemos++;
    }
    return seen;
}

/* Keep the job held, saying why in its admin comment (only when that changes). */
static int hold(cycle *c, const cand *j, const char *why, double t0)
{
    char reason[REASON_MAX], text[REASON_MAX + 64];
    ps_one_line(reason, sizeof reason, why);
    snprintf(text, sizeof text, "topo-sched: not placed: %s", reason);
    if (!c->cfg->dry_run && !same_str(text, j->admin_comment)) {
        job_desc_msg_t d;
        slurm_init_job_desc_msg(&d);
        d.job_id = j->id;
        d.admin_comment = text;
        if (slurm_update_job(&d) != SLURM_SUCCESS) {
            int e = slurm_get_errno();
            ps_log("job=%u held reason=\"%s\" ms=%.1f (admin comment not set: %s)", j->id, reason, ps_now_ms() - t0,
                   slurm_strerror(e));
            return is_comm_error(e) ? PS_E_SLURM : PS_OK;
        }
    }
    if (!remember(c, j->id, reason))
        ps_log("job=%u held reason=\"%s\" ms=%.1f%s", j->id, reason, ps_now_ms() - t0,
               c->cfg->dry_run ? " dry-run" : "");
    return PS_OK;
}

/* The job as the controller holds it now still asks for this placement: pending, held,
 * same comment. PS_OK + *still; PS_E_SLURM when it could not be read. */
static int still_wanted(int *still, const cand *j, char *err, size_t cap)
{
    job_info_msg_t *m = NULL;
    *still = 0;
    if (slurm_load_job(&m, j->id, SHOW_DETAIL) != SLURM_SUCCESS) {
        int e = slurm_get_errno();
        snprintf(err, cap, "slurm_load_job %u: %s", j->id, slurm_strerror(e));
        return e == ESLURM_INVALID_JOB_ID ? PS_OK : PS_E_SLURM; /* a job gone is not an error */
    }
    for (uint32_t i = 0; i < m->record_count; i++) {
        const slurm_job_info_t *ji = &m->job_array[i];
        if (ji->job_id == j->id && (ji->job_state & JOB_STATE_BASE) == JOB_PENDING && ji->priority == 0 &&
            same_str(ji->comment, j->comment))
            *still = 1;
    }
    slurm_free_job_info_msg(m);
    return PS_OK;
}

/* The library job candidate `j` asks for (its tag, its node count): *job (caller frees) and
 * *gpus, or -1 with the reason to hold it for in `why`. */
static int make_job(tsched_job **job, uint32_t *gpus, const cycle *c, const cand *j, char *why, size_t cap)
{
    const ps_config *cfg = c->cfg;
    ps_tag tag;
    *job = NULL;
    if (ps_tag_parse(&tag, j->comment, why, cap) != 1)
        return -1;
    *gpus = j->num_nodes * c->gpn;
    if (j->num_nodes == 0 || c->gpn == 0) {
        snprintf(why, cap, "bad job: no node count or no GPUs per node");
        return -1;
    }
    if (tag.gpus && tag.gpus != *gpus) {
        snprintf(why, cap, "bad tag: gpus=%u but the job asks %u nodes x %u GPUs", tag.gpus, j->num_nodes, c->gpn);
        return -1;
    }
    char name[32];
    snprintf(name, sizeof name, "%u", j->id);
    tsched_status st = tsched_job_new(job, name, *gpus, tag.tp ? tag.tp : c->gpn, tag.pp ? tag.pp : 1);
    /* --alpha overrides the tag in the job itself, so that the dumped job replays as placed */
    if (st == TSCHED_OK && cfg->alpha_set)
        st = tsched_job_set_alpha(*job, cfg->alpha);
    else if (st == TSCHED_OK && tag.alpha_set)
        st = tsched_job_set_alpha(*job, tag.alpha);
    if (st == TSCHED_OK && tag.unit >= 0)
        st = tsched_job_set_unit(*job, (tsched_unit)tag.unit);
    if (st != TSCHED_OK) {
        snprintf(why, cap, "bad job: %s", tsched_last_error());
        tsched_job_free(*job);
        *job = NULL;
        return -1;
    }
    return 0;
}

/* The cycle's placement options for candidate `j` (its partition's nodes); -1 with `why`
 * when the partition holds none of the fabric's nodes. */
static int place_options(tsched_place_options *po, cycle *c, const cand *j, char *why, size_t cap)
{
    tsched_place_options_init(po);
    po->algo = c->cfg->algo;
    if (c->cfg->time_limit_ms)
        po->time_limit_ms = c->cfg->time_limit_ms;
    po->nodes = partition_nodes(c, j, &po->num_nodes);
    if (po->nodes && po->num_nodes == 0) {
        snprintf(why, cap, "no feasible placement: the job's partition holds none of the fabric's nodes");
        return -1;
    }
    return 0;
}

/* Narrow po's candidate nodes to those outside the reservation (in c->cands); -1 with `why`
 * when none is left. */
static int outside_reservation(tsched_place_options *po, cycle *c, char *why, size_t cap)
{
    uint32_t n = po->nodes ? po->num_nodes : tsched_topology_num_nodes(c->topo), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = po->nodes ? po->nodes[i] : i; /* po->nodes is c->cands or NULL: k <= i */
        if (!tsched_reservation_holds(c->res, x))
            c->cands[k++] = x;
    }
    if (k == 0) {
        snprintf(why, cap, "no feasible placement: every candidate node is reserved for job %u", c->res_id);
        return -1;
    }
    po->nodes = c->cands;
    po->num_nodes = k;
    return 0;
}

/* Place one job and release it, or keep it held. PS_OK, or the cycle's end. */
static int decide(cycle *c, const cand *j)
{
    const ps_config *cfg = c->cfg;
    double t0 = ps_now_ms();
    char err[1024], why[1024];
    uint32_t gpus = 0;
    tsched_job *job = NULL;
    tsched_placement *p = NULL;
    char *hosts = NULL, *ranged = NULL, *json = NULL;
    const char **names = NULL;
    int rc = PS_OK;
    tsched_status st;
    tsched_place_options po;
    const char *admit = "";
    if (make_job(&job, &gpus, c, j, why, sizeof why) != 0 || place_options(&po, c, j, why, sizeof why) != 0) {
        rc = hold(c, j, why, t0);
        goto out;
    }
    if (c->res) {
        /* Algorithm 1 for this job: the time limit is the completion it can be held to */
        tsched_admit a;
        if ((st = tsched_reservation_admit(&a, c->res, c->topo, gpus, (double)c->now,
                                           ps_reserve_predicted_end(c->now, j->time_limit), 0)) != TSCHED_OK) {
            snprintf(why, sizeof why, "placement failed: %s: %s", tsched_status_str(st), tsched_last_error());
            rc = hold(c, j, why, t0);
            goto out;
        }
        if (a == TSCHED_ADMIT_DELAY) {
            ps_reserve_delay_reason(why, sizeof why, c->res_id, c->res_arrival);
            rc = hold(c, j, why, t0);
            goto out;
        }
        if (a == TSCHED_ADMIT_NOW && outside_reservation(&po, c, why, sizeof why) != 0) {
            rc = hold(c, j, why, t0);
            goto out;
        }
        admit = a == TSCHED_ADMIT_NOW ? " admit=now" : " admit=reserved";
    }
    if ((st = tsched_place(&p, c->topo, job, &po)) != TSCHED_OK) {
        if (st == TSCHED_E_INFEASIBLE)
            snprintf(why, sizeof why, "no feasible placement: %s", tsched_last_error());
        else
            snprintf(why, sizeof why, "placement failed: %s: %s", tsched_status_str(st), tsched_last_error());
        rc = hold(c, j, why, t0);
        goto out;
    }
    uint32_t cells = tsched_placement_rows(p) * tsched_placement_cols(p);
    const uint32_t *nodes = tsched_placement_nodes(p);
    names = calloc(cells ? cells : 1, sizeof *names);
    if (!names) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < cells; i++)
        names[i] = tsched_topology_node_name(c->topo, nodes[i]);
    if (ps_hostlist_ranged(&ranged, names, cells) != 0) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    if (cfg->hostfile_dir) {
        st = cfg->tpn_set ? tsched_placement_hostfile_per_task(&hosts, p, c->topo, cfg->tasks_per_node)
                          : tsched_placement_hostfile(&hosts, p, c->topo);
        if (st != TSCHED_OK) {
            snprintf(err, sizeof err, "job=%u hostfile: %s", j->id, tsched_last_error());
            goto fail;
        }
        if (write_file(cfg->hostfile_dir, j->id, "hosts", hosts, err, sizeof err) != 0)
            goto fail;
    }
    if (cfg->dump_dir) {
        const char *what[] = {"topology.json", "job.json", "placement.json"};
        for (int k = 0; k < 3; k++) {
            st = k == 0 ? tsched_topology_to_json(&json, c->topo)
                 : k == 1 ? tsched_job_to_json(&json, job)
                          : tsched_placement_to_json(&json, p, c->topo, tsched_job_name(job), 0);
            if (st != TSCHED_OK) {
                snprintf(err, sizeof err, "job=%u dump: %s", j->id, tsched_last_error());
                goto fail;
            }
            int w = write_file(cfg->dump_dir, j->id, what[k], json, err, sizeof err);
            tsched_free(json);
            json = NULL;
            if (w != 0)
                goto fail;
        }
    }
    if (c->placed == 0) {
        /* Test hook (documented in doc/slurm.md): die where a crash would hurt most. */
        const char *hook = getenv("TSCHED_SLURM_TEST_EXIT_BEFORE_RELEASE");
        if (hook && strcmp(hook, "1") == 0)
            _exit(99);
    }
    int still = 1;
    if (!cfg->dry_run) {
        if ((rc = still_wanted(&still, j, err, sizeof err)) != PS_OK)
            goto fail;
        if (!still) {
            ps_log("job=%u skipped reason=\"no longer pending, held and tagged as it was\" ms=%.1f", j->id,
                   ps_now_ms() - t0);
            goto out;
        }
        job_desc_msg_t d;
        slurm_init_job_desc_msg(&d);
        d.job_id = j->id;
        d.req_nodes = ranged;
        d.priority = INFINITE;
        char empty[1] = "";
        if (j->admin_comment && strncmp(j->admin_comment, "topo-sched: not placed: ", 24) == 0)
            d.admin_comment = empty; /* ours, from a cycle that could not place it: now stale */
        if (slurm_update_job(&d) != SLURM_SUCCESS) {
            int e = slurm_get_errno();
            if (is_comm_error(e)) {
                snprintf(err, sizeof err, "slurm_update_job %u: %s", j->id, slurm_strerror(e));
                rc = PS_E_SLURM;
                goto fail;
            }
            snprintf(why, sizeof why, "the controller refused nodes %s: %s", ranged, slurm_strerror(e));
            rc = hold(c, j, why, t0);
            goto out;
        }
    }
    c->placed++;
    /* later jobs of this cycle do not get these nodes (whole nodes) */
    for (uint32_t i = 0; i < cells; i++)
        tsched_topology_set_free_gpus(c->topo, nodes[i], 0);
    ps_log("job=%u placed nodes=%s algo=%s status=%s weighted=%g dp_max=%u pp_max=%u%s ms=%.1f%s", j->id, ranged,
           tsched_place_algo_name(tsched_placement_algo(p)),
           tsched_placement_status(p) == TSCHED_PLACE_OPTIMAL ? "optimal" : "feasible", tsched_placement_weighted(p),
           tsched_placement_dp_max(p), tsched_placement_pp_max(p), admit, ps_now_ms() - t0,
           cfg->dry_run ? " dry-run" : "");
    goto out;
fail:
    ps_log("cycle failed: %s", err);
    if (rc == PS_OK)
        rc = PS_E_OTHER;
out:
    free(names);
    free(ranged);
    tsched_free(hosts);
    tsched_free(json);
    tsched_placement_free(p);
    tsched_job_free(job);
    return rc;
}

/* --reserve-horizon: reserve nodes for the earliest imminent job of cs[0..n) (Algorithm 1
 * keeps one reservation): its placement on the nodes up and free now. Infeasible, or a job
 * the placer cannot read: no reservation this cycle (logged once). Never ends the cycle. */
static void reserve(cycle *c, const cand *cs, size_t n)
{
    int64_t *begins = malloc((n ? n : 1) * sizeof *begins);
    if (!begins) {
        ps_log("cycle: no reservation: out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        begins[i] = cs[i].begin;
    size_t k = ps_reserve_pick(begins, n, c->now, c->cfg->reserve_horizon_s);
    free(begins);
    if (k == n)
        return;
    const cand *j = &cs[k];
    double t0 = ps_now_ms();
    char why[1024], line[1200];
    tsched_job *job = NULL;
    tsched_placement *p = NULL;
    tsched_place_options po;
    uint32_t gpus;
    tsched_status st = TSCHED_OK;
    char *ranged = NULL;
    const char **names = NULL;
    if (make_job(&job, &gpus, c, j, why, sizeof why) != 0 || place_options(&po, c, j, why, sizeof why) != 0)
        st = TSCHED_E_INVALID;
    else if ((st = tsched_place(&p, c->topo, job, &po)) != TSCHED_OK)
        snprintf(why, sizeof why, "%s: %s", st == TSCHED_E_INFEASIBLE ? "no feasible placement" : tsched_status_str(st),
                 tsched_last_error());
    else if ((st = tsched_reservation_new(&c->res, p, (double)j->begin)) != TSCHED_OK)
        snprintf(why, sizeof why, "%s", tsched_last_error());
    if (st == TSCHED_OK) {
        uint32_t cells = tsched_placement_rows(p) * tsched_placement_cols(p);
        const uint32_t *nodes = tsched_placement_nodes(p);
        if ((names = calloc(cells ? cells : 1, sizeof *names))) {
            for (uint32_t i = 0; i < cells; i++)
                names[i] = tsched_topology_node_name(c->topo, nodes[i]);
        }
        if (!names || ps_hostlist_ranged(&ranged, names, cells) != 0) {
            snprintf(why, sizeof why, "out of memory");
            tsched_reservation_free(c->res);
            c->res = NULL;
        }
    }
    if (c->res) {
        c->res_id = j->id;
        c->res_arrival = j->begin;
        snprintf(line, sizeof line, "reserved nodes=%.1100s arrival=%lld", ranged, (long long)j->begin);
        if (!remember(c, j->id, line))
            ps_log("job=%u %s ms=%.1f%s", j->id, line, ps_now_ms() - t0, c->cfg->dry_run ? " dry-run" : "");
    } else {
        char reason[REASON_MAX];
        ps_one_line(reason, sizeof reason, why);
        snprintf(line, sizeof line, "not reserved reason=\"%s\"", reason);
        if (!remember(c, j->id, line))
            ps_log("job=%u %s ms=%.1f", j->id, line, ps_now_ms() - t0);
    }
    free(names);
    free(ranged);
    tsched_placement_free(p);
    tsched_job_free(job);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The most common GPU count of the fabric's nodes (the smaller on a tie). */
static uint32_t common_gpus(const tsched_topology *t)
{
    uint32_t n = tsched_topology_num_nodes(t), best = 0, best_n = 0;
    uint32_t *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        g[i] = tsched_topology_node_gpus(t, i);
    qsort(g, n, sizeof *g, cmp_u32);
    for (uint32_t i = 0; i < n;) {
        uint32_t e = i;
        while (e < n && g[e] == g[i])
            e++;
        if (e - i > best_n)
            best = g[i], best_n = e - i;
        i = e;
    }
    free(g);
    return best;
}

int ps_cycle(const ps_config *cfg)
{
    job_info_msg_t *jobs = NULL;
    if (slurm_load_jobs((time_t)0, &jobs, SHOW_ALL) != SLURM_SUCCESS) {
        ps_log("cycle failed: slurm_load_jobs: %s", slurm_strerror(slurm_get_errno()));
        return PS_E_SLURM;
    }
    cand *cs = calloc(jobs->record_count ? jobs->record_count : 1, sizeof *cs);
    ps_buf taken = {0}; /* req_nodes of tagged jobs released but not started yet */
    size_t n = 0;
    int rc = PS_OK;
    ps_buf_str(&taken, "");
    for (uint32_t i = 0; cs && i < jobs->record_count; i++) {
        const slurm_job_info_t *ji = &jobs->job_array[i];
        const char *s;
        size_t len;
        if ((ji->job_state & JOB_STATE_BASE) != JOB_PENDING || !ps_tag_find(ji->comment, &s, &len))
            continue;
        if (ji->priority != 0) { /* released earlier (by us, or by hand): its nodes are spoken for */
            if (ji->req_nodes && ji->req_nodes[0]) {
                ps_buf_str(&taken, taken.len ? "," : "");
                ps_buf_str(&taken, ji->req_nodes);
            }
            continue;
        }
        if (cfg->partition && !list_has(ji->partition, cfg->partition))
            continue;
        cand *x = &cs[n++];
        x->id = ji->job_id;
        x->num_nodes = ji->num_nodes;
        x->time_limit = ji->time_limit;
        x->begin = (int64_t)ji->start_time; /* a pending job: its begin time (sbatch --begin), else 0 or a past time */
        x->comment = dup_or_null(ji->comment);
        x->admin_comment = dup_or_null(ji->admin_comment);
        x->partition = dup_or_null(ji->partition);
    }
    slurm_free_job_info_msg(jobs);
    if (!cs || taken.failed) {
        free(cs);
        free(taken.s);
        ps_log("cycle failed: out of memory");
        return PS_E_OTHER;
    }
    qsort(cs, n, sizeof *cs, cmp_cand);
    size_t all = n;
    if (cfg->max_jobs && n > cfg->max_jobs)
        n = cfg->max_jobs;
    cycle c = {.cfg = cfg, .now = (int64_t)time(NULL)};
    char err[1024];
    if (n > 0) {
        if ((rc = ps_live_fabric(&c.topo, cfg, err, sizeof err)) != PS_OK)
            ps_log("cycle failed: %s", err);
        else if (slurm_load_partitions((time_t)0, &c.parts, SHOW_ALL) != SLURM_SUCCESS) {
            ps_log("cycle failed: slurm_load_partitions: %s", slurm_strerror(slurm_get_errno()));
            rc = PS_E_SLURM;
        }
    }
    if (rc == PS_OK && n > 0 && taken.len > 0) {
        /* a job released in an earlier cycle may not run yet: its nodes are not free for
         * this cycle's jobs even when Slurm still reports them idle */
        hostlist_t hl = slurm_hostlist_create(taken.s);
        char *h;
        while (hl && (h = slurm_hostlist_shift(hl))) {
            uint32_t x = tsched_topology_find_node(c.topo, h);
            if (x != TSCHED_NONE)
                tsched_topology_set_free_gpus(c.topo, x, 0);
            free(h);
        }
        if (hl)
            slurm_hostlist_destroy(hl);
    }
    free(taken.s);
    if (rc == PS_OK && n > 0) {
        uint32_t total = tsched_topology_num_nodes(c.topo);
        c.gpn = common_gpus(c.topo);
        c.cands = malloc((total ? total : 1) * sizeof *c.cands);
        c.mark = malloc(total ? total : 1);
        if (!c.cands || !c.mark) {
            ps_log("cycle failed: out of memory");
            rc = PS_E_OTHER;
        }
    }
    if (rc == PS_OK && n > 0 && cfg->reserve_horizon_s)
        reserve(&c, cs, n);
    for (size_t i = 0; rc == PS_OK && i < n; i++)
        if (!c.res || cs[i].id != c.res_id) /* the reserved job waits for its begin time */
            rc = decide(&c, &cs[i]);
    /* what this cycle logged replaces what earlier ones did (jobs gone are forgotten); a cycle
     * cut short keeps the older memory too, so nothing is logged twice after a blip */
    if (rc == PS_OK) {
        ps_cycle_cleanup();
        memos = c.new_memos;
        nmemos = c.new_nmemos;
    } else {
        for (size_t i = 0; i < c.new_nmemos; i++)
            free(c.new_memos[i].reason);
        free(c.new_memos);
    }
    for (size_t i = 0; i < all; i++)
        free(cs[i].comment), free(cs[i].admin_comment), free(cs[i].partition);
    free(cs);
    free(c.cands);
    free(c.mark);
    if (c.parts)
        slurm_free_partition_info_msg(c.parts);
    tsched_reservation_free(c.res);
    tsched_topology_free(c.topo);
    return rc;
}
