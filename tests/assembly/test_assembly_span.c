/* Span of the local space: on a random tet, the L2 projection onto the
 * em_basis_count(p) functions reproduces exactly (1e-10 relative)
 *   (a) every monomial vector of degree <= p-1 and random such polynomials,
 *   (b) the gradient of random scalar polynomials of degree p,
 *   (c) x cross r for every homogeneous monomial vector r of degree p-1,
 * and the Gram matrix has full rank.  (a) + (c) span the first-kind Nedelec
 * space of order p, whose dimension p(p+2)(p+3)/2 equals the number of
 * functions: so the local space IS that space.  A negative control
 * (x^p e_x, outside the space) must not be reproduced. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

typedef struct target {
  int kind;      /* 0 monomial vector, 1 grad of scalar, 2 x cross monomial, 3 random P_{p-1} */
  int e[3], dir; /* exponents and direction of the monomial */
  double coef[3][20]; /* random coefficients over monomials of degree <= p (kinds 1, 3) */
} target;

static const int MONO[20][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0},
                                {0, 2, 0}, {0, 0, 2}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1},
                                {3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {2, 1, 0}, {2, 0, 1},
                                {1, 2, 0}, {0, 2, 1}, {1, 0, 2}, {0, 1, 2}, {1, 1, 1}};
static int n_mono(int deg) {
  return deg == 0 ? 1 : deg == 1 ? 4 : deg == 2 ? 10 : 20;
}

static double mono(const int *e, const double *y) {
  return pow(y[0], e[0]) * pow(y[1], e[1]) * pow(y[2], e[2]);
}

/* Value of the target at centred coordinates y. */
static void value(const target *T, int p, const double *y, double v[3]) {
  v[0] = v[1] = v[2] = 0;
  if (T->kind == 0) {
    v[T->dir] = mono(T->e, y);
  } else if (T->kind == 2) {
    double r[3] = {0, 0, 0};
    r[T->dir] = mono(T->e, y);
    v[0] = y[1] * r[2] - y[2] * r[1];
    v[1] = y[2] * r[0] - y[0] * r[2];
    v[2] = y[0] * r[1] - y[1] * r[0];
  } else if (T->kind == 3) {
    for (int k = 0; k < n_mono(p - 1); k++)
      for (int d = 0; d < 3; d++) v[d] += T->coef[d][k] * mono(MONO[k], y);
  } else { /* grad sum_k c_k y^e_k */
    for (int k = 0; k < n_mono(p); k++)
      for (int d = 0; d < 3; d++) {
        if (!MONO[k][d]) continue;
        int e[3] = {MONO[k][0], MONO[k][1], MONO[k][2]};
        e[d]--;
        v[d] += T->coef[0][k] * MONO[k][d] * mono(e, y);
      }
  }
}

/* Relative L2 residual of the projection of T onto the local space. */
static double project(int p, const em_tet_geom *g, const double *L, const double *c0,
                      const target *T) {
  int n = em_basis_count(p), one = 1, info;
  em_quad q;
  REQUIRE_OK(em_quad_tet(8, &q));
  double b[45] = {0}, w[45][3], num = 0, den = 0;
  for (int k = 0; k < q.n; k++) {
    double y[3] = {-c0[0], -c0[1], -c0[2]}, v[3];
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) y[d] += q.lam[4 * k + a] * g->x[a][d];
    value(T, p, y, v);
    em_basis_eval(p, q.lam + 4 * k, g->grad, w, NULL);
    for (int i = 0; i < n; i++) b[i] += q.w[k] * (w[i][0] * v[0] + w[i][1] * v[1] + w[i][2] * v[2]);
  }
  dpotrs_("L", &n, &one, L, &n, b, &n, &info);
  for (int k = 0; k < q.n; k++) {
    double y[3] = {-c0[0], -c0[1], -c0[2]}, v[3];
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) y[d] += q.lam[4 * k + a] * g->x[a][d];
    value(T, p, y, v);
    em_basis_eval(p, q.lam + 4 * k, g->grad, w, NULL);
    for (int d = 0; d < 3; d++) {
      double r = v[d];
      for (int i = 0; i < n; i++) r -= b[i] * w[i][d];
      num += q.w[k] * r * r;
      den += q.w[k] * v[d] * v[d];
    }
  }
  return sqrt(num / den);
}

int main(void) {
  unsigned long long s = 99;
  double xyz[12] = {0.1, 0.05, -0.1, 1.2, 0.1, 0.2, 0.3, 0.9, -0.1, 0.2, 0.3, 1.1};
  int32_t tet[4] = {0, 1, 2, 3}, grp = 0;
  em_group gr = {"v", 1, 3};
  em_mesh *m = NULL;
  for (int k = 0; k < 12; k++) xyz[k] += 0.1 * em_test_rand(&s);
  REQUIRE_OK(em_mesh_from_tets(4, xyz, 1, tet, &grp, 0, NULL, NULL, 1, &gr, 0, &m));
  em_tet_geom g;
  em_tet_geom_make(m, 0, &g);
  double c0[3] = {0, 0, 0};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) c0[d] += 0.25 * g.x[a][d];
  for (int p = 1; p <= 3; p++) {
    int n = em_basis_count(p), info, lwork = 64 * 45;
    double G[45 * 45] = {0}, E[45 * 45], ev[45], work[64 * 45], w[45][3];
    em_quad q;
    REQUIRE_OK(em_quad_tet(2 * p, &q));
    for (int k = 0; k < q.n; k++) {
      em_basis_eval(p, q.lam + 4 * k, g.grad, w, NULL);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          G[i * n + j] += q.w[k] * (w[i][0] * w[j][0] + w[i][1] * w[j][1] + w[i][2] * w[j][2]);
    }
    memcpy(E, G, sizeof G);
    dsyev_("N", "L", &n, E, &n, ev, work, &lwork, &info);
    EXPECT(info == 0, "dsyev info %d", info);
    double cond = ev[n - 1] / ev[0];
    printf("p=%d: %d functions, Gram eigenvalues %.3e .. %.3e, condition number %.3e\n", p, n,
           ev[0], ev[n - 1], cond);
    EXPECT(ev[0] > 1e-10 * ev[n - 1], "p=%d: Gram matrix rank deficient (cond %g)", p, cond);
    dpotrf_("L", &n, G, &n, &info);
    REQUIRE_OK(info ? EM_ERR_NUMERIC : EM_OK);
    double worst = 0;
    int count = 0;
    target T;
    memset(&T, 0, sizeof T);
    for (int k = 0; k < n_mono(p - 1); k++)
      for (int d = 0; d < 3; d++) { /* (a) monomial vectors */
        T.kind = 0;
        memcpy(T.e, MONO[k], sizeof T.e);
        T.dir = d;
        double r = project(p, &g, G, c0, &T);
        EXPECT(r < 1e-10, "p=%d: monomial y^(%d,%d,%d) e_%d not reproduced (residual %g)", p,
               T.e[0], T.e[1], T.e[2], d, r);
        worst = fmax(worst, r);
        count++;
      }
    for (int k = n_mono(p - 2 < 0 ? 0 : p - 2) * (p > 1); k < n_mono(p - 1); k++)
      for (int d = 0; d < 3; d++) { /* (c) y x (homogeneous degree p-1) */
        if (p == 1 && k > 0) break;
        T.kind = 2;
        memcpy(T.e, MONO[k], sizeof T.e);
        T.dir = d;
        double r = project(p, &g, G, c0, &T);
        EXPECT(r < 1e-10, "p=%d: y x y^(%d,%d,%d) e_%d not reproduced (residual %g)", p, T.e[0],
               T.e[1], T.e[2], d, r);
        worst = fmax(worst, r);
        count++;
      }
    for (int trial = 0; trial < 5; trial++) { /* (b) gradients, random (a) */
      for (int kind = 1; kind <= 3; kind += 2) {
        T.kind = kind;
        for (int d = 0; d < 3; d++)
          for (int k = 0; k < 20; k++) T.coef[d][k] = 2 * em_test_rand(&s) - 1;
        double r = project(p, &g, G, c0, &T);
        EXPECT(r < 1e-10, "p=%d: random %s not reproduced (residual %g)", p,
               kind == 1 ? "gradient of degree p" : "vector of degree p-1", r);
        worst = fmax(worst, r);
        count++;
      }
    }
    /* negative control: y_x^p e_x is the gradient of a degree p+1 scalar */
    T.kind = 0;
    T.e[0] = p;
    T.e[1] = T.e[2] = 0;
    T.dir = 0;
    double r = project(p, &g, G, c0, &T);
    EXPECT(r > 1e-3, "p=%d: y_x^p e_x should lie outside the space (residual %g)", p, r);
    printf("p=%d: %d targets reproduced, worst residual %.2e; control outside the space %.2e\n", p,
           count, worst, r);
  }
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
