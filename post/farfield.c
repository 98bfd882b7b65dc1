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
 * bitwise from any caller (one direction or many, threaded or not). */
#define FF_CHUNK 256
/* Directions per block of em_nf2ff_far_many: a chunk is loaded once per
 * block. */
#define FF_BLOCK 16

/* One chunk of points in rows (structure of arrays): x[d][i], and
 * v[2d], v[2d+1] the Re, Im of J_d, v[6+2d], v[7+2d] those of M_d. */
typedef struct ff_chunk {
  int m;
  double x[3][FF_CHUNK];
  double v[12][FF_CHUNK];
} ff_chunk;

static void chunk_load(const em_nf2ff *nf, int64_t ch, ff_chunk *c) {
  int64_t lo = ch * FF_CHUNK, hi = lo + FF_CHUNK < nf->n ? lo + FF_CHUNK : nf->n;
  c->m = (int)(hi - lo);
  const double *J = (const double *)(nf->J + 3 * lo), *M = (const double *)(nf->M + 3 * lo);
  for (int i = 0; i < c->m; i++) {
    for (int d = 0; d < 3; d++) c->x[d][i] = nf->x[3 * (lo + i) + d];
    for (int k = 0; k < 6; k++) {
      c->v[k][i] = J[6 * i + k];
      c->v[6 + k][i] = M[6 * i + k];
    }
  }
}

/* acc[0..11] += the chunk's sums with e_i = exp(j (a . x_i + c0)): Re, Im
 * of sum J_d e_i and of sum M_d e_i (ff_chunk's row order).  The phases
 * first (em_post_sincos vectorizes), then twelve contiguous reductions. */
__attribute__((always_inline)) static inline void chunk_body(const ff_chunk *ch, const double a[3],
                                                             double c0, double acc[12]) {
  double cs[FF_CHUNK], sn[FF_CHUNK];
  int m = ch->m;
  const double a0 = a[0], a1 = a[1], a2 = a[2];
  const double *x0 = ch->x[0], *x1 = ch->x[1], *x2 = ch->x[2];
#pragma omp simd
  for (int i = 0; i < m; i++)
    em_post_sincos(a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + c0, &sn[i], &cs[i]);
  for (int d = 0; d < 6; d++) {
    const double *re = ch->v[2 * d], *im = ch->v[2 * d + 1];
    double sr = 0, si = 0;
#pragma omp simd reduction(+ : sr, si)
    for (int i = 0; i < m; i++) {
      sr += re[i] * cs[i] - im[i] * sn[i];
      si += re[i] * sn[i] + im[i] * cs[i];
    }
    acc[2 * d] += sr;
    acc[2 * d + 1] += si;
  }
}

/* The body compiled for AVX-512, AVX2 (both with FMA) and the baseline;
 * chunk_pick picks by what the CPU supports. */
#define CHUNK_ARGS const ff_chunk *ch, const double a[3], double c0, double acc[12]
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f,avx2,fma"))) static void chunk_avx512(CHUNK_ARGS) {
  chunk_body(ch, a, c0, acc);
}
__attribute__((target("avx2,fma"))) static void chunk_avx2(CHUNK_ARGS) {
  chunk_body(ch, a, c0, acc);
}
#endif
static void chunk_generic(CHUNK_ARGS) {
  chunk_body(ch, a, c0, acc);
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

/* One direction: r_hat, its theta and phi unit vectors, and each copy's
 * phase k r_hat . y_i = a . x_i + c0 (y_d = x_d, or off_d - x_d on a
 * flipped axis); below = 1 under an infinite ground (F = 0). */
typedef struct ff_dir {
  double r[3], th[3], ph[3];
  double a[8][3], c0[8];
  int below;
} ff_dir;

static void dir_make(const em_nf2ff *nf, const copies *c, double theta, double phi, ff_dir *d) {
  double st = sin(theta), ct = cos(theta), sp = sin(phi), cp = cos(phi);
  double r[3] = {st * cp, st * sp, ct}, th[3] = {ct * cp, ct * sp, -st}, ph[3] = {-sp, cp, 0};
  memcpy(d->r, r, sizeof r);
  memcpy(d->th, th, sizeof th);
  memcpy(d->ph, ph, sizeof ph);
  d->below = nf->half_space && ct < 0;
  double k = nf->k;
  for (int q = 0; q < c->n; q++) {
    d->c0[q] = 0;
    for (int e = 0; e < 3; e++) {
      d->a[q][e] = c->flip[q][e] ? -k * r[e] : k * r[e];
      if (c->flip[q][e]) d->c0[q] += k * r[e] * c->off[q][e];
    }
  }
}

/* sums[q][12] of one direction over every chunk, serially, in chunk order
 * (sums += the chunk's partial sum from zero). */
static void dir_sums_serial(const em_nf2ff *nf, const copies *c, const ff_dir *d, chunk_fn fn,
                            ff_chunk *ch, double sums[8][12]) {
  int64_t nch = (nf->n + FF_CHUNK - 1) / FF_CHUNK;
  memset(sums, 0, 8 * sizeof sums[0]);
  for (int64_t k = 0; k < nch; k++) {
    chunk_load(nf, k, ch);
    for (int q = 0; q < c->n; q++) {
      double p[12] = {0};
      fn(ch, d->a[q], d->c0[q], p);
      for (int e = 0; e < 12; e++) sums[q][e] += p[e];
    }
  }
}

/* F_theta, F_phi from the sums: N = sum_q sJ_q N_q, L = sum_q sM_q L_q, then
 * F_theta = -j k/(4 pi) (L_phi + eta N_theta), F_phi = j k/(4 pi) (L_theta - eta N_phi),
 * times exp(j k r_hat . centre) for the phase at the model origin. */
static void dir_finish(const em_nf2ff *nf, const copies *c, const ff_dir *d, double sums[8][12],
                       em_cplx *f_theta, em_cplx *f_phi) {
  if (d->below) {
    *f_theta = *f_phi = 0;
    return;
  }
  em_cplx N[3] = {0, 0, 0}, L[3] = {0, 0, 0};
  for (int q = 0; q < c->n; q++)
    for (int e = 0; e < 3; e++) {
      N[e] += c->sJ[q][e] * CMPLX(sums[q][2 * e], sums[q][2 * e + 1]);
      L[e] += c->sM[q][e] * CMPLX(sums[q][6 + 2 * e], sums[q][7 + 2 * e]);
    }
  const double *th = d->th, *ph = d->ph, *r = d->r, *o = nf->centre;
  em_cplx Nt = N[0] * th[0] + N[1] * th[1] + N[2] * th[2];
  em_cplx Np = N[0] * ph[0] + N[1] * ph[1];
  em_cplx Lt = L[0] * th[0] + L[1] * th[1] + L[2] * th[2];
  em_cplx Lp = L[0] * ph[0] + L[1] * ph[1];
  double k = nf->k;
  em_cplx phase = cexp(I * k * (r[0] * o[0] + r[1] * o[1] + r[2] * o[2])) * (k / (4 * M_PI));
  *f_theta = -I * phase * (Lp + nf->eta * Nt);
  *f_phi = I * phase * (Lt - nf->eta * Np);
}

/* N = sum J exp(j k r_hat . x), L = sum M exp(j k r_hat . x) over the
 * points of S and its images.  Called from outside a parallel region (the
 * antenna figures' searches) the chunks are shared among the threads, their
 * partial sums kept and added in chunk order; inside one, serially: the
 * same bits. */
void em_nf2ff_far(const em_nf2ff *nf, double theta, double phi, em_cplx *f_theta, em_cplx *f_phi) {
  copies c;
  make_copies(nf, &c);
  ff_dir d;
  dir_make(nf, &c, theta, phi, &d);
  if (d.below) {
    *f_theta = *f_phi = 0;
    return;
  }
  chunk_fn fn = chunk_pick();
  int64_t nch = (nf->n + FF_CHUNK - 1) / FF_CHUNK;
  double sums[8][12];
  double *part = NULL;
#ifdef _OPENMP
  if (nch >= 4 && !omp_in_parallel() && omp_get_max_threads() > 1)
    part = calloc((size_t)nch * c.n * 12, sizeof *part); /* NULL: the serial loop */
#endif
  if (part) {
#pragma omp parallel
    {
      ff_chunk *ch = malloc(sizeof *ch);
#pragma omp for schedule(static)
      for (int64_t k = 0; k < nch; k++) {
        ff_chunk local;
        ff_chunk *use = ch ? ch : &local;
        chunk_load(nf, k, use);
        for (int q = 0; q < c.n; q++) fn(use, d.a[q], d.c0[q], part + ((size_t)k * c.n + q) * 12);
      }
      free(ch);
    }
    memset(sums, 0, sizeof sums);
    for (int64_t k = 0; k < nch; k++)
      for (int q = 0; q < c.n; q++)
        for (int e = 0; e < 12; e++) sums[q][e] += part[((size_t)k * c.n + q) * 12 + e];
    free(part);
  } else {
    ff_chunk ch;
    dir_sums_serial(nf, &c, &d, fn, &ch, sums);
  }
  dir_finish(nf, &c, &d, sums, f_theta, f_phi);
}

void em_nf2ff_far_many(const em_nf2ff *nf, int n, const double *theta, const double *phi,
                       em_cplx *f) {
  copies c;
  make_copies(nf, &c);
  chunk_fn fn = chunk_pick();
  int64_t nch = (nf->n + FF_CHUNK - 1) / FF_CHUNK;
  /* blocks of FF_BLOCK directions, fewer when that leaves threads idle
     (the values do not depend on the blocks) */
  int bs = FF_BLOCK;
#ifdef _OPENMP
  bs = n / omp_get_max_threads();
  bs = bs < 1 ? 1 : bs > FF_BLOCK ? FF_BLOCK : bs;
#endif
  int nb = (n + bs - 1) / bs;
  /* a block of directions: each chunk loaded once, then summed for every
     direction of the block (each direction's sums in chunk order, as
     em_nf2ff_far adds them) */
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < nb; b++) {
    int k0 = b * bs, m = n - k0 < bs ? n - k0 : bs;
    ff_dir d[FF_BLOCK];
    double sums[FF_BLOCK][8][12];
    ff_chunk ch;
    memset(sums, 0, sizeof sums);
    for (int j = 0; j < m; j++) dir_make(nf, &c, theta[k0 + j], phi[k0 + j], &d[j]);
    for (int64_t k = 0; k < nch; k++) {
      chunk_load(nf, k, &ch);
      for (int j = 0; j < m; j++) {
        if (d[j].below) continue;
        for (int q = 0; q < c.n; q++) {
          double p[12] = {0};
          fn(&ch, d[j].a[q], d[j].c0[q], p);
          for (int e = 0; e < 12; e++) sums[j][q][e] += p[e];
        }
      }
    }
    for (int j = 0; j < m; j++)
      dir_finish(nf, &c, &d[j], sums[j], &f[2 * (k0 + j)], &f[2 * (k0 + j) + 1]);
  }
}

/* P = int |F|^2 / (2 eta) dOmega, dOmega = d(cos theta) d phi: Gauss-Legendre
 * in cos theta over [-1, 1] ([0, 1] with half_space), trapezoid in phi
 * (exact for the band-limited periodic integrand). */
double em_nf2ff_power(const em_nf2ff *nf) {
  double s[256], w[256];
  int nt = (int)fmin(ceil(nf->k * nf->radius) + 12, 256), np = 2 * nt, n = nt * np;
  em_quad_line(nt, s, w);
  double lo = nf->half_space ? 0 : -1, span = 1 - lo, p = 0;
  double *th = malloc((size_t)n * sizeof *th), *ph = malloc((size_t)n * sizeof *ph);
  em_cplx *f = malloc(2 * (size_t)n * sizeof *f);
  if (!th || !ph || !f) {
    free(th);
    free(ph);
    free(f);
    return NAN; /* the callers check that P is finite and positive */
  }
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < np; j++) {
      th[i * np + j] = acos(lo + span * s[i]);
      ph[i * np + j] = 2 * M_PI * j / np;
    }
  em_nf2ff_far_many(nf, n, th, ph, f);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < np; j++) {
      em_cplx ft = f[2 * (i * np + j)], fp = f[2 * (i * np + j) + 1];
      double u = (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (2 * nf->eta);
      p += u * w[i] * span * (2 * M_PI / np);
    }
  free(th);
  free(ph);
  free(f);
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
  double *th = NULL, *ph = NULL;
  em_err err = em_calloc(&th, (size_t)n, sizeof *th, "far-field grid");
  if (!err) err = em_calloc(&ph, (size_t)n, sizeof *ph, "far-field grid");
  if (err) {
    em_free(&th);
    em_ff_grid_free(g);
    return err;
  }
  for (int k = 0; k < n; k++) {
    th[k] = (k / g->n_phi) * dtheta * M_PI / 180;
    ph[k] = (k % g->n_phi) * dphi * M_PI / 180;
  }
  em_nf2ff_far_many(nf, n, th, ph, g->f);
  em_free(&th);
  em_free(&ph);
  return EM_OK;
}

void em_ff_grid_free(em_ff_grid *g) {
  if (g) em_free(&g->f);
}
