/* hyb_cpu.c - HYB / HEC SpMV on the host (OpenMP), one source for complex
 * double and complex single (hyb_cpu_tmpl.h); the CPU ops table of HYB and
 * HEC. */
#include "hyb_impl.h"

#define HYB_TILE 64 /* rows per task of the ELL part */

#define HYB_T em_cplx
#define HYB_FN(name) hyb_##name##_z
#include "hyb_cpu_tmpl.h"
#undef HYB_T
#undef HYB_FN

#define HYB_T em_cplxf
#define HYB_FN(name) hyb_##name##_c
#include "hyb_cpu_tmpl.h"
#undef HYB_T
#undef HYB_FN

/* Dispatch on the precision; the kernels cannot fail. */
static em_err hyb_spmv_cpu(const em_spmat *M, const void *x, void *y, int accumulate,
                           void *stream) {
  (void)stream;
  const em_hyb *H = M->data;
  if (M->info.prec == EM_PREC_SINGLE)
    hyb_spmv_c(H, x, y, accumulate);
  else
    hyb_spmv_z(H, x, y, accumulate);
  return EM_OK;
}

const em_spmat_ops em_fmt_hyb_cpu = {NULL, hyb_spmv_cpu, em_hyb_destroy, NULL, NULL};
