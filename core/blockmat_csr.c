/* blockmat_csr.c - the nine blocks into one permuted CSR and back, one
 * block at a time: the solver's host copy of a large system without a
 * second whole copy beside it (issue 25: at 20M unknowns each copy of
 * the matrix is ~60 GB of the host's 128 GiB). */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "em_core.h"

/* B = A(r0:r1, c0:c1) with columns rebased to c0; A's rows sorted, so each
 * row's columns in range are one segment (found by bisection). */
em_err em_csr_block(const em_csr *A, int32_t r0, int32_t r1, int32_t c0, int32_t c1,
                    em_csr **Bout) {
  EM_CHECK(
      A && Bout && 0 <= r0 && r0 <= r1 && r1 <= A->n_rows && 0 <= c0 && c0 <= c1 && c1 <= A->n_cols,
      EM_ERR_ARG, "em_csr_block: rows %d..%d, columns %d..%d of a %d x %d matrix", r0, r1, c0, c1,
      A ? A->n_rows : 0, A ? A->n_cols : 0);
  int32_t m = r1 - r0;
  int64_t *lo = NULL;
  em_csr *B = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&lo, (size_t)m + 1, sizeof *lo, "block rows"));
  EM_TRY_GOTO(err, em_csr_create(m, c1 - c0, 0, &B), done);
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t r = 0; r < m; r++) {
    int64_t a = A->rowptr[r0 + r], b = A->rowptr[r0 + r + 1], x = a, y = b;
    while (x < y) { /* first column >= c0 */
      int64_t h = x + (y - x) / 2;
      if (A->colind[h] < c0)
        x = h + 1;
      else
        y = h;
    }
    int64_t s = x;
    y = b;
    while (x < y) { /* first column >= c1 */
      int64_t h = x + (y - x) / 2;
      if (A->colind[h] < c1)
        x = h + 1;
      else
        y = h;
    }
    lo[r] = s;
    B->rowptr[r + 1] = x - s;
  }
  for (int32_t r = 0; r < m; r++) B->rowptr[r + 1] += B->rowptr[r];
  B->nnz = B->rowptr[m];
  em_free(&B->colind); /* made for 0 entries: now the count is known */
  em_free(&B->val);
  EM_TRY_GOTO(err, em_calloc(&B->colind, (size_t)B->nnz + 1, sizeof *B->colind, "block"), done);
  EM_TRY_GOTO(err, em_calloc(&B->val, (size_t)B->nnz + 1, sizeof *B->val, "block"), done);
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t r = 0; r < m; r++) {
    int64_t q = B->rowptr[r], len = B->rowptr[r + 1] - q;
    for (int64_t k = 0; k < len; k++) B->colind[q + k] = A->colind[lo[r] + k] - c0;
    if (len) memcpy(B->val + q, A->val + lo[r], (size_t)len * sizeof *B->val);
  }
  *Bout = B;
  B = NULL;
done:
  em_csr_destroy(&B);
  em_free(&lo);
  return err;
}

static int group_of(const em_blockmat *B, int32_t i) {
  int g = 0;
  while (g + 1 < B->nb && i >= B->offset[g + 1]) g++;
  return g;
}

/* perm keeps every DOF in its group; local[i] = perm[i] - offset(group i). */
static em_err local_perm(const em_blockmat *B, const int32_t *perm, int32_t **local) {
  int32_t n = B->offset[B->nb];
  for (int32_t i = 0; i < n; i++) {
    int g = group_of(B, i);
    EM_CHECK(perm[i] >= B->offset[g] && perm[i] < B->offset[g + 1], EM_ERR_ARG,
             "permutation moves DOF %d out of its order group %d", i, g + 1);
  }
  EM_TRY(em_calloc(local, (size_t)n + 1, sizeof **local, "local permutation"));
  for (int32_t i = 0; i < n; i++) (*local)[i] = perm[i] - B->offset[group_of(B, i)];
  return EM_OK;
}

/* Block (i, j) into A's rows of group i: new row p of the group is old
 * row inv[p] of the block; its entries as keys (new column << 32 |
 * position in the row), sorted, give the columns in order and the source
 * of each value; written at the cursor cur[p] (advanced past the segment),
 * straight from B_ij without a permuted copy of the block.  With src the
 * gather map is kept: A->val[q] = B_ij->val[src[q]] (the block of entry q
 * is its row's and its column's groups); pattern: write the columns too
 * (the first fill); values 0: the columns (and src) alone. */
static em_err fill_block(const em_blockmat *B, int i, int j, const int32_t *local,
                         const int32_t *inv, em_csr *A, int64_t *cur, int64_t *src, int pattern,
                         int values) {
  const em_csr *M = B->blk[i][j];
  if (M->nnz == 0) return EM_OK;
  int32_t rows = M->n_rows, cj = B->offset[j];
  const int32_t *lc = local + cj;
  int64_t longest = 0;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
#pragma omp parallel for reduction(max : longest) if (rows > 10000)
  for (int32_t r = 0; r < rows; r++)
    if (M->rowptr[r + 1] - M->rowptr[r] > longest) longest = M->rowptr[r + 1] - M->rowptr[r];
  uint64_t *buf = NULL;
  EM_TRY(em_calloc(&buf, (size_t)nt * (size_t)(longest + 1), sizeof *buf, "row sort keys"));
#pragma omp parallel if (rows > 10000)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    uint64_t *key = buf + (size_t)t * (size_t)(longest + 1);
#pragma omp for schedule(dynamic, 1024)
    for (int32_t p = 0; p < rows; p++) {
      int32_t r = inv[p];
      int64_t b = M->rowptr[r], len = M->rowptr[r + 1] - b, d = cur[p];
      for (int64_t k = 0; k < len; k++) key[k] = (uint64_t)lc[M->colind[b + k]] << 32 | (uint64_t)k;
      int sorted = 1;
      for (int64_t k = 1; k < len && sorted; k++) sorted = key[k - 1] < key[k];
      if (!sorted) em_sort_u64(key, len);
      for (int64_t k = 0; k < len; k++) {
        int64_t q = b + (int64_t)(key[k] & 0xffffffffu);
        if (pattern) A->colind[d + k] = (int32_t)(key[k] >> 32) + cj;
        if (values) A->val[d + k] = M->val[q];
        if (src) src[d + k] = q;
      }
      cur[p] = d + len;
    }
  }
  em_free(&buf);
  return EM_OK;
}

/* A later matrix's values through the gather map: group by group, its
 * rows in parallel, each entry's block found by its column (the groups'
 * columns rise within a row), sequential writes; consume: the group's
 * blocks freed once its rows are done. */
static void gather_values(em_blockmat *B, int consume, em_csr *A, const int64_t *src) {
  for (int i = 0; i < B->nb; i++) {
    int32_t o = B->offset[i], rows = B->offset[i + 1] - o;
#pragma omp parallel for schedule(dynamic, 1024) if (rows > 10000)
    for (int32_t r = o; r < o + rows; r++) {
      int j = 0;
      for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
        while (j + 1 < B->nb && A->colind[k] >= B->offset[j + 1]) j++;
        A->val[k] = B->blk[i][j]->val[src[k]];
      }
    }
    if (consume)
      for (int j = 0; j < B->nb; j++) em_csr_destroy(&B->blk[i][j]); /* B destroyed after */
  }
}

/* The permutation's tables: local[i] = perm[i] - offset(group i), and
 * inv[p] = the old row, local to its group, of new row p. */
static em_err perm_tables(const em_blockmat *B, const int32_t *perm, int32_t **local,
                          int32_t **inv) {
  int32_t n = B->offset[B->nb];
  EM_TRY(local_perm(B, perm, local));
  em_err err = em_calloc(inv, (size_t)n + 1, sizeof **inv, "inverse permutation");
  if (err) {
    em_free(local);
    return err;
  }
  for (int g = 0; g < B->nb; g++)
    for (int32_t r = B->offset[g]; r < B->offset[g + 1]; r++)
      (*inv)[B->offset[g] + (*local)[r]] = r - B->offset[g];
  return EM_OK;
}

/* A = P B P^T as one CSR through the tables (first: the pattern and the
 * values (values 0: not these), src (or NULL) the gather map; else the
 * values into A's pattern).  Group by group, block by block; consume: each
 * block of B is freed once copied. */
static em_err permute_csr(em_blockmat *B, const int32_t *local, const int32_t *inv, int consume,
                          em_csr *A, int first, int values, int64_t *src) {
  int64_t *cur = NULL;
  EM_TRY(em_calloc(&cur, (size_t)A->n_rows + 1, sizeof *cur, "row cursors"));
  em_err err = EM_OK;
  for (int i = 0; i < B->nb && !err; i++) {
    int32_t o = B->offset[i], rows = B->offset[i + 1] - o;
    for (int32_t r = 0; r < rows; r++) cur[r] = A->rowptr[o + r];
    for (int j = 0; j < B->nb && !err; j++) {
      err = fill_block(B, i, j, local, inv + o, A, cur, first ? src : NULL, first, values);
      if (!err && consume) em_csr_destroy(&B->blk[i][j]); /* B is only destroyed after */
    }
  }
  em_free(&cur);
  return err;
}

/* em_blockmat_permute_csr, em_blockmat_permute_pattern (values 0) */
static em_err permute_first(em_blockmat *B, const int32_t *perm, int consume, em_csr **Aout,
                            int64_t **src, int values) {
  EM_CHECK(B && perm && Aout, EM_ERR_ARG, "em_blockmat_permute_csr: NULL argument");
  *Aout = NULL;
  int32_t n = B->offset[B->nb], *local = NULL, *inv = NULL;
  int64_t nnz = 0;
  em_csr *A = NULL;
  em_err err = EM_OK;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) nnz += B->blk[i][j]->nnz;
  EM_TRY(perm_tables(B, perm, &local, &inv));
  /* the arrays are reserved here but only touched block row by block row
     while B's blocks are freed (consume): calloc's pages come on use */
  EM_TRY_GOTO(err, em_csr_create(n, n, nnz, &A), done);
  for (int g = 0; g < B->nb; g++)
    for (int32_t p = B->offset[g]; p < B->offset[g + 1]; p++) {
      int32_t r = inv[p];
      int64_t len = 0;
      for (int j = 0; j < B->nb; j++) len += B->blk[g][j]->rowptr[r + 1] - B->blk[g][j]->rowptr[r];
      A->rowptr[p + 1] = A->rowptr[p] + len;
    }
  if (src) {
    *src = NULL;
    EM_TRY_GOTO(err, em_calloc(src, (size_t)nnz + 1, sizeof **src, "value map"), done);
  }
  EM_TRY_GOTO(err, permute_csr(B, local, inv, consume, A, 1, values, src ? *src : NULL), done);
  *Aout = A;
  A = NULL;
done:
  if (err && src) em_free(src);
  em_csr_destroy(&A);
  em_free(&inv);
  em_free(&local);
  return err;
}

em_err em_blockmat_permute_csr(em_blockmat *B, const int32_t *perm, int consume, em_csr **Aout,
                               int64_t **src) {
  return permute_first(B, perm, consume, Aout, src, 1);
}

em_err em_blockmat_permute_pattern(em_blockmat *B, const int32_t *perm, int consume, em_csr **Aout,
                                   int64_t **src) {
  return permute_first(B, perm, consume, Aout, src, 0);
}

em_err em_blockmat_permute_csr_values(em_blockmat *B, const int32_t *perm, int consume, em_csr *A,
                                      const int64_t *src) {
  EM_CHECK(B && perm && A, EM_ERR_ARG, "em_blockmat_permute_csr_values: NULL argument");
  int64_t nnz = 0;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) nnz += B->blk[i][j]->nnz;
  EM_CHECK(A->n_rows == B->offset[B->nb] && A->nnz == nnz, EM_ERR_ARG,
           "em_blockmat_permute_csr_values: %lld entries in %d rows, the CSR has %lld in %d",
           (long long)nnz, B->offset[B->nb], (long long)A->nnz, A->n_rows);
  if (src) {
    gather_values(B, consume, A, src);
    return EM_OK;
  }
  int32_t *local = NULL, *inv = NULL;
  EM_TRY(perm_tables(B, perm, &local, &inv));
  em_err err = permute_csr(B, local, inv, consume, A, 0, 1, NULL);
  em_free(&inv);
  em_free(&local);
  return err;
}
