/* direct_numeric.c - the multifrontal numeric factorization (Duff & Reid
 * 1983; Liu 1992): for each supernode in postorder, its front is assembled
 * from the entries of A in its columns and its children's update matrices
 * (extend-add), partially factored (direct_front.c), and its own update
 * matrix is kept for its parent.
 *
 * Parallelism (OpenMP): the tree schedule of direct_sched.c (subtrees as
 * tasks, supernodes above them after their last child); inside big fronts
 * the triangular solves, block updates and extend-adds are split into
 * tasks.  Errors in a task are recorded (the first wins) and raised by the
 * caller after the parallel region, since the error trace is per thread. */
#include <complex.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "direct_impl.h"

enum { FAIL_NONE = 0, FAIL_PIVOT_NAN, FAIL_PIVOT_ZERO, FAIL_MEMORY, FAIL_PATTERN, FAIL_CANCELLED };

typedef struct num_state {
  em_direct *F;
  const em_csr *A; /* symmetric values, old numbering */
  const double *r; /* equilibration, old numbering */
  em_dk_ctx ctx;   /* kernels, workspaces */
  em_dk_piv piv0;  /* tau */
  em_cplx **cb;    /* update matrix of each supernode until its parent takes it */
  int zeroed;      /* the blocks of L are zero already */
  atomic_llong perturbed;
  atomic_int failed;      /* FAIL_* of the first failure */
  int64_t fail_a, fail_b; /* its details: column / row / supernode / size */
  /* progress: a line every opts.progress_s seconds of a long factorization */
  const em_log *log;
  double t0;
  atomic_llong done_flops;
  atomic_llong next_ms; /* when the next line is due, ms after t0 */
  long long every_ms;   /* opts.progress_s */
} num_state;

/* After supernode s: its flops counted; the thread that finds a line due
 * (one wins the exchange) prints the share done. */
static void progress(num_state *st, int32_t s) {
  const em_dsym *S = &st->F->S;
  long long done = atomic_fetch_add(&st->done_flops, (long long)S->work[s]) + (long long)S->work[s];
  long long now = (long long)(1e3 * (em_wtime() - st->t0)), due = atomic_load(&st->next_ms);
  if (now < due || !atomic_compare_exchange_strong(&st->next_ms, &due, now + st->every_ms)) return;
  /* the seconds since factor() began: the log's last line came before it */
  em_log_progress(
      st->log, "direct: numeric factorization under way, %.0f %% of %.3g GFlop after %.1f s",
      S->flops > 0 ? 100.0 * (double)done / S->flops : 0.0, S->flops * 1e-9, 1e-3 * (double)now);
}

/* Record a failure; only the first one is kept. */
static void fail(num_state *st, int kind, int64_t a, int64_t b) {
  int expected = FAIL_NONE;
  if (atomic_compare_exchange_strong(&st->failed, &expected, kind)) {
    st->fail_a = a;
    st->fail_b = b;
  }
}

/* Position of row i in the sorted rows r[0..m), or -1. */
int64_t em_direct_find_row(const int32_t *r, int64_t m, int32_t i) {
  int64_t lo = 0, hi = m - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (r[mid] == i) return mid;
    if (r[mid] < i)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Extend-add of child c's update matrix U (nbc x nbc, lower) into the front
 * of s: U's row/column t is the parent's front row rel[t]; front columns
 * below k live in L (ld m), the others in cb (ld nb).  Columns of a big U
 * are split into tasks (they touch distinct front columns). */
static void extend_column(const em_cplx *U, int64_t nbc, const int32_t *rel, int64_t m, int64_t k,
                          em_cplx *L, em_cplx *cb, int64_t jj) {
  int64_t pc = rel[jj];
  const em_cplx *u = U + jj * nbc;
  if (pc < k) { /* a pivot column: rows rel[ii] >= pc of L */
    em_cplx *dst = L + pc * m;
    for (int64_t ii = jj; ii < nbc; ii++) dst[rel[ii]] += u[ii];
  } else { /* a column of the update matrix: rows rel[ii] >= pc >= k */
    em_cplx *dst = cb + (pc - k) * (m - k);
    for (int64_t ii = jj; ii < nbc; ii++) dst[rel[ii] - k] += u[ii];
  }
}

static void extend_add(const em_dk_ctx *ctx, const em_cplx *U, int64_t nbc, const int32_t *rel,
                       int64_t m, int64_t k, em_cplx *L, em_cplx *cb) {
  if (ctx->parallel && nbc > 400) {
#pragma omp taskloop grainsize(16) default(shared)
    for (size_t jj = 0; jj < (size_t)nbc; jj++) /* unsigned: clang's taskloop */
      extend_column(U, nbc, rel, m, k, L, cb, (int64_t)jj);
  } else {
    for (int64_t jj = 0; jj < nbc; jj++) extend_column(U, nbc, rel, m, k, L, cb, jj);
  }
}

/* Factor supernode s: assemble, extend-add and free the children's update
 * matrices, partial factorization, keep the update matrix. */
static void process(num_state *st, int32_t s) {
  em_direct *F = st->F;
  const em_dsym *S = &F->S;
  int32_t c0 = S->super[s], c1 = S->super[s + 1];
  int64_t k = c1 - c0, m = S->rptr[s + 1] - S->rptr[s], nb = m - k;
  const int32_t *rows = S->rows + S->rptr[s];
  em_cplx *L = F->lval + S->lptr[s], *cb = NULL;
  if (atomic_load(&st->failed)) goto children;
  if (em_cancelled(F->opts.cancel)) { /* a signal: every supernode after this one is skipped */
    fail(st, FAIL_CANCELLED, s, 0);
    goto children;
  }
  if (nb > 0 && em_calloc(&cb, (size_t)(nb * nb), sizeof *cb, "update matrix")) {
    em_error_clear(); /* this thread's trace; the caller raises */
    fail(st, FAIL_MEMORY, s, nb);
    goto children;
  }
  if (!st->zeroed) memset(L, 0, (size_t)(m * k) * sizeof *L);
  /* entries of A in the columns of s (lower triangle of P A P^T) */
  for (int32_t j = c0; j < c1; j++) {
    int32_t u = S->iperm[j];
    for (int64_t p = st->A->rowptr[u]; p < st->A->rowptr[u + 1]; p++) {
      int32_t i = S->perm[st->A->colind[p]];
      if (i < j) continue;
      int64_t pos = em_direct_find_row(rows, m, i);
      if (pos < 0) {
        fail(st, FAIL_PATTERN, u, st->A->colind[p]);
        goto children;
      }
      L[pos + (j - c0) * m] += st->A->val[p] * (st->r[u] * st->r[st->A->colind[p]]);
    }
  }
  /* children's update matrices: the children are s-1, first[s-1]-1, ... */
  for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1) {
    int64_t kc = S->super[c + 1] - S->super[c], nbc = S->rptr[c + 1] - S->rptr[c] - kc;
    const int32_t *rel = S->prel + S->rptr[c] + kc;
    if (nbc > 0) extend_add(&st->ctx, st->cb[c], nbc, rel, m, k, L, cb);
    em_free(&st->cb[c]);
  }
  em_dk_piv piv = st->piv0;
  em_dk_front(&st->ctx, m, k, L, F->d + c0, cb, &piv);
  atomic_fetch_add(&st->perturbed, piv.perturbed);
  if (piv.bad >= 0) {
    fail(st, piv.bad_zero ? FAIL_PIVOT_ZERO : FAIL_PIVOT_NAN, c0 + piv.bad, 0);
    em_free(&cb);
  }
  st->cb[s] = cb;
  if (st->log) progress(st, s);
  return;
children: /* failed: release what the children left */
  for (int32_t c = s - 1; c >= S->first[s]; c = S->first[c] - 1) em_free(&st->cb[c]);
  em_free(&cb);
}

/* process() as a tree step */
static void process_step(void *ctx, int32_t s) {
  process(ctx, s);
}

em_err em_direct_numeric(em_direct *F, const em_csr *A, const double *r, double smax, int zeroed,
                         const em_log *log) {
  em_dsym *S = &F->S;
  int nt = F->threads > 0 ? F->threads : 1;
  if (S->flops < 1e7 * nt) nt = 1; /* a millisecond of work: not worth a team */
  em_err err = EM_OK;
  num_state st;
  memset(&st, 0, sizeof st);
  st.F = F;
  st.A = A;
  st.r = r;
  st.zeroed = zeroed;
  st.ctx.kind = F->kind;
  st.ctx.parallel = nt > 1;
  st.piv0.tau = F->opts.pivot_eps * smax;
  atomic_init(&st.perturbed, 0);
  atomic_init(&st.failed, FAIL_NONE);
  st.log = log;
  st.t0 = F->t_factor > 0 ? F->t_factor : em_wtime();
  atomic_init(&st.done_flops, 0);
  st.every_ms = (long long)(1e3 * fmax(F->opts.progress_s, 0));
  atomic_init(&st.next_ms, st.every_ms);
  EM_TRY(em_calloc(&st.cb, (size_t)S->ns + 1, sizeof *st.cb, "update matrix table"));
  EM_TRY_GOTO(err, em_calloc(&st.ctx.ws, (size_t)nt, sizeof *st.ctx.ws, "kernel workspaces"), done);
  for (int t = 0; t < nt; t++)
    EM_TRY_GOTO(err, em_calloc(&st.ctx.ws[t], EM_DK_WS, sizeof(double), "kernel workspace"), done);
  EM_TRY_GOTO(err, em_dtree_up(S, S->work, nt, process_step, &st), done);
  F->info.perturbed = atomic_load(&st.perturbed);
  switch (atomic_load(&st.failed)) {
    case FAIL_NONE:
      break;
    case FAIL_PIVOT_NAN:
      err = EM_RAISE(EM_ERR_NUMERIC,
                     "direct factorization: the pivot of row %d is not finite (overflow or a "
                     "non-finite entry; LDL^T without pivoting cannot factor this matrix)",
                     S->iperm[st.fail_a]);
      break;
    case FAIL_PIVOT_ZERO:
      err = EM_RAISE(EM_ERR_NUMERIC,
                     "direct factorization: zero pivot at row %d (pivot perturbation is off: "
                     "pivot_eps = 0)",
                     S->iperm[st.fail_a]);
      break;
    case FAIL_MEMORY:
      err = EM_RAISE(EM_ERR_MEMORY,
                     "direct factorization: out of host memory for the %lld x %lld update "
                     "matrix of supernode %lld",
                     (long long)st.fail_b, (long long)st.fail_b, (long long)st.fail_a);
      break;
    case FAIL_CANCELLED:
      err = EM_RAISE(EM_ERR_CANCELLED, "direct factorization: cancelled at supernode %lld of %d",
                     (long long)st.fail_a, S->ns);
      break;
    case FAIL_PATTERN:
      err = EM_RAISE(EM_ERR_ARG,
                     "direct factorization: entry (%lld, %lld) of the matrix lies outside the "
                     "analysed pattern (analyse the new pattern first)",
                     (long long)st.fail_a, (long long)st.fail_b);
      break;
  }
done:
  if (st.cb)
    for (int32_t s = 0; s < S->ns; s++) em_free(&st.cb[s]);
  em_free(&st.cb);
  if (st.ctx.ws)
    for (int t = 0; t < nt; t++) em_free(&st.ctx.ws[t]);
  em_free(&st.ctx.ws);
  return err;
}
