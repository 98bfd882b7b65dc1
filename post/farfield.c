/* farfield.c - the far field of the NF2FF currents in a direction, the
 * radiated power as its integral over the sphere, and the (theta, phi)
 * grid (formulas in em_post.h). */
#include <math.h>
#include <string.h>

#include "em_post.h"

/* The copies of S under the mirror planes: copy c mirrors the axes whose
 * bit is set; a point's coordinate x_d becomes 2 (at_d - centre_d) - x_d
 * (points are relative to the centre), and the current components are
 * multiplied by sJ, sM (em_post.h: PEC J tangential and M normal reversed,
 * PMC J normal and M tangential reversed). */
typedef struct copies {
  int n;
  int flip[8][3];
  double off[8][3], sJ[8][3], sM[8][3];
} copies;

static void make_copies(const em_nf2ff *nf, copies *cp) {
  int axes[3], na = 0;
  for (int d = 0; d < 3; d++)
    if (nf->mirror[d] != EM_MIRROR_NONE) axes[na++] = d;
  cp->n = 1 << na;
  for (int c = 0; c < cp->n; c++) {
    for (int k = 0; k < 3; k++) {
      cp->flip[c][k] = 0;
      cp->off[c][k] = 0;
      cp->sJ[c][k] = cp->sM[c][k] = 1;
    }
    for (int b = 0; b < na; b++) {
      if (!(c & (1 << b))) continue;
      int d = axes[b];
      cp->flip[c][d] = 1;
      cp->off[c][d] = 2 * (nf->mirror_at[d] - nf->centre[d]);
      int pec = nf->mirror[d] == EM_MIRROR_PEC;
      for (int k = 0; k < 3; k++) {
        int normal = k == d;
        if (pec ? !normal : normal) cp->sJ[c][k] = -cp->sJ[c][k];
        if (pec ? normal : !normal) cp->sM[c][k] = -cp->sM[c][k];
      }
    }
  }
}

/* N = sum J exp(j k r_hat . x), L = sum M exp(j k r_hat . x) over the
 * points of S and its images; then
 * F_theta = -j k/(4 pi) (L_phi + eta N_theta), F_phi = j k/(4 pi) (L_theta - eta N_phi),
 * times exp(j k r_hat . centre) for the phase at the model origin. */
void em_nf2ff_far(const em_nf2ff *nf, double theta, double phi, em_cplx *f_theta, em_cplx *f_phi) {
  double st = sin(theta), ct = cos(theta), sp = sin(phi), cp = cos(phi);
  double r[3] = {st * cp, st * sp, ct};
  double th[3] = {ct * cp, ct * sp, -st}, ph[3] = {-sp, cp, 0};
  if (nf->half_space && ct < 0) {
    *f_theta = *f_phi = 0;
    return;
  }
  copies c;
  make_copies(nf, &c);
  double k = nf->k;
  em_cplx N[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (int64_t i = 0; i < nf->n; i++) {
    const double *x = nf->x + 3 * i;
    const em_cplx *J = nf->J + 3 * i, *M = nf->M + 3 * i;
    for (int q = 0; q < c.n; q++) {
      double y[3];
      for (int d = 0; d < 3; d++) y[d] = c.flip[q][d] ? c.off[q][d] - x[d] : x[d];
      em_cplx e = cexp(I * k * (r[0] * y[0] + r[1] * y[1] + r[2] * y[2]));
      for (int d = 0; d < 3; d++) {
        N[d] += c.sJ[q][d] * J[d] * e;
        L[d] += c.sM[q][d] * M[d] * e;
      }
    }
  }
  em_cplx Nt = N[0] * th[0] + N[1] * th[1] + N[2] * th[2];
  em_cplx Np = N[0] * ph[0] + N[1] * ph[1];
  em_cplx Lt = L[0] * th[0] + L[1] * th[1] + L[2] * th[2];
  em_cplx Lp = L[0] * ph[0] + L[1] * ph[1];
  const double *o = nf->centre;
  em_cplx phase = cexp(I * k * (r[0] * o[0] + r[1] * o[1] + r[2] * o[2])) * (k / (4 * M_PI));
  *f_theta = -I * phase * (Lp + nf->eta * Nt);
  *f_phi = I * phase * (Lt - nf->eta * Np);
}

/* P = int |F|^2 / (2 eta) dOmega, dOmega = d(cos theta) d phi: Gauss-Legendre
 * in cos theta over [-1, 1] ([0, 1] with half_space), trapezoid in phi
 * (exact for the band-limited periodic integrand). */
double em_nf2ff_power(const em_nf2ff *nf) {
  double s[256], w[256];
  int nt = (int)fmin(ceil(nf->k * nf->radius) + 12, 256), np = 2 * nt;
  em_quad_line(nt, s, w);
  double lo = nf->half_space ? 0 : -1, span = 1 - lo, p = 0;
#pragma omp parallel for reduction(+ : p) collapse(2) schedule(dynamic, 4)
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < np; j++) {
      double theta = acos(lo + span * s[i]), phi = 2 * M_PI * j / np;
      em_cplx ft, fp;
      em_nf2ff_far(nf, theta, phi, &ft, &fp);
      double u = (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (2 * nf->eta);
      p += u * w[i] * span * (2 * M_PI / np);
    }
  return p;
}

/* n steps of `step` degrees cover `range` exactly. */
static em_err steps(double step, double range, const char *what, int *n) {
  EM_CHECK(isfinite(step) && step > 0 && step <= 90, EM_ERR_INPUT,
           "far-field %s step %g deg must lie in (0, 90]", what, step);
  double r = range / step;
  *n = (int)lround(r);
  EM_CHECK(fabs(r - *n) < 1e-9 * r, EM_ERR_INPUT,
           "far-field %s step %g deg must divide %g deg evenly", what, step, range);
  return EM_OK;
}

em_err em_ff_grid_eval(const em_nf2ff *nf, double dtheta, double dphi, em_ff_grid *g) {
  EM_CHECK(nf && g, EM_ERR_ARG, "far-field grid: NULL argument");
  memset(g, 0, sizeof *g);
  int nt = 0, np = 0;
  EM_TRY(steps(dtheta, 180, "theta", &nt));
  EM_TRY(steps(dphi, 360, "phi", &np));
  if (nf->half_space) EM_TRY(steps(dtheta, 90, "theta (above an infinite ground)", &nt));
  g->n_theta = nt + 1;
  g->n_phi = np;
  g->dtheta = dtheta;
  g->dphi = dphi;
  EM_TRY(em_calloc(&g->f, 2 * (size_t)g->n_theta * g->n_phi, sizeof *g->f, "far-field grid"));
  int n = g->n_theta * g->n_phi;
#pragma omp parallel for schedule(dynamic, 8)
  for (int k = 0; k < n; k++) {
    int i = k / g->n_phi, j = k % g->n_phi;
    em_nf2ff_far(nf, i * dtheta * M_PI / 180, j * dphi * M_PI / 180, &g->f[2 * k],
                 &g->f[2 * k + 1]);
  }
  return EM_OK;
}

void em_ff_grid_free(em_ff_grid *g) {
  if (g) em_free(&g->f);
}
