/* arnoldi.c - CGS2 Arnoldi step and complex Givens least squares for the
 * restarted GMRES family.  The small (m+1) x m problem lives on the host. */
#include <math.h>

#include "arnoldi.h"

#define HIDX(a, i, j) ((size_t)(i) + (size_t)(j) * (size_t)((a)->m + 1))

em_err ksp_arnoldi_create(int m, ksp_arnoldi *a) {
  em_err err = EM_OK;
  a->m = m;
  a->H = a->s = a->g = a->y = a->h = a->h2 = NULL;
  a->c = NULL;
  size_t m1 = (size_t)m + 1;
  EM_TRY_GOTO(err, em_calloc(&a->H, m1 * (size_t)m, sizeof *a->H, "GMRES Hessenberg"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->c, (size_t)m, sizeof *a->c, "GMRES rotations"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->s, (size_t)m, sizeof *a->s, "GMRES rotations"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->g, m1, sizeof *a->g, "GMRES right-hand side"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->y, m1, sizeof *a->y, "GMRES coefficients"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->h, m1, sizeof *a->h, "GMRES projections"), fail);
  EM_TRY_GOTO(err, em_calloc(&a->h2, m1, sizeof *a->h2, "GMRES projections"), fail);
  return EM_OK;
fail:
  ksp_arnoldi_destroy(a);
  return err;
}

void ksp_arnoldi_destroy(ksp_arnoldi *a) {
  em_free(&a->H);
  em_free(&a->c);
  em_free(&a->s);
  em_free(&a->g);
  em_free(&a->y);
  em_free(&a->h);
  em_free(&a->h2);
}

/* h = V^H w; w -= V h; twice (CGS2: as stable as modified Gram-Schmidt,
 * with two block products instead of j dependent dots) */
em_err ksp_arnoldi_orth(em_ksp_ctx *k, ksp_arnoldi *a, void *V, int j) {
  em_vec *v = k->v;
  void *w = em_vec_col(v, V, j + 1);
  EM_TRY(v->ops->mdot(v, j + 1, V, w, a->h));             /* h = V^H w */
  EM_TRY(v->ops->gemv(v, j + 1, -1.0, V, a->h, 1.0, w));  /* w -= V h */
  EM_TRY(v->ops->mdot(v, j + 1, V, w, a->h2));            /* h2 = V^H w */
  EM_TRY(v->ops->gemv(v, j + 1, -1.0, V, a->h2, 1.0, w)); /* w -= V h2 */
  double hn;
  EM_TRY(em_vec_norm(v, w, &hn)); /* h_{j+1,j} = ||w|| */
  for (int i = 0; i <= j; i++) a->H[HIDX(a, i, j)] = a->h[i] + a->h2[i];
  a->H[HIDX(a, j + 1, j)] = hn;
  if (hn > 0) EM_TRY(v->ops->scale(v, 1.0 / hn, w)); /* v_{j+1} = w / h_{j+1,j} */
  return EM_OK;
}

/* [c s; -conj(s) c] [a; b] = [r; 0] with c real: c = |a| / nrm,
 * s = (a/|a|) conj(b) / nrm, r = (a/|a|) nrm */
double ksp_arnoldi_rotate(ksp_arnoldi *a, int j, int *singular) {
  for (int i = 0; i < j; i++) {
    em_cplx hi = a->H[HIDX(a, i, j)], hi1 = a->H[HIDX(a, i + 1, j)];
    a->H[HIDX(a, i, j)] = a->c[i] * hi + a->s[i] * hi1;
    a->H[HIDX(a, i + 1, j)] = -conj(a->s[i]) * hi + a->c[i] * hi1;
  }
  em_cplx x = a->H[HIDX(a, j, j)], y = a->H[HIDX(a, j + 1, j)];
  double ax = cabs(x), ay = cabs(y);
  *singular = 0;
  if (ax == 0 && ay == 0) {
    a->c[j] = 1;
    a->s[j] = 0;
    *singular = 1;
  } else if (ax == 0) {
    a->c[j] = 0;
    a->s[j] = conj(y) / ay;
    a->H[HIDX(a, j, j)] = ay;
  } else {
    double nrm = hypot(ax, ay);
    a->c[j] = ax / nrm;
    a->s[j] = (x / ax) * conj(y) / nrm;
    a->H[HIDX(a, j, j)] = (x / ax) * nrm;
  }
  a->H[HIDX(a, j + 1, j)] = 0;
  a->g[j + 1] = -conj(a->s[j]) * a->g[j];
  a->g[j] = a->c[j] * a->g[j];
  return cabs(a->g[j + 1]);
}

/* back substitution y = R^-1 g */
void ksp_arnoldi_solve(ksp_arnoldi *a, int cols) {
  for (int i = cols - 1; i >= 0; i--) {
    em_cplx s = a->g[i];
    for (int l = i + 1; l < cols; l++) s -= a->H[HIDX(a, i, l)] * a->y[l];
    a->y[i] = s / a->H[HIDX(a, i, i)];
  }
}

/* One cycle: v0 = r / beta (V[:, 0] holds r), g = beta e1, then for
 * j = 0..m-1: z = M^-1 v_j (into Z[:, j] when Z is given, else into z),
 * v_{j+1} = A z orthogonalized into H(:, j), the rotations, the stop test;
 * finally y = R^-1 g over the columns made.  what: the breakdown's name. */
em_err ksp_arnoldi_cycle(em_ksp_ctx *k, ksp_arnoldi *a, double beta, void *V, void *Z, void *z,
                         const char *what, int *cols, int *stop) {
  em_vec *v = k->v;
  *cols = 0;
  *stop = 0;
  EM_TRY(v->ops->scale(v, 1.0 / beta, V)); /* v0 = r / beta */
  for (int i = 0; i <= a->m; i++) a->g[i] = 0;
  a->g[0] = beta; /* g = beta e1 */
  for (int j = 0; j < a->m; j++) {
    void *zj = Z ? em_vec_col(v, Z, j) : z;
    EM_TRY(ksp_precond(k, em_vec_col(v, V, j), zj));    /* z_j = M^-1 v_j */
    EM_TRY(ksp_matvec(k, zj, em_vec_col(v, V, j + 1))); /* w = A z_j */
    EM_TRY(ksp_arnoldi_orth(k, a, V, j));               /* H(:, j), v_{j+1} */
    int singular;
    double res = ksp_arnoldi_rotate(a, j, &singular);
    if (singular) {
      *stop = ksp_breakdown(k, 0, 1, what);
      break;
    }
    *cols = j + 1;
    k->it++;
    if ((*stop = ksp_stop(k, res))) break;
  }
  if (*cols > 0) ksp_arnoldi_solve(a, *cols); /* y = R^-1 g */
  return EM_OK;
}
