/* krylov_schur.c - shift-and-invert Krylov-Schur (Stewart, SIAM J. Matrix
 * Anal. Appl. 23 (2001) 601) for S x = lambda T x near sigma.
 *
 * With OP = (S - sigma T)^-1 T the Krylov-Schur relation after m steps is
 *
 *   OP V_m = V_m B + beta v_{m+1} e_m^T,       V_m^H V_m = I,
 *
 * B upper Hessenberg after plain Arnoldi, general after a restart.  The
 * Schur form B = Z R Z^H gives Ritz values theta_i (diag R) and, with the
 * eigenvectors y_i of B, the residuals ||OP x - theta x|| = |beta y_i(m)|
 * for x = V_m y_i.  A restart reorders R so the p wanted Ritz values lead
 * and keeps OP (V_m Z_p) = (V_m Z_p) R_pp + v_{m+1} (beta e_m^T Z_p): the
 * same relation, of size p, which Arnoldi extends again to m.
 *
 * Wanted: largest |theta| (lambda = sigma + 1/theta nearest sigma), never
 * a Ritz value of the gradient null space (|lambda| < null_frac |sigma|).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_impl.h"

void em_eigen_opts_default(em_eigen_opts *o) {
  memset(o, 0, sizeof *o);
  o->nev = 1;
  o->tol = 1e-10;
  o->max_restarts = 300;
  o->null_frac = 1e-3;
  o->refine = 3;
  o->seed = 1;
  em_direct_opts_default(&o->direct);
}

void em_eigen_result_free(em_eigen_result *r) {
  em_free(&r->lambda);
  em_free(&r->x);
  em_free(&r->resid);
}

static double nrm(int32_t n, const em_cplx *x) {
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
  return sqrt(s);
}

/* h = V_j^H w, w -= V_j h: classical Gram-Schmidt twice (CGS2), columns
 * 0..j of V (n rows each); h accumulates both passes. */
static void orthogonalize(int32_t n, int j, const em_cplx *V, em_cplx *w, em_cplx *h) {
  for (int i = 0; i <= j; i++) h[i] = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i <= j; i++) {
      const em_cplx *v = V + (size_t)i * n;
      em_cplx c = 0;
      for (int32_t r = 0; r < n; r++) c += conj(v[r]) * w[r];
      for (int32_t r = 0; r < n; r++) w[r] -= c * v[r];
      h[i] += c;
    }
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void random_vec(int32_t n, uint64_t *s, em_cplx *x) {
  for (int32_t i = 0; i < n; i++) x[i] = (double)(xorshift(s) >> 11) / 9007199254740992.0 - 0.5;
}

/* Columns 0..p-1 of V become V_m Z(:, 0..p-1), row by row in place. */
static void rotate(int32_t n, int m, int p, em_cplx *V, const em_cplx *Z) {
#pragma omp parallel
  {
    em_cplx row[256], out[256];
#pragma omp for schedule(static)
    for (int32_t r = 0; r < n; r++) {
      for (int i = 0; i < m; i++) row[i] = V[(size_t)i * n + r];
      for (int c = 0; c < p; c++) {
        em_cplx s = 0;
        for (int i = 0; i < m; i++) s += row[i] * Z[(size_t)c * m + i];
        out[c] = s;
      }
      for (int c = 0; c < p; c++) V[(size_t)c * n + r] = out[c];
    }
  }
}

/* Wanted order of the m Ritz values: indices by |theta| descending, null
 * space and theta = 0 left out; returns how many are usable. */
static int wanted_order(int m, const em_cplx *w, em_cplx sigma, double null_frac, int *idx) {
  int k = 0;
  for (int i = 0; i < m; i++) {
    if (cabs(w[i]) == 0) continue;
    em_cplx lam = sigma + 1 / w[i];
    if (cabs(lam) < null_frac * cabs(sigma)) continue;
    idx[k++] = i;
  }
  for (int a = 1; a < k; a++) /* insertion sort: m is small */
    for (int b = a; b > 0 && cabs(w[idx[b]]) > cabs(w[idx[b - 1]]); b--) {
      int t = idx[b];
      idx[b] = idx[b - 1];
      idx[b - 1] = t;
    }
  return k;
}

/* Final pairs: x = V_m y, lambda = sigma + 1/theta, true residuals. */
static em_err extract(const em_csr *S, const em_csr *T, int m, const em_cplx *V, const em_cplx *X,
                      const em_cplx *w, const int *idx, int nk, em_cplx sigma, em_eigen_result *r) {
  int32_t n = S->n_rows;
  r->dim = n;
  r->n = nk;
  EM_TRY(em_calloc(&r->lambda, (size_t)(nk ? nk : 1), sizeof *r->lambda, "eigenvalues"));
  EM_TRY(em_calloc(&r->resid, (size_t)(nk ? nk : 1), sizeof *r->resid, "eigen residuals"));
  EM_TRY(em_calloc(&r->x, (size_t)n * (nk ? nk : 1), sizeof *r->x, "eigenvectors"));
  em_cplx *sx = NULL, *tx = NULL;
  em_err err = em_calloc(&sx, (size_t)n, sizeof *sx, "eigen work");
  if (!err) err = em_calloc(&tx, (size_t)n, sizeof *tx, "eigen work");
  for (int k = 0; !err && k < nk; k++) {
    int i = idx[k];
    em_cplx *x = r->x + (size_t)k * n;
#pragma omp parallel for schedule(static)
    for (int32_t row = 0; row < n; row++) {
      em_cplx s = 0;
      for (int c = 0; c < m; c++) s += V[(size_t)c * n + row] * X[(size_t)i * m + c];
      x[row] = s;
    }
    double xn = nrm(n, x);
    for (int32_t row = 0; row < n; row++) x[row] /= xn;
    em_cplx lam = sigma + 1 / w[i];
    r->lambda[k] = lam;
    em_csr_spmv_ref(S, 1, x, 0, sx);
    em_csr_spmv_ref(T, 1, x, 0, tx);
    double ns = nrm(n, sx), nt = nrm(n, tx);
    for (int32_t row = 0; row < n; row++) sx[row] -= lam * tx[row];
    r->resid[k] = nrm(n, sx) / (ns + cabs(lam) * nt);
  }
  em_free(&sx);
  em_free(&tx);
  return err;
}

typedef struct ks_work {
  em_cplx *V, *B, *R, *Z, *X, *w, *h;
  int *keep, *idx;
} ks_work;

static void ks_free(ks_work *k) {
  em_free(&k->V);
  em_free(&k->B);
  em_free(&k->R);
  em_free(&k->Z);
  em_free(&k->X);
  em_free(&k->w);
  em_free(&k->h);
  em_free(&k->keep);
  em_free(&k->idx);
}

static em_err ks_alloc(int32_t n, int m, ks_work *k) {
  memset(k, 0, sizeof *k);
  size_t mm = (size_t)m * m;
  EM_TRY(em_calloc(&k->V, (size_t)n * (m + 1), sizeof *k->V, "Krylov basis"));
  EM_TRY(em_calloc(&k->B, mm, sizeof *k->B, "projected matrix"));
  EM_TRY(em_calloc(&k->R, mm, sizeof *k->R, "Schur factor"));
  EM_TRY(em_calloc(&k->Z, mm, sizeof *k->Z, "Schur vectors"));
  EM_TRY(em_calloc(&k->X, mm, sizeof *k->X, "Ritz vectors"));
  EM_TRY(em_calloc(&k->w, (size_t)m, sizeof *k->w, "Ritz values"));
  EM_TRY(em_calloc(&k->h, (size_t)m + 1, sizeof *k->h, "Arnoldi column"));
  EM_TRY(em_calloc(&k->keep, (size_t)m, sizeof *k->keep, "selection"));
  EM_TRY(em_calloc(&k->idx, (size_t)m, sizeof *k->idx, "selection"));
  return EM_OK;
}

/* Extend the relation from k to m columns (Arnoldi on OP); returns beta. */
static em_err expand(em_eigen_op *op, int32_t n, int k, int m, ks_work *w, uint64_t *seed,
                     double *beta) {
  for (int j = k; j < m; j++) {
    em_cplx *vj = w->V + (size_t)j * n, *f = w->V + (size_t)(j + 1) * n;
    EM_TRY(em_eigen_op_apply(op, vj, f));
    double fn0 = nrm(n, f);
    orthogonalize(n, j, w->V, f, w->h);
    double fn = nrm(n, f);
    for (int i = 0; i <= j; i++) w->B[(size_t)j * m + i] = w->h[i];
    if (fn <= 1e-12 * fn0) { /* invariant subspace: go on from a fresh direction */
      random_vec(n, seed, f);
      orthogonalize(n, j, w->V, f, w->h);
      double rn = nrm(n, f);
      EM_CHECK(rn > 0, EM_ERR_NUMERIC, "eigen: no direction left to expand the Krylov space");
      for (int32_t r = 0; r < n; r++) f[r] /= rn;
      fn = 0;
    } else {
      for (int32_t r = 0; r < n; r++) f[r] /= fn;
    }
    if (j + 1 < m) w->B[(size_t)j * m + j + 1] = fn;
    *beta = fn;
  }
  return EM_OK;
}

em_err em_eigen_solve(const em_csr *S, const em_csr *T, const em_eigen_opts *o,
                      em_eigen_result *r) {
  memset(r, 0, sizeof *r);
  int32_t n = S->n_rows;
  EM_CHECK(o->nev >= 1, EM_ERR_ARG, "eigen: %d eigenpairs asked for (need >= 1)", o->nev);
  EM_CHECK(n >= 2, EM_ERR_ARG, "eigen: the problem has %d unknowns", n);
  int m = o->ncv > 0 ? o->ncv : (2 * o->nev + 10 > 20 ? 2 * o->nev + 10 : 20);
  if (m > 256) m = 256; /* rotate's row buffers */
  if (m > n) m = n;
  int nev = o->nev < m - 1 ? o->nev : m - 1;
  EM_CHECK(nev >= 1, EM_ERR_ARG, "eigen: a %d-dimensional problem has no room for a Krylov space",
           n);
  EM_CHECK(em_eigen_built(), EM_ERR_UNSUPPORTED,
           "eigen: this build has no LAPACK (the projected problem needs it)");
  em_eigen_op op;
  double t0 = em_wtime();
  EM_TRY(em_eigen_op_create(S, T, o->sigma, o, &op));
  r->t_factor = em_wtime() - t0;
  em_direct_get_info(op.F, &r->direct);
  em_log_info(o->log, "eigen: S - sigma T factored in %.2f s (%d unknowns, %lld perturbed pivots)",
              r->t_factor, n, (long long)r->direct.perturbed);
  ks_work w;
  em_err err = ks_alloc(n, m, &w);
  if (err) goto done;
  uint64_t seed = o->seed ? o->seed : 1;
  /* start: OP applied to a random vector (damps what lies far from sigma) */
  random_vec(n, &seed, w.V + n);
  EM_TRY_GOTO(err, em_eigen_op_apply(&op, w.V + n, w.V), done);
  double v0 = nrm(n, w.V);
  if (!(v0 > 0 && isfinite(v0))) {
    err = EM_RAISE(EM_ERR_NUMERIC, "eigen: the start vector has norm %g", v0);
    goto done;
  }
  for (int32_t i = 0; i < n; i++) w.V[i] /= v0;
  int k = 0, nk = 0, nconv = 0;
  double beta = 0;
  size_t mm = (size_t)m * m;
  for (int rs = 0;; rs++) {
    if (em_cancelled(o->cancel)) {
      err = EM_RAISE(EM_ERR_CANCELLED, "eigen: cancelled at restart %d", rs);
      goto done;
    }
    EM_TRY_GOTO(err, expand(&op, n, k, m, &w, &seed, &beta), done);
    memcpy(w.R, w.B, mm * sizeof *w.R);
    EM_TRY_GOTO(err, em_eigen_schur(m, w.R, w.Z, w.w), done);
    nk = wanted_order(m, w.w, o->sigma, o->null_frac, w.idx);
    int p = nev + (m - nev) / 2;
    if (p > nk) p = nk;
    if (p > m - 1) p = m - 1;
    for (int i = 0; i < m; i++) w.keep[i] = 0;
    for (int i = 0; i < p; i++) w.keep[w.idx[i]] = 1;
    EM_TRY_GOTO(err, em_eigen_schur_reorder(m, w.keep, w.R, w.Z, w.w), done);
    EM_TRY_GOTO(err, em_eigen_trivec(m, w.R, w.Z, w.X), done);
    nk = wanted_order(m, w.w, o->sigma, o->null_frac, w.idx);
    if (nk > nev) nk = nev;
    nconv = 0;
    for (int i = 0; i < nk; i++) {
      int c = w.idx[i];
      double res = beta * cabs(w.X[(size_t)c * m + m - 1]);
      if (res > o->tol * cabs(w.w[c])) break;
      nconv++;
    }
    r->restarts = rs;
    if (rs % 10 == 0 || nconv == nev)
      em_log_verbose(o->log, "eigen: restart %d, %d of %d converged", rs, nconv, nev);
    if (nconv == nev || rs >= o->max_restarts || p < 1) break;
    /* truncate to the p leading Schur vectors */
    rotate(n, m, p, w.V, w.Z);
    memcpy(w.V + (size_t)p * n, w.V + (size_t)m * n, (size_t)n * sizeof *w.V);
    memset(w.B, 0, mm * sizeof *w.B);
    for (int c = 0; c < p; c++) {
      for (int i = 0; i <= c; i++) w.B[(size_t)c * m + i] = w.R[(size_t)c * m + i];
      w.B[(size_t)c * m + p] = beta * w.Z[(size_t)c * m + m - 1];
    }
    k = p;
  }
  r->converged = nconv == nev;
  if (!r->converged)
    em_log_warn(o->log, "eigen: %d of %d eigenpairs converged after %d restarts", nconv, nev,
                r->restarts);
  EM_TRY_GOTO(err, extract(S, T, m, w.V, w.X, w.w, w.idx, nk, o->sigma, r), done);
  /* nearest sigma first: the wanted order already is (largest |theta|) */
done:
  r->n_op = op.n_apply;
  r->t_solve = op.t_solve;
  ks_free(&w);
  em_eigen_op_destroy(&op);
  if (err) em_eigen_result_free(r);
  return err;
}
