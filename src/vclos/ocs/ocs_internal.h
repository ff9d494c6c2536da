/* Internal to ocs*.c: the OCS layer of OCS-vClos (doc/vclos.md §4).
 *
 * U = S*K optical circuit switches. Leaf n has one port on each OCS k (link id
 * nmembers + n*U + k); spine m has G = L/S ports on each OCS. A circuit joins two ports of
 * one OCS: a leaf port and a spine port, or two leaf ports (stage 2a). Only leaf ports are
 * named and reserved (v->link_owner); a spine's ports on an OCS are interchangeable, so the
 * layer keeps, per leaf port, its far end, and per (spine, OCS) the number of circuits
 * ending on that spine. A spine port is idle when no reserved circuit uses it: idle(m, k) =
 * G - (reserved leaf ports of OCS k joined to m), always read from link_owner. */
#ifndef TS_VCLOS_OCS_INTERNAL_H
#define TS_VCLOS_OCS_INTERNAL_H

#include "ocs_io.h" /* what io/ may call; declared once there */

enum { VC_PEER_NONE = 0, VC_PEER_SPINE = 1, VC_PEER_LEAF = 2 };

struct vc_ocs {
    uint32_t U, G, K;
    uint8_t *kind;   /* L*U: VC_PEER_* of leaf port (n, k) */
    uint32_t *peer;  /* L*U: spine or leaf at the far end */
    uint32_t *cnt;   /* S*U: circuits ending on spine m's ports of OCS k */
    uint8_t *mark;   /* L*U: scratch of vc_ocs_commit */
};

/* Link id of leaf n's port on OCS k, and back. */
static inline uint32_t vc_ocs_port(const tsched_vclos *v, uint32_t n, uint32_t k)
{
    return v->nmembers + n * v->ocs->U + k;
}
/* 1 if leaf n's port on OCS k can carry a new circuit: leaf up, port not reserved. */
int vc_ocs_port_usable(const tsched_vclos *v, uint32_t n, uint32_t k);
/* idle[m*U + k] = idle ports of spine m on OCS k (0 for a down spine). */
void vc_ocs_spine_idle(const tsched_vclos *v, uint32_t *idle);
/* 1 if port (n, k) already carries a circuit to spine m. */
int vc_ocs_on_spine(const tsched_vclos *v, uint32_t n, uint32_t k, uint32_t m);

#endif
