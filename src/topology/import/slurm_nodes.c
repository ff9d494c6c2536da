/* Slurm node state for the Slurm imports (tsched_slurm_options.nodes_json; semantics in
 * doc/slurm-import.md, "Node state").
 *
 * The text is the node list Slurm prints as JSON: `sinfo --json` and slurmrestd's
 * /slurm/v0.0.38/nodes in 22.05 (tests/data/slurm/ holds both, recorded from the daemons),
 * `scontrol show nodes --json` from 23.02 on. All are an object whose "nodes" array holds one
 * object per node; only "name", "state", "state_flags", "gres" and "gres_used" are read.
 * 22.05 writes "state" as one lower-case word ("idle", "mixed") and the flags as an upper-case
 * array ("state_flags": ["DRAIN"]); later versions write "state" as an array of words
 * (["IDLE", "DRAIN"]); `scontrol show node` prints "IDLE+DRAIN". Every form is read the same
 * way: a list of words, compared without case.
 *
 * The document is parsed by jansson (ts_json_parse: bounded depth, duplicate keys rejected)
 * within the input_bytes limit; every GPU count is bounded by the gpus_per_node limit while
 * it is read, so neither a huge number nor a long list costs more than one pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/limits.h"
#include "slurm_internal.h"

/* What one node of the JSON says. */
typedef struct sl_nstate {
    uint32_t gpus;     /* GPUs named by gres; 0: none */
    uint32_t used;     /* allocated GPUs (gres_used), when used_ok */
    uint8_t used_ok;   /* gres_used was given and read */
    uint8_t down;      /* not placeable */
    uint8_t busy;      /* ALLOCATED, MIXED or COMPLETING */
    uint8_t full;      /* ALLOCATED or COMPLETING: nothing free whatever gres_used says */
} sl_nstate;

struct sl_nodes {
    ts_strtab names;   /* node names; id = index in st */
    sl_nstate *st;
    size_t cap;
};

void sl_nodes_free(sl_nodes *n)
{
    if (!n)
        return;
    ts_strtab_free(&n->names);
    free(n->st);
    free(n);
}

/* ---- gres strings ----------------------------------------------------------------------- */

/* Outcome of reading a gres string. */
enum { GRES_OK = 0, GRES_BAD, GRES_BIG };

/* Decimal digits [p, p + n) into *v; GRES_BIG above `max` (read no further: bounded time). */
static int read_count(const char *p, size_t n, uint64_t max, uint64_t *v)
{
    if (n == 0)
        return GRES_BAD;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return GRES_BAD;
        x = x * 10 + (uint64_t)(p[i] - '0');
        if (x > max)
            return GRES_BIG;
    }
    *v = x;
    return GRES_OK;
}

/* A GPU type ("a100", "h100_80gb", "mi300x.v2"): a non-empty word. */
static int type_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
              p[i] == '_' || p[i] == '-' || p[i] == '.'))
            return 0;
    return n > 0;
}

/* The GPU count of one entry `name[:type][:count][(...)]`; entries of other resources add 0. */
static int gres_entry(const char *p, size_t n, uint64_t max, uint64_t *count)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    const char *paren = memchr(p, '(', n);
    if (paren) { /* "(S:0-1)" sockets, "(IDX:0-2)" indexes: nothing to count */
        if (p[n - 1] != ')')
            return GRES_BAD;
        n = (size_t)(paren - p);
    }
    const char *colon = memchr(p, ':', n);
    size_t name_len = colon ? (size_t)(colon - p) : n;
    *count = 0;
    if (name_len == 0)
        return GRES_BAD;
    if (name_len != 3 || memcmp(p, "gpu", 3) != 0)
        return GRES_OK;
    if (!colon) { /* "gpu": one */
        *count = 1;
        return GRES_OK;
    }
    const char *rest = colon + 1, *end = p + n;
    const char *second = memchr(rest, ':', (size_t)(end - rest));
    if (second) { /* gpu:type:count */
        if (!type_ok(rest, (size_t)(second - rest)) || memchr(second + 1, ':', (size_t)(end - second - 1)))
            return GRES_BAD;
        return read_count(second + 1, (size_t)(end - second - 1), max, count);
    }
    if (rest < end && *rest >= '0' && *rest <= '9') /* gpu:count */
        return read_count(rest, (size_t)(end - rest), max, count);
    *count = 1; /* gpu:type */
    return type_ok(rest, (size_t)(end - rest)) ? GRES_OK : GRES_BAD;
}

/* Sum of the GPU counts of a gres string ("gpu:a100:4(S:0),gpu:v100:4(S:1),mps:200"); commas
 * inside parentheses ("(IDX:0,2-3)") do not split entries. */
static int gres_gpus(const char *s, size_t len, uint64_t max, uint64_t *sum)
{
    *sum = 0;
    if (len == 0 || strcmp(s, "(null)") == 0 || strcasecmp(s, "N/A") == 0)
        return GRES_OK;
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] == '(')
            depth++;
        else if (i < len && s[i] == ')' && --depth < 0)
            return GRES_BAD;
        if (i < len && (s[i] != ',' || depth > 0))
            continue;
        if (depth != 0)
            return GRES_BAD;
        uint64_t c;
        int r = gres_entry(s + start, i - start, max, &c);
        if (r != GRES_OK)
            return r;
        if ((*sum += c) > max)
            return GRES_BIG;
        start = i + 1;
    }
    return GRES_OK;
}

/* ---- state words -------------------------------------------------------------------------- */

/* Base states and flags that make a node unplaceable (doc/slurm-import.md). */
static const char *const down_words[] = {
    "DOWN", "FUTURE", "UNKNOWN", "ERROR", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING",
    "NOT_RESPONDING", "NO_RESPOND", "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN", "MAINTENANCE", "MAINT",
    "REBOOT_REQUESTED", "REBOOT_ISSUED", "INVALID", "INVALID_REG",
};
/* Base states a node is in when it is up (with the down ones: every base state). */
static const char *const up_bases[] = {"IDLE", "ALLOCATED", "MIXED"};

static int word_is(const char *w, size_t n, const char *s) { return strlen(s) == n && strncasecmp(w, s, n) == 0; }

/* Apply one state word. *based: a base state was named. */
static void state_word(sl_nstate *ns, const char *w, size_t n, int *based)
{
    for (size_t k = 0; k < sizeof down_words / sizeof *down_words; k++)
        if (word_is(w, n, down_words[k])) {
            ns->down = 1;
            *based |= k < 4; /* DOWN FUTURE UNKNOWN ERROR */
            return;
        }
    for (size_t k = 0; k < sizeof up_bases / sizeof *up_bases; k++)
        if (word_is(w, n, up_bases[k])) {
            *based = 1;
            ns->busy |= k > 0;
            ns->full |= k == 1;
            return;
        }
    if (word_is(w, n, "COMPLETING")) { /* Slurm's node_state_string() gives it alone for idle+completing */
        ns->busy = ns->full = 1;
        *based = 1;
    }
    /* any other word (RESERVED, CLOUD, PLANNED, ...) says nothing about placement */
}

/* Words of "idle+drain" (scontrol's form; 22.05's JSON gives one word). */
static void state_words(sl_nstate *ns, const char *s, int *based)
{
    while (*s) {
        size_t n = strcspn(s, "+");
        state_word(ns, s, n, based);
        s += n + (s[n] == '+');
    }
}

/* ---- the document -------------------------------------------------------------------------- */

static tsched_status type_error(const char *field, size_t i, const char *what, const json_t *v)
{
    return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].%s: expected %s, got %s", i, field, what,
                    ts_json_type_name(v));
}

/* "state" (a string or an array of strings) or "state_flags" (an array of strings). */
static tsched_status read_state(sl_nstate *ns, const json_t *e, const char *key, size_t i, int *based)
{
    const json_t *v = json_object_get(e, key);
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (json_is_string(v) && strcmp(key, "state") == 0) {
        state_words(ns, json_string_value(v), based);
        return TSCHED_OK;
    }
    if (!json_is_array(v))
        return type_error(key, i, strcmp(key, "state") == 0 ? "a string or an array of strings" : "an array of strings",
                          v);
    for (size_t k = 0; k < json_array_size(v); k++) {
        const json_t *w = json_array_get(v, k);
        if (!json_is_string(w))
            return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].%s[%zu]: expected a string, got %s", i, key, k,
                            ts_json_type_name(w));
        state_words(ns, json_string_value(w), based);
    }
    return TSCHED_OK;
}

static tsched_status read_gres(sl_nstate *ns, const json_t *e, size_t i)
{
    sl_q q;
    uint32_t max = ts_limits()->gpus_per_node;
    const json_t *v = json_object_get(e, "gres");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return type_error("gres", i, "a string", v);
        uint64_t sum;
        int r = gres_gpus(json_string_value(v), json_string_length(v), max, &sum);
        if (r == GRES_BAD)
            return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].gres: %s is not a gres list such as "
                            "\"gpu:8\" or \"gpu:a100:4(S:0),gpu:v100:4(S:1)\"", i,
                            sl_qa(&q, json_string_value(v), json_string_length(v)));
        if (r == GRES_BIG)
            return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].gres: %s names more than %u GPUs (the limit "
                            "gpus_per_node, see tsched_limits)", i,
                            sl_qa(&q, json_string_value(v), json_string_length(v)), max);
        ns->gpus = (uint32_t)sum;
    }
    v = json_object_get(e, "gres_used");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return type_error("gres_used", i, "a string", v);
        uint64_t sum;
        /* unreadable: left unknown, which the state then makes conservative */
        if (gres_gpus(json_string_value(v), json_string_length(v), max, &sum) == GRES_OK) {
            ns->used = (uint32_t)sum;
            ns->used_ok = 1;
        }
    }
    return TSCHED_OK;
}

static tsched_status read_node(sl_nodes *n, const json_t *e, size_t i)
{
    sl_q q;
    if (!json_is_object(e))
        return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu]: expected an object, got %s", i,
                        ts_json_type_name(e));
    const json_t *name = json_object_get(e, "name");
    if (!json_is_string(name))
        return name ? type_error("name", i, "a string", name)
                    : ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].name: missing", i);
    uint32_t id;
    int added;
    tsched_status st = ts_strtab_intern(&n->names, json_string_value(name), &id, &added);
    if (st != TSCHED_OK)
        return st;
    if (!added)
        return ts_error(TSCHED_E_PARSE, "nodes_json: nodes[%zu].name: node %s is listed twice", i,
                        sl_qz(&q, json_string_value(name)));
    if ((st = TS_GROW(n->st, n->cap, (size_t)id + 1)) != TSCHED_OK)
        return st;
    sl_nstate *ns = &n->st[id];
    memset(ns, 0, sizeof *ns);
    int based = 0;
    if ((st = read_state(ns, e, "state", i, &based)) != TSCHED_OK ||
        (st = read_state(ns, e, "state_flags", i, &based)) != TSCHED_OK || (st = read_gres(ns, e, i)) != TSCHED_OK)
        return st;
    if (!based) /* no base state (or none given): what the node does is unknown */
        ns->down = 1;
    return TSCHED_OK;
}

tsched_status sl_nodes_read(sl_nodes **out, const char *json)
{
    *out = NULL;
    if (!json)
        return TSCHED_OK;
    json_t *root;
    tsched_status st = ts_json_parse_field(&root, json, "nodes_json");
    if (st != TSCHED_OK)
        return st;
    sl_nodes *n = ts_calloc(1, sizeof *n);
    if (!n) {
        json_decref(root);
        return TSCHED_E_NOMEM;
    }
    ts_strtab_init(&n->names);
    const json_t *nodes = json_is_object(root) ? json_object_get(root, "nodes") : NULL;
    if (!json_is_object(root))
        st = ts_error(TSCHED_E_PARSE, "nodes_json: expected the object of `sinfo --json` or `scontrol show nodes "
                      "--json`, got %s", ts_json_type_name(root));
    else if (!nodes && json_object_get(root, "sinfo"))
        st = ts_error(TSCHED_E_PARSE, "nodes_json: nodes: missing; this is the `sinfo --json` of Slurm 23.02 or "
                      "later, give `scontrol show nodes --json` instead");
    else if (!json_is_array(nodes))
        st = nodes ? ts_error(TSCHED_E_PARSE, "nodes_json: nodes: expected an array, got %s", ts_json_type_name(nodes))
                   : ts_error(TSCHED_E_PARSE, "nodes_json: nodes: missing");
    else if (json_array_size(nodes) > ts_limits()->nodes)
        st = ts_limit_error("nodes_json: nodes", json_array_size(nodes), "nodes", ts_limits()->nodes);
    for (size_t i = 0; st == TSCHED_OK && i < json_array_size(nodes); i++)
        st = read_node(n, json_array_get(nodes, i), i);
    json_decref(root);
    if (st != TSCHED_OK) {
        sl_nodes_free(n);
        return st;
    }
    *out = n;
    return TSCHED_OK;
}

uint32_t sl_nodes_gpus(const sl_nodes *n, const char *name, uint32_t dflt)
{
    uint32_t id = n ? ts_strtab_find(&n->names, name) : UINT32_MAX;
    return id != UINT32_MAX && n->st[id].gpus > 0 ? n->st[id].gpus : dflt;
}

tsched_status sl_nodes_apply(const sl_nodes *n, tsched_topology *topo)
{
    if (!n)
        return TSCHED_OK;
    uint32_t count = tsched_topology_num_nodes(topo);
    for (uint32_t v = 0; v < count; v++) {
        uint32_t id = ts_strtab_find(&n->names, tsched_topology_node_name(topo, v));
        uint32_t gpus = tsched_topology_node_gpus(topo, v), free_gpus = 0;
        int down = 1; /* absent from the live state: nothing may be placed there */
        if (id != UINT32_MAX) {
            const sl_nstate *ns = &n->st[id];
            down = ns->down || ns->gpus == 0;
            if (ns->gpus == 0 || ns->full || (ns->busy && !ns->used_ok))
                free_gpus = 0;
            else if (ns->used_ok)
                free_gpus = ns->used < gpus ? gpus - ns->used : 0;
            else
                free_gpus = gpus;
        }
        tsched_status st = tsched_topology_set_free_gpus(topo, v, free_gpus);
        if (st == TSCHED_OK && down)
            st = tsched_topology_set_node_up(topo, v, 0);
        if (st != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

tsched_status tsched_topology_apply_slurm_nodes(tsched_topology *topo, const char *nodes_json)
{
    if (!topo || !nodes_json)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_apply_slurm_nodes: %s is NULL", topo ? "nodes_json" : "topo");
    sl_nodes *n = NULL;
    tsched_status st = sl_nodes_read(&n, nodes_json);
    if (st == TSCHED_OK)
        st = sl_nodes_apply(n, topo);
    sl_nodes_free(n);
    return st;
}

tsched_status sl_file_error(tsched_status st, const char *shown)
{
    static const char field[] = "nodes_json:";
    if (st == TSCHED_OK || strncmp(tsched_last_error(), field, sizeof field - 1) == 0)
        return st; /* the node list is not in the file */
    return ts_error_prefix(st, shown);
}
