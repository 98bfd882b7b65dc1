/* sellrt_sort.c - the row permutation of sliced ELLR-T: rows by length,
 * longest first, ties in their original order (a counting sort, stable). */
#include "ell_impl.h"

/* perm[old] = new: new position = rows longer than row i + rows of the same
 * length before i. */
em_err em_sellrt_sort_perm(const em_csr *A, int32_t *perm) {
  EM_CHECK(A && perm && A->rowptr, EM_ERR_ARG, "em_sellrt_sort_perm: NULL matrix or perm");
  int32_t n = A->n_rows;
  int64_t longest = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    EM_CHECK(len >= 0, EM_ERR_ARG, "em_sellrt_sort_perm: row pointers decrease at row %d", i);
    if (len > longest) longest = len;
  }
  int64_t *start = NULL; /* start[L] = first new position of the rows of length L */
  EM_TRY(em_calloc(&start, (size_t)longest + 2, sizeof *start, "row-length histogram"));
  for (int32_t i = 0; i < n; i++) start[A->rowptr[i + 1] - A->rowptr[i]]++;
  int64_t pos = 0;
  for (int64_t L = longest; L >= 0; L--) {
    int64_t c = start[L];
    start[L] = pos;
    pos += c;
  }
  for (int32_t i = 0; i < n; i++) perm[i] = (int32_t)start[A->rowptr[i + 1] - A->rowptr[i]]++;
  em_free(&start);
  return EM_OK;
}
