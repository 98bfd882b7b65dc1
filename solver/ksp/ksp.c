/* ksp.c - em_ksp_solve: checks, vectors, the method, the true residual, the
 * statistics; and the helpers every method shares (ksp_impl.h). */
#include <math.h>
#include <string.h>

#include "em_dist.h"
#include "ksp_impl.h"
#include "pc_impl.h"

em_err ksp_alloc(em_ksp_ctx *k, int count, void **X) {
  EM_TRY(k->v->ops->alloc(k->v, count, X));
  k->st->vec_bytes += (size_t)count * (size_t)k->v->n * k->v->elsize;
  return EM_OK;
}

em_err ksp_upload(em_vec *v, const em_ksp_opts *o, const em_cplx *h, void *x) {
  if (!o->perm) return v->ops->upload(v, h, x);
  if (v->ops->upload_perm) return v->ops->upload_perm(v, h, o->perm, x);
  em_cplx *t = NULL;
  EM_TRY(em_calloc(&t, (size_t)v->n + 1, sizeof *t, "a permuted column"));
  for (int32_t i = 0; i < v->n; i++) t[o->perm[i]] = h[i];
  em_err err = v->ops->upload(v, t, x);
  em_free(&t);
  return err;
}

em_err ksp_download(em_vec *v, const em_ksp_opts *o, const void *x, em_cplx *h) {
  if (!o->perm) return v->ops->download(v, x, h);
  if (v->ops->download_perm) return v->ops->download_perm(v, x, o->perm, h);
  em_cplx *t = NULL;
  EM_TRY(em_calloc(&t, (size_t)v->n + 1, sizeof *t, "a permuted column"));
  em_err err = v->ops->download(v, x, t);
  if (!err)
    for (int32_t i = 0; i < v->n; i++) h[i] = t[o->perm[i]];
  em_free(&t);
  return err;
}

em_err ksp_alloc_cols(em_ksp_ctx *const *ks, int m, int count, void **X) {
  em_vec *v = ks[0]->v;
  EM_TRY(v->ops->alloc(v, count * m, X));
  for (int j = 0; j < m; j++) ks[j]->st->vec_bytes += (size_t)count * (size_t)v->n * v->elsize;
  return EM_OK;
}

void ksp_free(em_ksp_ctx *k, void **X) {
  if (*X) k->v->ops->free(k->v, X);
}

/* y = A x; syncs on both sides so the time is the operator's alone */
em_err ksp_matvec(em_ksp_ctx *k, const void *x, void *y) {
  EM_TRY(k->v->ops->sync(k->v));
  double t = em_wtime();
  EM_TRY(k->A->apply(k->A->ctx, x, y));
  EM_TRY(k->v->ops->sync(k->v));
  k->st->t_spmv += em_wtime() - t;
  k->st->n_spmv++;
  return EM_OK;
}

/* z = M^-1 r, or z = r without a preconditioner */
em_err ksp_precond(em_ksp_ctx *k, const void *r, void *z) {
  EM_TRY(k->v->ops->sync(k->v));
  double t = em_wtime();
  if (k->pc)
    EM_TRY(em_pc_apply_prec(k->pc, k->v->prec, r, z));
  else
    EM_TRY(k->v->ops->copy(k->v, r, z));
  EM_TRY(k->v->ops->sync(k->v));
  k->st->t_pc += em_wtime() - t;
  k->st->n_pc++;
  return EM_OK;
}

/* r = b - A x */
em_err ksp_residual(em_ksp_ctx *k, const void *b, const void *x, void *r, double *rnorm) {
  EM_TRY(ksp_matvec(k, x, r));
  EM_TRY(k->v->ops->axpby(k->v, 1.0, b, -1.0, r));
  EM_TRY(em_vec_norm(k->v, r, rnorm));
  return EM_OK;
}

int ksp_stop(em_ksp_ctx *k, double rnorm) {
  const em_ksp_opts *o = k->o;
  double rel = rnorm / k->bnorm;
  k->st->iterations = k->it;
  k->st->rel_res = rel;
  if (em_cancelled(o->cancel)) { /* a signal: em_ksp_solve raises EM_ERR_CANCELLED */
    k->cancelled = 1;
    return 1;
  }
  /* every log_every iterations, and with --verbose at least every quarter
     second: a verbose log never goes silent for long (the stage gaps) */
  double now = o->log_every > 0 ? em_wtime() : 0;
  int due = o->log_every > 0 && k->it != k->logged_it &&
            (k->it % o->log_every == 0 ||
             (o->log && o->log->level >= EM_LOG_VERBOSE && now - k->t_logged > 0.25));
  if (due) { /* with --verbose the seconds since the last line, which they explain */
    if (o->log && o->log->level >= EM_LOG_VERBOSE)
      em_log_info(o->log, "%s%s: iteration %5d  |r|/|b| = %.3e  (%.2f s)",
                  em_ksp_method_name(o->method), k->tag, k->it, rel, now - k->t_logged);
    else
      em_log_info(o->log, "%s%s: iteration %5d  |r|/|b| = %.3e", em_ksp_method_name(o->method),
                  k->tag, k->it, rel);
    k->logged_it = k->it;
    k->t_logged = now;
  }
  if (!isfinite(rel) || rel > EM_KSP_DIVERGENCE) {
    k->reason = EM_KSP_DIVERGED;
    em_log_warn(o->log, "%s%s: diverged at iteration %d (|r|/|b| = %.3e)",
                em_ksp_method_name(o->method), k->tag, k->it, rel);
    return 1;
  }
  if (rel <= o->tol) {
    k->reason = EM_KSP_CONVERGED;
    return 1;
  }
  if (k->it >= o->max_it) {
    k->reason = EM_KSP_MAX_ITER;
    return 1;
  }
  if (k->it == 0 || rnorm < EM_KSP_STAG_FACTOR * k->stag_ref) {
    k->stag_ref = rnorm;
    k->stag_it = k->it;
  } else if (k->it - k->stag_it >= EM_KSP_STAG_WINDOW) {
    k->reason = EM_KSP_STAGNATED;
    em_log_warn(o->log, "%s%s: stagnated: |r| fell by less than 1%% in the last %d iterations",
                em_ksp_method_name(o->method), k->tag, EM_KSP_STAG_WINDOW);
    return 1;
  }
  return 0;
}

int ksp_vanished(const em_ksp_ctx *k, em_cplx d, double scale) {
  /* rounding leaves |d| ~ eps * scale where the exact value is 0 */
  double rel = k->v->prec == EM_PREC_SINGLE ? 1e-7 : 1e-14;
  return !(isfinite(cabs(d)) && cabs(d) > rel * scale && d != 0);
}

int ksp_breakdown(em_ksp_ctx *k, em_cplx d, double scale, const char *what) {
  if (!ksp_vanished(k, d, scale)) return 0;
  k->reason = EM_KSP_BREAKDOWN;
  em_log_warn(k->o->log, "%s%s: breakdown at iteration %d: %s = %.3e (scale %.3e)",
              em_ksp_method_name(k->o->method), k->tag, k->it, what, cabs(d), scale);
  return 1;
}

/* ||h||_2 of a host vector, and whether every entry is finite: partial
 * sums over fixed chunks (at most KSP_NORM_PARTS of them, their size a
 * function of n alone) added in chunk order, so the value does not depend
 * on the threads (a block solve's columns get their one-column norms) */
#define KSP_NORM_PARTS 256
double ksp_host_norm(const em_cplx *h, int32_t n, int *finite) {
  int64_t ch = ((int64_t)n + KSP_NORM_PARTS - 1) / KSP_NORM_PARTS;
  if (ch < 4096) ch = 4096;
  int np = (int)(((int64_t)n + ch - 1) / ch);
  double part[KSP_NORM_PARTS];
  int bad[KSP_NORM_PARTS];
#pragma omp parallel for schedule(static) if (np > 1)
  for (int c = 0; c < np; c++) {
    int64_t i1 = (c + 1) * ch < n ? (c + 1) * ch : n;
    double s = 0;
    int nf = 0;
    for (int64_t i = c * ch; i < i1; i++) {
      double re = creal(h[i]), im = cimag(h[i]);
      if (!isfinite(re) || !isfinite(im)) nf = 1;
      s += re * re + im * im;
    }
    part[c] = s;
    bad[c] = nf;
  }
  double s = 0;
  *finite = 1;
  for (int c = 0; c < np; c++) {
    s += part[c];
    if (bad[c]) *finite = 0;
  }
  return sqrt(s);
}

em_err ksp_op_norm(const em_operator *A, const em_cplx *h, double *nrm, int *finite) {
  double s[2];
  *nrm = ksp_host_norm(h, A->n, finite);
  if (!A->dist) return EM_OK;
  s[0] = *nrm * *nrm;
  s[1] = *finite ? 0 : 1;
  EM_TRY(em_dist_allreduce(A->dist, s, 2, EM_DIST_DOUBLE, EM_DIST_SUM));
  *nrm = sqrt(s[0]);
  *finite = s[1] == 0;
  return EM_OK;
}

em_err ksp_vec_create(const em_operator *A, int max_k, em_vec **v) {
  EM_TRY(em_vec_create(A->backend, A->prec, A->n, max_k, v));
  em_err err = em_vec_distribute(*v, A->dist);
  if (err) em_vec_destroy(v);
  return err;
}

typedef em_err (*ksp_method_fn)(em_ksp_ctx *k, const void *b, void *x);

static ksp_method_fn method_of(em_ksp_method m) {
  switch (m) {
    case EM_KSP_BICGSTAB:
      return em_ksp_bicgstab;
    case EM_KSP_COCG:
      return em_ksp_cocg;
    case EM_KSP_COCR:
      return em_ksp_cocr;
    case EM_KSP_GMRES:
      return em_ksp_gmres;
    case EM_KSP_FGMRES:
      return em_ksp_fgmres;
  }
  return NULL;
}

/* check what the caller handed in; every message names the culprit */
em_err ksp_check_args(const em_operator *A, em_pc *pc, const em_cplx *b, em_cplx *x,
                      const em_ksp_opts *o, em_ksp_stats *st) {
  EM_CHECK(A && o && st, EM_ERR_ARG, "em_ksp_solve: NULL operator, options or statistics");
  EM_CHECK(A->apply, EM_ERR_ARG, "em_ksp_solve: the operator has no apply function");
  EM_CHECK(A->n >= 0, EM_ERR_ARG, "em_ksp_solve: operator size %d is negative", A->n);
  EM_CHECK((b && x) || A->n == 0, EM_ERR_ARG, "em_ksp_solve: NULL right-hand side or solution");
  EM_CHECK(method_of(o->method), EM_ERR_ARG, "em_ksp_solve: unknown method %d", (int)o->method);
  EM_CHECK(o->tol > 0 && o->tol < 1, EM_ERR_ARG, "em_ksp_solve: tolerance %g not in (0, 1)",
           o->tol);
  EM_CHECK(o->max_it >= 0, EM_ERR_ARG, "em_ksp_solve: iteration limit %d is negative", o->max_it);
  EM_CHECK(o->log_every >= 0, EM_ERR_ARG, "em_ksp_solve: log_every %d is negative", o->log_every);
  EM_CHECK(o->restart >= 1 || (o->method != EM_KSP_GMRES && o->method != EM_KSP_FGMRES), EM_ERR_ARG,
           "em_ksp_solve: GMRES restart length %d must be at least 1", o->restart);
  EM_CHECK(A->prec == EM_PREC_DOUBLE || A->prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_ksp_solve: operator precision %d unknown", (int)A->prec);
  EM_CHECK(!o->perm || !A->dist, EM_ERR_ARG,
           "em_ksp_solve: a permutation (em_ksp_opts.perm) with a distributed operator");
  if (pc) {
    EM_CHECK(pc->opts.backend == A->backend, EM_ERR_ARG,
             "em_ksp_solve: the preconditioner lives on the %s, the operator on the %s",
             em_sv_backend_name(pc->opts.backend), em_sv_backend_name(A->backend));
    EM_CHECK(pc->n == A->n, EM_ERR_ARG,
             "em_ksp_solve: preconditioner of size %d for an operator of size %d", pc->n, A->n);
  }
  return EM_OK;
}

em_err em_ksp_solve(const em_operator *A, em_pc *pc, const em_cplx *b, em_cplx *x,
                    const em_ksp_opts *o, em_ksp_stats *st) {
  EM_TRY(ksp_check_args(A, pc, b, x, o, st));
  double t0 = em_wtime();
  memset(st, 0, sizeof *st);
  st->reason = EM_KSP_CONVERGED;
  int finite_b, finite_x;
  double bnorm, xnorm;
  EM_TRY(ksp_op_norm(A, b, &bnorm, &finite_b));
  EM_TRY(ksp_op_norm(A, x, &xnorm, &finite_x));
  EM_CHECK(finite_b, EM_ERR_NUMERIC, "em_ksp_solve: the right-hand side holds NaN or Inf");
  EM_CHECK(finite_x, EM_ERR_NUMERIC, "em_ksp_solve: the initial guess holds NaN or Inf");
  if (bnorm == 0) { /* A x = 0: x = 0, nothing to iterate */
    memset(x, 0, (size_t)A->n * sizeof *x);
    st->t_total = em_wtime() - t0;
    return EM_OK;
  }
  int gm = o->method == EM_KSP_GMRES || o->method == EM_KSP_FGMRES;
  em_err err = EM_OK;
  em_vec *v = NULL;
  void *vb = NULL, *vx = NULL, *vr = NULL;
  em_ksp_ctx k = {A, pc, NULL, o, st, bnorm, 0, EM_KSP_CONVERGED, 0, 0, -1, 0, "", em_wtime()};
  double t_norms = em_wtime();
  EM_TRY(ksp_vec_create(A, gm ? o->restart + 1 : 1, &v));
  k.v = v;
  double t_vec = em_wtime();
  EM_TRY_GOTO(err, ksp_alloc(&k, 1, &vb), done);
  EM_TRY_GOTO(err, ksp_alloc(&k, 1, &vx), done);
  EM_TRY_GOTO(err, ksp_alloc(&k, 1, &vr), done);
  double t_cols = em_wtime();
  EM_TRY_GOTO(err, ksp_upload(v, o, b, vb), done);
  if (xnorm > 0) /* a zero guess: the zeroed vector as allocated */
    EM_TRY_GOTO(err, ksp_upload(v, o, x, vx), done);
  double t1 = em_wtime(), rnorm = 0;
  /* a solve's start, part by part (issue 28: it varied from 0.02 to 0.13 s
     from host to host at 1.6M unknowns) */
  em_log_verbose(o->log,
                 "%s: start %.3f s (norms %.3f, vector backend %.3f, vectors %.3f, uploads %.3f)",
                 em_ksp_method_name(o->method), t1 - t0, t_norms - t0, t_vec - t_norms,
                 t_cols - t_vec, t1 - t_cols);
  for (;;) {
    EM_TRY_GOTO(err, method_of(o->method)(&k, vb, vx), done);
    if (k.cancelled) {
      err = EM_RAISE(EM_ERR_CANCELLED, "%s: cancelled at iteration %d",
                     em_ksp_method_name(o->method), k.it);
      goto done;
    }
    EM_TRY_GOTO(err, ksp_residual(&k, vb, vx, vr, &rnorm), done);
    st->true_rel_res = rnorm / bnorm;
    if (k.reason != EM_KSP_CONVERGED || st->true_rel_res <= o->tol || k.it >= o->max_it ||
        st->restarts >= KSP_MAX_TRUE_RESTARTS)
      break;
    st->restarts++;
    em_log_info(o->log, "%s: recursive residual converged but the true one is %.3e: restart %d",
                em_ksp_method_name(o->method), st->true_rel_res, st->restarts);
  }
  double t2 = em_wtime();
  EM_TRY_GOTO(err, ksp_download(v, o, vx, x), done);
  st->reason = k.reason;
  st->iterations = k.it;
  st->t_vec = fmax(0, (t2 - t1) - st->t_spmv - st->t_pc);
  em_log_info(o->log, "%s: %s after %d iterations, |b-Ax|/|b| = %.3e (recursive %.3e), %.2f s",
              em_ksp_method_name(o->method), em_ksp_reason_name(k.reason), k.it, st->true_rel_res,
              st->rel_res, em_wtime() - t0);
done:
  ksp_free(&k, &vb);
  ksp_free(&k, &vx);
  ksp_free(&k, &vr);
  em_vec_destroy(&v);
  st->t_total = em_wtime() - t0;
  return err;
}
