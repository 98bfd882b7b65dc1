/* devmem_cuda.c - uploads of format arrays to the GPU, with errors that name
 * the array (GPU out of memory says which array did not fit). */
#include <cuda_runtime.h>

#include "formats_impl.h"

em_err em_fmt_dev_upload(void **d, const void *h, size_t bytes, const char *what) {
  *d = NULL;
  if (bytes == 0) return EM_OK;
  cudaError_t e = cudaMalloc(d, bytes);
  if (e != cudaSuccess) {
    *d = NULL;
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
      return EM_RAISE(EM_ERR_GPU_MEMORY, "GPU out of memory allocating %zu bytes for %s", bytes,
                      what);
    return EM_RAISE(EM_ERR_CUDA, "cudaMalloc of %zu bytes for %s failed: %s", bytes, what,
                    cudaGetErrorName(e));
  }
  e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(*d);
    *d = NULL;
    return EM_RAISE(EM_ERR_CUDA, "upload of %s (%zu bytes) failed: %s", what, bytes,
                    cudaGetErrorName(e));
  }
  return EM_OK;
}

em_err em_fmt_dev_upload_vals(void **d, const em_cplx *h, size_t n, em_prec p, const char *what) {
  if (p == EM_PREC_DOUBLE) return em_fmt_dev_upload(d, h, n * sizeof *h, what);
  em_cplxf *s = NULL;
  EM_TRY(em_calloc(&s, n, sizeof *s, what));
  for (size_t i = 0; i < n; i++) s[i] = (em_cplxf)h[i];
  em_err err = em_fmt_dev_upload(d, s, n * sizeof *s, what);
  em_free(&s);
  return err;
}

void em_fmt_dev_free(void **d) {
  if (*d) cudaFree(*d);
  *d = NULL;
}
