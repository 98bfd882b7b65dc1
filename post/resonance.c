/* resonance.c - resonances of a sampled one-port response (design sweeps).
 *
 * A resonance is a local extremum of a sampled curve (Re Zin peak, |S11|
 * minimum), refined by the parabola through the extreme sample and its two
 * neighbours; all extrema in the band are returned, so a second mode is
 * listed rather than mistaken for the first.  Q comes from Zin's slope at
 * f0 (Q = f0 / (2 G) |dB/df|, the admittance form for the parallel-type
 * Re Zin peak of a probe-fed resonator; the series form with R and X), the
 * -10 dB band from |S11| in dB by linear interpolation between samples. */
#include "em_post.h"

#include <math.h>

/* y = a t^2 + b t + c through (-h1, y0), (0, y1), (h2, y2), t = f - f1:
 * a (h1 + h2) = (y0 - y1) / h1 + (y2 - y1) / h2,  b = (y2 - y1) / h2 - a h2. */
static void parabola(const double *f, const double *y, int i, double *a, double *b, double *c) {
  double h1 = f[i] - f[i - 1], h2 = f[i + 1] - f[i];
  *c = y[i];
  *a = ((y[i - 1] - y[i]) / h1 + (y[i + 1] - y[i]) / h2) / (h1 + h2);
  *b = (y[i + 1] - y[i]) / h2 - *a * h2;
}

/* The interior sample nearest x (1..n-2). */
static int centre(int n, const double *f, double x) {
  int best = 1;
  for (int i = 1; i < n - 1; i++)
    if (fabs(f[i] - x) < fabs(f[best] - x)) best = i;
  return best;
}

int em_res_extrema(int n, const double *f, const double *y, int sign, int max_out,
                   em_resonance *out) {
  int k = 0;
  /* an extremum must stand out of rounding noise: by 1e-9 of the largest |y|
     (a constant Re Zin of a series circuit has no peak) */
  double scale = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(y[i]) && fabs(y[i]) > scale) scale = fabs(y[i]);
  double eps = 1e-9 * scale;
  for (int i = 1; i < n - 1 && k < max_out; i++) {
    double ym = sign * y[i - 1], y0 = sign * y[i], yp = sign * y[i + 1];
    if (!(y0 > ym && y0 >= yp) || !isfinite(ym + y0 + yp)) continue;
    if (y0 - (ym < yp ? ym : yp) <= eps) continue;
    double a, b, c;
    parabola(f, y, i, &a, &b, &c);
    /* vertex t* = -b / (2a), value c - b^2 / (4a); kept inside the three
     * samples (a flat top with a ~ 0 falls back to the sample itself) */
    double t = a != 0 ? -b / (2 * a) : 0;
    if (t < f[i - 1] - f[i] || t > f[i + 1] - f[i]) t = 0;
    out[k] = (em_resonance){.f0 = f[i] + t, .peak = a * t * t + b * t + c};
    k++;
  }
  return k;
}

/* Crossing of level between samples j and j+1, linear in dB. */
static double cross(const double *f, const double *s, int j, double level) {
  return f[j] + (level - s[j]) * (f[j + 1] - f[j]) / (s[j + 1] - s[j]);
}

int em_res_band(int n, const double *f, const double *s_db, double f0, double level_db,
                double *f_lo, double *f_hi) {
  *f_lo = *f_hi = 0;
  if (n < 2) return -1;
  int i = 0;
  for (int j = 0; j < n; j++)
    if (fabs(f[j] - f0) < fabs(f[i] - f0)) i = j;
  if (!(s_db[i] < level_db)) return -1;
  int lo = i, hi = i;
  while (lo > 0 && s_db[lo - 1] < level_db) lo--;
  while (hi < n - 1 && s_db[hi + 1] < level_db) hi++;
  if (lo == 0 || hi == n - 1) return -1; /* the band runs past the sweep */
  *f_lo = cross(f, s_db, lo - 1, level_db);
  *f_hi = cross(f, s_db, hi, level_db);
  return 0;
}

double em_res_q(int n, const double *f, const double *zr, const double *zi, double f0,
                int parallel) {
  if (n < 3) return 0;
  int i = centre(n, f, f0);
  double re[3], im[3];
  for (int j = 0; j < 3; j++) {
    double r = zr[i - 1 + j], x = zi[i - 1 + j], m = r * r + x * x;
    /* admittance G + jB = (R - jX) / (R^2 + X^2) */
    re[j] = parallel ? r / m : r;
    im[j] = parallel ? -x / m : x;
  }
  double a, b, c, ai, bi, ci, t = f0 - f[i];
  parabola(f + i - 1, re, 1, &a, &b, &c);
  parabola(f + i - 1, im, 1, &ai, &bi, &ci);
  double g = a * t * t + b * t + c, dbdf = 2 * ai * t + bi;
  return g > 0 ? f0 / (2 * g) * fabs(dbdf) : 0;
}

void em_res_find(int n, const double *f, const em_cplx *s11, double z0, int max_out,
                 em_resonance *zpk, int *n_zpk, em_resonance *smin, int *n_smin) {
  *n_zpk = *n_smin = 0;
  if (n < 3 || max_out < 1) return;
  /* four arrays of n on the stack for sweeps of modest length, else none */
  enum { CAP = 4096 };
  if (n > CAP) return;
  double zr[CAP], zi[CAP], s2[CAP], sdb[CAP];
  for (int j = 0; j < n; j++) {
    /* Zin = z0 (1 + S) / (1 - S) */
    em_cplx z = z0 * (1 + s11[j]) / (1 - s11[j]);
    zr[j] = creal(z);
    zi[j] = cimag(z);
    s2[j] = creal(s11[j]) * creal(s11[j]) + cimag(s11[j]) * cimag(s11[j]);
    sdb[j] = 10 * log10(s2[j] > 1e-300 ? s2[j] : 1e-300);
  }
  *n_zpk = em_res_extrema(n, f, zr, +1, max_out, zpk);
  for (int k = 0; k < *n_zpk; k++) {
    zpk[k].q = em_res_q(n, f, zr, zi, zpk[k].f0, 1);
    em_res_band(n, f, sdb, zpk[k].f0, -10, &zpk[k].f_lo, &zpk[k].f_hi);
  }
  /* |S11|^2 is smooth through a perfect match where |S11| has a corner */
  *n_smin = em_res_extrema(n, f, s2, -1, max_out, smin);
  for (int k = 0; k < *n_smin; k++) {
    double p = smin[k].peak > 1e-300 ? smin[k].peak : 1e-300;
    smin[k].peak = 10 * log10(p);
    smin[k].q = em_res_q(n, f, zr, zi, smin[k].f0, 1);
    em_res_band(n, f, sdb, smin[k].f0, -10, &smin[k].f_lo, &smin[k].f_hi);
  }
}
