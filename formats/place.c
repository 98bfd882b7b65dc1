/* place.c - hand the arrays a builder made on the host over to the matrix's
 * backend: kept as they are on the host, copied (and freed) elsewhere,
 * values converted to single precision where asked. */
#include "formats_impl.h"

/* host: *dst = *h.  Otherwise: *dst = copy(*h), free(*h). */
em_err em_fmt_place(const em_spmat *M, void *h, size_t bytes, void *dst, const char *what) {
  void **hp = (void **)h, **dp = (void **)dst;
  *dp = NULL;
  if (M->be->host) {
    *dp = *hp;
    *hp = NULL;
    return EM_OK;
  }
  em_err err = M->be->copy(dp, *hp, bytes, what);
  em_free(hp);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* Values: as em_fmt_place when they stay complex double on the host, else
 * converted / copied by the backend and freed. */
em_err em_fmt_place_vals(const em_spmat *M, em_cplx **h, size_t n, void *dst, const char *what) {
  void **dp = (void **)dst;
  *dp = NULL;
  if (M->be->host && M->info.prec == EM_PREC_DOUBLE) return em_fmt_place(M, h, 0, dst, what);
  em_err err = M->be->copy_vals(dp, *h, n, M->info.prec, what);
  em_free(h);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
