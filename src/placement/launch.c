/* Launch files of a placement (doc/export.md): the per-task host file that Slurm's arbitrary
 * distribution reads, and the pod order (tsched.pod-order.v1) that pins indexed pods to the
 * placement's nodes. Both list rank r's node T times, ranks in order (DESIGN 5.3). */
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../common/k8s_names.h"
#include "../common/sbuf.h"
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
    ts_sbuf b;
    ts_sbuf_init(&b);
    for (size_t r = 0; r < cells; r++) {
        const char *name = tsched_topology_node_name(t, rank_node(p, r));
        for (uint32_t k = 0; k < per; k++) {
            ts_sbuf_puts(&b, name);
            ts_sbuf_putc(&b, '\n');
        }
    }
    return ts_sbuf_take(out, &b);
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
    json_t *root = json_object(), *pods = json_array();
    if (!root || !pods) {
        json_decref(root);
        json_decref(pods);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    if ((st = ts_json_set(root, "format", json_string("tsched.pod-order.v1"))) ||
        (st = ts_json_set(root, "job", json_string(job_name ? job_name : ""))) ||
        (st = ts_json_set(root, "index_label", json_string(key))) || (st = ts_json_set(root, "pods", pods)))
        goto out;
    size_t cells = (size_t)p->rows * p->cols, index = 0;
    for (size_t r = 0; r < cells; r++) {
        const char *name = tsched_topology_node_name(t, rank_node(p, r));
        for (uint32_t k = 0; k < per; k++, index++) {
            json_t *pod = json_object(), *sel;
            if ((st = ts_json_push(pods, pod)) || (st = ts_json_set(pod, "index", json_integer((json_int_t)index))) ||
                (st = ts_json_set(pod, "node", json_string(name))) ||
                (st = ts_json_set(pod, "nodeSelector", sel = json_object())) ||
                (st = ts_json_set(sel, "kubernetes.io/hostname", json_string(name))))
                goto out;
        }
    }
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}
