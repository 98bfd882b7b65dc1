/* spmm.c - the multi-vector product front end: Y = A X for k vectors,
 * cut into groups of at most EM_SPMM_GROUP columns for the format's
 * multi-vector kernel (which reads the matrix once per group), or k SpMVs
 * where the format has none; and the operator's multi-vector apply.
 *
 * Why a group reads the matrix once: an SpMV of an order-3 FEM matrix moves
 * about 20 bytes per entry (value and column) and gathers x from cache; k
 * products of one matrix move 20 k bytes per entry, one SpMM 20 bytes plus
 * the k gathers (bench/spmm_bench.c measures the gain).  The k gathers
 * of an entry hit k cache sectors when x is k columns, one or two when x
 * is interleaved (em_vecs_interleave, em_spmat_spmm_il): what a caller
 * with several products of one x (the block operator) packs once. */
#include <string.h>

#include "formats_impl.h"

int em_spmat_has_spmm(const em_spmat *M) {
  return M && M->ops->spmm != NULL;
}

em_err em_spmat_spmm(const em_spmat *M, int k, const void *const *x, void *const *y, int accumulate,
                     void *stream) {
  EM_CHECK(M && k >= 0 && ((x && y) || k == 0), EM_ERR_ARG,
           "em_spmat_spmm: NULL matrix or vector list, or %d vectors", k);
  for (int j = 0; j < k; j++) {
    EM_CHECK((x[j] || M->info.n_cols == 0) && (y[j] || M->info.n_rows == 0), EM_ERR_ARG,
             "em_spmat_spmm: vector %d of %d is NULL", j, k);
    for (int i = 0; i < j && M->info.n_rows > 0; i++)
      EM_CHECK(y[i] != y[j], EM_ERR_ARG, "em_spmat_spmm: outputs %d and %d are the same vector", i,
               j);
  }
  if (!M->ops->spmm) {
    for (int j = 0; j < k; j++) EM_TRY(M->ops->spmv(M, x[j], y[j], accumulate, stream));
    return EM_OK;
  }
  for (int j = 0; j < k; j += EM_SPMM_GROUP) {
    int g = k - j < EM_SPMM_GROUP ? k - j : EM_SPMM_GROUP;
    EM_TRY(M->ops->spmm(M, g, x + j, y + j, accumulate, stream));
  }
  return EM_OK;
}

int em_spmat_has_spmm_il(const em_spmat *M) {
  return M && M->ops->spmm_il != NULL;
}

/* xi[c k + j] = x[j][c] on the host (one pass over the rows). */
em_err em_fmt_cpu_interleave(em_prec p, int32_t n, int k, const void *const *x, void *xi,
                             void *stream) {
  (void)stream;
  size_t e = em_prec_size(p);
  char *o = (char *)xi;
  for (int32_t c = 0; c < n; c++)
    for (int j = 0; j < k; j++, o += e) memcpy(o, (const char *)x[j] + (size_t)c * e, e);
  return EM_OK;
}

em_err em_vecs_interleave(em_backend be, em_prec p, int32_t n, int k, const void *const *x,
                          void *xi, void *stream) {
  EM_CHECK(n >= 0 && k >= 1 && k <= EM_SPMM_GROUP && x && (xi || n == 0), EM_ERR_ARG,
           "em_vecs_interleave: %d vectors of length %d (1..%d vectors, a NULL block?)", k, n,
           EM_SPMM_GROUP);
  EM_CHECK(p == EM_PREC_DOUBLE || p == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_vecs_interleave: unknown precision %d", (int)p);
  for (int j = 0; j < k; j++)
    EM_CHECK(x[j] || n == 0, EM_ERR_ARG, "em_vecs_interleave: vector %d of %d is NULL", j, k);
  const em_fmt_backend *b = em_fmt_backend_of(be);
  EM_CHECK(b, EM_ERR_UNSUPPORTED, "em_vecs_interleave: the CUDA backend in a build without CUDA");
  if (n == 0) return EM_OK;
  return b->interleave(p, n, k, x, xi, stream);
}

em_err em_spmat_spmm_il(const em_spmat *M, int k, const void *const *x, const void *xi,
                        void *const *y, int accumulate, void *stream) {
  if (!xi || !M || !M->ops->spmm_il || k < 2) return em_spmat_spmm(M, k, x, y, accumulate, stream);
  EM_CHECK(k <= EM_SPMM_GROUP && x && y, EM_ERR_ARG,
           "em_spmat_spmm_il: %d vectors (2..%d with an interleaved block)", k, EM_SPMM_GROUP);
  for (int j = 0; j < k; j++) {
    EM_CHECK((x[j] || M->info.n_cols == 0) && (y[j] || M->info.n_rows == 0), EM_ERR_ARG,
             "em_spmat_spmm_il: vector %d of %d is NULL", j, k);
    for (int i = 0; i < j && M->info.n_rows > 0; i++)
      EM_CHECK(y[i] != y[j], EM_ERR_ARG, "em_spmat_spmm_il: outputs %d and %d are the same vector",
               i, j);
  }
  return M->ops->spmm_il(M, k, x, xi, y, accumulate, stream);
}

em_err em_operator_apply_multi(const em_operator *op, int k, const void *const *x, void *const *y) {
  EM_CHECK(op && op->apply && k >= 0, EM_ERR_ARG,
           "em_operator_apply_multi: no operator or %d vectors", k);
  if (k == 0) return EM_OK;
  if (op->apply_multi) return op->apply_multi(op->ctx, k, x, y);
  for (int j = 0; j < k; j++) EM_TRY(op->apply(op->ctx, x[j], y[j]));
  return EM_OK;
}
