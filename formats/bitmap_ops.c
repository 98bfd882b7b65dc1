/* bitmap_ops.c - the bitmap's own operations on the CPU (em_bitmap_xops_cpu):
 * random access by popcount, back to CSR, the element-wise sum C = A + B and
 * the product C = A B.  Sum and product count C's pattern first (words and
 * set bits per row, in parallel), allocate once, then fill the rows in
 * parallel: no reallocation, no locks.  Arguments are checked by the front
 * ends in bitmap.c. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bitmap_impl.h"

/* qsort order of word indices. */
static int bitmap_cmp_i32(const void *p, const void *q) {
  int32_t x = *(const int32_t *)p, y = *(const int32_t *)q;
  return (x > y) - (x < y);
}

#define BM_T em_cplx
#define BM_FN(name) bitmap_##name##_z
#include "bitmap_ops_tmpl.h"
#undef BM_T
#undef BM_FN

#define BM_T em_cplxf
#define BM_FN(name) bitmap_##name##_c
#include "bitmap_ops_tmpl.h"
#undef BM_T
#undef BM_FN

/* A new host bitmap with zeroed row pointers, to be counted into. */
static em_err bitmap_start(int32_t n_rows, int32_t n_cols, em_bitmap **c) {
  EM_TRY(em_calloc(c, 1, sizeof **c, "bitmap header"));
  (*c)->n_rows = n_rows;
  (*c)->n_cols = n_cols;
  em_err err =
      em_calloc(&(*c)->wptr, (size_t)n_rows + 1, sizeof *(*c)->wptr, "bitmap word pointers");
  if (!err)
    err = em_calloc(&(*c)->vptr, (size_t)n_rows + 1, sizeof *(*c)->vptr, "bitmap value offsets");
  if (err) em_bitmap_free(c);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* wptr[i+1], vptr[i+1] hold row i's counts: prefix sums, then the arrays. */
static em_err bitmap_alloc(em_bitmap *c, em_prec p) {
  for (int32_t i = 0; i < c->n_rows; i++) {
    c->wptr[i + 1] += c->wptr[i];
    c->vptr[i + 1] += c->vptr[i];
  }
  c->n_words = c->wptr[c->n_rows];
  c->nnz = c->vptr[c->n_rows];
  EM_TRY(em_calloc(&c->widx, (size_t)c->n_words, sizeof *c->widx, "bitmap word indices"));
  EM_TRY(em_calloc(&c->mask, (size_t)c->n_words, sizeof *c->mask, "bitmap masks"));
  EM_TRY(em_calloc(&c->val, (size_t)c->nnz, em_prec_size(p), "bitmap values"));
  return EM_OK;
}

/* Row i of A + B: words in the union of the two word lists, bits of the ORs. */
static void add_row_count(const em_bitmap *a, const em_bitmap *b, int32_t i, int64_t *nw,
                          int64_t *nz) {
  int64_t pa = a->wptr[i], ea = a->wptr[i + 1], pb = b->wptr[i], eb = b->wptr[i + 1];
  *nw = *nz = 0;
  while (pa < ea || pb < eb) {
    int32_t wa = pa < ea ? a->widx[pa] : INT32_MAX, wb = pb < eb ? b->widx[pb] : INT32_MAX;
    int32_t w = wa < wb ? wa : wb;
    uint64_t m = (wa == w ? a->mask[pa++] : 0) | (wb == w ? b->mask[pb++] : 0);
    (*nw)++;
    *nz += __builtin_popcountll(m);
  }
}

/* C = A + B: count the union pattern per row, allocate, fill per row. */
static em_err cpu_add(const em_spmat *A, const em_spmat *B, em_spmat **C) {
  const em_bitmap *a = A->data, *b = B->data;
  em_prec p = A->info.prec;
  em_bitmap *c = NULL;
  em_err err = EM_OK;
  const int64_t work = a->nnz + b->nnz;
  EM_TRY(bitmap_start(a->n_rows, a->n_cols, &c));
#pragma omp parallel for schedule(static) if (work > EM_FMT_OMP_MIN)
  for (int32_t i = 0; i < a->n_rows; i++) add_row_count(a, b, i, &c->wptr[i + 1], &c->vptr[i + 1]);
  EM_TRY_GOTO(err, bitmap_alloc(c, p), done);
#pragma omp parallel for schedule(static) if (work > EM_FMT_OMP_MIN)
  for (int32_t i = 0; i < a->n_rows; i++) {
    if (p == EM_PREC_SINGLE)
      bitmap_add_row_c(a, b, c, i);
    else
      bitmap_add_row_z(a, b, c, i);
  }
  EM_TRY_GOTO(err, em_bitmap_wrap(&c, p, C), done);
done:
  em_bitmap_free(&c);
  return err;
}

/* Row i of A B: the words of B's rows k over the stored a_ik, ORed. */
static void mul_row_count(const em_bitmap *a, const em_bitmap *b, int32_t i, uint64_t *wmask,
                          int32_t *touched, int64_t *nw, int64_t *nz) {
  int64_t nt = 0;
  for (int64_t wa = a->wptr[i]; wa < a->wptr[i + 1]; wa++)
    for (uint64_t ma = a->mask[wa]; ma; ma &= ma - 1) {
      const int32_t k = a->widx[wa] * 64 + __builtin_ctzll(ma);
      for (int64_t wb = b->wptr[k]; wb < b->wptr[k + 1]; wb++) {
        if (!wmask[b->widx[wb]]) touched[nt++] = b->widx[wb];
        wmask[b->widx[wb]] |= b->mask[wb];
      }
    }
  *nw = nt;
  *nz = 0;
  for (int64_t t = 0; t < nt; t++) {
    *nz += __builtin_popcountll(wmask[touched[t]]);
    wmask[touched[t]] = 0;
  }
}

/* Threads a parallel loop may use (1 without OpenMP). */
static int bitmap_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* This thread's number in the team (0 without OpenMP). */
static int bitmap_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* C = A B, Gustavson row by row with a per-thread word-mask accumulator
 * (ceil(n/64) words), list of touched words and dense value row (n values),
 * n = columns of B. */
static em_err cpu_mul(const em_spmat *A, const em_spmat *B, em_spmat **C) {
  const em_bitmap *a = A->data, *b = B->data;
  em_prec p = A->info.prec;
  const int64_t work = a->nnz + b->nnz; /* a lower bound on the product's cost */
  size_t nwb = ((size_t)b->n_cols + 63) / 64, nthr = (size_t)bitmap_threads();
  em_err err = EM_OK;
  em_bitmap *c = NULL;
  uint64_t *wmask = NULL;
  int32_t *touched = NULL;
  char *acc = NULL;
  EM_TRY_GOTO(err, em_calloc(&wmask, nthr * nwb, sizeof *wmask, "bitmap product word masks"), done);
  EM_TRY_GOTO(err, em_calloc(&touched, nthr * nwb, sizeof *touched, "bitmap product word lists"),
              done);
  EM_TRY_GOTO(err, em_calloc(&acc, nthr * nwb * 64, em_prec_size(p), "bitmap product rows"), done);
  EM_TRY_GOTO(err, bitmap_start(a->n_rows, b->n_cols, &c), done);
#pragma omp parallel for schedule(dynamic, 64) if (work > EM_FMT_OMP_MIN)
  for (int32_t i = 0; i < a->n_rows; i++) {
    size_t t = (size_t)bitmap_thread();
    mul_row_count(a, b, i, wmask + t * nwb, touched + t * nwb, &c->wptr[i + 1], &c->vptr[i + 1]);
  }
  EM_TRY_GOTO(err, bitmap_alloc(c, p), done);
#pragma omp parallel for schedule(dynamic, 64) if (work > EM_FMT_OMP_MIN)
  for (int32_t i = 0; i < a->n_rows; i++) {
    size_t t = (size_t)bitmap_thread();
    char *row = acc + t * nwb * 64 * em_prec_size(p);
    if (p == EM_PREC_SINGLE)
      bitmap_mul_row_c(a, b, c, i, wmask + t * nwb, touched + t * nwb, (em_cplxf *)row);
    else
      bitmap_mul_row_z(a, b, c, i, wmask + t * nwb, touched + t * nwb, (em_cplx *)row);
  }
  EM_TRY_GOTO(err, em_bitmap_wrap(&c, p, C), done);
done:
  em_bitmap_free(&c);
  em_free(&wmask);
  em_free(&touched);
  em_free(&acc);
  return err;
}

/* a(i, j) = val[vptr[i] + popcount(earlier words of row i)
 *                       + popcount(mask of j's word below bit j % 64)],
 * the word found by binary search; 0 when (i, j) is not stored. */
static em_err cpu_get(const em_spmat *M, int32_t i, int32_t j, em_cplx *a) {
  const em_bitmap *bm = M->data;
  *a = 0;
  int64_t lo = bm->wptr[i], hi = bm->wptr[i + 1]; /* search widx[lo..hi) for j / 64 */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (bm->widx[mid] < j >> 6)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint64_t bit = 1ULL << (j & 63);
  if (lo == bm->wptr[i + 1] || bm->widx[lo] != j >> 6 || !(bm->mask[lo] & bit)) return EM_OK;
  int64_t p = bm->vptr[i] + __builtin_popcountll(bm->mask[lo] & (bit - 1));
  for (int64_t w = bm->wptr[i]; w < lo; w++) p += __builtin_popcountll(bm->mask[w]);
  if (M->info.prec == EM_PREC_SINGLE)
    *a = ((const em_cplxf *)bm->val)[p];
  else
    *a = ((const em_cplx *)bm->val)[p];
  return EM_OK;
}

/* CSR in complex double: set bits in order give the columns. */
static em_err cpu_to_csr(const em_spmat *M, em_csr **Aout) {
  const em_bitmap *bm = M->data;
  em_csr *A = NULL;
  EM_TRY(em_csr_create(bm->n_rows, bm->n_cols, bm->nnz, &A));
  memcpy(A->rowptr, bm->vptr, ((size_t)bm->n_rows + 1) * sizeof *A->rowptr);
  int64_t p = 0;
  for (int64_t w = 0; w < bm->n_words; w++)
    for (uint64_t m = bm->mask[w]; m; m &= m - 1)
      A->colind[p++] = bm->widx[w] * 64 + __builtin_ctzll(m);
  for (int64_t k = 0; k < bm->nnz; k++)
    A->val[k] = M->info.prec == EM_PREC_SINGLE ? (em_cplx)((const em_cplxf *)bm->val)[k]
                                               : ((const em_cplx *)bm->val)[k];
  *Aout = A;
  return EM_OK;
}

const em_bitmap_xops em_bitmap_xops_cpu = {cpu_get, cpu_add, cpu_mul, cpu_to_csr};
