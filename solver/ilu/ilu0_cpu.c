/* ilu0_cpu.c - ILU(0) applied on the CPU: gather r into the pc numbering
 * (converting to the factor precision), L solve, U solve, scatter back. */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ilu_impl.h"
#include "pc_impl.h"

typedef struct ilu0_cpu {
  em_ilu0 *F;    /* factors and schedules */
  em_seg *seg_l; /* segments of the L solve */
  em_seg *seg_u; /* of the U solve */
  int ns_l, ns_u;
  em_cplx *y; /* n entries: the work vector (double for any factor storage) */
} ilu0_cpu;

/* y = P r in double, and z = P^T y in the vector precision; the factors
 * may be stored in single, the solve runs in double */
static em_err ilu0_apply(em_pc *pc, em_prec vec_prec, const void *r, void *z) {
  ilu0_cpu *c = pc->data;
  const em_ilu0 *F = c->F;
  int32_t n = F->n;
  em_cplx *y = c->y;
  if (vec_prec == EM_PREC_SINGLE) {
    const em_cplxf *rr = r;
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t p = 0; p < n; p++) y[p] = rr[F->iperm[p]];
  } else {
    const em_cplx *rr = r;
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t p = 0; p < n; p++) y[p] = rr[F->iperm[p]];
  }
  em_trsv_lower_cpu(F, c->seg_l, c->ns_l, y); /* y = L^-1 y */
  em_trsv_upper_cpu(F, c->seg_u, c->ns_u, y); /* y = U^-1 y */
  if (vec_prec == EM_PREC_SINGLE) {
    em_cplxf *zz = z;
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t i = 0; i < n; i++) zz[i] = (em_cplxf)y[F->perm[i]];
  } else {
    em_cplx *zz = z;
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t i = 0; i < n; i++) zz[i] = y[F->perm[i]];
  }
  return EM_OK;
}

static void ilu0_destroy(em_pc *pc) {
  ilu0_cpu *c = pc->data;
  if (!c) return;
  em_ilu0_destroy(&c->F);
  em_free(&c->seg_l);
  em_free(&c->seg_u);
  em_free(&c->y);
  em_free(&pc->data);
}

static const em_pc_ops ILU0_CPU = {ilu0_apply, ilu0_destroy, NULL, NULL};

em_err em_pc_ilu0_build_cpu(em_ilu0 *F, em_pc *pc) {
  ilu0_cpu *c = NULL;
  em_err err = em_calloc(&c, 1, sizeof *c, "ILU(0) preconditioner");
  if (err) {
    em_ilu0_destroy(&F);
    return em_error_trace(err, __FILE__, __LINE__);
  }
  c->F = F;
  pc->data = c;
  pc->ops = &ILU0_CPU;
  pc->info.impl = "cpu-levels";
#ifdef _OPENMP
  int nt = omp_get_max_threads();
#else
  int nt = 1;
#endif
  /* a level of fewer rows than two per thread costs less on one thread
   * than a team barrier */
  int32_t thin = nt > 1 ? 2 * nt : F->n;
  EM_TRY(em_levels_segments(&F->lev_l, thin, &c->seg_l, &c->ns_l));
  EM_TRY(em_levels_segments(&F->lev_u, thin, &c->seg_u, &c->ns_u));
  EM_TRY(em_calloc(&c->y, (size_t)F->n, sizeof *c->y, "ILU work vector"));
  pc->info.bytes = em_ilu0_bytes(F) + (size_t)F->n * sizeof *c->y;
  return EM_OK;
}
