/* topo-sched serve [--socket PATH [--ready-file F]] [--max-line-mb N] [--idle-timeout-s S]
 *                  [--max-clients N]                                       (doc/serve.md)
 * Requests, one JSON object per line, from standard input or from the clients of a Unix
 * socket; one answer line per request, flushed at once. Every answer comes from
 * tsched_service_handle(): this file only moves lines. On a socket one poll() loop serves
 * every client: a request is answered when its line is complete, one line per client in
 * turn, so a client that sends nothing (or reads nothing) holds no other client; a client
 * idle for --idle-timeout-s is dropped, and a connection beyond --max-clients is answered
 * with one error line and closed. Once the socket listens, "listening on PATH" goes to
 * standard output (and to --ready-file F, removed at exit). Exit 0 after "shutdown" or the end of standard input;
 * 2 bad usage; 3 when the socket cannot be set up or standard output fails. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"

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
    size_t scanned;         /* bytes after start already known to hold no newline */
    int eof, skipping;      /* skipping: the current line is too long and is being dropped */
} reader;

enum { LINE_OK, LINE_TOO_LONG, LINE_EOF, LINE_AGAIN };

/* The next line (without its newline) among the bytes read so far, in *line / *n. A line
 * longer than `max` bytes is dropped as it comes and reported once: LINE_TOO_LONG. At the
 * end of input a last line without a newline is returned as a line. LINE_AGAIN: more bytes
 * are needed. */
static int take_line(reader *r, size_t max, char **line, size_t *n)
{
    /* r->buf is NULL before the first read: memchr must not see it */
    char *nl = r->len > r->start + r->scanned ? memchr(r->buf + r->start + r->scanned, '\n', r->len - r->start - r->scanned)
                                              : NULL;
    if (nl) {
        size_t at = (size_t)(nl - r->buf);
        *line = r->buf + r->start;
        *n = at - r->start;
        r->start = at + 1;
        r->scanned = 0;
        int skipped = r->skipping;
        r->skipping = 0;
        return skipped || *n > max ? LINE_TOO_LONG : LINE_OK;
    }
    r->scanned = r->len - r->start;
    if (r->skipping || r->scanned > max) { /* too long already: drop what is buffered */
        r->skipping = 1;
        r->start = r->len = r->scanned = 0;
    }
    if (!r->eof)
        return LINE_AGAIN;
    if (r->skipping) {
        r->skipping = 0;
        return LINE_TOO_LONG;
    }
    if (r->len == r->start)
        return LINE_EOF;
    *line = r->buf + r->start;
    *n = r->len - r->start;
    r->start = r->len;
    r->scanned = 0;
    return LINE_OK;
}

/* Could take_line() return a line without another read? */
static int line_ready(const reader *r) { return r->eof || r->len - r->start > r->scanned; }

/* One read() into the buffer: 1 when bytes came or the input ended (r->eof), 0 when none
 * are there yet (non-blocking) or a signal cut the read short, -1 on a read error or when
 * memory runs out (errno ENOMEM). */
static int fill(reader *r, size_t max)
{
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
        if (!nb) {
            errno = ENOMEM;
            return -1;
        }
        r->buf = nb;
        r->cap = ncap;
    }
    ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (got == 0)
        r->eof = 1;
    r->len += (size_t)got;
    return 1;
}

/* After a line is answered: give a large buffer back when nothing is pending in it. */
static void reader_trim(reader *r)
{
    if (r->cap > KEEP_BYTES && r->start == r->len) {
        free(r->buf);
        r->buf = NULL;
        r->cap = r->start = r->len = r->scanned = 0;
    }
}

/* The answer to a line longer than `max` bytes (static storage). */
static const char *too_long_answer(size_t max)
{
    static char msg[192];
    snprintf(msg, sizeof msg,
             "{\"id\":null,\"ok\":false,\"exit\":2,\"status\":\"TSCHED_E_TOO_LARGE\",\"error\":\"request: the line is "
             "longer than %zu bytes (--max-line-mb)\"}",
             max);
    return msg;
}

/* Is line[0..n) blank (it asks nothing)? */
static int blank(const char *line, size_t n)
{
    size_t b = 0;
    while (b < n && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r'))
        b++;
    return b == n;
}

/* ---- standard input ---- */

/* `text` and a newline, all of it; 0 on success, -1 when the reader went away or a stop
 * signal came while the write waited. */
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

/* Serve standard input until its end or "shutdown". Returns 1 after shutdown, 0 at the end
 * of the input, -1 when the answers could not be written, -2 out of memory. */
static int serve_stream(tsched_service *svc, int in, int out, size_t max)
{
    reader r = {.fd = in};
    int rc = 0;
    while (!stop_signal) {
        char *line;
        size_t n;
        int k = take_line(&r, max, &line, &n);
        if (k == LINE_AGAIN) {
            int got = fill(&r, max);
            if (got < 0) {
                rc = errno == ENOMEM ? -2 : -1;
                break;
            }
            if (got == 0 && !stop_signal) { /* a non-blocking input: wait for it */
                struct pollfd p = {.fd = in, .events = POLLIN};
                poll(&p, 1, -1);
            }
            continue;
        }
        if (k == LINE_EOF)
            break;
        char *answer = NULL;
        int stop = 0, wrote;
        if (k == LINE_TOO_LONG)
            wrote = write_line(out, too_long_answer(max));
        else {
            if (blank(line, n))
                continue;
            if (tsched_service_handle(&answer, &stop, svc, line, n) != TSCHED_OK) {
                rc = -2;
                break;
            }
            wrote = write_line(out, answer);
            tsched_free(answer);
        }
        reader_trim(&r);
        if (wrote != 0) {
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

/* ---- the socket: one poll() loop over every client ---- */

typedef struct client {
    reader r;
    char *ans;          /* the answer being written (its newline follows), or NULL */
    size_t ans_len, off; /* off: bytes of ans + "\n" written */
    int ans_lib;        /* ans is the library's (tsched_free) rather than malloc'd */
    int64_t last_ms;    /* last progress: connected, bytes read or answer bytes written */
} client;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ? -1 : 0;
}

static void answer_done(client *c)
{
    if (c->ans_lib)
        tsched_free(c->ans);
    else
        free(c->ans);
    c->ans = NULL;
    c->ans_len = c->off = 0;
}

static void client_close(client *c)
{
    answer_done(c);
    free(c->r.buf);
    close(c->r.fd);
}

/* Write what the socket takes of the pending answer: 1 progress (or nothing to write), 0
 * the socket is full, -1 the client went away. */
static int flush_some(client *c)
{
    while (c->ans) {
        size_t total = c->ans_len + 1;
        struct iovec iov[2];
        int k = 0;
        if (c->off < c->ans_len)
            iov[k++] = (struct iovec){c->ans + c->off, c->ans_len - c->off};
        iov[k++] = (struct iovec){(void *)"\n", 1};
        ssize_t w = writev(c->r.fd, iov, k);
        if (w < 0) {
            if (errno == EINTR && !stop_signal)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        }
        c->off += (size_t)w;
        if (c->off == total)
            answer_done(c);
    }
    return 1;
}

/* A connection beyond --max-clients: one error line (the socket's buffer is empty, so it
 * fits without waiting), then closed. */
static void refuse(int fd, unsigned max_clients)
{
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "{\"id\":null,\"ok\":false,\"exit\":2,\"status\":\"TSCHED_E_TOO_LARGE\",\"error\":\"connection: "
                     "%u clients are connected, the most --max-clients allows; try again later\"}\n",
                     max_clients);
    if (write(fd, msg, (size_t)n) < 0) {
        /* the client went away already: nothing to tell */
    }
    shutdown(fd, SHUT_WR);
    close(fd);
}

typedef struct server {
    tsched_service *svc;
    size_t max;
    unsigned max_clients;
    int64_t idle_ms; /* 0: never */
    client *c;
    size_t n;
    int stopping; /* a shutdown was answered: flush, then stop */
} server;

static void drop(server *s, size_t i)
{
    client_close(&s->c[i]);
    s->c[i] = s->c[--s->n];
}

/* Accept every pending connection. 0, or -1 when accept() failed for lack of descriptors
 * (the caller pauses accepting). */
static int accept_all(server *s, int lfd)
{
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                return -1;
            return 0; /* EAGAIN, or a connection that went away (ECONNABORTED, ...) */
        }
        if (s->n >= s->max_clients || set_nonblocking(fd) != 0) {
            refuse(fd, s->max_clients);
            continue;
        }
        s->c[s->n++] = (client){.r = {.fd = fd}, .last_ms = now_ms()};
    }
}

/* Client i's turn: answer one complete line. 0 on success, -2 out of memory. */
static int serve_one(server *s, client *c, int *stop)
{
    char *line;
    size_t n;
    int k = take_line(&c->r, s->max, &line, &n);
    if (k == LINE_AGAIN || k == LINE_EOF)
        return 0;
    if (k == LINE_TOO_LONG) {
        const char *msg = too_long_answer(s->max);
        if (!(c->ans = strdup(msg)))
            return -2;
        c->ans_len = strlen(msg);
        c->ans_lib = 0;
    } else if (!blank(line, n)) {
        char *answer = NULL;
        if (tsched_service_handle(&answer, stop, s->svc, line, n) != TSCHED_OK)
            return -2;
        c->ans = answer;
        c->ans_len = strlen(answer);
        c->ans_lib = 1;
    }
    reader_trim(&c->r);
    c->last_ms = now_ms();
    return 0;
}

static int serve_clients(server *s, int lfd)
{
    struct pollfd *pf = malloc(((size_t)s->max_clients + 1) * sizeof *pf);
    s->c = malloc((size_t)s->max_clients * sizeof *s->c);
    if (!pf || !s->c) {
        free(pf);
        free(s->c);
        return -2;
    }
    int rc = 0;
    int64_t accept_paused_until = 0, stop_deadline = 0;
    while (!stop_signal) {
        int64_t now = now_ms();
        if (s->stopping) { /* a shutdown was answered: wait only for answers still being written */
            int pending = 0;
            for (size_t i = 0; i < s->n; i++)
                pending |= s->c[i].ans != NULL;
            if (!pending || now >= stop_deadline)
                break;
        }
        /* poll: the listening socket, and each client for its answer or its next bytes */
        int timeout = -1, ready = 0;
        nfds_t np = 0;
        int listening = !s->stopping && now >= accept_paused_until;
        pf[np++] = (struct pollfd){.fd = listening ? lfd : -1, .events = POLLIN};
        if (!listening && !s->stopping)
            timeout = (int)(accept_paused_until - now);
        for (size_t i = 0; i < s->n; i++) {
            client *c = &s->c[i];
            pf[np++] = (struct pollfd){.fd = c->r.fd, .events = c->ans ? POLLOUT : POLLIN};
            if (!c->ans && !s->stopping && line_ready(&c->r))
                ready = 1;
            if (s->idle_ms > 0) {
                int64_t left = c->last_ms + s->idle_ms - now;
                if (left < 0)
                    left = 0;
                if (timeout < 0 || left < timeout)
                    timeout = left > 1000000 ? 1000000 : (int)left;
            }
        }
        if (s->stopping) {
            int64_t left = stop_deadline - now;
            if (timeout < 0 || left < timeout)
                timeout = (int)(left < 0 ? 0 : left);
        }
        if (ready)
            timeout = 0;
        if (poll(pf, np, timeout) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "topo-sched: serve: poll: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        now = now_ms();
        /* every client's turn: write its answer, or read, or answer one line; pf[1 + i] is
         * client i as it was when polled (drops below keep the order of the rest) */
        size_t n0 = s->n;
        int stop = 0;
        for (size_t i = n0; i-- > 0;) {
            client *c = &s->c[i];
            short rev = pf[1 + i].revents;
            int gone = 0;
            if (c->ans) {
                if (rev & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)) {
                    size_t before = c->off;
                    int w = flush_some(c);
                    gone = w < 0;
                    if (c->off != before || !c->ans)
                        c->last_ms = now;
                }
            } else if (!s->stopping) {
                if (rev & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) {
                    int got = fill(&c->r, s->max);
                    if (got < 0 && errno == ENOMEM) {
                        rc = -2;
                        break;
                    }
                    gone = got < 0;
                    if (got > 0)
                        c->last_ms = now;
                }
                if (!gone) {
                    if ((rc = serve_one(s, c, &stop)) != 0)
                        break;
                    if (c->ans)
                        gone = flush_some(c) < 0; /* most answers go out at once */
                    else if (c->r.eof && c->r.start == c->r.len && !c->r.skipping)
                        gone = 1; /* its input ended and everything is answered */
                }
                if (stop && !gone) {
                    s->stopping = 1;
                    stop_deadline = now + (s->idle_ms > 0 ? s->idle_ms : 10000);
                }
            }
            if (!gone && s->idle_ms > 0 && now - c->last_ms >= s->idle_ms)
                gone = 1; /* idle: sent nothing, or read nothing of its answer, for too long */
            if (gone)
                drop(s, i);
            if (stop)
                break;
        }
        if (rc != 0)
            break;
        if (stop && !s->stopping) /* the client that asked went away: stop now */
            break;
        if (listening && (pf[0].revents & POLLIN) && accept_all(s, lfd) != 0)
            accept_paused_until = now + 100; /* out of descriptors: let clients leave first */
    }
    while (s->n)
        drop(s, s->n - 1);
    free(pf);
    free(s->c);
    return rc;
}

/* The readiness signal, once the socket listens: "listening on PATH" on standard output
 * (flushed), and the same line in `ready` (when given), written beside it and renamed into
 * place so a reader that sees the file sees the whole line. 0, or -1 with a message. */
static int announce(const char *path, const char *ready)
{
    if (ready) {
        size_t n = strlen(ready);
        char *tmp = malloc(n + 16);
        if (!tmp) {
            fputs("topo-sched: serve: out of memory\n", stderr);
            return -1;
        }
        snprintf(tmp, n + 16, "%s.tmp%d", ready, (int)(getpid() % 100000));
        FILE *f = fopen(tmp, "w");
        int ok = f && fprintf(f, "listening on %s\n", path) > 0;
        ok = (f && fclose(f) == 0) && ok;
        if (!ok || rename(tmp, ready) != 0) {
            fprintf(stderr, "topo-sched: --ready-file %s: %s\n", ready, strerror(errno));
            unlink(tmp);
            free(tmp);
            return -1;
        }
        free(tmp);
    }
    if (printf("listening on %s\n", path) < 0 || fflush(stdout) != 0) {
        fprintf(stderr, "topo-sched: serve: standard output: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

static int serve_socket(tsched_service *svc, const char *path, size_t max, unsigned idle_s, unsigned max_clients,
                        const char *ready)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return cli_usage_error("--socket: '%s' is longer than %zu bytes", path, sizeof addr.sun_path - 1);
    strcpy(addr.sun_path, path);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (lfd < 0 || set_nonblocking(lfd) != 0) {
        fprintf(stderr, "topo-sched: --socket %s: %s\n", path, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return CLI_INTERNAL;
    }
    int bound = bind(lfd, (struct sockaddr *)&addr, sizeof addr) == 0;
    if (!bound && errno == EADDRINUSE) {
        /* A socket file nobody listens on is left from an earlier run: replace it. */
        struct stat sb;
        int probe = socket(AF_UNIX, SOCK_STREAM, 0);
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
    if (announce(path, ready) != 0) {
        close(lfd);
        unlink(path);
        return CLI_INTERNAL;
    }
    server s = {.svc = svc, .max = max, .max_clients = max_clients, .idle_ms = (int64_t)idle_s * 1000};
    int k = serve_clients(&s, lfd);
    close(lfd);
    unlink(path);
    if (ready) /* a stale file would tell the next waiter a dead server is ready */
        unlink(ready);
    if (k == -2)
        fputs("topo-sched: serve: out of memory\n", stderr);
    return k == 0 ? CLI_OK : CLI_INTERNAL;
}

typedef struct serve_args {
    const char *sock, *ready;
    unsigned mb, idle_s, max_clients;
} serve_args;

static void serve_init(void *v)
{
    serve_args *a = v;
    memset(a, 0, sizeof *a);
    a->mb = 256;
    a->idle_s = 60;
    a->max_clients = 64;
}

#define S serve_args
static const cli_opt serve_opts[] = {
    {.lng = "--socket", .type = CLI_OPT_FILE, .off = CLI_OFF(S, sock), .arg = "PATH", .dflt = "standard input and output",
     .help = "listen on a Unix socket ({D});\nall clients at once, each line answered when complete"},
    {.lng = "--max-line-mb", .type = CLI_OPT_UINT, .umin = 1, .umax = 1048576, .off = CLI_OFF(S, mb),
     .err = "is not a whole number in [1, 1048576]", .arg = "N", .dflt = "256", .help = "longest request line in MiB"},
    {.lng = "--idle-timeout-s", .type = CLI_OPT_UINT, .umax = 1000000, .off = CLI_OFF(S, idle_s),
     .err = "is not a whole number in [0, 1000000]", .arg = "S", .dflt = "60",
     .help = "drop a socket client idle for S s, 0 never ({D}); idle:\nit sends nothing and reads nothing of its answer"},
    {.lng = "--max-clients", .type = CLI_OPT_UINT, .umin = 1, .umax = 65536, .off = CLI_OFF(S, max_clients),
     .err = "is not a whole number in [1, 65536]", .arg = "N", .dflt = "64",
     .help = "socket clients at once; one more gets an error line"},
    {.lng = "--ready-file", .type = CLI_OPT_FILE, .off = CLI_OFF(S, ready), .arg = "F", .dflt = "none",
     .help = "once --socket listens ({D}), write \"listening on PATH\"\nto F, as on standard output; "
             "removed at exit"},
};
#undef S

const cli_cmd_spec cli_spec_serve = {"serve", NULL, serve_opts, CLI_NOPTS(serve_opts), sizeof(serve_args), serve_init, 0};

int cmd_serve(int argc, char **argv)
{
    serve_args a;
    serve_init(&a);
    int prc = cli_opt_parse(&cli_spec_serve, &a, argc, argv);
    if (prc != CLI_OK)
        return prc;
    const char *sock = a.sock, *ready = a.ready;
    if (ready && !sock)
        return cli_usage_error("serve: --ready-file needs --socket (on standard input the service is ready at once)");
    unsigned mb = a.mb, idle_s = a.idle_s, max_clients = a.max_clients;
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
        rc = serve_socket(svc, sock, max, idle_s, max_clients, ready);
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
