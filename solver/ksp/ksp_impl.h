/* ksp_impl.h - what the Krylov methods share (private to solver/): the
 * solve context, timed operator and preconditioner applications, the
 * convergence / divergence / stagnation test, the breakdown test.
 *
 * A method runs until ksp_stop() says so or a breakdown; it leaves the
 * reason in k->reason and the iterate in x.  Iterations count across the
 * restarts that em_ksp_solve makes from the true residual. */
#ifndef EM_SOLVER_KSP_IMPL_H
#define EM_SOLVER_KSP_IMPL_H

#include "vec_impl.h"

/* a residual above this factor times ||b|| is divergence */
#define EM_KSP_DIVERGENCE 1e10
/* stagnation: the best residual fell by less than 1% over this many iterations */
#define EM_KSP_STAG_WINDOW 1000
#define EM_KSP_STAG_FACTOR 0.99
/* most restarts from the true residual after a converged recursive one */
#define KSP_MAX_TRUE_RESTARTS 3

typedef struct em_ksp_ctx {
  const em_operator *A; /* the operator */
  em_pc *pc;            /* NULL: no preconditioner */
  em_vec *v;            /* vector backend in A's backend and precision */
  const em_ksp_opts *o; /* options */
  em_ksp_stats *st;     /* statistics being filled */
  double bnorm;         /* ||b||, > 0 */
  int it;               /* iterations done, across restarts */
  em_ksp_reason reason; /* why the method stopped */
  double stag_ref;      /* residual at the last 1% improvement */
  int stag_it;          /* iteration of that improvement */
  int logged_it;        /* last iteration printed (-1: none) */
  int cancelled;        /* o->cancel was set: the solve ends in EM_ERR_CANCELLED */
  char tag[24];         /* "" alone; " [3]" for column 3 of a block */
  double t_logged;      /* when the last line was printed (em_wtime) */
} em_ksp_ctx;

/* em_ksp_solve's checks of its arguments (every message names the
 * culprit), and ||h||_2 of a host vector with whether it is finite. */
em_err ksp_check_args(const em_operator *A, em_pc *pc, const em_cplx *b, em_cplx *x,
                      const em_ksp_opts *o, em_ksp_stats *st);
double ksp_host_norm(const em_cplx *h, int32_t n, int *finite);
/* The same for a host vector of A (summed over the ranks of a distributed
 * A: every rank gets the same norm and flag), in *nrm. */
em_err ksp_op_norm(const em_operator *A, const em_cplx *h, double *nrm, int *finite);
/* The work vectors' backend of A: A's backend and precision, reductions
 * over the ranks of a distributed A. */
em_err ksp_vec_create(const em_operator *A, int max_k, em_vec **v);

/* x = the caller's column h, and h = x back, in the operator's numbering
 * (o->perm: x[perm[i]] = h[i]; the backend's upload_perm / download_perm,
 * or a permuted host copy). */
em_err ksp_upload(em_vec *v, const em_ksp_opts *o, const em_cplx *h, void *x);
em_err ksp_download(em_vec *v, const em_ksp_opts *o, const void *x, em_cplx *h);
/* *X = count work vectors of the solve (bytes counted in st->vec_bytes). */
em_err ksp_alloc(em_ksp_ctx *k, int count, void **X);
void ksp_free(em_ksp_ctx *k, void **X);
/* *X = count work vectors for each of the m columns ks[0..m) of a block as
 * one allocation (st->vec_bytes of each column counts its own): vector q
 * of column j at em_vec_col(v, *X, q * m + j), so each kind's columns lie
 * side by side, one strided block as the block applies take them (the
 * direct solve works on it in place), and a block costs one allocation
 * instead of one per column.  Freed by ksp_free(ks[0], X). */
em_err ksp_alloc_cols(em_ksp_ctx *const *ks, int m, int count, void **X);
/* y = A x, timed into t_spmv (queued vector work finishes first). */
em_err ksp_matvec(em_ksp_ctx *k, const void *x, void *y);
/* z = M^-1 r (a copy without preconditioner), timed into t_pc. */
em_err ksp_precond(em_ksp_ctx *k, const void *r, void *z);
/* r = b - A x, *rnorm = ||r||. */
em_err ksp_residual(em_ksp_ctx *k, const void *b, const void *x, void *r, double *rnorm);
/* Record iteration k->it with residual rnorm, print it every log_every
 * iterations, and decide: returns 1 (reason set) when the method must stop:
 * NaN or growth past EM_KSP_DIVERGENCE ||b||, rnorm <= tol ||b||, the
 * iteration limit, or stagnation; or (k->cancelled set) a cancel request. */
int ksp_stop(em_ksp_ctx *k, double rnorm);
/* 1 when a denominator d of natural size `scale` (the product of the norms
 * of its two vectors) vanished to rounding level (or is not finite). */
int ksp_vanished(const em_ksp_ctx *k, em_cplx d, double scale);
/* ksp_vanished, and then the solve ends: reason BREAKDOWN, logged as `what`. */
int ksp_breakdown(em_ksp_ctx *k, em_cplx d, double scale, const char *what);

/* ------------------------------------------- blocks of solves in lockstep
 *
 * em_ksp_solve_multi runs m solves of one operator and preconditioner
 * together: one context per column (its own statistics, norms, reason,
 * iteration count) over one vector backend.  A lockstep method does, for
 * each column still running, exactly the steps of its one-column form, but
 * makes every operator and preconditioner application of a step one call
 * for all the columns that need it; a column that converges, breaks down or
 * restarts leaves or rejoins the next step's set.  ks[j] solves column j
 * with right-hand side b[j] and iterate x[j] (vectors of ks[0]->v). */
/* y[j] = A x[j], j < m: one multi-vector product, its time shared evenly. */
em_err ksp_matvec_k(em_ksp_ctx *const *ks, int m, const void *const *x, void *const *y);
/* z[j] = M^-1 r[j] (copies without a preconditioner): one block apply. */
em_err ksp_precond_k(em_ksp_ctx *const *ks, int m, const void *const *r, void *const *z);
/* r[j] = b[j] - A x[j], rnorm[j] = ||r[j]||. */
em_err ksp_residual_k(em_ksp_ctx *const *ks, int m, const void *const *b, const void *const *x,
                      void *const *r, double *rnorm);
typedef em_err (*ksp_multi_fn)(em_ksp_ctx *const *ks, int m, const void *const *b, void *const *x);
em_err em_ksp_bicgstab_multi(em_ksp_ctx *const *ks, int m, const void *const *b, void *const *x);
em_err em_ksp_cocg_multi(em_ksp_ctx *const *ks, int m, const void *const *b, void *const *x);

em_err em_ksp_bicgstab(em_ksp_ctx *k, const void *b, void *x);
em_err em_ksp_cocg(em_ksp_ctx *k, const void *b, void *x);
em_err em_ksp_cocr(em_ksp_ctx *k, const void *b, void *x);
em_err em_ksp_gmres(em_ksp_ctx *k, const void *b, void *x);
em_err em_ksp_fgmres(em_ksp_ctx *k, const void *b, void *x);

#endif
