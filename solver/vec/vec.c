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
