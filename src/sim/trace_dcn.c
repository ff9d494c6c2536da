/* trace convert-dcn: the routing paper's flow sets to tsched.trace.v1 (doc/sim-traces.md). */
#include "trace_convert_internal.h"

/* ---------------------------------------------------------------- convert-dcn */

#define DCN_HEADER "#src dst src_tor dst_tor start_time flow_size compute_time stage_index"
#define DCN_FIRST_SERVER 96u
#define DCN_SERVERS 2048u
#define DCN_PER_TOR 32u

static int dcn_cmp(const void *a, const void *b)
{
    const ts_trace_dcn_file *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return strcmp(x->file, y->file);
}

int ts_trace_dcn_match(const char *n, unsigned long long *k)
{
    if (strncmp(n, "job_", 4) != 0 || n[4] < '0' || n[4] > '9')
        return 0;
    char *end;
    errno = 0;
    *k = strtoull(n + 4, &end, 10);
    size_t len = strlen(n);
    return !errno && *end == '-' && end[1] != '\0' && len > 4 && strcmp(n + len - 4, ".txt") == 0 &&
           (size_t)(end + 1 - n) < len - 4;
}

tsched_status ts_trace_dcn_order(ts_trace_dcn_file *files, size_t n, const char *dir, ts_trace_err *err)
{
    if (n == 0)
        return ts_tc_fail(err, TSCHED_E_NOT_FOUND,
                          "%s: no job_<K>-<MODEL>.txt files (give a ring_size_R folder of the "
                          "dcn-simulators traffic pairs)",
                          dir);
    qsort(files, n, sizeof *files, dcn_cmp);
    for (size_t i = 1; i < n; i++)
        if (files[i].k == files[i - 1].k)
            return ts_tc_fail(err, TSCHED_E_DUPLICATE, "%s: job number %llu twice (%s, %s)", dir, files[i].k,
                              files[i - 1].file, files[i].file);
    return TSCHED_OK;
}

struct ts_trace_dcn {
    json_t *doc, *jobs;
    ts_rng r;
    uint64_t iterations;
    double window, compute_ms;
};

void ts_trace_dcn_free(ts_trace_dcn *d)
{
    if (!d)
        return;
    json_decref(d->doc);
    free(d);
}

tsched_status ts_trace_dcn_begin(ts_trace_dcn **out, const char *dir, uint64_t iterations, double window_s,
                                 const ts_trace_opts *o, ts_trace_err *err)
{
    *out = NULL;
    tsched_status st;
    if ((st = ts_trace_check_iterations(iterations, NULL, err)) || (st = ts_trace_check_window(window_s, NULL, err)) ||
        (st = ts_trace_check_compute_ms(o->compute_ms, NULL, err)))
        return st;
    /* a job's computation alone must end inside the clock the simulator refuses to pass, or the
     * trace loads but every run of it is refused when it starts */
    double end_s = window_s + (double)iterations * o->compute_ms / 1e3;
    if (!(end_s <= 9.2e9))
        return ts_tc_opt_fail(err,
                              "--compute-ms: %g ms x --iterations %llu from --arrival-window-s %g ends after %g s, "
                              "past the 9.2e9 s a simulated clock holds",
                              o->compute_ms, (unsigned long long)iterations, window_s, end_s);
    ts_trace_dcn *d = calloc(1, sizeof *d);
    char *dcopy = strdup(dir);
    if (!d || !dcopy) {
        free(d);
        free(dcopy);
        return ts_tc_nomem(err);
    }
    /* The trace's name: the folder's last two components (concurrent_jobs_N/ring_size_R). */
    size_t dl = strlen(dcopy);
    while (dl > 1 && dcopy[dl - 1] == '/')
        dcopy[--dl] = '\0';
    char *last = strrchr(dcopy, '/'), *name = dcopy;
    if (last && last != dcopy) {
        *last = '\0';
        char *prev = strrchr(dcopy, '/');
        *last = '/';
        name = prev ? prev + 1 : dcopy;
    }
    char tname[NAME_MAX_BYTES + 1];
    ts_tc_make_name(tname, NAME_MAX_BYTES, "dcn:", name);
    free(dcopy);
    d->doc = ts_tc_new_trace(tname);
    if (!d->doc) {
        free(d);
        return ts_tc_nomem(err);
    }
    d->jobs = json_object_get(d->doc, "jobs");
    ts_rng_seed(&d->r, o->seed);
    d->iterations = iterations;
    d->window = window_s;
    d->compute_ms = o->compute_ms;
    *out = d;
    return TSCHED_OK;
}

/* One job file to one job: nodes in order of first appearance, one phase of its flows. */
static tsched_status dcn_job(char *text, const char *path, const char *file, json_t *job, ts_trace_err *err)
{
    tsched_status rc = TSCHED_OK;
    int32_t rank_of[DCN_SERVERS];
    for (size_t i = 0; i < DCN_SERVERS; i++)
        rank_of[i] = -1;
    json_t *nodes = json_array(), *flows = json_array();
    size_t line = 0, nflows = 0;
    int32_t nranks = 0;
    char *p = text;
    while (*p && rc == TSCHED_OK) {
        char *l = p, *nl = strchr(p, '\n');
        if (nl) {
            *nl = '\0';
            p = nl + 1;
        } else
            p += strlen(p);
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[--ll] = '\0';
        l = ts_tc_trim(l);
        if (line == 1) {
            if (strcmp(l, DCN_HEADER) != 0)
                rc = ts_tc_fail(err, TSCHED_E_FORMAT, "%s:1: expected the header '" DCN_HEADER "'", path);
            continue;
        }
        if (!*l)
            continue;
        unsigned long long v[8];
        char *s = l, *end;
        int k = 0;
        for (; k < 8; k++) {
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s < '0' || *s > '9')
                break;
            errno = 0;
            v[k] = strtoull(s, &end, 10);
            if (errno || (*end && *end != ' ' && *end != '\t'))
                break;
            s = end;
        }
        while (*s == ' ' || *s == '\t')
            s++;
        if (k < 8 || *s) {
            rc = ts_tc_fail(err, TSCHED_E_PARSE, "%s:%zu: expected 8 whole numbers (%s)", path, line, &DCN_HEADER[1]);
            break;
        }
        static const char *const end_names[2] = {"src", "dst"};
        int32_t rk[2];
        for (int e = 0; e < 2 && rc == TSCHED_OK; e++) {
            unsigned long long vert = v[e];
            if (vert < DCN_FIRST_SERVER || vert >= DCN_FIRST_SERVER + DCN_SERVERS) {
                rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: %s: %llu is not a server vertex (%u..%u)", path, line,
                                end_names[e], vert, DCN_FIRST_SERVER, DCN_FIRST_SERVER + DCN_SERVERS - 1);
                break;
            }
            unsigned s_idx = (unsigned)(vert - DCN_FIRST_SERVER);
            if (v[2 + e] != s_idx / DCN_PER_TOR) {
                rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: %s_tor: %llu, but server vertex %llu sits under ToR %u",
                                path, line, end_names[e], v[2 + e], vert, s_idx / DCN_PER_TOR);
                break;
            }
            if (rank_of[s_idx] < 0) {
                char nm[32];
                ts_snprintf(nm, sizeof nm, "node%u", s_idx);
                rank_of[s_idx] = nranks++;
                if (json_array_append_new(nodes, json_string(nm)) != 0)
                    rc = ts_tc_nomem(err);
            }
            rk[e] = rank_of[s_idx];
        }
        if (rc != TSCHED_OK)
            break;
        if (v[0] == v[1]) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: dst: flow from server vertex %llu to itself", path, line,
                            v[0]);
            break;
        }
        if (v[5] == 0) {
            rc = ts_tc_fail(err, TSCHED_E_RANGE, "%s:%zu: flow_size: 0 bits", path, line);
            break;
        }
        json_t *f = json_pack("{s:i, s:i, s:o}", "src", (json_int_t)rk[0], "dst", (json_int_t)rk[1], "gbits",
                              ts_tc_num((double)v[5] / 1e9));
        if (!f || json_array_append_new(flows, f) != 0)
            rc = ts_tc_nomem(err);
        nflows++;
    }
    if (rc == TSCHED_OK && nflows == 0)
        rc = ts_tc_fail(err, TSCHED_E_NOT_FOUND, "%s: no flows", path);
    if (rc == TSCHED_OK) {
        char name[NAME_MAX_BYTES + 1];
        ts_tc_make_name(name, NAME_MAX_BYTES, "", file);
        size_t nl = strlen(name);
        if (nl > 4 && strcmp(name + nl - 4, ".txt") == 0)
            name[nl - 4] = '\0';
        if (ts_tc_set(job, "name", json_string(name)) || ts_tc_set(job, "nodes", nodes) ||
            ts_tc_set(job, "phases", json_pack("[{s:o}]", "flows", flows)))
            rc = ts_tc_nomem(err);
        return rc;
    }
    json_decref(nodes);
    json_decref(flows);
    return rc;
}

tsched_status ts_trace_dcn_add(ts_trace_dcn *d, const char *text, size_t len, const char *path, const char *file,
                               ts_trace_err *err)
{
    tsched_status st = ts_tc_no_nul(text, len, path, err);
    if (st != TSCHED_OK)
        return st;
    json_t *job = json_object();
    if (!job || json_array_append_new(d->jobs, job) != 0)
        return ts_tc_nomem(err);
    /* fields in trace order: name, arrival_s, nodes, compute_ms, iterations, phases */
    if (ts_tc_set(job, "name", json_string("")) ||
        ts_tc_set(job, "arrival_s", ts_tc_num(d->window * ts_tc_rng_uniform(&d->r))) ||
        ts_tc_set(job, "nodes", json_array()) || ts_tc_set(job, "compute_ms", ts_tc_num(d->compute_ms)) ||
        ts_tc_set(job, "iterations", json_integer((json_int_t)d->iterations)))
        return ts_tc_nomem(err);
    char *copy = malloc(len + 1);
    if (!copy)
        return ts_tc_nomem(err);
    memcpy(copy, text, len);
    copy[len] = '\0';
    st = dcn_job(copy, path, file, job, err);
    free(copy);
    return st;
}

tsched_status ts_trace_dcn_finish(json_t **out, ts_trace_dcn *d, ts_trace_err *err)
{
    (void)err;
    *out = d->doc;
    d->doc = NULL;
    ts_trace_dcn_free(d);
    return TSCHED_OK;
}
