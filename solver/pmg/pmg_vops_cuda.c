/* pmg_vops_cuda.c - the V-cycle's vector operations on the GPU, on the
 * legacy default stream that the SpMVs, the Krylov vectors and the
 * preconditioner applies share. */
#include <cuda_runtime.h>

#include "pmg_impl.h"

int em_pmg_cuda_sub(int32_t n, const void *a, const void *b, void *c);
int em_pmg_cuda_gather_sub(int32_t n, const int32_t *idx, const void *a, const void *b, void *c);
int em_pmg_cuda_scatter_add(int32_t n, const int32_t *idx, double w, const void *x, void *y);

static em_err zero(int32_t n, void *x) {
  EM_CUDA(cudaMemsetAsync(x, 0, 16 * (size_t)n, 0));
  return EM_OK;
}

static em_err sub(int32_t n, const void *a, const void *b, void *c) {
  EM_CUDA(em_pmg_cuda_sub(n, a, b, c));
  return EM_OK;
}

static em_err gather_sub(int32_t n, const int32_t *idx, const void *a, const void *b, void *c) {
  EM_CUDA(em_pmg_cuda_gather_sub(n, idx, a, b, c));
  return EM_OK;
}

static em_err scatter_add(int32_t n, const int32_t *idx, double w, const void *x, void *y) {
  EM_CUDA(em_pmg_cuda_scatter_add(n, idx, w, x, y));
  return EM_OK;
}

static em_err sync(void) {
  EM_CUDA(cudaStreamSynchronize(0));
  return EM_OK;
}

const pmg_vops em_pmg_vops_cuda = {zero, sub, gather_sub, scatter_add, sync};

em_err em_pmg_cuda_alloc(void **p, size_t bytes) {
  *p = NULL;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 16);
  if (e != cudaSuccess) {
    *p = NULL;
    return em_cuda_status((int)e, "cudaMalloc of the pmg work arrays", __FILE__, __LINE__);
  }
  return EM_OK;
}

em_err em_pmg_cuda_upload(void *d, const void *h, size_t bytes) {
  if (bytes) EM_CUDA(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
  return EM_OK;
}

void em_pmg_cuda_free(void **p) {
  if (*p) cudaFree(*p);
  *p = NULL;
}
