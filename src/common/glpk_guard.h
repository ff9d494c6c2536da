/* Internal: every GLPK entry point runs under this guard. GLPK reports internal errors
 * by calling abort() after printing; the error hook longjmps back here instead, and the
 * terminal hook swallows all output (keeping the last line for the error message).
 *
 *   ts_glpk_guard g;
 *   ts_glpk_guard_begin(&g);
 *   if (setjmp(g.jb) == 0) { ... GLPK calls ... ; ts_glpk_guard_end(&g); }
 *   else { return ts_glpk_guard_failed(&g, "placement MIP"); }
 *
 * setjmp must be called in the caller's own frame, so it is not hidden in a function. */
#ifndef TS_COMMON_GLPK_GUARD_H
#define TS_COMMON_GLPK_GUARD_H

#include <glpk.h>
#include <setjmp.h>

#include "error.h"

typedef struct ts_glpk_guard {
    jmp_buf jb;
    char last_line[256];
    unsigned long lines; /* terminal lines GLPK tried to print */
} ts_glpk_guard;

/* Install the hooks for this thread's GLPK environment. */
void ts_glpk_guard_begin(ts_glpk_guard *g);
/* Remove the hooks after a normal return. */
void ts_glpk_guard_end(ts_glpk_guard *g);
/* After a longjmp: free the broken GLPK environment (GLPK requires it), remove the hooks
 * and record TSCHED_E_SOLVER naming `what` and GLPK's last message. Objects created
 * before the failure are gone with the environment and must not be freed again. */
tsched_status ts_glpk_guard_failed(ts_glpk_guard *g, const char *what);
/* Solver parameters with output off and a time limit in ms (0 = none). */
void ts_glpk_iocp(glp_iocp *parm, int time_limit_ms);
void ts_glpk_smcp(glp_smcp *parm, int time_limit_ms);

#endif
