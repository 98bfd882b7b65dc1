/* quadrature.c - choose a stored rule by degree; Gauss-Legendre on edges. */
#include <math.h>

#include "quadrature_impl.h"

/* Degree 0 uses the degree-1 rule (a constant is integrated by any rule). */
static em_err pick(const em_quad *rules, const char *what, int degree, em_quad *q) {
  EM_CHECK(q, EM_ERR_ARG, "%s quadrature: NULL output", what);
  EM_CHECK(degree >= 0 && degree <= EM_QUAD_MAX_DEGREE, EM_ERR_ARG,
           "%s quadrature of degree %d requested: stored rules cover 0..%d", what, degree,
           EM_QUAD_MAX_DEGREE);
  *q = rules[degree < 1 ? 0 : degree - 1];
  return EM_OK;
}

em_err em_quad_tet(int degree, em_quad *q) {
  return pick(em_quad_tet_rules, "tet", degree, q);
}

em_err em_quad_tri(int degree, em_quad *q) {
  return pick(em_quad_tri_rules, "triangle", degree, q);
}

/* Nodes are the roots of P_n on [-1,1] by Newton from Chebyshev guesses,
 * P_n and P_n' by the three-term recurrence; w = 2/((1-x^2) P_n'^2),
 * mapped to [0,1] (nodes (1+x)/2, weights halved to sum to 1). */
void em_quad_line(int n, double *s, double *w) {
  for (int i = 0; i < n; i++) {
    double x = cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = x;
      for (int k = 2; k <= n; k++) {
        double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (x * p1 - p0) / (x * x - 1);
      double dx = p1 / dp;
      x -= dx;
      if (fabs(dx) < 1e-16) break;
    }
    s[i] = 0.5 * (1 - x);
    w[i] = 1 / ((1 - x * x) * dp * dp);
  }
}
