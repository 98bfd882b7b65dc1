/* direct_solve_kernels.c - the dense steps of the supernodal solves on a
 * block of R right-hand sides (direct_solve_tmpl.h), one copy per
 * instruction set chosen at run time like the factorization's kernels.
 * Why: a supernode's block of L is read once for all R columns, and the
 * columns share every load of L inside the register tiles, where the
 * column-by-column loops read L and the update vectors once per column.
 *
 * This file is compiled with -ffp-contract=off (solver/CMakeLists.txt): no
 * fused multiply-adds, so the vector tiles, the scalar rows at their end
 * and every tile width give each entry the same rounding, and a column of
 * a block solve equals its one-column solve bit for bit. */
#include "direct_impl.h"

/* Lanes of v picked by the constant indices (a lane permutation). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define EM_DS_SHUFFLE(v, mask, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#endif
#endif
#ifndef EM_DS_SHUFFLE /* GCC before 12 */
#define EM_DS_SHUFFLE(v, mask, ...) __builtin_shuffle(v, (mask){__VA_ARGS__})
#endif

#define DS_FN em_ds_generic
#define DS_ATTR
#define DS_VW 2
#define DS_JB 1
#define DS_NR 2
#include "direct_solve_tmpl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define DS_FN em_ds_avx2
#define DS_ATTR __attribute__((target("avx2")))
#define DS_VW 4
#define DS_JB 2
#define DS_NR 2
#include "direct_solve_tmpl.h"

#define DS_FN em_ds_avx512
#define DS_ATTR __attribute__((target("avx512f,avx2")))
#define DS_VW 8
#define DS_JB 2
#define DS_NR 4
#include "direct_solve_tmpl.h"
#endif

/* The kernels of an instruction set. */
typedef struct ds_kernels {
  void (*gemm_n)(int64_t M, int R, int64_t K, const em_cplx *A, int64_t lda, const em_cplx *C,
                 int64_t ldc, int neg, em_cplx *T, int64_t ldt);
  void (*gemm_t)(int64_t M, int64_t K, int R, const em_cplx *A, int64_t lda, const em_cplx *B,
                 int64_t ldb, em_cplx *X, int64_t ldx);
  void (*trsm_n)(int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X, int64_t ldx);
  void (*trsm_t)(int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X, int64_t ldx);
} ds_kernels;

static const ds_kernels DS_GENERIC = {em_ds_generic_gemm_n, em_ds_generic_gemm_t,
                                      em_ds_generic_trsm_n, em_ds_generic_trsm_t};
#if defined(__x86_64__) && defined(__GNUC__)
static const ds_kernels DS_AVX2 = {em_ds_avx2_gemm_n, em_ds_avx2_gemm_t, em_ds_avx2_trsm_n,
                                   em_ds_avx2_trsm_t};
static const ds_kernels DS_AVX512 = {em_ds_avx512_gemm_n, em_ds_avx512_gemm_t, em_ds_avx512_trsm_n,
                                     em_ds_avx512_trsm_t};
#endif

/* The kernels of kind (a kind this CPU cannot run falls back to the
 * generic ones; BLAS factors solve with the best own kernels). */
static const ds_kernels *ds_of(em_dk_kind kind) {
  if (kind == EM_DK_BLAS) kind = em_dk_best();
#if defined(__x86_64__) && defined(__GNUC__)
  if (kind == EM_DK_AVX512 && em_dk_available(kind)) return &DS_AVX512;
  if (kind == EM_DK_AVX2 && em_dk_available(kind)) return &DS_AVX2;
#endif
  return &DS_GENERIC;
}

em_dk_kind em_ds_kind(em_dk_kind kind) {
  if (kind == EM_DK_BLAS) kind = em_dk_best();
  return em_dk_available(kind) ? kind : EM_DK_GENERIC;
}

void em_ds_gemm_n(em_dk_kind kind, int64_t M, int R, int64_t K, const em_cplx *A, int64_t lda,
                  const em_cplx *C, int64_t ldc, int neg, em_cplx *T, int64_t ldt) {
  if (M > 0 && R > 0 && K > 0) ds_of(kind)->gemm_n(M, R, K, A, lda, C, ldc, neg, T, ldt);
}

void em_ds_gemm_t(em_dk_kind kind, int64_t M, int64_t K, int R, const em_cplx *A, int64_t lda,
                  const em_cplx *B, int64_t ldb, em_cplx *X, int64_t ldx) {
  if (M > 0 && R > 0 && K > 0) ds_of(kind)->gemm_t(M, K, R, A, lda, B, ldb, X, ldx);
}

void em_ds_trsm_n(em_dk_kind kind, int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X,
                  int64_t ldx) {
  if (k > 0 && R > 0) ds_of(kind)->trsm_n(k, R, L, ldl, X, ldx);
}

void em_ds_trsm_t(em_dk_kind kind, int64_t k, int R, const em_cplx *L, int64_t ldl, em_cplx *X,
                  int64_t ldx) {
  if (k > 0 && R > 0) ds_of(kind)->trsm_t(k, R, L, ldl, X, ldx);
}
