/* multi.c - em_ksp_solve_multi: k solves of one operator and one
 * preconditioner as a block, and the shared steps of the lockstep methods
 * (ksp_impl.h).
 *
 * Why: the operator's matrix and the preconditioner's factors are what a
 * Krylov iteration moves through memory; k separate solves move them k
 * times per iteration, a block moves them once (one multi-vector product
 * of the nine blocks, one direct solve with k right-hand sides, one
 * V-cycle on k vectors).  Each column keeps its own scalars and stopping
 * test, so its iterates are those of em_ksp_solve (bit for bit where the
 * operator's and the preconditioner's block applications equal their
 * single ones, as on the CPU). */
#include <math.h>
#include <string.h>

#include "ksp_impl.h"
#include "pc_impl.h"

/* the lockstep form of a method, NULL when it has none */
static ksp_multi_fn multi_of(em_ksp_method m) {
  switch (m) {
    case EM_KSP_BICGSTAB:
      return em_ksp_bicgstab_multi;
    case EM_KSP_COCG:
      return em_ksp_cocg_multi;
    default:
      return NULL;
  }
}

int em_ksp_has_block(em_ksp_method m) {
  return multi_of(m) != NULL;
}

/* the time of a shared step, split evenly among its columns */
static void share(em_ksp_ctx *const *ks, int m, double t, int spmv) {
  for (int j = 0; j < m; j++) {
    if (spmv) {
      ks[j]->st->t_spmv += t / m;
      ks[j]->st->n_spmv++;
    } else {
      ks[j]->st->t_pc += t / m;
      ks[j]->st->n_pc++;
    }
  }
}

em_err ksp_matvec_k(em_ksp_ctx *const *ks, int m, const void *const *x, void *const *y) {
  if (m == 0) return EM_OK;
  em_vec *v = ks[0]->v;
  EM_TRY(v->ops->sync(v));
  double t = em_wtime();
  EM_TRY(em_operator_apply_multi(ks[0]->A, m, x, y));
  EM_TRY(v->ops->sync(v));
  share(ks, m, em_wtime() - t, 1);
  return EM_OK;
}

em_err ksp_precond_k(em_ksp_ctx *const *ks, int m, const void *const *r, void *const *z) {
  if (m == 0) return EM_OK;
  em_vec *v = ks[0]->v;
  EM_TRY(v->ops->sync(v));
  double t = em_wtime();
  if (ks[0]->pc)
    EM_TRY(em_pc_apply_multi(ks[0]->pc, v->prec, m, r, z));
  else
    for (int j = 0; j < m; j++) EM_TRY(v->ops->copy(v, r[j], z[j]));
  EM_TRY(v->ops->sync(v));
  share(ks, m, em_wtime() - t, 0);
  return EM_OK;
}

em_err ksp_residual_k(em_ksp_ctx *const *ks, int m, const void *const *b, const void *const *x,
                      void *const *r, double *rnorm) {
  EM_TRY(ksp_matvec_k(ks, m, x, r));
  if (!m) return EM_OK;
  em_vec *v = ks[0]->v;
  em_cplx one[EM_KSP_MAX_BLOCK], mone[EM_KSP_MAX_BLOCK];
  for (int j = 0; j < m; j++) one[j] = 1.0, mone[j] = -1.0;
  EM_TRY(em_vec_caxpby(v, m, one, b, mone, r)); /* r = b - A x, one launch */
  EM_TRY(em_vec_cnorms(v, m, (const void *const *)r, rnorm));
  return EM_OK;
}

/* The columns one after another (a method without a lockstep form). */
static em_err one_by_one(const em_operator *A, em_pc *pc, int k, const em_cplx *B, int64_t ldb,
                         em_cplx *X, int64_t ldx, const em_ksp_opts *o, em_ksp_stats *st) {
  for (int j = 0; j < k; j++)
    EM_TRY(em_ksp_solve(A, pc, B + (size_t)j * ldb, X + (size_t)j * ldx, o, &st[j]));
  return EM_OK;
}

/* Per-column state of the block driver. */
typedef struct col_state {
  em_ksp_ctx k;
  void *b, *x, *r; /* backend vectors */
  int run;         /* the method runs this column (again) */
  int x0;          /* its initial guess is not zero */
} col_state;

/* The method on the columns marked run, then their true residuals; a
 * column whose recursive residual converged but whose true one did not
 * runs again from it (as em_ksp_solve does).  Returns when none runs. */
static em_err block_loop(col_state *c, int k, ksp_multi_fn method, const em_ksp_opts *o) {
  em_ksp_ctx *ks[EM_KSP_MAX_BLOCK];
  const void *b[EM_KSP_MAX_BLOCK];
  void *x[EM_KSP_MAX_BLOCK], *r[EM_KSP_MAX_BLOCK];
  int col[EM_KSP_MAX_BLOCK];
  double rn[EM_KSP_MAX_BLOCK];
  for (;;) {
    int m = 0;
    for (int j = 0; j < k; j++)
      if (c[j].run) {
        ks[m] = &c[j].k, b[m] = c[j].b, x[m] = c[j].x, r[m] = c[j].r, col[m] = j;
        m++;
      }
    if (!m) return EM_OK;
    EM_TRY(method(ks, m, b, x));
    for (int q = 0; q < m; q++) /* a signal (o->cancel): every column stops */
      EM_CHECK(!ks[q]->cancelled, EM_ERR_CANCELLED, "%s (block of %d): cancelled at iteration %d",
               em_ksp_method_name(o->method), k, ks[q]->it);
    EM_TRY(ksp_residual_k(ks, m, b, (const void *const *)x, r, rn));
    for (int q = 0; q < m; q++) {
      col_state *s = &c[col[q]];
      em_ksp_stats *st = s->k.st;
      st->true_rel_res = rn[q] / s->k.bnorm;
      s->run = !(s->k.reason != EM_KSP_CONVERGED || st->true_rel_res <= o->tol ||
                 s->k.it >= o->max_it || st->restarts >= KSP_MAX_TRUE_RESTARTS);
      if (!s->run) continue;
      st->restarts++;
      em_log_info(o->log, "%s%s: recursive residual converged but the true one is %.3e: restart %d",
                  em_ksp_method_name(o->method), s->k.tag, st->true_rel_res, st->restarts);
    }
  }
}

em_err em_ksp_solve_multi(const em_operator *A, em_pc *pc, int k, const em_cplx *B, int64_t ldb,
                          em_cplx *X, int64_t ldx, const em_ksp_opts *o, em_ksp_stats *st) {
  EM_CHECK(k >= 0 && k <= EM_KSP_MAX_BLOCK, EM_ERR_ARG,
           "em_ksp_solve_multi: %d right-hand sides (0..%d)", k, EM_KSP_MAX_BLOCK);
  EM_CHECK(st || k == 0, EM_ERR_ARG, "em_ksp_solve_multi: NULL statistics");
  if (k == 0) return EM_OK;
  EM_TRY(ksp_check_args(A, pc, B, X, o, st));
  EM_CHECK(ldb >= A->n && ldx >= A->n, EM_ERR_ARG,
           "em_ksp_solve_multi: leading dimensions %lld, %lld below the size %d", (long long)ldb,
           (long long)ldx, A->n);
  ksp_multi_fn method = multi_of(o->method);
  if (k == 1 || !method) return one_by_one(A, pc, k, B, ldb, X, ldx, o, st);
  double t0 = em_wtime();
  int32_t n = A->n;
  col_state c[EM_KSP_MAX_BLOCK];
  memset(c, 0, sizeof c);
  for (int j = 0; j < k; j++) {
    memset(&st[j], 0, sizeof st[j]);
    st[j].reason = EM_KSP_CONVERGED;
    int fb, fx;
    double bn, xn;
    EM_TRY(ksp_op_norm(A, B + (size_t)j * ldb, &bn, &fb));
    EM_TRY(ksp_op_norm(A, X + (size_t)j * ldx, &xn, &fx));
    EM_CHECK(fb, EM_ERR_NUMERIC, "em_ksp_solve_multi: right-hand side %d holds NaN or Inf", j);
    EM_CHECK(fx, EM_ERR_NUMERIC, "em_ksp_solve_multi: initial guess %d holds NaN or Inf", j);
    c[j].k =
        (em_ksp_ctx){A, pc, NULL, o, &st[j], bn, 0, EM_KSP_CONVERGED, 0, 0, -1, 0, "", em_wtime()};
    snprintf(c[j].k.tag, sizeof c[j].k.tag, " [%d]", j + 1);
    c[j].run = bn > 0;
    c[j].x0 = xn > 0;
    if (!c[j].run) memset(X + (size_t)j * ldx, 0, (size_t)n * sizeof *X); /* A x = 0 */
  }
  em_err err = EM_OK;
  em_vec *v = NULL;
  void *V = NULL; /* b, x, r of the columns that run: one block (ksp_alloc_cols) */
  em_ksp_ctx *ks[EM_KSP_MAX_BLOCK];
  int nr = 0;
  double t_norms = em_wtime();
  EM_TRY(ksp_vec_create(A, 1, &v));
  double t_vec = em_wtime();
  for (int j = 0; j < k; j++)
    if (c[j].run) c[j].k.v = v, ks[nr++] = &c[j].k;
  if (nr) EM_TRY_GOTO(err, ksp_alloc_cols(ks, nr, 3, &V), done);
  double t_cols = em_wtime();
  for (int j = 0, q = 0; j < k; j++) {
    if (!c[j].run) continue;
    c[j].b = em_vec_col(v, V, q), c[j].x = em_vec_col(v, V, nr + q);
    c[j].r = em_vec_col(v, V, 2 * nr + q);
    q++;
    EM_TRY_GOTO(err, ksp_upload(v, o, B + (size_t)j * ldb, c[j].b), done);
    if (c[j].x0) /* a zero guess: the zeroed vector as allocated */
      EM_TRY_GOTO(err, ksp_upload(v, o, X + (size_t)j * ldx, c[j].x), done);
  }
  double t_up = em_wtime();
  EM_TRY_GOTO(err, block_loop(c, k, method, o), done);
  double t = em_wtime() - t0, t_loop = em_wtime();
  for (int j = 0; j < k; j++) {
    em_ksp_stats *s = &st[j];
    s->t_total = t / k; /* its share of the block */
    if (!c[j].k.v) continue;
    EM_TRY_GOTO(err, ksp_download(v, o, c[j].x, X + (size_t)j * ldx), done);
    s->reason = c[j].k.reason;
    s->iterations = c[j].k.it;
    s->t_vec = fmax(0, s->t_total - s->t_spmv - s->t_pc);
    em_log_info(o->log, "%s%s: %s after %d iterations, |b-Ax|/|b| = %.3e (recursive %.3e)",
                em_ksp_method_name(o->method), c[j].k.tag, em_ksp_reason_name(s->reason),
                s->iterations, s->true_rel_res, s->rel_res);
  }
  /* where a block's time goes beside its iterations (issue 28: the columns'
     host-side work is what a block cannot share) */
  em_log_verbose(o->log,
                 "%s block of %d: norms, vectors and uploads %.3f s (norms %.3f, vector backend "
                 "%.3f, the block's vectors %.3f, uploads %.3f), iterations and true residuals "
                 "%.3f s, downloads %.3f s",
                 em_ksp_method_name(o->method), k, t_up - t0, t_norms - t0, t_vec - t_norms,
                 t_cols - t_vec, t_up - t_cols, t_loop - t_up, em_wtime() - t_loop);
done:
  if (nr) ksp_free(ks[0], &V);
  em_vec_destroy(&v);
  return err;
}
