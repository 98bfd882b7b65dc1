/* hyb_place.c - hand the arrays a builder made on the host over to the
 * backend: kept as they are on the CPU, uploaded (and freed) for CUDA, values
 * converted to single precision where asked. */
#include "hyb_impl.h"

/* CPU: *dst = *h.  CUDA: *dst = upload(*h), free(*h). */
em_err em_fmt_place(void **h, size_t bytes, em_backend b, void **dst, const char *what) {
  *dst = NULL;
  if (b == EM_BACKEND_CPU) {
    *dst = *h;
    *h = NULL;
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  em_err err = em_fmt_dev_upload(dst, *h, bytes, what);
  em_free(h);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
#else
  (void)bytes;
  em_free(h);
  return EM_RAISE(EM_ERR_UNSUPPORTED, "%s: the CUDA backend is not built in", what);
#endif
}

/* Values: as em_fmt_place, converted to em_cplxf when p is single. */
em_err em_fmt_place_vals(em_cplx **h, size_t n, em_prec p, em_backend b, void **dst,
                         const char *what) {
  *dst = NULL;
  if (b == EM_BACKEND_CPU && p == EM_PREC_DOUBLE) return em_fmt_place((void **)h, 0, b, dst, what);
  if (b == EM_BACKEND_CPU) {
    em_cplxf *s = NULL;
    em_err err = em_calloc(&s, n, sizeof *s, what);
    if (!err)
      for (size_t k = 0; k < n; k++) s[k] = (em_cplxf)(*h)[k];
    em_free(h);
    if (err) return em_error_trace(err, __FILE__, __LINE__);
    *dst = s;
    return EM_OK;
  }
#ifdef EM_HAVE_CUDA
  em_err err = em_fmt_dev_upload_vals(dst, *h, n, p, what);
  em_free(h);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
#else
  em_free(h);
  return EM_RAISE(EM_ERR_UNSUPPORTED, "%s: the CUDA backend is not built in", what);
#endif
}

/* em_free on the CPU, cudaFree on CUDA. */
void em_fmt_release(void **p, em_backend b) {
  if (b == EM_BACKEND_CPU) {
    em_free(p);
    return;
  }
#ifdef EM_HAVE_CUDA
  em_fmt_dev_free(p);
#else
  *p = NULL;
#endif
}
