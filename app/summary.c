/* summary.c - out/<case>/summary.json: what was solved, how, how well, how
 * fast, and the port results (schema in docs/outputs.md). */
#include <math.h>
#include <string.h>
#include <sys/resource.h>

#include "app_run.h"

static void cplx(em_json *j, const char *key, em_cplx z) {
  em_json_begin_array(j, key);
  em_json_number(j, NULL, creal(z));
  em_json_number(j, NULL, cimag(z));
  em_json_end_array(j);
}

static void write_mesh(em_json *j, const em_run *r) {
  const em_mesh_stats *s = &r->mstats;
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
  em_json_number(j, "elements_per_wavelength", r->cfg.epw);
  em_json_number(j, "sized_at_hz", r->cfg.mesh_freq);
  em_json_string(j, "sized_by", r->cfg.mesh_freq_from);
  em_json_string(j, "file",
                 r->cfg.mesh_file ? r->cfg.mesh_file : ""); /* Mesh/file: read, not meshed */
  em_json_number(j, "time_s", r->t_mesh);
  em_json_begin_array(j, "groups");
  for (int g = 0; g < r->mesh->n_group; g++) {
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", r->mesh->group[g].name);
    em_json_int(j, "dim", r->mesh->group[g].dim);
    if (r->mesh->group[g].dim == 3) {
      const em_medium *m = &r->setup.medium[g];
      cplx(j, "eps_r", m->eps_r);
      cplx(j, "mu_r", m->mu_r);
      em_json_bool(j, "pml", m->is_pml);
    }
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_json_end_object(j);
}

/* Order per region: each volume's order and unknowns by order group (an
 * unknown counts for the region its entity took its order from). */
static void region_orders(em_json *j, const em_run *r) {
  const em_mesh *m = r->mesh;
  int32_t *cnt = NULL;
  if (em_calloc(&cnt, (size_t)m->n_group * EM_MAX_ORDER + 1, sizeof *cnt, "region counts") ||
      em_dofmap_region_counts(r->dofs, m, cnt)) {
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
    em_json_int(j, "order", r->setup.order ? r->setup.order[g] : r->dofs->order);
    em_json_int(j, "unknowns", c[0] + c[1] + c[2]);
    em_json_begin_array(j, "by_order");
    for (int k = 0; k < r->dofs->order; k++) em_json_int(j, NULL, c[k]);
    em_json_end_array(j);
    em_json_end_object(j);
  }
  em_json_end_array(j);
  em_free(&cnt);
}

static void write_system(em_json *j, const em_run *r) {
  const em_dofmap *d = r->dofs;
  em_json_begin_object(j, "dofs");
  em_json_int(j, "order", d->order);
  em_json_int(j, "unknowns", d->n_dof);
  em_json_int(j, "fixed", d->n_fixed);
  em_json_begin_array(j, "by_order");
  for (int g = 0; g < d->order; g++) em_json_int(j, NULL, d->offset[g + 1] - d->offset[g]);
  em_json_end_array(j);
  region_orders(j, r);
  em_json_end_object(j);
  em_json_begin_array(j, "blocks");
  int64_t nnz = 0;
  for (int i = 0; i < r->n_block; i++)
    for (int k = 0; k < r->n_block; k++) {
      const em_block_stat *b = &r->block[i][k];
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
  em_json_int(j, "csr_bytes", nnz * 20 + ((int64_t)r->dofs->n_dof + 1) * 8);
  em_json_int(j, "operator_bytes", (int64_t)r->operator_bytes);
  em_json_string(j, "blocks_mode",
                 r->cfg.bop.mode == EM_BLOCKOP_STREAMS      ? "streams"
                 : r->cfg.bop.mode == EM_BLOCKOP_SEQUENTIAL ? "sequential"
                 : r->cfg.bop.mode == EM_BLOCKOP_GRAPH      ? "graph"
                 : r->cfg.bop.mode == EM_BLOCKOP_ROWS       ? "rows"
                                                            : "one");
  em_json_end_object(j);
}

static void write_frequency(em_json *j, const em_run *r, int i) {
  const em_freq_result *f = &r->fr[i];
  int np = r->setup.n_port;
  em_json_begin_object(j, NULL);
  em_json_number(j, "f_hz", f->f);
  em_json_number(j, "k0", f->k0);
  if (f->fields[0]) em_json_string(j, "fields_vtk", f->fields);
  em_json_bool(j, "converged", f->converged);
  em_json_bool(j, "resumed", f->resumed);
  em_json_bool(j, "from_model", f->from_model);
  if (isfinite(f->pml_wall)) em_json_number(j, "pml_wall_ratio", f->pml_wall);
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
    em_json_string(j, "excitation", r->setup.n_port ? r->setup.port[e].name : "planewave");
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
  for (int p = 0; p < np; p++) {
    em_cplx s = r->S[(size_t)i * np * np + p * np + p];
    em_json_begin_object(j, NULL);
    em_json_string(j, "name", r->setup.port[p].name);
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
static void write_sweep(em_json *j, const em_run *r) {
  const em_run_config *c = &r->cfg;
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

em_err em_run_write_summary(const em_run *r) {
  char path[1200];
  snprintf(path, sizeof path, "%s/summary.json", r->out_dir);
  em_json j;
  EM_TRY(em_json_open(&j, path));
  em_json_begin_object(&j, NULL);
  em_json_begin_object(&j, "emsolve");
  em_json_string(&j, "version", EM_VERSION);
  em_json_bool(&j, "cuda_built", em_cuda_built());
  em_json_end_object(&j);
  /* 0: every frequency converged and passive; 3: results flagged */
  em_json_int(&j, "exit_code", r->flagged ? 3 : 0);
  em_json_number(&j, "touchstone_z0_ohm", r->cfg.touchstone_z0);
  em_json_begin_object(&j, "case");
  em_json_string(&j, "path", em_case_path(r->cs));
  em_json_string(&j, "name", em_case_name(r->cs));
  em_json_end_object(&j);
  em_json_begin_object(&j, "device");
  em_json_string(&j, "backend", r->dev.backend == EM_BACKEND_CUDA ? "cuda" : "cpu");
  em_json_string(&j, "name", r->dev.name);
  em_json_int(&j, "cpu_threads", r->dev.cpu_threads);
  em_json_end_object(&j);
  em_json_begin_object(&j, "parameters");
  for (int i = 0; i < em_case_param_count(r->cs); i++) {
    const em_param *p = em_case_param_at(r->cs, i);
    if (p->is_string)
      em_json_string(&j, p->name, p->string ? p->string : "");
    else
      em_json_number(&j, p->name, p->number);
  }
  em_json_end_object(&j);
  write_mesh(&j, r);
  write_system(&j, r);
  em_json_begin_object(&j, "solver");
  em_json_string(&j, "method", em_ksp_method_name(r->cfg.ksp.method));
  em_json_string(&j, "preconditioner", r->cfg.pc_auto ? "auto" : em_pc_type_name(r->cfg.pc.type));
  em_json_number(&j, "tolerance", r->cfg.ksp.tol);
  em_json_int(&j, "max_iterations", r->cfg.ksp.max_it);
  em_json_end_object(&j);
  write_sweep(&j, r);
  em_json_begin_array(&j, "ports");
  for (int p = 0; p < r->setup.n_port; p++) {
    const em_port *pt = &r->setup.port[p];
    static const char *const types[] = {"coax", "waveguide", "lumped"};
    em_json_begin_object(&j, NULL);
    em_json_string(&j, "name", pt->name);
    em_json_string(&j, "type", types[pt->type]);
    em_json_number(&j, "a_m", pt->a);
    em_json_number(&j, "b_m", pt->b);
    em_json_number(&j, "z_ref_ohm", r->zref[p]);
    cplx(&j, "z_mode_ohm", pt->z_mode);
    em_json_end_object(&j);
  }
  em_json_end_array(&j);
  em_json_begin_array(&j, "frequencies");
  for (int i = 0; i < r->n_done; i++) write_frequency(&j, r, i);
  em_json_end_array(&j);
  double ta = 0, tp = 0, ts = 0, to = 0, tq = 0;
  for (int i = 0; i < r->n_done; i++)
    ta += r->fr[i].t_assembly, tp += r->fr[i].t_pc, ts += r->fr[i].t_solve,
        to += r->fr[i].t_operator, tq += r->fr[i].t_post;
  for (int i = 0; i < r->n_samples; i++) /* the adaptive sweep's full solves */
    ta += r->sample[i].t_assembly, tp += r->sample[i].t_pc, ts += r->sample[i].t_solve,
        to += r->sample[i].t_operator;
  em_json_begin_object(&j, "time_s");
  em_json_number(&j, "mesh", r->t_mesh);
  em_json_number(&j, "assembly", ta);
  em_json_number(&j, "operator", to);
  em_json_number(&j, "preconditioner_setup", tp);
  em_json_number(&j, "solve", ts);
  em_json_number(&j, "post", tq);
  em_json_number(&j, "total", em_wtime() - r->t_start);
  em_json_end_object(&j);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  em_json_begin_object(&j, "memory");
  em_json_int(&j, "host_peak_bytes", (int64_t)ru.ru_maxrss * 1024);
  em_json_int(&j, "operator_bytes", (int64_t)r->operator_bytes);
  em_json_end_object(&j);
  em_json_begin_array(&j, "outputs");
  for (int i = 0; i < r->n_files; i++) em_json_string(&j, NULL, r->files[i]);
  em_json_end_array(&j);
  em_json_end_object(&j);
  return em_json_close(&j);
}
