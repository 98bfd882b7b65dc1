/* A small current element in free space, radiating into a PML box
 * (docs/validation.md R7).  A uniform current density J0 z_hat fills a
 * cube of side s around the origin (moment p = J0 s^3 = 1 A m); its far
 * field is the Hertzian dipole's times the cube's form factor,
 *   F_theta = j k eta p sin(theta) S / (4 pi),
 *   S = sinc(k x s/2) sinc(k y s/2) sinc(k z s/2) at r_hat = (x, y, z),
 * so P = eta (k p)^2 / (12 pi) and D = 1.5 up to S (for s = lambda/4 S
 * lowers P by 19% but keeps D = 1.5007: the cube's S is isotropic to
 * second order).  The references are integrated here by Simpson's rule on
 * a fine grid.  Checked:
 *   - surface-Poynting and far-field powers within 0.5% of the reference and
 *     of each other (the acceptance asks 1%; observed 0.1 - 0.2%);
 *   - directivity within 0.5% of 1.5 and of the reference, maximum at
 *     theta = 90 deg; E-plane beamwidth 90 deg (the reference's own, by
 *     bisection), no half-power point in the H-plane (omnidirectional);
 *   - the complex F_theta at theta = 90 deg (phase: exp(+j w t) and the
 *     signs of J = n x H, M = -n x E);
 *   - a closed surface group at 0.375 lambda instead of the PML boundary
 *     gives the same far field and power;
 *   - mirror planes: z = 0 is a symmetry plane with E_t = 0, so the upper
 *     half of the surface over an infinite ground must give the same far
 *     field above it, half the power, and D = 3 (4.77 dBi, a monopole on
 *     an infinite ground); one eighth of the surface with the three
 *     symmetry planes (x, y: PMC, z: PEC) the whole far field and power.
 *   - the dissipated power of a lossless run is 0, and the surface power
 *     equals the power the source delivers, -1/2 Re int E . J*. */
#include <string.h>

#include "em_post.h"
#include "em_test.h"
#include "ff_common.h"

#define LAMBDA 1.0

typedef struct src_ctx {
  const em_mesh *m;
  int group;
  double k0, j0;
} src_ctx;

/* f = -j k0 Z0 J in the source cube */
static em_err current(void *ctx, int32_t t, const double x[3], em_cplx f[3], em_cplx h[3]) {
  const src_ctx *s = ctx;
  (void)x;
  (void)h;
  if (s->m->tet_group[t] == s->group) f[2] = -I * s->k0 * EM_Z0 * s->j0;
  return EM_OK;
}

static double sinc(double u) {
  return fabs(u) < 1e-12 ? 1 : sin(u) / u;
}

/* U of the reference (W/sr) */
static double u_ref(double k, double s, double theta, double phi) {
  double r[3] = {sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)};
  double S = sinc(k * r[0] * s / 2) * sinc(k * r[1] * s / 2) * sinc(k * r[2] * s / 2);
  double st = sin(theta);
  return k * k * EM_Z0 * st * st * S * S / (32 * M_PI * M_PI);
}

/* int U dOmega by composite Simpson (n even) in theta and phi */
static double p_ref(double k, double s, double theta_max) {
  int n = 400;
  double ht = theta_max / n, hp = 2 * M_PI / n, p = 0;
  for (int i = 0; i <= n; i++) {
    double wt = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    for (int j = 0; j < n; j++) { /* periodic in phi: plain sum is Simpson and better */
      double th = i * ht, ph = j * hp;
      p += wt * u_ref(k, s, th, ph) * sin(th) * hp;
    }
  }
  return p * ht / 3;
}

/* the reference's half-power angle from theta = 90 deg in the xz plane */
static double bw_ref(double k, double s) {
  double u0 = u_ref(k, s, M_PI / 2, 0), lo = M_PI / 2, hi = M_PI;
  for (int it = 0; it < 60; it++) {
    double mid = 0.5 * (lo + hi);
    if (u_ref(k, s, mid, 0) > 0.5 * u0)
      lo = mid;
    else
      hi = mid;
  }
  return 2 * (lo - M_PI / 2) * 180 / M_PI;
}

int main(void) {
  const double k0 = 2 * M_PI / LAMBDA;
  const int p = 3;
  const double h = LAMBDA / 6, w = LAMBDA / 2, side = 2 * (LAMBDA / 12);
  /* a node at the origin; the source is the 2 x 2 x 2 cells of size s/2
   * around it, then cells up to lambda/6, 2 PML cells of lambda/8 */
  ff_axis ax = {
      .h0 = side / 2, .centre = 0, .growth = 2, .h_max = h, .w = w, .t = LAMBDA / 4, .n_pml = 2};
  double node[64];
  int nn = ff_axis_nodes(&ax, node, 64);
  REQUIRE_OK(nn > 0 ? EM_OK : EM_ERR_ARG);
  int n[3] = {nn, nn, nn};
  double *nodes[3] = {node, node, node}, wv[3] = {w, w, w};
  double src[3] = {side / 2, side / 2, side / 2}, surf[3] = {0.375, 0.375, 0.375};
  em_mesh *m = NULL;
  REQUIRE_OK(ff_box_mesh(n, nodes, wv, src, surf, &m));
  em_medium med[3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 1}};
  em_pml pml;
  REQUIRE_OK(em_pml_detect(m, med, 2, 1e-6, &pml));
  uint8_t *fixed = calloc((size_t)m->n_face, 1), *vary = calloc((size_t)m->n_tet, 1);
  for (int32_t f = 0; f < m->n_face; f++) fixed[f] = m->face_tet[2 * f + 1] < 0;
  for (int32_t t = 0; t < m->n_tet; t++) vary[t] = med[m->tet_group[t]].is_pml;
  em_dofmap *d = NULL;
  REQUIRE_OK(em_dofmap_build(m, p, fixed, &d));
  em_media media = {m, med, &pml, k0};
  src_ctx sc = {m, 1, k0, 1.0 / (side * side * side)};
  em_problem prob = {.k0 = k0,
                     .material = em_media_material,
                     .material_ctx = &media,
                     .tet_vary = vary,
                     .tet_source = current,
                     .tet_source_ctx = &sc,
                     .n_rhs = 1};
  em_system *sys = NULL;
  REQUIRE_OK(em_assemble(m, d, &prob, NULL, &sys));
  em_cplx *x = calloc((size_t)d->n_dof + 1, sizeof *x);
  double res, ts;
  REQUIRE_OK(ff_solve(sys, x, &res, &ts));
  printf(
      "mesh %d nodes per axis, %d tets, order %d: %d unknowns, assembly %.2f s, solve %.2f s, "
      "residual %.1e\n",
      nn, m->n_tet, p, d->n_dof, sys->t_assembly, ts, res);

  /* free space: the boundary of the interior box */
  em_nf2ff_opts o = {.group = -1, .medium = med, .k0 = k0};
  em_nf2ff *nf = NULL;
  double t0 = em_wtime();
  REQUIRE_OK(em_nf2ff_create(m, d, x, sys->fixed, &o, &nf));
  em_ff_grid g;
  REQUIRE_OK(em_ff_grid_eval(nf, 5, 5, &g));
  double ploss;
  REQUIRE_OK(em_field_loss(m, d, x, sys->fixed, med, k0, &ploss));
  em_antenna a;
  REQUIRE_OK(em_antenna_figures(nf, &g, NAN, 1, ploss, &a));
  double pr = p_ref(k0, side, M_PI), dr = 4 * M_PI * u_ref(k0, side, M_PI / 2, 0) / pr;
  double bwr = bw_ref(k0, side);
  printf("far field: %d faces, %lld points, %.2f s\n", nf->n_face, (long long)nf->n,
         em_wtime() - t0);
  printf(
      "  Hertzian P = %.6g W; with the form factor P_ref = %.6g W, D_ref = %.6f, "
      "BW_ref = %.3f deg\n",
      EM_Z0 * k0 * k0 / (12 * M_PI), pr, dr, bwr);
  printf("  P_surface = %.6g W (%+.3f%%), P_far = %.6g W (%+.3f%%), surface/far %+.3f%%\n",
         a.p_surface, 100 * (a.p_surface / pr - 1), a.p_far, 100 * (a.p_far / pr - 1),
         100 * (a.p_surface / a.p_far - 1));
  printf("  D = %.5f (%.3f dBi, %+.3f%% from 1.5, %+.3f%% from D_ref) at theta %.2f phi %.2f\n",
         a.directivity, 10 * log10(a.directivity), 100 * (a.directivity / 1.5 - 1),
         100 * (a.directivity / dr - 1), a.theta_max, a.phi_max);
  printf("  beamwidth E %.3f deg, H %g deg; P_loss = %g W\n", a.bw_e, a.bw_h, ploss);
  EXPECT(fabs(a.p_surface / pr - 1) < 0.005, "P_surface %g vs %g", a.p_surface, pr);
  EXPECT(fabs(a.p_far / pr - 1) < 0.005, "P_far %g vs %g", a.p_far, pr);
  EXPECT(fabs(a.p_surface / a.p_far - 1) < 0.005, "P_surface %g vs P_far %g", a.p_surface, a.p_far);
  EXPECT(fabs(a.directivity / 1.5 - 1) < 0.005, "D = %g", a.directivity);
  EXPECT(fabs(a.directivity / dr - 1) < 0.005, "D = %g vs %g", a.directivity, dr);
  EXPECT(fabs(a.theta_max - 90) < 0.5, "maximum at theta %g", a.theta_max);
  EXPECT(fabs(a.bw_e - bwr) < 0.5, "E-plane beamwidth %g vs %g", a.bw_e, bwr);
  EXPECT(isnan(a.bw_h), "H-plane beamwidth %g (omnidirectional: none)", a.bw_h);
  EXPECT(ploss == 0, "lossless: P_loss = %g", ploss);
  /* phase of F_theta at theta = 90, phi = 30 deg */
  em_cplx ft, fp;
  em_nf2ff_far(nf, M_PI / 2, M_PI / 6, &ft, &fp);
  double r30[3] = {cos(M_PI / 6), sin(M_PI / 6), 0};
  double S = sinc(k0 * r30[0] * side / 2) * sinc(k0 * r30[1] * side / 2);
  em_cplx fr = I * k0 * EM_Z0 * S / (4 * M_PI);
  printf("  F_theta(90, 30) = %.5g %+.5gj V, reference %.5g %+.5gj V, |F_phi| = %.2g V\n",
         creal(ft), cimag(ft), creal(fr), cimag(fr), cabs(fp));
  EXPECT(cabs(ft - fr) < 0.005 * cabs(fr), "F_theta = %g%+gj vs %g%+gj", creal(ft), cimag(ft),
         creal(fr), cimag(fr));
  EXPECT(cabs(fp) < 0.005 * cabs(fr), "F_phi = %g", cabs(fp));
  /* delivered power -1/2 Re int E . J* over the source */
  double pd = 0;
  {
    em_quad q;
    REQUIRE_OK(em_quad_tet(2 * p, &q));
    for (int32_t t = 0; t < m->n_tet; t++) {
      if (m->tet_group[t] != 1) continue;
      double vol = fabs(em_tet_volume(m, t));
      for (int k = 0; k < q.n; k++) {
        em_cplx E[3];
        em_field_eval(m, d, x, sys->fixed, t, q.lam + 4 * k, E, NULL);
        pd += -0.5 * creal(E[2] * sc.j0) * q.w[k] * vol;
      }
    }
  }
  printf("  delivered by the source -1/2 Re int E.J* = %.6g W (surface %+.3f%%)\n", pd,
         100 * (a.p_surface / pd - 1));
  EXPECT(fabs(a.p_surface / pd - 1) < 5e-4, "P_surface %g vs delivered %g", a.p_surface, pd);

  /* a closed surface group nearer the source: the same far field */
  em_nf2ff_opts og = o;
  og.group = em_mesh_group_find(m, "nf2ff", 2);
  em_nf2ff *ng = NULL;
  REQUIRE_OK(em_nf2ff_create(m, d, x, sys->fixed, &og, &ng));
  double pg = em_nf2ff_power(ng), wg = 0;
  for (int k = 0; k < 6; k++) {
    em_cplx fgt, fgp;
    double th = 0.4 + 0.45 * k, phi = 1.1 * k;
    em_nf2ff_far(ng, th, phi, &fgt, &fgp);
    em_nf2ff_far(nf, th, phi, &ft, &fp);
    wg = fmax(wg, (cabs(fgt - ft) + cabs(fgp - fp)) / (cabs(ft) + 1e-30));
  }
  printf(
      "group 'nf2ff' (|x_d| = 0.375 lambda): %d faces, P_surface = %.6g W (%+.3f%%), P_far = "
      "%.6g W (%+.3f%%), largest far-field difference %.2e\n",
      ng->n_face, ng->p_surface, 100 * (ng->p_surface / a.p_surface - 1), pg,
      100 * (pg / a.p_far - 1), wg);
  EXPECT(fabs(ng->p_surface / a.p_surface - 1) < 0.005, "group P_surface %g", ng->p_surface);
  EXPECT(fabs(pg / a.p_far - 1) < 0.005, "group P_far %g", pg);
  EXPECT(wg < 0.005, "group far field differs by %g", wg);
  em_nf2ff_destroy(&ng);

  /* an infinite ground z = 0 (half space) */
  em_nf2ff_opts oi = o;
  oi.mirror[2] = EM_MIRROR_PEC;
  oi.half_space = 1;
  em_nf2ff *ni = NULL;
  REQUIRE_OK(em_nf2ff_create(m, d, x, sys->fixed, &oi, &ni));
  em_ff_grid gi;
  REQUIRE_OK(em_ff_grid_eval(ni, 5, 5, &gi));
  em_antenna ai;
  REQUIRE_OK(em_antenna_figures(ni, &gi, NAN, 1, 0, &ai));
  em_cplx fti, fpi;
  em_nf2ff_far(ni, M_PI / 4, M_PI / 3, &fti, &fpi);
  em_nf2ff_far(nf, M_PI / 4, M_PI / 3, &ft, &fp);
  printf(
      "ground z = 0: %d faces, P_surface = %.6g W, P_far = %.6g W (half: %.6g), D = %.5f "
      "(%.3f dBi), F_theta(45, 60) %.5g%+.5gj vs free %.5g%+.5gj\n",
      ni->n_face, ai.p_surface, ai.p_far, 0.5 * pr, ai.directivity, 10 * log10(ai.directivity),
      creal(fti), cimag(fti), creal(ft), cimag(ft));
  EXPECT(fabs(ai.p_far / (0.5 * a.p_far) - 1) < 0.005, "ground P_far %g vs %g", ai.p_far,
         0.5 * a.p_far);
  EXPECT(fabs(ai.p_surface / (0.5 * a.p_surface) - 1) < 0.005, "ground P_surface %g", ai.p_surface);
  EXPECT(fabs(ai.directivity / 3 - 1) < 0.005, "ground D = %g", ai.directivity);
  EXPECT(cabs(fti - ft) < 0.005 * cabs(ft), "ground F_theta %g%+gj vs %g%+gj", creal(fti),
         cimag(fti), creal(ft), cimag(ft));
  em_nf2ff_far(ni, 0.75 * M_PI, 0, &fti, &fpi);
  EXPECT(fti == 0 && fpi == 0, "ground: field below the plane");

  /* one eighth of the surface and three symmetry planes: x = 0 and y = 0
   * are magnetic walls of the z dipole (E even), z = 0 an electric one */
  em_nf2ff_opts o8 = o;
  o8.mirror[0] = o8.mirror[1] = EM_MIRROR_PMC;
  o8.mirror[2] = EM_MIRROR_PEC;
  em_nf2ff *n8 = NULL;
  REQUIRE_OK(em_nf2ff_create(m, d, x, sys->fixed, &o8, &n8));
  double p8 = em_nf2ff_power(n8), worst = 0;
  static const double DIR[4][2] = {{0.3, 0.2}, {2.0, 2.5}, {1.2, 4.0}, {2.7, 5.5}};
  for (int k = 0; k < 4; k++) {
    em_cplx f8t, f8p;
    em_nf2ff_far(n8, DIR[k][0], DIR[k][1], &f8t, &f8p);
    em_nf2ff_far(nf, DIR[k][0], DIR[k][1], &ft, &fp);
    worst = fmax(worst, (cabs(f8t - ft) + cabs(f8p - fp)) / cabs(ft));
  }
  printf(
      "eighth + mirrors (PMC x, PMC y, PEC z): %d faces, P_surface = %.6g W (%+.3f%%), P_far "
      "= %.6g W (%+.3f%%), largest far-field difference %.2e\n",
      n8->n_face, n8->p_surface, 100 * (n8->p_surface / a.p_surface - 1), p8,
      100 * (p8 / a.p_far - 1), worst);
  EXPECT(n8->n_face * 8 == nf->n_face, "eighth: %d faces of %d", n8->n_face, nf->n_face);
  EXPECT(fabs(n8->p_surface / a.p_surface - 1) < 0.005, "mirrored P_surface %g", n8->p_surface);
  EXPECT(fabs(p8 / a.p_far - 1) < 0.005, "mirrored P_far %g", p8);
  EXPECT(worst < 0.005, "mirrored far field differs by %g", worst);
  em_nf2ff_destroy(&n8);

  em_ff_grid_free(&g);
  em_ff_grid_free(&gi);
  em_nf2ff_destroy(&nf);
  em_nf2ff_destroy(&ni);
  free(x);
  free(fixed);
  free(vary);
  em_system_destroy(&sys);
  em_dofmap_destroy(&d);
  em_mesh_destroy(&m);
  return TEST_RESULT();
}
