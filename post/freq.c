/* freq.c - the outputs of one frequency, the one entry point a sweep calls
 * after each solve (em_post_frequency): what the ports measure, S and Zin
 * with their references and flags, the far field, the fields file, the line
 * probe, the PML's reflection estimate.  Also the pieces an adaptive sweep
 * uses alone (measurements, S from them). */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "run_impl.h"

static em_err ports_at(const em_model *m, double k0) {
  for (int i = 0; i < m->setup.n_port; i++) EM_TRY(em_port_set_frequency(&m->setup.port[i], k0));
  return EM_OK;
}

em_err em_post_measure(const em_model *m, const em_cplx *x, const em_cplx *fixed, em_cplx *meas) {
  int np = m->setup.n_port;
  int32_t n = m->dofs->n_dof;
  uint32_t ex = em_post_excited(m);
  memset(meas, 0, (size_t)np * np * sizeof *meas); /* rows of ports not excited: 0 */
  for (int c = 0; c < em_excite_count(ex); c++) {
    int e = em_excite_port(ex, c); /* column c of x: port e driven */
    for (int j = 0; j < np; j++)
      EM_TRY(em_port_measure(&m->setup.port[j], m->mesh, m->dofs, x + (size_t)c * n, fixed,
                             &meas[e * np + j]));
  }
  return EM_OK;
}

uint32_t em_post_excited(const em_model *m) {
  return m->excite ? m->excite : em_excite_all(m->setup.n_port);
}

/* S, Zin, the references of row fi (each row keeps its own: ports.csv,
 * Touchstone) and the flags, the ports already at fi's frequency. */
static em_err row(const em_model *m, em_results *res, const em_log *log, int fi,
                  const em_cplx *meas) {
  int np = m->ff.planewave ? 0 : m->setup.n_port; /* a plane wave has no S */
  if (np) {
    EM_TRY(em_port_sparams_cols(np, m->setup.port, em_post_excited(m), meas,
                                res->S + (size_t)fi * np * np, res->zref,
                                res->zin + (size_t)fi * np));
    memcpy(res->zport + (size_t)fi * np, res->zref, (size_t)np * sizeof *res->zref);
  }
  em_post_flag(res, log, fi);
  return EM_OK;
}

em_err em_post_ports(const em_model *m, em_results *res, const em_log *log, int fi,
                     const em_cplx *meas) {
  EM_TRY(ports_at(m, 2 * M_PI * res->freq[fi] / EM_C0));
  return row(m, res, log, fi, meas);
}

em_err em_post_sparams_at(const em_model *m, double f, const em_cplx *y, em_cplx *S) {
  double zref[EM_MAX_PORTS];
  em_cplx zin[EM_MAX_PORTS];
  EM_TRY(ports_at(m, 2 * M_PI * f / EM_C0));
  return em_port_sparams_cols(m->setup.n_port, m->setup.port, em_post_excited(m), y, S, zref, zin);
}

/* fields_<f>.vtk: with Output/fields all, first (fi 0) or middle (n / 2).
 * A frequency that did not converge and whose field holds no number is
 * flagged already: no file, a warning (issue 32). */
static int writes_fields(const em_run_config *cfg, int fi) {
  return cfg->fields == 2 || (cfg->fields == 1 && fi == 0) ||
         (cfg->fields == 3 && fi == cfg->n_freq / 2);
}

static em_err line_file(const em_model *m, em_outdir *out, double f, const em_cplx *x,
                        const em_cplx *fixed) {
  char name[64], path[1200], tag[32];
  em_post_freq_tag(f, tag, sizeof tag);
  snprintf(name, sizeof name, "line_%s.csv", tag);
  EM_TRY(em_outdir_path(out, name, path, sizeof path));
  EM_TRY(em_post_line_write(m, f, x, fixed, path));
  return em_outdir_add(out, name);
}

em_err em_post_frequency(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                         int fi, const em_cplx *x, const em_cplx *fixed) {
  em_err err = EM_OK;
  const em_run_config *cfg = &m->cfg;
  em_freq_result *fr = &res->fr[fi];
  double f = res->freq[fi], k0 = 2 * M_PI * f / EM_C0;
  int np = m->ff.planewave ? 0 : m->setup.n_port; /* a plane wave's ports: its loads */
  em_cplx *meas = NULL;
  em_post_est *est = NULL;
#ifdef _OPENMP
  int t_all = omp_get_max_threads(); /* the caller's, restored at the end */
#endif
  EM_TRY(ports_at(m, k0));
  double t0 = em_wtime();
  em_stage_begin(log, EM_STAGE_POST); /* with the far field and the files as stages inside */
  EM_TRY_GOTO(err, em_calloc(&meas, (size_t)np * np + 1, sizeof *meas, "port measurements"), done);
  if (np) EM_TRY_GOTO(err, em_post_measure(m, x, fixed, meas), done);
  if (m->ff.planewave && m->setup.n_port) /* what the loads receive: received.c */
    EM_TRY_GOTO(err, em_post_received(m, res, out, log, fi, k0, x, fixed), done);
  EM_TRY_GOTO(err, row(m, res, log, fi, meas), done);
  /* the fields file's error estimate beside the far field and the fields
     file's sampling, on most of the cores (fields_est.c) */
  if (writes_fields(cfg, fi)) est = em_post_est_start(m, log, f, x, fixed);
#ifdef _OPENMP
  if (est) omp_set_num_threads(em_post_est_share(est, NULL)); /* back in em_post_fields, below */
#endif
  em_stage_begin(log, EM_STAGE_FARFIELD);
  err = em_post_ff_frequency(m, res, out, log, fi, k0, x, fixed, np ? meas : NULL);
  em_stage_end(log, EM_STAGE_FARFIELD, NULL);
  EM_TRY_GOTO(err, err, done);
  if (writes_fields(cfg, fi)) { /* E, H, S, J_s, the plane: post/fields.c */
    em_stage_begin(log, EM_STAGE_WRITING);
    err = em_post_fields(m, fr, out, log, f, x, fixed, &est);
    em_stage_end(log, EM_STAGE_WRITING, "%s", fr->fields);
    EM_TRY_GOTO(err, err, done);
  }
#ifdef _OPENMP
  omp_set_num_threads(t_all);
#endif
  fr->p_metal = fr->p_lumped = NAN; /* the power the surface boundaries take (model/) */
  for (int i = 0; i < m->setup.n_surface; i++) {
    double p = 0;
    const em_surface *sf = &m->setup.surface[i];
    EM_TRY_GOTO(err, em_surface_loss(sf, m->mesh, m->dofs, x, fixed, k0, &p), done);
    double *to = sf->kind == EM_SURFACE_IMPEDANCE ? &fr->p_metal : &fr->p_lumped;
    *to = isfinite(*to) ? *to + p : p;
  }
  if (cfg->line_points > 0) EM_TRY_GOTO(err, line_file(m, out, f, x, fixed), done);
  fr->pml_wall = em_setup_pml_wall(m->mesh, m->dofs, &m->setup, x, fixed); /* model/ */
  if (isfinite(fr->pml_wall))
    em_log_info(log,
                "PML: |E|^2 at the outer wall / at the interface = %.2e (%.1f dB, the layer's "
                "round-trip reflection estimate)",
                fr->pml_wall, 10 * log10(fr->pml_wall));
  fr->t_post = em_wtime() - t0;
done:
  em_stage_end(log, EM_STAGE_POST, err ? NULL : "port quantities, fields");
  em_post_est_free(&est); /* an error before the fields file: joined */
#ifdef _OPENMP
  omp_set_num_threads(t_all);
#endif
  em_free(&meas);
  return err;
}

em_err em_post_farfield_at(const em_model *m, em_results *res, em_outdir *out, const em_log *log,
                           int fi, const em_cplx *x, const em_cplx *fixed) {
  int np = m->setup.n_port;
  double k0 = 2 * M_PI * res->freq[fi] / EM_C0;
  em_cplx *meas = NULL;
  EM_TRY(ports_at(m, k0));
  EM_TRY(em_calloc(&meas, (size_t)np * np, sizeof *meas, "port measurements"));
  em_err err = em_post_measure(m, x, fixed, meas);
  if (!err) err = em_post_ff_frequency(m, res, out, log, fi, k0, x, fixed, np ? meas : NULL);
  em_free(&meas);
  return err;
}
