/* The OCS layer's interface to io/ (the state reader, io/requests.c): what loading an
 * ocs-vclos job needs, without the layer's wiring arrays (ocs_internal.h stays private to
 * ocs*.c). */
#ifndef TS_VCLOS_OCS_IO_H
#define TS_VCLOS_OCS_IO_H

#include "../vclos_internal.h"

/* OCSes of the handle (0 without an OCS layer). */
uint32_t vc_ocs_count(const tsched_vclos *v);
/* Leaf `leaf`'s port on OCS k as port i of field f names it (`nm`): its link id in *port,
 * or TSCHED_E_INVALID naming f[i] and nm when k is past the OCSes or the port is reserved
 * or down. The caller has checked the name's syntax. */
tsched_status vc_ocs_state_port(uint32_t *port, const tsched_vclos *v, uint32_t leaf, unsigned long k, const char *f,
                                uint32_t i, const char *nm);
/* 1 if link ids a and b (ports) are on the same OCS. */
int vc_ocs_same_ocs(const tsched_vclos *v, uint32_t a, uint32_t b);
/* Re-point the circuits of a job about to be added (its links not yet reserved): each of
 * its ports ends on spine sp[v] (stage 3, 2b) or, for 2a (ocs_stage 20), the two leaves'
 * ports of each virtual spine are joined. Running jobs' circuits are never touched;
 * TSCHED_E_INTERNAL (nothing changed) if a port is reserved or a spine lacks an idle port. */
tsched_status vc_ocs_commit(tsched_vclos *v, const vc_job *j);

/* The OCS wiring, saved so that a failed load leaves the handle as it was. */
typedef struct vc_ocs_saved {
    uint8_t *kind;
    uint32_t *peer, *cnt;
} vc_ocs_saved;
/* Copy the wiring into *sv (nothing without an OCS layer); TSCHED_E_NOMEM. Always pair
 * with vc_ocs_restore, which frees the copy. */
tsched_status vc_ocs_save(vc_ocs_saved *sv, const tsched_vclos *v);
/* Put the saved wiring back when `restore` (and the save succeeded); free the copy. */
void vc_ocs_restore(vc_ocs_saved *sv, tsched_vclos *v, int restore);

#endif
