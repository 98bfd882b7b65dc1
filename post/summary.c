/* summary.c - out/<case>/summary.json: what was solved, how, how well, how
 * fast, and the port results (schema in docs/outputs.md). */
#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include "em_post.h"

static void cplx(em_json *j, const char *key, em_cplx z) {
  em_json_begin_array(j, key);
  em_json_number(j, NULL, creal(z));
  em_json_number(j, NULL, cimag(z));
  em_json_end_array(j);
}

static void write_mesh(em_json *j, const em_model *m) {
  const em_mesh_stats *s = &m->mstats;
  em_json_begin_object(j, "mesh");
  em_json_int(j, "vertices", s->n_vert);
  em_json_int(j, "tets", s->n_tet);
  em_json_int(j, "edges", s->n_edge);
  em_json_int(j, "faces", s->n_face);
  em_json_int(j, "boundary_faces", s->n_boundary_face);
  em_json_number(j, "quality_min", s->q_min);
  em_json_number(j, "quality_mean", s->q_mean);
  em_json_number(j, "h_min_m", s->h_min);
  em_json_number(j, "h_max_m", s->h_max);
  em_json_number(j, "elements_per_wavelength", m->cfg.epw);
  em_json_number(j, "sized_at_hz", m->cfg.mesh_freq);
  em_json_string(j, "sized_by", m->cfg.mesh_freq_from);
  em_json_string(j, "file",
                 m->cfg.mesh_file ? m->cfg.mesh_file : ""); /* Mesh/file: read, not meshed */
  em_json_number(j, "time_s", m->t_mesh);
  em_json_begin_array(j, "groups");
  for (int g = 0; g < m->mesh->n_group; g++) {
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", m->mesh->group[g].name);
    em_json_int(j, "dim", m->mesh->group[g].dim);
    if (m->mesh->group[g].dim == 3) {
      const em_medium *md = &m->setup.medium[g];
      cplx(j, "eps_r", md->eps_r);
      cplx(j, "mu_r", md->mu_r);
      em_json_bool(j, "pml", md->is_pml);
    }
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_json_end_object(j);
}

/* Order per region: each volume's order and unknowns by order group (an
 * unknown counts for the region its entity took its order from). */
static void region_orders(em_json *j, const em_model *md) {
  const em_mesh *m = md->mesh;
  int32_t *cnt = NULL;
  if (em_calloc(&cnt, (size_t)m->n_group * EM_MAX_ORDER + 1, sizeof *cnt, "region counts") ||
      em_dofmap_region_counts(md->dofs, m, cnt)) {
    em_error_clear(); /* the log has the counts; the summary goes on without */
    em_free(&cnt);
    return;
  }
  em_json_begin_array(j, "regions");
  for (int g = 0; g < m->n_group; g++) {
    if (m->group[g].dim != 3) continue;
    const int32_t *c = cnt + (size_t)g * EM_MAX_ORDER;
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", m->group[g].name);
    em_json_int(j, "order", md->setup.order ? md->setup.order[g] : md->dofs->order);
    em_json_int(j, "unknowns", c[0] + c[1] + c[2]);
    em_json_begin_array(j, "by_order");
    for (int k = 0; k < md->dofs->order; k++) em_json_int(j, NULL, c[k]);
    em_json_end_array(j);
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_free(&cnt);
}

static void write_system(em_json *j, const em_model *m) {
  const em_dofmap *d = m->dofs;
  em_json_begin_object(j, "dofs");
  em_json_int(j, "order", d->order);
  em_json_int(j, "unknowns", d->n_dof);
  em_json_int(j, "fixed", d->n_fixed);
  em_json_begin_array(j, "by_order");
  for (int g = 0; g < d->order; g++) em_json_int(j, NULL, d->offset[g + 1] - d->offset[g]);
  em_json_end_array(j);
  region_orders(j, m);
  em_json_end_object(j);
  em_json_begin_array(j, "blocks");
  int64_t nnz = 0;
  for (int i = 0; i < m->n_block; i++)
    for (int k = 0; k < m->n_block; k++) {
      const em_block_stat *b = &m->block[i][k];
      nnz += b->nnz;
      em_json_begin_object(j, NULL);
      em_json_int(j, "i", i + 1);
      em_json_int(j, "j", k + 1);
      em_json_int(j, "rows", b->rows);
      em_json_int(j, "cols", b->cols);
      em_json_int(j, "nnz", b->nnz);
      em_json_number(j, "row_length_mean", b->row_mean);
      em_json_int(j, "row_length_max", b->row_max);
      em_json_string(j, "format", em_format_name(b->info.format));
      em_json_int(j, "threads_per_row", b->info.threads_per_row);
      em_json_int(j, "bytes", (int64_t)b->info.bytes);
      em_json_end_object(j);
    }
  em_json_end_array(j);
  em_json_begin_object(j, "matrix");
  em_json_int(j, "nnz", nnz);
  em_json_int(j, "csr_bytes", nnz * 20 + ((int64_t)m->dofs->n_dof + 1) * 8);
  em_json_int(j, "operator_bytes", (int64_t)m->operator_bytes);
  em_json_string(j, "blocks_mode",
                 m->cfg.solve.bop.mode == EM_BLOCKOP_STREAMS      ? "streams"
                 : m->cfg.solve.bop.mode == EM_BLOCKOP_SEQUENTIAL ? "sequential"
                 : m->cfg.solve.bop.mode == EM_BLOCKOP_GRAPH      ? "graph"
                 : m->cfg.solve.bop.mode == EM_BLOCKOP_ROWS       ? "rows"
                                                                  : "one");
  em_json_end_object(j);
}

static void write_frequency(em_json *j, const em_model *m, const em_results *r, int i) {
  const em_freq_result *f = &r->fr[i];
  int np = r->n_port;
  em_json_begin_object(j, NULL);
  em_json_number(j, "f_hz", f->f);
  em_json_number(j, "k0", f->k0);
  if (f->fields[0]) em_json_string(j, "fields_vtk", f->fields);
  em_json_bool(j, "converged", f->converged);
  em_json_bool(j, "resumed", f->resumed);
  em_json_bool(j, "from_model", f->from_model);
  if (isfinite(f->pml_wall)) em_json_number(j, "pml_wall_ratio", f->pml_wall);
  if (isfinite(f->p_metal)) em_json_number(j, "p_loss_metal_W", f->p_metal);
  if (isfinite(f->p_lumped)) em_json_number(j, "p_loss_lumped_W", f->p_lumped);
  em_json_begin_array(j, "flags"); /* empty when the row is trusted */
  if (r->flag[i] & EM_PORTS_FLAG_NOT_CONVERGED) em_json_string(j, NULL, "not_converged");
  if (r->flag[i] & EM_PORTS_FLAG_ACTIVE) em_json_string(j, NULL, "S_gt_1");
  em_json_end_array(j);
  em_json_begin_object(j, "time_s");
  em_json_number(j, "assembly", f->t_assembly);
  em_json_number(j, "operator", f->t_operator);
  em_json_number(j, "preconditioner_setup", f->t_pc);
  em_json_number(j, "solve", f->t_solve);
  em_json_number(j, "post", f->t_post);
  em_json_end_object(j);
  em_json_begin_object(j, "preconditioner");
  em_json_string(j, "type", em_pc_type_name(f->pc.type));
  em_json_string(j, "ordering", em_ordering_name(f->pc.ordering));
  em_json_string(j, "precision", f->pc.prec == EM_PREC_SINGLE ? "single" : "double");
  em_json_string(j, "implementation", f->pc.impl ? f->pc.impl : "");
  em_json_number(j, "setup_s", f->pc.t_setup);
  em_json_int(j, "bytes", (int64_t)f->pc.bytes);
  em_json_int(j, "levels_lower", f->pc.levels_lower);
  em_json_int(j, "levels_upper", f->pc.levels_upper);
  if (f->pc.type == EM_PC_DIRECT || f->pc.type == EM_PC_PMG) {
    em_json_number(j, "factor_gflop", f->pc.factor_flops * 1e-9);
    em_json_int(j, "perturbed_pivots", f->pc.perturbed);
  }
  if (f->pc.type == EM_PC_PMG) { /* the V-cycle's split of time over this frequency */
    em_json_int(j, "coarse_unknowns", f->pc.coarse_n);
    em_json_int(j, "coarse_bytes", (int64_t)f->pc.coarse_bytes); /* factorization peak */
    em_json_int(j, "coarse_factor_bytes", (int64_t)f->pc.coarse_factor_bytes); /* L + D */
    em_json_int(j, "rows_bytes", (int64_t)f->pc.rows_bytes);
    em_json_int(j, "smoother_bytes", (int64_t)f->pc.smoother_bytes);
    em_json_int(j, "index_bytes", (int64_t)f->pc.index_bytes);
    em_json_int(j, "work_bytes", (int64_t)f->pc.work_bytes);
    em_json_int(j, "applies", f->pc.applies);
    em_json_number(j, "smoother_s", f->pc.t_smooth);
    em_json_number(j, "coarse_solve_s", f->pc.t_coarse);
    em_json_number(j, "residual_spmv_s", f->pc.t_residual);
  }
  em_json_end_object(j);
  em_json_begin_array(j, "solves");
  for (int e = 0; e < f->n_solve; e++) {
    const em_ksp_stats *k = &f->ksp[e];
    em_json_begin_object(j, NULL);
    em_json_string(j, "excitation",
                   m->setup.n_port && !m->ff.planewave ? m->setup.port[e].name : "planewave");
    em_json_string(j, "reason", em_ksp_reason_name(k->reason));
    em_json_int(j, "iterations", k->iterations);
    em_json_number(j, "true_relative_residual", k->true_rel_res);
    em_json_number(j, "time_s", k->t_total);
    em_json_number(j, "spmv_s", k->t_spmv);
    em_json_number(j, "preconditioner_s", k->t_pc);
    em_json_number(j, "vector_s", k->t_vec);
    em_json_int(j, "spmv_count", k->n_spmv);
    em_json_int(j, "vector_bytes", (int64_t)k->vec_bytes); /* the method's work vectors */
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_json_begin_array(j, "ports");
  for (int p = 0; p < np && m->ff.planewave; p++) { /* loads of a plane wave */
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", m->setup.port[p].name);
    cplx(j, "received", r->rx[(size_t)i * np + p]);
    em_json_number(j, "received_W", r->rx_power[(size_t)i * np + p]);
    em_json_end_object(j);
  }
  for (int p = 0; p < np && !m->ff.planewave; p++) {
    em_cplx s = r->S[(size_t)i * np * np + p * np + p];
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", m->setup.port[p].name);
    em_json_begin_array(j, "S_row"); /* S_p1 .. S_pN */
    for (int q = 0; q < np; q++) cplx(j, NULL, r->S[(size_t)i * np * np + p * np + q]);
    em_json_end_array(j);
    em_json_number(j, "S_dB", 20 * log10(cabs(s)));
    cplx(j, "Zin_ohm", r->zin[(size_t)i * np + p]);
    em_json_number(j, "z_ref_ohm", r->zport[(size_t)i * np + p]); /* S is referenced to it */
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_json_end_object(j);
}

/* How the frequencies were obtained: a full solve each, or the adaptive
 * sweep's model (its full solves, error estimate and check). */
static void write_sweep(em_json *j, const em_model *m, const em_results *r) {
  const em_run_config *c = &m->cfg;
  em_json_begin_object(j, "sweep");
  em_json_string(j, "type", c->sweep_adaptive ? "adaptive" : "uniform");
  em_json_int(j, "frequencies", c->n_freq);
  if (c->sweep_adaptive) {
    em_json_number(j, "tolerance", c->sweep_tol);
    em_json_int(j, "full_solves", r->n_samples);
    em_json_bool(j, "converged", r->sweep_converged);
    em_json_number(j, "error_estimate", r->sweep_estimate);
    em_json_number(j, "last_check", r->sweep_check);
    em_json_begin_array(j, "samples");
    for (int i = 0; i < r->n_samples; i++) {
      const em_freq_result *f = &r->sample[i];
      int its = 0;
      for (int e = 0; e < f->n_solve; e++) its += f->ksp[e].iterations;
      em_json_begin_object(j, NULL);
      em_json_number(j, "f_hz", f->f);
      em_json_bool(j, "converged", f->converged);
      em_json_int(j, "iterations", its);
      em_json_number(j, "time_s", f->t_assembly + f->t_operator + f->t_pc + f->t_solve);
      em_json_end_object(j);
    }
    em_json_end_array(j);
  }
  em_json_end_object(j);
}

em_err em_post_summary(const em_model *m, const em_results *r, const em_outdir *out,
                       double t_start) {
  char path[1200];
  EM_TRY(em_outdir_path(out, "summary.json", path, sizeof path));
  em_json j;
  EM_TRY(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_begin_object(&j, "emsolve");
  em_json_string(&j, "version", EM_VERSION);
  em_json_bool(&j, "cuda_built", em_cuda_built());
  em_json_end_object(&j);
  /* 0: every frequency converged and passive; 3: results flagged */
  em_json_int(&j, "exit_code", r->flagged ? 3 : 0);
  em_json_number(&j, "touchstone_z0_ohm", m->cfg.touchstone_z0);
  em_json_begin_object(&j, "case");
  em_json_string(&j, "path", em_case_path(m->cs));
  em_json_string(&j, "name", em_case_name(m->cs));
  em_json_end_object(&j);
  em_json_begin_object(&j, "device");
  em_json_string(&j, "backend", m->dev.backend == EM_BACKEND_CUDA ? "cuda" : "cpu");
  em_json_string(&j, "name", m->dev.name);
  em_json_int(&j, "cpu_threads", m->dev.cpu_threads);
  em_json_end_object(&j);
  em_json_begin_object(&j, "parameters");
  for (int i = 0; i < em_case_param_count(m->cs); i++) {
    const em_param *p = em_case_param_at(m->cs, i);
    if (p->is_string)
      em_json_string(&j, p->name, p->string ? p->string : "");
    else
      em_json_number(&j, p->name, p->number);
  }
  em_json_end_object(&j);
  write_mesh(&j, m);
  write_system(&j, m);
  em_json_begin_object(&j, "solver");
  em_json_string(&j, "method", em_ksp_method_name(m->cfg.solve.ksp.method));
  em_json_string(&j, "preconditioner",
                 m->cfg.solve.pc_auto ? "auto" : em_pc_type_name(m->cfg.solve.pc.type));
  em_json_number(&j, "tolerance", m->cfg.solve.ksp.tol);
  em_json_int(&j, "max_iterations", m->cfg.solve.ksp.max_it);
  em_json_end_object(&j);
  write_sweep(&j, m, r);
  /* Excitation/ports: the ports driven, 1-based (S's other columns null) */
  em_json_begin_array(&j, "excited_ports");
  for (int p = 0; p < m->setup.n_port && !m->ff.planewave; p++)
    if (em_post_excited(m) >> p & 1u) em_json_int(&j, NULL, p + 1);
  em_json_end_array(&j);
  em_json_begin_array(&j, "ports");
  for (int p = 0; p < m->setup.n_port; p++) {
    const em_port *pt = &m->setup.port[p];
    static const char *const types[] = {"coax", "waveguide", "lumped"};
    em_json_begin_object(&j, NULL);
    em_json_string(&j, "name", pt->name);
    em_json_string(&j, "type", types[pt->type]);
    em_json_number(&j, "a_m", pt->a);
    em_json_number(&j, "b_m", pt->b);
    em_json_number(&j, "z_ref_ohm", r->zref[p]);
    cplx(&j, "z_mode_ohm", pt->z_mode);
    em_json_begin_array(&j, "center_m"); /* the port plane's centre (array phases) */
    for (int d = 0; d < 3; d++) em_json_number(&j, NULL, pt->center[d]);
    em_json_end_array(&j);
    em_json_begin_array(&j, "normal");
    for (int d = 0; d < 3; d++) em_json_number(&j, NULL, pt->normal[d]);
    em_json_end_array(&j);
    em_json_number(&j, "deembed_m", pt->deembed);
    em_json_end_object(&j);
  }
  em_json_end_array(&j);
  em_json_begin_array(&j, "frequencies");
  for (int i = 0; i < r->n_done; i++) write_frequency(&j, m, r, i);
  em_json_end_array(&j);
  double ta = 0, tp = 0, ts = 0, to = 0, tq = 0;
  for (int i = 0; i < r->n_done; i++)
    ta += r->fr[i].t_assembly, tp += r->fr[i].t_pc, ts += r->fr[i].t_solve,
        to += r->fr[i].t_operator, tq += r->fr[i].t_post;
  for (int i = 0; i < r->n_samples; i++) /* the adaptive sweep's full solves */
    ta += r->sample[i].t_assembly, tp += r->sample[i].t_pc, ts += r->sample[i].t_solve,
        to += r->sample[i].t_operator;
  em_json_begin_object(&j, "time_s");
  em_json_number(&j, "mesh", m->t_mesh);
  em_json_number(&j, "assembly", ta);
  em_json_number(&j, "operator", to);
  em_json_number(&j, "preconditioner_setup", tp);
  em_json_number(&j, "solve", ts);
  em_json_number(&j, "post", tq);
  em_json_number(&j, "total", em_wtime() - t_start);
  em_json_end_object(&j);
  if (r->stages) { /* the whole run by stage, exclusive (core/stage.c): they add up
                     to the wall time up to this file; "other" is what no stage claims */
    double t[EM_STAGE_COUNT], total = em_stages_now(r->stages, t);
    em_json_begin_object(&j, "stages_s");
    for (int st = 1; st < EM_STAGE_COUNT; st++)
      em_json_number(&j, em_stage_name((em_stage)st), t[st]);
    em_json_number(&j, "other", t[EM_STAGE_OTHER]);
    em_json_number(&j, "total", total);
    /* stages that ran beside others (Solver/overlap): the stages and
       "other" add up to total + overlapped */
    em_json_number(&j, "overlapped", r->stages->overlapped);
    em_json_end_object(&j);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  em_json_begin_object(&j, "memory");
  em_json_int(&j, "host_peak_bytes", (int64_t)ru.ru_maxrss * 1024);
  em_json_int(&j, "operator_bytes", (int64_t)m->operator_bytes);
  em_json_end_object(&j);
  em_json_begin_array(&j, "outputs");
  for (int i = 0; i < out->n_files; i++) em_json_string(&j, NULL, out->files[i]);
  em_json_end_array(&j);
  if (out->n_unlisted) em_json_int(&j, "outputs_not_listed", out->n_unlisted);
  em_json_end_object(&j);
  return em_json_close(&j);
}
