/* vec_cpu_tmpl.h - the OpenMP vector kernels for one precision, included by
 * vec_cpu.c with SC (entry type) and FN(name) (name suffix) defined.
 * Reductions accumulate in double whatever the entry type. */

/* x = h, converting to SC */
static em_err FN(upload)(em_vec *v, const em_cplx *h, void *xv) {
  SC *x = xv;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) x[i] = (SC)h[i];
  return EM_OK;
}

/* h = x */
static em_err FN(download)(em_vec *v, const void *xv, em_cplx *h) {
  const SC *x = xv;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) h[i] = (em_cplx)x[i];
  return EM_OK;
}

/* x[perm[i]] = h[i], converting to SC */
static em_err FN(upload_perm)(em_vec *v, const em_cplx *h, const int32_t *perm, void *xv) {
  SC *x = xv;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) x[perm[i]] = (SC)h[i];
  return EM_OK;
}

/* h[i] = x[perm[i]] */
static em_err FN(download_perm)(em_vec *v, const void *xv, const int32_t *perm, em_cplx *h) {
  const SC *x = xv;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) h[i] = (em_cplx)x[perm[i]];
  return EM_OK;
}

/* x = a */
static em_err FN(set)(em_vec *v, em_cplx a, void *xv) {
  SC *x = xv, s = (SC)a;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) x[i] = s;
  return EM_OK;
}

/* y = x */
static em_err FN(copy)(em_vec *v, const void *xv, void *yv) {
  const SC *x = xv;
  SC *y = yv;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) y[i] = x[i];
  return EM_OK;
}

/* x = a x */
static em_err FN(scale)(em_vec *v, em_cplx a, void *xv) {
  SC *x = xv, s = (SC)a;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) x[i] *= s;
  return EM_OK;
}

/* y = a x + b y */
static em_err FN(axpby)(em_vec *v, em_cplx a, const void *xv, em_cplx b, void *yv) {
  const SC *x = xv;
  SC *y = yv, sa = (SC)a, sb = (SC)b;
  if (b == 1) {
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
    for (int32_t i = 0; i < v->n; i++) y[i] += sa * x[i];
  } else if (b == 0) { /* y may hold NaN garbage: never read it */
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
    for (int32_t i = 0; i < v->n; i++) y[i] = sa * x[i];
  } else {
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
    for (int32_t i = 0; i < v->n; i++) y[i] = sa * x[i] + sb * y[i];
  }
  return EM_OK;
}

/* z = a x + b y + c z */
static em_err FN(axpbypcz)(em_vec *v, em_cplx a, const void *xv, em_cplx b, const void *yv,
                           em_cplx c, void *zv) {
  const SC *x = xv, *y = yv;
  SC *z = zv, sa = (SC)a, sb = (SC)b, sc = (SC)c;
  if (c == 0) {
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
    for (int32_t i = 0; i < v->n; i++) z[i] = sa * x[i] + sb * y[i];
  } else {
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
    for (int32_t i = 0; i < v->n; i++) z[i] = sa * x[i] + sb * y[i] + sc * z[i];
  }
  return EM_OK;
}

/* x^H y (cj) or x^T y, accumulated in double, real arithmetic so the
 * loop vectorises */
static em_cplx FN(dot1)(const em_vec *v, const SC *x, const SC *y, int cj) {
  double sr = 0, si = 0, sgn = cj ? -1 : 1;
#pragma omp parallel for schedule(static) reduction(+ : sr, si) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) {
    double ar = creal(x[i]), ai = sgn * cimag(x[i]), br = creal(y[i]), bi = cimag(y[i]);
    sr += ar * br - ai * bi;
    si += ar * bi + ai * br;
  }
  return sr + I * si;
}

/* out[j] = x_j^H y_j or x_j^T y_j: one synchronisation point for all */
static em_err FN(dots)(em_vec *v, int k, const void *const *xv, const void *const *yv,
                       const int *cj, em_cplx *out) {
  for (int j = 0; j < k; j++) out[j] = FN(dot1)(v, xv[j], yv[j], cj[j]);
  return EM_OK;
}

/* h = V^H w, column by column */
static em_err FN(mdot)(em_vec *v, int k, const void *V, const void *w, em_cplx *h) {
  for (int j = 0; j < k; j++) h[j] = FN(dot1)(v, em_vec_col(v, (void *)V, j), w, 1);
  return EM_OK;
}

/* w = alpha V h + beta w, one pass over w */
static em_err FN(gemv)(em_vec *v, int k, em_cplx alpha, const void *Vv, const em_cplx *h,
                       em_cplx beta, void *wv) {
  const SC *V = Vv;
  SC *w = wv;
  size_t n = (size_t)v->n;
#pragma omp parallel for schedule(static) if (v->n > PAR_MIN)
  for (int32_t i = 0; i < v->n; i++) {
    em_cplx s = 0;
    for (int j = 0; j < k; j++) s += (em_cplx)V[(size_t)j * n + (size_t)i] * h[j];
    w[i] = (SC)(alpha * s + (beta == 0 ? 0 : beta * (em_cplx)w[i]));
  }
  return EM_OK;
}
