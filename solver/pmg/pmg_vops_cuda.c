/* pmg_vops_cuda.c - the V-cycle's vector operations on the GPU, on the
 * legacy default stream that the SpMVs, the Krylov vectors and the
 * preconditioner applies share. */
#include <cuda_runtime.h>

#include "pmg_impl.h"

static em_err zero(int32_t n, void *x) {
  EM_CUDA(cudaMemsetAsync(x, 0, 16 * (size_t)n, 0));
  return EM_OK;
}

static em_err copy(int32_t n, const void *x, void *y) {
  EM_CUDA(cudaMemcpyAsync(y, x, 16 * (size_t)n, cudaMemcpyDeviceToDevice, 0));
  return EM_OK;
}

static em_err sub(int32_t n, const void *a, const void *b, void *c) {
  EM_TRY(em_pmg_cuda_sub(n, a, b, c));
  return EM_OK;
}

static em_err axpy(int32_t n, double w, const void *x, void *y) {
  EM_TRY(em_pmg_cuda_axpy(n, w, x, y));
  return EM_OK;
}

static em_err sync(void) {
  EM_CUDA(cudaStreamSynchronize(0));
  return EM_OK;
}

static em_err alloc(int32_t n, void **x) {
  return em_dev_alloc(x, NULL, 16 * (size_t)n, NULL, "pmg work vectors");
}

static void release(void **x) {
  em_dev_free(x);
}

const pmg_vops em_pmg_vops_cuda = {zero, copy, sub, axpy, sync, alloc, release};
