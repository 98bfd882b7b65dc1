/* backend_cuda.c - the CUDA backend of solver/: device arrays, cuBLAS,
 * cuSPARSE and the kernels of the *.cu files; the direct factor in device
 * memory, or on the host when it does not fit (em_sv_fallback). */
#include <cuda_runtime.h>

#include "direct_gpu_impl.h"
#include "ilu_impl.h"
#include "pmg_impl.h"
#include "vec_impl.h"

static em_err cuda_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) EM_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
  return EM_OK;
}

static em_err cuda_download(void *h, const void *src, size_t bytes) {
  if (bytes) EM_CUDA(cudaMemcpy(h, src, bytes, cudaMemcpyDeviceToHost));
  return EM_OK;
}

static em_err cuda_upload(void *dst, const void *h, size_t bytes) {
  if (bytes) EM_CUDA(cudaMemcpy(dst, h, bytes, cudaMemcpyHostToDevice));
  return EM_OK;
}

/* cudaHostRegister: a failure (locked memory limit) leaves h pageable and
 * clears the error, so that no later call reports it */
static int cuda_pin(void *h, size_t bytes) {
  if (!h || !bytes) return 0;
  if (cudaHostRegister(h, bytes, cudaHostRegisterDefault) == cudaSuccess) return 1;
  (void)cudaGetLastError();
  return 0;
}

static void cuda_unpin(void *h) {
  if (h && cudaHostUnregister(h) != cudaSuccess) (void)cudaGetLastError();
}

static void direct_free(em_direct *F) {
  em_dgpu_destroy(&F->gpu);
}

static double direct_device_need(const em_direct *F, int64_t nnz_a) {
  return em_dgpu_estimate(F, F->opts.prec, nnz_a);
}

static void direct_gprofile_get(const em_direct *F, em_direct_gprofile *p) {
  if (F->gpu) em_dgpu_profile_get(F, p);
}

static void direct_gprofile_reset(em_direct *F) {
  if (F->gpu) em_dgpu_profile_reset(F->gpu);
}

const em_sv_backend em_sv_backend_cuda = {
    .id = EM_BACKEND_CUDA,
    .name = "GPU",
    .where = "gpu",
    .host = 0,
    .fallback = &em_sv_backend_cpu,
    .trsv =
        1u << EM_TRSV_AUTO | 1u << EM_TRSV_LEVELS | 1u << EM_TRSV_SYNCFREE | 1u << EM_TRSV_CUSPARSE,
    .single_factor = 1,
    .copy = cuda_copy,
    .download = cuda_download,
    .upload = cuda_upload,
    .pin = cuda_pin,
    .unpin = cuda_unpin,
    .vec_init = em_vec_cuda_init,
    .jacobi_build = em_pc_jacobi_build_cuda,
    .ilu0_build = em_pc_ilu0_build_cuda,
    .ilu0_build_cusparse = em_pc_ilu0_build_cusparse,
    .direct_pc_use = em_pc_direct_use_cuda,
    .pmg = &em_pmg_vops_cuda,
    .pmg_impl = "pmg-cuda",
    .direct_numeric = em_direct_numeric_cuda,
    .direct_solve = em_direct_solve_gpu_host,
    .direct_free = direct_free,
    .direct_device_need = direct_device_need,
    .direct_gprofile_get = direct_gprofile_get,
    .direct_gprofile_reset = direct_gprofile_reset,
};
