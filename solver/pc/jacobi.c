/* jacobi.c - point Jacobi: M = diag(A), z_i = r_i / a_ii.  Symmetric, so
 * fit for COCG/COCR; costs one pass over three vectors (about 2% of an
 * order-3 SpMV).  The inverse diagonal is stored in the pc's precision. */
#include "pc_impl.h"

typedef struct jacobi_cpu {
  void *dinv; /* n inverse diagonal entries, em_cplx or em_cplxf */
} jacobi_cpu;

/* z = dinv .* r for the four combinations of vector and storage precision */
#define JACOBI_LOOP(VT, DT)                                                                       \
  do {                                                                                            \
    const VT *rr = r;                                                                             \
    VT *zz = z;                                                                                   \
    const DT *d = j->dinv;                                                                        \
    _Pragma("omp parallel for schedule(static) if (pc->n > 8192)") for (int32_t i = 0; i < pc->n; \
                                                                        i++) zz[i] =              \
        (VT)(d[i] * rr[i]);                                                                       \
  } while (0)

static em_err jacobi_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  jacobi_cpu *j = pc->data;
  int vs = vec_prec == EM_PREC_SINGLE, ds = pc->opts.prec == EM_PREC_SINGLE;
  if (!vs && !ds) JACOBI_LOOP(em_cplx, em_cplx);
  if (!vs && ds) JACOBI_LOOP(em_cplx, em_cplxf);
  if (vs && !ds) JACOBI_LOOP(em_cplxf, em_cplx);
  if (vs && ds) JACOBI_LOOP(em_cplxf, em_cplxf);
  return EM_OK;
}

static void jacobi_destroy(em_pc *pc) {
  jacobi_cpu *j = pc->data;
  if (!j) return;
  em_free(&j->dinv);
  em_free(&pc->data);
}

static const em_pc_ops JACOBI_CPU = {jacobi_apply, jacobi_destroy, NULL, NULL};

em_err em_pc_jacobi_build(const em_csr *A, em_pc *pc) {
  pc->info.impl = "jacobi";
  return pc->be->jacobi_build(A, pc);
}

em_err em_pc_jacobi_build_cpu(const em_csr *A, em_pc *pc) {
  jacobi_cpu *j = NULL;
  EM_TRY(em_calloc(&j, 1, sizeof *j, "Jacobi preconditioner"));
  pc->data = j;
  pc->ops = &JACOBI_CPU;
  em_cplx *d = NULL;
  EM_TRY(em_calloc(&d, (size_t)A->n_rows, sizeof *d, "Jacobi inverse diagonal"));
  j->dinv = d;
  EM_TRY(em_pc_inverse_diagonal(A, d));
  if (pc->opts.prec == EM_PREC_SINGLE) {
    em_cplxf *f = NULL;
    EM_TRY(em_calloc(&f, (size_t)A->n_rows, sizeof *f, "Jacobi inverse diagonal"));
    for (int32_t i = 0; i < A->n_rows; i++) f[i] = (em_cplxf)d[i];
    j->dinv = f;
    em_free(&d);
  }
  pc->info.bytes = (size_t)A->n_rows * em_prec_size(pc->opts.prec);
  return EM_OK;
}
