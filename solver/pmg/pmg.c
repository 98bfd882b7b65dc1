/* pmg.c - EM_PC_PMG: the symmetric V-cycle over the basis-order groups.
 *
 *   z = 0
 *   for each level, highest first:      (pre-smoothing)
 *     repeat sweeps: w = r_L - A(L, :) z;  z_L += S_L w
 *   w = r_C - A(C, :) z;  z_C += A_CC^-1 w   (coarse: the first groups,
 *                                              the sparse direct factor)
 *   for each level, lowest first:       (post-smoothing, the same steps)
 *
 * L is a level's rows (its own group, or with `all` groups 1..g), C the
 * coarse groups, S_L the smoother: omega times the inverse of the point or
 * entity-block diagonal, or omega ILU(0)^-1 of A(L, L).  Restriction and
 * prolongation are views (the hierarchical spaces are nested and numbered
 * group by group); with symmetric smoothers visited in reverse order M is
 * complex symmetric, so COCG may use it.  Every step runs on the pc's
 * backend; the only host traffic is the timers' synchronisation.
 *
 * With opts.op (the Krylov operator) the residuals come from it: r - A z
 * over all rows, then the rows of L (or C) gathered.  The levels then hold
 * no rows of A (A(L, :) of all levels and A(C, :) together are a second
 * copy of the operator) for a few full products per cycle instead of
 * row-subset ones. */
#include <string.h>

#include "pmg_impl.h"

/* Columns of one V-cycle of a k-vector apply (more go in groups). */
#define PMG_MULTI EM_PMG_COLS

static em_err check(const em_csr *A, const em_pmg_opts *o) {
  EM_CHECK(o->nb >= 2 && o->nb <= EM_MAX_ORDER, EM_ERR_INPUT,
           "pmg needs the unknowns of at least two basis orders (Solver/order 2 or 3); this "
           "system has %d order group(s)",
           o->nb);
  EM_CHECK(o->offset[0] == 0 && o->offset[o->nb] == A->n_rows, EM_ERR_ARG,
           "pmg: group offsets end at %d, the matrix has %d rows", o->offset[o->nb], A->n_rows);
  for (int g = 0; g < o->nb; g++)
    EM_CHECK(o->offset[g + 1] >= o->offset[g], EM_ERR_ARG, "pmg: group offsets decrease");
  EM_CHECK(o->coarse >= 1 && o->coarse < o->nb, EM_ERR_INPUT,
           "PMG/coarse = %d: the coarse level is 1 .. %d order groups (there are %d)", o->coarse,
           o->nb - 1, o->nb);
  EM_CHECK(o->sweeps >= 1 && o->sweeps <= 100, EM_ERR_INPUT, "PMG/sweeps = %d must be 1 .. 100",
           o->sweeps);
  EM_CHECK(o->damping >= 0 && o->damping <= 2, EM_ERR_INPUT,
           "PMG/damping = %g must be in [0, 2] (0: the default)", o->damping);
  EM_CHECK(o->shift >= 0, EM_ERR_INPUT, "PMG/shift = %g must be >= 0", o->shift);
  EM_CHECK(!o->op || (o->op->n == A->n_rows && o->op->prec == EM_PREC_DOUBLE), EM_ERR_ARG,
           "pmg: the operator given for the residuals is not this %d-row matrix in "
           "complex double",
           A->n_rows);
  return EM_OK;
}

static em_err spmat_of(const em_csr *A, em_backend be, em_spmat **M) {
  em_spmat_opts so;
  em_spmat_opts_default(&so);
  so.backend = be;
  EM_TRY(em_spmat_create(A, &so, M));
  return EM_OK;
}

/* *M refilled with A's values; built anew when it refuses (another
 * pattern), with a verbose note. */
static em_err refill_or_build(const em_csr *A, em_backend be, em_spmat **M, const em_log *log) {
  if (!em_spmat_refill(*M, A)) return EM_OK;
  em_log_verbose(log, "pmg: %s; built anew", em_error_message());
  em_error_clear();
  em_spmat_destroy(M);
  EM_TRY(spmat_of(A, be, M));
  return EM_OK;
}

static void rows_free(em_pmg *p, pmg_rows *R) {
  if (p->v) p->v->release((void **)&R->idx);
  em_free(&R->h);
}

static void pmg_free(em_pmg *p) {
  for (int l = 0; l < p->nlev; l++) {
    em_spmat_destroy(&p->lev[l].rows);
    em_spmat_destroy(&p->lev[l].dinv);
    em_pc_destroy(&p->lev[l].ilu);
    rows_free(p, &p->lev[l].L);
  }
  rows_free(p, &p->C);
  em_spmat_destroy(&p->crows);
  em_pc_destroy(&p->coarse);
  if (p->v) {
    p->v->release(&p->t);
    p->v->release(&p->w);
    p->v->release(&p->u);
    p->v->release(&p->tk);
    p->v->release(&p->wk);
    p->v->release(&p->uk);
    em_pmg_stamp_free(p);
  }
}

static void pmg_destroy(em_pc *pc) {
  em_pmg *p = pc->data;
  if (!p) return;
  pmg_free(p);
  em_free(&pc->data);
}

/* R = the rows i in [a, b) with coarse[i] == want (coarse NULL: all), on
 * the host and in the pc's memory. */
static em_err rows_make(em_pmg *p, int32_t a, int32_t b, const uint8_t *coarse, int want,
                        pmg_rows *R) {
  R->n = 0;
  EM_TRY(em_calloc(&R->h, (size_t)(b - a) + 1, sizeof *R->h, "pmg rows"));
  for (int32_t i = a; i < b; i++)
    if (!coarse || !!coarse[i] == want) R->h[R->n++] = i;
  R->lo = R->n ? R->h[0] : 0;
  R->hi = R->n ? R->h[R->n - 1] + 1 : 0;
  EM_TRY(p->v->alloc(4 * (size_t)R->n, R->h, (void **)&R->idx));
  return EM_OK;
}

/* Level l: its smoother and its rows. */
static em_err build_level(em_pmg *p, const em_csr *A, pmg_level *L, const em_log *log) {
  const em_pmg_opts *o = &p->o;
  double t0 = em_wtime();
  em_err err = EM_OK;
  em_csr *R = NULL, *D = NULL;
  em_spmat_info si;
  if (!o->op) { /* A(L, :) of its own; with the operator its residual is a view */
    EM_TRY(em_pmg_submatrix(A, L->L.h, L->L.n, NULL, &R));
    EM_TRY_GOTO(err, spmat_of(R, p->be, &L->rows), done);
    em_spmat_get_info(L->rows, &si);
    p->mem.rows += si.bytes;
    em_csr_destroy(&R);
  }
  p->mem.index += 4 * (size_t)L->L.n;
  if (o->smoother == EM_PMG_ILU0) {
    L->omega = o->damping > 0 ? o->damping : 1.0;
    EM_TRY_GOTO(err, em_pmg_submatrix(A, L->L.h, L->L.n, L->L.h, &D), done);
    em_pc_opts io;
    em_pc_opts_default(&io);
    io.type = EM_PC_ILU0;
    io.ordering = EM_ORDERING_RCM;
    io.backend = p->be;
    io.shift = o->shift;
    EM_TRY_GOTO(err, em_pc_create(D, &io, NULL, &L->ilu), done);
    em_pc_info ii;
    em_pc_get_info(L->ilu, &ii);
    p->mem.smoother += ii.bytes;
  } else {
    L->omega = o->damping > 0 ? o->damping : 0.5;
    int block = o->smoother == EM_PMG_BLOCK ? EM_PMG_MAX_BLOCK : 1;
    EM_TRY_GOTO(err,
                em_pmg_block_inverse(A, L->L.h, L->L.n, block, o->shift, L->omega, &D, &L->blocks),
                done);
    EM_TRY_GOTO(err, spmat_of(D, p->be, &L->dinv), done);
    em_spmat_get_info(L->dinv, &si);
    p->mem.smoother += si.bytes;
  }
  em_log_verbose(log, "pmg: level of %d rows, %s smoother (omega %.2f, %d blocks), %.2f s", L->L.n,
                 em_pmg_smoother_name(o->smoother), L->omega, L->blocks, em_wtime() - t0);
done:
  em_csr_destroy(&R);
  em_csr_destroy(&D);
  return err;
}

/* pc->info's memory: the components, the coarse factorization's peak
 * estimate, and their sum (info.bytes). */
static void mem_info(const em_pmg *p, em_pc *pc, const em_pc_info *ci) {
  pc->info.rows_bytes = p->mem.rows;
  pc->info.smoother_bytes = p->mem.smoother;
  pc->info.index_bytes = p->mem.index;
  pc->info.work_bytes = p->mem.work;
  pc->info.coarse_factor_bytes = p->mem.factor;
  pc->info.coarse_bytes = ci->bytes;
  pc->info.bytes = p->mem.rows + p->mem.smoother + p->mem.index + p->mem.work + ci->bytes;
}

void em_pmg_coarse_opts(const em_pc_opts *o, em_pc_opts *co) {
  em_pc_opts_default(co);
  co->type = EM_PC_DIRECT;
  co->ordering = EM_ORDERING_ND;
  co->backend = o->backend;
  co->prec = o->prec;
  co->cancel = o->cancel;
  co->block_columns = o->block_columns; /* the V-cycle's columns reach the coarse solve */
  co->gsolve = o->gsolve;
  /* mem_limit bounds the direct factorization of the whole system (auto
     comes here when that does not fit); the coarse factor, a fraction of
     it, is checked against the memory available */
}

/* The direct factor of A_CC = C, on the analysis made ahead when the
 * caller has one of C's pattern (o->coarse_ahead), else analysed here:
 * the same factor either way (em_pc_create_analysed). */
static em_err coarse_factor(const em_csr *C, const em_pc_opts *co, const em_pmg_opts *o,
                            const em_log *log, em_pc **F) {
  em_coarse_ahead ah = {NULL, 0};
  if (o->coarse_ahead) o->coarse_ahead(o->coarse_ahead_ctx, log, &ah);
  if (!ah.F) return em_pc_create(C, co, log, F);
  if (ah.pattern != em_spmat_pattern_hash(C)) {
    em_log_verbose(log,
                   "pmg: the coarse analysis made ahead is not used (the coarse set has another "
                   "pattern); it runs in order");
    em_direct_destroy(&ah.F);
    return em_pc_create(C, co, log, F);
  }
  em_log_verbose(log, "pmg: the coarse factor on its analysis made ahead (the same pattern)");
  return em_pc_create_analysed(C, co, &ah.F, log, F);
}

static em_err pmg_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z);
static em_err pmg_update(em_pc *pc, const em_csr *A, const em_log *log);
static em_err pmg_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r,
                              void *const *z);

static const em_pc_ops PMG = {pmg_apply, pmg_destroy, pmg_update, pmg_apply_multi};

em_err em_pc_pmg_build(const em_csr *A, em_pc *pc, const em_log *log) {
  em_pmg_opts o = pc->opts.pmg;
  EM_TRY(check(A, &o));
  em_pmg *p = NULL;
  EM_TRY(em_calloc(&p, 1, sizeof *p, "pmg preconditioner"));
  pc->data = p;
  pc->ops = &PMG;
  pc->info.impl = pc->be->pmg_impl;
  p->o = o;
  p->n = A->n_rows;
  p->be = pc->opts.backend;
  p->v = pc->be->pmg;
  double t0 = em_wtime();
  const uint8_t *mark = o.coarse_rows, *skip = mark;
  int32_t nmark = 0, nblock = 0;
  uint8_t *excl = NULL;
  for (int32_t i = o.offset[o.coarse]; mark && i < p->n; i++) nmark += mark[i] != 0;
  for (int32_t i = 0; o.block_rows && i < p->n; i++) nblock += o.block_rows[i] != 0;
  if (nblock) { /* the block level first; the group levels leave its rows out */
    EM_TRY(em_pmg_block_level(p, A, &p->lev[p->nlev++], log));
    EM_TRY(em_calloc(&excl, (size_t)p->n + 1, 1, "pmg level rows"));
    for (int32_t i = 0; i < p->n; i++) excl[i] = (mark && mark[i]) || o.block_rows[i];
    skip = excl;
  }
  /* levels: the groups above the coarse ones, the highest first, without
     the marked rows */
  for (int g = o.nb - 1; g >= o.coarse; g--) {
    pmg_level *L = &p->lev[p->nlev++];
    em_err e =
        rows_make(p, o.all ? o.offset[o.coarse] : o.offset[g], o.offset[g + 1], skip, 0, &L->L);
    if (!e) e = build_level(p, A, L, log);
    if (e) em_free(&excl);
    EM_TRY(e);
  }
  em_free(&excl);
  /* the coarse set: the first groups and the marked rows; its rows for the
     residual, the direct factor of its block */
  {
    uint8_t *cm = NULL;
    EM_TRY(em_calloc(&cm, (size_t)p->n + 1, 1, "pmg coarse set"));
    for (int32_t i = 0; i < p->n; i++) cm[i] = i < o.offset[o.coarse] || (mark && mark[i]);
    em_err e = rows_make(p, 0, p->n, cm, 1, &p->C);
    em_free(&cm);
    EM_TRY(e);
  }
  double t_levels = em_wtime() - t0;
  em_err err = EM_OK;
  em_csr *C = NULL;
  p->mem.index += 4 * (size_t)p->C.n;
  if (!o.op) {
    EM_TRY(em_pmg_submatrix(A, p->C.h, p->C.n, NULL, &C));
    err = spmat_of(C, p->be, &p->crows);
    em_csr_destroy(&C);
    EM_TRY(err);
    em_spmat_info si;
    em_spmat_get_info(p->crows, &si);
    p->mem.rows += si.bytes;
  }
  EM_TRY(em_pmg_submatrix(A, p->C.h, p->C.n, p->C.h, &C));
  em_log_verbose(log, "pmg: coarse set of %d rows, %lld entries, %.2f s", p->C.n, (long long)C->nnz,
                 em_wtime() - t0 - t_levels);
  em_pc_opts co;
  em_pmg_coarse_opts(&pc->opts, &co);
  err = coarse_factor(C, &co, &o, log, &p->coarse);
  em_csr_destroy(&C);
  EM_TRY(err);
  em_pc_info ci;
  em_pc_get_info(p->coarse, &ci);
  em_log_verbose(log, "pmg setup: levels and smoothers %.2f s, coarse factor %.2f s", t_levels,
                 ci.t_setup);
  pc->info.coarse_n = p->C.n;
  pc->info.coarse_bytes = ci.bytes;
  pc->info.factor_nnz = ci.factor_nnz;
  pc->info.factor_flops = ci.factor_flops;
  pc->info.perturbed = ci.perturbed;
  size_t vb = 16 * (size_t)p->n;
  EM_TRY(p->v->alloc(vb, NULL, &p->t));
  EM_TRY(p->v->alloc(vb, NULL, &p->w));
  EM_TRY(p->v->alloc(vb, NULL, &p->u));
  p->mem.work = 3 * vb;
  /* the factor's values: complex single on the GPU with prec single, the
     host factor keeps double */
  size_t esz = pc->be->single_factor && co.prec == EM_PREC_SINGLE ? 8 : 16;
  p->mem.factor = esz * ((size_t)ci.factor_nnz + (size_t)p->C.n);
  mem_info(p, pc, &ci);
  em_log_info(
      log,
      "pmg: %d levels above %d coarse group(s)%s (%d unknowns, %d of them marked, direct "
      "factor %.1f MB), %s smoother x %d sweeps%s%s%s, %.1f MB in all",
      p->nlev, o.coarse, mark ? " and the marked rows" : "", p->C.n, nmark, (double)ci.bytes / 1e6,
      em_pmg_smoother_name(o.smoother), o.sweeps, o.all ? " on whole levels" : "",
      nblock ? (o.block_direct ? "; a block level (direct) of " : "; a block level (ilu0) of ")
             : "",
      nblock ? "the marked block rows" : "", (double)pc->info.bytes / 1e6);
  pc->info.block_n = nblock;
  em_log_info(log,
              "pmg memory: rows of A %.1f MB%s, smoothers %.1f MB, row lists %.1f MB, work "
              "vectors %.1f MB, coarse factor L+D %.1f MB (factorization peak ~%.1f MB)",
              (double)p->mem.rows / 1e6, o.op ? " (the operator's are used)" : "",
              (double)p->mem.smoother / 1e6, (double)p->mem.index / 1e6, (double)p->mem.work / 1e6,
              (double)p->mem.factor / 1e6, (double)ci.bytes / 1e6);
  return EM_OK;
}

/* New values, same pattern (the next frequency): the levels' matrices,
 * smoothers and coarse rows refilled in place (em_spmat_refill: values
 * only, in the layout and memory they have; the ILU(0) smoothers
 * refactored on their kept ordering), the coarse factor refactored on its
 * kept ordering and analysis.  A matrix whose refill is refused (its
 * pattern changed: a block inverse that found other blocks) is built anew. */
static em_err pmg_update(em_pc *pc, const em_csr *A, const em_log *log) {
  em_pmg *p = pc->data;
  double t0 = em_wtime();
  em_err err = EM_OK;
  em_csr *R = NULL, *D = NULL, *C = NULL;
  em_spmat_info si;
  p->mem.rows = p->mem.smoother = 0; /* recounted: a matrix may be built anew */
  for (int l = 0; l < p->nlev; l++) {
    pmg_level *L = &p->lev[l];
    if (L->rows) {
      EM_TRY(em_pmg_submatrix(A, L->L.h, L->L.n, NULL, &R));
      err = refill_or_build(R, p->be, &L->rows, log);
      em_csr_destroy(&R);
      EM_TRY(err);
      em_spmat_get_info(L->rows, &si);
      p->mem.rows += si.bytes;
    }
    if (L->ilu) {
      EM_TRY(em_pmg_submatrix(A, L->L.h, L->L.n, L->L.h, &D));
      err = em_pc_update(L->ilu, D, NULL);
      em_csr_destroy(&D);
      EM_TRY(err);
      em_pc_info ii;
      em_pc_get_info(L->ilu, &ii);
      p->mem.smoother += ii.bytes;
    } else {
      int block = p->o.smoother == EM_PMG_BLOCK ? EM_PMG_MAX_BLOCK : 1;
      EM_TRY(em_pmg_block_inverse(A, L->L.h, L->L.n, block, p->o.shift, L->omega, &D, &L->blocks));
      err = refill_or_build(D, p->be, &L->dinv, log);
      em_csr_destroy(&D);
      EM_TRY(err);
      em_spmat_get_info(L->dinv, &si);
      p->mem.smoother += si.bytes;
    }
  }
  if (p->crows) {
    EM_TRY(em_pmg_submatrix(A, p->C.h, p->C.n, NULL, &C));
    err = refill_or_build(C, p->be, &p->crows, log);
    em_csr_destroy(&C);
    EM_TRY(err);
    em_spmat_get_info(p->crows, &si);
    p->mem.rows += si.bytes;
  }
  double t_levels = em_wtime() - t0;
  EM_TRY(em_pmg_submatrix(A, p->C.h, p->C.n, p->C.h, &C));
  em_log_verbose(log, "pmg update: levels and smoothers refilled, coarse set extracted, %.2f s",
                 em_wtime() - t0);
  err = em_pc_update(p->coarse, C, log);
  em_csr_destroy(&C);
  EM_TRY(err);
  em_pc_info ci;
  em_pc_get_info(p->coarse, &ci);
  em_log_verbose(log, "pmg update: levels and smoothers refilled %.2f s, coarse refactor %.2f s",
                 t_levels, ci.t_setup);
  pc->info.perturbed = ci.perturbed;
  mem_info(p, pc, &ci);
  pc->info.applies = 0;
  pc->info.t_smooth = pc->info.t_coarse = pc->info.t_residual = 0;
  memset(&p->prof, 0, sizeof p->prof);
  return EM_OK;
}

/* A block of k work vectors: column j of the n-entry vectors X. */
typedef struct pmg_cols {
  int k;
  void *c[PMG_MULTI];
} pmg_cols;

static pmg_cols cols_of(const em_pmg *p, void *X, int k) {
  pmg_cols c = {k, {0}};
  for (int j = 0; j < k; j++) c.c[j] = (char *)X + (size_t)j * (size_t)p->n * 16;
  return c;
}

/* Y = M X or Y = A X for the k columns: one SpMV (k = 1, the single apply)
 * or one multi-vector product. */
static em_err spmat_k(const em_spmat *M, int k, const void *const *x, void *const *y) {
  if (k == 1) return em_spmat_spmv(M, x[0], y[0], 0, NULL);
  return em_spmat_spmm(M, k, x, y, 0, NULL);
}
static em_err op_k(const em_operator *op, int k, const void *const *x, void *const *y) {
  if (k == 1) return op->apply(op->ctx, x[0], y[0]);
  return em_operator_apply_multi(op, k, x, y);
}

/* w_j = (r_j - A z_j)_R for the rows R and the k columns: from the rows'
 * own matrix M = A(R, :) (t = M z, local), or, with the operator, t = A z
 * on the rows R.lo .. R.hi-1 (the operator's rows of those order groups
 * when it offers them, else all rows) and r - t gathered at R; fresh:
 * z = 0, w = r_R.  Stamps after the product and the gather (parts prod and
 * prod + 1) of level lev. */
static em_err residual(em_pc *pc, em_pmg *p, const em_spmat *M, const pmg_rows *R,
                       const void *const *r, void *const *z, const pmg_cols *t, const pmg_cols *w,
                       int fresh, em_pmg_part prod, int lev) {
  const pmg_vops *v = p->v;
  const em_operator *op = p->o.op;
  int k = t->k;
  if (fresh) {
    EM_TRY(v->gather_sub(R->n, R->idx, k, r, NULL, 0, w->c));
    return em_pmg_stamp(pc, p, prod + 1, lev);
  }
  EM_CHECK(!op || op->apply, EM_ERR_ARG, "pmg: applied before its operator exists");
  if (!op)
    EM_TRY(spmat_k(M, k, (const void *const *)z, t->c));
  else if (op->apply_rows)
    EM_TRY(op->apply_rows(op->ctx, R->lo, R->hi, k, (const void *const *)z, t->c));
  else
    EM_TRY(op_k(op, k, (const void *const *)z, t->c));
  EM_TRY(em_pmg_stamp(pc, p, prod, lev));
  EM_TRY(v->gather_sub(R->n, R->idx, k, r, (const void *const *)t->c, op != NULL, w->c));
  return em_pmg_stamp(pc, p, prod + 1, lev);
}

/* One smoothing step of level l on the k columns; fresh: z is still zero. */
static em_err smooth(em_pc *pc, em_pmg *p, int l, const void *const *r, void *const *z,
                     const pmg_cols *c3, int fresh) {
  const pmg_vops *v = p->v;
  const pmg_level *L = &p->lev[l];
  const pmg_cols *t = &c3[0], *w = &c3[1], *u = &c3[2];
  int32_t m = L->L.n;
  int k = t->k;
  EM_TRY(residual(pc, p, L->rows, &L->L, r, z, t, w, fresh, EM_PMG_PRODUCT,
                  l)); /* w = r_L - (A z)_L */
  if (L->dinv) {       /* u = S_L w: the block inverses' product (omega inside) */
    EM_TRY(spmat_k(L->dinv, k, (const void *const *)w->c, u->c));
    EM_TRY(em_pmg_stamp(pc, p, EM_PMG_SMOOTH, l));
    EM_TRY(v->scatter_add(m, L->L.idx, k, 1.0, (const void *const *)u->c, z));
  } else { /* u = ILU(0)^-1 w, the k columns in one block apply */
    if (k == 1)
      EM_TRY(em_pc_apply(L->ilu, w->c[0], u->c[0]));
    else
      EM_TRY(em_pc_apply_multi(L->ilu, EM_PREC_DOUBLE, k, (const void *const *)w->c, u->c));
    EM_TRY(em_pmg_stamp(pc, p, EM_PMG_SMOOTH, l));
    EM_TRY(v->scatter_add(m, L->L.idx, k, L->omega, (const void *const *)u->c, z));
  }
  return em_pmg_stamp(pc, p, EM_PMG_SCATTER, l);
}

/* The V-cycle on k <= PMG_MULTI columns with the work vectors c3 (t, w, u);
 * no host synchronisation between its steps (pmg_stamp.c times them), one
 * wait on its last stamp at the end. */
static em_err vcycle(em_pc *pc, em_pmg *p, const void *const *r, void *const *z,
                     const pmg_cols *c3) {
  const pmg_vops *v = p->v;
  int k = c3[0].k;
  EM_TRY(em_pmg_stamp_begin(p));
  EM_TRY(v->zero(p->n, k, z));
  EM_TRY(em_pmg_stamp(pc, p, EM_PMG_ZERO, -1));
  int fresh = 1;
  for (int l = 0; l < p->nlev; l++)
    for (int s = 0; s < p->o.sweeps; s++, fresh = 0) EM_TRY(smooth(pc, p, l, r, z, c3, fresh));
  EM_TRY(residual(pc, p, p->crows, &p->C, r, z, &c3[0], &c3[1], 0, EM_PMG_CPRODUCT, -1));
  if (k == 1)
    EM_TRY(em_pc_apply(p->coarse, c3[1].c[0], c3[2].c[0]));
  else
    EM_TRY(em_pc_apply_multi(p->coarse, EM_PREC_DOUBLE, k, (const void *const *)c3[1].c, c3[2].c));
  EM_TRY(em_pmg_stamp(pc, p, EM_PMG_CSOLVE, -1));
  EM_TRY(v->scatter_add(p->C.n, p->C.idx, k, 1.0, (const void *const *)c3[2].c, z));
  EM_TRY(em_pmg_stamp(pc, p, EM_PMG_CSCATTER, -1));
  for (int l = p->nlev - 1; l >= 0; l--)
    for (int s = 0; s < p->o.sweeps; s++) EM_TRY(smooth(pc, p, l, r, z, c3, 0));
  EM_TRY(em_pmg_stamp_end(pc, p, k));
  pc->info.applies += k;
  return EM_OK;
}

static em_err check_prec(em_prec vec_prec) {
  EM_CHECK(vec_prec == EM_PREC_DOUBLE, EM_ERR_UNSUPPORTED,
           "pmg: Krylov vectors in complex single are not supported (the V-cycle works in "
           "double; Solver/precision mixed keeps them double)");
  return EM_OK;
}

static em_err pmg_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_pmg *p = pc->data;
  EM_TRY(check_prec(vec_prec));
  pmg_cols c3[3] = {{1, {p->t}}, {1, {p->w}}, {1, {p->u}}};
  return vcycle(pc, p, &r, &z, c3);
}

/* k vectors: one V-cycle whose products are multi-vector products and
 * whose coarse solve has k right-hand sides (groups of PMG_MULTI); the
 * block work vectors are made at the first such apply. */
static em_err pmg_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r,
                              void *const *z) {
  em_pmg *p = pc->data;
  EM_TRY(check_prec(vec_prec));
  int want = k < PMG_MULTI ? k : PMG_MULTI;
  if (want > p->cap_k) {
    size_t vb = 16 * (size_t)p->n * (size_t)want;
    p->v->release(&p->tk);
    p->v->release(&p->wk);
    p->v->release(&p->uk);
    size_t before = p->mem.work;
    p->mem.work = 3 * 16 * (size_t)p->n;
    p->cap_k = 0;
    EM_TRY(p->v->alloc(vb, NULL, &p->tk));
    EM_TRY(p->v->alloc(vb, NULL, &p->wk));
    EM_TRY(p->v->alloc(vb, NULL, &p->uk));
    p->cap_k = want;
    p->mem.work += 3 * vb;
    pc->info.work_bytes = p->mem.work;
    pc->info.bytes += p->mem.work - before;
  }
  for (int j = 0; j < k; j += PMG_MULTI) {
    int g = k - j < PMG_MULTI ? k - j : PMG_MULTI;
    pmg_cols c3[3] = {cols_of(p, p->tk, g), cols_of(p, p->wk, g), cols_of(p, p->uk, g)};
    EM_TRY(vcycle(pc, p, r + j, z + j, c3));
  }
  return EM_OK;
}
