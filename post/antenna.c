/* antenna.c - the figures of merit of a radiation pattern: maximum,
 * directivity, gain, efficiency, front-to-back ratio, cross-polar levels,
 * -3 dB beamwidths in the principal planes (definitions in em_post.h). */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

static double db(double x) {
  return 10 * log10(x);
}

/* Ludwig 3: co_x = F_theta cos(phi) - F_phi sin(phi), co_y = F_theta sin(phi) + F_phi cos(phi);
 * U = (|F_theta|^2 + |F_phi|^2) / (2 eta) = (|co_x|^2 + |co_y|^2) / (2 eta). */
double em_antenna_intensity(const em_nf2ff *nf, double theta, double phi, int copol, double *u_co,
                            double *u_cr) {
  em_cplx ft, fp;
  em_nf2ff_far(nf, theta, phi, &ft, &fp);
  em_cplx cx = ft * cos(phi) - fp * sin(phi), cy = ft * sin(phi) + fp * cos(phi);
  double ux = creal(cx * conj(cx)) / (2 * nf->eta), uy = creal(cy * conj(cy)) / (2 * nf->eta);
  if (u_co) *u_co = copol ? uy : ux;
  if (u_cr) *u_cr = copol ? ux : uy;
  return ux + uy;
}

static void angles_of(const double d[3], double *theta, double *phi) {
  double z = fmax(-1.0, fmin(1.0, d[2]));
  *theta = acos(z);
  *phi = atan2(d[1], d[0]);
  if (*phi < 0) *phi += 2 * M_PI;
}

static double u_dir(const em_nf2ff *nf, const double d[3]) {
  double t, p;
  angles_of(d, &t, &p);
  return em_antenna_intensity(nf, t, p, 0, NULL, NULL);
}

/* direction cos(alpha) dir_max + sin(alpha) e (plane 0) or h (plane 1) */
double em_antenna_cut(const em_nf2ff *nf, const em_antenna *a, int plane, double alpha,
                      double dir[3]) {
  const double *v = plane ? a->h_dir : a->e_dir;
  for (int c = 0; c < 3; c++) dir[c] = cos(alpha) * a->dir_max[c] + sin(alpha) * v[c];
  return u_dir(nf, dir);
}

/* U at n directions given by their angles, at once (em_nf2ff_far_many),
 * each as em_antenna_intensity computes it. */
static void intensity_many(const em_nf2ff *nf, int n, const double *th, const double *ph,
                           double *u) {
  em_cplx f[128];
  for (int k0 = 0; k0 < n; k0 += 64) {
    int m = n - k0 < 64 ? n - k0 : 64;
    em_nf2ff_far_many(nf, m, th + k0, ph + k0, f);
    for (int k = 0; k < m; k++) {
      double p = ph[k0 + k];
      em_cplx ft = f[2 * k], fp = f[2 * k + 1];
      em_cplx cx = ft * cos(p) - fp * sin(p), cy = ft * sin(p) + fp * cos(p);
      u[k0 + k] = creal(cx * conj(cx)) / (2 * nf->eta) + creal(cy * conj(cy)) / (2 * nf->eta);
    }
  }
}

/* Refine the grid maximum by a compass search in (theta, phi): the four
 * neighbours at the step evaluated together, a move to the best if it is
 * higher, else the step halves, from the grid step down to 1e-5 rad. */
static void refine_max(const em_nf2ff *nf, double step, double *theta, double *phi, double *u) {
  double tmax = nf->half_space ? M_PI / 2 : M_PI;
  while (step > 1e-5) {
    static const int dt[4] = {1, -1, 0, 0}, dp[4] = {0, 0, 1, -1};
    double t[4], p[4], v[4];
    int m = 0;
    for (int k = 0; k < 4; k++) {
      t[m] = *theta + dt[k] * step;
      p[m] = *phi + dp[k] * step / fmax(sin(*theta), 0.05);
      if (t[m] >= 0 && t[m] <= tmax) m++;
    }
    intensity_many(nf, m, t, p, v);
    int best = -1;
    for (int k = 0; k < m; k++)
      if (v[k] > *u && (best < 0 || v[k] > v[best])) best = k;
    if (best >= 0)
      *theta = t[best], *phi = p[best], *u = v[best];
    else
      step /= 2;
  }
  *phi = fmod(*phi, 2 * M_PI);
  if (*phi < 0) *phi += 2 * M_PI;
}

/* u_dir of each of n directions (dir[3 k ..]) at once: threads over the
 * directions, each value as em_antenna_intensity computes it one by one. */
static void u_many(const em_nf2ff *nf, int n, const double *dir, double *u) {
  double th[64], ph[64];
  for (int k0 = 0; k0 < n; k0 += 64) {
    int m = n - k0 < 64 ? n - k0 : 64;
    for (int k = 0; k < m; k++) angles_of(dir + 3 * (k0 + k), &th[k], &ph[k]);
    intensity_many(nf, m, th, ph, u + k0);
  }
}

void em_post_cut_many(const em_nf2ff *nf, const em_antenna *a, int plane, int n,
                      const double *alpha, double *dir, double *u) {
  const double *v = plane ? a->h_dir : a->e_dir;
  for (int k = 0; k < n; k++)
    for (int c = 0; c < 3; c++)
      dir[3 * k + c] = cos(alpha[k]) * a->dir_max[c] + sin(alpha[k]) * v[c];
  u_many(nf, n, dir, u);
}

/* Half-power point of a cut on the side sign (+1 / -1): march by 0.5 deg
 * (64 steps at a time, the directions of a block evaluated together),
 * then narrow the bracket 16-fold per round (15 directions together); NaN
 * when the cut never falls to u_max / 2. */
static double half_power(const em_nf2ff *nf, const em_antenna *a, int plane, double sign) {
  double h = 0.5 * M_PI / 180, lo = 0, hi = -1;
  double al = h, alpha[64], dirs[3 * 64], u[64];
  while (hi < 0 && al <= M_PI + 1e-12) {
    int m = 0;
    double start = al;
    for (; m < 64 && al <= M_PI + 1e-12; al += h) alpha[m++] = sign * al;
    em_post_cut_many(nf, a, plane, m, alpha, dirs, u);
    al = start;
    for (int k = 0; k < m; k++, al += h) {
      if (u[k] < 0.5 * a->u_max) {
        hi = al;
        break;
      }
      lo = al;
    }
  }
  if (hi < 0) return NAN;
  /* 16-section: 15 points of [lo, hi] together, the first below half
     power bounds the new interval; 10 rounds narrow it by 2^40 */
  for (int it = 0; it < 10; it++) {
    double w = hi - lo, x[15];
    for (int k = 0; k < 15; k++) alpha[k] = sign * (x[k] = lo + w * (k + 1) / 16);
    em_post_cut_many(nf, a, plane, 15, alpha, dirs, u);
    int k = 0;
    while (k < 15 && !(u[k] < 0.5 * a->u_max)) k++;
    double nlo = k > 0 ? x[k - 1] : lo, nhi = k < 15 ? x[k] : hi;
    lo = nlo;
    hi = nhi;
  }
  return 0.5 * (lo + hi);
}

em_err em_antenna_figures(const em_nf2ff *nf, const em_ff_grid *g, double p_acc, double mismatch,
                          double p_loss, em_antenna *a) {
  EM_CHECK(nf && g && g->f && a, EM_ERR_ARG, "antenna figures: NULL argument");
  memset(a, 0, sizeof *a);
  a->p_acc = p_acc;
  a->p_acc_s11 = NAN;
  a->p_loss_metal = a->p_loss_lumped = NAN; /* the caller's split of p_loss */
  a->mismatch = mismatch;
  a->p_loss = p_loss;
  a->p_surface = nf->p_surface;
  a->p_far = em_nf2ff_power(nf);
  EM_CHECK(isfinite(a->p_far) && a->p_far > 0, EM_ERR_NUMERIC,
           "antenna figures: the radiated power %g W is not positive (no field on the NF2FF "
           "surface?)",
           a->p_far);
  /* the grid maximum, refined */
  int best = 0;
  double ub = -1;
  for (int k = 0; k < g->n_theta * g->n_phi; k++) {
    double u =
        creal(g->f[2 * k] * conj(g->f[2 * k])) + creal(g->f[2 * k + 1] * conj(g->f[2 * k + 1]));
    if (u > ub) ub = u, best = k;
  }
  double th = (best / g->n_phi) * g->dtheta * M_PI / 180,
         ph = (best % g->n_phi) * g->dphi * M_PI / 180;
  double u = em_antenna_intensity(nf, th, ph, 0, NULL, NULL);
  refine_max(nf, 0.5 * fmin(g->dtheta, g->dphi) * M_PI / 180, &th, &ph, &u);
  a->u_max = u;
  a->theta_max = th * 180 / M_PI;
  a->phi_max = ph * 180 / M_PI;
  a->directivity = 4 * M_PI * u / a->p_far;
  /* e = P_rad / (P_rad + P_loss): both terms carry small relative errors,
   * where P_rad / P_acc carries the whole discretisation error of the
   * power balance (a few % on coarse antenna meshes) */
  a->efficiency = isnan(p_loss) ? a->p_far / p_acc : a->p_far / (a->p_far + p_loss);
  a->gain = a->efficiency * a->directivity;
  a->realized_gain = a->gain * mismatch;
  a->balance = (a->p_far + (isnan(p_loss) ? 0 : p_loss)) / p_acc;
  double st = sin(th), ct = cos(th), sp = sin(ph), cp = cos(ph);
  double r[3] = {st * cp, st * sp, ct}, tv[3] = {ct * cp, ct * sp, -st}, pv[3] = {-sp, cp, 0};
  memcpy(a->dir_max, r, sizeof r);
  /* front to back */
  double back[3] = {-r[0], -r[1], -r[2]};
  a->front_to_back = nf->half_space ? NAN : db(u / u_dir(nf, back));
  /* polarisation: Ludwig 3 along x or y, whichever dominates at the maximum */
  double ux, uy;
  em_antenna_intensity(nf, th, ph, 0, &ux, &uy);
  a->copol = uy > ux;
  double uco = a->copol ? uy : ux, ucr = a->copol ? ux : uy;
  a->xpol_axis = db(ucr / uco);
  double peak = 0;
  for (int k = 0; k < g->n_theta * g->n_phi; k++) {
    double p = (k % g->n_phi) * g->dphi * M_PI / 180;
    em_cplx cx = g->f[2 * k] * cos(p) - g->f[2 * k + 1] * sin(p);
    em_cplx cy = g->f[2 * k] * sin(p) + g->f[2 * k + 1] * cos(p);
    double v = creal(a->copol ? cx * conj(cx) : cy * conj(cy)) / (2 * nf->eta);
    peak = fmax(peak, v);
  }
  a->xpol_peak = db(peak / uco);
  /* E-plane: through the maximum and the major axis of the polarisation
   * ellipse there, the real unit e = cos(b) theta_hat + sin(b) phi_hat
   * maximising |F . e|^2 = A cos^2 b + B sin^2 b + 2 C sin b cos b with
   * A = |F_theta|^2, B = |F_phi|^2, C = Re(F_theta F_phi*):
   * tan 2b = 2 C / (A - B) */
  em_cplx ft, fp;
  em_nf2ff_far(nf, th, ph, &ft, &fp);
  double A = creal(ft * conj(ft)), B = creal(fp * conj(fp)), C = creal(ft * conj(fp));
  double beta = 0.5 * atan2(2 * C, A - B);
  em_cplx fr, fl; /* circular parts (post/polarization.c) */
  em_ff_circular(ft, fp, &fr, &fl, &a->axial_ratio);
  a->g_rhcp = a->gain * creal(fr * conj(fr)) / (A + B);
  a->g_lhcp = a->gain * creal(fl * conj(fl)) / (A + B);
  for (int k = 0; k < 3; k++) a->e_dir[k] = cos(beta) * tv[k] + sin(beta) * pv[k];
  a->h_dir[0] = r[1] * a->e_dir[2] - r[2] * a->e_dir[1];
  a->h_dir[1] = r[2] * a->e_dir[0] - r[0] * a->e_dir[2];
  a->h_dir[2] = r[0] * a->e_dir[1] - r[1] * a->e_dir[0];
  double bw[2];
  for (int plane = 0; plane < 2; plane++) {
    double up = half_power(nf, a, plane, 1), dn = half_power(nf, a, plane, -1);
    bw[plane] = (up + dn) * 180 / M_PI;
  }
  a->bw_e = bw[0];
  a->bw_h = bw[1];
  return EM_OK;
}
