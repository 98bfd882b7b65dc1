/* The nine-block operator on one backend (CPU by default, the GPU with
 * argument "gpu"): every mode, both precisions, automatic and mixed per-block
 * formats, equals the whole-matrix reference on FEM block matrices of orders
 * 1-3 and on random splits with an empty group, an empty block, a block row
 * without entries and n = 0; repeated applies on different vector pairs (the
 * CUDA graph cache, eviction included); memory and block info; the operator
 * wrapper; the per-group sort permutation; refusals of bad input. */
#include "blockop_impl.h"
#include "spmat_util.h"

static em_backend backend = EM_BACKEND_CPU;

/* Vectors in the operator's precision and memory. */
typedef struct {
  size_t n, s;
  char *h; /* host copy */
  void *d; /* where apply reads / writes: h on the CPU, device memory on CUDA */
} tvec;

static void tvec_init(tvec *v, size_t n, em_prec p) {
  v->n = n;
  v->s = em_prec_size(p);
  v->h = calloc(n + 1, v->s);
  v->d = v->h;
#ifdef EM_HAVE_CUDA
  if (backend == EM_BACKEND_CUDA) {
    v->d = NULL;
    if (cudaMalloc(&v->d, (n + 1) * v->s) != cudaSuccess) {
      fprintf(stderr, "cudaMalloc failed\n");
      exit(1);
    }
  }
#endif
}

static void tvec_free(tvec *v) {
#ifdef EM_HAVE_CUDA
  if (backend == EM_BACKEND_CUDA) cudaFree(v->d);
#endif
  free(v->h);
}

/* host doubles -> the vector (poison: every byte 0xff, a NaN) */
static void tvec_put(tvec *v, const em_cplx *x) {
  for (size_t k = 0; k < v->n; k++) {
    if (!x)
      memset(v->h + k * v->s, 0xff, v->s);
    else if (v->s == 8)
      ((em_cplxf *)v->h)[k] = (em_cplxf)x[k];
    else
      ((em_cplx *)v->h)[k] = x[k];
  }
#ifdef EM_HAVE_CUDA
  if (backend == EM_BACKEND_CUDA && cudaMemcpy(v->d, v->h, v->n * v->s, cudaMemcpyHostToDevice)) {
    fprintf(stderr, "upload failed\n");
    exit(1);
  }
#endif
}

static void tvec_get(tvec *v, em_cplx *x) {
#ifdef EM_HAVE_CUDA
  if (backend == EM_BACKEND_CUDA &&
      (cudaDeviceSynchronize() || cudaMemcpy(v->h, v->d, v->n * v->s, cudaMemcpyDeviceToHost))) {
    fprintf(stderr, "download failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    exit(1);
  }
#endif
  for (size_t k = 0; k < v->n; k++)
    x[k] = v->s == 8 ? (em_cplx)((em_cplxf *)v->h)[k] : ((em_cplx *)v->h)[k];
}

static const char *MODE[] = {"streams", "sequential", "graph", "one-matrix", "rows"};

/* Apply op to npair (x, y) pairs, twice round, each against A. */
static void check_applies(const char *name, em_blockop *op, const em_csr *A, em_prec p, int npair) {
  size_t n = (size_t)A->n_rows;
  unsigned long long s = 123;
  em_cplx *x = calloc(n + 1, sizeof *x), *y = calloc(n + 1, sizeof *y);
  tvec vx[2], vy[12];
  for (int k = 0; k < 2; k++) tvec_init(&vx[k], n, p);
  for (int k = 0; k < npair; k++) tvec_init(&vy[k], n, p);
  for (int round = 0; round < 2; round++)
    for (int k = 0; k < npair; k++) {
      for (size_t i = 0; i < n; i++) x[i] = tu_rand_cplx(&s);
      tu_round(x, n, p);
      tvec_put(&vx[k % 2], x);
      tvec_put(&vy[k], NULL);
      EXPECT_OK(em_blockop_apply(op, vx[k % 2].d, vy[k].d));
      tvec_get(&vy[k], y);
      double e = tu_err(A, x, NULL, y);
      EXPECT(e <= tu_tol(p), "%s %s %s pair %d round %d: error %.3g", name, MODE[op->opts.mode],
             p ? "single" : "double", k, round, e);
    }
  for (int k = 0; k < 2; k++) tvec_free(&vx[k]);
  for (int k = 0; k < npair; k++) tvec_free(&vy[k]);
  free(x), free(y);
}

/* em_blockop_apply_rows on 1 and 3 vectors over row ranges (whole, each
 * group, inside a group, across groups, empty): the rows of the block rows
 * covering the range equal em_blockop_apply's bit for bit. */
static void check_rows(const char *name, em_blockop *op, const em_csr *A, em_prec p) {
  size_t n = (size_t)A->n_rows;
  unsigned long long s = 321;
  em_cplx *x = calloc(3 * n + 1, sizeof *x), *y = calloc(3 * n + 1, sizeof *y),
          *yr = calloc(3 * n + 1, sizeof *yr);
  tvec vx[3], vy[3], vr[3];
  for (int c = 0; c < 3; c++) {
    tvec_init(&vx[c], n, p), tvec_init(&vy[c], n, p), tvec_init(&vr[c], n, p);
    for (size_t i = 0; i < n; i++) x[c * n + i] = tu_rand_cplx(&s);
    tu_round(x + c * n, n, p);
    tvec_put(&vx[c], x + c * n);
    EXPECT_OK(em_blockop_apply(op, vx[c].d, vy[c].d));
    tvec_get(&vy[c], y + c * n);
  }
  const int32_t *off = op->offset;
  int32_t R[16][2], nr = 0;
  R[nr][0] = 0, R[nr++][1] = (int32_t)n;
  R[nr][0] = R[nr][1] = 0, nr++;
  for (int g = 0; g < op->nb; g++) {
    R[nr][0] = off[g], R[nr++][1] = off[g + 1];
    if (off[g + 1] - off[g] > 2) R[nr][0] = off[g] + 1, R[nr++][1] = off[g + 1] - 1;
  }
  if (op->nb > 1 && off[1] > 0 && off[2] > off[1]) R[nr][0] = off[1] - 1, R[nr++][1] = off[1] + 1;
  for (int q = 0; q < nr; q++)
    for (int k = 1; k <= 3; k += 2) {
      const void *xs[3] = {vx[0].d, vx[1].d, vx[2].d};
      void *ys[3] = {vr[0].d, vr[1].d, vr[2].d};
      for (int c = 0; c < k; c++) tvec_put(&vr[c], NULL);
      EXPECT_OK(em_blockop_apply_rows(op, R[q][0], R[q][1], k, xs, ys));
      int g0 = 0, g1 = op->nb, bad = 0;
      while (g0 < op->nb && off[g0 + 1] <= R[q][0]) g0++;
      while (g1 > 0 && off[g1 - 1] >= R[q][1]) g1--;
      for (int c = 0; c < k; c++) {
        tvec_get(&vr[c], yr + c * n);
        for (int32_t i = R[q][0] < R[q][1] ? off[g0] : 0; i < (R[q][0] < R[q][1] ? off[g1] : 0);
             i++)
          bad += memcmp(&yr[c * n + i], &y[c * n + i], sizeof *y) != 0;
      }
      EXPECT(bad == 0, "%s %s %s rows %d..%d, %d vectors: %d entries differ from the apply", name,
             MODE[op->opts.mode], p ? "single" : "double", R[q][0], R[q][1] - 1, k, bad);
    }
  for (int c = 0; c < 3; c++) tvec_free(&vx[c]), tvec_free(&vy[c]), tvec_free(&vr[c]);
  free(x), free(y), free(yr);
}

/* Every mode, precision and format set on one block matrix. */
static void run_blockmat(const char *name, const em_blockmat *B) {
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  const em_format mixed[3] = {EM_FMT_HYB, EM_FMT_HEC, EM_FMT_BITMAP};
  for (int set = 0; set < 2; set++)
    for (int p = 0; p < 2; p++)
      for (int mode = 0; mode <= EM_BLOCKOP_ROWS; mode++) {
        em_blockop_opts o;
        em_blockop_opts_default(&o);
        o.backend = backend;
        o.prec = (em_prec)p;
        o.mode = (em_blockop_mode)mode;
        if (set == 1) {
          for (int i = 0; i < EM_MAX_ORDER; i++)
            for (int j = 0; j < EM_MAX_ORDER; j++) o.format[i][j] = mixed[(i + 2 * j) % 3];
          o.whole_format = EM_FMT_HEC;
        }
        em_blockop *op = NULL;
        EXPECT_OK(em_blockop_create(B, &o, &op));
        if (!op) continue;
        /* the graph cache holds 8 pairs: 10 make it evict */
        check_applies(name, op, A, o.prec, mode == EM_BLOCKOP_GRAPH ? 10 : 2);
        check_rows(name, op, A, o.prec);
        { /* the same operator from the one CSR, its blocks cut out of it */
          em_blockop *oc = NULL;
          EXPECT_OK(em_blockop_create_csr(A, B->nb, B->offset, &o, &oc));
          if (oc) check_applies(name, oc, A, o.prec, 2);
          EXPECT(!oc || em_blockop_bytes(oc) == em_blockop_bytes(op),
                 "%s: the operator from the CSR has other formats", name);
          em_blockop_destroy(&oc);
        }
        size_t sum = 0;
        for (int i = 0; i < B->nb; i++)
          for (int j = 0; j < B->nb; j++) {
            em_spmat_info in;
            em_blockop_block_info(op, i, j, &in);
            sum += in.bytes;
            if (mode == EM_BLOCKOP_ONE_MATRIX) continue;
            if (mode == EM_BLOCKOP_ROWS) { /* (i, 0) is the whole block row */
              int64_t nnz_row = 0;
              for (int q = 0; q < B->nb; q++) nnz_row += B->blk[i][q]->nnz;
              EXPECT(j > 0 ? in.nnz == 0 && in.bytes == 0
                           : in.nnz == nnz_row && in.n_cols == B->offset[B->nb],
                     "%s: info of block row %d (%d)", name, i + 1, j + 1);
              continue;
            }
            EXPECT(in.nnz == B->blk[i][j]->nnz && in.n_rows == B->blk[i][j]->n_rows &&
                       in.n_cols == B->blk[i][j]->n_cols,
                   "%s: info of block %d%d", name, i + 1, j + 1);
            EXPECT(B->blk[i][j]->nnz > 0 || (in.bytes == 0 && in.format == EM_FMT_AUTO),
                   "%s: an empty block is not stored", name);
            if (set == 1 && B->blk[i][j]->nnz > 0)
              EXPECT(in.format == mixed[(i + 2 * j) % 3], "%s: block %d%d is %s", name, i + 1,
                     j + 1, em_format_name(in.format));
          }
        EXPECT(em_blockop_bytes(op) == sum && (A->nnz == 0 || sum > 0), "%s: bytes %zu, blocks %zu",
               name, em_blockop_bytes(op), sum);
        em_blockop_destroy(&op);
        EXPECT(op == NULL, "destroy nulls");
      }
  em_csr_destroy(&A);
}

/* A block matrix from a random square matrix with the entries of block
 * (zi, zj) and of block row zr dropped (-1: none). */
static em_blockmat *split(int32_t n, const int32_t *off, int nb, int zi, int zj, int zr,
                          unsigned long long seed) {
  em_csr *R = tu_rand_csr(n, n, 25, 6, n / 3, n, seed);
  int32_t *ti = malloc(sizeof *ti * (size_t)(R->nnz + 1)),
          *tj = malloc(sizeof *tj * (size_t)(R->nnz + 1));
  em_cplx *tv = malloc(sizeof *tv * (size_t)(R->nnz + 1));
  int64_t t = 0;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) {
      int gi = 0, gj = 0;
      while (gi + 1 < nb && i >= off[gi + 1]) gi++;
      while (gj + 1 < nb && R->colind[k] >= off[gj + 1]) gj++;
      if ((gi == zi && gj == zj) || gi == zr) continue;
      ti[t] = i, tj[t] = R->colind[k], tv[t++] = R->val[k];
    }
  em_csr *A = NULL;
  em_blockmat *B = NULL;
  REQUIRE_OK(em_csr_from_triplets(n, n, t, ti, tj, tv, &A));
  REQUIRE_OK(em_blockmat_from_csr(A, nb, off, &B));
  em_csr_destroy(&A), em_csr_destroy(&R);
  free(ti), free(tj), free(tv);
  return B;
}

/* perm is a permutation keeping groups; where `sorted[g]`, the group's rows
 * come out by key descending with ties in the old order; else unchanged. */
static void check_perm(const char *name, const em_blockmat *B, const int32_t *perm,
                       const int sorted[3], const int64_t *key) {
  int32_t n = B->offset[B->nb];
  int32_t *inv = malloc(sizeof *inv * (size_t)(n + 1));
  for (int32_t i = 0; i < n; i++) inv[i] = -1;
  int bad = 0;
  for (int g = 0; g < B->nb; g++)
    for (int32_t i = B->offset[g]; i < B->offset[g + 1]; i++) {
      bad += perm[i] < B->offset[g] || perm[i] >= B->offset[g + 1] || inv[perm[i]] != -1;
      if (!bad) inv[perm[i]] = i;
      if (!sorted[g]) bad += perm[i] != i;
    }
  for (int g = 0; g < B->nb && !bad; g++)
    for (int32_t r = B->offset[g] + 1; r < B->offset[g + 1]; r++) {
      int32_t a = inv[r - 1], b = inv[r];
      if (sorted[g]) bad += key[a] < key[b] || (key[a] == key[b] && a > b);
    }
  EXPECT(bad == 0, "%s: %d permutation faults", name, bad);
  em_blockmat *P = NULL;
  EXPECT_OK(em_blockmat_permute(B, perm, &P));
  em_blockmat_destroy(&P);
  free(inv);
}

static void run_perm(void) {
  em_blockmat *B = NULL;
  tu_fem_blockmat(2, 3, 8, &B);
  int32_t n = B->offset[3];
  int32_t *perm = malloc(sizeof *perm * (size_t)n);
  int64_t *key = calloc((size_t)n, sizeof *key);
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) o.format[i][j] = EM_FMT_HYB;
  int none[3] = {0, 0, 0}, g2[3] = {0, 1, 0}, g3[3] = {0, 0, 1}, all[3] = {1, 1, 1};
  EXPECT_OK(em_blockop_plan_perm(B, &o, perm));
  check_perm("no sliced block", B, perm, none, key);

  /* sliced A_21: group 2 by A_21's own row lengths */
  o.format[1][0] = EM_FMT_SELLRT;
  for (int32_t r = 0; r < B->offset[2] - B->offset[1]; r++)
    key[B->offset[1] + r] = B->blk[1][0]->rowptr[r + 1] - B->blk[1][0]->rowptr[r];
  EXPECT_OK(em_blockop_plan_perm(B, &o, perm));
  check_perm("sliced A_21", B, perm, g2, key);

  /* sliced A_32 and A_33: group 3 by the sum of both lengths */
  o.format[1][0] = EM_FMT_HYB;
  o.format[2][1] = o.format[2][2] = EM_FMT_SELLRT;
  for (int32_t r = 0; r < B->offset[3] - B->offset[2]; r++)
    key[B->offset[2] + r] = B->blk[2][1]->rowptr[r + 1] - B->blk[2][1]->rowptr[r] +
                            B->blk[2][2]->rowptr[r + 1] - B->blk[2][2]->rowptr[r];
  EXPECT_OK(em_blockop_plan_perm(B, &o, perm));
  check_perm("sliced A_32, A_33", B, perm, g3, key);

  /* one sliced matrix: every group by whole row length */
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  for (int32_t r = 0; r < n; r++) key[r] = A->rowptr[r + 1] - A->rowptr[r];
  o.mode = EM_BLOCKOP_ONE_MATRIX;
  o.whole_format = EM_FMT_SELLRT;
  EXPECT_OK(em_blockop_plan_perm(B, &o, perm));
  check_perm("sliced whole", B, perm, all, key);
  o.whole_format = EM_FMT_HEC;
  EXPECT_OK(em_blockop_plan_perm(B, &o, perm));
  check_perm("whole HEC", B, perm, none, key);
  em_csr_destroy(&A);
  free(perm), free(key);
  em_blockmat_destroy(&B);
}

static void run_refusals(void) {
  int32_t off[4] = {0, 30, 30, 70};
  em_blockmat *B = split(70, off, 3, -1, -1, -1, 3);
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  o.backend = backend;
  em_blockop *op = NULL;
  EXPECT_ERR(em_blockop_create(NULL, &o, &op), EM_ERR_ARG);
  o.mode = (em_blockop_mode)7;
  EXPECT_ERR(em_blockop_create(B, &o, &op), EM_ERR_ARG);
  o.mode = EM_BLOCKOP_STREAMS;
  B->offset[2] = 20; /* groups no longer match the blocks */
  EXPECT_ERR(em_blockop_create(B, &o, &op), EM_ERR_ARG);
  B->offset[2] = 30;
  int32_t keep = B->blk[0][2]->colind[0];
  B->blk[0][2]->colind[0] = 40; /* outside A_13's 40 columns */
  EXPECT(em_blockop_create(B, &o, &op) != EM_OK && op == NULL, "bad column accepted");
  em_error_clear();
  B->blk[0][2]->colind[0] = keep;
  REQUIRE_OK(em_blockop_create(B, &o, &op));
  tvec v;
  tvec_init(&v, 70, o.prec);
  EXPECT_ERR(em_blockop_apply(op, v.d, v.d), EM_ERR_ARG);
  EXPECT_ERR(em_blockop_apply(op, NULL, v.d), EM_ERR_ARG);
  em_operator A;
  EXPECT_OK(em_blockop_operator(op, &A));
  EXPECT(A.n == 70 && A.backend == backend && A.prec == o.prec && A.ctx == op, "operator fields");
  tvec_free(&v);
  em_blockop_destroy(&op);
  em_blockmat_destroy(&B);
}

/* The operator wrapper applies what em_blockop_apply applies. */
static void run_operator(void) {
  em_blockmat *B = NULL;
  tu_fem_blockmat(2, 2, 9, &B);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  o.backend = backend;
  em_blockop *op = NULL;
  REQUIRE_OK(em_blockop_create(B, &o, &op));
  em_operator K;
  REQUIRE_OK(em_blockop_operator(op, &K));
  size_t n = (size_t)K.n;
  em_cplx *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
  unsigned long long s = 5;
  for (size_t i = 0; i < n; i++) x[i] = tu_rand_cplx(&s);
  tvec vx, vy;
  tvec_init(&vx, n, K.prec), tvec_init(&vy, n, K.prec);
  tvec_put(&vx, x), tvec_put(&vy, NULL);
  EXPECT_OK(K.apply(K.ctx, vx.d, vy.d));
  tvec_get(&vy, y);
  double e = tu_err(A, x, NULL, y);
  EXPECT(e <= 1e-13, "operator: error %.3g", e);
  tvec_free(&vx), tvec_free(&vy);
  free(x), free(y);
  em_blockop_destroy(&op);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
    if (!tu_gpu_available()) return EM_TEST_SKIP;
    backend = EM_BACKEND_CUDA;
  }
  for (int p = 1; p <= 3; p++) {
    em_blockmat *B = NULL;
    tu_fem_blockmat(2, p, 4 + p, &B);
    char name[32];
    snprintf(name, sizeof name, "FEM order %d", p);
    run_blockmat(name, B);
    em_blockmat_destroy(&B);
  }
  int32_t o1[4] = {0, 57, 57, 200}, o2[4] = {0, 60, 130, 203}, o3[4] = {0, 0, 50, 80},
          o4[4] = {0, 0, 0, 0}, o5[4] = {0, 33, 97, 0};
  em_blockmat *B = split(200, o1, 3, -1, -1, -1, 1);
  run_blockmat("group 2 empty", B);
  em_blockmat_destroy(&B);
  B = split(203, o2, 3, 0, 2, 1, 2);
  run_blockmat("A_13 empty, block row 2 empty", B);
  em_blockmat_destroy(&B);
  B = split(80, o3, 3, 2, 2, -1, 3);
  run_blockmat("group 1 empty, A_33 empty", B);
  em_blockmat_destroy(&B);
  B = split(97, o5, 2, -1, -1, -1, 4);
  run_blockmat("two groups", B);
  em_blockmat_destroy(&B);
  B = split(0, o4, 1, -1, -1, -1, 5);
  run_blockmat("n = 0", B);
  em_blockmat_destroy(&B);
  run_perm();
  run_operator();
  run_refusals();
  return TEST_RESULT();
}
