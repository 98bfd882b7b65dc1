/* sort.c - in-place ascending sort of 64-bit keys and of 32-bit integers:
 * quicksort with the median of three down to runs of 16, insertion sort
 * below (Sedgewick).  The rows of a permuted matrix and the keys of the
 * graph compression pack (key << 32 | payload) into one word, so one sort
 * serves them; the 32-bit one sorts the pattern's entity lists and the
 * symbolic factorization's row lists (issue 24: qsort's comparison calls
 * were ~3 % of a 1M-unknown run's host time).  One body for both types. */
#include "em_core.h"

#define EM_SORT_DEFINE(NAME, T)                                     \
  static void NAME##_insertion(T *a, int64_t n) {                   \
    for (int64_t i = 1; i < n; i++) {                               \
      T x = a[i];                                                   \
      int64_t j = i - 1;                                            \
      while (j >= 0 && a[j] > x) {                                  \
        a[j + 1] = a[j];                                            \
        j--;                                                        \
      }                                                             \
      a[j + 1] = x;                                                 \
    }                                                               \
  }                                                                 \
  static void NAME##_swap(T *a, int64_t i, int64_t j) {             \
    T t = a[i];                                                     \
    a[i] = a[j];                                                    \
    a[j] = t;                                                       \
  }                                                                 \
  void NAME(T *a, int64_t n) {                                      \
    while (n > 16) {                                                \
      int64_t m = n / 2; /* median of a[0], a[m], a[n-1] to a[0] */ \
      if (a[m] < a[0]) NAME##_swap(a, m, 0);                        \
      if (a[n - 1] < a[0]) NAME##_swap(a, n - 1, 0);                \
      if (a[n - 1] < a[m]) NAME##_swap(a, n - 1, m);                \
      NAME##_swap(a, 0, m);                                         \
      T p = a[0];                                                   \
      int64_t i = 0, j = n; /* Hoare: a[1..i] <= p <= a[j..n-1] */  \
      for (;;) {                                                    \
        do i++;                                                     \
        while (i < n && a[i] < p);                                  \
        do j--;                                                     \
        while (a[j] > p);                                           \
        if (i >= j) break;                                          \
        NAME##_swap(a, i, j);                                       \
      }                                                             \
      NAME##_swap(a, 0, j);                                         \
      /* the smaller part by recursion, the larger by the loop */   \
      if (j < n - j - 1) {                                          \
        NAME(a, j);                                                 \
        a += j + 1;                                                 \
        n -= j + 1;                                                 \
      } else {                                                      \
        NAME(a + j + 1, n - j - 1);                                 \
        n = j;                                                      \
      }                                                             \
    }                                                               \
    NAME##_insertion(a, n);                                         \
  }

EM_SORT_DEFINE(em_sort_u64, uint64_t)
EM_SORT_DEFINE(em_sort_i32, int32_t)
