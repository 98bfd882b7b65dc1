/* farfield_csv.c - far-field tables for plots and scripts: the pattern on
 * its (theta, phi) grid, the E- and H-plane cuts, the antenna summary per
 * frequency, the bistatic RCS.  Columns are named in docs/outputs.md;
 * numbers in the shortest form that reads back exactly ("-inf" for the dB
 * of a zero, "nan" for a figure that does not exist). */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

static void put(FILE *f, double v, int first) {
  char buf[EM_POST_NUM_LEN];
  em_post_fmt_double(buf, v);
  if (!first) fputc(',', f);
  fputs(buf, f);
}

static double db(double x) {
  return 10 * log10(x);
}

static double deg(double rad) {
  return rad * 180 / M_PI;
}

em_err em_farfield_csv_write(const char *path, double freq, const em_ff_grid *g, const em_nf2ff *nf,
                             const em_antenna *a) {
  EM_CHECK(path && g && g->f && nf && a, EM_ERR_ARG, "far-field CSV: NULL argument");
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fprintf(f,
          "# far field at f = %.9g Hz: F = r exp(j k r) E (V), phase at the origin; "
          "directivity from P_rad = %.9g W (far-field integral)\n",
          freq, a->p_far);
  fputs(
      "theta_deg,phi_deg,Ftheta_re,Ftheta_im,Fphi_re,Fphi_im,directivity_dBi,gain_dBi,"
      "realized_gain_dBi,co_dBi,cross_dBi,rhcp_gain_dBi,lhcp_gain_dBi,axial_ratio_dB\n",
      f);
  double to_d = 4 * M_PI / a->p_far;
  for (int i = 0; i < g->n_theta; i++)
    for (int j = 0; j < g->n_phi; j++) {
      const em_cplx *F = g->f + 2 * ((size_t)i * g->n_phi + j);
      double th = i * g->dtheta, ph = j * g->dphi, p = ph * M_PI / 180;
      double u = (creal(F[0] * conj(F[0])) + creal(F[1] * conj(F[1]))) / (2 * nf->eta);
      em_cplx cx = F[0] * cos(p) - F[1] * sin(p), cy = F[0] * sin(p) + F[1] * cos(p);
      double ux = creal(cx * conj(cx)) / (2 * nf->eta), uy = creal(cy * conj(cy)) / (2 * nf->eta);
      put(f, th, 1);
      put(f, ph, 0);
      put(f, creal(F[0]), 0);
      put(f, cimag(F[0]), 0);
      put(f, creal(F[1]), 0);
      put(f, cimag(F[1]), 0);
      put(f, db(u * to_d), 0);
      put(f, db(u * to_d * a->efficiency), 0);
      put(f, db(u * to_d * a->efficiency * a->mismatch), 0);
      put(f, db((a->copol ? uy : ux) * to_d), 0);
      put(f, db((a->copol ? ux : uy) * to_d), 0);
      em_cplx fr, fl; /* circular parts: partial gains, axial ratio */
      double ar;
      em_ff_circular(F[0], F[1], &fr, &fl, &ar);
      double ur = creal(fr * conj(fr)) / (2 * nf->eta), ul = creal(fl * conj(fl)) / (2 * nf->eta);
      put(f, db(ur * to_d * a->efficiency), 0);
      put(f, db(ul * to_d * a->efficiency), 0);
      put(f, ar, 0);
      fputc('\n', f);
    }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

em_err em_pattern_cuts_write(const char *path, double freq, double step, const em_nf2ff *nf,
                             const em_antenna *a) {
  EM_CHECK(path && nf && a, EM_ERR_ARG, "pattern cuts: NULL argument");
  EM_CHECK(isfinite(step) && step > 0 && step <= 90, EM_ERR_INPUT,
           "pattern cut step %g deg must lie in (0, 90]", step);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fprintf(f,
          "# principal cuts at f = %.9g Hz through the maximum (theta %.4g, phi %.4g deg); "
          "E-plane along (%.6g %.6g %.6g), H-plane along (%.6g %.6g %.6g)\n",
          freq, a->theta_max, a->phi_max, a->e_dir[0], a->e_dir[1], a->e_dir[2], a->h_dir[0],
          a->h_dir[1], a->h_dir[2]);
  fputs(
      "angle_deg,Eplane_theta_deg,Eplane_phi_deg,Eplane_directivity_dBi,Eplane_realized_gain_dBi,"
      "Hplane_theta_deg,Hplane_phi_deg,Hplane_directivity_dBi,Hplane_realized_gain_dBi\n",
      f);
  int n = (int)floor(180 / step + 1e-9), m = 2 * n + 1;
  /* both cuts first (their directions evaluated together), then the rows */
  double *al = NULL, *dir = NULL, *u = NULL;
  em_err err = em_calloc(&al, (size_t)m, sizeof *al, "pattern cuts");
  if (!err) err = em_calloc(&dir, 6 * (size_t)m, sizeof *dir, "pattern cuts");
  if (!err) err = em_calloc(&u, 2 * (size_t)m, sizeof *u, "pattern cuts");
  if (err) {
    em_free(&al);
    em_free(&dir);
    em_outfile_abort(&out);
    return err;
  }
  for (int i = -n; i <= n; i++) al[i + n] = i * step * M_PI / 180;
  for (int plane = 0; plane < 2; plane++)
    em_post_cut_many(nf, a, plane, m, al, dir + 3 * (size_t)m * plane, u + (size_t)m * plane);
  for (int i = -n; i <= n; i++) {
    put(f, i * step, 1);
    for (int plane = 0; plane < 2; plane++) {
      const double *d = dir + 3 * ((size_t)m * plane + i + n);
      double uu = u[(size_t)m * plane + i + n];
      double th = deg(acos(fmax(-1.0, fmin(1.0, d[2])))), ph = deg(atan2(d[1], d[0]));
      if (ph < 0) ph += 360;
      put(f, th, 0);
      put(f, ph, 0);
      put(f, db(4 * M_PI * uu / a->p_far), 0);
      put(f, db(4 * M_PI * uu / a->p_far * a->efficiency * a->mismatch), 0);
    }
    fputc('\n', f);
  }
  em_free(&al);
  em_free(&dir);
  em_free(&u);
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

em_err em_antenna_csv_write(const char *path, int n, const double *freq, const em_antenna *a) {
  EM_CHECK(path && n >= 1 && freq && a, EM_ERR_ARG, "antenna CSV: bad arguments");
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fputs(
      "f_Hz,P_acc_W,P_acc_S11_W,mismatch,P_rad_surface_W,P_rad_farfield_W,P_loss_W,"
      "P_loss_metal_W,P_loss_lumped_W,directivity_dBi,"
      "gain_dBi,realized_gain_dBi,efficiency,power_balance,theta_max_deg,phi_max_deg,"
      "front_to_back_dB,copol,xpol_axis_dB,xpol_peak_dB,beamwidth_E_deg,beamwidth_H_deg,"
      "rhcp_gain_dBi,lhcp_gain_dBi,axial_ratio_dB\n",
      f);
  for (int i = 0; i < n; i++) {
    const em_antenna *r = a + i;
    /* no far field there (an adaptive sweep's): never computed, 0; a flagged
       frequency's row is written, NaN where a figure does not exist */
    if (r->directivity == 0) continue;
    put(f, freq[i], 1);
    put(f, r->p_acc, 0);
    put(f, r->p_acc_s11, 0);
    put(f, r->mismatch, 0);
    put(f, r->p_surface, 0);
    put(f, r->p_far, 0);
    put(f, r->p_loss, 0);
    put(f, r->p_loss_metal, 0);
    put(f, r->p_loss_lumped, 0);
    put(f, db(r->directivity), 0);
    put(f, db(r->gain), 0);
    put(f, db(r->realized_gain), 0);
    put(f, r->efficiency, 0);
    put(f, r->balance, 0);
    put(f, r->theta_max, 0);
    put(f, r->phi_max, 0);
    put(f, r->front_to_back, 0);
    fputs(r->copol ? ",y" : ",x", f);
    put(f, r->xpol_axis, 0);
    put(f, r->xpol_peak, 0);
    put(f, r->bw_e, 0);
    put(f, r->bw_h, 0);
    put(f, db(r->g_rhcp), 0);
    put(f, db(r->g_lhcp), 0);
    put(f, r->axial_ratio, 0);
    fputc('\n', f);
  }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

/* sigma = 4 pi |F|^2 / |E0|^2 and its theta / phi polarised parts */
em_err em_rcs_csv_write(const char *path, double freq, const em_ff_grid *g, double e0) {
  EM_CHECK(path && g && g->f, EM_ERR_ARG, "RCS CSV: NULL argument");
  EM_CHECK(isfinite(e0) && e0 > 0, EM_ERR_ARG, "RCS CSV: incident amplitude %g V/m", e0);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fprintf(f, "# bistatic radar cross section at f = %.9g Hz, incident amplitude %.9g V/m\n", freq,
          e0);
  fputs("theta_deg,phi_deg,sigma_m2,sigma_dBsm,sigma_theta_m2,sigma_phi_m2\n", f);
  double c = 4 * M_PI / (e0 * e0);
  for (int i = 0; i < g->n_theta; i++)
    for (int j = 0; j < g->n_phi; j++) {
      const em_cplx *F = g->f + 2 * ((size_t)i * g->n_phi + j);
      double st = c * creal(F[0] * conj(F[0])), sp = c * creal(F[1] * conj(F[1]));
      put(f, i * g->dtheta, 1);
      put(f, j * g->dphi, 0);
      put(f, st + sp, 0);
      put(f, db(st + sp), 0);
      put(f, st, 0);
      put(f, sp, 0);
      fputc('\n', f);
    }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}
