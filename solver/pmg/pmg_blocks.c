/* pmg_blocks.c - the block-Jacobi smoother's blocks: the DOFs of one mesh
 * entity in one order group (the 2 face functions of a face at order 2,
 * the 3 cell functions of a tet at order 3, ...) couple to exactly the
 * same neighbours, so their rows have identical patterns; rows are grouped
 * by pattern (hash, then compared) and each group's diagonal block is
 * inverted by Gauss-Jordan with partial pivoting.  Found algebraically, so
 * the smoother needs nothing from the mesh. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmg_impl.h"

em_err em_pmg_submatrix(const em_csr *A, const int32_t *rows, int32_t m, const int32_t *cols,
                        em_csr **B) {
  int32_t *loc = NULL; /* column -> local index (cols given), else -1 */
  int64_t *cnt = NULL; /* entries kept per row, then their offsets */
  int32_t nc = A->n_cols;
  em_err err = EM_OK;
  if (cols) {
    EM_TRY(em_calloc(&loc, (size_t)A->n_cols + 1, sizeof *loc, "submatrix columns"));
    for (int32_t j = 0; j < A->n_cols; j++) loc[j] = -1;
    for (int32_t k = 0; k < m; k++) loc[cols[k]] = k;
    nc = m;
  }
  EM_TRY_GOTO(err, em_calloc(&cnt, (size_t)m + 1, sizeof *cnt, "submatrix rows"), done);
  /* two passes over the rows, each parallel: the setup of a million-row
     level is otherwise seconds of one host core per frequency */
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t k = 0; k < m; k++) {
    int64_t c = 0;
    for (int64_t p = A->rowptr[rows[k]]; p < A->rowptr[rows[k] + 1]; p++)
      c += !loc || loc[A->colind[p]] >= 0;
    cnt[k + 1] = c;
  }
  for (int32_t k = 0; k < m; k++) cnt[k + 1] += cnt[k];
  EM_TRY_GOTO(err, em_csr_create(m, nc, cnt[m], B), done);
  em_csr *b = *B;
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t k = 0; k < m; k++) {
    int64_t q = cnt[k];
    for (int64_t p = A->rowptr[rows[k]]; p < A->rowptr[rows[k] + 1]; p++) {
      int32_t c = loc ? loc[A->colind[p]] : A->colind[p];
      if (c < 0) continue;
      b->colind[q] = c; /* ascending: rows and cols lists are ascending */
      b->val[q++] = A->val[p];
    }
    b->rowptr[k + 1] = q;
  }
done:
  em_free(&cnt);
  em_free(&loc);
  return err;
}

typedef struct row_key {
  uint64_t hash;
  int64_t len;
  int32_t row;
} row_key;

static int key_cmp(const void *x, const void *y) {
  const row_key *a = x, *b = y;
  if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

static int same_pattern(const em_csr *A, int32_t i, int32_t j) {
  int64_t li = A->rowptr[i + 1] - A->rowptr[i];
  if (li != A->rowptr[j + 1] - A->rowptr[j]) return 0;
  return !memcmp(A->colind + A->rowptr[i], A->colind + A->rowptr[j], (size_t)li * 4);
}

/* a(i, j), 0 when absent */
static em_cplx entry(const em_csr *A, int32_t i, int32_t j) {
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colind[mid] == j) return A->val[mid];
    if (A->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

/* M (b x b, row-major) := M^-1 by Gauss-Jordan with partial pivoting;
 * returns 0 when singular. */
static int invert(int b, em_cplx *M) {
  em_cplx I_[EM_PMG_MAX_BLOCK * EM_PMG_MAX_BLOCK];
  for (int i = 0; i < b * b; i++) I_[i] = 0;
  for (int i = 0; i < b; i++) I_[i * b + i] = 1;
  double scale = 0;
  for (int i = 0; i < b * b; i++) scale = fmax(scale, cabs(M[i]));
  for (int c = 0; c < b; c++) {
    int p = c;
    for (int r = c + 1; r < b; r++)
      if (cabs(M[r * b + c]) > cabs(M[p * b + c])) p = r;
    if (!(cabs(M[p * b + c]) > 1e-14 * scale)) return 0;
    if (p != c)
      for (int k = 0; k < b; k++) {
        em_cplx t = M[c * b + k];
        M[c * b + k] = M[p * b + k], M[p * b + k] = t;
        t = I_[c * b + k];
        I_[c * b + k] = I_[p * b + k], I_[p * b + k] = t;
      }
    em_cplx inv = 1 / M[c * b + c];
    for (int k = 0; k < b; k++) M[c * b + k] *= inv, I_[c * b + k] *= inv;
    for (int r = 0; r < b; r++) {
      if (r == c) continue;
      em_cplx f = M[r * b + c];
      if (f == 0) continue;
      for (int k = 0; k < b; k++)
        M[r * b + k] -= f * M[c * b + k], I_[r * b + k] -= f * I_[c * b + k];
    }
  }
  memcpy(M, I_, sizeof(em_cplx) * (size_t)(b * b));
  return 1;
}

em_err em_pmg_block_inverse(const em_csr *A, const int32_t *rows, int32_t m, int block,
                            double shift, double omega, em_csr **Dinv, int32_t *n_blocks) {
  em_err err = EM_OK;
  row_key *key = NULL;
  int32_t *bstart = NULL, *brow = NULL, *loc = NULL;
  *Dinv = NULL;
  EM_TRY(em_calloc(&loc, (size_t)A->n_rows + 1, sizeof *loc, "smoother blocks"));
  for (int32_t k = 0; k < m; k++) loc[rows[k]] = k;
  EM_TRY_GOTO(err, em_calloc(&key, (size_t)m + 1, sizeof *key, "smoother blocks"), done);
  EM_TRY_GOTO(err, em_calloc(&bstart, (size_t)m + 2, sizeof *bstart, "smoother blocks"), done);
  EM_TRY_GOTO(err, em_calloc(&brow, (size_t)m + 1, sizeof *brow, "smoother blocks"), done);
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t i = 0; i < m; i++) { /* FNV-1a of the row's columns */
    uint64_t h = 14695981039346656037ULL;
    int32_t r = rows[i];
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
      h = (h ^ (uint64_t)A->colind[p]) * 1099511628211ULL;
    key[i] = (row_key){block > 1 ? h : (uint64_t)i, A->rowptr[r + 1] - A->rowptr[r], r};
  }
  qsort(key, (size_t)m, sizeof *key, key_cmp);
  int32_t nb = 0, q = 0;
  for (int32_t i = 0; i < m; i++) { /* runs of equal patterns, cut at `block` */
    int start = i == 0 || q - bstart[nb - 1] >= block || key[i].hash != key[i - 1].hash ||
                key[i].len != key[i - 1].len || !same_pattern(A, key[i].row, key[i - 1].row);
    if (start) bstart[nb++] = q;
    brow[q++] = key[i].row;
  }
  bstart[nb] = q;
  int64_t nnz = 0;
  for (int32_t k = 0; k < nb; k++)
    nnz += (int64_t)(bstart[k + 1] - bstart[k]) * (bstart[k + 1] - bstart[k]);
  int32_t *ti = NULL, *tj = NULL;
  em_cplx *tv = NULL;
  EM_TRY_GOTO(err, em_calloc(&ti, (size_t)nnz + 1, sizeof *ti, "smoother blocks"), done);
  EM_TRY_GOTO(err, em_calloc(&tj, (size_t)nnz + 1, sizeof *tj, "smoother blocks"), trip);
  EM_TRY_GOTO(err, em_calloc(&tv, (size_t)nnz + 1, sizeof *tv, "smoother blocks"), trip);
  int64_t *bt = NULL; /* each block's first triplet */
  EM_TRY_GOTO(err, em_calloc(&bt, (size_t)nb + 1, sizeof *bt, "smoother blocks"), trip);
  for (int32_t k = 0; k < nb; k++) {
    int64_t s = bstart[k + 1] - bstart[k];
    bt[k + 1] = bt[k] + s * s;
  }
  int64_t t = bt[nb];
  int32_t bad = -1; /* a singular block's first row */
#pragma omp parallel for schedule(dynamic, 512) if (nb > 4096)
  for (int32_t k = 0; k < nb; k++) {
    int s = bstart[k + 1] - bstart[k];
    const int32_t *rw = brow + bstart[k];
    em_cplx M[EM_PMG_MAX_BLOCK * EM_PMG_MAX_BLOCK];
    for (int i = 0; i < s; i++)
      for (int j = 0; j < s; j++) {
        M[i * s + j] = entry(A, rw[i], rw[j]);
        if (i == j) M[i * s + j] += I * shift * cabs(M[i * s + j]);
      }
    if (!invert(s, M)) {
#pragma omp critical(pmg_singular)
      if (bad < 0 || rw[0] < bad) bad = rw[0];
      continue;
    }
    int64_t q = bt[k];
    for (int i = 0; i < s; i++)
      for (int j = 0; j < s; j++, q++) {
        ti[q] = loc[rw[i]];
        tj[q] = loc[rw[j]];
        tv[q] = omega * M[i * s + j];
      }
  }
  em_free(&bt);
  if (bad >= 0) {
    err = EM_RAISE(EM_ERR_NUMERIC,
                   "pmg smoother: the diagonal block of rows %d .. is singular (rows with "
                   "identical patterns, at most %d)",
                   bad, block);
    goto trip;
  }
  EM_TRY_GOTO(err, em_csr_from_triplets(m, m, t, ti, tj, tv, Dinv), trip);
  *n_blocks = nb;
trip:
  em_free(&ti);
  em_free(&tj);
  em_free(&tv);
done:
  em_free(&key);
  em_free(&bstart);
  em_free(&brow);
  em_free(&loc);
  return err;
}
