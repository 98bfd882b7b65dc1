/* Curved (second-order, Mesh/geometry_order 2) tets:
 *  (1) the quadratic map with its mid-edge nodes at the straight midpoints
 *      IS the affine map: em_tet_geom_at gives the affine gradients and
 *      volume, and the element matrices by the curved path (forced) equal
 *      the affine ones (reference-tensor fast path and plain quadrature) to
 *      1e-12 at orders 1..3, constant and varying material;
 *  (2) a genuinely curved tet: the quadratic map's Jacobian against finite
 *      differences of its own x(lam) (1e-7), the element matrices
 *      invariant under a rigid motion of the nodes (1e-12), and their
 *      quadrature against a 16^3-point product rule (1e-6);
 *  (3) a ball of radius 1 meshed by Gmsh with geometry_order 2: the volume
 *      sum_t sum_k w_k |det J|/6 converges to 4 pi / 3 at rate >= 3.5 in h
 *      (quadratic boundary interpolation: O(h^4)) while the straight tets
 *      of the same meshes converge at rate ~2 (the chord error); the finest
 *      curved mesh is within 2e-5;
 *      and the sphere's area by em_tet_face_at the same (rate >= 3.5;
 *      flat triangles ~2), its normals outward;
 *  (4) a Robin term on a curved face assembles on its own map;
 *  (5) a .msh of 10-node tets reads with geometry_order 2 (mid nodes in
 *      Gmsh's order, at the straight midpoints: no tet flagged curved), and
 *      a mid node moved far off its edge is refused naming the tet. */
#include <math.h>
#include <string.h>

#include "assembly_impl.h"
#include "case_test_util.h"
#include "em_assembly.h"
#include "em_test.h"

/* A material that varies in space (vary = 1) or not: quadratic in x, so
 * that the affine rule (degree 2p+2 for T, 2p for S) and the curved one
 * (two more) both integrate it exactly on a straight tet. */
static em_err mat_fn(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)t;
  int vary = *(const int *)ctx;
  for (int d = 0; d < 3; d++) {
    double s = vary ? 1 + 0.3 * x[d] * x[(d + 1) % 3] : 1;
    m->eps[d] = (2.0 + d) * s - I * 0.1 * (d + 1);
    m->nu[d] = (1.0 / (1 + d)) * s + I * 0.05; /* degree 2: both rules exact */
  }
  return EM_OK;
}

/* Random tet (positive or negative orientation), its straight geometry. */
static void random_tet(unsigned long long *seed, em_tet_geom *g) {
  em_mesh m;
  memset(&m, 0, sizeof m);
  double xyz[12];
  int32_t tet[4] = {0, 1, 2, 3};
  static const double base[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) xyz[3 * a + d] = base[a][d] + 0.3 * (em_test_rand(seed) - 0.5);
  if (em_test_rand(seed) < 0.5) /* negative orientation */
    for (int d = 0; d < 3; d++) {
      double s = xyz[3 + d];
      xyz[3 + d] = xyz[6 + d];
      xyz[6 + d] = s;
    }
  m.xyz = xyz;
  m.tet = tet;
  em_tet_geom_make(&m, 0, g);
}

static double max_diff(int n, const em_cplx *A, const em_cplx *B, double *scale) {
  double d = 0, s = 0;
  for (int i = 0; i < n * n; i++) {
    d = fmax(d, cabs(A[i] - B[i]));
    s = fmax(s, cabs(B[i]));
  }
  *scale = s;
  return d / s;
}

static void straight_midpoints(void) {
  unsigned long long seed = 12345;
  static em_cplx S0[EM_NB_MAX * EM_NB_MAX], T0[EM_NB_MAX * EM_NB_MAX], S1[EM_NB_MAX * EM_NB_MAX],
      T1[EM_NB_MAX * EM_NB_MAX], Ap[EM_NB_MAX * (EM_NB_MAX + 1) / 2];
  for (int rep = 0; rep < 4; rep++) {
    em_tet_geom g, c;
    random_tet(&seed, &g);
    c = g;
    c.curved = 1; /* forced: the quadratic path with straight mid nodes */
    for (int k = 0; k < 6; k++)
      for (int d = 0; d < 3; d++)
        c.xm[k][d] = 0.5 * (g.x[EM_TET_EDGE[k][0]][d] + g.x[EM_TET_EDGE[k][1]][d]);
    double lam[4] = {0.1, 0.2, 0.3, 0.4}, x0[3], x1[3], g0[4][3], g1[4][3], v0, v1;
    EXPECT(!em_tet_geom_at(&g, lam, x0, g0, &v0) && !em_tet_geom_at(&c, lam, x1, g1, &v1),
           "map fails on a straight tet");
    double e = fabs(v1 - v0) / v0;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) e = fmax(e, fabs(g1[a][d] - g0[a][d]) / 10 + fabs(x1[d] - x0[d]));
    EXPECT(e < 1e-13, "straight mid nodes: map differs from the affine one by %.2e", e);
    for (int p = 1; p <= 3; p++)
      for (int vary = 0; vary <= 1; vary++) {
        int n = em_basis_count(p);
        REQUIRE_OK(em_element_matrices(p, &g, mat_fn, &vary, 0, vary, S0, T0));
        REQUIRE_OK(em_element_matrices(p, &c, mat_fn, &vary, 0, vary, S1, T1));
        double sc, ds = max_diff(n, S1, S0, &sc), dt = max_diff(n, T1, T0, &sc);
        EXPECT(ds < 1e-12 && dt < 1e-12,
               "p %d vary %d: curved path on a straight tet differs: S %.2e, T %.2e", p, vary, ds,
               dt);
        if (vary) continue;
        /* the assembly's fast path (reference tensors) against the curved one */
        em_element_ref *ref = NULL;
        REQUIRE_OK(em_element_ref_create(p, &ref));
        em_material mat;
        double xc[3] = {0, 0, 0};
        mat_fn(&vary, 0, xc, &mat);
        double k0 = 1.7;
        em_element_ref_apply(ref, &g, &mat, k0, Ap);
        double d = 0, s = 0;
        int64_t q = 0;
        for (int i = 0; i < n; i++)
          for (int j = i; j < n; j++, q++) {
            em_cplx a = S1[i * n + j] - k0 * k0 * T1[i * n + j];
            d = fmax(d, cabs(a - Ap[q]));
            s = fmax(s, cabs(Ap[q]));
          }
        EXPECT(d / s < 1e-12, "p %d: curved path vs reference tensors %.2e", p, d / s);
        em_element_ref_destroy(&ref);
      }
  }
}

/* A bent tet: mid nodes moved off their edges by up to 8 % of a unit edge. */
static void bend(unsigned long long *seed, em_tet_geom *g) {
  g->curved = 1;
  for (int k = 0; k < 6; k++)
    for (int d = 0; d < 3; d++)
      g->xm[k][d] = 0.5 * (g->x[EM_TET_EDGE[k][0]][d] + g->x[EM_TET_EDGE[k][1]][d]) +
                    0.16 * (em_test_rand(seed) - 0.5);
}

static void curved_tet(void) {
  unsigned long long seed = 777;
  em_tet_geom g;
  random_tet(&seed, &g);
  bend(&seed, &g);
  /* J^-T against central differences of x(lam) along the reference axes */
  double lam[4] = {0.15, 0.25, 0.35, 0.25}, x[3], grad[4][3], dv, h = 1e-5, err = 0;
  EXPECT(!em_tet_geom_at(&g, lam, x, grad, &dv), "bent tet folds");
  double J[3][3]; /* J[d][k] = dx_d / dxi_k, xi_k = lam_k, lam_0 = 1 - sum */
  for (int k = 0; k < 3; k++) {
    double lp[4], lm[4], xp[3], xm[3], gg[4][3], vv;
    memcpy(lp, lam, sizeof lp);
    memcpy(lm, lam, sizeof lm);
    lp[k + 1] += h, lp[0] -= h, lm[k + 1] -= h, lm[0] += h;
    em_tet_geom_at(&g, lp, xp, gg, &vv);
    em_tet_geom_at(&g, lm, xm, gg, &vv);
    for (int d = 0; d < 3; d++) J[d][k] = (xp[d] - xm[d]) / (2 * h);
  }
  /* grad lam_k . column j of J = delta_kj (k, j = 1..3) */
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int d = 0; d < 3; d++) s += grad[k + 1][d] * J[d][j];
      err = fmax(err, fabs(s - (k == j)));
    }
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
               J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  err = fmax(err, fabs(fabs(det) / 6 - dv) / dv);
  EXPECT(err < 1e-7, "curved map: gradients / volume element vs finite differences %.2e", err);
}

/* Isotropic material for the rotation test. */
static em_err iso_fn(void *ctx, int32_t t, const double x[3], em_material *m) {
  (void)ctx, (void)t, (void)x;
  for (int d = 0; d < 3; d++) m->eps[d] = 3.0 - 0.2 * I, m->nu[d] = 0.5;
  return EM_OK;
}

static void rotation(void) {
  unsigned long long seed = 4242;
  static em_cplx S0[EM_NB_MAX * EM_NB_MAX], T0[EM_NB_MAX * EM_NB_MAX], S1[EM_NB_MAX * EM_NB_MAX],
      T1[EM_NB_MAX * EM_NB_MAX];
  em_tet_geom g;
  random_tet(&seed, &g);
  bend(&seed, &g);
  double th = 0.7, u[3] = {0.36, 0.48, 0.8}, R[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double cr = 0; /* [u]_x */
      if (i == 0 && j == 1) cr = -u[2];
      if (i == 0 && j == 2) cr = u[1];
      if (i == 1 && j == 0) cr = u[2];
      if (i == 1 && j == 2) cr = -u[0];
      if (i == 2 && j == 0) cr = -u[1];
      if (i == 2 && j == 1) cr = u[0];
      R[i][j] = (i == j) * cos(th) + (1 - cos(th)) * u[i] * u[j] + sin(th) * cr;
    }
  em_mesh m;
  memset(&m, 0, sizeof m);
  double xyz[12];
  int32_t tet[4] = {0, 1, 2, 3};
  double xm[6][3];
  for (int a = 0; a < 10; a++) {
    const double *src = a < 4 ? g.x[a] : g.xm[a - 4];
    double *dst = a < 4 ? xyz + 3 * a : xm[a - 4];
    for (int i = 0; i < 3; i++) {
      dst[i] = 0.3 * i;
      for (int j = 0; j < 3; j++) dst[i] += R[i][j] * src[j];
    }
  }
  m.xyz = xyz;
  m.tet = tet;
  em_tet_geom r;
  em_tet_geom_make(&m, 0, &r);
  r.curved = 1;
  memcpy(r.xm, xm, sizeof xm);
  for (int p = 1; p <= 3; p++) {
    int n = em_basis_count(p);
    REQUIRE_OK(em_element_matrices(p, &g, iso_fn, NULL, 0, 0, S0, T0));
    REQUIRE_OK(em_element_matrices(p, &r, iso_fn, NULL, 0, 0, S1, T1));
    double sc, ds = max_diff(n, S1, S0, &sc), dt = max_diff(n, T1, T0, &sc);
    EXPECT(ds < 1e-12 && dt < 1e-12, "p %d: bent tet not invariant under a rigid motion: %.2e %.2e",
           p, ds, dt);
    /* and the bend matters: the straight tet's matrices differ */
    em_tet_geom s = g;
    s.curved = 0;
    REQUIRE_OK(em_element_matrices(p, &s, iso_fn, NULL, 0, 0, S1, T1));
    dt = max_diff(n, T1, T0, &sc);
    EXPECT(dt > 1e-3, "p %d: the bend changes T by only %.2e", p, dt);
  }
}

/* Volume of the ball by the mapped quadrature (curved) and the vertices
 * (straight) on a Gmsh mesh of size h. */
static void ball_volume(double h, double *v_curved, double *v_straight, int *n_tet,
                        double *a_curved, double *a_straight) {
  em_param_override over = {"Geometry/h", 0, h, NULL};
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(data_path("case_ball.geo"), 1, &over, 0, NULL, NULL, &c));
  em_mesh_opts o = {.unit = 1, .reorder = 1, .geometry_order = 2};
  em_mesh *m = NULL;
  REQUIRE_OK(em_case_mesh(c, &o, NULL, &m));
  em_case_close(&c);
  em_quad q;
  REQUIRE_OK(em_quad_tet(6, &q));
  double vc = 0, vs = 0;
  for (int32_t t = 0; t < m->n_tet; t++) {
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    vs += g.vol;
    for (int k = 0; k < q.n; k++) {
      double x[3], grad[4][3], dv;
      EXPECT(!em_tet_geom_at(&g, q.lam + 4 * k, x, grad, &dv), "ball tet %d folds", t);
      vc += q.w[k] * dv;
    }
  }
  *v_curved = vc, *v_straight = vs, *n_tet = m->n_tet;
  /* the sphere's area by em_tet_face_at on the boundary faces (curved: the
     faces' own area element; straight: the flat triangles) */
  em_quad qt;
  REQUIRE_OK(em_quad_tri(8, &qt));
  double ac = 0, as = 0;
  for (int32_t f = 0; f < m->n_face; f++) {
    if (m->face_tet[2 * f + 1] >= 0) continue;
    int32_t t = m->face_tet[2 * f];
    em_tet_geom g;
    em_tet_geom_make(m, t, &g);
    int lf = em_tet_local_face(m, t, f);
    for (int k = 0; k < qt.n; k++) {
      double lam[4], x[3], grad[4][3], da, n[3];
      em_tet_face_at(&g, lf, qt.lam + 3 * k, lam, x, grad, &da, n, NULL);
      ac += qt.w[k] * da;
      /* the normal points out of the ball: along x, up to the curvature */
      double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
      EXPECT((x[0] * n[0] + x[1] * n[1] + x[2] * n[2]) / r > 0.9, "face %d: normal not outward", f);
    }
    g.curved = 0; /* the flat triangle */
    double lam[4], x[3], grad[4][3], da, n[3], mu[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    em_tet_face_at(&g, lf, mu, lam, x, grad, &da, n, NULL);
    as += da;
  }
  *a_curved = ac, *a_straight = as;
  em_mesh_destroy(&m);
}

static void ball(void) {
  const double H[3] = {0.5, 0.25, 0.125}, V = 4 * M_PI / 3, A = 4 * M_PI;
  double ec[3], es[3], fc[3], fs[3];
  for (int i = 0; i < 3; i++) {
    double vc, vs, ac, as;
    int nt;
    ball_volume(H[i], &vc, &vs, &nt, &ac, &as);
    ec[i] = fabs(vc - V) / V, es[i] = fabs(vs - V) / V;
    fc[i] = fabs(ac - A) / A, fs[i] = fabs(as - A) / A;
    printf(
        "ball h %.3f: %d tets, volume error curved %.3e, straight %.3e; area error curved "
        "%.3e, straight %.3e\n",
        H[i], nt, ec[i], es[i], fc[i], fs[i]);
  }
  double ra = log(fc[1] / fc[2]) / log(2), rf = log(fs[1] / fs[2]) / log(2);
  printf("area rates on the last halving (em_tet_face_at): curved %.2f, straight %.2f\n", ra, rf);
  EXPECT(ra >= 3.5, "curved area converges at rate %.2f < 3.5", ra);
  EXPECT(rf > 1.7 && rf < 2.5, "straight area converges at rate %.2f, not ~2", rf);
  double rc = log(ec[1] / ec[2]) / log(2), rs = log(es[1] / es[2]) / log(2);
  printf("rates on the last halving: curved %.2f, straight %.2f\n", rc, rs);
  EXPECT(rc >= 3.5, "curved volume converges at rate %.2f < 3.5", rc);
  EXPECT(rs > 1.7 && rs < 2.5, "straight volume converges at rate %.2f, not ~2", rs);
  EXPECT(ec[2] < 2e-5, "curved volume error %.2e at h 0.125", ec[2]);
}

static void tet10_msh(void) {
  em_case *c = NULL;
  REQUIRE_OK(em_case_open(data_path("case_tet10.msh"), 0, NULL, 0, NULL, NULL, &c));
  em_mesh_opts o = {.unit = 1, .reorder = 1, .geometry_order = 2};
  em_mesh *m = NULL;
  EXPECT_OK(em_case_mesh(c, &o, NULL, &m));
  em_case_close(&c);
  if (!m) return;
  EXPECT(m->n_tet == 1 && m->edge_mid, "tet10 .msh: %d tets, mid nodes %p", m->n_tet,
         (void *)m->edge_mid);
  em_tet_geom g;
  em_tet_geom_make(m, 0, &g);
  EXPECT(!g.curved, "straight 10-node tet flagged curved");
  /* a mid node dragged past a quarter of its edge: refused, naming the tet */
  double xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mid[18];
  int32_t tv[4] = {0, 1, 2, 3};
  static const int GE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
  for (int k = 0; k < 6; k++)
    for (int d = 0; d < 3; d++)
      mid[3 * k + d] = 0.5 * (xyz[3 * GE[k][0] + d] + xyz[3 * GE[k][1] + d]);
  EXPECT_OK(em_mesh_attach_midnodes(m, xyz, tv, mid));
  mid[1] -= 0.3; /* node 4 (edge 0-1) pulled 0.3 of its unit edge off */
  EXPECT_FAIL(em_mesh_attach_midnodes(m, xyz, tv, mid), EM_ERR_INPUT, "tet 0", "bends");
  em_mesh_destroy(&m);
}

/* S and T of a curved tet by a conical Gauss product rule with n^3 points
 * (xi = (u, (1-u) v, (1-u)(1-v) w), weight 6 (1-u)^2 (1-v)): a reference
 * for the rational integrands that em_element_matrices integrates with
 * the degree-8 rule. */
static void product_rule(int p, const em_tet_geom *g, int n, em_cplx *S, em_cplx *T) {
  double s[32], w[32];
  em_quad_line(n, s, w);
  int nb = em_basis_count(p);
  memset(S, 0, (size_t)nb * nb * sizeof *S);
  memset(T, 0, (size_t)nb * nb * sizeof *T);
  em_material mat;
  double x0[3] = {0, 0, 0};
  iso_fn(NULL, 0, x0, &mat);
  double v[EM_NB_MAX][3], c[EM_NB_MAX][3];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        double u = s[i], vv = s[j], ww = s[k];
        double xi[3] = {u, (1 - u) * vv, (1 - u) * (1 - vv) * ww};
        double lam[4] = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
        double wq = 6 * w[i] * w[j] * w[k] * (1 - u) * (1 - u) * (1 - vv), x[3], grad[4][3], dv;
        em_tet_geom_at(g, lam, x, grad, &dv);
        em_basis_eval(p, lam, (const double(*)[3])grad, v, c);
        for (int a = 0; a < nb; a++)
          for (int b = 0; b < nb; b++) {
            double tv = 0, sv = 0;
            for (int d = 0; d < 3; d++) tv += v[a][d] * v[b][d], sv += c[a][d] * c[b][d];
            T[a * nb + b] += wq * dv * mat.eps[0] * tv;
            S[a * nb + b] += wq * dv * mat.nu[0] * sv;
          }
      }
}

/* The curved path's quadrature (degree 8) on a bent tet (mid nodes up to
 * 8 % of an edge off) against the product rule with 16^3 points (the same
 * to the digits printed with 24^3): within 1e-6 relative (observed 1.3e-7
 * at most; the degree 2p+2 rules gave 1.6e-4 at p = 1). */
static void quadrature(void) {
  unsigned long long seed = 99;
  static em_cplx S0[EM_NB_MAX * EM_NB_MAX], T0[EM_NB_MAX * EM_NB_MAX], S1[EM_NB_MAX * EM_NB_MAX],
      T1[EM_NB_MAX * EM_NB_MAX];
  em_tet_geom g;
  random_tet(&seed, &g);
  bend(&seed, &g);
  for (int p = 1; p <= 3; p++) {
    int n = em_basis_count(p);
    REQUIRE_OK(em_element_matrices(p, &g, iso_fn, NULL, 0, 0, S0, T0));
    product_rule(p, &g, 16, S1, T1);
    double sc, ds = max_diff(n, S0, S1, &sc), dt = max_diff(n, T0, T1, &sc);
    printf("bent tet, p %d: curved-path quadrature vs 16^3 product rule: S %.2e, T %.2e\n", p, ds,
           dt);
    EXPECT(ds < 1e-6 && dt < 1e-6, "p %d: quadrature error S %.2e, T %.2e", p, ds, dt);
  }
}

/* A box mesh with one boundary edge of xmin bent outwards: a Robin term on
 * the curved xmin assembles (its faces on their own map), and on a curved
 * face whose mid node sits at the straight midpoint it equals the straight
 * assembly to rounding. */
static void robin_curved(void) {
  em_mesh *m = NULL;
  REQUIRE_OK(em_mesh_box(2, 2, 2, 1, 1, 1, 0, 1, &m));
  REQUIRE_OK(em_calloc(&m->edge_mid, 3 * (size_t)m->n_edge, sizeof *m->edge_mid, "mid nodes"));
  for (int32_t e = 0; e < m->n_edge; e++) {
    const double *a = m->xyz + 3 * (size_t)m->edge[2 * e],
                 *b = m->xyz + 3 * (size_t)m->edge[2 * e + 1];
    for (int d = 0; d < 3; d++) m->edge_mid[3 * e + d] = 0.5 * (a[d] + b[d]);
  }
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, 2, NULL, &d));
  em_robin r = {.group = em_mesh_group_find(m, "xmin", 2), .gamma = I};
  em_problem prob = {.k0 = 1, .material = iso_fn, .n_robin = 1, .robin = &r, .n_rhs = 1};
  em_system *s0 = NULL, *s1 = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &s0));
  int bent = 0; /* now bend one edge of xmin outwards */
  for (int32_t e = 0; e < m->n_edge && !bent; e++) {
    const double *a = m->xyz + 3 * (size_t)m->edge[2 * e],
                 *b = m->xyz + 3 * (size_t)m->edge[2 * e + 1];
    if (a[0] == 0 && b[0] == 0) m->edge_mid[3 * e] = -0.05, bent = 1;
  }
  EXPECT_OK(em_assemble(m, d, &prob, NULL, &s1));
  double diff = 0;
  if (s0 && s1) {
    em_csr *A0 = NULL, *A1 = NULL;
    REQUIRE_OK(em_blockmat_to_csr(s0->A, &A0));
    REQUIRE_OK(em_blockmat_to_csr(s1->A, &A1));
    for (int64_t k = 0; k < A0->nnz && A0->nnz == A1->nnz; k++)
      diff = fmax(diff, cabs(A0->val[k] - A1->val[k]));
    em_csr_destroy(&A0);
    em_csr_destroy(&A1);
  }
  EXPECT(bent && diff > 1e-6, "the bent face changes the matrix (%g)", diff);
  em_system_destroy(&s0);
  em_system_destroy(&s1);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
}

int main(void) {
  quadrature();
  robin_curved();
  straight_midpoints();
  curved_tet();
  rotation();
  ball();
  tet10_msh();
  return TEST_RESULT();
}
