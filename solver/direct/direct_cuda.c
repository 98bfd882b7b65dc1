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

/* *ld when the k columns v[j] are v[0] + j ld elements of es bytes apart
 * with ld >= n (one strided block), else 0. */
static int64_t stride_of(int k, const void *const *v, size_t es, int32_t n) {
  ptrdiff_t d = (const char *)v[1] - (const char *)v[0];
  if (d <= 0 || d % (ptrdiff_t)es || d / (ptrdiff_t)es < n) return 0;
  for (int j = 2; j < k; j++)
    if ((const char *)v[j] - (const char *)v[j - 1] != d) return 0;
  return (int64_t)(d / (ptrdiff_t)es);
}

/* k >= 2 columns in one device solve: in place when r and z are each one
 * strided block, else through a staging block (copies on the legacy
 * stream, which the solve waits for and which waits for it). */
static em_err direct_apply_gpu_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r,
                                     void *const *z) {
  em_direct_pc *p = pc->data;
  int32_t n = pc->n;
  size_t es = em_prec_size(vec_prec);
  int single = vec_prec == EM_PREC_SINGLE;
  int64_t lr = stride_of(k, r, es, n), lz = stride_of(k, (const void *const *)z, es, n);
  if (lr && lz) return em_direct_solve_cuda(p->F, k, r[0], lr, z[0], lz, single);
  size_t col = (size_t)n * es;
  if (k > p->cap_k || !p->dstage) {
    em_dev_free(&p->dstage);
    EM_TRY(em_dev_alloc(&p->dstage, NULL, 2 * col * (size_t)k, NULL,
                        "direct preconditioner staging of k columns"));
    p->cap_k = k;
  }
  char *sr = p->dstage, *sz = sr + col * (size_t)k;
  for (int j = 0; j < k; j++) EM_TRY(pc->be->copy(sr + j * col, r[j], col));
  EM_TRY(em_direct_solve_cuda(p->F, k, sr, n, sz, n, single));
  for (int j = 0; j < k; j++) EM_TRY(pc->be->copy(z[j], sz + j * col, col));
  return EM_OK;
}

/* the staging block, then what every backend frees */
static void direct_destroy_gpu(em_pc *pc) {
  em_direct_pc *p = pc->data;
  if (p) em_dev_free(&p->dstage);
  em_direct_pc_destroy(pc);
}

static const em_pc_ops DIRECT_GPU = {direct_apply_gpu, direct_destroy_gpu, em_direct_pc_update,
                                     direct_apply_gpu_multi};

em_err em_pc_direct_use_cuda(em_pc *pc) {
  pc->ops = &DIRECT_GPU;
  pc->info.impl = "direct-ldlt-gpu";
  return EM_OK;
}
