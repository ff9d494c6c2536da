/* Launch files of a placement (doc/export.md): the per-task host file that Slurm's arbitrary
 * distribution reads, and the pod order (tsched.pod-order.v1) that pins indexed pods to the
 * placement's nodes. Both list rank r's node T times, ranks in order (DESIGN 5.3).
 *
 * Both grow with the placement times T (up to 4096): a few hundred bytes of request can ask
 * for gigabytes. Their size is computed exactly before anything is written and checked
 * against tsched_limits.output_bytes; the text is then written once into a buffer of exactly
 * that size (no JSON tree, no copies), so memory is the output itself. */
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "../common/json_write.h"
#include "../common/k8s_names.h"
#include "../common/limits.h"
#include "../common/text.h"
#include "placement_internal.h"

/* More tasks or pods per node than any machine runs: a typo, not a request. */
#define TS_MAX_TASKS_PER_NODE 4096u
#define DEFAULT_INDEX_LABEL "batch.kubernetes.io/job-completion-index"

static tsched_status check(const tsched_placement *p, const tsched_topology *t, uint32_t per_node, const char *fn,
                           const char *field)
{
    if (!p || !t)
        return ts_error(TSCHED_E_INVALID, "%s: placement or topology is NULL", fn);
    tsched_status st = tsched_topology_check_identity(t, p->fabric_id, p->fabric_gen, fn);
    if (st != TSCHED_OK)
        return st;
    if (per_node > TS_MAX_TASKS_PER_NODE)
        return ts_error(TSCHED_E_RANGE, "%s: %s = %u is above %u", fn, field, per_node, TS_MAX_TASKS_PER_NODE);
    return TSCHED_OK;
}

/* Node of rank r: cell (r mod rows, r / rows). */
static uint32_t rank_node(const tsched_placement *p, size_t r)
{
    return p->nodes[(r % p->rows) * p->cols + r / p->rows];
}

tsched_status tsched_placement_hostfile_per_task(char **out, const tsched_placement *p, const tsched_topology *t,
                                                 uint32_t tasks_per_node)
{
    static const char fn[] = "tsched_placement_hostfile_per_task";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_status st = check(p, t, tasks_per_node, fn, "tasks_per_node");
    if (st != TSCHED_OK)
        return st;
    size_t cells = (size_t)p->rows * p->cols;
    uint32_t per = tasks_per_node;
    if (per == 0 && cells > 0) {
        per = tsched_topology_node_gpus(t, rank_node(p, 0));
        for (size_t r = 1; r < cells; r++) {
            uint32_t g = tsched_topology_node_gpus(t, rank_node(p, r));
            if (g != per)
                return ts_error(TSCHED_E_INVALID,
                                "%s: tasks_per_node is 0 but the nodes have different GPU counts (%s: %u, %s: %u)", fn,
                                tsched_topology_node_name(t, rank_node(p, 0)), per,
                                tsched_topology_node_name(t, rank_node(p, r)), g);
        }
    }
    /* cells <= 2^32 nodes, per <= 4096, a name <= 4096 bytes: no overflow in 64 bits */
    uint64_t len = 0;
    for (size_t r = 0; r < cells; r++)
        len += (uint64_t)per * (strlen(tsched_topology_node_name(t, rank_node(p, r))) + 1);
    if ((st = ts_limit_check("tsched_placement_hostfile_per_task: host file bytes", len, "output_bytes",
                             ts_limits()->output_bytes)) != TSCHED_OK)
        return st;
    if (len >= SIZE_MAX)
        return ts_error(TSCHED_E_NOMEM, "%s: %llu bytes do not fit in memory", fn, (unsigned long long)len);
    char *s = ts_malloc((size_t)len + 1, 1), *w = s;
    if (!s)
        return TSCHED_E_NOMEM;
    for (size_t r = 0; r < cells; r++) {
        const char *name = tsched_topology_node_name(t, rank_node(p, r));
        size_t n = strlen(name);
        for (uint32_t k = 0; k < per; k++) {
            memcpy(w, name, n);
            w += n;
            *w++ = '\n';
        }
    }
    *w = '\0';
    *out = s;
    return TSCHED_OK;
}

/* Total decimal digits of the integers 0 .. n-1. */
static uint64_t digits_below(uint64_t n)
{
    uint64_t total = n ? 1 : 0, lo = 1; /* "0" */
    for (uint64_t d = 1; lo < n; d++, lo *= 10) {
        uint64_t hi = lo > UINT64_MAX / 10 ? UINT64_MAX : lo * 10;
        total += d * ((hi < n ? hi : n) - lo);
        if (hi == UINT64_MAX)
            break;
    }
    return total;
}

/* The node's kubernetes.io/hostname label value: the one an import recorded (it differs from
 * the node name for FQDN names or cloud instance ids), else the name, as kubelet sets it. */
static const char *hostname(const tsched_topology *t, uint32_t n)
{
    const char *h = tsched_topology_node_hostname(t, n);
    return h ? h : tsched_topology_node_name(t, n);
}

/* The selector must be a label value the API server accepts, and it cannot be sanitized: a
 * changed value would select no node. */
static tsched_status hostname_ok(const tsched_topology *t, uint32_t n, const char *fn)
{
    const char *h = hostname(t, n);
    size_t len = strlen(h);
    if (ts_k8s_label_value_ok(h, len, 0))
        return TSCHED_OK;
    char qn[TS_TEXT_QUOTE_CAP(80)], qh[TS_TEXT_QUOTE_CAP(80)];
    const char *name = tsched_topology_node_name(t, n);
    ts_text_quote(qn, sizeof qn, name, strlen(name), 80);
    ts_text_quote(qh, sizeof qh, h, len, 80);
    if (len > 63)
        return ts_error(TSCHED_E_RANGE,
                        "%s: node %s: kubernetes.io/hostname value %s is %zu characters, over the 63 of a label value "
                        "(record the node's real label with nodes[i].hostname_label, as import-k8s-nodes does)",
                        fn, qn, qh, len);
    return ts_error(TSCHED_E_FORMAT,
                    "%s: node %s: kubernetes.io/hostname value %s is not a label value "
                    "([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?; record the real label with nodes[i].hostname_label)",
                    fn, qn, qh);
}

tsched_status tsched_placement_pod_order(char **out, const tsched_placement *p, const tsched_topology *t,
                                         const char *job_name, const char *index_label, uint32_t pods_per_node)
{
    static const char fn[] = "tsched_placement_pod_order";
    if (!out)
        return ts_error(TSCHED_E_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    tsched_status st = check(p, t, pods_per_node, fn, "pods_per_node");
    if (st != TSCHED_OK)
        return st;
    const char *key = index_label ? index_label : DEFAULT_INDEX_LABEL;
    if (!ts_k8s_label_key_ok(key)) {
        char q[TS_TEXT_QUOTE_CAP(80)];
        return ts_error(TSCHED_E_FORMAT, "index_label: %s is not a valid Kubernetes label key",
                        ts_text_quote(q, sizeof q, key, strlen(key), 80));
    }
    uint32_t per = pods_per_node ? pods_per_node : 1;
    size_t cells = (size_t)p->rows * p->cols;

    /* Pod i on node N, written as ts_json_write lays out the tree (two spaces a level, the
     * pods at depth 2), is POD_FIXED bytes plus the digits of i, twice N quoted, and its
     * separator from the previous pod: "\n    " for the first, ",\n    " after. */
    enum { POD_FIXED = 1 /* { */ + 16 /* \n6 "index": */ + 16 /* ,\n6 "node": */ +
                       25 /* ,\n6 "nodeSelector": { */ + 35 /* \n8 "kubernetes.io/hostname": */ +
                       8 /* \n6 } */ + 6 /* \n4 } */ };
    ts_jw w;
    ts_jw_init(&w, NULL, TS_JSON_INDENT);
    ts_jw_open(&w, '{');
    ts_jw_key(&w, "format");
    ts_jw_str(&w, "tsched.pod-order.v1");
    ts_jw_key(&w, "job");
    ts_jw_str(&w, job_name ? job_name : "");
    ts_jw_key(&w, "index_label");
    ts_jw_str(&w, key);
    ts_jw_key(&w, "pods");
    ts_jw_open(&w, '[');
    uint64_t pods = (uint64_t)cells * per;
    /* the head so far, the pods but their names, then "\n  ]\n}" (no pods: "]\n}") */
    uint64_t len = w.b.len + digits_below(pods) + (pods ? pods * (POD_FIXED + 6) - 1 + 6 : 3);
    for (size_t r = 0; r < cells && !w.b.failed; r++) {
        uint32_t n = rank_node(p, r);
        if ((st = hostname_ok(t, n, fn)) != TSCHED_OK) {
            ts_jw_free(&w);
            return st;
        }
        char *q = ts_jw_quote(tsched_topology_node_name(t, n)), *h = ts_jw_quote(hostname(t, n));
        if (!q || !h)
            w.b.failed = 1;
        else
            len += (uint64_t)per * (strlen(q) + strlen(h));
        free(q);
        free(h);
    }
    if (w.b.failed) {
        ts_jw_free(&w);
        return ts_error(TSCHED_E_NOMEM, "%s: out of memory writing the pod order", fn);
    }
    if ((st = ts_limit_check("tsched_placement_pod_order: pod order bytes", len, "output_bytes",
                             ts_limits()->output_bytes)) != TSCHED_OK) {
        ts_jw_free(&w);
        return st;
    }
    /* one buffer of the final size: the writer never grows it */
    char *buf = len < SIZE_MAX ? realloc(w.b.p, (size_t)len + 1) : NULL;
    if (!buf) {
        ts_jw_free(&w);
        return ts_error(TSCHED_E_NOMEM, "%s: out of memory for %llu bytes of pod order", fn, (unsigned long long)len);
    }
    w.b.p = buf;
    w.b.cap = (size_t)len + 1;
    uint64_t index = 0;
    for (size_t r = 0; r < cells; r++) {
        const char *name = tsched_topology_node_name(t, rank_node(p, r)), *host = hostname(t, rank_node(p, r));
        for (uint32_t k = 0; k < per; k++, index++) {
            ts_jw_elem(&w);
            ts_jw_open(&w, '{');
            ts_jw_key(&w, "index");
            ts_jw_int(&w, (long long)index);
            ts_jw_key(&w, "node");
            ts_jw_str(&w, name);
            ts_jw_key(&w, "nodeSelector");
            ts_jw_open(&w, '{');
            ts_jw_key(&w, "kubernetes.io/hostname");
            ts_jw_str(&w, host);
            ts_jw_close(&w, '}');
            ts_jw_close(&w, '}');
        }
    }
    ts_jw_close(&w, ']');
    ts_jw_close(&w, '}');
    size_t got = 0;
    if (ts_jw_finish(&w, out, &got) != 0) {
        ts_jw_free(&w);
        return ts_error(TSCHED_E_NOMEM, "%s: out of memory writing the pod order", fn);
    }
    if (got != len) { /* the arithmetic above and the writer's layout disagree */
        tsched_free(*out);
        *out = NULL;
        return ts_error(TSCHED_E_INTERNAL, "%s: wrote %zu bytes, computed %llu", fn, got, (unsigned long long)len);
    }
    return TSCHED_OK;
}
