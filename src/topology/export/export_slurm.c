/* Slurm exports (doc/export.md): topology.conf in tree or block form, and topology.yaml.
 * Both forms are built from one list of entries (a switch with its nodes or its children,
 * or a block with its nodes), so the conf and the YAML always say the same thing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/name_fit.h"
#include "../../common/strtab.h"
#include "../../common/text.h"
#include "../../common/yaml_emit.h"
#include "export_internal.h"
#include "hostlist_compress.h"
#include "../topology_internal.h"

#define NONE TSCHED_NONE

/* Largest LinkSpeed the tree import reads back. */
#define SL_MAX_SPEED 1e9
/* Longest switch or block name Slurm takes (24.11 and later refuse longer ones). */
#define SL_MAX_NAME 64

typedef struct sl_entry {
    const char *name;
    int nodes;         /* members are node names (else switch names) */
    size_t off, n;     /* members in sl_list.mem */
    double speed;      /* LinkSpeed, 0 = none */
} sl_entry;

typedef struct sl_list {
    sl_entry *e;
    size_t ne, e_cap;
    const char **mem;
    size_t nmem, mem_cap;
    char **own;        /* names made by sanitize, freed with the list */
    size_t nown, own_cap;
} sl_list;

static void list_free(sl_list *l)
{
    free(l->e);
    free((void *)l->mem);
    for (size_t i = 0; i < l->nown; i++)
        free(l->own[i]);
    free(l->own);
    memset(l, 0, sizeof *l);
}

static tsched_status add_entry(sl_list *l, const char *name, int nodes, double speed)
{
    if (TS_GROW(l->e, l->e_cap, l->ne + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    l->e[l->ne++] = (sl_entry){name, nodes, l->nmem, 0, speed};
    return TSCHED_OK;
}

static tsched_status add_member(sl_list *l, const char *name)
{
    if (TS_GROW(l->mem, l->mem_cap, l->nmem + 1) != TSCHED_OK)
        return TSCHED_E_NOMEM;
    l->mem[l->nmem++] = name;
    l->e[l->ne - 1].n++;
    return TSCHED_OK;
}

/* Bytes Slurm's parser cannot take in a name: hostlist syntax, blanks, quote, backslash, '='. */
#define SL_BAD_CHARS ",[] \t\r\n\v\f\"\\="

/* A name Slurm's parser reads back as it is. */
static tsched_status check_name(const char *name, const char *kind)
{
    if (*name && !strpbrk(name, SL_BAD_CHARS))
        return TSCHED_OK;
    char q[TS_TEXT_QUOTE_CAP(80)];
    return ts_error(TSCHED_E_FORMAT,
                    "%s %s cannot be written for Slurm: a name may not be empty or hold ',', '[', ']', a blank, "
                    "'\"', '\\' or '=' (sanitize turns them into '-')",
                    kind, ts_text_quote(q, sizeof q, name, strlen(name), 80));
}

/* A switch or block name as Slurm will take it: `name` itself when valid; else, with
 * `sanitize`, shortened to SL_MAX_NAME bytes by ts_name_shorten() (hash of the whole name)
 * and each byte Slurm cannot take turned into '-'; else TSCHED_E_FORMAT / TSCHED_E_RANGE
 * naming the object, the name and the limit. */
static tsched_status fit_name(const char **out, sl_list *l, const char *name, const char *kind, int sanitize)
{
    size_t n = strlen(name);
    *out = name;
    if (*name && n <= SL_MAX_NAME && !strpbrk(name, SL_BAD_CHARS))
        return TSCHED_OK;
    if (!sanitize && n > SL_MAX_NAME) {
        char q[TS_TEXT_QUOTE_CAP(80)];
        return ts_error(TSCHED_E_RANGE,
                        "%s %s cannot be written for Slurm: %zu bytes, over Slurm's limit of %d for %s names "
                        "(sanitize shortens it)",
                        kind, ts_text_quote(q, sizeof q, name, n, 80), n, SL_MAX_NAME, kind);
    }
    if (!sanitize || !*name)
        return check_name(name, kind);
    char *buf = ts_malloc(SL_MAX_NAME + 1, 1);
    if (!buf || TS_GROW(l->own, l->own_cap, l->nown + 1) != TSCHED_OK) {
        free(buf);
        return TSCHED_E_NOMEM;
    }
    l->own[l->nown++] = buf;
    ts_name_shorten(buf, SL_MAX_NAME + 1, name, n, SL_MAX_NAME);
    for (char *p = buf; (p = strpbrk(p, SL_BAD_CHARS)) != NULL;)
        *p++ = '-';
    *out = buf;
    return TSCHED_OK;
}

/* Fit every switch or block name of the list, where it is defined and where it is a child,
 * and check that the fitted names are still unique: two names that sanitize to one are
 * TSCHED_E_DUPLICATE naming both. */
static tsched_status fit_names(sl_list *l, const char *kind, int sanitize)
{
    tsched_status st = TSCHED_OK;
    ts_strtab seen;
    ts_strtab_init(&seen);
    const char **raw = ts_malloc(l->ne ? l->ne : 1, sizeof *raw);
    if (!raw)
        return TSCHED_E_NOMEM;
    for (size_t i = 0; i < l->ne && st == TSCHED_OK; i++) {
        sl_entry *e = &l->e[i];
        raw[i] = e->name;
        uint32_t id;
        int added = 0;
        if ((st = fit_name(&e->name, l, e->name, kind, sanitize)) != TSCHED_OK ||
            (st = ts_strtab_intern(&seen, e->name, &id, &added)) != TSCHED_OK)
            break;
        if (!added) {
            char q1[TS_TEXT_QUOTE_CAP(80)], q2[TS_TEXT_QUOTE_CAP(80)], q3[TS_TEXT_QUOTE_CAP(80)];
            st = ts_error(TSCHED_E_DUPLICATE, "%ss %s and %s are both written as %s for Slurm", kind,
                          ts_text_quote(q1, sizeof q1, raw[id], strlen(raw[id]), 80),
                          ts_text_quote(q2, sizeof q2, raw[i], strlen(raw[i]), 80),
                          ts_text_quote(q3, sizeof q3, e->name, strlen(e->name), 80));
            break;
        }
        if (!e->nodes)
            for (size_t j = e->off; j < e->off + e->n && st == TSCHED_OK; j++)
                st = fit_name(&l->mem[j], l, l->mem[j], kind, sanitize);
    }
    free((void *)raw);
    ts_strtab_free(&seen);
    return st;
}

/* The domain tree: tier-0 domains with their nodes, then tier by tier with their child
 * domains. LinkSpeed = X when the trunks from every child domain up into the domain add up
 * to X. */
static tsched_status tree_entries(sl_list *l, const ts_export *x)
{
    const ts_dtree *d = &x->dt;
    const tsched_topology *t = x->t;
    tsched_status st = ts_export_unique_names(x);
    if (st != TSCHED_OK)
        return st;
    uint32_t maxd = 1;
    for (uint32_t k = 0; k < d->ntiers; k++)
        if (d->tier[k].ndom > maxd)
            maxd = d->tier[k].ndom;
    size_t cap_n = (size_t)maxd + (d->nnodes > maxd ? d->nnodes : maxd) + 1;
    uint32_t *off = ts_malloc(cap_n, sizeof *off), *list = ts_malloc(cap_n, sizeof *list);
    double *cap = ts_malloc(maxd, sizeof *cap);
    if (!off || !list || !cap) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t k = 0; k < d->ntiers; k++) {
        const ts_dlevel *lv = &d->tier[k], *below = k > 0 ? &d->tier[k - 1] : NULL;
        /* members of each domain, grouped by a counting sort that keeps index order */
        uint32_t nm = below ? below->ndom : d->nnodes;
        memset(off, 0, ((size_t)lv->ndom + 1) * sizeof *off);
        for (uint32_t m = 0; m < nm; m++)
            off[(below ? ts_dlevel_parent(lv, below, m) : lv->node_dom[m]) + 1]++;
        for (uint32_t i = 0; i < lv->ndom; i++)
            off[i + 1] += off[i];
        for (uint32_t m = 0; m < nm; m++)
            list[off[below ? ts_dlevel_parent(lv, below, m) : lv->node_dom[m]]++] = m;
        for (uint32_t i = lv->ndom; i > 0; i--)
            off[i] = off[i - 1];
        off[0] = 0;
        if (below) {
            for (uint32_t c = 0; c < below->ndom; c++)
                cap[c] = 0;
            for (uint32_t r = 0, ntr = tsched_topology_num_trunks(t); r < ntr; r++) {
                uint32_t lo = tsched_topology_trunk_lower(t, r), up = tsched_topology_trunk_upper(t, r);
                if (tsched_topology_switch_tier(t, up) != (int)k || below->sw_dom[lo] == NONE)
                    continue;
                cap[below->sw_dom[lo]] += ts_export_trunk_gbps(t, r);
            }
        }
        for (uint32_t i = 0; i < lv->ndom; i++) {
            double speed = 0;
            if (below) {
                speed = cap[list[off[i]]];
                for (uint32_t j = off[i]; j < off[i + 1]; j++)
                    if (cap[list[j]] != speed)
                        speed = 0;
            }
            if ((st = add_entry(l, lv->name[i], !below, speed)) != TSCHED_OK)
                goto out;
            for (uint32_t j = off[i]; j < off[i + 1]; j++)
                if ((st = add_member(l, below ? below->name[list[j]] : tsched_topology_node_name(t, list[j]))) !=
                    TSCHED_OK)
                    goto out;
        }
    }
out:
    free(off);
    free(list);
    free(cap);
    return st;
}

/* Every switch and link: leaves with the nodes whose NIC 0 they hold, others with their
 * lower neighbours; LinkSpeed when every trunk down to a child has one capacity. */
static tsched_status physical_entries(sl_list *l, const ts_export *x)
{
    const tsched_topology *t = x->t;
    uint32_t ns = tsched_topology_num_switches(t), ntr = tsched_topology_num_trunks(t);
    uint32_t *off = ts_calloc((size_t)ns + 1, sizeof *off), *list = ts_malloc(ntr ? ntr : 1, sizeof *list);
    tsched_status st = TSCHED_OK;
    if (!off || !list) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t r = 0; r < ntr; r++)
        off[tsched_topology_trunk_upper(t, r) + 1]++;
    for (uint32_t s = 0; s < ns; s++)
        off[s + 1] += off[s];
    for (uint32_t r = 0; r < ntr; r++)
        list[off[tsched_topology_trunk_upper(t, r)]++] = r;
    for (uint32_t s = ns; s > 0; s--)
        off[s] = off[s - 1];
    off[0] = 0;
    for (int k = 0; k < (int)x->dt.ntiers; k++)
        for (uint32_t i = 0, m = tsched_topology_num_tier(t, k); i < m; i++) {
            uint32_t s = tsched_topology_tier_switch(t, k, i);
            const char *name = tsched_topology_switch_name(t, s);
            if (k == 0) {
                uint32_t cnt = 0;
                const uint32_t *nodes = tsched_topology_leaf_nodes(t, s, &cnt);
                if ((st = add_entry(l, name, 1, 0)) != TSCHED_OK)
                    goto out;
                for (uint32_t j = 0; j < cnt; j++)
                    if ((st = add_member(l, tsched_topology_node_name(t, nodes[j]))) != TSCHED_OK)
                        goto out;
                continue;
            }
            if (off[s + 1] == off[s]) {
                /* a bare SwitchName= line reads back as a leaf, or clashes with its parent's
                 * other children: no text keeps its tier */
                char q[TS_TEXT_QUOTE_CAP(80)];
                st = ts_error(TSCHED_E_FORMAT,
                              "switch %s cannot be written with --physical: a tier-%d switch without switches "
                              "below it would read back as a leaf (give it a lower switch, or export the domain tree)",
                              ts_text_quote(q, sizeof q, name, strlen(name), 80), k);
                goto out;
            }
            double speed = ts_export_trunk_gbps(t, list[off[s]]);
            for (uint32_t j = off[s]; j < off[s + 1]; j++)
                if (ts_export_trunk_gbps(t, list[j]) != speed)
                    speed = 0;
            if ((st = add_entry(l, name, 0, speed)) != TSCHED_OK)
                goto out;
            for (uint32_t j = off[s]; j < off[s + 1]; j++)
                if ((st = add_member(l, tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, list[j])))) !=
                    TSCHED_OK)
                    goto out;
        }
out:
    free(off);
    free(list);
    return st;
}

/* Blocks: one per NVLink domain, the nodes without one in a block named after their leaf,
 * in order of first node. `*smallest` receives the smallest block's node count. */
static tsched_status block_entries(sl_list *l, uint32_t *smallest, const ts_export *x)
{
    const ts_dtree *d = &x->dt;
    const tsched_topology *t = x->t;
    uint32_t nn = d->nnodes, nleafdom = d->ntiers > 0 ? d->tier[0].ndom : 0;
    uint32_t nnvl = d->has_nvl ? d->nvl.ndom : 0;
    /* key of a node: its NVLink level domain, or nnvl + its leaf domain */
    uint32_t nkeys = nnvl + nleafdom;
    uint32_t *block = ts_malloc(nkeys ? nkeys : 1, sizeof *block), *bsize = NULL, *order = NULL, *boff = NULL;
    tsched_status st = TSCHED_OK;
    if (!block) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < nkeys; i++)
        block[i] = NONE;
    uint32_t nb = 0;
    uint32_t *key = ts_malloc(nn ? nn : 1, sizeof *key);
    bsize = ts_calloc(nkeys ? nkeys : 1, sizeof *bsize);
    order = ts_malloc(nn ? nn : 1, sizeof *order);
    boff = ts_calloc((size_t)nkeys + 1, sizeof *boff);
    const char **bname = ts_malloc(nkeys ? nkeys : 1, sizeof *bname);
    if (!key || !bsize || !order || !boff || !bname) {
        free(key);
        free((void *)bname);
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t k = NONE;
        if (d->has_nvl && d->nvl.sw[d->nvl.node_dom[n]] != NONE)
            k = d->nvl.node_dom[n];
        else
            k = nnvl + d->tier[0].node_dom[n];
        if (block[k] == NONE) {
            block[k] = nb;
            bname[nb] = k < nnvl ? d->nvl.name[k] : d->tier[0].name[k - nnvl];
            nb++;
        }
        key[n] = block[k];
        bsize[block[k]]++;
    }
    for (uint32_t b = 0; b < nb; b++)
        boff[b + 1] = boff[b] + bsize[b];
    for (uint32_t n = 0; n < nn; n++)
        order[boff[key[n]]++] = n;
    for (uint32_t b = nb; b > 0; b--)
        boff[b] = boff[b - 1];
    boff[0] = 0;
    *smallest = 0;
    ts_strtab seen;
    ts_strtab_init(&seen);
    for (uint32_t b = 0; b < nb && st == TSCHED_OK; b++) {
        if (*smallest == 0 || bsize[b] < *smallest)
            *smallest = bsize[b];
        uint32_t id;
        int added = 0;
        if ((st = ts_strtab_intern(&seen, bname[b], &id, &added)) == TSCHED_OK && !added) {
            char q[TS_TEXT_QUOTE_CAP(80)];
            st = ts_error(TSCHED_E_DUPLICATE,
                          "block %s: an NVLink domain and a leaf (for the nodes without NVLink domain) have this name",
                          ts_text_quote(q, sizeof q, bname[b], strlen(bname[b]), 80));
        }
        if (st == TSCHED_OK)
            st = add_entry(l, bname[b], 1, 0);
        for (uint32_t j = boff[b]; j < boff[b + 1] && st == TSCHED_OK; j++)
            st = add_member(l, tsched_topology_node_name(t, order[j]));
    }
    ts_strtab_free(&seen);
    free(key);
    free((void *)bname);
out:
    free(block);
    free(bsize);
    free(order);
    free(boff);
    return st;
}

/* LinkSpeed: Slurm reads an unsigned integer (a decimal point is fatal to slurmctld), in
 * units it leaves to the site; only the ratios between switches mean anything. So: Gbit/s
 * rounded to the nearest integer (halves away from zero), at least 1; 0 (not written) for a
 * value that is not finite and positive or above what the import reads back. */
static int speed_text(char *buf, size_t cap, double v)
{
    if (!(v > 0) || v > SL_MAX_SPEED)
        return 0;
    double r = floor(v + 0.5);
    snprintf(buf, cap, "%.0f", r < 1 ? 1.0 : r);
    return 1;
}

/* BlockSizes to write: the sizes the block import recorded when they still fit the blocks
 * (every block holds at least the first size, as Slurm and the import require); else, as
 * when none were recorded, the smallest block's node count. Recorded sizes that no longer
 * fit are replaced with a warning (tsched_topology_export_warning()). */
typedef struct sl_sizes {
    uint32_t v[TSCHED_MAX_TIERS];
    uint32_t n;
} sl_sizes;

static void choose_sizes(sl_sizes *z, const tsched_topology *t, uint32_t smallest)
{
    uint32_t nrec = 0;
    const uint32_t *rec = ts_topology_block_sizes(t, &nrec);
    z->n = 0;
    if (nrec && smallest >= rec[0]) {
        memcpy(z->v, rec, nrec * sizeof *rec);
        z->n = nrec;
        return;
    }
    if (nrec)
        ts_export_warn("block_sizes: the recorded first size %u is larger than the smallest block (%u nodes); "
                       "BlockSizes=%u written instead", rec[0], smallest, smallest);
    if (smallest > 0)
        z->v[z->n++] = smallest;
}

static tsched_status members_text(ts_sbuf *b, const sl_list *l, const sl_entry *e)
{
    char what[160], q[TS_TEXT_QUOTE_CAP(80)];
    snprintf(what, sizeof what, "%s %s", e->nodes ? "nodes of" : "children of",
             ts_text_quote(q, sizeof q, e->name, strlen(e->name), 80));
    for (size_t i = 0; i < e->n; i++) {
        tsched_status st = check_name(l->mem[e->off + i], e->nodes ? "node" : "switch");
        if (st != TSCHED_OK)
            return st;
    }
    return ts_hostlist_compress(b, l->mem + e->off, e->n, what);
}

static tsched_status write_conf(ts_sbuf *b, const sl_list *l, int block, const sl_sizes *z)
{
    for (size_t i = 0; i < l->ne; i++) {
        const sl_entry *e = &l->e[i];
        ts_sbuf_printf(b, "%s=%s", block ? "BlockName" : "SwitchName", e->name);
        if (e->n > 0) {
            ts_sbuf_puts(b, e->nodes ? " Nodes=" : " Switches=");
            tsched_status st = members_text(b, l, e);
            if (st != TSCHED_OK)
                return st;
        }
        char sp[64];
        if (e->speed > 0 && speed_text(sp, sizeof sp, e->speed))
            ts_sbuf_printf(b, " LinkSpeed=%s", sp);
        ts_sbuf_putc(b, '\n');
    }
    for (uint32_t i = 0; block && i < z->n; i++)
        ts_sbuf_printf(b, "%s%u%s", i ? "," : "BlockSizes=", z->v[i], i + 1 == z->n ? "\n" : "");
    return TSCHED_OK;
}

/* One topology.yaml entry's list of switches or blocks. */
static tsched_status yaml_items(json_t *arr, const sl_list *l, int block)
{
    for (size_t i = 0; i < l->ne; i++) {
        const sl_entry *e = &l->e[i];
        json_t *o = json_object();
        tsched_status st;
        if ((st = ts_json_push(arr, o)) || (st = ts_json_set(o, block ? "block" : "switch", json_string(e->name))))
            return st;
        if (e->n == 0)
            continue;
        ts_sbuf hb;
        ts_sbuf_init(&hb);
        char *hl;
        st = members_text(&hb, l, e);
        if (st != TSCHED_OK) {
            ts_sbuf_free(&hb);
            return st;
        }
        if ((st = ts_sbuf_take(&hl, &hb)) != TSCHED_OK)
            return st;
        st = ts_json_set(o, e->nodes ? "nodes" : "children", json_string(hl));
        free(hl);
        if (st != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status write_yaml(ts_sbuf *b, const ts_export *x, const sl_list *tree, const sl_list *blocks,
                                const sl_sizes *z)
{
    json_t *root = json_array(), *t = json_object(), *tr = json_object(), *sws = json_array();
    tsched_status st;
    if ((st = ts_json_push(root, t)) || (st = ts_json_set(t, "topology", json_string(x->name))) ||
        (st = ts_json_set(t, "cluster_default", json_true())) || (st = ts_json_set(t, "tree", tr)) ||
        (st = ts_json_set(tr, "switches", sws)) || (st = yaml_items(sws, tree, 0)))
        goto out;
    if (blocks) {
        json_t *e = json_object(), *bl = json_object(), *sizes = json_array(), *items = json_array();
        size_t n = strlen(x->name);
        char *name = ts_malloc(n + 5, 1);
        if (!name) {
            json_decref(e);
            json_decref(bl);
            json_decref(sizes);
            json_decref(items);
            st = TSCHED_E_NOMEM;
            goto out;
        }
        memcpy(name, x->name, n);
        memcpy(name + n, "-nvl", 5);
        st = ts_json_push(root, e);
        if (!st)
            st = ts_json_set(e, "topology", json_string(name));
        free(name);
        if (st || (st = ts_json_set(e, "cluster_default", json_false())) || (st = ts_json_set(e, "block", bl)) ||
            (st = ts_json_set(bl, "block_sizes", sizes)) ||
            (st = ts_json_set(bl, "blocks", items)) || (st = yaml_items(items, blocks, 1)))
            goto out;
        for (uint32_t i = 0; i < z->n; i++)
            if ((st = ts_json_push(sizes, json_integer(z->v[i]))))
                goto out;
    }
    ts_yaml_emit(b, root, 1);
out:
    json_decref(root);
    return st;
}

tsched_status ts_export_slurm(char **out, ts_export *x)
{
    sl_list tree = {0}, blocks = {0};
    ts_sbuf b;
    ts_sbuf_init(&b);
    uint32_t smallest = 0;
    tsched_status st;
    int yaml = x->o.to == TSCHED_EXPORT_SLURM_YAML;
    if (x->o.block)
        st = block_entries(&blocks, &smallest, x);
    else if (x->o.physical)
        st = physical_entries(&tree, x);
    else
        st = tree_entries(&tree, x);
    if (st == TSCHED_OK && yaml && x->dt.has_nvl)
        st = block_entries(&blocks, &smallest, x);
    if (st == TSCHED_OK && !x->o.block)
        st = fit_names(&tree, "switch", x->o.sanitize);
    if (st == TSCHED_OK && (x->o.block || (yaml && x->dt.has_nvl)))
        st = fit_names(&blocks, "block", x->o.sanitize);
    if (st == TSCHED_OK && yaml && !x->name[0])
        st = ts_error(TSCHED_E_FORMAT, "topology.yaml: the topology name is empty");
    sl_sizes z = {{0}, 0};
    if (st == TSCHED_OK && (x->o.block || (yaml && x->dt.has_nvl)))
        choose_sizes(&z, x->t, smallest);
    if (st == TSCHED_OK)
        st = yaml ? write_yaml(&b, x, &tree, x->dt.has_nvl ? &blocks : NULL, &z)
                  : write_conf(&b, x->o.block ? &blocks : &tree, x->o.block, &z);
    if (st == TSCHED_OK)
        st = ts_sbuf_take(out, &b);
    ts_sbuf_free(&b);
    list_free(&tree);
    list_free(&blocks);
    return st;
}
