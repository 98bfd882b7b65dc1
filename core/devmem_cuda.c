/* devmem_cuda.c - GPU arrays of every module, with errors that name the
 * array (GPU out of memory says which array did not fit).  The one place
 * that calls cudaMalloc for an object's arrays; a module's own scratch that
 * lives for one call may still use the stream-ordered allocator. */
#include <cuda_runtime.h>

#include "em_core.h"

/* *d = cudaMalloc(max(bytes, 16)) [+ copy of h]; *total += bytes. */
em_err em_dev_alloc(void **d, const void *h, size_t bytes, size_t *total, const char *what) {
  *d = NULL;
  cudaError_t e = cudaMalloc(d, bytes ? bytes : 16);
  if (e != cudaSuccess) {
    *d = NULL;
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
      return EM_RAISE(EM_ERR_GPU_MEMORY, "GPU out of memory allocating %zu bytes for %s", bytes,
                      what);
    return EM_RAISE(EM_ERR_CUDA, "cudaMalloc of %zu bytes for %s failed: %s", bytes, what,
                    cudaGetErrorName(e));
  }
  if (bytes && h) {
    e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      cudaFree(*d);
      *d = NULL;
      return EM_RAISE(EM_ERR_CUDA, "upload of %s (%zu bytes) failed: %s", what, bytes,
                      cudaGetErrorName(e));
    }
  }
  if (total) *total += bytes;
  return EM_OK;
}

/* Values in precision p: double as they are, single through a host copy. */
em_err em_dev_upload_vals(void **d, const em_cplx *h, size_t n, em_prec p, size_t *total,
                          const char *what) {
  if (p == EM_PREC_DOUBLE) return em_dev_alloc(d, h, n * sizeof *h, total, what);
  *d = NULL;
  em_cplxf *s = NULL;
  EM_TRY(em_calloc(&s, n, sizeof *s, what));
  for (size_t i = 0; i < n; i++) s[i] = (em_cplxf)h[i];
  em_err err = em_dev_alloc(d, s, n * sizeof *s, total, what);
  em_free(&s);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

void em_dev_free(void *pptr) {
  void **p = (void **)pptr;
  if (*p) cudaFree(*p);
  *p = NULL;
}

int em_host_pin(void *p, size_t bytes) {
  if (!p || !bytes) return 0;
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: the array stays pageable */
    return 0;
  }
  return 1;
}

void em_host_unpin(void *p) {
  if (p && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

int em_host_pinned(const void *p) {
  struct cudaPointerAttributes a;
  if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.type == cudaMemoryTypeHost;
}
