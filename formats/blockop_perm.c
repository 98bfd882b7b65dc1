/* blockop_perm.c - the symmetric permutation the block formats want: rows
 * sorted by length inside each order group whose block row holds a sliced
 * ELLR-T block, identity elsewhere.
 *
 * One permutation per group serves all blocks of its block row (rows) and
 * of its block column (columns), so each group can be sorted by one key
 * only.  The key of row r of group i is the sum of its lengths in the
 * sliced blocks of block row i: with one sliced block that is exactly its
 * own row length (least padding for it); with several, FEM row lengths in
 * the blocks of one row are nearly proportional (each is the number of
 * elements around the DOF's entity times the DOFs per element of group j),
 * so the sum orders each of them almost as its own length would.  For
 * EM_BLOCKOP_ONE_MATRIX with a sliced whole, the key is the whole row's
 * length, still sorted within each group (DOFs never leave their group);
 * for EM_BLOCKOP_ROWS with a sliced block row, its row length.
 * Longest first, ties in the original order (stable), as em_sellrt_sort_perm.
 * Whether a block "is sliced" is judged on its padding once sorted
 * (em_fmt_choose_sliced_sorted): the given order may pad badly, which is
 * what this sort removes, and em_fmt_choose then picks sliced ELLR-T on the
 * sorted result (the length histogram is unchanged by the permutation). */
#include <string.h>

#include "blockop_impl.h"

/* Would block A (options o, format f) be stored as sliced ELLR-T? */
static int blockop_is_sliced(const em_csr *A, const em_blockop_opts *o, em_format f, int T) {
  if (A->nnz == 0) return 0;
  if (f != EM_FMT_AUTO) return f == EM_FMT_SELLRT;
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.backend = o->backend;
  so.prec = o->prec;
  so.threads_per_row = T;
  /* the sort below is what makes the given order pad little */
  return em_fmt_choose_sliced_sorted(A, &so);
}

/* perm[offset + r] = offset + (rank of row r by key, descending, stable):
 * a counting sort on the key. */
static em_err blockop_sort_group(int32_t offset, int32_t n, const int64_t *key, int32_t *perm) {
  int64_t kmax = 0;
  for (int32_t r = 0; r < n; r++)
    if (key[r] > kmax) kmax = key[r];
  int64_t *start = NULL; /* start[kmax - k] = first rank of key k */
  EM_TRY(em_calloc(&start, (size_t)kmax + 2, sizeof *start, "row-length sort buckets"));
  for (int32_t r = 0; r < n; r++) start[kmax - key[r] + 1]++;
  for (int64_t b = 0; b <= kmax; b++) start[b + 1] += start[b];
  for (int32_t r = 0; r < n; r++) perm[offset + r] = offset + (int32_t)start[kmax - key[r]]++;
  em_free(&start);
  return EM_OK;
}

/* perm = identity, then each group with a sliced block in its block row
 * sorted by its key (file comment). */
em_err em_blockop_plan_perm(const em_blockmat *B, const em_blockop_opts *o, int32_t *perm) {
  EM_CHECK(B && o && perm, EM_ERR_ARG, "em_blockop_plan_perm: NULL argument");
  EM_CHECK(B->nb >= 1 && B->nb <= EM_MAX_ORDER, EM_ERR_ARG,
           "em_blockop_plan_perm: %d order groups, not 1..%d", B->nb, EM_MAX_ORDER);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++)
      EM_CHECK(B->blk[i][j] && B->blk[i][j]->n_rows == B->offset[i + 1] - B->offset[i], EM_ERR_ARG,
               "em_blockop_plan_perm: block A_%d%d is missing or does not match its group", i + 1,
               j + 1);
  em_err err = EM_OK;
  int64_t *key = NULL;
  em_csr *whole = NULL;
  int32_t n = B->offset[B->nb];
  for (int32_t r = 0; r < n; r++) perm[r] = r;
  int whole_sliced = 0;
  if (o->mode == EM_BLOCKOP_ONE_MATRIX) {
    EM_TRY_GOTO(err, em_blockmat_to_csr(B, &whole), done);
    whole_sliced = blockop_is_sliced(whole, o, o->whole_format, 0);
  }
  EM_TRY_GOTO(err, em_calloc(&key, (size_t)n, sizeof *key, "row-length sort keys"), done);
  for (int i = 0; i < B->nb; i++) {
    int32_t rows = B->offset[i + 1] - B->offset[i];
    int any = 0;
    memset(key, 0, (size_t)rows * sizeof *key);
    int row_sliced = 0;
    if (o->mode == EM_BLOCKOP_ROWS) {
      em_csr *row = NULL;
      EM_TRY_GOTO(err, em_blockop_row_csr(B, i, &row), done);
      row_sliced = blockop_is_sliced(row, o, o->format[i][0], o->threads_per_row[i][0]);
      em_csr_destroy(&row);
    }
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      int sliced = o->mode == EM_BLOCKOP_ROWS ? row_sliced
                   : o->mode == EM_BLOCKOP_ONE_MATRIX
                       ? whole_sliced
                       : blockop_is_sliced(A, o, o->format[i][j], o->threads_per_row[i][j]);
      if (!sliced) continue;
      any = 1;
      for (int32_t r = 0; r < rows; r++) key[r] += A->rowptr[r + 1] - A->rowptr[r];
    }
    if (any) EM_TRY_GOTO(err, blockop_sort_group(B->offset[i], rows, key, perm), done);
  }
done:
  em_free(&key);
  em_csr_destroy(&whole);
  return err;
}
