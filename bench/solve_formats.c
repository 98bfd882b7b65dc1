/* solve_formats.c - seed 000's experiment: the same ILU(0)-preconditioned
 * CG / BiCGSTAB solve with the operator's SpMV in each storage format.
 *
 * Per backend and triangular-solve implementation the ILU(0) factor is built
 * once (its set-up time, upload included, is counted in every row that uses
 * it); per format the operator is built from the host CSR (conversion and
 * upload timed), then each method solves from x = 0 (em_ksp_solve: b up,
 * x down and the true residual included).  total = operator + factor +
 * solve, wall clock: what a user waits for.  The ratio column divides each
 * total by that of the reference of its backend, triangular solve and
 * method: cuSPARSE CSR on the GPU, emsolve CSR on the CPU.  Ratios come
 * from one run, side by side. */
#include "solve_formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef EM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define SF_MAX 160

typedef struct sf_row {
  char be[4], fmt[32], trsv[16], method[12], reason[16], note[64];
  int its, ok;
  double res, t_op, t_pc, t_solve, total, spmv_ms, pc_ms, ratio;
} sf_row;

typedef struct sf_run {
  const em_csr *A;
  const em_cplx *b;
  const sf_opts *o;
  int real; /* A and b real: COCG is CG */
  sf_row r[SF_MAX];
  int n;
} sf_run;

static em_err sync_be(em_backend be) {
#ifdef EM_HAVE_CUDA
  if (be == EM_BACKEND_CUDA) EM_CUDA(cudaDeviceSynchronize());
#endif
  (void)be;
  return EM_OK;
}

/* The operator of one format token on a backend; *cs holds cuSPARSE's. */
static em_err make_op(const sf_run *R, const char *tok, em_backend be, em_spmat **M,
                      bench_csop **cs, em_operator *op, char *label, size_t nl) {
  if (!strcmp(tok, "cusparse")) {
#ifdef EM_HAVE_CUDA
    EM_CHECK(be == EM_BACKEND_CUDA, EM_ERR_UNSUPPORTED, "cuSPARSE runs on the GPU only");
    EM_TRY(bench_csop_create(R->A, cs, op));
    snprintf(label, nl, "cusparse csr");
    return EM_OK;
#else
    (void)cs;
    return EM_RAISE(EM_ERR_UNSUPPORTED, "this build has no CUDA (cuSPARSE)");
#endif
  }
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  EM_TRY(em_format_parse(tok, &so.format));
  so.backend = be;
  EM_TRY(em_spmat_create(R->A, &so, M));
  em_spmat_info info;
  em_spmat_get_info(*M, &info);
  const char *f = em_format_name(info.format);
  if (so.format == EM_FMT_AUTO)
    snprintf(label, nl, "auto: %s T=%d", f, info.threads_per_row);
  else if (info.threads_per_row > 1)
    snprintf(label, nl, "%s T=%d", f, info.threads_per_row);
  else if (info.ell_width > 0)
    snprintf(label, nl, "%s K=%d", f, info.ell_width);
  else
    snprintf(label, nl, "%s", f);
  return em_spmat_operator(*M, op);
}

/* One method with one operator and factor into a new row. */
static void solve_row(sf_run *R, em_backend be, const em_operator *op, em_pc *pc, const char *label,
                      const char *trsv, double t_op, double t_pc, const char *mtok) {
  if (R->n == SF_MAX) return;
  sf_row *w = &R->r[R->n++];
  memset(w, 0, sizeof *w);
  snprintf(w->be, sizeof w->be, "%s", be == EM_BACKEND_CUDA ? "gpu" : "cpu");
  snprintf(w->fmt, sizeof w->fmt, "%s", label);
  snprintf(w->trsv, sizeof w->trsv, "%s", trsv);
  em_ksp_method m;
  em_err err = em_ksp_method_parse(!strcmp(mtok, "cg") ? "cocg" : mtok, &m);
  snprintf(w->method, sizeof w->method, "%s",
           m == EM_KSP_COCG ? (R->real ? "cg" : "cocg") : em_ksp_method_name(m));
  em_cplx *x = NULL;
  em_ksp_stats st;
  memset(&st, 0, sizeof st);
  if (!err) err = em_calloc(&x, (size_t)R->A->n_rows + 1, sizeof *x, "solution");
  if (!err) {
    em_ksp_opts ko;
    em_ksp_opts_default(&ko);
    ko.method = m;
    ko.tol = R->o->tol;
    ko.max_it = R->o->max_it;
    double t0 = em_wtime();
    err = em_ksp_solve(op, pc, R->b, x, &ko, &st);
    w->t_solve = em_wtime() - t0;
  }
  em_free(&x);
  if (err) {
    snprintf(w->note, sizeof w->note, "failed: %.50s", em_error_message());
    snprintf(w->reason, sizeof w->reason, "error");
    em_error_clear();
    return;
  }
  w->ok = 1;
  w->its = st.iterations;
  w->res = st.true_rel_res;
  snprintf(w->reason, sizeof w->reason, "%s", em_ksp_reason_name(st.reason));
  w->t_op = t_op;
  w->t_pc = t_pc;
  w->total = t_op + t_pc + w->t_solve;
  w->spmv_ms = st.n_spmv ? 1e3 * st.t_spmv / (double)st.n_spmv : 0;
  w->pc_ms = st.n_pc ? 1e3 * st.t_pc / (double)st.n_pc : 0;
}

/* Every format with one factor (backend be, triangular solve trsv). */
static em_err run_factor(sf_run *R, em_backend be, em_pc_trsv trsv) {
  const sf_opts *o = R->o;
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_ILU0;
  po.backend = be;
  po.trsv = trsv;
  po.ordering = o->ordering;
  po.shift = o->shift;
  em_pc *pc = NULL;
  double t0 = em_wtime();
  EM_TRY(em_pc_create(R->A, &po, NULL, &pc));
  em_err err = sync_be(be);
  double t_pc = em_wtime() - t0;
  em_pc_info info;
  em_pc_get_info(pc, &info);
  char list[256];
  snprintf(list, sizeof list, "%s", o->formats);
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
    em_spmat *M = NULL;
    bench_csop *cs = NULL;
    em_operator op;
    char label[32];
    snprintf(label, sizeof label, "%s", tok);
    double t1 = em_wtime();
    em_err e = make_op(R, tok, be, &M, &cs, &op, label, sizeof label);
    if (!e) e = sync_be(be);
    double t_op = em_wtime() - t1;
    if (e) { /* a format this backend lacks is a row, not the end */
      if (R->n < SF_MAX) {
        sf_row *w = &R->r[R->n++];
        memset(w, 0, sizeof *w);
        snprintf(w->be, sizeof w->be, "%s", be == EM_BACKEND_CUDA ? "gpu" : "cpu");
        snprintf(w->fmt, sizeof w->fmt, "%s", tok);
        snprintf(w->trsv, sizeof w->trsv, "%s", info.impl);
        snprintf(w->reason, sizeof w->reason, "skipped");
        snprintf(w->note, sizeof w->note, "%.60s", em_error_message());
      }
      em_error_clear();
      continue;
    }
    char mlist[128];
    snprintf(mlist, sizeof mlist, "%s", o->methods);
    char *ms = NULL;
    for (char *m = strtok_r(mlist, ",", &ms); m; m = strtok_r(NULL, ",", &ms)) {
      solve_row(R, be, &op, pc, label, info.impl, t_op, t_pc, m);
      const sf_row *w = &R->r[R->n - 1];
      printf(
          "  %-3s %-22s %-14s %-9s %5d its %-14s res %.1e  total %8.4f s (op %.4f, ilu %.4f, "
          "solve %.4f)  spmv %.4f ms  %s\n",
          w->be, w->fmt, w->trsv, w->method, w->its, w->reason, w->res, w->total, w->t_op, w->t_pc,
          w->t_solve, w->spmv_ms, w->note);
      fflush(stdout);
    }
    em_spmat_destroy(&M);
#ifdef EM_HAVE_CUDA
    bench_csop_destroy(&cs);
#endif
  }
  em_pc_destroy(&pc);
  return err;
}

/* ratio = total / the reference's (same backend, trsv, method). */
static void ratios(sf_run *R) {
  for (int k = 0; k < R->n; k++) {
    sf_row *w = &R->r[k];
    const char *ref = !strcmp(w->be, "gpu") ? "cusparse csr" : "csr";
    for (int j = 0; j < R->n; j++) {
      const sf_row *q = &R->r[j];
      if (q->ok && w->ok && !strcmp(q->fmt, ref) && !strcmp(q->be, w->be) &&
          !strcmp(q->trsv, w->trsv) && !strcmp(q->method, w->method) && q->total > 0)
        w->ratio = w->total / q->total;
    }
  }
}

static void table(const sf_run *R, FILE *f, int md) {
  if (md)
    fputs(
        "| be | SpMV format | triangular solves | method | its | reason | true res | operator s "
        "| ILU(0) s | solve s | total s | SpMV ms | trsv ms | total / ref | note |\n"
        "|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
        f);
  else
    fprintf(f, "%-3s %-22s %-14s %-8s %5s %-14s %8s %8s %8s %8s %8s %8s %8s %6s  %s\n", "be",
            "format", "trsv", "method", "its", "reason", "true res", "op s", "ilu s", "solve s",
            "total s", "spmv ms", "trsv ms", "/ref", "note");
  for (int k = 0; k < R->n; k++) {
    const sf_row *w = &R->r[k];
    fprintf(f,
            md ? "| %s | %s | %s | %s | %d | %s | %.1e | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | "
                 "%.3f | %s |\n"
               : "%-3s %-22s %-14s %-8s %5d %-14s %8.1e %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %6.3f  "
                 "%s\n",
            w->be, w->fmt, w->trsv, w->method, w->its, w->reason, w->res, w->t_op, w->t_pc,
            w->t_solve, w->total, w->spmv_ms, w->pc_ms, w->ratio, w->note);
  }
}

static em_err write_md(const sf_run *R) {
  const sf_opts *o = R->o;
  char path[1024];
  EM_TRY(em_mkdir_p(o->out));
  snprintf(path, sizeof path, "%s/formats.md", o->out);
  em_outfile of;
  EM_TRY(em_outfile_open(&of, path, 0));
  fprintf(of.f,
          "# ILU(0) solves by SpMV format (seed 000)\n\nSystem: %s, n = %d, nnz = %lld, %s; "
          "tol %g, ordering %s, ILU shift %g.\nTimes are wall-clock seconds: operator = "
          "conversion + upload, ILU(0) = factor + analysis + upload (shared by the rows of one "
          "factor), solve = em_ksp_solve with b up and x down; total / ref = total over cuSPARSE "
          "CSR's (GPU) or emsolve CSR's (CPU) with the same triangular solves and method.\n\n",
          o->source, R->A->n_rows, (long long)R->A->nnz, R->real ? "real" : "complex", o->tol,
          em_ordering_name(o->ordering), o->shift);
  table(R, of.f, 1);
  EM_TRY(em_outfile_commit(&of));
  return EM_OK;
}

em_err sf_study(const em_csr *A, const em_cplx *b, const sf_opts *o, int *wrong) {
  sf_run *R = NULL;
  EM_TRY(em_calloc(&R, 1, sizeof *R, "format study"));
  R->A = A, R->b = b, R->o = o, R->real = 1;
  for (int64_t k = 0; k < A->nnz; k++)
    if (cimag(A->val[k]) != 0) R->real = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (cimag(b[i]) != 0) R->real = 0;
  printf("format study: %s, n = %d, nnz = %lld (%.1f per row), %s\n", o->source, A->n_rows,
         (long long)A->nnz, A->n_rows ? (double)A->nnz / A->n_rows : 0,
         R->real ? "real (cg = COCG = CG)" : "complex");
  em_err err = EM_OK;
  if (o->use_gpu) {
    char list[128];
    snprintf(list, sizeof list, "%s", o->trsv);
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
      em_pc_trsv tv;
      EM_TRY_GOTO(err, em_pc_trsv_parse(t, &tv), done);
      err = run_factor(R, EM_BACKEND_CUDA, tv);
    }
  }
  if (!err && o->use_cpu) err = run_factor(R, EM_BACKEND_CPU, EM_TRSV_AUTO);
  if (err) goto done;
  ratios(R);
  printf("\n");
  table(R, stdout, 0);
  *wrong = 0;
  for (int k = 0; k < R->n; k++) {
    const sf_row *w = &R->r[k];
    if (!strcmp(w->reason, "converged") && !(w->res <= 100 * o->tol)) {
      fprintf(stderr, "solve_bench: WRONG: %s %s %s converged with true residual %.2e\n", w->be,
              w->fmt, w->method, w->res);
      *wrong = 1;
    } else if (!strcmp(w->reason, "error") ||
               (o->strict && strcmp(w->reason, "converged") && strcmp(w->reason, "skipped"))) {
      fprintf(stderr, "solve_bench: FAILED: %s %s %s: %s %s\n", w->be, w->fmt, w->method, w->reason,
              w->note);
      *wrong = 1;
    }
  }
  if (o->out) err = write_md(R);
done:
  em_free(&R);
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}
