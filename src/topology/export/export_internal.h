/* Internal: shared by the exports (export.c, export_slurm.c, export_k8s.c; doc/export.md). */
#ifndef TS_TOPOLOGY_EXPORT_INTERNAL_H
#define TS_TOPOLOGY_EXPORT_INTERNAL_H

#include "topo-sched/topology.h"

#include "../../common/sbuf.h"
#include "domain_tree.h"

typedef struct ts_export {
    const tsched_topology *t;
    tsched_export_options o; /* the caller's options over the defaults */
    ts_dtree dt;
    const char *name;        /* o.name or the fabric's name */
} ts_export;

/* Record the warning line of this export (see tsched_topology_export_warning()). */
void ts_export_warn(const char *fmt, ...) TS_PRINTF(1, 2);

/* The exports proper; `*out` is the whole text. */
tsched_status ts_export_slurm(char **out, ts_export *x);
tsched_status ts_export_k8s(char **out, ts_export *x);

/* Full capacity of a trunk, Gbit/s: all its member links, up or down. */
double ts_export_trunk_gbps(const tsched_topology *t, uint32_t trunk);

/* The label value of a written-level domain before any check: its switch's `value` when the
 * import set one, else its name. */
const char *ts_export_domain_value(const ts_export *x, const ts_dlevel *lv, uint32_t dom);
/* "switch \"leaf3\"", "tier-1 domain \"pod0\"", "NVLink domain \"x\"" into buf. */
const char *ts_export_domain_what(char *buf, size_t cap, const ts_export *x, const ts_dlevel *lv, uint32_t dom);

/* Every domain-tree name is unique over all tiers (Slurm switches, Volcano HyperNodes):
 * TSCHED_E_DUPLICATE naming both domains otherwise. */
tsched_status ts_export_unique_names(const ts_export *x);

#endif
