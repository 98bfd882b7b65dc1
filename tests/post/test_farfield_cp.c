/* Circular polarisation of the far field (post/polarization.c, issue 30):
 * a crossed pair of electric dipoles fed 90 deg apart, J = x_hat - j y_hat
 * at the origin (x cos wt + y sin wt: E turns from x to y), put straight
 * into an em_nf2ff.  Analytic: F ~ r_hat x (r_hat x J), so at phi = 0
 * F_theta ~ cos(theta), F_phi ~ -j: along +z right-hand circular
 * (IEEE), along -z left-hand, axial ratio 20 log10(1 / |cos theta|) in
 * between (linear at theta = 90 deg); U ~ 1 + cos^2 theta, so D = 1.5 on
 * the axis and the whole of it in one hand.  Checks em_ff_circular against
 * that at 0..180 deg, the antenna figures (axial ratio 0 dB, CP gain
 * = gain, the other hand empty) and the CSV columns read back. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"

/* the value of column `name` in data row `row` (0-based) of a CSV file */
static double csv_value(const char *path, const char *name, int row) {
  FILE *f = fopen(path, "r");
  if (!f) return NAN;
  char line[4096];
  int col = -1, r = -2;
  double v = NAN;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    r++;
    char *save = NULL, *tok = strtok_r(line, ",\n", &save);
    for (int c = 0; tok; c++, tok = strtok_r(NULL, ",\n", &save)) {
      if (r == -1 && !strcmp(tok, name)) col = c;
      if (r == row && c == col) v = strtod(tok, NULL);
    }
    if (r == row) break;
  }
  fclose(f);
  return v;
}

int main(void) {
  const double k = 2 * M_PI;
  double xs[3] = {0, 0, 0};
  em_cplx js[3] = {1, -I, 0}, ms[3] = {0, 0, 0};
  em_nf2ff nf;
  memset(&nf, 0, sizeof nf);
  nf.k0 = nf.k = k;
  nf.eta = EM_Z0;
  nf.n = 1;
  nf.x = xs;
  nf.J = js;
  nf.M = ms;
  nf.radius = 1e-3;
  /* the axial ratio and hand along theta (phi = 0) */
  double worst = 0;
  for (int i = 0; i <= 18; i++) {
    double th = i * M_PI / 18, ar, want = -20 * log10(fabs(cos(th)));
    em_cplx ft, fp, fr, fl;
    em_nf2ff_far(&nf, th, 0, &ft, &fp);
    em_ff_circular(ft, fp, &fr, &fl, &ar);
    double r2 = creal(fr * conj(fr)), l2 = creal(fl * conj(fl));
    EXPECT(
        fabs(r2 + l2 - creal(ft * conj(ft)) - creal(fp * conj(fp))) <= 1e-12 * (r2 + l2 + 1e-300),
        "theta %d deg: |F_R|^2 + |F_L|^2 != |F|^2", i * 10);
    if (i == 9) {
      EXPECT(isinf(ar), "theta 90: linear, axial ratio %g dB", ar);
      continue;
    }
    worst = fmax(worst, fabs(ar - want));
    /* the upper half space is right-hand, the lower left-hand */
    EXPECT(i < 9 ? r2 > l2 : l2 > r2, "theta %d deg: hand R %g L %g", i * 10, r2, l2);
  }
  EXPECT(worst < 1e-9, "axial ratio off 20 log10(1/|cos theta|) by %g dB", worst);
  em_cplx ft, fp, fr, fl;
  double ar;
  em_nf2ff_far(&nf, 0, 0, &ft, &fp);
  em_ff_circular(ft, fp, &fr, &fl, &ar);
  EXPECT(fabs(ar) < 1e-12 && cabs(fl) < 1e-12 * cabs(fr), "theta 0: AR %g dB, |F_L/F_R| %g", ar,
         cabs(fl) / cabs(fr));
  em_nf2ff_far(&nf, M_PI, 0.7, &ft, &fp);
  em_ff_circular(ft, fp, &fr, &fl, &ar);
  EXPECT(fabs(ar) < 1e-12 && cabs(fr) < 1e-12 * cabs(fl), "theta 180: AR %g dB, |F_R/F_L| %g", ar,
         cabs(fr) / cabs(fl));
  double zero;
  em_ff_circular(0, 0, NULL, NULL, &zero);
  EXPECT(isnan(zero), "no field: axial ratio %g (NaN)", zero);

  /* the figures: the maximum on the axis (either pole), D = 1.5, circular
   * there; efficiency 0.8 (loss P / 4) */
  em_ff_grid g;
  REQUIRE_OK(em_ff_grid_eval(&nf, 5, 10, &g));
  double p = em_nf2ff_power(&nf);
  nf.p_surface = p;
  em_antenna a;
  REQUIRE_OK(em_antenna_figures(&nf, &g, 1.25 * p, 1, 0.25 * p, &a));
  int up = a.theta_max < 90;
  printf("crossed dipoles: maximum at theta %.6f deg, D %.9f, AR %.3g dB, G_R %.9f, G_L %.3g\n",
         a.theta_max, a.directivity, a.axial_ratio, a.g_rhcp, a.g_lhcp);
  EXPECT(fabs(a.theta_max - (up ? 0 : 180)) < 1e-3, "maximum at theta %g", a.theta_max);
  EXPECT(fabs(a.directivity - 1.5) < 1e-9, "D = %.12g (1.5)", a.directivity);
  EXPECT(fabs(a.axial_ratio) < 1e-6, "axial ratio %g dB at the maximum (0)", a.axial_ratio);
  double gco = up ? a.g_rhcp : a.g_lhcp, gx = up ? a.g_lhcp : a.g_rhcp;
  EXPECT(fabs(gco - 1.2) < 1e-9 && gx < 1e-9, "CP gain %.12g (1.2 = 0.8 x 1.5), other hand %g", gco,
         gx);

  /* the CSV columns */
  char dir[] = "/tmp/em_cp_XXXXXX", path[256];
  EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(path, sizeof path, "%s/farfield.csv", dir);
  REQUIRE_OK(em_farfield_csv_write(path, 1e9, &g, &nf, &a));
  /* row 0: theta 0, phi 0; row 3 * 36: theta 15 deg, phi 0 */
  double ar0 = csv_value(path, "axial_ratio_dB", 0), r0 = csv_value(path, "rhcp_gain_dBi", 0);
  double ar15 = csv_value(path, "axial_ratio_dB", 3 * 36);
  EXPECT(fabs(ar0) < 1e-9 && fabs(r0 - 10 * log10(1.2)) < 1e-9,
         "farfield.csv theta 0: axial_ratio_dB %g, rhcp_gain_dBi %g (%g)", ar0, r0,
         10 * log10(1.2));
  EXPECT(fabs(ar15 + 20 * log10(cos(15 * M_PI / 180))) < 1e-9,
         "farfield.csv theta 15: axial_ratio_dB %g", ar15);
  double l0 = csv_value(path, "lhcp_gain_dBi", 0);
  EXPECT(l0 < -200, "farfield.csv theta 0: lhcp_gain_dBi %g (none)", l0);
  unlink(path);
  snprintf(path, sizeof path, "%s/antenna.csv", dir);
  double f = 1e9;
  REQUIRE_OK(em_antenna_csv_write(path, 1, &f, &a));
  double arr = csv_value(path, "axial_ratio_dB", 0),
         gr = csv_value(path, up ? "rhcp_gain_dBi" : "lhcp_gain_dBi", 0);
  EXPECT(fabs(arr) < 1e-6 && fabs(gr - 10 * log10(1.2)) < 1e-9,
         "antenna.csv: axial_ratio_dB %g, CP gain %g dBi", arr, gr);
  unlink(path);
  rmdir(dir);
  em_ff_grid_free(&g);
  return TEST_RESULT();
}
