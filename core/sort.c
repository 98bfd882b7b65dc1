/* sort.c - in-place ascending sort of 64-bit keys: quicksort with the
 * median of three down to runs of 16, insertion sort below (Sedgewick).
 * The rows of a permuted matrix and the keys of the graph compression
 * pack (key << 32 | payload) into one word, so one sort serves them. */
#include "em_core.h"

static void insertion(uint64_t *a, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    uint64_t x = a[i];
    int64_t j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

static void swap(uint64_t *a, int64_t i, int64_t j) {
  uint64_t t = a[i];
  a[i] = a[j];
  a[j] = t;
}

void em_sort_u64(uint64_t *a, int64_t n) {
  while (n > 16) {
    int64_t m = n / 2; /* median of a[0], a[m], a[n-1] to a[0] */
    if (a[m] < a[0]) swap(a, m, 0);
    if (a[n - 1] < a[0]) swap(a, n - 1, 0);
    if (a[n - 1] < a[m]) swap(a, n - 1, m);
    swap(a, 0, m);
    uint64_t p = a[0];
    int64_t i = 0, j = n; /* Hoare partition: a[1..i] <= p <= a[j..n-1] */
    for (;;) {
      do i++;
      while (i < n && a[i] < p);
      do j--;
      while (a[j] > p);
      if (i >= j) break;
      swap(a, i, j);
    }
    swap(a, 0, j);
    /* recurse into the smaller part, loop on the larger: depth O(log n) */
    if (j < n - j - 1) {
      em_sort_u64(a, j);
      a += j + 1;
      n -= j + 1;
    } else {
      em_sort_u64(a + j + 1, n - j - 1);
      n = j;
    }
  }
  insertion(a, n);
}
