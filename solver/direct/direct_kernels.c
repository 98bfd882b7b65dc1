/* direct_kernels.c - the block update C -= A diag(d) B^T of the supernodal
 * factorization: own kernels for three instruction sets (chosen at run
 * time from what the CPU supports, since the build targets baseline
 * x86-64) or BLAS zgemm, and the split of a big update into tiles that run
 * as OpenMP tasks. */
#include <complex.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"

#define DK_FN em_dk_tile_generic
#define DK_ATTR
#define DK_VW 2
#define DK_MV 2
#define DK_NR 4
#include "direct_kernel_tmpl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define DK_FN em_dk_tile_avx2
#define DK_ATTR __attribute__((target("avx2,fma")))
#define DK_VW 4
#define DK_MV 1
#define DK_NR 6
#include "direct_kernel_tmpl.h"

#define DK_FN em_dk_tile_avx512
#define DK_ATTR __attribute__((target("avx512f,avx2,fma")))
#define DK_VW 8
#define DK_MV 2
#define DK_NR 6
#include "direct_kernel_tmpl.h"
#endif

#ifdef EM_HAVE_BLAS
/* Fortran BLAS, with the hidden lengths of the character arguments. */
void zgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const em_cplx *alpha, const em_cplx *a, const int *lda, const em_cplx *b,
            const int *ldb, const em_cplx *beta, em_cplx *c, const int *ldc, size_t lta,
            size_t ltb);

/* C -= A diag(d) B^T through zgemm; with d, A is scaled into ws chunk by
 * chunk of the inner dimension. */
static void blas_tile(int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                      const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                      double *ws) {
  const em_cplx mone = -1, one = 1;
  int m = (int)M, n = (int)N, ila = (int)lda, ilb = (int)ldb, ilc = (int)ldc;
  if (!d) {
    int k = (int)K;
    zgemm_("N", "T", &m, &n, &k, &mone, A, &ila, B, &ilb, &one, C, &ilc, 1, 1);
    return;
  }
  em_cplx *W = (em_cplx *)ws; /* M x kc, ld M: M <= EM_DK_TB */
  for (int64_t k0 = 0; k0 < K; k0 += EM_DK_KC) {
    int kc = (int)(K - k0 < EM_DK_KC ? K - k0 : EM_DK_KC);
    for (int64_t k = 0; k < kc; k++)
      for (int64_t i = 0; i < M; i++) W[i + k * M] = A[i + (k0 + k) * lda] * d[k0 + k];
    zgemm_("N", "T", &m, &n, &kc, &mone, W, &m, B + k0 * ldb, &ilb, &one, C, &ilc, 1, 1);
  }
}
#endif

/* The shared-packing entry points of an own kernel (direct_kernel_tmpl.h). */
typedef struct own_kernel {
  int mr, nr; /* micro-tile */
  void (*panels)(int a, int64_t rows, const em_cplx *X, int64_t ldx, const em_cplx *d, int64_t k0,
                 int64_t kc, int64_t p0, int64_t p1, double *P);
  void (*packed)(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t kc, const double *Ap,
                 const double *Bp, em_cplx *C, int64_t ldc, int lower);
} own_kernel;

static const own_kernel OWN_GENERIC = {4, 4, em_dk_tile_generic_panels, em_dk_tile_generic_packed};
#if defined(__x86_64__) && defined(__GNUC__)
static const own_kernel OWN_AVX2 = {4, 6, em_dk_tile_avx2_panels, em_dk_tile_avx2_packed};
static const own_kernel OWN_AVX512 = {16, 6, em_dk_tile_avx512_panels, em_dk_tile_avx512_packed};
#endif

/* The own kernel of kind, NULL for BLAS. */
static const own_kernel *own_of(em_dk_kind kind) {
  switch (kind) {
#if defined(__x86_64__) && defined(__GNUC__)
    case EM_DK_AVX512:
      return &OWN_AVX512;
    case EM_DK_AVX2:
      return &OWN_AVX2;
#endif
    case EM_DK_BLAS:
      return NULL;
    default:
      return &OWN_GENERIC;
  }
}

em_dk_kind em_dk_best(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return EM_DK_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return EM_DK_AVX2;
#endif
  return EM_DK_GENERIC;
}

int em_dk_available(em_dk_kind kind) {
  switch (kind) {
    case EM_DK_GENERIC:
      return 1;
    case EM_DK_AVX2:
      return em_dk_best() >= EM_DK_AVX2;
    case EM_DK_AVX512:
      return em_dk_best() == EM_DK_AVX512;
    case EM_DK_BLAS:
      return em_direct_blas_built();
  }
  return 0;
}

const char *em_dk_name(em_dk_kind kind) {
  static const char *const names[] = {"own-generic", "own-avx2", "own-avx512", "blas"};
  return kind >= EM_DK_GENERIC && kind <= EM_DK_BLAS ? names[kind] : "?";
}

int em_direct_blas_built(void) {
#ifdef EM_HAVE_BLAS
  return 1;
#else
  return 0;
#endif
}

void em_dk_tile(em_dk_kind kind, int64_t M, int64_t N, int64_t K, const em_cplx *A, int64_t lda,
                const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc,
                int64_t off, double *ws) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  switch (kind) {
#if defined(__x86_64__) && defined(__GNUC__)
    case EM_DK_AVX512:
      em_dk_tile_avx512(M, N, K, A, lda, d, B, ldb, C, ldc, off, ws);
      return;
    case EM_DK_AVX2:
      em_dk_tile_avx2(M, N, K, A, lda, d, B, ldb, C, ldc, off, ws);
      return;
#endif
#ifdef EM_HAVE_BLAS
    case EM_DK_BLAS:
      blas_tile(M, N, K, A, lda, d, B, ldb, C, ldc, ws);
      return;
#endif
    default:
      em_dk_tile_generic(M, N, K, A, lda, d, B, ldb, C, ldc, off, ws);
      return;
  }
}

#ifdef EM_HAVE_BLAS
void ztrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const em_cplx *alpha, const em_cplx *a, const int *lda, em_cplx *b,
            const int *ldb, size_t l1, size_t l2, size_t l3, size_t l4);

/* X = R L11^-T through ztrsm, then the columns scaled by 1/d */
static void blas_trsm(int64_t rows, int64_t b, const em_cplx *L11, int64_t ld, const em_cplx *d,
                      em_cplx *R) {
  const em_cplx one = 1;
  int m = (int)rows, n = (int)b, il = (int)ld;
  ztrsm_("R", "L", "T", "U", &m, &n, &one, L11, &il, R, &il, 1, 1, 1, 1);
  for (int64_t j = 0; j < b; j++) {
    em_cplx inv = 1 / d[j], *x = R + j * ld;
    for (int64_t r = 0; r < rows; r++) x[r] *= inv;
  }
}
#endif

void em_dk_trsm(em_dk_kind kind, int64_t rows, int64_t b, const em_cplx *L11, int64_t ld,
                const em_cplx *d, em_cplx *R) {
  if (rows <= 0 || b <= 0) return;
  switch (kind) {
#if defined(__x86_64__) && defined(__GNUC__)
    case EM_DK_AVX512:
      em_dk_tile_avx512_trsm(rows, b, L11, ld, d, R);
      return;
    case EM_DK_AVX2:
      em_dk_tile_avx2_trsm(rows, b, L11, ld, d, R);
      return;
#endif
#ifdef EM_HAVE_BLAS
    case EM_DK_BLAS:
      blas_trsm(rows, b, L11, ld, d, R);
      return;
#endif
    default:
      em_dk_tile_generic_trsm(rows, b, L11, ld, d, R);
      return;
  }
}

/* Workspace of the calling thread. */
static double *thread_ws(const em_dk_ctx *ctx) {
#ifdef _OPENMP
  return ctx->ws[omp_get_thread_num()];
#else
  return ctx->ws[0];
#endif
}

/* Tile t of the update: tile rows/columns of EM_DK_TB; with `lower` only
 * the tiles (ri, cj), ri >= cj, in column order. */
static void tile_of(int64_t t, int64_t nrt, int64_t nct, int lower, int64_t *ri, int64_t *cj) {
  if (!lower) {
    *cj = t / nrt;
    *ri = t % nrt;
    return;
  }
  for (int64_t c = 0; c < nct; c++) {
    int64_t cnt = nrt - c;
    if (t < cnt) {
      *cj = c;
      *ri = c + t;
      return;
    }
    t -= cnt;
  }
  *cj = *ri = 0; /* not reached for t < count */
}

/* One tile of em_dk_update. */
static void update_tile(const em_dk_ctx *ctx, int64_t t, int64_t nrt, int64_t nct, int64_t M,
                        int64_t N, int64_t K, const em_cplx *A, int64_t lda, const em_cplx *d,
                        const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc, int lower) {
  int64_t ri, cj;
  tile_of(t, nrt, nct, lower, &ri, &cj);
  int64_t r0 = ri * EM_DK_TB, c0 = cj * EM_DK_TB;
  int64_t mt = M - r0 < EM_DK_TB ? M - r0 : EM_DK_TB, nt = N - c0 < EM_DK_TB ? N - c0 : EM_DK_TB;
  em_dk_tile(ctx->kind, mt, nt, K, A + r0, lda, d, B + c0, ldb, C + r0 + c0 * ldc, ldc,
             lower ? r0 - c0 : -1, thread_ws(ctx));
}

/* C -= A diag(d) B^T from shared packing: per chunk of EM_DK_KC, every
 * panel of A and B packed once (tasks), then the tiles (tasks) read them.
 * Each tile performs exactly the operations of em_dk_tile, in the same
 * order, so the result does not depend on the path.  Returns 0 when the
 * panels cannot be allocated (the caller takes the per-tile path). */
static int update_shared(const em_dk_ctx *ctx, const own_kernel *ok, int64_t M, int64_t N,
                         int64_t K, const em_cplx *A, int64_t lda, const em_cplx *d,
                         const em_cplx *B, int64_t ldb, em_cplx *C, int64_t ldc, int lower,
                         int64_t nrt, int64_t nct, int64_t ntile) {
  int64_t mp = (M + ok->mr - 1) / ok->mr, np = (N + ok->nr - 1) / ok->nr;
  double *Ap = NULL, *Bp = NULL;
  if (em_calloc(&Ap, (size_t)(2 * EM_DK_KC * mp * ok->mr), sizeof *Ap, "packed panels") ||
      em_calloc(&Bp, (size_t)(2 * EM_DK_KC * np * ok->nr), sizeof *Bp, "packed panels")) {
    em_error_clear();
    em_free(&Ap);
    return 0;
  }
  int64_t pstep = EM_DK_TB / ok->mr, qstep = EM_DK_TB / ok->nr; /* panels per tile */
  for (int64_t k0 = 0; k0 < K; k0 += EM_DK_KC) {
    int64_t kc = K - k0 < EM_DK_KC ? K - k0 : EM_DK_KC;
#pragma omp taskloop grainsize(1) default(shared) if (ctx->parallel)
    for (size_t tt = 0; tt < (size_t)(nrt + nct); tt++) { /* tile rows of A, then columns of B */
      int64_t t = (int64_t)tt;
      if (t < nrt) {
        int64_t p1 = (t + 1) * pstep < mp ? (t + 1) * pstep : mp;
        ok->panels(1, M, A, lda, d, k0, kc, t * pstep, p1, Ap);
      } else {
        int64_t c = t - nrt, q1 = (c + 1) * qstep < np ? (c + 1) * qstep : np;
        ok->panels(0, N, B, ldb, NULL, k0, kc, c * qstep, q1, Bp);
      }
    }
#pragma omp taskloop grainsize(1) default(shared) if (ctx->parallel)
    for (size_t tt = 0; tt < (size_t)ntile; tt++) {
      int64_t t = (int64_t)tt, ri, cj;
      tile_of(t, nrt, nct, lower, &ri, &cj);
      int64_t r0 = ri * EM_DK_TB, c0 = cj * EM_DK_TB;
      int64_t r1 = r0 + EM_DK_TB < M ? r0 + EM_DK_TB : M,
              c1 = c0 + EM_DK_TB < N ? c0 + EM_DK_TB : N;
      ok->packed(r0, r1, c0, c1, kc, Ap, Bp, C, ldc, lower);
    }
  }
  em_free(&Ap);
  em_free(&Bp);
  return 1;
}

/* Complex multiply-adds above which an update packs its panels once for
 * all tiles: the per-tile packing then repeats each panel for every tile
 * of its row or column (a quarter of the time of big fronts). */
#define SHARED_MIN_WORK 2e7

/* Complex multiply-adds above which an update is split into tasks: ~0.1 ms
 * of work, against a few microseconds per task.  The panels of the biggest
 * fronts (inner dimension 16, a few tiles) must be above it, or they run
 * on one thread while the others wait. */
#define TASK_MIN_WORK 2e5

void em_dk_update(const em_dk_ctx *ctx, int64_t M, int64_t N, int64_t K, const em_cplx *A,
                  int64_t lda, const em_cplx *d, const em_cplx *B, int64_t ldb, em_cplx *C,
                  int64_t ldc, int lower) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  int64_t nrt = (M + EM_DK_TB - 1) / EM_DK_TB, nct = (N + EM_DK_TB - 1) / EM_DK_TB;
  int64_t ntile = 0;
  if (lower)
    for (int64_t c = 0; c < nct; c++) ntile += nrt - c;
  else
    ntile = nrt * nct;
  double work = (double)M * (double)N * (double)K * (lower ? 0.5 : 1);
  const own_kernel *ok = own_of(ctx->kind);
  int shared = ctx->shared == 0 ? ntile > 1 && work > SHARED_MIN_WORK : ctx->shared > 0;
  if (ok && shared &&
      update_shared(ctx, ok, M, N, K, A, lda, d, B, ldb, C, ldc, lower, nrt, nct, ntile))
    return;
  if (ctx->parallel && ntile > 1 && work > TASK_MIN_WORK) {
#pragma omp taskloop grainsize(1) default(shared)
    for (size_t t = 0; t < (size_t)ntile; t++) /* unsigned: clang's taskloop */
      update_tile(ctx, (int64_t)t, nrt, nct, M, N, K, A, lda, d, B, ldb, C, ldc, lower);
  } else {
    for (int64_t t = 0; t < ntile; t++)
      update_tile(ctx, t, nrt, nct, M, N, K, A, lda, d, B, ldb, C, ldc, lower);
  }
}
