/* spmm.c - the multi-vector product front end: Y = A X for k vectors,
 * cut into groups of at most EM_SPMM_GROUP columns for the format's
 * multi-vector kernel (which reads the matrix once per group), or k SpMVs
 * where the format has none; and the operator's multi-vector apply.
 *
 * Why a group reads the matrix once: an SpMV of an order-3 FEM matrix moves
 * about 20 bytes per entry (value and column) and gathers x from cache; k
 * products of one matrix move 20 k bytes per entry, one SpMM 20 bytes plus
 * the k gathers (bench/spmm_bench.c measures the gain). */
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

em_err em_operator_apply_multi(const em_operator *op, int k, const void *const *x, void *const *y) {
  EM_CHECK(op && op->apply && k >= 0, EM_ERR_ARG,
           "em_operator_apply_multi: no operator or %d vectors", k);
  if (k == 0) return EM_OK;
  if (op->apply_multi) return op->apply_multi(op->ctx, k, x, y);
  for (int j = 0; j < k; j++) EM_TRY(op->apply(op->ctx, x[j], y[j]));
  return EM_OK;
}
