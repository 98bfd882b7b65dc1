/* gf2_bench.c - Gaussian elimination over GF(2), one bit per element in
 * 32-bit words: the GPU (linalg/gf2_cuda.cu) against the packed CPU
 * reference on all cores, dense n x n matrices of known rank n - 17 (a
 * random unit upper triangular matrix, mixed by random row operations, then
 * 17 rows replaced by sums of two others), n = 4096 .. 32768.  Row echelon
 * form (not reduced).  GPU: medians of 3 of the device time of the elimination
 * (events) and of the wall time with the copies; CPU: wall time (skipped above --cpu-max, 16384
 * by default: its cost grows as n^3).  Exit 1 when a rank is not n - 17 or
 * the GPU's echelon form differs from the CPU's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <cuda_runtime.h>

#include "bench_util.h"
#include "em_linalg.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static uint32_t r32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 17);
}

static em_gf2 *make(int n, int deficit) {
  em_gf2 *A = NULL;
  if (em_gf2_create(n, n, &A)) exit(2);
  const int W = A->words;
  for (int i = 0; i < n; i++) { /* unit upper triangular, random above */
    uint32_t *row = A->w + (int64_t)i * W;
    for (int k = i / 32; k < W; k++) row[k] = r32();
    row[i / 32] &= ~((1u << (i % 32)) - 1);
    row[i / 32] |= 1u << (i % 32);
    if (n % 32) row[W - 1] &= (1u << (n % 32)) - 1;
  }
  for (int t = 0; t < 4 * n; t++) { /* row_i ^= row_j keeps the rank */
    int i = (int)(r32() % (uint32_t)n), j = (int)(r32() % (uint32_t)n);
    if (i == j) continue;
    uint32_t *a = A->w + (int64_t)i * W, *b = A->w + (int64_t)j * W;
    for (int k = 0; k < W; k++) a[k] ^= b[k];
  }
  for (int t = 0; t < deficit; t++) { /* row n-1-t = row a + row b, a, b < n - deficit */
    int i = n - 1 - t, a = (int)(r32() % (uint32_t)(n - deficit)),
        b = (int)(r32() % (uint32_t)(n - deficit));
    if (a == b) b = (b + 1) % (n - deficit);
    uint32_t *r = A->w + (int64_t)i * W, *pa = A->w + (int64_t)a * W, *pb = A->w + (int64_t)b * W;
    for (int k = 0; k < W; k++) r[k] = pa[k] ^ pb[k];
  }
  return A;
}

int main(int argc, char **argv) {
  int cpu_max = 16384, quick = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--cpu-max") && a + 1 < argc) cpu_max = atoi(argv[++a]);
    if (!strcmp(argv[a], "--quick")) quick = 1;
  }
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    fprintf(stderr, "gf2_bench: no GPU\n");
    return 77;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("# GF(2) row echelon form: %s, CPU %d threads\n\n", prop.name, threads);
  printf("| n | rank | GPU elimination s | GPU with copies s | CPU all cores s | CPU / GPU |\n");
  printf("|---|---|---|---|---|---|\n");
  int failed = 0;
  const int sizes[] = {4096, 8192, 16384, 32768};
  const int deficit = 17;
  for (int s = 0; s < (quick ? 1 : 4); s++) {
    const int n = sizes[s];
    em_gf2 *A = make(n, deficit), *G = NULL, *C = NULL;
    int32_t rg = -1, rc = -1;
    double ms = 0, tms[3], twall[3];
    for (int r = 0; r < 3; r++) {
      em_gf2_destroy(&G);
      if (em_gf2_copy(A, &G)) return 2;
      double t0 = em_wtime();
      if (em_gf2_echelon_cuda(G, 0, &rg, NULL, &ms)) {
        em_error_print(stderr);
        return 2;
      }
      double wall = em_wtime() - t0;
      tms[r] = ms;
      twall[r] = wall;
    }
    const double best_ms = bench_median(tms, 3), best_wall = bench_median(twall, 3);
    double tc = -1;
    if (n <= cpu_max) {
      if (em_gf2_copy(A, &C)) return 2;
      double t0 = em_wtime();
      if (em_gf2_echelon(C, 0, EM_BACKEND_CPU, &rc, NULL)) return 2;
      tc = em_wtime() - t0;
      if (rc != rg || memcmp(C->w, G->w, (size_t)n * C->words * 4)) {
        fprintf(stderr, "WRONG RESULT: n %d: GPU rank %d, CPU rank %d, echelon forms %s\n", n, rg,
                rc, memcmp(C->w, G->w, (size_t)n * C->words * 4) ? "differ" : "equal");
        failed = 1;
      }
    }
    if (rg != n - deficit) {
      fprintf(stderr, "WRONG RESULT: n %d: GPU rank %d, built %d\n", n, rg, n - deficit);
      failed = 1;
    }
    if (tc >= 0)
      printf("| %d | %d | %.3f | %.3f | %.3f | %.1f |\n", n, rg, best_ms * 1e-3, best_wall, tc,
             tc / (best_ms * 1e-3));
    else
      printf("| %d | %d | %.3f | %.3f | (not run) | |\n", n, rg, best_ms * 1e-3, best_wall);
    fflush(stdout);
    em_gf2_destroy(&A);
    em_gf2_destroy(&G);
    em_gf2_destroy(&C);
  }
  if (failed) fprintf(stderr, "gf2_bench: WRONG RESULTS\n");
  return failed;
}
