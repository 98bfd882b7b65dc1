/* test_dsolve.c - the distributed solve's core on P ranks (argv[1] = the P
 * expected; plainly 1 rank, under mpiexec 2 or 3): a real FEM matrix
 * (order-2 Nedelec on a jittered box, lossy dielectric, PEC walls)
 * partitioned by METIS (em_dpart_build; em_dpart_share, rank 0's parts
 * sent, must give every rank the same parts and owners), each rank's rows assembled on
 * their own (em_assembler_create_part: they must be the whole matrix's
 * rows, bit for bit) and distributed (em_dmat_create); the halo SpMV
 * gathered to rank 0 must equal the serial product to 1e-14, and COCG / GMRES / BiCGSTAB on the
 * distributed operator with a rank-local ILU(0) (block Jacobi over the ranks) to 1e-12 must give
 * the serial direct solution of A x = b to 1e-8; the local formats built
 * on a thread beside the V-cycle's set-up give the in-order bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "em_dist.h"
#include "em_model.h"
#include "em_test.h"

static em_err lossy(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int k = 0; k < 3; k++) m->eps[k] = 2.0 - 0.2 * I, m->nu[k] = 1;
  return EM_OK;
}

/* the owned rows of A (ascending global order, global columns) */
static em_csr *owned_rows(const em_csr *A, const int32_t *owner, int rank) {
  int32_t n = 0;
  int64_t nnz = 0;
  for (int32_t i = 0; i < A->n_rows; i++)
    if (owner[i] == rank) n++, nnz += A->rowptr[i + 1] - A->rowptr[i];
  em_csr *R = NULL;
  REQUIRE_OK(em_csr_create(n, A->n_cols, nnz, &R));
  n = 0, nnz = 0;
  for (int32_t i = 0; i < A->n_rows; i++) {
    if (owner[i] != rank) continue;
    for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++, nnz++)
      R->colind[nnz] = A->colind[q], R->val[nnz] = A->val[q];
    R->rowptr[++n] = nnz;
  }
  return R;
}

/* the rows of a part's system as one CSR, global columns */
static em_csr *part_rows(const em_system *s) {
  const em_blockmat *A = s->A;
  int64_t nnz = 0;
  for (int g = 0; g < A->nb; g++)
    for (int h = 0; h < A->nb; h++) nnz += A->blk[g][h]->nnz;
  em_csr *R = NULL;
  REQUIRE_OK(em_csr_create(s->n_row, A->offset[A->nb], nnz, &R));
  int32_t k = 0;
  nnz = 0;
  for (int g = 0; g < A->nb; g++)
    for (int32_t r = 0; r < A->blk[g][0]->n_rows; r++, k++) {
      for (int h = 0; h < A->nb; h++)
        for (int64_t q = A->blk[g][h]->rowptr[r]; q < A->blk[g][h]->rowptr[r + 1]; q++, nnz++)
          R->colind[nnz] = A->offset[h] + A->blk[g][h]->colind[q],
          R->val[nnz] = A->blk[g][h]->val[q];
      R->rowptr[k + 1] = nnz;
    }
  return R;
}

static int same_csr(const em_csr *a, const em_csr *b) {
  if (!a || !b) return a == b;
  return a->n_rows == b->n_rows && a->n_cols == b->n_cols && a->nnz == b->nnz &&
         !memcmp(a->rowptr, b->rowptr, (size_t)(a->n_rows + 1) * sizeof *a->rowptr) &&
         !memcmp(a->colind, b->colind, (size_t)a->nnz * sizeof *a->colind) &&
         !memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val);
}

/* the operator split straight from the assembled blocks (A_give) is the
 * one split from the rows' CSR (R), bit for bit: numbering, ghosts, halo
 * plan, local blocks and ghost couplings */
static void check_from_blocks(const em_dmat *M, const em_dmat *M2, int rank) {
  em_dmat_info a, b;
  em_dmat_get_info(M, &a);
  em_dmat_get_info(M2, &b);
  int same = a.n_own == b.n_own && a.n_ghost == b.n_ghost && a.n_send == b.n_send &&
             a.n_neighbour == b.n_neighbour && a.nb == b.nb &&
             !memcmp(a.offset, b.offset, sizeof a.offset) &&
             !memcmp(a.l2g, b.l2g, (size_t)a.n_own * sizeof *a.l2g) &&
             !memcmp(a.ghost_gid, b.ghost_gid, (size_t)a.n_ghost * sizeof *a.ghost_gid) &&
             same_csr(a.Oh, b.Oh);
  for (int i = 0; same && i < a.nb; i++)
    for (int j = 0; j < a.nb; j++) same &= same_csr(a.D->blk[i][j], b.D->blk[i][j]);
  EXPECT(same, "rank %d: the operator from the assembled blocks differs from that from R", rank);
}

static double max_diff(const em_cplx *a, const em_cplx *b, int32_t n, double *scale) {
  double d = 0, s = 0;
  for (int32_t i = 0; i < n; i++) {
    d = fmax(d, cabs(a[i] - b[i]));
    s = fmax(s, cabs(b[i]));
  }
  *scale = s;
  return d;
}

/* the distributed Krylov solve of method m against the serial direct x,
 * preconditioned by block Jacobi (ILU(0) of each rank's block) or, with
 * coarse (the coarse set's flags), the V-cycle over the ranks */
static void krylov(const em_dist *d, em_dmat *M, em_ksp_method m, const em_cplx *b,
                   const em_cplx *xref, int32_t n, const uint8_t *coarse) {
  em_dmat_info in;
  em_dmat_get_info(M, &in);
  em_csr *Dc = NULL;
  em_pc *pc = NULL;
  em_operator op;
  REQUIRE_OK(em_blockmat_to_csr(in.D, &Dc));
  em_pc_opts po;
  em_pc_opts_default(&po);
  if (coarse) {
    po.type = EM_PC_PMG;
    po.pmg.coarse = 1;
    po.pmg.sweeps = 2;
    po.pmg.smoother = EM_PMG_BLOCK;
    REQUIRE_OK(em_dmat_pmg(M, &po, coarse, NULL, &pc));
  } else {
    po.type = EM_PC_ILU0; /* a rank-local smoother: ILU(0) of the rank's block */
    REQUIRE_OK(em_pc_create(Dc, &po, NULL, &pc));
  }
  REQUIRE_OK(em_dmat_operator(M, &op));
  em_cplx *bl = calloc((size_t)in.n_own + 1, sizeof *bl),
          *xl = calloc((size_t)in.n_own + 1, sizeof *xl);
  em_cplx *x = calloc((size_t)n, sizeof *x);
  em_dmat_take(M, b, bl);
  em_ksp_opts ko;
  em_ksp_opts_default(&ko);
  ko.method = m;
  ko.tol = 1e-12;
  ko.max_it = 3000;
  ko.restart = 60;
  em_ksp_stats st;
  REQUIRE_OK(em_ksp_solve(&op, pc, bl, xl, &ko, &st));
  EXPECT(st.reason == EM_KSP_CONVERGED && st.true_rel_res <= 1e-12, "%s: %s, |r|/|b| = %.3g",
         em_ksp_method_name(m), em_ksp_reason_name(st.reason), st.true_rel_res);
  REQUIRE_OK(em_dmat_gather(M, xl, x));
  if (em_dist_rank(d) == 0) {
    double s, e = max_diff(x, xref, n, &s);
    printf("%s on %d ranks, %s: %d iterations, |x - x_direct| / |x| = %.2e\n",
           em_ksp_method_name(m), em_dist_size(d),
           coarse ? "V-cycle, coarse on rank 0" : "block-Jacobi ILU(0)", st.iterations, e / s);
    EXPECT(e <= 1e-8 * s, "%s: the distributed solution is %.3g off the direct one",
           em_ksp_method_name(m), e / s);
  }
  em_pc_destroy(&pc);
  em_csr_destroy(&Dc);
  free(bl), free(xl), free(x);
}

/* the V-cycle on rank 0's coarse analysis made ahead (em_dmat_pmg_ahead,
 * model/dfsys_ahead.c) is the one analysed in order, bit for bit; so is
 * the one given an analysis of another pattern (dropped: analysed in
 * order) */
static void coarse_ahead(const em_dist *d, em_dmat *M, const em_csr *A, const uint8_t *coarse) {
  int rank = em_dist_rank(d);
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_PMG;
  po.pmg.coarse = 1;
  po.pmg.sweeps = 2;
  po.pmg.smoother = EM_PMG_BLOCK;
  em_pc_opts co;
  em_dmat_pmg_coarse_opts(&po, EM_BACKEND_CPU, &co);
  EXPECT(co.type == EM_PC_DIRECT && co.ordering == EM_ORDERING_ND && co.prec == EM_PREC_DOUBLE,
         "the coarse factor's options: direct, nd, complex double on the CPU");
  /* A_CC: the coarse rows and columns of A in ascending order */
  int32_t n = A->n_rows, nc = 0, *cidx = calloc((size_t)n, sizeof *cidx);
  for (int32_t j = 0; j < n; j++) cidx[j] = coarse[j] ? nc++ : -1;
  em_csr *C = NULL;
  REQUIRE_OK(em_csr_create(nc, nc, A->nnz, &C));
  int64_t q = 0;
  for (int32_t i = 0; i < n; i++) {
    if (cidx[i] < 0) continue;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
      if (cidx[A->colind[e]] >= 0) C->colind[q] = cidx[A->colind[e]], C->val[q++] = A->val[e];
    C->rowptr[cidx[i] + 1] = q;
  }
  C->nnz = q;
  em_dmat_info in;
  em_dmat_get_info(M, &in);
  em_cplx *r = calloc((size_t)in.n_own + 1, sizeof *r), *z[3];
  for (int32_t k = 0; k < in.n_own; k++) r[k] = cos(0.1 * in.l2g[k]) + I * sin(0.7 * in.l2g[k]);
  for (int v = 0; v < 3; v++) {
    em_pc *pc = NULL;
    em_dmat_coarse_ahead ah = {NULL, 0};
    if (rank == 0 && v > 0) { /* 1: C's pattern; 2: a third of its couplings cut */
      em_csr *P = C;
      if (v == 2) {
        REQUIRE_OK(em_csr_copy(C, &P));
        int64_t w = 0;
        for (int32_t i = 0; i < nc; i++) {
          for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++)
            if (C->colind[e] == i || (C->colind[e] + i) % 3)
              P->colind[w] = C->colind[e], P->val[w++] = C->val[e];
          P->rowptr[i + 1] = w;
        }
        P->nnz = w;
      }
      ah.pattern = em_spmat_pattern_hash(P);
      REQUIRE_OK(em_pc_direct_analyse(P, &co, NULL, &ah.F));
      if (P != C) em_csr_destroy(&P);
    }
    REQUIRE_OK(em_dmat_pmg_ahead(M, &po, coarse, &ah, NULL, &pc));
    EXPECT(!ah.F, "rank %d, analysis %d: neither taken nor dropped", rank, v);
    z[v] = calloc((size_t)in.n_own + 1, sizeof *z[v]);
    REQUIRE_OK(em_pc_apply(pc, r, z[v]));
    em_pc_destroy(&pc);
  }
  for (int v = 1; v < 3; v++)
    EXPECT(!memcmp(z[0], z[v], (size_t)in.n_own * sizeof *z[0]),
           "rank %d: the V-cycle on %s differs from the one analysed in order", rank,
           v == 1 ? "the analysis made ahead" : "an analysis of another pattern (dropped)");
  if (rank == 0) printf("V-cycle on the coarse analysis made ahead: the same bits\n");
  for (int v = 0; v < 3; v++) free(z[v]);
  free(r);
  free(cidx);
  em_csr_destroy(&C);
}

/* the local part's formats deferred (ds.defer_op) and built on a thread
 * of their own (em_beside) while this one sets the V-cycle up on the
 * same dmat (model/dfsys_opbeside.c): a product before they are given is
 * refused (on every rank, before any transfer); then the product and the
 * V-cycle (ILU(0) smoothers, coarse level on rank 0) are the in-order
 * dmat's bit for bit */
typedef struct make_ctx {
  const em_dmat *M;
  em_blockop *op;
} make_ctx;

static em_err make_main(void *ctx, const em_log *log) {
  (void)log;
  make_ctx *k = ctx;
  return em_dmat_make_op(k->M, &k->op);
}

static void deferred(const em_dist *d, em_dmat *M, const em_dmat_desc *ds,
                     const em_blockop_opts *bop, const uint8_t *coarse) {
  int rank = em_dist_rank(d);
  em_dmat_desc dd = *ds;
  dd.defer_op = 1;
  em_dmat *Md = NULL;
  REQUIRE_OK(em_dmat_create(d, &dd, bop, &Md));
  em_dmat_info in;
  em_dmat_get_info(Md, &in);
  EXPECT(!in.op && in.t_build[2] == 0, "rank %d: deferred formats made by em_dmat_create", rank);
  em_cplx *x = calloc((size_t)in.n_own + 1, sizeof *x), *y[2], *z[2];
  for (int32_t k = 0; k < in.n_own; k++) x[k] = cos(0.3 * in.l2g[k]) + I * sin(0.9 * in.l2g[k]);
  em_operator A[2];
  REQUIRE_OK(em_dmat_operator(M, &A[0]));
  REQUIRE_OK(em_dmat_operator(Md, &A[1]));
  for (int v = 0; v < 2; v++) {
    y[v] = calloc((size_t)in.n_own + 1, sizeof *y[v]);
    z[v] = calloc((size_t)in.n_own + 1, sizeof *z[v]);
  }
  EXPECT(A[1].apply(A[1].ctx, x, y[1]) == EM_ERR_INTERNAL,
         "rank %d: a product before the formats were given", rank);
  em_error_clear();
  em_pc_opts po;
  em_pc_opts_default(&po);
  po.type = EM_PC_PMG;
  po.pmg.coarse = 1;
  po.pmg.sweeps = 2;
  po.pmg.smoother = EM_PMG_ILU0;
  em_pc *pc[2] = {NULL, NULL};
  make_ctx mk = {Md, NULL};
  em_beside *bs = em_beside_start(make_main, &mk, 1, NULL);
  EXPECT(bs, "rank %d: no thread for the formats", rank);
  REQUIRE_OK(em_dmat_pmg(Md, &po, coarse, NULL, &pc[1])); /* beside the thread */
  REQUIRE_OK(em_beside_join(&bs, NULL, NULL, NULL, 0));
  if (!mk.op) REQUIRE_OK(em_dmat_make_op(Md, &mk.op)); /* (no thread: in order) */
  em_dmat_set_op(Md, mk.op, 0.25);
  em_dmat_get_info(Md, &in);
  EXPECT(in.op == mk.op && in.t_build[2] == 0.25, "rank %d: the formats given", rank);
  REQUIRE_OK(em_dmat_pmg(M, &po, coarse, NULL, &pc[0]));
  for (int v = 0; v < 2; v++) {
    REQUIRE_OK(A[v].apply(A[v].ctx, x, y[v]));
    REQUIRE_OK(em_pc_apply(pc[v], x, z[v]));
  }
  size_t bytes = (size_t)in.n_own * sizeof *x;
  EXPECT(!memcmp(y[0], y[1], bytes) && !memcmp(z[0], z[1], bytes),
         "rank %d: the product or V-cycle with the formats built beside its set-up differs "
         "from the in-order one",
         rank);
  if (rank == 0) printf("formats built beside the V-cycle's set-up: the same bits\n");
  for (int v = 0; v < 2; v++) {
    em_pc_destroy(&pc[v]);
    free(y[v]), free(z[v]);
  }
  free(x);
  em_dmat_destroy(&Md);
}

int main(int argc, char **argv) {
  em_dist *d = NULL;
  REQUIRE_OK(em_dist_init(&argc, &argv, 0, &d));
  int P = em_dist_size(d), rank = em_dist_rank(d), want = argc > 1 ? atoi(argv[1]) : 1;
  EXPECT(P == want, "%d ranks, expected %d", P, want);
  em_mesh *m = NULL;
  em_dofmap *dm = NULL;
  em_system *sys = NULL;
  REQUIRE_OK(em_mesh_box(4, 3, 5, 1.0, 0.8, 1.2, 0.2, 7, &m));
  uint8_t *ff = calloc((size_t)m->n_face, 1); /* PEC walls */
  for (int32_t f = 0; f < m->n_face; f++) ff[f] = m->face_tet[2 * f + 1] < 0;
  REQUIRE_OK(em_dofmap_build(m, 2, ff, &dm));
  em_problem prob = {.k0 = 4.0, .material = lossy, .n_rhs = 1};
  REQUIRE_OK(em_assemble(m, dm, &prob, NULL, &sys));
  int32_t n = dm->n_dof;
  em_csr *A = NULL;
  REQUIRE_OK(em_blockmat_to_csr(sys->A, &A));

  /* the parts: every rank computes the same; each owns some rows */
  int32_t *tp = calloc((size_t)m->n_tet, sizeof *tp), *owner = calloc((size_t)n, sizeof *owner);
  REQUIRE_OK(em_dpart_build(m, dm, P, tp, owner));
  { /* rank 0's parts sent (em_dpart_share): the parts and owners every rank computes */
    int32_t *tp2 = calloc((size_t)m->n_tet, sizeof *tp2), *ow2 = calloc((size_t)n, sizeof *ow2);
    for (int32_t t = 0; t < m->n_tet; t++) tp2[t] = -1; /* not rank 0's: overwritten */
    REQUIRE_OK(em_dpart_share(d, m, dm, tp2, ow2));
    EXPECT(!memcmp(tp, tp2, (size_t)m->n_tet * sizeof *tp) &&
               !memcmp(owner, ow2, (size_t)n * sizeof *owner),
           "rank %d: the parts sent by rank 0 differ from the ones computed here", rank);
    free(tp2);
    free(ow2);
  }
  em_csr *Rw = owned_rows(A, owner, rank), *R = NULL;
  em_blockmat *Ab = NULL; /* the same rows as assembled, for A_give */
  {                       /* this rank's rows assembled on their own: the whole's, bit for bit */
    em_assembler *pa = NULL;
    em_system *ps = NULL;
    REQUIRE_OK(em_assembler_create_part(m, dm, owner, rank, &pa));
    em_assembler_no_cache(pa); /* em_assemble's one plain pass: the same sums */
    REQUIRE_OK(em_assemble_with(pa, &prob, NULL, &ps));
    R = part_rows(ps);
    int same = R->n_rows == Rw->n_rows && R->nnz == Rw->nnz &&
               !memcmp(R->rowptr, Rw->rowptr, (size_t)(R->n_rows + 1) * sizeof *R->rowptr) &&
               !memcmp(R->colind, Rw->colind, (size_t)R->nnz * sizeof *R->colind) &&
               !memcmp(R->val, Rw->val, (size_t)R->nnz * sizeof *R->val);
    EXPECT(same, "rank %d: its rows assembled on their own differ from the whole matrix's", rank);
    for (int32_t k = 0; k < ps->n_row; k++)
      EXPECT(owner[ps->row[k]] == rank, "rank %d: row %d is unknown %d of rank %d", rank, k,
             ps->row[k], owner[ps->row[k]]);
    Ab = ps->A, ps->A = NULL;
    em_system_destroy(&ps);
    em_assembler_destroy(&pa);
  }
  em_dmat_desc ds = {.n_glob = n, .nb = sys->A->nb, .owner = owner, .R = R};
  memcpy(ds.offset, sys->A->offset, sizeof ds.offset);
  em_blockop_opts bop;
  em_blockop_opts_default(&bop);
  bop.backend = EM_BACKEND_CPU;
  bop.prec = EM_PREC_DOUBLE;
  for (int i = 0; i < EM_MAX_ORDER; i++) /* sliced ELLR-T: the local rows get sorted */
    for (int j = 0; j < EM_MAX_ORDER; j++) bop.format[i][j] = EM_FMT_SELLRT;
  em_dmat *M = NULL;
  REQUIRE_OK(em_dmat_create(d, &ds, &bop, &M));
  em_dmat *M2 = NULL;
  em_dmat_desc ds2 = ds;
  ds2.A_give = &Ab;
  EXPECT(em_dmat_create(d, &ds2, &bop, &M2) == EM_ERR_ARG && !M2, "rows given twice accepted");
  em_error_clear();
  ds2.R = NULL;
  REQUIRE_OK(em_dmat_create(d, &ds2, &bop, &M2));
  EXPECT(!Ab, "the assembled blocks were not freed once split");
  check_from_blocks(M, M2, rank);
  em_dmat_info in;
  em_dmat_get_info(M, &in);
  int64_t tot[2] = {in.n_own, in.n_own > 0};
  REQUIRE_OK(em_dist_allreduce(d, tot, 2, EM_DIST_INT64, EM_DIST_SUM));
  EXPECT(tot[0] == n && tot[1] == P, "%lld unknowns owned by %lld ranks (of %d, %d)",
         (long long)tot[0], (long long)tot[1], n, P);
  EXPECT(P == 1 ? in.n_ghost == 0 : in.n_ghost > 0 && in.n_neighbour >= 1,
         "rank %d: %d ghosts, %d neighbours", rank, in.n_ghost, in.n_neighbour);
  printf("rank %d of %d: %d unknowns of %d, %d ghosts, %d neighbours, local nnz %lld + %lld\n",
         rank, P, in.n_own, n, in.n_ghost, in.n_neighbour, (long long)in.nnz_local,
         (long long)in.nnz_ghost);

  /* the halo SpMV against the serial product (twice: the buffers reused) */
  em_cplx *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
  em_cplx *yg = calloc((size_t)n, sizeof *yg);
  em_cplx *xl = calloc((size_t)in.n_own + 1, sizeof *xl),
          *yl = calloc((size_t)in.n_own + 1, sizeof *yl);
  em_operator op;
  REQUIRE_OK(em_dmat_operator(M, &op));
  for (int rep = 0; rep < 3; rep++) { /* pass 2: the operator from the blocks */
    if (rep == 2) REQUIRE_OK(em_dmat_operator(M2, &op));
    for (int32_t i = 0; i < n; i++) x[i] = cos(0.37 * i + rep) + I * sin(1.3 * i * i - rep);
    em_csr_spmv_ref(A, 1, x, 0, y);
    em_dmat_take(rep == 2 ? M2 : M, x, xl);
    REQUIRE_OK(op.apply(op.ctx, xl, yl));
    REQUIRE_OK(em_dmat_gather(rep == 2 ? M2 : M, yl, yg));
    if (rank == 0) {
      double s, e = max_diff(yg, y, n, &s);
      printf("halo SpMV on %d ranks: max |y - y_serial| / max |y| = %.2e\n", P, e / s);
      EXPECT(e <= 1e-14 * s, "halo SpMV %.3g off the serial product (pass %d)", e / s, rep);
    }
  }

  /* Krylov on the distributed operator against the serial direct solution
     of A x = b, b = A x_true for a smooth x_true */
  em_cplx *xref = calloc((size_t)n, sizeof *xref), *b = calloc((size_t)n, sizeof *b);
  for (int32_t i = 0; i < n; i++) x[i] = cexp(I * 0.01 * i);
  em_csr_spmv_ref(A, 1, x, 0, b);
  em_direct *F = NULL;
  em_direct_opts dop;
  em_direct_opts_default(&dop);
  REQUIRE_OK(em_direct_create(A, &dop, NULL, &F));
  REQUIRE_OK(em_direct_solve(F, 1, b, n, xref, n));
  em_direct_destroy(&F);
  krylov(d, M, EM_KSP_COCG, b, xref, n, NULL);
  krylov(d, M, EM_KSP_GMRES, b, xref, n, NULL);
  krylov(d, M, EM_KSP_BICGSTAB, b, xref, n, NULL);
  /* the V-cycle: order-1 unknowns and those near one wall (a stand-in for
     the PML rows of a case) in the coarse set */
  uint8_t *coarse = calloc((size_t)n, 1);
  int32_t code[64];
  for (int32_t j = 0; j < dm->offset[1]; j++) coarse[j] = 1;
  for (int32_t t = 0; t < m->n_tet; t++) {
    double zc = 0;
    for (int k = 0; k < 4; k++) zc += m->xyz[3 * m->tet[4 * t + k] + 2] / 4;
    if (zc > 0.25) continue;
    em_dofmap_tet(dm, m, t, code);
    for (int k = 0; k < em_basis_count(2); k++)
      if (code[k] >= 0) coarse[code[k]] = 1;
  }
  krylov(d, M, EM_KSP_COCG, b, xref, n, coarse);
  krylov(d, M, EM_KSP_BICGSTAB, b, xref, n, coarse);
  coarse_ahead(d, M, A, coarse);
  deferred(d, M, &ds, &bop, coarse);
  free(coarse);

  em_dmat_destroy(&M);
  em_dmat_destroy(&M2);
  em_csr_destroy(&R);
  em_csr_destroy(&Rw);
  em_csr_destroy(&A);
  free(x), free(y), free(yg), free(xl), free(yl), free(xref), free(b), free(tp), free(owner),
      free(ff);
  em_system_destroy(&sys);
  em_dofmap_destroy(&dm);
  em_mesh_destroy(&m);
  int fail = TEST_RESULT();
  /* every rank's verdict: a failure on any fails all */
  REQUIRE_OK(em_dist_allreduce(d, &fail, 1, EM_DIST_INT, EM_DIST_MAX));
  em_dist_finalize(&d);
  return fail;
}
