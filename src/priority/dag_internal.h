/* Internal: the layout of a contention DAG and the compression algorithms, shared with the
 * CRUX code (crux.c builds its DAG with tsched_dag_new/tsched_dag_add_edge or fills the
 * arrays below directly, then calls tsched_dag_compress or the functions here) and with the
 * kcut tests. See doc/priority.md, "Compression". */
#ifndef TS_PRIORITY_DAG_INTERNAL_H
#define TS_PRIORITY_DAG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/rng.h"
#include "topo-sched/priority.h"

/* Node ids are uint32_t; a DAG holds at most 2^26 nodes (the positions of a topological
 * order, block boundaries and DP arguments then all fit in 32 bits with room to spare). */
#define TS_DAG_MAX_NODES (UINT32_C(1) << 26)
/* Edge counts are uint32_t in the API; one value is kept free. */
#define TS_DAG_MAX_EDGES (UINT32_MAX - 1)
/* tsched_kcut_options.algo = TSCHED_KCUT_EXHAUSTIVE accepts at most this many nodes. */
#define TS_KCUT_EXHAUSTIVE_MAX 10

/* One edge u -> v (u above v) of weight w: finite, >= 0, u != v, both < n. Parallel edges
 * are allowed and count separately (their weights add up in every cut). */
typedef struct ts_dag_edge {
    uint32_t u, v;
    double w;
} ts_dag_edge;

/* A plain edge list (16 bytes an edge): cheap to build, turned into CSR by whoever needs
 * adjacency. The handle caches nothing, so a const DAG can be compressed from several
 * threads at once. Cycles are allowed in the handle and refused by the loader and the
 * compressor. */
struct tsched_dag {
    uint32_t n;     /* nodes, <= TS_DAG_MAX_NODES */
    uint32_t m;     /* edges used in `e` */
    size_t cap;     /* capacity of `e` */
    ts_dag_edge *e; /* in insertion order */
};

/* The caller's K-cut options over the defaults (DESIGN 3 size rule); NULL = defaults. */
tsched_status ts_kcut_options_read(tsched_kcut_options *out, const tsched_kcut_options *opts);

/* Memory budget of the K-cut DP's argument table ((min(K, n) - 1) x (n + 1) uint32_t), the
 * one table that grows with n x K (doc/priority.md, "Limits"). */
#define TS_KCUT_TABLE_BYTES (UINT64_C(1) << 30)

/* Every bound of a compression of n nodes, checked before allocating: K >= 1 and within
 * tsched_limits.kcut_levels, a known algorithm, for crux 1 <= orders <= kcut_orders and the
 * table budget, for exhaustive n <= 10. Errors: TSCHED_E_RANGE, TSCHED_E_TOO_LARGE naming the
 * limit, TSCHED_E_INVALID. */
tsched_status ts_kcut_check(tsched_kcut_algo algo, uint32_t K, uint32_t orders, uint32_t n);

/* Worker threads of a crux K-cut of `orders` orders of an n-node, m-edge DAG with K levels:
 * the option `opt` (0 = the online CPUs), at most one per order, at most as many as DP
 * tables fit in TS_KCUT_TABLE_BYTES together, and at most as many as fit in the calling
 * thread's tsched_limits.kcut_memory. TSCHED_E_TOO_LARGE, naming the limit, when not even
 * one worker fits. */
tsched_status ts_kcut_threads(uint32_t *out, uint32_t opt, uint32_t orders, uint32_t n, uint32_t m, uint32_t K);

/* Make room for `extra` more edges. Errors: TSCHED_E_TOO_LARGE, TSCHED_E_NOMEM. */
tsched_status ts_dag_reserve(tsched_dag *dag, uint64_t extra);

/* Out-adjacency in CSR form: the out-edges of node x go to to[k] for k in
 * off[x] .. off[x+1]-1, in insertion order (the targets themselves, not edge indices: the
 * random orders' Kahn loop reads them without a second indirection). */
typedef struct ts_dag_csr {
    uint32_t *off; /* n + 1 */
    uint32_t *to;  /* m target nodes */
    uint32_t *indeg; /* n: each node's in-degree (every draw's Kahn loop starts from a copy) */
} ts_dag_csr;

tsched_status ts_dag_csr_build(ts_dag_csr *csr, const tsched_dag *dag);
void ts_dag_csr_free(ts_dag_csr *csr);

/* A topological order of the DAG into `order` (n entries) by Kahn's algorithm (the BFS
 * topological sort). rng == NULL: the canonical order, the smallest ready node first (for
 * a DAG whose edges all go from a lower to a higher id this is 0, 1, ..., n-1). Otherwise
 * the next node is drawn uniformly at random from the ready set (Algorithm 1's
 * RandomTopoOrder). `csr` may be NULL (built and freed here). `fn` prefixes errors.
 * Errors: TSCHED_E_CYCLE naming a node on a cycle and the cycle, TSCHED_E_NOMEM. */
tsched_status ts_dag_topo_order(uint32_t *order, const tsched_dag *dag, const ts_dag_csr *csr, ts_rng *rng,
                                const char *fn);

/* TSCHED_OK if acyclic, else TSCHED_E_CYCLE as above. */
tsched_status ts_dag_check_acyclic(const tsched_dag *dag, const char *fn);

/* Sum of w over edges with levels[u] < levels[v], added in edge order (so the same levels
 * always give the same bits). */
double ts_dag_cut_weight(const tsched_dag *dag, const uint32_t *levels);

/* Renumber the levels actually used to 0, 1, ... in their order (empty levels removed);
 * validity and the cut are unchanged. Returns the number of levels used. */
uint32_t ts_levels_compact(uint32_t *levels, uint32_t n);

/* Tests only: the widest way the K-cut DP may count list positions (0 binary search, 1
 * SSE2, 2 AVX-512; the CPU's own limit applies too). Every way gives the same result.
 * Returns the previous cap; not thread-safe (set it before compressing). */
int ts_kcut_set_isa(int cap);

/* The exact max K-cut of one topological order (§4.3, Eq. 4): `order` lists the n nodes,
 * the nodes are split into at most K consecutive blocks (empty blocks allowed), block b
 * gets level b, and the split maximises the weight of edges between different blocks.
 * Levels are compacted (ts_levels_compact); *cut_weight (may be NULL) is
 * ts_dag_cut_weight of the answer. Layered DP f(i,k) = max_j f(j,k-1) + C(j,i) with the
 * divide-and-conquer optimisation (argmax monotone in i by the quadrangle inequality) and
 * C evaluated by a sliding window: O(K n log n log d + m) time, O(K n + m) memory.
 * Ties: the smallest j, so the last block is as large as possible.
 * Errors: TSCHED_E_INVALID (`order` not a permutation, or an edge going backwards in it),
 * TSCHED_E_RANGE (K < 1), TSCHED_E_NOMEM. */
tsched_status ts_kcut_order(uint32_t *levels, double *cut_weight, const tsched_dag *dag, const uint32_t *order,
                            uint32_t K);

/* Baselines over a given order (any topological order of the DAG): valid by construction.
 * Sincronia: order[0..K-2] get levels 0..K-2, everything else K-1. Varys: K consecutive
 * groups whose sizes differ by at most one, the larger first (n < K: one node a level). */
void ts_kcut_sincronia(uint32_t *levels, const uint32_t *order, uint32_t n, uint32_t K);
void ts_kcut_varys(uint32_t *levels, const uint32_t *order, uint32_t n, uint32_t K);

/* The optimum over every valid compression with at most K levels (n <= 10), by a DP over
 * chains of down-closed node sets: O(3^n K). The DAG must be acyclic. Levels compacted.
 * Errors: TSCHED_E_INVALID (n > 10), TSCHED_E_RANGE (K < 1), TSCHED_E_NOMEM. */
tsched_status ts_kcut_exhaustive(uint32_t *levels, double *cut_weight, const tsched_dag *dag, uint32_t K);

/* The tsched.dag.v1 readers of the loaders: the jansson tree reader, whose errors are the
 * contract, and the pull reader tried first (json.h, ts_json_load_string_fast), which must
 * give the same DAG or fail. */
struct json_t;
tsched_status ts_dag_read_tree(void *slot, const void *ctx, const struct json_t *root);
tsched_status ts_dag_read_text(void *slot, const void *ctx, const char *json, size_t len);

#endif
