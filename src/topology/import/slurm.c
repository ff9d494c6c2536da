/* Import of Slurm's topology.conf, tree and block form (semantics in doc/slurm-import.md),
 * and the assembly shared with topology.yaml (slurm_yaml.c).
 *
 * The text is read in one pass into switch and block records that point back into it; then
 * the Switches= lists are resolved, the block form's group switches are generated, tiers are
 * found by an iterative depth-first search (a deep or cyclic file cannot exhaust the stack),
 * pods are the connected components of the leaf-spine graph, and the fabric is assembled
 * through the public builder calls only, so it is validated exactly like any other fabric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/limits.h"
#include "../../common/structsize.h"
#include "slurm_internal.h"
#include "../topology_internal.h"

const char *sl_qa(sl_q *b, const char *p, size_t n) { return ts_text_quote(b->s, sizeof b->s, p, n, SL_QUOTE); }
const char *sl_qz(sl_q *b, const char *p) { return sl_qa(b, p, strlen(p)); }
#define qa sl_qa
#define qz sl_qz

#define NONE32 UINT32_MAX

void tsched_slurm_options_init(tsched_slurm_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->gpus_per_node = 8;
    opts->nics_per_node = 0;
    opts->nic_gbps = 400;
    opts->block_nvl = 1;
}

void sl_free(sl_ctx *c)
{
    ts_strtab_free(&c->names);
    ts_strtab_free(&c->nodes);
    ts_hostlist_free(&c->hl);
    free(c->sw);
    free(c->child);
    free(c->tok);
    free(c->seg);
    free(c->cooked);
    free(c->tmp);
    free(c->owner);
    sl_nodes_free(c->live);
    c->live = NULL;
    tsched_topology_free(c->topo);
    c->topo = NULL;
}

const char *sl_field(const sl_ctx *c, const sl_switch *w, int f, char *buf, size_t cap)
{
    if (w && w->kind == SL_GROUP)
        f = SL_F_SIZES; /* a generated switch: what made it */
    if (!c->yaml) {
        static const char *const conf[] = {"SwitchName=", "Nodes=", "Switches=", "BlockSizes="};
        if (f == SL_F_NAME && w && w->kind == SL_BLOCK)
            return "BlockName=";
        return conf[f];
    }
    if (f == SL_F_SIZES) {
        snprintf(buf, cap, "[%u].block.block_sizes", c->entry);
        return buf;
    }
    static const char *const tree[] = {"switch", "nodes", "children"};
    int block = w && w->kind == SL_BLOCK;
    snprintf(buf, cap, "[%u].%s[%u].%s", c->entry, block ? "block.blocks" : "tree.switches", w ? w->item : 0,
             block && f == SL_F_NAME ? "block" : tree[f]);
    return buf;
}

/* Prefix the current message with "line N: what" and keep the status. */
tsched_status sl_at_line(tsched_status st, size_t line, const char *what)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "line %zu%s%s", line, what ? ": " : "", what ? what : "");
    return ts_error_prefix(st, prefix);
}

#define at_line sl_at_line

/* ---- the switch tree ---------------------------------------------------------------- */

static tsched_status resolve_children(sl_ctx *c)
{
    tsched_status st = TSCHED_OK;
    sl_q q;
    uint32_t *mark = ts_malloc(c->nsw, sizeof *mark); /* the last parent that listed a switch */
    if (!mark)
        return TSCHED_E_NOMEM;
    for (size_t s = 0; s < c->nsw; s++)
        mark[s] = NONE32;
    for (size_t s = 0; s < c->nsw && st == TSCHED_OK; s++) {
        sl_switch *w = &c->sw[s];
        w->child_off = c->nchild;
        if (!w->children.p)
            continue;
        char fb[96];
        const char *field = sl_field(c, w, SL_F_CHILDREN, fb, sizeof fb);
        ts_hostlist_clear(&c->hl);
        if ((st = ts_hostlist_expand(&c->hl, w->children.p, w->children.len, ts_limits()->switches)) != TSCHED_OK) {
            st = at_line(st, w->children.line, field);
            break;
        }
        for (size_t i = 0; i < ts_hostlist_count(&c->hl); i++) {
            const char *name = ts_hostlist_name(&c->hl, i);
            uint32_t id = ts_strtab_find(&c->names, name);
            if (id == NONE32) {
                st = ts_error(TSCHED_E_NOT_FOUND, "line %zu: %s: no switch named %s", w->children.line, field,
                              qz(&q, name));
                break;
            }
            if (c->sw[id].kind == SL_BLOCK) {
                st = ts_error(TSCHED_E_NOT_FOUND, "line %zu: %s: %s is a block, not a switch", w->children.line,
                              field, qz(&q, name));
                break;
            }
            if (mark[id] == (uint32_t)s) {
                st = ts_error(TSCHED_E_DUPLICATE, "line %zu: %s: switch %s is listed twice", w->children.line,
                              field, qz(&q, name));
                break;
            }
            mark[id] = (uint32_t)s;
            if (c->nchild >= TS_MAX_TRUNKS) {
                st = ts_error(TSCHED_E_TOO_LARGE, "line %zu: %s: more than %u parent-child pairs in all",
                              w->children.line, field, TS_MAX_TRUNKS);
                break;
            }
            if ((st = TS_GROW(c->child, c->child_cap, c->nchild + 1)) != TSCHED_OK)
                break;
            c->child[c->nchild++] = id;
            w->nchild++;
            c->sw[id].nparents++;
        }
    }
    free(mark);
    return st;
}

typedef struct sl_frame {
    uint32_t sw, next; /* switch, and its next child to visit */
} sl_frame;

/* Append s to buf (capacity cap), marking a cut with "...". */
static void append(char *buf, size_t cap, size_t *n, const char *s)
{
    if (*n + 1 >= cap)
        return;
    int w = snprintf(buf + *n, cap - *n, "%s", s);
    if (w < 0 || (size_t)w >= cap - *n) {
        *n = cap - 1;
        memcpy(buf + cap - 4, "...", 4);
    } else {
        *n += (size_t)w;
    }
}

/* The switch on top of the stack lists `child`, which is further down the stack. */
static tsched_status cycle_error(const sl_ctx *c, const sl_frame *stack, size_t depth, uint32_t child)
{
    size_t from = depth - 1;
    while (stack[from].sw != child)
        from--;
    char buf[480];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = from; i < depth; i++) {
        append(buf, sizeof buf, &n, ts_strtab_str(&c->names, stack[i].sw));
        append(buf, sizeof buf, &n, " -> ");
    }
    append(buf, sizeof buf, &n, ts_strtab_str(&c->names, child));
    const sl_switch *top = &c->sw[stack[depth - 1].sw];
    char fb[96];
    return ts_error(TSCHED_E_CYCLE, "line %zu: %s: cycle in the switch tree: %s", top->children.line,
                    sl_field(c, top, SL_F_CHILDREN, fb, sizeof fb), buf);
}

/* All children are done: the switch sits one tier above them. */
static tsched_status finish_tier(sl_ctx *c, uint32_t s)
{
    sl_q q1, q2, q3;
    sl_switch *w = &c->sw[s];
    if (w->nchild == 0) {
        w->tier = TSCHED_TIER_LEAF;
        return TSCHED_OK;
    }
    const uint32_t *ch = c->child + w->child_off;
    int t0 = c->sw[ch[0]].tier;
    for (uint32_t k = 1; k < w->nchild; k++) {
        if (c->sw[ch[k]].tier == t0)
            continue;
        const char *a = ts_strtab_str(&c->names, ch[0]), *b = ts_strtab_str(&c->names, ch[k]);
        char fb[96];
        return ts_error(TSCHED_E_RANGE, "line %zu: %s: the children of switch %s are on different levels: "
                        "%s is tier %d but %s is tier %d", w->children.line,
                        sl_field(c, w, SL_F_CHILDREN, fb, sizeof fb), qz(&q1, ts_strtab_str(&c->names, s)),
                        qz(&q2, a), t0, qz(&q3, b), c->sw[ch[k]].tier);
    }
    if (t0 + 1 >= TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "line %zu: switch %s would be tier %d, the top of a tree of %d or more "
                        "levels; the model has at most %d tiers (0 to %d)", w->line,
                        qz(&q1, ts_strtab_str(&c->names, s)), t0 + 1, t0 + 2, TSCHED_MAX_TIERS,
                        TSCHED_MAX_TIERS - 1);
    w->tier = t0 + 1;
    return TSCHED_OK;
}

/* Iterative depth-first search over children: a switch is finished after all of them. */
static tsched_status compute_tiers(sl_ctx *c)
{
    tsched_status st = TSCHED_OK;
    uint8_t *state = ts_calloc(c->nsw, 1); /* 0 new, 1 on the stack, 2 finished */
    sl_frame *stack = ts_malloc(c->nsw, sizeof *stack);
    if (!state || !stack) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t root = 0; root < c->nsw; root++) {
        if (state[root])
            continue;
        size_t depth = 0;
        stack[depth++] = (sl_frame){root, 0};
        state[root] = 1;
        while (depth > 0) {
            sl_frame *f = &stack[depth - 1];
            const sl_switch *w = &c->sw[f->sw];
            if (f->next < w->nchild) {
                uint32_t ch = c->child[w->child_off + f->next++];
                if (state[ch] == 1) {
                    st = cycle_error(c, stack, depth, ch);
                    goto out;
                }
                if (state[ch] == 0) {
                    state[ch] = 1;
                    stack[depth++] = (sl_frame){ch, 0};
                }
                continue;
            }
            if ((st = finish_tier(c, f->sw)) != TSCHED_OK)
                goto out;
            state[f->sw] = 2;
            c->tier_count[c->sw[f->sw].tier]++;
            depth--;
        }
    }
out:
    free(state);
    free(stack);
    return st;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Pods are the connected components of the leaf-spine graph, numbered by first leaf. */
static tsched_status assign_pods(sl_ctx *c)
{
    uint32_t *parent = ts_malloc(c->nsw, sizeof *parent), *pod_of = ts_malloc(c->nsw, sizeof *pod_of);
    if (!parent || !pod_of) {
        free(parent);
        free(pod_of);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t s = 0; s < c->nsw; s++) {
        parent[s] = s;
        pod_of[s] = NONE32;
    }
    for (uint32_t s = 0; s < c->nsw; s++) {
        if (c->sw[s].tier != TSCHED_TIER_SPINE)
            continue;
        for (uint32_t k = 0; k < c->sw[s].nchild; k++) {
            uint32_t a = uf_find(parent, s), b = uf_find(parent, c->child[c->sw[s].child_off + k]);
            if (a != b)
                parent[a > b ? a : b] = a < b ? a : b;
        }
    }
    uint32_t npods = 0;
    for (uint32_t s = 0; s < c->nsw; s++)
        if (c->sw[s].tier == TSCHED_TIER_LEAF && pod_of[uf_find(parent, s)] == NONE32)
            pod_of[uf_find(parent, s)] = npods++;
    for (uint32_t s = 0; s < c->nsw; s++)
        if (c->sw[s].tier <= TSCHED_TIER_SPINE)
            c->sw[s].pod = pod_of[uf_find(parent, s)];
    free(parent);
    free(pod_of);
    return TSCHED_OK;
}

/* ---- assembly through the public builder -------------------------------------------- */

/* Leaves, then spines, then cores, each in file order. */
static tsched_status add_switches(sl_ctx *c)
{
    for (int tier = 0; tier < TSCHED_MAX_TIERS; tier++) {
        for (uint32_t s = 0; s < c->nsw; s++) {
            const sl_switch *w = &c->sw[s];
            if (w->tier != tier)
                continue;
            char pod[32];
            if (w->pod != NONE32)
                snprintf(pod, sizeof pod, "pod%u", w->pod);
            tsched_status st = tsched_topology_add_switch(NULL, c->topo, ts_strtab_str(&c->names, s), tier,
                                                          w->pod != NONE32 ? pod : NULL);
            if (st != TSCHED_OK)
                return at_line(st, w->line, NULL);
        }
    }
    return TSCHED_OK;
}

static tsched_status add_node(sl_ctx *c, uint32_t leaf, const char *name, double speed, const char *field)
{
    tsched_status st;
    sl_q q1, q2, q3;
    const sl_switch *w = &c->sw[leaf];
    const char *leaf_name = ts_strtab_str(&c->names, leaf);
    const char *what = w->kind == SL_BLOCK ? "block" : "switch";
    if ((st = sl_check_name(w->nodes.line, field, name, strlen(name))) != TSCHED_OK)
        return st;
    uint32_t sw = ts_strtab_find(&c->names, name);
    if (sw != NONE32)
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s: node %s has the name of the %s defined on line %zu",
                        w->nodes.line, field, qz(&q1, name), c->sw[sw].kind == SL_BLOCK ? "block" : "switch",
                        c->sw[sw].line);
    uint32_t id;
    int added;
    if ((st = ts_strtab_intern(&c->nodes, name, &id, &added)) != TSCHED_OK)
        return st;
    if (!added && c->owner[id] == leaf)
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s: node %s is listed twice under %s %s", w->nodes.line,
                        field, qz(&q1, name), what, qz(&q2, leaf_name));
    if (!added) {
        const sl_switch *first = &c->sw[c->owner[id]];
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s: node %s is listed under %s %s (line %zu) and under %s %s",
                        w->nodes.line, field, qz(&q1, name), first->kind == SL_BLOCK ? "block" : "switch",
                        qz(&q2, ts_strtab_str(&c->names, c->owner[id])), first->nodes.line, what, qz(&q3, leaf_name));
    }
    if ((st = TS_GROW(c->owner, c->owner_cap, (size_t)id + 1)) != TSCHED_OK)
        return st;
    c->owner[id] = leaf;
    uint32_t index;
    st = tsched_topology_add_node(&index, c->topo, name, leaf_name, sl_nodes_gpus(c->live, name, c->o->gpus_per_node),
                                  c->nics, c->o->gpu_type, speed);
    if (st == TSCHED_OK && w->kind == SL_BLOCK && c->o->block_nvl)
        st = tsched_topology_set_nvl_domain(c->topo, index, leaf_name);
    return st == TSCHED_OK ? st : at_line(st, w->nodes.line, field);
}

/* Nodes leaf by leaf, in hostlist order; each leaf's downward capacity is what its NICs carry. */
static tsched_status add_nodes(sl_ctx *c)
{
    tsched_status st;
    for (uint32_t s = 0; s < c->nsw; s++) {
        sl_switch *w = &c->sw[s];
        if (w->tier != TSCHED_TIER_LEAF || !w->nodes.p)
            continue;
        char fb[96];
        const char *field = sl_field(c, w, SL_F_NODES, fb, sizeof fb);
        double speed = w->speed > 0 ? w->speed : c->o->nic_gbps;
        size_t before = ts_strtab_count(&c->nodes);
        ts_hostlist_clear(&c->hl);
        size_t max_nodes = ts_limits()->nodes;
        if ((st = ts_hostlist_expand(&c->hl, w->nodes.p, w->nodes.len, max_nodes > before ? max_nodes - before : 0)) !=
            TSCHED_OK) {
            if (st != TSCHED_E_TOO_LARGE)
                return at_line(st, w->nodes.line, field);
            char what[200];
            snprintf(what, sizeof what, "%s (%zu nodes before this line; the limit nodes = %zu, see tsched_limits)",
                     field, before, max_nodes);
            return at_line(st, w->nodes.line, what);
        }
        for (size_t i = 0; i < ts_hostlist_count(&c->hl); i++)
            if ((st = add_node(c, s, ts_hostlist_name(&c->hl, i), speed, field)) != TSCHED_OK)
                return st;
        w->nnodes = (uint32_t)ts_hostlist_count(&c->hl);
        w->down = (double)w->nnodes * c->nics * speed;
    }
    return TSCHED_OK;
}

/* Capacity of the trunk from child `ch` up to parent `p`, Gbit/s. */
static double trunk_capacity(const sl_ctx *c, const sl_switch *p, const sl_switch *ch)
{
    if (p->speed > 0)
        return p->speed;
    if (ch->down > 0)
        return ch->down / ch->nparents; /* non-blocking: the uplinks carry all that is below */
    return c->o->nic_gbps;              /* nothing below: one nominal link keeps the wiring */
}

/* Links needed so that none exceeds the model's per-link limit; only a fabric far beyond
 * any real one needs more than one. */
uint32_t sl_links_for(double cap)
{
    if (cap <= TS_MAX_GBPS)
        return 1;
    double need = ceil(cap / TS_MAX_GBPS);
    uint32_t count = need < TS_MAX_LINK_COUNT ? (uint32_t)need : TS_MAX_LINK_COUNT;
    if (cap / count > TS_MAX_GBPS && count < TS_MAX_LINK_COUNT)
        count++; /* ceil() of a rounded quotient may fall one short */
    return count;
}

/* One trunk per parent-child pair; children's capacities are known before their parents'. */
static tsched_status add_links(sl_ctx *c)
{
    for (int tier = TSCHED_TIER_SPINE; tier < TSCHED_MAX_TIERS; tier++) {
        for (uint32_t s = 0; s < c->nsw; s++) {
            sl_switch *p = &c->sw[s];
            if (p->tier != tier)
                continue;
            for (uint32_t k = 0; k < p->nchild; k++) {
                uint32_t child = c->child[p->child_off + k];
                double cap = trunk_capacity(c, p, &c->sw[child]);
                uint32_t count = sl_links_for(cap);
                tsched_status st = tsched_topology_add_link(c->topo, ts_strtab_str(&c->names, child),
                                                            ts_strtab_str(&c->names, s), cap / count, count);
                char fb[96];
                if (st != TSCHED_OK)
                    return at_line(st, p->kind == SL_GROUP ? p->line : p->children.line,
                                   sl_field(c, p, SL_F_CHILDREN, fb, sizeof fb));
                p->down += cap;
            }
        }
    }
    return TSCHED_OK;
}

/* ---- entry points -------------------------------------------------------------------- */

static tsched_status check_options(const tsched_slurm_options *o, uint32_t *nics)
{
    if (o->gpus_per_node < 1 || o->gpus_per_node > TS_MAX_GPUS_PER_NODE)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.gpus_per_node: %u is out of range [1, %u]",
                        o->gpus_per_node, TS_MAX_GPUS_PER_NODE);
    if (!isfinite(o->nic_gbps) || o->nic_gbps <= 0 || o->nic_gbps > TS_MAX_GBPS)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.nic_gbps: %g is not a finite number in (0, %g]",
                        o->nic_gbps, TS_MAX_GBPS);
    *nics = o->nics_per_node ? o->nics_per_node : o->gpus_per_node;
    if (*nics > TS_MAX_NICS_PER_NODE)
        return ts_error(TSCHED_E_INVALID, "tsched_slurm_options.nics_per_node: %u NICs per node%s is more than %u",
                        *nics, o->nics_per_node ? "" : " (one per GPU)", TS_MAX_NICS_PER_NODE);
    return TSCHED_OK;
}

/* ---- the block form ------------------------------------------------------------------ */

/* A switch the block form generates, over `n` children (switch ids). */
static tsched_status add_group(sl_ctx *c, const char *name, const uint32_t *children, size_t n, size_t line)
{
    sl_q q;
    uint32_t id;
    int added;
    tsched_status st = ts_strtab_intern(&c->names, name, &id, &added);
    if (st != TSCHED_OK)
        return st;
    if (!added) {
        char fb[96];
        return ts_error(TSCHED_E_DUPLICATE, "line %zu: %s %s is defined on line %zu, but the import names a switch "
                        "of the block groups so; rename the block", c->sw[id].line,
                        sl_field(c, &c->sw[id], SL_F_NAME, fb, sizeof fb), qz(&q, name), c->sw[id].line);
    }
    if ((st = TS_GROW(c->sw, c->sw_cap, c->nsw + 1)) != TSCHED_OK ||
        (st = TS_GROW(c->child, c->child_cap, c->nchild + n)) != TSCHED_OK)
        return st;
    sl_switch *w = &c->sw[c->nsw++];
    memset(w, 0, sizeof *w);
    w->line = line;
    w->kind = SL_GROUP;
    w->pod = NONE32;
    w->child_off = c->nchild;
    w->nchild = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        c->child[c->nchild++] = children[i];
        c->sw[children[i]].nparents++;
    }
    return TSCHED_OK;
}

/* Level i >= 1 of BlockSizes s0, s1, ... puts s_i / s0 consecutive blocks (file order) under
 * one switch blocks<i>-<j> whose children are the level-(i-1) switches of those blocks; a
 * top level of more than one switch gets blocks-root over it. */
static tsched_status generate_groups(sl_ctx *c)
{
    tsched_status st = TSCHED_OK;
    size_t n = 0, line = c->have_sizes ? c->sizes_line : 0;
    uint32_t *prev = ts_malloc(c->nblocks ? c->nblocks : 1, sizeof *prev);
    uint32_t *next = ts_malloc(c->nblocks ? c->nblocks : 1, sizeof *next);
    if (!prev || !next) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < c->nsw; s++) {
        if (c->sw[s].kind != SL_BLOCK)
            continue;
        prev[n++] = s;
        if (!c->have_sizes)
            line = c->sw[s].line;
    }
    uint64_t prev_blocks = 1; /* blocks under one switch of the level below */
    for (size_t i = 1; i < c->nsizes && st == TSCHED_OK; i++) {
        uint64_t blocks = c->sizes[i] / c->sizes[0], per = blocks / prev_blocks;
        size_t m = 0;
        for (size_t j = 0; j < n && st == TSCHED_OK; j += per) {
            char name[64];
            snprintf(name, sizeof name, "blocks%zu-%zu", i, m);
            size_t k = n - j < per ? n - j : (size_t)per;
            next[m] = (uint32_t)c->nsw;
            st = add_group(c, name, prev + j, k, line);
            m++;
        }
        memcpy(prev, next, m * sizeof *prev);
        n = m;
        prev_blocks = blocks;
    }
    if (st == TSCHED_OK && n > 1)
        st = add_group(c, "blocks-root", prev, n, line);
out:
    free(prev);
    free(next);
    return st;
}

/* Every block holds at least the first BlockSizes entry's nodes. */
static tsched_status check_block_sizes(const sl_ctx *c)
{
    if (!c->have_sizes)
        return TSCHED_OK;
    for (uint32_t s = 0; s < c->nsw; s++) {
        const sl_switch *w = &c->sw[s];
        if (w->kind != SL_BLOCK || w->nnodes >= c->sizes[0])
            continue;
        sl_q q;
        char fb[96], fb2[96];
        return ts_error(TSCHED_E_RANGE, "line %zu: %s %s has %u nodes, fewer than the first block size %llu (%s on "
                        "line %zu)", w->line, sl_field(c, w, SL_F_NAME, fb, sizeof fb),
                        qz(&q, ts_strtab_str(&c->names, s)), w->nnodes, (unsigned long long)c->sizes[0],
                        sl_field(c, NULL, SL_F_SIZES, fb2, sizeof fb2), c->sizes_line);
    }
    return TSCHED_OK;
}

/* ---- entry points -------------------------------------------------------------------- */

tsched_status sl_import(sl_ctx *c, sl_hook before_build, void *arg)
{
    tsched_status st;
    if (c->scontrol) /* scontrol's LinkSpeed is a placeholder: the trunks are non-blocking */
        for (size_t s = 0; s < c->nsw; s++)
            c->sw[s].speed = 0;
    if ((st = resolve_children(c)) != TSCHED_OK || (c->nblocks && (st = generate_groups(c)) != TSCHED_OK) ||
        (st = compute_tiers(c)) != TSCHED_OK)
        return st;
    if (c->tier_count[TSCHED_TIER_CORE] > 0 && (st = assign_pods(c)) != TSCHED_OK)
        return st;
    if ((st = sl_nodes_read(&c->live, c->o->nodes_json)) != TSCHED_OK) /* GPUs per node are needed below */
        return st;
    const char *name = c->o->name && *c->o->name ? c->o->name : "slurm";
    if ((st = tsched_topology_new(&c->topo, name)) != TSCHED_OK || (st = add_switches(c)) != TSCHED_OK ||
        (st = add_nodes(c)) != TSCHED_OK || (st = check_block_sizes(c)) != TSCHED_OK ||
        (st = add_links(c)) != TSCHED_OK)
        return st;
    /* recorded exactly as read, so that the --block exports write them back */
    if (c->have_sizes && (st = ts_topology_set_block_sizes(c->topo, c->sizes, c->nsizes, "block_sizes")) != TSCHED_OK)
        return st;
    if (before_build && (st = before_build(c, arg)) != TSCHED_OK)
        return st;
    if ((st = tsched_topology_build(c->topo)) != TSCHED_OK)
        return st;
    return sl_nodes_apply(c->live, c->topo); /* state changes need a built fabric */
}

tsched_status sl_begin(sl_ctx *c, tsched_slurm_options *merged, const tsched_slurm_options *opts)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_slurm_options, size),          TS_SPAN(tsched_slurm_options, name),
        TS_SPAN(tsched_slurm_options, gpus_per_node), TS_SPAN(tsched_slurm_options, nics_per_node),
        TS_SPAN(tsched_slurm_options, nic_gbps),      TS_SPAN(tsched_slurm_options, gpu_type),
        TS_SPAN(tsched_slurm_options, block_nvl),     TS_SPAN(tsched_slurm_options, topology),
        TS_SPAN(tsched_slurm_options, nvl_topology),
        TS_SPAN(tsched_slurm_options, nodes_json),
    };
    memset(c, 0, sizeof *c);
    ts_strtab_init(&c->names);
    ts_strtab_init(&c->nodes);
    ts_hostlist_init(&c->hl);
    tsched_slurm_options_init(merged);
    tsched_status st;
    if (opts && (st = ts_struct_in(merged, opts, spans, TS_NSPANS(spans), sizeof *merged, "tsched_slurm_options")))
        return st;
    c->o = merged;
    return check_options(merged, &c->nics);
}

static tsched_status import_string(tsched_topology **out, const char *text, size_t len,
                                   const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_string: out is NULL");
    *out = NULL;
    if (!text && len)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_string: text is NULL");
    if (len > ts_limits()->input_bytes) /* as every reader of a file or string */
        return ts_limit_error("document", (unsigned long long)len, "input_bytes", ts_limits()->input_bytes);
    tsched_slurm_options merged;
    sl_ctx c;
    tsched_status st = sl_begin(&c, &merged, opts);
    if (st == TSCHED_OK && (st = sl_parse_text(&c, text ? text : "", len)) == TSCHED_OK)
        st = sl_import(&c, NULL, NULL);
    if (st == TSCHED_OK) {
        *out = c.topo;
        c.topo = NULL;
    }
    sl_free(&c);
    return st;
}
tsched_status tsched_topology_import_slurm_string(tsched_topology **out, const char *text, size_t len,
                                                  const tsched_slurm_options *opts)
{
    return import_string(out, text, len, opts);
}

tsched_status tsched_topology_import_slurm_file(tsched_topology **out, const char *path,
                                                const tsched_slurm_options *opts)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_file: out is NULL");
    *out = NULL;
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_import_slurm_file: path is NULL");
    char *text;
    size_t len;
    tsched_status st = ts_read_file(&text, &len, path); /* its message already names the path */
    if (st != TSCHED_OK)
        return st;
    st = import_string(out, text, len, opts);
    free(text);
    return sl_file_error(st, path);
}
