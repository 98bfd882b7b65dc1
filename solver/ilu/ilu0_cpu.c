/* ilu0_cpu.c - ILU(0) applied on the CPU: gather r into the pc numbering
 * (converting to the factor precision), L solve, U solve, scatter back;
 * several columns through one pass over the factors. */
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
  em_cplx *y;  /* n entries: the work vector (double for any factor storage) */
  em_cplx *yk; /* n x EM_ILU_COLS, row by row: the block of a k-column apply
                  (made at the first) */
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

/* k columns, EM_ILU_COLS at a time: gathered row by row into yk, both
 * solves on the block (the factors read once per block), scattered back;
 * each column as ilu0_apply gives it */
static em_err ilu0_apply_multi(em_pc *pc, em_prec vec_prec, int k, const void *const *r,
                               void *const *z) {
  ilu0_cpu *c = pc->data;
  const em_ilu0 *F = c->F;
  int32_t n = F->n;
  if (!c->yk) {
    EM_TRY(em_calloc(&c->yk, (size_t)n * EM_ILU_COLS + 1, sizeof *c->yk, "ILU block vectors"));
    pc->info.bytes += (size_t)n * EM_ILU_COLS * sizeof *c->yk;
  }
  em_cplx *y = c->yk;
  int sp = vec_prec == EM_PREC_SINGLE;
  for (int j0 = 0; j0 < k; j0 += EM_ILU_COLS) {
    int kc = k - j0 < EM_ILU_COLS ? k - j0 : EM_ILU_COLS;
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t p = 0; p < n; p++)
      for (int j = 0; j < kc; j++)
        y[(int64_t)p * kc + j] = sp ? (em_cplx)((const em_cplxf *)r[j0 + j])[F->iperm[p]]
                                    : ((const em_cplx *)r[j0 + j])[F->iperm[p]];
    em_trsv_lower_cpu_k(F, c->seg_l, c->ns_l, kc, y); /* Y = L^-1 Y */
    em_trsv_upper_cpu_k(F, c->seg_u, c->ns_u, kc, y); /* Y = U^-1 Y */
#pragma omp parallel for schedule(static) if (n > 8192)
    for (int32_t i = 0; i < n; i++)
      for (int j = 0; j < kc; j++) {
        em_cplx v = y[(int64_t)F->perm[i] * kc + j];
        if (sp)
          ((em_cplxf *)z[j0 + j])[i] = (em_cplxf)v;
        else
          ((em_cplx *)z[j0 + j])[i] = v;
      }
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
  em_free(&c->yk);
  em_free(&pc->data);
}

static const em_pc_ops ILU0_CPU = {ilu0_apply, ilu0_destroy, NULL, ilu0_apply_multi};

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
