/* trsv_cpu.c - the CPU triangular solves of ILU(0): OpenMP over the rows of
 * each level, thin levels run by one thread without team barriers.  The
 * same factors and schedules as the GPU solves; y in complex double. */
#include "ilu_impl.h"

#define SC em_cplx
#define CRE creal
#define CIM cimag
#define FN(name) name##_z
#include "trsv_cpu_tmpl.h"
#undef SC
#undef CRE
#undef CIM
#undef FN
#define SC em_cplxf
#define CRE crealf
#define CIM cimagf
#define FN(name) name##_c
#include "trsv_cpu_tmpl.h"
#undef SC
#undef CRE
#undef CIM
#undef FN

void em_trsv_lower_cpu(const em_ilu0 *F, const em_seg *seg, int n_seg, void *y) {
  if (F->prec == EM_PREC_SINGLE)
    lower_c(F, seg, n_seg, y);
  else
    lower_z(F, seg, n_seg, y);
}

void em_trsv_upper_cpu(const em_ilu0 *F, const em_seg *seg, int n_seg, void *y) {
  if (F->prec == EM_PREC_SINGLE)
    upper_c(F, seg, n_seg, y);
  else
    upper_z(F, seg, n_seg, y);
}

void em_trsv_lower_cpu_k(const em_ilu0 *F, const em_seg *seg, int n_seg, int kc, em_cplx *y) {
  if (F->prec == EM_PREC_SINGLE)
    lower_k_c(F, seg, n_seg, kc, (double *)y);
  else
    lower_k_z(F, seg, n_seg, kc, (double *)y);
}

void em_trsv_upper_cpu_k(const em_ilu0 *F, const em_seg *seg, int n_seg, int kc, em_cplx *y) {
  if (F->prec == EM_PREC_SINGLE)
    upper_k_c(F, seg, n_seg, kc, (double *)y);
  else
    upper_k_z(F, seg, n_seg, kc, (double *)y);
}
