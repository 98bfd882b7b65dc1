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

/* y_j,i = sum_k val[k] x_j[colind[k]] (+ y_j,i) for the k <= EM_SPMM_GROUP
 * vectors j: each entry read once, each column's sum in the SpMV's order. */
#define CSR_SPMM_CPU(NAME, SCALAR, REAL, MAKE)                                                    \
  static void NAME(const em_csrx *A, int32_t n, int nv, const SCALAR *const *x, SCALAR *const *y, \
                   int acc) {                                                                     \
    const SCALAR *v = (const SCALAR *)A->val;                                                     \
    int par = A->rowptr[n] * nv >= EM_FMT_OMP_MIN;                                                \
    _Pragma("omp parallel for schedule(dynamic, 256) if (par)") for (int32_t i = 0; i < n; i++) { \
      REAL sr[EM_SPMM_GROUP] = {0}, si[EM_SPMM_GROUP] = {0};                                      \
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {                                 \
        const SCALAR a = v[k];                                                                    \
        const int32_t c = A->colind[k];                                                           \
        for (int j = 0; j < nv; j++) EM_CMAC(sr[j], si[j], a, x[j][c]);                           \
      }                                                                                           \
      for (int j = 0; j < nv; j++) {                                                              \
        if (acc) {                                                                                \
          sr[j] += __real__ y[j][i];                                                              \
          si[j] += __imag__ y[j][i];                                                              \
        }                                                                                         \
        y[j][i] = MAKE(sr[j], si[j]);                                                             \
      }                                                                                           \
    }                                                                                             \
  }

CSR_SPMM_CPU(csr_spmm_z, em_cplx, double, CMPLX)
CSR_SPMM_CPU(csr_spmm_c, em_cplxf, float, CMPLXF)

static em_err csr_spmm_cpu(const em_spmat *M, int k, const void *const *x, void *const *y,
                           int accumulate, void *stream) {
  (void)stream;
  const em_csrx *A = (const em_csrx *)M->data;
  if (M->info.prec == EM_PREC_DOUBLE)
    csr_spmm_z(A, M->info.n_rows, k, (const em_cplx *const *)x, (em_cplx *const *)y, accumulate);
  else
    csr_spmm_c(A, M->info.n_rows, k, (const em_cplxf *const *)x, (em_cplxf *const *)y, accumulate);
  return EM_OK;
}

const em_spmat_ops em_fmt_csr_cpu = {NULL, csr_spmv_cpu, em_csrx_destroy, csr_spmm_cpu, NULL};
