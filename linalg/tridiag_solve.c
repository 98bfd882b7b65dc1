/* tridiag_solve.c - host tridiagonal systems on a backend: the CPU
 * (Thomas per system, the split method for one long one) or the GPU split
 * method, which falls back to the CPU when it cannot run (not built, no
 * GPU, no memory): the answer is the same to rounding either way, so a run
 * on the GPU never fails for want of it. */
#include "em_linalg.h"

#ifdef EM_HAVE_CUDA
/* the codes on which the GPU gives way to the CPU; a zero pivot does not */
static int td_gives_way(em_err err) {
  const em_err c = err;
  return c == EM_ERR_UNSUPPORTED || c == EM_ERR_CUDA || c == EM_ERR_GPU_MEMORY ||
         c == EM_ERR_MEMORY;
}
#endif

static em_err td_cpu(int is_complex, int64_t n, int64_t batch, const void *dl, const void *d,
                     const void *du, const void *b, void *x) {
  if (is_complex) return em_tridiag_solve_cpu_z(n, batch, dl, d, du, b, x);
  return em_tridiag_solve_cpu(n, batch, dl, d, du, b, x);
}

em_err em_tridiag_solve(em_backend be, int is_complex, int64_t n, int64_t batch, const void *dl,
                        const void *d, const void *du, const void *b, void *x, int *used) {
  EM_CHECK(n >= 1 && batch >= 1, EM_ERR_ARG, "tridiagonal solve of %lld systems of %lld rows",
           (long long)batch, (long long)n);
  EM_CHECK(dl && d && du && b && x, EM_ERR_ARG, "tridiagonal solve: a NULL array");
  if (used) *used = EM_TRIDIAG_PATH_CPU;
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    em_err err = em_tridiag_solve_cuda(is_complex, n, batch, dl, d, du, b, x, 0, used);
    if (!err || !td_gives_way(err)) return err;
    em_error_clear(); /* the CPU answers instead */
  }
#else
  (void)be;
#endif
  EM_TRY(td_cpu(is_complex, n, batch, dl, d, du, b, x));
  return EM_OK;
}
