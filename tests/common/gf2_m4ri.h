/* gf2_m4ri.h - em_gf2 matrices to and from M4RI's mzd_t (Debian's
 * libm4ri-dev), the CPU reference of GF(2) elimination in test_gf2_m4ri and
 * gf2_bench.  Only compiled where CMake found M4RI (EM_HAVE_M4RI).
 *
 * Both store a row's bits from the least significant end: a(i, j) is bit
 * j % 32 of 32-bit word j / 32 here and bit j % 64 of 64-bit word j / 64 in
 * M4RI, so M4RI's word k is our words 2k (low half) and 2k + 1 (high half),
 * whatever the byte order. */
#ifndef EM_GF2_M4RI_H
#define EM_GF2_M4RI_H

/* M4RI's prototypes name a parameter I, complex.h's imaginary unit */
#pragma push_macro("I")
#undef I
#include <m4ri/m4ri.h>
#pragma pop_macro("I")

#include "em_linalg.h"

/* A new mzd_t equal to A (M4RI aborts when out of memory). */
static inline mzd_t *em_test_gf2_to_mzd(const em_gf2 *A) {
  mzd_t *M = mzd_init(A->n_rows, A->n_cols);
  for (int32_t i = 0; i < A->n_rows; i++) {
    const uint32_t *a = A->w + (int64_t)i * A->words;
    word *m = mzd_row(M, i);
    for (int32_t k = 0; k < A->words; k++) m[k / 2] |= (word)a[k] << (32 * (k % 2));
  }
  return M;
}

/* 1 when A and M have the same shape and every a(i, j) = m(i, j) (M's bits
 * past n_cols, which M4RI does not promise to clear, are not compared; A's
 * are zero by em_gf2's rule, checked by test_gf2); else 0, *row the first
 * row that differs. */
static inline int em_test_gf2_equal_mzd(const em_gf2 *A, const mzd_t *M, int32_t *row) {
  *row = -1;
  if (A->n_rows != M->nrows || A->n_cols != M->ncols) return 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    const uint32_t *a = A->w + (int64_t)i * A->words;
    const word *m = mzd_row(M, i);
    for (int32_t k = 0; k < A->words; k++) {
      const int32_t left = A->n_cols - 32 * k; /* columns in word k */
      const uint32_t mask = left >= 32 ? 0xFFFFFFFFu : (1u << left) - 1;
      if ((uint32_t)(m[k / 2] >> (32 * (k % 2))) != (a[k] & mask) || (a[k] & ~mask)) {
        *row = i;
        return 0;
      }
    }
  }
  return 1;
}

#endif
