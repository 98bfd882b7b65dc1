/* Manufactured solution with anisotropic complex materials:
 *   E = s (sin(a1 y) cos(b1 z), sin(a2 z) cos(b2 x), sin(a3 x) cos(b3 y)),
 *   eps = diag(2 - 0.1j, 3, 1.5), nu = diag(1, 0.5, 2), k0 = 2 rad/m,
 * for which curl(nu curl E) = diag(nu3 a1^2 + nu2 b1^2, nu1 a2^2 + nu3 b2^2,
 * nu2 a3^2 + nu1 b3^2) E exactly, so f = curl(nu curl E) - k0^2 eps E.
 * On [0,1]^3: tangential Dirichlet data on five faces and a Robin face on
 * xmax (gamma = 1.5 - 2j) with g = -(n x nu curl E + gamma n x (n x E)),
 * which exercises the volume source, the Robin matrix and right-hand side,
 * the Dirichlet lift and (tet_vary on every other tet) the pointwise
 * material path.  L2 and curl errors must fall at rate >= p - 0.2 for
 * p = 1 (n = 4, 6, 8), p = 2 and 3 (n = 2, 3, 4); the single-cube mesh n = 1
 * is pre-asymptotic at p = 3 (L2 rate 2.71 from n = 1 to 2). */
#include <string.h>

#include "direct_solve.h"
#include "em_assembly.h"
#include "em_test.h"

static const double A_[3] = {2.0, 1.5, 2.5}, B_[3] = {1.5, 2.5, 2.0};
static const em_cplx S_ = 1.0 + 0.5 * I;
#define EPS0 (2.0 - 0.1 * I)
#define EPS1 3.0
#define EPS2 1.5
static const double NU[3] = {1.0, 0.5, 2.0};
static const double K0 = 2.0;
#define GAMMA (1.5 - 2.0 * I)

static em_err material(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)t;
  (void)x;
  m->eps[0] = EPS0;
  m->eps[1] = EPS1;
  m->eps[2] = EPS2;
  for (int d = 0; d < 3; d++) m->nu[d] = NU[d];
  return EM_OK;
}

static em_err exact_E(void *ctx, const double x[3], em_cplx E[3]) {
  (void)ctx;
  E[0] = S_ * sin(A_[0] * x[1]) * cos(B_[0] * x[2]);
  E[1] = S_ * sin(A_[1] * x[2]) * cos(B_[1] * x[0]);
  E[2] = S_ * sin(A_[2] * x[0]) * cos(B_[2] * x[1]);
  return EM_OK;
}

/* curl E = (dEz/dy - dEy/dz, dEx/dz - dEz/dx, dEy/dx - dEx/dy) */
static em_err exact_curl(void *ctx, const double x[3], em_cplx C[3]) {
  (void)ctx;
  double X = x[0], Y = x[1], Z = x[2];
  C[0] = S_ * (-B_[2] * sin(A_[2] * X) * sin(B_[2] * Y) - A_[1] * cos(A_[1] * Z) * cos(B_[1] * X));
  C[1] = S_ * (-B_[0] * sin(A_[0] * Y) * sin(B_[0] * Z) - A_[2] * cos(A_[2] * X) * cos(B_[2] * Y));
  C[2] = S_ * (-B_[1] * sin(A_[1] * Z) * sin(B_[1] * X) - A_[0] * cos(A_[0] * Y) * cos(B_[0] * Z));
  return EM_OK;
}

static em_err source(void *ctx, const double x[3], em_cplx f[3]) {
  em_cplx E[3];
  exact_E(ctx, x, E);
  f[0] = (NU[2] * A_[0] * A_[0] + NU[1] * B_[0] * B_[0] - K0 * K0 * EPS0) * E[0];
  f[1] = (NU[0] * A_[1] * A_[1] + NU[2] * B_[1] * B_[1] - K0 * K0 * EPS1) * E[1];
  f[2] = (NU[1] * A_[2] * A_[2] + NU[0] * B_[2] * B_[2] - K0 * K0 * EPS2) * E[2];
  return EM_OK;
}

/* g = -U with U = n x H + gamma n x (n x E), n = +x, H = nu curl E:
 * n x H = (0, -Hz, Hy), n x (n x E) = (0, -Ey, -Ez). */
static em_err robin_g(void *ctx, const double x[3], em_cplx g[3]) {
  em_cplx E[3], C[3];
  exact_E(ctx, x, E);
  exact_curl(ctx, x, C);
  g[0] = 0;
  g[1] = -(-NU[2] * C[2] - GAMMA * E[1]);
  g[2] = -(NU[1] * C[1] - GAMMA * E[2]);
  return EM_OK;
}

static void solve(int p, int n, double *el2, double *ecurl) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(n, n, n, 1.0, 1.0, 1.0, 0.0, 1, &m));
  int xmax = em_mesh_group_find(m, "xmax", 2);
  uint8_t *ff = calloc((size_t)m->n_face, 1), *vary = calloc((size_t)m->n_tet, 1);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] != xmax) ff[m->tri_face[k]] = 1;
  for (int32_t t = 0; t < m->n_tet; t += 2) vary[t] = 1;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
  em_robin rb = {.group = xmax, .gamma = GAMMA, .g = robin_g, .rhs = 0};
  em_problem prob = {.k0 = K0,
                     .material = material,
                     .tet_vary = vary,
                     .source = source,
                     .dirichlet = exact_E,
                     .n_rhs = 1,
                     .n_robin = 1,
                     .robin = &rb};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  REQUIRE_OK(em_test_dense_solve(A, 1, sys->b, x));
  REQUIRE_OK(em_field_error(m, d, x, sys->fixed, exact_E, exact_curl, NULL, el2, ecurl));
  printf("  p=%d n=%d: %6d unknowns, L2 error %.3e, curl error %.3e\n", p, n, d->n_dof, *el2,
         *ecurl);
  free(x);
  free(ff);
  free(vary);
  em_csr_destroy(&A);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  static const int N[3][3] = {{4, 6, 8}, {2, 3, 4}, {2, 3, 4}};
  for (int p = 1; p <= 3; p++) {
    double el[3], ec[3];
    printf("manufactured solution, p=%d\n", p);
    for (int i = 0; i < 3; i++) solve(p, N[p - 1][i], el + i, ec + i);
    for (int i = 1; i < 3; i++) {
      double h = log((double)N[p - 1][i] / N[p - 1][i - 1]);
      double rl = log(el[i - 1] / el[i]) / h, rc = log(ec[i - 1] / ec[i]) / h;
      printf("  rates n=%d->%d: L2 %.2f, curl %.2f (need >= %.1f)\n", N[p - 1][i - 1], N[p - 1][i],
             rl, rc, p - 0.2);
      EXPECT(rl >= p - 0.2, "p=%d: L2 rate %.2f", p, rl);
      EXPECT(rc >= p - 0.2, "p=%d: curl rate %.2f", p, rc);
      if (i == 2) { /* finest pair, stricter: see test_assembly_planewave */
        EXPECT(rl >= p - 0.1, "p=%d: finest L2 rate %.2f < p - 0.1", p, rl);
        EXPECT(rc >= p - 0.1, "p=%d: finest curl rate %.2f < p - 0.1", p, rc);
      }
    }
  }
  return TEST_RESULT();
}
