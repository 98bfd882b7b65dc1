/* A lane-by-lane emulation of the GPU's warp algorithms on the host, run on
 * the layouts the CPU builders make (the same arrays the GPU reads), so the
 * index and shuffle logic of the kernels is checked where no GPU answers:
 *   hyb_coo_chunks + hyb_coo_boundaries (hyb_cuda.cu): segmented scan by
 *     row across 32 lanes, carries between rounds, chunk edge slots;
 *   bitmap_spmv (bitmap_cuda.cu): popcount scan giving each lane's values.
 * Each emulated step names the kernel line it stands for; keep the two in
 * step when either changes.  Shuffle semantics: shfl_up(v, d) gives lane l
 * the value of lane l - d, or its own when l < d; shfl_down(v, 1) gives lane
 * l + 1's, or its own on lane 31; shfl(v, 31) gives lane 31's. */
#include "bitmap_impl.h"
#include "hyb_impl.h"
#include "spmat_util.h"

#define W 32

/* hyb_coo_chunks for warp w, then (after all warps) hyb_coo_boundaries. */
static void emulate_coo(const em_hyb *H, const em_cplx *x, em_cplx *y, em_cplx *carry) {
  const em_cplx *val = H->coo_val;
  for (int64_t w = 0; w < H->n_chunk; w++) {
    const int64_t begin = w * EM_HYB_CHUNK;
    const int64_t end = H->tail_nnz - begin < EM_HYB_CHUNK ? H->tail_nnz : begin + EM_HYB_CHUNK;
    const int32_t fr = H->coo_row[begin], lr = H->coo_row[end - 1];
    if (fr == lr) carry[2 * w + 1] = 0; /* lane 0 */
    int32_t crow = -1;
    em_cplx cval = 0;
    for (int64_t base = begin; base < end; base += W) {
      int32_t r[W], rd[W], rn[W];
      em_cplx p[W], pd[W];
      int valid[W];
      for (int l = 0; l < W; l++) {
        valid[l] = base + l < end;
        r[l] = valid[l] ? H->coo_row[base + l] : -1;
        p[l] = valid[l] ? val[base + l] * x[H->coo_col[base + l]] : 0;
      }
      for (int d = 1; d < W; d <<= 1) { /* segmented inclusive scan */
        for (int l = 0; l < W; l++) {
          rd[l] = l >= d ? r[l - d] : r[l];
          pd[l] = l >= d ? p[l - d] : p[l];
        }
        for (int l = 0; l < W; l++)
          if (l >= d && rd[l] == r[l]) p[l] += pd[l];
      }
      for (int l = 0; l < W; l++)
        if (valid[l] && r[l] == crow) p[l] += cval;
      for (int l = 0; l < W; l++) rn[l] = l + 1 < W ? r[l + 1] : r[l];
      const int32_t next = base + W < end ? H->coo_row[base + W] : -1;
      const int32_t r31 = r[W - 1];
      const em_cplx p31 = p[W - 1];
      for (int l = 0; l < W; l++)
        if (valid[l] && (l == W - 1 || rn[l] != r[l]) && !(l == W - 1 && r[l] == next)) {
          if (r[l] == fr)
            carry[2 * w] = p[l];
          else if (r[l] == lr)
            carry[2 * w + 1] = p[l];
          else
            y[r[l]] += p[l];
        }
      if (next >= 0 && r31 == next) {
        crow = r31;
        cval = p31;
      } else {
        crow = -1;
        cval = 0;
      }
    }
  }
  for (int64_t b = 0; b < H->n_bnd; b++) {
    em_cplx s = 0;
    for (int64_t q = H->bnd_ptr[b]; q < H->bnd_ptr[b + 1]; q++) s += carry[q];
    y[H->bnd_row[b]] += s;
  }
}

/* bitmap_spmv for every row (warp i). */
static void emulate_bitmap(const em_bitmap *bm, const em_cplx *x, em_cplx *y) {
  const em_cplx *val = bm->val;
  for (int32_t i = 0; i < bm->n_rows; i++) {
    const int64_t wend = bm->wptr[i + 1];
    int64_t voff = bm->vptr[i];
    em_cplx s[W] = {0};
    for (int64_t wb = bm->wptr[i]; wb < wend; wb += W) {
      uint64_t m[W];
      int64_t col0[W];
      int c[W], inc[W], t[W];
      for (int l = 0; l < W; l++) {
        m[l] = 0, col0[l] = 0;
        if (wb + l < wend) m[l] = bm->mask[wb + l], col0[l] = (int64_t)bm->widx[wb + l] * 64;
        c[l] = inc[l] = __builtin_popcountll(m[l]);
      }
      for (int d = 1; d < W; d <<= 1) {
        for (int l = 0; l < W; l++) t[l] = l >= d ? inc[l - d] : inc[l];
        for (int l = 0; l < W; l++)
          if (l >= d) inc[l] += t[l];
      }
      for (int l = 0; l < W; l++) {
        int64_t p = voff + inc[l] - c[l];
        for (; m[l]; m[l] &= m[l] - 1)
          s[l] += val[p++] * x[col0[l] + __builtin_ffsll((long long)m[l]) - 1];
      }
      voff += inc[W - 1];
    }
    for (int d = 16; d > 0; d >>= 1) { /* butterfly: lane 0's sum */
      em_cplx u[W];
      for (int l = 0; l < W; l++) u[l] = s[l ^ d];
      for (int l = 0; l < W; l++) s[l] += u[l];
    }
    y[i] = s[0];
  }
}

static void run(const char *name, const em_csr *A) {
  unsigned long long seed = 3;
  size_t nr = (size_t)A->n_rows, nc = (size_t)A->n_cols;
  em_cplx *x = calloc(nc + 1, sizeof *x), *y = calloc(nr + 1, sizeof *y);
  for (size_t k = 0; k < nc; k++) x[k] = tu_rand_cplx(&seed);
  int widths[] = {0, 1, 2, 5, -1};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
    em_spmat_opts o;
    em_spmat_opts_default(&o);
    o.format = EM_FMT_HYB;
    o.ell_width = widths[w];
    em_spmat *M = NULL;
    REQUIRE_OK(em_spmat_create(A, &o, &M));
    const em_hyb *H = M->data;
    /* y = the ELL part (each row's first K entries), then the emulated
     * tail kernels add the rest */
    em_csr *E = NULL;
    REQUIRE_OK(em_csr_create(A->n_rows, A->n_cols, A->nnz, &E));
    int64_t p = 0;
    for (int32_t i = 0; i < A->n_rows; i++) {
      E->rowptr[i] = p;
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && k < A->rowptr[i] + H->K; k++, p++)
        E->colind[p] = A->colind[k], E->val[p] = A->val[k];
    }
    E->rowptr[A->n_rows] = E->nnz = p;
    em_csr_spmv_ref(E, 1, x, 0, y);
    em_cplx *carry = malloc(sizeof *carry * (size_t)(2 * H->n_chunk + 1));
    for (int64_t k = 0; k < 2 * H->n_chunk; k++) carry[k] = NAN;
    if (H->tail_nnz > 0) emulate_coo(H, x, y, carry);
    double e = tu_err(A, x, NULL, y);
    EXPECT(e <= 1e-13, "%s K=%d: emulated COO kernels error %.3g", name, H->K, e);
    free(carry);
    em_csr_destroy(&E);
    em_spmat_destroy(&M);
  }
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  em_spmat *M = NULL;
  REQUIRE_OK(em_spmat_create(A, &o, &M));
  for (size_t k = 0; k < nr; k++) y[k] = NAN;
  emulate_bitmap(M->data, x, y);
  double e = tu_err(A, x, NULL, y);
  EXPECT(e <= 1e-13, "%s: emulated bitmap kernel error %.3g", name, e);
  em_spmat_destroy(&M);
  free(x), free(y);
}

int main(void) {
  em_csr *A = NULL;
  A = tu_rand_csr(1, 1, 1, 0, 0, 1, 1);
  run("1x1", A);
  em_csr_destroy(&A);
  A = tu_rand_csr(300, 2500, 12, 7, 31, 2200, 2); /* a row over 8 chunks, rows of 35 words */
  run("300x2500 long row", A);
  em_csr_destroy(&A);
  A = tu_rand_csr(700, 700, 80, 5, -1, 0, 3); /* rows crossing chunk and round edges */
  run("700 square", A);
  em_csr_destroy(&A);
  A = tu_rand_csr(2000, 40, 3, 3, -1, 0, 4); /* many short rows per round */
  run("2000x40 short rows", A);
  em_csr_destroy(&A);
  /* every row exactly one round, then exactly one chunk: carries at edges */
  for (int len = 32; len <= 256; len *= 8) {
    REQUIRE_OK(em_csr_create(9, len, 9 * len, &A));
    for (int32_t i = 0; i <= 9; i++) A->rowptr[i] = (int64_t)i * len;
    unsigned long long s = 8;
    for (int64_t k = 0; k < A->nnz; k++)
      A->colind[k] = (int32_t)(k % len), A->val[k] = tu_rand_cplx(&s);
    run(len == 32 ? "rows of 32" : "rows of 256", A);
    em_csr_destroy(&A);
  }
  return TEST_RESULT();
}
