/* vec_cuda.c - the GPU vector backend: device arrays, cuBLAS for scaling,
 * axpy, single dot products and the GMRES block products, fused kernels
 * (vec_kernels.cu) for the rest.  Everything runs on the legacy default
 * stream; a reduction copies its k results back, which synchronises. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string.h>

#include "cuda_impl.h"
#include "vec_impl.h"

typedef struct vec_cuda {
  cublasHandle_t blas;   /* on the legacy default stream, host pointer mode */
  void *partial;         /* EM_SV_RED_BLOCKS * EM_VEC_MAX_DOTS double2: block sums */
  void *result;          /* EM_VEC_MAX_DOTS double2: the reduced dot products */
  void *hdev;            /* max_k entries: GMRES coefficients on the device */
  em_cplxf *hhost_f;     /* max_k entries: staging for single precision */
  em_cplxf *stage;       /* n entries: host staging for single-precision transfers */
  void *cpartial;        /* made at the first cdots: EM_SV_RED_BLOCKS * EM_VEC_MAX_DOTS *
                            EM_VEC_MAX_COLS double2 */
  void *cresult;         /* EM_VEC_MAX_DOTS * EM_VEC_MAX_COLS double2 */
  const int32_t *perm_h; /* the permutation perm_d holds (upload_perm, download_perm) */
  int32_t *perm_d;       /* n entries on the device */
  void *ptmp;            /* n entries: the unpermuted column on the device */
} vec_cuda;

static int single_of(const em_vec *v) {
  return v->prec == EM_PREC_SINGLE;
}

static em_err cu_alloc(em_vec *v, int count, void **x) {
  size_t bytes = (size_t)count * (size_t)v->n * v->elsize;
  EM_TRY(em_dev_alloc(x, NULL, bytes, NULL, "work vectors"));
  em_err err =
      em_cuda_status((int)cudaMemset(*x, 0, bytes), "cudaMemset(work vectors)", __FILE__, __LINE__);
  if (err) em_dev_free(x);
  return err;
}

static void cu_free(em_vec *v, void **x) {
  (void)v;
  em_dev_free(x);
}

static em_err cu_upload(em_vec *v, const em_cplx *h, void *x) {
  vec_cuda *c = v->data;
  size_t n = (size_t)v->n;
  if (n == 0) return EM_OK;
  if (!single_of(v)) {
    EM_CUDA(cudaMemcpy(x, h, n * sizeof *h, cudaMemcpyHostToDevice));
    return EM_OK;
  }
  for (size_t i = 0; i < n; i++) c->stage[i] = (em_cplxf)h[i];
  EM_CUDA(cudaMemcpy(x, c->stage, n * sizeof *c->stage, cudaMemcpyHostToDevice));
  return EM_OK;
}

static em_err cu_download(em_vec *v, const void *x, em_cplx *h) {
  vec_cuda *c = v->data;
  size_t n = (size_t)v->n;
  if (n == 0) return EM_OK;
  if (!single_of(v)) {
    EM_CUDA(cudaMemcpy(h, x, n * sizeof *h, cudaMemcpyDeviceToHost));
    return EM_OK;
  }
  EM_CUDA(cudaMemcpy(c->stage, x, n * sizeof *c->stage, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) h[i] = (em_cplx)c->stage[i];
  return EM_OK;
}

/* The permutation perm on the device (uploaded when it is another host
 * array than the last) and the column buffer: once per vector backend,
 * i.e. once per solve call for every column of a block. */
static em_err perm_ready(em_vec *v, const int32_t *perm) {
  vec_cuda *c = v->data;
  if (!c->ptmp) EM_TRY(em_dev_alloc(&c->ptmp, NULL, (size_t)v->n * v->elsize, NULL, "a column"));
  if (c->perm_h == perm && c->perm_d) return EM_OK;
  em_dev_free(&c->perm_d);
  c->perm_h = NULL;
  EM_TRY(em_dev_alloc((void **)&c->perm_d, perm, (size_t)v->n * sizeof *perm, NULL,
                      "the operator's row order"));
  c->perm_h = perm;
  return EM_OK;
}

/* x[perm[i]] = h[i]: h up as it is, scattered on the device */
static em_err cu_upload_perm(em_vec *v, const em_cplx *h, const int32_t *perm, void *x) {
  if (v->n == 0) return EM_OK;
  EM_TRY(perm_ready(v, perm));
  vec_cuda *c = v->data;
  EM_TRY(cu_upload(v, h, c->ptmp));
  return em_sv_cuda_permute(v->n, single_of(v), c->perm_d, c->ptmp, x, 0);
}

/* h[i] = x[perm[i]]: gathered on the device, then down */
static em_err cu_download_perm(em_vec *v, const void *x, const int32_t *perm, em_cplx *h) {
  if (v->n == 0) return EM_OK;
  EM_TRY(perm_ready(v, perm));
  vec_cuda *c = v->data;
  EM_TRY(em_sv_cuda_permute(v->n, single_of(v), c->perm_d, x, c->ptmp, 1));
  return cu_download(v, c->ptmp, h);
}

static em_err cu_set(em_vec *v, em_cplx a, void *x) {
  EM_TRY(em_sv_cuda_set(v->n, single_of(v), creal(a), cimag(a), x));
  return EM_OK;
}

static em_err cu_copy(em_vec *v, const void *x, void *y) {
  if (v->n == 0 || x == y) return EM_OK;
  EM_CUDA(cudaMemcpyAsync(y, x, (size_t)v->n * v->elsize, cudaMemcpyDeviceToDevice, 0));
  return EM_OK;
}

static em_err cu_scale(em_vec *v, em_cplx a, void *x) {
  vec_cuda *c = v->data;
  if (single_of(v)) {
    cuComplex s = {(float)creal(a), (float)cimag(a)};
    EM_CUBLAS(cublasCscal(c->blas, v->n, &s, x, 1));
  } else {
    cuDoubleComplex s = {creal(a), cimag(a)};
    EM_CUBLAS(cublasZscal(c->blas, v->n, &s, x, 1));
  }
  return EM_OK;
}

/* y = a x + b y: cuBLAS axpy when b = 1, the fused kernel otherwise */
static em_err cu_axpby(em_vec *v, em_cplx a, const void *x, em_cplx b, void *y) {
  vec_cuda *c = v->data;
  if (b == 1 && single_of(v)) {
    cuComplex s = {(float)creal(a), (float)cimag(a)};
    EM_CUBLAS(cublasCaxpy(c->blas, v->n, &s, x, 1, y, 1));
  } else if (b == 1) {
    cuDoubleComplex s = {creal(a), cimag(a)};
    EM_CUBLAS(cublasZaxpy(c->blas, v->n, &s, x, 1, y, 1));
  } else {
    EM_TRY(em_sv_cuda_axpby(v->n, single_of(v), creal(a), cimag(a), x, creal(b), cimag(b), y));
  }
  return EM_OK;
}

static em_err cu_axpbypcz(em_vec *v, em_cplx a, const void *x, em_cplx b, const void *y, em_cplx cc,
                          void *z) {
  double abc[6] = {creal(a), cimag(a), creal(b), cimag(b), creal(cc), cimag(cc)};
  EM_TRY(em_sv_cuda_axpbypcz(v->n, single_of(v), abc, x, y, z));
  return EM_OK;
}

/* k dot products in one kernel pass, one copy back (the synchronisation) */
static em_err cu_dots(em_vec *v, int k, const void *const *x, const void *const *y, const int *conj,
                      em_cplx *out) {
  vec_cuda *c = v->data;
  EM_CHECK(k >= 1 && k <= EM_VEC_MAX_DOTS, EM_ERR_INTERNAL, "%d fused dot products", k);
  double r[2 * EM_VEC_MAX_DOTS];
  EM_TRY(em_sv_cuda_dots(v->n, single_of(v), k, x, y, conj, c->partial, c->result));
  EM_CUDA(cudaMemcpy(r, c->result, (size_t)k * 2 * sizeof(double), cudaMemcpyDeviceToHost));
  for (int j = 0; j < k; j++) out[j] = r[2 * j] + I * r[2 * j + 1];
  return EM_OK;
}

/* h = V^H w with one cuBLAS gemv, then one copy back */
static em_err cu_mdot(em_vec *v, int k, const void *V, const void *w, em_cplx *h) {
  vec_cuda *c = v->data;
  EM_CHECK(k >= 1 && k <= v->max_k, EM_ERR_INTERNAL, "block of %d columns (max %d)", k, v->max_k);
  int ld = v->n > 0 ? v->n : 1;
  if (v->n == 0) {
    for (int j = 0; j < k; j++) h[j] = 0;
    return EM_OK;
  }
  if (single_of(v)) {
    cuComplex one = {1, 0}, zero = {0, 0};
    EM_CUBLAS(cublasCgemv(c->blas, CUBLAS_OP_C, v->n, k, &one, V, ld, w, 1, &zero, c->hdev, 1));
    EM_CUDA(cudaMemcpy(c->hhost_f, c->hdev, (size_t)k * sizeof(em_cplxf), cudaMemcpyDeviceToHost));
    for (int j = 0; j < k; j++) h[j] = (em_cplx)c->hhost_f[j];
  } else {
    cuDoubleComplex one = {1, 0}, zero = {0, 0};
    EM_CUBLAS(cublasZgemv(c->blas, CUBLAS_OP_C, v->n, k, &one, V, ld, w, 1, &zero, c->hdev, 1));
    EM_CUDA(cudaMemcpy(h, c->hdev, (size_t)k * sizeof(em_cplx), cudaMemcpyDeviceToHost));
  }
  return EM_OK;
}

/* w = alpha V h + beta w: h uploaded, one cuBLAS gemv */
static em_err cu_gemv(em_vec *v, int k, em_cplx alpha, const void *V, const em_cplx *h,
                      em_cplx beta, void *w) {
  vec_cuda *c = v->data;
  EM_CHECK(k >= 1 && k <= v->max_k, EM_ERR_INTERNAL, "block of %d columns (max %d)", k, v->max_k);
  if (v->n == 0) return EM_OK;
  if (single_of(v)) {
    for (int j = 0; j < k; j++) c->hhost_f[j] = (em_cplxf)h[j];
    EM_CUDA(cudaMemcpy(c->hdev, c->hhost_f, (size_t)k * sizeof(em_cplxf), cudaMemcpyHostToDevice));
    cuComplex a = {(float)creal(alpha), (float)cimag(alpha)};
    cuComplex b = {(float)creal(beta), (float)cimag(beta)};
    EM_CUBLAS(cublasCgemv(c->blas, CUBLAS_OP_N, v->n, k, &a, V, v->n, c->hdev, 1, &b, w, 1));
  } else {
    EM_CUDA(cudaMemcpy(c->hdev, h, (size_t)k * sizeof(em_cplx), cudaMemcpyHostToDevice));
    cuDoubleComplex a = {creal(alpha), cimag(alpha)}, b = {creal(beta), cimag(beta)};
    EM_CUBLAS(cublasZgemv(c->blas, CUBLAS_OP_N, v->n, k, &a, V, v->n, c->hdev, 1, &b, w, 1));
  }
  return EM_OK;
}

/* m sets of k dot products: one reduction launch pair, one copy back */
static em_err cu_cdots(em_vec *v, int m, int k, const void *const *x, const void *const *y,
                       const int *conj, em_cplx *out) {
  vec_cuda *c = v->data;
  EM_CHECK(k >= 1 && k <= EM_VEC_MAX_DOTS && m >= 1 && m <= EM_VEC_MAX_COLS, EM_ERR_INTERNAL,
           "%d sets of %d fused dot products", m, k);
  if (!c->cpartial) {
    size_t d2 = 2 * sizeof(double);
    EM_TRY(em_dev_alloc(&c->cpartial, NULL,
                        (size_t)EM_SV_RED_BLOCKS * EM_VEC_MAX_DOTS * EM_VEC_MAX_COLS * d2, NULL,
                        "dot-product block sums"));
    EM_TRY(em_dev_alloc(&c->cresult, NULL, (size_t)EM_VEC_MAX_DOTS * EM_VEC_MAX_COLS * d2, NULL,
                        "dot products"));
  }
  double r[2 * EM_VEC_MAX_DOTS * EM_VEC_MAX_COLS];
  EM_TRY(em_sv_cuda_cdots(v->n, single_of(v), m, k, x, y, conj, c->cpartial, c->cresult));
  EM_CUDA(cudaMemcpy(r, c->cresult, (size_t)(m * k) * 2 * sizeof(double), cudaMemcpyDeviceToHost));
  for (int j = 0; j < m * k; j++) out[j] = r[2 * j] + I * r[2 * j + 1];
  return EM_OK;
}

/* m axpby pairs in one launch */
static em_err cu_caxpby(em_vec *v, int m, const em_cplx *a, const void *const *x, const em_cplx *b,
                        void *const *y) {
  EM_CHECK(m >= 0 && m <= EM_VEC_MAX_COLS, EM_ERR_INTERNAL, "%d axpby pairs", m);
  double ab[4 * EM_VEC_MAX_COLS];
  for (int j = 0; j < m; j++) {
    ab[4 * j] = creal(a[j]), ab[4 * j + 1] = cimag(a[j]);
    ab[4 * j + 2] = creal(b[j]), ab[4 * j + 3] = cimag(b[j]);
  }
  EM_TRY(em_sv_cuda_caxpby(v->n, single_of(v), m, ab, x, y));
  return EM_OK;
}

/* m axpbypcz triples in one launch */
static em_err cu_caxpbypcz(em_vec *v, int m, const em_cplx *a, const void *const *x,
                           const em_cplx *b, const void *const *y, const em_cplx *c,
                           void *const *z) {
  EM_CHECK(m >= 0 && m <= EM_VEC_MAX_COLS, EM_ERR_INTERNAL, "%d axpbypcz triples", m);
  double abc[6 * EM_VEC_MAX_COLS];
  for (int j = 0; j < m; j++) {
    abc[6 * j] = creal(a[j]), abc[6 * j + 1] = cimag(a[j]);
    abc[6 * j + 2] = creal(b[j]), abc[6 * j + 3] = cimag(b[j]);
    abc[6 * j + 4] = creal(c[j]), abc[6 * j + 5] = cimag(c[j]);
  }
  EM_TRY(em_sv_cuda_caxpbypcz(v->n, single_of(v), m, abc, x, y, z));
  return EM_OK;
}

static em_err cu_sync(em_vec *v) {
  (void)v;
  EM_CUDA(cudaDeviceSynchronize());
  return EM_OK;
}

static void cu_destroy(em_vec *v) {
  vec_cuda *c = v->data;
  if (!c) return;
  if (c->blas) cublasDestroy(c->blas);
  em_dev_free(&c->partial);
  em_dev_free(&c->result);
  em_dev_free(&c->cpartial);
  em_dev_free(&c->cresult);
  em_dev_free(&c->hdev);
  em_free(&c->hhost_f);
  em_free(&c->stage);
  em_dev_free(&c->perm_d);
  em_dev_free(&c->ptmp);
  em_free(&v->data);
}

static const em_vec_ops CUDA_OPS = {
    cu_alloc, cu_free,     cu_upload,    cu_download,    cu_set,          cu_copy, cu_scale,
    cu_axpby, cu_axpbypcz, cu_dots,      cu_mdot,        cu_gemv,         cu_sync, cu_destroy,
    cu_cdots, cu_caxpby,   cu_caxpbypcz, cu_upload_perm, cu_download_perm};

em_err em_vec_cuda_init(em_vec *v) {
  vec_cuda *c = NULL;
  EM_TRY(em_calloc(&c, 1, sizeof *c, "CUDA vector backend"));
  v->data = c;
  v->ops = &CUDA_OPS; /* from here on, destroy frees whatever was made */
  EM_CUBLAS(cublasCreate(&c->blas));
  EM_CUBLAS(cublasSetStream(c->blas, 0));
  EM_CUBLAS(cublasSetPointerMode(c->blas, CUBLAS_POINTER_MODE_HOST));
  EM_TRY(em_dev_alloc(&c->partial, NULL,
                      (size_t)EM_SV_RED_BLOCKS * EM_VEC_MAX_DOTS * 2 * sizeof(double), NULL,
                      "dot-product block sums"));
  EM_TRY(em_dev_alloc(&c->result, NULL, (size_t)EM_VEC_MAX_DOTS * 2 * sizeof(double), NULL,
                      "dot products"));
  EM_TRY(
      em_dev_alloc(&c->hdev, NULL, (size_t)v->max_k * sizeof(em_cplx), NULL, "GMRES coefficients"));
  EM_TRY(em_calloc(&c->hhost_f, (size_t)v->max_k, sizeof *c->hhost_f, "GMRES coefficients"));
  if (v->prec == EM_PREC_SINGLE)
    EM_TRY(em_calloc(&c->stage, (size_t)v->n, sizeof *c->stage, "single-precision staging"));
  return EM_OK;
}
