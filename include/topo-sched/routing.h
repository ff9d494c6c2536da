/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file routing.h
 * @brief Which path every flow takes ("Routing for Large ML Models", seed 004): greedy
 *        least-congested assignment (Algorithm 1) and its component-parallel run, ECMP,
 *        balanced ECMP, the ILP optimum, max-min fair rates, and re-routing after failures.
 */
#ifndef TOPO_SCHED_ROUTING_H
#define TOPO_SCHED_ROUTING_H

#include <stdio.h>

#include "common.h"
#include "topology.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Path assignment algorithms (DESIGN 6 `--algo`). */
typedef enum tsched_route_algo {
    TSCHED_ROUTE_GREEDY = 0,        /**< Algorithm 1: least congested path, flows in order */
    TSCHED_ROUTE_ECMP = 1,          /**< seeded hash over the equal-cost paths */
    TSCHED_ROUTE_BALANCED_ECMP = 2, /**< a seeded random path among the least loaded so far */
    TSCHED_ROUTE_ILP = 3            /**< minimise the largest trunk load exactly (GLPK) */
} tsched_route_algo;

/** Name of an algorithm ("greedy", "ecmp", "balanced-ecmp", "ilp"); "?" if unknown. */
TSCHED_API const char *tsched_route_algo_name(tsched_route_algo algo);
/** Algorithm from its name. Errors: TSCHED_E_FORMAT naming the unknown name. */
TSCHED_API tsched_status tsched_route_algo_from_name(tsched_route_algo *algo, const char *name);

/** Routing options; initialise with tsched_route_options_init() (fields may be appended). */
typedef struct tsched_route_options {
    size_t size;             /**< sizeof(tsched_route_options) */
    tsched_route_algo algo;  /**< default TSCHED_ROUTE_GREEDY */
    uint64_t seed;           /**< ecmp and balanced-ecmp; default 1 */
    uint32_t threads;        /**< greedy: worker threads over independent components; 0 or 1 = one */
    uint32_t time_limit_ms;  /**< ilp: bounds the whole call (listing, model, solve); 0 = 10,000 ms */
    uint32_t flags;          /**< TSCHED_ROUTE_NO_RATES: paths only, rates left at 0 */
    /**
     * Background load: flows already on each directed link `2 * trunk + d` (as in
     * tsched_path), an array of 2 * tsched_topology_num_trunks() entries owned by the caller
     * and read during the call only; default NULL = none. greedy and balanced-ecmp add it to
     * their per-link flow counts when they choose paths; ecmp and ilp ignore it. The result's
     * link counts (tsched_routes_link_flows(), tsched_routes_max_link_flows()) and rates count
     * only this call's flows. Only the entries of links the flows' candidate paths use are
     * read; counts above 2^32 - 1 minus the number of flows compare as that value.
     */
    const uint32_t *base_link_flows;
} tsched_route_options;

/** tsched_route_options.flags: skip the max-min rate computation (paths only). */
#define TSCHED_ROUTE_NO_RATES 1u

/** Fill `opts` with the defaults and set its `size`. */
TSCHED_API void tsched_route_options_init(tsched_route_options *opts);

/** Opaque routing result (`tsched.routes.v1`). */
typedef struct tsched_routes tsched_routes;

/** Opaque reusable router (see tsched_router_new()). */
typedef struct tsched_router tsched_router;

/**
 * Assign every flow of `flows` one of the equal-cost paths of `topo` between its NICs
 * (surviving paths only) and compute max-min fair rates. The caller frees `*out` with
 * tsched_routes_free(). `opts` NULL means the defaults. Memory grows with the flows and the
 * leaf pairs they use, not with the fabric. Errors: TSCHED_E_INVALID (a NULL argument, named;
 * a flow naming a node or NIC the fabric lacks), TSCHED_E_NO_PATH naming the first flow
 * without a surviving path, TSCHED_E_TOO_LARGE (more flows than the `flows` limit),
 * TSCHED_E_SOLVER, TSCHED_E_TIMEOUT (ilp: the time limit, which runs from the call's entry,
 * passed before greedy's start answer existed). ILP answers stopped by the time limit after
 * that are returned with status "feasible".
 */
TSCHED_API tsched_status tsched_route(tsched_routes **out, const tsched_topology *topo, const tsched_flows *flows,
                                      const tsched_route_options *opts);

/**
 * Re-route after failures: every flow whose path in `prev` survives in `topo` keeps it;
 * the others are assigned by greedy given the kept flows' loads (in flow order). `flows`
 * must be the set `prev` was computed for. Errors as tsched_route(), and TSCHED_E_MISMATCH
 * when `topo` is not the fabric `prev` was computed on (identity and shape generation).
 */
TSCHED_API tsched_status tsched_reroute(tsched_routes **out, const tsched_routes *prev, const tsched_topology *topo,
                                        const tsched_flows *flows);

/**
 * A router keeps the candidate paths of the leaf pairs it has seen, so that a scheduler
 * that routes flow sets on one fabric again and again lists each pair's paths once. It
 * notices state changes of `topo` (up/down) and starts afresh after one. `topo` must
 * outlive the router. A router is used by one thread at a time; the routes it returns are
 * independent of it. The caller frees `*out` with tsched_router_free().
 */
TSCHED_API tsched_status tsched_router_new(tsched_router **out, const tsched_topology *topo);
/** Free a router. NULL is a no-op. */
TSCHED_API void tsched_router_free(tsched_router *router);
/** tsched_route() through a router's path cache; same answers, same errors (`opts` may be NULL), and
 *  TSCHED_E_MISMATCH if the router's fabric changed shape since tsched_router_new(). */
TSCHED_API tsched_status tsched_router_route(tsched_routes **out, tsched_router *router, const tsched_flows *flows,
                                             const tsched_route_options *opts);

/** Free a routing result. NULL is a no-op. */
TSCHED_API void tsched_routes_free(tsched_routes *routes);

/* Getters given a NULL `routes` return 0 (TSCHED_ROUTE_GREEDY for the algorithm, "" for
 * the status). */
/** Number of flows routed. */
TSCHED_API uint32_t tsched_routes_count(const tsched_routes *routes);
/** Copy the path of flow `i` into `*path`. Errors: TSCHED_E_INVALID for a bad index. */
TSCHED_API tsched_status tsched_routes_path(tsched_path *path, const tsched_routes *routes, uint32_t i);
/** Max-min fair rate of flow `i`, Gbit/s (0 for a bad index). */
TSCHED_API double tsched_routes_rate(const tsched_routes *routes, uint32_t i);
/** Largest number of flows on one trunk in one direction. */
TSCHED_API uint32_t tsched_routes_max_link_flows(const tsched_routes *routes);
/** Flows on directed link `link` (2 * trunk + d, as in tsched_path); 0 for a link no flow
 *  crosses or that does not exist. O(log of the loaded links). */
TSCHED_API uint32_t tsched_routes_link_flows(const tsched_routes *routes, uint32_t link);
/** Smallest rate over all flows (0 with no flows). */
TSCHED_API double tsched_routes_min_rate(const tsched_routes *routes);
/** Number of flows re-routed by tsched_reroute() (0 for tsched_route()). */
TSCHED_API uint32_t tsched_routes_moved(const tsched_routes *routes);
/** "ok" (greedy, ecmp, balanced-ecmp), "optimal" or "feasible" (ilp); "" for NULL. Static string. */
TSCHED_API const char *tsched_routes_status(const tsched_routes *routes);
/** The algorithm used. */
TSCHED_API tsched_route_algo tsched_routes_algo(const tsched_routes *routes);
/** Wall time of the assignment in milliseconds (not part of the deterministic output). */
TSCHED_API double tsched_routes_solve_ms(const tsched_routes *routes);

/**
 * `tsched.routes.v1`; the caller frees `*out` with tsched_free(). With `with_time` = 0 the
 * volatile `solve_ms` is left out so the same input gives the same bytes. Errors:
 * TSCHED_E_INVALID (NULL, named), TSCHED_E_MISMATCH when `topo` is not the fabric the routes
 * were computed on.
 */
TSCHED_API tsched_status tsched_routes_to_json(char **out, const tsched_routes *routes, const tsched_topology *topo,
                                               int with_time);

/** tsched_routes_write_json() flags: leave out the volatile `solve_ms`. */
#define TSCHED_ROUTES_JSON_NO_TIMING 1
/** tsched_routes_write_json() flags: one line instead of two-space indentation. */
#define TSCHED_ROUTES_JSON_COMPACT 4

/**
 * Write `tsched.routes.v1` to `out` as it is produced, in pieces of 64 KiB, without
 * building the document in memory (a million flows: tens of MB less than
 * tsched_routes_to_json()). The bytes are those of tsched_routes_to_json(), or with
 * TSCHED_ROUTES_JSON_COMPACT the same document without whitespace; no newline at the end.
 * `out` stays open and is not flushed. Errors: TSCHED_E_INVALID (NULL, named; unknown
 * flags), TSCHED_E_MISMATCH as tsched_routes_to_json(), TSCHED_E_IO when a write fails
 * (part of the document may have been written).
 */
TSCHED_API tsched_status tsched_routes_write_json(FILE *out, const tsched_routes *routes, const tsched_topology *topo,
                                                  int flags);

/**
 * tsched_routes_to_json() with the layout and timing of `opts` (NULL: indented, with
 * `solve_ms`); the compact text is the same document without whitespace. The caller frees
 * `*out` with tsched_free(). Errors as tsched_routes_to_json(), and TSCHED_E_INVALID for a
 * bad `opts->size`.
 */
TSCHED_API tsched_status tsched_routes_to_json_opts(char **out, const tsched_routes *routes,
                                                    const tsched_topology *topo, const tsched_output_opts *opts);

/* ---- reading routes back (doc/routing.md "Reading routes") -------------------------------- */

/**
 * Load a `tsched.routes.v1` document (as tsched_routes_to_json() writes it) against the fabric
 * it was made on: each flow's `hops` are switch names of `topo` from the source leaf to the
 * destination leaf, consecutive switches joined by a trunk, up then down (an empty list: both
 * NICs on one leaf). Down switches and trunks are accepted (the routes may predate a failure).
 * The result answers every tsched_routes_* getter and writer as a computed one; the loads
 * (`max_link_flows`, tsched_routes_link_flows()) and the smallest rate are recomputed from the
 * hops and rates, the document's own values only type-checked. `rate_gbps` must be on every
 * flow or on none (none: tsched_routes_has_rates() is 0). `algorithm` (default greedy),
 * `status` (default the algorithm's: "ok", ilp "feasible"), `moved`, `solve_ms` and each
 * flow's `index` (its position) are optional.
 *
 * `flows` may be NULL. When given, it must be the set the routes were computed for: the same
 * count, each path joining its flow's NIC leaves; the result then also works with
 * tsched_reroute(). Without it, a flow with empty hops has a path of one switch,
 * TSCHED_NONE (its leaf is not in the document).
 *
 * The caller frees `*out` with tsched_routes_free(). Errors name the field
 * (`flows[3].hops[1]`): TSCHED_E_INVALID (NULL argument, named; a path that is not one),
 * TSCHED_E_PARSE, TSCHED_E_FORMAT (format, algorithm, status), TSCHED_E_TYPE,
 * TSCHED_E_RANGE (a negative or non-finite number, an index out of place),
 * TSCHED_E_NOT_FOUND (a switch the fabric lacks), TSCHED_E_TOO_LARGE (more flows than the
 * `flows` limit, a document above `input_bytes`), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_routes_load_string(tsched_routes **out, const tsched_topology *topo,
                                                   const tsched_flows *flows, const char *json, size_t len);

/** tsched_routes_load_string() from a file (`-`: standard input); errors begin with the
 *  file name. TSCHED_E_IO when it cannot be read. */
TSCHED_API tsched_status tsched_routes_load_file(tsched_routes **out, const tsched_topology *topo,
                                                 const tsched_flows *flows, const char *path);

/** 1 when the routes carry max-min rates (computed, or `rate_gbps` in a loaded document);
 *  0 with TSCHED_ROUTE_NO_RATES, without rates in the document, or for NULL. */
TSCHED_API int tsched_routes_has_rates(const tsched_routes *routes);

/**
 * Max-min fair rates (progressive filling, exact) of `flows` on the given `paths` (one per
 * flow), with trunk capacities per direction and each NIC's speed on its link to its leaf,
 * in both directions. `rates` holds one value per flow. Errors: TSCHED_E_INVALID (a path
 * that does not join the flow's NIC leaves).
 */
TSCHED_API tsched_status tsched_rates_maxmin(double *rates, const tsched_topology *topo, const tsched_flows *flows,
                                             const tsched_path *paths);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_ROUTING_H */
