/* Pools of a fabric (doc/cell.md §1): the nodes of one GPU type and one GPU count per node,
 * named "TYPE/G", in the byte order of their names; U = min over the pool's nodes of
 * nics * nic_gbps / gpus. Every node counts, up or down, free or busy (the state changes,
 * the pools do not); nodes without GPUs belong to no pool. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../topology/topology_paths.h"
#include "cell_internal.h"

void ts_pools_free(ts_pools *pools)
{
    if (!pools)
        return;
    for (uint32_t i = 0; i < pools->n; i++) {
        free(pools->p[i].name);
        free(pools->p[i].gpu_type);
        free(pools->p[i].nodes);
    }
    free(pools->p);
    pools->p = NULL;
    pools->n = 0;
}

/* One node with its pool name, sorted by (name, node). */
typedef struct pool_node {
    char *name;
    uint32_t node;
} pool_node;

static int pool_node_cmp(const void *a, const void *b)
{
    const pool_node *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Fill pool `p` from the run pn[0..cnt) of one name. */
static tsched_status pool_fill(ts_pool *p, const tsched_topology *topo, const pool_node *pn, uint32_t cnt)
{
    uint32_t first = pn[0].node;
    const char *type = tsched_topology_node_gpu_type(topo, first);
    p->G = tsched_topology_node_gpus(topo, first);
    if (!(p->name = ts_strdup(pn[0].name)) || !(p->gpu_type = ts_strdup(type)) ||
        !(p->nodes = ts_malloc(cnt, sizeof *p->nodes)))
        return TSCHED_E_NOMEM;
    p->nnodes = cnt;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t v = pn[i].node;
        double u = (double)tsched_topology_node_nics(topo, v) * tsched_topology_node_nic_gbps(topo, v) / p->G;
        if (i == 0 || u < p->U_gbps)
            p->U_gbps = u;
        p->nodes[i] = v;
    }
    return TSCHED_OK;
}

tsched_status ts_pools_build(ts_pools *out, const tsched_topology *topo)
{
    if (!out || !topo)
        return ts_error(TSCHED_E_INVALID, "ts_pools_build: out or topo is NULL");
    out->n = 0;
    out->p = NULL;
    if (!ts_topology_built(topo))
        return ts_error(TSCHED_E_INVALID, "topology: the fabric is not built");
    uint32_t nn = tsched_topology_num_nodes(topo), cnt = 0;
    pool_node *pn = nn ? ts_calloc(nn, sizeof *pn) : NULL;
    if (nn && !pn)
        return TSCHED_E_NOMEM;
    tsched_status st = TSCHED_OK;
    for (uint32_t v = 0; v < nn; v++) {
        uint32_t g = tsched_topology_node_gpus(topo, v);
        if (g == 0)
            continue;
        const char *type = tsched_topology_node_gpu_type(topo, v);
        size_t len = strlen(type) + 12; /* "/" + up to 10 digits + NUL */
        if (!(pn[cnt].name = ts_malloc(len, 1))) {
            st = TSCHED_E_NOMEM;
            goto done;
        }
        snprintf(pn[cnt].name, len, "%s/%" PRIu32, type, g);
        pn[cnt++].node = v;
    }
    if (cnt > 1)
        qsort(pn, cnt, sizeof *pn, pool_node_cmp);
    uint32_t npools = 0;
    for (uint32_t i = 0; i < cnt; i++)
        npools += i == 0 || strcmp(pn[i].name, pn[i - 1].name) != 0;
    if (npools && !(out->p = ts_calloc(npools, sizeof *out->p))) {
        st = TSCHED_E_NOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < cnt;) {
        uint32_t j = i + 1;
        while (j < cnt && strcmp(pn[j].name, pn[i].name) == 0)
            j++;
        ts_pool *p = &out->p[out->n++];
        if ((st = pool_fill(p, topo, pn + i, j - i)) != TSCHED_OK)
            goto done;
        i = j;
    }
done:
    for (uint32_t i = 0; i < cnt; i++)
        free(pn[i].name);
    free(pn);
    if (st != TSCHED_OK)
        ts_pools_free(out);
    return st;
}

uint32_t ts_pools_find(const ts_pools *pools, const char *name)
{
    if (!pools || !name)
        return UINT32_MAX;
    uint32_t lo = 0, hi = pools->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(pools->p[mid].name, name);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

tsched_status tsched_cell_pools(char ***names, uint32_t *count, const tsched_topology *topo)
{
    if (!names || !count || !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_cell_pools: names, count or topo is NULL");
    *names = NULL;
    *count = 0;
    ts_pools pools;
    tsched_status st = ts_pools_build(&pools, topo);
    if (st != TSCHED_OK)
        return st;
    if (pools.n == 0)
        return TSCHED_OK;
    /* One block: the pointer array, then the strings. */
    size_t bytes = (size_t)pools.n * sizeof(char *);
    for (uint32_t i = 0; i < pools.n; i++)
        bytes += strlen(pools.p[i].name) + 1;
    char **arr = ts_malloc(bytes, 1);
    if (!arr) {
        ts_pools_free(&pools);
        return TSCHED_E_NOMEM;
    }
    char *s = (char *)(arr + pools.n);
    for (uint32_t i = 0; i < pools.n; i++) {
        size_t len = strlen(pools.p[i].name) + 1;
        memcpy(s, pools.p[i].name, len);
        arr[i] = s;
        s += len;
    }
    *names = arr;
    *count = pools.n;
    ts_pools_free(&pools);
    return TSCHED_OK;
}

/* One pool's figures without building the list: tsched_cell_estimate is called per Cell
 * by CLI users and benchmarks, and sorting every node's pool name each time cost up to 1 ms
 * on a 3,000-node fabric. One pass, no allocation. */
uint32_t ts_pool_lookup(const char **gpu_type, uint32_t *G, double *U_gbps, const tsched_topology *topo,
                        const char *pool)
{
    const char *slash = strrchr(pool, '/');
    if (!slash || slash == pool || !slash[1])
        return 0;
    uint64_t g = 0;
    for (const char *c = slash + 1; *c; c++) {
        if (*c < '0' || *c > '9' || g > UINT32_MAX / 10)
            return 0;
        g = g * 10 + (uint64_t)(*c - '0');
    }
    if (g == 0 || g > UINT32_MAX || (slash[1] == '0'))
        return 0;
    size_t len = (size_t)(slash - pool);
    uint32_t nn = tsched_topology_num_nodes(topo), count = 0;
    for (uint32_t v = 0; v < nn; v++) {
        if (tsched_topology_node_gpus(topo, v) != g)
            continue;
        const char *type = tsched_topology_node_gpu_type(topo, v);
        if (strncmp(type, pool, len) != 0 || type[len] != '\0')
            continue;
        double u = (double)tsched_topology_node_nics(topo, v) * tsched_topology_node_nic_gbps(topo, v) / (double)g;
        if (count == 0 || u < *U_gbps)
            *U_gbps = u;
        if (count++ == 0)
            *gpu_type = type;
    }
    if (count)
        *G = (uint32_t)g;
    return count;
}
