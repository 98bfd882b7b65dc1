/* pmg_vops.c - the V-cycle's vector operations on the CPU (OpenMP). */
#include <string.h>

#include "pmg_impl.h"

static em_err zero(int32_t n, void *x) {
  memset(x, 0, 16 * (size_t)n);
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

/* c[k] = a[idx[k]] - b[k] (b NULL: 0) */
static em_err gather_sub(int32_t n, const int32_t *idx, const void *a, const void *b, void *c) {
  const em_cplx *x = a, *y = b;
  em_cplx *z = c;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t k = 0; k < n; k++) z[k] = y ? x[idx[k]] - y[k] : x[idx[k]];
  return EM_OK;
}

/* y[idx[k]] += w x[k] (the indices are distinct) */
static em_err scatter_add(int32_t n, const int32_t *idx, double w, const void *x, void *y) {
  const em_cplx *a = x;
  em_cplx *b = y;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t k = 0; k < n; k++) b[idx[k]] += w * a[k];
  return EM_OK;
}

static em_err sync(void) {
  return EM_OK;
}

const pmg_vops em_pmg_vops_cpu = {zero, sub, gather_sub, scatter_add, sync};
