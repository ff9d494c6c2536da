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
    uint32_t *wsol;           /* S*U: the master's circuits to eligible spine jm on OCS k */
    int have_w;               /* wsol holds the master's answer for the current lv, sv */
    int64_t objective;        /* sum RPN y + T sum RSN x (the rewiring tie-break left out) */
    uint32_t rewired;         /* circuits of the answer not already on their spine */
    int rewired_min;          /* 1: rewired is proven minimal for the answer's leaves and spines */
    int optimal;
    int status;
    int method;               /* VC_OCS_COMBI (default), VC_OCS_TWO_ILP, VC_OCS_FULL (tests) */
    /* no-good cuts of the master (ocs_ilp.c): choices (x, y) proven to have no circuits */
    uint32_t ncut;            /* cuts of the current solve (the last solve's, after it) */
    uint8_t *cutx;            /* VC_OCS_CUTS_MAX*L: leaf n chosen in cut c */
    uint32_t *cuty;           /* VC_OCS_CUTS_MAX*S: y of spine m in cut c */
    int *bcol;                /* master column of b(jm, t) = [y_jm >= t], or 0 */
    size_t bcol_cap;
    int fell_back;            /* 1: the last solve fell back to the full model */
} vc_ocs_ilp;

/* How vc_ocs_ilp_solve finds the circuits (ocs_ilp.c): the master ILP then the
 * combinatorial assignment of ocs_assign.c (ILP for the circuits only when that fails);
 * the master then the circuit ILP (the first version); the full §4 model alone. */
enum { VC_OCS_COMBI = 0, VC_OCS_TWO_ILP = 1, VC_OCS_FULL = 2 };
/* The method vc_ocs_ilp_init gives every solve; VC_OCS_COMBI unless a test or a measurement
 * program changes it (not thread-safe: set it before any handle allocates). */
extern int vc_ocs_method_default;
/* VC_OCS_COMBI: largest circuit ILP (binaries) solved to improve an unproven rewiring count
 * of the combinatorial assignment (a size rule, so the answer does not depend on speed
 * unless that ILP runs into the deadline). */
#define VC_OCS_ZILP_MAX 300
/* Master choices proven to have no circuits that the cut loop excludes before it falls back
 * to the full §4 model. */
#define VC_OCS_CUTS_MAX 50
/* With no deadline (place_time_limit_ms = 0), every solve after a shape's first master (the
 * circuit ILPs, the cut loop's masters, the fallback to the full model) must end within this
 * many milliseconds of that master; past it the shape reports VC_ILP_TIMEOUT (a `timeout`
 * wait) unless a solution was found. */
#define VC_OCS_NOLIMIT_CAP_MS 10000

/* ocs_assign.c: circuits for the master's answer (p->lv[0..nl), p->sv[0..ns), p->ysol,
 * p->wsol), into p->zsol. *found = 0 when it finds none (the caller then solves); *proven = 1
 * when the rewiring count is proven minimal for these leaves and virtual spines. */
tsched_status vc_ocs_assign(const tsched_vclos *v, vc_ocs_ilp *p, int *found, int *proven);

tsched_status vc_ocs_ilp_init(const tsched_vclos *v, vc_ocs_ilp *p);
void vc_ocs_ilp_fini(vc_ocs_ilp *p);
/* Solve shape (l, q) over every spine (spine = VC_NONE) or over `spine` alone with all s
 * virtual spines on it (stage 2b). *status = VC_ILP_FOUND (answer in p), VC_ILP_NONE
 * (infeasible) or VC_ILP_TIMEOUT (the deadline passed before any solution). */
tsched_status vc_ocs_ilp_solve(const tsched_vclos *v, vc_ocs_ilp *p, uint32_t l, uint32_t q, uint32_t spine,
                               double deadline, int *status);

#endif
