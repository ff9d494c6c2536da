/* topo-sched-slurm: the Slurm placer's private interface.
 *
 * The program is split so that everything that needs no Slurm (the opt-in tag, the
 * topology.conf and node-state texts built from plain structs, hostlist ranging: text.c,
 * tag.c) is tested without libslurm (tests/test_slurm_placer.c); live.c and cycle.c are
 * the only files that call libslurm, main.c and log.c neither. Only the public
 * libtopo-sched API is used. */
#ifndef TSCHED_CONTRIB_SLURM_PLACER_H
#define TSCHED_CONTRIB_SLURM_PLACER_H

#include <stddef.h>
#include <stdint.h>

#include <topo-sched/topo-sched.h>

/* ---- tag.c: the opt-in tag in a job's comment ---------------------------------------- */

#define PS_TAG_PREFIX "topo-sched:"

/* What a job's tag asks for; a field not given keeps its "not set" value. */
typedef struct ps_tag {
    uint32_t tp, pp, gpus; /* 0: not given */
    int alpha_set;         /* 0 none, 1 a number (alpha); `auto` is refused (no model) */
    double alpha;
    int unit; /* -1 not given, else a tsched_unit */
} ps_tag;

/* Find the tag in `comment` (NULL allowed): it starts where "topo-sched:" starts the comment
 * or follows a blank, and runs to the next blank. Returns 1 and sets *start / *len (the
 * text after the prefix), or 0 when the comment has no tag. */
int ps_tag_find(const char *comment, const char **start, size_t *len);

/* Parse the comment's tag: 1 = a valid tag (in *tag), 0 = no tag (the job did not opt in),
 * -1 = a tag that does not parse (err holds one line naming the key and value). */
int ps_tag_parse(ps_tag *tag, const char *comment, char *err, size_t errcap);

/* ---- text.c: texts built from plain structs (no Slurm) -------------------------------- */

/* One switch as slurm_load_topo reports it. */
typedef struct ps_switch {
    const char *name;
    unsigned level;       /* 0 = leaf */
    const char *nodes;    /* hostlist of the nodes below (may be NULL or "") */
    const char *switches; /* hostlist of the child switches (may be NULL or "") */
} ps_switch;

/* One node as slurm_load_node reports it, in the words of `sinfo --json` (Slurm 22.05). */
typedef struct ps_node {
    const char *name;
    const char *gres;      /* "gpu:8", may be NULL */
    const char *gres_used; /* "gpu:3(IDX:0-2)", may be NULL */
    const char *state;     /* base state, lower case: "idle", "mixed", "down", ... */
    const char *flags[32]; /* state flags, upper case: "DRAIN", "COMPLETING", ... */
    unsigned nflags;
} ps_node;

/* A growable NUL-terminated text; every append returns 0, or -1 when out of memory (the
 * text is then freed and every later append fails too). */
typedef struct ps_buf {
    char *s;
    size_t len, cap;
    int failed;
} ps_buf;
int ps_buf_add(ps_buf *b, const char *s, size_t n);
int ps_buf_str(ps_buf *b, const char *s);
int ps_buf_printf(ps_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `s` as a JSON string (quotes included); NULL as null. */
int ps_buf_json_str(ps_buf *b, const char *s);

/* The topology.conf text (the form `scontrol show topology` prints, without the placeholder
 * LinkSpeed) of `n` switches, one line each in the given order: a switch with children
 * lists Switches=, any other its Nodes=. *out is malloc'ed (caller frees); -1 no memory. */
int ps_topology_conf(char **out, const ps_switch *sw, size_t n);

/* The node-state JSON the library's Slurm imports read (tsched_slurm_options.nodes_json), in
 * the shape of `sinfo --json`: {"nodes": [{"name", "gres", "gres_used", "state",
 * "state_flags"}, ...]}. *out is malloc'ed; -1 no memory. */
int ps_nodes_json(char **out, const ps_node *nodes, size_t n);

/* The names as one Slurm hostlist expression ("n[0-3,8],gpu[01-02],login"): names ending in
 * digits are grouped by prefix and zero padding, runs of numbers become ranges; other names
 * are kept as they are. Order: groups by first appearance, numbers ascending; duplicates
 * are dropped. *out is malloc'ed; -1 no memory. */
int ps_hostlist_ranged(char **out, const char *const *names, size_t n);

/* ---- reserve.c: the reservation rule's pure parts (no Slurm) ----------------------------- */

/* slurm.h's NO_VAL; INFINITE is the one above: a time limit at or above it never ends. */
#define PS_TIME_NO_VAL 0xfffffffeu

/* 1 when a job that may begin at `begin` (epoch seconds) is imminent at `now`: it begins in
 * the future but within `horizon_s` seconds (0 = the rule is off: never). */
int ps_reserve_imminent(int64_t begin, int64_t now, unsigned horizon_s);
/* Index of the earliest imminent job of `begins` (the first on a tie), or n when none. */
size_t ps_reserve_pick(const int64_t *begins, size_t n, int64_t now, unsigned horizon_s);
/* When a job started at `now` with a time limit of `time_limit_min` minutes ends at the
 * latest; DBL_MAX (never) for INFINITE or NO_VAL. */
double ps_reserve_predicted_end(int64_t now, uint32_t time_limit_min);
/* The reason a job held by the rule gets: "delayed: nodes reserved for job R arriving at
 * <UTC time, ISO 8601>", cut to `cap`. */
void ps_reserve_delay_reason(char *dst, size_t cap, uint32_t reserved_id, int64_t arrival);

/* ---- log.c ------------------------------------------------------------------------- */

/* Send log lines to `path` (appended; NULL = standard error). 0, or -1 with errno. */
int ps_log_open(const char *path);
void ps_log_close(void);
/* One line: "topo-sched-slurm: " + the text + "\n", written at once and flushed. */
void ps_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* `s` made fit for one quoted log field / one admin comment: control characters become
 * blanks, '"' becomes '\'', cut to `cap` - 1 bytes. */
void ps_one_line(char *dst, size_t cap, const char *s);
/* Monotonic clock in milliseconds. */
double ps_now_ms(void);

/* ---- the configuration (main.c fills it) ----------------------------------------------- */

typedef struct ps_config {
    int once, dry_run, compact;
    unsigned interval_s, max_jobs, tasks_per_node, gpus_per_node, time_limit_ms, reserve_horizon_s;
    int tpn_set, alpha_set;
    double alpha, nic_gbps;
    const char *partition, *hostfile_dir, *topology, *dump_dir, *log, *out;
    tsched_place_algo algo;
} ps_config;

/* ---- live.c: the fabric from the controller ------------------------------------------ */

/* Results of the Slurm-side calls. */
enum { PS_OK = 0, PS_E_SLURM = 1, PS_E_OTHER = 2 };

/* Build the cycle's fabric: the switches of slurm_load_topo (or cfg->topology) and the node
 * state of slurm_load_node, read by the library's Slurm import. PS_OK with *out (caller frees),
 * PS_E_SLURM (a libslurm call failed: the controller), PS_E_OTHER (the library refused the
 * input, a file); err holds one line. */
int ps_live_fabric(tsched_topology **out, const ps_config *cfg, char *err, size_t errcap);

/* ---- cycle.c --------------------------------------------------------------------------- */

/* One placement cycle (spec B). PS_OK when the cycle completed, held jobs included;
 * PS_E_SLURM when the controller could not be reached (logged); PS_E_OTHER for any other
 * failure of the cycle (logged). */
int ps_cycle(const ps_config *cfg);
/* Forget what the cycles remember (the last logged reason per held job). */
void ps_cycle_cleanup(void);

#endif
