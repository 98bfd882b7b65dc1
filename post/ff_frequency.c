/* ff_frequency.c - the far field of a run (docs/farfield.md): its surface
 * checked before any solve, and per frequency the NF2FF transform, the
 * antenna figures (antenna.csv, farfield_<f>.csv, pattern_<f>.csv,
 * pattern_<f>.vtk) or the bistatic RCS (rcs_<f>.csv, rcs_<f>.vtk), with
 * several wave ports the array's (ff_array.c), and their table on stdout
 * at the end.  The settings are model/config_ff.c's. */
#include <math.h>
#include <string.h>

#include "run_impl.h"

/* The path of output `name`, recorded as written. */
static em_err out_file(em_outdir *out, const char *name, char *path, size_t n) {
  EM_TRY(em_outdir_path(out, name, path, n));
  return em_outdir_add(out, name);
}

/* The NF2FF options of the run at k0. */
static em_nf2ff_opts nf2ff_opts(const em_model *m, double k0) {
  const em_ff_config *ff = &m->ff;
  em_nf2ff_opts o = {
      .group = ff->group, .medium = m->setup.medium, .k0 = k0, .half_space = ff->half_space};
  for (int d = 0; d < 3; d++) o.mirror[d] = ff->mirror[d], o.mirror_at[d] = ff->mirror_at[d];
  o.volume = ff->volume; /* Farfield/method */
  o.volume_shift = 1;
  return o;
}

em_err em_post_ff_check(const em_model *m, const em_log *log) {
  const em_ff_config *ff = &m->ff;
  if (ff->enabled) {
    /* the NF2FF surface exists and lies in one lossless medium: checked
     * now, before anything is solved or written */
    em_nf2ff_opts o = nf2ff_opts(m, 1);
    int32_t n = 0, *face = NULL, *tin = NULL;
    double *nrm = NULL;
    em_err err = em_nf2ff_surface(m->mesh, &o, &n, &face, &tin, &nrm);
    em_free(&face);
    em_free(&tin);
    em_free(&nrm);
    EM_TRY(err);
  }
  if (ff->enabled)
    em_log_info(log, "far field: %s, grid %g x %g deg%s",
                ff->group >= 0 ? m->mesh->group[ff->group].name : "boundary of the non-PML region",
                ff->theta_step, ff->phi_step, ff->planewave ? ", plane-wave excitation" : "");
  const em_array_config *A = &ff->arr;
  if (A->lumped)
    em_log_info(log, "array outputs: none (they need wave ports; the case has lumped ones)");
  if (A->enabled && A->scan)
    em_log_info(log, "array: %d ports, scanned to theta %g, phi %g deg", m->setup.n_port,
                A->scan_theta * 180 / M_PI, A->scan_phi * 180 / M_PI);
  else if (A->enabled)
    em_log_info(log, "array: %d ports, weights %s", m->setup.n_port, A->weights);
  return EM_OK;
}

static double db10(double v) {
  return 10 * log10(v);
}

/* The pattern as a surface: realized gain in dBi (directivity without a
 * known accepted power), or the RCS in dBsm. */
static em_err write_vtk(const em_model *m, em_outdir *out, const em_log *log, const char *name,
                        const em_ff_grid *g, const em_nf2ff *nf, const em_antenna *a, double e0,
                        int converged) {
  char path[1400];
  double *v = NULL;
  int n = g->n_theta * g->n_phi;
  EM_TRY(em_calloc(&v, (size_t)n, sizeof *v, "pattern"));
  int gain = a && isfinite(a->realized_gain);
  for (int k = 0; k < n; k++) {
    const em_cplx *F = g->f + 2 * k;
    double f2 = creal(F[0] * conj(F[0])) + creal(F[1] * conj(F[1]));
    if (!a)
      v[k] = db10(4 * M_PI * f2 / (e0 * e0));
    else
      v[k] =
          db10(4 * M_PI * f2 / (2 * nf->eta) / a->p_far * (gain ? a->efficiency * a->mismatch : 1));
  }
  int finite = 0;
  for (int k = 0; k < n && !finite; k++) finite = isfinite(v[k]);
  if (!finite && !converged) { /* a field that did not converge gave no pattern: flagged */
    em_log_warn(log, "no %s: the pattern has no finite value (not converged)", name);
    em_free(&v);
    return EM_OK;
  }
  em_err err = out_file(out, name, path, sizeof path);
  if (!err)
    err = em_ff_vtk_write(path, g, v,
                          !a     ? "rcs_dBsm"
                          : gain ? "realized_gain_dBi"
                                 : "directivity_dBi",
                          40, nf->centre, nf->radius, em_case_name(m->cs));
  em_free(&v);
  return err;
}

/* The figures of a frequency whose solve did not converge and whose field
 * gives none (no radiated power, no finite pattern): NaN, as antenna.csv
 * writes a figure that does not exist; the powers as measured. */
static void undefined_figures(const em_nf2ff *nf, double flux, double mismatch, double p_loss,
                              em_antenna *a) {
  const double nan = NAN;
  double *d[] = {&a->u_max,     &a->theta_max,     &a->phi_max, &a->directivity,   &a->efficiency,
                 &a->gain,      &a->realized_gain, &a->balance, &a->front_to_back, &a->xpol_axis,
                 &a->xpol_peak, &a->bw_e,          &a->bw_h,    &a->p_acc_s11};
  for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) *d[k] = nan;
  for (int c = 0; c < 3; c++) a->dir_max[c] = a->e_dir[c] = a->h_dir[c] = nan;
  a->copol = 0;
  a->p_acc = flux;
  a->mismatch = mismatch;
  a->p_loss = p_loss;
  a->p_surface = nf->p_surface;
  a->p_far = em_nf2ff_power(nf);
}

static em_err antenna(const em_model *m, em_results *r, em_outdir *out, const em_log *log, int fi,
                      const em_nf2ff *nf, const em_ff_grid *g, const em_cplx *x,
                      const em_cplx *fixed, const em_cplx *meas, double k0) {
  int np = r->n_port;
  double t0 = em_wtime();
  /* accepted power: the Poynting flux through the port plane (what the mesh
   * carries in; P_rad + P_loss balance it), and the port's own count
   * P_inc (1 - |S11|^2) from the analytic mode, which a faceted coax misses
   * by a few % (docs/farfield.md) */
  double p_inc, p_acc_s11, p_loss, flux;
  /* the first port excited (Excitation/ports; port 1 by default): x's first column */
  int p0 = em_excite_port(em_post_excited(m), 0);
  const em_port *port = &m->setup.port[p0];
  em_port_power(port, meas[p0 * np + p0], &p_inc, &p_acc_s11);
  em_cplx s11 = r->S[(size_t)fi * np * np + p0 * np + p0];
  double mismatch = 1 - creal(s11 * conj(s11));
  EM_TRY(em_field_loss(m->mesh, m->dofs, x, fixed, m->setup.medium, k0, &p_loss));
  double p_metal, p_lumped; /* surface impedances and lumped sheets (model/case_surface.c) */
  EM_TRY(em_setup_surface_loss(&m->setup, m->mesh, m->dofs, x, fixed, k0, EM_SURFACE_IMPEDANCE,
                               &p_metal));
  EM_TRY(em_setup_surface_loss(&m->setup, m->mesh, m->dofs, x, fixed, k0, EM_SURFACE_LUMPED,
                               &p_lumped));
  p_loss += p_metal + p_lumped;
  EM_TRY(em_port_flux(port, m->mesh, m->dofs, x, fixed, &flux));
  double t1 = em_wtime(); /* the split of this step's time, in the log */
  em_antenna *a = &r->ant[fi];
  em_err err = em_antenna_figures(nf, g, flux, mismatch, p_loss, a);
  double t2 = em_wtime();
  if (err == EM_ERR_NUMERIC && !r->fr[fi].converged) { /* flagged: NaN where undefined */
    em_log_warn(log, "f = %.6g GHz: no antenna figures (not converged: %s)", r->freq[fi] * 1e-9,
                em_error_message());
    em_error_clear();
    undefined_figures(nf, flux, mismatch, p_loss, a);
  } else {
    EM_TRY(err);
  }
  a->p_acc_s11 = p_acc_s11;
  a->p_loss_metal = p_metal;
  a->p_loss_lumped = p_lumped;
  char name[64], path[1400], tag[32];
  double f = r->freq[fi];
  em_post_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "farfield_%s.csv", tag);
  EM_TRY(out_file(out, name, path, sizeof path));
  EM_TRY(em_farfield_csv_write(path, f, g, nf, a));
  snprintf(name, sizeof name, "pattern_%s.csv", tag);
  EM_TRY(out_file(out, name, path, sizeof path));
  EM_TRY(em_pattern_cuts_write(path, f, 1, nf, a));
  snprintf(name, sizeof name, "pattern_%s.vtk", tag);
  EM_TRY(write_vtk(m, out, log, name, g, nf, a, 0, r->fr[fi].converged));
  /* antenna.csv holds the frequencies done so far (rewritten whole) */
  EM_TRY(em_outdir_path(out, "antenna.csv", path, sizeof path));
  EM_TRY(em_antenna_csv_write(path, fi + 1, r->freq, r->ant));
  int listed = 0; /* with its first row (an adaptive sweep's may be any) */
  for (int j = 0; j < fi; j++) listed |= r->ant[j].directivity != 0; /* NaN: a flagged row */
  if (!listed) EM_TRY(em_outdir_add(out, "antenna.csv"));
  em_log_verbose(log,
                 "far field: P_rad %.4g W (surface) / %.4g W (far field), P_acc %.4g W (port "
                 "flux; P_inc (1 - |S11|^2) = %.4g W), P_loss %.3g W (metal %.3g W, lumped "
                 "%.3g W); D %.2f dBi, G %.2f dBi, "
                 "realized %.2f dBi at (%.1f, %.1f) deg, efficiency %.2f%%, power balance %.4f; "
                 "%.2f s (losses and port flux %.2f s, power and figures %.2f s, files %.2f s)",
                 a->p_surface, a->p_far, flux, p_acc_s11, p_loss, p_metal, p_lumped,
                 db10(a->directivity), db10(a->gain), db10(a->realized_gain), a->theta_max,
                 a->phi_max, 100 * a->efficiency, a->balance, em_wtime() - t0, t1 - t0, t2 - t1,
                 em_wtime() - t2);
  return EM_OK;
}

static em_err scattering(const em_model *m, em_results *r, em_outdir *out, const em_log *log,
                         int fi, const em_nf2ff *nf, const em_ff_grid *g) {
  const em_ff_config *ff = &m->ff;
  char name[64], path[1400], tag[32];
  double f = r->freq[fi], e0 = ff->pw_amp;
  em_post_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "rcs_%s.csv", tag);
  EM_TRY(out_file(out, name, path, sizeof path));
  EM_TRY(em_rcs_csv_write(path, f, g, e0));
  snprintf(name, sizeof name, "rcs_%s.vtk", tag);
  EM_TRY(write_vtk(m, out, log, name, g, nf, NULL, e0, r->fr[fi].converged));
  /* back: towards where the wave comes from; forward: where it goes
     (khat as em_planewave_make has it) */
  double st = sin(ff->pw_theta), ct = cos(ff->pw_theta);
  const double k[3] = {st * cos(ff->pw_phi), st * sin(ff->pw_phi), ct};
  double th = acos(fmax(-1.0, fmin(1.0, k[2]))), ph = atan2(k[1], k[0]);
  em_cplx ft, fp;
  em_nf2ff_far(nf, M_PI - th, ph + M_PI, &ft, &fp);
  r->rcs_back[fi] = 4 * M_PI * (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (e0 * e0);
  em_nf2ff_far(nf, th, ph, &ft, &fp);
  r->rcs_fwd[fi] = 4 * M_PI * (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (e0 * e0);
  em_log_verbose(log,
                 "far field: RCS back %.4g m^2 (%.2f dBsm), forward %.4g m^2; scattered "
                 "power %.4g W (surface) / %.4g W (far field)",
                 r->rcs_back[fi], db10(r->rcs_back[fi]), r->rcs_fwd[fi], nf->p_surface,
                 em_nf2ff_power(nf));
  return EM_OK;
}

em_err em_post_ff_frequency(const em_model *m, em_results *r, em_outdir *out, const em_log *log,
                            int fi, double k0, const em_cplx *x, const em_cplx *fixed,
                            const em_cplx *meas) {
  const em_ff_config *ff = &m->ff;
  if (!ff->enabled) return EM_OK;
  em_nf2ff_opts o = nf2ff_opts(m, k0);
  em_nf2ff *nf = NULL;
  em_ff_grid g = {0};
  em_err err = EM_OK;
  double t0 = em_wtime();
  EM_TRY(em_nf2ff_create(m->mesh, m->dofs, x, fixed, &o, &nf));
  EM_TRY_GOTO(err, em_ff_grid_eval(nf, ff->theta_step, ff->phi_step, &g), done);
  em_log_verbose(log, "far field: %d faces, %.2f s", nf->n_face, em_wtime() - t0);
  if (ff->planewave)
    EM_TRY_GOTO(err, scattering(m, r, out, log, fi, nf, &g), done);
  else
    EM_TRY_GOTO(err, antenna(m, r, out, log, fi, nf, &g, x, fixed, meas, k0), done);
  if (ff->arr.enabled)
    EM_TRY_GOTO(err, em_post_array_frequency(m, r, out, log, fi, &o, x, fixed, meas), done);
done:
  em_ff_grid_free(&g);
  em_nf2ff_destroy(&nf);
  return err;
}

void em_post_ff_print(const em_model *m, const em_results *r, FILE *f) {
  const em_ff_config *ff = &m->ff;
  if (!ff->enabled || !r->n_done) return;
  if (ff->planewave) {
    fprintf(f, "# %s: bistatic RCS, plane wave (%g V/m)\n", em_case_name(m->cs), ff->pw_amp);
    fprintf(f, "# f_GHz        back_m2      back_dBsm  forward_m2\n");
    for (int i = 0; i < r->n_done; i++)
      fprintf(f, "%-14.9g %-12.6g %-10.3f %-12.6g\n", r->freq[i] * 1e-9, r->rcs_back[i],
              db10(r->rcs_back[i]), r->rcs_fwd[i]);
    return;
  }
  fprintf(f, "# %s: antenna (port %d driven)\n", em_case_name(m->cs),
          m->setup.n_port ? em_excite_port(em_post_excited(m), 0) + 1 : 1);
  fprintf(f, "# f_GHz        D_dBi   G_dBi   Gr_dBi  eff_%%   theta  phi    F/B_dB  BW_E  BW_H\n");
  for (int i = 0; i < r->n_done; i++) {
    const em_antenna *a = &r->ant[i];
    if (a->directivity == 0) continue; /* not computed there (an adaptive sweep's model) */
    fprintf(f, "%-14.9g %-7.2f %-7.2f %-7.2f %-7.1f %-6.1f %-6.1f %-7.1f %-5.1f %-5.1f%s\n",
            r->freq[i] * 1e-9, db10(a->directivity), db10(a->gain), db10(a->realized_gain),
            100 * a->efficiency, a->theta_max, a->phi_max, a->front_to_back, a->bw_e, a->bw_h,
            r->flag[i] & EM_PORTS_FLAG_NOT_CONVERGED ? "  (not converged)"
            : r->flag[i] & EM_PORTS_FLAG_ACTIVE      ? "  (|S| > 1)"
                                                     : "");
  }
  em_post_array_print(m, r, f); /* ff_array.c */
}
