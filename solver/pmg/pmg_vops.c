/* pmg_vops.c - the V-cycle's vector operations on the CPU (OpenMP). */
#include <string.h>

#include "pmg_impl.h"

static em_err zero(int32_t n, void *x) {
  memset(x, 0, 16 * (size_t)n);
  return EM_OK;
}

static em_err copy(int32_t n, const void *x, void *y) {
  memcpy(y, x, 16 * (size_t)n);
  return EM_OK;
}

/* c = a - b */
static em_err sub(int32_t n, const void *a, const void *b, void *c) {
  const em_cplx *x = a, *y = b;
  em_cplx *z = c;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) z[i] = x[i] - y[i];
  return EM_OK;
}

/* y += w x */
static em_err axpy(int32_t n, double w, const void *x, void *y) {
  const em_cplx *a = x;
  em_cplx *b = y;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) b[i] += w * a[i];
  return EM_OK;
}

static em_err sync(void) {
  return EM_OK;
}

static em_err alloc(int32_t n, void **x) {
  return em_calloc(x, (size_t)n + 1, 16, "pmg work");
}

static void release(void **x) {
  em_free(x);
}

const pmg_vops em_pmg_vops_cpu = {zero, copy, sub, axpy, sync, alloc, release};
