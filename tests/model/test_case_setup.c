/* The case physics (model/case_setup.c) on structured boxes whose groups
 * the test names, so that every count has a closed form: a box of n x n x n
 * cells (six tets each) has 2 n^2 triangles on each side, 6 n^3 tets, and
 * 2 n (n + 1) + n^2 edges on each side.
 *  - face roles: pec* fixed, portN and pmc* natural, bare exterior PEC or,
 *    with Boundary/outer abc, the ABC on the bounding box only (the walls of
 *    an unmeshed cell inside stay PEC); precedence pec > port > pmc;
 *  - PMC faces left natural: the order-1 DOF map fixes exactly the edges of
 *    the PEC faces;
 *  - the ABC terms: one per medium behind the faces, gamma = j k0 sqrt(eps
 *    mu) / mu with eps = eps_r (1 - j tan_delta), each with its faces;
 *  - a lumped port on a w x l side: width, length (E along dir), area,
 *    inward normal, the reference resistance z0, de-embedding in metres;
 *  - the PML mask: the tets of pml* volumes, the interior box and the layer
 *    thickness, m and R0 from the options;
 *  - errors naming the culprit: a volume without eps_r, a bad port type,
 *    a gap in the port numbers, only PML volumes, a waveguide port below
 *    its TE10 cut-off c / 2a; a shorted port's faces PEC;
 *  - the PML wall estimate: 1 for a uniform field, the ratio of the
 *    volume-weighted means of |E|^2 = x^2 + y^2 (E = z x r, exact at order
 *    1) over the wall and interface tets found from the coordinates. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "case_test_util.h"
#include "em_model.h"

static const em_param_spec SPECS[] = {
    {"Materials/*/eps_r", 0, 0, NULL, 0, "relative permittivity", NULL, 0},
    {"Materials/*/mu_r", 0, 1, NULL, 1, "relative permeability", NULL, 0},
    {"Materials/*/tan_delta", 0, 0, NULL, 1, "loss tangent", NULL, 0},
    {"Ports/*/type", 1, 0, NULL, 0, "coax | waveguide | lumped", NULL, 0},
    {"Ports/*/z0", 0, 0, NULL, 1, "reference impedance", "ohm", 0},
    {"Ports/*/deembed", 0, 0, NULL, 1, "de-embedding", NULL, 0},
    {"Ports/*/dir_x", 0, 0, NULL, 1, "E direction x", NULL, 0},
    {"Ports/*/dir_y", 0, 0, NULL, 1, "E direction y", NULL, 0},
    {"Ports/*/dir_z", 0, 0, NULL, 1, "E direction z", NULL, 0},
};
#define NSPEC ((int)(sizeof SPECS / sizeof SPECS[0]))

/* Which volume a tet of the box belongs to, from its centroid. */
typedef int (*vol_fn)(const double c[3], const double len[3]);

/* The n^3 box of sides len with volume names vol[] (vol_of picks one per
 * tet, -1 drops the tet), the six sides named side[] (xmin xmax ymin ymax
 * zmin zmax; NULL: in no group) and optionally one more surface group
 * `extra` on the triangles of side extra_side. */
static em_mesh *make_box(int n, const double len[3], int n_vol, const char *const *vol,
                         vol_fn vol_of, const char *const side[6], const char *extra,
                         int extra_side) {
  em_mesh *b = NULL, *m = NULL;
  REQUIRE_OK(em_mesh_box(n, n, n, len[0], len[1], len[2], 0, 1, &b));
  em_group g[16];
  int ng = 0, side_group[7];
  for (int k = 0; k < n_vol; k++, ng++) g[ng] = (em_group){(char *)vol[k], ng + 1, 3};
  for (int s = 0; s < 6; s++) {
    side_group[s] = side[s] ? ng : -1;
    if (side[s]) g[ng] = (em_group){(char *)side[s], ng + 1, 2}, ng++;
  }
  side_group[6] = extra ? ng : -1;
  if (extra) g[ng] = (em_group){(char *)extra, ng + 1, 2}, ng++;
  int32_t *tet = malloc(sizeof *tet * 4 * (size_t)b->n_tet);
  int32_t *tg = malloc(sizeof *tg * (size_t)b->n_tet);
  int32_t *tri = malloc(sizeof *tri * 6 * (size_t)b->n_tri);
  int32_t *trg = malloc(sizeof *trg * 2 * (size_t)b->n_tri);
  int32_t nt = 0, nr = 0;
  for (int32_t t = 0; t < b->n_tet; t++) {
    double c[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) c[d] += b->xyz[3 * (size_t)b->tet[4 * t + a] + d] / 4;
    int v = vol_of(c, len);
    if (v < 0) continue;
    memcpy(tet + 4 * nt, b->tet + 4 * t, 4 * sizeof *tet);
    tg[nt++] = v;
  }
  for (int32_t k = 0; k < b->n_tri; k++) {
    int s = b->tri_group[k] - 1; /* em_mesh_box: xmin .. zmax are groups 1 .. 6 */
    if (side_group[s] >= 0) {
      memcpy(tri + 3 * nr, b->tri + 3 * k, 3 * sizeof *tri);
      trg[nr++] = side_group[s];
    }
    if (extra && s == extra_side) {
      memcpy(tri + 3 * nr, b->tri + 3 * k, 3 * sizeof *tri);
      trg[nr++] = side_group[6];
    }
  }
  REQUIRE_OK(em_mesh_from_tets(b->n_vert, b->xyz, nt, tet, tg, nr, tri, trg, ng, g, 0, &m));
  m->unit = 1e-3;
  free(tet), free(tg), free(tri), free(trg);
  em_mesh_destroy(&b);
  return m;
}

/* every tet in volume 0 */
static int all_air(const double c[3], const double len[3]) {
  (void)c, (void)len;
  return 0;
}

/* the middle cell of a 3^3 box left out: an unmeshed metal block */
static int air_with_hole(const double c[3], const double len[3]) {
  for (int d = 0; d < 3; d++)
    if (c[d] < len[d] / 3 || c[d] > 2 * len[d] / 3) return 0;
  return -1;
}

/* diel (group 0) for x < len/2, air (group 1) beyond */
static int diel_air(const double c[3], const double len[3]) {
  return c[0] < len[0] / 2 ? 0 : 1;
}

/* air (group 0), pml_xp (group 1) in the last third along x */
static int air_pml(const double c[3], const double len[3]) {
  return c[0] > 2 * len[0] / 3 ? 1 : 0;
}

/* every tet in volume 0, a PML (the only-PML error) */
static int pml_only(const double c[3], const double len[3]) {
  (void)c, (void)len;
  return 0;
}

/* tests/data/model_setup.geo with the overrides: the media and the port. */
static em_case *open_case(int n_over, const em_param_override *over) {
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(data_path("model_setup.geo"), n_over, over, NSPEC, SPECS, NULL, &c));
  return c;
}

/* Faces per role, the fixed ones, and fixed == (role PEC) on every face. */
static void count_roles(const em_mesh *m, const em_setup *s, int32_t cnt[5], int32_t *n_fixed) {
  memset(cnt, 0, 5 * sizeof *cnt);
  *n_fixed = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    cnt[s->face_role[f]]++;
    *n_fixed += s->face_fixed[f];
    EXPECT(s->face_fixed[f] == (s->face_role[f] == EM_FACE_PEC), "face %d: role %d, fixed %d", f,
           s->face_role[f], s->face_fixed[f]);
  }
}

/* Roles on a 2^3 air box: xmin pec, xmax port1, ymin pmc, three bare sides. */
static void test_roles(em_case *c) {
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"air"};
  const char *side[6] = {"pec_wall", "port1", "pmc_side", NULL, NULL, NULL};
  const int n = 2, per_side = 2 * n * n, edges_per_side = 2 * n * (n + 1) + n * n;
  em_mesh *m = make_box(n, len, 1, vol, all_air, side, NULL, 0);
  for (int abc = 0; abc <= 1; abc++) {
    em_setup s;
    em_setup_opts o = {abc, 2, 1e-6, 1, 0};
    EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
    int32_t cnt[5], nf;
    count_roles(m, &s, cnt, &nf);
    int32_t bare = 3 * per_side;
    printf("outer %s: pec %d, port %d, pmc %d, abc %d, fixed %d faces\n", abc ? "abc" : "pec",
           cnt[EM_FACE_PEC], cnt[EM_FACE_PORT], cnt[EM_FACE_PMC], cnt[EM_FACE_ABC], nf);
    EXPECT(cnt[EM_FACE_PEC] == per_side + (abc ? 0 : bare), "PEC faces %d", cnt[EM_FACE_PEC]);
    EXPECT(cnt[EM_FACE_PORT] == per_side && cnt[EM_FACE_PMC] == per_side,
           "port faces %d, PMC faces %d, want %d each", cnt[EM_FACE_PORT], cnt[EM_FACE_PMC],
           per_side);
    EXPECT(cnt[EM_FACE_ABC] == (abc ? bare : 0) && s.n_abc == cnt[EM_FACE_ABC],
           "ABC faces %d (listed %d)", cnt[EM_FACE_ABC], s.n_abc);
    EXPECT(cnt[EM_FACE_NONE] == m->n_face - 6 * per_side, "interior faces %d", cnt[EM_FACE_NONE]);
    for (int32_t k = 1; k < s.n_abc; k++)
      EXPECT(s.abc_face[k] > s.abc_face[k - 1], "ABC faces ascending");
    /* the PMC and port sides natural: order 1 fixes only the PEC faces' edges */
    if (abc) {
      em_dofmap *d = NULL;
      EXPECT_OK(em_dofmap_build(m, 1, s.face_fixed, &d));
      if (d)
        EXPECT(d->n_fixed == edges_per_side && d->n_dof == m->n_edge - edges_per_side,
               "order 1: %d fixed, %d free of %d edges; want %d fixed", d->n_fixed, d->n_dof,
               m->n_edge, edges_per_side);
      em_dofmap_destroy(&d);
    }
    /* the lumped port on x = 40 mm: w = 30 mm along y, E along z over 10 mm */
    EXPECT(s.n_port == 1, "%d ports", s.n_port);
    if (s.n_port == 1) {
      const em_port *p = &s.port[0];
      EXPECT(p->type == EM_PORT_LUMPED && !strcmp(p->name, "port1"), "port %s type %d", p->name,
             p->type);
      EXPECT_NEAR(p->a, 30e-3, 1e-15);
      EXPECT_NEAR(p->b, 10e-3, 1e-15);
      EXPECT_NEAR(p->area, 300e-6, 1e-15);
      EXPECT_NEAR(fabs(p->v[2]), 1, 1e-14);
      EXPECT_NEAR(fabs(p->normal[0]), 1, 1e-14); /* a lumped gap has no inside */
      EXPECT(p->z_ref == 50, "z_ref %g ohm, want Ports/port1/z0 = 50", p->z_ref);
      EXPECT_NEAR(p->deembed, 2e-3, 1e-18);
      em_port q = *p;
      EXPECT_OK(em_port_set_frequency(&q, 2 * M_PI * 1e9 / EM_C0));
      EXPECT(q.z_mode == 50, "lumped port: mode impedance %g%+gj, want the 50 ohm resistor",
             creal(q.z_mode), cimag(q.z_mode));
    }
    em_setup_free(&s);
  }
  em_mesh_destroy(&m);
}

/* Precedence on faces in two groups: pec over port, port over pmc. */
static void test_precedence(em_case *c) {
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"air"};
  const char *side1[6] = {"pec_wall", "port1", NULL, NULL, NULL, NULL};
  const int per_side = 8;
  em_mesh *m = make_box(2, len, 1, vol, all_air, side1, "pmc_over", 1); /* pmc on the port */
  em_setup s;
  em_setup_opts o = {1, 2, 1e-6, 1, 0};
  int32_t cnt[5], nf;
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  count_roles(m, &s, cnt, &nf);
  EXPECT(cnt[EM_FACE_PORT] == per_side && cnt[EM_FACE_PMC] == 0, "port over pmc: %d port, %d pmc",
         cnt[EM_FACE_PORT], cnt[EM_FACE_PMC]);
  em_setup_free(&s);
  em_mesh_destroy(&m);
  const char *side2[6] = {NULL, "port1", "pmc_side", NULL, NULL, NULL};
  m = make_box(2, len, 1, vol, all_air, side2, "pec_over", 2); /* pec on the pmc side */
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  count_roles(m, &s, cnt, &nf);
  EXPECT(cnt[EM_FACE_PMC] == 0 && cnt[EM_FACE_PEC] == per_side && cnt[EM_FACE_ABC] == 4 * per_side,
         "pec over pmc: %d pmc, %d pec, %d abc", cnt[EM_FACE_PMC], cnt[EM_FACE_PEC],
         cnt[EM_FACE_ABC]);
  em_setup_free(&s);
  em_mesh_destroy(&m);
}

/* ABC only on the bounding box: the walls of an unmeshed middle cell stay PEC. */
static void test_abc_bbox(em_case *c) {
  const double len[3] = {0.03, 0.03, 0.03};
  const char *vol[] = {"air"};
  const char *side[6] = {NULL, "port1", NULL, NULL, NULL, NULL};
  em_mesh *m = make_box(3, len, 1, vol, air_with_hole, side, NULL, 0);
  em_setup s;
  em_setup_opts o = {1, 2, 1e-6, 1, 0};
  int32_t cnt[5], nf;
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  count_roles(m, &s, cnt, &nf);
  EXPECT(cnt[EM_FACE_ABC] == 5 * 18 && cnt[EM_FACE_PEC] == 6 * 2 && cnt[EM_FACE_PORT] == 18,
         "hole: abc %d (want 90), pec %d (want the hole's 12), port %d", cnt[EM_FACE_ABC],
         cnt[EM_FACE_PEC], cnt[EM_FACE_PORT]);
  em_setup_free(&s);
  em_mesh_destroy(&m);
}

/* The media and one ABC term per medium behind the outer faces. */
static void test_abc_media(em_case *c) {
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"diel", "air"};
  const char *side[6] = {NULL, "port1", NULL, NULL, NULL, NULL};
  em_mesh *m = make_box(2, len, 2, vol, diel_air, side, NULL, 0);
  em_setup s;
  em_setup_opts o = {1, 2, 1e-6, 1, 0};
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  em_cplx eps = 4 * (1 - 0.1 * I), mu = 2;
  EXPECT(s.medium[0].eps_r == eps && s.medium[0].mu_r == mu && !s.medium[0].is_pml,
         "diel: eps %g%+gj mu %g", creal(s.medium[0].eps_r), cimag(s.medium[0].eps_r),
         creal(s.medium[0].mu_r));
  EXPECT(s.medium[1].eps_r == 1 && s.medium[1].mu_r == 1, "air: eps %g mu %g",
         creal(s.medium[1].eps_r), creal(s.medium[1].mu_r));
  double k0 = 2 * M_PI * 2e9 / EM_C0;
  em_robin rb[4];
  int nr = 0;
  EXPECT_OK(em_abc_robins(m, s.medium, s.abc_face, s.n_abc, k0, rb, 4, &nr));
  /* xmin (8) and half of the four long sides (4 x 4) behind diel; air: the rest but xmax */
  EXPECT(nr == 2, "%d ABC terms, want one per medium", nr);
  for (int k = 0; k < nr; k++) {
    em_cplx e = k == 0 ? eps : 1, u = k == 0 ? mu : 1;
    em_cplx want = I * k0 * csqrt(e * u) / u;
    int32_t n_want = k == 0 ? 24 : 16;
    printf("ABC term %d: gamma %.6g%+.6gj (want %.6g%+.6gj), %d faces\n", k, creal(rb[k].gamma),
           cimag(rb[k].gamma), creal(want), cimag(want), rb[k].n_faces);
    EXPECT(cabs(rb[k].gamma - want) <= 1e-14 * cabs(want), "term %d: gamma", k);
    EXPECT(rb[k].n_faces == n_want, "term %d: %d faces, want %d", k, rb[k].n_faces, n_want);
    for (int32_t j = 0; j < rb[k].n_faces; j++)
      EXPECT(m->tet_group[m->face_tet[2 * rb[k].faces[j]]] == k, "term %d: a face of medium %d", k,
             m->tet_group[m->face_tet[2 * rb[k].faces[j]]]);
  }
  em_abc_free(rb, nr);
  em_setup_free(&s);
  em_mesh_destroy(&m);
}

/* The PML mask, box and grading; only PML volumes is an error. */
static void test_pml(em_case *c) {
  const double len[3] = {0.03, 0.03, 0.03};
  const char *vol[] = {"air", "pml_xp"};
  const char *side[6] = {"port1", NULL, NULL, NULL, NULL, NULL};
  em_mesh *m = make_box(3, len, 2, vol, air_pml, side, NULL, 0);
  em_setup s;
  em_setup_opts o = {0, 3, 1e-4, 1, 0};
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  EXPECT(s.has_pml && s.medium[1].is_pml && !s.medium[0].is_pml, "PML flags %d %d %d", s.has_pml,
         s.medium[0].is_pml, s.medium[1].is_pml);
  EXPECT(s.medium[1].eps_r == 1 && s.medium[1].mu_r == 1, "pml_xp without eps_r: vacuum");
  int32_t n_pml = 0;
  for (int32_t t = 0; t < m->n_tet; t++) n_pml += s.medium[m->tet_group[t]].is_pml;
  EXPECT(n_pml == 9 * 6, "%d PML tets, want the 9 cells of the last layer, 54", n_pml);
  const double want_inner[6] = {0, 20e-3, 0, 30e-3, 0, 30e-3};
  const double want_thick[6] = {0, 10e-3, 0, 0, 0, 0};
  for (int k = 0; k < 6; k++) {
    EXPECT(fabs(s.pml.inner[k] - want_inner[k]) < 1e-15, "inner[%d] %g", k, s.pml.inner[k]);
    EXPECT(fabs(s.pml.thick[k] - want_thick[k]) < 1e-15, "thick[%d] %g", k, s.pml.thick[k]);
  }
  EXPECT(s.pml.order == 3 && s.pml.R0 == 1e-4, "m %d R0 %g", s.pml.order, s.pml.R0);
  em_setup_free(&s);
  em_mesh_destroy(&m);
  const char *vol2[] = {"pml_all"};
  m = make_box(2, len, 1, vol2, pml_only, side, NULL, 0);
  EXPECT_FAIL(em_setup_build(c, m, &o, NULL, &s), EM_ERR_INPUT, "only PML volumes", NULL);
  em_setup_free(&s);
  em_mesh_destroy(&m);
}

/* Errors naming the material, the parameter, the port. */
static void test_errors(em_case *c) {
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"nomat"};
  const char *side[6] = {NULL, "port1", NULL, NULL, NULL, NULL};
  em_setup_opts o = {0, 2, 1e-6, 1, 0};
  em_setup s;
  em_mesh *m = make_box(2, len, 1, vol, all_air, side, NULL, 0);
  EXPECT_FAIL(em_setup_build(c, m, &o, NULL, &s), EM_ERR_INPUT, "'nomat' has no eps_r",
              "Materials/nomat/eps_r");
  em_setup_free(&s);
  em_mesh_destroy(&m);
  const char *vol2[] = {"air"};
  const char *gap[6] = {NULL, "port2", NULL, NULL, NULL, NULL};
  m = make_box(2, len, 1, vol2, all_air, gap, NULL, 0);
  EXPECT_FAIL(em_setup_build(c, m, &o, NULL, &s), EM_ERR_INPUT, "no 'port1'", NULL);
  em_setup_free(&s);
  em_mesh_destroy(&m);
}

static void test_bad_type(void) {
  em_param_override over = {"Ports/port1/type", 1, 0, "stripline"};
  em_case *c = open_case(1, &over);
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"air"};
  const char *side[6] = {NULL, "port1", NULL, NULL, NULL, NULL};
  em_setup_opts o = {0, 2, 1e-6, 1, 0};
  em_setup s;
  em_mesh *m = make_box(2, len, 1, vol, all_air, side, NULL, 0);
  EXPECT_FAIL(em_setup_build(c, m, &o, NULL, &s), EM_ERR_INPUT, "Ports/port1/type = 'stripline'",
              "lumped");
  em_setup_free(&s);
  em_mesh_destroy(&m);
  em_case_close(&c);
}

/* A waveguide port 30 x 10 mm: TE10 cut-off c / (2 a) = 4.997 GHz, so
 * the band 6-8 GHz passes and 4.9 GHz is refused naming the port; shorted
 * (Eigen/ports short) its faces become PEC. */
static void test_band_and_short(void) {
  em_param_override over = {"Ports/port1/type", 1, 0, "waveguide"};
  em_case *c = open_case(1, &over);
  const double len[3] = {0.04, 0.03, 0.01};
  const char *vol[] = {"air"};
  const char *side[6] = {NULL, "port1", NULL, NULL, NULL, NULL};
  em_setup_opts o = {0, 2, 1e-6, 1, 0};
  em_setup s;
  em_mesh *m = make_box(2, len, 1, vol, all_air, side, NULL, 0);
  EXPECT_OK(em_setup_build(c, m, &o, NULL, &s));
  const double band[2] = {6e9, 8e9}, low[2] = {6e9, 4.9e9};
  EXPECT_OK(em_setup_check_band(&s, band, 2));
  EXPECT_FAIL(em_setup_check_band(&s, low, 2), EM_ERR_INPUT, "port1", "cut");
  int32_t cnt[5], nf;
  count_roles(m, &s, cnt, &nf);
  EXPECT(cnt[EM_FACE_PORT] == 8 && nf == 5 * 8, "before the short: %d port, %d fixed faces",
         cnt[EM_FACE_PORT], nf);
  em_setup_short_ports(m, &s);
  count_roles(m, &s, cnt, &nf);
  EXPECT(cnt[EM_FACE_PORT] == 0 && nf == 6 * 8, "shorted: %d port, %d fixed faces",
         cnt[EM_FACE_PORT], nf);
  em_setup_free(&s);
  em_mesh_destroy(&m);
  em_case_close(&c);
}

/* The Whitney coefficients of E = a + b x r on every edge: E(midpoint) . (x_b
 * - x_a), exact for this field (docs/basis.md, order 1). */
static void whitney(const em_mesh *m, const em_dofmap *d, const double a[3], const double b[3],
                    em_cplx *x) {
  for (int32_t e = 0; e < m->n_edge; e++) {
    const double *p = m->xyz + 3 * (size_t)m->edge[2 * e],
                 *q = m->xyz + 3 * (size_t)m->edge[2 * e + 1];
    double c[3], E[3], t = 0;
    for (int k = 0; k < 3; k++) c[k] = (p[k] + q[k]) / 2;
    E[0] = a[0] + b[1] * c[2] - b[2] * c[1];
    E[1] = a[1] + b[2] * c[0] - b[0] * c[2];
    E[2] = a[2] + b[0] * c[1] - b[1] * c[0];
    for (int k = 0; k < 3; k++) t += E[k] * (q[k] - p[k]);
    x[d->edge_dof[e]] = t;
  }
}

/* The PML wall estimate (model/pml_wall.c) on the 3^3 box with its last
 * layer PML: a uniform field gives 1; E = z x r = (-y, x, 0) gives the
 * ratio of the volume-weighted means of x^2 + y^2 at the centroids of the
 * PML tets with a face on the box's boundary and of those with a face on
 * the plane x = 2L/3, found here from the coordinates; no PML: NaN. */
static void test_pml_wall(em_case *c) {
  const double len[3] = {0.03, 0.03, 0.03}, L = 0.03;
  const char *vol[] = {"air", "pml_xp"};
  const char *side[6] = {"port1", NULL, NULL, NULL, NULL, NULL};
  em_mesh *m = make_box(3, len, 2, vol, air_pml, side, NULL, 0);
  em_setup s;
  em_setup_opts o = {0, 2, 1e-6, 1, 0};
  em_dofmap *d = NULL;
  REQUIRE_OK(em_setup_build(c, m, &o, NULL, &s));
  REQUIRE_OK(em_dofmap_build(m, 1, NULL, &d));
  em_cplx *x = calloc((size_t)d->n_dof, sizeof *x);
  const double a[3] = {1, -2, 0.5}, zero[3] = {0, 0, 0}, bz[3] = {0, 0, 1};
  whitney(m, d, a, zero, x);
  double rho = em_setup_pml_wall(m, d, &s, x, NULL);
  EXPECT(fabs(rho - 1) < 1e-12, "uniform field: rho = %.15g, want 1", rho);
  whitney(m, d, zero, bz, x);
  double sum[2] = {0, 0}, vsum[2] = {0, 0};
  for (int32_t t = 0; t < m->n_tet; t++) {
    double cen[3] = {0, 0, 0};
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 3; j++) cen[j] += m->xyz[3 * (size_t)m->tet[4 * t + k] + j] / 4;
    if (cen[0] < 2 * L / 3) continue;
    int wall = 0, iface = 0;
    for (int f = 0; f < 4; f++) /* face f: the three vertices but f */
      for (int j = 0; j < 3; j++) {
        int on_lo = 1, on_hi = 1, on_if = 1;
        for (int k = 0; k < 4; k++) {
          if (k == f) continue;
          double v = m->xyz[3 * (size_t)m->tet[4 * t + k] + j];
          on_lo &= fabs(v) < 1e-12, on_hi &= fabs(v - L) < 1e-12;
          on_if &= j == 0 && fabs(v - 2 * L / 3) < 1e-12;
        }
        wall |= on_lo || on_hi, iface |= on_if;
      }
    double V = fabs(em_tet_volume(m, t)), e2 = cen[0] * cen[0] + cen[1] * cen[1];
    if (wall) sum[0] += V * e2, vsum[0] += V;
    if (iface) sum[1] += V * e2, vsum[1] += V;
  }
  double want = (sum[0] / vsum[0]) / (sum[1] / vsum[1]);
  rho = em_setup_pml_wall(m, d, &s, x, NULL);
  printf("PML wall estimate of E = (-y, x, 0): %.15g (want %.15g)\n", rho, want);
  EXPECT(fabs(rho - want) < 1e-12 * want, "rotating field: rho = %.15g, want %.15g", rho, want);
  em_setup_free(&s);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
  const char *vol1[] = {"air"};
  m = make_box(2, len, 1, vol1, all_air, side, NULL, 0);
  REQUIRE_OK(em_setup_build(c, m, &o, NULL, &s));
  REQUIRE_OK(em_dofmap_build(m, 1, NULL, &d));
  EXPECT(isnan(em_setup_pml_wall(m, d, &s, x, NULL)), "no PML: NaN");
  free(x);
  em_setup_free(&s);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  em_case *c = open_case(0, NULL);
  test_roles(c);
  test_precedence(c);
  test_abc_bbox(c);
  test_abc_media(c);
  test_pml(c);
  test_errors(c);
  test_pml_wall(c);
  em_case_close(&c);
  test_bad_type();
  test_band_and_short();
  return TEST_RESULT();
}
