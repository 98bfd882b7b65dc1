/* dfsys.c - the frequency system solved by every rank together (issue 27,
 * docs/mpi.md "One case over several ranks"): rank 0 runs the case as one
 * rank would and tells the others each frequency (em_fsys_dist_tell); each
 * rank assembles the rows of the unknowns it owns only (em_dpart_build:
 * METIS parts of the tets; em_assembler_create_part: the tets that hold
 * one of its unknowns), builds its share of the distributed operator
 * (em_dmat: local order blocks plus ghost couplings, halo exchange under
 * the local product) and a preconditioner of its own diagonal block (block
 * Jacobi over the ranks: each block by Solver/preconditioner, a pmg's
 * coarse factor rank-local); the Krylov method is the serial one on the
 * distributed operator; the solution is gathered to rank 0. */
#include <string.h>

#include "fsys_impl.h"

#define TAG_DSOLVE 32690

typedef struct dcmd {
  int32_t solve; /* 1: solve at f; 0: the run is over */
  int32_t n_dof;
  int64_t n_tet;
  uint64_t mesh;   /* a hash of the tets' vertices and the unknowns */
  uint32_t excite; /* the ports excited (Excitation/ports) */
  double f;
} dcmd;

int em_fsys_distributed(const em_fsys *s) {
  return em_dist_size(s->d.dist) > 1;
}

static uint64_t mesh_hash(const em_fsys *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  const em_mesh *m = s->d.mesh;
  for (int64_t k = 0; k < 4 * (int64_t)m->n_tet; k++)
    h = (h ^ (uint64_t)m->tet[k]) * 1099511628211ull;
  for (int k = 0; k <= s->d.dofs->order; k++)
    h = (h ^ (uint64_t)s->d.dofs->offset[k]) * 1099511628211ull;
  return h;
}

em_err em_fsys_dist_tell(const em_fsys *s, double f) {
  dcmd c = {1, s->d.dofs->n_dof, s->d.mesh->n_tet, mesh_hash(s), s->d.excite, f};
  for (int r = 1; r < em_dist_size(s->d.dist); r++)
    EM_TRY(em_dist_send(s->d.dist, &c, sizeof c, r, TAG_DSOLVE));
  return EM_OK;
}

em_err em_fsys_release(const struct em_dist *d) {
  dcmd c = {0, 0, 0, 0, 0, 0};
  if (em_dist_rank(d) != 0) return EM_OK;
  for (int r = 1; r < em_dist_size(d); r++) EM_TRY(em_dist_send(d, &c, sizeof c, r, TAG_DSOLVE));
  return EM_OK;
}

em_err em_fsys_serve(em_fsys *s, const em_log *log) {
  const em_dist *d = s->d.dist;
  for (;;) {
    dcmd c;
    int from;
    size_t n = 0;
    EM_TRY(em_dist_probe(d, 0, TAG_DSOLVE, EM_DIST_IDLE, &from, &n));
    EM_TRY(em_dist_recv(d, &c, sizeof c, 0, TAG_DSOLVE, NULL, &n));
    if (!c.solve) return EM_OK;
    EM_CHECK(c.n_dof == s->d.dofs->n_dof && c.n_tet == s->d.mesh->n_tet && c.mesh == mesh_hash(s),
             EM_ERR_INPUT,
             "rank %d meshed the case into %lld tets and %d unknowns, rank 0 into %lld and %d (or "
             "other tets): a distributed solve needs the same mesh on every rank",
             em_dist_rank(d), (long long)s->d.mesh->n_tet, s->d.dofs->n_dof, (long long)c.n_tet,
             c.n_dof);
    EM_CHECK(c.excite == s->d.excite, EM_ERR_INPUT,
             "rank %d excites the ports 0x%x, rank 0 0x%x (Excitation/ports): a distributed "
             "solve needs the same on every rank",
             em_dist_rank(d), (unsigned)s->d.excite, (unsigned)c.excite);
    em_fsys_stats st;
    em_system *sys = NULL;
    em_cplx *x = NULL;
    EM_TRY(em_fsys_solve(s, c.f, log, &st, &sys, &x));
    em_system_destroy(&sys);
    em_free(&x);
  }
}

void em_fsys_dfree(em_fsys *s) {
  em_fsys_dahead_free(s);
  em_fsys_dopb_free(s); /* reads s->dm */
  em_pc_destroy(&s->pc);
  em_dmat_destroy(&s->dm);
  em_free(&s->owner);
  em_free(&s->brow);
}

/* Once per mesh, before the first assembly: the parts, the owners, and
 * the assembler of this rank's rows. */
em_err em_fsys_dpart(em_fsys *s, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  int P = em_dist_size(d->dist);
  int32_t *tp = NULL;
  em_free(&s->owner); /* what a failed first solve left */
  EM_TRY(em_calloc(&s->owner, (size_t)d->dofs->n_dof + 1, sizeof *s->owner, "owners"));
  EM_TRY(em_calloc(&tp, (size_t)d->mesh->n_tet + 1, sizeof *tp, "tet parts"));
  double t = em_wtime();
  em_err err = em_dpart_share(d->dist, d->mesh, d->dofs, tp, s->owner);
  em_free(&tp);
  EM_TRY(err);
  em_log_info(log,
              "distributed solve over %d ranks: METIS parts of the tets (on rank 0, sent to the "
              "others) in %.2f s",
              P, em_wtime() - t);
  t = em_wtime();
  EM_TRY(em_assembler_create_part(d->mesh, d->dofs, s->owner, em_dist_rank(d->dist), &s->asm_));
  if (d->one_solve) em_assembler_no_cache(s->asm_);
  em_log_info(log, "this rank's assembler (its rows' pattern and tets) in %.2f s", em_wtime() - t);
  return EM_OK;
}

/* Every rank's assembly done, or all stop: a part's assembly can fail on
 * one rank only (a bad tet or material is in one part), and the others
 * would wait for it in the operator's collective set-up. */
em_err em_fsys_dist_agree(const em_fsys *s, em_err err) {
  int bad = err ? em_dist_rank(s->d.dist) : -1;
  em_err e = em_dist_allreduce(s->d.dist, &bad, 1, EM_DIST_INT, EM_DIST_MAX);
  if (err) return err;
  EM_TRY(e);
  EM_CHECK(bad < 0, EM_ERR_INPUT, "the assembly of rank %d's rows failed (its log says why)", bad);
  return EM_OK;
}

/* brow[k] = the row of sys (its unknowns, ascending) of the operator's
 * local unknown k: the right-hand sides' entries */
static em_err rhs_rows(em_fsys *s, const em_system *sys) {
  em_dmat_info in;
  em_dmat_get_info(s->dm, &in);
  em_free(&s->brow);
  EM_TRY(em_calloc(&s->brow, (size_t)in.n_own + 1, sizeof *s->brow, "right-hand side rows"));
  for (int32_t k = 0; k < in.n_own; k++) {
    int32_t lo = 0, hi = sys->n_row - 1, want = in.l2g[k];
    while (lo < hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (sys->row[mid] < want)
        lo = mid + 1;
      else
        hi = mid;
    }
    EM_CHECK(sys->n_row > 0 && sys->row[lo] == want, EM_ERR_INTERNAL,
             "unknown %d is this rank's but not among its assembled rows", want);
    s->brow[k] = lo;
  }
  return EM_OK;
}

void em_fsys_dpc_opts(const em_fsys *s, int nb, em_pc_opts *pco) {
  *pco = s->d.solve->pc;
  pco->backend = s->d.backend;
  /* auto: the V-cycle over the ranks (block Jacobi of direct factors
     converges slowly on an antenna: the blocks' interfaces cut the field) */
  if (s->d.solve->pc_auto && nb >= 2) pco->type = EM_PC_PMG;
}

/* the coarse set is the first PMG/coarse groups and the PML unknowns
   (PMG/pml_coarse), as on one rank */
em_err em_fsys_dcoarse(em_fsys *s, const em_pc_opts *pco, uint8_t **cg) {
  return em_fsys_coarse_set(&s->d, pco->pmg.coarse, NULL, cg); /* fsys_coarse.c */
}

/* the V-cycle over the ranks, on rank 0's coarse analysis made ahead when
   there is one (dfsys_ahead.c) */
static em_err pmg(em_fsys *s, const em_pc_opts *pco, int nb, const em_log *log) {
  uint8_t *cg = NULL;
  EM_TRY(em_fsys_dcoarse(s, pco, &cg));
  em_dmat_coarse_ahead ah;
  em_fsys_dahead_take(s, nb, cg, log, &ah);
  em_err err = em_dmat_pmg_ahead(s->dm, pco, cg, &ah, log, &s->pc);
  em_direct_destroy(&ah.F);
  em_free(&cg);
  return err;
}

/* the rank's share of the operator and its preconditioner; with the
   V-cycle the share's formats on a thread beside its set-up
   (dfsys_opbeside.c), joined before the first product */
static em_err build(em_fsys *s, em_system *sys, const em_log *log, em_fsys_stats *st) {
  const em_fsys_desc *d = &s->d;
  em_csr *Dc = NULL;
  em_err err = EM_OK;
  em_fsys_dopb_free(s);
  em_pc_destroy(&s->pc);
  em_dmat_destroy(&s->dm);
  double t0 = em_wtime();
  em_pc_opts pco;
  em_fsys_dpc_opts(s, sys->A->nb, &pco); /* the operator's groups: the assembled ones */
  em_dmat_desc ds = {.n_glob = d->dofs->n_dof, .nb = sys->A->nb, .owner = s->owner};
  memcpy(ds.offset, sys->A->offset, sizeof ds.offset);
  ds.A_give = &sys->A; /* split straight from the blocks, freed once split */
  ds.defer_op = em_fsys_dopb_wanted(pco.type == EM_PC_PMG && d->solve->overlap);
  em_blockop_opts bop = d->solve->bop;
  bop.backend = d->backend;
  bop.prec = EM_PREC_DOUBLE;
  em_stage_begin(log, EM_STAGE_OPERATOR);
  err = em_dmat_create(d->dist, &ds, &bop, &s->dm);
  if (!err && ds.defer_op) err = em_fsys_dopb_start(s, log); /* or built now */
  em_stage_end(log, EM_STAGE_OPERATOR, "this rank's share and its halo");
  EM_TRY(err);
  em_dmat_info in;
  em_dmat_get_info(s->dm, &in);
  if (s->dopb)
    em_log_verbose(log,
                   "operator: %.2f s the ghosts and the halo plan, %.2f s the assembled rows "
                   "split into the local blocks in row order and the ghosts' couplings, the "
                   "blocks' formats on a thread of their own beside the V-cycle's set-up, "
                   "%.2f s the couplings and halo buffers",
                   in.t_build[0], in.t_build[1], in.t_build[3]);
  else
    em_log_verbose(log,
                   "operator: %.2f s the ghosts and the halo plan, %.2f s the assembled rows "
                   "split into the local blocks in row order and the ghosts' couplings, %.2f s "
                   "the blocks' formats, %.2f s the couplings and halo buffers",
                   in.t_build[0], in.t_build[1], in.t_build[2], in.t_build[3]);
  EM_TRY_GOTO(err, rhs_rows(s, sys), fail);
  st->t_operator = em_wtime() - t0;
  t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_PC);
  if (pco.type == EM_PC_PMG) {
    err = pmg(s, &pco, in.nb, log);
  } else {
    em_fsys_dahead_free(s); /* (made for a V-cycle: not this pc) */
    err = em_blockmat_to_csr(in.D, &Dc);
    if (!err) err = em_pc_create(Dc, &pco, log, &s->pc);
    em_csr_destroy(&Dc);
  }
  em_stage_end(log, EM_STAGE_PC, "preconditioner set up");
  EM_TRY_GOTO(err, err, fail);
  em_pc_get_info(s->pc, &st->pc);
  st->t_pc = em_wtime() - t0;
  if (s->dopb) { /* the formats joined: the wait is the operator stage's */
    t0 = em_wtime();
    em_stage_begin(log, EM_STAGE_OPERATOR);
    err = em_fsys_dopb_take(s, log);
    em_stage_end(log, EM_STAGE_OPERATOR, "the blocks' formats joined");
    EM_TRY(err);
    st->t_operator += em_wtime() - t0;
    em_dmat_get_info(s->dm, &in);
  }
  EM_TRY(em_blockop_operator(in.op, &s->opD));
  /* the layout on rank 0's log: the shares' spread */
  int64_t v[4] = {in.n_own, -in.n_own, in.n_ghost, in.n_neighbour};
  EM_TRY(em_dist_allreduce(d->dist, v, 4, EM_DIST_INT64, EM_DIST_MAX));
  const char *how = pco.type == EM_PC_PMG ? "the order-group V-cycle over the ranks (the "
                                            "coarse level gathered to rank 0)"
                                          : "block Jacobi over the ranks, each block by ";
  em_log_info(log,
              "distributed operator: %d ranks, %lld..%lld unknowns each (rank %d: %d, %d ghosts, "
              "%d neighbours; at most %lld ghosts, %lld neighbours); preconditioner: %s%s",
              em_dist_size(d->dist), (long long)-v[1], (long long)v[0], em_dist_rank(d->dist),
              in.n_own, in.n_ghost, in.n_neighbour, (long long)v[2], (long long)v[3], how,
              pco.type == EM_PC_PMG ? "" : em_pc_type_name(pco.type));
  return EM_OK;
fail:
  em_fsys_dopb_free(s);
  return err;
}

em_err em_fsys_dsolve(em_fsys *s, em_system *sys, int ns, const em_log *log, em_fsys_stats *st,
                      em_cplx *x) {
  const em_fsys_desc *d = &s->d;
  int32_t n = d->dofs->n_dof;
  EM_CHECK(s->owner && sys->row, EM_ERR_INTERNAL, "a distributed solve without its parts");
  EM_TRY(build(s, sys, log, st));
  em_dmat_info in;
  em_dmat_get_info(s->dm, &in);
  em_operator A;
  EM_TRY(em_dmat_operator(s->dm, &A));
  /* the ports as blocks of rhs_block columns (0: all), each one lockstep
     em_ksp_solve_multi over the ranks: every iteration's reductions of all
     its columns in one sum over the ranks (the operator's and the V-cycle's
     applications column by column) */
  int rb = d->solve->rhs_block, blk = rb > 0 && rb < ns ? rb : (ns > 0 ? ns : 1);
  size_t no = (size_t)in.n_own;
  em_cplx *bl = NULL, *xl = NULL;
  em_err err = EM_OK;
  EM_TRY_GOTO(err, em_calloc(&bl, no * blk + 1, sizeof *bl, "right-hand sides"), done);
  EM_TRY_GOTO(err, em_calloc(&xl, no * blk + 1, sizeof *xl, "solutions"), done);
  em_ksp_opts ko = d->solve->ksp;
  ko.log = log;
  ko.log_every = log && log->level >= EM_LOG_VERBOSE ? 10 : 100;
  st->converged = 1;
  st->n_solve = ns;
  double t0 = em_wtime();
  for (int e0 = 0; e0 < ns; e0 += blk) {
    int m = ns - e0 < blk ? ns - e0 : blk;
    for (int j = 0; j < m; j++)
      for (size_t k = 0; k < no; k++)
        bl[j * no + k] = sys->b[(size_t)(e0 + j) * sys->n_row + s->brow[k]];
    memset(xl, 0, no * m * sizeof *xl);
    int ports = d->setup->n_port && !d->port_source;
    if (ports && m == 1)
      em_log_info(log, "solving for %s (%d unknowns over %d ranks)",
                  d->setup->port[em_fsys_port(d, e0)].name, n, em_dist_size(d->dist));
    else if (ports)
      em_log_info(log,
                  "solving for %s .. %s together (%d right-hand sides, %d unknowns over %d ranks)",
                  d->setup->port[em_fsys_port(d, e0)].name,
                  d->setup->port[em_fsys_port(d, e0 + m - 1)].name, m, n, em_dist_size(d->dist));
    em_stage_begin(log, EM_STAGE_SOLVE);
    err = em_ksp_solve_multi(&A, s->pc, m, bl, (int64_t)no, xl, (int64_t)no, &ko, &st->ksp[e0]);
    for (int j = 0; j < m && !err; j++) /* collective: every rank, every column */
      err = em_dmat_gather(s->dm, xl + j * no, x ? x + (size_t)(e0 + j) * n : NULL);
    em_stage_end(log, EM_STAGE_SOLVE, "excitations %d .. %d", e0 + 1, e0 + m);
    if (err) goto done;
    em_fsys_warn_unconverged(d, ko.method, e0, m, log, st);
  }
  em_dmat_get_info(s->dm, &in);
  em_log_info(log, "distributed solve: %.2f s, %lld products, this rank waited %.3f s for halos",
              em_wtime() - t0, (long long)in.applies, in.t_halo_wait);
  em_pc_info pi;
  double tv[4];
  em_pc_get_info(s->pc, &pi);
  em_dmat_pmg_times(s->pc, tv);
  if (pi.type == EM_PC_PMG) /* where the V-cycles' time went (rank 0 solves the coarse level) */
    em_log_info(log,
                "distributed pmg: %lld V-cycles, smoother %.2f s, residual products %.2f s, coarse "
                "level %.2f s in transfers and waiting, %.2f s in its solves",
                (long long)pi.applies, tv[0], tv[1], tv[2], tv[3]);
done:
  em_free(&bl);
  em_free(&xl);
  return err;
}
