/* topo-sched cells -t TOPO -j JOB [-c GPUS] [--profile PROFILE] [--type T] [--gpus N]
 *                  [--stages S] [--plans assembled|tuned|exhaustive] [--no-timing]
 *                  [--compact] [-o FILE]                                   (doc/cell.md §8)
 * The job's candidate Cells on every pool of the fabric whose GPU type is in the catalogue:
 * tsched.cells.v1, one element per Cell from tsched_cell_to_json(). Exit 0 (also when no
 * Cell is feasible), 2 bad usage or input (one line naming the file or option and the
 * field; nothing on standard output), 3 internal failure. Also the helpers that
 * crius-schedule shares (catalogue, file errors, output). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"

/* ---- shared with cmd_crius.c ---- */

int cli_cell_opt_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("topo-sched: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_BAD_INPUT;
}

int cli_cell_fail_file(tsched_status st, const char *path)
{
    /* Readers of files prefix their messages with the file name; add it when absent. */
    const char *msg = tsched_last_error(), *shown = strcmp(path, "-") ? path : "<stdin>";
    size_t n = strlen(shown);
    if (strncmp(msg, shown, n) == 0 && msg[n] == ':')
        return cli_fail(st);
    return cli_fail_in(st, shown);
}

int cli_cell_catalog(tsched_gpu_catalog **out, const char *path)
{
    tsched_gpu_catalog *cat = NULL, *file = NULL;
    tsched_status st = tsched_gpu_catalog_default(&cat);
    if (st != TSCHED_OK)
        return cli_fail(st);
    if (path) {
        if ((st = tsched_gpu_catalog_load_file(&file, path)) != TSCHED_OK) {
            tsched_gpu_catalog_free(cat);
            return cli_cell_fail_file(st, path);
        }
        st = tsched_gpu_catalog_merge(cat, file);
        tsched_gpu_catalog_free(file);
        if (st != TSCHED_OK) {
            tsched_gpu_catalog_free(cat);
            return cli_fail_in(st, path);
        }
    }
    *out = cat;
    return CLI_OK;
}

int cli_cell_nomem(void)
{
    fputs("topo-sched: out of memory\n", stderr);
    return CLI_INTERNAL;
}

int cli_cell_emit(json_t *doc, int compact, const char *path) { return cli_write_doc(path, doc, compact); }

double cli_cell_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- cells ---- */

/* Index of `s` in the NULL-terminated `names`, or -1. */
static int pick(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* `--gpus N` / `--stages S`: a whole number >= 1. */
static int parse_count(const char *opt, const char *s, unsigned *out)
{
    if (cli_parse_u32(s, out) != 0)
        return cli_usage_error("%s: '%s' is not a whole number", opt, s);
    if (*out == 0)
        return cli_cell_opt_error("%s: 0 is out of range (>= 1)", opt);
    return CLI_OK;
}

/* GPU type of pool "TYPE/G" into `buf` (the part before the last '/'); G into *g. */
static void split_pool(const char *pool, char *buf, size_t cap, unsigned *g)
{
    const char *slash = strrchr(pool, '/');
    size_t n = slash ? (size_t)(slash - pool) : strlen(pool);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, pool, n);
    buf[n] = '\0';
    *g = slash ? (unsigned)strtoul(slash + 1, NULL, 10) : 0;
}

/* Append one Cell's element (from the library) to `cells`; returns an exit status. */
static int add_cell(json_t *cells, const tsched_cell *c)
{
    char *text = NULL;
    tsched_status st = tsched_cell_to_json(&text, c);
    if (st != TSCHED_OK)
        return cli_fail(st);
    json_error_t err;
    json_t *el = json_loads(text, 0, &err);
    tsched_free(text);
    if (!el || json_array_append_new(cells, el) != 0) {
        fprintf(stderr, "topo-sched: cells: the library's Cell element did not parse: %s\n", el ? "append" : err.text);
        return CLI_INTERNAL;
    }
    return CLI_OK;
}

int cmd_cells(int argc, char **argv)
{
    static const char *const spaces[] = {"assembled", "tuned", "exhaustive", NULL};
    const char *topo = NULL, *jobf = NULL, *catf = NULL, *proff = NULL, *type = NULL, *out = NULL;
    int space = TSCHED_PLANS_ASSEMBLED, timing = 1, compact = 0, rc;
    unsigned only_n = 0, only_s = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-t") && has)
            topo = argv[++i];
        else if (!strcmp(a, "-j") && has)
            jobf = argv[++i];
        else if (!strcmp(a, "-c") && has)
            catf = argv[++i];
        else if (!strcmp(a, "--profile") && has)
            proff = argv[++i];
        else if (!strcmp(a, "--type") && has)
            type = argv[++i];
        else if (!strcmp(a, "-o") && has)
            out = argv[++i];
        else if (!strcmp(a, "--gpus") && has) {
            if ((rc = parse_count("--gpus", argv[++i], &only_n)) != CLI_OK)
                return rc;
        } else if (!strcmp(a, "--stages") && has) {
            if ((rc = parse_count("--stages", argv[++i], &only_s)) != CLI_OK)
                return rc;
        } else if (!strcmp(a, "--plans") && has) {
            if ((space = pick(argv[++i], spaces)) < 0)
                return cli_usage_error("--plans: '%s' unknown (assembled, tuned or exhaustive)", argv[i]);
        } else if (!strcmp(a, "--no-timing"))
            timing = 0;
        else if (!strcmp(a, "--compact"))
            compact = 1;
        else
            return cli_usage_error("cells: unknown or incomplete option '%s'", a);
    }
    if (!topo || !jobf)
        return cli_usage_error("cells: -t TOPO and -j JOB are required");
    if ((strcmp(topo, "-") == 0) + (strcmp(jobf, "-") == 0) + (catf && strcmp(catf, "-") == 0) +
            (proff && strcmp(proff, "-") == 0) >
        1)
        return cli_usage_error("cells: at most one file may be '-' (standard input)");

    tsched_topology *t = NULL;
    tsched_job *job = NULL;
    tsched_gpu_catalog *cat = NULL;
    tsched_op_profile *prof = NULL;
    char **pools = NULL;
    uint32_t npools = 0;
    json_t *doc = NULL, *cells = NULL, *unknown = NULL;
    tsched_status st;
    tsched_model model;
    tsched_model_init(&model);
    if ((st = tsched_topology_load_file(&t, topo))) {
        rc = cli_cell_fail_file(st, topo);
        goto done;
    }
    if ((st = tsched_job_load_file(&job, jobf))) {
        rc = cli_cell_fail_file(st, jobf);
        goto done;
    }
    if ((st = tsched_job_model(&model, job))) {
        if (st == TSCHED_E_NOT_FOUND)
            rc = cli_cell_opt_error("%s: model: missing; a Cell estimate needs the model",
                                    strcmp(jobf, "-") ? jobf : "<stdin>");
        else
            rc = cli_cell_fail_file(st, jobf);
        goto done;
    }
    if ((rc = cli_cell_catalog(&cat, catf)) != CLI_OK)
        goto done;
    if (proff) {
        if ((st = tsched_op_profile_load_file(&prof, proff))) {
            rc = cli_cell_fail_file(st, proff);
            goto done;
        }
        if (tsched_op_profile_layers(prof) != model.layers) {
            rc = cli_cell_opt_error("%s: layers: %u entries, model has %u", strcmp(proff, "-") ? proff : "<stdin>",
                                    tsched_op_profile_layers(prof), model.layers);
            goto done;
        }
    }
    if ((st = tsched_cell_pools(&pools, &npools, t))) {
        rc = cli_fail_in(st, "-t");
        goto done;
    }
    char ptype[256];
    unsigned g;
    if (type) {
        int found = 0;
        for (uint32_t p = 0; p < npools && !found; p++) {
            split_pool(pools[p], ptype, sizeof ptype, &g);
            found = strcmp(ptype, type) == 0;
        }
        if (!found) {
            rc = cli_cell_opt_error("--type: no pool of gpu type \"%s\" in fabric \"%s\"", type,
                                    tsched_topology_name(t));
            goto done;
        }
    }

    double t0 = cli_cell_now_ms();
    doc = json_object();
    cells = json_array();
    unknown = json_array();
    if (!doc || !cells || !unknown || json_object_set_new(doc, "format", json_string("tsched.cells.v1")) ||
        json_object_set_new(doc, "job", json_string(tsched_job_name(job))) ||
        json_object_set_new(doc, "plans", json_string(spaces[space]))) {
        rc = cli_cell_nomem();
        goto done;
    }
    /* N: N_G/2 (N_G even), N_G, 2 N_G; or --gpus */
    uint32_t ng = tsched_job_gpus(job), ns[3], nn = 0;
    if (only_n)
        ns[nn++] = only_n;
    else {
        if (ng % 2 == 0)
            ns[nn++] = ng / 2;
        ns[nn++] = ng;
        if (ng <= UINT32_MAX / 2)
            ns[nn++] = 2 * ng;
    }
    for (uint32_t p = 0; p < npools && rc == CLI_OK; p++) {
        split_pool(pools[p], ptype, sizeof ptype, &g);
        if (type && strcmp(ptype, type) != 0)
            continue;
        tsched_gpu_info info = {.size = sizeof info};
        if (tsched_gpu_catalog_find(&info, cat, ptype) != TSCHED_OK) {
            size_t k = json_array_size(unknown);
            int seen = 0;
            for (size_t i = 0; i < k && !seen; i++)
                seen = strcmp(json_string_value(json_array_get(unknown, i)), ptype) == 0;
            if (!seen && json_array_append_new(unknown, json_string(ptype)) != 0)
                rc = cli_cell_nomem();
            continue;
        }
        const tsched_op_profile *use = prof && strcmp(tsched_op_profile_gpu_type(prof), ptype) == 0 ? prof : NULL;
        if (model.moe_experts > 0 && prof && !use) {
            rc = cli_cell_opt_error("%s: model.moe_experts: MoE is not in the cell cost model; supply an op profile "
                                    "(--profile covers gpu type \"%s\" only: add --type %s)",
                                    strcmp(jobf, "-") ? jobf : "<stdin>", tsched_op_profile_gpu_type(prof),
                                    tsched_op_profile_gpu_type(prof));
            break;
        }
        for (uint32_t a = 0; a < nn && rc == CLI_OK; a++) {
            uint32_t n = ns[a];
            uint32_t smax = n < model.layers ? n : model.layers;
            for (uint32_t s = only_s ? only_s : 1; rc == CLI_OK && (only_s ? s == only_s : s <= smax);
                 s = only_s ? s + 1 : 2 * s) {
                tsched_cell *c = NULL;
                if ((st = tsched_cell_estimate(&c, t, pools[p], cat, job, use, n, s, (tsched_plan_space)space))) {
                    /* a profile or model the estimate refuses: name the file it came from */
                    if (st == TSCHED_E_TOO_LARGE) /* N above the library's Cell size limit */
                        rc = only_n ? cli_fail_in(st, "--gpus") : cli_cell_fail_file(st, jobf);
                    else if (st == TSCHED_E_RANGE || st == TSCHED_E_NOT_FOUND)
                        rc = cli_cell_fail_file(st, use ? proff : jobf);
                    else
                        rc = cli_fail(st);
                    break;
                }
                rc = add_cell(cells, c);
                tsched_cell_free(c);
                if (!only_s && s > UINT32_MAX / 2)
                    break;
            }
        }
    }
    if (rc != CLI_OK)
        goto done;
    if ((json_array_size(unknown) && json_object_set(doc, "unknown_gpu_types", unknown)) ||
        json_object_set(doc, "cells", cells) ||
        (timing && json_object_set_new(doc, "solve_ms", json_real(cli_cell_now_ms() - t0)))) {
        rc = cli_cell_nomem();
        goto done;
    }
    rc = cli_cell_emit(doc, compact, out);
done:
    json_decref(unknown);
    json_decref(cells);
    json_decref(doc);
    tsched_free(pools);
    tsched_op_profile_free(prof);
    tsched_gpu_catalog_free(cat);
    tsched_job_free(job);
    tsched_topology_free(t);
    return rc;
}
