/* devmem_cuda.c - device arrays of solver/ with errors that name the array
 * (GPU out of memory says which array did not fit). */
#include <cuda_runtime.h>

#include "cuda_impl.h"

em_err em_sv_dev_alloc(void **d, const void *h, size_t bytes, size_t *total, const char *what) {
  *d = NULL;
  cudaError_t e = cudaMalloc(d, bytes ? bytes : 16);
  if (e != cudaSuccess) {
    *d = NULL;
    (void)cudaGetLastError();
    return EM_RAISE(e == cudaErrorMemoryAllocation ? EM_ERR_GPU_MEMORY : EM_ERR_CUDA,
                    "cudaMalloc of %zu bytes for %s: %s", bytes, what, cudaGetErrorName(e));
  }
  if (total) *total += bytes;
  if (bytes && h) {
    e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) { /* the caller frees *d with the rest of its object */
      (void)cudaGetLastError();
      return EM_RAISE(EM_ERR_CUDA, "upload of %s (%zu bytes): %s", what, bytes,
                      cudaGetErrorName(e));
    }
  }
  return EM_OK;
}
