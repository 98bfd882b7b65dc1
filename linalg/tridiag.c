/* tridiag.c - tridiagonal solves on the CPU: Thomas (the reference), a batch
 * spread over the OpenMP threads, one long system by the split method. */
#include "em_linalg.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define TD_T double
#define TD_FN(name) td_##name##_d
#include "tridiag_tmpl.h"
#undef TD_T
#undef TD_FN

#define TD_T em_cplx
#define TD_FN(name) td_##name##_z
#include "tridiag_tmpl.h"
#undef TD_T
#undef TD_FN

/* one long system goes by the split method from this many rows */
#define TD_SPLIT_MIN (1 << 15)

static int td_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static em_err td_check(int64_t n, int64_t batch, const void *dl, const void *d, const void *du,
                       const void *b, const void *x) {
  EM_CHECK(n >= 1 && batch >= 1, EM_ERR_ARG, "tridiagonal solve of %lld systems of %lld rows",
           (long long)batch, (long long)n);
  EM_CHECK(dl && d && du && b && x, EM_ERR_ARG, "tridiagonal solve: a NULL array");
  return EM_OK;
}

static em_err td_pivot(int64_t sys, int64_t row) {
  return EM_RAISE(EM_ERR_NUMERIC, "tridiagonal system %lld: zero pivot at row %lld (no pivoting)",
                  (long long)sys, (long long)row);
}

/* The same body for both scalar types: S the type, PF the public and F the
 * kernels' suffix. */
#define TD_DEFINE(S, PF, F)                                                                       \
  em_err em_tridiag_thomas##PF(int64_t n, const S *dl, const S *d, const S *du, const S *b,       \
                               S *x) {                                                            \
    EM_TRY(td_check(n, 1, dl, d, du, b, x));                                                      \
    S *cw = NULL;                                                                                 \
    EM_TRY(em_calloc(&cw, (size_t)n, sizeof *cw, "Thomas workspace"));                            \
    int64_t z = td_thomas##F(n, dl, d, du, b, x, cw);                                             \
    em_free(&cw);                                                                                 \
    return z >= 0 ? td_pivot(0, z) : EM_OK;                                                       \
  }                                                                                               \
  em_err em_tridiag_solve_cpu##PF(int64_t n, int64_t batch, const S *dl, const S *d, const S *du, \
                                  const S *b, S *x) {                                             \
    EM_TRY(td_check(n, batch, dl, d, du, b, x));                                                  \
    int nt = td_threads();                                                                        \
    if (batch == 1 && n >= TD_SPLIT_MIN && nt > 1) {                                              \
      int p = nt;                                                                                 \
      S *w = NULL;                                                                                \
      EM_TRY(em_calloc(&w, 4 * (size_t)n + 6 * (size_t)p, sizeof *w, "split workspace"));         \
      int64_t z = td_split##F(n, p, dl, d, du, b, x, w);                                          \
      em_free(&w);                                                                                \
      return z >= 0 ? td_pivot(0, z) : EM_OK;                                                     \
    }                                                                                             \
    S *cw = NULL;                                                                                 \
    EM_TRY(em_calloc(&cw, (size_t)n *(size_t)nt, sizeof *cw, "Thomas workspace"));                \
    int64_t bad_sys = -1, bad_row = -1;                                                           \
    _Pragma("omp parallel for schedule(static)") for (int64_t k = 0; k < batch; k++) {            \
      int t = 0;                                                                                  \
      TD_TID(t);                                                                                  \
      int64_t o = k * n;                                                                          \
      int64_t z = td_thomas##F(n, dl + o, d + o, du + o, b + o, x + o, cw + (size_t)t * n);       \
      if (z >= 0) {                                                                               \
        _Pragma("omp critical(td_bad)") if (bad_sys < 0 || k < bad_sys) {                         \
          bad_sys = k;                                                                            \
          bad_row = z;                                                                            \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    em_free(&cw);                                                                                 \
    return bad_sys >= 0 ? td_pivot(bad_sys, bad_row) : EM_OK;                                     \
  }

#ifdef _OPENMP
#define TD_TID(t) (t) = omp_get_thread_num()
#else
#define TD_TID(t) (void)(t)
#endif

TD_DEFINE(double, , _d)
TD_DEFINE(em_cplx, _z, _z)
