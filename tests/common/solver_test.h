/* solver_test.h - what the solver tests share: the backend from argv
 * (test_backend of em_test.h), operators, vectors
 * in backend memory, dense references. */
#ifndef EM_SOLVER_TEST_H
#define EM_SOLVER_TEST_H

#include <complex.h>
#include <string.h>

#include "em_solver.h"
#include "em_test.h"
#include "problems.h"

/* y = A x through the plain reference product: the CPU test operator */
static inline em_err test_ref_apply(void *ctx, const void *x, void *y) {
  em_csr_spmv_ref((const em_csr *)ctx, 1, (const em_cplx *)x, 0, (em_cplx *)y);
  return EM_OK;
}

/* The operator of A on a backend: the reference product on the CPU (double),
 * the CSR format of formats/ (em_spmat) on the GPU or in single precision. */
typedef struct test_op {
  em_operator op;
  em_spmat *M;
} test_op;

static inline em_err test_op_create(const em_csr *A, em_backend be, em_prec prec, test_op *t) {
  t->M = NULL;
  if (be == EM_BACKEND_CPU && prec == EM_PREC_DOUBLE) {
    t->op.n = A->n_rows;
    t->op.backend = EM_BACKEND_CPU;
    t->op.prec = EM_PREC_DOUBLE;
    t->op.ctx = (void *)A;
    t->op.apply = test_ref_apply;
    t->op.apply_multi = NULL; /* k reference products */
    t->op.dist = NULL;        /* the whole operator on this process */
    t->op.apply_rows = NULL;  /* whole products */
    return EM_OK;
  }
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_CSR;
  o.backend = be;
  o.prec = prec;
  EM_TRY(em_spmat_create(A, &o, &t->M));
  return em_spmat_operator(t->M, &t->op);
}

static inline void test_op_destroy(test_op *t) {
  em_spmat_destroy(&t->M);
}

/* max_i |x_i - y_i| / max_i |y_i| */
static inline double test_rel_err(const em_cplx *x, const em_cplx *y, int32_t n) {
  double e = 0, s = 0;
  for (int32_t i = 0; i < n; i++) {
    e = fmax(e, cabs(x[i] - y[i]));
    s = fmax(s, cabs(y[i]));
  }
  return s > 0 ? e / s : e;
}

/* ||b - A x|| / ||b|| with the reference product */
static inline double test_true_res(const em_csr *A, const em_cplx *x, const em_cplx *b) {
  em_cplx *r = calloc((size_t)A->n_rows + 1, sizeof *r);
  em_csr_spmv_ref(A, 1, x, 0, r);
  double nr = 0, nb = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    nr += pow(cabs(b[i] - r[i]), 2);
    nb += pow(cabs(b[i]), 2);
  }
  free(r);
  return nb > 0 ? sqrt(nr / nb) : sqrt(nr);
}

/* dense row-major copy of A */
static inline em_cplx *test_dense(const em_csr *A) {
  size_t n = (size_t)A->n_rows;
  em_cplx *D = calloc(n * n + 1, sizeof *D);
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) D[i * n + A->colind[k]] = A->val[k];
  return D;
}

#endif

/* ------------------------------------------------ backend vectors (tests) */
#include "vec_impl.h"

/* z = M^-1 r for host vectors, through backend memory in precision vp */
static inline em_err test_pc_apply_host(em_pc *pc, em_backend be, em_prec vp, int32_t n,
                                        const em_cplx *r, em_cplx *z) {
  em_vec *v = NULL;
  void *dr = NULL, *dz = NULL;
  em_err err = EM_OK;
  EM_TRY(em_vec_create(be, vp, n, 1, &v));
  EM_TRY_GOTO(err, v->ops->alloc(v, 1, &dr), done);
  EM_TRY_GOTO(err, v->ops->alloc(v, 1, &dz), done);
  EM_TRY_GOTO(err, v->ops->upload(v, r, dr), done);
  EM_TRY_GOTO(err, em_pc_apply_prec(pc, vp, dr, dz), done);
  EM_TRY_GOTO(err, v->ops->sync(v), done);
  EM_TRY_GOTO(err, v->ops->download(v, dz, z), done);
done:
  if (dr) v->ops->free(v, &dr);
  if (dz) v->ops->free(v, &dz);
  em_vec_destroy(&v);
  return err;
}

/* the triangular solves to test on a backend: the CPU has one, the GPU three */
static inline int test_trsv_list(em_backend be, em_pc_trsv *list) {
  if (be == EM_BACKEND_CPU) {
    list[0] = EM_TRSV_AUTO;
    return 1;
  }
  list[0] = EM_TRSV_LEVELS;
  list[1] = EM_TRSV_SYNCFREE;
  list[2] = EM_TRSV_CUSPARSE;
  return 3;
}
