/* direct_pc.c - EM_PC_DIRECT: M = P^T L D L^T P from em_direct.  On the
 * host: gather r into the new numbering (converting the vector precision),
 * forward / diagonal / backward solves, scatter into z.  A factor on the
 * GPU solves there (direct_cuda.c).  A factor that went to the host while
 * the vectors live on the GPU (em_sv_fallback: it did not fit) stages r
 * and z through host copies; the transfers count in the pc time. */
#include "direct_impl.h"
#include "pc_impl.h"
#include "pmg_impl.h" /* its coarse factor */

/* y[perm[i]] = r[i] in complex double */
static void gather(int32_t n, const int32_t *perm, em_prec vec_prec, const void *r, em_cplx *y) {
  if (vec_prec == EM_PREC_SINGLE) {
    const em_cplxf *rr = r;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) y[perm[i]] = rr[i];
  } else {
    const em_cplx *rr = r;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) y[perm[i]] = rr[i];
  }
}

/* z[i] = y[perm[i]] in the vectors' precision */
static void scatter(int32_t n, const int32_t *perm, em_prec vec_prec, const em_cplx *y, void *z) {
  if (vec_prec == EM_PREC_SINGLE) {
    em_cplxf *zz = z;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) zz[i] = (em_cplxf)y[perm[i]];
  } else {
    em_cplx *zz = z;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) zz[i] = y[perm[i]];
  }
}

em_err em_direct_pc_host_apply(em_direct_pc *p, em_prec vec_prec, const void *r, void *z) {
  const em_direct *F = p->F;
  int32_t n = F->S.n;
  gather(n, F->S.perm, vec_prec, r, p->y);
  EM_TRY(em_direct_solve_perm(F, 1, p->y, n, p->work));
  scatter(n, F->S.perm, vec_prec, p->y, z);
  return EM_OK;
}

/* k columns gathered into one n x k block, one solve with k right-hand
 * sides (each supernode's block of L read once for all of them; every
 * column's arithmetic is the one-column solve's), scattered back. */
em_err em_direct_pc_host_apply_multi(em_direct_pc *p, em_prec vec_prec, int k, const void *const *r,
                                     void *const *z) {
  const em_direct *F = p->F;
  int32_t n = F->S.n;
  if (k > p->cap_k || !p->ym) {
    size_t w = (size_t)em_direct_solve_work(F);
    em_free(&p->ym);
    em_free(&p->wm);
    EM_TRY(em_calloc(&p->ym, ((size_t)n + 1) * (size_t)k, sizeof *p->ym, "direct block vectors"));
    EM_TRY(em_calloc(&p->wm, w * (size_t)k, sizeof *p->wm, "direct block work"));
    p->cap_k = k;
  }
  for (int j = 0; j < k; j++) gather(n, F->S.perm, vec_prec, r[j], p->ym + (size_t)j * n);
  EM_TRY(em_direct_solve_perm(F, k, p->ym, n, p->wm));
  for (int j = 0; j < k; j++) scatter(n, F->S.perm, vec_prec, p->ym + (size_t)j * n, z[j]);
  return EM_OK;
}

static em_err direct_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  return em_direct_pc_host_apply(pc->data, vec_prec, r, z);
}

static em_err direct_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r,
                                 void *const *z) {
  return em_direct_pc_host_apply_multi(pc->data, vec_prec, k, r, z);
}

void em_direct_pc_destroy(em_pc *pc) {
  em_direct_pc *p = pc->data;
  if (!p) return;
  em_direct_destroy(&p->F);
  em_free(&p->y);
  em_free(&p->work);
  em_free(&p->hr);
  em_free(&p->hz);
  em_free(&p->ym);
  em_free(&p->wm);
  em_free(&pc->data);
}

/* New values on the kept ordering and symbolic factorization. */
em_err em_direct_pc_update(em_pc *pc, const em_csr *A, const em_log *log) {
  em_direct_pc *p = pc->data;
  EM_TRY(em_direct_factor(p->F, A, log));
  em_direct_info in;
  em_direct_get_info(p->F, &in);
  pc->info.perturbed = in.perturbed;
  return EM_OK;
}

/* z = M^-1 r with the vectors in the pc's memory and the factor on the
 * host: r down, the host solve, z up (the backend's copies run on the
 * stream of the Krylov vectors, so they wait for the work that made r) */
static em_err direct_apply_staged(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  em_direct_pc *p = pc->data;
  size_t bytes = (size_t)pc->n * em_prec_size(vec_prec);
  if (bytes == 0) return EM_OK;
  EM_TRY(pc->be->download(p->hr, r, bytes));
  EM_TRY(em_direct_pc_host_apply(p, vec_prec, p->hr, p->hz));
  EM_TRY(pc->be->upload(z, p->hz, bytes));
  return EM_OK;
}

static const em_pc_ops DIRECT_CPU = {direct_apply, em_direct_pc_destroy, em_direct_pc_update,
                                     direct_apply_multi};
static const em_pc_ops DIRECT_STAGED = {direct_apply_staged, em_direct_pc_destroy,
                                        em_direct_pc_update, NULL};

em_err em_pc_direct_use_cpu(em_pc *pc) {
  pc->ops = &DIRECT_CPU;
  pc->info.impl = "direct-ldlt";
  return EM_OK;
}

/* The apply where the factor lives: on the pc's backend, its own; on the
 * host behind the pc's vectors, staged through host copies of r and z. */
static em_err use_factor(em_pc *pc) {
  em_direct_pc *p = pc->data;
  if (p->F->be == pc->be) return pc->be->direct_pc_use(pc);
  size_t n = (size_t)pc->n + 1;
  EM_TRY(em_calloc(&p->hr, n, sizeof(em_cplx), "direct preconditioner host copy of r"));
  EM_TRY(em_calloc(&p->hz, n, sizeof(em_cplx), "direct preconditioner host copy of z"));
  pc->ops = &DIRECT_STAGED;
  pc->info.impl = "direct-ldlt";
  pc->info.bytes += 2 * n * sizeof(em_cplx);
  return EM_OK;
}

/* The factor's options from the pc's: the one mapping, for the build and
 * an analysis made ahead (em_pc_direct_analyse). */
static void direct_opts(const em_pc_opts *po, em_direct_opts *o) {
  em_direct_opts_default(o);
  o->ordering = po->ordering;
  o->shift = po->shift;
  o->mem_limit = po->mem_limit;
  o->backend = po->backend;
  o->prec = po->prec;
  o->cancel = po->cancel;
  o->pattern_symmetric = po->pattern_symmetric;
  o->block_columns = po->block_columns;
  o->gsolve = po->gsolve;
}

em_err em_pc_direct_analyse(const em_csr *A, const em_pc_opts *po, const em_log *log,
                            em_direct **F) {
  EM_CHECK(po && F && po->type == EM_PC_DIRECT, EM_ERR_ARG,
           "em_pc_direct_analyse: NULL options or output, or not a direct preconditioner");
  em_direct_opts o;
  direct_opts(po, &o);
  return em_direct_analyse(A, &o, log, F);
}

em_err em_pc_direct_build(const em_csr *A, em_pc *pc, em_direct **F0, const em_log *log) {
  EM_CHECK(pc->opts.prec == EM_PREC_DOUBLE || pc->be->single_factor, EM_ERR_UNSUPPORTED,
           "em_pc_create: the direct preconditioner factors in complex single on the GPU only "
           "(Solver/precision mixed with --device gpu); the CPU factor is complex double");
  em_direct_pc *p = NULL;
  EM_TRY(em_calloc(&p, 1, sizeof *p, "direct preconditioner"));
  pc->data = p;
  pc->ops = &DIRECT_CPU;
  pc->info.impl = "direct-ldlt";
  if (pc->opts.ordering != EM_ORDERING_ND)
    em_log_warn(log,
                "direct preconditioner with the '%s' ordering: 'nd' (nested dissection) needs "
                "far less memory and time (7-27x fewer flops on the DRA systems)",
                em_ordering_name(pc->opts.ordering));
  em_direct_opts o;
  direct_opts(&pc->opts, &o);
  if (F0 && *F0) { /* analysed ahead: its memory checked now, then the factor */
    p->F = *F0;
    *F0 = NULL;
    EM_CHECK(p->F->S.n == A->n_rows, EM_ERR_ARG,
             "em_pc_create_analysed: the analysis is of order %d, the matrix %d", p->F->S.n,
             A->n_rows);
    /* what the analysis did not need: the solves' columns and variants */
    p->F->opts.block_columns = pc->opts.block_columns;
    p->F->opts.gsolve = pc->opts.gsolve;
    EM_TRY(em_direct_memory_check(p->F, log));
    EM_TRY(em_direct_factor(p->F, A, log));
  } else {
    EM_TRY(em_direct_create(A, &o, log, &p->F));
  }
  em_direct_info in;
  em_direct_get_info(p->F, &in);
  EM_TRY(em_calloc(&p->y, (size_t)in.n + 1, sizeof *p->y, "direct preconditioner vector"));
  EM_TRY(em_calloc(&p->work, (size_t)em_direct_solve_work(p->F), sizeof *p->work,
                   "direct preconditioner work"));
  pc->info.bytes = !p->F->be->host
                       ? in.bytes_gpu
                       : in.bytes_factor + ((size_t)in.n + (size_t)em_direct_solve_work(p->F)) * 16;
  pc->info.levels_lower = pc->info.levels_upper = 0;
  pc->info.shift = o.shift;
  pc->info.factor_nnz = in.nnz_stored;
  pc->info.factor_flops = in.flops;
  pc->info.perturbed = in.perturbed;
  EM_TRY(use_factor(pc));
  return EM_OK;
}

struct em_direct *em_pc_direct_factor(em_pc *pc) {
  if (!pc || !pc->data) return NULL;
  if (pc->opts.type == EM_PC_DIRECT) return ((em_direct_pc *)pc->data)->F;
  if (pc->opts.type == EM_PC_PMG) return em_pc_direct_factor(((em_pmg *)pc->data)->coarse);
  return NULL;
}
