/* bitmap_ops_cuda.cu - random access, sum and product of bitmap matrices
 * on the GPU (one thread per query or per row), the CPU bitmaps copied in
 * and the result copied back into a CPU bitmap.  Sum and product count the
 * result's pattern per row first, an exclusive scan (CUB) gives the row
 * pointers, then a second pass fills the rows: as on the CPU, no
 * reallocation and no atomics. */
#include <cub/cub.cuh>

#include "bitmap_gpu.h"
#include "fmt_cuda.cuh"

#define BO_THREADS 128

/* a device copy of a host bitmap's arrays */
struct bo_dev {
  int32_t n_rows, n_cols;
  int64_t *wptr, *vptr;
  int32_t *widx;
  unsigned long long *mask;
  void *val;
};

static void bo_free(bo_dev *d) {
  em_dev_free(&d->wptr);
  em_dev_free(&d->vptr);
  em_dev_free(&d->widx);
  em_dev_free(&d->mask);
  em_dev_free(&d->val);
  memset(d, 0, sizeof *d);
}

static em_err bo_upload(const em_bitmap *h, size_t vs, bo_dev *d) {
  memset(d, 0, sizeof *d);
  d->n_rows = h->n_rows;
  d->n_cols = h->n_cols;
  const size_t np = ((size_t)h->n_rows + 1) * sizeof(int64_t);
  EM_TRY(em_dev_alloc((void **)&d->wptr, NULL, np, NULL, "bitmap word pointers"));
  EM_TRY(em_dev_alloc((void **)&d->vptr, NULL, np, NULL, "bitmap value offsets"));
  EM_TRY(em_dev_alloc((void **)&d->widx, NULL, (size_t)h->n_words * 4 + 4, NULL,
                      "bitmap word indices"));
  EM_TRY(em_dev_alloc((void **)&d->mask, NULL, (size_t)h->n_words * 8 + 8, NULL, "bitmap masks"));
  EM_TRY(em_dev_alloc(&d->val, NULL, (size_t)h->nnz * vs + vs, NULL, "bitmap values"));
  EM_CUDA(cudaMemcpy(d->wptr, h->wptr, np, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->vptr, h->vptr, np, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->widx, h->widx, (size_t)h->n_words * 4, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->mask, h->mask, (size_t)h->n_words * 8, cudaMemcpyHostToDevice));
  EM_CUDA(cudaMemcpy(d->val, h->val, (size_t)h->nnz * vs, cudaMemcpyHostToDevice));
  return EM_OK;
}

static int bo_grid(int64_t n) {
  return (int)((n + BO_THREADS - 1) / BO_THREADS);
}

/* first position in [lo, hi) whose word index is >= w (hi when none) */
__device__ __forceinline__ int64_t bo_find(const int32_t *widx, int64_t lo, int64_t hi, int32_t w) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (widx[mid] < w)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* a = M(i, j): the word's value offset is vptr[i] + the set bits of the
 * row's earlier words + those of the word below bit j % 64. */
template <typename V>
__global__ void __launch_bounds__(BO_THREADS)
    bo_get(int64_t n, const int64_t *__restrict__ wptr, const int32_t *__restrict__ widx,
           const unsigned long long *__restrict__ mask, const int64_t *__restrict__ vptr,
           const V *__restrict__ val, const int32_t *__restrict__ qi,
           const int32_t *__restrict__ qj, V *__restrict__ out) {
  const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int32_t i = qi[q], j = qj[q];
  const int64_t lo = wptr[i], hi = wptr[i + 1];
  const int64_t w = bo_find(widx, lo, hi, j >> 6);
  V a = em_czero<V>();
  if (w < hi && widx[w] == (j >> 6) && ((mask[w] >> (j & 63)) & 1)) {
    int64_t p = vptr[i];
    for (int64_t k = lo; k < w; k++) p += __popcll(mask[k]);
    a = val[p + __popcll(mask[w] & ((1ull << (j & 63)) - 1))];
  }
  out[q] = a;
}

/* ------------------------------------------------------------------ sum */

/* pass 1: words and set bits of row i of A + B (merge of the word lists) */
__global__ void __launch_bounds__(BO_THREADS)
    bo_add_count(int32_t n, bo_dev a, bo_dev b, int64_t *__restrict__ nw,
                 int64_t *__restrict__ nz) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) { /* the scans are exclusive over n + 1 entries */
    nw[n] = nz[n] = 0;
    return;
  }
  int64_t pa = a.wptr[i], ea = a.wptr[i + 1], pb = b.wptr[i], eb = b.wptr[i + 1], w = 0, z = 0;
  while (pa < ea || pb < eb) {
    const int32_t wa = pa < ea ? a.widx[pa] : INT32_MAX, wb = pb < eb ? b.widx[pb] : INT32_MAX;
    const int32_t m = wa < wb ? wa : wb;
    const unsigned long long bits =
        (wa == m ? a.mask[pa++] : 0ull) | (wb == m ? b.mask[pb++] : 0ull);
    w++;
    z += __popcll(bits);
  }
  nw[i] = w;
  nz[i] = z;
}

/* pass 2: row i of C = A + B, values in bit order (summed where both hold
 * the bit) */
template <typename V>
__global__ void __launch_bounds__(BO_THREADS) bo_add_fill(int32_t n, bo_dev a, bo_dev b, bo_dev c) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const V *av = (const V *)a.val, *bv = (const V *)b.val;
  V *cv = (V *)c.val;
  int64_t pa = a.wptr[i], ea = a.wptr[i + 1], pb = b.wptr[i], eb = b.wptr[i + 1];
  int64_t pc = c.wptr[i], va = a.vptr[i], vb = b.vptr[i], vc = c.vptr[i];
  while (pa < ea || pb < eb) {
    const int32_t wa = pa < ea ? a.widx[pa] : INT32_MAX, wb = pb < eb ? b.widx[pb] : INT32_MAX;
    const int32_t w = wa < wb ? wa : wb;
    const unsigned long long ma = wa == w ? a.mask[pa++] : 0ull, mb = wb == w ? b.mask[pb++] : 0ull;
    c.widx[pc] = w;
    c.mask[pc++] = ma | mb;
    for (unsigned long long m = ma | mb; m; m &= m - 1) {
      const unsigned long long bit = m & (~m + 1);
      if ((ma & bit) && (mb & bit))
        cv[vc] = em_cadd(av[va++], bv[vb++]);
      else if (ma & bit)
        cv[vc] = av[va++];
      else
        cv[vc] = bv[vb++];
      vc++;
    }
  }
}

/* -------------------------------------------------------------- product */

/* an upper bound of row i's words in A B: the words of B's rows k over the
 * stored a_ik, capped at the row's column words */
__global__ void __launch_bounds__(BO_THREADS)
    bo_mul_bound(int32_t n, int32_t col_words, bo_dev a, bo_dev b, int64_t *__restrict__ ub) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    ub[n] = 0;
    return;
  }
  int64_t u = 0;
  for (int64_t wa = a.wptr[i]; wa < a.wptr[i + 1]; wa++)
    for (unsigned long long ma = a.mask[wa]; ma; ma &= ma - 1) {
      const int32_t k = a.widx[wa] * 64 + __ffsll((long long)ma) - 1;
      u += b.wptr[k + 1] - b.wptr[k];
    }
  ub[i] = u < col_words ? u : col_words;
}

/* pass 1: row i's words, sorted and unique with ORed masks, into the
 * scratch at sofs[i] (insertion into a short sorted list); their count and
 * set bits */
__global__ void __launch_bounds__(BO_THREADS)
    bo_mul_count(int32_t n, bo_dev a, bo_dev b, const int64_t *__restrict__ sofs,
                 int32_t *__restrict__ sw, unsigned long long *__restrict__ sm,
                 int64_t *__restrict__ nw, int64_t *__restrict__ nz) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    nw[n] = nz[n] = 0;
    return;
  }
  int32_t *W = sw + sofs[i];
  unsigned long long *M = sm + sofs[i];
  int64_t cnt = 0;
  for (int64_t wa = a.wptr[i]; wa < a.wptr[i + 1]; wa++)
    for (unsigned long long ma = a.mask[wa]; ma; ma &= ma - 1) {
      const int32_t k = a.widx[wa] * 64 + __ffsll((long long)ma) - 1;
      for (int64_t wb = b.wptr[k]; wb < b.wptr[k + 1]; wb++) {
        const int32_t w = b.widx[wb];
        int64_t p = cnt;
        while (p > 0 && W[p - 1] > w) p--;
        if (p > 0 && W[p - 1] == w) {
          M[p - 1] |= b.mask[wb];
          continue;
        }
        for (int64_t q = cnt; q > p; q--) {
          W[q] = W[q - 1];
          M[q] = M[q - 1];
        }
        W[p] = w;
        M[p] = b.mask[wb];
        cnt++;
      }
    }
  int64_t z = 0;
  for (int64_t q = 0; q < cnt; q++) z += __popcll(M[q]);
  nw[i] = cnt;
  nz[i] = z;
}

/* pass 2: C's words from the scratch, then c_ij += a_ik b_kj in the order
 * of the CPU (a_ik in column order, B's row in bit order); a value's place
 * is the row's set bits before its word (prefix kept in pre) plus the
 * word's bits below it */
template <typename V>
__global__ void __launch_bounds__(BO_THREADS)
    bo_mul_fill(int32_t n, bo_dev a, bo_dev b, bo_dev c, const int64_t *__restrict__ sofs,
                const int32_t *__restrict__ sw, const unsigned long long *__restrict__ sm,
                int64_t *__restrict__ pre) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t c0 = c.wptr[i], nwr = c.wptr[i + 1] - c0;
  int64_t *P = pre + sofs[i];
  int64_t run = 0;
  for (int64_t q = 0; q < nwr; q++) {
    c.widx[c0 + q] = sw[sofs[i] + q];
    c.mask[c0 + q] = sm[sofs[i] + q];
    P[q] = run;
    run += __popcll(sm[sofs[i] + q]);
  }
  const V *av = (const V *)a.val, *bv = (const V *)b.val;
  V *cv = (V *)c.val + c.vptr[i];
  for (int64_t q = 0; q < run; q++) cv[q] = em_czero<V>();
  int64_t pa = a.vptr[i];
  for (int64_t wa = a.wptr[i]; wa < a.wptr[i + 1]; wa++)
    for (unsigned long long ma = a.mask[wa]; ma; ma &= ma - 1) {
      const int32_t k = a.widx[wa] * 64 + __ffsll((long long)ma) - 1;
      const V aik = av[pa++];
      int64_t pb = b.vptr[k];
      for (int64_t wb = b.wptr[k]; wb < b.wptr[k + 1]; wb++) {
        const int64_t q = bo_find(c.widx, c0, c0 + nwr, b.widx[wb]) - c0;
        const unsigned long long cm = c.mask[c0 + q];
        for (unsigned long long mb = b.mask[wb]; mb; mb &= mb - 1) {
          const int bit = __ffsll((long long)mb) - 1;
          V *e = cv + P[q] + __popcll(cm & ((1ull << bit) - 1));
          *e = em_cfma(aik, bv[pb++], *e);
        }
      }
    }
}

/* ----------------------------------------------------------- the host side */

em_err em_bitmap_scan_cuda(const int64_t *in, int64_t *out, int64_t n) {
  size_t tmp_bytes = 0;
  void *tmp = NULL;
  em_err err = EM_OK;
  EM_FMT_TRY(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, in, out, n + 1), "cub scan size");
  EM_FMT_ALLOC(tmp, tmp_bytes + 8, "bitmap scan scratch");
  EM_FMT_TRY(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n + 1), "cub scan");
  em_dev_free(&tmp);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

/* c's row pointers = exclusive sums of the per-row counts of words nw and
 * of values nz, then its words and values allocated; totals read back. */
static em_err bo_alloc_result(const int64_t *nw, const int64_t *nz, bo_dev *c, size_t vs,
                              int64_t *n_words, int64_t *nnz) {
  EM_TRY(em_bitmap_scan_cuda(nw, c->wptr, c->n_rows));
  EM_TRY(em_bitmap_scan_cuda(nz, c->vptr, c->n_rows));
  EM_CUDA(cudaMemcpy(n_words, c->wptr + c->n_rows, sizeof *n_words, cudaMemcpyDeviceToHost));
  EM_CUDA(cudaMemcpy(nnz, c->vptr + c->n_rows, sizeof *nnz, cudaMemcpyDeviceToHost));
  EM_TRY(em_dev_alloc((void **)&c->widx, NULL, (size_t)*n_words * 4 + 4, NULL,
                      "bitmap result word indices"));
  EM_TRY(
      em_dev_alloc((void **)&c->mask, NULL, (size_t)*n_words * 8 + 8, NULL, "bitmap result masks"));
  EM_TRY(em_dev_alloc(&c->val, NULL, (size_t)*nnz * vs + vs, NULL, "bitmap result values"));
  return EM_OK;
}

/* the device result as a CPU bitmap matrix */
static em_err bo_download(const bo_dev *c, int64_t n_words, int64_t nnz, em_prec p, em_spmat **C) {
  em_bitmap *h = NULL;
  const size_t vs = em_prec_size(p), np = (size_t)c->n_rows + 1;
  em_err err = em_calloc(&h, 1, sizeof *h, "bitmap header");
  if (!err) {
    h->n_rows = c->n_rows;
    h->n_cols = c->n_cols;
    h->n_words = n_words;
    h->nnz = nnz;
    err = em_calloc(&h->wptr, np, sizeof *h->wptr, "bitmap word pointers");
  }
  if (!err) err = em_calloc(&h->vptr, np, sizeof *h->vptr, "bitmap value offsets");
  if (!err) err = em_calloc(&h->widx, (size_t)n_words, sizeof *h->widx, "bitmap word indices");
  if (!err) err = em_calloc(&h->mask, (size_t)n_words, sizeof *h->mask, "bitmap masks");
  if (!err) err = em_calloc(&h->val, (size_t)nnz, vs, "bitmap values");
  EM_FMT_TRY(cudaMemcpy(h->wptr, c->wptr, np * 8, cudaMemcpyDeviceToHost), "cudaMemcpy(wptr)");
  EM_FMT_TRY(cudaMemcpy(h->vptr, c->vptr, np * 8, cudaMemcpyDeviceToHost), "cudaMemcpy(vptr)");
  EM_FMT_TRY(cudaMemcpy(h->widx, c->widx, (size_t)n_words * 4, cudaMemcpyDeviceToHost),
             "cudaMemcpy(widx)");
  EM_FMT_TRY(cudaMemcpy(h->mask, c->mask, (size_t)n_words * 8, cudaMemcpyDeviceToHost),
             "cudaMemcpy(mask)");
  EM_FMT_TRY(cudaMemcpy(h->val, c->val, (size_t)nnz * vs, cudaMemcpyDeviceToHost),
             "cudaMemcpy(val)");
  if (err) {
    em_bitmap_free(&h);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  EM_TRY(em_bitmap_wrap(&h, p, C));
  return EM_OK;
}

static em_err bo_operands(const em_spmat *A, const em_spmat *B, em_spmat **C, const char *who,
                          const em_bitmap **a, const em_bitmap **b) {
  EM_CHECK(C, EM_ERR_ARG, "%s: NULL output", who);
  *C = NULL;
  EM_TRY(em_bitmap_host(A, who, a));
  EM_TRY(em_bitmap_host(B, who, b));
  EM_CHECK(A->info.prec == B->info.prec, EM_ERR_ARG, "%s: A and B differ in precision", who);
  return EM_OK;
}

static float bo_elapsed(cudaEvent_t e0, cudaEvent_t e1) {
  float t = 0;
  cudaEventSynchronize(e1);
  cudaEventElapsedTime(&t, e0, e1);
  return t;
}

/* Two events around the kernels of one operation: their GPU time alone. */
typedef struct bo_timer {
  cudaEvent_t e[2]; /* NULL until made */
} bo_timer;

/* make both events, record the first on the default stream */
static em_err bo_timer_start(bo_timer *t) {
  EM_CUDA(cudaEventCreate(&t->e[0]));
  EM_CUDA(cudaEventCreate(&t->e[1]));
  EM_CUDA(cudaEventRecord(t->e[0]));
  return EM_OK;
}

/* the launches so far checked (what: for the message), the second event
 * recorded, *ms = the time between (ms may be NULL) */
static em_err bo_timer_stop(bo_timer *t, const char *what, double *ms) {
  EM_TRY(em_cuda_status((int)cudaGetLastError(), what, __FILE__, __LINE__));
  EM_CUDA(cudaEventRecord(t->e[1]));
  if (ms) *ms = bo_elapsed(t->e[0], t->e[1]);
  return EM_OK;
}

static void bo_timer_free(bo_timer *t) {
  for (int q = 0; q < 2; q++)
    if (t->e[q]) cudaEventDestroy(t->e[q]);
}

extern "C" em_err em_bitmap_get_cuda(const em_spmat *M, int64_t n, const int32_t *i,
                                     const int32_t *j, em_cplx *a, double *ms) {
  const em_bitmap *h = NULL;
  EM_TRY(em_bitmap_host(M, "em_bitmap_get_cuda", &h));
  EM_CHECK(n >= 0 && (n == 0 || (i && j && a)), EM_ERR_ARG, "em_bitmap_get_cuda: %lld queries",
           (long long)n);
  for (int64_t q = 0; q < n; q++)
    EM_CHECK(i[q] >= 0 && i[q] < h->n_rows && j[q] >= 0 && j[q] < h->n_cols, EM_ERR_ARG,
             "em_bitmap_get_cuda: query %lld (%d, %d) outside %d x %d", (long long)q, i[q], j[q],
             h->n_rows, h->n_cols);
  if (ms) *ms = 0;
  if (n == 0) return EM_OK;
  const int single = M->info.prec == EM_PREC_SINGLE;
  const size_t vs = em_prec_size(M->info.prec);
  bo_dev d;
  int32_t *di = NULL, *dj = NULL;
  void *dout = NULL;
  bo_timer tm = {{NULL, NULL}};
  em_err err = bo_upload(h, vs, &d);
  EM_FMT_ALLOC(di, (size_t)n * 4, "bitmap query rows");
  EM_FMT_ALLOC(dj, (size_t)n * 4, "bitmap query columns");
  EM_FMT_ALLOC(dout, (size_t)n * vs, "bitmap query answers");
  EM_FMT_TRY(cudaMemcpy(di, i, (size_t)n * 4, cudaMemcpyHostToDevice), "cudaMemcpy(queries)");
  EM_FMT_TRY(cudaMemcpy(dj, j, (size_t)n * 4, cudaMemcpyHostToDevice), "cudaMemcpy(queries)");
  if (!err) err = bo_timer_start(&tm);
  if (!err && single)
    bo_get<float2><<<bo_grid(n), BO_THREADS>>>(n, d.wptr, d.widx, d.mask, d.vptr,
                                               (const float2 *)d.val, di, dj, (float2 *)dout);
  else if (!err)
    bo_get<double2><<<bo_grid(n), BO_THREADS>>>(n, d.wptr, d.widx, d.mask, d.vptr,
                                                (const double2 *)d.val, di, dj, (double2 *)dout);
  if (!err) err = bo_timer_stop(&tm, "bitmap get kernel", ms);
  if (!err && single) {
    em_cplxf *tmp = NULL;
    err = em_calloc(&tmp, (size_t)n, sizeof *tmp, "single answers");
    EM_FMT_TRY(cudaMemcpy(tmp, dout, (size_t)n * vs, cudaMemcpyDeviceToHost),
               "cudaMemcpy(answers)");
    for (int64_t q = 0; !err && q < n; q++) a[q] = em_cplx{tmp[q].re, tmp[q].im};
    em_free(&tmp);
  } else {
    EM_FMT_TRY(cudaMemcpy(a, dout, (size_t)n * vs, cudaMemcpyDeviceToHost), "cudaMemcpy(answers)");
  }
  bo_timer_free(&tm);
  em_dev_free(&di);
  em_dev_free(&dj);
  em_dev_free(&dout);
  bo_free(&d);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

extern "C" em_err em_bitmap_add_cuda(const em_spmat *A, const em_spmat *B, em_spmat **C,
                                     double *ms) {
  const em_bitmap *a = NULL, *b = NULL;
  EM_TRY(bo_operands(A, B, C, "em_bitmap_add_cuda", &a, &b));
  EM_CHECK(a->n_rows == b->n_rows && a->n_cols == b->n_cols, EM_ERR_ARG,
           "em_bitmap_add_cuda: A is %d x %d but B is %d x %d", a->n_rows, a->n_cols, b->n_rows,
           b->n_cols);
  const em_prec p = A->info.prec;
  const size_t vs = em_prec_size(p);
  const int32_t n = a->n_rows;
  bo_dev da, db, dc; /* zeroed: all three are freed even after a failed upload */
  memset(&da, 0, sizeof da);
  memset(&db, 0, sizeof db);
  memset(&dc, 0, sizeof dc);
  dc.n_rows = n;
  dc.n_cols = a->n_cols;
  int64_t *nw = NULL, *nz = NULL, n_words = 0, nnz = 0;
  bo_timer tm = {{NULL, NULL}};
  em_err err = bo_upload(a, vs, &da);
  if (!err) err = bo_upload(b, vs, &db);
  EM_FMT_ALLOC(nw, ((size_t)n + 1) * 8, "bitmap sum word counts");
  EM_FMT_ALLOC(nz, ((size_t)n + 1) * 8, "bitmap sum value counts");
  EM_FMT_ALLOC(dc.wptr, ((size_t)n + 1) * 8, "bitmap sum word pointers");
  EM_FMT_ALLOC(dc.vptr, ((size_t)n + 1) * 8, "bitmap sum value offsets");
  if (!err) err = bo_timer_start(&tm);
  if (!err) bo_add_count<<<bo_grid((int64_t)n + 1), BO_THREADS>>>(n, da, db, nw, nz);
  if (!err) err = bo_alloc_result(nw, nz, &dc, vs, &n_words, &nnz);
  if (!err && n > 0 && p == EM_PREC_SINGLE)
    bo_add_fill<float2><<<bo_grid(n), BO_THREADS>>>(n, da, db, dc);
  else if (!err && n > 0)
    bo_add_fill<double2><<<bo_grid(n), BO_THREADS>>>(n, da, db, dc);
  if (!err) err = bo_timer_stop(&tm, "bitmap sum kernels", ms);
  if (!err) err = bo_download(&dc, n_words, nnz, p, C);
  bo_timer_free(&tm);
  em_dev_free(&nw);
  em_dev_free(&nz);
  bo_free(&da);
  bo_free(&db);
  bo_free(&dc);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}

extern "C" em_err em_bitmap_mul_cuda(const em_spmat *A, const em_spmat *B, em_spmat **C,
                                     double *ms) {
  const em_bitmap *a = NULL, *b = NULL;
  EM_TRY(bo_operands(A, B, C, "em_bitmap_mul_cuda", &a, &b));
  EM_CHECK(a->n_cols == b->n_rows, EM_ERR_ARG,
           "em_bitmap_mul_cuda: A is %d x %d and B is %d x %d: inner sizes differ", a->n_rows,
           a->n_cols, b->n_rows, b->n_cols);
  const em_prec p = A->info.prec;
  const size_t vs = em_prec_size(p);
  const int32_t n = a->n_rows;
  bo_dev da, db, dc; /* zeroed: all three are freed even after a failed upload */
  memset(&da, 0, sizeof da);
  memset(&db, 0, sizeof db);
  memset(&dc, 0, sizeof dc);
  dc.n_rows = n;
  dc.n_cols = b->n_cols;
  int64_t *ub = NULL, *sofs = NULL, *nw = NULL, *nz = NULL, *pre = NULL, total = 0, n_words = 0,
          nnz = 0;
  int32_t *sw = NULL;
  unsigned long long *sm = NULL;
  bo_timer tm = {{NULL, NULL}};
  em_err err = bo_upload(a, vs, &da);
  if (!err) err = bo_upload(b, vs, &db);
  const size_t np = ((size_t)n + 1) * 8;
  EM_FMT_ALLOC(ub, np, "bitmap product bounds");
  EM_FMT_ALLOC(sofs, np, "bitmap product scratch offsets");
  EM_FMT_ALLOC(nw, np, "bitmap product word counts");
  EM_FMT_ALLOC(nz, np, "bitmap product value counts");
  EM_FMT_ALLOC(dc.wptr, np, "bitmap product word pointers");
  EM_FMT_ALLOC(dc.vptr, np, "bitmap product value offsets");
  if (!err) err = bo_timer_start(&tm);
  const int32_t col_words = (b->n_cols + 63) / 64;
  if (!err) bo_mul_bound<<<bo_grid((int64_t)n + 1), BO_THREADS>>>(n, col_words, da, db, ub);
  if (!err) err = em_bitmap_scan_cuda(ub, sofs, n);
  EM_FMT_TRY(cudaMemcpy(&total, sofs + n, 8, cudaMemcpyDeviceToHost), "cudaMemcpy(scratch size)");
  EM_FMT_ALLOC(sw, (size_t)total * 4 + 4, "bitmap product scratch words");
  EM_FMT_ALLOC(sm, (size_t)total * 8 + 8, "bitmap product scratch masks");
  EM_FMT_ALLOC(pre, (size_t)total * 8 + 8, "bitmap product scratch offsets");
  if (!err) bo_mul_count<<<bo_grid((int64_t)n + 1), BO_THREADS>>>(n, da, db, sofs, sw, sm, nw, nz);
  if (!err) err = bo_alloc_result(nw, nz, &dc, vs, &n_words, &nnz);
  if (!err && n > 0 && p == EM_PREC_SINGLE)
    bo_mul_fill<float2><<<bo_grid(n), BO_THREADS>>>(n, da, db, dc, sofs, sw, sm, pre);
  else if (!err && n > 0)
    bo_mul_fill<double2><<<bo_grid(n), BO_THREADS>>>(n, da, db, dc, sofs, sw, sm, pre);
  if (!err) err = bo_timer_stop(&tm, "bitmap product kernels", ms);
  if (!err) err = bo_download(&dc, n_words, nnz, p, C);
  bo_timer_free(&tm);
  em_dev_free(&ub);
  em_dev_free(&sofs);
  em_dev_free(&nw);
  em_dev_free(&nz);
  em_dev_free(&pre);
  em_dev_free(&sw);
  em_dev_free(&sm);
  bo_free(&da);
  bo_free(&db);
  bo_free(&dc);
  return err ? em_error_trace(err, __FILE__, __LINE__) : EM_OK;
}
