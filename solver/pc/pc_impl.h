/* pc_impl.h - the preconditioner object (private to solver/): an ops table
 * on an opaque handle, one builder per type and backend. */
#ifndef EM_SOLVER_PC_IMPL_H
#define EM_SOLVER_PC_IMPL_H

#include "backend_impl.h"
#include "em_solver.h"

typedef struct em_pc_ops {
  /* z = M^-1 r for vectors of precision vec_prec in the pc's backend */
  em_err (*apply)(em_pc *pc, em_prec vec_prec, const void *r, void *z);
  /* free pc->data and everything it owns */
  void (*destroy)(em_pc *pc);
  /* new values of A, same pattern: refactor on the kept analysis (NULL:
     em_pc_update rebuilds the preconditioner from scratch) */
  em_err (*update)(em_pc *pc, const em_csr *A, const em_log *log);
  /* z[j] = M^-1 r[j] for k >= 1 vectors at once, each column as apply
     gives it (NULL: em_pc_apply_multi makes k applies) */
  em_err (*apply_multi)(em_pc *pc, em_prec vec_prec, int k, const void *const *r, void *const *z);
} em_pc_ops;

struct em_pc {
  em_pc_opts opts;         /* as given, trsv resolved (never AUTO) */
  em_pc_info info;         /* filled by the builder; t_setup by em_pc_create */
  int32_t n;               /* size */
  const em_sv_backend *be; /* the table of opts.backend, chosen by em_pc_create */
  const em_pc_ops *ops;
  void *data; /* the type's own state */
};

/* Builders: A already checked square with sorted columns; pc->opts and
 * pc->n set.  On failure they leave pc->ops NULL or destroyable. */
em_err em_pc_identity_build(const em_csr *A, em_pc *pc);
em_err em_pc_jacobi_build(const em_csr *A, em_pc *pc);
em_err em_pc_ilu0_build(const em_csr *A, em_pc *pc, const em_log *log);
em_err em_pc_pmg_build(const em_csr *A, em_pc *pc, const em_log *log); /* solver/pmg */
/* The backends' Jacobi (jacobi.c, jacobi_cuda.c; em_pc_jacobi_build picks). */
em_err em_pc_jacobi_build_cpu(const em_csr *A, em_pc *pc);
em_err em_pc_jacobi_build_cuda(const em_csr *A, em_pc *pc);

/* The inverse diagonal of A in complex double: EM_ERR_NUMERIC naming the
 * first row whose diagonal is missing, zero or not finite. */
em_err em_pc_inverse_diagonal(const em_csr *A, em_cplx *dinv);

#endif
