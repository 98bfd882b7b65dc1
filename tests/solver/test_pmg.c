/* EM_PC_PMG, the V-cycle over the basis-order groups, on assembled order-2
 * and order-3 curl-curl systems of a lossy box (em_assemble, PEC walls):
 * - the apply equals a plain reference V-cycle written here (dense loops
 *   over the CSR, point Jacobi, the coarse groups solved by em_direct),
 *   for one and two coarse groups and smoothing of a group or of all DOFs;
 * - M is complex symmetric: u^T M v = v^T M u (so COCG may use it);
 * - block Jacobi finds one block per edge and face of group 2 (the rows of
 *   one entity have identical patterns), and its blocks are inverted;
 * - GMRES and COCG converge with it on a system past the first resonance;
 * - a block level (block_rows: its rows of every order, smoothed by the
 *   exact factor of their block, first and last) equals the reference
 *   V-cycle with that step; with ILU(0) of the block M stays symmetric;
 *   the block apply of two vectors (em_pc_apply_multi) equals two applies;
 * - the cycle's profile (em_pc_pmg_profile): cycles, columns, the steps of
 *   each part, the parts summing to the total and to pc->info's timers;
 * - a coarse analysis made ahead (em_pmg_opts.coarse_ahead) is taken when
 *   it is of A_CC's pattern, dropped when not: the same V-cycle bit for bit;
 * - bad input: one order group, a coarse level of every group.
 * Usage: test_pmg cpu|gpu. */
#include <string.h>

#include "em_assembly.h"
#include "pmg_impl.h"
#include "solver_test.h"

static em_err lossy(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = 2.0 - 0.05 * I, m->nu[d] = 1;
  return EM_OK;
}

/* The order-p system of a 3 x 3 x 3 box (side 30 mm) at k0, PEC or not. */
static em_blockmat *system_of(int p, double k0, int pec, em_mesh **mout) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(3, 3, 3, 0.03, 0.03, 0.03, 0.15, 1, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1);
  for (int32_t f = 0; pec && f < m->n_face; f++) ff[f] = m->face_tet[2 * f + 1] < 0;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, ff, &d));
  em_problem prob = {.k0 = k0, .material = lossy, .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_blockmat *B = sys->A;
  sys->A = NULL;
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  free(ff);
  if (mout)
    *mout = m;
  else
    em_mesh_destroy(&m);
  return B;
}

static em_pc_opts pmg_opts(const em_blockmat *B, em_backend be, int coarse, em_pmg_smoother sm,
                           int all) {
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_PMG;
  po.ordering = EM_ORDERING_ND;
  po.backend = be;
  po.pmg.nb = B->nb;
  memcpy(po.pmg.offset, B->offset, sizeof po.pmg.offset);
  po.pmg.coarse = coarse;
  po.pmg.smoother = sm;
  po.pmg.sweeps = 2;
  po.pmg.damping = 0.6;
  po.pmg.all = all;
  return po;
}

/* z = M^-1 r with device vectors when gpu */
static void apply(em_pc *pc, em_backend be, const em_cplx *r, em_cplx *z, int32_t n) {
  if (be == EM_BACKEND_CPU) {
    REQUIRE_OK(em_pc_apply(pc, r, z));
    return;
  }
  em_vec *v = NULL;
  void *dr = NULL, *dz = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &v));
  REQUIRE_OK(v->ops->alloc(v, 1, &dr));
  REQUIRE_OK(v->ops->alloc(v, 1, &dz));
  REQUIRE_OK(v->ops->upload(v, r, dr));
  REQUIRE_OK(em_pc_apply(pc, dr, dz));
  REQUIRE_OK(v->ops->download(v, dz, z));
  v->ops->free(v, &dr);
  v->ops->free(v, &dz);
  em_vec_destroy(&v);
}

/* The reference: rows a..b of r - A z */
static void residual(const em_csr *A, const em_cplx *r, const em_cplx *z, int32_t a, int32_t b,
                     em_cplx *w) {
  for (int32_t i = a; i < b; i++) {
    em_cplx s = r[i];
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s -= A->val[p] * z[A->colind[p]];
    w[i - a] = s;
  }
}

static em_cplx diag(const em_csr *A, int32_t i) {
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
    if (A->colind[p] == i) return A->val[p];
  return 0;
}

/* z_R += omega A_RR^-1 (r - A z)_R for the rows R = rl[0..nr) */
static void exact_step(const em_csr *A, const int32_t *rl, int32_t nr, double omega,
                       const em_cplx *r, em_cplx *z, em_cplx *w) {
  em_csr *C = NULL;
  REQUIRE_OK(em_pmg_submatrix(A, rl, nr, rl, &C));
  em_direct *F = NULL;
  em_direct_opts dopt;
  em_direct_opts_default(&dopt);
  REQUIRE_OK(em_direct_create(C, &dopt, NULL, &F));
  for (int32_t k = 0; k < nr; k++) residual(A, r, z, rl[k], rl[k] + 1, w + k);
  REQUIRE_OK(em_direct_solve(F, 1, w, nr, w, nr));
  for (int32_t k = 0; k < nr; k++) z[rl[k]] += omega * w[k];
  em_direct_destroy(&F);
  em_csr_destroy(&C);
}

/* The V-cycle of pmg.c written plainly: point Jacobi (omega), sweeps;
 * level rows: a group (or the groups above the coarse ones up to g) minus
 * the marked rows and the block rows; coarse set: the first groups and the
 * marked rows; the block rows (direct) first and last. */
static void reference(const em_csr *A, const em_pmg_opts *o, const em_cplx *r, em_cplx *z) {
  int32_t n = A->n_rows, n0 = o->offset[o->coarse];
  em_cplx *w = calloc((size_t)n + 1, sizeof *w);
  int32_t *cl = calloc((size_t)n + 1, sizeof *cl), nc = 0;
  int32_t *bl = calloc((size_t)n + 1, sizeof *bl), nbl = 0;
  for (int32_t i = 0; i < n; i++) {
    if (i < n0 || (o->coarse_rows && o->coarse_rows[i])) cl[nc++] = i;
    if (o->block_rows && o->block_rows[i]) bl[nbl++] = i;
  }
  memset(z, 0, (size_t)n * sizeof *z);
  int32_t lo[EM_MAX_ORDER], hi[EM_MAX_ORDER];
  int nl = 0;
  for (int g = o->nb - 1; g >= o->coarse; g--, nl++)
    lo[nl] = o->all ? n0 : o->offset[g], hi[nl] = o->offset[g + 1];
  for (int pass = 0; pass < 2; pass++) {
    for (int s = 0; pass == 0 && nbl && s < o->sweeps; s++)
      exact_step(A, bl, nbl, o->damping, r, z, w);
    if (pass == 1) exact_step(A, cl, nc, 1.0, r, z, w); /* coarse: z_C += A_CC^-1 (r - A z)_C */
    for (int k = 0; k < nl; k++) {
      int l = pass == 0 ? k : nl - 1 - k;
      for (int s = 0; s < o->sweeps; s++) {
        residual(A, r, z, lo[l], hi[l], w);
        for (int32_t i = lo[l]; i < hi[l]; i++)
          if ((!o->coarse_rows || !o->coarse_rows[i]) && (!o->block_rows || !o->block_rows[i]))
            z[i] += o->damping * w[i - lo[l]] / diag(A, i);
      }
    }
    for (int s = 0; pass == 1 && nbl && s < o->sweeps; s++)
      exact_step(A, bl, nbl, o->damping, r, z, w);
  }
  free(w);
  free(cl);
  free(bl);
}

/* The block apply (em_pc_apply_multi: the right-hand sides of a block
 * Krylov solve) of r and v equals the two single applies: bit for bit on
 * the CPU, to 1e-12 on the GPU. */
static void check_multi(em_pc *pc, em_backend be, const em_cplx *r, const em_cplx *v, int32_t n,
                        const char *label) {
  em_vec *w = NULL;
  void *R = NULL, *Z1 = NULL, *Z2 = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &w));
  REQUIRE_OK(w->ops->alloc(w, 2, &R));
  REQUIRE_OK(w->ops->alloc(w, 2, &Z1));
  REQUIRE_OK(w->ops->alloc(w, 2, &Z2));
  REQUIRE_OK(w->ops->upload(w, r, em_vec_col(w, R, 0)));
  REQUIRE_OK(w->ops->upload(w, v, em_vec_col(w, R, 1)));
  const void *rc[2] = {em_vec_col(w, R, 0), em_vec_col(w, R, 1)};
  void *zc[2] = {em_vec_col(w, Z2, 0), em_vec_col(w, Z2, 1)};
  for (int j = 0; j < 2; j++) EXPECT_OK(em_pc_apply(pc, rc[j], em_vec_col(w, Z1, j)));
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, 2, rc, zc));
  em_cplx *z1 = calloc(2 * (size_t)n, sizeof *z1), *z2 = calloc(2 * (size_t)n, sizeof *z2);
  for (int j = 0; j < 2; j++) {
    REQUIRE_OK(w->ops->download(w, em_vec_col(w, Z1, j), z1 + (size_t)j * n));
    REQUIRE_OK(w->ops->download(w, em_vec_col(w, Z2, j), z2 + (size_t)j * n));
  }
  double e = test_rel_err(z2, z1, 2 * n);
  if (be == EM_BACKEND_CPU)
    EXPECT(!memcmp(z1, z2, 2 * (size_t)n * sizeof *z1), "%s: block apply differs (%.2e)", label, e);
  else
    EXPECT(e < 1e-12, "%s: block apply differs by %.2e", label, e);
  free(z1), free(z2);
  w->ops->free(w, &R), w->ops->free(w, &Z1), w->ops->free(w, &Z2);
  em_vec_destroy(&w);
}

/* The block level: every 3rd row (all groups; some of them also marked
 * coarse) solved by its exact factor against the reference, on the
 * matrix's own rows and on the operator; with ILU(0), u^T M v = v^T M u. */
static void test_block(em_backend be) {
  em_blockmat *B = system_of(3, 300.0, 1, NULL);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t n = A->n_rows, nb = 0;
  uint8_t *mark = calloc((size_t)n, 1), *blk = calloc((size_t)n, 1);
  for (int32_t i = 0; i < n; i += 7) mark[i] = 1;
  for (int32_t i = 1; i < n; i += 3) blk[i] = 1, nb++;
  em_cplx *r = calloc((size_t)n, sizeof *r), *z = calloc((size_t)n, sizeof *z),
          *zr = calloc((size_t)n, sizeof *zr), *v = calloc((size_t)n, sizeof *v),
          *Mv = calloc((size_t)n, sizeof *Mv);
  unsigned long long seed = 5;
  for (int32_t i = 0; i < n; i++) {
    r[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
    v[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
  }
  for (int direct = 1; direct >= 0; direct--) {
    em_pc_opts po = pmg_opts(B, be, 1, EM_PMG_JACOBI, 0);
    po.pmg.coarse_rows = mark;
    po.pmg.block_rows = blk;
    po.pmg.block_direct = direct;
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    em_pc_info info;
    em_pc_get_info(pc, &info);
    EXPECT(info.block_n == nb, "block level of %d rows, %d marked", info.block_n, nb);
    apply(pc, be, r, z, n);
    if (direct) {
      reference(A, &po.pmg, r, zr);
      double e = test_rel_err(z, zr, n);
      EXPECT(e < 1e-10, "block level (direct): pmg and the reference V-cycle differ by %.2e", e);
      /* the control: without the block step the cycle is another one */
      po.pmg.block_rows = NULL;
      reference(A, &po.pmg, r, zr);
      EXPECT(test_rel_err(z, zr, n) > 1e-3, "the block level changes nothing: the check is blind");
    } else {
      apply(pc, be, v, Mv, n);
      em_cplx a = 0, b = 0;
      double s = 0;
      for (int32_t i = 0; i < n; i++) a += v[i] * z[i], b += r[i] * Mv[i], s += cabs(v[i] * z[i]);
      EXPECT(cabs(a - b) < 1e-11 * s, "block level (ilu0): v^T M r - r^T M v = %.2e of %.2e",
             cabs(a - b), s);
    }
    check_multi(pc, be, r, v, n, direct ? "block level (direct)" : "block level (ilu0)");
    em_pc_destroy(&pc);
  }
  free(r), free(z), free(zr), free(v), free(Mv), free(mark), free(blk);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

static void test_reference(em_backend be) {
  static const struct {
    int p, coarse, all, marked;
  } cases[] = {{2, 1, 0, 0}, {3, 1, 0, 0}, {3, 2, 0, 0}, {3, 1, 1, 0}, {3, 1, 0, 1}, {2, 1, 1, 1}};
  for (int c = 0; c < 6; c++) {
    em_blockmat *B = system_of(cases[c].p, 300.0, 1, NULL);
    em_csr *A = NULL;
    REQUIRE_OK(em_blockmat_to_csr(B, &A));
    int32_t n = A->n_rows;
    em_pc_opts po = pmg_opts(B, be, cases[c].coarse, EM_PMG_JACOBI, cases[c].all);
    uint8_t *mark = calloc((size_t)n, 1); /* every 7th row into the coarse set */
    for (int32_t i = 0; cases[c].marked && i < n; i += 7) mark[i] = 1;
    if (cases[c].marked) po.pmg.coarse_rows = mark;
    int32_t nmark = 0;
    for (int32_t i = B->offset[cases[c].coarse]; i < n; i++) nmark += mark[i];
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    em_cplx *r = calloc((size_t)n, sizeof *r), *z = calloc((size_t)n, sizeof *z),
            *zr = calloc((size_t)n, sizeof *zr);
    unsigned long long seed = 11 + c;
    for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
    apply(pc, be, r, z, n);
    reference(A, &po.pmg, r, zr);
    double e = test_rel_err(z, zr, n);
    EXPECT(e < 1e-10,
           "order %d, coarse %d, all %d, marked %d: pmg and the reference V-cycle differ by %.2e",
           cases[c].p, cases[c].coarse, cases[c].all, cases[c].marked, e);
    em_pc_info info;
    em_pc_get_info(pc, &info);
    EXPECT(info.coarse_n == B->offset[cases[c].coarse] + nmark && info.applies == 1 &&
               info.coarse_bytes > 0 && info.t_coarse >= 0,
           "info: coarse %d unknowns, %lld applies", info.coarse_n, (long long)info.applies);
    /* the same cycle with the residuals from the operator: no rows of its own */
    em_spmat *M = NULL;
    em_spmat_opts so;
    em_spmat_opts_default(&so);
    so.backend = be;
    REQUIRE_OK(em_spmat_create(A, &so, &M));
    em_operator op;
    REQUIRE_OK(em_spmat_operator(M, &op));
    po.pmg.op = &op;
    em_pc *pco = NULL;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pco));
    apply(pco, be, r, z, n);
    double eo = test_rel_err(z, zr, n);
    em_pc_info io;
    em_pc_get_info(pco, &io);
    EXPECT(eo < 1e-10 && io.rows_bytes == 0 && info.rows_bytes > 0,
           "order %d, coarse %d, all %d, marked %d: pmg on the operator vs the reference %.2e, "
           "rows of its own %zu bytes (%zu without the operator)",
           cases[c].p, cases[c].coarse, cases[c].all, cases[c].marked, eo, io.rows_bytes,
           info.rows_bytes);
    /* the accounting: the components add up to info.bytes; the block
       inverses of point Jacobi are n entries of the levels (CSR: 16 B
       value, 4 B column per entry, and row offsets) */
    int32_t nlev_rows = n - info.coarse_n;
    EXPECT(io.bytes == io.smoother_bytes + io.index_bytes + io.work_bytes + io.coarse_bytes &&
               io.work_bytes == 3 * 16 * (size_t)n &&
               (cases[c].all || io.index_bytes == 4 * ((size_t)nlev_rows + (size_t)io.coarse_n)) &&
               io.smoother_bytes >= 20 * (size_t)nlev_rows &&
               io.coarse_factor_bytes >= 16 * (size_t)io.coarse_n &&
               io.coarse_factor_bytes <= io.coarse_bytes,
           "accounting: %zu = smoothers %zu + lists %zu + work %zu + coarse %zu (factor %zu)",
           io.bytes, io.smoother_bytes, io.index_bytes, io.work_bytes, io.coarse_bytes,
           io.coarse_factor_bytes);
    em_pc_destroy(&pco);
    em_spmat_destroy(&M);
    em_pc_destroy(&pc);
    free(r), free(z), free(zr), free(mark);
    em_csr_destroy(&A);
    em_blockmat_destroy(&B);
  }
}

/* em_pc_update with the values of another frequency (same pattern): the
 * kept coarse analysis refactored, the levels' matrices and smoothers
 * refilled in place; the result is the reference V-cycle of the new
 * matrix, equals a pmg built afresh on it to 1e-14 (the refill is bit for
 * bit; only the refactorization may round differently), with each
 * smoother, and the counters restart. */
static void test_update(em_backend be, em_pmg_smoother sm) {
  em_blockmat *B1 = system_of(3, 300.0, 1, NULL), *B2 = system_of(3, 240.0, 1, NULL);
  em_csr *A1 = NULL, *A2 = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B1, &A1));
  REQUIRE_OK(em_blockmat_to_csr(B2, &A2));
  int32_t n = A1->n_rows;
  em_pc_opts po = pmg_opts(B1, be, 1, sm, 0);
  uint8_t *mark = calloc((size_t)n, 1);
  for (int32_t i = 3; i < n; i += 5) mark[i] = 1;
  po.pmg.coarse_rows = mark;
  em_pc *pc = NULL, *fresh = NULL;
  REQUIRE_OK(em_pc_create(A1, &po, NULL, &pc));
  REQUIRE_OK(em_pc_create(A2, &po, NULL, &fresh));
  em_cplx *r = calloc((size_t)n, sizeof *r), *z = calloc((size_t)n, sizeof *z),
          *zr = calloc((size_t)n, sizeof *zr);
  unsigned long long seed = 5;
  for (int32_t i = 0; i < n; i++) r[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
  apply(pc, be, r, z, n);
  REQUIRE_OK(em_pc_update(pc, A2, NULL));
  apply(pc, be, r, z, n);
  apply(fresh, be, r, zr, n);
  double ef = test_rel_err(z, zr, n);
  EXPECT(ef <= 1e-14, "update (%s): updated pmg vs one built on the new values %.2e",
         em_pmg_smoother_name(sm), ef);
  if (sm == EM_PMG_JACOBI) { /* the reference V-cycle smooths by point Jacobi */
    reference(A2, &po.pmg, r, zr);
    double e = test_rel_err(z, zr, n);
    reference(A1, &po.pmg, r, zr);
    double e1 = test_rel_err(z, zr, n);
    EXPECT(e < 1e-10 && e1 > 1e-3,
           "update: pmg of the new values vs their reference V-cycle %.2e (vs the old values' "
           "%.2e)",
           e, e1);
    /* with the residuals from an operator refilled with the new values */
    em_spmat *M = NULL;
    em_spmat_opts so;
    em_spmat_opts_default(&so);
    so.backend = be;
    REQUIRE_OK(em_spmat_create(A1, &so, &M));
    em_operator op;
    REQUIRE_OK(em_spmat_operator(M, &op));
    em_pc_opts pp = po;
    pp.pmg.op = &op;
    em_pc *pco = NULL;
    REQUIRE_OK(em_pc_create(A1, &pp, NULL, &pco));
    REQUIRE_OK(em_spmat_refill(M, A2));
    REQUIRE_OK(em_pc_update(pco, A2, NULL));
    apply(pco, be, r, zr, n);
    double eo = test_rel_err(z, zr, n);
    EXPECT(eo < 1e-12, "update with the operator: vs the updated pmg with rows of its own %.2e",
           eo);
    em_pc_destroy(&pco);
    em_spmat_destroy(&M);
  }
  em_pc_info info;
  em_pc_get_info(pc, &info);
  EXPECT(info.applies == 1 && info.updates == 1, "update: %lld applies, %d updates counted",
         (long long)info.applies, (int)info.updates);
  em_pc_destroy(&pc);
  em_pc_destroy(&fresh);
  free(r), free(z), free(zr), free(mark);
  em_csr_destroy(&A1);
  em_csr_destroy(&A2);
  em_blockmat_destroy(&B1);
  em_blockmat_destroy(&B2);
}

/* u^T M^-1 v = v^T M^-1 u for the block smoother, one and two coarse groups */
static void test_symmetric(em_backend be) {
  for (int coarse = 1; coarse <= 2; coarse++) {
    em_blockmat *B = system_of(3, 300.0, 1, NULL);
    em_csr *A = NULL;
    REQUIRE_OK(em_blockmat_to_csr(B, &A));
    int32_t n = A->n_rows;
    em_pc_opts po = pmg_opts(B, be, coarse, EM_PMG_BLOCK, 0);
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
    em_cplx *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v),
            *Mu = calloc((size_t)n, sizeof *Mu), *Mv = calloc((size_t)n, sizeof *Mv);
    unsigned long long seed = 3;
    for (int32_t i = 0; i < n; i++) {
      u[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
      v[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
    }
    apply(pc, be, u, Mu, n);
    apply(pc, be, v, Mv, n);
    em_cplx a = 0, b = 0;
    double s = 0;
    for (int32_t i = 0; i < n; i++) a += v[i] * Mu[i], b += u[i] * Mv[i], s += cabs(v[i] * Mu[i]);
    EXPECT(cabs(a - b) < 1e-12 * s, "coarse %d: v^T M u - u^T M v = %.2e of %.2e", coarse,
           cabs(a - b), s);
    em_pc_destroy(&pc);
    free(u), free(v), free(Mu), free(Mv);
    em_csr_destroy(&A);
    em_blockmat_destroy(&B);
  }
}

/* Group 2 of an order-2 system with PEC walls: a block per interior edge
 * (1 DOF) and per interior face (2 DOFs), so blocks = rows - faces (the
 * boundary entities, eliminated, would otherwise share patterns: a corner
 * edge and the faces of its one tet see the same DOFs). */
static void test_blocks(void) {
  em_mesh *m = NULL;
  em_blockmat *B = system_of(2, 300.0, 1, &m);
  em_csr *A = NULL, *D = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t nblk = 0;
  int32_t rows = B->offset[2] - B->offset[1];
  int32_t *list = calloc((size_t)rows, sizeof *list);
  for (int32_t k = 0; k < rows; k++) list[k] = B->offset[1] + k;
  REQUIRE_OK(em_pmg_block_inverse(A, list, rows, EM_PMG_MAX_BLOCK, 0, 1.0, &D, &nblk));
  free(list);
  int32_t fi = 0;
  for (int32_t f = 0; f < m->n_face; f++) fi += m->face_tet[2 * f + 1] >= 0;
  EXPECT(nblk == rows - fi, "group 2: %d blocks for %d rows and %d interior faces", nblk, rows, fi);
  /* D is the inverse of the block diagonal: D B = I on each block */
  int32_t a = B->offset[1], bad = 0;
  for (int32_t i = 0; i < D->n_rows; i++)
    for (int64_t p = D->rowptr[i]; p < D->rowptr[i + 1]; p++) {
      int32_t j = D->colind[p]; /* (D A_blk)(i, j) over the block of i */
      em_cplx s = 0;
      for (int64_t q = D->rowptr[i]; q < D->rowptr[i + 1]; q++) {
        int32_t k = D->colind[q];
        for (int64_t t = A->rowptr[a + k]; t < A->rowptr[a + k + 1]; t++)
          if (A->colind[t] == a + j) s += D->val[q] * A->val[t];
      }
      bad += cabs(s - (i == j)) > 1e-10;
    }
  EXPECT(bad == 0, "%d entries of D B differ from the identity", bad);
  em_csr_destroy(&D);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
  em_mesh_destroy(&m);
}

/* GMRES and COCG with pmg below (k0 = 80 rad/m in eps_r 2) and past
 * (k0 = 200 rad/m) the first resonance of the 30 mm box (TE101 at 105
 * rad/m), iteration bounds a little above those measured: the indefinite
 * system needs several times the iterations (docs/solvers.md). */
static void test_converge(em_backend be, double k0, int max_it) {
  em_blockmat *B = system_of(3, k0, 1, NULL);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t n = A->n_rows;
  em_cplx *xt = calloc((size_t)n, sizeof *xt), *b = calloc((size_t)n, sizeof *b),
          *x = calloc((size_t)n, sizeof *x);
  prob_rhs(A, xt, b);
  test_op op;
  REQUIRE_OK(test_op_create(A, be, EM_PREC_DOUBLE, &op));
  em_pc_opts po = pmg_opts(B, be, 1, EM_PMG_BLOCK, 0);
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  static const em_ksp_method methods[] = {EM_KSP_GMRES, EM_KSP_COCG};
  for (int k = 0; k < 2; k++) {
    em_ksp_opts ko;
    em_ksp_opts_default(&ko);
    ko.method = methods[k];
    ko.tol = 1e-10;
    ko.max_it = 400;
    em_ksp_stats st;
    memset(x, 0, (size_t)n * sizeof *x);
    REQUIRE_OK(em_ksp_solve(&op.op, pc, b, x, &ko, &st));
    EXPECT(st.reason == EM_KSP_CONVERGED && st.true_rel_res < 1e-9 && st.iterations <= max_it,
           "k0 %g: %s + pmg: %s in %d iterations (bound %d), residual %.2e", k0,
           em_ksp_method_name(methods[k]), em_ksp_reason_name(st.reason), st.iterations, max_it,
           st.true_rel_res);
    if (getenv("EM_TEST_VERBOSE"))
      fprintf(stderr, "k0 %g: %s + pmg: %d iterations, residual %.2e\n", k0,
              em_ksp_method_name(methods[k]), st.iterations, st.true_rel_res);
  }
  em_pc_destroy(&pc);
  test_op_destroy(&op);
  free(xt), free(b), free(x);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

static void test_bad_input(void) {
  em_blockmat *B = system_of(2, 300.0, 1, NULL);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  em_pc_opts po = pmg_opts(B, EM_BACKEND_CPU, 2, EM_PMG_BLOCK, 0);
  em_pc *pc = NULL;
  EXPECT_ERR(em_pc_create(A, &po, NULL, &pc), EM_ERR_INPUT); /* every group coarse */
  po = pmg_opts(B, EM_BACKEND_CPU, 1, EM_PMG_BLOCK, 0);
  po.pmg.nb = 1;
  po.pmg.offset[1] = A->n_rows;
  EXPECT_ERR(em_pc_create(A, &po, NULL, &pc), EM_ERR_INPUT); /* order 1 only */
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

/* The V-cycle's profile (em_pc_pmg_profile, issue 28): its bookkeeping, not
 * its times: cycles and columns of single and block applies (17 columns =
 * two cycles), the steps of each part as the cycle's shape gives them, the
 * parts summing to the cycle's total and to pc->info's three timers, the
 * levels' rows; a reset empties it; another type is refused. */
static void test_profile(em_backend be) {
  em_blockmat *B = system_of(3, 300.0, 1, NULL);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t n = A->n_rows;
  em_pc_opts po = pmg_opts(B, be, 1, EM_PMG_BLOCK, 0);
  em_pc *pc = NULL;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  enum { NC = 17 };
  em_vec *w = NULL;
  void *R = NULL, *Z = NULL;
  REQUIRE_OK(em_vec_create(be, EM_PREC_DOUBLE, n, 1, &w));
  REQUIRE_OK(w->ops->alloc(w, NC, &R));
  REQUIRE_OK(w->ops->alloc(w, NC, &Z));
  em_cplx *h = calloc((size_t)n, sizeof *h);
  unsigned long long seed = 17;
  const void *rc[NC];
  void *zc[NC];
  for (int j = 0; j < NC; j++) {
    for (int32_t i = 0; i < n; i++) h[i] = em_test_rand(&seed) - 0.5 + I * em_test_rand(&seed);
    REQUIRE_OK(w->ops->upload(w, h, em_vec_col(w, R, j)));
    rc[j] = em_vec_col(w, R, j), zc[j] = em_vec_col(w, Z, j);
  }
  EXPECT_OK(em_pc_apply(pc, rc[0], zc[0])); /* before the reset: not counted */
  em_pc_pmg_profile_reset(pc);
  em_pmg_profile pf;
  EXPECT_OK(em_pc_pmg_profile(pc, &pf));
  EXPECT(pf.cycles == 0 && pf.total_ms == 0, "reset leaves %lld cycles", (long long)pf.cycles);
  em_pc_info i0, i1;
  em_pc_get_info(pc, &i0);
  EXPECT_OK(em_pc_apply(pc, rc[0], zc[0]));
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, 2, rc, zc));
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, NC, rc, zc));
  em_pc_get_info(pc, &i1);
  EXPECT_OK(em_pc_pmg_profile(pc, &pf));
  int64_t cyc = 4, steps = 2 * (int64_t)pf.nlev * po.pmg.sweeps;
  EXPECT(pf.cycles == cyc && pf.columns == 1 + 2 + NC, "%lld cycles of %lld columns",
         (long long)pf.cycles, (long long)pf.columns);
  EXPECT(pf.waits == cyc, "%lld host waits on the stamps in %lld cycles", (long long)pf.waits,
         (long long)pf.cycles);
  EXPECT(pf.nlev == 2, "%d levels above the order-1 coarse group", pf.nlev);
  int64_t want[EM_PMG_PARTS] = {
      cyc, cyc * (steps - 1), cyc * steps, cyc * steps, cyc * steps, cyc, cyc, cyc, cyc};
  double sum = 0, lsum = 0;
  for (int q = 0; q < EM_PMG_PARTS; q++) {
    EXPECT(pf.steps[q] == want[q], "part %s: %lld steps, want %lld",
           em_pmg_part_name((em_pmg_part)q), (long long)pf.steps[q], (long long)want[q]);
    EXPECT(pf.ms[q] >= 0, "part %s: %g ms", em_pmg_part_name((em_pmg_part)q), pf.ms[q]);
    sum += pf.ms[q];
  }
  for (int l = 0; l < pf.nlev; l++) lsum += pf.level_ms[l];
  double tol = 1e-9 * (1 + pf.total_ms);
  EXPECT(fabs(sum - pf.total_ms) <= tol, "parts %.9g ms, total %.9g ms", sum, pf.total_ms);
  double lev =
      pf.ms[EM_PMG_PRODUCT] + pf.ms[EM_PMG_GATHER] + pf.ms[EM_PMG_SMOOTH] + pf.ms[EM_PMG_SCATTER];
  EXPECT(fabs(lsum - lev) <= tol, "levels %.9g ms, their parts %.9g ms", lsum, lev);
  double res =
      pf.ms[EM_PMG_PRODUCT] + pf.ms[EM_PMG_GATHER] + pf.ms[EM_PMG_CPRODUCT] + pf.ms[EM_PMG_CGATHER];
  EXPECT(fabs((i1.t_residual - i0.t_residual) * 1e3 - res) <= tol,
         "info.t_residual %.9g ms, the profile's %.9g ms", (i1.t_residual - i0.t_residual) * 1e3,
         res);
  EXPECT(fabs((i1.t_coarse - i0.t_coarse) * 1e3 - pf.ms[EM_PMG_CSOLVE] - pf.ms[EM_PMG_CSCATTER]) <=
             tol,
         "info.t_coarse disagrees with the profile");
  EXPECT(pf.level_rows[0] == B->offset[3] - B->offset[2] &&
             pf.level_rows[1] == B->offset[2] - B->offset[1],
         "level rows %d, %d", pf.level_rows[0], pf.level_rows[1]);
  EXPECT(!strcmp(em_pmg_part_name(EM_PMG_CSOLVE), "coarse solve"), "part names");
  em_pc_destroy(&pc);
  /* 2 levels of 5 sweeps: 85 stamps a cycle (more than the former fixed
     list of 64), still one wait per cycle */
  po.pmg.sweeps = 5;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  EXPECT_OK(em_pc_apply(pc, rc[0], zc[0]));
  EXPECT_OK(em_pc_apply_multi(pc, EM_PREC_DOUBLE, 3, rc, zc));
  EXPECT_OK(em_pc_pmg_profile(pc, &pf));
  EXPECT(pf.cycles == 2 && pf.waits == 2, "5 sweeps: %lld waits in %lld cycles",
         (long long)pf.waits, (long long)pf.cycles);
  EXPECT(pf.steps[EM_PMG_SMOOTH] == 2 * 2 * 2 * 5, "5 sweeps: %lld smoother steps",
         (long long)pf.steps[EM_PMG_SMOOTH]);
  em_pc_destroy(&pc);
  po.type = EM_PC_JACOBI;
  REQUIRE_OK(em_pc_create(A, &po, NULL, &pc));
  EXPECT_ERR(em_pc_pmg_profile(pc, &pf), EM_ERR_ARG);
  em_pc_destroy(&pc);
  free(h);
  w->ops->free(w, &R), w->ops->free(w, &Z);
  em_vec_destroy(&w);
  em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

/* the coarse analysis a caller made ahead (em_pmg_opts.coarse_ahead) */
typedef struct ahead_ctx {
  em_coarse_ahead ah;
  int calls;
} ahead_ctx;

static void give_ahead(void *ctx, const em_log *log, em_coarse_ahead *ah) {
  (void)log;
  ahead_ctx *c = ctx;
  c->calls++;
  *ah = c->ah;
  c->ah.F = NULL; /* the V-cycle's now */
}

/* The V-cycle on a coarse analysis made ahead (model/fsys_overlap.c) is
 * the one analysed in order, bit for bit on the CPU: given an analysis of
 * A_CC's pattern (taken), of another pattern of the same order (a third
 * of its couplings cut: dropped, analysed in order), or none; the caller
 * asked once each time, before the coarse factor. */
static void test_coarse_ahead(em_backend be) {
  em_blockmat *B = system_of(3, 80.0, 1, NULL);
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(B, &A));
  int32_t n = A->n_rows, nc = 0, *cl = calloc((size_t)n, sizeof *cl);
  uint8_t *mark = calloc((size_t)n, 1); /* every 5th row above order 1 too */
  for (int32_t i = B->offset[1]; i < n; i += 5) mark[i] = 1;
  for (int32_t i = 0; i < n; i++)
    if (i < B->offset[1] || mark[i]) cl[nc++] = i;
  em_csr *C = NULL, *Cut = NULL;
  REQUIRE_OK(em_pmg_submatrix(A, cl, nc, cl, &C));
  REQUIRE_OK(em_csr_copy(C, &Cut));
  int64_t w = 0;
  for (int32_t i = 0; i < nc; i++) {
    for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++)
      if (C->colind[e] == i || (C->colind[e] + i) % 3)
        Cut->colind[w] = C->colind[e], Cut->val[w++] = C->val[e];
    Cut->rowptr[i + 1] = w;
  }
  Cut->nnz = w;
  em_pc_opts po = pmg_opts(B, be, 1, EM_PMG_BLOCK, 0), co;
  po.pmg.coarse_rows = mark;
  em_pmg_coarse_opts(&po, &co);
  EXPECT(co.type == EM_PC_DIRECT && co.ordering == EM_ORDERING_ND && co.backend == be,
         "the coarse factor's options: direct, nd, the V-cycle's backend");
  em_cplx *r = calloc((size_t)n, sizeof *r), *z[4];
  for (int32_t i = 0; i < n; i++) r[i] = cos(0.3 * i) + I * sin(0.11 * i);
  for (int v = 0; v < 4; v++) { /* 0: in order, 1: C's, 2: Cut's, 3: the caller has none */
    ahead_ctx ctx = {{NULL, 0}, 0};
    const em_csr *P = v == 1 ? C : v == 2 ? Cut : NULL;
    if (P) {
      ctx.ah.pattern = em_spmat_pattern_hash(P);
      REQUIRE_OK(em_pc_direct_analyse(P, &co, NULL, &ctx.ah.F));
    }
    em_pc_opts pv = po;
    if (v) pv.pmg.coarse_ahead = give_ahead, pv.pmg.coarse_ahead_ctx = &ctx;
    em_pc *pc = NULL;
    REQUIRE_OK(em_pc_create(A, &pv, NULL, &pc));
    EXPECT(ctx.calls == (v > 0) && !ctx.ah.F, "analysis %d: asked %d times", v, ctx.calls);
    z[v] = calloc((size_t)n, sizeof *z[v]);
    apply(pc, be, r, z[v], n);
    em_pc_destroy(&pc);
  }
  for (int v = 1; v < 4; v++) {
    double e = 0, s = 0;
    for (int32_t i = 0; i < n; i++) e += cabs(z[v][i] - z[0][i]), s += cabs(z[0][i]);
    if (be == EM_BACKEND_CPU)
      EXPECT(!memcmp(z[v], z[0], (size_t)n * sizeof *z[0]),
             "analysis %d: the V-cycle differs from the one analysed in order (%.2e)", v, e / s);
    else /* the GPU factor's atomics vary its last bits */
      EXPECT(e <= 1e-10 * s, "analysis %d: the V-cycle differs by %.2e", v, e / s);
  }
  for (int v = 0; v < 4; v++) free(z[v]);
  free(r), free(cl), free(mark);
  em_csr_destroy(&C), em_csr_destroy(&Cut), em_csr_destroy(&A);
  em_blockmat_destroy(&B);
}

int main(int argc, char **argv) {
  em_backend be = test_backend(argc, argv);
  test_reference(be);
  test_symmetric(be);
  test_block(be);
  test_profile(be);
  test_update(be, EM_PMG_JACOBI);
  test_update(be, EM_PMG_BLOCK);
  test_update(be, EM_PMG_ILU0);
  test_converge(be, 80.0, 400);
  test_converge(be, 200.0, 400);
  test_coarse_ahead(be);
  if (be == EM_BACKEND_CPU) {
    test_blocks();
    test_bad_input();
  }
  return TEST_RESULT();
}
