/* solve.c - one frequency of a run: through the problem object of the mesh
 * (model/fsys.c: assemble, operator, preconditioner, a Krylov solve per
 * excitation), made at the first solve, then the outputs (post/) and one
 * progress line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_sweep.h"

/* The problem object of the mesh, made on the first solve (a distributed
 * solve's serving rank: before it serves). */
em_err em_app_make_fsys(em_run *r) {
  em_model *m = &r->m;
  m->pw = (em_pw_source){.mesh = m->mesh, .setup = &m->setup, .ff = &m->ff};
  em_fsys_desc d = {.mesh = m->mesh,
                    .dofs = m->dofs,
                    .setup = &m->setup,
                    .solve = &m->cfg.solve,
                    .backend = m->dev.backend,
                    /* a plane wave (model/excitation.c) */
                    .prepare = m->ff.planewave ? em_pw_source_prepare : NULL,
                    .prepare_ctx = &m->pw,
                    .dist = r->dsolve ? r->args->dist : NULL,
                    .periodic = m->periodic, /* a Floquet cell (model/periodic.c) */
                    /* a plane wave on a case with ports: they are its matched loads */
                    .port_source = m->ff.planewave && m->setup.n_port ? em_pw_port_source : NULL,
                    /* --dump-matrix writes the assembled matrix after the solve */
                    .keep_matrix = r->args->dump_matrix != NULL,
                    /* Excitation/ports: the ports driven (model/excite.c) */
                    .excite = m->excite};
  /* one frequency: no assembly cache for later passes */
  d.one_solve = m->cfg.n_freq == 1 && !m->cfg.sweep_adaptive;
  return em_fsys_create(&d, &m->fsys);
}

/* --dump-matrix FILE: the system file of docs/matrix-file.md, or, when FILE
 * ends in .mtx, the matrix alone as Matrix Market (core/mtx.c): symmetric
 * when it is bit for bit (the curl-curl system is), else general. */
static em_err dump_matrix(const char *path, const em_system *sys) {
  size_t l = strlen(path);
  if (l < 4 || strcmp(path + l - 4, ".mtx"))
    return em_matfile_write(path, sys->A, sys->n_rhs, sys->b);
  em_csr *A = NULL;
  EM_TRY(em_blockmat_to_csr(sys->A, &A));
  em_err err = em_mtx_write(path, A, 1);
  if (err == EM_ERR_ARG) { /* not symmetric: all entries */
    em_error_clear();
    err = em_mtx_write(path, A, 0);
  }
  em_csr_destroy(&A);
  if (err) return em_error_trace(err, __FILE__, __LINE__);
  return EM_OK;
}

/* One frequency f through the problem object: *x_out [ns][n] in the DOF
 * numbering and *sys_out (the fixed values) go to the caller. */
static em_err solve_at(em_run *r, double f, int first, em_freq_result *fr, em_system **sys_out,
                       em_cplx **x_out) {
  em_model *m = &r->m;
  if (!m->fsys) { /* the assembler's pattern and colouring: assembly */
    em_stage_begin(r->log, EM_STAGE_ASSEMBLY);
    em_err err = em_app_make_fsys(r);
    em_stage_end(r->log, EM_STAGE_ASSEMBLY, "pattern and colouring");
    EM_TRY(err);
  }
  /* a sweep's next frequency assembled beside this one's factorization
     (model/fsys_next.c, which declines where it may not run: a plane wave,
     a Floquet cell, a distributed solve) where the GPU factorizes;
     EMSOLVE_AHEAD_CPU=1: on every backend (a test hook: test_sweep_post
     runs it beside the outputs thread on the CPU) */
  const char *hook = getenv("EMSOLVE_AHEAD_CPU");
  int ahead = (hook && !strcmp(hook, "1")) || m->dev.backend == EM_BACKEND_CUDA;
  if (ahead) em_fsys_set_next(m->fsys, r->next_f);
  r->next_f = 0;
  /* the stages' detail only with -v (app/face.c prints the line); later
     solves report one line each; warnings stay */
  em_log dlog = r->detail;
  em_fsys_stats st;
  EM_TRY(em_fsys_solve(m->fsys, f, r->log ? &dlog : NULL, &st, sys_out, x_out));
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
    EM_TRY(dump_matrix(r->args->dump_matrix, sys));
    em_log_info(r->log, "matrix written to %s", r->args->dump_matrix);
  }
  if (!m->n_block) em_model_record_blocks(m, r->log); /* the first frequency solved */
  em_app_release_start(r); /* the run's last solve: nothing reads the solver again */
  return EM_OK;
}

em_err em_run_solve_only(em_run *r, int fi, em_system **sys, em_cplx **x) {
  em_freq_result *fr = &r->res.fr[fi];
  fr->f = r->m.cfg.freq[fi];
  fr->k0 = 2 * M_PI * fr->f / EM_C0;
  *sys = NULL;
  *x = NULL;
  em_err err = solve_at(r, fr->f, fi == 0, fr, sys, x);
  if (err) {
    em_system_destroy(sys);
    em_free(x);
  }
  return err;
}

em_err em_run_post_frequency(em_run *r, int fi, const em_system *sys, const em_cplx *x) {
  EM_TRY(em_post_frequency(&r->m, &r->res, &r->out, r->log, fi, x, sys->fixed));
  em_app_log_frequency(r, fi); /* app/face.c */
  return EM_OK;
}

em_err em_run_solve_frequency(em_run *r, int fi) {
  em_system *sys = NULL;
  em_cplx *x = NULL;
  em_err err = em_run_solve_only(r, fi, &sys, &x);
  if (!err) err = em_run_post_frequency(r, fi, sys, x);
  em_system_destroy(&sys);
  em_free(&x);
  return err;
}

em_err em_run_solve_sample(em_run *r, double f, em_freq_result *fr, em_cplx *u, em_cplx *y) {
  em_system *sys = NULL;
  em_cplx *x = NULL;
  fr->f = f;
  fr->k0 = 2 * M_PI * f / EM_C0;
  em_err err = solve_at(r, f, r->res.n_samples == 0, fr, &sys, &x);
  if (!err) {
    memcpy(u, x, sizeof *u * (size_t)r->m.dofs->n_dof * fr->n_solve);
    err = em_post_measure(&r->m, x, sys->fixed, y);
  }
  if (!err) r->res.n_samples++;
  em_system_destroy(&sys);
  em_free(&x);
  return err;
}
