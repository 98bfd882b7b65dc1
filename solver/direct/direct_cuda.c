/* direct_cuda.c - EM_PC_DIRECT with the factor on the GPU: an apply is a
 * device solve on the Krylov method's vectors (no PCIe).  A factor that
 * did not fit in device memory lives on the host and is staged
 * (direct_pc.c). */
#include "direct_gpu_impl.h"
#include "pc_impl.h"

static em_err direct_apply_gpu(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_direct_pc *p = pc->data;
  return em_direct_solve_cuda(p->F, 1, r, pc->n, z, pc->n, vec_prec == EM_PREC_SINGLE);
}

static const em_pc_ops DIRECT_GPU = {direct_apply_gpu, em_direct_pc_destroy, em_direct_pc_update};

em_err em_pc_direct_use_cuda(em_pc *pc) {
  pc->ops = &DIRECT_GPU;
  pc->info.impl = "direct-ldlt-gpu";
  return EM_OK;
}
