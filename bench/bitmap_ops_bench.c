/* bitmap_ops_bench.c - the bitmap extras on the GPU against their CPU
 * versions (all cores): random access (10^7 reads of stored entries), the
 * sum A + B of two order-2 FEM matrices and the product A B of two order-1
 * FEM matrices (tests/common/fem_pattern.h, the unit cube meshed n^3 x 6),
 * and the LU without pivoting (em_bitmap_lu, one core: the CPU reference is
 * sequential, vs em_bitmap_lu_cuda) of order-1 FEM matrices in their mesh
 * numbering (no fill-reducing order: the factors fill their profile) and of
 * a 2^20 + 1 band matrix, made diagonally dominant (diagonal += the row's
 * absolute sum).
 * GPU: device time of the kernels (events; the copies in and out are
 * reported apart); CPU: wall time.  Medians of 5.  Exit 1 when a GPU result
 * differs from the CPU's (layouts and values; product and LU values to
 * 1e-12). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <cuda_runtime.h>

#include "bench_util.h"
#include "bitmap_gpu.h"
#include "em_formats.h"
#include "fem_pattern.h"

#define REPS 5

#define EMCK(call)            \
  do {                        \
    if (call) {               \
      em_error_print(stderr); \
      exit(2);                \
    }                         \
  } while (0)

static em_spmat *bitmap(const em_csr *A) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.backend = EM_BACKEND_CPU;
  em_spmat *M = NULL;
  EMCK(em_spmat_create(A, &o, &M));
  return M;
}

static int same(const em_spmat *X, const em_spmat *Y, double tol) {
  const em_bitmap *x = X->data, *y = Y->data;
  if (x->n_rows != y->n_rows || x->n_words != y->n_words || x->nnz != y->nnz) return 0;
  if (memcmp(x->wptr, y->wptr, ((size_t)x->n_rows + 1) * 8) ||
      memcmp(x->vptr, y->vptr, ((size_t)x->n_rows + 1) * 8) ||
      memcmp(x->widx, y->widx, (size_t)x->n_words * 4) ||
      memcmp(x->mask, y->mask, (size_t)x->n_words * 8))
    return 0;
  double e = 0, s = 0;
  for (int64_t k = 0; k < x->nnz; k++) {
    e = fmax(e, cabs(((em_cplx *)x->val)[k] - ((em_cplx *)y->val)[k]));
    s = fmax(s, cabs(((em_cplx *)y->val)[k]));
  }
  return e <= tol * s;
}

/* n x n, the diagonal and each entry with |i - j| <= w at probability 0.4,
 * values random complex */
static em_csr *band_csr(int32_t n, int w) {
  unsigned long long s = 17;
  int64_t nnz = 0, cap = (int64_t)n * (2 * w + 1);
  em_csr *A = NULL;
  EMCK(em_csr_create(n, n, cap, &A));
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = i - w; j <= i + w; j++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      if (j >= 0 && j < n && (j == i || s % 10 < 4)) {
        A->colind[nnz] = j;
        A->val[nnz++] =
            (double)(s % 1000) / 1000 - 0.5 + I * ((double)(s / 1000 % 1000) / 1000 - 0.5);
      }
    }
    A->rowptr[i + 1] = nnz;
  }
  A->nnz = nnz;
  return A;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows as they come, when a time box ends the run */
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    fprintf(stderr, "bitmap_ops_bench: no GPU\n");
    return 77;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  int failed = 0;
  em_csr *A2 = NULL, *B2 = NULL, *A1 = NULL, *B1 = NULL;
  const int n2 = quick ? 6 : 20, n1 = quick ? 6 : 24;
  EMCK(em_fem_pattern_box(n2, 2, 1, &A2, NULL));
  EMCK(em_fem_pattern_box(n2, 2, 2, &B2, NULL));
  EMCK(em_fem_pattern_box(n1, 1, 3, &A1, NULL));
  EMCK(em_fem_pattern_box(n1, 1, 4, &B1, NULL));
  em_spmat *MA2 = bitmap(A2), *MB2 = bitmap(B2), *MA1 = bitmap(A1), *MB1 = bitmap(B1);
  printf("# bitmap operations: %s, CPU %d threads\n\n", prop.name, threads);
  printf(
      "sum: order-2 FEM pattern, %d rows, nnz %lld + %lld; product: order-1, %d rows, nnz %lld\n\n",
      A2->n_rows, (long long)A2->nnz, (long long)B2->nnz, A1->n_rows, (long long)A1->nnz);
  printf(
      "| operation | result nnz | CPU all cores ms | GPU kernels ms | GPU with copies ms | CPU / "
      "GPU kernels |\n");
  printf("|---|---|---|---|---|---|\n");
  /* random access: 10^7 stored entries in random order */
  const int64_t nq = quick ? 100000 : 10000000;
  int32_t *qi = malloc((size_t)nq * 4), *qj = malloc((size_t)nq * 4);
  em_cplx *ag = malloc((size_t)nq * sizeof *ag), *ac = malloc((size_t)nq * sizeof *ac);
  unsigned long long s = 7;
  for (int64_t q = 0; q < nq; q++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    int64_t k = (int64_t)(s % (unsigned long long)A2->nnz);
    int32_t lo = 0, hi = A2->n_rows; /* row of entry k */
    while (hi - lo > 1) {
      int32_t mid = (lo + hi) / 2;
      if (A2->rowptr[mid] <= k)
        lo = mid;
      else
        hi = mid;
    }
    qi[q] = lo;
    qj[q] = A2->colind[k];
  }
  double tc[REPS], tg[REPS], tw[REPS], ms = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = em_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < nq; q++) em_bitmap_get(MA2, qi[q], qj[q], &ac[q]);
    tc[r] = em_wtime() - t0;
    t0 = em_wtime();
    EMCK(em_bitmap_get_cuda(MA2, nq, qi, qj, ag, &ms));
    tw[r] = em_wtime() - t0;
    tg[r] = ms * 1e-3;
  }
  if (memcmp(ac, ag, (size_t)nq * sizeof *ac)) {
    fprintf(stderr, "WRONG RESULT: GPU reads differ from the CPU's\n");
    failed = 1;
  }
  printf("| get (%lld reads) | | %.3f | %.3f | %.3f | %.1f |\n", (long long)nq,
         bench_median(tc, REPS) * 1e3, bench_median(tg, REPS) * 1e3, bench_median(tw, REPS) * 1e3,
         bench_median(tc, REPS) / bench_median(tg, REPS));
  for (int op = 0; op < 2; op++) {
    em_spmat *Cc = NULL, *Cg = NULL;
    for (int r = 0; r < REPS; r++) {
      em_spmat_destroy(&Cc);
      em_spmat_destroy(&Cg);
      double t0 = em_wtime();
      EMCK(op ? em_bitmap_mul(MA1, MB1, &Cc) : em_bitmap_add(MA2, MB2, &Cc));
      tc[r] = em_wtime() - t0;
      t0 = em_wtime();
      EMCK(op ? em_bitmap_mul_cuda(MA1, MB1, &Cg, &ms) : em_bitmap_add_cuda(MA2, MB2, &Cg, &ms));
      tw[r] = em_wtime() - t0;
      tg[r] = ms * 1e-3;
    }
    if (!same(Cg, Cc, op ? 1e-12 : 0)) {
      fprintf(stderr, "WRONG RESULT: GPU %s differs from the CPU's\n", op ? "product" : "sum");
      failed = 1;
    }
    printf("| %s | %lld | %.3f | %.3f | %.3f | %.1f |\n", op ? "product A B" : "sum A + B",
           (long long)Cc->info.nnz, bench_median(tc, REPS) * 1e3, bench_median(tg, REPS) * 1e3,
           bench_median(tw, REPS) * 1e3, bench_median(tc, REPS) / bench_median(tg, REPS));
    em_spmat_destroy(&Cc);
    em_spmat_destroy(&Cg);
  }
  /* LU: order-1 FEM matrices on small boxes in mesh numbering (the fill of
   * the profile grows as n^5, the CPU's work as n^7: order 2 on 4^3 x 6
   * already takes 44 s on one core), and a 2^20 + 1 band matrix (|i - j|
   * <= 5, entries at random: each row waits on the previous one, the GPU's
   * worst case) */
  const int lu_box[2] = {quick ? 2 : 6, quick ? 3 : 8};
  for (int c = 0; c < 3; c++) {
    em_csr *L = NULL;
    char what[96];
    if (c < 2) {
      EMCK(em_fem_pattern_box(lu_box[c], 1, 5, &L, NULL));
      snprintf(what, sizeof what, "order-1 FEM %d^3 x 6", lu_box[c]);
    } else {
      L = band_csr(quick ? 1000 : (1 << 20) + 1, 5);
      snprintf(what, sizeof what, "band |i - j| <= 5");
    }
    for (int32_t i = 0; i < L->n_rows; i++) { /* diagonally dominant */
      double rs = 1;
      for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++) rs += cabs(L->val[k]);
      for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
        if (L->colind[k] == i) L->val[k] += rs;
    }
    em_spmat *ML = bitmap(L), *Cc = NULL, *Cg = NULL;
    for (int r = 0; r < REPS; r++) {
      em_spmat_destroy(&Cc);
      em_spmat_destroy(&Cg);
      double t0 = em_wtime();
      EMCK(em_bitmap_lu(ML, &Cc));
      tc[r] = em_wtime() - t0;
      t0 = em_wtime();
      EMCK(em_bitmap_lu_cuda(ML, &Cg, &ms));
      tw[r] = em_wtime() - t0;
      tg[r] = ms * 1e-3;
    }
    if (!same(Cg, Cc, 1e-12)) {
      fprintf(stderr, "WRONG RESULT: GPU LU differs from the CPU's\n");
      failed = 1;
    }
    printf("| LU, %s, %d rows, nnz %lld (CPU 1 core) | %lld | %.3f | %.3f | %.3f | %.2f |\n", what,
           L->n_rows, (long long)L->nnz, (long long)Cc->info.nnz, bench_median(tc, REPS) * 1e3,
           bench_median(tg, REPS) * 1e3, bench_median(tw, REPS) * 1e3,
           bench_median(tc, REPS) / bench_median(tg, REPS));
    em_spmat_destroy(&Cc);
    em_spmat_destroy(&Cg);
    em_spmat_destroy(&ML);
    em_csr_destroy(&L);
  }
  em_spmat_destroy(&MA2);
  em_spmat_destroy(&MB2);
  em_spmat_destroy(&MA1);
  em_spmat_destroy(&MB1);
  em_csr_destroy(&A2);
  em_csr_destroy(&B2);
  em_csr_destroy(&A1);
  em_csr_destroy(&B1);
  free(qi);
  free(qj);
  free(ag);
  free(ac);
  if (failed) fprintf(stderr, "bitmap_ops_bench: WRONG RESULTS\n");
  return failed;
}
