/* Optional facts of a fabric that imports write and exports read (design interop 1):
 * NVLink domains of nodes, label provenance (raw switch values, label keys per tier) and
 * the nodes an import left out. None of them changes paths or routing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/limits.h"
#include "../common/names.h"
#include "../common/text.h"
#include "topology_internal.h"

const char *ts_tier_word(int tier)
{
    static const char *const w[TSCHED_MAX_TIERS] = {"leaf",  "spine", "core",  "tier3",
                                                    "tier4", "tier5", "tier6", "tier7"};
    return tier >= 0 && tier < TSCHED_MAX_TIERS ? w[tier] : "?";
}

/* Free text (label keys and values, reasons): valid UTF-8 without control characters, at
 * most name_bytes bytes; empty only when `allow_empty`. Unlike names, '~' and '#' are fine:
 * these texts never build link names. */
static tsched_status text_check(const char *s, const char *field, int allow_empty)
{
    if (!s)
        return ts_error(TSCHED_E_INVALID, "%s: text is NULL", field);
    size_t len = strlen(s), max = ts_limits()->name_bytes;
    if (len == 0 && !allow_empty)
        return ts_error(TSCHED_E_RANGE, "%s: must not be empty", field);
    if (len > max)
        return ts_error(TSCHED_E_RANGE, "%s: %zu bytes are longer than the limit name_bytes = %zu", field, len, max);
    for (size_t i = 0; i < len;) {
        size_t n = ts_text_char(s + i, len - i);
        if (n == 0)
            return ts_error(TSCHED_E_RANGE,
                            "%s: must be valid UTF-8 without control characters (bad byte 0x%02x at byte %zu)", field,
                            (unsigned char)s[i], i);
        i += n;
    }
    return TSCHED_OK;
}

/* ---- NVLink domains ---- */

tsched_status tsched_topology_set_nvl_domain(tsched_topology *t, uint32_t node, const char *domain)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_nvl_domain: topology is NULL");
    if (t->built)
        return ts_error(TSCHED_E_STATE,
                        "tsched_topology_set_nvl_domain: the topology is already built; only its state may change");
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_nvl_domain: node %u does not exist", node);
    if (!domain || !*domain) {
        t->node_nvl_ref[node] = UINT32_MAX;
        return TSCHED_OK;
    }
    char field[64];
    snprintf(field, sizeof field, "nodes[%u].nvl_domain", node - t->node_base);
    tsched_status st;
    if ((st = ts_name_check(domain, field)) != TSCHED_OK)
        return st;
    uint32_t id;
    if ((st = ts_strtab_intern(&t->nvl_names, domain, &id, NULL)) != TSCHED_OK)
        return st;
    t->node_nvl_ref[node] = id;
    return TSCHED_OK;
}

const char *tsched_topology_node_nvl_domain(const tsched_topology *t, uint32_t node)
{
    if (!t || node >= t->nnodes || t->node_nvl_ref[node] == UINT32_MAX)
        return NULL;
    return ts_strtab_str(&t->nvl_names, t->node_nvl_ref[node]);
}

uint32_t tsched_topology_num_nvl_domains(const tsched_topology *t) { return t && t->built ? t->nnvl : 0; }

uint32_t tsched_topology_node_nvl(const tsched_topology *t, uint32_t node)
{
    return t && t->built && node < t->nnodes ? t->node_nvl[node] : TSCHED_NONE;
}

const char *tsched_topology_nvl_name(const tsched_topology *t, uint32_t d)
{
    return t && t->built && d < t->nnvl ? ts_strtab_str(&t->nvl_names, t->nvl_ref[d]) : NULL;
}

tsched_status ts_topology_nvl_build(tsched_topology *t)
{
    uint32_t nnames = ts_strtab_count(&t->nvl_names);
    uint32_t *dom_of = ts_malloc(nnames ? nnames : 1, sizeof *dom_of);
    if (!dom_of || !(t->node_nvl = ts_malloc(t->nnodes ? t->nnodes : 1, sizeof *t->node_nvl)) ||
        !(t->nvl_ref = ts_malloc(nnames ? nnames : 1, sizeof *t->nvl_ref))) {
        free(dom_of);
        return TSCHED_E_NOMEM;
    }
    for (uint32_t i = 0; i < nnames; i++)
        dom_of[i] = UINT32_MAX;
    t->nnvl = 0;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        uint32_t r = t->node_nvl_ref ? t->node_nvl_ref[n] : UINT32_MAX;
        if (r == UINT32_MAX) {
            t->node_nvl[n] = UINT32_MAX;
            continue;
        }
        if (dom_of[r] == UINT32_MAX) {
            dom_of[r] = t->nnvl;
            t->nvl_ref[t->nnvl++] = r;
        }
        t->node_nvl[n] = dom_of[r];
    }
    free(dom_of);
    if (!(t->nvl_node_off = ts_calloc((size_t)t->nnvl + 1, sizeof *t->nvl_node_off)) ||
        !(t->nvl_node_list = ts_malloc(t->nnodes ? t->nnodes : 1, sizeof *t->nvl_node_list)) ||
        !(t->nvl_free = ts_calloc(t->nnvl ? t->nnvl : 1, sizeof *t->nvl_free)))
        return TSCHED_E_NOMEM;
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->node_nvl[n] != UINT32_MAX)
            t->nvl_node_off[t->node_nvl[n] + 1]++;
    for (uint32_t d = 0; d < t->nnvl; d++)
        t->nvl_node_off[d + 1] += t->nvl_node_off[d];
    /* off[d] serves as domain d's cursor, ending at the start of d + 1: shift back after */
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->node_nvl[n] != UINT32_MAX)
            t->nvl_node_list[t->nvl_node_off[t->node_nvl[n]]++] = n;
    for (uint32_t d = t->nnvl; d > 0; d--)
        t->nvl_node_off[d] = t->nvl_node_off[d - 1];
    t->nvl_node_off[0] = 0;
    return TSCHED_OK;
}

/* ---- label provenance ---- */

tsched_status tsched_topology_set_switch_value(tsched_topology *t, uint32_t sw, const char *value)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_switch_value: topology is NULL");
    if (sw >= t->nswitches)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_switch_value: switch %u does not exist", sw);
    if (!value || !*value) {
        t->sw_value[sw] = UINT32_MAX;
        return TSCHED_OK;
    }
    char field[64];
    snprintf(field, sizeof field, "switches[%u].value", sw >= t->switch_base ? sw - t->switch_base : sw);
    tsched_status st;
    if ((st = text_check(value, field, 0)) != TSCHED_OK)
        return st;
    uint32_t id;
    if ((st = ts_strtab_intern(&t->sw_values, value, &id, NULL)) != TSCHED_OK)
        return st;
    t->sw_value[sw] = id;
    return TSCHED_OK;
}

const char *tsched_topology_switch_value(const tsched_topology *t, uint32_t sw)
{
    if (!t || sw >= t->nswitches || t->sw_value[sw] == UINT32_MAX)
        return NULL;
    return ts_strtab_str(&t->sw_values, t->sw_value[sw]);
}

tsched_status tsched_topology_set_node_hostname(tsched_topology *t, uint32_t node, const char *value)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_node_hostname: topology is NULL");
    if (node >= t->nnodes)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_node_hostname: node %u does not exist", node);
    if (!value || !*value) {
        t->node_host[node] = UINT32_MAX;
        return TSCHED_OK;
    }
    char field[64];
    snprintf(field, sizeof field, "nodes[%u].hostname_label", node >= t->node_base ? node - t->node_base : node);
    tsched_status st;
    if ((st = text_check(value, field, 0)) != TSCHED_OK)
        return st;
    uint32_t id;
    if ((st = ts_strtab_intern(&t->node_hosts, value, &id, NULL)) != TSCHED_OK)
        return st;
    t->node_host[node] = id;
    return TSCHED_OK;
}

const char *tsched_topology_node_hostname(const tsched_topology *t, uint32_t node)
{
    if (!t || node >= t->nnodes || t->node_host[node] == UINT32_MAX)
        return NULL;
    return ts_strtab_str(&t->node_hosts, t->node_host[node]);
}

tsched_status tsched_topology_set_labels(tsched_topology *t, const char *const *tier_keys, uint32_t ntiers,
                                         const char *nvl_key)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_labels: topology is NULL");
    if (ntiers > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "labels.tiers: %u keys given; at most %d tiers", ntiers, TSCHED_MAX_TIERS);
    if (ntiers && !tier_keys)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_set_labels: tier_keys is NULL");
    tsched_status st;
    char field[48];
    for (uint32_t i = 0; i < ntiers; i++) {
        snprintf(field, sizeof field, "labels.tiers[%u]", i);
        if ((st = text_check(tier_keys[i], field, 0)) != TSCHED_OK)
            return st;
    }
    if (nvl_key && (st = text_check(nvl_key, "labels.nvl", 0)) != TSCHED_OK)
        return st;
    char *copy[TSCHED_MAX_TIERS] = {0}, *nvl = NULL;
    for (uint32_t i = 0; i < ntiers; i++)
        if (!(copy[i] = ts_strdup(tier_keys[i])))
            goto nomem;
    if (nvl_key && !(nvl = ts_strdup(nvl_key)))
        goto nomem;
    for (uint32_t i = 0; i < TSCHED_MAX_TIERS; i++) {
        free(t->label_tier[i]);
        t->label_tier[i] = copy[i];
    }
    free(t->label_nvl);
    t->label_nvl = nvl;
    t->nlabel_tiers = ntiers;
    return TSCHED_OK;
nomem:
    for (uint32_t i = 0; i < ntiers; i++)
        free(copy[i]);
    return TSCHED_E_NOMEM;
}

uint32_t tsched_topology_label_tiers(const tsched_topology *t) { return t ? t->nlabel_tiers : 0; }

const char *tsched_topology_label_tier(const tsched_topology *t, uint32_t tier)
{
    return t && tier < t->nlabel_tiers ? t->label_tier[tier] : NULL;
}

const char *tsched_topology_label_nvl(const tsched_topology *t) { return t ? t->label_nvl : NULL; }

/* ---- left-out nodes ---- */

tsched_status tsched_topology_add_excluded(tsched_topology *t, const char *node, const char *reason)
{
    if (!t)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_add_excluded: topology is NULL");
    if (!node)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_add_excluded: node is NULL");
    if (!reason)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_add_excluded: reason is NULL");
    tsched_status st;
    if ((st = ts_name_check(node, "excluded")) != TSCHED_OK)
        return st;
    /* node passed the name rules: it is one line and safe to quote */
    size_t flen = strlen(node) + 16;
    char *field = ts_malloc(flen, 1);
    if (!field)
        return TSCHED_E_NOMEM;
    snprintf(field, flen, "excluded.%s", node);
    st = text_check(reason, field, 1);
    if (st == TSCHED_OK && ts_strtab_find(&t->excl_nodes, node) != UINT32_MAX)
        st = ts_error(TSCHED_E_DUPLICATE, "%s: node \"%s\" is already excluded", field, node);
    free(field);
    if (st != TSCHED_OK)
        return st;
    uint32_t n = ts_strtab_count(&t->excl_nodes), id;
    if ((st = TS_GROW(t->excl_reason, t->excl_cap, (size_t)n + 1)) != TSCHED_OK)
        return st;
    char *r = ts_strdup(reason);
    if (!r)
        return TSCHED_E_NOMEM;
    if ((st = ts_strtab_intern(&t->excl_nodes, node, &id, NULL)) != TSCHED_OK) {
        free(r);
        return st;
    }
    t->excl_reason[id] = r;
    return TSCHED_OK;
}

uint32_t tsched_topology_num_excluded(const tsched_topology *t) { return t ? ts_strtab_count(&t->excl_nodes) : 0; }

const char *tsched_topology_excluded_node(const tsched_topology *t, uint32_t i)
{
    return t && i < ts_strtab_count(&t->excl_nodes) ? ts_strtab_str(&t->excl_nodes, i) : NULL;
}

const char *tsched_topology_excluded_reason(const tsched_topology *t, uint32_t i)
{
    return t && i < ts_strtab_count(&t->excl_nodes) ? t->excl_reason[i] : NULL;
}

void ts_topology_attrs_free(tsched_topology *t)
{
    ts_strtab_free(&t->nvl_names);
    free(t->node_nvl_ref);
    free(t->node_nvl);
    free(t->nvl_ref);
    free(t->nvl_node_off);
    free(t->nvl_node_list);
    free(t->nvl_free);
    ts_strtab_free(&t->sw_values);
    free(t->sw_value);
    ts_strtab_free(&t->node_hosts);
    free(t->node_host);
    for (int i = 0; i < TSCHED_MAX_TIERS; i++)
        free(t->label_tier[i]);
    free(t->label_nvl);
    for (uint32_t i = 0; i < ts_strtab_count(&t->excl_nodes); i++)
        free(t->excl_reason[i]);
    free(t->excl_reason);
    ts_strtab_free(&t->excl_nodes);
}

/* ---- Slurm BlockSizes ---- */

size_t ts_block_sizes_bad(const uint64_t *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = i ? sizes[i] / sizes[i - 1] : 1;
        if (sizes[i] == 0 || sizes[i] > UINT32_MAX)
            return i;
        if (i && (sizes[i] <= sizes[i - 1] || sizes[i] % sizes[i - 1] != 0 || (r & (r - 1)) != 0))
            return i;
    }
    return n;
}

tsched_status ts_topology_set_block_sizes(tsched_topology *t, const uint64_t *sizes, size_t n, const char *field)
{
    if (n > TSCHED_MAX_TIERS)
        return ts_error(TSCHED_E_RANGE, "%s: %zu sizes; at most %d", field, n, TSCHED_MAX_TIERS);
    /* the import checked these already; a JSON document may hold anything */
    size_t bad = ts_block_sizes_bad(sizes, n);
    if (bad < n)
        return ts_error(TSCHED_E_RANGE,
                        "%s[%zu]: %llu is not a block size (1 to %u, each a power-of-two multiple of the one before)",
                        field, bad, (unsigned long long)sizes[bad], UINT32_MAX);
    for (size_t i = 0; i < n; i++)
        t->block_sizes[i] = (uint32_t)sizes[i];
    t->nblock_sizes = (uint32_t)n;
    return TSCHED_OK;
}

const uint32_t *ts_topology_block_sizes(const tsched_topology *t, uint32_t *n)
{
    *n = t->nblock_sizes;
    return t->nblock_sizes ? t->block_sizes : NULL;
}
