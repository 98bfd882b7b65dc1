/* pmg_block.c - the block level of the V-cycle (em_pmg_opts.block_rows):
 * one set of rows B smoothed together, all basis orders at once,
 *
 *   w = r_B - A(B, :) z;   z_B += omega M_B^-1 w,   M_B = ILU(0) of A(B, B)
 *                                                   (or its exact factor)
 *
 * visited first on the way down and last on the way up.  Why: in a PML the
 * coordinate stretch makes the elements strongly anisotropic and lossy, and
 * the hierarchical split of their space by order couples strongly across
 * the groups: smoothing the groups one after another (even solving each
 * exactly) does not converge, while the layer's whole block is dissipative
 * enough for an incomplete factorization (docs/solvers.md, "The PML out of
 * the coarse solve").  An ILU(0) is symmetric for a complex symmetric block
 * (U = D L^T), and the level is visited in mirrored order, so M stays
 * complex symmetric. */
#include "pmg_impl.h"

em_err em_pmg_block_level(em_pmg *p, const em_csr *A, pmg_level *L, const em_log *log) {
  const em_pmg_opts *o = &p->o;
  const uint8_t *b = o->block_rows;
  L->L.n = 0;
  EM_TRY(em_calloc(&L->L.h, (size_t)p->n + 1, sizeof *L->L.h, "pmg block rows"));
  for (int32_t i = 0; i < p->n; i++)
    if (b[i]) L->L.h[L->L.n++] = i;
  L->L.lo = L->L.n ? L->L.h[0] : 0;
  L->L.hi = L->L.n ? L->L.h[L->L.n - 1] + 1 : 0;
  EM_TRY(p->v->alloc(4 * (size_t)L->L.n, L->L.h, (void **)&L->L.idx));
  p->mem.index += 4 * (size_t)L->L.n;
  if (!L->L.n) return EM_OK;
  em_err err = EM_OK;
  em_csr *D = NULL, *R = NULL;
  if (!o->op) { /* A(B, :) of its own, as build_level does */
    em_spmat_opts so;
    em_spmat_opts_default(&so);
    so.backend = p->be;
    EM_TRY(em_pmg_submatrix(A, L->L.h, L->L.n, NULL, &R));
    err = em_spmat_create(R, &so, &L->rows);
    em_csr_destroy(&R);
    EM_TRY(err);
    em_spmat_info si;
    em_spmat_get_info(L->rows, &si);
    p->mem.rows += si.bytes;
  }
  /* the exact block: no damping; ILU(0) of the PML diverged undamped on
     WR-90 + PML and converged (GMRES) with 0.3-0.6 (docs/solvers.md) */
  L->omega = o->damping > 0 ? o->damping : o->block_direct ? 1.0 : 0.5;
  EM_TRY(em_pmg_submatrix(A, L->L.h, L->L.n, L->L.h, &D));
  em_pc_opts io;
  em_pc_opts_default(&io);
  io.type = o->block_direct ? EM_PC_DIRECT : EM_PC_ILU0;
  io.ordering = o->block_direct ? EM_ORDERING_ND : EM_ORDERING_RCM;
  io.backend = p->be;
  io.shift = o->shift;
  err = em_pc_create(D, &io, NULL, &L->ilu);
  em_csr_destroy(&D);
  EM_TRY(err);
  em_pc_info ii;
  em_pc_get_info(L->ilu, &ii);
  p->mem.smoother += ii.bytes;
  em_log_verbose(log, "pmg: block level of %d rows (all orders), %s smoother (omega %.2f), %.1f MB",
                 L->L.n, o->block_direct ? "direct" : "ilu0", L->omega, (double)ii.bytes / 1e6);
  return EM_OK;
}
