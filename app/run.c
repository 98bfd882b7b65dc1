/* run.c - the pipeline: case -> mesh -> setup -> per frequency (assemble,
 * operator, preconditioner, Krylov per port, port quantities, fields) ->
 * Touchstone, ports.csv, summary.json. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_run.h"

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

/* Robin terms: one per port (each excites its own right-hand side column),
 * and the first-order ABC j k nu on the remaining exterior faces, one term
 * per medium that touches them. */
static em_err build_robins(em_run *r, double k0, em_robin *rb, int *n_rb, int32_t **abc_lists) {
  em_setup *s = &r->setup;
  *n_rb = 0;
  for (int i = 0; i < s->n_port; i++) em_port_robin(&s->port[i], 1, i, &rb[(*n_rb)++]);
  if (!s->n_abc) return EM_OK;
  const em_mesh *m = r->mesh;
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 3) continue;
    int32_t n = 0;
    for (int32_t k = 0; k < s->n_abc; k++) n += m->tet_group[m->face_tet[2 * s->abc_face[k]]] == g;
    if (!n) continue;
    EM_CHECK(*n_rb < 2 * EM_RUN_MAX_PORTS, EM_ERR_INPUT, "too many media on the outer boundary");
    int32_t *list = NULL;
    EM_TRY(em_calloc(&list, (size_t)n, sizeof *list, "ABC faces"));
    abc_lists[*n_rb] = list;
    n = 0;
    for (int32_t k = 0; k < s->n_abc; k++)
      if (m->tet_group[m->face_tet[2 * s->abc_face[k]]] == g) list[n++] = s->abc_face[k];
    em_robin *a = &rb[(*n_rb)++];
    memset(a, 0, sizeof *a);
    a->group = -1;
    a->faces = list;
    a->n_faces = n;
    a->gamma = I * k0 * csqrt(s->medium[g].eps_r * s->medium[g].mu_r) / s->medium[g].mu_r;
  }
  return EM_OK;
}

/* One frequency: assemble, build the operator and the preconditioner, solve
 * for every port's excitation, measure the ports, write fields. */
static em_err solve_frequency(em_run *r, int fi) {
  em_err err = EM_OK;
  const em_run_config *cfg = &r->cfg;
  em_setup *s = &r->setup;
  em_freq_result *fr = &r->fr[fi];
  double f = cfg->freq[fi], k0 = 2 * M_PI * f / EM_C0;
  int np = s->n_port;
  fr->f = f;
  fr->k0 = k0;
  em_robin rb[3 * EM_RUN_MAX_PORTS];
  int32_t *abc_lists[3 * EM_RUN_MAX_PORTS] = {0};
  int n_rb = 0;
  em_system *sys = NULL;
  em_blockmat *Ap = NULL;
  em_csr *Acsr = NULL;
  em_blockop *op = NULL;
  em_cplx *bp = NULL, *xp = NULL, *x = NULL, *meas = NULL;
  uint8_t *vary = NULL;

  for (int i = 0; i < np; i++) EM_TRY_GOTO(err, em_port_set_frequency(&s->port[i], k0), done);
  EM_TRY_GOTO(err, build_robins(r, k0, rb, &n_rb, abc_lists), done);
  em_media media = {r->mesh, s->medium, s->has_pml ? &s->pml : NULL, k0};
  if (s->has_pml) {
    EM_TRY_GOTO(err, em_calloc(&vary, (size_t)r->mesh->n_tet, 1, "PML tets"), done);
    for (int32_t t = 0; t < r->mesh->n_tet; t++)
      vary[t] = (uint8_t)s->medium[r->mesh->tet_group[t]].is_pml;
  }
  em_problem prob = {.k0 = k0,
                     .order = cfg->order,
                     .material = em_media_material,
                     .material_ctx = &media,
                     .tet_vary = vary,
                     .n_robin = n_rb,
                     .robin = rb,
                     .n_rhs = np};
  /* a plane wave drives column 0 instead of the ports (app/farfield.c) */
  EM_TRY_GOTO(err, em_app_ff_problem(r, k0, &prob), done);
  int ns = prob.n_rhs; /* solves: one per port, or the plane wave */
  double t0 = em_wtime();
  EM_TRY_GOTO(err, em_assemble(r->mesh, r->dofs, &prob, &r->detail, &sys), done);
  fr->t_assembly = em_wtime() - t0;
  if (fi == 0 && r->args->dump_matrix) {
    EM_TRY_GOTO(err, em_matfile_write(r->args->dump_matrix, sys->A, sys->n_rhs, sys->b), done);
    r->dumped = 1;
    em_log_info(r->log, "matrix written to %s", r->args->dump_matrix);
  }

  /* the operator wants its rows sorted (sliced formats): permute once */
  t0 = em_wtime();
  int32_t n = r->dofs->n_dof;
  em_blockop_opts bop = cfg->bop;
  bop.backend = r->dev.backend;
  bop.prec = EM_PREC_DOUBLE;
  if (!r->perm) { /* the row order depends on the pattern only: once per sweep */
    EM_TRY_GOTO(err, em_calloc(&r->perm, (size_t)n, sizeof *r->perm, "permutation"), done);
    EM_TRY_GOTO(err, em_blockop_plan_perm(sys->A, &bop, r->perm), done);
  }
  const int32_t *perm = r->perm;
  EM_TRY_GOTO(err, em_blockmat_permute(sys->A, perm, &Ap), done);
  EM_TRY_GOTO(err, em_blockop_create(Ap, &bop, &op), done);
  em_operator A;
  EM_TRY_GOTO(err, em_blockop_operator(op, &A), done);
  fr->t_operator = em_wtime() - t0;
  if (fi == 0) record_blocks(r, Ap, op);

  t0 = em_wtime();
  em_pc_opts pco = cfg->pc;
  pco.backend = r->dev.backend;
  pco.pmg.nb = Ap->nb; /* the V-cycle's levels: the order groups */
  memcpy(pco.pmg.offset, Ap->offset, sizeof pco.pmg.offset);
  if (cfg->pmg_pml_coarse && s->has_pml && !r->pml_rows) {
    /* every unknown of a PML tet joins the coarse factor: the order-1 space
       cannot follow the stretched field of a layer a few elements thick */
    EM_TRY_GOTO(err, em_calloc(&r->pml_rows, (size_t)n + 1, 1, "PML unknowns"), done);
    int32_t code[64];
    for (int32_t t = 0; t < r->mesh->n_tet; t++) {
      if (!s->medium[r->mesh->tet_group[t]].is_pml) continue;
      em_dofmap_tet(r->dofs, r->mesh, t, code);
      for (int k = 0; k < em_basis_count(cfg->order); k++) {
        if (code[k] < 0) continue;
        int32_t row = perm[code[k]];
        int g = 0; /* its order group: PMG/pml_coarse N takes groups 1..N */
        while (g + 1 < Ap->nb && row >= Ap->offset[g + 1]) g++;
        if (g < cfg->pmg_pml_coarse) r->pml_rows[row] = 1;
      }
    }
  }
  pco.pmg.coarse_rows = r->pml_rows;
  /* every type takes the matrix (none too: it checks the size) */
  EM_TRY_GOTO(err, em_blockmat_to_csr(Ap, &Acsr), done);
  if (r->pc) { /* later frequencies: new values on the kept analysis */
    EM_TRY_GOTO(err, em_pc_update(r->pc, Acsr, &r->detail), done);
  } else {
    err = em_pc_create(Acsr, &pco, &r->detail, &r->pc);
    if (err == EM_ERR_MEMORY && cfg->pc_auto) {
      /* auto: the direct factor fits neither on the GPU (it falls back to
         the host by itself) nor on the host.  The order-group V-cycle needs
         about nnz(A) plus the order-1 factor; with a single order group
         there is no V-cycle and ILU(0), nnz(A) only, is what is left. */
      em_pc_type next = Ap->nb >= 2 ? EM_PC_PMG : EM_PC_ILU0;
      em_log_warn(r->log, "%s; auto: %s instead", em_error_message(), em_pc_type_name(next));
      em_error_clear();
      pco.type = next;
      if (next == EM_PC_ILU0 && cfg->ordering_auto) pco.ordering = EM_ORDERING_RCM;
      err = em_pc_create(Acsr, &pco, &r->detail, &r->pc);
    }
    if (err) goto done;
  }
  em_pc *pc = r->pc;
  em_csr_destroy(&Acsr);
  em_pc_get_info(pc, &fr->pc);
  fr->t_pc = em_wtime() - t0;

  t0 = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&bp, (size_t)n, sizeof *bp, "right-hand side"), done);
  EM_TRY_GOTO(err, em_calloc(&xp, (size_t)n, sizeof *xp, "solution"), done);
  EM_TRY_GOTO(err, em_calloc(&x, (size_t)n * ns, sizeof *x, "solutions"), done);
  em_ksp_opts ko = cfg->ksp;
  ko.log = &r->detail;
  ko.log_every = r->log && r->log->level >= EM_LOG_VERBOSE ? 10 : 100;
  fr->converged = 1;
  fr->n_solve = ns;
  for (int e = 0; e < ns; e++) {
    for (int32_t i = 0; i < n; i++) {
      bp[perm[i]] = sys->b[(size_t)e * n + i];
      xp[i] = 0;
    }
    const char *what = np ? s->port[e].name : "the plane wave";
    em_log_verbose(r->log, "solving for %s (%d unknowns)", what, n);
    EM_TRY_GOTO(err, em_app_check_signal(), done);
    EM_TRY_GOTO(err, em_ksp_solve(&A, pc, bp, xp, &ko, &fr->ksp[e]), done);
    for (int32_t i = 0; i < n; i++) x[(size_t)e * n + i] = xp[perm[i]];
    const em_ksp_stats *st = &fr->ksp[e];
    if (st->reason != EM_KSP_CONVERGED) {
      fr->converged = 0;
      em_log_warn(r->log,
                  "%s: %s stopped (%s) after %d iterations at true residual %.3g; the "
                  "results of this frequency are not converged",
                  what, em_ksp_method_name(ko.method), em_ksp_reason_name(st->reason),
                  st->iterations, st->true_rel_res);
    }
  }
  fr->t_solve = em_wtime() - t0;
  em_pc_get_info(pc, &fr->pc); /* with what the solves added (pmg's split of time) */
  if (fr->pc.type == EM_PC_PMG)
    em_log_verbose(
        r->log, "pmg: %lld V-cycles, smoother %.2f s, coarse solves %.2f s, residual SpMVs %.2f s",
        (long long)fr->pc.applies, fr->pc.t_smooth, fr->pc.t_coarse, fr->pc.t_residual);

  t0 = em_wtime();
  EM_TRY_GOTO(err, em_calloc(&meas, (size_t)np * np, sizeof *meas, "port measurements"), done);
  for (int e = 0; e < np; e++)
    for (int j = 0; j < np; j++)
      EM_TRY_GOTO(err,
                  em_port_measure(&s->port[j], r->mesh, r->dofs, x + (size_t)e * n, sys->fixed,
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
  EM_TRY_GOTO(err, em_app_ff_frequency(r, fi, k0, x, sys->fixed, np ? meas : NULL), done);
  if (cfg->fields == 2 || (cfg->fields == 1 && fi == 0) ||
      (cfg->fields == 3 && fi == cfg->n_freq / 2)) {
    char name[64], path[1200];
    char tag[32], title[96];
    em_app_freq_tag(f, tag, sizeof tag);
    snprintf(name, sizeof name, "fields_%s.vtk", tag);
    snprintf(title, sizeof title, "%s f = %.9g Hz", em_case_name(r->cs), f);
    EM_TRY_GOTO(err, out_path(r, path, sizeof path, name), done);
    field_ctx fc = {r->mesh, r->dofs, x, sys->fixed};
    em_vtk_opts vo = {cfg->vtk_binary, cfg->subdiv, title, 0};
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
    EM_TRY_GOTO(err, em_run_write_line(r, fi, x, sys->fixed, path), done);
    EM_TRY_GOTO(err, add_file(r, name), done);
  }
  fr->t_post = em_wtime() - t0;
  em_app_log_frequency(r, fi);
done:
  for (int i = 0; i < n_rb; i++) em_free(&abc_lists[i]);
  em_system_destroy(&sys);
  em_blockmat_destroy(&Ap);
  em_csr_destroy(&Acsr);
  em_blockop_destroy(&op);
  em_free(&bp);
  em_free(&xp);
  em_free(&x);
  em_free(&meas);
  em_free(&vary);
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
  EM_TRY(out_path(r, path, sizeof path, "ports.csv"));
  EM_TRY(em_ports_csv_write_sweep(path, np, nf, r->cfg.freq, r->S, r->zport, r->flag));
  EM_TRY(add_file(r, "ports.csv"));
  return EM_OK;
}

static em_err run_case(em_run *r) {
  const em_app_args *a = r->args;
  const em_log *log = r->log;
  int n_spec;
  const em_param_spec *spec = em_app_specs(&n_spec);
  EM_TRY(em_case_open(a->case_path, a->n_over, a->over, n_spec, spec, log, &r->cs));
  if (a->list_params) {
    em_app_list_params(r->cs, stdout);
    return EM_OK;
  }
  EM_TRY(em_run_config_read(r->cs, &r->cfg));
  EM_TRY(em_app_validate_case(r)); /* before meshing: seconds, not the run */
  EM_TRY(em_app_outdir_open(r));   /* created and locked: a second run is refused now */
  const em_run_config *cfg = &r->cfg;
  double fmax = cfg->freq[cfg->n_freq - 1];
  em_mesh_opts mo = {cfg->unit, fmax, cfg->epw, em_setup_index_of, r->cs, 1};
  double t0 = em_wtime();
  EM_TRY(em_case_mesh(r->cs, &mo, &r->detail, &r->mesh));
  EM_TRY(em_app_check_signal());
  r->t_mesh = em_wtime() - t0;
  em_mesh_stats_compute(r->mesh, &r->mstats);
  em_app_log_mesh(r);
  EM_TRY(em_setup_build(r->cs, r->mesh, cfg, &r->detail, &r->setup));
  EM_TRY(em_app_ff_setup(r));
  EM_TRY(em_app_validate_mesh(r));
  EM_CHECK(r->setup.n_port > 0 || r->ff.planewave, EM_ERR_INPUT,
           "case %s has no port: nothing excites the structure (add a surface group 'port1' "
           "and Ports/port1/type, or set Excitation/type planewave)",
           em_case_path(r->cs));
  EM_CHECK(r->setup.n_port <= EM_RUN_MAX_PORTS, EM_ERR_INPUT, "%d ports: at most %d supported",
           r->setup.n_port, EM_RUN_MAX_PORTS);
  /* frequencies below a waveguide port's cut-off fail here, before any output */
  for (int i = 0; i < cfg->n_freq; i++)
    for (int p = 0; p < r->setup.n_port; p++)
      EM_TRY(em_port_set_frequency(&r->setup.port[p], 2 * M_PI * cfg->freq[i] / EM_C0));
  EM_TRY(em_dofmap_build(r->mesh, cfg->order, r->setup.face_fixed, &r->dofs));
  em_log_info(log, "order %d: %d unknowns (%d / %d / %d by order), %d fixed", cfg->order,
              r->dofs->n_dof, r->dofs->offset[1] - r->dofs->offset[0],
              cfg->order > 1 ? r->dofs->offset[2] - r->dofs->offset[1] : 0,
              cfg->order > 2 ? r->dofs->offset[3] - r->dofs->offset[2] : 0, r->dofs->n_fixed);
  EM_CHECK(r->dofs->n_dof > 0, EM_ERR_INPUT, "case %s has no unknowns (everything is PEC?)",
           em_case_path(r->cs));
  EM_TRY(em_device_open(a->device, log, &r->dev));

  int np = r->setup.n_port, nf = cfg->n_freq;
  EM_TRY(em_calloc(&r->S, (size_t)nf * np * np, sizeof *r->S, "S-parameters"));
  EM_TRY(em_calloc(&r->zin, (size_t)nf * np, sizeof *r->zin, "input impedances"));
  EM_TRY(em_calloc(&r->zref, (size_t)np, sizeof *r->zref, "reference impedances"));
  EM_TRY(em_calloc(&r->zport, (size_t)nf * np, sizeof *r->zport, "reference impedances"));
  EM_TRY(em_calloc(&r->flag, (size_t)nf, sizeof *r->flag, "frequency flags"));
  EM_TRY(em_calloc(&r->fr, (size_t)nf, sizeof *r->fr, "frequency results"));
  EM_TRY(em_app_check_signal());
  em_app_outdir_clear(r); /* the case's earlier outputs, right before the new ones */
  r->t_sweep = em_wtime();
  for (int i = 0; i < nf; i++) {
    em_log_verbose(log, "frequency %d/%d: %.6g GHz", i + 1, nf, cfg->freq[i] * 1e-9);
    EM_TRY(em_app_check_signal());
    EM_TRY(solve_frequency(r, i));
    r->n_done = i + 1;
  }
  EM_TRY(write_port_tables(r));
  EM_TRY(add_file(r, "summary.json"));
  EM_TRY(em_run_write_summary(r));
  /* results on stdout, not only in files */
  if (np) {
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
  em_app_ff_print(r, stdout);
  if (r->ff.plots) EM_TRY(em_app_plot(r->out_dir, log));
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
  em_pc_destroy(&r.pc);
  em_free(&r.perm);
  em_free(&r.pml_rows);
  em_app_ff_free(&r.ff);
  em_dofmap_destroy(&r.dofs);
  em_setup_free(&r.setup);
  em_mesh_destroy(&r.mesh);
  em_run_config_free(&r.cfg);
  em_case_close(&r.cs);
  return err;
}
