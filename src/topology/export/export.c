/* tsched_topology_export(): options, the warning line, and what the exports share
 * (doc/export.md). The formats are in export_slurm.c and export_k8s.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/cnum.h"
#include "../../common/structsize.h"
#include "../../common/text.h"
#include "export_internal.h"
#include "../topology_internal.h"

#define WARN_MAX 512

static _Thread_local char warning[WARN_MAX];

static const char *const format_names[] = {"slurm-conf", "slurm-yaml", "kueue", "kai", "volcano"};

void tsched_export_options_init(tsched_export_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->to = TSCHED_EXPORT_SLURM_CONF;
    opts->kueue_api = TSCHED_KUEUE_V1BETA2;
}

tsched_status tsched_export_format_from_name(tsched_export_format *to, const char *name)
{
    if (!to || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_export_format_from_name: %s is NULL", !to ? "to" : "name");
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strcmp(name, format_names[i]) == 0) {
            *to = (tsched_export_format)i;
            return TSCHED_OK;
        }
    char q[TS_TEXT_QUOTE_CAP(80)];
    return ts_error(TSCHED_E_FORMAT, "export format %s is not one of slurm-conf, slurm-yaml, kueue, kai, volcano",
                    ts_text_quote(q, sizeof q, name, strlen(name), 80));
}

const char *tsched_export_format_name(tsched_export_format to)
{
    return (unsigned)to < sizeof format_names / sizeof format_names[0] ? format_names[to] : "?";
}

const char *tsched_topology_export_warning(void) { return warning; }

void ts_export_warn(const char *fmt, ...)
{
    char tmp[WARN_MAX];
    va_list ap;
    va_start(ap, fmt);
    ts_vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    ts_text_one_line(warning, sizeof warning, tmp);
}

double ts_export_trunk_gbps(const tsched_topology *t, uint32_t trunk)
{
    uint32_t first = tsched_topology_trunk_first_member(t, trunk), n = tsched_topology_trunk_links(t, trunk);
    double sum = 0;
    for (uint32_t k = 0; k < n; k++)
        sum += tsched_topology_member_gbps(t, first + k);
    return sum;
}

/* The label value an import recorded for a switch (design: interop §1), or NULL. */
static const char *switch_value(const tsched_topology *t, uint32_t sw)
{
    return tsched_topology_switch_value(t, sw);
}

const char *ts_export_domain_value(const ts_export *x, const ts_dlevel *lv, uint32_t dom)
{
    if (!lv->nvl && lv->sw[dom] != TSCHED_NONE) {
        const char *v = switch_value(x->t, lv->sw[dom]);
        if (v && *v)
            return v;
    }
    return lv->name[dom];
}

const char *ts_export_domain_what(char *buf, size_t cap, const ts_export *x, const ts_dlevel *lv, uint32_t dom)
{
    char q[TS_TEXT_QUOTE_CAP(80)], tn[16];
    const char *name = lv->name[dom];
    ts_text_quote(q, sizeof q, name, strlen(name), 80);
    if (lv->nvl)
        snprintf(buf, cap, "%s %s", lv->sw[dom] != TSCHED_NONE ? "NVLink domain" : "node", q);
    else if (lv->sw[dom] != TSCHED_NONE)
        snprintf(buf, cap, "switch %s", q);
    else
        snprintf(buf, cap, "%s domain %s (no single %s switch)", ts_tier_name(tn, sizeof tn, lv->tier), q,
                 ts_tier_name(tn, sizeof tn, lv->tier));
    (void)x;
    return buf;
}

typedef struct name_ref {
    const char *name;
    uint32_t level, dom;
} name_ref;

static int cmp_ref(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->level != y->level ? (x->level < y->level ? -1 : 1) : (x->dom < y->dom ? -1 : x->dom > y->dom);
}

tsched_status ts_export_unique_names(const ts_export *x)
{
    size_t n = 0;
    for (uint32_t k = 0; k < x->dt.ntiers; k++)
        n += x->dt.tier[k].ndom;
    name_ref *r = ts_malloc(n ? n : 1, sizeof *r);
    if (!r)
        return TSCHED_E_NOMEM;
    size_t i = 0;
    for (uint32_t k = 0; k < x->dt.ntiers; k++)
        for (uint32_t d = 0; d < x->dt.tier[k].ndom; d++)
            r[i++] = (name_ref){x->dt.tier[k].name[d], k, d};
    qsort(r, n, sizeof *r, cmp_ref);
    tsched_status st = TSCHED_OK;
    for (i = 1; i < n; i++)
        if (strcmp(r[i - 1].name, r[i].name) == 0) {
            char a[300], b[300];
            st = ts_error(TSCHED_E_DUPLICATE, "domain tree: %s and %s have one name",
                          ts_export_domain_what(a, sizeof a, x, &x->dt.tier[r[i - 1].level], r[i - 1].dom),
                          ts_export_domain_what(b, sizeof b, x, &x->dt.tier[r[i].level], r[i].dom));
            break;
        }
    free(r);
    return st;
}

/* Every format gives a node one place in a tree (one leaf switch, one label value per
 * level), so a node with NICs on two leaves (dual-homed, rails) has no faithful form there:
 * refuse it by name rather than write the leaf of NIC 0 as if it were the only one. */
static tsched_status single_homed(const tsched_topology *t)
{
    uint32_t nn = tsched_topology_num_nodes(t);
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t leaf = tsched_topology_node_leaf(t, n), nics = tsched_topology_node_nics(t, n);
        for (uint32_t k = 1; k < nics; k++) {
            uint32_t other = tsched_topology_node_nic_leaf(t, n, k);
            if (other != leaf)
                return ts_error(TSCHED_E_FORMAT,
                                "node \"%s\": NIC 0 is on leaf \"%s\" and NIC %u on leaf \"%s\"; an export gives "
                                "a node one leaf, so multi-homed nodes cannot be exported (doc/export.md)",
                                tsched_topology_node_name(t, n), tsched_topology_switch_name(t, leaf), k,
                                tsched_topology_switch_name(t, other));
        }
    }
    return TSCHED_OK;
}

static tsched_status not_for(const char *field, const char *formats, tsched_export_format to)
{
    return ts_error(TSCHED_E_INVALID, "tsched_export_options.%s: only for %s, not %s", field, formats,
                    tsched_export_format_name(to));
}

tsched_status tsched_topology_export(char **out, const tsched_topology *topo, const tsched_export_options *opts)
{
    static const ts_span spans[] = {
        TS_SPAN(tsched_export_options, size),      TS_SPAN(tsched_export_options, to),
        TS_SPAN(tsched_export_options, levels),    TS_SPAN(tsched_export_options, num_levels),
        TS_SPAN(tsched_export_options, block),     TS_SPAN(tsched_export_options, physical),
        TS_SPAN(tsched_export_options, kueue_api), TS_SPAN(tsched_export_options, tier_names),
        TS_SPAN(tsched_export_options, sanitize),  TS_SPAN(tsched_export_options, json),
        TS_SPAN(tsched_export_options, name),      TS_SPAN(tsched_export_options, no_hostname_level),
        TS_SPAN(tsched_export_options, no_nodes),
    };
    warning[0] = '\0';
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_export: out is NULL");
    *out = NULL;
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_export: topo is NULL");
    ts_export x;
    memset(&x, 0, sizeof x);
    x.t = topo;
    tsched_export_options_init(&x.o);
    tsched_status st;
    if (opts && (st = ts_struct_in(&x.o, opts, spans, TS_NSPANS(spans), sizeof x.o, "tsched_export_options")) != TSCHED_OK)
        return st;
    const tsched_export_options *o = &x.o;
    int slurm = o->to == TSCHED_EXPORT_SLURM_CONF || o->to == TSCHED_EXPORT_SLURM_YAML;
    if ((unsigned)o->to > TSCHED_EXPORT_VOLCANO)
        return ts_error(TSCHED_E_INVALID, "tsched_export_options.to: unknown format %d", (int)o->to);
    if (o->num_levels > 0 && !o->levels)
        return ts_error(TSCHED_E_INVALID, "tsched_export_options.levels: NULL with num_levels = %u", o->num_levels);
    if (o->num_levels > 0 && slurm)
        return not_for("levels", "kueue, kai and volcano", o->to);
    if (o->block && o->to != TSCHED_EXPORT_SLURM_CONF)
        return not_for("block", "slurm-conf", o->to);
    if (o->physical && !slurm)
        return not_for("physical", "slurm-conf and slurm-yaml", o->to);
    if (o->block && o->physical)
        return ts_error(TSCHED_E_INVALID, "tsched_export_options: block and physical exclude each other");
    if ((unsigned)o->kueue_api > TSCHED_KUEUE_V1ALPHA1)
        return ts_error(TSCHED_E_INVALID, "tsched_export_options.kueue_api: unknown value %d", (int)o->kueue_api);
    if (o->kueue_api != TSCHED_KUEUE_V1BETA2 && o->to != TSCHED_EXPORT_KUEUE)
        return not_for("kueue_api", "kueue", o->to);
    if (o->tier_names && o->to != TSCHED_EXPORT_VOLCANO)
        return not_for("tier_names", "volcano", o->to);
    if (o->no_hostname_level && o->to != TSCHED_EXPORT_KUEUE && o->to != TSCHED_EXPORT_KAI)
        return not_for("no_hostname_level", "kueue and kai", o->to);
    if (o->no_nodes && slurm)
        return not_for("no_nodes", "kueue, kai and volcano", o->to);
    if (o->json && slurm)
        return not_for("json", "kueue, kai and volcano", o->to);
    if ((st = ts_check_built(topo, "tsched_topology_export")) != TSCHED_OK)
        return st;
    x.name = o->name && *o->name ? o->name : tsched_topology_name(topo);
    if ((st = single_homed(topo)) != TSCHED_OK)
        return st;
    if ((st = ts_dtree_build(&x.dt, topo)) != TSCHED_OK)
        return st;
    st = slurm ? ts_export_slurm(out, &x) : ts_export_k8s(out, &x);
    ts_dtree_free(&x.dt);
    if (st != TSCHED_OK) {
        warning[0] = '\0';
        *out = NULL;
    }
    return st;
}
