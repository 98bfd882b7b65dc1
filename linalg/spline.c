/* spline.c - natural cubic spline of complex samples (S-parameters between
 * the solved frequencies): the second derivatives from one tridiagonal
 * solve (Thomas), then the cubic of the interval of each point. */
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
  EM_CHECK(n >= 1 && m >= 0, EM_ERR_ARG, "spline of %d samples at %d points", n, m);
  EM_CHECK(x && y && (m == 0 || (xe && ye)), EM_ERR_ARG, "spline: a NULL array");
  for (int k = 0; k < n; k++)
    EM_CHECK(isfinite(x[k]) && (k == 0 || x[k] > x[k - 1]), EM_ERR_ARG,
             "spline: abscissa %d (%g) is not finite or does not increase", k, x[k]);
  em_cplx *w = NULL;
  EM_TRY(em_calloc(&w, 5 * (size_t)n, sizeof *w, "spline workspace"));
  em_cplx *dl = w, *d = w + n, *du = w + 2 * n, *r = w + 3 * n, *M = w + 4 * n;
  for (int k = 0; k < n; k++) { /* natural ends: M_0 = M_{n-1} = 0 */
    d[k] = 1;
    if (k == 0 || k == n - 1) continue;
    double h0 = x[k] - x[k - 1], h1 = x[k + 1] - x[k];
    dl[k] = h0;
    d[k] = 2 * (h0 + h1);
    du[k] = h1;
    r[k] = 6 * ((y[k + 1] - y[k]) / h1 - (y[k] - y[k - 1]) / h0);
  }
  em_err err = em_tridiag_thomas_z(n, dl, d, du, r, M);
  for (int i = 0; !err && i < m; i++) {
    if (!isfinite(xe[i]))
      err = EM_RAISE(EM_ERR_ARG, "spline: evaluation point %d is %g", i, xe[i]);
    else
      ye[i] = spline_at(n, x, y, M, xe[i]);
  }
  em_free(&w);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
