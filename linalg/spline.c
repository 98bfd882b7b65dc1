/* spline.c - natural cubic splines of complex samples (S-parameters between
 * the solved frequencies): the second derivatives of every curve from one
 * batched tridiagonal solve (CPU, or the GPU split method when the run is
 * on the GPU), then the cubic of the interval of each point. */
#include "em_linalg.h"

#include <math.h>

/* On [x_k, x_{k+1}], h = x_{k+1} - x_k:
 *   s = A y_k + B y_{k+1} + ((A^3 - A) M_k + (B^3 - B) M_{k+1}) h^2 / 6,
 *   A = (x_{k+1} - x) / h, B = 1 - A. */
static em_cplx spline_at(int n, const double *x, const em_cplx *y, const em_cplx *M, double xe) {
  if (n == 1) return y[0];
  if (xe <= x[0]) xe = x[0];
  if (xe >= x[n - 1]) xe = x[n - 1];
  int lo = 0, hi = n - 1; /* x[lo] <= xe <= x[hi] */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (x[mid] <= xe)
      lo = mid;
    else
      hi = mid;
  }
  double h = x[hi] - x[lo], A = (x[hi] - xe) / h, B = 1 - A;
  return A * y[lo] + B * y[hi] + ((A * A * A - A) * M[lo] + (B * B * B - B) * M[hi]) * h * h / 6;
}

em_err em_spline_eval_z(int n, const double *x, const em_cplx *y, int m, const double *xe,
                        em_cplx *ye) {
  EM_TRY(em_spline_eval_batch_z(EM_BACKEND_CPU, n, 1, x, y, m, xe, ye, NULL));
  return EM_OK;
}

/* Every curve has the same matrix (it depends on x only); it is repeated
 * per curve so that the batch is one strided tridiagonal solve. */
em_err em_spline_eval_batch_z(em_backend be, int n, int batch, const double *x, const em_cplx *y,
                              int m, const double *xe, em_cplx *ye, int *used) {
  EM_CHECK(n >= 1 && m >= 0 && batch >= 1, EM_ERR_ARG, "spline of %d x %d samples at %d points",
           batch, n, m);
  EM_CHECK(x && y && (m == 0 || (xe && ye)), EM_ERR_ARG, "spline: a NULL array");
  for (int k = 0; k < n; k++)
    EM_CHECK(isfinite(x[k]) && (k == 0 || x[k] > x[k - 1]), EM_ERR_ARG,
             "spline: abscissa %d (%g) is not finite or does not increase", k, x[k]);
  for (int i = 0; i < m; i++)
    EM_CHECK(isfinite(xe[i]), EM_ERR_ARG, "spline: evaluation point %d is %g", i, xe[i]);
  const size_t N = (size_t)n * (size_t)batch;
  em_cplx *w = NULL;
  EM_TRY(em_calloc(&w, 5 * N, sizeof *w, "spline workspace"));
  em_cplx *dl = w, *d = w + N, *du = w + 2 * N, *r = w + 3 * N, *M = w + 4 * N;
  for (int q = 0; q < batch; q++) {
    const em_cplx *yq = y + (size_t)q * n;
    const size_t o = (size_t)q * n;
    for (int k = 0; k < n; k++) { /* natural ends: M_0 = M_{n-1} = 0 */
      d[o + k] = 1;
      if (k == 0 || k == n - 1) continue;
      double h0 = x[k] - x[k - 1], h1 = x[k + 1] - x[k];
      dl[o + k] = h0;
      d[o + k] = 2 * (h0 + h1);
      du[o + k] = h1;
      r[o + k] = 6 * ((yq[k + 1] - yq[k]) / h1 - (yq[k] - yq[k - 1]) / h0);
    }
  }
  em_err err = em_tridiag_solve(be, 1, n, batch, dl, d, du, r, M, used);
  for (int q = 0; !err && q < batch; q++)
    for (int i = 0; i < m; i++)
      ye[(size_t)q * m + i] = spline_at(n, x, y + (size_t)q * n, M + (size_t)q * n, xe[i]);
  em_free(&w);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
