/* mri.c - minimal rational interpolation of snapshots (em_model.h): the
 * snapshots orthonormalised as they come (U = Q R), the weights from the
 * SVD of the small R by one-sided Jacobi, the barycentric evaluation. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "em_model.h"

struct em_mri {
  int64_t n_u;
  int n_y, cap, k;
  double zc, zs;
  double *t;   /* [cap] sample points, scaled */
  em_cplx *Q;  /* [cap][n_u] orthonormal columns */
  em_cplx *R;  /* [cap][cap], column j = R[j * cap + i] */
  em_cplx *Y;  /* [cap][n_y] measurements */
  em_cplx *w;  /* [cap] weights of the current fit */
  em_cplx *wp; /* [cap] weights before the last sample */
  double smin, smax;
};

em_err em_mri_create(int64_t n_u, int n_y, int cap, double zc, double zs, em_mri **out) {
  EM_CHECK(n_u > 0 && n_y >= 0 && cap >= 1 && cap <= 256 && zs > 0, EM_ERR_ARG,
           "mri: n_u %lld, n_y %d, cap %d, scale %g", (long long)n_u, n_y, cap, zs);
  em_mri *m = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&m, 1, sizeof *m, "rational model"));
  m->n_u = n_u, m->n_y = n_y, m->cap = cap, m->zc = zc, m->zs = zs;
  EM_TRY_GOTO(err, em_calloc(&m->t, (size_t)cap, sizeof *m->t, "model samples"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->Q, (size_t)cap * n_u, sizeof *m->Q, "model snapshots"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->R, (size_t)cap * cap, sizeof *m->R, "model R"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->Y, (size_t)cap * (n_y ? n_y : 1), sizeof *m->Y, "model outputs"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&m->w, (size_t)cap, sizeof *m->w, "model weights"), fail);
  EM_TRY_GOTO(err, em_calloc(&m->wp, (size_t)cap, sizeof *m->wp, "model weights"), fail);
  *out = m;
  return EM_OK;
fail:
  em_mri_destroy(&m);
  return err;
}

void em_mri_destroy(em_mri **mp) {
  em_mri *m = *mp;
  if (!m) return;
  em_free(&m->t);
  em_free(&m->Q);
  em_free(&m->R);
  em_free(&m->Y);
  em_free(&m->w);
  em_free(&m->wp);
  em_free(mp);
}

int em_mri_count(const em_mri *m) {
  return m->k;
}

void em_mri_sigma(const em_mri *m, double *smin, double *smax) {
  *smin = m->smin;
  *smax = m->smax;
}

/* a^H b over n entries */
static em_cplx dot(int64_t n, const em_cplx *a, const em_cplx *b) {
  double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    em_cplx p = conj(a[i]) * b[i];
    re += creal(p);
    im += cimag(p);
  }
  return re + I * im;
}

/* Right singular vector of the smallest singular value of the k x k A
 * (column-major, leading dimension ld; destroyed): one-sided Jacobi
 * (Hestenes) makes the columns of A V orthogonal; the column norms are the
 * singular values.  A pair (p, q) with g = a_p^H a_q = |g| e^{i phi} is
 * rotated by a_p' = c a_p - s e^{-i phi} a_q, a_q' = s a_p + c e^{-i phi} a_q,
 * t = s / c the root of t^2 + 2 zeta t - 1 = 0, zeta = (|a_q|^2 - |a_p|^2) / 2|g|. */
static void smallest_right_sv(int k, em_cplx *A, int ld, em_cplx *V, em_cplx *v, double *smin,
                              double *smax) {
  for (int i = 0; i < k * k; i++) V[i] = 0;
  for (int i = 0; i < k; i++) V[i * k + i] = 1;
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0;
    for (int p = 0; p < k - 1; p++)
      for (int q = p + 1; q < k; q++) {
        em_cplx *ap = A + (size_t)p * ld, *aq = A + (size_t)q * ld;
        double al = 0, be = 0;
        em_cplx g = 0;
        for (int i = 0; i < k; i++) {
          al += creal(ap[i] * conj(ap[i]));
          be += creal(aq[i] * conj(aq[i]));
          g += conj(ap[i]) * aq[i];
        }
        double ag = cabs(g);
        if (ag <= 1e-15 * sqrt(al * be) || ag == 0) continue;
        off = fmax(off, ag / sqrt(al * be));
        double zeta = (be - al) / (2 * ag);
        double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double c = 1 / sqrt(1 + t * t), s = c * t;
        em_cplx ph = conj(g) / ag; /* e^{-i phi} */
        for (int i = 0; i < k; i++) {
          em_cplx x = ap[i], y = ph * aq[i];
          ap[i] = c * x - s * y;
          aq[i] = s * x + c * y;
        }
        em_cplx *vp = V + (size_t)p * k, *vq = V + (size_t)q * k;
        for (int i = 0; i < k; i++) {
          em_cplx x = vp[i], y = ph * vq[i];
          vp[i] = c * x - s * y;
          vq[i] = s * x + c * y;
        }
      }
    if (off < 1e-15) break;
  }
  int jmin = 0;
  *smin = INFINITY, *smax = 0;
  for (int j = 0; j < k; j++) {
    double n2 = 0;
    for (int i = 0; i < k; i++) n2 += creal(A[(size_t)j * ld + i] * conj(A[(size_t)j * ld + i]));
    double sj = sqrt(n2);
    if (sj < *smin) *smin = sj, jmin = j;
    if (sj > *smax) *smax = sj;
  }
  for (int i = 0; i < k; i++) v[i] = V[(size_t)jmin * k + i];
}

em_err em_mri_add(em_mri *m, double z, const em_cplx *u, const em_cplx *y) {
  EM_CHECK(m->k < m->cap, EM_ERR_ARG, "mri: %d samples already (its capacity)", m->cap);
  int k = m->k, cap = m->cap;
  int64_t n = m->n_u;
  m->t[k] = (z - m->zc) / m->zs;
  for (int j = 0; j < k; j++)
    EM_CHECK(m->t[j] != m->t[k], EM_ERR_ARG, "mri: frequency %.17g Hz sampled twice", z);
  em_cplx *q = m->Q + (size_t)k * n, *r = m->R + (size_t)k * cap;
  memcpy(q, u, sizeof *q * (size_t)n);
  memcpy(m->Y + (size_t)k * m->n_y, y, sizeof *y * (size_t)m->n_y);
  /* classical Gram-Schmidt twice: orthogonal to working precision */
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < k; j++) {
      const em_cplx *qj = m->Q + (size_t)j * n;
      em_cplx h = dot(n, qj, q);
      r[j] += h;
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; i++) q[i] -= h * qj[i];
    }
  double nq = sqrt(creal(dot(n, q, q)));
  r[k] = nq;
  if (nq > 0)
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) q[i] /= nq;
  m->k = ++k;
  memcpy(m->wp, m->w, sizeof *m->w * (size_t)cap);
  em_cplx *A = NULL, *V = NULL;
  EM_TRY(em_calloc(&A, (size_t)k * k, sizeof *A, "model SVD"));
  if (em_calloc(&V, (size_t)k * k, sizeof *V, "model SVD")) {
    em_free(&A);
    return em_error_trace(EM_ERR_MEMORY, __FILE__, __LINE__);
  }
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) A[(size_t)j * k + i] = i <= j ? m->R[(size_t)j * cap + i] : 0;
  smallest_right_sv(k, A, k, V, m->w, &m->smin, &m->smax);
  em_free(&A);
  em_free(&V);
  return EM_OK;
}

/* c_j = w_j / (t - t_j) / sum_l w_l / (t - t_l), or the unit vector of a
 * sample that t hits */
static void bary(const em_mri *m, const em_cplx *w, int k, double z, em_cplx *c) {
  double t = (z - m->zc) / m->zs;
  for (int j = 0; j < k; j++)
    if (t == m->t[j]) {
      for (int l = 0; l < k; l++) c[l] = l == j;
      return;
    }
  em_cplx den = 0;
  for (int j = 0; j < k; j++) den += c[j] = w[j] / (t - m->t[j]);
  for (int j = 0; j < k; j++) c[j] /= den;
}

static void eval_with(const em_mri *m, const em_cplx *w, int k, double z, em_cplx *y) {
  em_cplx c[256];
  bary(m, w, k, z, c);
  for (int i = 0; i < m->n_y; i++) {
    em_cplx s = 0;
    for (int j = 0; j < k; j++) s += c[j] * m->Y[(size_t)j * m->n_y + i];
    y[i] = s;
  }
}

double em_mri_indicator(const em_mri *m, double z) {
  double t = (z - m->zc) / m->zs;
  em_cplx den = 0;
  for (int j = 0; j < m->k; j++) {
    if (t == m->t[j]) return 0;
    den += m->w[j] / (t - m->t[j]);
  }
  return 1 / cabs(den);
}

void em_mri_eval(const em_mri *m, double z, em_cplx *y) {
  eval_with(m, m->w, m->k, z, y);
}

void em_mri_eval_prev(const em_mri *m, double z, em_cplx *y) {
  eval_with(m, m->wp, m->k - 1, z, y);
}

void em_mri_eval_snapshot(const em_mri *m, double z, em_cplx *u) {
  em_cplx c[256], rc[256];
  int k = m->k;
  bary(m, m->w, k, z, c);
  for (int i = 0; i < k; i++) { /* R c */
    rc[i] = 0;
    for (int j = i; j < k; j++) rc[i] += m->R[(size_t)j * m->cap + i] * c[j];
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m->n_u; i++) {
    em_cplx s = 0;
    for (int j = 0; j < k; j++) s += m->Q[(size_t)j * m->n_u + i] * rc[j];
    u[i] = s;
  }
}
