/* pmg_vops_cuda.c - the V-cycle's vector operations on the GPU, on the
 * legacy default stream that the SpMVs, the Krylov vectors and the
 * preconditioner applies share; k columns in one launch; time stamps as
 * CUDA events on that stream (pmg_stamp.c). */
#include <cuda_runtime.h>

#include "pmg_impl.h"

static em_err zero(int32_t n, int k, void *const *x) {
  EM_TRY(em_pmg_cuda_zero(n, k, x));
  return EM_OK;
}

static em_err gather_sub(int32_t n, const int32_t *idx, int k, const void *const *a,
                         const void *const *b, int bidx, void *const *c) {
  EM_TRY(em_pmg_cuda_gather_sub(n, idx, k, a, b, bidx, c));
  return EM_OK;
}

static em_err scatter_add(int32_t n, const int32_t *idx, int k, double w, const void *const *x,
                          void *const *y) {
  EM_TRY(em_pmg_cuda_scatter_add(n, idx, k, w, x, y));
  return EM_OK;
}

/* a timing event recorded on the legacy default stream */
static em_err stamp(void **s) {
  if (!*s) EM_CUDA(cudaEventCreate((cudaEvent_t *)s));
  EM_CUDA(cudaEventRecord((cudaEvent_t)*s, 0));
  return EM_OK;
}

static em_err stamp_ms(void *a, void *b, double *ms) {
  float f = 0;
  EM_CUDA(cudaEventSynchronize((cudaEvent_t)b));
  EM_CUDA(cudaEventElapsedTime(&f, (cudaEvent_t)a, (cudaEvent_t)b));
  *ms = f;
  return EM_OK;
}

static void stamp_free(void **s) {
  if (*s) cudaEventDestroy((cudaEvent_t)*s);
  *s = NULL;
}

static em_err alloc(size_t bytes, const void *h, void **x) {
  return em_dev_alloc(x, h, bytes, NULL, "pmg work arrays");
}

static void release(void **x) {
  em_dev_free(x);
}

const pmg_vops em_pmg_vops_cuda = {zero,     gather_sub, scatter_add, stamp,
                                   stamp_ms, stamp_free, alloc,       release};
