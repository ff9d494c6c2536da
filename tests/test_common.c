/* common: status codes (ABI numbers), per-thread last error, allocation, RNG, string
 * table, JSON field readers, and the GLPK guard. */
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/glpk_guard.h"
#include "common/json.h"
#include "common/limits.h"
#include "common/names.h"
#include "common/numfmt.h"
#include "common/structsize.h"
#include "common/rng.h"
#include "common/strtab.h"
#include "test_util.h"
#include "jread_oracle.h"

START_TEST(status_numbers_are_fixed)
{
    /* These numbers are ABI: a change here breaks every caller compiled before. */
    ck_assert_int_eq(TSCHED_OK, 0);
    ck_assert_int_eq(TSCHED_E_NOMEM, 1);
    ck_assert_int_eq(TSCHED_E_INVALID, 2);
    ck_assert_int_eq(TSCHED_E_PARSE, 3);
    ck_assert_int_eq(TSCHED_E_FORMAT, 4);
    ck_assert_int_eq(TSCHED_E_TYPE, 5);
    ck_assert_int_eq(TSCHED_E_RANGE, 6);
    ck_assert_int_eq(TSCHED_E_NOT_FOUND, 7);
    ck_assert_int_eq(TSCHED_E_DUPLICATE, 8);
    ck_assert_int_eq(TSCHED_E_TOO_LARGE, 9);
    ck_assert_int_eq(TSCHED_E_CYCLE, 10);
    ck_assert_int_eq(TSCHED_E_IO, 11);
    ck_assert_int_eq(TSCHED_E_STATE, 12);
    ck_assert_int_eq(TSCHED_E_BUFFER, 13);
    ck_assert_int_eq(TSCHED_E_NO_PATH, 14);
    ck_assert_int_eq(TSCHED_E_INFEASIBLE, 15);
    ck_assert_int_eq(TSCHED_E_SOLVER, 16);
    ck_assert_int_eq(TSCHED_E_TIMEOUT, 17);
    ck_assert_int_eq(TSCHED_E_INTERNAL, 18);
    ck_assert_int_eq(TSCHED_E_MISMATCH, 19);
    /* every code has its own name */
    for (int a = 0; a <= 19; a++) {
        const char *sa = tsched_status_str((tsched_status)a);
        ck_assert_str_ne(sa, "TSCHED_E_UNKNOWN");
        for (int b = 0; b < a; b++)
            ck_assert_str_ne(sa, tsched_status_str((tsched_status)b));
    }
    ck_assert_str_eq(tsched_status_str((tsched_status)99), "TSCHED_E_UNKNOWN");
    /* one numbering of levels (DESIGN 3): tiers, levels and domains agree */
    ck_assert_int_eq(TSCHED_TIER_LEAF, 0);
    ck_assert_int_eq(TSCHED_TIER_SPINE, 1);
    ck_assert_int_eq(TSCHED_TIER_CORE, 2);
    ck_assert_int_eq(TSCHED_LEVEL_LEAF, TSCHED_TIER_LEAF);
    ck_assert_int_eq(TSCHED_LEVEL_POD, TSCHED_TIER_SPINE);
    ck_assert_int_eq(TSCHED_LEVEL_CLUSTER, TSCHED_TIER_CORE);
    ck_assert_int_eq(TSCHED_DOMAIN_LEAF, TSCHED_LEVEL_LEAF);
    ck_assert_int_eq(TSCHED_DOMAIN_POD, TSCHED_LEVEL_POD);
    ck_assert_int_eq(TSCHED_DOMAIN_NVL, TSCHED_LEVEL_NVL);
    ck_assert_int_eq(TSCHED_LEVEL_NVL, 3);
    ck_assert_int_eq(TSCHED_DOMAIN_AUTO, -1);
    /* one version number: the headers' macros, the runtime string and number agree */
    ck_assert_str_eq(tsched_version(), TSCHED_VERSION_STRING);
    ck_assert_uint_eq(tsched_version_number(), TSCHED_VERSION_NUMBER);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", TSCHED_VERSION_MAJOR, TSCHED_VERSION_MINOR, TSCHED_VERSION_PATCH);
    ck_assert_str_eq(tsched_version(), v);
}
END_TEST

static void *fail_in_thread(void *arg)
{
    (void)arg;
    ts_error(TSCHED_E_RANGE, "thread message");
    return (void *)(intptr_t)(strcmp(tsched_last_error(), "thread message") == 0);
}

START_TEST(last_error_is_per_thread)
{
    ts_error(TSCHED_E_PARSE, "main %d", 42);
    pthread_t th;
    void *ok;
    ck_assert_int_eq(pthread_create(&th, NULL, fail_in_thread, NULL), 0);
    ck_assert_int_eq(pthread_join(th, &ok), 0);
    ck_assert_int_eq((int)(intptr_t)ok, 1);
    ck_assert_str_eq(tsched_last_error(), "main 42");
    ck_assert_int_eq(tsched_last_status(), TSCHED_E_PARSE);
    ts_error_prefix(TSCHED_E_PARSE, "file.json");
    ck_assert_str_eq(tsched_last_error(), "file.json: main 42");
    /* a very long prefix and message are cut, never overflow */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ts_error(TSCHED_E_PARSE, "%s", big);
    ts_error_prefix(TSCHED_E_PARSE, big);
    ck_assert_uint_lt(strlen(tsched_last_error()), 1024);
    tsched_clear_error();
    ck_assert_str_eq(tsched_last_error(), "");
    ck_assert_int_eq(tsched_last_status(), TSCHED_OK);
}
END_TEST

START_TEST(alloc_overflow_is_an_error)
{
    ck_assert_ptr_null(ts_malloc(SIZE_MAX / 2, 4));
    ck_assert_int_eq(tsched_last_status(), TSCHED_E_NOMEM);
    ck_assert_ptr_null(ts_calloc(SIZE_MAX / 2, 4));
    int *v = NULL;
    size_t cap = 0;
    ck_assert_ok(TS_GROW(v, cap, 100));
    ck_assert_uint_ge(cap, 100);
    v[99] = 1;
    ck_assert_status(TS_GROW(v, cap, SIZE_MAX / 2), TSCHED_E_NOMEM);
    ck_assert_int_eq(v[99], 1); /* untouched on failure */
    tsched_free(v);
    tsched_free(NULL);
}
END_TEST

START_TEST(rng_is_deterministic_and_uniform)
{
    ts_rng a, b;
    ts_rng_seed(&a, 12345);
    ts_rng_seed(&b, 12345);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(ts_rng_next(&a), ts_rng_next(&b));
    ts_rng_seed(&b, 12346);
    int same = 0;
    for (int i = 0; i < 100; i++)
        same += ts_rng_next(&a) == ts_rng_next(&b);
    ck_assert_int_lt(same, 2);
    /* below(n) stays in range and every value turns up roughly n-th of the time */
    unsigned hist[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t x = ts_rng_below(&a, 7);
        ck_assert_uint_lt(x, 7);
        hist[x]++;
    }
    for (int i = 0; i < 7; i++)
        ck_assert_msg(hist[i] > 9400 && hist[i] < 10600, "bucket %d has %u", i, hist[i]);
    ck_assert_uint_eq(ts_rng_below(&a, 0), 0);
    for (int i = 0; i < 1000; i++) {
        double d = ts_rng_double(&a);
        ck_assert(d >= 0.0 && d < 1.0);
    }
    uint32_t perm[50];
    for (uint32_t i = 0; i < 50; i++)
        perm[i] = i;
    ts_rng_shuffle_u32(&a, perm, 50);
    unsigned seen = 0, moved = 0;
    for (uint32_t i = 0; i < 50; i++) {
        seen += perm[i] < 50;
        moved += perm[i] != i;
    }
    ck_assert_uint_eq(seen, 50);
    ck_assert_uint_gt(moved, 25);
}
END_TEST

START_TEST(strtab_interns_many)
{
    ts_strtab t;
    ts_strtab_init(&t);
    char name[32];
    for (uint32_t i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "n%u", i);
        uint32_t id;
        int added;
        ck_assert_ok(ts_strtab_intern(&t, name, &id, &added));
        ck_assert_uint_eq(id, i);
        ck_assert_int_eq(added, 1);
    }
    for (uint32_t i = 0; i < 20000; i += 7) {
        snprintf(name, sizeof name, "n%u", i);
        ck_assert_uint_eq(ts_strtab_find(&t, name), i);
        ck_assert_str_eq(ts_strtab_str(&t, i), name);
        uint32_t id;
        int added;
        ck_assert_ok(ts_strtab_intern(&t, name, &id, &added));
        ck_assert_int_eq(added, 0);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_uint_eq(ts_strtab_find(&t, "missing"), UINT32_MAX);
    ck_assert_uint_eq(ts_strtab_count(&t), 20000);
    ts_strtab_free(&t);
}
END_TEST

START_TEST(json_readers_name_the_field)
{
    json_t *o;
    const char *doc = "{\"a\": -3, \"b\": 2.5, \"c\": \"x\", \"d\": 7, \"e\": 4.0, \"f\": [], \"g\": \"\"}";
    ck_assert_ok(ts_json_parse(&o, doc, strlen(doc)));
    uint32_t u = 99;
    double d;
    const char *s;
    const json_t *arr;
    ck_assert_status(ts_json_u32(&u, o, "nodes[3]", "a", 1, 0, 10), TSCHED_E_RANGE);
    ck_assert_errmsg_has("nodes[3].a");
    ck_assert_errmsg_has("-3");
    ck_assert_status(ts_json_u32(&u, o, "x", "b", 1, 0, 10), TSCHED_E_RANGE); /* 2.5: a number, not whole */
    ck_assert_errmsg_has("x.b");
    ck_assert_status(ts_json_u32(&u, o, "x", "c", 1, 0, 10), TSCHED_E_TYPE);
    ck_assert_errmsg_has("string");
    ck_assert_status(ts_json_u32(&u, o, "x", "d", 1, 0, 5), TSCHED_E_RANGE);
    ck_assert_ok(ts_json_u32(&u, o, "x", "e", 1, 0, 5));
    ck_assert_uint_eq(u, 4);
    ck_assert_status(ts_json_u32(&u, o, "x", "zz", 1, 0, 5), TSCHED_E_NOT_FOUND);
    ck_assert_errmsg_has("x.zz");
    u = 77;
    ck_assert_ok(ts_json_u32(&u, o, "x", "zz", 0, 0, 5));
    ck_assert_uint_eq(u, 77); /* default kept */
    ck_assert_status(ts_json_num(&d, o, "", "a", 1, 0, 1, 100), TSCHED_E_RANGE);
    ck_assert_ok(ts_json_num(&d, o, "", "b", 1, 0, 1, 100));
    ck_assert_double_eq(d, 2.5);
    ck_assert_status(ts_json_num(&d, o, "", "b", 1, 2.5, 1, 100), TSCHED_E_RANGE);
    ck_assert_status(ts_json_str(&s, o, "", "d", 1), TSCHED_E_TYPE);
    ck_assert_status(ts_json_str(&s, o, "", "g", 1), TSCHED_E_RANGE);
    ck_assert_status(ts_json_arr(&arr, o, "", "c", 1), TSCHED_E_TYPE);
    ck_assert_ok(ts_json_arr(&arr, o, "", "f", 1));
    ck_assert_status(ts_json_check_format(o, "tsched.x.v1"), TSCHED_E_FORMAT);
    json_decref(o);
    ck_assert_status(ts_json_parse(&o, "{\"a\":1,\"a\":2}", 13), TSCHED_E_PARSE);
    ck_assert_status(ts_json_parse(&o, "{\"a\":", 5), TSCHED_E_PARSE);
    ck_assert_errmsg_has("line 1");
    char *buf;
    size_t len;
    ck_assert_status(ts_read_file(&buf, &len, "/nonexistent/file.json"), TSCHED_E_IO);
    ck_assert_errmsg_has("/nonexistent/file.json");
}
END_TEST

/* GLPK failures become a status; GLPK output never reaches stdout. */
static tsched_status error_body(void *ctx)
{
    (void)ctx;
    glp_prob *lp = glp_create_prob();
    glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, 5, GLP_LO, 0, 0); /* column 5 does not exist: GLPK error */
    glp_delete_prob(lp);
    return TSCHED_OK;
}

static tsched_status provoke_glpk_error(void) { return ts_glpk_run(error_body, NULL, "test model"); }

typedef struct mip_ctx {
    double obj;
    int solved;
    int time_ms; /* > 0: a model too large to finish, stopped by the limit */
} mip_ctx;

static tsched_status mip_body(void *arg)
{
    mip_ctx *m = arg;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_cols(lp, 2);
    glp_set_col_kind(lp, 1, GLP_IV);
    glp_set_col_kind(lp, 2, GLP_IV);
    glp_set_col_bnds(lp, 1, GLP_DB, 0, 10);
    glp_set_col_bnds(lp, 2, GLP_DB, 0, 10);
    glp_set_obj_coef(lp, 1, 3);
    glp_set_obj_coef(lp, 2, 2);
    glp_add_rows(lp, 1);
    int ind[3] = {0, 1, 2};
    double val[3] = {0, 2, 1};
    glp_set_mat_row(lp, 1, 2, ind, val);
    glp_set_row_bnds(lp, 1, GLP_UP, 0, 7.5);
    glp_iocp parm;
    ts_glpk_iocp(&parm, 1000);
    parm.msg_lev = GLP_MSG_ALL; /* would print without the hook */
    m->solved = glp_intopt(lp, &parm) == 0 && glp_mip_status(lp) == GLP_OPT;
    m->obj = glp_mip_obj_val(lp);
    glp_delete_prob(lp);
    return TSCHED_OK;
}

/* A knapsack-like model GLPK cannot finish in a few milliseconds: many equal-looking
 * items with incommensurable weights. */
static tsched_status slow_body(void *arg)
{
    mip_ctx *m = arg;
    enum { N = 60 };
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_cols(lp, N);
    glp_add_rows(lp, 2);
    int ind[N + 1];
    double w1[N + 1], w2[N + 1];
    for (int j = 1; j <= N; j++) {
        glp_set_col_kind(lp, j, GLP_BV);
        glp_set_obj_coef(lp, j, 1000.0 + (j * 7919 % 1000) / 7.0);
        ind[j] = j;
        w1[j] = 1000.0 + (j * 104729 % 997);
        w2[j] = 1000.0 + (j * 1299709 % 991);
    }
    glp_set_mat_row(lp, 1, N, ind, w1);
    glp_set_row_bnds(lp, 1, GLP_UP, 0, 30123.5);
    glp_set_mat_row(lp, 2, N, ind, w2);
    glp_set_row_bnds(lp, 2, GLP_UP, 0, 29876.5);
    glp_iocp parm;
    ts_glpk_iocp(&parm, m->time_ms);
    parm.presolve = GLP_ON;
    int ret = glp_intopt(lp, &parm);
    m->solved = ret == 0 && glp_mip_status(lp) == GLP_OPT;
    glp_delete_prob(lp);
    return TSCHED_OK;
}

START_TEST(glpk_guard_turns_errors_into_status)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    dup2(fileno(tmp), STDOUT_FILENO);
    tsched_status st = provoke_glpk_error();
    /* A healthy solve afterwards works, with GLPK's chatter swallowed. */
    mip_ctx m = {0, 0, 0};
    tsched_status st2 = ts_glpk_run(mip_body, &m, "small");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    long printed = ftell(tmp);
    fclose(tmp);
    ck_assert_int_eq(st, TSCHED_E_SOLVER);
    ck_assert_int_eq(st2, TSCHED_OK);
    ck_assert_int_eq(m.solved, 1);
    /* max 3x + 2y, 2x + y <= 7.5, integral: y = 7 - 2x gives 14 - x, so x = 0, y = 7 */
    ck_assert_double_eq(m.obj, 14);
    ck_assert_int_eq(printed, 0);
}
END_TEST

/* The body's own error comes back to the calling thread with its message. */
static tsched_status failing_body(void *ctx)
{
    (void)ctx;
    return ts_error(TSCHED_E_RANGE, "body: value %d", 42);
}

START_TEST(glpk_run_returns_body_errors)
{
    ck_assert_status(ts_glpk_run(failing_body, NULL, "x"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("body: value 42");
    provoke_glpk_error();
    ck_assert_errmsg_has("test model: GLPK failed");
}
END_TEST

/* ---- a host program that uses GLPK itself (DESIGN 3) --------------------------------- */

static int host_term(void *info, const char *s)
{
    (void)s;
    (*(unsigned long *)info)++;
    return 1;
}

/* The host's own problem, built before the library runs, checked and extended after. */
static glp_prob *host_make(void)
{
    glp_prob *lp = glp_create_prob();
    glp_set_prob_name(lp, "host");
    glp_add_cols(lp, 3);
    glp_add_rows(lp, 1);
    int ind[4] = {0, 1, 2, 3};
    double val[4] = {0, 1, 1, 1};
    glp_set_mat_row(lp, 1, 3, ind, val);
    glp_set_row_bnds(lp, 1, GLP_UP, 0, 2);
    for (int j = 1; j <= 3; j++) {
        glp_set_col_bnds(lp, j, GLP_DB, 0, 1);
        glp_set_obj_coef(lp, j, j);
    }
    glp_set_obj_dir(lp, GLP_MAX);
    return lp;
}

static void host_check(glp_prob *lp, const unsigned long *host_lines)
{
    ck_assert_str_eq(glp_get_prob_name(lp), "host");
    ck_assert_int_eq(glp_get_num_cols(lp), 3);
    glp_smcp p;
    glp_init_smcp(&p);
    p.msg_lev = GLP_MSG_ALL; /* prints through the host's hook, if the hook survived */
    unsigned long before = *host_lines;
    ck_assert_int_eq(glp_simplex(lp, &p), 0);
    ck_assert_double_eq_tol(glp_get_obj_val(lp), 5.0, 1e-9);
    ck_assert_uint_gt(*host_lines, before);
}

static void *host_thread(void *arg)
{
    (void)arg;
    unsigned long lines = 0; /* lines the host's own hook saw: hooks are per thread in GLPK */
    glp_term_hook(host_term, &lines);
    glp_prob *lp = host_make();
    for (int round = 0; round < 3; round++) {
        /* failure, time-out, success: the host's problem and hooks survive each */
        ck_assert_status(provoke_glpk_error(), TSCHED_E_SOLVER);
        mip_ctx slow = {0, 0, 5};
        ck_assert_ok(ts_glpk_run(slow_body, &slow, "slow"));
        mip_ctx m = {0, 0, 0};
        ck_assert_ok(ts_glpk_run(mip_body, &m, "small"));
        ck_assert_int_eq(m.solved, 1);
        host_check(lp, &lines);
    }
    glp_delete_prob(lp);
    glp_term_hook(NULL, NULL);
    glp_free_env(); /* the host's own environment, as a host would at its end */
    return NULL;
}

START_TEST(glpk_host_objects_and_hooks_survive)
{
    host_thread(NULL);
    /* and on several host threads at once */
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, host_thread, NULL), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
}
END_TEST

/* ---- names, one-line messages, limits, the size rule, bounded reading (DESIGN 3) ---- */

START_TEST(names_are_checked)
{
    static const char *const good[] = {"node0", "gpu-a100_80gb", "leaf.3", "n\xc3\xa9ud", "\xe8\x8a\x82\xe7\x82\xb9",
                                       "\xf0\x9f\x96\xa5"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(ts_name_check(good[i], "f") == TSCHED_OK, "%s: %s", good[i], tsched_last_error());
    static const char *const bad[] = {"",         "a~b",        "a#1",        "tab\there", "new\nline",
                                      "del\x7f",  "\xff",       "\xc3",       "\xc0\x80" /* overlong */,
                                      "\xed\xa0\x80" /* surrogate */, "\xc2\x85" /* C1 NEL */,
                                      "\xe2\x80\xa8" /* U+2028 */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(ts_name_check(bad[i], "nodes[3].name") == TSCHED_E_RANGE, "bad name %zu accepted", i);
        ck_assert_errmsg_has("nodes[3].name");
        ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    }
    ck_assert_status(ts_name_check(NULL, "f"), TSCHED_E_INVALID);
    /* the length limit is a limit: 255 bytes by default, settable */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[299] = '\0';
    ck_assert_status(ts_name_check(longname, "f"), TSCHED_E_RANGE);
    ck_assert_errmsg_has("name_bytes");
    longname[255] = '\0';
    ck_assert_ok(ts_name_check(longname, "f"));
    tsched_limits l = {.size = sizeof l};
    ck_assert_ok(tsched_limits_get(&l));
    l.name_bytes = 8;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_status(ts_name_check("123456789", "f"), TSCHED_E_RANGE);
    tsched_limits_reset();
    ck_assert_ok(ts_name_check("123456789", "f"));
}
END_TEST

START_TEST(messages_are_one_line)
{
    ts_error(TSCHED_E_RANGE, "name \"%s\" in %s", "a\nFAKE: injected\r\x1b[2J", "x\xff");
    const char *m = tsched_last_error();
    for (const char *c = m; *c; c++)
        ck_assert_msg((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte 0x%02x in \"%s\"", *c, m);
    ck_assert_errmsg_has("a\\nFAKE: injected\\r\\x1b[2J");
    ck_assert_errmsg_has("x\\xff");
    ts_error(TSCHED_E_IO, "inner\nline");
    ts_error_prefix(TSCHED_E_IO, "file\twith\ttabs");
    ck_assert_ptr_null(strchr(tsched_last_error(), '\n'));
    ck_assert_ptr_null(strchr(tsched_last_error(), '\t'));
}
END_TEST

static void *limits_in_thread(void *arg)
{
    (void)arg;
    tsched_limits l = {.size = sizeof l};
    tsched_limits_get(&l);
    return (void *)(intptr_t)(l.nodes == (1u << 20)); /* another thread sees the defaults */
}

START_TEST(limits_get_set_per_thread)
{
    tsched_limits_reset();
    tsched_limits l = {.size = sizeof l};
    ck_assert_ok(tsched_limits_get(&l));
    ck_assert_uint_eq(l.input_bytes, 256ull << 20);
    ck_assert_uint_eq(l.nodes, 1u << 20);
    ck_assert_uint_eq(l.name_bytes, 255);
    ck_assert_uint_eq(l.kcut_levels, 64);
    ck_assert_uint_eq(l.kcut_memory, 1ull << 30);
    /* a caller built before kcut_memory (its size ends at dag_nodes) sets the rest and
     * leaves kcut_memory as it is */
    tsched_limits before = {.size = offsetof(tsched_limits, kcut_memory)};
    ck_assert_ok(tsched_limits_get(&before));
    before.kcut_levels = 9;
    before.kcut_memory = 123; /* beyond its size: ignored */
    ck_assert_ok(tsched_limits_set(&before));
    ck_assert_uint_eq(ts_limits()->kcut_levels, 9);
    ck_assert_uint_eq(ts_limits()->kcut_memory, 1ull << 30);
    l.kcut_memory = 5000;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_uint_eq(ts_limits()->kcut_memory, 5000);
    ck_assert_uint_eq(ts_limits()->kcut_levels, 64);
    /* the fields appended after kcut_memory have their defaults and ceilings */
    ck_assert_uint_eq(l.sim_events, 1ull << 28);
    ck_assert_uint_eq(l.output_bytes, 256ull << 20);
    ck_assert_uint_eq(l.members, 1u << 20);
    l.members = (1u << 24) + 1;
    ck_assert_int_eq(tsched_limits_set(&l), TSCHED_E_RANGE);
    ck_assert_errmsg_has("members");
    l.members = 0;
    tsched_limits older = {.size = offsetof(tsched_limits, sim_events)};
    ck_assert_ok(tsched_limits_get(&older));
    ck_assert_uint_eq(older.kcut_memory, 5000);
    l.kcut_memory = 0; /* the default again */
    l.nodes = 1000;
    ck_assert_ok(tsched_limits_set(&l));
    pthread_t th;
    void *ret;
    ck_assert_int_eq(pthread_create(&th, NULL, limits_in_thread, NULL), 0);
    pthread_join(th, &ret);
    ck_assert_int_eq((int)(intptr_t)ret, 1);
    ck_assert_uint_eq(ts_limits()->nodes, 1000);
    /* 0 restores the default; above the ceiling is an error that changes nothing */
    l.nodes = 0;
    l.switches = UINT32_MAX;
    ck_assert_status(tsched_limits_set(&l), TSCHED_E_RANGE);
    ck_assert_errmsg_has("tsched_limits.switches");
    ck_assert_uint_eq(ts_limits()->nodes, 1000);
    l.switches = 0;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_uint_eq(ts_limits()->nodes, 1u << 20);
    /* an older caller that knows only input_bytes and nodes: the rest keep their values */
    tsched_limits old = {.size = offsetof(tsched_limits, switches), .input_bytes = 4096, .nodes = 7};
    ck_assert_ok(tsched_limits_set(&old));
    ck_assert_uint_eq(ts_limits()->nodes, 7);
    ck_assert_uint_eq(ts_limits()->input_bytes, 4096);
    ck_assert_uint_eq(ts_limits()->name_bytes, 255);
    tsched_limits small = {.size = offsetof(tsched_limits, nodes), .nodes = 12345};
    ck_assert_ok(tsched_limits_get(&small));
    ck_assert_uint_eq(small.input_bytes, 4096);
    ck_assert_uint_eq(small.nodes, 12345); /* beyond its size: not written */
    tsched_limits odd = {.size = offsetof(tsched_limits, nodes) + 2};
    ck_assert_status(tsched_limits_get(&odd), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_limits.size");
    odd.size = sizeof odd + 8;
    ck_assert_status(tsched_limits_set(&odd), TSCHED_E_INVALID);
    ck_assert_status(tsched_limits_get(NULL), TSCHED_E_INVALID);
    ck_assert_status(tsched_limits_set(NULL), TSCHED_E_INVALID);
    tsched_limits_reset();
    ck_assert_uint_eq(ts_limits()->nodes, 1u << 20);
}
END_TEST

typedef struct three {
    size_t size;
    uint8_t a;    /* 8..9, padding to 12 */
    uint32_t b;   /* 12..16 */
    double c;     /* 16..24 */
} three;

START_TEST(struct_size_rule)
{
    static const ts_span f[] = {TS_SPAN(three, size), TS_SPAN(three, a), TS_SPAN(three, b), TS_SPAN(three, c)};
    /* every real older layout: after size, after a (9) or padded to b (12), after b, full */
    static const size_t ok[] = {8, 9, 12, 16, 24};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        ck_assert_msg(ts_struct_size(ok[i], f, 4, sizeof(three), "three") == TSCHED_OK, "size %zu", ok[i]);
    static const size_t bad[] = {0, 7, 10, 11, 13, 20, 23, 25, 32};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(ts_struct_size(bad[i], f, 4, sizeof(three), "three") == TSCHED_E_INVALID, "size %zu", bad[i]);
        ck_assert_errmsg_has("three.size");
    }
    /* in: covered fields from the caller, the rest keep the defaults */
    three def = {sizeof def, 1, 2, 3.0}, user = {12, 9, 99, 99.0}, got = def;
    ck_assert_ok(ts_struct_in(&got, &user, f, 4, sizeof got, "three"));
    ck_assert_uint_eq(got.a, 9);
    ck_assert_uint_eq(got.b, 2);
    ck_assert_double_eq(got.c, 3.0);
    /* out: only what the caller's size covers is written */
    three dst = {16, 0, 0, -1.0};
    ck_assert_ok(ts_struct_out(&dst, &def, f, 4, sizeof dst, "three"));
    ck_assert_uint_eq(dst.size, 16);
    ck_assert_uint_eq(dst.b, 2);
    ck_assert_double_eq(dst.c, -1.0);
}
END_TEST

/* Old callers of the public structs: sizes that end one and several fields early get the
 * defaults for the rest; the output structs are written only as far as their size. */
START_TEST(old_callers_keep_working)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = 2;
    g.spines = 2;
    g.nodes_per_leaf = 2;
    tsched_topology *t;
    ck_assert_ok(tsched_topology_generate(&t, &g));
    tsched_job *j;
    ck_assert_ok(tsched_job_new(&j, "j", 16, 4, 2)); /* 2 x 2 matrix on 8-GPU nodes */
    tsched_place_options o;
    tsched_place_options_init(&o);
    o.algo = TSCHED_PLACE_BEST_FIT;
    o.size = offsetof(tsched_place_options, seed); /* knows up to `domain` */
    tsched_placement *p;
    ck_assert_ok(tsched_place(&p, t, j, &o));
    ck_assert_int_eq(tsched_placement_algo(p), TSCHED_PLACE_BEST_FIT);
    tsched_placement_free(p);
    o.size = offsetof(tsched_place_options, alpha); /* knows only `algo`: it is honoured */
    ck_assert_ok(tsched_place(&p, t, j, &o));
    ck_assert_int_eq(tsched_placement_algo(p), TSCHED_PLACE_BEST_FIT);
    tsched_placement_free(p);
    o.size = sizeof(size_t); /* knows nothing: the default algorithm, mip */
    ck_assert_ok(tsched_place(&p, t, j, &o));
    ck_assert_int_eq(tsched_placement_algo(p), TSCHED_PLACE_MIP);
    tsched_placement_free(p);
    o.size = offsetof(tsched_place_options, algo) + 1;
    ck_assert_status(tsched_place(&p, t, j, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_place_options.size");

    /* model in, model out, volumes out */
    tsched_model m;
    tsched_model_init(&m);
    m.hidden = 1024;
    m.layers = 4;
    m.global_batch = 64;
    m.size = offsetof(tsched_model, vocab); /* knows hidden and layers */
    ck_assert_ok(tsched_job_set_model(j, &m));
    tsched_model back;
    memset(&back, 0x5a, sizeof back);
    back.size = offsetof(tsched_model, seq);
    ck_assert_ok(tsched_job_model(&back, j));
    ck_assert_uint_eq(back.hidden, 1024);
    ck_assert_uint_eq(back.layers, 4);
    ck_assert_uint_eq(back.vocab, 32000); /* the default, not the caller's 64 gb */
    ck_assert_uint_eq(back.seq, 0x5a5a5a5a); /* beyond its size: untouched */
    tsched_volumes v;
    memset(&v, 0x5a, sizeof v);
    v.size = offsetof(tsched_volumes, pp);
    ck_assert_ok(tsched_job_volumes(&v, j));
    ck_assert(v.weights > 0 && v.dp > 0);
    uint64_t pp_bits;
    memcpy(&pp_bits, &v.pp, sizeof pp_bits);
    ck_assert_uint_eq(pp_bits, 0x5a5a5a5a5a5a5a5aull);
    v.size = 3;
    ck_assert_status(tsched_job_volumes(&v, j), TSCHED_E_INVALID);

    /* paths: the first element's size is the stride of the array */
    struct {
        size_t size;
        uint32_t nswitches;
        uint32_t switches[15];
    } small[4]; /* a caller that knows no links */
    small[0].size = sizeof small[0];
    size_t n;
    ck_assert_ok(tsched_topology_leaf_paths((tsched_path *)small, 4, &n, t, 0, 1));
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(small[i].size, sizeof small[0]);
        ck_assert_uint_eq(small[i].nswitches, 3);
        ck_assert_uint_eq(small[i].switches[0], 0);
        ck_assert_uint_eq(small[i].switches[2], 1);
    }
    tsched_job_free(j);
    tsched_topology_free(t);
}
END_TEST

START_TEST(reading_is_bounded)
{
    char *buf = NULL;
    size_t len = 0;
    /* /dev/zero ends at its first byte, not when memory runs out */
    ck_assert_status(ts_read_file(&buf, &len, "/dev/zero"), TSCHED_E_PARSE);
    ck_assert_errmsg_has("NUL byte");
    ck_assert_ptr_null(buf);
    /* a document above input_bytes: TOO_LARGE naming the limit, file or string */
    char path[] = "/tmp/tsched-read-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char block[4096];
    memset(block, ' ', sizeof block);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(write(fd, block, sizeof block), (ssize_t)sizeof block);
    close(fd);
    tsched_limits l = {.size = sizeof l};
    tsched_limits_get(&l);
    l.input_bytes = 10000;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_status(ts_read_file(&buf, &len, path), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("input_bytes");
    char *doc = malloc(10001);
    ck_assert_ptr_nonnull(doc);
    memset(doc, ' ', 10001);
    tsched_topology *t;
    ck_assert_status(tsched_topology_load_string(&t, doc, 10001), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("input_bytes");
    free(doc);
    l.input_bytes = 16384;
    ck_assert_ok(tsched_limits_set(&l));
    ck_assert_ok(ts_read_file(&buf, &len, path));
    ck_assert_uint_eq(len, 16384);
    free(buf);
    tsched_limits_reset();
    unlink(path);
}
END_TEST

/* ---- numbers (design: shortest text that reads back) and the JSON writer ---- */

/* The method written out plainly, apart from src/common/numfmt.c (which never formats with
 * "%g" nor parses a radix character): least p whose "%.{p}g" reads back; that text's digits
 * and exponent rewritten as plain decimal when the exponent is in [-4, 16] (%g itself keeps
 * the exponent form from the precision up: "4e+02"), then ".0". This test process never
 * calls setlocale() for it, so it runs in the C locale. */
static void ref_fmt(char *out, size_t cap, double x)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, cap, "%.*g", p, x);
        double y = strtod(out, NULL);
        if (memcmp(&x, &y, sizeof x) == 0 || isnan(x))
            break;
    }
    char *e = strchr(out, 'e');
    if (e && !strstr(out, "inf") && !strstr(out, "nan")) {
        int ex = atoi(e + 1);
        if (ex >= -4 && ex <= 16) {
            char digits[32] = "", text[64];
            size_t nd = 0;
            for (const char *q = out; q < e; q++)
                if (*q >= '0' && *q <= '9')
                    digits[nd++] = *q;
            digits[nd] = '\0';
            size_t k = 0;
            if (out[0] == '-')
                text[k++] = '-';
            if (ex < 0) { /* 0.000ddd */
                k += (size_t)sprintf(text + k, "0.");
                for (int z = -1; z > ex; z--)
                    text[k++] = '0';
                k += (size_t)sprintf(text + k, "%s", digits);
            } else { /* ddd000 or ddd.ddd */
                for (size_t i = 0; i < nd || (int)i <= ex; i++) {
                    if ((int)i == ex + 1)
                        text[k++] = '.';
                    text[k++] = i < nd ? digits[i] : '0';
                }
            }
            text[k] = '\0';
            snprintf(out, cap, "%s", text);
        }
    }
    if (!strchr(out, '.') && !strchr(out, 'e') && !strstr(out, "inf") && !strstr(out, "nan"))
        strcat(out, ".0");
}

static void ck_fmt_matches_ref(double x)
{
    char got[TS_FMT_DOUBLE_CAP], want[64];
    int n = ts_fmt_double(got, sizeof got, x);
    ref_fmt(want, sizeof want, x);
    ck_assert_msg(strcmp(got, want) == 0, "%a: \"%s\", reference \"%s\"", x, got, want);
    ck_assert_int_eq(n, (int)strlen(got));
    double y = strtod(got, NULL);
    ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "%a: \"%s\" reads back as %a", x, got, y);
}

START_TEST(numbers_print_shortest)
{
    static const struct {
        double x;
        const char *text;
    } table[] = {
        {0.3, "0.3"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1.3, "1.3"},
        {1.2999999999999998, "1.2999999999999998"}, /* another double than 1.3 */
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {0.125, "0.125"},
        {-2.5, "-2.5"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {3.0, "3.0"},
        {123.0, "123.0"},
        {1234567.0, "1234567.0"},
        {100.0, "100.0"}, /* plain, where "%.1g" gives 1e+02 (issue 25) */
        {400.0, "400.0"},
        {1000000.0, "1000000.0"},
        {-3e5, "-300000.0"},
        {1.2e10, "12000000000.0"},
        {1.5e3, "1500.0"},
        {1e15, "1000000000000000.0"},
        {1e16, "10000000000000000.0"},
        {9.9e16, "99000000000000000.0"},
        {1e17, "1e+17"}, /* from 1e17 up the exponent form again */
        {1e22, "1e+22"},
        {1e23, "1e+23"},
        {9007199254740992.0, "9007199254740992.0"},
        {12345678901234567.0, "12345678901234568.0"},
        {123456789012345680.0, "1.2345678901234568e+17"},
        {0.0001, "0.0001"},
        {0.000123, "0.000123"},
        {1e-5, "1e-05"},
        {1.5e-5, "1.5e-05"},
        {5e-324, "5e-324"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {1.7976931348623157e+308, "1.7976931348623157e+308"},
        {-1.7976931348623157e+308, "-1.7976931348623157e+308"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {NAN, "nan"},
    };
    char buf[TS_FMT_DOUBLE_CAP];
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        ts_fmt_double(buf, sizeof buf, table[i].x);
        ck_assert_msg(strcmp(buf, table[i].text) == 0, "table[%zu] %a: \"%s\", expected \"%s\"", i, table[i].x, buf,
                      table[i].text);
        if (!isnan(table[i].x))
            ck_fmt_matches_ref(table[i].x);
    }
    /* snprintf's contract: the whole length back, the text cut and terminated */
    ck_assert_int_eq(ts_fmt_double(buf, 5, 0.30000000000000004), 19);
    ck_assert_str_eq(buf, "0.30");
    ck_assert_int_eq(ts_fmt_double(NULL, 0, -0.0), 4);
    /* the longest texts fit the documented capacity */
    ck_assert_int_lt(ts_fmt_double(buf, sizeof buf, -2.2250738585072009e-308), TS_FMT_DOUBLE_CAP);
    ck_assert_int_lt(ts_fmt_double(buf, sizeof buf, -0.00012345678901234567), TS_FMT_DOUBLE_CAP);

    ts_rng rng;
    ts_rng_seed(&rng, 14);
    /* 100k of each kind; 3k under the sanitizer and valgrind setups, where each case costs
     * ~50 times more and the plain build already covers the rest */
    const unsigned cases = tu_slow() ? 3000 : 100000;
    /* any bit pattern */
    for (unsigned i = 0; i < cases; i++) {
        uint64_t u = ts_rng_next(&rng);
        double x;
        memcpy(&x, &u, sizeof x);
        if (isfinite(x))
            ck_fmt_matches_ref(x);
    }
    /* short decimals and exact binary fractions: where rounding digits twice could differ
     * from rounding once (ties of "50...0" after the 17 digits) */
    for (unsigned i = 0; i < cases; i++) {
        char dec[64];
        double x;
        if (i % 2) {
            snprintf(dec, sizeof dec, "%llue%d", (unsigned long long)ts_rng_below(&rng, UINT64_C(100000000000000000)),
                     (int)ts_rng_below(&rng, 80) - 40);
            x = strtod(dec, NULL);
        } else {
            x = ldexp((double)ts_rng_below(&rng, UINT64_C(1) << (1 + ts_rng_below(&rng, 53))),
                      (int)ts_rng_below(&rng, 120) - 80);
        }
        ck_fmt_matches_ref(i % 3 ? x : -x);
    }
    /* whole numbers up to 2^53, times powers of ten below 1e17: plain, no exponent (issue
     * 25: "nic_gbps": 4e+02), the integer's own digits then ".0", and back bit for bit */
    for (unsigned i = 0; i < cases; i++) {
        uint64_t v = ts_rng_below(&rng, (UINT64_C(1) << (1 + ts_rng_below(&rng, 53))) + 1);
        double x = (double)v;
        char buf2[TS_FMT_DOUBLE_CAP], want[32];
        if (i % 2) { /* a short mantissa and trailing zeros: 4e2, 125e9, ... */
            v = ts_rng_below(&rng, 1000);
            unsigned z = (unsigned)ts_rng_below(&rng, 14);
            x = (double)v;
            for (unsigned k = 0; k < z; k++)
                x *= 10;
        }
        ts_fmt_double(buf2, sizeof buf2, x);
        snprintf(want, sizeof want, "%.0f.0", x);
        ck_assert_msg(strcmp(buf2, want) == 0, "%a: \"%s\", expected \"%s\"", x, buf2, want);
        ck_fmt_matches_ref(x);
    }
}
END_TEST

START_TEST(numbers_ignore_the_locale)
{
    /* The library runs in programs that set a locale; "0,3" would be a broken document. Runs
     * where such a locale is installed (this Check test is forked: the locale stays here). */
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ps_AF.UTF-8", "ru_RU.UTF-8"};
    static const double xs[] = {0.3, 1.2999999999999998, 2.5e-7, 123.0, 1.2e10, -0.0, 5e-324};
    char c_text[sizeof xs / sizeof *xs][TS_FMT_DOUBLE_CAP], buf[TS_FMT_DOUBLE_CAP];
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++)
        ts_fmt_double(c_text[k], sizeof c_text[k], xs[k]);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!setlocale(LC_NUMERIC, names[i]))
            continue;
        for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
            ts_fmt_double(buf, sizeof buf, xs[k]);
            ck_assert_msg(strcmp(buf, c_text[k]) == 0, "%s: \"%s\", in C \"%s\"", names[i], buf, c_text[k]);
        }
        json_t *doc = json_pack("{s:f}", "x", 0.3);
        char *text = ts_json_write(doc, TS_JSON_COMPACT, NULL);
        ck_assert_str_eq(text, "{\"x\":0.3}");
        free(text);
        json_decref(doc);
    }
    setlocale(LC_NUMERIC, "C");
}
END_TEST

/* A random tree: objects, arrays, strings with escapes and UTF-8, integers, reals (if
 * `reals`), true, false, null. */
static json_t *random_tree(ts_rng *rng, int depth, int reals)
{
    static const char *const bits[] = {"a", "b", "node", "\"", "\\", "/", "\n", "\t", "\r", "\b", "\f", "\x01",
                                       "\x1f", "\x7f", " ", "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "0"};
    unsigned kind = (unsigned)ts_rng_below(rng, depth >= 4 ? 6 : 8);
    if (!reals && kind == 1)
        kind = 0;
    switch (kind) {
    case 0: {
        static const json_int_t edge[] = {0, -1, 1, INT64_MAX, INT64_MIN, 9007199254740993LL};
        return ts_rng_below(rng, 4) ? json_integer((json_int_t)ts_rng_below(rng, 2000) - 1000)
                                    : json_integer(edge[ts_rng_below(rng, 6)]);
    }
    case 1: {
        double x;
        do {
            uint64_t u = ts_rng_next(rng);
            memcpy(&x, &u, sizeof x);
            if (ts_rng_below(rng, 2))
                x = (double)ts_rng_below(rng, 100000) / (double)(1 + ts_rng_below(rng, 1000));
        } while (!isfinite(x));
        return json_real(x);
    }
    case 2: {
        char s[64] = "";
        size_t n = 0, parts = ts_rng_below(rng, 6);
        for (size_t k = 0; k < parts; k++) {
            const char *b = bits[ts_rng_below(rng, sizeof bits / sizeof *bits)];
            memcpy(s + n, b, strlen(b));
            n += strlen(b);
        }
        if (ts_rng_below(rng, 8) == 0)
            s[n++] = '\0'; /* a NUL inside a string: \u0000 */
        return json_stringn(s, n);
    }
    case 3: return json_true();
    case 4: return json_false();
    case 5: return json_null();
    case 6: {
        json_t *a = json_array();
        for (size_t k = ts_rng_below(rng, 5); k > 0; k--)
            json_array_append_new(a, random_tree(rng, depth + 1, reals));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (size_t k = ts_rng_below(rng, 5); k > 0; k--) {
            char key[32];
            size_t n = 0, parts = 1 + ts_rng_below(rng, 3);
            for (size_t q = 0; q < parts; q++) {
                const char *b = bits[ts_rng_below(rng, sizeof bits / sizeof *bits)];
                memcpy(key + n, b, strlen(b));
                n += strlen(b);
            }
            key[n] = '\0';
            json_object_set_new(o, key, random_tree(rng, depth + 1, reals));
        }
        return o;
    }
    }
}

START_TEST(json_writer_is_jansson_layout_with_short_reals)
{
    /* the layout by hand once */
    json_t *doc = json_pack("{s:s, s:[i, f, f, f], s:{}, s:[], s:{s:b, s:n}}", "format", "x\"y\n", "v", 7, 0.3,
                            100.0, 0.1 + 0.2, "e", "a", "o", "t", 1, "z");
    char *text = ts_json_write(doc, TS_JSON_COMPACT, NULL);
    ck_assert_str_eq(text, "{\"format\":\"x\\\"y\\n\",\"v\":[7,0.3,100.0,0.30000000000000004],\"e\":{},\"a\":[],"
                           "\"o\":{\"t\":true,\"z\":null}}");
    free(text);
    size_t len = 0;
    text = ts_json_write(doc, TS_JSON_INDENT, &len);
    ck_assert_str_eq(text, "{\n  \"format\": \"x\\\"y\\n\",\n  \"v\": [\n    7,\n    0.3,\n    100.0,\n"
                           "    0.30000000000000004\n  ],\n  \"e\": {},\n  \"a\": [],\n  \"o\": {\n    \"t\": true,\n"
                           "    \"z\": null\n  }\n}");
    ck_assert_uint_eq(len, strlen(text));
    free(text);
    /* ts_json_dump is the indented writer */
    ck_assert_ok(ts_json_dumps(&text, doc, TS_JSON_INDENT));
    char *again;
    ck_assert_ok(ts_json_dump(&again, doc));
    ck_assert_str_eq(text, again);
    tsched_free(again);
    tsched_free(text);
    json_decref(doc);

    ts_rng rng;
    ts_rng_seed(&rng, 7);
    for (unsigned i = 0; i < tu_n(3000); i++) {
        int reals = i % 2;
        json_t *t = random_tree(&rng, 0, reals);
        for (int compact = 0; compact <= 1; compact++) {
            char *mine = ts_json_write(t, compact, NULL);
            ck_assert_ptr_nonnull(mine);
            size_t lay = (compact ? JSON_COMPACT : JSON_INDENT(2)) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY;
            if (!reals) { /* byte for byte what jansson writes */
                char *theirs = json_dumps(t, lay);
                ck_assert_str_eq(mine, theirs);
                free(theirs);
            }
            /* reads back as the same tree; the reals' bits too (%.17g keeps the sign of 0) */
            json_error_t err;
            json_t *back = json_loads(mine, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
            ck_assert_msg(back != NULL, "case %u: %s in %s", i, err.text, mine);
            ck_assert_msg(json_equal(t, back), "case %u: reads back different: %s", i, mine);
            char *a = json_dumps(t, lay | JSON_REAL_PRECISION(17)), *b = json_dumps(back, lay | JSON_REAL_PRECISION(17));
            ck_assert_str_eq(a, b);
            free(a);
            free(b);
            json_decref(back);
            free(mine);
        }
        json_decref(t);
    }
}
END_TEST


/* ---- the pull reader (jread.h) against jansson ---- */

START_TEST(jread_known_cases)
{
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        int accept;
    } cases[] = {
        {"{}", 0, 1},
        {" [ ] ", 0, 1},
        {"{\"a\": [1, -0, 2.5, -0.0, 1e5, 1E-2, 0.1e+3, true, false, null, \"x\"]}", 0, 1},
        {"{\"s\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\"}", 0, 1},
        {"{\"k\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}", 0, 1},
        {"[123456789012345678, -123456789012345678, 1.7976931348623157e308, 5e-324, 1e-400]", 0, 1},
        {"{\"a\": {\"a\": {\"a\": 1}}, \"b\": 2}", 0, 1},
        /* what jansson refuses */
        {"", 0, 0},
        {"1", 0, 0},                /* '[' or '{' expected */
        {"\"x\"", 0, 0},
        {"{} x", 0, 0},             /* end of file expected */
        {"{\"a\": 1, \"a\": 2}", 0, 0}, /* duplicate key */
        {"{\"a\": 1,}", 0, 0},
        {"[1,]", 0, 0},
        {"[01]", 0, 0},
        {"[1.]", 0, 0},
        {"[.5]", 0, 0},
        {"[+1]", 0, 0},
        {"[1e]", 0, 0},
        {"[-]", 0, 0},
        {"[1e400]", 0, 0},          /* real number overflow */
        {"[99999999999999999999]", 0, 0}, /* too big integer */
        {"[\"\\u0000\"]", 0, 0},
        {"[\"\\ud800\"]", 0, 0},
        {"[\"\\udc00\"]", 0, 0},
        {"[\"\\ud800\\u0041\"]", 0, 0},
        {"[\"\\x\"]", 0, 0},
        {"[\"\\u12g4\"]", 0, 0},
        {"[\"a\nb\"]", 0, 0},
        {"[\"\x01\"]", 0, 0},
        {"[\"\xc0\x80\"]", 0, 0},   /* overlong */
        {"[\"\xed\xa0\x80\"]", 0, 0}, /* a surrogate in UTF-8 */
        {"[\"\xf4\x90\x80\x80\"]", 0, 0}, /* above U+10FFFF */
        {"[\"\xc3\"]", 0, 0},
        {"[\"\xff\"]", 0, 0},
        {"\xef\xbb\xbf{}", 0, 0},   /* a byte order mark */
        {"[tru]", 0, 0},
        {"[truex]", 0, 0},
        {"[nul]", 0, 0},
        {"[1 2]", 0, 0},
        {"{\"a\" 1}", 0, 0},
        {"{1: 2}", 0, 0},
        {"[\"abc]", 0, 0},
        {"[1]\0", 4, 0},
        {"[\"a\0b\"]", 7, 0},
        /* what the reader leaves to jansson although jansson takes it */
        {"{\"\\u0061\": 1}", 0, 0},            /* a key with an escape */
        {"[1234567890123456789]", 0, 0},       /* 19 digits */
        {"[1e-999999]", 0, 0},
        {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 0, 0}, /* depth 34 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        int mine, theirs;
        ck_assert_msg(jr_compare(cases[i].text, len, &mine, &theirs) == 0, "case %zu: readers differ", i);
        ck_assert_msg(mine == cases[i].accept, "case %zu (%s): reader %s", i, cases[i].text,
                      mine ? "accepted" : "refused");
    }
    /* 33 keys in one object: left to jansson; 32 read */
    char text[1024];
    size_t n = 0;
    for (int keys = 32; keys <= 33; keys++) {
        n = (size_t)snprintf(text, sizeof text, "{");
        for (int k = 0; k < keys; k++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\"k%d\": %d", k ? ", " : "", k, k);
        n += (size_t)snprintf(text + n, sizeof text - n, "}");
        int mine, theirs;
        ck_assert_int_eq(jr_compare(text, n, &mine, &theirs), 0);
        ck_assert_int_eq(mine, keys == 32);
        ck_assert_int_eq(theirs, 1);
    }
}
END_TEST

/* Random documents (random_tree above, written four ways) and random damage to them: the
 * reader never accepts what jansson refuses and reads the same values where it accepts. */
START_TEST(jread_random_against_jansson)
{
    static const char junk[] = "{}[],:\"\\ -+.eE0123456789tfnulx\n\t\x01\x7f\x80\xbf\xc3\xe2\xed\xf0\xff";
    ts_rng rng;
    ts_rng_seed(&rng, 11);
    unsigned valid = 0, read = 0, damaged = 0, refused_both = 0, read_damaged = 0;
    for (unsigned i = 0; i < 2500; i++) {
        json_t *t = random_tree(&rng, 0, 1);
        if (!json_is_object(t) && !json_is_array(t)) {
            json_t *a = json_array();
            json_array_append_new(a, t);
            t = a;
        }
        char *texts[4];
        texts[0] = ts_json_write(t, TS_JSON_COMPACT, NULL);
        texts[1] = ts_json_write(t, TS_JSON_INDENT, NULL);
        texts[2] = json_dumps(t, JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_ESCAPE_SLASH | JSON_REAL_PRECISION(17));
        texts[3] = json_dumps(t, JSON_PRESERVE_ORDER | JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        for (int w = 0; w < 4; w++) {
            char *x = texts[w];
            ck_assert_ptr_nonnull(x);
            size_t n = strlen(x);
            int mine, theirs;
            ck_assert_msg(jr_compare(x, n, &mine, &theirs) == 0, "doc %u/%d: %s", i, w, x);
            valid += theirs;
            read += mine;
            for (int k = 0; k < 8; k++) {
                char buf[8192];
                if (n + 8 > sizeof buf)
                    break;
                memcpy(buf, x, n);
                size_t m = n, at = (size_t)ts_rng_below(&rng, n + 1);
                switch (ts_rng_below(&rng, 4)) {
                case 0: /* a byte replaced */
                    if (at < m)
                        buf[at] = junk[ts_rng_below(&rng, sizeof junk - 1)];
                    break;
                case 1: /* a byte inserted */
                    memmove(buf + at + 1, buf + at, m - at);
                    buf[at] = junk[ts_rng_below(&rng, sizeof junk - 1)];
                    m++;
                    break;
                case 2: /* a byte removed */
                    if (at < m) {
                        memmove(buf + at, buf + at + 1, m - at - 1);
                        m--;
                    }
                    break;
                default: /* cut short */
                    m = at;
                }
                ck_assert_msg(jr_compare(buf, m, &mine, &theirs) == 0, "doc %u/%d damage %d: %.*s", i, w, k, (int)m,
                              buf);
                damaged++;
                refused_both += !theirs && !mine;
                read_damaged += mine;
            }
        }
        for (int w = 0; w < 4; w++)
            free(texts[w]);
        json_decref(t);
    }
    /* the test tests something: most documents are read, and much damage is refused */
    ck_assert_uint_gt(read, valid / 3);
    ck_assert_uint_gt(refused_both, damaged / 3);
    ck_assert_uint_gt(read_damaged, damaged / 20);
}
END_TEST

/* Numbers in many spellings: the reader's double has jansson's bits (Clinger's fast path,
 * the strtod path, integers), also under a locale whose decimal point is ','. */
START_TEST(jread_numbers_as_jansson)
{
    static const char *const locales[] = {"C", "de_DE.UTF-8", "fr_FR.UTF-8"};
    ts_rng rng;
    ts_rng_seed(&rng, 5);
    for (size_t l = 0; l < sizeof locales / sizeof *locales; l++) {
        if (!setlocale(LC_NUMERIC, locales[l]))
            continue;
        for (unsigned i = 0; i < (tu_slow() ? 6000u : 60000u); i++) { /* a tenth under valgrind */
            double x;
            uint64_t u = ts_rng_next(&rng);
            switch (i % 4) {
            case 0: memcpy(&x, &u, sizeof x); break;
            case 1: x = (double)(u % 1000000) / (double)(1 + ts_rng_below(&rng, 100000)); break;
            case 2: x = (double)(int64_t)(u % 2000000000000000000ull) - 1e18; break;
            default: x = ldexp((double)(u >> 11), (int)ts_rng_below(&rng, 200) - 150);
            }
            if (!isfinite(x))
                continue;
            static const char *const fmts[] = {"%.17g", "%.15g", "%.3e", "%.6f", "%.0f", "%.20e", "%g", "%.1E"};
            char text[400];
            const char *fmt = fmts[ts_rng_below(&rng, sizeof fmts / sizeof *fmts)];
            /* printf under this locale may write ','; the document is spelled in C */
            locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
            locale_t old = uselocale(c);
            int n = snprintf(text, sizeof text, "[");
            n += snprintf(text + n, sizeof text - (size_t)n, fmt, x);
            n += snprintf(text + n, sizeof text - (size_t)n, "]");
            uselocale(old);
            freelocale(c);
            int mine, theirs;
            ck_assert_msg(jr_compare(text, (size_t)n, &mine, &theirs) == 0, "%s: %s", locales[l], text);
            /* refused, by design: 19-digit integers, very long spellings, exponents past 5 digits */
            int big_int = !strpbrk(text, ".eE") && strspn(text + 1 + (text[1] == '-'), "0123456789") > 18;
            if (theirs && !big_int && strlen(text) < 42)
                ck_assert_msg(mine, "%s: refused %s", locales[l], text);
        }
    }
    setlocale(LC_NUMERIC, "C");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("common");
    TCase *tc = tcase_create("common");
    tcase_add_test(tc, status_numbers_are_fixed);
    tcase_add_test(tc, last_error_is_per_thread);
    tcase_add_test(tc, alloc_overflow_is_an_error);
    tcase_add_test(tc, rng_is_deterministic_and_uniform);
    tcase_add_test(tc, strtab_interns_many);
    tcase_add_test(tc, json_readers_name_the_field);
    tcase_add_test(tc, glpk_guard_turns_errors_into_status);
    tcase_add_test(tc, glpk_run_returns_body_errors);
    tcase_add_test(tc, glpk_host_objects_and_hooks_survive);
    tcase_add_test(tc, names_are_checked);
    tcase_add_test(tc, messages_are_one_line);
    tcase_add_test(tc, limits_get_set_per_thread);
    tcase_add_test(tc, struct_size_rule);
    tcase_add_test(tc, old_callers_keep_working);
    tcase_add_test(tc, reading_is_bounded);
    suite_add_tcase(s, tc);
    /* a few hundred thousand numbers against a reference that prints each up to 17 times */
    TCase *num = tcase_create("numbers");
    tcase_set_timeout(num, 120);
    tcase_add_test(num, numbers_print_shortest);
    tcase_add_test(num, numbers_ignore_the_locale);
    tcase_add_test(num, json_writer_is_jansson_layout_with_short_reals);
    tcase_add_test(num, jread_known_cases);
    tcase_add_test(num, jread_random_against_jansson);
    tcase_add_test(num, jread_numbers_as_jansson);
    suite_add_tcase(s, num);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
