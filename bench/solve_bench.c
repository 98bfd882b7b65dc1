/* solve_bench.c - the preconditioned Krylov solve on the GPU against the
 * same algorithm on all CPU cores of the same host.
 *
 *   solve_bench --matrix FILE [options]    system of `emsolve --dump-matrix`
 *   solve_bench --gen N [options]          Whitney curl-curl on N^3 cells
 *   solve_bench --fem-spd N:P [options]    SPD curl-curl + mass, order P, N^3
 *                                          cells (tests/common/fem_spd.h)
 *   --matrix FILE.mtx reads Matrix Market (core/mtx.c); --write-mtx FILE
 *   writes the system's matrix so; --formats LIST runs seed 000's study
 *   (bench/solve_formats.c) instead of steps 2 and 3.
 *
 * Steps (each within a time budget, skipped with a note when it would
 * overrun):
 *   1. SpMV of the CSR-vector operator (formats/) on each backend (the unit of
 *      "SpMV-equivalents");
 *   2. ordering study: BiCGSTAB + ILU(0) (GPU 'levels' triangular solve, or
 *      the CPU without a GPU) for each ordering: levels, colours, setup,
 *      apply cost, iterations, time; the fastest becomes the ordering of
 *      step 3;
 *   3. methods x preconditioners (Jacobi; ILU(0) with each GPU triangular
 *      solve; ILU(0) in single precision) on the GPU, then the same
 *      algorithms on the CPU.  A CPU run that would exceed --cpu-cap is cut
 *      by iterations and its time extrapolated to the GPU's iteration count
 *      from its measured time per iteration, labelled as such.
 * Output: a table on stdout; bench.json and bench.md in --out DIR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "bench_matrix.h"
#include "fem_spd.h"
#include "problems.h"
#include "solve_formats.h"
#include "em_formats.h"
#include "em_solver.h"

#define MAX_RUNS 96

typedef struct bench_opts {
  const char *matrix;    /* --matrix FILE */
  int gen;               /* --gen N (0: off) */
  const char *out;       /* --out DIR */
  double tol;            /* --tol */
  int max_it;            /* --max-it */
  double gpu_cap;        /* --gpu-cap: seconds per GPU solve */
  double cpu_cap;        /* --cpu-cap: seconds per CPU solve */
  double budget;         /* --budget: seconds for the whole run */
  int block;             /* --block: BMC block size */
  double shift;          /* --shift: ILU(0) diagonal shift */
  double gen_k0;         /* --gen-k0: wavenumber of the generated system */
  double gen_loss;       /* --gen-loss: its loss tangent */
  int use_gpu, use_cpu;  /* --no-gpu, --no-cpu */
  char orderings[128];   /* --orderings natural,rcm,nd,mc,bmc */
  char methods[128];     /* --methods bicgstab,cocg */
  const char *ordering;  /* --ordering: skip the study, use this one */
  int spd_n, spd_order;  /* --fem-spd N:P (0: off) */
  double spd_alpha;      /* --spd-alpha: -k0^2 of the SPD system */
  const char *write_mtx; /* --write-mtx FILE */
  int write_only;        /* --write-only: stop after writing it */
  const char *formats;   /* --formats LIST: seed 000's study */
  char trsv[64];         /* --trsv LIST for the study */
  int strict;            /* --strict: a study solve that does not converge fails */
} bench_opts;

/* One solve (or one skipped solve). */
typedef struct run {
  char backend[8], method[12], pc[12], impl[24], ordering[12], prec[8], note[64];
  int study;          /* 1: part of the ordering study */
  int iterations;     /* done (or extrapolated to, see extrapolated) */
  int iterations_run; /* actually run */
  int extrapolated;   /* 1: time and iterations estimated from a cut run */
  int skipped;        /* 1: not run (budget) */
  const char *reason;
  double true_res;                           /* ||b - A x|| / ||b|| of the run */
  double t_setup;                            /* preconditioner setup, s */
  double t_solve;                            /* em_ksp_solve (or its estimate), s */
  double t_it, t_spmv_it, t_pc_it, t_vec_it; /* per iteration, s */
  double pc_spmv;                            /* one pc apply in SpMV-equivalents (same solve) */
  int levels_l, levels_u, colors;
  size_t pc_bytes;
} run;

typedef struct bench {
  bench_opts o;
  em_csr *A;
  em_cplx *b;
  int32_t n;
  int have_gpu;
  em_device gpu;
  int threads;
  double t0;                   /* start of the run */
  double spmv[2], spmv_gbs[2]; /* seconds per SpMV and GB/s, per backend */
  run runs[MAX_RUNS];
  int nruns;
  em_pc_ordering ordering; /* chosen for step 3 */
  em_log log;
} bench;

static double elapsed(const bench *B) {
  return em_wtime() - B->t0;
}
static double left(const bench *B) {
  return B->o.budget - elapsed(B);
}

static void usage(void) {
  fprintf(
      stderr,
      "usage: solve_bench (--matrix FILE | --gen N) [--out DIR] [--tol 1e-8] [--max-it 3000]\n"
      "       [--gpu-cap 15] [--cpu-cap 20] [--budget 330] [--block 16] [--shift 0] [--no-gpu]\n"
      "       [--no-cpu] [--gen-k0 6.28] [--gen-loss 0.05]\n"
      "       [--orderings natural,rcm,nd,mc,bmc] [--ordering NAME] [--methods bicgstab,cocg]\n"
      "       [--fem-spd N:P] [--spd-alpha 1] [--write-mtx FILE] [--write-only] [--strict]\n"
      "       [--formats csr,csr-vector,sellr-t,hyb,hec,auto,cusparse] [--trsv levels,cusparse]\n"
      "  --matrix FILE: Matrix Market (.mtx, by its banner) or emsolve --dump-matrix\n");
}

static em_err parse_args(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->out = "out/bench-solve";
  o->tol = 1e-8;
  o->max_it = 3000;
  o->gpu_cap = 15;
  o->cpu_cap = 20;
  o->budget = 330;
  o->block = 16;
  o->gen_k0 = 2 * M_PI;
  o->gen_loss = 0.05;
  o->use_gpu = o->use_cpu = 1;
  strcpy(o->orderings, "natural,rcm,nd,mc,bmc");
  strcpy(o->methods, "bicgstab,cocg");
  strcpy(o->trsv, "levels,cusparse");
  o->spd_alpha = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (!strcmp(a, "--no-gpu"))
      o->use_gpu = 0, takes = 0;
    else if (!strcmp(a, "--strict"))
      o->strict = 1, takes = 0;
    else if (!strcmp(a, "--write-only"))
      o->write_only = 1, takes = 0;
    else if (!strcmp(a, "--no-cpu"))
      o->use_cpu = 0, takes = 0;
    else if (!v)
      return EM_RAISE(EM_ERR_INPUT, "option %s needs a value", a);
    else if (!strcmp(a, "--matrix"))
      o->matrix = v;
    else if (!strcmp(a, "--gen"))
      o->gen = atoi(v);
    else if (!strcmp(a, "--out"))
      o->out = v;
    else if (!strcmp(a, "--tol"))
      o->tol = atof(v);
    else if (!strcmp(a, "--max-it"))
      o->max_it = atoi(v);
    else if (!strcmp(a, "--gpu-cap"))
      o->gpu_cap = atof(v);
    else if (!strcmp(a, "--cpu-cap"))
      o->cpu_cap = atof(v);
    else if (!strcmp(a, "--budget"))
      o->budget = atof(v);
    else if (!strcmp(a, "--block"))
      o->block = atoi(v);
    else if (!strcmp(a, "--shift"))
      o->shift = atof(v);
    else if (!strcmp(a, "--gen-k0"))
      o->gen_k0 = atof(v);
    else if (!strcmp(a, "--gen-loss"))
      o->gen_loss = atof(v);
    else if (!strcmp(a, "--ordering"))
      o->ordering = v;
    else if (!strcmp(a, "--orderings"))
      snprintf(o->orderings, sizeof o->orderings, "%s", v);
    else if (!strcmp(a, "--methods"))
      snprintf(o->methods, sizeof o->methods, "%s", v);
    else if (!strcmp(a, "--fem-spd")) {
      if (sscanf(v, "%d:%d", &o->spd_n, &o->spd_order) != 2 || o->spd_n < 1 || o->spd_order < 1 ||
          o->spd_order > EM_MAX_ORDER)
        return EM_RAISE(EM_ERR_INPUT, "--fem-spd N:P with N >= 1, P in 1..%d, not '%s'",
                        EM_MAX_ORDER, v);
    } else if (!strcmp(a, "--spd-alpha"))
      o->spd_alpha = atof(v);
    else if (!strcmp(a, "--write-mtx"))
      o->write_mtx = v;
    else if (!strcmp(a, "--formats"))
      o->formats = v;
    else if (!strcmp(a, "--trsv"))
      snprintf(o->trsv, sizeof o->trsv, "%s", v);
    else
      return EM_RAISE(EM_ERR_INPUT, "unknown option '%s'", a);
    i += takes;
  }
  EM_CHECK(!!o->matrix + !!o->gen + !!o->spd_n == 1, EM_ERR_INPUT,
           "give one of --matrix FILE, --gen N or --fem-spd N:P");
  EM_CHECK(o->spd_alpha > 0, EM_ERR_INPUT, "--spd-alpha must be > 0");
  EM_CHECK(o->tol > 0 && o->tol < 1 && o->max_it > 0 && o->block > 0, EM_ERR_INPUT,
           "bad --tol, --max-it or --block");
  return EM_OK;
}

static int real_matrix(const em_csr *A) {
  for (int64_t k = 0; k < A->nnz; k++)
    if (cimag(A->val[k]) != 0) return 0;
  return 1;
}

/* 1 when a_ji == a_ij for every entry (the file is then written symmetric):
 * A^T built from triplets and compared bit for bit. */
static int symmetric_matrix(const em_csr *A) {
  int32_t *ti = NULL, *tj = NULL;
  em_csr *At = NULL;
  int sym = 0;
  if (!em_calloc(&ti, (size_t)A->nnz + 1, 4, "t") && !em_calloc(&tj, (size_t)A->nnz + 1, 4, "t")) {
    for (int32_t i = 0; i < A->n_rows; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) ti[k] = A->colind[k], tj[k] = i;
    if (!em_csr_from_triplets(A->n_cols, A->n_rows, A->nnz, ti, tj, A->val, &At))
      sym = At->nnz == A->nnz && !memcmp(At->rowptr, A->rowptr, 8 * ((size_t)A->n_rows + 1)) &&
            !memcmp(At->colind, A->colind, 4 * (size_t)A->nnz) &&
            !memcmp(At->val, A->val, 16 * (size_t)A->nnz);
  }
  em_error_clear();
  em_csr_destroy(&At);
  em_free(&ti);
  em_free(&tj);
  return sym;
}

/* the system: the first right-hand side of a matrix file, or a generated
 * curl-curl system with b = A x for a smooth x */
static em_err load_system(bench *B) {
  if (B->o.matrix) {
    em_cplx *rhs = NULL;
    int n_rhs = 0;
    EM_TRY(bench_load_matrix(B->o.matrix, &B->A, NULL, &n_rhs, &rhs));
    EM_CHECK(B->A->n_rows == B->A->n_cols, EM_ERR_INPUT, "%s: matrix %d x %d is not square",
             B->o.matrix, B->A->n_rows, B->A->n_cols);
    B->n = B->A->n_rows;
    if (n_rhs > 0) {
      B->b = rhs;
      return EM_OK;
    }
    em_free(&rhs);
  } else if (B->o.spd_n) {
    EM_TRY(em_fem_spd_box(B->o.spd_n, B->o.spd_order, B->o.spd_alpha, &B->A, NULL));
    B->n = B->A->n_rows;
  } else {
    /* default: one wavelength across the unit box, 5% loss */
    EM_TRY(prob_curlcurl(B->o.gen, B->o.gen_k0, B->o.gen_loss, &B->A));
    B->n = B->A->n_rows;
  }
  em_cplx *xt = NULL;
  EM_TRY(em_calloc(&xt, (size_t)B->n + 1, sizeof *xt, "bench solution"));
  EM_TRY(em_calloc(&B->b, (size_t)B->n + 1, sizeof *B->b, "bench right-hand side"));
  prob_rhs(B->A, xt, B->b);
  if (real_matrix(B->A)) { /* a real system gets a real b: CG's data stay real */
    for (int32_t i = 0; i < B->n; i++) xt[i] = 1 + 0.5 * sin(0.37 * i);
    em_csr_spmv_ref(B->A, 1, xt, 0, B->b);
  }
  em_free(&xt);
  return EM_OK;
}

/* ------------------------------------------- vectors for the timing loops */

static em_err bvec_alloc(em_backend be, size_t bytes, void **p) {
  *p = NULL;
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    EM_TRY(em_dev_alloc(p, NULL, bytes, NULL, "bench vector"));
    EM_CUDA(cudaMemset(*p, 0, bytes));
    return EM_OK;
  }
#endif
  (void)be;
  return em_calloc(p, bytes ? bytes : 1, 1, "bench vector");
}

static void bvec_free(em_backend be, void **p) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    em_dev_free(p);
    return;
  }
#endif
  (void)be;
  em_free(p);
}

static em_err bvec_upload(em_backend be, void *d, const void *h, size_t bytes) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) {
    EM_CUDA(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return EM_OK;
  }
#endif
  (void)be;
  memcpy(d, h, bytes);
  return EM_OK;
}

static em_err bsync(em_backend be) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) EM_CUDA(cudaDeviceSynchronize());
#endif
  (void)be;
  return EM_OK;
}

/* ------------------------------------------------------------ SpMV baseline */

/* The CSR operator of the solves: formats/ CSR-vector (T from the row
 * lengths on the GPU; one row per iteration on the CPU) in double. */
static em_err csr_operator(const em_csr *A, em_backend be, em_spmat **M, em_operator *op) {
  em_spmat_opts o;
  em_spmat_opts_default(&o);
  o.format = EM_FMT_CSR_VECTOR;
  o.backend = be;
  o.prec = EM_PREC_DOUBLE;
  EM_TRY(em_spmat_create(A, &o, M));
  return em_spmat_operator(*M, op);
}

/* seconds per y = A x of the CSR operator, and the GB/s of its arrays
 * that makes */
static em_err time_spmv(bench *B, em_backend be) {
  em_spmat *M = NULL;
  em_operator op;
  void *x = NULL, *y = NULL;
  em_err err = EM_OK;
  size_t vb = (size_t)B->n * sizeof(em_cplx);
  EM_TRY_GOTO(err, csr_operator(B->A, be, &M, &op), done);
  EM_TRY_GOTO(err, bvec_alloc(be, vb, &x), done);
  EM_TRY_GOTO(err, bvec_alloc(be, vb, &y), done);
  EM_TRY_GOTO(err, bvec_upload(be, x, B->b, vb), done);
  for (int k = 0; k < 3; k++) EM_TRY_GOTO(err, op.apply(op.ctx, x, y), done); /* warm up */
  EM_TRY_GOTO(err, bsync(be), done);
  int reps = 0;
  double t = em_wtime();
  do {
    EM_TRY_GOTO(err, op.apply(op.ctx, x, y), done);
    EM_TRY_GOTO(err, bsync(be), done);
    reps++;
  } while (reps < 5 || (reps < 200 && em_wtime() - t < 1.0));
  B->spmv[be] = (em_wtime() - t) / reps;
  em_spmat_info info;
  em_spmat_get_info(M, &info);
  B->spmv_gbs[be] = (double)(info.bytes + 2 * vb) / B->spmv[be] / 1e9;
done:
  bvec_free(be, &x);
  bvec_free(be, &y);
  em_spmat_destroy(&M);
  return err;
}

/* seconds per z = M^-1 r */
static em_err time_pc(bench *B, em_pc *pc, em_backend be, double *t_apply) {
  void *r = NULL, *z = NULL;
  em_err err = EM_OK;
  size_t vb = (size_t)B->n * sizeof(em_cplx);
  EM_TRY_GOTO(err, bvec_alloc(be, vb, &r), done);
  EM_TRY_GOTO(err, bvec_alloc(be, vb, &z), done);
  EM_TRY_GOTO(err, bvec_upload(be, r, B->b, vb), done);
  EM_TRY_GOTO(err, em_pc_apply(pc, r, z), done); /* warm up */
  EM_TRY_GOTO(err, bsync(be), done);
  int reps = 0;
  double t = em_wtime();
  do {
    EM_TRY_GOTO(err, em_pc_apply(pc, r, z), done);
    EM_TRY_GOTO(err, bsync(be), done);
    reps++;
  } while (reps < 3 || (reps < 100 && em_wtime() - t < 1.0));
  *t_apply = (em_wtime() - t) / reps;
done:
  bvec_free(be, &r);
  bvec_free(be, &z);
  return err;
}

/* ------------------------------------------------------------------ solves */

static const char *be_name(em_backend be) {
  return be == EM_BACKEND_CUDA ? "gpu" : "cpu";
}

/* operator and preconditioner applications per iteration of a method */
static void per_iteration(em_ksp_method m, double *spmv, double *pc) {
  *spmv = *pc = m == EM_KSP_BICGSTAB ? 2 : 1;
}

static run *new_run(bench *B) {
  if (B->nruns == MAX_RUNS) return NULL;
  run *r = &B->runs[B->nruns++];
  memset(r, 0, sizeof *r);
  r->reason = "-";
  return r;
}

/* one em_ksp_solve from x = 0 with at most max_it iterations, into r */
static em_err solve(bench *B, const em_operator *op, em_pc *pc, em_ksp_method m, int max_it,
                    run *r) {
  em_cplx *x = NULL;
  EM_TRY(em_calloc(&x, (size_t)B->n + 1, sizeof *x, "bench solution"));
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  ko.method = m;
  ko.tol = B->o.tol;
  ko.max_it = max_it;
  ko.log_every = 100;
  ko.log = &B->log;
  em_ksp_stats st;
  em_err err = em_ksp_solve(op, pc, B->b, x, &ko, &st);
  em_free(&x);
  EM_TRY(err);
  int its = st.iterations > 0 ? st.iterations : 1;
  r->iterations = r->iterations_run = st.iterations;
  r->reason = em_ksp_reason_name(st.reason);
  r->true_res = st.true_rel_res;
  r->t_solve = st.t_total;
  r->t_spmv_it = st.t_spmv / its;
  r->t_pc_it = st.t_pc / its;
  r->t_vec_it = st.t_vec / its;
  r->t_it = r->t_spmv_it + r->t_pc_it + r->t_vec_it;
  if (st.n_pc > 0 && st.n_spmv > 0 && st.t_spmv > 0)
    r->pc_spmv = (st.t_pc / (double)st.n_pc) / (st.t_spmv / (double)st.n_spmv);
  return EM_OK;
}

/* the GPU run of the same method and preconditioner, for the CPU target */
static const run *gpu_twin(const bench *B, const run *c) {
  for (int k = 0; k < B->nruns; k++) {
    const run *g = &B->runs[k];
    if (!strcmp(g->backend, "gpu") && !g->skipped && !strcmp(g->method, c->method) &&
        !strcmp(g->pc, c->pc) && !strcmp(g->ordering, c->ordering) && !strcmp(g->prec, c->prec) &&
        !strcmp(g->reason, "converged"))
      return g;
  }
  return NULL;
}

/* Build the preconditioner described by po on backend be, time its apply,
 * then solve with each method in `methods` (comma separated).  GPU solves
 * stop at --gpu-cap seconds (by an iteration limit from the measured costs);
 * CPU solves that would pass --cpu-cap are cut and extrapolated to the GPU
 * twin's iteration count. */
static em_err pc_runs(bench *B, const em_operator *op, em_backend be, const em_pc_opts *po,
                      const char *methods, int study) {
  em_pc *pc = NULL;
  em_pc_info info;
  double t_apply = 0;
  if (left(B) < 5) {
    run *r = new_run(B);
    if (!r) return EM_OK;
    snprintf(r->backend, sizeof r->backend, "%s", be_name(be));
    snprintf(r->pc, sizeof r->pc, "%s", em_pc_type_name(po->type));
    snprintf(r->note, sizeof r->note, "skipped: time budget");
    r->skipped = 1;
    return EM_OK;
  }
  em_log_info(&B->log, "bench: %s %s %s %s %s", be_name(be), em_pc_type_name(po->type),
              em_ordering_name(po->ordering), em_pc_trsv_name(po->trsv),
              po->prec == EM_PREC_SINGLE ? "single" : "double");
  EM_TRY(em_pc_create(B->A, po, &B->log, &pc));
  em_pc_get_info(pc, &info);
  em_err err = time_pc(B, pc, be, &t_apply);
  char list[128];
  snprintf(list, sizeof list, "%s", methods);
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
    em_ksp_method m;
    EM_TRY_GOTO(err, em_ksp_method_parse(tok, &m), done);
    run *r = new_run(B);
    if (!r) break;
    snprintf(r->backend, sizeof r->backend, "%s", be_name(be));
    snprintf(r->method, sizeof r->method, "%s", tok);
    snprintf(r->pc, sizeof r->pc, "%s", em_pc_type_name(po->type));
    snprintf(r->impl, sizeof r->impl, "%s", info.impl);
    snprintf(r->ordering, sizeof r->ordering, "%s",
             po->type == EM_PC_ILU0 ? em_ordering_name(po->ordering) : "-");
    snprintf(r->prec, sizeof r->prec, "%s", po->prec == EM_PREC_SINGLE ? "single" : "double");
    r->study = study;
    r->t_setup = info.t_setup;
    r->levels_l = info.levels_lower;
    r->levels_u = info.levels_upper;
    r->colors = info.colors;
    r->pc_bytes = info.bytes;
    double ns, np;
    per_iteration(m, &ns, &np);
    double t_it = ns * B->spmv[be] + np * t_apply + 1e-5 * (be == EM_BACKEND_CUDA);
    double cap = fmin(be == EM_BACKEND_CUDA ? B->o.gpu_cap : B->o.cpu_cap, left(B) - 2);
    if (cap < 1) {
      snprintf(r->note, sizeof r->note, "skipped: time budget");
      r->skipped = 1;
      continue;
    }
    const run *twin = be == EM_BACKEND_CPU ? gpu_twin(B, r) : NULL;
    int target = twin ? twin->iterations : B->o.max_it;
    int max_it = B->o.max_it;
    if (t_it * target > cap) max_it = (int)fmax(3, cap / t_it);
    if (max_it > B->o.max_it) max_it = B->o.max_it;
    EM_TRY_GOTO(err, solve(B, op, pc, m, max_it, r), done);
    r->pc_spmv = r->pc_spmv > 0 ? r->pc_spmv : t_apply / B->spmv[be];
    if (max_it < B->o.max_it && !strcmp(r->reason, "max-iterations")) {
      if (twin && r->iterations_run > 0) { /* measured time per iteration, twin's count */
        double fixed = fmax(0, r->t_solve - r->t_it * r->iterations_run);
        r->t_solve = fixed + r->t_it * target;
        r->iterations = target;
        r->extrapolated = 1;
        snprintf(r->note, sizeof r->note, "cut at %d its, extrapolated to %d", r->iterations_run,
                 target);
      } else {
        snprintf(r->note, sizeof r->note, "stopped at the %.0f s cap", cap);
      }
    }
    em_log_info(&B->log, "bench: %s %s + %s (%s): %s, %d its, %.3f s%s", r->backend, r->method,
                r->pc, r->impl, r->reason, r->iterations, r->t_solve,
                r->extrapolated ? " (extrapolated)" : "");
  }
done:
  em_pc_destroy(&pc);
  return err;
}

/* ------------------------------------------------------ study and table */

/* BiCGSTAB + ILU(0) for each ordering; the fastest converged solve (or the
 * one with the lowest residual if none converged) picks the ordering */
static em_err ordering_study(bench *B, const em_operator *op, em_backend be) {
  char list[128];
  snprintf(list, sizeof list, "%s", B->o.orderings);
  double best = INFINITY;
  B->ordering = EM_ORDERING_NATURAL;
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    em_pc_ordering ord;
    EM_TRY(em_ordering_parse(tok, &ord));
    em_pc_opts po;
    em_pc_opts_default(&po);
    po.type = EM_PC_ILU0;
    po.ordering = ord;
    po.backend = be;
    po.block_size = B->o.block;
    po.trsv = EM_TRSV_LEVELS;
    po.shift = B->o.shift;
    int first = B->nruns;
    em_err err = pc_runs(B, op, be, &po, "bicgstab", 1);
    if (err) { /* an ordering that fails (zero pivot) is a result, not the end */
      em_log_warn(&B->log, "bench: ILU(0) with %s ordering failed: %s", tok, em_error_message());
      em_error_clear();
      run *r = new_run(B);
      if (!r) break;
      snprintf(r->backend, sizeof r->backend, "%s", be_name(be));
      snprintf(r->method, sizeof r->method, "bicgstab");
      snprintf(r->pc, sizeof r->pc, "ilu0");
      snprintf(r->ordering, sizeof r->ordering, "%s", tok);
      snprintf(r->note, sizeof r->note, "failed: %.50s", em_err_name(err));
      r->study = r->skipped = 1;
      continue;
    }
    for (int k = first; k < B->nruns; k++) {
      const run *r = &B->runs[k];
      double score = !strcmp(r->reason, "converged") ? r->t_solve : 1e6 + r->true_res;
      if (!r->skipped && score < best) best = score, B->ordering = ord;
    }
  }
  return EM_OK;
}

/* step 3: the methods with ILU(0) (each GPU triangular solve, then single
 * precision) and Jacobi, GPU and CPU, in order of importance: the runs the
 * budget cuts are the last ones */
static em_err main_table(bench *B, const em_operator ops[2]) {
  static const struct {
    em_backend be;
    em_pc_type type;
    em_pc_trsv trsv;
    em_prec prec;
  } plan[] = {
      {EM_BACKEND_CUDA, EM_PC_ILU0, EM_TRSV_LEVELS, EM_PREC_DOUBLE},
      {EM_BACKEND_CPU, EM_PC_ILU0, EM_TRSV_LEVELS, EM_PREC_DOUBLE},
      {EM_BACKEND_CUDA, EM_PC_ILU0, EM_TRSV_SYNCFREE, EM_PREC_DOUBLE},
      {EM_BACKEND_CUDA, EM_PC_ILU0, EM_TRSV_CUSPARSE, EM_PREC_DOUBLE},
      {EM_BACKEND_CUDA, EM_PC_ILU0, EM_TRSV_LEVELS, EM_PREC_SINGLE},
      {EM_BACKEND_CPU, EM_PC_ILU0, EM_TRSV_LEVELS, EM_PREC_SINGLE},
      {EM_BACKEND_CUDA, EM_PC_JACOBI, EM_TRSV_AUTO, EM_PREC_DOUBLE},
      {EM_BACKEND_CPU, EM_PC_JACOBI, EM_TRSV_AUTO, EM_PREC_DOUBLE},
  };
  for (size_t k = 0; k < sizeof plan / sizeof *plan; k++) {
    em_backend be = plan[k].be;
    if ((be == EM_BACKEND_CUDA && !B->have_gpu) || (be == EM_BACKEND_CPU && !B->o.use_cpu))
      continue;
    em_pc_opts po;
    em_pc_opts_default(&po);
    po.backend = be;
    po.type = plan[k].type;
    po.trsv = plan[k].trsv;
    po.prec = plan[k].prec;
    po.ordering = B->ordering;
    po.block_size = B->o.block;
    po.shift = B->o.shift;
    em_err err = pc_runs(B, &ops[be], be, &po, B->o.methods, 0);
    if (err) { /* report and go on: one broken variant must not lose the rest */
      em_log_warn(&B->log, "bench: %s %s (%s) failed", be_name(be), em_pc_type_name(po.type),
                  em_pc_trsv_name(po.trsv));
      em_error_print(stderr);
      em_error_clear();
      run *r = new_run(B);
      if (!r) break;
      snprintf(r->backend, sizeof r->backend, "%s", be_name(be));
      snprintf(r->pc, sizeof r->pc, "%s", em_pc_type_name(po.type));
      snprintf(r->impl, sizeof r->impl, "%s", em_pc_trsv_name(po.trsv));
      snprintf(r->note, sizeof r->note, "failed: %s", em_err_name(err));
      r->skipped = 1;
    }
  }
  return EM_OK;
}

/* --------------------------------------------------------------- reports */

static void print_table(const bench *B, FILE *f, int md) {
  if (md)
    fputs(
        "| backend | method | pc | impl | ordering | prec | its | reason | true res | setup s | "
        "solve s | ms/it | spmv | pc | vec | pc/SpMV | levels L/U | note |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        f);
  else
    fprintf(f,
            "%-4s %-8s %-6s %-14s %-8s %-6s %6s %-10s %9s %6s %8s %8s %7s %7s %7s %7s %11s  %s\n",
            "be", "method", "pc", "impl", "ordering", "prec", "its", "reason", "true res", "setup",
            "solve s", "ms/it", "spmv", "pc", "vec", "pc/spmv", "levels L/U", "note");
  for (int k = 0; k < B->nruns; k++) {
    const run *r = &B->runs[k];
    char lev[32];
    snprintf(lev, sizeof lev, "%d/%d", r->levels_l, r->levels_u);
    const char *fmt = md ? "| %s | %s | %s | %s | %s | %s | %d%s | %s | %.2e | %.2f | %.3f | "
                           "%.3f | %.3f | %.3f | %.3f | %.1f | %s | %s%s |\n"
                         : "%-4s %-8s %-6s %-14s %-8s %-6s %6d%s %-10.10s %9.2e %6.2f %8.3f %8.3f "
                           "%7.3f %7.3f %7.3f %7.1f %11s  %s%s\n";
    fprintf(f, fmt, r->backend, r->method, r->pc, r->impl, r->ordering, r->prec, r->iterations,
            r->extrapolated ? "*" : "", r->reason, r->true_res, r->t_setup, r->t_solve,
            1e3 * r->t_it, 1e3 * r->t_spmv_it, 1e3 * r->t_pc_it, 1e3 * r->t_vec_it, r->pc_spmv, lev,
            r->study ? "[ordering study] " : "", r->note);
  }
}

/* GPU over CPU for each GPU run with a CPU run of the same algorithm */
static void print_speedups(const bench *B, FILE *f, int md) {
  fprintf(
      f,
      md ? "\n| method | pc | GPU impl | ordering | prec | GPU solve s | CPU solve s | "
           "speedup (solve) | speedup (setup + solve) |\n|---|---|---|---|---|---|---|---|---|\n"
         : "\nspeedup GPU vs CPU (%d threads), same method, preconditioner, ordering:\n",
      B->threads);
  for (int g = 0; g < B->nruns; g++) {
    const run *G = &B->runs[g];
    if (strcmp(G->backend, "gpu") || G->skipped || G->study) continue;
    for (int c = 0; c < B->nruns; c++) {
      const run *C = &B->runs[c];
      if (strcmp(C->backend, "cpu") || C->skipped || strcmp(C->method, G->method) ||
          strcmp(C->pc, G->pc) || strcmp(C->ordering, G->ordering) || strcmp(C->prec, G->prec))
        continue;
      double s1 = C->t_solve / G->t_solve,
             s2 = (C->t_setup + C->t_solve) / (G->t_setup + G->t_solve);
      fprintf(f,
              md ? "| %s | %s | %s | %s | %s | %.3f | %.3f%s | %.1fx | %.1fx |\n"
                 : "  %-8s %-6s %-14s %-8s %-6s GPU %8.3f s  CPU %8.3f s%s  %6.1fx  "
                   "(with setup %5.1fx)\n",
              G->method, G->pc, G->impl, G->ordering, G->prec, G->t_solve, C->t_solve,
              C->extrapolated ? " (extrapolated)" : "", s1, s2);
    }
  }
}

static void write_json(const bench *B, FILE *f) {
  fprintf(f, "{\n  \"system\": {\"source\": \"%s\", \"n\": %d, \"nnz\": %lld, \"tol\": %g},\n",
          B->o.matrix ? B->o.matrix : "generated curl-curl", B->n, (long long)B->A->nnz, B->o.tol);
  fprintf(f, "  \"gpu\": \"%s\", \"cpu_threads\": %d,\n", B->have_gpu ? B->gpu.name : "none",
          B->threads);
  fprintf(f,
          "  \"spmv\": {\"cpu_s\": %.6e, \"cpu_gbs\": %.2f, \"gpu_s\": %.6e, \"gpu_gbs\": %.2f},\n",
          B->spmv[0], B->spmv_gbs[0], B->spmv[1], B->spmv_gbs[1]);
  fprintf(f, "  \"ordering\": \"%s\", \"ilu_shift\": %g,\n  \"runs\": [\n",
          em_ordering_name(B->ordering), B->o.shift);
  for (int k = 0; k < B->nruns; k++) {
    const run *r = &B->runs[k];
    fprintf(f,
            "    {\"backend\": \"%s\", \"method\": \"%s\", \"pc\": \"%s\", \"impl\": \"%s\", "
            "\"ordering\": \"%s\", \"prec\": \"%s\", \"study\": %d, \"skipped\": %d, "
            "\"reason\": \"%s\", \"iterations\": %d, \"iterations_run\": %d, "
            "\"extrapolated\": %d, \"true_rel_res\": %.3e, \"t_setup\": %.4f, \"t_solve\": %.4f, "
            "\"t_iteration\": %.6e, \"t_spmv_it\": %.6e, \"t_pc_it\": %.6e, \"t_vec_it\": %.6e, "
            "\"pc_spmv_equivalents\": %.2f, \"levels_lower\": %d, \"levels_upper\": %d, "
            "\"colors\": %d, \"pc_bytes\": %zu, \"note\": \"%s\"}%s\n",
            r->backend, r->method, r->pc, r->impl, r->ordering, r->prec, r->study, r->skipped,
            r->reason, r->iterations, r->iterations_run, r->extrapolated, r->true_res, r->t_setup,
            r->t_solve, r->t_it, r->t_spmv_it, r->t_pc_it, r->t_vec_it, r->pc_spmv, r->levels_l,
            r->levels_u, r->colors, r->pc_bytes, r->note, k + 1 < B->nruns ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
}

static em_err write_reports(const bench *B) {
  char path[1024];
  em_outfile of;
  EM_TRY(em_mkdir_p(B->o.out));
  snprintf(path, sizeof path, "%s/bench.json", B->o.out);
  EM_TRY(em_outfile_open(&of, path, 0));
  write_json(B, of.f);
  EM_TRY(em_outfile_commit(&of));
  snprintf(path, sizeof path, "%s/bench.md", B->o.out);
  EM_TRY(em_outfile_open(&of, path, 0));
  fprintf(of.f, "# Solver benchmark\n\nSystem: %s, n = %d, nnz = %lld (%.1f per row), tol %g.\n",
          B->o.matrix ? B->o.matrix : "generated Whitney curl-curl", B->n, (long long)B->A->nnz,
          B->n ? (double)B->A->nnz / B->n : 0, B->o.tol);
  fprintf(of.f, "GPU: %s. CPU: %d OpenMP threads.\n\n", B->have_gpu ? B->gpu.name : "none",
          B->threads);
  fprintf(of.f, "SpMV (CSR-vector operator): CPU %.3f ms (%.0f GB/s), GPU %.3f ms (%.0f GB/s).\n",
          1e3 * B->spmv[0], B->spmv_gbs[0], 1e3 * B->spmv[1], B->spmv_gbs[1]);
  fprintf(of.f,
          "Ordering for the main table: %s. Times per iteration in ms; `*`: "
          "extrapolated from a run cut by iterations.\n\n",
          em_ordering_name(B->ordering));
  print_table(B, of.f, 1);
  print_speedups(B, of.f, 1);
  EM_TRY(em_outfile_commit(&of));
  return EM_OK;
}

int main(int argc, char **argv) {
  bench *B = calloc(1, sizeof *B);
  em_spmat *c[2] = {NULL, NULL};
  em_operator ops[2];
  em_err err = EM_OK;
  int return_code = 0;
  if (!B) return 1;
  B->t0 = em_wtime();
  em_log_init(&B->log, stderr, EM_LOG_INFO);
  EM_TRY_GOTO(err, parse_args(argc, argv, &B->o), fail);
  EM_TRY_GOTO(err, load_system(B), fail);
  if (B->o.write_mtx) {
    int sym = symmetric_matrix(B->A);
    EM_TRY_GOTO(err, em_mtx_write(B->o.write_mtx, B->A, sym), fail);
    printf("matrix written to %s (%s, %s)\n", B->o.write_mtx,
           real_matrix(B->A) ? "real" : "complex", sym ? "symmetric" : "general");
  }
  if (B->o.write_only) goto fail; /* the cleanup */
  em_device cpu;
  EM_TRY_GOTO(err, em_device_open("cpu", NULL, &cpu), fail);
  B->threads = cpu.cpu_threads;
  if (B->o.use_gpu && em_device_open("gpu", &B->log, &B->gpu) == EM_OK) B->have_gpu = 1;
  em_error_clear();
  printf("system: n = %d, nnz = %lld (%.1f per row), loaded in %.1f s; GPU: %s; CPU: %d threads\n",
         B->n, (long long)B->A->nnz, B->n ? (double)B->A->nnz / B->n : 0, elapsed(B),
         B->have_gpu ? B->gpu.name : "none", B->threads);
  if (B->o.formats) { /* seed 000's study instead of steps 2 and 3 */
    char src[256];
    if (B->o.spd_n)
      snprintf(src, sizeof src, "SPD curl-curl + %g mass, order %d, %d^3 cells", B->o.spd_alpha,
               B->o.spd_order, B->o.spd_n);
    else
      snprintf(src, sizeof src, "%s", B->o.matrix ? B->o.matrix : "generated curl-curl");
    sf_opts so = {B->o.formats, B->o.methods, B->o.trsv,   B->o.use_cpu,
                  B->have_gpu,  B->o.tol,     B->o.max_it, EM_ORDERING_NATURAL,
                  B->o.shift,   src,          B->o.out,    B->o.strict};
    if (!B->have_gpu && !B->o.use_cpu) { /* a GPU-only study without a GPU: skipped */
      printf("format study: --no-cpu and no GPU answers: nothing to run (exit 77)\n");
      return_code = 77;
      goto fail;
    }
    if (B->o.ordering) EM_TRY_GOTO(err, em_ordering_parse(B->o.ordering, &so.ordering), fail);
    int wrong = 0;
    EM_TRY_GOTO(err, sf_study(B->A, B->b, &so, &wrong), fail);
    if (wrong) return_code = 3;
    goto fail; /* the cleanup */
  }
  for (int be = 0; be < 2; be++) {
    if ((be == EM_BACKEND_CUDA && !B->have_gpu) || (be == EM_BACKEND_CPU && !B->o.use_cpu))
      continue;
    EM_TRY_GOTO(err, csr_operator(B->A, (em_backend)be, &c[be], &ops[be]), fail);
    EM_TRY_GOTO(err, time_spmv(B, (em_backend)be), fail);
    printf("SpMV %s: %.3f ms, %.0f GB/s\n", be_name((em_backend)be), 1e3 * B->spmv[be],
           B->spmv_gbs[be]);
  }
  em_backend sb = B->have_gpu ? EM_BACKEND_CUDA : EM_BACKEND_CPU;
  EM_CHECK(B->have_gpu || B->o.use_cpu, EM_ERR_INPUT, "no backend left to run (--no-cpu, no GPU)");
  if (B->o.ordering)
    EM_TRY_GOTO(err, em_ordering_parse(B->o.ordering, &B->ordering), fail);
  else
    EM_TRY_GOTO(err, ordering_study(B, &ops[sb], sb), fail);
  printf("ordering for the main table: %s\n", em_ordering_name(B->ordering));
  EM_TRY_GOTO(err, main_table(B, ops), fail);
  printf("\n");
  print_table(B, stdout, 0);
  print_speedups(B, stdout, 0);
  EM_TRY_GOTO(err, write_reports(B), fail);
  printf("\nreports: %s/bench.json, %s/bench.md; total %.1f s\n", B->o.out, B->o.out, elapsed(B));
  /* a run that reports convergence with a true residual far above the
   * tolerance is a wrong result: the bench fails, so its smoke test can */
  int wrong = 0;
  for (int k = 0; k < B->nruns; k++) {
    const run *r = &B->runs[k];
    if (!strcmp(r->reason, "converged") && !(r->true_res <= 100 * B->o.tol)) {
      fprintf(stderr,
              "solve_bench: WRONG: %s %s + %s converged with true residual %.2e > 100 tol\n",
              r->backend, r->method, r->pc, r->true_res);
      wrong = 1;
    }
  }
  if (wrong && !err) return_code = 3;
fail:
  if (err) {
    em_error_print(stderr);
    if (err == EM_ERR_INPUT) usage();
  }
  em_spmat_destroy(&c[0]);
  em_spmat_destroy(&c[1]);
  em_csr_destroy(&B->A);
  em_free(&B->b);
  free(B);
  return err ? 1 : return_code;
}
