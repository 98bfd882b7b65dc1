/* Resonance finder against analytic RLC responses: a parallel RLC has its
 * Re Zin peak at f0 = 1 / (2 pi sqrt(LC)), Q = w0 R C, and fed from z0 = R
 * a -10 dB band of exactly 2 / (3 Q) f0 (|S11|^2 = B^2 / (4 G^2 + B^2) =
 * 0.1 at B = +-2G/3, B = wC - 1/(wL), so dw = 2G / (3C)); a series RLC has
 * Q = w0 L / R and its |S11| minimum at f0; two parallel RLCs in series give
 * two peaks in one band, each checked against the true maximum of the
 * analytic Re Zin (found by dense sampling). */
#include <math.h>
#include <stdio.h>

#include "em_post.h"
#include "em_test.h"

#define TOL_PK41 1e-2    /* observed 3.8e-3 (41 samples) */
#define TOL_PK401 1.5e-6 /* observed 4.9e-7 (401 samples) */
#define PI 3.14159265358979323846

typedef struct rlc {
  double f0, q, r;
  int series;
} rlc;

static em_cplx z_rlc(rlc e, double f) {
  double w = 2 * PI * f, w0 = 2 * PI * e.f0;
  if (e.series) { /* L = Q R / w0, C = 1 / (w0^2 L) */
    double l = e.q * e.r / w0, c = 1 / (w0 * w0 * l);
    return e.r + I * (w * l - 1 / (w * c));
  }
  double c = e.q / (w0 * e.r), l = 1 / (w0 * w0 * c); /* Q = w0 R C */
  return 1 / (1 / e.r + I * (w * c - 1 / (w * l)));
}

static em_cplx z_sum(const rlc *e, int ne, double f) {
  em_cplx z = 0;
  for (int k = 0; k < ne; k++) z += z_rlc(e[k], f);
  return z;
}

/* Sample n points on [fa, fb] and find the resonances (z0 = 50 ohm). */
static void sample(const rlc *e, int ne, int n, double fa, double fb, double *f, em_cplx *s,
                   double *zr, double *zi, em_resonance *zp, int *nz, em_resonance *sm, int *ns) {
  for (int j = 0; j < n; j++) {
    f[j] = fa + (fb - fa) * j / (n - 1);
    em_cplx z = z_sum(e, ne, f[j]);
    s[j] = (z - 50) / (z + 50);
    zr[j] = creal(z);
    zi[j] = cimag(z);
  }
  em_res_find(n, f, s, 50, 8, zp, nz, sm, ns);
}

/* Frequency of the largest Re Z within [fa, fb], by 2e5-point sampling. */
static double true_peak(const rlc *e, int ne, double fa, double fb) {
  double best = fa, v = -1;
  for (int j = 0; j <= 200000; j++) {
    double f = fa + (fb - fa) * j / 200000.0, r = creal(z_sum(e, ne, f));
    if (r > v) v = r, best = f;
  }
  return best;
}

enum { N = 2001 };
static double ff6[6] = {1, 2, 3, 4, 5, 6};
static double f[N], zr[N], zi[N];
static em_cplx s[N];

int main(void) {
  em_resonance zp[8], sm[8];
  int nz, ns;
  /* 1. parallel RLC matched at f0: 41 samples over 4-6 GHz (50 MHz step,
   * f0 between samples), then 401 samples */
  rlc p = {5e9, 20, 50, 0};
  int ns_list[2] = {41, 401};
  /* observed: f0 3.1e-4 / 3e-8, |S11| min 1.1e-4 / 2e-7, Q 4.2e-5 / 2.6e-7,
   * band 3.5e-2 / 3.0e-4 (linear interpolation in dB between samples) */
  double tol_pk[2] = {TOL_PK41, TOL_PK401}, tol_f[2] = {1e-3, 1e-6}, tol_q[2] = {1.5e-4, 1e-6},
         tol_bw[2] = {0.1, 1e-3};
  for (int t = 0; t < 2; t++) {
    int n = ns_list[t];
    sample(&p, 1, n, 4.013e9, 6.013e9, f, s, zr, zi, zp, &nz, sm, &ns);
    EXPECT(nz == 1 && ns == 1, "n=%d: one Re Zin peak (%d) and one |S11| minimum (%d)", n, nz, ns);
    if (nz != 1 || ns != 1) continue;
    double bw = (zp[0].f_hi - zp[0].f_lo) / p.f0, bw_ref = 2 / (3 * p.q);
    printf(
        "n=%4d: f0 %.6f GHz (err %.2e), |S11| min %.6f GHz (err %.2e), Q %.4f (err %.2e), "
        "BW %.5f (ref %.5f, err %.2e)\n",
        n, zp[0].f0 / 1e9, zp[0].f0 / p.f0 - 1, sm[0].f0 / 1e9, sm[0].f0 / p.f0 - 1, zp[0].q,
        zp[0].q / p.q - 1, bw, bw_ref, bw / bw_ref - 1);
    EXPECT(fabs(zp[0].f0 / p.f0 - 1) < tol_f[t], "n=%d: Re Zin peak at f0", n);
    EXPECT(fabs(sm[0].f0 / p.f0 - 1) < tol_f[t], "n=%d: |S11| minimum at f0", n);
    EXPECT(fabs(zp[0].q / p.q - 1) < tol_q[t], "n=%d: Q (parallel form)", n);
    EXPECT(fabs(bw / bw_ref - 1) < tol_bw[t], "n=%d: -10 dB band 2/(3Q)", n);
    printf("n=%4d: peak Re Zin %.6f ohm (err %.2e)\n", n, zp[0].peak, zp[0].peak / p.r - 1);
    EXPECT(fabs(zp[0].peak / p.r - 1) < tol_pk[t], "n=%d: peak Re Zin = R", n);
  }
  /* 2. series RLC (R = 30 ohm, not matched): no Re Zin peak, |S11| minimum
   * at f0, series-form Q */
  rlc se = {3e9, 15, 30, 1};
  sample(&se, 1, 61, 2.507e9, 3.507e9, f, s, zr, zi, zp, &nz, sm, &ns);
  EXPECT(nz == 0 && ns == 1, "series: no Re Zin peak (%d), one |S11| minimum (%d)", nz, ns);
  if (ns == 1) {
    double q = em_res_q(61, f, zr, zi, sm[0].f0, 0);
    printf("series: |S11| min %.6f GHz (err %.2e), Q %.4f (err %.2e)\n", sm[0].f0 / 1e9,
           sm[0].f0 / se.f0 - 1, q, q / se.q - 1);
    EXPECT(fabs(sm[0].f0 / se.f0 - 1) < 5e-5, "series: |S11| minimum at f0");
    EXPECT(fabs(q / se.q - 1) < 5e-5, "series: Q = w0 L / R");
  }
  /* a flat curve with rounding noise has no peak */
  double flat[6] = {30, 30 + 1e-14, 30, 30 - 1e-14, 30 + 2e-14, 30};
  EXPECT(em_res_extrema(6, ff6, flat, 1, 8, zp) == 0, "flat curve with rounding noise: no peak");
  /* 3. two resonances in one band (5 GHz Q 20, 7.5 GHz Q 30), 101 samples */
  rlc two[2] = {{5e9, 20, 50, 0}, {7.5e9, 30, 80, 0}};
  sample(two, 2, 101, 4.0e9, 9.0e9, f, s, zr, zi, zp, &nz, sm, &ns);
  EXPECT(nz == 2, "two resonances: %d Re Zin peaks found", nz);
  if (nz == 2) {
    for (int k = 0; k < 2; k++) {
      double ft = true_peak(two, 2, two[k].f0 * 0.9, two[k].f0 * 1.1);
      printf("two: peak %d at %.6f GHz, true %.6f GHz (err %.2e), nominal f0 %.3f GHz, Q %.3f\n", k,
             zp[k].f0 / 1e9, ft / 1e9, zp[k].f0 / ft - 1, two[k].f0 / 1e9, zp[k].q);
      EXPECT(fabs(zp[k].f0 / ft - 1) < 1.5e-4, "two: peak %d at the analytic maximum", k);
      EXPECT(fabs(zp[k].q / two[k].q - 1) < 0.03, "two: Q of peak %d near its RLC's", k);
    }
  }
  /* 4. degenerate inputs: too few samples, monotone curve */
  em_res_find(2, f, s, 50, 8, zp, &nz, sm, &ns);
  EXPECT(nz == 0 && ns == 0, "two samples: nothing found");
  double mono[5] = {1, 2, 3, 4, 5}, ff[5] = {1, 2, 3, 4, 5};
  EXPECT(em_res_extrema(5, ff, mono, 1, 8, zp) == 0, "monotone: no extremum");
  return TEST_RESULT();
}
