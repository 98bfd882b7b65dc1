/* fsys.c - the frequency system of a fixed mesh (em_model.h): built once,
 * refreshed and solved per frequency. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fsys_impl.h"

/* gamma = j k0 sqrt(eps_r mu_r) / mu_r per medium: the first-order ABC of a
 * plane wave leaving the medium normally */
em_err em_abc_robins(const em_mesh *m, const em_medium *medium, const int32_t *abc_face,
                     int32_t n_abc, double k0, em_robin *rb, int cap, int *n_out) {
  int n_rb = 0;
  *n_out = 0;
  for (int g = 0; g < m->n_group && n_abc; g++) {
    if (m->group[g].dim != 3) continue;
    int32_t n = 0;
    for (int32_t k = 0; k < n_abc; k++) n += m->tet_group[m->face_tet[2 * abc_face[k]]] == g;
    if (!n) continue;
    if (n_rb >= cap) {
      em_abc_free(rb, n_rb);
      return EM_RAISE(EM_ERR_INPUT, "too many media on the outer boundary (%d at most)", cap);
    }
    int32_t *list = NULL;
    em_err err = em_calloc(&list, (size_t)n, sizeof *list, "ABC faces");
    if (err) {
      em_abc_free(rb, n_rb);
      return err;
    }
    n = 0;
    for (int32_t k = 0; k < n_abc; k++)
      if (m->tet_group[m->face_tet[2 * abc_face[k]]] == g) list[n++] = abc_face[k];
    em_robin *a = &rb[n_rb++];
    memset(a, 0, sizeof *a);
    a->group = -1;
    a->faces = list;
    a->n_faces = n;
    a->gamma = I * k0 * csqrt(medium[g].eps_r * medium[g].mu_r) / medium[g].mu_r;
  }
  *n_out = n_rb;
  return EM_OK;
}

void em_abc_free(em_robin *rb, int n) {
  for (int i = 0; i < n; i++) {
    int32_t *f = (int32_t *)rb[i].faces;
    em_free(&f);
    rb[i].faces = NULL;
  }
}

static void acsr_free(em_fsys *s);

int em_fsys_port(const em_fsys_desc *d, int col) {
  int np = d->setup->n_port;
  int p = em_excite_port(d->excite ? d->excite : em_excite_all(np), col);
  return p >= 0 && p < np ? p : 0;
}

em_err em_fsys_create(const em_fsys_desc *d, em_fsys **out) {
  EM_CHECK(d->mesh && d->dofs && d->setup && d->solve, EM_ERR_ARG,
           "problem object without a mesh, unknowns, setup or solver options");
  const em_setup *su = d->setup;
  EM_CHECK(su->n_port >= 0 && su->n_port <= EM_MAX_PORTS, EM_ERR_ARG, "%d ports (at most %d)",
           su->n_port, EM_MAX_PORTS);
  EM_CHECK(!(d->excite & ~em_excite_all(su->n_port)), EM_ERR_ARG,
           "excited ports 0x%x beyond the case's %d", (unsigned)d->excite, su->n_port);
  em_fsys *s = NULL;
  em_err err = EM_OK;
  EM_TRY(em_calloc(&s, 1, sizeof *s, "frequency system"));
  s->d = *d;
  const em_mesh *m = d->mesh;
  if (su->has_pml) {
    EM_TRY_GOTO(err, em_calloc(&s->vary, (size_t)m->n_tet, 1, "PML tets"), fail);
    for (int32_t t = 0; t < m->n_tet; t++) s->vary[t] = (uint8_t)su->medium[m->tet_group[t]].is_pml;
  }
  /* a distributed solve's assembler holds this rank's rows: made with the
     parts, at the first solve (dfsys.c) */
  if (!(em_fsys_distributed(s) && !d->periodic))
    EM_TRY_GOTO(err, em_assembler_create(m, d->dofs, &s->asm_), fail);
  if (s->asm_ && d->one_solve) em_assembler_no_cache(s->asm_);
  EM_TRY_GOTO(err,
              em_abc_robins(m, su->medium, su->abc_face, su->n_abc, 1.0, s->abc,
                            FSYS_MAX_ROBIN - su->n_port, &s->n_abc_terms),
              fail);
  *out = s;
  return EM_OK;
fail:
  em_fsys_destroy(&s);
  return err;
}

void em_fsys_destroy(em_fsys **sp) {
  em_fsys *s = *sp;
  if (!s) return;
  em_fsys_ahead_free(s); /* before the assembler it reads */
  em_fsys_opb_free(s);   /* before the matrix it reads */
  em_fsys_next_free(s);  /* before the assembler it uses */
  em_abc_free(s->abc, s->n_abc_terms);
  em_assembler_destroy(&s->asm_);
  em_free(&s->vary);
  em_free(&s->perm);
  em_free(&s->pml_rows);
  em_free(&s->pml_block);
  em_pc_destroy(&s->pc);
  em_blockop_destroy(&s->op);
  em_free(&s->src);
  acsr_free(s);
  em_fsys_dfree(s);
  em_free(sp);
}

/* rows, columns, entries and the longest row of each block of B */
static void block_sizes(const em_blockmat *B, em_fsys_block blk[EM_MAX_ORDER][EM_MAX_ORDER]) {
  for (int i = 0; i < B->nb; i++)
    for (int j = 0; j < B->nb; j++) {
      const em_csr *M = B->blk[i][j];
      em_fsys_block *b = &blk[i][j];
      b->rows = M->n_rows;
      b->cols = M->n_cols;
      b->nnz = M->nnz;
      b->row_max = 0;
      for (int32_t k = 0; k < M->n_rows; k++) {
        int32_t l = (int32_t)(M->rowptr[k + 1] - M->rowptr[k]);
        if (l > b->row_max) b->row_max = l;
      }
    }
}

void em_fsys_operator(const em_fsys *s, int *nb, em_fsys_block blk[EM_MAX_ORDER][EM_MAX_ORDER],
                      const em_blockop **op) {
  *op = s->op;
  *nb = s->nb;
  memcpy(blk, s->blk, sizeof s->blk);
  if (s->dm) { /* distributed: this rank's local part */
    em_dmat_info in;
    em_dmat_get_info(s->dm, &in);
    *op = in.op;
    *nb = in.D->nb;
    block_sizes(in.D, blk);
  }
}

int em_fsys_ready(const em_fsys *s) {
  return s->pc != NULL;
}

/* pmg: the unknowns of PML tets join the coarse factor (the order-1 space
 * cannot follow the stretched field of a layer a few elements thick);
 * PMG/pml_coarse N takes those of the order groups 1..N (3: all; auto: N =
 * the highest order of the PML's own tets, so that a PML at a lower order
 * than its neighbours (order per region) leaves their functions on its
 * interface to the smoothers: docs/solvers.md) */
static em_err pml_coarse_rows(em_fsys *s) {
  const em_fsys_desc *d = &s->d;
  int32_t n = d->dofs->n_dof;
  EM_TRY(em_calloc(&s->pml_rows, (size_t)n + 1, 1, "PML unknowns"));
  if (d->solve->pmg_pml_block) EM_TRY(em_calloc(&s->pml_block, (size_t)n + 1, 1, "PML unknowns"));
  /* fsys_coarse.c: the analysis made ahead marks the same rows */
  em_fsys_pml_mark(d, em_fsys_pml_groups(d), s->perm, s->pml_rows);
  if (s->pml_block) em_fsys_pml_mark(d, EM_MAX_ORDER, s->perm, s->pml_block);
  return EM_OK;
}

/* The preconditioner: created on the first matrix, refactored later.  With
 * pc_auto a direct factor that fits nowhere gives way to the order-group
 * V-cycle (about nnz(A) plus the order-1 factor), or ILU(0) with one group. */
static em_err precondition(em_fsys *s, const em_blockop_opts *bop, int block, const em_log *log) {
  const em_fsys_desc *d = &s->d;
  const em_csr *A = NULL;
  em_err err = EM_OK;
  em_pc_opts pco = d->solve->pc;
  pco.backend = d->backend;
  /* the assembler's pattern (entity adjacency) is symmetric: test_assembly_system */
  pco.pattern_symmetric = 1; /* the assembler's pattern is symmetric */
  pco.block_columns = block; /* solve_all's block of excitations */
  pco.pmg.nb = s->nb;        /* the V-cycle's levels: the order groups */
  memcpy(pco.pmg.offset, s->offset, sizeof pco.pmg.offset);
  const em_solve_opts *so = d->solve;
  if ((so->pmg_pml_coarse || so->pmg_pml_block) && d->setup->has_pml && !s->pml_rows)
    EM_TRY(pml_coarse_rows(s));
  pco.pmg.coarse_rows = so->pmg_pml_coarse ? s->pml_rows : NULL; /* auto: -1 */
  pco.pmg.block_rows = s->pml_block;
  pco.pmg.block_direct = so->pmg_pml_block == 2;
  /* the residuals from the Krylov operator, filled once it exists (after
     this at the first frequency: see em_fsys_solve) */
  if (!s->op)
    s->opA = (em_operator){.n = s->offset[s->nb], .backend = d->backend, .prec = EM_PREC_DOUBLE};
  pco.pmg.op = &s->opA;
  A = s->Acsr; /* every type takes the whole CSR (none checks the size) */
  if (s->pc) {
    err = em_pc_update(s->pc, A, log);
  } else {
    em_direct *F = NULL; /* the analysis made beside the assembly (fsys_overlap.c) */
    em_fsys_ahead_take(s, log, &F);
    if (pco.type == EM_PC_PMG) { /* its coarse level's: asked for by its set-up */
      pco.pmg.coarse_ahead = em_fsys_ahead_coarse;
      pco.pmg.coarse_ahead_ctx = s;
    }
    /* the operator beside the factorization or pmg's set-up (fsys_opbeside.c) */
    em_fsys_opb_start(s, F, pco.type == EM_PC_PMG && so->overlap, bop, log);
    err = F ? em_pc_create_analysed(A, &pco, &F, log, &s->pc) : em_pc_create(A, &pco, log, &s->pc);
    if (err == EM_ERR_MEMORY && d->solve->pc_auto) {
      em_pc_type next = s->nb >= 2 ? EM_PC_PMG : EM_PC_ILU0;
      em_log_warn(log, "%s; auto: %s instead", em_error_message(), em_pc_type_name(next));
      em_error_clear();
      pco.type = next;
      if (next == EM_PC_ILU0 && d->solve->ordering_auto) pco.ordering = EM_ORDERING_RCM;
      err = em_pc_create(A, &pco, log, &s->pc);
    }
    em_fsys_ahead_free(s); /* a set-up that failed before asking for it */
  }
  return err;
}

/* Columns e0 .. e0+m-1 that stopped short of the tolerance: a warning
 * naming each (its port, or the plane wave) and st->converged cleared;
 * the one-rank and the distributed solves (dfsys.c) both report so. */
void em_fsys_warn_unconverged(const em_fsys_desc *d, em_ksp_method meth, int e0, int m,
                              const em_log *log, em_fsys_stats *st) {
  int ports = d->setup->n_port && !d->port_source;
  for (int j = 0; j < m; j++) {
    int e = e0 + j;
    const em_ksp_stats *k = &st->ksp[e];
    if (k->reason == EM_KSP_CONVERGED) continue;
    st->converged = 0;
    em_log_warn(log,
                "%s: %s stopped (%s) after %d iterations at true residual %.3g; the results of "
                "this frequency are not converged",
                ports ? d->setup->port[em_fsys_port(d, e)].name : "the plane wave",
                em_ksp_method_name(meth), em_ksp_reason_name(k->reason), k->iterations,
                k->true_rel_res);
  }
}

/* Every excitation through the Krylov method; x [ns][n] in DOF numbering.
 * The excitations go as blocks of rhs_block columns (0: all at once), each
 * block one em_ksp_solve_multi: the operator and the preconditioner are
 * applied to the block's columns together (docs/solvers.md, "Several
 * right-hand sides"). */
static em_err solve_all(em_fsys *s, const em_system *sys, int ns, const em_log *log,
                        em_fsys_stats *st, em_cplx *x) {
  const em_fsys_desc *d = &s->d;
  int32_t n = d->dofs->n_dof;
  int rb = d->solve->rhs_block, blk = rb > 0 && rb < ns ? rb : ns;
  em_operator A;
  EM_TRY(em_blockop_operator(s->op, &A));
  em_ksp_opts ko = d->solve->ksp;
  ko.log = log;
  ko.log_every = log && log->level >= EM_LOG_VERBOSE ? 10 : 100;
  /* the columns stay in the DOF numbering: the Krylov driver moves them to
     and from the operator's row order where the vectors live (on the GPU by
     a kernel: no host pass over a permuted copy of every column) */
  ko.perm = s->perm;
  st->converged = 1;
  st->n_solve = ns;
  for (int e0 = 0; e0 < ns; e0 += blk) {
    int m = ns - e0 < blk ? ns - e0 : blk;
    if (!d->setup->n_port || d->port_source) /* a plane wave drives (the ports its loads) */
      em_log_info(log, "solving for the plane wave (%d unknowns)", n);
    else if (m == 1)
      em_log_info(log, "solving for %s (%d unknowns)", d->setup->port[em_fsys_port(d, e0)].name, n);
    else
      em_log_info(log, "solving for %s .. %s together (%d right-hand sides, %d unknowns)",
                  d->setup->port[em_fsys_port(d, e0)].name,
                  d->setup->port[em_fsys_port(d, e0 + m - 1)].name, m, n);
    /* x: the caller's zeroed block, the zero initial guesses.  Its pages
       touched by all threads first: calloc's pages are mapped at their first
       write, and a download into untouched pages faults them in one by one
       (H200 host, 4 columns of 1.6M unknowns: 0.120 s down against 0.010 s
       into touched pages) */
    int64_t nm = (int64_t)n * m;
    em_cplx *xb = x + (size_t)e0 * n;
#pragma omp parallel for schedule(static) if (nm > 100000)
    for (int64_t q = 0; q < nm; q++) xb[q] = 0;
    EM_TRY(em_ksp_solve_multi(&A, s->pc, m, sys->b + (size_t)e0 * n, n, x + (size_t)e0 * n, n, &ko,
                              &st->ksp[e0]));
    em_fsys_warn_unconverged(d, ko.method, e0, m, log, st);
  }
  return EM_OK;
}

int em_ahead_threads(const em_solve_opts *o, int threads) {
  int t = threads < 1 ? 1 : threads;
  if (!o || o->ahead_threads == 0) return t;
  if (o->ahead_threads > 0) return o->ahead_threads;
  return t / 2 > 1 ? t / 2 : 1;
}

/* The CSR's values page-locked for the GPU operator's refills (once, at
 * the first: a sweep's), so that em_blockop_refill_values uploads them
 * directly, without the copy through its pinned staging (~0.06 s a
 * frequency at 35M entries); refused: the staging as before.  Unpinned
 * before the CSR goes (acsr_free).  The
 * thread building the first operator beside the factorization pins them
 * first where it runs (fsys_opbeside.c: s->pinned set when it is joined). */
static void acsr_pin(em_fsys *s) {
#ifdef EM_HAVE_CUDA
  if (s->pinned || s->d.backend != EM_BACKEND_CUDA || !s->Acsr || !s->Acsr->nnz) return;
  s->pinned = em_host_pin(s->Acsr->val, (size_t)s->Acsr->nnz * sizeof *s->Acsr->val) ? 1 : -1;
#else
  (void)s;
#endif
}

static void acsr_free(em_fsys *s) {
#ifdef EM_HAVE_CUDA
  if (s->pinned == 1 && s->Acsr) em_host_unpin(s->Acsr->val);
#endif
  s->pinned = 0;
  em_csr_destroy(&s->Acsr);
}

int em_fsys_fits_host(double nnz, double bytes) {
  double avail = em_host_mem_available();
  return avail <= 0 || bytes * nnz <= avail / 4;
}

/* The gather map of the values (8 bytes an entry) is kept for the later
 * frequencies when it fits em_fsys_fits_host; without it a later fill
 * permutes again (seconds at 20M unknowns, where the map would be ~25
 * GB). */
static int maps_fit(const em_blockmat *A) {
  double nnz = 0;
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) nnz += (double)A->blk[i][j]->nnz;
  return em_fsys_fits_host(nnz, 8);
}

/* A's rows and columns := P's (the same size), in parallel pieces: 0.45 GB
 * at 1M unknowns, one thread's memcpy would take ~0.1 s */
static void copy_pattern(const em_csr *P, em_csr *A) {
  enum { PIECE = 1 << 20 };
  int64_t nr = (int64_t)P->n_rows + 1, nc = P->nnz, pr = (nr + PIECE - 1) / PIECE,
          pc = (nc + PIECE - 1) / PIECE;
#pragma omp parallel for schedule(static) if (nc > 4 * PIECE)
  for (int64_t k = 0; k < pr + pc; k++) {
    int64_t r = k < pr ? k : k - pr, len = k < pr ? nr : nc, a = r * PIECE,
            b = a + PIECE < len ? a + PIECE : len;
    if (k < pr)
      memcpy(A->rowptr + a, P->rowptr + a, (size_t)(b - a) * sizeof *A->rowptr);
    else
      memcpy(A->colind + a, P->colind + a, (size_t)(b - a) * sizeof *A->colind);
  }
}

/* The first frequency: the row order the formats want (it depends on the
 * pattern only, planned once) and the system permuted into one CSR, the
 * assembled blocks consumed one by one unless kept (--dump-matrix).  The
 * operator itself is made after the preconditioner (em_fsys_solve).  With
 * the analysis on its thread (fsys_overlap.c), the row order, the permuted
 * pattern and the value map are that thread's, made from the assembler's
 * pattern beside the assembly: the pattern copied, the values gathered
 * through the map (the arrays the plan and the sort below would make). */
static em_err operator_first(em_fsys *s, em_system *sys, const em_blockop_opts *bop,
                             const em_log *log) {
  em_blockmat *A = sys->A;
  int32_t n = s->d.dofs->n_dof;
  em_free(&s->perm); /* what a failed first frequency left */
  acsr_free(s);
  em_free(&s->src);
  double t0 = em_wtime();
  s->nb = A->nb;
  memcpy(s->offset, A->offset, sizeof s->offset);
  block_sizes(A, s->blk);
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) s->apat[i][j] = em_spmat_pattern_hash(A->blk[i][j]);
  double t1 = em_wtime();
  EM_TRY(em_calloc(&s->perm, (size_t)n, sizeof *s->perm, "permutation"));
  int keep = s->d.keep_matrix, maps = maps_fit(A);
  if (!maps)
    em_log_info(log,
                "operator: host memory short for the value map; later frequencies permute "
                "again");
  em_fsys_pattern ap;
  if (em_fsys_ahead_pattern(s, s->apat, maps, log, &ap)) {
    memcpy(s->perm, ap.perm, (size_t)n * sizeof *s->perm);
    s->src = ap.src;
    EM_TRY(em_csr_create(n, n, ap.P->nnz, &s->Acsr));
    copy_pattern(ap.P, s->Acsr);
    em_fsys_ahead_copied(s);
    double t2 = em_wtime();
    EM_TRY(em_blockmat_permute_csr_values(A, s->perm, !keep, s->Acsr, s->src));
    if (!keep) em_blockmat_destroy(&sys->A);
    em_log_verbose(log,
                   "operator: pattern hashes %.2f s; row order and pattern from the analysis' "
                   "thread, copied in %.2f s; values gathered in %.2f s",
                   t1 - t0, t2 - t1, em_wtime() - t2);
    return EM_OK;
  }
  EM_TRY(em_blockop_plan_perm(A, bop, s->perm));
  double t2 = em_wtime();
  EM_TRY(em_blockmat_permute_csr(A, s->perm, !keep, &s->Acsr, maps ? &s->src : NULL));
  if (!keep) em_blockmat_destroy(&sys->A);
  em_log_verbose(log, "operator: pattern hashes %.2f s, row order %.2f s, permuted %.2f s", t1 - t0,
                 t2 - t1, em_wtime() - t2);
  return EM_OK;
}

/* A later frequency: the assembled pattern must be the first one's (the
 * assembler's, fixed); the values into Acsr (through the maps, or permuted
 * again), the assembled blocks consumed, then the operator refilled in
 * place.  A refill the operator refuses falls back to a new operator
 * (with a warning: it should not happen). */
static em_err operator_refill(em_fsys *s, em_system *sys, const em_blockop_opts *bop,
                              const em_log *log) {
  em_blockmat *A = sys->A;
  EM_CHECK(A->nb == s->nb, EM_ERR_INTERNAL, "the assembled system has %d order groups, not %d",
           A->nb, s->nb);
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) {
      const em_csr *B = A->blk[i][j];
      EM_CHECK(B->nnz == s->blk[i][j].nnz && em_spmat_pattern_hash(B) == s->apat[i][j],
               EM_ERR_INTERNAL,
               "the assembled block A_%d%d has another pattern than at the first frequency", i + 1,
               j + 1);
    }
  int keep = s->d.keep_matrix;
  EM_TRY(em_blockmat_permute_csr_values(A, s->perm, !keep, s->Acsr, s->src));
  if (!keep) em_blockmat_destroy(&sys->A);
  /* the values through the map kept from the first refill */
  acsr_pin(s);
  em_err err = em_blockop_refill_values(s->op, s->Acsr);
  if (!err) return EM_OK;
  em_log_warn(log, "%s; the operator is built anew", em_error_message());
  em_error_clear();
  em_blockop_destroy(&s->op);
  EM_TRY(em_blockop_create_csr(s->Acsr, s->nb, s->offset, bop, &s->op));
  EM_TRY(em_blockop_operator(s->op, &s->opA));
  return EM_OK;
}

/* The solver's memory by component (where the operator lives: the GPU
 * with --device gpu) and the peak they imply: the preconditioner's setup
 * (its factorization peak, before the first operator exists; at later
 * frequencies with it) or the solve (operator, preconditioner after
 * setup, Krylov vectors), whichever is larger.  A sum of what the modules
 * report, not a measurement: the CUDA context and library handles
 * (~0.5 GiB) come on top of it on the GPU. */
static void mem_log(const em_fsys *s, const em_fsys_stats *st, const em_log *log) {
  const em_pc_info *pc = &st->pc;
  double mb = 1e6, op = (double)em_blockop_bytes(s->op), kv = 0;
  for (int e = 0; e < st->n_solve; e++)
    if ((double)st->ksp[e].vec_bytes > kv) kv = (double)st->ksp[e].vec_bytes;
  if (pc->type != EM_PC_PMG) {
    em_log_info(log, "memory: operator %.1f MB, preconditioner %.1f MB, Krylov vectors %.1f MB",
                op / mb, (double)pc->bytes / mb, kv / mb);
    return;
  }
  double rest = (double)(pc->rows_bytes + pc->smoother_bytes + pc->index_bytes + pc->work_bytes);
  double setup = rest + (double)pc->coarse_bytes + (pc->updates ? op : 0);
  double solve = op + rest + (double)pc->coarse_factor_bytes + kv;
  em_log_info(log,
              "memory: operator %.1f MB, pmg rows %.1f MB, smoothers %.1f MB, row lists %.1f MB, "
              "work vectors %.1f MB, coarse factor L+D %.1f MB (factorization peak ~%.1f MB), "
              "Krylov vectors %.1f MB; peak ~%.1f MB (%s)",
              op / mb, (double)pc->rows_bytes / mb, (double)pc->smoother_bytes / mb,
              (double)pc->index_bytes / mb, (double)pc->work_bytes / mb,
              (double)pc->coarse_factor_bytes / mb, (double)pc->coarse_bytes / mb, kv / mb,
              (setup > solve ? setup : solve) / mb, setup > solve ? "setup" : "solve");
}

static em_err solve_body(em_fsys *s, double f, const em_log *log, em_fsys_stats *st,
                         em_system **sys_out, em_cplx **x_out) {
  const em_fsys_desc *d = &s->d;
  double k0 = 2 * M_PI * f / EM_C0;
  em_system *sys = NULL;
  em_cplx *x = NULL;
  em_err err = EM_OK;
  memset(st, 0, sizeof *st);
  int dist = em_fsys_distributed(s);
  if (dist && em_dist_rank(d->dist) == 0) EM_TRY(em_fsys_dist_tell(s, f)); /* dfsys.c */
  /* the frequency's problem (fsys_next.c): the ports set to k0 (the
     post-processing reads them), Robin terms, media */
  fsys_prob *fp = NULL;
  EM_TRY(em_calloc(&fp, 1, sizeof *fp, "frequency problem"));
  err = em_fsys_problem(s, k0, 0, fp);
  int ns = fp->prob.n_rhs; /* solves: one per port, or the plane wave */
  if (!err && (ns < 1 || ns > EM_MAX_PORTS))
    err = EM_RAISE(EM_ERR_INPUT, "%d excitations (1..%d)", ns, EM_MAX_PORTS);
  if (err) {
    em_free(&fp);
    return err;
  }
  err = em_fsys_ahead_start(s, log); /* the first: the analysis beside the assembly */
  if (err) {
    em_free(&fp);
    return err;
  }
  double t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_ASSEMBLY);
  double t_next = 0;
  sys = em_fsys_next_take(s, f, &t_next); /* assembled while the last one factorized */
  if (sys) {
    em_log_info(log, "assembly: done while the previous frequency factorized (%.2f s)", t_next);
  } else {
    if (!s->asm_) err = em_fsys_dpart(s, log); /* dfsys.c */
    if (!err) err = em_assemble_with(s->asm_, &fp->prob, log, &sys);
  }
  if (dist && !d->periodic) err = em_fsys_dist_agree(s, err);
  em_fsys_ahead_assembled(s); /* this thread's team whole again (fsys_overlap.c) */
  em_free(&fp);               /* the assembly was its only reader */
  em_stage_end(log, EM_STAGE_ASSEMBLY, NULL);
  EM_TRY(err);
  st->t_assembly = em_wtime() - t0;
  int32_t n = d->dofs->n_dof;
  if (d->periodic) { /* a Floquet cell: its own direct solve (periodic_solve.c) */
    t0 = em_wtime();
    EM_TRY_GOTO(err, em_calloc(&x, (size_t)n * ns, sizeof *x, "solutions"), done);
    EM_TRY_GOTO(err, em_periodic_solve(d->periodic, k0, sys, log, x, st->ksp), done);
    st->t_solve = em_wtime() - t0;
    st->n_solve = ns;
    st->converged = 1;
    for (int e = 0; e < ns; e++) st->converged &= st->ksp[e].reason == EM_KSP_CONVERGED;
    *sys_out = sys;
    *x_out = x;
    return EM_OK;
  }

  if (dist) { /* every rank its share (dfsys.c); the solution gathered to rank 0 */
    t0 = em_wtime();
    if (em_dist_rank(d->dist) == 0)
      EM_TRY_GOTO(err, em_calloc(&x, (size_t)n * ns, sizeof *x, "solutions"), done);
    EM_TRY_GOTO(err, em_fsys_dsolve(s, sys, ns, log, st, x), done);
    st->t_solve = em_wtime() - t0 - st->t_operator - st->t_pc;
    *sys_out = sys;
    *x_out = x;
    return EM_OK;
  }
  /* the operator wants its rows sorted (sliced formats): the order depends
     on the pattern only, planned once */
  t0 = em_wtime();
  em_blockop_opts bop = d->solve->bop;
  bop.backend = d->backend;
  bop.prec = EM_PREC_DOUBLE;
  int first = !s->op;
  em_stage_begin(log, EM_STAGE_OPERATOR);
  err = first ? operator_first(s, sys, &bop, log) : operator_refill(s, sys, &bop, log);
  em_stage_end(log, EM_STAGE_OPERATOR, first ? "row order and permuted matrix" : "refilled");
  EM_TRY_GOTO(err, err, done);
  st->t_operator = em_wtime() - t0;

  /* the next frequency's assembly on another host thread while the
     preconditioner refactors (the GPU's work at a sweep's later
     frequencies): fsys_next.c, when the caller named it */
  em_fsys_next_start(s, log);
  t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_PC);
  int rb = d->solve->rhs_block;
  err = precondition(s, &bop, rb > 0 && rb < ns ? rb : ns, log);
  em_stage_end(log, EM_STAGE_PC, "preconditioner %s", first ? "set up" : "updated");
  if (err) em_fsys_opb_free(s);
  EM_TRY_GOTO(err, err, done);
  em_pc_get_info(s->pc, &st->pc);
  st->t_pc = em_wtime() - t0;
  /* the first operator after the preconditioner: a GPU factorization's
     transient peak (update matrices) then does not add to the operator's
     memory, the next frequencies refill it in place */
  if (first) {
    t0 = em_wtime();
    em_stage_begin(log, EM_STAGE_OPERATOR);
    s->op = em_fsys_opb_take(s, log); /* built beside the factorization, or now */
    if (!s->op) err = em_blockop_create_csr(s->Acsr, s->nb, s->offset, &bop, &s->op);
    if (!err) err = em_blockop_operator(s->op, &s->opA);
    em_stage_end(log, EM_STAGE_OPERATOR, "formats built%s",
                 bop.backend == EM_BACKEND_CUDA ? " and uploaded" : "");
    EM_TRY_GOTO(err, err, done);
    st->t_operator += em_wtime() - t0;
  }

  t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_SOLVE);
  err = em_calloc(&x, (size_t)n * ns, sizeof *x, "solutions");
  if (!err) err = solve_all(s, sys, ns, log, st, x);
  em_stage_end(log, EM_STAGE_SOLVE, "%d excitation(s)", ns);
  EM_TRY_GOTO(err, err, done);
  st->t_solve = em_wtime() - t0;
  em_pc_get_info(s->pc, &st->pc); /* with what the solves added (pmg's split of time) */
  if (st->pc.type == EM_PC_PMG)
    em_log_info(log,
                "pmg: %lld V-cycles, smoother %.2f s, coarse solves %.2f s, residual SpMVs %.2f s",
                (long long)st->pc.applies, st->pc.t_smooth, st->pc.t_coarse, st->pc.t_residual);
  mem_log(s, st, log);
  *sys_out = sys;
  *x_out = x;
  return EM_OK;
done:
  em_system_destroy(&sys);
  em_free(&x);
  return err;
}

em_err em_fsys_solve(em_fsys *s, double f, const em_log *log, em_fsys_stats *st,
                     em_system **sys_out, em_cplx **x_out) {
  em_err err = solve_body(s, f, log, st, sys_out, x_out);
  em_fsys_next_wait(s); /* nothing runs beside the caller's post-processing */
  return err;
}
