/* The service under allocation failure: for every allocation a request makes, a run in
 * which that one allocation fails. The request must give TSCHED_OK with an answer (a
 * TSCHED_E_NOMEM error answer, or success when the failure was absorbed) or
 * TSCHED_E_NOMEM without one; afterwards the service must still answer: the fabric it held
 * before stays loaded and exports as before, and freeing the service must not fault (a
 * fabric freed but left in the service's table aborts glibc with "double free" there).
 *
 * Not a Check suite: this program replaces malloc, calloc and realloc to fail on demand, so
 * it is built only without sanitizers and not run under valgrind (both replace them too). */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <topo-sched/topo-sched.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long countdown; /* > 0: the countdown-th allocation from now fails */

static int fail_now(void) { return countdown > 0 && --countdown == 0; }
void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t a, size_t b) { return fail_now() ? NULL : __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }

static char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TSCHED_TEST_DATA, rel);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* The answer to `req` (NULL when none could be made); exits on a broken contract. */
static char *ask(tsched_service *s, const char *req, int may_fail)
{
    char *ans = NULL;
    tsched_status st = tsched_service_handle(&ans, NULL, s, req, strlen(req));
    if (st == TSCHED_OK && ans)
        return ans;
    if (!may_fail || st != TSCHED_E_NOMEM || ans) {
        fprintf(stderr, "request gave status %d, answer %p: %.200s\n", (int)st, (void *)ans, req);
        exit(1);
    }
    return NULL;
}

static int failures;

static void check(int ok, const char *what, long n, const char *got)
{
    if (!ok) {
        fprintf(stderr, "allocation %ld: %s; got %.300s\n", n, what, got ? got : "(no answer)");
        failures++;
    }
}

/* Load fabric "a" from `setup`, then make allocation n of `req` fail, for every n until the
 * request runs without reaching its n-th allocation. When the request failed, `follow` must
 * answer as it did before it (`atomic`); when it succeeded, with an answer holding `after`. */
static void scenario(const char *name, const char *setup, const char *req, const char *follow, int atomic,
                     const char *after)
{
    tsched_service *s0;
    if (tsched_service_new(&s0) != TSCHED_OK)
        exit(1);
    tsched_free(ask(s0, setup, 0));
    char *want = ask(s0, follow, 0);
    tsched_service_free(s0);
    long n = 1;
    for (;; n++) {
        tsched_service *s;
        if (tsched_service_new(&s) != TSCHED_OK)
            exit(1);
        tsched_free(ask(s, setup, 0));
        countdown = n;
        char *ans = ask(s, req, 1);
        int reached = countdown == 0;
        countdown = 0;
        /* Any error answer: jansson 2.14 turns some of its own allocation failures into
         * syntax errors, or drops a character of a string (its lexer ignores a failed
         * append), which the readers then refuse as a bad value. What must hold is below. */
        check(!ans || strstr(ans, "\"ok\":true") || strstr(ans, "\"ok\":false"), "the answer is not an answer", n,
              ans);
        int failed = !ans || !strstr(ans, "\"ok\":true");
        tsched_free(ans);
        /* a failed load or import keeps the old fabric: the follow-up answers as before (an
         * update may have been applied when only its answer failed: doc/serve.md) */
        char *got = ask(s, follow, 0);
        if (failed && atomic)
            check(strcmp(got, want) == 0, "the fabric held before changed", n, got);
        else
            check(strstr(got, after) != NULL, "the follow-up is not as after the request", n, got);
        tsched_free(got);
        tsched_service_free(s);
        if (!reached || failures)
            break;
    }
    printf("%s: %ld allocations failed one at a time, %s\n", name, n - 1, failures ? "FAILED" : "ok");
    tsched_free(want);
}

int main(void)
{
    char *topo = slurp("cli/small.json"), *other = slurp("cli/cluster.json"), *conf = slurp("import/tree.conf");
    json_t *js = json_string(conf);
    char *conf_json = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    json_decref(js);
    size_t cap = strlen(topo) + strlen(other) + strlen(conf_json) + 256;
    char *setup = malloc(cap), *reload = malloc(cap), *import = malloc(cap);
    if (!conf_json || !setup || !reload || !import)
        return 1;
    snprintf(setup, cap, "{\"op\":\"load-topology\",\"name\":\"a\",\"topology\":%s}", topo);
    snprintf(reload, cap, "{\"op\":\"load-topology\",\"name\":\"a\",\"topology\":%s}", other);
    snprintf(import, cap, "{\"op\":\"import-slurm\",\"name\":\"a\",\"text\":%s,\"options\":{\"gpus-per-node\":8}}",
             conf_json);
    const char *follow = "{\"op\":\"export\",\"topology\":\"a\",\"options\":{\"to\":\"kueue\"}}";
    scenario("load-topology replacing a fabric", setup, reload, follow, 1, "\"ok\":true");
    scenario("import-slurm replacing a fabric", setup, import, follow, 1, "\"ok\":true");
    scenario("unload", setup, "{\"op\":\"unload\",\"name\":\"a\"}", follow, 1, "TSCHED_E_NOT_FOUND");
    scenario("update", setup, "{\"op\":\"update\",\"name\":\"a\",\"state\":{\"down\":[\"node3\"]}}", follow, 0, "\"ok\":true");
    free(topo);
    free(other);
    free(conf);
    free(conf_json);
    free(setup);
    free(reload);
    free(import);
    return failures ? 1 : 0;
}
