/* The last-error record is thread-local: distinct handles are used from distinct threads
 * at once, and a message must never be overwritten by another thread's failure. */
#include "error.h"

#include "cnum.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TS_ERRMSG_MAX 1024

static _Thread_local char ts_errmsg[TS_ERRMSG_MAX];
static _Thread_local tsched_status ts_errstatus;

/* Messages are one line whatever the input held: a name with a newline must not add a
 * line to a host's log or forge a second error. Control characters and invalid UTF-8 are
 * escaped (\n, \xNN), so the message still shows what the input held. */
static void one_line(char *s)
{
    char esc[TS_ERRMSG_MAX];
    if (ts_text_one_line(esc, sizeof esc, s))
        memcpy(s, esc, strlen(esc) + 1);
}

tsched_status ts_error(tsched_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_vsnprintf(ts_errmsg, sizeof ts_errmsg, fmt, ap);
    va_end(ap);
    one_line(ts_errmsg);
    ts_errstatus = status;
    return status;
}

tsched_status ts_error_prefix(tsched_status status, const char *prefix)
{
    char old[TS_ERRMSG_MAX];
    memcpy(old, ts_errmsg, sizeof old);
    size_t n = strlen(prefix);
    if (n > TS_ERRMSG_MAX / 2)
        n = TS_ERRMSG_MAX / 2;
    /* prefix, ": ", then as much of the old message as fits */
    snprintf(ts_errmsg, sizeof ts_errmsg, "%.*s: %.*s", (int)n, prefix, (int)(TS_ERRMSG_MAX - n - 3), old);
    one_line(ts_errmsg);
    ts_errstatus = status;
    return status;
}

const char *tsched_last_error(void) { return ts_errmsg; }

tsched_status tsched_last_status(void) { return ts_errstatus; }

void tsched_clear_error(void)
{
    ts_errmsg[0] = '\0';
    ts_errstatus = TSCHED_OK;
}

const char *tsched_status_str(tsched_status status)
{
    switch (status) {
    case TSCHED_OK: return "TSCHED_OK";
    case TSCHED_E_NOMEM: return "TSCHED_E_NOMEM";
    case TSCHED_E_INVALID: return "TSCHED_E_INVALID";
    case TSCHED_E_PARSE: return "TSCHED_E_PARSE";
    case TSCHED_E_FORMAT: return "TSCHED_E_FORMAT";
    case TSCHED_E_TYPE: return "TSCHED_E_TYPE";
    case TSCHED_E_RANGE: return "TSCHED_E_RANGE";
    case TSCHED_E_NOT_FOUND: return "TSCHED_E_NOT_FOUND";
    case TSCHED_E_DUPLICATE: return "TSCHED_E_DUPLICATE";
    case TSCHED_E_TOO_LARGE: return "TSCHED_E_TOO_LARGE";
    case TSCHED_E_CYCLE: return "TSCHED_E_CYCLE";
    case TSCHED_E_IO: return "TSCHED_E_IO";
    case TSCHED_E_STATE: return "TSCHED_E_STATE";
    case TSCHED_E_BUFFER: return "TSCHED_E_BUFFER";
    case TSCHED_E_NO_PATH: return "TSCHED_E_NO_PATH";
    case TSCHED_E_INFEASIBLE: return "TSCHED_E_INFEASIBLE";
    case TSCHED_E_SOLVER: return "TSCHED_E_SOLVER";
    case TSCHED_E_TIMEOUT: return "TSCHED_E_TIMEOUT";
    case TSCHED_E_INTERNAL: return "TSCHED_E_INTERNAL";
    case TSCHED_E_MISMATCH: return "TSCHED_E_MISMATCH";
    }
    return "TSCHED_E_UNKNOWN";
}

const char *tsched_version(void) { return TSCHED_VERSION_STRING; }

uint32_t tsched_version_number(void) { return TSCHED_VERSION_NUMBER; }
