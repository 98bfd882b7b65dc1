/* Quadrature: every stored rule integrates every monomial of barycentric
 * coordinates up to its degree exactly (against a! b! c! d! n! / (|.| + n)!
 * on the reference simplex of dimension n, measure normalised to 1), has
 * positive weights summing to 1 and interior points; the Gauss-Legendre
 * edge rule is exact to 2n-1; out-of-range degrees are errors. */
#include "em_assembly.h"
#include "em_test.h"
#include "quadrature_impl.h"

static double fact(int n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}

/* average of prod lam_i^e_i over the simplex of dimension dim */
static double exact(const int *e, int dim) {
  double num = fact(dim), s = 0;
  for (int i = 0; i <= dim; i++) {
    num *= fact(e[i]);
    s += e[i];
  }
  return num / fact((int)s + dim);
}

static void check_rule(const em_quad *q, int dim, int want, const char *what) {
  EXPECT(q->degree >= want, "%s rule for degree %d has degree %d", what, want, q->degree);
  double ws = 0;
  for (int k = 0; k < q->n; k++) {
    ws += q->w[k];
    EXPECT(q->w[k] > 0, "%s degree %d: weight %d = %g", what, q->degree, k, q->w[k]);
    double ls = 0;
    for (int i = 0; i <= dim; i++) {
      ls += q->lam[(dim + 1) * k + i];
      EXPECT(q->lam[(dim + 1) * k + i] > 0, "%s degree %d: point %d outside", what, q->degree, k);
    }
    EXPECT(fabs(ls - 1) < 1e-15, "%s degree %d: point %d barycentrics sum to %.17g", what,
           q->degree, k, ls);
  }
  EXPECT(fabs(ws - 1) < 1e-14, "%s degree %d: weights sum to %.17g", what, q->degree, ws);
  int e[4] = {0, 0, 0, 0}, D = q->degree;
  double worst = 0;
  for (e[0] = 0; e[0] <= D; e[0]++)
    for (e[1] = 0; e[0] + e[1] <= D; e[1]++)
      for (e[2] = 0; e[0] + e[1] + e[2] <= D; e[2]++)
        for (e[3] = 0; e[0] + e[1] + e[2] + e[3] <= D; e[3]++) {
          if (dim == 2 && e[3]) break;
          double v = 0;
          for (int k = 0; k < q->n; k++) {
            double f = q->w[k];
            for (int i = 0; i <= dim; i++) f *= pow(q->lam[(dim + 1) * k + i], e[i]);
            v += f;
          }
          double ex = exact(e, dim), err = fabs(v - ex) / ex;
          if (err > worst) worst = err;
          EXPECT(err < 1e-13, "%s degree %d: monomial (%d %d %d %d) gives %.17g, exact %.17g", what,
                 q->degree, e[0], e[1], e[2], e[3], v, ex);
        }
  printf("%s rule degree %d: %d points, worst relative monomial error %.2e\n", what, q->degree,
         q->n, worst);
}

int main(void) {
  for (int d = 0; d <= 8; d++) {
    em_quad q;
    EXPECT_OK(em_quad_tet(d, &q));
    check_rule(&q, 3, d, "tet");
    EXPECT_OK(em_quad_tri(d, &q));
    check_rule(&q, 2, d, "triangle");
  }
  em_quad q;
  EXPECT_ERR(em_quad_tet(9, &q), EM_ERR_ARG);
  EXPECT_ERR(em_quad_tri(-1, &q), EM_ERR_ARG);
  EXPECT_ERR(em_quad_tet(3, NULL), EM_ERR_ARG);
  for (int n = 1; n <= 8; n++) {
    double s[8], w[8];
    em_quad_line(n, s, w);
    for (int k = 0; k <= 2 * n - 1; k++) {
      double v = 0;
      for (int i = 0; i < n; i++) v += w[i] * pow(s[i], k);
      EXPECT(fabs(v - 1.0 / (k + 1)) < 1e-14, "Gauss-Legendre %d points: s^%d gives %.17g", n, k,
             v);
    }
  }
  return TEST_RESULT();
}
