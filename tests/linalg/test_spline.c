/* Natural cubic spline: exact on straight lines (complex slope), through
 * the samples, and on y = exp(2 pi j x) interior errors that fall as h^4
 * (ratio near 16 when h halves) against the analytic function.  A batch
 * of curves (argument gpu: the CUDA backend, the GPU split method) gives
 * each curve's own spline: exp(2 pi j q x) for q = 1..37, checked against
 * the analytic function at the h^4 bound of the single curve. */
#include <complex.h>
#include <string.h>

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

/* 37 curves exp(2 pi j x / 8 q) on 161 samples of [0, 1] (S-parameters of
 * a 6-port are 36 curves; 37 is no multiple of 32), one batch on be. */
static void check_batch(em_backend be) {
  enum { NS = 161, NC = 37, NE = 301 };
  double x[NS], xe[NE];
  em_cplx *y = calloc((size_t)NS * NC, sizeof *y), *ye = calloc((size_t)NE * NC, sizeof *ye);
  em_cplx y1[NE];
  for (int k = 0; k < NS; k++) x[k] = (double)k / (NS - 1);
  for (int i = 0; i < NE; i++) xe[i] = (double)i / (NE - 1);
  for (int q = 0; q < NC; q++)
    for (int k = 0; k < NS; k++) y[q * NS + k] = cexp(2 * M_PI * I * x[k] * (q + 1) / 8.0);
  int used = -1;
  REQUIRE_OK(em_spline_eval_batch_z(be, NS, NC, x, y, NE, xe, ye, &used));
  double e = 0, d = 0, h = 1.0 / (NS - 1);
  for (int q = 0; q < NC; q++) {
    /* the cubic spline's bound 5/384 h^4 max|y''''|, y'''' = w^4 y, w = 2 pi (q + 1) / 8 */
    const double w = 2 * M_PI * (q + 1) / 8.0, bound = 5.0 / 384 * pow(h, 4) * pow(w, 4);
    double eq = 0;
    REQUIRE_OK(em_spline_eval_z(NS, x, y + q * NS, NE, xe, y1));
    for (int i = 0; i < NE; i++) {
      d = fmax(d, cabs(ye[q * NE + i] - y1[i]));
      if (xe[i] > 0.2 && xe[i] < 0.8) /* the natural ends are off by h^2 */
        eq = fmax(eq, cabs(ye[q * NE + i] - cexp(2 * M_PI * I * xe[i] * (q + 1) / 8.0)));
    }
    e = fmax(e, eq / bound);
  }
  EXPECT(e < 1, "batch of %d curves: interior error %.3g of the h^4 bound", NC, e);
  EXPECT(d < 1e-12, "batch against one curve at a time: %.3g (path %d)", d, used);
  if (be == EM_BACKEND_CUDA)
    EXPECT(used != EM_TRIDIAG_PATH_CPU || !em_cuda_built() || em_cuda_count_devices() == 0,
           "a GPU run took the CPU path");
  free(y);
  free(ye);
}

int main(int argc, char **argv) {
  if (test_backend(argc, argv) == EM_BACKEND_CUDA) {
    check_batch(EM_BACKEND_CUDA);
    return TEST_RESULT();
  }
  check_batch(EM_BACKEND_CPU);
  check_batch(EM_BACKEND_CUDA); /* without a GPU: the CPU fallback */
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
