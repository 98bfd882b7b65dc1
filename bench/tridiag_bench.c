/* tridiag_bench.c - tridiagonal solves: the GPU split method against
 * cuSPARSE (gtsv2, gtsv2_nopivot for one system, gtsv2StridedBatch for a
 * batch) and against the CPU on all cores (the split method for one system,
 * Thomas per system for a batch) and Thomas on one core; real and complex
 * double, diagonally dominant random systems.  Medians of the timed runs
 * (GPU: CUDA events around the solve only, the data resident; CPU: wall
 * clock).  Every result is checked against Thomas: exit 1 when one differs
 * by more than 1e-10 relative.  Output: a markdown table on stdout.
 * --paths [--real] [n ...]: instead, issue 31's table (run_paths): the
 * original split method and the mapped data path beside the split method
 * and gtsv2_nopivot (a system larger than the GPU's memory: the mapped path
 * alone). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <cuda_runtime.h>
#include <cusparse.h>

#include "bench_util.h"
#include "em_linalg.h"

#define REPS 7

static unsigned long long rng = 88172645463325252ULL;
static double rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

#define CK(call)                                                                 \
  do {                                                                           \
    int s_ = (int)(call);                                                        \
    if (s_) {                                                                    \
      fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, s_); \
      exit(2);                                                                   \
    }                                                                            \
  } while (0)
#define EMCK(call)            \
  do {                        \
    if (call) {               \
      em_error_print(stderr); \
      exit(2);                \
    }                         \
  } while (0)

static int failed = 0;

/* max |x - r| / max |r| */
static double rel_err(int64_t N, int cplx, const void *x, const void *r) {
  double e = 0, s = 0;
  for (int64_t i = 0; i < N; i++) {
    em_cplx a = cplx ? ((const em_cplx *)x)[i] : ((const double *)x)[i];
    em_cplx b = cplx ? ((const em_cplx *)r)[i] : ((const double *)r)[i];
    e = fmax(e, cabs(a - b));
    s = fmax(s, cabs(b));
  }
  return e / s;
}

static void check(const char *what, double e) {
  if (!(e < 1e-10)) {
    fprintf(stderr, "WRONG RESULT: %s differs from Thomas by %.3g\n", what, e);
    failed = 1;
  }
}

/* cuSPARSE: which = 0 gtsv2, 1 gtsv2_nopivot, 2 gtsv2StridedBatch (in place on x) */
static int cusp(cusparseHandle_t h, int which, int cplx, int n, int batch, void *dl, void *d,
                void *du, void *x, void *buf, size_t *bytes) {
  if (!buf) {
    *bytes = 0;
    if (cplx) {
      if (which == 0) return cusparseZgtsv2_bufferSizeExt(h, n, 1, dl, d, du, x, n, bytes);
      if (which == 1) return cusparseZgtsv2_nopivot_bufferSizeExt(h, n, 1, dl, d, du, x, n, bytes);
      return cusparseZgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, batch, n, bytes);
    }
    if (which == 0) return cusparseDgtsv2_bufferSizeExt(h, n, 1, dl, d, du, x, n, bytes);
    if (which == 1) return cusparseDgtsv2_nopivot_bufferSizeExt(h, n, 1, dl, d, du, x, n, bytes);
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, batch, n, bytes);
  }
  if (cplx) {
    if (which == 0) return cusparseZgtsv2(h, n, 1, dl, d, du, x, n, buf);
    if (which == 1) return cusparseZgtsv2_nopivot(h, n, 1, dl, d, du, x, n, buf);
    return cusparseZgtsv2StridedBatch(h, n, dl, d, du, x, batch, n, buf);
  }
  if (which == 0) return cusparseDgtsv2(h, n, 1, dl, d, du, x, n, buf);
  if (which == 1) return cusparseDgtsv2_nopivot(h, n, 1, dl, d, du, x, n, buf);
  return cusparseDgtsv2StridedBatch(h, n, dl, d, du, x, batch, n, buf);
}

static void run(cusparseHandle_t h, int cplx, int64_t n, int64_t batch) {
  const int64_t N = n * batch;
  const size_t es = cplx ? sizeof(em_cplx) : sizeof(double), bytes = (size_t)N * es;
  char *hv[6];
  for (int q = 0; q < 6; q++) hv[q] = malloc(bytes); /* dl d du b x ref */
  for (int64_t i = 0; i < N; i++) {
    double v[7];
    for (int q = 0; q < 7; q++) v[q] = rnd();
    const int first = i % n == 0, last = i % n == n - 1; /* cuSPARSE wants these zero */
    if (cplx) {
      ((em_cplx *)hv[0])[i] = first ? 0 : v[0] + I * v[1];
      ((em_cplx *)hv[2])[i] = last ? 0 : v[2] + I * v[3];
      ((em_cplx *)hv[1])[i] = 2.5 + v[4] + I * v[5];
      ((em_cplx *)hv[3])[i] = v[6] + I * v[0];
    } else {
      ((double *)hv[0])[i] = first ? 0 : v[0];
      ((double *)hv[2])[i] = last ? 0 : v[2];
      ((double *)hv[1])[i] = 2.5 + v[4];
      ((double *)hv[3])[i] = v[6];
    }
  }
  /* Thomas, one core, the reference */
  double t1 = em_wtime();
  for (int64_t k = 0; k < batch; k++) {
    const size_t o = (size_t)k * n * es;
    if (cplx)
      EMCK(em_tridiag_thomas_z(n, (em_cplx *)(hv[0] + o), (em_cplx *)(hv[1] + o),
                               (em_cplx *)(hv[2] + o), (em_cplx *)(hv[3] + o),
                               (em_cplx *)(hv[5] + o)));
    else
      EMCK(em_tridiag_thomas(n, (double *)(hv[0] + o), (double *)(hv[1] + o), (double *)(hv[2] + o),
                             (double *)(hv[3] + o), (double *)(hv[5] + o)));
  }
  t1 = em_wtime() - t1;
  /* all cores */
  double tc[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = em_wtime();
    if (cplx)
      EMCK(em_tridiag_solve_cpu_z(n, batch, (em_cplx *)hv[0], (em_cplx *)hv[1], (em_cplx *)hv[2],
                                  (em_cplx *)hv[3], (em_cplx *)hv[4]));
    else
      EMCK(em_tridiag_solve_cpu(n, batch, (double *)hv[0], (double *)hv[1], (double *)hv[2],
                                (double *)hv[3], (double *)hv[4]));
    tc[r] = em_wtime() - t0;
  }
  double ecpu = rel_err(N, cplx, hv[4], hv[5]);
  check("CPU all cores", ecpu);
  /* GPU split method */
  void *dv[5];
  for (int q = 0; q < 5; q++) CK(cudaMalloc(&dv[q], bytes));
  for (int q = 0; q < 4; q++) CK(cudaMemcpy(dv[q], hv[q], bytes, cudaMemcpyHostToDevice));
  em_tridiag_gpu *t = NULL;
  EMCK(em_tridiag_gpu_create(n, batch, cplx, &t));
  int64_t blk = 0;
  int levels = 0;
  em_tridiag_gpu_shape(t, &blk, &levels);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double tg[REPS];
  EMCK(em_tridiag_gpu_solve(t, dv[0], dv[1], dv[2], dv[3], dv[4])); /* warm-up */
  for (int r = 0; r < REPS; r++) {
    float ms = 0;
    CK(cudaEventRecord(e0, 0));
    EMCK(em_tridiag_gpu_solve(t, dv[0], dv[1], dv[2], dv[3], dv[4]));
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    tg[r] = ms * 1e-3;
  }
  CK(cudaMemcpy(hv[4], dv[4], bytes, cudaMemcpyDeviceToHost));
  double egpu = rel_err(N, cplx, hv[4], hv[5]);
  check("GPU split", egpu);
  em_tridiag_gpu_destroy(&t);
  /* cuSPARSE: one system both gtsv2 flavours, a batch gtsv2StridedBatch */
  double ts[2] = {0, 0}, es2[2] = {0, 0};
  const int kinds[2] = {batch == 1 ? 0 : 2, batch == 1 ? 1 : -1};
  for (int w = 0; w < 2; w++) {
    if (kinds[w] < 0) continue;
    size_t bb = 0;
    void *buf = NULL;
    CK(cusp(h, kinds[w], cplx, (int)n, (int)batch, dv[0], dv[1], dv[2], dv[4], NULL, &bb));
    CK(cudaMalloc(&buf, bb + 16));
    double tt[REPS];
    for (int r = -1; r < REPS; r++) {
      float ms = 0;
      CK(cudaMemcpy(dv[4], dv[3], bytes, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(e0, 0));
      CK(cusp(h, kinds[w], cplx, (int)n, (int)batch, dv[0], dv[1], dv[2], dv[4], buf, &bb));
      CK(cudaEventRecord(e1, 0));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) tt[r] = ms * 1e-3;
    }
    ts[w] = bench_median(tt, REPS);
    CK(cudaMemcpy(hv[4], dv[4], bytes, cudaMemcpyDeviceToHost));
    es2[w] = rel_err(N, cplx, hv[4], hv[5]);
    check(kinds[w] == 0 ? "gtsv2" : kinds[w] == 1 ? "gtsv2_nopivot" : "gtsv2StridedBatch", es2[w]);
    cudaFree(buf);
  }
  double mg = bench_median(tg, REPS), mc = bench_median(tc, REPS);
  char cs[96], ratio[64];
  if (batch == 1) {
    snprintf(cs, sizeof cs, "gtsv2 %.3f, nopivot %.3f", ts[0] * 1e3, ts[1] * 1e3);
    snprintf(ratio, sizeof ratio, "%.2f, %.2f", ts[0] / mg, ts[1] / mg);
  } else {
    snprintf(cs, sizeof cs, "StridedBatch %.3f", ts[0] * 1e3);
    snprintf(ratio, sizeof ratio, "%.2f", ts[0] / mg);
  }
  printf("| %s | %lld | %lld | %lld / %d | %.3f | %.3f | %.3f | %s | %s | %.1f | %.1e |\n",
         cplx ? "complex" : "real", (long long)n, (long long)batch, (long long)blk, levels,
         t1 * 1e3, mc * 1e3, mg * 1e3, cs, ratio, mc / mg, fmax(egpu, fmax(es2[0], es2[1])));
  fflush(stdout);
  for (int q = 0; q < 5; q++) cudaFree(dv[q]);
  for (int q = 0; q < 6; q++) free(hv[q]);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

/* max_i |(T x - b)_i| / max_i |b_i| of the system v = dl, d, du, b, x */
static double resid_rel(int64_t n, int cplx, void *const v[5]) {
  double r = 0, s = 0;
#pragma omp parallel for reduction(max : r, s)
  for (int64_t i = 0; i < n; i++) {
#define TD_AT(q, k) (cplx ? ((const em_cplx *)v[q])[k] : ((const double *)v[q])[k])
    em_cplx t = TD_AT(1, i) * TD_AT(4, i) - TD_AT(3, i);
    if (i > 0) t += TD_AT(0, i) * TD_AT(4, i - 1);
    if (i < n - 1) t += TD_AT(2, i) * TD_AT(4, i + 1);
    r = fmax(r, cabs(t));
    s = fmax(s, cabs(TD_AT(3, i)));
#undef TD_AT
  }
  return r / s;
}

/* median ms of reps (<= REPS) solves by plan t on the arrays v (device or host) */
static double time_plan(em_tridiag_gpu *t, void *const v[5], int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double tt[REPS];
  EMCK(em_tridiag_gpu_solve(t, v[0], v[1], v[2], v[3], v[4])); /* warm-up */
  for (int r = 0; r < reps; r++) {
    float ms = 0;
    CK(cudaEventRecord(e0, 0));
    EMCK(em_tridiag_gpu_solve(t, v[0], v[1], v[2], v[3], v[4]));
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    tt[r] = ms;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return bench_median(tt, reps);
}

/* Issue 31, seed 001: one system of n rows by the split method with the
 * dependencies pre-eliminated, by the original split method (the reduced
 * system serial), by gtsv2_nopivot, all resident; then the data paths of
 * the split method from pinned host arrays: copies in, solve, copy out
 * (wall clock of the three), and mapped (zero-copy: the kernels read the
 * host arrays).  A row per n; every result against Thomas. */
static void run_paths(cusparseHandle_t h, int cplx, int64_t n) {
  const size_t es = cplx ? sizeof(em_cplx) : sizeof(double), bytes = (size_t)n * es;
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  /* the system (5 arrays) and the split workspace (4) on the device: larger
     than the GPU's memory, only the mapped path runs */
  const int resident = 9 * bytes < free_b / 10 * 9;
  /* beyond the GPU: no Thomas reference (host memory), the residual instead */
  void *hv[5], *dv[5] = {0}, *ref = resident ? malloc(bytes) : NULL,
               *out = resident ? malloc(bytes) : NULL;
  if (resident && (!ref || !out)) {
    fprintf(stderr, "tridiag_bench: no host memory for %lld rows\n", (long long)n);
    exit(2);
  }
  for (int q = 0; q < 5; q++) {
    CK(cudaHostAlloc(&hv[q], bytes, cudaHostAllocMapped));
    if (resident) CK(cudaMalloc(&dv[q], bytes));
  }
  for (int64_t i = 0; i < n; i++) {
    double v[7];
    for (int q = 0; q < 7; q++) v[q] = rnd();
    const double l = i == 0 ? 0 : v[0], u = i == n - 1 ? 0 : v[2];
    if (cplx) {
      ((em_cplx *)hv[0])[i] = l + I * (i ? v[1] : 0);
      ((em_cplx *)hv[2])[i] = u + I * (i < n - 1 ? v[3] : 0);
      ((em_cplx *)hv[1])[i] = 2.5 + v[4] + I * v[5];
      ((em_cplx *)hv[3])[i] = v[6] + I * v[0];
    } else {
      ((double *)hv[0])[i] = l;
      ((double *)hv[2])[i] = u;
      ((double *)hv[1])[i] = 2.5 + v[4];
      ((double *)hv[3])[i] = v[6];
    }
  }
  if (resident && cplx)
    EMCK(em_tridiag_thomas_z(n, hv[0], hv[1], hv[2], hv[3], ref));
  else if (resident)
    EMCK(em_tridiag_thomas(n, hv[0], hv[1], hv[2], hv[3], ref));
  for (int q = 0; q < 4 && resident; q++)
    CK(cudaMemcpy(dv[q], hv[q], bytes, cudaMemcpyHostToDevice));
  double ms[5] = {0, 0, 0, 0, 0}, err = 0;
  const char *what[5] = {"split", "original split", "gtsv2_nopivot", "split + copies", "mapped"};
  for (int w = resident ? 0 : 4; w < 5; w++) {
    em_tridiag_gpu *t = NULL;
    if (w == 2) { /* cuSPARSE, in place on a copy of b */
      size_t bb = 0;
      void *buf = NULL;
      CK(cusp(h, 1, cplx, (int)n, 1, dv[0], dv[1], dv[2], dv[4], NULL, &bb));
      CK(cudaMalloc(&buf, bb + 16));
      double tt[REPS];
      for (int r = -1; r < REPS; r++) {
        CK(cudaMemcpy(dv[4], dv[3], bytes, cudaMemcpyDeviceToDevice));
        CK(cudaDeviceSynchronize());
        double t0 = em_wtime();
        CK(cusp(h, 1, cplx, (int)n, 1, dv[0], dv[1], dv[2], dv[4], buf, &bb));
        CK(cudaDeviceSynchronize());
        if (r >= 0) tt[r] = (em_wtime() - t0) * 1e3;
      }
      ms[w] = bench_median(tt, REPS);
      cudaFree(buf);
      CK(cudaMemcpy(out, dv[4], bytes, cudaMemcpyDeviceToHost));
    } else if (w == 3) { /* wall clock: 4 copies in, the solve, x out */
      EMCK(em_tridiag_gpu_create(n, 1, cplx, &t));
      double tt[REPS];
      for (int r = -1; r < REPS; r++) {
        double t0 = em_wtime();
        for (int q = 0; q < 4; q++) CK(cudaMemcpy(dv[q], hv[q], bytes, cudaMemcpyHostToDevice));
        EMCK(em_tridiag_gpu_solve(t, dv[0], dv[1], dv[2], dv[3], dv[4]));
        CK(cudaMemcpy(hv[4], dv[4], bytes, cudaMemcpyDeviceToHost));
        if (r >= 0) tt[r] = (em_wtime() - t0) * 1e3;
      }
      ms[w] = bench_median(tt, REPS);
      memcpy(out, hv[4], bytes);
    } else {
      const int fl = w == 1 ? EM_TRIDIAG_ORIGINAL : w == 4 ? EM_TRIDIAG_MAPPED : 0;
      EMCK(em_tridiag_gpu_create_opts(n, 1, cplx, fl, &t));
      ms[w] = time_plan(t, w == 4 ? hv : dv, w == 4 ? 3 : REPS); /* mapped: slow, 3 runs */
      if (w == 4 && !resident) {                                 /* max |T x - b| / max |b| */
        em_tridiag_gpu_destroy(&t);
        double e = resid_rel(n, cplx, hv);
        check("mapped (residual)", e);
        err = fmax(err, e);
        continue;
      }
      if (w == 4)
        memcpy(out, hv[4], bytes);
      else
        CK(cudaMemcpy(out, dv[4], bytes, cudaMemcpyDeviceToHost));
    }
    em_tridiag_gpu_destroy(&t);
    double e = rel_err(n, cplx, out, ref);
    check(what[w], e);
    err = fmax(err, e);
  }
  /* bytes moved over the bus by the mapped solve: 4 arrays in, x out, the
     workspace (4 n) written and read twice: a lower bound */
  const double gbs = (double)bytes * 5 / (ms[4] * 1e-3) / 1e9;
  if (resident)
    printf("| %s | %lld | %.3f | %.3f | %.2f | %.3f | %.2f | %.3f | %.3f | %.1f | %.1e |\n",
           cplx ? "complex" : "real", (long long)n, ms[0], ms[1], ms[1] / ms[0], ms[2],
           ms[2] / ms[0], ms[3], ms[4], gbs, err);
  else /* larger than the GPU: the mapped path alone */
    printf("| %s | %lld (%.0f GB > GPU) | - | - | - | - | - | - | %.3f | %.1f | %.1e |\n",
           cplx ? "complex" : "real", (long long)n, 9.0 * bytes / 1e9, ms[4], gbs, err);
  fflush(stdout);
  for (int q = 0; q < 5; q++) {
    cudaFreeHost(hv[q]);
    cudaFree(dv[q]);
  }
  free(ref);
  free(out);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  int paths = argc > 1 && !strcmp(argv[1], "--paths"); /* issue 31's table only */
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    fprintf(stderr, "tridiag_bench: no GPU\n");
    return 77;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("# tridiagonal solves: %s (%d SMs), CPU %d threads\n\n", prop.name,
         prop.multiProcessorCount, threads);
  if (!paths)
    printf(
        "| scalar | n | batch | split block / levels | Thomas 1 core ms | CPU all cores ms | "
        "split GPU ms | cuSPARSE ms | cuSPARSE / split | CPU all / split | max rel err |\n");
  if (!paths) printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  cusparseHandle_t h;
  CK(cusparseCreate(&h));
  if (paths) { /* --paths [n ...]: the seed-001 table */
    printf(
        "\n| scalar | n | split ms | original split ms | original / split | "
        "gtsv2_nopivot ms | nopivot / split | split + copies ms | mapped ms | mapped GB/s "
        "(5 arrays) | max rel err |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    int a0 = 2, only_real = argc > 2 && !strcmp(argv[2], "--real");
    a0 += only_real;
    for (int cplx = 0; cplx < (only_real ? 1 : 2); cplx++)
      for (int a = a0; a < argc; a++) run_paths(h, cplx, atoll(argv[a]));
    if (argc == a0)
      for (int cplx = 0; cplx < 2; cplx++)
        for (int64_t n = 1 << 20; n <= (1 << 24); n *= 4) run_paths(h, cplx, n);
    cusparseDestroy(h);
    return failed;
  }
  const int64_t single[] = {1 << 20, 1 << 22, 1 << 24};
  const int64_t bat[][2] = {{64, 65536}, {1024, 4096}, {16384, 256}};
  for (int cplx = 0; cplx < 2; cplx++) {
    for (int s = 0; s < (quick ? 1 : 3); s++) run(h, cplx, single[s], 1);
    for (int s = 0; s < (quick ? 1 : 3); s++) run(h, cplx, bat[s][0], bat[s][1]);
  }
  cusparseDestroy(h);
  if (failed) fprintf(stderr, "tridiag_bench: WRONG RESULTS\n");
  return failed;
}
