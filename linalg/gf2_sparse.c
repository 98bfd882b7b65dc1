/* gf2_sparse.c - rank of a sparse matrix over GF(2) by column reduction,
 * and the dense bit matrix of a sparse one.
 *
 * Column reduction (the standard algorithm of persistent homology, Edelsbrunner,
 * Letscher & Zomorodian 2002): low(c) is the largest row index of column
 * c.  Columns are taken in order; while low(c) is the low of an earlier
 * reduced column k, c += k (mod 2: the symmetric difference of two sorted
 * lists).  A column left non-zero is a pivot column (its low is new), so
 * the rank is the number of non-zero reduced columns.  Only the pivot
 * columns are kept: a column that vanishes is never added to another.  On
 * a mesh's boundary matrices the added columns stay short because the
 * lows of neighbouring cells are close (the fill is measured, and bounded
 * by max_fill). */
#include "em_linalg.h"

#include <string.h>

/* out = a xor b (sorted, distinct); returns its length */
static int64_t sp_xor(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out) {
  int64_t i = 0, j = 0, k = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j])
      out[k++] = a[i++];
    else if (b[j] < a[i])
      out[k++] = b[j++];
    else
      i++, j++;
  }
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
  return k;
}

typedef struct {
  int32_t *v; /* the current column and a scratch of the same room */
  int32_t *t;
  int64_t cap;
} sp_col;

static em_err sp_room(sp_col *c, int64_t need) {
  if (need <= c->cap) return EM_OK;
  c->cap = 2 * need;
  EM_TRY(em_realloc(&c->v, (size_t)c->cap, sizeof *c->v, "GF(2) reduced column"));
  EM_TRY(em_realloc(&c->t, (size_t)c->cap, sizeof *c->t, "GF(2) reduced column"));
  return EM_OK;
}

/* keep column (v, n) as the pivot column of its low in the pool */
static em_err sp_keep(const int32_t *v, int64_t n, int32_t **pool, int64_t *used, int64_t *cap,
                      int64_t max_fill) {
  if (max_fill > 0 && *used + n > max_fill)
    return EM_RAISE(EM_ERR_MEMORY, "GF(2) column reduction: the reduced columns exceed %lld ones",
                    (long long)max_fill);
  if (*used + n > *cap) {
    *cap = 2 * (*used + n);
    EM_TRY(em_realloc(pool, (size_t)*cap, sizeof **pool, "GF(2) reduced columns"));
  }
  memcpy(*pool + *used, v, (size_t)n * sizeof *v);
  *used += n;
  return EM_OK;
}

static em_err sp_check(const em_gf2_sp *A) {
  EM_CHECK(A && A->n_rows >= 0 && A->n_cols >= 0 && A->ptr && (A->idx || !A->ptr[A->n_cols]),
           EM_ERR_ARG, "sparse GF(2) matrix: NULL or negative sizes");
  EM_CHECK(A->ptr[0] == 0, EM_ERR_ARG, "sparse GF(2) matrix: ptr[0] = %lld", (long long)A->ptr[0]);
  for (int32_t j = 0; j < A->n_cols; j++)
    for (int64_t k = A->ptr[j]; k < A->ptr[j + 1]; k++)
      EM_CHECK(
          A->idx[k] >= 0 && A->idx[k] < A->n_rows && (k == A->ptr[j] || A->idx[k] > A->idx[k - 1]),
          EM_ERR_ARG, "sparse GF(2) matrix: column %d: row %d out of range or not ascending", j,
          A->idx[k]);
  return EM_OK;
}

em_err em_gf2_sp_rank(const em_gf2_sp *A, int64_t max_fill, int32_t *rank, int64_t *fill) {
  EM_CHECK(rank, EM_ERR_ARG, "GF(2) sparse rank: NULL rank");
  EM_TRY(sp_check(A));
  int64_t *owner = NULL, *start = NULL, used = 0, cap = 0; /* owner[row]: pivot k of low row */
  int32_t *len = NULL, *pool = NULL, r = 0;
  sp_col c = {0};
  em_err err = em_calloc(&owner, (size_t)A->n_rows + 1, sizeof *owner, "GF(2) lows");
  if (!err) err = em_calloc(&start, (size_t)A->n_rows + 1, sizeof *start, "GF(2) pivot columns");
  if (!err) err = em_calloc(&len, (size_t)A->n_rows + 1, sizeof *len, "GF(2) pivot columns");
  for (int32_t i = 0; !err && i < A->n_rows; i++) owner[i] = -1;
  for (int32_t j = 0; !err && j < A->n_cols; j++) {
    int64_t n = A->ptr[j + 1] - A->ptr[j];
    if (!(err = sp_room(&c, n + 1))) memcpy(c.v, A->idx + A->ptr[j], (size_t)n * sizeof *c.v);
    while (!err && n > 0 && owner[c.v[n - 1]] >= 0) { /* c += the column owning low(c) */
      const int32_t lo = c.v[n - 1];
      if ((err = sp_room(&c, n + len[lo]))) break;
      n = sp_xor(c.v, n, pool + start[lo], len[lo], c.t);
      int32_t *s = c.v;
      c.v = c.t;
      c.t = s;
    }
    if (err || n == 0) continue;
    start[c.v[n - 1]] = used;
    len[c.v[n - 1]] = (int32_t)n;
    owner[c.v[n - 1]] = j;
    err = sp_keep(c.v, n, &pool, &used, &cap, max_fill);
    r++;
  }
  if (!err) {
    *rank = r;
    if (fill) *fill = used;
  }
  em_free(&owner);
  em_free(&start);
  em_free(&len);
  em_free(&pool);
  em_free(&c.v);
  em_free(&c.t);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

em_err em_gf2_from_sp(const em_gf2_sp *A, int transpose, em_gf2 **D) {
  EM_CHECK(D, EM_ERR_ARG, "GF(2) from sparse: NULL result");
  EM_TRY(sp_check(A));
  EM_TRY(transpose ? em_gf2_create(A->n_cols, A->n_rows, D)
                   : em_gf2_create(A->n_rows, A->n_cols, D));
  for (int32_t j = 0; j < A->n_cols; j++)
    for (int64_t k = A->ptr[j]; k < A->ptr[j + 1]; k++)
      transpose ? em_gf2_flip(*D, j, A->idx[k]) : em_gf2_flip(*D, A->idx[k], j);
  return EM_OK;
}
