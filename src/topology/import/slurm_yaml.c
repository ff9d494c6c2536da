/* Import of Slurm's topology.yaml (doc/slurm-import.md): the YAML subset reader gives a
 * tree, one entry is selected, and its switches or blocks become the same records the
 * topology.conf reader makes, so both forms share one assembly (slurm.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/limits.h"
#include "../../common/yaml.h"
#include "slurm_internal.h"
#include "../topology_internal.h"

enum { T_TREE, T_BLOCK, T_FLAT, T_OTHER };

static const char *const type_keys[] = {"tree", "block", "flat", "ring", "torus3d"};

typedef struct y_entry {
    const char *name;
    int type;
    size_t key; /* index in type_keys */
    int is_default;
    const json_t *body; /* the value of tree: or block: */
    size_t line;
} y_entry;

typedef struct y_ctx {
    sl_ctx *c;
    const ts_yaml_info *info;
    y_entry *e;
    size_t n;
    const y_entry *overlay;
    uint32_t overlay_index;
} y_ctx;

static size_t line_of(const y_ctx *y, const json_t *v, size_t fallback)
{
    size_t l = ts_yaml_line(y->info, v);
    return l ? l : fallback;
}

/* A name or hostlist field: a string, or a plain scalar the reader took for a number
 * (`switch: 100`). Absent or null: p = NULL (an error when `required`). */
static tsched_status y_text(sl_text *out, const y_ctx *y, const json_t *obj, const char *key, const char *where,
                            size_t line, int required)
{
    const json_t *v = json_object_get(obj, key);
    memset(out, 0, sizeof *out);
    if (!v || json_is_null(v)) {
        if (required)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: missing", line, where, key);
        return TSCHED_OK;
    }
    out->line = line_of(y, v, line);
    const char *raw = ts_yaml_scalar_text(y->info, v);
    if (json_is_string(v)) {
        out->p = json_string_value(v);
        out->len = json_string_length(v);
    } else if (raw) {
        out->p = raw;
        out->len = strlen(raw);
    } else {
        return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: expected a string, got %s", out->line, where, key,
                        ts_json_type_name(v));
    }
    if (out->len == 0)
        return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: empty", out->line, where, key);
    return TSCHED_OK;
}

/* The text of a name field read by y_text (a string or a number's text), else NULL. */
static const char *item_name(const y_ctx *y, const json_t *item, const char *key)
{
    const json_t *v = json_object_get(item, key);
    return json_is_string(v) ? json_string_value(v) : ts_yaml_scalar_text(y->info, v);
}

static tsched_status y_list(const json_t **out, const y_ctx *y, const json_t *obj, const char *key,
                            const char *where, size_t line)
{
    *out = json_object_get(obj, key);
    if (!*out || json_is_null(*out))
        return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: missing", line, where, key);
    if (!json_is_array(*out))
        return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: expected a sequence, got %s", line_of(y, *out, line), where,
                        key, ts_json_type_name(*out));
    return TSCHED_OK;
}

/* The entries: each a mapping with a `topology` name and exactly one type key. */
static tsched_status read_entries(y_ctx *y, const json_t *root)
{
    if (!json_is_array(root))
        return ts_error(TSCHED_E_PARSE, "line %zu: the document must be a sequence of topologies (- topology: "
                        "NAME ...), not %s", line_of(y, root, 1), ts_json_type_name(root));
    size_t n = json_array_size(root);
    if (!(y->e = ts_calloc(n ? n : 1, sizeof *y->e)))
        return TSCHED_E_NOMEM;
    size_t last_line = 1;
    for (size_t i = 0; i < n; i++) {
        const json_t *item = json_array_get(root, i);
        y_entry *e = &y->e[i];
        e->line = line_of(y, item, last_line);
        last_line = e->line;
        char where[32];
        snprintf(where, sizeof where, "[%zu]", i);
        if (!json_is_object(item))
            return ts_error(TSCHED_E_PARSE, "line %zu: %s: expected a mapping (topology: NAME ...), got %s", e->line,
                            where, ts_json_type_name(item));
        sl_text name;
        tsched_status st = y_text(&name, y, item, "topology", where, e->line, 1);
        if (st != TSCHED_OK)
            return st;
        e->name = name.p;
        for (size_t k = 0; k < i; k++) {
            sl_q q;
            if (strcmp(y->e[k].name, e->name) == 0)
                return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s.topology: %s is also the name of [%zu] (line %zu)",
                                name.line, where, sl_qz(&q, e->name), k, y->e[k].line);
        }
        const json_t *def = json_object_get(item, "cluster_default");
        if (def && !json_is_boolean(def) && !json_is_null(def))
            return ts_error(TSCHED_E_PARSE, "line %zu: %s.cluster_default: expected true or false, got %s",
                            line_of(y, def, e->line), where, ts_json_type_name(def));
        e->is_default = json_is_true(def);
        int found = 0;
        sl_q q;
        for (size_t k = 0; k < sizeof type_keys / sizeof *type_keys; k++) {
            const json_t *v = json_object_get(item, type_keys[k]);
            if (!v)
                continue;
            if (found++)
                return ts_error(TSCHED_E_PARSE, "line %zu: %s: a topology has exactly one of tree, block and flat; "
                                "%s has %s and %s", e->line, where, sl_qz(&q, e->name), type_keys[e->key],
                                type_keys[k]);
            e->type = k < T_OTHER ? (int)k : T_OTHER;
            e->key = k;
            e->body = v;
        }
        if (!found)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s: topology %s has none of tree, block and flat", e->line,
                            where, sl_qz(&q, e->name));
        if ((e->type == T_TREE || e->type == T_BLOCK) && !json_is_object(e->body))
            return ts_error(TSCHED_E_PARSE, "line %zu: %s.%s: expected a mapping, got %s",
                            line_of(y, e->body, e->line), where, type_keys[e->type], ts_json_type_name(e->body));
    }
    y->n = n;
    return TSCHED_OK;
}

static tsched_status find_entry(const y_entry **out, uint32_t *index, const y_ctx *y, const char *name,
                                const char *option)
{
    for (size_t i = 0; i < y->n; i++) {
        if (strcmp(y->e[i].name, name) == 0) {
            *out = &y->e[i];
            *index = (uint32_t)i;
            return TSCHED_OK;
        }
    }
    char list[300] = "";
    size_t used = 0;
    for (size_t i = 0; i < y->n && used + 4 < sizeof list; i++) {
        sl_q q;
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", sl_qz(&q, y->e[i].name));
        used = w < 0 ? sizeof list : used + (size_t)w;
    }
    sl_q q;
    return ts_error(TSCHED_E_NOT_FOUND, "option %s: no topology named %s (the file has %s)", option, sl_qz(&q, name),
                    y->n ? list : "none");
}

static tsched_status select_entry(const y_entry **out, uint32_t *index, const y_ctx *y, const char *name)
{
    *out = NULL;
    if (name)
        return find_entry(out, index, y, name, "topology");
    for (size_t i = 0; i < y->n && !*out; i++)
        if (y->e[i].is_default)
            *out = &y->e[i], *index = (uint32_t)i;
    for (size_t i = 0; i < y->n && !*out; i++)
        if (y->e[i].type == T_TREE || y->e[i].type == T_BLOCK)
            *out = &y->e[i], *index = (uint32_t)i;
    if (!*out)
        return ts_error(TSCHED_E_FORMAT, "the file has no tree or block topology: nothing to import");
    return TSCHED_OK;
}

static tsched_status read_tree(y_ctx *y, const y_entry *e)
{
    char where[64];
    snprintf(where, sizeof where, "[%u].tree", y->c->entry);
    const json_t *list;
    tsched_status st = y_list(&list, y, e->body, "switches", where, e->line);
    size_t line = e->line;
    for (size_t i = 0; st == TSCHED_OK && i < json_array_size(list); i++) {
        const json_t *item = json_array_get(list, i);
        char at[96];
        snprintf(at, sizeof at, "%s.switches[%zu]", where, i);
        line = line_of(y, item, line);
        if (!json_is_object(item))
            return ts_error(TSCHED_E_PARSE, "line %zu: %s: expected a mapping (switch: NAME ...), got %s", line, at,
                            ts_json_type_name(item));
        sl_text name, nodes, children;
        if ((st = y_text(&name, y, item, "switch", at, line, 1)) != TSCHED_OK ||
            (st = y_text(&nodes, y, item, "nodes", at, line, 0)) != TSCHED_OK ||
            (st = y_text(&children, y, item, "children", at, line, 0)) != TSCHED_OK)
            return st;
        if (nodes.p && children.p) {
            sl_q q;
            return ts_error(TSCHED_E_PARSE, "line %zu: %s: switch %s has both nodes and children; a switch holds "
                            "either nodes or switches", line, at, sl_qa(&q, name.p, name.len));
        }
        st = sl_add_record(y->c, SL_SWITCH, &name, nodes.p ? &nodes : NULL, children.p ? &children : NULL, 0,
                           (uint32_t)i);
    }
    if (st == TSCHED_OK && y->c->nsw == 0)
        st = ts_error(TSCHED_E_PARSE, "line %zu: %s.switches: no switch", line_of(y, list, e->line), where);
    return st;
}

/* block_sizes of a block entry (`where` names it) into v (n = 0 when absent; more than
 * TSCHED_MAX_TIERS sizes give TSCHED_MAX_TIERS + 1, for the caller's range check). */
static tsched_status y_sizes(uint64_t v[TSCHED_MAX_TIERS + 1], size_t *n, size_t *line, const y_ctx *y,
                             const y_entry *e, const char *where)
{
    const json_t *sizes = json_object_get(e->body, "block_sizes");
    *n = 0;
    *line = e->line;
    if (!sizes || json_is_null(sizes))
        return TSCHED_OK;
    *line = line_of(y, sizes, e->line);
    size_t m = json_is_array(sizes) ? json_array_size(sizes) : 1;
    for (size_t i = 0; i < m && i <= TSCHED_MAX_TIERS; i++) {
        const json_t *s = json_is_array(sizes) ? json_array_get(sizes, i) : sizes;
        if (!json_is_integer(s) || json_integer_value(s) < 0)
            return ts_error(TSCHED_E_PARSE, "line %zu: %s.block_sizes%s: expected a whole number, got %s",
                            line_of(y, s, *line), where, json_is_array(sizes) ? "[]" : "",
                            json_is_string(s) ? "a string" : ts_json_type_name(s));
        v[i] = (uint64_t)json_integer_value(s);
    }
    *n = m <= TSCHED_MAX_TIERS ? m : TSCHED_MAX_TIERS + 1;
    return TSCHED_OK;
}

static tsched_status read_block(y_ctx *y, const y_entry *e)
{
    char where[64];
    snprintf(where, sizeof where, "[%u].block", y->c->entry);
    uint64_t v[TSCHED_MAX_TIERS + 1];
    size_t n, sline;
    tsched_status st;
    if ((st = y_sizes(v, &n, &sline, y, e, where)) != TSCHED_OK)
        return st;
    if (n && (st = sl_set_sizes(y->c, v, n, sline)) != TSCHED_OK)
        return st;
    const json_t *list;
    if ((st = y_list(&list, y, e->body, "blocks", where, e->line)) != TSCHED_OK)
        return st;
    size_t line = e->line;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *item = json_array_get(list, i);
        char at[96];
        snprintf(at, sizeof at, "%s.blocks[%zu]", where, i);
        line = line_of(y, item, line);
        if (!json_is_object(item))
            return ts_error(TSCHED_E_PARSE, "line %zu: %s: expected a mapping (block: NAME ...), got %s", line, at,
                            ts_json_type_name(item));
        sl_text name, nodes;
        if ((st = y_text(&name, y, item, "block", at, line, 1)) != TSCHED_OK ||
            (st = y_text(&nodes, y, item, "nodes", at, line, 0)) != TSCHED_OK ||
            (st = sl_add_record(y->c, SL_BLOCK, &name, nodes.p ? &nodes : NULL, NULL, 0, (uint32_t)i)) != TSCHED_OK)
            return st;
    }
    if (y->c->nsw == 0)
        return ts_error(TSCHED_E_PARSE, "line %zu: %s.blocks: no block", line_of(y, list, e->line), where);
    return TSCHED_OK;
}

/* --nvl-topology: the overlay's blocks name NVLink domains of nodes the structure has. */
static tsched_status overlay(sl_ctx *c, void *arg)
{
    const y_ctx *y = arg;
    const y_entry *e = y->overlay;
    char where[64];
    snprintf(where, sizeof where, "[%u].block", y->overlay_index);
    /* its block_sizes describe these blocks: kept for the exports, as for a block import */
    uint64_t v[TSCHED_MAX_TIERS + 1];
    size_t n, sline;
    char sfield[80];
    snprintf(sfield, sizeof sfield, "%s.block_sizes", where);
    tsched_status st = y_sizes(v, &n, &sline, y, e, where);
    if (st == TSCHED_OK && n && (st = ts_topology_set_block_sizes(c->topo, v, n, sfield)) != TSCHED_OK)
        st = sl_at_line(st, sline, NULL);
    const json_t *list;
    if (st != TSCHED_OK || (st = y_list(&list, y, e->body, "blocks", where, e->line)) != TSCHED_OK)
        return st;
    uint32_t nn = ts_strtab_count(&c->nodes);
    uint32_t *by = ts_malloc(nn ? nn : 1, sizeof *by); /* node -> overlay block that named it */
    if (!by)
        return TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < nn; i++)
        by[i] = UINT32_MAX;
    size_t line = e->line;
    for (size_t i = 0; st == TSCHED_OK && i < json_array_size(list); i++) {
        const json_t *item = json_array_get(list, i);
        char at[96];
        snprintf(at, sizeof at, "%s.blocks[%zu]", where, i);
        line = line_of(y, item, line);
        if (!json_is_object(item)) {
            st = ts_error(TSCHED_E_PARSE, "line %zu: %s: expected a mapping (block: NAME ...), got %s", line, at,
                          ts_json_type_name(item));
            break;
        }
        sl_text name, nodes;
        if ((st = y_text(&name, y, item, "block", at, line, 1)) != TSCHED_OK ||
            (st = y_text(&nodes, y, item, "nodes", at, line, 0)) != TSCHED_OK || !nodes.p)
            continue;
        char field[112];
        snprintf(field, sizeof field, "%s.nodes", at);
        ts_hostlist_clear(&c->hl);
        if ((st = ts_hostlist_expand(&c->hl, nodes.p, nodes.len, (size_t)nn + 1)) != TSCHED_OK) {
            st = sl_at_line(st, nodes.line, field);
            break;
        }
        const char *bname = item_name(y, item, "block");
        for (size_t k = 0; st == TSCHED_OK && k < ts_hostlist_count(&c->hl); k++) {
            const char *node = ts_hostlist_name(&c->hl, k);
            uint32_t id = ts_strtab_find(&c->nodes, node);
            sl_q q1, q2;
            if (id == UINT32_MAX) {
                st = ts_error(TSCHED_E_NOT_FOUND, "line %zu: %s: node %s of the NVLink topology is not in the imported "
                              "topology", nodes.line, field, sl_qz(&q1, node));
            } else if (by[id] != UINT32_MAX) {
                sl_q q3;
                st = ts_error(TSCHED_E_DUPLICATE, "line %zu: %s: node %s is in block %s and in block %s", nodes.line,
                              field, sl_qz(&q1, node), sl_qz(&q2, item_name(y, json_array_get(list, by[id]), "block")),
                              sl_qz(&q3, bname));
            } else {
                by[id] = (uint32_t)i;
                st = tsched_topology_set_nvl_domain(c->topo, id, bname);
                if (st != TSCHED_OK)
                    st = sl_at_line(st, name.line, at);
            }
        }
    }
    free(by);
    return st;
}

static tsched_status yaml_import(tsched_topology **out, const char *text, size_t len,
                                 const tsched_slurm_options *opts)
{
    tsched_slurm_options merged;
    sl_ctx c;
    y_ctx y;
    memset(&y, 0, sizeof y);
    json_t *root = NULL;
    ts_yaml_info *info = NULL;
    tsched_status st = sl_begin(&c, &merged, opts);
    if (st == TSCHED_OK)
        st = ts_yaml_parse(&root, &info, text ? text : "", len);
    y.c = &c;
    y.info = info;
    c.yaml = 1;
    const y_entry *sel = NULL;
    if (st == TSCHED_OK)
        st = read_entries(&y, root);
    if (st == TSCHED_OK)
        st = select_entry(&sel, &c.entry, &y, merged.topology);
    if (st == TSCHED_OK && sel->type != T_TREE && sel->type != T_BLOCK) {
        sl_q q;
        st = ts_error(TSCHED_E_FORMAT, "line %zu: [%u]: topology %s is %s: it has no structure to import (choose "
                      "a tree or block topology)", sel->line, c.entry, sl_qz(&q, sel->name),
                      sel->type == T_FLAT ? "flat" : "neither tree nor block");
    }
    if (st == TSCHED_OK && merged.nvl_topology) {
        st = find_entry(&y.overlay, &y.overlay_index, &y, merged.nvl_topology, "nvl_topology");
        if (st == TSCHED_OK && y.overlay->type != T_BLOCK) {
            sl_q q;
            st = ts_error(TSCHED_E_FORMAT, "line %zu: [%u]: option nvl_topology: topology %s is not a block topology",
                          y.overlay->line, y.overlay_index, sl_qz(&q, y.overlay->name));
        }
    }
    if (st == TSCHED_OK)
        st = sel->type == T_TREE ? read_tree(&y, sel) : read_block(&y, sel);
    if (st == TSCHED_OK)
        st = sl_import(&c, y.overlay ? overlay : NULL, &y);
    if (st == TSCHED_OK) {
        *out = c.topo;
        c.topo = NULL;
    }
    sl_free(&c);
    free(y.e);
    json_decref(root);
    ts_yaml_info_free(info);
    return st;
}

tsched_status tsched_topology_import_slurm_yaml_string(tsched_topology **out, const char *text, size_t len,
                                                       const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_yaml_string: out is NULL");
    *out = NULL;
    if (!text && len)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_yaml_string: text is NULL");
    return yaml_import(out, text, len, opts);
}

tsched_status tsched_topology_import_slurm_yaml_file(tsched_topology **out, const char *path,
                                                     const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_yaml_file: out is NULL");
    *out = NULL;
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_yaml_file: path is NULL");
    char *text;
    size_t len;
    tsched_status st = ts_read_file(&text, &len, path);
    if (st != TSCHED_OK)
        return st;
    st = yaml_import(out, text, len, opts);
    free(text);
    return sl_file_error(st, strcmp(path, "-") == 0 ? "<stdin>" : path);
}
