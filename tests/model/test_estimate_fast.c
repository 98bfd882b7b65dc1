/* The error estimate's fast paths give the plain paths' bits (issue 24):
 *
 * 1. est_poly_eval (the monomial terms made once per rule point, the sums
 *    in split real and imaginary parts, only the second derivatives the
 *    curl of a curl reads) against the plain complex loops it replaced,
 *    kept here as the reference: E, J and Hs[k][j][l] (j != k) bit for
 *    bit, at p = 1, 2, 3, on rule points, the vertices and edge points,
 *    with zero coefficients, tiny and huge gradients.  Control: a
 *    coefficient changed by 1e-12 of itself changes the result.
 * 2. em_media_flat: wherever it says the PML material does not change
 *    along an axis between x - dl and x + dl, em_media_material gives the
 *    same bits at both points (so the estimate's central difference it
 *    skips is exactly 0); it says so for some points and not for others
 *    (points inside each axis's layers, where the material does change),
 *    and for every point of a tet outside the PML. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "em_model.h"
#include "em_test.h"
#include "estimate_impl.h"

/* ------------------------------------------- 1. the polynomial's values */

/* The plain loops (model/estimate_poly.c before issue 24). */
static void ref_eval(const est_poly *P, const double lam[4], em_cplx E[3], em_cplx J[3][3],
                     em_cplx Hs[3][3][3]) {
  const est_fit *F = P->F;
  double pw[3][4];
  for (int a = 0; a < 3; a++) {
    double x = lam[a + 1];
    pw[a][0] = 1, pw[a][1] = x, pw[a][2] = x * x, pw[a][3] = x * x * x;
  }
  em_cplx v[3] = {0}, d1[3][3] = {{0}}, d2[3][3][3] = {{{0}}};
  for (int m = 0; m < F->n; m++) {
    const int8_t *e = F->e[m];
    double f[3], df[3], ddf[3];
    for (int a = 0; a < 3; a++) {
      f[a] = pw[a][e[a]];
      df[a] = e[a] >= 1 ? e[a] * pw[a][e[a] - 1] : 0;
      ddf[a] = e[a] >= 2 ? e[a] * (e[a] - 1) * pw[a][e[a] - 2] : 0;
    }
    double val = f[0] * f[1] * f[2];
    double g1[3] = {df[0] * f[1] * f[2], f[0] * df[1] * f[2], f[0] * f[1] * df[2]};
    double g2[3][3] = {{ddf[0] * f[1] * f[2], df[0] * df[1] * f[2], df[0] * f[1] * df[2]},
                       {0, f[0] * ddf[1] * f[2], f[0] * df[1] * df[2]},
                       {0, 0, f[0] * f[1] * ddf[2]}};
    for (int k = 0; k < 3; k++) {
      em_cplx c = P->c[k][m];
      if (c == 0) continue;
      v[k] += c * val;
      for (int a = 0; a < 3; a++) d1[k][a] += c * g1[a];
      for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) d2[k][a][b] += c * g2[a][b];
    }
  }
  const double(*g)[3] = P->g;
  for (int k = 0; k < 3; k++) {
    E[k] = v[k];
    for (int j = 0; j < 3; j++)
      J[k][j] = d1[k][0] * g[0][j] + d1[k][1] * g[1][j] + d1[k][2] * g[2][j];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < a; b++) d2[k][a][b] = d2[k][b][a];
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 3; l++) {
        em_cplx s = 0;
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) s += d2[k][a][b] * g[a][j] * g[b][l];
        Hs[k][j][l] = s;
      }
  }
}

static unsigned long long rng = 88172645463325252ULL;
static double urand(void) { /* xorshift64, [-1, 1) */
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1;
}

/* fast == reference, bit for bit; returns the number of differing values */
static int compare(const est_poly *P, const double lam[4]) {
  em_cplx E[3], J[3][3], H[3][3][3], Er[3], Jr[3][3], Hr[3][3][3];
  memset(H, 0, sizeof H);
  est_poly_eval(P, lam, E, J, H);
  ref_eval(P, lam, Er, Jr, Hr);
  int bad = 0;
  for (int k = 0; k < 3; k++) {
    bad += memcmp(&E[k], &Er[k], sizeof E[k]) != 0;
    for (int j = 0; j < 3; j++) {
      bad += memcmp(&J[k][j], &Jr[k][j], sizeof J[k][j]) != 0;
      for (int l = 0; j != k && l < 3; l++)
        bad += memcmp(&H[k][j][l], &Hr[k][j][l], sizeof H[k][j][l]) != 0;
    }
  }
  return bad;
}

static void test_poly(void) {
  for (int p = 1; p <= 3; p++) {
    est_fit F;
    REQUIRE_OK(est_fit_init(p, &F));
    em_quad q;
    REQUIRE_OK(em_quad_tet(2 * p + 2, &q));
    int n_pts = 0, bad = 0;
    for (int trial = 0; trial < 40; trial++) {
      est_poly P = {.F = &F};
      double scale = trial % 4 == 0 ? 1e-7 : trial % 4 == 1 ? 1e6 : 1;
      for (int k = 0; k < 3; k++)
        for (int m = 0; m < F.n; m++)
          P.c[k][m] = (trial + m + k) % 5 == 0 ? 0 : CMPLX(urand(), urand()) * (trial % 3 + 1);
      if (trial % 7 == 0) P.c[1][0] = CMPLX(0, urand()); /* a real part zero alone */
      for (int a = 0; a < 3; a++)
        for (int j = 0; j < 3; j++) P.g[a][j] = urand() * 300 * scale;
      /* the rule's points, the vertices, edge and face points */
      for (int i = 0; i < q.n; i++, n_pts++) bad += compare(&P, q.lam + 4 * i);
      static const double extra[][4] = {{1, 0, 0, 0},
                                        {0, 1, 0, 0},
                                        {0, 0, 1, 0},
                                        {0, 0, 0, 1},
                                        {0.5, 0.5, 0, 0},
                                        {0, 0.5, 0, 0.5},
                                        {0.25, 0.25, 0.25, 0.25},
                                        {1. / 3, 1. / 3, 1. / 3, 0}};
      for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++, n_pts++)
        bad += compare(&P, extra[i]);
    }
    EXPECT(bad == 0, "p = %d: %d values of %d points differ from the plain loops", p, bad, n_pts);
    printf("p = %d: %d points, est_poly_eval bit for bit the plain loops\n", p, n_pts);
    /* control: the comparison sees a one-bit change */
    est_poly P = {.F = &F};
    for (int k = 0; k < 3; k++)
      for (int m = 0; m < F.n; m++) P.c[k][m] = CMPLX(urand(), urand());
    for (int a = 0; a < 3; a++)
      for (int j = 0; j < 3; j++) P.g[a][j] = urand();
    const double lam[4] = {0.1, 0.2, 0.3, 0.4};
    em_cplx E[3], J[3][3], H[3][3][3], Er[3], Jr[3][3], Hr[3][3][3];
    est_poly_eval(&P, lam, E, J, H);
    P.c[0][0] *= 1 + 1e-12; /* the constant term: E_x moves by ~1e-12 */
    ref_eval(&P, lam, Er, Jr, Hr);
    EXPECT(memcmp(E, Er, sizeof E) != 0, "p = %d control: a changed coefficient went unseen", p);
  }
}

/* ------------------------------------------- 2. the PML's flat axes */

static int same_material(const em_material *a, const em_material *b) {
  return !memcmp(a->eps, b->eps, sizeof a->eps) && !memcmp(a->nu, b->nu, sizeof a->nu);
}

static void test_flat(void) {
  int32_t group[2] = {0, 1};
  em_mesh mesh;
  memset(&mesh, 0, sizeof mesh);
  mesh.tet_group = group;
  em_medium med[2];
  memset(med, 0, sizeof med);
  med[0].eps_r = med[0].mu_r = 1;                                     /* tet 0: the interior */
  med[1].eps_r = 2.5 - 0.1 * I, med[1].mu_r = 1.2, med[1].is_pml = 1; /* tet 1: PML */
  /* layers on five sides, none below z */
  em_pml pml = {.inner = {-1, 1, -0.5, 0.75, 0, 2},
                .thick = {0.4, 0.3, 0.25, 0.5, 0, 0.6},
                .order = 2,
                .R0 = 1e-6};
  em_media md = {.mesh = &mesh, .medium = med, .pml = &pml, .k0 = 37.0};
  int n_flat = 0, n_not = 0, bad = 0, n_int = 0;
  for (int trial = 0; trial < 20000; trial++) {
    double x[3];
    for (int d = 0; d < 3; d++) { /* near the box's faces, often exactly on them */
      double lo = pml.inner[2 * d], hi = pml.inner[2 * d + 1];
      double r = urand();
      x[d] = trial % 5 == 0 ? (r < 0 ? lo : hi) : lo - 0.6 + (hi - lo + 1.2) * (r + 1) / 2;
    }
    double dl = trial % 3 == 0 ? 1e-3 : trial % 3 == 1 ? 1e-9 : 0.05 * (urand() + 1.1);
    for (int axis = 0; axis < 3; axis++) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[axis] += dl, xm[axis] -= dl;
      em_material mp, mm;
      REQUIRE_OK(em_media_material(&md, 1, xp, &mp));
      REQUIRE_OK(em_media_material(&md, 1, xm, &mm));
      if (em_media_flat(&md, 1, x, axis, dl)) {
        n_flat++;
        bad += !same_material(&mp, &mm);
      } else {
        n_not++;
      }
      n_int += em_media_flat(&md, 0, x, axis, dl); /* outside the PML: always */
    }
  }
  EXPECT(bad == 0, "%d flat points whose materials at x +- dl differ", bad);
  EXPECT(n_flat > 1000 && n_not > 1000, "flat %d, not flat %d: both kinds seen", n_flat, n_not);
  EXPECT(n_int == 3 * 20000, "a non-PML tet flat at %d of %d points", n_int, 3 * 20000);
  /* inside a layer of the axis: not flat (the material changes there) */
  double x[3] = {1.15, 0, 1}; /* in the xmax layer */
  EXPECT(!em_media_flat(&md, 1, x, 0, 1e-3), "inside the xmax layer: flat along x");
  EXPECT(em_media_flat(&md, 1, x, 1, 1e-3) && em_media_flat(&md, 1, x, 2, 1e-3),
         "inside the xmax layer only: not flat along y or z");
  double z[3] = {0, 0, -0.3}; /* below z: no layer there */
  EXPECT(em_media_flat(&md, 1, z, 2, 1e-3), "below z, where there is no layer: not flat");
  double w[3] = {0, 0.75, 1}; /* on the ymax face: x + dl enters the layer */
  EXPECT(!em_media_flat(&md, 1, w, 1, 1e-3), "on the ymax face: flat along y");
  printf("em_media_flat: %d flat, %d not; the flat ones the same bits at x +- dl\n", n_flat, n_not);
}

int main(void) {
  test_poly();
  test_flat();
  return TEST_RESULT();
}
