/* Internal: the tsched.vclos.v1 writer's pieces, shared by tsched_vclos_to_json (json_out.c)
 * and tsched_vclos_apply_requests (requests.c). doc/vclos.md §8, doc/FORMATS.md. */
#ifndef TS_VCLOS_JSON_OUT_H
#define TS_VCLOS_JSON_OUT_H

#include <jansson.h>

#include "../vclos_internal.h"

#define VC_OUT_FORMAT "tsched.vclos.v1"
#define VC_REQ_FORMAT "tsched.vclos-requests.v1"

/* "vclos", "ocs-vclos", "free" (NULL for anything else). */
const char *vc_mode_name(int mode);
/* "source", "ecmp", "balanced-ecmp". */
const char *vc_routing_name(int routing);
/* A new object with the document's head: format, mode, shapes (and routing, seed in free
 * mode). NULL on allocation failure (error recorded). */
json_t *vc_json_head(const tsched_vclos *v);
/* Append "jobs" (running jobs in allocation order, with the flows of step `step` of
 * `pattern` when pattern >= 0) to `root`. */
tsched_status vc_json_add_jobs(json_t *root, const tsched_vclos *v, int pattern, uint32_t step);
/* TSCHED_E_INVALID unless pattern is -1 or a tsched_vclos_pattern. */
tsched_status vc_json_check_pattern(int pattern, const char *fn);

#endif
