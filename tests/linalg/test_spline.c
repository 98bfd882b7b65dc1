/* Natural cubic spline: exact on straight lines (complex slope), through
 * the samples, and on y = exp(2 pi j x) interior errors that fall as h^4
 * (ratio near 16 when h halves) against the analytic function. */
#include <complex.h>

#include "em_linalg.h"
#include "em_test.h"

/* max |s - exp(2 pi j x)| over x in [0.3, 0.7], n samples on [0, 1]. */
static double interior_error(int n) {
  double *x = calloc((size_t)n, sizeof *x), xe[401];
  em_cplx *y = calloc((size_t)n, sizeof *y), ye[401];
  for (int k = 0; k < n; k++) x[k] = (double)k / (n - 1), y[k] = cexp(2 * M_PI * I * x[k]);
  for (int i = 0; i < 401; i++) xe[i] = 0.3 + 0.4 * i / 400.0;
  REQUIRE_OK(em_spline_eval_z(n, x, y, 401, xe, ye));
  double e = 0;
  for (int i = 0; i < 401; i++) e = fmax(e, cabs(ye[i] - cexp(2 * M_PI * I * xe[i])));
  free(x);
  free(y);
  return e;
}

int main(void) {
  double x[7] = {0, 0.1, 0.35, 0.4, 0.8, 0.9, 1.3}, xe[50];
  em_cplx y[7], ye[50];
  for (int k = 0; k < 7; k++) y[k] = (1 + 2 * I) * x[k] + 3 * I;
  for (int i = 0; i < 50; i++) xe[i] = -0.1 + 1.5 * i / 49.0; /* outside: clamped */
  REQUIRE_OK(em_spline_eval_z(7, x, y, 50, xe, ye));
  double e = 0;
  for (int i = 0; i < 50; i++) {
    double t = fmin(fmax(xe[i], 0), 1.3);
    e = fmax(e, cabs(ye[i] - ((1 + 2 * I) * t + 3 * I)));
  }
  EXPECT(e < 1e-14, "straight line: error %.3g", e);
  REQUIRE_OK(em_spline_eval_z(7, x, y, 7, x, ye));
  e = 0;
  for (int k = 0; k < 7; k++) e = fmax(e, cabs(ye[k] - y[k]));
  EXPECT(e < 1e-15, "at the samples: error %.3g", e);
  double e1 = interior_error(21), e2 = interior_error(41);
  EXPECT(e1 < 5e-5 && e1 / e2 > 13 && e1 / e2 < 19, "exp(2 pi j x): errors %.3g, %.3g (ratio %.2f)",
         e1, e2, e1 / e2);
  em_cplx one = 2;
  double x0 = 1;
  REQUIRE_OK(em_spline_eval_z(1, &x0, &one, 1, x, ye));
  EXPECT(ye[0] == 2, "one sample: %g", creal(ye[0]));
  double bad[3] = {0, 1, 1};
  EXPECT_ERR(em_spline_eval_z(3, bad, y, 1, x, ye), EM_ERR_ARG);
  return TEST_RESULT();
}
