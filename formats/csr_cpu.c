/* csr_cpu.c - CSR SpMV on the CPU (OpenMP over rows), complex double and
 * complex single from one body. */
#include "ell_impl.h"

/* y_i = sum_k val[k] x[colind[k]] (+ y_i), k over row i.  Rows are dealt
 * in small dynamic chunks: after the length sort of sliced ELLR-T the
 * longest rows come first, and equal static shares would be unbalanced. */
#define CSR_SPMV_CPU(NAME, SCALAR, REAL, MAKE)                                                    \
  static void NAME(const em_csrx *A, int32_t n, const SCALAR *x, SCALAR *y, int acc) {            \
    const SCALAR *v = (const SCALAR *)A->val;                                                     \
    int par = A->rowptr[n] >= EM_FMT_OMP_MIN;                                                     \
    _Pragma("omp parallel for schedule(dynamic, 256) if (par)") for (int32_t i = 0; i < n; i++) { \
      REAL sr = 0, si = 0;                                                                        \
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {                                 \
        EM_CMAC(sr, si, v[k], x[A->colind[k]]);                                                   \
      }                                                                                           \
      if (acc) {                                                                                  \
        sr += __real__ y[i];                                                                      \
        si += __imag__ y[i];                                                                      \
      }                                                                                           \
      y[i] = MAKE(sr, si);                                                                        \
    }                                                                                             \
  }

CSR_SPMV_CPU(csr_spmv_z, em_cplx, double, CMPLX)
CSR_SPMV_CPU(csr_spmv_c, em_cplxf, float, CMPLXF)

void em_csrx_spmv_cpu(const em_csrx *A, int32_t n_rows, em_prec p, const void *x, void *y,
                      int accumulate) {
  if (p == EM_PREC_DOUBLE)
    csr_spmv_z(A, n_rows, (const em_cplx *)x, (em_cplx *)y, accumulate);
  else
    csr_spmv_c(A, n_rows, (const em_cplxf *)x, (em_cplxf *)y, accumulate);
}
