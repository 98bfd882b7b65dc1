/* part.c - k-way partitioning through METIS_PartGraphKway: the parts of a
 * distributed solve (issue 27).  Vertices weighted (e.g. the unknowns of a
 * tet), edge cut minimised, parts balanced to METIS's default 3 %. */
#include <metis.h>

#include "em_graph.h"

em_err em_graph_partition(int32_t n, const int64_t *ptr, const int32_t *adj, const int32_t *vwgt,
                          int nparts, int32_t *part) {
  EM_CHECK(nparts >= 1, EM_ERR_ARG, "partition into %d parts", nparts);
  if (n == 0) return EM_OK;
  if (nparts == 1) { /* METIS refuses one part */
    for (int32_t i = 0; i < n; i++) part[i] = 0;
    return EM_OK;
  }
  em_err err = EM_OK;
  idx_t nv = n, ncon = 1, np = nparts, cut = 0;
  idx_t *xadj = NULL, *adjncy = NULL, *w = NULL, *mpart = NULL;
  EM_TRY(em_calloc(&xadj, (size_t)n + 1, sizeof *xadj, "METIS graph"));
  EM_TRY_GOTO(err, em_calloc(&adjncy, (size_t)ptr[n] + 1, sizeof *adjncy, "METIS graph"), done);
  EM_TRY_GOTO(err, em_calloc(&mpart, (size_t)n, sizeof *mpart, "METIS parts"), done);
  if (vwgt) {
    EM_TRY_GOTO(err, em_calloc(&w, (size_t)n, sizeof *w, "METIS weights"), done);
    for (int32_t i = 0; i < n; i++) w[i] = vwgt[i] > 0 ? vwgt[i] : 1; /* METIS wants > 0 */
  }
  idx_t k = 0; /* no self loops */
  for (int32_t i = 0; i < n; i++) {
    xadj[i] = k;
    for (int64_t q = ptr[i]; q < ptr[i + 1]; q++)
      if (adj[q] != i) adjncy[k++] = adj[q];
  }
  xadj[n] = k;
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  opts[METIS_OPTION_SEED] = 1; /* the same parts on every rank and every run */
  int st = METIS_PartGraphKway(&nv, &ncon, xadj, adjncy, w, NULL, NULL, &np, NULL, NULL, opts, &cut,
                               mpart);
  if (st != METIS_OK) {
    err = EM_RAISE(st == METIS_ERROR_MEMORY ? EM_ERR_MEMORY : EM_ERR_INTERNAL,
                   "METIS_PartGraphKway failed with status %d (%d vertices, %d parts)", st, n,
                   nparts);
    goto done;
  }
  for (int32_t i = 0; i < n; i++) part[i] = (int32_t)mpart[i];
done:
  em_free(&xadj);
  em_free(&adjncy);
  em_free(&w);
  em_free(&mpart);
  return err;
}
