/* Plane wave E = p exp(-j k.r), p.k = 0, |k| = k0, in a uniform medium,
 * with its tangential trace imposed on the whole boundary of the box
 * [0,1]^3 m (projection-based interpolation of the data).  The L2 and
 * curl errors must fall at rate >= p - 0.2 between consecutive meshes for
 * p = 1, 2, 3 (first-kind Nedelec: both O(h^p), docs/validation.md R4).
 * k0 = 3 rad/m (wavelength 2.1 m, about one half-wave across the box)
 * keeps the meshes in the asymptotic regime at these sizes:
 *   p = 1: n = 4, 6, 8 cells a side; p = 2 and 3: n = 2, 3, 4.
 * Second case: normal incidence along +x with the first-order absorbing
 * (Robin) condition gamma = j k0 on xmax instead of Dirichlet data there,
 * which the plane wave satisfies exactly: same rates.  The finest pair must
 * also reach p - 0.1 (stricter than the contract, to catch half-order
 * losses from the boundary data that p - 0.2 lets through). */
#include <string.h>

#include "direct_solve.h"
#include "em_assembly.h"
#include "em_test.h"

typedef struct wave {
  double k[3];
  em_cplx p[3];
} wave;

static em_err vacuum(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx;
  (void)t;
  (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = m->nu[d] = 1;
  return EM_OK;
}

static em_err wave_E(void *ctx, const double x[3], em_cplx E[3]) {
  const wave *w = ctx;
  em_cplx ph = cexp(-I * (w->k[0] * x[0] + w->k[1] * x[1] + w->k[2] * x[2]));
  for (int d = 0; d < 3; d++) E[d] = w->p[d] * ph;
  return EM_OK;
}

/* curl E = -j k x p exp(-j k.r) */
static em_err wave_curl(void *ctx, const double x[3], em_cplx C[3]) {
  const wave *w = ctx;
  em_cplx ph = cexp(-I * (w->k[0] * x[0] + w->k[1] * x[1] + w->k[2] * x[2]));
  C[0] = -I * (w->k[1] * w->p[2] - w->k[2] * w->p[1]) * ph;
  C[1] = -I * (w->k[2] * w->p[0] - w->k[0] * w->p[2]) * ph;
  C[2] = -I * (w->k[0] * w->p[1] - w->k[1] * w->p[0]) * ph;
  return EM_OK;
}

/* Solve on an n^3 box; errors out.  abc: Robin on xmax instead of data. */
static void solve(int p, int n, wave *w, double k0, int abc, double *el2, double *ecurl) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(n, n, n, 1.0, 1.0, 1.0, 0.0, 1, &m));
  int xmax = em_mesh_group_find(m, "xmax", 2);
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (!abc || m->tri_group[k] != xmax) ff[m->tri_face[k]] = 1;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
  em_robin rb = {.group = xmax, .gamma = I * k0, .g = NULL, .rhs = 0};
  em_problem prob = {.k0 = k0,
                     .material = vacuum,
                     .dirichlet = wave_E,
                     .dirichlet_ctx = w,
                     .n_rhs = 1,
                     .n_robin = abc,
                     .robin = &rb};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  double t0 = em_wtime();
  REQUIRE_OK(em_test_dense_solve(A, 1, sys->b, x));
  double ts = em_wtime() - t0;
  REQUIRE_OK(em_field_error(m, d, x, sys->fixed, wave_E, wave_curl, w, el2, ecurl));
  printf(
      "  p=%d n=%d: %6d unknowns, assembly %.3f s, solve %.2f s, L2 error %.3e, curl error %.3e\n",
      p, n, d->n_dof, sys->t_assembly, ts, *el2, *ecurl);
  free(x);
  free(ff);
  em_csr_destroy(&A);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

static void rates(int p, const int *ns, int nn, wave *w, double k0, int abc) {
  double el[4], ec[4];
  printf("%s, p=%d\n",
         abc ? "normal incidence, Robin ABC on xmax" : "oblique, Dirichlet everywhere", p);
  for (int i = 0; i < nn; i++) solve(p, ns[i], w, k0, abc, el + i, ec + i);
  for (int i = 1; i < nn; i++) {
    double h = log((double)ns[i] / ns[i - 1]);
    double rl = log(el[i - 1] / el[i]) / h, rc = log(ec[i - 1] / ec[i]) / h;
    printf("  rates n=%d->%d: L2 %.2f, curl %.2f (need >= %.1f)\n", ns[i - 1], ns[i], rl, rc,
           p - 0.2);
    EXPECT(rl >= p - 0.2, "p=%d: L2 rate %.2f between n=%d and %d", p, rl, ns[i - 1], ns[i]);
    EXPECT(rc >= p - 0.2, "p=%d: curl rate %.2f between n=%d and %d", p, rc, ns[i - 1], ns[i]);
    /* stricter on the finest pair: a boundary interpolant that does not
     * commute with curl (plain L2 face projection) drifts towards p - 1/2
     * and showed curl rates 1.88 (p=2) and 2.81 (p=3) here */
    if (i == nn - 1) {
      EXPECT(rl >= p - 0.1, "p=%d: finest L2 rate %.2f < p - 0.1", p, rl);
      EXPECT(rc >= p - 0.1, "p=%d: finest curl rate %.2f < p - 0.1", p, rc);
    }
  }
}

int main(void) {
  const double k0 = 3.0;
  /* oblique: k along (1, 2, 2)/3, p perpendicular (complex: elliptic) */
  wave ob = {{k0 / 3, 2 * k0 / 3, 2 * k0 / 3}, {2.0, -1.0 + 0.5 * I, -0.5 * I}};
  wave nx = {{k0, 0, 0}, {0, 1.0, 0.3 - 0.2 * I}};
  static const int N[3][3] = {{4, 6, 8}, {2, 3, 4}, {2, 3, 4}};
  for (int p = 1; p <= 3; p++) rates(p, N[p - 1], 3, &ob, k0, 0);
  for (int p = 1; p <= 3; p++) rates(p, N[p - 1], 3, &nx, k0, 1);
  return TEST_RESULT();
}
