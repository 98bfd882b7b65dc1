/* direct_pc.c - EM_PC_DIRECT: M = P^T L D L^T P from em_direct, applied
 * on the host: gather r into the new numbering (converting the vector
 * precision), forward / diagonal / backward solves, scatter into z.  With
 * the CUDA backend the vectors travel to the host and back
 * (direct_cuda.c); the transfers count in the pc time. */
#include <string.h>

#include "direct_impl.h"
#include "pc_impl.h"

em_err em_direct_pc_host_apply(em_direct_pc *p, em_prec vec_prec, const void *r, void *z) {
  const em_direct *F = p->F;
  int32_t n = F->S.n;
  const int32_t *perm = F->S.perm;
  em_cplx *y = p->y;
  if (vec_prec == EM_PREC_SINGLE) {
    const em_cplxf *rr = r;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) y[perm[i]] = rr[i];
  } else {
    const em_cplx *rr = r;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) y[perm[i]] = rr[i];
  }
  EM_TRY(em_direct_solve_perm(F, 1, y, n, p->work));
  if (vec_prec == EM_PREC_SINGLE) {
    em_cplxf *zz = z;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) zz[i] = (em_cplxf)y[perm[i]];
  } else {
    em_cplx *zz = z;
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int32_t i = 0; i < n; i++) zz[i] = y[perm[i]];
  }
  return EM_OK;
}

static em_err direct_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  return em_direct_pc_host_apply(pc->data, vec_prec, r, z);
}

void em_direct_pc_destroy(em_pc *pc) {
  em_direct_pc *p = pc->data;
  if (!p) return;
  em_direct_destroy(&p->F);
  em_free(&p->y);
  em_free(&p->work);
  em_free(&p->hr);
  em_free(&p->hz);
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

static const em_pc_ops DIRECT_CPU = {direct_apply, em_direct_pc_destroy, em_direct_pc_update};

em_err em_pc_direct_build(const em_csr *A, em_pc *pc, const em_log *log) {
  EM_CHECK(pc->opts.prec == EM_PREC_DOUBLE || pc->opts.backend == EM_BACKEND_CUDA,
           EM_ERR_UNSUPPORTED,
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
  em_direct_opts_default(&o);
  o.ordering = pc->opts.ordering;
  o.shift = pc->opts.shift;
  o.mem_limit = pc->opts.mem_limit;
  o.backend = pc->opts.backend;
  o.prec = pc->opts.prec;
  o.cancel = pc->opts.cancel;
  EM_TRY(em_direct_create(A, &o, log, &p->F));
  em_direct_info in;
  em_direct_get_info(p->F, &in);
  EM_TRY(em_calloc(&p->y, (size_t)in.n + 1, sizeof *p->y, "direct preconditioner vector"));
  EM_TRY(em_calloc(&p->work, (size_t)em_direct_solve_work(p->F), sizeof *p->work,
                   "direct preconditioner work"));
  pc->info.bytes = !strcmp(in.where, "gpu")
                       ? in.bytes_gpu
                       : in.bytes_factor + ((size_t)in.n + (size_t)em_direct_solve_work(p->F)) * 16;
  pc->info.levels_lower = pc->info.levels_upper = 0;
  pc->info.shift = o.shift;
  pc->info.factor_nnz = in.nnz_stored;
  pc->info.factor_flops = in.flops;
  pc->info.perturbed = in.perturbed;
#ifdef EM_HAVE_CUDA
  if (pc->opts.backend == EM_BACKEND_CUDA) EM_TRY(em_pc_direct_use_cuda(pc));
#endif
  return EM_OK;
}
