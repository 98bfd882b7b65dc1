/* gf2_bench.c - Gaussian elimination over GF(2), one bit per element in
 * 32-bit words: the GPU (linalg/gf2_cuda.cu) against the packed CPU
 * reference on all cores and against M4RI (Debian's libm4ri,
 * mzd_echelonize_pluq), on dense n x n matrices of known rank n - 17 (a
 * random unit upper triangular matrix, mixed by random row operations, then
 * 17 rows replaced by sums of two others), n = 4096 .. 32768.
 *
 * Reduced row echelon form by default (unique, so the three must agree bit
 * for bit); --plain: the row echelon form (GPU and CPU bit for bit, M4RI's
 * full = 0 form is another echelon form: its rank only).  Times are medians
 * of --reps runs (default 3; one run for n >= --one-run-from, default 32768,
 * where a CPU run takes seconds): the GPU's device time of the elimination
 * (CUDA events) and its wall time with the copies; the CPU's and M4RI's wall
 * time (the copy into M4RI's layout not timed).  The CPU runs up to
 * --cpu-max, M4RI up to --m4ri-max (both 32768 by default).
 *
 * Exit 1 when a rank is not n - 17 or two echelon forms differ; 77 when
 * there is nothing to compare the CPU with (no GPU and no M4RI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "bench_util.h"
#include "em_linalg.h"
#ifdef EM_HAVE_M4RI
#include "gf2_m4ri.h"
#endif

enum { MAX_REPS = 15, MAX_SIZES = 16 };

/* xorshift64, the upper bits */
static uint32_t r32(unsigned long long *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (uint32_t)(*s >> 17);
}

/* The test matrix of the header: rank n - deficit by construction. */
static em_gf2 *make(int n, int deficit, unsigned long long *rng) {
  em_gf2 *A = NULL;
  if (em_gf2_create(n, n, &A)) exit(2);
  const int W = A->words;
  for (int i = 0; i < n; i++) { /* unit upper triangular, random above */
    uint32_t *row = A->w + (int64_t)i * W;
    for (int k = i / 32; k < W; k++) row[k] = r32(rng);
    row[i / 32] &= ~((1u << (i % 32)) - 1);
    row[i / 32] |= 1u << (i % 32);
    if (n % 32) row[W - 1] &= (1u << (n % 32)) - 1;
  }
  for (int t = 0; t < 4 * n; t++) { /* row_i ^= row_j keeps the rank */
    int i = (int)(r32(rng) % (uint32_t)n), j = (int)(r32(rng) % (uint32_t)n);
    if (i == j) continue;
    uint32_t *a = A->w + (int64_t)i * W, *b = A->w + (int64_t)j * W;
    for (int k = 0; k < W; k++) a[k] ^= b[k];
  }
  for (int t = 0; t < deficit; t++) { /* row n-1-t = row a + row b, a, b < n - deficit */
    int i = n - 1 - t, a = (int)(r32(rng) % (uint32_t)(n - deficit)),
        b = (int)(r32(rng) % (uint32_t)(n - deficit));
    if (a == b) b = (b + 1) % (n - deficit);
    uint32_t *r = A->w + (int64_t)i * W, *pa = A->w + (int64_t)a * W, *pb = A->w + (int64_t)b * W;
    for (int k = 0; k < W; k++) r[k] = pa[k] ^ pb[k];
  }
  return A;
}

/* a time, "-" when t < 0 (not run) */
static void cell(double t) {
  if (t >= 0)
    printf(" %.4f |", t);
  else
    printf(" - |");
}

/* num / den, "-" when either was not run */
static void ratio(double num, double den) {
  if (num >= 0 && den > 0)
    printf(num / den < 10 ? " %.2f |" : " %.1f |", num / den);
  else
    printf(" - |");
}

static void usage(void) {
  fprintf(stderr,
          "usage: gf2_bench [--sizes N,N,...] [--reps R] [--one-run-from N] [--cpu-max N]\n"
          "                 [--m4ri-max N] [--plain] [--quick]\n");
  exit(2);
}

int main(int argc, char **argv) {
  int sizes[MAX_SIZES] = {4096, 8192, 16384, 32768}, n_sizes = 4;
  int cpu_max = 32768, m4ri_max = 32768, reps = 3, one_run_from = 32768, reduced = 1;
  for (int a = 1; a < argc; a++) {
    const int more = a + 1 < argc;
    if (!strcmp(argv[a], "--cpu-max") && more)
      cpu_max = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--m4ri-max") && more)
      m4ri_max = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--reps") && more)
      reps = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--one-run-from") && more)
      one_run_from = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--plain"))
      reduced = 0;
    else if (!strcmp(argv[a], "--quick"))
      n_sizes = 1;
    else if (!strcmp(argv[a], "--sizes") && more) {
      n_sizes = 0;
      for (char *s = argv[++a], *end; *s && n_sizes < MAX_SIZES; s = *end ? end + 1 : end) {
        sizes[n_sizes] = (int)strtol(s, &end, 10);
        if (end == s || sizes[n_sizes] < 64) {
          fprintf(stderr, "gf2_bench: bad --sizes '%s' (sizes >= 64, comma-separated)\n", argv[a]);
          return 2;
        }
        n_sizes++;
      }
    } else {
      fprintf(stderr, "gf2_bench: unknown or incomplete option '%s'\n", argv[a]);
      usage();
    }
  }
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "gf2_bench: --reps %d: 1 to %d\n", reps, MAX_REPS);
    return 2;
  }
  int have_gpu = 0, have_m4ri = 0, threads = 1;
  char gpu_name[256] = "no GPU";
#ifdef EM_HAVE_CUDA
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    have_gpu = 1;
    snprintf(gpu_name, sizeof gpu_name, "%s", prop.name);
  }
#endif
#ifdef EM_HAVE_M4RI
  have_m4ri = 1;
#endif
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  if (!have_gpu && !have_m4ri) {
    fprintf(stderr, "gf2_bench: no GPU and no M4RI: nothing to compare the CPU with\n");
    return 77;
  }
  printf("# GF(2) %s: %s, CPU %d threads, M4RI %s\n\n",
         reduced ? "reduced row echelon form" : "row echelon form", gpu_name, threads,
#ifdef EM_HAVE_M4RI
         __M4RI_HAVE_OPENMP ? "mzd_echelonize_pluq (OpenMP build)"
                            : "mzd_echelonize_pluq (built without OpenMP: one core)"
#else
         "not built"
#endif
  );
  printf(
      "| n | rank | runs | GPU elimination s | GPU with copies s | CPU all cores s | M4RI s "
      "| CPU / GPU | M4RI / GPU | M4RI / CPU |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  fflush(stdout);
  int failed = 0;
  const int deficit = 17;
  unsigned long long rng = 0x9E3779B97F4A7C15ULL;
  for (int s = 0; s < n_sizes; s++) {
    const int n = sizes[s], runs = n >= one_run_from ? 1 : reps;
    em_gf2 *A = make(n, deficit, &rng), *G = NULL, *C = NULL;
    const size_t bytes = (size_t)n * (size_t)A->words * sizeof(uint32_t);
    int32_t rg = -1, rc = -1, rm = -1;
    double t_cpu[MAX_REPS], gpu_s = -1, gpu_wall = -1, cpu_s = -1, m4_s = -1;
#ifdef EM_HAVE_CUDA
    double t_ms[MAX_REPS], t_wall[MAX_REPS];
    for (int r = 0; have_gpu && r < runs; r++) {
      em_gf2_destroy(&G);
      if (em_gf2_copy(A, &G)) return 2;
      double ms = 0, t0 = em_wtime();
      if (em_gf2_echelon_cuda(G, reduced, &rg, NULL, &ms)) {
        em_error_print(stderr);
        return 2;
      }
      t_wall[r] = em_wtime() - t0;
      t_ms[r] = ms * 1e-3;
      gpu_s = bench_median(t_ms, r + 1);
      gpu_wall = bench_median(t_wall, r + 1);
    }
#endif
    for (int r = 0; n <= cpu_max && r < runs; r++) {
      em_gf2_destroy(&C);
      if (em_gf2_copy(A, &C)) return 2;
      double t0 = em_wtime();
      if (em_gf2_echelon(C, reduced, EM_BACKEND_CPU, &rc, NULL)) return 2;
      t_cpu[r] = em_wtime() - t0;
      cpu_s = bench_median(t_cpu, r + 1);
    }
#ifdef EM_HAVE_M4RI
    if (n <= m4ri_max) {
      mzd_t *M0 = em_test_gf2_to_mzd(A), *M = NULL;
      double t_m4[MAX_REPS];
      for (int r = 0; r < runs; r++) {
        if (M) mzd_free(M);
        M = mzd_copy(NULL, M0);
        double t0 = em_wtime();
        rm = mzd_echelonize_pluq(M, reduced);
        t_m4[r] = em_wtime() - t0;
        m4_s = bench_median(t_m4, r + 1);
      }
      const em_gf2 *ours = C ? C : G; /* compare with the CPU's, else the GPU's */
      int32_t row = -1;
      if (reduced && ours && !em_test_gf2_equal_mzd(ours, M, &row)) {
        fprintf(stderr,
                "WRONG RESULT: n %d: the %s reduced echelon form differs from M4RI's at row %d\n",
                n, C ? "CPU" : "GPU", row);
        failed = 1;
      }
      mzd_free(M);
      mzd_free(M0);
    }
#else
    (void)m4ri_max;
#endif
    if (G && C && memcmp(C->w, G->w, bytes)) {
      fprintf(stderr, "WRONG RESULT: n %d: the GPU and CPU echelon forms differ\n", n);
      failed = 1;
    }
    const int32_t got[3] = {rg, rc, rm};
    const char *who[3] = {"GPU", "CPU", "M4RI"};
    const int ran[3] = {G != NULL, C != NULL, m4_s >= 0};
    for (int e = 0; e < 3; e++)
      if (ran[e] && got[e] != n - deficit) {
        fprintf(stderr, "WRONG RESULT: n %d: %s rank %d, built %d\n", n, who[e], got[e],
                n - deficit);
        failed = 1;
      }
    printf("| %d | %d | %d |", n, ran[0] ? rg : ran[1] ? rc : rm, runs);
    cell(gpu_s);
    cell(gpu_wall);
    cell(cpu_s);
    cell(m4_s);
    ratio(cpu_s, gpu_s);
    ratio(m4_s, gpu_s);
    ratio(m4_s, cpu_s);
    printf("\n");
    fflush(stdout);
    em_gf2_destroy(&A);
    em_gf2_destroy(&G);
    em_gf2_destroy(&C);
  }
  if (failed) fprintf(stderr, "gf2_bench: WRONG RESULTS\n");
  return failed;
}
