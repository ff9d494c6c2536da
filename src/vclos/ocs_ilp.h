/* Internal to ocs*.c: the stage-3 ILP of OCS-vClos (doc/vclos.md §4). */
#ifndef TS_VCLOS_OCS_ILP_H
#define TS_VCLOS_OCS_ILP_H

#include "ocs_internal.h"

enum { VC_ILP_NONE = 0, VC_ILP_FOUND = 1, VC_ILP_TIMEOUT = 2 };

/* Buffers of the ILP, sized once per allocation for the whole fabric (no allocation inside
 * the GLPK body), and the answer of the last solve. */
typedef struct vc_ocs_ilp {
    uint32_t l, q, s, spine;  /* shape; spine = VC_NONE (stage 3) or the 2b spine */
    uint32_t nl, ns;          /* eligible leaves and spines */
    uint32_t *lv, *sv;        /* L, S: eligible leaves, spines (local, ascending) */
    uint32_t *ymax;           /* S: bound of y per eligible spine */
    int yfixed;               /* 1: y fixed to ysol (the z step after the master) */
    int *wcol;                /* S*U: master column of w(jm, k) or 0 */
    uint32_t *rsn, *rpn;      /* L, S: idle nodes, idle spine ports */
    uint32_t *idle;           /* S*U: idle ports of spine m on OCS k */
    uint8_t *lok, *sok;       /* L, S: scratch of the filter */
    int *zcol;                /* L*S*U: column of z(n, jm, k) or 0 */
    uint32_t nz;
    int *ia, *ja;             /* matrix triplets (1-based) */
    double *ar;
    size_t nnz_cap;
    int time_ms;
    /* answer */
    uint8_t *xsol;            /* L by eligible index */
    uint32_t *ysol;           /* S by eligible index */
    uint8_t *zsol;            /* L*S*U: (n * ns + jm) * U + k */
    int64_t objective;        /* sum RPN y + T sum RSN x (the rewiring tie-break left out) */
    int optimal;
    int status;
} vc_ocs_ilp;

tsched_status vc_ocs_ilp_init(const tsched_vclos *v, vc_ocs_ilp *p);
void vc_ocs_ilp_fini(vc_ocs_ilp *p);
/* Solve shape (l, q) over every spine (spine = VC_NONE) or over `spine` alone with all s
 * virtual spines on it (stage 2b). *status = VC_ILP_FOUND (answer in p), VC_ILP_NONE
 * (infeasible) or VC_ILP_TIMEOUT (the deadline passed before any solution). */
tsched_status vc_ocs_ilp_solve(const tsched_vclos *v, vc_ocs_ilp *p, uint32_t l, uint32_t q, uint32_t spine,
                               double deadline, int *status);

#endif
