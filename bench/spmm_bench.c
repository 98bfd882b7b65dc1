/* spmm_bench.c - the multi-vector product against one product per vector
 * (issue 28): y_j = A x_j for N vectors as N SpMVs and as one SpMM
 * (em_spmat_spmm / em_blockop_apply_multi), for CSR, sliced ELLR-T on the
 * length-sorted rows, and the nine-block operator as emsolve builds it
 * (rows sorted within the order groups, AUTO formats, streams; on the GPU
 * with its k-vector products reading x interleaved, the default, and from
 * the k columns as before: em_blockop_opts.interleave), on the CPU and,
 * when one answers, on the GPU.  Every SpMM column is checked against
 * the SpMV's (they must agree bit for bit) before it is timed.  Table on
 * stdout (median ms per N vectors, the ratio N SpMVs / SpMM), spmm.md and
 * spmm.json under --out.
 *
 *   spmm_bench [--matrix FILE | --fem-box N --order P] [--reps R] [--no-cpu] [--out DIR] */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "bench_util.h"
#include "em_formats.h"
#include "fem_pattern.h"

#define NMAX 16
static const int NS[] = {1, 2, 4, 8, 16};
#define N_NS ((int)(sizeof NS / sizeof NS[0]))

typedef struct row {
  char name[64];
  const char *dev;
  double ms_spmv[N_NS], ms_spmm[N_NS]; /* median, N vectors */
  double diff;                         /* max |SpMM - SpMV| over the columns */
} row;

/* What one variant runs: an operator on a backend. */
typedef struct variant {
  em_operator op;
  em_backend be;
  void *X, *Y1, *Y2; /* NMAX vectors each, in the backend's memory */
} variant;

static em_err sync_be(em_backend be) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) EM_CUDA(cudaDeviceSynchronize());
#else
  (void)be;
#endif
  return EM_OK;
}

static em_err alloc_be(em_backend be, size_t bytes, const void *h, void **p) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) return em_dev_alloc(p, h, bytes, NULL, "bench vectors");
#endif
  (void)be;
  EM_TRY(em_calloc(p, bytes, 1, "bench vectors"));
  if (h) memcpy(*p, h, bytes);
  return EM_OK;
}

static void free_be(em_backend be, void **p) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    em_dev_free(p);
    return;
  }
#endif
  (void)be;
  em_free(p);
}

static em_err download(em_backend be, void *h, const void *d, size_t bytes) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    EM_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    return EM_OK;
  }
#endif
  (void)be;
  memcpy(h, d, bytes);
  return EM_OK;
}

/* Median ms of N products (multi 0: N applies; 1: one apply_multi). */
static em_err time_it(variant *v, int n_vec, int multi, int reps, double *ms) {
  size_t col = (size_t)v->op.n * sizeof(em_cplx);
  const void *x[NMAX];
  void *y[NMAX];
  for (int j = 0; j < n_vec; j++) {
    x[j] = (char *)v->X + j * col;
    y[j] = (char *)(multi ? v->Y2 : v->Y1) + j * col;
  }
  double t[64];
  for (int r = -2; r < reps; r++) {
    EM_TRY(sync_be(v->be));
    double t0 = em_wtime();
    if (multi)
      EM_TRY(em_operator_apply_multi(&v->op, n_vec, x, y));
    else
      for (int j = 0; j < n_vec; j++) EM_TRY(v->op.apply(v->op.ctx, x[j], y[j]));
    EM_TRY(sync_be(v->be));
    if (r >= 0) t[r] = (em_wtime() - t0) * 1e3;
  }
  *ms = bench_median(t, reps);
  return EM_OK;
}

static em_err measure(variant *v, const em_cplx *xh, int reps, row *out) {
  int32_t n = v->op.n;
  size_t col = (size_t)n * sizeof(em_cplx), all = col * NMAX;
  em_err err = EM_OK;
  em_cplx *h1 = NULL, *h2 = NULL;
  EM_TRY_GOTO(err, alloc_be(v->be, all, xh, &v->X), done);
  EM_TRY_GOTO(err, alloc_be(v->be, all, NULL, &v->Y1), done);
  EM_TRY_GOTO(err, alloc_be(v->be, all, NULL, &v->Y2), done);
  for (int k = 0; k < N_NS; k++) {
    EM_TRY_GOTO(err, time_it(v, NS[k], 0, reps, &out->ms_spmv[k]), done);
    EM_TRY_GOTO(err, time_it(v, NS[k], 1, reps, &out->ms_spmm[k]), done);
  }
  EM_TRY_GOTO(err, em_calloc(&h1, (size_t)n * NMAX + 1, sizeof *h1, "check"), done);
  EM_TRY_GOTO(err, em_calloc(&h2, (size_t)n * NMAX + 1, sizeof *h2, "check"), done);
  EM_TRY_GOTO(err, download(v->be, h1, v->Y1, all), done);
  EM_TRY_GOTO(err, download(v->be, h2, v->Y2, all), done);
  out->diff = 0;
  for (size_t q = 0; q < (size_t)n * NMAX; q++) out->diff = fmax(out->diff, cabs(h1[q] - h2[q]));
done:
  em_free(&h1);
  em_free(&h2);
  free_be(v->be, &v->X);
  free_be(v->be, &v->Y1);
  free_be(v->be, &v->Y2);
  return err;
}

static void print_row(const row *r) {
  printf("%-34s %-4s", r->name, r->dev);
  for (int k = 0; k < N_NS; k++)
    printf(" | %8.3f %8.3f %5.2fx", r->ms_spmv[k], r->ms_spmm[k], r->ms_spmv[k] / r->ms_spmm[k]);
  printf(" | %s\n", r->diff == 0 ? "equal" : "DIFFERENT");
  fflush(stdout);
}

static em_err spmat_variant(const em_csr *A, em_format f, em_backend be, const em_cplx *x, int reps,
                            const char *name, row *r) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = f;
  o.backend = be;
  em_spmat *M = NULL;
  variant v = {.be = be};
  EM_TRY(em_spmat_create(A, &o, &M));
  em_spmat_info info;
  em_spmat_get_info(M, &info);
  snprintf(r->name, sizeof r->name, "%s (T=%d)", name, info.threads_per_row);
  em_err err = em_spmat_operator(M, &v.op);
  if (!err) err = measure(&v, x, reps, r);
  em_spmat_destroy(&M);
  return err;
}

static em_err blockop_variant(const em_blockmat *B, em_backend be, int il, const em_cplx *x,
                              int reps, row *r) {
  em_blockop_opts o;
  em_blockop_opts_default(&o);
  o.backend = be;
  o.interleave = il;
  int32_t n = B->offset[B->nb], *perm = NULL;
  em_blockmat *Bp = NULL;
  em_blockop *op = NULL;
  variant v = {.be = be};
  em_err err = EM_OK;
  EM_TRY(em_calloc(&perm, (size_t)n + 1, sizeof *perm, "permutation"));
  EM_TRY_GOTO(err, em_blockop_plan_perm(B, &o, perm), done);
  EM_TRY_GOTO(err, em_blockmat_permute(B, perm, &Bp), done);
  EM_TRY_GOTO(err, em_blockop_create(Bp, &o, &op), done);
  EM_TRY_GOTO(err, em_blockop_operator(op, &v.op), done);
  em_spmat_info info;
  em_blockop_block_info(op, B->nb - 1, B->nb - 1, &info);
  snprintf(r->name, sizeof r->name, "nine blocks, streams (A_%d%d %s)%s", B->nb, B->nb,
           em_format_name(info.format),
           be == EM_BACKEND_CPU ? ""
           : il                 ? ", x interleaved"
                                : ", x columns");
  err = measure(&v, x, reps, r);
done:
  em_blockop_destroy(&op);
  em_blockmat_destroy(&Bp);
  em_free(&perm);
  return err;
}

static void write_out(const char *dir, const char *src, const em_csr *A, const row *rows, int nr) {
  char path[1024];
  snprintf(path, sizeof path, "%s/spmm.md", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "# SpMM vs N SpMVs\n\n%s: %d rows, %lld entries. Median ms per N vectors.\n\n", src,
            A->n_rows, (long long)A->nnz);
    fprintf(f, "| variant | device |");
    for (int k = 0; k < N_NS; k++) fprintf(f, " N=%d SpMVs | SpMM | gain |", NS[k]);
    fprintf(f, " columns |\n|---|---|");
    for (int k = 0; k < N_NS; k++) fprintf(f, "---|---|---|");
    fprintf(f, "---|\n");
    for (int i = 0; i < nr; i++) {
      fprintf(f, "| %s | %s |", rows[i].name, rows[i].dev);
      for (int k = 0; k < N_NS; k++)
        fprintf(f, " %.3f | %.3f | %.2fx |", rows[i].ms_spmv[k], rows[i].ms_spmm[k],
                rows[i].ms_spmv[k] / rows[i].ms_spmm[k]);
      fprintf(f, " %s |\n", rows[i].diff == 0 ? "equal" : "DIFFERENT");
    }
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/spmm.json", dir);
  f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "{\n  \"source\": \"%s\",\n  \"rows\": %d,\n  \"nnz\": %lld,\n  \"results\": [\n", src,
          A->n_rows, (long long)A->nnz);
  for (int i = 0; i < nr; i++) {
    fprintf(f, "    {\"variant\": \"%s\", \"device\": \"%s\", \"equal\": %s", rows[i].name,
            rows[i].dev, rows[i].diff == 0 ? "true" : "false");
    for (int k = 0; k < N_NS; k++)
      fprintf(f, ", \"N%d\": {\"spmv_ms\": %.6g, \"spmm_ms\": %.6g}", NS[k], rows[i].ms_spmv[k],
              rows[i].ms_spmm[k]);
    fprintf(f, "}%s\n", i + 1 < nr ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
}

int main(int argc, char **argv) {
  const char *file = NULL, *out = NULL;
  int box = 12, order = 3, reps = 10, cpu = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--matrix") && i + 1 < argc)
      file = argv[++i];
    else if (!strcmp(argv[i], "--fem-box") && i + 1 < argc)
      box = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--order") && i + 1 < argc)
      order = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--no-cpu"))
      cpu = 0;
    else {
      fprintf(stderr,
              "usage: spmm_bench [--matrix FILE | --fem-box N --order P] [--reps R (<= 64)] "
              "[--no-cpu] [--out DIR]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 64) reps = 10;
  em_blockmat *B = NULL;
  em_csr *A = NULL, *As = NULL;
  char src[300];
  em_err err;
  if (file) {
    int nr = 0;
    em_cplx *b = NULL;
    snprintf(src, sizeof src, "%s", file);
    err = em_matfile_read(file, &B, &nr, &b);
    em_free(&b);
    if (!err) err = em_blockmat_to_csr(B, &A);
  } else {
    snprintf(src, sizeof src, "fem-box %d order %d", box, order);
    err = em_fem_pattern_box(box, order, 7, &A, &B);
  }
  if (err) {
    em_error_print(stderr);
    return 1;
  }
  int32_t n = A->n_rows, *perm = calloc((size_t)n + 1, sizeof *perm);
  if (em_sellrt_sort_perm(A, perm) || em_csr_permute(A, perm, perm, &As)) {
    em_error_print(stderr);
    return 1;
  }
  em_cplx *x = calloc((size_t)n * NMAX + 1, sizeof *x);
  unsigned long long s = 88172645463325252ULL;
  for (size_t q = 0; q < (size_t)n * NMAX; q++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[q] = (double)(s % 2001) / 1000 - 1 + I * ((double)(s / 2001 % 2001) / 1000 - 1);
  }
  printf("%s: %d rows, %lld entries; median of %d runs, ms per N vectors\n", src, n,
         (long long)A->nnz, reps);
  printf("%-34s %-4s", "variant", "dev");
  for (int k = 0; k < N_NS; k++) printf(" | N=%-2d SpMVs     SpMM  gain", NS[k]);
  printf(" | columns\n");
  row rows[16];
  int nr = 0, bad = 0;
  em_backend bes[2] = {EM_BACKEND_CPU, EM_BACKEND_CUDA};
  for (int bi = cpu ? 0 : 1; bi < 2; bi++) {
    em_backend be = bes[bi];
    if (be == EM_BACKEND_CUDA) {
      em_device dev;
      if (!em_cuda_built() || em_device_open("gpu", NULL, &dev)) {
        printf("(no GPU: the GPU rows are skipped)\n");
        em_error_clear();
        break;
      }
    }
    const char *dn = be == EM_BACKEND_CPU ? "cpu" : "gpu";
    struct {
      const em_csr *M;
      em_format f;
      const char *name;
    } V[] = {{A, EM_FMT_CSR_VECTOR, "csr-vector"}, {As, EM_FMT_SELLRT, "sellr-t, rows sorted"}};
    for (int k = 0; k < 2; k++) {
      row *r = &rows[nr];
      memset(r, 0, sizeof *r);
      r->dev = dn;
      if (spmat_variant(V[k].M, V[k].f, be, x, reps, V[k].name, r)) {
        fprintf(stderr, "%s on the %s: ", V[k].name, dn);
        em_error_print(stderr);
        em_error_clear();
        continue;
      }
      bad |= r->diff != 0;
      print_row(r);
      nr++;
    }
    for (int il = 1; B && il >= (be == EM_BACKEND_CPU ? 1 : 0); il--) {
      row *r = &rows[nr];
      memset(r, 0, sizeof *r);
      r->dev = dn;
      if (blockop_variant(B, be, il, x, reps, r)) {
        fprintf(stderr, "block operator on the %s: ", dn);
        em_error_print(stderr);
        em_error_clear();
      } else {
        bad |= r->diff != 0;
        print_row(r);
        nr++;
      }
    }
  }
  if (out) write_out(out, src, A, rows, nr);
  free(x);
  free(perm);
  em_csr_destroy(&A);
  em_csr_destroy(&As);
  em_blockmat_destroy(&B);
  if (bad) fprintf(stderr, "SpMM columns differ from the SpMVs\n");
  return bad ? 1 : 0;
}
