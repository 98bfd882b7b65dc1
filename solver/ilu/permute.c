/* permute.c - B = P A P^T for the ILU analysis, rows in parallel: the
 * serial em_csr_permute of core/ takes seconds on an order-3 system of a
 * million rows, and the analysis runs once per preconditioner. */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ilu_impl.h"

/* (new column, source position) of one entry */
typedef struct perm_pair {
  int32_t c;
  int64_t k;
} perm_pair;

static int pair_cmp(const void *a, const void *b) {
  int32_t x = ((const perm_pair *)a)->c, y = ((const perm_pair *)b)->c;
  return (x > y) - (x < y);
}

/* sort p[0..m) by column: insertion for short rows, qsort for long ones */
static void sort_pairs(perm_pair *p, int64_t m) {
  if (m > 32) {
    qsort(p, (size_t)m, sizeof *p, pair_cmp);
    return;
  }
  for (int64_t a = 1; a < m; a++) {
    perm_pair x = p[a];
    int64_t b = a - 1;
    while (b >= 0 && p[b].c > x.c) {
      p[b + 1] = p[b];
      b--;
    }
    p[b + 1] = x;
  }
}

em_err em_ilu0_permute(const em_csr *A, const int32_t *perm, const int32_t *iperm, em_csr **out) {
  int32_t n = A->n_rows;
  int64_t longest = 0;
  em_csr *B = NULL;
  perm_pair *buf = NULL;
  *out = NULL;
  for (int32_t i = 0; i < n; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > longest) longest = A->rowptr[i + 1] - A->rowptr[i];
#ifdef _OPENMP
  int nt = omp_get_max_threads();
#else
  int nt = 1;
#endif
  EM_TRY(em_csr_create(n, n, A->nnz, &B));
  em_err err = em_calloc(&buf, (size_t)nt * (size_t)longest + 1, sizeof *buf, "row sort buffers");
  if (err) {
    em_csr_destroy(&B);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  for (int32_t t = 0; t < n; t++) /* new row t is old row iperm[t] */
    B->rowptr[t + 1] = B->rowptr[t] + A->rowptr[iperm[t] + 1] - A->rowptr[iperm[t]];
#pragma omp parallel if (n > 4096)
  {
#ifdef _OPENMP
    perm_pair *p = buf + (size_t)omp_get_thread_num() * (size_t)longest;
#else
    perm_pair *p = buf;
#endif
#pragma omp for schedule(dynamic, 256)
    for (int32_t t = 0; t < n; t++) {
      int32_t i = iperm[t];
      int64_t b = A->rowptr[i], m = A->rowptr[i + 1] - b, q = B->rowptr[t];
      for (int64_t k = 0; k < m; k++) p[k] = (perm_pair){perm[A->colind[b + k]], b + k};
      sort_pairs(p, m);
      for (int64_t k = 0; k < m; k++) {
        B->colind[q + k] = p[k].c;
        B->val[q + k] = A->val[p[k].k];
      }
    }
  }
  em_free(&buf);
  *out = B;
  return EM_OK;
}
