/* spmv_bench.c - the SpMV benchmark (bench/README.md): one matrix (a matrix
 * file or an order-p FEM pattern), every format and T on the GPU beside
 * cuSPARSE CSR and sliced ELL, the block operator modes, and CSR on all CPU
 * cores; every GPU result is checked against the CPU reference before it
 * is timed.  Table on stdout, JSON and markdown under --out. */
#include "spmv_bench.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_matrix.h"
#include "fem_pattern.h"
#include "shape_pattern.h"

/* The matrix of a run: a file, an FEM pattern, or dense blocks, with
 * optionally some of its rows made long (shape_pattern.h). */
typedef struct bench_src {
  const char *file;
  int box, order;
  int blocks_fill, rows, row_len; /* --blocks: fill bits per word (0: none) */
  int long_rows, long_len;        /* --long-rows M:L */
  unsigned seed;
} bench_src;

static void usage(FILE *f) {
  fprintf(f,
          "usage: spmv_bench [--matrix FILE | --fem-box N --order P | --blocks F] [--reps R]\n"
          "                  [--long-rows M:L] [--prec double|single|both] [--max-gb G]\n"
          "                  [--seed S] [--quick] [--study cache] [--out DIR]\n"
          "  --matrix FILE   a Matrix Market coordinate file (.mtx) or a system written by\n"
          "                  emsolve --dump-matrix\n"
          "  --fem-box N     order-P Nedelec pattern on an N^3 box (default 21, order 3:\n"
          "                  1.06M rows, 89M entries)\n"
          "  --blocks F      instead: --rows N (default 262144) rows of --row-len R (128)\n"
          "                  entries in 64-column words of F bits each\n"
          "  --long-rows M:L make M rows of the matrix L entries long (a long tail)\n"
          "  --quick         only the variants between which AUTO chooses\n"
          "  --study cache   seed 002: sliced ELLR-T under each L1 / shared carveout and T,\n"
          "                  the order blocks with T per block against one T, cuSPARSE CSR\n"
          "  --reps R        timed SpMVs per variant (default 50; the median is reported)\n"
          "  --prec          scalar precision(s) (default both)\n"
          "  --max-gb G      skip layouts (ELL, ELLR-T) holding more than G GB (default 8)\n"
          "  --out DIR       also write spmv.json and spmv.md there\n");
}

double bench_min_bytes(const em_csr *A, em_prec p) {
  return (double)em_csr_bytes(A, p) + (double)(A->n_rows + A->n_cols) * em_prec_size(p);
}

double bench_rel_err(const void *y, em_prec p, const em_cplx *ref, const double *scale, int32_t n) {
  double worst = 0;
  for (int32_t i = 0; i < n; i++) {
    em_cplx v = p == EM_PREC_DOUBLE ? ((const em_cplx *)y)[i] : (em_cplx)((const em_cplxf *)y)[i];
    double d = cabs(v - ref[i]);
    if (isnan(d)) return INFINITY;
    if (d == 0) continue;
    double e = scale[i] > 0 ? d / scale[i] : INFINITY;
    if (e > worst) worst = e;
  }
  return worst;
}

bench_row *bench_add(bench_out *out, const char *name, em_prec p) {
  if (out->n >= BENCH_MAX_ROWS) return NULL;
  bench_row *r = &out->row[out->n++];
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->prec = p;
  r->status = "error";
  return r;
}

/* The matrix in both orders, x, the references and the error scales. */
static em_err setup(bench_ctx *c, const bench_src *b) {
  static char src[160];
  unsigned seed = b->seed;
  if (b->file) {
    snprintf(src, sizeof src, "%s", b->file);
    EM_TRY(bench_load_matrix(b->file, &c->A, &c->B, NULL, NULL));
  } else if (b->blocks_fill) {
    snprintf(src, sizeof src, "blocks: %d rows of %d entries, %d bits a word", b->rows, b->row_len,
             b->blocks_fill);
    EM_TRY(em_pattern_blocks(b->rows, b->blocks_fill, b->row_len, seed, &c->A));
  } else {
    snprintf(src, sizeof src, "fem-box %d order %d", b->box, b->order);
    EM_TRY(em_fem_pattern_box(b->box, b->order, seed, &c->A, &c->B));
  }
  if (b->long_rows) {
    em_csr *L = NULL;
    EM_TRY(em_pattern_long_rows(c->A, b->long_rows, b->long_len, seed, &L));
    em_csr_destroy(&c->A);
    em_blockmat_destroy(&c->B); /* the blocks no longer hold the matrix */
    c->A = L;
    size_t k = strlen(src);
    snprintf(src + k, sizeof src - k, ", %d rows of %d", b->long_rows, b->long_len);
  }
  c->source = src;
  const em_csr *A = c->A;
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_INPUT, "%s: matrix %d x %d is not square", src, A->n_rows,
           A->n_cols);
  int32_t n = A->n_rows;
  EM_TRY(em_calloc(&c->perm, (size_t)n + 1, sizeof *c->perm, "sort permutation"));
  EM_TRY(em_sellrt_sort_perm(A, c->perm));
  EM_TRY(em_csr_permute(A, c->perm, c->perm, &c->As));
  EM_TRY(em_calloc(&c->x, (size_t)n + 1, sizeof *c->x, "x"));
  EM_TRY(em_calloc(&c->x_s, (size_t)n + 1, sizeof *c->x_s, "x"));
  EM_TRY(em_calloc(&c->y_ref, (size_t)n + 1, sizeof *c->y_ref, "reference"));
  EM_TRY(em_calloc(&c->y_ref_s, (size_t)n + 1, sizeof *c->y_ref_s, "reference"));
  EM_TRY(em_calloc(&c->scale, (size_t)n + 1, sizeof *c->scale, "error scale"));
  EM_TRY(em_calloc(&c->scale_s, (size_t)n + 1, sizeof *c->scale_s, "error scale"));
  unsigned long long s = 0x2545F4914F6CDD1DULL ^ seed;
  for (int32_t j = 0; j < n; j++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    double re = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    double im = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
    c->x[j] = CMPLX(re, im);
  }
  em_csr_spmv_ref(A, 1, c->x, 0, c->y_ref);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      c->scale[i] += cabs(A->val[k]) * cabs(c->x[A->colind[k]]);
  for (int32_t i = 0; i < n; i++) {
    c->x_s[c->perm[i]] = c->x[i];
    c->y_ref_s[c->perm[i]] = c->y_ref[i];
    c->scale_s[c->perm[i]] = c->scale[i];
  }
  return EM_OK;
}

/* The host's copy bandwidth (read + write bytes / time) on every core, each
 * thread copying the part it first touched: the yardstick of the CPU SpMV,
 * as the device copy is the GPU's.  Median of 5 copies of 256 MiB. */
static double cpu_copy_gbs(void) {
  size_t n = (size_t)32 << 20; /* doubles */
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), t[5];
  if (!a || !b) {
    free(a);
    free(b);
    return 0;
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) a[i] = b[i] = (double)i;
  for (int k = 0; k < 5; k++) {
    double t0 = em_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) b[i] = a[i];
    t[k] = em_wtime() - t0;
  }
  double gbs = 2.0 * n * sizeof *a / (bench_median(t, 5) * 1e9);
  if (b[n / 2] != (double)(n / 2)) gbs = 0; /* the copy is used: not elided */
  free(a);
  free(b);
  return gbs;
}

/* CSR on every CPU core: the other side of the GPU/CPU ratio. */
static em_err bench_cpu(bench_ctx *c, bench_out *out) {
#ifdef _OPENMP
  c->cpu_threads = omp_get_max_threads();
#else
  c->cpu_threads = 1;
#endif
  printf("CPU: copy bandwidth (read + write) %.1f GB/s on %d threads\n", cpu_copy_gbs(),
         c->cpu_threads);
  for (int pi = 0; pi < c->n_prec; pi++) {
    em_prec p = c->precs[pi];
    char name[48];
    snprintf(name, sizeof name, "cpu csr (%d threads)", c->cpu_threads);
    bench_row *r = bench_add(out, name, p);
    if (!r) break;
    em_spmat_opts o;
    em_spmat_opts_default(&o);
    o.format = EM_FMT_CSR;
    o.prec = p;
    em_spmat *M = NULL;
    size_t es = em_prec_size(p);
    int32_t n = c->A->n_rows;
    void *x = NULL, *y = NULL;
    em_err err = EM_OK;
    EM_TRY_GOTO(err, em_spmat_create(c->A, &o, &M), done);
    EM_TRY_GOTO(err, em_calloc(&x, (size_t)n + 1, es, "x"), done);
    EM_TRY_GOTO(err, em_calloc(&y, (size_t)n + 1, es, "y"), done);
    for (int32_t j = 0; j < n; j++) {
      if (p == EM_PREC_DOUBLE)
        ((em_cplx *)x)[j] = c->x[j];
      else
        ((em_cplxf *)x)[j] = (em_cplxf)c->x[j];
    }
    EM_TRY_GOTO(err, em_spmat_spmv(M, x, y, 0, NULL), done);
    r->max_err = bench_rel_err(y, p, c->y_ref, c->scale, n);
    int reps = c->reps < 10 ? c->reps : 10;
    double t[10];
    for (int k = 0; k < reps; k++) {
      double t0 = em_wtime();
      EM_TRY_GOTO(err, em_spmat_spmv(M, x, y, 0, NULL), done);
      t[k] = em_wtime() - t0;
    }
    r->ms = 1e3 * bench_median(t, reps);
    r->gbs = bench_min_bytes(c->A, p) / (r->ms * 1e6);
    r->mem_rel = 1;
    r->stored = c->A->nnz;
    r->status = r->max_err <= (p == EM_PREC_DOUBLE ? 1e-13 : 1e-5) ? "ok" : "WRONG";
  done:
    if (err) {
      snprintf(r->note, sizeof r->note, "%s", em_error_message());
      em_error_clear();
    }
    em_spmat_destroy(&M);
    em_free(&x);
    em_free(&y);
  }
  return EM_OK;
}

static void ctx_free(bench_ctx *c) {
  em_csr_destroy(&c->A);
  em_csr_destroy(&c->As);
  em_blockmat_destroy(&c->B);
  em_free(&c->perm);
  em_free(&c->x);
  em_free(&c->x_s);
  em_free(&c->y_ref);
  em_free(&c->y_ref_s);
  em_free(&c->scale);
  em_free(&c->scale_s);
  em_free(&c->bperm);
  em_blockmat_destroy(&c->Bp);
  em_free(&c->x_b);
  em_free(&c->y_ref_b);
  em_free(&c->scale_b);
}

int main(int argc, char **argv) {
  const char *dir = NULL, *prec = "both";
  bench_src src = {NULL, 21, 3, 0, 262144, 128, 0, 0, 1};
  static bench_ctx c;
  static bench_out out;
  c.reps = 50;
  c.max_gb = 8;
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[a], "--quick")) {
      c.quick = 1;
      continue;
    } else if (v && !strcmp(argv[a], "--study")) {
      if (strcmp(v, "cache")) {
        fprintf(stderr, "spmv_bench: --study cache is the only study, not '%s'\n", v);
        return 2;
      }
      c.study_cache = 1;
    } else if (v && !strcmp(argv[a], "--matrix")) {
      src.file = v;
    } else if (v && !strcmp(argv[a], "--fem-box")) {
      src.box = atoi(v);
    } else if (v && !strcmp(argv[a], "--order")) {
      src.order = atoi(v);
    } else if (v && !strcmp(argv[a], "--blocks")) {
      src.blocks_fill = atoi(v);
    } else if (v && !strcmp(argv[a], "--rows")) {
      src.rows = atoi(v);
    } else if (v && !strcmp(argv[a], "--row-len")) {
      src.row_len = atoi(v);
    } else if (v && !strcmp(argv[a], "--long-rows")) {
      if (sscanf(v, "%d:%d", &src.long_rows, &src.long_len) != 2) src.long_rows = -1;
    } else if (v && !strcmp(argv[a], "--reps")) {
      c.reps = atoi(v);
    } else if (v && !strcmp(argv[a], "--prec")) {
      prec = v;
    } else if (v && !strcmp(argv[a], "--max-gb")) {
      c.max_gb = atof(v);
    } else if (v && !strcmp(argv[a], "--seed")) {
      src.seed = (unsigned)strtoul(v, NULL, 10);
    } else if (v && !strcmp(argv[a], "--out")) {
      dir = v;
    } else {
      fprintf(stderr, "spmv_bench: unknown or incomplete argument '%s'\n", argv[a]);
      usage(stderr);
      return 2;
    }
    a++;
  }
  if (c.reps < 1 || c.reps > 10000 || src.box < 1 || c.max_gb <= 0 || src.long_rows < 0) {
    fprintf(stderr, "spmv_bench: --reps 1..10000, --fem-box >= 1, --max-gb > 0, --long-rows M:L\n");
    return 2;
  }
  if (!strcmp(prec, "double") || !strcmp(prec, "both")) c.precs[c.n_prec++] = EM_PREC_DOUBLE;
  if (!strcmp(prec, "single") || !strcmp(prec, "both")) c.precs[c.n_prec++] = EM_PREC_SINGLE;
  if (!c.n_prec) {
    fprintf(stderr, "spmv_bench: --prec double, single or both, not '%s'\n", prec);
    return 2;
  }
  em_err err = EM_OK;
  double t0 = em_wtime();
  EM_TRY_GOTO(err, setup(&c, &src), fail);
  printf("matrix: %s, %d rows, %lld entries, set up in %.1f s\n", c.source, c.A->n_rows,
         (long long)c.A->nnz, em_wtime() - t0);
  fflush(stdout);
  EM_TRY_GOTO(err, bench_cpu(&c, &out), fail);
#ifdef EM_HAVE_CUDA
  EM_TRY_GOTO(err, bench_gpu(&c, &out), fail);
#else
  printf("GPU: this build has no CUDA; CPU rows only\n");
#endif
  bench_print(&c, &out);
  if (dir) EM_TRY_GOTO(err, bench_write(&c, &out, dir), fail);
  printf("total %.1f s\n", em_wtime() - t0);
  ctx_free(&c);
  /* a variant whose product differs from the reference is a failure, so
   * that the smoke test (tests/formats) catches a wrong kernel */
  int wrong = 0;
  for (int i = 0; i < out.n; i++)
    if (!strcmp(out.row[i].status, "WRONG")) {
      fprintf(stderr, "spmv_bench: WRONG result: %s (max err %.2e)\n", out.row[i].name,
              out.row[i].max_err);
      wrong = 1;
    }
  if (c.study_cache && !c.device[0]) { /* seed 002's study needs a GPU */
    printf("--study cache: no GPU answered: nothing measured (exit 77)\n");
    return wrong ? 3 : 77;
  }
  return wrong ? 3 : 0;
fail:
  em_error_print(stderr);
  ctx_free(&c);
  return 1;
}
