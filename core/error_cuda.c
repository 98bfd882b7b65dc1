/* error_cuda.c - adapters from CUDA, cuSPARSE and cuBLAS statuses to em_err,
 * keeping each library's own name for the status in the message. */
#include "em_core.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

em_err em_cuda_status(int status, const char *what, const char *file, int line) {
  if (status == cudaSuccess) return EM_OK;
  cudaError_t e = (cudaError_t)status;
  (void)cudaGetLastError(); /* clear a sticky-free error so later calls work */
  if (e == cudaErrorMemoryAllocation)
    return em_error_raise(EM_ERR_GPU_MEMORY, file, line, "GPU out of memory in %s (%s)", what,
                          cudaGetErrorName(e));
  return em_error_raise(EM_ERR_CUDA, file, line, "%s failed: %s (%s)", what, cudaGetErrorName(e),
                        cudaGetErrorString(e));
}

em_err em_cusparse_status(int status, const char *what, const char *file, int line) {
  if (status == CUSPARSE_STATUS_SUCCESS) return EM_OK;
  cusparseStatus_t s = (cusparseStatus_t)status;
  if (s == CUSPARSE_STATUS_ALLOC_FAILED)
    return em_error_raise(EM_ERR_GPU_MEMORY, file, line, "GPU out of memory in %s (%s)", what,
                          cusparseGetErrorName(s));
  return em_error_raise(EM_ERR_CUSPARSE, file, line, "%s failed: %s (%s)", what,
                        cusparseGetErrorName(s), cusparseGetErrorString(s));
}

em_err em_cublas_status(int status, const char *what, const char *file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return EM_OK;
  cublasStatus_t s = (cublasStatus_t)status;
  if (s == CUBLAS_STATUS_ALLOC_FAILED)
    return em_error_raise(EM_ERR_GPU_MEMORY, file, line, "GPU out of memory in %s (%s)", what,
                          cublasGetStatusName(s));
  return em_error_raise(EM_ERR_CUBLAS, file, line, "%s failed: %s (%s)", what,
                        cublasGetStatusName(s), cublasGetStatusString(s));
}
