/* pmg_vops.c - the V-cycle's vector operations on the CPU (OpenMP), k
 * columns in one pass over the rows (each entry computed as for one). */
#include <string.h>

#include "pmg_impl.h"

static em_err zero(int32_t n, int k, void *const *x) {
  for (int j = 0; j < k; j++) memset(x[j], 0, 16 * (size_t)n);
  return EM_OK;
}

/* c_j[q] = a_j[idx[q]] - b_j[bidx ? idx[q] : q] (b NULL: 0) */
static em_err gather_sub(int32_t n, const int32_t *idx, int k, const void *const *a,
                         const void *const *b, int bidx, void *const *c) {
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t q = 0; q < n; q++) {
    int32_t i = idx[q], ib = bidx ? i : q;
    for (int j = 0; j < k; j++) {
      const em_cplx *x = a[j];
      em_cplx *z = c[j];
      z[q] = b ? x[i] - ((const em_cplx *)b[j])[ib] : x[i];
    }
  }
  return EM_OK;
}

/* y_j[idx[q]] += w x_j[q] (the indices are distinct) */
static em_err scatter_add(int32_t n, const int32_t *idx, int k, double w, const void *const *x,
                          void *const *y) {
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t q = 0; q < n; q++)
    for (int j = 0; j < k; j++) ((em_cplx *)y[j])[idx[q]] += w * ((const em_cplx *)x[j])[q];
  return EM_OK;
}

/* the wall clock: the CPU's steps are done when they return */
static em_err stamp(void **s) {
  if (!*s) EM_TRY(em_calloc(s, 1, sizeof(double), "pmg time stamp"));
  *(double *)*s = em_wtime();
  return EM_OK;
}

static em_err stamp_ms(void *a, void *b, double *ms) {
  *ms = (*(double *)b - *(double *)a) * 1e3;
  return EM_OK;
}

static void stamp_free(void **s) {
  em_free(s);
}

static em_err alloc(size_t bytes, const void *h, void **x) {
  EM_TRY(em_calloc(x, bytes + 16, 1, "pmg work"));
  if (h && bytes) memcpy(*x, h, bytes);
  return EM_OK;
}

static void release(void **x) {
  em_free(x);
}

const pmg_vops em_pmg_vops_cpu = {zero,     gather_sub, scatter_add, stamp,
                                  stamp_ms, stamp_free, alloc,       release};
