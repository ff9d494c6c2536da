/* Internal: the fluid-sharing kernel, the library's one max-min solver. Flows cross links of
 * given capacities; each flow has a strict priority level (0 highest). Level by level, on
 * what the levels above left, progressive filling gives every flow its max-min fair rate:
 * the link with the smallest fair share (remaining capacity / unfrozen flows of the level)
 * is the next bottleneck, its flows freeze at that share. It knows nothing of fabrics or
 * of the simulator: routing (src/routing/rates.c) hands it a flows x links incidence, the
 * simulator (src/sim/rates.c) its live network through callbacks, and it re-solves only the
 * connected components of the links an event touched (as SimGrid's lmm re-solves what
 * changed).
 *
 * Semantics shared by every entry point:
 * - a flow that lists a link k times uses k times its rate there (counts k times in the
 *   link's fair share);
 * - a flow with no link at all gets INFINITY;
 * - a negative capacity counts as 0; NaN or infinite is TSCHED_E_INVALID;
 * - exact zero residue: a link that becomes a bottleneck keeps exactly 0 capacity for the
 *   levels below (not capacity - k * share with its rounding), and so does a link whose
 *   last unfrozen flows froze elsewhere leaving at most 1e-12 of its capacity, or 4 ulp
 *   of it per flow frozen on it when that is more (a tie with the bottleneck, the rest is
 *   rounding); lower levels then get exactly 0 there, whatever the number of levels;
 * - ties between equal shares go to the lower link id, so the same incidence gives the same
 *   bits, whatever the order of the flows, the events or the components solved together;
 * - ties up to rounding: when flows freeze at the bottleneck share s, a link they also cross
 *   whose new share (remaining / unfrozen flows) is within 4 ulp of s per flow frozen on it so
 *   far (at least 1), i.e. |share - s| <= 4 * DBL_EPSILON * s * max(1, k), takes s exactly:
 *   it was tied with the bottleneck and only the k subtractions' rounding moved it. So flows
 *   on symmetric links (equal capacities, the same pattern of flows) get exactly equal rates,
 *   as when every link of the minimal share freezes at once.
 *
 * Cost: O((F h + L) log L) for F flows of h links on L links (an indexed heap of links),
 * plus O(F h^2) words of per-link records for flows of up to 32 links given as an incidence
 * (ts_fluid_solve), O(F h) for flows given as lists (the other two entry points). A workspace
 * (ts_fluid) owns every scratch array, grown as needed and kept, so repeated solves on a
 * workspace allocate nothing once it has seen their sizes. */
#ifndef TS_COMMON_FLUID_H
#define TS_COMMON_FLUID_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Links are numbered below this (the top bits of a record word are flags). */
#define TS_FLUID_MAX_LINKS UINT32_C(0x7ffffffd)
/* A link whose last flows froze leaving at most this fraction of its capacity (or 4 ulp per
 * flow frozen on it, when more) is saturated. */
#define TS_FLUID_SNAP 1e-12

typedef struct ts_fluid ts_fluid;

/* A new empty workspace in *out (free with ts_fluid_free). TSCHED_E_NOMEM. */
tsched_status ts_fluid_new(ts_fluid **out);
void ts_fluid_free(ts_fluid *w);

/* Rates of nflows flows over dense link ids: flow i crosses flink[foff[i] .. foff[i+1]),
 * each < nlinks; level[i] its level (NULL: all 0); cap[l] link l's capacity. rate[i]
 * receives flow i's rate. Errors (nothing written to rate): TSCHED_E_INVALID for a NULL
 * array, a decreasing foff, a link id >= nlinks or a NaN/infinite capacity;
 * TSCHED_E_TOO_LARGE for nlinks > TS_FLUID_MAX_LINKS or records past memory;
 * TSCHED_E_NOMEM. */
tsched_status ts_fluid_solve(ts_fluid *w, double *rate, uint32_t nflows, const uint32_t *foff, const uint32_t *flink,
                             const uint32_t *level, uint32_t nlinks, const double *cap);

/* The caller's network, read through callbacks during a solve (the caller keeps it
 * unchanged meanwhile): link ids < nlinks, flow ids < nflows. link_flows returns the flows
 * on a link (a flow may be listed once per time it crosses the link) and their count;
 * flow_links a flow's links, their count and its level; cap a link's capacity. */
typedef struct ts_fluid_net {
    void *ctx;
    uint32_t nlinks, nflows;
    const uint32_t *(*link_flows)(void *ctx, uint32_t link, uint32_t *n);
    const uint32_t *(*flow_links)(void *ctx, uint32_t flow, uint32_t *n, uint32_t *level);
    double (*cap)(void *ctx, uint32_t link);
} ts_fluid_net;

/* Rates of nflows flows given as lists of the network's link ids (flow i: fl[i][0 ..
 * fn[i]), level lev[i], NULL: all 0), capacities from net->cap; only net->nlinks and
 * net->cap are used. Ties go to the lower network link id. Errors as ts_fluid_solve. */
tsched_status ts_fluid_solve_lists(ts_fluid *w, double *rate, uint32_t nflows, const uint32_t *const *fl,
                                   const uint32_t *fn, const uint32_t *lev, const ts_fluid_net *net);

/* Incremental re-solve: the connected components (flows joined by shared links, all levels
 * together) of links seeds[0 .. nseeds), found through net, solved alone. *flows receives
 * their flow ids in increasing order, *rates their rates, *n the count; both arrays belong
 * to w and stay valid until its next call. Since components do not interact, the rates are
 * bit for bit those of a solve of the whole network. Errors as ts_fluid_solve (a link or
 * flow id out of net's range is TSCHED_E_INVALID). */
tsched_status ts_fluid_solve_touched(ts_fluid *w, const ts_fluid_net *net, const uint32_t *seeds, size_t nseeds,
                                     const uint32_t **flows, const double **rates, size_t *n);

/* The kernel's own accounting after the last successful solve: remaining capacity per link
 * (ts_fluid_solve: by link id; the other two: by rank among the links solved, i.e. the
 * i-th smallest network id), *n links. 0.0 exactly on every saturated link. */
const double *ts_fluid_residue(const ts_fluid *w, uint32_t *n);

#endif
