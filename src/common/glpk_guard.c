#include "glpk_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "limits.h"

typedef struct job {
    ts_glpk_body body;
    void *ctx;
    const char *what;
    tsched_limits limits; /* the caller's: limits are per thread */
    jmp_buf jb;
    char last_line[256];  /* GLPK's last terminal line: its error text */
    tsched_status st;
    char msg[1024];       /* the worker's error message, for the caller's thread */
} job;

static int term_hook(void *info, const char *s)
{
    job *j = info;
    size_t n = strlen(s);
    if (n > 0 && !(n == 1 && s[0] == '\n')) {
        if (n >= sizeof j->last_line)
            n = sizeof j->last_line - 1;
        memcpy(j->last_line, s, n);
        j->last_line[n] = '\0';
        while (n > 0 && (j->last_line[n - 1] == '\n' || j->last_line[n - 1] == '\r'))
            j->last_line[--n] = '\0';
    }
    return 1; /* non-zero: GLPK prints nothing */
}

static void error_hook(void *info)
{
    job *j = info;
    longjmp(j->jb, 1);
}

static void *worker(void *arg)
{
    job *j = arg;
    tsched_limits_set(&j->limits);
    glp_term_hook(term_hook, j);
    glp_error_hook(error_hook, j);
    /* volatile: read after a longjmp */
    volatile tsched_status st = TSCHED_OK;
    if (setjmp(j->jb) == 0)
        st = j->body(j->ctx);
    else
        st = ts_error(TSCHED_E_SOLVER, "%s: GLPK failed: %s", j->what,
                      j->last_line[0] ? j->last_line : "internal error");
    /* The worker's environment, with every object the body made, hooks and all; GLPK
     * needs this after an error, and it is what keeps a thread from leaking one. */
    glp_free_env();
    j->st = st;
    if (st != TSCHED_OK)
        snprintf(j->msg, sizeof j->msg, "%s", tsched_last_error());
    return NULL;
}

tsched_status ts_glpk_run(ts_glpk_body body, void *ctx, const char *what)
{
    job j;
    memset(&j, 0, sizeof j);
    j.body = body;
    j.ctx = ctx;
    j.what = what;
    j.limits.size = sizeof j.limits;
    tsched_limits_get(&j.limits);
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0)
        return ts_error(TSCHED_E_NOMEM, "%s: cannot create a solver thread", what);
    /* GLPK recurses little, but branch-and-bound keeps its tree on the heap; 8 MiB is
     * glibc's default and is set explicitly so a host's smaller default does not apply. */
    pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    int rc = pthread_create(&th, &attr, worker, &j);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return ts_error(TSCHED_E_NOMEM, "%s: cannot create a solver thread: %s", what, strerror(rc));
    pthread_join(th, NULL);
    if (j.st != TSCHED_OK)
        return ts_error(j.st, "%s", j.msg);
    return TSCHED_OK;
}

void ts_glpk_iocp(glp_iocp *parm, int time_limit_ms)
{
    glp_init_iocp(parm);
    parm->msg_lev = GLP_MSG_OFF;
    parm->presolve = GLP_ON;
    if (time_limit_ms > 0)
        parm->tm_lim = time_limit_ms;
}

void ts_glpk_smcp(glp_smcp *parm, int time_limit_ms)
{
    glp_init_smcp(parm);
    parm->msg_lev = GLP_MSG_OFF;
    if (time_limit_ms > 0)
        parm->tm_lim = time_limit_ms;
}
