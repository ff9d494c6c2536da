/* Log lines: one per decision and one per failed cycle, each written whole and flushed, so
 * that a crash never leaves half a line and `tail -f` sees every decision at once. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "placer.h"

static FILE *log_file; /* NULL: standard error */

int ps_log_open(const char *path)
{
    if (!path)
        return 0;
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    log_file = f;
    return 0;
}

void ps_log_close(void)
{
    if (log_file)
        fclose(log_file);
    log_file = NULL;
}

void ps_log(const char *fmt, ...)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "topo-sched-slurm: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    FILE *f = log_file ? log_file : stderr;
    fwrite(line, 1, len, f);
    fflush(f);
}

void ps_one_line(char *dst, size_t cap, const char *s)
{
    size_t k = 0;
    for (; s && *s && k + 1 < cap; s++)
        dst[k++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s == '"' ? '\'' : *s;
    if (cap)
        dst[k] = '\0';
}

double ps_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
