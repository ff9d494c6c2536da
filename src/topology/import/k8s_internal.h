/* Internal: what the Kubernetes nodes import (k8s.c) and its pod list (k8s_pods.c) share. */
#ifndef TS_TOPOLOGY_K8S_INTERNAL_H
#define TS_TOPOLOGY_K8S_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "topo-sched/topology.h"

/* Outcome of reading a resource quantity as a GPU count. */
enum { K8S_COUNT_OK = 0, K8S_COUNT_TYPE, K8S_COUNT_BAD, K8S_COUNT_BIG };

/* A GPU count as the API prints it: a JSON string of decimal digits ("8"; extended resources
 * are whole numbers) or a JSON integer >= 0. K8S_COUNT_TYPE: neither a string nor an integer
 * (a negative integer is K8S_COUNT_BAD); K8S_COUNT_BAD: a string that is not 1 to 12 digits;
 * K8S_COUNT_BIG: above `max`. */
int k8s_count(uint64_t *out, const json_t *v, uint64_t max);

/* The GPUs of each node the pods in `pods_json` (text of `kubectl get pods -A -o json`) hold
 * are taken from the free GPUs of the built `topo`: a node's free count becomes its GPUs less
 * the sum of the effective `gpu_resource` requests of its pods not Succeeded or Failed, and 0
 * when they hold more (doc/k8s-import.md, "Pods"). Errors: TSCHED_E_PARSE naming
 * `pods_json: <field>`, TSCHED_E_TOO_LARGE, TSCHED_E_NOMEM. */
tsched_status k8s_pods_apply(tsched_topology *topo, const char *pods_json, const char *gpu_resource);

#endif
