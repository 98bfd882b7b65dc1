/* direct_bench_gpu.c - the device's dense complex rate, measured in the same
 * run as the factorization: cublasZgemm on n x n random matrices, median
 * of reps timed launches after a warm-up, 8 n^3 real flops each. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#include "bench_util.h"

double dbench_zgemm_tflops(int n, int reps);

double dbench_zgemm_tflops(int n, int reps) {
  size_t bytes = (size_t)n * n * sizeof(cuDoubleComplex);
  cuDoubleComplex *A = NULL, *B = NULL, *C = NULL;
  cublasHandle_t h = NULL;
  double rate = 0;
  double *ms = calloc((size_t)reps + 1, sizeof *ms);
  if (!ms || cudaMalloc((void **)&A, bytes) || cudaMalloc((void **)&B, bytes) ||
      cudaMalloc((void **)&C, bytes) || cublasCreate(&h))
    goto done;
  /* not zeros: a product of zeros can run faster than real data */
  cuDoubleComplex *hA = malloc(bytes);
  if (!hA) goto done;
  unsigned s = 12345;
  for (size_t i = 0; i < (size_t)n * n; i++) {
    s = s * 1103515245u + 12345u;
    hA[i].x = (double)(s >> 8) / 16777216.0 - 0.5;
    s = s * 1103515245u + 12345u;
    hA[i].y = (double)(s >> 8) / 16777216.0 - 0.5;
  }
  cudaMemcpy(A, hA, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hA, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(C, hA, bytes, cudaMemcpyHostToDevice);
  free(hA);
  const cuDoubleComplex one = {1, 0}, zero = {0, 0};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, A, n, B, n, &zero, C, n);
  for (int r = 0; r < reps; r++) {
    cudaEventRecord(e0, 0);
    cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, A, n, B, n, &zero, C, n);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    ms[r] = t;
  }
  rate = 8.0 * n * (double)n * n / (bench_median(ms, reps) * 1e-3) * 1e-12;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
done:
  free(ms);
  if (h) cublasDestroy(h);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  (void)cudaGetLastError();
  return rate;
}
