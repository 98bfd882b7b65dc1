/* farfield.c - the far field of the NF2FF currents in a direction, the
 * radiated power as its integral over the sphere, and the (theta, phi)
 * grid (formulas in em_post.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_post.h"
#include "post_impl.h"

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

/* Points per chunk of the sums: the chunks' partial sums are added in
 * chunk order whatever the threads, so a direction's result is the same
 * bitwise from a serial or a threaded caller. */
#define FF_CHUNK 256

/* Over points lo..hi-1 (hi - lo <= FF_CHUNK) of one copy, with
 * e_i = exp(j (a . x_i + c0)): acc[2d], acc[2d+1] += Re, Im of sum J_d e_i
 * and acc[6+2d], acc[7+2d] the same for M.  The phases first (a loop that
 * vectorizes, em_post_sincos), then the 12 real sums. */
__attribute__((always_inline)) static inline void chunk_body(const em_nf2ff *nf, int64_t lo,
                                                             int64_t hi, const double a[3],
                                                             double c0, double acc[12]) {
  double cs[FF_CHUNK], sn[FF_CHUNK];
  int m = (int)(hi - lo);
  const double *x = nf->x + 3 * lo;
  const double a0 = a[0], a1 = a[1], a2 = a[2];
#pragma omp simd
  for (int i = 0; i < m; i++)
    em_post_sincos(a0 * x[3 * i] + a1 * x[3 * i + 1] + a2 * x[3 * i + 2] + c0, &sn[i], &cs[i]);
  const double *J = (const double *)(nf->J + 3 * lo), *M = (const double *)(nf->M + 3 * lo);
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0, s9 = 0, s10 = 0,
         s11 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11)
  for (int i = 0; i < m; i++) {
    double c = cs[i], si = sn[i];
    const double *j = J + 6 * i, *mm = M + 6 * i;
    s0 += j[0] * c - j[1] * si;
    s1 += j[0] * si + j[1] * c;
    s2 += j[2] * c - j[3] * si;
    s3 += j[2] * si + j[3] * c;
    s4 += j[4] * c - j[5] * si;
    s5 += j[4] * si + j[5] * c;
    s6 += mm[0] * c - mm[1] * si;
    s7 += mm[0] * si + mm[1] * c;
    s8 += mm[2] * c - mm[3] * si;
    s9 += mm[2] * si + mm[3] * c;
    s10 += mm[4] * c - mm[5] * si;
    s11 += mm[4] * si + mm[5] * c;
  }
  double s[12] = {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11};
  for (int k = 0; k < 12; k++) acc[k] += s[k];
}

/* The body compiled for AVX-512, AVX2 (both with FMA) and the baseline;
 * chunk_sums picks by what the CPU supports. */
#define CHUNK_ARGS \
  const em_nf2ff *nf, int64_t lo, int64_t hi, const double a[3], double c0, double acc[12]
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f,avx2,fma"))) static void chunk_avx512(CHUNK_ARGS) {
  chunk_body(nf, lo, hi, a, c0, acc);
}
__attribute__((target("avx2,fma"))) static void chunk_avx2(CHUNK_ARGS) {
  chunk_body(nf, lo, hi, a, c0, acc);
}
#endif
static void chunk_generic(CHUNK_ARGS) {
  chunk_body(nf, lo, hi, a, c0, acc);
}

typedef void (*chunk_fn)(CHUNK_ARGS);

static chunk_fn chunk_pick(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return chunk_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return chunk_avx2;
#endif
  return chunk_generic;
}

/* Copy q's phase k r_hat . y_i = a . x_i + c0: y_d = x_d, or
 * off_d - x_d on a flipped axis. */
static void copy_phase(const copies *c, int q, double k, const double r[3], double a[3],
                       double *c0) {
  *c0 = 0;
  for (int d = 0; d < 3; d++) {
    a[d] = c->flip[q][d] ? -k * r[d] : k * r[d];
    if (c->flip[q][d]) *c0 += k * r[d] * c->off[q][d];
  }
}

/* The sums of every copy: sums[q][12] (chunk_sums' layout).  Called from
 * outside a parallel region (the antenna figures' searches, the cuts) the
 * chunks are shared among the threads, their partial sums kept and added
 * in chunk order (the result does not depend on it); inside one (the grid,
 * the power integral: parallel over directions) serially. */
static void copy_sums(const em_nf2ff *nf, const copies *c, const double r[3], double sums[8][12]) {
  chunk_fn chunk_sums = chunk_pick();
  int64_t nch = (nf->n + FF_CHUNK - 1) / FF_CHUNK;
  double a[8][3], c0[8];
  for (int q = 0; q < c->n; q++) {
    copy_phase(c, q, nf->k, r, a[q], &c0[q]);
    memset(sums[q], 0, sizeof sums[q]);
  }
  double *part = NULL;
#ifdef _OPENMP
  if (nch >= 4 && !omp_in_parallel() && omp_get_max_threads() > 1)
    part = calloc((size_t)nch * c->n * 12, sizeof *part); /* NULL: the serial loop */
#endif
  if (part) {
#pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < nch; ch++) {
      int64_t lo = ch * FF_CHUNK, hi = lo + FF_CHUNK < nf->n ? lo + FF_CHUNK : nf->n;
      for (int q = 0; q < c->n; q++)
        chunk_sums(nf, lo, hi, a[q], c0[q], part + ((size_t)ch * c->n + q) * 12);
    }
    for (int64_t ch = 0; ch < nch; ch++)
      for (int q = 0; q < c->n; q++)
        for (int k = 0; k < 12; k++) sums[q][k] += part[((size_t)ch * c->n + q) * 12 + k];
    free(part);
    return;
  }
  for (int64_t ch = 0; ch < nch; ch++) {
    int64_t lo = ch * FF_CHUNK, hi = lo + FF_CHUNK < nf->n ? lo + FF_CHUNK : nf->n;
    for (int q = 0; q < c->n; q++) {
      double p[12] = {0};
      chunk_sums(nf, lo, hi, a[q], c0[q], p);
      for (int k = 0; k < 12; k++) sums[q][k] += p[k];
    }
  }
}

/* N = sum J exp(j k r_hat . x), L = sum M exp(j k r_hat . x) over the
 * points of S and its images (copy q's currents times its signs sJ, sM);
 * then
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
  double k = nf->k, sums[8][12];
  copy_sums(nf, &c, r, sums);
  em_cplx N[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (int q = 0; q < c.n; q++)
    for (int d = 0; d < 3; d++) {
      N[d] += c.sJ[q][d] * CMPLX(sums[q][2 * d], sums[q][2 * d + 1]);
      L[d] += c.sM[q][d] * CMPLX(sums[q][6 + 2 * d], sums[q][7 + 2 * d]);
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

void em_nf2ff_far_many(const em_nf2ff *nf, int n, const double *theta, const double *phi,
                       em_cplx *f) {
#pragma omp parallel for schedule(dynamic, 4)
  for (int k = 0; k < n; k++) em_nf2ff_far(nf, theta[k], phi[k], &f[2 * k], &f[2 * k + 1]);
}
