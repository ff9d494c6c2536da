/* The contention DAG handle, the tsched.dag.v1 reader, topological orders, cycle reports
 * and the tsched.levels.v1 writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/jread.h"
#include "../common/json.h"
#include "../common/output_opts.h"
#include "../common/limits.h"
#include "dag_internal.h"

#define DAG_FORMAT "tsched.dag.v1"
#define LEVELS_FORMAT "tsched.levels.v1"

tsched_status tsched_dag_new(tsched_dag **out, uint32_t nodes)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_dag_new: out is NULL");
    *out = NULL;
    if (nodes > TS_DAG_MAX_NODES)
        return ts_error(TSCHED_E_TOO_LARGE, "nodes: %u exceeds the maximum of %u", nodes, TS_DAG_MAX_NODES);
    tsched_status st = ts_limit_check("nodes", nodes, "dag_nodes", ts_limits()->dag_nodes);
    if (st != TSCHED_OK)
        return st;
    tsched_dag *d = ts_calloc(1, sizeof *d);
    if (!d)
        return TSCHED_E_NOMEM;
    d->n = nodes;
    *out = d;
    return TSCHED_OK;
}

void tsched_dag_free(tsched_dag *dag)
{
    if (!dag)
        return;
    free(dag->e);
    free(dag);
}

tsched_status ts_dag_reserve(tsched_dag *dag, uint64_t extra)
{
    if (extra > (uint64_t)TS_DAG_MAX_EDGES - dag->m)
        return ts_error(TSCHED_E_TOO_LARGE, "edges: more than %u edges", TS_DAG_MAX_EDGES);
    return TS_GROW(dag->e, dag->cap, (size_t)dag->m + (size_t)extra);
}

tsched_status tsched_dag_add_edge(tsched_dag *dag, uint32_t u, uint32_t v, double w)
{
    if (!dag)
        return ts_error(TSCHED_E_INVALID, "tsched_dag_add_edge: dag is NULL");
    if (u >= dag->n || v >= dag->n)
        return ts_error(TSCHED_E_INVALID, "tsched_dag_add_edge: edge %u -> %u: node %u out of range [0, %u)", u, v,
                        u >= dag->n ? u : v, dag->n);
    if (u == v)
        return ts_error(TSCHED_E_INVALID, "tsched_dag_add_edge: edge %u -> %u is a self loop", u, v);
    if (!isfinite(w) || w < 0)
        return ts_error(TSCHED_E_RANGE, "tsched_dag_add_edge: edge %u -> %u: weight %g must be finite and >= 0", u,
                        v, w);
    tsched_status st = ts_dag_reserve(dag, 1);
    if (st != TSCHED_OK)
        return st;
    dag->e[dag->m++] = (ts_dag_edge){u, v, w};
    return TSCHED_OK;
}

uint32_t tsched_dag_nodes(const tsched_dag *dag) { return dag ? dag->n : 0; }

uint32_t tsched_dag_edges(const tsched_dag *dag) { return dag ? dag->m : 0; }

/* ---- adjacency, topological orders, cycles --------------------------------------------- */

tsched_status ts_dag_csr_build(ts_dag_csr *csr, const tsched_dag *dag)
{
    const uint32_t n = dag->n, m = dag->m;
    csr->off = ts_calloc((size_t)n + 1, sizeof *csr->off);
    csr->to = ts_malloc(m, sizeof *csr->to);
    csr->indeg = ts_calloc(n ? n : 1, sizeof *csr->indeg);
    if (!csr->off || !csr->to || !csr->indeg) {
        ts_dag_csr_free(csr);
        return TSCHED_E_NOMEM;
    }
    /* off[x] counts, then ends, then (filling back to front, which keeps each list in
     * insertion order) starts; off[n] stays m. */
    for (uint32_t k = 0; k < m; k++) {
        csr->off[dag->e[k].u]++;
        csr->indeg[dag->e[k].v]++;
    }
    for (uint32_t x = 1; x <= n; x++)
        csr->off[x] += csr->off[x - 1];
    for (uint32_t k = m; k-- > 0;)
        csr->to[--csr->off[dag->e[k].u]] = dag->e[k].v;
    return TSCHED_OK;
}

void ts_dag_csr_free(ts_dag_csr *csr)
{
    free(csr->off);
    free(csr->to);
    free(csr->indeg);
    csr->off = csr->to = csr->indeg = NULL;
}

/* A cycle among the nodes Kahn's algorithm could not place (indeg[x] > 0): iterative DFS
 * over those nodes until an edge reaches a node still on the stack. Reports the cycle. */
static tsched_status report_cycle(const tsched_dag *dag, const ts_dag_csr *csr, const uint32_t *indeg,
                                  const char *fn)
{
    const uint32_t n = dag->n;
    uint8_t *color = ts_calloc(n, 1); /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = ts_malloc(n, sizeof *stack);
    uint32_t *next = ts_malloc(n, sizeof *next); /* next out-edge slot to try */
    if (!color || !stack || !next) {
        free(color);
        free(stack);
        free(next);
        return TSCHED_E_NOMEM;
    }
    uint32_t top = 0, to = UINT32_MAX;
    for (uint32_t s = 0; s < n && to == UINT32_MAX; s++) {
        if (indeg[s] == 0 || color[s])
            continue;
        stack[top++] = s;
        color[s] = 1;
        next[s] = csr->off[s];
        while (top && to == UINT32_MAX) {
            uint32_t x = stack[top - 1];
            if (next[x] == csr->off[x + 1]) {
                color[x] = 2;
                top--;
                continue;
            }
            uint32_t y = csr->to[next[x]++];
            if (indeg[y] == 0 || color[y] == 2)
                continue;
            if (color[y] == 1) {
                to = y; /* the edge x -> y closes the cycle y .. x on the stack */
            } else {
                color[y] = 1;
                next[y] = csr->off[y];
                stack[top++] = y;
            }
        }
    }
    tsched_status st;
    if (to == UINT32_MAX) {
        st = ts_error(TSCHED_E_INTERNAL, "%s: Kahn's algorithm stalled but no cycle was found", fn);
    } else {
        /* The cycle is `to` .. stack top, closed by the edge back to `to`. */
        uint32_t start = top;
        while (start > 0 && stack[start - 1] != to)
            start--;
        start = start > 0 ? start - 1 : 0;
        char path[200];
        size_t len = 0;
        uint32_t shown = 0, count = top - start;
        for (uint32_t k = start; k < top && len < sizeof path; k++) {
            if (shown == 8 && count > 9) {
                len += (size_t)snprintf(path + len, sizeof path - len, "... -> ");
                k = top - 1;
            }
            if (len < sizeof path)
                len += (size_t)snprintf(path + len, sizeof path - len, "%u -> ", stack[k]);
            shown++;
        }
        if (len < sizeof path)
            snprintf(path + len, sizeof path - len, "%u", to);
        st = ts_error(TSCHED_E_CYCLE, "%s: cycle through node %u: %s (%u nodes); the graph must be acyclic", fn,
                      to, path, count);
    }
    free(color);
    free(stack);
    free(next);
    return st;
}

/* Kahn's algorithm; the ready set is a min-heap (canonical), drawn from (rng) or a stack
 * (neither: any order, for the acyclicity check, without the heap's log factor). The
 * nodes left unplaced, and so the cycle reported, do not depend on the order. */
static tsched_status kahn(uint32_t *order, const tsched_dag *dag, const ts_dag_csr *csr_in, ts_rng *rng,
                          int canonical, const char *fn)
{
    const uint32_t n = dag->n;
    ts_dag_csr own = {NULL, NULL, NULL};
    const ts_dag_csr *csr = csr_in;
    tsched_status st = TSCHED_OK;
    if (!csr) {
        if ((st = ts_dag_csr_build(&own, dag)) != TSCHED_OK)
            return st;
        csr = &own;
    }
    uint32_t *indeg = ts_malloc(n ? n : 1, sizeof *indeg);
    uint32_t *ready = ts_malloc(n ? n : 1, sizeof *ready);
    if (!indeg || !ready) {
        st = TSCHED_E_NOMEM;
        goto done;
    }
    if (n)
        memcpy(indeg, csr->indeg, (size_t)n * sizeof *indeg);
    uint32_t cnt = 0, placed = 0;
    for (uint32_t x = 0; x < n; x++)
        if (indeg[x] == 0)
            ready[cnt++] = x; /* ascending: a valid min-heap as it stands */
    while (cnt) {
        uint32_t x;
        if (rng) {
            uint32_t r = (uint32_t)ts_rng_below(rng, cnt);
            x = ready[r];
            ready[r] = ready[--cnt];
        } else if (!canonical) {
            x = ready[--cnt];
        } else {
            /* Pop the smallest id from the binary min-heap. */
            x = ready[0];
            uint32_t last = ready[--cnt], i = 0;
            for (;;) {
                uint32_t c = 2 * i + 1;
                if (c >= cnt)
                    break;
                if (c + 1 < cnt && ready[c + 1] < ready[c])
                    c++;
                if (ready[c] >= last)
                    break;
                ready[i] = ready[c];
                i = c;
            }
            if (cnt)
                ready[i] = last;
        }
        order[placed++] = x;
        for (uint32_t k = csr->off[x]; k < csr->off[x + 1]; k++) {
            uint32_t y = csr->to[k];
            if (--indeg[y] == 0) {
                if (rng || !canonical) {
                    ready[cnt++] = y;
                } else {
                    uint32_t i = cnt++;
                    while (i > 0 && ready[(i - 1) / 2] > y) {
                        ready[i] = ready[(i - 1) / 2];
                        i = (i - 1) / 2;
                    }
                    ready[i] = y;
                }
            }
        }
    }
    if (placed < n)
        st = report_cycle(dag, csr, indeg, fn);
done:
    free(indeg);
    free(ready);
    if (csr == &own)
        ts_dag_csr_free(&own);
    return st;
}

tsched_status ts_dag_topo_order(uint32_t *order, const tsched_dag *dag, const ts_dag_csr *csr, ts_rng *rng,
                                const char *fn)
{
    return kahn(order, dag, csr, rng, 1, fn);
}

tsched_status ts_dag_check_acyclic(const tsched_dag *dag, const char *fn)
{
    uint32_t *order = ts_malloc(dag->n ? dag->n : 1, sizeof *order);
    if (!order)
        return TSCHED_E_NOMEM;
    tsched_status st = kahn(order, dag, NULL, NULL, 0, fn);
    free(order);
    return st;
}

double ts_dag_cut_weight(const tsched_dag *dag, const uint32_t *levels)
{
    double s = 0;
    for (uint32_t k = 0; k < dag->m; k++)
        if (levels[dag->e[k].u] < levels[dag->e[k].v])
            s += dag->e[k].w;
    return s;
}

uint32_t ts_levels_compact(uint32_t *levels, uint32_t n)
{
    /* Levels are < n or small; count distinct values through a sorted copy of the used set. */
    uint32_t maxl = 0;
    for (uint32_t i = 0; i < n; i++)
        if (levels[i] > maxl)
            maxl = levels[i];
    if (n == 0)
        return 0;
    uint32_t *map = calloc((size_t)maxl + 1, sizeof *map);
    if (!map) {
        /* Fallback without memory: leave the levels as they are (still valid). */
        return maxl + 1;
    }
    for (uint32_t i = 0; i < n; i++)
        map[levels[i]] = 1;
    uint32_t used = 0;
    for (uint32_t l = 0; l <= maxl; l++)
        map[l] = map[l] ? used++ : 0;
    for (uint32_t i = 0; i < n; i++)
        levels[i] = map[levels[i]];
    free(map);
    return used;
}

/* ---- tsched.dag.v1 ----------------------------------------------------------------- */

/* A node index at edges[i][j]: a JSON integer (or integral number) in [0, n). */
static tsched_status read_node(uint32_t *out, const json_t *v, size_t i, int j, uint32_t n)
{
    double d;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 0 || (unsigned long long)x >= n)
            return ts_error(TSCHED_E_RANGE, "edges[%zu][%d]: node %lld out of range [0, %u)", i, j, (long long)x, n);
        *out = (uint32_t)x;
        return TSCHED_OK;
    }
    if (!json_is_real(v))
        return ts_error(TSCHED_E_TYPE, "edges[%zu][%d]: expected a node index (integer), got %s", i, j,
                        ts_json_type_name(v));
    d = json_real_value(v);
    if (!isfinite(d) || d != floor(d))
        return ts_error(TSCHED_E_RANGE, "edges[%zu][%d]: expected a whole node index, got %g", i, j, d);
    if (d < 0 || d >= n)
        return ts_error(TSCHED_E_RANGE, "edges[%zu][%d]: node %g out of range [0, %u)", i, j, d, n);
    *out = (uint32_t)d;
    return TSCHED_OK;
}

static tsched_status load_doc(tsched_dag **out, const json_t *root)
{
    tsched_status st;
    uint32_t n = 0;
    const json_t *edges = NULL;
    if ((st = ts_json_check_format(root, DAG_FORMAT)) ||
        (st = ts_json_u32(&n, root, "", "nodes", 1, 0, UINT32_MAX)) ||
        (st = ts_json_arr(&edges, root, "", "edges", 0)))
        return st;
    tsched_dag *d;
    if ((st = tsched_dag_new(&d, n)) != TSCHED_OK)
        return st;
    size_t m = edges ? json_array_size(edges) : 0;
    if ((st = ts_dag_reserve(d, m)) != TSCHED_OK)
        goto fail;
    for (size_t i = 0; i < m; i++) {
        const json_t *e = json_array_get(edges, i);
        if (!json_is_array(e)) {
            st = ts_error(TSCHED_E_TYPE, "edges[%zu]: expected an array [u, v, w], got %s", i, ts_json_type_name(e));
            goto fail;
        }
        if (json_array_size(e) != 3) {
            st = ts_error(TSCHED_E_TYPE, "edges[%zu]: expected an array [u, v, w] of 3 elements, got %zu", i,
                          json_array_size(e));
            goto fail;
        }
        uint32_t u, v;
        if ((st = read_node(&u, json_array_get(e, 0), i, 0, n)) ||
            (st = read_node(&v, json_array_get(e, 1), i, 1, n)))
            goto fail;
        const json_t *wv = json_array_get(e, 2);
        if (!json_is_number(wv)) {
            st = ts_error(TSCHED_E_TYPE, "edges[%zu][2]: expected a weight (number), got %s", i,
                          ts_json_type_name(wv));
            goto fail;
        }
        double w = json_number_value(wv);
        if (!isfinite(w) || w < 0) {
            st = ts_error(TSCHED_E_RANGE, "edges[%zu][2]: weight must be finite and >= 0, got %g", i, w);
            goto fail;
        }
        if (u == v) {
            st = ts_error(TSCHED_E_INVALID, "edges[%zu]: self loop on node %u (u must differ from v)", i, u);
            goto fail;
        }
        d->e[d->m++] = (ts_dag_edge){u, v, w};
    }
    if ((st = ts_dag_check_acyclic(d, "edges")) != TSCHED_OK)
        goto fail;
    *out = d;
    return TSCHED_OK;
fail:
    tsched_dag_free(d);
    return st;
}

tsched_status ts_dag_read_tree(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_dag **)slot, root);
}

/* One edge [u, v, w] of the pull reader; u and v are checked against n at the end (the
 * document may give "nodes" after "edges"). */
static int fast_edge(ts_jr *r, tsched_dag *d)
{
    double x[3];
    for (int j = 0; j < 3; j++) {
        int64_t i;
        int is_int;
        if (ts_jr_elem_next(r) != 1 || ts_jr_number(r, &x[j], &i, &is_int) != 0)
            return -1;
        if (j < 2 && (!is_int || i < 0 || i >= (int64_t)TS_DAG_MAX_NODES))
            return -1; /* integral reals and bad indices: the tree reader */
    }
    if (ts_jr_elem_next(r) != 0 || !(x[2] >= 0) || x[0] == x[1] || ts_dag_reserve(d, 1) != TSCHED_OK)
        return -1;
    d->e[d->m++] = (ts_dag_edge){(uint32_t)x[0], (uint32_t)x[1], x[2]};
    return 0;
}

tsched_status ts_dag_read_text(void *slot, const void *ctx, const char *json, size_t len)
{
    (void)ctx;
    tsched_dag *d = NULL;
    tsched_status st = tsched_dag_new(&d, 0);
    if (st != TSCHED_OK)
        return st;
    ts_jr r;
    ts_jr_init(&r, json, len);
    ts_jr_key k;
    const char *s;
    size_t n;
    double x;
    int64_t nodes = -1;
    int more, is_int, format_ok = 0, bad = ts_jr_object(&r) != 0;
    while (!bad && (more = ts_jr_key_next(&r, &k)) != 0) {
        int type = ts_jr_peek(&r);
        if (more < 0) {
            bad = 1;
        } else if (ts_jr_key_is(&k, "format")) {
            bad = ts_jr_string(&r, &s, &n) != 0 || strcmp(s, DAG_FORMAT) != 0;
            format_ok = 1;
        } else if (ts_jr_key_is(&k, "nodes")) {
            bad = ts_jr_number(&r, &x, &nodes, &is_int) != 0 || !is_int || nodes < 0 ||
                  nodes > (int64_t)TS_DAG_MAX_NODES || (uint64_t)nodes > ts_limits()->dag_nodes;
        } else if (ts_jr_key_is(&k, "edges") && type != TS_JR_NULL) {
            if ((bad = ts_jr_array(&r) != 0))
                break;
            while (!bad && (more = ts_jr_elem_next(&r)) != 0)
                bad = more < 0 || ts_jr_array(&r) != 0 || fast_edge(&r, d) != 0;
        } else {
            bad = ts_jr_skip(&r) != 0;
        }
    }
    if (!bad && format_ok && nodes >= 0 && ts_jr_finish(&r) == 0) {
        d->n = (uint32_t)nodes;
        for (uint32_t e = 0; e < d->m && !bad; e++)
            bad = d->e[e].u >= d->n || d->e[e].v >= d->n;
    } else {
        bad = 1;
    }
    ts_jr_free(&r);
    if (bad || ts_dag_check_acyclic(d, "edges") != TSCHED_OK) {
        tsched_dag_free(d);
        d = NULL;
        st = TSCHED_E_PARSE;
    }
    *(tsched_dag **)slot = d;
    return st;
}

tsched_status tsched_dag_load_string(tsched_dag **out, const char *json, size_t len)
{
    return ts_json_load_string_fast(out, ts_dag_read_text, ts_dag_read_tree, NULL, json, len,
                                    "tsched_dag_load_string");
}

tsched_status tsched_dag_load_file(tsched_dag **out, const char *path)
{
    return ts_json_load_file_fast(out, ts_dag_read_text, ts_dag_read_tree, NULL, path, "tsched_dag_load_file");
}

/* ---- tsched.levels.v1 ---------------------------------------------------------------- */

tsched_status tsched_levels_to_json(char **out, const uint32_t *levels, uint32_t n, double cut_weight)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_levels_to_json: out is NULL");
    *out = NULL;
    if (!levels && n > 0)
        return ts_error(TSCHED_E_INVALID, "tsched_levels_to_json: levels is NULL for %u nodes", n);
    if (!isfinite(cut_weight) || cut_weight < 0)
        return ts_error(TSCHED_E_RANGE, "cut_weight: must be finite and >= 0, got %g", cut_weight);
    /* streamed: the bytes of ts_json_dump() on the tree, without a node per level */
    ts_jw w;
    ts_jw_init(&w, NULL, TS_JSON_INDENT);
    ts_jw_open(&w, '{');
    ts_jw_key(&w, "format");
    ts_jw_str(&w, LEVELS_FORMAT);
    ts_jw_key(&w, "levels");
    ts_jw_open(&w, '[');
    for (uint32_t i = 0; i < n; i++) {
        ts_jw_elem(&w);
        ts_jw_int(&w, levels[i]);
    }
    ts_jw_close(&w, ']');
    ts_jw_key(&w, "cut_weight");
    ts_jw_real(&w, cut_weight);
    ts_jw_close(&w, '}');
    tsched_status st = ts_jw_finish(&w, out, NULL) == 0 ? TSCHED_OK : ts_error(TSCHED_E_NOMEM, "out of memory writing JSON");
    ts_jw_free(&w);
    return st;
}

tsched_status tsched_levels_to_json_opts(char **out, const uint32_t *levels, uint32_t n, double cut_weight,
                                         const tsched_output_opts *opts)
{
    static const char fn[] = "tsched_levels_to_json_opts";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_output_opts o;
    tsched_status st = ts_output_opts_in(&o, opts, fn);
    if (st == TSCHED_OK)
        st = tsched_levels_to_json(out, levels, n, cut_weight);
    /* the indented writer's text on one line: every token keeps its text */
    return ts_output_finish(out, st, &o);
}
