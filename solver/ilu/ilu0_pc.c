/* ilu0_pc.c - the ILU(0) preconditioner: analysis and factorization on the
 * host, then the apply of the pc's backend and triangular solve. */
#include <complex.h>

#include "ilu_impl.h"
#include "pc_impl.h"

em_err em_pc_ilu0_build(const em_csr *A, em_pc *pc, const em_log *log) {
  em_ilu0 *F = NULL;
  em_err err = EM_OK;
  double t0 = em_wtime();
  EM_TRY(em_ilu0_analyse(A, pc->opts.ordering, pc->opts.block_size, &F));
  pc->info.levels_lower = F->lev_l.n_levels;
  pc->info.levels_upper = F->lev_u.n_levels;
  pc->info.colors = F->colors;
  pc->info.shift = pc->opts.shift;
  if (pc->opts.shift > 0) /* a_ii += j shift |a_ii| */
    for (int32_t i = 0; i < F->n; i++) {
      em_cplx *d = &F->Apc->val[F->diag[i]];
      *d += I * pc->opts.shift * cabs(*d);
    }
  double t1 = em_wtime();
  em_log_verbose(log, "ilu0: %s ordering and level schedules in %.2f s (%d + %d levels)",
                 em_ordering_name(pc->opts.ordering), t1 - t0, F->lev_l.n_levels,
                 F->lev_u.n_levels);
  if (pc->opts.trsv == EM_TRSV_CUSPARSE)       /* offered by the GPU only (em_pc_create checks) */
    return pc->be->ilu0_build_cusparse(F, pc); /* factors on the GPU; owns F */
  EM_TRY_GOTO(err, em_ilu0_factorize(F), fail);
  EM_TRY_GOTO(err, em_ilu0_split(F, pc->opts.prec), fail);
  em_log_verbose(log, "ilu0: factorization in %.2f s", em_wtime() - t1);
  return pc->be->ilu0_build(F, pc); /* owns F */
fail:
  em_ilu0_destroy(&F);
  return err;
}
