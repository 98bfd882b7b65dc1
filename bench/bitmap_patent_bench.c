/* bitmap_patent_bench.c - issue 31, seed 004: the patent's bitmap layout
 * (graph/bmp*.c: dense per-row flag words, row starts, popcount access)
 * where the program uses it and against what it used before, CPU:
 *
 *   1. the tet colouring of the assembly (assembly/colour.c) on the n^3 x 6
 *      box (--colour n, default 56: 1.05M tets): the edges x colours flag
 *      words against the stamps over the tets around each edge (the
 *      colouring before); the two colourings must be equal;
 *   2. the matrix operations of the seed on order-1 FEM matrices of the
 *      k^3 x 6 box (--fem k,k..., default 6,8,12): bytes, random access,
 *      A + B, A - B, A B, LU without pivoting (k <= 8), patent layout
 *      against the compressed bitmap of formats/ (em_bitmap: a word per
 *      non-empty 64-column block) and, for the bytes and the access, CSR.
 *      Results compared through CSR: patterns equal, values within 1e-12
 *      of the largest.
 *
 * Medians of 5 runs, wall clock, OpenMP threads as set.  Exit 1 on a
 * difference. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "assembly_impl.h"
#include "bench_util.h"
#include "bitmap_gpu.h"
#include "em_assembly.h"
#include "em_graph.h"
#include "fem_pattern.h"

#define REPS 5
#define EMCK(call)            \
  do {                        \
    if (call) {               \
      em_error_print(stderr); \
      exit(2);                \
    }                         \
  } while (0)

static int failed = 0;

static void colouring(int n) {
  em_mesh *m = NULL;
  em_dofmap *d = NULL;
  em_pattern *pat = NULL;
  EMCK(em_mesh_box(n, n, n, 1, 1, 1, 0.2, 1, &m));
  EMCK(em_dofmap_build(m, 1, NULL, &d));
  EMCK(em_pattern_build(m, d, &pat));
  double tb[REPS], ts[REPS];
  int nb = 0, ns = 0;
  int32_t *bp = NULL, *bt = NULL, *sp = NULL, *st = NULL;
  for (int r = 0; r < REPS; r++) {
    em_free(&bp), em_free(&bt), em_free(&sp), em_free(&st);
    double t0 = em_wtime();
    EMCK(em_tet_colour(m, pat, &nb, &bp, &bt));
    tb[r] = em_wtime() - t0;
    t0 = em_wtime();
    EMCK(em_tet_colour_stamps(m, pat, &ns, &sp, &st));
    ts[r] = em_wtime() - t0;
  }
  if (nb != ns || memcmp(bp, sp, (size_t)(nb + 1) * sizeof *bp) ||
      memcmp(bt, st, (size_t)m->n_tet * sizeof *bt)) {
    fprintf(stderr, "WRONG: the bitmap colouring differs from the stamps'\n");
    failed = 1;
  }
  const double mb = bench_median(tb, REPS), ms = bench_median(ts, REPS);
  printf("\n## Tet colouring of the assembly, %d^3 x 6 box (%d tets, %d edges): %d colours\n\n", n,
         m->n_tet, m->n_edge, nb);
  printf("| method | ms | stamps / this |\n|---|---|---|\n");
  printf("| stamps over the tets around each edge (before) | %.2f | 1.00 |\n", ms * 1e3);
  printf("| edges x colours flag words (patent bitmap) | %.2f | %.2f |\n", mb * 1e3, ms / mb);
  fflush(stdout);
  em_free(&bp), em_free(&bt), em_free(&sp), em_free(&st);
  em_pattern_destroy(&pat);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

static em_spmat *compressed(const em_csr *A) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_BITMAP;
  o.backend = EM_BACKEND_CPU;
  em_spmat *M = NULL;
  EMCK(em_spmat_create(A, &o, &M));
  return M;
}

/* patterns equal, values within 1e-12 of the largest */
static void same(const char *what, const em_csr *x, const em_csr *y) {
  int ok = x->n_rows == y->n_rows && x->nnz == y->nnz &&
           !memcmp(x->rowptr, y->rowptr, ((size_t)x->n_rows + 1) * sizeof *x->rowptr) &&
           !memcmp(x->colind, y->colind, (size_t)x->nnz * sizeof *x->colind);
  double e = 0, s = 0;
  for (int64_t k = 0; ok && k < x->nnz; k++) {
    e = fmax(e, cabs(x->val[k] - y->val[k]));
    s = fmax(s, cabs(y->val[k]));
  }
  if (!ok || e > 1e-12 * s) {
    fprintf(stderr, "WRONG: %s: patent and compressed bitmaps differ (%s, %.3g)\n", what,
            ok ? "values" : "patterns", e);
    failed = 1;
  }
}

static void row(const char *op, double tp, double tc, int64_t nnz) {
  if (tc > 0)
    printf("| %s | %lld | %.3f | %.3f | %.2f |\n", op, (long long)nnz, tp * 1e3, tc * 1e3, tc / tp);
  else
    printf("| %s | %lld | %.3f | - (none) | - |\n", op, (long long)nnz, tp * 1e3);
}

static void fem(int k) {
  em_csr *A = NULL, *B = NULL;
  EMCK(em_fem_pattern_box(k, 1, 5, &A, NULL));
  EMCK(em_fem_pattern_box(k, 1, 6, &B, NULL));
  for (int32_t i = 0; i < A->n_rows; i++) { /* diagonally dominant: the LU needs no pivoting */
    double rs = 1;
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) rs += cabs(A->val[q]);
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
      if (A->colind[q] == i) A->val[q] += rs;
  }
  em_bmp *PA = NULL, *PB = NULL;
  EMCK(em_bmp_from_csr(A, 1, &PA));
  EMCK(em_bmp_from_csr(B, 1, &PB));
  em_spmat *CA = compressed(A), *CB = compressed(B);
  const int64_t n = A->n_rows;
  const size_t bp = (size_t)n * PA->words * 8 + (size_t)(n + 1) * 8 + (size_t)A->nnz * 16,
               bc = em_bitmap_bytes(CA->data, EM_PREC_DOUBLE),
               bcsr = (size_t)(n + 1) * 8 + (size_t)A->nnz * 20;
  printf(
      "\n## Order-1 FEM matrix of the %d^3 x 6 box: %lld rows, %lld entries (%.2g of the "
      "matrix)\n\nbytes: patent %zu (flags %zu), compressed bitmap %zu, CSR %zu\n\n",
      k, (long long)n, (long long)A->nnz, (double)A->nnz / ((double)n * n), bp,
      (size_t)n * PA->words * 8, bc, bcsr);
  printf(
      "| operation | result entries | patent ms | compressed bitmap ms | compressed / patent "
      "|\n|---|---|---|---|---|\n");
  /* random access: 10^6 reads of stored and unstored entries */
  enum { NQ = 1000000 };
  int32_t *qi = malloc(NQ * sizeof *qi), *qj = malloc(NQ * sizeof *qj);
  unsigned long long s = 7;
  for (int q = 0; q < NQ; q++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    qi[q] = (int32_t)(s % (unsigned long long)n);
    int64_t len = A->rowptr[qi[q] + 1] - A->rowptr[qi[q]];
    qj[q] = q % 2 && len
                ? A->colind[A->rowptr[qi[q]] + (int64_t)((s >> 20) % (unsigned long long)len)]
                : (int32_t)((s >> 24) % (unsigned long long)n);
  }
  double tp[REPS], tc[REPS];
  em_cplx sp = 0, sc = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = em_wtime();
    sp = 0;
    for (int q = 0; q < NQ; q++) sp += em_bmp_get(PA, qi[q], qj[q]);
    tp[r] = em_wtime() - t0;
    t0 = em_wtime();
    sc = 0;
    for (int q = 0; q < NQ; q++) {
      em_cplx a;
      EMCK(em_bitmap_get(CA, qi[q], qj[q], &a));
      sc += a;
    }
    tc[r] = em_wtime() - t0;
  }
  if (cabs(sp - sc) > 1e-9 * cabs(sc)) {
    fprintf(stderr, "WRONG: random access sums differ\n");
    failed = 1;
  }
  row("get, 10^6 reads (one thread)", bench_median(tp, REPS), bench_median(tc, REPS), NQ);
  /* A + B, A - B, A B, LU */
  for (int op = 0; op < 4; op++) {
    if (op == 3 && k > 8) break;
    em_bmp *P = NULL;
    em_spmat *C = NULL;
    for (int r = 0; r < REPS; r++) {
      em_bmp_destroy(&P);
      em_spmat_destroy(&C);
      double t0 = em_wtime();
      EMCK(op == 0   ? em_bmp_add(PA, PB, 1, &P)
           : op == 1 ? em_bmp_add(PA, PB, -1, &P)
           : op == 2 ? em_bmp_mul(PA, PB, &P)
                     : em_bmp_lu(PA, &P));
      tp[r] = em_wtime() - t0;
      t0 = em_wtime();
      if (op != 1)
        EMCK(op == 0   ? em_bitmap_add(CA, CB, &C)
             : op == 2 ? em_bitmap_mul(CA, CB, &C)
                       : em_bitmap_lu(CA, &C));
      tc[r] = em_wtime() - t0;
    }
    const char *name[4] = {"A + B", "A - B (the compressed bitmap has none)", "A B",
                           "LU without pivoting (one thread both)"};
    em_csr *x = NULL, *y = NULL;
    EMCK(em_bmp_to_csr(P, &x));
    if (C) {
      EMCK(em_bitmap_to_csr(C, &y));
      same(name[op], x, y);
    }
    row(name[op], bench_median(tp, REPS), C ? bench_median(tc, REPS) : 0, x->nnz);
    fflush(stdout);
    em_csr_destroy(&x), em_csr_destroy(&y);
    em_bmp_destroy(&P);
    em_spmat_destroy(&C);
  }
  free(qi), free(qj);
  em_bmp_destroy(&PA), em_bmp_destroy(&PB);
  em_spmat_destroy(&CA), em_spmat_destroy(&CB);
  em_csr_destroy(&A), em_csr_destroy(&B);
}

int main(int argc, char **argv) {
  int cn = 56, ks[8] = {6, 8, 12}, nk = 3;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--colour") && a + 1 < argc)
      cn = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--fem") && a + 1 < argc) {
      nk = 0;
      for (char *p = argv[++a], *e; *p && nk < 8; p = *e ? e + 1 : e)
        ks[nk++] = (int)strtol(p, &e, 10);
    } else {
      fprintf(stderr, "usage: bitmap_patent_bench [--colour n] [--fem k,k,...]\n");
      return 2;
    }
  }
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  printf("# Patent bitmap (seed 004), CPU %d threads\n", nt);
  if (cn > 0) colouring(cn);
  for (int i = 0; i < nk; i++) fem(ks[i]);
  if (failed) fprintf(stderr, "bitmap_patent_bench: WRONG RESULTS\n");
  return failed;
}
