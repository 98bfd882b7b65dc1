/* The assembler's frequency-independent cache (assembly/kcache.c): one
 * em_assembler reused over a sweep (the cache built on its first pass,
 * checked and used after) against a fresh plain em_assemble at every
 * frequency, on a box with a dielectric block, a PML slab (graded, varying
 * in its tets), a lumped port (its own right-hand side), a first-order ABC
 * face, PEC plates with non-zero k0-dependent Dirichlet data (the lift
 * through the cached couplings) and a volume source:
 * - matrix and right-hand sides agree to 1e-13 of their largest entry at
 *   five frequencies (one repeated);
 * - the cache holds exactly the non-PML tets;
 * - an assembler started at the third frequency (a resumed sweep) gives the
 *   same bits as the one that saw them all;
 * - a dispersive dielectric (eps depends on k0, declared nowhere) is found
 *   by the per-pass check: its tets leave the cache, the rest stays, and the
 *   results still agree. */
#include <string.h>

#include "em_assembly.h"
#include "em_test.h"

/* A failed precondition ends the test (what follows would read garbage). */
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
  int dispersive;
  double k0;
} case_;

/* The box mesh regrouped: x > 0.75 LX the PML, a dielectric block inside;
 * the PML's tets at pml_order (0: order), the others at order. */
static void make_case(case_ *c, int order, int pml_order) {
  memset(c, 0, sizeof *c);
  em_mesh *b = NULL;
  REQUIRE_OK(em_mesh_box(8, 3, 3, LX, LY, LZ, 0, 3, &b));
  int32_t *grp = calloc((size_t)b->n_tet, sizeof *grp);
  for (int32_t t = 0; t < b->n_tet; t++) {
    double x[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) x[d] += 0.25 * b->xyz[3 * (size_t)b->tet[4 * t + a] + d];
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
  EXPECT(c->pml.thick[1] > 0.019 && c->pml.thick[0] == 0, "PML slab %g %g", c->pml.thick[0],
         c->pml.thick[1]);
  c->vary = calloc((size_t)m->n_tet, 1);
  for (int32_t t = 0; t < m->n_tet; t++) c->vary[t] = m->tet_group[t] == G_PML;
  uint8_t *fixed = calloc((size_t)m->n_face, 1);
  int zmin = em_mesh_group_find(m, "zmin", 2), zmax = em_mesh_group_find(m, "zmax", 2);
  for (int32_t k = 0; k < m->n_tri; k++)
    if (m->tri_group[k] == zmin || m->tri_group[k] == zmax) fixed[m->tri_face[k]] = 1;
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

/* em_media at the case's k0; dispersive: the dielectric's eps_r gains
 * -j 30 / k0 (a conductivity term, k0-dependent, declared nowhere). */
static em_err material(void *ctx, int32_t t, const double x[3], em_material *mat) {
  case_ *c = ctx;
  em_media md = {c->m, c->med, &c->pml, c->k0};
  EM_TRY(em_media_material(&md, t, x, mat));
  if (c->dispersive && c->m->tet_group[t] == G_DIEL)
    for (int d = 0; d < 3; d++) mat->eps[d] -= I * 30.0 / c->k0;
  return EM_OK;
}

/* non-zero Dirichlet data on the plates, changing with k0 */
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

static void problem(case_ *c, double k0, em_robin *rb, em_problem *prob) {
  c->k0 = k0;
  REQUIRE_OK(em_port_set_frequency(&c->port, k0));
  em_port_robin(&c->port, 1, 0, &rb[0]);
  memset(&rb[1], 0, sizeof rb[1]);
  rb[1].group = em_mesh_group_find(c->m, "ymax", 2);
  rb[1].gamma = I * k0;
  *prob = (em_problem){.k0 = k0,
                       .material = material,
                       .material_ctx = c,
                       .tet_vary = c->vary,
                       .source = source,
                       .source_ctx = c,
                       .dirichlet = dirichlet,
                       .dirichlet_ctx = c,
                       .n_robin = 2,
                       .robin = rb,
                       .n_rhs = 2};
}

/* max |x - y| / max |y| over the blocks' values and the right-hand sides */
static void compare(const em_system *a, const em_system *r, int32_t n_dof, double *ea, double *eb) {
  double da = 0, ma = 0, db = 0, mb = 0;
  for (int i = 0; i < r->A->nb; i++)
    for (int j = 0; j < r->A->nb; j++) {
      const em_csr *X = a->A->blk[i][j], *Y = r->A->blk[i][j];
      REQUIRE(X->nnz == Y->nnz, "block %d%d: nnz %lld vs %lld", i, j, (long long)X->nnz,
              (long long)Y->nnz);
      for (int64_t q = 0; q < Y->nnz; q++) {
        REQUIRE(X->colind[q] == Y->colind[q], "block %d%d: pattern differs at %lld", i, j,
                (long long)q);
        da = fmax(da, cabs(X->val[q] - Y->val[q]));
        ma = fmax(ma, cabs(Y->val[q]));
      }
    }
  for (int64_t q = 0; q < (int64_t)n_dof * r->n_rhs; q++) {
    db = fmax(db, cabs(a->b[q] - r->b[q]));
    mb = fmax(mb, cabs(r->b[q]));
  }
  *ea = da / ma;
  *eb = db / mb;
}

static void sweep(int order, int dispersive, int pml_order) {
  case_ c;
  make_case(&c, order, pml_order);
  c.dispersive = dispersive;
  int32_t n_pml = 0, n_diel = 0;
  for (int32_t t = 0; t < c.m->n_tet; t++) {
    n_pml += c.m->tet_group[t] == G_PML;
    n_diel += c.m->tet_group[t] == G_DIEL;
  }
  REQUIRE(n_pml > 0 && n_diel > 0, "case without PML (%d) or dielectric (%d) tets", n_pml, n_diel);
  em_assembler *as = NULL, *late = NULL;
  REQUIRE_OK(em_assembler_create(c.m, c.d, &as));
  REQUIRE_OK(em_assembler_create(c.m, c.d, &late));
  static const double f[] = {2.0e9, 3.1e9, 4.4e9, 3.1e9, 5.9e9};
  double t_plain = 0, t_cached = 0;
  for (int k = 0; k < 5; k++) {
    double k0 = 2 * M_PI * f[k] / EM_C0;
    em_robin rb[2];
    em_problem prob;
    problem(&c, k0, rb, &prob);
    em_system *sr = NULL, *sc = NULL;
    double t0 = em_wtime();
    REQUIRE_OK(em_assemble(c.m, c.d, &prob, NULL, &sr));
    double t1 = em_wtime();
    REQUIRE_OK(em_assemble_with(as, &prob, NULL, &sc));
    double t2 = em_wtime();
    if (k >= 2) t_plain += t1 - t0, t_cached += t2 - t1;
    double ea, eb;
    compare(sc, sr, c.d->n_dof, &ea, &eb);
    EXPECT(ea <= 1e-13 && eb <= 1e-13,
           "order %d%s, f = %g GHz (pass %d): matrix off by %.3g, right-hand sides by %.3g", order,
           dispersive ? ", dispersive" : "", f[k] * 1e-9, k + 1, ea, eb);
    int32_t kept = em_assembler_cached_tets(as),
            want = c.m->n_tet - n_pml - (dispersive && k >= 1 ? n_diel : 0);
    EXPECT(kept == want, "order %d%s, pass %d: %d tets cached, want %d", order,
           dispersive ? ", dispersive" : "", k + 1, kept, want);
    if (k >= 2) {
      em_system *sl = NULL;
      REQUIRE_OK(em_assemble_with(late, &prob, NULL, &sl));
      int same = !memcmp(sl->b, sc->b, (size_t)c.d->n_dof * prob.n_rhs * sizeof *sl->b);
      for (int i = 0; i < sc->A->nb; i++)
        for (int j = 0; j < sc->A->nb; j++)
          same &= !memcmp(sl->A->blk[i][j]->val, sc->A->blk[i][j]->val,
                          (size_t)sc->A->blk[i][j]->nnz * sizeof(em_cplx));
      /* a dispersive medium is in the late cache on its first pass only */
      EXPECT(same || (dispersive && k == 2),
             "order %d%s, f = %g GHz: an assembler started here differs from the sweep's", order,
             dispersive ? ", dispersive" : "", f[k] * 1e-9);
      em_system_destroy(&sl);
    }
    em_system_destroy(&sr);
    em_system_destroy(&sc);
  }
  printf(
      "order %d%s%s: %d tets (%d PML, %d dielectric), %d unknowns, passes 3-5: plain %.4f s, "
      "cached %.4f s\n",
      order, dispersive ? ", dispersive" : "", pml_order ? ", PML at order 1" : "", c.m->n_tet,
      n_pml, n_diel, c.d->n_dof, t_plain, t_cached);
  em_assembler_destroy(&as);
  em_assembler_destroy(&late);
  free_case(&c);
}

int main(void) {
  for (int p = 1; p <= 3; p++) sweep(p, 0, 0);
  sweep(2, 1, 0);
  sweep(3, 1, 0);
  sweep(3, 0, 1); /* order per region: the PML at order 1 */
  return TEST_RESULT();
}
