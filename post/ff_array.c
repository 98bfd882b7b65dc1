/* ff_array.c - the array outputs of a run (docs/farfield.md, "Arrays"; the
 * physics in array.c, the settings in model/config_array.c): per
 * frequency the embedded element pattern of every port and the pattern of
 * the array excitation (array_<f>GHz.csv), the array's figures (array.csv,
 * one row per frequency, antenna.csv's columns), the active reflection of
 * every port against the scan angle (active.csv); their table on stdout. */
#include <math.h>
#include <string.h>

#include "run_impl.h"

/* The path of output `name`, listed once however often it is rewritten. */
static em_err listed(em_outdir *out, const char *name, char *path, size_t n) {
  EM_TRY(em_outdir_path(out, name, path, n));
  for (int i = 0; i < out->n_files; i++)
    if (!strcmp(out->files[i], name)) return EM_OK;
  return em_outdir_add(out, name);
}

/* The array excitation: its pattern on the grid, ga = sum_i a_i g_i (the
 * embedded patterns, each for a unit wave at its reference plane: exact
 * linearity, so a single weight 1 gives that port's pattern bit for bit),
 * and from its solution x_a the NF2FF, losses and accepted power of the
 * figures in r->arr_ant[fi]. */
static em_err array_field(const em_model *m, em_results *r, const em_log *log, int fi,
                          const em_nf2ff_opts *o, const em_cplx *x, const em_cplx *fixed,
                          const em_cplx *a, double p_inc, const em_ff_grid *g, em_ff_grid *ga,
                          double *eta) {
  const em_setup *s = &m->setup;
  int np = s->n_port;
  int32_t n = m->dofs->n_dof;
  em_cplx c[EM_MAX_PORTS], *xa = NULL, b[EM_MAX_PORTS];
  em_nf2ff *nf = NULL;
  em_err err = EM_OK;
  /* x's columns are the excited ports' (Excitation/ports): every port of
     nonzero weight is one (model/excite.c) */
  uint32_t ex = em_post_excited(m);
  int ne = em_excite_count(ex);
  for (int k = 0; k < ne; k++) {
    int i = em_excite_port(ex, k);
    c[k] = a[i] * cexp(I * s->port[i].beta * s->port[i].deembed);
  }
  const em_ff_grid *g0 = &g[em_excite_port(ex, 0)];
  size_t nd = 2 * (size_t)g0->n_theta * g0->n_phi;
  *ga = *g0;
  ga->f = NULL;
  EM_TRY(em_calloc(&ga->f, nd, sizeof *ga->f, "array pattern"));
  for (size_t q = 0; q < nd; q++) {
    em_cplx v = 0;
    for (int i = 0; i < np; i++)
      if (a[i] != 0 && g[i].f) v += a[i] * g[i].f[q];
    ga->f[q] = v;
  }
  EM_TRY(em_calloc(&xa, (size_t)n + 1, sizeof *xa, "array solution"));
  em_array_combine(ne, n, x, c, xa);
  double p_loss, flux = 0, f1;
  EM_TRY_GOTO(err, em_nf2ff_create(m->mesh, m->dofs, xa, fixed, o, &nf), done);
  EM_TRY_GOTO(err, em_field_loss(m->mesh, m->dofs, xa, fixed, s->medium, o->k0, &p_loss), done);
  for (int i = 0; i < np; i++) { /* accepted: the flux in through every port plane */
    EM_TRY_GOTO(err, em_port_flux(&s->port[i], m->mesh, m->dofs, xa, fixed, &f1), done);
    flux += f1;
  }
  /* the active mismatch: what S reflects of the incident waves */
  const em_cplx *S = r->S + (size_t)fi * np * np;
  double p_ref = 0;
  for (int i = 0; i < np; i++) { /* the columns of zero weight need not be solved */
    b[i] = 0;
    for (int j = 0; j < np; j++)
      if (a[j] != 0) b[i] += S[i * np + j] * a[j];
    p_ref += creal(b[i] * conj(b[i]));
  }
  em_antenna *ant = &r->arr_ant[fi];
  EM_TRY_GOTO(err, em_antenna_figures(nf, ga, flux, 1 - p_ref / p_inc, p_loss, ant), done);
  ant->p_acc_s11 = p_inc - p_ref;
  *eta = nf->eta;
  em_log_verbose(log,
                 "array: P_inc %.4g W, P_acc %.4g W (S) / %.4g W (port flux), P_rad %.4g W, "
                 "P_loss %.3g W; D %.2f dBi, realized gain %.2f dBi at (%.1f, %.1f) deg",
                 p_inc, p_inc - p_ref, flux, ant->p_far, p_loss, 10 * log10(ant->directivity),
                 10 * log10(ant->realized_gain), ant->theta_max, ant->phi_max);
done:
  em_nf2ff_destroy(&nf);
  em_free(&xa);
  return err;
}

em_err em_post_array_frequency(const em_model *m, em_results *r, em_outdir *out, const em_log *log,
                               int fi, const em_nf2ff_opts *o, const em_cplx *x,
                               const em_cplx *fixed, const em_cplx *meas) {
  const em_array_config *A = &m->ff.arr;
  const em_setup *s = &m->setup;
  int np = s->n_port;
  int32_t n = m->dofs->n_dof;
  double f = r->freq[fi], p_inc[EM_MAX_PORTS], pa = 0, eta = 0;
  em_cplx *a = r->arr_a + (size_t)fi * np;
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
  /* the embedded patterns of the excited ports (Excitation/ports: x's
     columns), each for a unit wave at its reference plane */
  uint32_t ex = em_post_excited(m);
  int all = ex == em_excite_all(np), arr = all || !A->scan; /* the scan drives every port */
  for (int i = 0; i < np; i++) {
    double acc;
    int col = em_excite_column(ex, i);
    gp[i] = NULL;
    p_inc[i] = 1;
    if (col < 0) continue;
    em_port_power(&s->port[i], meas[i * np + i], &p_inc[i], &acc);
    pa += creal(a[i] * conj(a[i])) * p_inc[i];
    EM_TRY_GOTO(err, em_nf2ff_create(m->mesh, m->dofs, x + (size_t)col * n, fixed, o, &nf), done);
    EM_TRY_GOTO(err, em_ff_grid_eval(nf, m->ff.theta_step, m->ff.phi_step, &g[i]), done);
    em_nf2ff_destroy(&nf);
    em_cplx u = cexp(I * s->port[i].beta * s->port[i].deembed);
    for (size_t q = 0; q < 2 * (size_t)g[i].n_theta * g[i].n_phi; q++) g[i].f[q] *= u;
    gp[i] = &g[i];
  }
  if (arr) {
    EM_TRY_GOTO(err, array_field(m, r, log, fi, o, x, fixed, a, pa, g, &ga, &eta), done);
  } else { /* no array pattern: the embedded ones alone (eta: the medium's) */
    EM_TRY_GOTO(err, em_nf2ff_create(m->mesh, m->dofs, x, fixed, o, &nf), done);
    eta = nf->eta;
    em_nf2ff_destroy(&nf);
  }
  char name[64], path[1400], tag[32];
  em_post_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "array_%s.csv", tag);
  EM_TRY_GOTO(err, listed(out, name, path, sizeof path), done);
  EM_TRY_GOTO(err, em_array_csv_write(path, f, np, gp, p_inc, arr ? &ga : NULL, a, eta), done);
  /* the tables of every frequency so far, rewritten whole */
  if (arr) {
    EM_TRY_GOTO(err, listed(out, "array.csv", path, sizeof path), done);
    EM_TRY_GOTO(err, em_antenna_csv_write(path, fi + 1, r->freq, r->arr_ant), done);
  }
  if (all) { /* the active reflection needs every column of S */
    EM_TRY_GOTO(err, listed(out, "active.csv", path, sizeof path), done);
    EM_TRY_GOTO(err, em_active_csv_write(path, fi + 1, r->freq, np, s->port, r->S, A->scan_step),
                done);
  }
  em_log_verbose(log, "array: %d embedded patterns%s, %.2f s", em_excite_count(ex),
                 arr ? " and the array's" : "", em_wtime() - t0);
done:
  em_nf2ff_destroy(&nf);
  for (int i = 0; i < np; i++) em_ff_grid_free(&g[i]);
  em_ff_grid_free(&ga);
  return err;
}

void em_post_array_print(const em_model *m, const em_results *r, FILE *f) {
  const em_array_config *A = &m->ff.arr;
  int np = m->setup.n_port, all = em_post_excited(m) == em_excite_all(np);
  if (!A->enabled || !r->n_done || (!all && A->scan)) return; /* no array pattern */
  if (A->scan)
    fprintf(f, "# %s: array scanned to theta %g, phi %g deg (every port driven, 1 W each)\n",
            em_case_name(m->cs), A->scan_theta * 180 / M_PI, A->scan_phi * 180 / M_PI);
  else {
    fprintf(f, "# %s: array, weights", em_case_name(m->cs));
    for (int i = 0; i < np; i++)
      fprintf(f, "%s%.4g@%.4g", i ? ", " : " ", cabs(A->w[i]), carg(A->w[i]) * 180 / M_PI);
    fputc('\n', f);
  }
  fprintf(f, "# f_GHz        D_dBi   G_dBi   Gr_dBi  eff_%%   theta  phi    worst |Gamma| dB\n");
  for (int k = 0; k < r->n_done; k++) {
    const em_antenna *a = &r->arr_ant[k];
    em_cplx gam[EM_MAX_PORTS];
    em_array_active(np, r->S + (size_t)k * np * np, r->arr_a + (size_t)k * np, gam);
    double worst = all ? -INFINITY : NAN; /* a subset excited: no active reflection */
    for (int i = 0; i < np && all; i++)
      if (isfinite(cabs(gam[i]))) worst = fmax(worst, 20 * log10(cabs(gam[i])));
    char w[32] = "- (not all ports driven)";
    if (all) snprintf(w, sizeof w, "%.2f", worst);
    fprintf(f, "%-14.9g %-7.2f %-7.2f %-7.2f %-7.1f %-6.1f %-6.1f %s\n", r->freq[k] * 1e-9,
            10 * log10(a->directivity), 10 * log10(a->gain), 10 * log10(a->realized_gain),
            100 * a->efficiency, a->theta_max, a->phi_max, w);
  }
}
