/* nd.c - nested dissection through METIS_NodeND: the fill-reducing
 * ordering of the sparse direct factorization.  perm[old] = new. */
#include <metis.h>

#include "em_graph.h"

em_err em_order_nd(int32_t n, const int64_t *ptr, const int32_t *adj, int32_t *perm) {
  if (n == 0) return EM_OK;
  em_err err = EM_OK;
  idx_t nv = n, *xadj = NULL, *adjncy = NULL, *mperm = NULL, *iperm = NULL;
  EM_TRY(em_calloc(&xadj, (size_t)n + 1, sizeof *xadj, "METIS graph"));
  EM_TRY_GOTO(err, em_calloc(&adjncy, (size_t)ptr[n], sizeof *adjncy, "METIS graph"), done);
  EM_TRY_GOTO(err, em_calloc(&mperm, (size_t)n, sizeof *mperm, "METIS permutation"), done);
  EM_TRY_GOTO(err, em_calloc(&iperm, (size_t)n, sizeof *iperm, "METIS permutation"), done);
  /* METIS wants no self loops */
  idx_t w = 0;
  for (int32_t i = 0; i < n; i++) {
    xadj[i] = w;
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++)
      if (adj[k] != i) adjncy[w++] = adj[k];
  }
  xadj[n] = w;
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  int st = METIS_NodeND(&nv, xadj, adjncy, NULL, opts, mperm, iperm);
  if (st != METIS_OK) {
    err = EM_RAISE(st == METIS_ERROR_MEMORY ? EM_ERR_MEMORY : EM_ERR_INTERNAL,
                   "METIS_NodeND failed with status %d on a graph of %d vertices", st, n);
    goto done;
  }
  /* METIS: A' = A(perm, perm), i.e. perm[new] = old and iperm[old] = new */
  for (int32_t i = 0; i < n; i++) perm[i] = (int32_t)iperm[i];
done:
  em_free(&xadj);
  em_free(&adjncy);
  em_free(&mperm);
  em_free(&iperm);
  return err;
}
