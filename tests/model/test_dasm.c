/* A part's assembly (em_assembler_create_part, issue 27: each rank of a
 * distributed solve assembles its own rows) against the rows of the whole
 * assembly, on the case of test_assembly_kcache (a box with a dielectric
 * block, a graded PML slab, a lumped port with its own right-hand side, a
 * Robin face with a second one, a first-order ABC on the faces behind the
 * PML, PEC plates with non-zero k0-dependent Dirichlet data, a volume
 * source), over a sweep of three frequencies on one assembler per part (the
 * frequency-independent cache built, used, and rebuilt when a dispersive
 * dielectric leaves it), for the parts of
 * - slabs along x: part 0 the port's end and no PML, part 1 the PML and the
 *   ABC, part 2 the middle, part 3 no tet at all (an empty part);
 * - METIS k-way in 2 and 3 parts (em_dpart_build, the solver's parts);
 * - tets dealt out at random among 3 parts (parts in many pieces);
 * each unknown owned by the lowest part among its tets (em_dpart_build's
 * rule).  Every part's rows, their pattern, values and right-hand sides,
 * must be the whole assembly's to 1e-14 of its largest entry (they are the
 * same sums in the same order: the test also says when bit for bit), the
 * fixed values all of them, and the parts' rows every unknown once.  Orders
 * 2, 3, and 3 with the PML at order 1 (order per region). */
#include <string.h>

#include "em_assembly.h"
#include "em_model.h"
#include "em_test.h"

#define REQUIRE(cond, ...)          \
  do {                              \
    if (!(cond)) {                  \
      fprintf(stderr, "FAILED: ");  \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n");        \
      exit(1);                      \
    }                               \
  } while (0)

enum { G_BOX = 0, G_DIEL = 7, G_PML = 8, N_GROUP = 9 };

static const double LX = 0.08, LY = 0.03, LZ = 0.03;

typedef struct case_ {
  em_mesh *m;
  em_dofmap *d;
  em_medium med[N_GROUP];
  em_pml pml;
  em_port port;
  uint8_t *vary;
  int32_t abc[256], n_abc;
  double k0;
} case_;

static void centroid(const em_mesh *m, int32_t t, double x[3]) {
  x[0] = x[1] = x[2] = 0;
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) x[d] += 0.25 * m->xyz[3 * (size_t)m->tet[4 * t + a] + d];
}

/* x > 0.75 LX the PML, a dielectric block inside; the PML's tets at
 * pml_order (0: order), the others at order */
static void make_case(case_ *c, int order, int pml_order) {
  memset(c, 0, sizeof *c);
  em_mesh *b = NULL;
  REQUIRE_OK(em_mesh_box(8, 3, 3, LX, LY, LZ, 0.15, 3, &b));
  int32_t *grp = calloc((size_t)b->n_tet, sizeof *grp);
  for (int32_t t = 0; t < b->n_tet; t++) {
    double x[3];
    centroid(b, t, x);
    grp[t] = x[0] > 0.75 * LX                                    ? G_PML
             : x[0] > 0.3 * LX && x[0] < 0.5 * LX && x[1] > 0.01 ? G_DIEL
                                                                 : G_BOX;
  }
  em_group g[N_GROUP];
  for (int k = 0; k < 7; k++) g[k] = b->group[k];
  g[G_DIEL] = (em_group){"diel", 100, 3};
  g[G_PML] = (em_group){"pml", 101, 3};
  REQUIRE_OK(em_mesh_from_tets(b->n_vert, b->xyz, b->n_tet, b->tet, grp, b->n_tri, b->tri,
                               b->tri_group, N_GROUP, g, 0, &c->m));
  free(grp);
  em_mesh_destroy(&b);
  em_mesh *m = c->m;
  for (int k = 0; k < N_GROUP; k++) c->med[k] = (em_medium){1, 1, 0};
  c->med[G_DIEL] = (em_medium){CMPLX(4, -0.08), CMPLX(1.5, 0), 0};
  c->med[G_PML].is_pml = 1;
  REQUIRE_OK(em_pml_detect(m, c->med, 2, 1e-6, &c->pml));
  c->vary = calloc((size_t)m->n_tet, 1);
  for (int32_t t = 0; t < m->n_tet; t++) c->vary[t] = m->tet_group[t] == G_PML;
  uint8_t *fixed = calloc((size_t)m->n_face, 1);
  int zmin = em_mesh_group_find(m, "zmin", 2), zmax = em_mesh_group_find(m, "zmax", 2);
  int xmax = em_mesh_group_find(m, "xmax", 2);
  for (int32_t k = 0; k < m->n_tri; k++) {
    if (m->tri_group[k] == zmin || m->tri_group[k] == zmax) fixed[m->tri_face[k]] = 1;
    if (m->tri_group[k] == xmax && c->n_abc < 256) c->abc[c->n_abc++] = m->tri_face[k];
  }
  int8_t *to = calloc((size_t)m->n_tet, 1);
  for (int32_t t = 0; t < m->n_tet; t++)
    to[t] = (int8_t)(pml_order && m->tet_group[t] == G_PML ? pml_order : order);
  REQUIRE_OK(em_dofmap_build_orders(m, to, fixed, &c->d));
  free(to);
  free(fixed);
  double dir[3] = {0, 0, 1};
  REQUIRE_OK(
      em_port_setup(m, em_mesh_group_find(m, "xmin", 2), EM_PORT_LUMPED, c->med, dir, &c->port));
  c->port.z_ref = 50;
}

static void free_case(case_ *c) {
  em_dofmap_destroy(&c->d);
  em_mesh_destroy(&c->m);
  free(c->vary);
}

/* em_media at the case's k0; after the first pass the dielectric's eps_r
 * gains -j 30 / k0 (k0-dependent, declared nowhere: it leaves the cache) */
static em_err material(void *ctx, int32_t t, const double x[3], em_material *mat) {
  case_ *c = ctx;
  em_media md = {c->m, c->med, &c->pml, c->k0};
  EM_TRY(em_media_material(&md, t, x, mat));
  if (c->k0 > 50 && c->m->tet_group[t] == G_DIEL)
    for (int d = 0; d < 3; d++) mat->eps[d] -= I * 30.0 / c->k0;
  return EM_OK;
}

static em_err dirichlet(void *ctx, const double x[3], em_cplx E[3]) {
  case_ *c = ctx;
  E[0] = 0.1 * cexp(-I * c->k0 * x[0]);
  E[1] = 0.2 * x[1];
  E[2] = 1;
  return EM_OK;
}

static em_err source(void *ctx, const double x[3], em_cplx f[3]) {
  case_ *c = ctx;
  f[0] = x[2] * c->k0;
  f[1] = I * x[0];
  f[2] = 1;
  return EM_OK;
}

static em_err ymax_g(void *ctx, const double x[3], em_cplx g[3]) {
  (void)ctx;
  g[0] = 1 + x[2], g[1] = 0, g[2] = I * x[0];
  return EM_OK;
}

static void problem(case_ *c, double k0, em_robin *rb, em_problem *prob) {
  c->k0 = k0;
  REQUIRE_OK(em_port_set_frequency(&c->port, k0));
  em_port_robin(&c->port, 1, 0, &rb[0]);
  memset(&rb[1], 0, sizeof rb[1]);
  rb[1].group = em_mesh_group_find(c->m, "ymax", 2);
  rb[1].gamma = I * k0;
  rb[1].g = ymax_g;
  rb[1].rhs = 1;
  memset(&rb[2], 0, sizeof rb[2]);
  rb[2].group = -1; /* the ABC: listed faces */
  rb[2].faces = c->abc;
  rb[2].n_faces = c->n_abc;
  rb[2].gamma = I * k0;
  *prob = (em_problem){.k0 = k0,
                       .material = material,
                       .material_ctx = c,
                       .tet_vary = c->vary,
                       .source = source,
                       .source_ctx = c,
                       .dirichlet = dirichlet,
                       .dirichlet_ctx = c,
                       .n_robin = 3,
                       .robin = rb,
                       .n_rhs = 2};
}

/* the owners by em_dpart_build's rule: the lowest part among the tets */
static void owners(const case_ *c, const int32_t *tp, int P, int32_t *owner) {
  int32_t code[64];
  for (int32_t i = 0; i < c->d->n_dof; i++) owner[i] = P;
  for (int32_t t = 0; t < c->m->n_tet; t++) {
    em_dofmap_tet(c->d, c->m, t, code);
    for (int k = 0; k < em_basis_count(c->d->order); k++)
      if (code[k] >= 0 && tp[t] < owner[code[k]]) owner[code[k]] = tp[t];
  }
}

/* part's rows against the whole's: max |difference| over A and b (out),
 * *bits = 0 when any entry differs in a bit */
static void compare(const em_system *w, const em_system *s, const int32_t *owner, int part,
                    double *dA, double *db, int *bits) {
  const em_blockmat *A = w->A, *B = s->A;
  int32_t n = A->offset[A->nb], k = 0;
  REQUIRE(B->nb == A->nb && !memcmp(B->offset, A->offset, sizeof A->offset),
          "part %d: other order groups", part);
  for (int32_t c = 0; c < n; c++)
    if (owner[c] == part) {
      REQUIRE(k < s->n_row && s->row[k] == c, "part %d: row %d is not unknown %d", part, k, c);
      k++;
    }
  REQUIRE(k == s->n_row, "part %d: %d rows, owns %d unknowns", part, s->n_row, k);
  for (int g = 0, k0 = 0; g < A->nb; g++) {
    int32_t nr = B->blk[g][0]->n_rows;
    for (int32_t r = 0; r < nr; r++) {
      int32_t c = s->row[k0 + r], rw = c - A->offset[g];
      REQUIRE(c >= A->offset[g] && c < A->offset[g + 1], "part %d: row %d outside group %d", part,
              k0 + r, g + 1);
      for (int h = 0; h < A->nb; h++) {
        const em_csr *X = A->blk[g][h], *Y = B->blk[g][h];
        int64_t q0 = X->rowptr[rw], len = X->rowptr[rw + 1] - q0, p0 = Y->rowptr[r];
        REQUIRE(Y->rowptr[r + 1] - p0 == len && Y->n_cols == X->n_cols,
                "part %d: row of unknown %d, block %d%d: %lld entries, the whole's %lld", part, c,
                g + 1, h + 1, (long long)(Y->rowptr[r + 1] - p0), (long long)len);
        for (int64_t q = 0; q < len; q++) {
          REQUIRE(Y->colind[p0 + q] == X->colind[q0 + q], "part %d: unknown %d's pattern", part, c);
          *dA = fmax(*dA, cabs(Y->val[p0 + q] - X->val[q0 + q]));
          *bits &= !memcmp(&Y->val[p0 + q], &X->val[q0 + q], sizeof(em_cplx));
        }
      }
      for (int e = 0; e < w->n_rhs; e++) {
        em_cplx u = s->b[(size_t)e * s->n_row + k0 + r], v = w->b[(size_t)e * n + c];
        *db = fmax(*db, cabs(u - v));
        *bits &= !memcmp(&u, &v, sizeof u);
      }
    }
    k0 += nr;
  }
}

static double max_abs_A(const em_system *w) {
  double m = 0;
  for (int g = 0; g < w->A->nb; g++)
    for (int h = 0; h < w->A->nb; h++)
      for (int64_t q = 0; q < w->A->blk[g][h]->nnz; q++) m = fmax(m, cabs(w->A->blk[g][h]->val[q]));
  return m;
}

static double max_abs_b(const em_system *w, int32_t n) {
  double m = 0;
  for (int64_t q = 0; q < (int64_t)n * w->n_rhs; q++) m = fmax(m, cabs(w->b[q]));
  return m;
}

/* a sweep through one whole assembler and one per part, rows compared */
static void check(case_ *c, const int32_t *tp, int P, const char *what) {
  int32_t n = c->d->n_dof, *owner = calloc((size_t)n, sizeof *owner);
  owners(c, tp, P, owner);
  em_assembler *whole = NULL, *part[8] = {NULL};
  REQUIRE_OK(em_assembler_create(c->m, c->d, &whole));
  for (int p = 0; p < P; p++) REQUIRE_OK(em_assembler_create_part(c->m, c->d, owner, p, &part[p]));
  static const double f[] = {2.0e9, 4.4e9, 3.1e9}; /* k0 = 42, 92, 65: the 2nd evicts */
  double dA = 0, db = 0, sA = 0, sb = 0;
  int bits = 1;
  int32_t rows[8] = {0}, kept[8] = {0};
  for (int k = 0; k < 3; k++) {
    em_robin rb[3];
    em_problem prob;
    problem(c, 2 * M_PI * f[k] / EM_C0, rb, &prob);
    em_system *w = NULL;
    REQUIRE_OK(em_assemble_with(whole, &prob, NULL, &w));
    sA = fmax(sA, max_abs_A(w)), sb = fmax(sb, max_abs_b(w, n));
    int32_t total = 0;
    for (int p = 0; p < P; p++) {
      em_system *s = NULL;
      REQUIRE_OK(em_assemble_with(part[p], &prob, NULL, &s));
      compare(w, s, owner, p, &dA, &db, &bits);
      EXPECT(!memcmp(s->fixed, w->fixed, (size_t)c->d->n_fixed * sizeof *s->fixed),
             "%s, part %d: fixed values differ", what, p);
      rows[p] = s->n_row, total += s->n_row;
      kept[p] = em_assembler_cached_tets(part[p]);
      em_system_destroy(&s);
    }
    EXPECT(total == n, "%s: the parts' rows %d, unknowns %d", what, total, n);
    em_system_destroy(&w);
  }
  printf("order %d%s, %s: %d unknowns, rows", c->d->order, c->d->uniform ? "" : " (PML order 1)",
         what, n);
  for (int p = 0; p < P; p++) printf(" %d", rows[p]);
  printf(" (cached tets");
  for (int p = 0; p < P; p++) printf(" %d", kept[p]);
  printf(" of %d); max |A_part - A| / max |A| = %.1e, b %.1e%s\n", c->m->n_tet, dA / sA, db / sb,
         bits ? " (bit for bit)" : "");
  EXPECT(dA <= 1e-14 * sA && db <= 1e-14 * sb, "%s: rows off by %.3g (A), %.3g (b)", what, dA / sA,
         db / sb);
  em_assembler_destroy(&whole);
  for (int p = 0; p < P; p++) em_assembler_destroy(&part[p]);
  free(owner);
}

static void run(int order, int pml_order) {
  case_ c;
  make_case(&c, order, pml_order);
  int32_t nt = c.m->n_tet, *tp = calloc((size_t)nt, sizeof *tp), *own = NULL;
  /* slabs: 0 the port's end (no PML), 1 the PML and the ABC, 2 the
     middle, 3 nothing */
  int pml_in_0 = 0, pml_out_1 = 0;
  for (int32_t t = 0; t < nt; t++) {
    double x[3];
    centroid(c.m, t, x);
    tp[t] = x[0] < 0.3 * LX ? 0 : c.m->tet_group[t] == G_PML ? 1 : 2;
    pml_in_0 |= tp[t] == 0 && c.vary[t];
    pml_out_1 |= tp[t] != 1 && c.vary[t];
  }
  REQUIRE(!pml_in_0 && !pml_out_1, "the slabs do not split off the PML");
  check(&c, tp, 4, "slabs (port / PML / middle / empty)");
  /* METIS, as the distributed solve partitions */
  own = calloc((size_t)c.d->n_dof, sizeof *own);
  for (int P = 2; P <= 3; P++) {
    char what[64];
    REQUIRE_OK(em_dpart_build(c.m, c.d, P, tp, own));
    snprintf(what, sizeof what, "METIS %d parts", P);
    check(&c, tp, P, what);
  }
  /* at random: parts in many pieces */
  unsigned s = 12345;
  for (int32_t t = 0; t < nt; t++) s = s * 1103515245u + 12345u, tp[t] = (int32_t)((s >> 16) % 3);
  check(&c, tp, 3, "random 3 parts");
  free(tp);
  free(own);
  free_case(&c);
}

int main(void) {
  run(2, 0);
  run(3, 0);
  run(3, 1);
  return TEST_RESULT();
}
