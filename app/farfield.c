/* farfield.c - the far field in the pipeline: parameters, the plane-wave
 * excitation hook, and per frequency the NF2FF transform, antenna figures
 * (antenna.csv, farfield_<n>.csv, pattern_<n>.csv, pattern_<n>.vtk) or the
 * bistatic RCS (rcs_<n>.csv, rcs_<n>.vtk).  docs/farfield.md. */
#include <math.h>
#include <string.h>

#include "app_run.h"

static em_err number(const em_case *c, const char *name, double *v) {
  EM_TRY(em_case_number(c, name, v));
  EM_CHECK(isfinite(*v), EM_ERR_INPUT, "parameter %s is not a finite number", name);
  return EM_OK;
}

static em_err pick(const em_case *c, const char *name, const char *const *opts, int n, int *v) {
  const char *s;
  EM_TRY(em_case_string(c, name, &s));
  EM_TRY(em_name_parse(opts, n, s, name, v));
  return EM_OK;
}

/* A grid step in (0, 90] degrees that divides range evenly. */
static em_err check_step(const char *name, double step, double range) {
  double n = range / step;
  EM_CHECK(step > 0 && step <= 90 && fabs(n - round(n)) < 1e-9 * n, EM_ERR_INPUT,
           "%s = %g deg: the step must lie in (0, 90] and divide %g deg evenly (e.g. 1, 2, 5, "
           "10)",
           name, step, range);
  return EM_OK;
}

static em_err read_mirrors(const em_case *c, double unit, em_app_ff *ff) {
  static const char *const kinds[] = {"none", "pec", "pmc"};
  static const char *const names[3] = {"Farfield/mirror_x", "Farfield/mirror_y",
                                       "Farfield/mirror_z"};
  static const char *const at[3] = {"Farfield/mirror_x_at", "Farfield/mirror_y_at",
                                    "Farfield/mirror_z_at"};
  for (int d = 0; d < 3; d++) {
    int k;
    EM_TRY(pick(c, names[d], kinds, 3, &k));
    ff->mirror[d] = (em_mirror)k;
    EM_TRY(number(c, at[d], &ff->mirror_at[d]));
    ff->mirror_at[d] *= unit;
  }
  double g;
  EM_TRY(number(c, "Farfield/infinite_ground", &g));
  EM_CHECK(g == 0 || g == 1, EM_ERR_INPUT, "Farfield/infinite_ground = %g: use 0 or 1", g);
  ff->half_space = g == 1;
  EM_CHECK(!ff->half_space || ff->mirror[2] == EM_MIRROR_PEC, EM_ERR_INPUT,
           "Farfield/infinite_ground 1 needs Farfield/mirror_z pec (the ground's plane)");
  return EM_OK;
}

static em_err read_planewave(const em_case *c, em_app_ff *ff) {
  static const char *const types[] = {"port", "planewave"};
  EM_TRY(pick(c, "Excitation/type", types, 2, &ff->planewave));
  double th, ph, psi;
  EM_TRY(number(c, "Excitation/theta", &th));
  EM_TRY(number(c, "Excitation/phi", &ph));
  EM_TRY(number(c, "Excitation/polarization", &psi));
  EM_TRY(number(c, "Excitation/amplitude", &ff->pw_amp));
  EM_CHECK(ff->pw_amp > 0, EM_ERR_INPUT, "Excitation/amplitude = %g V/m must be > 0", ff->pw_amp);
  ff->pw_theta = th * M_PI / 180;
  ff->pw_phi = ph * M_PI / 180;
  ff->pw_psi = psi * M_PI / 180;
  return EM_OK;
}

em_err em_app_ff_setup(em_run *r) {
  em_app_ff *ff = &r->ff;
  const em_case *c = r->cs;
  const em_mesh *m = r->mesh;
  EM_TRY(read_planewave(c, ff));
  static const char *const modes[] = {"auto", "on", "off"};
  int mode;
  EM_TRY(pick(c, "Farfield/compute", modes, 3, &mode));
  /* a periodic cell radiates Floquet modes, not a far field */
  ff->enabled = mode == 1 || (mode == 0 && (r->setup.has_pml || ff->planewave) && !r->periodic);
  EM_CHECK(!(ff->enabled && r->periodic), EM_ERR_INPUT,
           "Farfield/compute on: case %s is a periodic cell (Boundary/*/periodic): it has no far "
           "field of its own",
           em_case_path(c));
  EM_TRY(number(c, "Farfield/theta_step", &ff->theta_step));
  EM_TRY(number(c, "Farfield/phi_step", &ff->phi_step));
  EM_TRY(check_step("Farfield/theta_step", ff->theta_step, 180));
  EM_TRY(check_step("Farfield/phi_step", ff->phi_step, 360));
  EM_TRY(read_mirrors(c, r->cfg.unit, ff));
  double plots;
  EM_TRY(number(c, "Output/plots", &plots));
  EM_CHECK(plots == 0 || plots == 1, EM_ERR_INPUT, "Output/plots = %g: use 0 or 1", plots);
  ff->plots = plots == 1;
  static const char *const methods[] = {"surface", "volume"};
  EM_TRY(pick(c, "Farfield/method", methods, 2, &ff->volume));
  const char *surf;
  EM_TRY(em_case_string(c, "Farfield/surface", &surf));
  ff->group = -1;
  if (!strcmp(surf, "auto")) {
    ff->group = em_mesh_group_find(m, "nf2ff", 2);
  } else {
    ff->group = em_mesh_group_find(m, surf, 2);
    EM_CHECK(ff->group >= 0, EM_ERR_INPUT,
             "Farfield/surface = '%s': the case has no surface group of that name", surf);
  }
  if (ff->planewave) { /* ports, if any, are matched loads (the antenna's RCS) */
    EM_CHECK(!r->setup.n_port || !r->cfg.sweep_adaptive, EM_ERR_INPUT,
             "Excitation/type planewave with ports: Solver/sweep adaptive models S-parameters, "
             "which a plane wave does not give; use Solver/sweep uniform");
    EM_CHECK(r->setup.has_pml, EM_ERR_INPUT,
             "Excitation/type planewave: case %s has no PML; the scattered field needs one "
             "around the scatterer (volumes named pml*)",
             em_case_path(c));
    /* the background: the medium the PML continues */
    const em_medium *bg = NULL;
    for (int g = 0; g < m->n_group; g++)
      if (m->group[g].dim == 3 && r->setup.medium[g].is_pml) {
        EM_CHECK(
            !bg || (bg->eps_r == r->setup.medium[g].eps_r && bg->mu_r == r->setup.medium[g].mu_r),
            EM_ERR_INPUT, "Excitation/type planewave: the PML volumes differ in medium");
        bg = &r->setup.medium[g];
      }
    EM_CHECK(cimag(bg->eps_r) == 0 && cimag(bg->mu_r) == 0, EM_ERR_INPUT,
             "Excitation/type planewave: the background (the PML's medium) must be lossless");
  }
  EM_CHECK(!ff->enabled || r->setup.has_pml || ff->group >= 0 || r->cfg.outer_abc, EM_ERR_INPUT,
           "Farfield/compute on: case %s is closed by PEC (no PML, no Boundary/outer abc) and "
           "has no surface group 'nf2ff': nothing radiates",
           em_case_path(c));
  if (ff->enabled) {
    /* the NF2FF surface exists and lies in one lossless medium: checked
     * now, before anything is solved or written */
    em_nf2ff_opts o = {
        .group = ff->group, .medium = r->setup.medium, .k0 = 1, .half_space = ff->half_space};
    for (int d = 0; d < 3; d++) o.mirror[d] = ff->mirror[d], o.mirror_at[d] = ff->mirror_at[d];
    int32_t n = 0, *face = NULL, *tin = NULL;
    double *nrm = NULL;
    em_err err = em_nf2ff_surface(m, &o, &n, &face, &tin, &nrm);
    em_free(&face);
    em_free(&tin);
    em_free(&nrm);
    EM_TRY(err);
  }
  int nf = r->cfg.n_freq;
  EM_TRY(em_calloc(&ff->ant, (size_t)nf, sizeof *ff->ant, "antenna figures"));
  EM_TRY(em_calloc(&ff->rcs_back, (size_t)nf, sizeof *ff->rcs_back, "RCS"));
  EM_TRY(em_calloc(&ff->rcs_fwd, (size_t)nf, sizeof *ff->rcs_fwd, "RCS"));
  for (int i = 0; i < nf; i++) ff->rcs_back[i] = ff->rcs_fwd[i] = NAN;
  if (ff->planewave && r->setup.n_port) {
    EM_TRY(em_calloc(&ff->rx, (size_t)nf * r->setup.n_port, sizeof *ff->rx, "received"));
    EM_TRY(
        em_calloc(&ff->rx_power, (size_t)nf * r->setup.n_port, sizeof *ff->rx_power, "received"));
    em_log_info(r->log,
                "plane wave: the %d port(s) are matched loads (their reference "
                "impedance; wave ports their mode)",
                r->setup.n_port);
  }
  if (ff->enabled)
    em_log_info(r->log, "far field: %s, grid %g x %g deg%s",
                ff->group >= 0 ? m->group[ff->group].name : "boundary of the non-PML region",
                ff->theta_step, ff->phi_step, ff->planewave ? ", plane-wave excitation" : "");
  return EM_OK;
}

void em_app_ff_free(em_app_ff *ff) {
  em_free(&ff->rx);
  em_free(&ff->rx_power);
  em_free(&ff->ant);
  em_free(&ff->rcs_back);
  em_free(&ff->rcs_fwd);
}

em_err em_app_ff_problem(em_run *r, double k0, em_problem *prob) {
  em_app_ff *ff = &r->ff;
  if (!ff->planewave) return EM_OK;
  em_cplx eps = 1, mu = 1;
  for (int g = 0; g < r->mesh->n_group; g++)
    if (r->mesh->group[g].dim == 3 && r->setup.medium[g].is_pml) {
      eps = r->setup.medium[g].eps_r;
      mu = r->setup.medium[g].mu_r;
    }
  EM_TRY(em_planewave_make(k0, ff->pw_theta, ff->pw_phi, ff->pw_psi, ff->pw_amp, eps, mu, &ff->pw));
  ff->sc = (em_scatter){&ff->pw, r->mesh, r->setup.medium, &r->setup.pml};
  prob->n_rhs = 1;
  prob->tet_source = em_scatter_source;
  prob->tet_source_ctx = &ff->sc;
  prob->dirichlet = em_scatter_dirichlet;
  prob->dirichlet_ctx = &ff->sc;
  return EM_OK;
}

em_err em_app_ff_port_source(em_run *r, double k0, int port, em_robin *rb) {
  (void)k0; /* the plane wave of this frequency is in ff->sc (em_app_ff_problem) */
  em_scatter_port *sp = &r->ff.sport[port];
  *sp = (em_scatter_port){&r->ff.sc, &r->setup.port[port], rb->gamma};
  rb->g = em_scatter_port_source;
  rb->g_ctx = sp;
  rb->rhs = 0;
  return EM_OK;
}

static em_err incident_e(void *ctx, const double x[3], em_cplx E[3]) {
  em_planewave_field(ctx, x, E, NULL);
  return EM_OK;
}

em_err em_app_ff_received(em_run *r, int fi, double k0, const em_cplx *x, const em_cplx *fixed) {
  em_app_ff *ff = &r->ff;
  int np = r->setup.n_port;
  em_cplx eps = 1, mu = 1;
  for (int g = 0; g < r->mesh->n_group; g++)
    if (r->mesh->group[g].dim == 3 && r->setup.medium[g].is_pml)
      eps = r->setup.medium[g].eps_r, mu = r->setup.medium[g].mu_r;
  em_planewave pw;
  EM_TRY(em_planewave_make(k0, ff->pw_theta, ff->pw_phi, ff->pw_psi, ff->pw_amp, eps, mu, &pw));
  for (int j = 0; j < np; j++) {
    const em_port *p = &r->setup.port[j];
    em_cplx cs, ci;
    EM_TRY(em_port_measure(p, r->mesh, r->dofs, x, fixed, &cs));
    EM_TRY(em_port_measure_fn(p, r->mesh, r->cfg.order, incident_e, &pw, &ci));
    em_cplx c = cs + ci; /* the total field's mode amplitude / load voltage */
    double R = p->z_ref > 0 ? p->z_ref : 50;
    ff->rx[(size_t)fi * np + j] = c;
    ff->rx_power[(size_t)fi * np + j] =
        p->type == EM_PORT_LUMPED ? creal(c * conj(c)) / (2 * R) : creal(c * conj(c));
    em_log_info(r->log, "%s receives %.6g W (%s %.6g%+.6gj)", p->name,
                ff->rx_power[(size_t)fi * np + j],
                p->type == EM_PORT_LUMPED ? "load voltage, V" : "outgoing mode, sqrt(W)", creal(c),
                cimag(c));
  }
  char path[1400];
  snprintf(path, sizeof path, "%s/received.csv", r->out_dir);
  em_outfile o;
  EM_TRY(em_outfile_open(&o, path, 0));
  fprintf(o.f, "# what the port loads receive from the plane wave (%g V/m)\n", ff->pw_amp);
  fprintf(o.f, "f_Hz,port,re,im,P_W\n");
  for (int i = 0; i <= fi; i++)
    for (int j = 0; j < np; j++)
      fprintf(o.f, "%.17g,%s,%.17g,%.17g,%.17g\n", r->cfg.freq[i], r->setup.port[j].name,
              creal(ff->rx[(size_t)i * np + j]), cimag(ff->rx[(size_t)i * np + j]),
              ff->rx_power[(size_t)i * np + j]);
  EM_TRY(em_outfile_commit(&o));
  if (fi == 0) {
    EM_CHECK(r->n_files < 64, EM_ERR_INTERNAL, "too many output files");
    snprintf(r->files[r->n_files++], sizeof r->files[0], "received.csv");
  }
  return EM_OK;
}

static em_err out_file(em_run *r, const char *name, char *path, size_t n) {
  int k = snprintf(path, n, "%s/%s", r->out_dir, name);
  EM_CHECK(k > 0 && (size_t)k < n, EM_ERR_INPUT, "output path %s/%s is too long", r->out_dir, name);
  EM_CHECK(r->n_files < 64, EM_ERR_INTERNAL, "too many output files");
  snprintf(r->files[r->n_files++], sizeof r->files[0], "%.255s", name);
  return EM_OK;
}

static double db10(double v) {
  return 10 * log10(v);
}

/* The pattern as a surface: realized gain in dBi (directivity without a
 * known accepted power), or the RCS in dBsm. */
static em_err write_vtk(em_run *r, const char *name, const em_ff_grid *g, const em_nf2ff *nf,
                        const em_antenna *a, double e0) {
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
  em_err err = out_file(r, name, path, sizeof path);
  if (!err)
    err = em_ff_vtk_write(path, g, v,
                          !a     ? "rcs_dBsm"
                          : gain ? "realized_gain_dBi"
                                 : "directivity_dBi",
                          40, nf->centre, nf->radius, em_case_name(r->cs));
  em_free(&v);
  return err;
}

static em_err antenna(em_run *r, int fi, const em_nf2ff *nf, const em_ff_grid *g, const em_cplx *x,
                      const em_cplx *fixed, const em_cplx *meas, double k0) {
  em_app_ff *ff = &r->ff;
  int np = r->setup.n_port;
  /* accepted power: the Poynting flux through the port plane (what the mesh
   * carries in; P_rad + P_loss balance it), and the port's own count
   * P_inc (1 - |S11|^2) from the analytic mode, which a faceted coax misses
   * by a few % (docs/farfield.md) */
  double p_inc, p_acc_s11, p_loss, flux;
  em_port_power(&r->setup.port[0], meas[0], &p_inc, &p_acc_s11);
  em_cplx s11 = r->S[(size_t)fi * np * np];
  double mismatch = 1 - creal(s11 * conj(s11));
  EM_TRY(em_field_loss(r->mesh, r->dofs, x, fixed, r->setup.medium, k0, &p_loss));
  double p_metal, p_lumped; /* surface impedances and lumped sheets (model/case_surface.c) */
  EM_TRY(em_setup_surface_loss(&r->setup, r->mesh, r->dofs, x, fixed, k0, EM_SURFACE_IMPEDANCE,
                               &p_metal));
  EM_TRY(em_setup_surface_loss(&r->setup, r->mesh, r->dofs, x, fixed, k0, EM_SURFACE_LUMPED,
                               &p_lumped));
  p_loss += p_metal + p_lumped;
  EM_TRY(em_port_flux(&r->setup.port[0], r->mesh, r->dofs, x, fixed, &flux));
  em_antenna *a = &ff->ant[fi];
  EM_TRY(em_antenna_figures(nf, g, flux, mismatch, p_loss, a));
  a->p_acc_s11 = p_acc_s11;
  a->p_loss_metal = p_metal;
  a->p_loss_lumped = p_lumped;
  char name[64], path[1400], tag[32];
  double f = r->cfg.freq[fi];
  em_app_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "farfield_%s.csv", tag);
  EM_TRY(out_file(r, name, path, sizeof path));
  EM_TRY(em_farfield_csv_write(path, f, g, nf, a));
  snprintf(name, sizeof name, "pattern_%s.csv", tag);
  EM_TRY(out_file(r, name, path, sizeof path));
  EM_TRY(em_pattern_cuts_write(path, f, 1, nf, a));
  snprintf(name, sizeof name, "pattern_%s.vtk", tag);
  EM_TRY(write_vtk(r, name, g, nf, a, 0));
  /* antenna.csv holds the frequencies done so far (rewritten whole) */
  snprintf(path, sizeof path, "%s/antenna.csv", r->out_dir);
  EM_TRY(em_antenna_csv_write(path, fi + 1, r->cfg.freq, ff->ant));
  if (fi == 0) {
    EM_CHECK(r->n_files < 64, EM_ERR_INTERNAL, "too many output files");
    snprintf(r->files[r->n_files++], sizeof r->files[0], "antenna.csv");
  }
  em_log_verbose(r->log,
                 "far field: P_rad %.4g W (surface) / %.4g W (far field), P_acc %.4g W (port "
                 "flux; P_inc (1 - |S11|^2) = %.4g W), P_loss %.3g W (metal %.3g W, lumped "
                 "%.3g W); D %.2f dBi, G %.2f dBi, "
                 "realized %.2f dBi at (%.1f, %.1f) deg, efficiency %.2f%%, power balance %.4f",
                 a->p_surface, a->p_far, flux, p_acc_s11, p_loss, p_metal, p_lumped,
                 db10(a->directivity), db10(a->gain), db10(a->realized_gain), a->theta_max,
                 a->phi_max, 100 * a->efficiency, a->balance);
  return EM_OK;
}

static em_err scattering(em_run *r, int fi, const em_nf2ff *nf, const em_ff_grid *g) {
  em_app_ff *ff = &r->ff;
  char name[64], path[1400], tag[32];
  double f = r->cfg.freq[fi], e0 = ff->pw_amp;
  em_app_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "rcs_%s.csv", tag);
  EM_TRY(out_file(r, name, path, sizeof path));
  EM_TRY(em_rcs_csv_write(path, f, g, e0));
  snprintf(name, sizeof name, "rcs_%s.vtk", tag);
  EM_TRY(write_vtk(r, name, g, nf, NULL, e0));
  /* back: towards where the wave comes from; forward: where it goes */
  const double *k = ff->pw.khat;
  double th = acos(fmax(-1.0, fmin(1.0, k[2]))), ph = atan2(k[1], k[0]);
  em_cplx ft, fp;
  em_nf2ff_far(nf, M_PI - th, ph + M_PI, &ft, &fp);
  ff->rcs_back[fi] = 4 * M_PI * (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (e0 * e0);
  em_nf2ff_far(nf, th, ph, &ft, &fp);
  ff->rcs_fwd[fi] = 4 * M_PI * (creal(ft * conj(ft)) + creal(fp * conj(fp))) / (e0 * e0);
  em_log_verbose(r->log,
                 "far field: RCS back %.4g m^2 (%.2f dBsm), forward %.4g m^2; scattered "
                 "power %.4g W (surface) / %.4g W (far field)",
                 ff->rcs_back[fi], db10(ff->rcs_back[fi]), ff->rcs_fwd[fi], nf->p_surface,
                 em_nf2ff_power(nf));
  return EM_OK;
}

em_err em_app_ff_frequency(em_run *r, int fi, double k0, const em_cplx *x, const em_cplx *fixed,
                           const em_cplx *meas) {
  em_app_ff *ff = &r->ff;
  if (!ff->enabled) return EM_OK;
  em_nf2ff_opts o = {
      .group = ff->group, .medium = r->setup.medium, .k0 = k0, .half_space = ff->half_space};
  for (int d = 0; d < 3; d++) o.mirror[d] = ff->mirror[d], o.mirror_at[d] = ff->mirror_at[d];
  o.volume = ff->volume; /* Farfield/method */
  o.volume_shift = 1;
  em_nf2ff *nf = NULL;
  em_ff_grid g = {0};
  em_err err = EM_OK;
  double t0 = em_wtime();
  EM_TRY(em_nf2ff_create(r->mesh, r->dofs, x, fixed, &o, &nf));
  EM_TRY_GOTO(err, em_ff_grid_eval(nf, ff->theta_step, ff->phi_step, &g), done);
  if (ff->planewave)
    EM_TRY_GOTO(err, scattering(r, fi, nf, &g), done);
  else
    EM_TRY_GOTO(err, antenna(r, fi, nf, &g, x, fixed, meas, k0), done);
  em_log_verbose(r->log, "far field: %d faces, %.2f s", nf->n_face, em_wtime() - t0);
done:
  em_ff_grid_free(&g);
  em_nf2ff_destroy(&nf);
  return err;
}

void em_app_ff_print(const em_run *r, FILE *f) {
  const em_app_ff *ff = &r->ff;
  if (!ff->enabled || !r->n_done) return;
  if (ff->planewave) {
    fprintf(f, "# %s: bistatic RCS, plane wave (%g V/m)\n", em_case_name(r->cs), ff->pw_amp);
    fprintf(f, "# f_GHz        back_m2      back_dBsm  forward_m2\n");
    for (int i = 0; i < r->n_done; i++)
      fprintf(f, "%-14.9g %-12.6g %-10.3f %-12.6g\n", r->cfg.freq[i] * 1e-9, ff->rcs_back[i],
              db10(ff->rcs_back[i]), ff->rcs_fwd[i]);
    return;
  }
  fprintf(f, "# %s: antenna (port 1 driven)\n", em_case_name(r->cs));
  fprintf(f, "# f_GHz        D_dBi   G_dBi   Gr_dBi  eff_%%   theta  phi    F/B_dB  BW_E  BW_H\n");
  for (int i = 0; i < r->n_done; i++) {
    const em_antenna *a = &ff->ant[i];
    fprintf(f, "%-14.9g %-7.2f %-7.2f %-7.2f %-7.1f %-6.1f %-6.1f %-7.1f %-5.1f %-5.1f\n",
            r->cfg.freq[i] * 1e-9, db10(a->directivity), db10(a->gain), db10(a->realized_gain),
            100 * a->efficiency, a->theta_max, a->phi_max, a->front_to_back, a->bw_e, a->bw_h);
  }
}
