/* Test-only: the stage-2 ILP of doc/vclos.md §3 in the paper's formulation (App. A.2, with
 * c and r) and in the reduced exact formulation (filter + x, y), each solved with GLPK
 * directly, for comparing with the library's class-aggregated model and a brute force. */
#ifndef TSCHED_TEST_VCLOS_MODELS_H
#define TSCHED_TEST_VCLOS_MODELS_H

#include <stdint.h>

/* One instance: L leaves, S spines, T GPUs and E NICs per node; per pair (n * S + m) the
 * free members C and the members K of the trunk; idle nodes per leaf and RPN per spine. */
typedef struct vm_inst {
    uint32_t L, S, T, E;
    const uint32_t *C;
    const uint32_t *K;
    const uint32_t *rsn;
    const uint64_t *rpn;
} vm_inst;

/* Optimum of shape (l leaves, q nodes per leaf): 1 feasible with *obj, 0 infeasible,
 * -1 GLPK failed. */
int vm_paper(const vm_inst *in, uint32_t l, uint32_t q, int64_t *obj);
int vm_reduced(const vm_inst *in, uint32_t l, uint32_t q, int64_t *obj);

#endif
