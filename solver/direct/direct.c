/* direct.c - the sparse direct solver's front end: options, input checks,
 * ordering + symbolic analysis with the memory estimate checked before
 * anything large is allocated, numeric factorization of the symmetric
 * part of A, solves in the operator's numbering, log lines. */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

void em_direct_opts_default(em_direct_opts *o) {
  memset(o, 0, sizeof *o);
  o->ordering = EM_ORDERING_ND;
  o->pivot_eps = 1e-8;
  o->shift = 0;
  o->kernels = EM_DIRECT_AUTO;
  o->threads = 0;
  o->mem_limit = 0;
  o->backend = EM_BACKEND_CPU;
  o->prec = EM_PREC_DOUBLE;
  em_nd_opts_default(&o->nd);
  o->progress_s = 10;
  /* streams and the level kernels' threads by the level (docs/solvers.md:
     on an H200 the DRA's one-column solve 27.6 -> 15.5 -> 8.0 ms with
     both and trinv, four columns 60.8 -> 31.7 -> 12.3 ms); with several
     columns only, the big supernodes' products by the own kernels and
     every wide triangle by its stored inverse (the 2 x 2 array's factor,
     four columns: 53.6 ms -> 35.1 ms per apply, one column 34 ms; its
     inverses 1.67 GiB, built in the set-up when the caller announces the
     block: em_direct_opts.block_columns), their product by the own kernel
     in double (trinv_own: the block's residual after the same applies as
     one column's by TRSM, 3e-10 .. 2e-9, where the single GEMM left 1e-9
     .. 1e-8 and a column in three runs took another half-iteration) */
  o->gsolve = (em_direct_gsolve){0, 2, 1, 0, 2, -1, 0, 0, 2};
}

void em_direct_set_gsolve(em_direct *F, const em_direct_gsolve *g) {
  if (F && g) F->opts.gsolve = *g;
}

void em_direct_gprofile_get(const em_direct *F, em_direct_gprofile *p) {
  memset(p, 0, sizeof *p);
  if (F && F->be && F->be->direct_gprofile_get) F->be->direct_gprofile_get(F, p);
}

void em_direct_gprofile_reset(em_direct *F) {
  if (F && F->be && F->be->direct_gprofile_reset) F->be->direct_gprofile_reset(F);
}

const char *em_direct_gprofile_part(em_dgp_part p) {
  static const char *const names[EM_DGP_PARTS] = {
      "permute-in", "fwd-level", "fwd-copy", "fwd-trsm", "fwd-prod",  "fwd-scatter", "diag",
      "bwd-gather", "bwd-prod",  "bwd-trsm", "bwd-copy", "bwd-level", "permute-out"};
  return p >= 0 && p < EM_DGP_PARTS ? names[p] : "?";
}

double em_direct_mem_available(const em_direct_opts *o) {
  if (o->mem_limit > 0) return o->mem_limit;
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

/* The options checked, and the table of their backend in *be. */
static em_err check_opts(const em_direct_opts *o, const em_sv_backend **be) {
  EM_CHECK(o->ordering >= EM_ORDERING_NATURAL && o->ordering <= EM_ORDERING_BMC, EM_ERR_ARG,
           "em_direct: unknown ordering %d", (int)o->ordering);
  EM_CHECK(o->pivot_eps >= 0 && o->pivot_eps < 1, EM_ERR_ARG,
           "em_direct: pivot_eps = %g must be in [0, 1)", o->pivot_eps);
  EM_CHECK(o->shift >= 0 && isfinite(o->shift), EM_ERR_ARG,
           "em_direct: shift = %g must be finite and >= 0", o->shift);
  EM_CHECK(o->kernels >= EM_DIRECT_AUTO && o->kernels <= EM_DIRECT_BLAS, EM_ERR_ARG,
           "em_direct: unknown kernels %d", (int)o->kernels);
  EM_CHECK(o->kernels != EM_DIRECT_BLAS || em_direct_blas_built(), EM_ERR_UNSUPPORTED,
           "em_direct: BLAS kernels requested but this build has no BLAS");
  EM_CHECK(o->threads >= 0, EM_ERR_ARG, "em_direct: threads = %d must be >= 0", o->threads);
  EM_CHECK(o->mem_limit >= 0, EM_ERR_ARG, "em_direct: mem_limit = %g must be >= 0", o->mem_limit);
  EM_TRY(em_sv_backend_get(o->backend, "em_direct", "the GPU factorization", be));
  EM_CHECK(o->prec == EM_PREC_DOUBLE || (*be)->single_factor, EM_ERR_UNSUPPORTED,
           "em_direct: a complex single factor (Solver/precision mixed) is built on the GPU "
           "only; the CPU factors in complex double");
  EM_CHECK(o->prec == EM_PREC_DOUBLE || o->prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_direct: unknown precision %d", (int)o->prec);
  return EM_OK;
}

/* Every row and every column of the pattern holds an entry. */
static em_err check_pattern(const em_csr *A) {
  em_err err = EM_OK;
  char *col = NULL;
  EM_TRY(em_calloc(&col, (size_t)A->n_cols + 1, 1, "column marks"));
#pragma omp parallel for schedule(static) if (A->nnz > 200000)
  for (int64_t p = 0; p < A->nnz; p++) {
#pragma omp atomic write
    col[A->colind[p]] = 1;
  }
  for (int32_t i = 0; i < A->n_rows; i++)
    if (A->rowptr[i + 1] == A->rowptr[i] || !col[i]) {
      err = EM_RAISE(EM_ERR_NUMERIC,
                     "direct factorization: %s %d of the matrix holds no entry (structurally "
                     "singular)",
                     A->rowptr[i + 1] == A->rowptr[i] ? "row" : "column", i);
      break;
    }
  em_free(&col);
  return err;
}

static void log_symbolic(const em_direct *F, const em_log *log) {
  const em_direct_info *in = &F->info;
  em_log_info(log, "direct: %s ordering %.2f s (%d rows as %d supervariables); symbolic %.2f s",
              em_ordering_name(in->ordering), in->t_order, in->n, in->n_sv, in->t_symbolic);
  em_log_info(log,
              "direct: n = %d, %d supernodes (widest %d, largest front %d), nnz(L) = %lld "
              "(%lld stored, %.1f x nnz(tril A)), %.2f GFlop, factor %.2f GiB, peak ~%.2f GiB",
              in->n, in->supernodes, in->max_cols, in->max_front, (long long)in->nnz_l,
              (long long)in->nnz_stored,
              in->nnz_a > 0 ? (double)in->nnz_l / (double)in->nnz_a : 0.0, in->flops * 1e-9,
              (double)in->bytes_factor / GIB, (double)in->bytes_peak / GIB);
}

/* Memory of the factor and the estimated peak of the numeric phase: the
 * frontal stack of a sequential postorder plus one largest update matrix
 * per other thread (an estimate: concurrent subtrees may hold more), the
 * kernel workspaces, the solve work, and the triplets of (A + A^T) / 2 for
 * a pattern that is not symmetric (a matrix with a symmetric pattern and
 * asymmetric values costs one more copy of A, not counted). */
static void memory_estimate(em_direct *F, int pattern_symmetric, int64_t nnz) {
  const em_dsym *S = &F->S;
  int nt = F->threads;
  double factor = 16.0 * (double)S->lptr[S->ns] + 16.0 * S->n + 4.0 * 2 * (double)S->rptr[S->ns] +
                  8.0 * 6 * S->ns + 4.0 * 2 * S->n;
  double stack = 16.0 * ((double)S->cb_peak + (double)(nt - 1) * (double)S->cb_max);
  double work = 8.0 * nt * (double)EM_DK_WS + 16.0 * (double)em_direct_solve_work(F);
  double sym = pattern_symmetric ? 0 : 48.0 * (double)nnz; /* triplets of (A + A^T) / 2 */
  F->info.bytes_factor = (size_t)factor;
  F->info.bytes_peak = (size_t)(factor + stack + work + sym);
}

/* The analysis' memory estimate against what the host has now: the GPU
 * factor may go on without the host's peak (host_short: no fallback), the
 * host factor may not (EM_ERR_MEMORY). */
em_err em_direct_memory_check(em_direct *F, const em_log *log) {
  const em_direct_opts *o = &F->opts;
  const em_direct_info *in = &F->info;
  const em_sv_backend *be = F->be;
  double avail = em_direct_mem_available(o);
  F->host_short = 0;
  if (avail > 0 && (double)in->bytes_peak > avail && !be->host && o->mem_limit <= 0) {
    /* the GPU path needs the host's frontal stack only if it falls back to
       the host: the GPU estimate decides (em_dgpu_estimate), the fallback
       is refused then (em_direct_factor) */
    F->host_short = 1;
    em_log_verbose(log,
                   "direct: the host factorization's peak (~%.2f GiB) exceeds the %.2f GiB "
                   "available: the GPU factors, or nothing does",
                   (double)in->bytes_peak / GIB, avail / GIB);
  } else if (avail > 0 && (double)in->bytes_peak > avail) {
    em_err err = EM_RAISE(EM_ERR_MEMORY,
                          "direct factorization needs %.2f GiB for L (nnz(L) = %lld, %lld entries "
                          "stored) and %.2f GiB in all, more than the %.2f GiB %s (%s ordering%s)",
                          (double)in->bytes_factor / GIB, (long long)in->nnz_l,
                          (long long)in->nnz_stored, (double)in->bytes_peak / GIB, avail / GIB,
                          o->mem_limit > 0 ? "allowed (mem_limit)" : "available (MemAvailable)",
                          em_ordering_name(o->ordering),
                          o->ordering == EM_ORDERING_ND ? "" : "; 'nd' fills far less");
    return err;
  }
  return EM_OK;
}

em_err em_direct_analyse(const em_csr *A, const em_direct_opts *o, const em_log *log,
                         em_direct **out) {
  EM_CHECK(out, EM_ERR_ARG, "em_direct_analyse: NULL result pointer");
  *out = NULL;
  EM_CHECK(A && o, EM_ERR_ARG, "em_direct_analyse: NULL matrix or options");
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_ARG,
           "em_direct_analyse: the matrix is %d x %d, LDL^T needs a square one", A->n_rows,
           A->n_cols);
  const em_sv_backend *be = NULL;
  EM_TRY(check_opts(o, &be));
  em_stage_begin(log, EM_STAGE_ORDERING);
  em_err err = em_csr_check(A, "direct factorization matrix");
  if (!err) err = check_pattern(A);
  if (err) {
    em_stage_end(log, EM_STAGE_ORDERING, NULL);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  em_direct *F = NULL;
  em_graph g = {0};
  em_graph_quot q = {0};
  int32_t *pord = NULL;
  int colors = 0;
  EM_TRY(em_calloc(&F, 1, sizeof *F, "direct solver"));
  F->opts = *o;
  F->be = be;
#ifdef _OPENMP
  F->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
#else
  F->threads = 1;
#endif
  F->kind = o->kernels == EM_DIRECT_BLAS ? EM_DK_BLAS : em_dk_best();
  double t0 = em_wtime();
  if (o->pattern_symmetric) /* the caller's word: A's arrays are the graph (em_graph_of) */
    g = (em_graph){A->n_rows, A->rowptr, A->colind, 0};
  else
    EM_TRY_GOTO(err, em_graph_of(A, &g), fail);
  double tg = em_wtime() - t0;
  EM_TRY_GOTO(err, em_calloc(&pord, (size_t)A->n_rows + 1, sizeof *pord, "ordering"), fail);
  em_nd_info ndi = {A->n_rows, A->n_rows, 0, 0};
  if (o->ordering == EM_ORDERING_ND) /* on the supervariables, kept for the analysis */
    EM_TRY_GOTO(err, em_order_nd_quot(g.n, g.ptr, g.adj, &o->nd, pord, &ndi, &q), fail);
  else
    EM_TRY_GOTO(err, em_graph_order(&g, o->ordering, 16, pord, &colors), fail);
  double t1 = em_wtime();
  em_stage_end(log, EM_STAGE_ORDERING,
               "%s of %d rows (%d supervariables; graph %.2f s, compression %.2f s, ordering "
               "%.2f s)",
               em_ordering_name(o->ordering), A->n_rows, ndi.n_sv, tg, ndi.t_compress, ndi.t_metis);
  em_stage_begin(log, EM_STAGE_SYMBOLIC);
  EM_TRY_GOTO(err, em_dsym_build_quot(&g, &q, pord, &F->S), fail);
  em_graph_quot_free(&q);
  double t2 = em_wtime();
  em_stage_end(log, EM_STAGE_SYMBOLIC, "%d supernodes, nnz(L) %lld", F->S.ns,
               (long long)F->S.nnz_l);
  em_direct_info *in = &F->info;
  const em_dsym *S = &F->S;
  in->n = S->n;
  in->ordering = o->ordering;
  in->kernels = em_dk_name(F->kind);
  in->threads = F->threads;
  in->supernodes = S->ns;
  in->max_front = S->max_front;
  in->max_cols = S->max_cols;
  in->nnz_a = S->nnz_a;
  in->nnz_l = S->nnz_l;
  in->nnz_stored = S->ns > 0 ? S->lptr[S->ns] : 0;
  in->flops = S->flops;
  in->solve_flops = S->solve_flops;
  in->t_order = t1 - t0;
  in->n_sv = ndi.n_sv;
  in->t_symbolic = t2 - t1;
  in->where = "cpu";
  memory_estimate(F, !g.owned, A->nnz);
  log_symbolic(F, log);
  EM_TRY_GOTO(err, em_direct_memory_check(F, log), fail);
  em_graph_free(&g);
  em_free(&pord);
  *out = F;
  return EM_OK;
fail:
  em_stage_end(log, EM_STAGE_SYMBOLIC, NULL); /* whichever is open */
  em_stage_end(log, EM_STAGE_ORDERING, NULL);
  em_graph_quot_free(&q);
  em_graph_free(&g);
  em_free(&pord);
  em_direct_destroy(&F);
  return err;
}

/* ||A||_max, and EM_ERR_NUMERIC for a non-finite entry or a row or column
 * of zeros (the first such row in row order; rows in parallel). */
static em_err check_values(const em_csr *A, double *anorm) {
  em_err err = EM_OK;
  char *col = NULL;
  EM_TRY(em_calloc(&col, (size_t)A->n_cols + 1, 1, "column marks"));
  double amax2 = 0;
  int32_t bad_row = INT32_MAX, zero_row = INT32_MAX;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max      \
                                                           : amax2) \
    reduction(min                                                   \
              : bad_row, zero_row) if (A->nnz > 200000)
  for (int32_t i = 0; i < A->n_rows; i++) {
    int row = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      double re = creal(A->val[p]), im = cimag(A->val[p]), a2 = re * re + im * im;
      if (!isfinite(a2)) { /* overflowing squares too: |a| > 1e154 is no FEM entry */
        if (i < bad_row) bad_row = i;
        row = 1;
        break;
      }
      if (a2 > 0) {
        row = 1;
#pragma omp atomic write
        col[A->colind[p]] = 1;
      }
      if (a2 > amax2) amax2 = a2;
    }
    if (!row && i < zero_row) zero_row = i;
  }
  if (bad_row < zero_row) {
    for (int64_t p = A->rowptr[bad_row]; p < A->rowptr[bad_row + 1]; p++) {
      double re = creal(A->val[p]), im = cimag(A->val[p]);
      if (isfinite(re * re + im * im)) continue;
      err = EM_RAISE(EM_ERR_NUMERIC, "direct factorization: entry (%d, %d) is %s", bad_row,
                     A->colind[p], isfinite(re) && isfinite(im) ? "too large" : "not finite");
      break;
    }
  } else if (zero_row < INT32_MAX) {
    err = EM_RAISE(EM_ERR_NUMERIC, "direct factorization: row %d of the matrix is zero (singular)",
                   zero_row);
  }
  for (int32_t j = 0; j < A->n_cols && !err; j++)
    if (!col[j])
      err = EM_RAISE(EM_ERR_NUMERIC,
                     "direct factorization: column %d of the matrix is zero (singular)", j);
  em_free(&col);
  *anorm = sqrt(amax2);
  return err;
}

/* Position of column i in row j, or -1 */
static int64_t find_entry(const em_csr *A, int32_t j, int32_t i) {
  int64_t lo = A->rowptr[j], hi = A->rowptr[j + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colind[mid] == i) return mid;
    if (A->colind[mid] < i)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* a_ji, or 0 when row j does not hold column i */
static em_cplx entry(const em_csr *A, int32_t j, int32_t i) {
  int64_t q = find_entry(A, j, i);
  return q >= 0 ? A->val[q] : 0;
}

/* max |a_ij - a_ji| (an entry without its mirror counts whole), and
 * whether the pattern is symmetric: every off-diagonal entry finds its
 * mirror by a binary search in the other row, rows in parallel.  mirror
 * (NULL: none) keeps where each was found (fill 1: the first call) for the
 * next calls (fill 0), which look there first (issue 24: the searches were
 * over half of a sweep's later value checks) and search only where the
 * column found is not i: the same answer for any pattern.  First the
 * upper entries alone (j > i), each also filling its mirror's place:
 * a_ji - a_ij is -(a_ij - a_ji) exactly, so when every upper entry finds a
 * mirror and the mirrors are all the lower entries (2 x matched =
 * off-diagonal entries: a symmetric pattern, the FEM's) their maximum is
 * the whole one, bit for bit, at half the lookups; else the full pass. */
static int64_t mirror_of(const em_csr *A, const int32_t *mirror, int fill, int32_t i, int32_t j,
                         int64_t p) {
  int64_t q = -1;
  if (mirror && !fill && mirror[p] >= 0) {
    int64_t c = A->rowptr[j] + mirror[p];
    if (c < A->rowptr[j + 1] && A->colind[c] == i) q = c;
  }
  return q < 0 ? find_entry(A, j, i) : q;
}

static em_err asymmetry(const em_csr *A, int32_t *mirror, int fill, double *asym,
                        int *pattern_symmetric) {
  double amax2 = 0;
  int64_t matched = 0, off = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : amax2) \
    reduction(+ : matched, off) if (A->nnz > 200000)
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t j = A->colind[p];
      if (j == i) {
        if (mirror && fill) mirror[p] = -1;
        continue;
      }
      off++;
      if (j < i) continue;
      int64_t q = mirror_of(A, mirror, fill, i, j, p);
      em_cplx dv = A->val[p];
      if (q >= 0) {
        dv -= A->val[q];
        matched += 2;
        if (mirror && fill) { /* q is p's mirror's only: no other thread writes it */
          mirror[p] = (int32_t)(q - A->rowptr[j]);
          mirror[q] = (int32_t)(p - A->rowptr[i]);
        }
      }
      double a2 = creal(dv) * creal(dv) + cimag(dv) * cimag(dv);
      if (a2 > amax2) amax2 = a2;
    }
  if (matched == off) {
    *asym = sqrt(amax2);
    *pattern_symmetric = 1;
    return EM_OK;
  }
  amax2 = 0, matched = 0, off = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : amax2) \
    reduction(+ : matched, off) if (A->nnz > 200000)
  for (int32_t i = 0; i < A->n_rows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t j = A->colind[p];
      if (j == i) {
        if (mirror && fill) mirror[p] = -1;
        continue;
      }
      off++;
      int64_t q = mirror_of(A, mirror, fill, i, j, p);
      if (mirror && fill) mirror[p] = q >= 0 ? (int32_t)(q - A->rowptr[j]) : -1;
      em_cplx dv = A->val[p];
      if (q >= 0) {
        dv -= A->val[q];
        matched++;
      }
      double a2 = creal(dv) * creal(dv) + cimag(dv) * cimag(dv);
      if (a2 > amax2) amax2 = a2;
    }
  *asym = sqrt(amax2);
  *pattern_symmetric = matched == off;
  return EM_OK;
}

/* Symmetric equilibration (Ruiz 2001): r_i <- r_i / sqrt(max_j |r_i a_ij
 * r_j|), twice, so that every entry of diag(r) A diag(r) is at most 1 and
 * every row's largest is close to 1.  Real positive r keeps A complex
 * symmetric; the pivot threshold then means the same in every row, whether
 * its entries come from a tiny element, a PML layer or a high-order basis
 * function.  Returns max |s_ij| of the scaled matrix in *smax. */
static em_err equilibrate(const em_csr *A, double *r, double *smax) {
  int32_t n = A->n_rows;
  double *rmax = NULL;
  EM_TRY(em_calloc(&rmax, (size_t)n + 1, sizeof *rmax, "equilibration"));
  for (int32_t i = 0; i < n; i++) r[i] = 1;
  for (int it = 0; it < 3; it++) {
    double big = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : big) if (A->nnz > 200000)
    for (int32_t i = 0; i < n; i++) {
      double m2 = 0;
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        double re = creal(A->val[p]), im = cimag(A->val[p]), rj = r[A->colind[p]];
        m2 = fmax(m2, (re * re + im * im) * rj * rj);
      }
      rmax[i] = sqrt(m2) * r[i];
      big = fmax(big, rmax[i]);
    }
    *smax = big;
    if (it == 2) break; /* the third pass only measures */
    for (int32_t i = 0; i < n; i++)
      if (rmax[i] > 0) r[i] /= sqrt(rmax[i]);
  }
  em_free(&rmax);
  return EM_OK;
}

/* S = (A + A^T) / 2 + j shift |diag(A)| */
static em_err symmetric_part(const em_csr *A, int pattern_symmetric, double shift, em_csr **S) {
  if (pattern_symmetric) {
    EM_TRY(em_csr_copy(A, S));
#pragma omp parallel for schedule(dynamic, 1024) if (A->nnz > 200000)
    for (int32_t i = 0; i < A->n_rows; i++)
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        (*S)->val[p] = 0.5 * (A->val[p] + entry(A, A->colind[p], i));
  } else {
    em_err err = EM_OK;
    int32_t *ti = NULL, *tj = NULL;
    em_cplx *tv = NULL;
    size_t nt = 2 * (size_t)A->nnz;
    EM_TRY(em_calloc(&ti, nt + 1, sizeof *ti, "symmetric part"));
    EM_TRY_GOTO(err, em_calloc(&tj, nt + 1, sizeof *tj, "symmetric part"), done);
    EM_TRY_GOTO(err, em_calloc(&tv, nt + 1, sizeof *tv, "symmetric part"), done);
    size_t q = 0;
    for (int32_t i = 0; i < A->n_rows; i++)
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        ti[q] = i, tj[q] = A->colind[p], tv[q++] = 0.5 * A->val[p];
        ti[q] = A->colind[p], tj[q] = i, tv[q++] = 0.5 * A->val[p];
      }
    EM_TRY_GOTO(err, em_csr_from_triplets(A->n_rows, A->n_cols, (int64_t)q, ti, tj, tv, S), done);
  done:
    em_free(&ti);
    em_free(&tj);
    em_free(&tv);
    if (err) return err;
  }
  if (shift > 0)
    for (int32_t i = 0; i < (*S)->n_rows; i++)
      for (int64_t p = (*S)->rowptr[i]; p < (*S)->rowptr[i + 1]; p++)
        if ((*S)->colind[p] == i) (*S)->val[p] += I * shift * cabs((*S)->val[p]);
  return EM_OK;
}

static em_err factor(em_direct *F, const em_csr *A, const em_log *log);

/* The host's numeric phase: L and D in host arrays, allocated at the first
 * factorization (fresh zero pages: the fronts need not clear their
 * blocks), kept for the next. */
em_err em_direct_numeric_cpu(em_direct *F, const em_csr *M, const double *r, double smax,
                             const em_log *log) {
  int zeroed = 0;
  if (!F->lval && F->S.n > 0) {
    EM_TRY(em_calloc(&F->lval, (size_t)F->S.lptr[F->S.ns], sizeof *F->lval, "factor L"));
    zeroed = 1;
  }
  if (!F->d) EM_TRY(em_calloc(&F->d, (size_t)F->S.n + 1, sizeof *F->d, "factor D"));
  EM_TRY(em_direct_numeric(F, M, r, smax, zeroed, log)); /* a progress line every 10 s */
  return EM_OK;
}

em_err em_direct_factor(em_direct *F, const em_csr *A, const em_log *log) {
  EM_CHECK(F && A, EM_ERR_ARG, "em_direct_factor: NULL factor or matrix");
  EM_CHECK(A->n_rows == F->S.n && A->n_cols == F->S.n, EM_ERR_ARG,
           "em_direct_factor: the matrix is %d x %d, the analysis was for order %d", A->n_rows,
           A->n_cols, F->S.n);
  em_stage_begin(log, EM_STAGE_NUMERIC);
  em_err err = factor(F, A, log);
  em_stage_end(log, EM_STAGE_NUMERIC, "n = %d, %.1f GFlop%s", F->S.n, F->info.flops * 1e-9,
               F->info.where && !strcmp(F->info.where, "gpu") ? " on the GPU" : "");
  return err;
}

em_err em_direct_checks(em_direct *F, const em_csr *A, em_direct_chk *c) {
  c->anorm = c->asym = 0;
  c->psym = 1;
  double t0 = em_wtime();
  EM_TRY(check_values(A, &c->anorm));
  int fill = 0;
  if (F->mirror_nnz != A->nnz) { /* the first test (or another matrix): the map made, when it
                                    takes at most 1/16 of the host's available memory */
    em_free(&F->mirror);
    F->mirror_nnz = 0;
    double avail = em_host_mem_available();
    if (avail <= 0 || 4.0 * (double)A->nnz <= avail / 16) {
      if (em_calloc(&F->mirror, (size_t)A->nnz + 1, sizeof *F->mirror, "transposed entries"))
        em_error_clear(); /* without it: the searches */
      else
        F->mirror_nnz = A->nnz, fill = 1;
    }
  }
  double t1 = em_wtime();
  EM_TRY(asymmetry(A, F->mirror, fill, &c->asym, &c->psym));
  EM_CHECK(c->psym || !F->opts.pattern_symmetric, EM_ERR_INTERNAL,
           "direct factorization: the pattern was analysed as symmetric on the caller's word "
           "(pattern_symmetric), but it is not");
  c->t_values = t1 - t0;
  c->t_sym = em_wtime() - t1;
  return EM_OK;
}

/* The checks' results into F's info, the warning for an asymmetric A. */
static void checks_info(em_direct *F, const em_direct_chk *c, const em_log *log) {
  F->info.anorm = c->anorm;
  F->info.asymmetry = c->anorm > 0 ? c->asym / c->anorm : 0;
  if (F->info.asymmetry > 1e-10)
    em_log_warn(log,
                "direct: the matrix is not complex symmetric (max |a_ij - a_ji| = %.2e ||A||_max):"
                " factoring its symmetric part",
                F->info.asymmetry);
}

/* The numeric factorization of A, or of its symmetric part (c: the
 * checks' results, or beside 1: A taken as symmetric while they run):
 * equilibration, the numeric phase on the GPU (falling back to the host)
 * or the host. */
static em_err numeric_of(em_direct *F, const em_csr *A, const em_direct_chk *c, int beside,
                         double t0, const em_log *log) {
  em_err err = EM_OK;
  em_csr *S = NULL;
  const em_csr *M = A;
  if (c->asym > 0 || F->opts.shift > 0) {
    EM_TRY(symmetric_part(A, c->psym, F->opts.shift, &S));
    M = S;
  }
  if (!F->scale)
    EM_TRY_GOTO(err, em_calloc(&F->scale, (size_t)F->S.n + 1, sizeof *F->scale, "scaling"), done);
  if (!F->scale_old)
    EM_TRY_GOTO(err, em_calloc(&F->scale_old, (size_t)F->S.n + 1, sizeof *F->scale, "scaling"),
                done);
  double t1 = em_wtime();
  double smax = 0;
  EM_TRY_GOTO(err, equilibrate(M, F->scale_old, &smax), done);
  for (int32_t i = 0; i < F->S.n; i++) F->scale[F->S.perm[i]] = F->scale_old[i];
  /* a line of its own: at 1M unknowns the value checks, the symmetry test
     (a transposed lookup per entry) and the equilibration take ~0.5 s */
  if (beside)
    em_log_verbose(log,
                   "direct: equilibrated in %.2f s; the value checks and the symmetry test "
                   "beside the factorization",
                   em_wtime() - t1);
  else
    em_log_verbose(log,
                   "direct: values checked (%.2f s), symmetric to %.1e (%.2f s), equilibrated "
                   "(%.2f s) in %.2f s",
                   c->t_values, F->info.asymmetry, c->t_sym, em_wtime() - t1, em_wtime() - t0);
  err = F->be->direct_numeric(F, M, F->scale_old, smax, log);
  if (err == EM_ERR_GPU_MEMORY && !F->gpu) { /* the first factor does not fit */
    if (F->host_short) {                     /* nor on the host */
      char why[256];                         /* the shortage: raising overwrites the message */
      snprintf(why, sizeof why, "%s", em_error_message());
      err =
          EM_RAISE(EM_ERR_MEMORY,
                   "direct factorization fits neither the GPU (%s) nor the host: %.2f GiB "
                   "peak on the host, more than the %.2f GiB available (MemAvailable)",
                   why, (double)F->info.bytes_peak / GIB, em_direct_mem_available(&F->opts) / GIB);
      goto done;
    }
    err =
        em_sv_fallback(&F->be, err, log, "factoring on the host (%d threads) instead", F->threads);
    if (!err) err = F->be->direct_numeric(F, M, F->scale_old, smax, log);
  }
  if (err) {
    em_error_trace(err, __FILE__, __LINE__);
    goto done;
  }
  F->info.where = F->be->where;
  double t2 = em_wtime();
  F->info.t_numeric = t2 - t0;
  char kernels[96];
  if (!F->be->host)
    snprintf(kernels, sizeof kernels, "%s, complex %s", F->be->name,
             F->opts.prec == EM_PREC_SINGLE ? "single" : "double");
  else
    snprintf(kernels, sizeof kernels, "%s, %d threads", F->info.kernels, F->threads);
  em_log_info(log,
              "direct: numeric factorization %.2f s (%.2f s in the fronts, %.1f GFlop/s, %s), "
              "%lld pivots perturbed (|d| < %.1e, equilibrated)",
              t2 - t0, t2 - t1, t2 > t1 ? F->info.flops * 1e-9 / (t2 - t1) : 0.0, kernels,
              (long long)F->info.perturbed, F->opts.pivot_eps);
  if (F->info.perturbed > 0)
    em_log_warn(log,
                "direct: %lld tiny pivots replaced by %.1e (equilibrated matrix): the "
                "factorization is a preconditioner, not an exact inverse",
                (long long)F->info.perturbed, F->opts.pivot_eps);
done:
  em_csr_destroy(&S);
  return err;
}

/* em_direct_factor: the checks (value checks, symmetry test), then the
 * numeric factorization of A or of its symmetric part.  With the factor
 * on a device (and no shift; EMSOLVE_CHECKS_BESIDE=1: on the host too,
 * for the tests) the checks run on a host thread beside it
 * (direct_beside.c), A taken as complex symmetric as the FEM makes it:
 * when they find it is not, the symmetric part is factored after, as in
 * order; when they fail, their error is the result (raised again here,
 * where the in-order run raises it).  The factor is the in-order one, bit
 * for bit, either way. */
static em_err factor(em_direct *F, const em_csr *A, const em_log *log) {
  EM_TRY(em_csr_check(A, "direct factorization matrix"));
  double t0 = em_wtime();
  F->t_factor = t0;
  F->factored = 0;
  em_direct_chk c = {0, 0, 1, 0, 0}, got;
  em_direct_beside *b = NULL;
  if (F->opts.shift > 0 || em_direct_beside_start(F, A, &b)) {
    EM_TRY(em_direct_checks(F, A, &c));
    checks_info(F, &c, log);
    EM_TRY(numeric_of(F, A, &c, 0, t0, log));
    F->factored = 1;
    return EM_OK;
  }
  em_err err = numeric_of(F, A, &c, 1, t0, log); /* A as complex symmetric */
  em_err cerr = em_direct_beside_join(&b, &got, log);
  if (cerr) { /* again on this thread: the error and its message in order */
    em_err again = em_direct_checks(F, A, &got);
    if (again) return em_error_trace(again, __FILE__, __LINE__);
    return EM_RAISE(EM_ERR_INTERNAL,
                    "direct factorization: the checks failed beside the factorization, not in "
                    "order");
  }
  EM_TRY(err);
  checks_info(F, &got, log);
  if (got.asym > 0) { /* not symmetric: its symmetric part, as in order */
    em_log_verbose(log,
                   "direct: the symmetry test beside found A not symmetric: its symmetric "
                   "part factored again");
    EM_TRY(numeric_of(F, A, &got, 0, t0, log));
  }
  F->factored = 1;
  return EM_OK;
}

em_err em_direct_create(const em_csr *A, const em_direct_opts *o, const em_log *log,
                        em_direct **F) {
  EM_TRY(em_direct_analyse(A, o, log, F));
  em_err err = em_direct_factor(*F, A, log);
  if (err) {
    em_direct_destroy(F);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  return EM_OK;
}

em_err em_direct_solve(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb, em_cplx *x,
                       int64_t ldx) {
  EM_CHECK(F, EM_ERR_ARG, "em_direct_solve: NULL factor");
  EM_CHECK(F->factored, EM_ERR_ARG, "em_direct_solve: no successful numeric factorization");
  int32_t n = F->S.n;
  EM_CHECK(nrhs >= 0, EM_ERR_ARG, "em_direct_solve: nrhs = %d is negative", nrhs);
  EM_CHECK(ldb >= n && ldx >= n, EM_ERR_ARG,
           "em_direct_solve: leading dimensions %lld, %lld below the order %d", (long long)ldb,
           (long long)ldx, n);
  if (n == 0 || nrhs == 0) return EM_OK;
  EM_CHECK(b && x, EM_ERR_ARG, "em_direct_solve: NULL right-hand side or solution");
  return F->be->direct_solve(F, nrhs, b, ldb, x, ldx);
}

/* x = P^T (L D L^T)^-1 P b on the host, the right-hand sides permuted into
 * one block. */
em_err em_direct_solve_cpu(const em_direct *F, int nrhs, const em_cplx *b, int64_t ldb, em_cplx *x,
                           int64_t ldx) {
  int32_t n = F->S.n;
  em_err err = EM_OK;
  em_cplx *y = NULL, *work = NULL;
  EM_TRY(em_calloc(&y, (size_t)n * (size_t)nrhs, sizeof *y, "direct solve vectors"));
  EM_TRY_GOTO(err,
              em_calloc(&work, (size_t)em_direct_solve_work(F) * (size_t)nrhs, sizeof *work,
                        "direct solve work"),
              done);
  const int32_t *perm = F->S.perm;
  for (int r = 0; r < nrhs; r++)
    for (int32_t i = 0; i < n; i++) y[(int64_t)r * n + perm[i]] = b[r * ldb + i];
  EM_TRY_GOTO(err, em_direct_solve_perm(F, nrhs, y, n, work), done);
  for (int r = 0; r < nrhs; r++)
    for (int32_t i = 0; i < n; i++) x[r * ldx + i] = y[(int64_t)r * n + perm[i]];
done:
  em_free(&y);
  em_free(&work);
  return err;
}

void em_direct_get_info(const em_direct *F, em_direct_info *info) {
  *info = F->info;
}

double em_direct_device_need(const em_direct *F, int64_t nnz_a) {
  return F && F->be && F->be->direct_device_need ? F->be->direct_device_need(F, nnz_a) : 0;
}

void em_direct_destroy(em_direct **F) {
  if (!*F) return;
  if ((*F)->be && (*F)->be->direct_free) (*F)->be->direct_free(*F);
  em_dsym_free(&(*F)->S);
  em_free(&(*F)->lval);
  em_free(&(*F)->d);
  em_free(&(*F)->scale);
  em_free(&(*F)->scale_old);
  em_free(&(*F)->mirror);
  em_free(F);
}
