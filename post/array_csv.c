/* array_csv.c - the array tables (docs/farfield.md, "Arrays"): the embedded
 * element pattern of every port and the array pattern on the far-field
 * grid, and the active reflection coefficient of every port against the
 * scan angle in the principal planes.  Numbers in the shortest form that
 * reads back exactly ("-inf" for the dB of a zero). */
#include <math.h>
#include <string.h>

#include "em_post.h"
#include "post_impl.h"

static void put(FILE *f, double v) {
  char buf[EM_POST_NUM_LEN];
  em_post_fmt_double(buf, v);
  fputc(',', f);
  fputs(buf, f);
}

/* 10 log10 (4 pi U / P), U = |F|^2 / (2 eta) */
static double gain_db(const em_cplx *F, double eta, double p) {
  double u = (creal(F[0] * conj(F[0])) + creal(F[1] * conj(F[1]))) / (2 * eta);
  return 10 * log10(4 * M_PI * u / p);
}

em_err em_array_csv_write(const char *path, double freq, int n, const em_ff_grid *const *g,
                          const double *p_inc, const em_ff_grid *ga, const em_cplx *a, double eta) {
  EM_CHECK(path && g && p_inc && n >= 1, EM_ERR_ARG, "array CSV: NULL argument");
  double pa = 0;
  const em_ff_grid *g0 = NULL; /* a port not excited (Excitation/ports) has no pattern */
  for (int i = 0; i < n && !g0; i++) g0 = g[i];
  EM_CHECK(g0, EM_ERR_ARG, "array CSV: no port's pattern");
  for (int i = 0; i < n; i++) {
    if (!g[i]) {
      EM_CHECK(!ga || !a || a[i] == 0, EM_ERR_ARG, "array CSV: port %d has a weight but no pattern",
               i + 1);
      continue;
    }
    EM_CHECK(g[i]->f && g[i]->n_theta == g0->n_theta && g[i]->n_phi == g0->n_phi, EM_ERR_ARG,
             "array CSV: the pattern of port %d is missing or on another grid", i + 1);
    EM_CHECK(p_inc[i] > 0, EM_ERR_ARG, "array CSV: port %d's incident power %g W", i + 1, p_inc[i]);
    if (a) pa += creal(a[i] * conj(a[i])) * p_inc[i];
  }
  EM_CHECK(!ga || (a && ga->n_theta == g0->n_theta && ga->n_phi == g0->n_phi && pa > 0), EM_ERR_ARG,
           "array CSV: the array pattern without weights or on another grid");
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fprintf(f,
          "# array at f = %.9g Hz: F<i> = r exp(j k r) E (V) with port i driven by its incident "
          "power (the others matched), G<i> its realized gain (the embedded element pattern)",
          freq);
  if (ga) {
    fprintf(f, "; array: the weights (amplitude@deg)");
    for (int i = 0; i < n; i++)
      fprintf(f, "%s%.6g@%.6g", i ? ", " : " ", cabs(a[i]), carg(a[i]) * 180 / M_PI);
    fprintf(f, ", %.9g W incident in all", pa);
  }
  fputs("\ntheta_deg,phi_deg", f);
  for (int i = 0; i < n; i++)
    if (g[i])
      fprintf(f, ",F%d_theta_re,F%d_theta_im,F%d_phi_re,F%d_phi_im,G%d_dBi", i + 1, i + 1, i + 1,
              i + 1, i + 1);
  if (ga) fputs(",array_Ftheta_re,array_Ftheta_im,array_Fphi_re,array_Fphi_im,array_dBi", f);
  fputc('\n', f);
  for (int t = 0; t < g0->n_theta; t++)
    for (int p = 0; p < g0->n_phi; p++) {
      size_t at = 2 * ((size_t)t * g0->n_phi + p);
      char buf[EM_POST_NUM_LEN];
      em_post_fmt_double(buf, t * g0->dtheta);
      fputs(buf, f);
      put(f, p * g0->dphi);
      for (int i = 0; i < n; i++) {
        if (!g[i]) continue;
        const em_cplx *F = g[i]->f + at;
        put(f, creal(F[0]));
        put(f, cimag(F[0]));
        put(f, creal(F[1]));
        put(f, cimag(F[1]));
        put(f, gain_db(F, eta, p_inc[i]));
      }
      if (ga) {
        const em_cplx *F = ga->f + at;
        put(f, creal(F[0]));
        put(f, cimag(F[0]));
        put(f, creal(F[1]));
        put(f, cimag(F[1]));
        put(f, gain_db(F, eta, pa));
      }
      fputc('\n', f);
    }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}

em_err em_active_csv_write(const char *path, int n_freq, const double *freq, int n,
                           const em_port *ports, const em_cplx *S, double step) {
  EM_CHECK(path && freq && ports && S && n >= 1 && n <= EM_MAX_PORTS, EM_ERR_ARG,
           "active reflection CSV: NULL argument or %d ports", n);
  int ns = (int)lround(90 / step);
  EM_CHECK(isfinite(step) && step > 0 && fabs(ns * step - 90) < 1e-9, EM_ERR_INPUT,
           "active reflection: the scan step %g deg must divide 90", step);
  em_outfile out;
  EM_TRY(em_outfile_open(&out, path, 0));
  FILE *f = out.f;
  fputs(
      "# active reflection Gamma_i = sum_j S_ij a_j / a_i with a_j = exp(-j k0 u . r_j) (the "
      "beam scanned to u): scan_theta_deg < 0 is phi + 180 deg; S on the ports' own impedances\n",
      f);
  fputs("f_Hz,plane_phi_deg,scan_theta_deg", f);
  for (int i = 0; i < n; i++) fprintf(f, ",Gamma%d_dB,Gamma%d_deg", i + 1, i + 1);
  fputc('\n', f);
  for (int k = 0; k < n_freq; k++) {
    double k0 = 2 * M_PI * freq[k] / EM_C0;
    for (int plane = 0; plane < 2; plane++)
      for (int s = -ns; s <= ns; s++) {
        double th = s * step, ph = plane * 90 + (s < 0 ? 180 : 0);
        em_cplx a[EM_MAX_PORTS], gam[EM_MAX_PORTS];
        em_array_scan_weights(n, ports, k0, fabs(th) * M_PI / 180, ph * M_PI / 180, a);
        em_array_active(n, S + (size_t)k * n * n, a, gam);
        char buf[EM_POST_NUM_LEN];
        em_post_fmt_double(buf, freq[k]);
        fputs(buf, f);
        put(f, plane * 90);
        put(f, th);
        for (int i = 0; i < n; i++) {
          put(f, 20 * log10(cabs(gam[i])));
          put(f, carg(gam[i]) * 180 / M_PI);
        }
        fputc('\n', f);
      }
  }
  EM_TRY(em_outfile_commit(&out));
  return EM_OK;
}
