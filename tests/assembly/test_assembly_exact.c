/* Patch test: a field inside the discrete space is reproduced exactly.
 * For E in ND_p (p = 1: a + b x r; p = 2: any linear field; p = 3: any
 * quadratic field), constant anisotropic complex materials and
 * f = curl(nu curl E) - k0^2 eps E computed exactly from the polynomial, the
 * discrete solution on a jittered mesh equals E to rounding (1e-10 relative
 * in L2 and curl), with tangential Dirichlet data on xmin, xmax, zmin and
 * zmax (projection-based interpolation must reproduce E exactly there), a
 * Robin face ymax with g = -(n x nu curl E + gamma n x (n x E)), a PEC-free
 * natural face ymin (n x nu curl E = 0 is not satisfied, so ymin also gets
 * a Robin term with gamma = 0 and its g), and the pointwise material path
 * on every third tet.  The same with order per element: the tets with
 * x < 0.5 at order 3, the others at p, reproduce E in ND_p (an element
 * matrix cut wrongly to its entities' orders would not), while with the
 * others at p - 1 (control) they do not.  Second part: the boundary
 * interpolant of gradient data has zero surface curl (it commutes with
 * curl). */
#include <string.h>

#include "direct_solve.h"
#include "em_assembly.h"
#include "em_test.h"

/* Polynomials of degree <= 2 in (x, y, z): coefficients over MONO. */
static const int MONO[10][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0},
                                {0, 2, 0}, {0, 0, 2}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
typedef struct poly {
  em_cplx c[10];
} poly;

static int mono_index(const int e[3]) {
  for (int k = 0; k < 10; k++)
    if (MONO[k][0] == e[0] && MONO[k][1] == e[1] && MONO[k][2] == e[2]) return k;
  return -1;
}

static em_cplx peval(const poly *P, const double x[3]) {
  em_cplx v = 0;
  for (int k = 0; k < 10; k++)
    v += P->c[k] * pow(x[0], MONO[k][0]) * pow(x[1], MONO[k][1]) * pow(x[2], MONO[k][2]);
  return v;
}

static poly pderiv(const poly *P, int d) {
  poly Q;
  memset(&Q, 0, sizeof Q);
  for (int k = 0; k < 10; k++) {
    if (!MONO[k][d]) continue;
    int e[3] = {MONO[k][0], MONO[k][1], MONO[k][2]};
    e[d]--;
    Q.c[mono_index(e)] += P->c[k] * MONO[k][d];
  }
  return Q;
}

static poly padd(const poly *A, em_cplx a, const poly *B, em_cplx b) {
  poly Q;
  for (int k = 0; k < 10; k++) Q.c[k] = a * A->c[k] + b * B->c[k];
  return Q;
}

/* curl of a polynomial vector field */
static void pcurl(const poly E[3], poly C[3]) {
  poly a, b;
  a = pderiv(&E[2], 1), b = pderiv(&E[1], 2), C[0] = padd(&a, 1, &b, -1);
  a = pderiv(&E[0], 2), b = pderiv(&E[2], 0), C[1] = padd(&a, 1, &b, -1);
  a = pderiv(&E[1], 0), b = pderiv(&E[0], 1), C[2] = padd(&a, 1, &b, -1);
}

typedef struct problem_data {
  poly E[3], C[3], F[3]; /* field, its curl, the source */
  em_cplx eps[3], nu[3], gamma;
  double k0;
  double n[3]; /* outward normal of the Robin face of this callback */
} problem_data;

static em_err material(void *ctx, int32_t t, const double x[3], em_material *m) {
  const problem_data *P = ctx;
  (void)t;
  (void)x;
  memcpy(m->eps, P->eps, sizeof m->eps);
  memcpy(m->nu, P->nu, sizeof m->nu);
  return EM_OK;
}

static em_err field(void *ctx, const double x[3], em_cplx v[3]) {
  const problem_data *P = ctx;
  for (int d = 0; d < 3; d++) v[d] = peval(&P->E[d], x);
  return EM_OK;
}

static em_err curl_field(void *ctx, const double x[3], em_cplx v[3]) {
  const problem_data *P = ctx;
  for (int d = 0; d < 3; d++) v[d] = peval(&P->C[d], x);
  return EM_OK;
}

static em_err source(void *ctx, const double x[3], em_cplx v[3]) {
  const problem_data *P = ctx;
  for (int d = 0; d < 3; d++) v[d] = peval(&P->F[d], x);
  return EM_OK;
}

static void ncross(const double n[3], const em_cplx a[3], em_cplx r[3]) {
  r[0] = n[1] * a[2] - n[2] * a[1];
  r[1] = n[2] * a[0] - n[0] * a[2];
  r[2] = n[0] * a[1] - n[1] * a[0];
}

/* g = -(n x H + gamma n x (n x E)), H = nu curl E */
static em_err robin_g(void *ctx, const double x[3], em_cplx g[3]) {
  const problem_data *P = ctx;
  em_cplx E[3], H[3], a[3], b[3], c[3];
  for (int d = 0; d < 3; d++) {
    E[d] = peval(&P->E[d], x);
    H[d] = P->nu[d] * peval(&P->C[d], x);
  }
  ncross(P->n, H, a);
  ncross(P->n, E, b);
  ncross(P->n, b, c);
  for (int d = 0; d < 3; d++) g[d] = -(a[d] + P->gamma * c[d]);
  return EM_OK;
}

/* mix 0: every tet at p; 1: x < 0.5 at 3, the rest at p; 2 (control): the
 * rest at p - 1. */
static void run(int p, int mix, unsigned long long *s) {
  problem_data P, Pymax, Pymin;
  memset(&P, 0, sizeof P);
  P.k0 = 2.0;
  P.eps[0] = 2.0 - 0.3 * I, P.eps[1] = 1.0, P.eps[2] = 4.0 + 0.1 * I;
  P.nu[0] = 0.7, P.nu[1] = 1.3 - 0.2 * I, P.nu[2] = 1.0;
  P.gamma = 0.5 + 1.5 * I;
  em_cplx a[3], b[3];
  for (int d = 0; d < 3; d++) {
    a[d] = 2 * em_test_rand(s) - 1 + I * (2 * em_test_rand(s) - 1);
    b[d] = 2 * em_test_rand(s) - 1 + I * (2 * em_test_rand(s) - 1);
  }
  if (p == 1) { /* E = a + b x r */
    for (int d = 0; d < 3; d++) P.E[d].c[0] = a[d];
    P.E[0].c[3] = b[1], P.E[0].c[2] = -b[2]; /* b_y z - b_z y */
    P.E[1].c[1] = b[2], P.E[1].c[3] = -b[0]; /* b_z x - b_x z */
    P.E[2].c[2] = b[0], P.E[2].c[1] = -b[1]; /* b_x y - b_y x */
  } else {
    int nk = p == 2 ? 4 : 10;
    for (int d = 0; d < 3; d++)
      for (int k = 0; k < nk; k++)
        P.E[d].c[k] = 2 * em_test_rand(s) - 1 + I * (2 * em_test_rand(s) - 1);
  }
  pcurl(P.E, P.C);
  poly H[3], CH[3];
  for (int d = 0; d < 3; d++) H[d] = padd(&P.C[d], P.nu[d], &P.C[d], 0);
  pcurl(H, CH);
  for (int d = 0; d < 3; d++) P.F[d] = padd(&CH[d], 1, &P.E[d], -P.k0 * P.k0 * P.eps[d]);
  Pymax = P, Pymin = P;
  Pymax.n[1] = 1;
  Pymin.n[1] = -1;
  Pymin.gamma = 0;

  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 1.0, 0.9, 1.1, 0.25, 17 + p, &m));
  int ymax = em_mesh_group_find(m, "ymax", 2), ymin = em_mesh_group_find(m, "ymin", 2);
  uint8_t *ff = calloc((size_t)m->n_face, 1), *vary = calloc((size_t)m->n_tet, 1);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] != ymax && m->tri_group[k] != ymin) ff[m->tri_face[k]] = 1;
  for (int32_t t = 0; t < m->n_tet; t += 3) vary[t] = 1;
  int8_t *to = calloc((size_t)m->n_tet, 1);
  for (int32_t t = 0; t < m->n_tet; t++) {
    double xc = 0;
    for (int k = 0; k < 4; k++) xc += 0.25 * m->xyz[3 * m->tet[4 * t + k]];
    to[t] = (int8_t)(!mix ? p : xc < 0.5 ? 3 : mix == 1 ? p : p - 1);
  }
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build_orders(m, to, ff, &d));
  free(to);
  em_robin rb[2] = {{.group = ymax, .gamma = P.gamma, .g = robin_g, .g_ctx = &Pymax, .rhs = 0},
                    {.group = ymin, .gamma = 0, .g = robin_g, .g_ctx = &Pymin, .rhs = 0}};
  em_problem prob = {.k0 = P.k0,
                     .material = material,
                     .material_ctx = &P,
                     .tet_vary = vary,
                     .source = source,
                     .source_ctx = &P,
                     .dirichlet = field,
                     .dirichlet_ctx = &P,
                     .n_robin = 2,
                     .robin = rb,
                     .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  REQUIRE_OK(em_test_dense_solve(A, 1, sys->b, x));
  double el2, ec, zl2, zc;
  REQUIRE_OK(em_field_error(m, d, x, sys->fixed, field, curl_field, &P, &el2, &ec));
  /* the size of E itself: error of the zero field */
  em_cplx *zero = calloc((size_t)d->n_dof + 1, sizeof *zero),
          *zf = calloc((size_t)d->n_fixed + 1, sizeof *zf);
  REQUIRE_OK(em_field_error(m, d, zero, zf, field, curl_field, &P, &zl2, &zc));
  static const char *const what[] = {"", " (x < 0.5 at order 3)", " (x < 0.5 at 3, the rest p-1)"};
  printf("p=%d%s: %d unknowns, %d fixed: relative L2 error %.2e, curl error %.2e\n", p, what[mix],
         d->n_dof, d->n_fixed, el2 / zl2, ec / zc);
  if (mix < 2) {
    EXPECT(el2 <= 1e-10 * zl2, "p=%d%s: field in the space not reproduced (L2 %g of %g)", p,
           what[mix], el2, zl2);
    EXPECT(ec <= 1e-10 * zc, "p=%d%s: curl not reproduced (%g of %g)", p, what[mix], ec, zc);
  } else {
    EXPECT(el2 > 1e-4 * zl2, "p=%d%s: a field outside the space reproduced (L2 %g of %g)", p,
           what[mix], el2, zl2);
  }
  free(zero);
  free(zf);
  free(x);
  free(ff);
  free(vary);
  em_csr_destroy(&A);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

/* E_D = grad(phi), phi = (a.x)^4 + (b.x)^3 + (c.x)^2: outside the discrete
 * H1 space for p <= 3, yet every moment integrand stays within the degree
 * of the edge and face rules, so the check is exact to rounding. */
static const double GA[3] = {0.9, -0.4, 0.7}, GB[3] = {-0.3, 1.1, 0.5}, GC[3] = {0.6, 0.2, -1.2};
static em_err grad_phi(void *ctx, const double x[3], em_cplx v[3]) {
  (void)ctx;
  double a = GA[0] * x[0] + GA[1] * x[1] + GA[2] * x[2],
         b = GB[0] * x[0] + GB[1] * x[1] + GB[2] * x[2],
         c = GC[0] * x[0] + GC[1] * x[1] + GC[2] * x[2];
  for (int d = 0; d < 3; d++) v[d] = 4 * a * a * a * GA[d] + 3 * b * b * GB[d] + 2 * c * GC[d];
  return EM_OK;
}

/* Commuting boundary interpolant: for gradient data the interpolated trace
 * has zero surface curl n . curl E_h on every fixed face (to rounding),
 * while the trace itself is far from zero.  A plain L2 face projection
 * violates this at p >= 2. */
static void commuting(int p) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 1.0, 0.9, 1.1, 0.25, 5, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t k = 0; k < m->n_tri; k++) ff[m->tri_face[k]] = 1;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
  problem_data P;
  memset(&P, 0, sizeof P);
  for (int k = 0; k < 3; k++) P.eps[k] = P.nu[k] = 1;
  em_problem prob = {
      .k0 = 1, .material = material, .material_ctx = &P, .dirichlet = grad_phi, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  unsigned long long s = 5;
  double worst = 0, emax = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    if (!ff[f]) continue;
    int32_t t = m->face_tet[2 * f];
    int lf = 0;
    while (m->tet_face[4 * t + lf] != f) lf++;
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    double gn = sqrt(g.grad[lf][0] * g.grad[lf][0] + g.grad[lf][1] * g.grad[lf][1] +
                     g.grad[lf][2] * g.grad[lf][2]);
    for (int k = 0; k < 4; k++) {
      double lam[4] = {0, 0, 0, 0}, sum = 0, mu[3];
      for (int v = 0; v < 3; v++) sum += mu[v] = 0.05 + em_test_rand(&s);
      for (int v = 0; v < 3; v++) lam[EM_TET_FACE[lf][v]] = mu[v] / sum;
      em_cplx E[3], C[3];
      em_field_eval(m, d, x, sys->fixed, t, lam, E, C);
      em_cplx cn = (C[0] * g.grad[lf][0] + C[1] * g.grad[lf][1] + C[2] * g.grad[lf][2]) / gn;
      worst = fmax(worst, cabs(cn) / gn); /* |curl| scaled by the element size */
      for (int c = 0; c < 3; c++) emax = fmax(emax, cabs(E[c]));
    }
  }
  printf("p=%d: gradient data, max |n . curl E_h| h = %.2e on fixed faces (|E_h| up to %.2f)\n", p,
         worst, emax);
  EXPECT(emax > 0.5, "p=%d: interpolated gradient data vanished", p);
  EXPECT(worst < 1e-12 * emax, "p=%d: boundary interpolant does not commute with curl (%g)", p,
         worst);
  free(x);
  free(ff);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  unsigned long long s = 2024;
  for (int p = 1; p <= 3; p++) run(p, 0, &s);
  for (int p = 1; p <= 2; p++) run(p, 1, &s);
  for (int p = 2; p <= 3; p++) run(p, 2, &s);
  for (int p = 1; p <= 3; p++) commuting(p);
  return TEST_RESULT();
}
