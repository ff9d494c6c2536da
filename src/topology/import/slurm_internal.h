/* Internal: what the two Slurm importers share (slurm.c reads topology.conf, slurm_yaml.c
 * topology.yaml). Both fill the same records of switches and blocks, which point into
 * text that lives as long as the import; slurm.c turns them into a fabric. */
#ifndef TS_TOPOLOGY_SLURM_INTERNAL_H
#define TS_TOPOLOGY_SLURM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "topo-sched/topology.h"

#include "../../common/strtab.h"
#include "../../common/text.h"
#include "hostlist.h"

/* Names and text quoted in messages are cut to this many bytes, and escaped so that a
 * message stays on one line whatever the input holds. */
#define SL_QUOTE 80

typedef struct sl_q {
    char s[TS_TEXT_QUOTE_CAP(SL_QUOTE)];
} sl_q;

/* A value of the input: bytes and the line they start on. p == NULL: absent. */
typedef struct sl_text {
    const char *p;
    size_t len, line;
} sl_text;

/* What a record is: a SwitchName= line or tree entry, a BlockName= line or block entry,
 * or a switch the block form generates. */
enum { SL_SWITCH, SL_BLOCK, SL_GROUP };

/* Fields named in messages (sl_field). */
enum { SL_F_NAME, SL_F_NODES, SL_F_CHILDREN, SL_F_SIZES };

typedef struct sl_switch {
    size_t line;             /* line of the name */
    uint32_t item;           /* index in the YAML list of switches or blocks */
    int kind;                /* SL_SWITCH, SL_BLOCK, SL_GROUP */
    sl_text nodes, children; /* Nodes= and Switches= expressions */
    double speed;            /* LinkSpeed, 0 when not given */
    size_t child_off;        /* children in sl_ctx.child */
    uint32_t nchild, nparents, nnodes;
    int tier;
    uint32_t pod;            /* UINT32_MAX: no pod */
    double down;             /* capacity below the switch, Gbit/s */
} sl_switch;

/* Node state read from tsched_slurm_options.nodes_json (slurm_nodes.c). */
typedef struct sl_nodes sl_nodes;

typedef struct sl_ctx {
    const tsched_slurm_options *o;
    sl_nodes *live;          /* nodes_json, NULL when not given */
    uint32_t nics;
    int yaml;                /* field names: 0 topology.conf keys, 1 topology.yaml paths */
    uint32_t entry;          /* YAML: index of the selected topology */
    int scontrol;            /* a Level= key was seen: LinkSpeed is scontrol's placeholder */
    ts_strtab names;         /* switch names; id = index in sw = record order */
    sl_switch *sw;
    size_t nsw, sw_cap, nblocks;
    size_t first_switch_line, first_block_line;
    uint64_t sizes[TSCHED_MAX_TIERS]; /* BlockSizes */
    size_t nsizes, sizes_line;
    int have_sizes;
    uint32_t *child;
    size_t nchild, child_cap;
    char *cooked;            /* topology.conf: logical lines */
    size_t ncooked, line_start;
    struct sl_seg *seg;
    size_t nseg, seg_cap;
    struct sl_tok *tok;
    size_t ntok, tok_cap;
    char *tmp;               /* NUL-terminated copy of one value */
    size_t tmp_cap;
    ts_hostlist hl;
    ts_strtab nodes;         /* node names; id = node index in the fabric */
    uint32_t *owner;         /* node id -> its leaf */
    size_t owner_cap;
    uint32_t tier_count[TSCHED_MAX_TIERS];
    tsched_topology *topo;
} sl_ctx;

/* Quote text from the input for a message. */
const char *sl_qa(sl_q *b, const char *p, size_t n);
const char *sl_qz(sl_q *b, const char *p);

/* Merge `opts` (may be NULL) over the defaults into `*merged`, check them and start `c`. */
tsched_status sl_begin(sl_ctx *c, tsched_slurm_options *merged, const tsched_slurm_options *opts);
void sl_free(sl_ctx *c);

/* The name of field `f` of record `w` in messages: `Nodes=` in topology.conf,
 * `[1].tree.switches[3].nodes` in topology.yaml. */
const char *sl_field(const sl_ctx *c, const sl_switch *w, int f, char *buf, size_t cap);

/* Add a switch (kind SL_SWITCH, `speed` 0 when not given) or a block (SL_BLOCK) whose name,
 * nodes and children point into text that outlives the import. Checks the name and its
 * uniqueness. */
tsched_status sl_add_record(sl_ctx *c, int kind, const sl_text *name, const sl_text *nodes, const sl_text *children,
                            double speed, uint32_t item);

/* BlockSizes from the text "4,16" (topology.conf) or already as numbers; checks the rule
 * of doc/slurm-import.md. `field` names the value in messages. */
tsched_status sl_set_sizes(sl_ctx *c, const uint64_t *sizes, size_t n, size_t line);

/* Called after every node is added and before the fabric is built. */
typedef tsched_status (*sl_hook)(sl_ctx *c, void *arg);

/* Records -> the fabric in c->topo (built). */
tsched_status sl_import(sl_ctx *c, sl_hook before_build, void *arg);

/* Parallel links a non-blocking trunk of `cap` Gbit/s needs so that none exceeds the
 * model's per-link limit (1 for any real fabric); also used by the label import (k8s.c). */
uint32_t sl_links_for(double cap);

/* topology.conf text -> records (slurm_conf.c). */
tsched_status sl_parse_text(sl_ctx *c, const char *text, size_t len);
/* A switch, block or node name `name`[0, n) of `field` on `line`: valid UTF-8 without control
 * characters and without '#' (the model's names, DESIGN 3); else TSCHED_E_INVALID naming the
 * line, the field and the name. */
tsched_status sl_check_name(size_t line, const char *field, const char *name, size_t n);

/* Read the node list `json` (NULL: none, *out = NULL). Errors: TSCHED_E_PARSE naming the
 * field and value, TSCHED_E_TOO_LARGE, TSCHED_E_NOMEM. */
tsched_status sl_nodes_read(sl_nodes **out, const char *json);
void sl_nodes_free(sl_nodes *n);
/* GPUs of node `name`: what its gres names, else `dflt` (not listed, or no GPU). */
uint32_t sl_nodes_gpus(const sl_nodes *n, const char *name, uint32_t dflt);
/* Set the free GPUs and the down nodes of the built `topo` from `n` (NULL: nothing). */
tsched_status sl_nodes_apply(const sl_nodes *n, tsched_topology *topo);

/* An import from file `shown` failed with `st`: its name in front of the message, unless the
 * message is about nodes_json, which is not in the file. */
tsched_status sl_file_error(tsched_status st, const char *shown);

/* "line N: what: " in front of the current message. */
tsched_status sl_at_line(tsched_status st, size_t line, const char *what);

#endif
