/* Internal: every GLPK solve runs through ts_glpk_run(), on a worker thread of its own.
 *
 * Why a thread: GLPK keeps one environment per thread (its hooks, its memory, every
 * problem object), calls abort() after printing on an internal error, and after an error
 * its environment must be freed, which frees every object created in it. A host program
 * that uses GLPK itself must never lose its objects or its hooks to a library call, so the
 * library never touches the caller's environment: the worker's environment is created on
 * its first GLPK call and freed when the solve ends (success or failure), which also
 * leaves no per-thread environment behind. The caller waits for the worker, so the body
 * may read and write the caller's data freely.
 *
 * Inside the body, GLPK errors longjmp out of the body: allocate non-GLPK memory before
 * ts_glpk_run (in the caller) and free it after, never inside the body. */
#ifndef TS_COMMON_GLPK_GUARD_H
#define TS_COMMON_GLPK_GUARD_H

#include <glpk.h>

#include "error.h"

/* The body of a solve; it may record an error with ts_error() and return its status. */
typedef tsched_status (*ts_glpk_body)(void *ctx);

/* Run `body(ctx)` on a worker thread with its own GLPK environment and the caller's
 * limits; GLPK prints nothing. The body's status and message come back to the calling
 * thread. A GLPK internal error gives TSCHED_E_SOLVER naming `what` and GLPK's last line. */
tsched_status ts_glpk_run(ts_glpk_body body, void *ctx, const char *what);

/* Solver parameters with output off and a time limit in ms (0 = none). */
void ts_glpk_iocp(glp_iocp *parm, int time_limit_ms);
void ts_glpk_smcp(glp_smcp *parm, int time_limit_ms);

#endif
