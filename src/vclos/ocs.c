/* OCS-vClos (doc/vclos.md §4): STUB until the OCS layer lands. */
#include <stdlib.h>

#include "vclos_internal.h"

tsched_status vc_ocs_new(tsched_vclos *v)
{
    (void)v;
    return ts_error(TSCHED_E_INVALID, "ocs-vclos: not built yet");
}

void vc_ocs_free(vc_ocs *o) { free(o); }

tsched_status vc_ocs_stage2(tsched_vclos *v, vc_job *j, uint32_t Q, double deadline, int *found, int *timed_out)
{
    (void)v, (void)j, (void)Q, (void)deadline;
    *found = *timed_out = 0;
    return TSCHED_OK;
}

tsched_status vc_ocs_link_name(char **out, const tsched_vclos *v, uint32_t link)
{
    (void)v, (void)link;
    *out = NULL;
    return ts_error(TSCHED_E_RANGE, "link: %u is not an OCS port", link);
}

void vc_ocs_port_peer(const tsched_vclos *v, uint32_t link, uint32_t *spine, uint32_t *leaf, uint32_t *ocs,
                      int *rewired)
{
    (void)v, (void)link;
    *spine = *leaf = *ocs = VC_NONE;
    *rewired = 0;
}
