/* Far-field machinery without a solve:
 * - point currents put straight into an em_nf2ff: an electric dipole
 *   (F_theta = j k eta p sin(theta) / 4 pi), a magnetic one
 *   (F_phi = -j k m sin(theta) / 4 pi), the radiated power integral
 *   (eta k^2 p^2 / 12 pi to 1e-10), D = 1.5, the E-plane beamwidth 90 deg
 *   and no H-plane half-power point, the image of a vertical dipole over a
 *   PEC ground and of a horizontal one over a PMC plane (array factor
 *   2 cos(k h cos theta)), the realized gain and efficiency bookkeeping;
 * - the writers: farfield, cuts, antenna, RCS CSV and the VTK pattern read
 *   back (header, rows, values), and a path that cannot be written leaves
 *   nothing;
 * - the NF2FF surface of a small box mesh: the PML boundary (48 faces,
 *   outward normals, inside tets not PML), the same through a closed group,
 *   a group with a face missing (not closed), a lossy medium, grid steps
 *   that do not divide 180 / 360, and a zero field;
 * - the plane wave: direction, polarisation, curl by finite differences,
 *   bad arguments; em_port_power for matched and shorted ports;
 * - the port modes carry 1 W (the coax through its wave impedance eta). */
#include <string.h>
#include <unistd.h>

#include "em_post.h"
#include "em_test.h"
#include "ff_common.h"

static em_nf2ff point_source(double k, const double x[3], const em_cplx J[3], const em_cplx M[3],
                             double *xs, em_cplx *js, em_cplx *ms) {
  em_nf2ff nf;
  memset(&nf, 0, sizeof nf);
  nf.k0 = nf.k = k;
  nf.eta = EM_Z0;
  nf.n = 1;
  for (int d = 0; d < 3; d++) xs[d] = x[d], js[d] = J[d], ms[d] = M[d];
  nf.x = xs;
  nf.J = js;
  nf.M = ms;
  nf.radius = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) + 1e-3;
  return nf;
}

static void dipoles(void) {
  const double k = 2 * M_PI;
  double xs[3], o[3] = {0, 0, 0};
  em_cplx js[3], ms[3], Jz[3] = {0, 0, 1}, Z[3] = {0, 0, 0};
  em_nf2ff nf = point_source(k, o, Jz, Z, xs, js, ms);
  double worst = 0;
  for (int i = 0; i <= 12; i++) {
    double th = i * M_PI / 12, ph = 0.3 * i;
    em_cplx ft, fp, want = I * k * EM_Z0 * sin(th) / (4 * M_PI);
    em_nf2ff_far(&nf, th, ph, &ft, &fp);
    worst = fmax(worst, (cabs(ft - want) + cabs(fp)) / (k * EM_Z0 / (4 * M_PI)));
  }
  EXPECT(worst < 1e-12, "electric dipole far field off by %g", worst);
  double p = em_nf2ff_power(&nf), pr = EM_Z0 * k * k / (12 * M_PI);
  EXPECT(fabs(p / pr - 1) < 1e-10, "dipole power %.15g vs %.15g", p, pr);
  em_ff_grid g;
  REQUIRE_OK(em_ff_grid_eval(&nf, 5, 10, &g));
  EXPECT(g.n_theta == 37 && g.n_phi == 36, "grid %d x %d", g.n_theta, g.n_phi);
  em_antenna a;
  /* accepted 2 pr, mismatch 0.8, loss pr / 4, P through S = pr */
  nf.p_surface = pr;
  REQUIRE_OK(em_antenna_figures(&nf, &g, 2 * pr, 0.8, 0.25 * pr, &a));
  printf(
      "point dipole: P = %.12g W (ref %.12g), D = %.12g, theta_max %.6f, BW E %.6f H %g, "
      "G %.6g, realized %.6g, eff %.6g, balance %.6g\n",
      p, pr, a.directivity, a.theta_max, a.bw_e, a.bw_h, a.gain, a.realized_gain, a.efficiency,
      a.balance);
  EXPECT(fabs(a.directivity - 1.5) < 1e-9, "D = %.12g", a.directivity);
  EXPECT(fabs(a.theta_max - 90) < 1e-3, "theta_max %g", a.theta_max);
  EXPECT(fabs(a.bw_e - 90) < 1e-6, "E-plane beamwidth %.9g", a.bw_e);
  EXPECT(isnan(a.bw_h), "H-plane beamwidth %g", a.bw_h);
  /* e = P / (P + P_loss) = 0.8, G = e D = 1.2, realized 0.96, balance
   * (P + P_loss) / P_acc = 0.625 */
  EXPECT(fabs(a.efficiency - 0.8) < 1e-9, "efficiency %g", a.efficiency);
  EXPECT(fabs(a.gain - 1.2) < 1e-9 && fabs(a.realized_gain - 0.96) < 1e-9, "G %g, realized %g",
         a.gain, a.realized_gain);
  EXPECT(fabs(a.balance - 0.625) < 1e-9, "power balance %g", a.balance);
  EXPECT(fabs(a.front_to_back) < 1e-6, "front to back %g dB (a dipole is symmetric)",
         a.front_to_back);
  em_ff_grid_free(&g);

  /* magnetic dipole M = z: F_phi = j k / 4 pi L_theta = -j k sin(theta) / 4 pi */
  nf = point_source(k, o, Z, Jz, xs, js, ms);
  worst = 0;
  for (int i = 0; i <= 12; i++) {
    double th = i * M_PI / 12;
    em_cplx ft, fp, want = -I * k * sin(th) / (4 * M_PI);
    em_nf2ff_far(&nf, th, 1.0, &ft, &fp);
    worst = fmax(worst, (cabs(fp - want) + cabs(ft)) / (k / (4 * M_PI)));
  }
  EXPECT(worst < 1e-12, "magnetic dipole far field off by %g", worst);

  /* a vertical J at height h over a PEC ground (half space), a horizontal
   * J_x at h over a PMC plane z = 0: both 2 cos(k h cos theta) times the
   * free dipole */
  double h = 0.3, up[3] = {0, 0, h};
  em_cplx Jx[3] = {1, 0, 0};
  for (int kind = 0; kind < 2; kind++) {
    nf = point_source(k, up, kind ? Jx : Jz, Z, xs, js, ms);
    nf.mirror[2] = kind ? EM_MIRROR_PMC : EM_MIRROR_PEC;
    nf.half_space = !kind;
    nf.centre[2] = 0;
    worst = 0;
    for (int i = 0; i <= 8; i++) {
      double th = i * M_PI / 16, ph = 0.2 + 0.5 * i;
      em_cplx ft, fp, f0t, f0p;
      em_nf2ff_far(&nf, th, ph, &ft, &fp);
      double af = 2 * cos(k * h * cos(th));
      /* the free dipole at the origin */
      double x0[3];
      em_cplx j0[3], m0[3];
      em_nf2ff f0 = point_source(k, o, kind ? Jx : Jz, Z, x0, j0, m0);
      em_nf2ff_far(&f0, th, ph, &f0t, &f0p);
      worst = fmax(worst, (cabs(ft - af * f0t) + cabs(fp - af * f0p)) / (k * EM_Z0 / (4 * M_PI)));
    }
    EXPECT(worst < 1e-12, "%s image off by %g", kind ? "PMC" : "PEC ground", worst);
    if (!kind) {
      em_cplx ft, fp;
      em_nf2ff_far(&nf, 0.75 * M_PI, 0, &ft, &fp);
      EXPECT(ft == 0 && fp == 0, "no field below an infinite ground");
    }
  }
}

static int count_lines(const char *path, char *first, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  int k = 0;
  while (fgets(line, sizeof line, f)) {
    if (k == 0 && first) snprintf(first, n, "%s", line);
    k++;
  }
  fclose(f);
  return k;
}

static void writers(const char *dir) {
  const double k = 2 * M_PI;
  double xs[3], o[3] = {0, 0, 0};
  em_cplx js[3], ms[3], Jz[3] = {0, 0, 1}, Z[3] = {0, 0, 0};
  em_nf2ff nf = point_source(k, o, Jz, Z, xs, js, ms);
  em_ff_grid g;
  REQUIRE_OK(em_ff_grid_eval(&nf, 10, 15, &g));
  em_antenna a[2];
  REQUIRE_OK(em_antenna_figures(&nf, &g, 400, 0.9, 1, &a[0]));
  a[1] = a[0];
  double freq[2] = {1e9, 2e9};
  char path[1024], first[4096];
  snprintf(path, sizeof path, "%s/farfield_0.csv", dir);
  REQUIRE_OK(em_farfield_csv_write(path, 1e9, &g, &nf, &a[0]));
  EXPECT(count_lines(path, first, sizeof first) == 2 + 19 * 24, "farfield rows");
  /* the row theta = 90, phi = 0 holds D = 1.5 = 1.7609 dBi */
  FILE *f = fopen(path, "r");
  char line[4096];
  double dmax = -1e9;
  while (f && fgets(line, sizeof line, f)) {
    double v[11];
    if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1, v + 2, v + 3, v + 4,
               v + 5, v + 6, v + 7, v + 8, v + 9, v + 10) == 11 &&
        v[0] == 90 && v[1] == 0)
      dmax = v[6];
  }
  if (f) fclose(f);
  EXPECT(fabs(dmax - 10 * log10(1.5)) < 1e-9, "directivity at 90 deg: %g dBi", dmax);
  snprintf(path, sizeof path, "%s/pattern_0.csv", dir);
  REQUIRE_OK(em_pattern_cuts_write(path, 1e9, 1, &nf, &a[0]));
  EXPECT(count_lines(path, NULL, 0) == 2 + 361, "cut rows");
  snprintf(path, sizeof path, "%s/antenna.csv", dir);
  REQUIRE_OK(em_antenna_csv_write(path, 2, freq, a));
  EXPECT(count_lines(path, first, sizeof first) == 3, "antenna rows");
  EXPECT(!strncmp(first, "f_Hz,P_acc_W,", 13), "antenna header %s", first);
  snprintf(path, sizeof path, "%s/rcs_0.csv", dir);
  REQUIRE_OK(em_rcs_csv_write(path, 1e9, &g, 1));
  EXPECT(count_lines(path, NULL, 0) == 2 + 19 * 24, "rcs rows");
  snprintf(path, sizeof path, "%s/pattern_0.vtk", dir);
  double *v = calloc((size_t)g.n_theta * g.n_phi, sizeof *v);
  for (int i = 0; i < g.n_theta * g.n_phi; i++) {
    em_cplx *F = g.f + 2 * i;
    v[i] = 10 * log10(creal(F[0] * conj(F[0])) + creal(F[1] * conj(F[1])));
  }
  REQUIRE_OK(em_ff_vtk_write(path, &g, v, "directivity_dBi", 30, o, 1, "unit test"));
  int nl = count_lines(path, first, sizeof first);
  /* header 5, points 19*24, POLYGONS + 18*24 quads, POINT_DATA 3 + values */
  EXPECT(nl == 5 + 19 * 24 + 1 + 18 * 24 + 3 + 19 * 24, "VTK lines %d", nl);
  EXPECT(!strncmp(first, "# vtk DataFile Version 3.0", 26), "VTK header %s", first);
  /* a directory that does not exist: an error and no file */
  snprintf(path, sizeof path, "%s/missing/rcs_0.csv", dir);
  EXPECT_ERR(em_rcs_csv_write(path, 1e9, &g, 1), EM_ERR_IO);
  EXPECT(access(path, F_OK) != 0, "a failed write left %s", path);
  EXPECT_ERR(em_ff_vtk_write(path, &g, v, "x", 0, o, 1, NULL), EM_ERR_ARG);
  free(v);
  em_ff_grid_free(&g);
}

static void surfaces(void) {
  double node[5] = {-1, -0.5, 0, 0.5, 1}, *nodes[3] = {node, node, node}, w[3] = {0.5, 0.5, 0.5};
  int n[3] = {5, 5, 5};
  em_mesh *m = NULL;
  REQUIRE_OK(ff_box_mesh(n, nodes, w, NULL, w, &m));
  em_medium med[3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 1}};
  em_nf2ff_opts o = {.group = -1, .medium = med, .k0 = 1};
  int32_t nf = 0, *face = NULL, *tin = NULL;
  double *nrm = NULL;
  REQUIRE_OK(em_nf2ff_surface(m, &o, &nf, &face, &tin, &nrm));
  EXPECT(nf == 48, "PML boundary: %d faces", nf);
  int bad = 0;
  for (int32_t i = 0; i < nf; i++) {
    double c[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) c[d] += m->xyz[3 * (size_t)m->face[3 * face[i] + a] + d] / 3;
    bad += c[0] * nrm[3 * i] + c[1] * nrm[3 * i + 1] + c[2] * nrm[3 * i + 2] <= 0;
    bad += med[m->tet_group[tin[i]]].is_pml;
  }
  EXPECT(bad == 0, "%d faces with an inward normal or a PML inside", bad);
  int32_t ng = 0, *fg = NULL, *tg = NULL;
  double *ngm = NULL;
  o.group = em_mesh_group_find(m, "nf2ff", 2);
  REQUIRE_OK(em_nf2ff_surface(m, &o, &ng, &fg, &tg, &ngm));
  EXPECT(ng == nf, "group: %d faces", ng);
  for (int32_t i = 0; i < ng && i < nf; i++)
    EXPECT(fg[i] == face[i] && tg[i] == tin[i], "group face %d differs", i);
  em_free(&fg);
  em_free(&tg);
  em_free(&ngm);
  /* drop one triangle of the group: not closed */
  em_mesh *m2 = NULL;
  REQUIRE_OK(em_mesh_from_tets(m->n_vert, m->xyz, m->n_tet, m->tet, m->tet_group, m->n_tri - 1,
                               m->tri + 3, m->tri_group + 1, m->n_group, m->group, 0, &m2));
  EXPECT_ERR(em_nf2ff_surface(m2, &o, &ng, &fg, &tg, &ngm), EM_ERR_INPUT);
  em_mesh_destroy(&m2);
  /* the surface in a lossy medium */
  med[0].eps_r = 1 - 0.1 * I;
  o.group = -1;
  EXPECT_ERR(em_nf2ff_surface(m, &o, &ng, &fg, &tg, &ngm), EM_ERR_INPUT);
  med[0].eps_r = 1;
  /* a zero field: steps, no power */
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, 2, NULL, &d));
  em_cplx *x = calloc((size_t)d->n_dof, sizeof *x);
  em_nf2ff *ff = NULL;
  REQUIRE_OK(em_nf2ff_create(m, d, x, NULL, &o, &ff));
  EXPECT(ff->p_surface == 0 && ff->n_face == 48, "zero field: P %g, %d faces", ff->p_surface,
         ff->n_face);
  em_ff_grid g;
  EXPECT_ERR(em_ff_grid_eval(ff, 7, 5, &g), EM_ERR_INPUT);
  EXPECT_ERR(em_ff_grid_eval(ff, 5, 0, &g), EM_ERR_INPUT);
  EXPECT_ERR(em_ff_grid_eval(ff, 120, 5, &g), EM_ERR_INPUT);
  REQUIRE_OK(em_ff_grid_eval(ff, 45, 90, &g));
  em_antenna a;
  EXPECT_ERR(em_antenna_figures(ff, &g, 1, 1, 0, &a), EM_ERR_NUMERIC);
  em_ff_grid_free(&g);
  em_nf2ff_destroy(&ff);
  /* a mirror plane through the surface */
  o.mirror[0] = EM_MIRROR_PEC;
  o.mirror_at[0] = 0.25;
  EXPECT_ERR(em_nf2ff_create(m, d, x, NULL, &o, &ff), EM_ERR_INPUT);
  o.mirror[0] = EM_MIRROR_NONE;
  o.half_space = 1;
  EXPECT_ERR(em_nf2ff_create(m, d, x, NULL, &o, &ff), EM_ERR_INPUT);
  free(x);
  em_dofmap_destroy(&d);
  em_free(&face);
  em_free(&tin);
  em_free(&nrm);
  em_mesh_destroy(&m);
}

static void plane_wave(void) {
  em_planewave pw;
  /* theta = 90, phi = 90 deg: along +y; psi = 0: E along theta_hat = -z */
  REQUIRE_OK(em_planewave_make(2.0, M_PI / 2, M_PI / 2, 0, 3, 1, 1, &pw));
  EXPECT(fabs(pw.khat[1] - 1) < 1e-15 && fabs(creal(pw.e0[2]) + 3) < 1e-15, "direction / E");
  /* psi = 90: E along phi_hat = -x; background eps 4: k = 2 k0 */
  REQUIRE_OK(em_planewave_make(2.0, M_PI / 2, M_PI / 2, M_PI / 2, 1, 4, 1, &pw));
  EXPECT(fabs(creal(pw.e0[0]) + 1) < 1e-15 && fabs(pw.k - 4) < 1e-15, "psi, background");
  REQUIRE_OK(em_planewave_make(2.0, 0.7, 2.1, 0.4, 1, 2, 1.5, &pw));
  double x[3] = {0.3, -0.2, 0.5}, hs = 1e-5, worst = 0;
  em_cplx E[3], C[3], Ep[3], Em[3], dE[3][3];
  em_planewave_field(&pw, x, E, C);
  for (int d = 0; d < 3; d++) {
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
    xp[d] += hs;
    xm[d] -= hs;
    em_planewave_field(&pw, xp, Ep, NULL);
    em_planewave_field(&pw, xm, Em, NULL);
    for (int c = 0; c < 3; c++) dE[c][d] = (Ep[c] - Em[c]) / (2 * hs); /* dE_c / dx_d */
  }
  em_cplx cf[3] = {dE[2][1] - dE[1][2], dE[0][2] - dE[2][0], dE[1][0] - dE[0][1]};
  for (int c = 0; c < 3; c++) worst = fmax(worst, cabs(cf[c] - C[c]));
  EXPECT(worst < 1e-8, "curl E_inc off by %g", worst);
  em_cplx kd = pw.khat[0] * pw.e0[0] + pw.khat[1] * pw.e0[1] + pw.khat[2] * pw.e0[2];
  EXPECT(cabs(kd) < 1e-15, "k . E0 = %g", cabs(kd));
  EXPECT_ERR(em_planewave_make(0, 0, 0, 0, 1, 1, 1, &pw), EM_ERR_INPUT);
  EXPECT_ERR(em_planewave_make(1, NAN, 0, 0, 1, 1, 1, &pw), EM_ERR_INPUT);
  EXPECT_ERR(em_planewave_make(1, 0, 0, 0, 0, 1, 1, &pw), EM_ERR_INPUT);
  EXPECT_ERR(em_planewave_make(1, 0, 0, 0, 1, 1 - 0.1 * I, 1, &pw), EM_ERR_INPUT);
}

static void port_power(void) {
  em_port p;
  memset(&p, 0, sizeof p);
  double pi, pa;
  p.type = EM_PORT_LUMPED;
  p.z_mode = 50;
  em_port_power(&p, 50, &pi, &pa); /* matched: Z = V / 1 A = R, a = sqrt R */
  EXPECT(fabs(pi - 25) < 1e-12 && fabs(pa - 25) < 1e-12, "lumped matched %g %g", pi, pa);
  em_port_power(&p, 10 * I, &pi, &pa); /* reactive: nothing accepted, |S| = 1 */
  EXPECT(fabs(pi - 2600.0 / 400) < 1e-12 && pa == 0, "lumped reactive %g %g", pi, pa);
  em_port_power(&p, 0, &pi, &pa); /* short */
  EXPECT(pa == 0, "lumped short %g", pa);
  p.type = EM_PORT_COAX;
  em_port_power(&p, 1, &pi, &pa);
  EXPECT(pi == 1 && pa == 1, "wave port matched %g %g", pi, pa);
  em_port_power(&p, 0.5 + 0.5 * I, &pi, &pa); /* S11 = -0.5 + 0.5j: |S|^2 = 0.5 */
  EXPECT(fabs(pa - 0.5) < 1e-15, "wave port %g", pa);
}

/* The port modes carry 1 W: 1/2 oint |e|^2 / Z_w over the port plane,
 * Z_w = eta for the coax TEM mode (not its line impedance), Z_TE for TE10,
 * integrated by the midpoint rule on a fine polar / Cartesian grid. */
static void port_modes(void) {
  em_port p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "port1");
  p.normal[2] = 1;
  p.u[0] = 1;
  p.v[1] = 1;
  p.eps_r = p.mu_r = 1;
  p.type = EM_PORT_COAX;
  p.a = 0.65e-3;
  p.b = 1.5e-3;
  REQUIRE_OK(em_port_set_frequency(&p, 2 * M_PI * 6e9 / EM_C0));
  double sum = 0;
  int nr = 4000, nphi = 64;
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nphi; j++) {
      double r = p.a + (p.b - p.a) * (i + 0.5) / nr, ph = 2 * M_PI * j / nphi, e[3];
      double x[3] = {r * cos(ph), r * sin(ph), 0};
      em_port_mode(&p, x, e);
      double dA = r * (p.b - p.a) / nr * 2 * M_PI / nphi;
      sum += 0.5 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / EM_Z0 * dA;
    }
  printf("coax mode power %.8f W (line impedance %.4f ohm)\n", sum, creal(p.z_mode));
  EXPECT(fabs(sum - 1) < 1e-6, "coax mode carries %.8f W", sum);
  p.type = EM_PORT_WAVEGUIDE;
  p.a = 22.86e-3;
  p.b = 10.16e-3;
  REQUIRE_OK(em_port_set_frequency(&p, 2 * M_PI * 10e9 / EM_C0));
  sum = 0;
  int nu = 2000;
  for (int i = 0; i < nu; i++) {
    double x[3] = {-p.a / 2 + p.a * (i + 0.5) / nu, 0, 0}, e[3];
    em_port_mode(&p, x, e);
    sum += 0.5 * creal(1 / p.z_mode) * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * p.a / nu * p.b;
  }
  printf("TE10 mode power %.8f W (Z_TE %.4f ohm)\n", sum, creal(p.z_mode));
  EXPECT(fabs(sum - 1) < 1e-6, "TE10 mode carries %.8f W", sum);
}

int main(void) {
  char dir[] = "/tmp/em_ff_unit_XXXXXX";
  REQUIRE_OK(mkdtemp(dir) ? EM_OK : EM_ERR_IO);
  dipoles();
  writers(dir);
  surfaces();
  plane_wave();
  port_power();
  port_modes();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return TEST_RESULT();
}
