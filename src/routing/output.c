/* tsched.routes.v1 (DESIGN 5.5), streamed: a million flows cost no tree (several hundred
 * bytes a flow) and, written to a FILE, no whole text either. The bytes are those
 * ts_json_write() gives for the tree of the same document (indented or compact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/numfmt.h"
#include "../common/output_opts.h"
#include "routing_internal.h"

/* A rate's text, remembered by its bits: max-min rates take few distinct values (4,089
 * among a million random flows on 2,048 NICs), and printing one costs ~0.4 us. */
#define MEMO_BITS 14
typedef struct rate_memo {
    uint64_t bits[1u << MEMO_BITS];
    char text[1u << MEMO_BITS][TS_FMT_DOUBLE_CAP];
    uint8_t len[1u << MEMO_BITS];
} rate_memo;

static void put_rate(ts_jw *w, rate_memo *m, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    if (!m) {
        ts_jw_real(w, x);
        return;
    }
    unsigned h = (unsigned)((b * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - MEMO_BITS));
    if (m->len[h] == 0 || m->bits[h] != b) {
        m->bits[h] = b;
        m->len[h] = (uint8_t)ts_fmt_double(m->text[h], sizeof m->text[h], x);
    }
    ts_jw_raw(w, m->text[h], m->len[h]);
}

static tsched_status write_doc(ts_jw *w, const tsched_routes *r, const tsched_topology *t, int flags)
{
    uint32_t ns = tsched_topology_num_switches(t);
    char **name = ts_calloc(ns ? ns : 1, sizeof *name); /* quoted switch names, on first use */
    rate_memo *memo = r->n > 4096 ? calloc(1, sizeof *memo) : NULL; /* a speed-up only */
    tsched_status st = TSCHED_OK;
    if (!name) {
        free(memo);
        return ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    }
    ts_jw_open(w, '{');
    ts_jw_key(w, "format");
    ts_jw_str(w, "tsched.routes.v1");
    ts_jw_key(w, "algorithm");
    ts_jw_str(w, tsched_route_algo_name(r->algo));
    ts_jw_key(w, "status");
    ts_jw_str(w, r->status);
    ts_jw_key(w, "max_link_flows");
    ts_jw_int(w, r->max_load);
    if (r->has_rates) {
        ts_jw_key(w, "min_rate_gbps");
        ts_jw_real(w, r->min_rate);
    }
    ts_jw_key(w, "moved");
    ts_jw_int(w, r->moved);
    ts_jw_key(w, "flows");
    ts_jw_open(w, '[');
    for (uint32_t i = 0; i < r->n && st == TSCHED_OK; i++) {
        tsched_path p = {.size = sizeof(tsched_path)};
        if ((st = tsched_routes_path(&p, r, i)) != TSCHED_OK)
            break;
        ts_jw_elem(w);
        ts_jw_open(w, '{');
        ts_jw_key(w, "index");
        ts_jw_int(w, i);
        ts_jw_key(w, "hops");
        ts_jw_open(w, '[');
        /* both ends on one leaf: no fabric hop (DESIGN 5.5) */
        for (uint32_t h = 0; p.nswitches > 1 && h < p.nswitches; h++) {
            uint32_t s = p.switches[h];
            if (s >= ns) {
                st = ts_error(TSCHED_E_INTERNAL, "tsched_routes_to_json: switch %u of flow %u out of range", s, i);
                break;
            }
            if (!name[s] && !(name[s] = ts_jw_quote(tsched_topology_switch_name(t, s)))) {
                st = ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
                break;
            }
            ts_jw_elem(w);
            ts_jw_raw(w, name[s], strlen(name[s]));
        }
        ts_jw_close(w, ']');
        if (r->has_rates) {
            ts_jw_key(w, "rate_gbps");
            put_rate(w, memo, r->rate[i]);
        }
        ts_jw_close(w, '}');
    }
    ts_jw_close(w, ']');
    if (!(flags & TSCHED_ROUTES_JSON_NO_TIMING)) {
        ts_jw_key(w, "solve_ms");
        ts_jw_real(w, r->solve_ms);
    }
    ts_jw_close(w, '}');
    for (uint32_t s = 0; s < ns; s++)
        free(name[s]);
    free(name);
    free(memo);
    return st;
}

static tsched_status check_args(const tsched_routes *routes, const tsched_topology *topo, const char *fn)
{
    if (!routes)
        return ts_error(TSCHED_E_INVALID, "%s: routes is NULL", fn);
    if (!topo)
        return ts_error(TSCHED_E_INVALID, "%s: topo is NULL", fn);
    /* switch names come from the fabric: it must be the one the routes were computed on */
    char what[64];
    snprintf(what, sizeof what, "%s: routes", fn);
    return tsched_topology_check_identity(topo, routes->topo_id, routes->topo_gen, what);
}

tsched_status tsched_routes_to_json(char **out, const tsched_routes *routes, const tsched_topology *topo, int with_time)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_to_json: out is NULL");
    *out = NULL;
    tsched_status st = check_args(routes, topo, "tsched_routes_to_json");
    if (st != TSCHED_OK)
        return st;
    ts_jw w;
    ts_jw_init(&w, NULL, TS_JSON_INDENT);
    st = write_doc(&w, routes, topo, with_time ? 0 : TSCHED_ROUTES_JSON_NO_TIMING);
    if (st == TSCHED_OK && ts_jw_finish(&w, out, NULL) != 0)
        st = ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    ts_jw_free(&w);
    return st;
}

tsched_status tsched_routes_write_json(FILE *out, const tsched_routes *routes, const tsched_topology *topo, int flags)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_routes_write_json: out is NULL");
    tsched_status st = check_args(routes, topo, "tsched_routes_write_json");
    if (st != TSCHED_OK)
        return st;
    if (flags & ~(TSCHED_ROUTES_JSON_NO_TIMING | TSCHED_ROUTES_JSON_COMPACT))
        return ts_error(TSCHED_E_INVALID, "tsched_routes_write_json: unknown flags 0x%x", (unsigned)flags);
    ts_jw w;
    ts_jw_init(&w, out, flags & TSCHED_ROUTES_JSON_COMPACT ? TS_JSON_COMPACT : TS_JSON_INDENT);
    st = write_doc(&w, routes, topo, flags);
    int bad = ts_jw_finish(&w, NULL, NULL);
    if (st == TSCHED_OK && bad)
        st = w.b.failed ? ts_error(TSCHED_E_NOMEM, "out of memory writing JSON")
                        : ts_error(TSCHED_E_IO, "tsched_routes_write_json: write failed");
    ts_jw_free(&w);
    return st;
}

tsched_status tsched_routes_to_json_opts(char **out, const tsched_routes *routes, const tsched_topology *topo,
                                         const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_routes_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st != TSCHED_OK || (st = check_args(routes, topo, fn)) != TSCHED_OK)
        return st;
    ts_jw w;
    ts_jw_init(&w, NULL, o.compact ? TS_JSON_COMPACT : TS_JSON_INDENT);
    st = write_doc(&w, routes, topo, o.timing ? 0 : TSCHED_ROUTES_JSON_NO_TIMING);
    if (st == TSCHED_OK && ts_jw_finish(&w, out, NULL) != 0)
        st = ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    ts_jw_free(&w);
    return st;
}
