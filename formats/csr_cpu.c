/* csr_cpu.c - CSR SpMV on the CPU (OpenMP over rows), complex double and
 * complex single from one body; the CPU ops table of CSR. */
#include "csr_impl.h"

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

static em_err csr_spmv_cpu(const em_spmat *M, const void *x, void *y, int accumulate,
                           void *stream) {
  (void)stream;
  const em_csrx *A = (const em_csrx *)M->data;
  if (M->info.prec == EM_PREC_DOUBLE)
    csr_spmv_z(A, M->info.n_rows, (const em_cplx *)x, (em_cplx *)y, accumulate);
  else
    csr_spmv_c(A, M->info.n_rows, (const em_cplxf *)x, (em_cplxf *)y, accumulate);
  return EM_OK;
}

const em_spmat_ops em_fmt_csr_cpu = {NULL, csr_spmv_cpu, em_csrx_destroy};
