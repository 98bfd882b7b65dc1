/* vec.c - creating the vector backend and what every backend shares. */
#include <math.h>

#include "backend_impl.h"
#include "vec_impl.h"

em_err em_vec_create(em_backend backend, em_prec prec, int32_t n, int max_k, em_vec **out) {
  *out = NULL;
  EM_CHECK(n >= 0, EM_ERR_ARG, "vector length %d is negative", n);
  EM_CHECK(max_k >= 1, EM_ERR_ARG, "vector block width %d must be at least 1", max_k);
  EM_CHECK(prec == EM_PREC_DOUBLE || prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "unknown vector precision %d", (int)prec);
  const em_sv_backend *be = NULL;
  EM_TRY(em_sv_backend_get(backend, "vectors", "the CUDA backend", &be));
  em_vec *v = NULL;
  EM_TRY(em_calloc(&v, 1, sizeof *v, "vector backend"));
  v->backend = backend;
  v->prec = prec;
  v->n = n;
  v->elsize = em_prec_size(prec);
  v->max_k = max_k;
  em_err err = be->vec_init(v);
  if (err) {
    em_error_trace(err, __FILE__, __LINE__);
    em_vec_destroy(&v);
    return err;
  }
  *out = v;
  return EM_OK;
}

void em_vec_destroy(em_vec **v) {
  if (!*v) return;
  if ((*v)->ops && (*v)->ops->destroy) (*v)->ops->destroy(*v);
  em_free(v);
}

/* ||x|| = sqrt(Re x^H x): one fused reduction, no separate nrm2 kernel */
em_err em_vec_norm(em_vec *v, const void *x, double *nrm) {
  em_cplx d;
  EM_TRY(em_vec_dot(v, 1, x, x, &d));
  *nrm = sqrt(fabs(creal(d)));
  return EM_OK;
}

em_err em_vec_cdots(em_vec *v, int m, int k, const void *const *x, const void *const *y,
                    const int *conj, em_cplx *out) {
  EM_CHECK(m >= 0 && k >= 1 && k <= EM_VEC_MAX_DOTS, EM_ERR_INTERNAL,
           "%d sets of %d fused dot products", m, k);
  for (int j = 0; j < m;) {
    int g = m - j < EM_VEC_MAX_COLS ? m - j : EM_VEC_MAX_COLS;
    size_t o = (size_t)j * (size_t)k;
    if (v->ops->cdots)
      EM_TRY(v->ops->cdots(v, g, k, x + o, y + o, conj, out + o));
    else
      for (int q = 0; q < g; q++) {
        size_t p = o + (size_t)q * (size_t)k;
        EM_TRY(v->ops->dots(v, k, x + p, y + p, conj, out + p));
      }
    j += g;
  }
  return EM_OK;
}

em_err em_vec_caxpby(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                     void *const *y) {
  for (int j = 0; j < m;) {
    int g = m - j < EM_VEC_MAX_COLS ? m - j : EM_VEC_MAX_COLS;
    if (v->ops->caxpby)
      EM_TRY(v->ops->caxpby(v, g, a + j, x + j, b + j, y + j));
    else
      for (int q = j; q < j + g; q++) EM_TRY(v->ops->axpby(v, a[q], x[q], b[q], y[q]));
    j += g;
  }
  return EM_OK;
}

em_err em_vec_caxpbypcz(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                        const void *const *y, const em_cplx *c, void *const *z) {
  for (int j = 0; j < m;) {
    int g = m - j < EM_VEC_MAX_COLS ? m - j : EM_VEC_MAX_COLS;
    if (v->ops->caxpbypcz)
      EM_TRY(v->ops->caxpbypcz(v, g, a + j, x + j, b + j, y + j, c + j, z + j));
    else
      for (int q = j; q < j + g; q++)
        EM_TRY(v->ops->axpbypcz(v, a[q], x[q], b[q], y[q], c[q], z[q]));
    j += g;
  }
  return EM_OK;
}

/* the norms as em_vec_norm computes them: sqrt |Re x^H x| */
em_err em_vec_cnorms(em_vec *v, int m, const void *const *x, double *nrm) {
  em_cplx d[EM_VEC_MAX_COLS];
  int conj[1] = {1};
  for (int j = 0; j < m;) {
    int g = m - j < EM_VEC_MAX_COLS ? m - j : EM_VEC_MAX_COLS;
    EM_TRY(em_vec_cdots(v, g, 1, x + j, x + j, conj, d));
    for (int q = 0; q < g; q++) nrm[j + q] = sqrt(fabs(creal(d[q])));
    j += g;
  }
  return EM_OK;
}
