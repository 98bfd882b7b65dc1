/* direct_cuda.c - EM_PC_DIRECT with the CUDA backend: with the factor on the
 * GPU an apply is a device solve on the Krylov method's vectors (no PCIe);
 * with the factor on the host (it did not fit in device memory) r goes
 * down, the host solves, z comes back, on the legacy default stream that
 * the Krylov vectors use, so the copies wait for the work that produced r. */
#include <cuda_runtime.h>

#include "direct_gpu_impl.h"
#include "pc_impl.h"

static em_err direct_apply_gpu(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_direct_pc *p = pc->data;
  return em_direct_solve_cuda(p->F, 1, r, pc->n, z, pc->n, vec_prec == EM_PREC_SINGLE);
}

static em_err direct_apply_host(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_direct_pc *p = pc->data;
  size_t bytes = (size_t)pc->n * em_prec_size(vec_prec);
  if (bytes == 0) return EM_OK;
  EM_CUDA(cudaMemcpy(p->hr, r, bytes, cudaMemcpyDeviceToHost));
  EM_TRY(em_direct_pc_host_apply(p, vec_prec, p->hr, p->hz));
  EM_CUDA(cudaMemcpy(z, p->hz, bytes, cudaMemcpyHostToDevice));
  return EM_OK;
}

static const em_pc_ops DIRECT_GPU = {direct_apply_gpu, em_direct_pc_destroy, em_direct_pc_update};
static const em_pc_ops DIRECT_HOST = {direct_apply_host, em_direct_pc_destroy, em_direct_pc_update};

em_err em_pc_direct_use_cuda(em_pc *pc) {
  em_direct_pc *p = pc->data;
  if (p->F->gpu && !p->F->on_host) {
    pc->ops = &DIRECT_GPU;
    pc->info.impl = "direct-ldlt-gpu";
    return EM_OK;
  }
  size_t n = (size_t)pc->n + 1;
  EM_TRY(em_calloc(&p->hr, n, sizeof(em_cplx), "direct preconditioner host copy of r"));
  EM_TRY(em_calloc(&p->hz, n, sizeof(em_cplx), "direct preconditioner host copy of z"));
  pc->ops = &DIRECT_HOST;
  pc->info.impl = "direct-ldlt";
  pc->info.bytes += 2 * n * sizeof(em_cplx);
  return EM_OK;
}
