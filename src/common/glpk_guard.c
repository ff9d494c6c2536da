#include "glpk_guard.h"

#include <string.h>

static int term_hook(void *info, const char *s)
{
    ts_glpk_guard *g = info;
    size_t n = strlen(s);
    /* Keep the last non-empty line: GLPK's error text ends up there. */
    if (n > 0 && !(n == 1 && s[0] == '\n')) {
        if (n >= sizeof g->last_line)
            n = sizeof g->last_line - 1;
        memcpy(g->last_line, s, n);
        g->last_line[n] = '\0';
        while (n > 0 && (g->last_line[n - 1] == '\n' || g->last_line[n - 1] == '\r'))
            g->last_line[--n] = '\0';
    }
    g->lines++;
    return 1; /* non-zero: GLPK prints nothing */
}

static void error_hook(void *info)
{
    ts_glpk_guard *g = info;
    longjmp(g->jb, 1);
}

void ts_glpk_guard_begin(ts_glpk_guard *g)
{
    g->last_line[0] = '\0';
    g->lines = 0;
    glp_term_hook(term_hook, g);
    glp_error_hook(error_hook, g);
}

void ts_glpk_guard_end(ts_glpk_guard *g)
{
    (void)g;
    glp_error_hook(NULL, NULL);
    glp_term_hook(NULL, NULL);
}

tsched_status ts_glpk_guard_failed(ts_glpk_guard *g, const char *what)
{
    /* GLPK's environment is unusable after an error; freeing it also frees every
     * problem object created in it. A later call creates a fresh environment. */
    glp_free_env();
    return ts_error(TSCHED_E_SOLVER, "%s: GLPK failed: %s", what, g->last_line[0] ? g->last_line : "internal error");
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
