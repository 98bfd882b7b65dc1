/* direct_cuda.c - EM_PC_DIRECT with the CUDA backend: the factors stay on
 * the host for now (docs/solvers.md); an apply downloads r, solves on the
 * host and uploads z, on the legacy default stream that the Krylov vectors
 * use, so the copies wait for the work that produced r. */
#include <cuda_runtime.h>

#include "direct_impl.h"
#include "pc_impl.h"

static em_err direct_apply_cuda(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_direct_pc *p = pc->data;
  size_t bytes = (size_t)pc->n * em_prec_size(vec_prec);
  if (bytes == 0) return EM_OK;
  EM_CUDA(cudaMemcpy(p->hr, r, bytes, cudaMemcpyDeviceToHost));
  EM_TRY(em_direct_pc_host_apply(p, vec_prec, p->hr, p->hz));
  EM_CUDA(cudaMemcpy(z, p->hz, bytes, cudaMemcpyHostToDevice));
  return EM_OK;
}

static const em_pc_ops DIRECT_CUDA = {direct_apply_cuda, em_direct_pc_destroy, em_direct_pc_update};

em_err em_pc_direct_use_cuda(em_pc *pc) {
  em_direct_pc *p = pc->data;
  size_t n = (size_t)pc->n + 1;
  EM_TRY(em_calloc(&p->hr, n, sizeof(em_cplx), "direct preconditioner host copy of r"));
  EM_TRY(em_calloc(&p->hz, n, sizeof(em_cplx), "direct preconditioner host copy of z"));
  pc->ops = &DIRECT_CUDA;
  pc->info.impl = "direct-ldlt";
  pc->info.bytes += 2 * n * sizeof(em_cplx);
  return EM_OK;
}
