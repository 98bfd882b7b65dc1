/* bench_matrix.c - a benchmark's --matrix FILE, Matrix Market or an emsolve
 * system file, told apart by the first bytes (the Matrix Market banner). */
#include "bench_matrix.h"

em_err bench_load_matrix(const char *path, em_csr **A, em_blockmat **B, int *n_rhs, em_cplx **rhs) {
  *A = NULL;
  if (B) *B = NULL;
  if (n_rhs) *n_rhs = 0;
  if (rhs) *rhs = NULL;
  if (em_mtx_is_file(path)) {
    EM_TRY(em_mtx_read(path, A, NULL));
    return EM_OK;
  }
  em_blockmat *M = NULL;
  EM_TRY(em_matfile_read(path, &M, n_rhs, rhs));
  em_err err = em_blockmat_to_csr(M, A);
  if (err || !B)
    em_blockmat_destroy(&M);
  else
    *B = M;
  if (err && rhs) em_free(rhs);
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}
