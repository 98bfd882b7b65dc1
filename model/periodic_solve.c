/* periodic_solve.c - the Floquet system A_red x = b_red (periodic.c) by the
 * sparse LDL^T of a complex symmetric neighbour and a low-rank correction.
 *
 * A_red = P^H A P is not complex symmetric, M = P^T A P is, and the two
 * differ only in the rows of the master DOFs whose slaves carry a phase
 * that is not real (the set R, r rows: the test side takes conj(p), M p):
 *   A_red = M + E C,   E = the unit columns of R,  C = (A_red - M)[R, :].
 * Sherman-Morrison-Woodbury then solves exactly with M's factor:
 *   Z = M^-1 E (r solves at once),  G = I_r + C Z  (dense, LU),
 *   A_red^-1 y = M^-1 y - Z G^-1 C M^-1 y,
 * followed by iterative refinement against A_red (the factor's static
 * pivot perturbations, rounding).  Cost per frequency: M's factorization
 * (its analysis is kept), r + 2 solves, an r x r LU (r^3): meant for unit
 * cells, whose periodic sides carry a few hundred to a few thousand DOFs. */
#include <math.h>
#include <string.h>

#include "periodic_impl.h"

/* LU with partial pivoting of the n x n row-major G in place; piv[k] the
 * row swapped with k.  EM_ERR_NUMERIC on an exactly singular G. */
static em_err lu(int n, em_cplx *G, int *piv) {
  for (int k = 0; k < n; k++) {
    int q = k;
    double best = cabs(G[(size_t)k * n + k]);
    for (int i = k + 1; i < n; i++)
      if (cabs(G[(size_t)i * n + k]) > best) best = cabs(G[(size_t)i * n + k]), q = i;
    EM_CHECK(best > 0, EM_ERR_NUMERIC, "periodic: the Woodbury capacitance matrix is singular");
    piv[k] = q;
    if (q != k)
      for (int j = 0; j < n; j++) {
        em_cplx t = G[(size_t)k * n + j];
        G[(size_t)k * n + j] = G[(size_t)q * n + j];
        G[(size_t)q * n + j] = t;
      }
    em_cplx inv = 1 / G[(size_t)k * n + k];
#pragma omp parallel for schedule(static) if (n > 256)
    for (int i = k + 1; i < n; i++) {
      em_cplx l = G[(size_t)i * n + k] * inv;
      G[(size_t)i * n + k] = l;
      em_cplx *gi = G + (size_t)i * n, *gk = G + (size_t)k * n;
      for (int j = k + 1; j < n; j++) gi[j] -= l * gk[j];
    }
  }
  return EM_OK;
}

static void lu_solve(int n, const em_cplx *G, const int *piv, em_cplx *b) {
  for (int k = 0; k < n; k++) {
    em_cplx t = b[k];
    b[k] = b[piv[k]];
    b[piv[k]] = t;
  }
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++) b[i] -= G[(size_t)i * n + j] * b[j];
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) b[i] -= G[(size_t)i * n + j] * b[j];
    b[i] /= G[(size_t)i * n + i];
  }
}

typedef struct {
  const em_direct *F;
  int32_t n;
  int r;
  const int32_t *rows; /* R */
  const em_csr *C;     /* r x n */
  const em_cplx *Z;    /* n x r, column-major */
  const em_cplx *G;    /* LU of G */
  const int *piv;
  em_cplx *t; /* [r] */
} woodbury;

/* u = A_red^-1 y */
static em_err wb_apply(const woodbury *w, const em_cplx *y, em_cplx *u) {
  EM_TRY(em_direct_solve(w->F, 1, y, w->n, u, w->n));
  for (int q = 0; q < w->r; q++) {
    em_cplx s = 0;
    for (int64_t e = w->C->rowptr[q]; e < w->C->rowptr[q + 1]; e++)
      s += w->C->val[e] * u[w->C->colind[e]];
    w->t[q] = s;
  }
  lu_solve(w->r, w->G, w->piv, w->t);
#pragma omp parallel for schedule(static) if (w->n > 20000)
  for (int32_t i = 0; i < w->n; i++) {
    em_cplx s = 0;
    for (int q = 0; q < w->r; q++) s += w->Z[(size_t)q * w->n + i] * w->t[q];
    u[i] -= s;
  }
  return EM_OK;
}

static double norm2(const em_cplx *v, int32_t n) {
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += creal(v[i] * conj(v[i]));
  return sqrt(s);
}

em_err em_periodic_solve(em_periodic *p, double k0, const em_system *sys, const em_log *log,
                         em_cplx *x, em_ksp_stats *st) {
  int32_t nf = p->n_full, n = p->n_red;
  int ns = sys->n_rhs;
  em_csr *A = NULL, *Ar = NULL, *M = NULL, *C = NULL;
  int32_t *ti = NULL, *tj = NULL, *rows = NULL, *rpos = NULL;
  em_cplx *tv = NULL, *tm = NULL, *ph = NULL, *Z = NULL, *G = NULL, *b = NULL, *xr = NULL,
          *res = NULL, *du = NULL, *t = NULL;
  int *piv = NULL;
  em_err err = EM_OK;
  double t0 = em_wtime();
  EM_TRY(em_blockmat_to_csr(sys->A, &A));
  EM_CHECK(A->n_rows == nf, EM_ERR_ARG, "periodic: %d unknowns, the map has %d", A->n_rows, nf);
  EM_TRY_GOTO(err, em_calloc(&ph, (size_t)nf + 1, sizeof *ph, "periodic"), done);
  for (int32_t k = 0; k < nf; k++) ph[k] = em_periodic_phase(p, k0, k);
  /* A_red = P^H A P and M = P^T A P on the same triplets */
  EM_TRY_GOTO(err, em_calloc(&ti, (size_t)A->nnz + 1, sizeof *ti, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&tj, (size_t)A->nnz + 1, sizeof *tj, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&tv, (size_t)A->nnz + 1, sizeof *tv, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&tm, (size_t)A->nnz + 1, sizeof *tm, "periodic"), done);
  for (int32_t i = 0; i < nf; i++)
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
      int32_t j = A->colind[q];
      ti[q] = p->red[i], tj[q] = p->red[j];
      tv[q] = conj(ph[i]) * A->val[q] * ph[j];
      tm[q] = ph[i] * A->val[q] * ph[j];
    }
  EM_TRY_GOTO(err, em_csr_from_triplets(n, n, A->nnz, ti, tj, tv, &Ar), done);
  EM_TRY_GOTO(err, em_csr_from_triplets(n, n, A->nnz, ti, tj, tm, &M), done);
  /* R: rows whose slaves carry a phase that is not real */
  EM_TRY_GOTO(err, em_calloc(&rpos, (size_t)n + 1, sizeof *rpos, "periodic"), done);
  for (int32_t i = 0; i < n; i++) rpos[i] = -1;
  int r = 0;
  for (int32_t k = 0; k < nf; k++)
    if (fabs(cimag(ph[k])) > 1e-14 && rpos[p->red[k]] < 0) rpos[p->red[k]] = r++;
  EM_TRY_GOTO(err, em_calloc(&rows, (size_t)r + 1, sizeof *rows, "periodic"), done);
  for (int32_t i = 0; i < n; i++)
    if (rpos[i] >= 0) rows[rpos[i]] = i;
  /* C = (A_red - M)[R, :]: the same pattern, row by row */
  int64_t nc = 0;
  for (int q = 0; q < r; q++) nc += Ar->rowptr[rows[q] + 1] - Ar->rowptr[rows[q]];
  EM_TRY_GOTO(err, em_csr_create(r, n, nc, &C), done);
  nc = 0;
  for (int q = 0; q < r; q++) {
    int32_t i = rows[q];
    for (int64_t e = Ar->rowptr[i]; e < Ar->rowptr[i + 1]; e++, nc++) {
      C->colind[nc] = Ar->colind[e];
      C->val[nc] = Ar->val[e] - M->val[e];
    }
    C->rowptr[q + 1] = nc;
  }
  /* the factor of M (the analysis kept from the first frequency) */
  if (!p->F) {
    em_direct_opts o;
    em_direct_opts_default(&o);
    EM_TRY_GOTO(err, em_direct_create(M, &o, log, &p->F), done);
  } else {
    EM_TRY_GOTO(err, em_direct_factor(p->F, M, log), done);
  }
  /* Z = M^-1 E, G = I + C Z */
  EM_TRY_GOTO(err, em_calloc(&Z, (size_t)n * r + 1, sizeof *Z, "periodic Woodbury columns"), done);
  for (int q = 0; q < r; q++) Z[(size_t)q * n + rows[q]] = 1;
  if (r) EM_TRY_GOTO(err, em_direct_solve(p->F, r, Z, n, Z, n), done);
  EM_TRY_GOTO(err, em_calloc(&G, (size_t)r * r + 1, sizeof *G, "periodic Woodbury matrix"), done);
  EM_TRY_GOTO(err, em_calloc(&piv, (size_t)r + 1, sizeof *piv, "periodic"), done);
#pragma omp parallel for schedule(static) if (r > 64)
  for (int q = 0; q < r; q++)
    for (int c = 0; c < r; c++) {
      em_cplx s = q == c;
      for (int64_t e = C->rowptr[q]; e < C->rowptr[q + 1]; e++)
        s += C->val[e] * Z[(size_t)c * n + C->colind[e]];
      G[(size_t)q * r + c] = s;
    }
  EM_TRY_GOTO(err, lu(r, G, piv), done);
  EM_TRY_GOTO(err, em_calloc(&t, (size_t)r + 1, sizeof *t, "periodic"), done);
  woodbury w = {p->F, n, r, rows, C, Z, G, piv, t};
  /* each excitation: x = W b, refined against A_red */
  EM_TRY_GOTO(err, em_calloc(&b, (size_t)n + 1, sizeof *b, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&xr, (size_t)n + 1, sizeof *xr, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&res, (size_t)n + 1, sizeof *res, "periodic"), done);
  EM_TRY_GOTO(err, em_calloc(&du, (size_t)n + 1, sizeof *du, "periodic"), done);
  for (int e = 0; e < ns; e++) {
    memset(b, 0, sizeof *b * (size_t)n);
    for (int32_t k = 0; k < nf; k++) b[p->red[k]] += conj(ph[k]) * sys->b[(size_t)e * nf + k];
    double nb = norm2(b, n), rel = 0;
    EM_TRY_GOTO(err, wb_apply(&w, b, xr), done);
    int it = 0;
    for (;; it++) {
      em_csr_spmv_ref(Ar, -1, xr, 0, res);
      for (int32_t i = 0; i < n; i++) res[i] += b[i];
      rel = nb > 0 ? norm2(res, n) / nb : 0;
      if (rel < 1e-12 || it == 5) break;
      EM_TRY_GOTO(err, wb_apply(&w, res, du), done);
      for (int32_t i = 0; i < n; i++) xr[i] += du[i];
    }
    em_ksp_stats *k = &st[e];
    memset(k, 0, sizeof *k);
    k->reason = rel < 1e-8 ? EM_KSP_CONVERGED : EM_KSP_STAGNATED;
    k->iterations = it;
    k->rel_res = k->true_rel_res = rel;
    for (int32_t kk = 0; kk < nf; kk++) x[(size_t)e * nf + kk] = ph[kk] * xr[p->red[kk]];
    em_log_info(log,
                "periodic: %d unknowns, Woodbury rank %d, %d refinement step(s), true residual "
                "%.2e",
                n, r, it, rel);
  }
  st[0].t_total = em_wtime() - t0;
done:
  em_csr_destroy(&A);
  em_csr_destroy(&Ar);
  em_csr_destroy(&M);
  em_csr_destroy(&C);
  em_free(&ti);
  em_free(&tj);
  em_free(&tv);
  em_free(&tm);
  em_free(&ph);
  em_free(&rows);
  em_free(&rpos);
  em_free(&Z);
  em_free(&G);
  em_free(&piv);
  em_free(&t);
  em_free(&b);
  em_free(&xr);
  em_free(&res);
  em_free(&du);
  return err;
}
