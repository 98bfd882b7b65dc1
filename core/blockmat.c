/* blockmat.c - the 3x3 split of the system by basis order. */
#include "em_core.h"

#include <string.h>

static int group_of(const em_blockmat *B, int32_t i) {
  int g = 0;
  while (g + 1 < B->nb && i >= B->offset[g + 1]) g++;
  return g;
}

void em_blockmat_destroy(em_blockmat **B) {
  if (!*B) return;
  for (int i = 0; i < EM_MAX_ORDER; i++)
    for (int j = 0; j < EM_MAX_ORDER; j++) em_csr_destroy(&(*B)->blk[i][j]);
  em_free(B);
}

/* A_ij(r, c) = A(offset[i] + r, offset[j] + c): each row's count per block,
 * a prefix sum per block, then the rows filled in parallel (each row's
 * columns stay in A's order). */
em_err em_blockmat_from_csr(const em_csr *A, int nb, const int32_t *offset, em_blockmat **Bout) {
  EM_CHECK(nb >= 1 && nb <= EM_MAX_ORDER, EM_ERR_ARG, "block count %d not in 1..%d", nb,
           EM_MAX_ORDER);
  EM_CHECK(offset[0] == 0 && offset[nb] == A->n_rows && A->n_rows == A->n_cols, EM_ERR_ARG,
           "group offsets do not cover the %d x %d matrix", A->n_rows, A->n_cols);
  em_err err = EM_OK;
  em_blockmat *B = NULL;
  int64_t *len = NULL; /* len[r * nb + j]: entries of row r in block column j */
  EM_TRY(em_calloc(&B, 1, sizeof *B, "block matrix"));
  B->nb = nb;
  memcpy(B->offset, offset, ((size_t)nb + 1) * sizeof *offset);
  EM_TRY_GOTO(err, em_calloc(&len, (size_t)A->n_rows * nb + 1, sizeof *len, "block row lengths"),
              fail);
#pragma omp parallel for schedule(dynamic, 4096) if (A->n_rows > 20000)
  for (int32_t r = 0; r < A->n_rows; r++)
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
      len[(size_t)r * nb + group_of(B, A->colind[k])]++;
  for (int i = 0; i < nb; i++) {
    int32_t rows = offset[i + 1] - offset[i];
    for (int j = 0; j < nb; j++) {
      int64_t cnt = 0;
      for (int32_t r = offset[i]; r < offset[i + 1]; r++) cnt += len[(size_t)r * nb + j];
      EM_TRY_GOTO(err, em_csr_create(rows, offset[j + 1] - offset[j], cnt, &B->blk[i][j]), fail);
      int64_t *rp = B->blk[i][j]->rowptr;
      for (int32_t r = 0; r < rows; r++) rp[r + 1] = rp[r] + len[(size_t)(offset[i] + r) * nb + j];
    }
#pragma omp parallel for schedule(dynamic, 4096) if (rows > 20000)
    for (int32_t r = 0; r < rows; r++) {
      int64_t p[EM_MAX_ORDER];
      for (int j = 0; j < nb; j++) p[j] = B->blk[i][j]->rowptr[r];
      for (int64_t k = A->rowptr[offset[i] + r]; k < A->rowptr[offset[i] + r + 1]; k++) {
        int j = group_of(B, A->colind[k]);
        em_csr *M = B->blk[i][j];
        M->colind[p[j]] = A->colind[k] - offset[j];
        M->val[p[j]++] = A->val[k];
      }
    }
  }
  em_free(&len);
  *Bout = B;
  return EM_OK;
fail:
  em_free(&len);
  em_blockmat_destroy(&B);
  return err;
}

/* Row lengths summed over the block row, a prefix sum, then rows in
 * parallel: blocks in column order keep each merged row sorted. */
em_err em_blockmat_to_csr(const em_blockmat *B, em_csr **Aout) {
  int32_t n = B->offset[B->nb];
  int64_t nnz = 0;
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) nnz += B->blk[i][j]->nnz;
  em_csr *A = NULL;
  EM_TRY(em_csr_create(n, n, nnz, &A));
  for (int i = 0; i < B->nb; i++)
    for (int32_t r = 0; r < B->offset[i + 1] - B->offset[i]; r++) {
      int64_t len = 0;
      for (int j = 0; j < B->nb; j++) len += B->blk[i][j]->rowptr[r + 1] - B->blk[i][j]->rowptr[r];
      A->rowptr[B->offset[i] + r + 1] = A->rowptr[B->offset[i] + r] + len;
    }
  for (int i = 0; i < B->nb; i++) {
    int32_t rows = B->offset[i + 1] - B->offset[i];
#pragma omp parallel for schedule(dynamic, 1024) if (rows > 10000)
    for (int32_t r = 0; r < rows; r++) {
      int64_t p = A->rowptr[B->offset[i] + r];
      for (int j = 0; j < B->nb; j++) {
        const em_csr *M = B->blk[i][j];
        for (int64_t k = M->rowptr[r]; k < M->rowptr[r + 1]; k++, p++) {
          A->colind[p] = M->colind[k] + B->offset[j];
          A->val[p] = M->val[k];
        }
      }
    }
  }
  *Aout = A;
  return EM_OK;
}

em_err em_blockmat_permute(const em_blockmat *B, const int32_t *perm, em_blockmat **Pout) {
  return em_blockmat_permute_map(B, perm, Pout, NULL);
}

em_err em_blockmat_permute_map(const em_blockmat *B, const int32_t *perm, em_blockmat **Pout,
                               int64_t *map[EM_MAX_ORDER][EM_MAX_ORDER]) {
  em_err err = EM_OK;
  em_blockmat *P = NULL;
  int32_t *local = NULL;
  int32_t n = B->offset[B->nb];
  for (int32_t i = 0; i < n; i++) {
    int g = group_of(B, i);
    EM_CHECK(perm[i] >= B->offset[g] && perm[i] < B->offset[g + 1], EM_ERR_ARG,
             "permutation moves DOF %d out of its order group %d", i, g + 1);
  }
  EM_TRY(em_calloc(&local, (size_t)n, sizeof *local, "local permutation"));
  for (int32_t i = 0; i < n; i++) local[i] = perm[i] - B->offset[group_of(B, i)];
  EM_TRY_GOTO(err, em_calloc(&P, 1, sizeof *P, "block matrix"), done);
  P->nb = B->nb;
  memcpy(P->offset, B->offset, sizeof P->offset);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *A = B->blk[i][j];
      int64_t *m = NULL;
      if (map) {
        EM_TRY_GOTO(err, em_calloc(&map[i][j], (size_t)A->nnz + 1, sizeof *m, "value map"), done);
        m = map[i][j];
      }
      EM_TRY_GOTO(
          err, em_csr_permute_map(A, local + B->offset[i], local + B->offset[j], &P->blk[i][j], m),
          done);
    }
  *Pout = P;
  P = NULL;
done:
  if (err && map)
    for (int i = 0; i < EM_MAX_ORDER; i++)
      for (int j = 0; j < EM_MAX_ORDER; j++) em_free(&map[i][j]);
  em_blockmat_destroy(&P);
  em_free(&local);
  return err;
}
