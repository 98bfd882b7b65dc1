/* run.c - the pipeline: case -> mesh (or Mesh/file) -> the case physics
 * (model/case_setup.c) -> DOF map -> per frequency through the problem
 * object (model/fsys.c: assemble, operator, preconditioner, Krylov per
 * port), port quantities, fields -> Touchstone, ports.csv, summary.json. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_sweep.h"

typedef struct {
  const em_mesh *m;
  const em_dofmap *d;
  const em_cplx *x, *fixed;
} field_ctx;

static em_err sample_field(void *ctx, int32_t t, const double lam[4], em_cplx E[3]) {
  const field_ctx *f = ctx;
  em_field_eval(f->m, f->d, f->x, f->fixed, t, lam, E, NULL);
  return EM_OK;
}

static em_err add_file(em_run *r, const char *name) {
  EM_CHECK(r->n_files < 64, EM_ERR_INTERNAL, "too many output files");
  snprintf(r->files[r->n_files++], sizeof r->files[0], "%.255s", name);
  return EM_OK;
}

void em_app_freq_tag(double f, char *buf, size_t n) {
  snprintf(buf, n, "%.9gGHz", f * 1e-9);
}

static em_err out_path(const em_run *r, char *buf, size_t n, const char *name) {
  int k = snprintf(buf, n, "%s/%s", r->out_dir, name);
  EM_CHECK(k > 0 && (size_t)k < n, EM_ERR_INPUT, "output path %s/%s is too long", r->out_dir, name);
  return EM_OK;
}

/* Block statistics and formats, recorded once (first frequency). */
static void record_blocks(em_run *r, const em_blockmat *A, const em_blockop *op) {
  r->n_block = A->nb;
  for (int i = 0; i < A->nb; i++)
    for (int j = 0; j < A->nb; j++) {
      const em_csr *B = A->blk[i][j];
      em_block_stat *s = &r->block[i][j];
      s->rows = B->n_rows;
      s->cols = B->n_cols;
      s->nnz = B->nnz;
      s->row_mean = B->n_rows ? (double)B->nnz / B->n_rows : 0;
      s->row_max = 0;
      for (int32_t k = 0; k < B->n_rows; k++) {
        int32_t l = (int32_t)(B->rowptr[k + 1] - B->rowptr[k]);
        if (l > s->row_max) s->row_max = l;
      }
      /* ONE_MATRIX stores the whole as (0, 0), ROWS block row i as (i, 0) */
      em_blockop_mode m = r->cfg.bop.mode;
      em_blockop_block_info(op, m == EM_BLOCKOP_ONE_MATRIX ? 0 : i,
                            m == EM_BLOCKOP_ONE_MATRIX || m == EM_BLOCKOP_ROWS ? 0 : j, &s->info);
      em_log_verbose(r->log, "block A%d%d: %d x %d, nnz %lld, row length mean %.1f max %d, %s",
                     i + 1, j + 1, s->rows, s->cols, (long long)s->nnz, s->row_mean, s->row_max,
                     em_format_name(s->info.format));
    }
  r->operator_bytes = em_blockop_bytes(op);
}

static em_err ff_prepare(void *ctx, double k0, em_problem *prob) {
  return em_app_ff_problem(ctx, k0, prob);
}

/* The problem object of the mesh (model/fsys.c), made on the first solve. */
static em_err make_fsys(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  em_setup *s = &r->setup;
  em_fsys_desc d = {.mesh = r->mesh,
                    .dofs = r->dofs,
                    .order = r->dofs->order,
                    .medium = s->medium,
                    .pml = s->has_pml ? &s->pml : NULL,
                    .port = s->port,
                    .n_port = s->n_port,
                    .abc_face = s->abc_face,
                    .n_abc = s->n_abc,
                    .bop = cfg->bop,
                    .pc = cfg->pc,
                    .pc_auto = cfg->pc_auto,
                    .ordering_auto = cfg->ordering_auto,
                    .pmg_pml_coarse = cfg->pmg_pml_coarse,
                    .pmg_pml_block = cfg->pmg_pml_block,
                    .ksp = cfg->ksp,
                    .backend = r->dev.backend,
                    .prepare = ff_prepare, /* a plane wave (app/farfield.c) */
                    .prepare_ctx = r};
  return em_fsys_create(&d, &r->fsys);
}

/* One frequency f through the problem object: *x_out [ns][n] in the DOF
 * numbering and *sys_out (the fixed values) go to the caller. */
static em_err solve_at(em_run *r, double f, int first, em_freq_result *fr, em_system **sys_out,
                       em_cplx **x_out) {
  if (!r->fsys) EM_TRY(make_fsys(r));
  /* the stages' detail for the first solve of the run; later ones report
     one line each (app/sweep.c), their detail with -v; warnings stay */
  em_log dlog = r->detail; /* the stages' detail only with -v (app/face.c prints the line) */
  em_fsys_stats st;
  EM_TRY(em_fsys_solve(r->fsys, f, r->log ? &dlog : NULL, &st, sys_out, x_out));
  fr->f = f;
  fr->k0 = 2 * M_PI * f / EM_C0;
  fr->t_assembly = st.t_assembly, fr->t_operator = st.t_operator, fr->t_pc = st.t_pc;
  fr->t_solve = st.t_solve;
  fr->pc = st.pc;
  fr->n_solve = st.n_solve;
  fr->converged = st.converged;
  memcpy(fr->ksp, st.ksp, sizeof fr->ksp);
  if (first && r->args->dump_matrix) {
    const em_system *sys = *sys_out;
    EM_TRY(em_matfile_write(r->args->dump_matrix, sys->A, sys->n_rhs, sys->b));
    em_log_info(r->log, "matrix written to %s", r->args->dump_matrix);
  }
  if (!r->n_block) { /* the first frequency solved */
    const em_blockmat *Ap;
    const em_blockop *op;
    em_fsys_operator(r->fsys, &Ap, &op);
    record_blocks(r, Ap, op);
  }
  return EM_OK;
}

/* What frequency fi's solutions x give: port quantities, far field,
 * fields, lines, the log line (fixed: the fixed DOFs' values, NULL zero). */
em_err em_run_post_frequency(em_run *r, int fi, const em_cplx *x, const em_cplx *fixed) {
  em_err err = EM_OK;
  const em_run_config *cfg = &r->cfg;
  em_setup *s = &r->setup;
  em_freq_result *fr = &r->fr[fi];
  double f = cfg->freq[fi], k0 = 2 * M_PI * f / EM_C0;
  int np = s->n_port;
  int32_t n = r->dofs->n_dof;
  em_cplx *meas = NULL;
  for (int i = 0; i < np; i++) EM_TRY(em_port_set_frequency(&s->port[i], k0));
  double t0 = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&meas, (size_t)np * np, sizeof *meas, "port measurements"), done);
  for (int e = 0; e < np; e++)
    for (int j = 0; j < np; j++)
      EM_TRY_GOTO(err,
                  em_port_measure(&s->port[j], r->mesh, r->dofs, x + (size_t)e * n, fixed,
                                  &meas[e * np + j]),
                  done);
  if (np) {
    EM_TRY_GOTO(err,
                em_port_sparams(np, s->port, meas, r->S + (size_t)fi * np * np, r->zref,
                                r->zin + (size_t)fi * np),
                done);
    memcpy(r->zport + (size_t)fi * np, r->zref, (size_t)np * sizeof *r->zref);
  }
  em_app_flag_frequency(r, fi);
  EM_TRY_GOTO(err, em_app_ff_frequency(r, fi, k0, x, fixed, np ? meas : NULL), done);
  if (cfg->fields == 2 || (cfg->fields == 1 && fi == 0) ||
      (cfg->fields == 3 && fi == cfg->n_freq / 2)) {
    char name[64], path[1200];
    char tag[32], title[96];
    em_app_freq_tag(f, tag, sizeof tag);
    snprintf(name, sizeof name, "fields_%s.vtk", tag);
    snprintf(title, sizeof title, "%s f = %.9g Hz", em_case_name(r->cs), f);
    EM_TRY_GOTO(err, out_path(r, path, sizeof path, name), done);
    field_ctx fc = {r->mesh, r->dofs, x, fixed};
    em_vtk_opts vo = {cfg->vtk_binary, cfg->subdiv, title, 0,
                      r->dofs->uniform ? NULL : r->dofs->tet_order};
    EM_TRY_GOTO(err, em_vtk_write(path, r->mesh, sample_field, &fc, &vo), done);
    EM_TRY_GOTO(err, add_file(r, name), done);
    snprintf(fr->fields, sizeof fr->fields, "%s", name);
  }
  if (cfg->line_points > 0) {
    char name[64], path[1200];
    char tag[32];
    em_app_freq_tag(f, tag, sizeof tag);
    snprintf(name, sizeof name, "line_%s.csv", tag);
    EM_TRY_GOTO(err, out_path(r, path, sizeof path, name), done);
    EM_TRY_GOTO(err, em_run_write_line(r, fi, x, fixed, path), done);
    EM_TRY_GOTO(err, add_file(r, name), done);
  }
  fr->pml_wall = em_setup_pml_wall(r->mesh, r->dofs, &r->setup, x, fixed); /* model/ */
  if (isfinite(fr->pml_wall))
    em_log_info(r->log,
                "PML: |E|^2 at the outer wall / at the interface = %.2e (%.1f dB, the layer's "
                "round-trip reflection estimate)",
                fr->pml_wall, 10 * log10(fr->pml_wall));
  fr->t_post = em_wtime() - t0;
  if (!fr->from_model) em_app_log_frequency(r, fi); /* app/face.c */
done:
  em_free(&meas);
  return err;
}

em_err em_run_solve_frequency(em_run *r, int fi) {
  em_system *sys = NULL;
  em_cplx *x = NULL;
  em_freq_result *fr = &r->fr[fi];
  fr->f = r->cfg.freq[fi];
  fr->k0 = 2 * M_PI * fr->f / EM_C0;
  em_err err = solve_at(r, fr->f, fi == 0, fr, &sys, &x);
  if (!err) err = em_run_post_frequency(r, fi, x, sys->fixed);
  em_system_destroy(&sys);
  em_free(&x);
  return err;
}

em_err em_run_solve_sample(em_run *r, double f, em_freq_result *fr, em_cplx *u, em_cplx *y) {
  em_system *sys = NULL;
  em_cplx *x = NULL;
  em_setup *s = &r->setup;
  int np = s->n_port;
  int32_t n = r->dofs->n_dof;
  fr->f = f;
  fr->k0 = 2 * M_PI * f / EM_C0;
  em_err err = solve_at(r, f, r->n_samples == 0, fr, &sys, &x);
  if (err) goto done;
  memcpy(u, x, sizeof *u * (size_t)n * fr->n_solve);
  for (int e = 0; e < np; e++)
    for (int j = 0; j < np; j++)
      EM_TRY_GOTO(err,
                  em_port_measure(&s->port[j], r->mesh, r->dofs, x + (size_t)e * n, sys->fixed,
                                  &y[e * np + j]),
                  done);
  r->n_samples++;
done:
  em_system_destroy(&sys);
  em_free(&x);
  return err;
}

static em_err write_port_tables(em_run *r) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  if (!np) return EM_OK; /* a plane wave drove the structure */
  char name[300], path[1400];
  snprintf(name, sizeof name, "%s.s%dp", em_case_name(r->cs), np);
  EM_TRY(out_path(r, path, sizeof path, name));
  EM_TRY(em_app_write_touchstone(r, path));
  EM_TRY(add_file(r, name));
  if (r->cfg.interp_points > 0 && nf >= 2) { /* splined between the solved frequencies */
    char comment[512]; /* S as solved: each port's own impedance (Touchstone v1 states one) */
    snprintf(comment, sizeof comment, "emsolve %s, case %s, order %d, interpolated", EM_VERSION,
             em_case_path(r->cs), r->cfg.order);
    snprintf(name, sizeof name, "%s_interp.s%dp", em_case_name(r->cs), np);
    EM_TRY(out_path(r, path, sizeof path, name));
    EM_TRY(em_touchstone_write_interp(path, np, nf, r->cfg.freq, r->S, r->zref[0], comment,
                                      r->cfg.interp_points));
    EM_TRY(add_file(r, name));
  }
  EM_TRY(out_path(r, path, sizeof path, "ports.csv"));
  EM_TRY(em_ports_csv_write_sweep(path, np, nf, r->cfg.freq, r->S, r->zport, r->flag));
  EM_TRY(add_file(r, "ports.csv"));
  return EM_OK;
}

em_mesh_opts em_run_mesh_opts(const em_run *r) {
  const em_run_config *cfg = &r->cfg;
  em_mesh_opts mo = {cfg->unit,
                     cfg->mesh_freq,
                     cfg->epw,
                     em_setup_index_of,
                     r->cs,
                     1,
                     cfg->pml_elements,
                     cfg->geometry_order,
                     cfg->pml_elements_only};
  return mo;
}

em_setup_opts em_run_setup_opts(const em_run_config *cfg) {
  em_setup_opts so = {cfg->outer_abc, cfg->pml_order, cfg->pml_reflection, cfg->order,
                      cfg->pml_basis_order};
  return so;
}

/* case -> em_mesh: meshed at the sizing frequency, or read from Mesh/file;
 * --save-mesh writes it. */
static em_err make_mesh(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  const em_log *log = r->log;
  if (cfg->mesh_file)
    em_log_info(log, "mesh read from %s (Mesh/file), not meshed", cfg->mesh_file);
  else
    em_log_info(log, "mesh sized at %.6g GHz (%s), %g elements per wavelength",
                cfg->mesh_freq * 1e-9, cfg->mesh_freq_from, cfg->epw);
  if (!cfg->mesh_file && cfg->mesh_freq < cfg->freq[cfg->n_freq - 1])
    em_log_warn(log,
                "Mesh/frequency %.6g GHz is below the run's highest frequency %.6g GHz: %.3g "
                "elements per wavelength there",
                cfg->mesh_freq * 1e-9, cfg->freq[cfg->n_freq - 1] * 1e-9,
                cfg->epw * cfg->mesh_freq / cfg->freq[cfg->n_freq - 1]);
  em_mesh_opts mo = em_run_mesh_opts(r);
  double t0 = em_wtime();
  if (cfg->mesh_file) /* a mesh saved by an earlier run (--save-mesh): the same model */
    EM_TRY(em_case_load_mesh(r->cs, cfg->mesh_file, &mo, &r->detail, &r->mesh));
  else
    EM_TRY(em_app_mesh(r, &mo)); /* a design sweep's point may reuse the last mesh */
  if (r->args->save_mesh) EM_TRY(em_case_save_mesh(r->cs, r->args->save_mesh, log));
  EM_TRY(em_app_check_signal());
  r->t_mesh = em_wtime() - t0;
  em_mesh_stats_compute(r->mesh, &r->mstats);
  em_app_log_mesh(r);
  return EM_OK;
}

/* em_setup (model/case_setup.c) -> the checks a driven run needs before
 * any output, the DOF map, the device, the mesh's topology against the
 * ports. */
static em_err make_problem(em_run *r) {
  const em_run_config *cfg = &r->cfg;
  EM_TRY(em_app_ff_setup(r));
  EM_TRY(em_app_validate_mesh(r));
  EM_CHECK(r->setup.n_port > 0 || r->ff.planewave, EM_ERR_INPUT,
           "case %s has no port: nothing excites the structure (add a surface group 'port1' "
           "and Ports/port1/type, or set Excitation/type planewave)",
           em_case_path(r->cs));
  EM_CHECK(r->setup.n_port <= EM_MAX_PORTS, EM_ERR_INPUT, "%d ports: at most %d supported",
           r->setup.n_port, EM_MAX_PORTS);
  /* frequencies below a waveguide port's cut-off fail here, before any output */
  EM_TRY(em_setup_check_band(&r->setup, cfg->freq, cfg->n_freq));
  EM_TRY(em_setup_dofmap(&r->setup, r->mesh, &r->dofs)); /* order per region */
  const em_dofmap *d = r->dofs;
  em_log_info(r->log, "order %d%s: %d unknowns (%d / %d / %d by order), %d fixed", d->order,
              d->uniform ? "" : " (highest; order per region)", d->n_dof,
              d->offset[1] - d->offset[0], d->order > 1 ? d->offset[2] - d->offset[1] : 0,
              d->order > 2 ? d->offset[3] - d->offset[2] : 0, d->n_fixed);
  EM_TRY(em_setup_log_orders(&r->setup, r->mesh, d, r->log));
  EM_CHECK(r->dofs->n_dof > 0, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(r->cs));
  EM_TRY(em_device_open(r->args->device, r->log, &r->dev));
  em_betti topo; /* Betti numbers over Z2 in the log; ports checked against their shape */
  return em_post_topology_log(r->mesh, r->setup.port, r->setup.n_port, r->dev.backend, &r->detail,
                              &topo);
}

/* S, Zin, references, flags and frequency results of the whole sweep. */
static em_err alloc_results(em_run *r) {
  int np = r->setup.n_port, nf = r->cfg.n_freq;
  EM_TRY(em_calloc(&r->S, (size_t)nf * np * np, sizeof *r->S, "S-parameters"));
  EM_TRY(em_calloc(&r->zin, (size_t)nf * np, sizeof *r->zin, "input impedances"));
  EM_TRY(em_calloc(&r->zref, (size_t)np, sizeof *r->zref, "reference impedances"));
  EM_TRY(em_calloc(&r->zport, (size_t)nf * np, sizeof *r->zport, "reference impedances"));
  EM_TRY(em_calloc(&r->flag, (size_t)nf, sizeof *r->flag, "frequency flags"));
  EM_TRY(em_calloc(&r->fr, (size_t)nf, sizeof *r->fr, "frequency results"));
  return EM_OK;
}

/* The results on stdout, not only in files. */
static void print_results(const em_run *r) {
  const em_run_config *cfg = &r->cfg;
  int np = r->setup.n_port, nf = cfg->n_freq;
  if (!np) return;
  printf(
      "# %s: S11 and input impedance, S referenced to each port's own impedance (%s %.6g "
      "ohm at the last frequency; the Touchstone file: %g ohm)\n",
      em_case_name(r->cs), r->setup.port[0].name, r->zref[0], cfg->touchstone_z0);
  printf("# f_GHz        |S11|_dB   phase_deg   Re_Zin      Im_Zin\n");
  for (int i = 0; i < nf; i++) {
    em_cplx s11 = r->S[(size_t)i * np * np], z = r->zin[(size_t)i * np];
    printf("%-14.9g %-10.4f %-11.3f %-11.4f %-11.4f%s%s\n", cfg->freq[i] * 1e-9,
           20 * log10(cabs(s11)), carg(s11) * 180 / M_PI, creal(z), cimag(z),
           r->fr[i].converged ? "" : "  (not converged)",
           r->flag[i] & EM_PORTS_FLAG_ACTIVE ? "  (|S| > 1)" : "");
  }
}

/* The data flow: case -> config -> mesh -> physics (em_setup) -> problem
 * (DOF map, device) -> sweep (em_fsys per frequency, app/sweep.c) ->
 * tables, summary, stdout. */
static em_err run_case(em_run *r) {
  const em_app_args *a = r->args;
  int n_spec;
  const em_param_spec *spec = em_app_specs(&n_spec);
  EM_TRY(em_case_open(a->case_path, a->n_over, a->over, n_spec, spec, r->log, &r->cs));
  if (a->list_params) {
    em_app_list_params(r->cs, stdout);
    return EM_OK;
  }
  EM_TRY(em_run_config_read(r->cs, &r->cfg));
  EM_TRY(em_app_validate_case(r)); /* before meshing: seconds, not the run */
  EM_TRY(em_app_outdir_open(r));   /* created and locked: a second run is refused now */
  EM_TRY(make_mesh(r));
  const em_run_config *cfg = &r->cfg;
  em_setup_opts so = em_run_setup_opts(cfg);
  EM_TRY(em_setup_build(r->cs, r->mesh, &so, &r->detail, &r->setup)); /* model/case_setup.c */
  if (cfg->eigen) return em_app_eigen(r); /* resonant modes: app/eigen.c */
  EM_TRY(make_problem(r));
  EM_TRY(alloc_results(r));
  EM_TRY(em_app_check_signal());
  em_app_outdir_clear(r); /* the case's earlier outputs, right before the new ones */
  EM_TRY(em_sweep_run(r));
  EM_TRY(write_port_tables(r));
  EM_TRY(add_file(r, "summary.json"));
  EM_TRY(em_run_write_summary(r));
  print_results(r);
  em_app_ff_print(r, stdout);
  if (r->ff.plots) EM_TRY(em_app_plot(r->out_dir, r->log));
  printf("# outputs in %s/\n", r->out_dir);
  return EM_OK;
}

em_err em_app_run(const em_app_args *a, const em_log *log, int *flagged) {
  em_run r;
  memset(&r, 0, sizeof r);
  r.args = a;
  r.log = log;
  /* the stages' own detail (assembly, factorization, iterations) only with
     -v: the default is one line per stage and per frequency */
  r.detail = *log;
  r.detail.level = log->level >= EM_LOG_VERBOSE ? EM_LOG_VERBOSE : EM_LOG_QUIET;
  r.t_start = em_wtime();
  em_app_signals_install();
  em_err err = run_case(&r);
  if (flagged) *flagged = r.flagged;
  if (err) em_error_trace(err, __FILE__, __LINE__);
  em_app_outdir_close(&r, err);
  em_free(&r.S);
  em_free(&r.zin);
  em_free(&r.zref);
  em_free(&r.zport);
  em_free(&r.flag);
  em_free(&r.fr);
  em_free(&r.sample);
  em_fsys_destroy(&r.fsys);
  em_app_ff_free(&r.ff);
  em_dofmap_destroy(&r.dofs);
  em_setup_free(&r.setup);
  em_mesh_destroy(&r.mesh);
  em_run_config_free(&r.cfg);
  em_case_close(&r.cs);
  return err;
}
