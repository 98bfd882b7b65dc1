/* jacobi_cuda.c - point Jacobi on the GPU: the inverse diagonal uploaded in
 * the pc's precision, z = dinv .* r in one kernel. */
#include <cuda_runtime.h>

#include "cuda_impl.h"
#include "pc_impl.h"

typedef struct jacobi_cuda {
  void *dinv; /* device, n entries in the pc's precision */
} jacobi_cuda;

static em_err jacobi_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  jacobi_cuda *j = pc->data;
  EM_TRY(em_sv_cuda_pointwise(pc->n, j->dinv, pc->opts.prec == EM_PREC_SINGLE, r, z,
                              vec_prec == EM_PREC_SINGLE, NULL));
  return EM_OK;
}

static void jacobi_destroy(em_pc *pc) {
  jacobi_cuda *j = pc->data;
  if (!j) return;
  em_dev_free(&j->dinv);
  em_free(&pc->data);
}

static const em_pc_ops JACOBI_CUDA = {jacobi_apply, jacobi_destroy, NULL, NULL};

em_err em_pc_jacobi_build_cuda(const em_csr *A, em_pc *pc) {
  em_err err = EM_OK;
  jacobi_cuda *j = NULL;
  em_cplx *d = NULL;
  em_cplxf *f = NULL;
  EM_TRY(em_calloc(&j, 1, sizeof *j, "Jacobi preconditioner"));
  pc->data = j;
  pc->ops = &JACOBI_CUDA;
  size_t n = (size_t)A->n_rows, es = em_prec_size(pc->opts.prec);
  EM_TRY(em_calloc(&d, n, sizeof *d, "Jacobi inverse diagonal"));
  EM_TRY_GOTO(err, em_pc_inverse_diagonal(A, d), done);
  const void *h = d;
  if (pc->opts.prec == EM_PREC_SINGLE) {
    EM_TRY_GOTO(err, em_calloc(&f, n, sizeof *f, "Jacobi inverse diagonal"), done);
    for (size_t i = 0; i < n; i++) f[i] = (em_cplxf)d[i];
    h = f;
  }
  EM_TRY_GOTO(err, em_dev_alloc(&j->dinv, h, n * es, NULL, "Jacobi inverse diagonal"), done);
  pc->info.bytes = n * es;
done:
  em_free(&d);
  em_free(&f);
  return err;
}
