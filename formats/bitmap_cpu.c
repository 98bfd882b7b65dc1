/* bitmap_cpu.c - bitmap SpMV on the host (OpenMP), complex double and
 * complex single from one source (bitmap_cpu_tmpl.h). */
#include "bitmap_impl.h"

#define BM_T em_cplx
#define BM_FN(name) bitmap_##name##_z
#include "bitmap_cpu_tmpl.h"
#undef BM_T
#undef BM_FN

#define BM_T em_cplxf
#define BM_FN(name) bitmap_##name##_c
#include "bitmap_cpu_tmpl.h"
#undef BM_T
#undef BM_FN

/* Dispatch on the precision; the kernel cannot fail. */
static em_err bitmap_spmv_cpu(const em_spmat *M, const void *x, void *y, int accumulate,
                              void *stream) {
  (void)stream;
  if (M->info.prec == EM_PREC_SINGLE)
    bitmap_spmv_c(M->data, x, y, accumulate);
  else
    bitmap_spmv_z(M->data, x, y, accumulate);
  return EM_OK;
}

const em_spmat_ops em_fmt_bitmap_cpu = {NULL, bitmap_spmv_cpu, em_bitmap_destroy, NULL, NULL};
