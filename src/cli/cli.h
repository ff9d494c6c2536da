/* The topo-sched command line: a thin layer over the public API. */
#ifndef TSCHED_CLI_H
#define TSCHED_CLI_H

#include <stdio.h>

#include "topo-sched/topo-sched.h"

#include "../common/cnum.h" /* ts_strtod: numbers in the C locale */

/* Exit statuses of DESIGN 6. */
enum { CLI_OK = 0, CLI_INFEASIBLE = 1, CLI_BAD_INPUT = 2, CLI_INTERNAL = 3 };

/* Print the library's last error as one line on stderr; return the exit status for `st`. */
int cli_fail(tsched_status st);
/* The exit status for `st` (nothing printed). */
int cli_fail_status(tsched_status st);
/* As cli_fail, the message prefixed by `where` (a file name or an option). */
int cli_fail_in(tsched_status st, const char *where);
/* Read a whole text file ("-": stdin) within the input_bytes limit into a NUL-terminated
 * buffer (free()); errors printed as one line; returns an exit status. */
int cli_read_file(const char *path, char **buf, size_t *len);
/* As cli_read_file, from an open stream named `shown` in messages. */
int cli_read_stream(FILE *f, const char *shown, char **buf, size_t *len);
/* Print a usage error as one line on stderr; return CLI_BAD_INPUT. */
int cli_usage_error(const char *fmt, ...);
/* Write `text` plus a newline to `path` ("-" or NULL: stdout). */
int cli_write(const char *path, const char *text);
/* Finish a command that produced `json` with status `st`: write it to `path`, free it. */
int cli_emit(tsched_status st, char *json, const char *path);
/* As cli_emit, on one line without whitespace when `compact` (--compact). */
int cli_emit_doc(tsched_status st, char *json, const char *path, int compact);
/* Parse a whole unsigned number / a finite positive double; 0 on success. */
int cli_parse_u32(const char *s, unsigned *out);
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_double(const char *s, double *out);

/* Write `text` as it is (no newline added) to `path` ("-": stdout). */
int cli_write_raw(const char *path, const char *text);
/* Write the library's JSON document `json` plus a newline to `path`: as it is, or with
 * `compact` on one line without whitespace (--compact; the numbers keep their text). */
int cli_write_json(const char *path, const char *json, int compact);

/* The output files of one command (cli_util.c). Each cli_write* above is one such group of
 * one file. A command with several outputs, or a long run, adds every output before the
 * work (an unwritable path fails there: exit status 2, nothing run), writes them, and ends
 * the group with its exit status: only on CLI_OK are the outputs replaced, all together
 * (each was written to a temporary file next to it); otherwise every existing file is left
 * untouched. "-" or NULL is standard output, written when written to. */
#define CLI_MAX_OUTPUTS 8
enum { CLI_OUT_STDOUT = 1, CLI_OUT_TEMP, CLI_OUT_IN_PLACE };
typedef struct cli_out {
    const char *path;
    char *target, *tmp; /* TEMP: the file replaced (symbolic links followed), the temporary file */
    FILE *f;
    int kind;
    int state; /* 0 not written, 1 open for writing, 2 failed, 3 written */
} cli_out;
typedef struct cli_outs {
    int n;
    cli_out o[CLI_MAX_OUTPUTS];
} cli_outs;
void cli_outs_init(cli_outs *g);
/* Check `path` can be written, and create its temporary file; an exit status. */
int cli_outs_add(cli_outs *g, const char *path);
/* Write `text` (plus a newline if `newline`) to the first unwritten output added for `path`. */
int cli_outs_write(cli_outs *g, const char *path, const char *text, int newline);
/* As cli_write_json, into the group. */
int cli_outs_write_json(cli_outs *g, const char *path, const char *json, int compact);
/* For streaming writers: the FILE of the first unwritten output for `path` (NULL after a
 * message), handed back with cli_outs_close (failed: the writer's own error, already told). */
FILE *cli_outs_file(cli_outs *g, const char *path);
int cli_outs_close(cli_outs *g, FILE *f, int failed);
/* Replace the written outputs if `rc` is CLI_OK, else remove the temporary files; returns
 * `rc`, or CLI_INTERNAL when a replacement failed. */
int cli_outs_end(cli_outs *g, int rc);
/* For a command with one output written by cli_write* at its end: check `path` before the
 * work (cli_outs_add, then nothing kept); an exit status. */
int cli_output_check(const char *path);

/* Help (help.c): the usage text of `cmd` as typed ("topology export"; "" = every command), or
 * NULL. */
const char *cli_help_text(const char *cmd);
/* If the command line asks for help (`help [CMD]`, or --help / -h anywhere), print it on
 * stdout and return the exit status; otherwise return -1. */
int cli_help(int argc, char **argv);

int cmd_topology(int argc, char **argv);
/* topology export (cmd_export.c) */
int cmd_topology_export(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_flows(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_prioritize(int argc, char **argv);
int cmd_kcut(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_vclos(int argc, char **argv);
int cmd_cells(int argc, char **argv);
int cmd_crius_schedule(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Shared by cells and crius-schedule (cmd_cells.c). */
struct tsched_gpu_catalog;
struct json_t;
/* One error line "topo-sched: ..." (no usage hint); returns CLI_BAD_INPUT. */
int cli_cell_opt_error(const char *fmt, ...);
/* The library's error for a file, prefixed by the file name unless the message has it. */
int cli_cell_fail_file(tsched_status st, const char *path);
/* The built-in catalogue, with the tsched.gpus.v1 file `path` (may be NULL) merged over it. */
int cli_cell_catalog(struct tsched_gpu_catalog **out, const char *path);
/* "out of memory" on stderr; CLI_INTERNAL. */
int cli_cell_nomem(void);
/* Monotonic clock in milliseconds. */
double cli_cell_now_ms(void);

#endif
