/* topo-sched serve [--socket PATH] [--max-line-mb N]                       (doc/serve.md)
 * Requests, one JSON object per line, from standard input or from each client of a Unix
 * socket (one client at a time, in connection order); one answer line per request, flushed
 * at once. Every answer comes from tsched_service_handle(): this file only moves lines.
 * Exit 0 after "shutdown" or the end of standard input; 2 bad usage; 3 when the socket
 * cannot be set up or standard output fails. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK 65536
/* A buffer grown past this by one long line is given back once that line is answered, so
 * memory stays flat however many large requests come. */
#define KEEP_BYTES (4u << 20)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Lines of one input (standard input or one client). */
typedef struct reader {
    int fd;
    char *buf;
    size_t cap, start, len; /* unread bytes are buf[start .. len) */
    int eof;
} reader;

enum { LINE_OK, LINE_TOO_LONG, LINE_EOF, LINE_ERROR };

/* The next line (without its newline) in *line / *n. A line longer than `max` bytes is read
 * to its end and dropped: LINE_TOO_LONG. At the end of input a last line without a newline
 * is returned as a line. LINE_ERROR: a read error, or no memory. */
static int next_line(reader *r, size_t max, char **line, size_t *n)
{
    int skipping = 0;
    size_t scanned = 0; /* bytes after start already known to hold no newline */
    for (;;) {
        /* r->buf is NULL before the first read: memchr must not see it */
        char *nl = r->len > r->start + scanned ? memchr(r->buf + r->start + scanned, '\n', r->len - r->start - scanned) : NULL;
        if (nl) {
            size_t at = (size_t)(nl - r->buf);
            *line = r->buf + r->start;
            *n = at - r->start;
            r->start = at + 1;
            if (skipping || *n > max)
                return LINE_TOO_LONG;
            return LINE_OK;
        }
        scanned = r->len - r->start;
        if (skipping || scanned > max) { /* too long already: drop what is buffered */
            skipping = 1;
            r->start = r->len = 0;
            scanned = 0;
        }
        if (r->eof) {
            if (skipping) {
                r->start = r->len = 0;
                return LINE_TOO_LONG;
            }
            if (r->len == r->start)
                return LINE_EOF;
            *line = r->buf + r->start;
            *n = r->len - r->start;
            r->start = r->len;
            return LINE_OK;
        }
        if (r->start > 0) { /* move the partial line to the front */
            memmove(r->buf, r->buf + r->start, r->len - r->start);
            r->len -= r->start;
            r->start = 0;
        }
        if (r->cap - r->len < CHUNK / 2) {
            size_t ncap = r->cap ? 2 * r->cap : CHUNK;
            if (ncap > max + CHUNK + 1)
                ncap = max + CHUNK + 1;
            if (ncap <= r->cap)
                ncap = r->cap + CHUNK;
            char *nb = realloc(r->buf, ncap);
            if (!nb)
                return LINE_ERROR;
            r->buf = nb;
            r->cap = ncap;
        }
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (got < 0) {
            if (errno == EINTR && !stop_signal)
                continue;
            return errno == EINTR ? LINE_EOF : LINE_ERROR;
        }
        if (got == 0)
            r->eof = 1;
        r->len += (size_t)got;
    }
}

/* After a line is answered: give a large buffer back when nothing is pending in it. */
static void reader_trim(reader *r)
{
    if (r->cap > KEEP_BYTES && r->start == r->len) {
        free(r->buf);
        r->buf = NULL;
        r->cap = r->start = r->len = 0;
    }
}

/* `text` and a newline, all of it; 0 on success, -1 when the reader went away or a stop
 * signal came while the write waited (a client that does not read cannot hold the service). */
static int write_line(int fd, const char *text)
{
    size_t n = strlen(text), off = 0, total = n + 1;
    while (off < total) {
        if (stop_signal) /* a write the signal cut short (EINTR or a partial count) stops here */
            return -1;
        struct iovec iov[2];
        int k = 0;
        if (off < n)
            iov[k++] = (struct iovec){(void *)(text + off), n - off};
        iov[k++] = (struct iovec){(void *)"\n", 1};
        ssize_t w = writev(fd, iov, k);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* Serve one input until its end or "shutdown". Returns 1 after shutdown, 0 at the end of the
 * input, -1 when the answers could not be written (the reader went away), -2 out of memory. */
static int serve_stream(tsched_service *svc, int in, int out, size_t max)
{
    reader r = {in, NULL, 0, 0, 0, 0};
    int rc = 0;
    while (!stop_signal) {
        char *line;
        size_t n;
        int k = next_line(&r, max, &line, &n);
        if (k == LINE_EOF)
            break;
        if (k == LINE_ERROR) {
            rc = errno == ENOMEM ? -2 : -1;
            break;
        }
        char *answer = NULL;
        int stop = 0;
        tsched_status st;
        if (k == LINE_TOO_LONG) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "{\"id\":null,\"ok\":false,\"exit\":2,\"status\":\"TSCHED_E_TOO_LARGE\",\"error\":\"request: "
                     "the line is longer than %zu bytes (--max-line-mb)\"}",
                     max);
            st = write_line(out, msg) == 0 ? TSCHED_OK : TSCHED_E_IO;
        } else {
            size_t b = 0;
            while (b < n && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r'))
                b++;
            if (b == n) /* a blank line asks nothing */
                continue;
            st = tsched_service_handle(&answer, &stop, svc, line, n);
            if (st != TSCHED_OK) {
                rc = -2;
                break;
            }
            st = write_line(out, answer) == 0 ? TSCHED_OK : TSCHED_E_IO;
            tsched_free(answer);
        }
        reader_trim(&r);
        if (st != TSCHED_OK) {
            rc = -1;
            break;
        }
        if (stop) {
            rc = 1;
            break;
        }
    }
    free(r.buf);
    return rc;
}

static int serve_socket(tsched_service *svc, const char *path, size_t max)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return cli_usage_error("--socket: '%s' is longer than %zu bytes", path, sizeof addr.sun_path - 1);
    strcpy(addr.sun_path, path);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        fprintf(stderr, "topo-sched: --socket %s: %s\n", path, strerror(errno));
        return CLI_INTERNAL;
    }
    int bound = bind(lfd, (struct sockaddr *)&addr, sizeof addr) == 0;
    if (!bound && errno == EADDRINUSE) {
        /* A socket file nobody listens on is left from an earlier run: replace it. */
        struct stat sb;
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int live = probe >= 0 && connect(probe, (struct sockaddr *)&addr, sizeof addr) == 0;
        if (probe >= 0)
            close(probe);
        if (live || lstat(path, &sb) != 0 || !S_ISSOCK(sb.st_mode)) {
            fprintf(stderr, "topo-sched: --socket %s: %s\n", path,
                    live ? "another server is listening there" : "exists and is not a socket");
            close(lfd);
            return CLI_BAD_INPUT;
        }
        unlink(path);
        bound = bind(lfd, (struct sockaddr *)&addr, sizeof addr) == 0;
    }
    if (!bound || listen(lfd, 64) != 0) {
        fprintf(stderr, "topo-sched: --socket %s: %s\n", path, strerror(errno));
        close(lfd);
        return CLI_BAD_INPUT;
    }
    int rc = CLI_OK;
    while (!stop_signal) {
        int cfd = accept(lfd, NULL, NULL);
        if (cfd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "topo-sched: --socket %s: accept: %s\n", path, strerror(errno));
            rc = CLI_INTERNAL;
            break;
        }
        int k = serve_stream(svc, cfd, cfd, max);
        close(cfd); /* k == -1: the client went away; only its answers are lost */
        if (k == -2) {
            fputs("topo-sched: serve: out of memory\n", stderr);
            rc = CLI_INTERNAL;
            break;
        }
        if (k == 1)
            break;
    }
    close(lfd);
    unlink(path);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    const char *sock = NULL;
    unsigned mb = 256;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--socket") == 0 && has)
            sock = argv[++i];
        else if (strcmp(a, "--max-line-mb") == 0 && has) {
            if (cli_parse_u32(argv[++i], &mb) != 0 || mb == 0 || mb > 1048576)
                return cli_usage_error("--max-line-mb: '%s' is not a whole number in [1, 1048576]", argv[i]);
        } else
            return cli_usage_error("serve: unknown or incomplete option '%s'", a);
    }
    /* A reader that goes away must not kill the service: writes fail with EPIPE instead. */
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    tsched_service *svc = NULL;
    tsched_status st = tsched_service_new(&svc);
    if (st != TSCHED_OK)
        return cli_fail(st);
    size_t max = (size_t)mb << 20;
    int rc;
    if (sock)
        rc = serve_socket(svc, sock, max);
    else {
        int k = serve_stream(svc, STDIN_FILENO, STDOUT_FILENO, max);
        rc = k >= 0 ? CLI_OK : CLI_INTERNAL;
        if (k == -1)
            fputs("topo-sched: serve: cannot read requests or write answers\n", stderr);
        else if (k == -2)
            fputs("topo-sched: serve: out of memory\n", stderr);
    }
    tsched_service_free(svc);
    return rc;
}
