/* direct_ginv_cuda.c - the inverses of the wide supernodes' diagonal blocks
 * for the GPU solves' variant trinv (em_direct_gsolve.trinv, issue 28).
 *
 * A supernode of k >= EM_DG_SOLVE_BIG columns (and at most trinv_max, when
 * set) solves L11 x = y (k x k unit
 * lower, ld m inside lval: em_dg_clean_l11 leaves zeros above and ones on
 * the diagonal; D is in g->d).  With several columns cuBLAS TRSM costs
 * nearly a full pass per column; a product with the stored inverse reads
 * it once for all columns.  So once per factorization
 *
 *   Linv_s = L11^-1 I   (TRSM of L11 against the identity, k x k, ld k)
 *
 * into one buffer g->linv for all wide supernodes, in the factor's
 * precision (cuSOLVER's trtri would do the same in half the flops, but
 * it is not linked: one more library on the device machine for a
 * one-time cost).  Linv_s is unit lower with explicit zeros above and ones
 * on the diagonal, so a GEMM can read it whole.
 *
 * A complex single factor's inverses are computed in complex double from
 * L11 and rounded once: a TRSM in single rounds at every step, and that
 * error reached the solves (the 2 x 2 array's block solves ended their
 * second BiCGSTAB half-step at 3.5e-9 .. 1e-8 against 5e-10 .. 1e-9 by
 * TRSM, so some columns needed another half-iteration).  The inverse
 * rounded once errs by eps |Linv| per entry, and its product by eps |Linv|
 * |y|, within the bound of the substitution's eps |Linv| |L| |x|.  Two
 * k x k double buffers of the widest one live while they build; without
 * room for them, the TRSM in single. */
#include "direct_gpu_state.h"

/* Supernode of k columns has an inverse with the cap kmax (0: none). */
static int has_inverse(int64_t k, int kmax) {
  return k >= EM_DG_SOLVE_BIG && (kmax <= 0 || k <= kmax);
}

int64_t em_dgpu_linv_entries(const em_dsym *S, int kmax) {
  int64_t e = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s];
    if (has_inverse(k, kmax)) e += k * k;
  }
  return e;
}

void em_dgpu_linv_free(em_dgpu *g) {
  if (g->linv) {
    em_dev_free(&g->linv);
    g->bytes -= g->esz * (size_t)g->linv_entries;
  }
  em_free(&g->linv_off);
  g->linv_entries = 0;
  g->linv_ok = 0;
}

/* Linv = L11^-1 (k x k, ld k) into X in complex double: L11 (ld m) and the
 * identity in the double buffers Ld, Xd, a TRSM, X the rounded result. */
static em_err inverse_double(em_dgpu *g, int64_t k, const void *L, int64_t m, void *X, void *Ld,
                             void *Xd, cudaStream_t st) {
  const cuDoubleComplex one = {1, 0};
  EM_TRY(em_dg_copy2d(k, (int)k, L, m, 1, Ld, k, 0, st));
  EM_CUDA(cudaMemsetAsync(Xd, 0, 16 * (size_t)(k * k), st));
  EM_TRY(em_dg_clean_l11(k, k, Xd, 0, st)); /* Xd = I */
  EM_CUBLAS(cublasZtrsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                        CUBLAS_DIAG_UNIT, (int)k, (int)k, &one, Ld, (int)k, Xd, (int)k));
  return em_dg_copy2d(k, (int)k, Xd, k, 0, X, k, 1, st);
}

/* The same in the factor's precision: X = I, then TRSM in place. */
static em_err inverse_same(em_dgpu *g, int64_t k, const void *L, int64_t m, void *X,
                           cudaStream_t st) {
  EM_TRY(em_dg_clean_l11(k, k, X, g->single, st)); /* zeros: X = I */
  if (g->single) {
    const cuComplex one = {1, 0};
    EM_CUBLAS(cublasCtrsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                          CUBLAS_DIAG_UNIT, (int)k, (int)k, &one, L, (int)m, X, (int)k));
  } else {
    const cuDoubleComplex one = {1, 0};
    EM_CUBLAS(cublasZtrsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                          CUBLAS_DIAG_UNIT, (int)k, (int)k, &one, L, (int)m, X, (int)k));
  }
  return EM_OK;
}

em_err em_dgpu_linv(const em_dsym *S, em_dgpu *g, int kmax) {
  if (g->linv_ok && g->linv_kmax == kmax) return EM_OK;
  em_dgpu_linv_free(g);
  int64_t e = em_dgpu_linv_entries(S, kmax), kw = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s];
    if (has_inverse(k, kmax) && k > kw) kw = k;
  }
  EM_TRY(em_calloc(&g->linv_off, (size_t)S->ns + 1, sizeof *g->linv_off, "inverse offsets"));
  if (e > 0) {
    EM_TRY(em_dgpu_alloc(g, &g->linv, NULL, g->esz * (size_t)e,
                         "the inverses of the wide supernodes' diagonal blocks (trinv)"));
    g->linv_entries = e;
  }
  em_err err = EM_OK;
  void *Ld = NULL, *Xd = NULL; /* a single factor's double buffers, when they fit */
  if (g->single && kw > 0) {
    size_t b = 16 * (size_t)kw * (size_t)kw;
    if (em_dev_alloc(&Ld, NULL, b, NULL, "trinv's double buffer") ||
        em_dev_alloc(&Xd, NULL, b, NULL, "trinv's double buffer")) {
      em_error_clear();
      em_dev_free(&Ld);
      em_dev_free(&Xd);
    }
  }
  cudaStream_t st = g->st[0];
  EM_CUBLAS_GOTO(err, cublasSetStream(g->blas, st), done);
  if (e > 0) EM_CUDA_GOTO(err, cudaMemsetAsync(g->linv, 0, g->esz * (size_t)e, st), done);
  int64_t off = 0;
  for (int32_t s = 0; s < S->ns; s++) {
    int64_t k = S->super[s + 1] - S->super[s], m = S->rptr[s + 1] - S->rptr[s];
    g->linv_off[s] = -1;
    if (!has_inverse(k, kmax)) continue;
    void *X = AT(g->linv, off);
    const void *L = AT(g->lval, S->lptr[s]);
    g->linv_off[s] = off;
    off += k * k;
    EM_TRY_GOTO(err,
                Xd ? inverse_double(g, k, L, m, X, Ld, Xd, st) : inverse_same(g, k, L, m, X, st),
                done);
  }
  EM_CUDA_GOTO(err, cudaStreamSynchronize(st), done);
  g->linv_ok = 1;
  g->linv_kmax = kmax;
done:
  em_dev_free(&Ld);
  em_dev_free(&Xd);
  return err;
}
