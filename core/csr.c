/* csr.c - the host CSR matrix: construction, checks, permutation and the
 * plain reference product every kernel is compared with. */
#include "em_core.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

em_err em_csr_create(int32_t n_rows, int32_t n_cols, int64_t nnz, em_csr **A) {
  *A = NULL;
  EM_CHECK(n_rows >= 0 && n_cols >= 0 && nnz >= 0, EM_ERR_ARG,
           "bad CSR size %d x %d with %lld entries", n_rows, n_cols, (long long)nnz);
  em_csr *M = NULL;
  em_err err;
  EM_TRY(em_calloc(&M, 1, sizeof *M, "CSR header"));
  M->n_rows = n_rows;
  M->n_cols = n_cols;
  M->nnz = nnz;
  EM_TRY_GOTO(err, em_calloc(&M->rowptr, (size_t)n_rows + 1, sizeof *M->rowptr, "CSR row pointers"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&M->colind, (size_t)nnz, sizeof *M->colind, "CSR column indices"),
              fail);
  EM_TRY_GOTO(err, em_calloc(&M->val, (size_t)nnz, sizeof *M->val, "CSR values"), fail);
  *A = M;
  return EM_OK;
fail:
  em_csr_destroy(&M);
  return err;
}

void em_csr_destroy(em_csr **A) {
  if (!*A) return;
  em_free(&(*A)->rowptr);
  em_free(&(*A)->colind);
  em_free(&(*A)->val);
  em_free(A);
}

em_err em_csr_copy(const em_csr *A, em_csr **B) {
  EM_TRY(em_csr_create(A->n_rows, A->n_cols, A->nnz, B));
  memcpy((*B)->rowptr, A->rowptr, ((size_t)A->n_rows + 1) * sizeof *A->rowptr);
  memcpy((*B)->colind, A->colind, (size_t)A->nnz * sizeof *A->colind);
  memcpy((*B)->val, A->val, (size_t)A->nnz * sizeof *A->val);
  return EM_OK;
}

/* 1 when row i is well formed: columns in range, ascending, unique */
static int row_ok(const em_csr *A, int32_t i) {
  if (A->rowptr[i] > A->rowptr[i + 1]) return 0;
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colind[k] < 0 || A->colind[k] >= A->n_cols ||
        (k > A->rowptr[i] && A->colind[k - 1] >= A->colind[k]))
      return 0;
  return 1;
}

/* Rows in parallel; the first bad row (the smallest) is examined again
 * for the message. */
em_err em_csr_check(const em_csr *A, const char *name) {
  EM_CHECK(A && A->rowptr && A->colind && A->val, EM_ERR_ARG, "%s: missing CSR arrays", name);
  EM_CHECK(A->rowptr[0] == 0 && A->rowptr[A->n_rows] == A->nnz, EM_ERR_INPUT,
           "%s: row pointers do not span the %lld entries", name, (long long)A->nnz);
  int32_t bad = A->n_rows;
  for (int32_t i = 0; i < A->n_rows; i++) /* monotone first: the rows below trust it */
    if (A->rowptr[i] > A->rowptr[i + 1]) {
      bad = i;
      break;
    }
  EM_CHECK(bad == A->n_rows, EM_ERR_INPUT, "%s: row pointers decrease at row %d", name, bad);
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad) if (A->nnz > 100000)
  for (int32_t i = 0; i < A->n_rows; i++)
    if (i < bad && !row_ok(A, i)) bad = i;
  if (bad == A->n_rows) return EM_OK;
  for (int64_t k = A->rowptr[bad]; k < A->rowptr[bad + 1]; k++)
    EM_CHECK(A->colind[k] >= 0 && A->colind[k] < A->n_cols, EM_ERR_INPUT,
             "%s: row %d has column %d outside 0..%d", name, bad, A->colind[k], A->n_cols - 1);
  return EM_RAISE(EM_ERR_INPUT, "%s: row %d columns not sorted and unique", name, bad);
}

/* One (column, value) pair, for sorting long rows. */
typedef struct {
  int32_t c;
  em_cplx v;
} csr_pair;

static int pair_cmp(const void *a, const void *b) {
  int32_t x = ((const csr_pair *)a)->c, y = ((const csr_pair *)b)->c;
  return (x > y) - (x < y);
}

/* Sort cj/cv[b..e) by column: insertion sort for short rows, qsort on pairs
 * (through buf, room for the longest row) for long ones. */
static void sort_row(int32_t *cj, em_cplx *cv, int64_t b, int64_t e, csr_pair *buf) {
  if (e - b > 32) {
    for (int64_t k = b; k < e; k++) buf[k - b] = (csr_pair){cj[k], cv[k]};
    qsort(buf, (size_t)(e - b), sizeof *buf, pair_cmp);
    for (int64_t k = b; k < e; k++) {
      cj[k] = buf[k - b].c;
      cv[k] = buf[k - b].v;
    }
    return;
  }
  for (int64_t k = b + 1; k < e; k++) {
    int32_t c = cj[k];
    em_cplx v = cv[k];
    int64_t m = k - 1;
    while (m >= b && cj[m] > c) {
      cj[m + 1] = cj[m];
      cv[m + 1] = cv[m];
      m--;
    }
    cj[m + 1] = c;
    cv[m + 1] = v;
  }
}

/* Triplets -> CSR: counting sort on rows, a sort per row, duplicates summed
 * in place.  For assembly of large systems build the pattern symbolically
 * instead; this is for tests, tools and small matrices. */
em_err em_csr_from_triplets(int32_t n_rows, int32_t n_cols, int64_t n, const int32_t *ti,
                            const int32_t *tj, const em_cplx *tv, em_csr **A) {
  em_err err = EM_OK;
  int64_t *cnt = NULL, *len = NULL;
  int32_t *cj = NULL;
  em_cplx *cv = NULL;
  csr_pair *buf = NULL;
  em_csr *M = NULL;
  *A = NULL;
  EM_TRY(em_calloc(&cnt, (size_t)n_rows + 1, sizeof *cnt, "triplet row counts"));
  for (int64_t k = 0; k < n; k++) {
    if (ti[k] < 0 || ti[k] >= n_rows || tj[k] < 0 || tj[k] >= n_cols) {
      err = EM_RAISE(EM_ERR_ARG, "triplet %lld at (%d, %d) outside %d x %d", (long long)k, ti[k],
                     tj[k], n_rows, n_cols);
      goto done;
    }
    cnt[ti[k] + 1]++;
  }
  int64_t longest = 0;
  for (int32_t i = 0; i < n_rows; i++) {
    if (cnt[i + 1] > longest) longest = cnt[i + 1];
    cnt[i + 1] += cnt[i];
  }
  EM_TRY_GOTO(err, em_calloc(&cj, (size_t)n, sizeof *cj, "triplet columns"), done);
  EM_TRY_GOTO(err, em_calloc(&cv, (size_t)n, sizeof *cv, "triplet values"), done);
  EM_TRY_GOTO(err, em_calloc(&buf, (size_t)longest, sizeof *buf, "row sort buffer"), done);
  EM_TRY_GOTO(err, em_calloc(&len, (size_t)n_rows + 1, sizeof *len, "triplet row lengths"), done);
  for (int64_t k = 0; k < n; k++) {
    int64_t p = cnt[ti[k]]++;
    cj[p] = tj[k];
    cv[p] = tv[k];
  }
  for (int32_t i = n_rows; i > 0; i--) cnt[i] = cnt[i - 1];
  cnt[0] = 0;
  int64_t total = 0;
  for (int32_t i = 0; i < n_rows; i++) {
    int64_t b = cnt[i], e = cnt[i + 1];
    sort_row(cj, cv, b, e, buf);
    int64_t w = b;
    for (int64_t k = b; k < e; k++) {
      if (w > b && cj[w - 1] == cj[k]) {
        cv[w - 1] += cv[k];
      } else {
        cj[w] = cj[k];
        cv[w] = cv[k];
        w++;
      }
    }
    len[i] = w - b;
    total += w - b;
  }
  EM_TRY_GOTO(err, em_csr_create(n_rows, n_cols, total, &M), done);
  int64_t p = 0;
  for (int32_t i = 0; i < n_rows; i++) {
    M->rowptr[i] = p;
    for (int64_t k = cnt[i]; k < cnt[i] + len[i]; k++, p++) {
      M->colind[p] = cj[k];
      M->val[p] = cv[k];
    }
  }
  M->rowptr[n_rows] = p;
  *A = M;
  M = NULL;
done:
  em_csr_destroy(&M);
  em_free(&cnt);
  em_free(&len);
  em_free(&cj);
  em_free(&cv);
  em_free(&buf);
  return err;
}

/* B = P A Q^T with perm[old] = new; rows are re-sorted by new column. */
em_err em_csr_permute(const em_csr *A, const int32_t *rperm, const int32_t *cperm, em_csr **B) {
  return em_csr_permute_map(A, rperm, cperm, B, NULL);
}

/* B = P A Q^T, rows in parallel: new row ni is old row i = rperm^-1(ni);
 * its entries as keys (cperm[col] << 32 | position in the row), sorted,
 * give B's columns in order and the source of each value (map). */
em_err em_csr_permute_map(const em_csr *A, const int32_t *rperm, const int32_t *cperm, em_csr **B,
                          int64_t *map) {
  em_csr *M = NULL;
  int32_t *inv = NULL, n = A->n_rows;
  uint64_t *buf = NULL;
  em_err err = EM_OK;
  int64_t longest = 0;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
#pragma omp parallel for reduction(max : longest) if (n > 10000)
  for (int32_t i = 0; i < n; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > longest) longest = A->rowptr[i + 1] - A->rowptr[i];
  EM_TRY(em_calloc(&inv, (size_t)n + 1, sizeof *inv, "inverse permutation"));
  EM_TRY_GOTO(
      err, em_calloc(&buf, (size_t)nt * (size_t)(longest + 1), sizeof *buf, "row sort keys"), done);
  EM_TRY_GOTO(err, em_csr_create(A->n_rows, A->n_cols, A->nnz, &M), done);
#pragma omp parallel for if (n > 10000)
  for (int32_t i = 0; i < n; i++) inv[rperm ? rperm[i] : i] = i;
  for (int32_t ni = 0; ni < n; ni++)
    M->rowptr[ni + 1] = M->rowptr[ni] + A->rowptr[inv[ni] + 1] - A->rowptr[inv[ni]];
#pragma omp parallel if (n > 10000)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    uint64_t *key = buf + (size_t)t * (size_t)(longest + 1);
#pragma omp for schedule(dynamic, 1024)
    for (int32_t ni = 0; ni < n; ni++) {
      int32_t i = inv[ni];
      int64_t b = A->rowptr[i], len = A->rowptr[i + 1] - b, q = M->rowptr[ni];
      for (int64_t k = 0; k < len; k++) {
        uint64_t c = (uint64_t)(cperm ? cperm[A->colind[b + k]] : A->colind[b + k]);
        key[k] = c << 32 | (uint64_t)k;
      }
      int sorted = 1;
      for (int64_t k = 1; k < len && sorted; k++) sorted = key[k - 1] < key[k];
      if (!sorted) em_sort_u64(key, len);
      for (int64_t k = 0; k < len; k++) {
        int64_t src = b + (int64_t)(key[k] & 0xffffffffu);
        M->colind[q + k] = (int32_t)(key[k] >> 32);
        M->val[q + k] = A->val[src];
        if (map) map[q + k] = src;
      }
    }
  }
  *B = M;
  M = NULL;
done:
  em_csr_destroy(&M);
  em_free(&inv);
  em_free(&buf);
  return err;
}

/* y = alpha A x + beta y */
void em_csr_spmv_ref(const em_csr *A, em_cplx alpha, const em_cplx *x, em_cplx beta, em_cplx *y) {
  for (int32_t i = 0; i < A->n_rows; i++) {
    em_cplx s = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colind[k]];
    y[i] = alpha * s + (beta == 0 ? 0 : beta * y[i]);
  }
}

size_t em_csr_bytes(const em_csr *A, em_prec p) {
  return (size_t)A->nnz * (em_prec_size(p) + sizeof(int32_t)) +
         ((size_t)A->n_rows + 1) * sizeof(int64_t);
}
