/* choose.c - the automatic format choice (EM_FMT_AUTO) and the default
 * threads per row, from the row-length statistics; the rule and the numbers
 * behind it are in docs/formats.md ("Choosing a format").  The constants
 * are gathered here (those of the long tail in formats_impl.h, where
 * test_fmt_choose reads them) so that new bench results change one place. */
#include <stdlib.h>

#include "ell_impl.h"

/* Slots one thread should walk at least (ELLR-T, sliced ELLR-T): below this
 * the last partial step and the shuffle tree cost more than the coalesced x
 * reads of neighbouring slots gain. */
#define CHOOSE_SLOTS_PER_THREAD 16
/* A larger T may cost at most this much more padding than T = 1. */
#define CHOOSE_EXTRA_PAD 0.02
/* Sliced ELLR-T when its padding, with rows sorted by length, keeps the
 * stored slots within this factor of the nonzeros (the memory target: at
 * most 110% of CSR) ... */
#define CHOOSE_SELL_PAD_SORTED 1.10
/* ... and the rows as given (unsorted) do not pad past this factor. */
#define CHOOSE_SELL_PAD_GIVEN 1.50
/* EM_CHOOSE_TAIL_MIN, EM_CHOOSE_TAIL_RATIO, EM_CHOOSE_HYB_STEPS
 * (formats_impl.h, where the tests read them): a long tail of row lengths.
 * Sliced ELLR-T gives a long row to the slice it sits in, T lanes walking
 * it; CSR-vector to one warp of T lanes (T = 32 on FEM rows); HYB cuts its
 * COO tail into 256-entry chunks, a warp each, but its ELL part (a thread
 * per row) is slower than both on the short rows.  The SpMV waits for the
 * warp of the longest row, so the choice goes by that row's steps. */

/* Row-length statistics. */
typedef struct row_stats {
  int32_t n;     /* rows */
  int64_t nnz;   /* entries */
  int64_t max;   /* longest row */
  double mean;   /* nnz / n */
  int64_t *hist; /* hist[L] = rows of length L, L = 0..max */
} row_stats;

static int stats_of(const em_csr *A, row_stats *st) {
  st->n = A->n_rows;
  st->nnz = A->nnz;
  st->max = 0;
  st->mean = A->n_rows ? (double)A->nnz / A->n_rows : 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > st->max) st->max = A->rowptr[i + 1] - A->rowptr[i];
  st->hist = calloc((size_t)st->max + 1, sizeof *st->hist);
  if (!st->hist) return 0;
  for (int32_t i = 0; i < A->n_rows; i++) st->hist[A->rowptr[i + 1] - A->rowptr[i]]++;
  return 1;
}

/* Stored slots / nnz of sliced ELLR-T (S rows, widths rounded to T) with
 * the rows sorted longest first: walk the histogram from the top; each
 * slice is as wide as its first (longest) row. */
static double pad_sorted(const row_stats *st, int T, int S) {
  int64_t stored = 0, left = 0; /* rows still to place in the current slice */
  for (int64_t L = st->max; L >= 0; L--) {
    int64_t c = st->hist[L];
    if (c <= left) {
      left -= c;
      continue;
    }
    c -= left;
    int64_t slices = (c + S - 1) / S;
    stored += slices * S * ((L + T - 1) / T * T);
    left = slices * S - c;
  }
  return st->nnz ? (double)stored / st->nnz : 1;
}

/* The same for the rows in the order given. */
static double pad_given(const em_csr *A, int T, int S) {
  int64_t stored = 0;
  for (int64_t s = 0; s * S < A->n_rows; s++) {
    int64_t w = 0;
    for (int64_t i = s * S; i < (s + 1) * S && i < A->n_rows; i++)
      if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
    stored += (w + T - 1) / T * T * S;
  }
  return A->nnz ? (double)stored / A->nnz : 1;
}

/* T for ELLR-T / sliced ELLR-T: the largest power of two with at least
 * CHOOSE_SLOTS_PER_THREAD slots per thread on the mean row, lowered while
 * it pads more than CHOOSE_EXTRA_PAD over T = 1 (sliced only). */
static int threads_ell(const row_stats *st, int S, int sliced) {
  int T = 1;
  while (T < 32 && st->mean >= 2.0 * T * CHOOSE_SLOTS_PER_THREAD) T *= 2;
  if (sliced && st->hist) {
    double p1 = pad_sorted(st, 1, S);
    while (T > 1 && pad_sorted(st, T, S) > p1 + CHOOSE_EXTRA_PAD) T /= 2;
  }
  return T;
}

/* T for CSR-vector: the largest power of two not above the mean row
 * length, so each lane of a row gets at least one entry. */
static int threads_csr(const row_stats *st) {
  int T = 1;
  while (T < 32 && st->mean >= 2.0 * T) T *= 2;
  return T;
}

/* A long tail: max >= EM_CHOOSE_TAIL_MIN and max >= EM_CHOOSE_TAIL_RATIO mean. */
static int long_tail(const row_stats *st) {
  return st->max >= EM_CHOOSE_TAIL_MIN && (double)st->max >= EM_CHOOSE_TAIL_RATIO * st->mean;
}

int em_fmt_choose_threads(const em_csr *A, em_format f, em_backend b) {
  (void)b;
  row_stats st;
  int ok = stats_of(A, &st);
  int T = 1;
  if (f == EM_FMT_CSR_VECTOR) T = threads_csr(&st);
  if (f == EM_FMT_ELLRT) T = threads_ell(&st, EM_SELLRT_DEFAULT_S, 0);
  if (f == EM_FMT_SELLRT) T = threads_ell(&st, EM_SELLRT_DEFAULT_S, ok);
  free(st.hist);
  return T;
}

int em_fmt_choose_sliced_sorted(const em_csr *A, const em_spmat_opts *o) {
  if (o->backend == EM_BACKEND_CPU || A->n_rows == 0 || A->nnz == 0) return 0;
  row_stats st;
  int S = o->slice_rows > 0 ? o->slice_rows : EM_SELLRT_DEFAULT_S;
  int ok = stats_of(A, &st);
  int T = o->threads_per_row ? o->threads_per_row : threads_ell(&st, S, ok);
  /* the steps of em_fmt_choose before sliced ELLR-T come first here too */
  int sliced = ok && !long_tail(&st) && pad_sorted(&st, T, S) <= CHOOSE_SELL_PAD_SORTED;
  free(st.hist);
  return sliced;
}

/* CPU: CSR (see docs/formats.md for the CPU measurements).  CUDA: for a
 * long tail of row lengths, HYB when the longest row takes CSR-vector's
 * warp at least EM_CHOOSE_HYB_STEPS steps, else CSR-vector; without a
 * tail, sliced ELLR-T when its sorted padding is small and the given order
 * is not pathological, else CSR-vector (CSR scalar for rows of about one
 * entry).  HEC and the bitmap are never chosen: slower than these on every
 * matrix measured.  The measurements: docs/formats.md. */
void em_fmt_choose(const em_csr *A, const em_spmat_opts *o, em_spmat_opts *c) {
  *c = *o;
  c->format = EM_FMT_CSR;
  if (o->backend == EM_BACKEND_CPU || A->n_rows == 0 || A->nnz == 0) return;
  row_stats st;
  int S = o->slice_rows > 0 ? o->slice_rows : EM_SELLRT_DEFAULT_S;
  int ok = stats_of(A, &st);
  int Tc = o->threads_per_row ? o->threads_per_row : threads_csr(&st);
  int T = o->threads_per_row ? o->threads_per_row : threads_ell(&st, S, ok);
  if (ok && long_tail(&st)) {
    if (st.max >= (int64_t)EM_CHOOSE_HYB_STEPS * Tc) {
      c->format = EM_FMT_HYB;
      c->threads_per_row = 0;
    } else {
      c->format = EM_FMT_CSR_VECTOR;
      c->threads_per_row = Tc;
    }
  } else if (ok && pad_sorted(&st, T, S) <= CHOOSE_SELL_PAD_SORTED &&
             pad_given(A, T, S) <= CHOOSE_SELL_PAD_GIVEN) {
    c->format = EM_FMT_SELLRT;
    c->threads_per_row = T;
    c->slice_rows = S;
  } else {
    c->format = Tc > 1 ? EM_FMT_CSR_VECTOR : EM_FMT_CSR;
    c->threads_per_row = Tc > 1 ? Tc : 0;
  }
  free(st.hist);
}
