/* Slurm exports (doc/export.md): topology.conf in tree or block form, and topology.yaml.
 * Both forms are built from one list of entries (a switch with its nodes or its children,
 * or a block with its nodes), so the conf and the YAML always say the same thing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/numfmt.h"
#include "../../common/strtab.h"
#include "../../common/text.h"
#include "../../common/yaml_emit.h"
#include "export_internal.h"
#include "hostlist_compress.h"

#define NONE TSCHED_NONE

/* Largest LinkSpeed the tree import reads back. */
#define SL_MAX_SPEED 1e9

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
} sl_list;

static void list_free(sl_list *l)
{
    free(l->e);
    free((void *)l->mem);
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

/* A name Slurm's parser reads back as it is: no hostlist syntax, blank, quote, backslash
 * or '='. */
static tsched_status check_name(const char *name, const char *kind)
{
    if (*name && !strpbrk(name, ",[] \t\r\n\v\f\"\\="))
        return TSCHED_OK;
    char q[TS_TEXT_QUOTE_CAP(80)];
    return ts_error(TSCHED_E_FORMAT,
                    "%s %s cannot be written for Slurm: a name may not be empty or hold ',', '[', ']', a blank, "
                    "'\"', '\\' or '='",
                    kind, ts_text_quote(q, sizeof q, name, strlen(name), 80));
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
            if ((st = check_name(lv->name[i], "switch")) != TSCHED_OK)
                goto out;
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
            if ((st = check_name(name, "switch")) != TSCHED_OK)
                goto out;
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
            st = check_name(bname[b], "block");
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

/* LinkSpeed: the shortest decimal that reads back to `v` (the project's one number
 * printer), rewritten without exponent ("6.4e+03" is 6400, "1.25e-05" is 0.0000125), since
 * the import reads plain decimals only; 0 for a value that is not finite and positive. */
static int speed_text(char *buf, size_t cap, double v)
{
    char t[TS_FMT_DOUBLE_CAP], digits[TS_FMT_DOUBLE_CAP];
    if (!(v > 0) || v > SL_MAX_SPEED || ts_fmt_double(t, sizeof t, v) >= (int)sizeof t)
        return 0;
    /* digits of the mantissa, and where the point goes among them */
    size_t nd = 0;
    long point = -1;
    const char *p = t;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.')
            point = (long)nd;
        else if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
        else
            return 0;
    }
    if (point < 0)
        point = (long)nd;
    if (*p == 'e')
        point += strtol(p + 1, NULL, 10);
    while (nd > 0 && digits[nd - 1] == '0' && (long)nd > point) /* trailing zeros after the point */
        nd--;
    size_t w = 0;
    if (point <= 0) {
        if (cap < (size_t)(-point) + nd + 3)
            return 0;
        buf[w++] = '0';
        buf[w++] = '.';
        for (long i = point; i < 0; i++)
            buf[w++] = '0';
        for (size_t i = 0; i < nd; i++)
            buf[w++] = digits[i];
    } else {
        if (cap < (size_t)point + nd + 3)
            return 0;
        for (long i = 0; i < point || i < (long)nd; i++) {
            if (i == point)
                buf[w++] = '.';
            buf[w++] = i < (long)nd ? digits[i] : '0';
        }
    }
    buf[w] = '\0';
    return 1;
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

static tsched_status write_conf(ts_sbuf *b, const sl_list *l, int block, uint32_t smallest)
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
    if (block && smallest > 0)
        ts_sbuf_printf(b, "BlockSizes=%u\n", smallest);
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
                                uint32_t smallest)
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
            (st = ts_json_set(bl, "block_sizes", sizes)) || (st = ts_json_push(sizes, json_integer(smallest))) ||
            (st = ts_json_set(bl, "blocks", items)) || (st = yaml_items(items, blocks, 1)))
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
    if (st == TSCHED_OK && yaml && !x->name[0])
        st = ts_error(TSCHED_E_FORMAT, "topology.yaml: the topology name is empty");
    if (st == TSCHED_OK)
        st = yaml ? write_yaml(&b, x, &tree, x->dt.has_nvl ? &blocks : NULL, smallest)
                  : write_conf(&b, x->o.block ? &blocks : &tree, x->o.block, smallest);
    if (st == TSCHED_OK)
        st = ts_sbuf_take(out, &b);
    ts_sbuf_free(&b);
    list_free(&tree);
    list_free(&blocks);
    return st;
}
