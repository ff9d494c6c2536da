/* Writing `tsched.topology.v1` (always explicit, so any fabric round-trips) and the
 * `tsched.topology-summary.v1` of `topo-sched topology show`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/output_opts.h"
#include "topology_internal.h"

static const char *sw_name(const tsched_topology *t, uint32_t s) { return ts_strtab_str(&t->switch_names, s); }

/* `lower~upper`, or `lower~upper#k` for k != UINT32_MAX. */
static tsched_status trunk_name(char **out, const tsched_topology *t, uint32_t r, uint32_t k)
{
    const char *a = sw_name(t, t->tr_lower[r]), *b = sw_name(t, t->tr_upper[r]);
    size_t n = strlen(a) + strlen(b) + 2 + (k != UINT32_MAX ? 12 : 0);
    if (!(*out = ts_malloc(n, 1)))
        return TSCHED_E_NOMEM;
    if (k != UINT32_MAX)
        snprintf(*out, n, "%s~%s#%u", a, b, k);
    else
        snprintf(*out, n, "%s~%s", a, b);
    return TSCHED_OK;
}

static tsched_status node_json(json_t **out, const tsched_topology *t, uint32_t n)
{
    tsched_status st;
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    if ((st = ts_json_set(o, "name", json_string(ts_strtab_str(&t->node_names, n)))) ||
        (st = ts_json_set(o, "leaf", json_string(sw_name(t, t->node_leaf[n])))) ||
        (st = ts_json_set(o, "gpus", json_integer(t->node_gpus[n]))) ||
        (st = ts_json_set(o, "gpu_type", json_string(ts_strtab_str(&t->gpu_types, t->node_type[n])))) ||
        (st = ts_json_set(o, "nics", json_integer(t->node_nics[n]))) ||
        (st = ts_json_set(o, "nic_gbps", json_real(t->node_gbps[n]))))
        goto fail;
    const char *nvl = tsched_topology_node_nvl_domain(t, n);
    if (nvl && (st = ts_json_set(o, "nvl_domain", json_string(nvl))) != TSCHED_OK)
        goto fail;
    const char *host = tsched_topology_node_hostname(t, n);
    if (host && (st = ts_json_set(o, "hostname_label", json_string(host))) != TSCHED_OK)
        goto fail;
    if (t->node_rail[n] != UINT32_MAX) {
        json_t *r = json_array();
        if ((st = ts_json_set(o, "rails", r)) != TSCHED_OK)
            goto fail;
        for (uint32_t k = 0; k < t->node_nics[n]; k++)
            if ((st = ts_json_push(r, json_string(sw_name(t, t->rail[t->node_rail[n] + k])))) != TSCHED_OK)
                goto fail;
    }
    *out = o;
    return TSCHED_OK;
fail:
    json_decref(o);
    return st;
}

static tsched_status switch_json(json_t **out, const tsched_topology *t, uint32_t s)
{
    tsched_status st;
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    if ((st = ts_json_set(o, "name", json_string(sw_name(t, s)))) ||
        (st = ts_json_set(o, "tier", json_integer(t->sw_tier[s]))) ||
        (t->sw_pod[s] != UINT32_MAX && (st = ts_json_set(o, "pod", json_string(ts_strtab_str(&t->pod_names, t->sw_pod[s]))))))
        goto fail;
    const char *value = tsched_topology_switch_value(t, s);
    if (value && (st = ts_json_set(o, "value", json_string(value))) != TSCHED_OK)
        goto fail;
    *out = o;
    return TSCHED_OK;
fail:
    json_decref(o);
    return st;
}

/* One `links` entry: run `i` of trunk `r`. */
static tsched_status link_json(json_t **out, const tsched_topology *t, uint32_t r, uint32_t i)
{
    tsched_status st;
    json_t *o = json_object();
    if (!o)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    uint32_t count = t->run_count[i];
    double total = t->run_total[i], per = total / count;
    if ((st = ts_json_set(o, "a", json_string(sw_name(t, t->tr_lower[r])))) ||
        (st = ts_json_set(o, "b", json_string(sw_name(t, t->tr_upper[r])))) ||
        (st = ts_json_set(o, "gbps", json_real(per))) || (st = ts_json_set(o, "count", json_integer(count))))
        goto fail;
    /* Only when gbps * count would not give the capacity back to the bit, or gbps alone
     * would exceed the per-link limit (runs merged from many entries). */
    if ((per * count != total || per > TS_MAX_GBPS) && (st = ts_json_set(o, "capacity_gbps", json_real(total))))
        goto fail;
    *out = o;
    return TSCHED_OK;
fail:
    json_decref(o);
    return st;
}

/* Push `lower~upper` (k = UINT32_MAX) or `lower~upper#k` onto `arr`. */
static tsched_status push_link_name(json_t *arr, const tsched_topology *t, uint32_t r, uint32_t k)
{
    char *name;
    tsched_status st;
    if ((st = trunk_name(&name, t, r, k)) != TSCHED_OK)
        return st;
    st = ts_json_push(arr, json_string(name));
    free(name);
    return st;
}

/* The down lists: nodes, switches, trunks ("lower~upper", by their own state) and
 * member links ("lower~upper#k"), in index order. */
static tsched_status down_lists(json_t **nodes, json_t **switches, json_t **trunks, json_t **members,
                                const tsched_topology *t)
{
    tsched_status st = TSCHED_OK;
    *nodes = json_array();
    *switches = json_array();
    *trunks = json_array();
    *members = json_array();
    if (!*nodes || !*switches || !*trunks || !*members) {
        st = ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
        goto fail;
    }
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (!t->node_up[n] && (st = ts_json_push(*nodes, json_string(ts_strtab_str(&t->node_names, n)))))
            goto fail;
    for (uint32_t s = 0; s < t->nswitches; s++)
        if (!t->sw_up[s] && (st = ts_json_push(*switches, json_string(sw_name(t, s)))))
            goto fail;
    for (uint32_t r = 0; r < t->ntrunks; r++) {
        if (!t->tr_own[r] && (st = push_link_name(*trunks, t, r, UINT32_MAX)))
            goto fail;
        if (t->tr_mem_up[r] == t->tr_links[r])
            continue;
        for (uint32_t m = t->tr_mem_off[r]; m < t->tr_mem_off[r + 1]; m++)
            if (!t->mem_up[m] && (st = push_link_name(*members, t, r, m - t->tr_mem_off[r])))
                goto fail;
    }
    return TSCHED_OK;
fail:
    json_decref(*nodes);
    json_decref(*switches);
    json_decref(*trunks);
    json_decref(*members);
    *nodes = *switches = *trunks = *members = NULL;
    return st;
}

/* "labels", "excluded" and "block_sizes", each only when set (design interop 1, 3.1). */
static tsched_status attrs_json(json_t *root, const tsched_topology *t)
{
    tsched_status st;
    if (t->nlabel_tiers || t->label_nvl) {
        json_t *labels = json_object(), *tiers = json_array();
        if ((st = ts_json_set(root, "labels", labels)))
            return st;
        if ((st = ts_json_set(labels, "tiers", tiers)))
            return st;
        for (uint32_t i = 0; i < t->nlabel_tiers; i++)
            if ((st = ts_json_push(tiers, json_string(t->label_tier[i]))))
                return st;
        if (t->label_nvl && (st = ts_json_set(labels, "nvl", json_string(t->label_nvl))))
            return st;
    }
    uint32_t nx = tsched_topology_num_excluded(t);
    if (nx) {
        json_t *excl = json_object();
        if ((st = ts_json_set(root, "excluded", excl)))
            return st;
        for (uint32_t i = 0; i < nx; i++)
            if ((st = ts_json_set(excl, tsched_topology_excluded_node(t, i),
                                  json_string(tsched_topology_excluded_reason(t, i)))))
                return st;
    }
    if (t->nblock_sizes) {
        json_t *sizes = json_array();
        if ((st = ts_json_set(root, "block_sizes", sizes)))
            return st;
        for (uint32_t i = 0; i < t->nblock_sizes; i++)
            if ((st = ts_json_push(sizes, json_integer(t->block_sizes[i]))))
                return st;
    }
    return TSCHED_OK;
}

static tsched_status build_doc(json_t *root, const tsched_topology *t)
{
    tsched_status st;
    json_t *nodes = json_array(), *switches = json_array(), *links = json_array(), *state = json_object(),
           *free_gpus = json_object(), *pods = json_array();
    if ((st = ts_json_set(root, "format", json_string("tsched.topology.v1"))) ||
        (st = ts_json_set(root, "name", json_string(t->name))) || (st = ts_json_set(root, "pods", pods)) ||
        (st = ts_json_set(root, "nodes", nodes)) ||
        (st = ts_json_set(root, "switches", switches)) || (st = ts_json_set(root, "links", links)) ||
        (st = ts_json_set(root, "state", state)) || (st = ts_json_set(state, "free_gpus", free_gpus)))
        return st;
    json_t *o = NULL;
    for (uint32_t p = 0; p < ts_strtab_count(&t->pod_names); p++)
        if ((st = ts_json_push(pods, json_string(ts_strtab_str(&t->pod_names, p)))))
            return st;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        if ((st = node_json(&o, t, n)) || (st = ts_json_push(nodes, o)))
            return st;
        if (t->node_free[n] != t->node_gpus[n] &&
            (st = ts_json_set(free_gpus, ts_strtab_str(&t->node_names, n), json_integer(t->node_free[n]))))
            return st;
    }
    for (uint32_t s = 0; s < t->nswitches; s++)
        if ((st = switch_json(&o, t, s)) || (st = ts_json_push(switches, o)))
            return st;
    for (uint32_t r = 0; r < t->ntrunks; r++)
        for (uint32_t i = t->tr_run_off[r]; i < t->tr_run_off[r + 1]; i++)
            if ((st = link_json(&o, t, r, i)) || (st = ts_json_push(links, o)))
                return st;
    if ((st = attrs_json(root, t)) != TSCHED_OK)
        return st;
    json_t *dn, *ds, *dt, *dm;
    if ((st = down_lists(&dn, &ds, &dt, &dm, t)) != TSCHED_OK)
        return st;
    /* One flat list, as the format reads it: nodes, switches, trunks, then members. */
    json_array_extend(dn, ds);
    json_array_extend(dn, dt);
    json_array_extend(dn, dm);
    json_decref(ds);
    json_decref(dt);
    json_decref(dm);
    return ts_json_set(state, "down", dn);
}

tsched_status tsched_topology_to_json(char **out, const tsched_topology *t)
{
    tsched_status st;
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_to_json: out is NULL");
    *out = NULL;
    if ((st = ts_check_built(t, "tsched_topology_to_json")) != TSCHED_OK)
        return st;
    json_t *root = json_object();
    if (!root)
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    if ((st = build_doc(root, t)) == TSCHED_OK)
        st = ts_json_dump(out, root);
    json_decref(root);
    return st;
}


tsched_status tsched_topology_save_file(const tsched_topology *t, const char *path)
{
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_save_file: path is NULL");
    char *text;
    tsched_status st = tsched_topology_to_json(&text, t);
    if (st != TSCHED_OK)
        return st;
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!f) {
        free(text);
        return ts_error(TSCHED_E_IO, "%s: cannot open for writing", path);
    }
    size_t len = strlen(text);
    int bad = fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF;
    if (f != stdout)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    free(text);
    return bad ? ts_error(TSCHED_E_IO, "%s: write failed", path) : TSCHED_OK;
}

/* "tier3".. keys of `switches` when present, and "tiers": [n0, n1, ...] up to the highest
 * tier used. */
static tsched_status tier_summary(json_t *root, json_t *sw, const tsched_topology *t)
{
    tsched_status st;
    for (int k = TSCHED_TIERS; k <= t->max_tier; k++)
        if (t->tier_count[k] && (st = ts_json_set(sw, ts_tier_word(k), json_integer(t->tier_count[k]))))
            return st;
    json_t *tiers = json_array();
    if ((st = ts_json_set(root, "tiers", tiers)))
        return st;
    for (int k = 0; k <= t->max_tier; k++)
        if ((st = ts_json_push(tiers, json_integer(t->tier_count[k]))))
            return st;
    return TSCHED_OK;
}

tsched_status tsched_topology_summary_json(char **out, const tsched_topology *t)
{
    tsched_status st;
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_topology_summary_json: out is NULL");
    *out = NULL;
    if ((st = ts_check_built(t, "tsched_topology_summary_json")) != TSCHED_OK)
        return st;
    json_t *root = json_object(), *sw = json_object(), *down = json_object();
    json_t *dn = NULL, *ds = NULL, *dt = NULL, *dm = NULL;
    if (!root || !sw || !down) {
        json_decref(root);
        json_decref(sw);
        json_decref(down);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    uint32_t up_nodes = 0;
    for (uint32_t n = 0; n < t->nnodes; n++)
        up_nodes += (uint32_t)ts_node_usable(t, n);
    if ((st = ts_json_set(root, "format", json_string("tsched.topology-summary.v1"))) ||
        (st = ts_json_set(root, "name", json_string(t->name))) ||
        (st = ts_json_set(root, "nodes", json_integer(t->nnodes))) ||
        (st = ts_json_set(root, "gpus", json_integer((json_int_t)t->total_gpus))) ||
        (st = ts_json_set(root, "free_gpus", json_integer((json_int_t)t->free_gpus))) ||
        (st = ts_json_set(root, "up_nodes", json_integer(up_nodes))) ||
        (st = ts_json_set(root, "free_nodes", json_integer(t->cluster_free))) ||
        (st = ts_json_set(root, "switches", sw)) ||
        (st = ts_json_set(sw, "leaf", json_integer(t->tier_count[0]))) ||
        (st = ts_json_set(sw, "spine", json_integer(t->tier_count[1]))) ||
        (st = ts_json_set(sw, "core", json_integer(t->tier_count[2]))) ||
        (st = tier_summary(root, sw, t)) ||
        (st = ts_json_set(root, "pods", json_integer(ts_strtab_count(&t->pod_names)))) ||
        (st = ts_json_set(root, "nvl_domains", json_integer(t->nnvl))) ||
        (st = ts_json_set(root, "trunks", json_integer(t->ntrunks))) || (st = ts_json_set(root, "down", down)) ||
        (st = down_lists(&dn, &ds, &dt, &dm, t)) || (st = ts_json_set(down, "nodes", dn)) ||
        (st = ts_json_set(down, "switches", ds)) || (st = ts_json_set(down, "trunks", dt)))
        goto out;
    /* "members" only when a member link is down (DESIGN 6) */
    if (json_array_size(dm)) {
        st = ts_json_set(down, "members", dm);
        dm = NULL;
        if (st)
            goto out;
    }
    st = ts_json_dump(out, root);
out:
    json_decref(dm);
    json_decref(root);
    return st;
}

tsched_status tsched_topology_to_json_opts(char **out, const tsched_topology *topo, const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_topology_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_topology_to_json(out, topo);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}

tsched_status tsched_topology_summary_json_opts(char **out, const tsched_topology *topo, const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_topology_summary_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_topology_summary_json(out, topo);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
