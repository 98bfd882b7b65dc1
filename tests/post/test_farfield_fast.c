/* The far-field sum of em_nf2ff_far (chunked, branch-free sin/cos,
 * threaded over the points when called from serial code) against the plain
 * reference sum  N = sum_q sum_i sJ_q J_i exp(j k r_hat . y_qi)  with cexp,
 * written out here from the formulas of em_post.h:
 * - point counts around the chunk and vector widths (1, 2, 3, 255, 256,
 *   257, 1031, 5003), random points over several wavelengths (k |x| up to
 *   ~40), random currents, no mirror / one PEC mirror / PEC + PMC + an
 *   infinite ground, directions at random and at the poles: |F - F_ref| <=
 *   1e-12 max |F_ref|;
 * - the same direction from a serial caller (threads over the points),
 *   from inside a parallel region (serial) and through em_nf2ff_far_many
 *   (blocks of directions) gives the same bits;
 * - em_post_sincos against sin and cos to 1e-15 over |x| <= 2000;
 * - the time of the grid, reference loop against em_ff_grid_eval
 *   (printed, not checked). */
#include <string.h>

#include "em_post.h"
#include "em_test.h"
#include "post_impl.h"

/* The plain sum, copy by copy and point by point (the formulas of em_post.h). */
static void reference(const em_nf2ff *nf, double theta, double phi, em_cplx *ft, em_cplx *fp) {
  double st = sin(theta), ct = cos(theta), sp = sin(phi), cp = cos(phi);
  double r[3] = {st * cp, st * sp, ct}, th[3] = {ct * cp, ct * sp, -st}, ph[3] = {-sp, cp, 0};
  if (nf->half_space && ct < 0) {
    *ft = *fp = 0;
    return;
  }
  em_cplx N[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (int q = 0; q < 8; q++) {
    int skip = 0;
    double sJ[3] = {1, 1, 1}, sM[3] = {1, 1, 1};
    for (int d = 0; d < 3; d++) {
      if (!(q & (1 << d))) continue;
      if (nf->mirror[d] == EM_MIRROR_NONE) skip = 1;
      int pec = nf->mirror[d] == EM_MIRROR_PEC;
      for (int c = 0; c < 3; c++) {
        int normal = c == d;
        if (pec ? !normal : normal) sJ[c] = -sJ[c];
        if (pec ? normal : !normal) sM[c] = -sM[c];
      }
    }
    if (skip) continue;
    for (int64_t i = 0; i < nf->n; i++) {
      double y[3];
      for (int d = 0; d < 3; d++) {
        double xa = nf->x[3 * i + d] + nf->centre[d]; /* absolute */
        y[d] = (q & (1 << d)) ? 2 * nf->mirror_at[d] - xa : xa;
      }
      em_cplx e = cexp(I * nf->k * (r[0] * y[0] + r[1] * y[1] + r[2] * y[2]));
      for (int d = 0; d < 3; d++) {
        N[d] += sJ[d] * nf->J[3 * i + d] * e;
        L[d] += sM[d] * nf->M[3 * i + d] * e;
      }
    }
  }
  em_cplx Nt = N[0] * th[0] + N[1] * th[1] + N[2] * th[2], Np = N[0] * ph[0] + N[1] * ph[1];
  em_cplx Lt = L[0] * th[0] + L[1] * th[1] + L[2] * th[2], Lp = L[0] * ph[0] + L[1] * ph[1];
  double k = nf->k;
  *ft = -I * k / (4 * M_PI) * (Lp + nf->eta * Nt);
  *fp = I * k / (4 * M_PI) * (Lt - nf->eta * Np);
}

typedef struct source {
  em_nf2ff nf;
  double *x;
  em_cplx *J, *M;
} source;

/* n random points in a box of half-width 3 wavelengths around centre c
 * (model coordinates), mirrors as given; x stored relative to c. */
static void make_source(source *s, int64_t n, const double c[3], const em_mirror mir[3],
                        const double at[3], int half, unsigned long long *seed) {
  memset(s, 0, sizeof *s);
  s->x = calloc(3 * (size_t)n, sizeof *s->x);
  s->J = calloc(3 * (size_t)n, sizeof *s->J);
  s->M = calloc(3 * (size_t)n, sizeof *s->M);
  double lambda = 0.05, k = 2 * M_PI / lambda;
  for (int64_t i = 0; i < 3 * n; i++) {
    s->x[i] = (2 * em_test_rand(seed) - 1) * 3 * lambda;
    s->J[i] = CMPLX(em_test_rand(seed) - 0.5, em_test_rand(seed) - 0.5);
    s->M[i] = EM_Z0 * CMPLX(em_test_rand(seed) - 0.5, em_test_rand(seed) - 0.5);
  }
  em_nf2ff *nf = &s->nf;
  nf->k0 = nf->k = k;
  nf->eta = EM_Z0;
  nf->n = n;
  nf->x = s->x;
  nf->J = s->J;
  nf->M = s->M;
  for (int d = 0; d < 3; d++) {
    nf->centre[d] = c[d];
    nf->mirror[d] = mir[d];
    nf->mirror_at[d] = at[d];
  }
  nf->half_space = half;
  nf->radius = 6 * lambda;
}

static void free_source(source *s) {
  free(s->x);
  free(s->J);
  free(s->M);
}

static void compare(void) {
  static const int64_t sizes[] = {1, 2, 3, 255, 256, 257, 1031, 5003};
  static const em_mirror none[3] = {0, 0, 0}, one[3] = {EM_MIRROR_PEC, 0, 0},
                         three[3] = {EM_MIRROR_PEC, EM_MIRROR_PMC, EM_MIRROR_PEC};
  const em_mirror *mirrors[3] = {none, one, three};
  unsigned long long seed = 12345;
  for (int mcase = 0; mcase < 3; mcase++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      double c[3] = {0.013, -0.021, 0.007}, at[3] = {-0.16, -0.17, -0.155};
      source s;
      make_source(&s, sizes[si], c, mirrors[mcase], at, mcase == 2, &seed);
      enum { ND = 40 };
      em_cplx fr[ND][2], ff[ND][2], fi[ND][2];
      double th[ND], ph[ND], scale = 0, worst = 0;
      for (int j = 0; j < ND; j++) {
        th[j] = j == 0 ? 0 : j == 1 ? M_PI : acos(2 * em_test_rand(&seed) - 1);
        ph[j] = 2 * M_PI * em_test_rand(&seed);
        reference(&s.nf, th[j], ph[j], &fr[j][0], &fr[j][1]);
        em_nf2ff_far(&s.nf, th[j], ph[j], &ff[j][0], &ff[j][1]);
        scale = fmax(scale, fmax(cabs(fr[j][0]), cabs(fr[j][1])));
      }
      /* from inside a parallel region: the serial path, the same bits */
#pragma omp parallel for schedule(static)
      for (int j = 0; j < ND; j++) em_nf2ff_far(&s.nf, th[j], ph[j], &fi[j][0], &fi[j][1]);
      /* many directions at once (blocks of directions per thread) */
      em_cplx fm[ND][2];
      em_nf2ff_far_many(&s.nf, ND, th, ph, &fm[0][0]);
      int same = !memcmp(fm, ff, sizeof fm);
      for (int j = 0; j < ND; j++) {
        worst = fmax(worst, fmax(cabs(ff[j][0] - fr[j][0]), cabs(ff[j][1] - fr[j][1])));
        same &= !memcmp(ff[j], fi[j], sizeof ff[j]);
      }
      EXPECT(scale > 0 && worst <= 1e-12 * scale,
             "n = %lld, mirror case %d: |F - F_ref| = %.3g of max |F| %.3g", (long long)sizes[si],
             mcase, worst / scale, scale);
      EXPECT(same, "n = %lld, mirror case %d: threaded, serial and batched sums differ",
             (long long)sizes[si], mcase);
      free_source(&s);
    }
}

static void sincos_accuracy(void) {
  unsigned long long seed = 99;
  double worst = 0, at = 0;
  for (int i = 0; i < 200000; i++) {
    double x = i < 1000 ? (i - 500) * M_PI / 4 : (2 * em_test_rand(&seed) - 1) * 2000;
    double s, c;
    em_post_sincos(x, &s, &c);
    double e = fmax(fabs(s - sin(x)), fabs(c - cos(x)));
    if (e > worst) worst = e, at = x;
  }
  EXPECT(worst <= 1e-15, "em_post_sincos off by %.3g at x = %.17g", worst, at);
}

/* The grid's cost: the plain sum against em_ff_grid_eval (5 deg grid). */
static void timing(void) {
  unsigned long long seed = 7;
  static const em_mirror none[3] = {0, 0, 0};
  double c[3] = {0, 0, 0}, at[3] = {0, 0, 0};
  source s;
  make_source(&s, 10080, c, none, at, 0, &seed);
  double t0 = em_wtime();
  em_ff_grid g;
  REQUIRE_OK(em_ff_grid_eval(&s.nf, 5, 5, &g));
  double t_fast = em_wtime() - t0;
  int n = g.n_theta * g.n_phi;
  double *dummy = calloc((size_t)n, sizeof *dummy);
  t0 = em_wtime();
#pragma omp parallel for schedule(dynamic, 8)
  for (int k = 0; k < n; k++) {
    em_cplx a, b;
    reference(&s.nf, (k / g.n_phi) * 5 * M_PI / 180, (k % g.n_phi) * 5 * M_PI / 180, &a, &b);
    dummy[k] = cabs(a - g.f[2 * k]) + cabs(b - g.f[2 * k + 1]);
  }
  double t_ref = em_wtime() - t0;
  t0 = em_wtime();
  for (int k = 0; k < 200; k++) {
    em_cplx a, b;
    em_nf2ff_far(&s.nf, 0.01 * k, 0.03 * k, &a, &b);
  }
  double t_serial = em_wtime() - t0;
  printf(
      "grid 5x5 deg, %d directions x %lld points: reference %.3f s, em_ff_grid_eval %.3f s "
      "(%.1fx); 200 directions from serial code %.3f s\n",
      n, (long long)s.nf.n, t_ref, t_fast, t_ref / t_fast, t_serial);
  free(dummy);
  em_ff_grid_free(&g);
  free_source(&s);
}

int main(void) {
  sincos_accuracy();
  compare();
  timing();
  return TEST_RESULT();
}
