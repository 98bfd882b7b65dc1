/* The dense kernels of the direct solver against plain loops: the tile
 * update C -= A diag(d) B^T of every instruction set this CPU runs (and
 * BLAS when built) on awkward sizes (1, odd, around the micro-tile and
 * tile sizes, inner dimension around the chunk size), with and without d,
 * full and lower; the tiled update with its tasks; the triangular solve
 * of a block's rows; the partial LDL^T of a
 * front (one and several panels, no update matrix, one column) against an
 * unblocked reference, and the static pivot perturbation. */
#include <complex.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"
#include "em_test.h"

static em_cplx rnd(unsigned long long *s) {
  return (em_test_rand(s) - 0.5) * 2 + I * (em_test_rand(s) - 0.5) * 2;
}

static em_cplx *rnd_array(size_t n, unsigned long long seed) {
  em_cplx *x = calloc(n + 1, sizeof *x);
  unsigned long long s = seed;
  for (size_t i = 0; i < n; i++) x[i] = rnd(&s);
  return x;
}

/* C -= A diag(d) B^T, plain loops */
static void ref_update(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                       const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc) {
  for (int64_t j = 0; j < N; j++)
    for (int64_t i = 0; i < M; i++) {
      em_cplx s = 0;
      for (int64_t k = 0; k < K; k++) s += A[i + k * lda] * (d ? d[k] : 1) * B[j + k * ldb];
      C[i + j * ldc] -= s;
    }
}

/* max |C - R| over the needed entries (all, or i + off >= j) */
static double tile_err(int64_t M, int64_t N, const em_cplx *C, const em_cplx *R, int64_t ldc,
                       int64_t off) {
  double e = 0;
  for (int64_t j = 0; j < N; j++)
    for (int64_t i = 0; i < M; i++)
      if (off < 0 || i + off >= j) e = fmax(e, cabs(C[i + j * ldc] - R[i + j * ldc]));
  return e;
}

static void test_tiles(void) {
  static const int64_t MS[] = {1, 2, 5, 16, 17, 33, EM_DK_TB};
  static const int64_t KS[] = {1, 7, EM_DK_KC + 1};
  double *ws = calloc(EM_DK_WS, sizeof *ws);
  int checked[EM_DK_BLAS + 1] = {0};
  for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++)
    if (!em_dk_available((em_dk_kind)kind))
      fprintf(stderr, "kernels %s: not available here, skipped\n", em_dk_name((em_dk_kind)kind));
  for (size_t a = 0; a < sizeof MS / sizeof *MS; a++)
    for (size_t b = 0; b < sizeof MS / sizeof *MS; b += 2)
      for (size_t c = 0; c < sizeof KS / sizeof *KS; c++) {
        int64_t M = MS[a], N = MS[b], K = KS[c];
        if (M * N * K > 200000 && !(M == EM_DK_TB && N == 33 && K == EM_DK_KC + 1))
          continue; /* keep it fast; one full-height tile over a chunk boundary */
        int64_t lda = M + 3, ldb = N + 1, ldc = M + 2;
        size_t nc = (size_t)(ldc * N);
        em_cplx *A = rnd_array((size_t)(lda * K), 1 + M), *B = rnd_array((size_t)(ldb * K), 2 + N);
        em_cplx *d = rnd_array((size_t)K, 3 + K), *C = rnd_array(nc, 4);
        em_cplx *R = malloc(nc * sizeof *R), *C2 = malloc(nc * sizeof *C2);
        for (int useD = 0; useD < 2; useD++) {
          memcpy(R, C, nc * sizeof *R);
          ref_update(M, N, K, A, lda, useD ? d : NULL, B, ldb, R, ldc);
          for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++) {
            if (!em_dk_available((em_dk_kind)kind)) continue;
            for (int64_t off = -1; off <= (M > 1 ? 1 : 0); off++) { /* full, lower, lower + 1 */
              memcpy(C2, C, nc * sizeof *C2);
              em_dk_tile((em_dk_kind)kind, M, N, K, A, lda, useD ? d : NULL, B, ldb, C2, ldc, off,
                         ws);
              double e = tile_err(M, N, C2, R, ldc, off);
              EXPECT(e <= 1e-13 * (double)K * 4, "%s: %lldx%lldx%lld d=%d off=%lld: error %.2e",
                     em_dk_name((em_dk_kind)kind), (long long)M, (long long)N, (long long)K, useD,
                     (long long)off, e);
              int guard = 1; /* the padding rows between M and ldc stay untouched */
              for (int64_t j = 0; j < N; j++)
                for (int64_t i = M; i < ldc; i++) guard &= C2[i + j * ldc] == C[i + j * ldc];
              EXPECT(guard, "%s: wrote outside the tile", em_dk_name((em_dk_kind)kind));
              checked[kind]++;
            }
          }
        }
        free(A), free(B), free(d), free(C), free(R), free(C2);
      }
  for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++)
    fprintf(stderr, "kernels %s: %d tile cases\n", em_dk_name((em_dk_kind)kind), checked[kind]);
  free(ws);
}

/* the tiled update, sequential and as tasks, full and lower */
static void test_update(void) {
#ifdef _OPENMP
  int nt = omp_get_max_threads();
#else
  int nt = 1;
#endif
  double **ws = calloc((size_t)nt, sizeof *ws);
  for (int t = 0; t < nt; t++) ws[t] = calloc(EM_DK_WS, sizeof **ws);
  int64_t M = 262, N = 259, K = 64, ld = M + 5; /* above TASK_MIN_WORK: tasks */
  em_cplx *A = rnd_array((size_t)(ld * K), 5), *d = rnd_array((size_t)K, 6);
  em_cplx *C = rnd_array((size_t)(ld * N), 7), *R = malloc((size_t)(ld * N) * sizeof *R);
  em_cplx *C2 = malloc((size_t)(ld * N) * sizeof *C2);
  memcpy(R, C, (size_t)(ld * N) * sizeof *R);
  ref_update(M, N, K, A, ld, d, A, ld, R, ld); /* B = A: a symmetric update */
  em_cplx *C3 = malloc((size_t)(ld * N) * sizeof *C3);
  for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++) {
    if (!em_dk_available((em_dk_kind)kind)) continue;
    for (int par = 0; par < 2; par++)
      for (int lower = 0; lower < 2; lower++)
        for (int shared = -1; shared <= 1; shared += 2) { /* per-tile and shared packing */
          em_dk_ctx ctx = {(em_dk_kind)kind, ws, par, shared};
          memcpy(C2, C, (size_t)(ld * N) * sizeof *C2);
          if (par) {
#pragma omp parallel
#pragma omp single
            em_dk_update(&ctx, M, N, K, A, ld, d, A, ld, C2, ld, lower);
          } else {
            em_dk_update(&ctx, M, N, K, A, ld, d, A, ld, C2, ld, lower);
          }
          double e = tile_err(M, N, C2, R, ld, lower ? 0 : -1);
          EXPECT(e <= 1e-12, "update %s parallel %d lower %d shared %d: error %.2e",
                 em_dk_name((em_dk_kind)kind), par, lower, shared, e);
          if (shared < 0) {
            memcpy(C3, C2, (size_t)(ld * N) * sizeof *C3);
          } else if (kind != EM_DK_BLAS) { /* the two paths agree bit for bit */
            int same = 1;
            for (int64_t j = 0; j < N; j++)
              for (int64_t i = lower ? j : 0; i < M; i++) same &= C2[i + j * ld] == C3[i + j * ld];
            EXPECT(same, "update %s: shared and per-tile packing differ",
                   em_dk_name((em_dk_kind)kind));
          }
        }
  }
  for (int t = 0; t < nt; t++) free(ws[t]);
  free(ws), free(A), free(d), free(C), free(R), free(C2), free(C3);
}

/* the triangular solve R := R L11^-T D^-1 against plain loops */
static void test_trsm(void) {
  static const int64_t ROWS[] = {1, 2, 3, 15, 16, 17, 40};
  static const int64_t BS[] = {1, 2, 5, EM_DK_IB};
  for (size_t a = 0; a < sizeof ROWS / sizeof *ROWS; a++)
    for (size_t c = 0; c < sizeof BS / sizeof *BS; c++) {
      int64_t rows = ROWS[a], b = BS[c], ld = rows + b + 3;
      em_cplx *L11 = rnd_array((size_t)(ld * b), 21 + b), *d = rnd_array((size_t)b, 22);
      em_cplx *R0 = rnd_array((size_t)(ld * b), 23 + rows),
              *X = malloc((size_t)(ld * b) * sizeof *X);
      for (int64_t j = 0; j < b; j++) d[j] += 2;   /* away from zero */
      memcpy(X, R0, (size_t)(ld * b) * sizeof *X); /* reference: x_j = (r_j - sum x_i L_ji) / d_j */
      for (int64_t j = 0; j < b; j++) {
        for (int64_t i = 0; i < j; i++)
          for (int64_t r = 0; r < rows; r++) X[r + j * ld] -= X[r + i * ld] * L11[j + i * ld];
      }
      for (int64_t j = 0; j < b; j++)
        for (int64_t r = 0; r < rows; r++) X[r + j * ld] /= d[j];
      for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++) {
        if (!em_dk_available((em_dk_kind)kind)) continue;
        em_cplx *R = malloc((size_t)(ld * b) * sizeof *R);
        memcpy(R, R0, (size_t)(ld * b) * sizeof *R);
        em_dk_trsm((em_dk_kind)kind, rows, b, L11, ld, d, R);
        double e = 0;
        int guard = 1;
        for (int64_t j = 0; j < b; j++)
          for (int64_t r = 0; r < ld; r++)
            if (r < rows)
              e = fmax(e, cabs(R[r + j * ld] - X[r + j * ld]) / fmax(1, cabs(X[r + j * ld])));
            else
              guard &= R[r + j * ld] == R0[r + j * ld];
        EXPECT(e <= 1e-12 && guard, "trsm %s rows=%lld b=%lld: error %.2e, guard %d",
               em_dk_name((em_dk_kind)kind), (long long)rows, (long long)b, e, guard);
        free(R);
      }
      free(L11), free(d), free(R0), free(X);
    }
}

/* Reference partial LDL^T of the dense symmetric front F (m x m, lower
 * used): pivots d, L (m x k), U = F22 - L21 D L21^T (nb x nb). */
static void ref_front(int64_t m, int64_t k, const em_cplx *F0, em_cplx *L, em_cplx *d, em_cplx *U) {
  em_cplx *W = malloc((size_t)(m * m) * sizeof *W);
  memcpy(W, F0, (size_t)(m * m) * sizeof *W);
  for (int64_t j = 0; j < k; j++) {
    d[j] = W[j + j * m];
    for (int64_t i = j + 1; i < m; i++) L[i + j * m] = W[i + j * m] / d[j];
    L[j + j * m] = 1;
    for (int64_t c = j + 1; c < m; c++)
      for (int64_t r = c; r < m; r++) W[r + c * m] -= L[r + j * m] * d[j] * L[c + j * m];
  }
  int64_t nb = m - k;
  for (int64_t c = 0; c < nb; c++)
    for (int64_t r = c; r < nb; r++) U[r + c * nb] = W[k + r + (k + c) * m];
  free(W);
}

static void test_front(void) {
  static const int64_t CASES[][2] = {{1, 1},    {5, 1},    {5, 5},     {40, 13},
                                     {100, 64}, {110, 65}, {140, 130}, {130, 130}};
  double *ws0 = calloc(EM_DK_WS, sizeof *ws0);
  double *wsp[1] = {ws0};
  for (int kind = EM_DK_GENERIC; kind <= EM_DK_BLAS; kind++) {
    if (!em_dk_available((em_dk_kind)kind)) continue;
    em_dk_ctx ctx = {(em_dk_kind)kind, wsp, 0, 0};
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
      int64_t m = CASES[c][0], k = CASES[c][1], nb = m - k;
      em_cplx *F0 = rnd_array((size_t)(m * m), 11 + m + k);
      for (int64_t j = 0; j < m; j++) { /* symmetric, diagonal large enough */
        for (int64_t i = 0; i < j; i++) F0[i + j * m] = F0[j + i * m];
        F0[j + j * m] += (j % 2 ? -1 : 1) * 2.0 * sqrt((double)m);
      }
      em_cplx *L = calloc((size_t)(m * k) + 1, sizeof *L), *d = calloc((size_t)k, sizeof *d);
      em_cplx *cb = calloc((size_t)(nb * nb) + 1, sizeof *cb);
      em_cplx *Lr = calloc((size_t)(m * m), sizeof *Lr), *dr = calloc((size_t)k, sizeof *dr);
      em_cplx *Ur = calloc((size_t)(nb * nb) + 1, sizeof *Ur);
      for (int64_t j = 0; j < k; j++) /* the pivot columns, lower part only */
        for (int64_t i = j; i < m; i++) L[i + j * m] = F0[i + j * m];
      for (int64_t j = 0; j < nb; j++) /* the update matrix starts as F22 (lower) */
        for (int64_t i = j; i < nb; i++) cb[i + j * nb] = F0[k + i + (k + j) * m];
      em_dk_piv piv = {0, 0, -1, 0};
      em_dk_front(&ctx, m, k, L, d, cb, &piv);
      ref_front(m, k, F0, Lr, dr, Ur);
      double e = 0;
      for (int64_t j = 0; j < k; j++) {
        e = fmax(e, cabs(d[j] - dr[j]) / cabs(dr[j]));
        for (int64_t i = 0; i < m; i++) {
          em_cplx want = i < j ? 0 : Lr[i + j * m];
          e = fmax(e, cabs(L[i + j * m] - want));
        }
      }
      for (int64_t j = 0; j < nb; j++)
        for (int64_t i = j; i < nb; i++) e = fmax(e, cabs(cb[i + j * nb] - Ur[i + j * nb]) / m);
      EXPECT(piv.bad == -1 && piv.perturbed == 0, "front %lldx%lld: bad %lld perturbed %lld",
             (long long)m, (long long)k, (long long)piv.bad, (long long)piv.perturbed);
      EXPECT(e <= 1e-12, "front %s m=%lld k=%lld: error %.2e", em_dk_name((em_dk_kind)kind),
             (long long)m, (long long)k, e);
      free(F0), free(L), free(d), free(cb), free(Lr), free(dr), free(Ur);
    }
  }
  /* perturbation: [1e-20 1; 1 1] with tau = 1e-8: d0 = 1e-8 with the same
   * phase, counted; tau = 0 with an exact zero pivot: bad, zero */
  em_dk_ctx ctx = {EM_DK_GENERIC, wsp, 0, 0};
  em_cplx L[4] = {1e-20 * I, 1, 0, 1}, d[2], cb[1] = {0};
  em_dk_piv piv = {1e-8, 0, -1, 0};
  em_dk_front(&ctx, 2, 2, L, d, cb, &piv);
  EXPECT(piv.perturbed == 1 && piv.bad == -1, "perturbed %lld", (long long)piv.perturbed);
  EXPECT(cabs(d[0] - 1e-8 * I) < 1e-22, "perturbed pivot %g%+gi", creal(d[0]), cimag(d[0]));
  EXPECT(cabs(d[1] - (1 - 1 / (1e-8 * I))) < 1e-6, "second pivot %g%+gi", creal(d[1]), cimag(d[1]));
  em_cplx Z[4] = {0, 1, 0, 1};
  em_dk_piv pz = {0, 0, -1, 0};
  em_dk_front(&ctx, 2, 2, Z, d, cb, &pz);
  EXPECT(pz.bad == 0 && pz.bad_zero == 1, "zero pivot: bad %lld zero %d", (long long)pz.bad,
         pz.bad_zero);
  em_cplx N[4] = {NAN, 1, 0, 1};
  em_dk_piv pn = {1e-8, 0, -1, 0};
  em_dk_front(&ctx, 2, 2, N, d, cb, &pn);
  EXPECT(pn.bad == 0 && pn.bad_zero == 0, "NaN pivot: bad %lld zero %d", (long long)pn.bad,
         pn.bad_zero);
  free(ws0);
}

int main(void) {
  fprintf(stderr, "best own kernels here: %s\n", em_dk_name(em_dk_best()));
  test_tiles();
  test_update();
  test_trsm();
  test_front();
  return TEST_RESULT();
}
