/* HYB (ELL + COO) and HEC (ELL + CSR) on one backend (CPU by default, the
 * GPU with argument "gpu"): SpMV equals em_csr_spmv_ref on awkward matrices
 * for several ELL widths K and GPU lanes T (the rule, 1, 2, 4, 8, 32 taken
 * as 8), both precisions, write and accumulate modes; the
 * automatic K follows the rule; the memory count is exact; on the CPU the
 * layout the GPU kernels read (ELL slots, tail, chunk boundaries) is checked
 * array by array. */
#include "hyb_impl.h"
#include "spmat_util.h"

static em_backend backend = EM_BACKEND_CPU;

/* The rule, literally: grow K while the first K+1 columns hold more than
 * half of their (K+1) n slots. */
static int32_t rule_width(const em_csr *A) {
  int32_t K = 0, maxlen = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > maxlen)
      maxlen = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
  while (K < maxlen) {
    int64_t in_first = 0;
    for (int32_t i = 0; i < A->n_rows; i++) {
      int64_t l = A->rowptr[i + 1] - A->rowptr[i];
      in_first += l < K + 1 ? l : K + 1;
    }
    if (2 * in_first <= (int64_t)(K + 1) * A->n_rows) break;
    K++;
  }
  return K;
}

/* The host layout against A: ELL slots hold each row's first K entries in
 * order (zeros in padding), the tail the rest, the chunk carries the right
 * boundary rows. */
static void check_layout(const em_spmat *M, const em_csr *A) {
  const em_hyb *H = M->data;
  int32_t n = A->n_rows, K = H->K;
  int64_t tail = 0, q = 0, m = 0;
  EXPECT(H->pitch % EM_HYB_PITCH == 0 && H->pitch >= n && H->pitch < n + EM_HYB_PITCH,
         "pitch %lld for %d rows", (long long)H->pitch, n);
  const em_cplx *ev = H->ell_val, *tv = H->hec ? H->rem_val : H->coo_val;
  int bad = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t b = A->rowptr[i], l = A->rowptr[i + 1] - b;
    bad += H->ell_len[i] != (l < K ? l : K);
    for (int32_t k = 0; k < K; k++) {
      int64_t p = (int64_t)k * H->pitch + i;
      if (k < l)
        bad += H->ell_col[p] != A->colind[b + k] || ev[p] != A->val[b + k];
      else
        bad += H->ell_col[p] != 0 || ev[p] != 0;
    }
    if (l <= K) continue;
    if (H->hec) {
      bad += H->rem_row[m] != i || H->rem_ptr[m] != q;
      m++;
    }
    for (int64_t k = b + K; k < b + l; k++, q++) {
      if (H->hec)
        bad += H->rem_col[q] != A->colind[k] || tv[q] != A->val[k];
      else
        bad += H->coo_row[q] != i || H->coo_col[q] != A->colind[k] || tv[q] != A->val[k];
    }
    tail += l - K;
  }
  EXPECT(bad == 0, "%d layout mismatches", bad);
  EXPECT(H->tail_nnz == tail, "tail %lld, expected %lld", (long long)H->tail_nnz, (long long)tail);
  if (H->hec) {
    EXPECT(H->n_rem == m && (m == 0 || H->rem_ptr[m] == tail), "HEC tail rows %d", H->n_rem);
    return;
  }
  /* every chunk's first and last row own slots 2w, 2w+1 inside their
   * boundary row's slot range */
  EXPECT(H->n_chunk == (tail + EM_HYB_CHUNK - 1) / EM_HYB_CHUNK, "chunks %lld",
         (long long)H->n_chunk);
  for (int64_t w = 0; w < H->n_chunk; w++) {
    int64_t e = (w + 1) * EM_HYB_CHUNK < tail ? (w + 1) * EM_HYB_CHUNK : tail;
    int32_t rows[2] = {H->coo_row[w * EM_HYB_CHUNK], H->coo_row[e - 1]};
    for (int k = 0; k < 2; k++) {
      int64_t slot = 2 * w + k, b = 0;
      while (b < H->n_bnd && !(H->bnd_ptr[b] <= slot && slot < H->bnd_ptr[b + 1])) b++;
      EXPECT(b < H->n_bnd && H->bnd_row[b] == rows[k], "chunk %lld slot %d not mapped to row %d",
             (long long)w, k, rows[k]);
    }
  }
}

/* Exact bytes of every array, from the definition of the layout. */
static size_t expect_bytes(const em_csr *A, int hec, int32_t K, em_prec p) {
  size_t s = em_prec_size(p), n = (size_t)A->n_rows, pitch = (n + 31) / 32 * 32;
  size_t tail = 0, rem = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    if (l > K) tail += (size_t)(l - K), rem++;
  }
  size_t bytes = 4 * n + (size_t)K * pitch * (4 + s);
  if (tail == 0) return bytes;
  if (hec) return bytes + 4 * rem + 8 * (rem + 1) + tail * (4 + s);
  /* boundary rows: distinct values among the chunks' first / last rows */
  size_t chunks = (tail + EM_HYB_CHUNK - 1) / EM_HYB_CHUNK, nb = 0;
  int32_t *row = malloc(sizeof *row * tail), last = -1;
  size_t t = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t l = A->rowptr[i + 1] - A->rowptr[i]; l > K; l--) row[t++] = i;
  for (size_t w = 0; w < chunks; w++) {
    size_t e = (w + 1) * EM_HYB_CHUNK < tail ? (w + 1) * EM_HYB_CHUNK : tail;
    int32_t r[2] = {row[w * EM_HYB_CHUNK], row[e - 1]};
    for (int k = 0; k < 2; k++)
      if (r[k] != last) nb++, last = r[k];
  }
  free(row);
  return bytes + tail * (8 + s) + 4 * nb + 8 * (nb + 1) + 2 * chunks * s;
}

/* One matrix through HYB and HEC, widths auto, 0, 1, 3, longest, longer. */
static void run_matrix(const char *name, const em_csr *A) {
  double t0 = em_wtime();
  int32_t maxlen = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > maxlen)
      maxlen = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
  int widths[] = {-1, 0, 1, 3, maxlen, maxlen + 7};
  for (int f = 0; f < 2; f++)
    for (int prec = 0; prec < 2; prec++)
      for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (int ti = 0; ti < 6; ti++) {
          /* an ELL as wide as a 5000-entry row is 100 MB of padding: the
           * widest widths run on the smaller matrices only */
          if ((int64_t)widths[w] * (A->n_rows + 32) > 4000000) continue;
          /* the GPU lanes of the ELL part: the rule (0), each T, 32 taken as
           * 8; every T on the rule's width and K = 3 (a long tail) */
          static const int Ts[6] = {0, 1, 2, 4, 8, 32};
          if (ti > 0 && w != 0 && w != 3) continue;
          em_spmat_opts o;
          em_spmat_opts_default(&o);
          o.format = f ? EM_FMT_HEC : EM_FMT_HYB;
          o.backend = backend;
          o.prec = (em_prec)prec;
          o.ell_width = widths[w];
          o.threads_per_row = Ts[ti];
          em_spmat *M = NULL;
          EXPECT_OK(em_spmat_create(A, &o, &M));
          if (!M) continue;
          em_spmat_info in;
          em_spmat_get_info(M, &in);
          int32_t K = widths[w] < 0 ? rule_width(A) : (widths[w] < maxlen ? widths[w] : maxlen);
          EXPECT(in.ell_width == K, "%s %s K=%d: width %d, expected %d", name,
                 em_format_name(o.format), widths[w], in.ell_width, K);
          int tw = Ts[ti] > EM_HYB_MAX_T ? EM_HYB_MAX_T : Ts[ti];
          EXPECT(Ts[ti] ? in.threads_per_row == tw
                        : (in.threads_per_row >= 1 && in.threads_per_row <= EM_HYB_MAX_T),
                 "%s %s T=%d: reports T = %d", name, em_format_name(o.format), Ts[ti],
                 in.threads_per_row);
          EXPECT(in.format == o.format && in.nnz == A->nnz && in.n_rows == A->n_rows &&
                     in.n_cols == A->n_cols,
                 "%s: info", name);
          size_t eb = expect_bytes(A, f, K, o.prec);
          EXPECT(in.bytes == eb, "%s %s K=%d %s: %zu bytes, expected %zu", name,
                 em_format_name(o.format), K, prec ? "single" : "double", in.bytes, eb);
          if (backend == EM_BACKEND_CPU && o.prec == EM_PREC_DOUBLE) check_layout(M, A);
          double e = tu_check_spmat(M, A, 1000 + w);
          EXPECT(e <= tu_tol(o.prec), "%s %s K=%d T=%d %s: error %.3g", name,
                 em_format_name(o.format), K, in.threads_per_row, prec ? "single" : "double", e);
          em_spmat_destroy(&M);
        }
  if (getenv("TU_TIME")) fprintf(stderr, "%s: %.3f s\n", name, em_wtime() - t0);
}

/* Rows built to stress the COO chunks: lengths around the chunk size, rows
 * ending exactly on a chunk edge, one row spanning many chunks. */
static em_csr *chunk_matrix(void) {
  int32_t n = 40, nc = 1500;
  int64_t lens[40];
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; i++) {
    lens[i] = i == 7 ? 1300 : (i % 5 == 0 ? 256 : (i % 5 == 1 ? 0 : 31 + 97 * (i % 3)));
    nnz += lens[i];
  }
  em_csr *A = NULL;
  REQUIRE_OK(em_csr_create(n, nc, nnz, &A));
  unsigned long long s = 99;
  int64_t p = 0;
  for (int32_t i = 0; i < n; i++) {
    A->rowptr[i] = p;
    for (int64_t k = 0; k < lens[i]; k++) {
      A->colind[p] = (int32_t)k;
      A->val[p++] = tu_rand_cplx(&s);
    }
  }
  A->rowptr[n] = p;
  return A;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gpu")) {
    if (!tu_gpu_available()) return EM_TEST_SKIP;
    backend = EM_BACKEND_CUDA;
  }
  em_csr *A = NULL;

  REQUIRE_OK(em_csr_create(0, 0, 0, &A));
  run_matrix("0x0", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(1, 1, 1, 0, 0, 1, 1);
  run_matrix("1x1", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(1, 1, 0, 0, -1, 0, 1);
  run_matrix("1x1 empty", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(517, 517, 40, 9, 100, 517, 2);
  run_matrix("517 square, full row", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(1237, 6011, 30, 7, 611, 5000, 3);
  run_matrix("1237x6011, row of 5000", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(53, 3001, 200, 4, -1, 0, 4);
  run_matrix("53x3001 wide", A);
  em_csr_destroy(&A);

  A = tu_rand_csr(3001, 53, 20, 3, -1, 0, 5);
  run_matrix("3001x53 tall", A);
  em_csr_destroy(&A);

  A = chunk_matrix();
  run_matrix("chunk edges", A);
  em_csr_destroy(&A);

  em_blockmat *B = NULL;
  tu_fem_blockmat(2, 3, 6, &B);
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      char name[64];
      snprintf(name, sizeof name, "FEM order 3 block A_%d%d", i + 1, j + 1);
      run_matrix(name, B->blk[i][j]);
    }
  em_blockmat_destroy(&B);

  /* bad input is refused and names the culprit */
  A = tu_rand_csr(10, 10, 3, 0, -1, 0, 7);
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_HYB;
  o.backend = backend;
  em_spmat *M = NULL;
  A->colind[A->nnz - 1] = 10;
  EXPECT_ERR(em_spmat_create(A, &o, &M), EM_ERR_ARG);
  EXPECT(M == NULL, "no matrix after an error");
  A->colind[A->nnz - 1] = 9;
  A->rowptr[3] = A->rowptr[4] + 1;
  o.format = EM_FMT_HEC;
  EXPECT_ERR(em_spmat_create(A, &o, &M), EM_ERR_ARG);
  em_csr_destroy(&A);
  return TEST_RESULT();
}
