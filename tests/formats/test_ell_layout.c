/* The host layout the ELL-family kernels read (ell_impl.h), checked slot by
 * slot without running a kernel: every entry at em_ellx_slot(i, k), every
 * other slot padding (column -1, value 0), slice widths and offsets by the
 * formulas of docs/formats.md, warp steps aligned, and the walk of the CUDA
 * kernel (thread g = row i lane t: start slot(i, t), step S*T, cnt steps)
 * visiting exactly the entries k = t, t + T, ... of row i in order. */
#include "ell_impl.h"
#include "spmat_check.h"

/* What the CUDA kernel's thread (i, lane) reads, emulated: returns the
 * number of mismatches against the row's entries. */
static int walk_row(const em_ellx *E, const em_csr *A, int32_t i, int lane) {
  int32_t len = E->rowlen ? E->rowlen[i] : E->width;
  int32_t T = E->T, cnt = len > lane ? (len - lane + T - 1) / T : 0;
  int64_t q = em_ellx_slot(E->slice_ptr, E->S, T, i, lane), step = (int64_t)E->S * T;
  int32_t rl = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
  int bad = 0;
  for (int32_t j = 0; j < cnt; j++, q += step) {
    int32_t k = lane + j * T;
    if (q < 0 || q >= E->stored) return bad + 1;
    if (k < rl)
      bad += E->col[q] != A->colind[A->rowptr[i] + k];
    else
      bad += E->col[q] != -1; /* ELL reads its padding: it must be marked */
  }
  return bad;
}

static void check_layout(const em_csr *A, em_format f, int T, int S, const char *name) {
  em_ellx E;
  em_cplx *val = NULL;
  em_err err = em_ellx_layout(A, f, T, S, &E, &val);
  EXPECT(!err, "%s: layout %s T=%d S=%d failed", name, em_format_name(f), T, S);
  if (err) {
    em_error_print(stderr);
    em_error_clear();
    return;
  }
  int64_t st;
  size_t by;
  t_expected(A, f, T, S, EM_PREC_DOUBLE, &st, &by);
  EXPECT(E.stored == st && em_ellx_bytes(&E, EM_PREC_DOUBLE) == by,
         "%s: %s T=%d S=%d stores %lld slots, formula %lld", name, em_format_name(f), T, S,
         (long long)E.stored, (long long)st);
  char *hit = calloc((size_t)E.stored + 1, 1);
  int bad = 0;
  for (int32_t i = 0; i < A->n_rows && bad < 5; i++) {
    int32_t len = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
    if (E.rowlen && E.rowlen[i] != len) bad++;
    int32_t sl = i / E.S, r = i % E.S;
    int64_t base = E.slice_ptr ? E.slice_ptr[sl] : 0;
    for (int32_t k = 0; k < len; k++) {
      int64_t q = em_ellx_slot(E.slice_ptr, E.S, T, i, k), a = A->rowptr[i] + k;
      /* the documented layout: thread (r, t) of step j at r T + t, so a
       * warp's consecutive threads read consecutive slots */
      if (q != base + (int64_t)(k / T) * E.S * T + (int64_t)r * T + k % T) {
        bad++;
        break;
      }
      if (q < 0 || q >= E.stored || hit[q] || E.col[q] != A->colind[a] || val[q] != A->val[a]) {
        bad++;
        break;
      }
      hit[q] = 1;
    }
    for (int lane = 0; lane < T; lane++) bad += walk_row(&E, A, i, lane) != 0;
  }
  EXPECT(bad == 0, "%s: %s T=%d S=%d: %d rows misplaced", name, em_format_name(f), T, S, bad);
  int64_t pad_bad = 0, n_hit = 0;
  for (int64_t q = 0; q < E.stored; q++) {
    n_hit += hit[q];
    if (!hit[q] && (E.col[q] != -1 || val[q] != 0)) pad_bad++;
  }
  EXPECT(n_hit == A->nnz && pad_bad == 0, "%s: %s: %lld entries placed of %lld, %lld bad pads",
         name, em_format_name(f), (long long)n_hit, (long long)A->nnz, (long long)pad_bad);
  /* geometry: one-slice formats warp-aligned; slices multiples of T wide */
  if (f != EM_FMT_SELLRT) {
    EXPECT(E.S % 32 == 0 && E.slice_ptr == NULL, "%s: %s row stride %d not a multiple of 32", name,
           em_format_name(f), E.S);
    if (f == EM_FMT_ELLRT)
      EXPECT(E.width % (T > 16 ? T : 16) == 0, "%s: ELLR-T width %d", name, E.width);
  } else {
    for (int64_t s = 0; s < E.n_slices; s++) {
      int64_t w = (E.slice_ptr[s + 1] - E.slice_ptr[s]) / S;
      int64_t l = t_longest(A, (int32_t)(s * S), (int32_t)((s + 1) * S));
      EXPECT((E.slice_ptr[s + 1] - E.slice_ptr[s]) % S == 0 && w % T == 0 && w >= l && w < l + T,
             "%s: slice %lld of width %lld for longest row %lld (T=%d)", name, (long long)s,
             (long long)w, (long long)l, T);
      if (S * T % 32 == 0)
        EXPECT(E.slice_ptr[s] % 32 == 0, "%s: slice %lld starts off a warp step", name,
               (long long)s);
    }
  }
  free(hit);
  em_free(&val);
  em_ellx_free_host(&E);
}

int main(void) {
  tcase c[32];
  int n = suite_build(c, 1);
  for (int i = 0; i < n; i++) {
    check_layout(c[i].A, EM_FMT_ELL, 1, 0, c[i].name);
    check_layout(c[i].A, EM_FMT_ELLR, 1, 0, c[i].name);
    for (int T = 1; T <= 32; T *= 2) {
      check_layout(c[i].A, EM_FMT_ELLRT, T, 0, c[i].name);
      check_layout(c[i].A, EM_FMT_SELLRT, T, 32, c[i].name);
      check_layout(c[i].A, EM_FMT_SELLRT, T, 5, c[i].name);
    }
  }
  /* bad arguments name the culprit */
  em_ellx E;
  em_cplx *val = NULL;
  EXPECT_ERR(em_ellx_layout(c[1].A, EM_FMT_ELLRT, 3, 0, &E, &val), EM_ERR_ARG);
  EXPECT_ERR(em_ellx_layout(c[1].A, EM_FMT_SELLRT, 4, 0, &E, &val), EM_ERR_ARG);
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_SELLRT;
  o.slice_rows = -3;
  em_spmat *M = NULL;
  EXPECT_ERR(em_spmat_create(c[1].A, &o, &M), EM_ERR_ARG);
  o.slice_rows = 1 << 20;
  EXPECT_ERR(em_spmat_create(c[1].A, &o, &M), EM_ERR_ARG);
  o.slice_rows = 0;
  o.threads_per_row = 3;
  EXPECT_ERR(em_spmat_create(c[1].A, &o, &M), EM_ERR_ARG);
  EXPECT(M == NULL, "failed create left a matrix");
  suite_free(c, n);
  return TEST_RESULT();
}
