/* The OCS layer's calls for the state reader (ocs_io.h): port lookup and checks, and the
 * wiring saved around a load. */
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "ocs_internal.h"

uint32_t vc_ocs_count(const tsched_vclos *v)
{
    return v->ocs ? v->ocs->U : 0;
}

tsched_status vc_ocs_state_port(uint32_t *port, const tsched_vclos *v, uint32_t leaf, unsigned long k, const char *f,
                                uint32_t i, const char *nm)
{
    if (k >= vc_ocs_count(v)) /* the reader checks the syntax first; kept so no caller indexes past the layer */
        return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is past the %u OCSes", f, i, nm, vc_ocs_count(v));
    *port = vc_ocs_port(v, leaf, (uint32_t)k);
    if (!vc_ocs_port_usable(v, leaf, (uint32_t)k))
        return ts_error(TSCHED_E_INVALID, "%s[%u]: \"%s\" is %s", f, i, nm,
                        v->link_owner[*port] ? "reserved by another job" : "down");
    return TSCHED_OK;
}

int vc_ocs_same_ocs(const tsched_vclos *v, uint32_t a, uint32_t b)
{
    return (a - v->nmembers) % v->ocs->U == (b - v->nmembers) % v->ocs->U;
}

tsched_status vc_ocs_save(vc_ocs_saved *sv, const tsched_vclos *v)
{
    memset(sv, 0, sizeof *sv);
    if (!v->ocs)
        return TSCHED_OK;
    size_t lp = (size_t)v->L * v->ocs->U, sp = (size_t)v->S * v->ocs->U;
    if (!(sv->kind = ts_malloc(lp, 1)) || !(sv->peer = ts_malloc(lp, sizeof *sv->peer)) ||
        !(sv->cnt = ts_malloc(sp, sizeof *sv->cnt)))
        return TSCHED_E_NOMEM;
    memcpy(sv->kind, v->ocs->kind, lp);
    memcpy(sv->peer, v->ocs->peer, lp * sizeof *sv->peer);
    memcpy(sv->cnt, v->ocs->cnt, sp * sizeof *sv->cnt);
    return TSCHED_OK;
}

void vc_ocs_restore(vc_ocs_saved *sv, tsched_vclos *v, int restore)
{
    if (v->ocs && restore && sv->kind && sv->peer && sv->cnt) {
        size_t lp = (size_t)v->L * v->ocs->U, sp = (size_t)v->S * v->ocs->U;
        memcpy(v->ocs->kind, sv->kind, lp);
        memcpy(v->ocs->peer, sv->peer, lp * sizeof *sv->peer);
        memcpy(v->ocs->cnt, sv->cnt, sp * sizeof *sv->cnt);
    }
    free(sv->kind);
    free(sv->peer);
    free(sv->cnt);
}
