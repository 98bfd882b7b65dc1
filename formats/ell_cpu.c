/* ell_cpu.c - SpMV of the ELL-family layout on the CPU (OpenMP over rows);
 * the CPU ops table of the ELL family.  It walks exactly the slots the
 * CUDA kernels read (em_ellx_slot), so the CPU tests check the layout the
 * GPU will see: ELL reads every slot of its width and skips column -1; the
 * others read rowlen[i] slots. */
#include "ell_impl.h"

/* y_i = sum_{k < len_i} val[q] x[col[q]] (+ y_i), q = slot(i, k) =
 * base_s + (k/T) S T + r T + k%T: the step j = k/T advances by S*T. */
#define ELLX_SPMV_CPU(NAME, SCALAR, REAL, MAKE)                                                    \
  static void NAME(const em_ellx *E, const SCALAR *x, SCALAR *y, int acc) {                        \
    const SCALAR *v = (const SCALAR *)E->val;                                                      \
    const int64_t step = (int64_t)E->S * E->T;                                                     \
    const int32_t T = E->T;                                                                        \
    int par = E->stored >= EM_FMT_OMP_MIN;                                                         \
    _Pragma("omp parallel for schedule(dynamic, 256) if (par)") for (int32_t i = 0; i < E->n_rows; \
                                                                     i++) {                        \
      int32_t len = E->rowlen ? E->rowlen[i] : E->width;                                           \
      int64_t q0 = em_ellx_slot(E->slice_ptr, E->S, T, i, 0);                                      \
      REAL sr = 0, si = 0;                                                                         \
      for (int32_t j = 0; (int64_t)j * T < len; j++)                                               \
        for (int32_t t = 0; t < T && j * T + t < len; t++) {                                       \
          int64_t q = q0 + j * step + t;                                                           \
          int32_t c = E->col[q];                                                                   \
          if (c < 0) continue;                                                                     \
          EM_CMAC(sr, si, v[q], x[c]);                                                             \
        }                                                                                          \
      if (acc) {                                                                                   \
        sr += __real__ y[i];                                                                       \
        si += __imag__ y[i];                                                                       \
      }                                                                                            \
      y[i] = MAKE(sr, si);                                                                         \
    }                                                                                              \
  }

ELLX_SPMV_CPU(ellx_spmv_z, em_cplx, double, CMPLX)
ELLX_SPMV_CPU(ellx_spmv_c, em_cplxf, float, CMPLXF)

static em_err ellx_spmv_cpu(const em_spmat *M, const void *x, void *y, int accumulate,
                            void *stream) {
  (void)stream;
  const em_ellx *E = (const em_ellx *)M->data;
  if (M->info.prec == EM_PREC_DOUBLE)
    ellx_spmv_z(E, (const em_cplx *)x, (em_cplx *)y, accumulate);
  else
    ellx_spmv_c(E, (const em_cplxf *)x, (em_cplxf *)y, accumulate);
  return EM_OK;
}

/* The same slots for k <= EM_SPMM_GROUP vectors: each slot read once,
 * each column's sum in the SpMV's order. */
#define ELLX_SPMM_CPU(NAME, SCALAR, REAL, MAKE)                                                    \
  static void NAME(const em_ellx *E, int nv, const SCALAR *const *x, SCALAR *const *y, int acc) {  \
    const SCALAR *v = (const SCALAR *)E->val;                                                      \
    const int64_t step = (int64_t)E->S * E->T;                                                     \
    const int32_t T = E->T;                                                                        \
    int par = E->stored * nv >= EM_FMT_OMP_MIN;                                                    \
    _Pragma("omp parallel for schedule(dynamic, 256) if (par)") for (int32_t i = 0; i < E->n_rows; \
                                                                     i++) {                        \
      int32_t len = E->rowlen ? E->rowlen[i] : E->width;                                           \
      int64_t q0 = em_ellx_slot(E->slice_ptr, E->S, T, i, 0);                                      \
      REAL sr[EM_SPMM_GROUP] = {0}, si[EM_SPMM_GROUP] = {0};                                       \
      for (int32_t j = 0; (int64_t)j * T < len; j++)                                               \
        for (int32_t t = 0; t < T && j * T + t < len; t++) {                                       \
          int64_t q = q0 + j * step + t;                                                           \
          int32_t c = E->col[q];                                                                   \
          if (c < 0) continue;                                                                     \
          const SCALAR a = v[q];                                                                   \
          for (int u = 0; u < nv; u++) EM_CMAC(sr[u], si[u], a, x[u][c]);                          \
        }                                                                                          \
      for (int u = 0; u < nv; u++) {                                                               \
        if (acc) {                                                                                 \
          sr[u] += __real__ y[u][i];                                                               \
          si[u] += __imag__ y[u][i];                                                               \
        }                                                                                          \
        y[u][i] = MAKE(sr[u], si[u]);                                                              \
      }                                                                                            \
    }                                                                                              \
  }

ELLX_SPMM_CPU(ellx_spmm_z, em_cplx, double, CMPLX)
ELLX_SPMM_CPU(ellx_spmm_c, em_cplxf, float, CMPLXF)

static em_err ellx_spmm_cpu(const em_spmat *M, int k, const void *const *x, void *const *y,
                            int accumulate, void *stream) {
  (void)stream;
  const em_ellx *E = (const em_ellx *)M->data;
  if (M->info.prec == EM_PREC_DOUBLE)
    ellx_spmm_z(E, k, (const em_cplx *const *)x, (em_cplx *const *)y, accumulate);
  else
    ellx_spmm_c(E, k, (const em_cplxf *const *)x, (em_cplxf *const *)y, accumulate);
  return EM_OK;
}

const em_spmat_ops em_fmt_ellx_cpu = {NULL, ellx_spmv_cpu, em_ellx_destroy, ellx_spmm_cpu, NULL};
