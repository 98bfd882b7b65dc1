/* array.c - the array outputs in the pipeline (docs/farfield.md, "Arrays";
 * the physics in post/array.c): Array/ * read once; per frequency the
 * embedded element pattern of every port and the pattern of the array
 * excitation (array_<f>GHz.csv), the array's figures (array.csv, one row
 * per frequency, antenna.csv's columns), the active reflection of every
 * port against the scan angle (active.csv). */
#include <math.h>
#include <string.h>

#include "app_run.h"

em_err em_app_array_setup(em_run *r) {
  em_app_array *A = &r->ff.arr;
  const em_case *c = r->cs;
  const em_setup *s = &r->setup;
  int np = s->n_port, wave = 1;
  const char *w;
  double th, ph;
  EM_TRY(em_case_string(c, "Array/weights", &w));
  EM_TRY(em_case_number(c, "Array/scan_theta", &th));
  EM_TRY(em_case_number(c, "Array/scan_phi", &ph));
  EM_TRY(em_case_number(c, "Array/scan_step", &A->scan_step));
  EM_CHECK(isfinite(th) && th >= 0 && th <= 180 && isfinite(ph), EM_ERR_INPUT,
           "Array/scan_theta = %g, Array/scan_phi = %g deg: theta in 0..180, phi finite", th, ph);
  double ns = 90 / A->scan_step;
  EM_CHECK(isfinite(ns) && A->scan_step > 0 && fabs(ns - round(ns)) < 1e-9 * ns, EM_ERR_INPUT,
           "Array/scan_step = %g deg must divide 90 (e.g. 1, 2, 5)", A->scan_step);
  for (int p = 0; p < np; p++) wave &= s->port[p].type != EM_PORT_LUMPED;
  int given = w[strspn(w, " \t")] != '\0';
  if (given) {
    EM_CHECK(np >= 2 && wave, EM_ERR_INPUT,
             "Array/weights \"%s\": the array outputs need two or more wave ports (coax or "
             "waveguide); case %s has %d port(s)%s",
             w, em_case_path(c), np, np >= 2 ? ", some of them lumped" : "");
    EM_TRY(em_array_parse_weights(w, np, A->w));
  }
  A->scan = !given;
  A->scan_theta = th * M_PI / 180;
  A->scan_phi = ph * M_PI / 180;
  A->enabled = r->ff.enabled && !r->ff.planewave && np >= 2 && wave;
  if (r->ff.enabled && np >= 2 && !wave)
    em_log_info(r->log, "array outputs: none (they need wave ports; the case has lumped ones)");
  if (!A->enabled) return EM_OK;
  int nf = r->cfg.n_freq;
  EM_TRY(em_calloc(&A->ant, (size_t)nf, sizeof *A->ant, "array figures"));
  EM_TRY(em_calloc(&A->a, (size_t)nf * np, sizeof *A->a, "array weights"));
  if (A->scan)
    em_log_info(r->log, "array: %d ports, scanned to theta %g, phi %g deg", np, th, ph);
  else
    em_log_info(r->log, "array: %d ports, weights %s", np, w);
  return EM_OK;
}

void em_app_array_free(em_app_array *A) {
  em_free(&A->ant);
  em_free(&A->a);
}

static em_err listed(em_run *r, const char *name, char *path, size_t n) {
  int k = snprintf(path, n, "%s/%s", r->out_dir, name);
  EM_CHECK(k > 0 && (size_t)k < n, EM_ERR_INPUT, "output path %s/%s is too long", r->out_dir, name);
  for (int i = 0; i < r->n_files; i++)
    if (!strcmp(r->files[i], name)) return EM_OK;
  EM_CHECK(r->n_files < EM_RUN_MAX_FILES, EM_ERR_INTERNAL, "too many output files");
  snprintf(r->files[r->n_files++], sizeof r->files[0], "%.255s", name);
  return EM_OK;
}

/* The array excitation: its pattern on the grid, ga = sum_i a_i g_i (the
 * embedded patterns, each for a unit wave at its reference plane: exact
 * linearity, so a single weight 1 gives that port's pattern bit for bit),
 * and from its solution x_a the NF2FF, losses and accepted power of the
 * figures in A->ant[fi]. */
static em_err array_field(em_run *r, int fi, const em_nf2ff_opts *o, const em_cplx *x,
                          const em_cplx *fixed, const em_cplx *a, double p_inc, const em_ff_grid *g,
                          em_ff_grid *ga, double *eta) {
  em_app_array *A = &r->ff.arr;
  const em_setup *s = &r->setup;
  int np = s->n_port;
  int32_t n = r->dofs->n_dof;
  em_cplx c[EM_MAX_PORTS], *xa = NULL, b[EM_MAX_PORTS];
  em_nf2ff *nf = NULL;
  em_err err = EM_OK;
  for (int i = 0; i < np; i++) c[i] = a[i] * cexp(I * s->port[i].beta * s->port[i].deembed);
  size_t nd = 2 * (size_t)g[0].n_theta * g[0].n_phi;
  *ga = g[0];
  ga->f = NULL;
  EM_TRY(em_calloc(&ga->f, nd, sizeof *ga->f, "array pattern"));
  for (size_t q = 0; q < nd; q++) {
    em_cplx v = 0;
    for (int i = 0; i < np; i++)
      if (a[i] != 0) v += a[i] * g[i].f[q];
    ga->f[q] = v;
  }
  EM_TRY(em_calloc(&xa, (size_t)n + 1, sizeof *xa, "array solution"));
  em_array_combine(np, n, x, c, xa);
  double p_loss, flux = 0, f1;
  EM_TRY_GOTO(err, em_nf2ff_create(r->mesh, r->dofs, xa, fixed, o, &nf), done);
  EM_TRY_GOTO(err, em_field_loss(r->mesh, r->dofs, xa, fixed, s->medium, o->k0, &p_loss), done);
  for (int i = 0; i < np; i++) { /* accepted: the flux in through every port plane */
    EM_TRY_GOTO(err, em_port_flux(&s->port[i], r->mesh, r->dofs, xa, fixed, &f1), done);
    flux += f1;
  }
  /* the active mismatch: what S reflects of the incident waves */
  const em_cplx *S = r->S + (size_t)fi * np * np;
  double p_ref = 0;
  for (int i = 0; i < np; i++) {
    b[i] = 0;
    for (int j = 0; j < np; j++) b[i] += S[i * np + j] * a[j];
    p_ref += creal(b[i] * conj(b[i]));
  }
  em_antenna *ant = &A->ant[fi];
  EM_TRY_GOTO(err, em_antenna_figures(nf, ga, flux, 1 - p_ref / p_inc, p_loss, ant), done);
  ant->p_acc_s11 = p_inc - p_ref;
  *eta = nf->eta;
  em_log_verbose(r->log,
                 "array: P_inc %.4g W, P_acc %.4g W (S) / %.4g W (port flux), P_rad %.4g W, "
                 "P_loss %.3g W; D %.2f dBi, realized gain %.2f dBi at (%.1f, %.1f) deg",
                 p_inc, p_inc - p_ref, flux, ant->p_far, p_loss, 10 * log10(ant->directivity),
                 10 * log10(ant->realized_gain), ant->theta_max, ant->phi_max);
done:
  em_nf2ff_destroy(&nf);
  em_free(&xa);
  return err;
}

em_err em_app_array_frequency(em_run *r, int fi, const em_nf2ff_opts *o, const em_cplx *x,
                              const em_cplx *fixed, const em_cplx *meas) {
  em_app_array *A = &r->ff.arr;
  const em_setup *s = &r->setup;
  int np = s->n_port;
  int32_t n = r->dofs->n_dof;
  double f = r->cfg.freq[fi], p_inc[EM_MAX_PORTS], pa = 0, eta = 0;
  em_cplx *a = A->a + (size_t)fi * np;
  em_ff_grid g[EM_MAX_PORTS], ga = {0};
  const em_ff_grid *gp[EM_MAX_PORTS];
  em_nf2ff *nf = NULL;
  em_err err = EM_OK;
  double t0 = em_wtime();
  memset(g, 0, sizeof g);
  if (A->scan)
    em_array_scan_weights(np, s->port, o->k0, A->scan_theta, A->scan_phi, a);
  else
    memcpy(a, A->w, (size_t)np * sizeof *a);
  /* the embedded patterns, each for a unit wave at its reference plane */
  for (int i = 0; i < np; i++) {
    double acc;
    em_port_power(&s->port[i], meas[i * np + i], &p_inc[i], &acc);
    pa += creal(a[i] * conj(a[i])) * p_inc[i];
    EM_TRY_GOTO(err, em_nf2ff_create(r->mesh, r->dofs, x + (size_t)i * n, fixed, o, &nf), done);
    EM_TRY_GOTO(err, em_ff_grid_eval(nf, r->ff.theta_step, r->ff.phi_step, &g[i]), done);
    em_nf2ff_destroy(&nf);
    em_cplx u = cexp(I * s->port[i].beta * s->port[i].deembed);
    for (size_t q = 0; q < 2 * (size_t)g[i].n_theta * g[i].n_phi; q++) g[i].f[q] *= u;
    gp[i] = &g[i];
  }
  EM_TRY_GOTO(err, array_field(r, fi, o, x, fixed, a, pa, g, &ga, &eta), done);
  char name[64], path[1400], tag[32];
  em_app_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "array_%s.csv", tag);
  EM_TRY_GOTO(err, listed(r, name, path, sizeof path), done);
  EM_TRY_GOTO(err, em_array_csv_write(path, f, np, gp, p_inc, &ga, a, eta), done);
  /* the tables of every frequency so far, rewritten whole */
  EM_TRY_GOTO(err, listed(r, "array.csv", path, sizeof path), done);
  EM_TRY_GOTO(err, em_antenna_csv_write(path, fi + 1, r->cfg.freq, A->ant), done);
  EM_TRY_GOTO(err, listed(r, "active.csv", path, sizeof path), done);
  EM_TRY_GOTO(err, em_active_csv_write(path, fi + 1, r->cfg.freq, np, s->port, r->S, A->scan_step),
              done);
  em_log_verbose(r->log, "array: %d embedded patterns and the array's, %.2f s", np,
                 em_wtime() - t0);
done:
  em_nf2ff_destroy(&nf);
  for (int i = 0; i < np; i++) em_ff_grid_free(&g[i]);
  em_ff_grid_free(&ga);
  return err;
}

void em_app_array_print(const em_run *r, FILE *f) {
  const em_app_array *A = &r->ff.arr;
  int np = r->setup.n_port;
  if (!A->enabled || !r->n_done) return;
  if (A->scan)
    fprintf(f, "# %s: array scanned to theta %g, phi %g deg (every port driven, 1 W each)\n",
            em_case_name(r->cs), A->scan_theta * 180 / M_PI, A->scan_phi * 180 / M_PI);
  else {
    fprintf(f, "# %s: array, weights", em_case_name(r->cs));
    for (int i = 0; i < np; i++)
      fprintf(f, "%s%.4g@%.4g", i ? ", " : " ", cabs(A->w[i]), carg(A->w[i]) * 180 / M_PI);
    fputc('\n', f);
  }
  fprintf(f, "# f_GHz        D_dBi   G_dBi   Gr_dBi  eff_%%   theta  phi    worst |Gamma| dB\n");
  for (int k = 0; k < r->n_done; k++) {
    const em_antenna *a = &A->ant[k];
    em_cplx gam[EM_MAX_PORTS];
    em_array_active(np, r->S + (size_t)k * np * np, A->a + (size_t)k * np, gam);
    double worst = -INFINITY;
    for (int i = 0; i < np; i++)
      if (isfinite(cabs(gam[i]))) worst = fmax(worst, 20 * log10(cabs(gam[i])));
    fprintf(f, "%-14.9g %-7.2f %-7.2f %-7.2f %-7.1f %-6.1f %-6.1f %.2f\n", r->cfg.freq[k] * 1e-9,
            10 * log10(a->directivity), 10 * log10(a->gain), 10 * log10(a->realized_gain),
            100 * a->efficiency, a->theta_max, a->phi_max, worst);
  }
}
