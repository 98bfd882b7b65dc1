/* direct_bench.c - the sparse direct solver (em_direct) on one system:
 * ordering, symbolic and numeric times, nnz(L), GFlop and GFlop/s, the
 * direct solve's residual, then a Krylov solve preconditioned by it.
 *
 *   direct_bench --matrix FILE [options]   system of `emsolve --dump-matrix`
 *   direct_bench --gen N [options]         Whitney curl-curl on N^3 cells
 *
 * Options: --ordering nd|rcm|natural (default nd), --kernels auto|own|blas
 * (default auto; "both" runs own then blas), --threads T (default: OpenMP's),
 * --method gmres|bicgstab|cocg (default gmres), --tol (1e-12), --gen-k0
 * (20), --gen-loss (0.001), --repeat R (numeric factorizations and solves,
 * the median reported, default 1), --no-krylov (skip the preconditioned
 * solve), --device cpu|gpu|both (where the numeric factorization and the
 * solves run; default cpu), --prec double|single|both (the GPU factor's
 * precision), --gpu-small M1,M2 (the GPU runs once per value of
 * em_direct_opts.gpu_small: fronts up to that order by the one-block
 * kernel; 0 the default), --nrhs R (a second solve timing with R right-hand sides,
 * default 8).  With the GPU, cublasZgemm on a square matrix is timed in the
 * same run for the device's dense rate.  Exits 1 when a direct solve's
 * residual is above 1e-6 (double) / 1e-2 (single factor): a wrong result. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "problems.h"
#include "em_formats.h"
#include "em_solver.h"

typedef struct dbench_opts {
  const char *matrix, *ordering, *kernels, *method, *device, *prec;
  int gen, threads, repeat, krylov, nrhs;
  double tol, k0, loss;
  const char *gpu_small; /* list of em_direct_opts.gpu_small values (GPU runs) */
  int small;             /* the one being run */
} dbench_opts;

#ifdef EM_HAVE_CUDA
/* direct_bench_gpu.c: TFlop/s of cublasZgemm on n x n (median of reps) */
double dbench_zgemm_tflops(int n, int reps);
#endif

/* ||b - A x|| / ||b|| */
static double rel_res(const em_csr *A, const em_cplx *x, const em_cplx *b) {
  int32_t n = A->n_rows;
  double nr = 0, nb = 0;
  for (int32_t i = 0; i < n; i++) {
    em_cplx s = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p] * x[A->colind[p]];
    nr += pow(cabs(b[i] - s), 2);
    nb += pow(cabs(b[i]), 2);
  }
  return nb > 0 ? sqrt(nr / nb) : sqrt(nr);
}

static em_err load(const dbench_opts *bo, em_csr **A, em_cplx **b) {
  if (bo->matrix) {
    em_blockmat *B = NULL;
    int nrhs = 0;
    EM_TRY(em_matfile_read(bo->matrix, &B, &nrhs, b));
    em_err err = em_blockmat_to_csr(B, A);
    em_blockmat_destroy(&B);
    EM_TRY(err);
    if (nrhs > 0) return EM_OK;
    em_free(b);
  } else {
    EM_TRY(prob_curlcurl(bo->gen, bo->k0, bo->loss, A));
  }
  em_cplx *xt = NULL;
  EM_TRY(em_calloc(b, (size_t)(*A)->n_rows + 1, sizeof **b, "right-hand side"));
  EM_TRY(em_calloc(&xt, (size_t)(*A)->n_rows + 1, sizeof *xt, "solution"));
  prob_rhs(*A, xt, *b);
  em_free(&xt);
  return EM_OK;
}

static int wrong = 0; /* a residual above its bound was seen */

static em_err run(const dbench_opts *bo, const em_csr *A, const em_cplx *b, em_direct_kernels kern,
                  em_backend be, em_prec prec, const em_log *log) {
  int32_t n = A->n_rows;
  em_direct_opts o;
  em_direct_opts_default(&o);
  EM_TRY(em_ordering_parse(bo->ordering, &o.ordering));
  o.kernels = kern;
  o.threads = bo->threads;
  o.backend = be;
  o.prec = prec;
  o.gpu_small = bo->small;
  em_direct *F = NULL;
  em_cplx *x = NULL, *B = NULL, *X = NULL;
  em_err err = EM_OK;
  int R = bo->repeat > 0 ? bo->repeat : 1, nr = bo->nrhs > 0 ? bo->nrhs : 1;
  double *tf = NULL, *ts = NULL, *tm = NULL;
  EM_TRY(em_calloc(&tf, (size_t)R, sizeof *tf, "timings"));
  EM_TRY_GOTO(err, em_calloc(&ts, (size_t)R, sizeof *ts, "timings"), done);
  EM_TRY_GOTO(err, em_calloc(&tm, (size_t)R, sizeof *tm, "timings"), done);
  EM_TRY_GOTO(err, em_direct_analyse(A, &o, log, &F), done);
  for (int r = 0; r < R; r++) {
    double t0 = em_wtime();
    EM_TRY_GOTO(err, em_direct_factor(F, A, log), done);
    tf[r] = em_wtime() - t0;
  }
  em_direct_info in;
  em_direct_get_info(F, &in);
  EM_TRY_GOTO(err, em_calloc(&x, (size_t)n + 1, sizeof *x, "solution"), done);
  for (int r = 0; r < R; r++) {
    double t0 = em_wtime();
    EM_TRY_GOTO(err, em_direct_solve(F, 1, b, n, x, n), done);
    ts[r] = em_wtime() - t0;
  }
  double res = rel_res(A, x, b);
  /* several right-hand sides: b shifted and scaled per column */
  EM_TRY_GOTO(err, em_calloc(&B, (size_t)n * nr + 1, sizeof *B, "right-hand sides"), done);
  EM_TRY_GOTO(err, em_calloc(&X, (size_t)n * nr + 1, sizeof *X, "solutions"), done);
  for (int c = 0; c < nr; c++)
    for (int32_t i = 0; i < n; i++) B[(size_t)c * n + i] = b[(i + 7 * c) % n] * (1.0 + 0.1 * c);
  for (int r = 0; r < R; r++) {
    double t0 = em_wtime();
    EM_TRY_GOTO(err, em_direct_solve(F, nr, B, n, X, n), done);
    tm[r] = em_wtime() - t0;
  }
  double res_m = 0;
  for (int c = 0; c < nr; c++)
    res_m = fmax(res_m, rel_res(A, X + (size_t)c * n, B + (size_t)c * n));
  double bound = prec == EM_PREC_SINGLE ? 1e-2 : 1e-6; /* a single factor preconditions */
  int bad = !(res <= bound) || !(res_m <= bound);
  wrong |= bad;
  double tfm = bench_median(tf, R), tsm = bench_median(ts, R), tmm = bench_median(tm, R);
  printf(
      "%-4s %-6s %-11s %-7s small %4d: order %.2f s, symbolic %.2f s, numeric %.3f s median of %d "
      "(%.1f "
      "GFlop/s), solve %.4f s, %d rhs %.4f s; nnz(L) %.3gM (%.3gM stored), %.1f GFlop, factor "
      "%.2f GB; %lld perturbed; direct residual %.2e / %.2e%s\n",
      in.where, prec == EM_PREC_SINGLE ? "single" : "double", in.kernels, bo->ordering, bo->small,
      in.t_order, in.t_symbolic, tfm, R, in.flops * 1e-9 / tfm, tsm, nr, tmm,
      (double)in.nnz_l * 1e-6, (double)in.nnz_stored * 1e-6, in.flops * 1e-9,
      (double)in.bytes_factor * 1e-9, (long long)in.perturbed, res, res_m, bad ? "  WRONG" : "");
  fflush(stdout);
  em_direct_destroy(&F);
  if (!bo->krylov) goto done;
  /* the same through the preconditioner and a Krylov method */
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_DIRECT;
  po.ordering = o.ordering;
  em_pc *pc = NULL;
  EM_TRY_GOTO(err, em_pc_create(A, &po, NULL, &pc), done);
  em_spmat *cop = NULL;
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.format = EM_FMT_CSR;
  EM_TRY_GOTO(err, em_spmat_create(A, &so, &cop), done_pc);
  em_operator op;
  EM_TRY_GOTO(err, em_spmat_operator(cop, &op), done_op);
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  EM_TRY_GOTO(err, em_ksp_method_parse(bo->method, &ko.method), done_op);
  ko.tol = bo->tol;
  ko.max_it = 50;
  em_ksp_stats st;
  memset(x, 0, (size_t)n * sizeof *x);
  EM_TRY_GOTO(err, em_ksp_solve(&op, pc, b, x, &ko, &st), done_op);
  printf("  %s + direct: %s in %d iterations, true residual %.2e, %.3f s (pc %.3f s)\n", bo->method,
         em_ksp_reason_name(st.reason), st.iterations, st.true_rel_res, st.t_total, st.t_pc);
done_op:
  em_spmat_destroy(&cop);
done_pc:
  em_pc_destroy(&pc);
done:
  em_direct_destroy(&F);
  em_free(&x);
  em_free(&B);
  em_free(&X);
  em_free(&tf);
  em_free(&ts);
  em_free(&tm);
  return err;
}

int main(int argc, char **argv) {
  dbench_opts bo = {NULL, "nd", "auto", "gmres", "cpu", "double", 0,    0,
                    1,    1,    8,      1e-12,   20,    0.001,    NULL, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-krylov")) {
      bo.krylov = 0;
      continue;
    }
    if (!v) goto usage;
    if (!strcmp(a, "--matrix"))
      bo.matrix = v;
    else if (!strcmp(a, "--gen"))
      bo.gen = atoi(v);
    else if (!strcmp(a, "--ordering"))
      bo.ordering = v;
    else if (!strcmp(a, "--kernels"))
      bo.kernels = v;
    else if (!strcmp(a, "--method"))
      bo.method = v;
    else if (!strcmp(a, "--threads"))
      bo.threads = atoi(v);
    else if (!strcmp(a, "--repeat"))
      bo.repeat = atoi(v);
    else if (!strcmp(a, "--device"))
      bo.device = v;
    else if (!strcmp(a, "--prec"))
      bo.prec = v;
    else if (!strcmp(a, "--nrhs"))
      bo.nrhs = atoi(v);
    else if (!strcmp(a, "--gpu-small"))
      bo.gpu_small = v;
    else if (!strcmp(a, "--tol"))
      bo.tol = atof(v);
    else if (!strcmp(a, "--gen-k0"))
      bo.k0 = atof(v);
    else if (!strcmp(a, "--gen-loss"))
      bo.loss = atof(v);
    else
      goto usage;
    i++;
  }
  if (!bo.matrix && bo.gen <= 0) goto usage;
  em_log log;
  em_log_init(&log, stderr, getenv("EM_VERBOSE") ? EM_LOG_VERBOSE : EM_LOG_QUIET);
  em_csr *A = NULL;
  em_cplx *b = NULL;
  if (load(&bo, &A, &b)) goto fail;
  printf("system: n = %d, nnz = %lld\n", A->n_rows, (long long)A->nnz);
  int both = !strcmp(bo.kernels, "both");
  int cpu = !strcmp(bo.device, "cpu") || !strcmp(bo.device, "both");
  int gpu = !strcmp(bo.device, "gpu") || !strcmp(bo.device, "both");
  if (cpu) {
    if (both || !strcmp(bo.kernels, "auto") || !strcmp(bo.kernels, "own"))
      if (run(&bo, A, b, EM_DIRECT_OWN, EM_BACKEND_CPU, EM_PREC_DOUBLE, &log)) goto fail;
    if (both || !strcmp(bo.kernels, "blas"))
      if (run(&bo, A, b, EM_DIRECT_BLAS, EM_BACKEND_CPU, EM_PREC_DOUBLE, &log)) goto fail;
  }
  if (gpu) {
#ifdef EM_HAVE_CUDA
    em_device dev;
    if (em_device_open("gpu", &log, &dev)) goto fail;
    printf("device: %s; cublasZgemm 8192^3: %.2f TFlop/s (median of 5)\n", dev.name,
           dbench_zgemm_tflops(8192, 5));
    fflush(stdout);
    int d = !strcmp(bo.prec, "double") || !strcmp(bo.prec, "both");
    int sgl = !strcmp(bo.prec, "single") || !strcmp(bo.prec, "both");
    char list[256];
    snprintf(list, sizeof list, "%s", bo.gpu_small ? bo.gpu_small : "0");
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      bo.small = atoi(t);
      if (d && run(&bo, A, b, EM_DIRECT_AUTO, EM_BACKEND_CUDA, EM_PREC_DOUBLE, &log)) goto fail;
      if (sgl && run(&bo, A, b, EM_DIRECT_AUTO, EM_BACKEND_CUDA, EM_PREC_SINGLE, &log)) goto fail;
    }
#else
    fprintf(stderr, "direct_bench: this build has no CUDA\n");
    return 2;
#endif
  }
  em_csr_destroy(&A);
  em_free(&b);
  return wrong ? 1 : 0;
fail:
  em_error_print(stderr);
  return 1;
usage:
  fprintf(stderr,
          "usage: direct_bench --matrix FILE | --gen N [--ordering nd|rcm|natural] "
          "[--kernels auto|own|blas|both] [--threads T] [--method gmres|bicgstab|cocg] "
          "[--tol t] [--repeat R] [--gen-k0 k] [--gen-loss l] [--no-krylov] [--device "
          "cpu|gpu|both] [--prec double|single|both] [--nrhs R] [--gpu-small M1,M2,..]\n");
  return 2;
}
