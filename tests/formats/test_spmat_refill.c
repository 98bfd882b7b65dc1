/* em_spmat_refill and em_blockop_refill on one backend (argument cpu, or
 * gpu: exit 77 when none answers).  For every format with its parameters
 * at the default and at awkward values, both precisions, on the awkward
 * matrices of the conformance suite (0x0, 1x1, empty rows, one huge row,
 * wide, tall, all empty, no columns, dense, sizes not multiples of 16 or
 * 32) and the FEM patterns of orders 1-3: a matrix built from values v1 and
 * refilled with v2 gives y = A x and y += A x bit for bit equal to a matrix
 * built from v2, and so does a second refill back to v1 (the kept slot
 * map).  A refill with another pattern (a column moved, an entry dropped,
 * another size) is refused with EM_ERR_ARG and leaves the values alone.
 * The nine-block operator, every mode, automatic and sliced formats on FEM
 * block matrices and on a split with an empty block: refill(B2) applies
 * bit for bit as create(B2); an empty block that gains entries, other
 * group offsets and another pattern are refused.  The same operators
 * built from one CSR and refilled through the kept value map
 * (em_blockop_refill_values, a sweep's path) apply bit for bit as fresh
 * builds after three refills; its refusals too.  A second argument
 * "quick" keeps double precision, the awkward matrices and FEM order 1
 * (for compute-sanitizer). */
#include "blockop_impl.h"
#include "spmat_check.h"
#include "spmat_util.h"

/* A copy of A with new random values (same pattern). */
static em_csr *revalue(const em_csr *A, unsigned long long seed) {
  em_csr *B = NULL;
  REQUIRE_OK(em_csr_copy(A, &B));
  unsigned long long s = seed;
  for (int64_t k = 0; k < B->nnz; k++) B->val[k] = tu_rand_cplx(&s);
  return B;
}

/* y = M x and y = y0 + M x of M1 and M2 are the same bits. */
static void same_spmv(const em_spmat *M1, const em_spmat *M2, const char *label, const char *what) {
  em_spmat_info in;
  em_spmat_get_info(M1, &in);
  size_t nr = (size_t)in.n_rows, nc = (size_t)in.n_cols;
  unsigned long long s = 99;
  em_cplx *x = calloc(nc + 1, sizeof *x), *y0 = calloc(nr + 1, sizeof *y0),
          *y1 = calloc(nr + 1, sizeof *y1), *y2 = calloc(nr + 1, sizeof *y2);
  for (size_t k = 0; k < nc; k++) x[k] = tu_rand_cplx(&s);
  for (size_t k = 0; k < nr; k++) y0[k] = tu_rand_cplx(&s);
  for (int acc = 0; acc < 2; acc++) {
    EXPECT_OK(tu_spmv(M1, x, acc ? y0 : NULL, y1));
    EXPECT_OK(tu_spmv(M2, x, acc ? y0 : NULL, y2));
    EXPECT(memcmp(y1, y2, nr * sizeof *y1) == 0, "%s: %s%s differs from a fresh build", label, what,
           acc ? " (y += A x)" : "");
  }
  free(x), free(y0), free(y1), free(y2);
}

/* The refusals on A (nnz > 0): a column moved inside a row, an entry
 * dropped, another size; M must still hold the values of R afterwards. */
static void refusals(em_spmat *M, const em_csr *A, const em_spmat *R, const char *label) {
  em_csr *B = NULL;
  REQUIRE_OK(em_csr_copy(A, &B));
  int moved = 0; /* the last entry of some row to a free column after it */
  for (int32_t i = 0; i < B->n_rows && !moved; i++) {
    int64_t e = B->rowptr[i + 1];
    if (e == B->rowptr[i]) continue;
    int32_t c = B->colind[e - 1];
    if (c + 1 < B->n_cols) B->colind[e - 1] = c + 1, moved = 1;
  }
  if (moved) EXPECT_ERR(em_spmat_refill(M, B), EM_ERR_ARG);
  em_csr_destroy(&B);
  /* drop the first entry */
  REQUIRE_OK(em_csr_create(A->n_rows, A->n_cols, A->nnz - 1, &B));
  for (int32_t i = 0; i < A->n_rows; i++) B->rowptr[i + 1] = A->rowptr[i + 1] - 1;
  memcpy(B->colind, A->colind + 1, (size_t)(A->nnz - 1) * sizeof *B->colind);
  memcpy(B->val, A->val + 1, (size_t)(A->nnz - 1) * sizeof *B->val);
  EXPECT_ERR(em_spmat_refill(M, B), EM_ERR_ARG);
  B->n_cols++; /* and a size */
  EXPECT_ERR(em_spmat_refill(M, B), EM_ERR_ARG);
  em_csr_destroy(&B);
  em_error_clear();
  same_spmv(M, R, label, "after refused refills");
}

/* quick: double precision and the awkward matrices only (for the slow
 * compute-sanitizer pass). */
static void run_spmat(em_backend b, int quick) {
  tcase c[32];
  int n = suite_build(c, !quick), nf = (int)(sizeof FORMATS / sizeof *FORMATS), runs = 0;
  for (int fi = 0; fi < nf; fi++)
    for (int pi = 0; pi < 2 - quick; pi++)
      for (int i = 0; i < n; i++) {
        const fcase *F = &FORMATS[fi];
        em_spmat_opts o;
        em_spmat_opts_default(&o);
        o.backend = b;
        o.format = F->f;
        o.prec = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
        o.threads_per_row = F->T;
        o.slice_rows = F->S;
        o.ell_width = F->K;
        char label[128];
        snprintf(label, sizeof label, "%.63s [%.15s T=%d S=%d K=%d %s]", c[i].name,
                 em_format_name(F->f), F->T, F->S, F->K, pi ? "single" : "double");
        em_csr *A1 = c[i].A, *A2 = revalue(A1, 700u + (unsigned)i);
        em_spmat *M = NULL, *F1 = NULL, *F2 = NULL;
        REQUIRE_OK(em_spmat_create(A1, &o, &M));
        REQUIRE_OK(em_spmat_create(A1, &o, &F1));
        REQUIRE_OK(em_spmat_create(A2, &o, &F2));
        EXPECT_OK(em_spmat_refill(M, A2));
        same_spmv(M, F2, label, "refill");
        EXPECT_OK(em_spmat_refill(M, A1));
        same_spmv(M, F1, label, "second refill");
        if (A1->nnz > 0) refusals(M, A1, F1, label);
        em_spmat_destroy(&M), em_spmat_destroy(&F1), em_spmat_destroy(&F2);
        em_csr_destroy(&A2);
        runs++;
      }
  printf("refill: %d formats x 2 precisions x %d matrices: %d checks\n", nf, n, runs);
  suite_free(c, n);
}

/* ------------------------------------------------------------ block operator */

/* y = op x on the backend, x and y host complex double (rounded to p). */
static void apply_host(em_blockop *op, em_backend b, em_prec p, const em_cplx *x, em_cplx *y,
                       size_t n) {
  size_t s = em_prec_size(p);
  char *hx = calloc(n + 1, s), *hy = calloc(n + 1, s);
  to_prec(x, n, p, hx);
  memset(hy, 0xff, n * s);
  if (b == EM_BACKEND_CPU) {
    EXPECT_OK(em_blockop_apply(op, hx, hy));
  } else {
#ifdef EM_HAVE_CUDA
    void *dx = NULL, *dy = NULL;
    REQUIRE_OK(cudaMalloc(&dx, n * s + 16) || cudaMalloc(&dy, n * s + 16) ||
                       cudaMemcpy(dx, hx, n * s, cudaMemcpyHostToDevice) ||
                       cudaMemcpy(dy, hy, n * s, cudaMemcpyHostToDevice)
                   ? EM_RAISE(EM_ERR_CUDA, "test vectors")
                   : EM_OK);
    EXPECT_OK(em_blockop_apply(op, dx, dy));
    REQUIRE_OK(cudaDeviceSynchronize() || cudaMemcpy(hy, dy, n * s, cudaMemcpyDeviceToHost)
                   ? EM_RAISE(EM_ERR_CUDA, "apply or download")
                   : EM_OK);
    cudaFree(dx), cudaFree(dy);
#endif
  }
  for (size_t k = 0; k < n; k++) y[k] = prec_at(hy, k, p);
  free(hx), free(hy);
}

/* B with new values (same pattern). */
static em_blockmat *revalue_blocks(const em_blockmat *B, unsigned long long seed) {
  em_blockmat *C = NULL;
  REQUIRE_OK(em_calloc(&C, 1, sizeof *C, "test block matrix"));
  C->nb = B->nb;
  memcpy(C->offset, B->offset, sizeof C->offset);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) C->blk[i][j] = revalue(B->blk[i][j], seed + 3u * i + j);
  return C;
}

static const char *MODES[] = {"streams", "sequential", "graph", "one-matrix", "rows"};

/* Every mode and precision, formats automatic or all sliced ELLR-T. */
static void run_blockmat(const char *name, const em_blockmat *B1, em_backend b) {
  em_blockmat *B2 = revalue_blocks(B1, 31);
  size_t n = (size_t)B1->offset[B1->nb];
  unsigned long long s = 5;
  em_cplx *x = calloc(n + 1, sizeof *x), *y1 = calloc(n + 1, sizeof *y1),
          *y2 = calloc(n + 1, sizeof *y2);
  for (size_t k = 0; k < n; k++) x[k] = tu_rand_cplx(&s);
  for (int mode = EM_BLOCKOP_STREAMS; mode <= EM_BLOCKOP_ROWS; mode++)
    for (int pi = 0; pi < 2; pi++)
      for (int sliced = 0; sliced < 2; sliced++) {
        em_blockop_opts o;
        em_blockop_opts_default(&o);
        o.backend = b;
        o.mode = (em_blockop_mode)mode;
        o.prec = pi ? EM_PREC_SINGLE : EM_PREC_DOUBLE;
        for (int i = 0; i < EM_MAX_ORDER; i++)
          for (int j = 0; j < EM_MAX_ORDER; j++)
            o.format[i][j] = sliced ? EM_FMT_SELLRT : EM_FMT_AUTO;
        o.whole_format = sliced ? EM_FMT_SELLRT : EM_FMT_AUTO;
        em_blockop *op = NULL, *fresh = NULL;
        REQUIRE_OK(em_blockop_create(B1, &o, &op));
        REQUIRE_OK(em_blockop_create(B2, &o, &fresh));
        apply_host(op, b, o.prec, x, y1, n); /* a graph captured before the refill */
        EXPECT_OK(em_blockop_refill(op, B2));
        apply_host(op, b, o.prec, x, y1, n);
        apply_host(fresh, b, o.prec, x, y2, n);
        EXPECT(memcmp(y1, y2, n * sizeof *y1) == 0,
               "%s %s %s %s: refilled operator differs from a fresh one", name, MODES[mode],
               pi ? "single" : "double", sliced ? "sliced" : "auto");
        em_blockop_destroy(&op), em_blockop_destroy(&fresh);
        /* a sweep's path: built from one CSR, refilled through the kept
           value map (em_blockop_refill_values) to B2, back to B1, and
           to B2 again: each applies as a fresh build */
        em_csr *C[2] = {NULL, NULL};
        REQUIRE_OK(em_blockmat_to_csr(B1, &C[0]));
        REQUIRE_OK(em_blockmat_to_csr(B2, &C[1]));
        em_blockop *fr[2] = {NULL, NULL};
        int pinned = 0; /* CUDA: C[1]'s values page-locked, uploaded from them directly
                           (C[0]'s through the pinned staging), as a GPU sweep's */
#ifdef EM_HAVE_CUDA
        if (b == EM_BACKEND_CUDA) {
          pinned = em_host_pin(C[1]->val, (size_t)C[1]->nnz * sizeof *C[1]->val);
          EXPECT(pinned && em_host_pinned(C[1]->val) && !em_host_pinned(C[0]->val),
                 "the second CSR's values page-locked, the first's not");
        }
#endif
        REQUIRE_OK(em_blockop_create_csr(C[0], B1->nb, B1->offset, &o, &op));
        for (int v = 0; v < 2; v++)
          REQUIRE_OK(em_blockop_create_csr(C[v], B1->nb, B1->offset, &o, &fr[v]));
        /* the map made ahead (a sweep's, beside its first factorization) from
           the other CSR of the same pattern: the operator's values untouched */
        EXPECT_OK(em_blockop_values_map(op, C[1]));
        apply_host(op, b, o.prec, x, y1, n);
        apply_host(fr[0], b, o.prec, x, y2, n);
        EXPECT(memcmp(y1, y2, n * sizeof *y1) == 0,
               "%s %s %s %s: the value map made ahead changed the operator", name, MODES[mode],
               pi ? "single" : "double", sliced ? "sliced" : "auto");
        for (int step = 1; step <= 3; step++) {
          int v = step % 2;
          EXPECT_OK(em_blockop_refill_values(op, C[v]));
          apply_host(op, b, o.prec, x, y1, n);
          apply_host(fr[v], b, o.prec, x, y2, n);
          EXPECT(memcmp(y1, y2, n * sizeof *y1) == 0,
                 "%s %s %s %s: value refill %d differs from a fresh operator", name, MODES[mode],
                 pi ? "single" : "double", sliced ? "sliced" : "auto", step);
        }
        em_blockop_destroy(&op), em_blockop_destroy(&fr[0]), em_blockop_destroy(&fr[1]);
#ifdef EM_HAVE_CUDA
        if (pinned) em_host_unpin(C[1]->val);
#else
        (void)pinned;
#endif
        em_csr_destroy(&C[0]), em_csr_destroy(&C[1]);
      }
  free(x), free(y1), free(y2);
  em_blockmat_destroy(&B2);
}

/* err must be EM_ERR_ARG with a message (printed). */
static void refused(em_err err, const char *what) {
  EXPECT(err == EM_ERR_ARG && em_error_message()[0], "%s: %s, not refused with a message", what,
         em_err_name(err));
  printf("%s: refused: %s\n", what, em_error_message());
  em_error_clear();
}

/* Refusals: an empty block that gains entries, other offsets, another
 * pattern in one block (each refused with EM_ERR_ARG). */
static void run_block_refusals(em_backend b) {
  em_blockmat *B = NULL;
  tu_fem_blockmat(2, 3, 4, &B);
  em_blockmat *E = revalue_blocks(B, 8);
  em_csr_destroy(&E->blk[0][1]); /* block A_12 empty */
  REQUIRE_OK(em_csr_create(B->blk[0][1]->n_rows, B->blk[0][1]->n_cols, 0, &E->blk[0][1]));
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  o.backend = b;
  o.mode = EM_BLOCKOP_SEQUENTIAL;
  em_blockop *op = NULL;
  REQUIRE_OK(em_blockop_create(E, &o, &op));
  refused(em_blockop_refill(op, B), "an empty block gains entries");
  em_blockop_destroy(&op);
  REQUIRE_OK(em_blockop_create(B, &o, &op));
  em_blockmat *C = revalue_blocks(B, 9);
  C->offset[1]++;
  refused(em_blockop_refill(op, C), "other group offsets");
  C->offset[1]--;
  em_csr *A = C->blk[1][1]; /* a column moved in block A_22 */
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] > A->rowptr[i] && A->colind[A->rowptr[i + 1] - 1] + 1 < A->n_cols) {
      A->colind[A->rowptr[i + 1] - 1]++;
      break;
    }
  refused(em_blockop_refill(op, C), "a column moved in A_22");
  em_blockop_destroy(&op);
  /* the value refill: an empty block gaining entries refused at the map's
     build; a moved column refused by the whole pattern's hash after it,
     the operator's values unchanged */
  em_csr *W = NULL, *WE = NULL, *WC = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &W));
  REQUIRE_OK(em_blockmat_to_csr(E, &WE));
  REQUIRE_OK(em_blockop_create_csr(WE, E->nb, E->offset, &o, &op));
  refused(em_blockop_refill_values(op, W), "values: an empty block gains entries");
  em_blockop_destroy(&op);
  REQUIRE_OK(em_blockop_create_csr(W, B->nb, B->offset, &o, &op));
  EXPECT_OK(em_blockop_refill_values(op, W));
  REQUIRE_OK(em_blockmat_to_csr(C, &WC));
  refused(em_blockop_refill_values(op, WC), "values: a column moved in A_22");
  WC->nnz--;
  refused(em_blockop_refill_values(op, WC), "values: an entry fewer");
  WC->nnz++;
  em_blockop_destroy(&op);
  em_csr_destroy(&W), em_csr_destroy(&WE), em_csr_destroy(&WC);
  em_blockmat_destroy(&B), em_blockmat_destroy(&C), em_blockmat_destroy(&E);
}

int main(int argc, char **argv) {
  em_backend b = test_backend(argc, argv);
  int quick = argc > 2 && !strcmp(argv[2], "quick");
  run_spmat(b, quick);
  for (int p = 1; p <= (quick ? 1 : 3); p++) {
    em_blockmat *B = NULL;
    tu_fem_blockmat(p == 3 ? 2 : 3, p, 7u + (unsigned)p, &B);
    char name[32];
    snprintf(name, sizeof name, "FEM order %d", p);
    run_blockmat(name, B, b);
    em_blockmat_destroy(&B);
  }
  {
    /* a random split with an empty block (A_12 dropped), groups of 37, 0
       and 50 rows: sizes off every multiple */
    em_blockmat *B = NULL;
    em_csr *R = tu_rand_csr(87, 87, 25, 6, 30, 87, 17);
    int32_t off[4] = {0, 37, 37, 87};
    REQUIRE_OK(em_blockmat_from_csr(R, 3, off, &B));
    em_csr_destroy(&B->blk[0][2]);
    REQUIRE_OK(em_csr_create(37, 50, 0, &B->blk[0][2]));
    run_blockmat("random split, empty group and block", B, b);
    em_blockmat_destroy(&B), em_csr_destroy(&R);
  }
  run_block_refusals(b);
  return TEST_RESULT();
}
