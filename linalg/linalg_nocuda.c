/* linalg_nocuda.c - the GPU entry points of a build without CUDA: each
 * says so, naming what was asked for. */
#include "em_linalg.h"

#ifndef EM_HAVE_CUDA
em_err em_tridiag_gpu_create(int64_t n, int64_t batch, int is_complex, em_tridiag_gpu **t) {
  (void)n;
  (void)batch;
  (void)is_complex;
  if (t) *t = NULL;
  return EM_RAISE(EM_ERR_UNSUPPORTED, "tridiagonal solve on the GPU: built without CUDA");
}
em_err em_tridiag_gpu_solve(em_tridiag_gpu *t, const void *dl, const void *d, const void *du,
                            const void *b, void *x) {
  (void)t, (void)dl, (void)d, (void)du, (void)b, (void)x;
  return EM_RAISE(EM_ERR_UNSUPPORTED, "tridiagonal solve on the GPU: built without CUDA");
}
em_err em_tridiag_gpu_create_opts(int64_t n, int64_t batch, int is_complex, int flags,
                                  em_tridiag_gpu **t) {
  (void)flags;
  return em_tridiag_gpu_create(n, batch, is_complex, t);
}
void em_tridiag_gpu_shape(const em_tridiag_gpu *t, int64_t *block, int *levels) {
  (void)t;
  *block = 0;
  *levels = 0;
}
void em_tridiag_gpu_destroy(em_tridiag_gpu **t) {
  if (t) *t = NULL;
}
#else
typedef int em_linalg_nocuda_unused; /* ISO C: no empty translation unit */
#endif
