/* pc.c - the preconditioner front end: check arguments, resolve options,
 * hand over to the type's builder, time the setup; identity (no
 * preconditioner) as a type of its own. */
#include <math.h>
#include <string.h>

#include "direct_impl.h"
#include "pc_impl.h"

/* The options checked, and the table of their backend in *be. */
static em_err check_opts(const em_csr *A, const em_pc_opts *o, const em_sv_backend **be) {
  EM_CHECK(A && o, EM_ERR_ARG, "em_pc_create: NULL matrix or options");
  EM_CHECK(A->n_rows == A->n_cols, EM_ERR_ARG,
           "em_pc_create: the matrix is %d x %d, a preconditioner needs a square one", A->n_rows,
           A->n_cols);
  EM_CHECK(o->type >= EM_PC_NONE && o->type <= EM_PC_PMG, EM_ERR_ARG,
           "em_pc_create: unknown preconditioner type %d", (int)o->type);
  EM_CHECK(o->ordering >= EM_ORDERING_NATURAL && o->ordering <= EM_ORDERING_BMC, EM_ERR_ARG,
           "em_pc_create: unknown ordering %d", (int)o->ordering);
  EM_CHECK(o->prec == EM_PREC_DOUBLE || o->prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_pc_create: unknown precision %d", (int)o->prec);
  EM_CHECK(o->trsv >= EM_TRSV_AUTO && o->trsv <= EM_TRSV_CUSPARSE, EM_ERR_ARG,
           "em_pc_create: unknown triangular solve %d", (int)o->trsv);
  EM_CHECK(o->block_size >= 0, EM_ERR_ARG, "em_pc_create: BMC block size %d is negative",
           o->block_size);
  EM_CHECK(o->shift >= 0 && isfinite(o->shift), EM_ERR_ARG,
           "em_pc_create: ILU shift %g must be finite and >= 0", o->shift);
  EM_TRY(em_sv_backend_get(o->backend, "em_pc_create", "the CUDA backend", be));
  EM_CHECK((*be)->trsv >> o->trsv & 1u, EM_ERR_ARG,
           "em_pc_create: triangular solve '%s' needs the CUDA backend", em_pc_trsv_name(o->trsv));
  EM_TRY(em_csr_check(A, "preconditioner matrix"));
  return EM_OK;
}

/* The type's builder on pc (opts, n set). */
static em_err build(em_pc *pc, const em_csr *A, em_direct **F0, const em_log *log) {
  switch (pc->opts.type) {
    case EM_PC_NONE:
      return em_pc_identity_build(A, pc);
    case EM_PC_JACOBI:
      return em_pc_jacobi_build(A, pc);
    case EM_PC_ILU0:
      return em_pc_ilu0_build(A, pc, log);
    case EM_PC_DIRECT:
      return em_pc_direct_build(A, pc, F0, log);
    case EM_PC_PMG:
      return em_pc_pmg_build(A, pc, log);
  }
  return EM_RAISE(EM_ERR_ARG, "em_pc_create: unknown preconditioner type %d", (int)pc->opts.type);
}

static void log_setup(const em_pc *pc, const em_log *log) {
  const em_pc_opts *o = &pc->opts;
  if (o->type == EM_PC_ILU0)
    em_log_info(log,
                "ilu0 (%s, %s, %s, shift %g): levels L %d / U %d, %d colours, %.1f MB, "
                "setup %.2f s",
                em_ordering_name(o->ordering), pc->info.impl,
                o->prec == EM_PREC_SINGLE ? "single" : "double", o->shift, pc->info.levels_lower,
                pc->info.levels_upper, pc->info.colors, (double)pc->info.bytes / 1e6,
                pc->info.t_setup);
  if (o->type == EM_PC_DIRECT)
    em_log_info(log,
                "direct (%s, shift %g): nnz(L) %lld stored, %.2f GFlop, %lld pivots perturbed, "
                "%.1f MB, setup %.2f s",
                em_ordering_name(o->ordering), o->shift, (long long)pc->info.factor_nnz,
                pc->info.factor_flops * 1e-9, (long long)pc->info.perturbed,
                (double)pc->info.bytes / 1e6, pc->info.t_setup);
}

/* em_pc_create, on the analysis *F0 when given (a direct pc: taken). */
static em_err create(const em_csr *A, const em_pc_opts *o, em_direct **F0, const em_log *log,
                     em_pc **out) {
  EM_CHECK(out, EM_ERR_ARG, "em_pc_create: NULL result pointer");
  *out = NULL;
  const em_sv_backend *be = NULL;
  EM_TRY(check_opts(A, o, &be));
  double t0 = em_wtime();
  em_pc *pc = NULL;
  EM_TRY(em_calloc(&pc, 1, sizeof *pc, "preconditioner"));
  pc->opts = *o;
  pc->be = be;
  if (pc->opts.trsv == EM_TRSV_AUTO) pc->opts.trsv = EM_TRSV_LEVELS;
  if (pc->opts.block_size == 0) pc->opts.block_size = 16;
  pc->n = A->n_rows;
  pc->info.type = o->type;
  pc->info.ordering = o->type == EM_PC_ILU0 || o->type == EM_PC_DIRECT || o->type == EM_PC_PMG
                          ? o->ordering
                          : EM_ORDERING_NATURAL;
  pc->info.prec = o->prec;
  em_err err = build(pc, A, F0, log);
  if (err) {
    em_error_trace(err, __FILE__, __LINE__);
    em_pc_destroy(&pc);
    return err;
  }
  pc->info.t_setup = em_wtime() - t0;
  log_setup(pc, log);
  *out = pc;
  return EM_OK;
}

em_err em_pc_create(const em_csr *A, const em_pc_opts *o, const em_log *log, em_pc **out) {
  return create(A, o, NULL, log, out);
}

em_err em_pc_create_analysed(const em_csr *A, const em_pc_opts *o, em_direct **F, const em_log *log,
                             em_pc **out) {
  em_err err = EM_OK;
  if (!F || !*F || !o || o->type != EM_PC_DIRECT)
    err = EM_RAISE(EM_ERR_ARG, "em_pc_create_analysed: no analysis, or not a direct pc");
  else
    err = create(A, o, F, log, out);
  if (F) em_direct_destroy(F); /* what the pc did not take */
  return err;
}

em_err em_pc_update(em_pc *pc, const em_csr *A, const em_log *log) {
  EM_CHECK(pc, EM_ERR_ARG, "em_pc_update: NULL preconditioner");
  const em_sv_backend *be = NULL;
  EM_TRY(check_opts(A, &pc->opts, &be));
  EM_CHECK(A->n_rows == pc->n, EM_ERR_ARG,
           "em_pc_update: the matrix has %d rows, the preconditioner was built for %d", A->n_rows,
           pc->n);
  double t0 = em_wtime();
  if (pc->ops && pc->ops->update) {
    EM_TRY(pc->ops->update(pc, A, log));
  } else { /* no kept analysis: rebuild with the same options */
    if (pc->ops && pc->ops->destroy) pc->ops->destroy(pc);
    pc->ops = NULL;
    pc->data = NULL;
    em_pc_info keep = pc->info;
    memset(&pc->info, 0, sizeof pc->info);
    pc->info.type = keep.type;
    pc->info.ordering = keep.ordering;
    pc->info.prec = keep.prec;
    EM_TRY(build(pc, A, NULL, log));
  }
  pc->info.t_setup = em_wtime() - t0;
  pc->info.updates++;
  log_setup(pc, log);
  return EM_OK;
}

em_err em_pc_apply_prec(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  EM_CHECK(pc, EM_ERR_ARG, "em_pc_apply: NULL preconditioner");
  EM_CHECK((r && z) || pc->n == 0, EM_ERR_ARG, "em_pc_apply: NULL vector");
  EM_CHECK(r != z || pc->n == 0, EM_ERR_ARG, "em_pc_apply: r and z alias");
  EM_CHECK(vec_prec == EM_PREC_DOUBLE || vec_prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_pc_apply: unknown vector precision %d", (int)vec_prec);
  return pc->ops->apply(pc, vec_prec, r, z);
}

em_err em_pc_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r, void *const *z) {
  EM_CHECK(pc && k >= 0 && (k == 0 || (r && z)), EM_ERR_ARG,
           "em_pc_apply_multi: NULL preconditioner or vector list, or %d vectors", k);
  for (int j = 0; j < k; j++) {
    EM_CHECK((r[j] && z[j]) || pc->n == 0, EM_ERR_ARG, "em_pc_apply_multi: vector %d is NULL", j);
    for (int i = 0; i < k && pc->n > 0; i++)
      EM_CHECK(z[j] != r[i] && (i == j || z[i] != z[j]), EM_ERR_ARG,
               "em_pc_apply_multi: output %d is also vector %d", j, i);
  }
  EM_CHECK(vec_prec == EM_PREC_DOUBLE || vec_prec == EM_PREC_SINGLE, EM_ERR_ARG,
           "em_pc_apply_multi: unknown vector precision %d", (int)vec_prec);
  if (k == 0) return EM_OK;
  if (pc->ops->apply_multi && k > 1) return pc->ops->apply_multi(pc, vec_prec, k, r, z);
  for (int j = 0; j < k; j++) EM_TRY(pc->ops->apply(pc, vec_prec, r[j], z[j]));
  return EM_OK;
}

em_err em_pc_apply(em_pc *pc, const void *r, void *z) {
  return em_pc_apply_prec(pc, EM_PREC_DOUBLE, r, z);
}

void em_pc_get_info(const em_pc *pc, em_pc_info *info) {
  *info = pc->info;
}

void em_pc_destroy(em_pc **pc) {
  if (!*pc) return;
  if ((*pc)->ops && (*pc)->ops->destroy) (*pc)->ops->destroy(*pc);
  em_free(pc);
}

em_err em_pc_inverse_diagonal(const em_csr *A, em_cplx *dinv) {
  for (int32_t i = 0; i < A->n_rows; i++) {
    em_cplx d = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) d = A->val[k];
    EM_CHECK(d != 0 && isfinite(creal(d)) && isfinite(cimag(d)), EM_ERR_NUMERIC,
             "diagonal entry of row %d is %s", i, d == 0 ? "zero or missing" : "not finite");
    dinv[i] = 1.0 / d;
  }
  return EM_OK;
}

/* ----------------------------------------------------------- identity */

/* z = r */
static em_err identity_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  return pc->be->copy(z, r, (size_t)pc->n * em_prec_size(vec_prec));
}

static void identity_destroy(em_pc *pc) {
  (void)pc;
}

static const em_pc_ops IDENTITY = {identity_apply, identity_destroy, NULL, NULL};

em_err em_pc_identity_build(const em_csr *A, em_pc *pc) {
  (void)A;
  pc->ops = &IDENTITY;
  pc->info.impl = "identity";
  return EM_OK;
}
