/* order_bench.c - nested dissection on the whole graph (METIS' own
 * compression, today's ordering) against the quotient graph of
 * supervariables (graph/compress.c), and a matrix's PML-like submatrix:
 * time, supervariables, nnz(L) and flops of the symbolic analysis
 * (em_direct_analyse) for each: the default (separator tree split between
 * threads, two separators tried per level as METIS does once it has
 * compressed), one separator, and one METIS call on the quotient.
 *
 *   order_bench --matrix FILE [--rows a:b] [--repeat R]
 *
 * t_order, t_symb: wall seconds of the ordering and the symbolic analysis;
 * cpu_s: CPU seconds of both on all threads (the work, whatever the load).
 * FILE: `emsolve --dump-matrix`; --rows a:b orders the submatrix of rows
 * and columns a..b-1 (e.g. a coarse set); --repeat: the median of R runs
 * of each ordering.  Prints one line per variant and nnz(L) / flops
 * relative to the first (whole graph). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "em_solver.h"

typedef struct {
  const char *name;
  int compress, tree, seps;
} variant;

/* CPU seconds of the process (all threads) */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static em_err submatrix(const em_csr *A, int32_t a, int32_t b, em_csr **S) {
  int64_t nnz = 0;
  for (int32_t i = a; i < b; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      nnz += A->colind[p] >= a && A->colind[p] < b;
  EM_TRY(em_csr_create(b - a, b - a, nnz, S));
  int64_t q = 0;
  for (int32_t i = a; i < b; i++) {
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->colind[p] >= a && A->colind[p] < b) {
        (*S)->colind[q] = A->colind[p] - a;
        (*S)->val[q++] = A->val[p];
      }
    (*S)->rowptr[i - a + 1] = q;
  }
  return EM_OK;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int32_t ra = -1, rb = -1;
  int repeat = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--matrix") && i + 1 < argc)
      path = argv[++i];
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
      sscanf(argv[++i], "%d:%d", &ra, &rb);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: order_bench --matrix FILE [--rows a:b] [--repeat R]\n");
      return 2;
    }
  }
  if (!path || repeat < 1) {
    fprintf(stderr, "order_bench: --matrix FILE is required\n");
    return 2;
  }
  em_blockmat *B = NULL;
  em_csr *A = NULL, *S = NULL;
  em_cplx *b = NULL;
  int nrhs = 0;
  em_err err = em_matfile_read(path, &B, &nrhs, &b);
  if (!err) err = em_blockmat_to_csr(B, &A);
  em_blockmat_destroy(&B);
  em_free(&b);
  if (!err && ra >= 0) {
    if (rb > A->n_rows) rb = A->n_rows;
    err = submatrix(A, ra, rb, &S);
    em_csr_destroy(&A);
    A = S;
  }
  if (err) {
    em_error_print(stderr);
    return 1;
  }
  printf("# %s: n = %d, nnz = %lld\n", path, A->n_rows, (long long)A->nnz);
  printf("%-26s %10s %9s %9s %9s %14s %12s %8s %8s\n", "ordering", "n_sv", "t_order", "t_symb",
         "cpu_s", "nnz(L)", "GFlop", "L/L0", "F/F0");
  const variant v[] = {{"whole graph (METIS')", 0, 0, 0},
                       {"supervariables (default)", 1, 1, 2},
                       {"supervariables, 1 sep", 1, 1, 1},
                       {"supervariables, one call", 1, 0, 2}};
  double l0 = 0, f0 = 0;
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    double t[64], ts[64], tc[64];
    em_direct_info in = {0};
    for (int r = 0; r < repeat && r < 64; r++) {
      em_direct_opts o;
      em_direct_opts_default(&o);
      o.nd.compress = v[k].compress;
      o.nd.tree = v[k].tree;
      o.nd.seps = v[k].seps;
      o.mem_limit = 1e18; /* the analysis only */
      em_direct *F = NULL;
      double c0 = cpu_s();
      err = em_direct_analyse(A, &o, NULL, &F);
      tc[r] = cpu_s() - c0;
      if (err) {
        em_error_print(stderr);
        return 1;
      }
      em_direct_get_info(F, &in);
      t[r] = in.t_order;
      ts[r] = in.t_symbolic;
      em_direct_destroy(&F);
    }
    if (k == 0) l0 = (double)in.nnz_l, f0 = in.flops;
    printf("%-26s %10d %9.3f %9.3f %9.3f %14lld %12.2f %8.3f %8.3f\n", v[k].name, in.n_sv,
           bench_median(t, repeat), bench_median(ts, repeat), bench_median(tc, repeat),
           (long long)in.nnz_l, in.flops * 1e-9, (double)in.nnz_l / l0, in.flops / f0);
  }
  em_csr_destroy(&A);
  return 0;
}
